/*
 * Fast-path records nested into calls: the events must be those the kernel
 * path (bpf/region.bpf.c) would send for the same begins and ends, with the
 * kernel path's own calls placed among them.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "record/fast/nest.h"

#define TGID 42
#define FNV 0x100000001b3ULL
#define NA 0xa1ULL
#define NB 0xb2ULL
#define NC 0xc3ULL
#define NK1 0x1111ULL
#define NK2 0x2222ULL
#define MAX_EV 4096

struct sink {
	int n;
	int unmatched;
	int fail;		/* returned by emit when non-zero */
	struct sb_call_event call[MAX_EV];
	struct sb_unmatched_event un[MAX_EV];
};

static int collect(void *ctx, const void *event, size_t size)
{
	struct sink *s = ctx;
	uint32_t type = *(const uint32_t *)event;

	if (type == SB_EV_CALL) {
		assert_int_equal(size, sizeof(struct sb_call_event));
		if (s->n < MAX_EV)
			memcpy(&s->call[s->n], event, size);
		s->n++;
	} else {
		assert_int_equal(type, SB_EV_UNMATCHED);
		assert_int_equal(size, sizeof(struct sb_unmatched_event));
		if (s->unmatched < MAX_EV)
			memcpy(&s->un[s->unmatched], event, size);
		s->unmatched++;
	}
	return s->fail;
}

/* push_frame_on's formula. */
static uint64_t path(uint64_t parent, uint64_t name)
{
	return ((parent ? parent : SB_PATH_SEED) ^ name) * FNV;
}

static struct sink *sink_new(void)
{
	return calloc(1, sizeof(struct sink));
}

struct fixture {
	struct sink *s;
	struct sb_fast_nest *n;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	f->s = sink_new();
	f->n = sb_fast_nest_new(TGID, collect, f->s);
	assert_non_null(f->n);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	sb_fast_nest_free(f->n);
	free(f->s);
	free(f);
	return 0;
}

static struct sb_fast_nest_stats stats(struct sb_fast_nest *n)
{
	struct sb_fast_nest_stats s;

	sb_fast_nest_stats(n, &s);
	return s;
}

/* A kernel call as region.bpf.c sends it, its paths from the kernel's own stack. */
static struct sb_call_event kcall(uint32_t tid, int64_t kid, int64_t kparent, uint32_t depth,
				  uint64_t start, uint64_t end, uint64_t name, uint64_t kpath)
{
	struct sb_call_event e = {
		.type = SB_EV_CALL, .tgid = TGID, .tid = tid, .depth = depth, .site = 1,
		.start = start, .end = end, .call_id = kid, .parent_id = kparent, .child_ns = 3,
		.offcpu_ns = 2, .path_hash = path(kpath, name), .parent_path = kpath,
		.name_hash = name,
	};
	return e;
}

static void nested_calls_carry_ids_paths_and_child_time(void **state)
{
	struct fixture *f = *state;
	struct sb_call_event *b, *a;

	assert_int_equal(sb_fast_nest_begin(f->n, 7, 100, NA, 0x1000), 0);
	assert_int_equal(sb_fast_nest_begin(f->n, 7, 110, NB, 0x2000), 0);
	assert_int_equal(stats(f->n).open_now, 2);
	assert_int_equal(sb_fast_nest_end(f->n, 7, 150, NB, 0x2008), 0);
	assert_int_equal(sb_fast_nest_begin(f->n, 7, 160, NB, 0x2000), 0);
	assert_int_equal(sb_fast_nest_end(f->n, 7, 165, NB, 0x2008), 0);
	assert_int_equal(sb_fast_nest_end(f->n, 7, 200, NA, 0x1008), 0);
	assert_int_equal(f->s->n, 3);
	b = &f->s->call[0];
	assert_int_equal(b->tgid, TGID);
	assert_int_equal(b->tid, 7);
	assert_int_equal(b->depth, 1);
	assert_int_equal(b->site, 0x2000);
	assert_int_equal(b->start, 110);
	assert_int_equal(b->end, 150);
	assert_int_equal(b->call_id, 1);
	assert_int_equal(b->parent_id, 0);
	assert_int_equal(b->child_ns, 0);
	assert_int_equal(b->path_hash, path(path(0, NA), NB));
	assert_int_equal(b->parent_path, path(0, NA));
	assert_int_equal(b->name_hash, NB);
	assert_int_equal(f->s->call[1].call_id, 2);
	a = &f->s->call[2];
	assert_int_equal(a->depth, 0);
	assert_int_equal(a->call_id, 0);
	assert_int_equal(a->parent_id, -1);
	assert_int_equal(a->parent_path, 0);
	assert_int_equal(a->path_hash, path(0, NA));
	assert_int_equal(a->child_ns, 40 + 5);
	assert_int_equal(a->start, 100);
	assert_int_equal(a->end, 200);
	assert_int_equal(stats(f->n).calls, 3);
	assert_int_equal(stats(f->n).open_now, 0);
}

static void end_without_begin_is_unmatched(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(sb_fast_nest_begin(f->n, 7, 100, NA, 0x1000), 0);
	assert_int_equal(sb_fast_nest_end(f->n, 7, 110, NC, 0x3008), 0);
	assert_int_equal(f->s->unmatched, 1);
	assert_int_equal(f->s->un[0].tgid, TGID);
	assert_int_equal(f->s->un[0].tid, 7);
	assert_int_equal(f->s->un[0].site, 0x3008);
	assert_int_equal(f->s->un[0].name_hash, NC);
	assert_int_equal(stats(f->n).unmatched_ends, 1);
	/* The open call is untouched. */
	assert_int_equal(sb_fast_nest_end(f->n, 7, 120, NA, 0x1008), 0);
	assert_int_equal(f->s->n, 1);
	assert_int_equal(f->s->call[0].call_id, 0);
	assert_int_equal(stats(f->n).open_dropped, 0);
}

static void end_of_outer_call_drops_the_calls_above(void **state)
{
	struct fixture *f = *state;

	sb_fast_nest_begin(f->n, 7, 100, NA, 1);
	sb_fast_nest_begin(f->n, 7, 110, NB, 2);
	sb_fast_nest_begin(f->n, 7, 120, NC, 3);
	sb_fast_nest_begin(f->n, 7, 125, NC, 3);
	/* The end of B: the two C frames lost their ends. */
	assert_int_equal(sb_fast_nest_end(f->n, 7, 130, NB, 2), 0);
	assert_int_equal(f->s->n, 1);
	assert_int_equal(f->s->call[0].name_hash, NB);
	assert_int_equal(f->s->call[0].depth, 1);
	assert_int_equal(f->s->call[0].child_ns, 0);
	assert_int_equal(stats(f->n).open_dropped, 2);
	assert_int_equal(stats(f->n).open_now, 1);
	/* C is gone: its end is unmatched. */
	sb_fast_nest_end(f->n, 7, 135, NC, 3);
	assert_int_equal(f->s->unmatched, 1);
	sb_fast_nest_end(f->n, 7, 140, NA, 1);
	assert_int_equal(f->s->call[1].child_ns, 20);
	assert_int_equal(f->s->call[1].call_id, 0);
}

static void same_name_ends_the_innermost(void **state)
{
	struct fixture *f = *state;

	sb_fast_nest_begin(f->n, 7, 100, NA, 1);
	sb_fast_nest_begin(f->n, 7, 110, NA, 1);
	sb_fast_nest_end(f->n, 7, 120, NA, 1);
	assert_int_equal(f->s->call[0].call_id, 1);
	assert_int_equal(f->s->call[0].depth, 1);
	assert_int_equal(f->s->call[0].path_hash, path(path(0, NA), NA));
}

static void calls_beyond_max_depth_are_counted_not_sent(void **state)
{
	struct fixture *f = *state;
	int i;

	for (i = 0; i < SB_MAX_DEPTH + 3; i++)
		sb_fast_nest_begin(f->n, 7, 100 + i, NA + (uint64_t)i, 1);
	assert_int_equal(stats(f->n).depth_overflow, 3);
	assert_int_equal(stats(f->n).open_now, SB_MAX_DEPTH);
	/* The first three ends unwind the overflow, whatever they name (as the kernel). */
	for (i = 0; i < 3; i++)
		sb_fast_nest_end(f->n, 7, 200 + i, NA, 1);
	assert_int_equal(f->s->n, 0);
	assert_int_equal(f->s->unmatched, 0);
	sb_fast_nest_end(f->n, 7, 210, NA + SB_MAX_DEPTH - 1, 1);
	assert_int_equal(f->s->n, 1);
	assert_int_equal(f->s->call[0].depth, SB_MAX_DEPTH - 1);
	assert_int_equal(f->s->call[0].call_id, SB_MAX_DEPTH - 1);
	/* Overflowed begins took no ids. */
	sb_fast_nest_begin(f->n, 8, 300, NB, 1);
	sb_fast_nest_end(f->n, 8, 310, NB, 1);
	assert_int_equal(f->s->call[1].call_id, SB_MAX_DEPTH);
}

static void threads_interleave_with_ids_in_entry_order(void **state)
{
	struct fixture *f = *state;

	sb_fast_nest_begin(f->n, 1, 100, NA, 1);
	sb_fast_nest_begin(f->n, 2, 50, NA, 1);	/* another thread's clock may be behind */
	sb_fast_nest_begin(f->n, 1, 110, NB, 2);
	sb_fast_nest_begin(f->n, 2, 60, NC, 3);
	sb_fast_nest_end(f->n, 2, 70, NC, 3);
	sb_fast_nest_end(f->n, 1, 120, NB, 2);
	sb_fast_nest_end(f->n, 1, 130, NA, 1);
	sb_fast_nest_end(f->n, 2, 90, NA, 1);
	assert_int_equal(stats(f->n).bad_time, 0);
	assert_int_equal(f->s->n, 4);
	assert_int_equal(f->s->call[0].tid, 2);
	assert_int_equal(f->s->call[0].call_id, 3);
	assert_int_equal(f->s->call[0].parent_id, 1);
	assert_int_equal(f->s->call[0].path_hash, path(path(0, NA), NC));
	assert_int_equal(f->s->call[1].call_id, 2);
	assert_int_equal(f->s->call[1].parent_id, 0);
	assert_int_equal(f->s->call[2].child_ns, 10);
	assert_int_equal(f->s->call[3].child_ns, 10);
	assert_int_equal(f->s->call[3].tid, 2);
}

static void offcpu_is_the_overlap_children_included(void **state)
{
	struct fixture *f = *state;

	sb_fast_nest_begin(f->n, 7, 100, NA, 1);
	sb_fast_nest_offcpu(f->n, 7, 120, 130);
	sb_fast_nest_begin(f->n, 7, 140, NB, 2);
	sb_fast_nest_offcpu(f->n, 7, 150, 170);
	sb_fast_nest_end(f->n, 7, 180, NB, 2);
	sb_fast_nest_offcpu(f->n, 7, 190, 195);
	sb_fast_nest_end(f->n, 7, 200, NA, 1);
	sb_fast_nest_offcpu(f->n, 7, 210, 220);		/* outside every call */
	sb_fast_nest_begin(f->n, 7, 230, NC, 3);
	sb_fast_nest_end(f->n, 7, 240, NC, 3);
	assert_int_equal(f->s->n, 3);
	assert_int_equal(f->s->call[0].offcpu_ns, 20);
	assert_int_equal(f->s->call[1].offcpu_ns, 10 + 20 + 5);
	assert_int_equal(f->s->call[2].offcpu_ns, 0);
}

static void offcpu_ahead_of_records_and_partial_overlap(void **state)
{
	struct fixture *f = *state;

	/* The intervals came before the records (which lag): each still counts where it lies. */
	sb_fast_nest_offcpu(f->n, 7, 50, 90);		/* before the call */
	sb_fast_nest_offcpu(f->n, 7, 95, 105);		/* 5 inside (clocks skew) */
	sb_fast_nest_offcpu(f->n, 7, 120, 130);
	sb_fast_nest_offcpu(f->n, 7, 195, 260);		/* 5 inside */
	sb_fast_nest_begin(f->n, 7, 100, NA, 1);
	sb_fast_nest_begin(f->n, 7, 110, NB, 2);
	sb_fast_nest_end(f->n, 7, 125, NB, 2);
	sb_fast_nest_end(f->n, 7, 200, NA, 1);
	assert_int_equal(f->s->call[0].offcpu_ns, 5);
	assert_int_equal(f->s->call[1].offcpu_ns, 5 + 10 + 5);
	/* The rest of the last interval belongs to the next call it overlaps. */
	sb_fast_nest_begin(f->n, 7, 250, NC, 3);
	sb_fast_nest_end(f->n, 7, 300, NC, 3);
	assert_int_equal(f->s->call[2].offcpu_ns, 10);
}

static void offcpu_beyond_the_cap_is_merged_keeping_the_total(void **state)
{
	struct fixture *f = *state;
	int i;

	sb_fast_nest_begin(f->n, 7, 100, NA, 1);
	for (i = 0; i < SB_FAST_NEST_MAX_GAPS + 50; i++)
		sb_fast_nest_offcpu(f->n, 7, 1000 + 10 * i, 1000 + 10 * i + 3);
	assert_int_equal(stats(f->n).offcpu_merged, 50);
	sb_fast_nest_end(f->n, 7, 100000, NA, 1);
	assert_int_equal(f->s->call[0].offcpu_ns, 3 * (SB_FAST_NEST_MAX_GAPS + 50));
}

static void kernel_call_is_placed_under_the_fast_call_open_at_its_start(void **state)
{
	struct fixture *f = *state;
	struct sb_call_event k = kcall(7, 500, -1, 0, 120, 130, NK1, 0), *e;

	sb_fast_nest_begin(f->n, 7, 100, NA, 1);
	assert_int_equal(sb_fast_nest_kernel_call(f->n, &k), 0);
	assert_int_equal(f->s->n, 0);	/* waits for a record after its start */
	sb_fast_nest_begin(f->n, 7, 140, NB, 2);
	assert_int_equal(f->s->n, 1);
	e = &f->s->call[0];
	assert_int_equal(e->call_id, 1);
	assert_int_equal(e->parent_id, 0);
	assert_int_equal(e->depth, 1);
	assert_int_equal(e->path_hash, path(path(0, NA), NK1));
	assert_int_equal(e->parent_path, path(0, NA));
	assert_int_equal(e->child_ns, 3);	/* the kernel's own numbers stay */
	assert_int_equal(e->offcpu_ns, 2);
	assert_int_equal(e->start, 120);
	sb_fast_nest_end(f->n, 7, 150, NB, 2);
	assert_int_equal(f->s->call[1].call_id, 2);
	sb_fast_nest_end(f->n, 7, 200, NA, 1);
	assert_int_equal(f->s->call[2].child_ns, 10 + 10);
	assert_int_equal(stats(f->n).kernel_calls, 1);
}

/*
 * A kernel child's off-CPU time, counted by the kernel, is a floor for its
 * fast parents when their intervals are missing (lost, or sent only once the
 * kernel learnt of the process's memory): off-CPU time stays inclusive.
 */
static void offcpu_of_a_fast_call_is_at_least_its_childrens(void **state)
{
	struct fixture *f = *state;
	struct sb_call_event k = kcall(7, 500, -1, 0, 120, 130, NK1, 0);

	k.offcpu_ns = 9;
	sb_fast_nest_begin(f->n, 7, 100, NA, 1);
	sb_fast_nest_begin(f->n, 7, 110, NB, 2);
	sb_fast_nest_kernel_call(f->n, &k);
	sb_fast_nest_offcpu(f->n, 7, 140, 144);		/* in NB, after the kernel call */
	sb_fast_nest_end(f->n, 7, 150, NB, 2);
	sb_fast_nest_offcpu(f->n, 7, 160, 180);		/* in NA only */
	sb_fast_nest_end(f->n, 7, 200, NA, 1);
	assert_int_equal(f->s->n, 3);
	assert_int_equal(f->s->call[0].offcpu_ns, 9);		/* the kernel call's own */
	assert_int_equal(f->s->call[1].offcpu_ns, 9);		/* NB: 4 seen < 9 below */
	assert_int_equal(f->s->call[2].offcpu_ns, 4 + 20);	/* NA: 24 seen >= 9 below */
	assert_int_equal(stats(f->n).offcpu_from_children, 1);
}

static void kernel_call_outside_fast_calls_is_top_level(void **state)
{
	struct fixture *f = *state;
	struct sb_call_event k = kcall(7, 500, -1, 0, 120, 130, NK1, 0);

	sb_fast_nest_begin(f->n, 7, 100, NA, 1);
	sb_fast_nest_end(f->n, 7, 110, NA, 1);
	sb_fast_nest_kernel_call(f->n, &k);
	sb_fast_nest_begin(f->n, 7, 140, NA, 1);
	assert_int_equal(f->s->call[1].call_id, 1);
	assert_int_equal(f->s->call[1].parent_id, -1);
	assert_int_equal(f->s->call[1].depth, 0);
	assert_int_equal(f->s->call[1].path_hash, path(0, NK1));
	assert_int_equal(f->s->call[1].parent_path, 0);
}

static void kernel_parent_arriving_after_its_child_keeps_the_first_id(void **state)
{
	struct fixture *f = *state;
	uint64_t kp1 = path(0, NK1);
	struct sb_call_event k2 = kcall(7, 11, 10, 1, 125, 128, NK2, kp1);
	struct sb_call_event k1 = kcall(7, 10, -1, 0, 120, 130, NK1, 0);
	uint64_t pa = path(0, NA);

	sb_fast_nest_begin(f->n, 7, 100, NA, 1);
	sb_fast_nest_kernel_call(f->n, &k2);
	sb_fast_nest_kernel_call(f->n, &k1);
	sb_fast_nest_end(f->n, 7, 200, NA, 1);
	assert_int_equal(f->s->n, 3);
	/* Placed in the order they ended, as the kernel sends them; K1 took its id first. */
	assert_int_equal(f->s->call[0].name_hash, NK2);
	assert_int_equal(f->s->call[0].call_id, 2);
	assert_int_equal(f->s->call[0].parent_id, 1);
	assert_int_equal(f->s->call[0].depth, 2);
	assert_int_equal(f->s->call[0].path_hash, path(path(pa, NK1), NK2));
	assert_int_equal(f->s->call[0].parent_path, path(pa, NK1));
	assert_int_equal(f->s->call[1].name_hash, NK1);
	assert_int_equal(f->s->call[1].call_id, 1);
	assert_int_equal(f->s->call[1].parent_id, 0);
	assert_int_equal(f->s->call[1].path_hash, path(pa, NK1));
	/* Only the direct child counts in A's child time. */
	assert_int_equal(f->s->call[2].child_ns, 10);
	assert_int_equal(stats(f->n).kernel_orphans, 0);
}

static void settle_places_children_before_their_parents_arrive(void **state)
{
	struct fixture *f = *state;
	uint64_t kp1 = path(0, NK1), kp2 = path(kp1, NK2), pa = path(0, NA);
	uint64_t p1 = path(pa, NK1), p2 = path(p1, NK2);
	struct sb_call_event k2 = kcall(7, 11, 10, 1, 125, 128, NK2, kp1);
	struct sb_call_event k3 = kcall(7, 13, 14, 2, 130, 131, NC, kp2);
	struct sb_call_event k2b = kcall(7, 14, 10, 1, 129, 135, NK2, kp1);
	struct sb_call_event k1 = kcall(7, 10, -1, 0, 120, 140, NK1, 0);
	struct sb_call_event *e = f->s->call;

	sb_fast_nest_begin(f->n, 7, 100, NA, 1);
	sb_fast_nest_kernel_call(f->n, &k2);
	assert_int_equal(sb_fast_nest_settle(f->n, 129), 0);
	assert_int_equal(f->s->n, 1);
	/* K1's id was taken first, its name read from the kernel's path of it. */
	assert_int_equal(e[0].call_id, 2);
	assert_int_equal(e[0].parent_id, 1);
	assert_int_equal(e[0].depth, 2);
	assert_int_equal(e[0].parent_path, p1);
	assert_int_equal(e[0].path_hash, p2);
	/* A grandchild of K1 under a second K2 not yet seen: that one is named through K1. */
	sb_fast_nest_kernel_call(f->n, &k3);
	sb_fast_nest_settle(f->n, 132);
	assert_int_equal(f->s->n, 2);
	assert_int_equal(e[1].call_id, 4);
	assert_int_equal(e[1].parent_id, 3);
	assert_int_equal(e[1].depth, 3);
	assert_int_equal(e[1].parent_path, p2);
	assert_int_equal(e[1].path_hash, path(p2, NC));
	/* The parents arrive: they keep the ids and places their children gave them. */
	sb_fast_nest_kernel_call(f->n, &k2b);
	sb_fast_nest_kernel_call(f->n, &k1);
	assert_int_equal(sb_fast_nest_settle(f->n, 141), 0);
	assert_int_equal(f->s->n, 4);
	assert_int_equal(e[2].call_id, 3);
	assert_int_equal(e[2].parent_id, 1);
	assert_int_equal(e[2].depth, 2);
	assert_int_equal(e[2].path_hash, p2);
	assert_int_equal(e[3].name_hash, NK1);
	assert_int_equal(e[3].call_id, 1);
	assert_int_equal(e[3].parent_id, 0);
	assert_int_equal(e[3].depth, 1);
	assert_int_equal(e[3].path_hash, p1);
	assert_int_equal(e[3].parent_path, pa);
	sb_fast_nest_end(f->n, 7, 200, NA, 1);
	assert_int_equal(e[4].child_ns, 20);
	assert_int_equal(stats(f->n).kernel_orphans, 0);
}

static void late_kernel_call_skips_fast_calls_begun_after_it(void **state)
{
	struct fixture *f = *state;
	struct sb_call_event k = kcall(7, 500, -1, 0, 120, 130, NK1, 0);

	sb_fast_nest_begin(f->n, 7, 100, NA, 1);
	sb_fast_nest_begin(f->n, 7, 140, NB, 2);
	sb_fast_nest_kernel_call(f->n, &k);
	sb_fast_nest_end(f->n, 7, 150, NB, 2);
	assert_int_equal(f->s->n, 2);
	assert_int_equal(f->s->call[0].name_hash, NK1);
	assert_int_equal(f->s->call[0].parent_id, 0);
	assert_int_equal(f->s->call[0].depth, 1);
	assert_int_equal(f->s->call[1].child_ns, 0);	/* B: K is no child of it */
	sb_fast_nest_end(f->n, 7, 200, NA, 1);
	assert_int_equal(f->s->call[2].child_ns, 10 + 10);
}

/* A kernel call's begin as region.bpf.c sends it for a fast-path process. */
static struct sb_kbegin_event kbegin(uint32_t tid, int64_t kid, int64_t kparent, uint32_t depth,
				     uint64_t start, uint64_t name)
{
	struct sb_kbegin_event b = {
		.type = SB_EV_KBEGIN, .tgid = TGID, .tid = tid, .depth = depth, .start = start,
		.call_id = kid, .parent_id = kparent, .name_hash = name,
	};
	return b;
}

/*
 * A marker inside an OpenMP body: the fast call begun in the kernel call
 * hangs under it, whose own time loses the fast call's (issue 25: before,
 * the marker sat beside it, the enclosing region's own time negative).
 */
static void fast_call_begun_in_a_kernel_call_hangs_under_it(void **state)
{
	struct fixture *f = *state;
	struct sb_kbegin_event b = kbegin(7, 500, -1, 0, 120, NK1);
	struct sb_call_event k = kcall(7, 500, -1, 0, 120, 200, NK1, 0), *e = f->s->call;

	sb_fast_nest_begin(f->n, 7, 100, NA, 1);
	assert_int_equal(sb_fast_nest_kernel_begin(f->n, &b), 0);
	sb_fast_nest_begin(f->n, 7, 130, NB, 2);
	sb_fast_nest_end(f->n, 7, 150, NB, 2);
	assert_int_equal(f->s->n, 1);
	assert_int_equal(e[0].name_hash, NB);
	assert_int_equal(e[0].call_id, 2);
	assert_int_equal(e[0].parent_id, 1);
	assert_int_equal(e[0].depth, 2);
	assert_int_equal(e[0].path_hash, path(path(path(0, NA), NK1), NB));
	assert_int_equal(e[0].parent_path, path(path(0, NA), NK1));
	assert_int_equal(sb_fast_nest_kernel_call(f->n, &k), 0);
	sb_fast_nest_end(f->n, 7, 300, NA, 1);
	assert_int_equal(f->s->n, 3);
	/* K keeps the id and place its begin took; its children: the kernel's 3, B's 20. */
	assert_int_equal(e[1].name_hash, NK1);
	assert_int_equal(e[1].call_id, 1);
	assert_int_equal(e[1].parent_id, 0);
	assert_int_equal(e[1].depth, 1);
	assert_int_equal(e[1].child_ns, 3 + 20);
	/* A's only child is K. */
	assert_int_equal(e[2].child_ns, 80);
	assert_int_equal(stats(f->n).kernel_begins, 1);
	assert_int_equal(stats(f->n).kernel_begins_late, 0);
}

/*
 * K0 (a parallel region) holds fast call F, which holds K1 (a barrier): K1
 * hangs under F, and K0's child time, which the kernel gave K1, becomes F's.
 */
static void kernel_call_in_a_fast_call_in_a_kernel_call(void **state)
{
	struct fixture *f = *state;
	struct sb_kbegin_event b0 = kbegin(7, 10, -1, 0, 100, NK1);
	struct sb_kbegin_event b1 = kbegin(7, 11, 10, 1, 120, NK2);
	struct sb_call_event k1 = kcall(7, 11, 10, 1, 120, 130, NK2, path(0, NK1));
	struct sb_call_event k0 = kcall(7, 10, -1, 0, 100, 150, NK1, 0), *e = f->s->call;
	uint64_t p0 = path(0, NK1), pf = path(p0, NA);

	k0.child_ns = 10;	/* the kernel's: K1 */
	k1.child_ns = 0;
	sb_fast_nest_kernel_begin(f->n, &b0);
	sb_fast_nest_begin(f->n, 7, 110, NA, 1);
	sb_fast_nest_kernel_begin(f->n, &b1);
	sb_fast_nest_kernel_call(f->n, &k1);
	sb_fast_nest_end(f->n, 7, 140, NA, 1);
	sb_fast_nest_kernel_call(f->n, &k0);
	sb_fast_nest_settle(f->n, 151);
	assert_int_equal(f->s->n, 3);
	assert_int_equal(e[0].name_hash, NK2);
	assert_int_equal(e[0].parent_id, 1);
	assert_int_equal(e[0].depth, 2);
	assert_int_equal(e[0].path_hash, path(pf, NK2));
	assert_int_equal(e[1].name_hash, NA);
	assert_int_equal(e[1].parent_id, 0);
	assert_int_equal(e[1].child_ns, 10);
	assert_int_equal(e[1].path_hash, pf);
	assert_int_equal(e[2].name_hash, NK1);
	assert_int_equal(e[2].call_id, 0);
	assert_int_equal(e[2].parent_id, -1);
	assert_int_equal(e[2].child_ns, 30);	/* F only: 10 + 30 - 10 */
	assert_int_equal(stats(f->n).kernel_orphans, 0);
}

/* A begin whose end was lost is closed by the next begin at its depth: later calls leave it. */
static void begin_without_end_is_closed_by_the_next_at_its_depth(void **state)
{
	struct fixture *f = *state;
	struct sb_kbegin_event lost = kbegin(7, 10, -1, 0, 100, NK1);
	struct sb_kbegin_event next = kbegin(7, 11, -1, 0, 200, NK2);
	struct sb_call_event k = kcall(7, 11, -1, 0, 200, 210, NK2, 0), *e = f->s->call;

	sb_fast_nest_kernel_begin(f->n, &lost);
	sb_fast_nest_kernel_begin(f->n, &next);
	sb_fast_nest_kernel_call(f->n, &k);
	sb_fast_nest_begin(f->n, 7, 220, NA, 1);
	sb_fast_nest_end(f->n, 7, 230, NA, 1);
	assert_int_equal(f->s->n, 2);
	assert_int_equal(e[0].name_hash, NK2);
	assert_int_equal(e[0].parent_id, -1);
	assert_int_equal(e[1].name_hash, NA);
	assert_int_equal(e[1].parent_id, -1);
	assert_int_equal(e[1].depth, 0);
}

/* A begin behind its thread's records is counted; calls begun before it came stay put. */
static void late_begin_is_counted(void **state)
{
	struct fixture *f = *state;
	struct sb_kbegin_event b = kbegin(7, 10, -1, 0, 120, NK1);

	sb_fast_nest_begin(f->n, 7, 130, NA, 1);
	sb_fast_nest_kernel_begin(f->n, &b);
	sb_fast_nest_end(f->n, 7, 140, NA, 1);
	assert_int_equal(stats(f->n).kernel_begins_late, 1);
	assert_int_equal(f->s->call[0].parent_id, -1);
	b.tgid = TGID + 1;
	assert_int_equal(sb_fast_nest_kernel_begin(f->n, &b), -EINVAL);
}

static void kernel_call_with_no_known_ancestry_is_an_orphan(void **state)
{
	struct fixture *f = *state;
	uint64_t kp2 = path(path(0, NK1), NK2);
	struct sb_call_event k = kcall(7, 12, 11, 2, 120, 130, NC, kp2);

	sb_fast_nest_begin(f->n, 7, 100, NA, 1);
	sb_fast_nest_kernel_call(f->n, &k);
	sb_fast_nest_settle(f->n, 131);
	assert_int_equal(stats(f->n).kernel_orphans, 1);
	assert_int_equal(f->s->call[0].parent_id, 0);
	assert_int_equal(f->s->call[0].depth, 1);
	assert_int_equal(f->s->call[0].path_hash, path(path(0, NA), NC));
}

static void settle_keeps_calls_that_end_later(void **state)
{
	struct fixture *f = *state;
	struct sb_call_event k = kcall(7, 500, -1, 0, 120, 150, NK1, 0);

	sb_fast_nest_kernel_call(f->n, &k);
	sb_fast_nest_settle(f->n, 140);
	assert_int_equal(f->s->n, 0);
	sb_fast_nest_settle(f->n, 151);
	assert_int_equal(f->s->n, 1);
	assert_int_equal(f->s->call[0].call_id, 0);
	sb_fast_nest_settle(f->n, 1000);
	assert_int_equal(f->s->n, 1);
}

/*
 * The budget is the process's, all threads together: two threads share it,
 * and only beyond it is a call placed early, the earliest of its thread.
 */
static void kernel_queue_overflow_places_early(void **state)
{
	const int total = (int)SB_FAST_NEST_MAX_QUEUED + 5;
	struct fixture *f = *state;
	struct sb_call_event k;
	int i;

	for (i = 0; i < total; i++) {
		k = kcall(7 + i % 2, 1000 + i, -1, 0, 100 + 2 * i, 101 + 2 * i, NK1, 0);
		assert_int_equal(sb_fast_nest_kernel_call(f->n, &k), 0);
	}
	assert_int_equal(stats(f->n).kernel_early, 5);
	assert_int_equal(f->s->n, 5);
	sb_fast_nest_settle(f->n, INT64_MAX);
	assert_int_equal(f->s->n, total);
	assert_int_equal(stats(f->n).kernel_calls, total);
}

static void kernel_call_of_another_process_is_refused(void **state)
{
	struct fixture *f = *state;
	struct sb_call_event k = kcall(7, 1, -1, 0, 120, 150, NK1, 0);

	k.tgid = TGID + 1;
	assert_int_equal(sb_fast_nest_kernel_call(f->n, &k), -EINVAL);
	k.tgid = TGID;
	k.end = 100;
	assert_int_equal(sb_fast_nest_kernel_call(f->n, &k), 0);
	assert_int_equal(stats(f->n).bad_time, 1);
}

static void thread_exit_drops_open_calls_and_places_its_kernel_calls(void **state)
{
	struct fixture *f = *state;
	struct sb_call_event k = kcall(7, 500, -1, 0, 120, 130, NK1, 0);

	sb_fast_nest_begin(f->n, 7, 100, NA, 1);
	sb_fast_nest_begin(f->n, 7, 110, NB, 2);
	sb_fast_nest_kernel_call(f->n, &k);
	sb_fast_nest_thread_exit(f->n, 7);
	assert_int_equal(f->s->n, 1);
	assert_int_equal(f->s->call[0].parent_id, 1);
	assert_int_equal(stats(f->n).open_dropped, 2);
	assert_int_equal(stats(f->n).open_now, 0);
	/* A new thread with the same id starts empty. */
	sb_fast_nest_end(f->n, 7, 50, NA, 1);
	assert_int_equal(f->s->unmatched, 1);
	assert_int_equal(stats(f->n).bad_time, 0);
	sb_fast_nest_thread_exit(f->n, 99);	/* unknown: nothing */
}

static void records_earlier_than_their_thread_are_dropped(void **state)
{
	struct fixture *f = *state;

	sb_fast_nest_begin(f->n, 7, 100, NA, 1);
	sb_fast_nest_begin(f->n, 7, 90, NB, 2);
	sb_fast_nest_end(f->n, 7, 95, NA, 1);
	assert_int_equal(stats(f->n).bad_time, 2);
	assert_int_equal(stats(f->n).open_now, 1);
	sb_fast_nest_end(f->n, 7, 110, NA, 1);
	assert_int_equal(f->s->n, 1);
	assert_int_equal(f->s->call[0].end, 110);
	assert_int_equal(f->s->call[0].child_ns, 0);
	sb_fast_nest_offcpu(f->n, 7, 130, 120);
	assert_int_equal(stats(f->n).bad_time, 3);
}

static void threads_beyond_the_limit_are_counted(void **state)
{
	struct fixture *f = *state;
	uint32_t tid;

	for (tid = 1; tid <= SB_FAST_NEST_MAX_THREADS + 2; tid++)
		assert_int_equal(sb_fast_nest_begin(f->n, tid, 1, NA, 1), 0);
	assert_int_equal(stats(f->n).threads_full, 2);
	assert_int_equal(stats(f->n).open_now, SB_FAST_NEST_MAX_THREADS);
}

/* A kernel call of a thread without room: its begin and its record are one call, counted once. */
static void kernel_call_beyond_the_limit_is_counted_once(void **state)
{
	struct fixture *f = *state;
	uint32_t tid, late = SB_FAST_NEST_MAX_THREADS + 1;
	struct sb_kbegin_event b = kbegin(late, 500, -1, 0, 120, NK1);
	struct sb_call_event k = kcall(late, 500, -1, 0, 120, 200, NK1, 0);

	for (tid = 1; tid < late; tid++)
		assert_int_equal(sb_fast_nest_begin(f->n, tid, 1, NA, 1), 0);
	assert_int_equal(sb_fast_nest_kernel_begin(f->n, &b), 0);
	assert_int_equal(sb_fast_nest_kernel_call(f->n, &k), 0);
	assert_int_equal(stats(f->n).threads_full, 1);
	assert_int_equal(stats(f->n).kernel_begins, 0);
}

static void emit_failure_is_passed_on(void **state)
{
	struct fixture *f = *state;

	sb_fast_nest_begin(f->n, 7, 100, NA, 1);
	f->s->fail = -ENOSPC;
	assert_int_equal(sb_fast_nest_end(f->n, 7, 110, NA, 1), -ENOSPC);
	assert_int_equal(sb_fast_nest_end(f->n, 7, 120, NB, 1), -ENOSPC);
	assert_int_equal(stats(f->n).open_now, 0);
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Records a hostile target could write: no crash, every id sent once, the open count right. */
static void hostile_records_keep_the_books(void **state)
{
	static const int64_t odd[] = { INT64_MIN, -1, 0, INT64_MAX };
	struct fixture *f = *state;
	struct sb_call_event k;
	uint64_t x = 0x9e3779b97f4a7c15ULL, r, name;
	uint64_t t[6] = { 0 };	/* by tid, wrapping */
	static uint8_t seen[8 * MAX_EV];
	uint32_t tid;
	int i;

	for (i = 0; i < 3000; i++) {
		r = rnd(&x);
		tid = 1 + (uint32_t)(r % 5);
		t[tid] += r >> 40 & 15;
		if ((r >> 8 & 63) == 0)
			t[tid] = (uint64_t)odd[r >> 20 & 3];
		switch (r >> 4 & 7) {
		case 0:
		case 1:
		case 2:
			sb_fast_nest_begin(f->n, tid, (int64_t)t[tid], NA + (r >> 16 & 3), r);
			break;
		case 3:
		case 4:
			/* Now and then a little earlier than the thread's last record. */
			name = NA + (r >> 18 & 3);
			sb_fast_nest_end(f->n, tid, (int64_t)(t[tid] - (r >> 60)), name, r);
			break;
		case 5:
			k = kcall(tid, (int64_t)(r >> 24 & 63), (int64_t)(r >> 30 & 63) - 8,
				  (uint32_t)(r >> 36 & 127), t[tid], t[tid] + (r >> 50),
				  NK1, r >> 3);
			sb_fast_nest_kernel_call(f->n, &k);
			break;
		case 6:
			sb_fast_nest_offcpu(f->n, tid, (int64_t)(t[tid] + (r >> 58)),
					    (int64_t)(t[tid] + (r >> 52)));
			if ((r >> 12 & 15) == 0)
				sb_fast_nest_settle(f->n, (int64_t)t[tid]);
			break;
		default:
			if ((r >> 12 & 7) == 0)
				sb_fast_nest_thread_exit(f->n, tid);
			break;
		}
	}
	for (tid = 1; tid <= 5; tid++)
		sb_fast_nest_thread_exit(f->n, tid);
	assert_int_equal(stats(f->n).open_now, 0);
	assert_true(f->s->n > 100 && f->s->n < MAX_EV);
	assert_int_equal(stats(f->n).calls, f->s->n);
	for (i = 0; i < f->s->n; i++) {
		assert_in_range(f->s->call[i].call_id, 0, 8 * MAX_EV - 1);
		assert_int_equal(seen[f->s->call[i].call_id]++, 0);
	}
}

static void many_threads_come_and_go(void **state)
{
	struct fixture *f = *state;
	uint64_t x = 12345;
	uint32_t tid[3000];
	int i;

	/* Scattered ids (a run of ids would hash without collisions). */
	for (i = 0; i < 3000; i++) {
		tid[i] = (uint32_t)(rnd(&x) << 12) | (uint32_t)i;
		sb_fast_nest_begin(f->n, tid[i], i, NA, 1);
	}
	/* Half exit: the others must still be found past the holes. */
	for (i = 0; i < 3000; i += 2)
		sb_fast_nest_thread_exit(f->n, tid[i]);
	for (i = 1; i < 3000; i += 2)
		sb_fast_nest_end(f->n, tid[i], 5000, NA, 1);
	assert_int_equal(f->s->unmatched, 0);
	assert_int_equal(f->s->n, 1500);
	assert_int_equal(stats(f->n).open_dropped, 1500);
	assert_int_equal(stats(f->n).open_now, 0);
	for (i = 0; i < f->s->n; i++) {
		assert_int_equal(f->s->call[i].tid, tid[2 * i + 1]);
		assert_int_equal(f->s->call[i].call_id, 2 * i + 1);
	}
}

static int count_only(void *ctx, const void *event, size_t size)
{
	(void)event;
	*(uint64_t *)ctx += size;
	return 0;
}

/* Not a pass/fail check of speed: prints ns per begin+end pair for the report. */
static void pairs_cost(void **state)
{
	uint64_t bytes = 0, i, pairs = 4000000;
	struct sb_fast_nest *n = sb_fast_nest_new(TGID, count_only, &bytes);
	struct timespec a, b;
	double ns;
	int64_t t = 1;

	(void)state;
	sb_fast_nest_begin(n, 7, t++, NA, 1);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < pairs; i++) {
		sb_fast_nest_begin(n, 7 + (uint32_t)(i >> 10 & 3), t++, NB, 2);
		sb_fast_nest_end(n, 7 + (uint32_t)(i >> 10 & 3), t++, NB, 2);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
	assert_int_equal(bytes, pairs * sizeof(struct sb_call_event));
	printf("fast nest: %.1f ns per begin+end pair\n", ns / (double)pairs);
	sb_fast_nest_free(n);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(nested_calls_carry_ids_paths_and_child_time),
		T(end_without_begin_is_unmatched),
		T(end_of_outer_call_drops_the_calls_above),
		T(same_name_ends_the_innermost),
		T(calls_beyond_max_depth_are_counted_not_sent),
		T(threads_interleave_with_ids_in_entry_order),
		T(offcpu_is_the_overlap_children_included),
		T(offcpu_ahead_of_records_and_partial_overlap),
		T(offcpu_beyond_the_cap_is_merged_keeping_the_total),
		T(kernel_call_is_placed_under_the_fast_call_open_at_its_start),
		T(offcpu_of_a_fast_call_is_at_least_its_childrens),
		T(kernel_call_outside_fast_calls_is_top_level),
		T(kernel_parent_arriving_after_its_child_keeps_the_first_id),
		T(settle_places_children_before_their_parents_arrive),
		T(late_kernel_call_skips_fast_calls_begun_after_it),
		T(fast_call_begun_in_a_kernel_call_hangs_under_it),
		T(kernel_call_in_a_fast_call_in_a_kernel_call),
		T(begin_without_end_is_closed_by_the_next_at_its_depth),
		T(late_begin_is_counted),
		T(kernel_call_with_no_known_ancestry_is_an_orphan),
		T(settle_keeps_calls_that_end_later),
		T(kernel_queue_overflow_places_early),
		T(kernel_call_of_another_process_is_refused),
		T(thread_exit_drops_open_calls_and_places_its_kernel_calls),
		T(records_earlier_than_their_thread_are_dropped),
		T(many_threads_come_and_go),
		T(threads_beyond_the_limit_are_counted),
		T(kernel_call_beyond_the_limit_is_counted_once),
		T(emit_failure_is_passed_on),
		T(hostile_records_keep_the_books),
		cmocka_unit_test(pairs_cost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
