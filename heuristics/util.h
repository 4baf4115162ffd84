/* Helpers several detectors need, kept in one place so that they agree:
 * the same flow gets the same RTT, MSS and endpoint text in every finding,
 * and the tables keyed on addresses hash and compare them the same way. */
#ifndef PD_HEURISTICS_UTIL_H
#define PD_HEURISTICS_UTIL_H

#include <glib.h>
#include <string.h>

#include "heuristics/detector.h"

/* ---- flow figures ---- */

/* The handshake RTT, unless the handshake had a repeated SYN or SYN-ACK
 * and data/ACK samples show it cannot be right: then the largest sample.
 * Without a handshake, the smallest sample; 0 when there is none. */
pd_time pd_flow_rtt(const pd_flow *f);

/* From the cooked header's packet directions alone (tcpdump -i any):
 * PD_CLIENT or PD_SERVER when the capture ran on that host,
 * PD_VANTAGE_MIDDLE when packets were forwarded through it, else
 * PD_VANTAGE_UNKNOWN. */
#define PD_VANTAGE_UNKNOWN (-1)
#define PD_VANTAGE_MIDDLE 2
int pd_flow_link_vantage(const pd_flow *f);

/* Events in the busiest second: a sliding second of ten 100 ms bins. */
#define PD_RATE_BINS 10
typedef struct pd_rate_1s {
	int64_t bin_idx; /* INT64_MIN: no event yet (times may be negative) */
	uint32_t bins[PD_RATE_BINS];
	uint32_t sum; /* of bins: the current sliding second */
	uint32_t peak; /* most events in any sliding second */
	pd_time peak_ts;
} pd_rate_1s;

void pd_rate_init(pd_rate_1s *r);
void pd_rate_add(pd_rate_1s *r, pd_time ts);

/* Slot of a time bin in a ring of n: capture clocks can be negative (before
 * 1970) or step back, so the index must never go negative. */
static inline size_t pd_bin_index(int64_t bin, size_t n)
{
	int64_t m = bin % (int64_t)n;
	return (size_t)(m < 0 ? m + (int64_t)n : m);
}

/* The side the capture was taken next to: the link header's word when it
 * has one, else the handshake timing (the side that answers within a
 * quarter of the RTT). PD_CLIENT, PD_SERVER, or -1 when it cannot be told
 * (no full handshake, RTT under 1 ms, or a capture in the middle). */
int pd_flow_vantage(const pd_flow *f);

/* The largest payload side s may send: the peer's announced MSS less the
 * timestamp option when both sides use it; without one, the largest payload
 * s sent (at least 536). With trust_seen, a payload larger than the
 * announced MSS (TSO on a sender-side capture) wins too: the window
 * detector needs the real segment size, the others the announced one. */
uint32_t pd_flow_mss(const pd_flow *f, int s, bool trust_seen);

/* ---- text ---- */

/* An address, IPv6 in brackets so that "addr:port" stays readable; "?" if
 * it cannot be printed. */
void pd_addr_bracketed(const pd_addr *a, char *buf, size_t len);
/* "ip:port" of one side of a flow ("[ip]:port" for IPv6). */
void pd_flow_endpoint(const pd_flow *f, int side, char *buf, size_t len);
/* "once" or "N times" (capitalised: "Once"), for details; buf holds 24. */
const char *pd_times(uint64_t n, bool capital, char buf[24]);

/* ---- addresses as table keys ---- */

#define PD_FNV_BASIS 2166136261u
#define PD_FNV_PRIME 16777619u
/* FNV-1a over zero bytes only multiplies: twelve of them (the unused tail
 * of an IPv4 address) are one multiplication by PD_FNV_PRIME^12. */
#define PD_FNV_PRIME_12 0xd38c7031u

static inline uint32_t pd_fnv_run(uint32_t h, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * PD_FNV_PRIME;
	return h;
}

/* FNV-1a continued over 16 address bytes; the same value as byte by byte,
 * with the zero tail of an IPv4 address done in one step. */
static inline uint32_t pd_fnv_addr_bytes(uint32_t h, const uint8_t *b)
{
	uint32_t t0;
	uint64_t t1;
	memcpy(&t0, b + 4, 4);
	memcpy(&t1, b + 8, 8);
	h = pd_fnv_run(h, b, 4);
	if (!t0 && !t1)
		return h * PD_FNV_PRIME_12;
	return pd_fnv_run(h, b + 4, 12);
}

/* FNV-1a over the family and all 16 bytes. */
static inline uint32_t pd_addr_fnv(const pd_addr *a)
{
	return pd_fnv_addr_bytes(PD_FNV_BASIS ^ a->family, a->bytes);
}
/* Same family and all 16 bytes equal (unused bytes are zero in a pd_addr). */
bool pd_addr_same(const pd_addr *a, const pd_addr *b);

/* FNV of a flow's client and server address, the start of every table
 * keyed on the pair (the 4-tuple tables below, churn's and the timestamp
 * clocks' pair tables): a detector may compute it once per flow. */
static inline uint32_t pd_flow_pair_fnv(const pd_flow *f)
{
	return pd_addr_fnv(&f->addr[PD_CLIENT]) * 31u + pd_addr_fnv(&f->addr[PD_SERVER]);
}

/* ---- recently finished 4-tuples (TIME_WAIT memory) ----
 *
 * A fixed open-addressed table whose entries start with a pd_tw_tuple,
 * followed by the detector's own fields; n_slots is a power of two and an
 * entry is looked for in `probe` consecutive slots from the tuple's hash.
 * The probes read two small side arrays of n_slots each, not the entries
 * (a slot's tag: its tuple's hash with the low bit set, 0 while free; and
 * its end_ts): a miss then costs a cache line or two, not one per slot. */
typedef struct pd_tw_tuple {
	bool used;
	pd_addr c, s; /* client, server */
	uint16_t cp, sp;
	pd_time end_ts;
} pd_tw_tuple;

typedef struct pd_tw_table {
	void *slots;
	size_t elem_size;
	uint32_t n_slots;
	int probe;
	uint32_t *tags; /* zeroed with the entries */
	pd_time *ends;
} pd_tw_table;

/* The flow's 4-tuple hash from its pd_flow_pair_fnv. */
static inline uint32_t pd_tw_hash(const pd_flow *f, uint32_t pair_fnv)
{
	return pair_fnv ^ ((uint32_t)f->port[0] << 16 | f->port[1]) * 2654435761u;
}

/* The flow's entry, or NULL; h is pd_tw_hash of the flow. */
pd_tw_tuple *pd_tw_lookup(const pd_tw_table *t, const pd_flow *f, uint32_t h);
/* The flow's entry as is; else a free slot or one older than hold (zeroed
 * and keyed), else the oldest one (likewise). Either way its end_ts
 * becomes now. */
pd_tw_tuple *pd_tw_slot(const pd_tw_table *t, pd_time hold, const pd_flow *f, uint32_t h, pd_time now);

/* ---- flows by the 5-tuple an ICMP error quotes ----
 *
 * A GHashTable keyed on pd_tuple (client side as source), so that the
 * header quoted in an ICMP error finds its flow in either direction. */
typedef struct pd_tuple {
	uint8_t fam, proto;
	uint16_t sport, dport;
	uint8_t src[16], dst[16];
} pd_tuple;

void pd_tuple_of_flow(pd_tuple *t, const pd_flow *f);
guint pd_tuple_hash(gconstpointer p);
gboolean pd_tuple_eq(gconstpointer a, gconstpointer b);
/* Maps the flow to value, creating *map on first use; false (nothing
 * added) once the map holds max entries. */
bool pd_tuple_map_add(GHashTable **map, const pd_flow *flow, void *value, guint max);
void pd_tuple_map_remove(GHashTable *map, const pd_flow *flow);
/* The value for the quoted header in (src, sp) -> (dst, dp) with protocol
 * proto, or for the reverse direction; *dir says which side sent it.
 * NULL when map is NULL or neither direction is there. */
void *pd_tuple_map_find(GHashTable *map, const pd_ip *in, uint8_t proto, uint16_t sp, uint16_t dp, int *dir);

/* ---- statistics ---- */

/* Median of v[0..n) (n > 0), sorting v in place; even n: mean of the two
 * middle values. */
double pd_median_u32(uint32_t *v, uint32_t n);

#endif
