/* scope-bpf merge: one profile from the recordings of a job's nodes (analysis/merge.c does it). */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "analysis/merge.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "io/h5write.h"

struct merge_opts {
	const char *output;
	bool quiet;
	bool help;
};

static const struct option long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fputs("usage: scope-bpf merge [OPTIONS] PROFILE... -o OUTPUT\n"
	      "\n"
	      "Merge the HDF5 profiles of one job, recorded by one recorder per node, into\n"
	      "one profile: regions matched by name, every rank as its file numbers it,\n"
	      "threads, processes and samples kept. Calls are streamed, never held: memory\n"
	      "does not grow with the number of calls.\n"
	      "\n"
	      "The files of one record --rotate (run.0.h5, run.1.h5, ...) are joined first\n"
	      "into one recording, its calls held in memory while joined (docs/FORMAT.md,\n"
	      "\"Rotation\").\n"
	      "\n"
	      "  -o, --output FILE  the merged profile (required); written atomically\n"
	      "  -q, --quiet        no notes on what was adjusted\n"
	      "  -h, --help         show this help\n"
	      "\n"
	      "Clocks: every file is moved onto the first file's CLOCK_MONOTONIC by the\n"
	      "CLOCK_REALTIME - CLOCK_MONOTONIC offsets that record writes at its start and\n"
	      "end (no shift within one boot of one machine), then moved to the nearest\n"
	      "shift that blocking MPI collectives allow (no rank leaves MPI_Init, a barrier,\n"
	      "an allreduce or MPI_Finalize before all entered it); the shifts and how each\n"
	      "was found go in the metadata (merge_clock_shift_ns_<i>,\n"
	      "merge_clock_method_<i>, merge_inputs). Metadata: the first file's, with\n"
	      "mpi_size the largest and num_nodes the distinct host names.\n"
	      "\n"
	      "Exit status: 0; 2 on a usage error, an unreadable profile, or a rank found in\n"
	      "two files; 1 when writing failed.\n",
	      f);
}

static int parse_option(int c, void *opts, struct sb_error *err)
{
	struct merge_opts *o = opts;

	(void)err;
	switch (c) {
	case 'o':
		o->output = optarg;
		return 0;
	case 'q':
		o->quiet = true;
		return 0;
	default:
		o->help = true;
		return SB_OPT_STOP;
	}
}

int cmd_merge(int argc, char **argv)
{
	struct sb_error err = { .msg = "" };
	struct merge_opts o = { 0 };
	int ret;

	if (sb_parse_options(argc, argv, ":o:qh", long_opts, parse_option, &o, &err))
		return sb_usage_error("merge", err.msg);
	if (o.help) {
		usage(stdout);
		return 0;
	}
	if (!o.output)
		return sb_usage_error("merge", "no output: give -o FILE");
	if (optind >= argc)
		return sb_usage_error("merge", "no profiles to merge");
	if (sb_h5_check_target(o.output, &err)) {
		fprintf(stderr, "scope-bpf merge: %s\n", err.msg);
		return SB_EXIT_USAGE;
	}
	ret = sb_merge((const char *const *)argv + optind, (size_t)(argc - optind), o.output,
		       o.quiet ? NULL : stderr, &err);
	if (ret) {
		fprintf(stderr, "scope-bpf merge: %s\n", err.msg);
		return ret == -EINVAL ? SB_EXIT_USAGE : 1;
	}
	return 0;
}
