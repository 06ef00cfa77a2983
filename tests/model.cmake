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
# (docs/arch.md "Scale"; tests/plant_safe_ranks.sh runs it on a small grid).
add_executable(bench_plant_safe ${CMAKE_CURRENT_SOURCE_DIR}/bench/bench_plant_safe.c)
target_link_libraries(bench_plant_safe PRIVATE simreach)
