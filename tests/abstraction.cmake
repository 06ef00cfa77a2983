# Runs of the containment / successor / abstraction tests (SPEC §5, §6, §7).
sr_add_mpi_test(NAME containment COMMAND test_containment RANKS 1 TIMEOUT 120)
sr_add_mpi_test(NAME abstraction COMMAND test_abstraction RANKS 1 2 3 TIMEOUT 180)
