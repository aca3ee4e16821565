/*
 * What the PMPI wrappers remember between calls, as the kernel side's maps
 * do for the uprobe path (bpf/mpi.bpf.h): the requests started and not yet
 * waited for, and what the process asked of its communicators. Both tables
 * are direct-mapped: a collision forgets the older entry, as the kernel's LRU
 * maps forget their oldest, and a forgotten request is an unknown one. A
 * request slot has a lock of its own, one atomic exchange to take, as every
 * non-blocking call and wait takes one: threads meet only on the same slot.
 */
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "pmpi.h"

#define REQUEST_SLOTS 16384
#define COMM_SLOTS 256

struct request_slot {
	const void *addr;	/* NULL: free */
	uint64_t handle;	/* the handle then at addr: a wait on another one is not this */
	struct sb_mpi_event call;
	uint32_t held;		/* 1 while a thread reads or writes the slot */
};

struct comm_slot {
	bool used;
	int32_t comm, rank, size;
};

static struct request_slot requests[REQUEST_SLOTS];
static struct comm_slot comms[COMM_SLOTS];
static pthread_mutex_t comms_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t mix(uint64_t x)
{
	x = (x ^ x >> 30) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ x >> 27) * 0x94d049bb133111ebULL;
	return x ^ x >> 31;
}

/* The slot of addr, held: a few stores long, so a thread that finds it held yields. */
static struct request_slot *hold_slot(const void *addr)
{
	struct request_slot *s = &requests[mix((uint64_t)(uintptr_t)addr) & (REQUEST_SLOTS - 1)];

	while (__atomic_exchange_n(&s->held, 1, __ATOMIC_ACQUIRE))
		sched_yield();
	return s;
}

static void release_slot(struct request_slot *s)
{
	__atomic_store_n(&s->held, 0, __ATOMIC_RELEASE);
}

void pmpi_request_started(const void *addr, uint64_t handle, const struct sb_mpi_event *e)
{
	struct request_slot *s = hold_slot(addr);

	s->addr = addr;
	s->handle = handle;
	s->call = *e;
	release_slot(s);
}

bool pmpi_request_find(const void *addr, uint64_t handle, bool take, struct sb_mpi_event *out)
{
	struct request_slot *s = hold_slot(addr);
	bool same = false;

	if (s->addr == addr) {
		same = s->handle == handle;
		if (same)
			*out = s->call;
		if (take)
			s->addr = NULL;
	}
	release_slot(s);
	return same;
}

void pmpi_request_forget(const void *addr)
{
	struct request_slot *s = hold_slot(addr);

	if (s->addr == addr)
		s->addr = NULL;
	release_slot(s);
}

static struct comm_slot *comm_slot(int32_t comm)
{
	return &comms[mix((uint32_t)comm) & (COMM_SLOTS - 1)];
}

void pmpi_learned(int32_t comm, int32_t rank, int32_t size)
{
	struct comm_slot *s = comm_slot(comm);

	if (comm == -1)
		return;
	pthread_mutex_lock(&comms_lock);
	if (!s->used || s->comm != comm)
		*s = (struct comm_slot){ .used = true, .comm = comm, .rank = -1, .size = -1 };
	if (rank >= 0)
		s->rank = rank;
	if (size >= 0)
		s->size = size;
	pthread_mutex_unlock(&comms_lock);
}

bool pmpi_comm_info(int32_t comm, int32_t *rank, int32_t *size)
{
	struct comm_slot *s = comm_slot(comm);
	bool found;

	if (comm == -1)
		return false;
	pthread_mutex_lock(&comms_lock);
	found = s->used && s->comm == comm;
	if (found) {
		*rank = s->rank;
		*size = s->size;
	}
	pthread_mutex_unlock(&comms_lock);
	return found;
}
