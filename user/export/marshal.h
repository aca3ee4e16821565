/*
 * Python's marshal format, the part a pstats file needs: dicts, tuples,
 * integers, floats and strings, as marshal.load() reads them (version 2 on).
 */
#ifndef SB_MARSHAL_H
#define SB_MARSHAL_H

#include <stdint.h>
#include <stdio.h>

/* A dict: its keys and values follow, one after the other, then sb_marshal_dict_end. */
void sb_marshal_dict_begin(FILE *f);
void sb_marshal_dict_end(FILE *f);

/* A tuple of n items: the n values follow. */
void sb_marshal_tuple(FILE *f, uint32_t n);

/* An int: 32 bits where it fits, else a long of 15-bit digits. */
void sb_marshal_int(FILE *f, int64_t v);

/* A float as its 8 bytes (IEEE 754, little-endian). */
void sb_marshal_float(FILE *f, double v);

/* A str from UTF-8 text, which must be valid: marshal.load() refuses anything else. */
void sb_marshal_str(FILE *f, const char *s);

#endif
