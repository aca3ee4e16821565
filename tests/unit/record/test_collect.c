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
#include <unistd.h>

#include "record/collect.h"
#include "record/span_claim.h"
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

/* A completed call of the region the kernel read as name (it sends the name's hash). */
static void call(struct sb_collector *c, uint32_t tgid, uint32_t tid, const char *name,
		 uint64_t start, uint64_t end, int64_t id, int64_t parent, uint64_t child_ns)
{
	struct sb_call_event e = { .type = SB_EV_CALL, .tgid = tgid, .tid = tid, .site = 0x10,
				   .start = start, .end = end, .call_id = id, .parent_id = parent,
				   .child_ns = child_ns, .offcpu_ns = 1,
				   .name_hash = sb_name_hash(name) };

	assert_int_equal(sb_collector_record(c, &e, sizeof(e)), 0);
}

static void drain(struct sb_collector *c, struct sb_event *rows, size_t max, size_t expect)
{
	struct sb_collect_stream s;
	size_t n = 0;
	ssize_t got;

	sb_collector_stream(c, &s);
	while ((got = s.base.read(&s.base, rows + n, NULL, max - n)) > 0)
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
	call(&c, 100, 100, "inner", 30, 40, 2, 0, 0);
	call(&c, 100, 100, "inner", 12, 20, 1, 0, 0);
	call(&c, 100, 100, "outer", 10, 50, 0, -1, 18);
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
	call(&c, 5, 5, "child", 100, 200, 1, 0, 0);
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
	call(&c, 8, 8, "work", 10, 20, 0, -1, 0);
	call(&c, 7, 7, "work", 5, 30, 0, -1, 0);
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
	/* A call of a name no site record announced, one ending before it starts. */
	site(&c, 1, 0x20, "fine", "");
	call(&c, 1, 1, "unannounced", 1, 2, 0, -1, 0);
	call(&c, 1, 1, "fine", 50, 40, 1, -1, 0);
	assert_int_equal(c.calls, 0);
	assert_int_equal(c.dropped_calls, 2);
	assert_int_equal(c.prof.n_regions, 2);
	assert_int_equal(strlen(c.prof.regions[0].name), SB_NAME_MAX - 1);
	assert_int_equal(c.prof.regions[0].name[0], '?');
	assert_string_equal(c.prof.regions[0].tags, "[]");
	sb_collector_free(&c);
}

static void sync_record(struct sb_collector *c, uint32_t tgid, uint32_t reason)
{
	struct sb_proc_event e = { .type = SB_EV_SYNC, .tgid = tgid, .reason = reason };

	assert_int_equal(sb_collector_record(c, &e, sizeof(e)), 0);
}

static void test_calls_are_named_by_name_hash_not_address(void **state)
{
	struct sb_collector c;

	(void)state;
	assert_int_equal(sb_collector_init(&c, "/tmp", 1 << 20), 0);
	site(&c, 3, 0x10, "plugin_a", "");
	call(&c, 3, 3, "plugin_a", 1, 2, 0, -1, 0);
	sync_record(&c, 3, SB_SYNC_DLOPEN);
	/* Another object at the same address, then a call of the old one still in flight. */
	site(&c, 3, 0x10, "plugin_b", "");
	call(&c, 3, 3, "plugin_a", 3, 4, 1, -1, 0);
	call(&c, 3, 3, "plugin_b", 5, 6, 2, -1, 0);
	sync_record(&c, 3, SB_SYNC_EXEC);
	site(&c, 3, 0x10, "after_exec", "");
	call(&c, 3, 3, "after_exec", 7, 8, 0, -1, 0);
	assert_int_equal(sb_collector_finish(&c), 0);
	assert_int_equal(c.prof.n_pairs, 3);
	assert_string_equal(c.prof.regions[c.prof.pairs[0].region].name, "plugin_a");
	assert_int_equal(c.prof.pairs[0].count, 2);
	assert_string_equal(c.prof.regions[c.prof.pairs[1].region].name, "plugin_b");
	assert_int_equal(c.prof.pairs[1].count, 1);
	assert_string_equal(c.prof.regions[c.prof.pairs[2].region].name, "after_exec");
	assert_int_equal(c.dropped_calls, 0);
	sb_collector_free(&c);
}

/*
 * A site the kernel could not read: its calls carry a stand-in hash until the
 * recorder names it, and land in the region of that name with the later calls.
 */
static void test_stand_in_hashes_join_their_region(void **state)
{
	struct sb_call_event e = { .type = SB_EV_CALL, .tgid = 3, .tid = 3, .site = 0x20,
				   .start = 1, .end = 2, .call_id = 0, .parent_id = -1,
				   .name_hash = 0x5eed };
	struct sb_collector c;
	char name[] = "cold", file[] = "lib.c";

	(void)state;
	assert_int_equal(sb_collector_init(&c, "/tmp", 1 << 20), 0);
	assert_int_equal(sb_collector_alias(&c, 0x5eed, sb_name_hash("cold")), -ENOENT);
	assert_int_equal(sb_collector_add_region(&c, sb_name_hash(name), name, file, 3, ""), 0);
	assert_int_equal(sb_collector_alias(&c, 0x5eed, sb_name_hash("cold")), 0);
	assert_int_equal(sb_collector_record(&c, &e, sizeof(e)), 0);
	call(&c, 3, 3, "cold", 3, 5, 1, -1, 0);
	assert_int_equal(sb_collector_finish(&c), 0);
	assert_int_equal(c.prof.n_pairs, 1);
	assert_string_equal(c.prof.regions[c.prof.pairs[0].region].name, "cold");
	assert_int_equal(c.prof.pairs[0].count, 2);
	assert_int_equal(c.dropped_calls, 0);
	sb_collector_free(&c);
}

static void thread_exit(struct sb_collector *c, uint32_t tgid, uint32_t tid, uint64_t cpu_ns)
{
	struct sb_thread_event e = { .type = SB_EV_THREAD_EXIT, .tgid = tgid, .tid = tid,
				     .time = 500, .first_ns = 10, .cpu_ns = cpu_ns };

	snprintf(e.comm, sizeof(e.comm), "worker");
	assert_int_equal(sb_collector_record(c, &e, sizeof(e)), 0);
}

static void test_exited_thread_is_not_overwritten_by_a_live_read(void **state)
{
	struct sb_collector c;

	(void)state;
	assert_int_equal(sb_collector_init(&c, "/tmp", 1 << 20), 0);
	site(&c, 9, 0x10, "busy", "");
	call(&c, 9, 10, "busy", 20, 400, 0, -1, 0);
	call(&c, 9, 11, "busy", 20, 400, 1, -1, 0);
	thread_exit(&c, 9, 10, 30000000);
	/* A stale entry of the exited thread, and a thread still running. */
	assert_int_equal(sb_collector_thread_alive(&c, 9, 10, NULL, 10, 0), 0);
	assert_int_equal(sb_collector_thread_alive(&c, 9, 11, NULL, 10, 7000), 1);
	assert_int_equal(sb_collector_finish(&c), 0);
	assert_int_equal(c.prof.n_threads, 2);
	assert_int_equal(c.prof.threads[sb_collector_thread_row(&c, 9, 10)].cpu_ns, 30000000);
	assert_int_equal(c.prof.threads[sb_collector_thread_row(&c, 9, 10)].end_ns, 500);
	assert_string_equal(c.prof.threads[sb_collector_thread_row(&c, 9, 10)].name, "worker");
	assert_int_equal(c.prof.threads[sb_collector_thread_row(&c, 9, 11)].cpu_ns, 7000);
	assert_int_equal(c.prof.threads[sb_collector_thread_row(&c, 9, 11)].end_ns, -1);
	sb_collector_free(&c);
}

static void unmatched(struct sb_collector *c, uint32_t tid, const char *name)
{
	struct sb_unmatched_event e = { .type = SB_EV_UNMATCHED, .tgid = 4, .tid = tid,
					.site = 0x10, .name_hash = sb_name_hash(name) };

	assert_int_equal(sb_collector_record(c, &e, sizeof(e)), 0);
}

static const char *meta_str(const struct sb_profile *p, const char *key)
{
	const struct sb_meta *m = sb_profile_meta(p, key);

	assert_non_null(m);
	assert_false(m->is_int);
	return m->s;
}

/* pid_max wraps: a thread that exits leaves its tid to a later thread of the same process. */
/*
 * A thread the kernel's map still holds at the end whose /proc entry is gone
 * (its exit record never came) takes the name the kernel side saw last; a
 * 16-byte name without its NUL is cut, never read past.
 */
static void test_a_vanished_live_thread_keeps_the_kernels_name(void **state)
{
	const char full[16] = { 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h',
				'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p' };
	struct sb_collector c;

	(void)state;
	assert_int_equal(sb_collector_init(&c, "/tmp", 1 << 20), 0);
	site(&c, 9, 0x10, "busy", "");
	call(&c, 9, 11, "busy", 20, 400, 0, -1, 0);
	call(&c, 9, 12, "busy", 20, 400, 1, -1, 0);
	assert_int_equal(sb_collector_thread_alive(&c, 9, 11, "worker-0", 10, 7000), 1);
	assert_int_equal(sb_collector_thread_alive(&c, 9, 12, full, 10, 7000), 1);
	assert_int_equal(sb_collector_finish(&c), 0);
	assert_string_equal(c.prof.threads[sb_collector_thread_row(&c, 9, 11)].name, "worker-0");
	assert_string_equal(c.prof.threads[sb_collector_thread_row(&c, 9, 12)].name,
			    "abcdefghijklmno");
	sb_collector_free(&c);
}

static void test_a_reused_tid_is_another_thread(void **state)
{
	struct sb_event rows[4];
	struct sb_collector c;

	(void)state;
	assert_int_equal(sb_collector_init(&c, "/tmp", 1 << 20), 0);
	site(&c, 9, 0x10, "busy", "");
	call(&c, 9, 10, "busy", 20, 400, 0, -1, 0);
	thread_exit(&c, 9, 10, 300);
	call(&c, 9, 10, "busy", 600, 900, 1, -1, 0);
	assert_int_equal(sb_collector_thread_alive(&c, 9, 10, NULL, 550, 7000), 1);
	assert_int_equal(sb_collector_finish(&c), 0);
	assert_int_equal(c.prof.n_threads, 2);
	drain(&c, rows, 4, 2);
	assert_int_not_equal(rows[0].thread, rows[1].thread);
	assert_int_equal(c.prof.threads[rows[0].thread].cpu_ns, 300);
	assert_int_equal(c.prof.threads[rows[0].thread].end_ns, 500);
	assert_int_equal(c.prof.threads[rows[1].thread].cpu_ns, 7000);
	assert_int_equal(c.prof.threads[rows[1].thread].end_ns, -1);
	sb_collector_free(&c);
}

static ssize_t pair_named(const struct sb_collector *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->prof.n_pairs; i++)
		if (!strcmp(c->prof.regions[c->prof.pairs[i].region].name, name))
			return (ssize_t)i;
	return -1;
}

/* One call of name on tgid/tid at [start, end) under region path `path`. */
static void call_on_path(struct sb_collector *c, uint32_t tgid, uint32_t tid, const char *name,
			 uint64_t start, int64_t id, uint64_t path)
{
	struct sb_call_event e = { .type = SB_EV_CALL, .tgid = tgid, .tid = tid, .site = 0x10,
				   .start = start, .end = start + 5, .call_id = id, .parent_id = -1,
				   .path_hash = path, .name_hash = sb_name_hash(name) };

	assert_int_equal(sb_collector_record(c, &e, sizeof(e)), 0);
}

/*
 * A loop's calls (the collector remembers where the last ones of a name,
 * process and thread went): interleaved names, processes and threads each
 * keep their own pair and thread, and a path that changes is registered.
 */
static void test_interleaved_loops_keep_their_pairs_threads_and_paths(void **state)
{
	static const char *names[] = { "a", "b", "c" };
	struct sb_collector c;
	uint64_t count[2][3] = { { 0 } };
	size_t i, p, n;
	int64_t id = 0;
	int k;

	(void)state;
	assert_int_equal(sb_collector_init(&c, "/tmp", 1 << 20), 0);
	for (p = 0; p < 2; p++)
		for (k = 0; k < 3; k++)
			site(&c, (uint32_t)(100 + p), 0x10 + 8 * (uint64_t)k, names[k], "");
	for (i = 0; i < 3000; i++) {
		p = i % 2;
		k = (int)(i / 2 % 3);
		call_on_path(&c, (uint32_t)(100 + p), (uint32_t)(200 + p * 10 + i % 4), names[k],
			     10 * i, id++, 0x1000 + (uint64_t)k + (i >= 1500 ? 0x100 : 0));
	}
	for (k = 0; k < 3; k++) {
		assert_true(sb_collector_path_id(&c, 0x1000 + (uint64_t)k) >= 0);
		assert_true(sb_collector_path_id(&c, 0x1100 + (uint64_t)k) >= 0);
	}
	assert_int_equal(sb_collector_finish(&c), 0);
	assert_int_equal(c.prof.n_pairs, 6);
	assert_int_equal(c.prof.n_threads, 4);
	for (i = 0; i < c.prof.n_pairs; i++) {
		n = c.prof.pairs[i].count;
		for (k = 0; k < 3; k++)
			if (!strcmp(c.prof.regions[c.prof.pairs[i].region].name, names[k]))
				count[c.prof.pairs[i].rank][k] += n;
	}
	for (p = 0; p < 2; p++)
		for (k = 0; k < 3; k++)
			assert_int_equal(count[p][k], 500);
	sb_collector_free(&c);
}

/* GPU work goes to the innermost call open on the launching thread; its pair gets 0 elsewhere. */
static void test_gpu_time_goes_to_the_innermost_launching_call(void **state)
{
	struct sb_gpu_launch l[] = {
		{ .tgid = 4, .tid = 10, .time = 300, .gpu_ns = 50 },	/* inner, call 1 */
		{ .tgid = 4, .tid = 10, .time = 200, .gpu_ns = 20 },	/* inner's first ns */
		{ .tgid = 4, .tid = 10, .time = 800, .gpu_ns = 7 },	/* outer, between */
		{ .tgid = 4, .tid = 10, .time = 2000, .gpu_ns = 9 },	/* outside every call */
		{ .tgid = 4, .tid = 11, .time = 300, .gpu_ns = 5 },	/* its thread made no call */
		{ .tgid = 4, .tid = 12, .time = 650, .gpu_ns = 3 },	/* other: a thread of its own */
	};
	struct sb_collector c;
	struct sb_event rows[8];
	ssize_t inner, outer, other;

	(void)state;
	assert_int_equal(sb_collector_init(&c, "/tmp", 1 << 20), 0);
	site(&c, 4, 0x10, "outer", "");
	site(&c, 4, 0x20, "inner", "");
	site(&c, 4, 0x30, "other", "");
	call(&c, 4, 10, "inner", 200, 500, 1, 0, 0);
	call(&c, 4, 10, "inner", 600, 700, 2, 0, 0);
	call(&c, 4, 10, "outer", 100, 1000, 0, -1, 400);
	call(&c, 4, 12, "other", 600, 700, 3, -1, 0);
	call(&c, 4, 10, "other", 1100, 1200, 4, -1, 0);
	assert_int_equal(sb_collector_finish(&c), 0);
	assert_int_equal(sb_collector_attribute_gpu(&c, l, 6), 0);
	inner = pair_named(&c, "inner");
	outer = pair_named(&c, "outer");
	other = pair_named(&c, "other");
	assert_int_equal(l[0].pair, inner);
	assert_int_equal(l[0].call_id, 1);
	assert_int_equal(l[1].call_id, 1);
	assert_int_equal(l[2].pair, outer);
	assert_int_equal(l[3].pair, -1);
	assert_int_equal(l[4].pair, -1);
	assert_int_equal(l[4].thread_row, -1);
	assert_int_equal(l[5].pair, other);
	assert_int_equal(l[5].call_id, 3);
	assert_int_equal(c.prof.pairs[inner].stats.gpu_count, 2);
	assert_int_equal(c.prof.pairs[inner].stats.gpu_total, 70);
	assert_int_equal(c.prof.pairs[outer].stats.gpu_total, 7);
	assert_int_equal(c.prof.pairs[other].stats.gpu_count, 2);
	assert_true(c.prof.columns & SB_COL_METRIC(SB_METRIC_GPU));
	drain(&c, rows, 8, 5);
	/* File order: pairs in order of first call (inner, outer, other), each by start. */
	assert_int_equal(rows[0].metric[SB_METRIC_GPU], 70);
	assert_int_equal(rows[1].metric[SB_METRIC_GPU], 0);
	assert_int_equal(rows[2].metric[SB_METRIC_GPU], 7);
	assert_int_equal(rows[3].metric[SB_METRIC_GPU], 3);
	assert_int_equal(rows[4].metric[SB_METRIC_GPU], 0);
	sb_collector_free(&c);
}

/* A call on tgid/tid at [start, end] under region path hash path. */
static void spanned(struct sb_collector *c, uint32_t tid, const char *name, uint64_t start,
		    uint64_t end, int64_t id, uint64_t path)
{
	struct sb_call_event e = { .type = SB_EV_CALL, .tgid = 4, .tid = tid, .site = 0x10,
				   .start = start, .end = end, .call_id = id, .parent_id = -1,
				   .path_hash = path, .name_hash = sb_name_hash(name) };

	assert_int_equal(sb_collector_record(c, &e, sizeof(e)), 0);
}

/*
 * A timed sample takes the path of the innermost call of its thread holding
 * its time, whichever came first; a sample no call holds gets none.
 */
static void place_samples_with_a_log_of(size_t mem)
{
	struct sb_span_point s[] = {
		{ .time = 300, .i = 0 },	/* in inner */
		{ .time = 200, .i = 1 },	/* inner's first ns */
		{ .time = 800, .i = 2 },	/* outer, between */
		{ .time = 2000, .i = 3 },	/* outside every call */
		{ .time = 650, .i = 4 },	/* other thread's call */
		{ .time = 150, .i = 5 },	/* a thread that made no call */
		{ .time = 100, .i = 6 },	/* equal starts: the later id is inner */
	};
	static const uint64_t want[] = { 0x2, 0x2, 0x1, 0, 0x3, 0, 0x5 };
	uint64_t *t10, *t12, path[7];
	struct sb_collector c;
	size_t i;

	assert_int_equal(sb_collector_init(&c, "/tmp", 1 << 20), 0);
	assert_int_equal(sb_collector_keep_call_paths(&c, "/tmp", mem), 0);
	site(&c, 4, 0x10, "outer", "");
	site(&c, 4, 0x20, "inner", "");
	site(&c, 4, 0x30, "other", "");
	/* Children end first, as they come; the sample at 100 is in both starting at 100. */
	spanned(&c, 10, "inner", 200, 500, 2, 0x2);
	spanned(&c, 10, "inner", 100, 120, 1, 0x5);
	spanned(&c, 10, "outer", 100, 1000, 0, 0x1);
	spanned(&c, 12, "other", 600, 700, 3, 0x3);
	assert_int_equal(sb_collector_finish(&c), 0);
	t10 = sb_hashmap_get(&c.thread_of, 4, 10);
	t12 = sb_hashmap_get(&c.thread_of, 4, 12);
	assert_non_null(t10);
	assert_non_null(t12);
	for (i = 0; i < 7; i++)
		s[i].thread = i == 4 ? *t12 : i == 5 ? UINT64_MAX : *t10;
	assert_int_equal(sb_collector_place_samples(&c, s, 7, path), 0);
	for (i = 0; i < 7; i++) {
		assert_int_equal(path[s[i].i], want[s[i].i]);
		assert_true((s[i].owner_id >= 0) == (want[s[i].i] != 0));
	}
	sb_collector_free(&c);
}

static void test_samples_are_placed_in_the_innermost_call_by_time(void **state)
{
	(void)state;
	place_samples_with_a_log_of(1 << 16);
}

/* The same with room for 3 spans in memory: the rest go through the log's file. */
static void test_samples_are_placed_from_the_spans_on_disk(void **state)
{
	(void)state;
	place_samples_with_a_log_of(3 * 40);
}

/* Without the calls' paths kept (no sampling asked for them) no sample is placed. */
static void test_samples_are_not_placed_without_call_paths(void **state)
{
	struct sb_span_point s = { .time = 300 };
	struct sb_collector c;
	uint64_t path = 7;

	(void)state;
	assert_int_equal(sb_collector_init(&c, "/tmp", 1 << 20), 0);
	site(&c, 4, 0x10, "outer", "");
	spanned(&c, 10, "outer", 100, 1000, 0, 0x1);
	assert_int_equal(sb_collector_finish(&c), 0);
	s.thread = *sb_hashmap_get(&c.thread_of, 4, 10);
	assert_int_equal(sb_collector_place_samples(&c, &s, 1, &path), 0);
	assert_int_equal(s.owner_id, -1);
	assert_int_equal(path, 0);
	sb_collector_free(&c);
}

/* Without launches nothing changes: every call's GPU time is missing. */
static void test_no_launches_leave_gpu_time_missing(void **state)
{
	struct sb_collector c;
	struct sb_event rows[2];

	(void)state;
	assert_int_equal(sb_collector_init(&c, "/tmp", 1 << 20), 0);
	site(&c, 4, 0x10, "outer", "");
	call(&c, 4, 10, "outer", 100, 1000, 0, -1, 0);
	assert_int_equal(sb_collector_finish(&c), 0);
	assert_int_equal(sb_collector_attribute_gpu(&c, NULL, 0), 0);
	assert_false(c.prof.columns & SB_COL_METRIC(SB_METRIC_GPU));
	drain(&c, rows, 2, 1);
	assert_int_equal(rows[0].metric[SB_METRIC_GPU], -1);
	assert_int_equal(c.prof.pairs[0].stats.gpu_count, 0);
	sb_collector_free(&c);
}

static void test_regions_open_at_start_are_counted_and_named(void **state)
{
	struct sb_collector c;
	const struct sb_meta *m;

	(void)state;
	assert_int_equal(sb_collector_init(&c, "/tmp", 1 << 20), 0);
	assert_int_equal(sb_collector_metadata(&c), 0);
	m = sb_profile_meta(&c.prof, "calls_open_at_start");
	assert_true(m && m->is_int && m->i == 0);
	assert_null(sb_profile_meta(&c.prof, "regions_open_at_start"));
	site(&c, 4, 0x10, "solve", "");
	site(&c, 4, 0x20, "main", "");
	/* Innermost first, the same region on two threads, and one of an unknown name. */
	unmatched(&c, 4, "solve");
	unmatched(&c, 5, "solve");
	unmatched(&c, 4, "main");
	unmatched(&c, 4, "never-announced");
	assert_int_equal(sb_collector_metadata(&c), 0);
	m = sb_profile_meta(&c.prof, "calls_open_at_start");
	assert_true(m && m->is_int && m->i == 4);
	assert_string_equal(meta_str(&c.prof, "regions_open_at_start"), "solve,main");
	sb_collector_free(&c);
}

static void test_regions_open_at_start_list_is_capped(void **state)
{
	char name[SB_NAME_MAX];
	struct sb_collector c;
	const char *list;
	int i;

	(void)state;
	assert_int_equal(sb_collector_init(&c, "/tmp", 1 << 20), 0);
	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "%0100d", i);
		site(&c, 4, 0x10 + (uint64_t)i, name, "");
		unmatched(&c, 4, name);
	}
	assert_int_equal(sb_collector_metadata(&c), 0);
	list = meta_str(&c.prof, "regions_open_at_start");
	assert_true(strlen(list) < 1024);
	/* Whole names only, then a mark that more were left out. */
	assert_int_equal(strlen(list), 10 * 100 + 9 + 4);
	assert_string_equal(list + strlen(list) - 4, ",...");
	sb_collector_free(&c);
}

static void count_sync(void *ctx, pid_t pid, int reason, uint32_t stop_seq)
{
	(void)pid;
	(void)reason;
	(void)stop_seq;
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
	struct sb_call_event e = { .type = SB_EV_CALL, .tgid = 4, .tid = 4, .site = 0x10,
				   .name_hash = sb_name_hash("r") };
	size_t cap = (64 << 10) / 2 / sizeof(struct sb_spill_rec);
	struct sb_collector c;
	int syncs = 0;

	(void)state;
	assert_int_equal(sb_collector_init(&c, "/nonexistent/scope-bpf", 64 << 10), 0);
	c.on_sync = count_sync;
	c.sync_ctx = &syncs;
	site(&c, 4, 0x10, "r", "");
	for (size_t i = 0; i < cap; i++)
		call(&c, 4, 4, "r", 10 * i, 10 * i + 5, (int64_t)i, -1, 0);
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
	e.name_hash = sb_name_hash("other");
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

/* A forked child that never execs runs its parent's command, even once it is gone from /proc. */
static void test_forked_child_has_its_parents_command(void **state)
{
	struct sb_proc_event fork = { .type = SB_EV_PROC_FORK, .tgid = 0x7ffffff0,
				      .ppid = (uint32_t)getpid(), .time = 5 };
	struct sb_collector c;

	(void)state;
	assert_int_equal(sb_collector_init(&c, "/tmp", 1 << 20), 0);
	assert_int_equal(sb_collector_add_process(&c, getpid(), 1, 1), 0);
	assert_true(c.prof.processes[0].command[0]);
	assert_int_equal(sb_collector_record(&c, &fork, sizeof(fork)), 0);
	assert_int_equal(c.prof.n_processes, 2);
	assert_int_equal(c.prof.processes[1].pid, 0x7ffffff0);
	assert_string_equal(c.prof.processes[1].command, c.prof.processes[0].command);
	sb_collector_free(&c);
}

/* Three processes, first calls in the order 30, 10, 20; 10 has two threads. */
static void three_processes(struct sb_collector *c)
{
	assert_int_equal(sb_collector_init(c, "/tmp", 1 << 20), 0);
	site(c, 30, 0x10, "a", "");
	site(c, 10, 0x10, "a", "");
	site(c, 20, 0x20, "b", "");
	call(c, 30, 30, "a", 5, 6, 0, -1, 0);
	call(c, 10, 11, "a", 8, 9, 1, 0, 0);
	call(c, 10, 10, "a", 7, 20, 0, -1, 0);
	call(c, 20, 20, "b", 9, 10, 0, -1, 0);
	call(c, 30, 30, "b", 11, 12, 1, -1, 0);
	assert_int_equal(sb_collector_add_process(c, 10, 1, 0), 0);
	assert_int_equal(sb_collector_add_process(c, 20, 1, 0), 0);
	assert_int_equal(sb_collector_add_process(c, 30, 1, 0), 0);
}

/* Pairs stay in order of their first call whatever the rule; only their rank labels change. */
static void expect_pairs(const struct sb_collector *c, const uint32_t *rank_of_30_10_20)
{
	static const char *const region[] = { "a", "a", "b", "b" };
	const uint32_t *r = rank_of_30_10_20;
	const uint32_t rank[] = { r[0], r[1], r[2], r[0] };
	size_t i;

	assert_int_equal(c->prof.n_pairs, 4);
	for (i = 0; i < 4; i++) {
		assert_string_equal(c->prof.regions[c->prof.pairs[i].region].name, region[i]);
		assert_int_equal(c->prof.pairs[i].rank, rank[i]);
		assert_int_equal(c->prof.pairs[i].offset, i == 0 ? 0 : i == 1 ? 1 : i + 1);
	}
}

static void test_default_rank_rule_numbers_by_first_call(void **state)
{
	static const uint32_t ranks[] = { 0, 1, 2 };
	struct sb_collector c;
	struct sb_event rows[5];

	(void)state;
	three_processes(&c);
	assert_int_equal(sb_collector_finish(&c), 0);
	assert_int_equal(c.rank_rule_error, 0);
	expect_pairs(&c, ranks);
	assert_int_equal(sb_collector_rank(&c, 30), 0);
	assert_int_equal(sb_collector_rank(&c, 10), 1);
	assert_int_equal(sb_collector_rank(&c, 20), 2);
	assert_int_equal(c.prof.processes[0].rank, 1);
	/* Thread rows rank after rank: 30, then 10's two threads by first call, then 20. */
	assert_int_equal(c.prof.n_threads, 4);
	assert_int_equal(c.prof.threads[0].tid, 30);
	assert_int_equal(c.prof.threads[1].tid, 10);
	assert_int_equal(c.prof.threads[1].rank, 1);
	assert_int_equal(c.prof.threads[2].tid, 11);
	assert_int_equal(c.prof.threads[2].index, 1);
	assert_int_equal(c.prof.threads[3].rank, 2);
	drain(&c, rows, 5, 5);
	assert_int_equal(rows[1].start, 7);
	assert_int_equal(rows[2].start, 8);
	assert_int_equal(rows[2].thread, 1);
	assert_int_equal(rows[2].parent_id, 0);
	sb_collector_free(&c);
}

static int reverse_rule(void *ctx, const uint32_t *tgids, size_t n, uint32_t *ranks)
{
	size_t i;

	*(size_t *)ctx = n;
	for (i = 0; i < n; i++)
		ranks[i] = tgids[i] / 10 - 1;
	return 0;
}

static void test_rank_rule_of_a_source_relabels_ranks_at_finish(void **state)
{
	static const uint32_t ranks[] = { 2, 0, 1 };
	struct sb_collector c;
	struct sb_event rows[5];
	size_t seen = 0;

	(void)state;
	three_processes(&c);
	c.rank_rule = reverse_rule;
	c.rank_rule_ctx = &seen;
	assert_int_equal(sb_collector_finish(&c), 0);
	assert_int_equal(seen, 3);
	assert_int_equal(c.rank_rule_error, 0);
	expect_pairs(&c, ranks);
	assert_int_equal(sb_collector_rank(&c, 10), 0);
	assert_int_equal(c.prof.processes[0].rank, 0);
	assert_int_equal(c.prof.processes[2].rank, 2);
	/* Rank 0 (process 10) now leads the thread table. */
	assert_int_equal(c.prof.threads[0].tid, 10);
	assert_int_equal(c.prof.threads[0].rank, 0);
	assert_int_equal(c.prof.threads[1].tid, 11);
	assert_int_equal(c.prof.threads[2].tid, 20);
	assert_int_equal(c.prof.threads[3].tid, 30);
	assert_int_equal(c.prof.threads[3].index, 0);
	assert_int_equal(sb_collector_thread_row(&c, 10, 11), 1);
	drain(&c, rows, 5, 5);
	assert_int_equal(rows[0].start, 5);
	assert_int_equal(rows[0].thread, 0);
	assert_int_equal(rows[2].thread, 1);
	assert_int_equal(rows[2].parent_id, 0);
	sb_collector_free(&c);
}

static int same_rank_rule(void *ctx, const uint32_t *tgids, size_t n, uint32_t *ranks)
{
	(void)ctx;
	(void)tgids;
	memset(ranks, 0, n * sizeof(*ranks));
	return 0;
}

static int failing_rule(void *ctx, const uint32_t *tgids, size_t n, uint32_t *ranks)
{
	(void)ctx;
	(void)tgids;
	(void)n;
	(void)ranks;
	return -EIO;
}

static void test_unusable_rank_rule_falls_back_to_first_call_order(void **state)
{
	static const uint32_t ranks[] = { 0, 1, 2 };
	sb_rank_rule_fn rules[] = { same_rank_rule, failing_rule };
	int errors[] = { -EINVAL, -EIO };
	struct sb_collector c;
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		three_processes(&c);
		c.rank_rule = rules[i];
		assert_int_equal(sb_collector_finish(&c), 0);
		assert_int_equal(c.rank_rule_error, errors[i]);
		expect_pairs(&c, ranks);
		sb_collector_free(&c);
	}
}

/*
 * record --rotate: each file holds the calls that ended in it. A child whose
 * parent ends in a later file is at the top level of its own; the next file
 * knows the regions and keeps each process's rank and thread rows.
 */
static void test_rotate_hands_calls_over_and_keeps_ranks(void **state)
{
	struct sb_collector c, piece;
	struct sb_event rows[4];

	(void)state;
	assert_int_equal(sb_collector_init(&c, "/tmp", 1 << 20), 0);
	site(&c, 200, 0x10, "other", "");
	site(&c, 100, 0x20, "outer", "");
	site(&c, 100, 0x30, "inner", "");
	call(&c, 200, 200, "other", 5, 6, 0, -1, 0);
	call(&c, 100, 101, "inner", 12, 20, 1, 0, 0);
	call(&c, 100, 101, "inner", 30, 40, 2, 0, 0);
	assert_int_equal(sb_collector_rotate(&c, &piece, "/tmp", 1 << 20), 0);

	assert_int_equal(piece.calls, 3);
	assert_int_equal(sb_collector_finish(&piece), 0);
	assert_int_equal(piece.prof.n_pairs, 2);
	assert_int_equal(sb_collector_rank(&piece, 100), 1);
	drain(&piece, rows, 4, 3);
	assert_int_equal(rows[1].call_id, 1);
	assert_int_equal(rows[1].parent_id, -1);	/* outer ends in the next file */
	sb_collector_free(&piece);

	/* No site again: the region is known by its hash. */
	call(&c, 100, 101, "inner", 45, 46, 3, 0, 0);
	call(&c, 100, 101, "outer", 10, 50, 0, -1, 19);
	assert_int_equal(c.calls, 2);
	assert_int_equal(sb_collector_finish(&c), 0);
	assert_int_equal(c.prof.n_regions, 2);
	assert_int_equal(c.prof.n_pairs, 2);
	assert_int_equal(sb_collector_rank(&c, 100), 1);
	assert_int_equal(sb_collector_rank(&c, 200), 0);
	assert_int_equal(sb_collector_thread_row(&c, 100, 101), 0);
	drain(&c, rows, 4, 2);
	assert_int_equal(rows[0].parent_id, 0);	/* inner 3 and outer 0 share this file */
	assert_int_equal(c.prof.pairs[1].exclusive_total, 40 - 19);
	sb_collector_free(&c);
}

/*
 * The completed ids start at the first one a file completes: a parent with a
 * lower id (open then, as after a cut) is still found, an unknown one is not.
 */
static void test_parent_below_the_first_completed_id(void **state)
{
	struct sb_collector c;
	struct sb_event rows[4];

	(void)state;
	assert_int_equal(sb_collector_init(&c, "/tmp", 1 << 20), 0);
	site(&c, 5, 0x10, "leaf", "");
	site(&c, 5, 0x20, "mid", "");
	call(&c, 5, 5, "leaf", 110, 120, 1000, 7, 0);
	call(&c, 5, 5, "leaf", 130, 140, 1001, 3, 0);
	call(&c, 5, 5, "mid", 100, 150, 7, 2, 20);
	assert_int_equal(sb_collector_finish(&c), 0);
	drain(&c, rows, 4, 3);
	assert_int_equal(rows[0].call_id, 1000);
	assert_int_equal(rows[0].parent_id, 7);
	assert_int_equal(rows[1].parent_id, -1);	/* call 3 never completed */
	assert_int_equal(rows[2].parent_id, -1);
	sb_collector_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairs_stats_exclusive_and_order),
		cmocka_unit_test(test_parent_never_completed_becomes_top_level),
		cmocka_unit_test(test_processes_become_ranks_in_order_of_first_call),
		cmocka_unit_test(test_hostile_records_are_ignored),
		cmocka_unit_test(test_refused_calls_are_dropped_and_syncs_still_served),
		cmocka_unit_test(test_calls_are_named_by_name_hash_not_address),
		cmocka_unit_test(test_stand_in_hashes_join_their_region),
		cmocka_unit_test(test_exited_thread_is_not_overwritten_by_a_live_read),
		cmocka_unit_test(test_a_vanished_live_thread_keeps_the_kernels_name),
		cmocka_unit_test(test_a_reused_tid_is_another_thread),
		cmocka_unit_test(test_interleaved_loops_keep_their_pairs_threads_and_paths),
		cmocka_unit_test(test_gpu_time_goes_to_the_innermost_launching_call),
		cmocka_unit_test(test_no_launches_leave_gpu_time_missing),
		cmocka_unit_test(test_samples_are_placed_in_the_innermost_call_by_time),
		cmocka_unit_test(test_samples_are_placed_from_the_spans_on_disk),
		cmocka_unit_test(test_samples_are_not_placed_without_call_paths),
		cmocka_unit_test(test_regions_open_at_start_are_counted_and_named),
		cmocka_unit_test(test_regions_open_at_start_list_is_capped),
		cmocka_unit_test(test_forked_child_has_its_parents_command),
		cmocka_unit_test(test_default_rank_rule_numbers_by_first_call),
		cmocka_unit_test(test_rank_rule_of_a_source_relabels_ranks_at_finish),
		cmocka_unit_test(test_unusable_rank_rule_falls_back_to_first_call_order),
		cmocka_unit_test(test_rotate_hands_calls_over_and_keeps_ranks),
		cmocka_unit_test(test_parent_below_the_first_completed_id),
	};

	return cmocka_run_group_tests_name("collect", tests, NULL, NULL);
}
