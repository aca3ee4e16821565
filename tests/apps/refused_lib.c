/*
 * Test app: maps libmpi_refused.so, beside it, which no uprobe can probe;
 * says "ready", then waits to be killed.
 */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	char exe[PATH_MAX], lib[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return 1;
	exe[n] = 0;
	snprintf(lib, sizeof(lib), "%s/libmpi_refused.so", dirname(exe));
	if (!dlopen(lib, RTLD_NOW)) {
		fprintf(stderr, "refused_lib: %s\n", dlerror());
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
