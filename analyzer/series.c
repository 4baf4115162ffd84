/* The packet series for the HTML report's pictures (see series.h): a
 * second, self-contained read of the capture that looks only at the TCP
 * packets of the flows the finished report's findings name. */
#include "analyzer/series.h"

#include <math.h>
#include <string.h>

#include "capture/reader.h"
#include "dissect/dissect.h"

#define MAX_INSTANCES 8 /* connections kept per 5-tuple (ports reused) */
#define RTT_QUEUE_MAX 8192 /* outstanding segments per direction for RTT */

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

	collector co = {
		.tuples = g_hash_table_new_full(key_hash, key_equal, NULL, tuple_free),
		.evidence = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL),
		.max_points = set->max_points,
		.max_rtt = PD_SERIES_MAX_RTT,
	};
	set->flows_left_out = pick_flows(r, &co, max_flows ? max_flows : PD_SERIES_MAX_FLOWS);
	bool ok = true;
	if (g_hash_table_size(co.tuples) > 0) {
		pd_reader *rd = pd_reader_open(paths, n, filter, err);
		if (!rd) {
			ok = false;
		} else {
			pd_frame fr;
			pd_packet pkt;
			while (pd_reader_next(rd, &fr)) {
				if (pd_frame_dissect(&fr, &pkt) != PD_DISSECT_OK || pkt.l4 != PD_L4_TCP ||
				    (pkt.ip.is_fragment && pkt.ip.frag_offset))
					continue;
				key k;
				make_key(&k, &pkt.ip.src, pkt.tcp.sport, &pkt.ip.dst, pkt.tcp.dport);
				tuple *t = g_hash_table_lookup(co.tuples, &k);
				if (!t)
					continue;
				int d = pd_addr_equal(&pkt.ip.src, &t->client) && pkt.tcp.sport == t->cport
						? 0
						: 1;
				inst *cur = t->insts->len ? t->insts->pdata[t->insts->len - 1] : NULL;
				bool fresh_syn = (pkt.tcp.flags & (PD_TCP_SYN | PD_TCP_ACK)) == PD_TCP_SYN;
				if (!cur || (fresh_syn && t->insts->len < MAX_INSTANCES &&
					     (cur->closed || (cur->syn_seen[0] && pkt.tcp.seq != cur->syn_seq[0]) ||
					      (cur->fs->packets && !cur->syn_seen[0])))) {
					cur = inst_new();
					g_ptr_array_add(t->insts, cur);
				}
				packet(&co, cur, d, &pkt);
			}
			pd_reader_close(rd);
		}
	}

	/* each flagged flow takes the connection its evidence frames fall in;
	 * flows on the same ports otherwise in the order they were opened */
	GHashTableIter it;
	gpointer kp, vp;
	GHashTable *chosen = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
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
			inst *in = t->insts->pdata[best];
			pd_flow_series *fs = in->fs;
			in->fs = NULL; /* now the report's */
			fs->ref = fl->ref;
			fs->data_dir = fs->payload[1] > fs->payload[0] ? 1 : 0;
			gint64 *id = g_new(gint64, 1);
			*id = (gint64)fl->ref.flow_id;
			g_hash_table_insert(chosen, id, fs);
		}
	}
	/* in the order the findings name the flows */
	for (int pass = 0; pass < 2; pass++)
		for (guint i = 0; r->findings && i < r->findings->len; i++) {
			const pd_finding *f = r->findings->pdata[i];
			if ((pass == 0) != (f->severity >= PD_SEV_WARNING) || !f->flows)
				continue;
			for (guint j = 0; j < f->flows->len; j++) {
				gint64 id = (gint64)g_array_index(f->flows, pd_flow_ref, j).flow_id;
				pd_flow_series *fs = g_hash_table_lookup(chosen, &id);
				gpointer key_out = NULL;
				if (fs && g_hash_table_steal_extended(chosen, &id, &key_out, NULL)) {
					g_ptr_array_add(set->flows, fs);
					g_free(key_out);
				}
			}
		}
	g_hash_table_iter_init(&it, chosen);
	while (g_hash_table_iter_next(&it, &kp, &vp))
		series_free(vp);
	g_hash_table_destroy(chosen);
	g_hash_table_destroy(co.tuples);
	g_hash_table_destroy(co.evidence);
	return ok;
}
