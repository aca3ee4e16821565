/* `scope-bpf record` without root: the client of scope-bpfd (docs/CLUSTERS.md). */
#ifndef SB_DAEMON_CLIENT_H
#define SB_DAEMON_CLIENT_H

#include "cmd/record_opts.h"

#define SB_CLIENT_LOCAL (-1)	/* not through the daemon: record here */

/*
 * Record o (parsed from record's argc, argv, which are sent as they are)
 * through scope-bpfd when --daemon says so, or when we are not root, no
 * --no-daemon says otherwise and its socket ($SCOPE_BPF_SOCKET, default
 * /run/scope-bpf.sock) answers. Returns the exit status, as sb_record() would,
 * or SB_CLIENT_LOCAL.
 */
int sb_client_record(int argc, char **argv, const struct record_opts *o);

#endif
