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
#define SB_MPI_IN_PLACE ((__u64)-1)	/* MPICH's MPI_IN_PLACE; Open MPI's sizes are unknown anyway */
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

/* A request started and not yet waited for. */
struct mpi_request {
	__u64 handle;		/* the handle then at that address: a wait on another one is not this */
	struct sb_mpi_event call;
};

/* Key: (process, where the request handle is kept). Value: the call that started it. Inserted
 * when MPI_Isend/MPI_Irecv return, taken by the wait that completes the request. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SB_MPI_MAX_REQUESTS);
	__type(key, struct sb_mpi_request_key);
	__type(value, struct mpi_request);
} mpi_requests SEC(".maps");

/* A non-blocking call in progress on a thread: where its request handle will be written. */
struct mpi_pending {
	__u64 request;		/* the MPI_Request * argument */
	struct sb_mpi_event call;
};

/* Key: tid. Value: its MPI_Isend/MPI_Irecv between entry and return. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SB_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct mpi_pending);
} mpi_pending SEC(".maps");

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

/* A request handle at addr: an int in MPICH, a pointer otherwise; 0 when unreadable. */
static __always_inline __u64 mpi_handle(__u64 addr, __u32 abi)
{
	__u64 h = 0;
	__u32 i = 0;

	if (abi & SB_MPI_ABI_MPICH) {
		bpf_probe_read_user(&i, sizeof(i), (void *)addr);
		return i;
	}
	bpf_probe_read_user(&h, sizeof(h), (void *)addr);
	return h;
}

/* The call that started the request kept at addr, taken out of the map: a wait completes it. */
static __always_inline bool mpi_take_request(__u32 tgid, __u64 addr, __u32 abi,
					     struct sb_mpi_event *out)
{
	struct sb_mpi_request_key key = { .tgid = tgid, .addr = addr };
	struct mpi_request *started = bpf_map_lookup_elem(&mpi_requests, &key);
	bool same;

	if (!started)
		return false;
	same = started->handle == mpi_handle(addr, abi);
	if (same)
		*out = started->call;
	bpf_map_delete_elem(&mpi_requests, &key);
	return same;
}

/* Where the requests of a wait differ, the wait's value is -1 (unknown). */
static __always_inline __s32 mpi_same(__s32 a, __s32 b)
{
	return a == b ? a : -1;
}

/* A wait is described by the calls that started its requests: bytes summed, the rest shared. */
static __always_inline void mpi_add_request(struct sb_mpi_event *e, const struct sb_mpi_event *r,
					    bool first)
{
	if (first) {
		e->bytes = r->bytes;
		e->peer = r->peer;
		e->tag = r->tag;
		e->comm = r->comm;
		e->request = (__s32)r->op;
		return;
	}
	e->bytes = e->bytes < 0 || r->bytes < 0 ? -1 : e->bytes + r->bytes;
	e->peer = mpi_same(e->peer, r->peer);
	e->tag = mpi_same(e->tag, r->tag);
	e->comm = mpi_same(e->comm, r->comm);
	e->request = mpi_same(e->request, (__s32)r->op);
}

/*
 * MPI_Waitall: the first SB_MPI_WAITALL_MAX requests; unknown ones (null,
 * started before tracing) add nothing. More than that: bytes unknown.
 */
static __always_inline void mpi_read_waitall(const __u64 *a, __u32 abi, __u32 tgid,
					     struct sb_mpi_event *e)
{
	__s32 n = mpi_int(a, 1);
	struct sb_mpi_event r;
	bool first = true;
	int i;

	for (i = 0; i < SB_MPI_WAITALL_MAX; i++) {
		if (i >= n)
			break;
		if (!mpi_take_request(tgid, a[1] + (__u64)i * (abi & SB_MPI_ABI_MPICH ? 4 : 8), abi,
				      &r))
			continue;
		mpi_add_request(e, &r, first);
		first = false;
	}
	if (n > SB_MPI_WAITALL_MAX)
		e->bytes = -1;
}

/* The arguments of one call, as docs/MPI.md describes them per operation. */
static __always_inline void mpi_read(struct pt_regs *ctx, __u32 cookie, __u32 tgid,
				     struct sb_mpi_event *e, __u64 *request)
{
	__u32 abi = cookie & ~SB_MPI_OP_MASK;
	__u64 a[SB_MPI_MAX_ARGS];
	struct sb_mpi_event r;

	mpi_args(ctx, a);
	e->op = cookie & SB_MPI_OP_MASK;
	e->bytes = -1;
	e->peer = -1;
	e->root = -1;
	e->tag = -1;
	e->comm = -1;
	e->request = -1;
	*request = 0;
	switch (e->op) {
	case SB_MPI_ISEND:
	case SB_MPI_IRECV:
		*request = a[6];
		/* fallthrough: the arguments of MPI_Send and MPI_Recv */
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
	case SB_MPI_WAIT:
		if (mpi_take_request(tgid, a[0], abi, &r))
			mpi_add_request(e, &r, true);
		break;
	case SB_MPI_WAITALL:
		mpi_read_waitall(a, abi, tgid, e);
		break;
	case SB_MPI_IPROBE:
		e->peer = mpi_int(a, 1);
		e->tag = mpi_int(a, 2);
		e->comm = mpi_comm(a, abi, 3);
		break;
	case SB_MPI_TEST:	/* a test may not complete its request: it stays for the wait */
	case SB_MPI_TESTALL:
	case SB_MPI_TESTANY:
	case SB_MPI_TESTSOME:
	case SB_MPI_WTIME:
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
	h = mpi_mix(h, (__u64)(__u32)e->request);
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
	struct mpi_pending pending = { .call = { .type = SB_EV_MPI } };
	struct sb_mpi_event *call = &pending.call;
	struct sb_proc *proc;

	if (!recording)
		return 0;
	proc = bpf_map_lookup_elem(&procs, &tgid);
	if (!proc)
		return 0;
	mpi_read(ctx, (__u32)bpf_get_attach_cookie(ctx), tgid, call, &pending.request);
	call->name_hash = mpi_hash(call);
	mpi_describe(call);
	/* A non-blocking call's request handle is known at its return. */
	if (pending.request)
		bpf_map_update_elem(&mpi_pending, &tid, &pending, BPF_ANY);
	/* Pushed even when undescribed, so the return closes this frame and no other. */
	push_frame(proc, tgid, tid, call->name_hash, SB_MPI_SITE, now);
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

/* MPI_Isend/MPI_Irecv returned: remember which call its request handle stands for. */
static __always_inline void mpi_started(__u32 tgid, __u32 tid, __u32 abi)
{
	struct mpi_pending *p = bpf_map_lookup_elem(&mpi_pending, &tid);
	struct sb_mpi_request_key key = { .tgid = tgid };
	struct mpi_request r;

	if (!p)
		return;
	key.addr = p->request;
	r.handle = mpi_handle(p->request, abi);
	r.call = p->call;
	bpf_map_update_elem(&mpi_requests, &key, &r, BPF_ANY);
	bpf_map_delete_elem(&mpi_pending, &tid);
}

SEC("?uretprobe")
int mpi_exit(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	__u32 tgid = id >> 32, tid = (__u32)id, cookie;
	struct sb_thread_state *th;
	int i;

	if (!recording || !bpf_map_lookup_elem(&procs, &tgid))
		return 0;
	cookie = (__u32)bpf_get_attach_cookie(ctx);
	if ((cookie & SB_MPI_OP_MASK) == SB_MPI_ISEND || (cookie & SB_MPI_OP_MASK) == SB_MPI_IRECV)
		mpi_started(tgid, tid, cookie & ~SB_MPI_OP_MASK);
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
