/*
 * The fast path's rings as a transport (record/transport/fast_rings.c): the
 * watermark is the start of the latest pass that left nothing in the rings,
 * once every chunk taken with it is consumed, and none from a pass begun
 * before the latest memory joined.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "record/transport/fast_rings.h"

struct rig {
	struct sb_fast_queue q;
	struct sb_fast_rings r;
};

static int rig_setup(void **state)
{
	static struct rig rig;

	if (sb_fast_queue_init(&rig.q, 64))
		return -1;
	sb_fast_rings_init(&rig.r, &rig.q);
	*state = &rig;
	return 0;
}

static int rig_teardown(void **state)
{
	struct rig *rig = *state;

	sb_fast_rings_drop(&rig->r);
	sb_fast_queue_free(&rig->q);
	return 0;
}

static int64_t watermark(const struct sb_fast_rings *r)
{
	return r->transport.watermark_ns(&r->transport);
}

/* A pass of n chunks (each with one record), handed over as the drainer does. */
static void pass(struct rig *rig, uint64_t number, int n, int64_t begun, bool complete)
{
	struct sb_fast_chunk *list = NULL, *c;
	int i;

	for (i = 0; i < n; i++) {
		c = sb_fast_queue_chunk(&rig->q);
		assert_non_null(c);
		c->n = 1;
		c->next = list;
		list = c;
	}
	sb_fast_queue_push(&rig->q, list, number, begun, complete);
}

static int consume_all(struct sb_fast_rings *r)
{
	int n = 0;

	while (sb_fast_rings_next(r)) {
		sb_fast_rings_consumed(r);
		n++;
	}
	return n;
}

/* Nothing is proven before a complete pass, nor while its chunks are still being nested. */
static void test_watermark_after_consumed(void **state)
{
	struct rig *rig = *state;

	assert_true(watermark(&rig->r) == INT64_MIN);
	pass(rig, 1, 3, 1000, true);
	assert_true(watermark(&rig->r) == INT64_MIN);
	assert_int_equal(rig->r.transport.deliver(&rig->r.transport), 0);
	assert_non_null(sb_fast_rings_next(&rig->r));
	sb_fast_rings_consumed(&rig->r);
	sb_fast_rings_consumed(&rig->r);
	/* Two of three nested: the pass's records are not all in yet. */
	assert_true(watermark(&rig->r) == INT64_MIN);
	sb_fast_rings_consumed(&rig->r);
	assert_null(sb_fast_rings_next(&rig->r));
	assert_true(watermark(&rig->r) == 1000);
}

/* A pass that left records in the rings (the queue was full) does not move it. */
static void test_incomplete_pass_keeps_it(void **state)
{
	struct rig *rig = *state;

	pass(rig, 2, 1, 2000, false);
	rig->r.transport.deliver(&rig->r.transport);
	assert_int_equal(consume_all(&rig->r), 1);
	assert_true(watermark(&rig->r) == 1000);
	pass(rig, 3, 0, 3000, true);
	rig->r.transport.deliver(&rig->r.transport);
	assert_int_equal(consume_all(&rig->r), 0);
	assert_true(watermark(&rig->r) == 3000);
}

/*
 * A delivery while chunks wait takes nothing new: what a later pass
 * handed over stays queued until they are consumed, and then counts.
 */
static void test_deliver_waits_for_the_backlog(void **state)
{
	struct rig *rig = *state;

	pass(rig, 4, 2, 4000, true);
	rig->r.transport.deliver(&rig->r.transport);
	pass(rig, 5, 2, 5000, true);
	rig->r.transport.deliver(&rig->r.transport);
	assert_int_equal(consume_all(&rig->r), 2);
	assert_true(watermark(&rig->r) == 4000);
	rig->r.transport.deliver(&rig->r.transport);
	assert_int_equal(consume_all(&rig->r), 2);
	assert_true(watermark(&rig->r) == 5000);
}

/* A memory that joined after a pass began is not proven by it: only by one begun later. */
static void test_new_memory_waits_for_a_pass_after_it(void **state)
{
	struct rig *rig = *state;

	sb_fast_rings_adopted(&rig->r, 5500);
	assert_true(watermark(&rig->r) == INT64_MIN);
	pass(rig, 6, 1, 5400, true);
	rig->r.transport.deliver(&rig->r.transport);
	consume_all(&rig->r);
	assert_true(watermark(&rig->r) == INT64_MIN);
	pass(rig, 7, 1, 5600, true);
	rig->r.transport.deliver(&rig->r.transport);
	consume_all(&rig->r);
	assert_true(watermark(&rig->r) == 5600);
}

/* Chunks dropped after a consumer's error go back to the queue; the pass counts as done. */
static void test_drop_gives_chunks_back(void **state)
{
	struct rig *rig = *state;

	pass(rig, 8, 4, 8000, true);
	rig->r.transport.deliver(&rig->r.transport);
	sb_fast_rings_consumed(&rig->r);
	sb_fast_rings_drop(&rig->r);
	assert_null(sb_fast_rings_next(&rig->r));
	assert_true(sb_fast_queue_empty(&rig->q));
	assert_true(watermark(&rig->r) == 8000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_watermark_after_consumed),
		cmocka_unit_test(test_incomplete_pass_keeps_it),
		cmocka_unit_test(test_deliver_waits_for_the_backlog),
		cmocka_unit_test(test_new_memory_waits_for_a_pass_after_it),
		cmocka_unit_test(test_drop_gives_chunks_back),
	};

	return cmocka_run_group_tests(tests, rig_setup, rig_teardown);
}
