/*
 * The OTF2 export's regions: MPI call regions (scope-profiler's names) become
 * one region per operation and, on MPI_COMM_WORLD, the message and collective
 * events OTF2 readers draw.
 */
#ifdef SB_HAVE_OTF2
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mpi.h"
#include "export/otf2_impl.h"
#include "model/mpi_sync.h"

struct collective {
	const char *op;
	OTF2_CollectiveOp otf2;
	enum sb_otf2_flow flow;
};

static const struct collective collectives[] = {
	{ "barrier", OTF2_COLLECTIVE_OP_BARRIER, SB_OTF2_ALL2ALL },
	{ "bcast", OTF2_COLLECTIVE_OP_BCAST, SB_OTF2_ONE2ALL },
	{ "gather", OTF2_COLLECTIVE_OP_GATHER, SB_OTF2_ALL2ONE },
	{ "gatherv", OTF2_COLLECTIVE_OP_GATHERV, SB_OTF2_ALL2ONE },
	{ "scatter", OTF2_COLLECTIVE_OP_SCATTER, SB_OTF2_ONE2ALL },
	{ "scatterv", OTF2_COLLECTIVE_OP_SCATTERV, SB_OTF2_ONE2ALL },
	{ "allgather", OTF2_COLLECTIVE_OP_ALLGATHER, SB_OTF2_ALL2ALL },
	{ "allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV, SB_OTF2_ALL2ALL },
	{ "alltoall", OTF2_COLLECTIVE_OP_ALLTOALL, SB_OTF2_ALL2ALL },
	{ "alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV, SB_OTF2_ALL2ALL },
	{ "allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE, SB_OTF2_ALL2ALL },
	{ "reduce", OTF2_COLLECTIVE_OP_REDUCE, SB_OTF2_ALL2ONE },
	{ "reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER, SB_OTF2_ALL2ALL },
	{ "reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, SB_OTF2_ALL2ALL },
	{ "scan", OTF2_COLLECTIVE_OP_SCAN, SB_OTF2_ALL2ALL },
	{ "exscan", OTF2_COLLECTIVE_OP_EXSCAN, SB_OTF2_ALL2ALL },
};

static int cmp_rank(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

uint32_t sb_otf2_rank_index(const struct sb_otf2 *c, int64_t rank)
{
	uint32_t key = (uint32_t)rank, *at;

	if (rank < 0 || rank >= SB_MAX_RANK || !c->n_ranks)
		return OTF2_UNDEFINED_UINT32;
	at = bsearch(&key, c->ranks, c->n_ranks, sizeof(*c->ranks), cmp_rank);
	return at ? (uint32_t)(at - c->ranks) : OTF2_UNDEFINED_UINT32;
}

static const struct collective *find_collective(const char *op)
{
	size_t i;

	for (i = 0; i < sizeof(collectives) / sizeof(collectives[0]); i++)
		if (!strcmp(collectives[i].op, op))
			return &collectives[i];
	return NULL;
}

/*
 * Receives: MPI_Recv, and a wait that completed one MPI_Irecv (its name
 * carries the receive's peer and tag). Only these say when the data arrived.
 */
static bool is_receive(const struct sb_mpi_call *m)
{
	if (!strcmp(m->kind, "point-to-point"))
		return !strcmp(m->op, "recv");
	return !strcmp(m->kind, "wait") && !strcmp(m->request, "irecv") &&
	       (!strcmp(m->op, "wait") || !strcmp(m->op, "waitany"));
}

/*
 * The events of an MPI call on MPI_COMM_WORLD. Messages need both ends as
 * ranks of the file and a tag: a receive from MPI_ANY_SOURCE or with
 * MPI_ANY_TAG (-1 in the name) cannot be matched to its send.
 */
static void classify(struct sb_otf2 *c, struct sb_otf2_region *r, const struct sb_mpi_call *m)
{
	const struct collective *coll;

	if (m->comm != SB_MPI_COMM_WORLD)
		return;
	r->bytes = m->bytes > 0 ? (uint64_t)m->bytes : 0;
	if (sb_mpi_is_send(m) || is_receive(m)) {
		r->peer = sb_otf2_rank_index(c, m->peer);
		if (r->peer == OTF2_UNDEFINED_UINT32 || m->tag < 0 || m->tag > UINT32_MAX)
			return;
		r->tag = (uint32_t)m->tag;
		r->mpi = sb_mpi_is_send(m) ? SB_OTF2_SEND : SB_OTF2_RECV;
	} else if (!strcmp(m->kind, "collective") && (coll = find_collective(m->op))) {
		r->mpi = SB_OTF2_COLLECTIVE;
		r->op = coll->otf2;
		r->flow = coll->flow;
		r->root_rank = m->root;
		r->root = sb_otf2_rank_index(c, m->root);
	}
	c->world |= r->mpi != SB_OTF2_PLAIN;
}

/* What an MPI call region does, for readers that group regions by role. */
static OTF2_RegionRole mpi_role(const struct sb_mpi_call *m)
{
	const struct collective *coll = find_collective(m->op);

	if (!strcmp(m->kind, "point-to-point"))
		return OTF2_REGION_ROLE_POINT2POINT;
	if (!coll)
		return OTF2_REGION_ROLE_FUNCTION;
	if (coll->otf2 == OTF2_COLLECTIVE_OP_BARRIER)
		return OTF2_REGION_ROLE_BARRIER;
	return coll->flow == SB_OTF2_ONE2ALL ? OTF2_REGION_ROLE_COLL_ONE2ALL :
	       coll->flow == SB_OTF2_ALL2ONE ? OTF2_REGION_ROLE_COLL_ALL2ONE :
					       OTF2_REGION_ROLE_COLL_ALL2ALL;
}

/* Region r, an MPI call of m: the operation's region, a new one the first time. */
static void map_mpi(struct sb_otf2 *c, struct sb_otf2_region *r, const struct sb_mpi_call *m,
		    uint32_t *refs, size_t *n)
{
	char fn[SB_OTF2_NAME_LEN];
	size_t i;

	sb_mpi_call_mpi_name(m, fn);
	r->role = mpi_role(m);
	for (i = 0; i < *n && strcmp(c->mpi_names[i], fn); i++)
		;
	if (i == *n) {
		strcpy(c->mpi_names[i], fn);
		refs[i] = c->n_region_refs++;
		(*n)++;
	}
	r->ref = refs[i];
	r->mpi_name = (int32_t)i;
	classify(c, r, m);
}

int sb_otf2_map_regions(struct sb_otf2 *c)
{
	const struct sb_profile *p = c->p;
	size_t i, n = 0, len = p->n_regions ? p->n_regions : 1;
	struct sb_mpi_call m;
	uint32_t *refs;

	c->regions = calloc(len, sizeof(*c->regions));
	c->mpi_names = calloc(len, sizeof(*c->mpi_names));
	refs = calloc(len, sizeof(*refs));
	if (!c->regions || !c->mpi_names || !refs) {
		free(refs);
		return -ENOMEM;
	}
	for (i = 0; i < p->n_regions; i++) {
		struct sb_otf2_region *r = &c->regions[i];

		*r = (struct sb_otf2_region){ .mpi_name = -1, .role = OTF2_REGION_ROLE_CODE,
					      .root = OTF2_UNDEFINED_UINT32, .root_rank = -1 };
		if (sb_mpi_parse(p->regions[i].name, &m))
			r->ref = c->n_region_refs++;
		else
			map_mpi(c, r, &m, refs, &n);
	}
	free(refs);
	return 0;
}
#endif
