/*
 * scope-bpfd: the node daemon that lets users without root record their own
 * processes (docs/CLUSTERS.md). It runs as root and holds the BPF side; the
 * client is `scope-bpf record`, run by the user.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/server.h"
#include "util/error.h"

struct options {
	const char *socket;
	const char *policy;
	int foreground;
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: scope-bpfd [--foreground] [--socket PATH] [--policy FILE]\n"
		"\n"
		"The node daemon through which users without root record their own processes\n"
		"with `scope-bpf record` (docs/CLUSTERS.md). Runs as root.\n"
		"\n"
		"      --foreground   stay in the foreground, log on stderr (systemd, tests)\n"
		"      --socket PATH  listen here (default %s; systemd's socket\n"
		"                     when it passes one); clients: SCOPE_BPF_SOCKET=PATH\n"
		"      --policy FILE  the policy (default %s); SIGHUP reads it again\n"
		"  -h, --help         this text\n", SB_BPFD_SOCKET, SB_POLICY_PATH);
}

static int parse(int argc, char **argv, struct options *o)
{
	static const struct option longs[] = {
		{ "foreground", no_argument, NULL, 'f' },
		{ "socket", required_argument, NULL, 's' },
		{ "policy", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct options){ .socket = SB_BPFD_SOCKET, .policy = SB_POLICY_PATH };
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
		switch (c) {
		case 'f':
			o->foreground = 1;
			break;
		case 's':
			o->socket = optarg;
			break;
		case 'P':
			o->policy = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			fprintf(stderr, "scope-bpfd: %s: %s\n", argv[optind - 1],
				c == ':' ? "needs a value" : "unknown option");
			return SB_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "scope-bpfd: %s: unexpected argument\n", argv[optind]);
		return SB_EXIT_USAGE;
	}
	return 0;
}

/* Root's private folder for the recorders' temporary files (record -o -'s, the spill). */
static char *private_dir(void)
{
	const char *tmp = getenv("TMPDIR");
	char *dir;

	if (asprintf(&dir, "%s/scope-bpfd.XXXXXX", tmp && *tmp ? tmp : "/var/tmp") < 0)
		return NULL;
	if (!mkdtemp(dir)) {
		free(dir);
		return NULL;
	}
	return dir;
}

int main(int argc, char **argv)
{
	struct sb_error err = { { 0 } };
	struct options o;
	struct sb_bpfd d;
	int fd, ret;

	ret = parse(argc, argv, &o);
	if (ret)
		return ret;
	if (geteuid() != 0) {
		fprintf(stderr, "scope-bpfd: must run as root (it loads BPF programs)\n");
		return 1;
	}
	if (sb_policy_load(&d.policy, o.policy, &err)) {
		fprintf(stderr, "scope-bpfd: %s\n", err.msg);
		return SB_EXIT_USAGE;
	}
	d.tmp_dir = private_dir();
	if (!d.tmp_dir) {
		fprintf(stderr, "scope-bpfd: cannot make a private temporary folder: %s\n",
			strerror(errno));
		return 1;
	}
	fd = sb_server_listen(o.socket, &err);
	if (fd < 0) {
		fprintf(stderr, "scope-bpfd: %s\n", err.msg);
		rmdir(d.tmp_dir);
		return 1;
	}
	if (!o.foreground && daemon(0, 0)) {
		fprintf(stderr, "scope-bpfd: daemon: %s\n", strerror(errno));
		return 1;
	}
	sb_bpfd_log("listening on %s", o.socket);
	ret = sb_server_run(fd, &d, o.policy);
	rmdir(d.tmp_dir);
	return ret;
}
