/* Stop requests noted: see stop_signal.h. */
#include <stddef.h>

#include "record/stop_signal.h"

volatile sig_atomic_t sb_stop_signal;
volatile sig_atomic_t sb_stop_from_terminal;

static void on_signal(int sig, siginfo_t *info, void *uctx)
{
	(void)uctx;
	sb_stop_signal = sig;
	sb_stop_from_terminal = info && info->si_code == SI_KERNEL;
}

void sb_stop_signals_install(void)
{
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}
