/* record -e: software counters per region call, exact per thread (tests/apps/counting.c). */
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include <hdf5.h>

#include "harness.h"

#define EVENTS "page-faults,context-switches,cpu-migrations"
enum { FAULTS, SWITCHES, MIGRATIONS };

static int64_t incl_of(const struct sb_profile *p, const struct sb_event *e, int k)
{
	return sb_event_metric(p, e, SB_METRIC_COUNTER + (unsigned)k);
}

static int64_t excl_of(const struct sb_profile *p, const struct sb_event *e, int k)
{
	return sb_event_metric(p, e, SB_METRIC_COUNTER_EXCL + (unsigned)k);
}

/* The only call of region on rank 0. */
static const struct sb_event *only_call(const struct sb_profile *p, const char *region)
{
	const struct sb_pair *q = must_pair(p, region, 0);

	assert_int_equal(q->count, 1);
	return &p->events[q->offset];
}

/* Within 1% of n (and of 1 more or less, for the smallest). */
static void assert_about(int64_t v, int64_t n, const char *what)
{
	int64_t slack = n / 100 > 1 ? n / 100 : 1;

	if (v < n - slack || v > n + slack)
		fail_msg("%s: %lld, expected %lld within %lld", what, (long long)v, (long long)n,
			 (long long)slack);
}

static int record_counting(const char *out, const char *events)
{
	char path[512];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "-e", (char *)events, "-o",
			 (char *)out, "--", (char *)app_path("counting", path, sizeof(path)), NULL };

	return run(argv);
}

static void test_software_counts_per_call(void **state)
{
	const struct sb_event *e;
	struct sb_profile p;
	char out[300];

	(void)state;
	require_bpf();
	assert_int_equal(record_counting(tmp_file("c.h5", out, sizeof(out)), EVENTS), 0);
	load_profile(out, &p);
	assert_string_equal(sb_profile_meta(&p, "counter_events")->s, EVENTS);
	assert_int_equal(meta_int(&p, "counter_multiplexed"), 0);
	assert_int_equal(meta_int(&p, "counter_threads_uncounted"), 0);
	assert_true(p.columns & SB_COL_METRIC(SB_METRIC_COUNTER + MIGRATIONS));
	assert_false(p.columns & SB_COL_METRIC(SB_METRIC_COUNTER + MIGRATIONS + 1));

	assert_about(incl_of(&p, only_call(&p, "faults"), FAULTS), 2000, "faults: page-faults");
	e = only_call(&p, "sleeps");
	assert_true(incl_of(&p, e, SWITCHES) >= 20);
	assert_true(incl_of(&p, e, FAULTS) <= 2);
	e = only_call(&p, "empty");
	assert_in_range(incl_of(&p, e, FAULTS), 0, 1);
	assert_in_range(incl_of(&p, e, SWITCHES), 0, 1);
	assert_in_range(incl_of(&p, e, MIGRATIONS), 0, 1);
	/* Inclusive counts the child, exclusive leaves it out. */
	e = only_call(&p, "outer");
	assert_about(incl_of(&p, e, FAULTS), 400, "outer: page-faults");
	assert_about(excl_of(&p, e, FAULTS), 100, "outer: own page-faults");
	e = only_call(&p, "inner");
	assert_about(incl_of(&p, e, FAULTS), 300, "inner: page-faults");
	assert_int_equal(excl_of(&p, e, FAULTS), incl_of(&p, e, FAULTS));
	/* Moved between CPUs inside the call: the thread's count, not a CPU's. */
	e = only_call(&p, "migrate");
	assert_about(incl_of(&p, e, FAULTS), 1500, "migrate: page-faults");
	if (sysconf(_SC_NPROCESSORS_ONLN) >= 2)
		assert_true(incl_of(&p, e, MIGRATIONS) >= 1);
	/* Two threads at once, each its own work only. */
	e = only_call(&p, "work_a");
	assert_about(incl_of(&p, e, FAULTS), 1000, "work_a: page-faults");
	assert_int_not_equal(e->thread, only_call(&p, "work_b")->thread);
	assert_about(incl_of(&p, only_call(&p, "work_b"), FAULTS), 3000, "work_b: page-faults");
	sb_profile_free(&p);
}

/* scope-profiler's per-region totals, read with the HDF5 API as its reader does. */
static void test_perf_events_groups(void **state)
{
	uint64_t values[3];
	char out[300], *names[3];
	int64_t calls;
	hid_t f, g, a, t, d;

	(void)state;
	require_bpf();
	assert_int_equal(record_counting(tmp_file("pe.h5", out, sizeof(out)), EVENTS), 0);
	f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
	assert_true(f >= 0);
	g = H5Gopen2(f, "/rank0/perf_events/work_b", H5P_DEFAULT);
	assert_true(g >= 0);
	a = H5Aopen(g, "calls", H5P_DEFAULT);
	assert_true(H5Aread(a, H5T_NATIVE_INT64, &calls) >= 0);
	H5Aclose(a);
	assert_int_equal(calls, 1);
	a = H5Aopen(g, "event_names", H5P_DEFAULT);
	t = H5Aget_type(a);
	assert_true(H5Tis_variable_str(t) > 0);
	assert_true(H5Aread(a, t, names) >= 0);
	assert_string_equal(names[0], "page-faults");
	assert_string_equal(names[2], "cpu-migrations");
	H5Dvlen_reclaim(t, H5Aget_space(a), H5P_DEFAULT, names);
	H5Tclose(t);
	H5Aclose(a);
	d = H5Dopen2(g, "values", H5P_DEFAULT);
	assert_true(H5Dread(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) >= 0);
	assert_about((int64_t)values[0], 3000, "perf_events/work_b: page-faults");
	H5Dclose(d);
	H5Gclose(g);
	H5Fclose(f);
}

static bool pmu_counts(uint64_t config)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_HARDWARE,
				     .config = config, .disabled = 1 };
	int fd = (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* Without a PMU: refused before anything runs, naming the event and what works. */
static void test_hardware_event_without_pmu(void **state)
{
	char out[300], msg[2048];
	int st;

	(void)state;
	require_bpf();
	st = record_counting(tmp_file("hw.h5", out, sizeof(out)), "page-faults,cycles");
	if (pmu_counts(PERF_COUNT_HW_CPU_CYCLES)) {
		assert_int_equal(st, 0);
		return;
	}
	assert_int_equal(st, 2);
	read_stderr(msg, sizeof(msg));
	assert_non_null(strstr(msg, "cycles:"));
	assert_non_null(strstr(msg, "no hardware PMU"));
	assert_non_null(strstr(msg, "software events"));
	assert_int_equal(access(out, F_OK), -1);
}

/* Needs a PMU: an expected hardware skip on a machine (a VM) that has none. */
static void test_hardware_counts_with_pmu(void **state)
{
	const struct sb_event *e;
	struct sb_profile p;
	char out[300];

	(void)state;
	require_bpf();
	if (!pmu_counts(PERF_COUNT_HW_INSTRUCTIONS)) {
		fprintf(stderr, "expected hardware skip: no PMU counts instructions here\n");
		skip();
	}
	assert_int_equal(record_counting(tmp_file("hwc.h5", out, sizeof(out)),
					 "instructions,page-faults"), 0);
	load_profile(out, &p);
	e = only_call(&p, "faults");
	/* 2000 pages touched: a few instructions each, in user space and the fault handler. */
	assert_true(incl_of(&p, e, 0) > 2000);
	assert_true(incl_of(&p, only_call(&p, "empty"), 0) < incl_of(&p, e, 0));
	sb_profile_free(&p);
	/* A LIKWID group's events, named in the metadata with the group. */
	{
		char path[512];
		char *argv[] = { (char *)scope_bin(), "record", "-q", "-g", "CLOCK", "-o", out, "--",
				 (char *)app_path("counting", path, sizeof(path)), NULL };

		assert_int_equal(run(argv), 0);
	}
	load_profile(out, &p);
	assert_string_equal(sb_profile_meta(&p, "counter_group")->s, "CLOCK");
	assert_true(incl_of(&p, only_call(&p, "faults"), 0) > 0);
	sb_profile_free(&p);
}

/* -p on a running process: its threads, alive before attach, are counted from /proc. */
static void test_attach_counts_running_threads(void **state)
{
	char path[512], out[300], pidstr[16], line[64];
	/* Long enough to outlive a recorder slow to start on a loaded machine; ended below. */
	char *app[] = { (char *)app_path("counting", path, sizeof(path)), "loop", "60", NULL };
	const struct sb_pair *q;
	int64_t threads[2] = { -1, -1 }, v;
	size_t known = 0, i;
	struct sb_profile p;
	int fd = -1;
	pid_t pid;
	FILE *f;

	(void)state;
	require_bpf();
	pid = spawn(app, NULL, &fd);
	/* Attach once it runs its threads: on a busy machine it may not even have exec'd yet. */
	f = fdopen(fd, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "ready\n");
	fclose(f);
	sleep_ms(100);
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	{
		char *argv[] = { (char *)scope_bin(), "record", "-q", "-d", "1", "-e", "page-faults",
				 "-p", pidstr, "-o", (char *)tmp_file("p.h5", out, sizeof(out)),
				 NULL };

		assert_int_equal(run(argv), 0);
	}
	kill(pid, SIGTERM);
	assert_int_equal(wait_status(pid), 0);
	load_profile(out, &p);
	q = must_pair(&p, "tick", 0);
	for (i = q->offset; i < q->offset + q->count; i++) {
		v = incl_of(&p, &p.events[i], 0);
		if (v < 0)
			continue;
		known++;
		assert_in_range(v, 100, 101);
		if (threads[0] < 0 || threads[0] == p.events[i].thread)
			threads[0] = p.events[i].thread;
		else
			threads[1] = p.events[i].thread;
	}
	/* Both threads, about 100 ticks a second each; every call counted. */
	assert_true(threads[1] >= 0);
	assert_true(known >= 50);
	assert_true(known + 2 >= q->count);
	sb_profile_free(&p);
}

/* report --counters and diff --metric on a real recording, as a user runs them. */
static void test_report_and_diff_by_counts(void **state)
{
	char out[300], csv[300], line[512], *p;
	long long incl, own;
	bool seen = false;
	FILE *f;

	(void)state;
	require_bpf();
	assert_int_equal(record_counting(tmp_file("r.h5", out, sizeof(out)), EVENTS), 0);
	{
		char *argv[] = { (char *)scope_bin(), "report", "--counters", "-f", "csv", "-o",
				 (char *)tmp_file("r.csv", csv, sizeof(csv)), out, NULL };

		assert_int_equal(run(argv), 0);
	}
	f = fopen(csv, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "region,calls,unknown_calls,page-faults,own page-faults,"
			    "context-switches,own context-switches,cpu-migrations,"
			    "own cpu-migrations\n");
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "outer,1,0,", 10))
			continue;
		p = line + 10;
		assert_int_equal(sscanf(p, "%lld,%lld", &incl, &own), 2);
		assert_about(incl, 400, "report: outer");
		assert_about(own, 100, "report: own outer");
		seen = true;
	}
	fclose(f);
	assert_true(seen);
	{
		char *same[] = { (char *)scope_bin(), "diff", "-m", "page-faults", "-o", "/dev/null",
				 out, out, NULL };
		char *absent[] = { (char *)scope_bin(), "diff", "-m", "task-clock", "-o",
				   "/dev/null", out, out, NULL };

		assert_int_equal(run(same), 0);
		assert_int_equal(run(absent), 2);
	}
}

/* MPI calls are frames on the same stacks: counted like regions, inside the regions around them. */
static void test_mpi_calls_counted(void **state)
{
	char out[300], app[512];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "-e", "task-clock", "-o",
			 (char *)tmp_file("mpi.h5", out, sizeof(out)), "--", (char *)mpiexec_mpich(), "-n", "4",
			 (char *)app_path("mpi_calls", app, sizeof(app)), NULL };
	const struct sb_event *e;
	size_t known = 0, i, k;
	struct sb_profile p;
	const char *name;

	(void)state;
	require_bpf();
	assert_int_equal(run(argv), 0);
	load_profile(out, &p);
	for (k = 0; k < p.n_pairs; k++) {
		name = p.regions[p.pairs[k].region].name;
		for (i = 0; i < p.pairs[k].count; i++) {
			e = &p.events[p.pairs[k].offset + i];
			if (incl_of(&p, e, 0) < 0)
				continue;
			assert_true(excl_of(&p, e, 0) <= incl_of(&p, e, 0));
			known += !strncmp(name, "mpi:", 4) && strncmp(name, "mpi:init", 8);
		}
	}
	/* Past MPI_Init every MPI call of the ranks has its count. */
	assert_true(known >= 20);
	sb_profile_free(&p);
}

static void test_no_counters_no_columns(void **state)
{
	struct sb_profile p;
	char out[300];
	hid_t f;
	unsigned i;

	(void)state;
	require_bpf();
	assert_int_equal(record_app(tmp_file("none.h5", out, sizeof(out)), "counting", NULL), 0);
	load_profile(out, &p);
	for (i = 0; i < 2 * SB_COUNTER_SLOTS; i++)
		assert_false(p.columns & SB_COL_METRIC(SB_METRIC_COUNTER + i));
	assert_null(sb_profile_meta(&p, "counter_events"));
	sb_profile_free(&p);
	f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
	assert_true(f >= 0);
	assert_true(H5Lexists(f, "rank0", H5P_DEFAULT) <= 0);
	H5Fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_software_counts_per_call),
		cmocka_unit_test(test_perf_events_groups),
		cmocka_unit_test(test_hardware_event_without_pmu),
		cmocka_unit_test(test_hardware_counts_with_pmu),
		cmocka_unit_test(test_attach_counts_running_threads),
		cmocka_unit_test(test_report_and_diff_by_counts),
		cmocka_unit_test(test_mpi_calls_counted),
		cmocka_unit_test(test_no_counters_no_columns),
	};

	return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
