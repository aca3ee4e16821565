/* Finding scope_bpf USDT probes in ELF files. */
#ifndef SB_PROBES_H
#define SB_PROBES_H

#define SB_PROVIDER "scope_bpf"

/* Number of scope_bpf probes in the ELF file at path: 0 when none or not ELF, <0 -errno. */
int sb_count_probes(const char *path);

#endif
