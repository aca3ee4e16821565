/* scope-bpf merge: one profile from many, ranks kept, clocks aligned, calls streamed. */
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixtures.h"
#include "analysis/merge.h"
#include "cmd/commands.h"

#define SKEW 123456789LL	/* B's clock runs this far behind A's */

/* One call of a synthetic rank: region, start, end on A's clock. */
struct call {
	const char *region;
	int64_t start, end;
};

static const struct call calls_a[] = {
	{ "solve", 1000, 1100 }, { "solve", 2000, 2300 }, { "solve", 3000, 3050 },
	{ "io", 4000, 4400 }, { "io", 5000, 5001 },
};

static const struct call calls_b[] = {
	{ "comm", 1500, 1600 }, { "solve", 2500, 2700 }, { "solve", 6000, 6600 },
};

/* Everything a recording of one rank on one node holds, its times moved back by skew. */
struct rank_spec {
	uint32_t rank;
	const char *host, *boot;
	int64_t skew;
	int64_t jitter;		/* added to the start offset reading */
	const struct call *calls;
	size_t n;
	unsigned metrics;	/* SB_COL_GPU, SB_COL_OFFCPU: every call gets 7 ns of each */
};

static void add_sample(struct sb_profile *p, uint32_t rank, const char *fn)
{
	struct sb_samples *s = &p->samples;
	static const uint32_t frame0 = 0;
	static const struct sb_stack stack0 = { 0, 1 };
	struct sb_sample row = { SB_SAMPLE_CPU, rank, 0, 0, 0, -1, 7, 0 };
	/* On the rank's own clock: B's, SKEW behind A's. */
	struct sb_timed_sample timed = { 1050 - (rank ? SKEW : 0), rank, 1, 0, 0, 0, -1 };

	s->frames = calloc(1, sizeof(*s->frames));
	assert_non_null(s->frames);
	s->frames[0] = (struct sb_frame_sym){ strdup(fn), strdup("app.c"), 12, strdup("/app"),
					      0x40, false };
	s->n_frames = 1;
	s->stack_frames = fx_copy(&frame0, sizeof(frame0));
	s->n_stack_frames = 1;
	s->stacks = fx_copy(&stack0, sizeof(stack0));
	s->n_stacks = 1;
	s->paths = calloc(1, sizeof(*s->paths));
	assert_non_null(s->paths);
	s->paths[0] = (struct sb_region_path){ -1, strdup("solve") };
	s->n_paths = 1;
	s->samples = fx_copy(&row, sizeof(row));
	s->n_samples = 1;
	s->timeline = fx_copy(&timed, sizeof(timed));
	s->n_timeline = 1;
}

static void add_metadata(struct sb_profile *p, const struct rank_spec *r)
{
	/* Real time - monotonic: larger by skew on the node whose monotonic clock is behind. */
	int64_t off = 1700000000000000000LL + r->skew;

	assert_int_equal(sb_profile_set_str(p, "hostname", r->host), 0);
	assert_int_equal(sb_profile_set_str(p, "boot_id", r->boot), 0);
	assert_int_equal(sb_profile_set_str(p, "source", "scope-bpf"), 0);
	assert_int_equal(sb_profile_set_int(p, "mpi_size", 1), 0);
	assert_int_equal(sb_profile_set_int(p, "lost_events", 2), 0);
	assert_int_equal(sb_profile_set_int(p, "start_time_ns", 500 - r->skew), 0);
	assert_int_equal(sb_profile_set_int(p, "finalize_time_ns", 9000 - r->skew), 0);
	assert_int_equal(sb_profile_set_int(p, SB_META_CLOCK_START, off + r->jitter), 0);
	assert_int_equal(sb_profile_set_int(p, SB_META_CLOCK_END, off + 10), 0);
}

static void build_rank(struct sb_profile *p, const struct rank_spec *r)
{
	struct sb_thread th = { r->rank, 0, 100 + r->rank, 900 - r->skew, -1, 5000, "main" };
	struct sb_process pr = { 100 + r->rank, 1, r->rank, 800 - r->skew, 9500 - r->skew, 0,
				 "./app" };
	struct sb_process launcher = { 50 + r->rank, 1, -1, 700 - r->skew, -1, -1, "mpiexec" };
	struct sb_event e;
	ssize_t reg;
	size_t i;

	sb_profile_init(p);
	p->columns = SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID | r->metrics;
	for (i = 0; i < r->n; i++) {
		reg = sb_profile_find_region(p, r->calls[i].region);
		if (reg < 0)
			reg = sb_profile_add_region(p, r->calls[i].region, "app.c", 10 + (int64_t)i,
						    "[]");
		sb_event_blank(&e);
		e.start = r->calls[i].start - r->skew;
		e.end = r->calls[i].end - r->skew;
		e.thread = 0;
		e.call_id = (int64_t)i;
		if (r->metrics & SB_COL_GPU)
			e.metric[SB_METRIC_GPU] = 7;
		if (r->metrics & SB_COL_OFFCPU)
			e.metric[SB_METRIC_OFFCPU] = 7;
		fx_add_call(p, (uint32_t)reg, r->rank, &e);
	}
	fx_add_threads(p, &th, 1);
	fx_add_processes(p, &launcher, 1);
	fx_add_processes(p, &pr, 1);
	add_sample(p, r->rank, r->rank ? "exchange" : "kernel");
	add_metadata(p, r);
}

static void write_rank(const char *path, const struct rank_spec *r)
{
	struct sb_error err = { .msg = "" };
	struct sb_profile p;

	build_rank(&p, r);
	if (fx_write_h5(path, &p, &err))
		fail_msg("%s", err.msg);
	sb_profile_free(&p);
}

static const struct rank_spec spec_a = { 0, "nodeA.cluster", "boot-a", 0, 0, calls_a, 5, 0 };
static const struct rank_spec spec_b = { 1, "nodeB.cluster", "boot-b", SKEW, 0, calls_b, 3, 0 };

static void merge_ok(const char *const *in, size_t n, const char *out)
{
	struct sb_error err = { .msg = "" };

	if (sb_merge(in, n, out, NULL, &err))
		fail_msg("%s", err.msg);
}

static void read_merged(const char *path, struct sb_profile *p)
{
	struct sb_error err = { .msg = "" };

	if (sb_h5_read(path, p, &err))
		fail_msg("%s", err.msg);
}

static const struct sb_pair *find_pair(const struct sb_profile *p, uint32_t rank,
				       const char *region)
{
	size_t i;

	for (i = 0; i < p->n_pairs; i++)
		if (p->pairs[i].rank == rank &&
		    !strcmp(p->regions[p->pairs[i].region].name, region))
			return &p->pairs[i];
	fail_msg("no row for rank %u, region %s", rank, region);
	return NULL;
}

/* Every call of r is in p, on A's clock, in its region's row of r's rank, and nothing else is. */
static void expect_calls(const struct sb_profile *p, const struct rank_spec *r)
{
	const struct sb_pair *q;
	uint64_t total = 0, k, found;
	size_t i;

	for (i = 0; i < r->n; i++) {
		q = find_pair(p, r->rank, r->calls[i].region);
		for (found = 0, k = q->offset; k < q->offset + q->count; k++)
			found += p->events[k].start == r->calls[i].start &&
				 p->events[k].end == r->calls[i].end &&
				 p->events[k].call_id == (int64_t)i;
		assert_int_equal(found, 1);
	}
	for (i = 0; i < p->n_pairs; i++)
		total += p->pairs[i].rank == r->rank ? p->pairs[i].count : 0;
	assert_int_equal(total, r->n);
}

static int64_t meta_int(const struct sb_profile *p, const char *key)
{
	const struct sb_meta *m = sb_profile_meta(p, key);

	if (!m || !m->is_int)
		fail_msg("no int metadata %s", key);
	return m->i;
}

static const char *meta_str(const struct sb_profile *p, const char *key)
{
	const struct sb_meta *m = sb_profile_meta(p, key);

	if (!m || m->is_int)
		fail_msg("no string metadata %s", key);
	return m->s;
}

static void test_merge_keeps_ranks_regions_threads_processes(void **state)
{
	const char *in[] = { tmp_path("a.h5"), tmp_path("b.h5") };
	struct sb_profile p;
	size_t i;

	(void)state;
	write_rank(in[0], &spec_a);
	write_rank(in[1], &spec_b);
	merge_ok(in, 2, tmp_path("m.h5"));
	read_merged(tmp_path("m.h5"), &p);
	/* Regions unified by name: solve once, in the order first seen. */
	assert_int_equal(p.n_regions, 3);
	assert_string_equal(p.regions[0].name, "solve");
	assert_string_equal(p.regions[1].name, "io");
	assert_string_equal(p.regions[2].name, "comm");
	assert_int_equal(p.n_pairs, 4);
	assert_int_equal(p.n_events, 8);
	expect_calls(&p, &spec_a);
	expect_calls(&p, &spec_b);
	assert_int_equal(find_pair(&p, 1, "solve")->stats.start_minimum, 2500);
	/* Threads and processes of both, on A's clock; the launcher stays rankless. */
	assert_int_equal(p.n_threads, 2);
	assert_int_equal(p.threads[1].rank, 1);
	assert_int_equal(p.threads[1].tid, 101);
	assert_int_equal(p.threads[1].start_ns, 900);
	assert_int_equal(p.threads[1].end_ns, -1);
	assert_int_equal(p.n_processes, 4);
	assert_int_equal(p.processes[2].rank, -1);
	assert_int_equal(p.processes[2].start_ns, 700);
	assert_int_equal(p.processes[3].end_ns, 9500);
	/* Samples appended, their ids moved past A's. */
	assert_int_equal(p.samples.n_samples, 2);
	assert_int_equal(p.samples.samples[1].rank, 1);
	assert_int_equal(p.samples.samples[1].ustack, 1);
	assert_int_equal(p.samples.stacks[1].first, 1);
	assert_int_equal(p.samples.stack_frames[1], 1);
	assert_string_equal(p.samples.frames[1].function, "exchange");
	for (i = 0; i < p.samples.n_samples; i++)
		assert_int_equal(p.samples.samples[i].path, (int64_t)i);
	/* Timed samples too, B's on A's clock. */
	assert_int_equal(p.samples.n_timeline, 2);
	assert_int_equal(p.samples.timeline[1].rank, 1);
	assert_int_equal(p.samples.timeline[1].time, 1050);
	assert_int_equal(p.samples.timeline[1].ustack, 1);
	assert_int_equal(p.samples.timeline[1].path, 1);
	sb_profile_free(&p);
}

/* Timed samples come by rank, then time, whatever order the inputs are given in. */
static void test_timed_samples_by_rank_then_time(void **state)
{
	const char *in[] = { tmp_path("b.h5"), tmp_path("a.h5") };
	struct sb_profile p;

	(void)state;
	write_rank(in[0], &spec_b);
	write_rank(in[1], &spec_a);
	merge_ok(in, 2, tmp_path("m.h5"));
	read_merged(tmp_path("m.h5"), &p);
	assert_int_equal(p.samples.n_timeline, 2);
	assert_int_equal(p.samples.timeline[0].rank, 0);
	assert_int_equal(p.samples.timeline[0].time, 1050 - SKEW);
	assert_int_equal(p.samples.timeline[0].ustack, 1);
	assert_int_equal(p.samples.timeline[1].rank, 1);
	assert_int_equal(p.samples.timeline[1].time, 1050 - SKEW);
	sb_profile_free(&p);
}

static void test_merge_metadata_records_inputs(void **state)
{
	const char *in[] = { tmp_path("a.h5"), tmp_path("b.h5") };
	struct sb_profile p;

	(void)state;
	write_rank(in[0], &spec_a);
	write_rank(in[1], &spec_b);
	merge_ok(in, 2, tmp_path("m.h5"));
	read_merged(tmp_path("m.h5"), &p);
	assert_int_equal(meta_int(&p, "mpi_size"), 2);
	assert_int_equal(meta_int(&p, "num_nodes"), 2);
	assert_int_equal(meta_int(&p, "lost_events"), 4);
	assert_string_equal(meta_str(&p, "hostname"), "nodeA.cluster");
	assert_int_equal(meta_int(&p, "start_time_ns"), 500);
	assert_int_equal(meta_int(&p, "finalize_time_ns"), 9000);
	assert_int_equal(meta_int(&p, "merge_clock_shift_ns_0"), 0);
	assert_int_equal(meta_int(&p, "merge_clock_shift_ns_1"), SKEW);
	expect_has(meta_str(&p, "merge_inputs"),
		   "\"ranks\": \"1\", \"clock\": \"realtime offsets\", "
		   "\"clock_estimate_ns\": 123456789, \"clock_bounds_ns\": [null, null], "
		   "\"clock_witnesses\": 0, \"clock_shift_ns\": 123456789}");
	expect_has(meta_str(&p, "merge_clock_method_1"), "realtime offsets");
	expect_has(meta_str(&p, "merge_inputs"), "\"hostname\": \"nodeB.cluster\"");
	sb_profile_free(&p);
}

/* Both inputs with record_scope scope_a and scope_b, merged; the merge's record_scope. */
static char *merged_scope(const char *scope_a, const char *scope_b)
{
	const char *in[] = { tmp_path("sa.h5"), tmp_path("sb.h5") };
	const char *scope[] = { scope_a, scope_b };
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	char *s;
	size_t i;

	for (i = 0; i < 2; i++) {
		build_rank(&p, i ? &spec_b : &spec_a);
		assert_int_equal(sb_profile_set_str(&p, "record_scope", scope[i]), 0);
		if (fx_write_h5(in[i], &p, &err))
			fail_msg("%s", err.msg);
		sb_profile_free(&p);
	}
	merge_ok(in, 2, tmp_path("sm.h5"));
	read_merged(tmp_path("sm.h5"), &p);
	s = strdup(meta_str(&p, "record_scope"));
	sb_profile_free(&p);
	return s;
}

/* Recorded differently, the inputs merge as "mixed": only a launch rules attaching out. */
static void test_record_scope_is_mixed_when_inputs_differ(void **state)
{
	char *s;

	(void)state;
	s = merged_scope("command", "command");
	assert_string_equal(s, "command");
	free(s);
	s = merged_scope("command", "attached");
	assert_string_equal(s, "mixed");
	free(s);
}

/* One boot of one machine is one clock: differing offset readings move nothing. */
static void test_same_boot_is_not_shifted(void **state)
{
	struct rank_spec b = spec_b;
	const char *in[] = { tmp_path("a.h5"), tmp_path("b_same.h5") };
	struct sb_profile p;

	(void)state;
	b.boot = spec_a.boot;
	b.skew = 0;
	/* The offsets disagree by 7 ns, as two readings on one node do. */
	b.jitter = 7;
	write_rank(in[0], &spec_a);
	write_rank(in[1], &b);
	merge_ok(in, 2, tmp_path("m2.h5"));
	read_merged(tmp_path("m2.h5"), &p);
	assert_int_equal(meta_int(&p, "merge_clock_shift_ns_1"), 0);
	expect_calls(&p, &b);
	sb_profile_free(&p);
}

static void test_conflicting_ranks_name_both_files(void **state)
{
	struct rank_spec b = spec_b;
	const char *in[] = { tmp_path("a.h5"), tmp_path("b0.h5") };
	struct sb_error err = { .msg = "" };
	char *argv[] = { "merge", (char *)in[0], (char *)in[1], "-q", "-o", tmp_path("c.h5"),
			 NULL };

	(void)state;
	b.rank = 0;
	write_rank(in[0], &spec_a);
	write_rank(in[1], &b);
	assert_int_equal(sb_merge(in, 2, tmp_path("c.h5"), NULL, &err), -EINVAL);
	assert_msg(&err, in[1], "rank 0 is also in");
	expect_has(err.msg, in[0]);
	assert_int_equal(cmd_merge(6, argv), SB_EXIT_USAGE);
	assert_int_equal(access(tmp_path("c.h5"), F_OK), -1);
	assert_int_equal(count_tmp_files(), 0);
}

/* One file of a rotated recording of spec_a's node: calls with their ids and parents. */
struct piece_call {
	const char *region;
	int64_t start, end, id, parent;
};

static void write_piece(const char *path, int64_t index, const struct piece_call *c, size_t n)
{
	struct sb_thread th = { 0, 0, 100, 900, -1, 5000, "main" };
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	struct sb_event e;
	ssize_t reg;
	size_t i;

	sb_profile_init(&p);
	p.columns = SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID;
	for (i = 0; i < n; i++) {
		reg = sb_profile_find_region(&p, c[i].region);
		if (reg < 0)
			reg = sb_profile_add_region(&p, c[i].region, "app.c", 3, "[]");
		sb_event_blank(&e);
		e.start = c[i].start;
		e.end = c[i].end;
		e.thread = 0;
		e.call_id = c[i].id;
		e.parent_id = c[i].parent;
		fx_add_call(&p, (uint32_t)reg, 0, &e);
	}
	fx_add_threads(&p, &th, 1);
	add_metadata(&p, &spec_a);
	assert_int_equal(sb_profile_set_int(&p, "rotate_index", index), 0);
	assert_int_equal(sb_profile_set_int(&p, "calls_open_at_start", index + 1), 0);
	if (fx_write_h5(path, &p, &err))
		fail_msg("%s", err.msg);
	sb_profile_free(&p);
}

/*
 * The files of one rotated recording are one input: a row's calls of every
 * file together, sorted by start, and a call whose parent ended in a later
 * file under it again. One file number twice is refused.
 */
static void test_rotated_files_are_joined(void **state)
{
	static const struct piece_call first[] = {
		{ "solve", 2000, 2300, 2, -1 }, { "inner", 1200, 1300, 1, -1 },
	};
	static const struct piece_call second[] = {
		{ "solve", 1000, 1050, 3, -1 }, { "outer", 1100, 1500, 0, -1 },
	};
	const char *in[] = { tmp_path("r1.h5"), tmp_path("r0.h5"), tmp_path("b.h5") };
	const char *twice[] = { tmp_path("r0.h5"), tmp_path("r0b.h5") };
	struct sb_error err = { .msg = "" };
	const struct sb_pair *solve, *inner;
	struct sb_profile p;

	(void)state;
	write_piece(in[0], 1, second, 2);
	write_piece(in[1], 0, first, 2);
	write_piece(twice[1], 0, second, 2);
	write_rank(in[2], &spec_b);
	merge_ok(in, 3, tmp_path("joined.h5"));
	read_merged(tmp_path("joined.h5"), &p);
	assert_int_equal(meta_int(&p, "rotate_files_joined"), 2);
	assert_int_equal(meta_int(&p, "calls_open_at_start"), 1 + 2);	/* each file's own */
	solve = find_pair(&p, 0, "solve");
	assert_int_equal(solve->count, 2);
	assert_int_equal(p.events[solve->offset].start, 1000);
	assert_int_equal(solve->stats.total, 300 + 50);
	inner = find_pair(&p, 0, "inner");
	assert_int_equal(p.events[inner->offset].parent_id, 0);
	assert_int_equal(p.events[solve->offset].parent_id, -1);
	assert_int_equal(find_pair(&p, 0, "outer")->count, 1);
	expect_calls(&p, &spec_b);
	sb_profile_free(&p);
	assert_int_equal(sb_merge(twice, 2, tmp_path("c.h5"), NULL, &err), -EINVAL);
	assert_msg(&err, twice[1], "file 0 of its rotated recording");
}

static void test_command_usage(void **state)
{
	char *no_out[] = { "merge", tmp_path("a.h5"), NULL };
	char *no_in[] = { "merge", "-o", tmp_path("x.h5"), NULL };
	char *missing[] = { "merge", tmp_path("nope.h5"), "-o", tmp_path("x.h5"), NULL };

	(void)state;
	assert_int_equal(cmd_merge(2, no_out), SB_EXIT_USAGE);
	assert_int_equal(cmd_merge(3, no_in), SB_EXIT_USAGE);
	assert_int_equal(cmd_merge(4, missing), SB_EXIT_USAGE);
	assert_int_equal(access(tmp_path("x.h5"), F_OK), -1);
}

/* GPU time may be missing per call: kept. Off-CPU time may not: left out when B lacks it. */
static void test_columns_not_in_every_input(void **state)
{
	struct rank_spec a = spec_a;
	const char *in[] = { tmp_path("a_cols.h5"), tmp_path("b.h5") };
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	const struct sb_pair *q;
	char note[512] = "";
	FILE *f = fmemopen(note, sizeof(note) - 1, "w");

	(void)state;
	assert_non_null(f);
	a.metrics = SB_COL_GPU | SB_COL_OFFCPU;
	write_rank(in[0], &a);
	write_rank(in[1], &spec_b);
	if (sb_merge(in, 2, tmp_path("mc.h5"), f, &err))
		fail_msg("%s", err.msg);
	fclose(f);
	expect_has(note, "left out the event columns that not every input has: offcpu_ns");
	read_merged(tmp_path("mc.h5"), &p);
	assert_true(p.columns & SB_COL_GPU);
	assert_false(p.columns & SB_COL_OFFCPU);
	q = find_pair(&p, 0, "io");
	assert_int_equal(p.events[q->offset].metric[SB_METRIC_GPU], 7);
	assert_int_equal(q->stats.gpu_count, 2);
	q = find_pair(&p, 1, "solve");
	assert_int_equal(p.events[q->offset].metric[SB_METRIC_GPU], -1);
	assert_int_equal(q->stats.gpu_count, 0);
	sb_profile_free(&p);
}

/* A rank whose calls counted one event (record -e events), 7 each. */
static void write_counting_rank(const char *path, const struct rank_spec *r, const char *events)
{
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	size_t i;

	build_rank(&p, r);
	p.columns |= SB_COL_METRIC(SB_METRIC_COUNTER) | SB_COL_METRIC(SB_METRIC_COUNTER_EXCL);
	assert_int_equal(sb_profile_alloc_counters(&p), 0);
	for (i = 0; i < p.n_events; i++) {
		sb_event_set_metric(&p, i, SB_METRIC_COUNTER, 7);
		sb_event_set_metric(&p, i, SB_METRIC_COUNTER_EXCL, 7);
	}
	assert_int_equal(sb_profile_set_str(&p, "counter_events", events), 0);
	if (fx_write_h5(path, &p, &err))
		fail_msg("%s", err.msg);
	sb_profile_free(&p);
}

/* Counter slots merge when every input counted the same events, and are left out when not. */
static void test_counter_columns_only_for_the_same_events(void **state)
{
	const char *same[] = { tmp_path("ca.h5"), tmp_path("cb.h5") };
	const char *other[] = { tmp_path("ca.h5"), tmp_path("cc.h5") };
	struct sb_profile p;

	(void)state;
	write_counting_rank(same[0], &spec_a, "page-faults");
	write_counting_rank(same[1], &spec_b, "page-faults");
	write_counting_rank(other[1], &spec_b, "context-switches");
	merge_ok(same, 2, tmp_path("csame.h5"));
	read_merged(tmp_path("csame.h5"), &p);
	assert_true(p.columns & SB_COL_METRIC(SB_METRIC_COUNTER));
	assert_int_equal(sb_event_metric(&p, &p.events[find_pair(&p, 1, "solve")->offset],
					 SB_METRIC_COUNTER), 7);
	sb_profile_free(&p);
	merge_ok(other, 2, tmp_path("cother.h5"));
	read_merged(tmp_path("cother.h5"), &p);
	assert_false(p.columns & SB_COL_METRIC(SB_METRIC_COUNTER));
	assert_false(p.columns & SB_COL_METRIC(SB_METRIC_COUNTER_EXCL));
	sb_profile_free(&p);
}

/* scope-profiler's schema 1: /rank0/regions/solve/{start_times,end_times}, no root attribute. */
static void write_schema1(const char *path)
{
	static const int64_t starts[] = { 10, 20, 40 }, ends[] = { 15, 33, 55 };
	hsize_t n = 3;
	hid_t f, s, d;

	f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	assert_true(f >= 0);
	H5Gclose(H5Gcreate2(f, "rank0", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
	H5Gclose(H5Gcreate2(f, "rank0/regions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
	H5Gclose(H5Gcreate2(f, "rank0/regions/solve", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
	s = H5Screate_simple(1, &n, NULL);
	d = H5Dcreate2(f, "rank0/regions/solve/start_times", H5T_STD_I64LE, s, H5P_DEFAULT,
		       H5P_DEFAULT, H5P_DEFAULT);
	assert_true(H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, starts) >= 0);
	H5Dclose(d);
	d = H5Dcreate2(f, "rank0/regions/solve/end_times", H5T_STD_I64LE, s, H5P_DEFAULT,
		       H5P_DEFAULT, H5P_DEFAULT);
	assert_true(H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, ends) >= 0);
	H5Dclose(d);
	H5Sclose(s);
	H5Fclose(f);
}

/* A file whose reader holds its events (schema 1) merges beside one streamed from disk. */
static void test_schema1_input_is_merged(void **state)
{
	const char *in[] = { tmp_path("s1.h5"), tmp_path("b.h5") };
	struct sb_profile p;
	const struct sb_pair *q;

	(void)state;
	write_schema1(in[0]);
	write_rank(in[1], &spec_b);
	merge_ok(in, 2, tmp_path("m1.h5"));
	read_merged(tmp_path("m1.h5"), &p);
	q = find_pair(&p, 0, "solve");
	assert_int_equal(q->count, 3);
	assert_int_equal(p.events[q->offset + 1].start, 20);
	assert_int_equal(p.events[q->offset + 2].end, 55);
	/* Without clock readings in the first file nothing can be aligned: B stays as recorded. */
	assert_int_equal(meta_int(&p, "merge_clock_shift_ns_1"), 0);
	expect_has(meta_str(&p, "merge_inputs"), "\"clock\": \"unknown\"");
	assert_int_equal(find_pair(&p, 1, "comm")->count, 1);
	sb_profile_free(&p);
}

/* ---- bounded memory: millions of calls, generated as they are written ---- */

#ifdef __SANITIZE_ADDRESS__
/* ASan's shadow memory makes RSS meaningless: there, only the result is checked. */
#define BIG_CALLS 100000ull
#else
#define BIG_CALLS 1250000ull
#endif
#define BIG_REGIONS 4
#define RSS_CAP_KIB (64 * 1024)

struct gen_stream {
	struct sb_event_stream base;
	uint64_t next;
};

/* Call j of region k (the calls region by region): back to back, never overlapping. */
static void gen_event(uint64_t j, struct sb_event *e)
{
	uint64_t per = BIG_CALLS / BIG_REGIONS, k = j / per, c = j % per;
	int64_t t = (int64_t)(c * BIG_REGIONS + k) * 100;

	sb_event_blank(e);
	*e = (struct sb_event){ .start = t, .end = t + 50, .thread = 0, .call_id = (int64_t)j,
				.parent_id = -1, .metric = { -1, -1 } };
}

static ssize_t gen_read(struct sb_event_stream *s, struct sb_event *rows, int64_t *counters,
			size_t max)
{
	struct gen_stream *g = (struct gen_stream *)s;
	size_t i;

	(void)counters;	/* no counter columns */
	for (i = 0; i < max && g->next < BIG_CALLS; i++)
		gen_event(g->next++, &rows[i]);
	return (ssize_t)i;
}

static void write_big(const char *path, uint32_t rank)
{
	struct sb_thread th = { rank, 0, 7, 0, -1, -1, "main" };
	struct gen_stream g = { .base = { gen_read } };
	struct sb_error err = { .msg = "" };
	uint64_t per = BIG_CALLS / BIG_REGIONS, j;
	char name[16];
	struct sb_event e;
	struct sb_profile p;
	struct sb_pair *q;
	size_t k;

	sb_profile_init(&p);
	p.columns = SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID;
	p.pairs = calloc(BIG_REGIONS, sizeof(*p.pairs));
	assert_non_null(p.pairs);
	for (k = 0; k < BIG_REGIONS; k++) {
		snprintf(name, sizeof(name), "r%zu", k);
		assert_true(sb_profile_add_region(&p, name, "", -1, "[]") >= 0);
		q = &p.pairs[p.n_pairs++];
		*q = (struct sb_pair){ (uint32_t)k, rank, k * per, per, -1, { 0 } };
		sb_stats_init(&q->stats);
		for (j = k * per; j < (k + 1) * per; j++) {
			gen_event(j, &e);
			sb_stats_add(&q->stats, e.start, e.end, -1);
		}
	}
	p.n_events = BIG_CALLS;
	assert_true(sb_profile_add_thread(&p, &th) >= 0);
	assert_int_equal(sb_profile_set_int(&p, "mpi_size", 2), 0);
	if (sb_h5_write(path, &p, &g.base, &err))
		fail_msg("%s", err.msg);
	sb_profile_free(&p);
}

/* The peak RSS of a child that merges the two files, in KiB. */
static long merge_in_child(const char *const *in, const char *out)
{
	struct rusage ru;
	int status;
	pid_t pid;

	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		_exit(sb_merge(in, 2, out, NULL, NULL) ? 1 : 0);
	assert_int_equal(wait4(pid, &status, 0, &ru), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return ru.ru_maxrss;
}

static void test_big_merge_in_bounded_memory(void **state)
{
	const char *in[] = { tmp_path("big0.h5"), tmp_path("big1.h5") };
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	long rss;

	(void)state;
	write_big(in[0], 0);
	write_big(in[1], 1);
	rss = merge_in_child(in, tmp_path("big.h5"));
	fprintf(stderr, "merge of 2 x %llu calls: peak RSS %ld KiB\n", BIG_CALLS, rss);
#ifndef __SANITIZE_ADDRESS__
	assert_true(rss < RSS_CAP_KIB);
#endif
	assert_int_equal(sb_h5_read_opts(tmp_path("big.h5"), &p, SB_H5_READ_LEAN, &err), 0);
	assert_int_equal(p.n_events, 2 * BIG_CALLS);
	assert_int_equal(p.n_pairs, 2 * BIG_REGIONS);
	assert_int_equal(p.pairs[BIG_REGIONS].rank, 1);
	assert_int_equal(p.pairs[BIG_REGIONS].offset, BIG_CALLS);
	assert_int_equal(p.pairs[BIG_REGIONS].count, BIG_CALLS / BIG_REGIONS);
	sb_profile_free(&p);
	unlink(in[0]);
	unlink(in[1]);
	unlink(tmp_path("big.h5"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_keeps_ranks_regions_threads_processes),
		cmocka_unit_test(test_timed_samples_by_rank_then_time),
		cmocka_unit_test(test_merge_metadata_records_inputs),
		cmocka_unit_test(test_record_scope_is_mixed_when_inputs_differ),
		cmocka_unit_test(test_same_boot_is_not_shifted),
		cmocka_unit_test(test_conflicting_ranks_name_both_files),
		cmocka_unit_test(test_command_usage),
		cmocka_unit_test(test_rotated_files_are_joined),
		cmocka_unit_test(test_schema1_input_is_merged),
		cmocka_unit_test(test_columns_not_in_every_input),
		cmocka_unit_test(test_counter_columns_only_for_the_same_events),
		cmocka_unit_test(test_big_merge_in_bounded_memory),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
