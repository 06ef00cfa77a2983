# The house rules of issue 20 (docs/layout.md): includes and calls go down the layers only
# (SR_LAYERS, lowest first), each header belongs to one layer, no file-level circle exists, no
# source file is over 700 lines, and docs/layout.md names every folder and source file.
# layers_check runs the checker on this tree's sources and built objects; layers_selftest
# shows that the checker fails on a planted upward include, a planted upward call, a planted
# circle, a header of two layers, a file over the line limit and a page that misses a folder
# (tiny trees), and on an upward include planted in a copy of this tree.
set(_sr_layer_objs "${CMAKE_BINARY_DIR}/CMakeFiles/simreach.dir/src:${CMAKE_BINARY_DIR}/CMakeFiles/simreach_exe.dir/src")
add_test(NAME layers_check
         COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/check_layers.py --max-lines 700 --layout ${CMAKE_SOURCE_DIR}/docs/layout.md ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include ${_sr_layer_objs} ${SR_LAYERS})
add_test(NAME layers_selftest
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/selftest.sh ${CMAKE_CURRENT_LIST_DIR}/check_layers.py ${CMAKE_CURRENT_BINARY_DIR}/layers_selftest ${CMAKE_SOURCE_DIR} ${_sr_layer_objs} "${SR_LAYERS}")
set_tests_properties(layers_check layers_selftest PROPERTIES LABELS layers TIMEOUT 120)
