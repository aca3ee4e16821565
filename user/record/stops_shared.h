/* Letting a held process go when more than one recorder may hold it. */
#ifndef SB_STOPS_SHARED_H
#define SB_STOPS_SHARED_H

#include <stdint.h>
#include <sys/types.h>

/*
 * This recorder is done with the stop numbered seq of pid (its stops map is
 * stops_fd): resume pid unless another recorder on this machine holds it too
 * and has not finished, so that the last one to finish lets it go.
 */
void sb_stops_resume(int stops_fd, pid_t pid, uint32_t seq);

#endif
