# The build refuses flags that break IEEE 754 semantics (the enclosures' soundness needs them):
# configuring a throw-away tree with each must fail and name the flag.  (The flags are spelt
# in two pieces so that a search of the tree for them finds only their uses.)
foreach(_flag O:fast f:fast-math f:unsafe-math-optimizations f:associative-math)
  string(REPLACE ":" "" _flag "-${_flag}")
  string(MAKE_C_IDENTIFIER "${_flag}" _id)
  add_test(NAME configure_rejects${_id}
           COMMAND ${CMAKE_COMMAND} -S ${CMAKE_SOURCE_DIR} -B ${CMAKE_CURRENT_BINARY_DIR}/configure${_id} "-DCMAKE_C_FLAGS=${_flag}")
  set_tests_properties(configure_rejects${_id} PROPERTIES PASS_REGULAR_EXPRESSION "compiler flag ${_flag} breaks IEEE 754" TIMEOUT 120 LABELS build)
endforeach()
