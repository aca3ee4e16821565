/*
 * The calling thread's stack of annotation regions (annot.h), and the probes
 * that begin and end them: this object is compiled into each annotation
 * library, so the probes and semaphores are the library's own.
 *
 * Stacks are found by slot for ends sent from another thread (an NVTX range
 * may end anywhere). A slot's stack is never freed: a thread's exit hands it
 * to the next new thread, under a new generation in its ids, so an end that
 * names a dead thread's range finds nothing to close. Past ANNOT_THREADS live
 * threads, a thread's stack has no slot: its ranges end on it alone.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "scope_bpf.h"
#include "annot.h"
#include "stack.h"

#define ANNOT_THREADS 4096
#define SLOT_SHIFT 48		/* an id: slot + 1, generation, count */
#define GEN_SHIFT 32

static struct annot_stack *slots[ANNOT_THREADS];
static uint32_t generation[ANNOT_THREADS];
static unsigned free_slots[ANNOT_THREADS], n_free, n_slots;	/* under slots_lock */
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static __thread struct annot_stack *mine;

static uint64_t id_base(unsigned slot)
{
	return ((uint64_t)slot + 1) << SLOT_SHIFT | (uint64_t)(generation[slot] & 0xffff) << GEN_SHIFT;
}

/* A thread's exit: its stack goes back to the free slots, or is freed if it had none. */
static void on_thread_exit(void *p)
{
	struct annot_stack *s = p;
	unsigned slot = (unsigned)(s->id_base >> SLOT_SHIFT);

	if (!slot) {
		pthread_mutex_destroy(&s->lock);
		free(s);
		return;
	}
	pthread_mutex_lock(&slots_lock);
	free_slots[n_free++] = slot - 1;
	pthread_mutex_unlock(&slots_lock);
}

static void make_key(void)
{
	pthread_key_create(&exit_key, on_thread_exit);
}

/* A dead thread's stack for this one, its fields reset under its lock (a poster may hold it). */
static struct annot_stack *reuse(unsigned slot)
{
	struct annot_stack *s = slots[slot];

	pthread_mutex_lock(&s->lock);
	generation[slot]++;
	s->depth = 0;
	s->beyond = 0;
	s->id_base = id_base(slot);
	s->next_id = 0;
	atomic_store_explicit(&s->posted, 0, memory_order_relaxed);
	pthread_mutex_unlock(&s->lock);
	return s;
}

static struct annot_stack *new_stack(void)
{
	struct annot_stack *s = NULL;

	pthread_once(&key_once, make_key);
	pthread_mutex_lock(&slots_lock);
	if (n_free) {
		s = reuse(free_slots[--n_free]);
	} else {
		s = malloc(sizeof(*s));
		if (s && n_slots < ANNOT_THREADS) {
			annot_stack_init(s, id_base(n_slots));
			__atomic_store_n(&slots[n_slots++], s, __ATOMIC_RELEASE);
		} else if (s) {
			annot_stack_init(s, 0);
		}
	}
	pthread_mutex_unlock(&slots_lock);
	if (s)
		pthread_setspecific(exit_key, s);
	return s;
}

#if SCOPE_BPF_ENABLED
static void fire_begin(struct scope_bpf_site *site)
{
	scope_bpf_impl_begin(site);
}

static void fire_end(struct scope_bpf_site *site)
{
	scope_bpf_impl_end(site);
}
#else
/* No probes on this target: the stacks are kept, nothing fires. */
static void fire_begin(struct scope_bpf_site *site)
{
	(void)site;
}

static void fire_end(struct scope_bpf_site *site)
{
	(void)site;
}
#endif

/* This thread's stack, with the ends other threads sent it applied. NULL: no memory. */
static struct annot_stack *stack(void)
{
	struct annot_stack *s = mine;

	if (__builtin_expect(!s, 0))
		s = mine = new_stack();
	if (s)
		annot_take_posts(s, fire_end);
	return s;
}

bool annot_traced(void)
{
#if SCOPE_BPF_ENABLED
	return scope_bpf_impl_traced(0);
#else
	return false;
#endif
}

uint64_t annot_new_id(void)
{
	struct annot_stack *s = stack();

	return s ? annot_stack_id(s) : 0;
}

void annot_begin(const char *name, const char *tags, uint64_t key, uint64_t id)
{
	struct annot_stack *s = stack();
	struct scope_bpf_site *site = NULL;

	if (!s)
		return;
	if (annot_traced())
		site = scope_bpf_impl_named_site_tagged(name, SCOPE_BPF_NAME_MAX, tags);
	if (annot_open(s, site, key, id) && site)
		fire_begin(site);
}

bool annot_end_key(uint64_t key)
{
	struct annot_stack *s = stack();

	return s && annot_close_key(s, key, fire_end);
}

bool annot_end_id(uint64_t id)
{
	struct annot_stack *s = stack(), *owner;
	uint64_t slot = id >> SLOT_SHIFT;

	if (s && annot_close_id(s, id, fire_end))
		return true;
	if (!slot || slot > ANNOT_THREADS)
		return false;
	owner = __atomic_load_n(&slots[slot - 1], __ATOMIC_ACQUIRE);
	return owner && owner != s && annot_post(owner, id);
}
