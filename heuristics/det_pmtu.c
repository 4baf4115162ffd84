/* Path MTU: ICMP fragmentation-needed / Packet Too Big tied back to the
 * flow whose packet they quote, whether the sender then sent smaller
 * packets, and black holes (full-size segments retransmitted with backoff
 * and never acknowledged, no ICMP in sight), with the recovery that
 * net.ipv4.tcp_mtu_probing=1 brings after a few timeouts.
 *
 * Sizes are judged against the MSS the receiver announced, so segments
 * larger than that (TSO/GSO on a sender-side capture, GRO/LRO on a
 * receiver-side one) are never taken for PMTU evidence; the capture
 * detector reports them. Per-flow state is a pointer; the detail block is
 * allocated only for flows that send packets big enough to matter. */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "heuristics/detector.h"
#include "heuristics/util.h"

#define PM_MIN_V4 552 /* Linux min_pmtu: smaller packets never get frag-needed treatment */
#define PM_MIN_V6 1280 /* IPv6 minimum MTU */
#define PM_GRACE_NS (10 * 1000 * 1000LL) /* packets already queued when the ICMP came */
#define PM_BH_MIN_RETX 2 /* full-size retransmissions before we call it a black hole */
#define PM_MAX_MAP 65536
#define PM_MAX_GAPS 8
#define PM_INFER_MIN_SEGS 20 /* bulk segments at one size below the MSS to infer a path MTU */

typedef struct pm_dir {
	/* sizes */
	uint32_t max_sent; /* largest payload sent, super-segments excluded */
	uint32_t max_total; /* largest IP packet sent, same */
	uint32_t n_at_max; /* bulk segments of max_total bytes */
	uint32_t max_ok; /* largest payload whose first transmission was ACKed */
	uint32_t max_ok_total; /* its IP packet size */
	uint32_t cand_end, cand_len, cand_total; /* candidate for max_ok */
	bool cand;
	uint64_t big_pkts, big_df; /* IPv4 packets > 552 B and how many had DF */
	uint64_t data_segs;

	/* oldest unacknowledged data */
	pd_time una_ts;
	uint64_t una_frame;

	/* ICMP */
	uint32_t icmp_n, icmp_mtu, icmp_bogus, icmp_oow;
	uint64_t icmp_frame;
	pd_time icmp_ts;
	uint32_t icmp_quoted_total; /* size of the packet the first ICMP quoted */
	uint32_t before_max; /* largest payload sent before the first ICMP */
	uint32_t after_max; /* largest payload sent after the grace */
	uint32_t too_big_after;
	uint64_t too_big_frame;
	pd_time too_big_ts;
	uint64_t reduced_frame;
	pd_time reduced_ts;
	uint32_t reduced_len;

	/* black hole episode: one full-size segment retransmitted */
	bool stuck;
	uint32_t stuck_seq, stuck_len, stuck_retx, stuck_total;
	uint64_t stuck_first_frame; /* its first retransmission */
	pd_time stuck_start; /* oldest unacked data when it started */
	uint64_t stuck_start_frame;
	pd_time stuck_last_ts;
	uint32_t gaps_ms[PM_MAX_GAPS];
	uint32_t n_gaps;
	bool small_retx; /* a smaller retransmission of stuck_seq */
	uint32_t small_len;
	uint64_t small_frame;
	pd_time small_ts;
	bool peer_spoke; /* the peer sent something after the stall began */
	bool stuck_df;
	/* the black hole found (copied from the episode) */
	bool bh;
	bool bh_recovered;
	uint32_t bh_len, bh_retx, bh_new_len, bh_n_gaps, bh_total;
	uint32_t bh_gaps_ms[PM_MAX_GAPS];
	uint64_t bh_frame, bh_start_frame, bh_recover_frame;
	pd_time bh_start, bh_recover_ts, bh_last_retx_ts;
	bool bh_peer_spoke;
	uint32_t after_recover_max_ok, after_recover_total;
} pm_dir;

typedef struct pm_state {
	pm_dir d[2];
} pm_state;

/* ICMP too-big messages that quote packets this detector did not follow
 * (too small to be refused, or of a flow the engine no longer has). */
typedef struct pm_unmatched {
	uint32_t n, mtu;
	uint64_t frame;
	pd_time ts;
} pm_unmatched;

typedef struct pm_flow {
	pm_state *p; /* made at the first packet big enough to be refused */
	pm_unmatched unmatched;
} pm_flow;

typedef struct pm_global {
	pm_unmatched unmatched;
} pm_global;

static void pm_unmatched_add(pm_unmatched *u, uint64_t frame, pd_time ts, uint32_t n, uint32_t mtu)
{
	if (!n)
		return;
	if (!u->n || frame < u->frame) {
		u->frame = frame;
		u->ts = ts;
	}
	u->n += n;
	if (mtu && (!u->mtu || mtu < u->mtu))
		u->mtu = mtu;
}

/* ------------------------------------------------------------ helpers */

static uint32_t pm_min_mtu(int version)
{
	return version == 6 ? PM_MIN_V6 : PM_MIN_V4;
}

/* Start following a flow once it sends a packet big enough to be refused. */
static pm_state *pm_attach(pm_flow *o)
{
	if (!o->p)
		o->p = g_new0(pm_state, 1);
	return o->p;
}

/* The payload the receiver allows per segment; 0 when unknown. */
static uint32_t pm_peer_mss(const pd_flow *f, int dir)
{
	return f->half[pd_peer(dir)].mss;
}

/* Bytes of IP+TCP header around a payload in this packet. */
static uint32_t pm_hdr(const pd_packet *pkt)
{
	return pkt->ip.hdr_len + (pkt->l4 == PD_L4_TCP ? pkt->tcp.hdr_len : 8u);
}

/* Common encapsulations, as hints only. */
static const char *pm_tunnel_hint(uint32_t mtu);

/* The well-known encapsulation MTUs (1500 minus the overhead) inside
 * [lo, hi], as "1450 (VXLAN over IPv4 (50 B)), ..."; false when none. */
static bool pm_tunnel_range(uint32_t lo, uint32_t hi, char *buf, size_t n)
{
	static const uint32_t known[] = {1492, 1480, 1476, 1472, 1450, 1440, 1430, 1420, 1400, 1280};
	size_t used = 0;
	buf[0] = 0;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if (known[i] < lo || known[i] > hi)
			continue;
		int w = snprintf(buf + used, n - used, "%s%u (%s)", used ? ", " : "", known[i], pm_tunnel_hint(known[i]));
		if (w < 0 || (size_t)w >= n - used)
			break;
		used += (size_t)w;
	}
	return used > 0;
}

static const char *pm_tunnel_hint(uint32_t mtu)
{
	switch (mtu) {
	case 1492:
		return "PPPoE-sized (8 B)";
	case 1480:
		return "an IPIP or 6in4/SIT tunnel (20 B)";
	case 1476:
		return "a GRE tunnel (24 B)";
	case 1472:
		return "GRE with key, or 28 B of encapsulation";
	case 1450:
		return "VXLAN over IPv4 (50 B)";
	case 1430:
		return "VXLAN over IPv6 (70 B)";
	case 1440:
		return "WireGuard over IPv4 (60 B)";
	case 1420:
		return "WireGuard over IPv6 (80 B)";
	case 1400:
		return "a round value typical of IPsec/VPN or a hand-set tunnel MTU";
	case 1280:
		return "the IPv6 minimum MTU";
	default:
		if (mtu >= 1380 && mtu < 1440)
			return "IPsec-like encapsulation (about 50-100 B)";
		return NULL;
	}
}

/* ---------------------------------------------------------------- TCP */

static void pm_end_episode(pm_dir *d)
{
	d->stuck = false;
	d->stuck_retx = 0;
	d->n_gaps = 0;
	d->small_retx = false;
	d->peer_spoke = false;
}

static void pm_on_ack(pm_dir *d, const pd_flow *flow, int dir, uint32_t ack, pd_time ts, bool advanced)
{
	const pd_tcp_half *h = &flow->half[dir];
	if (d->cand && pd_seq_le(d->cand_end, ack)) {
		if (d->cand_len > d->max_ok) {
			d->max_ok = d->cand_len;
			d->max_ok_total = d->cand_total;
		}
		if (d->bh && d->bh_recovered && d->cand_len > d->after_recover_max_ok) {
			d->after_recover_max_ok = d->cand_len;
			d->after_recover_total = d->cand_total;
		}
		d->cand = false;
	}
	/* Stall bookkeeping: the oldest unacked data moves on. */
	if (h->seq_valid && pd_seq_le(h->next_seq, ack))
		d->una_ts = 0;
	else if (d->una_ts && advanced)
		d->una_ts = ts;
	if (d->stuck) {
		d->peer_spoke = true;
		if (pd_seq_lt(d->stuck_seq, ack)) {
			if (d->small_retx && d->stuck_retx >= PM_BH_MIN_RETX && !d->bh && d->stuck_df) {
				/* Got through only once it was sent smaller. */
				d->bh = true;
				d->bh_recovered = true;
				d->bh_len = d->stuck_len;
				d->bh_total = d->stuck_total;
				d->bh_retx = d->stuck_retx;
				d->bh_new_len = d->small_len;
				d->bh_frame = d->stuck_first_frame;
				d->bh_start = d->stuck_start;
				d->bh_start_frame = d->stuck_start_frame;
				d->bh_recover_frame = d->small_frame;
				d->bh_recover_ts = d->small_ts;
				d->bh_last_retx_ts = d->stuck_last_ts;
				d->bh_n_gaps = d->n_gaps;
				memcpy(d->bh_gaps_ms, d->gaps_ms, sizeof(d->gaps_ms));
				d->bh_peer_spoke = true;
			}
			pm_end_episode(d);
		}
	}
}

static void pm_on_tcp(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, const pd_seg *seg)
{
	(void)ctx;
	pm_flow *o = fs;
	const pd_tcp *t = &pkt->tcp;
	int dir = seg->dir;
	if (!o->p && pkt->ip.total_len <= pm_min_mtu(pkt->ip.version))
		return;
	pm_state *p = pm_attach(o);
	pm_dir *d = &p->d[dir];
	pm_dir *rev = &p->d[pd_peer(dir)];

	if (t->flags & PD_TCP_ACK)
		pm_on_ack(rev, flow, pd_peer(dir), t->ack, pkt->ts, seg->acked > 0);
	if (rev->stuck && !(t->flags & PD_TCP_SYN))
		rev->peer_spoke = true;

	uint32_t len = t->payload_len;
	if (!len || (t->flags & (PD_TCP_SYN | PD_TCP_RST)))
		return;
	uint32_t mss = pm_peer_mss(flow, dir);
	/* Larger than the receiver allows: an offload super-segment. */
	if (mss && len > mss)
		return;
	if (pkt->ip.is_fragment)
		return; /* IP fragments: the fragmentation detector's */
	d->data_segs++;
	if (!d->una_ts) {
		d->una_ts = pkt->ts;
		d->una_frame = pkt->frame_no;
	}
	if (len > d->max_sent)
		d->max_sent = len;
	if (pkt->ip.total_len > d->max_total) {
		d->max_total = pkt->ip.total_len;
		d->n_at_max = 0;
	}
	/* segments at the largest size sent while several more were in
	 * flight: a bulk sender, so the size is a limit, not the writes */
	if (pkt->ip.total_len == d->max_total && seg->in_flight >= 4 * (uint64_t)len &&
	    !(seg->flags & PD_SEG_CAPTURE_COPY))
		d->n_at_max++;
	bool big = pkt->ip.total_len > pm_min_mtu(pkt->ip.version);
	if (big && pkt->ip.version == 4) {
		d->big_pkts++;
		d->big_df += pkt->ip.df;
	}

	/* Largest size proven to pass: a first transmission later ACKed
	 * (the same segment captured twice is no retransmission). */
	if (seg->flags & PD_SEG_CAPTURE_COPY) {
		;
	} else if (!(seg->flags & PD_SEG_NEW_DATA)) {
		if (d->cand && pd_seq_lt(t->seq, d->cand_end))
			d->cand = false; /* Karn: the ACK could be for the copy */
	} else if ((seg->flags & PD_SEG_NEW_DATA) && len > d->max_ok && (!d->cand || len > d->cand_len)) {
		d->cand = true;
		d->cand_end = t->seq + len;
		d->cand_len = len;
		d->cand_total = pkt->ip.total_len;
	}

	/* After an ICMP: did the sender come down? */
	if (d->icmp_n) {
		pd_time since = pkt->ts - d->icmp_ts;
		uint32_t lim = d->icmp_mtu ? d->icmp_mtu : 0;
		if (lim && lim < pm_min_mtu(pkt->ip.version))
			lim = pm_min_mtu(pkt->ip.version);
		if (!d->reduced_frame && lim && pkt->ip.total_len <= lim && len < d->before_max) {
			d->reduced_frame = pkt->frame_no;
			d->reduced_ts = pkt->ts;
			d->reduced_len = len;
		}
		/* Judge from the first smaller segment on, or after the grace. */
		if (since > PM_GRACE_NS || (d->reduced_frame && d->reduced_frame <= pkt->frame_no)) {
			if (len > d->after_max)
				d->after_max = len;
			if (lim && pkt->ip.total_len > lim && (pkt->ip.version == 6 || pkt->ip.df)) {
				if (!d->too_big_after)
					d->too_big_frame = pkt->frame_no;
				d->too_big_after++;
			}
		}
	}

	/* Black hole: the same full-size segment retransmitted by timeout. */
	bool full = mss ? len + 40 >= mss : (d->max_sent && len * 10 >= d->max_sent * 9);
	if ((seg->flags & PD_SEG_RETRANS) && !(seg->flags & PD_SEG_FAST_RETRANS)) {
		if (d->stuck && t->seq == d->stuck_seq && len >= d->stuck_len) {
			pd_time gap = pkt->ts - d->stuck_last_ts;
			if (d->n_gaps < PM_MAX_GAPS)
				d->gaps_ms[d->n_gaps++] = (uint32_t)(gap / 1000000);
			d->stuck_retx++;
			d->stuck_last_ts = pkt->ts;
		} else if (d->stuck && pd_seq_le(t->seq, d->stuck_seq) &&
			   pd_seq_lt(d->stuck_seq, t->seq + len) && len < d->stuck_len) {
			if (!d->small_retx) {
				d->small_retx = true;
				d->small_len = len;
				d->small_frame = pkt->frame_no;
				d->small_ts = pkt->ts;
			}
		} else if (full && big && len > d->max_ok) {
			pm_end_episode(d);
			d->stuck = true;
			d->stuck_seq = t->seq;
			d->stuck_len = len;
			d->stuck_total = pkt->ip.total_len;
			d->stuck_retx = 1;
			d->stuck_first_frame = pkt->frame_no;
			d->stuck_last_ts = pkt->ts;
			d->stuck_start = d->una_ts ? d->una_ts : pkt->ts;
			d->stuck_start_frame = d->una_ts ? d->una_frame : pkt->frame_no;
			if (d->una_ts && d->una_ts < pkt->ts)
				d->gaps_ms[d->n_gaps++] = (uint32_t)((pkt->ts - d->una_ts) / 1000000);
			d->stuck_df = pkt->ip.version == 6 || pkt->ip.df;
		}
	}
}

/* --------------------------------------------------------------- ICMP */

/* An ICMP frag-needed / Packet Too Big quoting a packet of this flow; dir:
 * the side whose packet was too big (the quoted source). */
static void pm_on_icmp_error(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, int dir)
{
	(void)ctx;
	pm_flow *o = fs;
	if (!pkt->icmp.is_frag_needed || !pkt->icmp.has_inner)
		return;
	const pd_icmp *ic = &pkt->icmp;
	const pd_ip *in = &ic->inner_ip;
	if (!o->p) {
		pm_unmatched_add(&o->unmatched, pkt->frame_no, pkt->ts, 1, ic->mtu);
		return;
	}
	pm_dir *d = &o->p->d[dir];
	if (!d->icmp_n) {
		d->icmp_frame = pkt->frame_no;
		d->icmp_ts = pkt->ts;
		d->before_max = d->max_sent;
		d->icmp_quoted_total = in->total_len;
	}
	d->icmp_n++;
	if (ic->mtu && (!d->icmp_mtu || ic->mtu < d->icmp_mtu))
		d->icmp_mtu = ic->mtu;
	if (ic->mtu && in->total_len && ic->mtu >= in->total_len)
		d->icmp_bogus++; /* the quoted packet fit that MTU */
	/* Linux ignores a TCP ICMP whose quoted sequence is outside SND.UNA..SND.NXT. */
	if (flow->proto == 6 && ic->inner_has_seq) {
		const pd_tcp_half *h = &flow->half[dir], *peer = &flow->half[pd_peer(dir)];
		if (h->seq_valid && peer->ack_valid &&
		    (pd_seq_lt(ic->inner_seq, peer->last_ack) || pd_seq_lt(h->next_seq, ic->inner_seq)))
			d->icmp_oow++;
	}
}

static void pm_on_udp(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, const pd_seg *seg)
{
	int dir = seg->dir;
	(void)ctx;
	pm_flow *o = fs;
	if (!o->p && pkt->ip.total_len <= pm_min_mtu(pkt->ip.version))
		return;
	pm_state *p = pm_attach(o);
	pm_dir *d = &p->d[dir];
	uint32_t len = pkt->ip.is_fragment ? pkt->ip.total_len - pm_hdr(pkt) : pkt->udp.payload_len;
	if (len > d->max_sent)
		d->max_sent = len;
	if (pkt->ip.total_len > d->max_total)
		d->max_total = pkt->ip.total_len;
	if (d->icmp_n && pkt->ts - d->icmp_ts > PM_GRACE_NS) {
		uint32_t lim = d->icmp_mtu;
		if (lim && lim < pm_min_mtu(pkt->ip.version))
			lim = pm_min_mtu(pkt->ip.version);
		if (len > d->after_max)
			d->after_max = len;
		if (lim && pkt->ip.total_len > lim && (pkt->ip.version == 6 || pkt->ip.df)) {
			if (!d->too_big_after) {
				d->too_big_frame = pkt->frame_no;
				d->too_big_ts = pkt->ts;
			}
			d->too_big_after++;
		}
		if (!d->reduced_frame && lim && pkt->ip.total_len <= lim) {
			d->reduced_frame = pkt->frame_no;
			d->reduced_ts = pkt->ts;
			d->reduced_len = len;
		}
	}
}

/* ------------------------------------------------------------- report */

static void pm_gaps_str(const uint32_t *gaps, uint32_t n, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = 0;
	for (uint32_t i = 0; i < n && off + 16 < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%.2f", i ? ", " : "", gaps[i] / 1000.0);
}

/* Share of retransmission gaps that at least 1.5x the previous one. */
static bool pm_backoff(const uint32_t *gaps, uint32_t n)
{
	if (n < 2)
		return false;
	uint32_t grew = 0;
	for (uint32_t i = 1; i < n; i++)
		if (gaps[i] * 2 >= gaps[i - 1] * 3)
			grew++;
	return grew * 2 >= n - 1;
}

static void pm_report_icmp(pd_ctx *ctx, const pd_flow *flow, pm_dir *d, int dir)
{
	const char *who = dir == PD_CLIENT ? "client" : "server";
	uint32_t mtu = d->icmp_mtu;
	const char *hint = mtu ? pm_tunnel_hint(mtu) : NULL;
	bool v6 = flow->addr[0].family == 6;
	bool not_adapted = d->too_big_after >= 2;
	pd_finding *f = pd_finding_get(ctx, not_adapted ? "pmtu-not-adapted" : "pmtu-frag-needed", flow);
	pd_finding_occurrence(f, d->icmp_frame, d->icmp_ts, "%s", NULL, v6 ? "ICMPv6 Packet Too Big" : "ICMP frag-needed");
	pd_finding_metric(f, "icmp_messages", d->icmp_n, PD_UNIT_COUNT, PD_AGG_SUM);
	if (mtu)
		pd_finding_metric(f, "path_mtu", mtu, PD_UNIT_BYTES, PD_AGG_MAX);
	pd_finding_metric(f, "payload_before", d->before_max, PD_UNIT_BYTES, PD_AGG_MAX);
	if (d->after_max)
		pd_finding_metric(f, "payload_after", d->after_max, PD_UNIT_BYTES, PD_AGG_MAX);
	char hint_s[128] = "";
	if (hint)
		snprintf(hint_s, sizeof(hint_s), "; MTU %u looks like %s (a hint, not a proof)", mtu, hint);
	char oow[200] = "";
	if (d->icmp_oow)
		snprintf(oow, sizeof(oow),
			 "; %u ICMP quoted a sequence outside the sender's window, which Linux ignores "
			 "(a NAT or load balancer rewriting sequence numbers?)",
			 d->icmp_oow);
	if (not_adapted) {
		pd_finding_occurrence(f, d->too_big_frame, d->too_big_ts, "still too big after the ICMP", NULL);
		pd_finding_metric(f, "too_big_after", d->too_big_after, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_detail(f,
				  "%u %s (MTU %u) quoted the %s's %u-byte packets, but %u packets larger than %u B "
				  "with DF were sent more than %lld ms later (first at frame %" G_GUINT64_FORMAT
				  "), largest payload after %u B vs %u B before%s%s. The ICMP seen here probably "
				  "did not reach the sender (filtered between this capture point and it) or was "
				  "not believed", NULL,
				  d->icmp_n, v6 ? "ICMPv6 Packet Too Big" : "ICMP fragmentation-needed", mtu, who,
				  d->icmp_quoted_total, d->too_big_after, mtu, (long long)(PM_GRACE_NS / 1000000),
				  d->too_big_frame, d->after_max, d->before_max, oow, hint_s);
		pd_finding_set_confidence(f, d->icmp_oow ? 0.6 : 0.8);
		pd_finding_settings(f, "firewall dropping ICMP frag-needed", "MSS clamping", "net.ipv4.ip_no_pmtu_disc",
				    "net.ipv4.tcp_mtu_probing", NULL);
		/* The time the flow kept sending packets that could not pass. */
		pd_finding_add_impact(f, (double)(flow->last_ts - d->icmp_ts) / 1e9);
	} else {
		char after[200];
		if (d->reduced_frame)
			snprintf(after, sizeof(after),
				 "; the %s came down to %u-byte segments %.3f ms later (frame %" G_GUINT64_FORMAT ")",
				 who, d->reduced_len, (double)(d->reduced_ts - d->icmp_ts) / 1e6, d->reduced_frame);
		else
			snprintf(after, sizeof(after), "; no later packet from the %s to confirm the new size", who);
		if (d->reduced_frame) {
			pd_finding_metric(f, "payload_reduced_to", d->reduced_len, PD_UNIT_BYTES, PD_AGG_MAX);
			pd_finding_metric(f, "adapt_time", (double)(d->reduced_ts - d->icmp_ts) / 1e6, PD_UNIT_MS, PD_AGG_MAX);
		}
		pd_finding_detail(f,
				  "%u %s from the path (MTU %u) for the %s's %u-byte packets (payload %u B)%s%s%s", NULL,
				  d->icmp_n, v6 ? "ICMPv6 Packet Too Big" : "ICMP fragmentation-needed", mtu, who,
				  d->icmp_quoted_total, d->before_max, after, hint_s, oow);
		pd_finding_set_confidence(f, d->reduced_frame ? 0.95 : 0.7);
		pd_finding_settings(f, "MSS clamping", "interface MTU", NULL);
		if (d->reduced_frame)
			pd_finding_add_impact(f, (double)(d->reduced_ts - d->icmp_ts) / 1e9);
	}
}

static void pm_report_mss(pd_ctx *ctx, const pd_flow *flow, pm_dir *d, int dir, uint32_t path_mtu, const char *how,
			  bool serious)
{
	uint32_t mss = pm_peer_mss(flow, dir);
	if (!mss || !path_mtu)
		return;
	uint32_t hdr = flow->addr[0].family == 6 ? 60 : 40; /* IP + TCP without options */
	if (mss + hdr <= path_mtu)
		return;
	const char *rcv = dir == PD_CLIENT ? "server" : "client";
	pd_finding *f = pd_finding_get(ctx, "mss-exceeds-path", flow);
	pd_finding_set_severity(f, serious ? PD_SEV_WARNING : PD_SEV_INFO);
	pd_finding_set_confidence(f, 0.85);
	uint64_t fr = dir == PD_CLIENT ? flow->synack_frame : flow->syn_frame;
	pd_time ts = dir == PD_CLIENT ? flow->synack_ts : flow->syn_ts;
	if (fr)
		pd_finding_occurrence(f, fr, ts, "MSS option in the SYN", NULL);
	pd_finding_metric(f, "announced_mss", mss, PD_UNIT_BYTES, PD_AGG_MAX);
	pd_finding_metric(f, "path_mtu", path_mtu, PD_UNIT_BYTES, PD_AGG_MAX);
	pd_finding_metric(f, "max_payload_through", d->max_ok, PD_UNIT_BYTES, PD_AGG_MAX);
	pd_finding_metric(f, "clamp_mss_to", path_mtu - hdr, PD_UNIT_BYTES, PD_AGG_MAX);
	pd_finding_detail(f,
			  "the %s announced MSS %u (packets of %u B) but the path carries %u B (%s); the "
			  "largest segment ACKed was %u B. Clamping the MSS to %u at the router or tunnel "
			  "endpoint avoids the loss", NULL,
			  rcv, mss, mss + hdr, path_mtu, how, d->max_ok, path_mtu - hdr);
	pd_finding_settings(f, "MSS clamping", "interface MTU", "net.ipv4.tcp_mtu_probing", NULL);
}

static void pm_report_bh(pd_ctx *ctx, const pd_flow *flow, pm_dir *d, int dir)
{
	const char *who = dir == PD_CLIENT ? "client" : "server";
	bool v6 = flow->addr[0].family == 6;
	pd_finding *f = pd_finding_get(ctx, "pmtu-blackhole", flow);
	pd_finding_occurrence(f, d->bh_start_frame, d->bh_start, "full-size segment never ACKed", NULL);
	pd_finding_occurrence(f, d->bh_frame, d->bh_start, "first timeout retransmission", NULL);
	char gaps[160];
	pm_gaps_str(d->bh_gaps_ms, d->bh_n_gaps, gaps, sizeof(gaps));
	bool backoff = pm_backoff(d->bh_gaps_ms, d->bh_n_gaps);
	pd_finding_metric(f, "segment_size", d->bh_len, PD_UNIT_BYTES, PD_AGG_MAX);
	pd_finding_metric(f, "retransmissions", d->bh_retx, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "max_payload_through", d->max_ok, PD_UNIT_BYTES, PD_AGG_MAX);
	uint32_t hdr = v6 ? 60 : 40;
	if (d->bh_recovered) {
		pd_time stall = d->bh_recover_ts - d->bh_start;
		pd_finding_occurrence(f, d->bh_recover_frame, d->bh_recover_ts, "smaller retransmission got through", NULL);
		pd_finding_metric(f, "stall", (double)stall / 1e9, PD_UNIT_S, PD_AGG_SUM);
		pd_finding_metric(f, "time_to_recover", (double)stall / 1e9, PD_UNIT_S, PD_AGG_SUM);
		pd_finding_metric(f, "recovered_size", d->bh_new_len, PD_UNIT_BYTES, PD_AGG_MAX);
		if (d->after_recover_max_ok)
			pd_finding_metric(f, "settled_size", d->after_recover_max_ok, PD_UNIT_BYTES, PD_AGG_MAX);
		pd_finding_detail(f,
				  "the %s's %u-byte segment was retransmitted %u times by timeout (gaps %s s%s) and "
				  "never ACKed, with no ICMP %s in the capture; after %.2f s it was resent as %u B "
				  "(frame %" G_GUINT64_FORMAT "), which got through at once: MTU probing "
				  "(net.ipv4.tcp_mtu_probing) recovered%s%u B. Path MTU between %u and %u B", NULL,
				  who, d->bh_len, d->bh_retx, gaps, backoff ? ", doubling" : "",
				  v6 ? "Packet Too Big" : "fragmentation-needed", (double)stall / 1e9, d->bh_new_len,
				  d->bh_recover_frame, d->after_recover_max_ok ? " and later settled at " : " at ",
				  d->after_recover_max_ok ? d->after_recover_max_ok : d->bh_new_len,
				  d->after_recover_total ? d->after_recover_total : d->bh_new_len + hdr, d->bh_total - 1);
		if (d->after_recover_total) {
			pd_finding_metric(f, "path_mtu_min", d->after_recover_total, PD_UNIT_BYTES, PD_AGG_MAX);
			pd_finding_metric(f, "path_mtu_max", d->bh_total - 1, PD_UNIT_BYTES, PD_AGG_MAX);
			char tun[256];
			if (pm_tunnel_range(d->after_recover_total, d->bh_total - 1, tun, sizeof(tun))) {
				char *was = g_strdup(f->detail ? f->detail : "");
				pd_finding_detail(f, "%s; encapsulation MTUs in that range: %s", NULL, was, tun);
				g_free(was);
			}
		}
		pd_finding_add_impact(f, (double)stall / 1e9);
		pd_finding_set_confidence(f, 0.9);
		/* Probing already saved it; the cause is the filtered ICMP. */
		pd_finding_settings(f, "firewall dropping ICMP frag-needed", "MSS clamping", "interface MTU",
				    "net.ipv4.tcp_base_mss", "net.ipv4.tcp_mtu_probing", NULL);
	} else {
		pd_time end = flow->last_ts;
		pd_time stall = end - d->bh_start;
		pd_finding_metric(f, "stall", (double)stall / 1e9, PD_UNIT_S, PD_AGG_SUM);
		pd_finding_detail(f,
				  "the %s's %u-byte segment was retransmitted %u times by timeout (gaps %s s%s) and "
				  "never ACKed, while the handshake's small packets passed%s; no ICMP %s in the "
				  "capture and no smaller retry (net.ipv4.tcp_mtu_probing off?). The transfer "
				  "stalled %.2f s until the flow ended. %s%u B", NULL,
				  who, d->bh_len, d->bh_retx, gaps, backoff ? ", doubling" : "",
				  d->bh_peer_spoke ? " and the peer kept sending" : "",
				  v6 ? "Packet Too Big" : "fragmentation-needed", (double)stall / 1e9,
				  d->max_ok ? "Largest segment ever ACKed: " : "No data segment was ever ACKed; packets up to ",
				  d->max_ok ? d->max_ok : d->bh_total - 1);
		pd_finding_add_impact(f, (double)stall / 1e9);
		pd_finding_set_confidence(f, d->bh_peer_spoke ? 0.75 : 0.55);
		pd_finding_settings(f, "net.ipv4.tcp_mtu_probing", "firewall dropping ICMP frag-needed", "MSS clamping",
				    "interface MTU", "net.ipv4.tcp_base_mss", NULL);
	}
	if (!v6 && d->big_pkts)
		pd_finding_metric(f, "df_share", (double)d->big_df / (double)d->big_pkts, PD_UNIT_RATIO, PD_AGG_MAX);
}

static void pm_on_flow_end(pd_ctx *ctx, void *gv, const pd_flow *flow, void *fs)
{
	pm_global *g = gv;
	pm_flow *o = fs;
	const pm_unmatched *u = &o->unmatched;
	pm_unmatched_add(&g->unmatched, u->frame, u->ts, u->n, u->mtu);
	if (!o->p)
		return;
	bool v6 = flow->addr[0].family == 6;
	for (int dir = 0; dir < 2; dir++) {
		pm_dir *d = &o->p->d[dir];
		/* An episode still open: never got through. */
		if (d->stuck && !d->bh && d->stuck_retx >= PM_BH_MIN_RETX + 1 && d->stuck_df &&
		    flow->proto == 6 && (flow->hs_ack_frame || d->max_ok)) {
			d->bh = true;
			d->bh_recovered = false;
			d->bh_len = d->stuck_len;
			d->bh_total = d->stuck_total;
			d->bh_retx = d->stuck_retx;
			d->bh_frame = d->stuck_first_frame;
			d->bh_start = d->stuck_start;
			d->bh_start_frame = d->stuck_start_frame;
			d->bh_last_retx_ts = d->stuck_last_ts;
			d->bh_n_gaps = d->n_gaps;
			memcpy(d->bh_gaps_ms, d->gaps_ms, sizeof(d->gaps_ms));
			d->bh_peer_spoke = d->peer_spoke;
		}
		if (d->icmp_n) {
			pm_report_icmp(ctx, flow, d, dir);
			if (flow->proto == 6 && d->icmp_mtu)
				pm_report_mss(ctx, flow, d, dir, d->icmp_mtu, v6 ? "ICMPv6 Packet Too Big" : "ICMP frag-needed",
					      d->too_big_after >= 2);
		} else if (d->bh) {
			pm_report_bh(ctx, flow, d, dir);
			bool late = d->bh_recovered && d->after_recover_max_ok;
			uint32_t through = late ? d->after_recover_max_ok : d->max_ok;
			uint32_t total = late ? d->after_recover_total : d->max_ok_total;
			if (through && through < d->bh_len && total)
				pm_report_mss(ctx, flow, d, dir, total,
					      "at least: the largest packet that got through", true);
		} else if (flow->proto == 6 && d->n_at_max >= PM_INFER_MIN_SEGS) {
			/* No ICMP and no black hole here, yet a bulk sender never
			 * filled the MSS both ends announced: the path MTU was
			 * learnt before this capture point (PMTU discovery seen
			 * only upstream, e.g. on a receiver-side capture, or a
			 * cached route MTU). */
			uint32_t hdr = v6 ? 60 : 40;
			uint32_t own = flow->half[dir].mss;
			if (own && d->max_total + 40 <= own + hdr) {
				char how[160];
				snprintf(how, sizeof(how),
					 "inferred: %u bulk segments all capped at %u-byte packets and no ICMP in this "
					 "capture, so the sender learnt the path MTU upstream of the capture point",
					 d->n_at_max, d->max_total);
				pm_report_mss(ctx, flow, d, dir, d->max_total, how, false);
			}
		}
	}
	g_free(o->p);
	o->p = NULL;
}

static void pm_on_end(pd_ctx *ctx, void *gv)
{
	pm_global *g = gv;
	pm_unmatched u = g->unmatched;
	const pd_capture_facts *fa = pd_ctx_facts(ctx);
	pm_unmatched_add(&u, fa->icmp_unmatched_frame, fa->icmp_unmatched_ts, (uint32_t)fa->icmp_unmatched_frag_needed,
			 fa->icmp_unmatched_min_mtu);
	if (!u.n)
		return;
	pd_finding *f = pd_finding_get(ctx, "pmtu-frag-needed", NULL);
	pd_finding_occurrence(f, u.frame, u.ts, "ICMP too big, flow not captured", NULL);
	pd_finding_metric(f, "icmp_messages", u.n, PD_UNIT_COUNT, PD_AGG_SUM);
	if (u.mtu)
		pd_finding_metric(f, "path_mtu", u.mtu, PD_UNIT_BYTES, PD_AGG_MAX);
	const char *hint = u.mtu ? pm_tunnel_hint(u.mtu) : NULL;
	pd_finding_detail(f,
			  "%u ICMP fragmentation-needed / Packet Too Big message%s (smallest MTU %u%s%s) quote "
			  "packets of flows not in this capture (or not big enough to follow): whether the "
			  "senders adapted cannot be seen", NULL,
			  u.n, u.n == 1 ? "" : "s", u.mtu, hint ? ", like " : "", hint ? hint : "");
	pd_finding_set_confidence(f, 0.6);
}

static const char *const pm_emits[] = {"pmtu-frag-needed", "pmtu-not-adapted", "pmtu-blackhole", "mss-exceeds-path",
				       NULL};

const pd_detector pd_det_pmtu = {
	.name = "pmtu",
	.emits = pm_emits,
	.flow_state_size = sizeof(pm_flow),
	.global_state_size = sizeof(pm_global),
	.on_tcp = pm_on_tcp,
	.on_udp = pm_on_udp,
	.on_icmp_error = pm_on_icmp_error,
	.on_flow_end = pm_on_flow_end,
	.on_end = pm_on_end,
};
