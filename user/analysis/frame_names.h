/* How stack outputs name a function: demangled, and whether it is a marker helper to fold away. */
#ifndef SB_FRAME_NAMES_H
#define SB_FRAME_NAMES_H

#include <stdbool.h>

/*
 * Whether stack outputs demangle C++ and Rust names (on by default): every
 * command that shows function names from stacks turns it off for
 * --no-demangle before it builds anything.
 */
void sb_frame_names_set_demangle(bool on);
bool sb_frame_names_demangle(void);

/*
 * name as a stack output shows it, malloc'd: demangled when demangling is on
 * and name is an Itanium C++ or legacy Rust name ("_ZN...17h<hash>E", whose
 * "::h<hash>" suffix is dropped); else a copy. Rust v0 names ("_R...") stay
 * raw: libstdc++'s demangler does not know them. NULL when out of memory.
 */
char *sb_frame_display_name(const char *name);

/*
 * Whether name (raw or demangled) is one of the markers' own functions: the
 * header's scope_bpf_impl_* helpers, the named-marker library's entry points
 * and the Fortran module's procedures. Stack outputs fold them into their
 * caller.
 */
bool sb_frame_is_marker_helper(const char *name);

#endif
