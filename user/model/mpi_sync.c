/* Blocking MPI collectives as clock witnesses, and each rank's MPI_Init and MPI_Finalize. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/mpi_sync.h"

/* The integer after " key=" in name, or fallback when it has none. */
static int64_t name_field(const char *name, const char *key, int64_t fallback)
{
	char pat[32];
	const char *at;

	snprintf(pat, sizeof(pat), " %s=", key);
	at = strstr(name, pat);
	return at ? strtoll(at + strlen(pat), NULL, 10) : fallback;
}

/* Whether name is the region of MPI operation op: "mpi:OP" then a space or the end. */
static bool is_op(const char *name, const char *op)
{
	size_t n = strlen(op);

	return !strncmp(name, "mpi:", 4) && !strncmp(name + 4, op, n) &&
	       (name[4 + n] == ' ' || !name[4 + n]);
}

enum sb_mpi_sync sb_mpi_sync_kind(const char *name)
{
	static const char *const moving[] = { "allreduce", "allgather", "alltoall" };
	size_t i;

	if (is_op(name, "init") || is_op(name, "init_thread"))
		return SB_SYNC_INIT;
	if (is_op(name, "finalize"))
		return SB_SYNC_FINALIZE;
	if (name_field(name, "comm", -1) != SB_MPI_COMM_WORLD)
		return SB_SYNC_NONE;
	if (is_op(name, "barrier"))
		return SB_SYNC_COLLECTIVE;
	for (i = 0; i < sizeof(moving) / sizeof(moving[0]); i++)
		if (is_op(name, moving[i]) && name_field(name, "bytes", 0) > 0)
			return SB_SYNC_COLLECTIVE;
	return SB_SYNC_NONE;
}

bool sb_pair_first_call(const struct sb_pair *p, struct sb_call_span *s)
{
	s->entry = p->stats.start_minimum;
	return p->count && !__builtin_add_overflow(s->entry, p->stats.first, &s->exit);
}

bool sb_pair_last_call(const struct sb_pair *p, struct sb_call_span *s)
{
	s->exit = p->stats.end_maximum;
	return p->count && !__builtin_sub_overflow(s->exit, p->stats.last, &s->entry);
}

struct rank_times {
	int64_t init_exit;
	int64_t finalize_entry;
};

/* Each rank's earliest MPI_Init exit and MPI_Finalize entry, -1 where none. */
static void fill_times(const struct sb_profile *p, struct rank_times *t, uint32_t n)
{
	enum sb_mpi_sync kind;
	struct sb_call_span c;
	const struct sb_pair *q;
	size_t i;

	for (i = 0; i < n; i++)
		t[i] = (struct rank_times){ -1, -1 };
	for (i = 0; i < p->n_pairs; i++) {
		q = &p->pairs[i];
		kind = sb_mpi_sync_kind(p->regions[q->region].name);
		if (q->rank >= n || !sb_pair_first_call(q, &c))
			continue;
		if (kind == SB_SYNC_INIT &&
		    (t[q->rank].init_exit < 0 || c.exit < t[q->rank].init_exit))
			t[q->rank].init_exit = c.exit;
		if (kind == SB_SYNC_FINALIZE &&
		    (t[q->rank].finalize_entry < 0 || c.entry < t[q->rank].finalize_entry))
			t[q->rank].finalize_entry = c.entry;
	}
}

char *sb_mpi_rank_times_json(const struct sb_profile *p)
{
	uint32_t n = sb_profile_rank_count(p), r;
	struct rank_times *t = calloc(n ? n : 1, sizeof(*t));
	const char *sep = "";
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!t)
		return NULL;
	fill_times(p, t, n);
	f = open_memstream(&buf, &len);
	if (f) {
		fputc('[', f);
		for (r = 0; r < n; r++) {
			if (t[r].init_exit < 0 && t[r].finalize_entry < 0)
				continue;
			fprintf(f, "%s{\"rank\": %u, \"init_exit_ns\": %" PRId64
				", \"finalize_entry_ns\": %" PRId64 "}",
				sep, r, t[r].init_exit, t[r].finalize_entry);
			sep = ", ";
		}
		fputc(']', f);
		if (fclose(f)) {
			free(buf);
			buf = NULL;
		}
	}
	free(t);
	return buf;
}
