/* Per-segment TCP analysis; see tcp_engine.h. The checks and their order
 * follow the definitions engineers know from Wireshark's TCP analysis, so
 * that counts can be compared with tshark's tcp.analysis.* fields. */
#include "tcp_engine.h"

#include <string.h>

#include "dissect/peer_os.h"

static bool is_well_known(uint16_t port)
{
	return port != 0 && port < 1024;
}

bool pd_tcp_sender_is_client(const pd_packet *pkt)
{
	uint8_t fl = pkt->tcp.flags;
	if (fl & PD_TCP_SYN)
		return !(fl & PD_TCP_ACK);
	bool s_wk = is_well_known(pkt->tcp.sport), d_wk = is_well_known(pkt->tcp.dport);
	if (s_wk != d_wk)
		return d_wk;
	/* Picked up mid-stream between two high ports: the one in the
	 * ephemeral range (Linux's 32768-60999, IANA's 49152-65535: both from
	 * 32768) is the client's, when the other is not (nDPI's coap_mqtt.pcap:
	 * 53524 -> 17501 first seen from 17501's side). */
	bool s_eph = pkt->tcp.sport >= 32768, d_eph = pkt->tcp.dport >= 32768;
	if (s_eph != d_eph)
		return s_eph;
	return true;
}

bool pd_tcp_starts_new_connection(const pd_flow *f, int dir, const pd_packet *pkt)
{
	uint8_t fl = pkt->tcp.flags;
	if (!(fl & PD_TCP_SYN) || (fl & PD_TCP_ACK) || f->pkts == 0)
		return false;
	const pd_tcp_half *h = &f->half[dir];
	if (h->syn_seen)
		return h->isn != pkt->tcp.seq; /* same ISN: a retransmission */
	/* No SYN from this side yet: the flow was picked up mid-stream or the
	 * SYN comes from the former server; either way a new connection. */
	return true;
}

static void half_init(pd_tcp_half *h)
{
	h->wscale_offered = -1;
	h->wscale = -1;
}

/* Window scaling takes effect only when both SYNs carried the option. */
static void resolve_wscale(pd_flow *f)
{
	pd_tcp_half *c = pd_flow_half_mut(f, PD_CLIENT), *s = pd_flow_half_mut(f, PD_SERVER);
	if (!c->syn_seen || !s->syn_seen)
		return;
	if (c->wscale_offered >= 0 && s->wscale_offered >= 0) {
		c->wscale = c->wscale_offered;
		s->wscale = s->wscale_offered;
	} else {
		c->wscale = 0;
		s->wscale = 0;
	}
}

static void count_flags(pd_tcp_half *h, uint32_t fl)
{
	h->retrans += !!(fl & PD_SEG_RETRANS);
	h->fast_retrans += !!(fl & PD_SEG_FAST_RETRANS);
	h->spurious += !!(fl & PD_SEG_SPURIOUS);
	h->ooo += !!(fl & PD_SEG_OOO);
	h->lost_segment += !!(fl & PD_SEG_PREV_LOST);
	h->ack_unseen += !!(fl & PD_SEG_ACK_UNSEEN);
	h->dupacks += !!(fl & PD_SEG_DUP_ACK);
	h->zero_win += !!(fl & PD_SEG_ZERO_WIN);
	h->zwp += !!(fl & PD_SEG_ZWP);
	h->win_full += !!(fl & PD_SEG_WIN_FULL);
	h->win_update += !!(fl & PD_SEG_WIN_UPDATE);
	h->keepalive += !!(fl & PD_SEG_KEEPALIVE);
}

/* A segment identical to the previous one of its kind (pure ACK or data)
 * from this side, including the IPv4 ID (Linux gives every packet of a
 * connected socket a new ID), or without an ID the same options within
 * 1 ms, is one packet captured twice (tcpdump -i any on a router or bridge
 * sees it on both interfaces; a SPAN port), not a second duplicate ACK or a
 * retransmission. A pure ACK without an ID or SACK blocks cannot be told
 * from a real duplicate ACK, so it stays one. */
static bool capture_copy(pd_tcp_half *h, const pd_packet *pkt)
{
	const pd_tcp *t = &pkt->tcp;
	bool v4id = pkt->ip.version == 4 && pkt->ip.ident != 0;
	bool data = t->payload_len > 0;
	uint32_t sig = 0;
	if (v4id || data || t->sack_count > 0) {
		sig = t->ack * 2654435761u ^ t->window * 40503u ^ (v4id ? pkt->ip.ident : 0) * 97u ^
		      (t->has_ts ? t->tsval ^ (t->tsecr << 3) : 0) * 2246822519u;
		sig = (sig ^ t->seq) * 16777619u ^ (t->payload_len << 8 | t->flags);
		for (uint8_t i = 0; i < t->sack_count && i < PD_MAX_SACK_BLOCKS; i++)
			sig = (sig ^ t->sack_left[i] ^ (t->sack_right[i] << 7)) * 16777619u;
		sig |= 1; /* 0: none remembered */
	}
	uint32_t *last = data ? &h->last_data_sig : &h->last_pure_sig;
	pd_time *last_ts = data ? &h->last_data_ts_copy : &h->last_pure_ts;
	pd_time win = v4id ? 10 * 1000 * 1000 : 1000 * 1000;
	bool copy = sig && sig == *last && pkt->ts >= *last_ts && pkt->ts - *last_ts <= win;
	if (!copy) {
		*last = sig;
		*last_ts = pkt->ts;
	}
	return copy;
}

void pd_tcp_engine_update(pd_flow *f, int dir, const pd_packet *pkt, pd_seg *seg)
{
	const pd_tcp *t = &pkt->tcp;
	pd_tcp_half *h = pd_flow_half_mut(f, dir), *peer = pd_flow_half_mut(f, pd_peer(dir));
	const uint8_t fl = t->flags;
	const bool syn = fl & PD_TCP_SYN, fin = fl & PD_TCP_FIN, rst = fl & PD_TCP_RST;
	const bool ack = fl & PD_TCP_ACK;
	const uint32_t seq = t->seq;
	const uint32_t seglen = t->payload_len + (syn ? 1u : 0u) + (fin ? 1u : 0u);

	if (f->pkts == 0) {
		half_init(pd_flow_half_mut(f, 0));
		half_init(pd_flow_half_mut(f, 1));
		f->hs_rtt = -1;
		f->rtt_min = -1;
	}
	memset(seg, 0, sizeof(*seg));
	seg->dir = dir;
	seg->seq_end = seq + seglen;
	f->pkts++;
	h->seen = true;
	h->pkts++;
	h->ip_bytes += pkt->ip.total_len;
	h->payload_bytes += t->payload_len;
	if (t->payload_len > h->max_payload)
		h->max_payload = t->payload_len;
	if (pkt->link_dir != PD_LINK_DIR_UNKNOWN)
		h->link_dirs |= (uint8_t)(1u << (pkt->link_dir - 1));

	/* The window in a SYN is never scaled. */
	uint64_t win = t->window;
	if (!syn && h->wscale > 0)
		win <<= h->wscale;

	uint32_t flags = 0;
	if (syn) {
		flags |= PD_SEG_SYN;
		h->syn_count++;
		if (h->syn_seen && seq == h->isn) {
			flags |= PD_SEG_RETRANS | PD_SEG_SYN_RETRANS;
		} else if (!h->syn_seen) {
			h->syn_seen = true;
			h->isn = seq;
			h->wscale_offered = t->wscale;
			h->mss = t->has_mss ? t->mss : 0;
			h->sack_permitted = t->sack_permitted;
			h->ts_offered = t->has_ts;
			h->os = (uint8_t)pd_peer_os_of_syn(pkt);
			h->seq_valid = true;
			h->next_seq = seq + seglen;
		}
		if (!ack) {
			if (!f->syn_frame) {
				f->syn_frame = pkt->frame_no;
				f->syn_ts = pkt->ts;
				if (f->state < PD_FLOW_SYN_SENT)
					f->state = PD_FLOW_SYN_SENT;
			}
			/* The handshake RTT is measured from the SYN the ACK answers:
			 * the latest one, even when it crossed a SYN-ACK. */
			f->syn_last_ts = pkt->ts;
		} else if (!f->synack_frame) {
			f->synack_frame = pkt->frame_no;
			f->synack_ts = pkt->ts;
			if (f->state < PD_FLOW_SYN_RCVD)
				f->state = PD_FLOW_SYN_RCVD;
		}
		resolve_wscale(f);
	} else if (!rst && h->seq_valid) {
		/* Wireshark's order: probe, lost segment, keep-alive, ... */
		if (seglen == 1 && seq == h->next_seq && peer->win_known && peer->win == 0)
			flags |= PD_SEG_ZWP;
		if (pd_seq_lt(h->next_seq, seq))
			flags |= PD_SEG_PREV_LOST;
		if (seglen <= 1 && !fin && seq == h->next_seq - 1)
			flags |= PD_SEG_KEEPALIVE;
	}

	if (!syn && !fin && !rst && win == 0)
		flags |= PD_SEG_ZERO_WIN;

	bool copy = !syn && !rst && capture_copy(h, pkt);
	bool ack_copy = copy && seglen == 0 && ack;
	if (copy)
		flags |= PD_SEG_CAPTURE_COPY;
	if (!ack_copy && !syn && !fin && !rst && seglen == 0 && h->seq_valid && seq == h->next_seq && ack &&
	    h->ack_valid && t->ack == h->last_ack && h->win_known && win != 0) {
		/* ACKs answering a keep-alive or a window probe repeat the
		 * last ACK by design: not duplicates. */
		if (win != h->win)
			flags |= PD_SEG_WIN_UPDATE;
		else if (!(flags & (PD_SEG_KEEPALIVE | PD_SEG_ZWP)) &&
			 !(peer->last_seg_flags & (PD_SEG_KEEPALIVE | PD_SEG_ZWP)))
			flags |= PD_SEG_DUP_ACK;
	}

	if (!syn && !fin && !rst && seglen > 0 && peer->ack_valid && peer->win_known &&
	    seq + seglen == peer->last_ack + (uint32_t)peer->win)
		flags |= PD_SEG_WIN_FULL;

	if (ack && peer->seq_valid && pd_seq_lt(peer->next_seq, t->ack))
		flags |= PD_SEG_ACK_UNSEEN;

	/* Data (or FIN) below what this side already sent: not new. */
	if (!syn && !rst && seglen > 0 && h->seq_valid && pd_seq_lt(seq, h->next_seq) &&
	    !(flags & (PD_SEG_KEEPALIVE | PD_SEG_ZWP))) {
		/* Wireshark's order: fast retransmission (>= 2 dup ACKs for this
		 * very byte, the last one under 20 ms ago), spurious (already
		 * ACKed), out-of-order (soon after the highest segment, within
		 * the handshake RTT or 3 ms), else a plain retransmission. */
		pd_time ooo_thresh = f->hs_rtt > 0 ? f->hs_rtt : PD_OOO_DEFAULT_NS;
		if (peer->dupack_run >= 2 && peer->ack_valid && seq == peer->last_ack &&
		    pkt->ts - peer->last_ack_ts < 20 * 1000 * 1000)
			flags |= PD_SEG_RETRANS | PD_SEG_FAST_RETRANS;
		else if (peer->ack_valid && pd_seq_le(seq + seglen, peer->last_ack))
			flags |= PD_SEG_RETRANS | PD_SEG_SPURIOUS;
		else if (pkt->ts - h->last_data_ts < ooo_thresh && h->next_seq != seq + seglen)
			flags |= PD_SEG_OOO;
		else
			flags |= PD_SEG_RETRANS;
	}
	count_flags(h, flags);

	/* Advance what this side has sent. A window probe's byte is sent
	 * again with the next real segment, so it does not advance. */
	if (!syn && !rst && seglen > 0 && !(flags & PD_SEG_ZWP)) {
		if (!h->seq_valid) {
			h->seq_valid = true;
			h->next_seq = seq + seglen;
			if (t->payload_len)
				flags |= PD_SEG_NEW_DATA;
			h->unique_bytes += t->payload_len;
			h->last_data_ts = pkt->ts;
		} else if (pd_seq_lt(h->next_seq, seq + seglen)) {
			uint32_t from = pd_seq_lt(h->next_seq, seq) ? seq : h->next_seq;
			uint32_t fresh = seq + seglen - from - (fin ? 1u : 0u);
			if (t->payload_len && !(flags & PD_SEG_RETRANS))
				flags |= PD_SEG_NEW_DATA;
			h->unique_bytes += fresh;
			h->next_seq = seq + seglen;
			h->last_data_ts = pkt->ts;
		}
	} else if (!h->seq_valid && !rst) {
		h->seq_valid = true;
		h->next_seq = seq + seglen;
	}

	/* RTT: one sample outstanding per side; none across retransmissions. */
	if (flags & PD_SEG_RETRANS)
		h->rtt_pending = false;
	else if ((flags & PD_SEG_NEW_DATA) && !h->rtt_pending) {
		h->rtt_pending = true;
		h->rtt_seq_end = seq + seglen;
		h->rtt_sent = pkt->ts;
	}

	if (ack) {
		if (!h->ack_valid || pd_seq_lt(h->last_ack, t->ack)) {
			if (h->ack_valid)
				seg->acked = t->ack - h->last_ack;
			h->last_ack = t->ack;
			h->ack_valid = true;
			h->last_ack_ts = pkt->ts;
		}
		if (ack_copy)
			; /* the same ACK captured again: the run is unchanged */
		else if (!(flags & PD_SEG_DUP_ACK))
			h->dupack_run = 0;
		else {
			h->dupack_run++;
			h->last_ack_ts = pkt->ts;
		}
		if (peer->rtt_pending && pd_seq_le(peer->rtt_seq_end, t->ack)) {
			pd_time rtt = pkt->ts - peer->rtt_sent;
			if (rtt > 0 && rtt <= PD_RTT_MAX_NS) {
				seg->rtt = rtt;
				if (f->rtt_min < 0 || rtt < f->rtt_min)
					f->rtt_min = rtt;
				if (rtt > f->rtt_max)
					f->rtt_max = rtt;
				f->rtt_sum += rtt;
				f->rtt_count++;
			}
			peer->rtt_pending = false;
		}
		/* The handshake's third packet: the client ACKs the SYN-ACK. */
		if (dir == PD_CLIENT && !syn && f->synack_frame && !f->hs_ack_frame && peer->syn_seen &&
		    t->ack == peer->isn + 1) {
			f->hs_ack_frame = pkt->frame_no;
			f->hs_ack_ts = pkt->ts;
			pd_time start = f->syn_last_ts ? f->syn_last_ts : f->syn_ts;
			if (start && pkt->ts >= start && pkt->ts - start <= PD_RTT_MAX_NS)
				f->hs_rtt = pkt->ts - start;
			if (f->state < PD_FLOW_ESTABLISHED)
				f->state = PD_FLOW_ESTABLISHED;
		}
	}
	if (!rst) {
		h->win = win;
		h->win_raw = t->window;
		h->win_known = true;
	}

	if (h->seq_valid && peer->ack_valid) {
		int32_t inflight = pd_seq_diff(h->next_seq, peer->last_ack);
		seg->in_flight = inflight > 0 ? (uint64_t)inflight : 0;
		if (seg->in_flight > h->max_in_flight)
			h->max_in_flight = seg->in_flight;
	}

	if (!syn && f->state == PD_FLOW_NEW)
		f->state = PD_FLOW_ESTABLISHED; /* picked up mid-stream */
	if (fin) {
		h->fin_count++;
		if (!h->fin_valid) {
			h->fin_valid = true;
			h->fin_seq = seq + t->payload_len;
		}
		if (!f->close_ts)
			f->close_ts = pkt->ts;
		f->state = peer->fin_valid ? PD_FLOW_CLOSED : PD_FLOW_CLOSING;
	}
	if (rst) {
		h->rst_count++;
		f->rst_seen = true;
		if (!f->close_ts)
			f->close_ts = pkt->ts;
		f->state = PD_FLOW_CLOSED;
	}
	h->last_pkt_ts = pkt->ts;
	h->last_seg_flags = flags;
	seg->flags = flags;
}
