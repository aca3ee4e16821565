/* Who ran us through sudo: the recorder launches as them, the writers give them the files. */
#ifndef SB_SUDO_H
#define SB_SUDO_H

#include <stdbool.h>
#include <sys/types.h>

/* A decimal id as sudo writes it; nothing else, and never the invalid id -1. */
bool sb_parse_id(const char *s, unsigned long *v);

/*
 * The user behind a root process started by sudo, from SUDO_UID and SUDO_GID
 * (gid (gid_t)-1 when SUDO_GID is missing). False when we are not root, not
 * under sudo, or sudo was run by root.
 */
bool sb_sudo_user(uid_t *uid, gid_t *gid);

#endif
