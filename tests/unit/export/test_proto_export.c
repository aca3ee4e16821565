/* Unit tests of the protobuf exports (Perfetto, pprof): each file decoded by protoc against proto/. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cmd/commands.h"
#include "export/proto_export.h"
#include "cuda_fixture.h"
#include "fixtures.h"
#include "pb_text.h"
#include "timeline_fixture.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- running an exporter ---- */

/* Export p with fn into the file tmp_path(name); returns the exporter's result. */
static int export_to(int (*fn)(FILE *, const struct sb_profile *, struct sb_error *),
		     const struct sb_profile *p, const char *name)
{
	struct sb_error err = { .msg = "" };
	FILE *f = fopen(tmp_path(name), "w");
	int r;

	assert_non_null(f);
	r = fn(f, p, &err);
	if (r < 0)
		fail_msg("export failed: %s", err.msg);
	assert_int_equal(fclose(f), 0);
	return r;
}

/* ---- Perfetto: the trace replayed as trace processor reads it ---- */

#define MAX_UUID 64
#define MAX_SEQ 32
#define MAX_IID 32
#define MAX_OPEN 16
#define MAX_COUNTERS 256

struct got_slice {
	uint64_t track;
	char *name;
	int64_t start, end;
	unsigned depth;
	int64_t c_begin, c_end;	/* the first counter's value after its begin, after its end */
};

struct got_counter {
	uint64_t track;
	int64_t ts, value;
};

struct replay {
	/* tracks */
	const struct pbt *desc[MAX_UUID];
	/* sequences */
	int64_t now[MAX_SEQ];
	uint64_t track_of[MAX_SEQ];
	uint64_t counter_of[MAX_SEQ];
	int64_t counter_now[MAX_SEQ];	/* the first counter's latest value */
	char *names[MAX_SEQ][MAX_IID];
	/* open slices per track */
	struct got_slice open[MAX_UUID][MAX_OPEN];
	unsigned depth[MAX_UUID];
	unsigned begins[MAX_UUID], ends[MAX_UUID];
	struct got_slice slices[256];
	size_t n_slices;
	struct got_counter counters[MAX_COUNTERS];
	size_t n_counters;
};

static void replay_state(struct replay *r, uint32_t seq, const struct pbt *pk)
{
	const struct pbt *snap = pbt_get(pk, "clock_snapshot"), *defs, *ted, *k;
	size_t i;

	if (pbt_int(pk, "sequence_flags", 0) & 1)
		memset(r->names[seq], 0, sizeof(r->names[seq]));
	for (i = 0; snap && i < snap->n; i++) {
		k = &snap->kids[i];
		if (!strcmp(k->key, "clocks") && pbt_int(k, "clock_id", 0) == 64) {
			assert_string_equal(pbt_str(k, "is_incremental"), "true");
			r->now[seq] = pbt_int(k, "timestamp", -1);
		}
	}
	if (snap)
		assert_int_equal(pbt_int(snap, "primary_trace_clock", 0), 3);
	defs = pbt_get(pk, "trace_packet_defaults");
	if (defs) {
		assert_int_equal(pbt_int(defs, "timestamp_clock_id", 0), 64);
		ted = pbt_get(defs, "track_event_defaults");
		r->track_of[seq] = (uint64_t)pbt_int(ted, "track_uuid", 0);
		r->counter_of[seq] = (uint64_t)pbt_int(ted, "extra_counter_track_uuids", 0);
	}
}

static void replay_interned(struct replay *r, uint32_t seq, const struct pbt *data)
{
	const struct pbt *k;
	int64_t iid;
	size_t i;

	for (i = 0; i < data->n; i++) {
		k = &data->kids[i];
		/* The other tables are the samples' callstacks, which their tests resolve. */
		if (strcmp(k->key, "event_names"))
			continue;
		iid = pbt_int(k, "iid", 0);
		assert_true(iid > 0 && iid < MAX_IID);
		if (r->names[seq][iid])
			fail_msg("iid %lld interned twice on sequence %u", (long long)iid, seq);
		r->names[seq][iid] = (char *)pbt_str(k, "name");
	}
}

static void replay_event(struct replay *r, uint32_t seq, const struct pbt *pk)
{
	const struct pbt *ev = pbt_get(pk, "track_event");
	const char *type = pbt_str(ev, "type");
	uint64_t track = r->track_of[seq];
	struct got_slice *s;
	size_t i, first_value = 0;

	/* The default clock is the sequence's incremental one: timestamps are deltas. */
	assert_null(pbt_get(pk, "timestamp_clock_id"));
	r->now[seq] += pbt_int(pk, "timestamp", 0);
	assert_int_equal(pbt_int(pk, "sequence_flags", 0), 2);
	assert_true(track > 0 && track < MAX_UUID);
	for (i = 0; i < ev->n; i++)
		if (!strcmp(ev->kids[i].key, "extra_counter_values")) {
			assert_true(r->n_counters < MAX_COUNTERS);
			r->counters[r->n_counters++] = (struct got_counter){
				r->counter_of[seq], r->now[seq], strtoll(ev->kids[i].val, NULL, 10) };
			if (!first_value++)
				r->counter_now[seq] = r->counters[r->n_counters - 1].value;
		}
	if (!strcmp(type, "TYPE_SLICE_BEGIN")) {
		assert_true(r->depth[track] < MAX_OPEN);
		s = &r->open[track][r->depth[track]];
		*s = (struct got_slice){ track, r->names[seq][pbt_int(ev, "name_iid", 0)],
					 r->now[seq], -1, r->depth[track], r->counter_now[seq], -1 };
		if (!s->name)
			fail_msg("name iid %lld used before it was interned",
				 (long long)pbt_int(ev, "name_iid", 0));
		r->depth[track]++;
		r->begins[track]++;
		return;
	}
	assert_string_equal(type, "TYPE_SLICE_END");
	assert_true(r->depth[track] > 0);
	s = &r->open[track][--r->depth[track]];
	s->end = r->now[seq];
	s->c_end = r->counter_now[seq];
	assert_true(s->end >= s->start);
	r->slices[r->n_slices++] = *s;
	r->ends[track]++;
}

static void replay(struct replay *r, const struct pbt *trace)
{
	const struct pbt *pk, *d;
	uint32_t seq;
	size_t i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < trace->n; i++) {
		pk = &trace->kids[i];
		assert_string_equal(pk->key, "packet");
		seq = (uint32_t)pbt_int(pk, "trusted_packet_sequence_id", 0);
		assert_true(seq > 0 && seq < MAX_SEQ);
		replay_state(r, seq, pk);
		if ((d = pbt_get(pk, "track_descriptor"))) {
			assert_true(pbt_int(d, "uuid", 0) > 0 && pbt_int(d, "uuid", 0) < MAX_UUID);
			assert_null(r->desc[pbt_int(d, "uuid", 0)]);
			r->desc[pbt_int(d, "uuid", 0)] = d;
		}
		if ((d = pbt_get(pk, "interned_data")))
			replay_interned(r, seq, d);
		if (pbt_get(pk, "track_event"))
			replay_event(r, seq, pk);
	}
	for (i = 0; i < MAX_UUID; i++) {
		assert_int_equal(r->depth[i], 0);
		assert_int_equal(r->begins[i], r->ends[i]);
	}
}

/* The uuid of the thread track of (pid, tid), the process track of pid when tid < 0; 0 if none. */
static uint64_t find_track(const struct replay *r, int64_t pid, int64_t tid)
{
	const struct pbt *t;
	size_t i;

	for (i = 1; i < MAX_UUID; i++) {
		if (!r->desc[i])
			continue;
		t = pbt_get(r->desc[i], tid < 0 ? "process" : "thread");
		if (t && pbt_int(t, "pid", 0) == pid && (tid < 0 || pbt_int(t, "tid", 0) == tid))
			return i;
	}
	return 0;
}

/* The one slice of track at [start, end]; fails when there is not exactly one. */
static const struct got_slice *find_slice(const struct replay *r, uint64_t track, int64_t start,
					  int64_t end)
{
	const struct got_slice *found = NULL;
	size_t i;

	for (i = 0; i < r->n_slices; i++)
		if (r->slices[i].track == track && r->slices[i].start == start &&
		    r->slices[i].end == end) {
			if (found)
				fail_msg("two slices at [%lld, %lld]", (long long)start, (long long)end);
			found = &r->slices[i];
		}
	if (!found)
		fail_msg("no slice at [%lld, %lld] on track %llu", (long long)start, (long long)end,
			 (unsigned long long)track);
	return found;
}

/* ---- the synthetic profile: 2 ranks, 3 threads, nested calls, off-CPU ---- */

enum { MAIN, SOLVE, IO };
#define ORIGIN 50

static const struct {
	uint32_t region, rank;
	struct sb_event e;
} calls[] = {
	{ MAIN, 0, { 100, 1000, 0, 1, -1, { -1, 135 } } },
	{ MAIN, 1, { 150, 900, 0, 1, -1, { -1, 0 } } },
	{ SOLVE, 0, { 200, 300, 0, 2, 1, { -1, 0 } } },
	{ SOLVE, 0, { 250, 450, 1, 6, -1, { -1, 10 } } },
	{ SOLVE, 0, { 400, 600, 0, 3, 1, { -1, 100 } } },
	{ SOLVE, 1, { 300, 500, 0, 2, 1, { -1, 20 } } },
	{ SOLVE, 1, { 500, 700, 0, 3, 1, { -1, 0 } } },
	{ IO, 0, { 210, 250, 0, 4, 2, { -1, 5 } } },
	{ IO, 0, { 300, 300, 0, 5, 1, { -1, 0 } } },
	{ IO, 1, { 500, 500, 0, 4, 3, { -1, 0 } } },
};

#define N_CALLS (sizeof(calls) / sizeof(calls[0]))

static const struct sb_thread threads[] = {
	{ 0, 0, 4242, 90, 1100, 800, "main" },
	{ 0, 1, 4243, 240, -1, -1, "worker" },
	{ 1, 0, 5252, 140, 950, 700, "rank1" },
};

static void build(struct sb_profile *p)
{
	static const struct sb_process procs[] = {
		{ 4242, 1, 0, 50, 1100, 0, "./app --x" },
		{ 5252, 1, 1, 60, -1, -1, "./app --y" },
	};
	size_t i;

	sb_profile_init(p);
	p->format = strdup("synthetic");
	assert_int_equal(sb_profile_add_region(p, "main", "app.c", 10, "[]"), MAIN);
	assert_int_equal(sb_profile_add_region(p, "solve", "solver.c", 20, "[]"), SOLVE);
	assert_int_equal(sb_profile_add_region(p, "io \"w\"\n\xc3\xa9", "", -1, "[]"), IO);
	assert_int_equal(sb_profile_set_int(p, "mpi_size", 2), 0);
	assert_int_equal(sb_profile_set_int(p, "start_time_ns", ORIGIN), 0);
	fx_add_threads(p, threads, 3);
	fx_add_processes(p, procs, 2);
	p->columns = SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID | SB_COL_OFFCPU;
	for (i = 0; i < N_CALLS; i++)
		fx_add_call(p, calls[i].region, calls[i].rank, &calls[i].e);
}

static void decode_trace(const struct sb_profile *p, const char *name, struct pbt *trace,
			 struct replay *r, int skipped)
{
	assert_int_equal(export_to(sb_export_perfetto, p, name), skipped);
	pbt_decode(trace, "perfetto.protos.Trace", "perfetto_trace.proto", tmp_path(name));
	replay(r, trace);
}

static void test_perfetto_tracks_per_rank_and_thread(void **state)
{
	struct sb_profile p;
	struct pbt trace;
	struct replay *r = calloc(1, sizeof(*r));
	uint64_t rank0, rank1, t;
	size_t i;

	(void)state;
	build(&p);
	decode_trace(&p, "tracks.pftrace", &trace, r, 0);
	rank0 = find_track(r, 1, -1);
	rank1 = find_track(r, 2, -1);
	assert_true(rank0 && rank1);
	assert_string_equal(pbt_str(pbt_get(r->desc[rank0], "process"), "process_name"),
			    "rank 0 (./app --x)");
	assert_string_equal(pbt_str(pbt_get(r->desc[rank1], "process"), "process_name"),
			    "rank 1 (./app --y)");
	for (i = 0; i < 3; i++) {
		t = find_track(r, threads[i].rank + 1, threads[i].tid);
		assert_true(t > 0);
		assert_int_equal(pbt_int(r->desc[t], "parent_uuid", 0), threads[i].rank ? rank1 : rank0);
		assert_string_equal(pbt_str(pbt_get(r->desc[t], "thread"), "thread_name"),
				    threads[i].name);
	}
	pbt_free(&trace);
	free(r);
	sb_profile_free(&p);
}

/* Every call is one slice on its thread's track, named through the interned names, nested right. */
static void test_perfetto_slices_are_the_calls_nested(void **state)
{
	static const char *const names[] = { "main", "solve", "io \"w\"\n\xc3\xa9" };
	const struct got_slice *s;
	struct sb_profile p;
	struct pbt trace;
	struct replay *r = calloc(1, sizeof(*r));
	uint64_t track;
	size_t i;

	(void)state;
	build(&p);
	decode_trace(&p, "slices.pftrace", &trace, r, 0);
	assert_int_equal(r->n_slices, N_CALLS);
	for (i = 0; i < N_CALLS; i++) {
		track = find_track(r, calls[i].rank + 1,
				   threads[calls[i].rank ? 2 : calls[i].e.thread].tid);
		s = find_slice(r, track, calls[i].e.start, calls[i].e.end);
		assert_string_equal(s->name, names[calls[i].region]);
	}
	/* Nesting: io inside solve inside main; the io at 300 after the solve that ends there. */
	track = find_track(r, 1, 4242);
	assert_int_equal(find_slice(r, track, 100, 1000)->depth, 0);
	assert_int_equal(find_slice(r, track, 200, 300)->depth, 1);
	assert_int_equal(find_slice(r, track, 210, 250)->depth, 2);
	assert_int_equal(find_slice(r, track, 300, 300)->depth, 1);
	/* At 500 on rank 1 the longer call opens first: the instant io is inside it. */
	track = find_track(r, 2, 5252);
	assert_int_equal(find_slice(r, track, 500, 700)->depth, 1);
	assert_int_equal(find_slice(r, track, 500, 500)->depth, 2);
	pbt_free(&trace);
	free(r);
	sb_profile_free(&p);
}

/* The off-CPU counter shows the innermost open call's share, written only when it changes. */
static void test_perfetto_offcpu_counter_follows_the_innermost_call(void **state)
{
	static const int64_t want[][2] = {
		{ 100, 15 }, { 200, 0 }, { 210, 13 }, { 250, 0 }, { 300, 15 },
		{ 300, 0 }, { 300, 15 }, { 400, 50 }, { 600, 15 }, { 1000, 0 },
	};
	struct sb_profile p;
	struct pbt trace;
	struct replay *r = calloc(1, sizeof(*r));
	uint64_t thread, counter;
	size_t i, n = 0;

	(void)state;
	build(&p);
	decode_trace(&p, "counter.pftrace", &trace, r, 0);
	thread = find_track(r, 1, 4242);
	for (counter = 1; counter < MAX_UUID; counter++)
		if (r->desc[counter] && pbt_get(r->desc[counter], "counter") &&
		    pbt_int(r->desc[counter], "parent_uuid", 0) == (int64_t)thread)
			break;
	assert_true(counter < MAX_UUID);
	assert_string_equal(pbt_str(r->desc[counter], "name"), "off-CPU % main (tid 4242)");
	for (i = 0; i < r->n_counters; i++) {
		if (r->counters[i].track != counter)
			continue;
		assert_true(n < sizeof(want) / sizeof(want[0]));
		if (r->counters[i].ts != want[n][0] || r->counters[i].value != want[n][1])
			fail_msg("counter value %zu: %lld at %lld, not %lld at %lld", n,
				 (long long)r->counters[i].value, (long long)r->counters[i].ts,
				 (long long)want[n][1], (long long)want[n][0]);
		n++;
	}
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	pbt_free(&trace);
	free(r);
	sb_profile_free(&p);
}

/* A call that overlaps its caller without nesting cannot be a slice: left out and counted. */
static void test_perfetto_leaves_out_calls_that_do_not_nest(void **state)
{
	static const struct fx_call tree[] = {
		{ "a", 100, 300, 1, -1, 0 },
		{ "b", 200, 400, 2, -1, 0 },
		{ "c", 500, 600, 3, -1, 0 },
	};
	struct sb_profile p;
	struct pbt trace;
	struct replay *r = calloc(1, sizeof(*r));

	(void)state;
	fx_call_tree(&p, tree, 3, SB_COL_THREAD | SB_COL_CALL_ID);
	decode_trace(&p, "overlap.pftrace", &trace, r, 1);
	assert_int_equal(r->n_slices, 2);
	find_slice(r, find_track(r, 1, 42), 100, 300);
	find_slice(r, find_track(r, 1, 42), 500, 600);
	pbt_free(&trace);
	free(r);
	sb_profile_free(&p);
}

/* The counter track of pf's (one) thread whose name starts with name; fails when none. */
static uint64_t counter_track(const struct replay *r, const char *name)
{
	uint64_t k;

	for (k = 1; k < MAX_UUID; k++)
		if (r->desc[k] && pbt_get(r->desc[k], "counter") &&
		    !strncmp(pbt_str(r->desc[k], "name"), name, strlen(name)))
			return k;
	fail_msg("no counter track %s", name);
	return 0;
}

/*
 * A counted event (record -e) is a counter track per thread of its count so
 * far: it rises by a call's count where the call ends, so that over any
 * call it rises by the call's count, and ends at the thread's total.
 */
static void test_perfetto_counters_count_per_thread(void **state)
{
	static const struct fx_call tree[] = {
		{ "a", 100, 300, 1, -1, 0 },
		{ "b", 150, 250, 2, 1, 0 },
	};
	static const int64_t want[][2] = { { 100, 0 }, { 250, 500 }, { 300, 4000 } };
	struct sb_profile p;
	struct pbt trace;
	struct replay *r = calloc(1, sizeof(*r));
	size_t i;

	(void)state;
	fx_call_tree(&p, tree, 2, SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID |
			 SB_COL_METRIC(SB_METRIC_COUNTER) | SB_COL_METRIC(SB_METRIC_COUNTER_EXCL));
	assert_int_equal(sb_profile_alloc_counters(&p), 0);
	sb_event_set_metric(&p, 0, SB_METRIC_COUNTER, 4000);	/* a: 4000 in 200 ns */
	sb_event_set_metric(&p, 1, SB_METRIC_COUNTER, 500);	/* b: 500 in 100 ns */
	assert_int_equal(sb_profile_set_str(&p, "counter_events", "instructions"), 0);
	decode_trace(&p, "counts.pftrace", &trace, r, 0);
	assert_int_equal(r->n_counters, 3);
	assert_string_equal(pbt_str(r->desc[r->counters[0].track], "name"),
			    "instructions app (tid 42)");
	assert_string_equal(pbt_str(pbt_get(r->desc[r->counters[0].track], "counter"), "unit"),
			    "UNIT_COUNT");
	for (i = 0; i < 3; i++) {
		assert_int_equal(r->counters[i].ts, want[i][0]);
		assert_int_equal(r->counters[i].value, want[i][1]);
	}
	pbt_free(&trace);
	free(r);
	sb_profile_free(&p);
}

/*
 * Software events count a few per call, over calls of a millisecond
 * (report --counters: 382 page faults): what the trace shows adds up to
 * the profile's counts, per call and per thread, however slow the rate.
 */
static void test_perfetto_counts_add_up_to_the_profile(void **state)
{
	static const struct fx_call tree[] = {
		{ "solve", 100, 1000100, 1, -1, 0 },
		{ "solve", 2000000, 3000000, 4, -1, 0 },
		{ "assemble", 200, 500200, 2, 1, 0 },
		{ "assemble", 600000, 900000, 3, 1, 0 },
	};
	static const int64_t faults[] = { 382, 10, 94, 2 };
	const struct got_slice *s;
	struct sb_profile p;
	struct pbt trace;
	struct replay *r = calloc(1, sizeof(*r));
	int64_t total = 0, last = -1;
	uint64_t track;
	size_t i, k;

	(void)state;
	fx_call_tree(&p, tree, 4, SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID |
			 SB_COL_METRIC(SB_METRIC_COUNTER) | SB_COL_METRIC(SB_METRIC_COUNTER_EXCL));
	assert_int_equal(sb_profile_alloc_counters(&p), 0);
	for (i = 0; i < 4; i++) {
		sb_event_set_metric(&p, i, SB_METRIC_COUNTER, faults[i]);
		total += tree[i].parent < 0 ? faults[i] : 0;
	}
	assert_int_equal(sb_profile_set_str(&p, "counter_events", "page-faults"), 0);
	decode_trace(&p, "faults.pftrace", &trace, r, 0);
	track = counter_track(r, "page-faults ");
	for (i = 0; i < r->n_counters; i++) {
		assert_int_equal(r->counters[i].track, track);
		assert_true(r->counters[i].value >= last);
		last = r->counters[i].value;
	}
	/* The thread's count: the top-level calls' counts, every call's own count summed. */
	assert_int_equal(last, total);
	assert_int_equal(total, 392);
	/* Over each call, the track rises by the call's count. */
	assert_int_equal(r->n_slices, 4);
	for (i = 0; i < r->n_slices; i++) {
		s = &r->slices[i];
		for (k = 0; k < 4 && (tree[k].start != s->start || tree[k].end != s->end); k++)
			;
		assert_true(k < 4);
		if (s->c_end - s->c_begin != faults[k])
			fail_msg("%s at %lld: the track rises by %lld, not by its %lld faults", s->name,
				 (long long)s->start, (long long)(s->c_end - s->c_begin),
				 (long long)faults[k]);
	}
	pbt_free(&trace);
	free(r);
	sb_profile_free(&p);
}

/* A thread-table row of a rank above every rank with calls has a track of its own, unparented. */
static void test_perfetto_thread_of_a_rank_without_calls(void **state)
{
	static const struct fx_call tree[] = { { "a", 100, 300, 1, -1, 0 } };
	struct sb_thread late = { .rank = 5, .index = 0, .tid = 77, .end_ns = -1, .cpu_ns = -1,
				  .name = "late" };
	struct sb_profile p;
	struct pbt trace;
	struct replay *r = calloc(1, sizeof(*r));
	uint64_t t;

	(void)state;
	fx_call_tree(&p, tree, 1, SB_COL_THREAD | SB_COL_CALL_ID);
	assert_true(sb_profile_add_thread(&p, &late) >= 0);
	decode_trace(&p, "late.pftrace", &trace, r, 0);
	t = find_track(r, 6, 77);
	assert_true(t > 0);
	assert_null(pbt_get(r->desc[t], "parent_uuid"));
	assert_int_equal(r->n_slices, 1);
	pbt_free(&trace);
	free(r);
	sb_profile_free(&p);
}

/* GPU work on a track per (rank, device, stream) under its rank, kernels by demangled name. */
static void test_perfetto_gpu_lanes(void **state)
{
	static const struct {
		int64_t pid, start, end;
		const char *lane, *name;
	} want[] = {
		{ 1, 260, 400, "GPU 0 stream 7", "square(float*, int)" },
		{ 1, 300, 500, "GPU 0 stream 9", "memcpy HtoD" },
		{ 1, 600, 650, "GPU 1 stream 7", "memset" },
		{ 2, 350, 800, "GPU 0 stream 7", "plain_kernel" },
	};
	const struct got_slice *s;
	struct sb_profile p;
	struct pbt trace;
	struct replay *r = calloc(1, sizeof(*r));
	size_t i, k, lanes = 0;

	(void)state;
	cu_build(&p, true);
	decode_trace(&p, "gpu.pftrace", &trace, r, 0);
	for (k = 1; k < MAX_UUID; k++)
		lanes += r->desc[k] && pbt_str(r->desc[k], "name") &&
			 !strncmp(pbt_str(r->desc[k], "name"), "GPU ", 4);
	assert_int_equal(lanes, 4);
	/* 4 host calls (no off-CPU column: no counter values) and 4 pieces of GPU work. */
	assert_int_equal(r->n_slices, 8);
	assert_int_equal(r->n_counters, 0);
	for (i = 0; i < 4; i++) {
		for (k = 0; k < r->n_slices; k++)
			if (r->slices[k].start == want[i].start && r->slices[k].end == want[i].end)
				break;
		assert_true(k < r->n_slices);
		s = &r->slices[k];
		assert_string_equal(s->name, want[i].name);
		assert_string_equal(pbt_str(r->desc[s->track], "name"), want[i].lane);
		assert_int_equal(pbt_int(r->desc[s->track], "parent_uuid", 0),
				 find_track(r, want[i].pid, -1));
	}
	pbt_free(&trace);
	free(r);
	sb_profile_free(&p);
}

static void test_perfetto_empty_profile_decodes(void **state)
{
	struct sb_profile p;
	struct pbt trace;
	struct replay *r = calloc(1, sizeof(*r));

	(void)state;
	sb_profile_init(&p);
	decode_trace(&p, "empty.pftrace", &trace, r, 0);
	assert_int_equal(r->n_slices, 0);
	assert_non_null(pbt_get(&trace.kids[0], "clock_snapshot"));
	pbt_free(&trace);
	free(r);
	sb_profile_free(&p);
}

/* ---- Perfetto: CPU samples, as Perfetto's own profiler writes them ---- */

/* The entry of interned table key with iid; fails the test when there is none. */
static const struct pbt *by_iid(const struct pbt *data, const char *key, int64_t iid)
{
	const struct pbt *e;
	size_t i;

	for (i = 0; (e = pbt_nth(data, key, i)); i++)
		if (pbt_int(e, "iid", 0) == iid)
			return e;
	fail_msg("%s iid %lld is not interned", key, (long long)iid);
	return NULL;
}

/* Callstack iid as "function (mapping path);...", outermost first, into buf. */
static void callstack_text(const struct pbt *data, int64_t iid, char *buf, size_t len)
{
	const struct pbt *cs = by_iid(data, "callstacks", iid), *fr, *map, *id;
	size_t i, at = 0;

	buf[0] = 0;
	for (i = 0; (id = pbt_nth(cs, "frame_ids", i)); i++) {
		fr = by_iid(data, "frames", strtoll(id->val, NULL, 10));
		map = by_iid(data, "mappings", pbt_int(fr, "mapping_id", 0));
		at += (size_t)snprintf(buf + at, len - at, "%s%s (%s)", i ? ";" : "",
				       pbt_str(by_iid(data, "function_names",
						      pbt_int(fr, "function_name_id", 0)), "str"),
				       pbt_str(by_iid(data, "mapping_paths",
						      pbt_int(map, "path_string_ids", 0)), "str"));
		assert_true(at < len);
	}
}

/*
 * Each timed sample a perf_sample packet on CLOCK_MONOTONIC at its time, on
 * its thread (the pid and tid of the thread's track), its callstack interned
 * at its sequence's start: region path outermost, then user, then kernel.
 */
static void test_perfetto_samples_on_their_threads(void **state)
{
	static const struct {
		int64_t ts, cpu, pid, tid;
		const char *stack;
	} want[TL_SAMPLES] = {
		{ TL_T0 + 250, 2, 1, 4243,
		  "solve ([region]);step ([region]);main (/app);compute (/app)" },
		{ TL_T0 + 500, 3, 1, 4244,
		  "solve ([region]);main (/app);do_syscall_64 ([kernel.kallsyms])" },
		{ TL_T0 + 1000, 2, 1, 4243,
		  "solve ([region]);step ([region]);main (/app);compute (/app)" },
		{ TL_T0 + 300, 5, 2, 5252, "main (/app)" },
	};
	char h5[512], out[512], stack[512];
	char *argv[] = { "export", "perfetto", h5, "-o", out };
	const struct pbt *pk, *ps, *data = NULL, *fr;
	struct replay *r = calloc(1, sizeof(*r));
	struct pbt trace;
	size_t i, n = 0;

	(void)state;
	snprintf(h5, sizeof(h5), "%s", tmp_path("timed.h5"));
	snprintf(out, sizeof(out), "%s", tmp_path("timed.pftrace"));
	tl_write(h5);
	assert_int_equal(cmd_export(ARGC(argv), argv), 0);
	pbt_decode(&trace, "perfetto.protos.Trace", "perfetto_trace.proto", out);
	replay(r, &trace);
	for (i = 0; i < trace.n; i++) {
		pk = &trace.kids[i];
		if (pbt_get(pk, "interned_data") &&
		    pbt_get(pbt_get(pk, "interned_data"), "callstacks")) {
			assert_int_equal(pbt_int(pk, "sequence_flags", 0), 1);
			data = pbt_get(pk, "interned_data");
		}
		ps = pbt_get(pk, "perf_sample");
		if (!ps)
			continue;
		assert_true(n < TL_SAMPLES);
		assert_non_null(data);
		assert_int_equal(pbt_int(pk, "sequence_flags", 0), 2);
		assert_int_equal(pbt_int(pk, "timestamp_clock_id", 0), 3);
		assert_int_equal(pbt_int(pk, "timestamp", 0), want[n].ts);
		assert_int_equal(pbt_int(ps, "cpu", -1), want[n].cpu);
		assert_int_equal(pbt_int(ps, "pid", 0), want[n].pid);
		assert_int_equal(pbt_int(ps, "tid", 0), want[n].tid);
		assert_true(find_track(r, want[n].pid, want[n].tid) > 0);
		callstack_text(data, pbt_int(ps, "callstack_iid", 0), stack, sizeof(stack));
		assert_string_equal(stack, want[n].stack);
		n++;
	}
	assert_int_equal(n, TL_SAMPLES);
	/* A frame's address within its module: compute's. */
	fr = by_iid(data, "frames", 1);
	assert_int_equal(pbt_int(fr, "rel_pc", 0), 0x1140);
	pbt_free(&trace);
	free(r);
}

/* A profile that kept only the sums has no sample to place: no perf_sample packet. */
static void test_perfetto_summed_samples_place_nothing(void **state)
{
	struct pbt trace;
	struct sb_profile p;
	struct replay *r = calloc(1, sizeof(*r));
	size_t i;

	(void)state;
	tl_build(&p);
	decode_trace(&p, "summed.pftrace", &trace, r, 0);
	for (i = 0; i < trace.n; i++)
		assert_null(pbt_get(&trace.kids[i], "perf_sample"));
	pbt_free(&trace);
	free(r);
	sb_profile_free(&p);
}

/* ---- pprof ---- */

enum { F_COMPUTE, F_MAIN, F_SCHED, F_READ, N_FRAMES };
enum { S_COMPUTE, S_READ, S_KERNEL, N_STACKS };
enum { P_A, P_AB };

static const struct sb_sample rows[] = {
	{ SB_SAMPLE_CPU, 0, 0, P_AB, S_COMPUTE, -1, 6, 0 },
	{ SB_SAMPLE_CPU, 0, 0, -1, S_COMPUTE, -1, 3, 0 },
	{ SB_SAMPLE_CPU, 1, 0, P_A, -1, -1, 2, 0 },
	{ SB_SAMPLE_OFFCPU, 0, 1, P_AB, S_READ, S_KERNEL, 3, 3000 },
	{ SB_SAMPLE_OFFCPU, 0, 1, P_A, S_READ, -1, 1, 0 },	/* weighs nothing */
};

/* Each counted row's frames as pprof lists them: leaf first, regions last (outermost last). */
static const char *const row_frames[][6] = {
	{ "compute", "main", "B", "A" },
	{ "compute", "main" },
	{ "[no stack]", "A" },
	{ "schedule", "read", "main", "B", "A" },
};

static void build_samples(struct sb_profile *p)
{
	static const struct { const char *fn, *file, *module; int64_t line; } frames[] = {
		[F_COMPUTE] = { "compute", "app.c", "/app", 10 },
		[F_MAIN] = { "main", "app.c", "/app", 5 },
		[F_SCHED] = { "schedule", "", "[kernel]", -1 },
		[F_READ] = { "read", "", "/lib/libc.so.6", -1 },
	};
	static const uint32_t stack_ids[] = { F_COMPUTE, F_MAIN, F_READ, F_MAIN, F_SCHED };
	static const struct sb_stack stacks[N_STACKS] = { { 0, 2 }, { 2, 2 }, { 4, 1 } };
	/* The calls the paths saw, so that the profile can be written. */
	static const struct sb_event events[] = {
		{ 100, 1000, 0, 1, -1, { -1, -1 } },
		{ 200, 600, 0, 2, 1, { -1, -1 } },
	};
	struct sb_samples *s = &p->samples;
	size_t i;

	sb_profile_init(p);
	assert_int_equal(sb_profile_add_region(p, "A", "app.c", 30, NULL), 0);
	assert_int_equal(sb_profile_add_region(p, "B", "app.c", 31, NULL), 1);
	assert_int_equal(sb_profile_set_int(p, "mpi_size", 2), 0);
	assert_int_equal(sb_profile_set_int(p, "sample_frequency_hz", 999), 0);
	fx_add_threads(p, threads, 3);
	p->columns = SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID;
	for (i = 0; i < 2; i++)
		fx_add_pair(p, (uint32_t)i, 0, &events[i], 1);
	s->n_frames = N_FRAMES;
	s->frames = calloc(N_FRAMES, sizeof(*s->frames));
	assert_non_null(s->frames);
	for (i = 0; i < N_FRAMES; i++)
		s->frames[i] = (struct sb_frame_sym){ strdup(frames[i].fn), strdup(frames[i].file),
						      frames[i].line, strdup(frames[i].module),
						      0x1000 + i * 16, false };
	s->n_stack_frames = sizeof(stack_ids) / sizeof(stack_ids[0]);
	s->stack_frames = fx_copy(stack_ids, sizeof(stack_ids));
	s->n_stacks = N_STACKS;
	s->stacks = fx_copy(stacks, sizeof(stacks));
	s->n_paths = 2;
	s->paths = calloc(2, sizeof(*s->paths));
	assert_non_null(s->paths);
	s->paths[P_A] = (struct sb_region_path){ -1, strdup("A") };
	s->paths[P_AB] = (struct sb_region_path){ P_A, strdup("B") };
	s->n_samples = sizeof(rows) / sizeof(rows[0]);
	s->samples = fx_copy(rows, sizeof(rows));
}

static void decode_profile(const struct sb_profile *p, struct pbt *root)
{
	char raw[512];

	export_to(sb_export_pprof, p, "p.pb.gz");
	snprintf(raw, sizeof(raw), "%s", tmp_path("p.pb"));
	pbt_gunzip(tmp_path("p.pb.gz"), raw);
	pbt_decode(root, "perftools.profiles.Profile", "profile.proto", tmp_path("p.pb"));
}

static void test_pprof_samples_values_and_types(void **state)
{
	const struct pbt *sm, *st;
	struct sb_profile p;
	struct pbt prof;
	int64_t sums[2] = { 0, 0 };
	size_t i, n = 0;

	(void)state;
	build_samples(&p);
	decode_profile(&p, &prof);
	assert_string_equal(pbt_nth(&prof, "string_table", 0)->val, "");
	st = pbt_nth(&prof, "sample_type", 0);
	assert_string_equal(pprof_string(&prof, pbt_int(st, "type", 0)), "samples");
	assert_string_equal(pprof_string(&prof, pbt_int(st, "unit", 0)), "count");
	st = pbt_nth(&prof, "sample_type", 1);
	assert_string_equal(pprof_string(&prof, pbt_int(st, "type", 0)), "off-CPU");
	assert_string_equal(pprof_string(&prof, pbt_int(st, "unit", 0)), "nanoseconds");
	assert_null(pbt_nth(&prof, "sample_type", 2));
	st = pbt_get(&prof, "period_type");
	assert_string_equal(pprof_string(&prof, pbt_int(st, "type", 0)), "cpu");
	assert_int_equal(pbt_int(&prof, "period", 0), 1000000000 / 999);
	for (i = 0; (sm = pbt_nth(&prof, "sample", i)); i++) {
		assert_non_null(pbt_nth(sm, "value", 1));
		assert_null(pbt_nth(sm, "value", 2));
		sums[0] += strtoll(pbt_nth(sm, "value", 0)->val, NULL, 10);
		sums[1] += strtoll(pbt_nth(sm, "value", 1)->val, NULL, 10);
		n++;
	}
	/* The rows that weigh something, their counts and nanoseconds. */
	assert_int_equal(n, 4);
	assert_int_equal(sums[0], 6 + 3 + 2);
	assert_int_equal(sums[1], 3000);
	pbt_free(&prof);
	sb_profile_free(&p);
}

/* Only the kinds the profile has are sample types, each sample's value in its kind's place. */
static void test_pprof_one_kind_one_sample_type(void **state)
{
	const struct pbt *st, *sm;
	struct sb_profile p;
	struct pbt prof;
	int64_t sum = 0;
	size_t i;

	(void)state;
	/* Off-CPU rows only: no CPU period, nanoseconds first and alone. */
	build_samples(&p);
	memmove(p.samples.samples, &p.samples.samples[3], 2 * sizeof(*p.samples.samples));
	p.samples.n_samples = 2;
	decode_profile(&p, &prof);
	st = pbt_nth(&prof, "sample_type", 0);
	assert_string_equal(pprof_string(&prof, pbt_int(st, "type", 0)), "off-CPU");
	assert_null(pbt_nth(&prof, "sample_type", 1));
	assert_int_equal(pbt_int(&prof, "default_sample_type", 0), pbt_int(st, "type", -1));
	assert_null(pbt_get(&prof, "period_type"));
	for (i = 0; (sm = pbt_nth(&prof, "sample", i)); i++) {
		assert_null(pbt_nth(sm, "value", 1));
		sum += strtoll(pbt_nth(sm, "value", 0)->val, NULL, 10);
	}
	assert_int_equal(i, 1);
	assert_int_equal(sum, 3000);
	pbt_free(&prof);
	sb_profile_free(&p);
}

/* Every id resolves, and each stack reads leaf first with the region path as its outermost frames. */
static void test_pprof_stacks_end_in_the_region_path(void **state)
{
	const struct pbt *sm, *lb;
	struct sb_profile p;
	struct pbt prof;
	size_t i, k;

	(void)state;
	build_samples(&p);
	decode_profile(&p, &prof);
	for (i = 0; (sm = pbt_nth(&prof, "sample", i)); i++) {
		assert_true(i < 4);
		for (k = 0; row_frames[i][k]; k++)
			assert_string_equal(pprof_location_name(&prof, strtoll(pbt_nth(sm, "location_id", k)->val,
									  NULL, 10)),
					    row_frames[i][k]);
		assert_null(pbt_nth(sm, "location_id", k));
		lb = pbt_nth(sm, "label", 0);
		assert_string_equal(pprof_string(&prof, pbt_int(lb, "key", 0)), "rank");
		assert_int_equal(pbt_int(lb, "num", 0), rows[i].rank);
	}
	/* Kernel frames keep their module as mapping. */
	for (i = 0; (sm = pbt_nth(&prof, "mapping", i)); i++)
		if (!strcmp(pprof_string(&prof, pbt_int(sm, "filename", 0)), "[kernel]"))
			break;
	assert_non_null(sm);
	pbt_free(&prof);
	sb_profile_free(&p);
}

/* Names demangled, and a marker helper's frame left out: its caller takes its place. */
static void test_pprof_names_as_users_read_them(void **state)
{
	static const char *const want[] = { "solver::compute()", "B", "A" };
	const struct pbt *sm;
	struct sb_profile p;
	struct pbt prof;
	size_t k;

	(void)state;
	build_samples(&p);
	free(p.samples.frames[F_COMPUTE].function);
	p.samples.frames[F_COMPUTE].function = strdup("_ZN6solver7computeEv");
	free(p.samples.frames[F_MAIN].function);
	p.samples.frames[F_MAIN].function = strdup("scope_bpf_impl_begin");
	decode_profile(&p, &prof);
	sm = pbt_nth(&prof, "sample", 0);
	for (k = 0; k < 3; k++)
		assert_string_equal(pprof_location_name(&prof, strtoll(pbt_nth(sm, "location_id", k)->val,
								  NULL, 10)),
				    want[k]);
	assert_null(pbt_nth(sm, "location_id", k));
	pbt_free(&prof);
	sb_profile_free(&p);
}

/*
 * A label as pprof's decoder keeps it: a string, or a number when num or
 * its unit is set (proto3 writes neither when 0, and pprof then drops the
 * label). Its number, or -1 when pprof would not see it.
 */
static int64_t pprof_num_label(const struct pbt *prof, const struct pbt *sample, const char *key)
{
	const struct pbt *lb;
	size_t i;

	for (i = 0; (lb = pbt_nth(sample, "label", i)); i++) {
		if (strcmp(pprof_string(prof, pbt_int(lb, "key", 0)), key))
			continue;
		assert_int_equal(pbt_int(lb, "str", 0), 0);
		if (!pbt_int(lb, "num", 0) && !pbt_int(lb, "num_unit", 0))
			return -1;
		/* The unit pprof would assume for the key, written so that a 0 stays. */
		assert_string_equal(pprof_string(prof, pbt_int(lb, "num_unit", 0)), key);
		return pbt_int(lb, "num", 0);
	}
	return -1;
}

/* Rank 0 and thread 0 are labels too: pprof -tagfocus=thread=0 finds the samples of thread 0. */
static void test_pprof_labels_of_rank_and_thread_0_stay(void **state)
{
	const struct pbt *sm;
	struct sb_profile p;
	struct pbt prof;
	size_t i, thread0 = 0;

	(void)state;
	build_samples(&p);
	decode_profile(&p, &prof);
	for (i = 0; (sm = pbt_nth(&prof, "sample", i)); i++) {
		assert_int_equal(pprof_num_label(&prof, sm, "rank"), rows[i].rank);
		assert_int_equal(pprof_num_label(&prof, sm, "thread"), rows[i].thread);
		thread0 += pprof_num_label(&prof, sm, "thread") == 0;
	}
	assert_int_equal(i, 4);
	assert_int_equal(thread0, 3);
	pbt_free(&prof);
	sb_profile_free(&p);
}

/* The mapping pprof reads as the program, the first, of its module. */
static const char *first_mapping(const struct pbt *prof)
{
	const struct pbt *m = pbt_nth(prof, "mapping", 0);

	assert_non_null(m);
	assert_int_equal(pbt_int(m, "id", 0), 1);
	return pprof_string(prof, pbt_int(m, "filename", 0));
}

/* Every location's mapping is its frame's module. */
static void check_location_mappings(const struct sb_profile *p, const struct pbt *prof)
{
	const struct pbt *loc, *map;
	size_t i;

	for (i = 0; i < p->samples.n_frames; i++) {
		loc = pbt_by_id(prof, "location", (int64_t)i + 1);
		map = pbt_by_id(prof, "mapping", pbt_int(loc, "mapping_id", 0));
		assert_non_null(map);
		assert_string_equal(pprof_string(prof, pbt_int(map, "filename", 0)),
				    p->samples.frames[i].module);
	}
}

/*
 * pprof names its first mapping as the profile's "File:": the program, not
 * ld.so, whose frames may come first (a sample in the dynamic loader).
 */
static void test_pprof_maps_the_program_first(void **state)
{
	static const struct sb_process procs[] = { { 4242, 1, 0, 50, 1100, 0, "./app --x" } };
	struct sb_profile p;
	struct pbt prof;

	(void)state;
	build_samples(&p);
	free(p.samples.frames[F_COMPUTE].module);
	p.samples.frames[F_COMPUTE].module = strdup("/lib64/ld-linux-x86-64.so.2");
	fx_add_processes(&p, procs, 1);
	decode_profile(&p, &prof);
	assert_string_equal(first_mapping(&prof), "/app");
	check_location_mappings(&p, &prof);
	pbt_free(&prof);
	/* Without a process that ran it: the first module not named as a library. */
	p.n_processes = 0;
	decode_profile(&p, &prof);
	assert_string_equal(first_mapping(&prof), "/app");
	check_location_mappings(&p, &prof);
	pbt_free(&prof);
	/* argv[0] wins over a program listed before it (a launcher's frames). */
	free(p.samples.frames[F_COMPUTE].module);
	p.samples.frames[F_COMPUTE].module = strdup("/usr/bin/mpiexec");
	p.n_processes = 1;
	decode_profile(&p, &prof);
	assert_string_equal(first_mapping(&prof), "/app");
	check_location_mappings(&p, &prof);
	pbt_free(&prof);
	sb_profile_free(&p);
}

static void build_mangled(struct sb_profile *p)
{
	build_samples(p);
	free(p->samples.frames[F_COMPUTE].function);
	p->samples.frames[F_COMPUTE].function = strdup("_ZN6solver7computeEv");
}

/* ---- the command ---- */

/* Run cmd_export with its output captured; returns its status. */
static int run(int argc, char **argv, char *out, size_t len)
{
	int saved_err = dup(2), saved_out = dup(1), fd, r;
	ssize_t n;

	fflush(stderr);
	fflush(stdout);
	fd = open(tmp_path("output.txt"), O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	dup2(fd, 2);
	dup2(fd, 1);
	r = cmd_export(argc, argv);
	fflush(stderr);
	fflush(stdout);
	dup2(saved_err, 2);
	dup2(saved_out, 1);
	close(saved_err);
	close(saved_out);
	n = pread(fd, out, len - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(tmp_path("output.txt"));
	return r;
}

static void test_command_writes_both_kinds(void **state)
{
	char h5[512], out[2048], *text;
	char *perfetto[] = { "export", "perfetto", h5 };
	char *pprof[] = { "export", "pprof", h5 };
	char *plain[] = { "export", "pprof", tmp_path("nosamples.h5") };

	(void)state;
	snprintf(h5, sizeof(h5), "%s", tmp_path("cmd.h5"));
	fx_write_built(h5, build_samples);
	assert_int_equal(run(ARGC(perfetto), perfetto, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "cmd.pftrace"));
	assert_int_equal(run(ARGC(pprof), pprof, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "cmd.pb.gz"));
	text = slurp(tmp_path("cmd.pb.gz"));
	/* gzip's magic number */
	assert_int_equal((unsigned char)text[0], 0x1f);
	assert_int_equal((unsigned char)text[1], 0x8b);
	free(text);
	/* No samples: the one answer every export of samples gives, exit 2, no file. */
	fx_write_built(tmp_path("nosamples.h5"), build);
	assert_int_equal(run(ARGC(plain), plain, out, sizeof(out)), 2);
	assert_non_null(strstr(out, "nosamples.h5: the profile has no CPU or off-CPU samples: "
				    "record with --sample or --offcpu-stacks"));
	assert_int_equal(access(tmp_path("nosamples.pb.gz"), F_OK), -1);
}

/* --no-demangle keeps the symbol table's names; the next command demangles again. */
static void test_command_no_demangle(void **state)
{
	char h5[512], out[4096];
	char *raw[] = { "export", "folded", "--no-demangle", "-o", "-", h5 };
	char *plain[] = { "export", "folded", "-o", "-", h5 };

	(void)state;
	snprintf(h5, sizeof(h5), "%s", tmp_path("mangled.h5"));
	fx_write_built(h5, build_mangled);
	assert_int_equal(run(ARGC(raw), raw, out, sizeof(out)), 0);
	assert_non_null(strstr(out, ";main;_ZN6solver7computeEv 6\n"));
	assert_int_equal(run(ARGC(plain), plain, out, sizeof(out)), 0);
	assert_non_null(strstr(out, ";main;solver::compute() 6\n"));
	assert_null(strstr(out, "_ZN"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perfetto_tracks_per_rank_and_thread),
		cmocka_unit_test(test_perfetto_slices_are_the_calls_nested),
		cmocka_unit_test(test_perfetto_offcpu_counter_follows_the_innermost_call),
		cmocka_unit_test(test_perfetto_leaves_out_calls_that_do_not_nest),
		cmocka_unit_test(test_perfetto_counters_count_per_thread),
		cmocka_unit_test(test_perfetto_counts_add_up_to_the_profile),
		cmocka_unit_test(test_perfetto_thread_of_a_rank_without_calls),
		cmocka_unit_test(test_perfetto_gpu_lanes),
		cmocka_unit_test(test_perfetto_empty_profile_decodes),
		cmocka_unit_test(test_perfetto_samples_on_their_threads),
		cmocka_unit_test(test_perfetto_summed_samples_place_nothing),
		cmocka_unit_test(test_pprof_samples_values_and_types),
		cmocka_unit_test(test_pprof_one_kind_one_sample_type),
		cmocka_unit_test(test_pprof_stacks_end_in_the_region_path),
		cmocka_unit_test(test_pprof_names_as_users_read_them),
		cmocka_unit_test(test_pprof_labels_of_rank_and_thread_0_stay),
		cmocka_unit_test(test_pprof_maps_the_program_first),
		cmocka_unit_test(test_command_writes_both_kinds),
		cmocka_unit_test(test_command_no_demangle),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
