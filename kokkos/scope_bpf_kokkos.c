/*
 * A Kokkos Tools library (docs/ANNOTATIONS.md): Kokkos loads the library named
 * by KOKKOS_TOOLS_LIBS at Kokkos::initialize, finds the kokkosp_* functions
 * below by name and calls them around each kernel, profiling region, fence
 * and deep copy. Each becomes a scope_bpf region named as Kokkos names it,
 * tagged with its kind; a deep copy is named by its views and tagged with its
 * bytes. Kernels and fences end by the id this library gave them; regions
 * and deep copies end the innermost open one (annot/annot.h).
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "annot.h"

#define EXPORT __attribute__((visibility("default")))

/* What ends a region or a deep copy that has no id: the innermost one of its key. */
enum { KEY_REGION = 1, KEY_DEEP_COPY };

/* Kokkos passes memory spaces by value: a name in 64 bytes. */
struct kokkos_space {
	char name[64];
};

struct kokkos_device_info {
	size_t device_id;
};

EXPORT void kokkosp_init_library(const int load_seq, const uint64_t interface_version,
				 const uint32_t n_devices, struct kokkos_device_info *devices)
{
	(void)load_seq;
	(void)interface_version;
	(void)n_devices;
	(void)devices;
}

EXPORT void kokkosp_finalize_library(void)
{
}

static void begin_kernel(const char *name, const char *tags, uint64_t *id)
{
	uint64_t kid = annot_new_id();

	annot_begin(name, tags, 0, kid);
	if (id)
		*id = kid;
}

/* kokkosp_begin_KIND and kokkosp_end_KIND of a kernel or fence: a region closed by its id. */
#define KERNEL_HOOKS(kind)								\
	EXPORT void kokkosp_begin_##kind(const char *name, const uint32_t device,	\
					 uint64_t *id)					\
	{										\
		(void)device;								\
		begin_kernel(name, "kokkos,kokkos.kind:" #kind, id);			\
	}										\
	EXPORT void kokkosp_end_##kind(const uint64_t id)				\
	{										\
		annot_end_id(id);							\
	}

KERNEL_HOOKS(parallel_for)
KERNEL_HOOKS(parallel_reduce)
KERNEL_HOOKS(parallel_scan)
KERNEL_HOOKS(fence)

EXPORT void kokkosp_push_profile_region(const char *name)
{
	annot_begin(name, "kokkos,kokkos.kind:region", KEY_REGION, 0);
}

EXPORT void kokkosp_pop_profile_region(void)
{
	annot_end_key(KEY_REGION);
}

/* "Kokkos::deep_copy DST <- SRC", the views' labels; the bytes are a tag. */
EXPORT void kokkosp_begin_deep_copy(struct kokkos_space dst_space, const char *dst_name,
				    const void *dst, struct kokkos_space src_space,
				    const char *src_name, const void *src, uint64_t bytes)
{
	char name[128], tags[96];

	(void)dst_space;
	(void)dst;
	(void)src_space;
	(void)src;
	if (!annot_traced()) {
		annot_begin(NULL, NULL, KEY_DEEP_COPY, 0);
		return;
	}
	snprintf(name, sizeof(name), "Kokkos::deep_copy %s <- %s", dst_name ? dst_name : "",
		 src_name ? src_name : "");
	snprintf(tags, sizeof(tags), "kokkos,kokkos.kind:deep_copy,kokkos.bytes:%" PRIu64, bytes);
	annot_begin(name, tags, KEY_DEEP_COPY, 0);
}

EXPORT void kokkosp_end_deep_copy(void)
{
	annot_end_key(KEY_DEEP_COPY);
}
