/* Transfer shape: slow start after idle, the initial window, keep-alive
 * probes and tiny application writes.
 *
 * Flights are measured by time, not by ACKs, so the measure holds on either
 * side of the path: the bytes of a burst that pass the capture point within
 * 3/4 of an RTT from its first segment are the first flight (at the sender
 * they leave back to back; at the receiver they arrive back to back; the
 * next flight comes one RTT later). This needs a path RTT the capture can
 * resolve (>= 2 ms); on a LAN the flight analysis is skipped. */
#include <stdio.h>
#include <string.h>

#include "heuristics/detector.h"
#include "heuristics/util.h"

#define TR_MIN_RTT_NS (2 * 1000 * 1000LL)
#define TR_IDLE_FLOOR_NS (200 * 1000 * 1000LL) /* Linux RTO floor: idle must exceed the RTO */
#define TR_EV 4

typedef struct tr_ev {
	uint64_t frame;
	pd_time ts;
} tr_ev;

typedef struct tr_dir {
	/* burst / flight measurement */
	bool in_burst;
	pd_time burst_start, burst_last;
	uint64_t burst_frame;
	uint32_t flight_bytes; /* bytes within the first flight of the burst */
	uint32_t flight_pkts; /* packets in it, a TSO/GRO frame counted as len/MSS packets */
	uint32_t burst_bytes;
	bool after_idle; /* this burst followed an idle period > RTO */
	bool burst_loss; /* resends or capture gaps before or in this burst: loss recovery */
	pd_time last_loss_ts; /* latest resend or gap in this direction */
	pd_time idle_len;
	uint32_t max_flight; /* largest first-RTT volume seen in any window so far */
	uint32_t win_bytes; /* sliding: bytes in the current RTT window */
	pd_time win_start;
	bool first_burst_done;
	uint32_t iw_bytes, iw_pkts;
	uint32_t flight_last; /* payload of the first flight's latest segment */
	uint32_t burst_max; /* largest segment of the burst */
	uint32_t iw_last, iw_max; /* the first burst's flight_last and burst_max */
	uint32_t iw_total; /* bytes of the first burst */
	uint64_t iw_frame;
	pd_time iw_ts;

	uint32_t ssai_events;
	uint32_t ssai_flight_sum, ssai_prev_sum;
	pd_time ssai_idle_sum;
	double ssai_cost_s;
	tr_ev ssai_ev[TR_EV];

	/* keep-alive */
	uint32_t ka, ka_answered;
	pd_time ka_last, ka_first_idle, ka_int_sum;
	uint32_t ka_int_n;
	pd_time last_activity;
	bool ka_wait;
	bool ka_peer_alive;
	tr_ev ka_ev[TR_EV];

	/* writes */
	uint32_t data_segs, tiny_segs;
	uint32_t tiny_run; /* tiny segments followed by more data from the same side, before the peer answered */
	bool tiny_open; /* the last new segment was tiny and the peer has not sent data since */
	uint64_t data_bytes;
	tr_ev tiny_ev;
} tr_dir;

typedef struct tr_flow {
	tr_dir d[2];
} tr_flow;

static void tr_end_burst(tr_dir *d, const pd_flow *flow, int s)
{
	if (!d->in_burst)
		return;
	d->in_burst = false;
	uint32_t mss = pd_flow_mss(flow, s, false);
	if (!d->first_burst_done) {
		d->first_burst_done = true;
		d->iw_bytes = d->flight_bytes;
		d->iw_pkts = d->flight_pkts;
		d->iw_last = d->flight_last;
		d->iw_max = d->burst_max;
		d->iw_total = d->burst_bytes;
	} else if (d->after_idle && !d->burst_loss) {
		/* (a restart after a retransmission timeout also begins with one
		 * segment, but that is loss recovery, not an idle restart) */
		/* restarted small although the sender had more, and had run much larger before */
		if (d->flight_bytes <= 12 * mss && d->burst_bytes >= 2 * d->flight_bytes &&
		    d->max_flight >= 3 * d->flight_bytes && d->max_flight >= 20 * mss) {
			if (d->ssai_events < TR_EV)
				d->ssai_ev[d->ssai_events] = (tr_ev){d->burst_frame, d->burst_start};
			d->ssai_events++;
			d->ssai_flight_sum += d->flight_bytes;
			d->ssai_prev_sum += d->max_flight;
			d->ssai_idle_sum += d->idle_len;
			/* rounds needed to grow back, doubling per RTT */
			double rounds = 0;
			for (uint32_t w = d->flight_bytes; w && w < d->max_flight && rounds < 30; w *= 2)
				rounds++;
			d->ssai_cost_s += rounds * (double)pd_flow_rtt(flow) / 1e9;
		}
	}
}

static void tr_on_tcp(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, const pd_seg *seg)
{
	(void)ctx;
	tr_flow *st = fs;
	const pd_tcp *t = &pkt->tcp;
	int dir = seg->dir, peer = pd_peer(dir);
	tr_dir *d = &st->d[dir], *dp = &st->d[peer];
	if (t->flags & (PD_TCP_SYN | PD_TCP_RST))
		return;

	/* keep-alive: a probe not sent against a zero window (that is a persist
	 * probe), after at least 1 s of silence (the smallest tcp_keepalive_time) */
	pd_time quiet = d->last_activity > 0 ? pkt->ts - d->last_activity : 0;
	if ((seg->flags & PD_SEG_KEEPALIVE) && !(flow->half[peer].win_known && flow->half[peer].win == 0) &&
	    (quiet >= PD_NS_PER_SEC || (d->ka && pkt->ts - d->ka_last >= PD_NS_PER_SEC))) {
		if (d->ka < TR_EV)
			d->ka_ev[d->ka] = (tr_ev){pkt->frame_no, pkt->ts};
		if (d->ka == 0)
			d->ka_first_idle = quiet;
		else {
			d->ka_int_sum += pkt->ts - d->ka_last;
			d->ka_int_n++;
		}
		d->ka++;
		d->ka_last = pkt->ts;
		d->ka_wait = true;
		return;
	}
	/* an answer is the peer's bare ACK of the probe, before the prober
	 * sends anything else (a later ACK of new data answers that data) */
	if (dp->ka_wait && t->payload_len == 0 && !(t->flags & PD_TCP_FIN) && (t->flags & PD_TCP_ACK)) {
		dp->ka_answered++;
		dp->ka_wait = false;
	}
	if (d->ka_wait && (t->payload_len > 0 || (t->flags & PD_TCP_FIN)))
		d->ka_wait = false;
	if (dp->ka && dp->ka_answered < dp->ka && t->payload_len > 0)
		dp->ka_peer_alive = true; /* the peer still sent data after the probes */
	if (t->payload_len > 0 || seg->acked > 0) {
		d->last_activity = pkt->ts;
		dp->last_activity = pkt->ts;
	}

	if (t->payload_len > 0 && (!(seg->flags & PD_SEG_NEW_DATA) || (seg->flags & PD_SEG_PREV_LOST))) {
		d->last_loss_ts = pkt->ts;
		if (d->in_burst)
			d->burst_loss = true;
	}
	if (!(seg->flags & PD_SEG_NEW_DATA))
		return;
	/* The peer's burst ends when this side sends new data: in a request /
	 * response exchange the peer's next data waits for this answer (the
	 * application), not for ACKs, so it is a new burst, never a later
	 * round of the same flight (else a chain of small requests looks like
	 * a tiny initial window with a large backlog). */
	if (dp->in_burst)
		tr_end_burst(dp, flow, peer);
	/* A small segment that ends its side's turn (the peer answers next)
	 * is a whole message in a request/response exchange: nothing to
	 * coalesce it with. Only small segments the same side follows with
	 * more data could have shared a segment. */
	dp->tiny_open = false;
	uint32_t len = t->payload_len;
	uint32_t mss = pd_flow_mss(flow, dir, false);
	d->data_segs++;
	d->data_bytes += len;
	if (d->tiny_open)
		d->tiny_run++;
	d->tiny_open = len * 4 < mss;
	if (len * 4 < mss) {
		d->tiny_segs++;
		if (!d->tiny_ev.frame)
			d->tiny_ev = (tr_ev){pkt->frame_no, pkt->ts};
	}

	pd_time rtt = pd_flow_rtt(flow);
	if (rtt < TR_MIN_RTT_NS)
		return;
	pd_time flight_span = rtt * 3 / 4;

	/* volume per RTT window, to know how large flights got */
	if (pkt->ts - d->win_start >= flight_span) {
		d->win_start = pkt->ts;
		d->win_bytes = 0;
	}
	d->win_bytes += len;
	if (d->win_bytes > d->max_flight)
		d->max_flight = d->win_bytes;

	/* a burst ends when the sender was silent for more than an RTT */
	pd_time idle = d->burst_last ? pkt->ts - d->burst_last : 0;
	if (d->in_burst && idle > rtt + rtt / 2)
		tr_end_burst(d, flow, dir);
	if (!d->in_burst) {
		pd_time idle_floor = rtt * 3 > TR_IDLE_FLOOR_NS ? rtt * 3 : TR_IDLE_FLOOR_NS;
		d->in_burst = true;
		d->burst_start = pkt->ts;
		d->burst_frame = pkt->frame_no;
		d->flight_bytes = 0;
		d->flight_pkts = 0;
		d->burst_bytes = 0;
		d->burst_max = 0;
		d->after_idle = d->first_burst_done && idle > idle_floor;
		d->burst_loss = d->last_loss_ts > 0 && d->last_loss_ts >= d->burst_last;
		d->idle_len = idle;
		if (!d->first_burst_done) {
			d->iw_frame = pkt->frame_no;
			d->iw_ts = pkt->ts;
		}
	}
	if (pkt->ts - d->burst_start < flight_span) {
		d->flight_bytes += len;
		d->flight_pkts += len > mss ? (len + mss - 1) / mss : 1;
		d->flight_last = len;
	}
	if (len > d->burst_max)
		d->burst_max = len;
	d->burst_bytes += len;
	d->burst_last = pkt->ts;
}

/* The sentences below name the sender's role (client or server) in both
 * languages, so each comes in one version per role. */

static void tr_report_ssai(pd_ctx *ctx, const pd_flow *flow, const tr_dir *d, bool client, const char *sname,
			   uint32_t mss, double rtt_ms)
{
	pd_finding *f = pd_finding_get(ctx, "slow-start-after-idle", flow);
	for (uint32_t i = 0; i < d->ssai_events && i < TR_EV; i++)
		pd_finding_occurrence(f, d->ssai_ev[i].frame, d->ssai_ev[i].ts, "burst after idle restarts small",
				      "空闲之后的突发从很小的窗口重新开始");
	if (d->ssai_events > TR_EV)
		pd_finding_count(f, d->ssai_events - TR_EV);
	uint32_t n = d->ssai_events;
	double fl = (double)d->ssai_flight_sum / n, prev = (double)d->ssai_prev_sum / n;
	double idle_ms = (double)d->ssai_idle_sum / n / 1e6;
	if (n == 1 && client)
		pd_finding_detail(f,
				  "client %s resumed after an idle period of %.0f ms (longer than its RTO) with a first "
				  "flight of %.0f bytes (%.1f segments) although earlier flights reached %.0f bytes",
				  "客户端 %s 空闲 %.0f 毫秒（超过其 RTO）后恢复发送，第一轮只发了 %.0f 字节"
				  "（相当于 %.1f 个报文段），而此前单轮最多发过 %.0f 字节",
				  sname, idle_ms, fl, fl / mss, prev);
	else if (n == 1)
		pd_finding_detail(f,
				  "server %s resumed after an idle period of %.0f ms (longer than its RTO) with a first "
				  "flight of %.0f bytes (%.1f segments) although earlier flights reached %.0f bytes",
				  "服务端 %s 空闲 %.0f 毫秒（超过其 RTO）后恢复发送，第一轮只发了 %.0f 字节"
				  "（相当于 %.1f 个报文段），而此前单轮最多发过 %.0f 字节",
				  sname, idle_ms, fl, fl / mss, prev);
	else if (client)
		pd_finding_detail(f,
				  "client %s resumed %u times after an idle period (average %.0f ms, longer than its "
				  "RTO) with a first flight of %.0f bytes (%.1f segments) on average although earlier "
				  "flights reached %.0f bytes",
				  "客户端 %s 有 %u 次在空闲（平均 %.0f 毫秒，超过其 RTO）后恢复发送，第一轮平均只发了 %.0f "
				  "字节（相当于 %.1f 个报文段），而此前单轮最多发过 %.0f 字节",
				  sname, n, idle_ms, fl, fl / mss, prev);
	else
		pd_finding_detail(f,
				  "server %s resumed %u times after an idle period (average %.0f ms, longer than its "
				  "RTO) with a first flight of %.0f bytes (%.1f segments) on average although earlier "
				  "flights reached %.0f bytes",
				  "服务端 %s 有 %u 次在空闲（平均 %.0f 毫秒，超过其 RTO）后恢复发送，第一轮平均只发了 %.0f "
				  "字节（相当于 %.1f 个报文段），而此前单轮最多发过 %.0f 字节",
				  sname, n, idle_ms, fl, fl / mss, prev);
	pd_finding_append(f,
			  ": the congestion window was reset to the restart window "
			  "(net.ipv4.tcp_slow_start_after_idle=1, the default) and took about %.3f s of extra round "
			  "trips (RTT %.2f ms) to grow back.",
			  "：拥塞窗口被重置成了重启窗口（net.ipv4.tcp_slow_start_after_idle=1，默认值），"
			  "多用了约 %.3f 秒的往返（RTT %.2f 毫秒）才把窗口涨回去。",
			  d->ssai_cost_s, rtt_ms);
	pd_finding_metric(f, "restarts", n, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "first_flight_bytes", fl, PD_UNIT_BYTES, PD_AGG_MAX);
	pd_finding_metric(f, "earlier_flight_bytes", prev, PD_UNIT_BYTES, PD_AGG_MAX);
	pd_finding_metric(f, "extra_time", d->ssai_cost_s, PD_UNIT_S, PD_AGG_SUM);
	pd_finding_add_impact(f, d->ssai_cost_s);
	pd_finding_set_severity(f, PD_SEV_INFO);
	pd_finding_set_confidence(f, 0.6);
	pd_finding_settings(f, "net.ipv4.tcp_slow_start_after_idle", "route initcwnd", NULL);
}

static void tr_report_iw(pd_ctx *ctx, const pd_flow *flow, const tr_dir *d, int s, const char *sname,
			 const char *rname, uint32_t mss, double rtt_ms)
{
	pd_finding *f = pd_finding_get(ctx, "initial-window", flow);
	pd_finding_occurrence(f, d->iw_frame, d->iw_ts, "first flight of data", "第一轮数据");
	double segs = (double)d->iw_bytes / mss;
	if (s == PD_CLIENT)
		pd_finding_detail(f,
				  "client %s's first flight was %u bytes (%.1f segments of %u) before it waited a round "
				  "trip (RTT %.2f ms), although it had %u bytes to send and server %s's window allowed "
				  "more: an initial congestion window below the Linux default of 10 segments (route "
				  "initcwnd), or a sender that is not Linux.",
				  "客户端 %s 第一轮只发了 %u 字节（相当于 %.1f 个 %u 字节的报文段）"
				  "就停下来等了一个往返（RTT %.2f 毫秒），而它当时有 %u 字节要发，服务端 %s 的窗口"
				  "也允许发更多：初始拥塞窗口小于 Linux 默认的 10 个报文段（route initcwnd），"
				  "或者发送方不是 Linux。",
				  sname, d->iw_bytes, segs, mss, rtt_ms, d->iw_total, rname);
	else
		pd_finding_detail(f,
				  "server %s's first flight was %u bytes (%.1f segments of %u) before it waited a round "
				  "trip (RTT %.2f ms), although it had %u bytes to send and client %s's window allowed "
				  "more: an initial congestion window below the Linux default of 10 segments (route "
				  "initcwnd), or a sender that is not Linux.",
				  "服务端 %s 第一轮只发了 %u 字节（相当于 %.1f 个 %u 字节的报文段）"
				  "就停下来等了一个往返（RTT %.2f 毫秒），而它当时有 %u 字节要发，客户端 %s 的窗口"
				  "也允许发更多：初始拥塞窗口小于 Linux 默认的 10 个报文段（route initcwnd），"
				  "或者发送方不是 Linux。",
				  sname, d->iw_bytes, segs, mss, rtt_ms, d->iw_total, rname);
	if (flow->half[s].lost_segment > 0)
		pd_finding_append(f,
				  " This flow also lost data before the capture point, so a queue or shaper that drops "
				  "(for instance the sender's own qdisc) may have cut the first flight instead.",
				  "该流在抓包点之前还丢过数据，所以也可能是某个会丢包的队列或整形器（例如发送方自己的 qdisc）"
				  "截短了第一轮。");
	pd_finding_metric(f, "initial_flight_bytes", d->iw_bytes, PD_UNIT_BYTES, PD_AGG_MAX);
	pd_finding_metric(f, "initial_flight_segments", segs, PD_UNIT_COUNT, PD_AGG_MAX);
	pd_finding_set_severity(f, PD_SEV_INFO);
	pd_finding_set_confidence(f, 0.5);
	/* the receiver's window allowed more: not its initrwnd */
	if (flow->half[s].lost_segment > 0)
		pd_finding_settings(f, "route initcwnd", "qdisc limit", NULL);
	else
		pd_finding_settings(f, "route initcwnd", NULL);
}

static void tr_report_keepalive(pd_ctx *ctx, const pd_flow *flow, const tr_dir *d, bool client,
				const char *sname, const char *rname)
{
	pd_finding *f = pd_finding_get(ctx, "keepalive", flow);
	for (uint32_t i = 0; i < d->ka && i < TR_EV; i++)
		pd_finding_occurrence(f, d->ka_ev[i].frame, d->ka_ev[i].ts, "keep-alive probe", "保活探测");
	if (d->ka > TR_EV)
		pd_finding_count(f, d->ka - TR_EV);
	double intv = d->ka_int_n ? (double)d->ka_int_sum / d->ka_int_n / 1e9 : 0;
	double idle_s = (double)d->ka_first_idle / 1e9;
	uint32_t unanswered = d->ka - d->ka_answered;
	if (!d->ka_int_n && client)
		pd_finding_detail(f,
				  "client %s sent %u keep-alive probe to %s (after %.1f s idle); %u answered, "
				  "%u unanswered.",
				  "客户端 %1$s 向 %3$s 发了 %2$u 个保活探测（空闲 %4$.1f 秒后）；"
				  "%5$u 个有应答，%6$u 个无应答。",
				  sname, d->ka, rname, idle_s, d->ka_answered, unanswered);
	else if (!d->ka_int_n)
		pd_finding_detail(f,
				  "server %s sent %u keep-alive probe to %s (after %.1f s idle); %u answered, "
				  "%u unanswered.",
				  "服务端 %1$s 向 %3$s 发了 %2$u 个保活探测（空闲 %4$.1f 秒后）；"
				  "%5$u 个有应答，%6$u 个无应答。",
				  sname, d->ka, rname, idle_s, d->ka_answered, unanswered);
	else if (client)
		pd_finding_detail(f,
				  "client %s sent %u keep-alive probes to %s (first after %.1f s idle, then %.1f s apart "
				  "on average); %u answered, %u unanswered.",
				  "客户端 %1$s 向 %3$s 发了 %2$u 个保活探测（空闲 %4$.1f 秒后发第一个，之后平均每隔 %5$.1f "
				  "秒一个）；%6$u 个有应答，%7$u 个无应答。",
				  sname, d->ka, rname, idle_s, intv, d->ka_answered, unanswered);
	else
		pd_finding_detail(f,
				  "server %s sent %u keep-alive probes to %s (first after %.1f s idle, then %.1f s apart "
				  "on average); %u answered, %u unanswered.",
				  "服务端 %1$s 向 %3$s 发了 %2$u 个保活探测（空闲 %4$.1f 秒后发第一个，之后平均每隔 %5$.1f "
				  "秒一个）；%6$u 个有应答，%7$u 个无应答。",
				  sname, d->ka, rname, idle_s, intv, d->ka_answered, unanswered);
	if (unanswered >= 2 && d->ka_peer_alive)
		pd_finding_append(f,
				  " Yet the peer answered later data, so the probes or their ACKs were lost (a firewall "
				  "or NAT dropping bare ACKs, or congestion), not the peer.",
				  "但对端之后仍发送了数据，所以丢的是探测报文或它们的 ACK（防火墙或 NAT 丢弃纯 ACK，"
				  "或者拥塞），而不是对端不在了。");
	else if (unanswered >= 2)
		pd_finding_append(f, " The peer or a NAT/firewall state on the path is probably gone.",
				  "对端，或者路径上 NAT/防火墙为这条连接保存的状态，很可能已经不在了。");
	pd_finding_append(f, " Linux defaults: first probe after 7200 s idle, then every 75 s, 9 probes.",
			  "Linux 默认：空闲 7200 秒后发第一个探测，之后每 75 秒一个，最多 9 个。");
	if (d->ka_first_idle < 7000 * PD_NS_PER_SEC)
		pd_finding_append(f,
				  " These timers are not the defaults: the application set them per socket "
				  "(TCP_KEEPIDLE / TCP_KEEPINTVL / TCP_KEEPCNT) or the sysctls were changed.",
				  "这里的定时器不是默认值：应用按套接字设置了它们（TCP_KEEPIDLE / TCP_KEEPINTVL / "
				  "TCP_KEEPCNT），或者相应的 sysctl 被改过。");
	if (d->ka_int_n && unanswered == 0)
		pd_finding_append(f,
				  " An answered probe restarts the idle timer, so answered probes are spaced by the "
				  "idle time (tcp_keepalive_time / TCP_KEEPIDLE); tcp_keepalive_intvl only spaces "
				  "unanswered ones.",
				  "有应答的探测会让空闲计时重新开始，所以有应答的探测之间隔的是空闲时间"
				  "（tcp_keepalive_time / TCP_KEEPIDLE）；tcp_keepalive_intvl 只决定无应答探测之间的间隔。");
	pd_finding_metric(f, "probes", d->ka, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "unanswered", unanswered, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "idle_before_first", idle_s, PD_UNIT_S, PD_AGG_MAX);
	if (d->ka_int_n)
		pd_finding_metric(f, "interval", intv, PD_UNIT_S, PD_AGG_MAX);
	pd_finding_set_severity(f, unanswered >= 2 ? PD_SEV_WARNING : PD_SEV_INFO);
	pd_finding_set_confidence(f, 0.7);
	pd_finding_settings(f, "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_keepalive_intvl",
			    "net.ipv4.tcp_keepalive_probes", "SO_KEEPALIVE", NULL);
}

static void tr_report_tiny(pd_ctx *ctx, const pd_flow *flow, const tr_dir *d, bool client, const char *sname,
			   const char *rname, uint32_t mss)
{
	pd_finding *f = pd_finding_get(ctx, "tiny-writes", flow);
	pd_finding_occurrence(f, d->tiny_ev.frame, d->tiny_ev.ts, "first tiny segment", "第一个很小的报文段");
	pd_finding_count(f, d->tiny_segs - 1);
	double avg = (double)d->data_bytes / d->data_segs;
	double tiny_pct = 100.0 * d->tiny_segs / d->data_segs, header_pct = 100.0 * 52 / (52 + avg);
	if (client)
		pd_finding_detail(f,
				  "%u of client %s's %u data segments (%.0f%%) carried less than a quarter of the "
				  "%u-byte MSS (average %.0f bytes), and %u of them were followed by more data from the "
				  "client before server %s answered: each small application write went out as its own "
				  "segment, so TCP/IP headers are about %.0f%% of the bytes sent.",
				  "客户端 %2$s 的 %3$u 个数据报文段中有 %1$u 个（%4$.0f%%）不到 %5$u 字节 MSS 的"
				  "四分之一（平均 %6$.0f 字节），其中 %7$u 个发出后，服务端 %8$s 还没应答，"
				  "客户端就接着发了更多数据："
				  "应用的每次小块写入都单独成了一个报文段，TCP/IP 头部约占发送字节数的 %9$.0f%%。",
				  d->tiny_segs, sname, d->data_segs, tiny_pct, mss, avg, d->tiny_run, rname, header_pct);
	else
		pd_finding_detail(f,
				  "%u of server %s's %u data segments (%.0f%%) carried less than a quarter of the "
				  "%u-byte MSS (average %.0f bytes), and %u of them were followed by more data from the "
				  "server before client %s answered: each small application write went out as its own "
				  "segment, so TCP/IP headers are about %.0f%% of the bytes sent.",
				  "服务端 %2$s 的 %3$u 个数据报文段中有 %1$u 个（%4$.0f%%）不到 %5$u 字节 MSS 的"
				  "四分之一（平均 %6$.0f 字节），其中 %7$u 个发出后，客户端 %8$s 还没应答，"
				  "服务端就接着发了更多数据："
				  "应用的每次小块写入都单独成了一个报文段，TCP/IP 头部约占发送字节数的 %9$.0f%%。",
				  d->tiny_segs, sname, d->data_segs, tiny_pct, mss, avg, d->tiny_run, rname, header_pct);
	pd_finding_metric(f, "tiny_segments", d->tiny_segs, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "tiny_share", (double)d->tiny_segs / d->data_segs, PD_UNIT_RATIO, PD_AGG_MAX);
	pd_finding_metric(f, "back_to_back_tiny", d->tiny_run, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "data_segments", d->data_segs, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "average_payload", avg, PD_UNIT_BYTES, PD_AGG_MAX);
	pd_finding_set_severity(f, PD_SEV_INFO);
	pd_finding_set_confidence(f, 0.6);
	pd_finding_settings(f, "writev coalescing", "TCP_CORK", "MSG_MORE", "TCP_NODELAY",
			    "net.ipv4.tcp_autocorking", NULL);
}

static void tr_report(pd_ctx *ctx, const pd_flow *flow, tr_dir *d, int s)
{
	int r = pd_peer(s);
	tr_end_burst(d, flow, s);
	uint32_t mss = pd_flow_mss(flow, s, false);

	/* initial window: a first flight under 10 segments although the sender
	 * had more to send and the receiver's window allowed 10. A flight that
	 * ends on a short segment (under 3/4 of a full one: the MSS, or the
	 * burst's largest segment if smaller) emptied the send queue, since
	 * TCP fills segments while data waits: the application paused there,
	 * not the congestion window (an SSH banner, then bulk data an RTT
	 * later). */
	const pd_tcp_half *hr = &flow->half[r];
	/* Linux's congestion window counts packets: ten small segments are a
	 * full initial window whatever their size. */
	bool iw = flow->roles_from_syn && d->first_burst_done && d->iw_bytes > 0 && d->iw_bytes < 9 * mss &&
		  d->iw_pkts < 9 && d->iw_total >= 2 * d->iw_bytes && d->iw_total > 10 * mss && hr->win_known &&
		  hr->win >= 10 * mss && !(flow->half[s].retrans > 0 && d->iw_total < 20 * mss) &&
		  (uint64_t)d->iw_last * 4 >= (uint64_t)MIN(d->iw_max, mss) * 3;
	/* On a capture taken at the sender, a gap in the sender's own sequence
	 * means something between TCP and the capture tap (a qdisc that drops,
	 * or the capture itself) lost packets: the first flight seen is what
	 * survived that queue, not the congestion window (a qdisc that refuses
	 * an initial-window packet even leaves no gap: TCP sends it later as new
	 * data), so the flight says nothing about initcwnd. */
	if (iw && flow->half[s].lost_segment > 0 && pd_flow_vantage(flow) == s)
		iw = false;
	/* tiny writes: a sizeable stream made mostly of segments under MSS/4 */
	bool tiny = d->data_segs >= 200 && d->data_bytes >= 20000 && d->tiny_segs * 2 >= d->data_segs &&
		    d->tiny_run * 2 >= d->data_segs;
	/* Nearly every flow ends without a finding: print nothing for those. */
	if (!d->ssai_events && !iw && !d->ka && !tiny)
		return;

	char sname[64], rname[64];
	pd_flow_endpoint(flow, s, sname, sizeof(sname));
	pd_flow_endpoint(flow, r, rname, sizeof(rname));
	bool client = s == PD_CLIENT;
	double rtt_ms = (double)pd_flow_rtt(flow) / 1e6;

	if (d->ssai_events)
		tr_report_ssai(ctx, flow, d, client, sname, mss, rtt_ms);
	if (iw)
		tr_report_iw(ctx, flow, d, s, sname, rname, mss, rtt_ms);
	if (d->ka)
		tr_report_keepalive(ctx, flow, d, client, sname, rname);
	if (tiny)
		tr_report_tiny(ctx, flow, d, client, sname, rname, mss);
}

static void tr_on_flow_end(pd_ctx *ctx, void *g, const pd_flow *flow, void *fs)
{
	(void)g;
	tr_flow *st = fs;
	if (flow->proto != 6)
		return;
	for (int s = 0; s < 2; s++)
		tr_report(ctx, flow, &st->d[s], s);
}

static const char *const tr_emits[] = {"slow-start-after-idle", "initial-window", "keepalive", "tiny-writes",
					       NULL};

const pd_detector pd_det_transfer = {
	.name = "transfer",
	.emits = tr_emits,
	.from_payload = true,
	.flow_state_size = sizeof(tr_flow),
	.on_tcp = tr_on_tcp,
	.on_flow_end = tr_on_flow_end,
};
