/* SRStudySetFromOptions (SPEC §9): the grid (-beta, -tau, -seeds), the output, the group size
   and the canonical options that decide the results (stored in the results file so that
   -resume and -merge refuse a file made with other ones).  Cut from src/study/study.c. */
/* strtok_r: POSIX in ISO C17 mode */
#define _POSIX_C_SOURCE 200809L
#include <simreach/private/study_types.h>
#include <simreach/network.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <math.h>

/* A comma-separated list of numbers; every entry must parse completely. */
static PetscErrorCode ParseList_Private(MPI_Comm comm, const char opt[], const char str[], const char example[], PetscInt max, double *v, PetscInt *n)
{
  char     buf[4096], *tok, *save = NULL;
  size_t   len;
  PetscInt m = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscStrlen(str, &len));
  PetscCheck(len > 0 && len < sizeof(buf), comm, PETSC_ERR_ARG_WRONG, "option %s: empty list; give a comma-separated list, e.g. %s %s", opt, opt, example);
  PetscCheck(str[0] != ',' && str[len - 1] != ',' && !strstr(str, ",,"), comm, PETSC_ERR_ARG_WRONG, "option %s '%s': empty entry in the list; give a comma-separated list, e.g. %s %s", opt, str, opt, example);
  PetscCall(PetscStrncpy(buf, str, sizeof(buf)));
  for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char  *end;
    double x;
    while (*tok == ' ') tok++;
    x = strtod(tok, &end);
    while (*end == ' ') end++;
    PetscCheck(end != tok && *end == 0 && isfinite(x), comm, PETSC_ERR_ARG_WRONG, "option %s '%s': entry '%s' is not a finite number; give a comma-separated list, e.g. %s %s", opt, str, tok, opt, example);
    PetscCheck(m < max, comm, PETSC_ERR_ARG_SIZ, "option %s: more than %" PetscInt_FMT " entries", opt, max);
    for (PetscInt j = 0; j < m; j++) PetscCheck(v[j] != x, comm, PETSC_ERR_ARG_WRONG, "option %s '%s': the value %g appears twice; every grid value must be distinct", opt, str, x);
    v[m++] = x;
  }
  *n = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int CompareStrings_Private(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The options that decide the results: the whole database minus what only says where or how
   the study runs (rank grouping, output, resume/force, logging, the slice), sorted by key, one
   "-key value" per line.  The -resume check compares this text. */
static PetscErrorCode CanonicalOptions_Private(const char all[], char **canonical)
{
  static const char *const skip[] = {"resume", "force", "output", "cell_ranks", "grid_slice", "options_file", "help", "options_left", "options_view", "info", "history", "no_signal_handler", "on_error_abort", "quiet", "version"};
  static const char *const skip_prefix[] = {"log", "malloc", "mpi_", "on_error", "checkstack", "start_in_debugger", "debugger", "fp_trap", "viewer_"};
  char  *copy, *save = NULL, *tok, **entries;
  size_t len;
  int    n = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscStrlen(all, &len));
  PetscCall(PetscStrallocpy(all, &copy));
  PetscCall(PetscMalloc1(len / 2 + 2, &entries));
  tok = strtok_r(copy, " \t\n", &save);
  while (tok) {
    char *key = tok, *val = NULL, *next = strtok_r(NULL, " \t\n", &save);
    /* a value is the next token unless it is itself a key (a dash then a non-digit) */
    if (next && !(next[0] == '-' && next[1] && !(next[1] >= '0' && next[1] <= '9') && next[1] != '.')) {
      val  = next;
      next = strtok_r(NULL, " \t\n", &save);
    }
    if (key[0] == '-') {
      PetscBool drop = PETSC_FALSE;
      for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
        if (!strcmp(key + 1, skip[i])) drop = PETSC_TRUE;
      for (size_t i = 0; i < sizeof(skip_prefix) / sizeof(skip_prefix[0]); i++)
        if (!strncmp(key + 1, skip_prefix[i], strlen(skip_prefix[i]))) drop = PETSC_TRUE;
      if (!drop) {
        size_t l = strlen(key) + (val ? strlen(val) : 0) + 2;
        PetscCall(PetscMalloc1(l, &entries[n]));
        PetscCall(PetscSNPrintf(entries[n], l, "%s%s%s", key, val ? " " : "", val ? val : ""));
        n++;
      }
    }
    tok = next;
  }
  qsort(entries, (size_t)n, sizeof(char *), CompareStrings_Private);
  PetscCall(PetscCalloc1(len + (size_t)n + 2, canonical));
  for (int i = 0; i < n; i++) {
    PetscCall(PetscStrlcat(*canonical, entries[i], len + (size_t)n + 2));
    PetscCall(PetscStrlcat(*canonical, "\n", len + (size_t)n + 2));
    PetscCall(PetscFree(entries[i]));
  }
  PetscCall(PetscFree(entries));
  PetscCall(PetscFree(copy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRStudySetFromOptions(SRStudy st)
{
  MPI_Comm        comm = st->comm;
  SRResultsLayout *lay = &st->lay;
  char            beta[4096] = "0,0.05,0.15,0.5", tau[4096] = "0.01,0.05,0.2", slice[64] = "";
  PetscInt        nseeds = 3, seeds[SR_RESULTS_MAX_LIST], nlist = SR_RESULTS_MAX_LIST;
  PetscBool       seeds_set, list_set, slice_set;
  PetscMPIInt     size;
  char           *all;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  /* -init_network (SPEC §14): the file's widths, activations and transforms are part of every
     run's function but not of its stored parameters, so their digest joins the options (a
     -resume or a reader of the file refuses a changed file) */
  {
    char      initnet[PETSC_MAX_PATH_LEN] = "";
    PetscBool set, readable = PETSC_FALSE;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-init_network", initnet, sizeof(initnet), &set));
    if (set && initnet[0]) PetscCall(PetscTestFile(initnet, 'r', &readable)); /* if not, the run refuses it below */
    if (readable) {
      SRMLP mlp;
      char  digest[32];
      PetscCall(SRNetworkLoad(comm, initnet, NULL, &mlp));
      PetscCall(PetscSNPrintf(digest, sizeof digest, "%016llx", (unsigned long long)SRMLPStructureDigest(mlp)));
      PetscCall(SRMLPDestroy(&mlp));
      PetscCall(PetscOptionsSetValue(NULL, "-init_network_digest", digest));
      PetscCall(PetscOptionsGetString(NULL, NULL, "-init_network_digest", digest, sizeof digest, NULL)); /* used */
    }
  }
  /* -plant (SPEC §16): the plant file's digest (its text and constants) joins the options, so a
     reader of the file (network, check, safe, verify -from) refuses a changed plant */
  {
    char      plant[PETSC_MAX_PATH_LEN] = "";
    PetscBool set;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-plant", plant, sizeof(plant), &set));
    if (set && plant[0]) {
      SRSystem sys;
      char     digest[32];
      PetscCall(SRSystemCreateFromOptions(comm, NULL, NULL, &sys));
      PetscCall(PetscSNPrintf(digest, sizeof digest, "%016llx", (unsigned long long)sys->plant_digest));
      PetscCall(SRSystemDestroy(&sys));
      PetscCall(PetscOptionsSetValue(NULL, "-plant_digest", digest));
      PetscCall(PetscOptionsGetString(NULL, NULL, "-plant_digest", digest, sizeof digest, NULL)); /* used */
    }
  }
  /* The options text first: the lists are taken out of the database below. */
  PetscCall(PetscOptionsGetAll(NULL, &all));
  PetscCall(PetscStrallocpy(all, &st->options));
  PetscCall(CanonicalOptions_Private(all, &st->canonical));
  PetscCall(PetscFree(all));

  PetscOptionsBegin(comm, NULL, "simreach study: the beta x tau x seed sweep (SPEC §9)", NULL);
  PetscCall(PetscOptionsString("-beta", "comma-separated beta values, each >= 0 (SPEC §9)", NULL, beta, beta, sizeof(beta), NULL));
  PetscCall(PetscOptionsString("-tau", "comma-separated tau values, each > 0 (SPEC §9)", NULL, tau, tau, sizeof(tau), NULL));
  PetscCall(PetscOptionsInt("-seeds", "number of seeds: the seeds 1..N", NULL, nseeds, &nseeds, &seeds_set));
  PetscCall(PetscOptionsIntArray("-seed_list", "explicit comma-separated seeds (instead of -seeds)", NULL, seeds, &nlist, &list_set));
  PetscCall(PetscOptionsInt("-cell_ranks", "ranks per group; must divide the number of MPI ranks", NULL, st->cell_ranks, &st->cell_ranks, NULL));
  PetscCall(PetscOptionsInt("-recheck_store", "non-proven cells of each checkpoint's re-check stored with their witness in /runs/recheck_cells (the counts are always complete), >= 0", NULL, st->recheck_store, &st->recheck_store, NULL));
  PetscCheck(st->recheck_store >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "option -recheck_store %" PetscInt_FMT ": allowed is >= 0", st->recheck_store);
  PetscCall(PetscOptionsString("-output", "the results file (parallel HDF5)", NULL, st->output, st->output, sizeof(st->output), NULL));
  PetscCall(PetscOptionsBool("-resume", "continue the study in an existing -output file", NULL, st->resume, &st->resume, NULL));
  PetscCall(PetscOptionsBool("-force", "overwrite an existing -output file", NULL, st->force, &st->force, NULL));
  PetscCall(PetscOptionsString("-grid_slice", "i/n: run only the grid points r with r mod n = i (Slurm job arrays)", NULL, slice, slice, sizeof(slice), &slice_set));
  PetscOptionsEnd();

  PetscCall(ParseList_Private(comm, "-beta", beta, "0,0.05,0.15,0.5", SR_RESULTS_MAX_LIST, lay->beta, &lay->nbeta));
  for (PetscInt i = 0; i < lay->nbeta; i++) PetscCheck(lay->beta[i] >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "option -beta: value %g is negative; allowed is beta >= 0", lay->beta[i]);
  PetscCall(ParseList_Private(comm, "-tau", tau, "0.01,0.05,0.2", SR_RESULTS_MAX_LIST, lay->tau, &lay->ntau));
  for (PetscInt i = 0; i < lay->ntau; i++) PetscCheck(lay->tau[i] > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "option -tau: value %g is not positive; allowed is tau > 0", lay->tau[i]);
  PetscCheck(!(seeds_set && list_set), comm, PETSC_ERR_ARG_INCOMP, "options -seeds and -seed_list: give one of them, not both");
  if (list_set) {
    PetscCheck(nlist > 0, comm, PETSC_ERR_ARG_WRONG, "option -seed_list: empty list; give comma-separated seeds >= 0, e.g. -seed_list 1,2,3");
    for (PetscInt i = 0; i < nlist; i++) {
      PetscCheck(seeds[i] >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "option -seed_list: seed %" PetscInt_FMT " is negative; allowed are seeds >= 0", seeds[i]);
      for (PetscInt j = 0; j < i; j++) PetscCheck(seeds[j] != seeds[i], comm, PETSC_ERR_ARG_WRONG, "option -seed_list: seed %" PetscInt_FMT " appears twice", seeds[i]);
      lay->seed[i] = seeds[i];
    }
    lay->nseed = nlist;
  } else {
    PetscCheck(nseeds >= 1 && nseeds <= SR_RESULTS_MAX_LIST, comm, PETSC_ERR_ARG_OUTOFRANGE, "option -seeds %" PetscInt_FMT ": allowed is 1..%d", nseeds, SR_RESULTS_MAX_LIST);
    for (PetscInt i = 0; i < nseeds; i++) lay->seed[i] = i + 1;
    lay->nseed = nseeds;
  }
  lay->nruns = lay->nbeta * lay->ntau * lay->nseed;
  PetscCheck(st->cell_ranks >= 1 && size % st->cell_ranks == 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "option -cell_ranks %" PetscInt_FMT " does not divide the number of MPI ranks %d; allowed are the divisors of %d", st->cell_ranks, size, size);
  PetscCheck(!(st->resume && st->force), comm, PETSC_ERR_ARG_INCOMP, "options -resume and -force: give at most one (-resume continues %s, -force overwrites it)", st->output);
  if (slice_set) {
    long i = -1, n = -1;
    char c;
    PetscCheck(sscanf(slice, "%ld/%ld%c", &i, &n, &c) == 2 && n >= 1 && i >= 0 && i < n && n <= PETSC_MAX_INT && strspn(slice, "0123456789/") == strlen(slice), comm, PETSC_ERR_ARG_WRONG, "option -grid_slice '%s': allowed is i/n with integers 0 <= i < n <= %d, e.g. -grid_slice 0/4", slice, PETSC_MAX_INT);
    st->slice   = (PetscInt)i;
    st->nslices = (PetscInt)n;
  }
  /* The lists are the study's; each run gets its point through SRRunSetGridPoint. */
  PetscCall(PetscOptionsClearValue(NULL, "-beta"));
  PetscCall(PetscOptionsClearValue(NULL, "-tau"));
  /* every run option is read (and checked) now, before any work */
  PetscCall(SRRunDestroy(&st->proto));
  PetscCall(SRRunCreate(comm, &st->proto));
  PetscCall(SRRunSetFromOptions(st->proto));
  PetscCall(SRRunSetGridPoint(st->proto, lay->beta[0], lay->tau[0], lay->seed[0]));
  st->setfromoptions = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
