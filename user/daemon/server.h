/* scope-bpfd's listening side: the socket, one session process per client, the limits. */
#ifndef SB_DAEMON_SERVER_H
#define SB_DAEMON_SERVER_H

#include "daemon/session.h"

/*
 * The listening socket: systemd's (socket activation) when it passed one,
 * else path made afresh, connectable by everyone (the policy decides). The
 * descriptor, or -errno with err set.
 */
int sb_server_listen(const char *path, struct sb_error *err);

/*
 * Serve until SIGTERM or SIGINT: each client in a session process of its own,
 * at most max-recordings at once per user and SB_SERVER_MAX_SESSIONS in all
 * (beyond, a client is told so and let go). SIGHUP reads policy_path again.
 * Returns the exit code.
 */
int sb_server_run(int listen_fd, struct sb_bpfd *d, const char *policy_path);

#define SB_SERVER_MAX_SESSIONS 256

#endif
