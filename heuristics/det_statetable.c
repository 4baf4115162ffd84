/* A state table full: from some moment on no new connection gets through,
 * from any of several clients to any server (their SYNs get no SYN-ACK, no
 * RST, no ICMP error), while the connections already open keep exchanging
 * data both ways. That is what a connection-tracking table at its limit
 * does (nf_conntrack_max on a router or on the server itself: each new
 * flow's first packet needs an entry, packets of known flows do not), and
 * equally a firewall's connection limit, a NAT gateway's or a load
 * balancer's. A path that lost packets, a server that went down or a
 * listener that stopped answering would stop the open connections too, or
 * answer with RSTs, or show the handshakes it completed without a word
 * (a full accept queue); a SYN queue full of a flood's half-open requests
 * answered those first (det_synflood). The number of connections open at
 * the onset is said, and whether it is a round number, as a configured
 * limit usually is.
 *
 * The onset is the first SYN of an attempt that failed after the latest
 * attempt that got an answer. Flows end in any order, so the failed
 * attempts after the latest answered one so far and the established
 * connections that outlived it are kept (bounded arrays, compacted when
 * full); what the capture shows past the bounds is counted, and the
 * figures said are then floors. */
#include <stdio.h>
#include <string.h>

#include "dissect/addr.h"
#include "heuristics/detector.h"
#include "heuristics/util.h"

#define ST_MIN_CLIENTS 3 /* distinct client addresses failing */
#define ST_MIN_FAILED 6 /* failed attempts after the onset */
#define ST_MIN_SPAN (2 * PD_NS_PER_SEC) /* the onset to the last unanswered SYN */
#define ST_MIN_CARRIED 3 /* connections open at the onset carrying data both ways after it */
#define ST_MAX_FAILS 4096
#define ST_MAX_CONNS 32768
#define ST_MAX_IDS 64 /* distinct clients / server endpoints told apart */
/* A SYN queue's signature, not a table's: half-open SYNs the server
 * answered (and the client never completed) shortly before the onset. */
#define ST_MIN_HALF_OPEN 16
#define ST_HALF_OPEN_WINDOW (70 * PD_NS_PER_SEC)
/* A full accept queue's: connections set up shortly before the onset that
 * carried a request and never an answer. */
#define ST_STALL_WINDOW (10 * PD_NS_PER_SEC)

/* Per flow, for every flow (floods included): ICMP errors about the
 * client's packets, and its SYN retransmissions (not the same SYN captured
 * twice, as tcpdump -i any on a router shows it). */
typedef struct st_fs {
	bool icmp;
	uint8_t syn_retx;
} st_fs;

/* From the flow's first payload on: when data last went each way. */
typedef struct st_pl {
	pd_time last_payload[2];
} st_pl;

/* An attempt nobody answered. */
typedef struct st_fail {
	pd_flow_key flow;
	uint64_t frame; /* its first SYN */
	pd_time ts, last_syn_ts;
	uint64_t client, server; /* hashes: the client address, the server endpoint */
} st_fail;

/* A connection set up (or picked up mid-stream) and what it did. */
typedef struct st_conn {
	pd_time start; /* its first SYN; INT64_MIN when picked up mid-stream */
	pd_time end; /* its first FIN or RST, else its last packet */
	pd_time both_last; /* the earlier of the last data each way; 0: not both ways */
	bool stalled; /* a request, never an answer */
} st_conn;

typedef struct st_g {
	/* the latest first SYN of an attempt that got an answer */
	bool any_ok;
	pd_time last_ok_ts;
	uint64_t last_ok_frame;
	GArray *fails; /* st_fail with ts > last_ok_ts when kept */
	GArray *conns; /* st_conn with end > last_ok_ts when kept */
	pd_time fails_compacted, conns_compacted; /* last_ok_ts at the last compaction that left it full */
	uint64_t fails_lost, conns_lost; /* past the bounds */
	uint64_t ho_answered;
	pd_time ho_last_ts;
} st_g;

static void st_on_tcp(pd_ctx *ctx, const pd_flow *flow, void *fsv, const pd_packet *pkt, const pd_seg *seg)
{
	(void)flow;
	st_fs *fs = fsv;
	const pd_tcp *t = &pkt->tcp;
	if ((t->flags & PD_TCP_SYN) && !(t->flags & PD_TCP_ACK) && seg->dir == PD_CLIENT &&
	    (seg->flags & PD_SEG_SYN_RETRANS) && !(seg->flags & (PD_SEG_CAPTURE_COPY | PD_SEG_CAPTURE_DUP)) &&
	    fs->syn_retx < UINT8_MAX)
		fs->syn_retx++;
	if (t->payload_len && (seg->flags & PD_SEG_NEW_DATA)) {
		st_pl *pl = pd_ctx_payload(ctx);
		if (pl)
			pl->last_payload[seg->dir] = pkt->ts;
	}
}

static void st_on_icmp_error(pd_ctx *ctx, const pd_flow *flow, void *fsv, const pd_packet *pkt, int dir)
{
	(void)ctx;
	(void)flow;
	(void)pkt;
	if (dir == PD_CLIENT)
		((st_fs *)fsv)->icmp = true;
}

static void st_init(pd_ctx *ctx, void *gv)
{
	(void)ctx;
	(void)gv;
}

static void st_fini(void *gv)
{
	st_g *g = gv;
	if (g->fails)
		g_array_free(g->fails, TRUE);
	if (g->conns)
		g_array_free(g->conns, TRUE);
}

/* Drops what the latest answered attempt made irrelevant: failures before
 * it, connections that ended before it. */
static void st_compact_fails(st_g *g)
{
	guint n = 0;
	for (guint i = 0; i < g->fails->len; i++)
		if (g_array_index(g->fails, st_fail, i).ts > g->last_ok_ts)
			g_array_index(g->fails, st_fail, n++) = g_array_index(g->fails, st_fail, i);
	g_array_set_size(g->fails, n);
}

static void st_compact_conns(st_g *g)
{
	guint n = 0;
	for (guint i = 0; i < g->conns->len; i++)
		if (g_array_index(g->conns, st_conn, i).end > g->last_ok_ts)
			g_array_index(g->conns, st_conn, n++) = g_array_index(g->conns, st_conn, i);
	g_array_set_size(g->conns, n);
}

static uint64_t st_endpoint_hash(const pd_addr *a, uint16_t port)
{
	return pd_mix64(pd_addr_hash64(a) ^ port);
}

static void st_add_fail(st_g *g, const pd_flow *flow)
{
	if (g->any_ok && flow->syn_ts <= g->last_ok_ts)
		return;
	if (!g->fails)
		g->fails = g_array_new(FALSE, TRUE, sizeof(st_fail));
	if (g->fails->len >= ST_MAX_FAILS && g->fails_compacted != g->last_ok_ts) {
		st_compact_fails(g);
		g->fails_compacted = g->last_ok_ts;
	}
	if (g->fails->len >= ST_MAX_FAILS) {
		g->fails_lost++;
		return;
	}
	st_fail f;
	memset(&f, 0, sizeof(f));
	pd_flow_key_of(&f.flow, flow);
	f.frame = flow->syn_frame;
	f.ts = flow->syn_ts;
	f.last_syn_ts = flow->syn_last_ts > flow->syn_ts ? flow->syn_last_ts : flow->syn_ts;
	f.client = pd_addr_hash64(&flow->addr[PD_CLIENT]);
	f.server = st_endpoint_hash(&flow->addr[PD_SERVER], flow->port[PD_SERVER]);
	g_array_append_val(g->fails, f);
}

static void st_add_conn(st_g *g, const pd_flow *flow, const st_pl *pl)
{
	st_conn c;
	memset(&c, 0, sizeof(c));
	c.start = flow->syn_frame ? flow->syn_ts : INT64_MIN;
	c.end = flow->close_ts ? flow->close_ts : flow->last_ts;
	if (g->any_ok && c.end <= g->last_ok_ts)
		return;
	pd_time lc = pl ? pl->last_payload[PD_CLIENT] : 0, ls = pl ? pl->last_payload[PD_SERVER] : 0;
	c.both_last = lc && ls ? (lc < ls ? lc : ls) : 0;
	c.stalled = lc && !ls;
	if (!g->conns)
		g->conns = g_array_new(FALSE, TRUE, sizeof(st_conn));
	if (g->conns->len >= ST_MAX_CONNS && g->conns_compacted != g->last_ok_ts) {
		st_compact_conns(g);
		g->conns_compacted = g->last_ok_ts;
	}
	if (g->conns->len >= ST_MAX_CONNS) {
		g->conns_lost++;
		return;
	}
	g_array_append_val(g->conns, c);
}

static void st_on_flow_end(pd_ctx *ctx, void *gv, const pd_flow *flow, void *fsv)
{
	st_g *g = gv;
	st_fs *fs = fsv;
	if (flow->proto != 6 || flow->pseudo)
		return;
	const pd_tcp_half *c = &flow->half[PD_CLIENT], *s = &flow->half[PD_SERVER];
	const st_pl *pl = pd_ctx_payload(ctx);
	bool attempt = flow->syn_frame && c->syn_seen;
	/* the server's SYN-ACK or RST: the SYN got through whatever tracks state */
	bool answered = attempt && (flow->synack_frame || s->pkts);
	bool only_syns = c->pkts == c->syn_count;
	if (answered) {
		if (!g->any_ok || flow->syn_ts > g->last_ok_ts) {
			g->any_ok = true;
			g->last_ok_ts = flow->syn_ts;
			g->last_ok_frame = flow->syn_frame;
		}
		if (flow->synack_frame && only_syns) {
			g->ho_answered++;
			if (flow->syn_ts > g->ho_last_ts)
				g->ho_last_ts = flow->syn_ts;
		}
	} else if (attempt && only_syns && fs->syn_retx && !fs->icmp) {
		st_add_fail(g, flow); /* retried into silence */
	}
	if ((attempt && flow->synack_frame && !only_syns) || (!flow->syn_frame && pl))
		st_add_conn(g, flow, pl);
}

/* Whether n looks configured: a power of two, or a multiple of 100. */
static bool st_round(uint64_t n)
{
	return (n >= 32 && !(n & (n - 1))) || (n >= 100 && n % 100 == 0);
}

/* Distinct values among up to ST_MAX_IDS (a floor past that). */
static uint32_t st_distinct(uint64_t *seen, uint32_t *n, uint64_t v)
{
	for (uint32_t i = 0; i < *n; i++)
		if (seen[i] == v)
			return *n;
	if (*n < ST_MAX_IDS)
		seen[(*n)++] = v;
	return *n;
}

static gint st_cmp_fail(gconstpointer a, gconstpointer b)
{
	const st_fail *x = a, *y = b;
	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

static void st_on_end(pd_ctx *ctx, void *gv)
{
	st_g *g = gv;
	if (!g->fails)
		return;
	st_compact_fails(g);
	if (g->fails->len < ST_MIN_FAILED)
		return;
	g_array_sort(g->fails, st_cmp_fail);
	const st_fail *first = &g_array_index(g->fails, st_fail, 0);
	pd_time onset = first->ts, last_syn = 0;
	uint64_t clients[ST_MAX_IDS], servers[ST_MAX_IDS];
	uint32_t n_clients = 0, n_servers = 0;
	for (guint i = 0; i < g->fails->len; i++) {
		const st_fail *f = &g_array_index(g->fails, st_fail, i);
		st_distinct(clients, &n_clients, f->client);
		st_distinct(servers, &n_servers, f->server);
		if (f->last_syn_ts > last_syn)
			last_syn = f->last_syn_ts;
	}
	if (n_clients < ST_MIN_CLIENTS || last_syn - onset < ST_MIN_SPAN)
		return;
	/* a flood's half-open requests filled a SYN queue: det_synflood's */
	if (g->ho_answered >= ST_MIN_HALF_OPEN && g->ho_last_ts >= onset - ST_HALF_OPEN_WINDOW)
		return;
	uint64_t open = 0, carried = 0, stalled = 0;
	for (guint i = 0; g->conns && i < g->conns->len; i++) {
		const st_conn *c = &g_array_index(g->conns, st_conn, i);
		if (c->start >= onset)
			continue;
		stalled += c->stalled && c->start >= onset - ST_STALL_WINDOW;
		if (c->end <= onset)
			continue;
		open++;
		carried += c->both_last > onset;
	}
	/* the open connections must visibly go on; a listener that stopped
	 * answering what it set up is the accept queue's (det_handshake) */
	if (carried < ST_MIN_CARRIED || stalled)
		return;

	pd_finding *f = pd_finding_get(ctx, "state-table-full", NULL);
	uint64_t failed = g->fails->len + g->fails_lost;
	for (guint i = 0; i < g->fails->len; i++) {
		const st_fail *x = &g_array_index(g->fails, st_fail, i);
		pd_finding_add_key(ctx, f, &x->flow);
		pd_finding_occurrence(f, x->frame, x->ts, "SYN never answered", "始终没有应答的 SYN");
	}
	if (g->any_ok)
		pd_finding_occurrence(f, g->last_ok_frame, g->last_ok_ts, "the last connection that got an answer",
				      "最后一个得到应答的连接");
	bool round = st_round(open);
	double t0 = (double)(onset - pd_ctx_start(ctx)) / 1e9;
	pd_finding_metric(f, "failed_attempts", (double)failed, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "clients", n_clients, PD_UNIT_COUNT, PD_AGG_MAX);
	pd_finding_metric(f, "server_endpoints", n_servers, PD_UNIT_COUNT, PD_AGG_MAX);
	pd_finding_metric(f, "onset_s", t0, PD_UNIT_S, PD_AGG_MIN);
	pd_finding_metric(f, "unanswered_for_s", (double)(last_syn - onset) / 1e9, PD_UNIT_S, PD_AGG_MAX);
	pd_finding_metric(f, "open_at_onset", (double)open, PD_UNIT_COUNT, PD_AGG_MAX);
	pd_finding_metric(f, "carrying_data_after_onset", (double)carried, PD_UNIT_COUNT, PD_AGG_MAX);
	pd_finding_set_severity(f, PD_SEV_ERROR);
	pd_finding_set_confidence(f, n_servers >= 2 || round ? 0.8 : 0.65);
	pd_finding_detail(f,
			  "from t=%.2f s on, none of %llu%s new connection attempts from %u%s client addresses to "
			  "%u%s server endpoint(s) got any answer (no SYN-ACK, no RST, no ICMP error) in %.1f s of "
			  "retries, while %llu of the %llu%s connections open at that moment went on exchanging "
			  "data both ways; no new connection got through after it",
			  "从 t=%1$.2f 秒起，来自 %4$u%5$s 个客户端地址、发往 %6$u%7$s 个服务端端点的 %2$llu%3$s "
			  "次新建连尝试在 %8$.1f 秒的重试中都没有得到任何应答（没有 SYN-ACK、没有 RST、没有 ICMP "
			  "差错），而此刻已打开的 %10$llu%11$s 个连接中有 %9$llu 个仍在双向交换数据；此后没有"
			  "任何新连接成功",
			  t0, (unsigned long long)failed, g->fails_lost ? "+" : "", n_clients,
			  n_clients >= ST_MAX_IDS ? "+" : "", n_servers, n_servers >= ST_MAX_IDS ? "+" : "",
			  (double)(last_syn - onset) / 1e9, (unsigned long long)carried, (unsigned long long)open,
			  g->conns_lost ? "+" : "");
	if (g->any_ok)
		pd_finding_append(f, "; the last connection that got an answer sent its SYN at t=%.2f s (frame %llu)",
				  "；最后一个得到应答的连接在 t=%.2f 秒发出 SYN（帧 %llu）",
				  (double)(g->last_ok_ts - pd_ctx_start(ctx)) / 1e9, (unsigned long long)g->last_ok_frame);
	if (round && !(open & (open - 1)))
		pd_finding_append(f,
				  "; %llu connections open at the onset is a power of two, as a configured limit "
				  "often is: a table of tracked connections (conntrack, a firewall's or NAT's "
				  "connection limit) full at that size fits (it may also hold connections this "
				  "capture does not see)",
				  "；起始时刻打开的连接数 %llu 是 2 的幂，配置出来的上限常常如此：一张连接跟踪表"
				  "（conntrack、防火墙或 NAT 的连接数上限）在这个大小时满了，与之相符（表里也可能有"
				  "本抓包看不到的连接）",
				  (unsigned long long)open);
	else if (round)
		pd_finding_append(f,
				  "; %llu connections open at the onset is a round number, as a configured limit "
				  "often is: a table of tracked connections (conntrack, a firewall's or NAT's "
				  "connection limit) full at that size fits (it may also hold connections this "
				  "capture does not see)",
				  "；起始时刻打开的连接数 %llu 是个整数，配置出来的上限常常如此：一张连接跟踪表"
				  "（conntrack、防火墙或 NAT 的连接数上限）在这个大小时满了，与之相符（表里也可能有"
				  "本抓包看不到的连接）",
				  (unsigned long long)open);
	else
		pd_finding_append(f,
				  "; a table of tracked connections also holds connections this capture does not see "
				  "(other hosts, closed ones kept a while), so its limit is at least %llu",
				  "；连接跟踪表里还有本抓包看不到的连接（其他主机的、已关闭但仍保留一段时间的），"
				  "因此它的上限至少为 %llu",
				  (unsigned long long)open);
	if (n_servers >= 2)
		pd_finding_append(f,
				  "; several server endpoints failed at once: no single listener's queue, something "
				  "every new connection passes through",
				  "；多个服务端端点同时失败：不是某一个监听端的队列，而是每个新连接都要经过的东西");
	else
		pd_finding_append(f,
				  "; one server endpoint: a listener that stopped accepting would drop new SYNs too, "
				  "but the connections it set up last would then have got no answer, and here they "
				  "did",
				  "；只有一个服务端端点：不再 accept 的监听端也会丢弃新的 SYN，但那样它最后建立的"
				  "连接会得不到应答，而这里它们得到了");
	pd_finding_settings(f, "net.netfilter.nf_conntrack_max", "firewall connection limit", NULL);
}

static const char *const st_emits[] = {"state-table-full", NULL};

const pd_detector pd_det_statetable = {
	.name = "statetable",
	.emits = st_emits,
	.init = st_init,
	.flow_state_size = sizeof(st_fs),
	.payload_state_size = sizeof(st_pl),
	.global_state_size = sizeof(st_g),
	.on_tcp_for = PD_ON_SYN | PD_ON_NEW_DATA, /* SYN retries and the last payload's time */
	.on_tcp = st_on_tcp,
	.on_icmp_error = st_on_icmp_error,
	.on_flow_end = st_on_flow_end,
	.on_end = st_on_end,
	.fini = st_fini,
};
