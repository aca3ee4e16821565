/* Error message formatting shared by every module. */
#include <stdarg.h>
#include <stdio.h>

#include "error.h"

int sb_fail(struct sb_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return code > 0 ? -code : code;
}
