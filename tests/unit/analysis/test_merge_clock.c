/* merge's clocks: blocking collectives bound the shift; the realtime estimate moves into them. */
#include "fixtures.h"
#include "analysis/merge.h"
#include "analysis/merge_clock.h"
#include "model/mpi_sync.h"

#define BARRIER "mpi:barrier kind=collective bytes=0 peer=-1 root=-1 tag=-1 comm=1140850688"
#define INIT "mpi:init kind=collective bytes=0 peer=-1 root=-1 tag=-1 comm=1140850688"
#define FINALIZE "mpi:finalize kind=collective bytes=0 peer=-1 root=-1 tag=-1 comm=1140850688"
#define REAL_OFFSET 1700000000000000000LL	/* CLOCK_REALTIME - CLOCK_MONOTONIC on node A */

static void test_witnesses_are_blocking_collectives_on_world(void **state)
{
	(void)state;
	assert_int_equal(sb_mpi_sync_kind(INIT), SB_SYNC_INIT);
	assert_int_equal(sb_mpi_sync_kind("mpi:init_thread kind=collective bytes=0 comm=-1"),
			 SB_SYNC_INIT);
	assert_int_equal(sb_mpi_sync_kind(FINALIZE), SB_SYNC_FINALIZE);
	assert_int_equal(sb_mpi_sync_kind(BARRIER), SB_SYNC_COLLECTIVE);
	assert_int_equal(sb_mpi_sync_kind("mpi:allreduce kind=collective bytes=8 peer=-1 root=-1 "
					  "tag=-1 comm=1140850688"), SB_SYNC_COLLECTIVE);
	/* An empty allreduce may return at once; a sub-communicator holds only some ranks. */
	assert_int_equal(sb_mpi_sync_kind("mpi:allreduce kind=collective bytes=0 peer=-1 root=-1 "
					  "tag=-1 comm=1140850688"), SB_SYNC_NONE);
	assert_int_equal(sb_mpi_sync_kind("mpi:barrier kind=collective bytes=0 peer=-1 root=-1 "
					  "tag=-1 comm=-2080374784"), SB_SYNC_NONE);
	/* The root of a bcast or reduce may leave before the others come. */
	assert_int_equal(sb_mpi_sync_kind("mpi:bcast kind=collective bytes=8 peer=-1 root=0 "
					  "tag=-1 comm=1140850688"), SB_SYNC_NONE);
	assert_int_equal(sb_mpi_sync_kind("mpi:initialize kind=collective"), SB_SYNC_NONE);
	assert_int_equal(sb_mpi_sync_kind("barrier comm=1140850688"), SB_SYNC_NONE);
}

/* A region name's index row on rank, with the calls [start, end) listed. */
static void add_calls(struct sb_profile *p, const char *name, uint32_t rank, const int64_t *t,
		      size_t n)
{
	ssize_t r = sb_profile_find_region(p, name);
	struct sb_event e;
	size_t i;

	if (r < 0)
		r = sb_profile_add_region(p, name, "", -1, "[]");
	assert_true(r >= 0);
	for (i = 0; i < n; i++) {
		sb_event_blank(&e);
		e.start = t[2 * i];
		e.end = t[2 * i + 1];
		e.thread = 0;
		fx_add_call(p, (uint32_t)r, rank, &e);
	}
}

static void test_first_and_last_call_come_from_the_index_row(void **state)
{
	static const int64_t t[] = { 100, 150, 300, 320, 500, 600 };
	struct sb_call_span c;
	struct sb_profile p;

	(void)state;
	sb_profile_init(&p);
	add_calls(&p, BARRIER, 0, t, 3);
	assert_true(sb_pair_first_call(&p.pairs[0], &c));
	assert_int_equal(c.entry, 100);
	assert_int_equal(c.exit, 150);
	assert_true(sb_pair_last_call(&p.pairs[0], &c));
	assert_int_equal(c.entry, 500);
	assert_int_equal(c.exit, 600);
	/* Times that are no clock's: the call is no witness. */
	p.pairs[0].stats.start_minimum = INT64_MAX - 10;
	assert_false(sb_pair_first_call(&p.pairs[0], &c));
	p.pairs[0].stats.end_maximum = INT64_MIN + 10;
	assert_false(sb_pair_last_call(&p.pairs[0], &c));
	p.pairs[0].count = 0;
	p.pairs[0].stats.start_minimum = 0;
	assert_false(sb_pair_first_call(&p.pairs[0], &c));
	sb_profile_free(&p);
}

static const struct sb_sync_call *find(const struct sb_sync_call *v, size_t n, const char *name,
				       bool last)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].last == last && !strcmp(v[i].name, name))
			return &v[i];
	fail_msg("no %s call of %s", last ? "last" : "first", name);
	return NULL;
}

/* A file's view of a call: the latest entry and earliest exit of its ranks; counts must agree. */
static void test_sync_calls_fold_the_ranks_of_a_file(void **state)
{
	static const int64_t r0[] = { 100, 150, 500, 600 }, r1[] = { 120, 140, 520, 590 };
	static const int64_t r2[] = { 110, 160 }, init0[] = { 10, 20 };
	struct sb_sync_call *v;
	struct sb_profile p;
	size_t n;

	(void)state;
	sb_profile_init(&p);
	add_calls(&p, BARRIER, 0, r0, 2);
	add_calls(&p, BARRIER, 1, r1, 2);
	add_calls(&p, INIT, 0, init0, 1);
	add_calls(&p, "solve", 0, init0, 1);
	assert_int_equal(sb_sync_calls(&p, &v, &n), 0);
	/* Barrier first and last; init has one call, so only a first. */
	assert_int_equal(n, 3);
	assert_int_equal(find(v, n, BARRIER, false)->count, 2);
	assert_int_equal(find(v, n, BARRIER, false)->max_entry, 120);
	assert_int_equal(find(v, n, BARRIER, false)->min_exit, 140);
	assert_int_equal(find(v, n, BARRIER, true)->max_entry, 520);
	assert_int_equal(find(v, n, BARRIER, true)->min_exit, 590);
	assert_int_equal(find(v, n, INIT, false)->min_exit, 20);
	free(v);
	/* A rank that saw one barrier fewer (attached late): its k-th is not the others' k-th. */
	add_calls(&p, BARRIER, 2, r2, 1);
	assert_int_equal(sb_sync_calls(&p, &v, &n), 0);
	assert_int_equal(find(v, n, BARRIER, false)->count, 0);
	free(v);
	sb_profile_free(&p);
}

static struct sb_sync_call call(const char *name, bool last, uint64_t count, int64_t entry,
				int64_t exit)
{
	return (struct sb_sync_call){ name, last, count, entry, exit };
}

/* ref's ranks entered at 100 and left from 150; q's clock reads 1000 more. */
static void test_bounds_are_what_causality_allows(void **state)
{
	struct sb_sync_call ref[] = { call(BARRIER, false, 2, 100, 150),
				      call(BARRIER, true, 2, 500, 510),
				      call(INIT, false, 1, 10, 20) };
	struct sb_sync_call q[] = { call(BARRIER, false, 2, 1090, 1140),
				    call(BARRIER, true, 2, 1505, 1530),
				    call(INIT, false, 2, 1010, 1020) };
	struct sb_shift_bounds b;

	(void)state;
	assert_int_equal(sb_shift_bounds(ref, 3, q, 3, &b), 0);
	/* First barrier: [100 - 1140, 150 - 1090]; last: [500 - 1530, 510 - 1505]. */
	/* Init is no witness: its counts differ. */
	assert_int_equal(b.witnesses, 2);
	assert_int_equal(b.lo, -1030);
	assert_int_equal(b.hi, -995);
	assert_int_equal(sb_shift_bounds(ref, 3, q, 0, &b), 0);
	assert_int_equal(b.witnesses, 0);
	assert_true(b.lo == INT64_MIN && b.hi == INT64_MAX);
	/* A call of ref's ranks where some differed in count is no witness either. */
	ref[0].count = 0;
	q[0].count = 0;
	assert_int_equal(sb_shift_bounds(ref, 1, q, 1, &b), 0);
	assert_int_equal(b.witnesses, 0);
	/* Times at the ends of int64: an error, not a wrapped bound. */
	ref[1].max_entry = INT64_MAX;
	q[1].min_exit = -10;
	assert_int_equal(sb_shift_bounds(ref, 3, q, 3, &b), -ERANGE);
}

static void expect_refined(int64_t est, bool known, int64_t lo, int64_t hi, int64_t want,
			   const char *method)
{
	struct sb_shift_bounds b = { lo, hi, 1 };
	const char *m;
	int64_t s;

	assert_int_equal(sb_shift_refine(est, known, &b, &s, &m), 0);
	assert_int_equal(s, want);
	expect_has(m, method);
}

static void test_estimate_moves_to_the_nearest_bound(void **state)
{
	struct sb_shift_bounds none = { INT64_MIN, INT64_MAX, 0 }, bad = { 50, 40, 3 };
	const char *m;
	int64_t s;

	(void)state;
	expect_refined(-1000, true, -1030, -995, -1000, "within the collective bounds");
	expect_refined(-5000, true, -1030, -995, -1030, "lower collective bound");
	expect_refined(4000, true, -1030, -995, -995, "upper collective bound");
	/* One-sided bounds move only an estimate past them. */
	expect_refined(7, true, INT64_MIN, 5, 5, "upper collective bound");
	expect_refined(7, true, 9, INT64_MAX, 9, "lower collective bound");
	/* No estimate: the middle, rounded down, even across the whole int64 range. */
	expect_refined(0, false, -1030, -995, -1013, "middle");
	expect_refined(0, false, INT64_MIN + 1, INT64_MAX - 1, -1, "middle");
	expect_refined(0, false, 9, INT64_MAX, 9, "one collective bound");
	/* No witness: the estimate as it is. */
	assert_int_equal(sb_shift_refine(123, true, &none, &s, &m), 0);
	assert_int_equal(s, 123);
	assert_string_equal(m, "realtime offsets");
	assert_int_equal(sb_shift_refine(123, false, &none, &s, &m), 0);
	assert_int_equal(s, 0);
	assert_string_equal(m, "unknown");
	/* Bounds that contradict each other: said, and the estimate kept. */
	assert_int_equal(sb_shift_refine(123, true, &bad, &s, &m), 1);
	assert_int_equal(s, 123);
	expect_has(m, "contradict");
}

static void test_rank_times_are_init_exit_and_finalize_entry(void **state)
{
	static const int64_t init0[] = { 10, 20 }, fin0[] = { 900, 950 }, fin2[] = { 500, 700 };
	struct sb_profile p;
	char *json;

	(void)state;
	sb_profile_init(&p);
	json = sb_mpi_rank_times_json(&p);
	assert_string_equal(json, "[]");
	free(json);
	add_calls(&p, INIT, 0, init0, 1);
	add_calls(&p, FINALIZE, 0, fin0, 1);
	add_calls(&p, FINALIZE, 2, fin2, 1);
	add_calls(&p, BARRIER, 1, init0, 1);
	json = sb_mpi_rank_times_json(&p);
	assert_string_equal(json, "[{\"rank\": 0, \"init_exit_ns\": 20, \"finalize_entry_ns\": 900}, "
			    "{\"rank\": 2, \"init_exit_ns\": -1, \"finalize_entry_ns\": 500}]");
	free(json);
	sb_profile_free(&p);
}

/*
 * One rank of a run on a node whose monotonic clock reads skew more than
 * node A's, its realtime offset reading wrong by err. On A's clock: rank 0
 * is in the barrier over [100, 160], rank 1 over [140, 150]; in init over
 * [40, 50] and [late, late + 51].
 */
static void write_node(const char *path, uint32_t rank, int64_t skew, int64_t err,
		       const char *boot, int64_t late)
{
	int64_t bar[] = { rank ? 140 : 100, rank ? 150 : 160 };
	int64_t init[] = { rank ? late : 40, rank ? late + 51 : 50 };
	struct sb_error e = { .msg = "" };
	struct sb_thread th = { rank, 0, 100 + rank, skew, -1, -1, "main" };
	struct sb_profile p;

	bar[0] += skew;
	bar[1] += skew;
	init[0] += skew;
	init[1] += skew;
	sb_profile_init(&p);
	p.columns = SB_COL_THREAD;
	add_calls(&p, INIT, rank, init, 1);
	add_calls(&p, BARRIER, rank, bar, 1);
	fx_add_threads(&p, &th, 1);
	assert_int_equal(sb_profile_set_str(&p, "boot_id", boot), 0);
	assert_int_equal(sb_profile_set_int(&p, SB_META_CLOCK_START, REAL_OFFSET - skew + err), 0);
	assert_int_equal(sb_profile_set_int(&p, SB_META_CLOCK_END, REAL_OFFSET - skew + err), 0);
	if (fx_write_h5(path, &p, &e))
		fail_msg("%s", e.msg);
	sb_profile_free(&p);
}

static int64_t merged_shift_late(int64_t err, int64_t late, const char *method, FILE *note)
{
	const char *in[] = { tmp_path("a.h5"), tmp_path("b.h5") };
	struct sb_error e = { .msg = "" };
	struct sb_profile p;
	int64_t shift;

	write_node(in[0], 0, 0, 0, "boot-a", 0);
	write_node(in[1], 1, 7000000, err, "boot-b", late);
	if (sb_merge(in, 2, tmp_path("m.h5"), note, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(sb_h5_read(tmp_path("m.h5"), &p, &e), 0);
	shift = sb_profile_meta(&p, "merge_clock_shift_ns_1")->i;
	expect_has(sb_profile_meta(&p, "merge_clock_method_1")->s, method);
	expect_has(sb_profile_meta(&p, "merge_inputs")->s, "\"clock_witnesses\": 2");
	sb_profile_free(&p);
	return shift;
}

static int64_t merged_shift(int64_t err, const char *method)
{
	return merged_shift_late(err, 0, method, NULL);
}

/*
 * Rank 1 cannot have entered the barrier after rank 0 left it (160 - 140),
 * nor left init before rank 0 entered it (40 - 51): its clock's shift lies
 * in [-7000000 - 11, -7000000 + 20]. A realtime offset 5 ms wrong goes to
 * the bound next to it; a right one stays.
 */
static void test_merge_moves_a_wrong_estimate_into_the_bounds(void **state)
{
	(void)state;
	assert_int_equal(merged_shift(0, "within the collective bounds"), -7000000);
	assert_int_equal(merged_shift(5000000, "upper collective bound"), -7000000 + 20);
	assert_int_equal(merged_shift(-5000000, "lower collective bound"), -7000000 - 11);
}

/*
 * Rank 1 in init from 1000 (A's clock) after rank 0 left it at 50, yet in the
 * barrier with it: no shift obeys both. The estimate is kept, and said so.
 */
static void test_contradicting_collectives_keep_the_estimate(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *note = open_memstream(&text, &len);

	(void)state;
	assert_non_null(note);
	assert_int_equal(merged_shift_late(5000000, 1000, "contradict", note), -7000000 + 5000000);
	fclose(note);
	expect_has(text, "b.h5: its MPI collectives and those of");
	expect_has(text, "allow no common clock shift (-7000050 > -7000950 ns)");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_witnesses_are_blocking_collectives_on_world),
		cmocka_unit_test(test_first_and_last_call_come_from_the_index_row),
		cmocka_unit_test(test_sync_calls_fold_the_ranks_of_a_file),
		cmocka_unit_test(test_bounds_are_what_causality_allows),
		cmocka_unit_test(test_estimate_moves_to_the_nearest_bound),
		cmocka_unit_test(test_rank_times_are_init_exit_and_finalize_entry),
		cmocka_unit_test(test_merge_moves_a_wrong_estimate_into_the_bounds),
		cmocka_unit_test(test_contradicting_collectives_keep_the_estimate),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
