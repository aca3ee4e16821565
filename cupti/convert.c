/*
 * CUPTI activity records (the structs of CUDA 13's cupti_activity.h) to
 * struct sb_cuda_rec. Only the kinds the library enables are converted.
 */
#include <string.h>

#include "convert.h"

static void from_kernel(const CUpti_ActivityKernel10 *k, struct sb_cuda_rec *r)
{
	r->kind = SB_CUDA_KERNEL;
	r->device = k->deviceId;
	r->context = k->contextId;
	r->stream = k->streamId;
	r->correlation = k->correlationId;
	r->start = k->start;
	r->end = k->end;
	r->grid[0] = k->gridX;
	r->grid[1] = k->gridY;
	r->grid[2] = k->gridZ;
	r->block[0] = k->blockX;
	r->block[1] = k->blockY;
	r->block[2] = k->blockZ;
}

static void from_memcpy(const CUpti_ActivityMemcpy6 *m, struct sb_cuda_rec *r)
{
	r->kind = SB_CUDA_MEMCPY;
	r->copy_kind = m->copyKind;
	r->device = m->deviceId;
	r->context = m->contextId;
	r->stream = m->streamId;
	r->correlation = m->correlationId;
	r->start = m->start;
	r->end = m->end;
	r->bytes = m->bytes;
}

static void from_memset(const CUpti_ActivityMemset4 *m, struct sb_cuda_rec *r)
{
	r->kind = SB_CUDA_MEMSET;
	r->detail = m->value;
	r->device = m->deviceId;
	r->context = m->contextId;
	r->stream = m->streamId;
	r->correlation = m->correlationId;
	r->start = m->start;
	r->end = m->end;
	r->bytes = m->bytes;
}

static void from_api(const CUpti_ActivityAPI *a, __u16 kind, struct sb_cuda_rec *r)
{
	r->kind = kind;
	r->detail = a->cbid;
	r->tid = a->threadId;
	r->correlation = a->correlationId;
	r->start = a->start;
	r->end = a->end;
}

static void from_sync(const CUpti_ActivitySynchronization2 *s, struct sb_cuda_rec *r)
{
	r->kind = SB_CUDA_SYNC;
	r->detail = s->type;
	r->context = s->contextId;
	r->stream = s->streamId;
	r->correlation = s->correlationId;
	r->start = s->start;
	r->end = s->end;
}

bool sb_cuda_convert(const CUpti_Activity *act, struct sb_cuda_rec *out)
{
	memset(out, 0, sizeof(*out));
	switch (act->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		from_kernel((const CUpti_ActivityKernel10 *)act, out);
		return true;
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		from_memcpy((const CUpti_ActivityMemcpy6 *)act, out);
		return true;
	case CUPTI_ACTIVITY_KIND_MEMSET:
		from_memset((const CUpti_ActivityMemset4 *)act, out);
		return true;
	case CUPTI_ACTIVITY_KIND_RUNTIME:
		from_api((const CUpti_ActivityAPI *)act, SB_CUDA_RUNTIME, out);
		return true;
	case CUPTI_ACTIVITY_KIND_DRIVER:
		from_api((const CUpti_ActivityAPI *)act, SB_CUDA_DRIVER, out);
		return true;
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		from_sync((const CUpti_ActivitySynchronization2 *)act, out);
		return true;
	default:
		return false;
	}
}

void sb_cuda_conv_init(struct sb_cuda_conv *c, const struct sb_cuda_sink *sink)
{
	memset(c, 0, sizeof(*c));
	c->sink = *sink;
}

void sb_cuda_conv_set_offset(struct sb_cuda_conv *c, __s64 offset_ns)
{
	c->clock_offset = offset_ns;
	c->clock_mode = SB_CUDA_CLOCK_OFFSET;
}

void sb_cuda_conv_resend_names(struct sb_cuda_conv *c)
{
	size_t i;

	for (i = 0; i < c->names.cap; i++)
		if (c->names.slots[i].name)
			c->sink.name(c->sink.ctx, c->names.slots[i].id, c->names.slots[i].name);
}

void sb_cuda_conv_free(struct sb_cuda_conv *c)
{
	sb_cuda_names_free(&c->names);
}

static void flush(struct sb_cuda_conv *c)
{
	if (c->n)
		c->sink.batch(c->sink.ctx, c->batch, c->n);
	c->n = 0;
}

/* The name leaves before the batch holding its first use. */
static void name_kernel(struct sb_cuda_conv *c, const char *name, struct sb_cuda_rec *r)
{
	bool is_new;

	r->name_id = name ? sb_cuda_names_id(&c->names, name, &is_new) : 0;
	if (!r->name_id)
		c->stats.unnamed++;
	else if (is_new)
		c->sink.name(c->sink.ctx, r->name_id, name);
}

static struct sb_cuda_rec *next_slot(struct sb_cuda_conv *c)
{
	if (c->n == SB_CUDA_BATCH_MAX)
		flush(c);
	return &c->batch[c->n];
}

/* With an offset, the first record of all says so (else CUPTI's times are CLOCK_MONOTONIC). */
static void send_clock(struct sb_cuda_conv *c)
{
	struct sb_cuda_rec *r = next_slot(c);

	memset(r, 0, sizeof(*r));
	r->kind = SB_CUDA_CLOCK;
	r->detail = c->clock_mode;
	r->bytes = (__u64)c->clock_offset;
	c->n++;
	c->clock_sent = true;
}

void sb_cuda_conv_buffer(struct sb_cuda_conv *c, const CUpti_Activity *const *acts, size_t n,
			 __u32 context, __u32 stream, size_t dropped)
{
	if (c->clock_mode == SB_CUDA_CLOCK_OFFSET && !c->clock_sent)
		send_clock(c);
	for (size_t i = 0; i < n; i++) {
		struct sb_cuda_rec *r = next_slot(c);

		if (!sb_cuda_convert(acts[i], r)) {
			c->stats.skipped++;
			continue;
		}
		r->start += (__u64)c->clock_offset;
		r->end += (__u64)c->clock_offset;
		if (r->kind == SB_CUDA_KERNEL)
			name_kernel(c, ((const CUpti_ActivityKernel10 *)acts[i])->name, r);
		c->n++;
		c->stats.records++;
	}
	if (dropped) {
		struct sb_cuda_rec *r = next_slot(c);

		memset(r, 0, sizeof(*r));
		r->kind = SB_CUDA_DROPPED;
		r->context = context;
		r->stream = stream;
		r->bytes = dropped;
		c->n++;
		c->stats.dropped += dropped;
	}
	flush(c);
}
