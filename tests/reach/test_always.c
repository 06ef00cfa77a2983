/* `always` constraints of the closed loop (src/reach/odeloop.c, SPEC §15) asserted by the
   verdict: a constraint broken strictly between the sample times, in the first control period
   and in the last one, must never be VERIFIED.

   The plant is a rotation x1' = w x2, x2' = -w x1 (+ a control that the controller holds at 0),
   w = 4, period 0.75 (3 radians), horizon 1.5 (two periods); x1 follows sin(w t + phase).
   "first":  X0 about (0, 1): x1 peaks at 1 at t = pi / 8 = 0.39, inside the first period;
   "last":   X0 about (sin -3, cos -3): x1 peaks at t = (3 + pi / 2) / 4 = 1.14, inside the last.
   At the sample times 0, 0.75, 1.5, x1 is at most sin 3 = 0.14.  The spec says always x1 <= 0.99
   (over the whole horizon, and over the window of the period alone), broken on about 0.07 of
   the period around the peak, for every point of X0.
   - SRPieceProve on X0 and on its quarters must not prove the piece;
   - SRSplitSolve with simulations of 3 RK4 steps per period (their times 0.25, 0.5, ... miss the
     broken stretch, so no simulation shows the violation) must not answer VERIFIED (UNKNOWN:
     nothing is proven, nothing refuted) — a prover that skips the first or last period, or
     checks the states at the sample times only, answers VERIFIED here;
   - with 16 steps per period the simulation sees it and the validated re-check confirms it:
     FALSIFIED.
     test_always */
#include <petscsys.h>
#include <simreach/odesplit.h>
#include <stdio.h>

static const char plant_text[] = "states x1 x2\nconst w = 4\noutputs 1\ninput x1\ninput x2\ncontrol u = y1\n"
                                 "der x1 = w * x2\nder x2 = -w * x1 + u\nperiod 0.75\nhorizon 1.5\n";

static int Zero(void *ctx, const SRInterval *in, SRInterval *out)
{
  (void)ctx, (void)in;
  out[0] = SRIntervalPoint(0.0);
  return 0;
}
static int ZeroEval(void *ctx, const double *in, double *out)
{
  (void)ctx, (void)in;
  out[0] = 0.0;
  return 0;
}

static const char *Verdict(SRVerdict v) { return v == SR_VERDICT_VERIFIED ? "VERIFIED" : v == SR_VERDICT_FALSIFIED ? "FALSIFIED" : "UNKNOWN"; }

/* one spec: the pieces and the two verdicts; returns the number of wrong answers */
static PetscErrorCode Case(const SRPlant *pl, const char name[], const char spec_text[], int *bad)
{
  SRSpec         spec;
  SRController   ctrl = { 2, 1, NULL, Zero, NULL, ZeroEval };
  SRFlowOptions  fo;
  SRLoop         loop;
  SRPieceResult  r;
  SRSplitOptions so = { 4, 16, 3, PETSC_FALSE, PETSC_FALSE, -1, 2 };
  SRSplitResult  res;

  PetscFunctionBeginUser;
  PetscCall(SRSpecParse(PETSC_COMM_WORLD, name, spec_text, pl, &spec));
  SRFlowOptionsDefault(&fo);
  PetscCall(SRLoopCreate(pl, &spec, &ctrl, &fo, &loop));
  /* the piece X0 and its four quarters: never proven */
  for (int q = -1; q < 4; q++) {
    double lo[2], hi[2];
    for (int i = 0; i < 2; i++) {
      const double m = 0.5 * spec.lo[i] + 0.5 * spec.hi[i];
      lo[i]          = q < 0 || !((q >> i) & 1) ? spec.lo[i] : m;
      hi[i]          = q < 0 || ((q >> i) & 1) ? spec.hi[i] : m;
    }
    SRPieceProve(&loop, lo, hi, &r);
    if (r.status == SR_PIECE_PROVEN) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s: piece [%g, %g] x [%g, %g] proven\n", name, lo[0], hi[0], lo[1], hi[1]));
      (*bad)++;
    } else if (q < 0)
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: X0 not proven (constraint %d, step %d, margin %.3g)\n", name, r.constraint, r.step, r.margin));
  }
  /* simulations that miss the broken stretch: not VERIFIED */
  PetscCall(SRSplitSolve(PETSC_COMM_WORLD, &loop, &so, &res));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s, 3 simulation steps per period: %s (%ld leaves, %ld proven)\n", name, Verdict(res.verdict), res.nleaves, res.proven));
  if (res.verdict == SR_VERDICT_VERIFIED) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s: VERIFIED although x1 > 0.99 between the samples\n", name));
    (*bad)++;
  }
  SRSplitResultFree(&res, pl->n);
  /* simulations that see it: FALSIFIED */
  so.sim_nsub = 16;
  PetscCall(SRSplitSolve(PETSC_COMM_WORLD, &loop, &so, &res));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s, 16 simulation steps per period: %s\n", name, Verdict(res.verdict)));
  if (res.verdict != SR_VERDICT_FALSIFIED) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s: %s, want FALSIFIED\n", name, Verdict(res.verdict)));
    (*bad)++;
  }
  SRSplitResultFree(&res, pl->n);
  SRLoopDestroy(&loop);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  SRPlant pl;
  int     bad = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(SRPlantParse(PETSC_COMM_WORLD, "rotation plant", plant_text, &pl));
  PetscCall(Case(&pl, "first period", "initial x1 in [-0.005, 0.005]\ninitial x2 in [0.995, 1.005]\nalways: x1 <= 0.99\n", &bad));
  PetscCall(Case(&pl, "first period, window [0, 0.75]", "initial x1 in [-0.005, 0.005]\ninitial x2 in [0.995, 1.005]\nalways [0, 0.75]: x1 <= 0.99\n", &bad));
  /* sin(-3) = -0.14112, cos(-3) = -0.98999 */
  PetscCall(Case(&pl, "last period", "initial x1 in [-0.146, -0.136]\ninitial x2 in [-0.995, -0.985]\nalways: x1 <= 0.99\n", &bad));
  PetscCall(Case(&pl, "last period, window [0.75, 1.5]", "initial x1 in [-0.146, -0.136]\ninitial x2 in [-0.995, -0.985]\nalways [0.75, 1.5]: x1 <= 0.99\n", &bad));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "always: %d wrong answers\n", bad));
  SRPlantFree(&pl);
  PetscCall(PetscFinalize());
  return bad != 0;
}
