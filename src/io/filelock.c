/* SRFileLock: one writer per results file (SPEC §13); see filelock.h for the rules.
   The lock file is text, one "key value" per line:
     simreach-lock 1 / host H / pid P / slurm_job J / refreshed T (seconds since the epoch) / file F
   The owner (rank 0) rewrites it in place every SR_LOCK_REFRESH_SECONDS from a thread that does
   no MPI.  Taking over a stale lock renames it away first (rename is atomic), checks that what
   was renamed is the lock judged stale, and only then creates a new one with O_EXCL, so two
   studies that find the same stale lock cannot both take it. */
#define _GNU_SOURCE
#include <simreach/private/filelock.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct _p_SRFileLock {
  MPI_Comm        comm;
  PetscMPIInt     rank;
  char            path[PETSC_MAX_PATH_LEN + 8];
  char            text[1024]; /* what we wrote, for the ownership check at release */
  int             held, thread_running, stop;
  pthread_t       thread;
  pthread_mutex_t mutex;
  pthread_cond_t  cond;
  SRFileLock      next; /* the locks this process holds (rank 0), for SRFileLockHeld */
};

/* The locks this process holds, so that a writer under a lock it already holds (a study's
   results file) does not try to take it a second time. */
static SRFileLock SRHeld_Private = NULL;

typedef struct {
  char      host[256], job[64];
  long long pid, refreshed;
  int       parsed;
} LockInfo_Private;

static void Format_Private(char text[], size_t len, const char file[], long long t)
{
  char        host[256] = "?";
  const char *job       = getenv("SLURM_JOB_ID");
  (void)gethostname(host, sizeof(host) - 1);
  /* fixed-width time, so a refresh rewrites the same number of bytes */
  snprintf(text, len, "simreach-lock 1\nhost %s\npid %lld\nslurm_job %s\nrefreshed %020lld\nfile %s\n", host, (long long)getpid(), job && job[0] ? job : "-", t, file);
}

static void Parse_Private(const char text[], LockInfo_Private *li)
{
  const char *p;
  memset(li, 0, sizeof(*li));
  if (strncmp(text, "simreach-lock 1\n", 16)) return;
  li->parsed = (p = strstr(text, "\nhost ")) && sscanf(p + 6, "%255s", li->host) == 1;
  li->parsed = li->parsed && (p = strstr(text, "\npid ")) && sscanf(p + 5, "%lld", &li->pid) == 1;
  li->parsed = li->parsed && (p = strstr(text, "\nslurm_job ")) && sscanf(p + 11, "%63s", li->job) == 1;
  li->parsed = li->parsed && (p = strstr(text, "\nrefreshed ")) && sscanf(p + 11, "%lld", &li->refreshed) == 1;
}

static int ReadText_Private(const char path[], char text[], size_t len)
{
  int     fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  ssize_t n;
  if (fd < 0) return -1;
  n = read(fd, text, len - 1);
  close(fd);
  if (n < 0) return -1;
  text[n] = 0;
  return 0;
}

/* Has process pid of this host ended?  A killed process whose parent died too may stay a
   zombie (state Z) until something reaps it; it holds no file and counts as gone. */
static int ProcessGone_Private(long long pid)
{
  char  path[64], line[512], *rp;
  FILE *f;
  int   gone = 0;

  if (pid <= 0) return 0;
  if (kill((pid_t)pid, 0) && errno == ESRCH) return 1;
  snprintf(path, sizeof(path), "/proc/%lld/stat", pid);
  if (!(f = fopen(path, "r"))) return 0;
  /* pid (comm) state ...: comm may hold spaces and parentheses, so the state follows the last ')' */
  if (fgets(line, sizeof(line), f) && (rp = strrchr(line, ')')) && (rp[1] == ' ')) gone = rp[2] == 'Z' || rp[2] == 'X';
  fclose(f);
  return gone;
}

/* Is the lock described by text (file mtime as a fallback) stale?  why says why, or who owns it. */
static int Stale_Private(const char path[], const char text[], char why[], size_t len)
{
  LockInfo_Private li;
  char             host[256] = "";
  const char      *job = getenv("SLURM_JOB_ID");
  long long        now = (long long)time(NULL), age;
  struct stat      sb;

  (void)gethostname(host, sizeof(host) - 1);
  Parse_Private(text, &li);
  if (!li.parsed) { /* created but not yet written, or damaged: judge by its age */
    age = stat(path, &sb) ? 0 : now - (long long)sb.st_mtime;
    snprintf(why, len, "an unreadable lock written %lld s ago", age);
    return age > SR_LOCK_STALE_SECONDS;
  }
  age = now - li.refreshed;
  if (!strcmp(li.host, host) && ProcessGone_Private(li.pid)) {
    snprintf(why, len, "process %lld on %s is gone", li.pid, li.host);
    return 1;
  }
  if (job && job[0] && !strcmp(li.job, job)) {
    snprintf(why, len, "it belongs to this same Slurm job %s (a requeue)", job);
    return 1;
  }
  if (age > SR_LOCK_STALE_SECONDS) {
    snprintf(why, len, "not refreshed for %lld s (more than %d s)", age, SR_LOCK_STALE_SECONDS);
    return 1;
  }
  snprintf(why, len, "host %s, pid %lld, Slurm job %s, refreshed %lld s ago", li.host, li.pid, li.job, age);
  return 0;
}

static int WriteText_Private(int fd, const char text[])
{
  size_t n = strlen(text);
  return pwrite(fd, text, n, 0) == (ssize_t)n ? 0 : -1;
}

/* Rank 0: try to take the lock.  Returns 0 on success, else a PETSc error code and msg. */
/* Once a stale lock is ours: the partial file its writer left (FILE.part, SPEC §13) is removed
   (a link of that name is removed, never followed), and one line says so. */
static void TookOver_Private(const char lockpath[], const char file[], const char why[])
{
  char        part[PETSC_MAX_PATH_LEN + 8], removed[PETSC_MAX_PATH_LEN + 64] = "";
  struct stat sb;

  snprintf(part, sizeof(part), "%s.part", file);
  if (!lstat(part, &sb)) {
    if (!unlink(part)) snprintf(removed, sizeof(removed), "; its partial file %s was removed", part);
    else snprintf(removed, sizeof(removed), "; its partial file %s could not be removed (%s)", part, strerror(errno));
  }
  (void)PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "simreach: taking over the stale lock %s (%s)%s\n", lockpath, why, removed);
}

static int Take_Private(SRFileLock lk, const char file[], char msg[], size_t len)
{
  char stale[512] = ""; /* why the lock taken over was stale, once one was */

  for (int attempt = 0; attempt < 4; attempt++) {
    char text[1024] = "", why[512] = "", aside[PETSC_MAX_PATH_LEN + 64], again[1024] = "";
    int  fd = open(lk->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) {
      Format_Private(lk->text, sizeof(lk->text), file, (long long)time(NULL));
      if (WriteText_Private(fd, lk->text) || fsync(fd) || close(fd)) {
        snprintf(msg, len, "cannot write the lock file %s: %s", lk->path, strerror(errno));
        (void)unlink(lk->path);
        return PETSC_ERR_FILE_WRITE;
      }
      if (stale[0]) TookOver_Private(lk->path, file, stale);
      return 0;
    }
    if (errno != EEXIST) {
      snprintf(msg, len, "cannot create the lock file %s: %s (is the directory of %s writable?)", lk->path, strerror(errno), file);
      return PETSC_ERR_FILE_OPEN;
    }
    if (ReadText_Private(lk->path, text, sizeof(text))) {
      struct stat sb;
      if (lstat(lk->path, &sb) && errno == ENOENT) continue; /* it went away meanwhile: try again */
      snprintf(msg, len, "the lock file %s exists but is not a readable simreach lock (a link or a directory?); it was left untouched: remove it if no simreach is writing %s", lk->path, file);
      return PETSC_ERR_FILE_OPEN;
    }
    if (!Stale_Private(lk->path, text, why, sizeof(why))) {
      snprintf(msg, len, "%s is in use by another simreach (%s; lock file %s); wait for it to end, or, if it is dead, remove %s (a lock not refreshed for %d s is taken over)", file, why, lk->path, lk->path, SR_LOCK_STALE_SECONDS);
      return PETSC_ERR_FILE_OPEN;
    }
    /* stale: move it aside atomically, check it was the one judged stale, then retry O_EXCL */
    snprintf(aside, sizeof(aside), "%s.stale.%lld", lk->path, (long long)getpid());
    if (rename(lk->path, aside)) continue;
    if (ReadText_Private(aside, again, sizeof(again)) || strcmp(again, text)) {
      /* another study took it over between our read and our rename: give it back */
      if (link(aside, lk->path)) {
        snprintf(msg, len, "%s is being taken over by another simreach; try again", file);
        (void)unlink(aside);
        return PETSC_ERR_FILE_OPEN;
      }
      (void)unlink(aside);
      continue;
    }
    (void)unlink(aside);
    snprintf(stale, sizeof(stale), "%s", why); /* said, with the .part removed, once the new lock is ours */
  }
  snprintf(msg, len, "could not take the lock file %s (other simreach processes keep changing it)", lk->path);
  return PETSC_ERR_FILE_OPEN;
}

static void *Refresh_Private(void *arg)
{
  SRFileLock lk = (SRFileLock)arg;

  pthread_mutex_lock(&lk->mutex);
  while (!lk->stop) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += SR_LOCK_REFRESH_SECONDS;
    while (!lk->stop && pthread_cond_timedwait(&lk->cond, &lk->mutex, &until) != ETIMEDOUT) {}
    if (lk->stop) break;
    {
      char cur[1024] = "", text[1024];
      /* refresh only a lock that is still ours (same host and pid lines) */
      if (!ReadText_Private(lk->path, cur, sizeof(cur)) && !strncmp(cur, lk->text, (size_t)(strstr(lk->text, "refreshed ") - lk->text))) {
        int fd = open(lk->path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0) {
          const char *file = strstr(lk->text, "\nfile ");
          char        f[PETSC_MAX_PATH_LEN] = "";
          if (file) snprintf(f, sizeof(f), "%.*s", (int)strcspn(file + 6, "\n"), file + 6);
          Format_Private(text, sizeof(text), f, (long long)time(NULL));
          if (!WriteText_Private(fd, text)) memcpy(lk->text, text, sizeof(text));
          close(fd);
        }
      }
    }
  }
  pthread_mutex_unlock(&lk->mutex);
  return NULL;
}

PetscErrorCode SRFileLockAcquire(MPI_Comm comm, const char file[], SRFileLock *lock)
{
  SRFileLock lk;
  struct {
    int  code;
    char msg[PETSC_MAX_PATH_LEN * 3];
  } o = {0, ""};

  PetscFunctionBeginUser;
  *lock = NULL;
  PetscCall(PetscNew(&lk));
  lk->comm = comm;
  PetscCallMPI(MPI_Comm_rank(comm, &lk->rank));
  PetscCall(PetscSNPrintf(lk->path, sizeof(lk->path), "%s.lock", file));
  if (lk->rank == 0) {
    o.code = Take_Private(lk, file, o.msg, sizeof(o.msg));
    if (!o.code) {
      pthread_mutex_init(&lk->mutex, NULL);
      pthread_cond_init(&lk->cond, NULL);
      lk->held = 1;
      lk->next       = SRHeld_Private;
      SRHeld_Private = lk;
      if (!pthread_create(&lk->thread, NULL, Refresh_Private, lk)) lk->thread_running = 1;
    }
  }
  PetscCallMPI(MPI_Bcast(&o, (PetscMPIInt)sizeof(o), MPI_BYTE, 0, comm));
  if (o.code) PetscCall(PetscFree(lk));
  PetscCheck(!o.code, comm, (PetscErrorCode)o.code, "%s", o.msg);
  *lock = lk;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRFileLockRelease(SRFileLock *lock)
{
  SRFileLock lk = *lock;

  PetscFunctionBeginUser;
  if (!lk) PetscFunctionReturn(PETSC_SUCCESS);
  if (lk->rank == 0 && lk->held) {
    char cur[1024] = "";
    if (lk->thread_running) {
      pthread_mutex_lock(&lk->mutex);
      lk->stop = 1;
      pthread_cond_signal(&lk->cond);
      pthread_mutex_unlock(&lk->mutex);
      pthread_join(lk->thread, NULL);
    }
    if (!ReadText_Private(lk->path, cur, sizeof(cur)) && !strcmp(cur, lk->text)) (void)unlink(lk->path);
    for (SRFileLock *p = &SRHeld_Private; *p; p = &(*p)->next)
      if (*p == lk) {
        *p = lk->next;
        break;
      }
    pthread_mutex_destroy(&lk->mutex);
    pthread_cond_destroy(&lk->cond);
  }
  PetscCall(PetscFree(*lock));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscBool SRFileLockHeld(const char file[])
{
  char path[PETSC_MAX_PATH_LEN + 8];

  if (!file || (size_t)snprintf(path, sizeof(path), "%s.lock", file) >= sizeof(path)) return PETSC_FALSE;
  for (SRFileLock lk = SRHeld_Private; lk; lk = lk->next)
    if (!strcmp(lk->path, path)) return PETSC_TRUE;
  return PETSC_FALSE;
}
