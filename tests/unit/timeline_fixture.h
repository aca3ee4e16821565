/*
 * A profile file whose CPU samples keep their times (/scope_bpf/samples/timeline),
 * for the tests of what shows them. The timeline is written with HDF5's own
 * calls, as docs/FORMAT.md lays it out, not by the writer under test.
 *
 * Rank 0: threads main (tid 4243, the process) and worker (4244), calls
 * solve [12.000000000, 12.000002000] s > step [.000000100, .000001500] on
 * main; rank 1 (pid 5252): solve over the same time. Frames: compute and
 * main in /app, do_syscall_64 in the kernel. Samples, by rank then time:
 * rank 0 main at .000000250 (CPU 2, solve > step, compute < main), worker at
 * .000000500 (CPU 3, solve, main, kernel do_syscall_64), main at .000001000
 * (CPU 2, solve > step, compute < main); rank 1 at .000000300 (CPU 5,
 * outside regions, main).
 */
#ifndef SB_TEST_TIMELINE_FIXTURE_H
#define SB_TEST_TIMELINE_FIXTURE_H

#include <hdf5.h>

#include "fixtures.h"

#define TL_T0 12000000000LL
#define TL_SAMPLES 4

enum { TL_SOLVE, TL_STEP };

static inline void tl_build(struct sb_profile *p)
{
	static const struct sb_thread threads[] = {
		{ 0, 0, 4243, TL_T0, -1, -1, "main" },
		{ 0, 1, 4244, TL_T0, -1, -1, "worker" },
		{ 1, 0, 5252, TL_T0, -1, -1, "rank1" },
	};
	static const struct {
		uint32_t region, rank;
		struct sb_event e;
	} calls[] = {
		{ TL_SOLVE, 0, { TL_T0, TL_T0 + 2000, 0, 1, -1, { -1, -1 } } },
		{ TL_SOLVE, 1, { TL_T0, TL_T0 + 2000, 0, 1, -1, { -1, -1 } } },
		{ TL_STEP, 0, { TL_T0 + 100, TL_T0 + 1500, 0, 2, 1, { -1, -1 } } },
	};
	static const struct sb_frame_sym frames[] = {
		{ "compute", "app.c", 20, "/app", 0x1140, false },
		{ "main", "app.c", 10, "/app", 0x1180, false },
		{ "do_syscall_64", "", -1, "[kernel]", 0xffffffff81000010ull, false },
	};
	static const uint32_t stack_frames[] = { 0, 1, 1, 2 };
	static const struct sb_stack stacks[] = { { 0, 2 }, { 2, 1 }, { 3, 1 } };
	static const struct sb_sample rows[] = {
		{ SB_SAMPLE_CPU, 0, 0, 1, 0, -1, 2, 0 },
		{ SB_SAMPLE_CPU, 0, 1, 0, 1, 2, 1, 0 },
		{ SB_SAMPLE_CPU, 1, 0, -1, 1, -1, 1, 0 },
	};
	struct sb_samples *s = &p->samples;
	struct sb_process pr[2] = {
		{ 4243, 1, 0, TL_T0, -1, -1, "./heat" }, { 5252, 1, 1, TL_T0, -1, -1, "./heat" },
	};
	size_t i;

	sb_profile_init(p);
	p->format = strdup("synthetic");
	assert_int_equal(sb_profile_add_region(p, "solve", "heat.c", 10, "[]"), TL_SOLVE);
	assert_int_equal(sb_profile_add_region(p, "step", "heat.c", 20, "[]"), TL_STEP);
	assert_int_equal(sb_profile_set_int(p, "mpi_size", 2), 0);
	assert_int_equal(sb_profile_set_str(p, "sample_event", "cpu-clock"), 0);
	assert_int_equal(sb_profile_set_int(p, "sample_frequency_hz", 999), 0);
	fx_add_threads(p, threads, 3);
	fx_add_processes(p, pr, 2);
	p->columns = SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID;
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		fx_add_call(p, calls[i].region, calls[i].rank, &calls[i].e);
	s->n_frames = 3;
	s->frames = calloc(3, sizeof(*s->frames));
	assert_non_null(s->frames);
	for (i = 0; i < 3; i++) {
		s->frames[i] = frames[i];
		s->frames[i].function = strdup(frames[i].function);
		s->frames[i].file = strdup(frames[i].file);
		s->frames[i].module = strdup(frames[i].module);
	}
	s->n_stack_frames = 4;
	s->stack_frames = fx_copy(stack_frames, sizeof(stack_frames));
	s->n_stacks = 3;
	s->stacks = fx_copy(stacks, sizeof(stacks));
	s->n_paths = 2;
	s->paths = calloc(2, sizeof(*s->paths));
	assert_non_null(s->paths);
	s->paths[0] = (struct sb_region_path){ -1, strdup("solve") };
	s->paths[1] = (struct sb_region_path){ 0, strdup("step") };
	s->n_samples = 3;
	s->samples = fx_copy(rows, sizeof(rows));
}

static inline void tl_column(hid_t f, const char *name, hid_t ftype, hid_t mtype, const void *v)
{
	hsize_t n = TL_SAMPLES;
	hid_t sp = H5Screate_simple(1, &n, NULL), d;

	d = H5Dcreate2(f, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	assert_true(d >= 0);
	assert_true(H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
	H5Dclose(d);
	H5Sclose(sp);
}

/* The profile of tl_build at path, with its timeline added. */
static inline void tl_write(const char *path)
{
	static const int64_t time[] = { TL_T0 + 250, TL_T0 + 500, TL_T0 + 1000, TL_T0 + 300 };
	static const uint32_t rank[] = { 0, 0, 0, 1 }, cpu[] = { 2, 3, 2, 5 };
	static const int64_t thread[] = { 0, 1, 0, 0 }, where[] = { 1, 0, 1, -1 };
	static const int64_t ustack[] = { 0, 1, 0, 1 }, kstack[] = { -1, 2, -1, -1 };
	hid_t f, g;

	fx_write_built(path, tl_build);
	f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	assert_true(f >= 0);
	g = H5Gcreate2(f, "/scope_bpf/samples/timeline", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	assert_true(g >= 0);
	H5Gclose(g);
	tl_column(f, "/scope_bpf/samples/timeline/time", H5T_STD_I64LE, H5T_NATIVE_INT64, time);
	tl_column(f, "/scope_bpf/samples/timeline/rank", H5T_STD_U32LE, H5T_NATIVE_UINT32, rank);
	tl_column(f, "/scope_bpf/samples/timeline/thread", H5T_STD_I64LE, H5T_NATIVE_INT64, thread);
	tl_column(f, "/scope_bpf/samples/timeline/cpu", H5T_STD_U32LE, H5T_NATIVE_UINT32, cpu);
	tl_column(f, "/scope_bpf/samples/timeline/path", H5T_STD_I64LE, H5T_NATIVE_INT64, where);
	tl_column(f, "/scope_bpf/samples/timeline/ustack", H5T_STD_I64LE, H5T_NATIVE_INT64, ustack);
	tl_column(f, "/scope_bpf/samples/timeline/kstack", H5T_STD_I64LE, H5T_NATIVE_INT64, kstack);
	H5Fclose(f);
}

#endif
