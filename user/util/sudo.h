/* Who ran us through sudo: the recorder launches as them, the writers write with their rights. */
#ifndef SB_SUDO_H
#define SB_SUDO_H

#include <stdbool.h>
#include <sys/types.h>

#include "util/error.h"

/* A decimal id as sudo writes it; nothing else, and never the invalid id -1. */
bool sb_parse_id(const char *s, unsigned long *v);

/*
 * The user behind a root process started by sudo, from SUDO_UID and SUDO_GID
 * (gid (gid_t)-1 when SUDO_GID is unset). 1 with *uid and *gid set; 0 when we
 * are not root, not under sudo, or sudo was run by root; -EINVAL with err
 * naming the variable and its value when either is set but is not an id: root
 * acting for a user it cannot name would act with root's rights.
 */
int sb_sudo_user(uid_t *uid, gid_t *gid, struct sb_error *err);

/* A thread's own file identity, kept while it acts as the sudo user. */
struct sb_sudo_fs {
	bool active;		/* sb_sudo_fs_leave() has something to restore */
	int n_groups;
	gid_t *groups;		/* the thread's supplementary groups before */
};

/*
 * Make this thread's file accesses (open, rename, unlink, access checks) the
 * sudo user's: their uid, gid and groups, without root's capabilities over
 * files. Other threads keep root's. Nothing changes when not under sudo.
 * 0, or -errno with err set and nothing changed.
 */
int sb_sudo_fs_enter(struct sb_sudo_fs *saved, struct sb_error *err);

/* Back to our own file identity; errno is kept, so a failure inside can still be told. */
void sb_sudo_fs_leave(struct sb_sudo_fs *saved);

/* Who files are written as: the sudo user, else ourselves. 0, or -EINVAL with err set. */
int sb_sudo_fs_uid(uid_t *uid, struct sb_error *err);

#endif
