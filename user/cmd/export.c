/* scope-bpf export: a profile as a Chrome trace, a speedscope file, scope-profiler JSON or CSV. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "cmd/outdir.h"
#include "analysis/frame_names.h"
#include "export/export.h"
#include "util/text_format.h"

/* Usage columns: a KIND's help starts at KIND_COL, an option's at OPT_COL; lines end before WIDTH. */
#define KIND_COL 17
#define OPT_COL 21
#define WIDTH 80

struct export_opts {
	const struct sb_export_kind *kind;
	const char *path;
	const char *output;	/* NULL: derived from path; "-": standard output */
	bool offcpu;		/* --offcpu: off-CPU time instead of CPU samples */
	struct sb_filter filter;	/* --ranks, --include, --exclude */
	bool help;
};

enum { OPT_OFFCPU = 256, OPT_NO_DEMANGLE };

static const struct option long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "offcpu", no_argument, NULL, OPT_OFFCPU },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	SB_FILTER_OPTIONS,
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/*
 * The kinds' names (or suffixes), only those with an off-CPU view when
 * offcpu: "a, b, c", with last before the last one ("a, b and c").
 */
static const char *kind_list(char *buf, size_t len, bool suffixes, bool offcpu, const char *last)
{
	const struct sb_export_kind *k;
	size_t i, n = 0, at = 0, seen = 0;

	for (i = 0; i < sb_export_n_kinds; i++)
		n += !offcpu || sb_export_kinds[i].write_offcpu;
	buf[0] = 0;
	for (i = 0; i < sb_export_n_kinds && at < len; i++) {
		k = &sb_export_kinds[i];
		if (offcpu && !k->write_offcpu)
			continue;
		at += snprintf(buf + at, len - at, "%s%s", !seen ? "" : seen + 1 == n ? last : ", ",
			       suffixes ? k->suffix : k->name);
		seen++;
	}
	return buf;
}

/* text from column col, its words wrapped to lines indented by indent that end before WIDTH. */
static void put_wrapped(FILE *f, const char *text, size_t col, size_t indent)
{
	const char *w = text, *end;
	bool first = true;
	size_t len;

	for (; *w; w = *end ? end + 1 : end) {
		end = strchrnul(w, ' ');
		len = (size_t)(end - w);
		if (!first && col + 1 + len >= WIDTH) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (!first) {
			fputc(' ', f);
			col++;
		}
		fwrite(w, 1, len, f);
		col += len;
		first = false;
	}
	fputc('\n', f);
}

static void usage(FILE *f)
{
	const struct sb_export_kind *k;
	char list[256], line[512];
	const char *h, *nl;
	size_t i;

	fputs("usage: scope-bpf export KIND FILE [-o OUT]\n"
	      "\n"
	      "Write a profile (scope-bpf or scope-profiler, any format) for another tool.\n"
	      "\n"
	      "KIND:\n", f);
	for (i = 0; i < sb_export_n_kinds; i++) {
		k = &sb_export_kinds[i];
		/* The first help line beside the name, the others under it. */
		fprintf(f, "  %-*s", KIND_COL - 2, k->name);
		for (h = k->help; h; h = nl ? nl + 1 : NULL) {
			nl = strchrnul(h, '\n');
			fprintf(f, "%*s%.*s\n", h == k->help ? 0 : KIND_COL, "", (int)(nl - h), h);
			if (!*nl)
				nl = NULL;
		}
	}
	fputs("\n"
	      "  -o, --output OUT   write OUT (\"-\": standard output); default: FILE with its\n", f);
	snprintf(line, sizeof(line), "extension replaced by %s",
		 kind_list(list, sizeof(list), true, false, " or "));
	fprintf(f, "%*s", OPT_COL, "");
	put_wrapped(f, line, OPT_COL, OPT_COL);
	fprintf(f, "      --offcpu       %s: off-CPU time instead of CPU samples\n",
		kind_list(list, sizeof(list), false, true, ", "));
	fputs("      --no-demangle  keep C++ and Rust function names of stacks mangled\n"
	      "      --ranks LIST   only these ranks: numbers and ranges, 0-3,7\n"
	      "      --include RE   only regions whose name matches RE (POSIX extended)\n"
	      "      --exclude RE   no region whose name matches RE; the calls inside a\n"
	      "                     left-out region count for the one around it\n"
	      "  -h, --help         show this help\n"
	      "\n"
	      "Exit status: 0; 1 when OUT cannot be written or memory runs out; 2 on a\n"
	      "usage error, an unreadable profile, or one without what KIND shows (samples\n"
	      "for pprof, folded and flamegraph, their times for perf-script): nothing is\n"
	      "written then.\n"
	      "\n"
	      "See docs/EXPORTS.md for what each file holds and how to open it.\n",
	      f);
}

static int parse_option(int c, void *opts, struct sb_error *err)
{
	struct export_opts *o = opts;
	int r;

	r = sb_filter_option(c, optarg, &o->filter, err);
	if (r <= 0)
		return r;
	if (c == 'h') {
		o->help = true;
		return SB_OPT_STOP;
	}
	if (c == OPT_OFFCPU) {
		o->offcpu = true;
		return 0;
	}
	if (c == OPT_NO_DEMANGLE) {
		sb_frame_names_set_demangle(false);
		return 0;
	}
	if (!*optarg)
		return sb_fail(err, EINVAL, "--output: needs a file name");
	o->output = optarg;
	return 0;
}

static int parse_args(int argc, char **argv, struct export_opts *o, struct sb_error *err)
{
	char list[256];
	int r;

	*o = (struct export_opts){ 0 };
	/* Process-wide: each parse starts from the default, --no-demangle turns it off. */
	sb_frame_names_set_demangle(true);
	r = sb_parse_options(argc, argv, ":o:h", long_opts, parse_option, o, err);
	if (r || o->help)
		return r;
	if (optind >= argc)
		return sb_fail(err, EINVAL, "missing KIND, one of %s",
			       kind_list(list, sizeof(list), false, false, ", "));
	o->kind = sb_export_kind_find(argv[optind]);
	if (!o->kind)
		return sb_fail(err, EINVAL, "'%s' is not a KIND; use one of %s", argv[optind],
			       kind_list(list, sizeof(list), false, false, ", "));
	if (o->offcpu && !o->kind->write_offcpu)
		return sb_fail(err, EINVAL, "--offcpu: only %s have it",
			       kind_list(list, sizeof(list), false, true, " and "));
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

/* Say what the exporter's result r means, after it failed or left calls out; the exit status. */
static int report(const struct export_opts *o, int r, const struct sb_error *err)
{
	if (r < 0) {
		fprintf(stderr, "scope-bpf export: %s: %s\n", o->path, err->msg);
		return r == -ENOMEM ? 1 : SB_EXIT_USAGE;
	}
	if (r > 0)
		fprintf(stderr, "scope-bpf export: %s: warning: %d %s left out: %s "
			"a call of the same thread without nesting inside it\n", o->path, r,
			format_plural(r, "call", "calls"), format_plural(r, "it overlaps", "they overlap"));
	return 0;
}

/* Run the exporter; the exit status, after saying what went wrong. */
static int run_kind(FILE *f, const struct export_opts *o, const struct sb_profile *p)
{
	struct sb_error err = { .msg = "" };

	return report(o, (o->offcpu ? o->kind->write_offcpu : o->kind->write)(f, p, &err), &err);
}

/* A kind that writes a directory: into a private one, renamed onto out when done. */
static int export_dir(const struct export_opts *o, const struct sb_profile *p, const char *out)
{
	struct sb_error err = { .msg = "" };
	struct sb_outdir d;
	int r;

	if (!strcmp(out, "-")) {
		fprintf(stderr, "scope-bpf export: -o -: %s writes a directory, not a stream; "
			"name one with -o\n", o->kind->name);
		return SB_EXIT_USAGE;
	}
	r = sb_outdir_open(&d, out, &err);
	if (r) {
		fprintf(stderr, "scope-bpf export: %s\n", err.msg);
		return r == -EEXIST || r == -ENOTDIR ? SB_EXIT_USAGE : 1;
	}
	r = o->kind->write_dir(d.tmp, p, &err);
	if (r == -EIO) {
		/* The library could not write the archive: the output's fault, not the profile's. */
		fprintf(stderr, "scope-bpf export: %s: %s\n", out, err.msg);
		r = 1;
	} else {
		r = report(o, r, &err);
	}
	if (r) {
		sb_outdir_abort(&d);
		return r;
	}
	if (sb_outdir_commit(&d, &err)) {
		fprintf(stderr, "scope-bpf export: %s\n", err.msg);
		return 1;
	}
	fprintf(stderr, "scope-bpf export: wrote %s\n", out);
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
	if (o->kind->write_dir) {
		r = export_dir(o, p, out ? out : "-");
		free(derived);
		return r;
	}
	if (out && same_file(o->path, out)) {
		fprintf(stderr, "scope-bpf export: %s: the output %s is the profile itself; "
			"choose another with -o\n", o->path, out);
		free(derived);
		return SB_EXIT_USAGE;
	}
	r = sb_output_open(&f, out, &err);
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

	r = parse_args(argc, argv, &o, &err);
	if (r || o.help) {
		sb_filter_free(&o.filter);
		if (r)
			return sb_usage_error("export", err.msg);
		usage(stdout);
		return 0;
	}
	/* A file the readers cannot take (too large for its size included) is bad input. */
	if (sb_load_profile("export", o.path, &p) < 0) {
		sb_filter_free(&o.filter);
		return SB_EXIT_USAGE;
	}
	r = o.kind->per_call ? sb_require_calls("export", o.path, &p, o.kind->name) : 0;
	if (!r)
		r = sb_filter_profile("export", o.path, &o.filter, &p);
	if (!r)
		r = export_profile(&o, &p);
	sb_profile_free(&p);
	sb_filter_free(&o.filter);
	return r;
}
