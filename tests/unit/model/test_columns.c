/*
 * The metric column registry: every registered column reaches the file, the
 * readers and the exports under its registered names, and what the kernel
 * measures per call reaches the events through the spill.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include <cmocka.h>

#include "fixtures.h"
#include "export/export.h"
#include "io/h5read.h"
#include "io/h5write.h"
#include "io/json_read.h"
#include "record/collect.h"
#include "region.h"

#define N_CALLS 4

/* A value no column shares with another call or column: 1000 * (id + 1) + call. */
static int64_t value_of(unsigned id, size_t call)
{
	return 1000 * (int64_t)(id + 1) + (int64_t)call;
}

/* One region on rank 0, N_CALLS calls, every metric column recorded. */
static void build_all_columns(struct sb_profile *p)
{
	struct sb_event e;
	unsigned id;
	size_t i;

	fx_call_tree(p, NULL, 0, SB_COL_THREAD);
	assert_int_equal(sb_profile_add_region(p, "work", "w.c", 3, "[]"), 0);
	for (id = 0; id < SB_N_METRICS; id++)
		p->columns |= SB_COL_METRIC(id);
	for (i = 0; i < N_CALLS; i++) {
		sb_event_blank(&e);
		e.start = 100 * (int64_t)i;
		e.end = e.start + 50;
		e.thread = 0;
		fx_add_call(p, 0, 0, &e);
	}
	assert_int_equal(sb_profile_alloc_counters(p), 0);
	for (i = 0; i < N_CALLS; i++)
		for (id = 0; id < SB_N_METRICS; id++)
			sb_event_set_metric(p, i, id, value_of(id, i));
}

static void expect_values(const struct sb_profile *p)
{
	unsigned id;
	size_t i;

	assert_int_equal(p->n_events, N_CALLS);
	for (id = 0; id < SB_N_METRICS; id++) {
		assert_true(p->columns & SB_COL_METRIC(id));
		for (i = 0; i < N_CALLS; i++)
			assert_int_equal(sb_event_metric(p, &p->events[i], id), value_of(id, i));
	}
}

static void test_registry_bits_names_and_blank_event(void **state)
{
	unsigned id, k, other, seen = 0;
	struct sb_profile p;
	struct sb_event e;

	(void)state;
	sb_profile_init(&p);
	assert_int_equal(SB_COL_GPU, SB_COL_METRIC(SB_METRIC_GPU));
	assert_int_equal(SB_COL_OFFCPU, SB_COL_METRIC(SB_METRIC_OFFCPU));
	sb_event_blank(&e);
	assert_int_equal(e.thread, -1);
	assert_int_equal(e.parent_id, -1);
	for (id = 0; id < SB_N_METRICS; id++) {
		assert_int_equal(SB_COL_METRIC(id) & (SB_COL_THREAD | SB_COL_CALL_ID |
						      SB_COL_PARENT_ID | SB_COL_TIMES), 0);
		/* A profile without the column: its missing value, counters included. */
		assert_int_equal(sb_event_metric(&p, &e, id), sb_column(id)->missing);
		assert_non_null(sb_column(id)->unit);
		for (other = 0; other < id; other++) {
			assert_string_not_equal(sb_column(id)->name, sb_column(other)->name);
			assert_string_not_equal(sb_column(id)->json_name,
						sb_column(other)->json_name);
			assert_string_not_equal(sb_column(id)->short_name,
						sb_column(other)->short_name);
		}
		/* The export order lists every column once. */
		k = sb_column_export_id(id);
		assert_true(k < SB_N_METRICS);
		assert_int_equal(seen & 1u << k, 0);
		seen |= 1u << k;
	}
}

/*
 * An event row is what it was before counters: counter values live out of
 * line, so profiles without counters pay nothing for them (COUNTERS.md).
 */
static void test_event_rows_keep_their_size_without_counters(void **state)
{
	const char *path = tmp_path("plain.h5");
	struct sb_error err = { .msg = "" };
	struct sb_profile p, q;
	struct sb_event e;

	(void)state;
	assert_int_equal(sizeof(struct sb_event), 7 * sizeof(int64_t));
	fx_call_tree(&p, NULL, 0, SB_COL_THREAD | SB_COL_OFFCPU);
	assert_int_equal(sb_profile_add_region(&p, "work", "w.c", 3, "[]"), 0);
	sb_event_blank(&e);
	e.end = 5;
	e.thread = 0;
	e.metric[SB_METRIC_OFFCPU] = 2;
	fx_add_call(&p, 0, 0, &e);
	assert_int_equal(fx_write_h5(path, &p, &err), 0);
	assert_int_equal(sb_h5_read(path, &q, &err), 0);
	assert_int_equal(q.n_events, 1);
	assert_null(q.counters);
	assert_int_equal(sb_profile_counter_slots(&q), 0);
	assert_int_equal(sb_event_metric(&q, &q.events[0], SB_METRIC_OFFCPU), 2);
	assert_int_equal(sb_event_metric(&q, &q.events[0], SB_METRIC_COUNTER), -1);
	sb_profile_free(&q);
	sb_profile_free(&p);
}

/* Two of the eight slots: each event's counter row holds four values, in that order. */
static void test_counter_rows_hold_only_the_recorded_slots(void **state)
{
	struct sb_profile p;
	struct sb_event e;
	size_t i;

	(void)state;
	fx_call_tree(&p, NULL, 0, SB_COL_THREAD);
	assert_int_equal(sb_profile_add_region(&p, "work", "w.c", 3, "[]"), 0);
	p.columns |= SB_COL_METRIC(SB_METRIC_COUNTER) | SB_COL_METRIC(SB_METRIC_COUNTER + 1) |
		     SB_COL_METRIC(SB_METRIC_COUNTER_EXCL) |
		     SB_COL_METRIC(SB_METRIC_COUNTER_EXCL + 1);
	for (i = 0; i < 2; i++) {
		sb_event_blank(&e);
		e.start = 10 * (int64_t)i;
		e.end = e.start + 5;
		e.thread = 0;
		fx_add_call(&p, 0, 0, &e);
	}
	assert_int_equal(sb_profile_counter_slots(&p), 2);
	assert_int_equal(sb_profile_alloc_counters(&p), 0);
	assert_int_equal(sb_event_metric(&p, &p.events[1], SB_METRIC_COUNTER + 1), -1);
	sb_event_set_metric(&p, 1, SB_METRIC_COUNTER + 1, 11);
	sb_event_set_metric(&p, 1, SB_METRIC_COUNTER_EXCL, 12);
	sb_event_set_metric(&p, 1, SB_METRIC_COUNTER + 2, 99);	/* not recorded: ignored */
	assert_int_equal(p.counters[4 + 1], 11);
	assert_int_equal(p.counters[4 + 2], 12);
	assert_int_equal(sb_event_metric(&p, &p.events[1], SB_METRIC_COUNTER_EXCL), 12);
	assert_int_equal(sb_event_metric(&p, &p.events[1], SB_METRIC_COUNTER + 2), -1);
	assert_int_equal(sb_event_metric(&p, &p.events[0], SB_METRIC_COUNTER + 1), -1);
	sb_profile_free(&p);
}

static void test_every_column_reaches_the_file_and_comes_back(void **state)
{
	const char *path = tmp_path("all.h5");
	struct sb_h5_event_column cols[SB_H5_MAX_EVENT_COLUMNS];
	struct sb_error err = { .msg = "" };
	struct sb_profile p, q;
	char name[96];
	unsigned id;
	hid_t f;
	int n;

	(void)state;
	build_all_columns(&p);
	assert_int_equal(fx_write_h5(path, &p, &err), 0);
	/* In file order after the id columns, under the registered names. */
	n = sb_h5_event_columns(cols);
	assert_int_equal(n, SB_H5_N_ID_COLUMNS + SB_N_METRICS);
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	assert_true(f >= 0);
	for (id = 0; id < SB_N_METRICS; id++) {
		assert_string_equal(cols[SB_H5_N_ID_COLUMNS + id].name, sb_column(id)->name);
		snprintf(name, sizeof(name), "/events/%s", sb_column(id)->name);
		assert_true(H5Lexists(f, name, H5P_DEFAULT) > 0);
	}
	H5Fclose(f);
	assert_int_equal(sb_h5_read(path, &q, &err), 0);
	expect_values(&q);
	sb_profile_free(&q);
	sb_profile_free(&p);
}

static void test_every_column_survives_json_and_names_a_csv_field(void **state)
{
	const char *path = tmp_path("all.json");
	struct sb_error err = { .msg = "" };
	struct sb_profile p, q;
	char *csv = NULL, *line, field[64];
	size_t len = 0;
	unsigned id;
	FILE *f;

	(void)state;
	build_all_columns(&p);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(sb_export_json_v1(f, &p, &err), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(sb_json_read(path, &q, &err), 0);
	expect_values(&q);
	sb_profile_free(&q);
	f = open_memstream(&csv, &len);
	assert_int_equal(sb_export_csv(f, &p, &err), 0);
	assert_int_equal(fclose(f), 0);
	line = strtok(csv, "\n");
	for (id = 0; id < SB_N_METRICS; id++) {
		snprintf(field, sizeof(field), ",%s,", sb_column(id)->short_name);
		expect_has(line, field);
	}
	free(csv);
	sb_profile_free(&p);
}

static void test_kernel_measured_columns_reach_events_through_the_spill(void **state)
{
	struct sb_site_event site = { .type = SB_EV_SITE, .tgid = 7, .site = 0x10, .line = 1 };
	struct sb_call_event call = { .type = SB_EV_CALL, .tgid = 7, .tid = 7, .parent_id = -1,
				      .name_hash = sb_name_hash("r") };
	struct sb_collect_stream s;
	struct sb_event rows[3];
	struct sb_collector c;
	int i;

	(void)state;
	assert_int_equal(sb_collector_init(&c, "/tmp", 1 << 20), 0);
	strcpy(site.name, "r");
	assert_int_equal(sb_collector_record(&c, &site, sizeof(site)), 0);
	for (i = 2; i >= 0; i--) {
		call.start = 10 * (uint64_t)i;
		call.end = call.start + 5;
		call.call_id = i;
		call.offcpu_ns = 3 + (uint64_t)i;
		assert_int_equal(sb_collector_record(&c, &call, sizeof(call)), 0);
	}
	assert_int_equal(sb_collector_finish(&c), 0);
	assert_int_equal(c.prof.columns & (SB_COL_GPU | SB_COL_OFFCPU), SB_COL_OFFCPU);
	sb_collector_stream(&c, &s);
	assert_int_equal(s.base.read(&s.base, rows, NULL, 3), 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(rows[i].start, 10 * i);
		assert_int_equal(rows[i].metric[SB_METRIC_OFFCPU], 3 + i);
		assert_int_equal(rows[i].metric[SB_METRIC_GPU], sb_column(SB_METRIC_GPU)->missing);
	}
	sb_collector_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry_bits_names_and_blank_event),
		cmocka_unit_test(test_event_rows_keep_their_size_without_counters),
		cmocka_unit_test(test_counter_rows_hold_only_the_recorded_slots),
		cmocka_unit_test(test_every_column_reaches_the_file_and_comes_back),
		cmocka_unit_test(test_every_column_survives_json_and_names_a_csv_field),
		cmocka_unit_test(test_kernel_measured_columns_reach_events_through_the_spill),
	};

	return cmocka_run_group_tests_name("columns", tests, tmp_setup, tmp_teardown);
}
