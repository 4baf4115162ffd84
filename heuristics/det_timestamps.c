/* What answered a SYN that carried the timestamp option, when it was not a
 * SYN-ACK:
 *  - a bare ACK for an earlier connection (a challenge ACK), usually
 *    followed by the client's RST and a retry: PAWS when the SYN's TSval
 *    is older than the last one that connection saw -> paws-rejected-syn;
 *    otherwise the server (TIME_WAIT after it closed first, or a
 *    connection still open) or a middlebox still held state for the
 *    reused 4-tuple: a sequence check, not timestamps ->
 *    syn-rejected-existing-state;
 *  - RST|ACK acknowledging ISN+1 -> rst-closed-port (no listener or a
 *    middlebox, not a timestamp problem);
 * and, across connections, SYN TSvals from one source IP to one destination
 * IP that follow several unrelated clocks -> nat-timestamp-clocks. Linux
 * 4.11 and later drew one TS offset per (saddr, daddr) pair, so SYNs
 * from one host to one destination share a clock; several interleaved
 * clocks mean several hosts behind the address. Recent kernels (6.18
 * observed, testdata/captures/nat-ts-clocks) key the offset on the whole
 * 4-tuple: every new connection looks like a new clock (seen once), so
 * hosts behind NAT cannot be told apart and nothing is reported; only a
 * clock heard at least twice counts, which keeps such random offsets from
 * forming false clusters.
 *
 * Recently finished 4-tuples are kept 60 s of capture time (TIME_WAIT) in a
 * bounded table (the least recently used gives way); so are the clock
 * clusters per (source, destination) pair. */
#include <stdio.h>
#include <string.h>

#include "heuristics/detector.h"
#include "heuristics/keytable.h"
#include "heuristics/util.h"

#define TS_TW_NS (60 * PD_NS_PER_SEC) /* TCP_TIMEWAIT_LEN */
#define TS_TUPLE_SLOTS 16384
#define TS_PAIRS 4096
#define TS_CLUSTERS 4
#define TS_MAX_RATE_HZ 1100.0 /* 1 kHz clocks plus margin */
#define TS_SLACK_TICKS 200 /* jitter between SYN send and capture */

enum { TS_ANS_NONE = 0, TS_ANS_SYNACK, TS_ANS_RST_ISN, TS_ANS_CHALLENGE, TS_ANS_RST_OTHER };

/* How a 4-tuple's last connection ended. */
enum { TS_END_OPEN = 0, TS_END_SERVER_FIRST, TS_END_CLIENT_FIRST, TS_END_RESET };

typedef struct ts_tuple {
	pd_time end_ts;
	uint8_t how; /* TS_END_*: who closed it, which decides who holds TIME_WAIT */
	bool c_ts_known;
	uint32_t c_tsval; /* the client's last TSval on the connection */
	uint32_t c_next_seq;
	pd_finding *pending; /* a rejected SYN waiting for its retry */
	pd_time pending_syn_ts;
} ts_tuple;

typedef struct ts_cluster {
	pd_time t0, tl;
	uint32_t vl;
	uint32_t n;
} ts_cluster;

/* A (client, server) address pair, the key of the clock clusters. */
typedef struct ts_pair_key {
	pd_addr src, dst;
} ts_pair_key;

typedef struct ts_pair {
	pd_addr src, dst;
	ts_cluster cl[TS_CLUSTERS];
	uint8_t ncl;
	uint32_t clocks_seen; /* clusters ever opened */
	uint32_t syns;
	uint32_t failures; /* SYNs from the pair that were retried, rejected or unanswered */
	bool flagged;
	uint32_t concurrent; /* most clusters active together */
} ts_pair;

typedef struct ts_fs {
	/* First, together: what each packet and every flow end look at (one
	 * cache line of a flow that is cold when it ends). */
	bool syn_seen, syn_has_ts;
	uint8_t answer;
	bool tsv_seen[2];
	bool reused;
	bool prev_ts_known;
	uint32_t syn_tsval;
	uint32_t tsv_last[2];
	uint64_t syn_frame;
	pd_time syn_ts;
	pd_time prev_end;
	uint32_t prev_tsval, prev_next_seq;
	uint32_t answer_ack;
	uint32_t retry_us; /* the client's SYN again after the challenge: us after the first */
	pd_finding *retry_of;
	pd_time retry_of_syn_ts;
	uint64_t answer_frame;
	pd_time answer_ts;
	uint64_t client_rst_frame;
	/* ... and its frame, as an offset from the first SYN's (0: none), on
	 * this same flow; whether a SYN-ACK answered it */
	uint32_t retry_fr;
	bool retry_answered;
	uint8_t prev_how; /* TS_END_* of the 4-tuple's previous connection */
	uint8_t first_fin; /* 0 none, 1 client, 2 server */
} ts_fs;

typedef struct ts_g {
	pd_keytable *tuples; /* pd_tuple_key -> ts_tuple */
	pd_keytable *pairs; /* ts_pair_key -> ts_pair */
	pd_finding *closed, *nat;
	ts_pair *nat_pair; /* the worst pair, for the detail */
	uint32_t closed_ports[8];
	uint8_t n_closed_ports;
	uint32_t closed_count;
	uint32_t closed_retried; /* connections whose client sent its SYN again after the reset */
} ts_g;

/* A pair whose SYNs showed several clocks stays: it is what gets reported. */
static bool ts_pair_keep(const void *v)
{
	return ((const ts_pair *)v)->flagged;
}

static void ts_pair_evict(void *v, void *gv)
{
	ts_g *g = gv;
	if (g->nat_pair == v)
		g->nat_pair = NULL;
}

static void ts_init(pd_ctx *ctx, void *gv)
{
	(void)ctx;
	ts_g *g = gv;
	g->tuples = pd_keytable_new(sizeof(pd_tuple_key), sizeof(ts_tuple), TS_TUPLE_SLOTS, NULL, NULL, NULL);
	g->pairs = pd_keytable_new(sizeof(ts_pair_key), sizeof(ts_pair), TS_PAIRS, ts_pair_keep, ts_pair_evict, g);
}

static void ts_fini(void *gv)
{
	ts_g *g = gv;
	pd_keytable_free(g->tuples);
	pd_keytable_free(g->pairs);
}

/* The entry of a 4-tuple that ended less than 60 s before now, if any. */
static ts_tuple *ts_tuple_find(ts_g *g, const pd_flow *f, pd_time now)
{
	pd_tuple_key k;
	pd_tuple_key_of(&k, f);
	ts_tuple *t = pd_keytable_find(g->tuples, &k);
	return t && now - t->end_ts <= TS_TW_NS ? t : NULL;
}

/* Slot for a finished 4-tuple: its own, a free or expired one, else the
 * oldest; its end_ts becomes now. */
static ts_tuple *ts_tuple_slot(ts_g *g, const pd_flow *f, pd_time now)
{
	pd_tuple_key k;
	pd_tuple_key_of(&k, f);
	bool made;
	ts_tuple *t = pd_keytable_get(g->tuples, &k, &made);
	if (!made && now - t->end_ts > TS_TW_NS)
		made = true; /* long over: start afresh */
	if (made)
		memset(t, 0, sizeof(*t));
	t->end_ts = now;
	return t;
}

/* The flow's (client, server) entry, made when absent (the least recently
 * used unflagged pair gives way). */
static ts_pair *ts_pair_get(ts_g *g, const pd_flow *f)
{
	ts_pair_key k;
	memset(&k, 0, sizeof(k));
	k.src = f->addr[PD_CLIENT];
	k.dst = f->addr[PD_SERVER];
	bool made;
	ts_pair *p = pd_keytable_get(g->pairs, &k, &made);
	if (made) {
		p->src = k.src;
		p->dst = k.dst;
	}
	return p;
}

/* Can (t, v) come from the clock that last said vl at tl? Any rate from
 * about 1 Hz to 1 kHz, plus jitter. Unrelated random offsets land inside
 * that band with probability ~ band / 2^32. */
static bool ts_same_clock(const ts_cluster *c, pd_time t, uint32_t v)
{
	double dt = (double)(t - c->tl) / 1e9;
	if (dt < 0)
		dt = -dt;
	int64_t dv = (int32_t)(v - c->vl);
	if (t < c->tl)
		dv = -dv;
	if (dv < -TS_SLACK_TICKS)
		return false;
	if ((double)dv > TS_MAX_RATE_HZ * dt + TS_SLACK_TICKS)
		return false;
	if (dt > 30 && (double)dv < 0.5 * dt - TS_SLACK_TICKS)
		return false; /* a clock that stood still for long is not a clock */
	return true;
}

/* Returns the pair's entry. */
static ts_pair *ts_nat_syn(pd_ctx *ctx, ts_g *g, const pd_flow *flow, const ts_fs *fs)
{
	pd_time ts = fs->syn_ts;
	ts_pair *p = ts_pair_get(g, flow);
	uint32_t v = fs->syn_tsval;
	p->syns++;
	int hit = -1;
	for (int i = 0; i < p->ncl; i++)
		if (ts_same_clock(&p->cl[i], ts, v)) {
			hit = i;
			break;
		}
	if (hit < 0) {
		int slot = p->ncl;
		if (p->ncl < TS_CLUSTERS) {
			p->ncl++;
		} else {
			slot = 0; /* replace the clock heard from least recently */
			for (int i = 1; i < TS_CLUSTERS; i++)
				if (p->cl[i].tl < p->cl[slot].tl)
					slot = i;
		}
		p->cl[slot] = (ts_cluster){.t0 = ts, .tl = ts, .vl = v, .n = 1};
		p->clocks_seen++;
		return p;
	}
	ts_cluster *c = &p->cl[hit];
	c->tl = ts;
	c->vl = v;
	c->n++;
	/* Clocks that overlap in time (each seen at least twice): several hosts
	 * at once, not one host that rebooted. */
	uint32_t active = 1;
	for (int i = 0; i < p->ncl; i++)
		if (i != hit && p->cl[i].n >= 2 && p->cl[i].t0 < c->tl && c->t0 < p->cl[i].tl)
			active++;
	if (c->n >= 2 && active > p->concurrent)
		p->concurrent = active;
	if (p->concurrent >= 2) {
		if (!g->nat)
			g->nat = pd_finding_get(ctx, "nat-timestamp-clocks", NULL);
		p->flagged = true;
		if (!g->nat_pair || p->concurrent > g->nat_pair->concurrent)
			g->nat_pair = p;
		pd_finding_add_flow(ctx, g->nat, flow);
		pd_finding_occurrence(g->nat, fs->syn_frame, ts, "SYN TSval from another clock",
				      "来自另一个时钟的 SYN TSval");
	}
	return p;
}

static void ts_on_tcp(pd_ctx *ctx, const pd_flow *flow, void *fsv, const pd_packet *pkt, const pd_seg *seg)
{
	(void)ctx;
	ts_fs *fs = fsv;
	const pd_tcp *t = &pkt->tcp;
	const uint8_t fl = t->flags;
	const bool syn = fl & PD_TCP_SYN, ack = fl & PD_TCP_ACK, rst = fl & PD_TCP_RST;

	if (t->has_ts) {
		fs->tsv_seen[seg->dir] = true;
		fs->tsv_last[seg->dir] = t->tsval;
	}
	if ((fl & PD_TCP_FIN) && !fs->first_fin)
		fs->first_fin = (uint8_t)(seg->dir + 1);
	if (seg->dir == PD_CLIENT) {
		if (syn && !ack && !fs->syn_seen) {
			fs->syn_seen = true;
			fs->syn_has_ts = t->has_ts;
			fs->syn_tsval = t->tsval;
			fs->syn_frame = pkt->frame_no;
			fs->syn_ts = pkt->ts;
		} else if (rst && fs->answer == TS_ANS_CHALLENGE && !fs->client_rst_frame) {
			fs->client_rst_frame = pkt->frame_no;
		} else if (syn && !ack && fs->answer == TS_ANS_CHALLENGE && !fs->retry_fr) {
			uint64_t fr = pkt->frame_no - fs->syn_frame;
			pd_time us = (pkt->ts - fs->syn_ts) / 1000;
			fs->retry_fr = fr > UINT32_MAX ? UINT32_MAX : (uint32_t)fr;
			fs->retry_us = us < 0 ? 0 : us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
		}
		return;
	}
	if (syn && ack && fs->retry_fr)
		fs->retry_answered = true;
	if (!fs->syn_seen || fs->answer != TS_ANS_NONE)
		return;
	const pd_tcp_half *c = &flow->half[PD_CLIENT];
	/* Only a first answer counts: once the client sent more than SYNs, a
	 * SYN-ACK existed even if the capture missed it. */
	if (c->pkts != c->syn_count)
		return;
	if (syn && ack)
		fs->answer = TS_ANS_SYNACK;
	else if (rst && ack && t->ack == c->isn + 1)
		fs->answer = TS_ANS_RST_ISN;
	else if (rst)
		fs->answer = TS_ANS_RST_OTHER;
	else if (ack && !syn && t->ack != c->isn + 1)
		fs->answer = TS_ANS_CHALLENGE; /* ACK for another connection: TIME_WAIT */
	else
		return;
	fs->answer_frame = pkt->frame_no;
	fs->answer_ts = pkt->ts;
	fs->answer_ack = t->ack;
}

/* What the 4-tuple's previous connection left (its end came before this
 * connection's SYN: a 4-tuple holds one connection at a time), the clock
 * its SYN shows, and the cost of a rejected SYN this one retried. */
/* Returns the (client, server) entry the SYN counted in, NULL when it had
 * no timestamp. */
static ts_pair *ts_syn(pd_ctx *ctx, ts_g *g, const pd_flow *flow, ts_fs *fs)
{
	ts_tuple *tu = ts_tuple_find(g, flow, fs->syn_ts);
	if (tu) {
		fs->reused = true;
		fs->prev_how = tu->how;
		fs->prev_end = tu->end_ts;
		fs->prev_ts_known = tu->c_ts_known;
		fs->prev_tsval = tu->c_tsval;
		fs->prev_next_seq = tu->c_next_seq;
		if (tu->pending) {
			fs->retry_of = tu->pending;
			fs->retry_of_syn_ts = tu->pending_syn_ts;
			tu->pending = NULL;
		}
	}
	ts_pair *pair = fs->syn_has_ts ? ts_nat_syn(ctx, g, flow, fs) : NULL;
	if (fs->answer == TS_ANS_SYNACK && fs->retry_of) {
		/* The retry of a rejected SYN got through: the wait is the cost. */
		double wait = (double)(fs->syn_ts - fs->retry_of_syn_ts) / 1e9;
		pd_finding_add_impact(fs->retry_of, wait);
		pd_finding_metric(fs->retry_of, "retry_after_s", wait, PD_UNIT_S, PD_AGG_MAX);
		pd_finding_append(fs->retry_of, "; the retry on the same 4-tuple %.2f s later (frame %llu) succeeded",
				  "；%.2f 秒后在同一四元组上的重试（帧 %llu）成功了", wait,
				  (unsigned long long)fs->syn_frame);
		fs->retry_of = NULL;
	}
	return pair;
}

/* The client reset the challenge ACK and retried on the same flow: what
 * the rejection cost, or that it had to retry. */
static void ts_outcome(pd_finding *f, const ts_fs *fs)
{
	if (fs->client_rst_frame)
		pd_finding_occurrence(f, fs->client_rst_frame, fs->answer_ts, "client RST", "客户端 RST");
	if (fs->retry_fr && fs->retry_answered) {
		double wait = (double)fs->retry_us / 1e6;
		pd_finding_occurrence(f, fs->syn_frame + fs->retry_fr, fs->syn_ts + (pd_time)fs->retry_us * 1000,
				      "SYN retry", "重试的 SYN");
		pd_finding_add_impact(f, wait);
		pd_finding_metric(f, "retry_after_s", wait, PD_UNIT_S, PD_AGG_MAX);
		if (fs->client_rst_frame)
			pd_finding_append(f, "; the client reset it (frame %llu) and its retry %.1f ms later succeeded",
					  "；客户端将其重置（帧 %llu），%.1f 毫秒后的重试成功了",
					  (unsigned long long)fs->client_rst_frame, wait * 1e3);
		else
			pd_finding_append(f, "; the client's retry %.1f ms later succeeded",
					  "；客户端 %.1f 毫秒后的重试成功了", wait * 1e3);
	} else if (fs->client_rst_frame) {
		pd_finding_append(f, "; the client reset it (frame %llu) and had to retry",
				  "；客户端将其重置（帧 %llu），只好重试", (unsigned long long)fs->client_rst_frame);
	}
}

/* The SYN's TSval is older than the last one the previous connection on
 * the 4-tuple carried: the server's TIME_WAIT failed the PAWS check. */
static pd_finding *ts_paws(pd_ctx *ctx, const pd_flow *flow, ts_fs *fs)
{
	pd_finding *f = pd_finding_get(ctx, "paws-rejected-syn", flow);
	char srv[64];
	pd_addr_bracketed(&flow->addr[PD_SERVER], srv, sizeof(srv));
	pd_finding_occurrence(f, fs->syn_frame, fs->syn_ts, "SYN on a reused 4-tuple", "复用四元组的 SYN");
	pd_finding_occurrence(f, fs->answer_frame, fs->answer_ts, "ACK for the old connection", "旧连接的 ACK");
	double since = (double)(fs->syn_ts - fs->prev_end) / 1e9;
	pd_finding_set_severity(f, PD_SEV_ERROR);
	pd_finding_metric(f, "syn_tsval", fs->syn_tsval, PD_UNIT_TICKS, PD_AGG_MAX);
	pd_finding_metric(f, "previous_tsval", fs->prev_tsval, PD_UNIT_TICKS, PD_AGG_MAX);
	pd_finding_metric(f, "tsval_behind", -(double)pd_seq_diff(fs->syn_tsval, fs->prev_tsval), PD_UNIT_TICKS,
			  PD_AGG_MAX);
	pd_finding_metric(f, "since_previous_end_s", since, PD_UNIT_S, PD_AGG_MAX);
	pd_finding_set_confidence(f, 0.9);
	pd_finding_detail(f,
			  "SYN (frame %llu) to %s:%u from port %u reused the 4-tuple %.2f s after the previous "
			  "connection on it ended; its TSval %u is %u ticks older than that connection's last "
			  "TSval %u, so the server's TIME_WAIT socket failed the PAWS check and answered with an "
			  "ACK for the old connection (frame %llu). A Linux host's TS offset is fixed for a given "
			  "4-tuple (per address pair from 4.11, per 4-tuple on kernels with the 2026 change and "
			  "its stable backports), so an older TSval on the same 4-tuple means another host "
			  "behind the same address (NAT) or a clock reset",
			  "发往 %2$s:%3$u 的 SYN（帧 %1$llu，源端口 %4$u）在该四元组上一个连接结束 %5$.2f 秒后"
			  "复用了它；它的 TSval %6$u 比那个连接最后的 TSval %8$u 旧 %7$u 个时钟单位，因此服务端的 "
			  "TIME_WAIT 套接字未通过 PAWS 检查，回复了旧连接的 ACK（帧 %9$llu）。Linux 主机对同一"
			  "四元组使用固定的时间戳偏移（从 4.11 起按地址对计算，在带有 2026 年改动及其稳定版回移"
			  "的内核上按四元组计算），所以同一四元组上出现更旧的 TSval，意味着同一地址后面还有另一台"
			  "主机（NAT），或者时钟被重置过",
			  (unsigned long long)fs->syn_frame, srv, flow->port[PD_SERVER], flow->port[PD_CLIENT], since,
			  fs->syn_tsval, fs->prev_tsval - fs->syn_tsval, fs->prev_tsval,
			  (unsigned long long)fs->answer_frame);
	ts_outcome(f, fs);
	/* not tcp_tw_reuse (connect() only: the server holds this TIME_WAIT)
	 * nor tcp_tw_recycle (it drops SYNs silently) */
	pd_finding_settings(f, "NAT source-port reuse", "connection pooling / keep-alive",
			    "net.ipv4.ip_local_port_range", "net.ipv4.tcp_timestamps", NULL);
	return f;
}

/* Who still held state for the reused 4-tuple, from how its previous
 * connection ended. */
static void ts_state_clause(pd_finding *f, const ts_fs *fs)
{
	double since = (double)(fs->syn_ts - fs->prev_end) / 1e9;
	if (!fs->reused) {
		pd_finding_append(f,
				  "; the earlier connection is not in the capture: the server (in TIME_WAIT, or "
				  "with that connection still open) or a stateful middlebox still remembered the "
				  "4-tuple",
				  "；抓包中没有先前的那个连接：服务端（处于 TIME_WAIT，或那个连接仍然打开）或有状态的"
				  "中间设备仍记着这个四元组");
		return;
	}
	pd_finding_metric(f, "since_previous_end_s", since, PD_UNIT_S, PD_AGG_MAX);
	switch (fs->prev_how) {
	case TS_END_SERVER_FIRST:
		pd_finding_append(f,
				  "; the 4-tuple was reused %.2f s after the previous connection on it ended, which "
				  "the server had closed first: the server still held it in TIME_WAIT",
				  "；该四元组在上一个连接结束 %.2f 秒后就被复用，而上一个连接是服务端先关闭的："
				  "服务端仍把它保留在 TIME_WAIT 状态",
				  since);
		break;
	case TS_END_CLIENT_FIRST:
		pd_finding_append(f,
				  "; the 4-tuple was reused %.2f s after the previous connection on it ended, which "
				  "the client had closed first, so the server should have kept no state: the "
				  "client's last ACK was lost (the server still in LAST_ACK), or a middlebox "
				  "(firewall, load balancer) still held the old connection",
				  "；该四元组在上一个连接结束 %.2f 秒后就被复用，而上一个连接是客户端先关闭的，服务端"
				  "本不该再保留状态：要么客户端最后的 ACK 丢了（服务端仍处于 LAST_ACK），要么中间设备"
				  "（防火墙、负载均衡）仍保存着旧连接",
				  since);
		break;
	case TS_END_RESET:
		pd_finding_append(f,
				  "; the previous connection on this 4-tuple was reset %.2f s before, which leaves "
				  "no TIME_WAIT: a middlebox (firewall, load balancer) still holding the old "
				  "connection answered, or the server never got the reset",
				  "；该四元组上的上一个连接在 %.2f 秒前已被重置，重置不会留下 TIME_WAIT：可能是仍保存"
				  "着旧连接的中间设备（防火墙、负载均衡）作了应答，或者服务端根本没有收到那个 RST",
				  since);
		break;
	default:
		pd_finding_append(f,
				  "; the previous connection on this 4-tuple, last seen %.2f s before, was never "
				  "closed in the capture: the server most likely still had it open and answered "
				  "the new SYN with a challenge ACK (RFC 5961; TcpExtTCPSYNChallenge counts it), "
				  "as after a client restart or when a NAT gives the port to another host",
				  "；该四元组上的上一个连接（%.2f 秒前最后出现）在抓包中一直没有关闭：服务端很可能仍"
				  "保持着它，于是用挑战 ACK 应答了新的 SYN（RFC 5961，计入 TcpExtTCPSYNChallenge），"
				  "客户端重启后、或 NAT 把端口分给另一台主机时都会这样",
				  since);
		break;
	}
}

/* What the SYN's sequence number and timestamps say: a sequence check, or
 * state that is not TIME_WAIT; PAWS only where it could apply. */
static void ts_check_clause(pd_finding *f, const pd_flow *flow, const ts_fs *fs)
{
	uint32_t isn = flow->half[PD_CLIENT].isn;
	if (!fs->syn_has_ts) {
		if (fs->reused && pd_seq_lt(isn, fs->prev_next_seq)) {
			/* unsigned: 2^31 below is "below" too, and -INT32_MIN is not an int */
			uint32_t below = fs->prev_next_seq - isn;
			pd_finding_metric(f, "syn_seq_below_old_next", below, PD_UNIT_COUNT, PD_AGG_MAX);
			pd_finding_append(f,
					  "; the SYN carried no timestamp option and its sequence number %u is %u "
					  "below the old connection's next sequence %u: without timestamps a "
					  "TIME_WAIT socket accepts a new SYN only above the old sequence, so this "
					  "is a sequence check, not PAWS",
					  "；该 SYN 不带时间戳选项，序列号 %1$u 比旧连接的下一个序列号 %3$u 小 %2$u："
					  "没有时间戳时，TIME_WAIT 套接字只接受序列号大于旧序列号的新 SYN，所以这是序列号"
					  "检查，而不是 PAWS",
					  isn, below, fs->prev_next_seq);
		} else if (fs->reused) {
			pd_finding_append(f,
					  "; the SYN carried no timestamp option and its sequence number is above "
					  "the old connection's, which a TIME_WAIT socket accepts: the state that "
					  "answered was an open connection's or a middlebox's",
					  "；该 SYN 不带时间戳选项，且序列号大于旧连接的序列号，TIME_WAIT 套接字会接受"
					  "这样的 SYN：作出应答的是仍打开的连接或中间设备的状态");
		} else {
			pd_finding_append(f, "; the SYN carried no timestamp option, so no PAWS check was involved",
					  "；该 SYN 不带时间戳选项，因此与 PAWS 检查无关");
		}
		return;
	}
	pd_finding_metric(f, "syn_tsval", fs->syn_tsval, PD_UNIT_TICKS, PD_AGG_MAX);
	if (fs->reused && !fs->prev_ts_known)
		pd_finding_append(f,
				  "; the old connection used no timestamps, so a TIME_WAIT socket had none to "
				  "compare: not PAWS",
				  "；旧连接没有使用时间戳，TIME_WAIT 套接字没有可比较的时间戳：不是 PAWS");
	else if (fs->reused)
		pd_finding_append(f,
				  "; the SYN's TSval %u is newer than the old connection's last %u, which PAWS "
				  "accepts: other state rejected it",
				  "；该 SYN 的 TSval %u 比旧连接最后的 %u 更新，PAWS 会放行：是其他状态拒绝了它",
				  fs->syn_tsval, fs->prev_tsval);
	else
		pd_finding_append(f,
				  "; the SYN carried timestamps: if the server held the old connection in "
				  "TIME_WAIT with a newer timestamp, PAWS rejected it (TcpExtPAWSTimewait on the "
				  "server tells)",
				  "；该 SYN 带有时间戳：如果服务端在 TIME_WAIT 中保存的旧连接时间戳更新，就是 PAWS "
				  "拒绝了它（看服务端的 TcpExtPAWSTimewait）");
}

/* A challenge ACK that timestamps do not explain: the server (TIME_WAIT
 * or a connection still open) or a middlebox held state for the reused
 * 4-tuple. */
static pd_finding *ts_existing_state(pd_ctx *ctx, const pd_flow *flow, ts_fs *fs)
{
	pd_finding *f = pd_finding_get(ctx, "syn-rejected-existing-state", flow);
	char srv[64];
	pd_addr_bracketed(&flow->addr[PD_SERVER], srv, sizeof(srv));
	pd_finding_occurrence(f, fs->syn_frame, fs->syn_ts, "SYN on a reused 4-tuple", "复用四元组的 SYN");
	pd_finding_occurrence(f, fs->answer_frame, fs->answer_ts, "ACK for the old connection", "旧连接的 ACK");
	pd_finding_set_severity(f, PD_SEV_WARNING);
	pd_finding_set_confidence(f, fs->reused ? 0.8 : 0.6);
	pd_finding_detail(f,
			  "SYN (frame %llu) to %s:%u from port %u was answered with an ACK for another "
			  "connection (frame %llu: ack %u where a SYN-ACK would acknowledge %u) instead of a "
			  "SYN-ACK",
			  "发往 %2$s:%3$u 的 SYN（帧 %1$llu，源端口 %4$u）收到的不是 SYN-ACK，而是另一个连接的 "
			  "ACK（帧 %5$llu：确认号为 %6$u，而 SYN-ACK 应确认 %7$u）",
			  (unsigned long long)fs->syn_frame, srv, flow->port[PD_SERVER], flow->port[PD_CLIENT],
			  (unsigned long long)fs->answer_frame, fs->answer_ack, flow->half[PD_CLIENT].isn + 1);
	ts_state_clause(f, fs);
	ts_check_clause(f, flow, fs);
	bool timewait = !fs->reused || fs->prev_how == TS_END_SERVER_FIRST;
	if (!fs->syn_has_ts && timewait)
		pd_finding_append(f,
				  "; with timestamps on at the client (net.ipv4.tcp_timestamps=1) a Linux server "
				  "accepts a reused 4-tuple whose TSval is newer even when its sequence number is "
				  "lower (RFC 6191)",
				  "；如果客户端开启了时间戳（net.ipv4.tcp_timestamps=1），即使序列号更小，只要 TSval "
				  "更新，Linux 服务端也会接受复用的四元组（RFC 6191）");
	ts_outcome(f, fs);
	if (timewait && !fs->syn_has_ts)
		pd_finding_settings(f, "connection pooling / keep-alive", "net.ipv4.tcp_timestamps",
				    "bind() before connect()", "NAT source-port reuse", "net.ipv4.ip_local_port_range",
				    "net.ipv4.tcp_rfc1337", NULL);
	else if (timewait)
		pd_finding_settings(f, "connection pooling / keep-alive", "bind() before connect()",
				    "NAT source-port reuse", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_rfc1337",
				    NULL);
	else
		pd_finding_settings(f, "NAT source-port reuse", "connection pooling / keep-alive",
				    "bind() before connect()", "net.ipv4.ip_local_port_range", NULL);
	return f;
}

static void ts_closed(pd_ctx *ctx, ts_g *g, const pd_flow *flow, ts_fs *fs)
{
	if (!g->closed)
		g->closed = pd_finding_get(ctx, "rst-closed-port", NULL);
	pd_finding *f = g->closed;
	pd_finding_add_flow(ctx, f, flow);
	pd_finding_occurrence(f, fs->answer_frame, fs->answer_ts, "RST|ACK to SYN", "应答 SYN 的 RST|ACK");
	/* every SYN of the connection was refused (a Windows client tries
	 * three times, 0.5 s apart; Linux gives up at the first reset) */
	uint32_t syns = flow->half[PD_CLIENT].syn_count;
	g->closed_count += syns ? syns : 1;
	if (syns > 1 && !flow->hs_ack_frame) {
		g->closed_retried++;
		pd_finding_add_impact(f, (double)(flow->last_ts - flow->first_ts) / 1e9);
	}
	uint32_t key = flow->port[PD_SERVER];
	bool known = false;
	for (int i = 0; i < g->n_closed_ports; i++)
		known |= g->closed_ports[i] == key;
	if (!known && g->n_closed_ports < 8)
		g->closed_ports[g->n_closed_ports++] = key;
}

/* How the flow ended, for the next connection on its 4-tuple. */
static uint8_t ts_end_how(const pd_flow *flow, const ts_fs *fs)
{
	if (flow->rst_seen)
		return TS_END_RESET;
	if (flow->half[PD_CLIENT].fin_count && flow->half[PD_SERVER].fin_count && fs->first_fin)
		return fs->first_fin == 2 ? TS_END_SERVER_FIRST : TS_END_CLIENT_FIRST;
	return TS_END_OPEN;
}

static void ts_on_flow_end(pd_ctx *ctx, void *gv, const pd_flow *flow, void *fsv)
{
	ts_g *g = gv;
	ts_fs *fs = fsv;
	if (flow->proto != 6 || flow->pseudo || !flow->roles_from_syn)
		return;
	/* the flow's pair entry, when its SYN had a timestamp */
	ts_pair *pair = fs->syn_seen ? ts_syn(ctx, g, flow, fs) : NULL;
	pd_time end = flow->last_ts;
	pd_finding *rejected = NULL;
	if (fs->syn_seen) {
		if (fs->answer == TS_ANS_CHALLENGE) {
			bool paws = fs->syn_has_ts && fs->reused && fs->prev_ts_known &&
				    pd_seq_lt(fs->syn_tsval, fs->prev_tsval);
			rejected = paws ? ts_paws(ctx, flow, fs) : ts_existing_state(ctx, flow, fs);
		} else if (fs->answer == TS_ANS_RST_ISN) {
			ts_closed(ctx, g, flow, fs);
		}
		/* SYNs that did not go through count against their source's clocks. */
		bool failed = fs->answer == TS_ANS_CHALLENGE || fs->answer == TS_ANS_NONE ||
			      flow->half[PD_CLIENT].syn_count > 1;
		if (failed && pair)
			pair->failures++;
	}
	/* Remember how the 4-tuple ended, for the next SYN on it. */
	ts_tuple *tu = ts_tuple_slot(g, flow, end);
	tu->how = ts_end_how(flow, fs);
	tu->c_ts_known = fs->tsv_seen[PD_CLIENT];
	tu->c_tsval = fs->tsv_last[PD_CLIENT];
	tu->c_next_seq = flow->half[PD_CLIENT].next_seq;
	/* a rejected SYN whose retry is still to come, on a new flow */
	bool waiting = rejected && !(fs->retry_fr && fs->retry_answered);
	tu->pending = waiting ? rejected : NULL;
	tu->pending_syn_ts = waiting ? fs->syn_ts : 0;
	if (waiting && fs->reused) {
		/* Keep the old connection's ending and clock reading: the rejected
		 * SYN did not replace what the server remembers. */
		tu->how = fs->prev_how;
		tu->c_ts_known = fs->prev_ts_known;
		tu->c_tsval = fs->prev_tsval;
		tu->c_next_seq = fs->prev_next_seq;
	}
}

static void ts_add_failures(void *v, void *arg)
{
	const ts_pair *p = v;
	if (p->flagged)
		*(uint32_t *)arg += p->failures;
}

static void ts_on_end(pd_ctx *ctx, void *gv)
{
	ts_g *g = gv;
	char a[64], b[64];
	if (g->closed) {
		char ports[96] = "";
		size_t n = 0;
		for (int i = 0; i < g->n_closed_ports && n + 8 < sizeof(ports); i++)
			n += (size_t)snprintf(ports + n, sizeof(ports) - n, "%s%u", i ? ", " : "", g->closed_ports[i]);
		if (g->n_closed_ports >= 8 && n + 6 < sizeof(ports))
			snprintf(ports + n, sizeof(ports) - n, ", ...");
		pd_finding_metric(g->closed, "syns_refused", g->closed_count, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_set_confidence(g->closed, 0.8);
		pd_finding_detail(g->closed,
				  "%u SYN(s) answered at once by RST|ACK acknowledging the SYN (port(s) %s): "
				  "nothing listening there, or a firewall rejecting with a reset; not a timestamp "
				  "problem",
				  "%u 个 SYN 立即收到了确认该 SYN 的 RST|ACK（端口 %s）：那里没有监听，或者防火墙"
				  "以 RST 拒绝；与时间戳无关",
				  g->closed_count, ports);
		/* A client that tries again after the reset wanted that
		 * connection (a scan or a health probe does not): it failed. */
		if (g->closed_retried) {
			pd_finding_append(g->closed,
					  "; %u connection(s) sent the SYN again after the reset and were refused "
					  "every time: the client could not connect",
					  "；%u 条连接在收到 RST 后再次发送 SYN，每次都被拒绝：客户端无法建立连接",
					  g->closed_retried);
			pd_finding_set_severity(g->closed, PD_SEV_WARNING);
		}
	}
	if (g->nat) {
		ts_pair *p = g->nat_pair;
		uint32_t failures = 0;
		pd_keytable_foreach(g->pairs, ts_add_failures, &failures);
		/* Several clocks alone are harmless on current kernels; they matter
		 * when SYNs from the address fail. */
		pd_finding_set_severity(g->nat, failures ? PD_SEV_WARNING : PD_SEV_INFO);
		pd_finding_set_confidence(g->nat, 0.7);
		pd_finding_metric(g->nat, "failed_syns", failures, PD_UNIT_COUNT, PD_AGG_SUM);
		if (p) {
			pd_addr_bracketed(&p->src, a, sizeof(a));
			pd_addr_bracketed(&p->dst, b, sizeof(b));
			pd_finding_metric(g->nat, "clocks", p->concurrent, PD_UNIT_COUNT, PD_AGG_SUM);
			pd_finding_metric(g->nat, "syns", p->syns, PD_UNIT_COUNT, PD_AGG_SUM);
			pd_finding_detail(g->nat,
					  "SYNs from %s to %s carry TSvals from at least %u clocks in use at the "
					  "same time (%u SYNs, %u clock offsets seen): several hosts share that "
					  "address; %u of their SYNs were retried, rejected or unanswered. Servers "
					  "that still have net.ipv4.tcp_tw_recycle=1 (removed in Linux 4.12) drop "
					  "such SYNs",
					  "从 %s 发往 %s 的 SYN 携带的 TSval 来自至少 %u 个同时在用的时钟（%u 个 SYN，"
					  "见到 %u 种时钟偏移）：有多台主机共用这个地址；其中 %u 个 SYN 被重试、拒绝或"
					  "没有应答。仍开启 net.ipv4.tcp_tw_recycle=1 的服务器（Linux 4.12 已删除该参数）"
					  "会丢弃这样的 SYN",
					  a, b, p->concurrent, p->syns, p->clocks_seen, failures);
		}
	}
}

static const char *const ts_emits[] = {"paws-rejected-syn", "syn-rejected-existing-state", "nat-timestamp-clocks",
				       "rst-closed-port", NULL};

const pd_detector pd_det_timestamps = {
	.name = "timestamps",
	.emits = ts_emits,
	.init = ts_init,
	.fini = ts_fini,
	.flow_state_size = sizeof(ts_fs),
	.global_state_size = sizeof(ts_g),
	.on_tcp = ts_on_tcp,
	.on_flow_end = ts_on_flow_end,
	.on_end = ts_on_end,
};
