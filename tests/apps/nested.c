/* Test app with a known call tree: nesting, recursion, an explicit pair and tags. */

/*
 * A tracer must see:
 *  - "a" called 5 times; each calls "b" twice; each "b" calls "c" 3 times
 *    (so b: 10 calls, c: 30 calls, each c ~1 ms busy, a ~6 ms);
 *  - "fib" (a SCOPE_BPF_FUNCTION region) 177 times from one fib(10) call,
 *    nested up to 10 deep, the outermost a root;
 *  - "manual" (SCOPE_BPF_BEGIN/END) once, ~2 ms busy;
 *  - "tagged" with tags "io,golden" once.
 * In that order, all on the main thread.
 */
#include "busy.h"
#include "scope_bpf.h"

static int fib(int n)
{
	int a, b;

	SCOPE_BPF_FUNCTION();
	if (n < 2)
		return n;
	a = fib(n - 1);
	b = fib(n - 2);
	return a + b;
}

int main(void)
{
	static volatile int sink;
	int i, j, k;

	for (i = 0; i < 5; i++)
		SCOPE_BPF_REGION("a") {
			for (j = 0; j < 2; j++)
				SCOPE_BPF_REGION("b") {
					for (k = 0; k < 3; k++)
						SCOPE_BPF_REGION("c") {
							busy_ns(1000000);
						}
				}
		}

	sink = fib(10);

	SCOPE_BPF_BEGIN("manual");
	busy_ns(2000000);
	SCOPE_BPF_END("manual");

	SCOPE_BPF_REGION_TAGGED("tagged", "io,golden") {
		sink++;
	}
	return sink == 56 ? 0 : 1;
}
