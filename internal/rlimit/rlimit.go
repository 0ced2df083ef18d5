// Package rlimit owns the least limits castchunk starts under: on open
// files (ulimit -n) and on processes (ulimit -u). They are checked in C,
// by a constructor that runs before the Go runtime starts, because under
// lower limits the runtime's own start-up dies (epoll_create,
// pthread_create) with status 2, castchunk's usage status. The program
// imports this package for that effect; how many worker processes a run
// has under the limits is package pipeline's.
package rlimit

/*
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/resource.h>

// The least limits castchunk runs under: on open files, pipeline's
// MinDescriptors (TestStartLimitsAgree); on processes, the threads of the
// Go runtime with GOMAXPROCS=1 and a few more.
#define CASTCHUNK_MIN_FILES 20
#define CASTCHUNK_MIN_PROCS 8
// Under this limit on processes, the runtime is given one processor.
#define CASTCHUNK_FEW_PROCS 64

// castchunk_check_limits runs before the Go runtime starts, which under a
// lower limit dies in its own start-up (epoll_create, pthread_create) with
// status 2, castchunk's usage status: castchunk says which limit and exits
// with status 1 instead. Under a tight limit on processes (a user's, not
// root's), the runtime gets one processor, and so fewer threads.
__attribute__((constructor)) static void castchunk_check_limits(void) {
	struct rlimit l;
	if (getrlimit(RLIMIT_NOFILE, &l) == 0 && l.rlim_cur < CASTCHUNK_MIN_FILES) {
		fprintf(stderr, "castchunk: the limit on open files (ulimit -n) is %llu; castchunk needs at least %d\n",
			(unsigned long long)l.rlim_cur, CASTCHUNK_MIN_FILES);
		_exit(1);
	}
	if (geteuid() != 0 && getrlimit(RLIMIT_NPROC, &l) == 0 && l.rlim_cur != RLIM_INFINITY) {
		if (l.rlim_cur < CASTCHUNK_MIN_PROCS) {
			fprintf(stderr, "castchunk: the limit on processes (ulimit -u) is %llu; castchunk needs at least %d\n",
				(unsigned long long)l.rlim_cur, CASTCHUNK_MIN_PROCS);
			_exit(1);
		}
		if (l.rlim_cur < CASTCHUNK_FEW_PROCS && getenv("GOMAXPROCS") == NULL) {
			setenv("GOMAXPROCS", "1", 1);
		}
	}
}
*/
import "C"

// Least is the least limits on open files and on processes that
// castchunk's start-up (castchunk_check_limits, in C, before the Go
// runtime) accepts.
func Least() (files, procs int) {
	return C.CASTCHUNK_MIN_FILES, C.CASTCHUNK_MIN_PROCS
}
