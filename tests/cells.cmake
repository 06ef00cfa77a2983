# Runs of the cells and loss tests (serial: each checks values on one rank; SPEC §4, §6).
sr_add_mpi_test(NAME cells COMMAND test_cells RANKS 1 TIMEOUT 120)
sr_add_mpi_test(NAME loss COMMAND test_loss RANKS 1 TIMEOUT 120)
# L_encl (SPEC §6): gradient through the interval pass against central differences
sr_add_mpi_test(NAME lossencl COMMAND test_lossencl RANKS 1 TIMEOUT 120)
# The benchmark of L_encl's cost in a training step is a program, not a test.
add_executable(bench_lossencl ${CMAKE_CURRENT_SOURCE_DIR}/bench/bench_lossencl.c)
target_link_libraries(bench_lossencl PRIVATE simreach)
