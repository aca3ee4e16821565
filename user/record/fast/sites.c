/*
 * Site names over time (sites.h). Per site, in one hash map keyed by (site,
 * slot): slot 0 counts the announcements; announcement k keeps its name at
 * slot 1 + 2 (k % G) and its time at slot 2 + 2 (k % G), G generations.
 */
#include <string.h>

#include "record/fast/sites.h"

#define G SB_FAST_SITE_GENERATIONS

static uint64_t name_slot(uint64_t k)
{
	return 1 + 2 * (k % G);
}

static uint64_t time_slot(uint64_t k)
{
	return 2 + 2 * (k % G);
}

void sb_fast_sites_init(struct sb_fast_sites *s)
{
	sb_hashmap_init(&s->map);
	s->version = 1;		/* a memo of version 0 (never filled) never holds */
	memset(s->memo, 0, sizeof(s->memo));
}

void sb_fast_sites_free(struct sb_fast_sites *s)
{
	sb_hashmap_free(&s->map);
}

int sb_fast_sites_name(struct sb_fast_sites *s, uint64_t site, uint64_t hash, int64_t since_ns)
{
	uint64_t *n = sb_hashmap_get(&s->map, site, 0), k = n ? *n : 0;
	int ret;

	ret = sb_hashmap_put(&s->map, site, name_slot(k), hash);
	if (!ret)
		ret = sb_hashmap_put(&s->map, site, time_slot(k),
				     (uint64_t)(since_ns - SB_FAST_SITE_SLACK_NS));
	if (!ret)
		ret = sb_hashmap_put(&s->map, site, 0, k + 1);
	s->version++;
	return ret;
}

bool sb_fast_sites_find(struct sb_fast_sites *s, uint64_t site, int64_t t, uint64_t *hash)
{
	struct sb_fast_site_memo *m = sb_fast_site_memo_of(s, site);
	const uint64_t *n;
	uint64_t k, oldest;
	int64_t from;

	n = sb_hashmap_get(&s->map, site, 0);
	if (!n || !*n)
		return false;
	oldest = *n > G ? *n - G : 0;
	for (k = *n; k-- > oldest;) {
		from = (int64_t)*sb_hashmap_get(&s->map, site, time_slot(k));
		if (from <= t || k == oldest) {
			*hash = *sb_hashmap_get(&s->map, site, name_slot(k));
			/* The latest name holds for every later time, until another comes. */
			if (k == *n - 1 && from <= t)
				*m = (struct sb_fast_site_memo){ .site = site, .version = s->version,
								 .from = from, .hash = *hash };
			return true;
		}
	}
	return false;
}
