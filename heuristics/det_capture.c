/* Notes about the capture itself, not the network: where it was taken
 * (vantage), segmentation/receive offload, packets the capture missed
 * although the peer acknowledged them, snaplen truncation, flows seen in
 * one direction only, timestamps going backwards, and packets captured
 * twice. All info, category capture: they tell the reader how far the
 * other findings can be trusted. */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "heuristics/detector.h"
#include "heuristics/util.h"

#define CP_NEAR_RATIO 4 /* one handshake leg this many times the other */
#define CP_MIN_LEG_NS (100 * 1000LL) /* below: processing noise */
#define CP_MIDDLE_NS (1000 * 1000LL) /* both legs at least this: in between */
#define CP_DUP_WINDOW_NS (10 * 1000 * 1000LL)
#define CP_DUP_WINDOW6_NS (1000 * 1000LL) /* no IP ID in IPv6: be stricter */
#define CP_DUP_SLOTS 4096 /* power of two */
#define CP_JUMBO_PAYLOAD 9216 /* above any jumbo-frame MSS */

enum { CP_V_UNKNOWN = 0, CP_V_CLIENT, CP_V_SERVER, CP_V_MIDDLE, CP_V_CLOSE, CP_V__N };

typedef struct cp_dir {
	uint32_t n_super, max_super;
	uint64_t super_frame;
	pd_time super_ts;
	/* a hole in this sender's data, waiting to be filled or ACKed */
	bool gap, gap_acked; /* acked: the peer ACKed past it; a drop unless it shows up later */
	uint32_t gap_lo, gap_hi;
	uint64_t gap_frame;
	pd_time gap_ts;
	uint32_t next; /* next_seq before this packet */
	bool next_valid;
} cp_dir;

/* Allocated once a flow carries data: handshake-only flows (a SYN flood)
 * cost only the small block below. */
typedef struct cp_data {
	cp_dir d[2];
	uint32_t drops, drop_bytes;
	uint64_t drop_frame;
	pd_time drop_ts;
} cp_data;

typedef struct cp_flow {
	cp_data *m;
	uint8_t ttl[2];
	bool ttl_seen[2];
	uint32_t acks_seen[2]; /* packets with ACK, not SYN, per sender */
	uint32_t ack_adv[2]; /* ACKs that advanced */
	uint32_t dups, dups_retx;
	uint8_t vantage;
	bool fragmented; /* TCP over IP fragments: sequence gaps mean nothing here */
	/* handshake legs, from the SYN-ACK that answered the last SYN */
	pd_time syn_ts, synack_ts, leg_a, leg_b;
	bool have_a, have_b;
} cp_flow;

typedef struct cp_dup_slot {
	uint64_t sig;
	pd_time ts;
} cp_dup_slot;

#define CP_MEMO_BITS 10
typedef struct cp_memo {
	uint64_t key; /* IPv4 source << 32 | destination */
	uint64_t h; /* cp_sig_addrs of that pair; 0 while empty */
} cp_memo;

typedef struct cp_global {
	/* vantage */
	uint64_t v_count[CP_V__N];
	uint64_t v_by_ttl;
	uint64_t v_by_link; /* decided by the cooked header's packet type */
	double v_a_sum[CP_V__N], v_b_sum[CP_V__N];
	uint64_t v_frame;
	pd_time v_ts;
	/* offload */
	pd_finding *tso, *gro;
	uint64_t tso_segs, gro_segs, tso_max, gro_max, tso_unknown_flows;
	/* drops */
	pd_finding *drops;
	uint64_t drop_events, drop_bytes;
	/* snaplen */
	uint64_t trunc, ip_pkts, max_hdr_payload, max_cap_payload;
	uint64_t trunc_frame;
	pd_time trunc_ts;
	/* one direction */
	pd_finding *onedir;
	uint64_t onedir_flows, tcp_flows;
	/* time */
	bool have_ts;
	pd_time max_ts;
	uint64_t back_n;
	pd_time back_max;
	uint64_t back_frame;
	pd_time back_ts;
	/* duplicates */
	cp_dup_slot *slots;
	cp_memo memo[1u << CP_MEMO_BITS];
	uint64_t dup_n, dup_retx, dup_frame_last;
	pd_finding *dups;
} cp_global;

/* ----------------------------------------------------------- packets */

static uint64_t cp_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

/* The signature's first 16 rounds (one per address byte pair): what the
 * two addresses alone give. */
static uint64_t cp_sig_addrs(const pd_ip *ip)
{
	uint64_t h = 1469598103934665603ull;
	for (int i = 0; i < 16; i++)
		h = cp_mix(h, ((uint64_t)ip->src.bytes[i] << 8) | ip->dst.bytes[i]);
	return h;
}

/* cp_sig_addrs through a small memo of recent IPv4 pairs: most packets
 * come from a few host pairs, and the 16 rounds are one dependent chain.
 * The value is the same either way (a memo, not another hash: the slot a
 * packet lands in decides which duplicates the table still holds). */
static uint64_t cp_sig_addrs_v4(cp_global *g, const pd_ip *ip)
{
	uint32_t s, d;
	memcpy(&s, ip->src.bytes, 4);
	memcpy(&d, ip->dst.bytes, 4);
	uint64_t key = (uint64_t)s << 32 | d;
	cp_memo *m = &g->memo[(key * 0x9e3779b97f4a7c15ull) >> (64 - CP_MEMO_BITS)];
	if (m->h && m->key == key)
		return m->h;
	uint64_t h = cp_sig_addrs(ip);
	m->key = key;
	m->h = h; /* a pair whose value is 0 reads as empty: recomputed each time */
	return h;
}

/* What makes a frame the same packet: addresses, IP ID, and for TCP the
 * sequence, ACK, flags, length, window, timestamp and SACK blocks. */
static uint64_t cp_sig(cp_global *g, const pd_packet *pkt)
{
	const pd_ip *ip = &pkt->ip;
	uint32_t s_hi, d_hi;
	uint64_t s_tail, d_tail;
	memcpy(&s_hi, ip->src.bytes + 4, 4);
	memcpy(&d_hi, ip->dst.bytes + 4, 4);
	memcpy(&s_tail, ip->src.bytes + 8, 8);
	memcpy(&d_tail, ip->dst.bytes + 8, 8);
	uint64_t h = !s_hi && !d_hi && !s_tail && !d_tail ? cp_sig_addrs_v4(g, ip) : cp_sig_addrs(ip);
	h = cp_mix(h, ((uint64_t)ip->version << 40) | ((uint64_t)ip->proto << 32) | ip->total_len);
	h = cp_mix(h, ((uint64_t)ip->ident << 16) | ip->frag_offset);
	if (pkt->l4 == PD_L4_TCP) {
		const pd_tcp *t = &pkt->tcp;
		h = cp_mix(h, ((uint64_t)t->sport << 16) | t->dport);
		h = cp_mix(h, ((uint64_t)t->seq << 32) | t->ack);
		h = cp_mix(h, ((uint64_t)t->flags << 48) | ((uint64_t)t->window << 32) | t->payload_len);
		h = cp_mix(h, ((uint64_t)t->tsval << 32) | t->tsecr);
		/* duplicate ACKs may repeat everything above (a stack that keeps
		 * the IP ID for pure ACKs, a coarse timestamp clock) while their
		 * SACK blocks move on: those are new packets */
		for (uint8_t i = 0; i < t->sack_count && i < PD_MAX_SACK_BLOCKS; i++)
			h = cp_mix(h, ((uint64_t)t->sack_left[i] << 32) | t->sack_right[i]);
	} else if (pkt->l4 == PD_L4_UDP) {
		h = cp_mix(h, ((uint64_t)pkt->udp.sport << 16) | pkt->udp.dport);
		if (pkt->udp.payload && pkt->udp.payload_captured >= 8) {
			uint64_t v;
			memcpy(&v, pkt->udp.payload, 8);
			h = cp_mix(h, v);
		}
	}
	return h ? h : 1;
}

static bool cp_dup_candidate(const pd_packet *pkt)
{
	const pd_ip *ip = &pkt->ip;
	if (ip->version == 4 && ip->ident != 0)
		return true; /* a new datagram gets a new ID */
	/* No ID to tell copies apart (IPv6, or IPv4 ID 0 as Linux uses for
	 * SYN-ACKs): identical pure ACKs are normal duplicate ACKs, and a
	 * SYN-ACK is legitimately re-sent at once for a repeated SYN; only
	 * data segments are compared (within a tighter window). */
	if (pkt->l4 != PD_L4_TCP || (pkt->tcp.flags & PD_TCP_SYN))
		return false;
	return pkt->tcp.payload_len > 0;
}

static void cp_on_packet(pd_run *run, void *gv, const pd_packet *pkt)
{
	(void)run;
	cp_global *g = gv;
	/* The signature's table slot is rarely in cache: ask for it before
	 * the bookkeeping below. */
	bool cand = cp_dup_candidate(pkt) && pkt->malformed == PD_MAL_NONE;
	uint64_t sig = 0;
	if (cand) {
		if (!g->slots)
			g->slots = g_new0(cp_dup_slot, CP_DUP_SLOTS);
		sig = cp_sig(g, pkt);
		__builtin_prefetch(&g->slots[sig & (CP_DUP_SLOTS - 1)]);
	}
	g->ip_pkts++;
	if (g->have_ts && pkt->ts < g->max_ts) {
		pd_time back = g->max_ts - pkt->ts;
		if (!g->back_n) {
			g->back_frame = pkt->frame_no;
			g->back_ts = pkt->ts;
		}
		g->back_n++;
		if (back > g->back_max)
			g->back_max = back;
	} else {
		g->max_ts = pkt->ts;
		g->have_ts = true;
	}
	if (pkt->snap_truncated || pkt->caplen < pkt->wirelen) {
		if (!g->trunc) {
			g->trunc_frame = pkt->frame_no;
			g->trunc_ts = pkt->ts;
		}
		g->trunc++;
	}
	if (pkt->l4 == PD_L4_TCP) {
		if (pkt->tcp.payload_len > g->max_hdr_payload)
			g->max_hdr_payload = pkt->tcp.payload_len;
		if (pkt->tcp.payload_captured > g->max_cap_payload)
			g->max_cap_payload = pkt->tcp.payload_captured;
	}

	if (!cand)
		return;
	cp_dup_slot *s = &g->slots[sig & (CP_DUP_SLOTS - 1)];
	pd_time win = pkt->ip.version == 4 && pkt->ip.ident ? CP_DUP_WINDOW_NS : CP_DUP_WINDOW6_NS;
	if (s->sig == sig && pkt->ts >= s->ts && pkt->ts - s->ts <= win) {
		g->dup_n++;
		g->dup_frame_last = pkt->frame_no;
		if (!g->dups)
			g->dups = pd_finding_get(run, "capture-duplicates", NULL);
		pd_finding_occurrence(g->dups, pkt, "same packet captured again");
		/* keep the first copy's time: a third copy is a dup too */
		return;
	}
	s->sig = sig;
	s->ts = pkt->ts;
}

/* --------------------------------------------------------------- TCP */

static void cp_drop(cp_data *c, uint32_t bytes, uint64_t frame, pd_time ts)
{
	/* More than any window allows: sequence confusion (reused ports,
	 * TFO, injected packets), not a stretch the capture missed. */
	if (bytes > (1u << 24))
		return;
	c->drops++;
	c->drop_bytes += bytes;
	if (!c->drop_frame) {
		c->drop_frame = frame;
		c->drop_ts = ts;
	}
}

static void cp_on_tcp(pd_run *run, void *gv, pd_flow *flow, void *fs, const pd_packet *pkt, const pd_seg *seg)
{
	cp_global *g = gv;
	cp_flow *c = fs;
	const pd_tcp *t = &pkt->tcp;
	int dir = seg->dir;
	if (!c->ttl_seen[dir]) {
		c->ttl[dir] = pkt->ip.ttl;
		c->ttl_seen[dir] = true;
	}
	if (t->flags & PD_TCP_ACK) {
		if (!(t->flags & PD_TCP_SYN))
			c->acks_seen[dir]++;
		if (seg->acked)
			c->ack_adv[dir]++;
	}
	/* Handshake legs: pair each SYN-ACK with the SYN before it and the
	 * handshake ACK with the SYN-ACK before it (retries make the first
	 * SYN and SYN-ACK the wrong pair). */
	if ((t->flags & (PD_TCP_SYN | PD_TCP_ACK)) == PD_TCP_SYN && dir == PD_CLIENT) {
		c->syn_ts = pkt->ts;
	} else if ((t->flags & (PD_TCP_SYN | PD_TCP_ACK)) == (PD_TCP_SYN | PD_TCP_ACK) && dir == PD_SERVER &&
		   c->syn_ts && !c->have_b) {
		c->synack_ts = pkt->ts;
		c->leg_a = pkt->ts - c->syn_ts;
		c->have_a = true;
	} else if (flow->hs_ack_frame == pkt->frame_no && c->have_a && !c->have_b) {
		c->leg_b = pkt->ts - c->synack_ts;
		c->have_b = true;
	}
	if (g->dup_frame_last == pkt->frame_no) {
		c->dups++;
		if (seg->flags & PD_SEG_RETRANS) {
			c->dups_retx++;
			g->dup_retx++;
		}
		pd_finding_add_flow(run, g->dups, flow);
	}

	uint32_t len = t->payload_len;
	if (!c->m && !len)
		return;
	if (!c->m)
		c->m = g_new0(cp_data, 1);
	cp_data *m = c->m;
	cp_dir *d = &m->d[dir], *peer = &m->d[pd_peer(dir)];

	/* Super-segments: larger than the receiver's MSS allows. */
	if (len && !(t->flags & PD_TCP_SYN)) {
		const pd_tcp_half *rcv = &flow->half[pd_peer(dir)];
		uint32_t lim;
		if (rcv->syn_seen)
			lim = rcv->mss ? rcv->mss : (pkt->ip.version == 6 ? 1220 : 536); /* RFC default */
		else
			lim = CP_JUMBO_PAYLOAD;
		if (len > lim) {
			if (!d->n_super) {
				d->super_frame = pkt->frame_no;
				d->super_ts = pkt->ts;
			}
			d->n_super++;
			if (len > d->max_super)
				d->max_super = len;
		}
	}

	/* Holes in this sender's data, and whether a copy ever filled them.
	 * A hole the peer ACKed is a capture drop only if nothing fills it
	 * later (merged captures can show the ACK before the data). */
	const pd_tcp_half *h = &flow->half[dir];
	if (pkt->ip.is_fragment)
		c->fragmented = true;
	if (d->gap && len && pd_seq_lt(t->seq, d->gap_hi) && pd_seq_lt(d->gap_lo, t->seq + len))
		d->gap = false; /* filled: lost on the network (or reordered), not by the capture */
	if ((seg->flags & PD_SEG_PREV_LOST) && d->next_valid && d->gap && d->gap_acked && d->gap_lo == d->next) {
		/* the hole the peer's ACKs already revealed (ACK_UNSEEN came
		 * before the data above it): the same stretch, not a second one */
		if (pd_seq_lt(d->gap_hi, t->seq))
			d->gap_hi = t->seq;
	} else if ((seg->flags & PD_SEG_PREV_LOST) && d->next_valid && (!d->gap || d->gap_acked)) {
		if (d->gap)
			cp_drop(m, d->gap_hi - d->gap_lo, d->gap_frame, d->gap_ts);
		d->gap = true;
		d->gap_acked = false;
		d->gap_lo = d->next;
		d->gap_hi = t->seq;
		d->gap_frame = pkt->frame_no;
		d->gap_ts = pkt->ts;
	}
	if (h->seq_valid) {
		d->next = h->next_seq;
		d->next_valid = true;
	}

	if (t->flags & PD_TCP_ACK) {
		if (peer->gap && pd_seq_le(peer->gap_hi, t->ack))
			peer->gap_acked = true;
		/* ACK beyond anything seen: the tail was missed (not at a mid-stream start). */
		uint32_t pnext = flow->half[pd_peer(dir)].next_seq;
		if ((seg->flags & PD_SEG_ACK_UNSEEN) && peer->gap && peer->gap_acked && peer->gap_lo == pnext) {
			if (pd_seq_lt(peer->gap_hi, t->ack))
				peer->gap_hi = t->ack; /* the same missing tail, ACKed further */
		} else if ((seg->flags & PD_SEG_ACK_UNSEEN) && (!peer->gap || peer->gap_acked) &&
			   (flow->syn_frame || flow->pkts > 3)) {
			if (peer->gap)
				cp_drop(m, peer->gap_hi - peer->gap_lo, peer->gap_frame, peer->gap_ts);
			peer->gap = true;
			peer->gap_acked = true;
			peer->gap_lo = flow->half[pd_peer(dir)].next_seq;
			peer->gap_hi = t->ack;
			peer->gap_frame = pkt->frame_no;
			peer->gap_ts = pkt->ts;
		}
	}
}

/* ------------------------------------------------------------ flow end */

static uint8_t cp_vantage(cp_global *g, const pd_flow *f, const cp_flow *c)
{
	/* tcpdump -i any records which way each packet went: trust it first. */
	int link = pd_flow_link_vantage(f);
	uint8_t lv = link == PD_CLIENT ? CP_V_CLIENT
		     : link == PD_SERVER ? CP_V_SERVER
		     : link == PD_VANTAGE_MIDDLE ? CP_V_MIDDLE
						 : CP_V_UNKNOWN;
	if (lv != CP_V_UNKNOWN) {
		g->v_by_link++;
		g->v_count[lv]++;
		if (c->have_a && c->have_b && c->leg_a >= 0 && c->leg_b >= 0) {
			g->v_a_sum[lv] += (double)c->leg_a;
			g->v_b_sum[lv] += (double)c->leg_b;
		}
		if (!g->v_frame) {
			g->v_frame = f->first_frame;
			g->v_ts = f->first_ts;
		}
		return lv;
	}
	if (!f->synack_frame || !f->hs_ack_frame || !c->have_a || !c->have_b)
		return CP_V_UNKNOWN;
	pd_time a = c->leg_a, b = c->leg_b;
	if (a < 0 || b < 0)
		return CP_V_UNKNOWN;
	uint8_t v;
	pd_time lo = a < b ? a : b, hi = a < b ? b : a;
	if (hi >= CP_MIN_LEG_NS && hi >= CP_NEAR_RATIO * lo)
		v = a < b ? CP_V_SERVER : CP_V_CLIENT;
	else if (lo >= CP_MIDDLE_NS)
		v = CP_V_MIDDLE;
	else {
		/* Too close to time: a hop count difference can still tell. */
		bool ci = c->ttl[PD_CLIENT] == 64 || c->ttl[PD_CLIENT] == 128 || c->ttl[PD_CLIENT] == 255;
		bool si = c->ttl[PD_SERVER] == 64 || c->ttl[PD_SERVER] == 128 || c->ttl[PD_SERVER] == 255;
		if (ci && !si) {
			v = CP_V_CLIENT;
			g->v_by_ttl++;
		} else if (si && !ci) {
			v = CP_V_SERVER;
			g->v_by_ttl++;
		} else
			v = CP_V_CLOSE;
	}
	g->v_count[v]++;
	g->v_a_sum[v] += (double)a;
	g->v_b_sum[v] += (double)b;
	if (!g->v_frame) {
		g->v_frame = f->synack_frame;
		g->v_ts = f->synack_ts;
	}
	return v;
}

static void cp_offload(pd_run *run, cp_global *g, const pd_flow *f, cp_flow *c, int dir)
{
	if (!c->m)
		return;
	cp_dir *d = &c->m->d[dir];
	if (!d->n_super)
		return;
	/* Near the sender: TSO/GSO; near the receiver (or on a router): GRO/LRO. */
	int near_sender = -1;
	if (c->vantage == CP_V_CLIENT || c->vantage == CP_V_SERVER)
		near_sender = (c->vantage == CP_V_CLIENT) == (dir == PD_CLIENT);
	else if (c->vantage == CP_V_MIDDLE)
		near_sender = 0;
	bool gro = near_sender == 0;
	pd_finding **fp = gro ? &g->gro : &g->tso;
	if (!*fp)
		*fp = pd_finding_get(run, gro ? "capture-offload-gro" : "capture-offload-tso", NULL);
	pd_finding *fd = *fp;
	pd_finding_add_flow(run, fd, f);
	pd_finding_occurrence_at(fd, d->super_frame, d->super_ts,
				 dir == PD_CLIENT ? "client segment above the MSS" : "server segment above the MSS");
	if (gro) {
		g->gro_segs += d->n_super;
		if (d->max_super > g->gro_max)
			g->gro_max = d->max_super;
	} else {
		g->tso_segs += d->n_super;
		if (d->max_super > g->tso_max)
			g->tso_max = d->max_super;
		if (near_sender < 0)
			g->tso_unknown_flows++;
	}
}

static void cp_on_flow_end(pd_run *run, void *gv, pd_flow *flow, void *fs)
{
	cp_global *g = gv;
	cp_flow *c = fs;
	if (flow->proto != 6)
		return;
	g->tcp_flows++;
	c->vantage = cp_vantage(g, flow, c);
	cp_offload(run, g, flow, c, PD_CLIENT);
	cp_offload(run, g, flow, c, PD_SERVER);
	cp_data *m = c->m;
	if (m) {
		for (int i = 0; i < 2; i++)
			if (m->d[i].gap && m->d[i].gap_acked)
				cp_drop(m, m->d[i].gap_hi - m->d[i].gap_lo, m->d[i].gap_frame, m->d[i].gap_ts);
		if (c->fragmented)
			m->drops = 0;
		if (m->drops) {
			if (!g->drops)
				g->drops = pd_finding_get(run, "capture-drops", NULL);
			pd_finding_add_flow(run, g->drops, flow);
			pd_finding_occurrence_at(g->drops, m->drop_frame, m->drop_ts,
						 "data ACKed but not in the capture");
			g->drop_events += m->drops;
			g->drop_bytes += m->drop_bytes;
		}
		g_free(m);
		c->m = NULL;
	}

	/* One side only, and that side acknowledges data we never saw. */
	bool cs = flow->half[PD_CLIENT].seen, ss = flow->half[PD_SERVER].seen;
	if (cs != ss) {
		int only = cs ? PD_CLIENT : PD_SERVER;
		if (c->ack_adv[only] >= 1 && c->acks_seen[only] >= 2) {
			if (!g->onedir)
				g->onedir = pd_finding_get(run, "capture-one-direction", NULL);
			pd_finding_add_flow(run, g->onedir, flow);
			pd_finding_occurrence_at(g->onedir, flow->first_frame, flow->first_ts,
						 only == PD_CLIENT ? "only client packets" : "only server packets");
			g->onedir_flows++;
		}
	}
}

/* ----------------------------------------------------------------- end */

static const char *cp_vname(int v)
{
	switch (v) {
	case CP_V_CLIENT:
		return "near the client";
	case CP_V_SERVER:
		return "near the server";
	case CP_V_MIDDLE:
		return "in between";
	case CP_V_CLOSE:
		return "too close to tell (RTT below processing time)";
	default:
		return "unknown (no handshake)";
	}
}

static void cp_report_vantage(pd_run *run, cp_global *g)
{
	uint64_t total = 0;
	for (int v = CP_V_CLIENT; v < CP_V__N; v++)
		total += g->v_count[v];
	if (!total)
		return;
	pd_finding *f = pd_finding_get(run, "capture-vantage", NULL);
	pd_finding_occurrence_at(f, g->v_frame, g->v_ts, "handshake timing");
	pd_finding_metric(f, "flows_near_client", (double)g->v_count[CP_V_CLIENT], "count");
	pd_finding_metric(f, "flows_near_server", (double)g->v_count[CP_V_SERVER], "count");
	pd_finding_metric(f, "flows_in_between", (double)g->v_count[CP_V_MIDDLE], "count");
	pd_finding_metric(f, "flows_undetermined", (double)g->v_count[CP_V_CLOSE], "count");
	int best = CP_V_CLIENT;
	for (int v = CP_V_CLIENT; v < CP_V__N; v++)
		if (g->v_count[v] > g->v_count[best])
			best = v;
	if (best < CP_V_CLIENT || best >= CP_V__N)
		return;
	/* Nothing could be placed (every handshake too quick to time, same
	 * TTLs, no cooked header): saying so on every report is noise. */
	if (best == CP_V_CLOSE && g->v_count[CP_V_CLOSE] == total) {
		pd_finding_drop(run, f);
		return;
	}
	double n = (double)g->v_count[best];
	double a_ms = g->v_a_sum[best] / n / 1e6, b_ms = g->v_b_sum[best] / n / 1e6;
	pd_finding_metric(f, "syn_to_synack", a_ms, "ms");
	pd_finding_metric(f, "synack_to_ack", b_ms, "ms");
	const char *caveat = "";
	switch (best) {
	case CP_V_CLIENT:
		caveat = "; RTTs measured here are the full path; losses before the server show as the "
			 "client's retransmissions";
		break;
	case CP_V_SERVER:
		caveat = "; the server's own packets are seen before the network, so its data may appear "
			 "as offload super-segments and losses on the path show only as retransmissions";
		break;
	case CP_V_MIDDLE:
		caveat = "; each side's timing includes part of the path";
		break;
	case CP_V_CLOSE:
		caveat = "; client and server are too close (same host, LAN or namespaces) to tell the "
			 "capture side from timing, and both send with the same TTL";
		break;
	default:
		break;
	}
	char ttl[320] = "";
	if (g->v_by_ttl)
		snprintf(ttl, sizeof(ttl),
			 " [%" G_GUINT64_FORMAT " of them decided by TTL: too close to time, but only one side "
			 "arrives with an initial TTL (64/128/255), i.e. unrouted]",
			 g->v_by_ttl);
	pd_finding_metric(f, "flows_by_ttl", (double)g->v_by_ttl, "count");
	pd_finding_metric(f, "flows_by_link_header", (double)g->v_by_link, "count");
	if (g->v_by_link) {
		size_t used = strlen(ttl);
		snprintf(ttl + used, sizeof(ttl) - used,
			 " [%" G_GUINT64_FORMAT " decided by the capture's own record of which way each "
			 "packet went (tcpdump -i any)]",
			 g->v_by_link);
	}
	pd_finding_detail(f,
			  "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
			  " handshakes: captured %s (SYN to SYN-ACK %.3f ms, SYN-ACK to ACK %.3f ms on average)%s%s%s",
			  g->v_count[best], total, cp_vname(best), a_ms, b_ms, ttl, caveat,
			  g->v_count[best] < total ? "; other flows differ (several capture points or paths)" : "");
	f->confidence = best == CP_V_CLOSE ? 0.3 : g->v_by_link >= g->v_count[best] ? 0.95 : 0.8;
}

static void cp_on_end(pd_run *run, void *gv)
{
	cp_global *g = gv;
	cp_report_vantage(run, g);

	if (g->tso) {
		pd_finding *f = g->tso;
		pd_finding_metric(f, "super_segments", (double)g->tso_segs, "count");
		pd_finding_metric(f, "largest_segment", (double)g->tso_max, "bytes");
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " TCP segments larger than the receiver's MSS (up to %" G_GUINT64_FORMAT
				  " B) on %" G_GUINT64_FORMAT " flow%s: %s. The network carried MSS-sized packets; "
				  "pcapdoc does not count these as PMTU or fragmentation problems",
				  g->tso_segs, g->tso_max, f->flow_count, f->flow_count == 1 ? "" : "s",
				  g->tso_unknown_flows ? "the capture side could not be told from timing: TSO/GSO if it "
							 "was taken on the sender (most likely), GRO/LRO if on the receiver"
						       : "captured on the sending host before segmentation (TSO/GSO)");
		f->confidence = g->tso_unknown_flows ? 0.6 : 0.9;
	}
	if (g->gro) {
		pd_finding *f = g->gro;
		pd_finding_metric(f, "merged_segments", (double)g->gro_segs, "count");
		pd_finding_metric(f, "largest_segment", (double)g->gro_max, "bytes");
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " TCP segments larger than the receiver's MSS (up to %" G_GUINT64_FORMAT
				  " B) arriving from the far side on %" G_GUINT64_FORMAT
				  " flow%s: merged by the receiving host (GRO/LRO) before the capture. Packet counts and "
				  "sizes differ from the wire; not a PMTU or fragmentation problem",
				  g->gro_segs, g->gro_max, f->flow_count, f->flow_count == 1 ? "" : "s");
		f->confidence = 0.85;
	}
	if (g->drops) {
		pd_finding *f = g->drops;
		pd_finding_metric(f, "missing_segments", (double)g->drop_events, "count");
		pd_finding_metric(f, "missing_bytes", (double)g->drop_bytes, "bytes");
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " stretches of data (%" G_GUINT64_FORMAT
				  " B) were acknowledged by the receiver but never appear in the capture, and no "
				  "retransmission filled them: the capture dropped them (tcpdump reports 'packets "
				  "dropped by kernel'). Loss counted from this capture is overstated; capture again "
				  "with a bigger buffer (tcpdump -B) or a filter",
				  g->drop_events, g->drop_bytes);
		f->confidence = 0.8;
	}
	if (g->trunc) {
		pd_finding *f = pd_finding_get(run, "capture-snaplen", NULL);
		pd_finding_occurrence_at(f, g->trunc_frame, g->trunc_ts, "frame cut by the snap length");
		uint32_t snap = pd_run_snaplen(run);
		pd_finding_metric(f, "truncated_frames", (double)g->trunc, "count");
		pd_finding_metric(f, "truncated_share", (double)g->trunc / (double)(g->ip_pkts ? g->ip_pkts : 1), "ratio");
		if (snap)
			pd_finding_metric(f, "snaplen", snap, "bytes");
		pd_finding_metric(f, "max_tcp_payload_from_headers", (double)g->max_hdr_payload, "bytes");
		pd_finding_metric(f, "max_tcp_payload_captured", (double)g->max_cap_payload, "bytes");
		char tcp[160] = "";
		if (g->max_hdr_payload > g->max_cap_payload)
			snprintf(tcp, sizeof(tcp),
				 " (largest TCP payload %" G_GUINT64_FORMAT " B although at most %" G_GUINT64_FORMAT
				 " B of one was captured)",
				 g->max_hdr_payload, g->max_cap_payload);
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
				  " IP frames were cut by the snap length (%u B). Sizes, sequence analysis and "
				  "the findings use the lengths in the IP, TCP and UDP headers%s; only payload "
				  "inspection and application detection are limited",
				  g->trunc, g->ip_pkts, snap, tcp);
		f->confidence = 1.0;
	}
	if (g->onedir) {
		pd_finding *f = g->onedir;
		pd_finding_metric(f, "one_way_flows", (double)g->onedir_flows, "count");
		pd_finding_metric(f, "tcp_flows", (double)g->tcp_flows, "count");
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
				  " TCP flows show one side only, although that side acknowledges data from the "
				  "other: %s. RTT, loss and window findings for them are incomplete",
				  g->onedir_flows, g->tcp_flows,
				  g->onedir_flows == g->tcp_flows ? "a capture filter or a tap that sees one direction"
								  : "asymmetric routing past the capture point, or a filter");
		f->confidence = 0.85;
	}
	/* Microsecond reordering between capture queues is harmless noise. */
	if (g->back_n && (g->back_max >= 1000 * 1000LL || g->back_n >= 10)) {
		pd_finding *f = pd_finding_get(run, "capture-time-backwards", NULL);
		pd_finding_occurrence_at(f, g->back_frame, g->back_ts, "earlier than the frame before");
		pd_finding_metric(f, "backward_steps", (double)g->back_n, "count");
		pd_finding_metric(f, "max_step_back", (double)g->back_max / 1e6, "ms");
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " frames carry a timestamp earlier than a frame before them (up "
				  "to %.3f ms back): timings across them are unreliable",
				  g->back_n, (double)g->back_max / 1e6);
		f->confidence = 1.0;
	}
	if (g->dups) {
		pd_finding *f = g->dups;
		pd_finding_metric(f, "duplicate_frames", (double)g->dup_n, "count");
		pd_finding_metric(f, "counted_as_retransmissions", (double)g->dup_retx, "count");
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " frames repeat a frame captured within %d ms (same addresses, "
				  "IP ID, sequence, ACK, flags and length): the capture saw them twice (tcpdump -i "
				  "any with bridge/VLAN/veth devices, or a SPAN port). %" G_GUINT64_FORMAT
				  " of them appear in the retransmission counts but are not network retransmissions",
				  g->dup_n, (int)(CP_DUP_WINDOW_NS / 1000000), g->dup_retx);
		f->confidence = 0.85;
	}
}

static void cp_fini(void *gv)
{
	cp_global *g = gv;
	g_free(g->slots);
}

const pd_detector pd_det_capture = {
	.name = "capture",
	.flow_state_size = sizeof(cp_flow),
	.cost = 6,
	.global_state_size = sizeof(cp_global),
	.on_packet = cp_on_packet,
	.on_tcp = cp_on_tcp,
	.on_flow_end = cp_on_flow_end,
	.on_end = cp_on_end,
	.fini = cp_fini,
};
