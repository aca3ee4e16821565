/* record -o -: the profile is written to a private file, then copied to standard output. */
#ifndef SB_STDOUT_PROFILE_H
#define SB_STDOUT_PROFILE_H

#include "util/error.h"

struct sb_stdout_profile {
	int out_fd;		/* the standard output we were given, -1 when unused */
	char *dir;		/* private folder (mode 0700) holding path */
	char *path;		/* where the profile and the spill are written */
};

/*
 * HDF5 needs a file it can seek in: make a private one under $TMPDIR (or
 * /tmp), keep the standard output for the profile and point fd 1 at standard
 * error, so a launched command's output cannot mix into it. Refuses a terminal.
 * 0, or -errno with err set.
 */
int sb_stdout_profile_begin(struct sb_stdout_profile *s, struct sb_error *err);
/* Copy the written profile to the saved standard output. 0, or -errno with err set. */
int sb_stdout_profile_emit(struct sb_stdout_profile *s, struct sb_error *err);
/* Remove the private file and folder. */
void sb_stdout_profile_end(struct sb_stdout_profile *s);

#endif
