/* Mutexes that a real-time thread shares with ordinary threads (pi_mutex.h). */
#include "util/pi_mutex.h"

int sb_pi_mutex_init(pthread_mutex_t *m)
{
	pthread_mutexattr_t attr;
	int ret;

	ret = pthread_mutexattr_init(&attr);
	if (ret)
		return -ret;
	ret = pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_INHERIT);
	if (!ret)
		ret = pthread_mutex_init(m, &attr);
	pthread_mutexattr_destroy(&attr);
	return -ret;
}
