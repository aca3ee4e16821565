/* Unit tests of `report --mpi`: the sums, per region and MPI function, and the three renderings. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/mpi.h"
#include "cmd/commands.h"
#include "fixtures.h"
#include "inert_text.h"
#include "json_check.h"
#include "render/mpi_report.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void call(struct sb_profile *p, const char *name, uint32_t rank, int64_t start,
		 int64_t end, int64_t id, int64_t parent)
{
	fx_call_on(p, name, rank, start, end);
	p->events[p->n_events - 1].call_id = id;
	p->events[p->n_events - 1].parent_id = parent;
}

/*
 * 4 ranks. Rank r: exchange [0, 1000 + 100 r], inside it r + 1 sends of 800
 * bytes to (r + 1) % 4 (10 ns each) and an allreduce of 8 bytes (40 ns); rank
 * 0 also an isend of 8 bytes to rank 2 (5 ns) outside every region.
 */
static void four_ranks(struct sb_profile *p)
{
	char name[160];
	uint32_t r;
	int i;

	sb_profile_init(p);
	p->format = strdup("synthetic");
	p->columns = SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID;
	for (r = 0; r < 4; r++) {
		call(p, "exchange", r, 0, 1000 + 100 * r, 1, -1);
		snprintf(name, sizeof(name), "mpi:send kind=point-to-point bytes=800 peer=%u "
			 "root=-1 tag=7 comm=0", (r + 1) % 4);
		for (i = 0; i <= (int)r; i++)
			call(p, name, r, 10 + 20 * i, 20 + 20 * i, 10 + i, 1);
		call(p, "mpi:allreduce kind=collective bytes=8 peer=-1 root=-1 tag=-1 comm=0", r,
		     500, 540, 2, 1);
	}
	call(p, "mpi:isend kind=point-to-point bytes=8 peer=2 root=-1 tag=1 comm=0", 0, 2000,
	     2005, 3, -1);
	assert_int_equal(sb_profile_set_int(p, "mpi_size", 4), 0);
}

static void test_sums_and_matrix_are_exact(void **state)
{
	static const int64_t want_bytes[16] = { 0, 800, 8, 0, 0, 0, 1600, 0,
						0, 0, 0, 2400, 3200, 0, 0, 0 };
	static const uint64_t want_msgs[16] = { 0, 1, 1, 0, 0, 0, 2, 0, 0, 0, 0, 3, 4, 0, 0, 0 };
	struct sb_error err = { .msg = "" };
	struct sb_mpi_report m;
	struct sb_profile p;
	ssize_t ex;

	(void)state;
	four_ranks(&p);
	ex = sb_profile_find_region(&p, "exchange");
	assert_int_equal(sb_mpi_report_build(&m, &p, &err), 0);
	assert_true(m.parents);
	assert_int_equal(m.n_ranks, 4);
	assert_int_equal(m.mpi_calls, 10 + 4 + 1);
	assert_memory_equal(m.matrix_bytes, want_bytes, sizeof(want_bytes));
	assert_memory_equal(m.matrix_msgs, want_msgs, sizeof(want_msgs));
	assert_int_equal(m.n_ops, 3);
	assert_string_equal(m.ops[0].op, "allreduce");
	assert_int_equal(m.ops[0].region, ex);
	assert_int_equal(m.ops[0].calls, 4);
	assert_int_equal(m.ops[0].bytes, 32);
	assert_int_equal(m.ops[0].time, 160);
	assert_int_equal(m.ops[0].region_total, 1000 + 1100 + 1200 + 1300);
	assert_string_equal(m.ops[1].op, "isend");
	assert_int_equal(m.ops[1].region, SB_MPI_TOP);
	assert_int_equal(m.ops[1].time, 5);
	assert_string_equal(m.ops[2].op, "send");
	assert_int_equal(m.ops[2].calls, 10);
	assert_int_equal(m.ops[2].bytes, 8000);
	assert_int_equal(m.ops[2].time, 100);
	assert_int_equal(m.rank_time[0], 10 + 40 + 5);
	assert_int_equal(m.rank_time[1], 20 + 40);
	assert_int_equal(m.rank_time[2], 30 + 40);
	assert_int_equal(m.rank_time[3], 40 + 40);
	sb_mpi_report_free(&m);
	sb_profile_free(&p);
}

/* The imbalance row named name: a region's name, or an MPI function's ("mpi:send"); NULL if none. */
static const struct sb_mpi_imbalance *imb_find(const struct sb_mpi_report *m,
					       const struct sb_profile *p, const char *name)
{
	const struct sb_mpi_imbalance *x;
	size_t i;

	for (i = 0; i < m->n_imb; i++) {
		x = &m->imb[i];
		if (!strcmp(x->fn >= 0 ? m->fns.name[x->fn] : p->regions[x->region].name, name))
			return x;
	}
	return NULL;
}

static const struct sb_mpi_imbalance *imb_of(const struct sb_mpi_report *m,
					     const struct sb_profile *p, const char *name)
{
	const struct sb_mpi_imbalance *x = imb_find(m, p, name);

	if (!x)
		fail_msg("no imbalance row for %s", name);
	return x;
}

static void test_imbalance_is_max_over_mean_of_every_rank(void **state)
{
	struct sb_error err = { .msg = "" };
	const struct sb_mpi_imbalance *x;
	struct sb_mpi_report m;
	struct sb_profile p;

	(void)state;
	four_ranks(&p);
	assert_int_equal(sb_mpi_report_build(&m, &p, &err), 0);
	/* exchange: 1000, 1100, 1200, 1300 -> max 1300, mean 1150, rank 3. */
	x = imb_of(&m, &p, "exchange");
	assert_int_equal(x->fn, -1);
	assert_int_equal(x->max, 1300);
	assert_true(x->mean == 1150.0);
	assert_true(x->ratio > 1300.0 / 1150 - 1e-12 && x->ratio < 1300.0 / 1150 + 1e-12);
	assert_int_equal(x->slowest, 3);
	/* allreduce: 40 on every rank; ties go to the lowest rank. */
	x = imb_of(&m, &p, "mpi:allreduce");
	assert_true(x->ratio == 1.0);
	assert_int_equal(x->slowest, 0);
	/*
	 * The sends: one region per peer, each on one rank only, would read 4.0
	 * each. Per function: 10, 20, 30, 40 ns -> 40 / 25.
	 */
	x = imb_of(&m, &p, "mpi:send");
	assert_true(x->ratio == 1.6);
	assert_int_equal(x->max, 40);
	assert_int_equal(x->slowest, 3);
	assert_null(imb_find(&m, &p, "mpi:send kind=point-to-point bytes=800 peer=3 root=-1 "
				 "tag=7 comm=0"));
	/* A function only rank 0 calls is that imbalanced. */
	assert_true(imb_of(&m, &p, "mpi:isend")->ratio == 4.0);
	/* Rows: exchange and the three functions. Largest first. */
	assert_int_equal(m.n_imb, 4);
	assert_true(m.imb[0].ratio >= m.imb[m.n_imb - 1].ratio);
	sb_mpi_report_free(&m);
	sb_profile_free(&p);
}

/* The function rows' details: each call region, its calls and time, and on which ranks. */
static void test_calls_by_arguments(void **state)
{
	struct sb_error err = { .msg = "" };
	const struct sb_mpi_variant *v;
	struct sb_mpi_report m;
	struct sb_profile p;

	(void)state;
	four_ranks(&p);
	assert_int_equal(sb_mpi_report_build(&m, &p, &err), 0);
	/* allreduce (one region, every rank), isend, then the sends by time. */
	assert_int_equal(m.n_variants, 1 + 1 + 4);
	v = &m.variants[0];
	assert_string_equal(m.fns.name[v->fn], "mpi:allreduce");
	assert_string_equal(m.fns.detail[v->region], "bytes=8 comm=0");
	assert_int_equal(v->calls, 4);
	assert_int_equal(v->time, 160);
	assert_int_equal(v->n_ranks, 4);
	assert_int_equal(v->lowest, 0);
	assert_int_equal(v->highest, 3);
	assert_string_equal(m.fns.name[m.variants[1].fn], "mpi:isend");
	/* Rank 3's 4 sends to 0 took longest. */
	v = &m.variants[2];
	assert_string_equal(m.fns.detail[v->region], "peer=0 bytes=800 tag=7 comm=0");
	assert_int_equal(v->calls, 4);
	assert_int_equal(v->time, 40);
	assert_int_equal(v->n_ranks, 1);
	assert_int_equal(v->lowest, 3);
	assert_int_equal(m.variants[5].time, 10);
	sb_mpi_report_free(&m);
	sb_profile_free(&p);
}

/* The operation is the name's first word: anything but a space, so it is escaped too. */
static void test_report_mpi_text_escapes_names(void **state)
{
	struct report_opts o = { .path = "mpi.h5", .rank = -1, .format = SB_REPORT_TEXT,
				 .wide = true };
	struct sb_error err = { .msg = "" };
	struct sb_mpi_report m;
	struct sb_profile p;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	sb_profile_init(&p);
	p.format = strdup("synthetic");
	p.columns = SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID;
	call(&p, HOSTILE, 0, 0, 100, 1, -1);
	call(&p, "mpi:\x1b[6n\r kind=collective bytes=8 peer=-1 root=-1 tag=-1 comm=0", 0, 10, 20,
	     2, 1);
	assert_int_equal(sb_mpi_report_build(&m, &p, &err), 0);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	assert_int_equal(sb_mpi_report_render(f, &p, &m, &o), 0);
	assert_int_equal(fclose(f), 0);
	expect_inert(out);
	expect_has(out, "\\x1b[6n\\r           1              8        10 ns    10.0%  "
			HOSTILE_SHOWN "\n");
	free(out);
	sb_mpi_report_free(&m);
	sb_profile_free(&p);
}

static char *report_to_file(const char *file, const char *fmt, const char *extra)
{
	char *out = tmp_path("mpi.out");
	char *argv[] = { "report", "--mpi", "-f", (char *)fmt, "-o", out, (char *)file,
			 (char *)extra };

	assert_int_equal(cmd_report(extra ? 8 : 7, argv), 0);
	return slurp(out);
}

static void test_report_mpi_text_json_csv(void **state)
{
	struct sb_error err = { .msg = "" };
	char *file = tmp_path("mpi.h5"), *s;
	struct sb_profile p;
	struct jv v;

	(void)state;
	four_ranks(&p);
	assert_int_equal(fx_write_h5(file, &p, &err), 0);
	sb_profile_free(&p);
	s = report_to_file(file, "csv", NULL);
	expect_has(s, "from_rank,to_rank,bytes,messages\n0,0,0,0\n0,1,800,1\n0,2,8,1\n");
	expect_has(s, "\n3,0,3200,4\n3,1,0,0\n");
	free(s);
	s = report_to_file(file, "json", NULL);
	json_parse(s, &v);
	assert_int_equal(jneed(&v, "mpi_calls", J_NUM)->num, 15);
	assert_int_equal(jneed(&v, "imbalance", J_ARR)->n, 4);
	assert_int_equal(jneed(&v, "calls_by_arguments", J_ARR)->n, 6);
	expect_has(s, "{\"region\": \"mpi:send\", \"mpi_function\": true, \"max_ns\": 40");
	expect_has(s, "{\"function\": \"mpi:send\", \"region\": \"mpi:send kind=point-to-point "
		      "bytes=800 peer=0 root=-1 tag=7 comm=0\", \"arguments\": \"peer=0 bytes=800 "
		      "tag=7 comm=0\", \"calls\": 4, \"time_ns\": 40, \"ranks\": 1, "
		      "\"lowest_rank\": 3, \"highest_rank\": 3}");
	assert_int_equal(jneed(&v, "matrix_bytes", J_ARR)->items[2].items[3].num, 2400);
	assert_int_equal(jneed(&v, "rank_time_ns", J_ARR)->items[0].num, 55);
	jv_free(&v);
	free(s);
	s = report_to_file(file, "text", NULL);
	expect_has(s, "MPI       15 calls on 4 ranks\n");
	expect_has(s, "send               10           8000");
	expect_has(s, "    1.130");
	/* One imbalance row per function, not one per peer that one rank alone has. */
	expect_has(s, "    1.600        40 ns        25 ns        3  mpi:send\n");
	assert_null(strstr(s, "    4.000        40 ns"));
	expect_has(s, "operation       calls         time     ranks  arguments\n"
		      "allreduce           4       160 ns       0-3  bytes=8 comm=0\n");
	expect_has(s, "send                4        40 ns         3  peer=0 bytes=800 tag=7 comm=0\n");
	free(s);
	/* The rank list and the region filter apply to --mpi too. */
	s = report_to_file(file, "csv", "--ranks=0,3");
	expect_has(s, "0,1,800,1\n0,2,8,1\n");
	expect_has(s, "\n3,0,3200,4\n");
	expect_has(s, "\n1,2,0,0\n");
	free(s);
}

/* One timeline lane and one trace process per rank: every rank's MPI calls on its own. */
static void test_every_rank_has_its_lane_and_process(void **state)
{
	struct sb_error err = { .msg = "" };
	char *file = tmp_path("lanes.h5"), *html = tmp_path("lanes.html");
	char *trace = tmp_path("lanes.json"), *s, want[64];
	char *report[] = { "report", "--html", html, file };
	char *export[] = { "export", "chrome-trace", "-o", trace, file };
	const struct jv *events;
	struct sb_profile p;
	bool seen[4] = { 0 };
	struct jv doc;
	size_t i;
	uint32_t r;

	(void)state;
	four_ranks(&p);
	assert_int_equal(fx_write_h5(file, &p, &err), 0);
	sb_profile_free(&p);
	assert_int_equal(cmd_report(ARGC(report), report), 0);
	s = slurp(html);
	for (r = 0; r < 4; r++) {
		snprintf(want, sizeof(want), "{\"rank\": %u, \"thread\": 0", r);
		expect_has(s, want);
	}
	free(s);
	assert_int_equal(cmd_export(ARGC(export), export), 0);
	s = slurp(trace);
	json_parse(s, &doc);
	events = jneed(&doc, "traceEvents", J_ARR);
	for (i = 0; i < events->n; i++) {
		const struct jv *e = &events->items[i], *name = jget(e, "name");
		int pid = (int)jneed(e, "pid", J_NUM)->num;

		assert_true(pid >= 1 && pid <= 4);
		/* rank r's sends go to (r + 1) % 4: the slice says which process it is on. */
		if (name && name->t == J_STR && !strncmp(name->str, "mpi:send", 8)) {
			snprintf(want, sizeof(want), "peer=%d ", pid % 4);
			expect_has(name->str, want);
			seen[pid - 1] = true;
		}
	}
	for (r = 0; r < 4; r++)
		assert_true(seen[r]);
	jv_free(&doc);
	free(s);
}

static void test_mpi_refuses_html_samples_and_rank(void **state)
{
	char *html[] = { "report", "--mpi", "--html", "x.html", "f" };
	char *samples[] = { "report", "--mpi", "--samples", "f" };
	char *rank[] = { "report", "--mpi", "--rank", "1", "f" };

	(void)state;
	assert_int_equal(cmd_report(ARGC(rank), rank), 2);
	assert_int_equal(cmd_report(ARGC(html), html), 2);
	assert_int_equal(cmd_report(ARGC(samples), samples), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sums_and_matrix_are_exact),
		cmocka_unit_test(test_imbalance_is_max_over_mean_of_every_rank),
		cmocka_unit_test(test_calls_by_arguments),
		cmocka_unit_test(test_report_mpi_text_json_csv),
		cmocka_unit_test(test_report_mpi_text_escapes_names),
		cmocka_unit_test(test_every_rank_has_its_lane_and_process),
		cmocka_unit_test(test_mpi_refuses_html_samples_and_rank),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
