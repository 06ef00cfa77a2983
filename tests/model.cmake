# Runs of the random / system / model tests (serial: each checks values on one rank).
sr_add_mpi_test(NAME random COMMAND test_random RANKS 1 TIMEOUT 60)
sr_add_mpi_test(NAME system COMMAND test_system -jobs_dir ${CMAKE_SOURCE_DIR}/jobs RANKS 1 TIMEOUT 120)
sr_add_mpi_test(NAME model COMMAND test_model RANKS 1 TIMEOUT 120)
# one ODE period of the ARCH plants against a hand-written RK4 oracle, planted shrink caught (SPEC §16)
sr_add_mpi_test(NAME system_ode COMMAND test_system_ode -jobs_dir ${CMAKE_SOURCE_DIR}/jobs RANKS 1 TIMEOUT 300 LABELS "model")
# The per-cell cost of one ODE period: a program, not a test (docs/arch.md "Scale").
add_executable(bench_system_ode ${CMAKE_CURRENT_SOURCE_DIR}/bench/bench_system_ode.c)
target_link_libraries(bench_system_ode PRIVATE simreach)
# The verified-safe set of an ARCH closed loop on a fine grid over ranks: a program, not a test
# (docs/arch.md "Scale"; test_closedloop_plant checks the same code on a small grid).
add_executable(bench_plant_safe ${CMAKE_CURRENT_SOURCE_DIR}/bench/bench_plant_safe.c)
target_link_libraries(bench_plant_safe PRIVATE simreach)
# the plant-backed system (SPEC §16): the shipped files' double step is the C one, taylor1 against MPFR, plant-file lines
sr_add_mpi_test(NAME system_plant COMMAND test_system_plant RANKS 1 TIMEOUT 120 LABELS model quick)
# the shipped plant files give the C systems' numbers (issue 36 item 3): golden figures of baed6f0
string(REPLACE ";" " " _sr_gextra "${SR_MPIEXEC_EXTRA}")
add_test(NAME plants_golden COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/plants_golden.sh ${CMAKE_CURRENT_BINARY_DIR}/plants_golden)
set_tests_properties(plants_golden PROPERTIES ENVIRONMENT "SIMREACH=$<TARGET_FILE:simreach_exe>;MPIEXEC=${MPIEXEC_EXECUTABLE};MPIEXEC_EXTRA=${_sr_gextra};OMPI_MCA_rmaps_base_oversubscribe=1" TIMEOUT 300 PROCESSORS 2 LABELS "model;quick")
# -plant FILE on verify/check and the files that record the plant (issue 36 item 4)
add_test(NAME plants_files COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/plants_files.sh ${CMAKE_CURRENT_BINARY_DIR}/plants_files)
set_tests_properties(plants_files PROPERTIES ENVIRONMENT "SIMREACH=$<TARGET_FILE:simreach_exe>;MPIEXEC=${MPIEXEC_EXECUTABLE};MPIEXEC_EXTRA=${_sr_gextra};OMPI_MCA_rmaps_base_oversubscribe=1" TIMEOUT 300 PROCESSORS 2 LABELS "model;quick")
