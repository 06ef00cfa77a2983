/* Checks on the options database shared by the subcommands. */
#include <simreach/private/commands.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Unknown options are an error before any work starts (like -options_left, but fatal):
   every object has read its options by now, so an option nobody read is a typo or a
   knob that does not exist.  Collective. */
static PetscBool SRTestHooks_Private = PETSC_FALSE; /* set only by simreach_testhooks' main() */
void             SRTestHooksEnable(void) { SRTestHooks_Private = PETSC_TRUE; }
PetscBool        SRTestHooksEnabled(void) { return SRTestHooks_Private; }

PetscErrorCode SRCheckUnusedOptions(MPI_Comm comm)
{
  PetscInt  n;
  char    **names, **values;

  PetscFunctionBeginUser;
  { /* read when the network is loaded, after this check (src/model/network_load.c: only a
       POLAR text network takes it, every other format refuses it) */
    PetscBool given;
    PetscCall(PetscOptionsHasName(NULL, NULL, "-network_activations", &given));
    /* -plant FILE: read when a stored system is made again, after this check (a file records the
       plant it was made from, SPEC §16; src/model/system_record.c) */
    PetscCall(PetscOptionsHasName(NULL, NULL, "-plant", &given));
  }
  PetscCall(PetscOptionsLeftGet(NULL, &n, &names, &values));
  if (n > 0) {
    char msg[4096] = "";
    for (PetscInt i = 0; i < n; i++) {
      PetscCall(PetscStrlcat(msg, " -", sizeof(msg)));
      PetscCall(PetscStrlcat(msg, names[i], sizeof(msg)));
    }
    PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
    SETERRQ(comm, PETSC_ERR_ARG_WRONG, "unknown option(s):%s (run with -help for the options that exist)", msg);
  }
  PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The values of the options simreach owns, checked before any object reads them (SPEC §13):
   PETSc would wrap an integer at 2^32 (-epochs 4294967297 runs 1 epoch), cut a list at its
   capacity, accept "16,,16", inf or an empty file name.  Every value is parsed strictly here,
   and anything outside the option's range is refused in one line naming the option, the value
   and what is allowed.  The objects' own checks stay (they see only values that passed). */
typedef enum { SR_OPT_INT, SR_OPT_INTLIST, SR_OPT_REAL, SR_OPT_REALLIST, SR_OPT_BOOL, SR_OPT_NONEMPTY } SROptKind_Private;
typedef struct {
  const char       *name;
  SROptKind_Private kind;
  double            lo, hi;   /* allowed values (lo_open: lo excluded) */
  int               lo_open;
  int               maxn;     /* lists: most entries */
} SROptRule_Private;

#define SR_INT_MAX ((double)PETSC_MAX_INT)
static const SROptRule_Private SROptRules_Private[] = {
  /* integers: the ranges keep every product the code forms inside PetscInt */
  {"epochs", SR_OPT_INT, 0, 1e7, 0, 0},
  {"pretrain_epochs", SR_OPT_INT, 0, 1e7, 0, 0},
  {"checkpoints", SR_OPT_INT, 1, 1e5, 0, 0},
  {"batch", SR_OPT_INT, 1, 1e8, 0, 0},
  {"samples", SR_OPT_INT, 1, 1e8, 0, 0},
  {"heldout", SR_OPT_INT, 1, 1e8, 0, 0},
  {"target_samples", SR_OPT_INT, 1, 1e6, 0, 0},
  {"assign_neighbors", SR_OPT_INT, 1, 1e6, 0, 0},
  {"seed", SR_OPT_INT, 0, SR_INT_MAX, 0, 0},
  {"seeds", SR_OPT_INT, 1, 256, 0, 0},
  {"guard_halvings", SR_OPT_INT, 0, 60, 0, 0},
  {"recheck_depth", SR_OPT_INT, 0, 200, 0, 0},
  {"recheck_boxes", SR_OPT_INT, 1, SR_INT_MAX, 0, 0},
  {"attack_steps", SR_OPT_INT, 0, 1e8, 0, 0},
  {"tight_bisect", SR_OPT_INT, 0, 6, 0, 0},
  {"floor_points", SR_OPT_INT, 2, 64, 0, 0},
  {"control_steps", SR_OPT_INT, 1, SR_MAX_CONTROL_STEPS, 0, 0},
  {"bisect", SR_OPT_INT, 0, 20, 0, 0},
  {"run", SR_OPT_INT, 0, SR_INT_MAX, 0, 0},
  {"run_seed", SR_OPT_INT, 0, SR_INT_MAX, 0, 0},
  {"max_print", SR_OPT_INT, 0, SR_INT_MAX, 0, 0},
  {"falsify_samples", SR_OPT_INT, 0, 1e8, 0, 0},
  {"cell_ranks", SR_OPT_INT, 1, SR_INT_MAX, 0, 0},
  {"tao_max_it", SR_OPT_INT, 0, SR_INT_MAX, 0, 0},
  {"tao_max_funcs", SR_OPT_INT, -1, SR_INT_MAX, 0, 0},
  {"recheck_store", SR_OPT_INT, 0, 1e7, 0, 0},
  {"checkpoint", SR_OPT_INT, 0, SR_INT_MAX, 0, 0},
  {"trajectories", SR_OPT_INT, 0, SR_INT_MAX, 0, 0},
  {"trajectory_cap", SR_OPT_INT, 1, 1e6, 0, 0},
  {"max_iterations", SR_OPT_INT, 1, SR_INT_MAX, 0, 0},
  {"steps", SR_OPT_INT, 0, 1e6, 0, 0},
  {"mlp_widths", SR_OPT_INTLIST, 1, 4096, 0, SR_MAX_LAYERS},
  {"cells", SR_OPT_INTLIST, 1, 1e6, 0, SR_MAX_DIM},
  {"seed_list", SR_OPT_INTLIST, 0, SR_INT_MAX, 0, 256},
  /* reals: finite, and within what the training can represent */
  {"beta", SR_OPT_REALLIST, 0, 1e6, 0, 256},
  {"tau", SR_OPT_REALLIST, 0, 1e6, 1, 256},
  {"eps", SR_OPT_REAL, 0, 1e6, 0, 0},
  {"lambda_eps", SR_OPT_REAL, 0, 1e6, 0, 0},
  {"w_min", SR_OPT_REAL, 0, 1e6, 1, 0},
  {"w_max", SR_OPT_REAL, 0, 1e6, 1, 0},
  {"lr", SR_OPT_REAL, 0, DBL_MAX, 1, 0}, /* a diverging run is a result (tests use -lr 1e300) */
  {"target_mass", SR_OPT_REAL, 0, 1, 1, 0},
  {"succ_margin", SR_OPT_REAL, 0, 1e6, 0, 0},
  {"coverage_weight", SR_OPT_REAL, 0, 1e6, 0, 0},
  {"run_beta", SR_OPT_REAL, 0, 1e6, 0, 0},
  {"run_tau", SR_OPT_REAL, 0, 1e6, 1, 0},
  {"volume_weight", SR_OPT_REAL, 0, 1e6, 0, 0},
  {"toy1d_a", SR_OPT_REAL, -1e6, 1e6, 0, 0},
  {"toy1d_b", SR_OPT_REAL, -1e6, 1e6, 0, 0},
  {"toy1d_k", SR_OPT_REAL, -1e6, 1e6, 0, 0},
  {"pendulum_g", SR_OPT_REAL, 0, 1e6, 1, 0},
  {"pendulum_b", SR_OPT_REAL, -1e6, 1e6, 0, 0},
  {"pendulum_dt", SR_OPT_REAL, 0, 1e3, 1, 0},
  {"pendulum_umax", SR_OPT_REAL, 0, 1e6, 1, 0},
  {"dubins_v", SR_OPT_REAL, -1e6, 1e6, 0, 0},
  {"dubins_dt", SR_OPT_REAL, 0, 1e3, 1, 0},
  {"dubins_umax", SR_OPT_REAL, 0, 1e6, 1, 0},
  /* flags: no value, or one PETSc reads as a boolean */
  {"resume", SR_OPT_BOOL, 0, 0, 0, 0},
  {"force", SR_OPT_BOOL, 0, 0, 0, 0},
  {"quiet", SR_OPT_BOOL, 0, 0, 0, 0},
  {"cells_free", SR_OPT_BOOL, 0, 0, 0, 0},
  {"run_view", SR_OPT_BOOL, 0, 0, 0, 0},
  {"closedloop_progress", SR_OPT_BOOL, 0, 0, 0, 0},
  {"reprove", SR_OPT_BOOL, 0, 0, 0, 0},
  {"closedloop_affine_network", SR_OPT_BOOL, 0, 0, 0, 0},
  {"closedloop_linear_flow", SR_OPT_BOOL, 0, 0, 0, 0},
  {"plant_linear_flow", SR_OPT_BOOL, 0, 0, 0, 0},
  /* names that must not be empty */
  {"output", SR_OPT_NONEMPTY, 0, 0, 0, 0},
  {"merge", SR_OPT_NONEMPTY, 0, 0, 0, 0},
  {"sys", SR_OPT_NONEMPTY, 0, 0, 0, 0},
};

/* Options that take one name of a list (PETSc's own message for a bad one is a traceback block). */
static const struct {
  const char *name, *allowed;
} SROptEnums_Private[] = {
  {"enclosure", "interval,taylor1,both,crown,affine"},
  {"recheck_subbox", "interval,taylor1,both"},
  {"target", "empirical,nominal,certified"},
  {"model", "dynamics,controller"},
  {"closedloop_network", "forward,crown,best"},
};

static int EnumBad_Private(const char name[], const char *v, char msg[], size_t len)
{
  for (size_t q = 0; q < sizeof(SROptEnums_Private) / sizeof(SROptEnums_Private[0]); q++) {
    const char *a = SROptEnums_Private[q].allowed;
    size_t      l = v ? strlen(v) : 0;
    if (strcmp(name, SROptEnums_Private[q].name)) continue;
    for (const char *p = a; l && p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
      if (!strncasecmp(p, v, l) && (p[l] == ',' || !p[l])) return 0;
    snprintf(msg, len, "option -%s %s: allowed are %s", name, v && v[0] ? v : "(no value)", a);
    return 1;
  }
  return 0;
}

static void Range_Private(const SROptRule_Private *r, char buf[], size_t len)
{
  if (r->kind == SR_OPT_INT || r->kind == SR_OPT_INTLIST) {
    if (r->hi >= SR_INT_MAX) snprintf(buf, len, "integers %.15g to %d", r->lo, PETSC_MAX_INT);
    else snprintf(buf, len, "integers %.15g to %.15g", r->lo, r->hi);
  } else if (r->hi >= DBL_MAX) snprintf(buf, len, "finite numbers %s %.15g", r->lo_open ? ">" : ">=", r->lo);
  else snprintf(buf, len, "finite numbers in %c%.15g, %.15g]", r->lo_open ? '(' : '[', r->lo, r->hi);
}

/* Strict parse of one entry; 0 if it is a number of the rule's kind inside the range. */
static int ParseEntry_Private(const SROptRule_Private *r, const char *s, size_t n, char why[], size_t len)
{
  char   buf[128], *end;
  double x;

  while (n > 0 && (*s == ' ' || *s == '\t')) s++, n--;
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
  if (n == 0) return snprintf(why, len, "an empty entry"), 1;
  if (n >= sizeof(buf)) return snprintf(why, len, "an entry too long to be a number"), 1;
  memcpy(buf, s, n);
  buf[n] = 0;
  errno = 0;
  if (r->kind == SR_OPT_INT || r->kind == SR_OPT_INTLIST) {
    long long v = strtoll(buf, &end, 10);
    if (end == buf || *end) return snprintf(why, len, "'%s' is not an integer", buf), 1;
    if (errno == ERANGE || (double)v < r->lo || (double)v > r->hi) return snprintf(why, len, "%s is out of range", buf), 1;
    return 0;
  }
  x = strtod(buf, &end);
  if (end == buf || *end) return snprintf(why, len, "'%s' is not a number", buf), 1;
  if (!isfinite(x) || errno == ERANGE) return snprintf(why, len, "%s is not a finite number", buf), 1;
  if (x < r->lo || x > r->hi || (r->lo_open && x == r->lo)) return snprintf(why, len, "%s is out of range", buf), 1;
  return 0;
}

PetscErrorCode SRCheckOptionValues(MPI_Comm comm, const char cmd[])
{
  PetscInt  n;
  char    **names, **values;
  char      msg[1024] = "";

  PetscFunctionBeginUser;
  /* nothing has read the options yet: "left" is every option given, with its text */
  PetscCall(PetscOptionsLeftGet(NULL, &n, &names, &values));
  for (PetscInt i = 0; i < n && !msg[0]; i++) {
    const char *v = values[i];
    if (EnumBad_Private(names[i], v, msg, sizeof(msg))) break;
    for (size_t q = 0; q < sizeof(SROptRules_Private) / sizeof(SROptRules_Private[0]) && !msg[0]; q++) {
      const SROptRule_Private *r = &SROptRules_Private[q];
      char                     range[160], why[256] = "";
      if (strcmp(names[i], r->name)) continue;
      Range_Private(r, range, sizeof(range));
      switch (r->kind) {
      case SR_OPT_BOOL:
        if (v && v[0]) {
          PetscBool b;
          static const char *const ok[] = {"true", "false", "yes", "no", "1", "0", "on", "off"};
          int                      good = 0;
          for (size_t k = 0; k < sizeof(ok) / sizeof(ok[0]); k++) {
            PetscCall(PetscStrcasecmp(v, ok[k], &b));
            good = good || b;
          }
          if (!good) snprintf(msg, sizeof(msg), "option -%s %s: not a boolean; allowed is -%s alone or -%s true|false", r->name, v, r->name, r->name);
        }
        break;
      case SR_OPT_NONEMPTY:
        if (!v || !v[0]) snprintf(msg, sizeof(msg), "option -%s: no value; give a non-empty %s", r->name, !strcmp(r->name, "sys") ? "system name" : "file name");
        break;
      case SR_OPT_INT:
      case SR_OPT_REAL:
        if (!v || !v[0]) snprintf(msg, sizeof(msg), "option -%s: no value; allowed are %s", r->name, range);
        else if (ParseEntry_Private(r, v, strlen(v), why, sizeof(why))) snprintf(msg, sizeof(msg), "option -%s %s: %s; allowed are %s", r->name, v, why, range);
        break;
      case SR_OPT_INTLIST:
      case SR_OPT_REALLIST: {
        int         count = 0;
        const char *p     = v;
        if (!v || !v[0]) {
          snprintf(msg, sizeof(msg), "option -%s: empty list; give 1 to %d comma-separated %s", r->name, r->maxn, range);
          break;
        }
        for (;;) {
          size_t l = strcspn(p, ",");
          count++;
          if (ParseEntry_Private(r, p, l, why, sizeof(why))) {
            snprintf(msg, sizeof(msg), "option -%s %s: entry %d: %s; allowed are 1 to %d comma-separated %s", r->name, v, count, why, r->maxn, range);
            break;
          }
          if (!p[l]) break;
          p += l + 1;
        }
        if (!msg[0] && count > r->maxn) snprintf(msg, sizeof(msg), "option -%s %s: %d entries; allowed are at most %d (comma-separated %s)", r->name, v, count, r->maxn, range);
        if (!msg[0] && !strcmp(r->name, "cells")) { /* K = the product must stay far inside PetscInt (arrays of 2 n K) */
          double K = 1;
          for (const char *e = v; e; e = strchr(e, ',') ? strchr(e, ',') + 1 : NULL) K *= strtod(e, NULL);
          /* verify streams its owned cells in chunks (SPEC §10: 10^6 to 10^9 cells across nodes);
             the training commands hold arrays of 2 n K on every rank */
          const double Kmax = (cmd && !strcmp(cmd, "verify")) ? 2147483647.0 : 1e8;
          if (K > Kmax) snprintf(msg, sizeof(msg), "option -cells %s: %.6g cells; allowed are at most %.10g cells in all%s", v, K, Kmax, Kmax < 1e9 ? " (simreach verify takes up to 2147483647)" : "");
        }
      } break;
      }
    }
  }
  PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
  PetscCheck(!msg[0], comm, PETSC_ERR_ARG_OUTOFRANGE, "%s", msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}
