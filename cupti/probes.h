/*
 * The library's two USDT probes (bpf/cuda_rec.h), provider scope_bpf_cuda,
 * emitted as the region markers' are (include/scope_bpf/probe.h): a 1-byte
 * nop, a SystemTap note, a semaphore a tracer increments while attached
 * (read with scope_bpf_impl_sem). Two 8-byte register arguments.
 */
#ifndef SB_CUPTI_PROBES_H
#define SB_CUPTI_PROBES_H

#include "scope_bpf/probe.h"

__attribute__((visibility("hidden"), section(".probes")))
extern unsigned short scope_bpf_cuda_batch_semaphore;
__attribute__((visibility("hidden"), section(".probes")))
extern unsigned short scope_bpf_cuda_name_semaphore;

#define SB_CUDA_PROBE(probe, a, b)						\
	SCOPE_BPF_IMPL_USDT("scope_bpf_cuda", #probe,				\
			    "scope_bpf_cuda_" #probe "_semaphore", "8@%0 8@%1",	\
			    "r"((unsigned long)(a)), "r"((unsigned long)(b)))

#endif /* SB_CUPTI_PROBES_H */
