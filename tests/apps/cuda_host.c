/* CUDA host-probe test app: known CUDA runtime calls with known arguments, in known regions. */

/*
 * Built against the CUDA toolkit's cuda_runtime_api.h and libcudart (no nvcc,
 * no GPU needed): without a GPU every call fails at once with an error code,
 * which this app ignores; the probes see the calls and their arguments all
 * the same. The kernels' host stubs are plain functions whose symbols carry
 * the mangled names nvcc gives `__global__ void scale(float *, int)` and
 * `__global__ void fill(float *, float, int)`. STREAM is a made-up handle:
 * no call gets as far as using it here.
 *
 * In "alloc": cudaMalloc of 1 MiB. In "upload": 3 cudaMemcpy of 4096 bytes
 * host to device, 1 cudaMemset of 2048 bytes. In "compute": 2 launches of
 * scale, grid 64x1x1, block 256x1x1, stream 0; 1 launch of fill, grid 8x4x2,
 * block 32x8x1, 128 bytes of shared memory, on STREAM; 1 cudaMemsetAsync of
 * 256 bytes on STREAM. In "download": 1 cudaMemcpyAsync of 1024 bytes device
 * to host on STREAM, 1 cudaStreamSynchronize of STREAM, 1 cudaMemcpy of 4096
 * bytes device to host. In "finish": 1 cudaDeviceSynchronize, 1
 * cudaEventSynchronize. Outside every region: 1 cudaFree.
 *
 * With an argument FILE it prints "ready" first and waits (up to 30 s) for
 * FILE to exist before it makes its calls: a recorder attaches meanwhile.
 * Built with -DUNMARKED (cuda_host_unmarked), it has no markers at all, as
 * most CUDA programs: the same calls, outside every region.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#ifdef UNMARKED
#define SCOPE_BPF_REGION(name) if (1)
#else
#include "scope_bpf.h"
#endif

#define STREAM ((cudaStream_t)(uintptr_t)0x5eed000)

volatile int stub_calls;

/* Different bodies: identical ones could be folded into one symbol. */
void scale_stub(float *p, int n) __asm__("_Z6scalePfi");
void scale_stub(float *p, int n)
{
	(void)p;
	stub_calls += n;
}

void fill_stub(float *p, float v, int n) __asm__("_Z4fillPffi");
void fill_stub(float *p, float v, int n)
{
	(void)p;
	stub_calls -= n + (int)v;
}

static void wait_for(const char *file)
{
	struct timespec tick = { 0, 10000000L };
	int i;

	printf("ready\n");
	fflush(stdout);
	for (i = 0; i < 3000 && access(file, F_OK); i++)
		nanosleep(&tick, NULL);
}

int main(int argc, char **argv)
{
	dim3 grid = { 64, 1, 1 }, block = { 256, 1, 1 }, grid3 = { 8, 4, 2 }, block2 = { 32, 8, 1 };
	static char host[4096];
	void *dev = NULL, *args[3];
	float v = 1;
	int n = 4096, i;

	if (argc > 1)
		wait_for(argv[1]);
	args[0] = &dev;
	args[1] = &n;
	args[2] = &v;
	SCOPE_BPF_REGION("alloc") {
		cudaMalloc(&dev, 1 << 20);
	}
	SCOPE_BPF_REGION("upload") {
		for (i = 0; i < 3; i++)
			cudaMemcpy(dev, host, 4096, cudaMemcpyHostToDevice);
		cudaMemset(dev, 0, 2048);
	}
	SCOPE_BPF_REGION("compute") {
		for (i = 0; i < 2; i++)
			cudaLaunchKernel((const void *)scale_stub, grid, block, args, 0, NULL);
		cudaLaunchKernel((const void *)fill_stub, grid3, block2, args, 128, STREAM);
		cudaMemsetAsync(dev, 0, 256, STREAM);
	}
	SCOPE_BPF_REGION("download") {
		cudaMemcpyAsync(host, dev, 1024, cudaMemcpyDeviceToHost, STREAM);
		cudaStreamSynchronize(STREAM);
		cudaMemcpy(host, dev, 4096, cudaMemcpyDeviceToHost);
	}
	SCOPE_BPF_REGION("finish") {
		cudaDeviceSynchronize();
		cudaEventSynchronize(NULL);
	}
	cudaFree(dev);
	return 0;
}
