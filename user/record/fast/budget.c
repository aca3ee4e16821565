/* How much memory the fast path's queue may take (budget.h). */
#include <stddef.h>

#include "record/fast/budget.h"

/*
 * Unless --buffer says: a quarter of the memory available at the start, at
 * least 128 MiB (4 M regions), at most 4 GiB (about 3 s of one thread
 * writing empty regions flat out while the recorder nests a few million
 * calls a second: the rest waits in the queue).
 */
#define QUEUE_MIN_BYTES (128ull << 20)
#define QUEUE_MAX_BYTES (4ull << 30)
/*
 * A sixteenth of it, 64 to 256 MiB, is faulted in ahead of a burst: memory
 * touched for the first time is slower to copy into than a writer writes.
 */
#define WARM_MIN_BYTES (64ull << 20)
#define WARM_MAX_BYTES (256ull << 20)
/* The queue stops growing while less than a tenth of the memory is available: the job comes first. */
#define RESERVE_PART 10

static uint64_t clamp_u64(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

void sb_fast_budget(uint64_t buffer_bytes, bool fast_wanted, const struct sb_meminfo *m,
		    struct sb_fast_budget *b)
{
	b->max_bytes = buffer_bytes ? buffer_bytes :
		       clamp_u64(m ? m->available / 4 : 0, QUEUE_MIN_BYTES, QUEUE_MAX_BYTES);
	b->warm_bytes = 0;
	if (fast_wanted)
		b->warm_bytes = clamp_u64(b->max_bytes / 16, WARM_MIN_BYTES, WARM_MAX_BYTES);
	if (b->warm_bytes > b->max_bytes)
		b->warm_bytes = b->max_bytes;
	b->reserve_bytes = m ? m->total / RESERVE_PART : 0;
}
