/* Nagle + delayed ACK: a sub-MSS segment held by the sender (Nagle) until
 * the peer's ACK, and that ACK held by the peer's delayed-ACK timer.
 *
 * Per pair "holder A, acker B" we look for: a pure ACK from B that covers
 * all of A's outstanding data and comes >= 30 ms after A's last new data,
 * followed (within about one RTT) by A's next new data, which is sub-MSS,
 * with no data from B in between. A server that is simply slow to answer
 * does not match: its ACK carries the response, and the client's next
 * request follows the response, not a bare ACK. The gaps are clustered;
 * only a clear cluster of >= 3 is reported, with its measured period. */
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/peer_os.h"
#include "heuristics/detector.h"
#include "heuristics/util.h"

#define NG_MIN_GAP_NS (30 * 1000 * 1000LL) /* below the 40 ms Linux minimum, with margin */
#define NG_MAX_GAP_NS (600 * 1000 * 1000LL) /* 200 ms Windows timer plus an RTT */
#define NG_SAMPLES 128 /* exact samples kept per direction; later ones counted */
#define NG_MIN_STALLS 3
/* Smallest delayed-ACK timer believed: Linux's minimum is 40 ms; below
 * 20 ms the wait is the round trip, not a held ACK. */
#define NG_MIN_TIMER_US 20000.0

typedef struct ng_samples {
	uint32_t gap_us[NG_SAMPLES]; /* ACK time - A's last data time */
	uint32_t rel_us[NG_SAMPLES]; /* A's released data - ACK time */
	uint64_t frame[NG_SAMPLES]; /* the released segment */
	pd_time ts[NG_SAMPLES];
	uint32_t n;
	/* after the buffer is full: counted against the centre of the first NG_SAMPLES */
	bool centre_fixed;
	double centre_us, half_width_us;
	uint32_t extra_total, extra_in;
	double extra_gap_sum_us, extra_rel_sum_us;
} ng_samples;

typedef struct ng_dir {
	pd_time last_data_ts; /* A's latest new data */
	bool pending; /* B's qualifying ACK seen, waiting for A's next data */
	pd_time ack_ts;
	pd_time gap;
} ng_dir;

typedef struct ng_flow {
	ng_dir d[2]; /* indexed by holder A */
	ng_samples *s[2];
} ng_flow;

static double ng_window(double centre_us)
{
	double w = 0.15 * centre_us;
	return w < 5000 ? 5000 : w;
}

static void ng_record(ng_flow *st, int a, pd_time gap, pd_time rel, const pd_packet *pkt)
{
	ng_samples *s = st->s[a];
	if (!s)
		s = st->s[a] = g_new0(ng_samples, 1);
	uint32_t gap_us = (uint32_t)(gap / 1000);
	if (s->n < NG_SAMPLES) {
		s->gap_us[s->n] = gap_us;
		s->rel_us[s->n] = (uint32_t)(rel / 1000);
		s->frame[s->n] = pkt->frame_no;
		s->ts[s->n] = pkt->ts;
		s->n++;
		return;
	}
	if (!s->centre_fixed) {
		uint32_t tmp[NG_SAMPLES];
		memcpy(tmp, s->gap_us, sizeof(tmp));
		s->centre_us = pd_median_u32(tmp, NG_SAMPLES);
		s->half_width_us = ng_window(s->centre_us);
		s->centre_fixed = true;
	}
	s->extra_total++;
	double d = (double)gap_us - s->centre_us;
	if (d < 0)
		d = -d;
	if (d <= s->half_width_us) {
		s->extra_in++;
		s->extra_gap_sum_us += gap_us;
		s->extra_rel_sum_us += (double)(rel / 1000);
	}
}

static void ng_on_tcp(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, const pd_seg *seg)
{
	(void)ctx;
	ng_flow *st = fs;
	const pd_tcp *t = &pkt->tcp;
	int dir = seg->dir;
	if (t->flags & (PD_TCP_SYN | PD_TCP_RST))
		return;

	/* As acker B: a pure ACK that releases everything A had in flight. */
	int a = pd_peer(dir);
	ng_dir *da = &st->d[a];
	const pd_tcp_half *ha = &flow->half[a];
	if (t->payload_len > 0) {
		da->pending = false; /* B sent data: A may be answering it */
	} else if ((t->flags & PD_TCP_ACK) && !(t->flags & PD_TCP_FIN) && seg->acked > 0 && ha->seq_valid &&
		   t->ack == ha->next_seq && da->last_data_ts > 0) {
		pd_time gap = pkt->ts - da->last_data_ts;
		if (gap >= NG_MIN_GAP_NS && gap <= NG_MAX_GAP_NS) {
			da->pending = true;
			da->ack_ts = pkt->ts;
			da->gap = gap;
		} else {
			da->pending = false;
		}
	}

	/* As holder A: new data right after such an ACK. */
	ng_dir *dd = &st->d[dir];
	if (!(seg->flags & PD_SEG_NEW_DATA))
		return;
	if (dd->pending) {
		pd_time rel = pkt->ts - dd->ack_ts;
		pd_time rtt = pd_flow_rtt(flow);
		pd_time limit = rtt + rtt / 2 + 2 * 1000 * 1000;
		if (rel >= 0 && rel <= limit && t->payload_len < pd_flow_mss(flow, dir, false))
			ng_record(st, dir, dd->gap, rel, pkt);
		dd->pending = false;
	}
	dd->last_data_ts = pkt->ts;
}

static void ng_report(pd_ctx *ctx, const pd_flow *flow, int a, ng_samples *s)
{
	if (s->n < NG_MIN_STALLS)
		return;
	uint32_t tmp[NG_SAMPLES];
	memcpy(tmp, s->gap_us, s->n * sizeof(uint32_t));
	double centre = pd_median_u32(tmp, s->n);
	double hw = ng_window(centre);
	if (s->centre_fixed) {
		centre = s->centre_us;
		hw = s->half_width_us;
	}

	uint32_t in_gaps[NG_SAMPLES], in_rel[NG_SAMPLES];
	uint32_t k = 0;
	for (uint32_t i = 0; i < s->n; i++) {
		double d = (double)s->gap_us[i] - centre;
		if (d < 0)
			d = -d;
		if (d <= hw) {
			in_gaps[k] = s->gap_us[i];
			in_rel[k] = s->rel_us[i];
			k++;
		}
	}
	uint32_t total = s->n + s->extra_total;
	uint32_t stalls = k + s->extra_in;
	/* a clear cluster: at least 3 and most of the candidates */
	if (stalls < NG_MIN_STALLS || (double)stalls < 0.5 * total)
		return;

	double period_us = pd_median_u32(in_gaps, k);
	double gmin = in_gaps[0], gmax = in_gaps[k - 1];
	double rel_us = pd_median_u32(in_rel, k);
	double rtt_us = (double)pd_flow_rtt(flow) / 1000.0;

	/* Vantage: next to the holder the released segment leaves right after
	 * the ACK; next to the acker it arrives one RTT later; in between, the
	 * release delay is the round trip from the capture point to the holder
	 * and back. The gap is the delayed-ACK timer plus the round trip to the
	 * acker (RTT - release delay), wherever the capture was taken. */
	int vantage = -1; /* -1 unknown, 2 in the middle, else the side the capture is near */
	if (rtt_us >= 1000)
		vantage = rel_us < 0.25 * rtt_us ? a : rel_us > 0.75 * rtt_us ? pd_peer(a) : 2;
	double delack_us = period_us;
	if (vantage >= 0) {
		double to_acker = rtt_us - rel_us;
		delack_us -= to_acker > 0 ? to_acker : 0;
		/* The gap is the round trip itself: the ACK was not delayed (a
		 * long path, not a delayed-ACK timer; seen in nDPI's IEC104
		 * capture: 198 ms gaps on a 198 ms RTT). */
		if (delack_us < NG_MIN_TIMER_US)
			return;
	}

	/* Time lost per stall: from the holder's previous data to the release
	 * of the held segment, which without Nagle would have left at once.
	 * That is the gap plus the release delay at any vantage: next to the
	 * holder the gap already holds the delayed-ACK timer and the RTT (the
	 * release is immediate); next to the acker the gap is the timer and the
	 * release comes one RTT later (the ACK's and the held data's trips). */
	double lost_us = 0;
	for (uint32_t i = 0; i < k; i++)
		lost_us += (double)in_gaps[i] + in_rel[i];
	lost_us += s->extra_gap_sum_us + s->extra_rel_sum_us;
	double lost_s = lost_us / 1e6;
	double dur_s = (double)(flow->last_ts - flow->first_ts) / 1e9;
	double share = dur_s > 0 ? lost_s / dur_s : 0;
	if (share > 1)
		share = 1;

	pd_finding *f = pd_finding_get(ctx, "nagle-delayed-ack", flow);
	for (uint32_t i = 0; i < s->n; i++) {
		double d = (double)s->gap_us[i] - centre;
		if (d < 0)
			d = -d;
		if (d > hw)
			continue;
		pd_finding_occurrence(f, s->frame[i], s->ts[i], "sub-MSS data released by ACK after %.1f ms",
				      "等 ACK %.1f 毫秒后才发出的小报文（不足 MSS）", s->gap_us[i] / 1000.0);
	}
	pd_finding_count(f, s->extra_in);

	char holder[64], acker[64];
	pd_flow_endpoint(flow, a, holder, sizeof(holder));
	pd_flow_endpoint(flow, pd_peer(a), acker, sizeof(acker));
	double period_ms = period_us / 1000.0, gmin_ms = gmin / 1000.0, gmax_ms = gmax / 1000.0;
	double delack_ms = delack_us / 1000.0, rtt_ms = rtt_us / 1000.0, share_pct = share * 100.0;
	if (a == PD_CLIENT)
		pd_finding_detail(f,
				  "client %s holds small segments (Nagle) until server %s ACKs its previous data; "
				  "those ACKs come %.1f ms (median; %.1f-%.1f ms) after the data, i.e. a delayed-ACK "
				  "timer of about %.0f ms. %u stalls of %u candidates, %.3f s lost = %.0f%% of the "
				  "flow's %.3f s; RTT %.2f ms; ",
				  "客户端 %s 发出的小报文被 Nagle 算法扣住，要等服务端 %s 确认（ACK）了它前面的数据才发；"
				  "这些 ACK 在数据之后 %.1f 毫秒才到（中位数；范围 %.1f 至 %.1f 毫秒），即延迟确认定时器约 "
				  "%.0f 毫秒。共 %u 次停顿（候选间隔 %u 个），损失 %.3f 秒，占该流时长的 %.0f%%（该流历时 "
				  "%.3f 秒）；RTT %.2f 毫秒；",
				  holder, acker, period_ms, gmin_ms, gmax_ms, delack_ms, stalls, total, lost_s, share_pct,
				  dur_s, rtt_ms);
	else
		pd_finding_detail(f,
				  "server %s holds small segments (Nagle) until client %s ACKs its previous data; "
				  "those ACKs come %.1f ms (median; %.1f-%.1f ms) after the data, i.e. a delayed-ACK "
				  "timer of about %.0f ms. %u stalls of %u candidates, %.3f s lost = %.0f%% of the "
				  "flow's %.3f s; RTT %.2f ms; ",
				  "服务端 %s 发出的小报文被 Nagle 算法扣住，要等客户端 %s 确认（ACK）了它前面的数据才发；"
				  "这些 ACK 在数据之后 %.1f 毫秒才到（中位数；范围 %.1f 至 %.1f 毫秒），即延迟确认定时器约 "
				  "%.0f 毫秒。共 %u 次停顿（候选间隔 %u 个），损失 %.3f 秒，占该流时长的 %.0f%%（该流历时 "
				  "%.3f 秒）；RTT %.2f 毫秒；",
				  holder, acker, period_ms, gmin_ms, gmax_ms, delack_ms, stalls, total, lost_s, share_pct,
				  dur_s, rtt_ms);

	/* where the capture was taken decides what the gap holds */
	if (vantage < 0)
		pd_finding_append(f, "capture point not determinable (RTT under 1 ms).",
				  "无法判断抓包位置（RTT 不到 1 毫秒）。");
	else if (vantage == 2)
		pd_finding_append(f,
				  "captured between the hosts: the ACK passes one delayed-ACK timer plus the round "
				  "trip to the ACK delayer after the data, the held segment follows after the round "
				  "trip to the Nagle sender.",
				  "抓包点在两台主机之间：数据经过后，要再过一个延迟确认定时器加上到延迟确认一方的往返时间，"
				  "ACK 才经过；被扣住的报文再过一个到 Nagle 发送方的往返时间才到。");
	else if (vantage == a && a == PD_CLIENT)
		pd_finding_append(f,
				  "captured near the client (the Nagle sender): its held segment leaves right after the "
				  "delayed ACK arrives.",
				  "抓包点靠近客户端（Nagle 发送方）：延迟的 ACK 一到，被扣住的报文随即发出。");
	else if (vantage == a)
		pd_finding_append(f,
				  "captured near the server (the Nagle sender): its held segment leaves right after the "
				  "delayed ACK arrives.",
				  "抓包点靠近服务端（Nagle 发送方）：延迟的 ACK 一到，被扣住的报文随即发出。");
	else if (a == PD_CLIENT)
		pd_finding_append(f,
				  "captured near the server (the ACK delayer): its ACK leaves one delayed-ACK timer "
				  "after the data, the held segment arrives one RTT later.",
				  "抓包点靠近服务端（延迟确认的一方）：数据到达后过一个延迟确认定时器它才发出 ACK，"
				  "被扣住的报文再过一个 RTT 到达。");
	else
		pd_finding_append(f,
				  "captured near the client (the ACK delayer): its ACK leaves one delayed-ACK timer "
				  "after the data, the held segment arrives one RTT later.",
				  "抓包点靠近客户端（延迟确认的一方）：数据到达后过一个延迟确认定时器它才发出 ACK，"
				  "被扣住的报文再过一个 RTT 到达。");
	/* the ACKing side's own system, when its SYN shows it (dissect/peer_os.h) */
	uint8_t acker_os = flow->half[pd_peer(a)].os, holder_os = flow->half[a].os;
	/* a timer of the system's own length is named; another one only
	 * says which settings apply */
	if (acker_os == PD_OS_WINDOWS && delack_us > 150000)
		pd_finding_append(f,
				  " The ACKing side is Windows by its SYN's TTL and option order: Windows holds an ACK "
				  "until a second segment arrives or its 200 ms timer fires (TcpAckFrequency, default "
				  "2), and the Linux delayed-ACK settings do not apply to it.",
				  "确认（ACK）的一方由其 SYN 的 TTL 和选项顺序看是 Windows：Windows 会把 ACK 扣到收到"
				  "第二个报文段，或等到它的 200 毫秒定时器触发（TcpAckFrequency，默认 2），Linux 的延迟"
				  "确认设置对它不适用。");
	else if (acker_os == PD_OS_WINDOWS)
		pd_finding_append(f,
				  " The ACKing side is Windows by its SYN's TTL and option order: its delayed ACKs follow "
				  "TcpAckFrequency, and the Linux delayed-ACK settings do not apply to it.",
				  "确认（ACK）的一方由其 SYN 的 TTL 和选项顺序看是 Windows：它的延迟确认由 "
				  "TcpAckFrequency 决定，Linux 的延迟确认设置对它不适用。");
	else if (acker_os == PD_OS_APPLE && delack_us > 90000 && delack_us < 250000)
		pd_finding_append(f,
				  " The ACKing side is macOS or iOS by its SYN's TTL and option order: it sends a delayed "
				  "ACK on a 100 ms timer tick, 100 to 200 ms after the data, and does not delay the ACK "
				  "of a segment with PSH set unless net.inet.tcp.delayed_ack is 1; the Linux "
				  "delayed-ACK settings do not apply to it.",
				  "确认（ACK）的一方由其 SYN 的 TTL 和选项顺序看是 macOS 或 iOS：它在 100 毫秒的定时器"
				  "节拍上发出延迟的 ACK，即数据到达后 100 到 200 毫秒；除非 net.inet.tcp.delayed_ack "
				  "为 1，它不延迟对带 PSH 标志的报文段的确认；Linux 的延迟确认设置对它不适用。");
	else if (acker_os == PD_OS_APPLE)
		pd_finding_append(f,
				  " The ACKing side is macOS or iOS by its SYN's TTL and option order: its delayed ACKs "
				  "follow net.inet.tcp.delayed_ack, and the Linux delayed-ACK settings do not apply to "
				  "it.",
				  "确认（ACK）的一方由其 SYN 的 TTL 和选项顺序看是 macOS 或 iOS：它的延迟确认由 "
				  "net.inet.tcp.delayed_ack 决定，Linux 的延迟确认设置对它不适用。");
	else if (delack_us > 150000)
		pd_finding_append(f,
				  " A timer near 200 ms points to a Windows peer, or a Linux peer whose delayed-ACK "
				  "timer grew to its ceiling: Linux caps it at the smoothed RTT (at least 40 ms) and at "
				  "200 ms, and since 6.7 just below the RTO floor (the route's rto_min, or "
				  "net.ipv4.tcp_rto_min_us since 6.11), so about 200 ms needs an RTT of 200 ms or more.",
				  "定时器接近 200 毫秒，说明对端可能是 Windows，或是延迟确认定时器已涨到上限的 Linux："
				  "Linux 把它限制在平滑 RTT（至少 40 毫秒）和 200 毫秒以内，自内核 6.7 起还要略低于 RTO 下限"
				  "（路由的 rto_min，或自 6.11 起的 net.ipv4.tcp_rto_min_us），所以约 200 毫秒的定时器要 "
				  "200 毫秒以上的 RTT 才会出现。");
	pd_finding_metric(f, "stalls", stalls, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "candidate_gaps", total, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "period_ms", period_us / 1000.0, PD_UNIT_MS, PD_AGG_MAX);
	pd_finding_metric(f, "period_min_ms", gmin / 1000.0, PD_UNIT_MS, PD_AGG_MAX);
	pd_finding_metric(f, "period_max_ms", gmax / 1000.0, PD_UNIT_MS, PD_AGG_MAX);
	pd_finding_metric(f, "delayed_ack_ms", delack_us / 1000.0, PD_UNIT_MS, PD_AGG_MAX);
	pd_finding_metric(f, "release_delay_ms", rel_us / 1000.0, PD_UNIT_MS, PD_AGG_MAX);
	pd_finding_metric(f, "rtt_ms", rtt_us / 1000.0, PD_UNIT_MS, PD_AGG_MAX);
	pd_finding_metric(f, "time_lost", lost_s, PD_UNIT_S, PD_AGG_SUM);
	pd_finding_metric(f, "time_lost_share", share, PD_UNIT_RATIO, PD_AGG_MAX);
	pd_finding_add_impact(f, lost_s);
	pd_finding_set_severity(f, share >= 0.05 || lost_s >= 0.5 ? PD_SEV_WARNING : PD_SEV_INFO);
	if (share >= 0.5 && stalls >= 10)
		pd_finding_set_severity(f, PD_SEV_ERROR);
	double conf = 0.55 + 0.3 * ((double)stalls / total) + (stalls >= 10 ? 0.1 : 0);
	pd_finding_set_confidence(f, conf > 0.95 ? 0.95 : conf);
	/* TCP_CORK and MSG_MORE are Linux's; TCP_QUICKACK and the route's
	 * quickack are a Linux receiver's: a Windows or Apple ACKer has its
	 * own setting, ranked first */
	bool holder_linux = holder_os != PD_OS_WINDOWS && holder_os != PD_OS_APPLE;
	const char *own = acker_os == PD_OS_WINDOWS ? "TcpAckFrequency"
			  : acker_os == PD_OS_APPLE ? "net.inet.tcp.delayed_ack"
						    : NULL;
	if (own && holder_linux)
		pd_finding_settings(f, own, "TCP_NODELAY", "writev coalescing", "TCP_CORK", "MSG_MORE", NULL);
	else if (own)
		pd_finding_settings(f, own, "TCP_NODELAY", "writev coalescing", NULL);
	else if (holder_linux)
		pd_finding_settings(f, "TCP_NODELAY", "writev coalescing", "TCP_CORK", "MSG_MORE", "TCP_QUICKACK",
				    "route quickack", NULL);
	else
		pd_finding_settings(f, "TCP_NODELAY", "writev coalescing", "TCP_QUICKACK", "route quickack", NULL);
}

static void ng_on_flow_end(pd_ctx *ctx, void *g, const pd_flow *flow, void *fs)
{
	(void)g;
	ng_flow *st = fs;
	for (int a = 0; a < 2; a++) {
		if (!st->s[a])
			continue;
		if (flow->proto == 6)
			ng_report(ctx, flow, a, st->s[a]);
		g_free(st->s[a]);
		st->s[a] = NULL;
	}
}

static const char *const ng_emits[] = {"nagle-delayed-ack", NULL};

const pd_detector pd_det_nagle = {
	.name = "nagle",
	.emits = ng_emits,
	.from_payload = true,
	.flow_state_size = sizeof(ng_flow),
	.on_tcp = ng_on_tcp,
	.on_flow_end = ng_on_flow_end,
};
