# The closed-loop properties on index-box graphs (SPEC §12) against a brute-force reference,
# with uneven blocks on 1, 2 and 4 ranks (the answers must not depend on the decomposition).
sr_add_mpi_test(NAME closedloop COMMAND test_closedloop RANKS 1 2 4 TIMEOUT 120)
# The benchmark is a program, not a test (see its header for the command).
add_executable(bench_closedloop ${CMAKE_CURRENT_SOURCE_DIR}/bench/bench_closedloop.c)
target_link_libraries(bench_closedloop PRIVATE simreach)
# simreach safe / reach end to end on abstraction files of simreach verify (tests/closedloop.sh).
string(REPLACE ";" " " _sr_clextra "${SR_MPIEXEC_EXTRA}")
add_test(NAME closedloop_commands COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/closedloop.sh ${CMAKE_CURRENT_BINARY_DIR}/closedloop_commands)
set_tests_properties(closedloop_commands PROPERTIES TIMEOUT 300 PROCESSORS 2 LABELS closedloop
                     ENVIRONMENT "SIMREACH=$<TARGET_FILE:simreach_exe>;MPIEXEC=${MPIEXEC_EXECUTABLE};MPIEXEC_EXTRA=${_sr_clextra};PY=/usr/bin/python3;OMPI_MCA_rmaps_base_oversubscribe=1")
