# The exact period map of a linear plant (src/model/flow_linear.c, SPEC §15): random linear
# plants (||A h|| up to ~100) against a 320-bit MPFR matrix exponential, the exponential and the
# flow's end states and tube parts; a planted Phi and a planted shrink caught; which ARCH plants
# are linear (Docking only).
sr_add_mpi_test(NAME flow_linear COMMAND test_flow_linear
  ${CMAKE_SOURCE_DIR}/jobs/arch/docking/plant.txt:1 ${CMAKE_SOURCE_DIR}/jobs/arch/acc/plant.txt:0
  ${CMAKE_SOURCE_DIR}/jobs/arch/tora/plant.txt:0
  RANKS 1 TIMEOUT 120 LABELS "closedloop;model")
