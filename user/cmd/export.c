/* scope-bpf export: a profile as a Chrome trace, a speedscope file, scope-profiler JSON or CSV. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cli.h"
#include "export/export.h"
#include "util/text_format.h"
#include "export/samples_export.h"

static const struct kind {
	const char *name;
	const char *suffix;	/* replaces FILE's extension for the default output */
	int (*write)(FILE *f, const struct sb_profile *p, struct sb_error *err);
	/* With --offcpu; NULL: the kind has no off-CPU view. */
	int (*write_offcpu)(FILE *f, const struct sb_profile *p, struct sb_error *err);
} kinds[] = {
	{ "chrome-trace", ".trace.json", sb_export_chrome_trace, NULL },
	{ "speedscope", ".speedscope.json", sb_export_speedscope, NULL },
	{ "json", ".json", sb_export_json_v1, NULL },
	{ "csv", ".csv", sb_export_csv, NULL },
	{ "folded", ".folded", sb_export_folded_cpu, sb_export_folded_offcpu },
	{ "flamegraph", ".svg", sb_export_flamegraph, sb_export_flamegraph_offcpu },
};

#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))
#define KIND_LIST "chrome-trace, speedscope, json, csv, folded, flamegraph"

struct export_opts {
	const struct kind *kind;
	const char *path;
	const char *output;	/* NULL: derived from path; "-": standard output */
	bool offcpu;		/* --offcpu: off-CPU time instead of CPU samples */
	bool help;
};

enum { OPT_OFFCPU = 256 };

static const struct option long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "offcpu", no_argument, NULL, OPT_OFFCPU },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fputs("usage: scope-bpf export KIND FILE [-o OUT]\n"
	      "\n"
	      "Write a profile (scope-bpf or scope-profiler, any format) for another tool.\n"
	      "\n"
	      "KIND:\n"
	      "  chrome-trace   Trace Event JSON for ui.perfetto.dev and chrome://tracing:\n"
	      "                 one process per rank, one track per thread, off-CPU counters\n"
	      "  speedscope     speedscope.app file: one timeline per (rank, thread)\n"
	      "  json           scope-profiler JSON v1, for scope-profiler's Python tools\n"
	      "  csv            one summary row per (rank, region), one row per call\n"
	      "  folded         folded stacks of the samples, region path outermost, for\n"
	      "                 flamegraph.pl, inferno or speedscope\n"
	      "  flamegraph     interactive SVG flame graph of the samples (a CPU / off-CPU\n"
	      "                 toggle when both were recorded)\n"
	      "\n"
	      "  -o, --output OUT   write OUT (\"-\": standard output); default: FILE with its\n"
	      "                     extension replaced by .trace.json, .speedscope.json,\n"
	      "                     .json, .csv, .folded or .svg\n"
	      "      --offcpu       folded, flamegraph: off-CPU time instead of CPU samples\n"
	      "  -h, --help         show this help\n"
	      "\n"
	      "See docs/EXPORTS.md for what each file holds and how to open it.\n",
	      f);
}

static const struct kind *find_kind(const char *name)
{
	size_t i;

	for (i = 0; i < N_KINDS; i++)
		if (!strcmp(kinds[i].name, name))
			return &kinds[i];
	return NULL;
}

static int parse_option(int c, void *opts, struct sb_error *err)
{
	struct export_opts *o = opts;

	if (c == 'h') {
		o->help = true;
		return SB_OPT_STOP;
	}
	if (c == OPT_OFFCPU) {
		o->offcpu = true;
		return 0;
	}
	if (!*optarg)
		return sb_fail(err, EINVAL, "--output: needs a file name");
	o->output = optarg;
	return 0;
}

static int parse_args(int argc, char **argv, struct export_opts *o, struct sb_error *err)
{
	int r;

	*o = (struct export_opts){ 0 };
	r = sb_parse_options(argc, argv, ":o:h", long_opts, parse_option, o, err);
	if (r || o->help)
		return r;
	if (optind >= argc)
		return sb_fail(err, EINVAL, "missing KIND, one of " KIND_LIST);
	o->kind = find_kind(argv[optind]);
	if (!o->kind)
		return sb_fail(err, EINVAL, "'%s' is not a KIND; use one of " KIND_LIST,
			       argv[optind]);
	if (o->offcpu && !o->kind->write_offcpu)
		return sb_fail(err, EINVAL, "--offcpu: only folded and flamegraph have it");
	if (optind + 1 >= argc)
		return sb_fail(err, EINVAL, "missing FILE, the profile to export");
	if (optind + 2 < argc)
		return sb_fail(err, EINVAL, "'%s': only one FILE can be exported",
			       argv[optind + 2]);
	o->path = argv[optind + 1];
	return 0;
}

/* FILE with its extension (if its name has one) replaced by the kind's suffix; malloc'd. */
static char *default_output(const char *path, const char *suffix)
{
	const char *base = strrchr(path, '/'), *dot;
	size_t stem;
	char *out;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	/* A leading dot names a hidden file; it is not an extension. */
	stem = dot && dot > base ? (size_t)(dot - path) : strlen(path);
	out = malloc(stem + strlen(suffix) + 1);
	if (!out)
		return NULL;
	memcpy(out, path, stem);
	strcpy(out + stem, suffix);
	return out;
}

static bool same_file(const char *a, const char *b)
{
	struct stat x, y;

	if (stat(a, &x) || stat(b, &y))
		return false;
	return x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* Run the exporter; the exit status, after saying what went wrong. */
static int run_kind(FILE *f, const struct export_opts *o, const struct sb_profile *p)
{
	struct sb_error err = { .msg = "" };
	int r;

	r = (o->offcpu ? o->kind->write_offcpu : o->kind->write)(f, p, &err);
	if (r < 0) {
		fprintf(stderr, "scope-bpf export: %s: %s\n", o->path, err.msg);
		return r == -ENOMEM ? 1 : SB_EXIT_USAGE;
	}
	if (r > 0)
		fprintf(stderr, "scope-bpf export: %s: warning: %d %s left out: %s "
			"a call of the same thread without nesting inside it\n", o->path, r,
			format_plural(r, "call", "calls"), format_plural(r, "it overlaps", "they overlap"));
	return 0;
}

/*
 * Write to a temporary file and rename it onto OUT, so OUT is never half
 * written; "-" is standard output, and a device or FIFO is written in place.
 */
static int export_profile(const struct export_opts *o, const struct sb_profile *p)
{
	struct sb_error err = { .msg = "" };
	const char *out = o->output;
	char *derived = NULL;
	struct sb_output f;
	bool renamed;
	int r;

	if (out && !strcmp(out, "-")) {
		out = NULL;
	} else if (!out) {
		out = derived = default_output(o->path, o->kind->suffix);
		if (!out) {
			fprintf(stderr, "scope-bpf export: %s: out of memory\n", o->path);
			return 1;
		}
	}
	if (out && same_file(o->path, out)) {
		fprintf(stderr, "scope-bpf export: %s: the output %s is the profile itself; "
			"choose another with -o\n", o->path, out);
		free(derived);
		return SB_EXIT_USAGE;
	}
	r = sb_output_open(&f, out, SB_OUTPUT_REPLACE_FILE, &err);
	if (r) {
		fprintf(stderr, "scope-bpf export: %s\n", err.msg);
		free(derived);
		return 1;
	}
	renamed = f.tmp != NULL;
	r = run_kind(f.f, o, p);
	if (r) {
		sb_output_abort(&f);
	} else if (sb_output_commit(&f, &err)) {
		fprintf(stderr, "scope-bpf export: %s\n", err.msg);
		r = 1;
	} else if (renamed) {
		/* The name may be derived: say where the file went (on stderr: stdout may be data). */
		fprintf(stderr, "scope-bpf export: wrote %s\n", out);
	}
	free(derived);
	return r;
}

int cmd_export(int argc, char **argv)
{
	struct sb_error err = { .msg = "" };
	struct export_opts o;
	struct sb_profile p;
	int r;

	if (parse_args(argc, argv, &o, &err))
		return sb_usage_error("export", err.msg);
	if (o.help) {
		usage(stdout);
		return 0;
	}
	/* A file the readers cannot take (too large for its size included) is bad input. */
	if (sb_load_profile("export", o.path, &p) < 0)
		return SB_EXIT_USAGE;
	r = export_profile(&o, &p);
	sb_profile_free(&p);
	return r;
}
