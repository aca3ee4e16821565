/* Reading /proc/PID/maps: the snapshot the symbolizer needs to resolve addresses later. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "record/maps.h"

#define DELETED_SUFFIX " (deleted)"

/* Parse one line; 1 when it is a file-backed mapping worth keeping, 0 to skip it. */
static int parse_line(char *line, struct sb_map *m)
{
	unsigned long long start, end, pgoff, inode;
	unsigned int major, minor;
	size_t len, suffix = strlen(DELETED_SUFFIX);
	char perms[8];
	int path_at = 0;

	line[strcspn(line, "\n")] = 0;
	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &pgoff,
		   &major, &minor, &inode, &path_at) < 7 || !path_at)
		return 0;
	/* Anonymous memory, [heap], [vdso] and the like have no file to read symbols from. */
	if (!inode || line[path_at] != '/')
		return 0;
	len = strlen(line + path_at);
	if (len >= suffix && !strcmp(line + path_at + len - suffix, DELETED_SUFFIX))
		return 0;
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	m->dev = makedev(major, minor);
	m->inode = inode;
	m->exec = perms[2] == 'x';
	m->path = line + path_at;
	return 1;
}

static int append(struct sb_map **maps, size_t *n, size_t *cap, const struct sb_map *m)
{
	struct sb_map *grown;

	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 32;
		grown = realloc(*maps, *cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		*maps = grown;
	}
	(*maps)[*n] = *m;
	(*maps)[*n].path = strdup(m->path);
	if (!(*maps)[*n].path)
		return -ENOMEM;
	(*n)++;
	return 0;
}

int sb_maps_read(pid_t pid, struct sb_map **maps, size_t *n)
{
	struct sb_map *out = NULL, m;
	size_t len = 0, cap = 0, size = 0;
	char path[64], *line = NULL;
	int ret = 0;
	FILE *f;

	*maps = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	/* getline: a path may be as long as PATH_MAX, longer than any fixed buffer we would pick. */
	while (getline(&line, &size, f) > 0) {
		if (!parse_line(line, &m))
			continue;
		ret = append(&out, &len, &cap, &m);
		if (ret)
			break;
	}
	if (!ret && ferror(f))
		ret = -EIO;
	free(line);
	fclose(f);
	if (ret) {
		sb_maps_free(out, len);
		return ret;
	}
	*maps = out;
	*n = len;
	return 0;
}

void sb_maps_free(struct sb_map *maps, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(maps[i].path);
	free(maps);
}
