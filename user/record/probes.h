/* Finding scope_bpf USDT probes in ELF files. */
#ifndef SB_PROBES_H
#define SB_PROBES_H

#define SB_PROVIDER "scope_bpf"
#define SB_CUDA_PROVIDER "scope_bpf_cuda"	/* the CUPTI library's (bpf/cuda_rec.h) */

/*
 * The argument of a region marker probe as include/scope_bpf.h writes it, in
 * the register the marker programs' fast entries read (bpf/region.bpf.c,
 * SB_SITE_REG); NULL where the header leaves the register to the compiler.
 */
#if defined(__x86_64__)
#define SB_SITE_ARG "8@%rax"
#else
#define SB_SITE_ARG NULL
#endif

/*
 * Number of probes of provider named probe (NULL: any name) whose argument
 * string is args (NULL: any) in the ELF file at path: 0 when none or not ELF,
 * <0 -errno.
 */
int sb_count_probes_with_args(const char *path, const char *provider, const char *probe,
			      const char *args);

static inline int sb_count_named_probes(const char *path, const char *provider,
					const char *probe)
{
	return sb_count_probes_with_args(path, provider, probe, NULL);
}

static inline int sb_count_provider_probes(const char *path, const char *provider)
{
	return sb_count_named_probes(path, provider, NULL);
}

/* Number of scope_bpf (region marker) probes in the ELF file at path. */
static inline int sb_count_probes(const char *path)
{
	return sb_count_provider_probes(path, SB_PROVIDER);
}

#endif
