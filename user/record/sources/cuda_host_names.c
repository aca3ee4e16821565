/* The CUDA runtime functions probed and how their regions are named (docs/CUDA.md, "Host probes"). */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include "record/sources/cuda_host_names.h"

/* The per-thread default stream forms (nvcc --default-stream per-thread) are the same calls. */
const struct sb_cuda_host_func sb_cuda_host_funcs[] = {
	{ "cudaLaunchKernel", SB_CUDA_HOST_LAUNCH },
	{ "cudaLaunchKernel_ptsz", SB_CUDA_HOST_LAUNCH | SB_CUDA_PER_THREAD },
	{ "cudaMemcpy", SB_CUDA_HOST_MEMCPY },
	{ "cudaMemcpy_ptds", SB_CUDA_HOST_MEMCPY | SB_CUDA_PER_THREAD },
	{ "cudaMemcpyAsync", SB_CUDA_HOST_MEMCPY_ASYNC },
	{ "cudaMemcpyAsync_ptsz", SB_CUDA_HOST_MEMCPY_ASYNC | SB_CUDA_PER_THREAD },
	{ "cudaMemset", SB_CUDA_HOST_MEMSET },
	{ "cudaMemset_ptds", SB_CUDA_HOST_MEMSET | SB_CUDA_PER_THREAD },
	{ "cudaMemsetAsync", SB_CUDA_HOST_MEMSET_ASYNC },
	{ "cudaMemsetAsync_ptsz", SB_CUDA_HOST_MEMSET_ASYNC | SB_CUDA_PER_THREAD },
	{ "cudaDeviceSynchronize", SB_CUDA_HOST_DEVICE_SYNCHRONIZE },
	{ "cudaStreamSynchronize", SB_CUDA_HOST_STREAM_SYNCHRONIZE },
	{ "cudaStreamSynchronize_ptsz", SB_CUDA_HOST_STREAM_SYNCHRONIZE | SB_CUDA_PER_THREAD },
	{ "cudaEventSynchronize", SB_CUDA_HOST_EVENT_SYNCHRONIZE },
	{ "cudaMalloc", SB_CUDA_HOST_MALLOC },
	{ "cudaFree", SB_CUDA_HOST_FREE },
};

const size_t sb_cuda_host_n_funcs = sizeof(sb_cuda_host_funcs) / sizeof(sb_cuda_host_funcs[0]);

/* In enum sb_cuda_host_op's order. */
static const char *const op_names[SB_CUDA_HOST_N_OPS] = {
	[SB_CUDA_HOST_LAUNCH] = "launch",
	[SB_CUDA_HOST_MEMCPY] = "memcpy",
	[SB_CUDA_HOST_MEMCPY_ASYNC] = "memcpy_async",
	[SB_CUDA_HOST_MEMSET] = "memset",
	[SB_CUDA_HOST_MEMSET_ASYNC] = "memset_async",
	[SB_CUDA_HOST_DEVICE_SYNCHRONIZE] = "device_synchronize",
	[SB_CUDA_HOST_STREAM_SYNCHRONIZE] = "stream_synchronize",
	[SB_CUDA_HOST_EVENT_SYNCHRONIZE] = "event_synchronize",
	[SB_CUDA_HOST_MALLOC] = "malloc",
	[SB_CUDA_HOST_FREE] = "free",
};

/* enum cudaMemcpyKind (driver_types.h), in its order. */
static const char *const copy_kinds[] = {
	"host-to-host", "host-to-device", "device-to-host", "device-to-device", "default",
};

const char *sb_cuda_host_op_name(unsigned int op)
{
	return op < SB_CUDA_HOST_N_OPS ? op_names[op] : NULL;
}

static const char *copy_kind(uint32_t kind)
{
	return kind < sizeof(copy_kinds) / sizeof(copy_kinds[0]) ? copy_kinds[kind] : "unknown";
}

void sb_cuda_stream_label(uint64_t stream, uint64_t n, char *buf, size_t size)
{
	if (!stream)
		snprintf(buf, size, "0");
	else if (stream == SB_CUDA_STREAM_LEGACY)
		snprintf(buf, size, "legacy");
	else if (stream == SB_CUDA_STREAM_PER_THREAD)
		snprintf(buf, size, "per-thread");
	else
		snprintf(buf, size, "%" PRIu64, n);
}

static bool has_stream(uint32_t op)
{
	return op == SB_CUDA_HOST_LAUNCH || op == SB_CUDA_HOST_MEMCPY_ASYNC || op == SB_CUDA_HOST_MEMSET_ASYNC ||
	       op == SB_CUDA_HOST_STREAM_SYNCHRONIZE;
}

/* What an operation's name says besides the operation: " key=value" pairs, or as tags. */
static int format_args(const struct sb_cuda_host_event *e, const char *kernel, const char *stream,
		       bool tags, char *buf, size_t size)
{
	const char *sep = tags ? ",cuda." : " ", *eq = tags ? ":" : "=";
	int n;

	switch (e->op) {
	case SB_CUDA_HOST_LAUNCH:
		n = snprintf(buf, size, "%skernel%s%.*s%sgrid%s%ux%ux%u%sblock%s%ux%ux%u", sep, eq,
			     SB_CUDA_KERNEL_SHOWN, kernel, sep, eq, e->grid[0], e->grid[1],
			     e->grid[2], sep, eq, e->block[0], e->block[1], e->block[2]);
		break;
	case SB_CUDA_HOST_MEMCPY:
	case SB_CUDA_HOST_MEMCPY_ASYNC:
		n = snprintf(buf, size, "%sbytes%s%" PRId64 "%s%s%s%s", sep, eq, (int64_t)e->bytes,
			     sep, tags ? "copy_kind" : "kind", eq, copy_kind(e->kind));
		break;
	case SB_CUDA_HOST_MEMSET:
	case SB_CUDA_HOST_MEMSET_ASYNC:
	case SB_CUDA_HOST_MALLOC:
		n = snprintf(buf, size, "%sbytes%s%" PRId64, sep, eq, (int64_t)e->bytes);
		break;
	default:
		n = snprintf(buf, size, "%s", "");
		break;
	}
	if (n < 0 || (size_t)n >= size || !has_stream(e->op))
		return n;
	return n + snprintf(buf + n, size - (size_t)n, "%sstream%s%s", sep, eq, stream);
}

int sb_cuda_host_format(const struct sb_cuda_host_event *e, const char *kernel, const char *stream,
			char *name, size_t name_size, char *tags, size_t tags_size)
{
	const char *op = sb_cuda_host_op_name(e->op);
	char args[SB_CUDA_HOST_TAGS_MAX];
	int n;

	if (!op)
		return -EINVAL;
	n = format_args(e, kernel, stream, false, args, sizeof(args));
	if (n < 0 || (size_t)n >= sizeof(args))
		return -ENOSPC;
	n = snprintf(name, name_size, "cuda:%s%s", op, args);
	if (n < 0 || (size_t)n >= name_size)
		return -ENOSPC;
	n = format_args(e, kernel, stream, true, args, sizeof(args));
	if (n < 0 || (size_t)n >= sizeof(args))
		return -ENOSPC;
	n = snprintf(tags, tags_size, "cuda,cuda.operation:%s%s", op, args);
	if (n < 0 || (size_t)n >= tags_size)
		return -ENOSPC;
	return 0;
}
