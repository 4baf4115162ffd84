/* An in-process harness: one detector (or a few) fed packets built in C,
 * through the real engine (dissector, router, flow table, TCP engine,
 * collector), on one thread, without nDPI. For unit cases of a detector's
 * rules beside the golden captures made by the kernel (docs/hacking.md).
 *
 *   pd_harness *h = pd_harness_new("nagle");
 *   pd_hflow c = pd_harness_connect(h, "10.0.0.1:40000", "10.0.0.2:80", 0.010);
 *   pd_harness_data(h, &c, PD_CLIENT, 100);  ... pd_harness_at(h, 1.5); ...
 *   pd_report *r = pd_harness_finish(h);
 *   const pd_finding *f = pd_harness_finding(r, "nagle-delayed-ack", 0);
 *
 * Times are seconds from the start of the capture; frames are numbered
 * 1, 2, 3... in the order they are fed, as Wireshark would. */
#ifndef PD_HARNESS_H
#define PD_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include "heuristics/flow.h"
#include "report/model.h"

typedef struct pd_harness pd_harness;

/* detectors: comma-separated names to run (NULL: all of them). */
pd_harness *pd_harness_new(const char *detectors);
/* Ends the capture: the report (the caller frees it) and the harness. */
pd_report *pd_harness_finish(pd_harness *h);

/* The clock: packets fed from now on carry this time. */
void pd_harness_at(pd_harness *h, double seconds);
void pd_harness_later(pd_harness *h, double seconds);
double pd_harness_now(const pd_harness *h);

/* One TCP segment as it is on the wire (IPv4 over Ethernet). */
typedef struct pd_hseg {
	uint8_t flags; /* PD_TCP_* */
	uint32_t seq, ack;
	uint32_t win; /* the raw 16-bit field */
	uint32_t len; /* payload bytes (zeros) */
	uint16_t mss; /* 0: no MSS option */
	int8_t wscale; /* -1: no window-scale option */
	bool sack_ok; /* SACK-permitted option */
	bool ts; /* timestamp option, with tsval / tsecr */
	uint32_t tsval, tsecr;
	uint8_t ttl; /* 0: 64 */
	uint16_t ipid; /* 0: the harness numbers them */
	bool df;
	uint8_t sacks; /* SACK blocks (pairs of edges below) */
	uint32_t sack_left[3], sack_right[3];
	uint8_t tos; /* the IP TOS byte: its low two bits are ECN (3: CE) */
	/* NULL: MSS, SACK permitted, timestamps, window scale (each when set
	 * above), NOPs to the next 4 bytes; else the options in this order, in
	 * dissect/peer_os.h's letters (M N W S T E), EOLs to the next 4 bytes
	 * after an E (a stack's own SYN: "MNWNNS" is Windows') */
	const char *layout;
} pd_hseg;

/* Sends seg from src to dst ("10.0.0.1:40000"); returns its frame number. */
uint64_t pd_harness_tcp(pd_harness *h, const char *src, const char *dst, const pd_hseg *seg);
uint64_t pd_harness_udp(pd_harness *h, const char *src, const char *dst, uint32_t len);
/* The first n (at most 16) bytes of the payload of every UDP datagram
 * and first fragment fed from now on (n 0: zeros again), e.g. a DNS ID or
 * an RPC xid. */
void pd_harness_udp_head(pd_harness *h, const uint8_t *bytes, size_t n);
/* One IPv4 fragment (ID ident) of a UDP datagram of len payload bytes from
 * src to dst: its bytes [offset, offset + flen) counted from the UDP
 * header (offset a multiple of 8; the fragment at 0 carries the header;
 * more-fragments set unless it reaches the end). Returns its frame. */
uint64_t pd_harness_udp_fragment(pd_harness *h, const char *src, const char *dst, uint32_t len, uint16_t ident,
				 uint32_t offset, uint32_t flen);
/* One IPv4 fragment of protocol proto (no transport header read): flen
 * zero bytes at offset (a multiple of 8), more fragments to come if more.
 * Returns its frame. */
uint64_t pd_harness_ip_fragment(pd_harness *h, const char *src, const char *dst, uint8_t proto, uint16_t ident,
				uint32_t offset, uint32_t flen, bool more);
/* An ICMP "fragmentation needed" (MTU mtu) from router, quoting frame
 * `quoted`'s IP header and first 8 transport bytes, sent to its source. */
uint64_t pd_harness_icmp_frag_needed(pd_harness *h, const char *router, uint64_t quoted, uint32_t mtu);

/* A TCP connection the harness keeps the sequence numbers of. */
typedef struct pd_hflow {
	char client[32], server[32];
	uint32_t next[2]; /* next sequence number each side sends */
	uint32_t tsval[2]; /* each side's TS clock, when ts */
	bool ts;
	double rtt; /* seconds; the harness spaces a packet and its answer by it */
} pd_hflow;

/* SYN, SYN-ACK, ACK with MSS 1460, window scale 7, SACK and timestamps,
 * rtt apart (client side: the SYN-ACK comes rtt after the SYN). */
pd_hflow pd_harness_connect(pd_harness *h, const char *client, const char *server, double rtt);
/* The same with the ISNs given (connect uses 1000 and 900000): a new
 * connection on a 4-tuple needs a new ISN, or its SYN is a retransmission. */
pd_hflow pd_harness_connect_isn(pd_harness *h, const char *client, const char *server, double rtt, uint32_t isn_client,
				uint32_t isn_server);
/* The same with each side's SYN from a given stack: its TTL and its
 * options' layout (pd_hseg.layout; NULL as connect). Timestamps on the
 * data only when both layouts have a T. */
pd_hflow pd_harness_connect_os(pd_harness *h, const char *client, const char *server, double rtt, uint8_t client_ttl,
			       const char *client_layout, uint8_t server_ttl, const char *server_layout);
/* len bytes of data from side dir (PD_CLIENT/PD_SERVER), with ACK; one
 * segment; returns its frame. */
uint64_t pd_harness_data(pd_harness *h, pd_hflow *c, int dir, uint32_t len);
/* A pure ACK from side dir for everything the other side sent. */
uint64_t pd_harness_ack(pd_harness *h, pd_hflow *c, int dir);
/* FIN from side dir (with ACK). */
uint64_t pd_harness_fin(pd_harness *h, pd_hflow *c, int dir);
/* For segments the helpers above do not make (a zero window, a probe, a
 * retransmission): the segment side dir would send now (seq, ack, window
 * 502, timestamps as the flow keeps them), to edit, then send with
 * pd_harness_send, which moves the flow's next sequence number past it
 * when it is new data (or a SYN or a FIN). */
pd_hseg pd_harness_seg(const pd_harness *h, const pd_hflow *c, int dir, uint8_t flags, uint32_t len);
uint64_t pd_harness_send(pd_harness *h, pd_hflow *c, int dir, const pd_hseg *seg);

/* Reading the report. */
const pd_finding *pd_harness_finding(const pd_report *r, const char *id, int n);
int pd_harness_count(const pd_report *r, const char *id);
/* A metric's value, NAN when absent. */
double pd_harness_metric(const pd_finding *f, const char *key);

#endif
