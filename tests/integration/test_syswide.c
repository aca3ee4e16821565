/*
 * Integration: record -a, the recorder a job's launcher starts once per node.
 * Recorders started before the job trace its ranks from their first
 * instruction and leave the launchers alone; rank filters split one run
 * between recorders, and their files merged equal one recorder's profile.
 */
#include <stdbool.h>

#include "harness.h"

#define RANKS 4
#define READY_MS 60000
#define IDLE_MS 120000
/* tests/apps/mpi_calls.c, per rank: MPI calls (test_mpi_calls.c) and user regions. */
#define MPI_CALLS_PER_RANK 24
#define USER_CALLS_PER_RANK 6	/* exchange 3, shift, reduce, nonblocking */

struct recorder {
	pid_t pid;
	char err[300];
};

/* Whether a line of the file holds text (-v writes thousands of lines: read them all). */
static bool file_says(const char *path, const char *text)
{
	char line[4096];
	bool found = false;
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, text) != NULL;
	fclose(f);
	return found;
}

/* Whether the file holds the line the recorder says once it traces. */
static bool says_ready(const char *path)
{
	return file_says(path, "scope-bpf: recording system-wide");
}

/* scope-bpf record -a --until-idle -o out, extra options (NULL-terminated), in the background. */
static void start_recorder(struct recorder *r, const char *name, const char *out, ...)
{
	char *argv[32];
	int n = 0, waited;
	va_list ap;

	argv[n++] = (char *)scope_bin();
	argv[n++] = "record";
	argv[n++] = "-a";
	argv[n++] = "--until-idle";
	argv[n++] = "-o";
	argv[n++] = (char *)out;
	va_start(ap, out);
	while (n < 31 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	tmp_file(name, r->err, sizeof(r->err));
	r->pid = spawn(argv, r->err, NULL);
	assert_true(r->pid > 0);
	for (waited = 0; !says_ready(r->err); waited += 20) {
		if (waited > READY_MS || waitpid(r->pid, NULL, WNOHANG) == r->pid)
			fail_msg("the recorder did not start (%s)", r->err);
		sleep_ms(20);
	}
}

/* The recorder ends by itself once the traced processes did: its exit status. */
static int wait_idle(struct recorder *r)
{
	int waited, st;

	for (waited = 0; waited < IDLE_MS; waited += 20) {
		if (waitpid(r->pid, &st, WNOHANG) == r->pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		sleep_ms(20);
	}
	kill(r->pid, SIGKILL);
	waitpid(r->pid, NULL, 0);
	fail_msg("the recorder did not stop once the job ended (%s)", r->err);
	return -1;
}

static int run_job(const char *app_name)
{
	char app[512];
	char *argv[] = { "/usr/bin/env", (char *)mpiexec_mpich(), "-n", "4",
			 (char *)app_path(app_name, app, sizeof(app)), NULL };
	char err[300], said[4096] = "";
	int waited, st;
	FILE *f;
	pid_t job;

	job = spawn(argv, tmp_file("job.txt", err, sizeof(err)), NULL);
	for (waited = 0; waited < IDLE_MS; waited += 20) {
		if (waitpid(job, &st, WNOHANG) == job)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		sleep_ms(20);
	}
	/* A job held by recorders that never let it go: fail, do not hang the suite. */
	kill(job, SIGTERM);
	sleep_ms(2000);
	kill(job, SIGKILL);
	waitpid(job, NULL, 0);
	f = fopen(err, "r");
	if (f) {
		said[fread(said, 1, sizeof(said) - 1, f)] = 0;
		fclose(f);
	}
	fail_msg("the job did not end in %d s: %s", IDLE_MS / 1000, said);
	return -1;
}

static uint64_t calls_on(const struct sb_profile *p, uint32_t rank, bool mpi)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < p->n_pairs; i++)
		if (p->pairs[i].rank == rank &&
		    !strncmp(p->regions[p->pairs[i].region].name, "mpi:", 4) == mpi)
			n += p->pairs[i].count;
	return n;
}

/* Rank r's sends go to (r+1)%4: the profile's rank is the MPI rank. */
static void check_mpi_rank(const struct sb_profile *p, uint32_t rank)
{
	char name[256];

	snprintf(name, sizeof(name),
		 "mpi:send kind=point-to-point bytes=800 peer=%u root=-1 tag=7 comm=%d",
		 (rank + 1) % RANKS, 0x44000000);
	assert_int_equal(must_pair(p, name, rank)->count, 3);
}

/* Only the app's processes, no launcher, no helper; every one a rank. */
static void check_only_app(const struct sb_profile *p, const char *app)
{
	size_t i;

	for (i = 0; i < p->n_processes; i++) {
		if (!strstr(p->processes[i].command, app))
			fail_msg("process %lld (%s) was traced", (long long)p->processes[i].pid,
				 p->processes[i].command);
	}
}

static void test_job_recorded_from_outside(void **state)
{
	struct recorder r;
	struct sb_profile p;
	char out[300], app[512];
	uint32_t rank;

	(void)state;
	require_bpf();
	start_recorder(&r, "a.err", tmp_file("a.h5", out, sizeof(out)), "--exe",
		       app_path("mpi_calls", app, sizeof(app)), NULL);
	assert_int_equal(run_job("mpi_calls"), 0);
	assert_int_equal(wait_idle(&r), 0);
	load_profile(out, &p);
	assert_int_equal(p.n_processes, RANKS);
	check_only_app(&p, "mpi_calls");
	assert_int_equal(meta_int(&p, "mpi_size"), RANKS);
	for (rank = 0; rank < RANKS; rank++) {
		assert_int_equal(calls_on(&p, rank, true), MPI_CALLS_PER_RANK);
		assert_int_equal(calls_on(&p, rank, false), USER_CALLS_PER_RANK);
		check_mpi_rank(&p, rank);
	}
	sb_profile_free(&p);
}

/*
 * A copy of an app under a name no other process on this machine has (other
 * test runs may be running the apps at the same time): its comm.
 */
static const char *private_copy(const char *app_name, char *path, size_t size, char *comm,
				size_t comm_size)
{
	char app[512], cmd[1200];

	snprintf(comm, comm_size, "sb%d", (int)getpid());
	tmp_file(comm, path, size);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", app_path(app_name, app, sizeof(app)), path);
	assert_int_equal(system(cmd), 0);
	return path;
}

/* --comm: a process with probes under another name runs first, and is not traced. */
static void test_comm_filter(void **state)
{
	char out[300], app[512], err[300], nested[512], comm[16];
	char *other[] = { (char *)app_path("count", app, sizeof(app)), "50", NULL };
	char *wanted[] = { NULL, NULL };
	struct recorder r;
	struct sb_profile p;

	(void)state;
	require_bpf();
	wanted[0] = (char *)private_copy("nested", nested, sizeof(nested), comm, sizeof(comm));
	start_recorder(&r, "c.err", tmp_file("c.h5", out, sizeof(out)), "--comm", comm, NULL);
	assert_int_equal(wait_status(spawn(other, tmp_file("o.txt", err, sizeof(err)), NULL)), 0);
	assert_int_equal(wait_status(spawn(wanted, tmp_file("n.txt", err, sizeof(err)), NULL)), 0);
	assert_int_equal(wait_idle(&r), 0);
	load_profile(out, &p);
	assert_int_equal(p.n_processes, 1);
	check_only_app(&p, comm);
	assert_int_equal(must_pair(&p, "a", 0)->count, 5);
	assert_int_equal(must_pair(&p, "c", 0)->count, 30);
	assert_null(find_pair(&p, "tick", 0));
	sb_profile_free(&p);
}

/* A copy of an app under its own name in the test's folder: a file no recorder has judged. */
static const char *fresh_copy(const char *app_name, const char *name, char *path, size_t size)
{
	char app[512], cmd[1200];

	tmp_file(name, path, size);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", app_path(app_name, app, sizeof(app)), path);
	assert_int_equal(system(cmd), 0);
	return path;
}

/* Whether the recorder's stderr says pid was held at its exec. */
static bool said_held(const char *err_path, pid_t pid)
{
	char line[64];

	snprintf(line, sizeof(line), "process %d: held at its exec", (int)pid);
	return file_says(err_path, line);
}

/*
 * -a --exe holds no other program at its exec, not even once: the kernel
 * knows the file's inode. Without --exe, a file never seen is held once.
 */
static void test_exe_holds_no_other_program(void **state)
{
	char out[300], err[300], other[512], wanted[512];
	char *run_other[] = { other, NULL };
	char *run_wanted[] = { wanted, NULL };
	struct recorder r;
	pid_t pid;

	(void)state;
	require_bpf();
	fresh_copy("nomarkers", "other_a", other, sizeof(other));
	fresh_copy("nested", "wanted", wanted, sizeof(wanted));
	start_recorder(&r, "e.err", tmp_file("e.h5", out, sizeof(out)), "-v", "--exe", wanted,
		       NULL);
	pid = spawn(run_other, tmp_file("o.txt", err, sizeof(err)), NULL);
	assert_int_equal(wait_status(pid), 0);
	assert_int_equal(wait_status(spawn(run_wanted, tmp_file("w.txt", err, sizeof(err)), NULL)),
			 0);
	assert_int_equal(wait_idle(&r), 0);
	assert_false(said_held(r.err, pid));

	/* The same, not named: held once while the recorder reads it. */
	fresh_copy("nomarkers", "other_b", other, sizeof(other));
	start_recorder(&r, "f.err", tmp_file("f.h5", out, sizeof(out)), "-v", "--comm", "other_b",
		       NULL);
	pid = spawn(run_other, tmp_file("o.txt", err, sizeof(err)), NULL);
	assert_int_equal(wait_status(pid), 0);
	kill(r.pid, SIGINT);
	wait_status(r.pid);
	assert_true(said_held(r.err, pid));
}

#define NODE_D 3000000000000LL	/* b as if recorded on a node whose clock reads 3000 s more */

/*
 * Merge the files of recorders that split the ranks between them, b first
 * moved to another node's clock by a known offset (sb_shift_clock): merge
 * must put it back on a's clock.
 */
static int merge_parts(const char *a, const char *b, const char *out)
{
	char tool[300], d[32], moved[300];
	char *shift[] = { (char *)tool_path("sb_shift_clock", tool, sizeof(tool)), "--shift", d,
			  (char *)b, (char *)tmp_file("moved.h5", moved, sizeof(moved)), NULL };
	char *argv[] = { (char *)scope_bin(), "merge", (char *)a, moved, "-o", (char *)out, NULL };

	snprintf(d, sizeof(d), "%lld", NODE_D);
	assert_int_equal(run(shift), 0);
	return run(argv);
}

/* When a region's first call on a rank began. */
static int64_t pair_start(const struct sb_profile *p, const struct sb_pair *pair)
{
	int64_t t = INT64_MAX;
	size_t i;

	for (i = pair->offset; i < pair->offset + pair->count; i++)
		t = p->events[i].start < t ? p->events[i].start : t;
	return t;
}

static int64_t pair_time(const struct sb_profile *p, const struct sb_pair *pair)
{
	int64_t t = 0;
	size_t i;

	for (i = pair->offset; i < pair->offset + pair->count; i++)
		t += p->events[i].end - p->events[i].start;
	return t;
}

/* Same ranks, same regions per rank with the same calls; times within tolerance. */
static void check_same_profile(const struct sb_profile *merged, const struct sb_profile *one)
{
	const struct sb_pair *q;
	int64_t a, b;
	size_t i;

	assert_int_equal(merged->n_pairs, one->n_pairs);
	for (i = 0; i < one->n_pairs; i++) {
		const struct sb_pair *pair = &one->pairs[i];
		const char *name = one->regions[pair->region].name;

		q = find_pair(merged, name, pair->rank);
		if (!q)
			fail_msg("rank %u: region '%s' missing from the merged profile", pair->rank,
				 name);
		assert_int_equal(q->count, pair->count);
		a = pair_time(merged, q);
		b = pair_time(one, pair);
		/* The same calls, timed by two recorders' probes: close, not equal. */
		if (llabs(a - b) > b / 2 + 20 * MS)
			fail_msg("rank %u '%s': %lld ns merged, %lld ns in one", pair->rank, name,
				 (long long)a, (long long)b);
		/* On one clock: the moved file's calls back where they happened. */
		a = pair_start(merged, q);
		b = pair_start(one, pair);
		if (llabs(a - b) > 20 * MS)
			fail_msg("rank %u '%s': first call at %lld ns merged, %lld ns in one",
				 pair->rank, name, (long long)a, (long long)b);
	}
}

static void test_rank_filters_merge_to_one_profile(void **state)
{
	struct recorder lo, hi, all;
	struct sb_profile m, p;
	char a[300], b[300], c[300], out[300], app[512];
	uint32_t rank;

	(void)state;
	require_bpf();
	app_path("mpi_calls", app, sizeof(app));
	start_recorder(&lo, "lo.err", tmp_file("lo.%r.h5", a, sizeof(a)), "--exe", app, "--ranks",
		       "0,1", NULL);
	start_recorder(&hi, "hi.err", tmp_file("hi.h5", b, sizeof(b)), "--exe", app, "--ranks",
		       "2-3", NULL);
	start_recorder(&all, "all.err", tmp_file("all.h5", c, sizeof(c)), "--exe", app, NULL);
	assert_int_equal(run_job("mpi_calls"), 0);
	assert_int_equal(wait_idle(&lo), 0);
	assert_int_equal(wait_idle(&hi), 0);
	assert_int_equal(wait_idle(&all), 0);
	/* %r under -a is the --ranks list. */
	tmp_file("lo.0,1.h5", a, sizeof(a));
	assert_int_equal(merge_parts(a, b, tmp_file("m.h5", out, sizeof(out))), 0);
	load_profile(out, &m);
	load_profile(c, &p);
	for (rank = 0; rank < RANKS; rank++)
		check_mpi_rank(&m, rank);
	check_same_profile(&m, &p);
	sb_profile_free(&m);
	sb_profile_free(&p);
}

/* The command line's mistakes: exit status 2 and a message that names the option. */
static void expect_usage_error(const char *msg, ...)
{
	char *argv[16], buf[8192];
	int n = 0;
	va_list ap;

	argv[n++] = (char *)scope_bin();
	argv[n++] = "record";
	va_start(ap, msg);
	while (n < 15 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	assert_int_equal(run(argv), 2);
	read_stderr(buf, sizeof(buf));
	if (!strstr(buf, msg))
		fail_msg("stderr '%s' does not say '%s'", buf, msg);
}

static void test_bad_command_lines(void **state)
{
	(void)state;
	expect_usage_error("give either -a or -p PID, not both", "-a", "-p", "1", NULL);
	expect_usage_error("give no command", "-a", "--", "/bin/true", NULL);
	expect_usage_error("--ranks: 'x' is not a rank list like 0-3,7", "-a", "--ranks", "x",
			   NULL);
	expect_usage_error("--exe /nonexistent: No such file or directory", "-a", "--exe",
			   "/nonexistent", NULL);
	expect_usage_error("%r under -a names the ranks of --ranks", "-a", "-o", "p.%r.h5", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_command_lines),
		cmocka_unit_test(test_job_recorded_from_outside),
		cmocka_unit_test(test_comm_filter),
		cmocka_unit_test(test_exe_holds_no_other_program),
		cmocka_unit_test(test_rank_filters_merge_to_one_profile),
	};

	return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
