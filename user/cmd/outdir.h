/* An output that is a directory (an OTF2 archive): written aside, then renamed into place. */
#ifndef SB_OUTDIR_H
#define SB_OUTDIR_H

#include "util/error.h"
#include "util/sudo.h"

struct sb_outdir {
	const char *path;
	char *tmp;		/* the private directory written; renamed onto path at commit */
	struct sb_sudo_fs as;	/* this thread's own file identity, back at commit or abort */
};

/*
 * Make a private directory beside path for a writer to fill. path must not
 * exist, or be an empty directory: an existing archive is never mixed with
 * a new one. Under sudo this thread acts as the user who ran sudo from here
 * to the commit or abort, so the writer's files are theirs too. Returns 0;
 * -EEXIST or -ENOTDIR with "path: cause" in err when path is in the way (the
 * user's to fix); another -errno when the directory cannot be made.
 */
int sb_outdir_open(struct sb_outdir *d, const char *path, struct sb_error *err);

/* Rename the directory into place: 0 or -errno with "path: cause" in err (then as abort). */
int sb_outdir_commit(struct sb_outdir *d, struct sb_error *err);

/* Remove the private directory and all in it (the writer failed). */
void sb_outdir_abort(struct sb_outdir *d);

#endif
