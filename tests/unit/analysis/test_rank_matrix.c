/* Unit tests of the rank x region heat map: exact sums per rank, MPI functions, hostile index rows. */
#include "analysis/rank_matrix.h"
#include "fixtures.h"

#define SEND(peer) "mpi:send kind=point-to-point bytes=8 peer=" #peer " root=-1 tag=1 comm=1"

static void build(struct sb_rank_matrix *m, const struct sb_profile *p)
{
	struct sb_error err = { .msg = "" };

	if (sb_rank_matrix_build(m, p, &err))
		fail_msg("%s", err.msg);
}

static size_t row_named(const struct sb_rank_matrix *m, const struct sb_profile *p,
			const char *name)
{
	size_t i;

	for (i = 0; i < m->n_rows; i++)
		if (!strcmp(sb_rank_row_name(m, p, &m->rows[i]), name))
			return i;
	fail_msg("no row %s", name);
	return 0;
}

/*
 * Three ranks: work takes 100, 200 and 300 ns on rank r (two calls on rank 2),
 * io 50 on rank 0 only, and each rank sends to the next: one region per peer,
 * one row for mpi:send.
 */
static void three_ranks(struct sb_profile *p)
{
	struct sb_thread th = { .index = 0, .end_ns = -1, .cpu_ns = -1, .name = "app" };
	uint32_t r;

	sb_profile_init(p);
	fx_call_on(p, "work", 0, 0, 100);
	fx_call_on(p, "io", 0, 100, 150);
	fx_call_on(p, SEND(1), 0, 150, 160);
	fx_call_on(p, "work", 1, 0, 200);
	fx_call_on(p, SEND(2), 1, 200, 230);
	fx_call_on(p, "work", 2, 0, 100);
	fx_call_on(p, "work", 2, 100, 300);
	fx_call_on(p, SEND(0), 2, 300, 320);
	for (r = 0; r < 3; r++) {
		th.rank = r;
		assert_true(sb_profile_add_thread(p, &th) >= 0);
	}
}

static void test_exact_sums_per_rank(void **state)
{
	struct sb_rank_matrix m;
	struct sb_profile p;
	size_t w, io, send;

	(void)state;
	three_ranks(&p);
	build(&m, &p);
	assert_int_equal(m.n_ranks, 3);
	assert_int_equal(m.n_rows, 3);
	/* By total: work 600, send 60, io 50. */
	w = row_named(&m, &p, "work");
	send = row_named(&m, &p, "mpi:send");
	io = row_named(&m, &p, "io");
	assert_int_equal(w, 0);
	assert_int_equal(send, 1);
	assert_int_equal(io, 2);
	assert_int_equal(m.time[w * 3 + 0], 100);
	assert_int_equal(m.time[w * 3 + 1], 200);
	assert_int_equal(m.time[w * 3 + 2], 300);
	assert_int_equal(m.calls[w * 3 + 2], 2);
	assert_int_equal(m.rows[w].total, 600);
	assert_int_equal(m.rows[w].calls, 4);
	assert_int_equal(m.rows[w].max, 300);
	assert_int_equal(m.rows[w].slowest, 2);
	assert_true(m.rows[w].mean == 200);
	assert_true(m.rows[w].ratio == 1.5);
	assert_true(sb_rank_cell_relative(&m, w, 0) == 0.5);
	/* io: rank 0 alone; the other ranks count 0, so max / mean is the rank count. */
	assert_int_equal(m.time[io * 3 + 1], 0);
	assert_int_equal(m.calls[io * 3 + 1], 0);
	assert_true(m.rows[io].ratio == 3);
	assert_int_equal(m.rows[io].slowest, 0);
	/* The three send regions are one function, every rank in it. */
	assert_int_equal(m.time[send * 3 + 0], 10);
	assert_int_equal(m.time[send * 3 + 1], 30);
	assert_int_equal(m.time[send * 3 + 2], 20);
	assert_int_equal(m.rows[send].slowest, 1);
	assert_int_equal(m.rows[send].fn, 0);
	/* No exclusive totals in the index rows: own time unknown. */
	assert_int_equal(m.own[w * 3 + 0], -1);
	assert_int_equal(m.clamped, 0);
	sb_rank_matrix_free(&m);
	sb_profile_free(&p);
}

static void test_own_time_is_known_only_when_every_row_has_it(void **state)
{
	struct sb_rank_matrix m;
	struct sb_profile p;

	(void)state;
	sb_profile_init(&p);
	fx_call_on(&p, "outer", 0, 0, 100)->exclusive_total = 60;
	fx_call_on(&p, "inner", 0, 10, 50)->exclusive_total = 40;
	fx_call_on(&p, "outer", 1, 0, 100)->exclusive_total = 70;
	fx_call_on(&p, "inner", 1, 10, 40);
	build(&m, &p);
	assert_int_equal(m.n_rows, 2);
	assert_string_equal(sb_rank_row_name(&m, &p, &m.rows[0]), "outer");
	assert_int_equal(m.own[0], 60);
	assert_int_equal(m.own[1], 70);
	assert_int_equal(m.own[2], 40);
	assert_int_equal(m.own[3], -1);
	sb_rank_matrix_free(&m);
	sb_profile_free(&p);
}

static void test_empty_and_single_rank(void **state)
{
	struct sb_rank_matrix m;
	struct sb_profile p;

	(void)state;
	sb_profile_init(&p);
	build(&m, &p);
	assert_int_equal(m.n_ranks, 0);
	assert_int_equal(m.n_rows, 0);
	sb_rank_matrix_free(&m);
	fx_call_on(&p, "solo", 0, 5, 25);
	/* A zero-length call is a row with no time: ratio 0, not a division by zero. */
	fx_call_on(&p, "instant", 0, 30, 30);
	build(&m, &p);
	assert_int_equal(m.n_ranks, 1);
	assert_int_equal(m.n_rows, 2);
	assert_true(m.rows[0].ratio == 1);
	assert_int_equal(m.rows[1].calls, 1);
	assert_true(m.rows[1].ratio == 0);
	assert_true(sb_rank_cell_relative(&m, 1, 0) == 0);
	sb_rank_matrix_free(&m);
	sb_profile_free(&p);
}

/* What a file may claim: negative and overflowing totals, far ranks, a huge mpi_size. */
static void test_hostile_index_rows(void **state)
{
	struct sb_rank_matrix m;
	struct sb_profile p;

	(void)state;
	sb_profile_init(&p);
	fx_call_on(&p, "neg", 7, 0, 10)->stats.total = -500;
	fx_call_on(&p, "big", 7, 0, 10)->stats.total = INT64_MAX - 5;
	/* x's two index rows, apart: their sum overflows. */
	fx_call_on(&p, "x", 4000000000u, 0, 10)->stats.total = 3;
	fx_call_on(&p, "big", 4000000000u, 0, 10)->stats.total = INT64_MAX;
	fx_call_on(&p, "x", 4000000000u, 20, 30)->stats.total = INT64_MAX;
	assert_int_equal(sb_profile_set_int(&p, "mpi_size", 4000000001ll), 0);
	build(&m, &p);
	/* Two columns: the ranks present, not mpi_size of them. */
	assert_int_equal(m.n_ranks, 2);
	assert_int_equal(m.ranks[0], 7);
	assert_int_equal(m.ranks[1], 4000000000u);
	assert_string_equal(sb_rank_row_name(&m, &p, &m.rows[0]), "big");
	assert_int_equal(m.rows[0].total, INT64_MAX);
	assert_int_equal(m.rows[0].slowest, 4000000000u);
	assert_int_equal(m.time[1 * 2 + 1], INT64_MAX);
	assert_string_equal(sb_rank_row_name(&m, &p, &m.rows[2]), "neg");
	assert_int_equal(m.time[2 * 2 + 0], 0);
	/* The negative total and x's overflow. */
	assert_int_equal(m.clamped, 2);
	sb_rank_matrix_free(&m);
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_sums_per_rank),
		cmocka_unit_test(test_own_time_is_known_only_when_every_row_has_it),
		cmocka_unit_test(test_empty_and_single_rank),
		cmocka_unit_test(test_hostile_index_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
