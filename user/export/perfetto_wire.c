/* The Perfetto export's packets: protoc-c's packing for the rare ones, a direct writer for slices. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/perfetto.h"

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

static uint8_t *pb_varint(uint8_t *q, uint64_t v)
{
	while (v >= 0x80) {
		*q++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*q++ = (uint8_t)v;
	return q;
}

static uint8_t *pb_key(uint8_t *q, unsigned field, unsigned wire)
{
	return pb_varint(q, (uint64_t)field << 3 | wire);
}

/* One Trace.packet: key, length, the packet's bytes. */
static void put_packet_bytes(struct pf_out *w, const uint8_t *body, size_t len)
{
	uint8_t head[12], *q = head;

	q = pb_key(q, PF_TRACE_PACKET, WIRE_LEN);
	q = pb_varint(q, len);
	sb_out_mem(&w->o, (const char *)head, (size_t)(q - head));
	sb_out_mem(&w->o, (const char *)body, len);
}

void pf_packet(struct pf_out *w, const Perfetto__Protos__TracePacket *pk)
{
	size_t len = protobuf_c_message_get_packed_size(&pk->base);
	uint8_t small[512], *buf = len <= sizeof(small) ? small : malloc(len);

	if (!buf) {
		w->err = -ENOMEM;
		return;
	}
	protobuf_c_message_pack(&pk->base, buf);
	put_packet_bytes(w, buf, len);
	if (buf != small)
		free(buf);
}

/*
 * Each sequence has a clock of its own (64, incremental): a packet's
 * timestamp is then the delta from the sequence's previous one, two or
 * three bytes instead of seven. The snapshot ties it to CLOCK_MONOTONIC,
 * the profile's clock, which it names the trace's clock.
 */
int pf_seq_start(struct pf_out *w, struct pf_seq *s, uint64_t track, const uint64_t *counters,
		 size_t n_counters, size_t names)
{
	Perfetto__Protos__TracePacket pk = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__ClockSnapshot snap = PERFETTO__PROTOS__CLOCK_SNAPSHOT__INIT;
	Perfetto__Protos__ClockSnapshot__Clock mono = PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__INIT;
	Perfetto__Protos__ClockSnapshot__Clock seq = PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__INIT;
	Perfetto__Protos__ClockSnapshot__Clock *clocks[] = { &mono, &seq };
	Perfetto__Protos__TracePacketDefaults defs = PERFETTO__PROTOS__TRACE_PACKET_DEFAULTS__INIT;
	Perfetto__Protos__TrackEventDefaults ted = PERFETTO__PROTOS__TRACK_EVENT_DEFAULTS__INIT;

	s->id = w->next_seq++;
	s->last_ts = w->origin;
	s->interned = calloc(names + 1, 1);
	if (!s->interned)
		return -ENOMEM;
	mono.has_clock_id = seq.has_clock_id = true;
	mono.clock_id = PF_CLOCK_MONOTONIC;
	seq.clock_id = PF_CLOCK_SEQUENCE;
	mono.has_timestamp = seq.has_timestamp = true;
	mono.timestamp = seq.timestamp = (uint64_t)w->origin;
	seq.has_is_incremental = seq.is_incremental = true;
	snap.n_clocks = 2;
	snap.clocks = clocks;
	snap.has_primary_trace_clock = true;
	snap.primary_trace_clock = PF_CLOCK_MONOTONIC;
	pk.has_timestamp = pk.has_timestamp_clock_id = true;
	pk.timestamp = (uint64_t)w->origin;
	pk.timestamp_clock_id = PF_CLOCK_MONOTONIC;
	pk.has_trusted_packet_sequence_id = pk.has_sequence_flags = true;
	pk.trusted_packet_sequence_id = s->id;
	pk.sequence_flags = PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED;
	pk.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_CLOCK_SNAPSHOT;
	pk.clock_snapshot = &snap;
	if (track) {
		ted.has_track_uuid = true;
		ted.track_uuid = track;
		ted.n_extra_counter_track_uuids = n_counters;
		ted.extra_counter_track_uuids = (uint64_t *)counters;
		defs.has_timestamp_clock_id = true;
		defs.timestamp_clock_id = PF_CLOCK_SEQUENCE;
		defs.track_event_defaults = &ted;
		pk.trace_packet_defaults = &defs;
	}
	pf_packet(w, &pk);
	return w->err;
}

void pf_seq_free(struct pf_seq *s)
{
	free(s->interned);
	s->interned = NULL;
}

void pf_intern(struct pf_out *w, struct pf_seq *s, uint64_t iid, const char *name)
{
	Perfetto__Protos__TracePacket pk = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__InternedData data = PERFETTO__PROTOS__INTERNED_DATA__INIT;
	Perfetto__Protos__EventName en = PERFETTO__PROTOS__EVENT_NAME__INIT, *names[] = { &en };

	if (s->interned[iid])
		return;
	s->interned[iid] = 1;
	en.has_iid = true;
	en.iid = iid;
	en.name = (char *)name;
	data.n_event_names = 1;
	data.event_names = names;
	pk.has_trusted_packet_sequence_id = pk.has_sequence_flags = true;
	pk.trusted_packet_sequence_id = s->id;
	pk.sequence_flags = PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE;
	pk.interned_data = &data;
	pf_packet(w, &pk);
}

/*
 * The hot path, two packets per call: written here rather than through
 * protoc-c's reflective packing (docs/EXPORTS.md has both timings). The
 * tests decode the result with protoc against the same .proto.
 */
void pf_event(struct pf_out *w, struct pf_seq *s, int64_t ts, unsigned type, uint64_t name_iid,
	      const int64_t *vals, unsigned n)
{
	uint8_t ev[40 + 11 * (SB_COUNTER_SLOTS + 1)], pk[sizeof(ev) + 40], *e = ev, *q = pk;
	unsigned k;

	e = pb_key(e, PF_EVENT_TYPE, WIRE_VARINT);
	e = pb_varint(e, type);
	if (name_iid) {
		e = pb_key(e, PF_EVENT_NAME_IID, WIRE_VARINT);
		e = pb_varint(e, name_iid);
	}
	for (k = 0; vals && k < n && k <= SB_COUNTER_SLOTS; k++) {
		e = pb_key(e, PF_EVENT_EXTRA_COUNTER_VALUES, WIRE_VARINT);
		e = pb_varint(e, (uint64_t)vals[k]);
	}
	q = pb_key(q, PF_PACKET_TIMESTAMP, WIRE_VARINT);
	q = pb_varint(q, (uint64_t)(ts - s->last_ts));
	s->last_ts = ts;
	q = pb_key(q, PF_PACKET_SEQUENCE_ID, WIRE_VARINT);
	q = pb_varint(q, s->id);
	q = pb_key(q, PF_PACKET_SEQUENCE_FLAGS, WIRE_VARINT);
	q = pb_varint(q, PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE);
	q = pb_key(q, PF_PACKET_TRACK_EVENT, WIRE_LEN);
	q = pb_varint(q, (uint64_t)(e - ev));
	memcpy(q, ev, (size_t)(e - ev));
	q += e - ev;
	put_packet_bytes(w, pk, (size_t)(q - pk));
}

uint64_t pf_track(struct pf_out *w, Perfetto__Protos__TrackDescriptor *d)
{
	Perfetto__Protos__TracePacket pk = PERFETTO__PROTOS__TRACE_PACKET__INIT;

	d->has_uuid = true;
	d->uuid = w->next_uuid++;
	pk.has_trusted_packet_sequence_id = true;
	pk.trusted_packet_sequence_id = PF_SEQ_DESCRIPTORS;
	pk.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR;
	pk.track_descriptor = d;
	pf_packet(w, &pk);
	return d->uuid;
}
