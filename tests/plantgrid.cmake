# The closed loop of a plant file and a network on a grid (SPEC §16, §12; src/graph/closedloop_plant.c):
# TORA on 5^4 cells, the figures of all ranks equal to rank 0 alone, every verified horizon
# checked by simulated closed-loop trajectories, a planted shrink caught.
sr_add_mpi_test(NAME closedloop_plant COMMAND test_closedloop_plant -jobs_dir ${CMAKE_SOURCE_DIR}/jobs RANKS 1 2 TIMEOUT 600 LABELS "graph")
# The safety file's header checksum keeps the layout of files written while SR_MAX_DIM was 3 (issue 36).
sr_add_mpi_test(NAME safety_sum COMMAND test_safety_sum RANKS 1 TIMEOUT 60 LABELS "graph")
# The abstraction of a plant file's closed loop (SPEC §16, issue 36; src/abstraction/enclosure_loop.c):
# verify -plant of ARCH TORA on 4^4 cells with CROWN, every simulated one-period image (NumPy RK4,
# the ONNX controller in NumPy) inside the cell's certified successors, 1 and 2 ranks bitwise
# equal, check re-proves the file; a planted shrink exits 7, is caught and check refuses the file.
add_test(NAME plantloop_soundness COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/abstraction/plantloop_soundness.py
         $<TARGET_FILE:simreach_exe> ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/plantloop_soundness ${MPIEXEC_EXECUTABLE} ${SR_MPIEXEC_EXTRA})
set_tests_properties(plantloop_soundness PROPERTIES TIMEOUT 600 PROCESSORS 2 SKIP_RETURN_CODE 77 LABELS "graph;abstraction"
                     ENVIRONMENT "OMPI_MCA_rmaps_base_oversubscribe=1;SIMREACH_TESTHOOKS=$<TARGET_FILE:simreach_testhooks>")
