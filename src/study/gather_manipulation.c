/* The manipulation check and criterion 1 of the gather (SPEC §9, turn 4; issue 33).

   Manipulation check: did the treatment lower the quantity it optimises?  Per (beta > 0, tau),
   the paired same-seed difference of the held-out L_sim against beta = 0 at the final
   checkpoint, every arm of a seed measured with one yardstick: the checkpoint column
   Lsim_ref_heldout (src/train/run_yardstick.c), L_sim on the held-out samples over the cells as
   the run started, with the targets the run's -target rule chose for the warm-started network
   that every arm of the seed starts from.  Neither depends on the treated network, so the number
   compares networks, not target sets (the run's own held-out L_sim uses the run's own targets,
   which the empirical rule re-derives from the treated network's images; the reference map's
   targets measure accuracy instead: docs/study.md).  One-sided paired t test of a drop, Holm over
   the settings; acted when significant at a family-wise 5 % and the drop exceeds 1 % of the
   baseline's mean value. */
#include <simreach/private/gather_impl.h>
#include <simreach/study.h>
#include <math.h>
#include <stdio.h>

PetscErrorCode SRGatherManipulation(const SRResultsLayout *lay, const SRGatherRun *info, double *table, PetscInt *nacted, PetscInt *nset)
{
  const PetscInt ntau = lay->ntau, nseed = lay->nseed, NS = lay->nbeta * ntau;
  PetscInt       ib0 = -1;
  double        *p, *adj;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(NS, &p, NS, &adj));
  for (PetscInt ib = 0; ib < lay->nbeta; ib++)
    if (lay->beta[ib] == 0 && ib0 < 0) ib0 = ib;
  *nacted = *nset = 0;
  for (PetscInt ib = 0; ib < lay->nbeta; ib++)
    for (PetscInt it = 0; it < ntau; it++) {
      const PetscInt q   = ib * ntau + it;
      double        *row = table + q * SR_SUMMARY_NCOLS, d[SR_RESULTS_MAX_LIST], b[SR_RESULTS_MAX_LIST], sd;
      PetscInt       used, ub;
      for (PetscInt is = 0; is < nseed; is++) {
        const SRGatherRun *ri = &info[q * nseed + is], *r0 = ib0 >= 0 ? &info[(ib0 * ntau + it) * nseed + is] : NULL;
        const PetscBool    ok = (PetscBool)(lay->beta[ib] > 0 && r0 && ri->status == SR_RUN_DONE && r0->status == SR_RUN_DONE);
        d[is]                 = ok ? ri->final[SRG_LSREF] - r0->final[SRG_LSREF] : NAN;
        b[is]                 = ok ? r0->final[SRG_LSREF] : NAN;
      }
      SRGatherMeanSE_Private(nseed, d, &row[SRG_S_DLREF], &row[SRG_S_DLREF + 1], &used);
      SRGatherMeanStd_Private(nseed, b, &row[SRG_S_LREF0], &sd, &ub);
      /* one-sided: the treatment lowers its loss (a rise is not "acted") */
      p[q]                = used >= 2 ? SRGatherPairedT_Private(-row[SRG_S_DLREF], row[SRG_S_DLREF + 1], used, PETSC_FALSE) : NAN;
      row[SRG_S_PMAN]     = p[q];
      row[SRG_S_ACTED]    = used >= 2 ? 0.0 : -1.0;
      if (used >= 2) (*nset)++;
    }
  PetscCheck(SRGatherHolm_Private(NS, p, adj) >= 0, PETSC_COMM_SELF, PETSC_ERR_MEM, "gather: out of memory in the Holm adjustment");
  for (PetscInt q = 0; q < NS; q++) {
    double *row      = table + q * SR_SUMMARY_NCOLS;
    row[SRG_S_PMANH] = adj[q];
    if (row[SRG_S_ACTED] == 0.0 && adj[q] < SR_FWER && -row[SRG_S_DLREF] > 0.01 * fabs(row[SRG_S_LREF0])) {
      row[SRG_S_ACTED] = 1.0;
      (*nacted)++;
    }
  }
  PetscCall(PetscFree2(p, adj));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRGatherManipulationView(const SRResultsLayout *lay, const double *table, PetscInt nacted, PetscInt nset, PetscViewer viewer)
{
  PetscFunctionBeginUser;
  PetscCall(PetscViewerASCIIPrintf(viewer, "Manipulation check (SPEC §9): held-out L_sim on one yardstick (the cells as they start, the targets chosen for the warm-started network every arm of a seed starts from), beta > 0 against beta = 0 of the same tau and seed, final checkpoint, mean+-SE, one-sided paired t, Holm over %" PetscInt_FMT " settings; acted: p Holm < 0.05 and a drop > 1%% of the baseline:", nset));
  for (PetscInt ib = 0; ib < lay->nbeta; ib++)
    for (PetscInt it = 0; it < lay->ntau; it++) {
      const double *row = table + (ib * lay->ntau + it) * SR_SUMMARY_NCOLS;
      char          b[32], t[32];
      if (row[SRG_S_ACTED] < 0) continue;
      snprintf(b, sizeof(b), "%g", lay->beta[ib]);
      snprintf(t, sizeof(t), "%g", lay->tau[it]);
      PetscCall(PetscViewerASCIIPrintf(viewer, " beta=%s tau=%s %+.4f+-%.4f (%+.1f%%) p %.2g Holm %.2g %s;", b, t, row[SRG_S_DLREF], row[SRG_S_DLREF + 1], 100 * row[SRG_S_DLREF] / fabs(row[SRG_S_LREF0]), row[SRG_S_PMAN], row[SRG_S_PMANH], row[SRG_S_ACTED] == 1.0 ? "yes" : "no"));
    }
  PetscCall(PetscViewerASCIIPrintf(viewer, " -> %" PetscInt_FMT " of %" PetscInt_FMT " settings acted\n", nacted, nset));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rows of runs of tau index it (all taus when it < 0), columns cx, cy, into x, y; the count. */
static PetscInt GatherPairs_Private(const SRResultsLayout *lay, const double *tables, PetscInt it, PetscInt r1, PetscInt cx, PetscInt cy, double *x, double *y)
{
  PetscInt m = 0;
  for (PetscInt r = 0; r < lay->nruns; r++) {
    const PetscInt rt = (r / lay->nseed) % lay->ntau;
    if ((it >= 0 && rt != it) || (r1 >= 0 && r != r1)) continue;
    for (PetscInt j = 0; j < lay->nrows; j++) {
      const double *row = tables + ((size_t)r * lay->nrows + j) * SR_CHECKPOINT_NFIELDS;
      if (!isfinite(row[SRG_CK])) continue;
      x[m] = row[cx];
      y[m] = row[cy];
      m++;
    }
  }
  return m;
}

void SRGatherCriterion1(const SRResultsLayout *lay, const double *tables, double *lx, double *ly, double *run, double *tau, double *same, PetscInt *count, double *all)
{
  PetscInt m;
  for (PetscInt r = 0; r < lay->nruns; r++) {
    m      = GatherPairs_Private(lay, tables, -1, r, SRG_LSIM, SRG_H, lx, ly);
    run[r] = SRSpearman(m, lx, ly);
  }
  for (PetscInt it = 0; it < lay->ntau; it++) {
    m         = GatherPairs_Private(lay, tables, it, -1, SRG_LSIM, SRG_H, lx, ly); /* the verdict's pair: training L_sim, held-out H */
    tau[it]   = SRSpearman(m, lx, ly);
    count[it] = m;
    m         = GatherPairs_Private(lay, tables, it, -1, SRG_LSHO, SRG_H, lx, ly); /* surrogate fidelity: both held-out */
    same[it]  = SRSpearman(m, lx, ly);
  }
  m    = GatherPairs_Private(lay, tables, -1, -1, SRG_LSIM, SRG_H, lx, ly);
  *all = SRSpearman(m, lx, ly);
}
