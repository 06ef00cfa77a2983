# |M_tight|, vol(E_tight), |F| (SPEC §5, §6) against brute force, on 1 and 2 ranks
sr_add_mpi_test(NAME metrics COMMAND test_metrics RANKS 1 2 TIMEOUT 120)
