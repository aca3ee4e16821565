/*
 * Unit tests of `report --counters`: per region sums, own counts, unknowns,
 * derived ratios, MPI call regions per function.
 */
#include <math.h>

#include "fixtures.h"
#include "inert_text.h"

#include "analysis/counters.h"
#include "cmd/commands.h"
#include "render/counters_report.h"

/* instructions, cycles, cache-references, cache-misses: slot values per call. */
struct ccall {
	uint32_t region, rank;
	int64_t v[4], own0;
};

static void build(struct sb_profile *p, const char *events)
{
	static const struct ccall calls[] = {
		{ 0, 0, { 1000, 500, 100, 10 }, 600 },
		{ 0, 0, { -1, -1, -1, -1 }, -1 },
		{ 0, 0, { 3000, 1000, 100, 30 }, 3000 },
		{ 1, 0, { 400, 400, 0, 0 }, 400 },
		{ 0, 1, { 7, 7, 7, 7 }, 7 },
	};
	struct sb_thread rank1 = { .rank = 1, .index = 0, .tid = 43, .end_ns = -1, .cpu_ns = -1,
				   .name = "r1" };
	struct sb_event e;
	unsigned k;
	size_t i;

	fx_call_tree(p, NULL, 0, SB_COL_THREAD);
	fx_add_threads(p, &rank1, 1);
	assert_int_equal(sb_profile_add_region(p, "solve", "", -1, "[]"), 0);
	assert_int_equal(sb_profile_add_region(p, "io", "", -1, "[]"), 1);
	for (k = 0; k < 4; k++)
		p->columns |= SB_COL_METRIC(SB_METRIC_COUNTER + k) |
			      SB_COL_METRIC(SB_METRIC_COUNTER_EXCL + k);
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		sb_event_blank(&e);
		e.start = 10 * (int64_t)i;
		e.end = e.start + 5;
		e.thread = 0;
		fx_add_call(p, calls[i].region, calls[i].rank, &e);
	}
	assert_int_equal(sb_profile_alloc_counters(p), 0);
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		for (k = 0; k < 4; k++) {
			sb_event_set_metric(p, i, SB_METRIC_COUNTER + k, calls[i].v[k]);
			sb_event_set_metric(p, i, SB_METRIC_COUNTER_EXCL + k, calls[i].v[k]);
		}
		sb_event_set_metric(p, i, SB_METRIC_COUNTER_EXCL, calls[i].own0);
	}
	assert_int_equal(sb_profile_set_str(p, "counter_events", events), 0);
}

static void test_sums_unknowns_and_ratios(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_counter_report r;
	struct sb_profile p;

	(void)state;
	build(&p, "instructions,cycles,cache-references,cache-misses");
	assert_int_equal(sb_counter_report_build(&r, &p, 0, false, &err), 0);
	assert_int_equal(r.n, 4);
	assert_string_equal(r.names[3], "cache-misses");
	assert_int_equal(r.n_rows, 2);
	/* Largest own count of the first event first. */
	assert_int_equal(r.rows[0].region, 0);
	assert_int_equal(r.rows[0].calls, 3);
	assert_int_equal(r.rows[0].unknown, 1);
	assert_int_equal(r.rows[0].incl[0], 4000);
	assert_int_equal(r.rows[0].excl[0], 3600);
	assert_int_equal(r.rows[0].incl[1], 1500);
	/* IPC 4000 / 1500; cache misses 40 of 200: 20%. */
	assert_int_equal(r.n_ratios, 2);
	assert_string_equal(r.ratios[0].name, "IPC");
	assert_true(fabs(sb_counter_ratio_value(&r, 0, &r.rows[0]) - 4000.0 / 1500) < 1e-9);
	assert_true(fabs(sb_counter_ratio_value(&r, 1, &r.rows[0]) - 20.0) < 1e-9);
	/* io counted no cache references: no ratio, not 0 or infinity. */
	assert_true(isnan(sb_counter_ratio_value(&r, 1, &r.rows[1])));
	sb_counter_report_free(&r);
	/* Every rank: rank 1's call adds in. */
	assert_int_equal(sb_counter_report_build(&r, &p, -1, false, &err), 0);
	assert_int_equal(r.rows[0].incl[0], 4007);
	sb_counter_report_free(&r);
	sb_profile_free(&p);
}

static void test_no_ratio_without_both_events(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_counter_report r;
	struct sb_profile p;

	(void)state;
	build(&p, "instructions,page-faults,cache-references,context-switches");
	assert_int_equal(sb_counter_report_build(&r, &p, -1, false, &err), 0);
	assert_int_equal(r.n_ratios, 0);
	sb_counter_report_free(&r);
	sb_profile_free(&p);
}

static void test_profile_without_counters(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_counter_report r;
	struct sb_profile p;

	(void)state;
	fx_call_tree(&p, NULL, 0, SB_COL_THREAD);
	assert_int_equal(sb_counter_report_build(&r, &p, -1, false, &err), -EINVAL);
	expect_has(err.msg, "no counters");
	sb_counter_report_free(&r);
	sb_profile_free(&p);
}

static void test_renderings(void **state)
{
	struct report_opts o = { .format = SB_REPORT_TEXT, .path = "x.h5" };
	struct sb_error err = { .msg = "" };
	struct sb_counter_report r;
	struct sb_profile p;
	char *buf;
	size_t len;
	FILE *f;

	(void)state;
	build(&p, "instructions,cycles,cache-references,cache-misses");
	assert_int_equal(sb_counter_report_build(&r, &p, 0, false, &err), 0);
	f = open_memstream(&buf, &len);
	assert_int_equal(sb_counter_report_render(f, &r, &o), 0);
	fclose(f);
	expect_has(buf, "own instructions");
	expect_has(buf, "2.67");
	free(buf);
	o.format = SB_REPORT_CSV;
	f = open_memstream(&buf, &len);
	assert_int_equal(sb_counter_report_render(f, &r, &o), 0);
	fclose(f);
	expect_has(buf, "region,calls,unknown_calls,instructions,own instructions,cycles");
	expect_has(buf, "solve,3,1,4000,3600,1500,");
	/* io: cache miss ratio undefined, an empty field. */
	expect_has(buf, "io,1,0,400,400,400,400,0,0,0,0,1,\n");
	free(buf);
	o.format = SB_REPORT_JSON;
	f = open_memstream(&buf, &len);
	assert_int_equal(sb_counter_report_render(f, &r, &o), 0);
	fclose(f);
	expect_has(buf, "\"instructions\":{\"total\":4000,\"own\":3600}");
	expect_has(buf, "\"cache miss %\":null");
	free(buf);
	sb_counter_report_free(&r);
	sb_profile_free(&p);
}

/* Event names come from the file: escaped in the headings, which still line up. */
static void test_text_escapes_event_and_region_names(void **state)
{
	struct report_opts o = { .format = SB_REPORT_TEXT, .path = "x.h5", .wide = true };
	struct sb_error err = { .msg = "" };
	struct sb_counter_report r;
	struct sb_profile p;
	char *buf;
	size_t len;
	FILE *f;

	(void)state;
	build(&p, "instructions,cyc\x1b[6n\r,cache-references,cache-misses");
	free(p.regions[0].name);
	p.regions[0].name = strdup(HOSTILE);
	assert_non_null(p.regions[0].name);
	assert_int_equal(sb_counter_report_build(&r, &p, 0, false, &err), 0);
	f = open_memstream(&buf, &len);
	assert_int_equal(sb_counter_report_render(f, &r, &o), 0);
	fclose(f);
	expect_inert(buf);
	expect_has(buf, " instructions own instructions cyc\\x1b[6n\\r own cyc\\x1b[6n\\r ");
	expect_has(buf, "       4000             3600         1500             1500 ");
	expect_has(buf, "  " HOSTILE_SHOWN "\n");
	free(buf);
	o.format = SB_REPORT_CSV;
	f = open_memstream(&buf, &len);
	assert_int_equal(sb_counter_report_render(f, &r, &o), 0);
	fclose(f);
	expect_inert(buf);
	expect_has(buf, ",cyc\\x1b[6n\\r,own cyc\\x1b[6n\\r,");
	expect_has(buf, "\n" HOSTILE_SHOWN ",3,1,4000,3600,1500,");
	free(buf);
	sb_counter_report_free(&r);
	sb_profile_free(&p);
}

#define RECV(peer) "mpi:recv kind=point-to-point bytes=800 peer=" peer " root=-1 tag=7 " \
		   "comm=1140850688"

/* build's two regions as two MPI call regions of one function, receives from peers 1 and 2. */
static void build_mpi(struct sb_profile *p)
{
	unsigned i;

	build(p, "instructions,cycles,cache-references,cache-misses");
	for (i = 0; i < 2; i++) {
		free(p->regions[i].name);
		p->regions[i].name = strdup(i ? RECV("2") : RECV("1"));
		assert_non_null(p->regions[i].name);
	}
}

/* One row per MPI function: calls and counts are sums over calls, so its sums are exact. */
static void test_mpi_call_regions_fold_into_their_function(void **state)
{
	struct report_opts o = { .format = SB_REPORT_CSV, .path = "x.h5" };
	struct sb_error err = { .msg = "" };
	struct sb_counter_report r;
	struct sb_profile p;
	char *buf;
	size_t len;
	FILE *f;

	(void)state;
	build_mpi(&p);
	assert_int_equal(sb_counter_report_build(&r, &p, 0, false, &err), 0);
	assert_int_equal(r.n_rows, 1);
	assert_string_equal(r.rows[0].name, "mpi:recv");
	/* peer=1's 3 calls (one unknown) and peer=2's one. */
	assert_int_equal(r.rows[0].calls, 3 + 1);
	assert_int_equal(r.rows[0].unknown, 1);
	assert_int_equal(r.rows[0].incl[0], 4000 + 400);
	assert_int_equal(r.rows[0].excl[0], 3600 + 400);
	assert_int_equal(r.rows[0].incl[1], 1500 + 400);
	assert_int_equal(r.rows[0].incl[3], 40 + 0);
	/* The ratio of the sums, not a sum of ratios: 4400 / 1900. */
	assert_true(fabs(sb_counter_ratio_value(&r, 0, &r.rows[0]) - 4400.0 / 1900) < 1e-9);
	f = open_memstream(&buf, &len);
	assert_int_equal(sb_counter_report_render(f, &r, &o), 0);
	fclose(f);
	expect_has(buf, "\nmpi:recv,4,1,4400,4000,1900,");
	assert_null(strstr(buf, "peer="));
	free(buf);
	sb_counter_report_free(&r);
	/* --mpi-detail: each region its row, by its whole name. */
	assert_int_equal(sb_counter_report_build(&r, &p, 0, true, &err), 0);
	assert_int_equal(r.n_rows, 2);
	assert_string_equal(r.rows[0].name, RECV("1"));
	assert_int_equal(r.rows[0].incl[0], 4000);
	assert_string_equal(r.rows[1].name, RECV("2"));
	assert_int_equal(r.rows[1].incl[0], 400);
	sb_counter_report_free(&r);
	sb_profile_free(&p);
}

/*
 * The counters' way through a file: written beside the events, read back
 * out of line, and moved with their calls when a filter drops regions.
 */
static void test_command_reads_counters_back_from_a_file(void **state)
{
	char *all[] = { "report", "--counters", "-f", "csv", "--rank", "0", "-o",
			tmp_path("all.csv"), tmp_path("c.h5"), NULL };
	char *io[] = { "report", "--counters", "-f", "csv", "--exclude", "solve", "-o",
		       tmp_path("io.csv"), tmp_path("c.h5"), NULL };
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	char *text;

	(void)state;
	build(&p, "instructions,cycles,cache-references,cache-misses");
	assert_int_equal(fx_write_h5(tmp_path("c.h5"), &p, &err), 0);
	sb_profile_free(&p);
	assert_int_equal(cmd_report(9, all), 0);
	text = slurp(tmp_path("all.csv"));
	expect_has(text, "solve,3,1,4000,3600,1500,");
	expect_has(text, "io,1,0,400,400,400,400,0,0,0,0,");
	free(text);
	/* io's calls move to the front: their counts with them, not solve's. */
	assert_int_equal(cmd_report(9, io), 0);
	text = slurp(tmp_path("io.csv"));
	expect_has(text, "io,1,0,400,400,400,400,0,0,0,0,");
	assert_null(strstr(text, "solve"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sums_unknowns_and_ratios),
		cmocka_unit_test(test_no_ratio_without_both_events),
		cmocka_unit_test(test_profile_without_counters),
		cmocka_unit_test(test_renderings),
		cmocka_unit_test(test_text_escapes_event_and_region_names),
		cmocka_unit_test(test_mpi_call_regions_fold_into_their_function),
		cmocka_unit_test(test_command_reads_counters_back_from_a_file),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
