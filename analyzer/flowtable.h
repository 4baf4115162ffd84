/* One shard's flow table: owns the shard's live flows, finds a packet's flow
 * by its 5-tuple in either direction, and keeps them in activity queues (one
 * per idle timeout, least recently active first) so that expiry only looks
 * at queue heads.
 *
 * A flow lives in a pd_flow_slot: the engine's private bookkeeping, then
 * the pd_flow detectors see, then the detectors' per-flow blocks. When a
 * flow ends, the worker removes its slot from the table and hands the slot
 * over to the collector, which frees it (pd_flow_slot_free). */
#ifndef PD_FLOWTABLE_H
#define PD_FLOWTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heuristics/flow.h"
#include "pack.h"

typedef struct pd_flow_slot pd_flow_slot;

/* A place in an activity queue: the queues' sentinels are links alone,
 * so a table costs a few bytes per queue, not a flow each. */
typedef struct pd_flow_link {
	struct pd_flow_link *prev, *next;
} pd_flow_link;

struct pd_flow_slot {
	uint64_t hash; /* pd_flow_hash of the tuple */
	pd_flow_link link; /* activity queue (queue, below); a sentinel at each end */

	/* the application label (app_label.c) */
	void *ndpi;
	uint16_t ndpi_pkts;
	bool ndpi_done;
	uint8_t queue;
	bool packed_data; /* packed holds the from_payload blocks too */
	/* what the expiry of a packed flow needs of its packed halves
	 * (worker.c: flow_queue, flow_expired), kept when it is packed */
	bool packed_server_seen, packed_fins_acked;
	uint32_t packed_len; /* bytes at packed */

	/* the flow's two halves (PD_FLOW_HALVES_SIZE bytes, flow.half points
	 * here), then the eager detectors' blocks; made with the flow */
	uint8_t *det_state;
	/* from_payload detectors' blocks: NULL until the first payload */
	uint8_t *data_state;
	/* an idle flow's blocks, packed (pack.h): then det_state and
	 * data_state are NULL until the worker unpacks them; NULL: not packed */
	uint8_t *packed;

	/* once ended: where it ended in the capture (its place among ended
	 * flows: pd_ended_before) and the capture time then */
	uint64_t end_pos, end_sub;
	pd_time end_now;
	pd_flow_slot *end_next; /* in a list of ended flows */

	pd_flow flow;
};

/* The halves lead the eager block: packed, unpacked and freed with it. */
#define PD_FLOW_HALVES_SIZE ((2 * sizeof(pd_tcp_half) + 15) & ~(size_t)15)

/* Sets a slot's blocks (NULL: none, or packed) and points the flow's
 * halves into the first. */
static inline void pd_flow_slot_set_blocks(pd_flow_slot *s, uint8_t *det, uint8_t *data)
{
	s->det_state = det;
	s->data_state = data;
	s->flow.half = (const pd_tcp_half *)(void *)det;
}

static inline pd_flow_slot *pd_slot_of(const pd_flow *f)
{
	return (pd_flow_slot *)((char *)f - offsetof(pd_flow_slot, flow));
}

/* Whether ended flow a comes before b in the capture. */
static inline bool pd_ended_before(const pd_flow_slot *a, const pd_flow_slot *b)
{
	return a->end_pos != b->end_pos ? a->end_pos < b->end_pos : a->end_sub < b->end_sub;
}

/* The symmetric hash of a 5-tuple: the same for both directions. */
uint64_t pd_flow_hash(uint8_t proto, const pd_addr *a, uint16_t pa, const pd_addr *b, uint16_t pb);

typedef struct pd_flowtable pd_flowtable;

/* An empty table; the caller gives each new flow its blocks
 * (pd_flow_slot_set_blocks). */
pd_flowtable *pd_flowtable_new(void);
void pd_flowtable_free(pd_flowtable *t); /* flows must have been removed */

/* The flow of (proto, a:pa -> b:pb) with hash h, or NULL; *dir is the
 * sender's index in that flow (PD_CLIENT/PD_SERVER). */
pd_flow_slot *pd_flowtable_lookup(pd_flowtable *t, uint64_t h, uint8_t proto, const pd_addr *a, uint16_t pa,
				  const pd_addr *b, uint16_t pb, int *dir);

/* A new flow with client a:pa and server b:pb in s (zeroed, the caller's),
 * in queue 0. */
pd_flow_slot *pd_flowtable_insert(pd_flowtable *t, pd_flow_slot *s, uint64_t h, uint64_t id, uint8_t proto, const pd_addr *a,
				  uint16_t pa, const pd_addr *b, uint16_t pb);

/* Unlinks the flow; the caller owns the slot from then on. */
void pd_flowtable_remove(pd_flowtable *t, pd_flow_slot *s);
void pd_flow_slot_free(pd_flow_slot *s);
/* A packed slot's blocks, restored into det (the halves and the eager
 * blocks) and, when the slot had them, data (the payload blocks), each as
 * big as its layout's blocks. The slot stays packed: the caller points its
 * blocks where it wants. */
void pd_flow_slot_unpack(const pd_flow_slot *s, const pd_pack_layout *det_layout, uint8_t *det,
			 const pd_pack_layout *data_layout, uint8_t *data);

#define PD_FLOWTABLE_QUEUES 5
/* Moves the flow to the tail of queue q (after each of its packets). */
void pd_flowtable_touch(pd_flowtable *t, pd_flow_slot *s, unsigned q);
/* The least recently active flow of queue q, or NULL; and the one after s
 * in its queue, or NULL. */
pd_flow_slot *pd_flowtable_head(const pd_flowtable *t, unsigned q);
pd_flow_slot *pd_flowtable_next(const pd_flowtable *t, const pd_flow_slot *s);
/* The least recently active flow of all, or NULL. */
pd_flow_slot *pd_flowtable_oldest(const pd_flowtable *t);
size_t pd_flowtable_count(const pd_flowtable *t);
/* Idle packing: the flows of queue q from its head up to the last one
 * marked are packed. pd_flowtable_pack_next gives the flow after them
 * (NULL: none); pd_flowtable_pack_mark(t, s) adds it to them. A flow that
 * moves or leaves is no longer among them. */
pd_flow_slot *pd_flowtable_pack_next(const pd_flowtable *t, unsigned q);
void pd_flowtable_pack_mark(pd_flowtable *t, pd_flow_slot *s);
/* A number that moves whenever a flow enters, leaves or changes queue. */
uint64_t pd_flowtable_changes(const pd_flowtable *t);
/* A number that moves whenever a queue's head changes or, as the only
 * flow of its queue, is touched: while it stays, each head is the same
 * flow in the same state (the worker's ticks skip a shard whose heads
 * cannot have expired yet). */
uint64_t pd_flowtable_heads(const pd_flowtable *t);
/* A number that moves whenever the first unpacked flow of a queue (the
 * one pd_flowtable_pack_next gives) leaves, or a queue without one gets
 * a flow; pd_flowtable_pack_mark does not move it. While it stays, each
 * queue's first unpacked flow is the same; it may have had packets, and
 * its last time only grew unless it is a pseudo-flow (worker.c). */
uint64_t pd_flowtable_candidates(const pd_flowtable *t);
size_t pd_flowtable_count_in(const pd_flowtable *t, unsigned q);
/* Bytes the table itself holds (slots, not flows). */
size_t pd_flowtable_bytes(const pd_flowtable *t);

/* The table's own invariants (PD_CHECK, engine.h): every entry's slot is
 * reachable from its hash's home (no hole in its probe run), entries and
 * queues hold the same slots (count of each), queue links are consistent
 * and each slot says which queue it is in. NULL when they hold, or what
 * broke first. O(flows in the table). */
const char *pd_flowtable_check(const pd_flowtable *t);

#endif
