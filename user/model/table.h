/*
 * A kind of data described as tables of columns with roles (docs/DESIGN.md,
 * "Adding a kind of data"): what each column is stored as, what it means
 * (time, rank, thread, call id, region, value) and in which unit. Stages
 * that handle any kind (HDF5 writing and reading, the rules every row obeys)
 * work from this description alone, by role.
 */
#ifndef SB_TABLE_H
#define SB_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sb_profile;

/* How a column's values are held: int64_t, uint64_t, ... in memory; little-endian in files. */
enum sb_col_type {
	SB_COL_I64,
	SB_COL_U64,
	SB_COL_I32,
	SB_COL_U32,
	SB_COL_BOOL,	/* a bool in memory, an int8 0 or 1 in files */
	SB_COL_STR,	/* a char * in memory, a variable-length UTF-8 string in files */
};

/* What a column's values mean to stages that handle every kind. */
enum sb_col_role {
	SB_ROLE_VALUE,		/* a measurement or attribute of the row's own, in unit */
	SB_ROLE_TIME,		/* ns on the recording's clock */
	SB_ROLE_RANK,		/* the rank the row belongs to: below the profile's rank count */
	SB_ROLE_THREAD,		/* a row of the rank's threads, -1 unknown */
	SB_ROLE_CALL_ID,	/* a region call of the rank, -1 none */
	SB_ROLE_REGION,		/* where in the regions the row is: an index row or region path */
	SB_ROLE_ID,		/* a row of another table of the kind */
};

struct sb_table_col {
	const char *name;	/* its dataset under the table's group */
	enum sb_col_type type;
	unsigned width;		/* values a row: 1 a column, more an (N, width) table */
	enum sb_col_role role;
	const char *unit;	/* "ns", "B", "" */
	size_t off;		/* of the field (its first value) in the row struct */
};

/* One table: columns of equal length over one array of row structs. */
struct sb_table {
	const char *prefix;	/* under the kind's group: "frames/", or "" */
	const struct sb_table_col *cols;
	size_t n_cols;
	size_t stride;		/* the row struct's size */
	size_t arr;		/* offsetof the row array pointer in the kind's struct */
	size_t count;		/* offsetof its length (size_t) */
	bool optional;		/* absent when empty, and from files that do not have it */
	/* Messages name a row as "<row> <i>" ("sample row 3"); NULL: "<prefix><column>[i]". */
	const char *row;
};

/* A kind: its group in the file and its tables, in the order they are written and read. */
struct sb_kind {
	const char *group;	/* "scope_bpf/cuda" */
	const char *what;	/* "CUDA activity", in messages */
	const struct sb_table *tables;
	size_t n_tables;
	uint64_t max_rows;	/* no column may declare more rows */
};

#define SB_COL(n, t, w, role, unit, type, f) { n, t, w, role, unit, offsetof(type, f) }
#define SB_TABLE(prefix, cols, row, kind, a, n, opt, says)                                     \
	{ prefix, cols, sizeof(cols) / sizeof((cols)[0]), sizeof(row), offsetof(kind, a),       \
	  offsetof(kind, n), opt, says }

/* The row array of table t in the kind's data d, and its length. */
void *sb_table_rows(const struct sb_table *t, const void *d);
size_t *sb_table_len(const struct sb_table *t, const void *d);

/* Integer column c of row i of rows, widened to int64 (a uint64 above INT64_MAX wraps). */
int64_t sb_table_int(const struct sb_table_col *c, const void *rows, size_t stride, size_t i);

/*
 * The rules every kind's rows obey by role, in the profile they belong to:
 * a rank below its rank count (at least one), a thread -1 or one of its
 * rank's threads (when the profile has a thread table). 0, or -EINVAL with
 * the row and the cause in why.
 */
int sb_table_check_refs(const struct sb_kind *k, const void *d, const struct sb_profile *p,
			char *why, size_t len);

#endif
