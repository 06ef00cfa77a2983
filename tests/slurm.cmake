# The Slurm batch scripts (slurm/*.sbatch) on a real single-node cluster started by the test
# itself (tests/slurm_cluster.sh: slurm-wlm + munge on loopback, needs root; skipped otherwise).
# requeue needs a study that is still running a few seconds after its job started.
foreach(_mode sweep requeue array scaling verify closedloop)
  set(_opts study_tiny.opts)
  if(_mode STREQUAL "requeue")
    set(_opts study_slurm.opts)
  endif()
  add_test(NAME slurm_${_mode}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/slurm_jobs.sh ${_mode} $<TARGET_FILE:simreach_exe>
                   ${CMAKE_CURRENT_SOURCE_DIR}/data/${_opts})
  # RUN_SERIAL: the cluster's jobs oversubscribe the machine; one cluster at a time.
  set_tests_properties(slurm_${_mode} PROPERTIES TIMEOUT 400 RUN_SERIAL TRUE SKIP_RETURN_CODE 77 LABELS "slurm")
endforeach()
