/*
 * libscope_bpf_cupti.so: the CUPTI injection library. The CUDA driver loads
 * it from CUDA_INJECTION64_PATH and calls InitializeInjection() once; from
 * then CUPTI fills buffers of activity records that come back here, are
 * converted (convert.c) and leave through the library's USDT probes.
 * It must never crash or hang the application: the first CUPTI error turns
 * it off with one line on stderr. docs/CUDA.md.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "convert.h"
#include "dump.h"
#include "probes.h"

unsigned short scope_bpf_cuda_batch_semaphore;
unsigned short scope_bpf_cuda_name_semaphore;

#define BUFFER_SIZE (4u << 20)	/* bytes of one CUPTI activity buffer */
#define FLUSH_PERIOD_NS 200000000L	/* while traced: what waits in CUPTI's buffers goes out */
#define WALK_CHUNK 256		/* record pointers collected before converting them */

static const CUpti_ActivityKind enabled_kinds[] = {
	CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
	CUPTI_ACTIVITY_KIND_MEMCPY,
	CUPTI_ACTIVITY_KIND_MEMSET,
	CUPTI_ACTIVITY_KIND_RUNTIME,
	CUPTI_ACTIVITY_KIND_DRIVER,
	CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
};

static pthread_mutex_t conv_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sb_cuda_conv conv;
static int disabled;		/* read and set atomically: CUPTI's threads and the app's */
static int exiting;		/* the exit flush has begun: the flusher thread stops */

/*
 * Under conv_lock (the buffer walk). A tracer that attached since the last
 * batch (record -p, or a name sent before the recorder was ready) gets every
 * kernel name again first: names go out only once otherwise.
 */
static void probe_batch(void *ctx, const struct sb_cuda_rec *recs, __u32 n)
{
	static bool was_traced;
	bool traced = scope_bpf_impl_sem(&scope_bpf_cuda_batch_semaphore);

	(void)ctx;
	sb_cuda_dump_batch(recs, n);
	if (__builtin_expect(traced, 0)) {
		if (!was_traced)
			sb_cuda_conv_resend_names(&conv);
		SB_CUDA_PROBE(batch, recs, n);
	}
	was_traced = traced;
}

static void probe_name(void *ctx, __u32 id, const char *name)
{
	(void)ctx;
	sb_cuda_dump_name(id, name);
	if (__builtin_expect(scope_bpf_impl_sem(&scope_bpf_cuda_name_semaphore), 0))
		SB_CUDA_PROBE(name, id, name);
}

static bool is_disabled(void)
{
	return __atomic_load_n(&disabled, __ATOMIC_ACQUIRE);
}

/*
 * Turn the library off; only the first failure speaks. No CUPTI call here:
 * it may run inside CUPTI's own callback. Later buffers are refused.
 */
static void fail(const char *what, const char *why)
{
	if (__atomic_exchange_n(&disabled, 1, __ATOMIC_ACQ_REL))
		return;
	fprintf(stderr, "scope-bpf: CUPTI %s failed (%s): CUDA activity is not recorded\n",
		what, why);
}

static void fail_cupti(const char *what, CUptiResult r)
{
	const char *why;

	if (cuptiGetResultString(r, &why) != CUPTI_SUCCESS)
		why = "unknown error";
	fail(what, why);
}

static void disable_kinds(void)
{
	for (size_t i = 0; i < sizeof(enabled_kinds) / sizeof(enabled_kinds[0]); i++)
		cuptiActivityDisable(enabled_kinds[i]);
}

/* GPU and API times on the recorder's clock. */
static uint64_t CUPTIAPI monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A NULL buffer makes CUPTI drop its records: what a disabled library wants. */
static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*buffer = is_disabled() ? NULL : aligned_alloc(ACTIVITY_RECORD_ALIGNMENT, BUFFER_SIZE);
	*size = *buffer ? BUFFER_SIZE : 0;
	*max_records = 0;
}

static size_t dropped_records(CUcontext ctx, uint32_t stream, uint32_t *context_id)
{
	size_t dropped = 0;
	CUptiResult r;

	*context_id = 0;
	if (ctx && (r = cuptiGetContextId(ctx, context_id)) != CUPTI_SUCCESS)
		fail_cupti("cuptiGetContextId", r);
	r = cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped);
	if (r != CUPTI_SUCCESS)
		fail_cupti("cuptiActivityGetNumDroppedRecords", r);
	return dropped;
}

/* The records in chunks; the last chunk carries what CUPTI dropped. */
static void walk_buffer(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t valid)
{
	const CUpti_Activity *acts[WALK_CHUNK];
	CUpti_Activity *rec = NULL;
	CUptiResult r = CUPTI_SUCCESS;
	uint32_t context_id = 0;
	size_t dropped = 0, n;

	pthread_mutex_lock(&conv_lock);
	do {
		for (n = 0; n < WALK_CHUNK; n++) {
			r = cuptiActivityGetNextRecord(buffer, valid, &rec);
			if (r != CUPTI_SUCCESS)
				break;
			acts[n] = rec;
		}
		if (r != CUPTI_SUCCESS)
			dropped = dropped_records(ctx, stream, &context_id);
		sb_cuda_conv_buffer(&conv, acts, n, context_id, stream, dropped);
	} while (r == CUPTI_SUCCESS);
	if (r != CUPTI_ERROR_MAX_LIMIT_REACHED)
		fail_cupti("cuptiActivityGetNextRecord", r);
	pthread_mutex_unlock(&conv_lock);
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer,
				      size_t size, size_t valid)
{
	(void)size;
	if (buffer && !is_disabled())
		walk_buffer(ctx, stream, buffer, valid);
	free(buffer);
}

static void flush_at_exit(void)
{
	CUptiResult r;

	__atomic_store_n(&exiting, 1, __ATOMIC_RELEASE);
	if (is_disabled())
		return;
	r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	if (r != CUPTI_SUCCESS)
		fail_cupti("cuptiActivityFlushAll", r);
}

/*
 * CUPTI hands back a buffer when it is full or flushed: without this, a
 * recording that ends before the program (-d, Ctrl-C) would miss what waits
 * in them. Every FLUSH_PERIOD_NS, while a tracer is attached, the completed
 * records go out; untraced, one load per period.
 */
static void *flush_while_traced(void *arg)
{
	const struct timespec period = { 0, FLUSH_PERIOD_NS };
	CUptiResult r;

	for (;;) {
		nanosleep(&period, NULL);
		if (is_disabled() || __atomic_load_n(&exiting, __ATOMIC_ACQUIRE))
			return arg;
		if (!scope_bpf_impl_sem(&scope_bpf_cuda_batch_semaphore))
			continue;
		r = cuptiActivityFlushAll(0);
		if (r != CUPTI_SUCCESS)
			fail_cupti("cuptiActivityFlushAll", r);
	}
}

/* Not fatal when it cannot start: the exit flush still delivers everything. */
static void start_flusher(void)
{
	sigset_t all, old;
	pthread_t t;

	/* The application's signals are not for this thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (!pthread_create(&t, NULL, flush_while_traced, NULL))
		pthread_detach(t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/*
 * CUPTI refused to read CLOCK_MONOTONIC itself: its own clock then, moved by
 * the offset measured here (the tightest of a few readings between two of
 * ours). The recorder is told, so the file says which it was.
 */
static bool use_measured_offset(CUptiResult refused)
{
	uint64_t t0, t1, cupti, best = UINT64_MAX;
	int64_t offset = 0;
	int i;

	for (i = 0; i < 5; i++) {
		t0 = monotonic_ns();
		if (cuptiGetTimestamp(&cupti) != CUPTI_SUCCESS) {
			fail_cupti("cuptiActivityRegisterTimestampCallback", refused);
			return false;
		}
		t1 = monotonic_ns();
		if (t1 - t0 < best) {
			best = t1 - t0;
			offset = (int64_t)(t0 + (t1 - t0) / 2) - (int64_t)cupti;
		}
	}
	sb_cuda_conv_set_offset(&conv, offset);
	return true;
}

/* The records' layouts are those of the CUPTI we were built with: same major version. */
static bool same_cupti(void)
{
	uint32_t version = 0;
	CUptiResult r = cuptiGetVersion(&version);

	if (r != CUPTI_SUCCESS) {
		fail_cupti("cuptiGetVersion", r);
		return false;
	}
	if (version / 10000 != CUPTI_API_VERSION / 10000) {
		fail("version check", "records of another CUPTI major version");
		return false;
	}
	return true;
}

static bool enable(void)
{
	CUptiResult r;

	r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
	if (r != CUPTI_SUCCESS) {
		fail_cupti("cuptiActivityRegisterCallbacks", r);
		return false;
	}
	/* Before any kind is enabled, or early records keep CUPTI's own clock. */
	r = cuptiActivityRegisterTimestampCallback(monotonic_ns);
	if (r != CUPTI_SUCCESS && !use_measured_offset(r))
		return false;
	for (size_t i = 0; i < sizeof(enabled_kinds) / sizeof(enabled_kinds[0]); i++) {
		r = cuptiActivityEnable(enabled_kinds[i]);
		if (r != CUPTI_SUCCESS) {
			fail_cupti("cuptiActivityEnable", r);
			return false;
		}
	}
	if (atexit(flush_at_exit)) {
		fail("flush at exit (atexit)", "no room for the handler");
		return false;
	}
	return true;
}

static bool start(void)
{
	static const struct sb_cuda_sink probes = { probe_batch, probe_name, NULL };

	sb_cuda_conv_init(&conv, &probes);
	sb_cuda_dump_open();
	if (!same_cupti())
		return false;
	if (!enable()) {
		disable_kinds();
		return false;
	}
	start_flusher();
	return true;
}

/* The CUDA driver's entry point: 1 when activity is being recorded. */
__attribute__((visibility("default"))) int InitializeInjection(void)
{
	static int started;

	if (__atomic_exchange_n(&started, 1, __ATOMIC_ACQ_REL))
		return !is_disabled();
	return start() && !is_disabled();
}
