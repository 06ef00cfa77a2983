/* The union volume of an index box's cells without the list (SRSuccessorsUnionVolumeBox_Private,
   src/abstraction/successors.c; SPEC §6) against the general coordinate compression over the
   listed cells (SRSuccessorsUnionVolume_Private): bit for bit on random index boxes of grid
   cells and of moved partitions, 1-3 dimensions, the sink flag on and off, one-cell and
   whole-grid boxes included. */
#include <simreach.h>
#include <simreach/private/successors.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "random_model.h"

static void run_case(const char *sysname, PetscBool partition)
{
  SRSystem  sys;
  SRCells   cells;
  PetscInt  counts[SR_MAX_DIM] = { 1, 1, 1 };
  uint64_t  ctr = 0, seed = 41;
  long long same = 0, differ = 0;

  assert_int_equal(SRSystemCreate(PETSC_COMM_SELF, sysname, NULL, &sys), 0);
  for (PetscInt d = 0; d < sys->n; d++)
    counts[d] = sys->n == 1 ? 97 : (sys->n == 2 ? 23 + 4 * d : 9 + d);
  if (partition) assert_int_equal(RandomMovedPartition(sys, counts, 0.3, seed, &ctr, &cells), 0);
  else assert_int_equal(SRCellsCreateGrid(sys, counts, &cells), 0);
  for (int t = 0; t < 400; t++) {
    const PetscInt n = cells->n;
    PetscInt       row[2 * SR_MAX_DIM + 1];
    SRIntBuf       L = { 0, 0, NULL };
    double         v1, v2;
    for (PetscInt d = 0; d < n; d++) {
      PetscInt a = (PetscInt)(counts[d] * U01(seed, &ctr)), z = (PetscInt)(counts[d] * U01(seed, &ctr));
      if (t == 0) a = 0, z = counts[d] - 1; /* the whole grid */
      if (t == 1) z = a; /* one cell */
      row[d]     = PetscMin(a, z);
      row[n + d] = PetscMax(a, z);
    }
    row[2 * n] = t % 2;
    assert_int_equal(SRIndexBoxAppend_Private(n, cells->grid, cells->K, 0, row, &L), 0);
    assert_int_equal(SRSuccessorsUnionVolume_Private(cells, L.n, L.a, &v1), 0);
    assert_int_equal(SRSuccessorsUnionVolumeBox_Private(cells, row, &v2), 0);
    if (memcmp(&v1, &v2, sizeof v1) == 0)
      same++;
    else
      differ++;
    assert_int_equal(SRIntBufDestroy_Private(&L), 0);
  }
  print_message("%s %s: %lld index boxes, %lld identical volumes, %lld differ\n", sysname, partition ? "partition" : "grid", same + differ, same, differ);
  assert_int_equal(differ, 0);
  assert_int_equal(SRCellsDestroy(&cells), 0);
  assert_int_equal(SRSystemDestroy(&sys), 0);
}

static void test_union_volume_box(void **state)
{
  (void)state;
  for (int p = 0; p < 2; p++) {
    run_case("toy1d", (PetscBool)p);
    run_case("pendulum", (PetscBool)p);
    run_case("dubins", (PetscBool)p);
  }
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = { cmocka_unit_test(test_union_volume_box) };
  int                     rc;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  rc = cmocka_run_group_tests(tests, NULL, NULL);
  PetscCall(PetscFinalize());
  return rc;
}
