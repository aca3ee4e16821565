/*
 * CUDA activity in the model (scope-bpf extension, /scope_bpf/cuda/,
 * docs/CUDA.md): what ran on the GPU, what the host asked for, and the
 * region call that launched each piece of GPU work.
 */
#ifndef SB_MODEL_CUDA_H
#define SB_MODEL_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "model/table.h"

/* The kinds of bpf/cuda_rec.h, as stored in the file. */
enum sb_cuda_act_kind {
	SB_CUDA_ACT_KERNEL = 1,
	SB_CUDA_ACT_MEMCPY = 2,
	SB_CUDA_ACT_MEMSET = 3,
	SB_CUDA_ACT_RUNTIME = 4,	/* a CUDA runtime API call on a host thread */
	SB_CUDA_ACT_DRIVER = 5,		/* a CUDA driver API call on a host thread */
	SB_CUDA_ACT_SYNC = 6,		/* a synchronization a host thread waited in */
};

/* Work that ran on a device (kernels, copies, memsets), as opposed to host calls. */
static inline int sb_cuda_on_gpu(int32_t kind)
{
	return kind >= SB_CUDA_ACT_KERNEL && kind <= SB_CUDA_ACT_MEMSET;
}

/*
 * One activity. Times are ns on the recording's clock. For GPU work the
 * launch fields describe the host API call with the same correlation id,
 * and call_id/pair the innermost region call open on that thread when the
 * launch happened; -1 wherever that is not known.
 */
struct sb_cuda_activity {
	uint32_t rank;
	int32_t kind;		/* enum sb_cuda_act_kind */
	int64_t device;
	int64_t context;
	int64_t stream;
	int64_t correlation;
	int64_t start;
	int64_t end;
	int64_t name;		/* kernel: index into names; else -1 */
	int64_t bytes;		/* memcpy, memset; else -1 */
	int64_t copy_kind;	/* memcpy: CUpti_ActivityMemcpyKind; else -1 */
	int64_t detail;		/* API: callback id; sync: its type; memset: the value; else -1 */
	int32_t grid[3];	/* kernel; else 0 */
	int32_t block[3];
	int64_t thread;		/* host thread row within the rank: the caller, or the launcher */
	int64_t launch_start;	/* GPU work: its launching API call; else -1 */
	int64_t launch_end;
	int64_t call_id;	/* GPU work: the launching region call, unique in the rank */
	int64_t pair;		/* its index row (file order), -1 outside every region */
};

struct sb_cuda_data {
	struct sb_cuda_activity *acts;	/* by rank, then start */
	size_t n_acts;
	char **names;			/* kernel names as CUPTI gave them (mangled) */
	size_t n_names;
};

void sb_cuda_data_free(struct sb_cuda_data *d);

/* struct sb_cuda_data as tables with column roles (model/cuda_table.c). */
extern const struct sb_kind sb_cuda_kind;

/*
 * The CUDA function a runtime or driver call record (kind, its detail: the
 * CUPTI callback id) stands for, "cudaLaunchKernel"; NULL when not one of the
 * common ones (model/cuda_api.c).
 */
const char *sb_cuda_api_name(int32_t kind, int64_t cbid);

/* A copy's direction by its CUpti_ActivityMemcpyKind, as Nsight Systems writes it ("HtoD"); NULL: unknown. */
const char *sb_cuda_copy_kind(int64_t kind);

#endif
