/* Handshake diagnosis: SYN retransmits and their backoff schedule, connects
 * that never got a SYN-ACK, SYNs a firewall rejected with ICMP unreachable,
 * SYN-ACK retransmits (before or after the client's ACK: the latter is
 * Linux's accept-queue overflow), RSTs from tcp_abort_on_overflow, SYN
 * cookies (a SYN-ACK without the options the same server grants elsewhere)
 * and many clients retrying toward one listener at once.
 *
 * Everything is measured from the packets: the retry gaps, the connect
 * time, whether the client gave up. Per-flow state is fixed-size; the
 * per-server table is a fixed array with eviction, so memory stays bounded
 * whatever the capture holds. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dissect/addr.h"
#include "dissect/peer_os.h"
#include "heuristics/detector.h"
#include "heuristics/keytable.h"
#include "heuristics/util.h"

#define HS_MAX_SYNS 7 /* SYN send times kept per flow for the schedule */
#define HS_SRV_MAX 2048 /* server endpoints tracked */
#define HS_BUCKET_IPS 16 /* distinct retrying clients kept per second and server */
#define HS_MAX_BUCKETS 65536 /* (server, second) buckets in all */
#define HS_RETRY_FLOWS 32 /* retrying flows named per server */
#define HS_OVERLOAD_WINDOW (2 * PD_NS_PER_SEC)
#define HS_OVERLOAD_CLIENTS 3 /* distinct client IPs retrying within the window */
/* Share of the listener's connection attempts in the window that had to
 * retry: path loss of a few per cent spread over a busy listener's many
 * clients is not overload; a listener that drops SYNs makes a large share
 * of its clients retry at once. */
#define HS_OVERLOAD_SHARE 0.10
#define HS_MAX_FLOW_FINDINGS 2000 /* per id: beyond that, a flood, not a diagnosis */
#define HS_KEEP 4096 /* findings re-ranked at the end */
#define HS_DUP_NS (PD_NS_PER_SEC / 100) /* closer than this: the same packet twice */
#define HS_SYNACK_MIN_RTO (PD_NS_PER_SEC / 5)
#define HS_COOKIE_SILENCE (3 * PD_NS_PER_SEC / 2) /* past the first SYN-ACK retransmission */
#define HS_HIST_BUCKETS 1024 /* connect-time histogram, 2 % log steps from 10 us */
/* Moments a server answered a connection (ACKed new client data or sent
 * data), kept per flow and per server: another connection answered while
 * one stalls shows the path and the server worked. */
#define HS_FLOW_MOMENTS 3
#define HS_MOMENT_GAP (PD_NS_PER_SEC / 10)
#define HS_SRV_MOMENTS 32
#define HS_SRV_PENDING 16 /* stalled connections of a server awaiting that evidence */
#define HS_AFTER_KEPT 4 /* SYN-ACKs re-sent after the handshake ACK kept per flow */
/* Connections of a server whose handshake the listener took at once,
 * kept per server: one whose ACK came just after a stalled connection's
 * shows the accept queue had room then. */
#define HS_SRV_ROOMS 16
#define HS_ROOM_WINDOW (PD_NS_PER_SEC / 10)
/* A SYN-ACK this soon after a client SYN retransmission (in round trips
 * from the capture point to the server, plus a little) answers that SYN
 * (tcp_check_req re-sends at once), not the SYN-ACK timer. */
#define HS_ANSWER_SLACK (PD_NS_PER_SEC / 200)

enum { HS_REJECT_NONE = 0, HS_REJECT_PROHIBITED, HS_REJECT_PORT, HS_REJECT_UNREACH };

typedef struct hs_fs {
	/* First, together: what every SYN writes and every flow end reads
	 * (a flood's flows are cold by then; one cache line, not four). */
	uint32_t syns; /* client SYNs carrying the first ISN, the original included */
	uint32_t synacks;
	uint32_t synack_retx_before_ack, synack_retx_after_ack;
	/* the abort RST (tcp_abort_on_overflow), as offsets from the flow's
	 * first packet (hs_us, hs_fr: half the room of a time and a frame) */
	uint32_t abort_rst_fr, abort_rst_us;
	uint64_t rst_answer_frame; /* RST from the server before any SYN-ACK */
	pd_time last_syn_ts;
	uint64_t last_syn_frame;
	uint32_t first_syn_ipid, last_syn_ipid;
	bool client_other; /* client sent something besides SYNs */
	bool client_rst;
	bool syn_has_ts;
	/* 1 + index of the kept SYN whose TSval the first SYN-ACK echoes; 0 unknown */
	uint8_t synack_echo;
	bool server_spoke_after_ack; /* any other server segment between the ACK and usable_ts */
	bool stripped_synack; /* SYN-ACK without WS/SACK although the client offered them */
	/* the first answer to the SYN was a bare ACK for another connection
	 * (the timestamps detector explains it) */
	bool challenge;
	uint8_t first_syn_ttl;
	/* SYN send times and frames as offsets from the first SYN (compact:
	 * this block exists for every flow, floods included) */
	pd_time syn0_ts;
	uint64_t syn0_frame;
	uint32_t syn_us[HS_MAX_SYNS];
	uint32_t syn_fr[HS_MAX_SYNS];
	uint32_t syn_tsv[HS_MAX_SYNS]; /* their TSvals, when syn_has_ts */
	uint32_t last_synack_ipid;
	pd_time last_synack_ts;
	uint32_t synack_retx_fr, synack_retx_us; /* first SYN-ACK retransmit (offsets) */
	uint32_t dup_frames; /* the same packet captured twice */
	uint32_t syn_after_synack; /* client SYN retransmits after a SYN-ACK was seen */
	pd_time synack_last_before_ack_ts;
	uint32_t client_data_retx; /* client data resent while the server acked none */
	/* the newest SYN-ACK TSval of one server ISN, and its frame (offset):
	 * a SYN-ACK with an older one was sent earlier and delayed on the path */
	uint32_t synack_max_tsval, synack_max_seq, synack_max_fr;
	pd_time usable_ts; /* first server packet acking client data or carrying data */
	uint64_t usable_frame;
	/* the first SYN-ACK: when, and whether it granted the options the
	 * client offered (1), stripped them (2), or cannot tell (0) */
	pd_time first_synack_ts;
	uint8_t synack_opt;
	bool synack_tsv_seen;
	/* server answers (offsets), a few spread out */
	uint8_t n_moments;
	uint32_t moment_us[HS_FLOW_MOMENTS];
	uint32_t moment_fr[HS_FLOW_MOMENTS];
	/* The client's first data segment (sequence ISN + 1) before the
	 * server's first answer: its first copy (offset) and TSval, how many
	 * copies went, the last copy's TSval; the client's first data
	 * retransmission (offset, 0 none) */
	uint32_t c0_us, c0_tsval, c0_last_tsval, retx0_us;
	uint16_t c0_copies;
	bool c0_has_ts;
	/* the server's first answer acknowledged that first copy (no copy
	 * resent before it, or it echoes the first copy's TSval only), or it
	 * carried a D-SACK of client data */
	bool first_copy_taken, first_answer_dsack;
	uint32_t srv_rtt_us; /* least client packet -> server answer round trip (0 none) */
	/* the client's latest TSval and when it was first sent (offset): a
	 * server segment echoing it is a round-trip sample, retransmission or not */
	uint32_t c_tsval, c_tsval_us;
	bool c_tsval_seen;
	bool hs_ack_plain; /* the handshake ACK had sequence ISN + 1 and no FIN */
	bool client_fin; /* the client sent a FIN */
	struct hs_rare *rare; /* made at the first late SYN-ACK, SYN-ACK re-sent after the ACK or ICMP error */
} hs_fs;

/* What few flows have, kept out of the block every flow (floods
 * included) carries: SYN-ACKs the path delayed, ICMP errors quoting the
 * SYN. Offsets from the flow's first packet like the block's. */
typedef struct hs_rare {
	uint32_t late_synacks;
	uint32_t late_fr, late_us, late_ref_fr; /* the first late one, and the newer one before it */
	uint32_t icmp_rejects;
	uint8_t icmp_type, icmp_code, icmp_kind, icmp_inner_ttl;
	bool icmp_v6, icmp_src_varies;
	pd_addr icmp_src;
	uint32_t icmp_fr, icmp_us, icmp_last_fr, icmp_last_us;
	pd_time icmp_delay;
	/* SYN-ACKs re-sent after the client's handshake ACK, the first few */
	uint8_t n_after;
	uint32_t after_us[HS_AFTER_KEPT], after_fr[HS_AFTER_KEPT];
} hs_rare;

static pd_time hs_syn_ts(const hs_fs *fs, uint32_t i)
{
	return fs->syn0_ts + (pd_time)fs->syn_us[i] * 1000;
}

static uint64_t hs_syn_frame(const hs_fs *fs, uint32_t i)
{
	return fs->syn0_frame + fs->syn_fr[i];
}

/* A time and a frame of the flow as offsets from its first packet, and
 * back (microseconds, saturating: what happens past 71 minutes reads as
 * then). */
static uint32_t hs_us(const pd_flow *flow, pd_time ts)
{
	pd_time d = (ts - flow->first_ts) / 1000;
	return d < 0 ? 0 : d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
}

static pd_time hs_at(const pd_flow *flow, uint32_t us)
{
	return flow->first_ts + (pd_time)us * 1000;
}

static uint32_t hs_fr(const pd_flow *flow, uint64_t frame)
{
	uint64_t d = frame - flow->first_frame;
	return d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
}

static uint64_t hs_frame(const pd_flow *flow, uint32_t fr)
{
	return flow->first_frame + fr;
}

static hs_rare *hs_rare_of(hs_fs *fs)
{
	if (!fs->rare)
		fs->rare = g_new0(hs_rare, 1);
	return fs->rare;
}

/* The distinct clients that retransmitted a SYN toward a server in one
 * second of capture time, and the flows whose first retransmission fell in
 * it. */
typedef struct hs_bucket {
	uint32_t ip[HS_BUCKET_IPS];
	uint32_t flows;
	uint8_t n;
	bool more;
} hs_bucket;

/* A flow that retransmitted its SYN toward a server. */
typedef struct hs_retry {
	pd_flow_key flow;
	uint64_t frame; /* its first SYN retransmission */
	pd_time ts;
} hs_retry;

/* A moment the server answered one of its connections. */
typedef struct hs_moment {
	pd_time ts;
	uint64_t frame;
	uint32_t client; /* hash of the client address */
	uint16_t cport;
	pd_addr caddr;
} hs_moment;

/* A connection whose handshake the listener took at once: its handshake
 * ACK, and its first data segment, which the server acknowledged on its
 * first copy soon after: the accept queue had room in between. */
typedef struct hs_room {
	pd_time ack_ts, c0_ts;
	uint64_t frame; /* its handshake ACK */
	uint32_t client;
	uint16_t cport;
} hs_room;

typedef struct hs_srv_key {
	pd_addr addr;
	uint16_t port;
} hs_srv_key;

typedef struct hs_srv {
	pd_addr addr;
	uint16_t port;
	/* listener overload: SYN retransmits per second and their clients
	 * (flows end in any order, so whole seconds, not a sliding ring) */
	GHashTable *buckets; /* second -> hs_bucket */
	GArray *retries; /* hs_retry, at most HS_RETRY_FLOWS */
	uint32_t clients[8]; /* distinct client IPs that retransmitted SYNs */
	uint8_t n_clients;
	bool more_clients;
	uint32_t peak_clients; /* most distinct clients retrying within the window */
	uint32_t peak_flows; /* flows whose first SYN retry fell in that window */
	pd_time peak_ts;
	uint32_t syn_retx;
	uint32_t retry_flows; /* flows that retransmitted their SYN */
	uint32_t aq_flows; /* flows with accept-queue overflow */
	/* connection attempts (flows with a SYN) and their first SYNs' span:
	 * the listener's SYN rate */
	uint64_t attempts;
	pd_time first_attempt, last_attempt;
	/* SYN cookies */
	uint32_t synack_full, synack_stripped;
	uint64_t stripped_frame; /* first stripped SYN-ACK not yet reported */
	pd_time stripped_ts;
	bool stripped_pending;
	/* answers on its connections (a ring), and stalled connections
	 * (indexes into hs_g.kept) still waiting for evidence */
	hs_moment *moments; /* [HS_SRV_MOMENTS], made at the first answer */
	uint8_t n_moments, next_moment;
	struct hs_room *rooms; /* [HS_SRV_ROOMS], made at the first */
	uint8_t n_rooms, next_room;
	uint16_t pending[HS_SRV_PENDING];
	uint8_t n_pending;
} hs_srv;

typedef struct hs_kept {
	pd_finding *f;
	pd_addr addr;
	uint16_t port;
	/* 0 syn-retransmit, 1 syn-unanswered, 2 silent server after the ACK,
	 * 3 accept-queue overflow shown by the listener (SYN-ACK re-sent after
	 * the ACK, or the abort RST) */
	uint8_t kind;
	uint8_t client_os; /* pd_peer_os of the client's SYN */
	/* kind 2: the stall, its client, and another connection the server
	 * answered meanwhile (0: none found) */
	bool long_silence;
	bool at_server; /* captured near the server: the client's packets visibly arrived */
	bool answered; /* the server answered the connection in the end */
	pd_time stall_from, stall_to;
	uint32_t client;
	uint16_t cport;
	uint64_t other_frame;
	pd_time other_ts;
	uint16_t other_cport;
	bool other_same_client;
	pd_addr other_caddr;
	/* kinds 2, 3: the handshake ACK, until when another connection's
	 * handshake taken at once shows the queue had room at this one's
	 * drop, and the first such connection (its ACK's frame; 0 none) */
	uint64_t ack_frame, room_frame;
	pd_time room_to;
} hs_kept;

typedef struct hs_g {
	pd_keytable *srv; /* hs_srv_key -> hs_srv */
	uint32_t n_buckets;
	hs_kept kept[HS_KEEP];
	size_t n_kept;
	uint32_t per_id[5]; /* per-flow findings created: retx, unanswered, synack, aq, icmp */
	uint64_t hist[HS_HIST_BUCKETS]; /* connect times */
	uint64_t hist_n;
	pd_finding *cookies;
} hs_g;

/* ------------------------------------------------------------ helpers */

static void hs_srv_evict(void *v, void *arg)
{
	(void)arg;
	hs_srv *s = v;
	if (s->buckets)
		g_hash_table_destroy(s->buckets);
	if (s->retries)
		g_array_free(s->retries, TRUE);
	g_free(s->moments);
	g_free(s->rooms);
	s->buckets = NULL;
	s->retries = NULL;
	s->moments = NULL;
	s->rooms = NULL;
}

static void hs_key(hs_srv_key *k, const pd_addr *a, uint16_t port)
{
	memset(k, 0, sizeof(*k));
	k->addr = *a;
	k->port = port;
}

/* The entry for a server endpoint (the least recently used gives way). */
static hs_srv *hs_srv_get(hs_g *g, const pd_addr *a, uint16_t port)
{
	hs_srv_key k;
	hs_key(&k, a, port);
	bool made;
	hs_srv *s = pd_keytable_get(g->srv, &k, &made);
	if (made) {
		s->addr = *a;
		s->port = port;
	}
	return s;
}

static hs_srv *hs_srv_find(hs_g *g, const pd_addr *a, uint16_t port)
{
	hs_srv_key k;
	hs_key(&k, a, port);
	return pd_keytable_find(g->srv, &k);
}

static void hs_init(pd_ctx *ctx, void *gv)
{
	(void)ctx;
	hs_g *g = gv;
	g->srv = pd_keytable_new(sizeof(hs_srv_key), sizeof(hs_srv), HS_SRV_MAX, NULL, hs_srv_evict, NULL);
}

static void hs_fini(void *gv)
{
	hs_g *g = gv;
	pd_keytable_free(g->srv);
}

static double hs_sec(pd_time t)
{
	return (double)t / 1e9;
}

/* Log-scale histogram: bucket i ends at 10 us * 1.02^i. */
static void hs_hist_add(hs_g *g, pd_time d)
{
	double us = (double)d / 1e3;
	int b = us <= 10 ? 0 : (int)(log(us / 10) / log(1.02)) + 1;
	if (b >= HS_HIST_BUCKETS)
		b = HS_HIST_BUCKETS - 1;
	g->hist[b]++;
	g->hist_n++;
}

static double hs_hist_quantile(const hs_g *g, double q)
{
	if (!g->hist_n)
		return 0;
	uint64_t want = (uint64_t)ceil(q * (double)g->hist_n), acc = 0;
	if (want < 1)
		want = 1;
	for (int b = 0; b < HS_HIST_BUCKETS; b++) {
		acc += g->hist[b];
		if (acc >= want)
			return b == 0 ? 10e-6 : 10e-6 * pow(1.02, b - 0.5); /* mid-bucket, seconds */
	}
	return 0;
}

/* The finding, to be re-ranked at the end; NULL when the table is full. */
static hs_kept *hs_keep(hs_g *g, pd_finding *f, const pd_flow *flow, uint8_t kind)
{
	for (size_t i = 0; i < g->n_kept; i++)
		if (g->kept[i].f == f)
			return &g->kept[i];
	if (g->n_kept >= HS_KEEP)
		return NULL;
	hs_kept *k = &g->kept[g->n_kept++];
	memset(k, 0, sizeof(*k));
	k->f = f;
	k->addr = flow->addr[PD_SERVER];
	k->port = flow->port[PD_SERVER];
	k->kind = kind;
	k->client_os = flow->half[PD_CLIENT].os;
	return k;
}

/* Per-flow findings stop at a cap: past it the capture is a flood or a
 * scan and the capture-wide detectors speak for it. */
static pd_finding *hs_flow_finding(pd_ctx *ctx, hs_g *g, const char *id, int slot, const pd_flow *flow)
{
	if (g->per_id[slot] >= HS_MAX_FLOW_FINDINGS)
		return NULL;
	g->per_id[slot]++;
	return pd_finding_get(ctx, id, flow);
}

/* Leading retry gaps within 25 % of the first one: >= 2 is the linear
 * phase of Linux 6.5+ (tcp_syn_linear_timeouts, default 4: five gaps of
 * one initial RTO, then doubling); 1 followed by a gap about twice as long
 * is the classic doubling; 0 when the SYNs kept cannot tell. */
static uint32_t hs_equal_gaps(const hs_fs *fs, bool *doubling)
{
	uint32_t kept = fs->syns < HS_MAX_SYNS ? fs->syns : HS_MAX_SYNS, m = 1;
	*doubling = false;
	if (kept < 3)
		return 0;
	pd_time g1 = hs_syn_ts(fs, 1) - hs_syn_ts(fs, 0);
	for (uint32_t i = 2; i < kept; i++) {
		pd_time g = hs_syn_ts(fs, i) - hs_syn_ts(fs, i - 1);
		if (g * 4 < g1 * 3 || g * 4 > g1 * 5)
			break;
		m++;
	}
	pd_time g2 = hs_syn_ts(fs, 2) - hs_syn_ts(fs, 1);
	*doubling = m == 1 && g2 * 10 >= g1 * 16 && g2 * 10 <= g1 * 25;
	return m >= 2 || *doubling ? m : 0;
}

/* "1.00, 1.02, 2.04" (seconds) from the SYN times kept: numbers only, the
 * sentence around them says the unit in either language. */
static void hs_schedule(const hs_fs *fs, char *buf, size_t len)
{
	size_t n = 0;
	uint32_t kept = fs->syns < HS_MAX_SYNS ? fs->syns : HS_MAX_SYNS;
	buf[0] = 0;
	for (uint32_t i = 1; i < kept && n + 16 < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%.2f", i > 1 ? ", " : "",
				      hs_sec(hs_syn_ts(fs, i) - hs_syn_ts(fs, i - 1)));
	if (fs->syns > HS_MAX_SYNS && n + 8 < len)
		snprintf(buf + n, len - n, ", ...");
}

/* What the shape of the retry gaps says about the client's kernel. A
 * client whose SYN is Apple's or Windows' (dissect/peer_os.h) has that
 * system's schedule: macOS retries 1 s apart five times and then doubles,
 * the very gaps of Linux 6.5+ with tcp_syn_linear_timeouts=4, so only the
 * SYN tells the two apart. */
static void hs_schedule_shape(pd_finding *f, const pd_flow *flow, const hs_fs *fs)
{
	bool dbl;
	uint32_t m = hs_equal_gaps(fs, &dbl);
	uint8_t os = flow->half[PD_CLIENT].os;
	/* gaps far below the kernel's minimum RTO are no kernel's SYN timer */
	if (fs->syns >= 2 && hs_syn_ts(fs, 1) - hs_syn_ts(fs, 0) < HS_SYNACK_MIN_RTO)
		return;
	if (os == PD_OS_APPLE && m >= 2)
		pd_finding_append(f,
				  "; the client is macOS or iOS (its SYN's TTL and option order are Apple's): its "
				  "kernel retries a SYN five times 1 s apart, then doubles the wait (1, 1, 1, 1, 1, 2, "
				  "4, 8, 16, 32 s), a fixed schedule no setting changes; Linux 6.5 and later retries "
				  "on the same gaps (tcp_syn_linear_timeouts=4), but this SYN is not Linux's",
				  "；客户端是 macOS 或 iOS（其 SYN 的 TTL 和选项顺序是 Apple 的）：它的内核以 1 秒的"
				  "间隔重试 SYN 五次，之后等待时间翻倍（1、1、1、1、1、2、4、8、16、32 秒），这是固定的"
				  "节奏，没有设置可以改变；Linux 6.5 及以后（tcp_syn_linear_timeouts=4）的重试间隔"
				  "与此相同，但这个 SYN 不是 Linux 发出的");
	else if (os == PD_OS_APPLE)
		pd_finding_append(f,
				  "; the client is macOS or iOS (its SYN's TTL and option order are Apple's), whose "
				  "kernel retries a SYN on a fixed schedule: 1 s apart five times, then doubling",
				  "；客户端是 macOS 或 iOS（其 SYN 的 TTL 和选项顺序是 Apple 的），它的内核按固定节奏"
				  "重试 SYN：先以 1 秒间隔重试五次，之后间隔翻倍");
	else if (os == PD_OS_WINDOWS && dbl)
		pd_finding_append(f,
				  "; the client is Windows (its SYN's TTL and option order are Windows'): the wait "
				  "doubles from its initial RTO, %.0f ms here (netsh int tcp show global shows Initial "
				  "RTO and Max SYN Retransmissions)",
				  "；客户端是 Windows（其 SYN 的 TTL 和选项顺序是 Windows 的）：等待时间从它的初始 "
				  "RTO 起翻倍，这里是 %.0f 毫秒（netsh int tcp show global 显示 Initial RTO 和 Max "
				  "SYN Retransmissions）",
				  (double)(hs_syn_ts(fs, 1) - hs_syn_ts(fs, 0)) / 1e6);
	else if (os == PD_OS_WINDOWS)
		pd_finding_append(f,
				  "; the client is Windows (its SYN's TTL and option order are Windows'): netsh int "
				  "tcp show global shows its Initial RTO and Max SYN Retransmissions",
				  "；客户端是 Windows（其 SYN 的 TTL 和选项顺序是 Windows 的）：netsh int tcp show "
				  "global 显示它的 Initial RTO 和 Max SYN Retransmissions");
	else if (m >= 2)
		pd_finding_append(f,
				  "; the first retry gaps are equal: linear SYN timeouts "
				  "(net.ipv4.tcp_syn_linear_timeouts, Linux 6.5 or later)",
				  "；最初几次重试间隔相同：这是线性 SYN 超时"
				  "（net.ipv4.tcp_syn_linear_timeouts，Linux 6.5 及以后）");
	else if (dbl)
		pd_finding_append(f,
				  "; the retry gaps double from the first: classic backoff (Linux before 6.5, "
				  "tcp_syn_linear_timeouts=0, or another system)",
				  "；重试间隔从第一次起就翻倍：经典的指数退避（Linux 6.5 之前、"
				  "tcp_syn_linear_timeouts=0，或其他操作系统）");
}

static void hs_schedule_metrics(pd_finding *f, const hs_fs *fs)
{
	static const char *const keys[] = {"syn_gap_1_ms", "syn_gap_2_ms", "syn_gap_3_ms",
					   "syn_gap_4_ms", "syn_gap_5_ms", "syn_gap_6_ms"};
	uint32_t kept = fs->syns < HS_MAX_SYNS ? fs->syns : HS_MAX_SYNS;
	for (uint32_t i = 1; i < kept && i - 1 < sizeof(keys) / sizeof(keys[0]); i++)
		pd_finding_metric(f, keys[i - 1], (double)(hs_syn_ts(fs, i) - hs_syn_ts(fs, i - 1)) / 1e6, PD_UNIT_MS,
				  PD_AGG_MAX);
}

/* The SYNs kept, as evidence (the first one too when asked). */
static void hs_syn_occurrences(pd_finding *f, const hs_fs *fs, bool first)
{
	uint32_t kept = fs->syns < HS_MAX_SYNS ? fs->syns : HS_MAX_SYNS;
	if (first)
		pd_finding_occurrence(f, hs_syn_frame(fs, 0), hs_syn_ts(fs, 0), "first SYN", "首个 SYN");
	for (uint32_t i = 1; i < kept; i++)
		pd_finding_occurrence(f, hs_syn_frame(fs, i), hs_syn_ts(fs, i), "SYN retransmission #%u",
				      "第 %u 次 SYN 重传", i);
	if (fs->syns > kept)
		pd_finding_occurrence(f, fs->last_syn_frame, fs->last_syn_ts, "last SYN", "最后一个 SYN");
}

/* ---------------------------------------------------- listener overload */

/* The flow's SYN retransmissions, counted toward its server: which
 * clients retried in which second (listener overload), and which flows. */
static void hs_syn_retx(hs_g *g, const pd_flow *flow, const hs_fs *fs)
{
	hs_srv *s = hs_srv_get(g, &flow->addr[PD_SERVER], flow->port[PD_SERVER]);
	uint32_t ip = (uint32_t)pd_addr_hash64(&flow->addr[PD_CLIENT]);
	uint32_t retx = fs->syns - 1;
	s->syn_retx += retx;
	s->retry_flows++;
	bool known = false;
	for (uint32_t i = 0; i < s->n_clients; i++)
		known |= s->clients[i] == ip;
	if (!known) {
		if (s->n_clients < 8)
			s->clients[s->n_clients++] = ip;
		else
			s->more_clients = true;
	}
	if (!s->retries)
		s->retries = g_array_new(FALSE, TRUE, sizeof(hs_retry));
	if (s->retries->len < HS_RETRY_FLOWS) {
		hs_retry r;
		memset(&r, 0, sizeof(r));
		pd_flow_key_of(&r.flow, flow);
		r.frame = hs_syn_frame(fs, 1);
		r.ts = hs_syn_ts(fs, 1);
		g_array_append_val(s->retries, r);
	}
	if (!s->buckets)
		s->buckets = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	uint32_t kept = fs->syns < HS_MAX_SYNS ? fs->syns : HS_MAX_SYNS;
	for (uint32_t i = 1; i < kept; i++) {
		int64_t sec = hs_syn_ts(fs, i) / PD_NS_PER_SEC;
		hs_bucket *b = g_hash_table_lookup(s->buckets, &sec);
		if (!b) {
			if (g->n_buckets >= HS_MAX_BUCKETS)
				continue;
			g->n_buckets++;
			b = g_new0(hs_bucket, 1);
			g_hash_table_insert(s->buckets, g_memdup2(&sec, sizeof(sec)), b);
		}
		if (i == 1)
			b->flows++;
		bool have = false;
		for (uint8_t j = 0; j < b->n; j++)
			have |= b->ip[j] == ip;
		if (have)
			continue;
		if (b->n < HS_BUCKET_IPS)
			b->ip[b->n++] = ip;
		else
			b->more = true;
	}
}

static gint hs_cmp_i64(gconstpointer a, gconstpointer b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* Most distinct clients retrying toward s within two adjacent seconds,
 * the flows that started retrying then, and the first such second. */
static void hs_peak(hs_srv *s)
{
	s->peak_clients = 0;
	s->peak_flows = 0;
	if (!s->buckets)
		return;
	GArray *secs = g_array_new(FALSE, FALSE, sizeof(int64_t));
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, s->buckets);
	while (g_hash_table_iter_next(&it, &k, &v))
		g_array_append_val(secs, *(int64_t *)k);
	g_array_sort(secs, hs_cmp_i64);
	for (guint i = 0; i < secs->len; i++) {
		int64_t sec = g_array_index(secs, int64_t, i), next = sec + 1;
		const hs_bucket *a = g_hash_table_lookup(s->buckets, &sec), *b = g_hash_table_lookup(s->buckets, &next);
		uint32_t seen[2 * HS_BUCKET_IPS], n = 0, flows = 0;
		for (int part = 0; part < 2; part++) {
			const hs_bucket *x = part ? b : a;
			if (x)
				flows += x->flows;
			for (uint8_t j = 0; x && j < x->n; j++) {
				bool dup = false;
				for (uint32_t m = 0; m < n; m++)
					dup |= seen[m] == x->ip[j];
				if (!dup)
					seen[n++] = x->ip[j];
			}
		}
		if (n > s->peak_clients || (n == s->peak_clients && flows > s->peak_flows)) {
			s->peak_clients = n;
			s->peak_flows = flows;
			s->peak_ts = sec * PD_NS_PER_SEC;
		}
	}
	g_array_free(secs, TRUE);
}

/* The listener's new connections per second (first SYNs), over at least
 * the overload window. */
static double hs_syn_rate(const hs_srv *s)
{
	pd_time span = s->last_attempt - s->first_attempt;
	if (span < HS_OVERLOAD_WINDOW)
		span = HS_OVERLOAD_WINDOW;
	return s->attempts ? (double)s->attempts / hs_sec(span) : 0;
}

/* Connection attempts the listener took in one overload window (at its
 * average rate, never more than it took in all). */
static double hs_window_attempts(const hs_srv *s)
{
	double w = hs_syn_rate(s) * hs_sec(HS_OVERLOAD_WINDOW);
	return w > (double)s->attempts ? (double)s->attempts : w;
}

/* Many clients retrying at once, and a large share of the listener's
 * connection attempts in that window. */
static bool hs_overloaded(const hs_srv *s)
{
	if (s->peak_clients < HS_OVERLOAD_CLIENTS)
		return false;
	double w = hs_window_attempts(s);
	return w <= 0 || (double)s->peak_flows >= HS_OVERLOAD_SHARE * w;
}

/* ------------------------------------------------------------ cookies */

/* The first SYN-ACK's options, counted toward its server: a SYN-ACK
 * without the options the same server grants elsewhere is a SYN cookie. */
static void hs_synack_options(pd_ctx *ctx, hs_g *g, const pd_flow *flow, const hs_fs *fs)
{
	if (!fs->synack_opt)
		return;
	hs_srv *s = hs_srv_get(g, &flow->addr[PD_SERVER], flow->port[PD_SERVER]);
	if (fs->synack_opt == 1) {
		s->synack_full++;
		if (s->stripped_pending) {
			/* The server grants options elsewhere: the earlier bare one was a cookie. */
			if (!g->cookies)
				g->cookies = pd_finding_get(ctx, "syncookies", NULL);
			pd_finding_occurrence(g->cookies, s->stripped_frame, s->stripped_ts, "SYN-ACK without WS/SACK",
					      "不带窗口扩大/SACK 的 SYN-ACK");
			s->stripped_pending = false;
		}
		return;
	}
	s->synack_stripped++;
	if (s->synack_full) {
		if (!g->cookies)
			g->cookies = pd_finding_get(ctx, "syncookies", NULL);
		pd_finding_add_flow(ctx, g->cookies, flow);
		pd_finding_occurrence(g->cookies, flow->synack_frame, fs->first_synack_ts, "SYN-ACK without WS/SACK",
				      "不带窗口扩大/SACK 的 SYN-ACK");
	} else if (!s->stripped_pending && s->synack_stripped == 1) {
		s->stripped_pending = true;
		s->stripped_frame = flow->synack_frame;
		s->stripped_ts = fs->first_synack_ts;
	}
}

/* What the first SYN-ACK says about the options (decided on the packet). */
static uint8_t hs_synack_opt(const pd_flow *flow, const pd_packet *pkt)
{
	const pd_tcp *t = &pkt->tcp;
	const pd_tcp_half *c = &flow->half[PD_CLIENT];
	if (t->options_truncated || !c->syn_seen)
		return 0;
	bool offered = c->wscale_offered >= 0 || c->sack_permitted;
	if (!offered)
		return 0;
	bool granted = (c->wscale_offered >= 0 && t->wscale >= 0) || (c->sack_permitted && t->sack_permitted);
	/* With the client's TS option a Linux cookie SYN-ACK keeps WS and SACK
	 * (encoded in its TSval); only without it are they dropped. Such
	 * SYN-ACKs still show what the server normally grants. */
	if (c->ts_offered && !granted)
		return 0;
	return granted ? 1 : 2;
}

/* ------------------------------------------------------------- hooks */

static void hs_client_syn(hs_fs *fs, const pd_flow *flow, const pd_packet *pkt)
{
	const pd_tcp *t = &pkt->tcp;
	if (!flow->half[PD_CLIENT].syn_seen || t->seq != flow->half[PD_CLIENT].isn)
		return;
	/* A copy of the same datagram (same IPv4 ID, or microseconds apart:
	 * mirrored twice, several VLANs, nflog hooks) is not a retry. */
	uint32_t id = pkt->ip.version == 4 ? pkt->ip.ident : 0;
	if (fs->syns && ((id && (id == fs->first_syn_ipid || id == fs->last_syn_ipid)) ||
			 pkt->ts - fs->last_syn_ts < HS_DUP_NS)) {
		fs->dup_frames++;
		return;
	}
	if (!fs->syns) {
		fs->first_syn_ipid = id;
		fs->first_syn_ttl = pkt->ip.ttl;
	}
	fs->last_syn_ipid = id;
	if (fs->syns < HS_MAX_SYNS) {
		if (!fs->syns) {
			fs->syn0_ts = pkt->ts;
			fs->syn0_frame = pkt->frame_no;
		}
		pd_time us = (pkt->ts - fs->syn0_ts) / 1000;
		uint64_t fr = pkt->frame_no - fs->syn0_frame;
		fs->syn_us[fs->syns] = us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
		fs->syn_fr[fs->syns] = fr > UINT32_MAX ? UINT32_MAX : (uint32_t)fr;
		if (!fs->syns)
			fs->syn_has_ts = t->has_ts;
		fs->syn_has_ts = fs->syn_has_ts && t->has_ts;
		fs->syn_tsv[fs->syns] = t->has_ts ? t->tsval : 0;
	}
	fs->syns++;
	fs->last_syn_ts = pkt->ts;
	fs->last_syn_frame = pkt->frame_no;
	if (fs->syns > 1 && flow->synack_frame)
		fs->syn_after_synack++;
}

static void hs_server_synack(hs_fs *fs, const pd_flow *flow, const pd_packet *pkt, const pd_seg *seg)
{
	const pd_tcp *t = &pkt->tcp;
	uint32_t id = pkt->ip.version == 4 ? pkt->ip.ident : 0;
	if (fs->synacks && ((id && id == fs->last_synack_ipid) || pkt->ts - fs->last_synack_ts < HS_DUP_NS)) {
		fs->dup_frames++;
		return;
	}
	/* Sent before a SYN-ACK already seen (its TSval is not newer: one clock
	 * stamps them all), or after the server acknowledged data (the
	 * connection existed then, and a socket past the handshake sends no
	 * SYN-ACK): a SYN-ACK the path delayed, e.g. the first one, slow enough
	 * to cross the client's SYN retry and the answer to it. Not a re-send,
	 * whatever came between. */
	bool older = t->has_ts && !t->options_truncated && fs->synack_tsv_seen && t->seq == fs->synack_max_seq &&
		     !pd_seq_lt(fs->synack_max_tsval, t->tsval);
	uint32_t late = fs->rare ? fs->rare->late_synacks : 0;
	if (fs->synacks > late && (older || fs->usable_ts)) {
		fs->synacks++;
		/* One of the ISN the client acknowledged (its ACKs stand within
		 * 16 MiB past it) is this connection's; another ISN is another
		 * server state (a second server answering, a restarted one). */
		const pd_tcp_half *c = &flow->half[PD_CLIENT];
		bool ours = older || (c->ack_valid && c->last_ack - (t->seq + 1) < (1u << 24));
		if (ours) {
			hs_rare *r = hs_rare_of(fs);
			if (!r->late_synacks++) {
				r->late_fr = hs_fr(flow, pkt->frame_no);
				r->late_us = hs_us(flow, pkt->ts);
				r->late_ref_fr = older ? fs->synack_max_fr : 0;
			}
		}
		return;
	}
	/* the newest SYN-ACK of one server state (its ISN): another ISN is
	 * another clock (a second server answering, a restarted one) */
	if (t->has_ts && !t->options_truncated &&
	    (!fs->synack_tsv_seen || t->seq != fs->synack_max_seq || pd_seq_lt(fs->synack_max_tsval, t->tsval))) {
		fs->synack_tsv_seen = true;
		fs->synack_max_tsval = t->tsval;
		fs->synack_max_seq = t->seq;
		fs->synack_max_fr = hs_fr(flow, pkt->frame_no);
	}
	/* A SYN-ACK repeated well under the minimum RTO answers a duplicate or
	 * retransmitted SYN; the accept-queue signature is the timer's. */
	bool timer = !fs->synacks || pkt->ts - fs->last_synack_ts >= HS_SYNACK_MIN_RTO;
	fs->last_synack_ts = pkt->ts;
	fs->last_synack_ipid = id;
	fs->synacks++;
	if (fs->synacks == 1) {
		fs->first_synack_ts = pkt->ts;
		fs->synack_opt = hs_synack_opt(flow, pkt);
		fs->stripped_synack = fs->synack_opt == 2;
	}
	/* The SYN-ACK's TSecr names the SYN the server last took its
	 * timestamp from: proof that this SYN reached the server. */
	if (fs->synacks == 1 && fs->syn_has_ts && t->has_ts && !t->options_truncated) {
		uint32_t kept = fs->syns < HS_MAX_SYNS ? fs->syns : HS_MAX_SYNS;
		for (uint32_t i = kept; i-- > 0;)
			if (fs->syn_tsv[i] == t->tsecr) {
				fs->synack_echo = (uint8_t)(i + 1);
				break;
			}
	}
	if (seg->flags & PD_SEG_SYN_RETRANS) {
		if (!fs->synack_retx_fr) {
			fs->synack_retx_fr = hs_fr(flow, pkt->frame_no);
			fs->synack_retx_us = hs_us(flow, pkt->ts);
		}
		if (flow->hs_ack_frame && flow->hs_ack_frame < pkt->frame_no) {
			if (timer) {
				fs->synack_retx_after_ack++;
				hs_rare *r = hs_rare_of(fs);
				if (r->n_after < HS_AFTER_KEPT) {
					r->after_us[r->n_after] = hs_us(flow, pkt->ts);
					r->after_fr[r->n_after] = hs_fr(flow, pkt->frame_no);
					r->n_after++;
				}
			}
		} else if (timer) {
			fs->synack_retx_before_ack++;
		}
	}
	if (!flow->hs_ack_frame)
		fs->synack_last_before_ack_ts = pkt->ts;
}

/* A server segment that acknowledged new client data or carried data: a
 * moment the server answered this connection (a few, spread out). */
static void hs_note_answer(hs_fs *fs, const pd_flow *flow, const pd_packet *pkt)
{
	if (fs->n_moments >= HS_FLOW_MOMENTS)
		return;
	pd_time off = pkt->ts - flow->first_ts;
	uint64_t fr = pkt->frame_no - flow->first_frame;
	if (off < 0 || off / 1000 > UINT32_MAX || fr > UINT32_MAX)
		return;
	if (fs->n_moments &&
	    off - (pd_time)fs->moment_us[fs->n_moments - 1] * 1000 < HS_MOMENT_GAP)
		return;
	fs->moment_us[fs->n_moments] = (uint32_t)(off / 1000);
	fs->moment_fr[fs->n_moments] = (uint32_t)fr;
	fs->n_moments++;
}

/* The server's first answer, against the copies of the client's first
 * data segment sent before it. A listener whose accept queue is full
 * drops the handshake ACK and every data segment that would complete the
 * handshake; the connection it finally creates takes a later copy. So an
 * answer acknowledging the first copy (none resent yet, or echoing only
 * its TSval), or reporting a duplicate with a D-SACK (an established
 * socket had an earlier copy already), rules the accept queue out. */
static void hs_first_answer(hs_fs *fs, const pd_flow *flow, const pd_packet *pkt)
{
	const pd_tcp *t = &pkt->tcp;
	const pd_tcp_half *c = &flow->half[PD_CLIENT];
	if (!fs->c0_copies || !(t->flags & PD_TCP_ACK) || !pd_seq_lt(c->isn + 1, t->ack))
		return;
	if (t->sack_count && pd_seq_le(t->sack_right[0], t->ack) && pd_seq_le(c->isn + 1, t->sack_left[0]) &&
	    pd_seq_lt(t->sack_left[0], t->sack_right[0])) {
		fs->first_answer_dsack = true;
		return;
	}
	bool first = fs->c0_copies == 1 || (fs->c0_has_ts && t->has_ts && !t->options_truncated &&
					    t->tsecr == fs->c0_tsval && fs->c0_last_tsval != fs->c0_tsval);
	if (!first)
		return;
	fs->first_copy_taken = true;
}

static void hs_on_tcp(pd_ctx *ctx, const pd_flow *flow, void *fsv, const pd_packet *pkt, const pd_seg *seg)
{
	(void)ctx;
	hs_fs *fs = fsv;
	const pd_tcp *t = &pkt->tcp;
	const uint8_t fl = t->flags;
	const bool syn = fl & PD_TCP_SYN, ack = fl & PD_TCP_ACK, rst = fl & PD_TCP_RST;

	if (seg->dir == PD_CLIENT) {
		if (syn && !ack) {
			hs_client_syn(fs, flow, pkt);
			return;
		}
		fs->client_other = true;
		if (t->has_ts && !t->options_truncated && (!fs->c_tsval_seen || t->tsval != fs->c_tsval)) {
			fs->c_tsval = t->tsval;
			fs->c_tsval_us = hs_us(flow, pkt->ts);
			fs->c_tsval_seen = true;
		}
		if (rst)
			fs->client_rst = true;
		if (fl & PD_TCP_FIN)
			fs->client_fin = true;
		const pd_tcp_half *c = &flow->half[PD_CLIENT];
		if (pkt->frame_no == flow->hs_ack_frame)
			fs->hs_ack_plain = c->syn_seen && t->seq == c->isn + 1 && !(fl & (PD_TCP_FIN | PD_TCP_RST));
		if (!t->payload_len || fs->usable_ts || (seg->flags & (PD_SEG_CAPTURE_COPY | PD_SEG_CAPTURE_DUP)))
			return;
		if (seg->flags & PD_SEG_RETRANS) {
			fs->client_data_retx++;
			if (!fs->retx0_us) {
				uint32_t us = hs_us(flow, pkt->ts);
				fs->retx0_us = us ? us : 1;
			}
		}
		/* the copies of the first data segment before the server answers */
		if (c->syn_seen && t->seq == c->isn + 1) {
			if (!fs->c0_copies) {
				fs->c0_us = hs_us(flow, pkt->ts);
				fs->c0_has_ts = t->has_ts && !t->options_truncated;
				fs->c0_tsval = t->tsval;
			}
			if (fs->c0_copies < UINT16_MAX)
				fs->c0_copies++;
			fs->c0_last_tsval = t->has_ts ? t->tsval : 0;
		}
		return;
	}

	/* server side: round-trip samples, the engine's (data to its ACK) and
	 * by timestamp echo (not a SYN-ACK's: it echoes the SYN that made the
	 * request socket, whichever SYN it answers) */
	pd_time rtt = seg->rtt;
	if (!syn && t->has_ts && !t->options_truncated && fs->c_tsval_seen && t->tsecr == fs->c_tsval) {
		pd_time d = pkt->ts - hs_at(flow, fs->c_tsval_us);
		if (d > 0 && (rtt <= 0 || d < rtt))
			rtt = d;
	}
	if (rtt > 0) {
		pd_time us = rtt / 1000;
		uint32_t u = us < 1 ? 1 : us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
		if (!fs->srv_rtt_us || u < fs->srv_rtt_us)
			fs->srv_rtt_us = u;
	}
	if (syn && ack) {
		hs_server_synack(fs, flow, pkt, seg);
		return;
	}
	if (rst) {
		if (!flow->synack_frame && !fs->rst_answer_frame)
			fs->rst_answer_frame = pkt->frame_no;
		/* tcp_abort_on_overflow: a bare RST (no ACK flag) whose seq is what the
		 * client's handshake ACK acknowledged, before the server said anything. */
		/* Not one answering a client FIN, or a handshake ACK the listener
		 * could not take for its sequence number (any stack resets those). */
		if (!ack && flow->hs_ack_frame && !fs->usable_ts && !fs->abort_rst_fr && fs->hs_ack_plain &&
		    !fs->client_fin && flow->half[PD_SERVER].syn_seen && t->seq == flow->half[PD_SERVER].isn + 1) {
			fs->abort_rst_fr = hs_fr(flow, pkt->frame_no);
			fs->abort_rst_us = hs_us(flow, pkt->ts);
		}
		return;
	}
	/* a bare ACK for another connection answering the SYN (TIME_WAIT or an
	 * open connection on the server): the timestamps detector explains it */
	if (ack && !flow->synack_frame && fs->syns && !t->payload_len &&
	    t->ack != flow->half[PD_CLIENT].isn + 1)
		fs->challenge = true;
	const pd_tcp_half *c = &flow->half[PD_CLIENT];
	bool answers = c->syn_seen && (t->payload_len || (ack && pd_seq_lt(c->isn + 1, t->ack)));
	if (answers && ((seg->flags & PD_SEG_NEW_DATA) || seg->acked))
		hs_note_answer(fs, flow, pkt);
	if (!fs->usable_ts && answers) {
		fs->usable_ts = pkt->ts;
		fs->usable_frame = pkt->frame_no;
		hs_first_answer(fs, flow, pkt);
	} else if (!fs->usable_ts && flow->hs_ack_frame && flow->hs_ack_frame < pkt->frame_no) {
		fs->server_spoke_after_ack = true;
	}
}

/* What an ICMP destination-unreachable code says about a rejected SYN. */
static uint8_t hs_reject_kind(bool v6, uint8_t type, uint8_t code)
{
	if (v6) {
		if (type != 1)
			return HS_REJECT_NONE;
		switch (code) {
		case 1: /* administratively prohibited */
		case 5: /* source address failed ingress/egress policy */
		case 6: /* reject route to destination */
			return HS_REJECT_PROHIBITED;
		case 4:
			return HS_REJECT_PORT;
		case 0: /* no route */
		case 2: /* beyond the scope of the source address */
		case 3: /* address unreachable */
			return HS_REJECT_UNREACH;
		default:
			return HS_REJECT_NONE;
		}
	}
	if (type != 3)
		return HS_REJECT_NONE;
	switch (code) {
	case 9: /* network administratively prohibited */
	case 10: /* host administratively prohibited */
	case 13: /* communication administratively prohibited */
	case 14: /* host precedence violation */
	case 15: /* precedence cutoff */
		return HS_REJECT_PROHIBITED;
	case 2: /* protocol unreachable */
	case 3: /* port unreachable */
		return HS_REJECT_PORT;
	case 0:
	case 1:
	case 6:
	case 7:
	case 11:
	case 12:
		return HS_REJECT_UNREACH;
	default: /* 4 fragmentation needed, 5 source route failed, 8 obsolete */
		return HS_REJECT_NONE;
	}
}

/* An ICMP error quoting the client's SYN before any SYN-ACK: a firewall or
 * router answering for the server. */
static void hs_on_icmp_error(pd_ctx *ctx, const pd_flow *flow, void *fsv, const pd_packet *pkt, int dir)
{
	(void)ctx;
	hs_fs *fs = fsv;
	const pd_icmp *ic = &pkt->icmp;
	if (dir != PD_CLIENT || flow->proto != 6 || flow->synack_frame || !fs->syns || !ic->has_inner)
		return;
	if (ic->inner_has_seq && ic->inner_seq != flow->half[PD_CLIENT].isn)
		return; /* not the SYN */
	bool v6 = pkt->l4 == PD_L4_ICMP6;
	uint8_t kind = hs_reject_kind(v6, ic->type, ic->code);
	if (!kind)
		return;
	hs_rare *r = hs_rare_of(fs);
	if (!r->icmp_rejects++) {
		r->icmp_type = ic->type;
		r->icmp_code = ic->code;
		r->icmp_kind = kind;
		r->icmp_v6 = v6;
		r->icmp_src = pkt->ip.src;
		r->icmp_inner_ttl = ic->inner_ip.ttl;
		r->icmp_fr = hs_fr(flow, pkt->frame_no);
		r->icmp_us = hs_us(flow, pkt->ts);
		r->icmp_delay = pkt->ts - fs->last_syn_ts;
	} else if (!pd_addr_equal(&r->icmp_src, &pkt->ip.src)) {
		r->icmp_src_varies = true;
	}
	r->icmp_last_fr = hs_fr(flow, pkt->frame_no);
	r->icmp_last_us = hs_us(flow, pkt->ts);
}

/* ------------------------------------------------------- accept queue */

/* The round trip from the capture point to the server and back, as this
 * flow shows it: client data to the server's ACK of it (the engine's
 * samples), and the latest SYN before the first SYN-ACK to it unless
 * that SYN-ACK's TSecr names an earlier SYN (it answered that one, late);
 * the smaller. Too small only discounts fewer SYN-ACKs. Near the server
 * about 0; -1 unknown. */
static pd_time hs_rtt_to_server(const hs_fs *fs)
{
	pd_time best = fs->srv_rtt_us ? (pd_time)fs->srv_rtt_us * 1000 : -1;
	uint32_t kept = fs->syns < HS_MAX_SYNS ? fs->syns : HS_MAX_SYNS;
	for (uint32_t i = kept; fs->synacks && i-- > 0;)
		if (hs_syn_ts(fs, i) <= fs->first_synack_ts) {
			pd_time d = fs->first_synack_ts - hs_syn_ts(fs, i);
			if ((!fs->synack_echo || fs->synack_echo == i + 1) && (best < 0 || d < best))
				best = d;
			break;
		}
	return best;
}

/* The SYN-ACKs re-sent after the client's handshake ACK that show the
 * listener had the ACK and still kept the half-open connection: not one
 * that left the server before the ACK could have arrived (less than a
 * round trip to the server after it), and not one answering a client SYN
 * retransmission (a request socket answers a repeated SYN at once, one
 * round trip after it). */
typedef struct hs_resends {
	uint32_t n; /* those left: the SYN-ACK timer's after the ACK */
	uint32_t crossed, answered; /* the others */
	uint64_t first_frame;
	pd_time first_ts;
} hs_resends;

static void hs_count_resends(const pd_flow *flow, const hs_fs *fs, hs_resends *o)
{
	memset(o, 0, sizeof(*o));
	const hs_rare *r = fs->rare;
	if (!r || !r->n_after || !flow->hs_ack_frame)
		return;
	pd_time rtt = hs_rtt_to_server(fs);
	if (rtt < 0)
		rtt = 0;
	uint32_t kept = fs->syns < HS_MAX_SYNS ? fs->syns : HS_MAX_SYNS;
	for (uint8_t i = 0; i < r->n_after; i++) {
		pd_time t = hs_at(flow, r->after_us[i]);
		if ((t - flow->hs_ack_ts) * 5 < rtt * 4) {
			o->crossed++;
			continue;
		}
		bool answer = false;
		for (uint32_t j = 1; j < kept && !answer; j++) {
			pd_time sj = hs_syn_ts(fs, j);
			answer = sj <= t && t - sj <= rtt * 3 / 2 + HS_ANSWER_SLACK;
		}
		if (answer) {
			o->answered++;
			continue;
		}
		if (!o->n++) {
			o->first_frame = hs_frame(flow, r->after_fr[i]);
			o->first_ts = t;
		}
	}
	/* past the first few: the timer's */
	if (o->n && fs->synack_retx_after_ack > r->n_after)
		o->n += fs->synack_retx_after_ack - r->n_after;
}

/* The flow as a sibling of stalled connections: its handshake ACK and
 * its first data segment, acknowledged on its first copy soon after. */
static bool hs_room_of(const pd_flow *flow, const hs_fs *fs, hs_room *m)
{
	if (!flow->hs_ack_frame || !fs->first_copy_taken || fs->abort_rst_fr)
		return false;
	pd_time c0 = hs_at(flow, fs->c0_us);
	if (c0 < flow->hs_ack_ts || c0 - flow->hs_ack_ts > HS_ROOM_WINDOW)
		return false;
	memset(m, 0, sizeof(*m));
	m->ack_ts = flow->hs_ack_ts;
	m->c0_ts = c0;
	m->frame = flow->hs_ack_frame;
	m->client = (uint32_t)pd_addr_hash64(&flow->addr[PD_CLIENT]);
	m->cport = flow->port[PD_CLIENT];
	return true;
}

/* Another connection to the listener sent its handshake ACK after this
 * stalled one's and the listener took it (its first data copy answered)
 * before this one could try again, within HS_ROOM_WINDOW: the accept
 * queue had room right after this one's ACK, so a full queue did not
 * drop it (an accept() exactly in between aside). */
static void hs_room_check(hs_kept *k, const hs_room *m)
{
	if (!k->f || k->room_frame || (k->kind != 2 && k->kind != 3))
		return;
	if (m->ack_ts < k->stall_from || (m->ack_ts == k->stall_from && m->frame <= k->ack_frame))
		return;
	if (m->c0_ts > k->room_to || (m->client == k->client && m->cport == k->cport))
		return;
	k->room_frame = m->frame;
}

/* A stalled connection weighed against the listener's other connections:
 * the ones that ended already, and (pending) those that end later. */
static void hs_pend(hs_g *g, hs_srv *s, hs_kept *k, const pd_flow *flow, const hs_fs *fs, pd_time win_to)
{
	k->ack_frame = flow->hs_ack_frame;
	k->stall_from = flow->hs_ack_ts;
	k->client = (uint32_t)pd_addr_hash64(&flow->addr[PD_CLIENT]);
	k->cport = flow->port[PD_CLIENT];
	k->room_to = flow->hs_ack_ts + HS_ROOM_WINDOW;
	if (fs->retx0_us && hs_at(flow, fs->retx0_us) < k->room_to)
		k->room_to = hs_at(flow, fs->retx0_us);
	if (win_to < k->room_to)
		k->room_to = win_to;
	for (uint8_t i = 0; s->rooms && i < s->n_rooms; i++)
		hs_room_check(k, &s->rooms[i]);
	/* a free slot, or one whose connection is decided already */
	int slot = s->n_pending < HS_SRV_PENDING ? s->n_pending++ : -1;
	for (int i = 0; slot < 0 && i < HS_SRV_PENDING; i++) {
		const hs_kept *o = &g->kept[s->pending[i]];
		if (!o->f || o->room_frame)
			slot = i;
	}
	if (slot >= 0)
		s->pending[slot] = (uint16_t)(k - g->kept);
}

/* The flow's handshake taken at once, remembered for its server and
 * weighed against the stalls of the server's other connections. */
static void hs_note_room(hs_g *g, const pd_flow *flow, const hs_fs *fs)
{
	hs_room m;
	if (!hs_room_of(flow, fs, &m))
		return;
	hs_srv *s = hs_srv_get(g, &flow->addr[PD_SERVER], flow->port[PD_SERVER]);
	for (uint8_t j = 0; j < s->n_pending; j++)
		hs_room_check(&g->kept[s->pending[j]], &m);
	if (!s->rooms)
		s->rooms = g_new0(hs_room, HS_SRV_ROOMS);
	s->rooms[s->next_room] = m;
	s->next_room = (uint8_t)((s->next_room + 1) % HS_SRV_ROOMS);
	if (s->n_rooms < HS_SRV_ROOMS)
		s->n_rooms++;
}

/* The listener's own doing after the handshake ACK: the abort RST, or its
 * SYN-ACK timer re-sending while the client's ACK and data go unanswered. */
static void hs_accept_queue(pd_ctx *ctx, hs_g *g, const pd_flow *flow, hs_fs *fs, const hs_resends *rs)
{
	pd_finding *f = hs_flow_finding(ctx, g, "accept-queue-overflow", 3, flow);
	if (!f)
		return;
	hs_srv *s = hs_srv_get(g, &flow->addr[PD_SERVER], flow->port[PD_SERVER]);
	s->aq_flows++;
	hs_kept *k = hs_keep(g, f, flow, 3);
	if (fs->abort_rst_fr) {
		uint64_t rst_frame = hs_frame(flow, fs->abort_rst_fr);
		pd_time rst_ts = hs_at(flow, fs->abort_rst_us);
		if (k)
			hs_pend(g, s, k, flow, fs, rst_ts);
		pd_finding_span(f, flow->hs_ack_frame, rst_frame);
		pd_finding_occurrence(f, flow->hs_ack_frame, flow->hs_ack_ts, "handshake ACK", "握手 ACK");
		pd_finding_occurrence(f, rst_frame, rst_ts, "RST right after the ACK", "紧随 ACK 之后的 RST");
		double after = hs_sec(rst_ts - flow->hs_ack_ts);
		pd_finding_metric(f, "rst_after_ack_ms", after * 1e3, PD_UNIT_MS, PD_AGG_MAX);
		pd_finding_metric(f, "synack_retransmits_after_ack", rs->n, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_add_impact(f, hs_sec(rst_ts - flow->syn_ts));
		pd_finding_set_confidence(f, 0.8);
		pd_finding_detail(f,
				  "the server reset the connection %.1f ms after the client's handshake ACK "
				  "(frame %llu -> RST frame %llu, RST without ACK flag carrying the SYN-ACK's "
				  "sequence + 1) before sending any data: Linux does this when the accept queue "
				  "is full and net.ipv4.tcp_abort_on_overflow=1",
				  "服务端在客户端握手 ACK 之后 %.1f 毫秒、发送任何数据之前就重置了连接"
				  "（帧 %llu -> RST 帧 %llu，该 RST 不带 ACK 标志，序号为 SYN-ACK 的序号 + 1）："
				  "Linux 在全连接队列已满且 net.ipv4.tcp_abort_on_overflow=1 时正是这样做的",
				  after * 1e3, (unsigned long long)flow->hs_ack_frame,
				  (unsigned long long)rst_frame);
		pd_finding_settings(f, "net.core.somaxconn", "listen() backlog", "accept loop",
				    "net.ipv4.tcp_abort_on_overflow", NULL);
		return;
	}
	uint64_t end_frame = fs->usable_ts ? fs->usable_frame : flow->last_frame;
	pd_time end = fs->usable_ts ? fs->usable_ts : flow->last_ts;
	if (k)
		hs_pend(g, s, k, flow, fs, rs->first_ts);
	pd_finding_span(f, flow->hs_ack_frame, end_frame);
	pd_finding_occurrence(f, flow->hs_ack_frame, flow->hs_ack_ts, "handshake ACK", "握手 ACK");
	pd_finding_occurrence(f, rs->first_frame, rs->first_ts, "SYN-ACK resent after the ACK", "ACK 之后重发的 SYN-ACK");
	pd_time stuck = end - flow->hs_ack_ts;
	if (stuck < 0)
		stuck = 0;
	pd_finding_add_impact(f, hs_sec(stuck));
	pd_finding_metric(f, "synack_retransmits_after_ack", rs->n, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "client_data_retransmits", fs->client_data_retx, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "stalled_s", hs_sec(stuck), PD_UNIT_S, PD_AGG_SUM);
	pd_finding_set_confidence(f, fs->client_data_retx ? 0.8 : 0.7);
	if (fs->usable_ts)
		pd_finding_detail(f,
				  "the client ACKed the SYN-ACK (frame %llu) but the server re-sent its SYN-ACK %u "
				  "time(s) afterwards (first at frame %llu) and answered only later; the client "
				  "re-sent its data %u time(s) unanswered; the connection became usable %.2f s "
				  "after the ACK",
				  "客户端已确认 SYN-ACK（帧 %llu），服务端之后却又重发了 %u 次 SYN-ACK"
				  "（首次在帧 %llu），直到后来才应答；客户端重发了 %u 次数据都没有得到应答；"
				  "连接在 ACK 之后 %.2f 秒才可用",
				  (unsigned long long)flow->hs_ack_frame, rs->n, (unsigned long long)rs->first_frame,
				  fs->client_data_retx, hs_sec(stuck));
	else
		pd_finding_detail(f,
				  "the client ACKed the SYN-ACK (frame %llu) but the server re-sent its SYN-ACK %u "
				  "time(s) afterwards (first at frame %llu) and never acknowledged any data; the "
				  "client re-sent its data %u time(s) unanswered; the connection was still stuck "
				  "when it ended, %.2f s after the ACK",
				  "客户端已确认 SYN-ACK（帧 %llu），服务端之后却又重发了 %u 次 SYN-ACK"
				  "（首次在帧 %llu），并且从未确认任何数据；客户端重发了 %u 次数据都没有得到应答；"
				  "直到流结束（ACK 之后 %.2f 秒）连接仍然卡住",
				  (unsigned long long)flow->hs_ack_frame, rs->n, (unsigned long long)rs->first_frame,
				  fs->client_data_retx, hs_sec(stuck));
	if (rs->crossed + rs->answered)
		pd_finding_append(f,
				  "; %u other SYN-ACK(s) after the ACK are not counted: they left the server "
				  "before the ACK could reach it, or answered a SYN retransmission of the client",
				  "；ACK 之后另有 %u 个 SYN-ACK 未计入：它们在 ACK 到达服务端之前就已发出，"
				  "或是对客户端重传 SYN 的应答",
				  rs->crossed + rs->answered);
	/* A client that sent nothing: a TCP_DEFER_ACCEPT listener drops the
	 * bare ACK too, but re-sends its SYN-ACK once, when the deferring
	 * ends, and takes the ACK answering it (only one re-send never
	 * gets here). */
	bool quiet = !fs->c0_copies;
	if (quiet) {
		pd_finding_append(f,
				  "; the client sent no data: a listener with TCP_DEFER_ACCEPT also ignores a bare "
				  "ACK, but it re-sends its SYN-ACK only once and then takes the ACK that answers "
				  "it, so %u re-sends point at the accept queue (unless the client's answers were "
				  "lost; on the server TcpExtTCPDeferAcceptDrop counts deferred ACKs, "
				  "TcpExtListenOverflows the accept queue's drops)",
				  "；客户端没有发送数据：开启 TCP_DEFER_ACCEPT 的监听端同样会忽略不带数据的 ACK，"
				  "但它只重发一次 SYN-ACK，随后就接受应答它的那个 ACK，所以 %u 次重发指向全连接队列"
				  "（除非客户端的应答丢了；服务端 TcpExtTCPDeferAcceptDrop 计的是被推迟的 ACK，"
				  "TcpExtListenOverflows 计的是全连接队列的丢弃）",
				  rs->n);
		pd_finding_settings(f, "net.core.somaxconn", "listen() backlog", "accept loop", "TCP_DEFER_ACCEPT",
				    "net.ipv4.tcp_abort_on_overflow", NULL);
	} else {
		pd_finding_settings(f, "net.core.somaxconn", "listen() backlog", "accept loop",
				    "net.ipv4.tcp_abort_on_overflow", NULL);
	}
}

/* The moment m of another connection falls inside the stall of k: the
 * server answered that one while this one got nothing. */
static void hs_stall_evidence(hs_kept *k, const hs_moment *m)
{
	if (k->kind != 2 || m->ts <= k->stall_from || m->ts >= k->stall_to)
		return;
	bool same = m->client == k->client;
	if (same && m->cport == k->cport)
		return; /* this very connection */
	if (k->other_frame && (k->other_same_client || !same))
		return; /* keep the first, unless a same-client one comes */
	k->other_frame = m->frame;
	k->other_ts = m->ts;
	k->other_cport = m->cport;
	k->other_same_client = same;
	k->other_caddr = m->caddr;
}

/* The handshake completed for the client, which then re-sent its data while
 * the server said nothing at all on this connection, not even a SYN-ACK
 * retransmission: the listener dropped the client's ACK and data (accept
 * queue full; when the SYN-ACK was a SYN cookie no request socket is left
 * to re-send it; else the client's retransmission got in before the
 * SYN-ACK timer fired), or the path lost them. Kept (decided in
 * hs_on_end) when the capture was taken at the server (the packets
 * reached its host), when the server answered another connection during
 * the stall, or when the same listener overflowed visibly on another
 * flow. */
static void hs_cookie_stall(pd_ctx *ctx, hs_g *g, const pd_flow *flow, hs_fs *fs)
{
	pd_time end = fs->usable_ts ? fs->usable_ts : flow->last_ts;
	pd_time silence = end - flow->synack_ts;
	pd_finding *f = hs_flow_finding(ctx, g, "accept-queue-overflow", 3, flow);
	if (!f)
		return;
	hs_kept *k = hs_keep(g, f, flow, 2);
	if (!k) {
		pd_finding_drop(ctx, f); /* no room to weigh it */
		return;
	}
	hs_srv *s = hs_srv_get(g, &flow->addr[PD_SERVER], flow->port[PD_SERVER]);
	k->long_silence = silence >= HS_COOKIE_SILENCE;
	k->at_server = pd_flow_vantage(flow) == PD_SERVER;
	k->answered = fs->usable_ts != 0;
	k->stall_to = end;
	hs_pend(g, s, k, flow, fs, end);
	for (uint8_t i = 0; s->moments && i < s->n_moments; i++)
		hs_stall_evidence(k, &s->moments[i]);

	pd_finding_span(f, flow->hs_ack_frame, fs->usable_ts ? fs->usable_frame : flow->last_frame);
	pd_finding_occurrence(f, flow->hs_ack_frame, flow->hs_ack_ts, "handshake ACK", "握手 ACK");
	if (fs->usable_ts)
		pd_finding_occurrence(f, fs->usable_frame, fs->usable_ts, "first answer from the server",
				      "服务端的首个应答");
	pd_time stuck = end - flow->hs_ack_ts;
	if (stuck < 0)
		stuck = 0;
	pd_finding_add_impact(f, hs_sec(stuck));
	pd_finding_metric(f, "synack_retransmits_after_ack", 0, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "client_data_retransmits", fs->client_data_retx, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "stalled_s", hs_sec(stuck), PD_UNIT_S, PD_AGG_SUM);
	pd_finding_set_confidence(f, 0.5);
	pd_finding_set_severity(f, PD_SEV_WARNING); /* inferred: no SYN-ACK retransmission to prove it */
	if (k->long_silence)
		pd_finding_detail(f,
				  "the client ACKed the SYN-ACK (frame %llu) and re-sent its data %u time(s) while "
				  "the server sent nothing on this connection for %.2f s, not even a SYN-ACK "
				  "retransmission (a server holding the half-open connection re-sends its SYN-ACK "
				  "after about 1 s): it kept no state for this handshake, so its SYN-ACK was "
				  "probably a SYN cookie (SYN queue full, which with a small listen backlog happens "
				  "early), and the client's ACK and data were dropped because the accept queue was "
				  "full - or they were lost on the path",
				  "客户端已确认 SYN-ACK（帧 %llu），并重发了 %u 次数据，而服务端在这个连接上 %.2f 秒"
				  "内没有发出任何报文，连 SYN-ACK 重传都没有（保留着半连接的服务端约 1 秒后就会重发 "
				  "SYN-ACK）：它没有为这次握手保留状态，所以它的 SYN-ACK 很可能是 SYN cookie"
				  "（半连接队列已满，listen backlog 较小时很早就会出现），客户端的 ACK 和数据则因"
				  "全连接队列已满而被丢弃——也可能是在路径上丢失的",
				  (unsigned long long)flow->hs_ack_frame, fs->client_data_retx, hs_sec(silence));
	else
		pd_finding_detail(f,
				  "the client ACKed the SYN-ACK (frame %llu) and re-sent its data %u time(s) while "
				  "the server sent nothing on this connection for %.2f s: the listener dropped the "
				  "client's ACK and data because its accept queue was full (its SYN-ACK timer "
				  "re-sends only after about 1 s, and never for a SYN cookie) - or they were lost "
				  "on the path",
				  "客户端已确认 SYN-ACK（帧 %llu），并重发了 %u 次数据，而服务端在这个连接上 %.2f 秒"
				  "内没有发出任何报文：监听端因全连接队列已满而丢弃了客户端的 ACK 和数据"
				  "（它的 SYN-ACK 定时器约 1 秒后才会重发，SYN cookie 则根本不会重发）——也可能是在"
				  "路径上丢失的",
				  (unsigned long long)flow->hs_ack_frame, fs->client_data_retx, hs_sec(silence));
	if (fs->usable_ts)
		pd_finding_append(f,
				  "; the connection came to life %.2f s after the ACK, when a retransmission got "
				  "through (the server's first answer, frame %llu)",
				  "；连接在 ACK 之后 %.2f 秒、某次重传终于被接受时才建立起来（服务端的首个应答，帧 %llu）",
				  hs_sec(stuck), (unsigned long long)fs->usable_frame);
	else
		pd_finding_append(f, "; the connection never got an answer", "；这个连接始终没有得到应答");
	/* not tcp_max_syn_backlog: with cookies on it decides nothing */
	pd_finding_settings(f, "net.core.somaxconn", "listen() backlog", "accept loop",
			    "net.ipv4.tcp_syncookies", NULL);
}

/* The moments the server answered this flow, remembered for its server and
 * weighed against the stalls of the server's other connections. */
static void hs_server_moments(hs_g *g, const pd_flow *flow, const hs_fs *fs)
{
	if (!fs->n_moments)
		return;
	hs_srv *s = hs_srv_get(g, &flow->addr[PD_SERVER], flow->port[PD_SERVER]);
	if (!s->moments)
		s->moments = g_new0(hs_moment, HS_SRV_MOMENTS);
	for (uint8_t i = 0; i < fs->n_moments; i++) {
		hs_moment m = {
			.ts = flow->first_ts + (pd_time)fs->moment_us[i] * 1000,
			.frame = flow->first_frame + fs->moment_fr[i],
			.client = (uint32_t)pd_addr_hash64(&flow->addr[PD_CLIENT]),
			.cport = flow->port[PD_CLIENT],
			.caddr = flow->addr[PD_CLIENT],
		};
		for (uint8_t j = 0; j < s->n_pending; j++)
			hs_stall_evidence(&g->kept[s->pending[j]], &m);
		s->moments[s->next_moment] = m;
		s->next_moment = (uint8_t)((s->next_moment + 1) % HS_SRV_MOMENTS);
		if (s->n_moments < HS_SRV_MOMENTS)
			s->n_moments++;
	}
}

/* ------------------------------------------------------ ICMP rejection */

/* The errno a Linux connect() gets for an ICMP unreachable code, and its
 * message (what the application prints, in English on most hosts). */
static void hs_reject_errno(bool v6, uint8_t code, const char **name, const char **msg)
{
	*name = "EHOSTUNREACH";
	*msg = "No route to host";
	if (v6) {
		if (code == 0) {
			*name = "ENETUNREACH";
			*msg = "Network is unreachable";
		} else if (code == 1 || code == 5 || code == 6) {
			*name = "EACCES";
			*msg = "Permission denied";
		} else if (code == 4) {
			*name = "ECONNREFUSED";
			*msg = "Connection refused";
		}
		return;
	}
	switch (code) {
	case 0:
	case 6:
	case 9:
	case 11:
		*name = "ENETUNREACH";
		*msg = "Network is unreachable";
		break;
	case 2:
		*name = "ENOPROTOOPT";
		*msg = "Protocol not available";
		break;
	case 3:
		*name = "ECONNREFUSED";
		*msg = "Connection refused";
		break;
	case 7:
		*name = "EHOSTDOWN";
		*msg = "Host is down";
		break;
	default:
		break;
	}
}

/* The SYNs were answered by ICMP unreachable errors and never by a SYN-ACK:
 * a firewall (or a router) rejected the connection for the server. */
static void hs_icmp_rejected(pd_ctx *ctx, hs_g *g, const pd_flow *flow, const hs_fs *fs)
{
	pd_time now = pd_ctx_now(ctx);
	const hs_rare *r = fs->rare;
	pd_finding *f = hs_flow_finding(ctx, g, "syn-rejected-icmp", 4, flow);
	if (!f)
		return;
	uint64_t icmp_frame = hs_frame(flow, r->icmp_fr), icmp_last_frame = hs_frame(flow, r->icmp_last_fr);
	pd_time icmp_ts = hs_at(flow, r->icmp_us), icmp_last_ts = hs_at(flow, r->icmp_last_us);
	char srv[64], src[64];
	pd_addr_bracketed(&flow->addr[PD_SERVER], srv, sizeof(srv));
	pd_addr_bracketed(&r->icmp_src, src, sizeof(src));
	uint32_t answered = r->icmp_rejects < fs->syns ? r->icmp_rejects : fs->syns;
	pd_time span = icmp_last_ts - flow->syn_ts;
	if (span < 0)
		span = 0;
	hs_syn_occurrences(f, fs, true);
	pd_finding_occurrence(f, icmp_frame, icmp_ts, "ICMP unreachable answering the SYN",
			      "应答 SYN 的 ICMP 不可达");
	if (icmp_last_frame != icmp_frame)
		pd_finding_occurrence(f, icmp_last_frame, icmp_last_ts, "last ICMP unreachable",
				      "最后一个 ICMP 不可达");
	pd_finding_add_impact(f, hs_sec(span));
	pd_finding_metric(f, "syns", fs->syns, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "syns_answered_by_icmp", answered, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "icmp_type", r->icmp_type, PD_UNIT_COUNT, PD_AGG_MAX);
	pd_finding_metric(f, "icmp_code", r->icmp_code, PD_UNIT_COUNT, PD_AGG_MAX);
	pd_finding_metric(f, "first_icmp_after_syn_ms", (double)r->icmp_delay / 1e6, PD_UNIT_MS, PD_AGG_MAX);
	pd_finding_metric(f, "time_trying_s", hs_sec(span), PD_UNIT_S, PD_AGG_SUM);
	pd_finding_set_severity(f, PD_SEV_ERROR);
	pd_finding_set_confidence(f, r->icmp_kind == HS_REJECT_UNREACH ? 0.7 : 0.9);
	pd_finding_detail(f,
			  "%u of the client's %u SYN(s) to %s:%u were answered by %s destination unreachable "
			  "(type %u, code %u) from %s, the first %.2f ms after its SYN (frame %llu); no SYN-ACK "
			  "and no RST came",
			  "客户端发往 %3$s:%4$u 的 %2$u 个 SYN 中有 %1$u 个收到了来自 %8$s 的 %5$s 目的不可达"
			  "（类型 %6$u，代码 %7$u），第一个在 SYN 之后 %9$.2f 毫秒到达（帧 %10$llu）；"
			  "没有 SYN-ACK，也没有 RST",
			  answered, fs->syns, srv, flow->port[PD_SERVER], r->icmp_v6 ? "ICMPv6" : "ICMP",
			  r->icmp_type, r->icmp_code, src, (double)r->icmp_delay / 1e6,
			  (unsigned long long)icmp_frame);
	if (pd_addr_equal(&r->icmp_src, &flow->addr[PD_SERVER]))
		pd_finding_append(f,
				  "; the ICMP comes from the server's own address: a firewall on the server host "
				  "rejects the connection before its TCP sees it",
				  "；ICMP 来自服务端自己的地址：服务端主机上的防火墙在 TCP 处理之前就拒绝了连接");
	else if (pd_addr_equal(&r->icmp_src, &flow->addr[PD_CLIENT]))
		pd_finding_append(f,
				  "; the ICMP comes from the client's own address: a firewall on the client host "
				  "rejects its outgoing connection",
				  "；ICMP 来自客户端自己的地址：客户端主机上的防火墙拒绝了它发出的连接");
	else
		pd_finding_append(f,
				  "; %s is the box to look at: a firewall or router there (or one answering in its "
				  "name) rejects the connection, and the server never saw the SYN",
				  "；要检查的是 %s：那里的防火墙或路由器（或以它的名义应答的设备）拒绝了连接，"
				  "服务端根本没有收到 SYN",
				  src);
	if (r->icmp_src_varies)
		pd_finding_append(f, "; later ICMP errors came from other addresses too",
				  "；之后的 ICMP 差错还来自其他地址");
	if (r->icmp_kind == HS_REJECT_PROHIBITED)
		pd_finding_append(f,
				  "; that code (administratively prohibited) is what a packet filter's reject rule "
				  "sends (nft reject, iptables REJECT, a cloud network ACL)",
				  "；这个代码（管理性禁止）正是包过滤器的拒绝规则发出的（nft reject、"
				  "iptables REJECT、云上的网络 ACL）");
	else if (r->icmp_kind == HS_REJECT_PORT)
		pd_finding_append(f,
				  "; a host answers a SYN to a closed TCP port with a RST, never with this code: "
				  "it comes from a firewall's reject rule (port unreachable is the default of "
				  "iptables REJECT)",
				  "；主机对发往未监听 TCP 端口的 SYN 会回 RST，而不会回这个代码：它来自防火墙的"
				  "拒绝规则（端口不可达是 iptables REJECT 的默认值）");
	else
		pd_finding_append(f,
				  "; routers send this code when they have no route to %s or its address does not "
				  "answer (ARP or neighbour discovery failed), and some firewalls reject with it: "
				  "check the route as well as the firewall rules",
				  "；路由器在没有到 %s 的路由、或该地址没有应答（ARP 或邻居发现失败）时会发送这个代码，"
				  "有些防火墙也用它来拒绝：路由和防火墙规则都要检查",
				  srv);
	if (fs->first_syn_ttl && r->icmp_inner_ttl && r->icmp_inner_ttl < fs->first_syn_ttl) {
		uint32_t hops = (uint32_t)(fs->first_syn_ttl - r->icmp_inner_ttl);
		pd_finding_metric(f, "hops_after_capture", hops, PD_UNIT_COUNT, PD_AGG_MAX);
		pd_finding_append(f,
				  "; the SYN quoted in the ICMP has TTL %u against %u at the capture point: it "
				  "was rejected %u hop(s) beyond it",
				  "；ICMP 中引用的 SYN 的 TTL 为 %u，抓包点处为 %u：它在抓包点之后 %u 跳处被拒绝",
				  r->icmp_inner_ttl, fs->first_syn_ttl, hops);
	}
	if (answered < fs->syns)
		pd_finding_append(f, "; %u SYN(s) got no answer at all (senders rate-limit ICMP errors)",
				  "；另有 %u 个 SYN 没有任何应答（发送方会对 ICMP 差错限速）", fs->syns - answered);
	if (fs->syns >= 3 && answered >= 3) {
		pd_finding_append(f,
				  "; the client's TCP kept retrying regardless (%u SYNs over %.1f s): it ignored "
				  "the ICMP (a soft error to it, or a host firewall kept the ICMP from its TCP), "
				  "so its connect() ends in a timeout instead",
				  "；客户端的 TCP 仍然不停地重试（%2$.1f 秒内 %1$u 个 SYN）：它忽略了这个 ICMP"
				  "（视为软错误，或主机防火墙挡住了 ICMP），因此 connect() 最终以超时结束",
				  fs->syns, hs_sec(fs->last_syn_ts - flow->syn_ts));
	} else {
		const char *name, *msg;
		hs_reject_errno(r->icmp_v6, r->icmp_code, &name, &msg);
		/* stopped: silent for more than the next retry gap could be
		 * (twice the last one: the classic backoff) */
		uint32_t kept = fs->syns < HS_MAX_SYNS ? fs->syns : HS_MAX_SYNS;
		pd_time gap = kept >= 2 ? hs_syn_ts(fs, kept - 1) - hs_syn_ts(fs, kept - 2) : PD_NS_PER_SEC;
		pd_time silence = now - icmp_last_ts;
		if (silence > 2 * gap + PD_NS_PER_SEC / 4)
			pd_finding_append(f,
					  "; the client stopped after %u SYN(s), %.2f s after the first: a Linux "
					  "client's connect() fails on such ICMP errors with %s (\"%s\")",
					  "；客户端发送 %u 个 SYN 后就停止了，距首个 SYN %.2f 秒：Linux 客户端的 connect() "
					  "遇到这类 ICMP 差错会以 %s（\"%s\"）失败",
					  fs->syns, hs_sec(span), name, msg);
		else if (silence > gap + PD_NS_PER_SEC / 4 || flow->end_reason != PD_END_CAPTURE)
			pd_finding_append(f,
					  "; no SYN followed in the %.2f s after the last ICMP: a Linux client's "
					  "connect() fails on such ICMP errors with %s (\"%s\")",
					  "；最后一个 ICMP 之后的 %.2f 秒内没有再出现 SYN：Linux 客户端的 connect() "
					  "遇到这类 ICMP 差错会以 %s（\"%s\"）失败",
					  hs_sec(silence), name, msg);
		else
			pd_finding_append(f,
					  "; the capture ends %.2f s after the last ICMP, before the client's next "
					  "retry would be due: a Linux client's connect() fails on such ICMP errors "
					  "with %s (\"%s\")",
					  "；抓包在最后一个 ICMP 之后 %.2f 秒就结束了，早于客户端下一次重试的时间："
					  "Linux 客户端的 connect() 遇到这类 ICMP 差错会以 %s（\"%s\"）失败",
					  hs_sec(silence), name, msg);
	}
	pd_finding_settings(f, "firewall rejecting connections", NULL);
}

/* ------------------------------------------------------------ flow end */

/* A SYN-ACK that crossed the client's retry: what the syn-retransmit
 * finding says about it (delayed, not lost). */
static void hs_late_synack(pd_finding *f, const pd_flow *flow, const hs_fs *fs)
{
	const hs_rare *r = fs->rare;
	uint64_t late_frame = hs_frame(flow, r->late_fr);
	pd_time late_ts = hs_at(flow, r->late_us);
	pd_finding_occurrence(f, late_frame, late_ts, "late SYN-ACK (sent earlier)",
			      "迟到的 SYN-ACK（更早发出）");
	pd_finding_metric(f, "late_synack_after_syn_s", hs_sec(late_ts - flow->syn_ts), PD_UNIT_S,
			  PD_AGG_MAX);
	if (r->late_ref_fr)
		pd_finding_append(f,
				  "; a SYN-ACK sent before the one in frame %llu (its TSval is older) arrived only "
				  "at frame %llu, %.2f s after the first SYN: the path held it while the client "
				  "retried, and it is a delayed copy, not a SYN-ACK re-sent after the ACK",
				  "；一个比帧 %llu 更早发出的 SYN-ACK（其 TSval 更旧）直到帧 %llu 才到达，"
				  "距首个 SYN %.2f 秒：它在路径上被延迟，客户端因此重试；这是迟到的报文，"
				  "而不是 ACK 之后重发的 SYN-ACK",
				  (unsigned long long)hs_frame(flow, r->late_ref_fr), (unsigned long long)late_frame,
				  hs_sec(late_ts - flow->syn_ts));
	else
		pd_finding_append(f,
				  "; another SYN-ACK of this connection arrived only at frame %llu, %.2f s after "
				  "the first SYN, after the server had already answered data: it was sent before "
				  "the connection existed and delayed on the path, not re-sent after the ACK",
				  "；这个连接的另一个 SYN-ACK 直到帧 %llu 才到达，距首个 SYN %.2f 秒，此时服务端已经"
				  "应答过数据：它是在连接建立之前发出、在路径上被延迟的，而不是 ACK 之后重发的",
				  (unsigned long long)late_frame, hs_sec(late_ts - flow->syn_ts));
}

static void hs_syn_retransmit(hs_g *g, const pd_flow *flow, const hs_fs *fs, pd_finding *f)
{
	char sched[224], srv[64];
	hs_schedule(fs, sched, sizeof(sched));
	pd_addr_bracketed(&flow->addr[PD_SERVER], srv, sizeof(srv));
	uint32_t kept = fs->syns < HS_MAX_SYNS ? fs->syns : HS_MAX_SYNS;
	uint32_t retx = fs->syns - 1;
	hs_syn_occurrences(f, fs, false);
	pd_finding_occurrence(f, flow->synack_frame, flow->synack_ts, "SYN-ACK", "SYN-ACK");
	/* Added connect time: from the first SYN to the SYN that got answered
	 * (= first SYN to SYN-ACK minus one round trip). */
	pd_time added = fs->last_syn_ts - hs_syn_ts(fs, 0);
	if (added < 0)
		added = 0;
	pd_finding_add_impact(f, hs_sec(added));
	pd_finding_metric(f, "syn_retransmits", retx, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "connect_delay_s", hs_sec(added), PD_UNIT_S, PD_AGG_SUM);
	pd_finding_metric(f, "first_syn_to_synack_ms", (double)(flow->synack_ts - flow->syn_ts) / 1e6, PD_UNIT_MS,
			  PD_AGG_MAX);
	hs_schedule_metrics(f, fs);
	pd_finding_metric(f, "synacks_captured", fs->synacks, PD_UNIT_COUNT, PD_AGG_SUM);
	/* The estimate spans the client's retries; a handshake ACK much
	 * later than that (SYN-ACKs ignored past the last retry, or missing
	 * from the capture) is the connect time the user saw: say that one. */
	bool late_ack = fs->syn_after_synack && flow->hs_ack_frame && flow->hs_ack_ts > fs->last_syn_ts &&
			flow->hs_ack_ts - hs_syn_ts(fs, 0) > added + PD_NS_PER_SEC;
	if (fs->syn_after_synack)
		pd_finding_detail(f,
				  "the client sent its SYN %u times (gaps %s s) although a SYN-ACK (frame %llu) was "
				  "captured: if this capture was taken at the client, its host discarded the "
				  "SYN-ACK (local firewall, conntrack, bad checksum); if at the server, the SYN-ACK "
				  "was lost on the way; ",
				  "尽管抓包中已有 SYN-ACK（帧 %3$llu），客户端仍发送了 %1$u 次 SYN（间隔 %2$s 秒）："
				  "若在客户端抓包，说明客户端主机丢弃了 SYN-ACK（本机防火墙、conntrack、校验和错误）；"
				  "若在服务端抓包，则是 SYN-ACK 在途中丢失；",
				  fs->syns, sched, (unsigned long long)flow->synack_frame);
	if (late_ack)
		pd_finding_append(f,
				  "the retries span %.2f s, and the client's handshake ACK (frame %llu) came only "
				  "%.2f s after its first SYN",
				  "重试持续了 %.2f 秒，客户端的握手 ACK（帧 %llu）直到首个 SYN 之后 %.2f 秒才发出",
				  hs_sec(added), (unsigned long long)flow->hs_ack_frame,
				  hs_sec(flow->hs_ack_ts - hs_syn_ts(fs, 0)));
	else if (fs->syn_after_synack)
		pd_finding_append(f, "connect took %.2f s longer", "建连多花了 %.2f 秒", hs_sec(added));
	if (!fs->syn_after_synack)
		pd_finding_detail(f,
				  "the client sent its SYN %u times (retry gaps %s s) before the SYN-ACK (frame "
				  "%llu) from %s:%u; connect took %.2f s longer than one round trip",
				  "在收到 %4$s:%5$u 的 SYN-ACK（帧 %3$llu）之前，客户端发送了 %1$u 次 SYN"
				  "（重试间隔 %2$s 秒）；建连比一个往返多花了 %6$.2f 秒",
				  fs->syns, sched, (unsigned long long)flow->synack_frame, srv, flow->port[PD_SERVER],
				  hs_sec(added));
	hs_schedule_shape(f, flow, fs);
	/* The SYN-ACK echoes the TSval of an earlier SYN than the last one
	 * sent before it: that SYN reached the server and was answered, yet
	 * the client retried, so SYN-ACKs were lost (or held) on the way back. */
	uint32_t before = fs->syns - fs->syn_after_synack;
	if (fs->rare && fs->rare->late_synacks) {
		hs_late_synack(f, flow, fs);
	} else if (fs->synack_echo && fs->synack_echo < before && fs->synack_echo < kept) {
		uint32_t e = fs->synack_echo - 1u;
		pd_finding_metric(f, "syn_reached_server", e, PD_UNIT_COUNT, PD_AGG_SUM);
		if (e)
			pd_finding_append(f,
					  "; the SYN-ACK's TSecr echoes the TSval of SYN retransmission #%u (frame "
					  "%llu), so that SYN reached the server and was answered, yet the client "
					  "retried %u more time(s): SYN-ACKs were lost on the way back (path, or a "
					  "firewall on the client host), not only SYNs",
					  "；SYN-ACK 的 TSecr 回显的是第 %u 次 SYN 重传（帧 %llu）的 TSval，说明这个 SYN "
					  "已到达服务端并得到应答，但客户端又重试了 %u 次：丢失的不只是 SYN，SYN-ACK "
					  "在回程中也丢了（路径上，或客户端主机上的防火墙）",
					  e, (unsigned long long)hs_syn_frame(fs, e), before - 1 - e);
		else
			pd_finding_append(f,
					  "; the SYN-ACK's TSecr echoes the TSval of the first SYN (frame %llu), so "
					  "that SYN reached the server and was answered, yet the client retried %u "
					  "more time(s): SYN-ACKs were lost on the way back (path, or a firewall on "
					  "the client host), not only SYNs",
					  "；SYN-ACK 的 TSecr 回显的是首个 SYN（帧 %llu）的 TSval，说明这个 SYN 已到达"
					  "服务端并得到应答，但客户端又重试了 %u 次：丢失的不只是 SYN，SYN-ACK 在回程中"
					  "也丢了（路径上，或客户端主机上的防火墙）",
					  (unsigned long long)hs_syn_frame(fs, e), before - 1 - e);
	}
	pd_finding_set_confidence(f, 0.9);
	hs_keep(g, f, flow, 0);
}

/* A client that gave up, when its SYN is Apple's or Windows': that
 * system's rule for ending a connect, not Linux's tcp_syn_retries budget.
 * macOS fails a connect that is not answered within net.inet.tcp.keepinit
 * (75 s), its retries 1 s apart five times and then doubling; Windows at
 * the timeout after Max SYN Retransmissions, twice the last gap after the
 * last SYN. False for any other client (the caller's Linux reading). */
#define HS_APPLE_KEEPINIT (75 * PD_NS_PER_SEC)

/* When a macOS client's next SYN retry was due, from the first SYN: its
 * kernel waits 1 s five times, then doubles (kept SYNs >= 2). */
static pd_time hs_apple_next_retry(const hs_fs *fs, pd_time span)
{
	static const uint8_t backoff[] = {1, 1, 1, 1, 1, 2, 4, 8, 16, 32, 64, 64, 64};
	uint32_t retx = fs->syns - 1;
	pd_time rto0 = hs_syn_ts(fs, 1) - hs_syn_ts(fs, 0);
	return span + rto0 * backoff[retx < sizeof(backoff) ? retx : sizeof(backoff) - 1];
}

static bool hs_give_up_foreign(hs_g *g, const pd_flow *flow, const hs_fs *fs, pd_finding *f, const char *srv,
			       const char *sched, pd_time span, pd_time silence, pd_time last_gap)
{
	const pd_time keepinit = HS_APPLE_KEEPINIT;
	uint8_t os = flow->half[PD_CLIENT].os;
	uint32_t retx = fs->syns - 1;
	if (os == PD_OS_APPLE) {
		pd_time next = hs_apple_next_retry(fs, span) - span;
		if (span + next + PD_NS_PER_SEC < keepinit) {
			/* its kernel had another retry due before keepinit ran out */
			pd_finding_metric(f, "app_stopped_by_s", hs_sec(span + next), PD_UNIT_S, PD_AGG_MAX);
			pd_finding_set_severity(f, PD_SEV_ERROR);
			pd_finding_set_confidence(f, 0.8);
			pd_finding_detail(f,
					  "no SYN-ACK from %s:%u: the client, macOS or iOS by its SYN's TTL and option "
					  "order, sent its SYN %u times (gaps %s s) over %.1f s and then stopped (%.1f s "
					  "of silence) before its kernel would have: the next retry was due %.1f s after "
					  "the first SYN, within net.inet.tcp.keepinit (75 s by default). The "
					  "application's connect timeout (or a close, TCP_CONNECTIONTIMEOUT, or a lower "
					  "keepinit) ended it",
					  "%1$s:%2$u 始终没有回 SYN-ACK：客户端（由其 SYN 的 TTL 和选项顺序看是 macOS 或 "
					  "iOS）在 %5$.1f 秒内发送了 %3$u 次 SYN（间隔 %4$s 秒），之后停止（静默 %6$.1f "
					  "秒），早于它的内核会放弃的时间：下一次重试本应在首个 SYN 之后 %7$.1f 秒，仍在 "
					  "net.inet.tcp.keepinit（默认 75 秒）之内。是应用自己的连接超时（或主动关闭、"
					  "TCP_CONNECTIONTIMEOUT、调低的 keepinit）结束了尝试",
					  srv, flow->port[PD_SERVER], fs->syns, sched, hs_sec(span), hs_sec(silence),
					  hs_sec(span + next));
			pd_finding_add_impact(f, hs_sec(span));
			hs_keep(g, f, flow, 1);
			return true;
		}
		pd_time fail = keepinit < span + silence ? keepinit : span + silence;
		pd_finding_metric(f, "connect_failed_after_s", hs_sec(fail), PD_UNIT_S, PD_AGG_MAX);
		pd_finding_set_severity(f, PD_SEV_ERROR);
		pd_finding_set_confidence(f, 0.85);
		pd_finding_detail(f,
				  "no SYN-ACK from %s:%u: the client, macOS or iOS by its SYN's TTL and option order, "
				  "sent its SYN %u times (gaps %s s) over %.1f s and no more (%.1f s of silence). macOS "
				  "fails a connect not answered within net.inet.tcp.keepinit (75 s by default), and its "
				  "next retry was due only after that, so connect() failed about %.1f s after the first "
				  "SYN with the default, unless the application's connect timeout fired first",
				  "%1$s:%2$u 始终没有回 SYN-ACK：客户端（由其 SYN 的 TTL 和选项顺序看是 macOS 或 "
				  "iOS）在 %5$.1f 秒内发送了 %3$u 次 SYN（间隔 %4$s 秒），之后再没有发送（静默 %6$.1f "
				  "秒）。macOS 在 net.inet.tcp.keepinit（默认 75 秒）内得不到应答就让连接失败，而它的"
				  "下一次重试要在这之后才到，因此按默认值 connect() 大约在首个 SYN 之后 %7$.1f 秒失败，"
				  "除非应用自己的连接超时先触发",
				  srv, flow->port[PD_SERVER], fs->syns, sched, hs_sec(span), hs_sec(silence), hs_sec(fail));
		pd_finding_add_impact(f, hs_sec(fail));
		hs_keep(g, f, flow, 1);
		return true;
	}
	if (os != PD_OS_WINDOWS)
		return false;
	pd_time fail = span + 2 * last_gap;
	if (retx < 2) {
		/* fewer than any Windows default (2, recent releases 4) */
		pd_finding_metric(f, "app_stopped_by_s", hs_sec(fail), PD_UNIT_S, PD_AGG_MAX);
		pd_finding_set_severity(f, PD_SEV_ERROR);
		pd_finding_set_confidence(f, 0.8);
		pd_finding_detail(f,
				  "no SYN-ACK from %s:%u: the client, Windows by its SYN's TTL and option order, sent "
				  "its SYN %u times (gaps %s s) over %.1f s and then stopped (%.1f s of silence) after "
				  "%u retransmission, fewer than Windows' default Max SYN Retransmissions (2; netsh "
				  "int tcp show global shows the host's): the application's connect timeout (or a "
				  "close) most likely ended it, or a lowered setting, by %.1f s after the first SYN",
				  "%1$s:%2$u 始终没有回 SYN-ACK：客户端（由其 SYN 的 TTL 和选项顺序看是 Windows）在 "
				  "%5$.1f 秒内发送了 %3$u 次 SYN（间隔 %4$s 秒），重传 %7$u 次后停止（之后静默 "
				  "%6$.1f 秒），少于 Windows 默认的 Max SYN Retransmissions（2；netsh int tcp show "
				  "global 显示该主机的值）：最可能是应用自己的连接超时（或主动关闭）结束了尝试，"
				  "或是调低了该设置，时间不晚于首个 SYN 之后 %8$.1f 秒",
				  srv, flow->port[PD_SERVER], fs->syns, sched, hs_sec(span), hs_sec(silence), retx,
				  hs_sec(fail));
		pd_finding_add_impact(f, hs_sec(span));
		hs_keep(g, f, flow, 1);
		return true;
	}
	if (fail > span + silence)
		fail = span + silence;
	pd_finding_metric(f, "connect_failed_after_s", hs_sec(fail), PD_UNIT_S, PD_AGG_MAX);
	pd_finding_set_severity(f, PD_SEV_ERROR);
	pd_finding_set_confidence(f, 0.85);
	pd_finding_detail(f,
			  "no SYN-ACK from %s:%u: the client, Windows by its SYN's TTL and option order, sent its "
			  "SYN %u times (gaps %s s) over %.1f s and then stopped (%.1f s of silence, more than the "
			  "next backoff). Windows gives up at the timeout after Max SYN Retransmissions "
			  "retransmissions (netsh int tcp show global), %u here, so connect() failed about %.1f s "
			  "after the first SYN (the next timeout), unless the application's connect timeout "
			  "fired first",
			  "%1$s:%2$u 始终没有回 SYN-ACK：客户端（由其 SYN 的 TTL 和选项顺序看是 Windows）在 "
			  "%5$.1f 秒内发送了 %3$u 次 SYN（间隔 %4$s 秒）后停止（之后静默 %6$.1f 秒，超过下一次"
			  "退避间隔）。Windows 在重传满 Max SYN Retransmissions 次（netsh int tcp show global）"
			  "之后的下一个超时处放弃，这里是 %7$u 次，因此 connect() 大约在首个 SYN 之后 %8$.1f 秒"
			  "（下一个超时）失败，除非应用自己的连接超时先触发",
			  srv, flow->port[PD_SERVER], fs->syns, sched, hs_sec(span), hs_sec(silence), retx, hs_sec(fail));
	pd_finding_add_impact(f, hs_sec(fail));
	hs_keep(g, f, flow, 1);
	return true;
}

/* No SYN-ACK ever: gave up, or the capture ended first. */
static void hs_syn_unanswered(hs_g *g, const pd_flow *flow, const hs_fs *fs, pd_finding *f, pd_time now)
{
	char sched[224], srv[64];
	hs_schedule(fs, sched, sizeof(sched));
	pd_addr_bracketed(&flow->addr[PD_SERVER], srv, sizeof(srv));
	uint32_t kept = fs->syns < HS_MAX_SYNS ? fs->syns : HS_MAX_SYNS;
	uint32_t retx = fs->syns - 1;
	hs_syn_occurrences(f, fs, true);
	pd_time last_gap = kept >= 2 ? hs_syn_ts(fs, kept - 1) - hs_syn_ts(fs, kept - 2) : PD_NS_PER_SEC;
	if (fs->syns > kept)
		last_gap = fs->last_syn_ts - hs_syn_ts(fs, kept - 1); /* at least this */
	pd_time silence = now - fs->last_syn_ts;
	/* The next retry comes at most twice the last gap later (linear phase: the
	 * same gap); silence well beyond that means the client stopped. */
	/* halved, not doubled: gaps come from capture clocks and may be huge */
	bool gave_up = silence / 2 > last_gap + PD_NS_PER_SEC / 4;
	/* a macOS client's connect ends at keepinit (75 s by default) even
	 * while its next retry is still far off */
	if (!gave_up && flow->half[PD_CLIENT].os == PD_OS_APPLE && kept >= 2 &&
	    now - flow->syn_ts > HS_APPLE_KEEPINIT + PD_NS_PER_SEC &&
	    hs_apple_next_retry(fs, fs->last_syn_ts - flow->syn_ts) > HS_APPLE_KEEPINIT)
		gave_up = true;
	pd_time lost = (gave_up ? fs->last_syn_ts : now) - flow->syn_ts;
	pd_time span = fs->last_syn_ts - flow->syn_ts;
	pd_finding_metric(f, "syn_retransmits", retx, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "time_trying_s", hs_sec(lost), PD_UNIT_S, PD_AGG_SUM);
	pd_finding_metric(f, "silence_after_last_syn_ms", (double)silence / 1e6, PD_UNIT_MS, PD_AGG_MAX);
	hs_schedule_metrics(f, fs);
	if (gave_up && kept >= 2 && hs_give_up_foreign(g, flow, fs, f, srv, sched, span, silence, last_gap)) {
		hs_schedule_shape(f, flow, fs);
		return;
	}
	/* Linux stops at the first timeout after n = tcp_syn_retries
	 * retransmissions (n + tcp_syn_linear_timeouts since 6.5) or after a
	 * budget of (2^(n+1) - 1) initial RTOs, whichever comes first; before
	 * 6.5 the two coincide. The smallest n whose budget covers the retries
	 * seen: */
	int n_budget = 0;
	while (n_budget < 15 && (double)((2 << n_budget) - 1) < hs_sec(span))
		n_budget++;
	pd_finding_metric(f, "syn_retries_budget_min", n_budget, PD_UNIT_COUNT, PD_AGG_MAX);
	/* The kernel sends a SYN at every timeout that fires before the budget
	 * is spent and fails at the first one after it, so a kernel give-up
	 * needs the budget to end before the next timeout (at most twice the
	 * last gap after the last SYN). A stop earlier than that (e.g. SYNs at
	 * 0,1,2,3,4,5,7 s then nothing: n=2 ends at 7 s, n=3 sends one more at
	 * 11 s) was the application's connect timeout or close. */
	pd_time rto0 = kept >= 2 ? hs_syn_ts(fs, 1) - hs_syn_ts(fs, 0) : PD_NS_PER_SEC;
	pd_time next_timeout = span + 2 * last_gap;
	bool app_stop = gave_up && kept >= 2 && (pd_time)((2 << n_budget) - 1) * rto0 > next_timeout + rto0 / 2;
	if (app_stop) {
		pd_finding_metric(f, "app_stopped_by_s", hs_sec(next_timeout), PD_UNIT_S, PD_AGG_MAX);
		pd_finding_set_severity(f, PD_SEV_ERROR);
		pd_finding_set_confidence(f, 0.8);
		pd_finding_detail(f,
				  "no SYN-ACK from %s:%u: the client sent its SYN %u times (gaps %s s) over %.1f s "
				  "and then stopped (%.1f s of silence, more than the next backoff) after %u "
				  "retransmissions. No net.ipv4.tcp_syn_retries value ends the kernel's attempt "
				  "there (it stops at the first timeout after n retransmissions, n + "
				  "tcp_syn_linear_timeouts since 6.5, or after about 2^(n+1)-1 initial RTOs, "
				  "whichever is first; the smallest n that covers these SYNs, n=%d, would have sent "
				  "another SYN first): the application's own connect timeout (or a close) most "
				  "likely ended it, between %.1f and %.1f s after the first SYN",
				  "%1$s:%2$u 始终没有回 SYN-ACK：客户端在 %5$.1f 秒内发送了 %3$u 次 SYN"
				  "（间隔 %4$s 秒），重传 %7$u 次后停止（之后静默 %6$.1f 秒，超过下一次退避间隔）。"
				  "没有哪个 net.ipv4.tcp_syn_retries 取值会让内核在此处停止（内核在 n 次重传后的"
				  "第一个超时处放弃——6.5 起为 n + tcp_syn_linear_timeouts 次——或在约 2^(n+1)-1 个"
				  "初始 RTO 后放弃，以先到者为准；能覆盖这些 SYN 的最小 n=%8$d 会先再发一个 SYN）："
				  "最可能是应用自己的连接超时（或主动关闭）结束了尝试，时间在首个 SYN 之后 "
				  "%9$.1f 到 %10$.1f 秒之间",
				  srv, flow->port[PD_SERVER], fs->syns, sched, hs_sec(span), hs_sec(silence), retx,
				  n_budget, hs_sec(span), hs_sec(next_timeout));
		hs_schedule_shape(f, flow, fs);
		pd_finding_add_impact(f, hs_sec(lost));
		hs_keep(g, f, flow, 1);
		return;
	}
	if (gave_up && kept >= 2) {
		/* connect() fails at the timeout after the last SYN: one initial RTO
		 * while the linear phase lasts (5 gaps with the default
		 * tcp_syn_linear_timeouts=4 when the kept gaps never doubled),
		 * doubling after it, at most TCP_RTO_MAX (120 s); never later than
		 * the silence the capture shows. */
		bool dbl;
		uint32_t m = hs_equal_gaps(fs, &dbl);
		if (m < 1)
			m = 1;
		if (!dbl && m + 1 == kept && m < 5)
			m = 5;
		uint32_t k = fs->syns > m ? fs->syns - m : 0;
		pd_time next = k >= 8 ? 120 * PD_NS_PER_SEC : rto0 << k;
		if (next > 120 * PD_NS_PER_SEC)
			next = 120 * PD_NS_PER_SEC;
		pd_time fail = span + next;
		if (fail > span + silence)
			fail = span + silence;
		pd_finding_metric(f, "connect_failed_after_s", hs_sec(fail), PD_UNIT_S, PD_AGG_MAX);
		lost = fail;
	}
	pd_finding_add_impact(f, hs_sec(lost));
	if (gave_up) {
		pd_finding_set_severity(f, PD_SEV_ERROR);
		pd_finding_set_confidence(f, 0.85);
		pd_finding_detail(f,
				  "no SYN-ACK from %s:%u: the client sent its SYN %u times (gaps %s s) over %.1f s "
				  "and then stopped (%.1f s of silence, more than the next backoff): it gave up "
				  "after %u retransmissions. Linux stops at the first timeout after "
				  "net.ipv4.tcp_syn_retries=n retransmissions (n + tcp_syn_linear_timeouts since "
				  "6.5) or after about 2^(n+1)-1 initial RTOs, whichever is first: this fits n=%d, "
				  "so connect() failed about %.1f s after the first SYN (the next timeout), unless "
				  "the application's connect timeout fired first",
				  "%1$s:%2$u 始终没有回 SYN-ACK：客户端在 %5$.1f 秒内发送了 %3$u 次 SYN"
				  "（间隔 %4$s 秒）后停止（之后静默 %6$.1f 秒，超过下一次退避间隔）：它在重传 "
				  "%7$u 次后放弃了。Linux 在 net.ipv4.tcp_syn_retries=n 次重传（6.5 起为 n + "
				  "tcp_syn_linear_timeouts 次）后的第一个超时处放弃，或在约 2^(n+1)-1 个初始 RTO "
				  "后放弃，以先到者为准：这与 n=%8$d 相符，因此 connect() 大约在首个 SYN 之后 "
				  "%9$.1f 秒（下一个超时）失败，除非应用自己的连接超时先触发",
				  srv, flow->port[PD_SERVER], fs->syns, sched, hs_sec(span), hs_sec(silence), retx,
				  n_budget, hs_sec(lost));
	} else {
		pd_finding_set_severity(f, PD_SEV_WARNING);
		pd_finding_set_confidence(f, 0.7);
		pd_finding_detail(f,
				  "no SYN-ACK from %s:%u: the client sent its SYN %u times (gaps %s s) and was "
				  "still retrying when the flow ended (%.1f s after the first SYN; the capture may "
				  "have stopped before the outcome)",
				  "%1$s:%2$u 始终没有回 SYN-ACK：客户端发送了 %3$u 次 SYN（间隔 %4$s 秒），"
				  "流结束时仍在重试（首个 SYN 之后 %5$.1f 秒；抓包可能在结果出现之前就停止了）",
				  srv, flow->port[PD_SERVER], fs->syns, sched, hs_sec(lost));
	}
	hs_schedule_shape(f, flow, fs);
	hs_keep(g, f, flow, 1);
}

static void hs_flow_end(pd_ctx *ctx, hs_g *g, const pd_flow *flow, hs_fs *fs)
{
	/* what the flow adds to its server's picture */
	if (fs->synacks && flow->syn_frame)
		hs_hist_add(g, fs->first_synack_ts - flow->syn_ts);
	hs_synack_options(ctx, g, flow, fs);
	hs_server_moments(g, flow, fs);
	if (!flow->syn_frame || !fs->syns)
		return;
	/* rejected on the way: the listener never saw these SYNs */
	if (fs->rare && fs->rare->icmp_rejects && !flow->synack_frame && !fs->rst_answer_frame) {
		hs_icmp_rejected(ctx, g, flow, fs);
		return;
	}
	hs_srv *srv = hs_srv_get(g, &flow->addr[PD_SERVER], flow->port[PD_SERVER]);
	if (!srv->attempts || flow->syn_ts < srv->first_attempt)
		srv->first_attempt = flow->syn_ts;
	if (!srv->attempts || flow->syn_ts > srv->last_attempt)
		srv->last_attempt = flow->syn_ts;
	srv->attempts++;
	if (fs->syns > 1)
		hs_syn_retx(g, flow, fs);

	/* Accept queue: the abort RST, or the SYN-ACK timer re-sending after
	 * the ACK (hs_count_resends); not when the server took the first copy
	 * of the client's data (a full queue drops it too) or reported an
	 * earlier copy with a D-SACK. A single re-send to a client that sent
	 * no data before it is TCP_DEFER_ACCEPT's pattern as much as the
	 * queue's: undecided, and it cost the client nothing it asked for. */
	hs_resends rs;
	hs_count_resends(flow, fs, &rs);
	bool taken = fs->first_copy_taken || fs->first_answer_dsack;
	pd_time rtt = hs_rtt_to_server(fs);
	bool data_first = fs->c0_copies && rs.n &&
			  (hs_at(flow, fs->c0_us) - rs.first_ts) * 5 <= -(rtt > 0 ? rtt : 0) * 4;
	bool defer_like = rs.n == 1 && !data_first;
	/* at the server a single retransmission may get in before the SYN-ACK
	 * timer fires; elsewhere one lost segment is as likely */
	uint32_t retx_needed = pd_flow_vantage(flow) == PD_SERVER ? 1 : 2;
	if (fs->abort_rst_fr)
		hs_accept_queue(ctx, g, flow, fs, &rs);
	else if (rs.n && !taken && !defer_like)
		hs_accept_queue(ctx, g, flow, fs, &rs);
	else if (flow->synack_frame && flow->hs_ack_frame && fs->synacks == 1 && !fs->server_spoke_after_ack &&
		 fs->client_data_retx >= retx_needed && !fs->client_rst && !taken)
		hs_cookie_stall(ctx, g, flow, fs);
	else if (!rs.n)
		hs_note_room(g, flow, fs);

	uint32_t retx = fs->syns - 1;
	bool real_client = fs->syns > 1 || fs->client_other;

	/* SYN-ACK retransmitted with no ACK captured before it, and not just an
	 * answer to a retransmitted SYN (that case is reported as SYN loss). */
	if (fs->synack_retx_before_ack && real_client && !fs->syn_after_synack && !fs->synack_retx_after_ack &&
	    !fs->abort_rst_fr) {
		pd_finding *f = hs_flow_finding(ctx, g, "synack-retransmit", 2, flow);
		if (f) {
			pd_finding_occurrence(f, flow->synack_frame, flow->synack_ts, "SYN-ACK", "SYN-ACK");
			uint64_t retx_frame = hs_frame(flow, fs->synack_retx_fr);
			pd_finding_occurrence(f, retx_frame, hs_at(flow, fs->synack_retx_us), "SYN-ACK retransmission",
					      "SYN-ACK 重传");
			pd_time lost = flow->hs_ack_frame ? fs->synack_last_before_ack_ts - flow->synack_ts
							  : flow->last_ts - flow->synack_ts;
			if (lost < 0)
				lost = 0;
			pd_finding_add_impact(f, hs_sec(lost));
			pd_finding_metric(f, "synack_retransmits", fs->synack_retx_before_ack, PD_UNIT_COUNT, PD_AGG_SUM);
			pd_finding_metric(f, "delay_s", hs_sec(lost), PD_UNIT_S, PD_AGG_SUM);
			if (flow->hs_ack_frame)
				pd_finding_detail(f,
						  "the server re-sent its SYN-ACK %u time(s) (first at frame %llu) with "
						  "no ACK from the client captured before it; the handshake completed "
						  "late. On a capture taken at the client, the SYN-ACK was answered and "
						  "the ACK got lost on the way; at the server, either the SYN-ACK or the "
						  "ACK was lost",
						  "服务端重发了 %u 次 SYN-ACK（首次在帧 %llu），此前没有抓到客户端的 ACK；"
						  "握手推迟完成。如果在客户端抓包，说明 SYN-ACK 已被应答，而 ACK 在途中"
						  "丢失；如果在服务端抓包，则是 SYN-ACK 或 ACK 之一丢失",
						  fs->synack_retx_before_ack, (unsigned long long)retx_frame);
			else
				pd_finding_detail(f,
						  "the server re-sent its SYN-ACK %u time(s) (first at frame %llu) with "
						  "no ACK from the client captured before it; the handshake never "
						  "completed. On a capture taken at the client, the SYN-ACK was answered "
						  "and the ACK got lost on the way; at the server, either the SYN-ACK or "
						  "the ACK was lost",
						  "服务端重发了 %u 次 SYN-ACK（首次在帧 %llu），此前没有抓到客户端的 ACK；"
						  "握手始终没有完成。如果在客户端抓包，说明 SYN-ACK 已被应答，而 ACK "
						  "在途中丢失；如果在服务端抓包，则是 SYN-ACK 或 ACK 之一丢失",
						  fs->synack_retx_before_ack, (unsigned long long)retx_frame);
			pd_finding_set_confidence(f, 0.6);
			pd_finding_settings(f, "firewall dropping SYN/SYN-ACK", "net.core.somaxconn",
					    "listen() backlog", "net.ipv4.tcp_synack_retries", NULL);
		}
	}

	if (!retx)
		return;
	if (fs->rst_answer_frame || (fs->client_rst && !flow->synack_frame))
		return; /* refused or aborted: the timestamps detector explains RSTs */
	if (fs->challenge && fs->client_rst)
		return; /* the retry after a challenge ACK: the timestamps detector explains it */

	/* Past the cap (a flood or a scan) there is nothing to print. */
	pd_finding *f = flow->synack_frame ? hs_flow_finding(ctx, g, "syn-retransmit", 0, flow)
					   : hs_flow_finding(ctx, g, "syn-unanswered", 1, flow);
	if (!f)
		return;
	if (flow->synack_frame)
		hs_syn_retransmit(g, flow, fs, f);
	else
		hs_syn_unanswered(g, flow, fs, f, pd_ctx_now(ctx));
}

static void hs_on_flow_end(pd_ctx *ctx, void *gv, const pd_flow *flow, void *fsv)
{
	hs_g *g = gv;
	hs_fs *fs = fsv;
	if (flow->proto == 6 && !flow->pseudo)
		hs_flow_end(ctx, g, flow, fs);
	g_free(fs->rare);
	fs->rare = NULL;
}

/* --------------------------------------------------------------- end */

static void hs_peak_cb(void *v, void *arg)
{
	(void)arg;
	hs_peak(v);
}

typedef struct hs_pick {
	hs_srv *overload, *cookies;
} hs_pick;

/* The servers the capture-wide findings speak of: the most clients
 * retrying at once; the most SYN-ACKs without options (first in the
 * table's order on a tie). */
static void hs_pick_cb(void *v, void *arg)
{
	hs_srv *s = v;
	hs_pick *p = arg;
	if (hs_overloaded(s) && (!p->overload || s->peak_clients > p->overload->peak_clients))
		p->overload = s;
	if (s->synack_full && s->synack_stripped && (!p->cookies || s->synack_stripped > p->cookies->synack_stripped))
		p->cookies = s;
}

static void hs_report_overload(pd_ctx *ctx, hs_srv *s)
{
	char srv[64];
	pd_addr_bracketed(&s->addr, srv, sizeof(srv));
	pd_finding *f = pd_finding_get(ctx, "listener-overload", NULL);
	uint64_t named = 0;
	for (guint i = 0; s->retries && i < s->retries->len; i++) {
		const hs_retry *r = &g_array_index(s->retries, hs_retry, i);
		pd_finding_add_key(ctx, f, &r->flow);
		pd_finding_occurrence(f, r->frame, r->ts, "SYN retransmission", "SYN 重传");
		named++;
	}
	if (s->syn_retx > named)
		pd_finding_count(f, s->syn_retx - named);
	double window = hs_window_attempts(s), rate = hs_syn_rate(s);
	double share = window > 0 ? (double)s->peak_flows / window : 1;
	if (share > 1)
		share = 1;
	pd_finding_metric(f, "clients_in_window", s->peak_clients, PD_UNIT_COUNT, PD_AGG_MAX);
	pd_finding_metric(f, "retrying_connections_in_window", s->peak_flows, PD_UNIT_COUNT, PD_AGG_MAX);
	pd_finding_metric(f, "connection_attempts_in_window", round(window), PD_UNIT_COUNT, PD_AGG_MAX);
	pd_finding_metric(f, "retrying_share", share, PD_UNIT_RATIO, PD_AGG_MAX);
	pd_finding_metric(f, "connection_attempts_per_s", rate, PD_UNIT_COUNT, PD_AGG_MAX);
	pd_finding_metric(f, "syn_retransmits", s->syn_retx, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "accept_queue_overflow_flows", s->aq_flows, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_set_confidence(f, s->aq_flows ? 0.85 : 0.65);
	pd_finding_detail(f,
			  "%u distinct clients retransmitted SYNs toward %s:%u within %.0f s (around t=%.2f s): "
			  "%u of about %.0f connection attempts there in that time had to retry (%.0f%%; the "
			  "listener took %.1f new connections/s on average); %u SYN retransmissions toward it "
			  "in all",
			  "%2$s:%3$u 在 %4$.0f 秒内（约 t=%5$.2f 秒处）有 %1$u 个不同的客户端重传了 SYN："
			  "该时段约 %7$.0f 个建连尝试中有 %6$u 个不得不重试（%8$.0f%%；该监听端平均每秒新建 "
			  "%9$.1f 个连接）；发往它的 SYN 重传共 %10$u 次",
			  s->peak_clients, srv, s->port, hs_sec(HS_OVERLOAD_WINDOW), hs_sec(s->peak_ts - pd_ctx_start(ctx)),
			  s->peak_flows, window, share * 100, rate, s->syn_retx);
	if (s->aq_flows)
		pd_finding_append(f, "; the same listener dropped handshake ACKs (accept queue full)",
				  "；同一监听端还丢弃了握手 ACK（全连接队列已满）");
}

/* A stalled connection after the handshake: kept when the capture shows
 * this client's packets arriving (taken at the server), when the server
 * answered another connection of the same client during the stall (the
 * path worked), or another client's when no request socket was left (no
 * SYN-ACK retransmission for 1.5 s), or when the listener visibly
 * overflowed on another flow; else path loss is as likely. */
static void hs_decide_stall(pd_ctx *ctx, hs_kept *k, const hs_srv *s)
{
	pd_finding *f = k->f;
	char other[64];
	double into = hs_sec(k->other_ts - k->stall_from);
	if (k->other_frame && k->other_same_client) {
		pd_finding_set_confidence(f, 0.7);
		pd_finding_occurrence(f, k->other_frame, k->other_ts, "another connection answered meanwhile",
				      "其间另一个连接得到应答");
		pd_finding_append(f,
				  "; meanwhile the server answered another connection from the same client (port "
				  "%u, frame %llu, %.2f s into the stall): the path and the server host worked, "
				  "only this connection's packets were dropped - at the listener",
				  "；与此同时，服务端应答了同一客户端的另一个连接（端口 %u，帧 %llu，停滞开始后 "
				  "%.2f 秒）：路径和服务端主机都正常，只有这个连接的报文被丢弃——丢在监听端",
				  k->other_cport, (unsigned long long)k->other_frame, into);
	} else if (k->other_frame && (k->at_server || k->long_silence)) {
		pd_finding_set_confidence(f, 0.6);
		pd_addr_bracketed(&k->other_caddr, other, sizeof(other));
		pd_finding_occurrence(f, k->other_frame, k->other_ts, "another connection answered meanwhile",
				      "其间另一个连接得到应答");
		pd_finding_append(f,
				  "; meanwhile the server answered another client's connection (%s port %u, frame "
				  "%llu, %.2f s into the stall): the server worked while this connection's packets "
				  "were dropped",
				  "；与此同时，服务端应答了另一个客户端的连接（%s 端口 %u，帧 %llu，停滞开始后 "
				  "%.2f 秒）：服务端在正常工作，这个连接的报文却被丢弃了",
				  other, k->other_cport, (unsigned long long)k->other_frame, into);
	} else if (s && s->aq_flows && k->long_silence && !k->at_server) {
		pd_finding_append(f,
				  "; the same listener re-sent SYN-ACKs after the client's ACK on %u other "
				  "connection(s): its accept queue overflowed",
				  "；同一监听端在另外 %u 个连接上于客户端 ACK 之后重发了 SYN-ACK：它的全连接队列溢出了",
				  s->aq_flows);
	} else if (!k->at_server) {
		pd_finding_drop(ctx, f);
		k->f = NULL;
		return;
	} else {
		pd_finding_set_confidence(f, 0.6);
	}
	/* taken at the server: the packets reached the host, not lost on the path */
	if (!k->at_server)
		return;
	if (k->answered)
		pd_finding_append(f,
				  "; this capture was taken at the server: the handshake ACK and the data "
				  "reached its host, and its TCP said nothing until it took a retransmission "
				  "as new data, as a listener does with the segments of a handshake its full "
				  "accept queue cannot take",
				  "；这个抓包是在服务端抓的：握手 ACK 和数据都到达了服务端主机，而它的 TCP "
				  "一声不吭，直到把某次重传当作新数据接收——监听端对全连接队列已满、无法接纳的"
				  "握手报文正是这样处理的");
	else
		pd_finding_append(f,
				  "; this capture was taken at the server: the handshake ACK and the data "
				  "reached its host, and its TCP never answered them, as a listener does with "
				  "the segments of a handshake its full accept queue cannot take",
				  "；这个抓包是在服务端抓的：握手 ACK 和数据都到达了服务端主机，而它的 TCP "
				  "始终没有应答——监听端对全连接队列已满、无法接纳的握手报文正是这样处理的");
}

static void hs_on_end(pd_ctx *ctx, void *gv)
{
	hs_g *g = gv;
	double p50 = hs_hist_quantile(g, 0.5), p99 = hs_hist_quantile(g, 0.99);
	char srv[64];
	pd_keytable_foreach(g->srv, hs_peak_cb, NULL);

	/* The accept queue first: a stall another connection's handshake
	 * taken right after it contradicts is no overflow; what is left
	 * counts for its listener below. */
	for (size_t i = 0; i < g->n_kept; i++) {
		hs_kept *k = &g->kept[i];
		if (!k->f || (k->kind != 2 && k->kind != 3) || !k->room_frame)
			continue;
		hs_srv *s = hs_srv_find(g, &k->addr, k->port);
		if (k->kind == 3 && s && s->aq_flows)
			s->aq_flows--;
		pd_finding_drop(ctx, k->f);
		k->f = NULL;
	}
	for (size_t i = 0; i < g->n_kept; i++) {
		hs_kept *k = &g->kept[i];
		if (k->f && k->kind == 2)
			hs_decide_stall(ctx, k, hs_srv_find(g, &k->addr, k->port));
	}

	/* Rank settings now that the whole capture is known: a listener that
	 * overflowed or many clients retrying at once point at the server;
	 * a single client retrying points at its path. */
	for (size_t i = 0; i < g->n_kept; i++) {
		hs_kept *k = &g->kept[i];
		hs_srv *s = hs_srv_find(g, &k->addr, k->port);
		pd_finding *f = k->f;
		if (!f)
			continue;
		if (k->kind == 2 || k->kind == 3)
			continue;
		if (k->kind == 0) {
			pd_finding_metric(f, "connect_p50_ms", p50 * 1e3, PD_UNIT_MS, PD_AGG_MAX);
			pd_finding_metric(f, "connect_p99_ms", p99 * 1e3, PD_UNIT_MS, PD_AGG_MAX);
		}
		/* on loopback there is no path to lose packets on */
		bool loopback = (k->addr.family == 4 && k->addr.bytes[0] == 127) ||
				(k->addr.family == 6 && k->addr.bytes[15] == 1 &&
				 !memcmp(k->addr.bytes, (const uint8_t[15]){0}, 15));
		bool listener = loopback || (s && (s->aq_flows || hs_overloaded(s)));
		bool one_client = s && s->n_clients <= 1 && !s->more_clients;
		/* a busy listener few of whose connections retried, never many at once */
		bool scattered = s && s->attempts >= 20 &&
				 (double)s->retry_flows < HS_OVERLOAD_SHARE * (double)s->attempts;
		/* tcp_syn_retries decides a give-up, not a retry that succeeded;
		 * a client that is not Linux has its own system's setting, and
		 * macOS none for a retry that succeeded (NULL ends the list) */
		const char *retries = k->kind == 1 ? "net.ipv4.tcp_syn_retries" : "net.ipv4.tcp_syn_linear_timeouts";
		if (k->client_os == PD_OS_APPLE)
			retries = k->kind == 1 ? "net.inet.tcp.keepinit" : NULL;
		else if (k->client_os == PD_OS_WINDOWS)
			retries = k->kind == 1 ? "netsh int tcp maxsynretransmissions" : "netsh int tcp initialrto";
		if (listener) {
			pd_finding_settings(f, "net.core.somaxconn", "listen() backlog", "accept loop",
					    "net.ipv4.tcp_max_syn_backlog", "net.netfilter.nf_conntrack_max",
					    "firewall dropping SYN/SYN-ACK", retries, NULL);
			if (s && s->aq_flows && f->detail)
				pd_finding_append(f,
						  "; the same listener dropped handshake ACKs (accept queue full) on %u "
						  "connection(s), and Linux also drops new SYNs while the accept queue is "
						  "full",
						  "；同一监听端在 %u 个连接上丢弃了握手 ACK（全连接队列已满），而全连接"
						  "队列满时 Linux 也会丢弃新的 SYN",
						  s->aq_flows);
		} else if (one_client) {
			pd_finding_settings(f, "firewall dropping SYN/SYN-ACK", "net.netfilter.nf_conntrack_max",
					    "net.core.somaxconn", "listen() backlog", "net.ipv4.tcp_max_syn_backlog",
					    retries, NULL);
			if (f->detail)
				pd_finding_append(f,
						  "; only this client retried toward the server in the capture: loss or "
						  "filtering on its path is more likely than an overloaded listener",
						  "；抓包中只有这个客户端向该服务端重试过：比起监听端过载，更可能是它"
						  "路径上的丢包或过滤");
		} else if (scattered) {
			pd_finding_settings(f, "firewall dropping SYN/SYN-ACK", "net.netfilter.nf_conntrack_max",
					    "net.core.somaxconn", "listen() backlog", "net.ipv4.tcp_max_syn_backlog",
					    retries, NULL);
			if (f->detail)
				pd_finding_append(f,
						  "; %u of the %llu connection attempts to this listener in the capture "
						  "retried (%.1f%%), never many at once: loss on the way is more likely "
						  "than an overloaded listener",
						  "；抓包中发往该监听端的 %2$llu 个建连尝试里有 %1$u 个重试过（%3$.1f%%），"
						  "而且从未集中出现：比起监听端过载，更可能是途中丢包",
						  s->retry_flows, (unsigned long long)s->attempts,
						  100.0 * s->retry_flows / (double)s->attempts);
		}
	}

	hs_pick pick = {0};
	pd_keytable_foreach(g->srv, hs_pick_cb, &pick);
	if (pick.overload)
		hs_report_overload(ctx, pick.overload);

	if (g->cookies && pick.cookies) {
		hs_srv *worst = pick.cookies;
		pd_addr_bracketed(&worst->addr, srv, sizeof(srv));
		pd_finding_metric(g->cookies, "synacks_without_options", worst->synack_stripped, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(g->cookies, "synacks_with_options", worst->synack_full, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_set_confidence(g->cookies, 0.7);
		pd_finding_detail(g->cookies,
				  "%s:%u answered %u SYN(s) without the timestamp option with a SYN-ACK lacking "
				  "window scaling and SACK although the client offered them, while %u other "
				  "SYN-ACK(s) from it carried them: the signature of SYN cookies (SYN queue "
				  "overflow; to a SYN with timestamps a cookie SYN-ACK keeps both, so such cookies "
				  "do not show here)",
				  "%1$s:%2$u 对 %3$u 个不带时间戳选项的 SYN 回复了不含窗口扩大和 SACK 的 SYN-ACK"
				  "（尽管客户端提供了这些选项），而它的另外 %4$u 个 SYN-ACK 带有这些选项：这是 "
				  "SYN cookie 的特征（半连接队列溢出；对带时间戳的 SYN，cookie SYN-ACK 会保留这两个"
				  "选项，因此这类 cookie 在这里看不出来）",
				  srv, worst->port, worst->synack_stripped, worst->synack_full);
	}
}

static const char *const hs_emits[] = {"syn-retransmit",	"syn-unanswered",    "synack-retransmit",
				       "accept-queue-overflow", "syncookies",	     "listener-overload",
				       "syn-rejected-icmp",	NULL};

const pd_detector pd_det_handshake = {
	.name = "handshake",
	.emits = hs_emits,
	.flow_state_size = sizeof(hs_fs),
	.global_state_size = sizeof(hs_g),
	.init = hs_init,
	.on_tcp = hs_on_tcp,
	.on_icmp_error = hs_on_icmp_error,
	.on_flow_end = hs_on_flow_end,
	.on_end = hs_on_end,
	.fini = hs_fini,
};
