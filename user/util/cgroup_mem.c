/* What the memory cgroups of this process still allow it (cgroup_mem.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/cgroup_mem.h"

/* Where cgroup file systems are mounted: v1 controllers each in a folder, v2 at the top (or unified/). */
#define CGROUP_ROOT "/sys/fs/cgroup"

/* The controllers field of a v1 line names "memory" among its comma-separated names. */
static bool names_memory(const char *controllers, size_t len)
{
	const char *p = controllers, *end = controllers + len, *comma;

	while (p < end) {
		comma = memchr(p, ',', (size_t)(end - p));
		if (!comma)
			comma = end;
		if (comma - p == 6 && !memcmp(p, "memory", 6))
			return true;
		p = comma + 1;
	}
	return false;
}

static int copy_path(const char *start, const char *end, char *path, size_t size)
{
	size_t len = (size_t)(end - start);

	if (!len || *start != '/' || len >= size)
		return -ENOENT;
	memcpy(path, start, len);
	path[len] = '\0';
	return strstr(path, "/../") || (len >= 3 && !strcmp(path + len - 3, "/..")) ? -ENOENT : 0;
}

int sb_cgroup_mem_path(const char *self_cgroup, char *path, size_t size, bool *v2)
{
	const char *line, *c1, *c2, *eol, *v2_start = NULL, *v2_end = NULL;

	for (line = self_cgroup; *line; line = *eol ? eol + 1 : eol) {
		eol = strchr(line, '\n');
		if (!eol)
			eol = line + strlen(line);
		c1 = memchr(line, ':', (size_t)(eol - line));
		c2 = c1 ? memchr(c1 + 1, ':', (size_t)(eol - c1 - 1)) : NULL;
		if (!c2)
			continue;
		if (c2 == c1 + 1 && c1 - line == 1 && *line == '0') {
			v2_start = c2 + 1;
			v2_end = eol;
		} else if (names_memory(c1 + 1, (size_t)(c2 - c1 - 1))) {
			*v2 = false;
			return copy_path(c2 + 1, eol, path, size);
		}
	}
	if (!v2_start)
		return -ENOENT;
	*v2 = true;
	return copy_path(v2_start, v2_end, path, size);
}

/* A file's first number; "max" (v2: no limit) reads as UINT64_MAX. false when unreadable. */
static bool read_u64(const char *dir, const char *name, uint64_t *v)
{
	char file[PATH_MAX], buf[64], *end;
	ssize_t n;
	int fd;

	if (snprintf(file, sizeof(file), "%s/%s", dir, name) >= (int)sizeof(file))
		return false;
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	if (!strncmp(buf, "max", 3)) {
		*v = UINT64_MAX;
		return true;
	}
	if (buf[0] < '0' || buf[0] > '9')
		return false;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	return !errno && (*end == '\n' || !*end);
}

/* Inactive file pages in memory.stat: page cache the cgroup drops before it runs out. */
static uint64_t inactive_file(const char *dir, bool v2)
{
	const char *key = v2 ? "inactive_file " : "total_inactive_file ";
	char file[PATH_MAX], line[256];
	unsigned long long v;
	uint64_t found = 0;
	FILE *f;

	if (snprintf(file, sizeof(file), "%s/memory.stat", dir) >= (int)sizeof(file))
		return 0;
	f = fopen(file, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)) && sscanf(line + strlen(key), "%llu", &v) == 1)
			found = v;
	fclose(f);
	return found;
}

/* One level: its limit and headroom folded into m. */
static void fold_level(const char *dir, bool v2, struct sb_cgroup_mem *m)
{
	uint64_t limit, usage, inactive, room;

	if (!read_u64(dir, v2 ? "memory.max" : "memory.limit_in_bytes", &limit) ||
	    !read_u64(dir, v2 ? "memory.current" : "memory.usage_in_bytes", &usage))
		return;
	/* v1 writes "no limit" as the largest page-aligned number, far above any machine. */
	if (limit >= (UINT64_MAX >> 2))
		return;
	inactive = inactive_file(dir, v2);
	usage = usage > inactive ? usage - inactive : 0;
	room = limit > usage ? limit - usage : 0;
	if (limit < m->limit)
		m->limit = limit;
	if (room < m->headroom)
		m->headroom = room;
}

void sb_cgroup_mem_at(const char *root, const char *path, bool v2, struct sb_cgroup_mem *m)
{
	char dir[PATH_MAX], *slash;
	size_t root_len = strlen(root);

	m->limit = m->headroom = UINT64_MAX;
	if (snprintf(dir, sizeof(dir), "%s%s", root, path) >= (int)sizeof(dir))
		return;
	for (;;) {
		fold_level(dir, v2, m);
		slash = strrchr(dir + root_len, '/');
		if (!slash)
			break;
		*slash = '\0';
	}
}

int sb_cgroup_mem_read(struct sb_cgroup_mem *m)
{
	char text[4096], path[PATH_MAX], root[PATH_MAX];
	ssize_t n;
	bool v2;
	int fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);

	m->limit = m->headroom = UINT64_MAX;
	if (fd < 0)
		return -errno;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	text[n] = '\0';
	if (sb_cgroup_mem_path(text, path, sizeof(path), &v2))
		return -ENOENT;
	if (!v2)
		snprintf(root, sizeof(root), "%s/memory", CGROUP_ROOT);
	else if (access(CGROUP_ROOT "/cgroup.controllers", F_OK))
		snprintf(root, sizeof(root), "%s/unified", CGROUP_ROOT);
	else
		snprintf(root, sizeof(root), "%s", CGROUP_ROOT);
	sb_cgroup_mem_at(root, strcmp(path, "/") ? path : "", v2, m);
	return 0;
}
