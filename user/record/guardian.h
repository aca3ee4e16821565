/* The guardian process and the stops map: no traced process stays stopped, whatever befalls the recorder. */
#ifndef SB_GUARDIAN_H
#define SB_GUARDIAN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/error.h"

struct region_bpf;

struct sb_guardian {
	pid_t pid;
	int sock;		/* to hand it attachments to close: sb_guardian_adopt() */
};

/*
 * Fork the guardian, which keeps only the stops map and the programs' .bss (to
 * read the recorder's heartbeat) and resumes what the kernel side stopped when
 * the recorder has stalled or is gone. Call it after loading and before
 * attaching anything. 0, or -errno with err set.
 */
int sb_guardian_start(struct sb_guardian *g, struct region_bpf *skel, struct sb_error *err);

/*
 * The recorder is at work: the kernel side may stop processes for it, and the
 * guardian lets none go early. Call it wherever the recorder may be busy for
 * long (each attachment), as well as each time it polls.
 */
void sb_guardian_heartbeat(struct region_bpf *skel);

/*
 * A lease: the recorder is about to work for up to for_ns in one call (each
 * uprobe can take 0.1-0.5 s to register on a loaded machine), and counts as
 * alive until then.
 */
void sb_guardian_busy(struct region_bpf *skel, uint64_t for_ns);

/*
 * Hand the guardian a reference to each of fds, to be closed there once
 * sb_guardian_release() says this process closed its own. 0 when it took all.
 */
int sb_guardian_adopt(struct sb_guardian *g, const int *fds, size_t n);
/* This process closed its references: the guardian may close its own now. */
void sb_guardian_release(struct sb_guardian *g);
/*
 * The recording ended well: no process may be held any more (the heartbeat
 * goes stale now), and the guardian need not keep stderr while it closes.
 */
void sb_guardian_done(struct sb_guardian *g, struct region_bpf *skel);

/*
 * Resume the processes the stops map holds (all of them, or those held at
 * least min_age_ns) and forget their stops. Returns how many were resumed.
 */
int sb_stops_release(int stops_fd, uint64_t min_age_ns);

/* Whether a /proc/PID/status text shows SIGSTOP sent and not yet acted on. */
bool sb_status_stop_pending(const char *status);

/* The recorder resumed tgid after the stop numbered seq: forget it unless a newer one came. */
void sb_stops_done(int stops_fd, uint32_t tgid, uint32_t seq);

#endif
