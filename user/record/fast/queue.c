/* The chunk queue between the drainer and the recorder's thread (queue.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "record/fast/queue.h"
#include "util/pi_mutex.h"

/*
 * Chunks are carved from 2 MiB slabs. New memory is slow here (about 2 us a
 * 4 KiB page), so sb_fast_queue_top_up() faults slabs in ahead of need, from
 * a thread that is not the drainer. Emptied chunks are kept for the next
 * burst; slabs go when the queue does. Small pages, not transparent huge
 * ones: a huge page comes from a free 2 MiB block, the kind a virtual
 * machine's kernel hands back to the hypervisor (free page reporting), and
 * faulting one in cost 3.5 ms a MiB here when cold, 0.19 when not, small
 * pages 0.5 either way; on a loaded host the warming thread's clearing of
 * huge pages was 29% of all CPU while a 10 M-call loop ran (quiet, small
 * pages saved little: docs/PERFORMANCE.md).
 */
#define CHUNK_STEP ((sizeof(struct sb_fast_chunk) + 63) & ~(size_t)63)

static char *map_slab(void)
{
	char *slab = mmap(NULL, SB_FAST_SLAB_BYTES, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (slab == MAP_FAILED)
		return NULL;
	madvise(slab, SB_FAST_SLAB_BYTES, MADV_NOHUGEPAGE);
	/* The command the recorder forks must not share it: each write would then fault. */
	madvise(slab, SB_FAST_SLAB_BYTES, MADV_DONTFORK);
	return slab;
}

/* Remember a slab for sb_fast_queue_free; the caller holds the lock. */
static bool keep_slab(struct sb_fast_queue *q, char *slab)
{
	char **slabs = realloc(q->slabs, (q->n_slabs + 1) * sizeof(*slabs));

	if (!slabs)
		return false;
	q->slabs = slabs;
	q->slabs[q->n_slabs++] = slab;
	return true;
}

/* A new slab to carve from; the caller holds the lock. */
static bool add_slab(struct sb_fast_queue *q)
{
	char *slab = map_slab();

	if (!slab)
		return false;
	if (!keep_slab(q, slab)) {
		munmap(slab, SB_FAST_SLAB_BYTES);
		return false;
	}
	q->carve = slab;
	q->carve_left = SB_FAST_SLAB_BYTES / CHUNK_STEP;
	return true;
}

int sb_fast_queue_init(struct sb_fast_queue *q, size_t max_chunks)
{
	int ret = sb_pi_mutex_init(&q->lock);

	if (ret)
		return ret;
	q->head = q->tail = q->spare = NULL;
	q->chunks = 0;
	q->max_chunks = max_chunks;
	q->mark = (struct sb_fast_mark){ 0 };
	q->slabs = NULL;
	q->n_slabs = 0;
	q->carve = NULL;
	q->carve_left = 0;
	q->n_spare = 0;
	q->may_grow = true;
	return 0;
}

/* Fault in a slab outside the lock (milliseconds here), then offer its chunks as spares. */
static bool warm_slab(struct sb_fast_queue *q)
{
	char *slab = map_slab(), *c;
	bool kept;

	if (!slab)
		return false;
	/*
	 * The kernel fills the page table in one call, without a fault and a
	 * return to user space per page as a memset takes; before 5.14 it is
	 * not known (EINVAL), and the memset does it.
	 */
	if (madvise(slab, SB_FAST_SLAB_BYTES, MADV_POPULATE_WRITE))
		memset(slab, 0, SB_FAST_SLAB_BYTES);
	pthread_mutex_lock(&q->lock);
	kept = keep_slab(q, slab);
	for (c = slab; kept && c + CHUNK_STEP <= slab + SB_FAST_SLAB_BYTES; c += CHUNK_STEP) {
		((struct sb_fast_chunk *)c)->next = q->spare;
		q->spare = (struct sb_fast_chunk *)c;
		q->n_spare++;
	}
	pthread_mutex_unlock(&q->lock);
	if (!kept)
		munmap(slab, SB_FAST_SLAB_BYTES);
	return kept;
}

/* Whether a slab more stays within the queue's cap; the caller holds the lock. */
static bool under_cap(const struct sb_fast_queue *q)
{
	size_t cap_slabs = q->max_chunks > SIZE_MAX / CHUNK_STEP / 2 ? SIZE_MAX :
			   (q->max_chunks * CHUNK_STEP + SB_FAST_SLAB_BYTES - 1) / SB_FAST_SLAB_BYTES;

	return q->n_slabs < cap_slabs;
}

/* The cap bounds all its memory (chunks handed over, taken and spare); the caller holds the lock. */
static bool may_add_slab(const struct sb_fast_queue *q)
{
	return q->may_grow && under_cap(q);
}

bool sb_fast_queue_short(struct sb_fast_queue *q, size_t bytes)
{
	bool short_of;

	pthread_mutex_lock(&q->lock);
	short_of = q->n_spare * CHUNK_STEP < bytes && under_cap(q);
	pthread_mutex_unlock(&q->lock);
	return short_of;
}

/* Whether spares are short of bytes and a slab more may be made. */
static bool wants_slab(struct sb_fast_queue *q, size_t bytes)
{
	bool wants;

	pthread_mutex_lock(&q->lock);
	wants = q->n_spare * CHUNK_STEP < bytes && may_add_slab(q);
	pthread_mutex_unlock(&q->lock);
	return wants;
}

bool sb_fast_queue_top_up(struct sb_fast_queue *q, size_t bytes)
{
	return wants_slab(q, bytes) && warm_slab(q);
}

void sb_fast_queue_may_grow(struct sb_fast_queue *q, bool may)
{
	pthread_mutex_lock(&q->lock);
	q->may_grow = may;
	pthread_mutex_unlock(&q->lock);
}

void sb_fast_queue_free(struct sb_fast_queue *q)
{
	size_t i;

	for (i = 0; i < q->n_slabs; i++)
		munmap(q->slabs[i], SB_FAST_SLAB_BYTES);
	free(q->slabs);
	q->slabs = NULL;
	q->n_slabs = 0;
	q->head = q->tail = q->spare = NULL;
	pthread_mutex_destroy(&q->lock);
}

/* A chunk from the spares or the slab; the caller holds the lock. */
static struct sb_fast_chunk *get_chunk(struct sb_fast_queue *q)
{
	struct sb_fast_chunk *c = q->spare;

	if (c) {
		q->spare = c->next;
		q->n_spare--;
		return c;
	}
	if (!q->carve_left && !(may_add_slab(q) && add_slab(q)))
		return NULL;
	c = (struct sb_fast_chunk *)q->carve;
	q->carve += CHUNK_STEP;
	q->carve_left--;
	return c;
}

struct sb_fast_chunk *sb_fast_queue_chunk(struct sb_fast_queue *q)
{
	struct sb_fast_chunk *c = NULL;

	pthread_mutex_lock(&q->lock);
	if (q->chunks < q->max_chunks)
		c = get_chunk(q);
	pthread_mutex_unlock(&q->lock);
	if (c) {
		c->next = NULL;
		c->n = 0;
		c->n_runs = 0;
	}
	return c;
}

bool sb_fast_queue_push(struct sb_fast_queue *q, struct sb_fast_chunk *list, uint64_t pass,
			int64_t begun_ns, bool complete)
{
	struct sb_fast_chunk *last = list;
	size_t n = list ? 1 : 0;
	bool first;

	while (last && last->next) {
		last = last->next;
		n++;
	}
	pthread_mutex_lock(&q->lock);
	first = list && !q->head;
	if (list) {
		if (q->tail)
			q->tail->next = list;
		else
			q->head = list;
		q->tail = last;
		q->chunks += n;
	}
	q->mark.passes = pass;
	if (complete)
		q->mark.complete_ns = begun_ns;
	pthread_mutex_unlock(&q->lock);
	return first;
}

uint64_t sb_fast_queue_bytes(struct sb_fast_queue *q)
{
	uint64_t bytes;

	pthread_mutex_lock(&q->lock);
	bytes = (uint64_t)q->n_slabs * SB_FAST_SLAB_BYTES;
	pthread_mutex_unlock(&q->lock);
	return bytes;
}

bool sb_fast_queue_empty(struct sb_fast_queue *q)
{
	bool empty;

	pthread_mutex_lock(&q->lock);
	empty = !q->head;
	pthread_mutex_unlock(&q->lock);
	return empty;
}

struct sb_fast_chunk *sb_fast_queue_take(struct sb_fast_queue *q, struct sb_fast_mark *mark)
{
	struct sb_fast_chunk *list;

	pthread_mutex_lock(&q->lock);
	list = q->head;
	q->head = q->tail = NULL;
	q->chunks = 0;
	*mark = q->mark;
	pthread_mutex_unlock(&q->lock);
	return list;
}

void sb_fast_queue_recycle(struct sb_fast_queue *q, struct sb_fast_chunk *list)
{
	struct sb_fast_chunk *last = list;
	size_t n = 1;

	if (!list)
		return;
	for (; last->next; n++)
		last = last->next;
	pthread_mutex_lock(&q->lock);
	last->next = q->spare;
	q->spare = list;
	q->n_spare += n;
	pthread_mutex_unlock(&q->lock);
}
