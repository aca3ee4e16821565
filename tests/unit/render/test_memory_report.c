/* Unit tests of `report --memory`: which slots are memory, the order, MiB as text, bytes in JSON and CSV. */
#include <errno.h>

#include "fixtures.h"

#include "render/memory_report.h"

#define MIB (1024ULL * 1024)

/* A report over the comma-separated events, with rows solve and io (calls and sums by slot). */
static void build(struct sb_counter_report *r, const char *events)
{
	char *copy = strdup(events), *rest = copy, *name;

	memset(r, 0, sizeof(*r));
	while ((name = strsep(&rest, ",")))
		r->names[r->n++] = strdup(name);
	free(copy);
	r->rows = calloc(2, sizeof(*r->rows));
	assert_non_null(r->rows);
	r->n_rows = 2;
	r->rows[0] = (struct sb_counter_row){ .region = 0, .name = "solve", .calls = 3 };
	r->rows[1] = (struct sb_counter_row){ .region = 1, .name = "io", .calls = 1, .unknown = 1 };
}

static char *render(const struct sb_counter_report *r, enum sb_report_format fmt, int *ret)
{
	struct report_opts o = { .format = fmt, .path = "m.h5" };
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*ret = sb_memory_report_render(f, r, &o);
	fclose(f);
	return buf;
}

static void test_memory_slots_found_by_name(void **state)
{
	struct sb_counter_report r;
	int slot[SB_MEMORY_SLOTS];

	(void)state;
	build(&r, "page-faults,mem:faults,mem:peak-growth");
	assert_int_equal(sb_memory_report_slots(&r, slot), 2);
	assert_int_equal(slot[SB_MEMORY_FAULTS], 1);
	assert_int_equal(slot[SB_MEMORY_PEAK_GROWTH], 2);
	assert_int_equal(slot[SB_MEMORY_RSS_GROWTH], -1);
	assert_int_equal(slot[SB_MEMORY_RSS_RELEASE], -1);
	sb_counter_report_free(&r);
	assert_int_equal(sb_memory_slot_of("mem:rss-release"), SB_MEMORY_RSS_RELEASE);
	assert_int_equal(sb_memory_slot_of("page-faults"), -1);
	assert_int_equal(sb_memory_slot_of("mem:"), -1);
}

/* Largest peak growth first, then RSS growth; text in MiB, JSON and CSV in bytes. */
static void test_order_and_formats(void **state)
{
	struct sb_counter_report r;
	char *out;
	int ret;

	(void)state;
	build(&r, "mem:rss-growth,mem:rss-release,mem:peak-growth,mem:faults");
	r.rows[0].incl[0] = 3 * MIB / 2;
	r.rows[0].excl[0] = MIB / 2;
	r.rows[0].incl[3] = 384;
	r.rows[0].excl[3] = 128;
	r.rows[1].incl[2] = 64 * MIB;
	r.rows[1].excl[2] = 64 * MIB;
	r.rows[1].incl[1] = 32 * MIB;
	out = render(&r, SB_REPORT_TEXT, &ret);
	assert_int_equal(ret, 0);
	assert_non_null(strstr(out, "   calls   RSS growth  RSS release  peak growth       faults"
				    "  region\n"
				    "       1          0.0         32.0         64.0            0  io\n"
				    "       3          1.5          0.0          0.0          384  solve\n"));
	assert_non_null(strstr(out, "1 call not counted: begun before the thread was first read"));
	free(out);
	out = render(&r, SB_REPORT_CSV, &ret);
	assert_int_equal(ret, 0);
	assert_string_equal(out, "region,calls,unknown_calls,rss_growth_bytes,own_rss_growth_bytes,"
			    "rss_release_bytes,own_rss_release_bytes,peak_growth_bytes,"
			    "own_peak_growth_bytes,page_faults,own_page_faults\n"
			    "io,1,1,0,0,33554432,0,67108864,67108864,0,0\n"
			    "solve,3,0,1572864,524288,0,0,0,0,384,128\n");
	free(out);
	out = render(&r, SB_REPORT_JSON, &ret);
	assert_int_equal(ret, 0);
	assert_non_null(strstr(out, "{\"region\":\"solve\",\"calls\":3,\"unknown_calls\":0,"
				    "\"rss_growth_bytes\":1572864,\"own_rss_growth_bytes\":524288,"));
	assert_non_null(strstr(out, "\"page_faults\":384,\"own_page_faults\":128}"));
	free(out);
	sb_counter_report_free(&r);
}

/* A slot not recorded: "-" as text, empty CSV fields, no JSON key; no memory at all: refused. */
static void test_missing_slots(void **state)
{
	struct sb_counter_report r;
	char *out;
	int ret;

	(void)state;
	build(&r, "cycles,mem:faults");
	r.rows[0].incl[1] = 7;
	out = render(&r, SB_REPORT_TEXT, &ret);
	assert_int_equal(ret, 0);
	assert_non_null(strstr(out, "       3            -            -            -            7"
				    "  solve\n"));
	free(out);
	out = render(&r, SB_REPORT_CSV, &ret);
	assert_non_null(strstr(out, "\nsolve,3,0,,,,,,,7,0\n"));
	free(out);
	out = render(&r, SB_REPORT_JSON, &ret);
	assert_null(strstr(out, "rss_growth"));
	free(out);
	sb_counter_report_free(&r);
	build(&r, "cycles,instructions");
	out = render(&r, SB_REPORT_TEXT, &ret);
	assert_int_equal(ret, -EINVAL);
	free(out);
	sb_counter_report_free(&r);
}

#define EVENTS "mem:rss-growth,mem:rss-release,mem:peak-growth,mem:faults"

/*
 * outer (id 1) around inner (id 2), twice; a top-level inner (id 5); faults
 * per call as given, every other value 0, the first outer's unknown.
 */
static void build_paths_profile(struct sb_profile *p, const char *events)
{
	static const struct fx_call calls[] = {
		{ "outer", 0, 100, 1, -1, 0 }, { "outer", 200, 300, 3, -1, 0 },
		{ "inner", 10, 20, 2, 1, 0 }, { "inner", 210, 220, 4, 3, 0 },
		{ "inner", 400, 410, 5, -1, 0 },
	};
	static const int64_t faults[] = { -1, 50, 10, 20, 7 }, own[] = { -1, 30, 10, 20, 7 };
	unsigned k, slots = 4;
	size_t i;

	fx_call_tree(p, calls, 5, SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID);
	for (k = 0; k < slots; k++)
		p->columns |= SB_COL_METRIC(SB_METRIC_COUNTER + k) |
			      SB_COL_METRIC(SB_METRIC_COUNTER_EXCL + k);
	assert_int_equal(sb_profile_alloc_counters(p), 0);
	for (i = 0; i < 5; i++)
		for (k = 0; k < slots; k++) {
			sb_event_set_metric(p, i, SB_METRIC_COUNTER + k, k == 3 ? faults[i] :
					    faults[i] < 0 ? -1 : 0);
			sb_event_set_metric(p, i, SB_METRIC_COUNTER_EXCL + k, k == 3 ? own[i] :
					    own[i] < 0 ? -1 : 0);
		}
	assert_int_equal(sb_profile_set_str(p, "counter_events", events), 0);
}

/* Node i, the next of the pre-order walk, is name at depth with calls and faults; the next one. */
static uint32_t expect_node(const struct sb_mem_paths *m, const struct sb_profile *p, uint32_t i,
			    const char *name, uint32_t depth, uint64_t calls, uint64_t faults)
{
	assert_true(i != SB_MEM_NONE);
	assert_string_equal(p->regions[m->nodes[i].region].name, name);
	assert_int_equal(m->nodes[i].depth, depth);
	assert_int_equal(m->nodes[i].calls, calls);
	assert_int_equal(m->nodes[i].incl[SB_MEMORY_FAULTS], faults);
	return sb_mem_paths_next(m, i);
}

static void test_paths_sum_per_call_path(void **state)
{
	struct report_opts o = { .format = SB_REPORT_CSV, .path = "m.h5" };
	struct sb_error err = { .msg = "" };
	struct sb_mem_paths m;
	struct sb_profile p;
	uint32_t i;
	char *buf;
	size_t len;
	FILE *f;

	(void)state;
	build_paths_profile(&p, EVENTS);
	assert_int_equal(sb_mem_paths_build(&m, &p, -1, &err), 0);
	/* Pre-order, siblings of equal sizes by name: inner, outer, outer;inner. */
	i = expect_node(&m, &p, sb_mem_paths_next(&m, 0), "inner", 1, 1, 7);
	/* outer's node, which expect_node() names next. */
	assert_int_equal(m.nodes[i].unknown, 1);
	assert_int_equal(m.nodes[i].excl[SB_MEMORY_FAULTS], 30);
	i = expect_node(&m, &p, i, "outer", 1, 2, 50);
	assert_int_equal(expect_node(&m, &p, i, "inner", 2, 2, 30), SB_MEM_NONE);
	f = open_memstream(&buf, &len);
	assert_int_equal(sb_memory_paths_render(f, &p, &m, &o), 0);
	fclose(f);
	expect_has(buf, "path,depth,calls,unknown_calls,rss_growth_bytes,");
	expect_has(buf, "\nouter;inner,2,2,0,0,0,0,0,0,0,30,30\n");
	free(buf);
	o.format = SB_REPORT_TEXT;
	f = open_memstream(&buf, &len);
	assert_int_equal(sb_memory_paths_render(f, &p, &m, &o), 0);
	fclose(f);
	expect_has(buf, "memory per call path");
	expect_has(buf, "          30    inner\n");
	expect_has(buf, "1 call not counted");
	free(buf);
	sb_mem_paths_free(&m);
	sb_profile_free(&p);
}

/* Parent ids that loop (a file's, never trusted): each call still lands on one path. */
static void test_paths_survive_parent_loops(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_mem_paths m;
	struct sb_profile p;
	uint64_t calls = 0;
	uint32_t i;

	(void)state;
	build_paths_profile(&p, EVENTS);
	p.events[0].parent_id = 2;	/* outer's parent is the inner inside it */
	assert_int_equal(sb_mem_paths_build(&m, &p, -1, &err), 0);
	for (i = sb_mem_paths_next(&m, 0); i != SB_MEM_NONE; i = sb_mem_paths_next(&m, i))
		calls += m.nodes[i].calls;
	assert_int_equal(calls, 5);
	sb_mem_paths_free(&m);
	sb_profile_free(&p);
	build_paths_profile(&p, "page-faults,cycles");
	assert_int_equal(sb_mem_paths_build(&m, &p, -1, &err), -EINVAL);
	expect_has(err.msg, "no memory values");
	sb_mem_paths_free(&m);
	sb_profile_free(&p);
}

/*
 * An aggregate (record --aggregate --memory) of outer { inner } and a
 * top-level inner: rows per rank and path, each row's faults (slot 3) and
 * own faults summed over its calls; rank 1's outer row had a call of
 * unknown values (-1). Every other value is 0.
 */
static void build_aggregate_profile(struct sb_profile *p)
{
	static const struct fx_call calls[] = {
		{ "outer", 0, 100, 1, -1, 0 }, { "inner", 10, 20, 2, 1, 0 },
	};
	static const struct { uint32_t rank; int64_t path; uint64_t count; int64_t faults, own; }
	rows[] = { { 0, 0, 2, 50, 30 }, { 0, 1, 4, 20, 20 }, { 1, 0, 3, -1, -1 },
		   { 0, 2, 1, 7, 7 } };
	struct sb_aggregate *a = &p->agg;
	unsigned k, n = 2 * 4;
	size_t i;

	fx_call_tree(p, calls, 2, 0);
	a->on = true;
	a->paths = calloc(3, sizeof(*a->paths));
	a->rows = calloc(4, sizeof(*a->rows));
	a->value_ids = calloc(n, sizeof(*a->value_ids));
	a->values = calloc(4 * n, sizeof(*a->values));
	assert_true(a->paths && a->rows && a->value_ids && a->values);
	a->paths[0] = (struct sb_region_path){ -1, strdup("outer") };
	a->paths[1] = (struct sb_region_path){ 0, strdup("inner") };
	a->paths[2] = (struct sb_region_path){ -1, strdup("inner") };
	a->n_paths = 3;
	a->n_values = n;
	for (k = 0; k < 4; k++) {
		a->value_ids[k] = SB_METRIC_COUNTER + k;
		a->value_ids[4 + k] = SB_METRIC_COUNTER_EXCL + k;
	}
	for (i = 0; i < 4; i++) {
		a->rows[i] = (struct sb_agg_row){ .rank = rows[i].rank, .path = rows[i].path,
						  .count = rows[i].count, .total = 1, .min = 1,
						  .max = 1 };
		for (k = 0; k < 4; k++) {
			a->values[i * n + k] = k == 3 ? rows[i].faults : rows[i].faults < 0 ? -1 : 0;
			a->values[i * n + 4 + k] = k == 3 ? rows[i].own : rows[i].own < 0 ? -1 : 0;
		}
	}
	a->n_rows = 4;
	assert_int_equal(sb_profile_set_str(p, "counter_events", EVENTS), 0);
}

/* An aggregate's rows land on their paths as calls would: sums, counts, unknown rows, --rank. */
static void test_paths_of_an_aggregate(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_mem_paths m;
	struct sb_profile p;
	uint32_t i;

	(void)state;
	build_aggregate_profile(&p);
	assert_int_equal(sb_mem_paths_build(&m, &p, -1, &err), 0);
	/* Pre-order, siblings of equal sizes by name: inner, outer, outer;inner. */
	i = expect_node(&m, &p, sb_mem_paths_next(&m, 0), "inner", 1, 1, 7);
	/* outer's node, which expect_node() names next. */
	assert_int_equal(m.nodes[i].unknown, 3);
	assert_int_equal(m.nodes[i].excl[SB_MEMORY_FAULTS], 30);
	i = expect_node(&m, &p, i, "outer", 1, 5, 50);
	assert_int_equal(expect_node(&m, &p, i, "inner", 2, 4, 20), SB_MEM_NONE);
	sb_mem_paths_free(&m);
	/* Rank 1 alone: only its outer row, unknown whole. */
	assert_int_equal(sb_mem_paths_build(&m, &p, 1, &err), 0);
	i = sb_mem_paths_next(&m, 0);
	assert_int_equal(m.nodes[i].calls, 3);
	assert_int_equal(m.nodes[i].unknown, 3);
	assert_int_equal(sb_mem_paths_next(&m, i), SB_MEM_NONE);
	sb_mem_paths_free(&m);
	/* A path naming no region of the index is the file's fault, said as such. */
	free(p.agg.paths[2].name);
	p.agg.paths[2].name = strdup("gone");
	assert_int_equal(sb_mem_paths_build(&m, &p, -1, &err), -EINVAL);
	expect_has(err.msg, "'gone' is no region");
	sb_mem_paths_free(&m);
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memory_slots_found_by_name),
		cmocka_unit_test(test_order_and_formats),
		cmocka_unit_test(test_missing_slots),
		cmocka_unit_test(test_paths_sum_per_call_path),
		cmocka_unit_test(test_paths_survive_parent_loops),
		cmocka_unit_test(test_paths_of_an_aggregate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
