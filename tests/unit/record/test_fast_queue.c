/*
 * Tests for the chunk queue between the drainer and the recorder's thread: warm
 * memory is used before new memory and made again as it is used, the cap
 * refuses, passes arrive in order, emptied chunks come back, and a forked
 * command never shares the chunks.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "record/fast/queue.h"

#define MiB (1ul << 20)
#define STEP ((sizeof(struct sb_fast_chunk) + 63) & ~63ul)
#define PER_SLAB ((2 * MiB) / STEP)	/* chunks carved from a slab */

/* Every chunk the queue gives until it refuses or n are taken; how many. */
static size_t take_chunks(struct sb_fast_queue *q, struct sb_fast_chunk **got, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		got[i] = sb_fast_queue_chunk(q);
		if (!got[i])
			break;
	}
	return i;
}

static bool in_range(const void *p, const void *lo, size_t len)
{
	return (const char *)p >= (const char *)lo && (const char *)p < (const char *)lo + len;
}

static void test_warm_chunks_come_first_then_new_ones(void **state)
{
	static struct sb_fast_chunk *got[512];
	struct sb_fast_queue q;
	size_t warm, n, i;

	(void)state;
	assert_int_equal(sb_fast_queue_init(&q, SIZE_MAX), 0);
	while (sb_fast_queue_top_up(&q, 2 * PER_SLAB * STEP))
		;
	assert_int_equal(q.n_slabs, 2);
	for (warm = 0; warm < 512 && (got[warm] = q.spare); warm++)
		q.spare = got[warm]->next;
	/* Two slabs of chunks, aligned for huge pages, all of them offered. */
	assert_int_equal(warm, 2 * PER_SLAB);
	for (i = 0; i < warm; i++) {
		assert_true(in_range(got[i], q.slabs[0], 2 * MiB) ||
			    in_range(got[i], q.slabs[1], 2 * MiB));
		got[i]->next = q.spare;
		q.spare = got[i];
	}
	assert_int_equal((uintptr_t)q.slabs[0] % (2 * MiB), 0);
	n = take_chunks(&q, got, warm + 1);
	assert_int_equal(n, warm + 1);
	for (i = 0; i < warm; i++)
		assert_true(in_range(got[i], q.slabs[0], 2 * MiB) ||
			    in_range(got[i], q.slabs[1], 2 * MiB));
	/* The next one is carved from a third slab, empty as handed out. */
	assert_int_equal(q.n_slabs, 3);
	assert_true(in_range(got[warm], q.slabs[2], 2 * MiB));
	assert_int_equal(got[warm]->n, 0);
	assert_int_equal(got[warm]->n_runs, 0);
	assert_null(got[warm]->next);
	sb_fast_queue_free(&q);
}

/* Spares used are made again, up to the cap and no further. */
static void test_top_up_follows_use_within_the_cap(void **state)
{
	const size_t per_slab = PER_SLAB, slab = PER_SLAB * STEP;
	static struct sb_fast_chunk *got[1024];
	struct sb_fast_queue q;
	size_t n;

	(void)state;
	/* A cap of three slabs' worth of chunks. */
	assert_int_equal(sb_fast_queue_init(&q, 3 * per_slab), 0);
	assert_true(sb_fast_queue_top_up(&q, slab));
	assert_false(sb_fast_queue_top_up(&q, slab));
	n = take_chunks(&q, got, per_slab);
	assert_int_equal(n, per_slab);
	assert_int_equal(q.n_spare, 0);
	assert_int_equal(q.n_slabs, 1);
	/* The spares ran out: a second slab, then a third; the cap stops a fourth. */
	assert_true(sb_fast_queue_top_up(&q, slab));
	assert_int_equal(q.n_spare, per_slab);
	n = take_chunks(&q, got + per_slab, per_slab);
	assert_true(sb_fast_queue_top_up(&q, slab));
	n = take_chunks(&q, got + 2 * per_slab, per_slab);
	assert_false(sb_fast_queue_top_up(&q, slab));
	assert_int_equal(q.n_slabs, 3);
	sb_fast_queue_free(&q);
}

static void test_cap_refuses_until_taken_and_recycled(void **state)
{
	struct sb_fast_chunk *got[4], *list;
	struct sb_fast_queue q;
	struct sb_fast_mark mark;

	(void)state;
	assert_int_equal(sb_fast_queue_init(&q, 3), 0);
	assert_int_equal(take_chunks(&q, got, 3), 3);
	got[0]->next = got[1];
	got[1]->next = got[2];
	got[0]->n = 7;
	sb_fast_queue_push(&q, got[0], 1, 100, true);
	assert_null(sb_fast_queue_chunk(&q));
	list = sb_fast_queue_take(&q, &mark);
	assert_ptr_equal(list, got[0]);
	assert_int_equal(list->n, 7);
	assert_int_equal(mark.passes, 1);
	/* Taken: room again, and the emptied chunks are the ones given next, cleared. */
	sb_fast_queue_recycle(&q, list);
	assert_int_equal(take_chunks(&q, got + 0, 1), 1);
	assert_true(got[0] == list || got[0] == list->next || got[0] == list->next->next);
	assert_int_equal(got[0]->n, 0);
	sb_fast_queue_free(&q);
}

/* Chunks being nested count: the cap bounds all the queue's memory, not just what waits. */
static void test_cap_counts_taken_chunks(void **state)
{
	static struct sb_fast_chunk *got[PER_SLAB];
	struct sb_fast_chunk *list;
	struct sb_fast_queue q;
	struct sb_fast_mark mark;
	size_t i;

	(void)state;
	assert_int_equal(sb_fast_queue_init(&q, PER_SLAB), 0);
	assert_int_equal(take_chunks(&q, got, PER_SLAB), PER_SLAB);
	for (i = 0; i + 1 < PER_SLAB; i++)
		got[i]->next = got[i + 1];
	sb_fast_queue_push(&q, got[0], 1, 100, true);
	list = sb_fast_queue_take(&q, &mark);
	assert_int_equal(q.chunks, 0);
	assert_null(sb_fast_queue_chunk(&q));
	assert_false(sb_fast_queue_top_up(&q, STEP));
	assert_int_equal(q.n_slabs, 1);
	sb_fast_queue_recycle(&q, list);
	assert_non_null(sb_fast_queue_chunk(&q));
	sb_fast_queue_free(&q);
}

/* Short of memory: no new slab, by the warming thread or the drainer; spares still serve. */
static void test_no_growth_while_memory_is_short(void **state)
{
	static struct sb_fast_chunk *got[PER_SLAB + 1];
	struct sb_fast_queue q;

	(void)state;
	assert_int_equal(sb_fast_queue_init(&q, SIZE_MAX), 0);
	assert_true(sb_fast_queue_top_up(&q, STEP));
	sb_fast_queue_may_grow(&q, false);
	assert_false(sb_fast_queue_top_up(&q, 4 * PER_SLAB * STEP));
	assert_int_equal(take_chunks(&q, got, PER_SLAB + 1), PER_SLAB);
	assert_int_equal(q.n_slabs, 1);
	sb_fast_queue_may_grow(&q, true);
	assert_int_equal(take_chunks(&q, got, 1), 1);
	assert_int_equal(q.n_slabs, 2);
	sb_fast_queue_free(&q);
}

static void test_passes_arrive_in_order(void **state)
{
	struct sb_fast_chunk *a, *b, *list;
	struct sb_fast_queue q;
	struct sb_fast_mark mark;

	(void)state;
	assert_int_equal(sb_fast_queue_init(&q, SIZE_MAX), 0);
	a = sb_fast_queue_chunk(&q);
	b = sb_fast_queue_chunk(&q);
	sb_fast_queue_push(&q, a, 1, 100, true);
	sb_fast_queue_push(&q, NULL, 2, 200, true);
	/* Pass 3 left records in the rings: what was handed over reaches pass 2's start only. */
	sb_fast_queue_push(&q, b, 3, 300, false);
	list = sb_fast_queue_take(&q, &mark);
	assert_int_equal(mark.passes, 3);
	assert_int_equal(mark.complete_ns, 200);
	assert_ptr_equal(list, a);
	assert_ptr_equal(list->next, b);
	assert_null(b->next);
	/* An empty pass that left nothing behind: every record published before it is in. */
	sb_fast_queue_push(&q, NULL, 4, 400, true);
	assert_null(sb_fast_queue_take(&q, &mark));
	assert_int_equal(mark.passes, 4);
	assert_int_equal(mark.complete_ns, 400);
	sb_fast_queue_recycle(&q, list);
	sb_fast_queue_free(&q);
}

/*
 * The taker sleeps until records are handed to an empty queue: a push says so
 * once per take, not at every pass (a flood's passes come every 50 us).
 */
static void test_push_to_an_empty_queue_says_so_once(void **state)
{
	struct sb_fast_chunk *a, *b, *c, *list;
	struct sb_fast_queue q;
	struct sb_fast_mark mark;

	(void)state;
	assert_int_equal(sb_fast_queue_init(&q, SIZE_MAX), 0);
	a = sb_fast_queue_chunk(&q);
	b = sb_fast_queue_chunk(&q);
	c = sb_fast_queue_chunk(&q);
	assert_false(sb_fast_queue_push(&q, NULL, 1, 100, true));
	assert_true(sb_fast_queue_push(&q, a, 2, 200, true));
	assert_false(sb_fast_queue_push(&q, b, 3, 300, true));
	list = sb_fast_queue_take(&q, &mark);
	assert_true(sb_fast_queue_push(&q, c, 4, 400, true));
	sb_fast_queue_recycle(&q, list);
	sb_fast_queue_recycle(&q, sb_fast_queue_take(&q, &mark));
	sb_fast_queue_free(&q);
}

/* A command forked by the recorder must not share the chunks: each write of ours would fault. */
static void test_forked_child_does_not_map_the_chunks(void **state)
{
	struct sb_fast_queue q;
	unsigned char vec;
	int status;
	pid_t pid;

	(void)state;
	assert_int_equal(sb_fast_queue_init(&q, SIZE_MAX), 0);
	assert_true(sb_fast_queue_top_up(&q, 2 * MiB));
	assert_int_equal(mincore(q.slabs[0], 4096, &vec), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		_exit(mincore(q.slabs[0], 4096, &vec) == -1 && errno == ENOMEM ? 0 : 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	sb_fast_queue_free(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_warm_chunks_come_first_then_new_ones),
		cmocka_unit_test(test_top_up_follows_use_within_the_cap),
		cmocka_unit_test(test_cap_refuses_until_taken_and_recycled),
		cmocka_unit_test(test_cap_counts_taken_chunks),
		cmocka_unit_test(test_no_growth_while_memory_is_short),
		cmocka_unit_test(test_passes_arrive_in_order),
		cmocka_unit_test(test_push_to_an_empty_queue_says_so_once),
		cmocka_unit_test(test_forked_child_does_not_map_the_chunks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
