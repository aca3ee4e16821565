/* Stop requests (SIGINT, SIGTERM, SIGHUP) noted for a loop to act on: record's and its client's. */
#ifndef SB_STOP_SIGNAL_H
#define SB_STOP_SIGNAL_H

#include <signal.h>

/* The last request's signal; whoever acts on it sets it back to 0. */
extern volatile sig_atomic_t sb_stop_signal;
/* It came from the terminal (Ctrl-C): a launched command got it as well. */
extern volatile sig_atomic_t sb_stop_from_terminal;

/* Catch them, without SA_RESTART: a wait or poll under way returns at once. */
void sb_stop_signals_install(void);
/*
 * An eventfd each request makes readable (-1: none could be made), so a loop
 * that sleeps in epoll hears of one that came just before it went to sleep.
 */
int sb_stop_signal_fd(void);

#endif
