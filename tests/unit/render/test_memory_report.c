/* Unit tests of `report --memory`: which slots are memory, the order, MiB as text, bytes in JSON and CSV. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memory_slots_found_by_name),
		cmocka_unit_test(test_order_and_formats),
		cmocka_unit_test(test_missing_slots),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
