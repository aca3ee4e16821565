/*
 * The guardian: a small process forked from the recorder that outlives it.
 *
 * The kernel side stops a traced process at exec and at every link-map change
 * until the recorder has attached the new objects' probes, and notes each stop
 * in the stops map. A recorder that is killed (SIGKILL, the OOM killer), stopped
 * or starved would leave such a process stopped for good. The guardian keeps
 * nothing but the stops map and the programs' .bss, where the recorder's
 * heartbeat is: it resumes a process held longer than SB_STOP_TIMEOUT_NS while
 * the recorder has stalled (its heartbeat is stale: stopped, starved, stuck;
 * never while it is busy attaching), and every held process once the recorder
 * is gone (its programs are detached by then, so nothing stops again).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "record/guardian.h"
#include "record/launch.h"
#include "region.h"
#include "region.skel.h"

/*
 * How often a stalled recorder is looked for: a process held past
 * SB_STOP_TIMEOUT_NS goes at most this much later. Where the recorder's end
 * cannot be waited for (no pidfd), it is looked for as often.
 */
#define STALL_CHECK_MS 500
#define POLL_MS 100
#define FDS_PER_MSG 200		/* under the kernel's SCM_MAX_FD (253) */
#define MAX_ADOPTED 65536
#define MSG_FDS 'F'		/* references to close later */
#define MSG_RELEASE 'R'		/* the recorder closed its own: close ours */
#define MSG_DONE 'D'		/* the recorder ended well: none held, none to be, nothing to say */
/* After the recorder is gone: stops already under way may still land. */
static const int final_sweeps_ms[] = { 0, 20, 100, 500 };

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

bool sb_status_stop_pending(const char *status)
{
	static const char *const masks[] = { "\nSigPnd:", "\nShdPnd:" };
	unsigned long long mask;
	const char *p;
	size_t i;

	for (i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
		p = strstr(status, masks[i]);
		if (p && sscanf(p + strlen(masks[i]), "%llx", &mask) == 1 &&
		    mask & (1ULL << (SIGSTOP - 1)))
			return true;
	}
	return false;
}

static bool stop_pending(pid_t pid)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return sb_status_stop_pending(buf);
}

/*
 * Stopped, or about to be: a SIGSTOP sent at an exec is acted on only when
 * the process next runs, which on a busy machine can be well after its stop
 * is released. Not resumed then, it would stop for good with nobody to wake it.
 */
static bool held(pid_t pid)
{
	return sb_process_state(pid) == 'T' || stop_pending(pid);
}

int sb_stops_release(int stops_fd, uint64_t min_age_ns)
{
	__u32 keys[SB_MAX_PROCS], key, *prev = NULL;
	uint64_t now = mono_ns();
	struct sb_stop st;
	size_t n = 0, i;
	int resumed = 0;

	/* Keys first: deleting while walking a hash map can restart the walk. */
	while (n < SB_MAX_PROCS && !bpf_map_get_next_key(stops_fd, prev, &key)) {
		keys[n++] = key;
		prev = &keys[n - 1];
	}
	for (i = 0; i < n; i++) {
		if (bpf_map_lookup_elem(stops_fd, &keys[i], &st) ||
		    (min_age_ns && now - st.time < min_age_ns))
			continue;
		if (held((pid_t)keys[i]) && !kill((pid_t)keys[i], SIGCONT))
			resumed++;
		bpf_map_delete_elem(stops_fd, &keys[i]);
	}
	return resumed;
}

void sb_stops_done(int stops_fd, uint32_t tgid, uint32_t seq)
{
	struct sb_stop st;

	/* A newer stop of the same process is still to be answered: keep it. */
	if (!bpf_map_lookup_elem(stops_fd, &tgid, &st) && st.seq == seq)
		bpf_map_delete_elem(stops_fd, &tgid);
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Signals aimed at the recorder's group or terminal must not end the guardian first. */
static void guardian_detach(void)
{
	static const int ignored[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP,
				       SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2 };
	int fd, i;

	setsid();
	for (i = 0; i < (int)(sizeof(ignored) / sizeof(ignored[0])); i++)
		signal(ignored[i], SIG_IGN);
	prctl(PR_SET_NAME, "scope-bpf-guard");
	/* Last to be killed when memory runs out: it holds no more than a map. */
	fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		/* Refused without CAP_SYS_RESOURCE: the default score then stands. */
		ssize_t n = write(fd, "-1000", 5);

		(void)n;
		close(fd);
	}
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		close(fd);
	}
}

static void quiet_stderr(void)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		dup2(fd, STDERR_FILENO);
		close(fd);
	}
}

/* What the recorder handed over, closed once it has closed its own references. */
struct adopted {
	int fds[MAX_ADOPTED];
	size_t n;
};

static void close_adopted(struct adopted *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		close(a->fds[i]);
	a->n = 0;
}

/* One message from the recorder; false once the socket is closed. */
static bool receive(int sock, struct adopted *a, int flags)
{
	union {
		char buf[CMSG_SPACE(FDS_PER_MSG * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct msghdr msg = { 0 };
	struct cmsghdr *cm;
	char kind = 0;
	struct iovec iov = { &kind, 1 };
	size_t n, i;

	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctl.buf;
	msg.msg_controllen = sizeof(ctl.buf);
	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | flags) <= 0)
		return false;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(fd));
			if (a->n < MAX_ADOPTED)
				a->fds[a->n++] = fd;
			else
				close(fd);
		}
	}
	if (kind == MSG_RELEASE)
		close_adopted(a);
	/*
	 * A clean end: the recorder let every process go and none can be held
	 * again, so there is nothing left to say. Let go of stderr now, or a pipe
	 * the recorder wrote to (record ... 2>&1 | cat) stays open while the
	 * links close, a second or more after the command ended.
	 */
	if (kind == MSG_DONE)
		quiet_stderr();
	return true;
}

/* What the guardian keeps of the recorder's. */
struct watch {
	int stops_fd;
	int bss_fd;		/* the programs' .bss: the heartbeat at hb_offset */
	int sock;
	size_t bss_size;
	size_t hb_offset;
	pid_t recorder;
};

/* A stale heartbeat: the recorder has not polled or attached for a while. */
static bool recorder_stalled(const struct watch *w)
{
	unsigned char bss[256];
	__u32 zero = 0;
	__u64 hb;

	if (w->bss_size > sizeof(bss) || bpf_map_lookup_elem(w->bss_fd, &zero, bss))
		return true;
	memcpy(&hb, bss + w->hb_offset, sizeof(hb));
	/* Signed: a lease taken before long work lies in the future. */
	return (int64_t)(mono_ns() - hb) > (int64_t)SB_HEARTBEAT_STALE_NS;
}

/*
 * Until the recorder has ended: its pidfd is readable, or we are reparented
 * (without pidfds). Either happens only after its files, links included,
 * are closed. The messages it sends are taken as they come.
 */
static void watch_recorder(const struct watch *w, struct adopted *adopted, struct pollfd *sock)
{
	struct pollfd p[2] = { *sock, { .fd = (int)syscall(SYS_pidfd_open, w->recorder, 0),
					.events = POLLIN } };
	int n;

	while (getppid() == w->recorder) {
		/* No descriptor left to wait on: poll sleeps its timeout. */
		n = poll(p, 2, p[1].fd >= 0 ? STALL_CHECK_MS : POLL_MS);
		if (n > 0 && p[0].revents && !receive(w->sock, adopted, 0))
			p[0].fd = -1;
		if (n > 0 && p[1].revents)
			break;
		if (recorder_stalled(w))
			sb_stops_release(w->stops_fd, SB_STOP_TIMEOUT_NS);
	}
	if (p[1].fd >= 0)
		close(p[1].fd);
	*sock = p[0];
}

static void guardian_main(const struct watch *w)
{
	static struct adopted adopted;
	struct pollfd pfd = { .fd = w->sock, .events = POLLIN };
	int resumed = 0;
	size_t i;

	guardian_detach();
	watch_recorder(w, &adopted, &pfd);
	/* What the recorder sent just before it ended (MSG_DONE last) is still queued. */
	while (pfd.fd >= 0 && receive(w->sock, &adopted, MSG_DONTWAIT))
		;
	/* First the held processes, then the links: closing many takes seconds. */
	resumed += sb_stops_release(w->stops_fd, 0);
	close_adopted(&adopted);
	for (i = 0; i < sizeof(final_sweeps_ms) / sizeof(final_sweeps_ms[0]); i++) {
		sleep_ms(final_sweeps_ms[i]);
		resumed += sb_stops_release(w->stops_fd, 0);
	}
	if (resumed)
		fprintf(stderr, "scope-bpf: the recorder ended before letting %d stopped "
			"process%s go: resumed\n", resumed, resumed == 1 ? "" : "es");
	_exit(0);
}

/* Move fds to 3, 4, ... (updating them) and close every other fd from 3 up. */
static int keep_only(int *fds[], int n)
{
	int high[4], i;

	for (i = 0; i < n; i++) {
		high[i] = fcntl(*fds[i], F_DUPFD, 3 + n);
		if (high[i] < 0)
			return -1;
	}
	for (i = 0; i < n; i++) {
		if (dup2(high[i], 3 + i) < 0)
			return -1;
		*fds[i] = 3 + i;
	}
	close_range(3 + n, ~0U, 0);
	return 0;
}

void sb_guardian_heartbeat(struct region_bpf *skel)
{
	skel->bss->heartbeat_ns = mono_ns();
}

void sb_guardian_busy(struct region_bpf *skel, uint64_t for_ns)
{
	skel->bss->heartbeat_ns = mono_ns() + for_ns;
}

int sb_guardian_start(struct sb_guardian *g, struct region_bpf *skel, struct sb_error *err)
{
	struct watch w = { .stops_fd = bpf_map__fd(skel->maps.stops),
			   .bss_fd = bpf_map__fd(skel->maps.bss), .bss_size = sizeof(*skel->bss),
			   .hb_offset = offsetof(struct region_bpf__bss, heartbeat_ns),
			   .recorder = getpid() };
	int *keep[] = { &w.stops_fd, &w.bss_fd, &w.sock };
	int sv[2];

	g->pid = -1;
	g->sock = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return sb_fail(err, errno, "cannot start the guardian process: %s", strerror(errno));
	fflush(NULL);
	g->pid = fork();
	if (g->pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return sb_fail(err, errno, "cannot start the guardian process: %s", strerror(errno));
	}
	if (g->pid == 0) {
		/* Keep the two maps, the socket and stderr; every BPF program and link is let go. */
		w.sock = sv[1];
		if (keep_only(keep, 3))
			_exit(1);
		guardian_main(&w);
	}
	close(sv[1]);
	g->sock = sv[0];
	return 0;
}

static int send_msg(int sock, char kind, const int *fds, size_t n)
{
	union {
		char buf[CMSG_SPACE(FDS_PER_MSG * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { &kind, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (n) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = CMSG_SPACE(n * sizeof(int));
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(n * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, n * sizeof(int));
	}
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == 1 ? 0 : -errno;
}

int sb_guardian_adopt(struct sb_guardian *g, const int *fds, size_t n)
{
	size_t i, k;
	int ret;

	if (!g || g->sock < 0)
		return -EBADF;
	for (i = 0; i < n; i += k) {
		k = n - i < FDS_PER_MSG ? n - i : FDS_PER_MSG;
		ret = send_msg(g->sock, MSG_FDS, fds + i, k);
		if (ret)
			return ret;
	}
	return 0;
}

void sb_guardian_release(struct sb_guardian *g)
{
	if (g && g->sock >= 0)
		send_msg(g->sock, MSG_RELEASE, NULL, 0);
}

void sb_guardian_done(struct sb_guardian *g, struct region_bpf *skel)
{
	/* Stale at once: the kernel side holds no process for a recorder that is gone. */
	skel->bss->heartbeat_ns = 0;
	if (g && g->sock >= 0)
		send_msg(g->sock, MSG_DONE, NULL, 0);
}
