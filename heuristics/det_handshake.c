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

#include "heuristics/detector.h"
#include "heuristics/util.h"

#define HS_MAX_SYNS 7 /* SYN send times kept per flow for the schedule */
#define HS_SRV_SLOTS 2048 /* server endpoints tracked (power of two) */
#define HS_SRV_PROBE 8
#define HS_RING 16 /* recent SYN retransmits per server (listener overload) */
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
} hs_fs;

static pd_time hs_syn_ts(const hs_fs *fs, uint32_t i)
{
	return fs->syn0_ts + (pd_time)fs->syn_us[i] * 1000;
}

static uint64_t hs_syn_frame(const hs_fs *fs, uint32_t i)
{
	return fs->syn0_frame + fs->syn_fr[i];
}

typedef struct hs_srv {
	bool used;
	pd_addr addr;
	uint16_t port;
	pd_time last_ts;
	/* listener overload: recent SYN retransmits and their clients */
	pd_time ev_ts[HS_RING];
	uint32_t ev_ip[HS_RING];
	uint8_t ev_pos, ev_n;
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
	pd_time now; /* latest capture time seen */
	hs_srv srv[HS_SRV_SLOTS];
	hs_kept kept[HS_KEEP];
	size_t n_kept;
	uint32_t per_id[4]; /* per-flow findings created: retx, unanswered, synack, aq */
	uint64_t hist[HS_HIST_BUCKETS]; /* connect times */
	uint64_t hist_n;
	pd_finding *overload, *cookies;
	hs_srv *overload_srv;
} hs_g;

/* ------------------------------------------------------------ helpers */

/* The entry for a server endpoint; evicts the least recently used slot of
 * the probe window when all are taken. */
static hs_srv *hs_srv_get(hs_g *g, const pd_addr *a, uint16_t port, pd_time now)
{
	uint32_t h = (pd_addr_fnv(a) ^ (port * 2654435761u)) & (HS_SRV_SLOTS - 1);
	hs_srv *victim = NULL;
	for (int i = 0; i < HS_SRV_PROBE; i++) {
		hs_srv *s = &g->srv[(h + (uint32_t)i) & (HS_SRV_SLOTS - 1)];
		if (s->used && s->port == port && pd_addr_same(&s->addr, a)) {
			s->last_ts = now;
			return s;
		}
		if (!s->used) {
			if (!victim || victim->used)
				victim = s;
		} else if (!victim || (victim->used && s->last_ts < victim->last_ts)) {
			victim = s;
		}
	}
	if (victim == g->overload_srv)
		g->overload_srv = NULL;
	memset(victim, 0, sizeof(*victim));
	victim->used = true;
	victim->addr = *a;
	victim->port = port;
	victim->last_ts = now;
	return victim;
}

static hs_srv *hs_srv_find(hs_g *g, const pd_addr *a, uint16_t port)
{
	uint32_t h = (pd_addr_fnv(a) ^ (port * 2654435761u)) & (HS_SRV_SLOTS - 1);
	for (int i = 0; i < HS_SRV_PROBE; i++) {
		hs_srv *s = &g->srv[(h + (uint32_t)i) & (HS_SRV_SLOTS - 1)];
		if (s->used && s->port == port && pd_addr_same(&s->addr, a))
			return s;
	}
	return NULL;
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
static pd_finding *hs_flow_finding(pd_run *run, hs_g *g, const char *id, int slot, const pd_flow *flow)
{
	if (g->per_id[slot] >= HS_MAX_FLOW_FINDINGS)
		return NULL;
	g->per_id[slot]++;
	return pd_finding_get(run, id, flow);
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
		pd_finding_metric(f, keys[i - 1], (double)(hs_syn_ts(fs, i) - hs_syn_ts(fs, i - 1)) / 1e6, "ms");
}

/* ------------------------------------------------------------- hooks */

static void hs_on_packet(pd_run *run, void *gv, const pd_packet *pkt)
{
	hs_g *g = gv;
	if (pkt->ts > g->now)
		g->now = pkt->ts;
}

/* Distinct client IPs among the server's SYN retransmits of the last window. */
static uint32_t hs_ring_distinct(const hs_srv *s, pd_time now)
{
	uint32_t seen[HS_RING], n = 0;
	for (uint32_t i = 0; i < s->ev_n; i++) {
		if (now - s->ev_ts[i] > HS_OVERLOAD_WINDOW)
			continue;
		bool dup = false;
		for (uint32_t j = 0; j < n; j++)
			dup |= seen[j] == s->ev_ip[i];
		if (!dup)
			seen[n++] = s->ev_ip[i];
	}
	return n;
}

static void hs_syn_retx(pd_run *run, hs_g *g, pd_flow *flow, const pd_packet *pkt)
{
	hs_srv *s = hs_srv_get(g, &flow->addr[PD_SERVER], flow->port[PD_SERVER], pkt->ts);
	uint32_t ip = pd_addr_fnv(&flow->addr[PD_CLIENT]);
	s->syn_retx++;
	s->ev_ts[s->ev_pos] = pkt->ts;
	s->ev_ip[s->ev_pos] = ip;
	s->ev_pos = (uint8_t)((s->ev_pos + 1) % HS_RING);
	if (s->ev_n < HS_RING)
		s->ev_n++;
	bool known = false;
	for (uint32_t i = 0; i < s->n_clients; i++)
		known |= s->clients[i] == ip;
	if (!known) {
		if (s->n_clients < 8)
			s->clients[s->n_clients++] = ip;
		else
			s->more_clients = true;
	}
	uint32_t d = hs_ring_distinct(s, pkt->ts);
	if (d > s->peak_clients) {
		s->peak_clients = d;
		s->peak_ts = pkt->ts;
	}
	if (s->peak_clients >= HS_OVERLOAD_CLIENTS) {
		if (!g->overload)
			g->overload = pd_finding_get(run, "listener-overload", NULL);
		if (!g->overload_srv || s->peak_clients > g->overload_srv->peak_clients)
			g->overload_srv = s;
		if (g->overload_srv == s) {
			pd_finding_add_flow(run, g->overload, flow);
			pd_finding_occurrence(g->overload, pkt, "SYN retransmission");
		}
	}
}

static void hs_synack_options(pd_run *run, hs_g *g, pd_flow *flow, hs_fs *fs, const pd_packet *pkt)
{
	const pd_tcp *t = &pkt->tcp;
	const pd_tcp_half *c = &flow->half[PD_CLIENT];
	if (t->options_truncated || !c->syn_seen)
		return;
	bool offered = c->wscale_offered >= 0 || c->sack_permitted;
	if (!offered)
		return;
	bool granted = (c->wscale_offered >= 0 && t->wscale >= 0) || (c->sack_permitted && t->sack_permitted);
	/* With the client's TS option a Linux cookie SYN-ACK keeps WS and SACK
	 * (encoded in its TSval); only without it are they dropped. Such
	 * SYN-ACKs still show what the server normally grants. */
	if (c->ts_offered && !granted)
		return;
	hs_srv *s = hs_srv_get(g, &flow->addr[PD_SERVER], flow->port[PD_SERVER], pkt->ts);
	if (granted) {
		s->synack_full++;
		if (s->stripped_pending) {
			/* The server grants options elsewhere: the earlier bare one was a cookie. */
			if (!g->cookies)
				g->cookies = pd_finding_get(run, "syncookies", NULL);
			pd_finding_occurrence_at(g->cookies, s->stripped_frame, s->stripped_ts,
						 "SYN-ACK without WS/SACK");
			s->stripped_pending = false;
		}
		return;
	}
	s->synack_stripped++;
	fs->stripped_synack = true;
	if (s->synack_full) {
		if (!g->cookies)
			g->cookies = pd_finding_get(run, "syncookies", NULL);
		pd_finding_add_flow(run, g->cookies, flow);
		pd_finding_occurrence(g->cookies, pkt, "SYN-ACK without WS/SACK");
	} else if (!s->stripped_pending && s->synack_stripped == 1) {
		s->stripped_pending = true;
		s->stripped_frame = pkt->frame_no;
		s->stripped_ts = pkt->ts;
	}
}

static void hs_on_tcp(pd_run *run, void *gv, pd_flow *flow, void *fsv, const pd_packet *pkt, const pd_seg *seg)
{
	hs_g *g = gv;
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
			if (fs->syns > 1) {
				if (flow->synack_frame)
					fs->syn_after_synack++;
				hs_syn_retx(run, g, flow, pkt);
			}
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
		if (fs->synacks == 1 && flow->syn_frame)
			hs_hist_add(g, pkt->ts - flow->syn_ts);
		if (fs->synacks == 1)
			hs_synack_options(run, g, flow, fs, pkt);
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

static void hs_accept_queue(pd_run *run, hs_g *g, pd_flow *flow, hs_fs *fs)
{
	pd_finding *f = hs_flow_finding(run, g, "accept-queue-overflow", 3, flow);
	if (!f)
		return;
	hs_srv *s = hs_srv_get(g, &flow->addr[PD_SERVER], flow->port[PD_SERVER], g->now);
	s->aq_flows++;
	if (fs->abort_rst_frame) {
		pd_finding_occurrence_at(f, flow->hs_ack_frame, flow->hs_ack_ts, "handshake ACK");
		pd_finding_occurrence_at(f, fs->abort_rst_frame, fs->abort_rst_ts, "RST right after the ACK");
		double after = hs_sec(fs->abort_rst_ts - flow->hs_ack_ts);
		pd_finding_metric(f, "rst_after_ack_ms", after * 1e3, "ms");
		pd_finding_metric(f, "synack_retransmits_after_ack", fs->synack_retx_after_ack, "count");
		f->impact_s += hs_sec(fs->abort_rst_ts - flow->syn_ts);
		f->confidence = 0.8;
		pd_finding_detail(f,
				  "the server reset the connection %.1f ms after the client's handshake ACK "
				  "(frame %llu -> RST frame %llu, RST without ACK flag carrying the SYN-ACK's "
				  "sequence + 1) before sending any data: Linux does this when the accept queue "
				  "is full and net.ipv4.tcp_abort_on_overflow=1",
				  after * 1e3, (unsigned long long)flow->hs_ack_frame,
				  (unsigned long long)fs->abort_rst_frame);
		pd_finding_settings(f, "net.core.somaxconn", "listen() backlog", "accept loop",
				    "net.ipv4.tcp_abort_on_overflow", NULL);
		return;
	}
	pd_finding_occurrence_at(f, flow->hs_ack_frame, flow->hs_ack_ts, "handshake ACK");
	pd_finding_occurrence_at(f, fs->synack_after_ack_frame, fs->synack_after_ack_ts, "SYN-ACK resent after the ACK");
	pd_time stuck = (fs->usable_ts ? fs->usable_ts : flow->last_ts) - flow->hs_ack_ts;
	if (stuck < 0)
		stuck = 0;
	f->impact_s += hs_sec(stuck);
	pd_finding_metric(f, "synack_retransmits_after_ack", fs->synack_retx_after_ack, "count");
	pd_finding_metric(f, "client_data_retransmits", fs->client_data_retx, "count");
	pd_finding_metric(f, "stalled_s", hs_sec(stuck), "s");
	f->confidence = fs->client_data_retx ? 0.8 : 0.7;
	/* a client that sent nothing: a TCP_DEFER_ACCEPT listener also drops the
	 * bare ACK and re-sends its SYN-ACK when the deferring period ends */
	bool quiet = flow->half[PD_CLIENT].payload_bytes == 0;
	pd_finding_detail(f,
			  "the client ACKed the SYN-ACK (frame %llu) but the server re-sent its SYN-ACK %u "
			  "time(s) afterwards (first at frame %llu) and %s; the client re-sent its data %u "
			  "time(s) unanswered; the connection %s %.2f s after the ACK%s",
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
static void hs_cookie_stall(pd_run *run, hs_g *g, pd_flow *flow, hs_fs *fs)
{
	pd_time end = fs->usable_ts ? fs->usable_ts : flow->last_ts;
	if (end - flow->synack_ts < HS_COOKIE_SILENCE)
		return;
	pd_finding *f = hs_flow_finding(run, g, "accept-queue-overflow", 3, flow);
	if (!f)
		return;
	pd_finding_occurrence_at(f, flow->hs_ack_frame, flow->hs_ack_ts, "handshake ACK");
	if (fs->usable_ts)
		pd_finding_occurrence_at(f, fs->usable_frame, fs->usable_ts, "first answer from the server");
	pd_time stuck = end - flow->hs_ack_ts;
	if (stuck < 0)
		stuck = 0;
	f->impact_s += hs_sec(stuck);
	pd_finding_metric(f, "synack_retransmits_after_ack", 0, "count");
	pd_finding_metric(f, "client_data_retransmits", fs->client_data_retx, "count");
	pd_finding_metric(f, "stalled_s", hs_sec(stuck), "s");
	f->confidence = 0.5;
	f->severity = PD_SEV_WARNING; /* inferred: no SYN-ACK retransmission to prove it */
	pd_finding_detail(f,
			  "the client ACKed the SYN-ACK (frame %llu) and re-sent its data %u time(s) while the "
			  "server sent nothing for %.2f s, not even a SYN-ACK retransmission (a server "
			  "holding the half-open connection re-sends its SYN-ACK after about 1 s); the "
			  "connection %s. The server kept no state for this handshake: its SYN-ACK was "
			  "probably a SYN cookie (SYN queue full, which with a small listen backlog "
			  "happens early) and the client's ACK was dropped because the accept queue was "
			  "full, as on this listener's other connections; or the client's packets were "
			  "lost on the path",
			  (unsigned long long)flow->hs_ack_frame, fs->client_data_retx, hs_sec(end - flow->synack_ts),
			  fs->usable_ts ? "was created late, when an ACK got through" : "never got an answer");
	/* not tcp_max_syn_backlog: with cookies on it decides nothing */
	pd_finding_settings(f, "net.core.somaxconn", "listen() backlog", "accept loop",
			    "net.ipv4.tcp_syncookies", NULL);
	hs_keep(g, f, flow, 2);
}

static void hs_on_flow_end(pd_run *run, void *gv, pd_flow *flow, void *fsv)
{
	hs_g *g = gv;
	hs_fs *fs = fsv;
	if (flow->proto != 6 || !flow->syn_frame || !fs->syns)
		return;
	char buf[160];

	/* accept queue: SYN-ACK re-sent after the client's ACK, or the abort RST */
	if ((fs->synack_retx_after_ack && flow->hs_ack_frame) || fs->abort_rst_frame)
		hs_accept_queue(run, g, flow, fs);
	else if (flow->synack_frame && flow->hs_ack_frame && fs->synacks == 1 && !fs->server_spoke_after_ack &&
		 fs->client_data_retx >= 2 && !fs->client_rst)
		hs_cookie_stall(run, g, flow, fs);

	uint32_t retx = fs->syns - 1;
	bool real_client = fs->syns > 1 || fs->client_other;

	/* SYN-ACK retransmitted with no ACK captured before it, and not just an
	 * answer to a retransmitted SYN (that case is reported as SYN loss). */
	if (fs->synack_retx_before_ack && real_client && !fs->syn_after_synack && !fs->synack_retx_after_ack &&
	    !fs->abort_rst_frame) {
		pd_finding *f = hs_flow_finding(run, g, "synack-retransmit", 2, flow);
		if (f) {
			pd_finding_occurrence_at(f, flow->synack_frame, flow->synack_ts, "SYN-ACK");
			pd_finding_occurrence_at(f, fs->synack_retx_frame, fs->synack_retx_ts, "SYN-ACK retransmission");
			pd_time lost = flow->hs_ack_frame ? fs->synack_last_before_ack_ts - flow->synack_ts
							  : flow->last_ts - flow->synack_ts;
			if (lost < 0)
				lost = 0;
			f->impact_s += hs_sec(lost);
			pd_finding_metric(f, "synack_retransmits", fs->synack_retx_before_ack, "count");
			pd_finding_metric(f, "delay_s", hs_sec(lost), "s");
			pd_finding_detail(f,
					  "the server re-sent its SYN-ACK %u time(s) (first at frame %llu) with no "
					  "ACK from the client captured before it; %s. On a capture taken at the "
					  "client, the SYN-ACK was answered and the ACK got lost on the way; at the "
					  "server, either the SYN-ACK or the ACK was lost",
					  fs->synack_retx_before_ack, (unsigned long long)fs->synack_retx_frame,
					  flow->hs_ack_frame ? "the handshake completed late" : "the handshake never completed");
			f->confidence = 0.6;
			pd_finding_settings(f, "firewall dropping SYN/SYN-ACK", "net.core.somaxconn",
					    "listen() backlog", "net.ipv4.tcp_synack_retries", NULL);
		}
	}

	if (!retx)
		return;
	if (fs->rst_answer_frame || (fs->client_rst && !flow->synack_frame))
		return; /* refused or aborted: the timestamps detector explains RSTs */

	/* Past the cap (a flood or a scan) there is nothing to print. */
	pd_finding *f = flow->synack_frame ? hs_flow_finding(run, g, "syn-retransmit", 0, flow)
					   : hs_flow_finding(run, g, "syn-unanswered", 1, flow);
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
			pd_finding_occurrence_at(f, hs_syn_frame(fs, i), hs_syn_ts(fs, i), buf);
		}
		pd_finding_occurrence_at(f, flow->synack_frame, flow->synack_ts, "SYN-ACK");
		/* Added connect time: from the first SYN to the SYN that got answered
		 * (= first SYN to SYN-ACK minus one round trip). */
		pd_time added = fs->last_syn_ts - hs_syn_ts(fs, 0);
		if (added < 0)
			added = 0;
		f->impact_s += hs_sec(added);
		pd_finding_metric(f, "syn_retransmits", retx, "count");
		pd_finding_metric(f, "connect_delay_s", hs_sec(added), "s");
		pd_finding_metric(f, "first_syn_to_synack_ms", (double)(flow->synack_ts - flow->syn_ts) / 1e6, "ms");
		hs_schedule_metrics(f, fs);
		pd_finding_metric(f, "synacks_captured", fs->synacks, "count");
		if (fs->syn_after_synack)
			pd_finding_detail(f,
					  "the client sent its SYN %u times (gaps %s) although a SYN-ACK (frame "
					  "%llu) was captured: if this capture was taken at the client, its host "
					  "discarded the SYN-ACK (local firewall, conntrack, bad checksum); if at "
					  "the server, the SYN-ACK was lost on the way; connect took %.2f s longer",
					  fs->syns, sched, (unsigned long long)flow->synack_frame, hs_sec(added));
		else
			pd_finding_detail(f,
					  "the client sent its SYN %u times (retry gaps %s) before the SYN-ACK "
					  "(frame %llu) to %s:%u; connect took %.2f s longer than one round trip",
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
			pd_finding_metric(f, "syn_reached_server", e, "count");
			char *d = g_strdup_printf(
				"%s; the SYN-ACK's TSecr echoes the TSval of %s (frame %llu), so that SYN "
				"reached the server and was answered, yet the client retried %u more time(s): "
				"SYN-ACKs were lost on the way back (path, or a firewall on the client host), "
				"not only SYNs",
				f->detail ? f->detail : "", which, (unsigned long long)hs_syn_frame(fs, e),
				before - 1 - e);
			g_free(f->detail);
			f->detail = d;
		}
		f->confidence = 0.9;
		hs_keep(g, f, flow, 0);
		return;
	}

	/* No SYN-ACK ever: gave up, or the capture ended first. */
	uint32_t kept = fs->syns < HS_MAX_SYNS ? fs->syns : HS_MAX_SYNS;
	pd_finding_occurrence_at(f, flow->syn_frame, flow->syn_ts, "first SYN");
	for (uint32_t i = 1; i < kept; i++) {
		snprintf(buf, sizeof(buf), "SYN retransmission #%u", i);
		pd_finding_occurrence_at(f, hs_syn_frame(fs, i), hs_syn_ts(fs, i), buf);
	}
	if (fs->syns > kept)
		pd_finding_occurrence_at(f, fs->last_syn_frame, fs->last_syn_ts, "last SYN");
	pd_time last_gap = kept >= 2 ? hs_syn_ts(fs, kept - 1) - hs_syn_ts(fs, kept - 2) : PD_NS_PER_SEC;
	if (fs->syns > kept)
		last_gap = fs->last_syn_ts - hs_syn_ts(fs, kept - 1); /* at least this */
	pd_time silence = g->now - fs->last_syn_ts;
	/* The next retry comes at most twice the last gap later (linear phase: the
	 * same gap); silence well beyond that means the client stopped. */
	/* halved, not doubled: gaps come from capture clocks and may be huge */
	bool gave_up = silence / 2 > last_gap + PD_NS_PER_SEC / 4;
	pd_time lost = (gave_up ? fs->last_syn_ts : g->now) - flow->syn_ts;
	pd_finding_metric(f, "syn_retransmits", retx, "count");
	pd_finding_metric(f, "time_trying_s", hs_sec(lost), "s");
	pd_finding_metric(f, "silence_after_last_syn_ms", (double)silence / 1e6, "ms");
	hs_schedule_metrics(f, fs);
	/* Linux stops at the first timeout after n = tcp_syn_retries
	 * retransmissions (n + tcp_syn_linear_timeouts since 6.5) or after a
	 * budget of (2^(n+1) - 1) initial RTOs, whichever comes first; before
	 * 6.5 the two coincide. The smallest n whose budget covers the retries
	 * seen: */
	int n_budget = 0;
	while (n_budget < 15 && (double)((2 << n_budget) - 1) < hs_sec(fs->last_syn_ts - hs_syn_ts(fs, 0)))
		n_budget++;
	pd_finding_metric(f, "syn_retries_budget_min", n_budget, "count");
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
		pd_finding_metric(f, "app_stopped_by_s", hs_sec(next_timeout), "s");
		f->severity = PD_SEV_ERROR;
		f->confidence = 0.8;
		pd_finding_detail(f,
				  "no SYN-ACK from %s:%u: the client sent its SYN %u times (gaps %s) over "
				  "%.1f s and then stopped (%.1f s of silence, more than the next backoff) "
				  "after %u retransmissions. No net.ipv4.tcp_syn_retries value ends the "
				  "kernel's attempt there (it stops at the first timeout after n retransmissions, "
				  "n + tcp_syn_linear_timeouts since 6.5, or after about 2^(n+1)-1 initial RTOs, "
				  "whichever is first; the smallest n that covers these SYNs, n=%d, would have "
				  "sent another SYN first): the application's own connect timeout (or a "
				  "close) most likely ended it, between %.1f and %.1f s after the first SYN",
				  srv, flow->port[PD_SERVER], fs->syns, sched,
				  hs_sec(fs->last_syn_ts - flow->syn_ts), hs_sec(silence), retx, n_budget,
				  hs_sec(fs->last_syn_ts - flow->syn_ts), hs_sec(next_timeout));
		f->impact_s += hs_sec(lost);
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
		pd_finding_metric(f, "connect_failed_after_s", hs_sec(fail), "s");
		lost = fail;
	}
	f->impact_s += hs_sec(lost);
	if (gave_up) {
		f->severity = PD_SEV_ERROR;
		f->confidence = 0.85;
		pd_finding_detail(f,
				  "no SYN-ACK from %s:%u: the client sent its SYN %u times (gaps %s) over "
				  "%.1f s and then stopped (%.1f s of silence, more than the next backoff): "
				  "it gave up after %u retransmissions. Linux stops at the first timeout after "
				  "net.ipv4.tcp_syn_retries=n retransmissions (n + tcp_syn_linear_timeouts since "
				  "6.5) or after about 2^(n+1)-1 initial RTOs, whichever is first: this fits n=%d, "
				  "so connect() failed about %.1f s after the first SYN (the next timeout), unless "
				  "the application's connect timeout fired first",
				  srv, flow->port[PD_SERVER], fs->syns, sched,
				  hs_sec(fs->last_syn_ts - flow->syn_ts), hs_sec(silence), retx, n_budget,
				  hs_sec(lost));
	} else {
		f->severity = PD_SEV_WARNING;
		f->confidence = 0.7;
		pd_finding_detail(f,
				  "no SYN-ACK from %s:%u: the client sent its SYN %u times (gaps %s) and was "
				  "still retrying when the flow ended (%.1f s after the first SYN; the capture "
				  "may have stopped before the outcome)",
				  srv, flow->port[PD_SERVER], fs->syns, sched, hs_sec(lost));
	}
	hs_keep(g, f, flow, 1);
}

static void hs_on_end(pd_run *run, void *gv)
{
	hs_g *g = gv;
	double p50 = hs_hist_quantile(g, 0.5), p99 = hs_hist_quantile(g, 0.99);
	char srv[64];

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
				pd_finding_drop(run, f);
			continue;
		}
		if (k->kind == 0) {
			pd_finding_metric(f, "connect_p50_ms", p50 * 1e3, "ms");
			pd_finding_metric(f, "connect_p99_ms", p99 * 1e3, "ms");
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
			if (s && s->aq_flows && f->detail) {
				char *d = g_strdup_printf("%s; the same listener dropped handshake ACKs (accept "
							  "queue full) on %u connection(s), and Linux also drops new "
							  "SYNs while the accept queue is full",
							  f->detail, s->aq_flows);
				g_free(f->detail);
				f->detail = d;
			}
		} else if (one_client) {
			pd_finding_settings(f, "firewall dropping SYN/SYN-ACK", "net.netfilter.nf_conntrack_max",
					    "net.core.somaxconn", "listen() backlog", "net.ipv4.tcp_max_syn_backlog",
					    retries, NULL);
			if (f->detail) {
				char *d = g_strdup_printf("%s; only this client retried toward the server in "
							  "the capture: loss or filtering on its path is more "
							  "likely than an overloaded listener",
							  f->detail);
				g_free(f->detail);
				f->detail = d;
			}
		}
	}

	if (g->overload && g->overload_srv) {
		hs_srv *s = g->overload_srv;
		pd_addr_bracketed(&s->addr, srv, sizeof(srv));
		pd_finding *f = g->overload;
		pd_finding_metric(f, "clients_in_window", s->peak_clients, "count");
		pd_finding_metric(f, "syn_retransmits", s->syn_retx, "count");
		pd_finding_metric(f, "accept_queue_overflow_flows", s->aq_flows, "count");
		f->confidence = s->aq_flows ? 0.85 : 0.65;
		pd_finding_detail(f,
				  "%u distinct clients retransmitted SYNs toward %s:%u within %.0f s (around "
				  "t=%.2f s); %u SYN retransmissions toward it in all%s",
				  s->peak_clients, srv, s->port, hs_sec(HS_OVERLOAD_WINDOW),
				  hs_sec(s->peak_ts - pd_run_first_ts(run)), s->syn_retx,
				  s->aq_flows ? "; the same listener dropped handshake ACKs (accept queue full)" : "");
	} else if (g->overload) {
		pd_finding_detail(g->overload, "several clients retransmitted SYNs toward one server endpoint "
						"within %.0f s", hs_sec(HS_OVERLOAD_WINDOW));
	}

	if (g->cookies) {
		hs_srv *worst = NULL;
		for (size_t i = 0; i < HS_SRV_SLOTS; i++) {
			hs_srv *s = &g->srv[i];
			if (s->used && s->synack_full && s->synack_stripped &&
			    (!worst || s->synack_stripped > worst->synack_stripped))
				worst = s;
		}
		if (worst) {
			pd_addr_bracketed(&worst->addr, srv, sizeof(srv));
			pd_finding_metric(g->cookies, "synacks_without_options", worst->synack_stripped, "count");
			pd_finding_metric(g->cookies, "synacks_with_options", worst->synack_full, "count");
			g->cookies->confidence = 0.7;
			pd_finding_detail(g->cookies,
					  "%s:%u answered %u SYN(s) without the timestamp option with a SYN-ACK "
					  "lacking window scaling and SACK although the client offered them, while %u "
					  "other SYN-ACK(s) from it carried them: the signature of SYN cookies (SYN "
					  "queue overflow; to a SYN with timestamps a cookie SYN-ACK keeps both, so "
					  "such cookies do not show here)",
					  srv, worst->port, worst->synack_stripped, worst->synack_full);
		}
	}
}

const pd_detector pd_det_handshake = {
	.name = "handshake",
	.flow_state_size = sizeof(hs_fs),
	.cost = 2,
	.global_state_size = sizeof(hs_g),
	.on_packet = hs_on_packet,
	.on_tcp = hs_on_tcp,
	.on_flow_end = hs_on_flow_end,
	.on_end = hs_on_end,
};
