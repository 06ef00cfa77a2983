/* One writer per file (SPEC §13): FILE.lock, created with O_CREAT|O_EXCL (atomic on local
   disks, NFSv3+ and Lustre, where flock is not always), holds the owner's host, pid, Slurm job
   id and a time the owner refreshes every SR_LOCK_REFRESH_SECONDS while it runs.  A lock is
   stale, and taken over, when its process is gone on this host, when it belongs to this same
   Slurm job (a requeue), or when it has not been refreshed for SR_LOCK_STALE_SECONDS; the
   FILE.part its writer left is then removed, and one line says so.  Any other lock refuses
   the second writer, naming the file and the owner, and leaves FILE and FILE.part alone. */
#pragma once

#include <simreach/base.h>

#define SR_LOCK_REFRESH_SECONDS 60
#define SR_LOCK_STALE_SECONDS 600

typedef struct _p_SRFileLock *SRFileLock;

/* Collective on comm: rank 0 takes file.lock and refreshes it from a thread until released;
   every rank returns the same error (PETSC_ERR_FILE_OPEN) if another live writer holds it. */
PetscErrorCode SRFileLockAcquire(MPI_Comm comm, const char file[], SRFileLock *lock);
/* Does this process hold file's lock (meaningful on the rank 0 that took it)? */
PetscBool SRFileLockHeld(const char file[]);
/* Collective: stops the refresh and removes the lock file if it is still ours.  NULL is fine. */
PetscErrorCode SRFileLockRelease(SRFileLock *lock);
