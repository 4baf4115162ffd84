/* A flow as detectors see it: what the engine (analyzer/) has learnt from
 * the flow's packets so far. Detectors get a const view during a hook and
 * keep their own per-flow state in their own block (heuristics/detector.h);
 * they never keep a pointer to a flow past the hook. Index 0 is always the
 * client (the side that sent the first SYN, or a guess when the handshake
 * was not captured), index 1 the server. */
#ifndef PD_FLOW_H
#define PD_FLOW_H

#include "dissect/packet.h"

#define PD_CLIENT 0
#define PD_SERVER 1

/* One direction of a TCP connection, named by its sender. */
typedef struct pd_tcp_half {
	uint64_t pkts;
	uint64_t ip_bytes; /* sum of IP total lengths */
	uint64_t payload_bytes; /* all payload bytes incl. retransmissions */
	uint64_t unique_bytes; /* new-data bytes only */
	uint64_t max_in_flight; /* highest bytes-in-flight seen from this sender */
	pd_time last_tsval_time;
	pd_time last_ack_ts; /* when last_ack last changed or was duplicated */
	pd_time last_pkt_ts;
	pd_time last_pure_ts, last_data_ts_copy;
	pd_time last_data_ts; /* last segment with new data */
	pd_time rtt_sent;

	uint32_t isn;
	uint32_t next_seq; /* highest seq + len (+SYN/FIN) sent: SND.NXT as seen; see seq_valid */
	uint32_t last_ack; /* latest cumulative ACK this side sent; see ack_valid */
	uint32_t win; /* latest window advertised, in bytes (scaled when known) */
	uint32_t last_tsval;
	uint32_t max_payload; /* largest segment payload sent */

	/* analysis counters, Wireshark's tcp.analysis.* for segments this side sent */
	uint32_t retrans, fast_retrans, spurious, ooo, lost_segment, ack_unseen;
	uint32_t dupacks, zero_win, zwp, win_full, win_update, keepalive;
	uint32_t syn_count, fin_count, rst_count;

	/* bookkeeping for the classification */
	uint32_t dupack_run; /* consecutive duplicate ACKs */
	uint32_t last_seg_flags; /* PD_SEG_* of the last segment this side sent */
	/* the last pure ACK this side sent, to recognise the same ACK captured
	 * twice (tcpdump -i any on a router or bridge) rather than a new dup ACK */
	uint32_t last_pure_sig, last_data_sig;
	uint32_t fin_seq; /* see fin_valid */
	uint32_t rtt_seq_end; /* the outstanding RTT sample; see rtt_pending */

	uint16_t win_raw;
	uint16_t mss; /* announced in its SYN; 0 none/unknown */

	bool seen; /* sent at least one packet */
	bool syn_seen;
	bool seq_valid; /* next_seq is meaningful */
	bool ack_valid;
	bool win_known; /* at least one window seen */
	int8_t wscale_offered; /* in its SYN; -1 none or not seen */
	int8_t wscale; /* shift applied to its windows; -1 unknown (no handshake) */
	bool sack_permitted;
	bool ts_offered; /* TS option in its SYN */
	bool tsval_seen;
	uint8_t link_dirs; /* bit (PD_LINK_* - 1) for each way the link header said its packets went */
	bool fin_valid;
	bool rtt_pending; /* one outstanding RTT sample (Karn: none across retransmission) */
	uint8_t os; /* pd_peer_os its first SYN's TTL and options point to (dissect/peer_os.h) */
} pd_tcp_half;

typedef enum pd_flow_state {
	PD_FLOW_NEW = 0,
	PD_FLOW_SYN_SENT,
	PD_FLOW_SYN_RCVD, /* SYN-ACK seen */
	PD_FLOW_ESTABLISHED, /* handshake ACK, or mid-stream pick-up */
	PD_FLOW_CLOSING, /* one FIN */
	PD_FLOW_CLOSED, /* both FINs, or RST */
} pd_flow_state;

/* Why a flow ended (set before on_flow_end). */
typedef enum pd_flow_end {
	PD_END_TIMEOUT = 0, /* idle past its timeout, or closed and lingered */
	PD_END_REUSED, /* a new connection took its 4-tuple */
	PD_END_EVICTED, /* a cap made room for newer flows (--max-flows, half-open flood) */
	PD_END_CAPTURE, /* the capture ended while it was still alive */
} pd_flow_end;

typedef struct pd_flow {
	/* unique in the capture: the frame number of the flow's first packet
	 * (reports number flows 0, 1, 2... in this order, like tcp.stream) */
	uint64_t id;
	uint8_t proto; /* 6 TCP, 17 UDP; another IP protocol for a pseudo-flow of
			* fragments whose first fragment the capture lacks */
	pd_addr addr[2]; /* [PD_CLIENT], [PD_SERVER] */
	uint16_t port[2];
	bool roles_from_syn; /* client/server known from a SYN */
	/* made for IP fragments alone: a datagram whose first fragment (with
	 * the ports) the capture lacks, or a protocol without ports; ports 0 */
	bool pseudo;
	bool rst_seen; /* a RST (see close_ts) */
	uint8_t end_reason; /* pd_flow_end: valid in on_flow_end */
	pd_time first_ts, last_ts;
	uint64_t first_frame, last_frame;
	uint64_t pkts;

	/* [PD_CLIENT], [PD_SERVER]: the engine keeps them beside the flow's
	 * detector blocks, so an idle flow's are packed with those */
	const pd_tcp_half *half;
	pd_flow_state state;
	uint32_t rtt_count; /* RTT samples taken (rtt_min, rtt_max, rtt_sum below) */

	/* handshake, times of first occurrence; frame 0 = not seen */
	uint64_t syn_frame, synack_frame, hs_ack_frame;
	pd_time syn_ts, synack_ts, hs_ack_ts;
	pd_time syn_last_ts; /* latest client SYN before the first SYN-ACK */
	pd_time hs_rtt; /* SYN to handshake ACK; -1 unknown */
	pd_time close_ts; /* first FIN or RST */

	/* RTT samples from data/ACK pairs (ns; their count is above) */
	pd_time rtt_min, rtt_max, rtt_sum;

	/* application protocol (nDPI's name): NULL while the flow lives, set
	 * before on_flow_end ("Unknown" if nothing better); an interned string,
	 * valid as long as the process */
	const char *app;
} pd_flow;

/* Per-segment result of the TCP analysis (Wireshark-like expert flags). */
#define PD_SEG_NEW_DATA (1u << 0)
#define PD_SEG_RETRANS (1u << 1)
#define PD_SEG_FAST_RETRANS (1u << 2)
#define PD_SEG_SPURIOUS (1u << 3)
#define PD_SEG_OOO (1u << 4)
#define PD_SEG_DUP_ACK (1u << 5)
#define PD_SEG_ZERO_WIN (1u << 6)
#define PD_SEG_ZWP (1u << 7)
#define PD_SEG_WIN_FULL (1u << 8)
#define PD_SEG_WIN_UPDATE (1u << 9)
#define PD_SEG_KEEPALIVE (1u << 10)
#define PD_SEG_PREV_LOST (1u << 11) /* previous segment not captured */
#define PD_SEG_ACK_UNSEEN (1u << 12) /* ACKs data the capture never saw */
#define PD_SEG_SYN (1u << 13)
#define PD_SEG_SYN_RETRANS (1u << 14) /* SYN or SYN-ACK repeated */
#define PD_SEG_NEW_FLOW (1u << 15) /* this packet created the flow */
#define PD_SEG_PORT_REUSE (1u << 16) /* SYN restarted a closed 4-tuple */
/* the previous segment of this side captured again (same IP ID / options,
 * within 10 ms; 1 ms without an ID): tcpdump -i any on a router or bridge,
 * SPAN */
#define PD_SEG_CAPTURE_COPY (1u << 17)
/* the same packet was captured before, within 10 ms (any earlier copy; the
 * engine compares whole packets across the capture: pd_capture_facts) */
#define PD_SEG_CAPTURE_DUP (1u << 18)

typedef struct pd_seg {
	int dir; /* sender: PD_CLIENT or PD_SERVER */
	uint32_t flags; /* PD_SEG_* */
	uint32_t seq_end; /* seq + payload (+SYN/FIN) */
	uint64_t in_flight; /* sender's unacked bytes after this segment */
	pd_time rtt; /* > 0 when this ACK completed an RTT sample */
	uint32_t acked; /* bytes newly acknowledged by this segment */
} pd_seg;

/* Helpers shared by the engine and detectors. */
static inline int32_t pd_seq_diff(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b);
}
static inline bool pd_seq_lt(uint32_t a, uint32_t b)
{
	return pd_seq_diff(a, b) < 0;
}
static inline bool pd_seq_le(uint32_t a, uint32_t b)
{
	return pd_seq_diff(a, b) <= 0;
}

/* Peer index. */
static inline int pd_peer(int dir)
{
	return dir ^ 1;
}

#endif
