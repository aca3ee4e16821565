/*
 * Records on their way from the drainer thread, which copies them out of the
 * traced processes' rings, to the recorder's thread, which nests them. The
 * drainer hands over whole chunks at the end of each pass over the rings, so
 * everything the recorder takes was copied by a pass that has completed.
 */
#ifndef SB_FAST_QUEUE_H
#define SB_FAST_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/fast/layout.h"

#define SB_FAST_CHUNK 512	/* records per chunk: 8 KiB, so a pass of a few records wastes little */
#define SB_FAST_CHUNK_RUNS 8	/* runs (one thread's records in a row) per chunk */
#define SB_FAST_SLAB_BYTES (2ul << 20)	/* what chunks are carved from */

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

/* How far the records handed over reach. */
struct sb_fast_mark {
	uint64_t passes;	/* passes completed */
	/*
	 * When the latest pass that left nothing in the rings began (0: none
	 * yet): every record published before then was handed over with it.
	 */
	int64_t complete_ns;
};

struct sb_fast_queue {
	pthread_mutex_t lock;
	struct sb_fast_chunk *head, *tail;	/* handed over, oldest first */
	struct sb_fast_chunk *spare;		/* emptied chunks for reuse */
	char **slabs;				/* what chunks are carved from */
	size_t n_slabs;
	char *carve;				/* the next chunk's place in the newest slab */
	size_t carve_left;
	size_t n_spare;
	size_t chunks;				/* handed over and not yet taken */
	size_t max_chunks;			/* all its memory, in chunks; beyond it records wait in the rings */
	bool may_grow;				/* false: the machine is short of memory, no new slabs */
	struct sb_fast_mark mark;		/* how far the handed-over records reach */
};

/* 0 or -errno. Its lock inherits the drainer's real-time priority (util/pi_mutex.h). */
int sb_fast_queue_init(struct sb_fast_queue *q, size_t max_chunks);
void sb_fast_queue_free(struct sb_fast_queue *q);
/*
 * One slab (2 MiB) of spare chunks faulted in when the spares are short of
 * bytes and the cap allows: true when it made one. Called in a loop by a
 * thread of its own, so a burst finds memory ready. New memory costs this VM
 * about 2 us a page on first touch, and a huge page 4 ms: a drainer that
 * copied into it would fall behind one thread's markers, while into warm
 * memory it copies 200 M records a second and more.
 */
bool sb_fast_queue_top_up(struct sb_fast_queue *q, size_t bytes);
/* Whether the spares are short of bytes and the cap allows a slab more: the queue would grow. */
bool sb_fast_queue_short(struct sb_fast_queue *q, size_t bytes);
/*
 * Whether new slabs may be made (the thread that warms them watches the
 * machine's memory): a recorder that took what the traced job needs would
 * have it killed or swapped out. Spares are still used.
 */
void sb_fast_queue_may_grow(struct sb_fast_queue *q, bool may);
/* An empty chunk, reused or new; NULL when the queue is full or memory is out. */
struct sb_fast_chunk *sb_fast_queue_chunk(struct sb_fast_queue *q);
/*
 * End of a pass: hand over the chunks filled during it (a list, may be NULL);
 * begun_ns: when it began; complete: it left no record in the rings. true
 * when the queue was empty and now holds records: a taker that sleeps is to be
 * woken (once per take, however many passes follow).
 */
bool sb_fast_queue_push(struct sb_fast_queue *q, struct sb_fast_chunk *list, uint64_t pass,
			int64_t begun_ns, bool complete);
/*
 * Bytes of the slabs made so far: the queue's memory at its largest, as
 * slabs are kept until it goes.
 */
uint64_t sb_fast_queue_bytes(struct sb_fast_queue *q);
/* Whether nothing is handed over and not yet taken. */
bool sb_fast_queue_empty(struct sb_fast_queue *q);
/* Take everything handed over; *mark: how far it reaches. */
struct sb_fast_chunk *sb_fast_queue_take(struct sb_fast_queue *q, struct sb_fast_mark *mark);
/* Give taken chunks back once read. */
void sb_fast_queue_recycle(struct sb_fast_queue *q, struct sb_fast_chunk *list);

#endif
