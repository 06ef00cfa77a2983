# Runs of the random / system / model tests (serial: each checks values on one rank).
sr_add_mpi_test(NAME random COMMAND test_random RANKS 1 TIMEOUT 60)
sr_add_mpi_test(NAME system COMMAND test_system -jobs_dir ${CMAKE_SOURCE_DIR}/jobs RANKS 1 TIMEOUT 120)
sr_add_mpi_test(NAME model COMMAND test_model RANKS 1 TIMEOUT 120)
# the plant-backed system (SPEC §16): the shipped files' double step is the C one, taylor1 against MPFR, plant-file lines
sr_add_mpi_test(NAME system_plant COMMAND test_system_plant RANKS 1 TIMEOUT 120 LABELS model quick)
