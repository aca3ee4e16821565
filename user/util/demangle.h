/* C++ symbol names made readable (kernel names as CUPTI reports them). */
#ifndef SB_DEMANGLE_H
#define SB_DEMANGLE_H

/*
 * The demangled form of an Itanium C++ ABI name ("_Z..."), malloc'd; NULL
 * when mangled is not such a name (C and extern "C" names, CUDA's plain
 * kernel names) or memory runs out: the caller then shows mangled as it is.
 */
char *sb_demangle(const char *mangled);

#endif
