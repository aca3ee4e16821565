/* A small profile with CUDA activity, for the tests of what shows it (trace, HTML). */
#ifndef SB_TEST_CUDA_FIXTURE_H
#define SB_TEST_CUDA_FIXTURE_H

#include "fixtures.h"
#include "cuda_acts.h"

#define CU_ORIGIN 50	/* start_time_ns */

enum { CU_MAIN, CU_SOLVE };

/*
 * Two ranks; rank 0 has threads main (tid 4242) and worker (4243), rank 1
 * one thread (5252). Index rows: 0 main rank 0, 1 main rank 1, 2 solve rank 0.
 * With cuda, the activities of cu_add_activity().
 */
static inline void cu_build(struct sb_profile *p, bool cuda)
{
	static const struct sb_thread threads[] = {
		{ 0, 0, 4242, 90, 1100, -1, "main" },
		{ 0, 1, 4243, 240, -1, -1, "worker" },
		{ 1, 0, 5252, 140, 950, -1, "rank1" },
	};
	static const struct {
		uint32_t region, rank;
		struct sb_event e;
	} calls[] = {
		{ CU_MAIN, 0, { 100, 1000, 0, 1, -1, { -1, -1 } } },
		{ CU_MAIN, 1, { 150, 900, 0, 1, -1, { -1, -1 } } },
		{ CU_SOLVE, 0, { 200, 300, 0, 2, 1, { -1, -1 } } },
		{ CU_SOLVE, 0, { 250, 450, 1, 3, -1, { -1, -1 } } },
	};
	size_t i;

	sb_profile_init(p);
	p->format = strdup("synthetic");
	assert_int_equal(sb_profile_add_region(p, "main", "app.cu", 10, "[]"), CU_MAIN);
	assert_int_equal(sb_profile_add_region(p, "solve", "app.cu", 20, "[]"), CU_SOLVE);
	assert_int_equal(sb_profile_set_int(p, "mpi_size", 2), 0);
	assert_int_equal(sb_profile_set_int(p, "start_time_ns", CU_ORIGIN), 0);
	fx_add_threads(p, threads, 3);
	p->columns = SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID;
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		fx_add_call(p, calls[i].region, calls[i].rank, &calls[i].e);
	assert_int_equal(p->n_pairs, 3);
	if (cuda)
		cu_add_activity(p);
}

#endif
