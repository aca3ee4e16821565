/* Unit tests of `diff --metric EVENT`: regions judged by an event's counts. */
#include "fixtures.h"

#include "analysis/diff.h"
#include "cmd/commands.h"
#include "cmd/diff.h"

/* Region "solve", two calls of counts v0 and v1 in the slot of event, beside other. */
static void build(struct sb_profile *p, const char *events, int slot, int64_t v0, int64_t v1)
{
	struct sb_event e;
	int i;

	fx_call_tree(p, NULL, 0, SB_COL_THREAD);
	assert_int_equal(sb_profile_add_region(p, "solve", "", -1, "[]"), 0);
	p->columns |= SB_COL_METRIC(SB_METRIC_COUNTER) | SB_COL_METRIC(SB_METRIC_COUNTER + 1) |
		      SB_COL_METRIC(SB_METRIC_COUNTER_EXCL) |
		      SB_COL_METRIC(SB_METRIC_COUNTER_EXCL + 1);
	for (i = 0; i < 2; i++) {
		sb_event_blank(&e);
		e.start = 10 * i;
		e.end = e.start + 5;
		e.thread = 0;
		fx_add_call(p, 0, 0, &e);
	}
	assert_int_equal(sb_profile_alloc_counters(p), 0);
	for (i = 0; i < 2; i++) {
		sb_event_set_metric(p, (size_t)i, SB_METRIC_COUNTER + (unsigned)slot, i ? v1 : v0);
		sb_event_set_metric(p, (size_t)i, SB_METRIC_COUNTER + (unsigned)!slot, 999);
	}
	assert_int_equal(sb_profile_set_str(p, "counter_events", events), 0);
}

static void test_counts_matched_by_name(void **state)
{
	struct sb_diff_opts o = { .metric = SB_DIFF_COUNTER, .event = "page-faults",
				  .max_regression = SB_DIFF_PCT_SCALE * 10LL, .ranks_a = 1,
				  .ranks_b = 1 };
	struct sb_error err = { .msg = "" };
	struct sb_profile a, b;
	struct sb_diff d;

	(void)state;
	/* The event sits in another slot in B: names match, not slots; unknowns add nothing. */
	build(&a, "page-faults,cycles", 0, 100, 50);
	build(&b, "cycles,page-faults", 1, 200, -1);
	assert_int_equal(sb_diff_build_opts(&d, &a, &b, &o, &err), 0);
	assert_int_equal(d.n_rows, 1);
	assert_string_equal(sb_diff_label(&d), "page-faults");
	assert_int_equal(d.rows[0].a.counter, 150);
	assert_int_equal(d.rows[0].b.counter, 200);
	assert_int_equal(d.rows[0].delta, 50);
	/* 33% more than A, over the 10% gate. */
	assert_true(d.rows[0].regression);
	sb_diff_free(&d);
	sb_profile_free(&a);
	sb_profile_free(&b);
}

static void test_event_not_counted(void **state)
{
	struct sb_diff_opts o = { .metric = SB_DIFF_COUNTER, .event = "cycles",
				  .max_regression = SB_DIFF_NO_GATE, .ranks_a = 1, .ranks_b = 1 };
	struct sb_error err = { .msg = "" };
	struct sb_profile a, b;
	struct sb_diff d;

	(void)state;
	build(&a, "page-faults,cycles", 0, 1, 1);
	build(&b, "page-faults,instructions", 0, 1, 1);
	assert_int_equal(sb_diff_build_opts(&d, &a, &b, &o, &err), -EINVAL);
	expect_has(err.msg, "cycles");
	expect_has(err.msg, "event B counted (its counters: page-faults,instructions)");
	sb_diff_free(&d);
	/* A prefix of a name is not the name. */
	o.event = "page";
	assert_int_equal(sb_diff_build_opts(&d, &a, &b, &o, &err), -EINVAL);
	sb_diff_free(&d);
	sb_profile_free(&a);
	sb_profile_free(&b);
}

static void test_time_metrics_have_no_counts(void **state)
{
	struct sb_profile a, b;
	struct sb_diff d;

	(void)state;
	build(&a, "page-faults,cycles", 0, 1, 1);
	build(&b, "page-faults,cycles", 0, 1, 1);
	assert_int_equal(sb_diff_build(&d, &a, &b, SB_DIFF_TOTAL, SB_DIFF_NO_GATE), 0);
	assert_int_equal(d.rows[0].a.counter, SB_DIFF_UNKNOWN);
	assert_string_equal(sb_diff_label(&d), "total");
	sb_diff_free(&d);
	sb_profile_free(&a);
	sb_profile_free(&b);
}

static void test_metric_option(void **state)
{
	char *ok[] = { "diff", "-m", "page-faults", "a.h5", "b.h5", NULL };
	char *metric[] = { "diff", "--metric", "calls", "a.h5", "b.h5", NULL };
	char *list[] = { "diff", "-m", "cycles,instructions", "a.h5", "b.h5", NULL };
	struct sb_error err = { .msg = "" };
	struct diff_opts o;

	(void)state;
	assert_int_equal(diff_parse_args(5, ok, &o, &err), 0);
	assert_int_equal(o.metric, SB_DIFF_COUNTER);
	assert_string_equal(o.event, "page-faults");
	sb_filter_free(&o.filter);
	assert_int_equal(diff_parse_args(5, metric, &o, &err), 0);
	assert_int_equal(o.metric, SB_DIFF_CALLS);
	assert_null(o.event);
	sb_filter_free(&o.filter);
	assert_int_equal(diff_parse_args(5, list, &o, &err), -EINVAL);
	expect_has(err.msg, "one event");
	sb_filter_free(&o.filter);
}

/* The command: an event both counted compares, one they did not is a usage error. */
static void test_command_exit_status(void **state)
{
	char *counted[] = { "diff", "-o", tmp_path("out.txt"), "-m", "page-faults",
			    tmp_path("a.h5"), tmp_path("b.h5"), NULL };
	char *absent[] = { "diff", "-o", tmp_path("out.txt"), "-m", "cycles", tmp_path("a.h5"),
			   tmp_path("b.h5"), NULL };
	struct sb_error err = { .msg = "" };
	struct sb_profile a, b;
	char *text;

	(void)state;
	build(&a, "page-faults,instructions", 0, 100, 50);
	build(&b, "page-faults,cycles", 0, 100, 50);
	assert_int_equal(fx_write_h5(tmp_path("a.h5"), &a, &err), 0);
	assert_int_equal(fx_write_h5(tmp_path("b.h5"), &b, &err), 0);
	sb_profile_free(&a);
	sb_profile_free(&b);
	assert_int_equal(cmd_diff(7, counted), 0);
	text = slurp(tmp_path("out.txt"));
	expect_has(text, "metric page-faults");
	free(text);
	assert_int_equal(cmd_diff(7, absent), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_matched_by_name),
		cmocka_unit_test(test_event_not_counted),
		cmocka_unit_test(test_time_metrics_have_no_counts),
		cmocka_unit_test(test_metric_option),
		cmocka_unit_test(test_command_exit_status),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
