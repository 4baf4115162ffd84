/* The packet series for the HTML report's pictures (see series.h): a
 * second, self-contained read of the capture that looks only at the TCP
 * packets of the flows the finished report's findings name. */
#include "analyzer/series.h"
#include "analyzer/points.h"

#include <math.h>
#include <string.h>

#include "capture/reader.h"
#include "dissect/dissect.h"

#define MAX_INSTANCES 8 /* connections kept per 5-tuple (ports reused) */
#define RTT_QUEUE_MAX 8192 /* outstanding segments per direction for RTT */
#define SEEN_MAX (1u << 20) /* packets per connection kept to match two capture points */
#define KEY_FLAGS (PD_TCP_SYN | PD_TCP_FIN | PD_TCP_RST | PD_TCP_ACK)

/* One packet of a connection at one capture point, as the two points'
 * packets are matched: seq and ack relative to that point's own ISNs. */
typedef struct seen_pkt {
	uint64_t frame;
	pd_time ts;
	uint32_t seq, ack, len;
	uint8_t flags, dir;
} seen_pkt;

typedef struct key {
	pd_addr lo, hi;
	uint16_t plo, phi;
} key;

typedef struct outstanding {
	uint32_t end;
	pd_time ts;
	uint64_t frame;
} outstanding;

/* One connection on a 5-tuple. */
typedef struct inst {
	pd_flow_series *fs;
	bool base_set[2], syn_seen[2], have_high[2], have_ack[2], have_win[2], have_data[2];
	uint32_t base[2], syn_seq[2], high[2], last_ack[2], last_win[2];
	int8_t wscale[2];
	pd_time last_data_ts[2];
	bool closed;
	/* thinning: [0] plain packets, [1] marked ones; evidence always kept */
	uint64_t seen[2];
	uint64_t stride[2];
	size_t kept[2];
	uint64_t rtt_seen, rtt_stride;
	GArray *q[2]; /* outstanding, oldest first */
	GArray *tsq[2]; /* outstanding by TSval (outstanding.end holds it) */
	bool ts_rtt; /* both sides send timestamps: RTT from TSval/TSecr */
	GArray *kept_pkts; /* seen_pkt, every packet (two capture points only), or NULL */
	bool kept_full; /* more than SEEN_MAX: not matched */
} inst;

typedef struct flagged {
	pd_flow_ref ref;
	GArray *evidence; /* uint64_t frames the flow's findings name */
} flagged;

typedef struct tuple {
	key k;
	pd_addr client;
	uint16_t cport;
	GPtrArray *insts; /* inst* */
	GPtrArray *flows; /* flagged*, by flow id */
} tuple;

typedef struct collector {
	GHashTable *tuples; /* key* -> tuple* */
	GHashTable *evidence; /* frame -> 1 */
	size_t max_points, max_rtt;
	bool record; /* keep every packet in inst.seen: two capture points */
	pd_time span[2]; /* the first and last time of the file read */
	bool span_set;
} collector;

static guint key_hash(gconstpointer p)
{
	const guint8 *b = p;
	guint h = 2166136261u;
	for (size_t i = 0; i < sizeof(key); i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, sizeof(key)) == 0;
}

static void make_key(key *k, const pd_addr *a, uint16_t pa, const pd_addr *b, uint16_t pb)
{
	memset(k, 0, sizeof *k);
	int c = pd_addr_cmp(a, b);
	if (c < 0 || (c == 0 && pa <= pb)) {
		k->lo = *a;
		k->plo = pa;
		k->hi = *b;
		k->phi = pb;
	} else {
		k->lo = *b;
		k->plo = pb;
		k->hi = *a;
		k->phi = pa;
	}
}

static inst *inst_new(void)
{
	inst *in = g_new0(inst, 1);
	in->fs = g_new0(pd_flow_series, 1);
	in->fs->points = g_array_new(FALSE, TRUE, sizeof(pd_series_point));
	in->fs->rtt = g_array_new(FALSE, TRUE, sizeof(pd_series_rtt));
	in->wscale[0] = in->wscale[1] = -1;
	in->stride[0] = in->stride[1] = in->rtt_stride = 1;
	for (int d = 0; d < 2; d++) {
		in->q[d] = g_array_new(FALSE, FALSE, sizeof(outstanding));
		in->tsq[d] = g_array_new(FALSE, FALSE, sizeof(outstanding));
	}
	return in;
}

static void series_free(pd_flow_series *fs)
{
	if (!fs)
		return;
	g_array_unref(fs->points);
	g_array_unref(fs->rtt);
	series_free(fs->partner);
	g_free(fs);
}

static void inst_free(gpointer p)
{
	inst *in = p;
	series_free(in->fs);
	for (int d = 0; d < 2; d++) {
		g_array_unref(in->q[d]);
		g_array_unref(in->tsq[d]);
	}
	if (in->kept_pkts)
		g_array_unref(in->kept_pkts);
	g_free(in);
}

static void flagged_free(gpointer p)
{
	flagged *f = p;
	g_array_unref(f->evidence);
	g_free(f);
}

static void tuple_free(gpointer p)
{
	tuple *t = p;
	g_ptr_array_free(t->insts, TRUE);
	g_ptr_array_free(t->flows, TRUE);
	g_free(t);
}

static int point_class(const pd_series_point *p)
{
	if (p->marks & PD_MARK_EVIDENCE)
		return 2;
	return p->marks ? 1 : 0;
}

/* Drops every other kept point of class c (the bound was reached) and
 * doubles its stride: what stays is still evenly spread over the flow. */
static void thin(inst *in, int c)
{
	GArray *pts = in->fs->points;
	size_t w = 0, k = 0;
	for (size_t i = 0; i < pts->len; i++) {
		pd_series_point *p = &g_array_index(pts, pd_series_point, i);
		if (point_class(p) == c && (k++ & 1))
			continue;
		if (w != i)
			g_array_index(pts, pd_series_point, w) = *p;
		w++;
	}
	g_array_set_size(pts, (guint)w);
	in->kept[c] = (k + 1) / 2;
	in->stride[c] *= 2;
}

static void add_point(collector *co, inst *in, const pd_series_point *p)
{
	int c = point_class(p);
	if (c < 2) {
		if (in->seen[c]++ % in->stride[c] != 0)
			return;
		in->kept[c]++;
	}
	g_array_append_val(in->fs->points, *p);
	/* three quarters for the plain packets that draw the shape, a quarter
	 * for the marked ones */
	if (c < 2 && in->kept[c] > (c == 0 ? co->max_points / 4 * 3 : co->max_points / 4))
		thin(in, c);
}

static void add_rtt(collector *co, inst *in, const pd_series_rtt *s)
{
	if (in->rtt_seen++ % in->rtt_stride != 0)
		return;
	GArray *a = in->fs->rtt;
	g_array_append_val(a, *s);
	if (a->len > co->max_rtt) {
		guint w = 0;
		for (guint i = 0; i < a->len; i += 2)
			g_array_index(a, pd_series_rtt, w++) = g_array_index(a, pd_series_rtt, i);
		g_array_set_size(a, w);
		in->rtt_stride *= 2;
	}
}

static int gap_bin(double s)
{
	if (s <= PD_SERIES_GAP_MIN_S)
		return 0;
	int b = (int)(log10(s / PD_SERIES_GAP_MIN_S) * PD_SERIES_GAP_PER_DECADE);
	return b < 0 ? 0 : b >= PD_SERIES_GAP_BINS ? PD_SERIES_GAP_BINS - 1 : b;
}

static inline int32_t sdiff(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b);
}

static void packet(collector *co, inst *in, int d, const pd_packet *pkt)
{
	pd_flow_series *fs = in->fs;
	const pd_tcp *t = &pkt->tcp;
	int o = d ^ 1;
	uint8_t fl = t->flags;
	bool syn = fl & PD_TCP_SYN, fin = fl & PD_TCP_FIN, rst = fl & PD_TCP_RST;
	uint32_t len = t->payload_len;
	pd_series_point p = {.frame = pkt->frame_no, .ts = pkt->ts, .dir = (uint8_t)d, .flags = fl,
			     .len = len};

	if (!fs->packets++) {
		fs->first_frame = pkt->frame_no;
		fs->first_ts = pkt->ts;
	}
	fs->last_frame = pkt->frame_no;
	fs->last_ts = pkt->ts;
	fs->payload[d] += len;

	if (syn) {
		p.marks |= PD_MARK_SYN;
		if (in->syn_seen[d]) {
			p.marks |= PD_MARK_SYN_RETRY;
		} else {
			in->syn_seen[d] = true;
			in->syn_seq[d] = t->seq;
			in->wscale[d] = t->wscale;
			in->base[d] = t->seq;
			in->base_set[d] = true;
		}
	}
	if (fin)
		p.marks |= PD_MARK_FIN;
	if (rst)
		p.marks |= PD_MARK_RST;
	if (fin || rst)
		in->closed = true;
	if (!in->base_set[d]) {
		in->base[d] = t->seq - 1; /* first byte seen is byte 1, as Wireshark counts */
		in->base_set[d] = true;
	}
	uint32_t rel = t->seq - in->base[d];
	uint32_t end = rel + len + (syn ? 1 : 0) + (fin ? 1 : 0);
	p.seq = rel;
	bool retrans = len > 0 && in->have_high[d] && sdiff(rel, in->high[d]) < 0;
	if (retrans)
		p.marks |= PD_MARK_RETRANS;
	if (!in->have_high[d] || sdiff(end, in->high[d]) > 0) {
		in->high[d] = end;
		in->have_high[d] = true;
	}

	uint32_t ack_rel = 0;
	if (fl & PD_TCP_ACK) {
		if (!in->base_set[o]) {
			in->base[o] = t->ack - 1;
			in->base_set[o] = true;
		}
		ack_rel = t->ack - in->base[o];
		p.ack = ack_rel;
		in->last_ack[d] = ack_rel;
		in->have_ack[d] = true;
	}

	/* windows in bytes once both SYNs said how to scale them */
	uint32_t shift = 0;
	if (in->syn_seen[0] && in->syn_seen[1]) {
		fs->wscale_known = true;
		if (!syn && in->wscale[0] >= 0 && in->wscale[1] >= 0)
			shift = (uint32_t)MIN(in->wscale[d], 14);
	}
	uint64_t win = (uint64_t)t->window << shift;
	p.win = (uint32_t)MIN(win, UINT32_MAX);
	if (!syn && !rst && t->window == 0)
		p.marks |= PD_MARK_ZERO_WIN;
	p.peer_win = in->have_win[o] ? in->last_win[o] : 0;
	if (in->have_win[o] && in->last_win[o] == 0 && len <= 1 && !syn && !fin && !rst &&
	    in->have_high[d] && sdiff(in->high[d], 1) > 0)
		p.marks |= PD_MARK_ZWP;
	in->last_win[d] = p.win;
	in->have_win[d] = true;
	int32_t fl_bytes = in->have_ack[o] ? sdiff(in->high[d], in->last_ack[o]) : 0;
	p.in_flight = fl_bytes > 0 ? (uint32_t)fl_bytes : 0;

	if (g_hash_table_contains(co->evidence, &p.frame))
		p.marks |= PD_MARK_EVIDENCE;

	/* RTT with timestamps (Linux's default): from the first data segment
	 * carrying a TSval to the first packet echoing it; valid through loss
	 * recovery, retransmissions included, as the echo names the copy */
	if (t->has_ts && syn && (fl & PD_TCP_ACK))
		in->ts_rtt = true; /* the SYN-ACK carries timestamps: both sides agreed */
	if (in->ts_rtt && t->has_ts) {
		GArray *tq = in->tsq[d];
		if (len > 0 && (!tq->len || sdiff(t->tsval, g_array_index(tq, outstanding, tq->len - 1).end) > 0)) {
			if (tq->len >= RTT_QUEUE_MAX)
				g_array_remove_index(tq, 0);
			outstanding os = {.end = t->tsval, .ts = pkt->ts, .frame = pkt->frame_no};
			g_array_append_val(tq, os);
		}
		GArray *oq = in->tsq[o];
		guint k = 0;
		const outstanding *hit = NULL;
		while (k < oq->len && sdiff(g_array_index(oq, outstanding, k).end, t->tsecr) <= 0) {
			if (g_array_index(oq, outstanding, k).end == t->tsecr)
				hit = &g_array_index(oq, outstanding, k);
			k++;
		}
		if (hit && pkt->ts >= hit->ts) {
			pd_series_rtt s = {.frame = hit->frame, .ts = hit->ts, .dir = (uint8_t)o,
					   .rtt_us = (uint32_t)MIN((pkt->ts - hit->ts) / 1000, UINT32_MAX)};
			add_rtt(co, in, &s);
		}
		if (k)
			g_array_remove_range(oq, 0, k);
	}
	/* without timestamps: a segment sent once, to the ACK that covers
	 * exactly its end */
	if (!in->ts_rtt && len > 0) {
		if (retrans) {
			g_array_set_size(in->q[d], 0); /* Karn: nothing outstanding is timed */
		} else {
			if (in->q[d]->len >= RTT_QUEUE_MAX)
				g_array_remove_index(in->q[d], 0);
			outstanding os = {.end = rel + len, .ts = pkt->ts, .frame = pkt->frame_no};
			g_array_append_val(in->q[d], os);
		}
	}
	if (!in->ts_rtt && (fl & PD_TCP_ACK)) {
		GArray *q = in->q[o];
		guint k = 0;
		const outstanding *hit = NULL;
		while (k < q->len && sdiff(g_array_index(q, outstanding, k).end, ack_rel) <= 0) {
			if (g_array_index(q, outstanding, k).end == ack_rel)
				hit = &g_array_index(q, outstanding, k);
			k++;
		}
		if (hit && pkt->ts >= hit->ts) {
			pd_series_rtt s = {.frame = hit->frame, .ts = hit->ts, .dir = (uint8_t)o,
					   .rtt_us = (uint32_t)MIN((pkt->ts - hit->ts) / 1000, UINT32_MAX)};
			add_rtt(co, in, &s);
		}
		if (k)
			g_array_remove_range(q, 0, k);
	}

	/* gaps between data segments, every one counted */
	if (len > 0 && !retrans) {
		if (in->have_data[d] && pkt->ts >= in->last_data_ts[d])
			fs->gaps[d][gap_bin((double)(pkt->ts - in->last_data_ts[d]) / 1e9)]++;
		in->last_data_ts[d] = pkt->ts;
		in->have_data[d] = true;
	}
	add_point(co, in, &p);
	if (co->record && !in->kept_full) {
		if (!in->kept_pkts)
			in->kept_pkts = g_array_new(FALSE, FALSE, sizeof(seen_pkt));
		if (in->kept_pkts->len >= SEEN_MAX) {
			in->kept_full = true;
		} else {
			seen_pkt sp = {.frame = p.frame, .ts = p.ts, .seq = p.seq, .ack = p.ack,
				       .len = len, .flags = fl, .dir = (uint8_t)d};
			g_array_append_val(in->kept_pkts, sp);
		}
	}
}

static void add_evidence(GArray *ev, GHashTable *all, uint64_t frame)
{
	if (!frame)
		return;
	g_array_append_val(ev, frame);
	uint64_t *k = g_new(uint64_t, 1);
	*k = frame;
	g_hash_table_add(all, k);
}

/* The flows to draw: those the findings name, warnings and errors first,
 * capture-quality notes left out; TCP only; at most max_flows. */
static size_t pick_flows(const pd_report *r, collector *co, size_t max_flows)
{
	size_t picked = 0, left_out = 0;
	GHashTable *seen = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	for (int pass = 0; pass < 2; pass++) {
		for (guint i = 0; r->findings && i < r->findings->len; i++) {
			const pd_finding *f = r->findings->pdata[i];
			if ((f->def && f->def->category == PD_CAT_CAPTURE) || !f->flows)
				continue;
			if ((pass == 0) != (f->severity >= PD_SEV_WARNING))
				continue;
			for (guint j = 0; j < f->flows->len; j++) {
				const pd_flow_ref *ref = &g_array_index(f->flows, pd_flow_ref, j);
				if (ref->proto != 6)
					continue;
				gint64 id = (gint64)ref->flow_id;
				flagged *fl = g_hash_table_lookup(seen, &id);
				if (!fl) {
					if (picked >= max_flows) {
						left_out++;
						continue;
					}
					fl = g_new0(flagged, 1);
					fl->ref = *ref;
					fl->evidence = g_array_new(FALSE, FALSE, sizeof(uint64_t));
					gint64 *k = g_new(gint64, 1);
					*k = id;
					g_hash_table_insert(seen, k, fl);
					key kk;
					make_key(&kk, &ref->client, ref->client_port, &ref->server,
						 ref->server_port);
					tuple *t = g_hash_table_lookup(co->tuples, &kk);
					if (!t) {
						t = g_new0(tuple, 1);
						t->k = kk;
						t->client = ref->client;
						t->cport = ref->client_port;
						t->insts = g_ptr_array_new_with_free_func(inst_free);
						t->flows = g_ptr_array_new_with_free_func(flagged_free);
						g_hash_table_insert(co->tuples, &t->k, t);
					}
					g_ptr_array_add(t->flows, fl);
					picked++;
				}
				add_evidence(fl->evidence, co->evidence, f->first.frame);
				add_evidence(fl->evidence, co->evidence, f->last.frame);
				for (guint e = 0; f->examples && e < f->examples->len; e++)
					add_evidence(fl->evidence, co->evidence,
						     g_array_index(f->examples, pd_evidence, e).frame);
			}
		}
	}
	g_hash_table_destroy(seen);
	return left_out;
}

static gint cmp_flow_id(gconstpointer a, gconstpointer b)
{
	const flagged *fa = *(const flagged *const *)a, *fb = *(const flagged *const *)b;
	return fa->ref.flow_id < fb->ref.flow_id ? -1 : fa->ref.flow_id > fb->ref.flow_id;
}

/* Reads the capture once more, feeding the packets of the wanted tuples
 * to their connections. */
static bool read_tuples(collector *co, const char *const *paths, size_t n, const char *filter,
			GError **err)
{
	pd_reader *rd = pd_reader_open(paths, n, filter, err);
	if (!rd)
		return false;
	pd_frame fr;
	pd_packet pkt;
	while (pd_reader_next(rd, &fr)) {
		if (!co->span_set) {
			co->span[0] = co->span[1] = fr.ts;
			co->span_set = true;
		}
		co->span[0] = MIN(co->span[0], fr.ts);
		co->span[1] = MAX(co->span[1], fr.ts);
		if (pd_frame_dissect(&fr, &pkt) != PD_DISSECT_OK || pkt.l4 != PD_L4_TCP ||
		    (pkt.ip.is_fragment && pkt.ip.frag_offset))
			continue;
		key k;
		make_key(&k, &pkt.ip.src, pkt.tcp.sport, &pkt.ip.dst, pkt.tcp.dport);
		tuple *t = g_hash_table_lookup(co->tuples, &k);
		if (!t)
			continue;
		int d = pd_addr_equal(&pkt.ip.src, &t->client) && pkt.tcp.sport == t->cport ? 0 : 1;
		inst *cur = t->insts->len ? t->insts->pdata[t->insts->len - 1] : NULL;
		bool fresh_syn = (pkt.tcp.flags & (PD_TCP_SYN | PD_TCP_ACK)) == PD_TCP_SYN;
		if (!cur || (fresh_syn && t->insts->len < MAX_INSTANCES &&
			     (cur->closed || (cur->syn_seen[0] && pkt.tcp.seq != cur->syn_seq[0]) ||
			      (cur->fs->packets && !cur->syn_seen[0])))) {
			cur = inst_new();
			g_ptr_array_add(t->insts, cur);
		}
		packet(co, cur, d, &pkt);
	}
	pd_reader_close(rd);
	return true;
}

/* A flagged flow's series, taken from its connection, with the packets
 * kept to match them against the other capture point. */
typedef struct chosen {
	pd_flow_series *fs;
	GArray *seen; /* seen_pkt, or NULL */
	bool syns; /* both SYNs seen: seq and ack count from the ISNs */
} chosen;

static chosen *chosen_take(inst *in)
{
	chosen *ch = g_new0(chosen, 1);
	ch->fs = in->fs;
	in->fs = NULL;
	if (!in->kept_full) {
		ch->seen = in->kept_pkts;
		in->kept_pkts = NULL;
	}
	ch->syns = in->syn_seen[0] && in->syn_seen[1];
	return ch;
}

static void chosen_free(gpointer p)
{
	chosen *ch = p;
	series_free(ch->fs);
	if (ch->seen)
		g_array_unref(ch->seen);
	g_free(ch);
}

/* ---------- the other capture point ---------- */

static int cmp_key(const seen_pkt *a, const seen_pkt *b)
{
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	if (a->ack != b->ack)
		return a->ack < b->ack ? -1 : 1;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	int fa = a->flags & KEY_FLAGS, fb = b->flags & KEY_FLAGS;
	return fa < fb ? -1 : fa > fb;
}

static gint cmp_seen(gconstpointer pa, gconstpointer pb)
{
	const seen_pkt *a = pa, *b = pb;
	int c = cmp_key(a, b);
	if (c)
		return c;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->frame < b->frame ? -1 : a->frame > b->frame;
}

static GArray *one_dir_sorted(const GArray *all, int d)
{
	GArray *a = g_array_new(FALSE, FALSE, sizeof(seen_pkt));
	for (guint i = 0; i < all->len; i++)
		if (g_array_index(all, seen_pkt, i).dir == d)
			g_array_append_val(a, g_array_index(all, seen_pkt, i));
	g_array_sort(a, cmp_seen);
	return a;
}

static void add_frame(GHashTable *set, uint64_t frame)
{
	uint64_t *k = g_new(uint64_t, 1);
	*k = frame;
	g_hash_table_add(set, k);
}

/* One direction's packets matched between the upstream and downstream
 * points, by (seq, ack, length, SYN/FIN/RST/ACK) from each point's own
 * ISNs, as analyzer/points.c does: with more copies upstream, each
 * downstream copy takes the latest upstream one before it (the first
 * transmission was lost, its retransmission crossed); with more copies
 * downstream, each upstream copy the first downstream one after it. What
 * stays unmatched goes to only_up / only_down, unless it lies outside the
 * time the other file covers (margin: twice the median one-way delay)
 * and no copy of it crossed. Times are in one clock. */
static void match_dir(const GArray *up_all, const GArray *down_all, int d, const pd_time up_span[2],
		      const pd_time down_span[2], pd_time margin, GHashTable *only_up,
		      GHashTable *only_down)
{
	GArray *up = one_dir_sorted(up_all, d), *dn = one_dir_sorted(down_all, d);
	/* each packet's time, and the copy at the other point it matched */
	pd_time *t_up = g_new(pd_time, up->len + 1), *t_dn = g_new(pd_time, dn->len + 1);
	int32_t *m_up = g_new(int32_t, up->len + 1), *m_dn = g_new(int32_t, dn->len + 1);
	for (guint c = 0; c < up->len; c++)
		t_up[c] = g_array_index(up, seen_pkt, c).ts;
	for (guint q = 0; q < dn->len; q++)
		t_dn[q] = g_array_index(dn, seen_pkt, q).ts;
	guint i = 0, j = 0;
	while (i < up->len || j < dn->len) {
		const seen_pkt *k = i < up->len && (j >= dn->len ||
						    cmp_key(&g_array_index(up, seen_pkt, i),
							    &g_array_index(dn, seen_pkt, j)) <= 0)
					    ? &g_array_index(up, seen_pkt, i)
					    : &g_array_index(dn, seen_pkt, j);
		seen_pkt key_copy = *k;
		guint ie = i, je = j;
		while (ie < up->len && !cmp_key(&g_array_index(up, seen_pkt, ie), &key_copy))
			ie++;
		while (je < dn->len && !cmp_key(&g_array_index(dn, seen_pkt, je), &key_copy))
			je++;
		guint n = ie - i, m = je - j;
		const seen_pkt *u = n ? &g_array_index(up, seen_pkt, i) : NULL;
		const seen_pkt *w = m ? &g_array_index(dn, seen_pkt, j) : NULL;
		pd_points_match_copies(t_up + i, n, t_dn + j, m, 0, m_up + i, m_dn + j);
		for (guint c = 0; c < n; c++)
			if (m_up[i + c] < 0 &&
			    (m || (u[c].ts >= down_span[0] && u[c].ts + margin <= down_span[1])))
				add_frame(only_up, u[c].frame);
		for (guint q = 0; q < m; q++)
			if (m_dn[j + q] < 0 &&
			    (n || (w[q].ts - margin >= up_span[0] && w[q].ts <= up_span[1])))
				add_frame(only_down, w[q].frame);
		i = ie;
		j = je;
	}
	g_free(t_up);
	g_free(t_dn);
	g_free(m_up);
	g_free(m_dn);
	g_array_unref(up);
	g_array_unref(dn);
}

static gint cmp_point_frame(gconstpointer pa, gconstpointer pb)
{
	const pd_series_point *a = pa, *b = pb;
	return a->frame < b->frame ? -1 : a->frame > b->frame;
}

/* Marks the drawn packets seen at this point only; those the sample
 * thinned out are put back (at most max_extra), so every one is drawn. */
static void mark_one_point(pd_flow_series *fs, const GArray *seen, GHashTable *frames, size_t max_extra)
{
	if (!g_hash_table_size(frames))
		return;
	GHashTable *drawn = g_hash_table_new(g_int64_hash, g_int64_equal);
	for (guint i = 0; i < fs->points->len; i++) {
		pd_series_point *p = &g_array_index(fs->points, pd_series_point, i);
		if (g_hash_table_contains(frames, &p->frame)) {
			p->marks |= PD_MARK_ONE_POINT;
			g_hash_table_add(drawn, &p->frame);
		}
	}
	GArray *extra = g_array_new(FALSE, TRUE, sizeof(pd_series_point));
	for (guint i = 0; i < seen->len && extra->len < max_extra; i++) {
		const seen_pkt *e = &g_array_index(seen, seen_pkt, i);
		if (!g_hash_table_contains(frames, &e->frame) || g_hash_table_contains(drawn, &e->frame))
			continue;
		pd_series_point p = {.frame = e->frame, .ts = e->ts, .seq = e->seq, .len = e->len,
				     .ack = e->ack, .dir = e->dir, .flags = e->flags,
				     .marks = PD_MARK_ONE_POINT | (e->flags & PD_TCP_SYN ? PD_MARK_SYN : 0)};
		g_array_append_val(extra, p);
	}
	g_hash_table_destroy(drawn);
	if (extra->len) {
		g_array_append_vals(fs->points, extra->data, extra->len);
		g_array_sort(fs->points, cmp_point_frame);
	}
	g_array_unref(extra);
}

static void shift_series(pd_flow_series *fs, GArray *seen, pd_time shift)
{
	fs->first_ts += shift;
	fs->last_ts += shift;
	for (guint i = 0; i < fs->points->len; i++)
		g_array_index(fs->points, pd_series_point, i).ts += shift;
	for (guint i = 0; i < fs->rtt->len; i++)
		g_array_index(fs->rtt, pd_series_rtt, i).ts += shift;
	for (guint i = 0; seen && i < seen->len; i++)
		g_array_index(seen, seen_pkt, i).ts += shift;
}

/* The pairing's connection that the series at point a shows. */
static const pd_points_conn *conn_of(const pd_points *pts, int a, const pd_flow_series *fs)
{
	for (guint i = 0; pts->conns && i < pts->conns->len; i++) {
		const pd_points_conn *c = &g_array_index(pts->conns, pd_points_conn, i);
		if (pd_addr_equal(&c->client[a], &fs->ref.client) && c->cport[a] == fs->ref.client_port &&
		    pd_addr_equal(&c->server[a], &fs->ref.server) && c->sport[a] == fs->ref.server_port &&
		    c->first_frame[a] >= fs->first_frame && c->first_frame[a] <= fs->last_frame)
			return c;
	}
	return NULL;
}

typedef struct partner_want {
	chosen *ch;
	const pd_points_conn *conn;
	tuple *t;
} partner_want;

/* Two capture points: each chosen flow's connection at the other point,
 * read from the other file (its own tuple there: NAT), moved into the
 * analysed file's clock, and the packets of both matched. */
static void collect_partners(const pd_report *r, GHashTable *chosen_by_id, const collector *mine,
			     const char *filter)
{
	const pd_points *pts = r->points;
	int a = pts->analysed, o = 1 - a;
	collector co = {
		.tuples = g_hash_table_new_full(key_hash, key_equal, NULL, tuple_free),
		.evidence = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL),
		.max_points = mine->max_points,
		.max_rtt = mine->max_rtt,
		.record = true,
	};
	GArray *wants = g_array_new(FALSE, FALSE, sizeof(partner_want));
	GHashTableIter it;
	gpointer kp, vp;
	g_hash_table_iter_init(&it, chosen_by_id);
	while (g_hash_table_iter_next(&it, &kp, &vp)) {
		chosen *ch = vp;
		const pd_points_conn *c = conn_of(pts, a, ch->fs);
		if (!c)
			continue;
		key kk;
		make_key(&kk, &c->client[o], c->cport[o], &c->server[o], c->sport[o]);
		tuple *t = g_hash_table_lookup(co.tuples, &kk);
		if (!t) {
			t = g_new0(tuple, 1);
			t->k = kk;
			t->client = c->client[o];
			t->cport = c->cport[o];
			t->insts = g_ptr_array_new_with_free_func(inst_free);
			t->flows = g_ptr_array_new_with_free_func(flagged_free);
			g_hash_table_insert(co.tuples, &t->k, t);
		}
		partner_want w = {.ch = ch, .conn = c, .t = t};
		g_array_append_val(wants, w);
	}
	if (wants->len && read_tuples(&co, (const char *const *)&pts->files[o], 1, filter, NULL)) {
		/* offset_s is point 1's clock minus point 0's */
		pd_time shift = (pd_time)llround((o == 1 ? -pts->offset_s : pts->offset_s) * 1e9);
		pd_time other_span[2] = {co.span[0] + shift, co.span[1] + shift};
		for (guint w = 0; w < wants->len; w++) {
			partner_want *pw = &g_array_index(wants, partner_want, w);
			uint64_t first = pw->conn->first_frame[o];
			inst *in = NULL;
			for (guint i = 0; i < pw->t->insts->len && !in; i++) {
				inst *x = pw->t->insts->pdata[i];
				if (x->fs && first >= x->fs->first_frame && first <= x->fs->last_frame)
					in = x;
			}
			if (!in)
				continue;
			pd_flow_series *fs = pw->ch->fs, *ps = in->fs;
			in->fs = NULL;
			GArray *pseen = in->kept_full ? NULL : in->kept_pkts;
			shift_series(ps, pseen, shift);
			ps->ref = fs->ref;
			ps->ref.client = pw->conn->client[o];
			ps->ref.client_port = pw->conn->cport[o];
			ps->ref.server = pw->conn->server[o];
			ps->ref.server_port = pw->conn->sport[o];
			ps->data_dir = fs->data_dir;
			ps->point = o;
			ps->shift = shift;
			fs->point = a;
			fs->partner = ps;
			if (!pw->ch->seen || !pseen || !pw->ch->syns || !in->syn_seen[0] ||
			    !in->syn_seen[1] || pts->client_side < 0 || pts->client_side > 1)
				continue;
			const GArray *seen[2];
			seen[a] = pw->ch->seen;
			seen[o] = pseen;
			const pd_time *span[2];
			span[a] = mine->span;
			span[o] = other_span;
			GHashTable *only[2];
			for (int p = 0; p < 2; p++)
				only[p] = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
			for (int d = 0; d < 2; d++) {
				int up = d == 0 ? pts->client_side : 1 - pts->client_side;
				double p50 = pts->total[d].delay_p50_ms > 0 ? pts->total[d].delay_p50_ms : 0.5;
				pd_time margin = (pd_time)llround(2 * p50 * 1e6);
				match_dir(seen[up], seen[1 - up], d, span[up], span[1 - up], margin, only[up],
					  only[1 - up]);
			}
			mark_one_point(fs, seen[a], only[a], mine->max_points / 4);
			mark_one_point(ps, seen[o], only[o], mine->max_points / 4);
			fs->points_matched = ps->points_matched = true;
			for (int p = 0; p < 2; p++)
				g_hash_table_destroy(only[p]);
		}
	}
	g_array_unref(wants);
	g_hash_table_destroy(co.tuples);
	g_hash_table_destroy(co.evidence);
}

bool pd_series_collect(pd_report *r, const char *const *paths, size_t n, const char *filter,
		       size_t max_flows, size_t max_points, GError **err)
{
	pd_series_set_free(r->series);
	pd_series_set *set = g_new0(pd_series_set, 1);
	set->flows = g_ptr_array_new();
	set->max_points = max_points ? max_points : PD_SERIES_MAX_POINTS;
	r->series = set;
	for (size_t i = 0; i < n; i++)
		if (strcmp(paths[i], "-") == 0) {
			set->unavailable = g_strdup("stdin");
			return false;
		}

	/* two capture points: the run read one of the files; the other is
	 * read here too, for the same connections */
	const pd_points *pts = r->points;
	bool two = pts && pts->verdict == PD_POINTS_TWO && n == 1 && (pts->analysed == 0 || pts->analysed == 1) &&
		   pts->files[0] && pts->files[1];
	collector co = {
		.tuples = g_hash_table_new_full(key_hash, key_equal, NULL, tuple_free),
		.evidence = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL),
		.max_points = set->max_points,
		.max_rtt = PD_SERIES_MAX_RTT,
		.record = two,
	};
	set->flows_left_out = pick_flows(r, &co, max_flows ? max_flows : PD_SERIES_MAX_FLOWS);
	bool ok = true;
	if (g_hash_table_size(co.tuples) > 0)
		ok = read_tuples(&co, paths, n, filter, err);

	/* each flagged flow takes the connection its evidence frames fall in;
	 * flows on the same ports otherwise in the order they were opened */
	GHashTableIter it;
	gpointer kp, vp;
	GHashTable *chosen_by_id = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, chosen_free);
	g_hash_table_iter_init(&it, co.tuples);
	while (g_hash_table_iter_next(&it, &kp, &vp)) {
		tuple *t = vp;
		g_ptr_array_sort(t->flows, cmp_flow_id);
		for (guint k = 0; k < t->flows->len; k++) {
			flagged *fl = t->flows->pdata[k];
			int best = -1;
			guint best_hits = 0;
			for (guint i = 0; i < t->insts->len; i++) {
				inst *in = t->insts->pdata[i];
				if (!in->fs)
					continue;
				guint hits = 0;
				for (guint e = 0; e < fl->evidence->len; e++) {
					uint64_t fr = g_array_index(fl->evidence, uint64_t, e);
					hits += fr >= in->fs->first_frame && fr <= in->fs->last_frame;
				}
				if (hits > best_hits) {
					best_hits = hits;
					best = (int)i;
				}
			}
			if (best < 0 && k < t->insts->len && ((inst *)t->insts->pdata[k])->fs)
				best = (int)k;
			if (best < 0)
				continue;
			chosen *ch = chosen_take(t->insts->pdata[best]); /* now the report's */
			ch->fs->ref = fl->ref;
			ch->fs->data_dir = ch->fs->payload[1] > ch->fs->payload[0] ? 1 : 0;
			gint64 *id = g_new(gint64, 1);
			*id = (gint64)fl->ref.flow_id;
			g_hash_table_insert(chosen_by_id, id, ch);
		}
	}
	if (two && ok && g_hash_table_size(chosen_by_id))
		collect_partners(r, chosen_by_id, &co, filter);
	/* in the order the findings name the flows */
	for (int pass = 0; pass < 2; pass++)
		for (guint i = 0; r->findings && i < r->findings->len; i++) {
			const pd_finding *f = r->findings->pdata[i];
			if ((pass == 0) != (f->severity >= PD_SEV_WARNING) || !f->flows)
				continue;
			for (guint j = 0; j < f->flows->len; j++) {
				gint64 id = (gint64)g_array_index(f->flows, pd_flow_ref, j).flow_id;
				chosen *ch = g_hash_table_lookup(chosen_by_id, &id);
				if (ch) {
					g_ptr_array_add(set->flows, ch->fs);
					ch->fs = NULL;
					g_hash_table_remove(chosen_by_id, &id);
				}
			}
		}
	g_hash_table_destroy(chosen_by_id);
	g_hash_table_destroy(co.tuples);
	g_hash_table_destroy(co.evidence);
	return ok;
}
