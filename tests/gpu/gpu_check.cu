/* GPU check program (tools/gpu-check.sh): CUDA work of known shape inside known regions. */

/*
 * Usage: gpu_check [launches N]
 *
 * Default: the shape tools/gpu-check.sh checks.
 *   setup   (1 call): a 64 MiB host-to-device copy, a 1 MiB memset
 *   compute (1 call) > short (10 calls, stream A): spin kernel of C cycles each
 *                    > long  (5 calls, stream B):  spin kernel of 4C cycles each
 *           then both streams synchronized inside compute
 *   finish  (1 call): a 16 MiB device-to-host copy
 * "launches N": N empty kernels back to back in region "launch", timed by
 * the program itself (the --cuda overhead on a launch-bound loop):
 *	launch_ns=NS n=N
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

#include "scope_bpf.h"

#define MiB (1u << 20)
#define SPIN 2000000LL	/* cycles of a short kernel: about 1 ms */

#define CHECK(call)								\
	do {									\
		cudaError_t e_ = (call);					\
		if (e_ != cudaSuccess) {					\
			fprintf(stderr, "gpu_check: %s: %s\n", #call,		\
				cudaGetErrorString(e_));			\
			exit(1);						\
		}								\
	} while (0)

__global__ void spin(long long cycles, int *out)
{
	long long t0 = clock64();

	while (clock64() - t0 < cycles)
		;
	if (threadIdx.x == 0)
		out[blockIdx.x] = 1;
}

__global__ void empty(void)
{
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int launches(long n)
{
	long long t;
	long i;

	empty<<<1, 1>>>();
	CHECK(cudaDeviceSynchronize());
	t = now_ns();
	SCOPE_BPF_REGION("launch") {
		for (i = 0; i < n; i++)
			empty<<<1, 1>>>();
		CHECK(cudaDeviceSynchronize());
	}
	printf("launch_ns=%lld n=%ld\n", now_ns() - t, n);
	return 0;
}

int main(int argc, char **argv)
{
	cudaStream_t a, b;
	char *host, *dev;
	int *out, i;

	if (argc == 3 && !strcmp(argv[1], "launches"))
		return launches(atol(argv[2]));
	host = (char *)malloc(64 * MiB);
	if (!host)
		return 1;
	memset(host, 1, 64 * MiB);
	CHECK(cudaMalloc(&dev, 64 * MiB));
	CHECK(cudaMalloc(&out, 64 * sizeof(int)));
	CHECK(cudaStreamCreate(&a));
	CHECK(cudaStreamCreate(&b));
	SCOPE_BPF_REGION("setup") {
		CHECK(cudaMemcpy(dev, host, 64 * MiB, cudaMemcpyHostToDevice));
		CHECK(cudaMemset(dev, 0, MiB));
		CHECK(cudaDeviceSynchronize());
	}
	SCOPE_BPF_REGION("compute") {
		for (i = 0; i < 10; i++)
			SCOPE_BPF_REGION("short") {
				spin<<<1, 32, 0, a>>>(SPIN, out);
			}
		for (i = 0; i < 5; i++)
			SCOPE_BPF_REGION("long") {
				spin<<<1, 32, 0, b>>>(4 * SPIN, out + 1);
			}
		CHECK(cudaStreamSynchronize(a));
		CHECK(cudaStreamSynchronize(b));
	}
	SCOPE_BPF_REGION("finish") {
		CHECK(cudaMemcpy(host, dev, 16 * MiB, cudaMemcpyDeviceToHost));
	}
	CHECK(cudaGetLastError());
	printf("gpu_check: done\n");
	return 0;
}
