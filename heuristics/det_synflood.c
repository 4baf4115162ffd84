/* SYN flood: many half-open connections (the client sent a SYN and nothing
 * else) from many distinct sources toward one server endpoint within
 * seconds. Sources are counted with a HyperLogLog sketch (1 KiB per server
 * endpoint, ~3 % error) instead of a set, so a million spoofed sources cost
 * the same memory as ten; the server table itself is bounded (the least
 * recently used endpoint gives way, never a flooded one while others can).
 *
 * What the answers show decides the setting ranked first. SYN cookies
 * (SYN-ACKs without the options the client offered): the queue overflowed
 * and cookies answered. No cookie, half-open SYNs answered with SYN-ACKs
 * the server retransmitted (it kept a request for each), and later SYNs
 * never answered at all: the SYN queue was full with tcp_syncookies=0,
 * where Linux drops every new SYN, the real clients' too. The flows of
 * real clients that had to retry their SYN toward the flooded endpoint
 * meanwhile are listed first: the flood explains their retries
 * (knowledge/causality.c). */
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
#define SF_RETRY_KEYS 24 /* real clients' retrying flows kept per endpoint */
#define SF_SAMPLE_KEYS 32 /* half-open flows kept per endpoint, to name */
#define SF_CLIENT_IPS 8 /* distinct retrying client addresses told apart */
/* A SYN queue that filled and then dropped: at least this many half-open
 * SYNs answered, and this many never answered at all. */
#define SF_MIN_ANSWERED 8
#define SF_MIN_SILENT 16
/* A request lives through its SYN-ACK retransmissions (tcp_synack_retries=5:
 * 1+2+4+8+16+32 s): a client retrying that long after the flood's last SYN
 * may still have met the queue it filled. */
#define SF_REQ_LIFE (64 * PD_NS_PER_SEC)

/* A flow kept to be named in the finding. */
typedef struct sf_key {
	pd_flow_key flow;
	uint64_t frame; /* its first SYN */
	pd_time ts, last_syn_ts;
	bool connected; /* the handshake completed in the end */
} sf_key;

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
	/* half-open SYNs answered with a SYN-ACK, those whose SYN-ACK the
	 * server retransmitted (a request kept: no cookie), those never
	 * answered (no packet from the server, no ICMP error) */
	uint64_t ho_answered, ho_held, ho_silent;
	uint64_t first_silent_frame, first_answered_frame;
	pd_time first_silent_ts, first_answered_ts, last_half_open_ts;
	/* flows that retried their SYN toward the endpoint (real clients:
	 * flood tools send each SYN once), and a sample of the half-open ones */
	GArray *retries; /* sf_key, at most SF_RETRY_KEYS */
	GArray *sample; /* sf_key, at most SF_SAMPLE_KEYS */
	uint64_t retried, retried_connected;
	uint32_t retry_ips[SF_CLIENT_IPS];
	uint8_t n_retry_ips;
	bool more_retry_ips;
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
	sf_srv *s = v;
	pd_rate_clear(&s->rate);
	if (s->retries)
		g_array_free(s->retries, TRUE);
	if (s->sample)
		g_array_free(s->sample, TRUE);
	s->retries = s->sample = NULL;
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

/* What one flow's handshake showed: its first SYN, and the first SYN-ACK;
 * an ICMP error about the client's packets (an answer from the path); the
 * SYNs and SYN-ACKs sent again (not the same packet captured twice, as
 * tcpdump -i any on a router does). */
typedef struct sf_fs {
	bool syn, synack, cookie, icmp;
	uint8_t syn_retx, synack_retx; /* saturating */
} sf_fs;

static void sf_on_icmp_error(pd_ctx *ctx, const pd_flow *flow, void *fsv, const pd_packet *pkt, int dir)
{
	(void)ctx;
	(void)flow;
	(void)pkt;
	if (dir == PD_CLIENT)
		((sf_fs *)fsv)->icmp = true;
}

/* Keeps the flow in a bounded list of names (the earliest first SYNs). */
static void sf_keep_key(GArray **list, size_t cap, const pd_flow *flow, bool connected)
{
	if (!*list)
		*list = g_array_new(FALSE, TRUE, sizeof(sf_key));
	sf_key k;
	memset(&k, 0, sizeof(k));
	pd_flow_key_of(&k.flow, flow);
	k.frame = flow->syn_frame;
	k.ts = flow->syn_ts;
	k.last_syn_ts = flow->syn_last_ts > flow->syn_ts ? flow->syn_last_ts : flow->syn_ts;
	k.connected = connected;
	if ((*list)->len < cap) {
		g_array_append_val(*list, k);
		return;
	}
	/* full: the latest first SYN gives way to an earlier one */
	guint w = 0;
	for (guint i = 1; i < (*list)->len; i++)
		if (g_array_index(*list, sf_key, i).frame > g_array_index(*list, sf_key, w).frame)
			w = i;
	if (k.frame < g_array_index(*list, sf_key, w).frame)
		g_array_index(*list, sf_key, w) = k;
}

static void sf_retry_ip(sf_srv *s, const pd_addr *a)
{
	uint32_t ip = (uint32_t)pd_addr_hash64(a);
	for (uint8_t i = 0; i < s->n_retry_ips; i++)
		if (s->retry_ips[i] == ip)
			return;
	if (s->n_retry_ips < SF_CLIENT_IPS)
		s->retry_ips[s->n_retry_ips++] = ip;
	else
		s->more_retry_ips = true;
}

static void sf_on_tcp(pd_ctx *ctx, const pd_flow *flow, void *fsv, const pd_packet *pkt, const pd_seg *seg)
{
	(void)ctx;
	sf_fs *fs = fsv;
	const pd_tcp *t = &pkt->tcp;
	const uint8_t fl = t->flags;
	if (!(fl & PD_TCP_SYN))
		return;
	if (seg->flags & PD_SEG_SYN_RETRANS) {
		if (seg->flags & (PD_SEG_CAPTURE_COPY | PD_SEG_CAPTURE_DUP))
			return;
		uint8_t *n = seg->dir == PD_CLIENT ? &fs->syn_retx : &fs->synack_retx;
		if (*n < UINT8_MAX)
			++*n;
		return;
	}
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
	bool half_open = c->pkts == c->syn_count;
	if (fs->syn_retx) {
		/* a real client retrying (its retries are what the flood cost it) */
		s->retried++;
		s->retried_connected += !half_open && flow->synack_frame;
		sf_retry_ip(s, &flow->addr[PD_CLIENT]);
		sf_keep_key(&s->retries, SF_RETRY_KEYS, flow, !half_open && flow->synack_frame);
	}
	if (!half_open) {
		s->completed++;
		return;
	}
	s->half_open++;
	if (!s->first_half_open_frame || flow->syn_frame < s->first_half_open_frame) {
		s->first_half_open_frame = flow->syn_frame;
		s->first_half_open_ts = flow->syn_ts;
	}
	if (flow->syn_ts > s->last_half_open_ts)
		s->last_half_open_ts = flow->syn_ts;
	if (fs->synack) {
		s->ho_answered++;
		s->ho_held += fs->synack_retx > 0;
		if (!s->first_answered_frame || flow->syn_frame < s->first_answered_frame) {
			s->first_answered_frame = flow->syn_frame;
			s->first_answered_ts = flow->syn_ts;
		}
	} else if (!flow->half[PD_SERVER].pkts && !fs->icmp) {
		s->ho_silent++;
		if (!s->first_silent_frame || flow->syn_frame < s->first_silent_frame) {
			s->first_silent_frame = flow->syn_frame;
			s->first_silent_ts = flow->syn_ts;
		}
	}
	if (!fs->syn_retx)
		sf_keep_key(&s->sample, SF_SAMPLE_KEYS, flow, false);
	if (!sf_flooded(s))
		return;
	if (!g->flood)
		g->flood = pd_finding_get(ctx, "syn-flood", NULL);
	pd_finding_occurrence(g->flood, flow->syn_frame, flow->syn_ts, "half-open SYN", "半开连接的 SYN");
}

/* First SYN first: the order flows are named in. */
static gint sf_cmp_key(gconstpointer a, gconstpointer b)
{
	const sf_key *x = a, *y = b;
	return x->frame < y->frame ? -1 : x->frame > y->frame;
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
	/* The real clients that retried while the flood lasted first (what it
	 * explains), then half-open flows of the flood itself. */
	uint64_t during = 0, during_connected = 0;
	pd_time worst_wait = 0;
	if (w->retries)
		g_array_sort(w->retries, sf_cmp_key);
	if (w->sample)
		g_array_sort(w->sample, sf_cmp_key);
	for (guint i = 0; w->retries && i < w->retries->len; i++) {
		const sf_key *k = &g_array_index(w->retries, sf_key, i);
		if (k->last_syn_ts < w->first_half_open_ts || k->ts > w->last_half_open_ts + SF_REQ_LIFE)
			continue;
		during++;
		during_connected += k->connected;
		if (k->last_syn_ts - k->ts > worst_wait)
			worst_wait = k->last_syn_ts - k->ts;
		pd_finding_add_key(ctx, f, &k->flow);
		pd_finding_occurrence(f, k->frame, k->ts, "a client's SYN, retried", "客户端的 SYN，被重传");
	}
	for (guint i = 0; w->sample && i < w->sample->len; i++)
		pd_finding_add_key(ctx, f, &g_array_index(w->sample, sf_key, i).flow);
	/* the SYN queue filled, then new SYNs went unanswered, and no cookie */
	bool dropping = !w->cookie_synacks && w->ho_held && w->ho_answered >= SF_MIN_ANSWERED &&
			w->ho_silent >= SF_MIN_SILENT && w->first_silent_frame > w->first_answered_frame;
	pd_finding_set_confidence(f, sources >= 10 * SF_MIN_SOURCES ? 0.9 : 0.75);
	pd_finding_metric(f, "half_open", (double)w->half_open, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "syns", (double)w->syns, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "sources_estimated", round(sources), PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "busiest_second_syns", w->rate.peak, PD_UNIT_COUNT, PD_AGG_MAX);
	pd_finding_metric(f, "synacks_seen", (double)w->synacks, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "syncookie_synacks", (double)w->cookie_synacks, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "completed_handshakes", (double)w->completed, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "half_open_answered", (double)w->ho_answered, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "half_open_synack_retransmitted", (double)w->ho_held, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "half_open_unanswered", (double)w->ho_silent, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "clients_retrying", (double)w->retried, PD_UNIT_COUNT, PD_AGG_SUM);
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
	if (dropping)
		pd_finding_append(f,
				  "; %llu of the half-open SYNs got SYN-ACKs, %llu of them retransmitted (the server "
				  "kept a request for each: no SYN cookie), and %llu got no answer at all, the first "
				  "at t=%.1f s, after the answered ones: the SYN queue was full, and with "
				  "net.ipv4.tcp_syncookies=0 Linux drops every new SYN then, real clients' too",
				  "；其中 %1$llu 个半连接 SYN 收到了 SYN-ACK，其中 %2$llu 个被重传（服务端为每个都保留了"
				  "请求：不是 SYN cookie），另有 %3$llu 个完全没有应答，第一个在 t=%4$.1f 秒，晚于得到应答的"
				  "那些：SYN 队列已满，而 net.ipv4.tcp_syncookies=0 时 Linux 会丢弃此后所有新的 SYN，"
				  "包括真实客户端的",
				  (unsigned long long)w->ho_answered, (unsigned long long)w->ho_held,
				  (unsigned long long)w->ho_silent, (double)(w->first_silent_ts - pd_ctx_start(ctx)) / 1e9);
	if (during)
		pd_finding_append(f,
				  "; meanwhile %llu%s connection(s) from %u%s client address(es) had to retry their "
				  "SYN (for up to %.1f s); %llu of them connected in the end",
				  "；与此同时，来自 %3$u%4$s 个客户端地址的 %1$llu%2$s 个连接不得不重传 SYN（最长 "
				  "%5$.1f 秒）；其中 %6$llu 个最终建立了连接",
				  (unsigned long long)during, w->retried > w->retries->len ? "+" : "",
				  (unsigned)w->n_retry_ips, w->more_retry_ips ? "+" : "",
				  (double)worst_wait / 1e9, (unsigned long long)during_connected);
	if (dropping)
		/* drops with cookies off: turning them on is the fix; the queue's
		 * size (the backlog, 3/4 of tcp_max_syn_backlog) only delays them */
		pd_finding_settings(f, "net.ipv4.tcp_syncookies", "net.ipv4.tcp_max_syn_backlog", "listen() backlog",
				    "net.core.somaxconn", "net.ipv4.tcp_synack_retries", "firewall dropping SYN/SYN-ACK",
				    NULL);
	else
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
	.on_tcp_for = PD_ON_SYN, /* sf_on_tcp looks at nothing else */
	.on_tcp = sf_on_tcp,
	.on_icmp_error = sf_on_icmp_error,
	.on_flow_end = sf_on_flow_end,
	.on_end = sf_on_end,
	.fini = sf_fini,
};
