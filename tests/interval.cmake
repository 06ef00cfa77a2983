# Interval arithmetic (include/simreach/interval.h, src/numerics/interval.c): ITF1788 conformance,
# cmocka special cases, and the MPFR differential test at the issue's 10^6 random intervals
# per function (about a minute of CPU).
# The ITF1788 vectors of the project's shared/ folder; a checkout without it (a clone on its own)
# uses the copy in tests/data/itl (the same file, Apache-2.0, with its LICENSE and NOTICE).
set(_sr_itl ${SR_SHARED_DIR}/itl/libieeep1788_elem.itl)
if(NOT EXISTS ${_sr_itl})
  message(STATUS "simreach tests: ${_sr_itl} not found, using tests/data/itl")
  set(_sr_itl ${CMAKE_CURRENT_SOURCE_DIR}/data/itl/libieeep1788_elem.itl)
endif()
sr_add_mpi_test(NAME itf1788 COMMAND itf1788 ${_sr_itl} RANKS 1 TIMEOUT 60 LABELS interval)
sr_add_mpi_test(NAME test_interval COMMAND test_interval RANKS 1 TIMEOUT 60 LABELS interval)
# 3 x 10^5 intervals per function in the suite (61 s at 10^6 on an idle core); `test_interval_mpfr` alone runs 10^6
sr_add_mpi_test(NAME test_interval_mpfr COMMAND test_interval_mpfr 300000 RANKS 1 TIMEOUT 600 LABELS interval)
