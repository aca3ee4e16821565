/* Unit: a timeline sorts as files keep it, by rank, then time, one answer for ties. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/model.h"

#define ROW(r, t, th, c) { .time = (t), .rank = (r), .cpu = (c), .thread = (th), .path = -1, \
			    .ustack = -1, .kstack = -1 }

static void test_rows_sort_by_rank_then_time_then_thread_then_cpu(void **state)
{
	/* As a ring delivers them: CPUs interleaved, ranks mixed, a few out of time order. */
	struct sb_timed_sample in[] = {
		ROW(1, 50, 0, 0), ROW(0, 30, 1, 1), ROW(0, 10, 0, 0), ROW(1, 20, 0, 1),
		ROW(0, 30, 0, 3), ROW(0, 30, 0, 2), ROW(0, 20, 2, 0),
	};
	static const struct sb_timed_sample want[] = {
		ROW(0, 10, 0, 0), ROW(0, 20, 2, 0), ROW(0, 30, 0, 2), ROW(0, 30, 0, 3),
		ROW(0, 30, 1, 1), ROW(1, 20, 0, 1), ROW(1, 50, 0, 0),
	};
	struct sb_samples s = { .timeline = in, .n_timeline = sizeof(in) / sizeof(in[0]) };
	size_t i;

	(void)state;
	sb_samples_sort_timeline(&s);
	for (i = 0; i < s.n_timeline; i++) {
		assert_int_equal(in[i].rank, want[i].rank);
		assert_int_equal(in[i].time, want[i].time);
		assert_int_equal(in[i].thread, want[i].thread);
		assert_int_equal(in[i].cpu, want[i].cpu);
	}
}

static void test_an_empty_timeline_sorts_to_itself(void **state)
{
	struct sb_samples s;

	(void)state;
	memset(&s, 0, sizeof(s));
	sb_samples_sort_timeline(&s);
	assert_null(s.timeline);
	assert_int_equal(s.n_timeline, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_sort_by_rank_then_time_then_thread_then_cpu),
		cmocka_unit_test(test_an_empty_timeline_sorts_to_itself),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
