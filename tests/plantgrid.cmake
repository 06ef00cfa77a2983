# The closed loop of a plant file and a network on a grid (SPEC §16, §12; src/graph/closedloop_plant.c):
# TORA on 5^4 cells, the figures of all ranks equal to rank 0 alone, every verified horizon
# checked by simulated closed-loop trajectories, a planted shrink caught.
sr_add_mpi_test(NAME closedloop_plant COMMAND test_closedloop_plant -jobs_dir ${CMAKE_SOURCE_DIR}/jobs RANKS 1 2 TIMEOUT 600 LABELS "graph")
# The safety file's header checksum keeps the layout of files written while SR_MAX_DIM was 3 (issue 36).
sr_add_mpi_test(NAME safety_sum COMMAND test_safety_sum RANKS 1 TIMEOUT 60 LABELS "graph")
