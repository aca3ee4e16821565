/* A process's state and parent from /proc/PID/stat (proc_stat.h). */
#include <stdio.h>
#include <string.h>

#include "util/proc_stat.h"

int sb_proc_stat(pid_t pid, char *state, pid_t *ppid)
{
	char path[64], buf[512], *p;
	int parent;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* The state follows the last ')': the name before it may hold anything. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %d", state, &parent) != 2)
		return -1;
	*ppid = parent;
	return 0;
}
