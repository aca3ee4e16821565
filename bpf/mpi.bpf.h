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
#define SB_MPICH_IN_PLACE ((__u64)-1)	/* MPICH's MPI_IN_PLACE */
#define SB_OMPI_IN_PLACE 1		/* Open MPI's */
#define SB_OMPI_TYPE_SIZE_MAX (1ULL << 32)	/* a bigger "size" is no datatype's: unknown */
#define SB_MPICH_COMM_WORLD 0x44000000	/* MPICH's mpi.h */

/* Key: an MPI name hash. Value: unused. Hashes described to user space; LRU: an evicted one
 * is described again, and the collector keeps the first. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SB_MPI_MAX_NAMES);
	__type(key, __u64);
	__type(value, __u8);
} mpi_names SEC(".maps");

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

/*
 * A call in progress on a thread whose return probe reads what it wrote:
 * a request started (request: its MPI_Request *), the requests MPI_Waitany or
 * MPI_Waitsome completed (request: the array; out: the index or the count;
 * indices: MPI_Waitsome's), a rank or size learned (request: the int *).
 */
struct mpi_pending {
	__u64 request;
	__u64 out;
	__u64 indices;
	struct sb_mpi_event call;
};

/* Key: (process, communicator). Value: its rank and size there, as the process asked. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SB_MPI_MAX_COMMS);
	__type(key, struct sb_mpi_comm_key);
	__type(value, struct sb_mpi_comm_info);
} mpi_comms SEC(".maps");

/* Key: tid. Value: its call between entry and return (struct mpi_pending). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SB_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct mpi_pending);
} mpi_pending SEC(".maps");

/* The n-th argument, from 1 as the MPI standard counts them. */
static __always_inline __u64 mpi_arg(const __u64 *a, int n)
{
	return a[n - 1];
}

static __always_inline __s32 mpi_int(const __u64 *a, int n)
{
	return (__s32)mpi_arg(a, n);
}

/*
 * An Open MPI datatype's size: the handle is the object's address, its size
 * at the offset the library's own predefined datatypes showed (any
 * datatype, derived ones too: what MPI_Type_size says); -1 when unknown.
 */
static __always_inline __s64 mpi_ompi_type_size(__u64 type, __u32 abi)
{
	__u32 at = (abi >> SB_MPI_ABI_TYPE_SIZE_SHIFT) & SB_MPI_ABI_TYPE_SIZE_MAX;
	__u64 size;

	if (!(abi & SB_MPI_ABI_OMPI) || !at ||
	    bpf_probe_read_user(&size, sizeof(size), (void *)(type + at)) ||
	    size > SB_OMPI_TYPE_SIZE_MAX)
		return -1;
	return (__s64)size;
}

/* n elements of the datatype handle type; -1 when either is unknown. */
static __always_inline __s64 mpi_times(__s64 n, __u64 type, __u32 abi)
{
	__s64 size;

	if (n < 0)
		return -1;
	if (abi & SB_MPI_ABI_MPICH)
		size = sb_mpich_type_size((__u32)type);
	else
		size = mpi_ompi_type_size(type, abi);
	/* A product beyond 63 bits (summed counts of a huge type) is unknown, not wrapped. */
	if (size < 0 || (size && (__u64)n > (__u64)0x7fffffffffffffffULL / (__u64)size))
		return -1;
	return n * size;
}

/* Whether buffer argument n is MPI_IN_PLACE. */
static __always_inline bool mpi_in_place(const __u64 *a, __u32 abi, int n)
{
	return mpi_arg(a, n) == (abi & SB_MPI_ABI_OMPI ? SB_OMPI_IN_PLACE : SB_MPICH_IN_PLACE);
}

/* count x size of the datatype handle in argument type_arg; -1 when unknown. */
static __always_inline __s64 mpi_bytes(const __u64 *a, __u32 abi, int count_arg, int type_arg)
{
	return mpi_times(mpi_int(a, count_arg), mpi_arg(a, type_arg), abi);
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

/* The size of a request handle in the library's encoding. */
static __always_inline __u64 mpi_handle_size(__u32 abi)
{
	return abi & SB_MPI_ABI_MPICH ? 4 : 8;
}

/*
 * The call that started the request kept at addr, if the handle there is
 * still the one it wrote; taken out of the map when take (a wait completes
 * it), else left for the wait that will.
 */
static __always_inline bool mpi_find_request(__u32 tgid, __u64 addr, __u32 abi, bool take,
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
	if (take)
		bpf_map_delete_elem(&mpi_requests, &key);
	return same;
}

/*
 * A wait on an array of requests: the first SB_MPI_WAITALL_MAX; unknown ones
 * (null, started before tracing) add nothing. More than that: bytes unknown.
 * MPI_Waitall completes them all (take); MPI_Waitany and MPI_Waitsome leave
 * them for their return, which knows which ones completed.
 */
static __always_inline void mpi_requests_loop(__u64 base, __s32 n, __u32 tgid, __u32 abi,
					      bool take, struct sb_mpi_event *e)
{
	struct sb_mpi_event r;
	bool first = true;
	int i;

	for (i = 0; i < SB_MPI_WAITALL_MAX; i++) {
		if (i >= n)
			break;
		if (!mpi_find_request(tgid, base + (__u64)i * mpi_handle_size(abi), abi, take, &r))
			continue;
		sb_mpi_add_request(e, &r, first, take);
		first = false;
	}
	if (n > SB_MPI_WAITALL_MAX)
		e->bytes = -1;
}

/*
 * Global, verified once: inlined at its three waits, its loop of map lookups
 * made most of mpi_enter's 0.75 s of verification, which was most of a
 * recording's start. Five arguments at most: tgid and the ABI share one.
 */
__noinline int mpi_requests_into(__u64 base, __s32 n, __u64 tgid_abi, int take,
				 struct sb_mpi_event *e)
{
	if (e)
		mpi_requests_loop(base, n, tgid_abi >> 32, (__u32)tgid_abi, take, e);
	return 0;
}

/*
 * Kernels before 5.12 refuse a global function with a pointer among its
 * arguments, even one never called (they verify each on its own): there
 * (flat, in mpi_enter_nc) the loop is inlined, at the one place all waits
 * read their requests.
 */
static __always_inline void mpi_read_requests(const __u64 *a, __u32 abi, __u32 tgid, bool take,
					      bool flat, struct sb_mpi_event *e)
{
	if (flat)
		mpi_requests_loop(a[1], mpi_int(a, 1), tgid, abi, take, e);
	else
		mpi_requests_into(a[1], mpi_int(a, 1), (__u64)tgid << 32 | abi, take, e);
}

/* What process tgid learned of comm; NULL when it never asked. */
static __always_inline struct sb_mpi_comm_info *mpi_comm_info(__u32 tgid, __s32 comm)
{
	struct sb_mpi_comm_key key = { .tgid = tgid, .comm = comm };

	return comm == -1 ? NULL : bpf_map_lookup_elem(&mpi_comms, &key);
}

/*
 * The sum of counts[0..n), n at most SB_MPI_COUNTS_MAX, in a few reads; -1
 * when unreadable. Global: verified once, not at each v collective.
 */
__noinline __s64 mpi_sum_counts(__u64 counts, __s32 n)
{
	__s32 chunk[16];
	__s64 sum = 0;
	__u32 len;
	int c, i;

	if (n <= 0 || n > SB_MPI_COUNTS_MAX)
		return -1;
	for (c = 0; c < SB_MPI_COUNTS_MAX / 16; c++) {
		if (c * 16 >= n)
			break;
		len = (__u32)(n - c * 16);
		if (len > 16)
			len = 16;
		/*
		 * Clang may bound a copy of len and pass the other: 6.1's verifier
		 * then sees a size of up to 256 bytes for this 64-byte buffer.
		 */
		barrier_var(len);
		if (bpf_probe_read_user(chunk, len * sizeof(chunk[0]), (void *)(counts + c * 64)))
			return -1;
		for (i = 0; i < 16; i++) {
			if ((__u32)i >= len)
				break;
			if (chunk[i] < 0)
				return -1;
			sum += chunk[i];
		}
	}
	return sum;
}

/*
 * A v collective's bytes from its counts array (argument counts_arg) of the
 * datatype in type_arg: the whole array summed (all) over the communicator's
 * size, or this process's own entry; -1 when the process never asked the
 * communicator's size (or rank) or it is larger than SB_MPI_COUNTS_MAX.
 */
static __always_inline __s64 mpi_counts_bytes(const __u64 *a, __u32 abi, __u32 tgid, __s32 comm,
					      int counts_arg, int type_arg, bool all)
{
	struct sb_mpi_comm_info *info = mpi_comm_info(tgid, comm);
	__s32 own = 0;

	if (!info)
		return -1;
	if (all)
		return mpi_times(mpi_sum_counts(mpi_arg(a, counts_arg), info->size),
				 mpi_arg(a, type_arg), abi);
	if (info->rank < 0 ||
	    bpf_probe_read_user(&own, sizeof(own),
				(void *)(mpi_arg(a, counts_arg) + (__u64)info->rank * 4)))
		return -1;
	return mpi_times(own, mpi_arg(a, type_arg), abi);
}

/* MPI_Reduce_scatter_block's bytes: what this process puts in, recvcount x the comm's size. */
static __always_inline __s64 mpi_block_bytes(const __u64 *a, __u32 abi, __u32 tgid, __s32 comm)
{
	struct sb_mpi_comm_info *info = mpi_comm_info(tgid, comm);
	__s32 n = mpi_int(a, 3);

	if (!info || info->size <= 0 || n < 0)
		return -1;
	return mpi_times((__s64)n * info->size, mpi_arg(a, 4), abi);
}

/* Point-to-point: buffer, count, type, rank, tag, communicator in comm_arg. */
static __always_inline void mpi_read_p2p(const __u64 *a, __u32 abi, int comm_arg,
					 struct sb_mpi_event *e)
{
	e->bytes = mpi_bytes(a, abi, 2, 3);
	e->peer = mpi_int(a, 4);
	e->tag = mpi_int(a, 5);
	e->comm = mpi_comm(a, abi, comm_arg);
}

/* Reductions: send buffer, receive buffer, count, type, op, [root,] communicator. */
static __always_inline void mpi_read_reduction(const __u64 *a, __u32 abi, bool rooted,
					       struct sb_mpi_event *e)
{
	e->bytes = mpi_bytes(a, abi, 3, 4);
	if (rooted)
		e->root = mpi_int(a, 6);
	e->comm = mpi_comm(a, abi, rooted ? 7 : 6);
}

/* The collectives, blocking or not: the request is the argument after the communicator. */
static __always_inline void mpi_read_collective(const __u64 *a, __u32 abi, __u32 tgid,
						__u32 op, struct sb_mpi_event *e)
{
	switch (op) {
	case SB_MPI_BARRIER:
	case SB_MPI_IBARRIER:
		e->bytes = 0;
		e->comm = mpi_comm(a, abi, 1);
		break;
	case SB_MPI_BCAST:
	case SB_MPI_IBCAST:
		e->bytes = mpi_bytes(a, abi, 2, 3);
		e->root = mpi_int(a, 4);
		e->comm = mpi_comm(a, abi, 5);
		break;
	case SB_MPI_REDUCE:
	case SB_MPI_IREDUCE:
		mpi_read_reduction(a, abi, true, e);
		break;
	case SB_MPI_ALLREDUCE:
	case SB_MPI_IALLREDUCE:
	case SB_MPI_SCAN:
	case SB_MPI_EXSCAN:
		mpi_read_reduction(a, abi, false, e);
		break;
	case SB_MPI_GATHER:
	case SB_MPI_IGATHER:
		e->bytes = mpi_side_bytes(a, abi, mpi_in_place(a, abi, 1));
		e->root = mpi_int(a, 7);
		e->comm = mpi_comm(a, abi, 8);
		break;
	case SB_MPI_SCATTER:
	case SB_MPI_ISCATTER:
		e->bytes = mpi_side_bytes(a, abi, !mpi_in_place(a, abi, 4));
		e->root = mpi_int(a, 7);
		e->comm = mpi_comm(a, abi, 8);
		break;
	case SB_MPI_ALLGATHER:
	case SB_MPI_IALLGATHER:
	case SB_MPI_ALLTOALL:
	case SB_MPI_IALLTOALL:
		e->bytes = mpi_side_bytes(a, abi, mpi_in_place(a, abi, 1));
		e->comm = mpi_comm(a, abi, 7);
		break;
	case SB_MPI_GATHERV:	/* the send count; in place at the root: its own receive count */
		e->root = mpi_int(a, 8);
		e->comm = mpi_comm(a, abi, 9);
		e->bytes = mpi_in_place(a, abi, 1) ?
			   mpi_counts_bytes(a, abi, tgid, e->comm, 5, 7, false) :
			   mpi_bytes(a, abi, 2, 3);
		break;
	case SB_MPI_SCATTERV:	/* the receive count; in place at the root: its own send count */
		e->root = mpi_int(a, 8);
		e->comm = mpi_comm(a, abi, 9);
		e->bytes = mpi_in_place(a, abi, 5) ?
			   mpi_counts_bytes(a, abi, tgid, e->comm, 2, 4, false) :
			   mpi_bytes(a, abi, 6, 7);
		break;
	case SB_MPI_ALLGATHERV:
		e->comm = mpi_comm(a, abi, 8);
		e->bytes = mpi_in_place(a, abi, 1) ?
			   mpi_counts_bytes(a, abi, tgid, e->comm, 5, 7, false) :
			   mpi_bytes(a, abi, 2, 3);
		break;
	case SB_MPI_ALLTOALLV:	/* all it sends: the send counts summed */
		e->comm = mpi_comm(a, abi, 9);
		e->bytes = mpi_in_place(a, abi, 1) ?
			   mpi_counts_bytes(a, abi, tgid, e->comm, 6, 8, true) :
			   mpi_counts_bytes(a, abi, tgid, e->comm, 2, 4, true);
		break;
	case SB_MPI_REDUCE_SCATTER:	/* all it puts in: the receive counts summed */
		e->comm = mpi_comm(a, abi, 6);
		e->bytes = mpi_counts_bytes(a, abi, tgid, e->comm, 3, 4, true);
		break;
	case SB_MPI_REDUCE_SCATTER_BLOCK:
		e->comm = mpi_comm(a, abi, 6);
		e->bytes = mpi_block_bytes(a, abi, tgid, e->comm);
		break;
	}
}

/* One-sided communication: the window is no communicator (comm -1); peers are window ranks. */
static __always_inline void mpi_read_one_sided(const __u64 *a, __u32 abi, __u32 op,
					       struct sb_mpi_event *e)
{
	switch (op) {
	case SB_MPI_WIN_CREATE:		/* bytes: the window's size */
		e->bytes = (__s64)mpi_arg(a, 2);
		e->comm = mpi_comm(a, abi, 5);
		break;
	case SB_MPI_WIN_ALLOCATE:
		e->bytes = (__s64)mpi_arg(a, 1);
		e->comm = mpi_comm(a, abi, 4);
		break;
	case SB_MPI_PUT:
	case SB_MPI_GET:
	case SB_MPI_ACCUMULATE:
		e->bytes = mpi_bytes(a, abi, 2, 3);
		e->peer = mpi_int(a, 4);
		break;
	case SB_MPI_WIN_LOCK:
		e->bytes = 0;
		e->peer = mpi_int(a, 2);
		break;
	case SB_MPI_WIN_UNLOCK:
	case SB_MPI_WIN_FLUSH:
		e->bytes = 0;
		e->peer = mpi_int(a, 1);
		break;
	case SB_MPI_WIN_FREE:
	case SB_MPI_WIN_FENCE:
	case SB_MPI_WIN_LOCK_ALL:
	case SB_MPI_WIN_UNLOCK_ALL:
	case SB_MPI_WIN_FLUSH_ALL:
		e->bytes = 0;
		break;
	}
}

/* File I/O: count x datatype, after the offset in the _at calls; no communicator. */
static __always_inline void mpi_read_file(const __u64 *a, __u32 abi, __u32 op,
					  struct sb_mpi_event *e)
{
	switch (op) {
	case SB_MPI_FILE_OPEN:
		e->bytes = 0;
		e->comm = mpi_comm(a, abi, 1);
		break;
	case SB_MPI_FILE_CLOSE:
		e->bytes = 0;
		break;
	case SB_MPI_FILE_READ:
	case SB_MPI_FILE_WRITE:
	case SB_MPI_FILE_READ_ALL:
	case SB_MPI_FILE_WRITE_ALL:
		e->bytes = mpi_bytes(a, abi, 3, 4);
		break;
	case SB_MPI_FILE_READ_AT:
	case SB_MPI_FILE_WRITE_AT:
	case SB_MPI_FILE_READ_AT_ALL:
	case SB_MPI_FILE_WRITE_AT_ALL:
		e->bytes = mpi_bytes(a, abi, 4, 5);
		break;
	}
}

/* Where a call that starts a request has its MPI_Request *: the last argument. */
static __always_inline int mpi_request_arg(__u32 op)
{
	switch (op) {
	case SB_MPI_IBARRIER:
		return 2;
	case SB_MPI_IBCAST:
		return 6;
	case SB_MPI_IREDUCE:
	case SB_MPI_IALLGATHER:
	case SB_MPI_IALLTOALL:
		return 8;
	case SB_MPI_IGATHER:
	case SB_MPI_ISCATTER:
		return 9;
	default:	/* the sends and MPI_Irecv, MPI_Iallreduce */
		return 7;
	}
}

static __always_inline bool mpi_starts_request(__u32 op)
{
	return op >= SB_MPI_ISEND && op <= SB_MPI_IALLTOALL;
}

/* The waits on arrays of requests: MPI_Waitall completes them all. */
static __always_inline void mpi_read_waits(const __u64 *a, __u32 abi, __u32 tgid, __u32 op,
					   bool flat, struct mpi_pending *pending)
{
	struct sb_mpi_event *e = &pending->call;

	mpi_read_requests(a, abi, tgid, op == SB_MPI_WAITALL, flat, e);
	if (op == SB_MPI_WAITALL)
		return;
	/* MPI_Waitany: one completes, a value only where all agree; MPI_Waitsome: some do. */
	pending->request = mpi_arg(a, 2);
	pending->out = mpi_arg(a, 3);
	if (op != SB_MPI_WAITSOME)
		return;
	if (mpi_int(a, 1) != 1)
		e->bytes = -1;
	pending->indices = mpi_arg(a, 4);
}

/* The arguments of one call, as docs/MPI.md describes them per operation. */
static __always_inline void mpi_read(struct pt_regs *ctx, __u32 cookie, __u32 tgid, bool flat,
				     struct mpi_pending *pending)
{
	struct sb_mpi_event *e = &pending->call;
	__u32 abi = cookie & ~SB_MPI_OP_MASK, op = cookie & SB_MPI_OP_MASK;
	__u64 a[SB_CALL_MAX_ARGS];
	struct sb_mpi_event r;

	call_args(ctx, a);
	e->op = op;
	e->bytes = -1;
	e->peer = -1;
	e->root = -1;
	e->tag = -1;
	e->comm = -1;
	e->request = -1;
	if (mpi_starts_request(op))
		pending->request = mpi_arg(a, mpi_request_arg(op));
	if (op <= SB_MPI_PROBE || (op >= SB_MPI_ISEND && op <= SB_MPI_IRECV)) {
		if (op == SB_MPI_PROBE) {
			e->peer = mpi_int(a, 1);
			e->tag = mpi_int(a, 2);
			e->comm = mpi_comm(a, abi, 3);
		} else {
			mpi_read_p2p(a, abi, op == SB_MPI_SENDRECV ? 11 : 6, e);
		}
	} else if (op <= SB_MPI_EXSCAN || (op >= SB_MPI_IBARRIER && op <= SB_MPI_IALLTOALL)) {
		mpi_read_collective(a, abi, tgid, op, e);
	} else if (op >= SB_MPI_WIN_CREATE && op <= SB_MPI_WIN_FLUSH_ALL) {
		mpi_read_one_sided(a, abi, op, e);
	} else if (op >= SB_MPI_FILE_OPEN && op <= SB_MPI_FILE_WRITE_AT_ALL) {
		mpi_read_file(a, abi, op, e);
	} else {
		switch (op) {
		case SB_MPI_WAIT:
			if (mpi_find_request(tgid, a[0], abi, true, &r))
				sb_mpi_add_request(e, &r, true, true);
			break;
		case SB_MPI_WAITALL:
		case SB_MPI_WAITANY:
		case SB_MPI_WAITSOME:
			mpi_read_waits(a, abi, tgid, op, flat, pending);
			break;
		case SB_MPI_COMM_RANK:
		case SB_MPI_COMM_SIZE:
			e->comm = mpi_comm(a, abi, 1);
			pending->request = mpi_arg(a, 2);
			break;
		case SB_MPI_IPROBE:
			e->peer = mpi_int(a, 1);
			e->tag = mpi_int(a, 2);
			e->comm = mpi_comm(a, abi, 3);
			break;
		case SB_MPI_INIT:	/* collective over COMM_WORLD */
		case SB_MPI_INIT_THREAD:
		case SB_MPI_FINALIZE:
			e->bytes = 0;
			if (abi & SB_MPI_ABI_MPICH)
				e->comm = SB_MPICH_COMM_WORLD;
			break;
		default:	/* the polling calls: a test may not complete its request */
			break;
		}
	}
	/* MPI_ANY_SOURCE, MPI_PROC_NULL and the like are no rank. */
	if (e->peer < 0)
		e->peer = -1;
	if (e->tag < 0)
		e->tag = -1;
}

/* The call's name hash: its operation and arguments, mixed to the end (splitmix64). */
static __always_inline __u64 mpi_hash(const struct sb_mpi_event *e)
{
	__u64 h = SB_MPI_SEED;

	h = call_mix(h, e->op);
	h = call_mix(h, (__u64)e->bytes);
	h = call_mix(h, (__u64)(__u32)e->peer | (__u64)(__u32)e->root << 32);
	h = call_mix(h, (__u64)(__u32)e->tag | (__u64)(__u32)e->comm << 32);
	h = call_mix(h, (__u64)(__u32)e->request);
	return call_hash_end(h);
}

/*
 * A call the library makes inside a traced MPI call (ROMIO's file I/O calls
 * MPI_Allreduce, MPI_Bcast, ... through their exported names) is part of
 * that call, as PMPI tools see it: not a region (call_inside).
 */
static __always_inline int mpi_enter_call(struct pt_regs *ctx, bool flat)
{
	__u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns(), c;
	__u32 tgid = id >> 32, tid = (__u32)id, cookie, op;
	struct mpi_pending pending = { .call = { .type = SB_EV_MPI } };
	struct sb_mpi_event *call = &pending.call;
	struct sb_proc *proc;
	bool learns;

	if (!recording)
		return 0;
	proc = bpf_map_lookup_elem(&procs, &tgid);
	if (!proc || !call_cookie(ctx, tgid, &c))
		return 0;
	/* Every return needs it: one inside a traced call unwinds its overflow. */
	call_keep_for_return(ctx, tid, c);
	cookie = (__u32)c;
	op = cookie & SB_MPI_OP_MASK;
	learns = op == SB_MPI_COMM_RANK || op == SB_MPI_COMM_SIZE;
	/* Its return pops no frame and so must not count as overflow. */
	if (!learns && call_inside(tid, SB_MPI_SITE))
		return 0;
	mpi_read(ctx, cookie, tgid, flat, &pending);
	/* What the return reads: written by the call. */
	if (pending.request)
		bpf_map_update_elem(&mpi_pending, &tid, &pending, BPF_ANY);
	if (learns)
		return 0;	/* no region */
	call->name_hash = mpi_hash(call);
	describe_once(&mpi_names, call->name_hash, call, sizeof(*call));
	/* Pushed even when undescribed, so the return closes this frame and no other. */
	push_frame(proc, tgid, tid, call->name_hash, SB_MPI_SITE, now);
	return 0;
}

static __always_inline int mpi_enter_at(struct pt_regs *ctx)
{
	return mpi_enter_call(ctx, false);
}

/* Where the kernel has no attach cookies, nor (before 5.12) pointers in global functions. */
static __always_inline int mpi_enter_nc_at(struct pt_regs *ctx)
{
	return mpi_enter_call(ctx, true);
}

/* loaded only when MPI calls are traced */
LIB_CALL_PROGRAM("?uprobe", mpi_enter)
LIB_CALL_PROGRAM("?uprobe", mpi_enter_nc)

/* The call of op in progress on tid, taken out of the map; false when none. */
static __always_inline bool mpi_take_pending(__u32 tid, __u32 op, struct mpi_pending *out)
{
	struct mpi_pending *p = bpf_map_lookup_elem(&mpi_pending, &tid);

	if (!p)
		return false;
	*out = *p;
	bpf_map_delete_elem(&mpi_pending, &tid);
	return out->call.op == op;
}

/* A call that starts a request returned: remember which call its request handle stands for. */
static __always_inline void mpi_started(__u32 tgid, __u32 abi, const struct mpi_pending *p)
{
	struct sb_mpi_request_key key = { .tgid = tgid, .addr = p->request };
	struct mpi_request r;

	r.handle = mpi_handle(p->request, abi);
	r.call = p->call;
	bpf_map_update_elem(&mpi_requests, &key, &r, BPF_ANY);
}

/* The request at index i of the array at base completed: forget it. */
static __always_inline void mpi_forget(__u32 tgid, __u32 abi, __u64 base, __s32 i)
{
	struct sb_mpi_request_key key = { .tgid = tgid };

	if (i < 0)
		return;		/* MPI_UNDEFINED: none was active */
	key.addr = base + (__u64)i * mpi_handle_size(abi);
	bpf_map_delete_elem(&mpi_requests, &key);
}

/* MPI_Waitany or MPI_Waitsome returned: the requests it names are complete. */
static __always_inline void mpi_completed(__u32 tgid, __u32 abi, const struct mpi_pending *p)
{
	__s32 n = 0, idx[SB_MPI_WAITALL_MAX];
	int i;

	if (bpf_probe_read_user(&n, sizeof(n), (void *)p->out))
		return;
	if (p->call.op == SB_MPI_WAITANY) {
		mpi_forget(tgid, abi, p->request, n);
		return;
	}
	if (n <= 0)
		return;
	if (n > SB_MPI_WAITALL_MAX)
		n = SB_MPI_WAITALL_MAX;
	if (bpf_probe_read_user(idx, n * sizeof(idx[0]), (void *)p->indices))
		return;
	for (i = 0; i < SB_MPI_WAITALL_MAX; i++) {
		if (i >= n)
			break;
		mpi_forget(tgid, abi, p->request, idx[i]);
	}
}

/* MPI_Comm_rank or MPI_Comm_size returned: keep it; a new rank in COMM_WORLD goes to user space. */
static __always_inline void mpi_learned(__u32 tgid, const struct mpi_pending *p)
{
	struct sb_mpi_comm_key key = { .tgid = tgid, .comm = p->call.comm };
	struct sb_mpi_comm_info info = { .rank = -1, .size = -1 }, *old;
	struct sb_mpi_rank_event *e;
	__s32 v;

	if (key.comm == -1 || bpf_probe_read_user(&v, sizeof(v), (void *)p->request) || v < 0)
		return;
	old = bpf_map_lookup_elem(&mpi_comms, &key);
	if (old)
		info = *old;
	if (p->call.op == SB_MPI_COMM_RANK) {
		if (info.rank == v)
			return;
		info.rank = v;
	} else {
		if (info.size == v)
			return;
		info.size = v;
	}
	bpf_map_update_elem(&mpi_comms, &key, &info, BPF_ANY);
	if (key.comm != SB_MPICH_COMM_WORLD)
		return;
	e = reserve_event(sizeof(*e));
	if (!e) {
		count(SB_CNT_LOST_OTHER, 1);
		return;
	}
	*e = (struct sb_mpi_rank_event){ .type = SB_EV_MPI_RANK, .tgid = tgid, .rank = info.rank,
					 .size = info.size };
	bpf_ringbuf_submit(e, submit_flags());
}

/* What the return of op reads from what the call wrote. */
static __always_inline void mpi_returned(__u32 tgid, __u32 tid, __u32 op, __u32 abi)
{
	struct mpi_pending p;

	if (!mpi_starts_request(op) && op != SB_MPI_WAITANY && op != SB_MPI_WAITSOME &&
	    op != SB_MPI_COMM_RANK && op != SB_MPI_COMM_SIZE)
		return;
	if (!mpi_take_pending(tid, op, &p))
		return;
	if (mpi_starts_request(op))
		mpi_started(tgid, abi, &p);
	else if (op == SB_MPI_WAITANY || op == SB_MPI_WAITSOME)
		mpi_completed(tgid, abi, &p);
	else
		mpi_learned(tgid, &p);
}

static __always_inline int mpi_exit_at(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns(), c;
	__u32 tgid = id >> 32, tid = (__u32)id, cookie, op;
	struct sb_thread_state *th;
	int i;

	if (!recording || !bpf_map_lookup_elem(&procs, &tgid))
		return 0;
	if (!call_return_cookie(ctx, tid, &c)) {
		/* Without attach cookies: its entry ran before tracing began, or not at all. */
		count(SB_CNT_MPI_UNMATCHED, 1);
		return 0;
	}
	cookie = (__u32)c;
	op = cookie & SB_MPI_OP_MASK;
	mpi_returned(tgid, tid, op, cookie & ~SB_MPI_OP_MASK);
	if (op == SB_MPI_COMM_RANK || op == SB_MPI_COMM_SIZE)
		return 0;	/* no region */
	th = bpf_map_lookup_elem(&threads, &tid);
	if (th && th->overflow) {
		th->overflow--;
		return 0;
	}
	i = th ? find_site_frame(tid, SB_MPI_SITE) : -1;
	if (i < 0) {
		/* Entered before tracing began (record -p), or its thread had no slot. */
		count(SB_CNT_MPI_UNMATCHED, 1);
		return 0;
	}
	pop_frame(th, tgid, tid, i, now);
	return 0;
}

LIB_CALL_PROGRAM("?uretprobe", mpi_exit)

#endif
