/*
 * Integration: the fast path (docs/DESIGN.md). Markers built with the current
 * header write to shared memory; an older header's binary keeps the kernel
 * path; a hostile process cannot hurt the recorder; a stopped recorder never
 * stops the program it records.
 */
#include "harness.h"

#include <dirent.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

/* The call tree nested.c documents, whichever path recorded it. */
static void check_nested(const struct sb_profile *p)
{
	const struct sb_pair *a = must_pair(p, "a", 0), *b = must_pair(p, "b", 0);
	const struct sb_pair *c = must_pair(p, "c", 0);
	size_t i;

	assert_int_equal(a->count, 5);
	assert_int_equal(b->count, 10);
	assert_int_equal(c->count, 30);
	assert_int_equal(must_pair(p, "fib", 0)->count, 177);
	assert_int_equal(must_pair(p, "manual", 0)->count, 1);
	assert_int_equal(must_pair(p, "tagged", 0)->count, 1);
	for (i = c->offset; i < c->offset + c->count; i++) {
		assert_string_equal(parent_region(p, 0, &p->events[i]), "b");
		assert_in_range(p->events[i].end - p->events[i].start, MS, 60 * MS);
	}
	for (i = b->offset; i < b->offset + b->count; i++)
		assert_string_equal(parent_region(p, 0, &p->events[i]), "a");
	/*
	 * a's own time is what its children leave: about nothing, natively. An
	 * emulated CPU takes far longer for each of b's traps (7.3 guest, kernel
	 * mode: over a tenth of a's 6 ms).
	 */
	assert_true(a->exclusive_total < a->stats.total / (slowdown() > 1 ? 2 : 10));
	assert_int_equal(meta_int(p, "lost_events"), 0);
	assert_int_equal(meta_int(p, "open_calls_dropped"), 0);
}

static void test_current_header_takes_the_fast_path(void **state)
{
	struct sb_profile p;
	char out[300], want[64];

	(void)state;
	require_fast_path();
	assert_int_equal(record_app(tmp_file("nested.h5", out, sizeof(out)), "nested", NULL), 0);
	load_profile(out, &p);
	check_nested(&p);
	snprintf(want, sizeof(want), "%lld:fast", (long long)p.processes[0].pid);
	assert_string_equal(meta_str(&p, "record_path_by_process"), want);
	assert_string_equal(meta_str(&p, "record_mode"), "auto");
	/* Every begin and end: 5 + 10 + 30 + 177 + 1 + 1 calls. */
	assert_int_equal(meta_int(&p, "fast_records"), 2 * 224);
	assert_int_equal(meta_int(&p, "fast_records_dropped"), 0);
	assert_int_equal(meta_int(&p, "fast_records_invalid"), 0);
	sb_profile_free(&p);
}

/* app recorded --mode=kernel: the whole tree, on the kernel path. */
static void check_kernel_path(const char *app, const char *file)
{
	struct sb_profile p;
	char out[300], want[64], path[512];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "--mode=kernel", "-o",
			 (char *)tmp_file(file, out, sizeof(out)), "--",
			 (char *)app_path(app, path, sizeof(path)), NULL };

	assert_int_equal(run(argv), 0);
	load_profile(out, &p);
	check_nested(&p);
	snprintf(want, sizeof(want), "%lld:kernel", (long long)p.processes[0].pid);
	assert_string_equal(meta_str(&p, "record_path_by_process"), want);
	assert_string_equal(meta_str(&p, "record_mode"), "kernel");
	sb_profile_free(&p);
}

static void test_kernel_mode_and_older_headers_trap(void **state)
{
	struct sb_profile p;
	char out[300], want[64];

	(void)state;
	require_fast_path();
	/* The header's markers: the programs read each site from its register. */
	check_kernel_path("nested", "kernel.h5");
	/* Sites in another register: the programs fetch them as the notes say. */
	check_kernel_path("nested_rbx", "rbx.h5");

	/* nested.c built with the header released before the fast path. */
	assert_int_equal(record_app(tmp_file("v1.h5", out, sizeof(out)), "nested_v1", NULL), 0);
	load_profile(out, &p);
	check_nested(&p);
	snprintf(want, sizeof(want), "%lld:kernel", (long long)p.processes[0].pid);
	assert_string_equal(meta_str(&p, "record_path_by_process"), want);
	assert_int_equal(meta_int(&p, "fast_records"), 0);
	sb_profile_free(&p);
}

/*
 * A kernel-mode recording right after a fast one: the first recorder's
 * fast-path probes are gone when it returns (their semaphore would send the
 * markers to memory nobody reads); only its region probes are left to its
 * guardian to close.
 */
static void test_kernel_mode_right_after_a_fast_recording(void **state)
{
	char out[300], path[512];
	char *fast[] = { (char *)scope_bin(), "record", "-q", "-o",
			 (char *)tmp_file("first.h5", out, sizeof(out)), "--",
			 (char *)app_path("nested", path, sizeof(path)), NULL };
	int i;

	(void)state;
	require_fast_path();
	for (i = 0; i < 3; i++) {
		assert_int_equal(run(fast), 0);
		check_kernel_path("nested", "next.h5");
	}
}

/*
 * The most records a process's threads can have written or dropped in a
 * recording: two a nanosecond on each CPU, from its start to its end and the
 * settling after it (record/fast/shm.h).
 */
static int64_t most_records(const struct sb_profile *p)
{
	int64_t ns = meta_int(p, "finalize_time_ns") - meta_int(p, "start_time_ns") + 10 * MS;

	return ns * sysconf(_SC_NPROCESSORS_CONF) * 2;
}

/* The sum of the counts of a "PID:N PID:N" metadata string; *n: how many processes it names. */
static int64_t sum_by_process(const struct sb_profile *p, const char *key, int *n)
{
	const char *s = meta_str(p, key);
	long long pid, v;
	int64_t sum = 0;
	int used;

	for (*n = 0; sscanf(s, " %lld:%lld%n", &pid, &v, &used) == 2; s += used, ++*n)
		sum += v;
	return sum;
}

static void test_hostile_target_cannot_hurt_the_recorder(void **state)
{
	struct sb_profile p;
	char out[300], pid[32];
	int n;

	(void)state;
	require_fast_path();
	/*
	 * 3: its shrink was refused (sealed), it ran every attack, we survived
	 * them, and the losses it claims (a lie, cut to a bound) are said.
	 */
	assert_int_equal(record_app(tmp_file("hostile.h5", out, sizeof(out)), "fast_hostile", NULL),
			 3);
	load_profile(out, &p);
	/* Its own thread's ring was never touched: every genuine call is there. */
	assert_int_equal(must_pair(&p, "work", 0)->count, 5000);
	assert_true(meta_int(&p, "fast_records_invalid") > 0);
	/* Its forged counts (2^52 drops a slot) are cut to what it could have done, and said to be. */
	assert_true(meta_int(&p, "fast_records_dropped") <= most_records(&p));
	assert_true(meta_int(&p, "lost_events") <= most_records(&p));
	assert_int_equal(meta_int(&p, "fast_counts_cut"), 1);
	assert_int_equal(sum_by_process(&p, "fast_records_dropped_by_process", &n),
			 meta_int(&p, "fast_records_dropped"));
	assert_int_equal(n, 1);
	assert_int_equal(sum_by_process(&p, "fast_records_invalid_by_process", &n),
			 meta_int(&p, "fast_records_invalid"));
	snprintf(pid, sizeof(pid), "%lld:", (long long)p.processes[0].pid);
	assert_non_null(strstr(meta_str(&p, "fast_records_invalid_by_process"), pid));
	sb_profile_free(&p);
}

/* fast_flood THREADS SECS, in the background; returns once it runs ("ready"). */
static pid_t start_flood(const char *threads, const char *secs, FILE **out)
{
	char path[512], line[64];
	char *argv[] = { (char *)app_path("fast_flood", path, sizeof(path)), (char *)threads,
			 (char *)secs, NULL };
	int fd = -1;
	pid_t pid = spawn(argv, NULL, &fd);

	*out = fdopen(fd, "r");
	assert_non_null(*out);
	assert_non_null(fgets(line, sizeof(line), *out));
	assert_string_equal(line, "ready\n");
	return pid;
}

/*
 * The recorder stopped (SIGSTOP) for a second (3 s emulated) while a thread
 * writes flat out, once it has taken the thread's memory: the rings fill,
 * records are dropped and counted, and the program never waits: no 1024 of
 * its calls take anywhere near that stop.
 */
static void test_stopped_recorder_never_stalls_the_program(void **state)
{
	long stop_ms = slowdown() > 1 ? 3000 : 1000;
	char out[300], err[300], pidstr[16], line[64];
	struct sb_profile p;
	pid_t flood, rec;
	long gap_us = -1;
	FILE *f;

	(void)state;
	require_fast_path();
	flood = start_flood("1", "60", &f);
	snprintf(pidstr, sizeof(pidstr), "%d", (int)flood);
	{
		char *argv[] = { (char *)scope_bin(), "record", "-q", "-v", "-d", "2", "-p", pidstr,
				 "-o", (char *)tmp_file("stopped.h5", out, sizeof(out)), NULL };

		rec = spawn(argv, tmp_file("stopped.err", err, sizeof(err)), NULL);
	}
	/* Stopped while it starts (2 s here beside the flood), it would only start later. */
	assert_true(wait_for_text(err, "fast-path memory taken"));
	sleep_ms(300);
	kill(rec, SIGSTOP);
	sleep_ms(stop_ms);
	kill(rec, SIGCONT);
	/* The second's calls were dropped: a loss, said by exit status 3. */
	assert_int_equal(wait_status(rec), 3);
	kill(flood, SIGTERM);
	assert_int_equal(wait_status(flood), 0);
	while (fgets(line, sizeof(line), f))
		sscanf(line, "longest_gap_us %ld", &gap_us);
	fclose(f);
	/*
	 * A waiting writer would show the whole stop. Preemption on 2 busy
	 * cores is tens of ms, but this VM's host also takes its CPUs for a
	 * third of each 100 ms at times (DESIGN.md): once, in CI, 324 ms; an
	 * emulated CPU on a loaded host, 726 ms (6.1 guest): there the stop is
	 * 3 s and half of it the bound.
	 */
	assert_in_range(gap_us, 0, slowdown() > 1 ? stop_ms * 1000 / 2 : 600000);
	load_profile(out, &p);
	assert_true(must_pair(&p, "flood", 0)->count > 1000);
	/* The second's records, at least: a thread writes millions a second. */
	assert_true(meta_int(&p, "fast_records_dropped") > 1000000);
	assert_true(meta_int(&p, "lost_events") * 2 >= meta_int(&p, "fast_records_dropped"));
	/* Said as the fast path's loss, with its remedy, not as the kernel ring's. */
	assert_true(meta_int(&p, "lost_events_fast_path") * 2 >=
		    meta_int(&p, "fast_records_dropped"));
	assert_true(wait_for_text(err, "of them in the fast path"));
	assert_true(wait_for_text(err, "--buffer"));
	sb_profile_free(&p);
}

/* Records are counted exactly: every one written is either recorded or dropped. */
static void test_every_record_is_kept_or_counted(void **state)
{
	char out[300], path[512], line[64];
	long calls = -1;
	struct sb_profile p;
	int status;
	int fd = -1;
	FILE *f;
	char *argv[] = { (char *)scope_bin(), "record", "-q", "-o",
			 (char *)tmp_file("flood.h5", out, sizeof(out)), "--",
			 (char *)app_path("fast_flood", path, sizeof(path)), "4", "1", NULL };
	pid_t rec;

	(void)state;
	require_fast_path();
	rec = spawn(argv, NULL, &fd);
	f = fdopen(fd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		sscanf(line, "calls %ld", &calls);
	fclose(f);
	status = wait_status(rec);
	assert_true(calls > 0);
	load_profile(out, &p);
	assert_status_says_losses(status, &p);
	assert_int_equal(meta_int(&p, "fast_records") + meta_int(&p, "fast_records_dropped"),
			 2 * calls);
	/* Whole calls are dropped: each call is in the file or its two records were dropped. */
	assert_int_equal((int64_t)must_pair(&p, "flood", 0)->count * 2 +
			 meta_int(&p, "fast_records_dropped"), 2 * calls);
	assert_int_equal(meta_int(&p, "open_calls_dropped"), 0);
	assert_int_equal(meta_int(&p, "calls_open_at_start"), 0);
	sb_profile_free(&p);
}

/*
 * One thread of fast_flood for half a second, after idle seconds of quiet
 * ("0": none), recorded into name: (next to) every call is kept, and each is
 * in the file or its two records were dropped.
 */
static void flood_is_kept(const char *name, const char *idle, const char *what)
{
	char out[300], path[512], line[64];
	long calls = -1;
	struct sb_profile p;
	int fd = -1, status;
	FILE *f;
	char *argv[] = { (char *)scope_bin(), "record", "-q", "-o",
			 (char *)tmp_file(name, out, sizeof(out)), "--",
			 (char *)app_path("fast_flood", path, sizeof(path)), "1", "0.5", "0",
			 (char *)idle, NULL };
	pid_t rec;

	require_fast_path();
	rec = spawn(argv, NULL, &fd);
	f = fdopen(fd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		sscanf(line, "calls %ld", &calls);
	fclose(f);
	status = wait_status(rec);
	load_profile(out, &p);
	assert_status_says_losses(status, &p);
	fprintf(stderr, "%s: %ld calls, %lld records dropped\n", what, calls,
		(long long)meta_int(&p, "fast_records_dropped"));
	assert_true(calls > flood_floor());
	assert_true(meta_int(&p, "fast_records_dropped") * 20 < 2 * calls);
	assert_int_equal((int64_t)must_pair(&p, "flood", 0)->count * 2 +
			 meta_int(&p, "fast_records_dropped"), 2 * calls);
	sb_profile_free(&p);
}

/*
 * One thread writing empty regions flat out for half a second (ten million
 * calls and more, several times what the recorder nests meanwhile): the queue's
 * budget, sized from the memory the machine has, holds the backlog, so a
 * writer that does not outnumber the CPUs loses (next to) nothing. With the
 * old fixed 128 MiB queue, 94% were dropped. make bench measures it exactly.
 */
static void test_flood_of_one_thread_is_kept(void **state)
{
	(void)state;
	flood_is_kept("flood1.h5", "0", "flood of 1 thread");
}

/*
 * A flood that begins while the recorder sleeps (nothing written for a
 * second): the writer wakes the drainer as its ring passes half full, and
 * the flood is kept as one from the start is. A drainer that slept its
 * whole 50 ms would drop a tenth of this half second.
 */
static void test_flood_after_idle_wakes_the_drainer(void **state)
{
	(void)state;
	flood_is_kept("woken.h5", "1", "flood after idle");
}

/* Voluntary context switches of every thread of pid so far. */
static long context_switches(pid_t pid)
{
	char dir[64], path[384], line[128];
	struct dirent *de;
	long total = 0, n;
	DIR *d;
	FILE *f;

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/status", dir, de->d_name);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "voluntary_ctxt_switches: %ld", &n) == 1)
				total += n;
		if (f)
			fclose(f);
	}
	closedir(d);
	return total;
}

/*
 * Idle means idle: recording a process that made its fast-path memory and
 * then idles, the recorder's threads sleep until something happens (about
 * once a second, the loop's longest sleep; the drainer, its standby and the
 * warming thread not at all), not the 110 a second of 20-50 ms polls and
 * timers, nor the 5800 of fixed 50 us-2 ms polls, each of which took a CPU
 * from the program for a while. The quiet is counted from the app's "warm"
 * on, its one call made: where the CPU is emulated, loading takes seconds,
 * and a count from a fixed time measured the start-up.
 */
static void test_idle_recording_sleeps(void **state)
{
	char out[300], path[512], line[64];
	long before, after;
	int fd = -1;
	pid_t rec;
	FILE *f;
	char *argv[] = { (char *)scope_bin(), "record", "-q", "-d", "4.5", "-o",
			 (char *)tmp_file("idle.h5", out, sizeof(out)), "--",
			 (char *)app_path("fast_flood", path, sizeof(path)), "1", "0.01", "0", "6",
			 NULL };

	(void)state;
	require_fast_path();
	rec = spawn(argv, NULL, &fd);
	f = fdopen(fd, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "warm\n");
	/* The warmup call drained: then 1.5 quiet seconds. */
	sleep_ms(1000);
	before = context_switches(rec);
	sleep_ms(1500);
	after = context_switches(rec);
	assert_int_equal(wait_status(rec), 0);
	fclose(f);
	fprintf(stderr, "idle recording: %ld wake-ups a second\n", (after - before) * 2 / 3);
	assert_true((after - before) * 2 / 3 < 30);
}

/* 0, or -1 when the file cannot be written whole. */
static int write_file(const char *file, const char *text)
{
	int fd = open(file, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/*
 * -d during a flood under -p: the recording ends on time though its backlog
 * takes seconds to nest (nesting goes on a slice a turn, so the loop still
 * sees the clock), and what the thread drops after the end, while the
 * recorder nests, is not counted as lost: those records are not the
 * recording's.
 */
static void test_duration_holds_through_a_backlog(void **state)
{
	/* Emulated, attaching takes most of half a second (6.1 guest: 0.117 s of calls). */
	const char *duration = slowdown() > 1 ? "2" : "0.5";
	char out[300], pidstr[16];
	const struct sb_event *e;
	int64_t first = INT64_MAX, last = 0;
	struct sb_profile p;
	int status;
	pid_t flood;
	size_t i;
	FILE *f;

	(void)state;
	require_fast_path();
	flood = start_flood("1", "60", &f);
	snprintf(pidstr, sizeof(pidstr), "%d", (int)flood);
	{
		char *argv[] = { (char *)scope_bin(), "record", "-q", "-d", (char *)duration, "-p",
				 pidstr, "-o", (char *)tmp_file("backlog.h5", out, sizeof(out)),
				 NULL };

		status = run(argv);
	}
	kill(flood, SIGTERM);
	assert_int_equal(wait_status(flood), 0);
	fclose(f);
	load_profile(out, &p);
	assert_status_says_losses(status, &p);
	for (i = 0; i < p.n_events; i++) {
		e = &p.events[i];
		first = e->start < first ? e->start : first;
		last = e->end > last ? e->end : last;
	}
	fprintf(stderr, "backlog: %zu calls over %.3f s, %lld records dropped\n", p.n_events,
		(double)(last - first) / 1e9, (long long)meta_int(&p, "fast_records_dropped"));
	assert_true((long)p.n_events > flood_floor());
	assert_true(last - first < (int64_t)(2 * atof(duration) * 1000) * MS);
	assert_true(meta_int(&p, "fast_records_dropped") * 100 < meta_int(&p, "fast_records"));
	sb_profile_free(&p);
}

/* The thread of process pid named comm (/proc/PID/task/TID/comm), or 0. */
static pid_t thread_named(pid_t pid, const char *comm)
{
	char dir[64], path[384], name[32], want[32];
	struct dirent *de;
	pid_t tid = 0;
	DIR *d;

	snprintf(want, sizeof(want), "%s\n", comm);
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	d = opendir(dir);
	if (!d)
		return 0;
	while (!tid && (de = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%s/comm", dir, de->d_name);
		if (!strcmp(file_text(path, name, sizeof(name)), want))
			tid = (pid_t)atol(de->d_name);
	}
	closedir(d);
	return tid;
}

/*
 * Stop one thread (ptrace stops a thread, SIGSTOP a whole process) for ms,
 * as a host that takes its CPU would. Only a stop while it sleeps counts: one
 * in the middle of a pass is let go at once, since it would hold the pass's
 * lock and stall the standby too. true when it was held.
 */
static bool stall_sleeping_thread(pid_t tid, long ms)
{
	char path[64], text[64];
	bool asleep;
	long nr;
	int st;

	assert_int_equal(ptrace(PTRACE_INTERRUPT, tid, 0, 0), 0);
	assert_int_equal(waitpid(tid, &st, __WALL), tid);
	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)tid);
	nr = atol(file_text(path, text, sizeof(text)));
	/* Its sleeps: plain below a millisecond, else waiting for a writer's wake-up. */
	asleep = nr == SYS_clock_nanosleep || nr == SYS_nanosleep || nr == SYS_restart_syscall ||
		 nr == SYS_epoll_wait || nr == SYS_epoll_pwait;
	if (asleep)
		sleep_ms(ms);
	assert_int_equal(ptrace(PTRACE_CONT, tid, 0, 0), 0);
	return asleep;
}

/*
 * The drainer's CPU stops under it (this VM's host takes its CPUs for tens of
 * ms at a time, not both back at once) while a thread floods on another: the
 * standby drains on a CPU of its own. Without it each 40 ms stall would drop
 * about 3 M records.
 */
static void test_stalled_drainer_is_stood_in_for(void **state)
{
	char out[300], err[300], pidstr[16];
	struct sb_profile p;
	int status;
	pid_t flood, rec, drain;
	int held = 0, tries, st;
	FILE *f;

	(void)state;
	require_fast_path();
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		fprintf(stderr, "skipping: this machine has one CPU, the standby drainer needs two\n");
		skip();
	}
	flood = start_flood("1", "60", &f);
	snprintf(pidstr, sizeof(pidstr), "%d", (int)flood);
	{
		char *argv[] = { (char *)scope_bin(), "record", "-q", "-v", "-d", "2", "-p", pidstr,
				 "-o", (char *)tmp_file("stall.h5", out, sizeof(out)), NULL };

		rec = spawn(argv, tmp_file("stall.err", err, sizeof(err)), NULL);
	}
	assert_true(wait_for_text(err, "fast-path memory taken"));
	/*
	 * The drainer names itself once it runs, which an emulated CPU may do
	 * after the message (6.1 guest): looked for until then.
	 */
	for (tries = 0; !(drain = thread_named(rec, "sb-drain")) && tries < 100; tries++)
		sleep_ms(20 * slowdown());
	assert_true(drain > 0);
	assert_int_equal(ptrace(PTRACE_SEIZE, drain, 0, 0), 0);
	for (tries = 0; held < 5 && tries < 200; tries++) {
		held += stall_sleeping_thread(drain, 40);
		sleep_ms(held ? 60 : 1);
	}
	/* Detached from a stop: a thread that exits traced waits to be reaped, and its process with it. */
	assert_int_equal(ptrace(PTRACE_INTERRUPT, drain, 0, 0), 0);
	assert_int_equal(waitpid(drain, &st, __WALL), drain);
	assert_int_equal(ptrace(PTRACE_DETACH, drain, 0, 0), 0);
	status = wait_status(rec);
	kill(flood, SIGTERM);
	assert_int_equal(wait_status(flood), 0);
	fclose(f);
	load_profile(out, &p);
	assert_status_says_losses(status, &p);
	fprintf(stderr, "stalls: %d held in %d tries; %lld standby passes, %lld of %lld records dropped\n",
		held, tries, (long long)meta_int(&p, "fast_standby_passes"),
		(long long)meta_int(&p, "fast_records_dropped"), (long long)meta_int(&p, "fast_records"));
	assert_int_equal(held, 5);
	assert_true(meta_int(&p, "fast_standby_passes") > 0);
	/*
	 * The host's own stalls may still land inside a pass (0.7% in one CI
	 * run); the five stalls lost would be about 20%, 80% seen without it.
	 */
	assert_true(meta_int(&p, "fast_records_dropped") * 20 < meta_int(&p, "fast_records"));
	sb_profile_free(&p);
}

/*
 * A memory cgroup of this size, made for the test (v2, or v1's memory
 * controller), its folder in dir. false when this machine has none that
 * root can make.
 */
static bool make_memory_cgroup(const char *name, unsigned long long bytes, char *dir, size_t size)
{
	static const char *const tries[][3] = {
		{ "/sys/fs/cgroup", "memory.max", "memory.swap.max" },
		{ "/sys/fs/cgroup/memory", "memory.limit_in_bytes", NULL },
	};
	char file[600], num[32];
	size_t i;

	snprintf(num, sizeof(num), "%llu", bytes);
	for (i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		snprintf(dir, size, "%s/%s", tries[i][0], name);
		if (mkdir(dir, 0755) && errno != EEXIST)
			continue;
		snprintf(file, sizeof(file), "%s/%s", dir, tries[i][1]);
		if (write_file(file, num)) {
			rmdir(dir);
			continue;
		}
		if (tries[i][2]) {
			snprintf(file, sizeof(file), "%s/%s", dir, tries[i][2]);
			write_file(file, "0");
		}
		return true;
	}
	return false;
}

/*
 * A memory cgroup of bytes named name (its folder in dir), and in script a
 * shell line that moves itself there and runs its arguments. Where none can
 * be made the test skips, except under CI, where that is a failure.
 */
static void enter_memory_cgroup(const char *name, unsigned long long bytes, char *dir,
				size_t dir_size, char *script, size_t script_size)
{
	if (!make_memory_cgroup(name, bytes, dir, dir_size)) {
		if (!strcmp(env_or("CI", ""), "true"))
			fail_msg("no memory cgroup could be made (v2 memory.max or v1 memory controller)");
		fprintf(stderr, "skipping: no memory cgroup could be made here\n");
		skip();
	}
	snprintf(script, script_size, "echo $$ > %s/cgroup.procs && exec \"$@\"", dir);
}

/*
 * A job in a memory cgroup far smaller than the machine (a batch system's
 * job), recorded from inside it while one thread floods: the queue is sized
 * from what the cgroup allows and stops growing short of its limit, so
 * neither the recorder nor the job is killed for memory; what did not fit is
 * dropped and counted. Sized from the machine instead, the recorder took
 * 700 MiB here and the kernel killed it.
 */
static void test_small_cgroup_bounds_the_queue(void **state)
{
	char out[300], path[512], name[32], dir[400], script[600];
	struct sb_profile p;
	int status, i;

	(void)state;
	require_fast_path();
	snprintf(name, sizeof(name), "sb-test-%d", (int)getpid());
	enter_memory_cgroup(name, 768ull << 20, dir, sizeof(dir), script, sizeof(script));
	{
		char *argv[] = { "/bin/sh", "-c", script, "sh", (char *)scope_bin(), "record", "-q",
				 "-o", (char *)tmp_file("cgroup.h5", out, sizeof(out)), "--",
				 (char *)app_path("fast_flood", path, sizeof(path)), "1", "2", NULL };

		status = run(argv);
	}
	/* The recorder's guardian may outlive it a moment, still in the cgroup. */
	for (i = 0; i < 40 && rmdir(dir) && errno == EBUSY; i++)
		sleep_ms(50);
	load_profile(out, &p);
	assert_true((long)must_pair(&p, "flood", 0)->count > flood_floor());
	/* An emulated CPU slows the flood and the drainer alike: the queue may never fill. */
	if (slowdown() == 1)
		assert_true(meta_int(&p, "fast_records_dropped") > 0);
	assert_status_says_losses(status, &p);
	sb_profile_free(&p);
}

/* Calls of region name on every rank. */
static uint64_t calls_of(const struct sb_profile *p, const char *name)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < p->n_pairs; i++)
		if (!strcmp(p->regions[p->pairs[i].region].name, name))
			n += p->pairs[i].count;
	return n;
}

/*
 * Sixteen processes of eight threads flood with --buffer 32M in a 512 MiB
 * memory cgroup that holds the recorder and the job (their rings: 256 MiB):
 * every ring is full when they end. The last passes take what the rings hold
 * a queue's worth at a time, so the profile is written, and every call made
 * is in it or counted, process by process. The last pass once took what all
 * the rings held at once (2 MiB a thread, in the recorder's memory too): the
 * kernel killed the recorder and no file was written (at 640 MiB too).
 */
static void test_last_drain_keeps_to_the_budget_in_a_cgroup(void **state)
{
	char out[300], path[512], name[32], dir[400], script[600], line[64];
	int64_t refused, records, kept;
	struct sb_profile p;
	long calls = -1;
	int status, i, fd = -1, n;
	pid_t rec;
	FILE *f;

	(void)state;
	require_fast_path();
	snprintf(name, sizeof(name), "sb-test-last-%d", (int)getpid());
	enter_memory_cgroup(name, 512ull << 20, dir, sizeof(dir), script, sizeof(script));
	{
		char *argv[] = { "/bin/sh", "-c", script, "sh", (char *)scope_bin(), "record", "-q",
				 "--buffer", "32M", "-o",
				 (char *)tmp_file("last_drain.h5", out, sizeof(out)), "--",
				 (char *)app_path("fast_flood", path, sizeof(path)), "8", "1", "16",
				 NULL };

		rec = spawn(argv, NULL, &fd);
	}
	f = fdopen(fd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		sscanf(line, "calls %ld", &calls);
	fclose(f);
	status = wait_status(rec);
	for (i = 0; i < 40 && rmdir(dir) && errno == EBUSY; i++)
		sleep_ms(50);
	assert_true(calls > 0);
	load_profile(out, &p);
	/* Emulated, the rings may not fill: every call made is then in the file. */
	if (slowdown() == 1)
		assert_true(meta_int(&p, "fast_records_dropped") > 0);
	assert_status_says_losses(status, &p);
	/*
	 * Emulated, the recorder's heartbeat may go stale while sixteen
	 * processes announce their memory, and a process is then not held for
	 * it (the job is never frozen for a starved recorder): one that ends
	 * before its memory is taken is counted refused, its records with it
	 * (7.3 guest: 2 of 16). Natively every memory is taken.
	 */
	refused = meta_int(&p, "fast_memories_refused");
	if (slowdown() == 1)
		assert_int_equal(refused, 0);
	records = meta_int(&p, "fast_records") + meta_int(&p, "fast_records_dropped");
	/* A call whose begin was taken and its end not is an open call, its end a dropped record. */
	kept = (int64_t)calls_of(&p, "flood") * 2 + meta_int(&p, "fast_records_dropped") +
	       meta_int(&p, "open_calls_dropped");
	if (refused) {
		assert_true(records < 2 * calls);
		assert_true(kept < 2 * calls);
	} else {
		assert_int_equal(records, 2 * calls);
		assert_int_equal(kept, 2 * calls);
	}
	assert_int_equal(sum_by_process(&p, "fast_records_dropped_by_process", &n),
			 meta_int(&p, "fast_records_dropped"));
	if (meta_int(&p, "fast_records_dropped"))
		assert_in_range(n, 1, 16);
	else
		assert_int_equal(n, 0);
	assert_int_equal(meta_int(&p, "fast_counts_cut"), 0);
	sb_profile_free(&p);
}

/*
 * waiter for 30 s (longer where loading the programs is slower: it must
 * outlive two recordings), started and ready (its markers reachable); its
 * stdout is *out.
 */
static pid_t start_waiter(FILE **out)
{
	char path[512], line[64], life[16];
	char *waiter[] = { (char *)app_path("waiter", path, sizeof(path)), life, NULL };
	int fd = -1;
	pid_t pid;

	snprintf(life, sizeof(life), "%u", 30 * slowdown());
	pid = spawn(waiter, NULL, &fd);
	*out = fdopen(fd, "r");
	assert_non_null(*out);
	assert_non_null(fgets(line, sizeof(line), *out));
	return pid;
}

/* record -p pid for a second into tmp_dir/name, loaded into p: the fast path's calls are in. */
static void record_waiter(pid_t pid, const char *name, struct sb_profile *p)
{
	char out[300], pidstr[16];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "-d", "1", "-p", pidstr, "-o",
			 (char *)tmp_file(name, out, sizeof(out)), NULL };

	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	assert_int_equal(run(argv), 0);
	load_profile(out, p);
	assert_in_range(must_pair(p, "iter", 0)->count, 100, 1000);
	assert_true(meta_int(p, "fast_records") > 200);
}

static void stop_waiter(pid_t pid, FILE *f)
{
	kill(pid, SIGTERM);
	assert_int_equal(wait_status(pid), 0);
	fclose(f);
}

/* -p twice in a row: the second recording finds the memory the first one had it make. */
static void test_attach_again_reuses_the_memory(void **state)
{
	struct sb_profile p;
	int round;
	pid_t pid;
	FILE *f;

	(void)state;
	require_fast_path();
	pid = start_waiter(&f);
	for (round = 0; round < 2; round++) {
		record_waiter(pid, round ? "again2.h5" : "again1.h5", &p);
		assert_int_equal(meta_int(&p, "fast_records_invalid"), 0);
		sb_profile_free(&p);
	}
	stop_waiter(pid, f);
}

/* The calls timed_calls logged in file log that lie whole inside [from, to]. */
static int64_t calls_within(const char *log, int64_t from, int64_t to)
{
	int64_t t[2], n = 0;
	FILE *f = fopen(log, "rb");

	assert_non_null(f);
	while (fread(t, sizeof(t), 1, f) == 1)
		n += t[0] >= from && t[1] <= to;
	fclose(f);
	return n;
}

/*
 * -p twice into a process calling regions throughout: every call made inside
 * each recording is in its file or counted as dropped, the first (whose
 * memory is made while the probes attach and found at a sync) and the second
 * (an earlier recording's memory) alike. Records written between the start
 * and the memory's adoption were skipped uncounted (43-215 of 300 000).
 */
static void test_attach_window_loses_no_call(void **state)
{
	char path[512], log[300], out[2][300], line[64], pidstr[16];
	struct sb_profile p[2];
	int64_t made, kept;
	FILE *f;
	int fd = -1, i, status[2];
	/* Long enough for two recordings on a loaded host; ended once they are done. */
	char *app[] = { (char *)app_path("timed_calls", path, sizeof(path)), "60",
			(char *)tmp_file("timed.bin", log, sizeof(log)), NULL };
	char *argv[] = { (char *)scope_bin(), "record", "-q", "-d", "1", "-p", pidstr, "-o", NULL,
			 NULL };
	pid_t pid;

	(void)state;
	require_fast_path();
	pid = spawn(app, NULL, &fd);
	f = fdopen(fd, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	for (i = 0; i < 2; i++) {
		argv[8] = (char *)tmp_file(i ? "window2.h5" : "window1.h5", out[i], sizeof(out[i]));
		status[i] = run(argv);
	}
	kill(pid, SIGUSR1);
	assert_int_equal(wait_status(pid), 0);
	fclose(f);
	for (i = 0; i < 2; i++) {
		load_profile(out[i], &p[i]);
		made = calls_within(log, meta_int(&p[i], "start_time_ns"),
				    meta_int(&p[i], "finalize_time_ns"));
		kept = (int64_t)must_pair(&p[i], "timed", 0)->count +
		       meta_int(&p[i], "fast_records_dropped") / 2;
		fprintf(stderr, "attach %d: %lld calls made, %lld kept\n", i + 1, (long long)made,
			(long long)kept);
		assert_true(made > 10000);
		/*
		 * The host starving the recorder (CI, once) fills the ring: records
		 * dropped are a loss said by exit 3, and counted, so still add up.
		 */
		if (meta_int(&p[i], "fast_records_dropped"))
			assert_int_equal(status[i], 3);
		else
			assert_int_equal(status[i], 0);
		/* A call the start or the end cuts may be on either side of it. */
		assert_in_range(kept, made - 2, made + 2);
		sb_profile_free(&p[i]);
	}
}

/* A daemon closed its memfd: the next -p reaches the memory through the mapping that stays. */
static void test_closed_memfd_is_found_by_its_mapping(void **state)
{
	struct sb_profile p;
	char fds[64];
	pid_t pid;
	FILE *f;

	(void)state;
	require_fast_path();
	pid = start_waiter(&f);
	snprintf(fds, sizeof(fds), "/proc/%d/fd/3", (int)pid);
	record_waiter(pid, "closed1.h5", &p);
	assert_int_equal(meta_int(&p, "fast_memories_refused"), 0);
	sb_profile_free(&p);
	kill(pid, SIGUSR1);
	sleep_ms(100);
	assert_int_equal(access(fds, F_OK), -1);
	record_waiter(pid, "closed2.h5", &p);
	assert_int_equal(meta_int(&p, "fast_memories_refused"), 0);
	sb_profile_free(&p);
	stop_waiter(pid, f);
}

/*
 * 500 children forked without exec, 50 alive at once, each with its own
 * memory: each is held until the recorder took it, however far behind the
 * recorder is (a backlog once let a third of them exit unheld, refused).
 */
static void test_short_lived_children_are_all_kept(void **state)
{
	struct sb_profile p;
	char out[300];

	(void)state;
	require_fast_path();
	assert_int_equal(record_app(tmp_file("storm.h5", out, sizeof(out)), "fork_storm", "500",
				    "50", "1000", NULL), 0);
	load_profile(out, &p);
	if (calls_of(&p, "kid") != 500000)
		print_losses(&p);
	assert_int_equal(meta_int(&p, "fast_memories_refused"), 0);
	assert_int_equal(calls_of(&p, "kid"), 500000);
	sb_profile_free(&p);
}

/*
 * A child made by a raw clone system call runs no fork handler and inherits
 * its parent's thread-local view of a slot; it marks regions while its parent
 * does. Each process's calls are its own and all there: the child writes
 * memory of its own, never its parent's ring (rings of 20 000 calls never fill).
 */
static void test_raw_clone_child_keeps_its_own_calls(void **state)
{
	struct sb_profile p;
	char out[300];

	(void)state;
	require_fast_path();
	assert_int_equal(record_app(tmp_file("raw_clone.h5", out, sizeof(out)), "raw_clone",
				    "20000", NULL), 0);
	load_profile(out, &p);
	/* The parent's first call completes before the child exists: it is rank 0. */
	assert_int_equal(must_pair(&p, "parent", 0)->count, 20001);
	assert_int_equal(must_pair(&p, "child", 1)->count, 20000);
	assert_null(find_pair(&p, "child", 0));
	assert_null(find_pair(&p, "parent", 1));
	assert_int_equal(meta_int(&p, "lost_events"), 0);
	assert_int_equal(meta_int(&p, "fast_records_invalid"), 0);
	assert_int_equal(meta_int(&p, "unmatched_region_ends"), 0);
	if (fast_mode())
		assert_int_equal(meta_int(&p, "fast_records"), 2 * (20001 + 20000));
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_current_header_takes_the_fast_path),
		cmocka_unit_test(test_kernel_mode_and_older_headers_trap),
		cmocka_unit_test(test_kernel_mode_right_after_a_fast_recording),
		cmocka_unit_test(test_hostile_target_cannot_hurt_the_recorder),
		cmocka_unit_test(test_stopped_recorder_never_stalls_the_program),
		cmocka_unit_test(test_flood_of_one_thread_is_kept),
		cmocka_unit_test(test_flood_after_idle_wakes_the_drainer),
		cmocka_unit_test(test_idle_recording_sleeps),
		cmocka_unit_test(test_duration_holds_through_a_backlog),
		cmocka_unit_test(test_stalled_drainer_is_stood_in_for),
		cmocka_unit_test(test_small_cgroup_bounds_the_queue),
		cmocka_unit_test(test_last_drain_keeps_to_the_budget_in_a_cgroup),
		cmocka_unit_test(test_every_record_is_kept_or_counted),
		cmocka_unit_test(test_attach_again_reuses_the_memory),
		cmocka_unit_test(test_attach_window_loses_no_call),
		cmocka_unit_test(test_closed_memfd_is_found_by_its_mapping),
		cmocka_unit_test(test_short_lived_children_are_all_kept),
		cmocka_unit_test(test_raw_clone_child_keeps_its_own_calls),
	};

	return cmocka_run_group_tests_name("fast", tests, setup_tmp, teardown_tmp);
}
