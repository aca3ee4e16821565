/* Unit tests of counters per call: the kernel side's arithmetic, and call records with counts. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include <cmocka.h>

#include "record/collect.h"
#include "region.h"

static void test_scaling_when_multiplexed(void **state)
{
	(void)state;
	/* Ran the whole time, or never (nothing to scale by): as is. */
	assert_int_equal(sb_ctr_scale(1000, 500, 500), 1000);
	assert_int_equal(sb_ctr_scale(1000, 500, 0), 1000);
	/* Ran half the time: twice the count; a quarter: four times. */
	assert_int_equal(sb_ctr_scale(1000, 200, 100), 2000);
	assert_int_equal(sb_ctr_scale(1000, 400, 100), 4000);
	/* Large counts keep their precision (16-bit fixed point ratio). */
	assert_int_equal(sb_ctr_scale(3000000000000ULL, 3000000000ULL, 1000000000ULL),
			 9000000000000ULL);
	/* A ratio that is not a power of two: within one part in 65536. */
	assert_in_range(sb_ctr_scale(3000000, 3, 2), 4499932, 4500000);
}

static void test_delta_and_exclusive(void **state)
{
	(void)state;
	assert_int_equal(sb_ctr_delta(100, 400), 300);
	/* A scaled reading may step back: no negative count. */
	assert_int_equal(sb_ctr_delta(400, 390), 0);
	assert_int_equal(sb_ctr_exclusive(400, 300), 100);
	assert_int_equal(sb_ctr_exclusive(400, 400), 0);
	assert_int_equal(sb_ctr_exclusive(300, 400), 0);
}

static void site(struct sb_collector *c, uint32_t tgid, const char *name)
{
	struct sb_site_event e = { .type = SB_EV_SITE, .tgid = tgid, .site = 0x10, .line = 1 };

	snprintf(e.name, sizeof(e.name), "%s", name);
	assert_int_equal(sb_collector_record(c, &e, sizeof(e)), 0);
}

static struct sb_call_ctr_event call(const char *name, uint64_t start, int64_t id, int64_t parent)
{
	struct sb_call_ctr_event e = { .call = { .type = SB_EV_CALL, .tgid = 7, .tid = 7,
						 .site = 0x10, .start = start, .end = start + 10,
						 .call_id = id, .parent_id = parent,
						 .name_hash = sb_name_hash(name) } };
	int k;

	for (k = 0; k < SB_CTR_MAX; k++)
		e.incl[k] = e.excl[k] = SB_CTR_UNKNOWN;
	return e;
}

static void test_records_with_counts(void **state)
{
	struct sb_call_ctr_event a = call("work", 100, 0, -1), b = call("work", 200, 1, -1);
	struct sb_call_event plain = call("work", 300, 2, -1).call;
	struct sb_collect_stream s;
	struct sb_collector c;
	struct sb_event rows[4];
	int64_t counts[4][4];	/* two slots: inclusive 0, 1, exclusive 0, 1 */
	ssize_t n;

	(void)state;
	assert_int_equal(sb_collector_init(&c, "/tmp", 1 << 20), 0);
	assert_int_equal(sb_collector_add_process(&c, 7, 1, 0), 0);
	c.n_counters = 2;
	site(&c, 7, "work");
	a.incl[0] = 40;
	a.excl[0] = 30;
	a.incl[1] = 0;
	a.excl[1] = 0;
	/* b began before its thread had counters: unknown, not 0. */
	assert_int_equal(sb_collector_record(&c, &a, sizeof(a)), 0);
	assert_int_equal(sb_collector_record(&c, &b, sizeof(b)), 0);
	/* A record without counts (a recording without them) is unknown too. */
	assert_int_equal(sb_collector_record(&c, &plain, sizeof(plain)), 0);
	assert_int_equal(sb_collector_finish(&c), 0);

	assert_true(c.prof.columns & SB_COL_METRIC(SB_METRIC_COUNTER + 1));
	assert_true(c.prof.columns & SB_COL_METRIC(SB_METRIC_COUNTER_EXCL + 1));
	assert_false(c.prof.columns & SB_COL_METRIC(SB_METRIC_COUNTER + 2));
	sb_collector_stream(&c, &s);
	assert_int_equal(sb_counter_stride(sb_profile_counter_slots(&c.prof)), 4);
	n = s.base.read(&s.base, rows, &counts[0][0], 4);
	assert_int_equal(n, 3);
	assert_int_equal(counts[0][0], 40);
	assert_int_equal(counts[0][2], 30);
	assert_int_equal(counts[0][1], 0);
	assert_int_equal(counts[0][3], 0);
	assert_int_equal(counts[1][0], -1);
	assert_int_equal(counts[1][3], -1);
	assert_int_equal(counts[2][0], -1);
	sb_collector_free(&c);
}

static void test_no_counters_no_columns(void **state)
{
	struct sb_call_event plain = call("work", 300, 0, -1).call;
	struct sb_collector c;
	unsigned k;

	(void)state;
	assert_int_equal(sb_collector_init(&c, "/tmp", 1 << 20), 0);
	site(&c, 7, "work");
	assert_int_equal(sb_collector_record(&c, &plain, sizeof(plain)), 0);
	assert_int_equal(sb_collector_finish(&c), 0);
	for (k = 0; k < 2 * SB_CTR_MAX; k++)
		assert_false(c.prof.columns & SB_COL_METRIC(SB_METRIC_COUNTER + k));
	sb_collector_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scaling_when_multiplexed),
		cmocka_unit_test(test_delta_and_exclusive),
		cmocka_unit_test(test_records_with_counts),
		cmocka_unit_test(test_no_counters_no_columns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
