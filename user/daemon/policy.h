/*
 * scope-bpfd's policy: what an unprivileged user may record, from
 * /etc/scope-bpf/policy (format: docs/CLUSTERS.md). A line the parser does not
 * understand is an error naming the file and line, never skipped.
 */
#ifndef SB_DAEMON_POLICY_H
#define SB_DAEMON_POLICY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "util/error.h"

#define SB_POLICY_PATH "/etc/scope-bpf/policy"
#define SB_POLICY_MAX_GROUPS 64

/* What a grant opens to the members of its groups. */
enum sb_grant {
	SB_GRANT_SYSTEM_WIDE,	/* record -a */
	SB_GRANT_KERNEL_STACKS,	/* record --sample --kernel-stacks */
	SB_GRANT_COUNT,
};

struct sb_policy {
	unsigned max_recordings;	/* at once, per user */
	uint64_t max_buffer;		/* --buffer, bytes per recording */
	double max_duration;		/* seconds per recording, 0: no limit */
	gid_t groups[SB_GRANT_COUNT][SB_POLICY_MAX_GROUPS];
	size_t n_groups[SB_GRANT_COUNT];
};

/* The defaults, with no file: 4 recordings, 1 GiB of buffer, no duration limit, no grant. */
void sb_policy_defaults(struct sb_policy *p);
/*
 * Parse the policy text of f over the defaults; name is the file's name for
 * messages. 0, or -EINVAL with err "name:line: cause" for the first bad line.
 */
int sb_policy_parse(struct sb_policy *p, FILE *f, const char *name, struct sb_error *err);
/*
 * Load path: a missing file gives the defaults; one not owned by root, or
 * writable by its group or others, or not a regular file, is refused (-EPERM).
 */
int sb_policy_load(struct sb_policy *p, const char *path, struct sb_error *err);
/* Whether one of groups (n of them) is granted what. */
bool sb_policy_grants(const struct sb_policy *p, enum sb_grant what, const gid_t *groups,
		      size_t n);

#endif
