/* Per-segment TCP analysis: updates a flow's two halves and classifies the
 * segment the way Wireshark's tcp.analysis.* does, so detectors and the
 * flow table agree with what an engineer sees there. */
#ifndef PD_TCP_ENGINE_H
#define PD_TCP_ENGINE_H

#include "heuristics/flow.h"

/* A SYN (no ACK) that starts a new connection on a 4-tuple that already
 * has a flow: a different ISN, or the flow is finished. */
bool pd_tcp_starts_new_connection(const pd_flow *f, int dir, const pd_packet *pkt);

/* Picks client/server for a flow whose first packet is pkt: the SYN
 * sender, the SYN-ACK receiver, else the low well-known port as server,
 * else the first sender as client. Returns true if pkt's sender is the client. */
bool pd_tcp_sender_is_client(const pd_packet *pkt);

/* The engine's own write access to a flow's halves: they are the
 * engine's memory (pd_flow_slot_set_blocks), read-only to detectors. */
static inline pd_tcp_half *pd_flow_half_mut(pd_flow *f, int dir)
{
	return (pd_tcp_half *)&f->half[dir];
}

/* Updates f with the segment from side dir and fills seg. */
void pd_tcp_engine_update(pd_flow *f, int dir, const pd_packet *pkt, pd_seg *seg);

/* A round trip longer than an hour is a broken clock, not a path: such
 * samples are dropped, which also keeps detectors' RTT arithmetic far from
 * int64 overflow. */
#define PD_RTT_MAX_NS (3600 * PD_NS_PER_SEC)

/* Out-of-order threshold when no RTT is known yet (Wireshark's default). */
#define PD_OOO_DEFAULT_NS (3 * 1000 * 1000)

#endif
