/*
 * Made-up CUDA activity for the test apps that play the CUPTI library
 * (cuda_synth, cuda_omp): host API calls timed for real on the calling
 * thread, the GPU work they "launched" with known durations, kept until the
 * app sends them through the library's own probes, as CUPTI hands back its
 * buffers late. Threads may launch at once.
 */
#ifndef APPS_CUDA_FAKE_H
#define APPS_CUDA_FAKE_H

#include <linux/types.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "busy.h"
#include "cuda_rec.h"
#include "probes.h"
#include "scope_bpf.h"

unsigned short scope_bpf_cuda_batch_semaphore;
unsigned short scope_bpf_cuda_name_semaphore;

#define US 1000ull
#define MAX_RECS 64

static struct sb_cuda_rec recs[MAX_RECS];
static int n_recs;
static __u32 next_correlation = 1;

/* Whether a tracer attached the library's probes. */
static int cuda_traced(void)
{
	return scope_bpf_impl_sem(&scope_bpf_cuda_batch_semaphore) &&
	       scope_bpf_impl_sem(&scope_bpf_cuda_name_semaphore);
}

static struct sb_cuda_rec *add(__u16 kind)
{
	struct sb_cuda_rec *r = &recs[__atomic_fetch_add(&n_recs, 1, __ATOMIC_RELAXED)];

	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->device = 0;
	r->context = 1;
	r->stream = 7;
	return r;
}

/* A runtime API call on this thread, timed now; returns its correlation id. */
static __u32 api_call(__u32 callback_id)
{
	struct sb_cuda_rec *r = add(SB_CUDA_RUNTIME);

	r->correlation = __atomic_fetch_add(&next_correlation, 1, __ATOMIC_RELAXED);
	r->tid = (__u32)syscall(SYS_gettid);
	r->detail = callback_id;
	r->start = now_ns();
	r->end = r->start + 2 * US;
	return r->correlation;
}

/* The GPU side of a launch: it ran later, for gpu_ns. */
static void kernel(__u32 correlation, __u32 name_id, __u64 gpu_ns)
{
	struct sb_cuda_rec *r = add(SB_CUDA_KERNEL);
	int i;

	r->correlation = correlation;
	r->name_id = name_id;
	r->start = now_ns() + 50 * US;
	r->end = r->start + gpu_ns;
	for (i = 0; i < 3; i++) {
		r->grid[i] = i ? 1 : 64;
		r->block[i] = i ? 1 : 256;
	}
}

/* cudaLaunchKernel (callback id 211) of kernel name_id, gpu_ns long. */
static void launch(__u32 name_id, __u64 gpu_ns)
{
	kernel(api_call(211), name_id, gpu_ns);
}

#endif /* APPS_CUDA_FAKE_H */
