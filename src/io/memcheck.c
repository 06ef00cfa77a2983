/* Sizes and memory checked before any work (include/simreach/private/memcheck.h). */
#include <simreach/private/memcheck.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

/* A "Name:   123 kB" line of a /proc file, in bytes; -1 if absent. */
static double ProcKB_Private(const char file[], const char key[])
{
  FILE  *f = fopen(file, "r");
  char   line[256];
  double v = -1;
  size_t kl = strlen(key);

  if (!f) return -1;
  while (fgets(line, sizeof(line), f))
    if (!strncmp(line, key, kl) && line[kl] == ':') {
      v = 1024.0 * strtod(line + kl + 1, NULL);
      break;
    }
  fclose(f);
  return v;
}

/* A number in a one-line file (cgroup); -1 if absent or "max". */
static double FileNumber_Private(const char file[])
{
  FILE  *f = fopen(file, "r");
  char   buf[64] = "";
  double v       = -1;

  if (!f) return -1;
  if (fgets(buf, sizeof(buf), f) && buf[0] >= '0' && buf[0] <= '9') v = strtod(buf, NULL);
  fclose(f);
  return v;
}

PetscErrorCode SRMemAvailable(MPI_Comm comm, double *bytes, const char **what)
{
  MPI_Comm         node;
  PetscMPIInt      nlocal;
  double           best = INFINITY, v, lim, cur;
  int              which = -1;
  struct rlimit    rl;
  static const char *const names[] = {"MemAvailable of this node shared by its ranks", "the cgroup's memory.max shared by its ranks", "the address-space limit (ulimit -v)", "the data-segment limit (ulimit -d)"};
  struct {
    double v;
    int    w;
  } in, out;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_size(node, &nlocal));
  PetscCallMPI(MPI_Comm_free(&node));
  if ((v = ProcKB_Private("/proc/meminfo", "MemAvailable")) >= 0 && v / nlocal < best) best = v / nlocal, which = 0;
  lim = FileNumber_Private("/sys/fs/cgroup/memory.max"); /* cgroup v2 (Slurm's task/cgroup) */
  cur = FileNumber_Private("/sys/fs/cgroup/memory.current");
  if (lim < 0) lim = FileNumber_Private("/sys/fs/cgroup/memory/memory.limit_in_bytes"), cur = FileNumber_Private("/sys/fs/cgroup/memory/memory.usage_in_bytes");
  if (lim >= 0 && lim < 1e18 && cur >= 0 && (lim - cur) / nlocal < best) best = PetscMax(lim - cur, 0) / nlocal, which = 1;
  if (!getrlimit(RLIMIT_AS, &rl) && rl.rlim_cur != RLIM_INFINITY) {
    v = (double)rl.rlim_cur - PetscMax(ProcKB_Private("/proc/self/status", "VmSize"), 0);
    if (v < best) best = PetscMax(v, 0), which = 2;
  }
  if (!getrlimit(RLIMIT_DATA, &rl) && rl.rlim_cur != RLIM_INFINITY) {
    v = (double)rl.rlim_cur - PetscMax(ProcKB_Private("/proc/self/status", "VmData"), 0);
    if (v < best) best = PetscMax(v, 0), which = 3;
  }
  /* every rank refuses together: the smallest over the ranks */
  in.v = best;
  in.w = which;
  PetscCallMPI(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MINLOC, comm));
  *bytes = out.v;
  if (what) *what = out.w >= 0 ? names[out.w] : "nothing known";
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRSizeCheck(MPI_Comm comm, double entries, const char options[], const char array[], const char allowed[])
{
  PetscFunctionBeginUser;
  PetscCheck(entries <= (double)PETSC_MAX_INT, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s: %s would have %.4g entries, more than the %d a PetscInt indexes; %s", options, array, entries, PETSC_MAX_INT, allowed);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRMemCheck(MPI_Comm comm, double bytes, const char options[], const char what[])
{
  double      avail;
  const char *lim;

  PetscFunctionBeginUser;
  PetscCall(SRMemAvailable(comm, &avail, &lim));
  PetscCheck(bytes <= avail, comm, PETSC_ERR_MEM, "not enough memory: %s: %s needs at least %.3g GB per rank; %s leaves %.3g GB", options, what, bytes / 1e9, lim, avail / 1e9);
  PetscFunctionReturn(PETSC_SUCCESS);
}
