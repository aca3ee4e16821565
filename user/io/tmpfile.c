/*
 * Temporary files beside an output. The output's folder may be writable by
 * others (a shared project folder), and we may run as root: a predictable name
 * or an open() that follows links would let anyone there choose which file root
 * overwrites. So names are random, creation is exclusive and refuses links, the
 * file is reopened only through its fd, and the name is checked before rename.
 * Under sudo every name is made, checked, renamed and removed with the rights
 * of the user who ran sudo, never root's: no file they could not write is ever
 * created or replaced for them.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
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

/* The first free name of "<name's first len bytes><random>": fd or -errno. */
static int create_random(char *name, size_t len, mode_t mode)
{
	int fd = -EEXIST, err;

	for (int i = 0; i < TRIES && fd == -EEXIST; i++) {
		err = random_chars(name + len, RANDOM_CHARS);
		if (err)
			return err;
		/* O_EXCL alone already refuses any link at the name; O_NOFOLLOW says so twice. */
		fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0)
			fd = -errno;
	}
	return fd;
}

int sb_tmpfile_create(const char *path, mode_t mode, char **tmp)
{
	size_t len = strlen(path) + strlen(SUFFIX);
	char *name = malloc(len + RANDOM_CHARS + 1);
	struct sb_sudo_fs as;
	int fd;

	*tmp = NULL;
	if (!name)
		return -ENOMEM;
	memcpy(name, path, strlen(path));
	memcpy(name + strlen(path), SUFFIX, strlen(SUFFIX));
	fd = sb_sudo_fs_enter(&as, NULL);
	if (!fd) {
		fd = create_random(name, len, mode);
		sb_sudo_fs_leave(&as);
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
	struct sb_sudo_fs as;
	char *stem, *name;
	int fd;

	fd = sb_sudo_fs_enter(&as, NULL);
	if (fd)
		return fd;
	fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	sb_sudo_fs_leave(&as);
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

/* " as user N (SUDO_UID)" when we act for the sudo user, else nothing: for messages. */
static const char *acting_as(uid_t me, char *buf, size_t size)
{
	if (me == geteuid())
		return "";
	snprintf(buf, size, " as user %u (SUDO_UID)", (unsigned)me);
	return buf;
}

/*
 * What the kernel will refuse at create or rename time, told now. In a sticky
 * folder (/tmp) only a file's owner, the folder's or root may replace it.
 */
static int check_folder(const char *path, const char *dir, struct sb_error *err)
{
	uid_t me = (uid_t)setfsuid((uid_t)-1);
	struct stat st, file;
	char who[64];
	int e = 0;

	if (stat(dir, &st))
		e = errno;
	else if (!S_ISDIR(st.st_mode))
		return sb_fail(err, ENOTDIR, "%s: %s is not a directory", path, dir);
	/* AT_EACCESS: the kernel checks as this thread's file identity, not the real uid. */
	else if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS))
		e = errno;
	if (e)
		return sb_fail(err, e, "%s: cannot create files in %s%s: %s", path, dir,
			       acting_as(me, who, sizeof(who)), strerror(e));
	if (me && (st.st_mode & S_ISVTX) && !lstat(path, &file) && file.st_uid != me &&
	    st.st_uid != me)
		return sb_fail(err, EPERM, "%s: cannot replace it%s: it belongs to user %u, and "
			       "in a sticky folder (%s) only the file's or the folder's owner may",
			       path, acting_as(me, who, sizeof(who)), (unsigned)file.st_uid, dir);
	return 0;
}

int sb_tmpfile_check(const char *path, struct sb_error *err)
{
	char *copy = strdup(path);
	struct sb_sudo_fs as;
	int r;

	if (!copy)
		return sb_fail(err, ENOMEM, "%s: out of memory", path);
	r = sb_sudo_fs_enter(&as, err);
	if (!r) {
		r = check_folder(path, dirname(copy), err);
		sb_sudo_fs_leave(&as);
	}
	free(copy);
	return r;
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

/* The rename, as the user whose file it is: the kernel then refuses what they could not do. */
static int rename_into_place(int fd, const char *tmp, const char *path, struct sb_error *err)
{
	if (!names_fd(fd, tmp))
		return sb_fail(err, EEXIST, "%s: %s was removed or replaced while it was written; "
			       "not renaming it into place", path, tmp);
	if (rename(tmp, path))
		return sb_fail(err, errno, "%s: cannot rename %s into place: %s", path, tmp,
			       strerror(errno));
	return 0;
}

int sb_tmpfile_commit(int fd, const char *tmp, const char *path, struct sb_error *err)
{
	struct sb_sudo_fs as;
	int r;

	/* Data on disk before the name points at it: a crash never leaves a half file at path. */
	if (fsync(fd))
		return sb_fail(err, errno, "%s: cannot sync %s: %s", path, tmp, strerror(errno));
	r = sb_sudo_fs_enter(&as, err);
	if (r)
		return r;
	r = rename_into_place(fd, tmp, path, err);
	sb_sudo_fs_leave(&as);
	return r;
}

void sb_tmpfile_discard(int fd, const char *tmp)
{
	struct sb_sudo_fs as;

	if (sb_sudo_fs_enter(&as, NULL))
		return;
	if (names_fd(fd, tmp))
		unlink(tmp);
	sb_sudo_fs_leave(&as);
}
