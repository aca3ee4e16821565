/*
 * The regions an annotation API (NVTX, Kokkos Tools, ITT) has open on one
 * thread, kept by the annotation libraries (docs/ANNOTATIONS.md) so that each
 * end fires for the region it closes and the recorder always sees regions
 * nest: an end that would close a region with others still open inside it
 * (out of order, or sent from another thread) is held until they end.
 */
#ifndef SB_ANNOT_STACK_H
#define SB_ANNOT_STACK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define ANNOT_DEPTH 128		/* deeper opens are counted, not traced */
#define ANNOT_POSTS 64		/* ends from other threads waiting for the owner */

struct scope_bpf_site;

struct annot_frame {
	struct scope_bpf_site *site;	/* NULL: opened untraced, ends with no probe */
	uint64_t key;			/* what closes it without an id: a domain, a kind */
	uint64_t id;			/* 0: none; else what closes it by id */
	bool ended;			/* its end came while others were open inside it */
};

struct annot_stack {
	struct annot_frame frames[ANNOT_DEPTH];
	unsigned depth;
	unsigned beyond;		/* opens past ANNOT_DEPTH still open, untracked */
	uint64_t id_base;		/* this stack's ids: id_base + a count */
	uint64_t next_id;
	/* Ends of this thread's ranges sent by others (annot_post), taken by the owner. */
	pthread_mutex_t lock;
	atomic_uint posted;
	uint64_t posts[ANNOT_POSTS];
};

typedef void (*annot_end_fn)(struct scope_bpf_site *site);

void annot_stack_init(struct annot_stack *s, uint64_t id_base);

/* A new id for a region of this thread, never 0, unique among the ids of id_base. */
uint64_t annot_stack_id(struct annot_stack *s);

/* Push a region begun on site (NULL if untraced). False when too deep: the caller fires nothing. */
bool annot_open(struct annot_stack *s, struct scope_bpf_site *site, uint64_t key, uint64_t id);

/* End the innermost open region of key. False when none is open: an unbalanced end. */
bool annot_close_key(struct annot_stack *s, uint64_t key, annot_end_fn end);

/* End the open region of id on this thread. False when it has none. */
bool annot_close_id(struct annot_stack *s, uint64_t id, annot_end_fn end);

/* From another thread: the region of id on s has ended. False when the mailbox is full. */
bool annot_post(struct annot_stack *s, uint64_t id);

/* The owner, at each call: end the regions others said ended, once innermost. */
void annot_take_posts(struct annot_stack *s, annot_end_fn end);

#endif
