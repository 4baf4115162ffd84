/* The detector contract (docs/hacking.md explains it with an example).
 *
 * A detector is one file heuristics/det_<name>.c defining one
 * `const pd_detector pd_det_<name>`, plus its name in heuristics/meson.build.
 * It is written as if the program were single-threaded and has two parts:
 *
 * - Flow hooks (on_tcp, on_udp, on_fragment, on_icmp_error) see one flow,
 *   packet by packet in capture order: a const view of the flow as the
 *   engine has updated it, and the detector's own per-flow block `fs`
 *   (flow_state_size bytes, zeroed when the flow starts). They change
 *   nothing but fs and keep no pointer to the flow or the packet.
 * - Capture-wide hooks (on_flow_end, on_end) run one at a time, in capture
 *   order: each flow, when it ends, is handed over with its block, then
 *   on_end runs after the last one. Only these hooks see the detector's
 *   global block `g` (global_state_size bytes, zeroed) and make findings
 *   (heuristics/finding.h). What a detector needs across flows, it
 *   gathers here from the flows that ended.
 *
 * fs is the detector's: it frees what it allocated in on_flow_end. A flow
 * ends when it closes and lingers, idles past its timeout, gives way to a
 * new connection on its 4-tuple, is evicted by a cap, or the capture ends. */
#ifndef PD_DETECTOR_H
#define PD_DETECTOR_H

#include <stdbool.h>
#include <stddef.h>

#include "dissect/packet.h"
#include "heuristics/finding.h"
#include "heuristics/flow.h"

typedef struct pd_detector {
	const char *name; /* short: JUnit test names and docs */
	/* the finding ids it reports, NULL-terminated: checked against the
	 * catalogue at start-up both ways */
	const char *const *emits;
	size_t flow_state_size;
	size_t global_state_size;
	/* The flow hooks see a TCP flow from its first payload segment on,
	 * and a flow that never carries payload gets no block and no
	 * on_flow_end: for detectors about data transfer (scans and floods
	 * then cost them nothing). */
	bool from_payload;
	/* A detector that is not from_payload may also ask for a second
	 * per-flow block, payload_state_size bytes, zeroed and made at the
	 * flow's first TCP payload with the from_payload blocks (and packed
	 * with them when the flow idles): what it keeps about data, which a
	 * SYN flood's half-open flows must not pay for. pd_ctx_payload()
	 * gives it to the flow hooks and on_flow_end; NULL before. */
	size_t payload_state_size;

	/* Which TCP segments on_tcp is for (PD_ON_* bits; 0: every one). It
	 * is called for a segment of one of these kinds only, so a detector
	 * about handshakes or closes costs nothing on the in-order data and
	 * pure ACKs that make most of a capture. */
	uint32_t on_tcp_for;

	void (*init)(pd_ctx *ctx, void *g);
	/* each TCP segment (of on_tcp_for's kinds), after the engine updated
	 * the flow; seg says what it was */
	void (*on_tcp)(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, const pd_seg *seg);
	/* each UDP datagram (seg: dir and the flow-level flags only) */
	void (*on_udp)(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, const pd_seg *seg);
	/* an IP fragment of the flow that is not its datagram's first (the
	 * first comes through on_tcp/on_udp); dir: its sender */
	void (*on_fragment)(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, int dir);
	/* an ICMP or ICMPv6 error quoting a packet of the flow; dir: the side
	 * that sent the quoted packet */
	void (*on_icmp_error)(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, int dir);
	/* the flow ended: the last look at it and its block */
	void (*on_flow_end)(pd_ctx *ctx, void *g, const pd_flow *flow, void *fs);
	/* end of the capture, after every flow ended */
	void (*on_end)(pd_ctx *ctx, void *g);
	void (*fini)(void *g); /* release what g owns */
} pd_detector;

/* The kinds of TCP segment for on_tcp_for; a segment is of every kind
 * that fits it (a FIN with new data: PD_ON_FIN_RST and PD_ON_NEW_DATA). */
#define PD_ON_SYN (1u << 0) /* SYN or SYN-ACK */
#define PD_ON_FIN_RST (1u << 1) /* FIN or RST */
#define PD_ON_NEW_DATA (1u << 2) /* payload the engine marked PD_SEG_NEW_DATA */
#define PD_ON_OTHER_DATA (1u << 3) /* payload without it: resends, out of order, probes */
#define PD_ON_ACK (1u << 4) /* none of the above: no payload, no SYN, FIN or RST */

/* registry.c, generated from heuristics/meson.build */
extern const pd_detector *const pd_detectors[];
extern const size_t pd_detectors_len;

/* Every id a detector emits is in the catalogue, every catalogue id has an
 * emitter, and no from_payload detector asks for a payload block; aborts
 * naming the first that is not (a programming error, caught by any run). */
void pd_detectors_check(void);

/* What the engine measured about the capture itself, for the capture
 * quality notes; complete in on_end (NULL before). */
#define PD_FACT_EXAMPLES 8
typedef struct pd_capture_facts {
	uint64_t ip_packets;
	/* frames cut by the snap length */
	uint64_t truncated, truncated_frame;
	pd_time truncated_ts;
	uint64_t max_tcp_payload_hdr, max_tcp_payload_captured;
	/* frames with a timestamp earlier than a frame before them */
	uint64_t back_steps, back_frame;
	pd_time back_max, back_ts;
	/* the same packet captured again (same addresses, IP ID, sequence,
	 * ACK, flags, length, SACK; within 10 ms, 1 ms without an IP ID) */
	uint64_t dup_frames;
	uint64_t dup_frame[PD_FACT_EXAMPLES], dup_last_frame;
	pd_time dup_ts[PD_FACT_EXAMPLES], dup_last_ts;
	/* flows finished early to keep within --max-flows (per shard) */
	uint64_t flows_evicted, evicted_frame;
	pd_time evicted_ts;
	uint64_t max_flows, max_flows_per_shard;
	uint32_t shards;
	/* ICMP errors quoting a packet of no flow the engine had then */
	uint64_t icmp_unmatched, icmp_unmatched_frag_needed, icmp_unmatched_frame;
	uint32_t icmp_unmatched_min_mtu;
	pd_time icmp_unmatched_ts;
	/* Frames not decoded down to TCP, UDP, ICMP or an IP fragment (a link
	 * type, tunnel, ethertype or IP protocol pcapdoc does not read, or a
	 * header cut or lying), with their wire bytes; link-control frames
	 * (ARP, LLDP, STP, LACP, EAPOL) are counted apart: a network always
	 * has some and nothing in them is a transport problem. */
	uint64_t frames, wire_bytes;
	uint64_t unread, unread_bytes, unread_frame;
	pd_time unread_ts;
	uint64_t unread_no_link, unread_not_ip, unread_cut, unread_malformed, unread_proto, unread_tunnel;
	uint64_t link_control, link_control_bytes;
	int unread_linktype; /* the first link type not decoded */
	uint16_t unread_ethertype; /* the most frequent non-IP ethertype not link control */
	uint8_t unread_ip_proto; /* the most frequent IP protocol not analysed */
	uint8_t unread_tunnel_kind, unread_tunnel_why; /* the largest row of tunnels left closed */
	uint16_t unread_tunnel_type;
} pd_capture_facts;
const pd_capture_facts *pd_ctx_facts(const pd_ctx *ctx);

/* What any hook may read about the capture. */
/* Flow hooks: the packet's time. on_flow_end: when the flow ended (the
 * capture time at which its timeout fired, or the last packet's time at
 * the end of the capture). on_end: the last packet's time. */
pd_time pd_ctx_now(const pd_ctx *ctx);
/* Flow hooks and on_flow_end: the calling detector's payload block of the
 * flow (payload_state_size), or NULL before the flow's first payload. */
void *pd_ctx_payload(const pd_ctx *ctx);
/* The first frame's time: the origin of "t = ... s" in details. */
pd_time pd_ctx_start(const pd_ctx *ctx);
uint32_t pd_ctx_snaplen(const pd_ctx *ctx);

#endif
