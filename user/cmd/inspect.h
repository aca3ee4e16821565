/* `scope-bpf inspect`: everything a profile holds besides the calls themselves, as text or JSON. */
#ifndef SB_INSPECT_H
#define SB_INSPECT_H

#include <stdbool.h>
#include <stdio.h>

#include "util/error.h"
#include "model/model.h"
#include "render/report.h"

struct inspect_opts {
	enum sb_report_format format;	/* text or json */
	const char *output;	/* NULL: stdout */
	const char *path;	/* the profile */
	bool help;
};

/*
 * Parse `inspect [OPTIONS] FILE` (argv[0] is the command name). Returns 0, or
 * -EINVAL with err naming the option or argument at fault. With --help,
 * o->help is set and FILE is optional.
 */
int inspect_parse_args(int argc, char **argv, struct inspect_opts *o, struct sb_error *err);

/* Describe p (read from o->path) on f as o->format; -ENOMEM, or -EIO on a write error. */
int sb_inspect_render(FILE *f, const struct sb_profile *p, const struct inspect_opts *o);

#endif
