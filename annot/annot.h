/*
 * What the annotation libraries (nvtx/, kokkos/, itt/) share: regions named
 * at run time, begun and ended on the calling thread's stack (stack.h), as
 * scope_bpf markers of the library itself, so they take the fast path's ring
 * and nest with every other marker. Untraced, a call costs a semaphore load
 * and the bookkeeping of its thread's stack.
 */
#ifndef SB_ANNOT_H
#define SB_ANNOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct scope_bpf_site;

/* markers/scope_bpf_markers.c, linked into each library. */
struct scope_bpf_site *scope_bpf_impl_named_site_tagged(const char *name, size_t len,
							const char *tags);

/* Whether a tracer is attached to this library's markers: only then are names looked up. */
bool annot_traced(void);

/* A new id for a region of this thread that annot_end_id may end, from any thread. */
uint64_t annot_new_id(void);

/*
 * Begin the region name (tags: comma-separated, or NULL) on this thread's
 * stack, closed later by key (annot_end_key) or, when id is not 0, by id.
 */
void annot_begin(const char *name, const char *tags, uint64_t key, uint64_t id);

/* End the innermost open region of key on this thread. False: none is open. */
bool annot_end_key(uint64_t key);

/* End the region of id, on this thread or, from another, when its own thread next calls. */
bool annot_end_id(uint64_t id);

#endif
