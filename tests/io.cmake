# A file write that fails after the checks (tests/io/test_fileio_write.c, issue 34): one error
# naming the file and EFBIG on every rank, .part and .lock removed, an existing file unchanged.
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fileio_write)
sr_add_mpi_test(NAME fileio_write COMMAND test_fileio_write -dir ${CMAKE_CURRENT_BINARY_DIR}/fileio_write RANKS 1 2 TIMEOUT 60 LABELS "io;quick")
# Issue 34: every output checked before the work and every write failure one line, exit 4, nothing
# left, old files unchanged (a real small tmpfs when mount is permitted, and ulimit -f;
# tests/outputs.sh); one-line errors for bad enums, -recheck failures, truncated files, SIGTERM
# through mpiexec, bench_arch.sh's argument and a contradictory ONNX Conv (tests/oneline.sh).
string(REPLACE ";" " " _sr_ioextra "${SR_MPIEXEC_EXTRA}")
foreach(_t outputs outputs_parallel oneline)
  add_test(NAME io_${_t} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/${_t}.sh ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/io_${_t} $<TARGET_FILE:test_verify>)
  set_tests_properties(io_${_t} PROPERTIES TIMEOUT 300 PROCESSORS 2 LABELS "io"
                       ENVIRONMENT "SIMREACH=$<TARGET_FILE:simreach_exe>;MPIEXEC=${MPIEXEC_EXECUTABLE};MPIEXEC_EXTRA=${_sr_ioextra};PY=/usr/bin/python3;OMPI_MCA_rmaps_base_oversubscribe=1")
endforeach()
