/* Unit tests of counter event names: generic, cache, raw, msr and libpfm4 names, lists, the check. */
#include <errno.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "counters/events.h"

static void expect_event(const char *name, const char *want_name, uint32_t type, uint64_t config,
			 bool hardware)
{
	struct sb_counter_event ev;
	struct sb_error err = { "" };

	assert_int_equal(sb_counter_event_resolve(name, &ev, &err), 0);
	assert_string_equal(ev.name, want_name);
	assert_int_equal(ev.type, type);
	assert_int_equal(ev.config, config);
	assert_int_equal(ev.hardware, hardware);
}

static void test_generic_hardware_names_are_perfs(void **state)
{
	(void)state;
	expect_event("cycles", "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, true);
	expect_event("cpu-cycles", "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, true);
	expect_event("instructions", "instructions", PERF_TYPE_HARDWARE,
		     PERF_COUNT_HW_INSTRUCTIONS, true);
	expect_event("cache-misses", "cache-misses", PERF_TYPE_HARDWARE,
		     PERF_COUNT_HW_CACHE_MISSES, true);
	expect_event("branch-instructions", "branches", PERF_TYPE_HARDWARE,
		     PERF_COUNT_HW_BRANCH_INSTRUCTIONS, true);
	expect_event("branch-misses", "branch-misses", PERF_TYPE_HARDWARE,
		     PERF_COUNT_HW_BRANCH_MISSES, true);
	expect_event("ref-cycles", "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES,
		     true);
	expect_event("stalled-cycles-backend", "stalled-cycles-backend", PERF_TYPE_HARDWARE,
		     PERF_COUNT_HW_STALLED_CYCLES_BACKEND, true);
}

static void test_software_names_and_aliases_need_no_pmu(void **state)
{
	(void)state;
	expect_event("task-clock", "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
		     false);
	expect_event("faults", "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
		     false);
	expect_event("cs", "context-switches", PERF_TYPE_SOFTWARE,
		     PERF_COUNT_SW_CONTEXT_SWITCHES, false);
	expect_event("migrations", "cpu-migrations", PERF_TYPE_SOFTWARE,
		     PERF_COUNT_SW_CPU_MIGRATIONS, false);
	expect_event("major-faults", "major-faults", PERF_TYPE_SOFTWARE,
		     PERF_COUNT_SW_PAGE_FAULTS_MAJ, false);
	expect_event("emulation-faults", "emulation-faults", PERF_TYPE_SOFTWARE,
		     PERF_COUNT_SW_EMULATION_FAULTS, false);
}

static void test_cache_events_encode_cache_op_and_result(void **state)
{
	(void)state;
	expect_event("L1-dcache-load-misses", "L1-dcache-load-misses", PERF_TYPE_HW_CACHE,
		     PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
		     (PERF_COUNT_HW_CACHE_RESULT_MISS << 16), true);
	expect_event("LLC-stores", "LLC-stores", PERF_TYPE_HW_CACHE,
		     PERF_COUNT_HW_CACHE_LL | (PERF_COUNT_HW_CACHE_OP_WRITE << 8) |
		     (PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16), true);
	expect_event("dTLB-prefetches", "dTLB-prefetches", PERF_TYPE_HW_CACHE,
		     PERF_COUNT_HW_CACHE_DTLB | (PERF_COUNT_HW_CACHE_OP_PREFETCH << 8), true);
}

static void test_raw_is_hex_config_as_perf(void **state)
{
	(void)state;
	expect_event("r01c2", "r01c2", PERF_TYPE_RAW, 0x1c2, true);
	expect_event("rF000000FF", "rF000000FF", PERF_TYPE_RAW, 0xf000000ffULL, true);
}

static void expect_unknown(const char *name)
{
	struct sb_counter_event ev;
	struct sb_error err = { "" };

	assert_int_equal(sb_counter_event_resolve(name, &ev, &err), -ENOENT);
	assert_non_null(strstr(err.msg, name));
	assert_non_null(strstr(err.msg, "unknown event"));
}

static void test_unknown_names_are_named_in_the_error(void **state)
{
	(void)state;
	expect_unknown("no-such-event");
	expect_unknown("r");		/* no digits: not raw */
	expect_unknown("r12xz");	/* not hex */
	expect_unknown("r12345678901234567");	/* over 64 bits */
	expect_unknown("L1-dcache-loadz");
}

/* A foreign PMU's event by pmu:: prefix: what LIKWID groups of another CPU need. */
static void test_libpfm4_encodes_a_named_pmu_this_cpu_lacks(void **state)
{
	struct sb_error err = { "" };
	struct sb_counter_event ev;

	(void)state;
	expect_event("skl::INST_RETIRED:ANY_P", "skl::INST_RETIRED:ANY_P", PERF_TYPE_RAW, 0xc0,
		     true);
	expect_event("amd64_fam17h_zen1::RETIRED_INSTRUCTIONS",
		     "amd64_fam17h_zen1::RETIRED_INSTRUCTIONS", PERF_TYPE_RAW, 0xc0, true);
	expect_event("perf::PERF_COUNT_SW_PAGE_FAULTS", "perf::PERF_COUNT_SW_PAGE_FAULTS",
		     PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, false);
	/* a bad unit mask is libpfm4's error, naming the event */
	assert_int_equal(sb_counter_event_resolve("skl::INST_RETIRED:NO_SUCH_UMASK", &ev, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "skl::INST_RETIRED:NO_SUCH_UMASK"));
	/* the traced command must not inherit what libpfm4 was started with */
	assert_null(getenv("LIBPFM_ENCODE_INACTIVE"));
}

static void test_msr_events_take_the_msr_pmu_type_from_sysfs(void **state)
{
	struct sb_error err = { "" };
	struct sb_counter_event ev;
	FILE *f = fopen("/sys/bus/event_source/devices/msr/type", "r");
	unsigned int type;
	int ret;

	(void)state;
	ret = sb_counter_event_resolve("msr/mperf/", &ev, &err);
	if (!f) {
		assert_int_equal(ret, -ENOENT);
		assert_non_null(strstr(err.msg, "no msr PMU"));
		return;
	}
	assert_int_equal(fscanf(f, "%u", &type), 1);
	fclose(f);
	assert_int_equal(ret, 0);
	assert_int_equal(ev.type, type);
	assert_int_equal(ev.config, 2);	/* the kernel's PERF_MSR_MPERF */
	assert_true(ev.hardware);
	assert_int_equal(sb_counter_event_resolve("msr/bogus/", &ev, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "msr/bogus/"));
}

static void test_list_keeps_order_and_counts(void **state)
{
	struct sb_counter_set set = { .n = 0 };
	struct sb_error err = { "" };

	(void)state;
	assert_int_equal(sb_counter_set_parse(&set, "page-faults,r01c2,cycles", &err), 0);
	assert_int_equal(set.n, 3);
	assert_string_equal(set.ev[0].name, "page-faults");
	assert_string_equal(set.ev[1].name, "r01c2");
	assert_string_equal(set.ev[2].name, "cycles");
}

static void test_duplicate_event_is_an_error_naming_it(void **state)
{
	struct sb_counter_set set = { .n = 0 };
	struct sb_error err = { "" };

	(void)state;
	/* an alias is the same event */
	assert_int_equal(sb_counter_set_parse(&set, "cycles,page-faults,cpu-cycles", &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "cycles: event given twice"));
}

static void test_more_than_the_limit_is_an_error_naming_the_first_too_many(void **state)
{
	struct sb_counter_set set = { .n = 0 };
	struct sb_error err = { "" };

	(void)state;
	assert_int_equal(SB_MAX_COUNTERS, 8);
	assert_int_equal(sb_counter_set_parse(&set, "cycles,instructions,branches,branch-misses,"
					      "page-faults,cs,migrations,task-clock,cpu-clock",
					      &err), -E2BIG);
	assert_non_null(strstr(err.msg, "cpu-clock: more than 8 events"));
}

static void test_an_unknown_name_in_a_list_stops_the_parse(void **state)
{
	struct sb_counter_set set = { .n = 0 };
	struct sb_error err = { "" };

	(void)state;
	assert_int_equal(sb_counter_set_parse(&set, "cycles,bogus-event", &err), -ENOENT);
	assert_non_null(strstr(err.msg, "bogus-event"));
	set.n = 0;
	assert_int_equal(sb_counter_set_parse(&set, "", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "empty event name"));
	set.n = 0;
	assert_int_equal(sb_counter_set_parse(&set, "cycles,,page-faults", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'cycles,,page-faults': an empty event name"));
}

static long open_cycles(void)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.disabled = 1;
	attr.exclude_hv = 1;
	return syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}

/* Where the kernel counts no cycles (this VM), the check says which event, why, and what works. */
static void test_hardware_check_fails_with_the_pmu_message_when_cycles_cannot_open(void **state)
{
	struct sb_counter_event ev;
	struct sb_error err = { "" };
	long fd = open_cycles();
	int ret;

	(void)state;
	assert_int_equal(sb_counter_event_resolve("cycles", &ev, &err), 0);
	ret = sb_counter_event_check(&ev, &err);
	if (fd >= 0) {
		close((int)fd);
		assert_int_equal(ret, 0);
		return;
	}
	assert_true(ret < 0);
	assert_non_null(strstr(err.msg, "cycles: "));
	assert_non_null(strstr(err.msg, "no hardware PMU"));
	assert_non_null(strstr(err.msg, "virtualization"));
	assert_non_null(strstr(err.msg, "page-faults"));
}

static void test_software_events_pass_the_check(void **state)
{
	struct sb_counter_set set = { .n = 0 };
	struct sb_error err = { "" };
	unsigned int i;

	(void)state;
	assert_int_equal(sb_counter_set_parse(&set, "page-faults,context-switches,task-clock,"
					      "cpu-clock,cpu-migrations", &err), 0);
	for (i = 0; i < set.n; i++)
		assert_int_equal(sb_counter_event_check(&set.ev[i], &err), 0);
}

static void test_list_events_shows_software_generic_and_raw(void **state)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	(void)state;
	assert_int_equal(sb_counter_list_events(f), 0);
	fclose(f);
	assert_non_null(strstr(out, "  page-faults OR faults\n"));
	assert_non_null(strstr(out, "  cycles OR cpu-cycles\n"));
	assert_non_null(strstr(out, "  L1-dcache-load-misses\n"));
	assert_non_null(strstr(out, "rNNNN"));
	if (open_cycles() < 0)
		assert_non_null(strstr(out, "Hardware events: none countable here"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generic_hardware_names_are_perfs),
		cmocka_unit_test(test_software_names_and_aliases_need_no_pmu),
		cmocka_unit_test(test_cache_events_encode_cache_op_and_result),
		cmocka_unit_test(test_raw_is_hex_config_as_perf),
		cmocka_unit_test(test_unknown_names_are_named_in_the_error),
		cmocka_unit_test(test_libpfm4_encodes_a_named_pmu_this_cpu_lacks),
		cmocka_unit_test(test_msr_events_take_the_msr_pmu_type_from_sysfs),
		cmocka_unit_test(test_list_keeps_order_and_counts),
		cmocka_unit_test(test_duplicate_event_is_an_error_naming_it),
		cmocka_unit_test(test_more_than_the_limit_is_an_error_naming_the_first_too_many),
		cmocka_unit_test(test_an_unknown_name_in_a_list_stops_the_parse),
		cmocka_unit_test(test_hardware_check_fails_with_the_pmu_message_when_cycles_cannot_open),
		cmocka_unit_test(test_software_events_pass_the_check),
		cmocka_unit_test(test_list_events_shows_software_generic_and_raw),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
