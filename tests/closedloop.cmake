# The closed-loop properties on index-box graphs (SPEC §12) against a brute-force reference,
# with uneven blocks on 1, 2 and 4 ranks (the answers must not depend on the decomposition).
sr_add_mpi_test(NAME closedloop COMMAND test_closedloop RANKS 1 2 4 TIMEOUT 120)
# The benchmark is a program, not a test (see its header for the command).
add_executable(bench_closedloop ${CMAKE_CURRENT_SOURCE_DIR}/bench/bench_closedloop.c)
target_link_libraries(bench_closedloop PRIVATE simreach)
