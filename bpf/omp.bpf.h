/* SPDX-License-Identifier: GPL-2.0 */
/*
 * OpenMP regions of gcc's libgomp, a part of region.bpf.c (one object: its
 * maps, its frame code). Entry and return probes on libgomp's entry points
 * and on the outlined bodies gcc makes of each construct (`f._omp_fn.N`)
 * open and close frames on the thread's region stack, so every thread of a
 * team shows its share nested in what it had open. Which body is a parallel
 * region's and which a task's is learnt from the call that started it.
 * docs/OPENMP.md.
 */
#ifndef SB_OMP_BPF_H
#define SB_OMP_BPF_H

#include "omp.h"

struct omp_body_key {
	__u32 tgid;
	__u32 pad;
	__u64 fn;		/* the body's address in the process */
};

/* Key: (process, body address). Value: the region its runs are (enum sb_omp_op). Inserted when
 * GOMP_parallel*, GOMP_teams_reg, GOMP_task* are entered; LRU: unused bodies age out. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SB_OMP_MAX_BODIES);
	__type(key, struct omp_body_key);
	__type(value, __u32);
} omp_bodies SEC(".maps");

/* Key: enum sb_omp_op. Value: 1 once the region was described to user space. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SB_OMP_N_REGIONS);
	__type(key, __u32);
	__type(value, __u8);
} omp_described SEC(".maps");

/* The body fn, started by this call, runs as region op on whichever threads run it. */
static __always_inline void omp_mark_body(__u32 tgid, __u64 fn, __u32 op)
{
	struct omp_body_key key = { .tgid = tgid, .fn = fn };

	bpf_map_update_elem(&omp_bodies, &key, &op, BPF_ANY);
}

/* The region a body entered at fn runs as; -1: not started by a call seen (no frame). */
static __always_inline int omp_body_region(__u32 tgid, __u64 fn)
{
	struct omp_body_key key = { .tgid = tgid, .fn = fn };
	__u32 *op = bpf_map_lookup_elem(&omp_bodies, &key);

	return op ? (int)*op : -1;
}

/* Name the region op the first time it is used; a lost record is sent again next time. */
static __always_inline void omp_describe(__u32 op)
{
	__u8 *done = bpf_map_lookup_elem(&omp_described, &op);
	struct sb_omp_event *e;

	if (!done || *done)
		return;
	e = reserve_event(sizeof(*e));
	if (!e) {
		count(SB_CNT_LOST_OTHER, 1);
		return;
	}
	e->type = SB_EV_OMP;
	e->op = op;
	e->name_hash = sb_omp_name_hash(op);
	bpf_ringbuf_submit(e, submit_flags());
	*done = 1;
}

static __always_inline void omp_push(struct sb_proc *proc, __u32 tgid, __u32 tid, __u32 op,
				     __u64 cookie, __u64 now)
{
	omp_describe(op);
	push_frame(proc, tgid, tid, sb_omp_name_hash(op), SB_OMP_SITE_TAG | cookie, now);
}

static __always_inline __u32 omp_frame_op(const struct sb_frame *f)
{
	return (f->site & SB_OMP_SITE_TAG) ? (__u32)(f->site & SB_OMP_OP_MASK) : SB_OMP_N_REGIONS;
}

/* A body starts on a thread that waited for its team (host teams run one after another). */
static __always_inline void omp_end_join(__u32 tgid, __u32 tid, __u64 now)
{
	struct sb_thread_state *th = bpf_map_lookup_elem(&threads, &tid);
	__u32 d;

	if (!th || th->overflow)
		return;
	d = th->depth;
	if (d > 0 && d <= SB_MAX_DEPTH &&
	    omp_frame_op(&th->frames[(d - 1) & (SB_MAX_DEPTH - 1)]) == SB_OMP_JOIN)
		pop_frame(th, tgid, tid, (int)d - 1, now);
}

SEC("?uprobe")	/* loaded only when OpenMP regions are traced */
int omp_enter(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns(), cookie;
	__u32 tgid = id >> 32, tid = (__u32)id, op;
	struct sb_proc *proc;
	int body;

	KEEP_TASK_STACK(ctx);
	if (!recording)
		return 0;
	proc = bpf_map_lookup_elem(&procs, &tgid);
	if (!proc || !call_cookie(ctx, tgid, &cookie))
		return 0;
	op = cookie & SB_OMP_OP_MASK;
	switch (op) {
	case SB_OMP_SPAWN:	/* entry only: the task runs later, its body probes time it */
		omp_mark_body(tgid, PT_REGS_PARM1(ctx), SB_OMP_TASK);
		return 0;
	case SB_OMP_PARALLEL:
	case SB_OMP_TEAMS:
		omp_mark_body(tgid, PT_REGS_PARM1(ctx), SB_OMP_IMPLICIT_TASK);
		break;
	case SB_OMP_BODY:
		/* At a uprobe's entry the instruction pointer is the probed address: the body's. */
		body = omp_body_region(tgid, PT_REGS_IP(ctx));
		if (body < 0)
			return 0;
		op = (__u32)body;
		omp_end_join(tgid, tid, now);
		break;
	}
	if (op >= SB_OMP_N_REGIONS)
		return 0;
	call_keep_for_return(ctx, tid, cookie);
	omp_push(proc, tgid, tid, op, cookie, now);
	return 0;
}

SEC("?uretprobe")
int omp_exit(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns(), cookie;
	__u32 tgid = id >> 32, tid = (__u32)id, op;
	struct sb_thread_state *th;
	struct sb_proc *proc;
	int i;

	KEEP_TASK_STACK(ctx);
	if (!recording)
		return 0;
	proc = bpf_map_lookup_elem(&procs, &tgid);
	th = bpf_map_lookup_elem(&threads, &tid);
	/* Without attach cookies, none kept: its entry opened nothing. */
	if (!proc || !th || !call_return_cookie(ctx, tid, &cookie))
		return 0;
	if (th->overflow) {
		th->overflow--;
		return 0;
	}
	op = cookie & SB_OMP_OP_MASK;
	/* None: entered before tracing began, or a body no call seen started. */
	i = find_site_frame(tid, SB_OMP_SITE_TAG | cookie);
	if (i < 0)
		return 0;
	/* The fork's join, opened when its body returned on this thread, ends with it. */
	if (i + 1 < SB_MAX_DEPTH && (__u32)i + 1 == th->depth - 1 &&
	    omp_frame_op(&th->frames[(i + 1) & (SB_MAX_DEPTH - 1)]) == SB_OMP_JOIN)
		pop_frame(th, tgid, tid, i + 1, now);
	pop_frame(th, tgid, tid, i, now);
	if (op != SB_OMP_BODY || i == 0)
		return 0;
	/* The body of a fork this thread made: from here it waits for the rest of the team. */
	op = omp_frame_op(&th->frames[(i - 1) & (SB_MAX_DEPTH - 1)]);
	if (op == SB_OMP_PARALLEL || op == SB_OMP_TEAMS)
		omp_push(proc, tgid, tid, SB_OMP_JOIN, SB_OMP_JOIN, now);
	return 0;
}

#endif
