/* scope-bpf report: read a profile, build its call tree, print it as text, JSON, CSV or HTML. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calltree.h"
#include "commands.h"
#include "html.h"
#include "profile_read.h"
#include "report.h"
#include "samples_report.h"

/* Long-only options get values past any character. */
enum { OPT_FLAT = 256, OPT_RANK, OPT_HTML, OPT_SAMPLES, OPT_OFFCPU, OPT_TOP };

static const struct option long_opts[] = {
	{ "sort", required_argument, NULL, 's' },
	{ "flat", no_argument, NULL, OPT_FLAT },
	{ "format", required_argument, NULL, 'f' },
	{ "rank", required_argument, NULL, OPT_RANK },
	{ "output", required_argument, NULL, 'o' },
	{ "html", required_argument, NULL, OPT_HTML },
	{ "samples", optional_argument, NULL, OPT_SAMPLES },
	{ "offcpu", no_argument, NULL, OPT_OFFCPU },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fputs("usage: scope-bpf report [OPTIONS] FILE\n"
	      "\n"
	      "Summarize a profile (scope-bpf or scope-profiler) as a call tree.\n"
	      "\n"
	      "  -s, --sort KEY      order siblings by total (default), calls, avg, name or start\n"
	      "      --flat          one row per region instead of one per call path\n"
	      "  -f, --format FMT    text (default), json or csv\n"
	      "      --rank N        only the calls of rank N\n"
	      "  -o, --output FILE   write to FILE instead of standard output\n"
	      "      --html FILE     write one self-contained HTML page (table, timeline,\n"
	      "                      flame chart, durations) to FILE instead\n"
	      "      --samples[=KIND]\n"
	      "                      hottest functions per region path from the sampled\n"
	      "                      stacks instead; KIND is cpu (default) or offcpu\n"
	      "      --offcpu        the same as --samples=offcpu (time blocked, not samples)\n"
	      "      --top N         functions shown per region path (default 10)\n"
	      "  -h, --help          show this help\n"
	      "\n"
	      "total, avg, min and max are times of the calls on each call path; %rec is\n"
	      "total over the recording's duration (threads and ranks running at once can\n"
	      "take it past 100%); own leaves out the time of the regions called inside;\n"
	      "off-CPU is the time the thread waited, not ran, inside the calls.\n",
	      f);
}

static int parse_rank(const char *s, int64_t *rank)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > UINT32_MAX)
		return -EINVAL;
	*rank = v;
	return 0;
}

static int parse_top(const char *s, unsigned *top)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > 1000000)
		return -EINVAL;
	*top = (unsigned)v;
	return 0;
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

static int parse_option(int c, struct report_opts *o, struct sb_error *err)
{
	switch (c) {
	case 's':
		if (sb_ct_sort_parse(optarg, &o->sort))
			return sb_fail(err, EINVAL,
				       "--sort: '%s' is not one of total, calls, avg, name, start",
				       optarg);
		return 0;
	case 'f':
		if (sb_report_format_parse(optarg, &o->format))
			return sb_fail(err, EINVAL, "--format: '%s' is not one of text, json, csv",
				       optarg);
		return 0;
	case OPT_FLAT:
		o->flat = true;
		return 0;
	case OPT_RANK:
		if (parse_rank(optarg, &o->rank))
			return sb_fail(err, EINVAL, "--rank: '%s' is not a rank number", optarg);
		return 0;
	case 'o':
		o->output = optarg;
		return 0;
	case OPT_HTML:
		o->html = optarg;
		return 0;
	case OPT_SAMPLES:
		o->samples = true;
		/* A bare --samples keeps the kind an earlier --offcpu chose. */
		if (!optarg)
			return 0;
		if (!strcmp(optarg, "cpu"))
			o->sample_kind = SB_SAMPLE_CPU;
		else if (!strcmp(optarg, "offcpu"))
			o->sample_kind = SB_SAMPLE_OFFCPU;
		else
			return sb_fail(err, EINVAL, "--samples: '%s' is not one of cpu, offcpu",
				       optarg);
		return 0;
	case OPT_OFFCPU:
		o->samples = true;
		o->sample_kind = SB_SAMPLE_OFFCPU;
		return 0;
	case OPT_TOP:
		if (parse_top(optarg, &o->top))
			return sb_fail(err, EINVAL, "--top: '%s' is not a count from 1", optarg);
		return 0;
	case 'h':
		o->help = true;
		return 0;
	}
	return sb_fail(err, EINVAL, "unexpected option %d", c);
}

int report_parse_args(int argc, char **argv, struct report_opts *o, struct sb_error *err)
{
	int c, r;

	*o = (struct report_opts){ .sort = SB_CT_SORT_TOTAL, .format = SB_REPORT_TEXT, .rank = -1,
				   .top = 10 };
	/* 0, not 1: glibc then forgets the previous parse, so this can run again. */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:f:o:h", long_opts, NULL)) != -1) {
		if (c == '?' || c == ':')
			return bad_option(c, argv, err);
		r = parse_option(c, o, err);
		if (r)
			return r;
		if (o->help)
			return 0;
	}
	if (optind >= argc)
		return sb_fail(err, EINVAL, "missing FILE, the profile to report");
	if (optind + 1 < argc)
		return sb_fail(err, EINVAL, "'%s': only one FILE can be reported",
			       argv[optind + 1]);
	if (o->html && o->output)
		return sb_fail(err, EINVAL, "--html: the page goes to its own FILE; drop --output");
	if (o->html && o->samples)
		return sb_fail(err, EINVAL, "--samples: not available with --html");
	o->path = argv[optind];
	return 0;
}

/* 0, or the exit status when --rank names a rank the profile lacks. */
static int check_rank(const struct report_opts *o, const struct sb_profile *p)
{
	uint32_t n = sb_profile_rank_count(p);

	if (o->rank < 0 || o->rank < (int64_t)n)
		return 0;
	fprintf(stderr, "scope-bpf report: %s: --rank %lld: the profile has %u rank%s\n",
		o->path, (long long)o->rank, n, n == 1 ? "" : "s");
	return SB_EXIT_USAGE;
}

/* Write the report to o->output or stdout; 0, or the exit status of a failure. */
static int write_report(const struct report_opts *o, const struct sb_profile *p,
			const struct sb_calltree *t)
{
	const char *name = o->output ? o->output : "standard output";
	FILE *f = stdout;
	int r;

	if (o->output) {
		f = fopen(o->output, "w");
		if (!f) {
			fprintf(stderr, "scope-bpf report: %s: %s\n", name, strerror(errno));
			return 1;
		}
	}
	r = o->samples ? sb_samples_report_render(f, p, o) : sb_report_render(f, p, t, o);
	if (f != stdout ? fclose(f) : fflush(f))
		r = r ? r : -errno;
	if (!r)
		return 0;
	fprintf(stderr, "scope-bpf report: %s: %s\n", name, strerror(-r));
	return 1;
}

/* The page's file mode: what open(2) would give, since mkstemp() makes it 0600. */
static mode_t file_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0666 & ~mask;
}

/* Write the page beside o->html, then rename it over: no reader sees half a page. */
static int write_html(const struct report_opts *o, const struct sb_profile *p,
		      const struct sb_calltree *t)
{
	struct sb_html_opts ho = { .title = o->path, .rank = o->rank };
	struct sb_error err = { .msg = "" };
	char *tmp;
	FILE *f;
	int fd, r;

	if (asprintf(&tmp, "%s.tmp.XXXXXX", o->html) < 0) {
		fprintf(stderr, "scope-bpf report: %s: %s\n", o->html, strerror(ENOMEM));
		return 1;
	}
	fd = mkstemp(tmp);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		fprintf(stderr, "scope-bpf report: %s: %s\n", o->html, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto fail;
	}
	r = fchmod(fd, file_mode()) ? -errno : 0;
	if (!r)
		r = sb_report_html_opts(f, p, t, &ho, &err);
	else
		sb_fail(&err, -r, "%s", strerror(-r));
	if (!r && (fflush(f) || fsync(fd)))
		r = sb_fail(&err, errno, "%s", strerror(errno));
	if (fclose(f) && !r)
		r = sb_fail(&err, errno, "%s", strerror(errno));
	if (!r && rename(tmp, o->html))
		r = sb_fail(&err, errno, "%s", strerror(errno));
	if (!r) {
		free(tmp);
		return 0;
	}
	fprintf(stderr, "scope-bpf report: %s: %s\n", o->html, err.msg);
fail:
	unlink(tmp);
	free(tmp);
	return 1;
}

/* Build the tree and write it; returns the exit status. */
static int report_profile(const struct report_opts *o, const struct sb_profile *p)
{
	struct sb_ct_opts co = { .flat = o->flat, .rank = o->rank, .sort = o->sort };
	struct sb_error err = { .msg = "" };
	struct sb_calltree t;
	int r;

	r = sb_calltree_build(&t, p, &co, &err);
	if (r < 0) {
		fprintf(stderr, "scope-bpf report: %s: %s\n", o->path, err.msg);
		return r == -ENOMEM ? 1 : SB_EXIT_USAGE;
	}
	r = o->html ? write_html(o, p, &t) : write_report(o, p, &t);
	sb_calltree_free(&t);
	return r;
}

int cmd_report(int argc, char **argv)
{
	struct sb_error err = { .msg = "" };
	struct report_opts o;
	struct sb_profile p;
	int r;

	if (report_parse_args(argc, argv, &o, &err)) {
		fprintf(stderr, "scope-bpf report: %s\nTry 'scope-bpf report --help'.\n", err.msg);
		return SB_EXIT_USAGE;
	}
	if (o.help) {
		usage(stdout);
		return 0;
	}
	sb_profile_init(&p);
	if (sb_profile_read(o.path, &p, &err) < 0) {
		fprintf(stderr, "scope-bpf report: %s\n", err.msg);
		sb_profile_free(&p);
		return SB_EXIT_USAGE;
	}
	r = check_rank(&o, &p);
	if (!r)
		r = o.samples ? write_report(&o, &p, NULL) : report_profile(&o, &p);
	sb_profile_free(&p);
	return r;
}
