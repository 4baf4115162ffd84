/* Connection churn and ephemeral ports, per (client IP, server IP:port):
 * how many connections, their rate (busiest second and on average), how
 * many were short one-request exchanges, which source ports they used and
 * how often a 4-tuple came back while the previous connection on it could
 * still be in TIME_WAIT (60 s, fixed in Linux).
 *
 * From a capture one only sees the ports used, never the configured range,
 * so port pressure is stated as arithmetic (rate x 60 s against the
 * default 28232 ports) or as a measured fact (a small contiguous block of
 * ports cycled through and reused while in TIME_WAIT). All tables are
 * bounded (the least recently used entry gives way); port bitmaps are
 * capped in number.
 *
 * Churn is counted over connections that were set up (a SYN nobody
 * answered carried no request) and is a warning only where it cost
 * something the packets measure: a 4-tuple reused while the previous
 * connection on it could be in TIME_WAIT, SYNs that failed or had to be
 * retried, or handshakes that were a large share of the exchanges (a long
 * round trip paid once more per request). Many short connections on a LAN
 * that cost none of these are a note. */
#include <stdio.h>
#include <string.h>

#include "heuristics/detector.h"
#include "heuristics/keytable.h"
#include "heuristics/util.h"

#define CH_TW_NS (60 * PD_NS_PER_SEC) /* TCP_TIMEWAIT_LEN */
#define CH_ENTS 4096
#define CH_TUPLE_SLOTS 16384
#define CH_SMALL_PORTS 16
#define CH_MAX_BITMAPS 64
#define CH_DEFAULT_RANGE 28232.0 /* 32768-60999 */
#define CH_MIN_CONNS 50
#define CH_MIN_PEAK 10 /* connections in the busiest second */
#define CH_SHORT_SHARE 0.8
/* handshakes that cost: at least this share of the short exchanges' time,
 * and at least this long on average (a LAN's tens of microseconds are
 * no cost whatever their share) */
#define CH_HS_SHARE 0.25
#define CH_HS_MIN_S 0.001
/* SYNs that failed or were retried: at least this many, and this share */
#define CH_MIN_SYN_FAILS 3
#define CH_SYN_FAIL_SHARE 0.01

typedef struct ch_fs {
	bool counted;
	bool reused;
	int8_t prev_tw_side; /* who held TIME_WAIT on the previous connection */
	pd_time reuse_gap;
	uint64_t syn_frame;
	pd_time syn_ts;
	uint8_t first_fin; /* 0 none, 1 client, 2 server */
	uint8_t last_data; /* 0 none, 1 client, 2 server */
	uint16_t turns; /* changes of the direction data flows in */
	pd_time last_payload_ts; /* the last new data either way (a FIN is none) */
	uint32_t data_segs[2];
} ch_fs;

/* (client IP, server IP, server port): the key of the per-pair counts. */
typedef struct ch_ent_key {
	pd_addr c, s;
	uint16_t sp;
} ch_ent_key;

typedef struct ch_ent {
	pd_addr c, s;
	uint16_t sp;
	uint32_t conns, ended, short_conns;
	uint32_t established; /* set up: a SYN-ACK, and the client's ACK or data after it */
	uint32_t syn_failed, syn_retried; /* no SYN-ACK at all; SYN sent more than once */
	pd_time first_syn, last_syn;
	uint64_t first_frame; /* of first_syn */
	pd_rate_1s rate; /* busiest sliding second */
	uint16_t small[CH_SMALL_PORTS];
	uint8_t n_small;
	uint8_t *bitmap; /* 65536 bits, once more than CH_SMALL_PORTS ports */
	bool ports_approx; /* bitmap cap reached: distinct count is a floor */
	uint32_t distinct_ports;
	uint16_t pmin, pmax;
	uint32_t reuses, reuse_fail, reuse_tw_client, reuse_tw_server;
	pd_time min_reuse_gap;
	double hs_time_s; /* handshake round trips paid by short connections */
	double exch_time_s; /* their first SYN to last data, for those with a handshake time */
	uint32_t hs_conns; /* short connections with a handshake time */
} ch_ent;

/* How a 4-tuple's last connection ended. */
typedef struct ch_tuple {
	pd_time end_ts;
	int8_t tw_side; /* -1 none (RST or not closed), PD_CLIENT, PD_SERVER */
} ch_tuple;

typedef struct ch_g {
	pd_keytable *ents; /* ch_ent_key -> ch_ent */
	pd_keytable *tuples; /* pd_tuple_key -> ch_tuple */
	uint32_t bitmaps;
	pd_finding *churn, *reuse, *ports;
} ch_g;

/* An entry that goes gives back its port bitmap. */
static void ch_ent_evict(void *v, void *gv)
{
	ch_ent *e = v;
	ch_g *g = gv;
	if (e->bitmap) {
		g_free(e->bitmap);
		e->bitmap = NULL;
		g->bitmaps--;
	}
	pd_rate_clear(&e->rate);
}

/* The flow's (client, server:port) entry; the least recently used gives way. */
static ch_ent *ch_ent_get(ch_g *g, const pd_flow *f)
{
	ch_ent_key k;
	memset(&k, 0, sizeof(k));
	k.c = f->addr[PD_CLIENT];
	k.s = f->addr[PD_SERVER];
	k.sp = f->port[PD_SERVER];
	bool made;
	ch_ent *e = pd_keytable_get(g->ents, &k, &made);
	if (made) {
		e->c = k.c;
		e->s = k.s;
		e->sp = k.sp;
		pd_rate_init(&e->rate);
		e->pmin = 0xffff;
	}
	return e;
}

static void ch_init(pd_ctx *ctx, void *gv)
{
	(void)ctx;
	ch_g *g = gv;
	g->ents = pd_keytable_new(sizeof(ch_ent_key), sizeof(ch_ent), CH_ENTS, NULL, ch_ent_evict, g);
	g->tuples = pd_keytable_new(sizeof(pd_tuple_key), sizeof(ch_tuple), CH_TUPLE_SLOTS, NULL, NULL, NULL);
}

static void ch_port(ch_g *g, ch_ent *e, uint16_t port)
{
	if (port < e->pmin)
		e->pmin = port;
	if (port > e->pmax)
		e->pmax = port;
	if (e->bitmap) {
		uint8_t bit = (uint8_t)(1u << (port & 7));
		if (!(e->bitmap[port >> 3] & bit)) {
			e->bitmap[port >> 3] |= bit;
			e->distinct_ports++;
		}
		return;
	}
	for (int i = 0; i < e->n_small; i++)
		if (e->small[i] == port)
			return;
	if (e->n_small < CH_SMALL_PORTS) {
		e->small[e->n_small++] = port;
		e->distinct_ports++;
		return;
	}
	if (g->bitmaps >= CH_MAX_BITMAPS) {
		e->ports_approx = true; /* count new-looking ports as a floor */
		e->distinct_ports++;
		return;
	}
	g->bitmaps++;
	e->bitmap = g_malloc0(65536 / 8);
	for (int i = 0; i < e->n_small; i++)
		e->bitmap[e->small[i] >> 3] |= (uint8_t)(1u << (e->small[i] & 7));
	e->bitmap[port >> 3] |= (uint8_t)(1u << (port & 7));
	e->distinct_ports++;
}


static bool ch_is_churn(const ch_ent *e)
{
	return e->established >= CH_MIN_CONNS && e->rate.peak >= CH_MIN_PEAK &&
	       (double)e->short_conns >= CH_SHORT_SHARE * (double)e->established;
}

/* The handshakes' share of the short exchanges' time. */
static double ch_hs_share(const ch_ent *e)
{
	return e->exch_time_s > 0 ? e->hs_time_s / e->exch_time_s : 0;
}

static double ch_hs_mean(const ch_ent *e)
{
	return e->hs_conns ? e->hs_time_s / e->hs_conns : 0;
}

static bool ch_hs_costly(const ch_ent *e)
{
	return ch_hs_share(e) >= CH_HS_SHARE && ch_hs_mean(e) >= CH_HS_MIN_S;
}

static bool ch_syns_failing(const ch_ent *e)
{
	uint32_t n = e->syn_failed + e->syn_retried;
	return n >= CH_MIN_SYN_FAILS && (double)n >= CH_SYN_FAIL_SHARE * (double)e->conns;
}

/* A small, dense block of ports cycled through with reuse in TIME_WAIT:
 * the range itself is that small (or a NAT hands out that few). */
static bool ch_narrow_range(const ch_ent *e)
{
	uint32_t span = e->pmax >= e->pmin ? (uint32_t)(e->pmax - e->pmin) + 1 : 0;
	return e->distinct_ports >= 8 && !e->ports_approx && e->reuses >= e->distinct_ports &&
	       span <= 2 * e->distinct_ports;
}

static double ch_projected(const ch_ent *e)
{
	return (double)e->rate.peak * 60.0;
}

static bool ch_port_pressure(const ch_ent *e)
{
	/* the rate must be sustained, not a one-off burst */
	bool sustained = e->conns >= 1000 && e->last_syn - e->first_syn >= 5 * PD_NS_PER_SEC;
	return ch_narrow_range(e) || (sustained && ch_projected(e) >= 0.8 * CH_DEFAULT_RANGE);
}

static void ch_on_tcp(pd_ctx *ctx, const pd_flow *flow, void *fsv, const pd_packet *pkt, const pd_seg *seg)
{
	(void)ctx;
	(void)flow;
	ch_fs *fs = fsv;
	const pd_tcp *t = &pkt->tcp;
	const uint8_t fl = t->flags;

	if (seg->dir == PD_CLIENT && (fl & PD_TCP_SYN) && !(fl & PD_TCP_ACK) && !fs->counted) {
		fs->counted = true;
		fs->syn_frame = pkt->frame_no;
		fs->syn_ts = pkt->ts;
		return;
	}
	if ((fl & PD_TCP_FIN) && !fs->first_fin)
		fs->first_fin = (uint8_t)(seg->dir + 1);
	if (t->payload_len && (seg->flags & PD_SEG_NEW_DATA)) {
		fs->data_segs[seg->dir]++;
		fs->last_payload_ts = pkt->ts;
		if (fs->last_data && fs->last_data != seg->dir + 1)
			fs->turns++;
		fs->last_data = (uint8_t)(seg->dir + 1);
	}
}

/* The connection's start, counted toward its (client, server:port) entry,
 * and how the 4-tuple's previous connection ended (before this one's end
 * overwrites it: a 4-tuple holds one connection at a time). Returns the
 * entry. */
static ch_ent *ch_count_start(ch_g *g, const pd_flow *flow, ch_fs *fs)
{
	ch_ent *e = ch_ent_get(g, flow);
	if (!e->conns || fs->syn_frame < e->first_frame) {
		e->first_syn = fs->syn_ts;
		e->first_frame = fs->syn_frame;
	}
	e->conns++;
	if (fs->syn_ts > e->last_syn)
		e->last_syn = fs->syn_ts;
	ch_port(g, e, flow->port[PD_CLIENT]);
	pd_rate_add(&e->rate, fs->syn_ts);
	pd_tuple_key k;
	pd_tuple_key_of(&k, flow);
	const ch_tuple *tu = pd_keytable_find(g->tuples, &k);
	if (tu && tu->tw_side >= 0 && fs->syn_ts - tu->end_ts <= CH_TW_NS && fs->syn_ts >= tu->end_ts) {
		fs->reused = true;
		fs->prev_tw_side = tu->tw_side;
		fs->reuse_gap = fs->syn_ts - tu->end_ts;
	}
	return e;
}

static void ch_on_flow_end(pd_ctx *ctx, void *gv, const pd_flow *flow, void *fsv)
{
	ch_g *g = gv;
	ch_fs *fs = fsv;
	if (flow->proto != 6 || flow->pseudo)
		return;
	/* counted: the entry (the 4-tuple table below is another table, so it
	 * stays in place) */
	ch_ent *e = fs->counted ? ch_count_start(g, flow, fs) : NULL;
	if (flow->roles_from_syn) {
		pd_tuple_key k;
		pd_tuple_key_of(&k, flow);
		ch_tuple *tu = pd_keytable_get(g->tuples, &k, NULL);
		tu->end_ts = flow->last_ts;
		/* The side that sent the first FIN holds TIME_WAIT once both FINs passed;
		 * a RST leaves no TIME_WAIT behind. */
		bool both_fin = flow->half[0].fin_valid && flow->half[1].fin_valid;
		tu->tw_side = (int8_t)(both_fin && !flow->rst_seen && fs->first_fin ? fs->first_fin - 1 : -1);
	}
	if (!e)
		return;
	e->ended++;
	const pd_tcp_half *c = &flow->half[PD_CLIENT];
	if (!flow->synack_frame)
		e->syn_failed++;
	else if (c->syn_count > 1)
		e->syn_retried++;
	/* set up: the client went on after the SYN-ACK (a SYN nobody answered
	 * carried no request and is no churn) */
	bool established = flow->synack_frame && c->pkts > c->syn_count;
	if (established)
		e->established++;
	bool is_short = established && fs->turns <= 1 && fs->data_segs[PD_CLIENT] <= 4 &&
			flow->last_ts - flow->first_ts < 10 * PD_NS_PER_SEC;
	if (is_short) {
		e->short_conns++;
		if (flow->hs_rtt > 0 && fs->last_payload_ts > fs->syn_ts) {
			e->hs_time_s += (double)flow->hs_rtt / 1e9;
			e->exch_time_s += (double)(fs->last_payload_ts - fs->syn_ts) / 1e9;
			e->hs_conns++;
		}
	}
	if (fs->reused) {
		e->reuses++;
		if (fs->prev_tw_side == PD_CLIENT)
			e->reuse_tw_client++;
		else
			e->reuse_tw_server++;
		bool failed = !flow->synack_frame;
		if (failed)
			e->reuse_fail++;
		if (!e->min_reuse_gap || fs->reuse_gap < e->min_reuse_gap)
			e->min_reuse_gap = fs->reuse_gap;
		if (!g->reuse)
			g->reuse = pd_finding_get(ctx, "port-reuse-timewait", NULL);
		pd_finding_add_flow(ctx, g->reuse, flow);
		if (failed)
			pd_finding_occurrence(g->reuse, fs->syn_frame, fs->syn_ts, "4-tuple reused %.2f s after close (failed)",
					      "关闭 %.2f 秒后复用四元组（失败）", (double)fs->reuse_gap / 1e9);
		else
			pd_finding_occurrence(g->reuse, fs->syn_frame, fs->syn_ts, "4-tuple reused %.2f s after close",
					      "关闭 %.2f 秒后复用四元组", (double)fs->reuse_gap / 1e9);
	}
	if (ch_is_churn(e)) {
		if (!g->churn)
			g->churn = pd_finding_get(ctx, "connection-churn", NULL);
		pd_finding_add_flow(ctx, g->churn, flow);
		pd_finding_occurrence(g->churn, fs->syn_frame, fs->syn_ts, "new short connection", "新建的短连接");
	}
	if (ch_port_pressure(e)) {
		if (!g->ports)
			g->ports = pd_finding_get(ctx, "ephemeral-port-pressure", NULL);
		pd_finding_add_flow(ctx, g->ports, flow);
		pd_finding_occurrence(g->ports, fs->syn_frame, fs->syn_ts, "new source port", "新的源端口");
	}
}

/* What ch_on_end gathers over the entries. */
typedef struct ch_sum {
	ch_ent *worst_churn, *worst_reuse, *worst_ports;
	uint32_t reuses, reuse_fail;
} ch_sum;

static void ch_sum_cb(void *v, void *arg)
{
	ch_ent *e = v;
	ch_sum *m = arg;
	m->reuses += e->reuses;
	m->reuse_fail += e->reuse_fail;
	if (ch_is_churn(e) && (!m->worst_churn || e->conns > m->worst_churn->conns))
		m->worst_churn = e;
	if (e->reuses && (!m->worst_reuse || e->reuses > m->worst_reuse->reuses))
		m->worst_reuse = e;
	if (ch_port_pressure(e) && (!m->worst_ports || e->rate.peak > m->worst_ports->rate.peak))
		m->worst_ports = e;
}

static void ch_on_end(pd_ctx *ctx, void *gv)
{
	ch_g *g = gv;
	ch_sum m = {0};
	pd_keytable_foreach(g->ents, ch_sum_cb, &m);
	ch_ent *worst_churn = m.worst_churn, *worst_reuse = m.worst_reuse, *worst_ports = m.worst_ports;
	uint32_t reuses = m.reuses, reuse_fail = m.reuse_fail;
	char c[64], s[64];

	if (g->churn && !worst_churn) {
		pd_finding_drop(ctx, g->churn); /* the share of short ones fell below the bar */
		g->churn = NULL;
	}
	if (g->churn) {
		ch_ent *e = worst_churn;
		pd_addr_bracketed(&e->c, c, sizeof(c));
		pd_addr_bracketed(&e->s, s, sizeof(s));
		double dur = (double)(e->last_syn - e->first_syn) / 1e9;
		pd_finding *f = g->churn;
		pd_finding_metric(f, "connections", e->conns, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "busiest_second_connections", e->rate.peak, PD_UNIT_COUNT, PD_AGG_MAX);
		pd_finding_metric(f, "duration_s", dur, PD_UNIT_S, PD_AGG_SUM);
		pd_finding_metric(f, "established", e->established, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "short_share", (double)e->short_conns / (double)e->established, PD_UNIT_RATIO,
				  PD_AGG_MAX);
		pd_finding_metric(f, "distinct_client_ports", e->distinct_ports, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "reused_4tuples", e->reuses, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "syns_failed", e->syn_failed, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "syns_retried", e->syn_retried, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "handshake_time_s", e->hs_time_s, PD_UNIT_S, PD_AGG_SUM);
		pd_finding_metric(f, "handshake_share", ch_hs_share(e), PD_UNIT_RATIO, PD_AGG_MAX);
		pd_finding_add_impact(f, e->hs_time_s);
		/* flows end in any order: the entry's first connection opens it */
		pd_finding_occurrence(f, e->first_frame, e->first_syn, "first connection", "第一条连接");
		pd_finding_set_confidence(f, 0.8);
		bool costly = ch_hs_costly(e), failing = ch_syns_failing(e);
		pd_finding_set_severity(f, e->reuses || failing || costly ? PD_SEV_WARNING : PD_SEV_INFO);
		pd_finding_detail(f,
				  "%s opened %u connections to %s:%u within %.1f s (%u in the busiest "
				  "second); %u of the %u set up carried one request/response or less; %u "
				  "distinct source ports, %u 4-tuples reused within 60 s; each paid a "
				  "handshake (%.3f s in all, %.2f ms each on average, %.0f%% of the time "
				  "from SYN to the last data) and leaves a TIME_WAIT socket for 60 s",
				  "%1$s 在 %5$.1f 秒内向 %3$s:%4$u 建立了 %2$u 个连接（最忙的一秒 %6$u 个）；"
				  "建立成功的 %8$u 个中有 %7$u 个只承载了一次请求/响应或更少；用了 %9$u 个不同的源端口，"
				  "60 秒内复用了 %10$u 个四元组；每个连接都要付出一次握手（合计 %11$.3f 秒，平均每次 "
				  "%12$.2f 毫秒，占从 SYN 到最后一个数据的时间的 %13$.0f%%），并留下一个持续 60 秒的 "
				  "TIME_WAIT 套接字",
				  c, e->conns, s, e->sp, dur, e->rate.peak, e->short_conns, e->established,
				  e->distinct_ports, e->reuses, e->hs_time_s, ch_hs_mean(e) * 1e3,
				  100.0 * ch_hs_share(e));
		if (e->syn_failed + e->syn_retried)
			pd_finding_append(f, "; %u connection attempt(s) got no SYN-ACK and %u had to retry their SYN",
					  "；其中 %u 次建连没有收到 SYN-ACK，%u 次不得不重传 SYN", e->syn_failed,
					  e->syn_retried);
		if (costly)
			pd_finding_append(f,
					  "; the handshakes cost %.0f%% of these exchanges' time: one more round trip "
					  "per request that a reused connection would not pay",
					  "；握手占这些交互时间的 %.0f%%：每个请求都多付出一次往返，复用连接则不必",
					  100.0 * ch_hs_share(e));
		if (!e->reuses && !failing && !costly)
			pd_finding_append(f,
					  "; here it cost nothing measurable (no 4-tuple came back within 60 s, no "
					  "SYN failed, the handshakes were short): a note, not a problem",
					  "；在这里没有造成可测量的代价（60 秒内没有四元组被复用，没有 SYN 失败，"
					  "握手很短）：仅作提示，不是问题");
		pd_finding_settings(f, "connection pooling / keep-alive", "net.ipv4.ip_local_port_range",
				    "net.ipv4.tcp_tw_reuse", "net.ipv4.tcp_max_tw_buckets", NULL);
	}

	if (g->reuse && worst_reuse) {
		ch_ent *e = worst_reuse;
		pd_addr_bracketed(&e->c, c, sizeof(c));
		pd_addr_bracketed(&e->s, s, sizeof(s));
		pd_finding *f = g->reuse;
		pd_finding_metric(f, "reused_4tuples", reuses, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "failed_reuses", reuse_fail, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "min_gap_after_close_s", (double)e->min_reuse_gap / 1e9, PD_UNIT_S, PD_AGG_MAX);
		pd_finding_metric(f, "timewait_on_client", e->reuse_tw_client, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "timewait_on_server", e->reuse_tw_server, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_set_severity(f, (reuses >= 5 || reuse_fail) ? PD_SEV_WARNING : PD_SEV_INFO);
		pd_finding_set_confidence(f, 0.85);
		pd_finding_detail(f,
				  "%u 4-tuple(s) reused within 60 s of the previous connection's close "
				  "(%s -> %s:%u: %u, the soonest %.2f s after close); %u reuse(s) failed",
				  "%1$u 个四元组在上一个连接关闭后 60 秒内被复用（%2$s -> %3$s:%4$u：%5$u 个，最快的在"
				  "关闭后 %6$.2f 秒）；其中 %7$u 次复用失败",
				  reuses, c, s, e->sp, e->reuses, (double)e->min_reuse_gap / 1e9, reuse_fail);
		if (e->reuse_tw_client >= e->reuse_tw_server)
			pd_finding_append(f,
					  "; the client closed first, so the client held TIME_WAIT and reused its "
					  "own port (tcp_tw_reuse, or it ran out of fresh ports)",
					  "；客户端先关闭，所以 TIME_WAIT 在客户端，是它复用了自己的端口"
					  "（tcp_tw_reuse，或者新端口用完了）");
		else
			pd_finding_append(f,
					  "; the server closed first, so the server held TIME_WAIT and had to accept "
					  "a SYN for a 4-tuple it still remembered",
					  "；服务端先关闭，所以 TIME_WAIT 在服务端，它不得不接受一个仍记着的四元组"
					  "上的 SYN");
		if (e->reuse_tw_client < e->reuse_tw_server)
			pd_finding_settings(f, "connection pooling / keep-alive", "net.ipv4.ip_local_port_range",
					    "NAT source-port reuse", "net.ipv4.tcp_timestamps", NULL);
		else
			pd_finding_settings(f, "net.ipv4.ip_local_port_range", "connection pooling / keep-alive",
					    "net.ipv4.tcp_tw_reuse", "NAT source-port reuse", NULL);
	}

	if (g->ports && !worst_ports) {
		pd_finding_drop(ctx, g->ports);
		g->ports = NULL;
	}
	if (g->ports) {
		ch_ent *e = worst_ports;
		pd_addr_bracketed(&e->c, c, sizeof(c));
		pd_addr_bracketed(&e->s, s, sizeof(s));
		double dur = (double)(e->last_syn - e->first_syn) / 1e9;
		pd_finding *f = g->ports;
		double proj = ch_projected(e);
		pd_finding_metric(f, "distinct_client_ports", e->distinct_ports, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "port_span", e->pmax >= e->pmin ? e->pmax - e->pmin + 1 : 0, PD_UNIT_COUNT, PD_AGG_MAX);
		pd_finding_metric(f, "busiest_second_connections", e->rate.peak, PD_UNIT_COUNT, PD_AGG_MAX);
		pd_finding_metric(f, "ports_needed_per_60s", proj, PD_UNIT_COUNT, PD_AGG_MAX);
		pd_finding_metric(f, "default_range_share", proj / CH_DEFAULT_RANGE, PD_UNIT_RATIO, PD_AGG_MAX);
		pd_finding_set_confidence(f, 0.75);
		if (ch_narrow_range(e))
			pd_finding_detail(f,
					  "%s used only %u distinct source ports (%u-%u) for %u connections to "
					  "%s:%u in %.1f s and reused them %u times within 60 s of their close: "
					  "it cycles through a block that small, so its port range (or a NAT's "
					  "pool) is exhausted; at the busiest second's rate (%u/s) it needs %.0f "
					  "ports per 60 s TIME_WAIT, %.0f%% of the default 28232",
					  "%1$s 在 %8$.1f 秒内向 %6$s:%7$u 建立 %5$u 个连接只用了 %2$u 个不同的源端口"
					  "（%3$u-%4$u），并在它们关闭后 60 秒内复用了 %9$u 次：它在这么小的端口块里循环，"
					  "说明它的端口范围（或 NAT 的端口池）已经耗尽；按最忙一秒的速率（%10$u 个/秒），"
					  "每 60 秒的 TIME_WAIT 需要 %11$.0f 个端口，相当于默认 28232 个的 %12$.0f%%",
					  c, e->distinct_ports, e->pmin, e->pmax, e->conns, s, e->sp, dur, e->reuses,
					  e->rate.peak, proj, 100.0 * proj / CH_DEFAULT_RANGE);
		else
			pd_finding_detail(f,
					  "%s used %u distinct source ports toward %s:%u in %.1f s; at the busiest "
					  "second's rate (%u connections/s) it needs %.0f ports per 60 s of "
					  "TIME_WAIT, %.0f%% of the default range (32768-60999, 28232 ports)",
					  "%1$s 在 %5$.1f 秒内向 %3$s:%4$u 使用了 %2$u 个不同的源端口；按最忙一秒的速率"
					  "（每秒 %6$u 个连接），每 60 秒的 TIME_WAIT 需要 %7$.0f 个端口，相当于默认范围"
					  "（32768-60999，共 28232 个端口）的 %8$.0f%%",
					  c, e->distinct_ports, s, e->sp, dur, e->rate.peak, proj,
					  100.0 * proj / CH_DEFAULT_RANGE);
		pd_finding_settings(f, "net.ipv4.ip_local_port_range", "connection pooling / keep-alive",
				    "net.ipv4.tcp_tw_reuse", "NAT source-port reuse", NULL);
	}
}

static void ch_fini(void *gv)
{
	ch_g *g = gv;
	pd_keytable_free(g->ents);
	pd_keytable_free(g->tuples);
}

static const char *const ch_emits[] = {"connection-churn", "port-reuse-timewait", "ephemeral-port-pressure", NULL};

const pd_detector pd_det_churn = {
	.name = "churn",
	.emits = ch_emits,
	.init = ch_init,
	.flow_state_size = sizeof(ch_fs),
	.global_state_size = sizeof(ch_g),
	.on_tcp_for = PD_ON_SYN | PD_ON_FIN_RST | PD_ON_NEW_DATA, /* starts, the first FIN, data turns */
	.on_tcp = ch_on_tcp,
	.on_flow_end = ch_on_flow_end,
	.on_end = ch_on_end,
	.fini = ch_fini,
};
