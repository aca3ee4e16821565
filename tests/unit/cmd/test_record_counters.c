/* Unit tests of `scope-bpf record -e`: events resolved and checked before recording. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "cmd/record_opts.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])) - 1)

static void test_events_in_order_over_several_options(void **state)
{
	char *argv[] = { "record", "-e", "page-faults,context-switches", "--events",
			 "task-clock", "--", "./app", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(argv), argv, &o, &err), 0);
	assert_int_equal(o.counters.n, 3);
	assert_string_equal(o.counters.ev[0].name, "page-faults");
	assert_string_equal(o.counters.ev[2].name, "task-clock");
	assert_int_equal(o.counters.ev[1].type, PERF_TYPE_SOFTWARE);
	assert_int_equal(o.counters.ev[1].config, PERF_COUNT_SW_CONTEXT_SWITCHES);
	assert_false(o.counters.ev[0].hardware);
}

static void test_no_events_by_default(void **state)
{
	char *argv[] = { "record", "--", "./app", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(argv), argv, &o, &err), 0);
	assert_int_equal(o.counters.n, 0);
}

static void expect_error(char *list, const char *needle)
{
	char *argv[] = { "record", "-e", list, "--", "./app", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	assert_true(record_parse_args(ARGC(argv), argv, &o, &err) < 0);
	if (!strstr(err.msg, needle))
		fail_msg("'%s' not in '%s'", needle, err.msg);
}

/* Names and lists are the resolver's (tests/unit/counters); here: a bad one stops record. */
static void test_bad_list_is_a_usage_error(void **state)
{
	(void)state;
	expect_error("page-faults,no-such-event", "no-such-event");
}

/* A hardware event this machine cannot count is refused at parse time, before recording. */
static void test_hardware_event_checked(void **state)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_HARDWARE,
				     .config = PERF_COUNT_HW_CPU_CYCLES, .disabled = 1 };
	char *argv[] = { "record", "-e", "cycles", "--", "./app", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;
	int fd;

	(void)state;
	fd = (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);
	if (fd >= 0) {
		close(fd);
		assert_int_equal(record_parse_args(ARGC(argv), argv, &o, &err), 0);
		assert_true(o.counters.ev[0].hardware);
		return;
	}
	assert_true(record_parse_args(ARGC(argv), argv, &o, &err) < 0);
	assert_non_null(strstr(err.msg, "cycles"));
	assert_non_null(strstr(err.msg, "software events"));
}

static void test_group_option(void **state)
{
	char *unknown[] = { "record", "-g", "NO_SUCH_GROUP", "--", "./app", NULL };
	char *both[] = { "record", "-e", "page-faults", "-g", "CLOCK", "--", "./app", NULL };
	char *clock[] = { "record", "--group", "CLOCK", "--", "./app", NULL };
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_HARDWARE,
				     .config = PERF_COUNT_HW_CPU_CYCLES, .disabled = 1 };
	struct sb_error err = { { 0 } };
	struct record_opts o;
	int fd, ret;

	(void)state;
	assert_true(record_parse_args(ARGC(unknown), unknown, &o, &err) < 0);
	assert_non_null(strstr(err.msg, "NO_SUCH_GROUP"));
	assert_null(o.group);
	assert_true(record_parse_args(ARGC(both), both, &o, &err) < 0);
	assert_non_null(strstr(err.msg, "either -e LIST or -g GROUP"));
	record_opts_free(&o);
	/* CLOCK's events are hardware ones: counted where a PMU is, refused before recording where not. */
	ret = record_parse_args(ARGC(clock), clock, &o, &err);
	fd = (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);
	if (fd >= 0) {
		close(fd);
		assert_int_equal(ret, 0);
		assert_non_null(o.group);
		assert_string_equal(o.group->name, "CLOCK");
		assert_int_equal(o.counters.n, o.group->events.n);
	} else {
		/* No PMU: refused, for that; or first for a CPU LIKWID has no groups for. */
		assert_true(ret < 0);
		assert_true(strstr(err.msg, "software events") ||
			    strstr(err.msg, "-g CLOCK: LIKWID groups: no perfgroups directory"));
	}
	record_opts_free(&o);
	assert_null(o.group);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_events_in_order_over_several_options),
		cmocka_unit_test(test_no_events_by_default),
		cmocka_unit_test(test_bad_list_is_a_usage_error),
		cmocka_unit_test(test_hardware_event_checked),
		cmocka_unit_test(test_group_option),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
