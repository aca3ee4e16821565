/*
 * Unit tests of the CUPTI conversion: real CUDA 13 activity structs, filled
 * with known values, through the same walk the library's buffer callback
 * uses, into the batches and names its probes would carry.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "convert.h"

#define MAX_OUT 512

/* What the probes would have carried, in order. */
struct capture {
	struct sb_cuda_rec recs[MAX_OUT];
	__u32 n;
	__u32 batches;
	__u32 batch_sizes[16];
	__u32 name_ids[8];
	char names[8][64];
	__u32 n_names;
	__u32 recs_at_name[8];	/* records already sent when a name was */
};

static void take_batch(void *ctx, const struct sb_cuda_rec *recs, __u32 n)
{
	struct capture *cap = ctx;

	assert_true(n > 0 && n <= SB_CUDA_BATCH_MAX);
	assert_true(cap->n + n <= MAX_OUT);
	memcpy(&cap->recs[cap->n], recs, n * sizeof(*recs));
	cap->n += n;
	if (cap->batches < 16)
		cap->batch_sizes[cap->batches] = n;
	cap->batches++;
}

static void take_name(void *ctx, __u32 id, const char *name)
{
	struct capture *cap = ctx;

	assert_true(cap->n_names < 8);
	cap->name_ids[cap->n_names] = id;
	strncpy(cap->names[cap->n_names], name, sizeof(cap->names[0]) - 1);
	cap->recs_at_name[cap->n_names] = cap->n;
	cap->n_names++;
}

static struct capture cap;
static struct sb_cuda_conv conv;

static int setup(void **state)
{
	struct sb_cuda_sink sink = { take_batch, take_name, &cap };

	(void)state;
	memset(&cap, 0, sizeof(cap));
	sb_cuda_conv_init(&conv, &sink);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sb_cuda_conv_free(&conv);
	return 0;
}

static CUpti_ActivityKernel10 kernel(const char *name, uint32_t corr, uint64_t start)
{
	CUpti_ActivityKernel10 k;

	memset(&k, 0, sizeof(k));
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.deviceId = 1;
	k.contextId = 7;
	k.streamId = 13;
	k.correlationId = corr;
	k.start = start;
	k.end = start + 500;
	k.gridX = 128;
	k.gridY = 2;
	k.gridZ = 1;
	k.blockX = 256;
	k.blockY = 1;
	k.blockZ = 4;
	k.name = name;
	return k;
}

static void convert(const void *const *acts, size_t n, size_t dropped)
{
	sb_cuda_conv_buffer(&conv, (const CUpti_Activity *const *)acts, n, 7, 13, dropped);
}

static void test_kernel_name_once(void **state)
{
	/* Two buffers with the same name: equal strings, not equal pointers. */
	char again[] = "_Z6stencilPfS_i";
	CUpti_ActivityKernel10 k1 = kernel("_Z6stencilPfS_i", 41, 1000);
	CUpti_ActivityKernel10 k2 = kernel(again, 42, 3000);
	CUpti_ActivityKernel10 k3 = kernel("_Z4axpyfPf", 43, 5000);
	const void *first[] = { &k1 };
	const void *second[] = { &k2, &k3 };

	(void)state;
	convert(first, 1, 0);
	convert(second, 2, 0);
	assert_int_equal(cap.n, 3);
	assert_int_equal(cap.n_names, 2);
	assert_int_equal(cap.name_ids[0], 1);
	assert_string_equal(cap.names[0], "_Z6stencilPfS_i");
	assert_int_equal(cap.name_ids[1], 2);
	assert_string_equal(cap.names[1], "_Z4axpyfPf");
	/* Each name before the batch that first uses it. */
	assert_int_equal(cap.recs_at_name[0], 0);
	assert_int_equal(cap.recs_at_name[1], 1);
	assert_int_equal(cap.recs[0].name_id, 1);
	assert_int_equal(cap.recs[1].name_id, 1);
	assert_int_equal(cap.recs[2].name_id, 2);

	const struct sb_cuda_rec *r = &cap.recs[1];
	assert_int_equal(r->kind, SB_CUDA_KERNEL);
	assert_int_equal(r->device, 1);
	assert_int_equal(r->context, 7);
	assert_int_equal(r->stream, 13);
	assert_int_equal(r->correlation, 42);
	assert_int_equal(r->start, 3000);
	assert_int_equal(r->end, 3500);
	assert_int_equal(r->grid[0], 128);
	assert_int_equal(r->grid[1], 2);
	assert_int_equal(r->grid[2], 1);
	assert_int_equal(r->block[0], 256);
	assert_int_equal(r->block[1], 1);
	assert_int_equal(r->block[2], 4);
	assert_int_equal(r->bytes, 0);
	assert_int_equal(conv.stats.records, 3);
	assert_int_equal(conv.stats.unnamed, 0);
}

static void test_kernel_without_name(void **state)
{
	CUpti_ActivityKernel10 k = kernel(NULL, 5, 10);
	const void *acts[] = { &k };

	(void)state;
	convert(acts, 1, 0);
	assert_int_equal(cap.n, 1);
	assert_int_equal(cap.recs[0].name_id, 0);
	assert_int_equal(cap.n_names, 0);
	assert_int_equal(conv.stats.unnamed, 1);
}

static void test_memcpy(void **state)
{
	CUpti_ActivityMemcpy6 m;
	const void *acts[] = { &m };

	(void)state;
	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
	m.bytes = 1u << 26;
	m.start = 100;
	m.end = 900;
	m.deviceId = 2;
	m.contextId = 3;
	m.streamId = 14;
	m.correlationId = 77;
	convert(acts, 1, 0);
	assert_int_equal(cap.n, 1);
	assert_int_equal(cap.recs[0].kind, SB_CUDA_MEMCPY);
	assert_int_equal(cap.recs[0].copy_kind, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD);
	assert_int_equal(cap.recs[0].bytes, 1u << 26);
	assert_int_equal(cap.recs[0].device, 2);
	assert_int_equal(cap.recs[0].context, 3);
	assert_int_equal(cap.recs[0].stream, 14);
	assert_int_equal(cap.recs[0].correlation, 77);
	assert_int_equal(cap.recs[0].start, 100);
	assert_int_equal(cap.recs[0].end, 900);
	assert_int_equal(cap.recs[0].name_id, 0);
}

static void test_memset(void **state)
{
	CUpti_ActivityMemset4 m;
	const void *acts[] = { &m };

	(void)state;
	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	m.value = 0xab;
	m.bytes = 4096;
	m.start = 50;
	m.end = 60;
	m.deviceId = 0;
	m.contextId = 1;
	m.streamId = 7;
	m.correlationId = 9;
	convert(acts, 1, 0);
	assert_int_equal(cap.recs[0].kind, SB_CUDA_MEMSET);
	assert_int_equal(cap.recs[0].detail, 0xab);
	assert_int_equal(cap.recs[0].bytes, 4096);
	assert_int_equal(cap.recs[0].stream, 7);
	assert_int_equal(cap.recs[0].correlation, 9);
	assert_int_equal(cap.recs[0].end - cap.recs[0].start, 10);
}

static void test_runtime_and_driver_api(void **state)
{
	CUpti_ActivityAPI rt, drv;
	const void *acts[] = { &rt, &drv };

	(void)state;
	memset(&rt, 0, sizeof(rt));
	rt.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
	rt.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
	rt.start = 10;
	rt.end = 20;
	rt.processId = 4242;
	rt.threadId = 4243;
	rt.correlationId = 42;
	drv = rt;
	drv.kind = CUPTI_ACTIVITY_KIND_DRIVER;
	drv.cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
	drv.correlationId = 43;
	convert(acts, 2, 0);
	assert_int_equal(cap.n, 2);
	assert_int_equal(cap.recs[0].kind, SB_CUDA_RUNTIME);
	assert_int_equal(cap.recs[0].detail, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
	assert_int_equal(cap.recs[0].tid, 4243);
	assert_int_equal(cap.recs[0].correlation, 42);
	assert_int_equal(cap.recs[0].start, 10);
	assert_int_equal(cap.recs[0].end, 20);
	assert_int_equal(cap.recs[1].kind, SB_CUDA_DRIVER);
	assert_int_equal(cap.recs[1].detail, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
	assert_int_equal(cap.recs[1].correlation, 43);
}

static void test_synchronization(void **state)
{
	CUpti_ActivitySynchronization2 s;
	const void *acts[] = { &s };

	(void)state;
	memset(&s, 0, sizeof(s));
	s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
	s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
	s.start = 1000;
	s.end = 8000;
	s.correlationId = 55;
	s.contextId = 1;
	s.streamId = 13;
	convert(acts, 1, 0);
	assert_int_equal(cap.recs[0].kind, SB_CUDA_SYNC);
	assert_int_equal(cap.recs[0].detail, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE);
	assert_int_equal(cap.recs[0].correlation, 55);
	assert_int_equal(cap.recs[0].stream, 13);
	assert_int_equal(cap.recs[0].start, 1000);
	assert_int_equal(cap.recs[0].end, 8000);
}

/* A kind the library does not convert is skipped and counted, the rest still come. */
static void test_unknown_kind_skipped(void **state)
{
	CUpti_ActivityMemset4 m;
	CUpti_ActivityAPI overhead;
	const void *acts[] = { &overhead, &m };

	(void)state;
	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	m.bytes = 8;
	memset(&overhead, 0, sizeof(overhead));
	overhead.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
	convert(acts, 2, 0);
	assert_int_equal(cap.n, 1);
	assert_int_equal(cap.recs[0].kind, SB_CUDA_MEMSET);
	assert_int_equal(cap.recs[0].bytes, 8);
	assert_int_equal(conv.stats.skipped, 1);
	assert_int_equal(conv.stats.records, 1);
}

/* A buffer of more records than a batch: full batches, in order, then the dropped count. */
static void test_buffer_walk_and_dropped(void **state)
{
	enum { N = SB_CUDA_BATCH_MAX * 2 + 5 };
	static CUpti_ActivityAPI api[N];
	const void *acts[N];

	(void)state;
	for (size_t i = 0; i < N; i++) {
		memset(&api[i], 0, sizeof(api[i]));
		api[i].kind = CUPTI_ACTIVITY_KIND_RUNTIME;
		api[i].correlationId = (uint32_t)i + 1;
		acts[i] = &api[i];
	}
	convert(acts, N, 17);
	assert_int_equal(cap.n, N + 1);
	assert_int_equal(cap.batches, 3);
	assert_int_equal(cap.batch_sizes[0], SB_CUDA_BATCH_MAX);
	assert_int_equal(cap.batch_sizes[1], SB_CUDA_BATCH_MAX);
	assert_int_equal(cap.batch_sizes[2], 6);
	for (size_t i = 0; i < N; i++)
		assert_int_equal(cap.recs[i].correlation, i + 1);
	assert_int_equal(cap.recs[N].kind, SB_CUDA_DROPPED);
	assert_int_equal(cap.recs[N].bytes, 17);
	assert_int_equal(cap.recs[N].context, 7);
	assert_int_equal(cap.recs[N].stream, 13);
	assert_int_equal(conv.stats.dropped, 17);
	assert_int_equal(conv.stats.records, N);
}

/* An empty buffer with nothing dropped sends nothing. */
/* A refused timestamp callback: every time is offset, and the recorder hears it first of all. */
static void test_clock_offset_applied_and_announced(void **state)
{
	CUpti_ActivityKernel10 k = kernel("_Z6stencilPfS_i", 41, 1000);
	const void *acts[] = { &k };

	(void)state;
	sb_cuda_conv_set_offset(&conv, -400);
	convert(acts, 1, 0);
	convert(acts, 1, 0);
	assert_int_equal(cap.n, 3);
	assert_int_equal(cap.recs[0].kind, SB_CUDA_CLOCK);
	assert_int_equal(cap.recs[0].detail, SB_CUDA_CLOCK_OFFSET);
	assert_int_equal((__s64)cap.recs[0].bytes, -400);
	assert_int_equal(cap.recs[1].kind, SB_CUDA_KERNEL);
	assert_int_equal(cap.recs[1].start, 600);
	assert_int_equal(cap.recs[1].end, 1100);
	assert_int_equal(cap.recs[2].start, 600);
}

/* A tracer that attaches late gets every name again, each with its id. */
static void test_names_sent_again(void **state)
{
	CUpti_ActivityKernel10 k1 = kernel("_Z6stencilPfS_i", 41, 1000);
	CUpti_ActivityKernel10 k2 = kernel("_Z4axpyfPf", 42, 2000);
	const void *acts[] = { &k1, &k2 };

	(void)state;
	convert(acts, 2, 0);
	assert_int_equal(cap.n_names, 2);
	sb_cuda_conv_resend_names(&conv);
	assert_int_equal(cap.n_names, 4);
	assert_true((cap.name_ids[2] == 1 && !strcmp(cap.names[2], "_Z6stencilPfS_i")) ||
		    (cap.name_ids[2] == 2 && !strcmp(cap.names[2], "_Z4axpyfPf")));
	assert_int_not_equal(cap.name_ids[2], cap.name_ids[3]);
}

static void test_empty_buffer_sends_nothing(void **state)
{
	(void)state;
	convert(NULL, 0, 0);
	assert_int_equal(cap.batches, 0);
	assert_int_equal(cap.n, 0);
}

/* Many names: the table grows and keeps every id. */
static void test_many_names(void **state)
{
	struct sb_cuda_names t = { 0 };
	char name[32];
	bool is_new;

	(void)state;
	for (uint32_t i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "kernel_%u", i);
		assert_int_equal(sb_cuda_names_id(&t, name, &is_new), i + 1);
		assert_true(is_new);
	}
	for (uint32_t i = 0; i < 1000; i += 97) {
		snprintf(name, sizeof(name), "kernel_%u", i);
		assert_int_equal(sb_cuda_names_id(&t, name, &is_new), i + 1);
		assert_false(is_new);
	}
	assert_int_equal(t.count, 1000);
	sb_cuda_names_free(&t);
}

static void test_record_layout(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct sb_cuda_rec), 80);
	assert_int_equal(offsetof(struct sb_cuda_rec, start), 32);
	assert_int_equal(_Alignof(struct sb_cuda_rec), 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kernel_name_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_without_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memcpy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runtime_and_driver_api, setup, teardown),
		cmocka_unit_test_setup_teardown(test_synchronization, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_kind_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_buffer_walk_and_dropped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_buffer_sends_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clock_offset_applied_and_announced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names_sent_again, setup, teardown),
		cmocka_unit_test(test_many_names),
		cmocka_unit_test(test_record_layout),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
