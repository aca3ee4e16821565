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

/* A REGION column's values as rows of the profile's index rows, not of a table of the kind. */
#define SB_REF_INDEX_ROWS (-1)


struct sb_table_col {
	const char *name;	/* its dataset under the table's group */
	enum sb_col_type type;
	unsigned width;		/* values a row: 1 a column, more an (N, width) table */
	enum sb_col_role role;
	const char *unit;	/* "ns", "B", "" */
	size_t off;		/* of the field (its first value) in the row struct */
	/*
	 * ID and REGION columns: the table of the kind (its index in the kind's
	 * tables) whose rows the values are, or SB_REF_INDEX_ROWS. -1 is no row,
	 * in these columns as in TIME columns (no time).
	 */
	int ref;
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
	/* A dictionary (kernel names): one STR column whose rows a merge keeps once a value. */
	bool unique;
	/*
	 * Whether a row that points at an index row is part of its call (GPU work:
	 * its time is the call's), so that it goes where the call goes; NULL: no
	 * row is, a filtered-out call only leaves them pointing at no call.
	 */
	bool (*follows_call)(const void *row);
};

/*
 * A kind: where a profile holds it, its group in the file, its tables in the
 * order they are written and read, and the rules beyond the roles. Adding a
 * kind is its model header, its description (model/NAME_table.c) and one
 * entry in model/data_kinds.c: HDF5, the reader's pipe, freeing, merge and
 * the filters then carry it (docs/DESIGN.md, "Kinds of data").
 */
struct sb_kind {
	const char *group;	/* "scope_bpf/cuda" */
	const char *what;	/* "CUDA activity", in messages */
	const char *sep;	/* between the group and a broken rule in read errors */
	size_t in_profile;	/* offsetof its struct in struct sb_profile */
	size_t gate;		/* offsetof the length (size_t) that says it was recorded */
	const struct sb_table *tables;
	size_t n_tables;
	uint64_t max_rows;	/* no column may declare more rows */
	/* Its own rules, after the roles': 0, or -EINVAL with the broken rule in why. */
	int (*check)(const struct sb_profile *p, char *why, size_t len);
	/* The rows back in the file's order once a merge appended every input's; NULL: any. */
	void (*sort)(void *d);
};

/* Every kind, in file order (model/data_kinds.c). */
extern const struct sb_kind *const sb_kinds[];
extern const size_t sb_n_kinds;

/* Kind k's data in p. */
void *sb_kind_data(const struct sb_kind *k, const struct sb_profile *p);

/* Whether p holds rows of kind k (its gate length is not 0). */
bool sb_kind_recorded(const struct sb_kind *k, const struct sb_profile *p);

/* Kind k's data d freed by its description: every table's strings and rows; d is left empty. */
void sb_kind_free(const struct sb_kind *k, void *d);

/* Kind k's rules, by role and its own, in p: 0, or -EINVAL with the broken rule in why. */
int sb_kind_check(const struct sb_kind *k, const struct sb_profile *p, char *why, size_t len);
/* The same for every kind. */
int sb_kinds_check(const struct sb_profile *p, char *why, size_t len);

#define SB_COL(n, t, w, role, unit, type, f) { n, t, w, role, unit, offsetof(type, f), 0 }
/* An ID or REGION column: its values are rows of table ref (or SB_REF_INDEX_ROWS). */
#define SB_COL_REF(n, t, role, ref, type, f) { n, t, 1, role, "", offsetof(type, f), ref }
#define SB_TABLE(prefix, cols, row, kind, a, n, opt, says)                                     \
	{ prefix, cols, sizeof(cols) / sizeof((cols)[0]), sizeof(row), offsetof(kind, a),       \
	  offsetof(kind, n), opt, says, false, NULL }
/* A table whose rows follow_call says which go with the index row they point at. */
#define SB_TABLE_CALLS(cols, row, kind, a, n, follows)                                        \
	{ "", cols, sizeof(cols) / sizeof((cols)[0]), sizeof(row), offsetof(kind, a),           \
	  offsetof(kind, n), false, NULL, false, follows }
/* A dictionary table (unique): its rows are the values of its one STR column. */
#define SB_DICT(prefix, cols, kind, a, n)                                                      \
	{ prefix, cols, sizeof(cols) / sizeof((cols)[0]), sizeof(char *), offsetof(kind, a),    \
	  offsetof(kind, n), false, NULL, true, NULL }

/* The row array of table t in the kind's data d, and its length. */
void *sb_table_rows(const struct sb_table *t, const void *d);
size_t *sb_table_len(const struct sb_table *t, const void *d);

/* Table t's first 1-D column of role role, or NULL when it has none. */
const struct sb_table_col *sb_table_role(const struct sb_table *t, enum sb_col_role role);

/* Integer column c of row i of rows, widened to int64 (a uint64 above INT64_MAX wraps). */
int64_t sb_table_int(const struct sb_table_col *c, const void *rows, size_t stride, size_t i);
/* Store v in integer column c of row i, narrowed to the column's type. */
void sb_table_set_int(const struct sb_table_col *c, void *rows, size_t stride, size_t i,
		      int64_t v);

/*
 * The rules every kind's rows obey by role, in the profile they belong to:
 * a rank below its rank count (at least one), a thread -1 or one of its
 * rank's threads (when the profile has a thread table). 0, or -EINVAL with
 * the row and the cause in why.
 */
int sb_table_check_refs(const struct sb_kind *k, const void *d, const struct sb_profile *p,
			char *why, size_t len);

#endif
