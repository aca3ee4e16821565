/*
 * Unit tests of the annotation libraries' per-thread stacks (annot/stack.c):
 * ends fire innermost first, an end out of order or from another thread is
 * held until what is open inside it ends, unbalanced ends and the depth
 * limit leave the stack consistent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "stack.h"

/* Stand-ins for site descriptors: only their addresses matter here. */
static char site_a, site_b, site_c;
#define A ((struct scope_bpf_site *)&site_a)
#define B ((struct scope_bpf_site *)&site_b)
#define C ((struct scope_bpf_site *)&site_c)

static struct scope_bpf_site *ended[16];
static int n_ended;

static void record_end(struct scope_bpf_site *site)
{
	assert_true(n_ended < 16);
	ended[n_ended++] = site;
}

static int fresh(void **state)
{
	static struct annot_stack s;

	annot_stack_init(&s, 1ULL << 48);
	n_ended = 0;
	*state = &s;
	return 0;
}

static void test_pops_in_order(void **state)
{
	struct annot_stack *s = *state;

	assert_true(annot_open(s, A, 0, 0));
	assert_true(annot_open(s, B, 0, 0));
	assert_true(annot_close_key(s, 0, record_end));
	assert_true(annot_close_key(s, 0, record_end));
	assert_int_equal(n_ended, 2);
	assert_ptr_equal(ended[0], B);
	assert_ptr_equal(ended[1], A);
	assert_int_equal(s->depth, 0);
}

static void test_unbalanced_pop_is_refused(void **state)
{
	struct annot_stack *s = *state;

	assert_false(annot_close_key(s, 0, record_end));
	assert_true(annot_open(s, A, 7, 0));
	/* Another key's pop does not close it. */
	assert_false(annot_close_key(s, 0, record_end));
	assert_int_equal(n_ended, 0);
	assert_true(annot_close_key(s, 7, record_end));
	assert_ptr_equal(ended[0], A);
}

/* Start A, start B, end A, end B: A waits for B, so the recorder sees B inside A. */
static void test_out_of_order_end_waits(void **state)
{
	struct annot_stack *s = *state;
	uint64_t a = annot_stack_id(s), b = annot_stack_id(s);

	assert_int_not_equal(a, b);
	assert_true(annot_open(s, A, 0, a));
	assert_true(annot_open(s, B, 0, b));
	assert_true(annot_close_id(s, a, record_end));
	assert_int_equal(n_ended, 0);
	assert_false(annot_close_id(s, a, record_end));	/* already ended */
	assert_true(annot_close_id(s, b, record_end));
	assert_int_equal(n_ended, 2);
	assert_ptr_equal(ended[0], B);
	assert_ptr_equal(ended[1], A);
	assert_int_equal(s->depth, 0);
}

/* A pop finds the innermost push under a range with an id, which it does not end. */
static void test_pop_skips_ranges_with_ids(void **state)
{
	struct annot_stack *s = *state;
	uint64_t r = annot_stack_id(s);

	assert_true(annot_open(s, A, 0, 0));
	assert_true(annot_open(s, B, 0, r));
	assert_true(annot_close_key(s, 0, record_end));
	assert_int_equal(n_ended, 0);
	assert_true(annot_close_id(s, r, record_end));
	assert_int_equal(n_ended, 2);
	assert_ptr_equal(ended[0], B);
	assert_ptr_equal(ended[1], A);
}

/* Untraced opens (no site) still pair with their ends, which fire nothing. */
static void test_untraced_frames_fire_nothing(void **state)
{
	struct annot_stack *s = *state;

	assert_true(annot_open(s, NULL, 0, 0));
	assert_true(annot_open(s, C, 0, 0));
	assert_true(annot_close_key(s, 0, record_end));
	assert_true(annot_close_key(s, 0, record_end));
	assert_int_equal(n_ended, 1);
	assert_ptr_equal(ended[0], C);
}

static void test_posted_ends_apply_at_the_owners_next_call(void **state)
{
	struct annot_stack *s = *state;
	uint64_t r = annot_stack_id(s);

	assert_true(annot_open(s, A, 0, r));
	assert_true(annot_post(s, r));
	assert_int_equal(n_ended, 0);
	annot_take_posts(s, record_end);
	assert_int_equal(n_ended, 1);
	assert_ptr_equal(ended[0], A);
	/* A post for an id it does not have (a stale or made-up one) changes nothing. */
	assert_true(annot_open(s, B, 0, 0));
	assert_true(annot_post(s, r + 99));
	annot_take_posts(s, record_end);
	assert_int_equal(n_ended, 1);
	assert_int_equal(s->depth, 1);
}

static void test_full_mailbox_refuses(void **state)
{
	struct annot_stack *s = *state;
	int i;

	for (i = 0; i < ANNOT_POSTS; i++)
		assert_true(annot_post(s, 5));
	assert_false(annot_post(s, 5));
	annot_take_posts(s, record_end);
	assert_true(annot_post(s, 5));
}

/* Past the depth limit nothing is tracked, and the matching pops are absorbed. */
static void test_depth_limit(void **state)
{
	struct annot_stack *s = *state;
	int i;

	for (i = 0; i < ANNOT_DEPTH; i++)
		assert_true(annot_open(s, A, 0, 0));
	assert_false(annot_open(s, B, 0, 0));
	assert_false(annot_open(s, B, 0, 0));
	assert_true(annot_close_key(s, 0, record_end));
	assert_true(annot_close_key(s, 0, record_end));
	assert_int_equal(n_ended, 0);
	assert_true(annot_close_key(s, 0, record_end));
	assert_int_equal(n_ended, 1);
	assert_int_equal(s->depth, ANNOT_DEPTH - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_pops_in_order, fresh),
		cmocka_unit_test_setup(test_unbalanced_pop_is_refused, fresh),
		cmocka_unit_test_setup(test_out_of_order_end_waits, fresh),
		cmocka_unit_test_setup(test_pop_skips_ranges_with_ids, fresh),
		cmocka_unit_test_setup(test_untraced_frames_fire_nothing, fresh),
		cmocka_unit_test_setup(test_posted_ends_apply_at_the_owners_next_call, fresh),
		cmocka_unit_test_setup(test_full_mailbox_refuses, fresh),
		cmocka_unit_test_setup(test_depth_limit, fresh),
	};

	return cmocka_run_group_tests_name("annot_stack", tests, NULL, NULL);
}
