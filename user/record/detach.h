/* Detaching many uprobes without waiting for them: the guardian does the last close of each. */
#ifndef SB_DETACH_H
#define SB_DETACH_H

#include <stdbool.h>
#include <stddef.h>

struct bpf_link;
struct sb_guardian;

/*
 * Each uprobe is unregistered when the last reference to its perf event goes,
 * and each unregistration waits for RCU grace periods under the kernel's
 * event_mutex (about 0.1 s here, one at a time even from parallel threads): 40
 * probes take 4 s. Recording has already stopped by then (the kernel side's
 * recording flag), so the wait is pure delay: the recorder keeps a duplicate of
 * every file an attachment opened, so libbpf's own closes are cheap, and hands
 * the duplicates to the guardian process, which does the slow last closes after
 * the recorder has moved on. Without a guardian they are closed here.
 */
struct sb_detach {
	struct bpf_link **links;	/* the attachments themselves */
	size_t n_links;
	int *fds;		/* duplicates held, close-on-exec */
	size_t n;
	int *before;		/* open fds when sb_detach_mark() was called, sorted */
	size_t n_before;
};

/* Note the open fds before an attachment. 0 or -errno. */
int sb_detach_mark(struct sb_detach *d);
/*
 * Keep link, made since sb_detach_mark(), with a duplicate of every fd it
 * opened. 0, or -errno with link destroyed.
 */
int sb_detach_keep(struct sb_detach *d, struct bpf_link *link);
/* Keep a link that is a bare fd (no struct bpf_link): it is let go as the duplicates are. */
int sb_detach_keep_fd(struct sb_detach *d, int fd);

/*
 * Destroy the links kept (cheap: the duplicates still hold each probe), then
 * let go of the duplicates: to the guardian g when it takes them, else closed here.
 */
void sb_detach_release(struct sb_detach *d, struct sb_guardian *g);

/*
 * The fast path's probes set each marked object's fast semaphore while they
 * exist, in every process that maps it: a recording that began while another
 * recorder's were still being closed had its markers write to memory nobody
 * read. Closing them here cost the recorder's return 3 ms a probe on a quiet
 * machine and 0.1 s on a loaded one. So the guardian closes them too, holding
 * the release lock (a root-only file in /run) until it has, and each
 * recording waits for that lock before it attaches.
 *
 * sb_detach_release_fast: like sb_detach_release, with the release lock held
 * until the guardian closed d's files; where the lock cannot be had (no /run
 * to write, a recorder that is not root) they are closed here, as before.
 */
void sb_detach_release_fast(struct sb_detach *d, struct sb_guardian *g);
/* How long a recording waits for another's fast-path probes to go. */
#define SB_DETACH_FAST_WAIT_MS 10000
/*
 * Wait until no recorder's fast-path probes are being closed. false when some
 * still were after timeout_ms (a recorder's guardian stuck in the kernel).
 */
bool sb_detach_wait_fast_released(int timeout_ms);

#endif
