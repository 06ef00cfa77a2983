/* Creating files safely and checksumming their rows (SPEC §13); see fileio.h.
   Each file operation runs on rank 0 of comm as a "try" that returns an error code and a
   one-line message; the outcome is broadcast so that every rank errors together. */
#define _GNU_SOURCE /* renameat2, RENAME_NOREPLACE */
#include <simreach/private/fileio.h>
#include <simreach/private/filelock.h>
#include <simreach/private/h5attr.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct {
  int  code; /* 0 or a PetscErrorCode */
  char msg[PETSC_MAX_PATH_LEN * 3];
} Outcome_Private;

/* Broadcast rank 0's outcome and raise it on every rank. */
static PetscErrorCode Raise_Private(MPI_Comm comm, Outcome_Private *o)
{
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Bcast(o, (PetscMPIInt)sizeof(*o), MPI_BYTE, 0, comm));
  PetscCheck(!o->code, comm, (PetscErrorCode)o->code, "%s", o->msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The locks SRFileCreateExclusiveTemp took (SPEC §13: the .part of every command is written
   under the study's lock), by .part name, released by SRFileCommit / SRFileRemove / a failure. */
#define SR_FILE_MAX_OPEN 8
static struct {
  char       part[PETSC_MAX_PATH_LEN];
  char       lockpath[PETSC_MAX_PATH_LEN + 8]; /* for SRFileUnlinkOpenOnSignal */
  SRFileLock lock;
} SROpen_Private[SR_FILE_MAX_OPEN];

/* set once this process has renamed a .part onto its final name: a stop after that point must
   not say that no output file was written (SRFileCommittedOnSignal) */
static volatile sig_atomic_t SRCommitted_Private = 0;
int                          SRFileCommittedOnSignal(void) { return SRCommitted_Private; }

void SRFileUnlinkOpenOnSignal(void)
{
  for (int i = 0; i < SR_FILE_MAX_OPEN; i++)
    if (SROpen_Private[i].part[0]) {
      (void)unlink(SROpen_Private[i].part);
      if (SROpen_Private[i].lockpath[0]) (void)unlink(SROpen_Private[i].lockpath);
    }
}

static PetscErrorCode Forget_Private(const char part[])
{
  PetscFunctionBeginUser;
  for (int i = 0; i < SR_FILE_MAX_OPEN; i++)
    if (SROpen_Private[i].lock && !strcmp(SROpen_Private[i].part, part)) {
      PetscCall(SRFileLockRelease(&SROpen_Private[i].lock));
      SROpen_Private[i].part[0]     = 0;
      SROpen_Private[i].lockpath[0] = 0;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Remember_Private(const char part[], SRFileLock lock)
{
  PetscFunctionBeginUser;
  if (!lock) PetscFunctionReturn(PETSC_SUCCESS);
  for (int i = 0; i < SR_FILE_MAX_OPEN; i++)
    if (!SROpen_Private[i].lock) {
      size_t l = strlen(part);
      SROpen_Private[i].lock = lock;
      if (l > 5 && !strcmp(part + l - 5, ".part")) snprintf(SROpen_Private[i].lockpath, sizeof(SROpen_Private[i].lockpath), "%.*s.lock", (int)(l - 5), part);
      PetscCall(PetscStrncpy(SROpen_Private[i].part, part, sizeof(SROpen_Private[i].part)));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "more than %d files written at once", SR_FILE_MAX_OPEN);
}

static volatile sig_atomic_t SRFileContinued_Private = 0;
static void                  SRFileContinue_Private(int sig)
{
  (void)sig;
  SRFileContinued_Private = 1;
}

void SRFileTestPause(MPI_Comm comm, const char moment[])
{
  const char *want = getenv("SIMREACH_TEST_PAUSE");
  PetscMPIInt rank = 0;

  const size_t len = strlen(moment);
  PetscBool    cont; /* MOMENT,cont: SIGCONT ends the pause early */

  if (!want || strncmp(want, moment, len) || (want[len] && strcmp(want + len, ",cont"))) return;
  cont = want[len] ? PETSC_TRUE : PETSC_FALSE;
  MPI_Comm_rank(comm, &rank);
  if (rank) return;
  fprintf(stderr, "simreach: SIMREACH_TEST_PAUSE=%s: process %ld paused here for a test to kill it\n", moment, (long)getpid());
  fflush(stderr);
  if (cont) { /* SIGCONT ends the pause early (a test that changes the world and lets the run go on);
                 not by default: mpiexec sends SIGCONT before its SIGTERM, and the run would finish first */
    struct sigaction sa, old;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SRFileContinue_Private;
    sigemptyset(&sa.sa_mask);
    SRFileContinued_Private = 0;
    sigaction(SIGCONT, &sa, &old);
    for (int i = 0; i < 300 && !SRFileContinued_Private; i++) sleep(1);
    sigaction(SIGCONT, &old, NULL);
  } else
    for (int i = 0; i < 300; i++) sleep(1);
}

static void CreateTemp_Private(const char final[], char tmp[], size_t len, Outcome_Private *o)
{
  int fd, err;

  if (!final || !final[0]) {
    o->code = PETSC_ERR_ARG_WRONG;
    snprintf(o->msg, sizeof(o->msg), "the output file name is empty; give a file name");
    return;
  }
  if ((size_t)snprintf(tmp, len, "%s.part", final) >= len) {
    o->code = PETSC_ERR_ARG_SIZ;
    snprintf(o->msg, sizeof(o->msg), "the output file name %s is too long", final);
    return;
  }
  fd  = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  err = errno;
  if (fd < 0) {
    o->code = PETSC_ERR_FILE_OPEN;
    if (err == EEXIST) snprintf(o->msg, sizeof(o->msg), "%s exists, but no lock %s.lock of a simreach names its writer (a link, another program's file, or one left by a simreach older than this rule); it was left untouched: remove it if nothing is writing %s", tmp, final, final);
    else snprintf(o->msg, sizeof(o->msg), "cannot create %s: %s (is the directory of %s writable?)", tmp, strerror(err), final);
    return;
  }
  if (close(fd)) {
    o->code = PETSC_ERR_FILE_WRITE;
    snprintf(o->msg, sizeof(o->msg), "cannot close %s: %s", tmp, strerror(errno));
  }
}

PetscErrorCode SRFileCreateExclusiveTemp(MPI_Comm comm, const char final[], char tmp[], size_t len)
{
  Outcome_Private o = {0, ""};
  PetscMPIInt     rank;
  int             take = 0;
  SRFileLock      lock = NULL;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  SRFileTestPause(comm, "open");
  /* FILE.lock first, unless this process holds it already (a study, gather -merge); a stale
     one is taken over and its FILE.part removed, a live one refuses (exit 2) */
  if (rank == 0) take = final && final[0] && !SRFileLockHeld(final);
  PetscCallMPI(MPI_Bcast(&take, 1, MPI_INT, 0, comm));
  if (take) PetscCall(SRFileLockAcquire(comm, final, &lock));
  SRFileTestPause(comm, "locked");
  if (rank == 0) CreateTemp_Private(final, tmp, len, &o);
  PetscCallMPI(MPI_Bcast(&o, (PetscMPIInt)sizeof(o), MPI_BYTE, 0, comm));
  if (o.code) PetscCall(SRFileLockRelease(&lock));
  PetscCheck(!o.code, comm, (PetscErrorCode)o.code, "%s", o.msg);
  if (!final || (size_t)snprintf(tmp, len, "%s.part", final) >= len) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "the output file name is too long");
  PetscCall(Remember_Private(tmp, lock));
  SRFileTestPause(comm, "created");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void Commit_Private(const char tmp[], const char final[], PetscBool force, Outcome_Private *o)
{
  int rc, err;

  if (force) {
    rc  = rename(tmp, final);
    err = errno;
  } else {
    rc  = renameat2(AT_FDCWD, tmp, AT_FDCWD, final, RENAME_NOREPLACE);
    err = errno;
    if (rc && (err == EINVAL || err == ENOSYS)) { /* a file system without RENAME_NOREPLACE: link fails if final exists */
      rc  = link(tmp, final);
      err = errno;
      if (!rc) (void)unlink(tmp);
    }
  }
  if (!rc) {
    SRCommitted_Private = 1;
    return;
  }
  o->code = PETSC_ERR_FILE_WRITE;
  if (err == EEXIST) {
    o->code = PETSC_ERR_FILE_OPEN;
    (void)unlink(tmp);
    snprintf(o->msg, sizeof(o->msg), "%s appeared while simreach was writing it (another simreach?); it was left untouched and %s removed; give -force to replace it", final, tmp);
  } else snprintf(o->msg, sizeof(o->msg), "cannot rename %s to %s: %s", tmp, final, strerror(err));
}

PetscErrorCode SRFileCommit(MPI_Comm comm, const char tmp[], const char final[], PetscBool force)
{
  Outcome_Private o = {0, ""};
  PetscMPIInt     rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  SRFileTestPause(comm, "commit");
  if (rank == 0) Commit_Private(tmp, final, force, &o);
  PetscCallMPI(MPI_Bcast(&o, (PetscMPIInt)sizeof(o), MPI_BYTE, 0, comm));
  if (!o.code) SRFileTestPause(comm, "renamed");
  PetscCall(Forget_Private(tmp)); /* the lock goes after the rename (or its failure) */
  PetscCheck(!o.code, comm, (PetscErrorCode)o.code, "%s", o.msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRFileRemove(MPI_Comm comm, const char path[])
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) (void)unlink(path);
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(Forget_Private(path)); /* a removed .part: its lock goes too */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void CheckOutput_Private(const char opt[], const char path[], PetscBool exist_ok, Outcome_Private *o)
{
  char        dir[PETSC_MAX_PATH_LEN];
  const char *slash = strrchr(path, '/');
  struct stat st;

  o->code = PETSC_ERR_ARG_WRONG;
  if (!path[0]) {
    snprintf(o->msg, sizeof(o->msg), "option %s: no file name; give the file to write", opt);
    return;
  }
  if (slash && !slash[1]) {
    snprintf(o->msg, sizeof(o->msg), "option %s %s: names a directory; give a file name", opt, path);
    return;
  }
  if (!stat(path, &st)) {
    if (S_ISDIR(st.st_mode)) snprintf(o->msg, sizeof(o->msg), "option %s %s: is a directory; give a file name", opt, path);
    else if (!S_ISREG(st.st_mode)) snprintf(o->msg, sizeof(o->msg), "option %s %s: is a %s, not a regular file; simreach writes a new file and renames it into place, give a file name", opt, path, S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "device" : S_ISFIFO(st.st_mode) ? "FIFO" : "special file");
    else if (!exist_ok) {
      o->code = PETSC_ERR_FILE_OPEN;
      snprintf(o->msg, sizeof(o->msg), "option %s %s: the file exists; give -force to replace it", opt, path);
    } else o->code = 0;
    if (o->code) return;
  }
  if (!slash) snprintf(dir, sizeof(dir), ".");
  else if (slash == path) snprintf(dir, sizeof(dir), "/");
  else snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
  o->code = PETSC_ERR_FILE_OPEN;
  if (stat(dir, &st)) snprintf(o->msg, sizeof(o->msg), "option %s %s: the folder %s: %s", opt, path, dir, strerror(errno));
  else if (!S_ISDIR(st.st_mode)) snprintf(o->msg, sizeof(o->msg), "option %s %s: %s is not a folder", opt, path, dir);
  else if (access(dir, W_OK | X_OK)) snprintf(o->msg, sizeof(o->msg), "option %s %s: the folder %s is not writable: %s", opt, path, dir, strerror(errno));
  else o->code = 0;
}

PetscErrorCode SRFileCheckOutput(MPI_Comm comm, const char opt[], const char path[], PetscBool exist_ok)
{
  Outcome_Private o = {0, ""};
  PetscMPIInt     rank;
  PetscBool       help;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsHasHelp(NULL, &help)); /* -help lists the options and does no work */
  if (help) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) CheckOutput_Private(opt, path ? path : "", exist_ok, &o);
  PetscCall(Raise_Private(comm, &o));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The image of an HDF5 file built in memory (core driver, no backing store) by write(f, ctx),
   then written to part with plain write(2): every disk error is ours to see (errno), and no HDF5
   file is ever left half closed on a failing disk (HDF5 would crash at exit flushing it). */
static PetscErrorCode BuildImage_Private(PetscErrorCode (*write_fn)(hid_t f, void *ctx), void *ctx, void **img, size_t *len)
{
  hid_t   fapl, f;
  ssize_t n;

  PetscFunctionBeginUser;
  *img = NULL, *len = 0;
  SRCallHDF5Id(fapl, H5Pcreate(H5P_FILE_ACCESS));
  SRCallHDF5(H5Pset_fapl_core(fapl, 1 << 20, 0));
  SRCallHDF5Id(f, H5Fcreate("simreach-image.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
  SRCallHDF5(H5Pclose(fapl));
  PetscCall(write_fn(f, ctx));
  SRCallHDF5(H5Fflush(f, H5F_SCOPE_GLOBAL));
  n = H5Fget_file_image(f, NULL, 0);
  PetscCheck(n > 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "HDF5 gave no file image");
  *img = malloc((size_t)n);
  PetscCheck(*img, PETSC_COMM_SELF, PETSC_ERR_MEM, "no memory for the file image (%.4g MB)", (double)n / 1e6);
  PetscCheck(H5Fget_file_image(f, *img, (size_t)n) == n, PETSC_COMM_SELF, PETSC_ERR_LIB, "HDF5 gave a short file image");
  SRCallHDF5(H5Fclose(f));
  *len = (size_t)n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* write(2) the image to part; 0 or errno */
static int WriteImage_Private(const char part[], const void *img, size_t len)
{
  int         fd = open(part, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC), err = 0;
  const char *p  = (const char *)img;

  if (fd < 0) return errno ? errno : EIO;
  while (len > 0) {
    ssize_t w = write(fd, p, len);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      err = w < 0 ? errno : ENOSPC;
      break;
    }
    p += w, len -= (size_t)w;
  }
  if (!err && fsync(fd) && errno != EINVAL && errno != EROFS) err = errno;
  if (close(fd) && !err) err = errno;
  return err;
}

PetscErrorCode SRFileWriteOnRank0(MPI_Comm comm, const char part[], const char final[], PetscErrorCode (*write_fn)(hid_t f, void *ctx), void *ctx)
{
  Outcome_Private o = {0, ""};
  PetscMPIInt     rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    H5E_auto2_t    fn;
    void          *data, *img = NULL;
    size_t         len = 0;
    PetscErrorCode ierr;
    int            err = 0;
    (void)H5Eget_auto2(H5E_DEFAULT, &fn, &data);
    (void)H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = BuildImage_Private(write_fn, ctx, &img, &len);
    PetscCall(PetscPopErrorHandler());
    (void)H5Eset_auto2(H5E_DEFAULT, fn, data);
    if (!ierr) {
      SRFileTestPause(PETSC_COMM_SELF, "write"); /* tests: a kill -9 before the bytes are on disk */
      err = WriteImage_Private(part, img, len);
    }
    free(img);
    if (ierr) {
      o.code = ierr == PETSC_ERR_MEM ? PETSC_ERR_MEM : PETSC_ERR_FILE_WRITE;
      snprintf(o.msg, sizeof(o.msg), "cannot write %s: building the file failed (%s); nothing was written (the partial file %s and its lock were removed)", final, ierr == PETSC_ERR_MEM ? "out of memory" : "an HDF5 call failed", part);
    } else if (err) {
      char why[PETSC_MAX_PATH_LEN * 2];
      SRFileWriteFailureReason(final, err, why, sizeof(why));
      o.code = PETSC_ERR_FILE_WRITE;
      snprintf(o.msg, sizeof(o.msg), "cannot write %s: %s; nothing was written (the partial file %s and its lock were removed)", final, why, part);
    }
  }
  PetscCallMPI(MPI_Bcast(&o, (PetscMPIInt)sizeof(o), MPI_BYTE, 0, comm));
  if (o.code) PetscCall(SRFileRemove(comm, part));
  PetscCall(Raise_Private(comm, &o));
  PetscFunctionReturn(PETSC_SUCCESS);
}

void SRFileH5CloseBroken(hid_t file)
{
  ssize_t n;

  if (file < 0) return;
  n = H5Fget_obj_count(file, H5F_OBJ_ALL & ~H5F_OBJ_FILE);
  if (n > 0) {
    hid_t *ids = (hid_t *)malloc((size_t)n * sizeof(hid_t));
    if (ids) {
      n = H5Fget_obj_ids(file, H5F_OBJ_ALL & ~H5F_OBJ_FILE, (size_t)n, ids);
      for (ssize_t i = 0; i < n; i++) {
        if (H5Iget_type(ids[i]) == H5I_ATTR) (void)H5Aclose(ids[i]);
        else (void)H5Oclose(ids[i]);
      }
      free(ids);
    }
  }
  (void)H5Fclose(file); /* its last flush may fail (the disk still full): the identifier goes all the same */
}

PetscErrorCode SRFileWriteAnyFailed(MPI_Comm comm, int err, PetscBool *failed)
{
  int mine = err != 0, any = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm));
  *failed = any ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRFileWriteFail(MPI_Comm comm, const char part[], const char final[], int err)
{
  Outcome_Private o = {PETSC_ERR_FILE_WRITE, ""};
  PetscMPIInt     rank, size, mine, owner;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  mine = err ? rank : size;
  PetscCallMPI(MPI_Allreduce(&mine, &owner, 1, MPI_INT, MPI_MIN, comm));
  if (owner == size) owner = 0; /* nobody knows why (cannot happen): rank 0 says what it can */
  if (rank == owner) { /* the first rank that failed says why, with its errno and its limit */
    char why[PETSC_MAX_PATH_LEN * 2];
    SRFileWriteFailureReason(final, err > 0 ? err : 0, why, sizeof(why));
    snprintf(o.msg, sizeof(o.msg), "cannot write %s: %s; nothing was written (the partial file %s and its lock were removed)", final, why, part);
  }
  PetscCallMPI(MPI_Bcast(&o, (PetscMPIInt)sizeof(o), MPI_BYTE, owner, comm));
  PetscCall(SRFileRemove(comm, part));
  PetscCall(Raise_Private(comm, &o));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* statvfs of the directory holding path; -1 if unknown. */
static double FreeBytes_Private(const char path[])
{
  char           dir[PETSC_MAX_PATH_LEN];
  const char    *slash = strrchr(path, '/');
  struct statvfs vfs;

  if (!slash) snprintf(dir, sizeof(dir), ".");
  else if (slash == path) snprintf(dir, sizeof(dir), "/");
  else snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
  if (statvfs(dir, &vfs)) return -1;
  return (double)vfs.f_bavail * (double)vfs.f_frsize;
}

PetscErrorCode SRFileCheckSpace(MPI_Comm comm, const char path[], double bytes)
{
  Outcome_Private o = {0, ""};
  PetscMPIInt     rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    double avail = FreeBytes_Private(path);
    struct rlimit rl;
    if (avail >= 0 && bytes > avail) {
      o.code = PETSC_ERR_FILE_WRITE;
      snprintf(o.msg, sizeof(o.msg), "not enough disk space for %s: the disk is too full; the file needs %.4g GB, the disk holding it has %.4g GB free; nothing was written", path, bytes / 1e9, avail / 1e9);
    } else if (!getrlimit(RLIMIT_FSIZE, &rl) && rl.rlim_cur != RLIM_INFINITY && bytes > (double)rl.rlim_cur) {
      o.code = PETSC_ERR_FILE_WRITE;
      snprintf(o.msg, sizeof(o.msg), "%s needs %.4g MB, more than the file-size limit of this process (ulimit -f: %.4g MB); raise the limit or write a smaller file; nothing was written", path, bytes / 1e6, (double)rl.rlim_cur / 1e6);
    }
  }
  PetscCall(Raise_Private(comm, &o));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRFileCheckRewrite(MPI_Comm comm, const char path[])
{
  Outcome_Private o = {0, ""};
  PetscMPIInt     rank, size, mine, owner;
  struct stat     st;
  struct rlimit   rl;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  /* every rank: each has its own limit, and any of them may write a row */
  if (!stat(path, &st) && !getrlimit(RLIMIT_FSIZE, &rl) && rl.rlim_cur != RLIM_INFINITY && (double)st.st_size > (double)rl.rlim_cur) {
    o.code = PETSC_ERR_FILE_WRITE;
    snprintf(o.msg, sizeof(o.msg), "%s is %.4g MB, more than the file-size limit of this process (ulimit -f: %.4g MB; its rows could not be written, errno EFBIG); raise the limit to continue it; the file was left untouched", path, (double)st.st_size / 1e6, (double)rl.rlim_cur / 1e6);
  }
  mine = o.code ? rank : size;
  PetscCallMPI(MPI_Allreduce(&mine, &owner, 1, MPI_INT, MPI_MIN, comm));
  if (owner == size) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Bcast(&o, (PetscMPIInt)sizeof(o), MPI_BYTE, owner, comm));
  PetscCheck(!o.code, comm, (PetscErrorCode)o.code, "%s", o.msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRFileReserve(MPI_Comm comm, const char part[], const char final[], double bytes)
{
  Outcome_Private o = {0, ""};
  PetscMPIInt     rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0 && bytes > 0) {
    int fd = open(part, O_WRONLY | O_NOFOLLOW), err = 0;
    if (fd < 0) err = errno;
    else {
      /* fallocate(2), not posix_fallocate: no slow emulation by writing zeros where the file
         system cannot allocate (EOPNOTSUPP: then nothing is checked) */
      if (fallocate(fd, 0, 0, (off_t)bytes)) err = errno;
      if (ftruncate(fd, 0) && !err) err = errno;
      if (close(fd) && !err) err = errno;
      if (err == EOPNOTSUPP || err == ENOSYS || err == EINVAL) err = 0;
    }
    if (err) {
      char why[PETSC_MAX_PATH_LEN * 2];
      (void)unlink(part);
      SRFileWriteFailureReason(final, err, why, sizeof(why));
      o.code = PETSC_ERR_FILE_WRITE;
      snprintf(o.msg, sizeof(o.msg), "cannot create %s: %s (%.4g MB could not be allocated); the partial file %s was removed", final, why, bytes / 1e6, part);
    }
  }
  PetscCallMPI(MPI_Bcast(&o, (PetscMPIInt)sizeof(o), MPI_BYTE, 0, comm));
  if (o.code) PetscCall(Forget_Private(part));
  PetscCall(Raise_Private(comm, &o));
  SRFileTestPause(comm, "reserved"); /* tests: the disk filled by another program after the reservation */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SIGXFSZ: a write went past the file-size limit (ulimit -f).  Caught instead of letting it kill
   the process, so the write fails with EFBIG and the failure is reported and cleaned up. */
static volatile sig_atomic_t SRFileSizeLimitHit_Private = 0;
static void SRFileSizeLimitHandler_Private(int sig)
{
  (void)sig;
  SRFileSizeLimitHit_Private = 1;
}

void SRFileCatchSizeLimit(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = SRFileSizeLimitHandler_Private;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGXFSZ, &sa, NULL);
}

void SRFileWriteFailureReason(const char path[], int err, char msg[], size_t len)
{
  double        avail = FreeBytes_Private(path);
  struct rlimit rl;

  if ((err == EFBIG || SRFileSizeLimitHit_Private) && !getrlimit(RLIMIT_FSIZE, &rl) && rl.rlim_cur != RLIM_INFINITY) snprintf(msg, len, "%s would grow past the file-size limit of this process (ulimit -f: %.4g MB; errno EFBIG: %s); raise the limit or write a smaller file", path, (double)rl.rlim_cur / 1e6, strerror(EFBIG));
  else if (err == ENOSPC || err == EDQUOT || (avail >= 0 && avail < 1048576.0)) snprintf(msg, len, "the disk holding %s is full (or the quota is exhausted; errno %s: %s)", path, err == EDQUOT ? "EDQUOT" : "ENOSPC", strerror(err == EDQUOT ? EDQUOT : ENOSPC));
  else snprintf(msg, len, "writing %s failed: %s", path, err ? strerror(err) : "an HDF5 write failed");
}

uint64_t SRChecksum64(const void *buf, size_t n, uint64_t seed)
{
  const unsigned char *p = (const unsigned char *)buf;
  uint64_t             h = 14695981039346656037ULL ^ seed;

  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 1099511628211ULL;
  }
  return h ? h : 1;
}

uint64_t SRChecksumSeed(const char tag[], int64_t i, int64_t j)
{
  int64_t  ij[2] = {i, j};
  uint64_t h     = SRChecksum64(tag, strlen(tag), 0);
  return SRChecksum64(ij, sizeof(ij), h);
}
