/* What scope-bpfd lets a user record: the policy applied to one request's options. */
#ifndef SB_DAEMON_PERMIT_H
#define SB_DAEMON_PERMIT_H

#include "cmd/record_opts.h"
#include "daemon/policy.h"
#include "daemon/target.h"

/*
 * Whether peer may record what o asks under p. A user other than root gets
 * the policy's limits: a recording without -d ends after max-duration, one
 * without --buffer gets max-buffer. 0, or -EPERM with err saying what is
 * refused and why.
 */
int sb_permit(const struct sb_policy *p, const struct sb_peer *peer, struct record_opts *o,
	      struct sb_error *err);

#endif
