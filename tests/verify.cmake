# simreach verify (SPEC §10): soundness of index-box lists, bisection and partitions; the
# command end to end; the PyTorch network file interop (skipped without python3-torch).
sr_add_mpi_test(NAME verify_soundness COMMAND test_verify RANKS 1 3 TIMEOUT 300)
string(REPLACE ";" " " _sr_vextra "${SR_MPIEXEC_EXTRA}")
set(_sr_verify_env "SIMREACH=$<TARGET_FILE:simreach_exe>" "MPIEXEC=${MPIEXEC_EXECUTABLE}" "MPIEXEC_EXTRA=${_sr_vextra}" "PY=/usr/bin/python3" "OMPI_MCA_rmaps_base_oversubscribe=1")
add_test(NAME verify_command COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/verify.sh $<TARGET_FILE:test_verify> ${CMAKE_CURRENT_BINARY_DIR}/verify_command ${CMAKE_CURRENT_BINARY_DIR}/study_ranks/np1.h5)
set_tests_properties(verify_command PROPERTIES ENVIRONMENT "${_sr_verify_env}" TIMEOUT 300 PROCESSORS 2 FIXTURES_REQUIRED study_files LABELS verify)
add_test(NAME verify_network_torch COMMAND bash -c "/usr/bin/python3 ${CMAKE_SOURCE_DIR}/analysis/network_torch.py train --sys pendulum --steps 100 --out ${CMAKE_CURRENT_BINARY_DIR}/torch_net.h5 && /usr/bin/python3 ${CMAKE_SOURCE_DIR}/analysis/network_torch.py check --net ${CMAKE_CURRENT_BINARY_DIR}/torch_net.h5 --simreach $<TARGET_FILE:simreach_exe>")
set_tests_properties(verify_network_torch PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS verify)
# Corrupted abstraction files refused by every command (issue 22, SPEC §13)
add_test(NAME abs_corrupt COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/abs_corrupt.sh ${CMAKE_CURRENT_BINARY_DIR}/abs_corrupt)
set_tests_properties(abs_corrupt PROPERTIES ENVIRONMENT "${_sr_verify_env}" TIMEOUT 600 PROCESSORS 2 LABELS verify)
