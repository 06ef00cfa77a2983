# The guarded training run (SPEC §8): guard, TAO, determinism across rank counts, resume.
sr_add_mpi_test(NAME run COMMAND test_run RANKS 1 2 TIMEOUT 180)
# simreach train with the shipped job file (checks the unknown-option check passes and the run finishes).
sr_add_mpi_test(NAME train_job COMMAND simreach_exe train -options_file ${CMAKE_SOURCE_DIR}/jobs/train_pendulum.opts -quiet RANKS 1 2 TIMEOUT 120)
# The theta guard made to reject (issue 37): free boxes shrunk by TAO under -guard reject and
# backtrack; rejections asserted, the final lists pass the guard's test and sampling.
sr_add_mpi_test(NAME guard_theta COMMAND test_guard_theta RANKS 1 2 TIMEOUT 180 LABELS train quick)
