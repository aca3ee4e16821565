/* record -o -: see stdout_profile.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/stdout_profile.h"
#include "util/sudo.h"

/*
 * Under sudo the folder is the user's, like the profile written into it
 * (io/tmpfile.c), so it is made, read and emptied with their rights: root
 * reading a name in a folder the user owns could be sent by a link or a
 * hard link they put there to a file only root may read.
 */
static char *make_dir(char *tmpl)
{
	struct sb_sudo_fs as;
	int r = sb_sudo_fs_enter(&as, NULL);
	char *dir;

	if (r) {
		errno = -r;
		return NULL;
	}
	dir = mkdtemp(tmpl);
	sb_sudo_fs_leave(&as);
	return dir;
}

static int open_profile(const char *path)
{
	struct sb_sudo_fs as;
	int fd;

	fd = sb_sudo_fs_enter(&as, NULL);
	if (fd) {
		errno = -fd;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	sb_sudo_fs_leave(&as);
	return fd;
}

int sb_stdout_profile_begin(struct sb_stdout_profile *s, struct sb_error *err)
{
	const char *tmp = getenv("TMPDIR");

	s->out_fd = -1;
	s->dir = s->path = NULL;
	if (isatty(STDOUT_FILENO))
		return sb_fail(err, EINVAL, "-o -: standard output is a terminal; redirect it to "
			       "a file or a pipe (the profile is binary HDF5)");
	if (asprintf(&s->dir, "%s/scope-bpf.XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0) {
		s->dir = NULL;
		return sb_fail(err, ENOMEM, "-o -: out of memory");
	}
	if (!make_dir(s->dir) || asprintf(&s->path, "%s/profile.h5", s->dir) < 0) {
		int e = errno;

		sb_stdout_profile_end(s);
		return sb_fail(err, e, "-o -: cannot make a private folder for the profile: %s",
			       strerror(e));
	}
	s->out_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (s->out_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		int e = errno;

		sb_stdout_profile_end(s);
		return sb_fail(err, e, "-o -: %s", strerror(e));
	}
	return 0;
}

int sb_stdout_profile_emit(struct sb_stdout_profile *s, struct sb_error *err)
{
	char buf[1 << 16];
	ssize_t n, w, off;
	int fd = open_profile(s->path);

	if (fd < 0)
		return sb_fail(err, errno, "-o -: %s: %s", s->path, strerror(errno));
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (off = 0; off < n; off += w) {
			w = write(s->out_fd, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR) {
				w = 0;
				continue;
			}
			if (w < 0) {
				close(fd);
				return sb_fail(err, errno, "-o -: writing to standard output: %s",
					       strerror(errno));
			}
		}
	}
	close(fd);
	return n < 0 ? sb_fail(err, errno, "-o -: %s: %s", s->path, strerror(errno)) : 0;
}

void sb_stdout_profile_end(struct sb_stdout_profile *s)
{
	struct sb_sudo_fs as;

	if (!sb_sudo_fs_enter(&as, NULL)) {
		if (s->path)
			unlink(s->path);
		if (s->dir)
			rmdir(s->dir);
		sb_sudo_fs_leave(&as);
	}
	if (s->out_fd >= 0)
		close(s->out_fd);
	free(s->path);
	free(s->dir);
	s->path = s->dir = NULL;
	s->out_fd = -1;
}
