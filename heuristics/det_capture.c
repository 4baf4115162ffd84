/* Notes about the capture itself, not the network: where it was taken
 * (vantage), segmentation/receive offload, packets the capture missed
 * although the peer acknowledged them, snaplen truncation, flows seen in
 * one direction only, timestamps going backwards, and packets captured
 * twice. All info, category capture: they tell the reader how far the
 * other findings can be trusted. */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "dissect/dissect.h"
#include "heuristics/detector.h"
#include "heuristics/util.h"

#define CP_NEAR_RATIO 4 /* one handshake leg this many times the other */
#define CP_MIN_LEG_NS (100 * 1000LL) /* below: processing noise */
#define CP_MIDDLE_NS (1000 * 1000LL) /* both legs at least this: in between */
#define CP_DUP_WINDOW_MS 10 /* the engine's window for the same packet captured again */
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
	uint32_t next; /* next_seq before this packet, with what IP fragments added */
	bool next_valid;
	/* The latest segment that came as IP fragments: the engine sees only
	 * the first fragment's share, its other fragments carry the rest
	 * (fragment offset o holds sequence fr_seq + o - fr_hdr). */
	bool fr_valid, fr_fin;
	uint32_t fr_id, fr_seq, fr_hdr;
} cp_dir;

/* The detector's payload block (pd_ctx_payload), made by the engine at the
 * flow's first payload: handshake-only flows (a SYN flood) cost only the
 * small block below. */
typedef struct cp_data {
	cp_dir d[2];
	uint32_t drops, drop_bytes;
	uint64_t drop_frame;
	pd_time drop_ts;
	uint32_t frag_drops; /* of them, stretches of IP-fragmented segments */
} cp_data;

typedef struct cp_flow {
	bool m_made; /* the payload block is in use (from the first payload this detector saw) */
	uint8_t ttl[2];
	bool ttl_seen[2];
	uint32_t acks_seen[2]; /* packets with ACK, not SYN, per sender */
	uint32_t ack_adv[2]; /* ACKs that advanced */
	uint32_t dups, dups_retx;
	uint8_t vantage;
	bool fragmented; /* TCP over IP fragments: the gaps are judged with the fragments */
	bool syn_then_ack[2]; /* sent a SYN, then an ACK: it heard a SYN-ACK */
	bool syn_sent[2];
	/* handshake legs, from the SYN-ACK that answered the last SYN */
	pd_time syn_ts, synack_ts, leg_a, leg_b;
	bool have_a, have_b;
} cp_flow;

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
	uint64_t drop_events, drop_bytes, drop_frag_events;
	/* one direction */
	pd_finding *onedir;
	uint64_t onedir_flows, tcp_flows;
	/* duplicates (the engine finds them: PD_SEG_CAPTURE_DUP) */
	uint64_t dup_retx;
	pd_finding *dups;
} cp_global;

/* --------------------------------------------------------------- TCP */

static void cp_drop(cp_data *c, uint32_t bytes, uint64_t frame, pd_time ts, bool frag)
{
	/* More than any window allows: sequence confusion (reused ports,
	 * TFO, injected packets), not a stretch the capture missed. */
	if (bytes > (1u << 24))
		return;
	c->drops++;
	c->drop_bytes += bytes;
	c->frag_drops += frag;
	if (!c->drop_frame) {
		c->drop_frame = frame;
		c->drop_ts = ts;
	}
}

/* The flow's data part, once this detector began to use it; NULL before. */
static cp_data *cp_data_of(const pd_ctx *ctx, const cp_flow *c)
{
	return c->m_made ? pd_ctx_payload(ctx) : NULL;
}

static void cp_on_tcp(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, const pd_seg *seg)
{
	cp_flow *c = fs;
	const pd_tcp *t = &pkt->tcp;
	int dir = seg->dir;
	if (!c->ttl_seen[dir]) {
		c->ttl[dir] = pkt->ip.ttl;
		c->ttl_seen[dir] = true;
	}
	if ((t->flags & (PD_TCP_SYN | PD_TCP_ACK)) == PD_TCP_SYN)
		c->syn_sent[dir] = true;
	else if ((t->flags & PD_TCP_ACK) && !(t->flags & (PD_TCP_SYN | PD_TCP_RST)) && c->syn_sent[dir])
		c->syn_then_ack[dir] = true;
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
	if (seg->flags & PD_SEG_CAPTURE_DUP) {
		c->dups++;
		if (seg->flags & PD_SEG_RETRANS)
			c->dups_retx++;
	}

	uint32_t len = t->payload_len;
	if (!c->m_made && !len)
		return;
	cp_data *m = pd_ctx_payload(ctx);
	if (!m)
		return; /* not reached: the engine makes it at the first payload */
	c->m_made = true;
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
	if (pkt->ip.is_fragment) {
		c->fragmented = true;
		/* a first fragment: the rest of the segment follows in fragments */
		d->fr_valid = true;
		d->fr_id = pkt->ip.ident;
		d->fr_seq = t->seq;
		d->fr_hdr = t->hdr_len;
		d->fr_fin = (t->flags & PD_TCP_FIN) != 0;
	}
	if (d->gap && len && pd_seq_lt(t->seq, d->gap_hi) && pd_seq_lt(d->gap_lo, t->seq + len))
		d->gap = false; /* filled: lost on the network (or reordered), not by the capture */
	/* the engine's "previous segment not captured", unless fragments of
	 * the segment before carried what it missed */
	bool prev_lost = (seg->flags & PD_SEG_PREV_LOST) && d->next_valid && pd_seq_lt(d->next, t->seq);
	if (prev_lost && d->gap && d->gap_acked && d->gap_lo == d->next) {
		/* the hole the peer's ACKs already revealed (ACK_UNSEEN came
		 * before the data above it): the same stretch, not a second one */
		if (pd_seq_lt(d->gap_hi, t->seq))
			d->gap_hi = t->seq;
	} else if (prev_lost && (!d->gap || d->gap_acked)) {
		if (d->gap)
			cp_drop(m, d->gap_hi - d->gap_lo, d->gap_frame, d->gap_ts, c->fragmented);
		d->gap = true;
		d->gap_acked = false;
		d->gap_lo = d->next;
		d->gap_hi = t->seq;
		d->gap_frame = pkt->frame_no;
		d->gap_ts = pkt->ts;
	}
	if (h->seq_valid) {
		/* never behind what fragments showed (the engine counts a first
		 * fragment's share only) */
		if (!d->next_valid || !pd_seq_lt(h->next_seq, d->next))
			d->next = h->next_seq;
		d->next_valid = true;
	}

	if (t->flags & PD_TCP_ACK) {
		if (peer->gap && pd_seq_le(peer->gap_hi, t->ack))
			peer->gap_acked = true;
		/* ACK beyond anything seen: the tail was missed (not at a mid-stream start). */
		uint32_t pnext = peer->next_valid ? peer->next : flow->half[pd_peer(dir)].next_seq;
		bool unseen = (seg->flags & PD_SEG_ACK_UNSEEN) && pd_seq_lt(pnext, t->ack);
		if (unseen && peer->gap && peer->gap_acked && peer->gap_lo == pnext) {
			if (pd_seq_lt(peer->gap_hi, t->ack))
				peer->gap_hi = t->ack; /* the same missing tail, ACKed further */
		} else if (unseen && (!peer->gap || peer->gap_acked) && (flow->syn_frame || flow->pkts > 3)) {
			if (peer->gap)
				cp_drop(m, peer->gap_hi - peer->gap_lo, peer->gap_frame, peer->gap_ts, c->fragmented);
			peer->gap = true;
			peer->gap_acked = true;
			peer->gap_lo = pnext;
			peer->gap_hi = t->ack;
			peer->gap_frame = pkt->frame_no;
			peer->gap_ts = pkt->ts;
		}
	}
}

/* A non-first IP fragment of the flow's TCP segment from dir: the bytes it
 * carries extend what the capture saw of that segment. */
static void cp_on_fragment(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, int dir)
{
	cp_flow *c = fs;
	cp_data *m = cp_data_of(ctx, c);
	if (flow->proto != 6 || !m)
		return;
	cp_dir *d = &m->d[dir];
	const pd_ip *ip = &pkt->ip;
	if (!d->fr_valid || ip->ident != d->fr_id || ip->frag_offset < d->fr_hdr || !d->next_valid)
		return;
	uint32_t lo = d->fr_seq + (ip->frag_offset - d->fr_hdr), hi = lo + ip->frag_payload_len;
	if (!ip->mf && d->fr_fin)
		hi++; /* the segment's FIN follows its last byte */
	/* contiguous with what was seen: the segment's next bytes */
	if (pd_seq_le(lo, d->next) && pd_seq_lt(d->next, hi))
		d->next = hi;
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

static void cp_offload(pd_ctx *ctx, cp_global *g, const pd_flow *f, cp_flow *c, int dir)
{
	cp_data *m = cp_data_of(ctx, c);
	if (!m)
		return;
	cp_dir *d = &m->d[dir];
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
		*fp = pd_finding_get(ctx, gro ? "capture-offload-gro" : "capture-offload-tso", NULL);
	pd_finding *fd = *fp;
	pd_finding_add_flow(ctx, fd, f);
	if (dir == PD_CLIENT)
		pd_finding_occurrence(fd, d->super_frame, d->super_ts, "client segment above the MSS",
				      "客户端发出的超过 MSS 的数据段");
	else
		pd_finding_occurrence(fd, d->super_frame, d->super_ts, "server segment above the MSS",
				      "服务端发出的超过 MSS 的数据段");
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

static void cp_on_flow_end(pd_ctx *ctx, void *gv, const pd_flow *flow, void *fs)
{
	cp_global *g = gv;
	cp_flow *c = fs;
	if (flow->proto != 6 || flow->pseudo)
		return;
	g->tcp_flows++;
	if (c->dups) {
		if (!g->dups)
			g->dups = pd_finding_get(ctx, "capture-duplicates", NULL);
		pd_finding_add_flow(ctx, g->dups, flow);
		g->dup_retx += c->dups_retx;
	}
	c->vantage = cp_vantage(g, flow, c);
	cp_offload(ctx, g, flow, c, PD_CLIENT);
	cp_offload(ctx, g, flow, c, PD_SERVER);
	cp_data *m = cp_data_of(ctx, c);
	if (m) {
		for (int i = 0; i < 2; i++)
			if (m->d[i].gap && m->d[i].gap_acked)
				cp_drop(m, m->d[i].gap_hi - m->d[i].gap_lo, m->d[i].gap_frame, m->d[i].gap_ts, c->fragmented);
		if (m->drops) {
			if (!g->drops)
				g->drops = pd_finding_get(ctx, "capture-drops", NULL);
			pd_finding_add_flow(ctx, g->drops, flow);
			pd_finding_occurrence(g->drops, m->drop_frame, m->drop_ts, "data ACKed but not in the capture",
					      "数据已被确认，但抓包中没有");
			g->drop_events += m->drops;
			g->drop_bytes += m->drop_bytes;
			g->drop_frag_events += m->frag_drops;
		}
	}

	/* One side only, and that side acknowledges data we never saw. */
	bool cs = flow->half[PD_CLIENT].seen, ss = flow->half[PD_SERVER].seen;
	if (cs != ss) {
		int only = cs ? PD_CLIENT : PD_SERVER;
		/* it ACKed data from the other side, or its handshake ACK
		 * answered a SYN-ACK the capture lacks */
		if ((c->ack_adv[only] >= 1 || c->syn_then_ack[only]) && c->acks_seen[only] >= 2) {
			if (!g->onedir)
				g->onedir = pd_finding_get(ctx, "capture-one-direction", NULL);
			pd_finding_add_flow(ctx, g->onedir, flow);
			if (only == PD_CLIENT)
				pd_finding_occurrence(g->onedir, flow->first_frame, flow->first_ts, "only client packets",
						      "只有客户端的报文");
			else
				pd_finding_occurrence(g->onedir, flow->first_frame, flow->first_ts, "only server packets",
						      "只有服务端的报文");
			g->onedir_flows++;
		}
	}
}

/* ----------------------------------------------------------------- end */

static void cp_report_vantage(pd_ctx *ctx, cp_global *g)
{
	uint64_t total = 0;
	for (int v = CP_V_CLIENT; v < CP_V__N; v++)
		total += g->v_count[v];
	if (!total)
		return;
	pd_finding *f = pd_finding_get(ctx, "capture-vantage", NULL);
	pd_finding_occurrence(f, g->v_frame, g->v_ts, "handshake timing", "握手时序");
	pd_finding_metric(f, "flows_near_client", (double)g->v_count[CP_V_CLIENT], PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "flows_near_server", (double)g->v_count[CP_V_SERVER], PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "flows_in_between", (double)g->v_count[CP_V_MIDDLE], PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "flows_undetermined", (double)g->v_count[CP_V_CLOSE], PD_UNIT_COUNT, PD_AGG_SUM);
	int best = CP_V_CLIENT;
	for (int v = CP_V_CLIENT; v < CP_V__N; v++)
		if (g->v_count[v] > g->v_count[best])
			best = v;
	if (best < CP_V_CLIENT || best >= CP_V__N)
		return;
	/* Nothing could be placed (every handshake too quick to time, same
	 * TTLs, no cooked header): saying so on every report is noise. */
	if (best == CP_V_CLOSE && g->v_count[CP_V_CLOSE] == total) {
		pd_finding_drop(ctx, f);
		return;
	}
	double n = (double)g->v_count[best];
	double a_ms = g->v_a_sum[best] / n / 1e6, b_ms = g->v_b_sum[best] / n / 1e6;
	pd_finding_metric(f, "syn_to_synack", a_ms, PD_UNIT_MS, PD_AGG_MAX);
	pd_finding_metric(f, "synack_to_ack", b_ms, PD_UNIT_MS, PD_AGG_MAX);
	pd_finding_metric(f, "flows_by_ttl", (double)g->v_by_ttl, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "flows_by_link_header", (double)g->v_by_link, PD_UNIT_COUNT, PD_AGG_SUM);
	uint64_t k = g->v_count[best];
	switch (best) {
	case CP_V_CLIENT:
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " handshakes: captured near the client (SYN "
				  "to SYN-ACK %.3f ms, SYN-ACK to ACK %.3f ms on average); RTTs measured here are the full "
				  "path; losses before the server show as the client's retransmissions.",
				  "%" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT " 个握手：抓包点靠近客户端（SYN 到 SYN-ACK "
				  "平均 %.3f 毫秒，SYN-ACK 到 ACK 平均 %.3f 毫秒）；这里测得的 RTT 是整条路径的；去往服务端"
				  "途中的丢包表现为客户端的重传。",
				  k, total, a_ms, b_ms);
		break;
	case CP_V_SERVER:
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " handshakes: captured near the server (SYN "
				  "to SYN-ACK %.3f ms, SYN-ACK to ACK %.3f ms on average); the server's own packets are seen "
				  "before the network, so its data may appear as offload super-segments and losses on the "
				  "path show only as retransmissions.",
				  "%" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT " 个握手：抓包点靠近服务端（SYN 到 SYN-ACK "
				  "平均 %.3f 毫秒，SYN-ACK 到 ACK 平均 %.3f 毫秒）；服务端自己的报文在进入网络之前就被抓到，"
				  "所以它的数据可能表现为卸载合并的超大数据段，路径上的丢包只表现为重传。",
				  k, total, a_ms, b_ms);
		break;
	case CP_V_MIDDLE:
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " handshakes: captured in between (SYN to "
				  "SYN-ACK %.3f ms, SYN-ACK to ACK %.3f ms on average); each side's timing includes part of "
				  "the path.",
				  "%" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT " 个握手：抓包点位于两端之间（SYN 到 SYN-ACK "
				  "平均 %.3f 毫秒，SYN-ACK 到 ACK 平均 %.3f 毫秒）；两侧的时序都包含一部分路径。",
				  k, total, a_ms, b_ms);
		break;
	default:
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " handshakes: too close to tell (RTT below "
				  "processing time; SYN to SYN-ACK %.3f ms, SYN-ACK to ACK %.3f ms on average); client and "
				  "server are too close (same host, LAN or namespaces) to tell the capture side from timing, "
				  "and both send with the same TTL.",
				  "%" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT " 个握手：无法判断（RTT 小于处理时间；SYN 到 "
				  "SYN-ACK 平均 %.3f 毫秒，SYN-ACK 到 ACK 平均 %.3f 毫秒）；客户端与服务端离得太近（同一主机、"
				  "局域网或网络命名空间），无法从时序判断抓包点在哪一侧，且双方发出的 TTL 相同。",
				  k, total, a_ms, b_ms);
		break;
	}
	if (g->v_by_ttl)
		pd_finding_append(f,
				  " %" G_GUINT64_FORMAT " of them were decided by TTL: too close to time, but only one side "
				  "arrives with an initial TTL (64/128/255), i.e. unrouted.",
				  "其中 %" G_GUINT64_FORMAT " 个是按 TTL 判断的：时序上太近无法区分，但只有一侧到达时带着初始 "
				  "TTL（64/128/255），即未经路由。",
				  g->v_by_ttl);
	if (g->v_by_link)
		pd_finding_append(f,
				  " %" G_GUINT64_FORMAT " were decided by the capture's own record of which way each packet "
				  "went (tcpdump -i any).",
				  "有 %" G_GUINT64_FORMAT " 个是按抓包自己记录的每个报文的方向判断的（tcpdump -i any）。",
				  g->v_by_link);
	if (g->v_count[best] < total)
		pd_finding_append(f, " Other flows differ (several capture points or paths).",
				  "其他连接的情况不同（有多个抓包点或多条路径）。");
	pd_finding_set_confidence(f, best == CP_V_CLOSE ? 0.3 : g->v_by_link >= g->v_count[best] ? 0.95 : 0.8);
}

/* A share of the capture not decoded down to TCP, UDP, ICMP or an IP
 * fragment: above 2 % of the frames or of the bytes, the report cannot say
 * the capture is clean, since nothing was checked in that share. Link
 * control (ARP, LLDP, STP, ...) is not counted: it carries no transport. */
#define CP_UNREAD_SHARE 50 /* 1/50 = 2 % */

static const char *cp_ip_proto_name(uint8_t p)
{
	switch (p) {
	case 2: return "IGMP";
	case 50: return "ESP (IPsec, encrypted)";
	case 51: return "AH";
	case 89: return "OSPF";
	case 103: return "PIM";
	case 112: return "VRRP";
	case 132: return "SCTP";
	default: return NULL;
	}
}

static void cp_report_unread(pd_ctx *ctx, const pd_capture_facts *fa)
{
	if (!fa->frames || !fa->unread)
		return;
	bool by_frames = fa->unread * CP_UNREAD_SHARE > fa->frames;
	bool by_bytes = fa->wire_bytes && fa->unread_bytes * CP_UNREAD_SHARE > fa->wire_bytes;
	if (!by_frames && !by_bytes)
		return;
	pd_finding *f = pd_finding_get(ctx, "capture-unread", NULL);
	pd_finding_occurrence(f, fa->unread_frame, fa->unread_ts, "first frame not decoded", "第一个未解码的帧");
	double share = (double)fa->unread / (double)fa->frames;
	double bshare = fa->wire_bytes ? (double)fa->unread_bytes / (double)fa->wire_bytes : 0;
	pd_finding_metric(f, "unread_frames", (double)fa->unread, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "unread_bytes", (double)fa->unread_bytes, PD_UNIT_BYTES, PD_AGG_SUM);
	pd_finding_metric(f, "unread_share", share, PD_UNIT_RATIO, PD_AGG_MAX);
	pd_finding_metric(f, "unread_bytes_share", bshare, PD_UNIT_RATIO, PD_AGG_MAX);
	pd_finding_detail(f,
			  "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " frames (%.1f %%) and %" G_GUINT64_FORMAT
			  " of %" G_GUINT64_FORMAT " bytes (%.1f %%) were not decoded down to TCP, UDP or ICMP, so "
			  "nothing in them was checked:",
			  "%" G_GUINT64_FORMAT " 个帧（共 %" G_GUINT64_FORMAT " 个，%.1f%%）、%" G_GUINT64_FORMAT
			  " 字节（共 %" G_GUINT64_FORMAT " 字节，%.1f%%）没有解码到 TCP、UDP 或 ICMP，其中的内容完全"
			  "没有被检查：",
			  fa->unread, fa->frames, share * 100.0, fa->unread_bytes, fa->wire_bytes, bshare * 100.0);
	if (fa->unread_tunnel) {
		const char *kind = pd_tunnel_name((pd_tunnel)fa->unread_tunnel_kind);
		if (fa->unread_tunnel_why == PD_TSTOP_UNSUPPORTED && fa->unread_tunnel_kind == PD_TUN_GRE)
			pd_finding_append(f, " %" G_GUINT64_FORMAT " in tunnels not opened (mostly GRE carrying protocol 0x%04x);",
					  " %" G_GUINT64_FORMAT " 个在未打开的隧道中（主要是承载协议 0x%04x 的 GRE）；",
					  fa->unread_tunnel, fa->unread_tunnel_type);
		else
			pd_finding_append(f, " %" G_GUINT64_FORMAT " in tunnels not opened (mostly %s, %s);",
					  " %" G_GUINT64_FORMAT " 个在未打开的隧道中（主要是 %s，%s）；", fa->unread_tunnel, kind,
					  pd_tunnel_stop_name((pd_tunnel_stop)fa->unread_tunnel_why));
	}
	if (fa->unread_no_link)
		pd_finding_append(f, " %" G_GUINT64_FORMAT " of link type %d, which pcapdoc does not decode;",
				  " %" G_GUINT64_FORMAT " 个属于 pcapdoc 不能解码的链路类型 %d；", fa->unread_no_link,
				  fa->unread_linktype);
	if (fa->unread_not_ip && fa->unread_ethertype)
		pd_finding_append(f, " %" G_GUINT64_FORMAT " without IP (mostly ethertype 0x%04x);",
				  " %" G_GUINT64_FORMAT " 个不含 IP（主要是以太网类型 0x%04x）；", fa->unread_not_ip,
				  fa->unread_ethertype);
	else if (fa->unread_not_ip)
		pd_finding_append(f, " %" G_GUINT64_FORMAT " without IP that pcapdoc can read (encrypted 802.11, "
				  "compressed PPP, an unknown loopback family);",
				  " %" G_GUINT64_FORMAT " 个不含 pcapdoc 能读的 IP（加密的 802.11、压缩的 PPP、未知的环回"
				  "地址族）；", fa->unread_not_ip);
	if (fa->unread_tunnel_kind == PD_TUN_ARUBA && fa->unread_tunnel_why == PD_TSTOP_UNSUPPORTED)
		pd_finding_append(f, " (protected 802.11 frames: their bodies are encrypted, decrypt them at the "
				  "controller or capture behind it);",
				  "（受保护的 802.11 帧：帧体是加密的，请在控制器上解密或在其后方抓包）；");
	if (fa->unread_proto) {
		const char *n = cp_ip_proto_name(fa->unread_ip_proto);
		if (n)
			pd_finding_append(f, " %" G_GUINT64_FORMAT " of IP protocols not analysed (mostly %s);",
					  " %" G_GUINT64_FORMAT " 个属于未分析的 IP 协议（主要是 %s）；", fa->unread_proto, n);
		else
			pd_finding_append(f, " %" G_GUINT64_FORMAT " of IP protocols not analysed (mostly %u);",
					  " %" G_GUINT64_FORMAT " 个属于未分析的 IP 协议（主要是 %u）；", fa->unread_proto,
					  fa->unread_ip_proto);
	}
	if (fa->unread_cut)
		pd_finding_append(f, " %" G_GUINT64_FORMAT " with the IP or transport header cut by the snaplen;",
				  " %" G_GUINT64_FORMAT " 个的 IP 或传输层头被 snaplen 截断；", fa->unread_cut);
	if (fa->unread_malformed)
		pd_finding_append(f, " %" G_GUINT64_FORMAT " with headers that lie;",
				  " %" G_GUINT64_FORMAT " 个的报文头不自洽；", fa->unread_malformed);
	pd_finding_append(f,
			  " no finding about them does not mean they were healthy. Capture where the traffic is "
			  "plain IP (after the tunnel ends, on the host), or with a larger snaplen.",
			  "没有关于它们的发现并不代表它们正常。请在流量是普通 IP 的地方抓包（隧道终结之后、在主机上），"
			  "或使用更大的 snaplen。");
	if (fa->unread_cut && fa->unread_cut * 2 > fa->unread)
		pd_finding_settings(f, "capture snaplen", "capture point and encapsulation", NULL);
	else
		pd_finding_settings(f, "capture point and encapsulation", "capture snaplen", NULL);
	pd_finding_set_confidence(f, 1.0);
}

static void cp_on_end(pd_ctx *ctx, void *gv)
{
	cp_global *g = gv;
	const pd_capture_facts *fa = pd_ctx_facts(ctx);
	cp_report_vantage(ctx, g);
	cp_report_unread(ctx, fa);

	if (g->tso) {
		pd_finding *f = g->tso;
		pd_finding_metric(f, "super_segments", (double)g->tso_segs, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "largest_segment", (double)g->tso_max, PD_UNIT_BYTES, PD_AGG_MAX);
		if (g->tso_unknown_flows)
			pd_finding_detail(f,
					  "%" G_GUINT64_FORMAT " TCP segments larger than the receiver's MSS (up to %"
					  G_GUINT64_FORMAT " B) on %" G_GUINT64_FORMAT " flows: the capture side could not be "
					  "told from timing: TSO/GSO if it was taken on the sender (most likely), GRO/LRO if on "
					  "the receiver. The network carried MSS-sized packets; pcapdoc does not count these as "
					  "PMTU or fragmentation problems.",
					  "%" G_GUINT64_FORMAT " 个 TCP 数据段大于接收端的 MSS（最大 %" G_GUINT64_FORMAT
					  " 字节），涉及 %" G_GUINT64_FORMAT " 条连接：无法从时序判断抓包点在哪一侧：若抓包在"
					  "发送端（可能性最大）是 TSO/GSO，若在接收端则是 GRO/LRO。网络上传输的是 MSS 大小的"
					  "报文；pcapdoc 不把它们算作 PMTU 或分片问题。",
					  g->tso_segs, g->tso_max, f->flow_count);
		else
			pd_finding_detail(f,
					  "%" G_GUINT64_FORMAT " TCP segments larger than the receiver's MSS (up to %"
					  G_GUINT64_FORMAT " B) on %" G_GUINT64_FORMAT " flows: captured on the sending host "
					  "before segmentation (TSO/GSO). The network carried MSS-sized packets; pcapdoc does "
					  "not count these as PMTU or fragmentation problems.",
					  "%" G_GUINT64_FORMAT " 个 TCP 数据段大于接收端的 MSS（最大 %" G_GUINT64_FORMAT
					  " 字节），涉及 %" G_GUINT64_FORMAT " 条连接：是在发送主机上、分段之前抓到的（TSO/GSO）。"
					  "网络上传输的是 MSS 大小的报文；pcapdoc 不把它们算作 PMTU 或分片问题。",
					  g->tso_segs, g->tso_max, f->flow_count);
		pd_finding_set_confidence(f, g->tso_unknown_flows ? 0.6 : 0.9);
	}
	if (g->gro) {
		pd_finding *f = g->gro;
		pd_finding_metric(f, "merged_segments", (double)g->gro_segs, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "largest_segment", (double)g->gro_max, PD_UNIT_BYTES, PD_AGG_MAX);
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " TCP segments larger than the receiver's MSS (up to %" G_GUINT64_FORMAT
				  " B) arriving from the far side on %" G_GUINT64_FORMAT " flows: merged by the receiving "
				  "host (GRO/LRO) before the capture. Packet counts and sizes differ from the wire; not a "
				  "PMTU or fragmentation problem.",
				  "%" G_GUINT64_FORMAT " 个从远端到达的 TCP 数据段大于接收端的 MSS（最大 %" G_GUINT64_FORMAT
				  " 字节），涉及 %" G_GUINT64_FORMAT " 条连接：是接收主机在抓包之前合并的（GRO/LRO）。报文个数"
				  "和大小与线路上的不同；这不是 PMTU 或分片问题。",
				  g->gro_segs, g->gro_max, f->flow_count);
		pd_finding_set_confidence(f, 0.85);
	}
	if (g->drops) {
		pd_finding *f = g->drops;
		pd_finding_metric(f, "missing_segments", (double)g->drop_events, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "missing_bytes", (double)g->drop_bytes, PD_UNIT_BYTES, PD_AGG_SUM);
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " stretches of data (%" G_GUINT64_FORMAT
				  " B) were acknowledged by the receiver but never appear in the capture, and no "
				  "retransmission filled them: the capture dropped them (tcpdump reports 'packets "
				  "dropped by kernel'). Loss counted from this capture is overstated; capture again "
				  "with a bigger buffer (tcpdump -B) or a filter.",
				  "有 %" G_GUINT64_FORMAT " 段数据（%" G_GUINT64_FORMAT " 字节）已被接收端确认，却从未出现在"
				  "抓包中，也没有重传来填补：是抓包把它们丢了（tcpdump 会报告“packets dropped by kernel”）。"
				  "由这份抓包算出的丢包偏高；请用更大的缓冲（tcpdump -B）或加过滤器重新抓包。",
				  g->drop_events, g->drop_bytes);
		if (g->drop_frag_events) {
			pd_finding_metric(f, "missing_in_ip_fragments", (double)g->drop_frag_events, PD_UNIT_COUNT,
					  PD_AGG_SUM);
			pd_finding_append(f,
					  " %" G_GUINT64_FORMAT " of them are parts of TCP segments that crossed the path as IP "
					  "fragments: the receiver's ACK shows it reassembled them whole, so the capture missed "
					  "those fragments, not the network.",
					  "其中 %" G_GUINT64_FORMAT " 段属于以 IP 分片形式经过路径的 TCP 数据段：接收端的 ACK "
					  "表明它已完整重组，所以是抓包漏掉了这些分片，而不是网络丢了它们。",
					  g->drop_frag_events);
		}
		pd_finding_set_confidence(f, 0.8);
	}
	if (fa->truncated) {
		pd_finding *f = pd_finding_get(ctx, "capture-snaplen", NULL);
		pd_finding_occurrence(f, fa->truncated_frame, fa->truncated_ts, "frame cut by the snap length",
				      "帧被截断长度截短");
		uint32_t snap = pd_ctx_snaplen(ctx);
		pd_finding_metric(f, "truncated_frames", (double)fa->truncated, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "truncated_share", (double)fa->truncated / (double)(fa->ip_packets ? fa->ip_packets : 1), PD_UNIT_RATIO, PD_AGG_MAX);
		if (snap)
			pd_finding_metric(f, "snaplen", snap, PD_UNIT_BYTES, PD_AGG_MAX);
		pd_finding_metric(f, "max_tcp_payload_from_headers", (double)fa->max_tcp_payload_hdr, PD_UNIT_BYTES, PD_AGG_MAX);
		pd_finding_metric(f, "max_tcp_payload_captured", (double)fa->max_tcp_payload_captured, PD_UNIT_BYTES, PD_AGG_MAX);
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
				  " IP frames were cut by the snap length (%u B). Sizes, sequence analysis and the findings "
				  "use the lengths in the IP, TCP and UDP headers; only payload inspection and application "
				  "detection are limited.",
				  "%" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT " 个 IP 帧被截断长度（%u 字节）截短。报文大小、"
				  "序列号分析和各项诊断使用的是 IP、TCP、UDP 头部中的长度；受影响的只有载荷检查和应用识别。",
				  fa->truncated, fa->ip_packets, snap);
		if (fa->max_tcp_payload_hdr > fa->max_tcp_payload_captured)
			pd_finding_append(f,
					  " The largest TCP payload was %" G_GUINT64_FORMAT " B although at most %"
					  G_GUINT64_FORMAT " B of one was captured.",
					  "最大的 TCP 载荷为 %" G_GUINT64_FORMAT " 字节，但其中最多只抓到了 %" G_GUINT64_FORMAT
					  " 字节。",
					  fa->max_tcp_payload_hdr, fa->max_tcp_payload_captured);
		pd_finding_set_confidence(f, 1.0);
	}
	if (g->onedir) {
		pd_finding *f = g->onedir;
		pd_finding_metric(f, "one_way_flows", (double)g->onedir_flows, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "tcp_flows", (double)g->tcp_flows, PD_UNIT_COUNT, PD_AGG_SUM);
		if (g->onedir_flows == g->tcp_flows)
			pd_finding_detail(f,
					  "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " TCP flows show one side only, although "
					  "that side acknowledges packets from the other (a SYN-ACK, or data): a capture filter "
					  "or a tap that sees one direction. RTT, loss and window findings for them are "
					  "incomplete.",
					  "%" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT " 条 TCP 连接只看到一侧，而这一侧却在确认"
					  "另一侧的报文（SYN-ACK 或数据）：是抓包过滤器或只能看到单向流量的分光/镜像所致。这些连接"
					  "的 RTT、丢包和窗口诊断并不完整。",
					  g->onedir_flows, g->tcp_flows);
		else
			pd_finding_detail(f,
					  "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " TCP flows show one side only, although "
					  "that side acknowledges packets from the other (a SYN-ACK, or data): asymmetric routing "
					  "past the capture point, or a filter. RTT, loss and window findings for them are "
					  "incomplete.",
					  "%" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT " 条 TCP 连接只看到一侧，而这一侧却在确认"
					  "另一侧的报文（SYN-ACK 或数据）：是经过抓包点的路由不对称，或是过滤器所致。这些连接"
					  "的 RTT、丢包和窗口诊断并不完整。",
					  g->onedir_flows, g->tcp_flows);
		pd_finding_set_confidence(f, 0.85);
	}
	/* Microsecond reordering between capture queues is harmless noise. */
	if (fa->back_steps && (fa->back_max >= 1000 * 1000LL || fa->back_steps >= 10)) {
		pd_finding *f = pd_finding_get(ctx, "capture-time-backwards", NULL);
		pd_finding_occurrence(f, fa->back_frame, fa->back_ts, "earlier than the frame before",
				      "时间早于前一帧");
		pd_finding_metric(f, "backward_steps", (double)fa->back_steps, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "max_step_back", (double)fa->back_max / 1e6, PD_UNIT_MS, PD_AGG_MAX);
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " frames carry a timestamp earlier than a frame before them (up "
				  "to %.3f ms back): timings across them are unreliable.",
				  "%" G_GUINT64_FORMAT " 个帧的时间戳早于它之前的某一帧（最多倒退 %.3f 毫秒）：跨越它们的"
				  "时间测量不可靠。",
				  fa->back_steps, (double)fa->back_max / 1e6);
		pd_finding_set_confidence(f, 1.0);
	}
	if (fa->dup_frames) {
		pd_finding *f = g->dups ? g->dups : pd_finding_get(ctx, "capture-duplicates", NULL);
		uint64_t shown = fa->dup_frames < PD_FACT_EXAMPLES ? fa->dup_frames : PD_FACT_EXAMPLES;
		for (uint64_t i = 0; i < shown; i++)
			pd_finding_occurrence(f, fa->dup_frame[i], fa->dup_ts[i], "same packet captured again",
					      "同一个包被再次抓到");
		if (fa->dup_frames > shown) {
			pd_finding_count(f, fa->dup_frames - shown - 1);
			pd_finding_occurrence(f, fa->dup_last_frame, fa->dup_last_ts, "same packet captured again",
					      "同一个包被再次抓到");
		}
		pd_finding_metric(f, "duplicate_frames", (double)fa->dup_frames, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "counted_as_retransmissions", (double)g->dup_retx, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " frames repeat a frame captured within %d ms (same addresses, "
				  "IP ID, sequence, ACK, flags and length): the capture saw them twice (tcpdump -i "
				  "any with bridge/VLAN/veth devices, or a SPAN port). %" G_GUINT64_FORMAT
				  " of them appear in the retransmission counts but are not network retransmissions.",
				  "%" G_GUINT64_FORMAT " 个帧与 %d 毫秒内抓到的某一帧完全相同（地址、IP ID、序列号、ACK、"
				  "标志位和长度都一样）：抓包把它们抓了两次（在有网桥/VLAN/veth 设备时用 tcpdump -i any，"
				  "或 SPAN 端口）。其中 %" G_GUINT64_FORMAT " 个出现在重传计数中，但并不是网络上的重传。",
				  fa->dup_frames, CP_DUP_WINDOW_MS, g->dup_retx);
		pd_finding_set_confidence(f, 0.85);
	}
	if (fa->flows_evicted) {
		pd_finding *f = pd_finding_get(ctx, "capture-flow-cap", NULL);
		pd_finding_occurrence(f, fa->evicted_frame, fa->evicted_ts, "first flow finished early",
				      "第一条被提前结束的流");
		pd_finding_count(f, fa->flows_evicted - 1);
		pd_finding_metric(f, "flows_evicted", (double)fa->flows_evicted, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "max_flows", (double)fa->max_flows, PD_UNIT_COUNT, PD_AGG_MAX);
		pd_finding_detail(f,
				  "flow table cap of %" G_GUINT64_FORMAT " live flows reached (%" G_GUINT64_FORMAT
				  " in each of %u shards): %" G_GUINT64_FORMAT " least recently active flows were "
				  "finalized early (--max-flows)",
				  "达到 %1$" G_GUINT64_FORMAT " 条活动流的流表上限（%3$u 个分片各 %2$" G_GUINT64_FORMAT
				  " 条）：%4$" G_GUINT64_FORMAT " 条最久未活动的流被提前结束（--max-flows）",
				  fa->max_flows, fa->max_flows_per_shard, fa->shards, fa->flows_evicted);
		pd_finding_set_confidence(f, 1.0);
	}
}

static const char *const cp_emits[] = {"capture-vantage",	     "capture-offload-tso", "capture-offload-gro",
				       "capture-drops",	     "capture-snaplen",	    "capture-one-direction",
				       "capture-time-backwards", "capture-duplicates", "capture-flow-cap", "capture-unread", NULL};

const pd_detector pd_det_capture = {
	.name = "capture",
	.emits = cp_emits,
	.flow_state_size = sizeof(cp_flow),
	.payload_state_size = sizeof(cp_data),
	.global_state_size = sizeof(cp_global),
	.on_tcp = cp_on_tcp,
	.on_fragment = cp_on_fragment,
	.on_flow_end = cp_on_flow_end,
	.on_end = cp_on_end,
};
