/* Integration: record the test apps with real BPF and check the numbers in the file. */
#include <sys/prctl.h>
#include <sys/stat.h>

#include "harness.h"

static void test_call_counts_and_parents(void **state)
{
	struct sb_profile p;
	const struct sb_pair *tick, *outer;
	char out[300];
	size_t i;

	(void)state;
	require_bpf();
	assert_int_equal(record_app(tmp_file("count.h5", out, sizeof(out)), "count", "1000", NULL), 0);
	load_profile(out, &p);
	tick = must_pair(&p, "tick", 0);
	outer = must_pair(&p, "outer", 0);
	assert_int_equal(tick->count, 1000);
	assert_int_equal(outer->count, 1);
	assert_int_equal(p.n_regions, 2);
	for (i = tick->offset; i < tick->offset + tick->count; i++) {
		assert_string_equal(parent_region(&p, 0, &p.events[i]), "outer");
		assert_true(p.events[i].start >= p.events[outer->offset].start);
		assert_true(p.events[i].end <= p.events[outer->offset].end);
		if (i > tick->offset)
			assert_true(p.events[i].start >= p.events[i - 1].start);
	}
	assert_null(parent_region(&p, 0, &p.events[outer->offset]));
	/* Exclusive time of outer is its total minus all ticks, exactly. */
	assert_int_equal(outer->exclusive_total, outer->stats.total - tick->stats.total);
	assert_int_equal(meta_int(&p, "lost_events"), 0);
	assert_int_equal(meta_int(&p, "mpi_size"), 1);
	sb_profile_free(&p);
}

static void test_durations_and_offcpu(void **state)
{
	const struct sb_pair *sleep50, *spin;
	int64_t spin_off = 0, spin_total = 0, sleep_off = 0, sleep_total = 0;
	struct sb_profile p;
	char out[300];
	size_t i;

	(void)state;
	require_bpf();
	assert_int_equal(record_app(tmp_file("sleeper.h5", out, sizeof(out)), "sleeper", NULL), 0);
	load_profile(out, &p);
	sleep50 = must_pair(&p, "sleep50", 0);
	spin = must_pair(&p, "spin", 0);
	assert_int_equal(sleep50->count, 3);
	assert_int_equal(spin->count, 3);
	assert_true(p.columns & SB_COL_OFFCPU);
	for (i = sleep50->offset; i < sleep50->offset + 3; i++) {
		int64_t d = p.events[i].end - p.events[i].start;

		/* 50 ms: a unit error (us, ms) would miss this window by 1000x. */
		assert_in_range(d, 50 * MS, 90 * MS);
		assert_true(p.events[i].metric[SB_METRIC_OFFCPU] * 10 >= d * 8);
	}
	/*
	 * Spinning is on-CPU except where the scheduler preempts it, which on a
	 * loaded 2-core machine can be much of the time: only require that it ran
	 * at all and blocked clearly less than the sleeping region did.
	 */
	for (i = spin->offset; i < spin->offset + 3; i++) {
		int64_t d = p.events[i].end - p.events[i].start;

		assert_in_range(d, 20 * MS, 80 * MS);
		assert_true(p.events[i].metric[SB_METRIC_OFFCPU] * 10 < d * 9);
		spin_off += p.events[i].metric[SB_METRIC_OFFCPU];
		spin_total += d;
	}
	for (i = sleep50->offset; i < sleep50->offset + 3; i++) {
		sleep_off += p.events[i].metric[SB_METRIC_OFFCPU];
		sleep_total += p.events[i].end - p.events[i].start;
	}
	assert_true((double)sleep_off / sleep_total > (double)spin_off / spin_total + 0.1);
	sb_profile_free(&p);
}

static void test_nesting_recursion_pairs_tags(void **state)
{
	const struct sb_pair *a, *b, *c, *fib, *manual, *tagged;
	struct sb_profile p;
	char out[300];
	size_t i, roots = 0;

	(void)state;
	require_bpf();
	assert_int_equal(record_app(tmp_file("nested.h5", out, sizeof(out)), "nested", NULL), 0);
	load_profile(out, &p);
	a = must_pair(&p, "a", 0);
	b = must_pair(&p, "b", 0);
	c = must_pair(&p, "c", 0);
	fib = must_pair(&p, "fib", 0);
	manual = must_pair(&p, "manual", 0);
	tagged = must_pair(&p, "tagged", 0);
	assert_int_equal(a->count, 5);
	assert_int_equal(b->count, 10);
	assert_int_equal(c->count, 30);
	assert_int_equal(fib->count, 177);
	assert_int_equal(manual->count, 1);
	assert_int_equal(tagged->count, 1);
	assert_string_equal(p.regions[tagged->region].tags, "[\"io\",\"golden\"]");
	for (i = b->offset; i < b->offset + b->count; i++)
		assert_string_equal(parent_region(&p, 0, &p.events[i]), "a");
	for (i = c->offset; i < c->offset + c->count; i++)
		assert_string_equal(parent_region(&p, 0, &p.events[i]), "b");
	/* Recursion: one top-level fib, every other fib call's parent is a fib. */
	for (i = fib->offset; i < fib->offset + fib->count; i++) {
		const char *parent = parent_region(&p, 0, &p.events[i]);

		if (!parent || strcmp(parent, "fib"))
			roots++;
	}
	assert_int_equal(roots, 1);
	assert_true(manual->stats.minimum >= 2 * MS);
	assert_int_equal(b->exclusive_total, b->stats.total - c->stats.total);
	assert_true(a->exclusive_total >= 0 && a->exclusive_total < a->stats.total);
	assert_int_equal(a->exclusive_total, a->stats.total - b->stats.total);
	assert_true(p.regions[a->region].source_line > 0);
	assert_non_null(strstr(p.regions[a->region].source_file, "nested.c"));
	sb_profile_free(&p);
}

static void test_eight_threads(void **state)
{
	const struct sb_pair *work;
	struct sb_profile p;
	int64_t seen[64];
	size_t i, j, n_seen = 0, workers = 0;
	char out[300];

	(void)state;
	require_bpf();
	assert_int_equal(record_app(tmp_file("threads.h5", out, sizeof(out)), "threads", NULL), 0);
	load_profile(out, &p);
	work = must_pair(&p, "work", 0);
	if (work->count != 800)
		print_losses(&p);
	assert_int_equal(work->count, 800);
	assert_int_equal(must_pair(&p, "main", 0)->count, 1);
	assert_true(p.columns & SB_COL_THREAD);
	for (i = work->offset; i < work->offset + work->count; i++) {
		for (j = 0; j < n_seen && seen[j] != p.events[i].thread; j++)
			;
		if (j == n_seen && n_seen < 64)
			seen[n_seen++] = p.events[i].thread;
		assert_in_range(p.events[i].thread, 0, (int64_t)p.n_threads - 1);
	}
	assert_int_equal(n_seen, 8);
	for (i = 0; i < p.n_threads; i++) {
		assert_int_equal(p.threads[i].rank, 0);
		assert_int_equal(p.threads[i].index, (int64_t)i);
		workers += !strncmp(p.threads[i].name, "worker-", 7);
	}
	if (workers != 8)
		for (i = 0; i < p.n_threads; i++)
			printf("  thread %zu: '%s' tid %lld end %lld cpu %lld\n", i, p.threads[i].name,
			       (long long)p.threads[i].tid, (long long)p.threads[i].end_ns,
			       (long long)p.threads[i].cpu_ns);
	assert_int_equal(workers, 8);
	assert_true(p.n_threads >= 9);
	sb_profile_free(&p);
}

static void test_shared_library_regions(void **state)
{
	struct sb_profile p;
	char out[300];

	(void)state;
	require_bpf();
	assert_int_equal(record_app(tmp_file("lib.h5", out, sizeof(out)), "libuser", NULL), 0);
	load_profile(out, &p);
	assert_int_equal(must_pair(&p, "lib_compute", 0)->count, 50);
	assert_int_equal(must_pair(&p, "lib_inner", 0)->count, 50);
	assert_int_equal(must_pair(&p, "app_main", 0)->count, 1);
	sb_profile_free(&p);
}

/* Start waiter, read its "ready" line, return its pid. */
static pid_t start_waiter(const char *seconds)
{
	char path[512];
	char *argv[] = { (char *)app_path("waiter", path, sizeof(path)), (char *)seconds, NULL };

	return start_saying(argv, "ready");
}

static void test_attach_to_running_process(void **state)
{
	char out[300], pidstr[16];
	const struct sb_pair *iter;
	struct sb_profile p;
	pid_t pid;

	(void)state;
	require_bpf();
	pid = start_waiter("30");
	/* Let it run a while untraced first: attach must find it mid-flight. */
	sleep_ms(300);
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	{
		char *argv[] = { (char *)scope_bin(), "record", "-q", "-d", "1", "-p", pidstr, "-o",
				 (char *)tmp_file("attach.h5", out, sizeof(out)), NULL };

		assert_int_equal(run(argv), 0);
	}
	kill(pid, SIGTERM);
	assert_int_equal(wait_status(pid), 0);
	load_profile(out, &p);
	iter = must_pair(&p, "iter", 0);
	/* ~2 ms per iteration over 1 s; generous for a slow VM, but never zero. */
	assert_in_range(iter->count, 100, 1000);
	assert_true(p.processes[0].pid == pid);
	sb_profile_free(&p);
}

/*
 * scope-bpf record -q -o out -- waiter (runs until stopped), in the background;
 * returns once the waiter runs traced ("ready"): loading can take seconds on a
 * busy machine, and a signal before that only stops the start.
 */
static pid_t record_waiter(const char *out)
{
	char path[512], line[64];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "-o", (char *)out, "--",
			 (char *)app_path("waiter", path, sizeof(path)), NULL };
	int fd = -1;
	pid_t pid = spawn(argv, NULL, &fd);
	FILE *f = fdopen(fd, "r");

	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "ready\n");
	fclose(f);
	return pid;
}

/* The child of parent whose name is comm, the one this test started; 0 when none. */
static pid_t child_named(pid_t parent, const char *comm)
{
	char path[64], name[32];
	pid_t child, found = 0;
	FILE *kids, *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)parent, (int)parent);
	kids = fopen(path, "r");
	if (!kids)
		return 0;
	while (!found && fscanf(kids, "%d", &child) == 1) {
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)child);
		f = fopen(path, "r");
		if (f && fgets(name, sizeof(name), f) && !strncmp(name, comm, strlen(comm)) &&
		    name[strlen(comm)] == '\n')
			found = child;
		if (f)
			fclose(f);
	}
	fclose(kids);
	return found;
}

static void test_killed_target_leaves_valid_file(void **state)
{
	struct sb_profile p;
	char out[300];
	pid_t rec, target;

	(void)state;
	require_bpf();
	rec = record_waiter(tmp_file("killed.h5", out, sizeof(out)));
	sleep_ms(1000);
	/* By PID: the waiter the recorder launched, never another process of that name. */
	target = child_named(rec, "waiter");
	assert_true(target > 0);
	assert_int_equal(kill(target, SIGKILL), 0);
	assert_int_equal(wait_status(rec), 128 + SIGKILL);
	load_profile(out, &p);
	assert_true(must_pair(&p, "iter", 0)->count > 10);
	assert_int_equal(p.processes[0].exit_code & 0x7f, SIGKILL);
	sb_profile_free(&p);
}

static void test_sigterm_stops_and_writes(void **state)
{
	struct sb_profile p;
	char out[300];
	pid_t rec;

	(void)state;
	require_bpf();
	rec = record_waiter(tmp_file("term.h5", out, sizeof(out)));
	sleep_ms(800);
	kill(rec, SIGTERM);
	/* The command is asked to end, ends cleanly (exit 0), and the file is written. */
	assert_int_equal(wait_status(rec), 0);
	load_profile(out, &p);
	assert_true(must_pair(&p, "iter", 0)->count > 10);
	sb_profile_free(&p);
}

static void test_children_and_exec_are_followed(void **state)
{
	const struct sb_pair *child0, *child1, *tick;
	struct sb_profile p;
	char out[300];
	uint32_t r;

	(void)state;
	require_bpf();
	assert_int_equal(record_app(tmp_file("forker.h5", out, sizeof(out)), "forker", NULL), 0);
	load_profile(out, &p);
	/* Rank 0 is the parent: its own region, then 7 ticks after exec'ing count. */
	assert_int_equal(must_pair(&p, "parent_work", 0)->count, 1);
	tick = must_pair(&p, "tick", 0);
	assert_int_equal(tick->count, 7);
	assert_int_equal(must_pair(&p, "outer", 0)->count, 1);
	assert_int_equal(sb_profile_rank_count(&p), 3);
	for (r = 1; r < 3; r++)
		assert_null(find_pair(&p, "parent_work", r));
	child0 = must_pair(&p, "child_work", 1);
	child1 = must_pair(&p, "child_work", 2);
	assert_int_equal(child0->count, 10);
	assert_int_equal(child1->count, 10);
	assert_int_equal(meta_int(&p, "unresolved_sites"), 0);
	assert_int_equal(meta_int(&p, "invalid_sites"), 0);
	/* Nothing refused, but what needs attach cookies on a kernel without them (5.10). */
	if (!strstr(meta_str(&p, "kernel_fallbacks"), "attach_cookie"))
		assert_string_equal(meta_str(&p, "sources_disabled"), "");
	/*
	 * Marker programs that may not fault pages in cannot read a forked
	 * child's sites (fork copies no page of an untouched file mapping): the
	 * recorder names them, and no call is lost.
	 */
	if (kernel_feature_off("sleepable") && !fast_mode()) {
		assert_true(meta_int(&p, "sites_named_by_recorder") > 0);
		assert_non_null(strstr(meta_str(&p, "kernel_fallbacks"), "sleepable"));
	}
	sb_profile_free(&p);
}

static void test_exit_status_is_the_commands(void **state)
{
	char out[300], err[1024];
	char *sh[] = { (char *)scope_bin(), "record", "-q", "-o",
		       (char *)tmp_file("sh.h5", out, sizeof(out)), "--", "/bin/sh", "-c", "exit 3",
		       NULL };
	char *missing[] = { (char *)scope_bin(), "record", "-q", "-o", out, "--",
			    "no-such-command-xyz", NULL };

	(void)state;
	require_bpf();
	assert_int_equal(run(sh), 3);
	assert_int_equal(run(missing), 127);
	read_stderr(err, sizeof(err));
	assert_non_null(strstr(err, "no-such-command-xyz: command not found"));
}

static void test_bad_targets_are_reported(void **state)
{
	char out[300], err[1024], path[512], pidstr[16];
	char *gone[] = { (char *)scope_bin(), "record", "-p", "999999", "-o",
			 (char *)tmp_file("x.h5", out, sizeof(out)), NULL };
	/* Alive well past the load, which takes seconds under emulation (the kernel matrix). */
	char *plain[] = { (char *)app_path("nomarkers", path, sizeof(path)), "120", NULL };
	pid_t pid;

	char *device[] = { (char *)scope_bin(), "record", "-o", "/dev/null", "--", "/bin/true", NULL };
	struct stat st;

	(void)state;
	require_bpf();
	/* Profiles are renamed into place: a device must be refused, not replaced. */
	assert_int_equal(run(device), 2);
	read_stderr(err, sizeof(err));
	assert_non_null(strstr(err, "/dev/null: exists and is not a regular file"));
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(run(gone), 2);
	read_stderr(err, sizeof(err));
	assert_non_null(strstr(err, "process 999999: no such process"));

	pid = spawn(plain, NULL, NULL);
	sleep_ms(200);
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	{
		char *argv[] = { (char *)scope_bin(), "record", "-p", pidstr, "-o", out, NULL };

		assert_int_equal(run(argv), 2);
	}
	kill(pid, SIGKILL);
	wait_status(pid);
	read_stderr(err, sizeof(err));
	assert_non_null(strstr(err, "no scope_bpf probes"));
	assert_non_null(strstr(err, "scope_bpf.h"));

	/* A zombie's maps are empty: it is said to have exited, not to lack markers. */
	pid = fork();
	if (!pid)
		_exit(0);
	sleep_ms(200);
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	{
		char *argv[] = { (char *)scope_bin(), "record", "-p", pidstr, "-o", out, NULL };

		assert_int_equal(run(argv), 2);
	}
	wait_status(pid);
	read_stderr(err, sizeof(err));
	assert_non_null(strstr(err, "has exited (a zombie"));
}

static void test_unprivileged_user_is_told_what_is_missing(void **state)
{
	char out[300], err[1024];
	char *argv[] = { "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
			 (char *)scope_bin(), "record", "-o", (char *)tmp_file("u.h5", out, sizeof(out)),
			 "--", "/bin/true", NULL };

	(void)state;
	require_bpf();
	assert_int_equal(access(argv[0], X_OK), 0);
	assert_int_equal(run(argv), 1);
	read_stderr(err, sizeof(err));
	assert_non_null(strstr(err, "needs root: run with sudo"));
	assert_int_equal(access(out, F_OK), -1);
}

/*
 * A copy of scope-bpf with file capabilities, in a folder nobody (65534) can
 * use; 0, or -1 where setcap cannot give them (no setcap, nosuid /tmp).
 */
static int capable_copy(const char *caps, char *dir, size_t size, char *bin, size_t bin_size)
{
	char cmd[1200];

	snprintf(dir, size, "/tmp/scope-bpf-caps.XXXXXX");
	if (!mkdtemp(dir) || chmod(dir, 01777))
		return -1;
	snprintf(bin, bin_size, "%s/scope-bpf", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && chmod 755 '%s' && setcap %s+ep '%s'",
		 scope_bin(), bin, bin, caps, bin);
	return system(cmd) ? -1 : 0;
}

static void remove_copy(const char *dir)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * The capabilities README names once were not enough: programs loaded, every
 * probe was refused, and the recording said "no probes" and exited 0. Now
 * it is refused at start, saying why; the setup docs/PRIVILEGES.md names works.
 */
static void test_file_capabilities_work_or_are_refused(void **state)
{
	char dir[64], bin[128], out[200], app[300], err[2048];
	char *argv[] = { "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
			 "--inh-caps=-all", bin, "record", "-q", "-o", out, "--", app, "10", NULL };
	struct sb_profile p;

	(void)state;
	require_bpf();
	app_path("count", app, sizeof(app));
	assert_int_equal(capable_copy("cap_bpf,cap_perfmon,cap_sys_ptrace", dir, sizeof(dir), bin,
				      sizeof(bin)), 0);
	snprintf(out, sizeof(out), "%s/few.h5", dir);
	assert_int_equal(run(argv), 1);
	read_stderr(err, sizeof(err));
	assert_non_null(strstr(err, "refused to create a uprobe"));
	assert_non_null(strstr(err, "CAP_SYS_ADMIN"));
	assert_int_equal(access(out, F_OK), -1);
	remove_copy(dir);

	assert_int_equal(capable_copy("cap_sys_admin,cap_bpf,cap_perfmon,cap_sys_ptrace", dir,
				      sizeof(dir), bin, sizeof(bin)), 0);
	snprintf(out, sizeof(out), "%s/enough.h5", dir);
	assert_int_equal(run(argv), 0);
	load_profile(out, &p);
	assert_int_equal(must_pair(&p, "tick", 0)->count, 10);
	sb_profile_free(&p);
	remove_copy(dir);
}

/*
 * record ... 2>&1 | cat: the reader sees the end when the recorder ends, not
 * a second later when its guardian has closed the probes (it kept stderr).
 * The guardian, adopted here, must still be at work when the pipe closes.
 */
static void test_pipe_closes_when_record_ends(void **state)
{
	char out[300], app[300], buf[256];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "-o", out, "--", app, "10", NULL };
	siginfo_t info = { 0 };
	int fds[2], status;
	pid_t rec;

	(void)state;
	require_bpf();
	tmp_file("pipe.h5", out, sizeof(out));
	app_path("count", app, sizeof(app));
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	assert_int_equal(pipe(fds), 0);
	rec = fork();
	if (!rec) {
		dup2(fds[1], STDERR_FILENO);
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	assert_int_equal(waitpid(rec, &status, 0), rec);
	assert_int_equal(WEXITSTATUS(status), 0);
	alarm(30);
	while (read(fds[0], buf, sizeof(buf)) > 0)
		;
	alarm(0);
	/* No child has ended yet: the guardian outlives the pipe (its last sweeps take 0.6 s). */
	assert_int_equal(waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT), 0);
	assert_int_equal(info.si_pid, 0);
	close(fds[0]);
	while (wait(NULL) > 0)
		;
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
}

/* -o -: the profile is the standard output, and the command's own output goes to stderr. */
static void test_profile_to_standard_output(void **state)
{
	char app[300], script[400], out[300], err_path[300], err[4096];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "-o", "-", "--", "/bin/sh", "-c",
			 script, NULL };
	struct sb_profile p;
	pid_t pid;
	int fd;

	(void)state;
	require_bpf();
	snprintf(script, sizeof(script), "echo said-by-the-command; exec %s 10",
		 app_path("count", app, sizeof(app)));
	tmp_file("stdout.h5", out, sizeof(out));
	tmp_file("stderr.txt", err_path, sizeof(err_path));
	pid = fork();
	if (!pid) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, STDOUT_FILENO);
		fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, STDERR_FILENO);
		execv(argv[0], argv);
		_exit(127);
	}
	assert_int_equal(wait_status(pid), 0);
	load_profile(out, &p);
	assert_int_equal(must_pair(&p, "tick", 0)->count, 10);
	sb_profile_free(&p);
	read_stderr(err, sizeof(err));
	assert_non_null(strstr(err, "said-by-the-command"));
	assert_false(access("-", F_OK) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_call_counts_and_parents),
		cmocka_unit_test(test_durations_and_offcpu),
		cmocka_unit_test(test_nesting_recursion_pairs_tags),
		cmocka_unit_test(test_eight_threads),
		cmocka_unit_test(test_shared_library_regions),
		cmocka_unit_test(test_attach_to_running_process),
		cmocka_unit_test(test_killed_target_leaves_valid_file),
		cmocka_unit_test(test_sigterm_stops_and_writes),
		cmocka_unit_test(test_children_and_exec_are_followed),
		cmocka_unit_test(test_exit_status_is_the_commands),
		cmocka_unit_test(test_bad_targets_are_reported),
		cmocka_unit_test(test_unprivileged_user_is_told_what_is_missing),
		cmocka_unit_test(test_file_capabilities_work_or_are_refused),
		cmocka_unit_test(test_pipe_closes_when_record_ends),
		cmocka_unit_test(test_profile_to_standard_output),
	};

	return cmocka_run_group_tests_name("record", tests, setup_tmp, teardown_tmp);
}
