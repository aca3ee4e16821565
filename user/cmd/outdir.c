/* An output directory written under a private name and renamed into place, never half there. */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/outdir.h"

/* Whether the directory at path has anything but . and ..; false when it cannot be read. */
static bool has_entries(const char *path)
{
	DIR *dp = opendir(path);
	struct dirent *e;
	bool any = false;

	if (!dp)
		return false;
	while (!any && (e = readdir(dp)))
		any = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(dp);
	return any;
}

static int make_tmp(struct sb_outdir *d, const char *path, struct sb_error *err)
{
	struct stat st;
	int r;

	if (!stat(path, &st) && !S_ISDIR(st.st_mode))
		return sb_fail(err, ENOTDIR, "%s: exists and is not a directory; the archive "
			       "is a directory: choose another name with -o", path);
	if (!stat(path, &st) && has_entries(path))
		return sb_fail(err, EEXIST, "%s: the directory is not empty; the archive goes "
			       "into a new or empty one: remove it or choose another with -o",
			       path);
	if (asprintf(&d->tmp, "%s.tmp.XXXXXX", path) < 0) {
		d->tmp = NULL;
		return sb_fail(err, ENOMEM, "%s: out of memory", path);
	}
	if (mkdtemp(d->tmp)) {
		mode_t mask = umask(0);

		/* mkdtemp makes it private; the archive is as open as any file the user makes. */
		umask(mask);
		chmod(d->tmp, 0777 & ~mask);
		return 0;
	}
	r = errno;
	sb_fail(err, r, "%s: cannot create %s: %s", path, d->tmp, strerror(r));
	free(d->tmp);
	d->tmp = NULL;
	return -r;
}

int sb_outdir_open(struct sb_outdir *d, const char *path, struct sb_error *err)
{
	int r;

	*d = (struct sb_outdir){ .path = path };
	r = sb_sudo_fs_enter(&d->as, err);
	if (r)
		return r;
	r = make_tmp(d, path, err);
	if (r)
		sb_sudo_fs_leave(&d->as);
	return r;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void sb_outdir_abort(struct sb_outdir *d)
{
	if (d->tmp)
		nftw(d->tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(d->tmp);
	d->tmp = NULL;
	sb_sudo_fs_leave(&d->as);
}

int sb_outdir_commit(struct sb_outdir *d, struct sb_error *err)
{
	int r;

	/* rename(2) replaces an empty directory, and only an empty one. */
	if (!rename(d->tmp, d->path)) {
		free(d->tmp);
		d->tmp = NULL;
		sb_sudo_fs_leave(&d->as);
		return 0;
	}
	r = errno;
	sb_fail(err, r, "%s: %s", d->path, strerror(r));
	sb_outdir_abort(d);
	return -r;
}
