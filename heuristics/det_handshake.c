/* Handshake diagnosis: SYN retransmits and their backoff schedule, connects
 * that never got a SYN-ACK, SYN-ACK retransmits (before or after the
 * client's ACK: the latter is Linux's accept-queue overflow), RSTs from
 * tcp_abort_on_overflow, SYN cookies (a SYN-ACK without the options the
 * same server grants elsewhere) and many clients retrying toward one
 * listener at once.
 *
 * Everything is measured from the packets: the retry gaps, the connect
 * time, whether the client gave up. Per-flow state is fixed-size; the
 * per-server table is a fixed array with eviction, so memory stays bounded
 * whatever the capture holds. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dissect/addr.h"
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
#define HS_MAX_FLOW_FINDINGS 2000 /* per id: beyond that, a flood, not a diagnosis */
#define HS_KEEP 4096 /* findings re-ranked at the end */
#define HS_DUP_NS (PD_NS_PER_SEC / 100) /* closer than this: the same packet twice */
#define HS_SYNACK_MIN_RTO (PD_NS_PER_SEC / 5)
#define HS_COOKIE_SILENCE (3 * PD_NS_PER_SEC / 2) /* past the first SYN-ACK retransmission */
#define HS_HIST_BUCKETS 1024 /* connect-time histogram, 2 % log steps from 10 us */

typedef struct hs_fs {
	/* First, together: what every SYN writes and every flow end reads
	 * (a flood's flows are cold by then; one cache line, not four). */
	uint32_t syns; /* client SYNs carrying the first ISN, the original included */
	uint32_t synacks;
	uint32_t synack_retx_before_ack, synack_retx_after_ack;
	uint64_t abort_rst_frame;
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
	/* SYN send times and frames as offsets from the first SYN (compact:
	 * this block exists for every flow, floods included) */
	pd_time syn0_ts;
	uint64_t syn0_frame;
	uint32_t syn_us[HS_MAX_SYNS];
	uint32_t syn_fr[HS_MAX_SYNS];
	uint32_t syn_tsv[HS_MAX_SYNS]; /* their TSvals, when syn_has_ts */
	uint32_t last_synack_ipid;
	pd_time last_synack_ts;
	uint64_t synack_after_ack_frame; /* first SYN-ACK re-sent after the client's ACK */
	pd_time synack_after_ack_ts;
	uint32_t dup_frames; /* the same packet captured twice */
	uint32_t syn_after_synack; /* client SYN retransmits after a SYN-ACK was seen */
	uint64_t synack_retx_frame; /* first SYN-ACK retransmit */
	pd_time synack_retx_ts;
	pd_time synack_last_before_ack_ts;
	uint32_t client_data_retx; /* client data resent while the server acked none */
	pd_time usable_ts; /* first server packet acking client data or carrying data */
	uint64_t usable_frame;
	pd_time abort_rst_ts;
	/* the first SYN-ACK: when, and whether it granted the options the
	 * client offered (1), stripped them (2), or cannot tell (0) */
	pd_time first_synack_ts;
	uint8_t synack_opt;
} hs_fs;

static pd_time hs_syn_ts(const hs_fs *fs, uint32_t i)
{
	return fs->syn0_ts + (pd_time)fs->syn_us[i] * 1000;
}

static uint64_t hs_syn_frame(const hs_fs *fs, uint32_t i)
{
	return fs->syn0_frame + fs->syn_fr[i];
}

/* The distinct clients that retransmitted a SYN toward a server in one
 * second of capture time. */
typedef struct hs_bucket {
	uint32_t ip[HS_BUCKET_IPS];
	uint8_t n;
	bool more;
} hs_bucket;

/* A flow that retransmitted its SYN toward a server. */
typedef struct hs_retry {
	pd_flow_key flow;
	uint64_t frame; /* its first SYN retransmission */
	pd_time ts;
} hs_retry;

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
	pd_time peak_ts;
	uint32_t syn_retx;
	uint32_t aq_flows; /* flows with accept-queue overflow */
	/* SYN cookies */
	uint32_t synack_full, synack_stripped;
	uint64_t stripped_frame; /* first stripped SYN-ACK not yet reported */
	pd_time stripped_ts;
	bool stripped_pending;
} hs_srv;

typedef struct hs_kept {
	pd_finding *f;
	pd_addr addr;
	uint16_t port;
	uint8_t kind; /* 0 syn-retransmit, 1 syn-unanswered, 2 silent server after the ACK */
	bool single_client_path; /* decided at the end */
} hs_kept;

typedef struct hs_g {
	pd_keytable *srv; /* hs_srv_key -> hs_srv */
	uint32_t n_buckets;
	hs_kept kept[HS_KEEP];
	size_t n_kept;
	uint32_t per_id[4]; /* per-flow findings created: retx, unanswered, synack, aq */
	uint64_t hist[HS_HIST_BUCKETS]; /* connect times */
	uint64_t hist_n;
	pd_finding *cookies;
} hs_g;

/* ------------------------------------------------------------ helpers */

static void hs_srv_evict(void *v)
{
	hs_srv *s = v;
	if (s->buckets)
		g_hash_table_destroy(s->buckets);
	if (s->retries)
		g_array_free(s->retries, TRUE);
	s->buckets = NULL;
	s->retries = NULL;
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
	g->srv = pd_keytable_new(sizeof(hs_srv_key), sizeof(hs_srv), HS_SRV_MAX, NULL, hs_srv_evict);
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

static void hs_keep(hs_g *g, pd_finding *f, const pd_flow *flow, uint8_t kind)
{
	for (size_t i = 0; i < g->n_kept; i++)
		if (g->kept[i].f == f)
			return;
	if (g->n_kept >= HS_KEEP)
		return;
	hs_kept *k = &g->kept[g->n_kept++];
	k->f = f;
	k->addr = flow->addr[PD_SERVER];
	k->port = flow->port[PD_SERVER];
	k->kind = kind;
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

/* "1.00, 1.02, 2.04 s" from the SYN times kept, and what the shape says. */
static void hs_schedule(const hs_fs *fs, char *buf, size_t len)
{
	size_t n = 0;
	uint32_t kept = fs->syns < HS_MAX_SYNS ? fs->syns : HS_MAX_SYNS;
	buf[0] = 0;
	for (uint32_t i = 1; i < kept && n + 16 < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%.2f", i > 1 ? ", " : "",
				      hs_sec(hs_syn_ts(fs, i) - hs_syn_ts(fs, i - 1)));
	if (fs->syns > HS_MAX_SYNS && n + 8 < len)
		n += (size_t)snprintf(buf + n, len - n, ", ...");
	if (n + 3 < len)
		n += (size_t)snprintf(buf + n, len - n, " s");
	bool dbl;
	uint32_t m = hs_equal_gaps(fs, &dbl);
	if (m >= 2 && n < len)
		snprintf(buf + n, len - n, " - equal at first: linear SYN timeouts, "
			 "net.ipv4.tcp_syn_linear_timeouts, Linux 6.5 or later");
	else if (dbl && n < len)
		snprintf(buf + n, len - n, " - doubling from the first: classic backoff, Linux before 6.5, "
			 "tcp_syn_linear_timeouts=0, or another system");
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

/* ------------------------------------------------------------- hooks */

/* The flow's SYN retransmissions, counted toward its server: which
 * clients retried in which second (listener overload), and which flows. */
static void hs_syn_retx(hs_g *g, const pd_flow *flow, const hs_fs *fs)
{
	hs_srv *s = hs_srv_get(g, &flow->addr[PD_SERVER], flow->port[PD_SERVER]);
	uint32_t ip = (uint32_t)pd_addr_hash64(&flow->addr[PD_CLIENT]);
	uint32_t retx = fs->syns - 1;
	s->syn_retx += retx;
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
 * and the first such second. */
static void hs_peak(hs_srv *s)
{
	s->peak_clients = 0;
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
		uint32_t seen[2 * HS_BUCKET_IPS], n = 0;
		for (int part = 0; part < 2; part++) {
			const hs_bucket *x = part ? b : a;
			for (uint8_t j = 0; x && j < x->n; j++) {
				bool dup = false;
				for (uint32_t m = 0; m < n; m++)
					dup |= seen[m] == x->ip[j];
				if (!dup)
					seen[n++] = x->ip[j];
			}
		}
		if (n > s->peak_clients) {
			s->peak_clients = n;
			s->peak_ts = sec * PD_NS_PER_SEC;
		}
	}
	g_array_free(secs, TRUE);
}

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

static void hs_on_tcp(pd_ctx *ctx, const pd_flow *flow, void *fsv, const pd_packet *pkt, const pd_seg *seg)
{
	(void)ctx;
	hs_fs *fs = fsv;
	const pd_tcp *t = &pkt->tcp;
	const uint8_t fl = t->flags;
	const bool syn = fl & PD_TCP_SYN, ack = fl & PD_TCP_ACK, rst = fl & PD_TCP_RST;

	if (seg->dir == PD_CLIENT) {
		if (syn && !ack) {
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
			if (!fs->syns)
				fs->first_syn_ipid = id;
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
			return;
		}
		fs->client_other = true;
		if (rst)
			fs->client_rst = true;
		if ((seg->flags & PD_SEG_RETRANS) && t->payload_len && !fs->usable_ts)
			fs->client_data_retx++;
		return;
	}

	/* server side */
	if (syn && ack) {
		uint32_t id = pkt->ip.version == 4 ? pkt->ip.ident : 0;
		if (fs->synacks && ((id && id == fs->last_synack_ipid) || pkt->ts - fs->last_synack_ts < HS_DUP_NS)) {
			fs->dup_frames++;
			return;
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
			if (!fs->synack_retx_frame) {
				fs->synack_retx_frame = pkt->frame_no;
				fs->synack_retx_ts = pkt->ts;
			}
			if (flow->hs_ack_frame && flow->hs_ack_frame < pkt->frame_no) {
				if (timer) {
					fs->synack_retx_after_ack++;
					if (!fs->synack_after_ack_frame) {
						fs->synack_after_ack_frame = pkt->frame_no;
						fs->synack_after_ack_ts = pkt->ts;
					}
				}
			} else if (timer) {
				fs->synack_retx_before_ack++;
			}
		}
		if (!flow->hs_ack_frame)
			fs->synack_last_before_ack_ts = pkt->ts;
		return;
	}
	if (rst) {
		if (!flow->synack_frame && !fs->rst_answer_frame)
			fs->rst_answer_frame = pkt->frame_no;
		/* tcp_abort_on_overflow: a bare RST (no ACK flag) whose seq is what the
		 * client's handshake ACK acknowledged, before the server said anything. */
		if (!ack && flow->hs_ack_frame && !fs->usable_ts && !fs->abort_rst_frame &&
		    flow->half[PD_SERVER].syn_seen && t->seq == flow->half[PD_SERVER].isn + 1) {
			fs->abort_rst_frame = pkt->frame_no;
			fs->abort_rst_ts = pkt->ts;
		}
		return;
	}
	if (!fs->usable_ts && flow->half[PD_CLIENT].syn_seen &&
	    (t->payload_len || (ack && pd_seq_lt(flow->half[PD_CLIENT].isn + 1, t->ack)))) {
		fs->usable_ts = pkt->ts;
		fs->usable_frame = pkt->frame_no;
	} else if (!fs->usable_ts && flow->hs_ack_frame && flow->hs_ack_frame < pkt->frame_no) {
		fs->server_spoke_after_ack = true;
	}
}

static void hs_accept_queue(pd_ctx *ctx, hs_g *g, const pd_flow *flow, hs_fs *fs)
{
	pd_finding *f = hs_flow_finding(ctx, g, "accept-queue-overflow", 3, flow);
	if (!f)
		return;
	hs_srv *s = hs_srv_get(g, &flow->addr[PD_SERVER], flow->port[PD_SERVER]);
	s->aq_flows++;
	if (fs->abort_rst_frame) {
		pd_finding_occurrence(f, flow->hs_ack_frame, flow->hs_ack_ts, "handshake ACK", NULL);
		pd_finding_occurrence(f, fs->abort_rst_frame, fs->abort_rst_ts, "RST right after the ACK", NULL);
		double after = hs_sec(fs->abort_rst_ts - flow->hs_ack_ts);
		pd_finding_metric(f, "rst_after_ack_ms", after * 1e3, PD_UNIT_MS, PD_AGG_MAX);
		pd_finding_metric(f, "synack_retransmits_after_ack", fs->synack_retx_after_ack, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_add_impact(f, hs_sec(fs->abort_rst_ts - flow->syn_ts));
		pd_finding_set_confidence(f, 0.8);
		pd_finding_detail(f,
				  "the server reset the connection %.1f ms after the client's handshake ACK "
				  "(frame %llu -> RST frame %llu, RST without ACK flag carrying the SYN-ACK's "
				  "sequence + 1) before sending any data: Linux does this when the accept queue "
				  "is full and net.ipv4.tcp_abort_on_overflow=1", NULL,
				  after * 1e3, (unsigned long long)flow->hs_ack_frame,
				  (unsigned long long)fs->abort_rst_frame);
		pd_finding_settings(f, "net.core.somaxconn", "listen() backlog", "accept loop",
				    "net.ipv4.tcp_abort_on_overflow", NULL);
		return;
	}
	pd_finding_occurrence(f, flow->hs_ack_frame, flow->hs_ack_ts, "handshake ACK", NULL);
	pd_finding_occurrence(f, fs->synack_after_ack_frame, fs->synack_after_ack_ts, "SYN-ACK resent after the ACK", NULL);
	pd_time stuck = (fs->usable_ts ? fs->usable_ts : flow->last_ts) - flow->hs_ack_ts;
	if (stuck < 0)
		stuck = 0;
	pd_finding_add_impact(f, hs_sec(stuck));
	pd_finding_metric(f, "synack_retransmits_after_ack", fs->synack_retx_after_ack, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "client_data_retransmits", fs->client_data_retx, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "stalled_s", hs_sec(stuck), PD_UNIT_S, PD_AGG_SUM);
	pd_finding_set_confidence(f, fs->client_data_retx ? 0.8 : 0.7);
	/* a client that sent nothing: a TCP_DEFER_ACCEPT listener also drops the
	 * bare ACK and re-sends its SYN-ACK when the deferring period ends */
	bool quiet = flow->half[PD_CLIENT].payload_bytes == 0;
	pd_finding_detail(f,
			  "the client ACKed the SYN-ACK (frame %llu) but the server re-sent its SYN-ACK %u "
			  "time(s) afterwards (first at frame %llu) and %s; the client re-sent its data %u "
			  "time(s) unanswered; the connection %s %.2f s after the ACK%s", NULL,
			  (unsigned long long)flow->hs_ack_frame, fs->synack_retx_after_ack,
			  (unsigned long long)fs->synack_after_ack_frame,
			  fs->usable_ts ? "later answered" : "never acknowledged any data", fs->client_data_retx,
			  fs->usable_ts ? "became usable" : "was still stuck when it ended,", hs_sec(stuck),
			  quiet ? "; the client sent no data, and a listener with TCP_DEFER_ACCEPT waiting for "
				  "it looks the same (on the server TcpExtTCPDeferAcceptDrop, not "
				  "TcpExtListenOverflows, counts that)"
				: "");
	if (quiet)
		pd_finding_settings(f, "net.core.somaxconn", "listen() backlog", "accept loop", "TCP_DEFER_ACCEPT",
				    "net.ipv4.tcp_abort_on_overflow", NULL);
	else
		pd_finding_settings(f, "net.core.somaxconn", "listen() backlog", "accept loop",
				    "net.ipv4.tcp_abort_on_overflow", NULL);
}

/* The handshake completed for the client, which then re-sent its data while
 * the server said nothing at all, not even a SYN-ACK retransmission (a
 * server holding a request socket re-sends its SYN-ACK after ~1 s): the
 * server kept no state, i.e. its SYN-ACK was a SYN cookie, and the ACK that
 * should have created the connection was dropped because the accept queue
 * was full. Path loss of the client's packets looks the same, so the
 * finding is kept only when the same listener overflowed on another flow
 * (decided in hs_on_end, kind 2). */
static void hs_cookie_stall(pd_ctx *ctx, hs_g *g, const pd_flow *flow, hs_fs *fs)
{
	pd_time end = fs->usable_ts ? fs->usable_ts : flow->last_ts;
	if (end - flow->synack_ts < HS_COOKIE_SILENCE)
		return;
	pd_finding *f = hs_flow_finding(ctx, g, "accept-queue-overflow", 3, flow);
	if (!f)
		return;
	pd_finding_occurrence(f, flow->hs_ack_frame, flow->hs_ack_ts, "handshake ACK", NULL);
	if (fs->usable_ts)
		pd_finding_occurrence(f, fs->usable_frame, fs->usable_ts, "first answer from the server", NULL);
	pd_time stuck = end - flow->hs_ack_ts;
	if (stuck < 0)
		stuck = 0;
	pd_finding_add_impact(f, hs_sec(stuck));
	pd_finding_metric(f, "synack_retransmits_after_ack", 0, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "client_data_retransmits", fs->client_data_retx, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "stalled_s", hs_sec(stuck), PD_UNIT_S, PD_AGG_SUM);
	pd_finding_set_confidence(f, 0.5);
	pd_finding_set_severity(f, PD_SEV_WARNING); /* inferred: no SYN-ACK retransmission to prove it */
	pd_finding_detail(f,
			  "the client ACKed the SYN-ACK (frame %llu) and re-sent its data %u time(s) while the "
			  "server sent nothing for %.2f s, not even a SYN-ACK retransmission (a server "
			  "holding the half-open connection re-sends its SYN-ACK after about 1 s); the "
			  "connection %s. The server kept no state for this handshake: its SYN-ACK was "
			  "probably a SYN cookie (SYN queue full, which with a small listen backlog "
			  "happens early) and the client's ACK was dropped because the accept queue was "
			  "full, as on this listener's other connections; or the client's packets were "
			  "lost on the path", NULL,
			  (unsigned long long)flow->hs_ack_frame, fs->client_data_retx, hs_sec(end - flow->synack_ts),
			  fs->usable_ts ? "was created late, when an ACK got through" : "never got an answer");
	/* not tcp_max_syn_backlog: with cookies on it decides nothing */
	pd_finding_settings(f, "net.core.somaxconn", "listen() backlog", "accept loop",
			    "net.ipv4.tcp_syncookies", NULL);
	hs_keep(g, f, flow, 2);
}

static void hs_on_flow_end(pd_ctx *ctx, void *gv, const pd_flow *flow, void *fsv)
{
	hs_g *g = gv;
	hs_fs *fs = fsv;
	if (flow->proto != 6 || flow->pseudo)
		return;
	/* what the flow adds to its server's picture */
	if (fs->synacks && flow->syn_frame)
		hs_hist_add(g, fs->first_synack_ts - flow->syn_ts);
	hs_synack_options(ctx, g, flow, fs);
	if (!flow->syn_frame || !fs->syns)
		return;
	if (fs->syns > 1)
		hs_syn_retx(g, flow, fs);
	pd_time now = pd_ctx_now(ctx);
	char buf[160];

	/* accept queue: SYN-ACK re-sent after the client's ACK, or the abort RST */
	if ((fs->synack_retx_after_ack && flow->hs_ack_frame) || fs->abort_rst_frame)
		hs_accept_queue(ctx, g, flow, fs);
	else if (flow->synack_frame && flow->hs_ack_frame && fs->synacks == 1 && !fs->server_spoke_after_ack &&
		 fs->client_data_retx >= 2 && !fs->client_rst)
		hs_cookie_stall(ctx, g, flow, fs);

	uint32_t retx = fs->syns - 1;
	bool real_client = fs->syns > 1 || fs->client_other;

	/* SYN-ACK retransmitted with no ACK captured before it, and not just an
	 * answer to a retransmitted SYN (that case is reported as SYN loss). */
	if (fs->synack_retx_before_ack && real_client && !fs->syn_after_synack && !fs->synack_retx_after_ack &&
	    !fs->abort_rst_frame) {
		pd_finding *f = hs_flow_finding(ctx, g, "synack-retransmit", 2, flow);
		if (f) {
			pd_finding_occurrence(f, flow->synack_frame, flow->synack_ts, "SYN-ACK", NULL);
			pd_finding_occurrence(f, fs->synack_retx_frame, fs->synack_retx_ts, "SYN-ACK retransmission", NULL);
			pd_time lost = flow->hs_ack_frame ? fs->synack_last_before_ack_ts - flow->synack_ts
							  : flow->last_ts - flow->synack_ts;
			if (lost < 0)
				lost = 0;
			pd_finding_add_impact(f, hs_sec(lost));
			pd_finding_metric(f, "synack_retransmits", fs->synack_retx_before_ack, PD_UNIT_COUNT, PD_AGG_SUM);
			pd_finding_metric(f, "delay_s", hs_sec(lost), PD_UNIT_S, PD_AGG_SUM);
			pd_finding_detail(f,
					  "the server re-sent its SYN-ACK %u time(s) (first at frame %llu) with no "
					  "ACK from the client captured before it; %s. On a capture taken at the "
					  "client, the SYN-ACK was answered and the ACK got lost on the way; at the "
					  "server, either the SYN-ACK or the ACK was lost", NULL,
					  fs->synack_retx_before_ack, (unsigned long long)fs->synack_retx_frame,
					  flow->hs_ack_frame ? "the handshake completed late" : "the handshake never completed");
			pd_finding_set_confidence(f, 0.6);
			pd_finding_settings(f, "firewall dropping SYN/SYN-ACK", "net.core.somaxconn",
					    "listen() backlog", "net.ipv4.tcp_synack_retries", NULL);
		}
	}

	if (!retx)
		return;
	if (fs->rst_answer_frame || (fs->client_rst && !flow->synack_frame))
		return; /* refused or aborted: the timestamps detector explains RSTs */

	/* Past the cap (a flood or a scan) there is nothing to print. */
	pd_finding *f = flow->synack_frame ? hs_flow_finding(ctx, g, "syn-retransmit", 0, flow)
					   : hs_flow_finding(ctx, g, "syn-unanswered", 1, flow);
	if (!f)
		return;
	char sched[224];
	hs_schedule(fs, sched, sizeof(sched));
	char srv[64];
	pd_addr_bracketed(&flow->addr[PD_SERVER], srv, sizeof(srv));

	if (flow->synack_frame) {
		uint32_t kept = fs->syns < HS_MAX_SYNS ? fs->syns : HS_MAX_SYNS;
		for (uint32_t i = 1; i < kept; i++) {
			snprintf(buf, sizeof(buf), "SYN retransmission #%u", i);
			pd_finding_occurrence(f, hs_syn_frame(fs, i), hs_syn_ts(fs, i), "%s", NULL, buf);
		}
		pd_finding_occurrence(f, flow->synack_frame, flow->synack_ts, "SYN-ACK", NULL);
		/* Added connect time: from the first SYN to the SYN that got answered
		 * (= first SYN to SYN-ACK minus one round trip). */
		pd_time added = fs->last_syn_ts - hs_syn_ts(fs, 0);
		if (added < 0)
			added = 0;
		pd_finding_add_impact(f, hs_sec(added));
		pd_finding_metric(f, "syn_retransmits", retx, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "connect_delay_s", hs_sec(added), PD_UNIT_S, PD_AGG_SUM);
		pd_finding_metric(f, "first_syn_to_synack_ms", (double)(flow->synack_ts - flow->syn_ts) / 1e6, PD_UNIT_MS, PD_AGG_MAX);
		hs_schedule_metrics(f, fs);
		pd_finding_metric(f, "synacks_captured", fs->synacks, PD_UNIT_COUNT, PD_AGG_SUM);
		if (fs->syn_after_synack)
			pd_finding_detail(f,
					  "the client sent its SYN %u times (gaps %s) although a SYN-ACK (frame "
					  "%llu) was captured: if this capture was taken at the client, its host "
					  "discarded the SYN-ACK (local firewall, conntrack, bad checksum); if at "
					  "the server, the SYN-ACK was lost on the way; connect took %.2f s longer", NULL,
					  fs->syns, sched, (unsigned long long)flow->synack_frame, hs_sec(added));
		else
			pd_finding_detail(f,
					  "the client sent its SYN %u times (retry gaps %s) before the SYN-ACK "
					  "(frame %llu) to %s:%u; connect took %.2f s longer than one round trip", NULL,
					  fs->syns, sched, (unsigned long long)flow->synack_frame, srv,
					  flow->port[PD_SERVER], hs_sec(added));
		/* The SYN-ACK echoes the TSval of an earlier SYN than the last one
		 * sent before it: that SYN reached the server and was answered,
		 * yet the client retried, so SYN-ACKs were lost on the way back. */
		uint32_t before = fs->syns - fs->syn_after_synack;
		if (fs->synack_echo && fs->synack_echo < before && fs->synack_echo < kept) {
			uint32_t e = fs->synack_echo - 1u;
			char which[40];
			if (e)
				snprintf(which, sizeof(which), "SYN retransmission #%u", e);
			else
				snprintf(which, sizeof(which), "the first SYN");
			pd_finding_metric(f, "syn_reached_server", e, PD_UNIT_COUNT, PD_AGG_SUM);
			pd_finding_append(f,
					  "; the SYN-ACK's TSecr echoes the TSval of %s (frame %llu), so that SYN "
					  "reached the server and was answered, yet the client retried %u more time(s): "
					  "SYN-ACKs were lost on the way back (path, or a firewall on the client host), "
					  "not only SYNs",
					  NULL, which, (unsigned long long)hs_syn_frame(fs, e), before - 1 - e);
		}
		pd_finding_set_confidence(f, 0.9);
		hs_keep(g, f, flow, 0);
		return;
	}

	/* No SYN-ACK ever: gave up, or the capture ended first. */
	uint32_t kept = fs->syns < HS_MAX_SYNS ? fs->syns : HS_MAX_SYNS;
	pd_finding_occurrence(f, flow->syn_frame, flow->syn_ts, "first SYN", NULL);
	for (uint32_t i = 1; i < kept; i++) {
		snprintf(buf, sizeof(buf), "SYN retransmission #%u", i);
		pd_finding_occurrence(f, hs_syn_frame(fs, i), hs_syn_ts(fs, i), "%s", NULL, buf);
	}
	if (fs->syns > kept)
		pd_finding_occurrence(f, fs->last_syn_frame, fs->last_syn_ts, "last SYN", NULL);
	pd_time last_gap = kept >= 2 ? hs_syn_ts(fs, kept - 1) - hs_syn_ts(fs, kept - 2) : PD_NS_PER_SEC;
	if (fs->syns > kept)
		last_gap = fs->last_syn_ts - hs_syn_ts(fs, kept - 1); /* at least this */
	pd_time silence = now - fs->last_syn_ts;
	/* The next retry comes at most twice the last gap later (linear phase: the
	 * same gap); silence well beyond that means the client stopped. */
	/* halved, not doubled: gaps come from capture clocks and may be huge */
	bool gave_up = silence / 2 > last_gap + PD_NS_PER_SEC / 4;
	pd_time lost = (gave_up ? fs->last_syn_ts : now) - flow->syn_ts;
	pd_finding_metric(f, "syn_retransmits", retx, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "time_trying_s", hs_sec(lost), PD_UNIT_S, PD_AGG_SUM);
	pd_finding_metric(f, "silence_after_last_syn_ms", (double)silence / 1e6, PD_UNIT_MS, PD_AGG_MAX);
	hs_schedule_metrics(f, fs);
	/* Linux stops at the first timeout after n = tcp_syn_retries
	 * retransmissions (n + tcp_syn_linear_timeouts since 6.5) or after a
	 * budget of (2^(n+1) - 1) initial RTOs, whichever comes first; before
	 * 6.5 the two coincide. The smallest n whose budget covers the retries
	 * seen: */
	int n_budget = 0;
	while (n_budget < 15 && (double)((2 << n_budget) - 1) < hs_sec(fs->last_syn_ts - hs_syn_ts(fs, 0)))
		n_budget++;
	pd_finding_metric(f, "syn_retries_budget_min", n_budget, PD_UNIT_COUNT, PD_AGG_MAX);
	/* The kernel sends a SYN at every timeout that fires before the budget
	 * is spent and fails at the first one after it, so a kernel give-up
	 * needs the budget to end before the next timeout (at most twice the
	 * last gap after the last SYN). A stop earlier than that (e.g. SYNs at
	 * 0,1,2,3,4,5,7 s then nothing: n=2 ends at 7 s, n=3 sends one more at
	 * 11 s) was the application's connect timeout or close. */
	pd_time rto0 = kept >= 2 ? hs_syn_ts(fs, 1) - hs_syn_ts(fs, 0) : PD_NS_PER_SEC;
	pd_time next_timeout = fs->last_syn_ts - flow->syn_ts + 2 * last_gap;
	bool app_stop = gave_up && kept >= 2 &&
			(pd_time)((2 << n_budget) - 1) * rto0 > next_timeout + rto0 / 2;
	if (app_stop) {
		pd_finding_metric(f, "app_stopped_by_s", hs_sec(next_timeout), PD_UNIT_S, PD_AGG_MAX);
		pd_finding_set_severity(f, PD_SEV_ERROR);
		pd_finding_set_confidence(f, 0.8);
		pd_finding_detail(f,
				  "no SYN-ACK from %s:%u: the client sent its SYN %u times (gaps %s) over "
				  "%.1f s and then stopped (%.1f s of silence, more than the next backoff) "
				  "after %u retransmissions. No net.ipv4.tcp_syn_retries value ends the "
				  "kernel's attempt there (it stops at the first timeout after n retransmissions, "
				  "n + tcp_syn_linear_timeouts since 6.5, or after about 2^(n+1)-1 initial RTOs, "
				  "whichever is first; the smallest n that covers these SYNs, n=%d, would have "
				  "sent another SYN first): the application's own connect timeout (or a "
				  "close) most likely ended it, between %.1f and %.1f s after the first SYN", NULL,
				  srv, flow->port[PD_SERVER], fs->syns, sched,
				  hs_sec(fs->last_syn_ts - flow->syn_ts), hs_sec(silence), retx, n_budget,
				  hs_sec(fs->last_syn_ts - flow->syn_ts), hs_sec(next_timeout));
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
		pd_time fail = fs->last_syn_ts - flow->syn_ts + next;
		if (fail > fs->last_syn_ts + silence - flow->syn_ts)
			fail = fs->last_syn_ts + silence - flow->syn_ts;
		pd_finding_metric(f, "connect_failed_after_s", hs_sec(fail), PD_UNIT_S, PD_AGG_MAX);
		lost = fail;
	}
	pd_finding_add_impact(f, hs_sec(lost));
	if (gave_up) {
		pd_finding_set_severity(f, PD_SEV_ERROR);
		pd_finding_set_confidence(f, 0.85);
		pd_finding_detail(f,
				  "no SYN-ACK from %s:%u: the client sent its SYN %u times (gaps %s) over "
				  "%.1f s and then stopped (%.1f s of silence, more than the next backoff): "
				  "it gave up after %u retransmissions. Linux stops at the first timeout after "
				  "net.ipv4.tcp_syn_retries=n retransmissions (n + tcp_syn_linear_timeouts since "
				  "6.5) or after about 2^(n+1)-1 initial RTOs, whichever is first: this fits n=%d, "
				  "so connect() failed about %.1f s after the first SYN (the next timeout), unless "
				  "the application's connect timeout fired first", NULL,
				  srv, flow->port[PD_SERVER], fs->syns, sched,
				  hs_sec(fs->last_syn_ts - flow->syn_ts), hs_sec(silence), retx, n_budget,
				  hs_sec(lost));
	} else {
		pd_finding_set_severity(f, PD_SEV_WARNING);
		pd_finding_set_confidence(f, 0.7);
		pd_finding_detail(f,
				  "no SYN-ACK from %s:%u: the client sent its SYN %u times (gaps %s) and was "
				  "still retrying when the flow ended (%.1f s after the first SYN; the capture "
				  "may have stopped before the outcome)", NULL,
				  srv, flow->port[PD_SERVER], fs->syns, sched, hs_sec(lost));
	}
	hs_keep(g, f, flow, 1);
}

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
	if (s->peak_clients >= HS_OVERLOAD_CLIENTS && (!p->overload || s->peak_clients > p->overload->peak_clients))
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
	pd_finding_metric(f, "clients_in_window", s->peak_clients, PD_UNIT_COUNT, PD_AGG_MAX);
	pd_finding_metric(f, "syn_retransmits", s->syn_retx, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "accept_queue_overflow_flows", s->aq_flows, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_set_confidence(f, s->aq_flows ? 0.85 : 0.65);
	pd_finding_detail(f,
			  "%u distinct clients retransmitted SYNs toward %s:%u within %.0f s (around "
			  "t=%.2f s); %u SYN retransmissions toward it in all%s", NULL,
			  s->peak_clients, srv, s->port, hs_sec(HS_OVERLOAD_WINDOW),
			  hs_sec(s->peak_ts - pd_ctx_start(ctx)), s->syn_retx,
			  s->aq_flows ? "; the same listener dropped handshake ACKs (accept queue full)" : "");
}

static void hs_on_end(pd_ctx *ctx, void *gv)
{
	hs_g *g = gv;
	double p50 = hs_hist_quantile(g, 0.5), p99 = hs_hist_quantile(g, 0.99);
	char srv[64];
	pd_keytable_foreach(g->srv, hs_peak_cb, NULL);

	/* Rank settings now that the whole capture is known: a listener that
	 * overflowed or many clients retrying at once point at the server;
	 * a single client retrying points at its path. */
	for (size_t i = 0; i < g->n_kept; i++) {
		hs_kept *k = &g->kept[i];
		hs_srv *s = hs_srv_find(g, &k->addr, k->port);
		pd_finding *f = k->f;
		if (k->kind == 2) {
			/* without another overflow on the listener, path loss is as likely */
			if (!(s && s->aq_flows))
				pd_finding_drop(ctx, f);
			continue;
		}
		if (k->kind == 0) {
			pd_finding_metric(f, "connect_p50_ms", p50 * 1e3, PD_UNIT_MS, PD_AGG_MAX);
			pd_finding_metric(f, "connect_p99_ms", p99 * 1e3, PD_UNIT_MS, PD_AGG_MAX);
		}
		/* on loopback there is no path to lose packets on */
		bool loopback = (k->addr.family == 4 && k->addr.bytes[0] == 127) ||
				(k->addr.family == 6 && k->addr.bytes[15] == 1 &&
				 !memcmp(k->addr.bytes, (const uint8_t[15]){0}, 15));
		bool listener = loopback || (s && (s->aq_flows || s->peak_clients >= HS_OVERLOAD_CLIENTS));
		bool one_client = s && s->n_clients <= 1 && !s->more_clients;
		/* tcp_syn_retries decides a give-up, not a retry that succeeded */
		const char *retries = k->kind == 1 ? "net.ipv4.tcp_syn_retries" : "net.ipv4.tcp_syn_linear_timeouts";
		if (listener) {
			pd_finding_settings(f, "net.core.somaxconn", "listen() backlog", "accept loop",
					    "net.ipv4.tcp_max_syn_backlog", "net.netfilter.nf_conntrack_max",
					    "firewall dropping SYN/SYN-ACK", retries, NULL);
			if (s && s->aq_flows && f->detail)
				pd_finding_append(f,
						  "; the same listener dropped handshake ACKs (accept queue full) on %u "
						  "connection(s), and Linux also drops new SYNs while the accept queue is "
						  "full",
						  NULL, s->aq_flows);
		} else if (one_client) {
			pd_finding_settings(f, "firewall dropping SYN/SYN-ACK", "net.netfilter.nf_conntrack_max",
					    "net.core.somaxconn", "listen() backlog", "net.ipv4.tcp_max_syn_backlog",
					    retries, NULL);
			if (f->detail)
				pd_finding_append(f,
						  "; only this client retried toward the server in the capture: loss or "
						  "filtering on its path is more likely than an overloaded listener",
						  NULL);
		}
	}

	hs_pick pick = {0};
	pd_keytable_foreach(g->srv, hs_pick_cb, &pick);
	if (pick.overload)
		hs_report_overload(ctx, pick.overload);

	if (g->cookies && pick.cookies) {
		hs_srv *worst = pick.cookies;
		if (worst) {
			pd_addr_bracketed(&worst->addr, srv, sizeof(srv));
			pd_finding_metric(g->cookies, "synacks_without_options", worst->synack_stripped, PD_UNIT_COUNT, PD_AGG_SUM);
			pd_finding_metric(g->cookies, "synacks_with_options", worst->synack_full, PD_UNIT_COUNT, PD_AGG_SUM);
			pd_finding_set_confidence(g->cookies, 0.7);
			pd_finding_detail(g->cookies,
					  "%s:%u answered %u SYN(s) without the timestamp option with a SYN-ACK "
					  "lacking window scaling and SACK although the client offered them, while %u "
					  "other SYN-ACK(s) from it carried them: the signature of SYN cookies (SYN "
					  "queue overflow; to a SYN with timestamps a cookie SYN-ACK keeps both, so "
					  "such cookies do not show here)", NULL,
					  srv, worst->port, worst->synack_stripped, worst->synack_full);
		}
	}
}

static const char *const hs_emits[] = {"syn-retransmit", "syn-unanswered", "synack-retransmit", "accept-queue-overflow",
				       "syncookies", "listener-overload", NULL};

const pd_detector pd_det_handshake = {
	.name = "handshake",
	.emits = hs_emits,
	.flow_state_size = sizeof(hs_fs),
	.global_state_size = sizeof(hs_g),
	.init = hs_init,
	.on_tcp = hs_on_tcp,
	.on_flow_end = hs_on_flow_end,
	.on_end = hs_on_end,
	.fini = hs_fini,
};
