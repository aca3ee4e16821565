/*
 * CUDA activity for the tests of what shows it: two ranks' kernels, a copy,
 * a memset, API calls and a synchronization, meant for cu_build()'s calls
 * (cuda_fixture.h) but usable on any profile (the HTML browser test).
 */
#ifndef SB_TEST_CUDA_ACTS_H
#define SB_TEST_CUDA_ACTS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/model.h"

#define CU_MIB4 4194304

/* An activity with nothing known, to be filled in. */
static inline struct sb_cuda_activity cu_blank(uint32_t rank, int32_t kind, int64_t start,
					       int64_t end)
{
	return (struct sb_cuda_activity){
		.rank = rank, .kind = kind, .device = -1, .context = -1, .stream = -1,
		.correlation = -1, .start = start, .end = end, .name = -1, .bytes = -1,
		.copy_kind = -1, .detail = -1, .thread = -1, .launch_start = -1,
		.launch_end = -1, .call_id = -1, .pair = -1,
	};
}

static inline struct sb_cuda_activity cu_api(uint32_t rank, int32_t kind, int64_t start,
					     int64_t end, int64_t thread, int64_t corr,
					     int64_t detail)
{
	struct sb_cuda_activity a = cu_blank(rank, kind, start, end);

	a.thread = thread;
	a.correlation = corr;
	a.detail = detail;
	return a;
}

static inline struct sb_cuda_activity cu_gpu(uint32_t rank, int32_t kind, int64_t device,
					     int64_t stream, int64_t start, int64_t end,
					     int64_t corr)
{
	struct sb_cuda_activity a = cu_blank(rank, kind, start, end);

	a.device = device;
	a.context = 1;
	a.stream = stream;
	a.correlation = corr;
	return a;
}

/* GPU work a's launch: the API call on thread, inside region call call_id of index row pair. */
static inline void cu_launched(struct sb_cuda_activity *a, int64_t thread, int64_t start,
			       int64_t end, int64_t call_id, int64_t pair)
{
	a->thread = thread;
	a->launch_start = start;
	a->launch_end = end;
	a->call_id = call_id;
	a->pair = pair;
}

/* The activities (rank 0 then rank 1, each by start) and the two kernel names. */
static inline void cu_add_activity(struct sb_profile *p)
{
	struct sb_cuda_activity *v = calloc(8, sizeof(*v));

	assert_non_null(v);
	/* Rank 0, thread 0 launches a C++ kernel on GPU 0 stream 7 inside solve (call 2). */
	v[0] = cu_api(0, SB_CUDA_ACT_RUNTIME, 220, 230, 0, 7, 211);
	v[1] = cu_gpu(0, SB_CUDA_ACT_KERNEL, 0, 7, 260, 400, 7);
	v[1].name = 0;
	v[1].grid[0] = 4, v[1].grid[1] = v[1].grid[2] = 1;
	v[1].block[0] = 256, v[1].block[1] = v[1].block[2] = 1;
	cu_launched(&v[1], 0, 220, 230, 2, 2);
	/* Thread 1 copies 4 MiB to GPU 0 on stream 9 inside its solve (call 3). */
	v[2] = cu_api(0, SB_CUDA_ACT_RUNTIME, 270, 280, 1, 8, 41);
	v[3] = cu_gpu(0, SB_CUDA_ACT_MEMCPY, 0, 9, 300, 500, 8);
	v[3].bytes = CU_MIB4;
	v[3].copy_kind = 1;
	cu_launched(&v[3], 1, 270, 280, 3, 2);
	/* A memset on GPU 1 whose launch was not recorded. */
	v[4] = cu_gpu(0, SB_CUDA_ACT_MEMSET, 1, 7, 600, 650, 9);
	v[4].bytes = 512;
	v[4].detail = 0;
	/* Thread 0 waits for stream 7 inside main. */
	v[5] = cu_api(0, SB_CUDA_ACT_SYNC, 700, 800, 0, 0, 3);
	v[5].stream = 7;
	/* Rank 1 launches an extern "C" kernel inside main (call 1, index row 1). */
	v[6] = cu_api(1, SB_CUDA_ACT_RUNTIME, 300, 310, 0, 3, 211);
	v[7] = cu_gpu(1, SB_CUDA_ACT_KERNEL, 0, 7, 350, 800, 3);
	v[7].name = 1;
	v[7].grid[0] = v[7].grid[1] = v[7].grid[2] = 1;
	v[7].block[0] = 32, v[7].block[1] = v[7].block[2] = 1;
	cu_launched(&v[7], 0, 300, 310, 1, 1);
	p->cuda.acts = v;
	p->cuda.n_acts = 8;
	p->cuda.names = calloc(2, sizeof(char *));
	assert_non_null(p->cuda.names);
	p->cuda.names[0] = strdup("_Z6squarePfi");
	p->cuda.names[1] = strdup("plain_kernel");
	p->cuda.n_names = 2;
}

#endif
