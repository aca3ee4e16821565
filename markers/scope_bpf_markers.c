/*
 * Markers named at run time, for code that cannot use the header's macros:
 * Fortran (markers/scope_bpf.f90), Python through ctypes (markers/scope_bpf.py)
 * and any language with a C FFI. Built as libscope_bpf_markers.so and .a.
 *
 * Each distinct name gets one site descriptor, made the first time a tracer
 * is attached when it is used, then reused; descriptors are never freed, since
 * the recorder caches them by address. They fire the header's own probes with
 * its own semaphores, so the recorder cannot tell them from SCOPE_BPF_BEGIN.
 * Untraced, a call costs the call and one semaphore load.
 *
 * Lookups take no lock: the table of names is an open-addressing array of
 * pointers published with release stores. Insertions take a mutex; a full
 * table is copied into one twice its size and the old one is kept, since a
 * reader may still be walking it.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scope_bpf.h"

#define EXPORT __attribute__((visibility("default")))
#define FIRST_SLOTS 64
#define TAGS_MAX 127			/* the recorder reads 128 bytes of tags (bpf/region.h) */

struct named_site {
	struct scope_bpf_site site;	/* its address is the probes' argument */
	uint64_t hash;
	size_t len;
	char name[];			/* NUL-terminated, then the tags if any; site.name points here */
};

struct name_table {
	size_t mask;			/* slots - 1, slots a power of two */
	struct name_table *older;	/* the table this one replaced */
	_Atomic(struct named_site *) slots[];
};

static _Atomic(struct name_table *) names;
static pthread_mutex_t insert_lock = PTHREAD_MUTEX_INITIALIZER;
static size_t n_names;			/* under insert_lock */
static bool warned_full;		/* under insert_lock */
static atomic_bool names_full;		/* SCOPE_BPF_NAMED_MAX names were taken */
#define STRINGIFY(x) #x
#define AS_TEXT(x) STRINGIFY(x)
/*
 * Where every name past the limit goes: their calls stay in the profile,
 * under one region that says why, rather than vanish without a count.
 */
static struct scope_bpf_site beyond_limit = {
	.magic = SCOPE_BPF_SITE_MAGIC,
	.version = SCOPE_BPF_SITE_VERSION,
	.name = "(names beyond " AS_TEXT(SCOPE_BPF_NAMED_MAX) ")",
};

/* FNV-1a, 64-bit. */
static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 14695981039346656037ULL;

	while (len--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static struct named_site *find(struct name_table *t, const char *name, size_t len, uint64_t h)
{
	struct named_site *s;
	size_t i;

	if (!t)
		return NULL;
	for (i = h & t->mask;; i = (i + 1) & t->mask) {
		s = atomic_load_explicit(&t->slots[i], memory_order_acquire);
		if (!s || (s->hash == h && s->len == len && !memcmp(s->name, name, len)))
			return s;
	}
}

/* Put s in the first free slot of its chain; the caller holds insert_lock. */
static void place(struct name_table *t, struct named_site *s)
{
	size_t i = s->hash & t->mask;

	while (atomic_load_explicit(&t->slots[i], memory_order_relaxed))
		i = (i + 1) & t->mask;
	atomic_store_explicit(&t->slots[i], s, memory_order_release);
}

static struct name_table *new_table(size_t slots, struct name_table *older)
{
	struct name_table *t = calloc(1, sizeof(*t) + slots * sizeof(t->slots[0]));
	size_t i;

	if (!t)
		return NULL;
	t->mask = slots - 1;
	t->older = older;
	for (i = 0; older && i <= older->mask; i++) {
		struct named_site *s = atomic_load_explicit(&older->slots[i], memory_order_relaxed);

		if (s)
			place(t, s);
	}
	return t;
}

/* A table with room for one more name (at most half full); the caller holds insert_lock. */
static struct name_table *table_with_room(void)
{
	struct name_table *t = atomic_load_explicit(&names, memory_order_relaxed);

	if (t && 2 * (n_names + 1) <= t->mask + 1)
		return t;
	t = new_table(t ? 2 * (t->mask + 1) : FIRST_SLOTS, t);
	if (t)
		atomic_store_explicit(&names, t, memory_order_release);
	return t;
}

static struct named_site *new_site(const char *name, size_t len, uint64_t h, const char *tags)
{
	size_t tags_len = tags ? strnlen(tags, TAGS_MAX) : 0;
	struct named_site *s = calloc(1, sizeof(*s) + len + 1 + tags_len + 1);

	if (!s)
		return NULL;
	memcpy(s->name, name, len);
	s->hash = h;
	s->len = len;
	s->site.magic = SCOPE_BPF_SITE_MAGIC;
	s->site.version = SCOPE_BPF_SITE_VERSION;
	s->site.name = s->name;
	if (tags_len) {
		memcpy(s->name + len + 1, tags, tags_len);
		s->site.tags = s->name + len + 1;
	}
	return s;
}

static struct named_site *insert(const char *name, size_t len, uint64_t h, const char *tags)
{
	struct named_site *s;
	struct name_table *t;

	pthread_mutex_lock(&insert_lock);
	s = find(atomic_load_explicit(&names, memory_order_relaxed), name, len, h);
	if (s)
		goto out;
	if (n_names >= SCOPE_BPF_NAMED_MAX) {
		if (!warned_full)
			fprintf(stderr, "scope_bpf: more than %d distinct region names: \"%.*s\" "
				"and later new names are recorded as \"%s\"\n", SCOPE_BPF_NAMED_MAX,
				(int)len, name, beyond_limit.name);
		warned_full = true;
		atomic_store_explicit(&names_full, true, memory_order_relaxed);
		goto out;
	}
	t = table_with_room();
	s = t ? new_site(name, len, h, tags) : NULL;
	if (s) {
		place(t, s);
		n_names++;
	}
out:
	pthread_mutex_unlock(&insert_lock);
	return s;
}

/*
 * The descriptor for the first len bytes of name (up to a NUL), cut to
 * SCOPE_BPF_NAME_MAX bytes as the recorder would cut it; NULL for a NULL or
 * empty name (or no memory); past SCOPE_BPF_NAMED_MAX names, the one site
 * that stands for all later new ones. A region's identity is its name: tags
 * (comma-separated, or NULL) are those of the call that made the descriptor,
 * as the recorder keeps the tags of a region's first site.
 */
struct scope_bpf_site *scope_bpf_impl_named_site_tagged(const char *name, size_t len,
							const char *tags)
{
	struct named_site *s;
	uint64_t h;

	if (!name)
		return NULL;
	len = strnlen(name, len < SCOPE_BPF_NAME_MAX ? len : SCOPE_BPF_NAME_MAX);
	if (!len)
		return NULL;
	h = hash_bytes(name, len);
	s = find(atomic_load_explicit(&names, memory_order_acquire), name, len, h);
	if (!s)
		s = insert(name, len, h, tags);
	if (!s && atomic_load_explicit(&names_full, memory_order_relaxed))
		return &beyond_limit;
	return s ? &s->site : NULL;
}

struct scope_bpf_site *scope_bpf_impl_named_site(const char *name, size_t len)
{
	return scope_bpf_impl_named_site_tagged(name, len, NULL);
}

#if SCOPE_BPF_ENABLED
/* Inlined into each exported function: an exported call to another would go through the PLT. */
static inline __attribute__((always_inline)) void fire_begin(const char *name, size_t len)
{
	struct scope_bpf_site *site;

	if (__builtin_expect(!scope_bpf_impl_traced(0), 1))
		return;
	site = scope_bpf_impl_named_site(name, len);
	if (site && !scope_bpf_impl_fast(site, 0))
		SCOPE_BPF_IMPL_PROBE(region_begin, site);
}

static inline __attribute__((always_inline)) void fire_end(const char *name, size_t len)
{
	struct scope_bpf_site *site;

	if (__builtin_expect(!scope_bpf_impl_traced(1), 1))
		return;
	site = scope_bpf_impl_named_site(name, len);
	if (site && !scope_bpf_impl_fast(site, SCOPE_BPF_IMPL_FAST_END))
		SCOPE_BPF_IMPL_PROBE(region_end, site);
}
#else
/* No probes on this target: the calls do nothing, as the header's markers do. */
static inline void fire_begin(const char *name, size_t len)
{
	(void)name;
	(void)len;
}

static inline void fire_end(const char *name, size_t len)
{
	(void)name;
	(void)len;
}
#endif

EXPORT void scope_bpf_begin_named(const char *name)
{
	fire_begin(name, SCOPE_BPF_NAME_MAX);
}

EXPORT void scope_bpf_end_named(const char *name)
{
	fire_end(name, SCOPE_BPF_NAME_MAX);
}

EXPORT void scope_bpf_begin_named_n(const char *name, size_t len)
{
	fire_begin(name, len);
}

EXPORT void scope_bpf_end_named_n(const char *name, size_t len)
{
	fire_end(name, len);
}
