/*
 * The API function names of model/cuda_api.c against the toolkit's own
 * callback ids: each id the table names is the one CUPTI's headers give
 * that function, in every version and variant the table folds together.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <cupti.h>

#include "model/cuda.h"

struct expect {
	int64_t cbid;
	const char *name;
};

#define RT(fn, v) { CUPTI_RUNTIME_TRACE_CBID_##fn##_##v, #fn }
#define DRV(fn, sym) { CUPTI_DRIVER_TRACE_CBID_##sym, #fn }

static const struct expect runtime[] = {
	RT(cudaGetDeviceCount, v3020), RT(cudaGetDeviceProperties, v3020),
	RT(cudaGetDeviceProperties, v12000), RT(cudaGetLastError, v3020),
	RT(cudaPeekAtLastError, v3020), RT(cudaFuncGetAttributes, v3020),
	RT(cudaSetDevice, v3020), RT(cudaGetDevice, v3020), RT(cudaMalloc, v3020),
	RT(cudaFree, v3020), RT(cudaMallocHost, v3020), RT(cudaFreeHost, v3020),
	RT(cudaHostAlloc, v3020), RT(cudaMemGetInfo, v3020), RT(cudaMemcpy, v3020),
	RT(cudaMemcpy, ptds_v7000), RT(cudaMemcpy2D, v3020), RT(cudaMemcpy2D, ptds_v7000),
	RT(cudaMemcpyToSymbol, v3020), RT(cudaMemcpyToSymbol, ptds_v7000),
	RT(cudaMemcpyFromSymbol, v3020), RT(cudaMemcpyFromSymbol, ptds_v7000),
	RT(cudaMemcpyAsync, v3020), RT(cudaMemcpyAsync, ptsz_v7000), RT(cudaMemset, v3020),
	RT(cudaMemset, ptds_v7000), RT(cudaMemsetAsync, v3020), RT(cudaMemsetAsync, ptsz_v7000),
	RT(cudaStreamCreate, v3020), RT(cudaStreamCreateWithFlags, v5000),
	RT(cudaStreamDestroy, v3020), RT(cudaStreamDestroy, v5050),
	RT(cudaStreamSynchronize, v3020), RT(cudaStreamSynchronize, ptsz_v7000),
	RT(cudaStreamQuery, v3020), RT(cudaStreamQuery, ptsz_v7000),
	RT(cudaEventCreate, v3020), RT(cudaEventCreateWithFlags, v3020),
	RT(cudaEventRecord, v3020), RT(cudaEventRecord, ptsz_v7000), RT(cudaEventDestroy, v3020),
	RT(cudaEventSynchronize, v3020), RT(cudaEventQuery, v3020),
	RT(cudaEventElapsedTime, v3020), RT(cudaEventElapsedTime, v12080),
	RT(cudaStreamWaitEvent, v3020), RT(cudaStreamWaitEvent, ptsz_v7000),
	RT(cudaHostRegister, v4000), RT(cudaHostUnregister, v4000), RT(cudaDeviceReset, v3020),
	RT(cudaDeviceSynchronize, v3020), RT(cudaDeviceGetAttribute, v5000),
	RT(cudaMallocManaged, v6000), RT(cudaLaunchKernel, v7000),
	RT(cudaLaunchKernel, ptsz_v7000), RT(cudaMemPrefetchAsync, v8000),
	RT(cudaMemPrefetchAsync, ptsz_v8000), RT(cudaMemPrefetchAsync, v12020),
	RT(cudaMemPrefetchAsync, ptsz_v12020), RT(cudaLaunchCooperativeKernel, v9000),
	RT(cudaLaunchCooperativeKernel, ptsz_v9000), RT(cudaGraphLaunch, v10000),
	RT(cudaGraphLaunch, ptsz_v10000), RT(cudaMallocAsync, v11020),
	RT(cudaMallocAsync, ptsz_v11020), RT(cudaFreeAsync, v11020),
	RT(cudaFreeAsync, ptsz_v11020), RT(cudaLaunchKernelExC, v11060),
	RT(cudaLaunchKernelExC, ptsz_v11060),
	{ CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, "cudaLaunchKernel" },
	{ CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000, "cudaLaunchKernel" },
};

static const struct expect driver[] = {
	DRV(cuInit, cuInit), DRV(cuCtxCreate, cuCtxCreate), DRV(cuCtxCreate, cuCtxCreate_v2),
	DRV(cuCtxCreate, cuCtxCreate_v3), DRV(cuCtxSynchronize, cuCtxSynchronize),
	DRV(cuCtxSynchronize, cuCtxSynchronize_v2), DRV(cuModuleLoadData, cuModuleLoadData),
	DRV(cuModuleGetFunction, cuModuleGetFunction), DRV(cuMemAlloc, cuMemAlloc),
	DRV(cuMemAlloc, cuMemAlloc_v2), DRV(cuMemFree, cuMemFree), DRV(cuMemFree, cuMemFree_v2),
	DRV(cuMemAllocHost, cuMemAllocHost), DRV(cuMemAllocHost, cuMemAllocHost_v2),
	DRV(cuMemFreeHost, cuMemFreeHost), DRV(cuMemHostAlloc, cuMemHostAlloc),
	DRV(cuMemHostAlloc, cuMemHostAlloc_v2), DRV(cuMemcpyHtoD, cuMemcpyHtoD),
	DRV(cuMemcpyHtoD, cuMemcpyHtoD_v2), DRV(cuMemcpyHtoD, cuMemcpyHtoD_v2_ptds),
	DRV(cuMemcpyDtoH, cuMemcpyDtoH), DRV(cuMemcpyDtoH, cuMemcpyDtoH_v2),
	DRV(cuMemcpyDtoH, cuMemcpyDtoH_v2_ptds), DRV(cuMemcpyHtoDAsync, cuMemcpyHtoDAsync),
	DRV(cuMemcpyHtoDAsync, cuMemcpyHtoDAsync_v2),
	DRV(cuMemcpyHtoDAsync, cuMemcpyHtoDAsync_v2_ptsz),
	DRV(cuMemcpyDtoHAsync, cuMemcpyDtoHAsync), DRV(cuMemcpyDtoHAsync, cuMemcpyDtoHAsync_v2),
	DRV(cuMemcpyDtoHAsync, cuMemcpyDtoHAsync_v2_ptsz), DRV(cuMemcpy, cuMemcpy),
	DRV(cuMemcpy, cuMemcpy_v2), DRV(cuMemcpy, cuMemcpy_ptds),
	DRV(cuMemcpyAsync, cuMemcpyAsync), DRV(cuMemcpyAsync, cuMemcpyAsync_ptsz),
	DRV(cuMemsetD8, cuMemsetD8), DRV(cuMemsetD8, cuMemsetD8_v2),
	DRV(cuMemsetD8, cuMemsetD8_v2_ptds), DRV(cuMemsetD32, cuMemsetD32),
	DRV(cuMemsetD32, cuMemsetD32_v2), DRV(cuMemsetD32, cuMemsetD32_v2_ptds),
	DRV(cuEventCreate, cuEventCreate), DRV(cuEventRecord, cuEventRecord),
	DRV(cuEventRecord, cuEventRecord_ptsz), DRV(cuEventSynchronize, cuEventSynchronize),
	DRV(cuEventDestroy, cuEventDestroy), DRV(cuEventDestroy, cuEventDestroy_v2),
	DRV(cuStreamCreate, cuStreamCreate), DRV(cuStreamSynchronize, cuStreamSynchronize),
	DRV(cuStreamSynchronize, cuStreamSynchronize_ptsz), DRV(cuStreamDestroy, cuStreamDestroy),
	DRV(cuStreamDestroy, cuStreamDestroy_v2), DRV(cuStreamWaitEvent, cuStreamWaitEvent),
	DRV(cuStreamWaitEvent, cuStreamWaitEvent_ptsz), DRV(cuLaunchKernel, cuLaunchKernel),
	DRV(cuLaunchKernel, cuLaunchKernel_ptsz), DRV(cuLaunchKernelEx, cuLaunchKernelEx),
	DRV(cuLaunchKernelEx, cuLaunchKernelEx_ptsz),
	DRV(cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain),
	DRV(cuGraphLaunch, cuGraphLaunch), DRV(cuGraphLaunch, cuGraphLaunch_ptsz),
	DRV(cuMemAllocAsync, cuMemAllocAsync), DRV(cuMemAllocAsync, cuMemAllocAsync_ptsz),
	DRV(cuMemFreeAsync, cuMemFreeAsync), DRV(cuMemFreeAsync, cuMemFreeAsync_ptsz),
	DRV(cuModuleGetLoadingMode, cuModuleGetLoadingMode),
	DRV(cuLibraryLoadData, cuLibraryLoadData), DRV(cuLibraryGetKernel, cuLibraryGetKernel),
	DRV(cuLibraryGetModule, cuLibraryGetModule),
	DRV(cuKernelGetFunction, cuKernelGetFunction),
};

static void check(int32_t kind, const struct expect *e, size_t n)
{
	const char *got;
	size_t i;

	for (i = 0; i < n; i++) {
		got = sb_cuda_api_name(kind, e[i].cbid);
		if (!got || strcmp(got, e[i].name))
			fail_msg("callback id %lld: want %s, got %s", (long long)e[i].cbid,
				 e[i].name, got ? got : "nothing");
	}
}

static void test_runtime_ids_are_the_toolkits(void **state)
{
	(void)state;
	check(SB_CUDA_ACT_RUNTIME, runtime, sizeof(runtime) / sizeof(runtime[0]));
}

static void test_driver_ids_are_the_toolkits(void **state)
{
	(void)state;
	check(SB_CUDA_ACT_DRIVER, driver, sizeof(driver) / sizeof(driver[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runtime_ids_are_the_toolkits),
		cmocka_unit_test(test_driver_ids_are_the_toolkits),
	};

	return cmocka_run_group_tests_name("cupti_cbids", tests, NULL, NULL);
}
