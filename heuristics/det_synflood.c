/* SYN flood: many half-open connections (the client sent a SYN and nothing
 * else) from many distinct sources toward one server endpoint within
 * seconds. Sources are counted with a HyperLogLog sketch (1 KiB per server
 * endpoint, ~3 % error) instead of a set, so a million spoofed sources cost
 * the same memory as ten; the server table itself is bounded (the least
 * recently used endpoint gives way, never a flooded one while others can). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dissect/addr.h"
#include "heuristics/detector.h"
#include "heuristics/keytable.h"
#include "heuristics/util.h"

#define SF_SERVERS 256
#define SF_HLL_P 10
#define SF_HLL_M (1u << SF_HLL_P)
#define SF_MIN_HALF_OPEN 200
#define SF_MIN_SOURCES 100.0
#define SF_MIN_RATE 100 /* SYNs in the busiest second */

/* A server endpoint, the key of the table. */
typedef struct sf_srv_key {
	pd_addr addr;
	uint16_t port;
} sf_srv_key;

typedef struct sf_srv {
	pd_addr addr;
	uint16_t port;
	uint64_t syns, synacks, cookie_synacks, half_open, completed;
	uint8_t hll[SF_HLL_M];
	pd_rate_1s rate; /* busiest sliding second */
	uint64_t first_frame;
	pd_time first_ts;
	/* the earliest SYN of a half-open connection: where the flood starts
	 * (a real client's connection before it is no part of it) */
	uint64_t first_half_open_frame;
	pd_time first_half_open_ts;
	bool flooded;
} sf_srv;

typedef struct sf_g {
	pd_keytable *srv; /* sf_srv_key -> sf_srv */
	pd_finding *flood;
} sf_g;

/* The flooded endpoint is the one reported: the others give way first. */
static bool sf_keep(const void *v)
{
	return ((const sf_srv *)v)->flooded;
}

static void sf_evict(void *v, void *arg)
{
	(void)arg;
	pd_rate_clear(&((sf_srv *)v)->rate);
}

static void sf_init(pd_ctx *ctx, void *gv)
{
	(void)ctx;
	sf_g *g = gv;
	g->srv = pd_keytable_new(sizeof(sf_srv_key), sizeof(sf_srv), SF_SERVERS, sf_keep, sf_evict, NULL);
}

static void sf_fini(void *gv)
{
	sf_g *g = gv;
	pd_keytable_free(g->srv);
}

static sf_srv *sf_get(sf_g *g, const pd_addr *a, uint16_t port)
{
	sf_srv_key k;
	memset(&k, 0, sizeof(k));
	k.addr = *a;
	k.port = port;
	bool made;
	sf_srv *s = pd_keytable_get(g->srv, &k, &made);
	if (made) {
		s->addr = *a;
		s->port = port;
		pd_rate_init(&s->rate);
	}
	return s;
}

static void sf_hll_add(sf_srv *s, const pd_addr *a)
{
	uint64_t x = pd_mix64(pd_addr_hash64(a) + 0x9e3779b97f4a7c15ull);
	uint32_t idx = (uint32_t)(x >> (64 - SF_HLL_P));
	uint64_t rest = x << SF_HLL_P;
	uint8_t rank = rest ? (uint8_t)(__builtin_clzll(rest) + 1) : (uint8_t)(64 - SF_HLL_P + 1);
	if (rank > s->hll[idx])
		s->hll[idx] = rank;
}

static double sf_hll_estimate(const sf_srv *s)
{
	double sum = 0;
	uint32_t zeros = 0;
	for (uint32_t i = 0; i < SF_HLL_M; i++) {
		sum += ldexp(1.0, -s->hll[i]);
		zeros += s->hll[i] == 0;
	}
	double m = SF_HLL_M;
	double est = (0.7213 / (1 + 1.079 / m)) * m * m / sum;
	if (est <= 2.5 * m && zeros)
		est = m * log(m / zeros); /* linear counting for small sets */
	return est;
}


/* Counts only grow, so once flooded always flooded; the sketch (1 KiB to
 * scan) is consulted at SF_MIN_HALF_OPEN half-open connections and every
 * 64 after until then. */
static bool sf_flooded(sf_srv *s)
{
	if (s->flooded)
		return true;
	if (s->half_open < SF_MIN_HALF_OPEN || s->rate.peak < SF_MIN_RATE ||
	    ((s->half_open - SF_MIN_HALF_OPEN) & 63))
		return false;
	s->flooded = sf_hll_estimate(s) >= SF_MIN_SOURCES;
	return s->flooded;
}

/* What one flow's handshake showed: its first SYN, and the first SYN-ACK. */
typedef struct sf_fs {
	bool syn, synack, cookie;
} sf_fs;

static void sf_on_tcp(pd_ctx *ctx, const pd_flow *flow, void *fsv, const pd_packet *pkt, const pd_seg *seg)
{
	(void)ctx;
	sf_fs *fs = fsv;
	const pd_tcp *t = &pkt->tcp;
	const uint8_t fl = t->flags;
	if (!(fl & PD_TCP_SYN) || (seg->flags & PD_SEG_SYN_RETRANS))
		return;
	if (seg->dir == PD_CLIENT && !(fl & PD_TCP_ACK)) {
		fs->syn = true;
	} else if (seg->dir == PD_SERVER && (fl & PD_TCP_ACK) && !fs->synack) {
		fs->synack = true;
		const pd_tcp_half *c = &flow->half[PD_CLIENT];
		/* Cookie SYN-ACKs to clients without TS lose WS and SACK. */
		fs->cookie = !t->options_truncated && !c->ts_offered && (c->wscale_offered >= 0 || c->sack_permitted) &&
			     t->wscale < 0 && !t->sack_permitted;
	}
}

static void sf_on_flow_end(pd_ctx *ctx, void *gv, const pd_flow *flow, void *fsv)
{
	sf_g *g = gv;
	sf_fs *fs = fsv;
	const pd_tcp_half *c = &flow->half[PD_CLIENT];
	if (flow->proto != 6 || flow->pseudo || !fs->syn)
		return;
	sf_srv *s = sf_get(g, &flow->addr[PD_SERVER], flow->port[PD_SERVER]);
	if (!s->syns || flow->syn_frame < s->first_frame) {
		s->first_frame = flow->syn_frame;
		s->first_ts = flow->syn_ts;
	}
	s->syns++;
	sf_hll_add(s, &flow->addr[PD_CLIENT]);
	pd_rate_add(&s->rate, flow->syn_ts);
	s->synacks += fs->synack;
	s->cookie_synacks += fs->cookie;
	if (!flow->syn_frame || !c->syn_seen)
		return;
	if (c->pkts != c->syn_count) {
		s->completed++;
		return;
	}
	s->half_open++;
	if (!s->first_half_open_frame || flow->syn_frame < s->first_half_open_frame) {
		s->first_half_open_frame = flow->syn_frame;
		s->first_half_open_ts = flow->syn_ts;
	}
	if (!sf_flooded(s))
		return;
	if (!g->flood)
		g->flood = pd_finding_get(ctx, "syn-flood", NULL);
	pd_finding_add_flow(ctx, g->flood, flow);
	pd_finding_occurrence(g->flood, flow->syn_frame, flow->syn_ts, "half-open SYN", "半开连接的 SYN");
}

/* The flooded endpoint with the most half-open connections. */
static void sf_worst_cb(void *v, void *arg)
{
	sf_srv *s = v, **w = arg;
	if (s->flooded && (!*w || s->half_open > (*w)->half_open))
		*w = s;
}

static void sf_on_end(pd_ctx *ctx, void *gv)
{
	sf_g *g = gv;
	if (!g->flood)
		return;
	sf_srv *w = NULL;
	pd_keytable_foreach(g->srv, sf_worst_cb, &w);
	if (!w)
		return;
	char a[64];
	pd_addr_bracketed(&w->addr, a, sizeof(a));
	double sources = sf_hll_estimate(w);
	pd_finding *f = g->flood;
	pd_finding_set_confidence(f, sources >= 10 * SF_MIN_SOURCES ? 0.9 : 0.75);
	pd_finding_metric(f, "half_open", (double)w->half_open, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "syns", (double)w->syns, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "sources_estimated", round(sources), PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "busiest_second_syns", w->rate.peak, PD_UNIT_COUNT, PD_AGG_MAX);
	pd_finding_metric(f, "synacks_seen", (double)w->synacks, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "syncookie_synacks", (double)w->cookie_synacks, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "completed_handshakes", (double)w->completed, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_detail(f,
			  "%llu half-open connections to %s:%u from about %.0f distinct sources (%llu SYNs, "
			  "up to %u in one second, from t=%.1f s); the server answered %llu SYN-ACKs; %llu "
			  "connections from the same period completed",
			  "%2$s:%3$u 上有 %1$llu 个半连接，来自约 %4$.0f 个不同的源地址（%5$llu 个 SYN，"
			  "一秒内最多 %6$u 个，从 t=%7$.1f 秒开始）；服务端回复了 %8$llu 个 SYN-ACK；同一时段"
			  "完成握手的连接有 %9$llu 个",
			  (unsigned long long)w->half_open, a, w->port, sources, (unsigned long long)w->syns,
			  w->rate.peak,
			  (double)((w->first_half_open_frame ? w->first_half_open_ts : w->first_ts) - pd_ctx_start(ctx)) /
				  1e9,
			  (unsigned long long)w->synacks, (unsigned long long)w->completed);
	if (w->cookie_synacks)
		pd_finding_append(f, "; %llu SYN-ACKs came without WS/SACK although the client offered them (SYN cookies)",
				  "；其中 %llu 个 SYN-ACK 在客户端提供了窗口扩大/SACK 的情况下仍不带这些选项"
				  "（SYN cookie）",
				  (unsigned long long)w->cookie_synacks);
	/* the SYN queue is capped by the listen backlog; tcp_max_syn_backlog
	 * only matters with tcp_syncookies=0 */
	pd_finding_settings(f, "net.ipv4.tcp_syncookies", "listen() backlog", "net.core.somaxconn",
			    "net.ipv4.tcp_max_syn_backlog", "net.ipv4.tcp_synack_retries",
			    "firewall dropping SYN/SYN-ACK", NULL);
}

static const char *const sf_emits[] = {"syn-flood", NULL};

const pd_detector pd_det_synflood = {
	.name = "synflood",
	.emits = sf_emits,
	.init = sf_init,
	.flow_state_size = sizeof(sf_fs),
	.global_state_size = sizeof(sf_g),
	.on_tcp = sf_on_tcp,
	.on_flow_end = sf_on_flow_end,
	.on_end = sf_on_end,
	.fini = sf_fini,
};
