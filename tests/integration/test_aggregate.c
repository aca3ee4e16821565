/*
 * record --aggregate on real test applications, fast path and kernel path,
 * -p, OpenMP and MPI: call counts exact, totals against the applications' own
 * clocks, counters, a file whose size does not grow with the calls, windows
 * that form a series, and scope-profiler's aggregate layout as h5py reads it.
 */
#include <inttypes.h>
#include <sys/stat.h>

#include "harness.h"
#include "unit/json_check.h"

/* scope-bpf record --mode=MODE --aggregate[=WINDOW] -o OUT -- APPS/app args...: its status. */
static int record_status(const char *out, const char *mode, const char *window, const char *app,
			 const char *arg1, const char *arg2)
{
	char mode_arg[32], agg_arg[64], path[512];
	char *argv[] = { (char *)scope_bin(), "record", "-q", mode_arg, agg_arg, "-o", (char *)out,
			 "--", (char *)app_path(app, path, sizeof(path)), (char *)arg1,
			 (char *)arg2, NULL };

	snprintf(mode_arg, sizeof(mode_arg), "--mode=%s", mode);
	snprintf(agg_arg, sizeof(agg_arg), "--aggregate%s%s", window ? "=" : "",
		 window ? window : "");
	return run(argv);
}

/* The same, which must record every call (status 0). */
static void record_agg(const char *out, const char *mode, const char *window, const char *app,
		       const char *arg1, const char *arg2)
{
	assert_int_equal(record_status(out, mode, window, app, arg1, arg2), 0);
}

/* The sums of the rows of region path name (its last element): calls, total, own, min, max. */
struct sums {
	uint64_t count;
	int64_t total, own, min, max;
	size_t rows, windows;
};

static struct sums sums_of(const struct sb_profile *p, const char *name)
{
	const struct sb_aggregate *a = &p->agg;
	struct sums s = { .min = INT64_MAX };
	int64_t last_window = -1;
	size_t i;

	for (i = 0; i < a->n_rows; i++) {
		const struct sb_agg_row *r = &a->rows[i];

		if (strcmp(a->paths[r->path].name, name))
			continue;
		s.count += r->count;
		s.total += r->total;
		s.own += r->own;
		s.min = r->min < s.min ? r->min : s.min;
		s.max = r->max > s.max ? r->max : s.max;
		s.rows++;
		s.windows += r->window != last_window;
		last_window = r->window;
	}
	return s;
}

/* The name of the path around the first row of region path name. */
static const char *parent_name(const struct sb_profile *p, const char *name)
{
	const struct sb_aggregate *a = &p->agg;
	size_t i;

	for (i = 0; i < a->n_rows; i++)
		if (!strcmp(a->paths[a->rows[i].path].name, name) &&
		    a->paths[a->rows[i].path].parent >= 0)
			return a->paths[a->paths[a->rows[i].path].parent].name;
	return "";
}

/* count N: outer once, tick N times inside it; own of outer is its total less the ticks'. */
static void check_count_app(const char *mode)
{
	struct sums outer, tick;
	struct sb_profile p;
	char out[300];

	tmp_file("count.h5", out, sizeof(out));
	record_agg(out, mode, NULL, "count", "20000", NULL);
	load_profile(out, &p);
	assert_true(p.agg.on);
	assert_int_equal(p.n_events, 0);
	outer = sums_of(&p, "outer");
	tick = sums_of(&p, "tick");
	assert_int_equal(outer.count, 1);
	assert_int_equal(tick.count, 20000);
	assert_int_equal(tick.rows, 1);
	assert_int_equal(must_pair(&p, "tick", 0)->count, 20000);
	assert_int_equal(must_pair(&p, "tick", 0)->stats.total, tick.total);
	assert_int_equal(outer.own, outer.total - tick.total);
	assert_int_equal(tick.own, tick.total);
	assert_string_equal(parent_name(&p, "tick"), "outer");
	sb_profile_free(&p);
}

static void test_counts_exact_fast_path(void **state)
{
	(void)state;
	require_bpf();
	check_count_app("auto");
}

static void test_counts_exact_kernel_path(void **state)
{
	(void)state;
	require_bpf();
	check_count_app("kernel");
}

/* The app's own begin and end of each call (timed_calls writes them), summed. */
struct app_times {
	long n;
	int64_t sum, min, max;
};

static struct app_times app_times(const char *path)
{
	struct app_times a = { .min = INT64_MAX };
	int64_t t[2];
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	while (fread(t, sizeof(t), 1, f) == 1) {
		a.n++;
		a.sum += t[1] - t[0];
		a.min = t[1] - t[0] < a.min ? t[1] - t[0] : a.min;
		a.max = t[1] - t[0] > a.max ? t[1] - t[0] : a.max;
	}
	fclose(f);
	return a;
}

/*
 * Every call the app made is counted, and each recorded call brackets the
 * app's own timing of its body: the totals lie between the app's sum and
 * that sum plus the markers' cost (generously 20 us a call), min and max too.
 */
static void check_totals(const char *mode)
{
	struct app_times app;
	struct sb_profile p;
	char out[300], times[300];
	struct sums s;

	tmp_file("timed.h5", out, sizeof(out));
	tmp_file("timed.bin", times, sizeof(times));
	record_agg(out, mode, "100ms", "timed_calls", "1", times);
	app = app_times(times);
	load_profile(out, &p);
	s = sums_of(&p, "timed");
	assert_true(app.n > 1000);
	assert_int_equal(s.count, app.n);
	assert_true(s.total >= app.sum);
	assert_true(s.total - app.sum <= app.n * 20000);
	assert_true(s.min >= app.min && s.max >= app.max);
	/* A second of calls in 100 ms windows: about ten of them, each row one window. */
	assert_true(s.windows >= 8 && s.windows == s.rows);
	assert_int_equal(p.agg.window_ns, 100 * MS);
	sb_profile_free(&p);
}

static void test_totals_fast_path(void **state)
{
	(void)state;
	require_bpf();
	check_totals("auto");
}

static void test_totals_kernel_path(void **state)
{
	(void)state;
	require_bpf();
	check_totals("kernel");
}

/*
 * Counters recorded with -e are summed per row, inclusive and exclusive,
 * beside off-CPU time, and report --counters shows them.
 */
static void test_counters_are_summed(void **state)
{
	char out[300], path[512];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "--aggregate", "-e",
			 "page-faults,context-switches", "-o", out, "--",
			 (char *)app_path("count", path, sizeof(path)), "1000", NULL };
	char *report[] = { (char *)scope_bin(), "report", "--counters", out, NULL };
	const struct sb_aggregate *a;
	struct sb_profile p;
	int64_t incl, excl;
	size_t i;
	unsigned k;

	(void)state;
	require_bpf();
	tmp_file("ctr.h5", out, sizeof(out));
	assert_int_equal(run(argv), 0);
	assert_int_equal(run(report), 0);
	load_profile(out, &p);
	a = &p.agg;
	assert_int_equal(a->n_values, 5);
	assert_int_equal(a->n_rows, 2);
	for (i = 0; i < a->n_rows; i++) {
		assert_true(sb_agg_value(a, i, SB_METRIC_OFFCPU) >= 0);
		for (k = 0; k < 2; k++) {
			incl = sb_agg_value(a, i, SB_METRIC_COUNTER + k);
			excl = sb_agg_value(a, i, SB_METRIC_COUNTER_EXCL + k);
			assert_true(excl >= 0 && excl <= incl);
		}
	}
	sb_profile_free(&p);
}

/*
 * record -p of a running waiter in 250 ms windows: its "iter" calls (about
 * 2 ms, half of it asleep) in each window of the second, off-CPU time summed.
 */
static void test_attach_in_windows(void **state)
{
	char out[300], pidstr[16], path[512];
	char *waiter[] = { (char *)app_path("waiter", path, sizeof(path)), "30", NULL };
	char *argv[] = { (char *)scope_bin(), "record", "-q", "--aggregate=250ms", "-d", "1",
			 "-p", pidstr, "-o", out, NULL };
	struct sb_profile p;
	struct sums s;
	pid_t pid;

	(void)state;
	require_bpf();
	tmp_file("attach.h5", out, sizeof(out));
	pid = start_saying(waiter, "ready");
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	assert_int_equal(run(argv), 0);
	kill(pid, SIGTERM);
	assert_int_equal(wait_status(pid), 0);
	load_profile(out, &p);
	s = sums_of(&p, "iter");
	assert_in_range(s.count, 100, 1000);
	assert_in_range(s.windows, 3, 6);
	assert_true(s.min >= 2 * MS / 2 && s.total / (int64_t)s.count < 20 * MS);
	assert_true(sb_agg_value(&p.agg, 0, SB_METRIC_OFFCPU) > 0);
	sb_profile_free(&p);
}

/* OpenMP constructs are regions like the markers: every omp:parallel row lies under "a". */
static void test_openmp_rows_nest(void **state)
{
	const struct sb_aggregate *a;
	struct sb_profile p;
	uint64_t parallel = 0;
	char out[300];
	size_t i;

	(void)state;
	require_bpf();
	tmp_file("omp.h5", out, sizeof(out));
	record_agg(out, "auto", NULL, "omp_nest", "100", NULL);
	load_profile(out, &p);
	a = &p.agg;
	for (i = 0; i < a->n_rows; i++) {
		const struct sb_region_path *path = &a->paths[a->rows[i].path];

		if (strcmp(path->name, "omp:parallel"))
			continue;
		assert_true(path->parent >= 0);
		assert_string_equal(a->paths[path->parent].name, "a");
		parallel += a->rows[i].count;
	}
	assert_int_equal(parallel, 300);
	sb_profile_free(&p);
}

/* An MPI job of 4 ranks: each rank's rows are its own, one MPI_Barrier each. */
static void test_mpi_ranks_keep_their_rows(void **state)
{
	char out[300], path[512];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "--aggregate", "-o", out, "--",
			 (char *)mpiexec_mpich(), "-n", "4",
			 (char *)app_path("mpi_calls", path, sizeof(path)), NULL };
	const struct sb_aggregate *a;
	bool barrier[4] = { false };
	struct sb_profile p;
	uint32_t r;
	size_t i;

	(void)state;
	require_bpf();
	tmp_file("mpi.h5", out, sizeof(out));
	assert_int_equal(run(argv), 0);
	load_profile(out, &p);
	a = &p.agg;
	assert_int_equal(sb_profile_rank_count(&p), 4);
	for (i = 0; i < a->n_rows; i++) {
		if (strncmp(a->paths[a->rows[i].path].name, "mpi:barrier ", 12))
			continue;
		r = a->rows[i].rank;
		assert_true(r < 4 && !barrier[r]);
		assert_int_equal(a->rows[i].count, 1);
		barrier[r] = true;
	}
	for (r = 0; r < 4; r++)
		assert_true(barrier[r]);
	sb_profile_free(&p);
}

static off_t size_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

/*
 * 10 k and 1 M calls of the same two paths make files of the same size. On a
 * loaded host the fast path may drop some of a million records, counted and
 * said with status 3: the rows, and so the size, are the same either way.
 */
static void test_file_size_does_not_grow_with_calls(void **state)
{
	char small[300], big[300];
	int st;

	(void)state;
	require_bpf();
	tmp_file("small.h5", small, sizeof(small));
	tmp_file("big.h5", big, sizeof(big));
	record_agg(small, "auto", NULL, "count", "10000", NULL);
	st = record_status(big, "auto", NULL, "count", "1000000", NULL);
	assert_true(st == 0 || st == 3);
	if (labs((long)(size_of(big) - size_of(small))) > 4096)
		fail_msg("10k calls: %lld bytes, 1M calls: %lld bytes", (long long)size_of(small),
			 (long long)size_of(big));
}

static const char script[] =
	"import sys, h5py\n"
	"f = h5py.File(sys.argv[1], 'r')\n"
	"print('layout', f.attrs['storage_layout'])\n"
	"print('events', f['events/start_times'].shape[0])\n"
	"i = f['rank_region_index']\n"
	"names = f['region_table/names'][()]\n"
	"for r, n, c, t in zip(i['region_ids'][()], i['event_counts'][()],\n"
	"                      i['aggregate_counts'][()], i['summary_statistics']['total']):\n"
	"    print('row', names[r].decode(), n, c, t)\n"
	"a = f['scope_bpf/aggregate']\n"
	"print('hist', int(a['histogram'][()].sum()), int(a['count'][()].sum()))\n";

/* Whether python can import h5py; under CI=true its absence fails rather than skips. */
static const char *python_with_h5py(void)
{
	static const char *const pythons[] = { "python3", "/usr/bin/python3" };
	char cmd[128];
	size_t i;

	for (i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd), "%s -c 'import h5py' 2>/dev/null", pythons[i]);
		if (!system(cmd))
			return pythons[i];
	}
	if (!strcmp(env_or("CI", ""), "true"))
		fail_msg("no python3 with h5py (python3-h5py) and CI=true forbids skipping");
	fprintf(stderr, "skipping: no python3 with h5py\n");
	skip();
	return NULL;
}

/* What scope-profiler's reader opens: the aggregate layout, no events, the calls per row. */
static void test_h5py_reads_the_aggregate_layout(void **state)
{
	char h5[300], py[300], out[300], cmd[1200], text[4096];
	const char *python;
	struct sb_profile p;
	FILE *f;

	(void)state;
	require_bpf();
	python = python_with_h5py();
	tmp_file("py.h5", h5, sizeof(h5));
	tmp_file("agg.py", py, sizeof(py));
	tmp_file("py.txt", out, sizeof(out));
	record_agg(h5, "auto", NULL, "count", "5000", NULL);
	f = fopen(py, "w");
	assert_non_null(f);
	fputs(script, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s '%s' '%s' > '%s'", python, py, h5, out);
	assert_int_equal(system(cmd), 0);
	file_text(out, text, sizeof(text));
	load_profile(h5, &p);
	snprintf(cmd, sizeof(cmd), "row tick 0 5000 %" PRId64 "\n",
		 must_pair(&p, "tick", 0)->stats.total);
	sb_profile_free(&p);
	if (!strstr(text, "layout aggregate\n") || !strstr(text, "events 0\n") ||
	    !strstr(text, "row outer 0 1 ") || !strstr(text, cmd) ||
	    !strstr(text, "hist 5001 5001\n"))
		fail_msg("h5py read:\n%s", text);
}

/*
 * report shows the tree, the durations and the HTML page; --memory of a
 * recording without it says what to record; what needs each call says so;
 * both exit 2.
 */
static void test_report_and_refusals(void **state)
{
	char h5[300], page[300], err[1024];
	char *report[] = { (char *)scope_bin(), "report", h5, NULL };
	char *durations[] = { (char *)scope_bin(), "report", "--durations", h5, NULL };
	char *csv[] = { (char *)scope_bin(), "export", "csv", h5, "-o", "-", NULL };
	char *html[] = { (char *)scope_bin(), "report", "--html", page, h5, NULL };
	char *memory[] = { (char *)scope_bin(), "report", "--memory", h5, NULL };
	char *mpi[] = { (char *)scope_bin(), "report", "--mpi", h5, NULL };

	(void)state;
	require_bpf();
	tmp_file("rep.h5", h5, sizeof(h5));
	tmp_file("rep.html", page, sizeof(page));
	record_agg(h5, "auto", NULL, "count", "100", NULL);
	assert_int_equal(run(report), 0);
	assert_int_equal(run(durations), 0);
	assert_int_equal(run(html), 0);
	assert_non_null(strstr(file_text(page, err, sizeof(err)), "<!DOCTYPE html>"));
	assert_int_equal(run(memory), 2);
	read_stderr(err, sizeof(err));
	assert_non_null(strstr(err, "no memory values: record with --memory"));
	assert_int_equal(run(csv), 2);
	read_stderr(err, sizeof(err));
	assert_non_null(strstr(err, "csv needs each call"));
	assert_int_equal(run(mpi), 2);
	read_stderr(err, sizeof(err));
	assert_non_null(strstr(err, "--mpi needs each call"));
}

/* The JSON row of report --memory whose path ends in name (its last element). */
static const struct jv *memory_row(const struct jv *doc, const char *name, size_t depth)
{
	const struct jv *rows = jneed(doc, "regions", J_ARR), *path;
	size_t i;

	for (i = 0; i < rows->n; i++) {
		path = jneed(&rows->items[i], "path", J_ARR);
		if (path->n == depth && path->items[depth - 1].str &&
		    !strcmp(path->items[depth - 1].str, name))
			return &rows->items[i];
	}
	fail_msg("report --memory has no row %s at depth %zu", name, depth);
	return NULL;
}

/*
 * record --aggregate --memory of tests/apps/mem_regions: report --memory
 * shows each path's sums as it shows a full trace's calls (test_memory.c:
 * the same app and bounds), outer's own faults without inner's.
 */
static void test_memory_is_summed(void **state)
{
	char h5[300], json[300], text[8192], path[512];
	char *rec[] = { (char *)scope_bin(), "record", "-q", "--aggregate", "--memory", "-o", h5,
			"--", (char *)app_path("mem_regions", path, sizeof(path)), NULL };
	char *rep[] = { (char *)scope_bin(), "report", "--memory", "-f", "json", "-o", json, h5,
			NULL };
	char *flat[] = { (char *)scope_bin(), "report", "--memory", "--flat", h5, NULL };
	const struct jv *row;
	struct jv doc;

	(void)state;
	require_bpf();
	tmp_file("mem.h5", h5, sizeof(h5));
	tmp_file("mem.json", json, sizeof(json));
	assert_int_equal(run(rec), 0);
	assert_int_equal(run(rep), 0);
	json_parse(file_text(json, text, sizeof(text)), &doc);
	row = memory_row(&doc, "outer", 1);
	assert_int_equal(jint(row, "calls"), 1);
	assert_in_range(jint(row, "page_faults"), 4000, 4010);
	assert_in_range(jint(row, "own_page_faults"), 1000, 1010);
	assert_in_range(jint(memory_row(&doc, "inner", 2), "page_faults"), 3000, 3010);
	assert_in_range(jint(memory_row(&doc, "touch", 1), "page_faults"), 4000, 4010);
	/* 64 MiB written and freed: the peak rose by it (within what /proc's batches hide). */
	assert_in_range(jint(memory_row(&doc, "alloc64", 1), "peak_growth_bytes"),
			60 * 1024 * 1024, 68 * 1024 * 1024);
	assert_in_range(jint(memory_row(&doc, "drop32", 1), "rss_release_bytes"),
			28 * 1024 * 1024, 36 * 1024 * 1024);
	jv_free(&doc);
	assert_int_equal(run(flat), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_exact_fast_path),
		cmocka_unit_test(test_counts_exact_kernel_path),
		cmocka_unit_test(test_totals_fast_path),
		cmocka_unit_test(test_totals_kernel_path),
		cmocka_unit_test(test_counters_are_summed),
		cmocka_unit_test(test_attach_in_windows),
		cmocka_unit_test(test_openmp_rows_nest),
		cmocka_unit_test(test_mpi_ranks_keep_their_rows),
		cmocka_unit_test(test_file_size_does_not_grow_with_calls),
		cmocka_unit_test(test_h5py_reads_the_aggregate_layout),
		cmocka_unit_test(test_report_and_refusals),
		cmocka_unit_test(test_memory_is_summed),
	};

	return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
