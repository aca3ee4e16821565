/* Guard for HDF5 reads: a crash or hang inside libhdf5 on a corrupt file becomes the one-line error. */
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "h5guard.h"

static char crash_msg[1024];
static size_t crash_len;

/* libhdf5 can crash on corrupt files (tests/fuzz/hdf5_crashers.txt); the user still gets one line. */
static void on_library_crash(int sig)
{
	ssize_t n;

	(void)sig;
	n = write(STDERR_FILENO, crash_msg, crash_len);
	(void)n;
	_exit(SB_EXIT_USAGE);
}

#ifdef SB_FUZZING
/* Fuzz builds: the fuzzer must see a crash inside libhdf5 as a crash, to sort it. */
int sb_h5_guarded(const char *path, int (*fn)(void *ctx), void *ctx)
{
	(void)path;
	return fn(ctx);
}
#else
int sb_h5_guarded(const char *path, int (*fn)(void *ctx), void *ctx)
{
	struct sigaction sa = { .sa_handler = on_library_crash }, old_segv, old_bus, old_alrm;
	struct stat st;
	unsigned int limit;
	int ret, len;

	/* A watchdog far above any real read (30 s plus 1 s per 10 MB) catches endless loops. */
	limit = 30 + (unsigned int)(stat(path, &st) ? 0 : st.st_size / (10 << 20));
	len = snprintf(crash_msg, sizeof(crash_msg),
		       "scope-bpf: %s: corrupt HDF5 file (the HDF5 library crashed, or read "
		       "it for over %u s)\n", path, limit);
	crash_len = len > 0 && (size_t)len < sizeof(crash_msg) ? (size_t)len : sizeof(crash_msg) - 1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGALRM, &sa, &old_alrm);
	alarm(limit);
	ret = fn(ctx);
	alarm(0);
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGALRM, &old_alrm, NULL);
	return ret;
}
#endif
