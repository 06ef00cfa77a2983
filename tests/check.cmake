# simreach check (SPEC §11) on results files: stored triples proven, planted violations falsified.
string(REPLACE ";" " " _sr_check_extra "${SR_MPIEXEC_EXTRA}")
set(_sr_check_env "SIMREACH=$<TARGET_FILE:simreach_exe>" "MPIEXEC=${MPIEXEC_EXECUTABLE}" "MPIEXEC_EXTRA=${_sr_check_extra}" "PY=/usr/bin/python3" "OMPI_MCA_rmaps_base_oversubscribe=1")
add_executable(check_plant ${CMAKE_CURRENT_SOURCE_DIR}/check_plant.c)
target_link_libraries(check_plant PRIVATE simreach)
add_test(NAME check_results COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check.sh ${CMAKE_CURRENT_SOURCE_DIR}/study_tiny.opts ${CMAKE_CURRENT_BINARY_DIR}/check_results)
set_tests_properties(check_results PROPERTIES ENVIRONMENT "${_sr_check_env};PLANT=$<TARGET_FILE:check_plant>" TIMEOUT 180 PROCESSORS 2 LABELS study)
add_test(NAME check_slots COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_slots.sh ${CMAKE_CURRENT_BINARY_DIR}/check_slots)
set_tests_properties(check_slots PROPERTIES ENVIRONMENT "${_sr_check_env}" TIMEOUT 180 PROCESSORS 2 LABELS study)
