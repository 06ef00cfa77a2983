/* Files simreach writes (SPEC §13): created as FILE.part opened exclusively (never following a
   link, never replacing an existing .part) and renamed into place; an existing FILE is
   replaced only with -force.  Plus the row checksum every reader verifies and the free-space
   check made before a file of known size is written.  The file functions are collective on
   comm: its rank 0 acts, every rank returns the same error (pass PETSC_COMM_SELF to act alone). */
#pragma once

#include <simreach/base.h>
#include <hdf5.h>

/* Creates tmp = "<final>.part" (buffer of len bytes) with O_CREAT|O_EXCL|O_NOFOLLOW, mode 0644,
   and closes it: the caller then opens tmp by name (e.g. H5Fcreate(..., H5F_ACC_TRUNC)).
   First takes final's lock (filelock.h: host, pid, Slurm job, refresh time), unless this
   process holds it already (a study); it is released by SRFileCommit, or SRFileRemove of tmp.
   The one rule for .part files (docs/files.md): a stale lock is taken over and its .part
   removed, with one line saying so; a live lock refuses (PETSC_ERR_FILE_OPEN, exit 2) and
   touches nothing; a tmp that exists in any form (a file, a symbolic link, a directory) while
   no lock names its writer is refused and left alone (PETSC_ERR_FILE_OPEN). */
PetscErrorCode SRFileCreateExclusiveTemp(MPI_Comm comm, const char final[], char tmp[], size_t len);
/* Renames tmp onto final, then releases the lock SRFileCreateExclusiveTemp took.  Without force an existing final is never replaced (renameat2
   RENAME_NOREPLACE, else link + unlink): error PETSC_ERR_FILE_OPEN naming it, tmp is removed. */
PetscErrorCode SRFileCommit(MPI_Comm comm, const char tmp[], const char final[], PetscBool force);
/* Errors (PETSC_ERR_FILE_WRITE, "disk full" wording, naming the file) if the file system of
   path's directory has fewer than bytes free.  Unknown free space (statvfs fails) passes. */
PetscErrorCode SRFileCheckSpace(MPI_Comm comm, const char path[], double bytes);
/* Before an existing file is written in place (study -resume): refused on every rank (one line,
   PETSC_ERR_FILE_WRITE, exit 4, the file untouched) if it is larger than the file-size limit
   (ulimit -f) of any rank, whose writes inside it would then fail with EFBIG. */
PetscErrorCode SRFileCheckRewrite(MPI_Comm comm, const char path[]);
/* Allocates bytes for the new, still empty temporary file part (of final) and frees them again:
   the blocks the file needs are really there (statvfs does not see quotas, and the disk may have
   filled since SRFileCheckSpace).  If not, part is removed and the error (PETSC_ERR_FILE_WRITE,
   exit 4) names final and says the disk is full.  File systems without fallocate pass. */
PetscErrorCode SRFileReserve(MPI_Comm comm, const char part[], const char final[], double bytes);
/* Before any work (SPEC §13, issue 34): the output path given to option opt can be written.
   Refused in one line naming the option and the path (exit 2): an empty name, a directory, a
   device, FIFO or socket (/dev/null too: only a regular file is ever replaced), a folder that
   does not exist or is not writable, and an existing file unless exist_ok (-force, -resume).
   With -help nothing is checked (nothing is written). */
PetscErrorCode SRFileCheckOutput(MPI_Comm comm, const char opt[], const char path[], PetscBool exist_ok);
/* Writes a whole HDF5 file by rank 0 alone: write(f, ctx) fills the file f, built in memory on
   rank 0 (HDF5's core driver), whose image is then written to part with write(2).  If anything
   fails (an HDF5 call, disk full, ulimit -f) part and its lock are removed and every rank raises
   one line naming final and the reason with its errno (PETSC_ERR_FILE_WRITE, exit 4); an
   existing final is untouched (only SRFileCommit replaces it, afterwards). */
PetscErrorCode SRFileWriteOnRank0(MPI_Comm comm, const char part[], const char final[], PetscErrorCode (*write)(hid_t f, void *ctx), void *ctx);
/* A parallel HDF5 write (every rank writes, e.g. with MPI-IO) that may fail on some ranks only
   (issue 34: a disk that fills after the reservation, one rank past its ulimit -f): each rank
   runs its part with errors caught and keeps err = 0 or its errno (-1 if unknown).  Collective:
   *failed = some rank's err is not 0. */
PetscErrorCode SRFileWriteAnyFailed(MPI_Comm comm, int err, PetscBool *failed);
/* Collective, after SRFileWriteAnyFailed said failed and every rank closed the file
   (SRFileH5CloseBroken): the first failing rank's reason (SRFileWriteFailureReason: its errno,
   its ulimit -f) is raised on every rank in one line naming final (PETSC_ERR_FILE_WRITE, exit
   4), after part and its lock were removed; an existing final is untouched. */
PetscErrorCode SRFileWriteFail(MPI_Comm comm, const char part[], const char final[], int err);
/* Closes an HDF5 file whose writing failed half-way: the objects left open first (with one
   open, H5Fclose of an MPI-IO file fails), then the file; if its last flush fails too (the disk
   still full), the identifier is dropped, so that HDF5 does not retry it at exit. */
void SRFileH5CloseBroken(hid_t file);
/* Removes path if it exists (rank 0 of comm); errors are ignored.  A .part's lock is released. */
PetscErrorCode SRFileRemove(MPI_Comm comm, const char path[]);
/* Tests only: when the environment variable SIMREACH_TEST_PAUSE equals moment, rank 0 of comm
   prints its pid and sleeps (up to 300 s) for a test to kill it there; with MOMENT,cont SIGCONT ends the pause.  The moments of a file
   write: open (before the lock), locked, created (.part created), reserved (its blocks reserved
   and freed again), write (data half written, in the writers), commit (.part complete, before the rename), renamed (before the lock's release). */
void SRFileTestPause(MPI_Comm comm, const char moment[]);
/* Async-signal-safe (a stop by a signal, src/commands/main.c): unlink the .part files this
   process is writing and the locks it took for them. */
void SRFileUnlinkOpenOnSignal(void);
/* Async-signal-safe: 1 once this process has committed an output file (renamed its .part). */
int SRFileCommittedOnSignal(void);
/* Catch SIGXFSZ (a write past `ulimit -f`): the write then fails with EFBIG, and
   SRFileWriteFailureReason names the limit instead of the process being killed. */
void SRFileCatchSizeLimit(void);
/* After a failed write of path: a one-line explanation ("the disk holding X is full" when the
   file system has less than 1 MiB free, else strerror(err)). */
void SRFileWriteFailureReason(const char path[], int err, char msg[], size_t len);

/* The row checksum of the simreach file formats: FNV-1a 64 over the bytes [buf, buf + n),
   started from seed (use SRChecksumSeed to bind a row to its place, so a row copied to the
   wrong place fails too).  0 is never returned (it marks a row never written). */
uint64_t SRChecksum64(const void *buf, size_t n, uint64_t seed);
/* A seed from a dataset tag and up to two row coordinates. */
uint64_t SRChecksumSeed(const char tag[], int64_t i, int64_t j);
