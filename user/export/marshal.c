/* Python's marshal format, written field by field; every number little-endian. */
#include <string.h>

#include "export/marshal.h"

/* Type codes of Python/marshal.c. */
#define TYPE_NULL '0'
#define TYPE_INT 'i'
#define TYPE_LONG 'l'
#define TYPE_BINARY_FLOAT 'g'
#define TYPE_UNICODE 'u'
#define TYPE_TUPLE '('
#define TYPE_DICT '{'

/* A long's digits hold 15 bits each, least significant first. */
#define LONG_SHIFT 15

static void put_u32(FILE *f, uint32_t v)
{
	unsigned char b[4] = { v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >> 24 };

	fwrite(b, 1, sizeof(b), f);
}

void sb_marshal_dict_begin(FILE *f)
{
	fputc(TYPE_DICT, f);
}

void sb_marshal_dict_end(FILE *f)
{
	fputc(TYPE_NULL, f);
}

void sb_marshal_tuple(FILE *f, uint32_t n)
{
	fputc(TYPE_TUPLE, f);
	put_u32(f, n);
}

void sb_marshal_int(FILE *f, int64_t v)
{
	uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v, m;
	int32_t n = 0;

	if (v >= INT32_MIN && v <= INT32_MAX) {
		fputc(TYPE_INT, f);
		put_u32(f, (uint32_t)(int32_t)v);
		return;
	}
	for (m = mag; m; m >>= LONG_SHIFT)
		n++;
	fputc(TYPE_LONG, f);
	/* The digit count carries the sign. */
	put_u32(f, (uint32_t)(v < 0 ? -n : n));
	for (m = mag; m; m >>= LONG_SHIFT) {
		fputc((int)(m & 0xff), f);
		fputc((int)((m >> 8) & 0x7f), f);
	}
}

void sb_marshal_float(FILE *f, double v)
{
	unsigned char b[8];
	uint64_t bits;
	int i;

	memcpy(&bits, &v, sizeof(bits));
	fputc(TYPE_BINARY_FLOAT, f);
	for (i = 0; i < 8; i++)
		b[i] = (unsigned char)(bits >> (8 * i));
	fwrite(b, 1, sizeof(b), f);
}

void sb_marshal_str(FILE *f, const char *s)
{
	size_t n = strlen(s);

	fputc(TYPE_UNICODE, f);
	put_u32(f, (uint32_t)n);
	fwrite(s, 1, n, f);
}
