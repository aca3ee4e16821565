/* record --memory's values: their event names and what report --memory calls them. */
#include <stdio.h>
#include <string.h>

#include "model/memory.h"
#include "model/model.h"

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

unsigned sb_memory_slots(const struct sb_profile *p, int slot[SB_MEMORY_SLOTS])
{
	const struct sb_meta *m = sb_profile_meta(p, "counter_events");
	unsigned i, k, n = 0;
	unsigned slots = p->agg.on ? sb_agg_counter_slots(&p->agg) : sb_profile_counter_slots(p);
	char name[128];
	const char *s, *end;
	int which;

	for (i = 0; i < SB_MEMORY_SLOTS; i++)
		slot[i] = -1;
	if (!m || m->is_int || !m->s)
		return 0;
	for (s = m->s, k = 0; *s && k < slots; s = *end ? end + 1 : end, k++) {
		end = strchrnul(s, ',');
		snprintf(name, sizeof(name), "%.*s", (int)(end - s), s);
		which = sb_memory_slot_of(name);
		if (which >= 0 && slot[which] < 0) {
			slot[which] = (int)k;
			n++;
		}
	}
	return n;
}
