/* A name built to attack a terminal, and the check that a text printer showed it inert. */
#ifndef SB_TEST_INERT_TEXT_H
#define SB_TEST_INERT_TEXT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "util/utf8.h"

/*
 * ESC [6n (the terminal answers by typing into the shell), CR and LF (a forged
 * row), BEL, DEL, a raw 0x9b (CSI on an 8-bit terminal), U+009B (CSI as UTF-8)
 * and a byte that is not UTF-8; then the same as the printers show it.
 */
#define HOSTILE "a\x1b[6n\rb\nc\x07" "d\x7f\x9b" "e\xc2\x9b" "f\xff"
#define HOSTILE_SHOWN "a\\x1b[6n\\rb\\nc\\x07d\\x7f\\x9be\\u009bf\\xff"
/* Text that must stay as it is. */
#define GENTLE "caf\xc3\xa9 \xe6\xbc\xa2\xe5\xad\x97"

/*
 * text holds no control character but LF, no C1 and only valid UTF-8. On
 * failure only the offset is shown: the text itself would attack the log.
 */
static inline void expect_inert(const char *text)
{
	const unsigned char *u = (const unsigned char *)text;
	size_t n;

	for (; *u; u += n) {
		n = sb_utf8_seq(u);
		if (!n || (n == 1 && ((*u < 0x20 && *u != '\n') || *u == 0x7f)) ||
		    (n == 2 && u[0] == 0xc2 && u[1] < 0xa0))
			fail_msg("byte 0x%02x at offset %zu would reach the terminal", *u,
				 (size_t)(u - (const unsigned char *)text));
	}
}

static inline size_t count_lines(const char *text)
{
	size_t n = 0;

	for (; (text = strchr(text, '\n')); text++)
		n++;
	return n;
}

#endif
