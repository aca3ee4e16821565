/* Exporters: a profile as Chrome trace, speedscope, scope-profiler JSON, CSV or sampled stacks. */
#ifndef SB_EXPORT_H
#define SB_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/error.h"
#include "model/model.h"

/*
 * Each exporter streams p (which must hold its events) to f, in docs/EXPORTS.md's
 * layout. Memory beyond p stays O(threads + regions). Returns 0, or -errno with
 * "cause" in err; write errors are left in f for the caller to find. The
 * speedscope exporter returns the number of calls it skipped because they
 * overlap calls of the same thread without nesting (corrupt input).
 */
int sb_export_chrome_trace(FILE *f, const struct sb_profile *p, struct sb_error *err);
int sb_export_speedscope(FILE *f, const struct sb_profile *p, struct sb_error *err);
int sb_export_json_v1(FILE *f, const struct sb_profile *p, struct sb_error *err);
int sb_export_csv(FILE *f, const struct sb_profile *p, struct sb_error *err);
/* Python's pstats file (marshal): one function per region path, summed over ranks. */
int sb_export_pstats(FILE *f, const struct sb_profile *p, struct sb_error *err);

/*
 * An OTF2 archive of p in dir, which exists and is empty: dir/traces.otf2
 * (what Vampir and Scalasca open), traces.def and traces/. Returns as the
 * others do (calls left out because they do not nest, or -errno with err
 * set); -EIO when libotf2 failed to write, -ENOTSUP when scope-bpf was
 * built without it.
 */
int sb_export_otf2(const char *dir, const struct sb_profile *p, struct sb_error *err);

/*
 * One KIND of `scope-bpf export`. sb_export_kinds (user/export/kinds.c) is
 * the only list of them: the command's usage, errors and defaults are made
 * from it, so a new exporter is one entry there.
 */
struct sb_export_kind {
	const char *name;
	const char *suffix;	/* replaces FILE's extension for the default output */
	const char *help;	/* for the usage text; lines separated by '\n' */
	int (*write)(FILE *f, const struct sb_profile *p, struct sb_error *err);
	/* With --offcpu; NULL: the kind has no off-CPU view. */
	int (*write_offcpu)(FILE *f, const struct sb_profile *p, struct sb_error *err);
	/* A kind whose output is a directory (OTF2) has this instead of write. */
	int (*write_dir)(const char *dir, const struct sb_profile *p, struct sb_error *err);
	bool per_call;		/* writes each call: nothing to write from an aggregate */
};

extern const struct sb_export_kind sb_export_kinds[];
extern const size_t sb_export_n_kinds;

/* The kind called name, or NULL. */
const struct sb_export_kind *sb_export_kind_find(const char *name);

/* ---- shared by the exporters (user/export/common.c) ---- */

/* One (rank, thread) that has calls or a thread-table row. */
struct sb_xthread {
	uint32_t rank;
	int64_t thread;		/* index within the rank, what events name */
	int64_t tid;		/* OS thread id; -1 when unknown */
	const char *name;	/* from the thread table; "" when unknown */
	uint64_t calls;
	int64_t first_start;	/* of its calls; INT64_MAX when none */
	int64_t last_end;	/* of its calls; INT64_MIN when none */
};

/* Every (rank, thread) of a profile, sorted by rank, then thread. */
struct sb_xthreads {
	struct sb_xthread *v;
	size_t n;
};

int sb_xthreads_build(struct sb_xthreads *t, const struct sb_profile *p);
const struct sb_xthread *sb_xthreads_find(const struct sb_xthreads *t, uint32_t rank,
					  int64_t thread);
void sb_xthreads_free(struct sb_xthreads *t);

/* The thread an event ran on; 0 when the profile has no thread column. */
static inline int64_t sb_event_thread(const struct sb_profile *p, const struct sb_event *e)
{
	return p->columns & SB_COL_THREAD ? e->thread : 0;
}

/* Whether a table with a fixed header (CSV) has a field for metric column id. */
static inline bool sb_export_lists_metric(const struct sb_profile *p, unsigned id)
{
	return !sb_column(id)->listed_when_recorded || (p->columns & SB_COL_METRIC(id));
}

/*
 * Whether exports show metric column id for event e (in p->events): the
 * profile has the column and, for a sparse one, the call has a value.
 */
static inline bool sb_export_shows_metric(const struct sb_profile *p, unsigned id,
					  const struct sb_event *e)
{
	return (p->columns & SB_COL_METRIC(id)) && (!sb_column(id)->sparse ||
						  sb_event_metric(p, e, id) >= 0);
}

#define SB_WALK_ALL INT64_MIN	/* walk every thread of the rank */

/* A pair's calls still to come: events [next, end). */
struct sb_walk_cursor {
	uint64_t next;
	uint64_t end;
	uint32_t pair;
};

/*
 * The calls of one rank (or one thread of it) in nesting order: by start,
 * then longest first, then call id (ids count up in entry order, so a parent
 * precedes a child that starts and ends with it). A k-way merge of the rank's
 * pairs, each already sorted by start: O(pairs) memory, O(log pairs) a call.
 */
struct sb_walk {
	const struct sb_profile *p;
	uint32_t *by_rank;		/* pair indexes sorted by rank */
	struct sb_walk_cursor *heap;
	size_t n;
	int64_t thread;
};

int sb_walk_init(struct sb_walk *w, const struct sb_profile *p);
void sb_walk_start(struct sb_walk *w, uint32_t rank, int64_t thread);
/* The next call, or NULL at the end; *pair gets the index of its pair. */
const struct sb_event *sb_walk_next(struct sb_walk *w, uint32_t *pair);
void sb_walk_free(struct sb_walk *w);

/*
 * A region's tags: its JSON list parsed. A string that is not a JSON list of
 * strings is kept as one tag rather than lost. 0 or -ENOMEM.
 */
int sb_tags_parse(const char *json, char ***tags, size_t *n);
void sb_tags_free(char **tags, size_t n);

/* s as a quoted JSON string (format_json_string), malloc'd; NULL without memory. */
char *sb_json_quote(const char *s);

/* 0, or -EINVAL with err set when p does not hold its events. */
int sb_export_need_events(const struct sb_profile *p, struct sb_error *err);

/* Time zero of relative timestamps: start_time_ns, or the earliest call if earlier. */
int64_t sb_export_origin(const struct sb_profile *p);

/* The command line of the rank's process, or "" when the profile does not say. */
const char *sb_export_rank_command(const struct sb_profile *p, uint32_t rank);

/*
 * A buffer in front of the FILE: a 10 M-call export writes hundreds of
 * millions of fields, and one stdio call per field costs more than the rest
 * of the export together. Text longer than the buffer goes straight through.
 */
struct sb_out {
	FILE *f;
	size_t n;
	char buf[16384];
};

static inline void sb_out_init(struct sb_out *o, FILE *f)
{
	o->f = f;
	o->n = 0;
}

void sb_out_flush(struct sb_out *o);

static inline void sb_out_mem(struct sb_out *o, const char *s, size_t len)
{
	if (len > sizeof(o->buf) - o->n) {
		sb_out_flush(o);
		if (len > sizeof(o->buf)) {
			fwrite(s, 1, len, o->f);
			return;
		}
	}
	memcpy(o->buf + o->n, s, len);
	o->n += len;
}

static inline void sb_out_str(struct sb_out *o, const char *s)
{
	sb_out_mem(o, s, strlen(s));
}

static inline void sb_out_char(struct sb_out *o, char c)
{
	sb_out_mem(o, &c, 1);
}

/* Numbers without printf. */
void sb_out_i64(struct sb_out *o, int64_t v);
/* ns as microseconds with three decimals: 12345 -> "12.345". */
void sb_out_us(struct sb_out *o, uint64_t ns);
/* s as a quoted JSON string, as format_json_string writes it. */
void sb_out_json(struct sb_out *o, const char *s);
/* Every metadata attribute as JSON members ("key":value), comma-separated. */
void sb_out_meta_members(struct sb_out *o, const struct sb_profile *p, bool first);

#endif
