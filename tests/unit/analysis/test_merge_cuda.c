/* merge keeps each input's CUDA activity: ranks, threads, launching rows, names, on one clock. */
#include <unistd.h>

#include "fixtures.h"
#include "cuda_acts.h"
#include "analysis/merge.h"

#define BARRIER "mpi:barrier kind=collective bytes=0 peer=-1 root=-1 tag=-1 comm=1140850688"
#define INIT "mpi:init kind=collective bytes=0 peer=-1 root=-1 tag=-1 comm=1140850688"
#define REAL_OFFSET 1700000000000000000LL	/* CLOCK_REALTIME - CLOCK_MONOTONIC on node A */
#define SKEW 7000000LL		/* node B's monotonic clock reads this much more than A's */

/* A region's index row on rank with the calls [start, end) listed, on thread 0. */
static void add_calls(struct sb_profile *p, const char *name, uint32_t rank, const int64_t *t,
		      size_t n, int64_t skew)
{
	ssize_t r = sb_profile_find_region(p, name);
	struct sb_event e;
	size_t i;

	if (r < 0)
		r = sb_profile_add_region(p, name, "", -1, "[]");
	assert_true(r >= 0);
	for (i = 0; i < n; i++) {
		sb_event_blank(&e);
		e.start = t[2 * i] + skew;
		e.end = t[2 * i + 1] + skew;
		e.thread = 0;
		e.call_id = (int64_t)p->n_events;
		fx_add_call(p, (uint32_t)r, rank, &e);
	}
}

static void set_names(struct sb_profile *p, const char *const *names, size_t n)
{
	size_t i;

	p->cuda.names = calloc(n, sizeof(char *));
	assert_non_null(p->cuda.names);
	for (i = 0; i < n; i++)
		p->cuda.names[i] = strdup(names[i]);
	p->cuda.n_names = n;
}

/*
 * Node A, rank 0, on its own clock: init [40, 50], the barrier [100, 160],
 * solve [200, 300] and [400, 500] (index rows 0, 1, 2). Its worker thread
 * (row 1) launches axpy inside the first solve (call 2).
 */
static void build_a(struct sb_profile *p)
{
	static const int64_t init[] = { 40, 50 }, bar[] = { 100, 160 };
	static const int64_t solve[] = { 200, 300, 400, 500 };
	static const char *const names[] = { "_Z4axpyv" };
	static const struct sb_thread th[] = {
		{ 0, 0, 100, 10, -1, -1, "main" }, { 0, 1, 101, 20, -1, -1, "worker" },
	};
	struct sb_cuda_activity v[2];

	sb_profile_init(p);
	p->columns = SB_COL_THREAD | SB_COL_CALL_ID;
	add_calls(p, INIT, 0, init, 1, 0);
	add_calls(p, BARRIER, 0, bar, 1, 0);
	add_calls(p, "solve", 0, solve, 2, 0);
	fx_add_threads(p, th, 2);
	v[0] = cu_api(0, SB_CUDA_ACT_RUNTIME, 210, 215, 1, 1, 211);
	v[1] = cu_gpu(0, SB_CUDA_ACT_KERNEL, 0, 7, 220, 260, 1);
	v[1].name = 0;
	cu_launched(&v[1], 1, 210, 215, 2, 2);
	p->cuda.acts = fx_copy(v, sizeof(v));
	p->cuda.n_acts = 2;
	set_names(p, names, 1);
}

/*
 * Node B, rank 1, its times skew later, its index rows in another order:
 * solve [170, 240] (row 0, call 0), init [0, 51] (row 1), the barrier
 * [140, 150] (row 2). In solve it copies and runs axpy (its name id 1);
 * outside every region a kernel of its own; then it waits.
 */
static void build_b(struct sb_profile *p, int64_t skew)
{
	static const int64_t init[] = { 0, 51 }, bar[] = { 140, 150 }, solve[] = { 170, 240 };
	static const char *const names[] = { "_Z5otherv", "_Z4axpyv" };
	struct sb_thread th = { 1, 0, 200, 30 + skew, -1, -1, "main" };
	struct sb_cuda_activity v[4];
	size_t i;

	sb_profile_init(p);
	p->columns = SB_COL_THREAD | SB_COL_CALL_ID;
	add_calls(p, "solve", 1, solve, 1, skew);
	add_calls(p, INIT, 1, init, 1, skew);
	add_calls(p, BARRIER, 1, bar, 1, skew);
	fx_add_threads(p, &th, 1);
	v[0] = cu_gpu(1, SB_CUDA_ACT_MEMCPY, 0, 3, 175, 180, 4);
	v[0].bytes = 4096;
	v[0].copy_kind = 1;
	cu_launched(&v[0], 0, 171, 172, 0, 0);
	v[1] = cu_gpu(1, SB_CUDA_ACT_KERNEL, 0, 3, 190, 230, 5);
	v[1].name = 1;
	cu_launched(&v[1], 0, 185, 186, 0, 0);
	v[2] = cu_gpu(1, SB_CUDA_ACT_KERNEL, 0, 3, 250, 260, 6);
	v[2].name = 0;
	cu_launched(&v[2], 0, 245, 246, -1, -1);
	v[3] = cu_api(1, SB_CUDA_ACT_SYNC, 250, 270, 0, 0, 3);
	for (i = 0; i < 4; i++) {
		v[i].start += skew;
		v[i].end += skew;
		if (v[i].launch_start >= 0) {
			v[i].launch_start += skew;
			v[i].launch_end += skew;
		}
	}
	p->cuda.acts = fx_copy(v, sizeof(v));
	p->cuda.n_acts = 4;
	set_names(p, names, 2);
}

/* Write p with the realtime offset of a node whose clock reads skew more, err wrong. */
static void write_node(const char *path, struct sb_profile *p, const char *boot, int64_t skew,
		       int64_t err)
{
	struct sb_error e = { .msg = "" };

	assert_int_equal(sb_profile_set_str(p, "boot_id", boot), 0);
	assert_int_equal(sb_profile_set_int(p, "mpi_size", 2), 0);
	assert_int_equal(sb_profile_set_int(p, SB_META_CLOCK_START, REAL_OFFSET - skew + err), 0);
	assert_int_equal(sb_profile_set_int(p, SB_META_CLOCK_END, REAL_OFFSET - skew + err), 0);
	if (fx_write_h5(path, p, &e))
		fail_msg("%s", e.msg);
	sb_profile_free(p);
}

static void write_inputs(int64_t b_err)
{
	struct sb_profile p;

	build_a(&p);
	write_node(tmp_path("a.h5"), &p, "boot-a", 0, 0);
	build_b(&p, SKEW);
	write_node(tmp_path("b.h5"), &p, "boot-b", SKEW, b_err);
}

static void merge_read(const char *first, const char *second, struct sb_profile *p)
{
	const char *in[] = { tmp_path(first), tmp_path(second) };
	struct sb_error e = { .msg = "" };
	char why[256];

	if (sb_merge(in, 2, tmp_path("m.h5"), NULL, &e))
		fail_msg("%s", e.msg);
	if (sb_h5_read(tmp_path("m.h5"), p, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(sb_kinds_check(p, why, sizeof(why)), 0);
}

/* The region an activity's launching row is of, checking the row is of its rank. */
static const char *launcher(const struct sb_profile *p, const struct sb_cuda_activity *a)
{
	if (a->pair < 0)
		return NULL;
	assert_true((size_t)a->pair < p->n_pairs);
	assert_int_equal(p->pairs[a->pair].rank, a->rank);
	return p->regions[p->pairs[a->pair].region].name;
}

static const char *kernel(const struct sb_profile *p, const struct sb_cuda_activity *a)
{
	assert_true(a->name >= 0 && (size_t)a->name < p->cuda.n_names);
	return p->cuda.names[a->name];
}

static void expect_sorted(const struct sb_profile *p)
{
	const struct sb_cuda_activity *a = p->cuda.acts;
	size_t i;

	for (i = 1; i < p->cuda.n_acts; i++)
		assert_true(a[i - 1].rank < a[i].rank ||
			    (a[i - 1].rank == a[i].rank && a[i - 1].start <= a[i].start));
}

/*
 * Rank 1's activities point at its rows, now after rank 0's, and at the one
 * name axpy has in the merged table; its times, launches included, are moved
 * by the shift the merge recorded for b.h5.
 */
static void test_merged_activity_points_at_the_merged_rows_and_names(void **state)
{
	const struct sb_cuda_activity *a;
	struct sb_profile p;
	int64_t shift;

	(void)state;
	write_inputs(0);
	merge_read("a.h5", "b.h5", &p);
	shift = sb_profile_meta(&p, "merge_clock_shift_ns_1")->i;
	assert_int_equal(shift, -SKEW);
	assert_int_equal(p.cuda.n_acts, 6);
	assert_int_equal(p.cuda.n_names, 2);
	expect_sorted(&p);
	a = p.cuda.acts;
	/* Rank 0 as recorded: its worker thread, its solve row, no shift. */
	assert_int_equal(a[1].rank, 0);
	assert_string_equal(kernel(&p, &a[1]), "_Z4axpyv");
	assert_string_equal(launcher(&p, &a[1]), "solve");
	assert_int_equal(a[1].thread, 1);
	assert_int_equal(a[1].call_id, 2);
	assert_int_equal(a[1].start, 220);
	assert_int_equal(a[1].launch_start, 210);
	/* Rank 1: the copy and axpy in its solve, on A's clock. */
	assert_int_equal(a[2].rank, 1);
	assert_int_equal(a[2].kind, SB_CUDA_ACT_MEMCPY);
	assert_string_equal(launcher(&p, &a[2]), "solve");
	assert_int_equal(a[2].start, 175);
	assert_int_equal(a[2].end, 180);
	assert_int_equal(a[2].launch_start, 171);
	assert_int_equal(a[2].launch_end, 172);
	assert_int_equal(a[3].kind, SB_CUDA_ACT_KERNEL);
	assert_string_equal(kernel(&p, &a[3]), "_Z4axpyv");
	assert_int_equal(a[3].name, a[1].name);
	assert_string_equal(launcher(&p, &a[3]), "solve");
	assert_int_equal(a[3].pair, a[2].pair);
	assert_int_not_equal(a[3].pair, a[1].pair);
	assert_int_equal(a[3].call_id, 0);
	/* Outside every region, and a wait with no launch: -1 stays -1. */
	assert_string_equal(kernel(&p, &a[4]), "_Z5otherv");
	assert_null(launcher(&p, &a[4]));
	assert_int_equal(a[4].start, 250);
	assert_int_equal(a[5].kind, SB_CUDA_ACT_SYNC);
	assert_int_equal(a[5].launch_start, -1);
	assert_int_equal(a[5].launch_end, -1);
	assert_int_equal(a[5].end, 270);
	sb_profile_free(&p);
}

/* With b.h5 first, its clock is the reference: a's activity moves, and rank 0 still leads. */
static void test_first_input_sets_the_clock_and_ranks_still_lead(void **state)
{
	struct sb_profile p;

	(void)state;
	write_inputs(0);
	merge_read("b.h5", "a.h5", &p);
	assert_int_equal(p.cuda.n_acts, 6);
	expect_sorted(&p);
	assert_int_equal(p.cuda.acts[1].rank, 0);
	assert_int_equal(p.cuda.acts[1].start, 220 + SKEW);
	assert_int_equal(p.cuda.acts[1].launch_end, 215 + SKEW);
	assert_string_equal(launcher(&p, &p.cuda.acts[1]), "solve");
	assert_int_equal(p.cuda.acts[3].start, 190 + SKEW);
	sb_profile_free(&p);
}

/*
 * b.h5's realtime offset is 5 ms wrong; rank 1 cannot have entered the
 * barrier after rank 0 left it, so its collectives move the shift to 20 ns
 * from the true one. Its activity moves by that refined shift, as its calls do.
 */
static void test_refined_clock_moves_the_activity(void **state)
{
	struct sb_profile p;
	int64_t shift;

	(void)state;
	write_inputs(5000000);
	merge_read("a.h5", "b.h5", &p);
	shift = sb_profile_meta(&p, "merge_clock_shift_ns_1")->i;
	expect_has(sb_profile_meta(&p, "merge_clock_method_1")->s, "upper collective bound");
	assert_int_equal(shift, -SKEW + 20);
	assert_int_equal(p.cuda.acts[2].start, 175 + 20);
	assert_int_equal(p.cuda.acts[2].launch_start, 171 + 20);
	assert_int_equal(p.cuda.acts[3].end, 230 + 20);
	assert_int_equal(p.cuda.acts[3].launch_end, 186 + 20);
	/* The calls moved the same way: the copy's launch is still inside its solve call. */
	assert_int_equal(p.events[p.pairs[p.cuda.acts[2].pair].offset].start, 170 + 20);
	sb_profile_free(&p);
}

/* Activity on a rank another file holds is a conflict, as calls there would be. */
static void test_activity_on_a_rank_of_another_file_is_refused(void **state)
{
	const char *in[] = { tmp_path("a.h5"), tmp_path("b0.h5") };
	struct sb_error e = { .msg = "" };
	struct sb_profile p;

	(void)state;
	write_inputs(0);
	build_b(&p, SKEW);
	p.cuda.acts[3].rank = 0;
	p.cuda.acts[3].thread = -1;
	write_node(in[1], &p, "boot-b", SKEW, 0);
	assert_int_equal(sb_merge(in, 2, tmp_path("m.h5"), NULL, &e), -EINVAL);
	expect_has(e.msg, "b0.h5: rank 0 is also in");
}

/* A time that leaves int64 on the first file's clock names its file; nothing is written. */
static void test_activity_time_out_of_range_names_its_file(void **state)
{
	const char *in[] = { tmp_path("a.h5"), tmp_path("late.h5") };
	struct sb_error e = { .msg = "" };
	struct sb_profile p;

	(void)state;
	write_inputs(0);
	/* Its offsets say its clock is behind: its times move up, past the end of int64. */
	build_b(&p, 0);
	p.cuda.acts[3].end = INT64_MAX - 5;
	write_node(in[1], &p, "boot-b", -SKEW, 0);
	assert_int_equal(sb_merge(in, 2, tmp_path("late-m.h5"), NULL, &e), -ERANGE);
	expect_has(e.msg, "late.h5: a CUDA activity's time overflows");
	assert_int_equal(access(tmp_path("late-m.h5"), F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merged_activity_points_at_the_merged_rows_and_names),
		cmocka_unit_test(test_first_input_sets_the_clock_and_ranks_still_lead),
		cmocka_unit_test(test_refined_clock_moves_the_activity),
		cmocka_unit_test(test_activity_on_a_rank_of_another_file_is_refused),
		cmocka_unit_test(test_activity_time_out_of_range_names_its_file),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
