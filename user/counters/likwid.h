/*
 * LIKWID performance groups (`-g FLOPS_DP`): the group files LIKWID installs
 * (/usr/share/likwid/perfgroups/<arch>/GROUP.txt), their events resolved to
 * perf encodings, and their metrics evaluated with LIKWID's own formulas.
 * Pure: opens no event (issue 10).
 */
#ifndef SB_COUNTERS_LIKWID_H
#define SB_COUNTERS_LIKWID_H

#include <stdbool.h>
#include <stdio.h>

#include "counters/events.h"
#include "util/error.h"

#define SB_LIKWID_MAX_METRICS 32
#define SB_LIKWID_MAX_SKIPPED 96	/* uncore groups list up to ~40 box counters */

struct sb_likwid_expr;	/* a compiled formula */

struct sb_likwid_metric {
	char *name;			/* e.g. "DP [MFLOP/s]" */
	struct sb_likwid_expr *expr;
	bool uncounted;			/* reads a skipped counter: always NaN */
};

struct sb_likwid_group {
	char *name;			/* e.g. "FLOPS_DP" */
	char *arch;			/* the perfgroups directory it came from, e.g. "skylake" */
	char *description;		/* SHORT */
	/* counter_names[i] (FIXC0, PMC1, ...) counts events.ev[i] */
	char *counter_names[SB_MAX_COUNTERS];
	struct sb_counter_set events;
	struct sb_likwid_metric metrics[SB_LIKWID_MAX_METRICS];
	unsigned int n_metrics;
	/*
	 * EVENTSET counters not counted per thread, each "COUNTER EVENT: why"
	 * (uncore and energy counters count a socket; AMD's MERGE perf does
	 * itself); metrics reading them are uncounted.
	 */
	char *skipped[SB_LIKWID_MAX_SKIPPED];
	unsigned int n_skipped;
};

/*
 * Load group `name` for this CPU (or the file at a path containing '/');
 * errors name the file and line. Events LIKWID spells differently from
 * libpfm4 go through a committed name map; an event no PMU here has is an
 * error from sb_counter_event_check, not from loading.
 */
int sb_likwid_group_load(const char *name, struct sb_likwid_group *g, struct sb_error *err);

/* Parse a group file's text (for tests and for sb_likwid_group_load). */
int sb_likwid_group_parse(const char *text, const char *name, struct sb_likwid_group *g,
			  struct sb_error *err);

/*
 * As sb_likwid_group_parse for the groups of arch (a perfgroups directory:
 * events resolve through that arch's libpfm4 PMU even on another CPU);
 * arch NULL checks the syntax and formulas only and leaves events unresolved
 * (names only). origin names the text in errors ("skylake/L2.txt:12: ...").
 */
int sb_likwid_group_parse_arch(const char *text, const char *origin, const char *arch,
			       struct sb_likwid_group *g, struct sb_error *err);

/* As sb_likwid_group_load for the perfgroups directory arch (e.g. "skylake"). */
int sb_likwid_group_load_arch(const char *arch, const char *name, struct sb_likwid_group *g,
			      struct sb_error *err);

/* One line per skipped counter and the metrics left without a value ("note: ..."). */
void sb_likwid_group_notes(const struct sb_likwid_group *g, FILE *f);

void sb_likwid_group_free(struct sb_likwid_group *g);

/*
 * A metric's value from counts[i] of counter_names[i], `time` (seconds) and
 * `inverseClock` (1 / CPU Hz), as LIKWID evaluates it; NaN when a division
 * by zero or a missing counter makes it undefined.
 */
double sb_likwid_eval(const struct sb_likwid_group *g, unsigned int metric, const double *counts,
		      double time_s, double inverse_clock);

/* `record --list-groups`: the groups of this CPU's perfgroups directory. */
int sb_likwid_list_groups(FILE *f);

#endif
