/*
 * Records on their way from the drainer thread, which copies them out of the
 * traced processes' rings, to the recorder's thread, which nests them. The
 * drainer hands over whole chunks at the end of each pass over the rings, so
 * everything the recorder takes was copied by a pass that has completed.
 */
#ifndef SB_FAST_QUEUE_H
#define SB_FAST_QUEUE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "record/fast/layout.h"

#define SB_FAST_CHUNK 65536	/* records per chunk: 1 MiB */
#define SB_FAST_CHUNK_RUNS 1024	/* runs (one thread's records in a row) per chunk */

/* Records of one thread of one process in a row: recs[start, start + n) of the chunk. */
struct sb_fast_run {
	void *proc;		/* the recorder's process image they came from */
	uint32_t tid;
	uint32_t slot;
	uint32_t start;
	uint32_t n;
};

/* Records as the markers wrote them (16 bytes each), copied out, with who wrote them. */
struct sb_fast_chunk {
	struct sb_fast_chunk *next;
	uint32_t n;		/* records used */
	uint32_t n_runs;
	struct sb_fast_run runs[SB_FAST_CHUNK_RUNS];
	struct scope_bpf_impl_fast_rec recs[SB_FAST_CHUNK];
};

struct sb_fast_queue {
	pthread_mutex_t lock;
	struct sb_fast_chunk *head, *tail;	/* handed over, oldest first */
	struct sb_fast_chunk *spare;		/* emptied chunks for reuse */
	size_t chunks;				/* handed over and not yet taken */
	size_t max_chunks;			/* beyond this the drainer leaves records in the rings */
	uint64_t passes;			/* completed passes */
};

void sb_fast_queue_init(struct sb_fast_queue *q, size_t max_chunks);
void sb_fast_queue_free(struct sb_fast_queue *q);
/* An empty chunk, reused or new; NULL when the queue is full or memory is out. */
struct sb_fast_chunk *sb_fast_queue_chunk(struct sb_fast_queue *q);
/* End of a pass: hand over the chunks filled during it (a list, may be NULL). */
void sb_fast_queue_push(struct sb_fast_queue *q, struct sb_fast_chunk *list, uint64_t pass);
/* Take everything handed over; *passes: the passes completed by then. */
struct sb_fast_chunk *sb_fast_queue_take(struct sb_fast_queue *q, uint64_t *passes);
/* Give taken chunks back once read. */
void sb_fast_queue_recycle(struct sb_fast_queue *q, struct sb_fast_chunk *list);

#endif
