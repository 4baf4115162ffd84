/* Loss: retransmission rate per data direction, fast/SACK retransmissions
 * vs retransmission timeouts (with the measured RTO durations and their
 * backoff) vs tail-loss probes, spurious retransmissions (data already
 * acknowledged, or reported back by D-SACK), and retransmissions whose
 * original never appeared in the capture.
 *
 * A segment below the highest sequence already sent is classified here
 * rather than by the engine's flags: on a sender-side capture the engine
 * (like Wireshark) calls many SACK-recovery retransmissions "out of order"
 * because the sender was busy just before. A segment that fills a hole
 * (a gap in the sequence the capture saw) is a late original when it comes
 * well within one RTT, and a retransmission of data lost before the
 * capture point otherwise; on a capture taken at the sender that means the
 * first copy was dropped inside the sending host (local-drop). */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "heuristics/detector.h"
#include "heuristics/util.h"

#define LS_HOLES 32 /* sequence gaps remembered per direction; oldest replaced */
#define LS_RTO_MIN_NS (180 * 1000 * 1000LL) /* Linux RTO floor is 200 ms; margin */
#define LS_EV 6

typedef struct ls_hole {
	uint32_t start, end;
	pd_time ts;
} ls_hole;

typedef struct ls_ev {
	uint64_t frame;
	pd_time ts;
	uint32_t quiet_us;
} ls_ev;

/* Allocated on the first gap or retransmission of a direction, so that
 * the common loss-free flow costs only the counters below. */
typedef struct ls_more {
	ls_hole holes[LS_HOLES];
	uint32_t n_holes;
	ls_ev ev_retx[LS_EV], ev_rto[LS_EV], ev_unseen[LS_EV], ev_spur[LS_EV], ev_tail[LS_EV];
} ls_more;

#define LS_RECENT 8
typedef struct ls_sig {
	uint32_t hash; /* of seq, length, IPv4 ID, ack */
	uint32_t ts_us; /* low bits of the capture time, for IPv6 copies */
} ls_sig;

typedef struct ls_dir {
	ls_sig recent[LS_RECENT]; /* to recognise the same datagram captured twice */
	uint32_t recent_next, dups;
	uint32_t max_len, max_total; /* largest payload S sent, largest IP packet */
	/* Receiver-side view of a PMTU black hole: after >= 1 s of silence
	 * from S (everything it sent ACKed), its sequence jumps past more than
	 * a full segment the capture never saw, although no full-size segment
	 * had ever arrived: S's big packets vanish upstream of the capture. */
	bool jump, quiet_open;
	uint32_t quiet_len;
	uint64_t quiet_frame;
	pd_time quiet_end_ts;
	uint32_t jump_lo, jump_hi, jump_max_before, fill_max, fill_n, first_fill;
	uint64_t jump_frame, fill_frame, last_quiet_frame;
	pd_time jump_ts, jump_quiet, fill_ts;
	bool hi_valid;
	uint32_t hi; /* highest seq_end sent by S as captured */
	ls_more *x;

	uint32_t data_segs, retrans, fast, rto, rto_follow, tlp, other, pmtu, spurious, dsack, reorder, unseen;
	uint32_t rcv_drop; /* receiver-side capture: first copy arrived, never ACKed */
	bool rec_after_rto; /* the current recovery began with a timeout */
	pd_time rto_rec_end_ts; /* when the last recovery that began with a timeout ended */
	uint32_t spur_sweep; /* spurious resends of a post-timeout sweep with SACK off (go-back-N) */
	uint32_t tail; /* timer-driven with no duplicate ACK or SACK before it */
	pd_time last_tx_ts, last_adv_ts; /* S's last segment; R's last advancing ACK */
	bool in_recovery;
	uint32_t recovery_point;

	/* RTO durations */
	pd_time rto_sum, rto_max, rto_min;
	pd_time rto_stall; /* time without progress the timeouts ended: from the last advancing ACK */
	uint32_t rto_backoffs; /* consecutive timeouts of the same segment */
	double backoff_ratio_sum;
	uint32_t last_rto_seq;
	pd_time last_rto_dur;
	bool last_was_rto;
	pd_time tail_sum;
	/* the latest timer-driven retransmission, undone if D-SACK shows it arrived twice */
	bool tail_open;
	uint32_t tail_seq, tail_end;
	pd_time tail_quiet;

	uint32_t n_ev_retx, n_ev_rto, n_ev_unseen, n_ev_spur, n_ev_tail;
	uint64_t lost_frame; /* first gap seen */
	/* receiver-side view of a timeout: in-order data after a silence of
	 * at least an RTO, then at once a jump past a hole: the first segment
	 * was the timer's retransmission of the oldest lost segment */
	bool resume_open;
	uint32_t resume_seq, resume_end;
	pd_time resume_ts, resume_quiet;
	uint64_t resume_frame;
} ls_dir;

/* An ICMP frag-needed / packet-too-big for a side's packets: a resend at a
 * smaller size right after one is PMTU discovery at work (reported by the
 * PMTU detector), not loss. */
#define LS_PMTU_WINDOW_NS (2 * PD_NS_PER_SEC)

typedef struct ls_flow {
	ls_dir d[2];
	bool r_sack[2]; /* latest ACK from this side carried SACK above its ACK */
	pd_time too_big_ts[2]; /* the latest ICMP too-big quoting this side's packet; 0 none */
} ls_flow;

static ls_more *ls_x(ls_dir *d)
{
	if (!d->x)
		d->x = g_new0(ls_more, 1);
	return d->x;
}

static void ls_ev_add(ls_ev *arr, uint32_t *n, const pd_packet *pkt, pd_time quiet)
{
	if (*n < LS_EV) {
		arr[*n].frame = pkt->frame_no;
		arr[*n].ts = pkt->ts;
		arr[*n].quiet_us = quiet > 0 ? (uint32_t)(quiet / 1000) : 0;
	}
	(*n)++;
}

/* A timer-driven retransmission of [s,e) after quiet: a tail loss, kept
 * open until D-SACK shows it arrived twice. */
static void ls_tail_open(ls_dir *d, uint32_t s, uint32_t e, pd_time quiet, const pd_packet *pkt)
{
	d->tail++;
	d->tail_sum += quiet;
	d->tail_open = true;
	d->tail_seq = s;
	d->tail_end = e;
	d->tail_quiet = quiet;
	ls_ev_add(ls_x(d)->ev_tail, &d->n_ev_tail, pkt, quiet);
}

/* Removes [s,e) from the holes; returns the hole's creation time, or -1 if
 * the range was not inside a remembered hole. */
static pd_time ls_fill_hole(ls_more *d, uint32_t s, uint32_t e)
{
	for (uint32_t i = 0; i < d->n_holes; i++) {
		ls_hole *h = &d->holes[i];
		if (pd_seq_le(e, h->start) || pd_seq_le(h->end, s))
			continue;
		pd_time ts = h->ts;
		if (pd_seq_le(s, h->start) && pd_seq_le(h->end, e)) {
			d->holes[i] = d->holes[--d->n_holes];
		} else if (pd_seq_le(s, h->start)) {
			h->start = e;
		} else if (pd_seq_le(h->end, e)) {
			h->end = s;
		} else if (d->n_holes < LS_HOLES) {
			/* split */
			d->holes[d->n_holes++] = (ls_hole){e, h->end, h->ts};
			h->end = s;
		} else {
			h->end = s; /* table full: forget the upper part */
		}
		return ts;
	}
	return -1;
}

static void ls_on_icmp_error(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, int dir)
{
	(void)ctx;
	(void)flow;
	ls_flow *st = fs;
	if (pkt->icmp.is_frag_needed)
		st->too_big_ts[dir] = pkt->ts;
}

static bool ls_recent_pmtu(const ls_flow *st, int s, pd_time now)
{
	pd_time t = st->too_big_ts[s];
	return t && now >= t && now - t <= LS_PMTU_WINDOW_NS;
}

/* Every packet from S (see ls_dir.jump): a silence of >= 1 s with
 * everything ACKed, then within 1 s a sequence jump past more than a full
 * segment never captured. */
static void ls_rx_jump(const pd_flow *flow, ls_dir *d, int dir, const pd_packet *pkt)
{
	const pd_tcp_half *hr = &flow->half[pd_peer(dir)];
	uint32_t mss = hr->mss; /* what the receiver allows S */
	if (d->jump || !mss || !d->hi_valid)
		return;
	if (d->last_tx_ts && pkt->ts - d->last_tx_ts >= PD_NS_PER_SEC && hr->ack_valid && hr->last_ack == d->hi &&
	    d->max_len + 40 < mss) {
		d->quiet_open = true;
		d->jump_quiet = pkt->ts - d->last_tx_ts;
		d->quiet_end_ts = pkt->ts;
		d->quiet_frame = pkt->frame_no;
		d->quiet_len = pkt->tcp.payload_len;
		d->jump_max_before = d->max_len;
	}
	if (!d->quiet_open || !pd_seq_lt(d->hi, pkt->tcp.seq))
		return;
	if (pkt->ts - d->quiet_end_ts > PD_NS_PER_SEC || pkt->tcp.seq - d->hi <= mss) {
		d->quiet_open = false;
		return;
	}
	d->jump = true;
	d->jump_lo = d->hi;
	d->jump_hi = pkt->tcp.seq;
	d->jump_frame = pkt->frame_no;
	d->jump_ts = pkt->ts;
}

static void ls_on_tcp(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, const pd_seg *seg)
{
	(void)ctx;
	ls_flow *st = fs;
	const pd_tcp *t = &pkt->tcp;
	int dir = seg->dir;
	if (t->flags & PD_TCP_RST)
		return;

	/* ---- as receiver R = dir: ACK progress, SACK, D-SACK */
	ls_dir *dr = &st->d[pd_peer(dir)];
	if (t->flags & PD_TCP_ACK) {
		if (seg->acked > 0) {
			dr->last_adv_ts = pkt->ts;
			if (dr->in_recovery && pd_seq_le(dr->recovery_point, t->ack)) {
				dr->in_recovery = false;
				dr->rto_rec_end_ts = dr->rec_after_rto ? pkt->ts : 0;
			}
			dr->last_was_rto = false;
		}
		bool sack_above = false, dsack = false;
		uint32_t dl = 0, dh = 0;
		for (uint8_t i = 0; i < t->sack_count && i < PD_MAX_SACK_BLOCKS; i++) {
			if (pd_seq_lt(t->ack, t->sack_right[i]) && pd_seq_lt(t->ack, t->sack_left[i]))
				sack_above = true;
			if (i == 0 && pd_seq_le(t->sack_right[0], t->ack))
				dsack = true;
			if (i == 0 && t->sack_count > 1 && pd_seq_le(t->sack_left[1], t->sack_left[0]) &&
			    pd_seq_le(t->sack_right[0], t->sack_right[1]))
				dsack = true;
			if (i == 0 && dsack) {
				dl = t->sack_left[0];
				dh = t->sack_right[0];
			}
		}
		st->r_sack[dir] = sack_above;
		if (dsack && dr->tail_open && pd_seq_le(dl, dr->tail_seq) && pd_seq_le(dr->tail_end, dh)) {
			/* the probe's original had arrived: no tail loss after all */
			dr->tail--;
			dr->tail_sum -= dr->tail_quiet;
			dr->tail_open = false;
		}
		if (dsack) {
			dr->dsack++;
			ls_ev_add(ls_x(dr)->ev_spur, &dr->n_ev_spur, pkt, 0);
		}
	}

	/* ---- as sender S = dir */
	ls_dir *d = &st->d[dir];
	uint32_t len = t->payload_len;
	if (!(t->flags & PD_TCP_SYN) && !(seg->flags & PD_SEG_CAPTURE_COPY))
		ls_rx_jump(flow, d, dir, pkt);
	if (d->jump && len && pd_seq_lt(t->seq, d->jump_hi) && pd_seq_le(d->jump_lo, t->seq)) {
		if (!d->fill_n) {
			d->first_fill = len;
			d->fill_frame = pkt->frame_no;
			d->fill_ts = pkt->ts;
		}
		d->fill_n++;
		if (len > d->fill_max)
			d->fill_max = len;
	}
	if ((t->flags & PD_TCP_SYN) || len == 0 || (seg->flags & (PD_SEG_KEEPALIVE | PD_SEG_ZWP))) {
		d->last_tx_ts = pkt->ts;
		return;
	}
	/* The same IPv4 datagram (same ID) seen again, or an IPv6 copy within
	 * 1 ms, is a capture duplicate (mirror port, two interfaces), not a
	 * retransmission: a resend gets a new IPv4 ID from Linux. */
	uint32_t h = t->seq * 2654435761u ^ len * 40503u ^ (pkt->ip.version == 4 ? pkt->ip.ident : 0) * 97u ^
		     t->ack * 2246822519u;
	h |= 1; /* 0 marks an empty slot */
	ls_sig sig = {h, (uint32_t)(pkt->ts / 1000)};
	for (uint32_t i = 0; i < LS_RECENT; i++) {
		const ls_sig *o = &d->recent[i];
		if (o->hash == h && (pkt->ip.version == 4 || sig.ts_us - o->ts_us < 1000)) {
			d->dups++;
			return;
		}
	}
	d->recent[d->recent_next++ % LS_RECENT] = sig;
	d->data_segs++;
	if (len > d->max_len)
		d->max_len = len;
	if (pkt->ip.total_len > d->max_total)
		d->max_total = pkt->ip.total_len;
	uint32_t s = t->seq, e = t->seq + len;
	pd_time quiet_from = d->last_tx_ts > d->last_adv_ts ? d->last_tx_ts : d->last_adv_ts;
	pd_time quiet = quiet_from > 0 ? pkt->ts - quiet_from : 0;
	d->last_tx_ts = pkt->ts;

	if (!d->hi_valid) {
		d->hi_valid = true;
		d->hi = e;
		return;
	}
	pd_time rtt0 = pd_flow_rtt(flow);
	pd_time rto_floor0 = rtt0 + rtt0 / 5 > LS_RTO_MIN_NS ? rtt0 + rtt0 / 5 : LS_RTO_MIN_NS;
	if (pd_seq_lt(d->hi, s) && d->resume_open && d->hi == d->resume_end && pkt->ts - d->resume_ts <= 2 * rtt0 + 5 * 1000 * 1000) {
		/* Next to the receiver a timeout shows as a long silence, then
		 * the oldest missing segment in order and, right after it, data
		 * far above it (new data or later resends): everything in
		 * between was sent before the silence and lost on the way. */
		ls_more *x = ls_x(d);
		d->retrans++;
		d->unseen++;
		d->rto++;
		d->rto_sum += d->resume_quiet;
		d->rto_stall += d->resume_quiet;
		if (d->resume_quiet > d->rto_max)
			d->rto_max = d->resume_quiet;
		if (!d->rto_min || d->resume_quiet < d->rto_min)
			d->rto_min = d->resume_quiet;
		d->last_was_rto = true;
		d->last_rto_seq = d->resume_seq;
		d->last_rto_dur = d->resume_quiet;
		ls_ev ev = {d->resume_frame, d->resume_ts, (uint32_t)(d->resume_quiet / 1000)};
		if (d->n_ev_retx < LS_EV)
			x->ev_retx[d->n_ev_retx] = ev;
		d->n_ev_retx++;
		if (d->n_ev_rto < LS_EV)
			x->ev_rto[d->n_ev_rto] = ev;
		d->n_ev_rto++;
		if (d->n_ev_unseen < LS_EV)
			x->ev_unseen[d->n_ev_unseen] = ev;
		d->n_ev_unseen++;
		d->tail++;
		d->tail_sum += d->resume_quiet;
		if (d->n_ev_tail < LS_EV)
			x->ev_tail[d->n_ev_tail] = ev;
		d->n_ev_tail++;
		d->in_recovery = true;
		d->rec_after_rto = true;
		d->recovery_point = e;
	}
	d->resume_open = false;
	if (pd_seq_lt(d->hi, s)) { /* a gap: data the capture did not see */
		ls_more *x = ls_x(d);
		if (x->n_holes < LS_HOLES) {
			x->holes[x->n_holes++] = (ls_hole){d->hi, s, pkt->ts};
		} else {
			uint32_t old = 0;
			for (uint32_t i = 1; i < LS_HOLES; i++)
				if (x->holes[i].ts < x->holes[old].ts)
					old = i;
			x->holes[old] = (ls_hole){d->hi, s, pkt->ts};
		}
		if (!d->lost_frame)
			d->lost_frame = pkt->frame_no;
		d->hi = e;
		return;
	}
	if (!pd_seq_lt(s, d->hi)) {
		const pd_tcp_half *hr0 = &flow->half[pd_peer(dir)];
		if (quiet >= rto_floor0 && !d->in_recovery && hr0->ack_valid && hr0->last_ack == s) {
			d->resume_open = true;
			d->resume_seq = s;
			d->resume_end = e;
			d->resume_ts = pkt->ts;
			d->resume_quiet = quiet;
			d->resume_frame = pkt->frame_no;
		}
		d->hi = e; /* in order */
		return;
	}
	if (pd_seq_lt(d->hi, e))
		d->hi = e;

	/* below the highest sequence sent: a late original or a retransmission */
	pd_time rtt = pd_flow_rtt(flow);
	pd_time hole_ts = d->x ? ls_fill_hole(d->x, s, e) : -1;
	if (hole_ts >= 0) {
		pd_time thr = rtt * 4 / 5;
		if (thr < 1000 * 1000)
			thr = 1000 * 1000;
		if (pkt->ts - hole_ts < thr) {
			d->reorder++;
			return;
		}
		d->unseen++;
		ls_ev_add(ls_x(d)->ev_unseen, &d->n_ev_unseen, pkt, pkt->ts - hole_ts);
	}
	d->retrans++;
	ls_ev_add(ls_x(d)->ev_retx, &d->n_ev_retx, pkt, quiet);
	if (seg->flags & PD_SEG_SPURIOUS)
		d->spurious++;

	int r = pd_peer(dir);
	const pd_tcp_half *hr = &flow->half[r];
	bool dup_evidence = st->r_sack[r] || hr->dupack_run >= 1 || (seg->flags & PD_SEG_FAST_RETRANS);
	bool at_una = hr->ack_valid && s == hr->last_ack;
	pd_time rto_floor = rtt + rtt / 5 > LS_RTO_MIN_NS ? rtt + rtt / 5 : LS_RTO_MIN_NS;
	pd_time tlp_floor = rtt + rtt / 2 > 5 * 1000 * 1000 ? rtt + rtt / 2 : 5 * 1000 * 1000;
	if (at_una && quiet >= rto_floor) {
		d->rto++;
		d->rto_sum += quiet;
		if (quiet > d->rto_max)
			d->rto_max = quiet;
		if (!d->rto_min || quiet < d->rto_min)
			d->rto_min = quiet;
		bool repeat = d->last_was_rto && d->last_rto_seq == s && d->last_rto_dur > 0;
		/* the timer may have been re-armed by a tail-loss probe: the
		 * connection stood still since the last ACK that advanced */
		pd_time stall = quiet;
		if (!repeat && d->last_adv_ts > 0 && pkt->ts - d->last_adv_ts > stall)
			stall = pkt->ts - d->last_adv_ts;
		d->rto_stall += stall;
		if (repeat) {
			d->rto_backoffs++;
			d->backoff_ratio_sum += (double)quiet / (double)d->last_rto_dur;
		}
		d->last_was_rto = true;
		d->last_rto_seq = s;
		d->last_rto_dur = quiet;
		ls_ev_add(ls_x(d)->ev_rto, &d->n_ev_rto, pkt, quiet);
		if (!dup_evidence && !repeat) { /* one tail loss per episode, not per backoff */
			ls_tail_open(d, s, e, quiet, pkt);
		}
		d->in_recovery = true;
		d->rec_after_rto = true;
		d->recovery_point = d->hi;
	} else if (d->in_recovery && d->rec_after_rto) {
		d->rto_follow++; /* resent in slow start after the timeout */
		if ((seg->flags & PD_SEG_SPURIOUS) && !(flow->half[dir].sack_permitted && flow->half[r].sack_permitted))
			d->spur_sweep++;
	} else if (!d->in_recovery && d->rto_rec_end_ts > 0 && pkt->ts - d->rto_rec_end_ts <= 2 * rtt + 5 * 1000 * 1000 &&
		   hr->ack_valid && pd_seq_le(e, hr->last_ack)) {
		/* next to the receiver: the tail of the post-timeout sweep, sent
		 * before the ACK that ended the recovery reached the sender; data
		 * already acknowledged, not a new fast retransmit */
		d->rto_follow++;
		if ((seg->flags & PD_SEG_SPURIOUS) && !(flow->half[dir].sack_permitted && flow->half[r].sack_permitted))
			d->spur_sweep++;
	} else if (len < d->max_len && ls_recent_pmtu(st, dir, pkt->ts)) {
		/* resent smaller right after a too-big message: PMTU discovery,
		 * even when duplicate ACKs or SACK (for the small segments that
		 * got through) came first */
		d->pmtu++;
	} else if (d->in_recovery || dup_evidence) {
		d->fast++;
		if (!d->in_recovery) {
			d->in_recovery = true;
			d->rec_after_rto = false;
			d->recovery_point = d->hi;
		}
	} else if (hole_ts < 0 && !(seg->flags & PD_SEG_SPURIOUS) && hr->ack_valid && pd_seq_lt(hr->last_ack, e) &&
		   pd_flow_vantage(flow) == r) {
		/* next to the receiver, data the capture saw arrive and the
		 * receiver never acknowledged: the first copy reached the
		 * receiving host and was dropped there (full receive buffer,
		 * memory pressure), not on the path: no tail loss */
		d->rcv_drop++;
	} else if (!dup_evidence && pd_seq_le(d->hi, e) && quiet >= tlp_floor) {
		/* the last segment sent again after ~2 RTT of silence: a tail-loss probe */
		d->tlp++;
		ls_tail_open(d, s, e, quiet, pkt);
	} else {
		d->other++;
	}
}

static void ls_occ(pd_finding *f, const ls_ev *ev, uint32_t n, const char *label)
{
	for (uint32_t i = 0; i < n && i < LS_EV; i++) {
		char what[64];
		snprintf(what, sizeof(what), "%s (%.1f ms)", label, ev[i].quiet_us / 1000.0);
		pd_finding_occurrence(f, ev[i].frame, ev[i].ts, "%s", NULL, what);
	}
	if (n > LS_EV)
		pd_finding_count(f, n - LS_EV);
}

static void ls_report(pd_ctx *ctx, const pd_flow *flow, ls_dir *d, int s)
{
	int r = pd_peer(s);
	if ((!d->retrans && !d->dsack) || !d->x)
		return;
	ls_more *x = d->x;
	uint32_t spurious = d->spurious > d->dsack ? d->spurious : d->dsack;
	/* retransmissions the receiver did need: spurious ones lost nothing */
	uint32_t real = d->retrans > spurious + d->pmtu ? d->retrans - spurious - d->pmtu : 0;
	int vantage = pd_flow_vantage(flow);
	double tail_s = (double)d->tail_sum / 1e9;
	/* Print the endpoints only for a flow that gets a finding below. */
	if (!real && !d->rto && !(d->tail && tail_s > 0) && !spurious && !(d->unseen && vantage == s))
		return;
	char sname[64], rname[64];
	pd_flow_endpoint(flow, s, sname, sizeof(sname));
	pd_flow_endpoint(flow, r, rname, sizeof(rname));
	const char *sside = s == PD_CLIENT ? "client" : "server";
	const char *rside = r == PD_CLIENT ? "client" : "server";
	double rate = d->data_segs ? (double)d->retrans / d->data_segs : 0;
	double real_rate = d->data_segs ? (double)real / d->data_segs : 0;
	double rtt_ms = (double)pd_flow_rtt(flow) / 1e6;
	const char *where = vantage < 0 ? "capture point not determinable from the handshake"
			    : vantage == s ? "captured at the sender"
					   : "captured at the receiver";
	bool sack = flow->half[s].sack_permitted && flow->half[r].sack_permitted;
	double rto_s = (double)d->rto_sum / 1e9;

	if (real > 0) { /* all spurious or PMTU resends: reported elsewhere */
		pd_finding *f = pd_finding_get(ctx, "retransmissions", flow);
		ls_occ(f, x->ev_retx, d->n_ev_retx, "retransmission, quiet before");
		pd_finding_detail(f,
				  "%s %s retransmitted %u of %u data segments (%.2f%%) to %s %s: %u fast/SACK recovery, "
				  "%u on a retransmission timeout (+%u resent after it), %u tail-loss probes, %u resent "
				  "smaller after an ICMP too-big message (PMTU discovery, not loss), %u other; %u spurious; "
				  "%u whose original the capture never saw; %u segments merely arrived out of order. RTT "
				  "%.2f ms; SACK %s; %s. Congestion control reacts to each loss episode; a loss-tolerant "
				  "algorithm (bbr) is a consideration for paths with random loss, not a fix for a "
				  "congested or faulty link.%s", NULL,
				  sside, sname, d->retrans, d->data_segs, rate * 100, rside, rname, d->fast, d->rto, d->rto_follow,
				  d->tlp, d->pmtu, d->other, spurious, d->unseen, d->reorder, rtt_ms, sack ? "on" : "off", where,
				  d->rcv_drop ? " Some first copies reached the receiver's capture yet were never acknowledged: "
						"the receiving host dropped them (receive buffer full or socket memory "
						"pressure, see nstat TcpExtTCPRcvQDrop / TcpExtPruneCalled, or its own "
						"netfilter input rules), not the path."
					      : "");
		pd_finding_metric(f, "retransmitted_segments", d->retrans, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "data_segments", d->data_segs, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "retransmission_rate", rate, PD_UNIT_RATIO, PD_AGG_MAX);
		pd_finding_metric(f, "fast_retransmissions", d->fast, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "rto_retransmissions", d->rto, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "tail_loss_probes", d->tlp, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "pmtu_resends", d->pmtu, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "spurious", spurious, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "original_unseen", d->unseen, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "reordered", d->reorder, PD_UNIT_COUNT, PD_AGG_SUM);
		if (d->rcv_drop)
			pd_finding_metric(f, "receiver_host_drops", d->rcv_drop, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "rtt_ms", rtt_ms, PD_UNIT_MS, PD_AGG_MAX);
		pd_finding_add_impact(f, (double)d->rto_stall / 1e9 > rto_s ? (double)d->rto_stall / 1e9 : rto_s);
		pd_finding_set_severity(f, PD_SEV_INFO);
		if (real_rate >= 0.01 && real >= 3)
			pd_finding_set_severity(f, PD_SEV_WARNING);
		if (real_rate >= 0.1 && d->data_segs >= 20)
			pd_finding_set_severity(f, PD_SEV_ERROR);
		pd_finding_set_confidence(f, 0.8);
		if (d->rcv_drop * 2 >= real)
			pd_finding_settings(f, "net.ipv4.tcp_rmem", "SO_RCVBUF", "slow-reading application",
					    "local netfilter drops", NULL);
		else if (vantage == s && d->unseen * 2 >= real)
			/* mostly first copies that never left the sending host
			 * (local-drop): its own queues, not the path or the
			 * congestion control, are the place to look */
			pd_finding_settings(f, "qdisc limit", "net.core.default_qdisc", "net.ipv4.tcp_congestion_control",
					    "net.ipv4.tcp_sack", NULL);
		else if (!sack)
			pd_finding_settings(f, "net.ipv4.tcp_sack", "net.ipv4.tcp_congestion_control", "NIC ring buffers",
					    "net.core.netdev_max_backlog", "qdisc limit", NULL);
		else
			pd_finding_settings(f, "net.ipv4.tcp_congestion_control", "NIC ring buffers",
					    "net.core.netdev_max_backlog", "qdisc limit", "net.ipv4.tcp_sack", NULL);
	}

	if (d->rto) {
		pd_finding *f = pd_finding_get(ctx, "rto-timeouts", flow);
		ls_occ(f, x->ev_rto, d->n_ev_rto, "retransmission timeout after");
		double backoff = d->rto_backoffs ? d->backoff_ratio_sum / d->rto_backoffs : 0;
		double stall_s = (double)d->rto_stall / 1e9;
		if (stall_s < rto_s)
			stall_s = rto_s;
		char stall_note[200] = "";
		if (stall_s > rto_s + 0.001)
			snprintf(stall_note, sizeof(stall_note),
				 " The flow stood still %.3f s in all, from the last ACK that advanced to the timer's "
				 "retransmission (a tail-loss probe in between re-armed the timer).",
				 stall_s);
		char nt[24], waits[48];
		if (d->rto_min == d->rto_max)
			snprintf(waits, sizeof(waits), "%.0f ms", (double)d->rto_min / 1e6);
		else
			snprintf(waits, sizeof(waits), "%.0f-%.0f ms", (double)d->rto_min / 1e6, (double)d->rto_max / 1e6);
		pd_finding_detail(f,
				  "%s %s waited for its retransmission timer %s (%s, %.3f s in all) before "
				  "resending to %s %s%s; %u of them with no duplicate ACK or SACK before (the tail of a "
				  "burst was lost, or everything in flight, so nothing came back to trigger fast "
				  "retransmit). %s.%s", NULL,
				  sside, sname, pd_times(d->rto, false, nt), waits, rto_s, rside, rname,
				  d->rto_backoffs ? " with exponential backoff on repeats" : "", d->tail, where, stall_note);
		pd_finding_metric(f, "rto_count", d->rto, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "rto_time", rto_s, PD_UNIT_S, PD_AGG_SUM);
		pd_finding_metric(f, "stall_time", stall_s, PD_UNIT_S, PD_AGG_SUM);
		pd_finding_metric(f, "rto_min_ms", (double)d->rto_min / 1e6, PD_UNIT_MS, PD_AGG_MAX);
		pd_finding_metric(f, "rto_max_ms", (double)d->rto_max / 1e6, PD_UNIT_MS, PD_AGG_MAX);
		if (d->rto_backoffs) {
			pd_finding_metric(f, "rto_backoffs", d->rto_backoffs, PD_UNIT_COUNT, PD_AGG_SUM);
			pd_finding_metric(f, "backoff_factor", backoff, PD_UNIT_RATIO, PD_AGG_MAX);
		}
		pd_finding_add_impact(f, stall_s);
		pd_finding_set_severity(f, stall_s >= 0.4 || d->rto >= 2 ? PD_SEV_WARNING : PD_SEV_INFO);
		pd_finding_set_confidence(f, 0.8);
		if (!sack)
			pd_finding_settings(f, "net.ipv4.tcp_sack", "net.ipv4.tcp_early_retrans", "net.ipv4.tcp_recovery",
					    "net.ipv4.tcp_retries2", NULL);
		else
			pd_finding_settings(f, "net.ipv4.tcp_early_retrans", "net.ipv4.tcp_recovery", "net.ipv4.tcp_sack",
					    "net.ipv4.tcp_retries2", NULL);
	}

	if (d->tail && tail_s > 0) {
		pd_finding *f = pd_finding_get(ctx, "tail-loss", flow);
		ls_occ(f, x->ev_tail, d->n_ev_tail, "tail resent after silence");
		char nt[24];
		pd_finding_detail(f,
				  "%s %s %s resent the last segment(s) of a burst only after a silence (%u by "
				  "tail-loss probe, %u by timeout; %.3f s of silence in all): no later segment reached "
				  "%s %s to trigger duplicate ACKs. RTT %.2f ms.", NULL,
				  pd_times(d->tail, true, nt), sside, sname, d->tlp, d->tail - d->tlp, tail_s, rside, rname,
				  rtt_ms);
		pd_finding_metric(f, "tail_losses", d->tail, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "tail_silence", tail_s, PD_UNIT_S, PD_AGG_SUM);
		pd_finding_add_impact(f, tail_s);
		pd_finding_set_severity(f, PD_SEV_INFO);
		pd_finding_set_confidence(f, 0.6);
		pd_finding_settings(f, "net.ipv4.tcp_early_retrans", "net.ipv4.tcp_recovery", NULL);
	}

	if (spurious) {
		pd_finding *f = pd_finding_get(ctx, "spurious-retransmissions", flow);
		if (d->n_ev_spur)
			ls_occ(f, x->ev_spur, d->n_ev_spur, "D-SACK: data received twice");
		else
			pd_finding_occurrence(f, flow->first_frame, flow->first_ts, "flow start", NULL);
		/* SACK off: after a timeout the sender cannot know which segments
		 * above the hole arrived and resends them all (go-back-N); those
		 * copies are the price of the missing SACK, not an early timer */
		uint32_t sweep = d->spur_sweep < spurious ? d->spur_sweep : spurious;
		uint32_t early = spurious - sweep;
		if (sweep)
			pd_finding_detail(f,
					  "%u of %s %s's %u retransmissions resent data %s %s already had (%u reported back "
					  "by D-SACK); %u of them were resent after a retransmission timeout with SACK off: "
					  "without SACK the sender cannot tell which segments after the lost one arrived and "
					  "sends them all again (go-back-N), so they come from the loss, not from an early "
					  "timer.", NULL,
					  spurious, sside, sname, d->retrans, rside, rname, d->dsack, sweep);
		else
			pd_finding_detail(f,
					  "%u of %s %s's %u retransmissions resent data %s %s already had (%u reported back "
					  "by D-SACK): the timer fired too early, the ACKs were delayed, or the path reorders.", NULL,
					  spurious, sside, sname, d->retrans, rside, rname, d->dsack);
		pd_finding_metric(f, "spurious", spurious, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "dsack", d->dsack, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "go_back_n_no_sack", sweep, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_set_severity(f, early >= 5 && d->retrans && early * 3 >= d->retrans ? PD_SEV_WARNING : PD_SEV_INFO);
		pd_finding_set_confidence(f, 0.6);
		if (sweep * 2 >= spurious)
			pd_finding_settings(f, "net.ipv4.tcp_sack", "net.ipv4.tcp_recovery", NULL);
		else
			pd_finding_settings(f, "net.ipv4.tcp_recovery", "net.ipv4.tcp_early_retrans", NULL);
	}

	if (d->unseen && vantage == s) {
		pd_finding *f = pd_finding_get(ctx, "local-drop", flow);
		ls_occ(f, x->ev_unseen, d->n_ev_unseen, "original never seen; gap age");
		pd_finding_detail(f,
				  "This capture was taken at the sender %s %s (it answers the handshake within a fraction "
				  "of the %.2f ms RTT), yet %u retransmissions filled sequence gaps whose first copy never "
				  "passed the capture point (the tap sees a packet as it is handed to the driver, after the "
				  "qdisc): they were dropped inside the sending host after TCP counted them as sent - by a "
				  "qdisc that drops queued packets (an AQM such as fq_codel, a shaper), in the neighbour "
				  "queue, or, seen from the host side of a container's veth, in the per-CPU backlog - or by "
				  "the capture itself (check tcpdump's 'dropped by kernel'). A NIC ring or driver drop comes "
				  "after the tap and would show the original.", NULL,
				  sside, sname, rtt_ms, d->unseen);
		pd_finding_metric(f, "unseen_originals", d->unseen, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_set_severity(f, PD_SEV_WARNING);
		pd_finding_set_confidence(f, 0.7);
		pd_finding_settings(f, "qdisc limit", "net.core.default_qdisc", "net.core.netdev_max_backlog",
				    "capture buffer", NULL);
	}
}

static void ls_report_rx_bh(pd_ctx *ctx, const pd_flow *flow, ls_dir *d, int s)
{
	int r = pd_peer(s);
	const char *sside = s == PD_CLIENT ? "client" : "server";
	const char *rside = r == PD_CLIENT ? "client" : "server";
	uint32_t mss = flow->half[r].mss;
	const pd_tcp_half *hr = &flow->half[r];
	bool delivered = hr->ack_valid && pd_seq_le(d->jump_hi, hr->last_ack);
	pd_finding *f = pd_finding_get(ctx, "pmtu-blackhole", flow);
	pd_finding_occurrence(f, d->jump_frame, d->jump_ts, "sequence jump: data sent but never arrived", NULL);
	pd_finding_metric(f, "silence", (double)d->jump_quiet / 1e9, PD_UNIT_S, PD_AGG_SUM);
	pd_finding_metric(f, "missing_bytes", d->jump_hi - d->jump_lo, PD_UNIT_BYTES, PD_AGG_SUM);
	pd_finding_metric(f, "max_payload_before", d->jump_max_before, PD_UNIT_BYTES, PD_AGG_MAX);
	pd_finding_metric(f, "announced_mss", mss, PD_UNIT_BYTES, PD_AGG_MAX);
	char head[512];
	snprintf(head, sizeof(head),
		 "seen from the %s (receiver) side: nothing came from the %s for %.2f s although the %s had ACKed "
		 "everything, then soon after its sequence jumped by %u bytes (frame %" G_GUINT64_FORMAT "): data sent that "
		 "never reached this capture point, while the %s's small packets did; no segment larger than %u B "
		 "had arrived before although the MSS is %u",
		 rside, sside, (double)d->jump_quiet / 1e9, rside, d->jump_hi - d->jump_lo, d->jump_frame, sside,
		 d->jump_max_before, mss);
	if (delivered && d->fill_n) {
		pd_time stall = d->jump_quiet;
		pd_finding_occurrence(f, d->quiet_frame, d->quiet_end_ts, "first data after the silence, smaller", NULL);
		pd_finding_metric(f, "stall", (double)stall / 1e9, PD_UNIT_S, PD_AGG_SUM);
		pd_finding_metric(f, "recovered_size", d->quiet_len ? d->quiet_len : d->first_fill, PD_UNIT_BYTES, PD_AGG_MAX);
		pd_finding_metric(f, "max_payload_through", d->max_len, PD_UNIT_BYTES, PD_AGG_MAX);
		pd_finding_detail(f,
				  "%s. The data resumed with a %u-byte segment%s, the missing range came in %u segments of "
				  "at most %u B, and the largest segment ever received was %u B (packets of %u B): the %s's full-size "
				  "packets are dropped upstream without a usable ICMP, and the %s recovered by shrinking "
				  "its segments (net.ipv4.tcp_mtu_probing). Path MTU at least %u B. A receiver-side view: "
				  "the %s's capture would show the full-size retransmissions", NULL,
				  head, d->quiet_len, d->quiet_len == 1024 ? " (net.ipv4.tcp_base_mss: MTU probing's first size)" : "",
				  d->fill_n, d->fill_max,
				  d->max_len, d->max_total, sside, sside, d->max_total, sside);
		pd_finding_add_impact(f, (double)stall / 1e9);
		pd_finding_set_confidence(f, 0.65);
		pd_finding_settings(f, "firewall dropping ICMP frag-needed", "MSS clamping", "interface MTU",
				    "net.ipv4.tcp_mtu_probing", "net.ipv4.tcp_base_mss", NULL);
	} else {
		pd_time stall = flow->last_ts - (d->quiet_end_ts - d->jump_quiet);
		pd_finding_metric(f, "stall", (double)stall / 1e9, PD_UNIT_S, PD_AGG_SUM);
		pd_finding_detail(f,
				  "%s. The missing data never arrived and the flow ended %.2f s after the last data: "
				  "consistent with a PMTU black hole (the %s's full-size packets dropped upstream, the "
				  "ICMP frag-needed filtered, net.ipv4.tcp_mtu_probing off on the %s). A receiver-side "
				  "view: the %s's capture would show the full-size retransmissions", NULL,
				  head, (double)stall / 1e9, sside, sside, sside);
		pd_finding_add_impact(f, (double)stall / 1e9);
		pd_finding_set_confidence(f, 0.55);
		pd_finding_settings(f, "net.ipv4.tcp_mtu_probing", "firewall dropping ICMP frag-needed", "MSS clamping",
				    "interface MTU", "net.ipv4.tcp_base_mss", NULL);
	}
}

static void ls_on_flow_end(pd_ctx *ctx, void *g, const pd_flow *flow, void *fs)
{
	(void)g;
	ls_flow *st = fs;
	if (flow->proto != 6)
		return;
	for (int s = 0; s < 2; s++) {
		ls_report(ctx, flow, &st->d[s], s);
		if (st->d[s].jump)
			ls_report_rx_bh(ctx, flow, &st->d[s], s);
		g_free(st->d[s].x);
		st->d[s].x = NULL;
	}
}

static const char *const ls_emits[] = {"retransmissions", "rto-timeouts",	 "spurious-retransmissions",
				       "local-drop",	  "tail-loss",	 "pmtu-blackhole", NULL};

const pd_detector pd_det_loss = {
	.name = "loss",
	.emits = ls_emits,
	.from_payload = true,
	.flow_state_size = sizeof(ls_flow),
	.on_tcp = ls_on_tcp,
	.on_icmp_error = ls_on_icmp_error,
	.on_flow_end = ls_on_flow_end,
};
