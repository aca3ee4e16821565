/* Integration test helpers: run scope-bpf on the test apps and read back what it wrote. */
#ifndef SB_HARNESS_H
#define SB_HARNESS_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "io/h5read.h"
#include "model/health.h"
#include "model/model.h"

#define MS 1000000LL

static char tmp_dir[256];

static inline const char *env_or(const char *name, const char *fallback)
{
	const char *v = getenv(name);

	return v && *v ? v : fallback;
}

/*
 * How many times slower than a native CPU this one runs the tests' apps:
 * SCOPE_BPF_TEST_SLOWDOWN, 1 when unset. The kernel matrix's TCG guests set
 * it (tools/kernels/run.sh): a flood there makes a twentieth of the calls,
 * and loading the programs takes a twentieth as long natively.
 */
static inline unsigned slowdown(void)
{
	long v = strtol(env_or("SCOPE_BPF_TEST_SLOWDOWN", "1"), NULL, 10);

	return v > 1 && v < 1000 ? (unsigned)v : 1;
}

/*
 * A flood's least calls: a million natively; where the CPU is emulated a
 * hundredth at a slowdown of 20, since the emulation's speed moves tenfold
 * with the host's load (28 672 to 300 000 calls of a 0.5 s flood were seen).
 */
static inline long flood_floor(void)
{
	long s = (long)slowdown();

	return s > 1 ? 1000000 / (5 * s) : 1000000;
}

static inline const char *scope_bin(void)
{
	return env_or("SCOPE_BPF", "build/scope-bpf");
}

static inline const char *app_path(const char *app, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s", env_or("APPS", "build/apps"), app);
	return buf;
}

/* A test tool (tests/tools/NAME.c): built beside the tests, in $SCOPE_BPF's build folder. */
static inline const char *tool_path(const char *name, char *buf, size_t size)
{
	const char *bin = scope_bin(), *slash = strrchr(bin, '/');

	snprintf(buf, size, "%.*s/tests/%s", slash ? (int)(slash - bin) : 1, slash ? bin : ".",
		 name);
	return buf;
}

/* Whether PATH has an executable named name (as execvp would find it). */
static inline bool in_path(const char *name)
{
	const char *path = env_or("PATH", "/usr/bin:/bin"), *end;
	char file[512];

	for (; *path; path = *end ? end + 1 : end) {
		end = strchrnul(path, ':');
		snprintf(file, sizeof(file), "%.*s/%s", (int)(end - path), path, name);
		if (!access(file, X_OK))
			return true;
	}
	return false;
}

/*
 * MPICH's launcher by its own name, never plain `mpiexec`: Debian's
 * alternatives point that at Open MPI's as soon as Open MPI is installed too,
 * which would turn every MPICH test into an Open MPI one. $MPIEXEC_MPICH
 * names another (e.g. MPICH installed elsewhere).
 */
static inline const char *mpiexec_mpich(void)
{
	const char *name = env_or("MPIEXEC_MPICH", "mpiexec.mpich");

	if (!in_path(name))
		fail_msg("%s not found in PATH: install Debian's mpich (tools/install-deps.sh) "
			 "or set MPIEXEC_MPICH", name);
	return name;
}

/* Loading BPF needs root here; under CI a skip would hide a broken feature, so it fails. */
static inline void require_bpf(void)
{
	if (geteuid() == 0)
		return;
	if (!strcmp(env_or("CI", ""), "true"))
		fail_msg("BPF integration tests need root (or CAP_BPF+CAP_PERFMON) and CI=true forbids skipping");
	fprintf(stderr, "skipping: BPF integration tests need root (or CAP_BPF+CAP_PERFMON)\n");
	skip();
}

/* Whether uname -r is below major.minor. */
static inline bool kernel_below(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	assert_int_equal(uname(&u), 0);
	assert_int_equal(sscanf(u.release, "%d.%d", &ma, &mi), 2);
	return ma < major || (ma == major && mi < minor);
}

static inline int setup_tmp(void **state)
{
	(void)state;
	snprintf(tmp_dir, sizeof(tmp_dir), "/tmp/scope-bpf-test.XXXXXX");
	return mkdtemp(tmp_dir) ? 0 : -1;
}

static inline int teardown_tmp(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp_dir);
	return system(cmd) == 0 ? 0 : -1;
}

static inline const char *tmp_file(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s", tmp_dir, name);
	return buf;
}

/* Start argv with stderr captured in a file; returns the pid. */
static inline pid_t spawn(char *const argv[], const char *err_path, int *stdout_pipe)
{
	int fds[2] = { -1, -1 }, fd;
	pid_t pid;

	if (stdout_pipe && pipe(fds))
		return -1;
	pid = fork();
	if (pid)
		goto parent;
	fd = err_path ? open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;
	if (fd >= 0)
		dup2(fd, STDERR_FILENO);
	if (stdout_pipe)
		dup2(fds[1], STDOUT_FILENO);
	execv(argv[0], argv);
	_exit(127);
parent:
	if (stdout_pipe) {
		close(fds[1]);
		*stdout_pipe = fds[0];
	}
	return pid;
}

static inline int wait_status(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Print what a run said on stderr, so that a failure in a log (CI, a guest) says why. */
static inline void echo_stderr(const char *path, int status)
{
	char line[512];
	FILE *f = fopen(path, "r");
	int n = 0;

	if (!f)
		return;
	printf("  exit %d; its stderr:\n", status);
	while (n++ < 60 && fgets(line, sizeof(line), f))
		printf("  | %s", line);
	fclose(f);
}

/* Run argv to the end; stderr lands in tmp_dir/stderr.txt and, on a failure, in the log. */
static inline int run(char *const argv[])
{
	char err[300];
	int status = wait_status(spawn(argv, tmp_file("stderr.txt", err, sizeof(err)), NULL));

	if (status)
		echo_stderr(err, status);
	return status;
}

static inline void read_stderr(char *buf, size_t size)
{
	char path[300];
	size_t n = 0;
	FILE *f = fopen(tmp_file("stderr.txt", path, sizeof(path)), "r");

	if (f) {
		n = fread(buf, 1, size - 1, f);
		fclose(f);
	}
	buf[n] = 0;
}

/* Whether SCOPE_BPF_KERNEL_OFF (the kernel layer's test switch) names this feature, or all. */
static inline bool kernel_feature_off(const char *name)
{
	const char *off = getenv("SCOPE_BPF_KERNEL_OFF"), *p;
	size_t len = strlen(name);

	for (p = off; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if ((!strncmp(p, name, len) && (p[len] == ',' || !p[len])) ||
		    (!strncmp(p, "all", 3) && (p[3] == ',' || !p[3])))
			return true;
	return false;
}

/*
 * The fast path needs BPF attach cookies (5.15) and atomic fetch-and-add
 * (5.12): without them markers trap (docs/KERNELS.md, "5.10"), which
 * test_kernels checks. Its own tests skip there, said; CI's kernels have both.
 */
static inline void require_fast_path(void)
{
	require_bpf();
	if (!kernel_below(5, 15) && !kernel_feature_off("attach_cookie") &&
	    !kernel_feature_off("atomic_fetch"))
		return;
	if (!strcmp(env_or("CI", ""), "true"))
		fail_msg("the fast path needs BPF attach cookies (Linux 5.15), which this kernel "
			 "lacks or SCOPE_BPF_KERNEL_OFF turned off, and CI=true forbids skipping");
	fprintf(stderr, "skipping: the fast path needs BPF attach cookies (Linux 5.15)\n");
	skip();
}

/* Markers go through the fast path: SCOPE_BPF_TEST_MODE unset or auto. */
static inline bool fast_mode(void)
{
	const char *mode = getenv("SCOPE_BPF_TEST_MODE");

	return !mode || !strcmp(mode, "auto");
}

/*
 * scope-bpf record -q -o OUT -- APPS/app args... (NULL-terminated); with
 * SCOPE_BPF_TEST_MODE set, --mode=that too (make integration runs a test twice).
 */
static inline int record_app(const char *out, const char *app, ...)
{
	const char *mode = getenv("SCOPE_BPF_TEST_MODE");
	char *argv[32], path[512], mode_arg[32];
	int n = 0, st;
	va_list ap;

	argv[n++] = (char *)scope_bin();
	argv[n++] = "record";
	if (mode) {
		snprintf(mode_arg, sizeof(mode_arg), "--mode=%s", mode);
		argv[n++] = mode_arg;
	}
	/* Not -q: the summary and its warnings are what run() echoes when the status is not 0. */
	argv[n++] = "-o";
	argv[n++] = (char *)out;
	argv[n++] = "--";
	argv[n++] = (char *)app_path(app, path, sizeof(path));
	va_start(ap, app);
	while (n < 31 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	st = run(argv);
	return st;
}

static inline void load_profile(const char *path, struct sb_profile *p)
{
	struct sb_error err = { { 0 } };

	sb_profile_init(p);
	if (sb_h5_read(path, p, &err))
		fail_msg("reading %s: %s", path, err.msg);
	assert_non_null(p->events);
}

static inline const struct sb_pair *find_pair(const struct sb_profile *p, const char *region, uint32_t rank)
{
	size_t i;

	for (i = 0; i < p->n_pairs; i++)
		if (p->pairs[i].rank == rank && !strcmp(p->regions[p->pairs[i].region].name, region))
			return &p->pairs[i];
	return NULL;
}

static inline void print_losses(const struct sb_profile *p);

/* What the file holds instead, so that a failure seen once (a kernel under emulation) says why. */
static inline void print_pairs(const struct sb_profile *p)
{
	size_t i;

	printf("  %zu processes, %zu threads; calls by region and rank:\n", p->n_processes,
	       p->n_threads);
	for (i = 0; i < p->n_pairs; i++)
		printf("  %s rank %u: %llu\n", p->regions[p->pairs[i].region].name, p->pairs[i].rank,
		       (unsigned long long)p->pairs[i].count);
	print_losses(p);
}

static inline const struct sb_pair *must_pair(const struct sb_profile *p, const char *region, uint32_t rank)
{
	const struct sb_pair *pair = find_pair(p, region, rank);

	if (!pair) {
		print_pairs(p);
		fail_msg("no calls of region '%s' on rank %u", region, rank);
	}
	return pair;
}

/* The region name of the call that encloses e, or NULL at top level. */
static inline const char *parent_region(const struct sb_profile *p, uint32_t rank, const struct sb_event *e)
{
	size_t i;

	if (e->parent_id < 0)
		return NULL;
	for (i = 0; i < p->n_pairs; i++) {
		const struct sb_pair *q = &p->pairs[i];
		size_t j;

		if (q->rank != rank)
			continue;
		for (j = q->offset; j < q->offset + q->count; j++)
			if (p->events[j].call_id == e->parent_id)
				return p->regions[q->region].name;
	}
	return "(missing)";
}

static inline int64_t meta_int(const struct sb_profile *p, const char *key)
{
	const struct sb_meta *m = sb_profile_meta(p, key);

	if (!m || !m->is_int)
		fail_msg("metadata %s missing or not an integer", key);
	return m->i;
}

/*
 * record's exit status says whether calls were lost: 3 when lost_events or a
 * refused fast-path memory counts any, else 0.
 */
static inline void assert_status_says_losses(int status, const struct sb_profile *p)
{
	assert_int_equal(status, meta_int(p, "lost_events") > 0 ||
				 meta_int(p, "fast_memories_refused") > 0 ? 3 : 0);
}

/* Every loss counter the profile holds that is not 0: what to read when a count is short. */
static inline void print_losses(const struct sb_profile *p)
{
	static const char *const more[] = { "site_descriptions_unsent", "fast_records_dropped",
					    "fast_records_invalid", "sites_named_by_recorder" };
	const struct sb_meta *m;
	size_t i;

	for (i = 0; i < sb_health_n_keys + sizeof(more) / sizeof(more[0]); i++) {
		const char *key = i < sb_health_n_keys ? sb_health_keys[i].key :
				  more[i - sb_health_n_keys];

		m = sb_profile_meta(p, key);
		if (m && m->is_int && m->i)
			printf("  %s = %lld\n", key, (long long)m->i);
	}
}

static inline const char *meta_str(const struct sb_profile *p, const char *key)
{
	const struct sb_meta *m = sb_profile_meta(p, key);

	if (!m || m->is_int)
		fail_msg("metadata %s missing or not a string", key);
	return m->s;
}

static inline void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The start of the file at path ("" when it cannot be read), in buf. */
static inline const char *file_text(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, size - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = 0;
	return buf;
}

/* Start argv and read its first line, which must say word (a test app's "ready"); its pid. */
static inline pid_t start_saying(char *const argv[], const char *word)
{
	char line[64] = { 0 };
	int fd = -1;
	pid_t pid = spawn(argv, NULL, &fd);

	assert_true(pid > 0);
	assert_true(read(fd, line, sizeof(line) - 1) > 0);
	close(fd);
	assert_non_null(strstr(line, word));
	return pid;
}

/* Whether the file holds text in its first MiB (-v says much), waiting up to 30 s for it. */
static inline bool wait_for_text(const char *path, const char *text)
{
	static char buf[1 << 20];
	int i;

	for (i = 0; i < 3000; i++) {
		if (strstr(file_text(path, buf, sizeof(buf)), text))
			return true;
		sleep_ms(10);
	}
	return false;
}

#endif
