# Runs of the containment / successor / abstraction tests (SPEC §5, §6, §7).
sr_add_mpi_test(NAME containment COMMAND test_containment RANKS 1 TIMEOUT 120)
sr_add_mpi_test(NAME abstraction COMMAND test_abstraction RANKS 1 2 3 TIMEOUT 180)
# simreach abstract prints the floor |F| (dense sample with the corners) beside the sampled count
add_test(NAME abstract_floor COMMAND simreach_exe abstract -sys pendulum -model dynamics -cells 8,8 -mlp_widths 8)
set_tests_properties(abstract_floor PROPERTIES TIMEOUT 60 PASS_REGULAR_EXPRESSION "floor \\|F\\| [0-9.]+ \\(cells meeting the hull of f over 9\\^n points per cell, corners included")
# The batched taylor1 kernel's affine layers against the exact image in MPFR, inner and outer,
# on cancelling sums and biases where a lost rounding allowance of a few ulps shows (issue 37).
sr_add_mpi_test(NAME taylor_affine_exact COMMAND test_taylor_affine_exact RANKS 1 TIMEOUT 120 LABELS abstraction quick)
# the step of the abstraction for an ARCH closed loop (TORA, ACC) against a hand-written
# closed-loop simulation on a small grid, planted shrink caught (SPEC §16; no command)
sr_add_mpi_test(NAME plantstep COMMAND test_plantstep -jobs_dir ${CMAKE_SOURCE_DIR}/jobs RANKS 1 TIMEOUT 300 LABELS "abstraction")
# One closed loop for every path (issue 36): the plant file's input/control lines as -model
# controller; the point map equal to plantstep's, every -enclosure equal to plantstep's bound and
# holding the point map's images, the model's own enclosures refusing, the VJP against
# differences, a mismatching network refused in one line.
sr_add_mpi_test(NAME plantloop COMMAND test_plantloop -jobs_dir ${CMAKE_SOURCE_DIR}/jobs RANKS 1 TIMEOUT 300 LABELS "abstraction")
