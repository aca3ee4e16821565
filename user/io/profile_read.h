/* Reading any profile format scope-bpf knows, detected from the file's content, into the model. */
#ifndef SB_PROFILE_READ_H
#define SB_PROFILE_READ_H

#include <stdint.h>

#include "util/error.h"
#include "util/hashmap.h"
#include "model/model.h"

/*
 * Read path into p (initialized here; the caller frees it with
 * sb_profile_free), whatever it holds: HDF5 (scope-profiler schema 1, 2, 3
 * or ours), a scope-profiler native trace (.spt v1, v2, either byte order)
 * or scope-profiler JSON v1, plain or gzipped. The name of the file does not matter. Errors
 * are "path: cause" in err: -ENOENT for a missing file, -EINVAL for one that
 * is unknown or corrupt, -ENOMEM.
 */
int sb_profile_read(const char *path, struct sb_profile *p, struct sb_error *err);

enum sb_format { SB_FMT_UNKNOWN, SB_FMT_HDF5, SB_FMT_SPT, SB_FMT_JSON };

/* What path holds, from its content; errors as sb_profile_read's (unknown is -EINVAL). */
int sb_profile_detect(const char *path, enum sb_format *fmt, struct sb_error *err);

/* What this process can allocate: the machine's memory, or a lower address-space limit. */
uint64_t sb_read_memory_limit(void);

/*
 * 0 when n things (what: their name, plural) of each bytes fit in
 * sb_read_memory_limit(); else -EINVAL with why saying how much they need.
 */
int sb_read_check_fits(uint64_t n, uint64_t each, const char *what, char *why, size_t len);

/* ---- for the readers of formats that list calls region by region (.spt, JSON) ---- */

#define SB_READ_MAX_EVENTS (1ull << 31)	/* calls in one profile */
#define SB_READ_PRINTABLE 80		/* bytes of a name quoted in a message */

/*
 * s fit for a one-line message: cut to fit buf, control characters and
 * broken UTF-8 as '?'. Names come from the file and may hold a newline.
 */
const char *sb_read_printable(const char *s, char *buf, size_t len);

/* The calls of one region on one rank, as a file lists them. */
struct sb_read_calls {
	uint32_t rank;
	const char *name;
	const char *file;	/* NULL or "" when unknown */
	int64_t line;		/* -1 when unknown */
	const char *tags;	/* JSON list; NULL for none */
	const int64_t *starts;
	const int64_t *ends;
	/* Optional columns, NULL when the file lacks them; all regions must have the same. */
	const int64_t *threads;
	const int64_t *call_ids;
	const int64_t *parent_ids;
	const int64_t *metric[SB_N_METRICS];	/* by column id (model/columns.h) */
	uint64_t n;
};

struct sb_read_group;

/*
 * Collects calls in any order and any number of pieces, then lays them out
 * as the model wants them: one pair per (rank, region), pairs in order of
 * first appearance, each pair's calls by start, statistics computed.
 */
struct sb_read_build {
	struct sb_profile *p;
	struct sb_hashmap names;	/* (hash of a name, its length) -> region id */
	struct sb_hashmap index;	/* (rank, region id) -> group */
	struct sb_read_group *groups;
	size_t n_groups;
	size_t cap_groups;
	uint64_t n_events;
	/* Count calls into index rows and statistics only: p->events stays NULL. */
	bool lean;
	size_t last_group;	/* the index row the last add went to */
};

void sb_read_build_init(struct sb_read_build *b, struct sb_profile *p);
/*
 * Add calls; a region with none adds nothing. Identity is the name: the same
 * name on the same rank merges into one pair, and a region keeps the first
 * source location seen (the first that knows one). Returns 0, -ENOMEM, or
 * -EINVAL with the cause in why.
 */
int sb_read_build_add(struct sb_read_build *b, const struct sb_read_calls *c, char *why,
		      size_t len);
/* Fill p's pairs and events; same returns. */
int sb_read_build_finish(struct sb_read_build *b, char *why, size_t len);
void sb_read_build_free(struct sb_read_build *b);

/*
 * After finish, for files that list threads: per rank the thread rows are
 * numbered 0..T-1, and every call's thread id names one of its rank's rows
 * (is >= 0 when there are none). 0, -ENOMEM, or -EINVAL with why.
 */
int sb_read_check_threads(const struct sb_profile *p, char *why, size_t len);
/*
 * After finish, for files with call and parent ids: ids unique per rank, no
 * call its own parent or its own ancestor, each parent on the call's thread
 * and around it in time, the calls inside one not longer than it together;
 * so no own time comes out negative. A parent id naming no call of the rank
 * is top level, as in the call tree. Same returns, the call named in why.
 */
int sb_read_check_parents(const struct sb_profile *p, char *why, size_t len);

#endif
