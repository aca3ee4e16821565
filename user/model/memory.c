/* record --memory's values: their event names and what report --memory calls them. */
#include <string.h>

#include "model/memory.h"

static const struct sb_memory_def defs[SB_MEMORY_SLOTS] = {
	[SB_MEMORY_RSS_GROWTH] = { "mem:rss-growth", "RSS growth", "rss_growth_bytes", true },
	[SB_MEMORY_RSS_RELEASE] = { "mem:rss-release", "RSS release", "rss_release_bytes", true },
	[SB_MEMORY_PEAK_GROWTH] = { "mem:peak-growth", "peak growth", "peak_growth_bytes", true },
	[SB_MEMORY_FAULTS] = { "mem:faults", "faults", "page_faults", false },
};

const struct sb_memory_def *sb_memory_def(unsigned i)
{
	return &defs[i];
}

int sb_memory_slot_of(const char *event_name)
{
	unsigned i;

	for (i = 0; i < SB_MEMORY_SLOTS; i++)
		if (!strcmp(defs[i].name, event_name))
			return (int)i;
	return -1;
}
