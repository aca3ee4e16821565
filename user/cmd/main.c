/* scope-bpf: dispatch to one subcommand per file, perf style. */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "util/error.h"
#include "util/version.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "record", cmd_record, "trace marked regions of a command or a running process" },
	{ "report", cmd_report, "summarize a profile as a call tree or a flat table" },
	{ "inspect", cmd_inspect, "show what a profile holds: format, metadata, ranks, threads" },
	{ "diff", cmd_diff, "compare two profiles region by region" },
	{ "export", cmd_export, "convert a profile: chrome-trace, speedscope, json, csv, ..." },
	{ "merge", cmd_merge, "merge the profiles of one job's nodes into one" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: scope-bpf COMMAND [OPTIONS]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\nscope-bpf COMMAND --help shows a command's options.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return SB_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("scope-bpf %s\n", SCOPE_BPF_VERSION);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "scope-bpf: '%s' is not a command\n", argv[1]);
	usage(stderr);
	return SB_EXIT_USAGE;
}
