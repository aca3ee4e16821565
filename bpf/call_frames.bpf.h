/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A library's calls as frames on the region stacks, a part of region.bpf.c:
 * what the sources that probe a library's functions share (MPI calls,
 * OpenMP constructs, CUDA runtime calls). Each such frame carries a site of
 * its own that no marker descriptor can have, so a return finds its frame.
 */
#ifndef SB_CALL_FRAMES_BPF_H
#define SB_CALL_FRAMES_BPF_H

#define SB_CALL_MAX_ARGS 12	/* MPI_Sendrecv's */

/*
 * The integer and pointer arguments at a function's entry, all read at once
 * (the verifier refuses context reads at computed offsets). Beyond the
 * registers (6 on x86-64, 8 on arm64) they are on the stack: above the return
 * address on x86-64, from sp on arm64. A failed stack read gives zeros.
 */
static __always_inline void call_args(struct pt_regs *ctx, __u64 *a)
{
	a[0] = PT_REGS_PARM1(ctx);
	a[1] = PT_REGS_PARM2(ctx);
	a[2] = PT_REGS_PARM3(ctx);
	a[3] = PT_REGS_PARM4(ctx);
	a[4] = PT_REGS_PARM5(ctx);
#if defined(__TARGET_ARCH_x86)
	a[5] = ctx->r9;
	bpf_probe_read_user(&a[6], 6 * sizeof(*a), (void *)(PT_REGS_SP(ctx) + 8));
#elif defined(__TARGET_ARCH_arm64)
	a[5] = ((const volatile struct user_pt_regs *)ctx)->regs[5];
	a[6] = ((const volatile struct user_pt_regs *)ctx)->regs[6];
	a[7] = ((const volatile struct user_pt_regs *)ctx)->regs[7];
	bpf_probe_read_user(&a[8], 4 * sizeof(*a), (void *)PT_REGS_SP(ctx));
#else
#error "library call arguments: only x86-64 and arm64 are supported"
#endif
}

/*
 * Which probe fired. Where the kernel has attach cookies (5.15), the probe's
 * own; before, the recorder keeps them by address: at a uprobe's entry the
 * instruction pointer is the probed address (the kernel puts it back on the
 * breakpoint before the handlers run), and call_addrs maps it, per process,
 * to its probe's cookie (record/sources/call_addrs.c). A return probe knows
 * only where the call returns to, so the entry leaves the cookie for it in
 * call_returns, under the thread's stack pointer at the call.
 */

/* Key: (process, run-time address of a probed function). Value: its probe's cookie. Written by
 * the recorder for each traced process that maps the function's file, deleted at its exit.
 * Created only where the kernel has no attach cookies. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SB_CALL_MAX_ADDRS);
	__type(key, struct sb_call_addr_key);
	__type(value, __u64);
} call_addrs SEC(".maps");

struct call_return_key {
	__u32 tid;
	__u32 pad;
	__u64 sp;		/* the stack pointer at the function's first instruction */
};

/*
 * Calls entered at one stack pointer, the last on top: a probed function that
 * ends in a jump to another (gcc's parallel bodies end so in GOMP_barrier)
 * hands it its return address, and the kernel runs both return probes at the
 * one return, the last entered first. A call that never returned (longjmp)
 * stays below the others; the oldest goes when the stack is full.
 */
#define SB_CALL_CHAIN 4
struct call_chain {
	__u64 cookie[SB_CALL_CHAIN];
	__u32 n;
	__u32 pad;
};

/* Key: (thread, stack pointer at a probed call's entry). Value: the probes' cookies. Pushed at
 * the entry, popped by the return; LRU: a call that never returns (exit, exec) ages out.
 * Created only where the kernel has no attach cookies. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SB_MAX_THREADS * 2);
	__type(key, struct call_return_key);
	__type(value, struct call_chain);
} call_returns SEC(".maps");

/* Where the stack pointer is at a call's return, from where it was at its entry. */
#if defined(__TARGET_ARCH_x86)
#define SB_RETURN_SP_MOVE 8	/* the return popped its address */
#else
#define SB_RETURN_SP_MOVE 0	/* arm64 returns through the link register */
#endif

/* The cookie of the probed function at addr in process tgid; false when none is known. */
static __always_inline bool call_addr_cookie(__u32 tgid, __u64 addr, __u64 *cookie)
{
	struct sb_call_addr_key key = { .tgid = tgid, .addr = addr };
	__u64 *c = bpf_map_lookup_elem(&call_addrs, &key);

	if (!c)
		return false;
	*cookie = *c;
	return true;
}

/*
 * The cookie of the probe at this function entry; false when the recorder
 * has not filled in the process yet. A child forked a moment ago runs its
 * parent's image: the parent's addresses serve until its own are in.
 */
static __always_inline bool call_cookie(struct pt_regs *ctx, __u32 tgid, __u64 *cookie)
{
	struct task_struct *task;

	if (use_attach_cookie) {
		*cookie = bpf_get_attach_cookie(ctx);
		return true;
	}
	if (call_addr_cookie(tgid, PT_REGS_IP(ctx), cookie))
		return true;
	task = (struct task_struct *)bpf_get_current_task();
	return call_addr_cookie(BPF_CORE_READ(task, real_parent, tgid), PT_REGS_IP(ctx), cookie);
}

/* At a function entry: its cookie, for its return probe (nothing to do with attach cookies). */
static __always_inline void call_keep_for_return(struct pt_regs *ctx, __u32 tid, __u64 cookie)
{
	struct call_return_key key = { .tid = tid, .sp = PT_REGS_SP(ctx) };
	struct call_chain *c, first = { .cookie = { cookie }, .n = 1 };
	__u32 n;
	int i;

	if (use_attach_cookie)
		return;
	c = bpf_map_lookup_elem(&call_returns, &key);
	if (!c || !c->n || c->n > SB_CALL_CHAIN) {
		bpf_map_update_elem(&call_returns, &key, &first, BPF_ANY);
		return;
	}
	n = c->n;
	if (n == SB_CALL_CHAIN) {
		for (i = 0; i < SB_CALL_CHAIN - 1; i++)
			c->cookie[i] = c->cookie[i + 1];
		n--;
	}
	/*
	 * Clang knows n < SB_CALL_CHAIN here and drops the mask; 5.10's verifier
	 * cannot follow its bounds there ("unbounded memory access"): keep it.
	 */
	barrier_var(n);
	c->cookie[n & (SB_CALL_CHAIN - 1)] = cookie;
	c->n = n + 1;
}

/* At a function's return: its probe's cookie; false when its entry left none. */
static __always_inline bool call_return_cookie(struct pt_regs *ctx, __u32 tid, __u64 *cookie)
{
	struct call_return_key key = { .tid = tid, .sp = PT_REGS_SP(ctx) - SB_RETURN_SP_MOVE };
	struct call_chain *c;
	__u32 n;

	if (use_attach_cookie) {
		*cookie = bpf_get_attach_cookie(ctx);
		return true;
	}
	c = bpf_map_lookup_elem(&call_returns, &key);
	if (!c || !c->n || c->n > SB_CALL_CHAIN)
		return false;
	n = c->n - 1;
	barrier_var(n);		/* the mask kept, as in call_keep_for_return */
	*cookie = c->cookie[n & (SB_CALL_CHAIN - 1)];
	c->n = n;
	if (!n)
		bpf_map_delete_elem(&call_returns, &key);
	return true;
}

/*
 * A call the library makes inside one of its traced calls (the innermost
 * open frame is one of site's) is part of that call: not a region. It counts
 * as overflow, which its return unwinds without touching the stack.
 */
static __always_inline bool call_inside(__u32 tid, __u64 site)
{
	struct sb_thread_state *th = bpf_map_lookup_elem(&threads, &tid);
	__u32 d;

	if (!th)
		return false;
	d = th->depth;
	/* Beyond the stack, push_frame counts it as overflow. */
	if (th->overflow || !d || d > SB_MAX_DEPTH ||
	    th->frames[(d - 1) & (SB_MAX_DEPTH - 1)].site != site)
		return false;
	th->overflow++;
	return true;
}

/*
 * Index of thread tid's innermost open frame with this site, or -1. Global,
 * verified once (as find_frame): inlined, each of its 64 returns was a
 * constant that the caller's pop_frame was walked again with, past 6.1's
 * million instructions in cuda_host_exit.
 */
__noinline int find_site_frame(__u32 tid, __u64 site)
{
	struct sb_thread_state *th = bpf_map_lookup_elem(&threads, &tid);
	__u32 d, n, i;

	if (!th)
		return -1;
	d = th->depth;
	for (n = 0; n < SB_MAX_DEPTH; n++) {
		if (n >= d)
			break;
		i = (d - 1 - n) & (SB_MAX_DEPTH - 1);
		if (th->frames[i].site == site)
			return (int)i;
	}
	return -1;
}

static __always_inline __u64 call_mix(__u64 h, __u64 v)
{
	return (h ^ v) * FNV_PRIME;
}

/* A name hash's last step, mixing every bit into every other (splitmix64). */
static __always_inline __u64 call_hash_end(__u64 h)
{
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
	return h ^ (h >> 31);
}

/*
 * Send a call's description (size bytes at desc) the first time its name
 * hash is seen; names is an LRU hash of the hashes described (an evicted one
 * is described again: the collector keeps the first). A description the ring
 * buffer had no room for is tried again at the next call; until then the
 * collector drops the calls it cannot name.
 */
static __always_inline void describe_once(void *names, __u64 hash, void *desc, __u64 size)
{
	__u8 one = 1;

	if (bpf_map_lookup_elem(names, &hash))
		return;
	if (bpf_ringbuf_output(&events, desc, size, submit_flags())) {
		count(SB_CNT_LOST_OTHER, 1);
		return;
	}
	bpf_map_update_elem(names, &hash, &one, BPF_ANY);
}

#endif
