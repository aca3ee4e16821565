/* Which LIKWID perfgroups directory fits this CPU, picked from CPUID as LIKWID picks it. */
#ifndef SB_COUNTERS_LIKWID_ARCH_H
#define SB_COUNTERS_LIKWID_ARCH_H

#include <stddef.h>

#include "util/error.h"

#define SB_LIKWID_GROUPS_DIR "/usr/share/likwid/perfgroups"

/*
 * The directory name for a CPU ("skylake", "zen2"), or NULL when LIKWID has
 * none. vendor is cpuinfo's vendor_id ("GenuineIntel", "AuthenticAMD").
 */
const char *sb_likwid_arch_of(const char *vendor, unsigned int family, unsigned int model,
			      unsigned int stepping);

/*
 * This CPU's directory under root (SB_LIKWID_GROUPS_DIR unless the
 * SCOPE_BPF_LIKWID_GROUPS environment variable names another): the one
 * sb_likwid_arch_of() names, or the nearest older one LIKWID ships when this
 * LIKWID predates the CPU (zen4 -> zen3). NULL with err when none fits.
 */
const char *sb_likwid_arch_detect(struct sb_error *err);

/* The groups root directory (SB_LIKWID_GROUPS_DIR or $SCOPE_BPF_LIKWID_GROUPS). */
const char *sb_likwid_groups_root(void);

/* The libpfm4 core PMU that names this directory's events ("skylake" -> "skl"), or NULL. */
const char *sb_likwid_arch_pmu(const char *arch);

#endif
