/* Unit tests of --ranks, --include and --exclude: rank lists, the filter, the commands' errors. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/calltree.h"
#include "analysis/filter.h"
#include "cmd/commands.h"
#include "cuda_fixture.h"
#include "fixtures.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void expect_list(const char *s, const uint32_t *want, size_t n)
{
	struct sb_error err = { .msg = "" };
	uint32_t *r = NULL;
	size_t got = 0;

	assert_int_equal(sb_rank_list_parse(s, &r, &got, &err), 0);
	assert_int_equal(got, n);
	assert_memory_equal(r, want, n * sizeof(*want));
	free(r);
}

static void expect_bad_list(const char *s, const char *cause)
{
	struct sb_error err = { .msg = "" };
	uint32_t *r = NULL;
	size_t n = 0;

	assert_int_equal(sb_rank_list_parse(s, &r, &n, &err), -EINVAL);
	assert_null(r);
	expect_has(err.msg, cause);
}

static void test_rank_lists_parse_sorted_without_repeats(void **state)
{
	(void)state;
	expect_list("0-3,7", (uint32_t[]){ 0, 1, 2, 3, 7 }, 5);
	expect_list("7,0-2,1", (uint32_t[]){ 0, 1, 2, 7 }, 4);
	expect_list("5", (uint32_t[]){ 5 }, 1);
	expect_list("4-4", (uint32_t[]){ 4 }, 1);
}

static void test_bad_rank_lists_say_what_is_wrong(void **state)
{
	(void)state;
	expect_bad_list("", "'' is not a rank list like 0-3,7");
	expect_bad_list("1-", "'1-' is not a rank list");
	expect_bad_list("-1", "'-1' is not a rank list");
	expect_bad_list("1,,2", "'1,,2' is not a rank list");
	expect_bad_list("1,", "'1,' is not a rank list");
	expect_bad_list("2 ", "'2 ' is not a rank list");
	expect_bad_list("x", "'x' is not a rank list");
	expect_bad_list("3-1", "'3-1': the range 3-1 runs backwards");
	expect_bad_list("1048576", "ranks go up to 1048575");
}

static void test_option_errors_name_the_option(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_filter f = { 0 };

	(void)state;
	assert_int_equal(sb_filter_set_ranks(&f, "0-x", &err), -EINVAL);
	expect_has(err.msg, "--ranks: '0-x' is not a rank list");
	assert_int_equal(sb_filter_set_include(&f, "(", &err), -EINVAL);
	expect_has(err.msg, "--include: '(' is not an extended regular expression");
	assert_int_equal(sb_filter_set_exclude(&f, "a[", &err), -EINVAL);
	expect_has(err.msg, "--exclude: 'a[' is not an extended regular expression");
	assert_false(sb_filter_active(&f));
	assert_int_equal(sb_filter_set_ranks(&f, "1", &err), 0);
	assert_int_equal(sb_filter_set_ranks(&f, "2", &err), -EINVAL);
	expect_has(err.msg, "--ranks: given twice");
	assert_int_equal(sb_filter_set_include(&f, "a|b", &err), 0);
	assert_int_equal(sb_filter_set_include(&f, "c", &err), -EINVAL);
	expect_has(err.msg, "--include: given twice");
	sb_filter_free(&f);
}

static void test_regions_match_extended_regexes_anywhere(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_filter f = { 0 };

	(void)state;
	assert_int_equal(sb_filter_set_include(&f, "^(solve|mpi:)", &err), 0);
	assert_int_equal(sb_filter_set_exclude(&f, "barrier", &err), 0);
	assert_true(sb_filter_region(&f, "solve"));
	assert_true(sb_filter_region(&f, "mpi:send kind=point-to-point"));
	assert_false(sb_filter_region(&f, "mpi:barrier kind=collective"));
	assert_false(sb_filter_region(&f, "presolve"));
	assert_true(sb_filter_region(NULL, "anything"));
	sb_filter_free(&f);
}

/* Rank r, thread 0: main [0,100] > work [10,90] > inner [20,30], ids 1 > 2 > 3. */
static void four_ranks(struct sb_profile *p)
{
	static const char *names[] = { "main", "work", "inner" };
	static const int64_t span[][2] = { { 0, 100 }, { 10, 90 }, { 20, 30 } };
	uint32_t reg, rank;

	sb_profile_init(p);
	p->format = strdup("synthetic");
	p->columns = SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID;
	for (reg = 0; reg < 3; reg++)
		assert_int_equal(sb_profile_add_region(p, names[reg], "", -1, "[]"), reg);
	for (reg = 0; reg < 3; reg++) {
		for (rank = 0; rank < 4; rank++) {
			struct sb_event e;

			sb_event_blank(&e);
			e.start = span[reg][0] + rank;
			e.end = span[reg][1] + rank;
			e.thread = 0;
			e.call_id = reg + 1;
			e.parent_id = reg ? (int64_t)reg : -1;
			fx_add_call(p, reg, rank, &e);
		}
	}
	for (rank = 0; rank < 4; rank++) {
		struct sb_thread th = { .rank = rank, .index = 0, .tid = 100 + rank, .end_ns = -1,
					.cpu_ns = -1, .name = "app" };

		assert_true(sb_profile_add_thread(p, &th) >= 0);
	}
	assert_int_equal(sb_profile_set_int(p, "mpi_size", 4), 0);
}

static uint32_t node_of(const struct sb_calltree *t, const char *name)
{
	uint32_t i;

	for (i = sb_calltree_next(t, 0); i != SB_CT_NONE; i = sb_calltree_next(t, i))
		if (!strcmp(sb_calltree_name(t, i), name))
			return i;
	fail_msg("no node %s", name);
	return SB_CT_NONE;
}

static void test_a_left_out_region_hands_its_calls_to_the_one_around(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_ct_opts co = { .rank = -1 };
	struct sb_filter f = { 0 };
	struct sb_profile p;
	struct sb_calltree t;
	uint32_t in;

	(void)state;
	four_ranks(&p);
	assert_int_equal(sb_filter_set_exclude(&f, "^work$", &err), 0);
	assert_int_equal(sb_filter_apply(&f, &p, &err), 0);
	assert_int_equal(p.n_regions, 2);
	assert_true(sb_profile_find_region(&p, "work") < 0);
	assert_int_equal(p.n_events, 8);
	assert_false(p.columns & SB_COL_PARENT_ID);
	assert_int_equal(sb_calltree_build(&t, &p, &co, &err), 0);
	in = node_of(&t, "inner");
	assert_string_equal(sb_calltree_name(&t, t.nodes[in].parent), "main");
	assert_int_equal(t.nodes[in].calls, 4);
	/* main's own time now holds what work held besides inner: 4 x (100 - 10). */
	assert_int_equal(t.nodes[node_of(&t, "main")].own, 4 * 90);
	assert_int_equal(t.calls, 8);
	sb_calltree_free(&t);
	sb_profile_free(&p);
	sb_filter_free(&f);
}

static void test_ranks_and_include_keep_only_what_they_name(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_filter f = { 0 };
	struct sb_profile p;
	size_t i;

	(void)state;
	four_ranks(&p);
	assert_int_equal(sb_filter_set_ranks(&f, "1,3", &err), 0);
	assert_int_equal(sb_filter_set_include(&f, "n", &err), 0);
	assert_int_equal(sb_filter_apply(&f, &p, &err), 0);
	/* "main" and "inner" have an n, "work" has not; ranks 0 and 2 are gone. */
	assert_int_equal(p.n_regions, 2);
	assert_int_equal(p.n_pairs, 4);
	for (i = 0; i < p.n_pairs; i++) {
		assert_true(p.pairs[i].rank == 1 || p.pairs[i].rank == 3);
		assert_int_equal(p.pairs[i].offset, i);
		assert_int_equal(p.events[i].start - (p.pairs[i].region ? 20 : 0),
				 p.pairs[i].rank);
	}
	assert_int_equal(p.n_threads, 2);
	assert_int_equal(p.threads[0].rank, 1);
	assert_int_equal(p.threads[1].rank, 3);
	/* inner's parent, work, is gone: nesting now comes from the times. */
	assert_false(p.columns & SB_COL_PARENT_ID);
	sb_profile_free(&p);
	sb_filter_free(&f);
}

static void test_ranks_alone_keep_parent_ids(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_filter f = { 0 };
	struct sb_profile p;

	(void)state;
	four_ranks(&p);
	assert_int_equal(sb_filter_set_ranks(&f, "2", &err), 0);
	assert_int_equal(sb_filter_apply(&f, &p, &err), 0);
	assert_true(p.columns & SB_COL_PARENT_ID);
	assert_int_equal(p.n_events, 3);
	assert_int_equal(p.events[2].parent_id, 2);
	sb_profile_free(&p);
	sb_filter_free(&f);
}

static void test_a_rank_the_profile_lacks_is_an_error(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_filter f = { 0 };
	struct sb_profile p;

	(void)state;
	four_ranks(&p);
	assert_int_equal(sb_filter_set_ranks(&f, "0-3,7", &err), 0);
	assert_int_equal(sb_filter_apply(&f, &p, &err), -EINVAL);
	expect_has(err.msg, "--ranks 0-3,7: rank 7 is not in the profile, which has 4 ranks");
	assert_int_equal(p.n_events, 12);
	sb_profile_free(&p);
	sb_filter_free(&f);
}

static void test_samples_move_to_the_nearest_kept_path(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_filter f = { 0 };
	struct sb_profile p;
	struct sb_samples *s = &p.samples;
	static const struct sb_region_path paths[] = {
		{ -1, "main" }, { 0, "work" }, { 1, "inner" }, { 0, "inner" },
	};
	size_t i;

	(void)state;
	four_ranks(&p);
	s->paths = calloc(4, sizeof(*s->paths));
	s->samples = calloc(4, sizeof(*s->samples));
	s->timeline = calloc(4, sizeof(*s->timeline));
	for (i = 0; i < 4; i++) {
		s->paths[i] = paths[i];
		s->paths[i].name = strdup(paths[i].name);
		s->samples[i] = (struct sb_sample){ .rank = (uint32_t)i, .path = (int64_t)i,
						    .ustack = -1, .kstack = -1, .count = 1 };
		s->timeline[i] = (struct sb_timed_sample){ .time = 10 * (int64_t)i,
							   .rank = (uint32_t)i,
							   .path = (int64_t)i, .ustack = -1,
							   .kstack = -1 };
	}
	s->n_paths = s->n_samples = s->n_timeline = 4;
	assert_int_equal(sb_filter_set_exclude(&f, "work", &err), 0);
	assert_int_equal(sb_filter_set_ranks(&f, "0-2", &err), 0);
	assert_int_equal(sb_filter_apply(&f, &p, &err), 0);
	/* main/work/inner reads main/inner now, and main/inner becomes that same path. */
	assert_int_equal(s->paths[2].parent, 0);
	assert_int_equal(s->n_samples, 3);
	assert_int_equal(s->samples[0].path, 0);
	assert_int_equal(s->samples[1].path, 0);
	assert_int_equal(s->samples[2].path, 2);
	/* Timed samples alike. */
	assert_int_equal(s->n_timeline, 3);
	assert_int_equal(s->timeline[1].path, 0);
	assert_int_equal(s->timeline[2].path, 2);
	assert_int_equal(s->timeline[2].time, 20);
	sb_profile_free(&p);
	sb_filter_free(&f);
}

/*
 * The activities of cu_build() (cuda_fixture.h) that f keeps, by their
 * correlation ids, each still pointing at a row of its rank of region
 * want_region[i] (NULL: -1, no call).
 */
static void expect_cuda(const char *ranks, const char *include, const char *exclude,
			const int64_t *corr, const char *const *want_region, size_t n)
{
	struct sb_error err = { .msg = "" };
	struct sb_filter f = { 0 };
	const struct sb_cuda_activity *a;
	struct sb_profile p;
	char why[256];
	size_t i;

	cu_build(&p, true);
	if (ranks)
		assert_int_equal(sb_filter_set_ranks(&f, ranks, &err), 0);
	if (include)
		assert_int_equal(sb_filter_set_include(&f, include, &err), 0);
	if (exclude)
		assert_int_equal(sb_filter_set_exclude(&f, exclude, &err), 0);
	assert_int_equal(sb_filter_apply(&f, &p, &err), 0);
	if (sb_kinds_check(&p, why, sizeof(why)))
		fail_msg("filtered activity breaks the rules: %s", why);
	assert_int_equal(p.cuda.n_acts, n);
	for (i = 0; i < n; i++) {
		a = &p.cuda.acts[i];
		assert_int_equal(a->correlation, corr[i]);
		if (!want_region[i]) {
			assert_int_equal(a->pair, -1);
			assert_int_equal(a->call_id, -1);
			continue;
		}
		assert_true(a->pair >= 0 && (size_t)a->pair < p.n_pairs);
		assert_string_equal(p.regions[p.pairs[a->pair].region].name, want_region[i]);
		assert_int_equal(p.pairs[a->pair].rank, a->rank);
		assert_int_not_equal(a->call_id, -1);
	}
	/* Thread rows count within a rank: those kept still name a thread of it. */
	for (i = 0; i < p.cuda.n_acts; i++)
		assert_true(p.cuda.acts[i].thread < 2);
	sb_profile_free(&p);
	sb_filter_free(&f);
}

/*
 * cu_build(): rank 0 runs a kernel (correlation 7) and a copy (8) launched in
 * solve (row 2), a memset outside every region (9), API calls (7, 8) and a
 * wait (0); rank 1 an API call (3) and a kernel launched in main (row 1).
 */
static void test_cuda_activity_follows_its_rank_and_launching_call(void **state)
{
	(void)state;
	/* Rank 1 alone: its main is row 0 now. */
	expect_cuda("1", NULL, NULL, (int64_t[]){ 3, 3 }, (const char *[]){ NULL, "main" }, 2);
	/* Rank 0 alone: solve moves up to row 1; work outside every region stays. */
	expect_cuda("0", NULL, NULL, (int64_t[]){ 7, 7, 8, 8, 9, 0 },
		    (const char *[]){ NULL, "solve", NULL, "solve", NULL, NULL }, 6);
	/* Only solve: what main launched goes, and what no region launched; host calls stay. */
	expect_cuda(NULL, "^solve$", NULL, (int64_t[]){ 7, 7, 8, 8, 0, 3 },
		    (const char *[]){ NULL, "solve", NULL, "solve", NULL, NULL }, 6);
	/* Without solve: its kernel and copy go with its calls. */
	expect_cuda(NULL, NULL, "solve", (int64_t[]){ 7, 8, 0, 3, 3 },
		    (const char *[]){ NULL, NULL, NULL, NULL, "main" }, 5);
	expect_cuda("0", "main", NULL, (int64_t[]){ 7, 8, 0 },
		    (const char *[]){ NULL, NULL, NULL }, 3);
}

/* Bad --ranks, --include or --exclude: exit 2 from every command that has them. */
static void test_commands_refuse_bad_filters_with_exit_2(void **state)
{
	char *file = tmp_path("four.h5");
	char *r_list[] = { "report", "--ranks", "1-", file };
	char *r_absent[] = { "report", "--ranks", "0-3,7", file };
	char *r_both[] = { "report", "--rank", "1", "--ranks", "1", file };
	char *r_re[] = { "report", "--include", "(", file };
	char *r_samples[] = { "report", "--samples", "--exclude", "[", file };
	char *e_re[] = { "export", "json", "--exclude", "a{", file };
	char *e_absent[] = { "export", "json", "--ranks", "9", "-o", "-", file };
	char *d_re[] = { "diff", "--include", "*(", file, file };
	char *d_absent[] = { "diff", "--ranks", "4", file, file };
	struct sb_error err = { .msg = "" };
	struct sb_profile p;

	(void)state;
	four_ranks(&p);
	assert_int_equal(fx_write_h5(file, &p, &err), 0);
	sb_profile_free(&p);
	assert_int_equal(cmd_report(ARGC(r_list), r_list), 2);
	assert_int_equal(cmd_report(ARGC(r_absent), r_absent), 2);
	assert_int_equal(cmd_report(ARGC(r_both), r_both), 2);
	assert_int_equal(cmd_report(ARGC(r_re), r_re), 2);
	assert_int_equal(cmd_report(ARGC(r_samples), r_samples), 2);
	assert_int_equal(cmd_export(ARGC(e_re), e_re), 2);
	assert_int_equal(cmd_export(ARGC(e_absent), e_absent), 2);
	assert_int_equal(cmd_diff(ARGC(d_re), d_re), 2);
	assert_int_equal(cmd_diff(ARGC(d_absent), d_absent), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rank_lists_parse_sorted_without_repeats),
		cmocka_unit_test(test_bad_rank_lists_say_what_is_wrong),
		cmocka_unit_test(test_option_errors_name_the_option),
		cmocka_unit_test(test_regions_match_extended_regexes_anywhere),
		cmocka_unit_test(test_a_left_out_region_hands_its_calls_to_the_one_around),
		cmocka_unit_test(test_ranks_and_include_keep_only_what_they_name),
		cmocka_unit_test(test_ranks_alone_keep_parent_ids),
		cmocka_unit_test(test_a_rank_the_profile_lacks_is_an_error),
		cmocka_unit_test(test_samples_move_to_the_nearest_kept_path),
		cmocka_unit_test(test_cuda_activity_follows_its_rank_and_launching_call),
		cmocka_unit_test(test_commands_refuse_bad_filters_with_exit_2),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
