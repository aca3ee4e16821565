/* Finding scope_bpf USDT probes in ELF files. */
#ifndef SB_PROBES_H
#define SB_PROBES_H

#include <stdint.h>

#define SB_PROVIDER "scope_bpf"
#define SB_CUDA_PROVIDER "scope_bpf_cuda"	/* the CUPTI library's (bpf/cuda_rec.h) */

/*
 * The argument of a region marker probe as the header writes it
 * (include/scope_bpf/state.h, SCOPE_BPF_IMPL_SITE_REG), in the register the
 * marker programs' fast entries read (bpf/region.bpf.c, SB_SITE_REG); NULL
 * where the header leaves the register to the compiler.
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

/* Where a probe is in its file, for a uprobe: its instruction and its semaphore (0: none). */
struct sb_probe_site {
	uint64_t offset;
	uint64_t ref_ctr_offset;
};

/*
 * The sites of the probes sb_count_probes_with_args() counts, at most max of
 * them into sites, each found in the file's loaded bytes: how many, or
 * <0 -errno. A site that is not (a hostile file) is left out, so fewer than
 * the count says all were not found.
 */
int sb_probe_sites(const char *path, const char *provider, const char *probe, const char *args,
		   struct sb_probe_site *sites, int max);

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
