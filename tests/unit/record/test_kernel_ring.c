/* The kernel ring's read position watched for a record never finished (record/transport/kernel_ring.c). */
#include "fixtures.h"
#include "record/transport/kernel_ring.h"

struct positions {
	unsigned long read, write;
};

static void reader_on(struct sb_ring_reader *rr, struct positions *p)
{
	memset(rr, 0, sizeof(*rr));
	rr->read_at = &p->read;
	rr->write_at = &p->write;
}

/* An empty ring holds nothing, however long it stays empty. */
static void test_empty_ring_is_not_held(void **state)
{
	struct positions p = { 64, 64 };
	struct sb_ring_reader rr;

	(void)state;
	reader_on(&rr, &p);
	assert_int_equal(sb_ring_held_ns(&rr, 1000), 0);
	assert_int_equal(sb_ring_held_ns(&rr, 5000000000LL), 0);
}

/* Reads standing at one record behind the write position: held since first seen so. */
static void test_read_standing_behind_writes_is_held(void **state)
{
	struct positions p = { 64, 128 };
	struct sb_ring_reader rr;

	(void)state;
	reader_on(&rr, &p);
	assert_int_equal(sb_ring_held_ns(&rr, 1000), 0);
	assert_int_equal(sb_ring_held_ns(&rr, 3000), 2000);
	p.write = 4096;
	assert_int_equal(sb_ring_held_ns(&rr, 2000001000LL), 2000000000LL);
}

/* A read that moves on, or a ring read to its end, starts the clock again. */
static void test_moving_reads_are_not_held(void **state)
{
	struct positions p = { 64, 128 };
	struct sb_ring_reader rr;

	(void)state;
	reader_on(&rr, &p);
	sb_ring_held_ns(&rr, 1000);
	p.read = 96;
	assert_int_equal(sb_ring_held_ns(&rr, 9000), 0);
	assert_int_equal(sb_ring_held_ns(&rr, 10000), 1000);
	p.read = 128;
	assert_int_equal(sb_ring_held_ns(&rr, 20000), 0);
	p.write = 256;
	assert_int_equal(sb_ring_held_ns(&rr, 30000), 0);
	assert_int_equal(sb_ring_held_ns(&rr, 30500), 500);
}

/* Without the positions mapped nothing can be told: never held. */
static void test_unmapped_positions_are_never_held(void **state)
{
	struct sb_ring_reader rr = { 0 };

	(void)state;
	assert_int_equal(sb_ring_held_ns(&rr, 1), 0);
	assert_int_equal(sb_ring_held_ns(&rr, 9000000000LL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_ring_is_not_held),
		cmocka_unit_test(test_read_standing_behind_writes_is_held),
		cmocka_unit_test(test_moving_reads_are_not_held),
		cmocka_unit_test(test_unmapped_positions_are_never_held),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
