/* Helpers several detectors need, kept in one place so that they agree:
 * the same flow gets the same RTT, MSS and endpoint text in every finding,
 * and the tables keyed on a 4-tuple build their key the same way. */
#ifndef PD_HEURISTICS_UTIL_H
#define PD_HEURISTICS_UTIL_H

#include <glib.h>
#include <string.h>

#include "dissect/addr.h"
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

/* Events in the busiest second: the most events in any sliding second
 * (ten 100 ms bins). Events may come out of time order (a capture-wide
 * hook sees flows when they end, not when they started): those within
 * PD_RATE_RING bins of the latest are counted exactly; older ones are
 * left out of the peak. The peak and its time never depend on the order. */
#define PD_RATE_BINS 10
#define PD_RATE_RING 256 /* 25.6 s */
#define PD_RATE_FEW 8 /* events kept as they are before a ring is made */
typedef struct pd_rate_1s {
	int64_t newest; /* newest bin; INT64_MIN: no event yet (times may be negative) */
	/* the first few events' bins (most keys never see more) */
	int64_t few[PD_RATE_FEW];
	uint32_t n_few;
	/* [PD_RATE_RING] each, made past PD_RATE_FEW events: the bins, and the
	 * sum of the window of PD_RATE_BINS bins that starts at each */
	uint16_t *bins;
	uint16_t *windows;
	uint32_t peak; /* most events in any sliding second */
	pd_time peak_ts; /* the earliest second (its start) with that many */
	uint64_t late; /* events too far out of order to count */
} pd_rate_1s;

void pd_rate_init(pd_rate_1s *r);
void pd_rate_add(pd_rate_1s *r, pd_time ts);
void pd_rate_clear(pd_rate_1s *r); /* frees the bins */

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

/* "ip:port" of one side of a flow ("[ip]:port" for IPv6). */
void pd_flow_endpoint(const pd_flow *f, int side, char *buf, size_t len);
/* "once" or "N times" (capitalised: "Once"), for details; buf holds 24. */
const char *pd_times(uint64_t n, bool capital, char buf[24]);

/* ---- a flow's 4-tuple as a table key (heuristics/keytable.h) ---- */

typedef struct pd_tuple_key {
	pd_addr c, s; /* client, server */
	uint16_t cp, sp;
} pd_tuple_key;

/* Fills k (padding zeroed, so the bytes compare) from the flow. */
void pd_tuple_key_of(pd_tuple_key *k, const pd_flow *f);

/* ---- statistics ---- */

/* Median of v[0..n) (n > 0), sorting v in place; even n: mean of the two
 * middle values. */
double pd_median_u32(uint32_t *v, uint32_t n);

#endif
