/* Stop requests noted: see stop_signal.h. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "record/stop_signal.h"

volatile sig_atomic_t sb_stop_signal;
volatile sig_atomic_t sb_stop_from_terminal;
static int stop_fd = -1;

static void on_signal(int sig, siginfo_t *info, void *uctx)
{
	uint64_t one = 1;
	int saved = errno;
	ssize_t n;

	(void)uctx;
	sb_stop_signal = sig;
	sb_stop_from_terminal = info && info->si_code == SI_KERNEL;
	/* Only ever fails when 2^64 - 1 requests are unread: then it is readable already. */
	if (stop_fd >= 0) {
		n = write(stop_fd, &one, sizeof(one));
		(void)n;
	}
	errno = saved;
}

void sb_stop_signals_install(void)
{
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO };

	if (stop_fd < 0)
		stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int sb_stop_signal_fd(void)
{
	return stop_fd;
}
