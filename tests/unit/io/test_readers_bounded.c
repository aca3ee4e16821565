/* Readers on files that declare more than they hold, or hold a lot: bounded time, memory, exit 2. */
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fixtures.h"

#include "analysis/calltree.h"
#include "cmd/commands.h"
#include "io/h5guard.h"
#include "io/profile_read.h"
#include "analysis/calltree_stream.h"
#include "io/spt_read.h"

/* Address-space limits do not work under ASan, which reserves terabytes up front. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

#define MiB (1ull << 20)

/* ---- running a read in a child with limits ---- */

struct bounded {
	int status;		/* the child's wait status */
	double seconds;
	long max_rss_kb;
};

/*
 * fn(arg) in a child whose address space is capped at mem bytes (0: no cap)
 * and which is killed after secs seconds; fn's value is the exit status.
 */
static struct bounded run_bounded(int (*fn)(const void *arg), const void *arg, uint64_t mem,
				  unsigned secs)
{
	struct timespec a, b;
	struct bounded out;
	struct rusage ru;
	struct rlimit rl;
	pid_t pid;

	clock_gettime(CLOCK_MONOTONIC, &a);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		rl = (struct rlimit){ mem, mem };
		if (mem && !SANITIZED && setrlimit(RLIMIT_AS, &rl))
			_exit(100);
		alarm(secs);
		/* Messages of the code under test are expected: keep the test log short. */
		if (!freopen("/dev/null", "w", stderr))
			_exit(101);
		_exit(fn(arg));
	}
	assert_int_equal(wait4(pid, &out.status, 0, &ru), pid);
	clock_gettime(CLOCK_MONOTONIC, &b);
	out.seconds = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	out.max_rss_kb = ru.ru_maxrss;
	return out;
}

static void expect_exit(const struct bounded *r, int code, double max_seconds)
{
	if (!WIFEXITED(r->status))
		fail_msg("the child died of signal %d after %.2f s", WTERMSIG(r->status),
			 r->seconds);
	if (WEXITSTATUS(r->status) != code)
		fail_msg("the child exited %d, expected %d", WEXITSTATUS(r->status), code);
	if (r->seconds > max_seconds)
		fail_msg("the child took %.2f s, more than %.1f s", r->seconds, max_seconds);
}

/* ---- .spt files, little-endian ---- */


static void put(FILE *f, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		assert_int_equal(fputc((int)(v >> (8 * i) & 0xff), f), (int)(v >> (8 * i) & 0xff));
}

static FILE *spt_open(const char *path, int64_t regions)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	fputs("SCOPEPRF", f);
	put(f, 2, 4);
	put(f, 0, 4);
	put(f, (uint64_t)regions, 8);
	return f;
}

static void spt_head(FILE *f, const char *name, int64_t calls)
{
	put(f, strlen(name), 4);
	fputs(name, f);
	put(f, 0, 4);
	put(f, (uint64_t)-1, 4);
	put(f, (uint64_t)calls, 8);
}

static void spt_calls(FILE *f, const char *name, const int64_t *s, const int64_t *e, size_t n)
{
	size_t i;

	spt_head(f, name, (int64_t)n);
	for (i = 0; i < n; i++)
		put(f, (uint64_t)s[i], 8);
	for (i = 0; i < n; i++)
		put(f, (uint64_t)e[i], 8);
}

/* ---- a header declaring 2^40 calls ---- */

/* 0 when both readers refuse path with -EINVAL, quickly and without allocating what it declares. */
static int refuse_both(const void *arg)
{
	struct sb_ct_opts o = { .rank = -1 };
	struct sb_error err = { .msg = "" };
	const char *path = arg;
	struct sb_calltree t;
	struct sb_profile p;

	if (sb_profile_read(path, &p, &err) != -EINVAL || !strstr(err.msg, "past the end"))
		return 1;
	if (sb_spt_read_tree(path, &p, &o, &t, &err) != -EINVAL || !strstr(err.msg, "past the end"))
		return 2;
	return 0;
}

static void test_spt_declaring_2_40_calls_is_refused_at_once(void **state)
{
	const char *path = tmp_path("huge.spt");
	struct bounded r;
	FILE *f;

	(void)state;
	f = spt_open(path, 1);
	spt_head(f, "solve", 1ll << 40);
	put(f, 10, 8);
	put(f, 15, 8);
	fclose(f);
	r = run_bounded(refuse_both, path, 512 * MiB, 10);
	expect_exit(&r, 0, 3.0);
	/* And a region count of 2^40 in a 40-byte file. */
	f = spt_open(path, 1ll << 40);
	spt_head(f, "solve", 0);
	fclose(f);
	r = run_bounded(refuse_both, path, 512 * MiB, 10);
	assert_true(WIFEXITED(r.status));
	/* That one is caught even earlier, by the region count: the first check fails. */
	assert_int_equal(WEXITSTATUS(r.status), 1);
}

/* Every command says a file that declares too much is bad input: exit 2, not 1. */
static int report_status(const void *arg)
{
	char *argv[] = { "report", (char *)arg, NULL };

	optind = 1;
	return cmd_report(2, argv);
}

static int export_status(const void *arg)
{
	char *argv[] = { "export", "json", "-o", tmp_path("out.json"), (char *)arg, NULL };

	optind = 1;
	return cmd_export(5, argv);
}

static int merge_status(const void *arg)
{
	char *argv[] = { "merge", "-q", "-o", tmp_path("merged.h5"), (char *)arg, NULL };

	optind = 1;
	return cmd_merge(5, argv);
}

static void test_commands_exit_2_on_files_that_declare_too_much(void **state)
{
	const char *path = tmp_path("declares.spt");
	struct bounded r;
	FILE *f;

	(void)state;
	f = spt_open(path, 1);
	spt_head(f, "solve", 1ll << 40);
	fclose(f);
	r = run_bounded(report_status, path, 512 * MiB, 10);
	expect_exit(&r, 2, 3.0);
	r = run_bounded(export_status, path, 512 * MiB, 10);
	expect_exit(&r, 2, 3.0);
}

/* ---- HDF5 columns whose declared rows the file cannot hold ---- */

/* Replace dataset name with a chunked, compressed one of n rows of which nothing is written. */
static void h5_replace_unwritten(const char *path, const char *name, hsize_t n)
{
	hsize_t chunk = 1024, max = H5S_UNLIMITED;
	hid_t f, s, d, dcpl;

	f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	assert_true(f >= 0);
	assert_true(H5Ldelete(f, name, H5P_DEFAULT) >= 0);
	s = H5Screate_simple(1, &n, &max);
	dcpl = H5Pcreate(H5P_DATASET_CREATE);
	assert_true(H5Pset_chunk(dcpl, 1, &chunk) >= 0);
	assert_true(H5Pset_deflate(dcpl, 6) >= 0);
	d = H5Dcreate2(f, name, H5T_STD_I64LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	assert_true(d >= 0);
	H5Dclose(d);
	H5Pclose(dcpl);
	H5Sclose(s);
	H5Fclose(f);
}

static void small_tree(struct sb_profile *p)
{
	static const struct fx_call calls[] = {
		{ "main", 0, 100, 0, -1, 0 },
		{ "solve", 10, 40, 1, 0, 0 },
	};

	fx_call_tree(p, calls, 2, 0);
}

struct h5_case {
	const char *path;
	const char *cause;
};

static int h5_refused(const void *arg)
{
	const struct h5_case *c = arg;
	struct sb_error err = { .msg = "" };
	struct sb_profile p;

	if (sb_profile_read(c->path, &p, &err) != -EINVAL)
		return 1;
	return strstr(err.msg, c->cause) ? 0 : 2;
}

static void test_hdf5_huge_declared_rows_are_refused_at_once(void **state)
{
	struct h5_case c = { tmp_path("huge.h5"), "declares 8589934592 rows but holds only" };
	struct bounded r;

	(void)state;
	fx_write_built(c.path, small_tree);
	h5_replace_unwritten(c.path, "/events/start_times", 1ull << 33);
	r = run_bounded(h5_refused, &c, 512 * MiB, 10);
	expect_exit(&r, 0, 3.0);
	fx_write_built(c.path, small_tree);
	h5_replace_unwritten(c.path, "/events/end_times", 1ull << 40);
	c.cause = "declares 1099511627776 rows (limit";
	r = run_bounded(h5_refused, &c, 512 * MiB, 10);
	expect_exit(&r, 0, 3.0);
}

/*
 * Two fuzzer finds that fail inside libhdf5 (tests/fuzz/hdf5_crashers.txt):
 * a 4 GiB malloc for a vlen string of a 25 KiB file, and an endless loop on
 * a corrupt global heap. Both end as exit 2 within seconds, in report and
 * in merge alike.
 */
static const char *corpus_file(const char *name, char *path, size_t len)
{
	snprintf(path, len, "tests/fuzz/corpus/hdf5-internal/%s", name);
	return access(path, R_OK) ? NULL : path;
}

static void test_hdf5_fuzz_finds_end_within_seconds(void **state)
{
	char a[512], b[512];
	const char *oom = corpus_file("oom-1de0074aa904d5e2a2cb5ac84a7f67aca13c1a96", a, sizeof(a));
	const char *hang = corpus_file("timeout-1530af38e04da1d6bd4c5ba8b6e1324c4c6763f8", b,
				       sizeof(b));
	struct bounded r;

	(void)state;
	if (!oom || !hang) {
		print_message("tests/fuzz/corpus not found (run from the repository root): skipped\n");
		return;
	}
	/* Under ASan the read runs uncapped (see h5guard.c): the 4 GiB malloc would succeed. */
	if (!SANITIZED) {
		r = run_bounded(report_status, oom, 0, 30);
		expect_exit(&r, 2, 3.0);
		if (r.max_rss_kb > 512 * 1024)
			fail_msg("the read took %ld KiB", r.max_rss_kb);
		r = run_bounded(merge_status, oom, 0, 30);
		expect_exit(&r, 2, 3.0);
		if (r.max_rss_kb > 512 * 1024)
			fail_msg("the merge took %ld KiB", r.max_rss_kb);
	}
	r = run_bounded(report_status, hang, 0, 30);
	expect_exit(&r, 2, 8.0);
	r = run_bounded(merge_status, hang, 0, 30);
	expect_exit(&r, 2, 8.0);
}

/* ---- hostile HDF5 files made here: what libhdf5 does with them stays in a child ---- */

/* Replace column name with n zeros in deflated chunks: a few KiB that inflate a thousandfold. */
static void h5_replace_inflating(const char *path, const char *name, hsize_t n)
{
	hsize_t chunk = 1u << 20;
	hid_t f, s, d, dcpl;
	int64_t zero = 0;

	f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	assert_true(f >= 0);
	assert_true(H5Ldelete(f, name, H5P_DEFAULT) >= 0);
	s = H5Screate_simple(1, &n, NULL);
	dcpl = H5Pcreate(H5P_DATASET_CREATE);
	assert_true(H5Pset_chunk(dcpl, 1, &chunk) >= 0);
	assert_true(H5Pset_deflate(dcpl, 9) >= 0);
	/* Every chunk written, as the fill value: the file holds all it declares. */
	assert_true(H5Pset_fill_value(dcpl, H5T_NATIVE_INT64, &zero) >= 0);
	assert_true(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY) >= 0);
	assert_true(H5Pset_fill_time(dcpl, H5D_FILL_TIME_ALLOC) >= 0);
	d = H5Dcreate2(f, name, H5T_STD_I64LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	assert_true(d >= 0);
	H5Dclose(d);
	H5Pclose(dcpl);
	H5Sclose(s);
	H5Fclose(f);
}

#define BOMB_ROWS (1ull << 24)	/* index rows: 2.5 GB as the model holds them */

/*
 * An index of 2^24 rows in well under a MiB: the reader's allocation for the
 * rows is refused by the child's address-space cap at once; memory stays a
 * few MiB and the cause is said. (Before: merge read it uncapped, GBs.)
 */
static void test_hdf5_inflating_index_is_refused_in_bounded_memory(void **state)
{
	static const char *const cols[] = { "/rank_region_index/region_ids",
		"/rank_region_index/ranks", "/rank_region_index/event_offsets",
		"/rank_region_index/event_counts" };
	struct h5_case c = { tmp_path("bomb.h5"), "more than a profile of its size can)" };
	struct bounded r;
	struct stat st;
	size_t i;

	(void)state;
	fx_write_built(c.path, small_tree);
	for (i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		h5_replace_inflating(c.path, cols[i], BOMB_ROWS);
	assert_int_equal(stat(c.path, &st), 0);
	assert_true(st.st_size < (1 << 20));
	/* Under ASan the reader runs uncapped (h5guard.c): only the bomb itself is checked. */
	if (SANITIZED)
		return;
	/* A cap of our own too: should the reader's fail, this test must not take the machine. */
	r = run_bounded(merge_status, c.path, 4ull << 30, 30);
	expect_exit(&r, 2, 5.0);
	if (r.max_rss_kb > 512 * 1024)
		fail_msg("merge took %ld KiB", r.max_rss_kb);
	r = run_bounded(report_status, c.path, 4ull << 30, 30);
	expect_exit(&r, 2, 5.0);
	if (r.max_rss_kb > 512 * 1024)
		fail_msg("report took %ld KiB", r.max_rss_kb);
	r = run_bounded(h5_refused, &c, 4ull << 30, 30);
	expect_exit(&r, 0, 5.0);
}

/* /metadata as an external link into a FIFO: libhdf5 opens it and waits for a writer. */
static void h5_link_to_fifo(const char *path, const char *fifo)
{
	hid_t f;

	assert_true(mkfifo(fifo, 0600) == 0 || errno == EEXIST);
	f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	assert_true(f >= 0);
	assert_true(H5Ldelete(f, "metadata", H5P_DEFAULT) >= 0);
	assert_true(H5Lcreate_external(fifo, "/", f, "metadata", H5P_DEFAULT, H5P_DEFAULT) >= 0);
	H5Fclose(f);
}

static void test_hdf5_external_link_to_a_fifo_ends_within_seconds(void **state)
{
	struct h5_case c = { tmp_path("fifo-link.h5"), "was still reading it after 5 s)" };
	struct bounded r;

	(void)state;
	fx_write_built(c.path, small_tree);
	h5_link_to_fifo(c.path, tmp_path("fifo"));
	r = run_bounded(merge_status, c.path, 0, 30);
	expect_exit(&r, 2, 8.0);
	r = run_bounded(report_status, c.path, 0, 30);
	expect_exit(&r, 2, 8.0);
	r = run_bounded(h5_refused, &c, 0, 30);
	expect_exit(&r, 0, 8.0);
}

/*
 * libhdf5 aborting on a heap it corrupted (glibc: "malloc(): corrupted top
 * size"), simulated: no file is known to make it abort reliably, so the
 * reader's test hook raises SIGABRT in the child reading this file.
 */
static void test_hdf5_library_abort_is_an_error(void **state)
{
	struct h5_case c = { tmp_path("aborts.h5"), "crashed reading it: Aborted)" };
	struct bounded r;

	(void)state;
	fx_write_built(c.path, small_tree);
	assert_int_equal(setenv(SB_H5_TEST_ABORT_ENV, c.path, 1), 0);
	r = run_bounded(merge_status, c.path, 0, 30);
	expect_exit(&r, 2, 3.0);
	r = run_bounded(report_status, c.path, 0, 30);
	expect_exit(&r, 2, 3.0);
	r = run_bounded(h5_refused, &c, 0, 30);
	expect_exit(&r, 0, 3.0);
	unsetenv(SB_H5_TEST_ABORT_ENV);
	r = run_bounded(merge_status, c.path, 0, 30);
	expect_exit(&r, 0, 3.0);
}

/* ---- overflows are named as what they are, not "ends before it starts" ---- */

static void copy_file(const char *from, const char *to)
{
	char buf[4096];
	size_t n;
	FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");

	assert_non_null(a);
	assert_non_null(b);
	while ((n = fread(buf, 1, sizeof(buf), a)) > 0)
		assert_int_equal(fwrite(buf, 1, n, b), n);
	fclose(a);
	assert_int_equal(fclose(b), 0);
}

static void expect_h5_error(const char *path, unsigned flags, const char *cause)
{
	struct sb_error err = { .msg = "" };
	struct sb_profile p;

	assert_int_equal(sb_h5_read_opts(path, &p, flags, &err), -EINVAL);
	assert_msg(&err, path, cause);
}

static void test_overflows_say_what_overflows(void **state)
{
	static const int64_t starts[] = { -1, 10 }, ends[] = { INT64_MAX, 40 };
	static const int64_t durations[] = { 5, INT64_MAX, 15 };
	const char *s2 = tmp_path("overflow2.h5"), *s3 = tmp_path("overflow3.h5");
	const char *golden = "tests/fuzz/corpus/hdf5/scope-profiler-schema-3.h5";

	(void)state;
	fx_write_built(s2, small_tree);
	h5_replace(s2, "/events/start_times", H5T_STD_I64LE, H5T_NATIVE_INT64, starts, 2);
	h5_replace(s2, "/events/end_times", H5T_STD_I64LE, H5T_NATIVE_INT64, ends, 2);
	expect_h5_error(s2, 0, "event 0: duration from -1 to 9223372036854775807 overflows");
	expect_h5_error(s2, SB_H5_READ_LEAN,
			"event 0: duration from -1 to 9223372036854775807 overflows");
	if (access(golden, R_OK)) {
		print_message("tests/fuzz/corpus not found: schema 3 skipped\n");
		return;
	}
	/* scope-profiler's schema 3 stores durations: calls [10,15] [20,33] [40,55]. */
	copy_file(golden, s3);
	h5_replace(s3, "/events/durations", H5T_STD_I64LE, H5T_NATIVE_INT64, durations, 3);
	expect_h5_error(s3, 0, "event 1: start 20 + duration 9223372036854775807 overflows");
	expect_h5_error(s3, SB_H5_READ_LEAN,
			"event 1: start 20 + duration 9223372036854775807 overflows");
}

/* ---- the report of a .spt merges its calls from the file, as a whole read would nest them ---- */

struct gen {
	uint64_t seed;
	int64_t now;
	int64_t *s[4], *e[4];
	size_t n[4], cap;
};

static const char *const gen_names[4] = { "main", "a", "b", "c" };

static uint32_t rnd(struct gen *g, uint32_t n)
{
	g->seed = g->seed * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(g->seed >> 33) % n;
}

/* A call of region r and its children; many start or end at one instant, as ties must work. */
static void gen_call(struct gen *g, int r, int depth)
{
	int64_t start = g->now;
	uint32_t k, kids = depth < 4 ? rnd(g, 4) : 0;

	g->now += rnd(g, 3);
	for (k = 0; k < kids; k++)
		gen_call(g, 1 + (int)rnd(g, 3), depth + 1);
	g->now += rnd(g, 3);
	assert_true(g->n[r] < g->cap);
	g->s[r][g->n[r]] = start;
	g->e[r][g->n[r]++] = g->now;
}

/* Regions as a recorder lists them: by end ("a"), by start, one split in two, one empty. */
static void write_nested_spt(const char *path, size_t top)
{
	struct gen g = { .seed = 7, .cap = 1 << 16 };
	size_t i, half;
	FILE *f;
	int r;

	for (r = 0; r < 4; r++) {
		g.s[r] = malloc(g.cap * sizeof(int64_t));
		g.e[r] = malloc(g.cap * sizeof(int64_t));
	}
	for (i = 0; i < top; i++)
		gen_call(&g, i % 5 ? 0 : 1, 0);
	f = spt_open(path, 6);
	spt_calls(f, "empty", NULL, NULL, 0);
	for (r = 0; r < 4; r++) {
		if (r == 2) {
			half = g.n[r] / 2;
			spt_calls(f, gen_names[r], g.s[r], g.e[r], half);
			spt_calls(f, gen_names[r], g.s[r] + half, g.e[r] + half, g.n[r] - half);
		} else {
			spt_calls(f, gen_names[r], g.s[r], g.e[r], g.n[r]);
		}
		free(g.s[r]);
		free(g.e[r]);
	}
	fclose(f);
}

static void expect_same_tree(const struct sb_calltree *x, const struct sb_calltree *y)
{
	uint32_t i = 0, j = 0;
	const struct sb_ct_node *a, *b;

	assert_int_equal(x->calls, y->calls);
	assert_int_equal(x->n_nodes, y->n_nodes);
	for (;;) {
		i = sb_calltree_next(x, i);
		j = sb_calltree_next(y, j);
		if (i == SB_CT_NONE || j == SB_CT_NONE)
			break;
		a = &x->nodes[i];
		b = &y->nodes[j];
		assert_string_equal(sb_calltree_name(x, i), sb_calltree_name(y, j));
		assert_int_equal(a->depth, b->depth);
		assert_int_equal(a->calls, b->calls);
		assert_int_equal(a->total, b->total);
		assert_int_equal(a->own, b->own);
		assert_int_equal(a->min, b->min);
		assert_int_equal(a->max, b->max);
		assert_int_equal(a->first_start, b->first_start);
	}
	assert_int_equal(i, SB_CT_NONE);
	assert_int_equal(j, SB_CT_NONE);
}

static void test_spt_merged_tree_is_the_whole_read_tree(void **state)
{
	const char *path = tmp_path("nested.spt");
	struct sb_error err = { .msg = "" };
	struct sb_calltree whole, merged;
	struct sb_profile p, q;
	struct sb_ct_opts o = { .rank = -1, .sort = SB_CT_SORT_NAME };
	int flat;

	(void)state;
	write_nested_spt(path, 400);
	if (sb_profile_read(path, &p, &err))
		fail_msg("%s", err.msg);
	for (flat = 0; flat <= 1; flat++) {
		o.flat = flat;
		assert_int_equal(sb_calltree_build(&whole, &p, &o, &err), 0);
		if (sb_spt_read_tree(path, &q, &o, &merged, &err))
			fail_msg("%s", err.msg);
		assert_null(q.events);
		assert_int_equal(q.n_events, p.n_events);
		assert_int_equal(q.n_pairs, p.n_pairs);
		expect_same_tree(&whole, &merged);
		sb_calltree_free(&whole);
		sb_calltree_free(&merged);
		sb_profile_free(&q);
	}
	assert_true(p.n_events > 2000);
	sb_profile_free(&p);
}

/* ---- a large, valid .spt: the report holds the tree, not the calls ---- */

#define BIG_CALLS (3u << 20)

static void write_big_spt(const char *path)
{
	int64_t *buf = malloc(BIG_CALLS / 2 * sizeof(int64_t));
	size_t i, k;
	FILE *f;

	assert_non_null(buf);
	f = spt_open(path, 2);
	/* "main" [10i, 10i+9] holding "work" [10i+1, 10i+6]; the bytes written as they lie. */
	for (k = 0; k < 2; k++) {
		spt_head(f, k ? "work" : "main", BIG_CALLS / 2);
		for (i = 0; i < BIG_CALLS / 2; i++)
			buf[i] = 10 * (int64_t)i + (int64_t)k;
		assert_int_equal(fwrite(buf, sizeof(*buf), BIG_CALLS / 2, f), BIG_CALLS / 2);
		for (i = 0; i < BIG_CALLS / 2; i++)
			buf[i] = 10 * (int64_t)i + (k ? 6 : 9);
		assert_int_equal(fwrite(buf, sizeof(*buf), BIG_CALLS / 2, f), BIG_CALLS / 2);
	}
	fclose(f);
	free(buf);
}

static int report_big(const void *arg)
{
	char *argv[] = { "report", "-o", "/dev/null", (char *)arg, NULL };

	optind = 1;
	return cmd_report(4, argv);
}

/* The whole read says how much memory the calls need before it tries to hold them. */
static int refused_for_memory(const void *arg)
{
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	char want[128];

	if (sb_profile_read(arg, &p, &err) != -EINVAL)
		return 1;
	/* Two events' room per call while reading. */
	snprintf(want, sizeof(want), "1572864 calls need %.0f MiB in memory, more than the 128 MiB",
		 1572864.0 * 2 * sizeof(struct sb_event) / (1 << 20));
	return strstr(err.msg, want) ? 0 : 2;
}

static void test_large_spt_report_stays_small(void **state)
{
	const char *path = tmp_path("big.spt");
	struct bounded r;

	(void)state;
	write_big_spt(path);
	/* Holding the calls takes over 100 bytes each (300 MiB); the tree takes a few KiB. */
	r = run_bounded(report_big, path, SANITIZED ? 0 : 256 * MiB, 60);
	expect_exit(&r, 0, 10.0);
	/*
	 * ASan keeps up to 256 MiB of freed blocks in quarantine: what the report
	 * freed counts there. Its bound still fails a report that holds the
	 * calls (300 MiB, twice that under ASan); the plain build holds the tight one.
	 */
	if (r.max_rss_kb > (SANITIZED ? 96 + 256 : 96) * 1024)
		fail_msg("report of %u calls peaked at %ld KiB", BIG_CALLS, r.max_rss_kb);
	/* An export needs every call: past the machine's memory that is bad input too, exit 2. */
	if (!SANITIZED) {
		r = run_bounded(export_status, path, 128 * MiB, 60);
		expect_exit(&r, 2, 10.0);
		r = run_bounded(refused_for_memory, path, 128 * MiB, 60);
		expect_exit(&r, 0, 10.0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spt_declaring_2_40_calls_is_refused_at_once),
		cmocka_unit_test(test_commands_exit_2_on_files_that_declare_too_much),
		cmocka_unit_test(test_hdf5_huge_declared_rows_are_refused_at_once),
		cmocka_unit_test(test_hdf5_fuzz_finds_end_within_seconds),
		cmocka_unit_test(test_hdf5_inflating_index_is_refused_in_bounded_memory),
		cmocka_unit_test(test_hdf5_external_link_to_a_fifo_ends_within_seconds),
		cmocka_unit_test(test_hdf5_library_abort_is_an_error),
		cmocka_unit_test(test_overflows_say_what_overflows),
		cmocka_unit_test(test_spt_merged_tree_is_the_whole_read_tree),
		cmocka_unit_test(test_large_spt_report_stays_small),
	};

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
