/* Error message formatting shared by every module. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "util/error.h"

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

int sb_bad(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int sb_fail_at(struct sb_error *err, int code, const char *path, const char *fmt, ...)
{
	char cause[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cause, sizeof(cause), fmt, ap);
	va_end(ap);
	return sb_fail(err, code, "%s: %s", path, cause);
}
