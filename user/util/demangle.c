/* C++ demangling through libstdc++'s __cxa_demangle, the demangler g++ and nvcc names follow. */
#include <stddef.h>
#include <string.h>

#include "util/demangle.h"

/* libstdc++'s, declared in <cxxabi.h>, which is C++ only. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *sb_demangle(const char *mangled)
{
	int status = -1;
	char *s;

	/* Anything else is not a C++ name, and __cxa_demangle would also take a bare type ("i"). */
	if (!mangled || strncmp(mangled, "_Z", 2))
		return NULL;
	s = __cxa_demangle(mangled, NULL, NULL, &status);
	return status == 0 ? s : NULL;
}
