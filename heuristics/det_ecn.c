/* ECN: SYNs that ask for ECN dropped on the path, and congestion signalled
 * with ECN marks.
 *
 * A client with net.ipv4.tcp_ecn=1 sets ECE and CWR in its SYN. Some
 * firewalls drop such SYNs; Linux then retransmits the SYN without them
 * (net.ipv4.tcp_ecn_fallback=1) and the retry connects one SYN timeout
 * late. The capture shows the ECN-setup SYN unanswered and the plain retry
 * answered by a SYN-ACK without ECE. One such connection could also be a
 * SYN lost by chance (the retry always drops ECN), so a server that
 * answered another ECN-setup SYN in the capture clears the suspicion.
 *
 * With ECN negotiated, a congested AQM queue marks packets Congestion
 * Experienced (CE) instead of dropping them: the receiver echoes ECE until
 * the sender answers with CWR, having reduced its window as for a loss but
 * with nothing to resend. Downstream of the marking hop the CE marks show;
 * at the sender only the echoes and the CWRs do. */
#include <string.h>

#include "heuristics/detector.h"
#include "heuristics/keytable.h"
#include "heuristics/util.h"

#define EC_EV 6 /* evidence frames kept per kind */
#define EC_PENDING 64 /* connections with a dropped ECN SYN kept for on_end */
#define EC_SERVERS 4096

#define EC_ECN_BITS(tos) ((tos)&3u)
#define EC_CE 3u

typedef struct ec_dir {
	uint32_t data, ect, ce, ece, cwr, retrans;
	uint64_t ce_frame[EC_EV], cwr_frame[EC_EV], ece_frame;
	pd_time ce_ts[EC_EV], cwr_ts[EC_EV], ece_ts;
} ec_dir;

typedef struct ec_marks {
	ec_dir d[2]; /* by sender */
} ec_marks;

typedef struct ec_flow {
	/* the client's SYNs and the first SYN-ACK */
	uint8_t ecn_syns, plain_syns;
	bool plain_after_ecn, synack, synack_ece, synack_early;
	uint64_t ecn_syn_frame, plain_syn_frame, synack_frame;
	pd_time ecn_syn_ts, plain_syn_ts, synack_ts;
	/* made at the first packet with an ECN codepoint or flag after the
	 * handshake: most flows never use ECN */
	ec_marks *m;
} ec_flow;

typedef struct ec_pending {
	pd_flow_key key;
	uint64_t ecn_syn_frame, plain_syn_frame, synack_frame;
	pd_time ecn_syn_ts, plain_syn_ts, synack_ts;
	uint8_t ecn_syns;
} ec_pending;

typedef struct ec_g {
	ec_pending pending[EC_PENDING];
	uint32_t n_pending;
	uint64_t more_pending; /* past EC_PENDING */
	pd_keytable *answered; /* server address -> ECN-setup SYNs answered with ECE */
} ec_g;

static void ec_init(pd_ctx *ctx, void *gv)
{
	(void)ctx;
	ec_g *g = gv;
	g->answered = pd_keytable_new(sizeof(pd_addr), sizeof(uint32_t), EC_SERVERS, NULL, NULL, NULL);
}

static void ec_fini(void *gv)
{
	ec_g *g = gv;
	pd_keytable_free(g->answered);
	g->answered = NULL;
}

static void ec_on_tcp(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, const pd_seg *seg)
{
	(void)ctx;
	(void)flow;
	ec_flow *st = fs;
	const pd_tcp *t = &pkt->tcp;
	const uint8_t fl = t->flags;
	int dir = seg->dir;
	if (fl & PD_TCP_SYN) {
		if (!(fl & PD_TCP_ACK) && dir == PD_CLIENT) {
			bool ecn = (fl & (PD_TCP_ECE | PD_TCP_CWR)) == (PD_TCP_ECE | PD_TCP_CWR);
			if (ecn) {
				if (!st->ecn_syns++) {
					st->ecn_syn_frame = pkt->frame_no;
					st->ecn_syn_ts = pkt->ts;
				}
			} else {
				if (st->ecn_syns && !st->plain_syns && !st->synack) {
					st->plain_after_ecn = true;
					st->plain_syn_frame = pkt->frame_no;
					st->plain_syn_ts = pkt->ts;
				}
				st->plain_syns++;
			}
		} else if ((fl & PD_TCP_ACK) && dir == PD_SERVER && !st->synack) {
			st->synack = true;
			st->synack_frame = pkt->frame_no;
			st->synack_ts = pkt->ts;
			st->synack_ece = (fl & (PD_TCP_ECE | PD_TCP_CWR)) == PD_TCP_ECE;
			st->synack_early = !st->plain_after_ecn; /* before any plain retry */
		}
		return;
	}
	if (!st->m) {
		if (!EC_ECN_BITS(pkt->ip.tos) && !(fl & (PD_TCP_ECE | PD_TCP_CWR)))
			return;
		st->m = g_new0(ec_marks, 1);
	}
	ec_dir *d = &st->m->d[dir];
	if (t->payload_len > 0) {
		d->data++;
		uint8_t bits = EC_ECN_BITS(pkt->ip.tos);
		if (bits == EC_CE) {
			if (d->ce < EC_EV) {
				d->ce_frame[d->ce] = pkt->frame_no;
				d->ce_ts[d->ce] = pkt->ts;
			}
			d->ce++;
		} else if (bits) {
			d->ect++;
		}
		if (seg->flags & PD_SEG_RETRANS)
			d->retrans++;
		if (fl & PD_TCP_CWR) {
			if (d->cwr < EC_EV) {
				d->cwr_frame[d->cwr] = pkt->frame_no;
				d->cwr_ts[d->cwr] = pkt->ts;
			}
			d->cwr++;
		}
	}
	if ((fl & PD_TCP_ECE) && (fl & PD_TCP_ACK)) {
		if (!d->ece) {
			d->ece_frame = pkt->frame_no;
			d->ece_ts = pkt->ts;
		}
		d->ece++;
	}
}

/* The marks on S's data, the echoes R sent and S's window reductions. */
static void ec_report_marks(pd_ctx *ctx, const pd_flow *flow, const ec_flow *st, int s)
{
	int r = pd_peer(s);
	if (!st->m)
		return;
	const ec_dir *ds = &st->m->d[s], *dr = &st->m->d[r];
	bool negotiated = st->ecn_syns && st->synack_ece;
	/* ECN in use: negotiated in the capture, or ECN-capable data seen */
	if (!ds->data || !(negotiated || ds->ect || ds->ce) || (!ds->ce && !dr->ece))
		return;
	char sname[64], rname[64];
	pd_flow_endpoint(flow, s, sname, sizeof(sname));
	pd_flow_endpoint(flow, r, rname, sizeof(rname));
	pd_finding *f = pd_finding_get(ctx, "ecn-congestion-marks", flow);
	for (uint32_t i = 0; i < ds->ce && i < EC_EV; i++)
		pd_finding_occurrence(f, ds->ce_frame[i], ds->ce_ts[i],
				      "data marked Congestion Experienced (CE)",
				      "数据被标记为经历拥塞（CE）");
	if (ds->ce > EC_EV)
		pd_finding_count(f, ds->ce - EC_EV);
	if (dr->ece)
		pd_finding_occurrence(f, dr->ece_frame, dr->ece_ts, "first ACK echoing the mark (ECE)",
				      "第一个回显标记的 ACK（ECE）");
	for (uint32_t i = 0; i < ds->cwr && i < EC_EV; i++)
		pd_finding_occurrence(f, ds->cwr_frame[i], ds->cwr_ts[i], "sender reduced its window (CWR)",
				      "发送端减小窗口（CWR）");
	if (ds->ce)
		pd_finding_detail(
			f,
			"%u of the %u data packets %s sent to %s arrived marked Congestion "
			"Experienced (CE) by a hop before the capture point",
			"%3$s 发往 %4$s 的 %2$u 个数据报文中有 %1$u 个在抓包点之前被某一跳标记为经历拥塞（CE）",
			ds->ce, ds->data, sname, rname);
	else
		pd_finding_detail(
			f,
			"%s sent %u ECN-capable data packets to %s; the marks were set after the "
			"capture point and show here only as the receiver's echoes",
			"%1$s 向 %3$s 发送了 %2$u 个支持 ECN 的数据报文；标记发生在抓包点之后，这里只能看到接收端的回显",
			sname, ds->data, rname);
	pd_finding_append(
		f, "; %s set ECE on %u ACKs and %s answered with CWR %u times (a window reduction each)",
		"；%1$s 在 %2$u 个 ACK 上置了 ECE，%3$s 用 CWR 回应了 %4$u 次（每次都减小了拥塞窗口）", rname,
		dr->ece, sname, ds->cwr);
	if (ds->retrans)
		pd_finding_append(f, "; %u data segments were retransmitted as well.",
				  "；另外有 %u 个数据报文被重传。", ds->retrans);
	else
		pd_finding_append(f,
				  "; nothing had to be retransmitted: a congested queue on the path "
				  "signalled with marks instead of drops.",
				  "；没有任何重传：路径上拥塞的队列用标记代替了丢包来发出信号。");
	pd_finding_metric(f, "ce_packets", ds->ce, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "data_packets", ds->data, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "ece_acks", dr->ece, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "cwr", ds->cwr, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "retransmitted_segments", ds->retrans, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_set_severity(f, PD_SEV_INFO);
	pd_finding_set_confidence(f, 0.9);
	pd_finding_settings(f, "qdisc choice", "net.ipv4.tcp_ecn", NULL);
}

static void ec_on_flow_end(pd_ctx *ctx, void *gv, const pd_flow *flow, void *fs)
{
	ec_g *g = gv;
	ec_flow *st = fs;
	if (flow->proto != 6)
		return;
	if (st->ecn_syns && st->synack && st->synack_ece) {
		bool made;
		uint32_t *n = pd_keytable_get(g->answered, &flow->addr[PD_SERVER], &made);
		(*n)++;
	}
	/* the ECN SYN unanswered, the plain retry answered without ECN */
	if (st->plain_after_ecn && st->synack && !st->synack_ece && !st->synack_early &&
	    st->synack_ts >= st->plain_syn_ts) {
		if (g->n_pending < EC_PENDING) {
			ec_pending *p = &g->pending[g->n_pending++];
			pd_flow_key_of(&p->key, flow);
			p->ecn_syn_frame = st->ecn_syn_frame;
			p->plain_syn_frame = st->plain_syn_frame;
			p->synack_frame = st->synack_frame;
			p->ecn_syn_ts = st->ecn_syn_ts;
			p->plain_syn_ts = st->plain_syn_ts;
			p->synack_ts = st->synack_ts;
			p->ecn_syns = st->ecn_syns;
		} else {
			g->more_pending++;
		}
	}
	for (int s = 0; s < 2; s++)
		ec_report_marks(ctx, flow, st, s);
	g_free(st->m);
	st->m = NULL;
}

static void ec_on_end(pd_ctx *ctx, void *gv)
{
	ec_g *g = gv;
	uint32_t kept = 0;
	for (uint32_t i = 0; i < g->n_pending; i++) {
		const uint32_t *ok = pd_keytable_find(g->answered, &g->pending[i].key.addr[PD_SERVER]);
		kept += !ok;
	}
	for (uint32_t i = 0; i < g->n_pending; i++) {
		const ec_pending *p = &g->pending[i];
		/* the same server answered an ECN-setup SYN elsewhere in the
		 * capture: this one was more likely lost by chance */
		if (pd_keytable_find(g->answered, &p->key.addr[PD_SERVER]))
			continue;
		char cname[64], sname[64];
		pd_endpoint_str(&p->key.addr[PD_CLIENT], p->key.port[PD_CLIENT], cname, sizeof(cname));
		pd_endpoint_str(&p->key.addr[PD_SERVER], p->key.port[PD_SERVER], sname, sizeof(sname));
		double late = (double)(p->plain_syn_ts - p->ecn_syn_ts) / 1e9;
		double answer_ms = (double)(p->synack_ts - p->plain_syn_ts) / 1e6;
		pd_finding *f = pd_finding_get_key(ctx, "ecn-syn-dropped", &p->key);
		pd_finding_occurrence(f, p->ecn_syn_frame, p->ecn_syn_ts,
				      "SYN asking for ECN (ECE+CWR), unanswered",
				      "请求 ECN 的 SYN（ECE+CWR），没有应答");
		pd_finding_occurrence(f, p->plain_syn_frame, p->plain_syn_ts, "SYN retried without ECN",
				      "不带 ECN 重试的 SYN");
		pd_finding_occurrence(f, p->synack_frame, p->synack_ts,
				      "SYN-ACK without ECN answers the retry",
				      "不带 ECN 的 SYN-ACK 应答了重试");
		pd_finding_detail(
			f,
			"Client %s asked %s for ECN in its SYN (ECE and CWR set, frame %llu) and "
			"got no answer",
			"客户端 %s 在 SYN 中向 %s 请求 ECN（置了 ECE 和 CWR，第 %llu 帧），没有得到应答",
			cname, sname, (unsigned long long)p->ecn_syn_frame);
		if (p->ecn_syns > 1)
			pd_finding_append(f, " (%u such SYNs)", "（共 %u 个这样的 SYN）",
					  (unsigned)p->ecn_syns);
		pd_finding_append(
			f,
			"; %.3f s later it retried without ECE and CWR (frame %llu), and that SYN "
			"was answered %.1f ms later by a SYN-ACK without ECN (frame %llu). "
			"Something on the path drops SYNs that ask for ECN: the connection started "
			"%.3f s late and runs without ECN.",
			"；%.3f 秒后它去掉 ECE 和 CWR 重试（第 %llu 帧），这个 SYN 在 %.1f ms 后得到了不带 ECN 的 "
			"SYN-ACK（第 %llu 帧）。路径上有设备丢弃请求 ECN 的 SYN：连接晚了 %.3f 秒才建立，而且不使用 ECN。",
			late, (unsigned long long)p->plain_syn_frame, answer_ms,
			(unsigned long long)p->synack_frame, late);
		pd_finding_metric(f, "connect_delay", late, PD_UNIT_S, PD_AGG_SUM);
		pd_finding_metric(f, "ecn_syns_lost", p->ecn_syns, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_add_impact(f, late);
		pd_finding_set_severity(f, PD_SEV_WARNING);
		/* one connection alone could be a SYN lost by chance */
		pd_finding_set_confidence(f, kept + g->more_pending >= 2 ? 0.85 : 0.65);
		pd_finding_settings(f, "net.ipv4.tcp_ecn", "net.ipv4.tcp_ecn_fallback",
				    "firewall dropping SYN/SYN-ACK", NULL);
	}
}

static const char *const ec_emits[] = {"ecn-syn-dropped", "ecn-congestion-marks", NULL};

const pd_detector pd_det_ecn = {
	.name = "ecn",
	.emits = ec_emits,
	.flow_state_size = sizeof(ec_flow),
	.global_state_size = sizeof(ec_g),
	.init = ec_init,
	.on_tcp = ec_on_tcp,
	.on_flow_end = ec_on_flow_end,
	.on_end = ec_on_end,
	.fini = ec_fini,
};
