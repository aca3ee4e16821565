/* `scope-bpf diff`: its options, and the comparison as a table or JSON. */
#ifndef SB_CMD_DIFF_H
#define SB_CMD_DIFF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/diff.h"
#include "render/report.h"
#include "util/error.h"

struct diff_opts {
	enum sb_diff_metric metric;
	const char *event;	/* --metric EVENT: a counter event (SB_DIFF_COUNTER) */
	int64_t max_regression;	/* SB_DIFF_NO_GATE or millionths of a percent */
	const char *max_regression_arg;	/* as the user wrote it, for messages */
	enum sb_report_format format;	/* text or json */
	const char *output;	/* NULL: stdout */
	bool wide;		/* --wide: every column, whole names; else 80 columns */
	bool mpi_detail;	/* --mpi-detail: each MPI call region, not its function */
	const char *path_a;
	const char *path_b;
	struct sb_filter filter;	/* --ranks, --include, --exclude: the same on A and B */
	bool help;
};

/*
 * Parse `diff [OPTIONS] A B` (argv[0] is the command name). Returns 0, or
 * -EINVAL with err naming the option or argument at fault. With --help,
 * o->help is set and the files are optional.
 */
int diff_parse_args(int argc, char **argv, struct diff_opts *o, struct sb_error *err);

/* Write d (built from pa and pb) to f as o->format; -EIO on a write error. */
int sb_diff_render(FILE *f, const struct sb_diff *d, const struct sb_profile *pa,
		   const struct sb_profile *pb, const struct diff_opts *o);

#endif
