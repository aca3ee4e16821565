/*
 * The program both packaging projects build against an installed scope-bpf:
 * "from_header" 3 times (the header's macro), each around one call of a
 * region named at run time through the installed library ("from_library",
 * or argv[1]).
 */
#include <scope_bpf.h>

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "from_library";
	int i;

	for (i = 0; i < 3; i++) {
		SCOPE_BPF_REGION("from_header") {
			scope_bpf_begin_named(name);
			scope_bpf_end_named(name);
		}
	}
	return 0;
}
