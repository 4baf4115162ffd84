/* Receive-window problems: zero windows (with persist probes and the time
 * the sender stood still), window-full events, how much of a bulk transfer
 * ran with the flight pinned at the receiver's window, window scaling not
 * negotiated, and a receive window that never grew.
 *
 * For every data direction (sender S, receiver R) the time between packets
 * is attributed to what limited S at that moment: R's window (the flight
 * plus one MSS no longer fits), loss recovery, S having nothing in flight
 * (idle, counted only if S sends again later) or something else (congestion
 * window or the sender itself). That split is exact on a capture taken at
 * the sender and underestimates the window share elsewhere, so the window
 * verdict also uses a vantage-independent test: the achieved rate against
 * the ceiling window / RTT (T-RAT's receiver-window class). */
#include <stdio.h>
#include <string.h>

#include "heuristics/detector.h"
#include "heuristics/util.h"

#define WN_BULK_BYTES (100 * 1000) /* one-way bytes that make a flow "bulk" */
#define WN_NOSCALE_CAP 65535u

enum { WN_ST_NONE = 0, WN_ST_RWND, WN_ST_ZERO, WN_ST_LOSS, WN_ST_IDLE, WN_ST_OTHER, WN_ST__N };

#define WN_EV 6 /* zero-window advertisements kept as evidence */
typedef struct wn_ev {
	uint64_t frame;
	pd_time ts;
} wn_ev;

typedef struct wn_dir {
	/* zero-window episodes advertised by R while S had data to send */
	bool zw_active;
	pd_time zw_start;
	uint32_t zw_events, probes;
	wn_ev zw_ev[WN_EV];
	pd_time zw_total, zw_max;
	uint64_t zw_max_frame;
	pd_time zw_max_ts;
	uint32_t win_full;

	/* time split */
	int state;
	pd_time acct_ts; /* time up to which time was attributed */
	pd_time t[WN_ST__N];
	pd_time idle_pending; /* idle time, committed when S sends again */
	bool peer_spoke;      /* R sent data while S was idle: S waited for a request */
	double win_integral; /* sum of R's window x dt while S was active (bytes x s) */
	pd_time win_time;

	/* loss recovery: until R's cumulative ACK passes this point */
	bool recovering;
	uint32_t recovery_point;

	/* R's window */
	uint32_t win_first; /* first window R advertised after the handshake */
	uint32_t win_max;
	bool win_first_set;
	uint32_t grow_win; /* R's window at its last growth by more than 1/8 */
	pd_time grow_ts;

	/* S's data */
	bool data_started;
	pd_time first_data_ts, last_data_ts, last_ack_adv_ts;
	uint64_t first_data_frame;
	uint64_t first_full_frame;
	pd_time first_full_ts;
	pd_time rtt_min; /* smallest data->ACK sample of S's data; 0 none */
} wn_dir;

typedef struct wn_flow {
	wn_dir d[2]; /* by sender */
} wn_flow;

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

static void wn_on_tcp(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, const pd_seg *seg)
{
	(void)ctx;
	wn_flow *st = fs;
	const pd_tcp *t = &pkt->tcp;
	int dir = seg->dir;

	for (int s = 0; s < 2; s++)
		wn_account(flow, &st->d[s], s, pkt->ts);

	/* ---- as sender S = dir */
	wn_dir *ds = &st->d[dir];
	if (seg->flags & PD_SEG_NEW_DATA) {
		if (!ds->data_started) {
			ds->data_started = true;
			ds->first_data_ts = pkt->ts;
			ds->first_data_frame = pkt->frame_no;
			ds->acct_ts = pkt->ts;
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

	/* ---- as receiver R = dir, for the data of S = peer */
	int s = pd_peer(dir);
	wn_dir *dr = &st->d[s];
	if (seg->rtt > 0 && (!dr->rtt_min || seg->rtt < dr->rtt_min))
		dr->rtt_min = seg->rtt;
	const pd_tcp_half *hr = &flow->half[dir];
	if (!(t->flags & (PD_TCP_SYN | PD_TCP_RST)) && hr->win_known) {
		if (!dr->win_first_set && hr->win > 0) {
			dr->win_first = hr->win;
			dr->win_first_set = true;
		}
		if (hr->win > dr->win_max)
			dr->win_max = hr->win;
		if (hr->win > dr->grow_win + dr->grow_win / 8) {
			dr->grow_win = hr->win;
			dr->grow_ts = pkt->ts;
		}
		if (seg->acked > 0) {
			dr->last_ack_adv_ts = pkt->ts;
			if (dr->recovering && pd_seq_le(dr->recovery_point, t->ack))
				dr->recovering = false;
		}
		bool sender_pending = flow->half[s].seq_valid && flow->half[s].unique_bytes > 0;
		if (hr->win == 0 && !dr->zw_active && sender_pending) {
			dr->zw_active = true;
			dr->zw_start = pkt->ts;
			if (dr->zw_events < WN_EV)
				dr->zw_ev[dr->zw_events] = (wn_ev){pkt->frame_no, pkt->ts};
			dr->zw_events++;
		} else if (hr->win > 0 && dr->zw_active) {
			pd_time stall = pkt->ts - dr->zw_start;
			dr->zw_active = false;
			dr->zw_total += stall;
			if (stall > dr->zw_max) {
				dr->zw_max = stall;
				dr->zw_max_frame = pkt->frame_no;
				dr->zw_max_ts = pkt->ts;
			}
		}
	}

	for (int k = 0; k < 2; k++)
		if (st->d[k].data_started)
			st->d[k].state = wn_state(flow, &st->d[k], k);
}

static const char *wn_side(int s)
{
	return s == PD_CLIENT ? "client" : "server";
}

static void wn_report(pd_ctx *ctx, const pd_flow *flow, wn_dir *d, int s)
{
	int r = pd_peer(s);
	const pd_tcp_half *hs = &flow->half[s], *hr = &flow->half[r];
	double rtt_s = (double)pd_flow_rtt(flow) / 1e9;
	int vantage = pd_flow_vantage(flow);
	/* Next to the sender every data->ACK sample spans the whole path, and
	 * the smallest is a better base RTT than the single handshake sample
	 * (which a first-packet delay, e.g. a neighbour lookup, can inflate).
	 * Elsewhere the samples cover only part of the path. */
	if (d->rtt_min > 0 && vantage == s && (double)d->rtt_min / 1e9 < rtt_s)
		rtt_s = (double)d->rtt_min / 1e9;

	/* a stall still open at the end of the flow counts up to its last packet */
	if (d->zw_active) {
		pd_time stall = flow->last_ts - d->zw_start;
		d->zw_total += stall;
		if (stall > d->zw_max) {
			d->zw_max = stall;
			d->zw_max_frame = flow->last_frame;
			d->zw_max_ts = flow->last_ts;
		}
		d->zw_active = false;
	}

	pd_time end = d->last_ack_adv_ts > d->last_data_ts ? d->last_ack_adv_ts : d->last_data_ts;
	double T = (double)(end - d->first_data_ts) / 1e9;
	if (T < 0)
		T = 0;
	double acct = 0;
	for (int i = 1; i < WN_ST__N; i++)
		acct += (double)d->t[i] / 1e9;
	double sh_rwnd = acct > 0 ? (double)d->t[WN_ST_RWND] / 1e9 / acct : 0;
	double sh_zero = acct > 0 ? (double)d->t[WN_ST_ZERO] / 1e9 / acct : 0;
	double sh_loss = acct > 0 ? (double)d->t[WN_ST_LOSS] / 1e9 / acct : 0;
	double sh_idle = acct > 0 ? (double)d->t[WN_ST_IDLE] / 1e9 / acct : 0;
	double sh_other = acct > 0 ? (double)d->t[WN_ST_OTHER] / 1e9 / acct : 0;
	double avg_win = d->win_time > 0 ? d->win_integral / ((double)d->win_time / 1e9) : d->win_max;
	double rate = T > 0 ? (double)hs->unique_bytes / T : 0;
	double ceiling = rtt_s > 0 ? avg_win / rtt_s : 0;
	double ratio = ceiling > 0 ? rate / ceiling : 0;
	bool bulk = hs->unique_bytes >= WN_BULK_BYTES && rtt_s > 0 && T >= 4 * rtt_s;

	bool noscale = hs->syn_seen && hr->syn_seen && (hs->wscale_offered < 0 || hr->wscale_offered < 0);
	bool at_cap = noscale && (d->win_max >= 60000 || hs->max_in_flight >= 60000);
	bool rwnd_limited = sh_rwnd >= 0.5 || ratio >= 0.7;
	bool reader_bound = (double)d->zw_total / 1e9 >= 0.3 * T;
	/* the receiver drained its buffer quickly (window mostly near its max)
	 * yet never grew it; a window that mostly sat shrunk is a slow reader */
	bool shrunk = avg_win < 0.6 * d->win_max;
	/* A window that stopped growing early (within 4 RTTs or the first
	 * quarter of the transfer) and then stayed put for at least 10 RTTs:
	 * autotuning doubles an autotuned window every RTT or two while the
	 * sender fills it. */
	double grew_s = d->grow_ts > d->first_data_ts ? (double)(d->grow_ts - d->first_data_ts) / 1e9 : 0;
	bool fixed = d->win_first_set && grew_s <= (4 * rtt_s > T / 4 ? 4 * rtt_s : T / 4) &&
		     d->win_max < (1u << 20) && T >= 10 * rtt_s && !at_cap && !shrunk;
	/* "nothing in flight" is only visible at the sender or in the middle:
	 * next to the receiver every segment is ACKed at once, so the flight
	 * looks empty whatever the sender did */
	bool sender_limited = !rwnd_limited && !reader_bound && sh_rwnd < 0.1 && sh_loss < 0.1 && sh_idle >= 0.3 &&
			      T >= 0.2 && vantage != r;
	bulk = bulk && ((at_cap && rwnd_limited) || (rwnd_limited && !reader_bound) ||
			(fixed && (rwnd_limited || reader_bound)) || sender_limited);
	/* Nearly every flow ends without a finding: print nothing for those. */
	if (!d->zw_events && !bulk)
		return;
	char sname[64], rname[64];
	pd_flow_endpoint(flow, s, sname, sizeof(sname));
	pd_flow_endpoint(flow, r, rname, sizeof(rname));

	/* ---------------- zero window */
	if (d->zw_events > 0) {
		double zw_s = (double)d->zw_total / 1e9;
		pd_finding *f = pd_finding_get(ctx, "zero-window", flow);
		for (uint32_t i = 0; i < d->zw_events && i < WN_EV; i++)
			pd_finding_occurrence(f, d->zw_ev[i].frame, d->zw_ev[i].ts, "zero window advertised", NULL);
		if (d->zw_events > WN_EV)
			pd_finding_count(f, d->zw_events - WN_EV);
		pd_finding_occurrence(f, d->zw_max_frame, d->zw_max_ts, "window opened after the longest stall", NULL);
		char nt[24];
		pd_finding_detail(f,
				  "%s %s advertised a zero window %s to %s %s; the sender stood still %.3f s in "
				  "all (longest %.3f s, ending at frame %llu) and sent %u window probes; %u window-full "
				  "events. The receiving application did not read fast enough (or its buffer is tiny: "
				  "largest window advertised %u bytes).", NULL,
				  wn_side(r), rname, pd_times(d->zw_events, false, nt), wn_side(s), sname, zw_s,
				  (double)d->zw_max / 1e9,
				  (unsigned long long)d->zw_max_frame, d->probes, d->win_full, d->win_max);
		pd_finding_metric(f, "zero_window_events", d->zw_events, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "zero_window_stall", zw_s, PD_UNIT_S, PD_AGG_SUM);
		pd_finding_metric(f, "longest_stall", (double)d->zw_max / 1e9, PD_UNIT_S, PD_AGG_MAX);
		pd_finding_metric(f, "window_probes", d->probes, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "window_full_events", d->win_full, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "max_window", d->win_max, PD_UNIT_BYTES, PD_AGG_MAX);
		if (T > 0)
			pd_finding_metric(f, "stall_share", zw_s / T > 1 ? 1 : zw_s / T, PD_UNIT_RATIO, PD_AGG_MAX);
		pd_finding_add_impact(f, zw_s);
		pd_finding_set_severity(f, zw_s >= 0.1 || d->zw_events >= 3 ? PD_SEV_WARNING : PD_SEV_INFO);
		pd_finding_set_confidence(f, 0.9);
		pd_finding_settings(f, "slow-reading application", "SO_RCVBUF", "net.ipv4.tcp_rmem",
				    "net.core.rmem_max", NULL);
	}

	if (!bulk)
		return;

	char bdp[400];
	snprintf(bdp, sizeof(bdp),
		 "window %.0f bytes (average advertised while sending; max %u) / RTT %.2f ms = ceiling %.0f "
		 "bytes/s (%.1f Mbit/s); achieved %.0f bytes/s (%.1f Mbit/s) = %.0f%% of the ceiling over %.3f s",
		 avg_win, d->win_max, rtt_s * 1e3, ceiling, ceiling * 8 / 1e6, rate, rate * 8 / 1e6, ratio * 100, T);
	char split[480];
	snprintf(split, sizeof(split),
		 "time at the receiver's window %.0f%%, zero window %.0f%%, loss recovery %.0f%%, sender idle %.0f%%, "
		 "other (congestion window or sender) %.0f%%",
		 sh_rwnd * 100, sh_zero * 100, sh_loss * 100, sh_idle * 100, sh_other * 100);
	if (vantage == r) /* the flight is seen whole only at the sender */
		snprintf(split + strlen(split), sizeof(split) - strlen(split),
			 " (captured at the receiver, whose ACKs leave at once: the window share is underestimated "
			 "here, the rate against the ceiling is the reliable figure)");

#define WN_METRICS(f)                                                                                        \
	do {                                                                                                 \
		pd_finding_metric(f, "window_bytes", avg_win, PD_UNIT_BYTES, PD_AGG_MAX);                                      \
		pd_finding_metric(f, "max_window", d->win_max, PD_UNIT_BYTES, PD_AGG_MAX);                                     \
		pd_finding_metric(f, "rtt_ms", rtt_s * 1e3, PD_UNIT_MS, PD_AGG_MAX);                                           \
		pd_finding_metric(f, "ceiling_rate", ceiling, PD_UNIT_BYTES_PER_S, PD_AGG_MAX);                                    \
		pd_finding_metric(f, "achieved_rate", rate, PD_UNIT_BYTES_PER_S, PD_AGG_MAX);                                      \
		pd_finding_metric(f, "achieved_vs_ceiling", ratio, PD_UNIT_RATIO, PD_AGG_MAX);                                 \
		pd_finding_metric(f, "window_limited_share", sh_rwnd, PD_UNIT_RATIO, PD_AGG_MAX);                              \
		pd_finding_metric(f, "zero_window_share", sh_zero, PD_UNIT_RATIO, PD_AGG_MAX);                                 \
		pd_finding_metric(f, "loss_recovery_share", sh_loss, PD_UNIT_RATIO, PD_AGG_MAX);                               \
		pd_finding_metric(f, "sender_idle_share", sh_idle, PD_UNIT_RATIO, PD_AGG_MAX);                                 \
		pd_finding_metric(f, "other_share", sh_other, PD_UNIT_RATIO, PD_AGG_MAX);                                      \
		pd_finding_metric(f, "window_full_events", d->win_full, PD_UNIT_COUNT, PD_AGG_SUM);                            \
		pd_finding_metric(f, "max_in_flight", (double)hs->max_in_flight, PD_UNIT_BYTES, PD_AGG_MAX);                   \
		pd_finding_metric(f, "bytes", (double)hs->unique_bytes, PD_UNIT_BYTES, PD_AGG_SUM);                            \
	} while (0)

	if (at_cap && rwnd_limited) {
		pd_finding *f = pd_finding_get(ctx, "window-scaling-disabled", flow);
		/* a server may only echo the option: a client SYN without it decides */
		const pd_tcp_half *hc = &flow->half[PD_CLIENT];
		const char *who = hc->wscale_offered < 0
					  ? (s == PD_CLIENT ? "the client's SYN, sent by the data sender, had no "
							      "window-scale option, so the server could not use it either"
							    : "the client's SYN, sent by the data receiver, had no "
							      "window-scale option, so the server could not use it either")
					  : (s == PD_CLIENT ? "the server's SYN-ACK, sent by the data receiver, declined "
							      "the client's window-scale option"
							    : "the server's SYN-ACK, sent by the data sender, declined the "
							      "client's window-scale option");
		pd_finding_detail(f,
				  "Window scaling was not negotiated (%s), so %s %s can "
				  "never advertise more than 65535 bytes; the transfer of %llu bytes from %s %s sat at "
				  "that cap: %s; %s. To fill this path at the achieved rate x 4 the window would need "
				  "%.0f bytes.", NULL,
				  who, wn_side(r), rname, (unsigned long long)hs->unique_bytes, wn_side(s), sname, bdp,
				  split, rate * 4 * rtt_s);
		WN_METRICS(f);
		pd_finding_metric(f, "window_cap", WN_NOSCALE_CAP, PD_UNIT_BYTES, PD_AGG_MAX);
		if (d->first_full_frame)
			pd_finding_occurrence(f, d->first_full_frame, d->first_full_ts, "flight reaches the 64 KiB window", NULL);
		else
			pd_finding_occurrence(f, d->first_data_frame, d->first_data_ts, "bulk transfer starts", NULL);
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
			pd_finding_settings(f, "net.ipv4.tcp_window_scaling", "net.ipv4.tcp_syncookies", NULL);
		return;
	}

	if (rwnd_limited && !reader_bound) {
		pd_finding *f = pd_finding_get(ctx, "window-limited", flow);
		pd_finding_detail(f,
				  "%s %s sent %llu bytes to %s %s limited by the receive window: %s; %s.%s Throughput "
				  "cannot exceed window / RTT; a window of bandwidth x RTT is needed to fill the path.", NULL,
				  wn_side(s), sname, (unsigned long long)hs->unique_bytes, wn_side(r), rname, bdp, split,
				  shrunk ? " The advertised window mostly sat well below its maximum: the receiving "
					   "application did not keep up (reading slowly), the buffer size is secondary."
				  : fixed ? " The window never grew during the transfer (fixed receive buffer)."
					  : "");
		WN_METRICS(f);
		if (d->first_full_frame)
			pd_finding_occurrence(f, d->first_full_frame, d->first_full_ts, "flight fills the receive window", NULL);
		else
			pd_finding_occurrence(f, d->first_data_frame, d->first_data_ts, "bulk transfer starts", NULL);
		pd_finding_count(f, d->win_full > 1 ? d->win_full - 1 : 0);
		pd_finding_set_severity(f, PD_SEV_WARNING);
		pd_finding_set_confidence(f, sh_rwnd >= 0.5 && ratio >= 0.7 ? 0.9 : 0.7);
		if (shrunk)
			pd_finding_settings(f, "slow-reading application", "SO_RCVBUF", "net.ipv4.tcp_rmem",
					    "net.core.rmem_max", NULL);
		else if (fixed)
			pd_finding_settings(f, "SO_RCVBUF", "net.ipv4.tcp_rmem", "net.core.rmem_max",
					    "net.ipv4.tcp_moderate_rcvbuf", "slow-reading application", NULL);
		else
			pd_finding_settings(f, "net.ipv4.tcp_rmem", "net.core.rmem_max", "SO_RCVBUF",
					    "net.ipv4.tcp_moderate_rcvbuf", "net.ipv4.tcp_window_scaling",
					    "slow-reading application", NULL);
	}

	if (fixed && (rwnd_limited || reader_bound)) {
		pd_finding *f = pd_finding_get(ctx, "receive-window-fixed", flow);
		char zw[64] = "";
		if (d->zw_events)
			snprintf(zw, sizeof(zw), "; 0 in %u zero-window episode%s", d->zw_events,
				 d->zw_events > 1 ? "s" : "");
		pd_finding_detail(f,
				  "%s %s never advertised more than %u bytes (%u at the start%s) during the whole "
				  "%.3f s transfer (%llu bytes, about %.0f RTTs): its window %s. Receive-buffer "
				  "autotuning did not act, typically because the application set SO_RCVBUF (or "
				  "tcp_moderate_rcvbuf=0). %s.", NULL,
				  wn_side(r), rname, d->win_max, d->win_first, zw, T, (unsigned long long)hs->unique_bytes,
				  rtt_s > 0 ? T / rtt_s : 0,
				  d->win_max > d->win_first ? "stopped growing early" : "never grew", bdp);
		WN_METRICS(f);
		pd_finding_occurrence(f, d->first_data_frame, d->first_data_ts, "bulk transfer starts", NULL);
		pd_finding_set_severity(f, rwnd_limited && !reader_bound ? PD_SEV_WARNING : PD_SEV_INFO);
		pd_finding_set_confidence(f, 0.7);
		pd_finding_settings(f, "SO_RCVBUF", "net.ipv4.tcp_moderate_rcvbuf", "net.ipv4.tcp_rmem",
				    "net.core.rmem_max", NULL);
	}

	if (sender_limited) {
		pd_finding *f = pd_finding_get(ctx, "sender-limited", flow);
		pd_finding_detail(f,
				  "%s %s often had nothing in flight during its %llu-byte transfer although %s %s's "
				  "window had room: %s; %s. The sending application (or its send buffer) was the limit, "
				  "not the network.", NULL,
				  wn_side(s), sname, (unsigned long long)hs->unique_bytes, wn_side(r), rname, split, bdp);
		WN_METRICS(f);
		pd_finding_occurrence(f, d->first_data_frame, d->first_data_ts, "bulk transfer starts", NULL);
		pd_finding_set_severity(f, PD_SEV_INFO);
		pd_finding_set_confidence(f, 0.6);
		pd_finding_settings(f, "SO_SNDBUF", "net.ipv4.tcp_wmem", "net.core.wmem_max", NULL);
	}
#undef WN_METRICS
}

static void wn_on_flow_end(pd_ctx *ctx, void *g, const pd_flow *flow, void *fs)
{
	(void)g;
	wn_flow *st = fs;
	if (flow->proto != 6)
		return;
	for (int s = 0; s < 2; s++)
		if (st->d[s].data_started)
			wn_report(ctx, flow, &st->d[s], s);
}

static const char *const wn_emits[] = {"zero-window", "window-limited", "window-scaling-disabled", "receive-window-fixed", "sender-limited", NULL};

const pd_detector pd_det_window = {
	.name = "window",
	.emits = wn_emits,
	.from_payload = true,
	.flow_state_size = sizeof(wn_flow),
	.on_tcp = wn_on_tcp,
	.on_flow_end = wn_on_flow_end,
};
