# Partition cells and their TAO solve (SPEC §4, §8): geometry, the theta gradient against
# central differences, soundness after TAO moves (dense + attack + MPFR), a planted boundary
# move, and rank independence.
sr_add_mpi_test(NAME partition COMMAND test_partition RANKS 1 2 4 TIMEOUT 300)
