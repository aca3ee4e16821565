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
#include "util/sudo.h"

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

	if (sb_filter_active(f) && sb_require_calls(cmd, path, p, "a region or rank filter"))
		return SB_EXIT_USAGE;
	r = sb_filter_apply(f, p, &err);
	if (!r)
		return 0;
	fprintf(stderr, "scope-bpf %s: %s: %s\n", cmd, path, err.msg);
	return r == -ENOMEM ? 1 : SB_EXIT_USAGE;
}

int sb_require_calls(const char *cmd, const char *path, const struct sb_profile *p,
		     const char *what)
{
	if (!p->agg.on)
		return 0;
	fprintf(stderr, "scope-bpf %s: %s: %s needs each call, and this file is an aggregate "
		"(record --aggregate) that holds only their sums per region path; report (tree, "
		"--flat, --per-rank, --durations, --counters, --memory, --samples, --html), diff "
		"and merge read it\n", cmd, path, what);
	return SB_EXIT_USAGE;
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

static void release(struct sb_output *o)
{
	free(o->tmp);
	free(o->buf);
	*o = (struct sb_output){ 0 };
}

/* A private temporary file beside o->path into o->f and o->tmp. 0 or -errno with err set. */
static int open_tmp(struct sb_output *o, struct sb_error *err)
{
	int fd, r;

	r = sb_tmpfile_check(o->path, err);
	if (r)
		return r;
	o->buf = malloc(OUT_BUFFER);
	if (!o->buf)
		return sb_fail(err, ENOMEM, "%s: out of memory", o->path);
	fd = sb_tmpfile_create(o->path, 0666, &o->tmp);
	if (fd < 0)
		return sb_fail(err, fd, "%s: cannot create a temporary file beside it: %s",
			       o->path, strerror(-fd));
	o->f = fdopen(fd, "w");
	if (!o->f) {
		r = sb_fail(err, errno, "%s: cannot open %s: %s", o->path, o->tmp,
			    strerror(errno));
		sb_tmpfile_discard(fd, o->tmp);
		close(fd);
		return r;
	}
	setvbuf(o->f, o->buf, _IOFBF, OUT_BUFFER);
	return 0;
}

/* How an output path is written. */
enum target {
	TARGET_REPLACE,		/* a new file renamed over whatever is there */
	TARGET_LINK,		/* through a link of ours or root's, as a shell's > would */
	TARGET_DEVICE,		/* device, FIFO, socket: a rename would put a file there */
};

/*
 * A link is followed only when it is ours (the sudo user's under sudo) or
 * root's, as the kernel's protected_symlinks does in sticky folders: a link
 * another user planted would let them choose which file we overwrite. It is
 * replaced instead, like any regular file.
 */
static int choose_target(const char *path, enum target *t, struct sb_error *err)
{
	struct stat st;
	uid_t me;
	int r;

	*t = TARGET_REPLACE;
	r = sb_sudo_fs_uid(&me, err);
	if (r || lstat(path, &st))
		return r;
	if (S_ISLNK(st.st_mode) && (st.st_uid == 0 || st.st_uid == me))
		*t = TARGET_LINK;
	else if (S_ISDIR(st.st_mode))
		return sb_fail(err, EISDIR, "%s: %s", path, strerror(EISDIR));
	else if (!S_ISLNK(st.st_mode) && !S_ISREG(st.st_mode))
		*t = TARGET_DEVICE;
	return 0;
}

/*
 * Open a link's target or a device as the user we write for. A device is
 * opened without following a link or truncating, then checked: if someone
 * swapped in a link or a regular file since choose_target(), nothing of
 * theirs was touched.
 */
static int open_in_place(struct sb_output *o, enum target t, struct sb_error *err)
{
	int flags = O_WRONLY | O_NOCTTY | O_CLOEXEC;
	struct sb_sudo_fs as;
	struct stat st;
	int fd, r;

	flags |= t == TARGET_LINK ? O_CREAT | O_TRUNC : O_NOFOLLOW;
	r = sb_sudo_fs_enter(&as, err);
	if (r)
		return r;
	fd = open(o->path, flags, 0666);
	sb_sudo_fs_leave(&as);
	if (fd < 0)
		return sb_fail(err, errno, "%s: %s", o->path, strerror(errno));
	r = fstat(fd, &st) ? -errno : 0;
	if (!r && t == TARGET_DEVICE && S_ISREG(st.st_mode))
		r = -EEXIST;
	if (!r)
		o->f = fdopen(fd, "w");
	if (!r && !o->f)
		r = -errno;
	if (r) {
		close(fd);
		return sb_fail(err, r, "%s: %s", o->path, r == -EEXIST ?
			       "was replaced by a regular file while it was opened" : strerror(-r));
	}
	return 0;
}

/*
 * Whether path is the file our standard output already is (/dev/stdout, or
 * the file it was redirected to): written through the descriptor we were
 * given, it needs no one's rights, while opening it again under sudo would
 * need the user's, which a pipe or file root's shell made does not grant.
 */
static bool is_stdout(const char *path)
{
	struct stat st, out;

	return !stat(path, &st) && !fstat(STDOUT_FILENO, &out) && st.st_dev == out.st_dev &&
	       st.st_ino == out.st_ino;
}

int sb_output_open(struct sb_output *o, const char *path, struct sb_error *err)
{
	enum target t;
	int r;

	/* "-" is standard output for every command, as for most Unix tools. */
	if (path && (!strcmp(path, "-") || is_stdout(path)))
		path = NULL;
	*o = (struct sb_output){ .f = stdout, .path = path };
	if (!path) {
		errno = 0;
		return 0;
	}
	r = choose_target(path, &t, err);
	if (!r)
		r = t == TARGET_REPLACE ? open_tmp(o, err) : open_in_place(o, t, err);
	if (r) {
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
