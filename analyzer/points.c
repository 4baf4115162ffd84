/* Two capture points of the same connections: the pairing pre-pass
 * (analyzer/points.h; the method is in docs/two-points.md). */
#include "analyzer/points.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "analyzer/flowtable.h"
#include "capture/reader.h"
#include "dissect/dissect.h"

/* Packets kept per file: beyond, the pairing covers the first ones. */
#define PT_MAX_RECS (4u << 20)
#define PT_FLAGS_KEY (PD_TCP_SYN | PD_TCP_FIN | PD_TCP_RST | PD_TCP_ACK)
#define PT_END UINT32_MAX
/* The smallest record a classic pcap file holds for a TCP packet (16-byte
 * record header, 40 bytes of IP and TCP): bounds the packets of a file. */
#define PT_MIN_RECORD 56u

/* One packet, in a file-wide array in capture order; a connection's packets
 * are chained by next. Indices (match, next, sopt.idx) are file-wide. */
typedef struct prec { /* 40 bytes: a 1 GB capture holds ~1M of them */
	pd_time ts;
	uint32_t frame; /* the pairing keeps the first PT_MAX_RECS packets: well below 2^32 frames */
	uint32_t seq, ack, len;
	int32_t match; /* index of the same packet in the other file's recs, -1 */
	uint32_t next; /* the connection's next packet, PT_END */
	uint8_t dir, flags, ttl, tos;
} prec;

/* The options of a SYN or SYN-ACK, beside its rec. */
typedef struct sopt {
	uint32_t idx; /* in recs */
	uint16_t mss;
	int8_t ws;
	uint8_t opt; /* 1 MSS, 2 SACK permitted, 4 timestamps */
} sopt;

typedef struct pconn {
	pd_addr a[2]; /* [0] client, [1] server */
	uint16_t p[2];
	bool role_known;
	bool has_isn[2];
	uint32_t isn[2];
	uint32_t syn_tsval; /* the client's SYN, 0 none */
	uint32_t first, last, n; /* its packets: the chain's ends and length */
	GArray *syns; /* sopt of its SYNs and SYN-ACKs, or NULL */
	int partner; /* index in the other file's conns, -1 */
} pconn;

/* Connections by 4-tuple: open addressing over a symmetric 64-bit hash of
 * the tuple, the latest connection of a tuple wins. */
typedef struct tslot {
	uint64_t hash;
	uint32_t conn; /* index + 1; 0 free */
} tslot;

typedef struct pfile {
	GArray *conns; /* pconn */
	prec *recs;
	uint32_t n_recs, cap_recs;
	tslot *slots;
	uint32_t n_slots; /* a power of two, at least twice the connections */
	uint32_t last_conn; /* the connection of the previous packet + 1: packets come in runs */
	uint64_t packets;
	pd_time first_ts, last_ts;
	bool capped, truncated;
} pfile;

/* The engine's flow hash: either order of the endpoints gives the same. */
static inline uint64_t tuple_hash(const pd_addr *sa, uint16_t sp, const pd_addr *da, uint16_t dp)
{
	return pd_flow_hash(6, sa, sp, da, dp);
}

/* 0: the packet goes client->server of c, 1: server->client, -1: not c. */
static inline int conn_dir(const pconn *c, const pd_addr *sa, uint16_t sp, const pd_addr *da, uint16_t dp)
{
	if (c->p[0] == sp && c->p[1] == dp && pd_addr_equal(&c->a[0], sa) && pd_addr_equal(&c->a[1], da))
		return 0;
	if (c->p[0] == dp && c->p[1] == sp && pd_addr_equal(&c->a[0], da) && pd_addr_equal(&c->a[1], sa))
		return 1;
	return -1;
}

/* The latest connection on that tuple + 1, 0 none. */
static uint32_t tuple_find(const pfile *f, const pd_addr *sa, uint16_t sp, const pd_addr *da, uint16_t dp)
{
	if (!f->n_slots)
		return 0;
	uint64_t h = tuple_hash(sa, sp, da, dp);
	for (uint32_t i = (uint32_t)h & (f->n_slots - 1);; i = (i + 1) & (f->n_slots - 1)) {
		const tslot *s = &f->slots[i];
		if (!s->conn)
			return 0;
		if (s->hash == h && conn_dir(&g_array_index(f->conns, pconn, s->conn - 1), sa, sp, da, dp) >= 0)
			return s->conn;
	}
}

static void tuple_put(pfile *f, uint64_t h, uint32_t conn1);

static void tuple_grow(pfile *f)
{
	tslot *old = f->slots;
	uint32_t n = f->n_slots;
	f->n_slots = n ? n * 2 : 64;
	f->slots = g_new0(tslot, f->n_slots);
	for (uint32_t i = 0; i < n; i++)
		if (old[i].conn)
			tuple_put(f, old[i].hash, old[i].conn);
	g_free(old);
}

/* Maps the tuple of conn1 (hash h) to it, replacing an older connection of
 * the same tuple. */
static void tuple_put(pfile *f, uint64_t h, uint32_t conn1)
{
	if (2 * (f->conns->len + 1) > f->n_slots)
		tuple_grow(f);
	const pconn *c = &g_array_index(f->conns, pconn, conn1 - 1);
	for (uint32_t i = (uint32_t)h & (f->n_slots - 1);; i = (i + 1) & (f->n_slots - 1)) {
		tslot *s = &f->slots[i];
		if (!s->conn ||
		    (s->hash == h && conn_dir(&g_array_index(f->conns, pconn, s->conn - 1), &c->a[0], c->p[0], &c->a[1],
					      c->p[1]) >= 0)) {
			s->hash = h;
			s->conn = conn1;
			return;
		}
	}
}

static void pfile_clear(pfile *f)
{
	if (f->conns) {
		for (guint i = 0; i < f->conns->len; i++) {
			pconn *c = &g_array_index(f->conns, pconn, i);
			if (c->syns)
				g_array_unref(c->syns);
		}
		g_array_unref(f->conns);
	}
	g_free(f->recs);
	g_free(f->slots);
}

static void conn_flip(pfile *f, pconn *c)
{
	pd_addr a = c->a[0];
	uint16_t p = c->p[0];
	c->a[0] = c->a[1];
	c->p[0] = c->p[1];
	c->a[1] = a;
	c->p[1] = p;
	for (uint32_t i = c->first; i != PT_END; i = f->recs[i].next)
		f->recs[i].dir ^= 1;
	bool h = c->has_isn[0];
	uint32_t s = c->isn[0];
	c->has_isn[0] = c->has_isn[1];
	c->isn[0] = c->isn[1];
	c->has_isn[1] = h;
	c->isn[1] = s;
}

/* A big array in huge pages where the kernel has them: a page fault per
 * 2 MiB rather than per 4 KiB as it fills (faults are dear in VMs). Freed
 * with g_free. */
static void *reserve(size_t bytes)
{
	const size_t huge = 2u << 20;
	if (bytes < 4 * huge)
		return g_malloc(bytes);
	void *p = NULL;
	if (posix_memalign(&p, huge, (bytes + huge - 1) & ~(huge - 1)))
		return g_malloc(bytes);
#ifdef MADV_HUGEPAGE
	madvise(p, (bytes + huge - 1) & ~(huge - 1), MADV_HUGEPAGE);
#endif
	return p;
}

static prec *rec_slot(pfile *f)
{
	if (f->n_recs == f->cap_recs) {
		/* only where the file size did not bound the packets (gzip) */
		f->cap_recs = MIN(PT_MAX_RECS, MAX(f->cap_recs * 2, 65536u));
		f->recs = g_renew(prec, f->recs, f->cap_recs);
	}
	return &f->recs[f->n_recs];
}

static void add_packet(pfile *f, const pd_packet *pkt)
{
	const pd_tcp *t = &pkt->tcp;
	const pd_addr *sa = &pkt->ip.src, *da = &pkt->ip.dst;
	bool syn = (t->flags & (PD_TCP_SYN | PD_TCP_ACK)) == PD_TCP_SYN;
	bool synack = (t->flags & (PD_TCP_SYN | PD_TCP_ACK)) == (PD_TCP_SYN | PD_TCP_ACK);
	uint32_t ci = 0; /* index + 1 */
	int dir = -1;
	if (f->last_conn) {
		dir = conn_dir(&g_array_index(f->conns, pconn, f->last_conn - 1), sa, t->sport, da, t->dport);
		if (dir >= 0)
			ci = f->last_conn;
	}
	if (!ci) {
		ci = tuple_find(f, sa, t->sport, da, t->dport);
		if (ci)
			dir = conn_dir(&g_array_index(f->conns, pconn, ci - 1), sa, t->sport, da, t->dport);
	}
	pconn *c = ci ? &g_array_index(f->conns, pconn, ci - 1) : NULL;
	/* a SYN with another ISN: a new connection on the same tuple */
	if (c && syn && c->has_isn[0] && c->isn[0] != t->seq && dir == 0)
		c = NULL;
	if (!c) {
		pconn n = {0};
		n.first = n.last = PT_END;
		n.partner = -1;
		/* the SYN's sender is the client; without one, the higher port */
		bool src_client = synack ? false : syn ? true : t->sport > t->dport;
		n.a[0] = src_client ? *sa : *da;
		n.p[0] = src_client ? t->sport : t->dport;
		n.a[1] = src_client ? *da : *sa;
		n.p[1] = src_client ? t->dport : t->sport;
		n.role_known = syn || synack;
		g_array_append_val(f->conns, n);
		ci = f->conns->len;
		tuple_put(f, tuple_hash(sa, t->sport, da, t->dport), ci);
		c = &g_array_index(f->conns, pconn, ci - 1);
		dir = conn_dir(c, sa, t->sport, da, t->dport);
	}
	f->last_conn = ci;
	if (!c->role_known && (syn || synack)) {
		c->role_known = true;
		if ((syn && dir == 1) || (synack && dir == 0)) {
			conn_flip(f, c);
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
	prec *r = rec_slot(f);
	*r = (prec){
		.ts = pkt->ts,
		.frame = (uint32_t)MIN(pkt->frame_no, UINT32_MAX),
		.seq = t->seq,
		.ack = (t->flags & PD_TCP_ACK) ? t->ack : 0,
		.len = t->payload_len,
		.match = -1,
		.next = PT_END,
		.dir = (uint8_t)dir,
		.flags = t->flags,
		.ttl = pkt->ip.ttl,
		.tos = pkt->ip.tos,
	};
	uint32_t idx = f->n_recs++;
	if (syn || synack) {
		if (!c->syns)
			c->syns = g_array_new(FALSE, FALSE, sizeof(sopt));
		sopt o = {
			.idx = idx,
			.mss = t->has_mss ? t->mss : 0,
			.ws = t->wscale,
			.opt = (uint8_t)((t->has_mss ? 1 : 0) | (t->sack_permitted ? 2 : 0) | (t->has_ts ? 4 : 0)),
		};
		g_array_append_val(c->syns, o);
	}
	if (c->last == PT_END)
		c->first = idx;
	else
		f->recs[c->last].next = idx;
	c->last = idx;
	c->n++;
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
	/* a plain pcap file's size bounds its packets: the array is reserved
	 * once (pages are touched as it fills), never copied to grow */
	if (pd_reader_frames_stable(rd) && pd_reader_total_bytes(rd)) {
		f->cap_recs = (uint32_t)MIN((uint64_t)PT_MAX_RECS, pd_reader_total_bytes(rd) / PT_MIN_RECORD + 1);
		f->recs = reserve(f->cap_recs * sizeof(prec));
	}
	f->first_ts = INT64_MAX;
	f->last_ts = INT64_MIN;
	pd_frame fr;
	pd_packet pkt;
	while (pd_reader_next(rd, &fr)) {
		if (pd_frame_dissect(&fr, &pkt) != PD_DISSECT_OK || pkt.l4 != PD_L4_TCP || pkt.ip.is_fragment)
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

typedef struct read_job {
	const char *path, *filter;
	pfile *f;
	bool ok;
} read_job;

static gpointer read_job_run(gpointer p)
{
	read_job *j = p;
	j->ok = read_file(j->path, j->filter, j->f);
	return NULL;
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
			j = tuple_find(fb, &c->a[0], c->p[0], &c->a[1], c->p[1]);
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

/* Mid-stream connections whose 4-tuples differ (a NAT) and that neither
 * file saw the SYN of: the same data segment, by its raw (seq, ack,
 * length), among the first PT_MID_KEYS of each. Both ways round, as
 * either capture may have started later. */
#define PT_MID_KEYS 16

static gint64 mid_key(const prec *r)
{
	return (gint64)pd_mix64((uint64_t)r->seq << 32 ^ r->ack ^ pd_mix64(r->len));
}

/* The first data segments' keys of every connection of f not yet paired
 * -> index + 1 (the first connection wins). */
static GHashTable *mid_index(const pfile *f, GArray *keys)
{
	GHashTable *t = g_hash_table_new(g_int64_hash, g_int64_equal);
	g_array_set_size(keys, 0);
	for (guint j = 0; j < f->conns->len; j++) {
		const pconn *c = &g_array_index(f->conns, pconn, j);
		if (c->partner >= 0)
			continue;
		int k = 0;
		for (uint32_t i = c->first; i != PT_END && k < PT_MID_KEYS; i = f->recs[i].next)
			if (f->recs[i].len && !(f->recs[i].flags & PD_TCP_SYN)) {
				gint64 v = mid_key(&f->recs[i]);
				g_array_append_val(keys, v);
				k++;
			}
	}
	/* keys must not move while the table points at them */
	guint at = 0;
	for (guint j = 0; j < f->conns->len; j++) {
		const pconn *c = &g_array_index(f->conns, pconn, j);
		if (c->partner >= 0)
			continue;
		int k = 0;
		for (uint32_t i = c->first; i != PT_END && k < PT_MID_KEYS; i = f->recs[i].next)
			if (f->recs[i].len && !(f->recs[i].flags & PD_TCP_SYN)) {
				gint64 *v = &g_array_index(keys, gint64, at++);
				if (!g_hash_table_contains(t, v))
					g_hash_table_insert(t, v, GUINT_TO_POINTER(j + 1));
				k++;
			}
	}
	return t;
}

/* Pairs what is left of `from` with `to`'s index. */
static void mid_pair(pfile *from, pfile *to, GHashTable *idx)
{
	for (guint i = 0; i < from->conns->len; i++) {
		pconn *c = &g_array_index(from->conns, pconn, i);
		if (c->partner >= 0)
			continue;
		int k = 0;
		for (uint32_t r = c->first; r != PT_END && k < PT_MID_KEYS; r = from->recs[r].next) {
			if (!from->recs[r].len || (from->recs[r].flags & PD_TCP_SYN))
				continue;
			k++;
			gint64 v = mid_key(&from->recs[r]);
			guint j = GPOINTER_TO_UINT(g_hash_table_lookup(idx, &v));
			if (j && g_array_index(to->conns, pconn, j - 1).partner < 0) {
				c->partner = (int)(j - 1);
				g_array_index(to->conns, pconn, j - 1).partner = (int)i;
				break;
			}
		}
	}
}

static void pair_mid_stream(pfile *fa, pfile *fb)
{
	bool left[2] = {false, false};
	for (guint i = 0; i < fa->conns->len; i++)
		left[0] |= g_array_index(fa->conns, pconn, i).partner < 0;
	for (guint i = 0; i < fb->conns->len; i++)
		left[1] |= g_array_index(fb->conns, pconn, i).partner < 0;
	if (!left[0] || !left[1])
		return;
	GArray *keys = g_array_new(FALSE, FALSE, sizeof(gint64));
	GHashTable *t = mid_index(fb, keys);
	mid_pair(fa, fb, t);
	g_hash_table_destroy(t);
	t = mid_index(fa, keys);
	mid_pair(fb, fa, t);
	g_hash_table_destroy(t);
	g_array_unref(keys);
}

/* ---- matching packets within a pair ---- */

typedef struct mkey {
	uint32_t seq, ack, len;
	uint8_t dir, flags;
} mkey;

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

/* A packet of either point under its key, packed so that the order is
 * direction, seq, flags, length, ack, then point and capture order: the
 * copies of one key at each point are two runs, and the walk goes along
 * the sequence space (near capture order). */
typedef struct ment {
	uint64_t a; /* dir:1 seq:32 flags:4 len:26 */
	uint32_t ack;
	uint32_t pidx; /* point << 31 | rec index */
} ment;

static uint64_t ment_a(const mkey *k)
{
	uint64_t fl = (k->flags & 7u) | ((k->flags >> 1) & 8u); /* FIN SYN RST, ACK */
	return (uint64_t)k->dir << 62 | (uint64_t)k->seq << 30 | fl << 26 | MIN(k->len, 0x3ffffffu);
}

static mkey ment_key(const ment *m)
{
	mkey k = {0};
	k.dir = (uint8_t)(m->a >> 62);
	k.seq = (uint32_t)(m->a >> 30);
	uint8_t fl = (uint8_t)((m->a >> 26) & 15u);
	k.flags = (uint8_t)((fl & 7u) | ((fl & 8u) << 1));
	k.len = (uint32_t)(m->a & 0x3ffffffu);
	k.ack = m->ack;
	return k;
}

static int cmp_ment(const void *x, const void *y)
{
	const ment *a = x, *b = y;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	if (a->ack != b->ack)
		return a->ack < b->ack ? -1 : 1;
	return a->pidx < b->pidx ? -1 : a->pidx > b->pidx;
}

/* One key's copies: idx[p] (n[p] of them) are rec indices at point p. */
typedef void (*group_fn)(const mkey *k, const uint32_t *idx[2], const guint n[2], void *ctx);

/* Sorts v[0..n) in place. A point's packets one way come near key order
 * (sequence numbers and acks grow): those that keep the order stay where
 * they are, the others (retransmissions, reordering) are sorted apart in ex
 * (room for n) and merged back from the end. */
static void sort_near_sorted(ment *v, size_t n, ment *ex)
{
	size_t k = 0, e = 0;
	for (size_t i = 0; i < n; i++) {
		if (k == 0 || cmp_ment(&v[k - 1], &v[i]) < 0)
			v[k++] = v[i];
		else
			ex[e++] = v[i];
	}
	if (!e)
		return;
	qsort(ex, e, sizeof *ex, cmp_ment);
	size_t i = k, j = e, w = n;
	while (j > 0) {
		if (i > 0 && cmp_ment(&v[i - 1], &ex[j - 1]) > 0)
			v[--w] = v[--i];
		else
			v[--w] = ex[--j];
	}
}

/* The pair's entries, sorted (made once, walked by both passes): per
 * direction, each point's run sorted, then the two merged. scratch is
 * reused from pair to pair. */
static void sorted_entries(pconn *c[2], prec *const rs[2], ment *m, ment *scratch)
{
	uint32_t base[2][2];
	bases(c[0], c[1], base);
	size_t n = c[0]->n + c[1]->n;
	ment *run = scratch, *ex = scratch + n;
	size_t w = 0;
	for (uint8_t d = 0; d < 2; d++) {
		ment *l[2];
		size_t len[2], used = 0;
		for (int p = 0; p < 2; p++) {
			l[p] = run + used;
			len[p] = 0;
			for (uint32_t i = c[p]->first; i != PT_END; i = rs[p][i].next) {
				const prec *r = &rs[p][i];
				if (r->dir != d)
					continue;
				mkey key = key_of(r, base[p]);
				ment *x = &l[p][len[p]++];
				x->a = ment_a(&key);
				x->ack = key.ack;
				x->pidx = (uint32_t)p << 31 | i;
			}
			used += len[p];
			sort_near_sorted(l[p], len[p], ex);
		}
		size_t i = 0, j = 0;
		while (i < len[0] && j < len[1])
			m[w++] = cmp_ment(&l[0][i], &l[1][j]) < 0 ? l[0][i++] : l[1][j++];
		while (i < len[0])
			m[w++] = l[0][i++];
		while (j < len[1])
			m[w++] = l[1][j++];
	}
}


static void for_groups(const ment *m, size_t n_ents, GArray *ix[2], group_fn fn, void *ctx)
{
	for (size_t i = 0; i < n_ents;) {
		guint j = i;
		g_array_set_size(ix[0], 0);
		g_array_set_size(ix[1], 0);
		while (j < n_ents && m[j].a == m[i].a && m[j].ack == m[i].ack) {
			uint32_t idx = m[j].pidx & 0x7fffffffu;
			g_array_append_val(ix[m[j].pidx >> 31], idx);
			j++;
		}
		const uint32_t *idx[2] = {(const uint32_t *)(void *)ix[0]->data, (const uint32_t *)(void *)ix[1]->data};
		const guint n[2] = {ix[0]->len, ix[1]->len};
		mkey k = ment_key(&m[i]);
		fn(&k, idx, n, ctx);
		i = j;
	}
}

/* One direction's offset samples (tB - tA) at their extremes in each of
 * PT_DRIFT_BINS equal slices of the time they span, with the times (point
 * 0's clock) where they were: the lower and upper hull, coarsely. */
#define PT_DRIFT_BINS 8
typedef struct envelope {
	int n[PT_DRIFT_BINS];
	int64_t min[PT_DRIFT_BINS], max[PT_DRIFT_BINS];
	pd_time tmin[PT_DRIFT_BINS], tmax[PT_DRIFT_BINS];
} envelope;

static void envelope_of(const GArray *r, const GArray *rt, envelope *e)
{
	memset(e, 0, sizeof *e);
	if (r->len < 2)
		return;
	const int64_t *x = (const int64_t *)(void *)r->data;
	const pd_time *t = (const pd_time *)(void *)rt->data;
	pd_time first = t[0], last = t[0];
	for (guint i = 1; i < r->len; i++) {
		first = MIN(first, t[i]);
		last = MAX(last, t[i]);
	}
	pd_time width = (last - first) / PT_DRIFT_BINS + 1;
	for (guint i = 0; i < r->len; i++) {
		int w = (int)MIN((t[i] - first) / width, PT_DRIFT_BINS - 1);
		if (!e->n[w] || x[i] < e->min[w]) {
			e->min[w] = x[i];
			e->tmin[w] = t[i];
		}
		if (!e->n[w] || x[i] > e->max[w]) {
			e->max[w] = x[i];
			e->tmax[w] = t[i];
		}
		e->n[w]++;
	}
}

/* The least-squares slope through the bins' minima (or maxima) and its
 * standard error; false with fewer than 3 bins. */
static bool hull_slope(const envelope *e, bool lower, double *slope, double *se)
{
	double st = 0, sx = 0;
	int n = 0;
	for (int i = 0; i < PT_DRIFT_BINS; i++)
		if (e->n[i]) {
			st += (double)(lower ? e->tmin[i] : e->tmax[i]);
			sx += (double)(lower ? e->min[i] : e->max[i]);
			n++;
		}
	if (n < 3)
		return false;
	double tm = st / n, xm = sx / n, stt = 0, stx = 0;
	for (int i = 0; i < PT_DRIFT_BINS; i++)
		if (e->n[i]) {
			double dt = (double)(lower ? e->tmin[i] : e->tmax[i]) - tm;
			stt += dt * dt;
			stx += dt * ((double)(lower ? e->min[i] : e->max[i]) - xm);
		}
	if (stt <= 0)
		return false;
	*slope = stx / stt;
	double res = 0;
	for (int i = 0; i < PT_DRIFT_BINS; i++)
		if (e->n[i]) {
			double dt = (double)(lower ? e->tmin[i] : e->tmax[i]) - tm;
			double rr = (double)(lower ? e->min[i] : e->max[i]) - xm - *slope * dt;
			res += rr * rr;
		}
	/* the clocks' microsecond resolution as a floor of the scatter */
	*se = sqrt(MAX(res / (n - 2), 1e6) / stt);
	return true;
}

/* Clock drift from the minimum-delay envelope, as NTP-like tools do. One
 * way (up: tB - tA is offset + delay) the line through the smallest
 * samples over time, the other way (offset - delay) through the largest:
 * each slope is the drift plus how that way's minimum delay moved. The
 * estimate is their mean; the uncertainty half their difference (the
 * minimum delays moving unequally) plus twice the fits' standard errors. */
static bool estimate_drift(const envelope env[2], int up, double *ppm, double *unc_ppm)
{
	double sa, ea, sb, eb;
	if (!hull_slope(&env[up], true, &sa, &ea) || !hull_slope(&env[!up], false, &sb, &eb))
		return false;
	*ppm = (sa + sb) / 2 * 1e6;
	*unc_ppm = (fabs(sa - sb) / 2 + 2 * sqrt(ea * ea + eb * eb)) * 1e6;
	return true;
}



void pd_points_match_copies(const pd_time *tu, guint nu, const pd_time *td, guint nd, pd_time slack,
			    int32_t *up_match, int32_t *down_match)
{
	for (guint i = 0; i < nu; i++)
		up_match[i] = -1;
	for (guint j = 0; j < nd; j++)
		down_match[j] = -1;
#define LINK(i, j)                          \
	do {                                \
		up_match[i] = (int32_t)(j); \
		down_match[j] = (int32_t)(i); \
	} while (0)
	if (nu == nd) {
		for (guint i = 0; i < nu; i++)
			LINK(i, i);
		return;
	}
	guint next = 0;
	if (nu > nd) {
		for (guint j = 0; j < nd; j++) {
			guint best = G_MAXUINT;
			for (guint i = next; i < nu && nu - i >= nd - j; i++) {
				if (tu[i] <= td[j] + slack)
					best = i;
				else
					break;
			}
			if (best == G_MAXUINT)
				continue;
			LINK(best, j);
			next = best + 1;
		}
	} else {
		for (guint i = 0; i < nu; i++) {
			for (guint j = next; j < nd; j++) {
				if (td[j] + slack >= tu[i]) {
					LINK(i, j);
					next = j + 1;
					break;
				}
			}
		}
	}
#undef LINK
}

/* One key's copies in the two files (indexes U into the upstream file's
 * records, D into the downstream's), matched by pd_points_match_copies;
 * times in point 0's clock. */
static void match_key(const uint32_t *U, guint nu, const uint32_t *D, guint nd, prec *const rs[2], int up,
		      pd_time off, pd_time slack)
{
	int dn = !up;
	prec *ru = rs[up], *rd = rs[dn];
	if (nu == nd) { /* most keys: in order, no times to read */
		for (guint i = 0; i < nu; i++) {
			ru[U[i]].match = (int32_t)D[i];
			rd[D[i]].match = (int32_t)U[i];
		}
		return;
	}
	pd_time *tu = g_new(pd_time, nu + nd), *td = tu + nu;
	int32_t *mu = g_new(int32_t, nu + nd), *md = mu + nu;
	for (guint i = 0; i < nu; i++)
		tu[i] = ru[U[i]].ts - (up == 1 ? off : 0);
	for (guint j = 0; j < nd; j++)
		td[j] = rd[D[j]].ts - (dn == 1 ? off : 0);
	pd_points_match_copies(tu, nu, td, nd, slack, mu, md);
	for (guint i = 0; i < nu; i++)
		if (mu[i] >= 0) {
			ru[U[i]].match = (int32_t)D[mu[i]];
			rd[D[mu[i]]].match = (int32_t)U[i];
		}
	g_free(tu);
	g_free(mu);
}

typedef struct match_ctx {
	prec *const *rs;
	int client_side;
	pd_time off, slack;
} match_ctx;

static void match_group(const mkey *k, const uint32_t *idx[2], const guint n[2], void *ctx)
{
	match_ctx *m = ctx;
	int up = k->dir == 0 ? m->client_side : !m->client_side;
	match_key(idx[up], n[up], idx[!up], n[!up], m->rs, up, m->off, m->slack);
}

/* The k-th smallest of a[0..n) (k < n), reordering a: one definition per
 * element type (the delays are doubles, the offset samples int64_t). */
#define PT_DEFINE_SELECT(name, type)                                         \
	static type name(type *a, size_t n, size_t k)                        \
	{                                                                    \
		size_t lo = 0, hi = n - 1;                                   \
		while (lo < hi) {                                            \
			type pivot = a[lo + (hi - lo) / 2];                  \
			size_t i = lo, j = hi;                               \
			while (i <= j) {                                     \
				while (a[i] < pivot)                         \
					i++;                                 \
				while (a[j] > pivot)                         \
					j--;                                 \
				if (i <= j) {                                \
					type t = a[i];                       \
					a[i] = a[j];                         \
					a[j] = t;                            \
					i++;                                 \
					if (j == 0)                          \
						break;                       \
					j--;                                 \
				}                                            \
			}                                                    \
			if (k <= j)                                          \
				hi = j;                                      \
			else if (k >= i)                                     \
				lo = i;                                      \
			else                                                 \
				return a[k];                                 \
		}                                                            \
		return a[k];                                                 \
	}
PT_DEFINE_SELECT(select_k, double)
PT_DEFINE_SELECT(select_i64, int64_t)

static double q_of(double *a, size_t n, double q)
{
	return select_k(a, n, (size_t)floor(q * (double)(n - 1) + 0.5));
}

/* v: the delays in the order the packets left the upstream point; tmp
 * holds as many (both reordered by the selection). */
static void dir_delays(pd_points_dir *d, const double *v, size_t n, GArray *tmp)
{
	if (!n)
		return;
	g_array_set_size(tmp, (guint)n);
	double *t = (double *)(void *)tmp->data;
	size_t q = MAX((size_t)1, n / 4);
	memcpy(t, v, q * sizeof *t);
	d->delay_early_ms = q_of(t, q, 0.5);
	memcpy(t, v + n - q, q * sizeof *t);
	d->delay_late_ms = q_of(t, q, 0.5);
	memcpy(t, v, n * sizeof *t);
	double mn = t[0], mx = t[0];
	for (size_t i = 1; i < n; i++) {
		mn = MIN(mn, t[i]);
		mx = MAX(mx, t[i]);
	}
	d->delay_n = n;
	d->delay_min_ms = mn;
	d->delay_max_ms = mx;
	d->delay_p50_ms = q_of(t, n, 0.5);
	d->delay_p95_ms = q_of(t, n, 0.95);
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

static const sopt *sopt_of(const pconn *c, uint32_t idx)
{
	for (guint i = 0; c->syns && i < c->syns->len; i++)
		if (g_array_index(c->syns, sopt, i).idx == idx)
			return &g_array_index(c->syns, sopt, i);
	return NULL;
}

static void syn_options(pd_points_conn *pc, pconn *c[2], prec *const rs[2])
{
	for (int k = 0; k < 2; k++)
		for (int p = 0; p < 2; p++)
			pc->mss[k][p] = pc->wscale[k][p] = pc->sack[k][p] = pc->ts[k][p] = -1;
	for (int k = 0; k < 2; k++) { /* 0 the SYN, 1 the SYN-ACK */
		uint8_t want = k ? (PD_TCP_SYN | PD_TCP_ACK) : PD_TCP_SYN;
		for (guint i = 0; c[0]->syns && i < c[0]->syns->len; i++) {
			uint32_t ia = g_array_index(c[0]->syns, sopt, i).idx;
			const prec *a = &rs[0][ia];
			if ((a->flags & (PD_TCP_SYN | PD_TCP_ACK)) != want || a->match < 0)
				continue;
			const sopt *o[2] = {sopt_of(c[0], ia), sopt_of(c[1], (uint32_t)a->match)};
			if (!o[0] || !o[1])
				continue;
			for (int p = 0; p < 2; p++) {
				pc->mss[k][p] = (o[p]->opt & 1) ? o[p]->mss : -1;
				pc->wscale[k][p] = o[p]->ws;
				pc->sack[k][p] = (o[p]->opt & 2) ? 1 : 0;
				pc->ts[k][p] = (o[p]->opt & 4) ? 1 : 0;
			}
			break;
		}
	}
}

static void measure_pair(pd_points *pts, pconn *c[2], const pfile *f[2], prec *const rs[2], pd_time off, pd_time slack,
			 const ment *ents, GArray *ix[2], GArray *delays, GArray *tmp, GArray *total[2],
			 pd_points_conn *pc)
{
	memset(pc, 0, sizeof *pc);
	for (int p = 0; p < 2; p++) {
		pc->client[p] = c[p]->a[0];
		pc->server[p] = c[p]->a[1];
		pc->cport[p] = c[p]->p[0];
		pc->sport[p] = c[p]->p[1];
		pc->first_frame[p] = c[p]->n ? rs[p][c[p]->first].frame : 0;
	}
	pc->translated = !pd_addr_equal(&pc->client[0], &pc->client[1]) ||
			 !pd_addr_equal(&pc->server[0], &pc->server[1]) || pc->cport[0] != pc->cport[1] ||
			 pc->sport[0] != pc->sport[1];
	for (int d = 0; d < 2; d++) {
		pc->seq_known[d] = c[0]->has_isn[d] && c[1]->has_isn[d];
		pc->seq_offset[d] = pc->seq_known[d] ? c[1]->isn[d] - c[0]->isn[d] : 0;
	}
	match_ctx mc = {.rs = rs, .client_side = pts->client_side, .off = off, .slack = slack};
	for_groups(ents, c[0]->n + c[1]->n, ix, match_group, &mc);
	for (int d = 0; d < 2; d++) {
		pd_points_dir *pd = &pc->dir[d];
		pd->ttl_up = pd->ttl_down = -1;
		int up = d == 0 ? pts->client_side : !pts->client_side, dn = !up;
		g_array_set_size(delays, 0);
		int32_t maxd = -1;
		/* the downstream file's span in point `up`'s clock */
		pd_time shift = (up == 0 ? off : -off);
		pd_time dfirst = f[dn]->first_ts - shift, dlast = f[dn]->last_ts - shift;
		/* a packet that left less than twice the median delay this way
		 * before the other file ends may just not have arrived yet */
		g_array_set_size(tmp, 0);
		for (uint32_t i = c[up]->first; i != PT_END; i = rs[up][i].next) {
			const prec *a = &rs[up][i];
			if (a->dir == d && a->match >= 0) {
				double ns = (double)(rs[dn][a->match].ts - shift - a->ts);
				g_array_append_val(tmp, ns);
			}
		}
		pd_time margin = slack;
		if (tmp->len)
			margin += (pd_time)MAX(0.0, 2 * q_of((double *)(void *)tmp->data, tmp->len, 0.5));
		for (uint32_t i = c[up]->first; i != PT_END; i = rs[up][i].next) {
			const prec *a = &rs[up][i];
			if (a->dir != d)
				continue;
			if (a->match < 0) {
				/* before the other file's first packet: its capture may
				 * not have started, unless the handshake packet is one
				 * the other point saw again later (a SYN or SYN-ACK
				 * retried: the first tries were lost, the file's first
				 * packet is the retry that crossed) */
				bool retried_handshake = (a->flags & PD_TCP_SYN) && c[dn]->has_isn[d];
				if ((a->ts < dfirst - slack && !retried_handshake) || a->ts > dlast - margin) {
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
			const prec *b = &rs[dn][a->match];
			pd->both++;
			pd_time tu = a->ts - (up == 1 ? off : 0), td = b->ts - (dn == 1 ? off : 0);
			double ms = (double)(td - tu) / 1e6;
			g_array_append_val(delays, ms);
			if (a->match < maxd)
				pd->reordered++;
			maxd = MAX(maxd, a->match);
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
		for (uint32_t i = c[dn]->first; i != PT_END; i = rs[dn][i].next) {
			const prec *b = &rs[dn][i];
			if (b->dir != d || b->match >= 0)
				continue;
			/* left the upstream point outside the time its file covers */
			pd_time left = b->ts - shift;
			if (left > f[up]->last_ts || left - margin < f[up]->first_ts)
				pd->outside++;
			else
				pd->only_down++;
		}
		dir_delays(pd, (const double *)(void *)delays->data, delays->len, tmp);
		g_array_append_vals(total[d], delays->data, delays->len);
	}
	syn_options(pc, c, rs);
}

/* ---- the clocks ---- */

/* tB - tA of every packet whose key is unique at both points, per direction
 * (ns); the connection's tables are rebuilt later with the orientation. */
static void sample_group(const mkey *k, const uint32_t *idx[2], const guint n[2], void *ctx)
{
	void **x = ctx;
	prec *const *rs = x[0];
	GArray **r = x[1], **rt = x[2];
	if (n[0] != 1 || n[1] != 1)
		return;
	pd_time t0 = rs[0][idx[0][0]].ts;
	int64_t d = rs[1][idx[1][0]].ts - t0;
	g_array_append_val(r[k->dir], d);
	g_array_append_val(rt[k->dir], t0);
}

static void offset_samples(prec *const rs[2], const ment *ents, size_t n, GArray *ix[2], GArray *r[2], GArray *rt[2])
{
	void *x[3] = {(void *)rs, r, rt};
	for_groups(ents, n, ix, sample_group, x);
}

pd_points *pd_points_pair(const char *a, const char *b, const char *filter, bool force)
{
	if (!a || !b || !strcmp(a, "-") || !strcmp(b, "-"))
		return NULL;
	/* the two files are read at once, one on a thread of its own */
	pfile f[2];
	read_job job = {.path = b, .filter = filter, .f = &f[1]};
	GThread *th = g_thread_new("pd-points", read_job_run, &job);
	bool ok_a = read_file(a, filter, &f[0]);
	g_thread_join(th);
	if (!ok_a || !job.ok) {
		if (ok_a)
			pfile_clear(&f[0]);
		if (job.ok)
			pfile_clear(&f[1]);
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
	pair_mid_stream(&f[0], &f[1]);
	/* each paired connection's sorted entries, by its index at point 0 */
	/* every paired connection's sorted entries, one after the other: at
	 * most a ment per packet of both files */
	ment *ents = reserve(((size_t)f[0].n_recs + f[1].n_recs) * sizeof(ment) + sizeof(ment));
	size_t *ent_at = g_new0(size_t, f[0].conns->len + 1);
	size_t biggest = 0;
	for (guint i = 0; i < f[0].conns->len; i++) {
		const pconn *c0 = &g_array_index(f[0].conns, pconn, i);
		if (c0->partner >= 0)
			biggest = MAX(biggest, (size_t)c0->n + g_array_index(f[1].conns, pconn, c0->partner).n);
	}
	ment *scratch = reserve(2 * biggest * sizeof(ment) + sizeof(ment));
	GArray *ix[2] = {g_array_new(FALSE, FALSE, sizeof(uint32_t)), g_array_new(FALSE, FALSE, sizeof(uint32_t))};
	GArray *delays = g_array_new(FALSE, FALSE, sizeof(double)), *tmp = g_array_new(FALSE, FALSE, sizeof(double));
	GArray *total[2] = {g_array_new(FALSE, FALSE, sizeof(double)), g_array_new(FALSE, FALSE, sizeof(double))};
	GArray *r[2] = {g_array_new(FALSE, FALSE, sizeof(int64_t)), g_array_new(FALSE, FALSE, sizeof(int64_t))};
	GArray *rt[2] = {g_array_new(FALSE, FALSE, sizeof(pd_time)), g_array_new(FALSE, FALSE, sizeof(pd_time))};
	prec *const rs[2] = {f[0].recs, f[1].recs};
	for (guint i = 0; i < f[0].conns->len; i++) {
		pconn *c0 = &g_array_index(f[0].conns, pconn, i);
		ent_at[i + 1] = ent_at[i];
		if (c0->partner < 0)
			continue;
		pconn *c[2] = {c0, &g_array_index(f[1].conns, pconn, c0->partner)};
		size_t n = c[0]->n + c[1]->n;
		sorted_entries(c, rs, ents + ent_at[i], scratch);
		offset_samples(rs, ents + ent_at[i], n, ix, r, rt);
		ent_at[i + 1] += n;
	}
	g_free(scratch);
	pts->samples = r[0]->len + r[1]->len;
	bool shared_tuple = false;
	for (guint i = 0; i < f[0].conns->len && !shared_tuple; i++) {
		const pconn *c0 = &g_array_index(f[0].conns, pconn, i);
		shared_tuple = tuple_find(&f[1], &c0->a[0], c0->p[0], &c0->a[1], c0->p[1]) != 0;
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
	envelope env[2];
	for (int d = 0; d < 2; d++)
		envelope_of(r[d], rt[d], &env[d]);
	/* per direction the smallest, largest and median sample: a selection,
	 * not a sort */
	int64_t lo = INT64_MAX, hi = INT64_MIN, rmin[2] = {0, 0}, rmax[2] = {0, 0}, rmed[2] = {0, 0};
	for (int d = 0; d < 2; d++) {
		if (!r[d]->len)
			continue;
		int64_t *v = (int64_t *)(void *)r[d]->data;
		rmin[d] = rmax[d] = v[0];
		for (guint i = 1; i < r[d]->len; i++) {
			rmin[d] = MIN(rmin[d], v[i]);
			rmax[d] = MAX(rmax[d], v[i]);
		}
		rmed[d] = select_i64(v, r[d]->len, r[d]->len / 2);
		lo = MIN(lo, rmin[d]);
		hi = MAX(hi, rmax[d]);
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
	int64_t med0 = rmed[0], med1 = rmed[1];
	if (r[0]->len && r[1]->len)
		pts->client_side = med0 > med1 ? 0 : 1;
	else
		pts->client_side = 0;
	int64_t off, unc;
	if (r[0]->len && r[1]->len) {
		if (pts->client_side == 0) {
			int64_t m0 = rmin[0], m1 = rmax[1];
			off = m0 / 2 + m1 / 2;
			unc = m0 / 2 - m1 / 2;
		} else {
			int64_t m0 = rmax[0], m1 = rmin[1];
			off = m0 / 2 + m1 / 2;
			unc = m1 / 2 - m0 / 2;
		}
	} else {
		int x = r[0]->len ? 0 : 1;
		off = rmed[x];
		unc = rmax[x] - rmin[x];
	}
	pts->offset_s = (double)off / 1e9;
	pts->uncertainty_s = (double)unc / 1e9;
	if (r[0]->len && r[1]->len)
		pts->drift_known = estimate_drift(env, pts->client_side == 0 ? 0 : 1, &pts->drift_ppm,
						  &pts->drift_uncertainty_ppm);
	pts->analysed = force ? 0 : pts->client_side;
	pd_time slack = llabs(unc) + 500000;
	const pfile *fp[2] = {&f[0], &f[1]};
	for (guint i = 0; i < f[0].conns->len; i++) {
		pconn *c0 = &g_array_index(f[0].conns, pconn, i);
		if (c0->partner < 0)
			continue;
		pconn *c[2] = {c0, &g_array_index(f[1].conns, pconn, c0->partner)};
		pd_points_conn pc;
		measure_pair(pts, c, fp, rs, off, slack, ents + ent_at[i], ix, delays, tmp, total, &pc);
		if (!pc.dir[0].both && !pc.dir[1].both)
			continue;
		pts->paired++;
		pts->translated += pc.translated;
		for (int d = 0; d < 2; d++)
			add_dir(&pts->total[d], &pc.dir[d]);
		g_array_append_val(pts->conns, pc);
	}
	/* the delays over all paired connections (their order: by connection,
	 * each in the order its packets left the upstream point) */
	for (int d = 0; d < 2; d++)
		dir_delays(&pts->total[d], (const double *)(void *)total[d]->data, total[d]->len, tmp);
out:
	g_array_unref(delays);
	g_array_unref(tmp);
	g_array_unref(total[0]);
	g_array_unref(total[1]);
	g_free(ents);
	g_free(ent_at);
	g_array_unref(ix[0]);
	g_array_unref(ix[1]);
	g_array_unref(r[0]);
	g_array_unref(r[1]);
	g_array_unref(rt[0]);
	g_array_unref(rt[1]);
	pfile_clear(&f[0]);
	pfile_clear(&f[1]);
	return pts;
}

bool pd_points_split(const pd_points *p)
{
	/* the same point twice: reading both would count every packet twice */
	return p && (p->verdict == PD_POINTS_TWO || p->verdict == PD_POINTS_DUPLICATE);
}
