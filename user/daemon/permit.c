/* scope-bpfd's decision on one request: see permit.h and docs/CLUSTERS.md, "Threat model". */
#include <errno.h>

#include "daemon/permit.h"

static int refuse_grant(const char *what, const char *setting, struct sb_error *err)
{
	return sb_fail(err, EPERM, "%s: not allowed to you by scope-bpfd's policy (%s grants "
		       "it to the groups it names with '%s')", what, SB_POLICY_PATH, setting);
}

static int check_limits(const struct sb_policy *p, struct record_opts *o, struct sb_error *err)
{
	if (o->buffer_bytes > p->max_buffer)
		return sb_fail(err, EPERM, "--buffer: %llu MiB is more than the %llu MiB "
			       "scope-bpfd's policy allows a recording (max-buffer)",
			       (unsigned long long)(o->buffer_bytes >> 20),
			       (unsigned long long)(p->max_buffer >> 20));
	if (!o->buffer_bytes)
		o->buffer_bytes = p->max_buffer;
	if (p->max_duration > 0 && o->duration > p->max_duration)
		return sb_fail(err, EPERM, "-d: %g s is longer than the %g s scope-bpfd's policy "
			       "allows a recording (max-duration)", o->duration, p->max_duration);
	if (p->max_duration > 0 && !o->duration)
		o->duration = p->max_duration;
	return 0;
}

int sb_permit(const struct sb_policy *p, const struct sb_peer *peer, struct record_opts *o,
	      struct sb_error *err)
{
	if (peer->uid == 0)
		return 0;
	if (o->all && !sb_policy_grants(p, SB_GRANT_SYSTEM_WIDE, peer->groups, peer->n_groups))
		return refuse_grant("-a (every process of the machine)", "allow-system-wide", err);
	if (o->kernel_stacks &&
	    !sb_policy_grants(p, SB_GRANT_KERNEL_STACKS, peer->groups, peer->n_groups))
		return refuse_grant("--kernel-stacks", "allow-kernel-stacks", err);
	if (o->user || o->as_root)
		return sb_fail(err, EPERM, "%s: through scope-bpfd the command runs as you",
			       o->user ? "--user" : "--as-root");
	return check_limits(p, o, err);
}
