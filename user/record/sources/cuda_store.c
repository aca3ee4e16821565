/* CUDA activity records kept, then attributed and put in the profile (docs/CUDA.md). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "model/cuda.h"
#include "record/fast/site_read.h"
#include "record/sources/cuda_store.h"
#include "region.h"
#include "util/utf8.h"

void sb_cuda_store_init(struct sb_cuda_store *s, size_t max)
{
	memset(s, 0, sizeof(*s));
	s->max = max;
	sb_hashmap_init(&s->name_of);
}

void sb_cuda_store_free(struct sb_cuda_store *s)
{
	size_t i;

	for (i = 0; i < s->n_names; i++)
		free(s->names[i]);
	free(s->names);
	free(s->kept);
	sb_hashmap_free(&s->name_of);
	memset(s, 0, sizeof(*s));
}

/* The name of kernel id in process tgid. */
static int keep_name(struct sb_cuda_store *s, uint32_t tgid, uint32_t id, const char *text)
{
	char **names, *name;
	uint64_t *had;

	if (!id)
		return 0;
	/* The library sends its names again when a tracer attaches late: keep one of each. */
	had = sb_hashmap_get(&s->name_of, tgid, id);
	if (had && !strncmp(s->names[*had], text, SB_CUDA_NAME_MAX))
		return 0;
	names = realloc(s->names, (s->n_names + 1) * sizeof(*names));
	if (!names)
		return -ENOMEM;
	s->names = names;
	name = strndup(text, SB_CUDA_NAME_MAX - 1);
	if (!name)
		return -ENOMEM;
	sb_utf8_sanitize(name);
	s->names[s->n_names] = name;
	/* A later image of the process (exec) numbers its names again: the newest wins. */
	return sb_hashmap_put(&s->name_of, tgid, id, s->n_names++);
}

/*
 * A name the kernel side could not read (a page the process never touched):
 * read here, which faults the page in. One that cannot be read even so (the
 * process is gone) is counted as lost; its kernels go unnamed.
 */
static int read_name(struct sb_cuda_store *s, const struct sb_cuda_name_unread_event *e)
{
	char name[SB_CUDA_NAME_MAX];

	if (sb_read_remote_string((pid_t)e->tgid, e->addr, name, sizeof(name))) {
		s->refused++;
		return 0;
	}
	return keep_name(s, e->tgid, e->id, name);
}

static bool rec_valid(const struct sb_cuda_rec *r)
{
	return r->kind >= SB_CUDA_KERNEL && r->kind <= SB_CUDA_CLOCK &&
	       (r->kind >= SB_CUDA_DROPPED || r->end >= r->start);
}

static int keep_rec(struct sb_cuda_store *s, uint32_t tgid, const struct sb_cuda_rec *r)
{
	struct sb_cuda_kept *k;
	uint64_t *name;

	if (!rec_valid(r) || s->n >= s->max) {
		s->refused++;
		return 0;
	}
	if (r->kind == SB_CUDA_DROPPED) {
		s->dropped += r->bytes;
		return 0;
	}
	if (r->kind == SB_CUDA_CLOCK) {
		s->clock_offset = r->detail == SB_CUDA_CLOCK_OFFSET;
		s->clock_offset_ns = (int64_t)r->bytes;
		return 0;
	}
	if (s->n == s->cap) {
		k = realloc(s->kept, (s->cap ? s->cap * 2 : 256) * sizeof(*k));
		if (!k)
			return -ENOMEM;
		s->kept = k;
		s->cap = s->cap ? s->cap * 2 : 256;
	}
	name = r->name_id ? sb_hashmap_get(&s->name_of, tgid, r->name_id) : NULL;
	s->kept[s->n++] = (struct sb_cuda_kept){ .tgid = tgid, .name = name ? (int64_t)*name : -1,
						 .r = *r };
	return 0;
}

static int keep_batch(struct sb_cuda_store *s, const void *data, size_t size)
{
	size_t head = offsetof(struct sb_cuda_batch_event, recs);
	struct sb_cuda_batch_event e;
	struct sb_cuda_rec r;
	uint32_t i;
	int ret = 0;

	memcpy(&e, data, head);
	if (!e.n || e.n > SB_CUDA_BATCH_MAX || size < head + e.n * sizeof(r)) {
		s->refused++;
		return 0;
	}
	for (i = 0; i < e.n && !ret; i++) {
		memcpy(&r, (const char *)data + head + i * sizeof(r), sizeof(r));
		ret = keep_rec(s, e.tgid, &r);
	}
	return ret;
}

int sb_cuda_store_record(struct sb_cuda_store *s, const void *data, size_t size)
{
	struct sb_cuda_name_unread_event unread;
	struct sb_cuda_name_event name;
	__u32 msg;

	if (size < offsetof(struct sb_cuda_batch_event, recs)) {
		s->refused++;
		return 0;
	}
	memcpy(&msg, (const char *)data + offsetof(struct sb_cuda_batch_event, msg), sizeof(msg));
	if (msg == SB_CUDA_MSG_BATCH)
		return keep_batch(s, data, size);
	if (msg == SB_CUDA_MSG_NAME && size >= sizeof(name)) {
		memcpy(&name, data, sizeof(name));
		name.name[sizeof(name.name) - 1] = 0;
		return keep_name(s, name.tgid, name.id, name.name);
	}
	if (msg == SB_CUDA_MSG_NAME_UNREAD && size >= sizeof(unread)) {
		memcpy(&unread, data, sizeof(unread));
		return read_name(s, &unread);
	}
	s->refused++;
	return 0;
}
