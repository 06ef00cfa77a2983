# The study (SPEC §9): unit tests of its parts, then end-to-end studies driven by scripts.
sr_add_mpi_test(NAME study_units COMMAND test_study RANKS 1 2 4 TIMEOUT 120)
string(REPLACE ";" " " _sr_extra "${SR_MPIEXEC_EXTRA}")
set(_sr_study_env "SIMREACH=$<TARGET_FILE:simreach_exe>" "MPIEXEC=${MPIEXEC_EXECUTABLE}" "MPIEXEC_EXTRA=${_sr_extra}" "PY=/usr/bin/python3" "OMPI_MCA_rmaps_base_oversubscribe=1")
add_test(NAME study_ranks COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/study_ranks.sh ${CMAKE_CURRENT_SOURCE_DIR}/study_tiny.opts ${CMAKE_CURRENT_BINARY_DIR}/study_ranks)
set_tests_properties(study_ranks PROPERTIES ENVIRONMENT "${_sr_study_env}" TIMEOUT 300 PROCESSORS 2 FIXTURES_SETUP study_files LABELS study)
add_test(NAME study_spearman COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/analysis/test_spearman.py ${CMAKE_CURRENT_BINARY_DIR}/study_ranks/np1.h5)
set_tests_properties(study_spearman PROPERTIES TIMEOUT 60 FIXTURES_REQUIRED study_files LABELS study)
# the final enclosures E_k (/runs/enclosures): boxes, tightest inside the run's, mean volume = the last row's, dense samples inside, a planted violation caught
add_test(NAME study_enclosures COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/analysis/test_enclosures.py ${CMAKE_CURRENT_BINARY_DIR}/study_ranks/np1.h5 --simreach $<TARGET_FILE:simreach_exe>)
set_tests_properties(study_enclosures PROPERTIES TIMEOUT 60 FIXTURES_REQUIRED study_files SKIP_RETURN_CODE 77 LABELS study)
add_test(NAME study_control COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/study_control.sh ${CMAKE_CURRENT_SOURCE_DIR}/study_tiny.opts ${CMAKE_CURRENT_BINARY_DIR}/study_ranks/np1.h5 ${CMAKE_CURRENT_BINARY_DIR}/study_control)
set_tests_properties(study_control PROPERTIES ENVIRONMENT "${_sr_study_env}" TIMEOUT 120 PROCESSORS 2 FIXTURES_REQUIRED study_files LABELS study)
add_test(NAME study_resume COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/study_resume.sh ${CMAKE_CURRENT_SOURCE_DIR}/study_kill.opts ${CMAKE_CURRENT_BINARY_DIR}/study_resume)
set_tests_properties(study_resume PROPERTIES ENVIRONMENT "${_sr_study_env}" TIMEOUT 180 PROCESSORS 2 LABELS study)
add_test(NAME study_badinput COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/study_badinput.sh ${CMAKE_CURRENT_SOURCE_DIR}/study_tiny.opts ${CMAKE_CURRENT_BINARY_DIR}/study_badinput)
set_tests_properties(study_badinput PROPERTIES ENVIRONMENT "${_sr_study_env}" TIMEOUT 480 PROCESSORS 2 LABELS study)
# The kernels' CPU clones give the same bits: the study under valgrind (no AVX-512 there) against the native np1.h5.
add_test(NAME study_clones COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/study_clones.sh ${CMAKE_CURRENT_SOURCE_DIR}/study_tiny.opts ${CMAKE_CURRENT_BINARY_DIR}/study_ranks/np1.h5 ${CMAKE_CURRENT_BINARY_DIR}/study_clones)
set_tests_properties(study_clones PROPERTIES ENVIRONMENT "${_sr_study_env}" TIMEOUT 300 FIXTURES_REQUIRED study_files SKIP_RETURN_CODE 77 LABELS study)
# Issue #13: row checksums, format version, validated shapes, unfinished gather, one writer per file, stale locks, SIGTERM in start-up.
add_test(NAME study_files COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/study_files.sh ${CMAKE_CURRENT_SOURCE_DIR}/study_tiny.opts ${CMAKE_CURRENT_BINARY_DIR}/study_files)
set_tests_properties(study_files PROPERTIES ENVIRONMENT "${_sr_study_env}" TIMEOUT 300 PROCESSORS 2 LABELS study)
# SPEC §13: README's option defaults = what -help prints.
add_test(NAME readme_defaults COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/readme_defaults.sh ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_CURRENT_BINARY_DIR}/readme_defaults)
set_tests_properties(readme_defaults PROPERTIES ENVIRONMENT "${_sr_study_env}" TIMEOUT 60 LABELS study)
# Issue #13 item 8 / 6: an exploding loss and a failing TAO solve mark the run diverged with the reason.
add_test(NAME train_diverge COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/train_diverge.sh ${CMAKE_CURRENT_BINARY_DIR}/train_diverge)
set_tests_properties(train_diverge PROPERTIES ENVIRONMENT "${_sr_study_env}" TIMEOUT 180 LABELS study)
# Issue #13: every integer option of every command strict (no wrap at 2^32); sizes that overflow or exceed memory refused up front.
add_test(NAME limits COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/limits.sh ${CMAKE_CURRENT_SOURCE_DIR}/study_tiny.opts ${CMAKE_CURRENT_BINARY_DIR}/limits)
set_tests_properties(limits PROPERTIES ENVIRONMENT "${_sr_study_env}" TIMEOUT 240 LABELS study)
# Issue #13: SIGTERM during the final gather and a disk filling up during creation, driven under gdb; ulimit -f.
add_test(NAME study_stops COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/study_stops.sh ${CMAKE_CURRENT_SOURCE_DIR}/study_tiny.opts ${CMAKE_CURRENT_BINARY_DIR}/study_stops)
set_tests_properties(study_stops PROPERTIES ENVIRONMENT "${_sr_study_env}" TIMEOUT 180 SKIP_RETURN_CODE 77 LABELS study)
# Issue 22 item 6: SIGTERM and SIGINT to mpiexec during a study on 2 ranks: exit 83 path, -resume hint, lock released, -resume completes.
add_test(NAME study_signals COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/study_signals.sh ${CMAKE_CURRENT_SOURCE_DIR}/study_tiny.opts ${CMAKE_CURRENT_BINARY_DIR}/study_signals)
set_tests_properties(study_signals PROPERTIES ENVIRONMENT "${_sr_study_env}" TIMEOUT 300 PROCESSORS 2 LABELS study)
# Issue 33 / SPEC §9: beta = 0 trained once per seed, evaluated at every tau: identical numbers to training it at that tau.
add_test(NAME study_beta0 COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/study_beta0.sh ${CMAKE_CURRENT_SOURCE_DIR}/study_tiny.opts ${CMAKE_CURRENT_BINARY_DIR}/study_beta0)
set_tests_properties(study_beta0 PROPERTIES ENVIRONMENT "${_sr_study_env}" TIMEOUT 120 LABELS "study;quick")
# Issue 33 / SPEC §9: the manipulation check on a synthetic file with a planted drop in one arm, criterion 1's pairing.
sr_add_mpi_test(NAME gather_manip COMMAND test_gather_manip RANKS 1 2 TIMEOUT 60 LABELS study quick)
add_test(NAME study_record_start COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/study_record_start.sh ${CMAKE_CURRENT_SOURCE_DIR}/study_tiny.opts ${CMAKE_CURRENT_BINARY_DIR}/study_record_start)
set_tests_properties(study_record_start PROPERTIES ENVIRONMENT "${_sr_study_env}" TIMEOUT 120 LABELS "study;quick")
add_test(NAME study_published_check COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/study_published_check.sh ${CMAKE_SOURCE_DIR}/jobs ${CMAKE_SOURCE_DIR}/analysis ${CMAKE_CURRENT_BINARY_DIR}/study_published_check)
set_tests_properties(study_published_check PROPERTIES ENVIRONMENT "${_sr_study_env}" TIMEOUT 120 LABELS "study;quick")
# Issue 36: the study on an ARCH plant's dynamics (jobs/arch/tora/study_plant.txt), 2 ranks.
add_test(NAME study_arch_plant COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/study_arch_plant.sh ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/study_arch_plant)
set_tests_properties(study_arch_plant PROPERTIES ENVIRONMENT "${_sr_study_env}" TIMEOUT 300 PROCESSORS 2 LABELS study)
