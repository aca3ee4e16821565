/* Parallel release of attachments: see detach.h for why. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <time.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "record/detach.h"
#include "record/guardian.h"
#include "util/array.h"

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The open fds of this process, sorted, without the one reading the list. */
static int open_fds(int **out, size_t *n)
{
	size_t cap = 0;
	struct dirent *e;
	int *fds = NULL;
	DIR *dir;
	long fd;

	*n = 0;
	dir = opendir("/proc/self/fd");
	if (!dir)
		return -errno;
	while ((e = readdir(dir))) {
		fd = strtol(e->d_name, NULL, 10);
		if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == dirfd(dir))
			continue;
		if (sb_array_reserve((void **)&fds, &cap, *n + 1, sizeof(*fds))) {
			closedir(dir);
			free(fds);
			return -ENOMEM;
		}
		fds[(*n)++] = (int)fd;
	}
	closedir(dir);
	qsort(fds, *n, sizeof(*fds), cmp_int);
	*out = fds;
	return 0;
}

int sb_detach_mark(struct sb_detach *d)
{
	free(d->before);
	d->before = NULL;
	return open_fds(&d->before, &d->n_before);
}

/* Hold a duplicate of every fd opened since sb_detach_mark(). 0 or -errno. */
static int hold_new(struct sb_detach *d)
{
	size_t n, i, cap = d->n;
	int *now, dup_fd, ret;

	ret = open_fds(&now, &n);
	if (ret)
		return ret;
	for (i = 0; i < n && !ret; i++) {
		if (bsearch(&now[i], d->before, d->n_before, sizeof(int), cmp_int))
			continue;
		if (sb_array_reserve((void **)&d->fds, &cap, d->n + 1, sizeof(*d->fds))) {
			ret = -ENOMEM;
			break;
		}
		dup_fd = fcntl(now[i], F_DUPFD_CLOEXEC, 0);
		if (dup_fd >= 0)
			d->fds[d->n++] = dup_fd;
	}
	free(now);
	free(d->before);
	d->before = NULL;
	d->n_before = 0;
	return ret;
}

int sb_detach_keep(struct sb_detach *d, struct bpf_link *link)
{
	struct bpf_link **links;
	int ret = hold_new(d);

	if (!ret) {
		links = realloc(d->links, (d->n_links + 1) * sizeof(*links));
		if (links) {
			d->links = links;
			d->links[d->n_links++] = link;
			return 0;
		}
		ret = -ENOMEM;
	}
	bpf_link__destroy(link);
	return ret;
}

int sb_detach_keep_fd(struct sb_detach *d, int fd)
{
	size_t cap = d->n;

	if (sb_array_reserve((void **)&d->fds, &cap, d->n + 1, sizeof(*d->fds))) {
		close(fd);
		return -ENOMEM;
	}
	d->fds[d->n++] = fd;
	return 0;
}

void sb_detach_release(struct sb_detach *d, struct sb_guardian *g)
{
	bool adopted;
	size_t i;

	for (i = 0; i < d->n_links; i++)
		bpf_link__destroy(d->links[i]);
	free(d->links);
	adopted = d->n && !sb_guardian_adopt(g, d->fds, d->n);
	for (i = 0; i < d->n; i++)
		close(d->fds[i]);
	if (adopted)
		sb_guardian_release(g);
	free(d->fds);
	free(d->before);
	memset(d, 0, sizeof(*d));
}

#define RELEASE_LOCK "/run/scope-bpf.fast-release.lock"
#define LOCK_POLL_MS 5

/* flock(fd, how) within timeout_ms, polled (flock itself has no timeout). 0 or -errno. */
static int lock_within(int fd, int how, int timeout_ms)
{
	struct timespec pause = { 0, LOCK_POLL_MS * 1000000L };
	int waited;

	for (waited = 0; flock(fd, how | LOCK_NB); waited += LOCK_POLL_MS) {
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		if (waited >= timeout_ms)
			return -ETIME;
		nanosleep(&pause, NULL);
	}
	return 0;
}

/* The release lock, taken; -1 where it cannot be had. */
static int take_release_lock(void)
{
	int fd = open(RELEASE_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	/* Another recorder's guardian closing its own: wait, as the next recording would. */
	if (lock_within(fd, LOCK_EX, SB_DETACH_FAST_WAIT_MS)) {
		close(fd);
		return -1;
	}
	return fd;
}

void sb_detach_release_fast(struct sb_detach *d, struct sb_guardian *g)
{
	int lock = d->n && g ? take_release_lock() : -1;

	/* Last in the list: the guardian lets the lock go after the probes. */
	if (lock >= 0 && !sb_detach_keep_fd(d, lock)) {
		sb_detach_release(d, g);
		return;
	}
	sb_detach_release(d, NULL);
}

bool sb_detach_wait_fast_released(int timeout_ms)
{
	int fd = open(RELEASE_LOCK, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return true;
	ok = !lock_within(fd, LOCK_SH, timeout_ms);
	close(fd);
	return ok;
}
