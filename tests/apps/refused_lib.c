/*
 * Test app: maps a library beside it that no uprobe can probe, says "ready",
 * then waits to be killed. "refused_lib [mpi|gomp] [exit]": libmpi_refused.so
 * (the default) or libgomp.so.refused; with "exit" it returns 0 at once.
 */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *name = argc > 1 && !strcmp(argv[1], "gomp") ? "libgomp.so.refused" :
								  "libmpi_refused.so";
	char exe[PATH_MAX], lib[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return 1;
	exe[n] = 0;
	snprintf(lib, sizeof(lib), "%s/%s", dirname(exe), name);
	if (!dlopen(lib, RTLD_NOW)) {
		fprintf(stderr, "refused_lib: %s\n", dlerror());
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	if (argc > 2 && !strcmp(argv[2], "exit"))
		return 0;
	for (;;)
		pause();
}
