/* Error message formatting shared by every module. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

/* The kernel's ENOTSUPP: a uprobe on an instruction it cannot single-step or emulate. */
#define KERNEL_ENOTSUPP 524

const char *sb_strerror(int code)
{
	if (code == KERNEL_ENOTSUPP)
		return "the kernel cannot probe the instruction there";
	return strerror(code);
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

int sb_fail_line(struct sb_error *err, int code, const char *file, unsigned int line,
		 const char *fmt, ...)
{
	char cause[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cause, sizeof(cause), fmt, ap);
	va_end(ap);
	return sb_fail(err, code, "%s:%u: %s", file, line, cause);
}
