/*
 * The library's two USDT probes (bpf/cuda_rec.h), emitted as include/scope_bpf.h
 * emits the region markers: a 1-byte nop, a SystemTap note, a semaphore a
 * tracer increments while attached. Two 8-byte register arguments.
 */
#ifndef SB_CUPTI_PROBES_H
#define SB_CUPTI_PROBES_H

__attribute__((visibility("hidden"), section(".probes")))
extern unsigned short scope_bpf_cuda_batch_semaphore;
__attribute__((visibility("hidden"), section(".probes")))
extern unsigned short scope_bpf_cuda_name_semaphore;

#define SB_CUDA_PROBE(probe, a, b)						\
	__asm__ __volatile__(							\
		"990:	nop\n"							\
		"	.pushsection .note.stapsdt,\"?\",\"note\"\n"		\
		"	.balign 4\n"						\
		"	.4byte 992f-991f, 994f-993f, 3\n"			\
		"991:	.asciz \"stapsdt\"\n"					\
		"992:	.balign 4\n"						\
		"993:	.8byte 990b\n"						\
		"	.8byte _.stapsdt.base\n"				\
		"	.8byte scope_bpf_cuda_" #probe "_semaphore\n"		\
		"	.asciz \"scope_bpf_cuda\"\n"				\
		"	.asciz \"" #probe "\"\n"				\
		"	.asciz \"8@%0 8@%1\"\n"				\
		"994:	.balign 4\n"						\
		"	.popsection\n"						\
		"	.ifndef _.stapsdt.base\n"				\
		"	.pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n" \
		"	.weak _.stapsdt.base\n"					\
		"	.hidden _.stapsdt.base\n"				\
		"_.stapsdt.base:\n"						\
		"	.space 1\n"						\
		"	.size _.stapsdt.base, 1\n"				\
		"	.popsection\n"						\
		"	.endif\n"						\
		: : "r"((unsigned long)(a)), "r"((unsigned long)(b)))

/* Volatile: a tracer may attach at any time. */
static inline unsigned short sb_cuda_traced(const volatile unsigned short *sem)
{
	return *sem;
}

#endif /* SB_CUPTI_PROBES_H */
