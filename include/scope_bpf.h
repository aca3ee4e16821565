/* Region markers that scope-bpf traces through USDT probes; header-only, C99 and C++11. */
#ifndef SCOPE_BPF_H
#define SCOPE_BPF_H

/*
 * Markers
 *
 *   SCOPE_BPF_REGION("name") { ... }
 *	A region around the block. It ends however the block is left: end of
 *	block, break, continue, return, goto out of it, or (C++) an exception.
 *	break and continue end the region, not an enclosing loop or switch.
 *   SCOPE_BPF_REGION_TAGGED("name", "io,mpi") { ... }
 *	The same with comma-separated tags.
 *   SCOPE_BPF_FUNCTION();
 *	A region named after the enclosing function (__func__) from here to
 *	the end of the enclosing scope.
 *   SCOPE_BPF_BEGIN("name"); ... SCOPE_BPF_END("name");
 *   SCOPE_BPF_BEGIN_TAGGED("name", "io,mpi");
 *	An explicit pair, for regions that do not fit one block. Each marker
 *	has its own descriptor; the collector pairs an end with the innermost
 *	open begin of the same thread by name, so both must use the same name.
 *
 * Names and tags must be string literals (or have static storage): they are
 * stored in a static descriptor. One marker per source line.
 *
 * Probes (provider "scope_bpf"), each with one argument, the address of the
 * call site's struct scope_bpf_site:
 *   region_begin(site)	a region starts on this thread
 *   region_end(site)	a region ends on this thread
 *
 * Cost: with no tracer attached a marker is two loads of USDT semaphores
 * and a branch predicted not taken; no argument is evaluated. A tracer in
 * kernel mode traps each marker with a uprobe on a 1-byte nop. A tracer in
 * fast mode (record --mode=fast, the default where the header supports it)
 * attaches the probes fast_ready and fast_site instead: then each marker
 * appends a 16-byte record to its thread's ring in memory it shares with the
 * recorder, and traps only once per process and once per call site.
 *
 * -DSCOPE_BPF_DISABLE compiles every marker to nothing (region bodies still
 * run once) and emits no probe. Markers also compile to nothing where the
 * probes are not supported: anything but GCC or Clang on 64-bit ELF x86-64
 * or arm64. SCOPE_BPF_ENABLED says which case holds (1: probes emitted).
 *
 * Markers named at run time (Fortran, Python, any C FFI; link
 * -lscope_bpf_markers, see pkg-config scope_bpf):
 *   scope_bpf_begin_named(name); ... scope_bpf_end_named(name);
 *	The same as SCOPE_BPF_BEGIN/END, with any string: one descriptor per
 *	distinct name, made when first traced. NULL or "" does nothing; a name
 *	is cut to SCOPE_BPF_NAME_MAX bytes. The _n forms take a length (no NUL
 *	needed). Not affected by SCOPE_BPF_DISABLE: they are library calls.
 *
 * This file is the API; the folder scope_bpf/ beside it holds the rest, and
 * goes wherever this file goes: abi.h, the site descriptor and the fast
 * path's shared memory as scope-bpf reads them; the private rest: state.h,
 * the semaphores every marker tests; impl.h, the fast path's writer; slow.h,
 * what it runs once per process, thread or site; probe.h, the USDT probe
 * itself. See docs/MARKERS.md.
 */

#include <stddef.h>
#include <stdint.h>

#include "scope_bpf/abi.h"

/* The longest region name the recorder keeps, in bytes; longer ones are cut. */
#define SCOPE_BPF_NAME_MAX 127
/* The most distinct names scope_bpf_begin_named takes; later new ones share one region. */
#define SCOPE_BPF_NAMED_MAX 65536

#ifdef __cplusplus
extern "C" {
#endif
void scope_bpf_begin_named(const char *name);
void scope_bpf_end_named(const char *name);
void scope_bpf_begin_named_n(const char *name, size_t len);
void scope_bpf_end_named_n(const char *name, size_t len);
#ifdef __cplusplus
}
#endif

#if !defined(SCOPE_BPF_DISABLE) && defined(__GNUC__) && defined(__ELF__) && \
	defined(__LP64__) && (defined(__x86_64__) || defined(__aarch64__))
#define SCOPE_BPF_ENABLED 1
#else
#define SCOPE_BPF_ENABLED 0
#endif

/* Everything named scope_bpf_impl_* or SCOPE_BPF_IMPL_* is private. */
#define SCOPE_BPF_IMPL_CAT2(a, b) a##b
#define SCOPE_BPF_IMPL_CAT(a, b) SCOPE_BPF_IMPL_CAT2(a, b)
#define SCOPE_BPF_IMPL_ID(x) SCOPE_BPF_IMPL_CAT(scope_bpf_impl_##x##_, __LINE__)

#if SCOPE_BPF_ENABLED

#include "scope_bpf/impl.h"

#ifdef __cplusplus
#define SCOPE_BPF_IMPL_NOTAGS nullptr
extern "C" {
#else
#define SCOPE_BPF_IMPL_NOTAGS ((const char *)0)
#endif

/*
 * A marker: one branch while nobody traces; under a fast-mode tracer, a
 * record in its thread's ring (impl.h); else, or without a ring, the probe.
 */
static inline void scope_bpf_impl_begin(struct scope_bpf_site *site)
{
	if (__builtin_expect(scope_bpf_impl_traced(0), 0) && !scope_bpf_impl_fast(site, 0))
		SCOPE_BPF_IMPL_PROBE(region_begin, site);
}

static inline void scope_bpf_impl_end(struct scope_bpf_site *site)
{
	if (__builtin_expect(scope_bpf_impl_traced(1), 0) &&
	    !scope_bpf_impl_fast(site, SCOPE_BPF_IMPL_FAST_END))
		SCOPE_BPF_IMPL_PROBE(region_end, site);
}

#ifdef __cplusplus
} /* extern "C" */
#endif

/* The address of a static descriptor for this call site; a link-time constant. */
#define SCOPE_BPF_IMPL_SITE(name, tags)						\
	(__extension__ ({							\
		static struct scope_bpf_site scope_bpf_impl_site = {		\
			SCOPE_BPF_SITE_MAGIC, SCOPE_BPF_SITE_VERSION, 0,	\
			__LINE__, 0, (name), __FILE__, (tags)			\
		};								\
		&scope_bpf_impl_site;						\
	}))

#ifdef __cplusplus

/* Scoped region: begin in the constructor, end in the destructor. */
struct scope_bpf_impl_scope {
	struct scope_bpf_site *site;
	unsigned long once;	/* drives the one-iteration for of SCOPE_BPF_REGION */

	explicit scope_bpf_impl_scope(struct scope_bpf_site *s)
		: site(s), once(1)
	{
		scope_bpf_impl_begin(s);
	}
	~scope_bpf_impl_scope()
	{
		scope_bpf_impl_end(site);
	}
	scope_bpf_impl_scope(const scope_bpf_impl_scope &) = delete;
	scope_bpf_impl_scope &operator=(const scope_bpf_impl_scope &) = delete;
};

#define SCOPE_BPF_REGION_TAGGED(name, tags)					\
	for (scope_bpf_impl_scope SCOPE_BPF_IMPL_ID(region)(			\
		     SCOPE_BPF_IMPL_SITE(name, tags));				\
	     SCOPE_BPF_IMPL_ID(region).once;					\
	     SCOPE_BPF_IMPL_ID(region).once = 0)

#define SCOPE_BPF_FUNCTION()							\
	scope_bpf_impl_scope SCOPE_BPF_IMPL_ID(function)(			\
		SCOPE_BPF_IMPL_SITE(__func__, SCOPE_BPF_IMPL_NOTAGS))

#else /* C */

/* Scoped region: begin on entry, end from the cleanup attribute on any exit. */
struct scope_bpf_impl_scope {
	struct scope_bpf_site *site;
	unsigned long once;	/* drives the one-iteration for of SCOPE_BPF_REGION */
};

static inline struct scope_bpf_impl_scope
scope_bpf_impl_scope_begin(struct scope_bpf_site *site)
{
	struct scope_bpf_impl_scope s;

	scope_bpf_impl_begin(site);
	s.site = site;
	s.once = 1;
	return s;
}

static inline void scope_bpf_impl_scope_end(struct scope_bpf_impl_scope *s)
{
	scope_bpf_impl_end(s->site);
}

#define SCOPE_BPF_REGION_TAGGED(name, tags)					\
	for (struct scope_bpf_impl_scope SCOPE_BPF_IMPL_ID(region)		\
		     __attribute__((cleanup(scope_bpf_impl_scope_end))) =	\
		     scope_bpf_impl_scope_begin(SCOPE_BPF_IMPL_SITE(name, tags)); \
	     SCOPE_BPF_IMPL_ID(region).once;					\
	     SCOPE_BPF_IMPL_ID(region).once = 0)

/* unused: clang counts a variable read only by its cleanup as unused. */
#define SCOPE_BPF_FUNCTION()							\
	struct scope_bpf_impl_scope SCOPE_BPF_IMPL_ID(function)			\
		__attribute__((cleanup(scope_bpf_impl_scope_end), unused)) =	\
		scope_bpf_impl_scope_begin(					\
			SCOPE_BPF_IMPL_SITE(__func__, SCOPE_BPF_IMPL_NOTAGS))

#endif /* __cplusplus */

#define SCOPE_BPF_REGION(name)							\
	SCOPE_BPF_REGION_TAGGED(name, SCOPE_BPF_IMPL_NOTAGS)
#define SCOPE_BPF_BEGIN_TAGGED(name, tags)					\
	scope_bpf_impl_begin(SCOPE_BPF_IMPL_SITE(name, tags))
#define SCOPE_BPF_BEGIN(name)							\
	SCOPE_BPF_BEGIN_TAGGED(name, SCOPE_BPF_IMPL_NOTAGS)
#define SCOPE_BPF_END(name)							\
	scope_bpf_impl_end(SCOPE_BPF_IMPL_SITE(name, SCOPE_BPF_IMPL_NOTAGS))

#else /* !SCOPE_BPF_ENABLED */

/* Still a one-iteration loop, so break and continue mean the same as when enabled. */
#ifdef __cplusplus
#define SCOPE_BPF_REGION_TAGGED(name, tags)					\
	for (bool SCOPE_BPF_IMPL_ID(once) = true; SCOPE_BPF_IMPL_ID(once);	\
	     SCOPE_BPF_IMPL_ID(once) = false)
#else
#define SCOPE_BPF_REGION_TAGGED(name, tags)					\
	for (int SCOPE_BPF_IMPL_ID(once) = 1; SCOPE_BPF_IMPL_ID(once);		\
	     SCOPE_BPF_IMPL_ID(once) = 0)
#endif
#define SCOPE_BPF_REGION(name) SCOPE_BPF_REGION_TAGGED(name, 0)
#define SCOPE_BPF_FUNCTION() ((void)0)
#define SCOPE_BPF_BEGIN_TAGGED(name, tags) ((void)0)
#define SCOPE_BPF_BEGIN(name) ((void)0)
#define SCOPE_BPF_END(name) ((void)0)

#endif /* SCOPE_BPF_ENABLED */

#endif /* SCOPE_BPF_H */
