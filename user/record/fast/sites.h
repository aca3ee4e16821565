/*
 * The names of one process image's fast-path sites, over time. A library
 * unloaded and another loaded at the same address reuse site addresses: the
 * records still queued from the first must keep the first one's names while
 * the second's announcements arrive. Each announcement is kept with the time
 * it was made; a record takes the name its site had when it was written.
 */
#ifndef SB_FAST_SITES_H
#define SB_FAST_SITES_H

#include <stdbool.h>
#include <stdint.h>

#include "util/hashmap.h"

/* Names kept per address: older ones stand for the oldest kept. */
#define SB_FAST_SITE_GENERATIONS 16
/*
 * An announcement counts from this long before it was made: a record's time
 * (read after its site was announced) comes through a clock conversion that
 * may be off by a microsecond or so, and no library unloads and another loads
 * in its place within 10 us.
 */
#define SB_FAST_SITE_SLACK_NS 10000

/* Lookups remembered: a marker's site comes back on every call of a loop. */
#define SB_FAST_SITE_MEMO 64

struct sb_fast_site_memo {
	uint64_t site;
	uint64_t version;	/* of the sites when remembered: any announcement ends it */
	int64_t from;		/* its latest announcement's time: the name holds from then on */
	uint64_t hash;
};

struct sb_fast_sites {
	struct sb_hashmap map;	/* (site, slot) -> announcements, names, times: sites.c */
	uint64_t version;	/* announcements made */
	struct sb_fast_site_memo memo[SB_FAST_SITE_MEMO];
};

void sb_fast_sites_init(struct sb_fast_sites *s);
void sb_fast_sites_free(struct sb_fast_sites *s);

/*
 * Site named hash (0: invalid) from since_ns on (CLOCK_MONOTONIC; 0: from
 * the start). 0 or -ENOMEM.
 */
int sb_fast_sites_name(struct sb_fast_sites *s, uint64_t site, uint64_t hash, int64_t since_ns);

static inline struct sb_fast_site_memo *sb_fast_site_memo_of(struct sb_fast_sites *s,
							      uint64_t site)
{
	return &s->memo[(site * 0x9e3779b97f4a7c15ULL) >> 58];
}

/* sb_fast_sites_at() past its memo: the announcements looked up. */
bool sb_fast_sites_find(struct sb_fast_sites *s, uint64_t site, int64_t t, uint64_t *hash);

/*
 * The name of site at time t: the latest announcement made at or before t,
 * else the oldest kept. False when the site was never named. Inline, as
 * twice a call the memo answers.
 */
static inline bool sb_fast_sites_at(struct sb_fast_sites *s, uint64_t site, int64_t t,
				    uint64_t *hash)
{
	const struct sb_fast_site_memo *m = sb_fast_site_memo_of(s, site);

	if (m->site == site && m->version == s->version && t >= m->from) {
		*hash = m->hash;
		return true;
	}
	return sb_fast_sites_find(s, site, t, hash);
}

#endif
