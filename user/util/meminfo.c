/* What /proc/meminfo says about the machine's memory (meminfo.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/cgroup_mem.h"
#include "util/meminfo.h"

/* The value of "KEY:   N kB" at the start of a line of text, in bytes. */
static bool field_bytes(const char *text, const char *key, uint64_t *bytes)
{
	size_t len = strlen(key);
	const char *line, *num;
	char *end;
	unsigned long long kib;

	for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (strncmp(line, key, len) || line[len] != ':')
			continue;
		num = line + len + 1;
		num += strspn(num, " \t");
		if (*num < '0' || *num > '9')
			return false;
		errno = 0;
		kib = strtoull(num, &end, 10);
		if (errno || strncmp(end, " kB", 3) || kib > UINT64_MAX / 1024)
			return false;
		*bytes = (uint64_t)kib * 1024;
		return true;
	}
	return false;
}

int sb_meminfo_parse(const char *text, struct sb_meminfo *m)
{
	if (!field_bytes(text, "MemTotal", &m->total) ||
	    !field_bytes(text, "MemAvailable", &m->available))
		return -EINVAL;
	return 0;
}

/* A memory cgroup's limit is the memory there is, for this process. */
static void within_cgroup(struct sb_meminfo *m)
{
	struct sb_cgroup_mem cg;

	if (sb_cgroup_mem_read(&cg))
		return;
	if (cg.limit < m->total)
		m->total = cg.limit;
	if (cg.headroom < m->available)
		m->available = cg.headroom;
}

int sb_meminfo_read(struct sb_meminfo *m)
{
	char buf[8192];
	ssize_t n;
	int ret, fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	ret = sb_meminfo_parse(buf, m);
	if (!ret)
		within_cgroup(m);
	return ret;
}
