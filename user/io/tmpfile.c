/*
 * Temporary files beside an output. The output's folder may be writable by
 * others (a shared project folder), and we may run as root: a predictable name
 * or an open() that follows links would let anyone there choose which file root
 * overwrites. So names are random, creation is exclusive and refuses links, the
 * file is reopened only through its fd, and the name is checked before rename.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/tmpfile.h"
#include "util/sudo.h"

#define SUFFIX ".tmp."
#define RANDOM_CHARS 12		/* 62^12: no one guesses it, however many tries */
#define TRIES 64		/* names taken (planted links) before giving up */

static int random_chars(char *out, size_t n)
{
	static const char alphabet[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char bytes[RANDOM_CHARS];
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = getrandom(bytes + got, n - got, 0);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r > 0)
			got += (size_t)r;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = alphabet[bytes[i] % (sizeof(alphabet) - 1)];
	out[n] = 0;
	return 0;
}

int sb_tmpfile_create(const char *path, mode_t mode, char **tmp)
{
	size_t len = strlen(path) + strlen(SUFFIX);
	char *name = malloc(len + RANDOM_CHARS + 1);
	int fd = -EEXIST, err;

	*tmp = NULL;
	if (!name)
		return -ENOMEM;
	memcpy(name, path, strlen(path));
	memcpy(name + strlen(path), SUFFIX, strlen(SUFFIX));
	for (int i = 0; i < TRIES && fd == -EEXIST; i++) {
		err = random_chars(name + len, RANDOM_CHARS);
		if (err) {
			free(name);
			return err;
		}
		/* O_EXCL alone already refuses any link at the name; O_NOFOLLOW says so twice. */
		fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0)
			fd = -errno;
	}
	if (fd < 0) {
		free(name);
		return fd;
	}
	*tmp = name;
	return fd;
}

int sb_tmpfile_anon(const char *dir)
{
	char *stem, *name;
	int fd;

	fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	/* Filesystems without O_TMPFILE: a private named file, unlinked at once. */
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return -errno;
	if (asprintf(&stem, "%s/scope-bpf", dir) < 0)
		return -ENOMEM;
	fd = sb_tmpfile_create(stem, 0600, &name);
	free(stem);
	if (fd < 0)
		return fd;
	sb_tmpfile_discard(fd, name);
	free(name);
	return fd;
}

void sb_tmpfile_fd_path(int fd, char *buf, size_t size)
{
	snprintf(buf, size, "/proc/self/fd/%d", fd);
}

static bool names_fd(int fd, const char *name)
{
	struct stat mine, named;

	return !fstat(fd, &mine) && !lstat(name, &named) && mine.st_dev == named.st_dev &&
	       mine.st_ino == named.st_ino;
}

int sb_tmpfile_commit(int fd, const char *tmp, const char *path, struct sb_error *err)
{
	uid_t uid;
	gid_t gid;

	/*
	 * Root under sudo writes for the user who asked. A filesystem that refuses
	 * (NFS squashing root, no CAP_CHOWN) leaves the file root's: better than no file.
	 */
	if (sb_sudo_user(&uid, &gid, NULL) > 0 && fchown(fd, uid, gid) && errno != EPERM &&
	    errno != EINVAL)
		return sb_fail(err, errno, "%s: cannot give %s to user %u: %s", path, tmp,
			       (unsigned)uid, strerror(errno));
	/* Data on disk before the name points at it: a crash never leaves a half file at path. */
	if (fsync(fd))
		return sb_fail(err, errno, "%s: cannot sync %s: %s", path, tmp, strerror(errno));
	if (!names_fd(fd, tmp))
		return sb_fail(err, EEXIST, "%s: %s was removed or replaced while it was written; "
			       "not renaming it into place", path, tmp);
	if (rename(tmp, path))
		return sb_fail(err, errno, "%s: cannot rename %s into place: %s", path, tmp,
			       strerror(errno));
	return 0;
}

void sb_tmpfile_discard(int fd, const char *tmp)
{
	if (names_fd(fd, tmp))
		unlink(tmp);
}
