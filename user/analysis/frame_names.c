/* Function names for stack outputs: demangled through the toolchain's runtime, marker helpers recognised. */
#include <stdlib.h>
#include <string.h>

#include "analysis/frame_names.h"
#include "util/demangle.h"

static bool demangle = true;

void sb_frame_names_set_demangle(bool on)
{
	demangle = on;
}

bool sb_frame_names_demangle(void)
{
	return demangle;
}

/* A legacy Rust name ends in "::h" and 16 hex digits, the crate hash users never type. */
static void strip_rust_hash(char *s)
{
	size_t n = strlen(s), i;

	if (n < 19 || strncmp(s + n - 19, "::h", 3))
		return;
	for (i = n - 16; i < n; i++)
		if (!strchr("0123456789abcdef", s[i]))
			return;
	s[n - 19] = '\0';
}

char *sb_frame_display_name(const char *name)
{
	char *s = demangle ? sb_demangle(name) : NULL;

	if (!s)
		return strdup(name);
	strip_rust_hash(s);
	return s;
}

bool sb_frame_is_marker_helper(const char *name)
{
	/* "__scope_bpf_MOD_": gfortran's names of the Fortran module's procedures. */
	static const char *const entry[] = { "scope_bpf_begin_named", "scope_bpf_end_named",
					     "scope_bpf_begin_named_n", "scope_bpf_end_named_n",
					     "scope_bpf_impl_", "__scope_bpf_MOD_" };
	size_t i, n;

	for (i = 0; i < sizeof(entry) / sizeof(entry[0]); i++) {
		n = strlen(entry[i]);
		/* The prefix entry ends in "_"; the others are whole names. */
		if (!strncmp(name, entry[i], n) && (entry[i][n - 1] == '_' || !name[n]))
			return true;
	}
	return false;
}
