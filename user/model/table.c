/* Tables with column roles: row access and the rules every kind's rows obey by role. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/table.h"
#include "util/error.h"

void *sb_table_rows(const struct sb_table *t, const void *d)
{
	return *(void *const *)((const char *)d + t->arr);
}

size_t *sb_table_len(const struct sb_table *t, const void *d)
{
	return (size_t *)((char *)d + t->count);
}

int64_t sb_table_int(const struct sb_table_col *c, const void *rows, size_t stride, size_t i)
{
	const char *at = (const char *)rows + i * stride + c->off;
	uint64_t u64;
	int64_t i64;
	int32_t i32;
	uint32_t u32;

	switch (c->type) {
	case SB_COL_I64:
		memcpy(&i64, at, sizeof(i64));
		return i64;
	case SB_COL_U64:
		memcpy(&u64, at, sizeof(u64));
		return (int64_t)u64;
	case SB_COL_I32:
		memcpy(&i32, at, sizeof(i32));
		return i32;
	case SB_COL_U32:
		memcpy(&u32, at, sizeof(u32));
		return u32;
	case SB_COL_BOOL:
		return *(const bool *)at;
	default:
		return 0;
	}
}

void sb_table_set_int(const struct sb_table_col *c, void *rows, size_t stride, size_t i,
		      int64_t v)
{
	char *at = (char *)rows + i * stride + c->off;
	uint64_t u64 = (uint64_t)v;
	int32_t i32 = (int32_t)v;
	uint32_t u32 = (uint32_t)v;

	switch (c->type) {
	case SB_COL_I64:
		memcpy(at, &v, sizeof(v));
		break;
	case SB_COL_U64:
		memcpy(at, &u64, sizeof(u64));
		break;
	case SB_COL_I32:
		memcpy(at, &i32, sizeof(i32));
		break;
	case SB_COL_U32:
		memcpy(at, &u32, sizeof(u32));
		break;
	case SB_COL_BOOL:
		*(bool *)at = v != 0;
		break;
	default:
		break;
	}
}

/* What the rules compare against, found once per check. */
struct refs {
	const struct sb_profile *p;
	uint32_t ranks;
	uint64_t *keys;		/* the thread table's (rank, row) keys */
	size_t n_keys;
	char *why;
	size_t len;
};

const struct sb_table_col *sb_table_role(const struct sb_table *t, enum sb_col_role role)
{
	size_t i;

	for (i = 0; i < t->n_cols; i++)
		if (t->cols[i].role == role && t->cols[i].width == 1)
			return &t->cols[i];
	return NULL;
}

/* Row i of column c as messages name it: "sample row 3" or "threads[3]". */
static void row_name(char *buf, size_t len, const struct sb_table *t,
		     const struct sb_table_col *c, size_t i)
{
	if (t->row)
		snprintf(buf, len, "%s %zu", t->row, i);
	else
		snprintf(buf, len, "%s%s[%zu]", t->prefix, c->name, i);
}

static int check_row(const struct refs *f, const struct sb_table *t, const void *rows, size_t i)
{
	const struct sb_table_col *rc = sb_table_role(t, SB_ROLE_RANK);
	const struct sb_table_col *tc = sb_table_role(t, SB_ROLE_THREAD);
	int64_t rank = rc ? sb_table_int(rc, rows, t->stride, i) : 0, thread;
	char at[96];

	if (rc && (rank < 0 || rank >= f->ranks)) {
		row_name(at, sizeof(at), t, rc, i);
		return sb_bad(f->why, f->len, "%s: rank %lld out of range (%u ranks)", at,
			      (long long)rank, f->ranks);
	}
	if (!tc)
		return 0;
	thread = sb_table_int(tc, rows, t->stride, i);
	row_name(at, sizeof(at), t, tc, i);
	if (thread < -1 || thread > UINT32_MAX)
		return sb_bad(f->why, f->len, "%s: thread %lld out of range", at,
			      (long long)thread);
	/* Without a thread table (not recorded) there is nothing to point at, nothing to check. */
	if (thread == -1 || !f->p->n_threads)
		return 0;
	if (!sb_thread_keys_have(f->keys, f->n_keys, (uint32_t)rank, (uint64_t)thread))
		return sb_bad(f->why, f->len, "%s: thread %lld is not a thread of rank %u", at,
			      (long long)thread, (uint32_t)rank);
	return 0;
}

int sb_table_check_refs(const struct sb_kind *k, const void *d, const struct sb_profile *p,
			char *why, size_t len)
{
	struct refs f = { .p = p, .ranks = sb_profile_rank_count(p), .why = why, .len = len };
	const struct sb_table *t;
	size_t i, r, n;
	int ret = 0;

	/* Rows without a region call still have their one process: rank 0. */
	if (f.ranks < 1)
		f.ranks = 1;
	if (f.ranks > SB_MAX_RANK)
		f.ranks = SB_MAX_RANK;
	f.keys = sb_profile_thread_keys(p, &f.n_keys);
	if (!f.keys)
		return sb_bad(why, len, "out of memory");
	for (i = 0; i < k->n_tables && !ret; i++) {
		t = &k->tables[i];
		n = *sb_table_len(t, d);
		for (r = 0; r < n && !ret; r++)
			ret = check_row(&f, t, sb_table_rows(t, d), r);
	}
	free(f.keys);
	return ret;
}
