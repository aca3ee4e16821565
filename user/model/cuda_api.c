/* CUPTI's numbers as names: API functions by callback id, copy directions by kind. */
#include <stdlib.h>

#include "model/cuda.h"

struct api_name {
	int64_t cbid;
	const char *name;
};

/*
 * The common runtime calls (cupti_runtime_cbid.h, CUDA 13), by id. A
 * function's versions and its per-thread-stream variants (_ptsz, _ptds) are
 * the one function the program called. Checked against the toolkit's
 * header by tests/cupti/test_cupti_cbids.c.
 */
static const struct api_name runtime[] = {
	{ 3, "cudaGetDeviceCount" },
	{ 4, "cudaGetDeviceProperties" },
	{ 10, "cudaGetLastError" },
	{ 11, "cudaPeekAtLastError" },
	{ 15, "cudaFuncGetAttributes" },
	{ 16, "cudaSetDevice" },
	{ 17, "cudaGetDevice" },
	{ 20, "cudaMalloc" },
	{ 22, "cudaFree" },
	{ 25, "cudaMallocHost" },
	{ 26, "cudaFreeHost" },
	{ 27, "cudaHostAlloc" },
	{ 30, "cudaMemGetInfo" },
	{ 31, "cudaMemcpy" },
	{ 32, "cudaMemcpy2D" },
	{ 39, "cudaMemcpyToSymbol" },
	{ 40, "cudaMemcpyFromSymbol" },
	{ 41, "cudaMemcpyAsync" },
	{ 49, "cudaMemset" },
	{ 51, "cudaMemsetAsync" },
	{ 129, "cudaStreamCreate" },
	{ 130, "cudaStreamDestroy" },
	{ 131, "cudaStreamSynchronize" },
	{ 132, "cudaStreamQuery" },
	{ 133, "cudaEventCreate" },
	{ 134, "cudaEventCreateWithFlags" },
	{ 135, "cudaEventRecord" },
	{ 136, "cudaEventDestroy" },
	{ 137, "cudaEventSynchronize" },
	{ 138, "cudaEventQuery" },
	{ 139, "cudaEventElapsedTime" },
	{ 147, "cudaStreamWaitEvent" },
	{ 152, "cudaHostRegister" },
	{ 153, "cudaHostUnregister" },
	{ 164, "cudaDeviceReset" },
	{ 165, "cudaDeviceSynchronize" },
	{ 198, "cudaStreamCreateWithFlags" },
	{ 200, "cudaDeviceGetAttribute" },
	{ 201, "cudaStreamDestroy" },
	{ 206, "cudaMallocManaged" },
	{ 211, "cudaLaunchKernel" },
	{ 214, "cudaLaunchKernel" },
	{ 215, "cudaMemcpy" },
	{ 216, "cudaMemcpy2D" },
	{ 223, "cudaMemcpyToSymbol" },
	{ 224, "cudaMemcpyFromSymbol" },
	{ 225, "cudaMemcpyAsync" },
	{ 233, "cudaMemset" },
	{ 235, "cudaMemsetAsync" },
	{ 239, "cudaStreamSynchronize" },
	{ 240, "cudaStreamQuery" },
	{ 242, "cudaEventRecord" },
	{ 247, "cudaStreamWaitEvent" },
	{ 252, "cudaMemPrefetchAsync" },
	{ 253, "cudaMemPrefetchAsync" },
	{ 269, "cudaLaunchCooperativeKernel" },
	{ 270, "cudaLaunchCooperativeKernel" },
	{ 311, "cudaGraphLaunch" },
	{ 312, "cudaGraphLaunch" },
	{ 373, "cudaMallocAsync" },
	{ 374, "cudaMallocAsync" },
	{ 375, "cudaFreeAsync" },
	{ 376, "cudaFreeAsync" },
	{ 430, "cudaLaunchKernelExC" },
	{ 431, "cudaLaunchKernelExC" },
	{ 440, "cudaGetDeviceProperties" },
	{ 449, "cudaMemPrefetchAsync" },
	{ 450, "cudaMemPrefetchAsync" },
	{ 486, "cudaEventElapsedTime" },
	/* CUDA 13's launch of a <<<...>>> kernel, through nvcc's own stub. */
	{ 505, "cudaLaunchKernel" },
	{ 506, "cudaLaunchKernel" },
};

/* The common driver calls (cupti_driver_cbid.h, CUDA 13); _v2 and the like are the same call. */
static const struct api_name driver[] = {
	{ 1, "cuInit" },
	{ 10, "cuCtxCreate" },
	{ 17, "cuCtxSynchronize" },
	{ 19, "cuModuleLoadData" },
	{ 23, "cuModuleGetFunction" },
	{ 29, "cuMemAlloc" },
	{ 33, "cuMemFree" },
	{ 37, "cuMemAllocHost" },
	{ 38, "cuMemFreeHost" },
	{ 39, "cuMemHostAlloc" },
	{ 43, "cuMemcpyHtoD" },
	{ 45, "cuMemcpyDtoH" },
	{ 60, "cuMemcpyHtoDAsync" },
	{ 62, "cuMemcpyDtoHAsync" },
	{ 71, "cuMemsetD8" },
	{ 75, "cuMemsetD32" },
	{ 118, "cuEventCreate" },
	{ 119, "cuEventRecord" },
	{ 121, "cuEventSynchronize" },
	{ 122, "cuEventDestroy" },
	{ 124, "cuStreamCreate" },
	{ 126, "cuStreamSynchronize" },
	{ 127, "cuStreamDestroy" },
	{ 235, "cuCtxCreate" },
	{ 243, "cuMemAlloc" },
	{ 245, "cuMemFree" },
	{ 248, "cuMemcpy" },
	{ 249, "cuMemsetD8" },
	{ 251, "cuMemsetD32" },
	{ 271, "cuMemHostAlloc" },
	{ 276, "cuMemcpyHtoD" },
	{ 277, "cuMemcpyHtoDAsync" },
	{ 278, "cuMemcpyDtoH" },
	{ 279, "cuMemcpyDtoHAsync" },
	{ 294, "cuMemAllocHost" },
	{ 295, "cuStreamWaitEvent" },
	{ 305, "cuMemcpy" },
	{ 306, "cuMemcpyAsync" },
	{ 307, "cuLaunchKernel" },
	{ 325, "cuEventDestroy" },
	{ 326, "cuStreamDestroy" },
	{ 386, "cuDevicePrimaryCtxRetain" },
	{ 397, "cuMemcpyHtoD" },
	{ 398, "cuMemcpyDtoH" },
	{ 408, "cuMemcpy" },
	{ 411, "cuMemsetD8" },
	{ 413, "cuMemsetD32" },
	{ 418, "cuMemcpyAsync" },
	{ 421, "cuMemcpyHtoDAsync" },
	{ 422, "cuMemcpyDtoHAsync" },
	{ 436, "cuStreamWaitEvent" },
	{ 440, "cuStreamSynchronize" },
	{ 441, "cuEventRecord" },
	{ 442, "cuLaunchKernel" },
	{ 514, "cuGraphLaunch" },
	{ 515, "cuGraphLaunch" },
	{ 598, "cuMemAllocAsync" },
	{ 599, "cuMemAllocAsync" },
	{ 600, "cuMemFreeAsync" },
	{ 601, "cuMemFreeAsync" },
	{ 645, "cuCtxCreate" },
	{ 652, "cuLaunchKernelEx" },
	{ 653, "cuLaunchKernelEx" },
	{ 673, "cuModuleGetLoadingMode" },
	{ 678, "cuLibraryLoadData" },
	{ 681, "cuLibraryGetKernel" },
	{ 682, "cuLibraryGetModule" },
	{ 683, "cuKernelGetFunction" },
	{ 800, "cuCtxSynchronize" },
};

static int cmp_cbid(const void *key, const void *entry)
{
	int64_t k = *(const int64_t *)key, e = ((const struct api_name *)entry)->cbid;

	return (k > e) - (k < e);
}

const char *sb_cuda_api_name(int32_t kind, int64_t cbid)
{
	const struct api_name *t = kind == SB_CUDA_ACT_RUNTIME ? runtime : driver, *at;
	size_t n = kind == SB_CUDA_ACT_RUNTIME ? sizeof(runtime) / sizeof(runtime[0]) :
						 sizeof(driver) / sizeof(driver[0]);

	if (kind != SB_CUDA_ACT_RUNTIME && kind != SB_CUDA_ACT_DRIVER)
		return NULL;
	at = bsearch(&cbid, t, n, sizeof(*t), cmp_cbid);
	return at ? at->name : NULL;
}

const char *sb_cuda_copy_kind(int64_t kind)
{
	static const char *const kinds[] = {
		NULL, "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP",
	};

	return kind > 0 && kind < (int64_t)(sizeof(kinds) / sizeof(kinds[0])) ? kinds[kind] : NULL;
}
