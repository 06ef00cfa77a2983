# The closed-loop properties on index-box graphs (SPEC §12) against a brute-force reference,
# with uneven blocks on 1, 2 and 4 ranks (the answers must not depend on the decomposition).
sr_add_mpi_test(NAME closedloop COMMAND test_closedloop RANKS 1 2 4 TIMEOUT 120)
