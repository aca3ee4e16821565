/* Test app whose markers are split between the program and a shared library. */

/*
 * A tracer must see, from two objects (libuser and libsbtest.so):
 * region "app_main" (in libuser) once; inside it, region "lib_compute" (in
 * libsbtest.so) called N times ("libuser [N]", default 50), each with one
 * nested "lib_inner" (~200 us busy).
 */
#include <stdlib.h>

#include "sbtest_lib.h"
#include "scope_bpf.h"

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50;
	int i;

	SCOPE_BPF_REGION("app_main") {
		for (i = 0; i < n; i++)
			sbtest_lib_compute(i);
	}
	return 0;
}
