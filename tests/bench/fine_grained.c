/* Benchmark: a fine-grained solver loop, marked the way users mark HPCCG's kernels. */

/*
 * Usage: fine_grained ITERATIONS LENGTH
 *
 * Each iteration runs three marked kernels over vectors of LENGTH doubles,
 * as a conjugate-gradient step does: "waxpby" (w = a x + b y), "ddot" twice
 * and "sparsemv" (a 7-point stencil). With LENGTH 1000 that is a few
 * microseconds a kernel: some 200 000 region calls a second, the rate at
 * which issue 12 measured HPCCG 1.8x slower under the kernel path. Prints
 * loop_ns=NS calls=N: the fastest of three runs, timed inside the process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "scope_bpf.h"

static double *x, *y, *w;
static volatile double sink;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void waxpby(long n, double a, double b)
{
	long i;

	SCOPE_BPF_FUNCTION();
	for (i = 0; i < n; i++)
		w[i] = a * x[i] + b * y[i];
}

static double ddot(long n, const double *u, const double *v)
{
	double s = 0;
	long i;

	SCOPE_BPF_FUNCTION();
	for (i = 0; i < n; i++)
		s += u[i] * v[i];
	return s;
}

static void sparsemv(long n)
{
	long i;

	SCOPE_BPF_FUNCTION();
	for (i = 1; i + 1 < n; i++)
		y[i] = 6 * x[i] - x[i - 1] - x[i + 1] - 0.5 * (w[i - 1] + w[i + 1]) - 2 * w[i];
}

static void step(long n)
{
	double r;

	SCOPE_BPF_REGION("cg_step") {
		waxpby(n, 1.0, -0.5);
		r = ddot(n, w, w);
		sparsemv(n);
		r += ddot(n, x, y);
		sink = r;
	}
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 20000, n = argc > 2 ? atol(argv[2]) : 1000, i;
	long long best = -1, t;
	int rep;

	if (iters < 1 || n < 3) {
		fprintf(stderr, "usage: fine_grained ITERATIONS LENGTH(>= 3)\n");
		return 2;
	}
	x = calloc(n, sizeof(*x));
	y = calloc(n, sizeof(*y));
	w = calloc(n, sizeof(*w));
	if (!x || !y || !w)
		return 1;
	for (i = 0; i < n; i++)
		x[i] = y[i] = (double)(i % 7) / 7;
	for (rep = 0; rep < 3; rep++) {
		t = now_ns();
		for (i = 0; i < iters; i++)
			step(n);
		t = now_ns() - t;
		if (best < 0 || t < best)
			best = t;
	}
	printf("loop_ns=%lld calls=%ld\n", best, 5 * iters);
	return 0;
}
