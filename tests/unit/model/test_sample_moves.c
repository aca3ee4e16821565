/* Unit: CPU sample aggregates follow the samples that moved to another region path by time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/model.h"

#define AGG(k, th, p, us, n, t) { .kind = (k), .rank = 0, .thread = (th), .path = (p), \
				  .ustack = (us), .kstack = -1, .count = (n), .ns = (t) }
#define MOVE(th, us, f, t) { .rank = 0, .thread = (th), .ustack = (us), .kstack = -1, \
			     .from = (f), .to = (t) }

static struct sb_sample *dup_rows(const struct sb_sample *v, size_t n)
{
	struct sb_sample *d = malloc(n * sizeof(*d));

	assert_non_null(d);
	memcpy(d, v, n * sizeof(*d));
	return d;
}

static const struct sb_sample *find(const struct sb_samples *s, uint32_t kind, int64_t thread,
				    int64_t path, int64_t ustack)
{
	size_t i;

	for (i = 0; i < s->n_samples; i++)
		if (s->samples[i].kind == kind && s->samples[i].thread == thread &&
		    s->samples[i].path == path && s->samples[i].ustack == ustack)
			return &s->samples[i];
	return NULL;
}

static uint64_t cpu_total(const struct sb_samples *s)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < s->n_samples; i++)
		n += s->samples[i].kind == SB_SAMPLE_CPU ? s->samples[i].count : 0;
	return n;
}

/*
 * Counts move between the aggregates of one thread and stack, into one made
 * for the purpose or one that exists; an emptied one goes; off-CPU rows stay.
 */
static void test_counts_follow_their_samples(void **state)
{
	static const struct sb_sample in[] = {
		AGG(SB_SAMPLE_CPU, 0, -1, 7, 3, 0),	/* read outside regions */
		AGG(SB_SAMPLE_CPU, 0, 2, 7, 5, 0),
		AGG(SB_SAMPLE_CPU, 1, -1, 8, 1, 0),
		AGG(SB_SAMPLE_OFFCPU, 0, -1, 7, 4, 900),
	};
	static const struct sb_sample_move m[] = {
		MOVE(0, 7, -1, 2), MOVE(0, 7, -1, 2),	/* into an existing row */
		MOVE(1, 8, -1, 4),			/* empties its row, makes one */
		MOVE(0, 7, -1, 3),
	};
	struct sb_samples s = { .samples = dup_rows(in, 4), .n_samples = 4 };
	uint64_t refused = 0;

	(void)state;
	assert_int_equal(sb_samples_move_cpu(&s, m, 4, &refused), 0);
	assert_int_equal(refused, 0);
	assert_int_equal(s.n_samples, 4);
	assert_int_equal(find(&s, SB_SAMPLE_CPU, 0, 2, 7)->count, 7);
	assert_int_equal(find(&s, SB_SAMPLE_CPU, 0, 3, 7)->count, 1);
	assert_null(find(&s, SB_SAMPLE_CPU, 0, -1, 7));
	assert_null(find(&s, SB_SAMPLE_CPU, 1, -1, 8));
	assert_int_equal(find(&s, SB_SAMPLE_CPU, 1, 4, 8)->count, 1);
	assert_int_equal(find(&s, SB_SAMPLE_OFFCPU, 0, -1, 7)->ns, 900);
	assert_int_equal(cpu_total(&s), 9);
	free(s.samples);
}

/*
 * Rows the kernel kept apart can read as one here (two region paths it had
 * not named are both -1): a move takes its count from either, and none is
 * refused while the two together have counts left.
 */
static void test_twin_rows_give_their_counts_together(void **state)
{
	static const struct sb_sample in[] = {
		AGG(SB_SAMPLE_CPU, 1, -1, 6, 1, 0),
		AGG(SB_SAMPLE_CPU, 0, 2, 7, 4, 0),
		AGG(SB_SAMPLE_CPU, 1, -1, 6, 2, 0),
	};
	static const struct sb_sample_move m[] = {
		MOVE(1, 6, -1, 5), MOVE(1, 6, -1, 5), MOVE(1, 6, -1, 5),
	};
	struct sb_samples s = { .samples = dup_rows(in, 3), .n_samples = 3 };
	uint64_t refused = 0;

	(void)state;
	assert_int_equal(sb_samples_move_cpu(&s, m, 3, &refused), 0);
	assert_int_equal(refused, 0);
	assert_null(find(&s, SB_SAMPLE_CPU, 1, -1, 6));
	assert_int_equal(find(&s, SB_SAMPLE_CPU, 1, 5, 6)->count, 3);
	assert_int_equal(cpu_total(&s), 7);
	free(s.samples);
}

/* A move its aggregate has no count for (a hostile or broken timeline) is refused, not made. */
static void test_a_move_without_a_count_is_refused(void **state)
{
	static const struct sb_sample in[] = { AGG(SB_SAMPLE_CPU, 0, 2, 7, 1, 0) };
	static const struct sb_sample_move m[] = {
		MOVE(0, 7, 2, 3), MOVE(0, 7, 2, 3), MOVE(0, 9, 2, 3),
	};
	struct sb_samples s = { .samples = dup_rows(in, 1), .n_samples = 1 };
	uint64_t refused = 0;

	(void)state;
	assert_int_equal(sb_samples_move_cpu(&s, m, 3, &refused), 0);
	assert_int_equal(refused, 2);
	assert_int_equal(s.n_samples, 1);
	assert_int_equal(find(&s, SB_SAMPLE_CPU, 0, 3, 7)->count, 1);
	assert_int_equal(cpu_total(&s), 1);
	free(s.samples);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_follow_their_samples),
		cmocka_unit_test(test_twin_rows_give_their_counts_together),
		cmocka_unit_test(test_a_move_without_a_count_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
