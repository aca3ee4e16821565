/*
 * What the PMPI wrappers remember between calls, as the kernel side's maps
 * do for the uprobe path (bpf/mpi.bpf.h): the requests started and not yet
 * waited for, and what the process asked of its communicators. Both tables
 * are direct-mapped: a collision forgets the older entry, as the kernel's LRU
 * maps forget their oldest, and a forgotten request is an unknown one.
 */
#include <pthread.h>
#include <string.h>

#include "pmpi.h"

#define REQUEST_SLOTS 16384
#define COMM_SLOTS 256

struct request_slot {
	const void *addr;	/* NULL: free */
	uint64_t handle;	/* the handle then at addr: a wait on another one is not this */
	struct sb_mpi_event call;
};

struct comm_slot {
	bool used;
	int32_t comm, rank, size;
};

static struct request_slot requests[REQUEST_SLOTS];
static struct comm_slot comms[COMM_SLOTS];
static pthread_mutex_t requests_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t comms_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t mix(uint64_t x)
{
	x = (x ^ x >> 30) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ x >> 27) * 0x94d049bb133111ebULL;
	return x ^ x >> 31;
}

static struct request_slot *request_slot(const void *addr)
{
	return &requests[mix((uint64_t)(uintptr_t)addr) & (REQUEST_SLOTS - 1)];
}

void pmpi_request_started(const void *addr, uint64_t handle, const struct sb_mpi_event *e)
{
	struct request_slot *s = request_slot(addr);

	pthread_mutex_lock(&requests_lock);
	s->addr = addr;
	s->handle = handle;
	s->call = *e;
	pthread_mutex_unlock(&requests_lock);
}

bool pmpi_request_find(const void *addr, uint64_t handle, bool take, struct sb_mpi_event *out)
{
	struct request_slot *s = request_slot(addr);
	bool same = false;

	pthread_mutex_lock(&requests_lock);
	if (s->addr == addr) {
		same = s->handle == handle;
		if (same)
			*out = s->call;
		if (take)
			s->addr = NULL;
	}
	pthread_mutex_unlock(&requests_lock);
	return same;
}

void pmpi_request_forget(const void *addr)
{
	struct request_slot *s = request_slot(addr);

	pthread_mutex_lock(&requests_lock);
	if (s->addr == addr)
		s->addr = NULL;
	pthread_mutex_unlock(&requests_lock);
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
