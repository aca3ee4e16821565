/* One error message carried from where a failure is found to the edge that prints it. */
#ifndef SB_ERROR_H
#define SB_ERROR_H

#include <stddef.h>

#define SB_EXIT_USAGE 2	/* usage and input errors */
/* record: the profile was written, but data it was asked for is missing (docs/KERNELS.md) */
#define SB_EXIT_INCOMPLETE 3

struct sb_error {
	char msg[512];
};

/* Format "object: cause" into err (NULL allowed); returns -code so callers can return it. */
int sb_fail(struct sb_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Say why a rule is broken into why[len]; returns -EINVAL for the caller to return. */
int sb_bad(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * strerror(code), and words for the kernel's internal codes that attaching a
 * probe can leak (ENOTSUPP, 524), which libc calls "Unknown error".
 */
const char *sb_strerror(int code);

/* "path: cause" with cause from fmt, as sb_fail(); a long cause is cut so the path stays. */
int sb_fail_at(struct sb_error *err, int code, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* "file:line: cause", for a bad line of a file a user or an admin wrote. */
int sb_fail_line(struct sb_error *err, int code, const char *file, unsigned int line,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
