/* Synthetic runs for the scaling tests: per rank one "solve" holding "work" and an MPI barrier. */
#ifndef SB_TEST_SCALING_FIXTURE_H
#define SB_TEST_SCALING_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/model.h"

/*
 * Self-contained (no fixtures.h), so that the integration tests can build
 * these runs too.
 */

#define SC_BARRIER "mpi:barrier kind=collective bytes=0 peer=-1 root=-1 tag=-1 comm=1"

/* One call of region name on rank, thread 0, from start to end, off-CPU offcpu (-1: none). */
static inline void sc_call(struct sb_profile *p, const char *name, uint32_t rank, int64_t start,
			   int64_t end, int64_t offcpu)
{
	struct sb_event e = { .start = start, .end = end, .thread = 0, .call_id = -1,
			      .parent_id = -1,
			      .metric = { [SB_METRIC_GPU] = -1, [SB_METRIC_OFFCPU] = offcpu } };
	ssize_t r = sb_profile_find_region(p, name);
	struct sb_pair *pr;

	if (r < 0)
		r = sb_profile_add_region(p, name, "", -1, "[]");
	assert_true(r >= 0);
	p->pairs = realloc(p->pairs, (p->n_pairs + 1) * sizeof(*p->pairs));
	p->events = realloc(p->events, (p->n_events + 1) * sizeof(*p->events));
	assert_non_null(p->pairs);
	assert_non_null(p->events);
	pr = &p->pairs[p->n_pairs++];
	*pr = (struct sb_pair){ .region = (uint32_t)r, .rank = rank, .offset = p->n_events,
				.count = 1, .exclusive_total = -1 };
	sb_stats_init(&pr->stats);
	sb_stats_add(&pr->stats, start, end, -1);
	p->events[p->n_events++] = e;
}

/*
 * A run of prog on ranks ranks: on rank r, "solve" from 0 to work[r] +
 * wait[r], "work" in it for work[r], then the barrier for wait[r]. With
 * offcpu, work is off-CPU for half its time, and nothing else is.
 */
static inline void sc_run(struct sb_profile *p, const char *prog, uint32_t ranks,
			  const int64_t *work, const int64_t *wait, bool offcpu)
{
	struct sb_process proc = { .pid = 100, .ppid = 1, .rank = 0, .end_ns = -1,
				   .exit_code = 0, .command = (char *)prog };
	struct sb_thread th = { .index = 0, .end_ns = -1, .cpu_ns = -1, .name = "app" };
	int64_t none = offcpu ? 0 : -1;
	uint32_t r;

	sb_profile_init(p);
	p->format = strdup("synthetic");
	p->columns = offcpu ? SB_COL_OFFCPU : 0;
	for (r = 0; r < ranks; r++) {
		/* Off-CPU time is inclusive: solve's holds work's. */
		sc_call(p, "solve", r, 0, work[r] + wait[r], offcpu ? work[r] / 2 : -1);
		sc_call(p, "work", r, 0, work[r], offcpu ? work[r] / 2 : -1);
		sc_call(p, SC_BARRIER, r, work[r], work[r] + wait[r], none);
		th.rank = r;
		th.tid = 1000 + r;
		assert_true(sb_profile_add_thread(p, &th) >= 0);
	}
	assert_int_equal(sb_profile_set_int(p, "mpi_size", ranks), 0);
	if (prog)
		assert_true(sb_profile_add_process(p, &proc) >= 0);
}

/* A run where every rank works total / ranks and waits wait. */
static inline void sc_even(struct sb_profile *p, uint32_t ranks, int64_t total, int64_t wait)
{
	int64_t work[16], waits[16];
	uint32_t r;

	for (r = 0; r < ranks; r++) {
		work[r] = total / ranks;
		waits[r] = wait;
	}
	sc_run(p, "/opt/app/solver --size 10", ranks, work, waits, false);
}

#endif
