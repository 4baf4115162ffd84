/* TCP_CORK left on: the last partial segment of every response held until
 * the kernel sends it anyway.
 *
 * A corked Linux socket sends only full-sized segments; a partial one
 * waits until the application clears TCP_CORK or, when nothing is in
 * flight, until the zero-window-probe timer fires: max(RTO, 200 ms)
 * (tcp_probe0_base; "a 200 millisecond ceiling" in man 7 tcp), which on
 * Linux is about 200 ms plus the smoothed RTT since the RTO's variance
 * term is at least the 200 ms minimum. The release comes from a timer,
 * not from a packet: it follows the peer's last packet (the request, or
 * its ACK of the response's full-sized part) by that fixed time.
 *
 * Per holder A and peer B we take, for each request of B answered by A,
 * the response's partial segment when everything A sent before it was
 * already acknowledged (nothing in flight: no Nagle, no congestion
 * window) and nothing of A's but full-sized segments came since the
 * request: the gap from B's last packet to it, less the round trip when
 * the capture was taken next to B. A cork shows as a tight cluster of
 * such holds at 190 ms to 200 ms + a few RTTs, over at least CK_MIN
 * responses and most of the candidates, whatever the response's size. An
 * application's think time is as long but varies: it does not cluster. */
#include <glib.h>
#include <string.h>

#include "dissect/peer_os.h"
#include "heuristics/detector.h"
#include "heuristics/memacct.h"
#include "heuristics/util.h"

#define CK_SAMPLES 64 /* exact samples per direction; later ones counted */
#define CK_MIN 5 /* held responses for a finding */
#define CK_SCREEN_NS (150 * 1000 * 1000LL) /* shortest gap considered */
#define CK_MAX_NS (3 * PD_NS_PER_SEC)
#define CK_FLOOR_US 190000.0 /* the probe timer is never below 200 ms */

/* Room for cap samples, in the same allocation after the header: most
 * connections hold a few responses, and room for CK_SAMPLES from the first
 * was a fifth of a front end's heap. */
typedef struct ck_samples {
	uint32_t *hold_us;
	uint64_t *frame;
	pd_time *ts;
	uint32_t *size; /* the held segment's payload */
	uint8_t *split; /* full-sized segments of the response left before it */
	uint32_t n, cap;
	uint32_t extra; /* candidates past CK_SAMPLES */
	double extra_hold_us[2]; /* [0] sum, [1] sum of squares */
} ck_samples;

#define CK_FIRST_ROOM 4

typedef struct ck_dir {
	pd_time peer_last_ts; /* B's last packet */
	bool request; /* B sent new data since A's last partial segment */
	uint32_t full_since; /* A's full-sized segments since then */
	uint32_t responses; /* requests answered (a partial segment after B's data) */
} ck_dir;

typedef struct ck_flow {
	ck_dir d[2]; /* indexed by holder A */
	ck_samples *s[2];
} ck_flow;

static pd_time ck_correction(const pd_flow *flow, int a)
{
	pd_time rtt = pd_flow_rtt(flow);
	int v = pd_flow_vantage(flow);
	if (v == a || rtt < PD_NS_PER_SEC / 1000)
		return 0;
	if (v == pd_peer(a))
		return rtt; /* B's packet went out, reached A half an RTT later, the release came back */
	return rtt / 2;
}

/* s (NULL: none yet) with room for 4 times as many samples, up to
 * CK_SAMPLES; s is freed. */
static ck_samples *ck_grow(ck_samples *s)
{
	uint32_t cap = s ? MIN(s->cap * 4, CK_SAMPLES) : CK_FIRST_ROOM;
	size_t at = (sizeof(ck_samples) + 7) & ~(size_t)7;
	ck_samples *g = pd_mem_new0(PD_MEM_DETECTORS, at + cap * (sizeof(uint64_t) + sizeof(pd_time) +
								      2 * sizeof(uint32_t) + sizeof(uint8_t)));
	uint8_t *p = (uint8_t *)g + at;
	g->frame = (uint64_t *)p;
	g->ts = (pd_time *)(p += cap * sizeof(uint64_t));
	g->hold_us = (uint32_t *)(p += cap * sizeof(pd_time));
	g->size = (uint32_t *)(p += cap * sizeof(uint32_t));
	g->split = p + cap * sizeof(uint32_t);
	g->cap = cap;
	if (s) {
		g->n = s->n;
		memcpy(g->frame, s->frame, s->n * sizeof(uint64_t));
		memcpy(g->ts, s->ts, s->n * sizeof(pd_time));
		memcpy(g->hold_us, s->hold_us, s->n * sizeof(uint32_t));
		memcpy(g->size, s->size, s->n * sizeof(uint32_t));
		memcpy(g->split, s->split, s->n);
		pd_mem_free(PD_MEM_DETECTORS, s);
	}
	return g;
}

static void ck_on_tcp(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, const pd_seg *seg)
{
	(void)ctx;
	ck_flow *st = fs;
	const pd_tcp *t = &pkt->tcp;
	int dir = seg->dir, b = pd_peer(dir);
	if (t->flags & (PD_TCP_SYN | PD_TCP_RST))
		return;

	/* as B: a request for the other side, or its ACK */
	ck_dir *as_b = &st->d[b];
	as_b->peer_last_ts = pkt->ts;
	if (t->payload_len > 0 && (seg->flags & PD_SEG_NEW_DATA)) {
		as_b->request = true;
		as_b->full_since = 0;
	}

	/* as A */
	ck_dir *da = &st->d[dir];
	if (!t->payload_len || !(seg->flags & PD_SEG_NEW_DATA) || (seg->flags & PD_SEG_RETRANS))
		return;
	uint32_t mss = pd_flow_mss(flow, dir, false);
	if (t->payload_len >= mss) {
		da->full_since++;
		return;
	}
	if (!da->request)
		return;
	da->request = false;
	da->responses++;
	const pd_tcp_half *hb = &flow->half[b];
	/* nothing of A's in flight before it: B had acknowledged it all */
	bool idle = hb->ack_valid && hb->last_ack == t->seq;
	pd_time gap = pkt->ts - da->peer_last_ts;
	uint32_t full = da->full_since;
	da->full_since = 0;
	if (!idle || !da->peer_last_ts || gap < CK_SCREEN_NS || gap > CK_MAX_NS)
		return;
	pd_time hold = gap - ck_correction(flow, dir);
	if (hold <= 0)
		return;
	ck_samples *s = st->s[dir];
	if (!s || (s->n == s->cap && s->cap < CK_SAMPLES))
		s = st->s[dir] = ck_grow(s);
	uint32_t us = (uint32_t)(hold / 1000);
	if (s->n < CK_SAMPLES) {
		s->hold_us[s->n] = us;
		s->frame[s->n] = pkt->frame_no;
		s->ts[s->n] = pkt->ts;
		s->size[s->n] = t->payload_len;
		s->split[s->n] = full > 0;
		s->n++;
	} else {
		s->extra++;
		s->extra_hold_us[0] += us;
		s->extra_hold_us[1] += (double)us * us;
	}
}

static double ck_half_width(double centre_us)
{
	double w = 0.05 * centre_us;
	return w < 10000 ? 10000 : w;
}

static void ck_report(pd_ctx *ctx, const pd_flow *flow, int a, const ck_samples *s, const ck_dir *da)
{
	if (s->n < CK_MIN)
		return;
	/* TCP_CORK is Linux's: a sender whose SYN names Windows or an Apple
	 * system has no such option, and a fixed hold there is its
	 * application's (Zeek's krb/kerberos_tso.pcapng: a Windows SMB server
	 * answering on a 200 ms grid) */
	uint8_t os = flow->half[a].os;
	if (os == PD_OS_WINDOWS || os == PD_OS_APPLE)
		return;
	uint32_t tmp[CK_SAMPLES];
	memcpy(tmp, s->hold_us, s->n * sizeof(uint32_t));
	double centre = pd_median_u32(tmp, s->n);
	double hw = ck_half_width(centre);
	double rtt_us = (double)pd_flow_rtt(flow) / 1000.0;
	/* the probe timer: 200 ms at least, about 200 ms + RTT on Linux, more
	 * when the RTT varies */
	double ceiling_us = 200000.0 + 3 * rtt_us + 60000.0;
	if (centre < CK_FLOOR_US || centre > ceiling_us)
		return;
	uint32_t k = 0, split = 0, small = 0;
	double lost_us = 0, hmin = 0, hmax = 0;
	uint32_t smin = 0, smax = 0;
	for (uint32_t i = 0; i < s->n; i++) {
		double d = (double)s->hold_us[i] - centre;
		if (d < -hw || d > hw)
			continue;
		if (!k || s->hold_us[i] < hmin)
			hmin = s->hold_us[i];
		if (!k || s->hold_us[i] > hmax)
			hmax = s->hold_us[i];
		if (!k || s->size[i] < smin)
			smin = s->size[i];
		if (!k || s->size[i] > smax)
			smax = s->size[i];
		k++;
		split += s->split[i];
		small += !s->split[i];
		lost_us += s->hold_us[i];
	}
	/* later candidates: counted when their mean falls in the cluster */
	uint32_t extra_in = 0;
	if (s->extra) {
		double mean = s->extra_hold_us[0] / s->extra;
		if (mean >= centre - hw && mean <= centre + hw) {
			extra_in = s->extra;
			lost_us += s->extra_hold_us[0];
		}
	}
	uint32_t total = s->n + s->extra;
	uint32_t held = k + extra_in;
	/* a tight cluster: most candidates */
	if (held < CK_MIN || (double)held < 0.75 * total)
		return;

	double lost_s = lost_us / 1e6;
	double dur_s = (double)(flow->last_ts - flow->first_ts) / 1e9;
	double share = dur_s > 0 ? lost_s / dur_s : 0;
	if (share > 1)
		share = 1;
	pd_finding *f = pd_finding_get(ctx, "cork-timer-delay", flow);
	for (uint32_t i = 0; i < s->n; i++) {
		double d = (double)s->hold_us[i] - centre;
		if (d < -hw || d > hw)
			continue;
		if (s->split[i])
			pd_finding_occurrence(f, s->frame[i], s->ts[i],
					      "last partial segment held %.1f ms; the full-sized part left at once",
					      "最后一个不满的报文段被扣住 %.1f 毫秒；满 MSS 的部分立即发出",
					      s->hold_us[i] / 1000.0);
		else
			pd_finding_occurrence(f, s->frame[i], s->ts[i], "response segment held %.1f ms",
					      "响应报文段被扣住 %.1f 毫秒", s->hold_us[i] / 1000.0);
	}
	pd_finding_count(f, extra_in);

	char holder[64], peer[64];
	pd_flow_endpoint(flow, a, holder, sizeof(holder));
	pd_flow_endpoint(flow, pd_peer(a), peer, sizeof(peer));
	double c_ms = centre / 1000.0, lo_ms = hmin / 1000.0, hi_ms = hmax / 1000.0, rtt_ms = rtt_us / 1000.0;
	if (a == PD_SERVER)
		pd_finding_detail(f,
				  "server %s sent the end of %u of its %u responses to client %s %.1f ms (median; "
				  "%.1f-%.1f ms) after the client's last packet, with nothing of its own in flight "
				  "and whatever the response's size (%u-%u bytes in the held segment): the same "
				  "hold every time, as a timer gives, where think time varies. %.3f s lost = %.0f%% of the flow's "
				  "%.3f s; RTT %.2f ms",
				  "服务端 %1$s 在发给客户端 %4$s 的 %3$u 个响应中，有 %2$u 个的结尾在客户端最后一个报文"
				  "之后 %5$.1f 毫秒（中位数；范围 %6$.1f 至 %7$.1f 毫秒）才发出，当时它自己没有在途数据，"
				  "且与响应大小无关（被扣住的报文段为 %8$u 至 %9$u 字节）：每次扣住的时间都一样，"
				  "这是定时器的特征，而应用的处理时间会变化。损失 %10$.3f 秒，占该流时长 %12$.3f 秒的 %11$.0f%%；RTT %13$.2f 毫秒",
				  holder, held, da->responses, peer, c_ms, lo_ms, hi_ms, smin, smax, lost_s,
				  share * 100.0, dur_s, rtt_ms);
	else
		pd_finding_detail(f,
				  "client %s sent the end of %u of its %u messages to server %s %.1f ms (median; "
				  "%.1f-%.1f ms) after the server's last packet, with nothing of its own in flight "
				  "and whatever the message's size (%u-%u bytes in the held segment): the same "
				  "hold every time, as a timer gives, where think time varies. %.3f s lost = %.0f%% of the flow's "
				  "%.3f s; RTT %.2f ms",
				  "客户端 %1$s 在发给服务端 %4$s 的 %3$u 条消息中，有 %2$u 条的结尾在服务端最后一个报文"
				  "之后 %5$.1f 毫秒（中位数；范围 %6$.1f 至 %7$.1f 毫秒）才发出，当时它自己没有在途数据，"
				  "且与消息大小无关（被扣住的报文段为 %8$u 至 %9$u 字节）：每次扣住的时间都一样，"
				  "这是定时器的特征，而应用的处理时间会变化。损失 %10$.3f 秒，占该流时长 %12$.3f 秒的 %11$.0f%%；RTT %13$.2f 毫秒",
				  holder, held, da->responses, peer, c_ms, lo_ms, hi_ms, smin, smax, lost_s,
				  share * 100.0, dur_s, rtt_ms);
	if (split)
		pd_finding_append(f,
				  "; in %u of them the full-sized segments left at once and only the last partial "
				  "one waited, as a corked socket sends",
				  "；其中 %u 个响应的满 MSS 报文段立即发出，只有最后一个不满的报文段在等待，"
				  "这正是设置了 cork 的套接字的发送方式",
				  split);
	else
		pd_finding_append(f,
				  "; every held reply fitted in one segment, so an application that sleeps a fixed "
				  "time of that length before each answer would look the same",
				  "；每个被扣住的应答都不超过一个报文段，所以应用若在每次应答前固定休眠同样长的时间，"
				  "看起来也会一样");
	pd_finding_append(f,
			  "; a socket with TCP_CORK set (or written with MSG_MORE) sends only full-sized "
			  "segments and holds the rest until the application clears the option or, with "
			  "nothing in flight, until the zero-window-probe timer fires: the larger of the RTO "
			  "and 200 ms, about 200 ms plus the RTT on Linux (the 200 ms ceiling of man 7 tcp); "
			  "clear TCP_CORK after the last write of each response, or send each response in one "
			  "write with TCP_NODELAY",
			  "；设置了 TCP_CORK（或用 MSG_MORE 写入）的套接字只发送满 MSS 的报文段，其余部分扣住，"
			  "直到应用清除该选项，或在没有在途数据时等到零窗口探测定时器触发：取 RTO 与 200 毫秒中的"
			  "较大者，在 Linux 上约为 200 毫秒加 RTT（即 man 7 tcp 所说的 200 毫秒上限）；应在每个响应"
			  "最后一次写入后清除 TCP_CORK，或者每个响应一次写出并设置 TCP_NODELAY");
	(void)small;
	pd_finding_metric(f, "held_responses", held, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "candidates", total, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "responses", da->responses, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "split_responses", split, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "hold_ms", c_ms, PD_UNIT_MS, PD_AGG_MAX);
	pd_finding_metric(f, "hold_min_ms", lo_ms, PD_UNIT_MS, PD_AGG_MIN);
	pd_finding_metric(f, "hold_max_ms", hi_ms, PD_UNIT_MS, PD_AGG_MAX);
	pd_finding_metric(f, "rtt_ms", rtt_ms, PD_UNIT_MS, PD_AGG_MAX);
	pd_finding_metric(f, "time_lost", lost_s, PD_UNIT_S, PD_AGG_SUM);
	pd_finding_metric(f, "time_lost_share", share, PD_UNIT_RATIO, PD_AGG_MAX);
	pd_finding_add_impact(f, lost_s);
	pd_finding_set_severity(f, share >= 0.05 || lost_s >= 0.5 ? PD_SEV_WARNING : PD_SEV_INFO);
	if (share >= 0.5 && held >= 10)
		pd_finding_set_severity(f, PD_SEV_ERROR);
	/* a split response is the cork's own mark; small responses alone could
	 * be a fixed sleep of about 200 ms */
	double conf = 0.6 + 0.2 * ((double)held / total) + (split ? 0.15 : 0);
	pd_finding_set_confidence(f, conf > 0.95 ? 0.95 : conf);
	pd_finding_settings(f, "TCP_CORK", "MSG_MORE", NULL);
}

static void ck_on_flow_end(pd_ctx *ctx, void *g, const pd_flow *flow, void *fs)
{
	(void)g;
	ck_flow *st = fs;
	for (int a = 0; a < 2; a++) {
		if (!st->s[a])
			continue;
		if (flow->proto == 6)
			ck_report(ctx, flow, a, st->s[a], &st->d[a]);
		pd_mem_free(PD_MEM_DETECTORS, st->s[a]);
		st->s[a] = NULL;
	}
}

static const char *const ck_emits[] = {"cork-timer-delay", NULL};

const pd_detector pd_det_cork = {
	.name = "cork",
	.emits = ck_emits,
	.from_payload = true,
	.flow_state_size = sizeof(ck_flow),
	.on_tcp = ck_on_tcp,
	.on_flow_end = ck_on_flow_end,
};
