/* Unit tests of the collector: synthetic ring-buffer records in, a profile and its event stream out. */
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

#include "collect.h"
#include "region.h"

static void site(struct sb_collector *c, uint32_t tgid, uint64_t addr, const char *name,
		 const char *tags)
{
	struct sb_site_event e = { .type = SB_EV_SITE, .tgid = tgid, .site = addr, .line = 7 };

	snprintf(e.name, sizeof(e.name), "%s", name);
	snprintf(e.file, sizeof(e.file), "app.c");
	snprintf(e.tags, sizeof(e.tags), "%s", tags);
	assert_int_equal(sb_collector_record(c, &e, sizeof(e)), 0);
}

static void call(struct sb_collector *c, uint32_t tgid, uint32_t tid, uint64_t addr,
		 uint64_t start, uint64_t end, int64_t id, int64_t parent, uint64_t child_ns)
{
	struct sb_call_event e = { .type = SB_EV_CALL, .tgid = tgid, .tid = tid, .site = addr,
				   .start = start, .end = end, .call_id = id, .parent_id = parent,
				   .child_ns = child_ns, .offcpu_ns = 1 };

	assert_int_equal(sb_collector_record(c, &e, sizeof(e)), 0);
}

static void drain(struct sb_collector *c, struct sb_event *rows, size_t max, size_t expect)
{
	struct sb_collect_stream s;
	size_t n = 0;
	ssize_t got;

	sb_collector_stream(c, &s);
	while ((got = s.base.read(&s.base, rows + n, max - n)) > 0)
		n += (size_t)got;
	assert_int_equal(got, 0);
	assert_int_equal(n, expect);
}

static void test_pairs_stats_exclusive_and_order(void **state)
{
	struct sb_collector c;
	struct sb_event rows[8];
	const struct sb_pair *outer, *inner;

	(void)state;
	assert_int_equal(sb_collector_init(&c, "/tmp", 1 << 20), 0);
	assert_int_equal(sb_collector_add_process(&c, 100, 1, 0), 0);
	site(&c, 100, 0x1000, "outer", "io, mpi");
	site(&c, 100, 0x2000, "inner", "");
	site(&c, 100, 0x3000, "never-completed", "");
	/* Children end before their parent: records arrive in end order. */
	call(&c, 100, 100, 0x2000, 30, 40, 2, 0, 0);
	call(&c, 100, 100, 0x2000, 12, 20, 1, 0, 0);
	call(&c, 100, 100, 0x1000, 10, 50, 0, -1, 18);
	assert_int_equal(sb_collector_finish(&c), 0);

	assert_int_equal(c.prof.n_regions, 2);
	assert_int_equal(c.prof.n_pairs, 2);
	inner = &c.prof.pairs[0];
	outer = &c.prof.pairs[1];
	assert_string_equal(c.prof.regions[outer->region].name, "outer");
	assert_string_equal(c.prof.regions[outer->region].tags, "[\"io\",\"mpi\"]");
	assert_int_equal(c.prof.regions[outer->region].source_line, 7);
	assert_int_equal(inner->count, 2);
	assert_int_equal(inner->offset, 0);
	assert_int_equal(outer->offset, 2);
	assert_int_equal(outer->exclusive_total, 40 - 18);
	assert_int_equal(inner->stats.total, 18);
	assert_int_equal(inner->stats.first, 8);	/* the call starting at 12 */
	assert_int_equal(inner->stats.last, 10);

	drain(&c, rows, 8, 3);
	assert_int_equal(rows[0].start, 12);
	assert_int_equal(rows[1].start, 30);
	assert_int_equal(rows[0].parent_id, 0);
	assert_int_equal(rows[2].parent_id, -1);
	assert_int_equal(rows[2].call_id, 0);
	assert_int_equal(rows[0].thread, 0);
	assert_int_equal(c.prof.n_threads, 1);
	assert_int_equal(c.prof.threads[0].tid, 100);
	sb_collector_free(&c);
}

static void test_parent_never_completed_becomes_top_level(void **state)
{
	struct sb_collector c;
	struct sb_event rows[2];

	(void)state;
	assert_int_equal(sb_collector_init(&c, "/tmp", 1 << 20), 0);
	site(&c, 5, 0x10, "child", "");
	/* Its parent (call 0) was still open when recording stopped. */
	call(&c, 5, 5, 0x10, 100, 200, 1, 0, 0);
	assert_int_equal(sb_collector_finish(&c), 0);
	drain(&c, rows, 2, 1);
	assert_int_equal(rows[0].parent_id, -1);
	sb_collector_free(&c);
}

static void test_processes_become_ranks_in_order_of_first_call(void **state)
{
	struct sb_collector c;
	struct sb_proc_event fork = { .type = SB_EV_PROC_FORK, .tgid = 8, .ppid = 7, .time = 1 };
	struct sb_proc_event exit = { .type = SB_EV_PROC_EXIT, .tgid = 8, .time = 99, .exit_code = 9 };

	(void)state;
	assert_int_equal(sb_collector_init(&c, "/tmp", 1 << 20), 0);
	assert_int_equal(sb_collector_add_process(&c, 7, 1, 0), 0);
	assert_int_equal(sb_collector_record(&c, &fork, sizeof(fork)), 0);
	site(&c, 8, 0x10, "work", "");
	site(&c, 7, 0x10, "work", "");
	call(&c, 8, 8, 0x10, 10, 20, 0, -1, 0);
	call(&c, 7, 7, 0x10, 5, 30, 0, -1, 0);
	assert_int_equal(sb_collector_record(&c, &exit, sizeof(exit)), 0);
	assert_int_equal(sb_collector_finish(&c), 0);
	assert_int_equal(c.n_ranks, 2);
	assert_int_equal(c.prof.n_regions, 1);
	assert_int_equal(c.prof.pairs[0].rank, 0);
	assert_int_equal(c.prof.processes[1].pid, 8);
	assert_int_equal(c.prof.processes[1].rank, 0);
	assert_int_equal(c.prof.processes[1].exit_code, 9);
	assert_int_equal(c.prof.processes[1].end_ns, 99);
	assert_int_equal(c.prof.processes[0].rank, 1);
	sb_collector_free(&c);
}

static void test_hostile_records_are_ignored(void **state)
{
	struct sb_collector c;
	struct sb_site_event s = { .type = SB_EV_SITE, .tgid = 1, .site = 0x10 };
	char junk[3] = { 1, 2, 3 };

	(void)state;
	assert_int_equal(sb_collector_init(&c, "/tmp", 1 << 20), 0);
	/* No NUL anywhere, invalid UTF-8: must be bounded and sanitized. */
	memset(s.name, 0xff, sizeof(s.name));
	memset(s.file, 'f', sizeof(s.file));
	memset(s.tags, ',', sizeof(s.tags));
	assert_int_equal(sb_collector_record(&c, &s, sizeof(s)), 0);
	assert_int_equal(sb_collector_record(&c, junk, sizeof(junk)), 0);
	assert_int_equal(sb_collector_record(&c, &s, 8), 0);
	/* A call from an unknown site, one ending before it starts. */
	call(&c, 1, 1, 0x999, 1, 2, 0, -1, 0);
	call(&c, 1, 1, 0x10, 50, 40, 1, -1, 0);
	assert_int_equal(c.calls, 0);
	assert_int_equal(c.dropped_calls, 2);
	assert_int_equal(c.prof.n_regions, 1);
	assert_int_equal(strlen(c.prof.regions[0].name), SB_NAME_MAX - 1);
	assert_int_equal(c.prof.regions[0].name[0], '?');
	assert_string_equal(c.prof.regions[0].tags, "[]");
	sb_collector_free(&c);
}

static void test_exec_starts_a_new_site_generation(void **state)
{
	struct sb_proc_event exec = { .type = SB_EV_SYNC, .tgid = 3, .reason = SB_SYNC_EXEC };
	struct sb_collector c;

	(void)state;
	assert_int_equal(sb_collector_init(&c, "/tmp", 1 << 20), 0);
	site(&c, 3, 0x10, "before", "");
	call(&c, 3, 3, 0x10, 1, 2, 0, -1, 0);
	assert_int_equal(sb_collector_record(&c, &exec, sizeof(exec)), 0);
	/* Same address, new image: a call before its site record is not the old region. */
	call(&c, 3, 3, 0x10, 3, 4, 1, -1, 0);
	site(&c, 3, 0x10, "after", "");
	call(&c, 3, 3, 0x10, 5, 6, 2, -1, 0);
	assert_int_equal(sb_collector_finish(&c), 0);
	assert_int_equal(c.prof.n_pairs, 2);
	assert_int_equal(c.prof.pairs[0].count, 1);
	assert_int_equal(c.prof.pairs[1].count, 1);
	assert_string_equal(c.prof.regions[c.prof.pairs[1].region].name, "after");
	sb_collector_free(&c);
}

static void count_sync(void *ctx, pid_t pid, int reason)
{
	(void)pid;
	(void)reason;
	(*(int *)ctx)++;
}

/*
 * The spill's folder is unusable (a full disk, here a missing one): once the
 * buffer is full each further call is refused at once and counted as dropped,
 * the index holds only the calls kept, and processes stopped for a sync are
 * still handed on, so the target is never left stopped.
 */
static void test_refused_calls_are_dropped_and_syncs_still_served(void **state)
{
	struct sb_proc_event sync = { .type = SB_EV_SYNC, .tgid = 4, .reason = SB_SYNC_DLOPEN };
	struct sb_call_event e = { .type = SB_EV_CALL, .tgid = 4, .tid = 4, .site = 0x10 };
	size_t cap = (64 << 10) / 2 / sizeof(struct sb_spill_rec);
	struct sb_collector c;
	int syncs = 0;

	(void)state;
	assert_int_equal(sb_collector_init(&c, "/nonexistent/scope-bpf", 64 << 10), 0);
	c.on_sync = count_sync;
	c.sync_ctx = &syncs;
	site(&c, 4, 0x10, "r", "");
	for (size_t i = 0; i < cap; i++)
		call(&c, 4, 4, 0x10, 10 * i, 10 * i + 5, (int64_t)i, -1, 0);
	for (int i = 0; i < 3; i++) {
		e.start = 1000000 + i;
		e.end = e.start + 1;
		e.call_id = (int64_t)cap + i;
		e.parent_id = -1;
		assert_int_equal(sb_collector_record(&c, &e, sizeof(e)), -ENOENT);
	}
	/* A region and a process whose first call is refused leave no pair or rank behind. */
	site(&c, 4, 0x20, "other", "");
	e.site = 0x20;
	assert_int_equal(sb_collector_record(&c, &e, sizeof(e)), -ENOENT);
	site(&c, 5, 0x20, "other", "");
	e.tgid = 5;
	assert_int_equal(sb_collector_record(&c, &e, sizeof(e)), -ENOENT);
	assert_int_equal(sb_collector_record(&c, &sync, sizeof(sync)), 0);
	assert_int_equal(syncs, 1);
	assert_int_equal(c.calls, cap);
	assert_int_equal(c.dropped_calls, 5);
	assert_int_equal(sb_collector_finish(&c), 0);
	assert_int_equal(c.n_ranks, 1);
	assert_int_equal(c.prof.n_pairs, 1);
	assert_int_equal(c.prof.n_regions, 1);
	assert_int_equal(c.prof.n_events, cap);
	assert_int_equal(c.prof.pairs[0].count, cap);
	assert_int_equal(c.prof.pairs[0].stats.end_maximum, 10 * (cap - 1) + 5);
	sb_collector_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairs_stats_exclusive_and_order),
		cmocka_unit_test(test_parent_never_completed_becomes_top_level),
		cmocka_unit_test(test_processes_become_ranks_in_order_of_first_call),
		cmocka_unit_test(test_hostile_records_are_ignored),
		cmocka_unit_test(test_exec_starts_a_new_site_generation),
		cmocka_unit_test(test_refused_calls_are_dropped_and_syncs_still_served),
	};

	return cmocka_run_group_tests_name("collect", tests, NULL, NULL);
}
