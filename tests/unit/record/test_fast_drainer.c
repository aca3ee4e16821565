/*
 * Tests for the drainer's last passes: once the recording ended and its
 * threads stopped, what the rings still hold is taken within the queue's
 * budget, however full they are, and what is not taken stays counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "record/fast/drainer.h"
#include "record/fast/layout.h"
#include "record/fast/shm.h"

#define RING SCOPE_BPF_IMPL_FAST_RING
#define SIZE SCOPE_BPF_IMPL_FAST_SIZE
#define FULL_SLOTS 4
/* The queue's memory comes in slabs: a budget of a few chunks is one slab. */
#define BUDGET_BYTES (4 * sizeof(struct sb_fast_chunk))
#define SLAB_RECORDS (SB_FAST_SLAB_BYTES / sizeof(struct sb_fast_chunk) * SB_FAST_CHUNK)

/* A memory of this process's own making, full rings in a few slots, adopted as a target's. */
struct full {
	int fd;
	struct scope_bpf_impl_fast_hdr *hdr;
	struct sb_fast_mem *mem;
};

static void fill_slot(struct full *f, uint32_t i)
{
	struct scope_bpf_impl_fast_slot *slots = (void *)((char *)f->hdr +
							  SCOPE_BPF_IMPL_FAST_SLOTS_AT);
	struct scope_bpf_impl_fast_rec *ring = (struct scope_bpf_impl_fast_rec *)
		((char *)f->hdr + SCOPE_BPF_IMPL_FAST_RINGS_AT) + (uint64_t)i * RING;
	uint64_t p;

	for (p = 0; p < RING; p++)
		ring[p] = (struct scope_bpf_impl_fast_rec){ .time = p, .site = 0x1000 };
	slots[i].tid = (uint32_t)syscall(SYS_gettid);
	slots[i].head = RING;
}

static void full_make(struct full *f)
{
	struct sb_error err;
	uint32_t i;

	f->fd = memfd_create("scope-bpf-fast", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	assert_true(f->fd >= 0);
	assert_int_equal(ftruncate(f->fd, (off_t)SIZE), 0);
	f->hdr = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd, 0);
	assert_true(f->hdr != MAP_FAILED);
	*f->hdr = (struct scope_bpf_impl_fast_hdr){
		.magic = SCOPE_BPF_IMPL_FAST_MAGIC,
		.version = SCOPE_BPF_IMPL_FAST_VERSION,
		.pid = (uint32_t)getpid(),
		.clock = SCOPE_BPF_IMPL_CLOCK_MONO,
		.slots = SCOPE_BPF_IMPL_FAST_SLOTS,
		.ring = RING,
		.stack = SCOPE_BPF_IMPL_FAST_STACK,
		.gen = 1,
		.size = SIZE,
	};
	for (i = 0; i < FULL_SLOTS; i++)
		fill_slot(f, i);
	assert_int_equal(sb_fast_mem_adopt(&f->mem, getpid(), f->fd, SB_FAST_MEM_NEW, &err), 0);
}

static void full_free(struct full *f)
{
	sb_fast_mem_close(f->mem);
	munmap(f->hdr, SIZE);
	close(f->fd);
}

/* Records in the chunks handed over, which go back as spares. */
static uint64_t take_all(struct sb_fast_drainer *d)
{
	struct sb_fast_chunk *list, *c;
	struct sb_fast_mark mark;
	uint64_t n = 0;

	list = sb_fast_queue_take(&d->queue, &mark);
	for (c = list; c; c = c->next)
		n += c->n;
	sb_fast_queue_recycle(&d->queue, list);
	return n;
}

/*
 * Four full rings (524 288 records) against a queue of one slab (126 976
 * records): every pass after the end, the drainer's threads stopped, takes a
 * queue's worth at most, and the rest is still there to take, or to count.
 * The last pass once lifted the cap and took every ring whole: a ring a
 * thread, of hundreds of threads.
 */
static void test_last_passes_keep_to_the_budget(void **state)
{
	struct sb_fast_drainer d;
	struct sb_fast_mem_stats st;
	uint64_t taken, total = 0;
	struct full f;

	(void)state;
	full_make(&f);
	assert_int_equal(sb_fast_drainer_init(&d, BUDGET_BYTES, 0, 0), 0);
	assert_int_equal(sb_fast_drainer_add(&d, f.mem, NULL), 0);
	sb_fast_drainer_end(&d);
	sb_fast_drainer_stop(&d);
	total = take_all(&d);
	assert_int_equal(sb_fast_drainer_unread(&d, NULL, 0) + total, FULL_SLOTS * RING);
	while (sb_fast_drainer_unread(&d, NULL, 0)) {
		sb_fast_drainer_pass(&d);
		taken = take_all(&d);
		assert_true(taken > 0 && taken <= SLAB_RECORDS);
		total += taken;
	}
	assert_int_equal(total, FULL_SLOTS * RING);
	sb_fast_mem_stats(f.mem, &st);
	assert_int_equal(st.records, FULL_SLOTS * RING);
	assert_int_equal(st.unread, 0);
	sb_fast_drainer_free(&d);
	full_free(&f);
}

/* Without a chunk to copy into, the last passes take nothing more: the rest stays unread. */
static void test_no_room_leaves_the_records_unread(void **state)
{
	struct sb_fast_drainer d;
	struct sb_fast_mem_stats st;
	struct full f;

	(void)state;
	full_make(&f);
	assert_int_equal(sb_fast_drainer_init(&d, BUDGET_BYTES, 0, 0), 0);
	assert_int_equal(sb_fast_drainer_add(&d, f.mem, NULL), 0);
	sb_fast_drainer_end(&d);
	sb_fast_drainer_stop(&d);
	/* What the passes took fills the queue's slab, and nothing is taken from it. */
	sb_fast_drainer_pass(&d);
	sb_fast_drainer_pass(&d);
	sb_fast_mem_stats(f.mem, &st);
	assert_true(st.records > 0 && st.records <= SLAB_RECORDS);
	assert_int_equal(st.unread, FULL_SLOTS * RING - st.records);
	assert_int_equal(sb_fast_drainer_unread(&d, f.mem, 0), st.unread);
	/* Each slot's owner has its own. */
	assert_int_equal(sb_fast_drainer_unread(&d, f.mem, (uint32_t)syscall(SYS_gettid)),
			 st.unread);
	assert_int_equal(sb_fast_drainer_unread(&d, f.mem, 1), 0);
	sb_fast_drainer_free(&d);
	full_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_last_passes_keep_to_the_budget),
		cmocka_unit_test(test_no_room_leaves_the_records_unread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
