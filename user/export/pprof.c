/* pprof's profile.proto, gzipped: the CPU and off-CPU samples with the region path as outermost frames. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "analysis/samples_report.h"
#include "export/proto_export.h"
#include "proto/profile.pb-c.h"

/*
 * Location ids: frame i is i + 1, "[no stack]" n_frames + 1, region path
 * node j n_frames + 2 + j. Function ids: function name id k (struct
 * sb_fnames, "[no stack]" included) is k + 1, path node j n_names + 1 + j.
 */
struct pp {
	const struct sb_profile *p;
	const struct sb_samples *s;
	struct sb_fnames fn;
	Perftools__Profiles__Profile prof;
	char **strs;		/* the string table: pointers into p, fn or literals */
	size_t cap;
	/* storage the profile's pointer arrays point into */
	Perftools__Profiles__ValueType types[2], period;
	Perftools__Profiles__Mapping *maps;
	Perftools__Profiles__Location *locs;
	Perftools__Profiles__Line *lines;
	Perftools__Profiles__Function *funcs;
	Perftools__Profiles__Sample *samples;
	Perftools__Profiles__Label *labels;
	uint64_t *loc_ids;
	int64_t *values;
	uint64_t *frame_map;	/* frame -> mapping id */
	bool kinds[2];		/* sample kinds present, by enum sb_sample_kind */
};

/* s's index in the string table (appended: pprof does not ask for them to be unique); -1 OOM. */
static int64_t str(struct pp *x, const char *s)
{
	char **v;

	if (!s || !*s)
		return 0;
	if (x->prof.n_string_table == x->cap) {
		x->cap = x->cap ? x->cap * 2 : 64;
		v = realloc(x->strs, x->cap * sizeof(*v));
		if (!v)
			return -1;
		x->strs = v;
		x->prof.string_table = v;
	}
	x->strs[x->prof.n_string_table] = (char *)s;
	return (int64_t)x->prof.n_string_table++;
}

static void *alloc_ptrs(void *items, size_t size, size_t n)
{
	void **v = malloc((n ? n : 1) * sizeof(*v));
	size_t i;

	for (i = 0; v && i < n; i++)
		v[i] = (char *)items + i * size;
	return v;
}

static bool row_counts(const struct sb_sample *r)
{
	return r->kind == SB_SAMPLE_CPU ? r->count > 0 : r->kind == SB_SAMPLE_OFFCPU && r->ns > 0;
}

static int sample_types(struct pp *x)
{
	static const char *const names[2][2] = { { "samples", "count" },
						 { "off-CPU", "nanoseconds" } };
	const struct sb_meta *hz = sb_profile_meta(x->p, "sample_frequency_hz");
	unsigned k, n = 0;

	for (k = 0; k < 2; k++) {
		if (!x->kinds[k])
			continue;
		x->types[n] = (Perftools__Profiles__ValueType)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
		x->types[n].type = str(x, names[k][0]);
		x->types[n++].unit = str(x, names[k][1]);
	}
	x->prof.n_sample_type = n;
	x->prof.sample_type = alloc_ptrs(x->types, sizeof(x->types[0]), n);
	if (x->kinds[SB_SAMPLE_CPU] && hz && hz->is_int && hz->i > 0) {
		/* One CPU sample stands for a period of CPU time. */
		x->period = (Perftools__Profiles__ValueType)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
		x->period.type = str(x, "cpu");
		x->period.unit = str(x, "nanoseconds");
		x->prof.period_type = &x->period;
		x->prof.period = 1000000000 / hz->i;
	}
	return x->prof.sample_type ? 0 : -ENOMEM;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* "libc.so.6", "ld-linux-x86-64.so.2", "[kernel]": not a program a process runs. */
static bool library_like(const char *module)
{
	const char *b = base_name(module), *so;

	if (!b[0] || b[0] == '[')
		return true;
	for (so = strstr(b, ".so"); so; so = strstr(so + 1, ".so"))
		if (so[3] == '\0' || so[3] == '.')
			return true;
	return false;
}

/* Whether module is a process's argv[0]: its command's first word, by file name. */
static bool runs_as_command(const struct sb_profile *p, const char *module)
{
	const char *name = base_name(module), *cmd, *word;
	size_t i, len, n = strlen(name);

	for (i = 0; i < p->n_processes; i++) {
		cmd = p->processes[i].command;
		if (!cmd)
			continue;
		len = strcspn(cmd, " ");
		for (word = cmd + len; word > cmd && word[-1] != '/'; word--)
			;
		if ((size_t)(cmd + len - word) == n && !strncmp(name, word, n))
			return true;
	}
	return false;
}

/*
 * pprof takes the first mapping for the program (its "File:" line, the
 * binary it symbolizes against): a process's argv[0], else the first module
 * not named as a library. Frame order alone may put ld.so first.
 */
static size_t main_mapping(const struct pp *x, size_t n)
{
	size_t j, first = n;
	const char *name;

	for (j = 0; j < n; j++) {
		name = x->strs[x->maps[j].filename];
		if (library_like(name))
			continue;
		if (runs_as_command(x->p, name))
			return j;
		if (first == n)
			first = j;
	}
	return first == n ? 0 : first;
}

/* Mapping k becomes the first (id 1), the ones before it move up by one. */
static void move_first(struct pp *x, size_t k)
{
	Perftools__Profiles__Mapping m = x->maps[k];
	uint64_t old;
	size_t i;

	memmove(&x->maps[1], &x->maps[0], k * sizeof(*x->maps));
	x->maps[0] = m;
	for (i = 0; i <= k; i++)
		x->maps[i].id = i + 1;
	for (i = 0; i < x->s->n_frames; i++) {
		old = x->frame_map[i];	/* 0: no mapping */
		if (old && old <= k + 1)
			x->frame_map[i] = old == k + 1 ? 1 : old + 1;
	}
}

/* One mapping per module, the program's first; frame_map gives each frame's. */
static int mappings(struct pp *x)
{
	size_t i, j, n = 0;

	x->maps = calloc(x->s->n_frames ? x->s->n_frames : 1, sizeof(*x->maps));
	x->frame_map = calloc(x->s->n_frames ? x->s->n_frames : 1, sizeof(*x->frame_map));
	if (!x->maps || !x->frame_map)
		return -ENOMEM;
	for (i = 0; i < x->s->n_frames; i++) {
		for (j = 0; j < n; j++)
			if (!strcmp(x->strs[x->maps[j].filename], x->s->frames[i].module))
				break;
		if (j == n) {
			if (!x->s->frames[i].module[0])
				continue;	/* no module: no mapping */
			x->maps[n] = (Perftools__Profiles__Mapping)PERFTOOLS__PROFILES__MAPPING__INIT;
			x->maps[n].id = n + 1;
			x->maps[n].filename = str(x, x->s->frames[i].module);
			x->maps[n].has_functions = true;
			if (x->maps[n++].filename < 0)
				return -ENOMEM;
		}
		x->frame_map[i] = j + 1;
	}
	if (n)
		move_first(x, main_mapping(x, n));
	x->prof.n_mapping = n;
	x->prof.mapping = alloc_ptrs(x->maps, sizeof(*x->maps), n);
	return x->prof.mapping ? 0 : -ENOMEM;
}

static void set_function(Perftools__Profiles__Function *f, uint64_t id, int64_t name,
			 int64_t file, int64_t line)
{
	*f = (Perftools__Profiles__Function)PERFTOOLS__PROFILES__FUNCTION__INIT;
	f->id = id;
	f->name = f->system_name = name;
	f->filename = file;
	f->start_line = line > 0 ? line : 0;
}

/* A function per function name, then per region path node (with its region's source). */
static int functions(struct pp *x)
{
	size_t n_names = x->fn.n_real + 1, i, k;
	const struct sb_region *r;
	ssize_t reg;

	x->funcs = calloc(n_names + x->s->n_paths, sizeof(*x->funcs));
	if (!x->funcs)
		return -ENOMEM;
	for (k = 0; k < n_names; k++)
		set_function(&x->funcs[k], k + 1, str(x, x->fn.names[k]), 0, 0);
	/* The file of a function's first frame that names one. */
	for (i = 0; i < x->s->n_frames; i++) {
		k = x->fn.of_frame[i];
		if (!x->funcs[k].filename)
			x->funcs[k].filename = str(x, x->s->frames[i].file);
	}
	for (i = 0; i < x->s->n_paths; i++) {
		reg = sb_profile_find_region(x->p, x->s->paths[i].name);
		r = reg >= 0 ? &x->p->regions[reg] : NULL;
		set_function(&x->funcs[n_names + i], n_names + 1 + i, str(x, x->s->paths[i].name),
			     r ? str(x, r->source_file) : 0, r ? r->source_line : 0);
	}
	for (k = 0; k < n_names + x->s->n_paths; k++)
		if (x->funcs[k].name < 0 || x->funcs[k].filename < 0)
			return -ENOMEM;
	x->prof.n_function = n_names + x->s->n_paths;
	x->prof.function = alloc_ptrs(x->funcs, sizeof(*x->funcs), x->prof.n_function);
	return x->prof.function ? 0 : -ENOMEM;
}

/* A location of one line per frame, "[no stack]" and region path node. */
static int locations(struct pp *x)
{
	size_t n_frames = x->s->n_frames, n = n_frames + 1 + x->s->n_paths, i;
	Perftools__Profiles__Location *l;
	Perftools__Profiles__Line *ln;

	x->locs = calloc(n, sizeof(*x->locs));
	x->lines = calloc(n, sizeof(*x->lines));
	if (!x->locs || !x->lines)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		l = &x->locs[i];
		ln = &x->lines[i];
		*l = (Perftools__Profiles__Location)PERFTOOLS__PROFILES__LOCATION__INIT;
		*ln = (Perftools__Profiles__Line)PERFTOOLS__PROFILES__LINE__INIT;
		l->id = i + 1;
		l->n_line = 1;
		l->line = malloc(sizeof(*l->line));
		if (!l->line)
			return -ENOMEM;
		l->line[0] = ln;
		if (i < n_frames) {
			l->mapping_id = x->frame_map[i];
			l->address = x->s->frames[i].offset;
			ln->function_id = x->fn.of_frame[i] + 1;
			ln->line = x->s->frames[i].line > 0 ? x->s->frames[i].line : 0;
		} else if (i == n_frames) {
			ln->function_id = x->fn.n_real + 1;
		} else {
			ln->function_id = x->fn.n_real + 2 + (i - n_frames - 1);
		}
	}
	x->prof.n_location = n;
	x->prof.location = alloc_ptrs(x->locs, sizeof(*x->locs), n);
	return x->prof.location ? 0 : -ENOMEM;
}

static size_t stack_depth(const struct sb_samples *s, int64_t stack)
{
	return stack >= 0 && (size_t)stack < s->n_stacks ? s->stacks[stack].depth : 0;
}

/*
 * Leaf first: kernel frames, user frames, then the region path from the
 * innermost region out. The markers' helper frames are left out: their time
 * is their caller's.
 */
static size_t sample_locations(const struct pp *x, const struct sb_sample *r, uint64_t *out)
{
	const struct sb_samples *s = x->s;
	int64_t stacks[2] = { r->kstack, r->ustack }, path;
	size_t n = 0, k, d;
	uint32_t frame;

	for (k = 0; k < 2; k++)
		for (d = 0; d < stack_depth(s, stacks[k]); d++) {
			frame = s->stack_frames[s->stacks[stacks[k]].first + d];
			if (!x->fn.helper[x->fn.of_frame[frame]])
				out[n++] = frame + 1;
		}
	if (!n)
		out[n++] = s->n_frames + 1;
	for (path = r->path; path >= 0 && (size_t)path < s->n_paths; path = s->paths[path].parent)
		out[n++] = s->n_frames + 2 + (uint64_t)path;
	return n;
}

static size_t path_depth(const struct sb_samples *s, int64_t path)
{
	size_t n = 0;

	for (; path >= 0 && (size_t)path < s->n_paths; path = s->paths[path].parent)
		n++;
	return n;
}

/* Space for every row's location ids, values and labels. */
static int sample_space(struct pp *x, size_t *n_rows)
{
	const struct sb_sample *r;
	size_t i, ids = 0;

	*n_rows = 0;
	for (i = 0; i < x->s->n_samples; i++) {
		r = &x->s->samples[i];
		if (!row_counts(r))
			continue;
		(*n_rows)++;
		ids += stack_depth(x->s, r->kstack) + stack_depth(x->s, r->ustack) + 1 +
		       path_depth(x->s, r->path);
	}
	x->samples = calloc(*n_rows ? *n_rows : 1, sizeof(*x->samples));
	x->labels = calloc(*n_rows ? 2 * *n_rows : 1, sizeof(*x->labels));
	x->loc_ids = calloc(ids ? ids : 1, sizeof(*x->loc_ids));
	x->values = calloc(*n_rows ? 2 * *n_rows : 1, sizeof(*x->values));
	return x->samples && x->labels && x->loc_ids && x->values ? 0 : -ENOMEM;
}

/*
 * Labels rank and thread (keys: their string indexes), for pprof -tagfocus
 * and -tagshow. Numbers with a unit, the key's own name, as pprof assumes
 * for a key without one: pprof drops a label whose num and unit are both
 * 0 (proto3 writes neither), which was every label of rank 0 or thread 0.
 */
static int sample_labels(Perftools__Profiles__Sample *sm, Perftools__Profiles__Label *lb,
			 const int64_t keys[2], const struct sb_sample *r)
{
	int64_t values[2] = { r->rank, r->thread };
	unsigned k;

	for (k = 0; k < 2; k++) {
		lb[k] = (Perftools__Profiles__Label)PERFTOOLS__PROFILES__LABEL__INIT;
		lb[k].key = keys[k];
		lb[k].num = values[k];
		lb[k].num_unit = keys[k];
	}
	sm->n_label = r->thread >= 0 ? 2 : 1;
	sm->label = malloc(2 * sizeof(*sm->label));
	if (!sm->label)
		return -ENOMEM;
	sm->label[0] = &lb[0];
	sm->label[1] = &lb[1];
	return 0;
}

static int samples(struct pp *x)
{
	unsigned n_types = (unsigned)x->prof.n_sample_type;
	size_t n_rows, i, at = 0, row = 0;
	Perftools__Profiles__Sample *sm;
	const struct sb_sample *r;
	int64_t keys[2] = { str(x, "rank"), str(x, "thread") };
	int ret = keys[0] < 0 || keys[1] < 0 ? -ENOMEM : sample_space(x, &n_rows);

	for (i = 0; i < x->s->n_samples && !ret; i++) {
		r = &x->s->samples[i];
		if (!row_counts(r))
			continue;
		sm = &x->samples[row];
		*sm = (Perftools__Profiles__Sample)PERFTOOLS__PROFILES__SAMPLE__INIT;
		sm->location_id = &x->loc_ids[at];
		sm->n_location_id = sample_locations(x, r, sm->location_id);
		at += sm->n_location_id;
		/* CPU first when both kinds are there, as sample_types lists them. */
		sm->n_value = n_types;
		sm->value = &x->values[row * 2];
		sm->value[r->kind == SB_SAMPLE_OFFCPU && n_types == 2] =
			(int64_t)(r->kind == SB_SAMPLE_CPU ? r->count : r->ns);
		ret = sample_labels(sm, &x->labels[row * 2], keys, r);
		row++;
	}
	x->prof.n_sample = row;
	x->prof.sample = ret ? NULL : alloc_ptrs(x->samples, sizeof(*x->samples), row);
	return ret ? ret : x->prof.sample ? 0 : -ENOMEM;
}

static void pp_free(struct pp *x)
{
	size_t i;

	for (i = 0; x->locs && i < x->prof.n_location; i++)
		free(x->locs[i].line);
	for (i = 0; x->samples && i < x->prof.n_sample; i++)
		free(x->samples[i].label);
	free(x->prof.sample_type);
	free(x->prof.mapping);
	free(x->prof.location);
	free(x->prof.function);
	free(x->prof.sample);
	free(x->strs);
	free(x->maps);
	free(x->locs);
	free(x->lines);
	free(x->funcs);
	free(x->samples);
	free(x->labels);
	free(x->loc_ids);
	free(x->values);
	free(x->frame_map);
	sb_fnames_free(&x->fn);
}

static int pp_build(struct pp *x)
{
	const struct sb_meta *t0 = sb_profile_meta(x->p, "start_time_ns");
	const struct sb_meta *t1 = sb_profile_meta(x->p, "finalize_time_ns");
	int r;

	x->prof = (Perftools__Profiles__Profile)PERFTOOLS__PROFILES__PROFILE__INIT;
	x->kinds[SB_SAMPLE_CPU] = sb_samples_have(x->p, SB_SAMPLE_CPU);
	x->kinds[SB_SAMPLE_OFFCPU] = sb_samples_have(x->p, SB_SAMPLE_OFFCPU);
	if (str(x, "-") < 0)	/* string_table[0] must be "": replaced below */
		return -ENOMEM;
	x->strs[0] = "";
	r = sb_fnames_build(&x->fn, x->s);
	if (!r)
		r = sample_types(x);
	if (!r)
		r = mappings(x);
	if (!r)
		r = functions(x);
	if (!r)
		r = locations(x);
	if (!r)
		r = samples(x);
	if (t0 && t1 && t0->is_int && t1->is_int && t1->i > t0->i)
		x->prof.duration_nanos = t1->i - t0->i;
	/* The profile's first kind is the one tools show first. */
	x->prof.default_sample_type = x->prof.n_sample_type ? x->types[0].type : 0;
	return r;
}

/* protoc-c's packing straight into zlib's gzip stream. */
struct gz_buffer {
	ProtobufCBuffer base;
	z_stream z;
	FILE *f;
	int err;
};

static void gz_put(struct gz_buffer *g, const uint8_t *data, size_t len, int flush)
{
	uint8_t out[16384];
	int r;

	g->z.next_in = (Bytef *)data;
	g->z.avail_in = (uInt)len;
	do {
		g->z.next_out = out;
		g->z.avail_out = sizeof(out);
		r = deflate(&g->z, flush);
		if (r == Z_STREAM_ERROR) {
			g->err = -EIO;
			return;
		}
		fwrite(out, 1, sizeof(out) - g->z.avail_out, g->f);
	} while (g->z.avail_out == 0 || (flush == Z_FINISH && r != Z_STREAM_END));
}

static void gz_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	struct gz_buffer *g = (struct gz_buffer *)b;
	size_t chunk;

	/* avail_in is 32 bits wide. */
	for (; len && !g->err; len -= chunk, data += chunk) {
		chunk = len < (1u << 30) ? len : (1u << 30);
		gz_put(g, data, chunk, Z_NO_FLUSH);
	}
}

static int gz_write(FILE *f, const Perftools__Profiles__Profile *prof)
{
	struct gz_buffer g = { .base = { gz_append }, .f = f };

	/* windowBits 15 + 16: a gzip header and trailer, as pprof reads. */
	if (deflateInit2(&g.z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	protobuf_c_message_pack_to_buffer(&prof->base, &g.base);
	if (!g.err)
		gz_put(&g, NULL, 0, Z_FINISH);
	deflateEnd(&g.z);
	return g.err;
}

int sb_export_pprof(FILE *f, const struct sb_profile *p, struct sb_error *err)
{
	struct pp x = { .p = p, .s = &p->samples };
	int r;

	/* An empty profile would read as "nothing ran": say what is missing instead. */
	r = sb_samples_require(p, 1u << SB_SAMPLE_CPU | 1u << SB_SAMPLE_OFFCPU, err);
	if (r)
		return r;
	r = pp_build(&x);
	if (!r)
		r = gz_write(f, &x.prof);
	pp_free(&x);
	if (r == -ENOMEM)
		return sb_fail(err, r, "pprof: out of memory");
	if (r || ferror(f))
		return sb_fail(err, EIO, "pprof: write error");
	return 0;
}
