/* A target scope-bpfd checked for an unprivileged user, handed to the recorder as it is. */
#ifndef SB_HELD_H
#define SB_HELD_H

#include <stdbool.h>
#include <sys/types.h>

#include "record/launch.h"

struct sb_daemon_target {
	/*
	 * The process (-p) or the client's child (-- CMD), opened and checked by
	 * the daemon: the recorder follows this one, never a pid reused since.
	 */
	int pidfd;
	/* -- CMD: the child the client forked, held before its exec (launch.h). */
	struct sb_child child;
	/*
	 * Whether a process of the target's tree may still be recorded for uid,
	 * asked where it execs and for -p's descendants: daemon/target.c.
	 */
	bool (*may_trace)(pid_t pid, uid_t uid);
	uid_t uid;
	/* The file the summary names: the client's, whose descriptor is our standard output. */
	const char *output_name;
};

#endif
