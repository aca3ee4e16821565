/* Unit tests of the loss counters' explanations: shown when non-zero, silent when zero. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/health.h"
#include "fixtures.h"

/* What sb_health_print writes for p, and how many warnings it counted. */
static char *print(const struct sb_profile *p, const char *indent, size_t *n)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	*n = sb_health_print(f, p, indent);
	assert_int_equal(fclose(f), 0);
	return out;
}

static void all_zero(struct sb_profile *p)
{
	size_t i;

	sb_profile_init(p);
	for (i = 0; i < sb_health_n_keys; i++)
		assert_int_equal(sb_profile_set_int(p, sb_health_keys[i].key, 0), 0);
}

static void test_zero_counters_print_nothing(void **state)
{
	struct sb_profile p;
	char buf[128];
	size_t n;
	char *out;

	(void)state;
	all_zero(&p);
	out = print(&p, "", &n);
	assert_int_equal(n, 0);
	assert_string_equal(out, "");
	free(out);
	assert_int_equal(sb_health_summary(&p, buf, sizeof(buf)), strlen("0 lost"));
	assert_string_equal(buf, "0 lost");
	sb_profile_free(&p);
}

static void test_every_non_zero_counter_has_its_line_and_hint(void **state)
{
	struct sb_profile p;
	char needle[256];
	size_t n, i;
	char *out;

	(void)state;
	all_zero(&p);
	for (i = 0; i < sb_health_n_keys; i++)
		assert_int_equal(sb_profile_set_int(&p, sb_health_keys[i].key, (int64_t)i + 1), 0);
	out = print(&p, "  ", &n);
	assert_int_equal(n, sb_health_n_keys);
	for (i = 0; i < sb_health_n_keys; i++) {
		snprintf(needle, sizeof(needle), "  warning: %zu %s (%s): %s\n", i + 1,
			 sb_health_keys[i].label, sb_health_keys[i].key, sb_health_keys[i].hint);
		expect_has(out, needle);
	}
	free(out);
	sb_profile_free(&p);
}

static void test_deep_recursion_reads_in_the_summary(void **state)
{
	struct sb_profile p;
	char buf[128], small[8];
	size_t n;
	char *out;

	(void)state;
	all_zero(&p);
	assert_int_equal(sb_profile_set_int(&p, "depth_overflow_calls", 9807), 0);
	assert_int_equal(sb_profile_set_int(&p, "threads_dropped", 3), 0);
	sb_health_summary(&p, buf, sizeof(buf));
	assert_string_equal(buf, "0 lost, 9807 too deep, 3 thread table full");
	/* Cut short, still a string; the return value says how much room it needed. */
	assert_int_equal(sb_health_summary(&p, small, sizeof(small)), strlen(buf));
	assert_string_equal(small, "0 lost,");
	out = print(&p, "", &n);
	assert_int_equal(n, 2);
	expect_has(out, "warning: 9807 calls were too deep to record (depth_overflow_calls): "
			"calls nested deeper than 64 regions (runaway recursion?) were counted, "
			"not recorded\n");
	free(out);
	sb_profile_free(&p);
}

static void test_regions_open_at_start_are_named(void **state)
{
	struct sb_profile p;
	size_t n;
	char *out;

	(void)state;
	sb_profile_init(&p);
	assert_int_equal(sb_profile_set_int(&p, "calls_open_at_start", 2), 0);
	assert_int_equal(sb_profile_set_str(&p, "regions_open_at_start", "main,solve"), 0);
	out = print(&p, "", &n);
	assert_int_equal(n, 1);
	expect_has(out, "warning: 2 calls were open when recording attached");
	expect_has(out, "regions open at start: main,solve\n");
	free(out);
	sb_profile_free(&p);
}

/* A recording that launched its command attached to no running process: no warning says so. */
static void test_a_launched_recording_never_blames_attaching(void **state)
{
	struct sb_profile p;
	size_t n;
	char *out;

	(void)state;
	sb_profile_init(&p);
	assert_int_equal(sb_profile_set_int(&p, "unmatched_region_ends", 3), 0);
	assert_int_equal(sb_profile_set_int(&p, "calls_open_at_start", 3), 0);
	assert_int_equal(sb_profile_set_int(&p, "mpi_calls_open_at_start", 2), 0);
	assert_int_equal(sb_profile_set_str(&p, "regions_open_at_start", "solve"), 0);
	assert_int_equal(sb_profile_set_str(&p, "record_scope", "command"), 0);
	out = print(&p, "", &n);
	assert_int_equal(n, 3);
	if (strstr(out, "-p") || strstr(out, "attach"))
		fail_msg("a launched recording blamed attaching:\n%s", out);
	expect_has(out, "an end marker that does not match its begin in the code");
	expect_has(out, ": solve\n");
	free(out);
	/* record -p, or a file that does not say how it was recorded: attaching is a cause. */
	assert_int_equal(sb_profile_set_str(&p, "record_scope", "attached"), 0);
	out = print(&p, "", &n);
	expect_has(out, "regions already open when recording attached to their process (record -p");
	expect_has(out, "regions open at start: solve\n");
	free(out);
	sb_profile_free(&p);
	sb_profile_init(&p);
	assert_int_equal(sb_profile_set_int(&p, "unmatched_region_ends", 3), 0);
	out = print(&p, "", &n);
	expect_has(out, "(record -p");
	expect_has(out, "an end marker that does not match its begin in the code");
	free(out);
	sb_profile_free(&p);
}

static void test_other_tools_files_have_no_counters(void **state)
{
	struct sb_profile p;
	char buf[32];
	size_t n;
	char *out;

	(void)state;
	sb_profile_init(&p);
	assert_int_equal(sb_profile_set_str(&p, "lost_events", "many"), 0);
	out = print(&p, "", &n);
	assert_int_equal(n, 0);
	assert_string_equal(out, "");
	free(out);
	sb_health_summary(&p, buf, sizeof(buf));
	assert_string_equal(buf, "0 lost");
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zero_counters_print_nothing),
		cmocka_unit_test(test_every_non_zero_counter_has_its_line_and_hint),
		cmocka_unit_test(test_deep_recursion_reads_in_the_summary),
		cmocka_unit_test(test_regions_open_at_start_are_named),
		cmocka_unit_test(test_a_launched_recording_never_blames_attaching),
		cmocka_unit_test(test_other_tools_files_have_no_counters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
