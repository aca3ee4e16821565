/* Finding scope_bpf USDT probes in ELF files. */
#ifndef SB_PROBES_H
#define SB_PROBES_H

#define SB_PROVIDER "scope_bpf"
#define SB_CUDA_PROVIDER "scope_bpf_cuda"	/* the CUPTI library's (bpf/cuda_rec.h) */

/*
 * Number of probes of provider named probe (NULL: any name) in the ELF file at
 * path: 0 when none or not ELF, <0 -errno.
 */
int sb_count_named_probes(const char *path, const char *provider, const char *probe);

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
