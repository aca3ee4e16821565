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

/* A call's identity: its event but name_hash and pad (type 0: a free slot). */
struct cached {
	struct sb_mpi_event key;
	struct scope_bpf_site *site;	/* NULL: a name the recorder could not take */
};

struct thread_cache {
	struct cached last[SB_MPI_N_OPS];	/* each operation's last call */
	struct cached slot[CACHE_SLOTS];	/* by hash, the calls before */
};

__thread bool pmpi_inside __attribute__((tls_model("initial-exec")));
static __thread struct thread_cache *cache __attribute__((tls_model("initial-exec")));
static __thread struct scope_bpf_site *open_site __attribute__((tls_model("initial-exec")));
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

/*
 * Field by field, each load as wide as the store that wrote the field: a
 * memcmp's 8- and 16-byte loads of an event just written a field at a time
 * could not take the values from the pending stores (store forwarding
 * failed), and each waited for them to reach the cache.
 */
static bool same_call(const struct sb_mpi_event *a, const struct sb_mpi_event *b)
{
	return a->type == b->type && a->op == b->op && a->bytes == b->bytes &&
	       a->peer == b->peer && a->root == b->root && a->tag == b->tag &&
	       a->comm == b->comm && a->request == b->request;
}

/* The site named for e, made (and the name formatted) the first time on this thread. */
static struct scope_bpf_site *named_site(const struct sb_mpi_event *e)
{
	char name[SB_NAME_MAX], tags[SB_MPI_TAGS_MAX];
	struct cached *c;

	c = &cache->slot[key_hash(e) & (CACHE_SLOTS - 1)];
	if (same_call(&c->key, e))
		return c->site;
	c->key = *e;
	c->site = NULL;
	if (!sb_mpi_format(e, name, sizeof(name), tags, sizeof(tags)))
		c->site = scope_bpf_impl_named_site_tagged(name, SCOPE_BPF_NAME_MAX, SITE_TAGS);
	return c->site;
}

/* The site of e: the last call of its operation again, or named_site's. */
static struct scope_bpf_site *site_of(struct sb_mpi_event *e)
{
	struct cached *last;

	if (__builtin_expect(!cache, 0)) {
		cache = calloc(1, sizeof(*cache));
		if (!cache)
			return NULL;
	}
	last = &cache->last[e->op < SB_MPI_N_OPS ? e->op : 0];
	if (__builtin_expect(same_call(&last->key, e), 1))
		return last->site;
	last->site = named_site(e);
	last->key = *e;
	return last->site;
}

void pmpi_begin(struct sb_mpi_event *e)
{
	/* MPI_ANY_SOURCE, MPI_PROC_NULL and the like are no rank. */
	if (e->peer < -1)
		e->peer = -1;
	if (e->tag < -1)
		e->tag = -1;
	pmpi_inside = true;
	open_site = site_of(e);
#if SCOPE_BPF_ENABLED
	if (open_site)
		scope_bpf_impl_begin(open_site);
#endif
}

void pmpi_end(void)
{
#if SCOPE_BPF_ENABLED
	if (open_site)
		scope_bpf_impl_end(open_site);
#endif
	open_site = NULL;
	pmpi_inside = false;
}
