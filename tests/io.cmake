# A file write that fails after the checks (tests/io/test_fileio_write.c, issue 34): one error
# naming the file and EFBIG on every rank, .part and .lock removed, an existing file unchanged.
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fileio_write)
sr_add_mpi_test(NAME fileio_write COMMAND test_fileio_write -dir ${CMAKE_CURRENT_BINARY_DIR}/fileio_write RANKS 1 2 TIMEOUT 60 LABELS "io;quick")
