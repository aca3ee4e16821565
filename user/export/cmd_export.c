/* scope-bpf export: a profile as a Chrome trace, a speedscope file, scope-profiler JSON or CSV. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export.h"
#include "samples_export.h"
#include "profile_read.h"

#define OUT_BUFFER (1 << 20)	/* stdio buffer: fewer write(2)s for multi-GB traces */

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

/* getopt said '?' or ':'; say which option, as the user spelled it where we can. */
static int bad_option(int c, char **argv, struct sb_error *err)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		return sb_fail(err, EINVAL, "%s: needs an argument", arg);
	if (optopt && optopt < 256)
		return sb_fail(err, EINVAL, "-%c: unknown option", optopt);
	return sb_fail(err, EINVAL, "%s: unknown option", arg);
}

static int parse_args(int argc, char **argv, struct export_opts *o, struct sb_error *err)
{
	int c;

	*o = (struct export_opts){ 0 };
	/* 0, not 1: glibc then forgets a previous parse, so this can run again. */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", long_opts, NULL)) != -1) {
		if (c == '?' || c == ':')
			return bad_option(c, argv, err);
		if (c == 'h') {
			o->help = true;
			return 0;
		}
		if (c == OPT_OFFCPU) {
			o->offcpu = true;
			continue;
		}
		if (!*optarg)
			return sb_fail(err, EINVAL, "--output: needs a file name");
		o->output = optarg;
	}
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

/* Open a temporary file beside out; *tmp gets its name. */
static FILE *open_tmp(const char *out, char **tmp, char *buf)
{
	FILE *f;
	int fd;

	if (asprintf(tmp, "%s.tmp.%d", out, (int)getpid()) < 0) {
		*tmp = NULL;
		errno = ENOMEM;
		return NULL;
	}
	fd = open(*tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(*tmp);
		return NULL;
	}
	setvbuf(f, buf, _IOFBF, OUT_BUFFER);
	return f;
}

/* Flush, sync (devices and pipes cannot) and close f; 0 or -errno of the first failure. */
static int finish(FILE *f, bool sync)
{
	int r = 0;

	if (fflush(f) || ferror(f))
		r = errno ? -errno : -EIO;
	if (!r && sync && fsync(fileno(f)))
		r = -errno;
	if (fclose(f) && !r)
		r = -errno;
	return r;
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
		fprintf(stderr, "scope-bpf export: %s: warning: %d call%s left out: %s overlap%s "
			"a call of the same thread without nesting inside it\n",
			o->path, r, r == 1 ? "" : "s", r == 1 ? "it" : "they", r == 1 ? "s" : "");
	return 0;
}

static int write_stdout(const struct export_opts *o, const struct sb_profile *p)
{
	int r = run_kind(stdout, o, p);

	errno = 0;
	if (!r && (fflush(stdout) || ferror(stdout))) {
		fprintf(stderr, "scope-bpf export: standard output: %s\n",
			strerror(errno ? errno : EIO));
		return 1;
	}
	return r;
}

/*
 * A device, FIFO or socket given as OUT (/dev/stdout, a pipe) is written in
 * place: renaming a temporary file onto it would replace it with a file.
 */
static int write_special(const struct export_opts *o, const char *out,
			 const struct sb_profile *p)
{
	FILE *f = fopen(out, "w");
	int r, status;

	if (!f) {
		fprintf(stderr, "scope-bpf export: %s: %s\n", out, strerror(errno));
		return 1;
	}
	errno = 0;
	status = run_kind(f, o, p);
	r = finish(f, false);
	if (!status && r) {
		fprintf(stderr, "scope-bpf export: %s: %s\n", out, strerror(-r));
		status = 1;
	}
	return status;
}

/* Write to a temporary file and rename it onto out: out is never half written. */
static int write_file(const struct export_opts *o, const char *out, const struct sb_profile *p)
{
	char *buf = malloc(OUT_BUFFER), *tmp = NULL;
	FILE *f = NULL;
	int r, status;

	errno = ENOMEM;
	if (buf)
		f = open_tmp(out, &tmp, buf);
	if (!f) {
		fprintf(stderr, "scope-bpf export: %s: cannot create %s: %s\n", out,
			tmp ? tmp : "a temporary file", strerror(errno));
		free(tmp);
		free(buf);
		return 1;
	}
	errno = 0;
	status = run_kind(f, o, p);
	r = finish(f, true);
	if (!status && r)
		fprintf(stderr, "scope-bpf export: %s: %s\n", out, strerror(-r));
	if (!status && !r && rename(tmp, out)) {
		fprintf(stderr, "scope-bpf export: %s: cannot rename %s into place: %s\n", out,
			tmp, strerror(errno));
		r = -errno;
	}
	if (status || r) {
		unlink(tmp);
		status = status ? status : 1;
	}
	free(tmp);
	free(buf);
	return status;
}

static int export_profile(const struct export_opts *o, const struct sb_profile *p)
{
	char *derived = NULL;
	const char *out = o->output;
	struct stat st;
	int r;

	if (out && !strcmp(out, "-"))
		return write_stdout(o, p);
	if (!out) {
		out = derived = default_output(o->path, o->kind->suffix);
		if (!out) {
			fprintf(stderr, "scope-bpf export: %s: out of memory\n", o->path);
			return 1;
		}
	}
	if (same_file(o->path, out)) {
		fprintf(stderr, "scope-bpf export: %s: the output %s is the profile itself; "
			"choose another with -o\n", o->path, out);
		free(derived);
		return SB_EXIT_USAGE;
	}
	if (!stat(out, &st) && !S_ISREG(st.st_mode)) {
		r = write_special(o, out, p);
	} else {
		r = write_file(o, out, p);
		/* The name may be derived: say where the file went (on stderr: stdout may be data). */
		if (!r)
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

	if (parse_args(argc, argv, &o, &err)) {
		fprintf(stderr, "scope-bpf export: %s\nTry 'scope-bpf export --help'.\n", err.msg);
		return SB_EXIT_USAGE;
	}
	if (o.help) {
		usage(stdout);
		return 0;
	}
	sb_profile_init(&p);
	r = sb_profile_read(o.path, &p, &err);
	if (r < 0) {
		fprintf(stderr, "scope-bpf export: %s\n", err.msg);
		sb_profile_free(&p);
		return r == -ENOMEM ? 1 : SB_EXIT_USAGE;
	}
	r = export_profile(&o, &p);
	sb_profile_free(&p);
	return r;
}
