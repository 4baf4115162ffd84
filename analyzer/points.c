/* Two capture points of the same connections: the pairing pre-pass
 * (analyzer/points.h; the method is in docs/two-points.md). */
#include "analyzer/points.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "capture/reader.h"
#include "dissect/dissect.h"

/* Packets kept per file: beyond, the pairing covers the first ones. */
#define PT_MAX_RECS (4u << 20)
#define PT_FLAGS_KEY (PD_TCP_SYN | PD_TCP_FIN | PD_TCP_RST | PD_TCP_ACK)

typedef struct prec {
	pd_time ts;
	uint64_t frame;
	uint32_t seq, ack, len;
	uint8_t dir, flags, ttl, tos;
	int8_t ws;
	uint8_t opt; /* 1 MSS, 2 SACK permitted, 4 timestamps */
	uint16_t mss;
	uint32_t tsval;
	int32_t match; /* index in the partner connection's recs, -1 */
} prec;

typedef struct pconn {
	pd_addr a[2]; /* [0] client, [1] server */
	uint16_t p[2];
	bool role_known;
	bool has_isn[2];
	uint32_t isn[2];
	uint32_t syn_tsval; /* the client's SYN, 0 none */
	GArray *recs; /* prec, capture order */
	int partner; /* index in the other file's conns, -1 */
} pconn;

typedef struct pfile {
	GArray *conns; /* pconn */
	GHashTable *by_tuple; /* tuple key -> index + 1 (the latest) */
	uint64_t packets;
	pd_time first_ts, last_ts;
	bool capped, truncated;
} pfile;

typedef struct tkey {
	pd_addr a[2];
	uint16_t p[2];
} tkey;

static guint tkey_hash(gconstpointer k)
{
	const tkey *t = k;
	return (guint)(pd_addr_hash64(&t->a[0]) ^ pd_mix64(pd_addr_hash64(&t->a[1]) + t->p[0] * 65537u + t->p[1]));
}

static gboolean tkey_eq(gconstpointer x, gconstpointer y)
{
	const tkey *a = x, *b = y;
	return a->p[0] == b->p[0] && a->p[1] == b->p[1] && pd_addr_equal(&a->a[0], &b->a[0]) &&
	       pd_addr_equal(&a->a[1], &b->a[1]);
}

/* The tuple in a canonical order (lower endpoint first). */
static void tkey_make(tkey *k, const pd_addr *sa, uint16_t sp, const pd_addr *da, uint16_t dp)
{
	memset(k, 0, sizeof *k);
	int c = pd_addr_cmp(sa, da);
	bool swap = c > 0 || (c == 0 && sp > dp);
	k->a[0] = swap ? *da : *sa;
	k->a[1] = swap ? *sa : *da;
	k->p[0] = swap ? dp : sp;
	k->p[1] = swap ? sp : dp;
}

static void pfile_clear(pfile *f)
{
	if (f->conns) {
		for (guint i = 0; i < f->conns->len; i++)
			g_array_unref(g_array_index(f->conns, pconn, i).recs);
		g_array_unref(f->conns);
	}
	if (f->by_tuple)
		g_hash_table_destroy(f->by_tuple);
}

static void conn_flip(pconn *c)
{
	pd_addr a = c->a[0];
	uint16_t p = c->p[0];
	c->a[0] = c->a[1];
	c->p[0] = c->p[1];
	c->a[1] = a;
	c->p[1] = p;
	for (guint i = 0; i < c->recs->len; i++)
		g_array_index(c->recs, prec, i).dir ^= 1;
	bool h = c->has_isn[0];
	uint32_t s = c->isn[0];
	c->has_isn[0] = c->has_isn[1];
	c->isn[0] = c->isn[1];
	c->has_isn[1] = h;
	c->isn[1] = s;
}

static void add_packet(pfile *f, const pd_packet *pkt)
{
	const pd_tcp *t = &pkt->tcp;
	tkey k;
	tkey_make(&k, &pkt->ip.src, t->sport, &pkt->ip.dst, t->dport);
	bool syn = (t->flags & (PD_TCP_SYN | PD_TCP_ACK)) == PD_TCP_SYN;
	bool synack = (t->flags & (PD_TCP_SYN | PD_TCP_ACK)) == (PD_TCP_SYN | PD_TCP_ACK);
	gpointer v = g_hash_table_lookup(f->by_tuple, &k);
	pconn *c = v ? &g_array_index(f->conns, pconn, GPOINTER_TO_UINT(v) - 1) : NULL;
	/* a SYN with another ISN: a new connection on the same tuple */
	if (c && syn && c->has_isn[0] && c->isn[0] != t->seq && pd_addr_equal(&c->a[0], &pkt->ip.src) &&
	    c->p[0] == t->sport)
		c = NULL;
	if (!c) {
		pconn n = {0};
		n.recs = g_array_new(FALSE, FALSE, sizeof(prec));
		n.partner = -1;
		/* the SYN's sender is the client; without one, the higher port */
		bool src_client = synack ? false : syn ? true : t->sport > t->dport;
		n.a[0] = src_client ? pkt->ip.src : pkt->ip.dst;
		n.p[0] = src_client ? t->sport : t->dport;
		n.a[1] = src_client ? pkt->ip.dst : pkt->ip.src;
		n.p[1] = src_client ? t->dport : t->sport;
		n.role_known = syn || synack;
		g_array_append_val(f->conns, n);
		tkey *kk = g_new(tkey, 1);
		*kk = k;
		g_hash_table_replace(f->by_tuple, kk, GUINT_TO_POINTER(f->conns->len));
		c = &g_array_index(f->conns, pconn, f->conns->len - 1);
	}
	uint8_t dir = pd_addr_equal(&c->a[0], &pkt->ip.src) && c->p[0] == t->sport ? 0 : 1;
	if (!c->role_known && (syn || synack)) {
		c->role_known = true;
		if ((syn && dir == 1) || (synack && dir == 0)) {
			conn_flip(c);
			dir ^= 1;
		}
	}
	if (syn && dir == 0 && !c->has_isn[0]) {
		c->has_isn[0] = true;
		c->isn[0] = t->seq;
		c->syn_tsval = t->has_ts ? t->tsval : 0;
	}
	if (synack && dir == 1 && !c->has_isn[1]) {
		c->has_isn[1] = true;
		c->isn[1] = t->seq;
	}
	prec r = {
		.ts = pkt->ts,
		.frame = pkt->frame_no,
		.seq = t->seq,
		.ack = (t->flags & PD_TCP_ACK) ? t->ack : 0,
		.len = t->payload_len,
		.dir = dir,
		.flags = t->flags,
		.ttl = pkt->ip.ttl,
		.tos = pkt->ip.tos,
		.ws = t->wscale,
		.opt = (uint8_t)((t->has_mss ? 1 : 0) | (t->sack_permitted ? 2 : 0) | (t->has_ts ? 4 : 0)),
		.mss = t->has_mss ? t->mss : 0,
		.tsval = t->has_ts ? t->tsval : 0,
		.match = -1,
	};
	g_array_append_val(c->recs, r);
}

static bool read_file(const char *path, const char *filter, pfile *f)
{
	memset(f, 0, sizeof *f);
	GError *err = NULL;
	const char *paths[1] = {path};
	pd_reader *rd = pd_reader_open(paths, 1, filter, &err);
	if (!rd) {
		g_clear_error(&err);
		return false;
	}
	f->conns = g_array_new(FALSE, FALSE, sizeof(pconn));
	f->by_tuple = g_hash_table_new_full(tkey_hash, tkey_eq, g_free, NULL);
	f->first_ts = INT64_MAX;
	f->last_ts = INT64_MIN;
	pd_frame fr;
	pd_packet pkt;
	while (pd_reader_next(rd, &fr)) {
		memset(&pkt, 0, sizeof pkt);
		pkt.frame_no = fr.frame_no;
		pkt.ts = fr.ts;
		pkt.caplen = fr.caplen;
		pkt.wirelen = fr.wirelen;
		pkt.linktype = fr.linktype;
		pkt.file_index = 0;
		if (pd_dissect(&pkt, fr.data) != PD_DISSECT_OK || pkt.l4 != PD_L4_TCP || pkt.ip.is_fragment)
			continue;
		f->first_ts = MIN(f->first_ts, pkt.ts);
		f->last_ts = MAX(f->last_ts, pkt.ts);
		if (f->packets >= PT_MAX_RECS) {
			f->capped = true;
			continue;
		}
		f->packets++;
		add_packet(f, &pkt);
	}
	f->truncated = pd_reader_truncated(rd);
	pd_reader_close(rd);
	return true;
}

/* ---- pairing connections ---- */

static void pair_conns(pfile *fa, pfile *fb)
{
	GHashTable *by_isn = g_hash_table_new(g_int64_hash, g_int64_equal);
	GHashTable *by_ts = g_hash_table_new(g_int64_hash, g_int64_equal);
	GArray *keys = g_array_sized_new(FALSE, FALSE, sizeof(gint64), fb->conns->len * 2 + 1);
	/* keys must not move while the tables point at them */
	g_array_set_size(keys, fb->conns->len * 2);
	for (guint j = 0; j < fb->conns->len; j++) {
		const pconn *c = &g_array_index(fb->conns, pconn, j);
		gint64 *ki = &g_array_index(keys, gint64, 2 * j), *kt = &g_array_index(keys, gint64, 2 * j + 1);
		*ki = c->has_isn[0] ? (gint64)c->isn[0] : -1;
		*kt = c->syn_tsval ? (gint64)c->syn_tsval : -1;
		if (*ki >= 0 && !g_hash_table_contains(by_isn, ki))
			g_hash_table_insert(by_isn, ki, GUINT_TO_POINTER(j + 1));
		if (*kt >= 0 && !g_hash_table_contains(by_ts, kt))
			g_hash_table_insert(by_ts, kt, GUINT_TO_POINTER(j + 1));
	}
	for (guint i = 0; i < fa->conns->len; i++) {
		pconn *c = &g_array_index(fa->conns, pconn, i);
		guint j = 0;
		if (c->has_isn[0]) {
			gint64 k = c->isn[0];
			j = GPOINTER_TO_UINT(g_hash_table_lookup(by_isn, &k));
		}
		if (!j && c->syn_tsval) {
			gint64 k = c->syn_tsval;
			j = GPOINTER_TO_UINT(g_hash_table_lookup(by_ts, &k));
		}
		if (!j && !c->has_isn[0]) {
			/* mid-stream at A: the same tuple at B (no NAT) */
			tkey k;
			tkey_make(&k, &c->a[0], c->p[0], &c->a[1], c->p[1]);
			j = GPOINTER_TO_UINT(g_hash_table_lookup(fb->by_tuple, &k));
		}
		if (j && g_array_index(fb->conns, pconn, j - 1).partner < 0) {
			c->partner = (int)(j - 1);
			g_array_index(fb->conns, pconn, j - 1).partner = (int)i;
		}
	}
	g_hash_table_destroy(by_isn);
	g_hash_table_destroy(by_ts);
	g_array_unref(keys);
}

/* ---- matching packets within a pair ---- */

typedef struct mkey {
	uint32_t seq, ack, len;
	uint8_t dir, flags;
} mkey;

static guint mkey_hash(gconstpointer p)
{
	const mkey *k = p;
	return (guint)pd_mix64(((uint64_t)k->seq << 32 | k->ack) ^ pd_mix64((uint64_t)k->len << 16 | k->dir << 8 | k->flags));
}

static gboolean mkey_eq(gconstpointer x, gconstpointer y)
{
	const mkey *a = x, *b = y;
	return a->seq == b->seq && a->ack == b->ack && a->len == b->len && a->dir == b->dir && a->flags == b->flags;
}

typedef struct occ {
	mkey key;
	GArray *idx[2]; /* rec indices at point 0 and 1, capture order */
} occ;

static void occ_free(gpointer p)
{
	occ *o = p;
	g_array_unref(o->idx[0]);
	g_array_unref(o->idx[1]);
	g_free(o);
}

/* The ISN each point's sequence numbers count from, per direction: its own
 * where it saw the SYN, the other point's where only that one did. */
static void bases(const pconn *c0, const pconn *c1, uint32_t base[2][2])
{
	for (int d = 0; d < 2; d++) {
		if (c0->has_isn[d] && c1->has_isn[d]) {
			base[0][d] = c0->isn[d];
			base[1][d] = c1->isn[d];
		} else if (c0->has_isn[d] || c1->has_isn[d]) {
			base[0][d] = base[1][d] = c0->has_isn[d] ? c0->isn[d] : c1->isn[d];
		} else {
			base[0][d] = base[1][d] = 0;
		}
	}
}

static mkey key_of(const prec *r, const uint32_t base[2])
{
	mkey k = {0};
	k.seq = r->seq - base[r->dir];
	k.ack = (r->flags & PD_TCP_ACK) ? r->ack - base[!r->dir] : 0;
	k.len = r->len;
	k.dir = r->dir;
	k.flags = r->flags & PT_FLAGS_KEY;
	return k;
}

static GHashTable *build_occ(const pconn *c[2])
{
	uint32_t base[2][2];
	bases(c[0], c[1], base);
	GHashTable *t = g_hash_table_new_full(mkey_hash, mkey_eq, NULL, occ_free);
	for (int p = 0; p < 2; p++) {
		for (guint i = 0; i < c[p]->recs->len; i++) {
			mkey k = key_of(&g_array_index(c[p]->recs, prec, i), base[p]);
			occ *o = g_hash_table_lookup(t, &k);
			if (!o) {
				o = g_new0(occ, 1);
				o->key = k;
				o->idx[0] = g_array_new(FALSE, FALSE, sizeof(guint));
				o->idx[1] = g_array_new(FALSE, FALSE, sizeof(guint));
				g_hash_table_insert(t, &o->key, o);
			}
			g_array_append_val(o->idx[p], i);
		}
	}
	return t;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return a < b ? -1 : a > b;
}

static int cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

static double quantile(GArray *v, double q) /* v sorted */
{
	if (!v->len)
		return 0;
	size_t i = (size_t)floor(q * (v->len - 1) + 0.5);
	return g_array_index(v, double, i);
}

/* Matches the occurrences of one key: the i-th upstream copy with the
 * downstream one that came out of it. Equal counts match in order; with a
 * copy lost between the points, each downstream copy takes the latest
 * upstream copy that could have caused it (a first transmission dropped,
 * its retransmission arrived). times are in point 0's clock. */
static void match_key(const occ *o, pconn *c[2], int up, pd_time off, pd_time slack)
{
	int dn = !up;
	GArray *U = o->idx[up], *D = o->idx[dn];
	GArray *ru = c[up]->recs, *rd = c[dn]->recs;
#define T(p, arr, i) (g_array_index(c[p]->recs, prec, g_array_index(arr, guint, i)).ts - ((p) == 1 ? off : 0))
	if (U->len == D->len) {
		for (guint i = 0; i < U->len; i++) {
			prec *a = &g_array_index(ru, prec, g_array_index(U, guint, i));
			prec *b = &g_array_index(rd, prec, g_array_index(D, guint, i));
			a->match = (int32_t)g_array_index(D, guint, i);
			b->match = (int32_t)g_array_index(U, guint, i);
		}
		return;
	}
	guint next = 0;
	if (U->len > D->len) {
		for (guint j = 0; j < D->len; j++) {
			pd_time td = T(dn, D, j);
			guint best = G_MAXUINT;
			for (guint i = next; i < U->len && U->len - i >= D->len - j; i++) {
				if (T(up, U, i) <= td + slack)
					best = i;
				else
					break;
			}
			if (best == G_MAXUINT)
				continue;
			/* leave enough upstream copies for the downstream ones left */
			guint limit = U->len - (D->len - j);
			if (best > limit)
				best = limit;
			prec *a = &g_array_index(ru, prec, g_array_index(U, guint, best));
			prec *b = &g_array_index(rd, prec, g_array_index(D, guint, j));
			a->match = (int32_t)g_array_index(D, guint, j);
			b->match = (int32_t)g_array_index(U, guint, best);
			next = best + 1;
		}
	} else {
		for (guint i = 0; i < U->len; i++) {
			pd_time tu = T(up, U, i);
			for (guint j = next; j < D->len; j++) {
				if (T(dn, D, j) + slack >= tu) {
					prec *a = &g_array_index(ru, prec, g_array_index(U, guint, i));
					prec *b = &g_array_index(rd, prec, g_array_index(D, guint, j));
					a->match = (int32_t)g_array_index(D, guint, j);
					b->match = (int32_t)g_array_index(U, guint, i);
					next = j + 1;
					break;
				}
			}
		}
	}
#undef T
}

typedef struct mpair {
	pd_time t_up; /* point 0's clock */
	double delay_ms;
	uint32_t down_idx;
} mpair;

static int cmp_mpair(const void *x, const void *y)
{
	const mpair *a = x, *b = y;
	return a->t_up < b->t_up ? -1 : a->t_up > b->t_up;
}

static void dir_delays(pd_points_dir *d, GArray *pairs /* mpair */)
{
	if (!pairs->len)
		return;
	g_array_sort(pairs, cmp_mpair);
	GArray *v = g_array_sized_new(FALSE, FALSE, sizeof(double), pairs->len);
	uint32_t maxd = 0;
	for (guint i = 0; i < pairs->len; i++) {
		const mpair *m = &g_array_index(pairs, mpair, i);
		g_array_append_val(v, m->delay_ms);
		if (i && m->down_idx < maxd)
			d->reordered++;
		maxd = MAX(maxd, m->down_idx);
	}
	guint q = MAX(1u, v->len / 4);
	GArray *early = g_array_new(FALSE, FALSE, sizeof(double)), *late = g_array_new(FALSE, FALSE, sizeof(double));
	g_array_append_vals(early, v->data, q);
	g_array_append_vals(late, &g_array_index(v, double, v->len - q), q);
	g_array_sort(early, cmp_dbl);
	g_array_sort(late, cmp_dbl);
	d->delay_early_ms = quantile(early, 0.5);
	d->delay_late_ms = quantile(late, 0.5);
	g_array_sort(v, cmp_dbl);
	d->delay_n = v->len;
	d->delay_min_ms = g_array_index(v, double, 0);
	d->delay_p50_ms = quantile(v, 0.5);
	d->delay_p95_ms = quantile(v, 0.95);
	d->delay_max_ms = g_array_index(v, double, v->len - 1);
	g_array_unref(v);
	g_array_unref(early);
	g_array_unref(late);
}

static void add_dir(pd_points_dir *t, const pd_points_dir *d)
{
	t->both += d->both;
	t->only_up += d->only_up;
	t->only_down += d->only_down;
	t->outside += d->outside;
	t->lost_syn += d->lost_syn;
	t->lost_data += d->lost_data;
	t->reordered += d->reordered;
	t->dscp_changed += d->dscp_changed;
	t->ecn_changed += d->ecn_changed;
	t->ece_cwr_changed += d->ece_cwr_changed;
	if (t->ttl_up < 0 && d->ttl_up >= 0) {
		t->ttl_up = d->ttl_up;
		t->ttl_down = d->ttl_down;
	}
	for (uint32_t i = 0; i < d->n_lost_frames && t->n_lost_frames < PD_POINTS_MAX_LOST; i++)
		t->lost_frames[t->n_lost_frames++] = d->lost_frames[i];
	for (uint32_t i = 0; i < d->n_lost_syn_frames && t->n_lost_syn_frames < PD_POINTS_MAX_LOST; i++)
		t->lost_syn_frames[t->n_lost_syn_frames++] = d->lost_syn_frames[i];
}

static void syn_options(pd_points_conn *pc, pconn *c[2])
{
	for (int k = 0; k < 2; k++)
		for (int p = 0; p < 2; p++)
			pc->mss[k][p] = pc->wscale[k][p] = pc->sack[k][p] = pc->ts[k][p] = -1;
	for (int k = 0; k < 2; k++) { /* 0 the SYN, 1 the SYN-ACK */
		uint8_t want = k ? (PD_TCP_SYN | PD_TCP_ACK) : PD_TCP_SYN;
		for (guint i = 0; i < c[0]->recs->len; i++) {
			const prec *a = &g_array_index(c[0]->recs, prec, i);
			if ((a->flags & (PD_TCP_SYN | PD_TCP_ACK)) != want || a->match < 0)
				continue;
			const prec *b = &g_array_index(c[1]->recs, prec, a->match);
			const prec *r[2] = {a, b};
			for (int p = 0; p < 2; p++) {
				pc->mss[k][p] = (r[p]->opt & 1) ? r[p]->mss : -1;
				pc->wscale[k][p] = r[p]->ws;
				pc->sack[k][p] = (r[p]->opt & 2) ? 1 : 0;
				pc->ts[k][p] = (r[p]->opt & 4) ? 1 : 0;
			}
			break;
		}
	}
}

static void measure_pair(pd_points *pts, pconn *c[2], const pfile *f[2], pd_time off, pd_time slack,
			 pd_points_conn *pc)
{
	memset(pc, 0, sizeof *pc);
	for (int p = 0; p < 2; p++) {
		pc->client[p] = c[p]->a[0];
		pc->server[p] = c[p]->a[1];
		pc->cport[p] = c[p]->p[0];
		pc->sport[p] = c[p]->p[1];
		pc->first_frame[p] = c[p]->recs->len ? g_array_index(c[p]->recs, prec, 0).frame : 0;
	}
	pc->translated = !pd_addr_equal(&pc->client[0], &pc->client[1]) ||
			 !pd_addr_equal(&pc->server[0], &pc->server[1]) || pc->cport[0] != pc->cport[1] ||
			 pc->sport[0] != pc->sport[1];
	for (int d = 0; d < 2; d++) {
		pc->seq_known[d] = c[0]->has_isn[d] && c[1]->has_isn[d];
		pc->seq_offset[d] = pc->seq_known[d] ? c[1]->isn[d] - c[0]->isn[d] : 0;
	}
	GHashTable *t = build_occ((const pconn **)c);
	GHashTableIter it;
	gpointer v;
	g_hash_table_iter_init(&it, t);
	while (g_hash_table_iter_next(&it, NULL, &v)) {
		const occ *o = v;
		int up = o->key.dir == 0 ? pts->client_side : !pts->client_side;
		match_key(o, c, up, off, slack);
	}
	g_hash_table_destroy(t);
	for (int d = 0; d < 2; d++) {
		pd_points_dir *pd = &pc->dir[d];
		pd->ttl_up = pd->ttl_down = -1;
		int up = d == 0 ? pts->client_side : !pts->client_side, dn = !up;
		GArray *pairs = g_array_new(FALSE, FALSE, sizeof(mpair));
		/* the downstream file's span in point `up`'s clock */
		pd_time shift = (up == 0 ? off : -off);
		pd_time dfirst = f[dn]->first_ts - shift, dlast = f[dn]->last_ts - shift;
		for (guint i = 0; i < c[up]->recs->len; i++) {
			const prec *a = &g_array_index(c[up]->recs, prec, i);
			if (a->dir != d)
				continue;
			if (a->match < 0) {
				if (a->ts < dfirst - slack || a->ts > dlast) {
					pd->outside++;
					continue;
				}
				pd->only_up++;
				if (a->flags & PD_TCP_SYN) {
					pd->lost_syn++;
					if (pd->n_lost_syn_frames < PD_POINTS_MAX_LOST)
						pd->lost_syn_frames[pd->n_lost_syn_frames++] = a->frame;
				}
				if (a->len)
					pd->lost_data++;
				if (pd->n_lost_frames < PD_POINTS_MAX_LOST)
					pd->lost_frames[pd->n_lost_frames++] = a->frame;
				continue;
			}
			const prec *b = &g_array_index(c[dn]->recs, prec, a->match);
			pd->both++;
			pd_time tu = a->ts - (up == 1 ? off : 0), td = b->ts - (dn == 1 ? off : 0);
			mpair m = {.t_up = tu, .delay_ms = (double)(td - tu) / 1e6, .down_idx = (uint32_t)a->match};
			g_array_append_val(pairs, m);
			if (pd->ttl_up < 0) {
				pd->ttl_up = a->ttl;
				pd->ttl_down = b->ttl;
			}
			if ((a->tos >> 2) != (b->tos >> 2))
				pd->dscp_changed++;
			if ((a->tos & 3) != (b->tos & 3))
				pd->ecn_changed++;
			if ((a->flags & (PD_TCP_ECE | PD_TCP_CWR)) != (b->flags & (PD_TCP_ECE | PD_TCP_CWR)))
				pd->ece_cwr_changed++;
		}
		for (guint i = 0; i < c[dn]->recs->len; i++) {
			const prec *b = &g_array_index(c[dn]->recs, prec, i);
			if (b->dir == d && b->match < 0)
				pd->only_down++;
		}
		dir_delays(pd, pairs);
		g_array_unref(pairs);
	}
	syn_options(pc, c);
}

/* ---- the clocks ---- */

/* tB - tA of every packet whose key is unique at both points, per direction
 * (ns); the connection's tables are rebuilt later with the orientation. */
static void offset_samples(pconn *c[2], GArray *r[2])
{
	GHashTable *t = build_occ((const pconn **)c);
	GHashTableIter it;
	gpointer v;
	g_hash_table_iter_init(&it, t);
	while (g_hash_table_iter_next(&it, NULL, &v)) {
		const occ *o = v;
		if (o->idx[0]->len != 1 || o->idx[1]->len != 1)
			continue;
		int64_t d = g_array_index(c[1]->recs, prec, g_array_index(o->idx[1], guint, 0)).ts -
			    g_array_index(c[0]->recs, prec, g_array_index(o->idx[0], guint, 0)).ts;
		g_array_append_val(r[o->key.dir], d);
	}
	g_hash_table_destroy(t);
}

pd_points *pd_points_pair(const char *a, const char *b, const char *filter, bool force)
{
	if (!a || !b || !strcmp(a, "-") || !strcmp(b, "-"))
		return NULL;
	pfile f[2];
	if (!read_file(a, filter, &f[0]))
		return NULL;
	if (!read_file(b, filter, &f[1])) {
		pfile_clear(&f[0]);
		return NULL;
	}
	pd_points *pts = g_new0(pd_points, 1);
	pts->files[0] = g_strdup(a);
	pts->files[1] = g_strdup(b);
	pts->forced = force;
	pts->client_side = -1;
	pts->n_conns[0] = f[0].conns->len;
	pts->n_conns[1] = f[1].conns->len;
	pts->packets[0] = f[0].packets;
	pts->packets[1] = f[1].packets;
	pts->capped = f[0].capped || f[1].capped;
	pts->truncated[0] = f[0].truncated;
	pts->truncated[1] = f[1].truncated;
	pts->conns = g_array_new(FALSE, TRUE, sizeof(pd_points_conn));
	pts->total[0].ttl_up = pts->total[1].ttl_up = -1;
	pts->total[0].ttl_down = pts->total[1].ttl_down = -1;

	pair_conns(&f[0], &f[1]);
	GArray *r[2] = {g_array_new(FALSE, FALSE, sizeof(int64_t)), g_array_new(FALSE, FALSE, sizeof(int64_t))};
	for (guint i = 0; i < f[0].conns->len; i++) {
		pconn *c0 = &g_array_index(f[0].conns, pconn, i);
		if (c0->partner < 0)
			continue;
		pconn *c[2] = {c0, &g_array_index(f[1].conns, pconn, c0->partner)};
		offset_samples(c, r);
	}
	pts->samples = r[0]->len + r[1]->len;
	bool shared_tuple = false;
	for (guint i = 0; i < f[0].conns->len && !shared_tuple; i++) {
		const pconn *c0 = &g_array_index(f[0].conns, pconn, i);
		tkey k;
		tkey_make(&k, &c0->a[0], c0->p[0], &c0->a[1], c0->p[1]);
		shared_tuple = g_hash_table_contains(f[1].by_tuple, &k);
	}
	uint64_t smaller = MIN(f[0].packets, f[1].packets);
	/* automatic pairing wants a tenth of the smaller file matched */
	bool clear = pts->samples > 0 && (force || pts->samples * 10 >= smaller);
	if (!clear) {
		bool overlap = f[0].first_ts <= f[1].last_ts && f[1].first_ts <= f[0].last_ts;
		pts->verdict = shared_tuple && !overlap ? PD_POINTS_ROTATION : PD_POINTS_DISJOINT;
		pts->analysed = 0;
		goto out;
	}
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (int d = 0; d < 2; d++) {
		g_array_sort(r[d], cmp_i64);
		if (r[d]->len) {
			lo = MIN(lo, g_array_index(r[d], int64_t, 0));
			hi = MAX(hi, g_array_index(r[d], int64_t, r[d]->len - 1));
		}
	}
	if (hi - lo <= 1000) {
		/* the same moment at both, both ways: one point twice */
		pts->verdict = PD_POINTS_DUPLICATE;
		pts->offset_s = (double)lo / 1e9;
		pts->analysed = 0;
		goto out;
	}
	pts->verdict = PD_POINTS_TWO;
	/* client->server reaches the client's side first: tB - tA is larger
	 * that way when A is the client's side */
	int64_t med0 = r[0]->len ? g_array_index(r[0], int64_t, r[0]->len / 2) : 0;
	int64_t med1 = r[1]->len ? g_array_index(r[1], int64_t, r[1]->len / 2) : 0;
	if (r[0]->len && r[1]->len)
		pts->client_side = med0 > med1 ? 0 : 1;
	else
		pts->client_side = 0;
	int64_t off, unc;
	if (r[0]->len && r[1]->len) {
		if (pts->client_side == 0) {
			int64_t m0 = g_array_index(r[0], int64_t, 0), m1 = g_array_index(r[1], int64_t, r[1]->len - 1);
			off = m0 / 2 + m1 / 2;
			unc = m0 / 2 - m1 / 2;
		} else {
			int64_t m0 = g_array_index(r[0], int64_t, r[0]->len - 1), m1 = g_array_index(r[1], int64_t, 0);
			off = m0 / 2 + m1 / 2;
			unc = m1 / 2 - m0 / 2;
		}
	} else {
		GArray *x = r[0]->len ? r[0] : r[1];
		off = g_array_index(x, int64_t, x->len / 2);
		unc = g_array_index(x, int64_t, x->len - 1) - g_array_index(x, int64_t, 0);
	}
	pts->offset_s = (double)off / 1e9;
	pts->uncertainty_s = (double)unc / 1e9;
	pts->analysed = force ? 0 : pts->client_side;
	pd_time slack = llabs(unc) + 500000;
	const pfile *fp[2] = {&f[0], &f[1]};
	for (guint i = 0; i < f[0].conns->len; i++) {
		pconn *c0 = &g_array_index(f[0].conns, pconn, i);
		if (c0->partner < 0)
			continue;
		pconn *c[2] = {c0, &g_array_index(f[1].conns, pconn, c0->partner)};
		pd_points_conn pc;
		measure_pair(pts, c, fp, off, slack, &pc);
		if (!pc.dir[0].both && !pc.dir[1].both)
			continue;
		pts->paired++;
		pts->translated += pc.translated;
		for (int d = 0; d < 2; d++)
			add_dir(&pts->total[d], &pc.dir[d]);
		g_array_append_val(pts->conns, pc);
	}
	/* the delays over all paired connections */
	for (int d = 0; d < 2; d++) {
		GArray *pairs = g_array_new(FALSE, FALSE, sizeof(mpair));
		for (guint i = 0; i < f[0].conns->len; i++) {
			pconn *c0 = &g_array_index(f[0].conns, pconn, i);
			if (c0->partner < 0)
				continue;
			pconn *c[2] = {c0, &g_array_index(f[1].conns, pconn, c0->partner)};
			int up = d == 0 ? pts->client_side : !pts->client_side, dn = !up;
			for (guint k = 0; k < c[up]->recs->len; k++) {
				const prec *x = &g_array_index(c[up]->recs, prec, k);
				if (x->dir != d || x->match < 0)
					continue;
				const prec *y = &g_array_index(c[dn]->recs, prec, x->match);
				pd_time tu = x->ts - (up == 1 ? off : 0), td = y->ts - (dn == 1 ? off : 0);
				mpair m = {.t_up = tu, .delay_ms = (double)(td - tu) / 1e6, .down_idx = 0};
				g_array_append_val(pairs, m);
			}
		}
		uint64_t reo = pts->total[d].reordered;
		dir_delays(&pts->total[d], pairs);
		pts->total[d].reordered = reo; /* the per-connection sum, not across connections */
		g_array_unref(pairs);
	}
out:
	g_array_unref(r[0]);
	g_array_unref(r[1]);
	pfile_clear(&f[0]);
	pfile_clear(&f[1]);
	return pts;
}

bool pd_points_split(const pd_points *p)
{
	return p && p->verdict == PD_POINTS_TWO;
}
