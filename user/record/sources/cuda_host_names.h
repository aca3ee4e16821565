/* CUDA runtime calls timed on the host: the functions probed, their regions' names and tags. */
#ifndef SB_CUDA_HOST_NAMES_H
#define SB_CUDA_HOST_NAMES_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "cuda_host.h"

#define SB_CUDA_HOST_NAME_MAX 640	/* a region name: a long kernel name is cut to fit */
#define SB_CUDA_HOST_TAGS_MAX 1024
#define SB_CUDA_KERNEL_SHOWN 400	/* the most of a kernel name a region name holds */

/* A libcudart function probed: its exported name and its probe's cookie. */
struct sb_cuda_host_func {
	const char *symbol;
	uint32_t cookie;	/* enum sb_cuda_host_op | SB_CUDA_PER_THREAD */
};

extern const struct sb_cuda_host_func sb_cuda_host_funcs[];
extern const size_t sb_cuda_host_n_funcs;

/* The operation's name in regions ("launch", "memcpy_async"), NULL when op is unknown. */
const char *sb_cuda_host_op_name(unsigned int op);

/* A stream as regions name it: "0", "legacy", "per-thread", else its number n in its process. */
void sb_cuda_stream_label(uint64_t stream, uint64_t n, char *buf, size_t size);

/*
 * The region name ("cuda:launch kernel=_Z6scalePfi grid=64x1x1 block=256x1x1
 * stream=0") and its tags, comma-separated ("cuda,cuda.operation:launch,..."),
 * with the kernel's name (launches) and the stream's label as given.
 * -EINVAL for an unknown operation, -ENOSPC when a buffer is too small.
 */
int sb_cuda_host_format(const struct sb_cuda_host_event *e, const char *kernel, const char *stream,
			char *name, size_t name_size, char *tags, size_t tags_size);

#endif
