/* Command-line parsing of `scope-bpf record`. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record_opts.h"

void record_usage(FILE *f)
{
	fprintf(f,
		"usage: scope-bpf record [OPTIONS] -- CMD [ARGS...]\n"
		"       scope-bpf record [OPTIONS] -p PID\n"
		"\n"
		"Trace the scope_bpf regions of a command (from its first instruction, with its\n"
		"child processes) or of a running process and its descendants, and write an\n"
		"HDF5 profile.\n"
		"\n"
		"  -p, --pid PID          attach to a running process\n"
		"  -o, --output FILE      profile to write (default scope-bpf.h5)\n"
		"  -d, --duration SECS    stop recording after SECS seconds\n"
		"  -q, --quiet            no status line, no summary\n"
		"  -v, --verbose          say what is attached, show libbpf messages\n"
		"  -h, --help             this text\n"
		"\n"
		"Recording stops on Ctrl-C, SIGTERM, the duration, or the target's exit; what\n"
		"was collected is always written. With a command, exits with its status.\n");
}

static int parse_pid(const char *s, pid_t *pid, struct sb_error *err)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v <= 0 || v > INT_MAX)
		return sb_fail(err, EINVAL, "-p %s: not a process id", s);
	*pid = (pid_t)v;
	return 0;
}

static int parse_duration(const char *s, double *d, struct sb_error *err)
{
	char *end;

	errno = 0;
	*d = strtod(s, &end);
	if (errno || *end || end == s || !(*d > 0) || *d > 1e9)
		return sb_fail(err, EINVAL, "-d %s: not a positive number of seconds", s);
	return 0;
}

int record_parse_args(int argc, char **argv, struct record_opts *o, struct sb_error *err)
{
	static const struct option longs[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->output = "scope-bpf.h5";
	optind = 0;
	opterr = 0;
	/* '+': stop at the command, so its own options are left alone. */
	while ((c = getopt_long(argc, argv, "+:p:o:d:qvh", longs, NULL)) != -1) {
		ret = 0;
		switch (c) {
		case 'p':
			ret = parse_pid(optarg, &o->pid, err);
			break;
		case 'o':
			if (!*optarg)
				return sb_fail(err, EINVAL, "-o: empty file name");
			o->output = optarg;
			break;
		case 'd':
			ret = parse_duration(optarg, &o->duration, err);
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			o->help = true;
			return 0;
		case ':':
			return sb_fail(err, EINVAL, "%s: needs a value", argv[optind - 1]);
		default:
			return sb_fail(err, EINVAL, "%s: unknown option", argv[optind - 1]);
		}
		if (ret)
			return ret;
	}
	if (optind < argc)
		o->cmd = argv + optind;
	if (o->pid && o->cmd)
		return sb_fail(err, EINVAL, "give either -p PID or a command, not both");
	if (!o->pid && !o->cmd)
		return sb_fail(err, EINVAL, "nothing to record: give -p PID or -- CMD");
	return 0;
}
