/* The flow table: owns every live pd_flow, finds a packet's flow by its
 * 5-tuple in either direction, and keeps flows in least-recently-active
 * order so idle ones can be finalized as the capture streams by.
 *
 * Parked flows: a flow that waits (a SYN flood's half-open flows wait for
 * minutes and are most of the live flows) can be parked: its block is
 * packed against a template (pack.h) into a record a fifth of its size that
 * keeps its place in the hash table and its queue. Any call that hands out
 * a parked flow unparks it first, into a fresh block with the same bytes,
 * and tells the owner through the unpark hook; a parked flow's address
 * changes, so only flows no one keeps a pointer to may be parked. */
#ifndef PD_FLOWTABLE_H
#define PD_FLOWTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flow.h"

typedef struct pd_flowtable pd_flowtable;

/* extra: bytes of detector state appended to every flow. */
pd_flowtable *pd_flowtable_new(size_t extra);
void pd_flowtable_free(pd_flowtable *t); /* flows must have been removed */

/* Finds the flow for (proto, a:pa -> b:pb); *dir is the sender's index in
 * that flow (PD_CLIENT/PD_SERVER). NULL when none. Marks it most recent. */
pd_flow *pd_flowtable_lookup(pd_flowtable *t, uint8_t proto, const pd_addr *a, uint16_t pa,
			     const pd_addr *b, uint16_t pb, int *dir);

/* Creates a flow with client a:pa and server b:pb (zeroed detector state). */
pd_flow *pd_flowtable_insert(pd_flowtable *t, uint8_t proto, const pd_addr *a, uint16_t pa,
			     const pd_addr *b, uint16_t pb);

/* The identity pd_flowtable_insert gives a flow: id, protocol, client
 * a:pa, server b:pb (detector lanes build their mirrors of it the same way). */
void pd_flow_set_identity(pd_flow *f, uint64_t id, uint8_t proto, const pd_addr *a, uint16_t pa,
			  const pd_addr *b, uint16_t pb);

/* Flows are offered for parking oldest first, per queue: the least
 * recently active flow of queue q not offered since its last activity, or
 * NULL; then pd_flowtable_offer either parks it (f is invalid afterwards)
 * or passes over it. */
pd_flow *pd_flowtable_to_offer(pd_flowtable *t, unsigned q);
void pd_flowtable_offer(pd_flowtable *t, pd_flow *f, bool park, uint32_t tag);
/* Called with each flow just unparked, before the call that unparked it
 * returns, and the tag the owner parked it with. */
typedef void (*pd_unpark_hook)(void *ctx, pd_flow *f, uint32_t tag);
void pd_flowtable_set_unpark_hook(pd_flowtable *t, pd_unpark_hook hook, void *ctx);
/* Flows of queue q offered since they were last active (parked or passed
 * over), and parked now; both are counted in pd_flowtable_count_in too. */
size_t pd_flowtable_count_offered_in(const pd_flowtable *t, unsigned q);
size_t pd_flowtable_count_parked_in(const pd_flowtable *t, unsigned q);
/* Flows parked so far, and the bytes their records took. */
uint64_t pd_flowtable_parks(const pd_flowtable *t, uint64_t *record_bytes);

/* Unlinks the flow; the caller finalizes it, then gives it back with
 * pd_flowtable_release (its block is reused for a later flow). */
void pd_flowtable_remove(pd_flowtable *t, pd_flow *f);
void pd_flowtable_release(pd_flowtable *t, pd_flow *f);

/* Activity queues: the caller puts each flow, after each of its packets,
 * at the tail of the queue for its idle timeout (one timeout per queue), so
 * every queue is in order of last activity and expiry only looks at heads.
 * A new flow starts in queue 0; a lookup moves the flow to the tail of the
 * queue it is in. */
#define PD_FLOWTABLE_QUEUES 5
void pd_flowtable_touch(pd_flowtable *t, pd_flow *f, unsigned q);
/* Least recently active flow of queue q (unparked), or NULL. */
pd_flow *pd_flowtable_oldest_in(pd_flowtable *t, unsigned q);
/* What expiry needs of queue q's least recently active flow without
 * unparking it: false when the queue is empty. flow is NULL when it is
 * parked (its queue then decides its timeout). */
typedef struct pd_flow_age {
	uint64_t last_frame;
	pd_time last_ts;
	const pd_flow *flow;
} pd_flow_age;
bool pd_flowtable_head_in(const pd_flowtable *t, unsigned q, pd_flow_age *age);
/* Another thread's call: gets the memory for more flows ready ahead of
 * need (pd_slab_prefault). */
bool pd_flowtable_prefault(pd_flowtable *t);
/* Start loading the whole block of the flow after f in its queue, or of
 * queue q's head, into the cache (for a parked one, its record and what
 * unparking it touches): a flow about to end has not been touched for a
 * while, and its end runs every detector on it. */
void pd_flowtable_prefetch_next(const pd_flowtable *t, const pd_flow *f);
void pd_flowtable_prefetch_head(const pd_flowtable *t, unsigned q);
/* What offering queue q's next flows will touch: the next one's slot and
 * neighbour, the block of the one after it. */
void pd_flowtable_prefetch_offer(const pd_flowtable *t, unsigned q);
/* Starts loading what pd_flowtable_remove will touch for f (its slot and
 * its queue neighbours): call it before the flow's end hooks run. */
void pd_flowtable_prefetch_removal(const pd_flowtable *t, const pd_flow *f);
/* Of the queues in the bit set `queues` (bit q: queue q), the one whose
 * head is the least recently active (smallest last_frame), or -1 when they
 * are all empty. Touches happen in frame order, so that head is the oldest
 * flow of those queues. */
int pd_flowtable_oldest_queue(const pd_flowtable *t, unsigned queues);
/* Least recently active flow of all (smallest last_frame; unparked), or NULL. */
pd_flow *pd_flowtable_oldest(pd_flowtable *t);
size_t pd_flowtable_count(const pd_flowtable *t);
size_t pd_flowtable_count_in(const pd_flowtable *t, unsigned q);
size_t pd_flowtable_peak(const pd_flowtable *t);

#endif
