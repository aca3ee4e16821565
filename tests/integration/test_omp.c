/*
 * Integration: record tests/apps/omp_solve (gcc -fopenmp, libgomp) and check
 * every thread of its teams has its own OpenMP regions without any marker in
 * them: each runs every parallel body (omp:implicit_task) and waits at every
 * explicit barrier (omp:barrier); the main thread's forks (omp:parallel) and
 * joins (omp:join) nest in the user region "solve" around them, and each
 * region's own time is its time less its children's.
 */
#include <limits.h>
#include <sys/prctl.h>

#include "harness.h"

#define SOLVES 5
#define THREADS 4
#define BODIES (2 * SOLVES)	/* two parallel regions per solve */
#define MAX_THREADS 64

/* Calls of one region per thread index, and their time. */
struct per_thread {
	uint64_t calls[MAX_THREADS];
	int64_t ns[MAX_THREADS];
	int threads;		/* threads with at least one call */
};

/* Calls of region name on rank 0 per thread; each one's parent must be parent (NULL: any). */
static void count_calls(const struct sb_profile *p, const char *name, const char *parent,
			struct per_thread *t)
{
	const struct sb_pair *pair = find_pair(p, name, 0);
	const struct sb_event *e;
	const char *got;
	size_t i;

	memset(t, 0, sizeof(*t));
	if (!pair)
		return;
	for (i = pair->offset; i < pair->offset + pair->count; i++) {
		e = &p->events[i];
		assert_true(e->thread >= 0 && e->thread < MAX_THREADS);
		got = parent_region(p, 0, e);
		if (parent)
			assert_string_equal(got ? got : "(top level)", parent);
		if (!t->calls[e->thread])
			t->threads++;
		t->calls[e->thread]++;
		t->ns[e->thread] += e->end - e->start;
	}
}

/* The thread that ran "a": the one that forks. */
static int64_t main_of(const struct sb_profile *p)
{
	return p->events[must_pair(p, "a", 0)->offset].thread;
}

/* The thread that ran "solve": the one that forks. */
static int64_t main_thread(const struct sb_profile *p)
{
	const struct sb_pair *solve = must_pair(p, "solve", 0);

	assert_int_equal(solve->count, SOLVES);
	return p->events[solve->offset].thread;
}

/* A region's exclusive time is its total less that of the calls directly inside it. */
static void check_exclusive(const struct sb_profile *p, const char *name, const char *const *kids,
			    int64_t thread)
{
	const struct sb_pair *pair = must_pair(p, name, 0);
	struct per_thread t;
	int64_t children = 0;

	for (; *kids; kids++) {
		count_calls(p, *kids, NULL, &t);
		children += t.ns[thread];
	}
	assert_true(children > 0);
	assert_true(pair->stats.total >= children);
	assert_int_equal(pair->exclusive_total, pair->stats.total - children);
}

static void record_solve(const char *name, char *out, size_t size, struct sb_profile *p)
{
	assert_int_equal(record_app(tmp_file(name, out, size), "omp_solve", NULL), 0);
	load_profile(out, p);
	assert_int_equal(sb_profile_rank_count(p), 1);
}

static void test_every_thread_has_its_regions(void **state)
{
	static const char *const in_solve[] = { "omp:parallel", NULL };
	static const char *const in_fork[] = { "omp:implicit_task", "omp:join", NULL };
	struct per_thread tasks, barriers, forks, joins;
	struct sb_profile p;
	int64_t master, th;
	char out[300];

	(void)state;
	require_bpf();
	record_solve("omp.h5", out, sizeof(out), &p);
	master = main_thread(&p);

	/* Every thread of the team runs each parallel body once: lanes without markers. */
	count_calls(&p, "omp:implicit_task", NULL, &tasks);
	assert_int_equal(tasks.threads, THREADS);
	count_calls(&p, "omp:barrier", "omp:implicit_task", &barriers);
	assert_int_equal(barriers.threads, THREADS);
	for (th = 0; th < MAX_THREADS; th++) {
		if (!tasks.calls[th])
			continue;
		assert_int_equal(tasks.calls[th], BODIES);
		assert_int_equal(barriers.calls[th], SOLVES);
	}

	/* The main thread forks and joins inside "solve". */
	count_calls(&p, "omp:parallel", "solve", &forks);
	assert_int_equal(forks.threads, 1);
	assert_int_equal(forks.calls[master], BODIES);
	count_calls(&p, "omp:join", "omp:parallel", &joins);
	assert_int_equal(joins.threads, 1);
	assert_int_equal(joins.calls[master], BODIES);
	assert_int_equal(tasks.calls[master], BODIES);

	check_exclusive(&p, "solve", in_solve, master);
	check_exclusive(&p, "omp:parallel", in_fork, master);
	assert_int_equal(meta_int(&p, "lost_events"), 0);
	assert_int_equal(meta_int(&p, "omp_bodies_traced"), 2);
	sb_profile_free(&p);
}

/* The workers' bodies are at the top of their lanes, the main thread's inside its fork. */
static void test_bodies_nest_where_they_run(void **state)
{
	const struct sb_pair *pair;
	const struct sb_event *e;
	struct sb_profile p;
	const char *parent;
	int64_t master;
	char out[300];
	size_t i;

	(void)state;
	require_bpf();
	record_solve("omp_nest.h5", out, sizeof(out), &p);
	master = main_thread(&p);
	pair = must_pair(&p, "omp:implicit_task", 0);
	for (i = pair->offset; i < pair->offset + pair->count; i++) {
		e = &p.events[i];
		parent = parent_region(&p, 0, e);
		if (e->thread == master)
			assert_string_equal(parent ? parent : "(top level)", "omp:parallel");
		else
			assert_null(parent);
	}
	sb_profile_free(&p);
}

static void test_no_omp_records_only_user_regions(void **state)
{
	char out[300], app[512], *argv[16];
	struct sb_profile p;
	int n = 0;
	size_t i;

	(void)state;
	require_bpf();
	argv[n++] = (char *)scope_bin();
	argv[n++] = "record";
	argv[n++] = "-q";
	argv[n++] = "--no-omp";
	argv[n++] = "-o";
	argv[n++] = (char *)tmp_file("no_omp.h5", out, sizeof(out));
	argv[n++] = "--";
	argv[n++] = (char *)app_path("omp_solve", app, sizeof(app));
	argv[n] = NULL;
	assert_int_equal(run(argv), 0);
	load_profile(out, &p);
	for (i = 0; i < p.n_regions; i++)
		assert_true(strncmp(p.regions[i].name, "omp:", 4) != 0);
	assert_int_equal(must_pair(&p, "solve", 0)->count, SOLVES);
	assert_null(sb_profile_meta(&p, "omp_bodies_traced"));
	sb_profile_free(&p);
}

/*
 * A library named as libgomp's whose GOMP_parallel no uprobe can probe,
 * loaded by the command: the recording says which source could not attach
 * where and why, in its warnings, its file and its exit status (3), instead
 * of a recording that looks complete.
 */
static void test_an_unprobeable_openmp_library_is_said(void **state)
{
	char out[300], app[512], lib[512], real[PATH_MAX], err[4096];
	const char *why;
	char *argv[] = { (char *)scope_bin(), "record", "-q", "-o",
			 (char *)tmp_file("refused_omp.h5", out, sizeof(out)), "--",
			 (char *)app_path("refused_lib", app, sizeof(app)), "gomp", "exit", NULL };
	struct sb_profile p;
	int status;

	(void)state;
	require_bpf();
	assert_non_null(realpath(app_path("libgomp.so.refused", lib, sizeof(lib)), real));
	status = run(argv);
	read_stderr(err, sizeof(err));
	if (status != 3 || !strstr(err, "source_attach_failures") || !strstr(err, "GOMP_parallel"))
		fail_msg("exit %d, said:\n%s", status, err);
	load_profile(out, &p);
	assert_true(meta_int(&p, "source_attach_failures") >= 1);
	why = meta_str(&p, "source_attach_failure");
	if (!why || strncmp(why, "omp: ", 5) || !strstr(why, real) || !strstr(why, "GOMP_parallel"))
		fail_msg("source_attach_failure: %s", why ? why : "(none)");
	sb_profile_free(&p);
}

/* Each region on rank 0: calls, and their parents are one of parents (NULL-terminated). */
static uint64_t calls_under(const struct sb_profile *p, const char *name,
			    const char *const *parents)
{
	const struct sb_pair *pair = must_pair(p, name, 0);
	const char *const *q;
	const char *got;
	size_t i;

	for (i = pair->offset; i < pair->offset + pair->count; i++) {
		got = parent_region(p, 0, &p->events[i]);
		for (q = parents; *q && (!got || strcmp(got, *q)); q++)
			;
		if (!*q)
			fail_msg("%s inside %s", name, got ? got : "nothing");
	}
	return pair->count;
}

/* Task bodies are told from parallel bodies by the call that started them. */
static void test_tasks_are_not_implicit_tasks(void **state)
{
	static const char *const waits[] = { "omp:taskwait", "omp:barrier", NULL };
	static const char *const in_body[] = { "omp:implicit_task", NULL };
	static const char *const in_fork[] = { "omp:parallel", "omp:teams", NULL };
	static const char *const in_user[] = { "tasks", NULL };
	static const char *const in_teams_region[] = { "teams", NULL };
	const struct sb_pair *bodies;
	struct per_thread tasks;
	struct sb_profile p;
	uint64_t in_teams = 0;
	const char *parent;
	char out[300];
	size_t i;

	(void)state;
	require_bpf();
	assert_int_equal(record_app(tmp_file("omp_tasks.h5", out, sizeof(out)), "omp_tasks", NULL),
			 0);
	load_profile(out, &p);
	assert_int_equal(calls_under(&p, "omp:task", waits), 8);
	count_calls(&p, "omp:implicit_task", NULL, &tasks);
	assert_int_equal(tasks.threads, 3);
	/* 3 threads' parallel bodies, and 2 host teams one after another on the main thread. */
	bodies = must_pair(&p, "omp:implicit_task", 0);
	assert_int_equal(bodies->count, 3 + 2);
	for (i = bodies->offset; i < bodies->offset + bodies->count; i++) {
		parent = parent_region(&p, 0, &p.events[i]);
		if (parent && !strcmp(parent, "omp:teams"))
			in_teams++;
		/* A body is never inside the wait before it: the next team ended that wait. */
		assert_true(!parent || strcmp(parent, "omp:join"));
	}
	assert_int_equal(in_teams, 2);
	assert_int_equal(calls_under(&p, "omp:taskwait", in_body), 1);
	assert_int_equal(calls_under(&p, "omp:critical_wait", in_body), 3);
	assert_int_equal(calls_under(&p, "omp:parallel", in_user), 1);
	assert_int_equal(calls_under(&p, "omp:join", in_fork), 1 + 2);
	assert_int_equal(calls_under(&p, "omp:teams", in_teams_region), 1);
	sb_profile_free(&p);
}

/*
 * LLVM's runtime, through the OMPT tool (ompt/): the same app, the same names.
 * libomp 14 reports the barrier that ends a parallel region as a plain
 * implicit barrier (OpenMP 5.0), a later one as the join (5.1): either way
 * every thread waits SOLVES explicit and BODIES region-end barriers.
 */
static void test_llvm_runtime_through_ompt(void **state)
{
	char out[300], app[512], tool[512], env[600], *argv[16], *slash;
	struct per_thread tasks, barriers, joins, forks;
	struct sb_profile p;
	int64_t master, th;
	int n = 0;

	(void)state;
	require_bpf();
	app_path("omp_solve_llvm", app, sizeof(app));
	if (!realpath(scope_bin(), tool) || access(app, X_OK))
		skip();	/* built only where LLVM's omp-tools.h is */
	slash = strrchr(tool, '/');
	snprintf(slash + 1, sizeof(tool) - (size_t)(slash + 1 - tool), "libscope_bpf_ompt.so");
	snprintf(env, sizeof(env), "OMP_TOOL_LIBRARIES=%s", tool);
	argv[n++] = (char *)scope_bin();
	argv[n++] = "record";
	argv[n++] = "-q";
	argv[n++] = "-o";
	argv[n++] = (char *)tmp_file("llvm.h5", out, sizeof(out));
	argv[n++] = "--";
	argv[n++] = "env";
	argv[n++] = env;
	argv[n++] = app;
	argv[n] = NULL;
	assert_int_equal(run(argv), 0);
	load_profile(out, &p);
	master = main_thread(&p);
	count_calls(&p, "omp:implicit_task", NULL, &tasks);
	assert_int_equal(tasks.threads, THREADS);
	count_calls(&p, "omp:barrier", "omp:implicit_task", &barriers);
	count_calls(&p, "omp:join", "omp:implicit_task", &joins);
	for (th = 0; th < MAX_THREADS; th++) {
		if (!tasks.calls[th])
			continue;
		assert_int_equal(tasks.calls[th], BODIES);
		assert_true(barriers.calls[th] >= SOLVES);
		assert_int_equal(barriers.calls[th] + joins.calls[th], SOLVES + BODIES);
	}
	count_calls(&p, "omp:parallel", "solve", &forks);
	assert_int_equal(forks.threads, 1);
	assert_int_equal(forks.calls[master], BODIES);
	assert_int_equal(meta_int(&p, "lost_events"), 0);
	sb_profile_free(&p);
}

/* Per-rank lanes of a hybrid job: tests/apps/mpi_omp, 2 ranks of 2 threads, 3 steps. */
static void check_hybrid_rank(const struct sb_profile *p, uint32_t rank)
{
	const struct sb_pair *pair = must_pair(p, "omp:implicit_task", rank);
	uint64_t per_thread[MAX_THREADS] = { 0 };
	const struct sb_pair *fork;
	int threads = 0;
	size_t i;

	for (i = pair->offset; i < pair->offset + pair->count; i++) {
		assert_true(p->events[i].thread >= 0 && p->events[i].thread < MAX_THREADS);
		if (!per_thread[p->events[i].thread]++)
			threads++;
	}
	assert_int_equal(threads, 2);
	for (i = 0; i < MAX_THREADS; i++)
		assert_true(per_thread[i] == 0 || per_thread[i] == 3);
	fork = must_pair(p, "omp:parallel", rank);
	assert_int_equal(fork->count, 3);
	for (i = fork->offset; i < fork->offset + fork->count; i++)
		assert_string_equal(parent_region(p, rank, &p->events[i]), "step");
	assert_int_equal(must_pair(p, "mpi:allreduce kind=collective bytes=8 peer=-1 root=-1 "
				   "tag=-1 comm=1140850688", rank)->count, 3);
}

/*
 * The program mpiexec runs needs libgomp: libgomp and the program's bodies
 * are probed before it starts, not while its ranks are held (-v says when).
 */
static void check_probed_before_ranks(void)
{
	static char err[1 << 20];	/* -v: libbpf says much before the ranks run */
	const char *lib, *bodies, *rank;

	read_stderr(err, sizeof(err));
	lib = strstr(err, " OpenMP entry points in ");
	bodies = strstr(err, "traced 1 OpenMP bodies in ");
	rank = strstr(err, "/mpi_omp (pid ");
	assert_non_null(lib);
	assert_non_null(bodies);
	assert_non_null(rank);
	assert_true(lib < rank);
	assert_true(bodies < rank);
}

static void test_hybrid_mpi_openmp(void **state)
{
	char out[300], app[512], *argv[16];
	struct sb_profile p;
	int n = 0;

	(void)state;
	require_bpf();
	argv[n++] = (char *)scope_bin();
	argv[n++] = "record";
	argv[n++] = "-v";
	argv[n++] = "-o";
	argv[n++] = (char *)tmp_file("hybrid.h5", out, sizeof(out));
	argv[n++] = "--";
	argv[n++] = (char *)mpiexec_mpich();
	argv[n++] = "-n";
	argv[n++] = "2";
	argv[n++] = (char *)app_path("mpi_omp", app, sizeof(app));
	argv[n] = NULL;
	assert_int_equal(run(argv), 0);
	check_probed_before_ranks();
	load_profile(out, &p);
	assert_int_equal(sb_profile_rank_count(&p), 2);
	check_hybrid_rank(&p, 0);
	check_hybrid_rank(&p, 1);
	assert_int_equal(meta_int(&p, "lost_events"), 0);
	sb_profile_free(&p);
}

/*
 * Each recording leaves its guardian closing the probes it attached (about 100
 * for the hybrid run: seconds of the kernel's uprobe lock on a loaded machine,
 * docs/DESIGN.md). This process adopts them (subreaper) and waits for them
 * after each test, so that no later recording, here or in the next test
 * program, queues behind them with its process held. With every kernel feature
 * off (no uprobe-multi link) each probe of each process closes on its own and
 * waits out a tasks-trace RCU grace period: a kernel-mode -p of a two-rank MPI
 * and OpenMP job left 254 of them, over a minute on 6.18 here.
 */
#define REAP_TRIES 1800	/* 100 ms apart */

static int reap_guardians(void **state)
{
	pid_t pid;
	int i;

	(void)state;
	for (i = 0; i < REAP_TRIES; i++) {
		pid = waitpid(-1, NULL, WNOHANG);
		if (pid < 0 && errno != EINTR)
			return 0;	/* none left */
		if (pid == 0)
			sleep_ms(100);
	}
	return -1;
}

/* The event whose call id is id on rank 0, or NULL. */
static const struct sb_event *call_by_id(const struct sb_profile *p, int64_t id)
{
	size_t i;

	for (i = 0; i < p->n_events; i++)
		if (p->events[i].call_id == id)
			return &p->events[i];
	return NULL;
}

/* Every call lies inside its parent's interval; no own time is negative. */
static void check_intervals(const struct sb_profile *p)
{
	const struct sb_event *e, *up;
	size_t i;

	for (i = 0; i < p->n_events; i++) {
		e = &p->events[i];
		if (e->parent_id < 0)
			continue;
		up = call_by_id(p, e->parent_id);
		assert_non_null(up);
		if (e->start < up->start || e->end > up->end)
			fail_msg("call %lld [%lld, %lld] is outside its parent %lld [%lld, %lld]",
				 (long long)e->call_id, (long long)e->start, (long long)e->end,
				 (long long)up->call_id, (long long)up->start, (long long)up->end);
	}
	for (i = 0; i < p->n_pairs; i++)
		assert_true(p->pairs[i].exclusive_total >= 0);
}

/*
 * Many short parallel loops inside marker regions, with 1 and 2 threads:
 * every omp:parallel under "a" (a third of them once sat under whatever was
 * open when the recorder, behind on the markers' records, placed them).
 */
static void test_parallel_loops_nest_in_their_marker_region(void **state)
{
	static const char *const threads[] = { "1", "2" };
	struct per_thread t;
	struct sb_profile p;
	char out[300];
	size_t k;

	(void)state;
	require_bpf();
	for (k = 0; k < sizeof(threads) / sizeof(threads[0]); k++) {
		setenv("OMP_NUM_THREADS", threads[k], 1);
		assert_int_equal(record_app(tmp_file("nest.h5", out, sizeof(out)), "omp_nest", "300",
					    NULL), 0);
		load_profile(out, &p);
		assert_int_equal(must_pair(&p, "a", 0)->count, 300);
		count_calls(&p, "omp:parallel", "a", &t);
		assert_int_equal(t.calls[main_of(&p)], 900);
		check_intervals(&p);
		sb_profile_free(&p);
	}
	unsetenv("OMP_NUM_THREADS");
}

/*
 * Marker regions inside parallel bodies, barriers inside those: each "inner"
 * under its thread's omp:implicit_task, each omp:barrier under "inner", in
 * both modes (issue 25: with markers on the fast path "inner" sat beside the
 * implicit task, "outer"'s own time negative).
 */
static void test_markers_in_parallel_bodies_nest_in_them(void **state)
{
	struct per_thread t;
	struct sb_profile p;
	char out[300];
	int i;

	(void)state;
	require_bpf();
	assert_int_equal(record_app(tmp_file("inner.h5", out, sizeof(out)), "omp_inner", "40",
				    NULL), 0);
	load_profile(out, &p);
	assert_int_equal(must_pair(&p, "outer", 0)->count, 40);
	count_calls(&p, "inner", "omp:implicit_task", &t);
	assert_int_equal(t.threads, 2);
	for (i = 0; i < MAX_THREADS; i++)
		assert_true(t.calls[i] == 0 || t.calls[i] == 40);
	count_calls(&p, "omp:barrier", "inner", &t);
	assert_int_equal(t.threads, 2);
	check_intervals(&p);
	sb_profile_free(&p);
}

/* Off-CPU time is inclusive: no call has less than its direct children on its rank together. */
static void check_offcpu_inclusive(const struct sb_profile *p, const char *file)
{
	const struct sb_event *e, *kid;
	const struct sb_pair *pair, *other;
	size_t i, j, k, n;
	int64_t kids;

	for (i = 0; i < p->n_pairs; i++) {
		pair = &p->pairs[i];
		for (j = pair->offset; j < pair->offset + pair->count; j++) {
			e = &p->events[j];
			kids = 0;
			for (n = 0; n < p->n_pairs; n++) {
				other = &p->pairs[n];
				for (k = other->offset; other->rank == pair->rank &&
				     k < other->offset + other->count; k++) {
					kid = &p->events[k];
					if (kid->parent_id == e->call_id)
						kids += kid->metric[SB_METRIC_OFFCPU];
				}
			}
			if (e->metric[SB_METRIC_OFFCPU] < kids)
				fail_msg("%s: rank %u call %lld of %s: %lld ns off-CPU, its children %lld",
					 file, pair->rank, (long long)e->call_id,
					 p->regions[pair->region].name,
					 (long long)e->metric[SB_METRIC_OFFCPU], (long long)kids);
		}
	}
}

/*
 * record -p of a launcher, mpiexec -n 2 omp_sleep, with markers on the fast
 * path: "nap" holds the off-CPU time of the OpenMP calls in it on both ranks,
 * in a first recording, in a second one (the ranks' memory made for the
 * first: no fast_ready announces it) and in kernel mode. Issue 25: the
 * kernel sent no off-CPU intervals of a rank whose fast_ready ran before the
 * recorder traced it, so its marker regions showed 0 off-CPU while their
 * omp:parallel children showed seconds. The ranks mapped libgomp before the
 * recording: its probes go on all the same.
 */
static void test_offcpu_inclusive_under_a_launcher(void **state)
{
	static const char *const modes[] = { "--mode=kernel", "--mode=auto", "--mode=auto" };
	static const char *const files[] = { "launcher1.h5", "launcher2.h5", "launcher3.h5" };
	/*
	 * In make integration's kernel-mode passes the kernel-mode recording
	 * alone: the fast path's two are the default pass's, and with every
	 * kernel feature off each of the job's probes closes on its own.
	 */
	size_t n = fast_mode() ? 3 : 1;
	char out[3][300], app[512], pidstr[16];
	char *job[] = { "/usr/bin/env", (char *)mpiexec_mpich(), "-n", "2",
			(char *)app_path("omp_sleep", app, sizeof(app)), NULL };
	char *argv[] = { (char *)scope_bin(), "record", NULL, "-q", "-d", "1", "-p", pidstr, "-o",
			 NULL, NULL };
	const struct sb_pair *nap;
	struct sb_profile p;
	int status[3] = { 0 };
	int64_t offcpu;
	uint32_t rank;
	pid_t launcher;
	size_t m, i;

	(void)state;
	require_bpf();
	launcher = start_saying(job, "ready");
	snprintf(pidstr, sizeof(pidstr), "%d", (int)launcher);
	/* All first: a failed check must not leave the job running. */
	for (m = 0; m < n; m++) {
		argv[2] = (char *)modes[m];
		argv[9] = (char *)tmp_file(files[m], out[m], sizeof(out[m]));
		status[m] = run(argv);
		if (status[m])
			break;
	}
	kill(launcher, SIGTERM);
	assert_int_equal(wait_status(launcher), 0);
	for (m = 0; m < n; m++) {
		assert_int_equal(status[m], 0);
		load_profile(out[m], &p);
		assert_int_equal(sb_profile_rank_count(&p), 2);
		for (rank = 0; rank < 2; rank++) {
			nap = must_pair(&p, "nap", rank);
			for (i = nap->offset, offcpu = 0; i < nap->offset + nap->count; i++)
				offcpu += p.events[i].metric[SB_METRIC_OFFCPU];
			assert_true(offcpu > 0);
			/* libgomp, mapped before the recording, is probed too. */
			assert_true(must_pair(&p, "omp:parallel", rank)->count > 0);
		}
		check_offcpu_inclusive(&p, out[m]);
		sb_profile_free(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_every_thread_has_its_regions, reap_guardians),
		cmocka_unit_test_teardown(test_bodies_nest_where_they_run, reap_guardians),
		cmocka_unit_test_teardown(test_parallel_loops_nest_in_their_marker_region,
					  reap_guardians),
		cmocka_unit_test_teardown(test_markers_in_parallel_bodies_nest_in_them,
					  reap_guardians),
		cmocka_unit_test_teardown(test_offcpu_inclusive_under_a_launcher, reap_guardians),
		cmocka_unit_test_teardown(test_tasks_are_not_implicit_tasks, reap_guardians),
		cmocka_unit_test_teardown(test_no_omp_records_only_user_regions, reap_guardians),
		cmocka_unit_test_teardown(test_hybrid_mpi_openmp, reap_guardians),
		cmocka_unit_test_teardown(test_llvm_runtime_through_ompt, reap_guardians),
		cmocka_unit_test_teardown(test_an_unprobeable_openmp_library_is_said,
					  reap_guardians),
	};

	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		return 1;
	return cmocka_run_group_tests_name("omp", tests, setup_tmp, teardown_tmp);
}
