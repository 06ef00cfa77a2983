# Networks from the field (SPEC §14): activations in the soundness suite, the network file's
# format 2 end to end.
# ReLU, sigmoid and mixed random networks (each layer any of tanh, relu, sigmoid, linear, the
# output too) at both enclosures (and their intersection): MPFR re-evaluation, dense sampling
# and attacks; -plant shrinks every box and the same suite must report escapes for each type.
foreach(_act relu sigmoid mixed)
  foreach(_sys_model IN ITEMS pendulum:dynamics dubins:controller toy1d:dynamics)
    string(REPLACE ":" ";" _sm ${_sys_model})
    list(GET _sm 0 _sys)
    list(GET _sm 1 _model)
    sr_add_mpi_test(NAME soundness_${_act}_${_sys}_${_model} COMMAND test_soundness -sys ${_sys} -model ${_model} -act ${_act} -cells 600 -points 500 -seed 11 RANKS 1 TIMEOUT 300)
  endforeach()
  sr_add_mpi_test(NAME soundness_${_act}_planted COMMAND test_soundness -sys pendulum -model controller -act ${_act} -plant -cells 100 -points 200 -seed 12 RANKS 1 TIMEOUT 300)
endforeach()
sr_add_mpi_test(NAME soundness_mixed_ranks COMMAND test_soundness -sys dubins -model dynamics -act mixed -cells 200 -points 300 -seed 13 RANKS 2 TIMEOUT 300)
string(REPLACE ";" " " _sr_nextra "${SR_MPIEXEC_EXTRA}")
set(_sr_networks_env "SIMREACH=$<TARGET_FILE:simreach_exe>" "MPIEXEC=${MPIEXEC_EXECUTABLE}" "MPIEXEC_EXTRA=${_sr_nextra}" "PY=/usr/bin/python3" "OMPI_MCA_rmaps_base_oversubscribe=1")
add_test(NAME networks_activations COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/networks_act.sh ${CMAKE_CURRENT_BINARY_DIR}/networks_act)
set_tests_properties(networks_activations PROPERTIES ENVIRONMENT "${_sr_networks_env}" TIMEOUT 300 PROCESSORS 2 SKIP_RETURN_CODE 77 LABELS verify)
# Input clipping/normalisation and output scaling (NNet, ONNX constants; SPEC §14) on random
# networks: the clipping is part of the function and enclosed with it.
foreach(_act tanh relu mixed)
  sr_add_mpi_test(NAME soundness_transform_${_act}_pendulum COMMAND test_soundness -sys pendulum -model dynamics -act ${_act} -transform -cells 500 -points 400 -seed 21 RANKS 1 TIMEOUT 300)
  sr_add_mpi_test(NAME soundness_transform_${_act}_dubins COMMAND test_soundness -sys dubins -model controller -act ${_act} -transform -cells 500 -points 400 -seed 22 RANKS 1 TIMEOUT 300)
endforeach()
# An imported controller in the closed loop (issue 24): the ARCH-COMP single-pendulum ONNX
# controller (2-25-25-1 ReLU) with its control u = clip(N, -umax, umax), dense sampling and
# attacks against both enclosures with MPFR re-checks; -plant must be caught.
set(_sr_arch_pend ${CMAKE_SOURCE_DIR}/jobs/arch/pendulum/controller_single_pendulum.onnx)
sr_add_mpi_test(NAME soundness_imported_controller COMMAND test_soundness -sys pendulum -model controller -network ${_sr_arch_pend} -cells 300 -points 400 -seed 31 RANKS 1 TIMEOUT 300)
sr_add_mpi_test(NAME soundness_imported_controller_planted COMMAND test_soundness -sys pendulum -model controller -network ${_sr_arch_pend} -plant -cells 100 -points 200 -seed 32 RANKS 1 TIMEOUT 300)
sr_add_mpi_test(NAME soundness_transform_planted COMMAND test_soundness -sys pendulum -model dynamics -act relu -transform -plant -cells 100 -points 200 -seed 23 RANKS 1 TIMEOUT 300)
# ONNX (PyTorch exports and onnx.helper graphs) and NNet against independent references on 10^4
# points, the converter, verify/check on an ONNX network, and bad files refused in one line
# (tests/networks_import.py; skipped without python3-onnx / python3-torch).
add_test(NAME networks_import COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/networks_import.py
         --simreach $<TARGET_FILE:simreach_exe> --mpiexec ${MPIEXEC_EXECUTABLE} --mpiexec-extra "${_sr_nextra}" --dir ${CMAKE_CURRENT_BINARY_DIR}/networks_import)
set_tests_properties(networks_import PROPERTIES TIMEOUT 600 PROCESSORS 2 SKIP_RETURN_CODE 77 LABELS verify ENVIRONMENT "OMPI_MCA_rmaps_base_oversubscribe=1")
# -init_network (issue 24): a study starts from an imported ONNX controller (checkpoint 0 = the
# file's function, u = clip(N, -umax, umax)), trains it, and bad inputs are refused in one line.
add_test(NAME networks_init COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/networks_init.py
         --simreach $<TARGET_FILE:simreach_exe> --dir ${CMAKE_CURRENT_BINARY_DIR}/networks_init)
set_tests_properties(networks_init PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77 LABELS "verify;study" ENVIRONMENT "OMPI_MCA_rmaps_base_oversubscribe=1")
# The ARCH-COMP 2022 network files (issue 35): the NNet files of the older ARCH layout against a
# NumPy reader and against their ONNX twins (within the 5-decimal rounding of the weights), the
# POLAR text TORA controllers against a NumPy reader, layout refusals (tests/networks_arch.py).
add_test(NAME networks_arch COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/networks_arch.py
         --eval $<TARGET_FILE:test_network_eval> --simreach $<TARGET_FILE:simreach_exe> --arch ${CMAKE_SOURCE_DIR}/jobs/arch --dir ${CMAKE_CURRENT_BINARY_DIR}/networks_arch)
set_tests_properties(networks_arch PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS "verify;quick")
