/*
 * CUDA runtime calls timed on the host (libcudart's exported API), shared by
 * bpf/cuda_host.bpf.h and the cuda-host source in user/record/sources/: the
 * probes' attach cookies and the record that names a call's region.
 * docs/CUDA.md, "Host probes".
 */
#ifndef SB_CUDA_HOST_H
#define SB_CUDA_HOST_H

/* The operations, in user/record/sources/cuda_host_names.c's order. */
enum sb_cuda_host_op {
	SB_CUDA_HOST_LAUNCH,			/* cudaLaunchKernel */
	SB_CUDA_HOST_MEMCPY,			/* cudaMemcpy */
	SB_CUDA_HOST_MEMCPY_ASYNC,		/* cudaMemcpyAsync */
	SB_CUDA_HOST_MEMSET,			/* cudaMemset */
	SB_CUDA_HOST_MEMSET_ASYNC,		/* cudaMemsetAsync */
	SB_CUDA_HOST_DEVICE_SYNCHRONIZE,	/* cudaDeviceSynchronize */
	SB_CUDA_HOST_STREAM_SYNCHRONIZE,	/* cudaStreamSynchronize */
	SB_CUDA_HOST_EVENT_SYNCHRONIZE,	/* cudaEventSynchronize */
	SB_CUDA_HOST_MALLOC,			/* cudaMalloc */
	SB_CUDA_HOST_FREE,			/* cudaFree */
	SB_CUDA_HOST_N_OPS,
};

/* A probe's attach cookie: the operation | this flag on the per-thread default stream forms. */
#define SB_CUDA_OP_MASK 0xffu
#define SB_CUDA_PER_THREAD 0x100u	/* cudaX_ptsz, cudaX_ptds: stream 0 is the thread's own */

/* cudaStream_t values the runtime gives a meaning of their own (driver_types.h). */
#define SB_CUDA_STREAM_LEGACY 1		/* cudaStreamLegacy */
#define SB_CUDA_STREAM_PER_THREAD 2	/* cudaStreamPerThread */

#define SB_CUDA_HOST_SITE 2	/* the site of a CUDA call's frame: never a descriptor address */
#define SB_CUDA_HOST_SEED 0x637564612d617069ULL	/* "cuda-api": CUDA call name hashes */
#define SB_CUDA_HOST_MAX_NAMES 16384

/*
 * The first call of an operation with these arguments in one process; later
 * ones carry only name_hash. The stub and the stream are the process's own
 * addresses, so the process is part of the name hash.
 */
struct sb_cuda_host_event {
	__u32 type;		/* SB_EV_CUDA_HOST */
	__u32 op;		/* enum sb_cuda_host_op */
	__u32 tgid;
	__u32 kind;		/* copies: enum cudaMemcpyKind as given */
	__s64 bytes;		/* copies, memsets, cudaMalloc; -1 for the others */
	__u64 func;		/* launches: the host stub's address (its symbol names the kernel) */
	__u64 stream;		/* cudaStream_t as given (0: the default stream) */
	__u32 grid[3];		/* launches: gridDim x, y, z */
	__u32 block[3];		/* launches: blockDim x, y, z */
	__u64 name_hash;
};

#endif
