# |M_tight|, vol(E_tight), |F| (SPEC §5, §6) against brute force, on 1 and 2 ranks
sr_add_mpi_test(NAME metrics COMMAND test_metrics RANKS 1 2 TIMEOUT 120)
# What a cell's Taylor model decides without the network (src/abstraction/cellmodel.c): the
# image boxes hold the point pass, decided cells and floors are the point pass's own, planted
# face-straddling boxes are never decided, targets identical with and without the models.
sr_add_mpi_test(NAME cellmodel COMMAND test_cellmodel RANKS 1 TIMEOUT 300)
# The union volume of an index box without its list: bit for bit the general coordinate compression.
sr_add_mpi_test(NAME union_volume COMMAND test_union_volume RANKS 1 TIMEOUT 120)
