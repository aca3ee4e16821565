/* Test app: CUDA activity as the CUPTI library hands it over, made up, through the library's own probes. */

/*
 * No GPU is needed: this program fires scope_bpf_cuda:name and :batch
 * exactly as libscope_bpf_cupti.so does, with records that say what a CUDA
 * program would have done. Host API calls are timed for real inside real
 * regions; the GPU work they "launched" is given known durations, and the
 * batches go out only at the end, as CUPTI delivers its buffers late.
 *
 * A tracer must see, on one rank:
 *   solve (1 call) > step (3 calls); worker (1 call, on a thread of its own,
 *   made during step 2)
 *   step i (i = 0, 1, 2) launches kernel _Z5scalePfi, (i + 1) * 100 us of GPU
 *     time; step 1 also launches _Z4axpyPKfPfi, 50 us: step's GPU total 650 us
 *   solve itself copies 4 MiB host to device, 200 us; worker launches
 *     _Z4axpyPKfPfi, 30 us; one launch outside every region, 10 us
 *   one stream synchronization inside solve; CUPTI says it dropped 5 records;
 *   the times were offset by -1234 ns (a refused timestamp callback); a name
 *   is sent twice
 *   BULK_BATCHES full batches of driver API calls outside every region
 * That is 6 GPU activities, 7 launching API calls, 1 sync, 1 more API call
 * for the sync, plus BULK_BATCHES * 64 driver calls.
 */
#include <pthread.h>
#include <stdio.h>

#include "cuda_fake.h"

#define BULK_BATCHES 50

enum { SCALE = 1, AXPY = 2 };

static void *worker(void *arg)
{
	SCOPE_BPF_REGION("worker") {
		launch(AXPY, 30 * US);
	}
	return arg;
}

static void copy_and_sync(void)
{
	struct sb_cuda_rec *r;
	__u32 corr = api_call(31);

	r = add(SB_CUDA_MEMCPY);
	r->correlation = corr;
	r->copy_kind = 1;	/* host to device */
	r->bytes = 4u << 20;
	r->start = now_ns() + 10 * US;
	r->end = r->start + 200 * US;
	corr = api_call(131);
	r = add(SB_CUDA_SYNC);
	r->correlation = corr;
	r->detail = 3;		/* stream synchronize */
	r->start = now_ns();
	r->end = r->start + 220 * US;
}

static void solve(void)
{
	pthread_t t;
	int i;

	SCOPE_BPF_REGION("solve") {
		copy_and_sync();
		for (i = 0; i < 3; i++) {
			SCOPE_BPF_REGION("step") {
				launch(SCALE, (__u64)(i + 1) * 100 * US);
				if (i == 1) {
					launch(AXPY, 50 * US);
					pthread_create(&t, NULL, worker, NULL);
					pthread_join(t, NULL);
				}
				usleep(1000);
			}
		}
	}
}

static void send_bulk(void)
{
	struct sb_cuda_rec bulk[SB_CUDA_BATCH_MAX];
	int b, i;

	for (b = 0; b < BULK_BATCHES; b++) {
		for (i = 0; i < SB_CUDA_BATCH_MAX; i++) {
			memset(&bulk[i], 0, sizeof(bulk[i]));
			bulk[i].kind = SB_CUDA_DRIVER;
			bulk[i].correlation = 100000 + b * SB_CUDA_BATCH_MAX + i;
			bulk[i].tid = (__u32)syscall(SYS_gettid);
			bulk[i].start = now_ns();
			bulk[i].end = bulk[i].start + 1;
		}
		SB_CUDA_PROBE(batch, bulk, SB_CUDA_BATCH_MAX);
	}
}

int main(void)
{
	struct sb_cuda_rec *dropped, *clock;

	if (!cuda_traced()) {
		fprintf(stderr, "cuda_synth: the CUDA probes are not traced\n");
		return 3;
	}
	SB_CUDA_PROBE(name, SCALE, "_Z5scalePfi");
	SB_CUDA_PROBE(name, AXPY, "_Z4axpyPKfPfi");
	/* The library's timestamp callback was refused: it says so first. */
	clock = add(SB_CUDA_CLOCK);
	clock->detail = SB_CUDA_CLOCK_OFFSET;
	clock->bytes = (__u64)-1234;
	solve();
	launch(SCALE, 10 * US);
	dropped = add(SB_CUDA_DROPPED);
	dropped->bytes = 5;
	/* Delivered late and in two batches, as CUPTI hands back its buffers. */
	SB_CUDA_PROBE(batch, recs, 5);
	/* Names again, as the library sends them to a tracer that attached late. */
	SB_CUDA_PROBE(name, AXPY, "_Z4axpyPKfPfi");
	SB_CUDA_PROBE(batch, recs + 5, n_recs - 5);
	send_bulk();
	return 0;
}
