/* The chunk queue between the drainer and the recorder's thread (queue.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "record/fast/queue.h"

#define SPARE_MAX 64	/* emptied chunks kept for reuse (64 MiB): a burst's next pass finds them */

void sb_fast_queue_init(struct sb_fast_queue *q, size_t max_chunks)
{
	pthread_mutex_init(&q->lock, NULL);
	q->head = q->tail = q->spare = NULL;
	q->chunks = 0;
	q->max_chunks = max_chunks;
	q->passes = 0;
}

static void free_list(struct sb_fast_chunk *c)
{
	struct sb_fast_chunk *next;

	for (; c; c = next) {
		next = c->next;
		munmap(c, sizeof(*c));
	}
}

void sb_fast_queue_free(struct sb_fast_queue *q)
{
	free_list(q->head);
	free_list(q->spare);
	q->head = q->tail = q->spare = NULL;
	pthread_mutex_destroy(&q->lock);
}

struct sb_fast_chunk *sb_fast_queue_chunk(struct sb_fast_queue *q)
{
	struct sb_fast_chunk *c = NULL;
	bool full;

	pthread_mutex_lock(&q->lock);
	full = q->chunks >= q->max_chunks;
	if (!full && q->spare) {
		c = q->spare;
		q->spare = c->next;
	}
	pthread_mutex_unlock(&q->lock);
	if (full)
		return NULL;
	if (!c) {
		c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (c == MAP_FAILED)
			c = NULL;
	}
	if (c) {
		c->next = NULL;
		c->n = 0;
		c->n_runs = 0;
	}
	return c;
}

void sb_fast_queue_push(struct sb_fast_queue *q, struct sb_fast_chunk *list, uint64_t pass)
{
	struct sb_fast_chunk *last = list;
	size_t n = list ? 1 : 0;

	while (last && last->next) {
		last = last->next;
		n++;
	}
	pthread_mutex_lock(&q->lock);
	if (list) {
		if (q->tail)
			q->tail->next = list;
		else
			q->head = list;
		q->tail = last;
		q->chunks += n;
	}
	q->passes = pass;
	pthread_mutex_unlock(&q->lock);
}

struct sb_fast_chunk *sb_fast_queue_take(struct sb_fast_queue *q, uint64_t *passes)
{
	struct sb_fast_chunk *list;

	pthread_mutex_lock(&q->lock);
	list = q->head;
	q->head = q->tail = NULL;
	q->chunks = 0;
	*passes = q->passes;
	pthread_mutex_unlock(&q->lock);
	return list;
}

void sb_fast_queue_recycle(struct sb_fast_queue *q, struct sb_fast_chunk *list)
{
	struct sb_fast_chunk *next;
	size_t kept = 0;

	pthread_mutex_lock(&q->lock);
	for (next = q->spare; next; next = next->next)
		kept++;
	for (; list; list = next) {
		next = list->next;
		if (kept < SPARE_MAX) {
			list->next = q->spare;
			q->spare = list;
			kept++;
		} else {
			munmap(list, sizeof(*list));
		}
	}
	pthread_mutex_unlock(&q->lock);
}
