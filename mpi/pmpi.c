/*
 * MPI calls as regions of the fast path (pmpi.h): each distinct (operation,
 * arguments) is named once per thread, as mpi_names.c names it for the
 * uprobe path, and its marker site kept in a small per-thread cache, so a
 * traced call costs two marker events and a cache probe: a comparison with
 * the last call of the same operation, which a loop repeats, and only where
 * it differs a hash into a table of the others.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi.h"
#include "record/sources/mpi_names.h"

#define CACHE_SLOTS 256			/* per thread, direct-mapped */
/*
 * Tags of every site: the recorder gives a region named by the MPI grammar
 * and tagged just "mpi" the uprobe path's full tags (markers keep 127 bytes
 * of tags, shorter than an MPI call's).
 */
#define SITE_TAGS "mpi"

struct scope_bpf_site *scope_bpf_impl_named_site_tagged(const char *name, size_t len,
							const char *tags);

struct thread_cache {
	struct pmpi_cached last[SB_MPI_N_OPS];	/* each operation's last call: pmpi_last */
	struct pmpi_cached slot[CACHE_SLOTS];	/* by hash, the calls before */
};

__thread bool pmpi_inside __attribute__((tls_model("initial-exec")));
__thread struct pmpi_cached *pmpi_last __attribute__((tls_model("initial-exec")));
static bool polling;

__attribute__((constructor)) static void read_options(void)
{
	const char *all = getenv("SCOPE_BPF_MPI_ALL");

	polling = all && !strcmp(all, "1");
}

bool pmpi_all(void)
{
	return polling;
}

/* Where the event's call is kept in the table. */
static uint64_t key_hash(const struct sb_mpi_event *e)
{
	uint64_t h = e->op * 0x9e3779b97f4a7c15ULL;

	h = (h ^ (uint64_t)e->bytes) * 0xbf58476d1ce4e5b9ULL;
	h = (h ^ ((uint64_t)(uint32_t)e->peer | (uint64_t)(uint32_t)e->root << 32)) *
	    0x94d049bb133111ebULL;
	h = (h ^ ((uint64_t)(uint32_t)e->tag | (uint64_t)(uint32_t)e->comm << 32)) *
	    0x9e3779b97f4a7c15ULL;
	h = (h ^ (uint32_t)e->request) * 0xbf58476d1ce4e5b9ULL;
	return h ^ h >> 31;
}

/* The site named for e, made (and the name formatted) the first time on this thread. */
static struct scope_bpf_site *named_site(struct thread_cache *cache,
					const struct sb_mpi_event *e)
{
	char name[SB_NAME_MAX], tags[SB_MPI_TAGS_MAX];
	struct pmpi_cached *c;

	c = &cache->slot[key_hash(e) & (CACHE_SLOTS - 1)];
	if (pmpi_same_call(&c->key, e))
		return c->site;
	c->key = *e;
	c->site = NULL;
	if (!sb_mpi_format(e, name, sizeof(name), tags, sizeof(tags)))
		c->site = scope_bpf_impl_named_site_tagged(name, SCOPE_BPF_NAME_MAX, SITE_TAGS);
	return c->site;
}

struct scope_bpf_site *pmpi_site(const struct sb_mpi_event *e)
{
	/* pmpi_last points at the table's first member. */
	struct thread_cache *cache = (struct thread_cache *)pmpi_last;
	struct pmpi_cached *last;

	if (!cache) {
		cache = calloc(1, sizeof(*cache));
		if (!cache)
			return NULL;
		pmpi_last = cache->last;
	}
	last = &cache->last[e->op < SB_MPI_N_OPS ? e->op : 0];
	last->site = named_site(cache, e);
	last->key = *e;
	return last->site;
}
