/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CUDA runtime calls as regions, a part of region.bpf.c (one object: its
 * maps, its frame code), for processes CUPTI was not injected into (record
 * -p, no --cuda). The entry probe on a libcudart function reads its
 * arguments, opens a frame on the thread's region stack named by a hash of
 * (process, operation, arguments) and describes that hash to user space the
 * first time; the return probe closes the frame. docs/CUDA.md, "Host probes".
 */
#ifndef SB_CUDA_HOST_BPF_H
#define SB_CUDA_HOST_BPF_H

#include "cuda_host.h"

/* Key: a CUDA call's name hash. Value: unused. Hashes described to user space (describe_once). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SB_CUDA_HOST_MAX_NAMES);
	__type(key, __u64);
	__type(value, __u8);
} cuda_host_names SEC(".maps");

/* A dim3 passed by value: x and y in one register, z in the low half of the next. */
static __always_inline void cuda_dim3(__u32 *d, __u64 xy, __u64 z)
{
	d[0] = (__u32)xy;
	d[1] = (__u32)(xy >> 32);
	d[2] = (__u32)z;
}

/*
 * The arguments of one call, from 1 as the prototypes count them. On x86-64
 * and arm64 alike a dim3 (12 bytes) takes two argument slots.
 */
static __always_inline void cuda_host_read(struct pt_regs *ctx, __u32 cookie,
					   struct sb_cuda_host_event *e)
{
	__u64 a[SB_CALL_MAX_ARGS];

	call_args(ctx, a);
	e->op = cookie & SB_CUDA_OP_MASK;
	e->bytes = -1;
	switch (e->op) {
	case SB_CUDA_HOST_LAUNCH:	/* func, gridDim, blockDim, args, sharedMem, stream */
		e->func = a[0];
		cuda_dim3(e->grid, a[1], a[2]);
		cuda_dim3(e->block, a[3], a[4]);
		e->stream = a[7];
		break;
	case SB_CUDA_HOST_MEMCPY_ASYNC:	/* dst, src, count, kind, stream */
		e->stream = a[4];
		/* fall through */
	case SB_CUDA_HOST_MEMCPY:
		e->bytes = (__s64)a[2];
		e->kind = (__u32)a[3];
		break;
	case SB_CUDA_HOST_MEMSET_ASYNC:	/* devPtr, value, count, stream */
		e->stream = a[3];
		/* fall through */
	case SB_CUDA_HOST_MEMSET:
		e->bytes = (__s64)a[2];
		break;
	case SB_CUDA_HOST_STREAM_SYNCHRONIZE:
		e->stream = a[0];
		break;
	case SB_CUDA_HOST_MALLOC:	/* devPtr, size */
		e->bytes = (__s64)a[1];
		break;
	}
	/* The _ptsz forms' stream 0 is the per-thread default stream, as cudaStreamPerThread. */
	if ((cookie & SB_CUDA_PER_THREAD) && !e->stream)
		e->stream = SB_CUDA_STREAM_PER_THREAD;
}

static __always_inline __u64 cuda_host_hash(const struct sb_cuda_host_event *e)
{
	__u64 h = SB_CUDA_HOST_SEED;

	h = call_mix(h, (__u64)e->tgid << 32 | e->op);
	h = call_mix(h, (__u64)e->bytes);
	h = call_mix(h, (__u64)e->kind);
	h = call_mix(h, e->func);
	h = call_mix(h, e->stream);
	h = call_mix(h, e->grid[0] | (__u64)e->grid[1] << 32);
	h = call_mix(h, e->grid[2] | (__u64)e->block[0] << 32);
	h = call_mix(h, e->block[1] | (__u64)e->block[2] << 32);
	return call_hash_end(h);
}

static __always_inline int cuda_host_enter_at(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct sb_cuda_host_event e = { .type = SB_EV_CUDA_HOST, .tgid = tgid };
	struct sb_proc *proc;

	if (!recording)
		return 0;
	proc = bpf_map_lookup_elem(&procs, &tgid);
	/* A runtime call inside another (the _ptds forms may call the plain ones): part of it. */
	if (!proc || call_inside(tid, SB_CUDA_HOST_SITE))
		return 0;
	cuda_host_read(ctx, (__u32)bpf_get_attach_cookie(ctx), &e);
	e.name_hash = cuda_host_hash(&e);
	describe_once(&cuda_host_names, e.name_hash, &e, sizeof(e));
	/* Pushed even when undescribed, so the return closes this frame and no other. */
	push_frame(proc, tgid, tid, e.name_hash, SB_CUDA_HOST_SITE, now);
	return 0;
}

/* loaded only when CUDA calls are traced on the host */
LIB_CALL_PROGRAM("?uprobe", cuda_host_enter)

static __always_inline int cuda_host_exit_at(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct sb_thread_state *th;
	int i;

	(void)ctx;
	if (!recording || !bpf_map_lookup_elem(&procs, &tgid))
		return 0;
	th = bpf_map_lookup_elem(&threads, &tid);
	if (!th)
		return 0;
	if (th->overflow) {
		th->overflow--;
		return 0;
	}
	/* None: the call began before tracing did (record -p); nothing to close. */
	i = find_site_frame(tid, SB_CUDA_HOST_SITE);
	if (i >= 0)
		pop_frame(th, tgid, tid, i, now);
	return 0;
}

LIB_CALL_PROGRAM("?uretprobe", cuda_host_exit)

#endif
