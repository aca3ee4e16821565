/*
 * record --memory's values per region call: counter slots named mem:..., read
 * by the kernel side from the task at every region entry and exit, so every
 * stage that carries counters (columns, HDF5, report, diff) carries them.
 */
#ifndef SB_MEMORY_H
#define SB_MEMORY_H

#include <stdbool.h>

/* The memory slots, in the order record --memory appends them to the events. */
enum sb_memory_slot {
	SB_MEMORY_RSS_GROWTH,	/* resident bytes gained over the call (end above start) */
	SB_MEMORY_RSS_RELEASE,	/* resident bytes given back over the call (end below start) */
	SB_MEMORY_PEAK_GROWTH,	/* how far the process's peak resident size rose */
	SB_MEMORY_FAULTS,	/* the thread's page faults, minor and major */
	SB_MEMORY_SLOTS,
};

struct sb_memory_def {
	const char *name;	/* the event's name, metadata counter_events */
	const char *label;	/* report --memory's text column */
	const char *key;	/* its JSON key and CSV column ("own_" + key: exclusive) */
	bool bytes;		/* a size in bytes, else a count */
};

/* Slot i < SB_MEMORY_SLOTS. */
const struct sb_memory_def *sb_memory_def(unsigned i);

/* The memory slot an event name is, or -1 when it is no memory value. */
int sb_memory_slot_of(const char *event_name);

struct sb_profile;

/*
 * The counter slot of each memory value in p (metadata counter_events, -1:
 * not recorded); how many p has.
 */
unsigned sb_memory_slots(const struct sb_profile *p, int slot[SB_MEMORY_SLOTS]);

#endif
