# cmake --install puts the library, headers, executable and package config under a prefix, and
# a separate project finds them with find_package(simreach) and links (tests/data/consumer).
set(_sr_inst ${CMAKE_CURRENT_BINARY_DIR}/install_test)
add_test(NAME install_tree COMMAND ${CMAKE_COMMAND} --install ${CMAKE_BINARY_DIR} --prefix ${_sr_inst}/prefix)
add_test(NAME install_consumer_configure
         COMMAND ${CMAKE_COMMAND} -S ${CMAKE_CURRENT_SOURCE_DIR}/data/consumer -B ${_sr_inst}/consumer -DCMAKE_PREFIX_PATH=${_sr_inst}/prefix)
add_test(NAME install_consumer_build COMMAND ${CMAKE_COMMAND} --build ${_sr_inst}/consumer)
add_test(NAME install_consumer_run COMMAND ${_sr_inst}/consumer/c)
set_tests_properties(install_tree PROPERTIES FIXTURES_SETUP sr_installed LABELS build)
set_tests_properties(install_consumer_configure PROPERTIES FIXTURES_REQUIRED sr_installed FIXTURES_SETUP sr_consumer_cfg LABELS build)
set_tests_properties(install_consumer_build PROPERTIES FIXTURES_REQUIRED "sr_installed;sr_consumer_cfg" FIXTURES_SETUP sr_consumer LABELS build)
set_tests_properties(install_consumer_run PROPERTIES FIXTURES_REQUIRED "sr_installed;sr_consumer" PASS_REGULAR_EXPRESSION "\\[-6\\.?, 3\\.?\\]" LABELS build)
