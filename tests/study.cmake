# The study (SPEC §9): unit tests of its parts, then end-to-end studies driven by scripts.
sr_add_mpi_test(NAME study_units COMMAND test_study RANKS 1 2 4 TIMEOUT 120)
string(REPLACE ";" " " _sr_extra "${SR_MPIEXEC_EXTRA}")
set(_sr_study_env "SIMREACH=$<TARGET_FILE:simreach_exe>" "MPIEXEC=${MPIEXEC_EXECUTABLE}" "MPIEXEC_EXTRA=${_sr_extra}" "PY=/usr/bin/python3" "OMPI_MCA_rmaps_base_oversubscribe=1")
add_test(NAME study_ranks COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/study_ranks.sh ${CMAKE_CURRENT_SOURCE_DIR}/study_tiny.opts ${CMAKE_CURRENT_BINARY_DIR}/study_ranks)
set_tests_properties(study_ranks PROPERTIES ENVIRONMENT "${_sr_study_env}" TIMEOUT 120 PROCESSORS 2 FIXTURES_SETUP study_files LABELS study)
add_test(NAME study_spearman COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/analysis/test_spearman.py ${CMAKE_CURRENT_BINARY_DIR}/study_ranks/np1.h5)
set_tests_properties(study_spearman PROPERTIES TIMEOUT 60 FIXTURES_REQUIRED study_files LABELS study)
