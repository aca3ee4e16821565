/*
 * The wrong library for the program's MPI (record picks one per command,
 * docs/MPI.md): its wrappers would pass the other MPI's handles as the wrong
 * types, so before main the program is run again with the right one in
 * LD_PRELOAD, or, where that one is missing, without any.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmpi.h"

#define REEXEC_VAR "SCOPE_BPF_MPI_REEXEC"	/* set once: never run again twice */
#define ARGS_MAX 4096

extern char **environ;

/* The path of this library's sibling other_file, from where this library was loaded. */
static bool sibling(const char *other_file, char *out, size_t len)
{
	Dl_info info;
	const char *slash;

	if (!dladdr((void *)pmpi_check_mpi, &info) || !info.dli_fname)
		return false;
	slash = strrchr(info.dli_fname, '/');
	if (!slash)
		return false;
	snprintf(out, len, "%.*s/%s", (int)(slash - info.dli_fname), info.dli_fname, other_file);
	return !access(out, R_OK);
}

/* LD_PRELOAD with each entry naming mine_file replaced by other (or left out when NULL). */
static void replace_entry(const char *preload, const char *mine_file, const char *other,
			  char *out, size_t len)
{
	const char *p = preload, *end, *base;
	size_t n = 0, wlen;

	out[0] = 0;
	while (*p) {
		end = p + strcspn(p, ": ");
		wlen = (size_t)(end - p);
		for (base = end; base > p && base[-1] != '/'; base--)
			;
		if ((size_t)(end - base) == strlen(mine_file) &&
		    !memcmp(base, mine_file, strlen(mine_file))) {
			if (other)
				n += (size_t)snprintf(out + n, n < len ? len - n : 0, "%s%s",
						      n ? ":" : "", other);
		} else if (wlen) {
			n += (size_t)snprintf(out + n, n < len ? len - n : 0, "%s%.*s",
					      n ? ":" : "", (int)wlen, p);
		}
		p = *end ? end + 1 : end;
	}
	if (n >= len)
		out[0] = 0;
}

/* This process's arguments, from /proc (a constructor is given none); false when unreadable. */
static bool own_args(char *buf, size_t len, char **argv, int max)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC), argc = 0;
	ssize_t n;
	size_t i;

	if (fd < 0)
		return false;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0 || (size_t)n >= len - 1)
		return false;
	buf[n] = 0;
	for (i = 0; i < (size_t)n && argc < max - 1; i += strlen(buf + i) + 1)
		argv[argc++] = buf + i;
	argv[argc] = NULL;
	return argc > 0;
}

void pmpi_check_mpi(const char *mine_symbol, const char *other_symbol, const char *mine_file,
		    const char *other_file)
{
	static char args[ARGS_MAX * 8], preload[PATH_MAX * 4], other[PATH_MAX];
	const char *old = getenv("LD_PRELOAD");
	char *argv[ARGS_MAX];

	if (dlsym(RTLD_DEFAULT, mine_symbol)) {
		/* Run again, rightly: the programs it starts are judged afresh. */
		unsetenv(REEXEC_VAR);
		return;
	}
	if (!old || getenv(REEXEC_VAR) || !dlsym(RTLD_DEFAULT, other_symbol))
		return;
	replace_entry(old, mine_file, sibling(other_file, other, sizeof(other)) ? other : NULL,
		      preload, sizeof(preload));
	if (!own_args(args, sizeof(args), argv, ARGS_MAX) || setenv(REEXEC_VAR, "1", 1) ||
	    setenv("LD_PRELOAD", preload, 1))
		return;
	execve("/proc/self/exe", argv, environ);
	fprintf(stderr, "scope-bpf: %s is for another MPI than this program's, and running it "
		"again without it failed: its MPI calls may fail\n", mine_file);
	setenv("LD_PRELOAD", old, 1);
}
