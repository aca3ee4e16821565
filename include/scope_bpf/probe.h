/*
 * A USDT probe without sys/sdt.h: the one asm the region markers
 * (scope_bpf.h) and the CUPTI library (cupti/probes.h) emit their probes with.
 * Private to scope-bpf, like everything named scope_bpf_impl_*.
 */
#ifndef SCOPE_BPF_PROBE_H
#define SCOPE_BPF_PROBE_H

/*
 * One probe: a 1-byte nop plus a SystemTap note (the format of sys/sdt.h)
 * giving its address, the .stapsdt.base anchor, its semaphore and where its
 * arguments are. A plain nop, because the kernel's optimized uprobes on a
 * 5-byte nop clobber the x86-64 red zone. Numeric labels, because the
 * compiler may copy the asm when it inlines or unrolls. The "?" flag puts
 * the note in the section group of the function (C++ inline functions) so
 * the linker drops it with a discarded copy.
 *
 * provider, probe, sem (the semaphore's symbol) and args (the note's
 * argument string, "8@%0") are string literals: nothing in them is expanded
 * as a macro. The asm's input operands follow, one per argument.
 */
#define SCOPE_BPF_IMPL_USDT(provider, probe, sem, args, ...)			\
	__asm__ __volatile__(							\
		"990:	nop\n"							\
		"	.pushsection .note.stapsdt,\"?\",\"note\"\n"		\
		"	.balign 4\n"						\
		"	.4byte 992f-991f, 994f-993f, 3\n"			\
		"991:	.asciz \"stapsdt\"\n"					\
		"992:	.balign 4\n"						\
		"993:	.8byte 990b\n"						\
		"	.8byte _.stapsdt.base\n"				\
		"	.8byte " sem "\n"					\
		"	.asciz \"" provider "\"\n"				\
		"	.asciz \"" probe "\"\n"					\
		"	.asciz \"" args "\"\n"					\
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
		: : __VA_ARGS__)

#ifdef __cplusplus
extern "C" {
#endif

/* Volatile: a tracer may attach while a loop runs, so the load is never hoisted. */
static inline unsigned short scope_bpf_impl_sem(const volatile unsigned short *sem)
{
	return *sem;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SCOPE_BPF_PROBE_H */
