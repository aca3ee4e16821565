/*
 * CUPTI activity records to struct sb_cuda_rec (bpf/cuda_rec.h), batched, with
 * kernel names sent once each. Pure: what leaves goes through a sink, so the
 * unit tests feed real CUPTI structs and read back what a probe would carry.
 */
#ifndef SB_CUPTI_CONVERT_H
#define SB_CUPTI_CONVERT_H

#include <linux/types.h>
#include <stddef.h>

#include <cupti.h>

#include "cuda_rec.h"
#include "names.h"

/* Where batches and names go: the library's probes, or a test's arrays. */
struct sb_cuda_sink {
	void (*batch)(void *ctx, const struct sb_cuda_rec *recs, __u32 n);
	void (*name)(void *ctx, __u32 id, const char *name);
	void *ctx;
};

struct sb_cuda_stats {
	__u64 records;		/* converted and handed to batches */
	__u64 skipped;		/* of kinds not converted */
	__u64 dropped;		/* that CUPTI dropped, as it reported */
	__u64 unnamed;		/* kernels without a name id: no name, or no memory */
};

struct sb_cuda_conv {
	struct sb_cuda_sink sink;
	struct sb_cuda_names names;
	struct sb_cuda_stats stats;
	__s64 clock_offset;	/* added to every time: CLOCK_MONOTONIC minus CUPTI's clock */
	__u32 clock_mode;	/* enum sb_cuda_clock */
	bool clock_sent;	/* with an offset: the SB_CUDA_CLOCK record went out, first of all */
	__u32 n;		/* records waiting in batch */
	struct sb_cuda_rec batch[SB_CUDA_BATCH_MAX];
};

void sb_cuda_conv_init(struct sb_cuda_conv *c, const struct sb_cuda_sink *sink);
void sb_cuda_conv_free(struct sb_cuda_conv *c);

/*
 * CUPTI's times need offset_ns added (its timestamp callback was refused);
 * before any record is converted. The recorder is told, first of all.
 */
void sb_cuda_conv_set_offset(struct sb_cuda_conv *c, __s64 offset_ns);

/* Send every name again: a tracer attached after they first went out. */
void sb_cuda_conv_resend_names(struct sb_cuda_conv *c);

/* One record without its name id; false for a kind not converted. */
bool sb_cuda_convert(const CUpti_Activity *act, struct sb_cuda_rec *out);

/*
 * The records of one completed CUPTI buffer, in order, then the count CUPTI
 * dropped for its context and stream (0: nothing sent); batches leave when
 * full and at the end.
 */
void sb_cuda_conv_buffer(struct sb_cuda_conv *c, const CUpti_Activity *const *acts, size_t n,
			 __u32 context, __u32 stream, size_t dropped);

#endif /* SB_CUPTI_CONVERT_H */
