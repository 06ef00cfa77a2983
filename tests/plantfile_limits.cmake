# Plant and spec files bounded (issue #34, SPEC §15 turn 4): step counts, nesting, constants,
# expression size and file types refused in one file:line:col line; a spec false at t = 0 and a
# violation shorter than 1/16 of a period FALSIFIED; an unconfirmed simulated violation named in
# the UNKNOWN report (tests/plantfile_limits.sh; the big files are generated there).
string(REPLACE ";" " " _sr_plextra "${SR_MPIEXEC_EXTRA}")
add_test(NAME plantfile_limits COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/plantfile_limits.sh ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/plantfile_limits)
set_tests_properties(plantfile_limits PROPERTIES TIMEOUT 600 PROCESSORS 2 LABELS "closedloop;quick"
                     ENVIRONMENT "SIMREACH=$<TARGET_FILE:simreach_exe>;MPIEXEC=${MPIEXEC_EXECUTABLE};MPIEXEC_EXTRA=${_sr_plextra};PY=/usr/bin/python3;OMPI_MCA_rmaps_base_oversubscribe=1")
# The parser's constant folding against MPFR, its refusals, the nesting cap and node sharing
# (tests/model/test_plantfold.c).
sr_add_mpi_test(NAME plantfold COMMAND test_plantfold RANKS 1 TIMEOUT 120 LABELS "closedloop;quick")
