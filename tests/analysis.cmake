# analysis/report.py on a results file of the real study (Debian's python3 with h5py, numpy,
# scipy and matplotlib; the study runs on 2 ranks inside the test).
find_program(SR_SYSTEM_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(SR_SYSTEM_PYTHON)
  add_test(NAME analysis_report
           COMMAND ${SR_SYSTEM_PYTHON} ${CMAKE_SOURCE_DIR}/analysis/test_report.py
                   --simreach $<TARGET_FILE:simreach_exe> --mpiexec ${MPIEXEC_EXECUTABLE}
                   --options ${CMAKE_CURRENT_SOURCE_DIR}/data/study_tiny.opts)
  set_tests_properties(analysis_report PROPERTIES TIMEOUT 300 PROCESSORS 2 SKIP_RETURN_CODE 77
                       LABELS "analysis" ENVIRONMENT "OMPI_MCA_rmaps_base_oversubscribe=1")
endif()
