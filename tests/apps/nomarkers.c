/* Test app without markers, for the "binary has no probes" error: "nomarkers [SECONDS]" (5). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 5;

	printf("ready\n");
	fflush(stdout);
	sleep((unsigned int)seconds);
	return 0;
}
