/* Private temporary files beside an output, safe in folders that other users can write to. */
#ifndef SB_TMPFILE_H
#define SB_TMPFILE_H

#include <stddef.h>
#include <sys/types.h>

#include "util/error.h"

/*
 * Every file and name below is made, renamed and removed with the rights of
 * the user who ran sudo when that is how we run as root (util/sudo.h), so the
 * files are theirs and no folder they cannot write is written.
 */

/*
 * Before any work: whether path can be written as sb_tmpfile_create() and
 * sb_tmpfile_commit() write it. Its folder must exist, be a directory and let
 * us create files; a file at path in a sticky folder (/tmp) must be ours or
 * the folder's owner's. 0, or -errno with "path: cause" in err.
 */
int sb_tmpfile_check(const char *path, struct sb_error *err);

/*
 * Create "PATH.tmp.<12 random characters>" beside path: exclusively, never
 * through a link, with mode less the umask. Returns the fd, with the name in
 * *tmp (malloc'd), or -errno with *tmp NULL. Reopen it only through the fd
 * (sb_tmpfile_fd_path()), never by the name, which others may swap.
 */
int sb_tmpfile_create(const char *path, mode_t mode, char **tmp);

/* A private file in dir without a name, gone once closed. fd or -errno. */
int sb_tmpfile_anon(const char *dir);

/* "/proc/self/fd/N": the file itself, for libraries that open files only by name. */
void sb_tmpfile_fd_path(int fd, char *buf, size_t size);

/*
 * Put fd's file, created as tmp, in place at path: synced, checked to be
 * still what tmp names, then renamed. 0, or -errno with "path: cause" in err.
 */
int sb_tmpfile_commit(int fd, const char *tmp, const char *path, struct sb_error *err);

/* Remove tmp, but only while it still names fd's file: never a file put in its place. */
void sb_tmpfile_discard(int fd, const char *tmp);

#endif
