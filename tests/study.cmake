# The study (SPEC §9): unit tests of its parts, then end-to-end studies driven by scripts.
sr_add_mpi_test(NAME study_units COMMAND test_study RANKS 1 2 4 TIMEOUT 120)
