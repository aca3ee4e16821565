/*
 * Timed samples to the region path of the call open at their time, in the
 * one stream both transports' calls make (issue 25, stacks.h). The kernel's
 * read of a thread's open frames at sample time stays as the fallback: for a
 * sample no kept call holds, and for the samples without a timeline row.
 */
#include <errno.h>
#include <stdlib.h>

#include "record/sources/stacks.h"
#include "record/span_claim.h"

/* A timeline row to the path of its call (0: none holds it); a move when not its read path. */
static void repath(struct sb_collector *c, struct sb_timed_sample *t, uint64_t path,
		   struct sb_sample_move *moves, size_t *n)
{
	int64_t to;

	if (!path)
		return;
	to = sb_collector_path_id(c, path);
	if (to < 0 || to == t->path)
		return;
	moves[(*n)++] = (struct sb_sample_move){ .rank = t->rank, .thread = t->thread,
						 .ustack = t->ustack, .kstack = t->kstack,
						 .from = t->path, .to = to };
	t->path = to;
}

int sb_stacks_place_by_time(struct sb_stacks *st, struct sb_collector *c, struct sb_samples *o,
			    struct sb_span_point *places)
{
	size_t n = o->n_timeline, n_moves = 0, i;
	struct sb_sample_move *moves;
	uint64_t *path;
	int ret;

	if (!n)
		return 0;
	path = malloc(n * sizeof(*path));
	moves = malloc(n * sizeof(*moves));
	ret = path && moves ? sb_collector_place_samples(c, places, n, path) : -ENOMEM;
	for (i = 0; i < n && !ret; i++)
		repath(c, &o->timeline[i], path[i], moves, &n_moves);
	if (!ret)
		ret = sb_samples_move_cpu(o, moves, n_moves, &st->refused);
	if (!ret)
		st->moved += n_moves;
	free(path);
	free(moves);
	return ret;
}
