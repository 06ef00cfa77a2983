# Enclosure kernels and Taylor models (SPEC §7): unit tests, the soundness suite, the benchmark.
# >= 10^4 cells x 10^3 points in total over the five runs (toy1d has no control input)
foreach(_sys_model IN ITEMS toy1d:dynamics pendulum:dynamics pendulum:controller dubins:dynamics dubins:controller)
  string(REPLACE ":" ";" _sm ${_sys_model})
  list(GET _sm 0 _sys)
  list(GET _sm 1 _model)
  foreach(_seed 1 3) # two runs of 1000 cells each keep every run at a few seconds
    sr_add_mpi_test(NAME soundness_${_sys}_${_model}_s${_seed} COMMAND test_soundness -sys ${_sys} -model ${_model} -cells 1000 -points 1000 -seed ${_seed} RANKS 1 TIMEOUT 300)
  endforeach()
  # the same cells dealt to several ranks, verdict reduced
  sr_add_mpi_test(NAME soundness_small_${_sys}_${_model} COMMAND test_soundness -sys ${_sys} -model ${_model} -cells 200 -points 300 -seed 2 RANKS 2 4 TIMEOUT 300)
endforeach()

# -control_steps (SPEC §2): the zero-order hold through m plant steps in the point, interval and
# Taylor paths, against the MPFR oracle stepped m times
foreach(_sys pendulum dubins)
  sr_add_mpi_test(NAME soundness_${_sys}_controller_hold COMMAND test_soundness -sys ${_sys} -model controller -control_steps 5 -cells 600 -points 500 -seed 4 RANKS 1 2 TIMEOUT 300)
endforeach()

# The benchmark is a program, not a test (tests/bench/bench_enclosure.sh runs it).
if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/bench/bench_enclosure.c)
  add_executable(bench_enclosure ${CMAKE_CURRENT_SOURCE_DIR}/bench/bench_enclosure.c)
  target_link_libraries(bench_enclosure PRIVATE simreach)
endif()
sr_add_mpi_test(NAME taylor COMMAND test_taylor RANKS 1 TIMEOUT 120)
sr_add_mpi_test(NAME enclosure COMMAND test_enclosure RANKS 1 2 TIMEOUT 120)
# The three-outcome re-check of SPEC §11: no false alarm on tight sound lists, planted
# violations falsified with confirmed witnesses, the same counts on 1 and 2 ranks.
sr_add_mpi_test(NAME recheck COMMAND test_recheck RANKS 1 2 TIMEOUT 300)
# The batched taylor1 kernel (src/bounds/nettaylor.c, through src/abstraction/enclosure_taylor.c): MPFR soundness, a planted violation
# caught, never looser than the per-cell Taylor path beyond rounding margins.
sr_add_mpi_test(NAME taylor_batch COMMAND test_taylor_batch RANKS 1 TIMEOUT 120)
