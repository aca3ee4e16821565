/*
 * Test app: "dlopen_loop LIB N PROGRESS [TAG]" loads LIB, runs its region and
 * unloads it, N times (0: until killed), writing the iterations done so far to
 * PROGRESS. Every load and unload changes the link map: a storm of syncs for a
 * recorder to keep up with. TAG is ignored: tests find the process by it.
 * Each round is a region of the app itself, so `record -p` always finds
 * probes, also between an unload and the next load.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scope_bpf.h"

int main(int argc, char **argv)
{
	long n, i;
	char buf[32];
	int fd, len;

	if (argc < 4) {
		fprintf(stderr, "usage: dlopen_loop LIB N PROGRESS [TAG]\n");
		return 2;
	}
	n = atol(argv[2]);
	fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return 1;
	for (i = 0; !n || i < n; i++) {
		SCOPE_BPF_REGION("round") {
			void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
			void (*compute)(int);

			if (!lib) {
				fprintf(stderr, "dlopen_loop: %s\n", dlerror());
				return 1;
			}
			*(void **)&compute = dlsym(lib, "sbtest_lib_compute");
			if (compute)
				compute((int)i);
			dlclose(lib);
		}
		len = snprintf(buf, sizeof(buf), "%ld\n", i + 1);
		if (pwrite(fd, buf, (size_t)len, 0) != len)
			return 1;
	}
	close(fd);
	return 0;
}
