/* Hottest functions per region path from a profile's sampled stacks; stack trees for flame graphs. */
#ifndef SB_SAMPLES_REPORT_H
#define SB_SAMPLES_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/model.h"
#include "util/error.h"

/* Outermost user frames at or past this many (non-inlined) frames: the kernel cut the walk. */
#define SB_STACK_LIMIT 127
/* Warn when more than this share (percent) of the user stacks look cut short. */
#define SB_TRUNCATED_PCT 20

/*
 * Function names of a profile's frames, one id per distinct (name, kernel):
 * frames of one function at different addresses, or inlined in several
 * places, share an id. A frame without a function is named after its
 * module ("[libc.so.6]", "[kernel]"), else "[unknown]". Id n_real is the
 * pseudo-function "[no stack]" of samples without any frame. Names are
 * demangled unless sb_frame_names_set_demangle(false) said otherwise.
 */
struct sb_fnames {
	char **names;		/* id -> name, n_real + 1 of them */
	bool *kernel;		/* id -> a kernel function */
	bool *helper;		/* id -> a marker helper, folded into its caller */
	uint32_t *of_frame;	/* frame index -> id */
	size_t n_real;
};

int sb_fnames_build(struct sb_fnames *fn, const struct sb_samples *s);
void sb_fnames_free(struct sb_fnames *fn);

/* Whether f is a kernel frame (its module is "[kernel]"). */
bool sb_frame_is_kernel(const struct sb_frame_sym *f);

/*
 * Region path id as names, outermost first, into out[0..n) (out may be
 * NULL to count); returns the depth, 0 for -1 (outside every region).
 */
size_t sb_region_path_names(const struct sb_samples *s, int64_t path, const char **out, size_t n);

/* One function in one region path; weights are samples (CPU) or ns (off-CPU). */
struct sb_fn_stat {
	uint32_t fn;		/* id in struct sb_fnames */
	uint64_t self;		/* the function was the innermost frame */
	uint64_t total;		/* the function was anywhere in the stack (once per stack) */
};

/* The samples whose innermost open region path was path. */
struct sb_path_stat {
	int64_t path;		/* -1: outside every region */
	uint64_t weight;
	struct sb_fn_stat *fns;	/* self, then total, largest first; then by name */
	size_t n_fns;
};

struct sb_sample_stats {
	enum sb_sample_kind kind;
	struct sb_fnames names;
	struct sb_path_stat *paths;	/* weight, largest first; then path order */
	size_t n_paths;
	uint64_t weight;		/* over every path */
	struct sb_fn_stat *all;		/* storage the paths' fns point into */
};

/*
 * Sum the rows of one kind (of one rank; -1 for all) per region path and
 * function. Self is the innermost frame of the whole stack (kernel part
 * first) for CPU samples; for off-CPU time it is the innermost user frame,
 * since the kernel part always ends in the scheduler. 0 or -ENOMEM.
 */
int sb_sample_stats_build(struct sb_sample_stats *st, const struct sb_profile *p,
			  enum sb_sample_kind kind, int64_t rank);
void sb_sample_stats_free(struct sb_sample_stats *st);

/*
 * Rows of this kind with a user stack, weighted by count, and how many of
 * them look cut short: an outermost frame that is no usual root (_start,
 * main, start_thread, clone, ...) or SB_STACK_LIMIT frames. Returns whether
 * more than SB_TRUNCATED_PCT percent do.
 */
bool sb_samples_truncated(const struct sb_profile *p, enum sb_sample_kind kind,
			  uint64_t *stacks, uint64_t *truncated);

/* Where the truncated stacks of one kind break, by weight. */
struct sb_cut_where {
	uint64_t truncated;	/* weight of the truncated stacks */
	uint64_t too_deep;	/* of it: stacks cut at SB_STACK_LIMIT frames */
	/*
	 * Of the rest, the module their outermost frame is in that most of them
	 * end in (full path; NULL when none), its weight, and the commonest
	 * function there ("" when unknown).
	 */
	const char *module;
	uint64_t in_module;
	const char *function;
};

/* Fill w for kind (pointers into p). 0 or -ENOMEM. */
int sb_samples_cut_where(const struct sb_profile *p, enum sb_sample_kind kind,
			 struct sb_cut_where *w);

/* Whether p has a sample of this kind that weighs anything. */
bool sb_samples_have(const struct sb_profile *p, enum sb_sample_kind kind);

/*
 * 0 when p has samples of one of the kinds (bits 1 << kind), else -EINVAL with
 * "the profile has no ... samples: record with ..." in err: every export of
 * samples gives this one answer.
 */
int sb_samples_require(const struct sb_profile *p, unsigned kinds, struct sb_error *err);

/* What a node of a stack tree stands for. */
enum sb_tree_kind {
	SB_TN_ROOT,		/* "all" */
	SB_TN_RANK,		/* ref = rank */
	SB_TN_REGION,		/* ref = region path id */
	SB_TN_USER,		/* ref = function id */
	SB_TN_INLINED,		/* ref = function id, inlined into its parent */
	SB_TN_KERNEL,		/* ref = function id */
	SB_TN_NONE,		/* no frame at all: "[no stack]" */
};

struct sb_tree_node {
	uint32_t parent;	/* UINT32_MAX for the root */
	uint32_t first_child;	/* children by label, linked by next_sibling */
	uint32_t next_sibling;
	uint32_t depth;		/* root 0 */
	enum sb_tree_kind kind;
	int64_t ref;
	uint64_t weight;	/* this node and everything above it */
};

/*
 * The rows of one kind merged into one tree (what flame graphs draw):
 * root, then [rank N] when asked, the region path outermost first, the user
 * stack outermost first, then the kernel stack. nodes[0] is the root.
 */
struct sb_stack_tree {
	const struct sb_samples *s;
	struct sb_fnames names;
	struct sb_tree_node *nodes;
	size_t n_nodes;
	uint32_t max_depth;
};

#define SB_TREE_NONE UINT32_MAX

int sb_stack_tree_build(struct sb_stack_tree *t, const struct sb_profile *p,
			enum sb_sample_kind kind, bool by_rank);
void sb_stack_tree_free(struct sb_stack_tree *t);
/* Node i's name; buf (at least 32 bytes) holds rank names. */
const char *sb_stack_tree_label(const struct sb_stack_tree *t, uint32_t i, char *buf, size_t len);

#endif
