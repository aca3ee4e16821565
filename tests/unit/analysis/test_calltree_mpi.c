/* Unit tests of the call tree's MPI rows: one per MPI function, the call regions as details. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/calltree_mpi.h"
#include "cmd/commands.h"
#include "fixtures.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define TREE (SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID | SB_COL_OFFCPU)

#define RECV(args) "mpi:recv kind=point-to-point " args " root=-1 comm=1140850688"
#define RECV1 RECV("bytes=800 peer=1 tag=7")
#define RECV2 RECV("bytes=800 peer=2 tag=7")
#define RECV3 RECV("bytes=1600 peer=3 tag=9")
#define SEND1 "mpi:send kind=point-to-point bytes=800 peer=1 root=-1 tag=7 comm=1140850688"

/*
 * step { recv from 1 (twice), from 2 { unpack }, from 3 { unpack }, send to 1
 * { reduce_op } }: user code called inside MPI calls (a reduction operator, a
 * CUDA-aware library's copies) nests below them.
 */
static const struct fx_call calls[] = {
	{ "step", 0, 1000, 1, -1, 100 },
	{ RECV1, 10, 30, 2, 1, 5 },
	{ RECV1, 100, 140, 3, 1, 5 },
	{ RECV2, 200, 270, 4, 1, 50 },
	{ "unpack", 210, 220, 9, 4, 0 },
	{ "unpack", 301, 304, 8, 5, 0 },
	{ RECV3, 300, 310, 5, 1, 0 },
	{ SEND1, 400, 450, 6, 1, 0 },
	{ "reduce_op", 410, 420, 7, 6, 0 },
};

static void build(struct sb_profile *p)
{
	fx_call_tree(p, calls, sizeof(calls) / sizeof(calls[0]), TREE);
}

/* The tree of the calls above, grouped (detail or not), by total. */
static void grouped(struct sb_profile *p, struct sb_calltree *t, bool flat, bool detail)
{
	struct sb_ct_opts co = { .flat = flat, .rank = -1, .sort = SB_CT_SORT_TOTAL };
	struct sb_error err = { .msg = "" };

	build(p);
	assert_int_equal(sb_calltree_build(t, p, &co, &err), 0);
	assert_int_equal(sb_calltree_group_mpi(t, detail, SB_CT_SORT_TOTAL), 0);
}

struct row {
	uint32_t depth;
	const char *label;
	uint64_t calls;
	int64_t total, own, offcpu, min, max;
};

static void expect_rows(const struct sb_calltree *t, const struct row *want, size_t n)
{
	uint32_t i;
	size_t k = 0;

	for (i = sb_calltree_next(t, 0); i != SB_CT_NONE; i = sb_calltree_next(t, i), k++) {
		const struct sb_ct_node *x = &t->nodes[i];

		if (k == n)
			fail_msg("an extra row: %s", sb_calltree_label(t, i));
		assert_string_equal(sb_calltree_label(t, i), want[k].label);
		assert_int_equal(x->depth, want[k].depth);
		assert_int_equal(x->calls, want[k].calls);
		assert_int_equal(x->total, want[k].total);
		assert_int_equal(x->own, want[k].own);
		assert_int_equal(x->offcpu, want[k].offcpu);
		assert_int_equal(x->min, want[k].min);
		assert_int_equal(x->max, want[k].max);
	}
	assert_int_equal(k, n);
}

/* Every call of the three receive regions lands in one mpi:recv row; the sums are exact. */
static void test_one_row_per_mpi_function(void **state)
{
	static const struct row want[] = {
		{ 1, "step", 1, 1000, 1000 - 140 - 50, 100, 1000, 1000 },
		{ 2, "mpi:recv", 4, 20 + 40 + 70 + 10, 140 - 13, 60, 10, 70 },
		/* What ran inside any of them, merged as if one region. */
		{ 3, "unpack", 2, 13, 13, 0, 3, 10 },
		{ 2, "mpi:send", 1, 50, 40, 0, 50, 50 },
		{ 3, "reduce_op", 1, 10, 10, 0, 10, 10 },
	};
	struct sb_calltree t;
	struct sb_profile p;

	(void)state;
	grouped(&p, &t, false, false);
	expect_rows(&t, want, sizeof(want) / sizeof(want[0]));
	/* JSON and CSV paths name the function row as the text does. */
	assert_string_equal(sb_calltree_name(&t, t.nodes[t.nodes[0].first_child].first_child),
			    "mpi:recv");
	assert_int_equal(t.calls, 9);
	sb_calltree_free(&t);
	sb_profile_free(&p);
}

/* With detail, each call region is a row below its function's, named by its arguments. */
static void test_detail_rows_below_the_function(void **state)
{
	static const struct row want[] = {
		{ 1, "step", 1, 1000, 1000 - 140 - 50, 100, 1000, 1000 },
		{ 2, "mpi:recv", 4, 140, 0, 60, 10, 70 },
		{ 3, "peer=2 bytes=800 tag=7", 1, 70, 60, 50, 70, 70 },
		{ 4, "unpack", 1, 10, 10, 0, 10, 10 },
		{ 3, "peer=1 bytes=800 tag=7", 2, 60, 60, 10, 20, 40 },
		{ 3, "peer=3 bytes=1600 tag=9", 1, 10, 7, 0, 10, 10 },
		{ 4, "unpack", 1, 3, 3, 0, 3, 3 },
		{ 2, "mpi:send", 1, 50, 0, 0, 50, 50 },
		{ 3, "peer=1 bytes=800 tag=7", 1, 50, 40, 0, 50, 50 },
		{ 4, "reduce_op", 1, 10, 10, 0, 10, 10 },
	};
	struct sb_calltree t;
	struct sb_profile p;
	uint32_t detail;

	(void)state;
	grouped(&p, &t, false, true);
	expect_rows(&t, want, sizeof(want) / sizeof(want[0]));
	assert_int_equal(t.max_depth, 4);
	/* JSON and CSV keep the region's whole name: it is what the file holds. */
	detail = t.nodes[t.nodes[t.nodes[0].first_child].first_child].first_child;
	assert_string_equal(sb_calltree_name(&t, detail), RECV2);
	sb_calltree_free(&t);
	sb_profile_free(&p);
}

/* Own time over every row of t; SB_CT_UNKNOWN counts as a failure. */
static int64_t own_sum(const struct sb_calltree *t)
{
	int64_t sum = 0;
	uint32_t i;

	for (i = sb_calltree_next(t, 0); i != SB_CT_NONE; i = sb_calltree_next(t, i)) {
		assert_int_not_equal(t->nodes[i].own, SB_CT_UNKNOWN);
		sum += t->nodes[i].own;
	}
	return sum;
}

/*
 * With detail, every call's own time is in its region's row, so the own
 * column adds up to the time of the whole tree, tree and flat alike: the
 * function's row holds only what its rows below do not, as any parent does.
 */
static void test_detail_own_times_add_up_to_the_total(void **state)
{
	struct sb_ct_opts co = { .rank = -1, .sort = SB_CT_SORT_TOTAL };
	struct sb_error err = { .msg = "" };
	struct sb_calltree whole, t;
	struct sb_profile p;
	uint32_t i;
	int flat;

	(void)state;
	for (flat = 0; flat < 2; flat++) {
		grouped(&p, &t, flat, true);
		assert_int_equal(sb_calltree_build(&whole, &p, &co, &err), 0);
		assert_int_equal(own_sum(&t), whole.nodes[0].total);
		for (i = 1; i < t.n_nodes; i++)
			if (t.nodes[i].fn != SB_CT_NONE)
				assert_int_equal(t.nodes[i].own, 0);
		sb_calltree_free(&whole);
		sb_calltree_free(&t);
		sb_profile_free(&p);
	}
}

/* --flat: one row per function too, its own time what the call regions' own times add to. */
static void test_flat_table_has_a_row_per_function(void **state)
{
	static const struct row want[] = {
		{ 1, "step", 1, 1000, 810, 100, 1000, 1000 },
		{ 1, "mpi:recv", 4, 140, 127, 60, 10, 70 },
		{ 1, "mpi:send", 1, 50, 40, 0, 50, 50 },
		{ 1, "unpack", 2, 13, 13, 0, 3, 10 },
		{ 1, "reduce_op", 1, 10, 10, 0, 10, 10 },
	};
	struct sb_calltree t;
	struct sb_profile p;

	(void)state;
	grouped(&p, &t, true, false);
	expect_rows(&t, want, sizeof(want) / sizeof(want[0]));
	sb_calltree_free(&t);
	sb_profile_free(&p);
}

/* A profile without MPI calls keeps its tree, and grouping twice changes nothing. */
static void test_no_mpi_and_twice_change_nothing(void **state)
{
	static const struct fx_call plain[] = {
		{ "main", 0, 100, 1, -1, 0 },
		{ "solve", 10, 60, 2, 1, 0 },
	};
	struct sb_ct_opts co = { .rank = -1, .sort = SB_CT_SORT_TOTAL };
	struct sb_error err = { .msg = "" };
	struct sb_calltree t;
	struct sb_profile p;
	uint32_t n;

	(void)state;
	fx_call_tree(&p, plain, 2, TREE);
	assert_int_equal(sb_calltree_build(&t, &p, &co, &err), 0);
	assert_int_equal(sb_calltree_group_mpi(&t, false, SB_CT_SORT_TOTAL), 0);
	assert_null(t.mpi);
	assert_int_equal(t.n_nodes, 3);
	sb_calltree_free(&t);
	sb_profile_free(&p);
	grouped(&p, &t, false, true);
	n = t.n_nodes;
	assert_int_equal(sb_calltree_group_mpi(&t, false, SB_CT_SORT_TOTAL), 0);
	assert_int_equal(t.n_nodes, n);
	sb_calltree_free(&t);
	sb_profile_free(&p);
}

/* The report as a user runs it on file, with options a and b (each may be NULL). */
static char *report(const char *file, const char *a, const char *b)
{
	char *out = tmp_path("report.txt");
	char *argv[6] = { "report", "-o", out, (char *)file };
	int argc = 4;

	if (a)
		argv[argc++] = (char *)a;
	if (b)
		argv[argc++] = (char *)b;
	assert_int_equal(cmd_report(argc, argv), 0);
	return slurp(out);
}

/*
 * The 80-column tree: one mpi:recv row where each receive region had its own,
 * cut where the names differ ("mpi:recv kin...m=1140850688"); --mpi-detail
 * lists them by their arguments. Through the streaming read and the whole one
 * (--ranks), which build their trees apart.
 */
static void test_report_tree_groups_mpi_calls(void **state)
{
	static const char *const reads[] = { NULL, "--ranks=0" };
	char *file = tmp_path("mpi_tree.h5"), *s;
	size_t i;

	(void)state;
	fx_write_built(file, build);
	for (i = 0; i < 2; i++) {
		s = report(file, reads[i], NULL);
		expect_has(s, "├─ mpi:recv\n");
		expect_has(s, "mpi       4 call regions shown as 2 functions (--mpi-detail: each one)\n");
		assert_null(strstr(s, "kind="));
		assert_null(strstr(s, "peer="));
		free(s);
		s = report(file, reads[i], "--mpi-detail");
		expect_has(s, "mpi:recv\n");
		expect_has(s, "├─ peer=2 bytes=800 tag=7\n");
		expect_has(s, "└─ peer=3 bytes=1600 tag=9\n");
		assert_null(strstr(s, "kind="));
		assert_null(strstr(s, "--mpi-detail"));
		free(s);
	}
	/* JSON paths: the function's row, then the region as the file names it. */
	s = report(file, "--mpi-detail", "-fjson");
	expect_has(s, "\"path\": [\"step\", \"mpi:recv\"], \"depth\": 2, \"calls\": 4");
	expect_has(s, "\"path\": [\"step\", \"mpi:recv\", \"" RECV1 "\"], \"depth\": 3");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_row_per_mpi_function),
		cmocka_unit_test(test_detail_rows_below_the_function),
		cmocka_unit_test(test_detail_own_times_add_up_to_the_total),
		cmocka_unit_test(test_flat_table_has_a_row_per_function),
		cmocka_unit_test(test_no_mpi_and_twice_change_nothing),
		cmocka_unit_test(test_report_tree_groups_mpi_calls),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
