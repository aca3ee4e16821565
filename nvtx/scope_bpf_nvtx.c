/*
 * An NVTX injection library (docs/ANNOTATIONS.md): the NVTX v3 headers
 * compiled into an application load it from NVTX_INJECTION64_PATH at the
 * first NVTX call and call InitializeInjectionNvtx2, which fills NVTX's
 * callback slots with the functions below. Each range becomes a scope_bpf
 * region named by its message, tagged with its domain and category; pushes
 * and pops nest per thread and domain, start/end ranges close by id from any
 * thread (annot/annot.h). Marks (instants) and the CUDA, OpenCL and sync
 * modules are not regions: their slots stay empty.
 */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annot.h"
#include "names.h"

#define EXPORT __attribute__((visibility("default")))
#define UNNAMED "(unnamed nvtx range)"

/* Category names, per domain, as nvtxNameCategory gave them; never freed (tags point at them). */
struct category {
	uint32_t id;
	struct category *next;
	char name[NVTX_NAME_BYTES];
};

/* What nvtxDomainCreate hands out; never freed, since the application may use a handle late. */
struct nvtxDomainRegistration_st {
	char name[NVTX_NAME_BYTES];
	char tags[NVTX_TAGS_BYTES];		/* "nvtx,nvtx.domain:NAME" */
	struct category *_Atomic categories;
};

struct nvtxStringRegistration_st {
	char text[NVTX_NAME_BYTES];
};

static struct nvtxDomainRegistration_st default_domain = { .tags = "nvtx" };
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_uint names_made;		/* categories named so far: tags made before are stale */

static struct nvtxDomainRegistration_st *domain_of(nvtxDomainHandle_t d)
{
	return d ? d : &default_domain;
}

static const char *category_name(struct nvtxDomainRegistration_st *d, uint32_t id)
{
	struct category *c;

	for (c = atomic_load_explicit(&d->categories, memory_order_acquire); c; c = c->next)
		if (c->id == id)
			return c->name;
	return NULL;
}

static void name_category(nvtxDomainHandle_t handle, uint32_t id, const char *name)
{
	struct nvtxDomainRegistration_st *d = domain_of(handle);
	struct category *c = calloc(1, sizeof(*c));

	if (!c || !name)
		goto out;
	c->id = id;
	snprintf(c->name, sizeof(c->name), "%s", name);
	pthread_mutex_lock(&names_lock);
	c->next = atomic_load_explicit(&d->categories, memory_order_relaxed);
	atomic_store_explicit(&d->categories, c, memory_order_release);
	atomic_fetch_add_explicit(&names_made, 1, memory_order_release);
	pthread_mutex_unlock(&names_lock);
	return;
out:
	free(c);
}

/* The message of attributes as UTF-8 in buf; UNNAMED when it has none NVTX defines. */
static const char *message(const nvtxEventAttributes_t *a, char *buf, size_t len)
{
	if (!a || a->size < offsetof(nvtxEventAttributes_t, message) + sizeof(a->message))
		return UNNAMED;
	switch (a->messageType) {
	case NVTX_MESSAGE_TYPE_ASCII:
		return a->message.ascii ? a->message.ascii : UNNAMED;
	case NVTX_MESSAGE_TYPE_UNICODE:
		nvtx_utf8(a->message.unicode, buf, len);
		return buf[0] ? buf : UNNAMED;
	case NVTX_MESSAGE_TYPE_REGISTERED:
		return a->message.registered ? a->message.registered->text : UNNAMED;
	default:
		return UNNAMED;
	}
}

/*
 * The tags of a range of domain d in category (0: none), made only while
 * traced, and once per run of ranges of one category on a thread, not per
 * range: a known name's lookup ignores them. Naming a category remakes them.
 */
static const char *tags(struct nvtxDomainRegistration_st *d, uint32_t category)
{
	static __thread struct nvtxDomainRegistration_st *made_domain;
	static __thread uint32_t made_category;
	static __thread unsigned made_names;
	static __thread char made[NVTX_TAGS_BYTES];
	unsigned names = atomic_load_explicit(&names_made, memory_order_acquire);
	char number[16];
	const char *name;

	if (!category)
		return d->tags;
	if (made_domain == d && made_category == category && made_names == names)
		return made;
	name = category_name(d, category);
	if (!name) {
		snprintf(number, sizeof(number), "%u", category);
		name = number;
	}
	nvtx_tags(d == &default_domain ? NULL : d->name, name, made, sizeof(made));
	made_domain = d;
	made_category = category;
	made_names = names;
	return made;
}

static void begin(nvtxDomainHandle_t handle, const nvtxEventAttributes_t *a, uint64_t id)
{
	struct nvtxDomainRegistration_st *d = domain_of(handle);
	char name[NVTX_NAME_BYTES];
	uint32_t category = 0;
	const char *t = d->tags;

	if (annot_traced() && a && a->size >= offsetof(nvtxEventAttributes_t, category) +
					       sizeof(a->category))
		category = a->category;
	if (category)
		t = tags(d, category);
	annot_begin(annot_traced() ? message(a, name, sizeof(name)) : NULL, t,
		    (uint64_t)(uintptr_t)handle, id);
}

static int push_ex(const nvtxEventAttributes_t *a)
{
	begin(NULL, a, 0);
	return 0;
}

static int push_a(const char *msg)
{
	annot_begin(msg, default_domain.tags, 0, 0);
	return 0;
}

static int push_w(const wchar_t *msg)
{
	char name[NVTX_NAME_BYTES] = "";

	if (annot_traced())
		nvtx_utf8(msg, name, sizeof(name));
	annot_begin(name, default_domain.tags, 0, 0);
	return 0;
}

/* NVTX's answer for a pop with no push open is negative. */
static int pop(void)
{
	return annot_end_key(0) ? 0 : -1;
}

static nvtxRangeId_t start_ex(const nvtxEventAttributes_t *a)
{
	uint64_t id = annot_new_id();

	begin(NULL, a, id);
	return id;
}

static nvtxRangeId_t start_a(const char *msg)
{
	uint64_t id = annot_new_id();

	annot_begin(msg, default_domain.tags, 0, id);
	return id;
}

static nvtxRangeId_t start_w(const wchar_t *msg)
{
	char name[NVTX_NAME_BYTES] = "";
	uint64_t id = annot_new_id();

	if (annot_traced())
		nvtx_utf8(msg, name, sizeof(name));
	annot_begin(name, default_domain.tags, 0, id);
	return id;
}

static void end(nvtxRangeId_t id)
{
	annot_end_id(id);
}

static void name_category_a(uint32_t id, const char *name)
{
	name_category(NULL, id, name);
}

static void name_category_w(uint32_t id, const wchar_t *name)
{
	char utf8[NVTX_NAME_BYTES];

	nvtx_utf8(name, utf8, sizeof(utf8));
	name_category(NULL, id, utf8);
}

static int domain_push_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	begin(d, a, 0);
	return 0;
}

static int domain_pop(nvtxDomainHandle_t d)
{
	return annot_end_key((uint64_t)(uintptr_t)d) ? 0 : -1;
}

static nvtxRangeId_t domain_start_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	uint64_t id = annot_new_id();

	begin(d, a, id);
	return id;
}

static void domain_end(nvtxDomainHandle_t d, nvtxRangeId_t id)
{
	(void)d;
	annot_end_id(id);
}

static void domain_name_category_a(nvtxDomainHandle_t d, uint32_t id, const char *name)
{
	name_category(d, id, name);
}

static void domain_name_category_w(nvtxDomainHandle_t d, uint32_t id, const wchar_t *name)
{
	char utf8[NVTX_NAME_BYTES];

	nvtx_utf8(name, utf8, sizeof(utf8));
	name_category(d, id, utf8);
}

static nvtxStringHandle_t register_string(const char *text)
{
	struct nvtxStringRegistration_st *s = calloc(1, sizeof(*s));

	if (s)
		snprintf(s->text, sizeof(s->text), "%s", text ? text : "");
	return s;
}

static nvtxStringHandle_t register_string_a(nvtxDomainHandle_t d, const char *text)
{
	(void)d;
	return register_string(text);
}

static nvtxStringHandle_t register_string_w(nvtxDomainHandle_t d, const wchar_t *text)
{
	char utf8[NVTX_NAME_BYTES];

	(void)d;
	nvtx_utf8(text, utf8, sizeof(utf8));
	return register_string(utf8);
}

static nvtxDomainHandle_t domain_create(const char *name)
{
	struct nvtxDomainRegistration_st *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	snprintf(d->name, sizeof(d->name), "%s", name ? name : "");
	nvtx_tags(d->name, NULL, d->tags, sizeof(d->tags));
	return d;
}

static nvtxDomainHandle_t domain_create_a(const char *name)
{
	return domain_create(name);
}

static nvtxDomainHandle_t domain_create_w(const wchar_t *name)
{
	char utf8[NVTX_NAME_BYTES];

	nvtx_utf8(name, utf8, sizeof(utf8));
	return domain_create(utf8);
}

/* A destroyed domain's handle may still be in a range on a stack: it is kept. */
static void domain_destroy(nvtxDomainHandle_t d)
{
	(void)d;
}

struct slot {
	unsigned int id;
	NvtxFunctionPointer fn;
};

#define SLOT(cbid, f) { cbid, (NvtxFunctionPointer)(f) }

static const struct slot core[] = {
	SLOT(NVTX_CBID_CORE_RangeStartEx, start_ex),
	SLOT(NVTX_CBID_CORE_RangeStartA, start_a),
	SLOT(NVTX_CBID_CORE_RangeStartW, start_w),
	SLOT(NVTX_CBID_CORE_RangeEnd, end),
	SLOT(NVTX_CBID_CORE_RangePushEx, push_ex),
	SLOT(NVTX_CBID_CORE_RangePushA, push_a),
	SLOT(NVTX_CBID_CORE_RangePushW, push_w),
	SLOT(NVTX_CBID_CORE_RangePop, pop),
	SLOT(NVTX_CBID_CORE_NameCategoryA, name_category_a),
	SLOT(NVTX_CBID_CORE_NameCategoryW, name_category_w),
};

static const struct slot core2[] = {
	SLOT(NVTX_CBID_CORE2_DomainRangeStartEx, domain_start_ex),
	SLOT(NVTX_CBID_CORE2_DomainRangeEnd, domain_end),
	SLOT(NVTX_CBID_CORE2_DomainRangePushEx, domain_push_ex),
	SLOT(NVTX_CBID_CORE2_DomainRangePop, domain_pop),
	SLOT(NVTX_CBID_CORE2_DomainNameCategoryA, domain_name_category_a),
	SLOT(NVTX_CBID_CORE2_DomainNameCategoryW, domain_name_category_w),
	SLOT(NVTX_CBID_CORE2_DomainRegisterStringA, register_string_a),
	SLOT(NVTX_CBID_CORE2_DomainRegisterStringW, register_string_w),
	SLOT(NVTX_CBID_CORE2_DomainCreateA, domain_create_a),
	SLOT(NVTX_CBID_CORE2_DomainCreateW, domain_create_w),
	SLOT(NVTX_CBID_CORE2_DomainDestroy, domain_destroy),
};

/* Fill a module's slots that this NVTX has (an older one has fewer). 0: no such module. */
static int fill(const NvtxExportTableCallbacks *cb, NvtxCallbackModule module,
		const struct slot *slots, size_t n)
{
	NvtxFunctionTable table = NULL;
	unsigned int size = 0;
	size_t i;

	if (!cb->GetModuleFunctionTable(module, &table, &size) || !table)
		return 0;
	for (i = 0; i < n; i++)
		if (slots[i].id < size && table[slots[i].id])
			*table[slots[i].id] = slots[i].fn;
	return 1;
}

EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table)
{
	const NvtxExportTableCallbacks *cb = get_table(NVTX_ETID_CALLBACKS);
	const NvtxExportTableVersionInfo *version = get_table(NVTX_ETID_VERSIONINFO);

	if (!cb || cb->struct_size < sizeof(*cb))
		return 0;
	/* NVTX asks tools to say the version they were built for (so it could refuse a bad one). */
	if (version && version->struct_size >= sizeof(*version) && version->SetInjectionNvtxVersion)
		version->SetInjectionNvtxVersion(NVTX_VERSION);
	return fill(cb, NVTX_CB_MODULE_CORE, core, sizeof(core) / sizeof(core[0])) &&
	       fill(cb, NVTX_CB_MODULE_CORE2, core2, sizeof(core2) / sizeof(core2[0]));
}
