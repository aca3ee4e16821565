/* Sampled stacks: HDF5 round trip, hostile tables, per-path shares, folded stacks, SVG flame graph, truncation warning. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <hdf5.h>

#include "export/export.h"
#include "export/samples_export.h"
#include "io/h5read.h"
#include "io/h5write.h"
#include "analysis/frame_names.h"
#include "analysis/samples_report.h"
#include "render/report_views.h"
#include "render/samples_report.h"
#include "fixtures.h"
#include "same_samples.h"
#include "inert_text.h"
#include "json_check.h"

/* ---- a synthetic profile: regions A and A;B on two threads, with CPU and off-CPU samples ---- */

enum { F_MAIN, F_COMPUTE, F_KERNEL_X, F_START, F_LIBC, F_READ, F_SCHED, F_SYSCALL, F_WORKER,
       F_THREAD, F_FOO, N_FRAMES };

static const struct {
	const char *function, *file, *module;
	int64_t line;
	bool inlined;
} frames[N_FRAMES] = {
	[F_MAIN] = { "main", "app.c", "/app", 10, false },
	[F_COMPUTE] = { "compute", "app.c", "/app", 20, false },
	[F_KERNEL_X] = { "kernel_x", "kernel.h", "/app", 5, true },	/* inlined into compute */
	[F_START] = { "_start", "", "/app", -1, false },
	[F_LIBC] = { "__libc_start_main", "", "/lib/libc.so.6", -1, false },
	[F_READ] = { "read", "", "/lib/libc.so.6", -1, false },
	[F_SCHED] = { "__schedule", "", "[kernel]", -1, false },
	[F_SYSCALL] = { "do_syscall_64", "", "[kernel]", -1, false },
	[F_WORKER] = { "worker_loop", "app.c", "/app", 40, false },
	[F_THREAD] = { "start_thread", "", "/lib/libc.so.6", -1, false },
	[F_FOO] = { "", "", "/usr/lib/libfoo.so", -1, false },
};

/* Leaf first. S_SHALLOW ends in compute: the walk stopped in a library without frame pointers. */
enum { S_INLINED, S_COMPUTE, S_READ, S_KERNEL, S_SHALLOW, S_RECURSIVE, N_STACKS };

static const uint32_t stack_ids[] = {
	F_KERNEL_X, F_COMPUTE, F_MAIN, F_LIBC, F_START,		/* S_INLINED */
	F_COMPUTE, F_MAIN, F_LIBC, F_START,			/* S_COMPUTE */
	F_READ, F_WORKER, F_THREAD,				/* S_READ */
	F_SCHED, F_SYSCALL,					/* S_KERNEL */
	F_FOO, F_COMPUTE,					/* S_SHALLOW */
	F_COMPUTE, F_COMPUTE, F_MAIN, F_LIBC, F_START,		/* S_RECURSIVE */
};

static const struct sb_stack stacks[N_STACKS] = {
	{ 0, 5 }, { 5, 4 }, { 9, 3 }, { 12, 2 }, { 14, 2 }, { 16, 5 },
};

enum { P_A, P_AB };

static const struct sb_sample rows[] = {
	{ SB_SAMPLE_CPU, 0, 0, P_AB, S_INLINED, -1, 6, 0 },
	{ SB_SAMPLE_CPU, 0, 0, P_AB, S_COMPUTE, -1, 3, 0 },
	{ SB_SAMPLE_CPU, 0, 1, P_AB, S_INLINED, -1, 1, 0 },
	{ SB_SAMPLE_CPU, 0, 0, P_A, S_RECURSIVE, -1, 4, 0 },
	{ SB_SAMPLE_CPU, 0, 1, -1, S_READ, S_KERNEL, 2, 0 },
	{ SB_SAMPLE_OFFCPU, 0, 1, P_AB, S_READ, S_KERNEL, 3, 3000 },
	{ SB_SAMPLE_OFFCPU, 0, 0, -1, S_COMPUTE, S_KERNEL, 1, 500 },
};

#define N_ROWS (sizeof(rows) / sizeof(rows[0]))

/* Some of the CPU samples on their own, by time: time, rank, CPU, thread, path, stacks. */
static const struct sb_timed_sample timed[] = {
	{ 150, 0, 1, 0, P_A, S_RECURSIVE, -1 },
	{ 250, 0, 2, 1, P_AB, S_INLINED, -1 },
	{ 300, 0, 1, 0, P_AB, S_COMPUTE, -1 },
	{ 700, 0, 3, 1, -1, S_READ, S_KERNEL },
};

#define N_TIMED (sizeof(timed) / sizeof(timed[0]))
#define CPU_TOTAL 16

static const struct sb_event events[] = {
	{ 100, 1000, 0, 1, -1, { -1, 0 } },		/* A */
	{ 200, 600, 0, 2, 1, { -1, 0 } },		/* B inside A */
};

static void build_samples(struct sb_samples *s)
{
	static const char *const names[] = { "A", "B" };
	size_t i;

	s->n_frames = N_FRAMES;
	s->frames = calloc(N_FRAMES, sizeof(*s->frames));
	for (i = 0; i < N_FRAMES; i++)
		s->frames[i] = (struct sb_frame_sym){ strdup(frames[i].function),
						      strdup(frames[i].file), frames[i].line,
						      strdup(frames[i].module), 0x1000 + i * 16,
						      frames[i].inlined };
	s->n_stack_frames = sizeof(stack_ids) / sizeof(stack_ids[0]);
	s->stack_frames = fx_copy(stack_ids, sizeof(stack_ids));
	s->n_stacks = N_STACKS;
	s->stacks = fx_copy(stacks, sizeof(stacks));
	s->n_paths = 2;
	s->paths = calloc(2, sizeof(*s->paths));
	for (i = 0; i < 2; i++)
		s->paths[i] = (struct sb_region_path){ (int64_t)i - 1, strdup(names[i]) };
	s->n_samples = N_ROWS;
	s->samples = fx_copy(rows, sizeof(rows));
	s->n_timeline = N_TIMED;
	s->timeline = fx_copy(timed, sizeof(timed));
}

static void build(struct sb_profile *p)
{
	static const struct sb_thread threads[] = {
		{ 0, 0, 4242, 90, 1100, 800, "main" },
		{ 0, 1, 4243, 95, 1100, 700, "worker" },
	};
	size_t i;

	sb_profile_init(p);
	assert_int_equal(sb_profile_add_region(p, "A", "app.c", 30, NULL), 0);
	assert_int_equal(sb_profile_add_region(p, "B", "app.c", 31, NULL), 1);
	assert_int_equal(sb_profile_set_int(p, "mpi_size", 1), 0);
	assert_int_equal(sb_profile_set_str(p, "source", "scope-bpf"), 0);
	assert_int_equal(sb_profile_set_int(p, "sample_frequency_hz", 999), 0);
	assert_int_equal(sb_profile_set_str(p, "sample_event", "cpu-clock"), 0);
	assert_int_equal(sb_profile_set_int(p, "offcpu_min_block_ns", 10000), 0);
	assert_int_equal(sb_profile_set_int(p, "kernel_stacks", 1), 0);
	fx_add_threads(p, threads, 2);
	p->columns = SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID;
	for (i = 0; i < 2; i++)
		fx_add_pair(p, (uint32_t)i, 0, &events[i], 1);
	build_samples(&p->samples);
}

static void write_good(const char *path)
{
	fx_write_built(path, build);
}

/* ---- storage ---- */


static void test_round_trip_keeps_every_sample(void **state)
{
	const char *path = tmp_path("round.h5");
	struct sb_error err = { { 0 } };
	struct sb_profile a, b;
	const struct sb_meta *m;

	(void)state;
	build(&a);
	if (fx_write_h5(path, &a, &err))
		fail_msg("%s", err.msg);
	if (sb_h5_read(path, &b, &err))
		fail_msg("%s", err.msg);
	assert_same_samples(&a.samples, &b.samples);
	m = sb_profile_meta(&b, "sample_event");
	assert_non_null(m);
	assert_string_equal(m->s, "cpu-clock");
	m = sb_profile_meta(&b, "sample_frequency_hz");
	assert_non_null(m);
	assert_int_equal(m->i, 999);
	sb_profile_free(&a);
	sb_profile_free(&b);
}

/* Profiles without samples get no group, and read back with none. */
static void test_no_samples_no_group(void **state)
{
	const char *path = tmp_path("bare.h5");
	struct sb_error err = { { 0 } };
	struct sb_profile a, b;
	hid_t f;

	(void)state;
	build(&a);
	sb_samples_free(&a.samples);
	if (fx_write_h5(path, &a, &err))
		fail_msg("%s", err.msg);
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	assert_true(f >= 0);
	assert_int_equal(H5Lexists(f, "/scope_bpf", H5P_DEFAULT), 0);
	H5Fclose(f);
	if (sb_h5_read(path, &b, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(b.samples.n_samples, 0);
	assert_null(b.samples.frames);
	sb_profile_free(&a);
	sb_profile_free(&b);
}

/* The timeline is optional: files that kept only the aggregates have no group and read as none. */
static void test_timeline_is_optional(void **state)
{
	const char *path = tmp_path("summed.h5");
	struct sb_error err = { { 0 } };
	struct sb_profile a, b;
	hid_t f;

	(void)state;
	build(&a);
	free(a.samples.timeline);
	a.samples.timeline = NULL;
	a.samples.n_timeline = 0;
	if (fx_write_h5(path, &a, &err))
		fail_msg("%s", err.msg);
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	assert_true(f >= 0);
	assert_true(H5Lexists(f, "/scope_bpf/samples/aggregates", H5P_DEFAULT) > 0);
	assert_int_equal(H5Lexists(f, "/scope_bpf/samples/timeline", H5P_DEFAULT), 0);
	H5Fclose(f);
	if (sb_h5_read(path, &b, &err))
		fail_msg("%s", err.msg);
	assert_same_samples(&a.samples, &b.samples);
	assert_int_equal(b.samples.n_timeline, 0);
	sb_profile_free(&a);
	sb_profile_free(&b);
}

/* Timed samples point where aggregate rows do, and come by rank, then time. */
static void test_bad_timeline(void **state)
{
	const char *path = tmp_path("timeline.h5");
	int64_t v[N_TIMED];
	uint32_t u[N_TIMED];
	size_t i;
	hid_t f;

	(void)state;
	for (i = 0; i < N_TIMED; i++)
		v[i] = timed[i].time;
	v[2] = 200;
	write_good(path);
	h5_replace(path, "/scope_bpf/samples/timeline/time", H5T_STD_I64LE, H5T_NATIVE_INT64, v,
		N_TIMED);
	expect_read_error(path, "timed sample 2: rank 0 at 200 ns comes after rank 0 at 250 ns");

	for (i = 0; i < N_TIMED; i++)
		v[i] = timed[i].thread;
	v[0] = 2;
	write_good(path);
	h5_replace(path, "/scope_bpf/samples/timeline/thread", H5T_STD_I64LE, H5T_NATIVE_INT64, v,
		N_TIMED);
	expect_read_error(path, "timed sample 0: thread 2 is not a thread of rank 0");

	for (i = 0; i < N_TIMED; i++)
		v[i] = timed[i].kstack;
	v[3] = N_STACKS;
	write_good(path);
	h5_replace(path, "/scope_bpf/samples/timeline/kstack", H5T_STD_I64LE, H5T_NATIVE_INT64, v,
		N_TIMED);
	expect_read_error(path, "timed sample 3: stack 6 out of range (6 stacks)");

	for (i = 0; i < N_TIMED; i++)
		u[i] = timed[i].rank;
	u[3] = 1;
	write_good(path);
	h5_replace(path, "/scope_bpf/samples/timeline/rank", H5T_STD_U32LE, H5T_NATIVE_UINT32, u,
		N_TIMED);
	expect_read_error(path, "timed sample 3: rank 1 out of range (1 ranks)");

	/* All of its columns or none. */
	write_good(path);
	f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	assert_true(f >= 0);
	assert_true(H5Ldelete(f, "/scope_bpf/samples/timeline/cpu", H5P_DEFAULT) >= 0);
	H5Fclose(f);
	expect_read_error(path, "/scope_bpf/samples/timeline/cpu is missing");
}

static void test_writer_refuses_invalid_samples(void **state)
{
	const char *path = tmp_path("refused.h5");
	struct sb_error err = { { 0 } };
	struct sb_profile a;
	struct stat st;

	(void)state;
	build(&a);
	a.samples.stack_frames[3] = 77;
	assert_int_equal(fx_write_h5(path, &a, &err), -EINVAL);
	assert_msg(&err, path, "cannot write invalid samples: stack_frames[3]: frame id 77 out of range (11 frames)");
	assert_int_not_equal(stat(path, &st), 0);
	sb_profile_free(&a);
}

static void test_frame_id_out_of_range(void **state)
{
	const char *path = tmp_path("frame.h5");
	uint32_t ids[sizeof(stack_ids) / sizeof(stack_ids[0])];

	(void)state;
	memcpy(ids, stack_ids, sizeof(ids));
	ids[7] = 11;
	write_good(path);
	h5_replace(path, "/scope_bpf/samples/stack_frames", H5T_STD_U32LE, H5T_NATIVE_UINT32, ids,
		sizeof(ids) / sizeof(ids[0]));
	expect_read_error(path, "/scope_bpf/samples: stack_frames[7]: frame id 11 out of range (11 frames)");
}

static void test_region_path_cycle(void **state)
{
	const char *path = tmp_path("cycle.h5");
	static const int64_t parents[] = { 1, 0 };
	static const int64_t self[] = { -1, 1 };

	(void)state;
	write_good(path);
	h5_replace(path, "/scope_bpf/samples/region_paths/parent", H5T_STD_I64LE, H5T_NATIVE_INT64,
		parents, 2);
	expect_read_error(path, "region path 0: parent 1 is not an earlier path");
	write_good(path);
	h5_replace(path, "/scope_bpf/samples/region_paths/parent", H5T_STD_I64LE, H5T_NATIVE_INT64,
		self, 2);
	expect_read_error(path, "region path 1: parent 1 is not an earlier path");
}

static void test_stack_past_the_end(void **state)
{
	const char *path = tmp_path("stack.h5");
	static const uint64_t firsts[] = { 0, 5, 9, 12, 14, 17 };
	static const uint64_t huge[] = { 0, 5, 9, 12, UINT64_MAX, 16 };

	(void)state;
	write_good(path);
	h5_replace(path, "/scope_bpf/samples/stacks/first", H5T_STD_U64LE, H5T_NATIVE_UINT64, firsts,
		6);
	expect_read_error(path, "stack 5: frames 17+5 past the end of stack_frames (21 ids)");
	h5_replace(path, "/scope_bpf/samples/stacks/first", H5T_STD_U64LE, H5T_NATIVE_UINT64, huge, 6);
	expect_read_error(path, "stack 4: frames 18446744073709551615+2 past the end");
}

static void test_bad_sample_rows(void **state)
{
	const char *path = tmp_path("rows.h5");
	int64_t v[N_ROWS];
	uint32_t u[N_ROWS];
	size_t i;

	(void)state;
	for (i = 0; i < N_ROWS; i++)
		v[i] = rows[i].ustack;
	v[4] = N_STACKS;
	write_good(path);
	h5_replace(path, "/scope_bpf/samples/aggregates/ustack", H5T_STD_I64LE, H5T_NATIVE_INT64, v,
		N_ROWS);
	expect_read_error(path, "sample row 4: stack 6 out of range (6 stacks)");

	for (i = 0; i < N_ROWS; i++)
		v[i] = rows[i].path;
	v[2] = -2;
	write_good(path);
	h5_replace(path, "/scope_bpf/samples/aggregates/path", H5T_STD_I64LE, H5T_NATIVE_INT64, v,
		N_ROWS);
	expect_read_error(path, "sample row 2: region path -2 out of range (2 paths)");

	for (i = 0; i < N_ROWS; i++)
		v[i] = rows[i].thread;
	v[0] = 2;
	write_good(path);
	h5_replace(path, "/scope_bpf/samples/aggregates/thread", H5T_STD_I64LE, H5T_NATIVE_INT64, v,
		N_ROWS);
	expect_read_error(path, "sample row 0: thread 2 is not a thread of rank 0");

	for (i = 0; i < N_ROWS; i++)
		u[i] = rows[i].rank;
	u[1] = 1;
	write_good(path);
	h5_replace(path, "/scope_bpf/samples/aggregates/rank", H5T_STD_U32LE, H5T_NATIVE_UINT32, u,
		N_ROWS);
	expect_read_error(path, "sample row 1: rank 1 out of range (1 ranks)");

	for (i = 0; i < N_ROWS; i++)
		u[i] = rows[i].kind;
	u[6] = 7;
	write_good(path);
	h5_replace(path, "/scope_bpf/samples/aggregates/kind", H5T_STD_U32LE, H5T_NATIVE_UINT32, u,
		N_ROWS);
	expect_read_error(path, "sample row 6: unknown kind 7");
}

static void test_bad_columns(void **state)
{
	const char *path = tmp_path("columns.h5");
	static const uint64_t counts[] = { 1, 2, 3 };
	static const uint64_t big[] = { UINT64_MAX, 2, 3, 4, 5, 6, 7 };
	hid_t f;

	(void)state;
	write_good(path);
	h5_replace(path, "/scope_bpf/samples/aggregates/count", H5T_STD_U64LE, H5T_NATIVE_UINT64,
		counts, 3);
	expect_read_error(path, "column lengths differ: /scope_bpf/samples/aggregates/count has 3 rows, expected 7");

	write_good(path);
	h5_replace(path, "/scope_bpf/samples/aggregates/count", H5T_STD_U64LE, H5T_NATIVE_UINT64, big,
		7);
	expect_read_error(path, "counts or times overflow");

	write_good(path);
	f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	assert_true(H5Ldelete(f, "/scope_bpf/samples/frames/module", H5P_DEFAULT) >= 0);
	H5Fclose(f);
	expect_read_error(path, "/scope_bpf/samples/frames/module is missing");

	write_good(path);
	h5_replace(path, "/scope_bpf/samples/frames/line", H5T_STD_U64LE, H5T_NATIVE_UINT64, NULL,
		1ull << 40);
	expect_read_error(path, "/scope_bpf/samples/frames/line declares 1099511627776 rows (limit");

	write_good(path);
	h5_replace(path, "/scope_bpf/samples/region_paths/name", H5T_STD_I64LE, H5T_NATIVE_INT64,
		counts, 2);
	expect_read_error(path, "/scope_bpf/samples/region_paths/name has the wrong type (string expected)");
}

/* ---- report ---- */

static const struct sb_path_stat *find_path(const struct sb_sample_stats *st, int64_t path)
{
	size_t i;

	for (i = 0; i < st->n_paths; i++)
		if (st->paths[i].path == path)
			return &st->paths[i];
	fail_msg("no path %lld", (long long)path);
	return NULL;
}

static void assert_fn(const struct sb_sample_stats *st, const struct sb_path_stat *ps, size_t i,
		      const char *name, uint64_t self, uint64_t total)
{
	assert_true(i < ps->n_fns);
	assert_string_equal(st->names.names[ps->fns[i].fn], name);
	assert_int_equal(ps->fns[i].self, self);
	assert_int_equal(ps->fns[i].total, total);
}

static void test_cpu_shares_per_path(void **state)
{
	const struct sb_path_stat *ps;
	struct sb_sample_stats st;
	struct sb_profile p;

	(void)state;
	build(&p);
	assert_int_equal(sb_sample_stats_build(&st, &p, SB_SAMPLE_CPU, -1), 0);
	assert_int_equal(st.weight, CPU_TOTAL);
	assert_int_equal(st.n_paths, 3);
	/* Heaviest path first. */
	assert_int_equal(st.paths[0].path, P_AB);
	assert_int_equal(st.paths[1].path, P_A);
	assert_int_equal(st.paths[2].path, -1);

	/* A;B: the inlined kernel_x is the innermost frame, so it gets self; both threads add up. */
	ps = find_path(&st, P_AB);
	assert_int_equal(ps->weight, 10);
	assert_fn(&st, ps, 0, "kernel_x", 7, 7);
	assert_fn(&st, ps, 1, "compute", 3, 10);
	assert_fn(&st, ps, 2, "__libc_start_main", 0, 10);
	assert_int_equal(ps->n_fns, 5);

	/* A: compute twice on one stack (recursion) still counts once in total. */
	ps = find_path(&st, P_A);
	assert_int_equal(ps->weight, 4);
	assert_fn(&st, ps, 0, "compute", 4, 4);
	assert_int_equal(ps->n_fns, 4);

	/* Outside regions: a CPU sample in the kernel has the kernel leaf as self. */
	ps = find_path(&st, -1);
	assert_int_equal(ps->weight, 2);
	assert_fn(&st, ps, 0, "__schedule", 2, 2);
	assert_true(st.names.kernel[ps->fns[0].fn]);
	assert_int_equal(ps->n_fns, 5);
	sb_sample_stats_free(&st);

	/* Rank filter: nothing on rank 3. */
	assert_int_equal(sb_sample_stats_build(&st, &p, SB_SAMPLE_CPU, 3), 0);
	assert_int_equal(st.weight, 0);
	assert_int_equal(st.n_paths, 0);
	sb_sample_stats_free(&st);
	sb_profile_free(&p);
}

static void test_offcpu_shares_are_time_weighted(void **state)
{
	const struct sb_path_stat *ps;
	struct sb_sample_stats st;
	struct sb_profile p;

	(void)state;
	build(&p);
	assert_int_equal(sb_sample_stats_build(&st, &p, SB_SAMPLE_OFFCPU, -1), 0);
	assert_int_equal(st.weight, 3500);
	ps = find_path(&st, P_AB);
	assert_int_equal(ps->weight, 3000);
	/* Self is the innermost user frame: every kernel stack off-CPU ends in the scheduler. */
	assert_fn(&st, ps, 0, "read", 3000, 3000);
	ps = find_path(&st, -1);
	assert_int_equal(ps->weight, 500);
	assert_fn(&st, ps, 0, "compute", 500, 500);
	sb_sample_stats_free(&st);
	sb_profile_free(&p);
}

static char *render(const struct sb_profile *p, enum sb_report_format fmt,
		    enum sb_sample_kind kind, unsigned top)
{
	struct report_opts o = { .format = fmt, .rank = -1, .path = "t.h5",
				 .view = &sb_samples_report_view, .sample_kind = kind, .top = top };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(sb_samples_report_render(f, p, &o), 0);
	fclose(f);
	return buf;
}

static void test_report_formats(void **state)
{
	struct sb_profile p;
	char *s;

	(void)state;
	build(&p);
	s = render(&p, SB_REPORT_TEXT, SB_SAMPLE_CPU, 2);
	assert_non_null(strstr(s, "samples   CPU, 16 samples at 999 Hz (cpu-clock); top 2"));
	assert_non_null(strstr(s, "\nA;B  10 samples (62.5%)\n"));
	assert_non_null(strstr(s, "(outside regions)  2 samples (12.5%)"));
	assert_non_null(strstr(s, "  70.0%   70.0%     7      7  kernel_x\n"));
	assert_non_null(strstr(s, "  30.0%  100.0%     3     10  compute\n"));
	assert_non_null(strstr(s, "__schedule [k]\n"));
	/* --top 2: outside regions has five functions, two are shown. */
	assert_non_null(strstr(s, "do_syscall_64 [k]\n"));
	assert_null(strstr(s, "worker_loop"));
	assert_null(strstr(s, "truncated"));
	free(s);

	s = render(&p, SB_REPORT_TEXT, SB_SAMPLE_OFFCPU, 10);
	assert_non_null(strstr(s, "samples   off-CPU, 3.50 us blocked (blocks of 10.0 us and more)"));
	assert_non_null(strstr(s, "A;B  3.00 us (85.7%)"));
	free(s);

	s = render(&p, SB_REPORT_JSON, SB_SAMPLE_CPU, 10);
	assert_non_null(strstr(s, "\"kind\": \"cpu\", \"unit\": \"samples\", \"rank\": null, \"total\": 16"));
	assert_non_null(strstr(s, "{\"path\": [\"A\", \"B\"], \"total\": 10, \"percent\": 62.5"));
	assert_non_null(strstr(s, "{\"function\": \"compute\", \"kernel\": false, \"self\": 3, \"total\": 10, \"self_percent\": 30.0, \"total_percent\": 100.0}"));
	assert_non_null(strstr(s, "{\"path\": null, \"total\": 2"));
	assert_non_null(strstr(s, "\"truncated_stacks\": false"));
	free(s);

	s = render(&p, SB_REPORT_CSV, SB_SAMPLE_CPU, 10);
	assert_non_null(strstr(s, "path,path_total,function,kernel,self,total,self_percent,total_percent\n"));
	assert_non_null(strstr(s, "\nA;B,10,kernel_x,0,7,7,70.0,70.0\n"));
	assert_non_null(strstr(s, "\n,2,__schedule,1,2,2,100.0,100.0\n"));
	free(s);
	sb_profile_free(&p);
}

static int parse(struct report_opts *o, struct sb_error *err, const char *a, const char *b,
		 const char *c)
{
	char *argv[] = { "report", (char *)a, (char *)b, (char *)c, NULL };
	int argc = 1;

	while (argc < 4 && argv[argc])
		argc++;
	return report_parse_args(argc, argv, o, err);
}

static void test_report_options(void **state)
{
	struct sb_error err = { { 0 } };
	struct report_opts o;

	(void)state;
	assert_int_equal(parse(&o, &err, "f.h5", NULL, NULL), 0);
	assert_null(o.view);
	assert_int_equal(o.top, 10);
	assert_int_equal(parse(&o, &err, "--samples", "f.h5", NULL), 0);
	assert_ptr_equal(o.view, &sb_samples_report_view);
	assert_int_equal(o.sample_kind, SB_SAMPLE_CPU);
	assert_int_equal(parse(&o, &err, "--samples=offcpu", "f.h5", NULL), 0);
	assert_int_equal(o.sample_kind, SB_SAMPLE_OFFCPU);
	/* --offcpu alone implies --samples; a bare --samples after it keeps off-CPU. */
	assert_int_equal(parse(&o, &err, "--offcpu", "--samples", "f.h5"), 0);
	assert_ptr_equal(o.view, &sb_samples_report_view);
	assert_int_equal(o.sample_kind, SB_SAMPLE_OFFCPU);
	assert_int_equal(parse(&o, &err, "--samples", "--top=3", "f.h5"), 0);
	assert_int_equal(o.top, 3);
	assert_int_equal(parse(&o, &err, "--top", "0", "f.h5"), -EINVAL);
	assert_string_equal(err.msg, "--top: '0' is not a count from 1");
	assert_int_equal(parse(&o, &err, "--samples=gpu", "f.h5", NULL), -EINVAL);
	assert_string_equal(err.msg, "--samples: 'gpu' is not one of cpu, offcpu");
	/* --no-demangle holds for the command it is given to, not the next one. */
	assert_int_equal(parse(&o, &err, "--samples", "--no-demangle", "f.h5"), 0);
	assert_false(sb_frame_names_demangle());
	assert_int_equal(parse(&o, &err, "--samples", "f.h5", NULL), 0);
	assert_true(sb_frame_names_demangle());
}

static void test_truncation_warning(void **state)
{
	uint64_t n, cut;
	struct sb_profile p;
	char *s;

	(void)state;
	build(&p);
	/* Every user stack starts at _start or start_thread. */
	assert_false(sb_samples_truncated(&p, SB_SAMPLE_CPU, &n, &cut));
	assert_int_equal(n, CPU_TOTAL);
	assert_int_equal(cut, 0);

	/* 6 of 16 samples in a stack that stops at compute: 37.5% looks cut. */
	p.samples.samples[0].ustack = S_SHALLOW;
	assert_true(sb_samples_truncated(&p, SB_SAMPLE_CPU, &n, &cut));
	assert_int_equal(cut, 6);
	s = render(&p, SB_REPORT_TEXT, SB_SAMPLE_CPU, 10);
	/* Where they break, not advice to use a flag the user may have used. */
	expect_has(s, "warning: stacks look truncated: 38% of the user stacks do not start at "
		      "main or a thread start; 100% of those end in app (compute): code there "
		      "keeps no frame pointer (see docs/SAMPLING.md)\n");
	assert_null(strstr(s, "-fno-omit-frame-pointer"));
	free(s);
	s = render(&p, SB_REPORT_JSON, SB_SAMPLE_CPU, 10);
	expect_has(s, "\"truncated_stacks\": true, \"truncated_percent\": 37.5, "
		      "\"truncated_end_module\": \"/app\", \"truncated_end_function\": \"compute\"}");
	free(s);
	/* A system library's frames end most of them: it is named. */
	p.samples.samples[1].ustack = S_SHALLOW;
	p.samples.samples[3].ustack = S_SHALLOW;
	p.samples.stack_frames[stacks[S_SHALLOW].first + 1] = F_READ;
	p.samples.stack_frames[stacks[S_SHALLOW].first] = F_FOO;
	s = render(&p, SB_REPORT_TEXT, SB_SAMPLE_CPU, 10);
	expect_has(s, "; 100% of those end in libc.so.6 (read): code there keeps no frame pointer");
	free(s);
	p.samples.stack_frames[stacks[S_SHALLOW].first + 1] = F_COMPUTE;
	p.samples.samples[1].ustack = S_COMPUTE;
	p.samples.samples[3].ustack = S_RECURSIVE;

	/* 3 of 16 (19%) is under the threshold. */
	p.samples.samples[0].ustack = S_INLINED;
	p.samples.samples[1].ustack = S_SHALLOW;
	assert_false(sb_samples_truncated(&p, SB_SAMPLE_CPU, &n, &cut));

	/* A stack as deep as the kernel's limit was cut whatever it ends in. */
	p.samples.samples[1].ustack = S_INLINED;
	p.samples.stacks[S_INLINED].depth = 127;
	free(p.samples.stack_frames);
	p.samples.n_stack_frames = 200;
	p.samples.stack_frames = calloc(200, sizeof(uint32_t));
	p.samples.stack_frames[126] = F_START;
	assert_true(sb_samples_truncated(&p, SB_SAMPLE_CPU, &n, &cut));
	assert_int_equal(cut, 10);
	s = render(&p, SB_REPORT_TEXT, SB_SAMPLE_CPU, 10);
	expect_has(s, "; most are 127 frames deep, the kernel's limit\n");
	free(s);
	sb_profile_free(&p);
}

/* ---- folded stacks ---- */

static char *folded(const struct sb_profile *p, enum sb_sample_kind kind)
{
	struct sb_error err = { { 0 } };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (sb_export_folded(f, p, kind, &err))
		fail_msg("%s", err.msg);
	fclose(f);
	return buf;
}

/* Parse every line as "frame;frame;... count"; returns the sum of the counts. */
static uint64_t sum_lines(char *text, uint64_t *in_ab, uint64_t *in_a)
{
	char *line, *save = NULL, *sp, *end;
	uint64_t sum = 0, v;

	*in_ab = *in_a = 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		sp = strrchr(line, ' ');
		assert_non_null(sp);
		v = strtoull(sp + 1, &end, 10);
		assert_true(*end == '\0' && v > 0);
		*sp = '\0';
		assert_non_null(strchr(line, ';'));
		sum += v;
		if (!strncmp(line, "A;B;", 4))
			*in_ab += v;
		else if (!strncmp(line, "A;", 2))
			*in_a += v;
	}
	return sum;
}

static void test_folded_stacks(void **state)
{
	uint64_t ab, a;
	struct sb_profile p;
	char *s;

	(void)state;
	build(&p);
	s = folded(&p, SB_SAMPLE_CPU);
	/* Region path outermost, then the user stack from _start; two threads merged. */
	assert_non_null(strstr(s, "A;B;_start;__libc_start_main;main;compute;kernel_x 7\n"));
	assert_non_null(strstr(s, "A;B;_start;__libc_start_main;main;compute 3\n"));
	assert_non_null(strstr(s, "A;_start;__libc_start_main;main;compute;compute 4\n"));
	assert_non_null(strstr(s, "start_thread;worker_loop;read;do_syscall_64_[k];__schedule_[k] 2\n"));
	assert_null(strstr(s, "[rank"));
	assert_int_equal(sum_lines(s, &ab, &a), CPU_TOTAL);
	assert_int_equal(ab, 10);
	assert_int_equal(a, 4);
	free(s);

	s = folded(&p, SB_SAMPLE_OFFCPU);
	assert_non_null(strstr(s, "A;B;start_thread;worker_loop;read;do_syscall_64_[k];__schedule_[k] 3000\n"));
	assert_int_equal(sum_lines(s, &ab, &a), 3500);
	free(s);
	sb_profile_free(&p);
}

static void test_folded_escapes_and_ranks(void **state)
{
	struct sb_profile p;
	char *s;

	(void)state;
	build(&p);
	free(p.samples.frames[F_COMPUTE].function);
	p.samples.frames[F_COMPUTE].function = strdup("ops;x\nnew");
	assert_int_equal(sb_profile_set_int(&p, "mpi_size", 2), 0);
	p.samples.samples[3].rank = 1;
	s = folded(&p, SB_SAMPLE_CPU);
	assert_non_null(strstr(s, "[rank 0];A;B;_start;__libc_start_main;main;ops:x new;kernel_x 7\n"));
	assert_non_null(strstr(s, "[rank 1];A;_start;__libc_start_main;main;ops:x new;ops:x new 4\n"));
	free(s);
	sb_profile_free(&p);
}

/* ---- flame graph ---- */

static void check_xml(const char *path)
{
	char cmd[700];

	if (access("/usr/bin/xmllint", X_OK)) {
		if (getenv("CI") && !strcmp(getenv("CI"), "true"))
			fail_msg("xmllint is missing (install libxml2-utils)");
		print_message("xmllint not found: skipping the well-formedness check\n");
		return;
	}
	snprintf(cmd, sizeof(cmd), "/usr/bin/xmllint --noout '%s'", path);
	assert_int_equal(system(cmd), 0);
}

static char *svg(const struct sb_profile *p, const char *name, int kind)
{
	struct sb_error err = { { 0 } };
	const char *path = tmp_path(name);
	char *buf;
	FILE *f = fopen(path, "w+");
	long len;
	int r;

	assert_non_null(f);
	r = kind < 0 ? sb_export_flamegraph(f, p, &err) : sb_export_flamegraph_kind(f, p, kind, &err);
	if (r)
		fail_msg("%s", err.msg);
	len = ftell(f);
	buf = calloc(1, (size_t)len + 1);
	rewind(f);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	check_xml(path);
	return buf;
}

static void test_flamegraph_svg(void **state)
{
	struct sb_error err = { { 0 } };
	struct sb_profile p;
	char *s;

	(void)state;
	build(&p);
	/* Names that XML must escape, and bytes that are not UTF-8. */
	free(p.samples.frames[F_WORKER].function);
	p.samples.frames[F_WORKER].function = strdup("operator<<(a&b, \"q\") \xff\x01]]>");
	s = svg(&p, "both.svg", -1);
	assert_non_null(strstr(s, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
	assert_non_null(strstr(s, "<script type=\"text/ecmascript\"><![CDATA["));
	assert_non_null(strstr(s, "<title>kernel_x&#10;7 samples, 43.75%</title>"));
	assert_non_null(strstr(s, "<title>A&#10;14 samples, 87.50%</title>"));
	assert_non_null(strstr(s, "<title>all&#10;16 samples, 100.00%</title>"));
	assert_non_null(strstr(s, "operator&lt;&lt;(a&amp;b, &quot;q&quot;) \xef\xbf\xbd ]]&gt;"));
	/* Both kinds: both graphs, off-CPU hidden until the toggle shows it. */
	assert_non_null(strstr(s, "<g class=\"graph\" id=\"cpu\" data-total=\"16\" data-unit=\"samples\">"));
	assert_non_null(strstr(s, "<g class=\"graph\" id=\"offcpu\" data-total=\"3500\" data-unit=\"ns\" display=\"none\">"));
	assert_non_null(strstr(s, "<title>read&#10;3.00 us, 85.71%</title>"));
	free(s);

	s = svg(&p, "offcpu.svg", SB_SAMPLE_OFFCPU);
	assert_null(strstr(s, "id=\"cpu\""));
	assert_non_null(strstr(s, "<g class=\"graph\" id=\"offcpu\" data-total=\"3500\" data-unit=\"ns\">"));
	free(s);

	sb_samples_free(&p.samples);
	assert_int_equal(sb_export_flamegraph(stdout, &p, &err), -EINVAL);
	assert_string_equal(err.msg, "the profile has no CPU or off-CPU samples: record with "
			    "--sample or --offcpu-stacks");
	sb_profile_free(&p);
}

/* ---- demangled names, marker helpers folded ---- */

static void rename_frame(struct sb_profile *p, unsigned frame, const char *name)
{
	free(p->samples.frames[frame].function);
	p->samples.frames[frame].function = strdup(name);
}

/* Function, region and event names come from the traced program and the file. */
static void test_report_escapes_hostile_names(void **state)
{
	struct sb_profile p;
	char *s;

	(void)state;
	build(&p);
	rename_frame(&p, F_KERNEL_X, HOSTILE);
	free(p.samples.paths[1].name);
	p.samples.paths[1].name = strdup(HOSTILE);
	assert_non_null(p.samples.paths[1].name);
	assert_int_equal(sb_profile_set_str(&p, "sample_event", HOSTILE), 0);
	s = render(&p, SB_REPORT_TEXT, SB_SAMPLE_CPU, 2);
	expect_inert(s);
	expect_has(s, " at 999 Hz (" HOSTILE_SHOWN "); top 2");
	expect_has(s, "\nA;" HOSTILE_SHOWN "  10 samples (62.5%)\n");
	expect_has(s, "  70.0%   70.0%     7      7  " HOSTILE_SHOWN "\n");
	free(s);
	s = render(&p, SB_REPORT_CSV, SB_SAMPLE_CPU, 10);
	expect_inert(s);
	expect_has(s, "\nA;" HOSTILE_SHOWN ",10," HOSTILE_SHOWN ",0,7,7,70.0,70.0\n");
	free(s);
	sb_profile_free(&p);
}

#define CXX_COMPUTE "_ZN6solver7computeEv"
#define RUST_WORKER "_ZN4core3fmt5write17h0123456789abcdefE"

static void test_names_demangled(void **state)
{
	const struct sb_path_stat *ps;
	struct sb_sample_stats st;
	struct sb_profile p;
	char *s;

	(void)state;
	build(&p);
	rename_frame(&p, F_COMPUTE, CXX_COMPUTE);
	rename_frame(&p, F_WORKER, RUST_WORKER);
	s = folded(&p, SB_SAMPLE_CPU);
	assert_non_null(strstr(s, "A;B;_start;__libc_start_main;main;solver::compute() 3\n"));
	/* Rust's legacy names lose the crate hash too. */
	assert_non_null(strstr(s, "start_thread;core::fmt::write;read;"));
	assert_null(strstr(s, "_ZN"));
	free(s);
	assert_int_equal(sb_sample_stats_build(&st, &p, SB_SAMPLE_CPU, -1), 0);
	ps = find_path(&st, P_A);
	assert_fn(&st, ps, 0, "solver::compute()", 4, 4);
	sb_sample_stats_free(&st);
	s = svg(&p, "demangled.svg", SB_SAMPLE_CPU);
	assert_non_null(strstr(s, "<title>solver::compute()&#10;"));
	free(s);

	/* --no-demangle: the names as the symbol table has them. */
	sb_frame_names_set_demangle(false);
	s = folded(&p, SB_SAMPLE_CPU);
	sb_frame_names_set_demangle(true);
	assert_non_null(strstr(s, "main;" CXX_COMPUTE " 3\n"));
	assert_non_null(strstr(s, "start_thread;" RUST_WORKER ";read;"));
	free(s);
	sb_profile_free(&p);
}

static void test_display_names(void **state)
{
	char *s;

	(void)state;
	s = sb_frame_display_name("_ZN3foo3barE");
	assert_string_equal(s, "foo::bar");
	free(s);
	/* Not a hash: "h" and 16 characters, but not all hex. */
	s = sb_frame_display_name("_ZN3foo17h0123456789abcdegE");
	assert_string_equal(s, "foo::h0123456789abcdeg");
	free(s);
	/* Rust v0 names stay raw: libstdc++ does not know them. */
	s = sb_frame_display_name("_RNvCs1234_7mycrate3foo");
	assert_string_equal(s, "_RNvCs1234_7mycrate3foo");
	free(s);
	s = sb_frame_display_name("main");
	assert_string_equal(s, "main");
	free(s);
	assert_true(sb_frame_is_marker_helper("scope_bpf_impl_begin"));
	assert_true(sb_frame_is_marker_helper("scope_bpf_impl_scope::~scope_bpf_impl_scope()"));
	assert_true(sb_frame_is_marker_helper("scope_bpf_begin_named"));
	assert_true(sb_frame_is_marker_helper("scope_bpf_end_named_n"));
	assert_true(sb_frame_is_marker_helper("__scope_bpf_MOD_scope_bpf_begin"));
	assert_false(sb_frame_is_marker_helper("scope_bpf_begin_named_x"));
	assert_false(sb_frame_is_marker_helper("scope_bpf_impl"));
	assert_false(sb_frame_is_marker_helper("my_scope_bpf_impl_x"));
}

/*
 * kernel_x (inlined into compute, the leaf of 7 samples in A;B) becomes a
 * marker helper: its samples are compute's, in every stack output. The
 * destructor's mangled name is a helper too, demangled or not.
 */
static void test_marker_helpers_folded(void **state)
{
	static const char *const helpers[] = { "scope_bpf_impl_begin",
					       "_ZN20scope_bpf_impl_scopeD2Ev" };
	const struct sb_path_stat *ps;
	struct sb_sample_stats st;
	struct sb_profile p;
	size_t i, demangle;
	char *s;

	(void)state;
	for (i = 0; i < 2; i++) {
		for (demangle = 0; demangle < 2; demangle++) {
			build(&p);
			rename_frame(&p, F_KERNEL_X, helpers[i]);
			sb_frame_names_set_demangle(demangle);
			s = folded(&p, SB_SAMPLE_CPU);
			assert_non_null(strstr(s, "A;B;_start;__libc_start_main;main;compute 10\n"));
			assert_null(strstr(s, "scope_bpf"));
			free(s);
			assert_int_equal(sb_sample_stats_build(&st, &p, SB_SAMPLE_CPU, -1), 0);
			sb_frame_names_set_demangle(true);
			ps = find_path(&st, P_AB);
			assert_fn(&st, ps, 0, "compute", 10, 10);
			assert_int_equal(ps->n_fns, 4);
			sb_sample_stats_free(&st);
			s = svg(&p, "helpers.svg", SB_SAMPLE_CPU);
			assert_null(strstr(s, "scope_bpf"));
			assert_non_null(strstr(s, "<title>compute&#10;10 samples, 62.50%</title>"));
			free(s);
			sb_profile_free(&p);
		}
	}
}

/* ---- speedscope: sampled profiles beside the evented ones ---- */

static char *speedscope(const struct sb_profile *p)
{
	struct sb_error err = { { 0 } };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (sb_export_speedscope(f, p, &err))
		fail_msg("%s", err.msg);
	fclose(f);
	return buf;
}

/* The weight of samples[i], after checking its frames exist; *path: leading region frames. */
static int64_t sampled_row(const struct jv *prof, const struct jv *frames, size_t i, size_t *path)
{
	const struct jv *stack = &jneed(prof, "samples", J_ARR)->items[i];
	size_t k;

	assert_int_equal(stack->t, J_ARR);
	assert_true(stack->n > 0);
	*path = 0;
	for (k = 0; k < stack->n; k++) {
		assert_true(stack->items[k].num >= 0 && stack->items[k].num < frames->n);
		if (*path == k && stack->items[k].num < 2)	/* regions A and B are frames 0, 1 */
			(*path)++;
	}
	return (int64_t)jneed(prof, "weights", J_ARR)->items[i].num;
}

/*
 * Each sampled profile's weights add up to its endValue, and per kind and
 * region path to what sb_sample_stats sums: the samples themselves.
 */
static void test_speedscope_sampled_profiles(void **state)
{
	const struct jv *profiles, *frames, *prof;
	int64_t by_depth[2][3] = { { 0 } }, sum, w;
	size_t i, k, path, evented = 0, sampled = 0;
	struct sb_profile p;
	struct jv doc;
	bool cpu;
	char *out;

	(void)state;
	build(&p);
	out = speedscope(&p);
	json_parse(out, &doc);
	frames = jneed(jneed(&doc, "shared", J_OBJ), "frames", J_ARR);
	/* Regions keep their frames: the evented and sampled profiles share them. */
	assert_string_equal(jstr(&frames->items[0], "name"), "A");
	assert_string_equal(jstr(&frames->items[1], "name"), "B");
	profiles = jneed(&doc, "profiles", J_ARR);
	for (i = 0; i < profiles->n; i++) {
		prof = &profiles->items[i];
		if (!strcmp(jstr(prof, "type"), "evented")) {
			assert_int_equal(sampled, 0);	/* evented first: activeProfileIndex 0 */
			evented++;
			continue;
		}
		assert_string_equal(jstr(prof, "type"), "sampled");
		sampled++;
		cpu = !strcmp(jstr(prof, "unit"), "none");
		assert_true(cpu || !strcmp(jstr(prof, "unit"), "nanoseconds"));
		assert_int_equal(jneed(prof, "samples", J_ARR)->n, jneed(prof, "weights", J_ARR)->n);
		for (k = 0, sum = 0; k < jneed(prof, "weights", J_ARR)->n; k++) {
			w = sampled_row(prof, frames, k, &path);
			assert_true(w > 0 && path < 3);
			by_depth[cpu][path] += w;
			sum += w;
		}
		assert_int_equal(jint(prof, "endValue"), sum);
	}
	assert_int_equal(evented, 1);
	/* CPU on both threads of rank 0, off-CPU on both: four sampled profiles. */
	assert_int_equal(sampled, 4);
	assert_string_equal(jstr(&profiles->items[1], "name"), "rank 0: main (tid 4242)");
	/* CPU: 10 in A;B, 4 in A, 2 outside; off-CPU: 3000 in A;B, 500 outside. */
	assert_int_equal(by_depth[1][2], 10);
	assert_int_equal(by_depth[1][1], 4);
	assert_int_equal(by_depth[1][0], 2);
	assert_int_equal(by_depth[0][2], 3000);
	assert_int_equal(by_depth[0][1], 0);
	assert_int_equal(by_depth[0][0], 500);
	assert_int_equal(by_depth[1][0] + by_depth[1][1] + by_depth[1][2], CPU_TOTAL);
	expect_has(out, "{\"name\":\"__schedule_[k]\"}");
	expect_has(out, "{\"name\":\"compute\",\"file\":\"app.c\"}");
	jv_free(&doc);
	free(out);

	/* Without samples: only the evented profile. */
	sb_samples_free(&p.samples);
	out = speedscope(&p);
	assert_null(strstr(out, "\"sampled\""));
	free(out);
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_keeps_every_sample),
		cmocka_unit_test(test_no_samples_no_group),
		cmocka_unit_test(test_timeline_is_optional),
		cmocka_unit_test(test_bad_timeline),
		cmocka_unit_test(test_writer_refuses_invalid_samples),
		cmocka_unit_test(test_frame_id_out_of_range),
		cmocka_unit_test(test_region_path_cycle),
		cmocka_unit_test(test_stack_past_the_end),
		cmocka_unit_test(test_bad_sample_rows),
		cmocka_unit_test(test_bad_columns),
		cmocka_unit_test(test_cpu_shares_per_path),
		cmocka_unit_test(test_offcpu_shares_are_time_weighted),
		cmocka_unit_test(test_report_formats),
		cmocka_unit_test(test_report_escapes_hostile_names),
		cmocka_unit_test(test_report_options),
		cmocka_unit_test(test_truncation_warning),
		cmocka_unit_test(test_folded_stacks),
		cmocka_unit_test(test_folded_escapes_and_ranks),
		cmocka_unit_test(test_flamegraph_svg),
		cmocka_unit_test(test_names_demangled),
		cmocka_unit_test(test_display_names),
		cmocka_unit_test(test_marker_helpers_folded),
		cmocka_unit_test(test_speedscope_sampled_profiles),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
