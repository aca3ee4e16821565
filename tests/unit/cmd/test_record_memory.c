/* Unit tests of `scope-bpf record --memory`: its values as counter slots after -e's events. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmd/record_opts.h"
#include "model/memory.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])) - 1)

static void test_memory_slots_in_order(void **state)
{
	char *argv[] = { "record", "--memory", "--", "./app", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;
	unsigned i;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(argv), argv, &o, &err), 0);
	assert_true(o.memory);
	assert_int_equal(o.counters.n, SB_MEMORY_SLOTS);
	for (i = 0; i < SB_MEMORY_SLOTS; i++) {
		assert_true(o.counters.ev[i].memory);
		assert_int_equal(o.counters.ev[i].config, i);
		assert_false(o.counters.ev[i].hardware);
		assert_int_equal(sb_memory_slot_of(o.counters.ev[i].name), (int)i);
	}
	assert_string_equal(o.counters.ev[0].name, "mem:rss-growth");
	assert_string_equal(o.counters.ev[3].name, "mem:faults");
	/* Read at every region boundary: the kernel path, as with -e. */
	assert_false(record_fast_wanted(&o));
	record_opts_free(&o);
}

/* -e's events first, whichever comes first on the line; the memory slots follow. */
static void test_memory_after_events(void **state)
{
	char *argv[] = { "record", "--memory", "-e", "page-faults", "--", "./app", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(argv), argv, &o, &err), 0);
	assert_int_equal(o.counters.n, 1 + SB_MEMORY_SLOTS);
	assert_string_equal(o.counters.ev[0].name, "page-faults");
	assert_false(o.counters.ev[0].memory);
	assert_string_equal(o.counters.ev[1].name, "mem:rss-growth");
	record_opts_free(&o);
}

static void test_without_memory_nothing_added(void **state)
{
	char *argv[] = { "record", "-e", "page-faults", "--", "./app", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(argv), argv, &o, &err), 0);
	assert_false(o.memory);
	assert_int_equal(o.counters.n, 1);
	record_opts_free(&o);
}

static void test_refusals(void **state)
{
	char *fast[] = { "record", "--memory", "--mode=fast", "--", "./app", NULL };
	char *many[] = { "record", "--memory", "-e",
			 "page-faults,minor-faults,major-faults,context-switches,cpu-migrations",
			 "--", "./app", NULL };
	char *twice[] = { "record", "--memory", "-e", "mem:faults", "--", "./app", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(fast), fast, &o, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "--mode=fast: counters (--memory)"));
	record_opts_free(&o);
	assert_int_equal(record_parse_args(ARGC(many), many, &o, &err), -E2BIG);
	assert_string_equal(err.msg, "--memory: its 4 values and -e's 5 events are more than 8");
	record_opts_free(&o);
	/* A memory value is no event -e knows. */
	assert_int_not_equal(record_parse_args(ARGC(twice), twice, &o, &err), 0);
	assert_non_null(strstr(err.msg, "mem:faults"));
	record_opts_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memory_slots_in_order),
		cmocka_unit_test(test_memory_after_events),
		cmocka_unit_test(test_without_memory_nothing_added),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
