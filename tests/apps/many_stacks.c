/*
 * Thousands of distinct user stacks: region "walk" spins at the end of every
 * path of four calls through eight functions (8^4 = 4096 paths), so a
 * sampler sees about as many different stacks as it takes samples. Each
 * step's call is followed by a compiler barrier: no tail call may fold a frame.
 * Usage: many_stacks [us per path, default 500]
 */
#include <stdlib.h>

#include "busy.h"
#include "scope_bpf.h"

#define LEVELS 4
#define FANOUT 8

static uint64_t spin_ns;

__attribute__((noinline)) static void spin(void)
{
	uint64_t end = now_ns() + spin_ns;
	volatile unsigned int x = 0;
	int i;

	/* Mostly here, not in the clock's vDSO, whose frames may not unwind. */
	while (now_ns() < end)
		for (i = 0; i < 2000; i++)
			x += (unsigned int)i;
}

static void step(unsigned int path, int level);

#define STEP(n)								\
	__attribute__((noinline)) static void step##n(unsigned int path, int level) \
	{								\
		step(path, level + 1);					\
		__asm__ volatile("" ::: "memory");			\
	}

STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7)

static void (*const steps[FANOUT])(unsigned int, int) = {
	step0, step1, step2, step3, step4, step5, step6, step7,
};

__attribute__((noinline)) static void step(unsigned int path, int level)
{
	if (level == LEVELS) {
		spin();
		return;
	}
	steps[(path >> (3 * level)) % FANOUT](path, level);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	unsigned int path;

	spin_ns = (argc > 1 ? strtoull(argv[1], NULL, 10) : 500) * 1000ull;
	SCOPE_BPF_REGION("walk") {
		for (path = 0; path < 1u << (3 * LEVELS); path++)
			step(path, 0);
	}
	return 0;
}
