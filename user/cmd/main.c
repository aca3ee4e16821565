/* scope-bpf: dispatch to one subcommand per file, perf style. */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/suggest.h"
#include "util/error.h"
#include "util/sudo.h"
#include "util/version.h"

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "record", cmd_record, "trace marked regions of a command or a running process" },
	{ "report", cmd_report, "summarize a profile as a call tree or a flat table" },
	{ "inspect", cmd_inspect, "show what a profile holds: format, metadata, ranks, threads" },
	{ "diff", cmd_diff, "compare two profiles region by region" },
	{ "scaling", cmd_scaling, "speedup and efficiency of runs at several rank counts" },
	{ "export", cmd_export, "convert a profile: chrome-trace, speedscope, json, csv, ..." },
	{ "merge", cmd_merge, "merge the profiles of one job's nodes into one" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: scope-bpf COMMAND [OPTIONS]\n"
		"       scope-bpf help [COMMAND]\n"
		"       scope-bpf -V|--version\n\ncommands:\n");
	for (i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\nscope-bpf help COMMAND, or scope-bpf COMMAND --help, shows a command's\n"
		"options.\n");
}

static int find_command(const char *name)
{
	size_t i;

	for (i = 0; i < N_COMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			return (int)i;
	return -1;
}

/* One line for what is wrong and one for what to type instead. */
static int not_a_command(const char *name)
{
	const char *names[N_COMMANDS + 3];
	const char *best;
	size_t i;

	for (i = 0; i < N_COMMANDS; i++)
		names[i] = commands[i].name;
	names[N_COMMANDS] = "help";
	names[N_COMMANDS + 1] = "--help";
	names[N_COMMANDS + 2] = "--version";
	best = sb_suggest(name, names, N_COMMANDS + 3);
	fprintf(stderr, "scope-bpf: '%s' is not a command\n", name);
	if (best)
		fprintf(stderr, "Did you mean 'scope-bpf %s'?\n", best);
	else
		fprintf(stderr, "Try 'scope-bpf --help'.\n");
	return SB_EXIT_USAGE;
}

/*
 * Under sudo every file is written with the rights of the user in SUDO_UID
 * (util/sudo.h): a value that names no one would leave root's, so no command
 * runs with it.
 */
static int check_sudo(void)
{
	struct sb_error err = { .msg = "" };
	uid_t uid;
	gid_t gid;

	if (sb_sudo_user(&uid, &gid, &err) >= 0)
		return 0;
	fprintf(stderr, "scope-bpf: %s\n", err.msg);
	return SB_EXIT_USAGE;
}

/* help: the list of commands; help CMD: CMD --help, word for word. */
static int help(int argc, char **argv)
{
	char *args[] = { argv[1], "--help", NULL };
	int i;

	if (argc < 2 || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (argc > 2) {
		fprintf(stderr, "scope-bpf help: give one command, not '%s' too\n", argv[2]);
		return SB_EXIT_USAGE;
	}
	i = find_command(argv[1]);
	if (i < 0)
		return not_a_command(argv[1]);
	return commands[i].fn(2, args);
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 2) {
		usage(stderr);
		return SB_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("scope-bpf %s\n", SCOPE_BPF_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "help"))
		return help(argc - 1, argv + 1);
	i = find_command(argv[1]);
	if (i < 0)
		return not_a_command(argv[1]);
	if (check_sudo())
		return SB_EXIT_USAGE;
	return commands[i].fn(argc - 1, argv + 1);
}
