/* Option errors, usage errors and output files, the same for every command that reads profiles. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/suggest.h"
#include "io/profile_read.h"
#include "io/tmpfile.h"

#define OUT_BUFFER (1 << 20)	/* stdio buffer: fewer write(2)s for multi-GB outputs */

/* getopt_long() said '?' or ':'; say which option, as the user spelled it where we can. */
static int bad_option(int c, char **argv, const struct option *longopts,
		      struct sb_error *err)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		return sb_fail(err, EINVAL, "%s: needs an argument", arg);
	if (optopt && optopt < 256)
		return sb_fail(err, EINVAL, "-%c: unknown option", optopt);
	return sb_unknown_option(arg, longopts, err);
}

int sb_parse_options(int argc, char **argv, const char *shortopts,
		     const struct option *longopts,
		     int (*fn)(int c, void *ctx, struct sb_error *err), void *ctx,
		     struct sb_error *err)
{
	int c, r;

	/* 0, not 1: glibc then forgets the previous parse, so this can run again. */
	optind = 0;
	/* Quiet: the caller prints err once, with its command's name and the --help hint. */
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == '?' || c == ':')
			return bad_option(c, argv, longopts, err);
		r = fn(c, ctx, err);
		if (r)
			return r == SB_OPT_STOP ? 0 : r;
	}
	return 0;
}

int sb_format_option(const char *arg, bool csv, enum sb_report_format *fmt,
		     struct sb_error *err)
{
	if (sb_report_format_parse(arg, fmt) || (!csv && *fmt == SB_REPORT_CSV))
		return sb_fail(err, EINVAL, "--format: '%s' is not one of text, json%s", arg,
			       csv ? ", csv" : "");
	return 0;
}

int sb_filter_option(int c, const char *arg, struct sb_filter *f, struct sb_error *err)
{
	switch (c) {
	case SB_OPT_RANKS:
		return sb_filter_set_ranks(f, arg, err);
	case SB_OPT_INCLUDE:
		return sb_filter_set_include(f, arg, err);
	case SB_OPT_EXCLUDE:
		return sb_filter_set_exclude(f, arg, err);
	}
	return 1;
}

int sb_filter_profile(const char *cmd, const char *path, const struct sb_filter *f,
		      struct sb_profile *p)
{
	struct sb_error err = { .msg = "" };
	int r;

	r = sb_filter_apply(f, p, &err);
	if (!r)
		return 0;
	fprintf(stderr, "scope-bpf %s: %s: %s\n", cmd, path, err.msg);
	return r == -ENOMEM ? 1 : SB_EXIT_USAGE;
}

int sb_usage_error(const char *cmd, const char *msg)
{
	fprintf(stderr, "scope-bpf %s: %s\nTry 'scope-bpf %s --help'.\n", cmd, msg, cmd);
	return SB_EXIT_USAGE;
}

int sb_load_profile(const char *cmd, const char *path, struct sb_profile *p)
{
	struct sb_error err = { .msg = "" };
	int r;

	sb_profile_init(p);
	r = sb_profile_read(path, p, &err);
	if (r < 0) {
		fprintf(stderr, "scope-bpf %s: %s\n", cmd, err.msg);
		sb_profile_free(p);
	}
	return r;
}

const char *sb_output_name(const struct sb_output *o)
{
	return o->path ? o->path : "standard output";
}

/* Open a private temporary file beside o->path into o->f and o->tmp; -errno on failure. */
static int open_tmp(struct sb_output *o)
{
	int fd, r;

	o->buf = malloc(OUT_BUFFER);
	if (!o->buf)
		return -ENOMEM;
	fd = sb_tmpfile_create(o->path, 0666, &o->tmp);
	if (fd < 0)
		return fd;
	o->f = fdopen(fd, "w");
	if (!o->f) {
		r = -errno;
		sb_tmpfile_discard(fd, o->tmp);
		close(fd);
		return r;
	}
	setvbuf(o->f, o->buf, _IOFBF, OUT_BUFFER);
	return 0;
}

static void release(struct sb_output *o)
{
	free(o->tmp);
	free(o->buf);
	*o = (struct sb_output){ 0 };
}

int sb_output_open(struct sb_output *o, const char *path, enum sb_output_mode mode,
		   struct sb_error *err)
{
	struct stat st;
	int r;

	/* "-" is standard output for every command, as for most Unix tools. */
	if (path && !strcmp(path, "-"))
		path = NULL;
	*o = (struct sb_output){ .f = stdout, .path = path };
	if (!path) {
		errno = 0;
		return 0;
	}
	if (mode == SB_OUTPUT_REPLACE_FILE && !stat(path, &st) && !S_ISREG(st.st_mode))
		mode = SB_OUTPUT_IN_PLACE;
	if (mode == SB_OUTPUT_IN_PLACE) {
		o->f = fopen(path, "w");
		if (!o->f) {
			r = -errno;
			return sb_fail(err, r, "%s: %s", path, strerror(-r));
		}
		errno = 0;
		return 0;
	}
	r = open_tmp(o);
	if (r) {
		sb_fail(err, r, "%s: cannot create %s: %s", path,
			o->tmp ? o->tmp : "a temporary file", strerror(-r));
		release(o);
		return r;
	}
	errno = 0;
	return 0;
}

/* Flush f; 0 or -errno of the first failure, its write's when there was one. */
static int flush(FILE *f)
{
	if (fflush(f) || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

int sb_output_commit(struct sb_output *o, struct sb_error *err)
{
	const char *name = sb_output_name(o);
	int r;

	if (!o->path) {
		/* What stdout's earlier users left in errno says nothing about this output. */
		errno = 0;
		r = flush(stdout);
		if (r)
			sb_fail(err, r, "%s: %s", name, strerror(-r));
		release(o);
		return r;
	}
	r = flush(o->f);
	if (r)
		sb_fail(err, r, "%s: %s", name, strerror(-r));
	else if (o->tmp)	/* synced and renamed through its fd: before the close */
		r = sb_tmpfile_commit(fileno(o->f), o->tmp, o->path, err);
	if (r && o->tmp)
		sb_tmpfile_discard(fileno(o->f), o->tmp);
	if (fclose(o->f) && !r)
		r = sb_fail(err, errno, "%s: %s", name, strerror(errno));
	release(o);
	return r;
}

void sb_output_abort(struct sb_output *o)
{
	if (!o->path) {
		fflush(stdout);
	} else {
		if (o->tmp)
			sb_tmpfile_discard(fileno(o->f), o->tmp);
		fclose(o->f);
	}
	release(o);
}

int sb_output_close(struct sb_output *o, int r, const char *cmd)
{
	const char *name = sb_output_name(o);
	struct sb_error err = { .msg = "" };

	if (r) {
		sb_output_abort(o);
		fprintf(stderr, "scope-bpf %s: %s: %s\n", cmd, name, strerror(-r));
		return 1;
	}
	if (sb_output_commit(o, &err)) {
		fprintf(stderr, "scope-bpf %s: %s\n", cmd, err.msg);
		return 1;
	}
	return 0;
}
