/* Loss: retransmission rate per data direction, fast/SACK retransmissions
 * vs retransmission timeouts (with the measured RTO durations and their
 * backoff) vs tail-loss probes, spurious retransmissions (data already
 * acknowledged, reported back by D-SACK, or a timeout answered sooner than
 * the resend could have been), and retransmissions whose original never
 * appeared in the capture.
 *
 * A segment below the highest sequence already sent is classified here
 * rather than by the engine's flags: on a sender-side capture the engine
 * (like Wireshark) calls many SACK-recovery retransmissions "out of order"
 * because the sender was busy just before. A segment that fills a hole
 * (a gap in the sequence the capture saw) is a delayed original when its
 * IPv4 ID shows it was sent before the segment that opened the hole, or
 * when it comes less than half an RTT after the hole opened and fills it
 * from its start; otherwise it is a retransmission of data lost before the
 * capture point (on a capture taken at the sender: dropped inside the
 * sending host, local-drop). A copy of bytes already seen whose IPv4 ID is
 * lower than the resend's that came just before it is that resend's first
 * copy, overtaken on the path: reordering, and the resend's original did
 * appear after all.
 *
 * Timer-driven resends are told apart by what the capture shows first:
 * the same segment resent again without progress is the retransmission
 * timer (a tail-loss probe is sent once), its gaps doubling is backoff,
 * and a probe only ever resends the last segment sent; with SACK off there
 * is no probe and a fast retransmit needs 3 duplicate ACKs, so a resend of
 * the oldest byte after fewer is the timer. Only a single
 * silent resend of the last segment leans on Linux's default 200 ms RTO
 * floor, and the details say so. */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "heuristics/detector.h"
#include "heuristics/memacct.h"
#include "heuristics/util.h"

#define LS_HOLES 32 /* sequence gaps remembered per direction; oldest replaced */
/* Linux's default minimum RTO (200 ms) less a margin for timer slack. A host
 * may lower it (net.ipv4.tcp_rto_min_us since 6.11, a route's rto_min), so it
 * decides only where the capture shows no timer of its own. */
#define LS_RTO_MIN_NS (180 * 1000 * 1000LL)
#define LS_MS (1000 * 1000LL)
#define LS_EV 6
/* An IPv4 ID at most this far below the ID of the segment that opened a hole
 * was given to a packet sent before it: a delayed original. */
#define LS_ID_WINDOW 4096
#define LS_ID_NEAR 64 /* IDs this close tell the order even before they are known to count up */
/* A first copy overtaken by its resend comes within 2 RTT of it, or this long */
#define LS_LATE_NS (50 * 1000 * 1000LL)
#define LS_ID_MIN_STEPS 8 /* consecutive data segments before IDs are trusted to count up */
#define LS_BACKOFF_RATIO 1.5 /* a gap this many times the one before: the timer backed off */
/* Duplicate ACKs a sender without SACK waits for before it retransmits fast
 * (Reno/NewReno; Linux's net.ipv4.tcp_reordering default). */
#define LS_DUPTHRESH 3

typedef struct ls_hole {
	uint32_t start, end;
	pd_time ts;
	uint16_t open_id; /* IPv4 ID of the segment that jumped past the hole */
	bool id_valid;
} ls_hole;

/* What an occurrence shows (its label). */
enum { LS_OC_RETX, LS_OC_RTO, LS_OC_UNSEEN, LS_OC_DSACK, LS_OC_SPUR_ACK, LS_OC_TAIL };

typedef struct ls_ev {
	uint64_t frame;
	pd_time ts;
	uint32_t quiet_us;
	uint8_t kind;
} ls_ev;

/* A segment counted as a retransmission, with its IPv4 ID: a later copy of
 * the same bytes with a lower ID was sent before it (its first copy,
 * overtaken on the path), which makes this one the resend. */
#define LS_COPIES 16
typedef struct ls_copy {
	uint32_t start, end;
	uint64_t frame;
	pd_time ts;
	uint16_t id;
	uint16_t open_id; /* the ID of the segment that opened the hole it filled; 0 none */
	bool unseen; /* counted as a resend whose original the capture never saw */
} ls_copy;

/* Allocated on the first gap or retransmission of a direction, so that
 * the common loss-free flow costs only the counters below. */
typedef struct ls_more {
	ls_hole holes[LS_HOLES];
	uint32_t n_holes;
	ls_copy copies[LS_COPIES];
	uint32_t n_copies; /* written so far; the ring keeps the latest */
	ls_ev ev_retx[LS_EV], ev_rto[LS_EV], ev_unseen[LS_EV], ev_spur[LS_EV], ev_tail[LS_EV];
} ls_more;

#define LS_RECENT 8
typedef struct ls_sig {
	uint32_t hash; /* of seq, length, IPv4 ID, ack */
	uint32_t ts_us; /* low bits of the capture time, for IPv6 copies */
} ls_sig;

/* How a timer-driven resend was counted. */
enum { LS_T_NONE = 0, LS_T_RTO, LS_T_TLP };

typedef struct ls_dir {
	ls_sig recent[LS_RECENT]; /* to recognise the same datagram captured twice */
	uint32_t recent_next, dups;
	uint32_t max_len, max_total; /* largest payload S sent, largest IP packet */
	bool hi_valid;
	uint32_t hi; /* highest seq_end sent by S as captured */
	/* the latest segment that moved hi, with its IPv4 ID (0: none) */
	uint32_t hi_seg_start;
	uint16_t hi_seg_id;
	uint64_t hi_seg_frame;
	pd_time hi_seg_ts;
	ls_more *x;
	/* S's IPv4 IDs: they order copies only when they count up */
	bool id_seen;
	uint16_t last_id;
	uint32_t id_steps, id_up_steps;

	uint32_t data_segs, retrans, fast, rto, rto_follow, tlp, other, pmtu, spurious, dsack, reorder, unseen;
	uint32_t rcv_drop; /* receiver-side capture: first copy arrived, never ACKed */
	uint64_t resent_first, resent_last; /* frames of the first and last resend: the findings' span */
	bool rec_after_rto; /* the current recovery began with a timeout */
	pd_time rto_rec_end_ts; /* when the last recovery that began with a timeout ended */
	uint32_t spur_sweep; /* spurious resends of a post-timeout sweep with SACK off (go-back-N) */
	uint32_t tail; /* timer-driven with no duplicate ACK or SACK before it */
	pd_time last_tx_ts, last_adv_ts; /* S's last segment; R's last advancing ACK */
	uint32_t dup_since_adv; /* R's duplicate ACKs and SACK-bearing ACKs since its last advancing one */
	bool in_recovery;
	uint32_t recovery_point;
	/* the first new data S sent after R's last advancing ACK: a stall on
	 * that segment began when it was sent, not at the ACK before it */
	bool adv_first_valid;
	uint32_t adv_first_seq;
	pd_time adv_first_ts;

	/* RTO durations */
	pd_time rto_sum, rto_max, rto_min;
	pd_time rto_stall; /* time without progress the timeouts ended */
	uint32_t rto_backoffs; /* repeats that waited at least LS_BACKOFF_RATIO times the previous */
	uint32_t rto_repeats; /* timeouts that repeated the previous timeout's segment */
	double backoff_ratio_sum;
	pd_time tail_sum;
	/* the latest timer-driven retransmission, undone if D-SACK shows it arrived twice */
	bool tail_open;
	uint32_t tail_seq, tail_end;
	pd_time tail_quiet;

	/* The current series of timer resends of one segment: a tail-loss
	 * probe and/or timeouts, until an ACK passes it or new data is sent. */
	bool ser_open;
	uint32_t ser_seq, ser_end, ser_n, ser_rto;
	pd_time ser_start; /* when the stall began */
	pd_time ser_mark; /* the stall is summed from here to the next timeout */
	pd_time ser_first_ts, ser_last_gap;
	uint8_t ser_prev; /* how the previous resend of the series was counted */
	/* its first resend when only the next one can tell what it was: a
	 * silent resend of the last segment (probe or timeout) */
	bool first_pending, first_floor, first_last, first_dup;
	uint8_t first_kind;
	pd_time first_quiet;
	uint64_t first_frame;
	uint32_t floor_rto, floor_tlp; /* told apart only by the default RTO floor */

	/* the latest timeout: spurious if its ACK comes sooner than the resend
	 * could have been answered, or D-SACK reports it */
	bool sp_valid, sp_marked, sp_acked;
	uint32_t sp_seq, sp_end;
	pd_time sp_ts, sp_stall;
	uint32_t rto_spur, rto_spur_early;
	pd_time spur_stall, spur_delay, spur_leg;

	uint32_t n_ev_retx, n_ev_rto, n_ev_unseen, n_ev_spur, n_ev_tail;
	uint64_t lost_frame; /* first gap seen */
	/* receiver-side view of a timeout: in-order data after a silence of
	 * at least an RTO, then, about a round trip later, a jump past a hole
	 * that resends fill: the first segment was the timer's retransmission
	 * of the oldest lost segment (F-RTO sends new data after it) */
	bool resume_open, resume_pending;
	uint32_t resume_seq, resume_end, resume_lo, resume_hi;
	pd_time resume_ts, resume_quiet;
	uint64_t resume_frame;
	uint32_t resume_jump_end;
} ls_dir;

/* An ICMP frag-needed / packet-too-big for a side's packets: a resend at a
 * smaller size right after one is PMTU discovery at work (reported by the
 * PMTU detector), not loss. */
#define LS_PMTU_WINDOW_NS (2 * PD_NS_PER_SEC)

typedef struct ls_flow {
	ls_dir d[2];
	bool r_sack[2]; /* latest ACK from this side carried SACK above its ACK */
	pd_time too_big_ts[2]; /* the latest ICMP too-big quoting this side's packet; 0 none */
	uint32_t too_big_mtu[2]; /* the MTU it named; 0 none */
} ls_flow;

static ls_more *ls_x(ls_dir *d)
{
	if (!d->x)
		d->x = pd_mem_new0(PD_MEM_DETECTORS, sizeof(ls_more));
	return d->x;
}

static void ls_resent_at(ls_dir *d, uint64_t frame)
{
	if (!d->resent_first || frame < d->resent_first)
		d->resent_first = frame;
	if (frame > d->resent_last)
		d->resent_last = frame;
}

static void ls_ev_put(ls_ev *arr, uint32_t *n, uint64_t frame, pd_time ts, pd_time quiet, uint8_t kind)
{
	if (*n < LS_EV) {
		arr[*n].frame = frame;
		arr[*n].ts = ts;
		arr[*n].quiet_us = quiet > 0 ? (uint32_t)(quiet / 1000) : 0;
		arr[*n].kind = kind;
	}
	(*n)++;
}

static pd_time ls_max(pd_time a, pd_time b)
{
	return a > b ? a : b;
}

/* A timer-driven retransmission of [s,e) after quiet: a tail loss, kept
 * open until D-SACK shows it arrived twice. */
static void ls_tail_open(ls_dir *d, uint32_t s, uint32_t e, pd_time quiet, uint64_t frame, pd_time ts)
{
	d->tail++;
	d->tail_sum += quiet;
	d->tail_open = true;
	d->tail_seq = s;
	d->tail_end = e;
	d->tail_quiet = quiet;
	ls_ev_put(ls_x(d)->ev_tail, &d->n_ev_tail, frame, ts, quiet, LS_OC_TAIL);
}

static void ls_tail_undo(ls_dir *d, uint32_t s, uint32_t e)
{
	if (d->tail_open && pd_seq_le(s, d->tail_seq) && pd_seq_le(d->tail_end, e)) {
		d->tail--;
		d->tail_sum -= d->tail_quiet;
		d->tail_open = false;
	}
}

/* One retransmission timeout of the current series, resent at ts after
 * quiet: its wait, and the stall it ended (from the series' mark). */
static void ls_rto_add(ls_dir *d, pd_time quiet, uint64_t frame, pd_time ts)
{
	d->rto++;
	d->rto_sum += quiet;
	if (quiet > d->rto_max)
		d->rto_max = quiet;
	if (!d->rto_min || quiet < d->rto_min)
		d->rto_min = quiet;
	pd_time stall = ts - d->ser_mark;
	if (stall < quiet)
		stall = quiet;
	d->rto_stall += stall;
	d->ser_mark = ts;
	d->ser_rto++;
	d->ser_prev = LS_T_RTO;
	ls_ev_put(ls_x(d)->ev_rto, &d->n_ev_rto, frame, ts, quiet, LS_OC_RTO);
	d->sp_valid = true;
	d->sp_marked = d->sp_acked = false;
	d->sp_seq = d->ser_seq;
	d->sp_end = d->ser_end;
	d->sp_ts = ts;
	d->sp_stall = stall;
}

/* The series' first resend is counted as kind (a timeout or a tail-loss
 * probe); floor says whether only the default RTO floor decided it. */
static void ls_first_commit(ls_dir *d, uint8_t kind)
{
	if (!d->first_pending)
		return;
	d->first_pending = false;
	d->first_kind = kind;
	if (kind == LS_T_RTO) {
		ls_rto_add(d, d->first_quiet, d->first_frame, d->ser_first_ts);
		if (d->first_floor)
			d->floor_rto++;
	} else {
		d->tlp++;
		d->ser_prev = LS_T_TLP;
		if (d->first_floor)
			d->floor_tlp++;
	}
	if (!d->first_dup)
		ls_tail_open(d, d->ser_seq, d->ser_end, d->first_quiet, d->first_frame, d->ser_first_ts);
}

static void ls_series_close(ls_dir *d)
{
	if (d->first_pending)
		ls_first_commit(d, d->first_kind);
	d->ser_open = false;
}

/* Where a stall on segment s began: when s was first sent if that came
 * after the peer's last advancing ACK, else at that ACK; with no ACK from
 * the peer in the capture, at the last segment before the silence. */
static pd_time ls_stall_start(const ls_dir *d, uint32_t s, pd_time quiet_from)
{
	if (d->adv_first_valid && d->adv_first_seq == s)
		return d->adv_first_ts;
	if (d->last_adv_ts > 0)
		return d->last_adv_ts;
	return quiet_from;
}

/* A timer-driven resend of [s,e) that starts a series. first_floor: the
 * default RTO floor alone told a timeout from a tail-loss probe; pending
 * while the next resend can still tell (a silent resend of the last
 * segment: a probe, or a timeout). */
static void ls_series_start(ls_dir *d, uint8_t kind, bool floor, bool last, bool dup, uint32_t s, uint32_t e,
			    pd_time quiet, pd_time stall_start, const pd_packet *pkt)
{
	d->ser_open = true;
	d->ser_seq = s;
	d->ser_end = e;
	d->ser_n = 1;
	d->ser_rto = 0;
	d->ser_start = stall_start;
	d->ser_mark = stall_start;
	d->ser_first_ts = pkt->ts;
	d->ser_last_gap = quiet;
	d->ser_prev = LS_T_NONE;
	d->first_pending = true;
	d->first_kind = kind;
	d->first_floor = floor;
	d->first_last = last;
	d->first_dup = dup;
	d->first_quiet = quiet;
	d->first_frame = pkt->frame_no;
	if (kind == LS_T_RTO) {
		d->in_recovery = true;
		d->rec_after_rto = true;
		d->recovery_point = d->hi;
	}
	/* only a silent resend of the last segment can be either */
	if (!(last && !dup))
		ls_first_commit(d, kind);
}

/* The series' segment resent again with no progress: the retransmission
 * timer (a probe is sent once). The gap to the previous resend tells what
 * that one was: about twice its wait, a timeout backing off; about the
 * same, the probe that came one timeout before. */
static void ls_series_repeat(ls_dir *d, pd_time gap, pd_time rtt, const pd_packet *pkt)
{
	if (d->first_pending) {
		uint8_t kind = d->first_kind;
		/* A probe waits about 2 RTT, plus at most the 200 ms delayed-ACK
		 * allowance, and never longer than the timer: a first resend after
		 * 4 RTT + 1 s of silence was the timer, whatever the repeat's gap
		 * (a printer's capture: 5.5 s, then 5.6 s, on a 0.2 ms path). */
		bool too_late_for_probe = rtt > 0 && d->first_quiet > 4 * rtt + PD_NS_PER_SEC;
		if (too_late_for_probe ||
		    (d->first_quiet > 0 && (double)gap >= LS_BACKOFF_RATIO * (double)d->first_quiet))
			kind = LS_T_RTO;
		else
			kind = LS_T_TLP;
		d->first_floor = false; /* decided by the capture itself */
		ls_first_commit(d, kind);
	}
	if (d->ser_prev == LS_T_RTO && d->ser_last_gap > 0) {
		double ratio = (double)gap / (double)d->ser_last_gap;
		d->rto_repeats++;
		d->backoff_ratio_sum += ratio;
		if (ratio >= LS_BACKOFF_RATIO)
			d->rto_backoffs++;
	}
	ls_rto_add(d, gap, pkt->frame_no, pkt->ts);
	d->ser_n++;
	d->ser_last_gap = gap;
	d->in_recovery = true;
	d->rec_after_rto = true;
	d->recovery_point = d->hi;
}

/* A lower bound for the round trip from the capture point to s's receiver
 * and back: the handshake's leg on that side, or a smaller data/ACK sample
 * (a slow SYN-ACK or a delayed handshake ACK makes the leg too long); 0
 * when unknown. An ACK for a resend cannot come sooner. */
static pd_time ls_leg(const pd_flow *f, int s)
{
	if (!f->syn_ts || !f->synack_frame || !f->hs_ack_frame || f->half[PD_CLIENT].syn_count > 1 ||
	    f->half[PD_SERVER].syn_count > 1)
		return 0;
	pd_time leg = s == PD_SERVER ? f->hs_ack_ts - f->synack_ts : f->synack_ts - f->syn_ts;
	if (f->rtt_count > 0 && f->rtt_min > 0 && f->rtt_min < leg)
		leg = f->rtt_min;
	return leg > 0 ? leg : 0;
}

/* The latest timeout turned out spurious: its first copy had arrived. */
static void ls_mark_spurious(ls_dir *d, const pd_packet *pkt, pd_time delay, pd_time leg)
{
	d->sp_marked = true;
	d->rto_spur++;
	d->spur_stall += d->sp_stall;
	ls_tail_undo(d, d->sp_seq, d->sp_end);
	if (delay >= 0) {
		if (!d->rto_spur_early) {
			d->spur_delay = delay;
			d->spur_leg = leg;
		}
		d->rto_spur_early++;
		ls_ev_put(ls_x(d)->ev_spur, &d->n_ev_spur, pkt->frame_no, pkt->ts, delay, LS_OC_SPUR_ACK);
	}
}

/* Removes [s,e) from the holes; true with a copy of the hole it was in
 * (before the removal) when the range was inside a remembered hole. */
static bool ls_fill_hole(ls_more *d, uint32_t s, uint32_t e, ls_hole *was)
{
	for (uint32_t i = 0; i < d->n_holes; i++) {
		ls_hole *h = &d->holes[i];
		if (pd_seq_le(e, h->start) || pd_seq_le(h->end, s))
			continue;
		*was = *h;
		if (pd_seq_le(s, h->start) && pd_seq_le(h->end, e)) {
			d->holes[i] = d->holes[--d->n_holes];
		} else if (pd_seq_le(s, h->start)) {
			h->start = e;
		} else if (pd_seq_le(h->end, e)) {
			h->end = s;
		} else if (d->n_holes < LS_HOLES) {
			/* split */
			d->holes[d->n_holes++] = (ls_hole){e, h->end, h->ts, h->open_id, h->id_valid};
			h->end = s;
		} else {
			h->end = s; /* table full: forget the upper part */
		}
		return true;
	}
	return false;
}

/* S's IPv4 IDs count up from one data segment to the next (Linux, Windows):
 * then an ID tells which of two packets was sent first. */
static bool ls_ids_count_up(const ls_dir *d)
{
	return d->id_steps >= LS_ID_MIN_STEPS && (uint64_t)d->id_up_steps * 10 >= (uint64_t)d->id_steps * 9;
}

/* A segment filling hole h: its first copy, delayed on the way (path
 * reordering), rather than a resend? Sent before the segment that opened
 * the hole (a lower IPv4 ID), or, without usable IDs, filling the hole from
 * its start less than half an RTT after it opened: a resend needs the
 * receiver's word, a round trip, or a timer. */
static bool ls_delayed_original(const ls_dir *d, const ls_hole *h, const pd_packet *pkt, uint32_t s, pd_time rtt)
{
	if (h->id_valid && pkt->ip.version == 4 && pkt->ip.ident) {
		uint16_t below = (uint16_t)(h->open_id - (uint16_t)pkt->ip.ident);
		uint16_t above = (uint16_t)((uint16_t)pkt->ip.ident - h->open_id);
		if (ls_ids_count_up(d))
			return below >= 1 && below <= LS_ID_WINDOW;
		/* too few segments to know the IDs count up: only IDs this
		 * close to the opener's say which was sent first */
		if (below >= 1 && below <= LS_ID_NEAR)
			return true;
		if (above >= 1 && above <= LS_ID_NEAR)
			return false;
	}
	pd_time thr = rtt / 2 > LS_MS ? rtt / 2 : LS_MS;
	return pkt->ts - h->ts < thr && s == h->start;
}

/* id was given before ref by a sender whose IPv4 IDs count up: lower,
 * modulo 2^16, by at most LS_ID_WINDOW. Equal IDs are the same datagram
 * captured twice, not an earlier one. */
static bool ls_id_before(uint16_t id, uint16_t ref)
{
	uint16_t below = (uint16_t)(ref - id);
	return id && ref && below >= 1 && below <= LS_ID_WINDOW;
}

static void ls_copy_put(ls_more *x, uint32_t s, uint32_t e, const pd_packet *pkt, uint16_t open_id, bool unseen)
{
	uint16_t id = pkt->ip.version == 4 ? (uint16_t)pkt->ip.ident : 0;
	x->copies[x->n_copies++ % LS_COPIES] = (ls_copy){s, e, pkt->frame_no, pkt->ts, id, open_id, unseen};
}

/* The latest retransmission remembered that overlaps [s,e), or NULL. */
static ls_copy *ls_copy_find(ls_more *x, uint32_t s, uint32_t e)
{
	uint32_t n = x->n_copies < LS_COPIES ? x->n_copies : LS_COPIES;
	for (uint32_t i = 0; i < n; i++) {
		ls_copy *c = &x->copies[(x->n_copies - 1 - i) % LS_COPIES];
		if (pd_seq_lt(s, c->end) && pd_seq_lt(c->start, e))
			return c;
	}
	return NULL;
}

static void ls_ev_drop(ls_ev *arr, uint32_t *n, uint64_t frame)
{
	uint32_t k = *n < LS_EV ? *n : LS_EV;
	for (uint32_t i = 0; i < k; i++) {
		if (arr[i].frame != frame)
			continue;
		if (*n <= LS_EV) { /* the list is complete: keep it in order */
			memmove(&arr[i], &arr[i + 1], (k - i - 1) * sizeof(*arr));
			(*n)--;
		}
		return;
	}
}

static void ls_hi_seg(ls_dir *d, uint32_t s, const pd_packet *pkt)
{
	d->hi_seg_start = s;
	d->hi_seg_id = pkt->ip.version == 4 ? (uint16_t)pkt->ip.ident : 0;
	d->hi_seg_frame = pkt->frame_no;
	d->hi_seg_ts = pkt->ts;
}

/* A segment below the highest sequence, in no hole: bytes the capture saw
 * before. With IPv4 IDs that count up it is their first copy, overtaken on
 * the path, when its ID is lower than the earlier copy's (Linux and
 * Windows number a socket's packets in the order they are sent, resends
 * too): that copy was the resend. A resend counted as such whose original
 * "never appeared" has now appeared; the latest segment that moved the
 * highest sequence (a tail resent by a probe or the timer, captured before
 * its late original) becomes the retransmission. IPv6, an ID of 0 (some
 * stacks with DF), IDs that do not count up, or the same ID (the same
 * datagram captured twice) leave the segment a retransmission. */
static bool ls_late_original(ls_dir *d, const pd_packet *pkt, uint32_t s, uint32_t e, pd_time rtt)
{
	if (pkt->ip.version != 4 || !pkt->ip.ident || !ls_ids_count_up(d))
		return false;
	uint16_t id = (uint16_t)pkt->ip.ident;
	/* soon after the copy it was overtaken by: a lower ID much later may
	 * be a counter shared with other traffic that went round (a resend
	 * after a long timeout) */
	pd_time soon = ls_max(2 * rtt, LS_LATE_NS);
	ls_copy *c = d->x ? ls_copy_find(d->x, s, e) : NULL;
	if (c) {
		if (!ls_id_before(id, c->id) || pkt->ts - c->ts > soon)
			return false;
		/* a first copy was sent before the segment that jumped past it */
		if (c->open_id && !ls_id_before(id, c->open_id))
			return false;
		if (c->unseen) {
			c->unseen = false;
			if (d->unseen)
				d->unseen--;
			ls_ev_drop(d->x->ev_unseen, &d->n_ev_unseen, c->frame);
		}
		return true;
	}
	if (!pd_seq_lt(d->hi_seg_start, e) || !ls_id_before(id, d->hi_seg_id) || pkt->ts - d->hi_seg_ts > soon)
		return false;
	d->retrans++;
	d->other++;
	ls_resent_at(d, d->hi_seg_frame);
	ls_ev_put(ls_x(d)->ev_retx, &d->n_ev_retx, d->hi_seg_frame, d->hi_seg_ts, 0, LS_OC_RETX);
	ls_more *x = d->x;
	x->copies[x->n_copies++ % LS_COPIES] =
		(ls_copy){d->hi_seg_start, d->hi, d->hi_seg_frame, d->hi_seg_ts, d->hi_seg_id, 0, false};
	d->hi_seg_id = 0;
	return true;
}

static void ls_on_icmp_error(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, int dir)
{
	(void)ctx;
	(void)flow;
	ls_flow *st = fs;
	if (pkt->icmp.is_frag_needed) {
		st->too_big_ts[dir] = pkt->ts;
		st->too_big_mtu[dir] = pkt->icmp.mtu;
	}
}

/* A too-big message for side s came just before, and it asked for less than
 * the packets s had been sending (one naming an MTU they already fit in
 * shrinks nothing). */
static bool ls_recent_pmtu(const ls_flow *st, const ls_dir *d, int s, pd_time now)
{
	pd_time t = st->too_big_ts[s];
	uint32_t mtu = st->too_big_mtu[s];
	return t && now >= t && now - t <= LS_PMTU_WINDOW_NS && (!mtu || mtu < d->max_total);
}

/* The receiver-side timeout (see ls_dir.resume_*) is confirmed: resends
 * fill the hole the jump opened. */
static void ls_resume_commit(ls_dir *d)
{
	ls_more *x = ls_x(d);
	d->resume_pending = false;
	d->retrans++;
	d->unseen++;
	d->rto++;
	d->rto_sum += d->resume_quiet;
	d->rto_stall += d->resume_quiet;
	if (d->resume_quiet > d->rto_max)
		d->rto_max = d->resume_quiet;
	if (!d->rto_min || d->resume_quiet < d->rto_min)
		d->rto_min = d->resume_quiet;
	ls_ev_put(x->ev_retx, &d->n_ev_retx, d->resume_frame, d->resume_ts, d->resume_quiet, LS_OC_RETX);
	ls_ev_put(x->ev_rto, &d->n_ev_rto, d->resume_frame, d->resume_ts, d->resume_quiet, LS_OC_RTO);
	ls_ev_put(x->ev_unseen, &d->n_ev_unseen, d->resume_frame, d->resume_ts, d->resume_quiet, LS_OC_UNSEEN);
	d->tail++;
	d->tail_sum += d->resume_quiet;
	ls_ev_put(x->ev_tail, &d->n_ev_tail, d->resume_frame, d->resume_ts, d->resume_quiet, LS_OC_TAIL);
	d->in_recovery = true;
	d->rec_after_rto = true;
	d->recovery_point = d->resume_jump_end;
}

/* A packet with ACK from R = dir about S's data: progress, SACK, D-SACK,
 * and whether the latest timeout was answered too soon to be needed. */
static void ls_on_ack(const pd_flow *flow, ls_flow *st, int dir, const pd_packet *pkt, const pd_seg *seg)
{
	const pd_tcp *t = &pkt->tcp;
	ls_dir *dr = &st->d[pd_peer(dir)];
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
	bool past_series = dr->ser_open && pd_seq_lt(dr->ser_seq, t->ack);
	if (past_series || dsack)
		ls_first_commit(dr, dr->first_kind); /* no second resend came to tell */
	if (past_series)
		dr->ser_open = false;
	if (seg->acked > 0)
		dr->dup_since_adv = 0;
	/* a pure ACK repeating the ACK while data is outstanding is a
	 * duplicate for the sender even when its window changed */
	if (sack_above || (seg->flags & PD_SEG_DUP_ACK) ||
	    (!seg->acked && !t->payload_len && !(t->flags & (PD_TCP_SYN | PD_TCP_FIN)) && dr->hi_valid &&
	     pd_seq_lt(t->ack, dr->hi)))
		dr->dup_since_adv++;
	if (seg->acked > 0) {
		dr->last_adv_ts = pkt->ts;
		dr->adv_first_valid = false;
		if (dr->in_recovery && pd_seq_le(dr->recovery_point, t->ack)) {
			dr->in_recovery = false;
			dr->rto_rec_end_ts = dr->rec_after_rto ? pkt->ts : 0;
		}
		if (dr->sp_valid && !dr->sp_acked && pd_seq_lt(dr->sp_seq, t->ack)) {
			/* the first ACK past the resent segment: sooner than the
			 * resend could reach the receiver and its ACK come back,
			 * so it acknowledges the first copy */
			dr->sp_acked = true;
			pd_time leg = ls_leg(flow, pd_peer(dir));
			pd_time delay = pkt->ts - dr->sp_ts;
			if (!dr->sp_marked && leg > 0 && delay >= 0 && delay * 4 < leg * 3)
				ls_mark_spurious(dr, pkt, delay, leg);
		}
	}
	st->r_sack[dir] = sack_above;
	if (dsack) {
		/* the probe's or the timeout's original had arrived */
		ls_tail_undo(dr, dl, dh);
		if (dr->sp_valid && !dr->sp_marked && pd_seq_le(dl, dr->sp_seq) && pd_seq_le(dr->sp_end, dh))
			ls_mark_spurious(dr, pkt, -1, 0);
		dr->dsack++;
		ls_ev_put(ls_x(dr)->ev_spur, &dr->n_ev_spur, pkt->frame_no, pkt->ts, 0, LS_OC_DSACK);
	}
}

static void ls_on_tcp(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, const pd_seg *seg)
{
	(void)ctx;
	ls_flow *st = fs;
	const pd_tcp *t = &pkt->tcp;
	int dir = seg->dir;
	if (t->flags & PD_TCP_RST)
		return;

	/* ---- as receiver R = dir */
	if (t->flags & PD_TCP_ACK)
		ls_on_ack(flow, st, dir, pkt, seg);

	/* ---- as sender S = dir */
	ls_dir *d = &st->d[dir];
	uint32_t len = t->payload_len;
	if ((t->flags & PD_TCP_SYN) || len == 0 || (seg->flags & (PD_SEG_KEEPALIVE | PD_SEG_ZWP))) {
		/* a pure ACK (or FIN) does not restart the retransmission timer:
		 * a resend's wait runs from S's last data, not from it (nDPI's
		 * KakaoTalk_chat.pcap: data at frame 44, an ACK at 47, the resend
		 * at 72 after 3.013 s, not the 2.330 s since frame 47) */
		if ((t->flags & PD_TCP_SYN) || (seg->flags & (PD_SEG_KEEPALIVE | PD_SEG_ZWP)))
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
	if (pkt->ip.version == 4 && pkt->ip.ident) {
		uint16_t id = (uint16_t)pkt->ip.ident;
		if (d->id_seen) {
			uint16_t step = (uint16_t)(id - d->last_id);
			d->id_steps++;
			d->id_up_steps += step >= 1 && step <= 64;
		}
		d->id_seen = true;
		d->last_id = id;
	}
	uint32_t s = t->seq, e = t->seq + len;
	pd_time quiet_from = d->last_tx_ts > d->last_adv_ts ? d->last_tx_ts : d->last_adv_ts;
	pd_time quiet = quiet_from > 0 ? pkt->ts - quiet_from : 0;
	d->last_tx_ts = pkt->ts;
	/* a series of timer resends ends with new data (nothing new goes out
	 * while the timer backs off); the segments resent right after each
	 * timeout (a sender that resends two) belong to it */
	if (d->ser_open && d->hi_valid && !pd_seq_lt(s, d->hi))
		ls_series_close(d);

	if (!d->hi_valid) {
		d->hi_valid = true;
		d->hi = e;
		ls_hi_seg(d, s, pkt);
		d->adv_first_valid = true;
		d->adv_first_seq = s;
		d->adv_first_ts = pkt->ts;
		return;
	}
	const pd_tcp_half *hr = &flow->half[pd_peer(dir)];
	pd_time rtt = pd_flow_rtt(flow);
	pd_time floor_default = ls_max(rtt + rtt / 5, LS_RTO_MIN_NS);
	if (!pd_seq_lt(s, d->hi)) { /* new data */
		if (!d->adv_first_valid) {
			d->adv_first_valid = true;
			d->adv_first_seq = s;
			d->adv_first_ts = pkt->ts;
		}
		/* without the peer's ACKs, new data past the recovery point means
		 * the recovery ended */
		if (!hr->ack_valid && d->in_recovery && pd_seq_le(d->recovery_point, s))
			d->in_recovery = false;
	}
	if (pd_seq_lt(d->hi, s) && d->resume_open && d->hi == d->resume_end && pkt->ts - d->resume_ts <= 2 * rtt + 5 * LS_MS &&
	    !(rtt > 0 && pkt->ts - d->resume_ts < rtt / 2)) {
		/* Next to the receiver a timeout shows as a long silence, then
		 * the oldest missing segment in order and, a round trip later
		 * (the sender waited for its ACK: F-RTO), data far above it:
		 * what lies between was sent before the silence and lost, if
		 * resends fill it. A reply after idle whose first flight is
		 * reordered or lost shows the jump at once instead. */
		d->resume_pending = true;
		d->resume_lo = d->hi;
		d->resume_hi = s;
		d->resume_jump_end = e;
	}
	d->resume_open = false;
	if (pd_seq_lt(d->hi, s)) { /* a gap: data the capture did not see */
		ls_more *x = ls_x(d);
		ls_hole hole = {d->hi, s, pkt->ts, (uint16_t)pkt->ip.ident, pkt->ip.version == 4 && pkt->ip.ident != 0};
		if (x->n_holes < LS_HOLES) {
			x->holes[x->n_holes++] = hole;
		} else {
			uint32_t old = 0;
			for (uint32_t i = 1; i < LS_HOLES; i++)
				if (x->holes[i].ts < x->holes[old].ts)
					old = i;
			x->holes[old] = hole;
		}
		if (!d->lost_frame)
			d->lost_frame = pkt->frame_no;
		d->hi = e;
		ls_hi_seg(d, s, pkt);
		return;
	}
	if (!pd_seq_lt(s, d->hi)) {
		if (quiet >= floor_default && !d->in_recovery && hr->ack_valid && hr->last_ack == s) {
			d->resume_open = true;
			d->resume_seq = s;
			d->resume_end = e;
			d->resume_ts = pkt->ts;
			d->resume_quiet = quiet;
			d->resume_frame = pkt->frame_no;
		}
		d->hi = e; /* in order */
		ls_hi_seg(d, s, pkt);
		return;
	}
	if (pd_seq_lt(d->hi, e))
		d->hi = e;

	/* below the highest sequence sent: a delayed original or a retransmission */
	ls_hole was;
	bool filled = d->x && ls_fill_hole(d->x, s, e, &was);
	if (filled) {
		bool in_resume = d->resume_pending && pd_seq_lt(s, d->resume_hi) && pd_seq_lt(d->resume_lo, e);
		if (ls_delayed_original(d, &was, pkt, s, rtt)) {
			if (in_resume)
				d->resume_pending = false; /* the jump was reordering, not a timer's resume */
			d->reorder++;
			return;
		}
		if (in_resume)
			ls_resume_commit(d);
		d->unseen++;
		ls_ev_put(ls_x(d)->ev_unseen, &d->n_ev_unseen, pkt->frame_no, pkt->ts, pkt->ts - was.ts, LS_OC_UNSEEN);
	} else if (ls_late_original(d, pkt, s, e, rtt)) {
		d->reorder++;
		return;
	}
	d->retrans++;
	ls_resent_at(d, pkt->frame_no);
	ls_copy_put(ls_x(d), s, e, pkt, filled && was.id_valid ? was.open_id : 0, filled);
	ls_ev_put(ls_x(d)->ev_retx, &d->n_ev_retx, pkt->frame_no, pkt->ts, quiet, LS_OC_RETX);
	if (seg->flags & PD_SEG_SPURIOUS)
		d->spurious++;

	int r = pd_peer(dir);
	bool dup_evidence = st->r_sack[r] || hr->dupack_run >= 1 || (seg->flags & PD_SEG_FAST_RETRANS);
	/* no ACK from the peer in the capture (one direction): any resend may
	 * be of the oldest unacknowledged byte */
	bool at_una = hr->ack_valid ? s == hr->last_ack : true;
	bool last = !pd_seq_lt(e, d->hi); /* the highest segment sent: a tail-loss probe could resend it */
	pd_time floor_free = rtt > 0 ? ls_max(rtt + rtt / 5, LS_MS) : floor_default;
	pd_time tlp_floor = ls_max(rtt + rtt / 2, 5 * LS_MS);
	pd_time stall_start = ls_stall_start(d, s, quiet_from);
	bool sack_on = flow->half[dir].sack_permitted && flow->half[r].sack_permitted;
	bool sack_off = !sack_on && flow->half[dir].syn_seen && flow->half[r].syn_seen;
	if (len < d->max_len && ls_recent_pmtu(st, d, dir, pkt->ts)) {
		/* resent smaller right after a too-big message: PMTU discovery,
		 * even when duplicate ACKs or SACK (for the small segments that
		 * got through) came first, or the timer had fired */
		d->pmtu++;
	} else if (d->ser_open && s == d->ser_seq) {
		ls_series_repeat(d, quiet, rtt, pkt);
	} else if (at_una && quiet >= floor_default) {
		/* a probe could have resent the last segment after this wait too
		 * when the floor is lower than the default */
		ls_series_start(d, LS_T_RTO, last && !dup_evidence, last, dup_evidence, s, e, quiet, stall_start, pkt);
	} else if (at_una && !dup_evidence && !d->dup_since_adv && !last && !d->in_recovery && quiet >= floor_free) {
		/* a probe only resends the last segment, and nothing came back
		 * to trigger a fast retransmit: the timer, whatever its floor */
		ls_series_start(d, LS_T_RTO, false, last, dup_evidence, s, e, quiet, stall_start, pkt);
	} else if (at_una && sack_off && hr->ack_valid && !d->in_recovery && d->dup_since_adv < LS_DUPTHRESH &&
		   pkt->ts - stall_start >= floor_default) {
		/* SACK off: fast retransmit needs LS_DUPTHRESH duplicate ACKs, and
		 * neither a loss probe nor RACK runs without SACK, so a resend of
		 * the oldest byte after fewer is the timer, running since that
		 * segment went out (or the last ACK that advanced), however
		 * recently new data was sent after it */
		if (!filled && !(seg->flags & PD_SEG_SPURIOUS) && pd_seq_lt(hr->last_ack, e) &&
		    pd_flow_vantage(flow) == r)
			d->rcv_drop++; /* the first copy reached the receiver's capture */
		ls_series_start(d, LS_T_RTO, false, last, dup_evidence, s, e, pkt->ts - stall_start, stall_start, pkt);
	} else if (d->in_recovery && d->rec_after_rto) {
		d->rto_follow++; /* resent in slow start after the timeout */
		if ((seg->flags & PD_SEG_SPURIOUS) && !sack_on)
			d->spur_sweep++;
	} else if (!d->in_recovery && d->rto_rec_end_ts > 0 && pkt->ts - d->rto_rec_end_ts <= 2 * rtt + 5 * LS_MS &&
		   hr->ack_valid && pd_seq_le(e, hr->last_ack)) {
		/* next to the receiver: the tail of the post-timeout sweep, sent
		 * before the ACK that ended the recovery reached the sender; data
		 * already acknowledged, not a new fast retransmit */
		d->rto_follow++;
		if ((seg->flags & PD_SEG_SPURIOUS) && !sack_on)
			d->spur_sweep++;
	} else if (d->in_recovery || dup_evidence) {
		d->fast++;
		if (!d->in_recovery) {
			d->in_recovery = true;
			d->rec_after_rto = false;
			d->recovery_point = d->hi;
		}
	} else if (!filled && !(seg->flags & PD_SEG_SPURIOUS) && hr->ack_valid && pd_seq_lt(hr->last_ack, e) &&
		   pd_flow_vantage(flow) == r) {
		/* next to the receiver, data the capture saw arrive and the
		 * receiver never acknowledged: the first copy reached the
		 * receiving host and was dropped there (full receive buffer,
		 * memory pressure), not on the path: no tail loss */
		d->rcv_drop++;
	} else if (!dup_evidence && last && quiet >= tlp_floor) {
		/* the last segment sent again after ~2 RTT of silence: a
		 * tail-loss probe, unless a second resend shows the timer */
		ls_series_start(d, LS_T_TLP, at_una, last, dup_evidence, s, e, quiet, stall_start, pkt);
	} else {
		d->other++;
	}
}

static void ls_occ(pd_finding *f, const ls_ev *ev, uint32_t n)
{
	for (uint32_t i = 0; i < n && i < LS_EV; i++) {
		double ms = ev[i].quiet_us / 1000.0;
		switch (ev[i].kind) {
		case LS_OC_RTO:
			pd_finding_occurrence(f, ev[i].frame, ev[i].ts, "retransmission timeout after %.1f ms",
					      "等待 %.1f 毫秒后超时重传", ms);
			break;
		case LS_OC_UNSEEN:
			pd_finding_occurrence(f, ev[i].frame, ev[i].ts, "original never seen; gap %.1f ms old",
					      "原始报文未被抓到；空洞已存在 %.1f 毫秒", ms);
			break;
		case LS_OC_DSACK:
			pd_finding_occurrence(f, ev[i].frame, ev[i].ts, "D-SACK: data received twice",
					      "D-SACK：数据被收到两次");
			break;
		case LS_OC_SPUR_ACK:
			pd_finding_occurrence(f, ev[i].frame, ev[i].ts,
					      "ACK for the first copy, %.1f ms after the timeout resend",
					      "超时重传后仅 %.1f 毫秒即确认了第一份报文", ms);
			break;
		case LS_OC_TAIL:
			pd_finding_occurrence(f, ev[i].frame, ev[i].ts, "tail resent after %.1f ms of silence",
					      "静默 %.1f 毫秒后重发突发末尾", ms);
			break;
		default:
			pd_finding_occurrence(f, ev[i].frame, ev[i].ts, "retransmission, %.1f ms quiet before",
					      "重传，此前静默 %.1f 毫秒", ms);
			break;
		}
	}
	if (n > LS_EV)
		pd_finding_count(f, n - LS_EV);
}

/* Where the capture was taken, as a closing sentence. */
static void ls_append_vantage(pd_finding *f, int vantage, int s)
{
	if (vantage < 0)
		pd_finding_append(f, " The capture point cannot be told from the handshake.",
				  "无法从握手判断抓包点在哪一侧。");
	else if (vantage == s)
		pd_finding_append(f, " The packets were captured at the sender.", "抓包点在发送端。");
	else
		pd_finding_append(f, " The packets were captured at the receiver.", "抓包点在接收端。");
}

static void ls_append_rtt(pd_finding *f, pd_time rtt)
{
	if (rtt > 0)
		pd_finding_append(f, " RTT %.2f ms.", "RTT 为 %.2f 毫秒。", (double)rtt / 1e6);
	else
		pd_finding_append(f, " RTT unknown: the capture has no handshake or data/ACK pair to time it.",
				  "RTT 未知：抓包中没有可用来测量它的握手或“数据-确认”对。");
}

/* SACK: 1 on, 0 off, -1 unknown (a SYN missing from the capture). */
static int ls_sack_state(const pd_flow *flow)
{
	const pd_tcp_half *c = &flow->half[PD_CLIENT], *sv = &flow->half[PD_SERVER];
	if (c->sack_permitted && sv->sack_permitted)
		return 1;
	if (!c->syn_seen || !sv->syn_seen)
		return -1;
	return 0;
}

/* The flow ended inside a series of timeouts with nothing from the peer
 * since the series began: the peer went silent (or its packets are not in
 * the capture) and the sender was still backing off. */
static bool ls_peer_silent(const pd_flow *flow, const ls_dir *d, int r)
{
	if (!d->ser_open || d->ser_rto < 2)
		return false;
	const pd_tcp_half *hr = &flow->half[r];
	return !hr->seen || hr->last_pkt_ts < d->ser_first_ts;
}

static pd_finding *ls_report_retrans(pd_ctx *ctx, const pd_flow *flow, ls_dir *d, int s, uint32_t spurious,
				     uint32_t real)
{
	int r = pd_peer(s);
	char sname[64], rname[64];
	pd_flow_endpoint(flow, s, sname, sizeof(sname));
	pd_flow_endpoint(flow, r, rname, sizeof(rname));
	double rate = d->data_segs ? (double)d->retrans / d->data_segs : 0;
	double real_rate = d->data_segs ? (double)real / d->data_segs : 0;
	pd_time rtt = pd_flow_rtt(flow);
	int vantage = pd_flow_vantage(flow);
	int sack = ls_sack_state(flow);
	pd_finding *f = pd_finding_get(ctx, "retransmissions", flow);
	ls_occ(f, d->x->ev_retx, d->n_ev_retx);
	pd_finding_detail(f,
			  "%s retransmitted %u of its %u data segments (%.2f%%) to %s: %u by fast/SACK recovery, "
			  "%u on a retransmission timeout (+%u resent after it), %u tail-loss probes, %u resent "
			  "smaller after an ICMP too-big message (PMTU discovery, not loss), %u other; %u spurious; "
			  "%u whose original the capture never saw; %u segments merely arrived out of order.",
			  "%1$s 向 %5$s 重传了 %3$u 个数据段中的 %2$u 个（%4$.2f%%）：快速/SACK 恢复 %6$u 个，"
			  "超时重传 %7$u 个（其后又重发 %8$u 个），尾部丢包探测 %9$u 个，收到 ICMP 报文过大消息后"
			  "改小重发 %10$u 个（这是 PMTU 发现，不是丢包），其他 %11$u 个；其中虚假重传 %12$u 个，"
			  "原始报文未被抓到的 %13$u 个；另有 %14$u 个数据段只是乱序到达。",
			  sname, d->retrans, d->data_segs, rate * 100, rname, d->fast, d->rto, d->rto_follow, d->tlp,
			  d->pmtu, d->other, spurious, d->unseen, d->reorder);
	ls_append_rtt(f, rtt);
	if (sack > 0)
		pd_finding_append(f, " SACK on.", "SACK 已启用。");
	else if (sack == 0)
		pd_finding_append(f, " SACK off.", "SACK 未启用。");
	else
		pd_finding_append(f, " Whether SACK is on is unknown: a SYN is missing from the capture.",
				  "抓包缺少 SYN，无法判断 SACK 是否启用。");
	/* Where the first copies were lost, before any setting. */
	if (vantage == s && d->unseen * 2 >= real)
		pd_finding_append(f,
				  " The capture was taken at the sender, yet most first copies never appeared in it: "
				  "they were dropped inside the sending host (its qdisc or driver), before the capture "
				  "point.",
				  "抓包点在发送端，但大部分首发报文并未出现在抓包中：它们在发送主机内部（qdisc 或驱动）"
				  "抓包点之前就被丢弃了。");
	else if (vantage == s)
		pd_finding_append(f,
				  " The capture was taken at the sender and saw the first copies leave: they were lost "
				  "after the capture point, on the path or in the receiving host.",
				  "抓包点在发送端，且看到了首发报文发出：它们是在抓包点之后丢失的，即在路径上或接收主机内。");
	else if (vantage == r && !d->rcv_drop)
		pd_finding_append(f,
				  " The capture was taken at the receiver and never saw the first copies: they were lost "
				  "before the capture point, on the path or in the sending host.",
				  "抓包点在接收端，且从未看到首发报文：它们是在抓包点之前丢失的，即在路径上或发送主机内。");
	else
		ls_append_vantage(f, vantage, s);
	/* A queue that built up (RTT well above the handshake's while the
	 * data flowed) says the losses were congestion; without it they are
	 * a lossy hop, and the congestion control is no first answer. */
	bool congested = flow->hs_rtt > 0 && flow->rtt_count >= 8 &&
			 flow->rtt_sum / flow->rtt_count >= flow->hs_rtt + flow->hs_rtt * 3 / 10 &&
			 flow->rtt_sum / flow->rtt_count - flow->hs_rtt >= PD_NS_PER_SEC / 1000;
	if (congested)
		pd_finding_append(f,
				  " The round trip grew from %.2f ms (handshake) to %.2f ms on average while data "
				  "flowed: a queue built up, so these are congestion losses.",
				  "数据传输期间往返时间从 %.2f 毫秒（握手）增长到平均 %.2f 毫秒：队列在积压，"
				  "因此这些是拥塞丢包。",
				  (double)flow->hs_rtt / 1e6, (double)(flow->rtt_sum / flow->rtt_count) / 1e6);
	pd_finding_append(f,
			  " Congestion control reacts to each loss episode; a loss-tolerant algorithm (bbr) is a "
			  "consideration for paths with random loss, not a fix for a congested or faulty link.",
			  "拥塞控制会对每次丢包作出反应；对随机丢包的路径可以考虑容忍丢包的算法（bbr），"
			  "但它修不好拥塞或有故障的链路。");
	if (d->rcv_drop)
		pd_finding_append(f,
				  " Some first copies reached the receiver's capture yet were never acknowledged: the "
				  "receiving host dropped them (receive buffer full or socket memory pressure, see nstat "
				  "TcpExtTCPRcvQDrop / TcpExtPruneCalled, or its own netfilter input rules), not the path.",
				  "部分首发报文已到达接收端的抓包点却从未被确认：是接收主机自己丢弃了它们（接收缓冲区"
				  "已满或套接字内存紧张，见 nstat TcpExtTCPRcvQDrop / TcpExtPruneCalled，或其本机 "
				  "netfilter 入站规则），而不是路径丢包。");
	if (d->floor_rto + d->floor_tlp)
		pd_finding_append(f,
				  " %u timer-driven resends were classed as a timeout or a tail-loss probe by Linux's "
				  "default 200 ms minimum RTO alone (nothing else in the capture tells them apart); a "
				  "host with a lower floor (net.ipv4.tcp_rto_min_us, route rto_min) changes that split.",
				  "有 %u 次由定时器触发的重发，只能按 Linux 默认的 200 毫秒最小 RTO 判断是超时重传还是"
				  "尾部丢包探测（抓包中没有其他依据）；若主机调低了这个下限（net.ipv4.tcp_rto_min_us、"
				  "路由的 rto_min），这个划分会不同。",
				  d->floor_rto + d->floor_tlp);
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
	if (rtt > 0)
		pd_finding_metric(f, "rtt_ms", (double)rtt / 1e6, PD_UNIT_MS, PD_AGG_MAX);
	double rto_s = (double)d->rto_sum / 1e9, stall_s = (double)d->rto_stall / 1e9;
	pd_finding_add_impact(f, stall_s > rto_s ? stall_s : rto_s);
	pd_finding_set_severity(f, PD_SEV_INFO);
	if (real_rate >= 0.01 && real >= 3)
		pd_finding_set_severity(f, PD_SEV_WARNING);
	if (real_rate >= 0.1 && d->data_segs >= 20)
		pd_finding_set_severity(f, PD_SEV_ERROR);
	pd_finding_set_confidence(f, 0.8);
	bool window_open = !flow->half[r].zero_win && !flow->half[s].win_full;
	if (d->rcv_drop * 2 >= real && window_open)
		/* a receiver whose window never closed nor filled had room:
		 * something in the host before the socket dropped them */
		pd_finding_settings(f, "local netfilter drops", "net.ipv4.tcp_rmem", "SO_RCVBUF",
				    "slow-reading application", NULL);
	else if (d->rcv_drop * 2 >= real)
		pd_finding_settings(f, "net.ipv4.tcp_rmem", "SO_RCVBUF", "slow-reading application", "local netfilter drops",
				    NULL);
	else if (vantage == s && d->unseen * 2 >= real)
		/* mostly first copies that never left the sending host
		 * (local-drop): its own queues, not the path or the
		 * congestion control, are the place to look */
		pd_finding_settings(f, "qdisc limit", "net.core.default_qdisc", "net.ipv4.tcp_congestion_control",
				    "net.ipv4.tcp_sack", NULL);
	else if (sack == 0)
		pd_finding_settings(f, "net.ipv4.tcp_sack", "net.ipv4.tcp_congestion_control", "NIC ring buffers",
				    "net.core.netdev_max_backlog", "qdisc limit", NULL);
	else if (congested)
		pd_finding_settings(f, "net.ipv4.tcp_congestion_control", "shaper queue size", "qdisc limit",
				    "NIC ring buffers", "net.core.netdev_max_backlog", NULL);
	else
		pd_finding_settings(f, "lossy path", "net.ipv4.tcp_congestion_control", "NIC ring buffers",
				    "net.core.netdev_max_backlog", "qdisc limit", NULL);
	return f;
}

static pd_finding *ls_report_rto(pd_ctx *ctx, const pd_flow *flow, ls_dir *d, int s)
{
	int r = pd_peer(s);
	char sname[64], rname[64];
	pd_flow_endpoint(flow, s, sname, sizeof(sname));
	pd_flow_endpoint(flow, r, rname, sizeof(rname));
	int vantage = pd_flow_vantage(flow);
	int sack = ls_sack_state(flow);
	double rto_s = (double)d->rto_sum / 1e9;
	double stall_s = (double)d->rto_stall / 1e9;
	if (stall_s < rto_s)
		stall_s = rto_s;
	uint32_t real = d->rto > d->rto_spur ? d->rto - d->rto_spur : 0;
	double real_stall_s = stall_s - (double)d->spur_stall / 1e9;
	bool silent = ls_peer_silent(flow, d, r);
	double lo = (double)d->rto_min / 1e6, hi = (double)d->rto_max / 1e6;
	pd_finding *f = pd_finding_get(ctx, "rto-timeouts", flow);
	ls_occ(f, d->x->ev_rto, d->n_ev_rto);
	if (d->rto == 1)
		pd_finding_detail(f, "%s waited once for its retransmission timer (%.0f ms) before resending to %s.",
				  "%1$s 等待了一次重传定时器（%2$.0f 毫秒）才向 %3$s 重发。", sname, lo, rname);
	else if (d->rto_min == d->rto_max)
		pd_finding_detail(f,
				  "%s waited for its retransmission timer %u times (%.0f ms each, %.3f s in all) before "
				  "resending to %s.",
				  "%1$s 共 %2$u 次等待重传定时器（每次 %3$.0f 毫秒，合计 %4$.3f 秒）才向 %5$s 重发。",
				  sname, d->rto, lo, rto_s, rname);
	else
		pd_finding_detail(f,
				  "%s waited for its retransmission timer %u times (%.0f-%.0f ms, %.3f s in all) before "
				  "resending to %s.",
				  "%1$s 共 %2$u 次等待重传定时器（%3$.0f-%4$.0f 毫秒，合计 %5$.3f 秒）才向 %6$s 重发。",
				  sname, d->rto, lo, hi, rto_s, rname);
	double backoff = d->rto_repeats ? d->backoff_ratio_sum / d->rto_repeats : 0;
	if (d->rto_backoffs)
		pd_finding_append(f,
				  " Repeats of the same segment with no progress in between: %u, each waiting about %.1f "
				  "times as long as the one before (exponential backoff).",
				  "同一数据段在没有任何进展的情况下又被重发了 %u 次，每次等待约为上一次的 %.1f 倍："
				  "这是指数退避。",
				  d->rto_repeats, backoff);
	uint32_t tail_rto = d->tail > d->tlp ? d->tail - d->tlp : 0;
	if (tail_rto)
		pd_finding_append(f,
				  " Timeouts with no duplicate ACK or SACK before them: %u (the tail of a burst was lost, "
				  "or everything in flight, so nothing came back to trigger fast retransmit).",
				  "其中 %u 次之前没有任何重复 ACK 或 SACK（丢的是突发的末尾，或在途数据全部丢失，"
				  "没有报文回来触发快速重传）。",
				  tail_rto);
	ls_append_vantage(f, vantage, s);
	if (stall_s > rto_s + 0.001)
		pd_finding_append(f,
				  " The flow made no progress for %.3f s in all, from the first send of the resent "
				  "segment (or the last ACK that advanced, if that came later) to the timer's last resend.",
				  "连接共有 %.3f 秒毫无进展：从被重发的数据段首次发出（若最后一个推进的 ACK 更晚，则从该 "
				  "ACK 起）到定时器最后一次重发。",
				  stall_s);
	if (d->rto_spur_early)
		pd_finding_append(f,
				  " Spurious timeouts among them: %u. The ACK for the first copy came %.1f ms after the "
				  "resend, sooner than the %.1f ms a packet takes from this capture point to the receiver "
				  "and back (or D-SACK reported the data received twice). The ACKs were delayed; nothing "
				  "was lost.",
				  "其中 %u 次超时是虚假的：重发后仅 %.1f 毫秒就收到了对第一份报文的确认，比报文从抓包点到"
				  "接收端再返回所需的 %.1f 毫秒还短（或 D-SACK 报告数据被收到两次）。是 ACK 被延误了，"
				  "并没有丢包。",
				  d->rto_spur, (double)d->spur_delay / 1e6, (double)d->spur_leg / 1e6);
	else if (d->rto_spur)
		pd_finding_append(f,
				  " Spurious timeouts among them: %u. D-SACK reported the resent data received twice, "
				  "so the first copy had arrived and only its ACK was late.",
				  "其中 %u 次超时是虚假的：D-SACK 报告重发的数据被收到两次，说明第一份报文早已到达，"
				  "只是它的 ACK 来晚了。",
				  d->rto_spur);
	if (silent)
		pd_finding_append(f,
				  " Nothing came from %s after the first of the last %u timeouts: it went silent (or its "
				  "packets are not in the capture) and %s kept resending until the flow ended. "
				  "How long a sender keeps retrying before it gives the connection up is "
				  "net.ipv4.tcp_retries2 (or TCP_USER_TIMEOUT on the socket); no loss-recovery setting "
				  "helps against a silent peer.",
				  "在最后这 %2$u 次超时的第一次之后，%1$s 再没有发来任何报文：它已沉默（或它的报文不在"
				  "抓包中），而 %3$s 一直在重传，直到连接结束。发送端重试多久才放弃连接由 "
				  "net.ipv4.tcp_retries2（或套接字上的 TCP_USER_TIMEOUT）决定；面对沉默的对端，"
				  "任何丢包恢复设置都无济于事。",
				  rname, d->ser_rto, sname);
	if (d->floor_rto)
		pd_finding_append(f,
				  " Timeouts told from a tail-loss probe only by Linux's default 200 ms minimum RTO: %u "
				  "(no backed-off repeat confirms the timer); on a host with a lower floor "
				  "(net.ipv4.tcp_rto_min_us, route rto_min) they may be probes.",
				  "其中 %u 次超时只是按 Linux 默认的 200 毫秒最小 RTO 与尾部丢包探测区分开的（没有退避后的"
				  "再次重发来证实是定时器）；若主机调低了这个下限（net.ipv4.tcp_rto_min_us、路由的 "
				  "rto_min），它们也可能是探测。",
				  d->floor_rto);
	/* backed-off timeouts shorter than the default floor: it was lowered */
	bool low_floor = d->rto_repeats && d->rto_min > 0 && d->rto_min < LS_RTO_MIN_NS;
	if (low_floor)
		pd_finding_append(f,
				  " The shortest timeout was %.0f ms, below Linux's default 200 ms minimum RTO, and the "
				  "repeats backed off from it: the sender's floor was lowered (a route's rto_min, or "
				  "net.ipv4.tcp_rto_min_us since 6.11).",
				  "最短的一次超时只有 %.0f 毫秒，低于 Linux 默认的 200 毫秒最小 RTO，而之后的重发正是从它开始"
				  "退避的：发送端的下限被调低了（路由的 rto_min，或 6.11 起的 net.ipv4.tcp_rto_min_us）。",
				  lo);
	pd_finding_metric(f, "rto_count", d->rto, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "rto_time", rto_s, PD_UNIT_S, PD_AGG_SUM);
	pd_finding_metric(f, "stall_time", stall_s, PD_UNIT_S, PD_AGG_SUM);
	pd_finding_metric(f, "rto_min_ms", lo, PD_UNIT_MS, PD_AGG_MAX);
	pd_finding_metric(f, "rto_max_ms", hi, PD_UNIT_MS, PD_AGG_MAX);
	if (d->rto_repeats) {
		pd_finding_metric(f, "rto_backoffs", d->rto_backoffs, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "backoff_factor", backoff, PD_UNIT_RATIO, PD_AGG_MAX);
	}
	if (d->rto_spur)
		pd_finding_metric(f, "spurious_timeouts", d->rto_spur, PD_UNIT_COUNT, PD_AGG_SUM);
	if (d->floor_rto)
		pd_finding_metric(f, "assumed_default_rto_floor", d->floor_rto, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_add_impact(f, stall_s);
	/* spurious timeouts were delays, not lost data */
	pd_finding_set_severity(f, real >= 2 || (real >= 1 && real_stall_s >= 0.4) ? PD_SEV_WARNING : PD_SEV_INFO);
	pd_finding_set_confidence(f, 0.8);
	if (silent && low_floor)
		pd_finding_settings(f, "net.ipv4.tcp_retries2", "TCP_USER_TIMEOUT", "route rto_min",
				    "net.ipv4.tcp_rto_min_us", NULL);
	else if (silent)
		pd_finding_settings(f, "net.ipv4.tcp_retries2", "TCP_USER_TIMEOUT", "net.ipv4.tcp_early_retrans",
				    "net.ipv4.tcp_recovery", NULL);
	else if (low_floor)
		pd_finding_settings(f, "route rto_min", "net.ipv4.tcp_rto_min_us", "net.ipv4.tcp_early_retrans",
				    "net.ipv4.tcp_recovery", "net.ipv4.tcp_retries2", NULL);
	else if (!real)
		pd_finding_settings(f, "net.ipv4.tcp_rto_min_us", "route rto_min", "net.ipv4.tcp_recovery", NULL);
	else if (sack == 0)
		pd_finding_settings(f, "net.ipv4.tcp_sack", "net.ipv4.tcp_early_retrans", "net.ipv4.tcp_recovery",
				    "net.ipv4.tcp_retries2", NULL);
	else
		pd_finding_settings(f, "net.ipv4.tcp_early_retrans", "net.ipv4.tcp_recovery", "net.ipv4.tcp_sack",
				    "net.ipv4.tcp_retries2", NULL);
	return f;
}

/* The findings one flow's losses made, to say which is the problem. */
typedef struct ls_made {
	pd_finding *retrans, *rto;
	bool silent; /* the peer went silent while the sender timed out */
} ls_made;

static void ls_report(pd_ctx *ctx, const pd_flow *flow, ls_dir *d, int s, ls_made *made)
{
	int r = pd_peer(s);
	if ((!d->retrans && !d->dsack) || !d->x)
		return;
	ls_more *x = d->x;
	uint32_t spurious = d->spurious > d->dsack ? d->spurious : d->dsack;
	if (d->rto_spur > spurious)
		spurious = d->rto_spur;
	/* retransmissions the receiver did need: spurious ones lost nothing */
	uint32_t real = d->retrans > spurious + d->pmtu ? d->retrans - spurious - d->pmtu : 0;
	int vantage = pd_flow_vantage(flow);
	double tail_s = (double)d->tail_sum / 1e9;
	pd_time rtt = pd_flow_rtt(flow);
	char sname[64], rname[64];
	pd_flow_endpoint(flow, s, sname, sizeof(sname));
	pd_flow_endpoint(flow, r, rname, sizeof(rname));

	/* The resends' whole extent, not only the examples quoted: a cause
	 * explains them only if it covers all of them (pd_finding_span). */
	if (real > 0) { /* all spurious or PMTU resends: reported elsewhere */
		made->retrans = ls_report_retrans(ctx, flow, d, s, spurious, real);
		pd_finding_span(made->retrans, d->resent_first, d->resent_last);
	}
	if (d->rto) {
		made->rto = ls_report_rto(ctx, flow, d, s);
		pd_finding_span(made->rto, d->resent_first, d->resent_last);
		made->silent |= ls_peer_silent(flow, d, r);
	}

	if (d->tail && tail_s > 0) {
		pd_finding *f = pd_finding_get(ctx, "tail-loss", flow);
		pd_finding_span(f, d->resent_first, d->resent_last);
		ls_occ(f, x->ev_tail, d->n_ev_tail);
		pd_finding_detail(f,
				  "%s resent the last segment(s) of a burst only after a silence; tail losses: %u (%u by "
				  "tail-loss probe, %u by timeout; %.3f s of silence in all). No later segment reached %s "
				  "to trigger duplicate ACKs.",
				  "%1$s 有 %2$u 次在一段静默之后才重发突发末尾的数据段（尾部丢包探测 %3$u 次，超时 %4$u "
				  "次；静默合计 %5$.3f 秒）：之后没有别的数据段到达 %6$s 来触发重复 ACK。",
				  sname, d->tail, d->tlp, d->tail - d->tlp, tail_s, rname);
		ls_append_rtt(f, rtt);
		if (d->floor_tlp)
			pd_finding_append(f,
					  " Probes told from timeouts only by Linux's default 200 ms minimum RTO: %u; on a "
					  "host with a lower floor (net.ipv4.tcp_rto_min_us, route rto_min) they "
					  "may be timeouts.",
					  "其中 %u 次探测只是按 Linux 默认的 200 毫秒最小 RTO 与超时区分开的；若主机调低了"
					  "这个下限（net.ipv4.tcp_rto_min_us、路由的 rto_min），它们也可能是超时。",
					  d->floor_tlp);
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
			ls_occ(f, x->ev_spur, d->n_ev_spur);
		else
			pd_finding_occurrence(f, flow->first_frame, flow->first_ts, "flow start", "连接开始");
		/* SACK off: after a timeout the sender cannot know which segments
		 * above the hole arrived and resends them all (go-back-N); those
		 * copies are the price of the missing SACK, not an early timer */
		uint32_t sweep = d->spur_sweep < spurious ? d->spur_sweep : spurious;
		uint32_t early = spurious - sweep;
		if (sweep)
			pd_finding_detail(f,
					  "%u of %s's %u retransmissions resent data %s already had (%u reported back by "
					  "D-SACK); %u of them were resent after a retransmission timeout with SACK off: "
					  "without SACK the sender cannot tell which segments after the lost one arrived and "
					  "sends them all again (go-back-N), so they come from the loss, not from an early "
					  "timer.",
					  "%2$s 的 %3$u 次重传中有 %1$u 次重发了 %4$s 已经收到的数据（其中 %5$u 次由 D-SACK "
					  "报告）；其中 %6$u 次是在 SACK 未启用时超时之后重发的：没有 SACK，发送端无法知道"
					  "丢失报文之后的哪些数据段已经到达，只能全部重发（回退 N 步），所以它们源于丢包，"
					  "而不是定时器过早触发。",
					  spurious, sname, d->retrans, rname, d->dsack, sweep);
		else
			pd_finding_detail(f,
					  "%u of %s's %u retransmissions resent data %s already had (%u reported back by "
					  "D-SACK): the timer fired too early, the ACKs were delayed, or the path reorders.",
					  "%2$s 的 %3$u 次重传中有 %1$u 次重发了 %4$s 已经收到的数据（其中 %5$u 次由 D-SACK "
					  "报告）：定时器触发得太早、ACK 被延误，或者路径会乱序。",
					  spurious, sname, d->retrans, rname, d->dsack);
		if (d->rto_spur)
			pd_finding_append(f,
					  " Retransmission timeouts among them whose first copy had arrived: %u; the "
					  "timer fired while the ACKs were held up on the way back.",
					  "其中 %u 次是超时重传，而第一份报文早已到达：定时器是在 ACK 滞留在回程路上时"
					  "触发的。",
					  d->rto_spur);
		pd_finding_metric(f, "spurious", spurious, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "dsack", d->dsack, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "go_back_n_no_sack", sweep, PD_UNIT_COUNT, PD_AGG_SUM);
		if (d->rto_spur)
			pd_finding_metric(f, "spurious_timeouts", d->rto_spur, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_set_severity(f, early >= 5 && d->retrans && early * 3 >= d->retrans ? PD_SEV_WARNING : PD_SEV_INFO);
		pd_finding_set_confidence(f, 0.6);
		if (sweep * 2 >= spurious)
			pd_finding_settings(f, "net.ipv4.tcp_sack", "net.ipv4.tcp_recovery", NULL);
		else if (d->rto_spur * 2 >= spurious)
			/* F-RTO detects and undoes a spurious timeout */
			pd_finding_settings(f, "net.ipv4.tcp_frto", "net.ipv4.tcp_rto_min_us", "route rto_min",
					    "net.ipv4.tcp_recovery", NULL);
		else
			pd_finding_settings(f, "net.ipv4.tcp_recovery", "net.ipv4.tcp_early_retrans", NULL);
	}

	if (d->unseen && vantage == s) {
		pd_finding *f = pd_finding_get(ctx, "local-drop", flow);
		ls_occ(f, x->ev_unseen, d->n_ev_unseen);
		pd_finding_detail(f,
				  "This capture was taken at the sender %s (it answers the handshake within a fraction of "
				  "the %.2f ms RTT), yet %u retransmissions filled sequence gaps whose first copy never "
				  "passed the capture point (the tap sees a packet as it is handed to the driver, after the "
				  "qdisc): they were dropped inside the sending host after TCP counted them as sent - by a "
				  "qdisc that drops queued packets (an AQM such as fq_codel, a shaper), in the neighbour "
				  "queue, or, seen from the host side of a container's veth, in the per-CPU backlog - or by "
				  "the capture itself (check tcpdump's 'dropped by kernel'). A NIC ring or driver drop comes "
				  "after the tap and would show the original.",
				  "这份抓包是在发送端 %1$s 上抓的（它在 %2$.2f 毫秒 RTT 的一小部分时间内就回应了握手），"
				  "但有 %3$u 次重传填补的序列空洞，其第一份报文从未经过抓包点（抓包点看到的是交给驱动的"
				  "报文，位于 qdisc 之后）：它们在 TCP 认为已发出之后，在发送主机内部被丢弃了——被会丢弃"
				  "排队报文的 qdisc（fq_codel 之类的 AQM、整形器）、邻居队列，或者（在容器 veth 的主机侧"
				  "看）每 CPU 的 backlog 丢弃，也可能是抓包本身丢了（看 tcpdump 的“dropped by kernel”）。"
				  "网卡环形缓冲区或驱动的丢包发生在抓包点之后，抓包里会有原始报文。",
				  sname, (double)rtt / 1e6, d->unseen);
		pd_finding_metric(f, "unseen_originals", d->unseen, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_set_severity(f, PD_SEV_WARNING);
		pd_finding_set_confidence(f, 0.7);
		pd_finding_settings(f, "qdisc limit", "net.core.default_qdisc", "net.core.netdev_max_backlog",
				    "capture buffer", NULL);
	}
}

static void ls_on_flow_end(pd_ctx *ctx, void *g, const pd_flow *flow, void *fs)
{
	(void)g;
	ls_flow *st = fs;
	if (flow->proto != 6)
		return;
	ls_made made = {0};
	for (int s = 0; s < 2; s++) {
		ls_dir *d = &st->d[s];
		if (d->first_pending)
			ls_first_commit(d, d->first_kind); /* nothing came after it to tell */
		ls_report(ctx, flow, d, s, &made);
		pd_mem_free(PD_MEM_DETECTORS, d->x);
		d->x = NULL;
	}
	/* Resends and timeouts on one flow are one problem: a peer that went
	 * silent is named by its timeouts, a path that lost segments by its
	 * retransmissions (the timeouts are what recovering cost). */
	if (made.retrans && made.rto) {
		if (made.silent)
			pd_finding_explained_by(made.retrans, made.rto);
		else
			pd_finding_explained_by(made.rto, made.retrans);
	}
}

static const char *const ls_emits[] = {"retransmissions", "rto-timeouts", "spurious-retransmissions",
				       "local-drop", "tail-loss", NULL};

const pd_detector pd_det_loss = {
	.name = "loss",
	.emits = ls_emits,
	.from_payload = true,
	.flow_state_size = sizeof(ls_flow),
	.on_tcp = ls_on_tcp,
	.on_icmp_error = ls_on_icmp_error,
	.on_flow_end = ls_on_flow_end,
};
