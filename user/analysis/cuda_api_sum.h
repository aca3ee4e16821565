/*
 * Host time in each CUDA API function, as `nsys stats`' cuda_api_sum: the
 * runtime and driver calls CUPTI recorded (record --cuda), by function.
 */
#ifndef SB_CUDA_API_SUM_H
#define SB_CUDA_API_SUM_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

#define SB_CUDA_API_NAME_MAX 48

/* One function of the runtime or the driver, all its versions and variants together. */
struct sb_cuda_api_row {
	int32_t kind;		/* SB_CUDA_ACT_RUNTIME or _DRIVER */
	/* "cudaMemcpy"; unknown: "runtime callback 17", "driver call" (no callback id) */
	char name[SB_CUDA_API_NAME_MAX];
	uint64_t calls;
	int64_t total;		/* ns, the calls' host time */
	int64_t avg;		/* total / calls, rounded down */
	int64_t median;		/* of an even count, the mean of the two middle calls */
	int64_t min;
	int64_t max;
	int64_t stddev;		/* sample standard deviation (n - 1), rounded; 0 for one call */
};

struct sb_cuda_api_sum {
	struct sb_cuda_api_row *rows;	/* by total, most first; then by name */
	size_t n_rows;
	int64_t total;			/* all the rows' host time: the base of their shares */
};

/* The API calls of p (only rank's when rank >= 0): 0, or -ENOMEM. */
int sb_cuda_api_sum_build(struct sb_cuda_api_sum *s, const struct sb_profile *p, int64_t rank);
void sb_cuda_api_sum_free(struct sb_cuda_api_sum *s);

#endif
