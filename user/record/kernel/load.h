/*
 * The kernel layer: the only code that opens, configures, loads and attaches
 * the BPF object (region.bpf.c). It probes the kernel first (features.h) and
 * picks each program's variant from that; configuration is one step it can
 * replay on a fresh object, so a program the verifier refuses costs only its
 * data source: the object is opened again without that source's programs,
 * the source leaves the recording, and the refusal is said (summary, metadata,
 * exit status), never the recording's failure. No libbpf pointer is held
 * outside this layer across a reload: sources find their programs in
 * env->skel, which is valid from the final load on.
 */
#ifndef SB_KERNEL_LOAD_H
#define SB_KERNEL_LOAD_H

#include <stdbool.h>

#include "record/kernel/features.h"
#include "util/error.h"

struct region_bpf;
struct sb_sources;
struct sb_profile;

#define SB_KERNEL_MAX_DISABLED 8

/* A data source the running kernel refused, and the kernel's reason. */
struct sb_kernel_refusal {
	char source[32];
	char program[64];
	char reason[256];
};

struct sb_kernel {
	struct sb_kfeatures feat;
	struct region_bpf *skel;	/* loaded, or NULL */
	struct sb_kernel_refusal refused[SB_KERNEL_MAX_DISABLED];
	unsigned int n_refused;
	bool sleepable;		/* the marker programs run sleepable */
	bool sleepable_refused;	/* probed, yet refused in the real object */
	char sleepable_reason[400];
	int attempts;		/* loads it took */
};

/* The recorder's own part of the configuration, replayed on every fresh object. */
typedef int (*sb_kernel_base_fn)(struct region_bpf *skel, void *ctx);

/* What libbpf said of the load in progress: the program it failed on, the kernel's reason. */
struct sb_kernel_log {
	char program[64];
	char reason[256];
	char last_warning[256];
};

/* Take one of libbpf's warnings into l (exposed for its unit test). */
void sb_kernel_log_capture(struct sb_kernel_log *l, const char *msg);

/* libbpf's messages go to stderr only when verbose; the kernel layer reads them always. */
void sb_kernel_log_init(bool verbose);

/*
 * Probe, open, configure (base, then every source), load; a refused optional
 * program drops its source and loads again. 0 with k->skel loaded; -EPERM or
 * -EACCES (the caller says which capability); another -errno with err set.
 */
int sb_kernel_load(struct sb_kernel *k, struct sb_sources *sources, sb_kernel_base_fn base,
		   void *ctx, struct sb_error *err);

/* One line per refused source and fallback taken, each starting with prefix. */
void sb_kernel_report(const struct sb_kernel *k, const char *prefix);

/* sources_disabled, kernel_fallbacks and kernel_release into the profile. 0 or -ENOMEM. */
int sb_kernel_metadata(const struct sb_kernel *k, struct sb_profile *p);

/* Whether a data source the recording wanted was refused: its data is missing. */
bool sb_kernel_incomplete(const struct sb_kernel *k);

void sb_kernel_close(struct sb_kernel *k);

#endif
