/*
 * `report --gpu`: kernels, copies and memsets by name, with the regions that
 * launched them; then the host time in each CUDA API function.
 */
#ifndef SB_RENDER_GPU_REPORT_H
#define SB_RENDER_GPU_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/cuda_api_sum.h"
#include "render/report.h"

#define SB_GPU_NO_REGION UINT32_MAX	/* launched outside every region */

/* The GPU time one region launched of a row's work. */
struct sb_gpu_launcher {
	uint32_t region;	/* index into p->regions, or SB_GPU_NO_REGION */
	uint64_t calls;
	int64_t ns;
};

/* One kernel (by name), one direction of copies, or memsets. */
struct sb_gpu_row {
	int32_t kind;		/* SB_CUDA_ACT_KERNEL, _MEMCPY or _MEMSET */
	char *name;		/* kernel: demangled when it can be; copies: "HtoD", ...; "memset" */
	const char *mangled;	/* kernel: the name as recorded (in p); else NULL */
	uint64_t calls;
	int64_t total;		/* GPU ns */
	int64_t min;
	int64_t max;
	int64_t bytes;		/* copies and memsets: bytes moved; kernels -1 */
	struct sb_gpu_launcher *launchers;	/* by GPU time, most first */
	size_t n_launchers;
};

struct sb_gpu_report {
	struct sb_gpu_row *rows;	/* by total GPU time, most first */
	size_t n_rows;
	uint64_t gpu_work;		/* activities that ran on a device */
	int64_t gpu_total;
	uint64_t host_calls;		/* CUDA API calls and synchronizations recorded */
	uint64_t syncs;
	int64_t sync_total;		/* time host threads waited in synchronizations */
	struct sb_cuda_api_sum api;	/* host time per CUDA API function */
};

/*
 * The GPU work of p (only rank's when rank >= 0). A launching call's index
 * row out of range counts as outside every region. 0, or -ENOMEM with err set.
 */
int sb_gpu_report_build(struct sb_gpu_report *r, const struct sb_profile *p, int64_t rank,
			struct sb_error *err);
void sb_gpu_report_free(struct sb_gpu_report *r);

/* Write r (built from p) as o->format; -EIO on a write error. */
int sb_gpu_report_render(FILE *f, const struct sb_profile *p, const struct sb_gpu_report *r,
			 const struct report_opts *o);

/* A C++ name demangled (util/demangle.h), or a copy of it as it is; NULL when out of memory. */
char *sb_gpu_display_name(const char *name);

#endif
