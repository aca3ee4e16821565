/* Letting a held process go when more than one recorder may hold it. */
#ifndef SB_STOPS_SHARED_H
#define SB_STOPS_SHARED_H

#include <stdint.h>
#include <sys/types.h>

#define SB_STOPS_OTHERS_MAX 64

/* The other recorders' stops maps on this machine, looked up again at most once a second. */
struct sb_stops_shared {
	int stops_fd;			/* this recorder's */
	uint32_t own_id;
	int others[SB_STOPS_OTHERS_MAX];
	int n_others;
	int64_t listed_ns;		/* when others was listed; 0: never */
};

void sb_stops_shared_init(struct sb_stops_shared *s, int stops_fd);

/*
 * This recorder is done with the stop numbered seq of pid: resume pid unless
 * another recorder on this machine holds it too and has not finished, so that
 * the last one to finish lets it go.
 */
void sb_stops_resume(struct sb_stops_shared *s, pid_t pid, uint32_t seq);

void sb_stops_shared_free(struct sb_stops_shared *s);

#endif
