/* The flow table: owns every live pd_flow, finds a packet's flow by its
 * 5-tuple in either direction, and keeps flows in least-recently-active
 * order so idle ones can be finalized as the capture streams by. */
#ifndef PD_FLOWTABLE_H
#define PD_FLOWTABLE_H

#include <stddef.h>

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
/* Least recently active flow of queue q, or NULL. */
pd_flow *pd_flowtable_oldest_in(pd_flowtable *t, unsigned q);
/* Another thread's call: gets the memory for more flows ready ahead of
 * need (pd_slab_prefault). */
bool pd_flowtable_prefault(pd_flowtable *t);
/* Start loading f's whole block into the cache: a flow about to end has
 * not been touched for a while, and its end runs every detector on it.
 * f may be NULL, or a queue's sentinel (the lru_next of its newest flow). */
void pd_flowtable_prefetch(const pd_flowtable *t, const pd_flow *f);
/* Starts loading what pd_flowtable_remove will touch for f (its slot and
 * its queue neighbours): call it before the flow's end hooks run. */
void pd_flowtable_prefetch_removal(const pd_flowtable *t, const pd_flow *f);
/* Least recently active flow of all (smallest last_frame), or NULL. */
pd_flow *pd_flowtable_oldest(pd_flowtable *t);
size_t pd_flowtable_count(const pd_flowtable *t);
size_t pd_flowtable_count_in(const pd_flowtable *t, unsigned q);
size_t pd_flowtable_peak(const pd_flowtable *t);

#endif
