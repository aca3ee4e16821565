/*
 * Per-call metric columns: each optional measurement of a call (its GPU time,
 * its off-CPU time; counters and MPI bytes next) is registered once, in
 * columns.c, and every stage (model, HDF5, JSON, exports) carries it from
 * there by id.
 */
#ifndef SB_COLUMNS_H
#define SB_COLUMNS_H

#include <stdbool.h>
#include <stdint.h>

/* Counter columns per kind: counters/events.h's SB_MAX_COUNTERS (checked there). */
#define SB_COUNTER_SLOTS 8

/* Column ids, in file order. */
enum sb_metric {
	SB_METRIC_GPU,		/* GPU time of the call */
	SB_METRIC_OFFCPU,	/* time the call's thread was off-CPU inside it, children included */
	/*
	 * Counter slots (record -e/-g): slot i counts the recording's i-th event
	 * (metadata counter_events), inclusive of the call's children, then the
	 * same slots exclusive of them. -1 = unknown (the thread had no counter).
	 */
	SB_METRIC_COUNTER,
	SB_METRIC_COUNTER_EXCL = SB_METRIC_COUNTER + SB_COUNTER_SLOTS,
	SB_N_METRICS = SB_METRIC_COUNTER_EXCL + SB_COUNTER_SLOTS,
	/*
	 * Ids below this one are kept in each event row (struct sb_event);
	 * counter columns out of line, only when recorded (model.h).
	 */
	SB_N_ROW_METRICS = SB_METRIC_COUNTER,
};

/* The bit of a metric column in sb_profile.columns (after the id columns, before SB_COL_TIMES). */
#define SB_COL_METRIC(id) (1u << (3 + (id)))

/*
 * One column. Values are int64 in memory and in the file (/events/<name>,
 * little-endian int64), in file order after parent_ids, by id.
 */
struct sb_column_def {
	const char *name;	/* HDF5 dataset under /events */
	const char *json_name;	/* list in scope-profiler's JSON (export json, JSON input) */
	const char *short_name;	/* CSV header field and Chrome trace argument */
	const char *unit;	/* of the values: "ns", "B", "" for counts */
	int64_t missing;	/* a call without a value; all of a column a file lacks */
	/*
	 * Calls may lack a value (not every call runs GPU work): CSV and trace
	 * show only values >= 0. Otherwise every call has one, shown as is.
	 */
	bool sparse;
	/*
	 * Tables with a fixed header (CSV) list the column only when the
	 * profile has it: what it counts is the recording's (counter slots).
	 */
	bool listed_when_recorded;
};

/* The registration of column id < SB_N_METRICS. */
const struct sb_column_def *sb_column(unsigned id);

/* Every column's missing value, into metric[SB_N_METRICS]. */
void sb_metrics_blank(int64_t *metric);

/*
 * The id at position k < SB_N_METRICS of the order CSV and Chrome trace
 * exports list columns in: those formats put off-CPU before GPU; later
 * columns follow by id.
 */
unsigned sb_column_export_id(unsigned k);

#endif
