# Interval arithmetic (include/simreach/interval.h, src/interval.c): ITF1788 conformance,
# cmocka special cases, and the MPFR differential test at the issue's 10^6 random intervals
# per function (about a minute of CPU).
sr_add_mpi_test(NAME itf1788 COMMAND itf1788 ${SR_SHARED_DIR}/itl/libieeep1788_elem.itl RANKS 1 TIMEOUT 60 LABELS interval)
sr_add_mpi_test(NAME test_interval COMMAND test_interval RANKS 1 TIMEOUT 60 LABELS interval)
sr_add_mpi_test(NAME test_interval_mpfr COMMAND test_interval_mpfr 1000000 RANKS 1 TIMEOUT 600 LABELS interval)
