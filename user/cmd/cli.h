/* What the commands that read profiles share: option parsing, usage errors, output files. */
#ifndef SB_CLI_H
#define SB_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "util/error.h"
#include "model/model.h"
#include "render/report.h"

/* What an option handler returns after --help: the rest of argv is not looked at. */
#define SB_OPT_STOP 1

/*
 * Run getopt_long() over argv from argv[1], even when it ran before, handing each
 * option to fn(c, ctx, err) (optarg as getopt_long() left it). Returns 0 with
 * optind at the first operand (or wherever fn said SB_OPT_STOP), fn's -errno, or
 * -EINVAL with err naming an unknown option or one missing its argument, as the
 * user spelled it.
 */
int sb_parse_options(int argc, char **argv, const char *shortopts,
		     const struct option *longopts,
		     int (*fn)(int c, void *ctx, struct sb_error *err), void *ctx,
		     struct sb_error *err);

/* The options of every command that lists regions: --ranks, --include, --exclude. */
enum { SB_OPT_RANKS = 0x1000, SB_OPT_INCLUDE, SB_OPT_EXCLUDE };
#define SB_FILTER_OPTIONS							\
	{ "ranks", required_argument, NULL, SB_OPT_RANKS },			\
	{ "include", required_argument, NULL, SB_OPT_INCLUDE },			\
	{ "exclude", required_argument, NULL, SB_OPT_EXCLUDE }

/* Their help, for a command whose help puts descriptions at column 22. */
#define SB_FILTER_HELP								\
	"      --ranks LIST    only these ranks: numbers and ranges, 0-3,7\n"	\
	"      --include REGEX only regions whose name matches REGEX (POSIX\n"	\
	"                      extended, anywhere in the name: anchor with ^ $)\n"	\
	"      --exclude REGEX no region whose name matches REGEX; the calls\n"	\
	"                      inside a left-out region count for the one around it\n"

/* Take c's argument into f when c is one of them: 0 or -EINVAL with err; 1 when it is not. */
int sb_filter_option(int c, const char *arg, struct sb_filter *f, struct sb_error *err);

/*
 * Keep in p (read from path) only what f selects; on failure say why on stderr
 * for command cmd. Returns 0 or the exit status.
 */
int sb_filter_profile(const char *cmd, const char *path, const struct sb_filter *f,
		      struct sb_profile *p);

/* --format's argument: text, json, and csv when the command has it; -EINVAL with err set. */
int sb_format_option(const char *arg, bool csv, enum sb_report_format *fmt,
		     struct sb_error *err);

/* "scope-bpf CMD: MSG" and the --help hint on stderr; returns SB_EXIT_USAGE. */
int sb_usage_error(const char *cmd, const char *msg);

/*
 * What needs each call (what) cannot be had from an aggregate (record
 * --aggregate), which holds their sums only: 0 when p holds calls, else
 * SB_EXIT_USAGE after saying so for command cmd.
 */
int sb_require_calls(const char *cmd, const char *path, const struct sb_profile *p,
		     const char *what);

/*
 * Read the profile at path (any format) into p for command cmd; on failure say
 * why on stderr and leave p empty. Returns sb_profile_read()'s result.
 */
int sb_load_profile(const char *cmd, const char *path, struct sb_profile *p);

/* An open output; fields are read-only outside cli.c. */
struct sb_output {
	FILE *f;
	const char *path;	/* NULL: standard output */
	char *tmp;		/* renamed onto path at commit; NULL: written in place */
	char *buf;		/* tmp's stdio buffer */
};

/*
 * Open path for writing, the one way every command writes a file. NULL, "-"
 * and the file standard output already is (/dev/stdout) are standard output.
 * A new or regular file, or a link another user owns, is written to a
 * temporary file beside it (io/tmpfile.h) that sb_output_commit() renames
 * into place: readers see the old file or the whole new one, and a planted
 * link is replaced, never followed. A link of ours or root's is followed,
 * and a device, FIFO or socket written in place. Under sudo all of it is done
 * with the rights of the user who ran sudo. Returns 0 with errno cleared, so
 * a write error's errno can be told apart later, or -errno with "path: cause"
 * in err.
 */
int sb_output_open(struct sb_output *o, const char *path, struct sb_error *err);

/* The path, or "standard output", for messages. */
const char *sb_output_name(const struct sb_output *o);

/*
 * Flush, sync a temporary file, close and rename it into place. Returns 0, or
 * -errno with "name: cause" in err and nothing left behind but the old file.
 */
int sb_output_commit(struct sb_output *o, struct sb_error *err);

/* Close without keeping what was written to a temporary file (the caller failed). */
void sb_output_abort(struct sb_output *o);

/*
 * Commit o when its writer returned r == 0, else abort it; on any failure say
 * "scope-bpf CMD: name: cause" on stderr. Returns the exit status: 0 or 1.
 */
int sb_output_close(struct sb_output *o, int r, const char *cmd);

#endif
