/* Runs a command and prints its peak resident set size, because GNU time is not always installed. */

/*
 * Usage: peakrss COMMAND [ARGS...]
 *
 * Prints "peakrss: maxrss_kib=KIB" on stderr and exits with the command's
 * status. The figure is wait4()'s ru_maxrss: the largest peak of the
 * command and of the children it waited for, a maximum, not a sum. For
 * scope-bpf record the traced command is one of those children; make bench
 * prints the loop's own peak next to it, so a reader can see which it is.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: peakrss COMMAND [ARGS...]\n");
		return 2;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("peakrss: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		fprintf(stderr, "peakrss: %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("peakrss: wait4");
			return 1;
		}
	}
	fprintf(stderr, "peakrss: maxrss_kib=%ld\n", ru.ru_maxrss);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
