/* Window and buffer limits of a data transfer: zero windows (with persist
 * probes and the time the sender stood still), transfers held by the
 * receive window (and which receive buffer set it), window scaling not
 * negotiated, a receive window that never grew, and senders held by their
 * own send buffer.
 *
 * For every data direction (sender S, receiver R) the time between packets
 * is attributed to what limited S at that moment: R's window (the flight
 * plus one MSS no longer fits), loss recovery, S having nothing in flight
 * or something else (congestion window or the sender itself). That split
 * is exact on a capture taken at the sender and underestimates the window
 * share elsewhere, so the window verdict also uses two tests that hold at
 * any vantage point: the achieved rate against the ceiling window / RTT,
 * and round-trip-long bins in which S delivered one whole window of R,
 * the same window, several round trips in a row.
 *
 * A send buffer shows as data in blocks of one size, one per round trip,
 * while R's window had room and nothing was lost (a congestion window would
 * have grown by at least half a segment per round trip), each block sent
 * as soon as the ACK of the previous one freed buffer space: at the sender
 * within a fraction of a millisecond of that ACK, at the receiver one RTT
 * after it, between the hosts after the share of the RTT on the sender's
 * side (the handshake's split: SYN to SYN-ACK, SYN-ACK to ACK). A sender
 * that pauses between writes is the application, and blames no buffer. A
 * flight pinned without silences between blocks looks like a path or
 * pacing rate limit from the capture and is not judged.
 *
 * Without the handshake the window scale is unknown: the raw window field
 * is then a lower bound, and no window-size verdict is drawn. */
#include <stdio.h>
#include <string.h>

#include "dissect/peer_os.h"
#include "heuristics/detector.h"
#include "heuristics/memacct.h"
#include "heuristics/util.h"

#define WN_BULK_BYTES (100 * 1000) /* one-way bytes that make a flow "bulk" */
#define WN_NOSCALE_CAP 65535u
/* Linux ramps the advertised window to what the buffer allows within the
 * first round trips (+25 % at most in the golden captures); receive-buffer
 * autotuning grows it further, doubling it when the sender fills it. A
 * window that never reached this factor over the first one never grew. */
#define WN_GREW_FACTOR 1.5
/* the window a SO_RCVBUF request capped by the long-time default
 * net.core.rmem_max (212992, doubled: 425984) gives: window scale 2 and
 * 212992 (tcp_adv_win_scale 1) up to 262140 (65535 << 2) */
#define WN_RMEMMAX_WIN_LO 200000u
#define WN_RMEMMAX_WIN_HI 262140u
#define WN_RMEMMAX_WSCALE 2
#define WN_PINNED_ROUNDS 8 /* blocks (round trips) of one size: a send-buffer limit */
#define WN_WINDOW_ROUNDS 3 /* round trips at one full window: a receive-window limit */

enum { WN_ST_NONE = 0, WN_ST_RWND, WN_ST_ZERO, WN_ST_LOSS, WN_ST_IDLE, WN_ST_OTHER, WN_ST__N };

#define WN_EV 6 /* zero-window advertisements kept as evidence */
typedef struct wn_ev {
	uint64_t frame;
	pd_time ts;
} wn_ev;

/* A run of data blocks of one size. */
typedef struct wn_run {
	uint32_t ref; /* the size of the run's first block */
	uint32_t len;
	uint32_t rwnd_min; /* smallest window R advertised during the run */
	uint32_t trans, prompt; /* resumes measured inside the run, and prompt ones */
	pd_time lat_max; /* longest prompt resume */
	uint64_t first_frame;
	pd_time first_ts, last_ts;
} wn_run;

/* S's data cut into blocks: what S sent between two silences in which R
 * had acknowledged everything. */
typedef struct wn_blocks {
	wn_run cur, best;
	bool open, peer_spoke, loss;
	uint32_t bytes;
	uint32_t rwnd_min;
	uint64_t frame;
	pd_time ts;
	bool trans_valid; /* how the block started: S resumed after R's ACK */
	pd_time lat; /* ... this long after it (at R: less one RTT), absolute */
} wn_blocks;

/* What only a transfer needs: S's blocks and the round-trip-long bins. */
#define WN_MORE_BYTES (64 * 1024)
typedef struct wn_more {
	pd_time ack_adv_ts; /* R's latest ACK that acknowledged new data */
	wn_blocks blocks;
	/* round-trip-long bins: bytes S sent and R's largest window in each */
	pd_time bin_w, bin_end;
	uint32_t bin_bytes, bin_win;
	uint64_t bin_frame;
	pd_time bin_ts;
	/* the current and the longest run of bins each carrying one whole,
	 * unchanged window */
	uint32_t wr_len, wr_win, best_wr_len, best_wr_win;
	uint64_t wr_bytes, wr_winsum, wr_frame, best_wr_frame;
	pd_time wr_ts, best_wr_ts;
} wn_more;

typedef struct wn_dir {
	/* zero-window episodes advertised by R while S had data to send */
	bool zw_active;
	pd_time zw_start;
	uint32_t zw_events, probes;
	wn_ev zw_ev[WN_EV];
	pd_time zw_total, zw_max;
	uint64_t zw_max_frame;
	pd_time zw_max_ts;
	bool zw_max_open; /* the longest stall never ended: the window was still 0 at the flow's end */
	uint64_t zw_from_frame; /* R's packet before its first zero window: data sent after it was caught */
	uint64_t zw_end_frame;	/* where the last stall ended: the span the window explains ends here */
	uint64_t r_last_frame;	/* R's latest packet */
	uint32_t win_full;

	/* time split */
	int state;
	pd_time acct_ts; /* time up to which time was attributed */
	pd_time t[WN_ST__N];
	pd_time idle_pending; /* idle time, committed when S sends again */
	bool peer_spoke; /* R sent data while S was idle: S waited for a request */
	double win_integral; /* sum of R's window x dt while S was active (bytes x s) */
	pd_time win_time;

	/* loss recovery: until R's cumulative ACK passes this point */
	bool recovering;
	uint32_t recovery_point;

	/* R's window */
	uint32_t win_first; /* first window R advertised after the handshake */
	uint32_t win_max;
	uint16_t raw_min, raw_max; /* the raw field, for a flow whose scale is unknown */
	bool win_first_set;
	double flight_over_raw; /* largest flight / raw window: a lower bound of the scale */

	/* S's data */
	bool data_started;
	pd_time first_data_ts, last_data_ts, last_ack_adv_ts;
	uint64_t first_data_frame;
	uint64_t first_full_frame;
	pd_time first_full_ts;
	pd_time rtt_min; /* smallest data->ACK sample of S's data; 0 none */
	struct wn_more *x; /* made once S sent WN_MORE_BYTES */
} wn_dir;

typedef struct wn_flow {
	wn_dir d[2]; /* by sender */
} wn_flow;

/* floor(log2(v)); -1 for 0 */
static int wn_log2(uint32_t v)
{
	int n = -1;
	while (v) {
		v >>= 1;
		n++;
	}
	return n;
}

static int wn_state(const pd_flow *f, const wn_dir *d, int s)
{
	const pd_tcp_half *hs = &f->half[s], *hr = &f->half[pd_peer(s)];
	if (!hr->win_known || !hr->ack_valid || !hs->seq_valid)
		return WN_ST_OTHER;
	if (hr->win == 0)
		return WN_ST_ZERO;
	int32_t fl = pd_seq_diff(hs->next_seq, hr->last_ack);
	uint64_t flight = fl > 0 ? (uint64_t)fl : 0;
	/* a full window while the receiver repeats its ACK (a hole at SND.UNA,
	 * the data above it holds the window) or during recovery: the loss,
	 * not the window, stops the sender (without SACK it waits for the
	 * timer there) */
	if (flight > 0 && flight + pd_flow_mss(f, s, true) > hr->win)
		return d->recovering || hr->dupack_run >= 2 ? WN_ST_LOSS : WN_ST_RWND;
	if (d->recovering)
		return WN_ST_LOSS;
	if (flight == 0)
		return WN_ST_IDLE;
	return WN_ST_OTHER;
}

/* Attributes the time since the last packet to S's previous state. */
static void wn_account(const pd_flow *f, wn_dir *d, int s, pd_time now)
{
	if (!d->data_started)
		return;
	pd_time dt = now - d->acct_ts;
	if (dt > 0) {
		if (d->state == WN_ST_IDLE) {
			d->idle_pending += dt;
		} else if (d->state != WN_ST_NONE) {
			d->t[d->state] += dt;
			const pd_tcp_half *hr = &f->half[pd_peer(s)];
			d->win_integral += (double)hr->win * (double)dt / 1e9;
			d->win_time += dt;
		}
	}
	d->acct_ts = now;
}

/* ---------------------------------------------------------------- blocks */

static void wn_run_keep_best(wn_blocks *u)
{
	if (u->cur.len > u->best.len)
		u->best = u->cur;
}

/* The block ends: it extends the run when it has the run's size (within
 * band) and lost nothing, else it starts a new one. */
static void wn_block_close(wn_blocks *u, uint32_t band, pd_time prompt_max, pd_time end_ts)
{
	wn_run *r = &u->cur;
	bool same = r->len && !u->loss && u->bytes + band >= r->ref && u->bytes <= r->ref + band;
	if (!same) {
		wn_run_keep_best(u);
		memset(r, 0, sizeof(*r));
		if (u->loss || !u->bytes)
			return;
		r->ref = u->bytes;
		r->rwnd_min = u->rwnd_min;
		r->first_frame = u->frame;
		r->first_ts = u->ts;
	} else if (u->trans_valid) {
		/* how the block started counts inside a run only */
		r->trans++;
		if (u->lat <= prompt_max) {
			r->prompt++;
			if (u->lat > r->lat_max)
				r->lat_max = u->lat;
		}
	}
	r->len++;
	r->last_ts = end_ts;
	if (u->rwnd_min < r->rwnd_min)
		r->rwnd_min = u->rwnd_min;
}

static void wn_block_open(wn_blocks *u, const pd_packet *pkt, uint32_t rwnd, bool trans_valid, pd_time lat)
{
	u->open = true;
	u->loss = false;
	u->bytes = 0;
	u->rwnd_min = rwnd;
	u->frame = pkt->frame_no;
	u->ts = pkt->ts;
	u->trans_valid = trans_valid;
	u->lat = lat;
}

/* ---------------------------------------------------------------- bins */

static void wn_wr_keep_best(wn_more *d)
{
	if (d->wr_len > d->best_wr_len) {
		d->best_wr_len = d->wr_len;
		d->best_wr_win = d->wr_win;
		d->best_wr_frame = d->wr_frame;
		d->best_wr_ts = d->wr_ts;
	}
}

static void wn_bin_close(wn_more *d)
{
	uint32_t w = d->bin_win, b = d->bin_bytes;
	bool extend = d->wr_len && w && w <= d->wr_win + d->wr_win / 8 && w + w / 8 >= d->wr_win &&
		      b >= w / 2 && (double)(d->wr_bytes + b) >= 0.85 * (double)(d->wr_winsum + w);
	if (extend) {
		d->wr_len++;
		d->wr_bytes += b;
		d->wr_winsum += w;
		return;
	}
	wn_wr_keep_best(d);
	d->wr_len = 0;
	if (w && b >= 0.85 * w && d->bin_frame) {
		d->wr_len = 1;
		d->wr_win = w;
		d->wr_bytes = b;
		d->wr_winsum = w;
		d->wr_frame = d->bin_frame;
		d->wr_ts = d->bin_ts;
	}
}

/* Closes the bins that ended before ts (a long gap breaks the run). */
static void wn_bins_advance(wn_more *d, pd_time ts, uint32_t win)
{
	if (!d || !d->bin_w)
		return;
	for (int n = 0; n < 2 && ts >= d->bin_end; n++) {
		wn_bin_close(d);
		d->bin_end += d->bin_w;
		d->bin_bytes = 0;
		d->bin_win = win;
		d->bin_frame = 0;
	}
	if (ts >= d->bin_end)
		d->bin_end += ((ts - d->bin_end) / d->bin_w + 1) * d->bin_w;
}

/* ---------------------------------------------------------------- per packet */

/* The handshake was captured whole, once, between the hosts: each side's
 * share of the round trip is then known (the server's: SYN to SYN-ACK; the
 * client's: SYN-ACK to handshake ACK). */
static bool wn_mid(const pd_flow *f)
{
	if (pd_flow_vantage(f) >= 0 || !f->syn_frame || !f->synack_frame || !f->hs_ack_frame || f->hs_rtt <= 0)
		return false;
	if (f->half[PD_CLIENT].syn_count > 1 || f->half[PD_SERVER].syn_count > 1)
		return false;
	pd_time srv = f->synack_ts - f->syn_ts, cli = f->hs_ack_ts - f->synack_ts;
	return srv >= f->hs_rtt / 8 && cli >= f->hs_rtt / 8;
}

/* The part of the round trip on sender s's side of the capture point: 0
 * next to s, all of it next to its peer, the handshake's split in between;
 * -1 when it cannot be told. */
static pd_time wn_upstream(const pd_flow *f, int s, int v)
{
	if (v == s)
		return 0;
	if (v == pd_peer(s))
		return pd_flow_rtt(f);
	if (!wn_mid(f))
		return -1;
	return s == PD_SERVER ? f->synack_ts - f->syn_ts : f->hs_ack_ts - f->synack_ts;
}

/* S's new data, once the direction is a transfer: the bins and blocks. */
static void wn_blocks_data(const pd_flow *flow, wn_dir *ds, int dir, const pd_packet *pkt,
			   pd_time prev_data_ts, uint32_t rwnd)
{
	const pd_tcp *t = &pkt->tcp;
	const pd_tcp_half *hr = &flow->half[pd_peer(dir)];
	wn_more *x = ds->x;
	if (x->bin_w) {
		if (!x->bin_frame) {
			x->bin_frame = pkt->frame_no;
			x->bin_ts = pkt->ts;
		}
		x->bin_bytes += t->payload_len;
	}
	/* blocks: new data after a silence in which R acknowledged
	 * (nearly) everything ends the block: all but two segments or half
	 * the block. A sender held by its buffer goes on once ACKs free room,
	 * often before the last (stretch or delayed) ACK of the block; a
	 * congestion window goes on at the first ACK back, with nearly the
	 * whole block still unacknowledged. S had data waiting when the next
	 * block starts as soon as R's latest ACK reaches S: at once at the
	 * sender, one RTT after it at the receiver, in between after the part
	 * of the RTT on the sender's side of the capture point. */
	pd_time base = pd_flow_rtt(flow);
	wn_blocks *b = &x->blocks;
	uint32_t band = pd_flow_mss(flow, dir, true);
	int32_t unacked = hr->ack_valid ? pd_seq_diff(t->seq, hr->last_ack) : -1;
	bool all_acked = unacked >= 0 && ((uint32_t)unacked <= 2 * band || (uint32_t)unacked <= b->bytes / 2);
	pd_time silence = base / 4 > 2 * 1000 * 1000 ? base / 4 : 2 * 1000 * 1000;
	if (b->open && all_acked && prev_data_ts && pkt->ts - prev_data_ts >= silence &&
	    x->ack_adv_ts >= prev_data_ts) {
		int v = pd_flow_vantage(flow);
		pd_time upstream = wn_upstream(flow, dir, v);
		/* in between, both the ACK and the data cross part of the path:
		 * twice its jitter */
		pd_time prompt = v < 0 ? base / 10 : base / 20;
		if (prompt < 2 * 1000 * 1000)
			prompt = 2 * 1000 * 1000;
		wn_block_close(b, band, prompt, prev_data_ts);
		bool valid = base > 0 && upstream >= 0 && !b->peer_spoke;
		pd_time lat = pkt->ts - x->ack_adv_ts - (upstream > 0 ? upstream : 0);
		wn_block_open(b, pkt, rwnd, valid, lat < 0 ? -lat : lat);
		b->peer_spoke = false;
	} else if (!b->open) {
		wn_block_open(b, pkt, rwnd, false, 0);
	}
	b->bytes += t->payload_len;
}

static void wn_as_sender(const pd_flow *flow, wn_flow *st, int dir, const pd_packet *pkt, const pd_seg *seg)
{
	const pd_tcp *t = &pkt->tcp;
	wn_dir *ds = &st->d[dir];
	const pd_tcp_half *hr = &flow->half[pd_peer(dir)];
	uint32_t rwnd = hr->win_known ? hr->win : 0;

	if (seg->flags & PD_SEG_NEW_DATA) {
		pd_time prev_data_ts = ds->last_data_ts;
		if (!ds->data_started) {
			ds->data_started = true;
			ds->first_data_ts = pkt->ts;
			ds->first_data_frame = pkt->frame_no;
			ds->acct_ts = pkt->ts;
		}
		if (!ds->x && flow->half[dir].unique_bytes >= WN_MORE_BYTES) {
			ds->x = pd_mem_new0(PD_MEM_DETECTORS, sizeof(wn_more)); /* once per bulk direction */
			pd_time base = pd_flow_rtt(flow);
			if (base > 0) {
				ds->x->bin_w = base;
				ds->x->bin_end = pkt->ts + base;
				ds->x->bin_win = rwnd;
			}
		}
		ds->last_data_ts = pkt->ts;
		if (ds->idle_pending) {
			/* S had nothing in flight, then sent again: a pause of the
			 * sender when longer than a couple of RTTs, else just the
			 * gap between an ACK and the next write */
			pd_time r2 = 2 * pd_flow_rtt(flow);
			if (ds->peer_spoke)
				; /* request/response: S waited for the peer's next
				   * request, neither S nor the network was the limit */
			else if (ds->idle_pending > r2 && ds->idle_pending > 1000 * 1000)
				ds->t[WN_ST_IDLE] += ds->idle_pending;
			else
				ds->t[WN_ST_OTHER] += ds->idle_pending;
			ds->idle_pending = 0;
		}
		ds->peer_spoke = false;
		/* as receiver of the other direction: data from here during
		 * the peer's idle time is a request the peer then answers */
		wn_dir *dp = &st->d[pd_peer(dir)];
		if (dp->data_started && (dp->idle_pending || dp->state == WN_ST_IDLE))
			dp->peer_spoke = true;

		if (ds->x)
			wn_blocks_data(flow, ds, dir, pkt, prev_data_ts, rwnd);
	}
	if (t->payload_len > 0) {
		/* a retransmission, or a window reduction after an ECN mark:
		 * the congestion window was cut, a flat flight proves nothing */
		if (((seg->flags & PD_SEG_RETRANS) || (t->flags & PD_TCP_CWR)) && ds->x)
			ds->x->blocks.loss = true;
		if (hr->win_known && hr->win_raw > 0 && hr->wscale < 0 && seg->in_flight > 0) {
			double ratio = (double)seg->in_flight / hr->win_raw;
			if (ratio > ds->flight_over_raw)
				ds->flight_over_raw = ratio;
		}
	}
	if (seg->flags & PD_SEG_WIN_FULL) {
		ds->win_full++;
		if (!ds->first_full_frame) {
			ds->first_full_frame = pkt->frame_no;
			ds->first_full_ts = pkt->ts;
		}
	}
	if (ds->zw_active && (seg->flags & (PD_SEG_ZWP | PD_SEG_KEEPALIVE)))
		ds->probes++; /* Linux probes with seq = SND.UNA - 1 and no data */
	if ((seg->flags & (PD_SEG_RETRANS | PD_SEG_OOO)) && t->payload_len > 0 &&
	    !(seg->flags & (PD_SEG_ZWP | PD_SEG_KEEPALIVE))) {
		ds->recovering = true;
		ds->recovery_point = flow->half[dir].next_seq;
	}
}

/* The packet as R = dir, for the data of S = its peer. */
static void wn_as_receiver(const pd_flow *flow, wn_flow *st, int dir, const pd_packet *pkt, const pd_seg *seg)
{
	const pd_tcp *t = &pkt->tcp;
	int s = pd_peer(dir);
	wn_dir *dr = &st->d[s];
	if (seg->rtt > 0 && (!dr->rtt_min || seg->rtt < dr->rtt_min))
		dr->rtt_min = seg->rtt;
	const pd_tcp_half *hr = &flow->half[dir], *hs = &flow->half[s];
	wn_more *x = dr->x;
	if (x && t->payload_len > 0)
		x->blocks.peer_spoke = true;
	if (x && (t->flags & PD_TCP_ECE) && !(t->flags & PD_TCP_SYN))
		x->blocks.loss = true;
	if ((t->flags & (PD_TCP_SYN | PD_TCP_RST)) || !hr->win_known)
		return;
	if (!dr->win_first_set && hr->win > 0) {
		dr->win_first = hr->win;
		dr->win_first_set = true;
	}
	if (hr->win > dr->win_max)
		dr->win_max = hr->win;
	if (!dr->raw_max || hr->win_raw > dr->raw_max)
		dr->raw_max = hr->win_raw;
	if (hr->win_raw && (!dr->raw_min || hr->win_raw < dr->raw_min))
		dr->raw_min = hr->win_raw;
	if (x && hr->win > x->bin_win)
		x->bin_win = hr->win;
	if (x && x->blocks.open && hr->win < x->blocks.rwnd_min)
		x->blocks.rwnd_min = hr->win;
	if (seg->acked > 0) {
		dr->last_ack_adv_ts = pkt->ts;
		if (dr->recovering && pd_seq_le(dr->recovery_point, t->ack))
			dr->recovering = false;
	}
	if (x && (t->flags & PD_TCP_ACK) && seg->acked > 0)
		x->ack_adv_ts = pkt->ts;
	bool sender_pending = hs->seq_valid && hs->unique_bytes > 0;
	if (hr->win == 0 && !dr->zw_active && sender_pending) {
		dr->zw_active = true;
		dr->zw_start = pkt->ts;
		if (!dr->zw_events)
			dr->zw_from_frame = dr->r_last_frame ? dr->r_last_frame : pkt->frame_no;
		if (dr->zw_events < WN_EV)
			dr->zw_ev[dr->zw_events] = (wn_ev){pkt->frame_no, pkt->ts};
		dr->zw_events++;
	} else if (hr->win > 0 && dr->zw_active) {
		pd_time stall = pkt->ts - dr->zw_start;
		dr->zw_active = false;
		dr->zw_total += stall;
		dr->zw_end_frame = pkt->frame_no;
		if (stall > dr->zw_max) {
			dr->zw_max = stall;
			dr->zw_max_frame = pkt->frame_no;
			dr->zw_max_ts = pkt->ts;
			dr->zw_max_open = false;
		}
	}
	dr->r_last_frame = pkt->frame_no;
}

static void wn_on_tcp(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, const pd_seg *seg)
{
	(void)ctx;
	wn_flow *st = fs;
	int dir = seg->dir;

	for (int s = 0; s < 2; s++) {
		wn_account(flow, &st->d[s], s, pkt->ts);
		const pd_tcp_half *hr = &flow->half[pd_peer(s)];
		wn_bins_advance(st->d[s].x, pkt->ts, hr->win_known ? hr->win : 0);
	}
	wn_as_sender(flow, st, dir, pkt, seg);
	wn_as_receiver(flow, st, dir, pkt, seg);

	for (int k = 0; k < 2; k++)
		if (st->d[k].data_started)
			st->d[k].state = wn_state(flow, &st->d[k], k);
}

/* ---------------------------------------------------------------- verdicts */

/* What the report of one direction works from. */
typedef struct wn_fig {
	int s, r, vantage;
	char sname[64], rname[64];
	double rtt_s, T, rate, ceiling, ratio, avg_win;
	double sh_rwnd, sh_zero, sh_loss, sh_idle, sh_other;
	bool rate_ok; /* the window / RTT arithmetic can be trusted */
	bool mid; /* captured between the hosts, the handshake's split known */
	double up_s; /* the part of the RTT on the sender's side of the capture point */
	uint32_t mss;
} wn_fig;

static void wn_metrics(pd_finding *f, const wn_fig *g, const wn_dir *d, const pd_tcp_half *hs)
{
	pd_finding_metric(f, "window_bytes", g->avg_win, PD_UNIT_BYTES, PD_AGG_MAX);
	pd_finding_metric(f, "max_window", d->win_max, PD_UNIT_BYTES, PD_AGG_MAX);
	pd_finding_metric(f, "rtt_ms", g->rtt_s * 1e3, PD_UNIT_MS, PD_AGG_MAX);
	pd_finding_metric(f, "ceiling_rate", g->ceiling, PD_UNIT_BYTES_PER_S, PD_AGG_MAX);
	pd_finding_metric(f, "achieved_rate", g->rate, PD_UNIT_BYTES_PER_S, PD_AGG_MAX);
	pd_finding_metric(f, "achieved_vs_ceiling", g->ratio, PD_UNIT_RATIO, PD_AGG_MAX);
	pd_finding_metric(f, "window_limited_share", g->sh_rwnd, PD_UNIT_RATIO, PD_AGG_MAX);
	pd_finding_metric(f, "zero_window_share", g->sh_zero, PD_UNIT_RATIO, PD_AGG_MAX);
	pd_finding_metric(f, "loss_recovery_share", g->sh_loss, PD_UNIT_RATIO, PD_AGG_MAX);
	pd_finding_metric(f, "sender_idle_share", g->sh_idle, PD_UNIT_RATIO, PD_AGG_MAX);
	pd_finding_metric(f, "other_share", g->sh_other, PD_UNIT_RATIO, PD_AGG_MAX);
	pd_finding_metric(f, "window_full_events", d->win_full, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "max_in_flight", (double)hs->max_in_flight, PD_UNIT_BYTES, PD_AGG_MAX);
	pd_finding_metric(f, "bytes", (double)hs->unique_bytes, PD_UNIT_BYTES, PD_AGG_SUM);
}

/* The clauses every window verdict carries: the rate arithmetic and the
 * time split. */
static void wn_append_figures(pd_finding *f, const wn_fig *g, const wn_dir *d)
{
	if (g->rate_ok)
		pd_finding_append(
			f,
			"; window %.0f bytes (average advertised while sending; max %u) / RTT %.2f "
			"ms = ceiling %.0f bytes/s (%.1f Mbit/s); achieved %.0f bytes/s (%.1f "
			"Mbit/s) = %.0f%% of the ceiling over %.3f s",
			"；窗口 %.0f 字节（发送期间通告窗口的平均值；最大 %u）/ RTT %.2f ms = 上限 %.0f 字节/秒（%.1f Mbit/s）；"
			"实际 %.0f 字节/秒（%.1f Mbit/s），为上限的 %.0f%%，历时 %.3f 秒",
			g->avg_win, d->win_max, g->rtt_s * 1e3, g->ceiling, g->ceiling * 8 / 1e6, g->rate,
			g->rate * 8 / 1e6, g->ratio * 100, g->T);
	else
		pd_finding_append(
			f,
			"; achieved %.0f bytes/s (%.1f Mbit/s) over %.3f s (no rate ceiling: the "
			"RTT is not known well enough)",
			"；实际 %.0f 字节/秒（%.1f Mbit/s），历时 %.3f 秒（RTT 不够可靠，不计算速率上限）",
			g->rate, g->rate * 8 / 1e6, g->T);
	pd_finding_append(
		f,
		"; time at the receiver's window %.0f%%, zero window %.0f%%, loss recovery %.0f%%, "
		"sender idle %.0f%%, other (congestion window or sender) %.0f%%",
		"；受接收窗口限制的时间占 %.0f%%，零窗口 %.0f%%，丢包恢复 %.0f%%，发送端空闲 %.0f%%，其他（拥塞窗口或发送端）%.0f%%",
		g->sh_rwnd * 100, g->sh_zero * 100, g->sh_loss * 100, g->sh_idle * 100, g->sh_other * 100);
	if (g->vantage == g->r) /* the flight is seen whole only at the sender */
		pd_finding_append(
			f,
			" (captured at the receiver, whose ACKs leave at once: the window share is "
			"underestimated here, the rate against the ceiling is the reliable figure)",
			"（在接收端抓包，ACK 即时发出：这里受窗口限制的时间占比偏低，实际速率与上限之比才是可靠的指标）");
}

static void wn_zero_window(pd_ctx *ctx, const pd_flow *flow, const wn_fig *g, wn_dir *d)
{
	double zw_s = (double)d->zw_total / 1e9;
	pd_finding *f = pd_finding_get(ctx, "zero-window", flow);
	for (uint32_t i = 0; i < d->zw_events && i < WN_EV; i++)
		pd_finding_occurrence(f, d->zw_ev[i].frame, d->zw_ev[i].ts, "zero window advertised",
				      "通告零窗口");
	if (d->zw_events > WN_EV)
		pd_finding_count(f, d->zw_events - WN_EV);
	/* A closed window explains the resends and timeouts of data caught in
	 * flight while it was closed, not losses before or after its stalls. */
	if (d->zw_events)
		pd_finding_span(f, d->zw_from_frame, d->zw_end_frame);
	if (d->zw_max_open)
		pd_finding_occurrence(f, d->zw_max_frame, d->zw_max_ts,
				      "window still zero at the flow's last packet", "到这条流的最后一个报文窗口仍为零");
	else
		pd_finding_occurrence(f, d->zw_max_frame, d->zw_max_ts, "window opened after the longest stall",
				      "最长一次停顿后窗口重新打开");
	if (g->r == PD_CLIENT)
		pd_finding_detail(f, "client %s advertised a zero window to the sending server %s",
				  "客户端 %s 向发送数据的服务端 %s 通告了零窗口", g->rname, g->sname);
	else
		pd_finding_detail(f, "server %s advertised a zero window to the sending client %s",
				  "服务端 %s 向发送数据的客户端 %s 通告了零窗口", g->rname, g->sname);
	if (d->zw_events == 1)
		pd_finding_append(f, " once", "，共 1 次");
	else
		pd_finding_append(f, " %u times", "，共 %u 次", d->zw_events);
	pd_finding_append(
		f,
		"; the sender stood still %.3f s in all (longest %.3f s, ",
		"；发送端总共停顿 %.3f 秒（最长 %.3f 秒，", zw_s, (double)d->zw_max / 1e9);
	if (d->zw_max_open)
		pd_finding_append(f, "still going at frame %llu, the flow's last: the window never reopened",
				  "到这条流的最后一帧（第 %llu 帧）仍未结束：窗口一直没有重新打开",
				  (unsigned long long)d->zw_max_frame);
	else
		pd_finding_append(f, "ending at frame %llu", "于第 %llu 帧结束", (unsigned long long)d->zw_max_frame);
	pd_finding_append(
		f,
		") and sent %u window probes; %u window-full events. The receiving application did not "
		"read fast enough (or its buffer is tiny: largest window advertised %u bytes).",
		"），发送了 %u 个窗口探测；窗口填满 %u 次。接收端应用读取不够快（或其缓冲区很小："
		"通告过的最大窗口为 %u 字节）。",
		d->probes, d->win_full, d->win_max);
	pd_finding_metric(f, "zero_window_events", d->zw_events, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "zero_window_stall", zw_s, PD_UNIT_S, PD_AGG_SUM);
	pd_finding_metric(f, "longest_stall", (double)d->zw_max / 1e9, PD_UNIT_S, PD_AGG_MAX);
	pd_finding_metric(f, "window_probes", d->probes, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "window_full_events", d->win_full, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "max_window", d->win_max, PD_UNIT_BYTES, PD_AGG_MAX);
	if (g->T > 0)
		pd_finding_metric(f, "stall_share", zw_s / g->T > 1 ? 1 : zw_s / g->T, PD_UNIT_RATIO,
				  PD_AGG_MAX);
	pd_finding_add_impact(f, zw_s);
	/* Repeated zero windows are a warning only when the sender's wait
	 * matters: a tenth of a second, or 1 % of the transfer. A receiver
	 * that closes and reopens its window within milliseconds (5 times,
	 * 6 ms in 4.5 s in one public trace) is noted, not warned about. */
	bool costly = zw_s >= 0.1 || (d->zw_events >= 3 && (g->T <= 0 || zw_s >= 0.01 * g->T));
	pd_finding_set_severity(f, costly ? PD_SEV_WARNING : PD_SEV_INFO);
	pd_finding_set_confidence(f, 0.9);
	pd_finding_settings(f, "slow-reading application", "SO_RCVBUF", "net.ipv4.tcp_rmem",
			    "net.core.rmem_max", NULL);
}

/* Without the handshake the scale is unknown: say what is known instead
 * of a window verdict. */
static void wn_scale_unknown(pd_ctx *ctx, const pd_flow *flow, const wn_fig *g, const wn_dir *d)
{
	pd_finding *f = pd_finding_get(ctx, "window-scale-unknown", flow);
	pd_finding_occurrence(f, d->first_data_frame, d->first_data_ts, "first data segment captured",
			      "抓到的第一个数据报文");
	pd_finding_detail(
		f,
		"The capture holds no SYN and SYN-ACK of this connection, so the window scale %s "
		"announced is unknown: its raw window field was %u to %u",
		"抓包中没有这条连接的 SYN 和 SYN-ACK，因此 %s 通告的窗口扩大因子未知：它的原始窗口字段在 %u 到 %u 之间",
		g->rname, d->raw_min, d->raw_max);
	int shift = 0;
	while (shift < 14 && (double)(1u << shift) < d->flight_over_raw)
		shift++;
	if (shift > 0)
		pd_finding_append(
			f,
			"; %s had up to %.0f times the raw window in flight, so the window is at "
			"least the raw value x 2^%d",
			"；%s 的在途数据最多达到原始窗口值的 %.0f 倍，所以实际窗口至少是原始值 × 2^%d",
			g->sname, d->flight_over_raw, shift);
	pd_finding_append(f, ". No window-size verdict is drawn for this flow (%llu bytes sent).",
			  "。不对这条流的窗口大小下结论（已发送 %llu 字节）。",
			  (unsigned long long)flow->half[g->s].unique_bytes);
	pd_finding_metric(f, "raw_window_min", d->raw_min, PD_UNIT_COUNT, PD_AGG_MIN);
	pd_finding_metric(f, "raw_window_max", d->raw_max, PD_UNIT_COUNT, PD_AGG_MAX);
	pd_finding_metric(f, "min_window_shift", shift, PD_UNIT_COUNT, PD_AGG_MAX);
	pd_finding_set_severity(f, PD_SEV_INFO);
	pd_finding_set_confidence(f, 1.0);
}

static void wn_report(pd_ctx *ctx, const pd_flow *flow, wn_dir *d, int s)
{
	wn_fig g = {.s = s, .r = pd_peer(s)};
	int r = g.r;
	const pd_tcp_half *hs = &flow->half[s], *hr = &flow->half[r];
	g.rtt_s = (double)pd_flow_rtt(flow) / 1e9;
	g.vantage = pd_flow_vantage(flow);
	g.mss = pd_flow_mss(flow, s, true);
	/* Next to the sender every data->ACK sample spans the whole path, and
	 * the smallest is a better base RTT than the single handshake sample
	 * (which a first-packet delay, e.g. a neighbour lookup, can inflate).
	 * Elsewhere the samples cover only part of the path. */
	if (d->rtt_min > 0 && g.vantage == s && (double)d->rtt_min / 1e9 < g.rtt_s)
		g.rtt_s = (double)d->rtt_min / 1e9;
	g.mid = g.vantage < 0 && wn_mid(flow);
	if (g.mid)
		g.up_s = (double)wn_upstream(flow, s, g.vantage) / 1e9;

	/* a stall still open at the end of the flow counts up to its last packet */
	if (d->zw_active) {
		pd_time stall = flow->last_ts - d->zw_start;
		d->zw_total += stall;
		d->zw_end_frame = flow->last_frame;
		if (stall > d->zw_max) {
			d->zw_max = stall;
			d->zw_max_frame = flow->last_frame;
			d->zw_max_ts = flow->last_ts;
			d->zw_max_open = true;
		}
		d->zw_active = false;
	}
	static const wn_more none;
	wn_more *x = d->x ? d->x : (wn_more *)&none;
	if (d->x) {
		wn_run_keep_best(&x->blocks);
		wn_wr_keep_best(x); /* the partial last bin is left out */
	}

	pd_time end = d->last_ack_adv_ts > d->last_data_ts ? d->last_ack_adv_ts : d->last_data_ts;
	g.T = (double)(end - d->first_data_ts) / 1e9;
	if (g.T < 0)
		g.T = 0;
	double acct = 0;
	for (int i = 1; i < WN_ST__N; i++)
		acct += (double)d->t[i] / 1e9;
	if (acct > 0) {
		g.sh_rwnd = (double)d->t[WN_ST_RWND] / 1e9 / acct;
		g.sh_zero = (double)d->t[WN_ST_ZERO] / 1e9 / acct;
		g.sh_loss = (double)d->t[WN_ST_LOSS] / 1e9 / acct;
		g.sh_idle = (double)d->t[WN_ST_IDLE] / 1e9 / acct;
		g.sh_other = (double)d->t[WN_ST_OTHER] / 1e9 / acct;
	}
	g.avg_win = d->win_time > 0 ? d->win_integral / ((double)d->win_time / 1e9) : d->win_max;
	g.rate = g.T > 0 ? (double)hs->unique_bytes / g.T : 0;
	g.ceiling = g.rtt_s > 0 ? g.avg_win / g.rtt_s : 0;
	g.ratio = g.ceiling > 0 ? g.rate / g.ceiling : 0;
	/* An achieved rate well above window / RTT means the window or the
	 * RTT is not what it seems (an unknown scale, a local turn-around
	 * taken for the path): no rate arithmetic then. */
	g.rate_ok = g.rtt_s > 0 && g.ceiling > 0 && g.ratio <= 1.5;
	if (!g.rate_ok)
		g.ratio = 0;
	bool bulk = hs->unique_bytes >= WN_BULK_BYTES && g.rtt_s > 0 && g.T >= 4 * g.rtt_s;
	/* the scale applies once both SYNs were seen */
	bool scale_known = hr->wscale >= 0;

	bool noscale = hs->syn_seen && hr->syn_seen && (hs->wscale_offered < 0 || hr->wscale_offered < 0);
	bool at_cap = noscale && (d->win_max >= 60000 || hs->max_in_flight >= 60000);
	bool plateau = x->best_wr_len >= WN_WINDOW_ROUNDS;
	bool rwnd_limited = scale_known && (g.sh_rwnd >= 0.5 || g.ratio >= 0.7 || plateau);
	bool reader_bound = (double)d->zw_total / 1e9 >= 0.3 * g.T;
	/* the receiver drained its buffer quickly (window mostly near its max)
	 * yet never grew it; a window that mostly sat shrunk is a slow reader */
	bool shrunk = g.avg_win < 0.6 * d->win_max;
	/* Which receive buffer: a window that grew well past the first one
	 * and then stopped is autotuning at net.ipv4.tcp_rmem's maximum; one
	 * that never grew is a buffer fixed before the handshake (SO_RCVBUF,
	 * capped by net.core.rmem_max), or autotuning switched off. */
	bool grew = d->win_first_set && (double)d->win_max >= WN_GREW_FACTOR * d->win_first;
	bool never_grew = d->win_first_set && !grew;
	bool fixed = never_grew && d->win_max < (1u << 20) && !at_cap && !shrunk &&
		     (g.T >= 10 * g.rtt_s || plateau);
	bool rmemmax_cap = never_grew && hr->wscale_offered == WN_RMEMMAX_WSCALE &&
			   d->win_max >= WN_RMEMMAX_WIN_LO && d->win_max <= WN_RMEMMAX_WIN_HI;
	/* The window scale in R's SYN tells a buffer locked before the
	 * handshake from one autotuning could not grow. Linux derives the
	 * scale from the buffer it has then (tcp_select_initial_window, from
	 * tcp_connect_init and tcp_openreq_init_rwin): a buffer locked by
	 * SO_RCVBUF clamps it to that buffer's window space, log2(space) - 15,
	 * while an unlocked socket takes max(tcp_rmem max, net.core.rmem_max).
	 * The window a locked buffer later allows is about that space (half
	 * to two thirds of the buffer, as at SYN time), so a locked buffer
	 * gives at most one more than log2(largest window) - 15. A window that
	 * never grew under a larger scale was not locked before the handshake:
	 * autotuning stopped at a tcp_rmem maximum no larger than the buffer it
	 * started with (or tcp_moderate_rcvbuf=0). Only for a Linux (or
	 * unrecognised) receiver: other stacks choose their scale otherwise. */
	int locked_scale = wn_log2(d->win_max) - 15;
	if (locked_scale < 0)
		locked_scale = 0;
	bool unlocked = never_grew && !rmemmax_cap && hr->wscale_offered > locked_scale + 1 &&
			hr->os != PD_OS_WINDOWS && hr->os != PD_OS_APPLE;

	/* The send buffer: S's data in blocks of one size round trip after
	 * round trip, each starting as soon as the ACK of the previous one
	 * reached S, R's window well above, nothing lost. A flight pinned
	 * without silences between the blocks looks the same as a path or a
	 * pacing rate limit and is not judged. In the middle of the path the
	 * time the ACK takes to reach S is the handshake's share of the RTT on
	 * S's side, and the round trip is the handshake's whole one (data/ACK
	 * samples taken there span only the receiver's side): the blocks must
	 * come one such RTT apart, so the rate is the block / RTT. Elsewhere
	 * without a handshake that time is unknown. */
	const wn_run *pin = g.vantage == s || g.vantage == r || g.mid ? &x->blocks.best : NULL;
	bool pinned = pin && pin->len >= WN_PINNED_ROUNDS && pin->ref >= 8 * g.mss && pin->trans >= 5 &&
		      pin->prompt * 5 >= pin->trans * 4 && pin->rwnd_min >= pin->ref + 2 * g.mss &&
		      pin->rwnd_min >= pin->ref + pin->ref / 4;
	double round_s = 0;
	if (pinned && g.mid) {
		round_s = (double)(pin->last_ts - pin->first_ts) / 1e9 / (pin->len - 1);
		pinned = round_s >= 0.8 * g.rtt_s && round_s <= 1.25 * g.rtt_s;
	}
	bool sender_limited = pinned && !rwnd_limited && !reader_bound && d->zw_events == 0;

	bool window_verdict = scale_known && ((at_cap && rwnd_limited) || (rwnd_limited && !reader_bound) ||
					      (fixed && (rwnd_limited || reader_bound)));
	bulk = bulk && (window_verdict || sender_limited ||
			(!scale_known && hs->unique_bytes >= WN_BULK_BYTES && d->win_first_set));
	/* Nearly every flow ends without a finding: print nothing for those. */
	if (!d->zw_events && !bulk)
		return;
	pd_flow_endpoint(flow, s, g.sname, sizeof(g.sname));
	pd_flow_endpoint(flow, r, g.rname, sizeof(g.rname));

	if (d->zw_events > 0)
		wn_zero_window(ctx, flow, &g, d);
	if (!bulk)
		return;
	if (!scale_known) {
		wn_scale_unknown(ctx, flow, &g, d);
		return;
	}

	if (at_cap && rwnd_limited) {
		pd_finding *f = pd_finding_get(ctx, "window-scaling-disabled", flow);
		/* a server may only echo the option: a client SYN without it decides */
		const pd_tcp_half *hc = &flow->half[PD_CLIENT];
		if (hc->wscale_offered < 0 && s == PD_CLIENT)
			pd_finding_detail(
				f,
				"Window scaling was not negotiated (the client's SYN, sent by the "
				"data sender, had no window-scale option, so the server could not "
				"use it either), so server %s can never advertise more than 65535 "
				"bytes",
				"没有协商窗口扩大（发送数据的客户端在 SYN 中没有带窗口扩大选项，服务端因此也无法使用），所以服务端 %s "
				"通告的窗口永远不会超过 65535 字节",
				g.rname);
		else if (hc->wscale_offered < 0)
			pd_finding_detail(
				f,
				"Window scaling was not negotiated (the client's SYN, sent by the "
				"data receiver, had no window-scale option, so the server could "
				"not use it either), so client %s can never advertise more than "
				"65535 bytes",
				"没有协商窗口扩大（接收数据的客户端在 SYN 中没有带窗口扩大选项，服务端因此也无法使用），所以客户端 %s "
				"通告的窗口永远不会超过 65535 字节",
				g.rname);
		else if (s == PD_CLIENT)
			pd_finding_detail(
				f,
				"Window scaling was not negotiated (the server's SYN-ACK, sent by "
				"the data receiver, declined the client's window-scale option), so "
				"server %s can never advertise more than 65535 bytes",
				"没有协商窗口扩大（接收数据的服务端在 SYN-ACK 中拒绝了客户端的窗口扩大选项），所以服务端 %s 通告的窗口永远不会超过 "
				"65535 字节",
				g.rname);
		else
			pd_finding_detail(
				f,
				"Window scaling was not negotiated (the server's SYN-ACK, sent by "
				"the data sender, declined the client's window-scale option), so "
				"client %s can never advertise more than 65535 bytes",
				"没有协商窗口扩大（发送数据的服务端在 SYN-ACK 中拒绝了客户端的窗口扩大选项），所以客户端 %s 通告的窗口永远不会超过 "
				"65535 字节",
				g.rname);
		pd_finding_append(f, "; the transfer of %llu bytes from %s sat at that cap",
				  "；%2$s 发送的 %1$llu 字节一直卡在这个上限",
				  (unsigned long long)hs->unique_bytes, g.sname);
		wn_append_figures(f, &g, d);
		if (g.rate_ok)
			pd_finding_append(
				f,
				". To fill this path at the achieved rate x 4 the window would need "
				"%.0f bytes.",
				"。要以实际速率的 4 倍填满这条路径，窗口需要 %.0f 字节。",
				g.rate * 4 * g.rtt_s);
		else
			pd_finding_append(f, ".", "。");
		wn_metrics(f, &g, d, hs);
		pd_finding_metric(f, "window_cap", WN_NOSCALE_CAP, PD_UNIT_BYTES, PD_AGG_MAX);
		if (d->first_full_frame)
			pd_finding_occurrence(f, d->first_full_frame, d->first_full_ts,
					      "flight reaches the 64 KiB window", "在途数据达到 64 KiB 窗口");
		else
			pd_finding_occurrence(f, d->first_data_frame, d->first_data_ts,
					      "bulk transfer starts", "批量传输开始");
		pd_finding_count(f, d->win_full > 1 ? d->win_full - 1 : 0);
		pd_finding_set_severity(f, PD_SEV_WARNING);
		pd_finding_set_confidence(f, 0.85);
		/* syncookies only strip the option from a SYN-ACK answering a SYN
		 * that offered it; a client SYN without it is the client's setting
		 * (or a middlebox stripping it). Not SO_RCVBUF: a small buffer only
		 * lowers the shift, Linux still sends the option */
		if (hc->wscale_offered < 0)
			pd_finding_settings(f, "net.ipv4.tcp_window_scaling", NULL);
		else
			pd_finding_settings(f, "net.ipv4.tcp_window_scaling", "net.ipv4.tcp_syncookies",
					    NULL);
		return;
	}

	if (rwnd_limited && !reader_bound) {
		pd_finding *f = pd_finding_get(ctx, "window-limited", flow);
		pd_finding_detail(f, "%s sent %llu bytes to %s limited by the receive window",
				  "%1$s 向 %3$s 发送 %2$llu 字节，"
				  "受接收窗口限制",
				  g.sname, (unsigned long long)hs->unique_bytes, g.rname);
		if (plateau)
			pd_finding_append(
				f,
				"; for %u round trips in a row from frame %llu the sender "
				"delivered the same whole window of %u bytes per RTT",
				"；从第 %2$llu 帧起连续 %1$u 个往返，发送端每个 RTT 都发满同一个 %3$u 字节的窗口",
				x->best_wr_len, (unsigned long long)x->best_wr_frame, x->best_wr_win);
		wn_append_figures(f, &g, d);
		if (shrunk)
			pd_finding_append(
				f,
				". The advertised window mostly sat well below its maximum: the "
				"receiving application did not keep up (reading slowly), the "
				"buffer size is secondary.",
				"。通告窗口大部分时间远低于其最大值：接收端应用跟不上（读取慢），缓冲区大小是次要的。");
		else if (rmemmax_cap)
			pd_finding_append(
				f,
				". The window never grew (%u at the start, %u at most) and matches "
				"a receive buffer of 2 x 212992 bytes (window scale 2 in the SYN): "
				"an SO_RCVBUF request capped by net.core.rmem_max's long-time "
				"default.",
				"。窗口从未增长（开始时 %u，最大 %u），与 2 × 212992 字节的接收缓冲区相符（SYN 中窗口扩大因子为 2）："
				"SO_RCVBUF 的请求被 net.core.rmem_max 的长期默认值截断了。",
				d->win_first, d->win_max);
		else if (unlocked)
			pd_finding_append(
				f,
				". The window never grew (%u at the start, %u at most), yet %s's %s "
				"announced window scale %d, more than a buffer locked before the "
				"handshake gives (Linux derives the scale from a locked SO_RCVBUF "
				"buffer, which for this window gives %d or %d; an autotuned socket "
				"takes it from the larger of the net.ipv4.tcp_rmem maximum and "
				"net.core.rmem_max): receive-buffer autotuning could not grow the "
				"buffer, because the net.ipv4.tcp_rmem maximum (third value) is no "
				"larger than its default (second value) or tcp_moderate_rcvbuf=0 "
				"(an SO_RCVBUF set only after the handshake looks the same).",
				"。窗口从未增长（开始时 %1$u，最大 %2$u），但 %3$s 的 %4$s 通告的窗口扩大因子为 %5$d，"
				"大于握手前锁定的缓冲区所能给出的值（Linux 根据锁定的 SO_RCVBUF 缓冲区计算扩大因子，"
				"对这个窗口应为 %6$d 或 %7$d；自动调节的套接字则按 net.ipv4.tcp_rmem 最大值与 "
				"net.core.rmem_max 中较大者计算）：接收缓冲区自动调节无法增大缓冲区，原因是 "
				"net.ipv4.tcp_rmem 的最大值（第三个值）不大于其默认值（第二个值），或 "
				"tcp_moderate_rcvbuf=0（握手之后才设置的 SO_RCVBUF 看起来也一样）。",
				d->win_first, d->win_max, g.rname, r == PD_CLIENT ? "SYN" : "SYN-ACK",
				(int)hr->wscale_offered, locked_scale, locked_scale + 1);
		else if (never_grew)
			pd_finding_append(
				f,
				". The window never grew (%u at the start, %u at most; window "
				"scale %d in the SYN): a receive buffer fixed before the handshake "
				"(SO_RCVBUF), not autotuning.",
				"。窗口从未增长（开始时 %u，最大 %u；SYN 中窗口扩大因子为 %d）：这是握手前就固定的接收缓冲区（SO_RCVBUF），"
				"而不是自动调节。",
				d->win_first, d->win_max, (int)hr->wscale_offered);
		else if (grew)
			pd_finding_append(
				f,
				". The window grew from %u to %u bytes, then stopped: "
				"receive-buffer autotuning reached its maximum (net.ipv4.tcp_rmem, "
				"third value).",
				"。窗口从 %u 增长到 %u 字节后停止增长：接收缓冲区自动调节到达了上限（net.ipv4.tcp_rmem 的第三个值）。",
				d->win_first, d->win_max);
		else
			pd_finding_append(f, ".", "。");
		pd_finding_append(f,
				  " Throughput cannot exceed window / RTT; a window of bandwidth x RTT is "
				  "needed to fill the path.",
				  "吞吐量不可能超过窗口 / RTT；要填满路径，窗口需要达到带宽 × RTT。");
		wn_metrics(f, &g, d, hs);
		if (plateau)
			pd_finding_metric(f, "window_limited_rounds", x->best_wr_len, PD_UNIT_COUNT,
					  PD_AGG_MAX);
		if (d->first_full_frame)
			pd_finding_occurrence(f, d->first_full_frame, d->first_full_ts,
					      "flight fills the receive window", "在途数据填满接收窗口");
		else if (plateau)
			pd_finding_occurrence(f, x->best_wr_frame, x->best_wr_ts,
					      "first round trip that delivers a whole window",
					      "第一个发满整个窗口的往返");
		else
			pd_finding_occurrence(f, d->first_data_frame, d->first_data_ts,
					      "bulk transfer starts", "批量传输开始");
		pd_finding_count(f, d->win_full > 1 ? d->win_full - 1 : 0);
		pd_finding_set_severity(f, PD_SEV_WARNING);
		pd_finding_set_confidence(f, (g.sh_rwnd >= 0.5 && g.ratio >= 0.7) || plateau ? 0.9 : 0.7);
		if (shrunk)
			pd_finding_settings(f, "slow-reading application", "SO_RCVBUF", "net.ipv4.tcp_rmem",
					    "net.core.rmem_max", NULL);
		else if (rmemmax_cap)
			pd_finding_settings(f, "net.core.rmem_max", "SO_RCVBUF", "net.ipv4.tcp_rmem",
					    "net.ipv4.tcp_moderate_rcvbuf", NULL);
		else if (unlocked)
			pd_finding_settings(f, "net.ipv4.tcp_rmem", "net.ipv4.tcp_moderate_rcvbuf", "SO_RCVBUF",
					    NULL);
		else if (never_grew)
			pd_finding_settings(f, "SO_RCVBUF", "net.core.rmem_max",
					    "net.ipv4.tcp_moderate_rcvbuf", "net.ipv4.tcp_rmem",
					    "slow-reading application", NULL);
		else if (grew)
			pd_finding_settings(f, "net.ipv4.tcp_rmem", "net.ipv4.tcp_mem", "SO_RCVBUF",
					    "slow-reading application", NULL);
		else
			pd_finding_settings(f, "net.ipv4.tcp_rmem", "net.core.rmem_max", "SO_RCVBUF",
					    "net.ipv4.tcp_moderate_rcvbuf", "net.ipv4.tcp_window_scaling",
					    "slow-reading application", NULL);
	}

	if (fixed && (rwnd_limited || reader_bound)) {
		pd_finding *f = pd_finding_get(ctx, "receive-window-fixed", flow);
		pd_finding_detail(
			f,
			"%s never advertised more than %u bytes (%u at the start) during the whole "
			"%.3f s transfer (%llu bytes, about %.0f RTTs); window scale %d in its SYN",
			"%1$s 在整个 %4$.3f 秒的传输过程中（%5$llu 字节，约 %6$.0f 个 RTT）通告的窗口从未超过 %2$u 字节（开始时 "
			"%3$u）；其 SYN 中的窗口扩大因子为 %7$d",
			g.rname, d->win_max, d->win_first, g.T, (unsigned long long)hs->unique_bytes,
			g.rtt_s > 0 ? g.T / g.rtt_s : 0, (int)hr->wscale_offered);
		if (d->zw_events)
			pd_finding_append(f, "; it fell to 0 in %u zero-window episodes",
					  "；其间 %u 次降到 0（零窗口）", d->zw_events);
		wn_append_figures(f, &g, d);
		if (rmemmax_cap)
			pd_finding_append(
				f,
				". That is the buffer an SO_RCVBUF request gets when "
				"net.core.rmem_max caps it at its long-time default 212992 "
				"(doubled: 425984 bytes, window scale 2).",
				"。这正是 SO_RCVBUF 请求被 net.core.rmem_max 的长期默认值 212992 截断后得到的缓冲区（翻倍后 "
				"425984 字节，窗口扩大因子 2）。");
		else if (unlocked)
			pd_finding_append(
				f,
				". Receive-buffer autotuning did not grow the buffer, yet the window "
				"scale is larger than a buffer locked before the handshake gives "
				"(%d or %d for this window): not an SO_RCVBUF set before connecting "
				"but a net.ipv4.tcp_rmem maximum no larger than its default, or "
				"tcp_moderate_rcvbuf=0.",
				"。接收缓冲区自动调节没有增大缓冲区，但窗口扩大因子大于握手前锁定的缓冲区所能给出的值（对这个窗口应为 %d 或 "
				"%d）：不是连接前设置的 SO_RCVBUF，而是 net.ipv4.tcp_rmem 的最大值不大于其默认值，或 "
				"tcp_moderate_rcvbuf=0。",
				locked_scale, locked_scale + 1);
		else
			pd_finding_append(
				f,
				". Receive-buffer autotuning did not act, typically because the "
				"application set SO_RCVBUF before connecting (a small window scale "
				"in the SYN says so) or tcp_moderate_rcvbuf=0.",
				"。接收缓冲区自动调节没有起作用，通常是应用在建立连接前设置了 SO_RCVBUF（SYN 中较小的窗口扩大因子可以印证），或 "
				"tcp_moderate_rcvbuf=0。");

		wn_metrics(f, &g, d, hs);
		pd_finding_occurrence(f, d->first_data_frame, d->first_data_ts, "bulk transfer starts",
				      "批量传输开始");
		pd_finding_set_severity(f, rwnd_limited && !reader_bound ? PD_SEV_WARNING : PD_SEV_INFO);
		pd_finding_set_confidence(f, 0.7);
		if (rmemmax_cap)
			pd_finding_settings(f, "net.core.rmem_max", "SO_RCVBUF",
					    "net.ipv4.tcp_moderate_rcvbuf", "net.ipv4.tcp_rmem", NULL);
		else if (unlocked)
			pd_finding_settings(f, "net.ipv4.tcp_rmem", "net.ipv4.tcp_moderate_rcvbuf", "SO_RCVBUF",
					    NULL);
		else
			pd_finding_settings(f, "SO_RCVBUF", "net.ipv4.tcp_moderate_rcvbuf",
					    "net.ipv4.tcp_rmem", "net.core.rmem_max", NULL);
	}

	if (sender_limited) {
		pd_finding *f = pd_finding_get(ctx, "sender-limited", flow);
		double run_s = (double)(pin->last_ts - pin->first_ts) / 1e9;
		double pin_rate = g.rtt_s > 0 ? pin->ref / g.rtt_s : 0;
		pd_finding_detail(
			f,
			"%s kept its flight pinned at %u bytes for %u round trips in a row (from "
			"frame %llu, over %.3f s) although %s's window allowed at least %u bytes "
			"and nothing was lost",
			"%1$s 的在途数据连续 %3$u 个往返固定在 %2$u 字节（从第 %4$llu 帧起，历时 %5$.3f 秒），而 %6$s 的窗口至少允许 "
			"%7$u 字节，且没有丢包",
			g.sname, pin->ref, pin->len, (unsigned long long)pin->first_frame, run_s, g.rname,
			pin->rwnd_min);
		if (g.mid)
			pd_finding_append(
				f,
				"; seen between the hosts (the handshake puts %.2f ms of the %.2f "
				"ms RTT on the sender's side of this point), its data passed here in "
				"blocks %.2f ms apart, each within %.2f ms of that sender-side time "
				"after the receiver's ACK of the previous block (%u of %u times): "
				"the sender had data waiting and sent as soon as the ACK freed "
				"buffer space (the RTT below is the handshake's whole round trip: "
				"data/ACK samples taken here span only the %.2f ms on the "
				"receiver's side)",
				"；抓包点位于两台主机之间（握手显示 %2$.2f ms 的 RTT 中有 %1$.2f ms 在发送端一侧），"
				"数据按块经过这里，块间隔 %3$.2f ms，在 %6$u 次中有 %5$u 次是在接收端确认上一块之后、"
				"恰好经过发送端一侧的时间（误差 %4$.2f ms 以内）到达的：发送端有数据在等待，ACK "
				"一释放缓冲区空间就立即发送（下面的 RTT 是握手测得的整个往返：在这里取的数据/ACK "
				"样本只覆盖接收端一侧的 %7$.2f ms）",
				g.up_s * 1e3, g.rtt_s * 1e3, round_s * 1e3, (double)pin->lat_max / 1e6, pin->prompt,
				pin->trans, (g.rtt_s - g.up_s) * 1e3);
		else if (g.vantage == s)
			pd_finding_append(
				f,
				"; it sent again within %.2f ms of the ACK that freed space in %u "
				"of %u round trips: it had data waiting, the buffer it writes into "
				"was full",
				"；在 %3$u 个往返中有 %2$u 次在释放空间的 ACK 到达后 %1$.2f ms 内就继续发送：它有数据在等待，"
				"是它写入的缓冲区满了",
				(double)pin->lat_max / 1e6, pin->prompt, pin->trans);
		else
			pd_finding_append(
				f,
				"; its data came in blocks one round trip apart, each starting "
				"within %.2f ms of one RTT after the receiver's ACK of the "
				"previous block (%u of %u times): the sender had data waiting and "
				"sent as soon as the ACK freed buffer space",
				"；数据按块到达，每块间隔一个往返，在 %3$u 次中有 %2$u 次是在接收端确认上一块之后恰好一个 RTT（误差 %1$.2f "
				"ms 以内）开始的：发送端有数据在等待，ACK 一释放缓冲区空间就立即发送",
				(double)pin->lat_max / 1e6, pin->prompt, pin->trans);
		if (pin_rate > 0)
			pd_finding_append(
				f,
				". A congestion window would have grown without loss; a send "
				"buffer (SO_SNDBUF or net.ipv4.tcp_wmem, or TCP_NOTSENT_LOWAT) "
				"holding about %u bytes caps the rate at %u bytes / RTT %.2f ms = "
				"%.1f Mbit/s; achieved %.1f Mbit/s.",
				"。如果是拥塞窗口，在没有丢包的情况下它会增长；是发送缓冲区（SO_SNDBUF 或 net.ipv4.tcp_wmem，或 "
				"TCP_NOTSENT_LOWAT）只容纳约 %u 字节，把速率限制在 %u 字节 / RTT %.2f ms = %.1f "
				"Mbit/s；实际 %.1f Mbit/s。",
				pin->ref, pin->ref, g.rtt_s * 1e3, pin_rate * 8 / 1e6, g.rate * 8 / 1e6);
		else
			pd_finding_append(f, ".", "。");
		wn_metrics(f, &g, d, hs);
		pd_finding_metric(f, "pinned_flight", pin->ref, PD_UNIT_BYTES, PD_AGG_MAX);
		pd_finding_metric(f, "pinned_rounds", pin->len, PD_UNIT_COUNT, PD_AGG_MAX);
		pd_finding_metric(f, "window_room", pin->rwnd_min, PD_UNIT_BYTES, PD_AGG_MIN);
		pd_finding_metric(f, "prompt_resumes", pin->prompt, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "resumes", pin->trans, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "longest_prompt_resume_ms", (double)pin->lat_max / 1e6, PD_UNIT_MS,
				  PD_AGG_MAX);
		if (pin_rate > 0)
			pd_finding_metric(f, "pinned_rate", pin_rate, PD_UNIT_BYTES_PER_S, PD_AGG_MAX);
		if (g.mid) {
			pd_finding_metric(f, "sender_side_rtt_ms", g.up_s * 1e3, PD_UNIT_MS, PD_AGG_MAX);
			pd_finding_metric(f, "round_ms", round_s * 1e3, PD_UNIT_MS, PD_AGG_MAX);
		}
		pd_finding_occurrence(f, pin->first_frame, pin->first_ts, "flight pinned from here",
				      "在途数据从这里开始固定");
		/* a warning when the window allowed twice the flight for most of
		 * the transfer, or three times at its largest while the whole
		 * transfer went no faster than the pinned rate: the sender ran at
		 * half the speed it could have */
		bool costly = (pin->rwnd_min >= 2 * pin->ref && run_s >= 0.5 * g.T) ||
			      (d->win_max >= 3 * pin->ref && pin_rate > 0 && g.rate <= 1.25 * pin_rate);
		pd_finding_set_severity(f, costly ? PD_SEV_WARNING : PD_SEV_INFO);
		pd_finding_set_confidence(f, costly ? 0.8 : 0.65);
		pd_finding_settings(f, "SO_SNDBUF", "net.ipv4.tcp_wmem", "net.core.wmem_max",
				    "TCP_NOTSENT_LOWAT", "net.ipv4.tcp_notsent_lowat", NULL);
	}
}

static void wn_on_flow_end(pd_ctx *ctx, void *g, const pd_flow *flow, void *fs)
{
	(void)g;
	wn_flow *st = fs;
	for (int s = 0; s < 2; s++) {
		if (st->d[s].data_started && flow->proto == 6)
			wn_report(ctx, flow, &st->d[s], s);
		pd_mem_free(PD_MEM_DETECTORS, st->d[s].x);
		st->d[s].x = NULL;
	}
}

static const char *const wn_emits[] = {"zero-window",
				       "window-limited",
				       "window-scaling-disabled",
				       "receive-window-fixed",
				       "sender-limited",
				       "window-scale-unknown",
				       NULL};

const pd_detector pd_det_window = {
	.name = "window",
	.emits = wn_emits,
	.from_payload = true,
	.flow_state_size = sizeof(wn_flow),
	.on_tcp = wn_on_tcp,
	.on_flow_end = wn_on_flow_end,
};
