/* Guard for HDF5 reads: a crash or hang inside libhdf5 on a corrupt file becomes the one-line error. */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"
#include "io/h5guard.h"

/* The watchdog: this many seconds, plus one per 10 MB of file. */
#define WATCHDOG_BASE_S 5
/* The address space a read may add: this, plus this many bytes per byte of file. */
#define READ_MEM_BASE (1ull << 30)
#define READ_MEM_PER_BYTE 256

#if defined(__SANITIZE_ADDRESS__)
#define SB_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SB_SANITIZED 1
#endif
#endif
#ifndef SB_SANITIZED
#define SB_SANITIZED 0
#endif

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
/* Address space in use now, from /proc/self/statm; 0 when unknown. */
static uint64_t address_space(void)
{
	unsigned long long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return 0;
	if (fscanf(f, "%llu", &pages) != 1)
		pages = 0;
	fclose(f);
	return pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

/*
 * libhdf5 allocates sizes read from the file before it checks them (a vlen
 * length of 4 GiB in a 25 KiB file): the read runs with the address space
 * capped to what any real file of this size needs, so such a malloc fails
 * at once instead of paging for a minute. Sanitizers reserve terabytes of
 * shadow memory up front: under them the cap is left off.
 */
static bool cap_memory(uint64_t file_size, struct rlimit *old)
{
	uint64_t used = address_space(), budget = READ_MEM_BASE;
	struct rlimit cap;

	if (SB_SANITIZED || !used || getrlimit(RLIMIT_AS, old))
		return false;
	if (file_size > (UINT64_MAX - budget - used) / READ_MEM_PER_BYTE)
		return false;
	budget += used + file_size * READ_MEM_PER_BYTE;
	if (old->rlim_cur != RLIM_INFINITY && old->rlim_cur <= budget)
		return false;
	cap = (struct rlimit){ budget, old->rlim_max };
	return !setrlimit(RLIMIT_AS, &cap);
}

int sb_h5_guarded(const char *path, int (*fn)(void *ctx), void *ctx)
{
	struct sigaction sa = { .sa_handler = on_library_crash }, old_segv, old_bus, old_alrm;
	uint64_t size = 0;
	struct rlimit old_as;
	struct stat st;
	unsigned int limit;
	bool capped;
	int ret, len;

	if (!stat(path, &st))
		size = (uint64_t)st.st_size;
	/* Real reads run at well over 10 MB/s: a few seconds more catch endless loops early. */
	limit = WATCHDOG_BASE_S + (unsigned int)(size / (10 << 20));
	len = snprintf(crash_msg, sizeof(crash_msg),
		       "scope-bpf: %s: corrupt HDF5 file (the HDF5 library crashed, or read "
		       "it for over %u s)\n", path, limit);
	crash_len = len > 0 && (size_t)len < sizeof(crash_msg) ? (size_t)len : sizeof(crash_msg) - 1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGALRM, &sa, &old_alrm);
	capped = cap_memory(size, &old_as);
	alarm(limit);
	ret = fn(ctx);
	alarm(0);
	if (capped)
		setrlimit(RLIMIT_AS, &old_as);
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGALRM, &old_alrm, NULL);
	return ret;
}
#endif
