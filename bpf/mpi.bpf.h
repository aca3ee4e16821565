/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MPI calls as regions, a part of region.bpf.c (one object: its maps, its frame
 * code). The entry probe reads the operation's arguments, opens a frame on the
 * thread's region stack named by a hash of (operation, bytes, peer, root, tag,
 * communicator), and describes that hash to user space the first time it is
 * seen; the return probe closes the frame like a region end. docs/MPI.md.
 */
#ifndef SB_MPI_BPF_H
#define SB_MPI_BPF_H

#define SB_MPI_MAX_NAMES 65536
#define SB_MPI_IN_PLACE ((__u64)-1)	/* MPI_IN_PLACE in MPICH and Open MPI */
#define SB_MPICH_COMM_WORLD 0x44000000	/* MPICH's mpi.h */

/* Key: an MPI name hash. Value: unused. Hashes described to user space; LRU: an evicted one
 * is described again, and the collector keeps the first. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SB_MPI_MAX_NAMES);
	__type(key, __u64);
	__type(value, __u8);
} mpi_names SEC(".maps");

#define SB_MPI_MAX_ARGS 12	/* MPI_Sendrecv's */

/*
 * The integer and pointer arguments at a function's entry, all read at once
 * (the verifier refuses context reads at computed offsets). Beyond the
 * registers (6 on x86-64, 8 on arm64) they are on the stack: above the return
 * address on x86-64, from sp on arm64. A failed stack read gives zeros.
 */
static __always_inline void mpi_args(struct pt_regs *ctx, __u64 *a)
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
#error "MPI call arguments: only x86-64 and arm64 are supported"
#endif
}

/* The n-th argument, from 1 as the MPI standard counts them. */
static __always_inline __u64 mpi_arg(const __u64 *a, int n)
{
	return a[n - 1];
}

static __always_inline __s32 mpi_int(const __u64 *a, int n)
{
	return (__s32)mpi_arg(a, n);
}

/* count x size of the datatype handle in argument type_arg; -1 when unknown. */
static __always_inline __s64 mpi_bytes(const __u64 *a, __u32 abi, int count_arg, int type_arg)
{
	__s32 n = mpi_int(a, count_arg);
	__s64 size;

	if (!(abi & SB_MPI_ABI_MPICH) || n < 0)
		return -1;
	size = sb_mpich_type_size((__u32)mpi_arg(a, type_arg));
	return size < 0 ? -1 : n * size;
}

/* A collective's bytes from its send side, or its receive side where the send side is unused. */
static __always_inline __s64 mpi_side_bytes(const __u64 *a, __u32 abi, bool recv_side)
{
	return recv_side ? mpi_bytes(a, abi, 5, 6) : mpi_bytes(a, abi, 2, 3);
}

static __always_inline __s32 mpi_comm(const __u64 *a, __u32 abi, int n)
{
	return abi & SB_MPI_ABI_MPICH ? mpi_int(a, n) : -1;
}

/* The arguments of one call, as docs/MPI.md describes them per operation. */
static __always_inline void mpi_read(struct pt_regs *ctx, __u32 cookie, struct sb_mpi_event *e)
{
	__u32 abi = cookie & ~SB_MPI_OP_MASK;
	__u64 a[SB_MPI_MAX_ARGS];

	mpi_args(ctx, a);
	e->op = cookie & SB_MPI_OP_MASK;
	e->bytes = -1;
	e->peer = -1;
	e->root = -1;
	e->tag = -1;
	e->comm = -1;
	switch (e->op) {
	case SB_MPI_SEND:
	case SB_MPI_SSEND:
	case SB_MPI_RECV:
	case SB_MPI_SENDRECV:
		e->bytes = mpi_bytes(a, abi, 2, 3);
		e->peer = mpi_int(a, 4);
		e->tag = mpi_int(a, 5);
		e->comm = mpi_comm(a, abi, e->op == SB_MPI_SENDRECV ? 11 : 6);
		break;
	case SB_MPI_BARRIER:
		e->bytes = 0;
		e->comm = mpi_comm(a, abi, 1);
		break;
	case SB_MPI_BCAST:
		e->bytes = mpi_bytes(a, abi, 2, 3);
		e->root = mpi_int(a, 4);
		e->comm = mpi_comm(a, abi, 5);
		break;
	case SB_MPI_REDUCE:
		e->bytes = mpi_bytes(a, abi, 3, 4);
		e->root = mpi_int(a, 6);
		e->comm = mpi_comm(a, abi, 7);
		break;
	case SB_MPI_ALLREDUCE:
		e->bytes = mpi_bytes(a, abi, 3, 4);
		e->comm = mpi_comm(a, abi, 6);
		break;
	case SB_MPI_GATHER:
		e->bytes = mpi_side_bytes(a, abi, mpi_arg(a, 1) == SB_MPI_IN_PLACE);
		e->root = mpi_int(a, 7);
		e->comm = mpi_comm(a, abi, 8);
		break;
	case SB_MPI_SCATTER:
		e->bytes = mpi_side_bytes(a, abi, mpi_arg(a, 4) != SB_MPI_IN_PLACE);
		e->root = mpi_int(a, 7);
		e->comm = mpi_comm(a, abi, 8);
		break;
	case SB_MPI_ALLGATHER:
	case SB_MPI_ALLTOALL:
		e->bytes = mpi_side_bytes(a, abi, mpi_arg(a, 1) == SB_MPI_IN_PLACE);
		e->comm = mpi_comm(a, abi, 7);
		break;
	default:	/* init, init_thread, finalize: collective over COMM_WORLD */
		e->bytes = 0;
		if (abi & SB_MPI_ABI_MPICH)
			e->comm = SB_MPICH_COMM_WORLD;
		break;
	}
	/* MPI_ANY_SOURCE, MPI_PROC_NULL and the like are no rank. */
	if (e->peer < 0)
		e->peer = -1;
	if (e->tag < 0)
		e->tag = -1;
}

static __always_inline __u64 mpi_mix(__u64 h, __u64 v)
{
	return (h ^ v) * FNV_PRIME;
}

/* The call's name hash: its operation and arguments, mixed to the end (splitmix64). */
static __always_inline __u64 mpi_hash(const struct sb_mpi_event *e)
{
	__u64 h = SB_MPI_SEED;

	h = mpi_mix(h, e->op);
	h = mpi_mix(h, (__u64)e->bytes);
	h = mpi_mix(h, (__u64)(__u32)e->peer | (__u64)(__u32)e->root << 32);
	h = mpi_mix(h, (__u64)(__u32)e->tag | (__u64)(__u32)e->comm << 32);
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
	return h ^ (h >> 31);
}

/* Send the call's description the first time its hash is seen; later calls name it by hash. */
static __always_inline void mpi_describe(const struct sb_mpi_event *call)
{
	struct sb_mpi_event *e;
	__u8 one = 1;

	if (bpf_map_lookup_elem(&mpi_names, &call->name_hash))
		return;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		/* Its calls are dropped by the collector (no name) until one is described. */
		count(SB_CNT_LOST_OTHER, 1);
		return;
	}
	*e = *call;
	bpf_ringbuf_submit(e, submit_flags());
	bpf_map_update_elem(&mpi_names, &call->name_hash, &one, BPF_ANY);
}

SEC("?uprobe")	/* loaded only when MPI calls are traced */
int mpi_enter(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct sb_mpi_event call = { .type = SB_EV_MPI };
	struct sb_proc *proc;

	if (!recording)
		return 0;
	proc = bpf_map_lookup_elem(&procs, &tgid);
	if (!proc)
		return 0;
	mpi_read(ctx, (__u32)bpf_get_attach_cookie(ctx), &call);
	call.name_hash = mpi_hash(&call);
	mpi_describe(&call);
	/* Pushed even when undescribed, so the return closes this frame and no other. */
	push_frame(proc, tgid, tid, call.name_hash, SB_MPI_SITE, now);
	return 0;
}

/* Index of the innermost open MPI call's frame, or -1. */
static __always_inline int find_mpi_frame(struct sb_thread_state *th)
{
	__u32 d = th->depth;
	int i;

	for (i = SB_MAX_DEPTH - 1; i >= 0; i--) {
		if ((__u32)i < d && th->frames[i].site == SB_MPI_SITE)
			return i;
	}
	return -1;
}

SEC("?uretprobe")
int mpi_exit(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct sb_thread_state *th;
	int i;

	if (!recording || !bpf_map_lookup_elem(&procs, &tgid))
		return 0;
	th = bpf_map_lookup_elem(&threads, &tid);
	if (th && th->overflow) {
		th->overflow--;
		return 0;
	}
	i = th ? find_mpi_frame(th) : -1;
	if (i < 0) {
		/* Entered before tracing began (record -p), or its thread had no slot. */
		count(SB_CNT_MPI_UNMATCHED, 1);
		return 0;
	}
	pop_frame(th, tgid, tid, i, now);
	return 0;
}

#endif
