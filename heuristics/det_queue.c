/* Queueing delay (bufferbloat): during a bulk transfer the round-trip time
 * rises to many times the path's base RTT while the throughput stays flat.
 * The extra data in flight then only waits in a queue in front of the
 * bottleneck (a router's or shaper's buffer, a host qdisc).
 *
 * The RTT under load is measured wherever the capture was taken, as the
 * sum of two partial round trips: data -> ACK (capture point to the
 * receiver and back; the whole path at the sender) and the timestamp
 * echo, the time from the receiver's packet carrying TSval X to the
 * sender's first data carrying TSecr >= X (capture point to the sender and
 * back; the whole path at the receiver, where data -> ACK is only the
 * receiver's own turn-around). An echo that arrives after the sender was
 * silent measures the sender's pause, not the path, and is left out; next
 * to the sender the echo is only the sender's own reaction and is not
 * used. */
#include <stdlib.h>
#include <string.h>

#include "heuristics/detector.h"
#include "heuristics/memacct.h"
#include "heuristics/util.h"

#define QD_BULK_BYTES (128 * 1024) /* bytes sent before a flow is judged */
#define QD_LOG_FROM (16 * 1024) /* bytes sent before samples are kept */
#define QD_LOG 64 /* samples kept per direction (thinned out when full) */
#define QD_LOG_FIRST 4 /* room made at first: most logs never keep more */
/* the room doubles from QD_LOG_FIRST and must meet QD_LOG exactly */
G_STATIC_ASSERT(QD_LOG % QD_LOG_FIRST == 0 && ((QD_LOG / QD_LOG_FIRST) & (QD_LOG / QD_LOG_FIRST - 1)) == 0);
#define QD_MIN_ROUNDS 20 /* the transfer lasts at least this many base RTTs */
#define QD_MIN_SAMPLES 6 /* in the second half */
#define QD_GROWTH 3.0 /* RTT under load / base RTT */
#define QD_MIN_DELAY (20 * 1000 * 1000) /* ns of queueing */
#define QD_MIN_QUEUE_SEGS 8 /* full-size segments waiting in the queue */

enum { QD_DA = 0, QD_ECHO = 1 };

typedef struct qd_sample {
	pd_time ts;
	uint64_t frame;
	uint32_t us; /* the partial round trip */
	uint32_t kbytes : 31; /* KiB S had sent */
	uint32_t kind : 1; /* QD_DA or QD_ECHO */
} qd_sample;

/* A log's room doubles as samples come, up to QD_LOG: on a front end nine
 * in ten directions past QD_LOG_FROM keep at most 4 samples of a kind. */
typedef struct qd_log {
	uint32_t n, stride, skip, cap;
	qd_sample *s; /* [cap] */
} qd_log;

/* one log per kind: the timestamp echo gives one sample per round trip,
 * data -> ACK at the receiver many more */
typedef struct qd_logs {
	qd_log k[2];
	/* per kind: the largest sample, and the first above three times the
	 * handshake RTT (the logs keep only some) */
	uint32_t max_us[2];
	uint64_t max_frame[2], over_frame[2];
	pd_time max_ts[2], over_ts[2];
} qd_logs;

typedef struct qd_dir {
	/* the timestamp echo: R's TSval and when R first sent it */
	bool probe_set, r_ts_seen;
	uint32_t probe_tsval, r_last_tsval;
	pd_time probe_ts;
	pd_time last_s_ts; /* S's previous data segment */
	uint32_t n_da, n_echo;
	bool data_started;
	pd_time first_data_ts, last_data_ts;
	qd_logs *log;
} qd_dir;

typedef struct qd_flow {
	qd_dir d[2]; /* by data sender */
} qd_flow;

static void qd_record(qd_dir *d, const pd_flow *flow, int s, const pd_packet *pkt, pd_time sample, int kind)
{
	uint64_t sent = flow->half[s].unique_bytes;
	if (!d->log) {
		if (sent < QD_LOG_FROM)
			return;
		d->log = pd_mem_new0(PD_MEM_DETECTORS, sizeof(qd_logs)); /* once per bulk direction */
		d->log->k[QD_DA].stride = 1;
		d->log->k[QD_ECHO].stride = 1;
	}
	qd_logs *x = d->log;
	if (sample / 1000 > x->max_us[kind]) {
		x->max_us[kind] = (uint32_t)(sample / 1000 > UINT32_MAX ? UINT32_MAX : sample / 1000);
		x->max_frame[kind] = pkt->frame_no;
		x->max_ts[kind] = pkt->ts;
	}
	if (!x->over_frame[kind] && flow->hs_rtt > 0 && sample >= QD_GROWTH * pd_flow_rtt(flow)) {
		x->over_frame[kind] = pkt->frame_no;
		x->over_ts[kind] = pkt->ts;
	}
	qd_log *l = &d->log->k[kind];
	if (++l->skip < l->stride)
		return;
	l->skip = 0;
	if (l->n == QD_LOG) { /* keep every other sample, take half as many from now on */
		for (uint32_t i = 0; i < QD_LOG / 2; i++)
			l->s[i] = l->s[2 * i];
		l->n = QD_LOG / 2;
		l->stride *= 2;
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : QD_LOG_FIRST;
		pd_mem_count(PD_MEM_DETECTORS, -(int64_t)pd_mem_size(l->s));
		l->s = g_renew(qd_sample, l->s, l->cap);
		pd_mem_count(PD_MEM_DETECTORS, (int64_t)pd_mem_size(l->s));
	}
	pd_time us = sample / 1000;
	l->s[l->n++] = (qd_sample){pkt->ts, pkt->frame_no, (uint32_t)(us > UINT32_MAX ? UINT32_MAX : us),
				   (uint32_t)((sent / 1024) & 0x7fffffff), (uint32_t)kind};
}

static void qd_on_tcp(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, const pd_seg *seg)
{
	(void)ctx;
	qd_flow *st = fs;
	const pd_tcp *t = &pkt->tcp;
	int dir = seg->dir;

	/* ---- as sender S = dir */
	qd_dir *ds = &st->d[dir];
	if (t->payload_len > 0 && !(t->flags & PD_TCP_SYN)) {
		if (seg->flags & PD_SEG_NEW_DATA) {
			if (!ds->data_started) {
				ds->data_started = true;
				ds->first_data_ts = pkt->ts;
			}
			ds->last_data_ts = pkt->ts;
		}
		if (t->has_ts && ds->probe_set && !(seg->flags & PD_SEG_RETRANS) &&
		    pd_seq_le(ds->probe_tsval, t->tsecr)) {
			pd_time sample = pkt->ts - ds->probe_ts;
			ds->probe_set = false;
			/* after a silence the echo holds the sender's pause */
			if (sample > 0 && ds->last_s_ts && pkt->ts - ds->last_s_ts < sample / 4) {
				ds->n_echo++;
				qd_record(ds, flow, dir, pkt, sample, QD_ECHO);
			}
		}
		ds->last_s_ts = pkt->ts;
	}

	/* ---- as receiver R = dir, for the data of S = peer */
	int s = pd_peer(dir);
	qd_dir *dr = &st->d[s];
	if (t->has_ts && !(t->flags & PD_TCP_RST)) {
		if (!dr->r_ts_seen || t->tsval != dr->r_last_tsval) {
			if (!dr->probe_set) {
				dr->probe_set = true;
				dr->probe_tsval = t->tsval;
				dr->probe_ts = pkt->ts;
			}
			dr->r_last_tsval = t->tsval;
			dr->r_ts_seen = true;
		}
	}
	if (seg->rtt > 0 && dr->data_started) {
		dr->n_da++;
		qd_record(dr, flow, s, pkt, seg->rtt, QD_DA);
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* One kind's samples over [from, to): median and 90th percentile. */
typedef struct qd_stat {
	double med, p90;
	uint32_t n;
} qd_stat;

static void qd_stats(const qd_log *l, uint32_t from, uint32_t to, qd_stat *out)
{
	uint32_t v[QD_LOG], n = 0;
	memset(out, 0, sizeof(*out));
	for (uint32_t i = from; i < to; i++)
		v[n++] = l->s[i].us;
	if (!n)
		return;
	qsort(v, n, sizeof(v[0]), cmp_u32);
	out->n = n;
	out->med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + (double)v[n / 2]) / 2;
	out->p90 = v[(n * 9) / 10 < n ? (n * 9) / 10 : n - 1];
}

/* Bytes per second S sent between samples a and b. */
static double qd_rate(const qd_log *l, uint32_t a, uint32_t b)
{
	double dt = (double)(l->s[b].ts - l->s[a].ts) / 1e9;
	return dt > 0 ? ((double)l->s[b].kbytes - l->s[a].kbytes) * 1024 / dt : 0;
}

static void qd_report(pd_ctx *ctx, const pd_flow *flow, qd_dir *d, int s)
{
	const pd_tcp_half *hs = &flow->half[s];
	if (!d->log || hs->unique_bytes < QD_BULK_BYTES)
		return;
	/* the base RTT: the handshake spans the whole path at any vantage
	 * point; without it the RTT of the quietest stretch is unknown */
	pd_time base = flow->hs_rtt > 0 ? pd_flow_rtt(flow) : 0;
	if (base <= 0)
		return;
	pd_time T = d->last_data_ts - d->first_data_ts;
	if (T < QD_MIN_ROUNDS * base)
		return;
	pd_time mid = d->first_data_ts + T / 2;
	/* each kind over the first and the second half of the transfer; the
	 * RTT is the sum of the two partial round trips */
	qd_stat st[2][2];
	uint32_t half[2];
	for (int k = 0; k < 2; k++) {
		const qd_log *lk = &d->log->k[k];
		half[k] = 0;
		while (half[k] < lk->n && lk->s[half[k]].ts < mid)
			half[k]++;
		qd_stats(lk, 0, half[k], &st[k][0]);
		qd_stats(lk, half[k], lk->n, &st[k][1]);
	}
	/* Next to the sender the echo is the sender's own wait before it
	 * could send (a congestion window full after a loss): not the path.
	 * data -> ACK there spans the whole round trip already. */
	if (pd_flow_vantage(flow) == s) {
		memset(&st[QD_ECHO], 0, sizeof(st[QD_ECHO]));
		d->n_echo = 0;
	}
	int dom = st[QD_ECHO][1].med > st[QD_DA][1].med ? QD_ECHO : QD_DA;
	const qd_log *l = &d->log->k[dom];
	if (half[dom] < 2 || st[dom][1].n < QD_MIN_SAMPLES)
		return;
	double med1 = st[QD_DA][0].med + st[QD_ECHO][0].med;
	double med2 = st[QD_DA][1].med + st[QD_ECHO][1].med;
	double p90_2 = st[QD_DA][1].p90 + st[QD_ECHO][1].p90;
	double base_ms = (double)base / 1e6, load_ms = med2 / 1e3;
	double delay_ms = load_ms - base_ms;
	double rate1 = qd_rate(l, 0, half[dom] - 1), rate2 = qd_rate(l, half[dom], l->n - 1);
	/* the extra delay bought no throughput: the rate did not grow with it */
	bool flat = rate1 > 0 && rate2 > 0 && rate2 <= 1.3 * rate1;
	if (load_ms < QD_GROWTH * base_ms || delay_ms * 1e6 < QD_MIN_DELAY || !flat)
		return;
	/* A queue of a packet or two is no bufferbloat: there the RTT is
	 * the receiver's (delayed ACKs, a slow reader), as it is when the
	 * receiver closed its window. */
	double queue_bytes = rate2 * delay_ms / 1e3;
	if (queue_bytes < QD_MIN_QUEUE_SEGS * pd_flow_mss(flow, s, false) || flow->half[pd_peer(s)].zero_win)
		return;
	double rate = (rate1 + rate2) / 2;

	char sname[64], rname[64];
	pd_flow_endpoint(flow, s, sname, sizeof(sname));
	pd_flow_endpoint(flow, pd_peer(s), rname, sizeof(rname));
	pd_finding *f = pd_finding_get(ctx, "queueing-delay", flow);
	if (d->log->over_frame[dom])
		pd_finding_occurrence(f, d->log->over_frame[dom], d->log->over_ts[dom],
				      "RTT above three times the base RTT", "RTT 超过基础 RTT 的三倍");
	pd_finding_occurrence(f, d->log->max_frame[dom], d->log->max_ts[dom], "largest RTT measured",
			      "测得的最大 RTT");
	pd_finding_detail(
		f,
		"While %s sent %llu bytes to %s, the RTT rose from a base of %.1f ms to %.1f ms "
		"(median over the second half of the transfer; %.1f ms in the first half, 90th "
		"percentile %.1f ms, largest %.1f ms at frame %llu): %.0f ms of queueing, %.1f "
		"times the base RTT",
		"%1$s 向 %3$s 发送 %2$llu 字节期间，RTT 从基础值 %4$.1f ms 涨到 %5$.1f ms（传输后半段的中位数；前半段 %6$.1f "
		"ms，90 分位 %7$.1f ms，最大 %8$.1f ms，见第 %9$llu 帧）：排队 %10$.0f ms，是基础 RTT 的 %11$.1f 倍",
		sname, (unsigned long long)hs->unique_bytes, rname, base_ms, load_ms, med1 / 1e3, p90_2 / 1e3,
		d->log->max_us[dom] / 1e3, (unsigned long long)d->log->max_frame[dom], delay_ms,
		load_ms / base_ms);
	pd_finding_append(f, "; meanwhile the throughput stayed flat at %.2f Mbit/s (%.2f, then %.2f)",
			  "；与此同时吞吐量一直持平在 %.2f Mbit/s（前半段 %.2f，后半段 %.2f）",
			  rate * 8 / 1e6, rate1 * 8 / 1e6, rate2 * 8 / 1e6);
	if (hs->retrans)
		pd_finding_append(f, " and %u segments were retransmitted", "，有 %u 个报文被重传",
				  hs->retrans);
	else
		pd_finding_append(f, " and nothing was lost", "，没有丢包");
	pd_finding_append(
		f,
		". The extra data in flight bought no throughput: it waited in a queue in front of "
		"a bottleneck of about %.2f Mbit/s, which held about %.0f KB (%.0f ms at that "
		"rate).",
		"。多出来的在途数据没有换来吞吐量：它们在一个约 %.2f Mbit/s 的瓶颈前排队，队列中积压约 %.0f KB（按该速率约 %.0f ms）。",
		rate2 * 8 / 1e6, queue_bytes / 1e3, delay_ms);
	if (dom == QD_ECHO)
		pd_finding_append(
			f,
			" The RTT comes from the TCP timestamp echo (the sender's data echoes the "
			"receiver's ACKs one round trip later), so it is measured at the receiver "
			"too.",
			"RTT 取自 TCP 时间戳回显（发送端的数据在一个往返后回显接收端 ACK 的时间戳），因此在接收端也能测得。");
	pd_finding_metric(f, "base_rtt_ms", base_ms, PD_UNIT_MS, PD_AGG_MIN);
	pd_finding_metric(f, "rtt_under_load_ms", load_ms, PD_UNIT_MS, PD_AGG_MAX);
	pd_finding_metric(f, "rtt_first_half_ms", med1 / 1e3, PD_UNIT_MS, PD_AGG_MAX);
	pd_finding_metric(f, "rtt_p90_ms", p90_2 / 1e3, PD_UNIT_MS, PD_AGG_MAX);
	pd_finding_metric(f, "rtt_max_ms", d->log->max_us[dom] / 1e3, PD_UNIT_MS, PD_AGG_MAX);
	pd_finding_metric(f, "queueing_delay_ms", delay_ms, PD_UNIT_MS, PD_AGG_MAX);
	pd_finding_metric(f, "rtt_growth", load_ms / base_ms, PD_UNIT_RATIO, PD_AGG_MAX);
	pd_finding_metric(f, "rate_first_half", rate1, PD_UNIT_BYTES_PER_S, PD_AGG_MAX);
	pd_finding_metric(f, "rate_second_half", rate2, PD_UNIT_BYTES_PER_S, PD_AGG_MAX);
	pd_finding_metric(f, "queued_bytes", queue_bytes, PD_UNIT_BYTES, PD_AGG_MAX);
	pd_finding_metric(f, "retransmitted_segments", hs->retrans, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "samples", d->n_da + d->n_echo, PD_UNIT_COUNT, PD_AGG_SUM);
	/* a warning from 100 ms of queueing or five times the base RTT */
	bool deep = delay_ms >= 100 || load_ms >= 5 * base_ms;
	pd_finding_set_severity(f, deep ? PD_SEV_WARNING : PD_SEV_INFO);
	pd_finding_set_confidence(f, st[dom][1].n >= 10 ? 0.8 : 0.65);
	pd_finding_settings(f, "qdisc limit", "shaper queue size", "qdisc choice", "net.core.default_qdisc",
			    "byte queue limits (BQL)", "pacing (fq, SO_MAX_PACING_RATE)",
			    "net.ipv4.tcp_congestion_control", NULL);
}

static void qd_on_flow_end(pd_ctx *ctx, void *g, const pd_flow *flow, void *fs)
{
	(void)g;
	qd_flow *st = fs;
	for (int s = 0; s < 2; s++) {
		if (flow->proto == 6)
			qd_report(ctx, flow, &st->d[s], s);
		if (st->d[s].log)
			for (int k = 0; k < 2; k++)
				pd_mem_free(PD_MEM_DETECTORS, st->d[s].log->k[k].s);
		pd_mem_free(PD_MEM_DETECTORS, st->d[s].log);
		st->d[s].log = NULL;
	}
}

static const char *const qd_emits[] = {"queueing-delay", NULL};

const pd_detector pd_det_queue = {
	.name = "queue",
	.emits = qd_emits,
	.from_payload = true,
	.flow_state_size = sizeof(qd_flow),
	.on_tcp = qd_on_tcp,
	.on_flow_end = qd_on_flow_end,
};
