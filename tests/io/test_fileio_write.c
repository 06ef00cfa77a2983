/* A write that fails after the checks (SPEC §13, issue 34): SRFileWriteOnRank0 with a writer
   that goes past the file-size limit (setrlimit RLIMIT_FSIZE in this process, SIGXFSZ caught so
   the write returns EFBIG) must end in one PETSC_ERR_FILE_WRITE on every rank, naming the file
   and the errno, with FILE.part and FILE.lock removed and an existing FILE unchanged.  A writer
   within the limit commits.  Run on 1 and 2 ranks (tests/io.cmake). */
#include <simreach/private/fileio.h>
#include <simreach/private/h5attr.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static PetscErrorCode Writer_Private(hid_t f, void *ctx)
{
  const hsize_t n = *(const hsize_t *)ctx;
  double       *buf;
  hid_t         s, d;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(n, &buf));
  SRCallHDF5Id(s, H5Screate_simple(1, &n, NULL));
  SRCallHDF5Id(d, H5Dcreate2(f, "x", H5T_NATIVE_DOUBLE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  SRCallHDF5(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
  SRCallHDF5(H5Dclose(d));
  SRCallHDF5(H5Sclose(s));
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int Exists(const char p[]) { return access(p, F_OK) == 0; }

int main(int argc, char **argv)
{
  char           dir[PETSC_MAX_PATH_LEN] = ".", final[PETSC_MAX_PATH_LEN], part[PETSC_MAX_PATH_LEN + 8], lock[PETSC_MAX_PATH_LEN + 8];
  const char     old[] = "an existing file that must not change\n";
  PetscMPIInt    rank;
  PetscErrorCode ierr;
  hsize_t        big = 1 << 17, small = 64; /* 1 MiB past a 256 KiB limit; 512 bytes */
  struct rlimit  rl  = {256 * 1024, 256 * 1024};
  int            fails = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-dir", dir, sizeof dir, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  snprintf(final, sizeof final, "%s/fileio_write.h5", dir);
  snprintf(lock, sizeof lock, "%s.lock", final);
  if (!rank) {
    FILE *fp = fopen(final, "w");
    fputs(old, fp);
    fclose(fp);
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  SRFileCatchSizeLimit();
  setrlimit(RLIMIT_FSIZE, &rl);
  PetscCall(SRFileCreateExclusiveTemp(PETSC_COMM_WORLD, final, part, sizeof part));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SRFileWriteOnRank0(PETSC_COMM_WORLD, part, final, Writer_Private, &big);
  PetscCall(PetscPopErrorHandler());
  if (!rank) {
    const char *msg = "";
    char        buf[256] = "";
    FILE       *fp;
    PetscErrorMessage(ierr, NULL, (char **)&msg);
    printf("failed write: code %d, message: %s\n", (int)ierr, msg ? msg : "(none)");
    if (ierr != PETSC_ERR_FILE_WRITE) printf("FAIL: code %d, want PETSC_ERR_FILE_WRITE\n", (int)ierr), fails++;
    if (!msg || !strstr(msg, final) || !strstr(msg, "EFBIG") || strchr(msg, '\n')) printf("FAIL: the message is not one line naming %s and EFBIG\n", final), fails++;
    if (Exists(part) || Exists(lock)) printf("FAIL: %s or %s left behind\n", part, lock), fails++;
    fp = fopen(final, "r");
    if (!fp || !fgets(buf, sizeof buf, fp) || strcmp(buf, old)) printf("FAIL: the existing %s changed\n", final), fails++;
    if (fp) fclose(fp);
  }
  /* within the limit: written and committed over the old file (-force) */
  PetscCall(SRFileCreateExclusiveTemp(PETSC_COMM_WORLD, final, part, sizeof part));
  PetscCall(SRFileWriteOnRank0(PETSC_COMM_WORLD, part, final, Writer_Private, &small));
  PetscCall(SRFileCommit(PETSC_COMM_WORLD, part, final, PETSC_TRUE));
  if (!rank) {
    if (Exists(part) || Exists(lock) || H5Fis_hdf5(final) <= 0) printf("FAIL: the good write did not commit cleanly\n"), fails++;
    printf("%s\n", fails ? "FAIL" : "PASS");
  }
  PetscCallMPI(MPI_Bcast(&fails, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  PetscCall(PetscFinalize());
  return fails ? 1 : 0;
}
