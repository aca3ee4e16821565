/* Unit: CUDA records from the ring buffer are untrusted; what is kept, refused and counted. */
#include <linux/types.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "record/sources/cuda_store.h"
#include "region.h"

static struct sb_cuda_batch_event batch;

static size_t fill(__u32 n, __u16 kind)
{
	__u32 i;

	memset(&batch, 0, sizeof(batch));
	batch.type = SB_EV_CUDA;
	batch.msg = SB_CUDA_MSG_BATCH;
	batch.tgid = 9;
	batch.n = n;
	for (i = 0; i < n && i < SB_CUDA_BATCH_MAX; i++) {
		batch.recs[i].kind = kind;
		batch.recs[i].start = 100;
		batch.recs[i].end = 200;
		batch.recs[i].name_id = 1;
	}
	return offsetof(struct sb_cuda_batch_event, recs) + n * sizeof(struct sb_cuda_rec);
}

static void send_name(struct sb_cuda_store *s, __u32 id, const char *name)
{
	struct sb_cuda_name_event e = { .type = SB_EV_CUDA, .msg = SB_CUDA_MSG_NAME, .tgid = 9,
					.id = id };

	strncpy(e.name, name, sizeof(e.name) - 1);
	assert_int_equal(sb_cuda_store_record(s, &e, sizeof(e)), 0);
}

static void test_batches_and_names_are_kept(void **state)
{
	struct sb_cuda_store s;

	(void)state;
	sb_cuda_store_init(&s, 1000);
	send_name(&s, 1, "_Z5scalePfi");
	send_name(&s, 1, "_Z5scalePfi");	/* sent again to a late tracer: one copy */
	assert_int_equal(sb_cuda_store_record(&s, &batch, fill(64, SB_CUDA_KERNEL)), 0);
	assert_int_equal(s.n, 64);
	assert_int_equal(s.n_names, 1);
	assert_int_equal(s.kept[63].name, 0);
	assert_int_equal(s.kept[0].tgid, 9);
	assert_int_equal(s.refused, 0);
	sb_cuda_store_free(&s);
}

/* What the kernel side sends when it cannot read a name: where it is, in which process. */
static void send_unread(struct sb_cuda_store *s, __u32 id, const char *name)
{
	struct sb_cuda_name_unread_event e = { .type = SB_EV_CUDA, .msg = SB_CUDA_MSG_NAME_UNREAD,
					       .tgid = (__u32)getpid(), .id = id,
					       .addr = (__u64)(uintptr_t)name };

	assert_int_equal(sb_cuda_store_record(s, &e, sizeof(e)), 0);
}

/*
 * cuda_synth's first name sits in a page it never touched; a name program
 * that may not fault it in (not sleepable: -e, older kernels) says where it
 * is. The name is read from the process: never an empty one in its place.
 */
static void test_a_name_the_kernel_could_not_read_is_read_from_the_process(void **state)
{
	static const char scale[] = "_Z5scalePfi";
	struct sb_cuda_store s;
	size_t size;

	(void)state;
	sb_cuda_store_init(&s, 1000);
	send_unread(&s, 1, scale);
	size = fill(2, SB_CUDA_KERNEL);
	batch.tgid = (__u32)getpid();
	assert_int_equal(sb_cuda_store_record(&s, &batch, size), 0);
	assert_int_equal(s.n_names, 1);
	assert_string_equal(s.names[0], "_Z5scalePfi");
	assert_int_equal(s.kept[1].name, 0);
	assert_int_equal(s.refused, 0);
	sb_cuda_store_free(&s);
}

/* Not even this process can read it (the process is gone): lost and counted, not named "". */
static void test_a_name_nobody_can_read_is_counted_not_kept(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size;
	struct sb_cuda_store s;
	char *gone = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)state;
	assert_true(gone != MAP_FAILED);
	assert_int_equal(munmap(gone, page), 0);
	sb_cuda_store_init(&s, 1000);
	send_unread(&s, 1, gone);
	size = fill(1, SB_CUDA_KERNEL);
	batch.tgid = (__u32)getpid();
	assert_int_equal(sb_cuda_store_record(&s, &batch, size), 0);
	assert_int_equal(s.n_names, 0);
	assert_int_equal(s.kept[0].name, -1);
	assert_int_equal(s.refused, 1);
	sb_cuda_store_free(&s);
}

static void test_hostile_records_are_refused_and_counted(void **state)
{
	struct sb_cuda_store s;
	size_t size;

	(void)state;
	sb_cuda_store_init(&s, 1000);
	/* Too short for a header, an unknown message, a count of 0 or above the batch. */
	assert_int_equal(sb_cuda_store_record(&s, &batch, 8), 0);
	size = fill(1, SB_CUDA_KERNEL);
	batch.msg = 77;
	assert_int_equal(sb_cuda_store_record(&s, &batch, size), 0);
	assert_int_equal(sb_cuda_store_record(&s, &batch, fill(0, SB_CUDA_KERNEL)), 0);
	size = fill(64, SB_CUDA_KERNEL);
	batch.n = 65;
	assert_int_equal(sb_cuda_store_record(&s, &batch, sizeof(batch)), 0);
	/* A count the record's size does not hold. */
	assert_int_equal(sb_cuda_store_record(&s, &batch, fill(10, SB_CUDA_KERNEL) - 1), 0);
	assert_int_equal(s.refused, 5);
	/* Bad records inside a good batch: an unknown kind, time running backwards. */
	size = fill(3, SB_CUDA_MEMCPY);
	batch.recs[0].kind = 99;
	batch.recs[1].end = 50;
	assert_int_equal(sb_cuda_store_record(&s, &batch, size), 0);
	assert_int_equal(s.refused, 7);
	assert_int_equal(s.n, 1);
	/* A kernel whose name never came: no name, not a crash. */
	assert_int_equal(s.kept[0].name, -1);
	sb_cuda_store_free(&s);
}

static void test_beyond_the_cap_is_counted_not_kept(void **state)
{
	struct sb_cuda_store s;

	(void)state;
	sb_cuda_store_init(&s, 100);
	assert_int_equal(sb_cuda_store_record(&s, &batch, fill(64, SB_CUDA_RUNTIME)), 0);
	assert_int_equal(sb_cuda_store_record(&s, &batch, fill(64, SB_CUDA_RUNTIME)), 0);
	assert_int_equal(s.n, 100);
	assert_int_equal(s.refused, 28);
	sb_cuda_store_free(&s);
}

static void test_dropped_and_clock_are_noted(void **state)
{
	struct sb_cuda_store s;
	size_t size;

	(void)state;
	sb_cuda_store_init(&s, 100);
	size = fill(2, SB_CUDA_DROPPED);
	batch.recs[0].bytes = 5;
	batch.recs[1].kind = SB_CUDA_CLOCK;
	batch.recs[1].detail = SB_CUDA_CLOCK_OFFSET;
	batch.recs[1].bytes = (__u64)-77;
	assert_int_equal(sb_cuda_store_record(&s, &batch, size), 0);
	assert_int_equal(s.dropped, 5);
	assert_true(s.clock_offset);
	assert_int_equal(s.clock_offset_ns, -77);
	assert_int_equal(s.n, 0);
	sb_cuda_store_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batches_and_names_are_kept),
		cmocka_unit_test(test_a_name_the_kernel_could_not_read_is_read_from_the_process),
		cmocka_unit_test(test_a_name_nobody_can_read_is_counted_not_kept),
		cmocka_unit_test(test_hostile_records_are_refused_and_counted),
		cmocka_unit_test(test_beyond_the_cap_is_counted_not_kept),
		cmocka_unit_test(test_dropped_and_clock_are_noted),
	};

	return cmocka_run_group_tests_name("cuda_store", tests, NULL, NULL);
}
