/* The example program of "make demo": 2D heat diffusion with a region around each phase. */

/*
 * "demo_heat [N [STEPS]]" (defaults 1024 and 1000; about a second) runs an explicit
 * finite-difference heat solver on an N x N plate with a hot top edge.
 * A tracer must see: "init" once; "step" STEPS times, each with one
 * "stencil" (tags "compute") then one "boundary" inside; "reduce" (tags
 * "math") every 10 steps; "checkpoint" (tags "io") every 50 steps, which
 * writes a 64 x 64 snapshot to /tmp and fsyncs it, so it is partly
 * off-CPU. Prints one summary line.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scope_bpf.h"

#define HOT 100.0
#define ALPHA 0.2	/* dt * diffusivity / dx^2; stable below 0.25 */
#define SNAP 64

struct plate {
	int n;
	double *cur, *next;
};

#define AT(p, a, i, j) ((a)[(size_t)(i) * (size_t)(p)->n + (size_t)(j)])

static int plate_init(struct plate *p, int n)
{
	size_t cells = (size_t)n * (size_t)n;

	p->n = n;
	p->cur = calloc(cells, sizeof(double));
	p->next = calloc(cells, sizeof(double));
	if (!p->cur || !p->next)
		return -1;
	for (int j = 0; j < n; j++)
		AT(p, p->cur, 0, j) = AT(p, p->next, 0, j) = HOT;
	return 0;
}

static void stencil(struct plate *p)
{
	int n = p->n;

	for (int i = 1; i < n - 1; i++) {
		const double *up = &AT(p, p->cur, i - 1, 0);
		const double *row = &AT(p, p->cur, i, 0);
		const double *down = &AT(p, p->cur, i + 1, 0);
		double *out = &AT(p, p->next, i, 0);

		for (int j = 1; j < n - 1; j++)
			out[j] = row[j] + ALPHA * (up[j] + down[j] + row[j - 1] + row[j + 1] -
						   4.0 * row[j]);
	}
}

/* Fixed hot top edge, cold bottom edge, insulated sides. */
static void boundary(struct plate *p)
{
	int n = p->n;
	double *tmp;

	for (int j = 0; j < n; j++) {
		AT(p, p->next, 0, j) = HOT;
		AT(p, p->next, n - 1, j) = 0.0;
	}
	for (int i = 1; i < n - 1; i++) {
		AT(p, p->next, i, 0) = AT(p, p->next, i, 1);
		AT(p, p->next, i, n - 1) = AT(p, p->next, i, n - 2);
	}
	tmp = p->cur;
	p->cur = p->next;
	p->next = tmp;
}

static double norm(const struct plate *p)
{
	double sum = 0.0;

	for (size_t k = 0; k < (size_t)p->n * (size_t)p->n; k++)
		sum += p->cur[k] * p->cur[k];
	return sqrt(sum);
}

/* A downsampled snapshot, synced to disk as a real checkpoint would be. */
static int checkpoint(const struct plate *p, const char *path)
{
	float snap[SNAP * SNAP];
	int fd, ret = 0;

	for (int i = 0; i < SNAP; i++)
		for (int j = 0; j < SNAP; j++)
			snap[i * SNAP + j] = (float)AT(p, p->cur, i * p->n / SNAP, j * p->n / SNAP);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	if (write(fd, snap, sizeof(snap)) != (ssize_t)sizeof(snap) || fsync(fd))
		ret = -1;
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1024;
	int steps = argc > 2 ? atoi(argv[2]) : 1000;
	struct plate p = { 0 };
	char path[64];
	double last = 0.0;
	int saved = 0, ret = 0;

	if (n < 4 || steps < 0) {
		fprintf(stderr, "usage: demo_heat [N>=4 [STEPS]]\n");
		return 2;
	}
	snprintf(path, sizeof(path), "/tmp/scope-bpf-demo-heat.%d.ckpt", (int)getpid());

	SCOPE_BPF_REGION("init") {
		ret = plate_init(&p, n);
	}
	for (int s = 1; s <= steps && !ret; s++) {
		SCOPE_BPF_REGION("step") {
			SCOPE_BPF_REGION_TAGGED("stencil", "compute") {
				stencil(&p);
			}
			SCOPE_BPF_REGION("boundary") {
				boundary(&p);
			}
		}
		if (s % 10 == 0)
			SCOPE_BPF_REGION_TAGGED("reduce", "math") {
				last = norm(&p);
			}
		if (s % 50 == 0)
			SCOPE_BPF_REGION_TAGGED("checkpoint", "io") {
				ret = checkpoint(&p, path);
				saved++;
			}
	}
	unlink(path);
	free(p.cur);
	free(p.next);
	if (ret) {
		perror("demo_heat");
		return 1;
	}
	printf("demo_heat: %dx%d plate, %d steps, %d checkpoints, norm %.3f\n",
	       n, n, steps, saved, last);
	return 0;
}
