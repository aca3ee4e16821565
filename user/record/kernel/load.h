/*
 * The kernel layer: the only code that opens, configures, loads and attaches
 * the BPF object (region.bpf.c). It probes the kernel first (features.h) and
 * picks each program's variant from that. Configuration is one step replayed
 * on a fresh object. The core is the hooks every recording runs and the
 * marker programs that read the site from its register; every other program
 * (a source's: MPI, OpenMP, CUDA, counters, the sampler; the marker programs
 * that fetch the site as a note says) belongs to its source's group. All load
 * in one object first (each object costs a parse of the kernel's BTF and
 * more); where the kernel refuses anything, the groups load apart, each after
 * the core in a sibling object that shares every map of the core. The groups
 * of sources that probe a library (MPI, OpenMP, the CUDA runtime) always load
 * apart, and only when a source first asks for one of their programs: they
 * were 64% of the instructions verified at every recording's start (mpi_enter
 * alone 43 000), and most recordings never load those libraries. A group the
 * kernel refuses costs its source only, said in the summary, the metadata and
 * the exit status, never the recording. Sources ask for programs by name
 * (sb_kernel_prog).
 */
#ifndef SB_KERNEL_LOAD_H
#define SB_KERNEL_LOAD_H

#include <stdbool.h>
#include <linux/bpf.h>

#include "record/kernel/features.h"
#include "record/kernel/skips.h"
#include "util/error.h"

struct bpf_program;
struct region_bpf;
struct sb_sources;
struct sb_profile;

#define SB_KERNEL_MAX_GROUPS 8
#define SB_KERNEL_MAX_MEMBERS 32

/* A program the recording wants that loads with its group, after the core. */
struct sb_kernel_member {
	char name[64];
	int group;		/* index in groups */
	__u32 flags;
	enum bpf_attach_type attach;
};

/* The programs of one source (or of the fetching markers), and what became of them. */
struct sb_kernel_group {
	char source[32];
	struct region_bpf *obj;		/* loaded apart (split, on demand), or NULL */
	bool on_demand;			/* loads at the first ask for one of its programs */
	bool refused;
	bool asked;			/* refused, and a source asked for a program of it */
	char program[64];		/* what the kernel refused, and why */
	char reason[256];
};

struct sb_kernel {
	struct sb_kfeatures feat;
	struct region_bpf *skel;	/* the core, loaded; its maps are every group's */
	struct sb_kernel_member members[SB_KERNEL_MAX_MEMBERS];
	unsigned int n_members;
	struct sb_kernel_group groups[SB_KERNEL_MAX_GROUPS];
	unsigned int n_groups;
	bool split;		/* the groups load apart: one object refused something */
	bool sleepable;		/* the marker programs run sleepable */
	bool sleepable_refused;	/* probed, yet refused in the real object */
	char sleepable_reason[400];
	int attempts;		/* loads of the core it took */
	bool verbose;
	uint32_t test_skip;	/* SB_KERNEL_SKIP_ENV's hooks (enum sb_test_skip) */
	struct sb_kernel_skips skips;	/* read at the end of recording */
};

/* What libbpf said of the load in progress: the program it failed on, the kernel's reason. */
struct sb_kernel_log {
	char program[64];
	char reason[256];
	char last_warning[256];
};

/* Take one of libbpf's warnings into l (exposed for its unit test). */
void sb_kernel_log_capture(struct sb_kernel_log *l, const char *msg);
/* Capture libbpf's warnings into l (cleared) until sb_kernel_log_stop. */
void sb_kernel_log_start(struct sb_kernel_log *l);
void sb_kernel_log_stop(void);

/* libbpf's messages go to stderr only when verbose; the kernel layer reads them always. */
void sb_kernel_log_init(bool verbose);
/*
 * Whether -v shows libbpf's debug messages: not while the groups load, each
 * of which would list the whole object again (warnings still show).
 */
void sb_kernel_log_details(bool on);

/* The recorder's own part of the configuration, replayed on every fresh object. */
typedef int (*sb_kernel_base_fn)(struct region_bpf *skel, void *ctx);

/*
 * Probe, open, configure (base, then every source), note the groups, load
 * everything in one object; where that is refused, the core, then each group
 * apart (a refused one is kept for the summary).
 * 0 with k->skel loaded; -EPERM or -EACCES (the caller says which
 * capability); another -errno with err set.
 */
int sb_kernel_load(struct sb_kernel *k, struct sb_sources *sources, sb_kernel_base_fn base,
		   void *ctx, struct sb_error *err);

/* The group member called name, or NULL for a core program (or none). */
const struct sb_kernel_member *sb_kernel_member(const struct sb_kernel *k, const char *name);

/*
 * Tests only: SCOPE_BPF_KERNEL_REFUSE=PROGRAM has the kernel refuse that
 * program of obj, wherever it loads (as a socket filter, which may call none
 * of its helpers), so a refused source is tested on any kernel.
 */
#define SB_KERNEL_REFUSE_ENV "SCOPE_BPF_KERNEL_REFUSE"
void sb_kernel_test_refusal(struct region_bpf *obj);

/* Load every group set aside, each in its own object; 0, or -errno with err. */
int sb_kernel_load_groups(struct sb_kernel *k, struct sb_error *err);

/*
 * The program called name, loaded: in the core or with its group. NULL with
 * err when the kernel refused its group (kept for the summary) or the
 * recording does not load it.
 */
struct bpf_program *sb_kernel_prog(struct sb_kernel *k, const char *name, struct sb_error *err);

/* Without atomic fetch-and-add: obj's programs made loadable (load.c says how). */
void sb_kernel_drop_fetch(const struct sb_kernel *k, struct region_bpf *obj);

/* Whether the recording loads the program called name, in the core or a group. */
bool sb_kernel_wants(const struct sb_kernel *k, const char *name);

/*
 * Whether markers may write to shared memory (the fast path): its probes'
 * arguments are found in any process by attach cookies, and its call ids go
 * on from the kernel's count, which then must be the process's own.
 */
bool sb_kernel_fast_ok(const struct sb_kernel *k);

/* Whether plain uprobes must stand in for libbpf's USDT attach (no attach cookies). */
bool sb_kernel_usdt_by_uprobe(const struct sb_kernel *k);

/* Whether library calls (MPI, CUDA) are probed by one uprobe multi link per file. */
bool sb_kernel_uprobe_multi(const struct sb_kernel *k);

/* One line per refused group and fallback taken, each starting with prefix. */
void sb_kernel_report(const struct sb_kernel *k, const char *prefix);

/* sources_disabled, kernel_fallbacks and kernel_release into the profile. 0 or -ENOMEM. */
int sb_kernel_metadata(const struct sb_kernel *k, struct sb_profile *p);

/*
 * Whether a data source was refused that the recording asked for (a traced
 * process loaded its library): its data is missing. A refused source nothing
 * used is said, and costs nothing.
 */
bool sb_kernel_incomplete(const struct sb_kernel *k);

void sb_kernel_close(struct sb_kernel *k);

#endif
