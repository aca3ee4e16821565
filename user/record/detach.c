/* Parallel release of attachments: see detach.h for why. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
