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
	/* one direction */
	pd_finding *onedir;
	uint64_t onedir_flows, tcp_flows;
	/* duplicates (the engine finds them: PD_SEG_CAPTURE_DUP) */
	uint64_t dup_retx;
	pd_finding *dups;
} cp_global;

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

static void cp_on_tcp(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, const pd_seg *seg)
{
	(void)ctx;
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
	if (seg->flags & PD_SEG_CAPTURE_DUP) {
		c->dups++;
		if (seg->flags & PD_SEG_RETRANS)
			c->dups_retx++;
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

static void cp_offload(pd_ctx *ctx, cp_global *g, const pd_flow *f, cp_flow *c, int dir)
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
		*fp = pd_finding_get(ctx, gro ? "capture-offload-gro" : "capture-offload-tso", NULL);
	pd_finding *fd = *fp;
	pd_finding_add_flow(ctx, fd, f);
	pd_finding_occurrence(fd, d->super_frame, d->super_ts, "%s", NULL,
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
	cp_data *m = c->m;
	if (m) {
		for (int i = 0; i < 2; i++)
			if (m->d[i].gap && m->d[i].gap_acked)
				cp_drop(m, m->d[i].gap_hi - m->d[i].gap_lo, m->d[i].gap_frame, m->d[i].gap_ts);
		if (c->fragmented)
			m->drops = 0;
		if (m->drops) {
			if (!g->drops)
				g->drops = pd_finding_get(ctx, "capture-drops", NULL);
			pd_finding_add_flow(ctx, g->drops, flow);
			pd_finding_occurrence(g->drops, m->drop_frame, m->drop_ts,
						 "data ACKed but not in the capture", NULL);
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
				g->onedir = pd_finding_get(ctx, "capture-one-direction", NULL);
			pd_finding_add_flow(ctx, g->onedir, flow);
			pd_finding_occurrence(g->onedir, flow->first_frame, flow->first_ts, "%s", NULL,
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

static void cp_report_vantage(pd_ctx *ctx, cp_global *g)
{
	uint64_t total = 0;
	for (int v = CP_V_CLIENT; v < CP_V__N; v++)
		total += g->v_count[v];
	if (!total)
		return;
	pd_finding *f = pd_finding_get(ctx, "capture-vantage", NULL);
	pd_finding_occurrence(f, g->v_frame, g->v_ts, "handshake timing", NULL);
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
	pd_finding_metric(f, "flows_by_ttl", (double)g->v_by_ttl, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "flows_by_link_header", (double)g->v_by_link, PD_UNIT_COUNT, PD_AGG_SUM);
	if (g->v_by_link) {
		size_t used = strlen(ttl);
		snprintf(ttl + used, sizeof(ttl) - used,
			 " [%" G_GUINT64_FORMAT " decided by the capture's own record of which way each "
			 "packet went (tcpdump -i any)]",
			 g->v_by_link);
	}
	pd_finding_detail(f,
			  "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
			  " handshakes: captured %s (SYN to SYN-ACK %.3f ms, SYN-ACK to ACK %.3f ms on average)%s%s%s", NULL,
			  g->v_count[best], total, cp_vname(best), a_ms, b_ms, ttl, caveat,
			  g->v_count[best] < total ? "; other flows differ (several capture points or paths)" : "");
	pd_finding_set_confidence(f, best == CP_V_CLOSE ? 0.3 : g->v_by_link >= g->v_count[best] ? 0.95 : 0.8);
}

static void cp_on_end(pd_ctx *ctx, void *gv)
{
	cp_global *g = gv;
	const pd_capture_facts *fa = pd_ctx_facts(ctx);
	cp_report_vantage(ctx, g);

	if (g->tso) {
		pd_finding *f = g->tso;
		pd_finding_metric(f, "super_segments", (double)g->tso_segs, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "largest_segment", (double)g->tso_max, PD_UNIT_BYTES, PD_AGG_MAX);
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " TCP segments larger than the receiver's MSS (up to %" G_GUINT64_FORMAT
				  " B) on %" G_GUINT64_FORMAT " flow%s: %s. The network carried MSS-sized packets; "
				  "pcapdoc does not count these as PMTU or fragmentation problems", NULL,
				  g->tso_segs, g->tso_max, f->flow_count, f->flow_count == 1 ? "" : "s",
				  g->tso_unknown_flows ? "the capture side could not be told from timing: TSO/GSO if it "
							 "was taken on the sender (most likely), GRO/LRO if on the receiver"
						       : "captured on the sending host before segmentation (TSO/GSO)");
		pd_finding_set_confidence(f, g->tso_unknown_flows ? 0.6 : 0.9);
	}
	if (g->gro) {
		pd_finding *f = g->gro;
		pd_finding_metric(f, "merged_segments", (double)g->gro_segs, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "largest_segment", (double)g->gro_max, PD_UNIT_BYTES, PD_AGG_MAX);
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " TCP segments larger than the receiver's MSS (up to %" G_GUINT64_FORMAT
				  " B) arriving from the far side on %" G_GUINT64_FORMAT
				  " flow%s: merged by the receiving host (GRO/LRO) before the capture. Packet counts and "
				  "sizes differ from the wire; not a PMTU or fragmentation problem", NULL,
				  g->gro_segs, g->gro_max, f->flow_count, f->flow_count == 1 ? "" : "s");
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
				  "with a bigger buffer (tcpdump -B) or a filter", NULL,
				  g->drop_events, g->drop_bytes);
		pd_finding_set_confidence(f, 0.8);
	}
	if (fa->truncated) {
		pd_finding *f = pd_finding_get(ctx, "capture-snaplen", NULL);
		pd_finding_occurrence(f, fa->truncated_frame, fa->truncated_ts, "frame cut by the snap length", NULL);
		uint32_t snap = pd_ctx_snaplen(ctx);
		pd_finding_metric(f, "truncated_frames", (double)fa->truncated, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "truncated_share", (double)fa->truncated / (double)(fa->ip_packets ? fa->ip_packets : 1), PD_UNIT_RATIO, PD_AGG_MAX);
		if (snap)
			pd_finding_metric(f, "snaplen", snap, PD_UNIT_BYTES, PD_AGG_MAX);
		pd_finding_metric(f, "max_tcp_payload_from_headers", (double)fa->max_tcp_payload_hdr, PD_UNIT_BYTES, PD_AGG_MAX);
		pd_finding_metric(f, "max_tcp_payload_captured", (double)fa->max_tcp_payload_captured, PD_UNIT_BYTES, PD_AGG_MAX);
		char tcp[160] = "";
		if (fa->max_tcp_payload_hdr > fa->max_tcp_payload_captured)
			snprintf(tcp, sizeof(tcp),
				 " (largest TCP payload %" G_GUINT64_FORMAT " B although at most %" G_GUINT64_FORMAT
				 " B of one was captured)",
				 fa->max_tcp_payload_hdr, fa->max_tcp_payload_captured);
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
				  " IP frames were cut by the snap length (%u B). Sizes, sequence analysis and "
				  "the findings use the lengths in the IP, TCP and UDP headers%s; only payload "
				  "inspection and application detection are limited", NULL,
				  fa->truncated, fa->ip_packets, snap, tcp);
		pd_finding_set_confidence(f, 1.0);
	}
	if (g->onedir) {
		pd_finding *f = g->onedir;
		pd_finding_metric(f, "one_way_flows", (double)g->onedir_flows, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "tcp_flows", (double)g->tcp_flows, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
				  " TCP flows show one side only, although that side acknowledges data from the "
				  "other: %s. RTT, loss and window findings for them are incomplete", NULL,
				  g->onedir_flows, g->tcp_flows,
				  g->onedir_flows == g->tcp_flows ? "a capture filter or a tap that sees one direction"
								  : "asymmetric routing past the capture point, or a filter");
		pd_finding_set_confidence(f, 0.85);
	}
	/* Microsecond reordering between capture queues is harmless noise. */
	if (fa->back_steps && (fa->back_max >= 1000 * 1000LL || fa->back_steps >= 10)) {
		pd_finding *f = pd_finding_get(ctx, "capture-time-backwards", NULL);
		pd_finding_occurrence(f, fa->back_frame, fa->back_ts, "earlier than the frame before", NULL);
		pd_finding_metric(f, "backward_steps", (double)fa->back_steps, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "max_step_back", (double)fa->back_max / 1e6, PD_UNIT_MS, PD_AGG_MAX);
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " frames carry a timestamp earlier than a frame before them (up "
				  "to %.3f ms back): timings across them are unreliable", NULL,
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
				  " of them appear in the retransmission counts but are not network retransmissions", NULL,
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
				       "capture-time-backwards", "capture-duplicates", "capture-flow-cap", NULL};

const pd_detector pd_det_capture = {
	.name = "capture",
	.emits = cp_emits,
	.flow_state_size = sizeof(cp_flow),
	.global_state_size = sizeof(cp_global),
	.on_tcp = cp_on_tcp,
	.on_flow_end = cp_on_flow_end,
	.on_end = cp_on_end,
};
