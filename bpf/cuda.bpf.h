/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CUDA activity (record --cuda), a part of region.bpf.c. The CUPTI injection
 * library (cupti/) hands over batches of fixed-size records and kernel names
 * through its USDT probes scope_bpf_cuda:batch and :name; these programs copy
 * them into the one ring buffer, so they reach the recorder in order with the
 * region calls. A record that finds no room is counted, never waited for.
 */
#ifndef SB_CUDA_BPF_H
#define SB_CUDA_BPF_H

#include "cuda_rec.h"

/* A batch is too big for the BPF stack: it is assembled here, then copied out. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sb_cuda_batch_event);
} cuda_batch_buf SEC(".maps");

static __always_inline bool cuda_traced(__u32 tgid)
{
	return recording && bpf_map_lookup_elem(&procs, &tgid);
}

SEC("?usdt")	/* never sleepable: its batch buffer is per CPU */
int BPF_USDT(cuda_batch, void *recs, __u64 n)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, zero = 0;
	struct sb_cuda_batch_event *e;
	__u64 size;

	if (!cuda_traced(tgid))
		return 0;
	e = bpf_map_lookup_elem(&cuda_batch_buf, &zero);
	if (!e || n == 0)
		return 0;
	/* The library never sends more; a larger count is not its batch: take none of it. */
	if (n > SB_CUDA_BATCH_MAX) {
		count(SB_CNT_CUDA_LOST, 1);
		return 0;
	}
	size = n * sizeof(struct sb_cuda_rec);
	if (bpf_probe_read_user(e->recs, size, recs)) {
		count(SB_CNT_CUDA_LOST, n);
		return 0;
	}
	e->type = SB_EV_CUDA;
	e->msg = SB_CUDA_MSG_BATCH;
	e->tgid = tgid;
	e->n = n;
	e->time = bpf_ktime_get_ns();
	if (bpf_ringbuf_output(&events, e, offsetof(struct sb_cuda_batch_event, recs) + size,
			       submit_flags()))
		count(SB_CNT_CUDA_LOST, n);
	return 0;
}

/*
 * A name in a page this program could not fault in: user space reads it
 * while the process waits (struct sb_cuda_name_unread_event). An empty name
 * in its place would pass for the kernel's own and hide it for good.
 */
static __always_inline int cuda_name_unread(__u32 tgid, __u32 id, __u64 addr)
{
	struct sb_cuda_name_unread_event *e = reserve_event(sizeof(*e));

	if (!e) {
		count(SB_CNT_CUDA_LOST, 1);
		return 0;
	}
	e->type = SB_EV_CUDA;
	e->msg = SB_CUDA_MSG_NAME_UNREAD;
	e->tgid = tgid;
	e->id = id;
	e->addr = addr;
	e->pad = 0;
	e->stop_seq = hold_current(tgid);
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	return 0;
}

SEC("?usdt")	/* sleepable where the marker programs are (region.bpf.c) */
int BPF_USDT(cuda_name, __u64 id, const char *name)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct sb_cuda_name_event *e;

	if (!cuda_traced(tgid))
		return 0;
	/* A name the process never read may sit in a page not yet faulted in. */
	fault_in_str((__u64)name, sizeof(e->name));
	e = reserve_event(sizeof(*e));
	if (!e) {
		count(SB_CNT_CUDA_LOST, 1);
		return 0;
	}
	e->type = SB_EV_CUDA;
	e->msg = SB_CUDA_MSG_NAME;
	e->tgid = tgid;
	e->id = id;
	if (read_user_str(e->name, sizeof(e->name), (__u64)name) < 0) {
		bpf_ringbuf_discard(e, 0);
		return cuda_name_unread(tgid, id, (__u64)name);
	}
	bpf_ringbuf_submit(e, submit_flags());
	return 0;
}

#endif /* SB_CUDA_BPF_H */
