/*
 * CUDA activity as the kernel side delivers it (bpf/cuda_rec.h), kept until
 * the recording ends, then matched to its launches and region calls and put
 * in the profile (p->cuda, gpu_durations). Fed records, not probes; only a
 * kernel name the kernel side could not read is read from its process here.
 */
#ifndef SB_CUDA_STORE_H
#define SB_CUDA_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "cuda_rec.h"
#include "record/collect.h"
#include "util/hashmap.h"

/* One record as it arrived, its kernel name already resolved. */
struct sb_cuda_kept {
	uint32_t tgid;
	int64_t name;		/* index into names, -1 */
	struct sb_cuda_rec r;
};

struct sb_cuda_store {
	struct sb_cuda_kept *kept;
	size_t n, cap, max;	/* at most max kept: the rest are counted as lost */
	char **names;
	size_t n_names;
	struct sb_hashmap name_of;	/* (tgid, name id) -> index in names */
	uint64_t dropped;	/* records CUPTI itself dropped (it said how many) */
	uint64_t refused;	/* records malformed, or beyond max */
	uint64_t unranked;	/* kept, but their process has no rank: not in the profile */
	bool clock_offset;	/* a library's timestamp callback was refused (SB_CUDA_CLOCK) */
	int64_t clock_offset_ns;	/* the offset it measured and added, the last one heard */
	uint64_t launches;	/* API calls that launched GPU work */
	uint64_t attributed;	/* of those, made inside a region call */
};

void sb_cuda_store_init(struct sb_cuda_store *s, size_t max);
void sb_cuda_store_free(struct sb_cuda_store *s);

/*
 * One SB_EV_CUDA ring record; untrusted size and content. A name the kernel
 * side could not read is read from its process, which may be held until
 * then: the caller lets it go (stop_seq). 0 or -ENOMEM.
 */
int sb_cuda_store_record(struct sb_cuda_store *s, const void *data, size_t size);

/*
 * After sb_collector_finish(), before the events are streamed: each piece of
 * GPU work to its launching API call (same process and correlation id) and
 * that call to the innermost region call open on its thread
 * (sb_collector_attribute_gpu), then every activity into c->prof.cuda by
 * rank and start. 0 or -errno.
 */
int sb_cuda_store_contribute(struct sb_cuda_store *s, struct sb_collector *c);

#endif
