# The closed loop of a plant file and a network on a grid (SPEC §16, §12; src/graph/closedloop_plant.c):
# TORA on 5^4 cells, the figures of all ranks equal to rank 0 alone, every verified horizon
# checked by simulated closed-loop trajectories, a planted shrink caught.
sr_add_mpi_test(NAME closedloop_plant COMMAND test_closedloop_plant -jobs_dir ${CMAKE_SOURCE_DIR}/jobs RANKS 1 2 TIMEOUT 600 LABELS "graph")
