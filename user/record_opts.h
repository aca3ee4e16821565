/* Options of `scope-bpf record`, parsed apart from running so they can be tested. */
#ifndef SB_RECORD_OPTS_H
#define SB_RECORD_OPTS_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "error.h"

struct record_opts {
	pid_t pid;		/* -p: attach to this process and its descendants */
	char **cmd;		/* -- CMD ARGS: launch this (NULL-terminated) */
	const char *output;	/* -o, default scope-bpf.h5 */
	double duration;	/* -d seconds, 0 = until the target ends or a signal */
	bool quiet;
	bool verbose;
	bool help;
};

/* 0 on success, -EINVAL with err->msg naming the option and the problem. */
int record_parse_args(int argc, char **argv, struct record_opts *o, struct sb_error *err);
void record_usage(FILE *f);

#endif
