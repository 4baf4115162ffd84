/* Which flow, and so which shard, a packet belongs to: run on every packet
 * in capture order, before any flow lookup.
 *
 * - TCP and UDP by their 5-tuple (a symmetric hash: both directions of a
 *   flow land in the same shard);
 * - ICMP and ICMPv6 errors by the 5-tuple of the packet they quote, so the
 *   error reaches that packet's flow;
 * - IP fragments by their datagram: a first fragment carries the ports,
 *   and the router remembers each datagram's flow (source, destination,
 *   protocol, identification; 30 s, bounded), so later fragments follow
 *   it. A fragment that comes before its first fragment is held (a copy)
 *   until the first comes, then delivered right after it; a datagram whose
 *   first fragment never comes (timeout, eviction, end of the capture) is
 *   delivered to a pseudo-flow between its two addresses (ports 0), as are
 *   fragments of protocols without ports.
 *
 * The router keeps no flows and makes no findings: its decisions depend on
 * the packets alone, so they are the same for any number of threads. */
#ifndef PD_ROUTER_H
#define PD_ROUTER_H

#include <stdbool.h>
#include <stdint.h>

#include "dissect/packet.h"

typedef enum pd_route_kind {
	PD_ROUTE_NONE = 0, /* not for a flow (ARP, ICMP echo, malformed transport, ...) */
	PD_ROUTE_TCP,
	PD_ROUTE_UDP,
	PD_ROUTE_FRAGMENT, /* a non-first fragment of the flow's datagram */
	PD_ROUTE_ICMP_ERROR, /* an error quoting a packet of the flow */
} pd_route_kind;

typedef struct pd_route {
	uint8_t kind; /* pd_route_kind */
	uint8_t proto; /* the flow's protocol */
	bool pseudo; /* FRAGMENT, ICMP_ERROR: the pseudo-flow (ports 0) */
	uint32_t shard;
	uint64_t hash; /* pd_flow_hash of the tuple below */
	/* the flow's tuple as a packet from a to b would show it (for an
	 * ICMP error: the quoted packet's) */
	pd_addr a, b;
	uint16_t pa, pb;
} pd_route;

/* The shard of a flow hash (pd_flow_hash): its high bits, since the table
 * inside a shard indexes with the low ones. */
static inline uint32_t pd_shard_of(uint64_t hash, uint32_t n_shards)
{
	return (uint32_t)((hash >> 40) % n_shards);
}

/* A fragment the router held, now to be delivered (it owns its bytes). */
typedef struct pd_held {
	pd_packet pkt; /* points into data */
	uint8_t *data;
	pd_route route;
	struct pd_held *next;
} pd_held;

typedef struct pd_router pd_router;

pd_router *pd_router_new(uint32_t n_shards);
void pd_router_free(pd_router *r);

typedef enum pd_route_result {
	PD_ROUTED, /* deliver pkt now with *out */
	PD_HELD, /* the router kept a copy; nothing to deliver now */
	PD_NOT_ROUTED, /* not for a flow */
} pd_route_result;

/* Routes pkt (data: its frame's bytes). */
pd_route_result pd_router_route(pd_router *r, const pd_packet *pkt, const uint8_t *data, pd_route *out);

/* Held fragments due now, in the order they are to be delivered: those of
 * the datagram whose first fragment was just routed, and, after `now`
 * advanced (pd_router_expire) or at the end (pd_router_flush), those whose
 * datagram timed out. The caller delivers them and frees the list with
 * pd_held_free. */
pd_held *pd_router_take(pd_router *r);
void pd_router_expire(pd_router *r, pd_time now);
void pd_router_flush(pd_router *r);
void pd_held_free(pd_held *h);

/* Fragments held now, and their bytes (for the tests and the stats). */
uint64_t pd_router_held(const pd_router *r, uint64_t *bytes);

#endif
