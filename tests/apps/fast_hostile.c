/*
 * A traced process that attacks its recorder through the fast path's shared
 * memory (tests/integration/test_fast.c). Once a recorder has taken its
 * memory it tries to shrink it (the recorder's mapping would fault), then
 * rewrites what the recorder reads: records with made-up sites and times
 * that run backwards, a head far past the tail and then behind it, slots
 * claimed by threads that do not exist, counts of dropped records and of
 * threads without a slot far past anything its threads could have done, a
 * header that lies. Between attacks it runs genuine regions ("work", 5000
 * calls), so there is something to keep.
 *
 * Exits 0 when every attack ran and shrinking failed, 3 when shrinking
 * worked (the memory was not sealed), 2 when no recorder took the memory.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scope_bpf.h"

#define WORK_CALLS 1000

static volatile int sink;

static void work(int n)
{
	int i;

	for (i = 0; i < n; i++)
		SCOPE_BPF_REGION("work") {
			sink++;
		}
}

/* The recorder seals the size before it maps: wait for that (5 s at most). */
static int wait_sealed(int fd)
{
	int i;

	for (i = 0; i < 500; i++) {
		if (fcntl(fd, F_GET_SEALS) & F_SEAL_SHRINK)
			return 0;
		SCOPE_BPF_REGION("wait") {
			usleep(10000);
		}
	}
	return -1;
}

static struct scope_bpf_impl_fast_slot *slot(struct scope_bpf_impl_fast_hdr *h, int i)
{
	return (struct scope_bpf_impl_fast_slot *)((char *)h + SCOPE_BPF_IMPL_FAST_SLOTS_AT) + i;
}

static struct scope_bpf_impl_fast_rec *ring(struct scope_bpf_impl_fast_hdr *h, int i)
{
	return (struct scope_bpf_impl_fast_rec *)((char *)h + SCOPE_BPF_IMPL_FAST_RINGS_AT) +
	       (size_t)i * SCOPE_BPF_IMPL_FAST_RING;
}

/* Records no marker wrote, in the ring of a slot no thread owns. */
static void forge_slot(struct scope_bpf_impl_fast_hdr *h, int i, uint64_t head)
{
	struct scope_bpf_impl_fast_slot *s = slot(h, i);
	uint64_t k;

	s->tid = 99999 + (uint32_t)i;
	for (k = 0; k < 512; k++) {
		ring(h, i)[k].time = k & 1 ? 0 : ~0ull - k;
		ring(h, i)[k].site = k % 3 ? (uint64_t)rand() : 8;
	}
	__atomic_store_n(&s->head, head, __ATOMIC_RELEASE);
}

int main(void)
{
	struct scope_bpf_impl_fast_hdr *h;
	int fd, i, shrunk;

	work(WORK_CALLS);
	h = scope_bpf_impl_fast_proc.hdr;
	fd = scope_bpf_impl_fast_proc.fd;
	if (!h || wait_sealed(fd)) {
		fprintf(stderr, "fast_hostile: no recorder took the memory\n");
		return 2;
	}
	shrunk = !ftruncate(fd, 4096);
	forge_slot(h, 200, 512);
	work(WORK_CALLS);
	usleep(50000);
	forge_slot(h, 201, ~0ull >> 1);
	work(WORK_CALLS);
	usleep(50000);
	forge_slot(h, 201, 3);
	for (i = 202; i < 210; i++)
		forge_slot(h, i, (uint64_t)rand() << 20);
	for (i = 0; i < SCOPE_BPF_IMPL_FAST_SLOTS; i++)
		slot(h, i)->dropped += 1ull << 52;
	h->unslotted += 1ull << 60;
	work(WORK_CALLS);
	usleep(50000);
	h->slots = 7;
	h->gen = 0;
	h->clock = 99;
	work(WORK_CALLS);
	usleep(50000);
	printf("fast_hostile: done\n");
	return shrunk ? 3 : 0;
}
