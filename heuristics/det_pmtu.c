/* Path MTU: ICMP fragmentation-needed / Packet Too Big tied back to the
 * flow whose packet they quote, whether the sender then sent smaller
 * packets, and black holes (full-size segments retransmitted with backoff
 * and never acknowledged, no ICMP in sight), with the recovery that
 * net.ipv4.tcp_mtu_probing=1 brings after a few timeouts.
 *
 * Next to the receiver a black hole shows differently: after a silence
 * with everything acknowledged, the sender's sequence jumps past data that
 * never arrived, and what fills the gap, if anything, comes in smaller
 * segments (MTU probing). Either way a black hole needs the big packets to
 * vanish: resends smaller than the lost originals, or none at all; the
 * segment size a sender should reach comes from both announced MSSs (its
 * own may be the smaller) and what it got through before.
 *
 * Sizes are judged against the MSS the receiver announced, so segments
 * larger than that (TSO/GSO on a sender-side capture, GRO/LRO on a
 * receiver-side one) are never taken for PMTU evidence; the capture
 * detector reports them. Per-flow state is two pointers; the detail blocks
 * are allocated only for flows that send data (the receiver view) and
 * packets big enough to matter (the rest). */
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

/* What few flows need: ICMP errors, black-hole episodes (made at the
 * first of either, per direction). */
typedef struct pm_xdir {
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
} pm_xdir;

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

	pm_xdir *x; /* NULL until the first ICMP error or black-hole episode */
} pm_dir;

typedef struct pm_state {
	pm_dir d[2];
} pm_state;

/* The receiver-side view of a black hole, per sender S: after >= 1 s of
 * silence from S with everything it sent ACKed, its sequence jumps past
 * more than a full segment the capture never saw, although no full-size
 * segment had ever arrived: S's big packets vanish upstream. */
typedef struct pm_rx_dir {
	bool hi_valid;
	uint32_t hi; /* highest seq_end S sent, as captured */
	pd_time last_tx_ts;
	uint32_t max_len, max_total; /* largest payload and IP packet from S so far */
	bool quiet_open, jump;
	uint32_t quiet_len;
	uint64_t quiet_frame;
	pd_time quiet_end_ts, jump_quiet;
	uint32_t jump_lo, jump_hi, jump_max_before;
	uint64_t jump_frame;
	pd_time jump_ts;
	/* what later filled [jump_lo, jump_hi): the resends, if they came */
	uint32_t fill_max, fill_n, first_fill;
} pm_rx_dir;

typedef struct pm_rx {
	pm_rx_dir d[2];
} pm_rx;

/* The detector's payload block (pd_ctx_payload): the engine makes it at a
 * TCP flow's first payload and packs it with the flow when idle. */
typedef struct pm_payload {
	pm_rx rx;
	pm_state st; /* a TCP flow's size state (pm_flow.p_in_payload) */
} pm_payload;

/* ICMP too-big messages that quote packets this detector did not follow
 * (too small to be refused, or of a flow the engine no longer has). */
typedef struct pm_unmatched {
	uint32_t n, mtu;
	uint64_t frame;
	pd_time ts;
} pm_unmatched;

typedef struct pm_flow {
	/* The size state, from the first packet big enough to be refused: in
	 * the payload block for TCP (p_in_payload), made here for UDP. */
	pm_state *p;
	bool p_in_payload;
	bool rx_made; /* the payload block's pm_rx is in use: from the first non-SYN TCP payload */
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

/* The flow's size state; NULL until pm_attach. */
static pm_state *pm_p(const pd_ctx *ctx, const pm_flow *o)
{
	if (o->p_in_payload)
		return &((pm_payload *)pd_ctx_payload(ctx))->st;
	return o->p;
}

/* The receiver view, once in use (rx_made); NULL before. */
static pm_rx *pm_rx_of(const pd_ctx *ctx, const pm_flow *o)
{
	return o->rx_made ? &((pm_payload *)pd_ctx_payload(ctx))->rx : NULL;
}

/* Start following a flow once it sends a packet big enough to be refused. */
static pm_state *pm_attach(const pd_ctx *ctx, const pd_flow *flow, pm_flow *o)
{
	pm_state *p = pm_p(ctx, o);
	if (p)
		return p;
	pm_payload *pl = flow->proto == 6 ? pd_ctx_payload(ctx) : NULL;
	if (pl) {
		o->p_in_payload = true;
		return &pl->st;
	}
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

/* Common encapsulations, as hints only: the MTU 1500 less their overhead. */
typedef struct pm_hint {
	uint32_t mtu;
	const char *en, *zh;
} pm_hint;

static const pm_hint pm_hints[] = {
	{1492, "PPPoE-sized (8 B)", "PPPoE 大小（8 字节）"},
	{1480, "an IPIP or 6in4/SIT tunnel (20 B)", "IPIP 或 6in4/SIT 隧道（20 字节）"},
	{1476, "a GRE tunnel (24 B)", "GRE 隧道（24 字节）"},
	{1472, "GRE with key, or 28 B of encapsulation", "带 key 的 GRE，或 28 字节的封装"},
	{1450, "VXLAN over IPv4 (50 B)", "IPv4 上的 VXLAN（50 字节）"},
	{1440, "WireGuard over IPv4 (60 B)", "IPv4 上的 WireGuard（60 字节）"},
	{1430, "VXLAN over IPv6 (70 B)", "IPv6 上的 VXLAN（70 字节）"},
	{1420, "WireGuard over IPv6 (80 B)", "IPv6 上的 WireGuard（80 字节）"},
	{1400, "a round value typical of IPsec/VPN or a hand-set tunnel MTU",
	 "IPsec/VPN 常用的整数值，或手工设定的隧道 MTU"},
	{1280, "the IPv6 minimum MTU", "IPv6 的最小 MTU"},
};

static const pm_hint pm_hint_ipsec = {0, "IPsec-like encapsulation (about 50-100 B)", "类似 IPsec 的封装（约 50-100 字节）"};

static const pm_hint *pm_tunnel_hint(uint32_t mtu)
{
	for (size_t i = 0; i < sizeof(pm_hints) / sizeof(pm_hints[0]); i++)
		if (pm_hints[i].mtu == mtu)
			return &pm_hints[i];
	if (mtu >= 1380 && mtu < 1440)
		return &pm_hint_ipsec;
	return NULL;
}

/* The well-known encapsulation MTUs inside [lo, hi], as "1450 (VXLAN over
 * IPv4 (50 B)), ..." in English (en) and Chinese (zh); false when none. */
static bool pm_tunnel_range(uint32_t lo, uint32_t hi, char *en, char *zh, size_t n)
{
	static const uint32_t known[] = {1492, 1480, 1476, 1472, 1450, 1440, 1430, 1420, 1400, 1280};
	size_t ue = 0, uz = 0;
	en[0] = zh[0] = 0;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if (known[i] < lo || known[i] > hi)
			continue;
		const pm_hint *h = pm_tunnel_hint(known[i]);
		int we = snprintf(en + ue, n - ue, "%s%u (%s)", ue ? ", " : "", known[i], h->en);
		int wz = snprintf(zh + uz, n - uz, "%s%u（%s）", uz ? "、" : "", known[i], h->zh);
		if (we < 0 || (size_t)we >= n - ue || wz < 0 || (size_t)wz >= n - uz)
			break;
		ue += (size_t)we;
		uz += (size_t)wz;
	}
	return ue > 0;
}

/* ---------------------------------------------------------------- TCP */

static pm_xdir *pm_x(pm_dir *d)
{
	if (!d->x)
		d->x = g_new0(pm_xdir, 1); /* once per direction with an ICMP error or a black-hole episode */
	return d->x;
}

/* The episode becomes the black hole found. */
static void pm_bh_from_episode(pm_xdir *x, bool recovered, bool peer_spoke)
{
	x->bh = true;
	x->bh_recovered = recovered;
	x->bh_len = x->stuck_len;
	x->bh_total = x->stuck_total;
	x->bh_retx = x->stuck_retx;
	x->bh_frame = x->stuck_first_frame;
	x->bh_start = x->stuck_start;
	x->bh_start_frame = x->stuck_start_frame;
	x->bh_last_retx_ts = x->stuck_last_ts;
	x->bh_n_gaps = x->n_gaps;
	memcpy(x->bh_gaps_ms, x->gaps_ms, sizeof(x->gaps_ms));
	x->bh_peer_spoke = peer_spoke;
}

static void pm_end_episode(pm_dir *d)
{
	if (!d->x)
		return;
	d->x->stuck = false;
	d->x->stuck_retx = 0;
	d->x->n_gaps = 0;
	d->x->small_retx = false;
	d->x->peer_spoke = false;
}

static void pm_on_ack(pm_dir *d, const pd_flow *flow, int dir, uint32_t ack, pd_time ts, bool advanced)
{
	const pd_tcp_half *h = &flow->half[dir];
	if (d->cand && pd_seq_le(d->cand_end, ack)) {
		if (d->cand_len > d->max_ok) {
			d->max_ok = d->cand_len;
			d->max_ok_total = d->cand_total;
		}
		if (d->x && d->x->bh && d->x->bh_recovered && d->cand_len > d->x->after_recover_max_ok) {
			d->x->after_recover_max_ok = d->cand_len;
			d->x->after_recover_total = d->cand_total;
		}
		d->cand = false;
	}
	/* Stall bookkeeping: the oldest unacked data moves on. */
	if (h->seq_valid && pd_seq_le(h->next_seq, ack))
		d->una_ts = 0;
	else if (d->una_ts && advanced)
		d->una_ts = ts;
	if (d->x && d->x->stuck) {
		d->x->peer_spoke = true;
		if (pd_seq_lt(d->x->stuck_seq, ack)) {
			if (d->x->small_retx && d->x->stuck_retx >= PM_BH_MIN_RETX && !d->x->bh && d->x->stuck_df) {
				/* Got through only once it was sent smaller. */
				pm_bh_from_episode(d->x, true, true);
				d->x->bh_new_len = d->x->small_len;
				d->x->bh_recover_frame = d->x->small_frame;
				d->x->bh_recover_ts = d->x->small_ts;
			}
			pm_end_episode(d);
		}
	}
}

/* The payload of a full-size segment from side dir: the smaller of the two
 * announced MSSs (a sender never exceeds its own, whatever the peer
 * allows), less the timestamp option when both use it; 0 when the peer's
 * MSS is unknown. */
static uint32_t pm_full_payload(const pd_flow *f, int dir)
{
	const pd_tcp_half *hs = &f->half[dir], *hr = &f->half[pd_peer(dir)];
	uint32_t mss = hr->mss;
	if (!mss)
		return 0;
	if (hs->mss && hs->mss < mss)
		mss = hs->mss;
	if (hs->ts_offered && hr->ts_offered && mss > 12)
		mss -= 12;
	return mss;
}

/* Every packet from S = dir but SYNs (see pm_rx_dir): a silence of >= 1 s with
 * everything ACKed, then within 1 s a jump past more than a full segment
 * never captured, while nothing near full size had ever come through. */
static void pm_rx_on_data(pm_rx_dir *d, const pd_flow *flow, int dir, const pd_packet *pkt)
{
	const pd_tcp *t = &pkt->tcp;
	const pd_tcp_half *hr = &flow->half[pd_peer(dir)];
	uint32_t len = t->payload_len, s = t->seq, e = t->seq + len;
	uint32_t full = pm_full_payload(flow, dir);
	if (!d->jump && full && d->hi_valid) {
		if (d->last_tx_ts && pkt->ts - d->last_tx_ts >= PD_NS_PER_SEC && hr->ack_valid && hr->last_ack == d->hi &&
		    d->max_len + 40 < full) {
			d->quiet_open = true;
			d->jump_quiet = pkt->ts - d->last_tx_ts;
			d->quiet_end_ts = pkt->ts;
			d->quiet_frame = pkt->frame_no;
			d->quiet_len = len;
			d->jump_max_before = d->max_len;
		}
		if (d->quiet_open && pd_seq_lt(d->hi, s)) {
			if (pkt->ts - d->quiet_end_ts > PD_NS_PER_SEC || s - d->hi <= full) {
				d->quiet_open = false;
			} else {
				d->jump = true;
				d->quiet_open = false;
				d->jump_lo = d->hi;
				d->jump_hi = s;
				d->jump_frame = pkt->frame_no;
				d->jump_ts = pkt->ts;
			}
		}
	}
	if (d->jump && len && pd_seq_lt(s, d->jump_hi) && pd_seq_le(d->jump_lo, s)) {
		if (!d->fill_n)
			d->first_fill = len;
		d->fill_n++;
		if (len > d->fill_max)
			d->fill_max = len;
	}
	d->last_tx_ts = pkt->ts;
	if (!len)
		return; /* a pure ACK: its sequence can reveal a jump, nothing more */
	if (len > d->max_len)
		d->max_len = len;
	if (pkt->ip.total_len > d->max_total)
		d->max_total = pkt->ip.total_len;
	if (!d->hi_valid || pd_seq_lt(d->hi, e)) {
		d->hi_valid = true;
		d->hi = e;
	}
}

static void pm_on_tcp(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, const pd_seg *seg)
{
	pm_flow *o = fs;
	const pd_tcp *t = &pkt->tcp;
	int dir = seg->dir;
	if (!(t->flags & PD_TCP_SYN)) {
		if (t->payload_len)
			o->rx_made = true;
		pm_rx *rx = pm_rx_of(ctx, o);
		if (rx && !(seg->flags & PD_SEG_CAPTURE_COPY)) {
			pm_rx_dir *rd = &rx->d[dir];
			if (!(t->flags & PD_TCP_RST) && !pkt->ip.is_fragment &&
			    !(seg->flags & (PD_SEG_KEEPALIVE | PD_SEG_ZWP)))
				pm_rx_on_data(rd, flow, dir, pkt);
			else
				rd->last_tx_ts = pkt->ts;
		}
	}
	if (!pm_p(ctx, o) && pkt->ip.total_len <= pm_min_mtu(pkt->ip.version))
		return;
	pm_state *p = pm_attach(ctx, flow, o);
	pm_dir *d = &p->d[dir];
	pm_dir *rev = &p->d[pd_peer(dir)];

	if (t->flags & PD_TCP_ACK)
		pm_on_ack(rev, flow, pd_peer(dir), t->ack, pkt->ts, seg->acked > 0);
	if (rev->x && rev->x->stuck && !(t->flags & PD_TCP_SYN))
		rev->x->peer_spoke = true;

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
	if (d->x && d->x->icmp_n) {
		pd_time since = pkt->ts - d->x->icmp_ts;
		uint32_t lim = d->x->icmp_mtu ? d->x->icmp_mtu : 0;
		if (lim && lim < pm_min_mtu(pkt->ip.version))
			lim = pm_min_mtu(pkt->ip.version);
		if (!d->x->reduced_frame && lim && pkt->ip.total_len <= lim && len < d->x->before_max) {
			d->x->reduced_frame = pkt->frame_no;
			d->x->reduced_ts = pkt->ts;
			d->x->reduced_len = len;
		}
		/* Judge from the first smaller segment on, or after the grace. */
		if (since > PM_GRACE_NS || (d->x->reduced_frame && d->x->reduced_frame <= pkt->frame_no)) {
			if (len > d->x->after_max)
				d->x->after_max = len;
			if (lim && pkt->ip.total_len > lim && (pkt->ip.version == 6 || pkt->ip.df)) {
				if (!d->x->too_big_after) {
					d->x->too_big_frame = pkt->frame_no;
					d->x->too_big_ts = pkt->ts;
				}
				d->x->too_big_after++;
			}
		}
	}

	/* Black hole: the same full-size segment retransmitted by timeout. */
	bool full = mss ? len + 40 >= mss : (d->max_sent && len * 10 >= d->max_sent * 9);
	if ((seg->flags & PD_SEG_RETRANS) && !(seg->flags & PD_SEG_FAST_RETRANS)) {
		if (d->x && d->x->stuck && t->seq == d->x->stuck_seq && len >= d->x->stuck_len) {
			pd_time gap = pkt->ts - d->x->stuck_last_ts;
			if (d->x->n_gaps < PM_MAX_GAPS)
				d->x->gaps_ms[d->x->n_gaps++] = (uint32_t)(gap / 1000000);
			d->x->stuck_retx++;
			d->x->stuck_last_ts = pkt->ts;
		} else if (d->x && d->x->stuck && pd_seq_le(t->seq, d->x->stuck_seq) &&
			   pd_seq_lt(d->x->stuck_seq, t->seq + len) && len < d->x->stuck_len) {
			if (!d->x->small_retx) {
				d->x->small_retx = true;
				d->x->small_len = len;
				d->x->small_frame = pkt->frame_no;
				d->x->small_ts = pkt->ts;
			}
		} else if (full && big && len > d->max_ok) {
			pm_x(d);
			pm_end_episode(d);
			d->x->stuck = true;
			d->x->stuck_seq = t->seq;
			d->x->stuck_len = len;
			d->x->stuck_total = pkt->ip.total_len;
			d->x->stuck_retx = 1;
			d->x->stuck_first_frame = pkt->frame_no;
			d->x->stuck_last_ts = pkt->ts;
			d->x->stuck_start = d->una_ts ? d->una_ts : pkt->ts;
			d->x->stuck_start_frame = d->una_ts ? d->una_frame : pkt->frame_no;
			if (d->una_ts && d->una_ts < pkt->ts)
				d->x->gaps_ms[d->x->n_gaps++] = (uint32_t)((pkt->ts - d->una_ts) / 1000000);
			d->x->stuck_df = pkt->ip.version == 6 || pkt->ip.df;
		}
	}
}

/* --------------------------------------------------------------- ICMP */

/* An ICMP frag-needed / Packet Too Big quoting a packet of this flow; dir:
 * the side whose packet was too big (the quoted source). */
static void pm_on_icmp_error(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, int dir)
{
	pm_flow *o = fs;
	if (!pkt->icmp.is_frag_needed || !pkt->icmp.has_inner)
		return;
	const pd_icmp *ic = &pkt->icmp;
	const pd_ip *in = &ic->inner_ip;
	pm_state *p = pm_p(ctx, o);
	if (!p) {
		pm_unmatched_add(&o->unmatched, pkt->frame_no, pkt->ts, 1, ic->mtu);
		return;
	}
	pm_dir *d = &p->d[dir];
	pm_x(d);
	if (!d->x->icmp_n) {
		d->x->icmp_frame = pkt->frame_no;
		d->x->icmp_ts = pkt->ts;
		d->x->before_max = d->max_sent;
		d->x->icmp_quoted_total = in->total_len;
	}
	d->x->icmp_n++;
	if (ic->mtu && (!d->x->icmp_mtu || ic->mtu < d->x->icmp_mtu))
		d->x->icmp_mtu = ic->mtu;
	if (ic->mtu && in->total_len && ic->mtu >= in->total_len)
		d->x->icmp_bogus++; /* the quoted packet fit that MTU */
	/* Linux ignores a TCP ICMP whose quoted sequence is outside SND.UNA..SND.NXT. */
	if (flow->proto == 6 && ic->inner_has_seq) {
		const pd_tcp_half *h = &flow->half[dir], *peer = &flow->half[pd_peer(dir)];
		if (h->seq_valid && peer->ack_valid &&
		    (pd_seq_lt(ic->inner_seq, peer->last_ack) || pd_seq_lt(h->next_seq, ic->inner_seq)))
			d->x->icmp_oow++;
	}
}

static void pm_on_udp(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, const pd_seg *seg)
{
	int dir = seg->dir;
	pm_flow *o = fs;
	if (!pm_p(ctx, o) && pkt->ip.total_len <= pm_min_mtu(pkt->ip.version))
		return;
	pm_state *p = pm_attach(ctx, flow, o);
	pm_dir *d = &p->d[dir];
	uint32_t len = pkt->ip.is_fragment ? pkt->ip.total_len - pm_hdr(pkt) : pkt->udp.payload_len;
	if (len > d->max_sent)
		d->max_sent = len;
	if (pkt->ip.total_len > d->max_total)
		d->max_total = pkt->ip.total_len;
	if (d->x && d->x->icmp_n && pkt->ts - d->x->icmp_ts > PM_GRACE_NS) {
		uint32_t lim = d->x->icmp_mtu;
		if (lim && lim < pm_min_mtu(pkt->ip.version))
			lim = pm_min_mtu(pkt->ip.version);
		if (len > d->x->after_max)
			d->x->after_max = len;
		if (lim && pkt->ip.total_len > lim && (pkt->ip.version == 6 || pkt->ip.df)) {
			if (!d->x->too_big_after) {
				d->x->too_big_frame = pkt->frame_no;
				d->x->too_big_ts = pkt->ts;
			}
			d->x->too_big_after++;
		}
		if (!d->x->reduced_frame && lim && pkt->ip.total_len <= lim) {
			d->x->reduced_frame = pkt->frame_no;
			d->x->reduced_ts = pkt->ts;
			d->x->reduced_len = len;
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

/* "MTU N looks like X": a hint, not a proof. */
static void pm_append_hint(pd_finding *f, uint32_t mtu)
{
	const pm_hint *h = mtu ? pm_tunnel_hint(mtu) : NULL;
	if (h)
		pd_finding_append(f, " MTU %1$u looks like %2$s%3$.0s (a hint, not a proof).",
				  "MTU %1$u 可能对应：%3$s%2$.0s（仅是提示，并非证据）。", mtu, h->en, h->zh);
}

static void pm_report_icmp(pd_ctx *ctx, const pd_flow *flow, pm_dir *d, int dir)
{
	uint32_t mtu = d->x->icmp_mtu;
	bool v6 = flow->addr[0].family == 6;
	bool not_adapted = d->x->too_big_after >= 2;
	char who[64];
	pd_flow_endpoint(flow, dir, who, sizeof(who));
	pd_finding *f = pd_finding_get(ctx, not_adapted ? "pmtu-not-adapted" : "pmtu-frag-needed", flow);
	if (v6)
		pd_finding_occurrence(f, d->x->icmp_frame, d->x->icmp_ts, "ICMPv6 Packet Too Big", "ICMPv6 报文过大（Packet Too Big）");
	else
		pd_finding_occurrence(f, d->x->icmp_frame, d->x->icmp_ts, "ICMP frag-needed", "ICMP 需要分片（frag-needed）");
	pd_finding_metric(f, "icmp_messages", d->x->icmp_n, PD_UNIT_COUNT, PD_AGG_SUM);
	if (mtu)
		pd_finding_metric(f, "path_mtu", mtu, PD_UNIT_BYTES, PD_AGG_MAX);
	pd_finding_metric(f, "payload_before", d->x->before_max, PD_UNIT_BYTES, PD_AGG_MAX);
	if (d->x->after_max)
		pd_finding_metric(f, "payload_after", d->x->after_max, PD_UNIT_BYTES, PD_AGG_MAX);
	if (not_adapted) {
		pd_finding_occurrence(f, d->x->too_big_frame, d->x->too_big_ts, "still too big after the ICMP",
				      "收到 ICMP 之后仍然过大");
		pd_finding_metric(f, "too_big_after", d->x->too_big_after, PD_UNIT_COUNT, PD_AGG_SUM);
		long long grace_ms = (long long)(PM_GRACE_NS / 1000000);
		if (v6)
			pd_finding_detail(f,
					  "%u ICMPv6 Packet Too Big messages (MTU %u) quoted %s's %u-byte packets, but %u "
					  "packets larger than %u B were sent more than %lld ms later (first at frame %" G_GUINT64_FORMAT
					  "); largest payload after them %u B, before %u B. The ICMP seen here probably did not "
					  "reach the sender (filtered between this capture point and it) or was not believed.",
					  "%1$u 个 ICMPv6 报文过大（Packet Too Big）消息（MTU %2$u）引用了 %3$s 的 %4$u 字节报文，"
					  "但在 %7$lld 毫秒之后它仍发出了 %5$u 个大于 %6$u 字节的报文（第一个在第 %8$" G_GUINT64_FORMAT
					  " 帧）；之后的最大载荷为 %9$u 字节，之前为 %10$u 字节。这里看到的 ICMP 很可能没有到达"
					  "发送端（在这个抓包点与发送端之间被过滤），或者没有被采信。",
					  d->x->icmp_n, mtu, who, d->x->icmp_quoted_total, d->x->too_big_after, mtu, grace_ms,
					  d->x->too_big_frame, d->x->after_max, d->x->before_max);
		else
			pd_finding_detail(f,
					  "%u ICMP fragmentation-needed messages (MTU %u) quoted %s's %u-byte packets, but %u "
					  "packets larger than %u B with DF were sent more than %lld ms later (first at frame %" G_GUINT64_FORMAT
					  "); largest payload after them %u B, before %u B. The ICMP seen here probably did not "
					  "reach the sender (filtered between this capture point and it) or was not believed.",
					  "%1$u 个 ICMP 需要分片（fragmentation-needed）消息（MTU %2$u）引用了 %3$s 的 %4$u "
					  "字节报文，但在 %7$lld 毫秒之后它仍发出了 %5$u 个大于 %6$u 字节且带 DF 的报文（第一个在第 "
					  "%8$" G_GUINT64_FORMAT " 帧）；之后的最大载荷为 %9$u 字节，之前为 %10$u 字节。这里看到的 "
					  "ICMP 很可能没有到达发送端（在这个抓包点与发送端之间被过滤），或者没有被采信。",
					  d->x->icmp_n, mtu, who, d->x->icmp_quoted_total, d->x->too_big_after, mtu, grace_ms,
					  d->x->too_big_frame, d->x->after_max, d->x->before_max);
		pd_finding_set_confidence(f, d->x->icmp_oow ? 0.6 : 0.8);
		pd_finding_settings(f, "firewall dropping ICMP frag-needed", "MSS clamping", "net.ipv4.ip_no_pmtu_disc",
				    "net.ipv4.tcp_mtu_probing", "net.ipv4.route.min_pmtu", NULL);
		/* The time the flow kept sending packets that could not pass. */
		pd_finding_add_impact(f, (double)(flow->last_ts - d->x->icmp_ts) / 1e9);
	} else {
		if (v6)
			pd_finding_detail(f,
					  "%u ICMPv6 Packet Too Big messages from the path (MTU %u) for %s's %u-byte packets "
					  "(payload %u B).",
					  "路径上发来 %u 个 ICMPv6 报文过大（Packet Too Big）消息（MTU %u），针对 %s 的 %u "
					  "字节报文（载荷 %u 字节）。",
					  d->x->icmp_n, mtu, who, d->x->icmp_quoted_total, d->x->before_max);
		else
			pd_finding_detail(f,
					  "%u ICMP fragmentation-needed messages from the path (MTU %u) for %s's %u-byte "
					  "packets (payload %u B).",
					  "路径上发来 %u 个 ICMP 需要分片（fragmentation-needed）消息（MTU %u），针对 %s 的 "
					  "%u 字节报文（载荷 %u 字节）。",
					  d->x->icmp_n, mtu, who, d->x->icmp_quoted_total, d->x->before_max);
		if (d->x->reduced_frame) {
			pd_finding_append(f, " The sender came down to %u-byte segments %.3f ms later (frame %" G_GUINT64_FORMAT ").",
					  "发送端在 %2$.3f 毫秒后降到了 %1$u 字节的数据段（第 %3$" G_GUINT64_FORMAT " 帧）。",
					  d->x->reduced_len, (double)(d->x->reduced_ts - d->x->icmp_ts) / 1e6, d->x->reduced_frame);
			pd_finding_metric(f, "payload_reduced_to", d->x->reduced_len, PD_UNIT_BYTES, PD_AGG_MAX);
			pd_finding_metric(f, "adapt_time", (double)(d->x->reduced_ts - d->x->icmp_ts) / 1e6, PD_UNIT_MS, PD_AGG_MAX);
		} else {
			pd_finding_append(f, " No later packet from the sender confirms the new size.",
					  "之后没有来自发送端的报文可以证实新的大小。");
		}
		pd_finding_set_confidence(f, d->x->reduced_frame ? 0.95 : 0.7);
		pd_finding_settings(f, "MSS clamping", "interface MTU", NULL);
		if (d->x->reduced_frame)
			pd_finding_add_impact(f, (double)(d->x->reduced_ts - d->x->icmp_ts) / 1e9);
	}
	pm_append_hint(f, mtu);
	if (d->x->icmp_oow)
		pd_finding_append(f,
				  " %u of them quoted a sequence outside the sender's window, which Linux ignores (a NAT "
				  "or load balancer rewriting sequence numbers?).",
				  "其中 %u 个引用的序列号不在发送端的窗口内，Linux 会忽略它们（是否有 NAT 或负载均衡器改写了"
				  "序列号？）。",
				  d->x->icmp_oow);
}

/* How the path MTU behind mss-exceeds-path was learnt. */
enum { PM_HOW_ICMP, PM_HOW_ICMP6, PM_HOW_THROUGH, PM_HOW_INFERRED };

static void pm_report_mss(pd_ctx *ctx, const pd_flow *flow, pm_dir *d, int dir, uint32_t path_mtu, int how,
			  bool serious)
{
	uint32_t mss = pm_peer_mss(flow, dir);
	if (!mss || !path_mtu)
		return;
	uint32_t hdr = flow->addr[0].family == 6 ? 60 : 40; /* IP + TCP without options */
	if (mss + hdr <= path_mtu)
		return;
	char rcv[64];
	pd_flow_endpoint(flow, pd_peer(dir), rcv, sizeof(rcv));
	pd_finding *f = pd_finding_get(ctx, "mss-exceeds-path", flow);
	pd_finding_set_severity(f, serious ? PD_SEV_WARNING : PD_SEV_INFO);
	pd_finding_set_confidence(f, 0.85);
	uint64_t fr = dir == PD_CLIENT ? flow->synack_frame : flow->syn_frame;
	pd_time ts = dir == PD_CLIENT ? flow->synack_ts : flow->syn_ts;
	if (fr)
		pd_finding_occurrence(f, fr, ts, "MSS option in the SYN", "SYN 中的 MSS 选项");
	pd_finding_metric(f, "announced_mss", mss, PD_UNIT_BYTES, PD_AGG_MAX);
	pd_finding_metric(f, "path_mtu", path_mtu, PD_UNIT_BYTES, PD_AGG_MAX);
	pd_finding_metric(f, "max_payload_through", d->max_ok, PD_UNIT_BYTES, PD_AGG_MAX);
	pd_finding_metric(f, "clamp_mss_to", path_mtu - hdr, PD_UNIT_BYTES, PD_AGG_MAX);
	pd_finding_detail(f,
			  "%s announced MSS %u (packets of %u B) but the path carries %u B; the largest segment ACKed "
			  "was %u B. Clamping the MSS to %u at the router or tunnel endpoint avoids the loss.",
			  "%s 通告的 MSS 为 %u（报文 %u 字节），但路径只能通过 %u 字节；被确认的最大数据段为 %u 字节。"
			  "在路由器或隧道端点把 MSS 钳制到 %u 即可避免丢包。",
			  rcv, mss, mss + hdr, path_mtu, d->max_ok, path_mtu - hdr);
	switch (how) {
	case PM_HOW_ICMP:
		pd_finding_append(f, " The path MTU comes from an ICMP fragmentation-needed message.",
				  "路径 MTU 来自一条 ICMP 需要分片消息。");
		break;
	case PM_HOW_ICMP6:
		pd_finding_append(f, " The path MTU comes from an ICMPv6 Packet Too Big message.",
				  "路径 MTU 来自一条 ICMPv6 报文过大消息。");
		break;
	case PM_HOW_THROUGH:
		pd_finding_append(f, " The path MTU is at least that: the largest packet that got through.",
				  "路径 MTU 至少为此值：这是成功通过的最大报文。");
		break;
	default:
		pd_finding_append(f,
				  " Inferred: %u bulk segments were all capped at %u-byte packets and no ICMP is in this "
				  "capture, so the sender learnt the path MTU upstream of the capture point.",
				  "这是推断：%u 个批量数据段全部被限制在 %u 字节的报文，而抓包中没有 ICMP，说明发送端是在"
				  "抓包点上游得知路径 MTU 的。",
				  d->n_at_max, d->max_total);
		break;
	}
	pd_finding_settings(f, "MSS clamping", "interface MTU", "net.ipv4.tcp_mtu_probing", NULL);
}

static void pm_report_bh(pd_ctx *ctx, const pd_flow *flow, pm_dir *d, int dir)
{
	bool v6 = flow->addr[0].family == 6;
	char who[64];
	pd_flow_endpoint(flow, dir, who, sizeof(who));
	pd_finding *f = pd_finding_get(ctx, "pmtu-blackhole", flow);
	pd_finding_occurrence(f, d->x->bh_start_frame, d->x->bh_start, "full-size segment never ACKed", "满长数据段始终未被确认");
	pd_finding_occurrence(f, d->x->bh_frame, d->x->bh_start, "first timeout retransmission", "第一次超时重传");
	char gaps[160];
	pm_gaps_str(d->x->bh_gaps_ms, d->x->bh_n_gaps, gaps, sizeof(gaps));
	bool backoff = pm_backoff(d->x->bh_gaps_ms, d->x->bh_n_gaps);
	pd_finding_metric(f, "segment_size", d->x->bh_len, PD_UNIT_BYTES, PD_AGG_MAX);
	pd_finding_metric(f, "retransmissions", d->x->bh_retx, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "max_payload_through", d->max_ok, PD_UNIT_BYTES, PD_AGG_MAX);
	uint32_t hdr = v6 ? 60 : 40;
	if (d->x->bh_recovered) {
		pd_time stall = d->x->bh_recover_ts - d->x->bh_start;
		pd_finding_occurrence(f, d->x->bh_recover_frame, d->x->bh_recover_ts, "smaller retransmission got through",
				      "改小后的重传成功通过");
		pd_finding_metric(f, "stall", (double)stall / 1e9, PD_UNIT_S, PD_AGG_SUM);
		pd_finding_metric(f, "time_to_recover", (double)stall / 1e9, PD_UNIT_S, PD_AGG_SUM);
		pd_finding_metric(f, "recovered_size", d->x->bh_new_len, PD_UNIT_BYTES, PD_AGG_MAX);
		if (d->x->after_recover_max_ok)
			pd_finding_metric(f, "settled_size", d->x->after_recover_max_ok, PD_UNIT_BYTES, PD_AGG_MAX);
		pd_finding_detail(f,
				  "The %u-byte segment from %s was retransmitted %u times by timeout (gaps %s s) and never "
				  "ACKed, with no ICMP too-big message in the capture; after %.2f s it was resent as %u B "
				  "(frame %" G_GUINT64_FORMAT "), which got through at once: MTU probing "
				  "(net.ipv4.tcp_mtu_probing) recovered.",
				  "%2$s 的 %1$u 字节数据段因超时被重传了 %3$u 次（间隔 %4$s 秒）且始终未被确认，抓包中也没有 "
				  "ICMP 报文过大消息；%5$.2f 秒后它被改为 %6$u 字节重发（第 %7$" G_GUINT64_FORMAT " 帧），"
				  "立即就通过了：是 MTU 探测（net.ipv4.tcp_mtu_probing）让连接恢复的。",
				  d->x->bh_len, who, d->x->bh_retx, gaps, (double)stall / 1e9, d->x->bh_new_len, d->x->bh_recover_frame);
		if (backoff)
			pd_finding_append(f, " The gaps doubled: the retransmission timer backing off.",
					  "重传间隔逐次翻倍：这是重传定时器在退避。");
		uint32_t lo = d->x->after_recover_total ? d->x->after_recover_total : d->x->bh_new_len + hdr;
		if (d->x->after_recover_max_ok)
			pd_finding_append(f, " Later segments settled at %u B. Path MTU between %u and %u B.",
					  "之后的数据段稳定在 %u 字节。路径 MTU 在 %u 到 %u 字节之间。",
					  d->x->after_recover_max_ok, lo, d->x->bh_total - 1);
		else
			pd_finding_append(f, " Path MTU between %u and %u B.", "路径 MTU 在 %u 到 %u 字节之间。", lo,
					  d->x->bh_total - 1);
		if (d->x->after_recover_total) {
			pd_finding_metric(f, "path_mtu_min", d->x->after_recover_total, PD_UNIT_BYTES, PD_AGG_MAX);
			pd_finding_metric(f, "path_mtu_max", d->x->bh_total - 1, PD_UNIT_BYTES, PD_AGG_MAX);
			char en[256], zh[320];
			if (pm_tunnel_range(d->x->after_recover_total, d->x->bh_total - 1, en, zh, sizeof(en)))
				pd_finding_append(f, " Encapsulation MTUs in that range: %1$s%2$.0s.",
						  "该范围内常见的封装 MTU：%2$s%1$.0s。", en, zh);
		}
		pd_finding_add_impact(f, (double)stall / 1e9);
		pd_finding_set_confidence(f, 0.9);
		/* Probing already saved it; the cause is the filtered ICMP. */
		pd_finding_settings(f, "firewall dropping ICMP frag-needed", "MSS clamping", "interface MTU",
				    "net.ipv4.tcp_base_mss", "net.ipv4.tcp_mtu_probing", NULL);
	} else {
		pd_time end = flow->last_ts;
		pd_time stall = end - d->x->bh_start;
		pd_finding_metric(f, "stall", (double)stall / 1e9, PD_UNIT_S, PD_AGG_SUM);
		pd_finding_detail(f,
				  "The %u-byte segment from %s was retransmitted %u times by timeout (gaps %s s) and never "
				  "ACKed, while the handshake's small packets passed; no ICMP too-big message in the "
				  "capture and no smaller retry (net.ipv4.tcp_mtu_probing off?). The transfer stalled "
				  "%.2f s until the flow ended.",
				  "%2$s 的 %1$u 字节数据段因超时被重传了 %3$u 次（间隔 %4$s 秒）且始终未被确认，而握手的小"
				  "报文都通过了；抓包中没有 ICMP 报文过大消息，也没有改小尺寸的重试（net.ipv4.tcp_mtu_probing "
				  "未开启？）。传输停滞了 %5$.2f 秒，直到连接结束。",
				  d->x->bh_len, who, d->x->bh_retx, gaps, (double)stall / 1e9);
		if (backoff)
			pd_finding_append(f, " The gaps doubled: the retransmission timer backing off.",
					  "重传间隔逐次翻倍：这是重传定时器在退避。");
		if (d->x->bh_peer_spoke)
			pd_finding_append(f, " The peer kept sending meanwhile.", "在此期间对端仍在发送。");
		if (d->max_ok)
			pd_finding_append(f, " Largest segment ever ACKed: %u B.", "被确认过的最大数据段：%u 字节。", d->max_ok);
		else
			pd_finding_append(f, " No data segment was ever ACKed; packets up to %u B passed.",
					  "没有任何数据段被确认过；不超过 %u 字节的报文能够通过。", d->x->bh_total - 1);
		pd_finding_add_impact(f, (double)stall / 1e9);
		pd_finding_set_confidence(f, d->x->bh_peer_spoke ? 0.75 : 0.55);
		pd_finding_settings(f, "net.ipv4.tcp_mtu_probing", "firewall dropping ICMP frag-needed", "MSS clamping",
				    "interface MTU", "net.ipv4.tcp_base_mss", NULL);
	}
	if (!v6 && d->big_pkts)
		pd_finding_metric(f, "df_share", (double)d->big_df / (double)d->big_pkts, PD_UNIT_RATIO, PD_AGG_MAX);
}

/* The receiver-side view (pm_rx_dir) of sender s: a black hole only if the
 * big packets vanished, i.e. what filled the gap came smaller than a full
 * segment, or never came. */
static void pm_report_rx_bh(pd_ctx *ctx, const pd_flow *flow, const pm_rx_dir *d, int s)
{
	int r = pd_peer(s);
	uint32_t full = pm_full_payload(flow, s);
	/* resends at full size: the big packets pass (reordering after idle,
	 * or plain loss), whatever the silence before */
	if (d->fill_n && d->fill_max + 40 >= full)
		return;
	const pd_tcp_half *hr = &flow->half[r];
	bool delivered = hr->ack_valid && pd_seq_le(d->jump_hi, hr->last_ack);
	char sname[64], rname[64];
	pd_flow_endpoint(flow, s, sname, sizeof(sname));
	pd_flow_endpoint(flow, r, rname, sizeof(rname));
	pd_finding *f = pd_finding_get(ctx, "pmtu-blackhole", flow);
	pd_finding_occurrence(f, d->jump_frame, d->jump_ts, "sequence jump: data sent but never arrived",
			      "序列号跳跃：数据已发出却从未到达");
	pd_finding_metric(f, "silence", (double)d->jump_quiet / 1e9, PD_UNIT_S, PD_AGG_SUM);
	pd_finding_metric(f, "missing_bytes", d->jump_hi - d->jump_lo, PD_UNIT_BYTES, PD_AGG_SUM);
	pd_finding_metric(f, "max_payload_before", d->jump_max_before, PD_UNIT_BYTES, PD_AGG_MAX);
	pd_finding_metric(f, "announced_mss", hr->mss, PD_UNIT_BYTES, PD_AGG_MAX);
	pd_finding_detail(f,
			  "Seen from the receiver %s: nothing came from %s for %.2f s although everything it had sent "
			  "was ACKed, then its sequence jumped by %u bytes (frame %" G_GUINT64_FORMAT "): data sent that "
			  "never reached this capture point, while its small packets did. No segment larger than %u B had "
			  "arrived before, although both announced MSSs allow %u B.",
			  "从接收端 %1$s 看：%2$s 在 %3$.2f 秒内没有发来任何报文，尽管它发出的数据都已被确认；随后它的"
			  "序列号跳跃了 %4$u 字节（第 %5$" G_GUINT64_FORMAT " 帧）：这些数据已经发出却从未到达这个抓包点，"
			  "而它的小报文都到了。此前到达的数据段没有一个超过 %6$u 字节，尽管双方通告的 MSS 允许 %7$u 字节。",
			  rname, sname, (double)d->jump_quiet / 1e9, d->jump_hi - d->jump_lo, d->jump_frame,
			  d->jump_max_before, full);
	if (delivered && d->fill_n) {
		pd_time stall = d->jump_quiet;
		uint32_t resumed = d->quiet_len ? d->quiet_len : d->first_fill;
		pd_finding_occurrence(f, d->quiet_frame, d->quiet_end_ts, "first data after the silence, smaller",
				      "静默之后的第一个数据段，尺寸更小");
		pd_finding_metric(f, "stall", (double)stall / 1e9, PD_UNIT_S, PD_AGG_SUM);
		pd_finding_metric(f, "recovered_size", resumed, PD_UNIT_BYTES, PD_AGG_MAX);
		pd_finding_metric(f, "max_payload_through", d->max_len, PD_UNIT_BYTES, PD_AGG_MAX);
		pd_finding_append(f,
				  " The data resumed with a %u-byte segment, the missing range came in %u segments of at "
				  "most %u B, smaller than the lost ones, and the largest segment ever received was %u B "
				  "(packets of %u B): the sender's full-size packets are dropped upstream without a usable "
				  "ICMP, and it recovered by shrinking its segments (net.ipv4.tcp_mtu_probing). Path MTU at "
				  "least %u B. The sender's own capture would show the full-size retransmissions.",
				  "数据以一个 %u 字节的数据段恢复，缺失的范围由 %u 个不超过 %u 字节、比丢失的报文更小的数据段"
				  "补齐，收到过的最大数据段为 %u 字节（报文 %u 字节）：发送端的满长报文在上游被丢弃且没有可用的 "
				  "ICMP，它靠缩小数据段才恢复（net.ipv4.tcp_mtu_probing）。路径 MTU 至少为 %u 字节。发送端自己的"
				  "抓包里会看到满长的重传。",
				  d->quiet_len, d->fill_n, d->fill_max, d->max_len, d->max_total, d->max_total);
		if (d->quiet_len == 1024)
			pd_finding_append(f, " 1024 B is the first size MTU probing tries (net.ipv4.tcp_base_mss).",
					  "1024 字节正是 MTU 探测尝试的第一个尺寸（net.ipv4.tcp_base_mss）。");
		pd_finding_add_impact(f, (double)stall / 1e9);
		pd_finding_set_confidence(f, 0.65);
		pd_finding_settings(f, "firewall dropping ICMP frag-needed", "MSS clamping", "interface MTU",
				    "net.ipv4.tcp_mtu_probing", "net.ipv4.tcp_base_mss", NULL);
	} else {
		pd_time stall = flow->last_ts - (d->quiet_end_ts - d->jump_quiet);
		pd_finding_metric(f, "stall", (double)stall / 1e9, PD_UNIT_S, PD_AGG_SUM);
		pd_finding_append(f,
				  " The missing data never arrived and the flow ended %.2f s after the last data before "
				  "the silence: consistent with a PMTU black hole (the sender's full-size packets dropped "
				  "upstream, the ICMP frag-needed filtered, net.ipv4.tcp_mtu_probing off on the sender). "
				  "The sender's own capture would show the full-size retransmissions.",
				  "缺失的数据始终没有到达，连接在静默前最后一个数据段之后 %.2f 秒结束：符合 PMTU 黑洞的特征"
				  "（发送端的满长报文在上游被丢弃，ICMP 需要分片消息被过滤，发送端的 net.ipv4.tcp_mtu_probing "
				  "未开启）。发送端自己的抓包里会看到满长的重传。",
				  (double)stall / 1e9);
		pd_finding_add_impact(f, (double)stall / 1e9);
		pd_finding_set_confidence(f, 0.55);
		pd_finding_settings(f, "net.ipv4.tcp_mtu_probing", "firewall dropping ICMP frag-needed", "MSS clamping",
				    "interface MTU", "net.ipv4.tcp_base_mss", NULL);
	}
}

static void pm_on_flow_end(pd_ctx *ctx, void *gv, const pd_flow *flow, void *fs)
{
	pm_global *g = gv;
	pm_flow *o = fs;
	const pm_unmatched *u = &o->unmatched;
	pm_unmatched_add(&g->unmatched, u->frame, u->ts, u->n, u->mtu);
	bool v6 = flow->addr[0].family == 6;
	pm_state *p = pm_p(ctx, o);
	for (int dir = 0; p && dir < 2; dir++) {
		pm_dir *d = &p->d[dir];
		/* An episode still open: never got through. Unless the capture
		 * was taken at the receiver and the receiver said nothing at
		 * all after it: the full-size copies reached it, and it went
		 * silent (suricata-verify's ssh-hassh-incomplete: a 1440-byte
		 * segment and a 528-byte one after it both unanswered). */
		bool arrived_silent = !d->x || (!d->x->peer_spoke && pd_flow_vantage(flow) == pd_peer(dir));
		if (d->x && d->x->stuck && !d->x->bh && d->x->stuck_retx >= PM_BH_MIN_RETX + 1 && d->x->stuck_df &&
		    flow->proto == 6 && (flow->hs_ack_frame || d->max_ok) && !arrived_silent) {
			pm_bh_from_episode(d->x, false, d->x->peer_spoke);
		}
		if (d->x && d->x->icmp_n) {
			pm_report_icmp(ctx, flow, d, dir);
			if (flow->proto == 6 && d->x->icmp_mtu)
				pm_report_mss(ctx, flow, d, dir, d->x->icmp_mtu, v6 ? PM_HOW_ICMP6 : PM_HOW_ICMP,
					      d->x->too_big_after >= 2);
		} else if (d->x && d->x->bh) {
			pm_report_bh(ctx, flow, d, dir);
			bool late = d->x->bh_recovered && d->x->after_recover_max_ok;
			uint32_t through = late ? d->x->after_recover_max_ok : d->max_ok;
			uint32_t total = late ? d->x->after_recover_total : d->max_ok_total;
			if (through && through < d->x->bh_len && total)
				pm_report_mss(ctx, flow, d, dir, total, PM_HOW_THROUGH, true);
		} else if (flow->proto == 6 && d->n_at_max >= PM_INFER_MIN_SEGS) {
			/* No ICMP and no black hole here, yet a bulk sender never
			 * filled the MSS both ends announced: the path MTU was
			 * learnt before this capture point (PMTU discovery seen
			 * only upstream, e.g. on a receiver-side capture, or a
			 * cached route MTU). */
			uint32_t hdr = v6 ? 60 : 40;
			uint32_t own = flow->half[dir].mss;
			if (own && d->max_total + 40 <= own + hdr)
				pm_report_mss(ctx, flow, d, dir, d->max_total, PM_HOW_INFERRED, false);
		}
	}
	const pm_rx *rx = pm_rx_of(ctx, o);
	for (int dir = 0; rx && flow->proto == 6 && dir < 2; dir++) {
		const pm_rx_dir *rd = &rx->d[dir];
		bool seen_here = p && (p->d[dir].x && (p->d[dir].x->bh || p->d[dir].x->icmp_n));
		if (rd->jump && !seen_here)
			pm_report_rx_bh(ctx, flow, rd, dir);
	}
	for (int dir = 0; p && dir < 2; dir++) {
		g_free(p->d[dir].x);
		p->d[dir].x = NULL;
	}
	g_free(o->p); /* NULL when the state was in the payload block */
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
	pd_finding_occurrence(f, u.frame, u.ts, "ICMP too big, flow not captured", "ICMP 报文过大，但其所属的连接不在抓包中");
	pd_finding_metric(f, "icmp_messages", u.n, PD_UNIT_COUNT, PD_AGG_SUM);
	if (u.mtu)
		pd_finding_metric(f, "path_mtu", u.mtu, PD_UNIT_BYTES, PD_AGG_MAX);
	pd_finding_detail(f,
			  "%u ICMP fragmentation-needed / Packet Too Big messages (smallest MTU %u) quote packets of "
			  "flows not in this capture (or not big enough to follow): whether the senders adapted "
			  "cannot be seen.",
			  "%u 条 ICMP 需要分片 / 报文过大消息（最小 MTU %u）引用的报文属于抓包中没有的连接（或太小而未被"
			  "跟踪的连接）：无法看出发送端是否做了调整。",
			  u.n, u.mtu);
	pm_append_hint(f, u.mtu);
	pd_finding_set_confidence(f, 0.6);
}

static const char *const pm_emits[] = {"pmtu-frag-needed", "pmtu-not-adapted", "pmtu-blackhole", "mss-exceeds-path",
				       NULL};

const pd_detector pd_det_pmtu = {
	.name = "pmtu",
	.emits = pm_emits,
	.flow_state_size = sizeof(pm_flow),
	.payload_state_size = sizeof(pm_payload),
	.global_state_size = sizeof(pm_global),
	.on_tcp = pm_on_tcp,
	.on_udp = pm_on_udp,
	.on_icmp_error = pm_on_icmp_error,
	.on_flow_end = pm_on_flow_end,
	.on_end = pm_on_end,
};
