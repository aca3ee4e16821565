/*
 * Sampling test app. A tracer sampling it must see: region "A" spending its CPU
 * in hot_a(), region "B" in hot_b(), region "C" in the inlined inl_work() (called
 * from work_c()), region "L" in libsbtest.so's sbtest_lib_spin(), region "S"
 * blocked in nanosleep (off-CPU), and region "K" in child_hot() of a child
 * process that exits long before the parent does. Each busy region runs ~300 ms.
 * Usage: hotspots [MS_PER_REGION]
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "busy.h"
#include "sbtest_lib.h"
#include "scope_bpf.h"

static volatile unsigned long long sink;

/*
 * Computation, not clock polling, so samples land in the function itself. Each
 * user passes its own multiplier: identical bodies would be folded into one
 * function by the compiler, and samples would name only one of them.
 */
#define SPIN_FOR(ns, mul)							\
	do {									\
		uint64_t end_ = now_ns() + (ns);				\
		unsigned long long x_ = sink;					\
		int i_;								\
		while (now_ns() < end_)						\
			for (i_ = 0; i_ < 20000; i_++)				\
				x_ = x_ * (mul) + 3037000493ull;	\
		sink = x_;							\
	} while (0)

__attribute__((noinline)) static void hot_a(uint64_t ns)
{
	SPIN_FOR(ns, 2862933555777941757ull);
}

__attribute__((noinline)) static void hot_b(uint64_t ns)
{
	SPIN_FOR(ns, 6364136223846793005ull);
}

static inline __attribute__((always_inline)) void inl_work(uint64_t ns)
{
	SPIN_FOR(ns, 3935559000370003845ull);
}

__attribute__((noinline)) static void work_c(uint64_t ns)
{
	inl_work(ns);
	sink++;
}

__attribute__((noinline)) static void child_hot(uint64_t ns)
{
	SPIN_FOR(ns, 2685821657736338717ull);
}

__attribute__((noinline)) static void do_sleep(uint64_t ns)
{
	sleep_ns(ns);
}

int main(int argc, char **argv)
{
	uint64_t ns = (argc > 1 ? strtoull(argv[1], NULL, 10) : 300) * 1000000ull;
	pid_t child;

	child = fork();
	if (child == 0) {
		SCOPE_BPF_REGION("K") {
			child_hot(ns);
		}
		_exit(0);
	}
	waitpid(child, NULL, 0);
	SCOPE_BPF_REGION("A") {
		hot_a(ns);
	}
	SCOPE_BPF_REGION("B") {
		hot_b(ns);
	}
	SCOPE_BPF_REGION("C") {
		work_c(ns);
	}
	SCOPE_BPF_REGION("L") {
		sbtest_lib_spin(ns);
	}
	SCOPE_BPF_REGION("S") {
		do_sleep(ns);
	}
	return 0;
}
