/* Mutexes that a real-time thread shares with ordinary threads. */
#ifndef SB_UTIL_PI_MUTEX_H
#define SB_UTIL_PI_MUTEX_H

#include <pthread.h>

/*
 * A mutex with priority inheritance: while a real-time thread waits for it,
 * its holder runs at that thread's priority. With a plain mutex the waiter
 * waits as long as the scheduler keeps the holder off its CPU (for an
 * ordinary thread beside a busy one, a time slice: milliseconds).
 * 0 or -errno.
 */
int sb_pi_mutex_init(pthread_mutex_t *m);

#endif
