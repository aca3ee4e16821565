/* scope-bpf scaling: runs of one program at several rank or thread counts, region by region. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/scaling.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "render/scaling.h"

/* Long-only options get values past any character. */
enum { OPT_WEAK = 256, OPT_WIDE, OPT_HTML };

static const struct option long_opts[] = {
	{ "weak", no_argument, NULL, OPT_WEAK },
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "wide", no_argument, NULL, OPT_WIDE },
	{ "html", required_argument, NULL, OPT_HTML },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct scaling_opts {
	bool weak;
	bool wide;
	enum sb_report_format format;
	const char *output;	/* NULL: stdout */
	const char *html;	/* --html FILE: the page instead of the text */
	bool help;
};

static void usage(FILE *f)
{
	fputs("usage: scope-bpf scaling [OPTIONS] RUN.h5 RUN.h5...\n"
	      "\n"
	      "Compare runs of one program at different rank counts (or thread counts,\n"
	      "when every run has one rank), region path by region path: the slowest\n"
	      "rank's time, speedup and parallel efficiency against the smallest run,\n"
	      "and the regions whose share of the run grew, with their load imbalance,\n"
	      "MPI share and off-CPU share per run.\n"
	      "\n"
	      "      --weak          weak scaling: ideal is the same time at every count\n"
	      "                      (the default, strong: time falling as 1/n)\n"
	      "  -f, --format FMT    text (default), json or csv\n"
	      "  -o, --output FILE   write to FILE instead of standard output\n"
	      "      --wide          every run's columns and whole names; without it the\n"
	      "                      text fits 80 columns\n"
	      "      --html FILE     write one self-contained HTML page with the plots\n"
	      "  -h, --help          show this help\n"
	      "\n"
	      "Exit status: 0, 1 when the output could not be written, 2 on a usage error\n"
	      "or bad input (one run, two runs of one count, runs of different programs,\n"
	      "a file that is no profile).\n",
	      f);
}

static int parse_option(int c, void *opts, struct sb_error *err)
{
	struct scaling_opts *o = opts;

	switch (c) {
	case OPT_WEAK:
		o->weak = true;
		return 0;
	case 'f':
		return sb_format_option(optarg, true, &o->format, err);
	case 'o':
		o->output = optarg;
		return 0;
	case OPT_WIDE:
		o->wide = true;
		return 0;
	case OPT_HTML:
		o->html = optarg;
		return 0;
	case 'h':
		o->help = true;
		return SB_OPT_STOP;
	}
	return sb_fail(err, EINVAL, "unexpected option %d", c);
}

static int parse_args(int argc, char **argv, struct scaling_opts *o, struct sb_error *err)
{
	int r;

	*o = (struct scaling_opts){ .format = SB_REPORT_TEXT };
	r = sb_parse_options(argc, argv, ":f:o:h", long_opts, parse_option, o, err);
	if (r || o->help)
		return r;
	if (o->html && o->output)
		return sb_fail(err, EINVAL, "--html: the page goes to its own FILE; drop --output");
	if (argc - optind < 2)
		return sb_fail(err, EINVAL, "%s: a study needs two runs or more, at different counts",
			       optind < argc ? argv[optind] : "no run given");
	return 0;
}

/* The study to o->html or o->output; returns the exit status. */
static int write_study(const struct scaling_opts *o, const struct sb_scaling *s)
{
	struct sb_error err = { .msg = "" };
	struct sb_output out;
	int r;

	if (sb_output_open(&out, o->html ? o->html : o->output, &err)) {
		fprintf(stderr, "scope-bpf scaling: %s\n", err.msg);
		return 1;
	}
	r = o->html ? sb_scaling_html(out.f, s) : sb_scaling_render(out.f, s, o->format, o->wide);
	return sb_output_close(&out, r, "scaling");
}

static int study(const struct scaling_opts *o, const struct sb_scaling_input *in, size_t n)
{
	struct sb_error err = { .msg = "" };
	struct sb_scaling s;
	int r;

	r = sb_scaling_build(&s, in, n, o->weak, &err);
	if (r) {
		fprintf(stderr, "scope-bpf scaling: %s\n", err.msg);
		sb_scaling_free(&s);
		return r == -EINVAL ? SB_EXIT_USAGE : 1;
	}
	r = write_study(o, &s);
	sb_scaling_free(&s);
	return r;
}

int cmd_scaling(int argc, char **argv)
{
	struct sb_error err = { .msg = "" };
	struct sb_scaling_input *in;
	struct sb_profile *p;
	struct scaling_opts o;
	size_t n, i, read = 0;
	int r;

	r = parse_args(argc, argv, &o, &err);
	if (r)
		return sb_usage_error("scaling", err.msg);
	if (o.help) {
		usage(stdout);
		return 0;
	}
	n = (size_t)(argc - optind);
	p = calloc(n, sizeof(*p));
	in = calloc(n, sizeof(*in));
	r = p && in ? 0 : 1;
	if (r)
		fprintf(stderr, "scope-bpf scaling: out of memory\n");
	for (i = 0; !r && i < n; i++, read++) {
		in[i] = (struct sb_scaling_input){ .path = argv[optind + i], .p = &p[i] };
		if (sb_load_profile("scaling", in[i].path, &p[i]) < 0)
			r = SB_EXIT_USAGE;
	}
	if (!r)
		r = study(&o, in, n);
	for (i = 0; i < read; i++)
		sb_profile_free(&p[i]);
	free(p);
	free(in);
	return r;
}
