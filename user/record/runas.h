/* Who a launched command runs as: the user who asked, not root, when root runs us through sudo. */
#ifndef SB_RUNAS_H
#define SB_RUNAS_H

#include <stdbool.h>
#include <sys/types.h>

#include "util/error.h"

struct sb_runas {
	bool change;		/* false: the command runs as we do */
	uid_t uid;
	gid_t gid;
	gid_t *groups;		/* the user's supplementary groups */
	int n_groups;
	char **env;		/* our environment with the user's HOME, USER and LOGNAME */
	char *strings;		/* the three "NAME=value" strings env points into */
};

/*
 * Decide who the command runs as: user (a name or a numeric uid) when given,
 * which needs root; else the sudo user unless as_root; else ourselves.
 * 0, or -EINVAL / -EPERM / -ENOMEM with "who: cause" in err and nothing to free.
 */
int sb_runas_resolve(struct sb_runas *r, const char *user, bool as_root, struct sb_error *err);

/*
 * Take on r's identity: groups, gid, uid, then the environment. Only in a
 * forked child about to exec: nothing here allocates. 0 or -errno.
 */
int sb_runas_apply(const struct sb_runas *r);

void sb_runas_free(struct sb_runas *r);

#endif
