/* What answered a SYN that carried the timestamp option, when it was not a
 * SYN-ACK:
 *  - a bare ACK for an earlier connection (a TIME_WAIT socket rejecting the
 *    SYN: PAWS when the SYN's TSval is older than the last one that
 *    connection saw, or a sequence check), usually followed by the
 *    client's RST and a retry -> paws-rejected-syn;
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
 * fixed table; so are per-(source, destination) clock clusters. */
#include <stdio.h>
#include <string.h>

#include "heuristics/detector.h"
#include "heuristics/keytable.h"
#include "heuristics/util.h"

#define TS_TW_NS (60 * PD_NS_PER_SEC) /* TCP_TIMEWAIT_LEN */
#define TS_TUPLE_SLOTS 16384
#define TS_PAIR_SLOTS 4096
#define TS_PROBE 8
#define TS_CLUSTERS 4
#define TS_MAX_RATE_HZ 1100.0 /* 1 kHz clocks plus margin */
#define TS_SLACK_TICKS 200 /* jitter between SYN send and capture */

enum { TS_ANS_NONE = 0, TS_ANS_SYNACK, TS_ANS_RST_ISN, TS_ANS_CHALLENGE, TS_ANS_RST_OTHER };

/* How a 4-tuple's last connection ended. */
typedef struct ts_tuple {
	pd_time end_ts;
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

typedef struct ts_pair {
	bool used;
	pd_addr src, dst;
	ts_cluster cl[TS_CLUSTERS];
	uint8_t ncl;
	uint32_t clocks_seen; /* clusters ever opened */
	uint32_t syns;
	uint32_t failures; /* SYNs from the pair that were retried, rejected or unanswered */
	bool flagged;
	uint32_t concurrent; /* most clusters active together */
} ts_pair;

/* What the pair probes read, beside the entries. */
typedef struct ts_pair_meta {
	pd_time last_ts;
	uint32_t tag; /* the pair's hash with the low bit set; 0 while free */
	bool flagged; /* a copy of the entry's */
} ts_pair_meta;

typedef struct ts_fs {
	/* First, together: what each packet and every flow end look at (one
	 * cache line of a flow that is cold when it ends). */
	bool syn_seen, syn_has_ts;
	uint8_t answer;
	bool tsv_seen[2];
	bool pair_set;
	bool reused;
	bool prev_ts_known;
	uint32_t syn_tsval;
	uint32_t pair; /* pd_flow_pair_fnv, kept for the flow end */
	uint32_t tsv_last[2];
	uint64_t syn_frame;
	pd_time syn_ts;
	pd_time prev_end;
	uint32_t prev_tsval, prev_next_seq;
	uint32_t answer_ack;
	pd_finding *retry_of;
	pd_time retry_of_syn_ts;
	uint64_t answer_frame;
	pd_time answer_ts;
	uint64_t client_rst_frame;
} ts_fs;

typedef struct ts_g {
	pd_keytable *tuples; /* pd_tuple_key -> ts_tuple */
	ts_pair pairs[TS_PAIR_SLOTS];
	ts_pair_meta pair_meta[TS_PAIR_SLOTS];
	pd_finding *closed, *nat;
	ts_pair *nat_pair; /* the worst pair, for the detail */
	uint32_t closed_ports[8];
	uint8_t n_closed_ports;
	uint32_t closed_count;
} ts_g;

static uint32_t ts_pair_fnv(ts_fs *fs, const pd_flow *f)
{
	if (!fs->pair_set) {
		fs->pair = pd_flow_pair_fnv(f);
		fs->pair_set = true;
	}
	return fs->pair;
}

static void ts_init(pd_ctx *ctx, void *gv)
{
	(void)ctx;
	ts_g *g = gv;
	g->tuples = pd_keytable_new(sizeof(pd_tuple_key), sizeof(ts_tuple), TS_TUPLE_SLOTS, NULL, NULL);
}

static void ts_fini(void *gv)
{
	ts_g *g = gv;
	pd_keytable_free(g->tuples);
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

/* The flow's (client, server) entry; pair is its pd_flow_pair_fnv. */
static ts_pair *ts_pair_get(ts_g *g, const pd_flow *f, uint32_t pair, pd_time now, bool create)
{
	const pd_addr *src = &f->addr[PD_CLIENT], *dst = &f->addr[PD_SERVER];
	uint32_t tag = pair | 1, h = pair & (TS_PAIR_SLOTS - 1);
	int64_t v = -1; /* the victim's slot */
	for (int i = 0; i < TS_PROBE; i++) {
		uint32_t j = (h + (uint32_t)i) & (TS_PAIR_SLOTS - 1);
		ts_pair_meta *m = &g->pair_meta[j];
		ts_pair *p = &g->pairs[j];
		if (m->tag == tag && pd_addr_equal(&p->src, src) && pd_addr_equal(&p->dst, dst)) {
			m->last_ts = now;
			return p;
		}
		/* the first free slot, else the least recently used unflagged one */
		ts_pair_meta *vm = v < 0 ? NULL : &g->pair_meta[v];
		if (!m->tag) {
			if (!vm || vm->tag)
				v = j;
		} else if (!vm || (vm->tag && !vm->flagged && m->last_ts < vm->last_ts)) {
			if (!m->flagged || !vm)
				v = j;
		}
	}
	if (!create)
		return NULL;
	ts_pair *victim = &g->pairs[v];
	if (victim == g->nat_pair)
		g->nat_pair = NULL;
	memset(victim, 0, sizeof(*victim));
	victim->used = true;
	victim->src = *src;
	victim->dst = *dst;
	g->pair_meta[v] = (ts_pair_meta){.last_ts = now, .tag = tag};
	return victim;
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

static void ts_nat_syn(pd_ctx *ctx, ts_g *g, const pd_flow *flow, uint32_t pair, const ts_fs *fs)
{
	pd_time ts = fs->syn_ts;
	ts_pair *p = ts_pair_get(g, flow, pair, ts, true);
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
		return;
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
		g->pair_meta[p - g->pairs].flagged = true;
		if (!g->nat_pair || p->concurrent > g->nat_pair->concurrent)
			g->nat_pair = p;
		pd_finding_add_flow(ctx, g->nat, flow);
		pd_finding_occurrence(g->nat, fs->syn_frame, ts, "SYN TSval from another clock", NULL);
	}
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
	if (seg->dir == PD_CLIENT) {
		if (syn && !ack && !fs->syn_seen) {
			fs->syn_seen = true;
			fs->syn_has_ts = t->has_ts;
			fs->syn_tsval = t->tsval;
			fs->syn_frame = pkt->frame_no;
			fs->syn_ts = pkt->ts;
		} else if (rst && fs->answer == TS_ANS_CHALLENGE && !fs->client_rst_frame) {
			fs->client_rst_frame = pkt->frame_no;
		}
		return;
	}
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
static void ts_syn(pd_ctx *ctx, ts_g *g, const pd_flow *flow, ts_fs *fs)
{
	ts_tuple *tu = ts_tuple_find(g, flow, fs->syn_ts);
	if (tu) {
		fs->reused = true;
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
	if (fs->syn_has_ts)
		ts_nat_syn(ctx, g, flow, ts_pair_fnv(fs, flow), fs);
	if (fs->answer == TS_ANS_SYNACK && fs->retry_of) {
		/* The retry of a rejected SYN got through: the wait is the cost. */
		double wait = (double)(fs->syn_ts - fs->retry_of_syn_ts) / 1e9;
		pd_finding_add_impact(fs->retry_of, wait);
		pd_finding_metric(fs->retry_of, "retry_after_s", wait, PD_UNIT_S, PD_AGG_MAX);
		fs->retry_of = NULL;
	}
}

static void ts_paws(pd_ctx *ctx, ts_g *g, const pd_flow *flow, ts_fs *fs, ts_tuple *tu)
{
	pd_finding *f = pd_finding_get(ctx, "paws-rejected-syn", flow);
	char srv[64];
	pd_addr_bracketed(&flow->addr[PD_SERVER], srv, sizeof(srv));
	pd_finding_occurrence(f, fs->syn_frame, fs->syn_ts, "SYN on a reused 4-tuple", NULL);
	pd_finding_occurrence(f, fs->answer_frame, fs->answer_ts, "ACK for the old connection", NULL);
	if (fs->client_rst_frame)
		pd_finding_occurrence(f, fs->client_rst_frame, fs->answer_ts, "client RST", NULL);
	bool ts_older = fs->reused && fs->syn_has_ts && fs->prev_ts_known &&
			pd_seq_lt(fs->syn_tsval, fs->prev_tsval);
	bool seq_older = fs->reused && !pd_seq_lt(fs->prev_next_seq, flow->half[PD_CLIENT].isn);
	double since = fs->reused ? (double)(fs->syn_ts - fs->prev_end) / 1e9 : 0;
	pd_finding_set_severity(f, PD_SEV_ERROR);
	if (fs->syn_has_ts)
		pd_finding_metric(f, "syn_tsval", fs->syn_tsval, PD_UNIT_TICKS, PD_AGG_MAX);
	if (fs->reused && fs->prev_ts_known) {
		pd_finding_metric(f, "previous_tsval", fs->prev_tsval, PD_UNIT_TICKS, PD_AGG_MAX);
		pd_finding_metric(f, "tsval_behind", -(double)pd_seq_diff(fs->syn_tsval, fs->prev_tsval), PD_UNIT_TICKS, PD_AGG_MAX);
	}
	if (fs->reused)
		pd_finding_metric(f, "since_previous_end_s", since, PD_UNIT_S, PD_AGG_MAX);
	if (ts_older) {
		pd_finding_set_confidence(f, 0.9);
		pd_finding_detail(f,
				  "SYN (frame %llu) to %s:%u from port %u reused the 4-tuple %.2f s after "
				  "the previous connection on it ended; its TSval %u is %d ticks older than that "
				  "connection's last TSval %u, so the server's TIME_WAIT socket failed the "
				  "PAWS check and answered with an ACK for the old connection (frame %llu)%s. "
				  "A Linux host's TS offset is fixed for a given 4-tuple (per address pair from "
				  "4.11, per 4-tuple on kernels with the 2026 change and its stable backports), "
				  "so an older TSval on the same 4-tuple means another host behind the same "
				  "address (NAT) or a clock reset", NULL,
				  (unsigned long long)fs->syn_frame, srv, flow->port[PD_SERVER], flow->port[PD_CLIENT],
				  since, fs->syn_tsval, -pd_seq_diff(fs->syn_tsval, fs->prev_tsval), fs->prev_tsval,
				  (unsigned long long)fs->answer_frame,
				  fs->client_rst_frame ? "; the client reset it and had to retry" : "");
		/* not tcp_tw_reuse (connect() only: the server holds this
		 * TIME_WAIT) nor tcp_tw_recycle (it drops SYNs silently) */
		pd_finding_settings(f, "NAT source-port reuse", "connection pooling / keep-alive",
				    "net.ipv4.ip_local_port_range", "net.ipv4.tcp_timestamps", NULL);
	} else if (fs->reused) {
		pd_finding_set_confidence(f, seq_older ? 0.8 : 0.6);
		pd_finding_detail(f,
				  "SYN (frame %llu) to %s:%u from port %u reused the 4-tuple %.2f s after "
				  "the previous connection on it ended and was answered with an ACK for the old "
				  "connection (frame %llu): the server still held it in TIME_WAIT and "
				  "rejected the SYN (%s)", NULL,
				  (unsigned long long)fs->syn_frame, srv, flow->port[PD_SERVER], flow->port[PD_CLIENT],
				  since, (unsigned long long)fs->answer_frame,
				  seq_older ? "its ISN is not above the old connection's last sequence"
					    : (fs->syn_has_ts ? "timestamps do not explain it" : "no timestamps to tell new from old"));
		if (!fs->syn_has_ts)
			pd_finding_settings(f, "net.ipv4.tcp_timestamps", "connection pooling / keep-alive",
					    "net.ipv4.ip_local_port_range", "NAT source-port reuse", NULL);
	} else {
		pd_finding_set_confidence(f, 0.5);
		pd_finding_detail(f,
				  "SYN (frame %llu) to %s:%u was answered with an ACK for another connection "
				  "(frame %llu, ack %u instead of %u): a TIME_WAIT socket on the server "
				  "rejected it; the earlier connection is not in the capture", NULL,
				  (unsigned long long)fs->syn_frame, srv, flow->port[PD_SERVER],
				  (unsigned long long)fs->answer_frame, fs->answer_ack, flow->half[PD_CLIENT].isn + 1);
	}
	if (tu) {
		tu->pending = f;
		tu->pending_syn_ts = fs->syn_ts;
	}
}

static void ts_closed(pd_ctx *ctx, ts_g *g, const pd_flow *flow, ts_fs *fs)
{
	if (!g->closed)
		g->closed = pd_finding_get(ctx, "rst-closed-port", NULL);
	pd_finding *f = g->closed;
	pd_finding_add_flow(ctx, f, flow);
	pd_finding_occurrence(f, fs->answer_frame, fs->answer_ts, "RST|ACK to SYN", NULL);
	g->closed_count++;
	uint32_t key = flow->port[PD_SERVER];
	bool known = false;
	for (int i = 0; i < g->n_closed_ports; i++)
		known |= g->closed_ports[i] == key;
	if (!known && g->n_closed_ports < 8)
		g->closed_ports[g->n_closed_ports++] = key;
}

static void ts_on_flow_end(pd_ctx *ctx, void *gv, const pd_flow *flow, void *fsv)
{
	ts_g *g = gv;
	ts_fs *fs = fsv;
	if (flow->proto != 6 || flow->pseudo || !flow->roles_from_syn)
		return;
	if (fs->syn_seen)
		ts_syn(ctx, g, flow, fs);
	pd_time end = flow->last_ts;
	ts_tuple *tu = NULL;
	if (fs->syn_seen) {
		if (fs->answer == TS_ANS_CHALLENGE) {
			tu = ts_tuple_slot(g, flow, end);
			ts_paws(ctx, g, flow, fs, NULL);
		} else if (fs->answer == TS_ANS_RST_ISN) {
			ts_closed(ctx, g, flow, fs);
		}
		/* SYNs that did not go through count against their source's clocks. */
		bool failed = fs->answer == TS_ANS_CHALLENGE || fs->answer == TS_ANS_NONE ||
			      flow->half[PD_CLIENT].syn_count > 1;
		if (failed && fs->syn_has_ts) {
			ts_pair *p = ts_pair_get(g, flow, ts_pair_fnv(fs, flow), end, false);
			if (p)
				p->failures++;
		}
	}
	/* Remember how the 4-tuple ended, for the next SYN on it. */
	pd_finding *pending = NULL;
	pd_time pending_ts = 0;
	if (tu) {
		pending = pd_finding_get(ctx, "paws-rejected-syn", flow);
		pending_ts = fs->syn_ts;
	} else {
		tu = ts_tuple_slot(g, flow, end);
	}
	tu->c_ts_known = fs->tsv_seen[PD_CLIENT];
	tu->c_tsval = fs->tsv_last[PD_CLIENT];
	tu->c_next_seq = flow->half[PD_CLIENT].next_seq;
	tu->pending = pending;
	tu->pending_syn_ts = pending_ts;
	if (pending && fs->reused) {
		/* Keep the old connection's clock reading: the rejected SYN did not
		 * replace what the server's TIME_WAIT socket remembers. */
		tu->c_ts_known = fs->prev_ts_known;
		tu->c_tsval = fs->prev_tsval;
		tu->c_next_seq = fs->prev_next_seq;
	}
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
		pd_finding_metric(g->closed, "syns_refused", g->closed_count, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_set_confidence(g->closed, 0.8);
		pd_finding_detail(g->closed,
				  "%u SYN(s) answered at once by RST|ACK acknowledging the SYN (port%s %s%s): "
				  "nothing listening there, or a firewall rejecting with a reset; not a "
				  "timestamp problem", NULL,
				  g->closed_count, g->n_closed_ports > 1 ? "s" : "", ports,
				  g->n_closed_ports >= 8 ? ", ..." : "");
	}
	if (g->nat) {
		ts_pair *p = g->nat_pair;
		uint32_t failures = 0;
		for (size_t i = 0; i < TS_PAIR_SLOTS; i++)
			if (g->pairs[i].used && g->pairs[i].flagged)
				failures += g->pairs[i].failures;
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
					  "address; %u of their SYNs were retried, rejected or unanswered. "
					  "Servers that still have net.ipv4.tcp_tw_recycle=1 (removed in Linux "
					  "4.12) drop such SYNs", NULL,
					  a, b, p->concurrent, p->syns, p->clocks_seen, failures);
		}
	}
}

static const char *const ts_emits[] = {"paws-rejected-syn", "nat-timestamp-clocks", "rst-closed-port", NULL};

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
