# The abstraction of the ARCH Docking loop (a linear plant: the exact period map of
# src/model/flow_linear.c; issue 36): verify -plant on 4x4x4x3 cells with crown and with the interval
# bound (the batched kernel over blocks of cells, src/abstraction/plantstep.c), every simulated
# one-period image (NumPy RK4, the ONNX controller in NumPy) inside the cell's certified
# successors, 1 and 2 ranks bitwise equal, check re-proves the file; planted shrinks caught.
add_test(NAME plantloop_soundness_docking COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/abstraction/plantloop_soundness.py --system=docking
         $<TARGET_FILE:simreach_exe> ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/plantloop_soundness_docking ${MPIEXEC_EXECUTABLE} ${SR_MPIEXEC_EXTRA})
set_tests_properties(plantloop_soundness_docking PROPERTIES TIMEOUT 600 PROCESSORS 2 SKIP_RETURN_CODE 77 LABELS "graph;abstraction"
                     ENVIRONMENT "OMPI_MCA_rmaps_base_oversubscribe=1;SIMREACH_TESTHOOKS=$<TARGET_FILE:simreach_testhooks>")
