/* IP fragmentation: IPv4 fragments and IPv6 fragment headers grouped into
 * datagrams the way a Linux receiver groups them (IPv4: source,
 * destination, protocol, ID; IPv6: source, destination, identification),
 * and followed until they are complete, time out (30 s like
 * net.ipv4.ipfrag_time), or the receiver says it gave up (ICMP time
 * exceeded, code 1 "fragment reassembly time exceeded").
 *
 * Findings: ip-fragmentation (which flows fragment, datagram and fragment
 * sizes, the MTU the first fragment implies) and
 * fragment-reassembly-incomplete (datagrams with fragments missing in the
 * capture, or reported lost by the receiver).
 *
 * Memory is bounded: at most FR_MAX_DGRAMS datagrams are followed at once;
 * when the pool is full the oldest is dropped from tracking (counted). */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "heuristics/detector.h"
#include "heuristics/util.h"

#define FR_MAX_DGRAMS 4096
#define FR_HASH_BUCKETS 8192 /* power of two */
#define FR_TIMEOUT_NS (30 * PD_NS_PER_SEC) /* net.ipv4.ipfrag_time default */
/* A completed datagram stays known this long, so a second copy of its
 * fragments (capture on two interfaces) is not taken for a new one. */
#define FR_LINGER_NS (PD_NS_PER_SEC)
/* Datagrams still open this close to the capture's end may just have been
 * cut by the end of the capture. */
#define FR_END_GRACE_NS (PD_NS_PER_SEC)
#define FR_MAX_IVALS 16
#define FR_MANY_DGRAMS 100 /* "fragments a lot": warning */
#define FR_MAX_FLOWMAP 65536

typedef struct fr_key {
	uint8_t fam, proto;
	uint16_t pad;
	uint32_t ident;
	uint8_t src[16], dst[16];
} fr_key;

/* What a flow (or the flowless rest of the capture) fragmented. */
typedef struct fr_stats {
	uint64_t dgrams, frags, complete, incomplete, rx_timeouts, overlaps, dups, oversize;
	uint64_t cut_at_end, icmp_unmatched;
	uint64_t dgrams_dir[2];
	uint32_t max_dgram; /* reassembled IP size */
	uint32_t max_frag_total; /* largest fragment, IP total length */
	uint32_t min_first_total; /* smallest offset-0 fragment that had MF: the MTU it implies */
	uint32_t min_dgram;
	bool df_on_frag; /* IPv4 fragment with DF: a protocol violation */
	bool v6;
	uint8_t proto; /* upper protocol of the first datagram */
	uint16_t sport, dport; /* ports of the first datagram that showed them */
	bool has_ports;
	uint64_t first_frame;
	pd_time first_ts;
	uint64_t inc_frame; /* first incomplete datagram */
	pd_time inc_ts;
	uint64_t rx_timeout_frame;
	pd_time rx_timeout_ts;
	uint32_t inc_missing_first; /* incomplete datagrams whose first fragment was missing */
	uint64_t inc_holes; /* incomplete datagrams with a hole visible in this capture */
	uint32_t hole_lo, hole_hi; /* the first such hole */
	uint32_t hole_ident;
	pd_finding *frag_f, *inc_f; /* created on first use */
} fr_stats;

/* Per-flow block: a pointer until the flow fragments, so flows that never
 * do cost 32 bytes. */
typedef struct fr_flow {
	fr_stats *stp;
	struct fr_dgram *owned; /* datagrams of this flow still in the pool */
	bool in_map;
	pd_flow *flow;
} fr_flow;

typedef struct fr_dgram {
	fr_key key;
	bool used, complete, last_seen, untrackable, rx_timeout, accounted;
	bool df, v6;
	uint8_t proto;
	uint8_t n_ivals;
	uint16_t overlaps, dups;
	uint32_t max_frag_total;
	uint32_t lo[FR_MAX_IVALS], hi[FR_MAX_IVALS]; /* bytes covered, merged */
	uint32_t end; /* fragmentable length, from the last fragment */
	uint32_t nfrags;
	uint32_t hdr; /* IP header bytes before the fragmentable part */
	uint32_t first_total;
	uint64_t first_frame, last_frame;
	pd_time first_ts, last_ts, done_ts;
	fr_flow *owner;
	int owner_dir;
	struct fr_dgram *hnext;
	struct fr_dgram *qprev, *qnext; /* open queue (by first fragment) or linger queue */
	struct fr_dgram *oprev, *onext; /* owner's list */
} fr_dgram;

typedef struct fr_queue {
	fr_dgram *head, *tail;
} fr_queue;

typedef struct fr_global {
	fr_dgram *pool; /* FR_MAX_DGRAMS, allocated on the first fragment */
	fr_dgram *free_list;
	fr_dgram **buckets;
	fr_queue open, linger;
	uint32_t n_used;
	uint64_t evicted, evicted_open;
	uint64_t peak_open_bytes, open_bytes;
	uint32_t peak_open;
	uint32_t n_open;
	pd_time last_ts;
	bool have_ts;
	fr_stats nofl; /* datagrams with no flow (ICMP, missing first fragment, ...) */
	GHashTable *flowmap; /* pd_tuple -> fr_flow, for ICMP errors that quote a datagram */
	uint64_t flowmap_full;
} fr_global;

/* ------------------------------------------------------------ helpers */

static void fr_key_from(fr_key *k, const pd_ip *ip)
{
	memset(k, 0, sizeof(*k));
	k->fam = ip->version;
	/* Linux keys IPv6 reassembly on addresses and identification only. */
	k->proto = ip->version == 4 ? ip->proto : 0;
	k->ident = ip->ident;
	memcpy(k->src, ip->src.bytes, 16);
	memcpy(k->dst, ip->dst.bytes, 16);
}

static uint32_t fr_hash(const fr_key *k)
{
	uint32_t h = 2166136261u;
	const uint8_t *p = (const uint8_t *)k;
	for (size_t i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 16777619u;
	return h & (FR_HASH_BUCKETS - 1);
}

static void fr_q_push(fr_queue *q, fr_dgram *d)
{
	d->qnext = NULL;
	d->qprev = q->tail;
	if (q->tail)
		q->tail->qnext = d;
	else
		q->head = d;
	q->tail = d;
}

static void fr_q_unlink(fr_queue *q, fr_dgram *d)
{
	if (d->qprev)
		d->qprev->qnext = d->qnext;
	else
		q->head = d->qnext;
	if (d->qnext)
		d->qnext->qprev = d->qprev;
	else
		q->tail = d->qprev;
	d->qprev = d->qnext = NULL;
}

static void fr_owner_unlink(fr_dgram *d)
{
	if (!d->owner)
		return;
	if (d->oprev)
		d->oprev->onext = d->onext;
	else
		d->owner->owned = d->onext;
	if (d->onext)
		d->onext->oprev = d->oprev;
	d->oprev = d->onext = NULL;
	d->owner = NULL;
}

static void fr_owner_link(fr_dgram *d, fr_flow *o, int dir)
{
	if (d->owner == o)
		return;
	fr_owner_unlink(d);
	d->owner = o;
	d->owner_dir = dir;
	d->oprev = NULL;
	d->onext = o->owned;
	if (o->owned)
		o->owned->oprev = d;
	o->owned = d;
}

static uint32_t fr_covered(const fr_dgram *d)
{
	uint32_t n = 0;
	for (uint8_t i = 0; i < d->n_ivals; i++)
		n += d->hi[i] - d->lo[i];
	return n;
}

static uint32_t fr_open_bytes(const fr_dgram *d)
{
	return fr_covered(d) + d->hdr;
}

static fr_stats *fr_flow_stats(fr_flow *o)
{
	if (!o->stp)
		o->stp = g_new0(fr_stats, 1);
	return o->stp;
}

static fr_stats *fr_stats_of(fr_global *g, fr_dgram *d)
{
	return d->owner ? fr_flow_stats(d->owner) : &g->nofl;
}

/* The flow a quoted header belongs to, either direction. */
static fr_flow *fr_map_find(fr_global *g, const pd_ip *in, uint16_t sp, uint16_t dp, int *dir)
{
	uint8_t proto = in->version == 6 && in->has_frag_header ? in->frag_proto : in->proto;
	return pd_tuple_map_find(g->flowmap, in, proto, sp, dp, dir);
}

/* --------------------------------------------------------- resolution */

static void fr_free(fr_global *g, fr_dgram *d)
{
	fr_dgram **pp = &g->buckets[fr_hash(&d->key)];
	while (*pp && *pp != d)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = d->hnext;
	if (d->complete)
		fr_q_unlink(&g->linger, d);
	else {
		fr_q_unlink(&g->open, d);
		g->n_open--;
		uint32_t b = fr_open_bytes(d);
		g->open_bytes = g->open_bytes > b ? g->open_bytes - b : 0;
	}
	fr_owner_unlink(d);
	d->used = false;
	d->hnext = g->free_list;
	g->free_list = d;
	g->n_used--;
}

/* A datagram's own counts go to its flow (or the flowless rest) once. */
static void fr_account(fr_global *g, fr_dgram *d)
{
	if (d->accounted)
		return;
	d->accounted = true;
	fr_stats *s = fr_stats_of(g, d);
	s->dgrams++;
	s->frags += d->nfrags;
	s->overlaps += d->overlaps;
	s->dups += d->dups;
	if (d->owner)
		s->dgrams_dir[d->owner_dir]++;
	if (d->df)
		s->df_on_frag = true;
	if (d->max_frag_total > s->max_frag_total)
		s->max_frag_total = d->max_frag_total;
	if (d->first_total && (!s->min_first_total || d->first_total < s->min_first_total))
		s->min_first_total = d->first_total;
	if (!s->first_frame || d->first_frame < s->first_frame) {
		s->first_frame = d->first_frame;
		s->first_ts = d->first_ts;
		s->v6 = d->v6;
		s->proto = d->proto;
	}
	if (d->complete) {
		s->complete++;
		uint32_t size = d->end + d->hdr;
		if (size > s->max_dgram)
			s->max_dgram = size;
		if (!s->min_dgram || size < s->min_dgram)
			s->min_dgram = size;
		if (size > 65535)
			s->oversize++;
	}
}

static void fr_note_incomplete(pd_run *run, fr_global *g, fr_dgram *d, bool rx_reported)
{
	fr_stats *s = fr_stats_of(g, d);
	s->incomplete++;
	if (!d->n_ivals || d->lo[0] != 0)
		s->inc_missing_first++;
	bool hole = !d->n_ivals || d->lo[0] != 0 || d->n_ivals > 1 || (d->last_seen && d->hi[0] < d->end) ||
		    !d->last_seen;
	if (hole) {
		if (!s->inc_holes) {
			s->hole_ident = d->key.ident;
			s->hole_lo = d->n_ivals && d->lo[0] == 0 ? d->hi[0] : 0;
			s->hole_hi = d->n_ivals > 1 ? d->lo[1] : (d->n_ivals && d->lo[0] != 0 ? d->lo[0] : d->end);
		}
		s->inc_holes++;
	}
	if (!s->inc_frame || d->first_frame < s->inc_frame) {
		s->inc_frame = d->first_frame;
		s->inc_ts = d->first_ts;
	}
	if (!s->inc_f)
		s->inc_f = pd_finding_get(run, "fragment-reassembly-incomplete", d->owner ? d->owner->flow : NULL);
	char what[64];
	if (rx_reported)
		snprintf(what, sizeof(what), "ID 0x%x: receiver reassembly timed out", d->key.ident);
	else if (d->last_seen)
		snprintf(what, sizeof(what), "ID 0x%x: %u of %u bytes seen", d->key.ident, fr_covered(d), d->end);
	else
		snprintf(what, sizeof(what), "ID 0x%x: last fragment missing", d->key.ident);
	pd_finding_occurrence_at(s->inc_f, d->first_frame, d->first_ts, what);
}

/* A datagram leaves the pool: decide what it was. */
static void fr_resolve(pd_run *run, fr_global *g, fr_dgram *d, bool evicted)
{
	fr_account(g, d);
	if (!d->complete && !d->rx_timeout) {
		if (evicted) {
			g->evicted_open++;
		} else if (d->untrackable) {
			/* too many holes to judge */
		} else if (g->have_ts && g->last_ts - d->last_ts < FR_END_GRACE_NS &&
			   g->last_ts - d->first_ts < FR_TIMEOUT_NS) {
			fr_stats_of(g, d)->cut_at_end++;
		} else {
			fr_note_incomplete(run, g, d, false);
		}
	}
	if (evicted)
		g->evicted++;
	fr_free(g, d);
}

static void fr_expire(pd_run *run, fr_global *g, pd_time now)
{
	while (g->open.head && now - g->open.head->first_ts > FR_TIMEOUT_NS)
		fr_resolve(run, g, g->open.head, false);
	while (g->linger.head && now - g->linger.head->done_ts > FR_LINGER_NS)
		fr_resolve(run, g, g->linger.head, false);
}

static fr_dgram *fr_find(fr_global *g, const fr_key *k)
{
	if (!g->buckets)
		return NULL;
	for (fr_dgram *d = g->buckets[fr_hash(k)]; d; d = d->hnext)
		if (memcmp(&d->key, k, sizeof(*k)) == 0)
			return d;
	return NULL;
}

static fr_dgram *fr_new(pd_run *run, fr_global *g, const fr_key *k)
{
	if (!g->pool) {
		g->pool = g_new0(fr_dgram, FR_MAX_DGRAMS);
		g->buckets = g_new0(fr_dgram *, FR_HASH_BUCKETS);
		for (int i = FR_MAX_DGRAMS - 1; i >= 0; i--) {
			g->pool[i].hnext = g->free_list;
			g->free_list = &g->pool[i];
		}
	}
	if (!g->free_list) {
		/* Full: finished ones go first, then the oldest open one. */
		fr_resolve(run, g, g->linger.head ? g->linger.head : g->open.head, true);
	}
	fr_dgram *d = g->free_list;
	g->free_list = d->hnext;
	memset(d, 0, sizeof(*d));
	d->used = true;
	d->key = *k;
	uint32_t b = fr_hash(k);
	d->hnext = g->buckets[b];
	g->buckets[b] = d;
	fr_q_push(&g->open, d);
	g->n_used++;
	g->n_open++;
	if (g->n_open > g->peak_open)
		g->peak_open = g->n_open;
	return d;
}

/* Adds [lo, hi) to the covered set; tells whether it overlapped. */
static void fr_cover(fr_dgram *d, uint32_t lo, uint32_t hi, bool *overlap, bool *dup)
{
	*overlap = *dup = false;
	if (hi <= lo)
		return;
	uint32_t nlo = lo, nhi = hi;
	uint8_t keep = 0;
	uint32_t klo[FR_MAX_IVALS], khi[FR_MAX_IVALS];
	for (uint8_t i = 0; i < d->n_ivals; i++) {
		if (d->lo[i] <= lo && hi <= d->hi[i])
			*dup = true;
		else if (d->lo[i] < hi && lo < d->hi[i])
			*overlap = true;
		if (d->hi[i] < nlo || nhi < d->lo[i]) {
			klo[keep] = d->lo[i];
			khi[keep] = d->hi[i];
			keep++;
		} else {
			if (d->lo[i] < nlo)
				nlo = d->lo[i];
			if (d->hi[i] > nhi)
				nhi = d->hi[i];
		}
	}
	if (*dup)
		return;
	if (keep >= FR_MAX_IVALS) {
		d->untrackable = true; /* more holes than we follow: stop judging */
		return;
	}
	/* insert sorted */
	uint8_t n = 0;
	bool placed = false;
	for (uint8_t i = 0; i < keep; i++) {
		if (!placed && nlo < klo[i]) {
			d->lo[n] = nlo;
			d->hi[n] = nhi;
			n++;
			placed = true;
		}
		d->lo[n] = klo[i];
		d->hi[n] = khi[i];
		n++;
	}
	if (!placed) {
		d->lo[n] = nlo;
		d->hi[n] = nhi;
		n++;
	}
	d->n_ivals = n;
}

static void fr_complete(fr_global *g, fr_dgram *d, pd_time ts)
{
	uint32_t b = fr_open_bytes(d);
	g->open_bytes = g->open_bytes > b ? g->open_bytes - b : 0;
	fr_q_unlink(&g->open, d);
	g->n_open--;
	d->complete = true;
	d->done_ts = ts;
	fr_q_push(&g->linger, d);
	/* Counted when it leaves the pool: its flow may be learnt later
	 * (first fragment arriving last). */
	(void)g;
}

/* --------------------------------------------------------------- hooks */

static void fr_on_icmp(pd_run *run, fr_global *g, const pd_packet *pkt)
{
	const pd_icmp *ic = &pkt->icmp;
	bool v6 = pkt->l4 == PD_L4_ICMP6;
	/* Time exceeded, code 1: the receiver dropped a partial datagram. */
	if (!ic->is_error || !ic->has_inner || ic->code != 1 || ic->type != (v6 ? 3 : 11))
		return;
	const pd_ip *in = &ic->inner_ip;
	fr_key k;
	fr_key_from(&k, in);
	fr_dgram *d = fr_find(g, &k);
	fr_flow *o = d ? d->owner : NULL;
	int dir = d ? d->owner_dir : PD_CLIENT;
	if (!o && ic->inner_has_ports)
		o = fr_map_find(g, in, ic->inner_sport, ic->inner_dport, &dir);
	fr_stats *s = o ? fr_flow_stats(o) : &g->nofl;
	s->rx_timeouts++;
	if (!s->rx_timeout_frame) {
		s->rx_timeout_frame = pkt->frame_no;
		s->rx_timeout_ts = pkt->ts;
	}
	if (d && !d->rx_timeout) {
		/* Seen complete here (sender side) or still open: either way the
		 * receiver did not get every fragment. */
		fr_account(g, d);
		d->rx_timeout = true;
		if (d->complete && s->complete)
			s->complete--;
		fr_note_incomplete(run, g, d, true);
		fr_resolve(run, g, d, false);
	} else if (!d) {
		/* Already gone from the pool (seen complete here): count it
		 * against the flow as lost at the receiver. */
		if (s->complete)
			s->complete--;
		s->incomplete++;
		if (!s->inc_f)
			s->inc_f = pd_finding_get(run, "fragment-reassembly-incomplete", o ? o->flow : NULL);
		pd_finding_occurrence(s->inc_f, pkt, "receiver: fragment reassembly time exceeded");
		if (!s->inc_frame || pkt->frame_no < s->inc_frame) {
			s->inc_frame = pkt->frame_no;
			s->inc_ts = pkt->ts;
		}
	}
	(void)dir;
}

static void fr_on_packet(pd_run *run, void *gv, const pd_packet *pkt)
{
	fr_global *g = gv;
	if (!g->have_ts || pkt->ts > g->last_ts)
		g->last_ts = pkt->ts;
	g->have_ts = true;
	if (g->n_used)
		fr_expire(run, g, pkt->ts);
	if (pkt->l4 == PD_L4_ICMP || pkt->l4 == PD_L4_ICMP6)
		fr_on_icmp(run, g, pkt); /* and on: a big ping is fragmented too */
	const pd_ip *ip = &pkt->ip;
	if (!ip->is_fragment)
		return;

	fr_key k;
	fr_key_from(&k, ip);
	fr_dgram *d = fr_find(g, &k);
	if (d && d->complete) {
		bool ov, dup;
		fr_cover(d, ip->frag_offset, ip->frag_offset + ip->frag_payload_len, &ov, &dup);
		if (dup) {
			/* A second copy of a fragment of a finished datagram. */
			fr_stats_of(g, d)->dups++;
			return;
		}
		/* New datagram reusing the ID. */
		fr_resolve(run, g, d, false);
		d = NULL;
	}
	bool fresh = d == NULL;
	if (!d)
		d = fr_new(run, g, &k);
	if (fresh) {
		d->first_frame = pkt->frame_no;
		d->first_ts = pkt->ts;
	}
	d->last_frame = pkt->frame_no;
	d->last_ts = pkt->ts;
	d->nfrags++;

	uint32_t lo = ip->frag_offset, hi = ip->frag_offset + ip->frag_payload_len;
	uint32_t before = fr_open_bytes(d);
	bool ov = false, dup = false;
	fr_cover(d, lo, hi, &ov, &dup);
	if (ip->frag_offset == 0) {
		/* v6: the fixed header and the extension headers up to the
		 * transport; the fragment header itself drops out. */
		d->hdr = ip->version == 4 ? ip->hdr_len : (ip->hdr_len >= 48 ? ip->hdr_len - 8u : 40u);
	} else if (!d->hdr) {
		d->hdr = ip->version == 4 ? ip->hdr_len : 40;
	}
	uint32_t after = fr_open_bytes(d);
	g->open_bytes += after > before ? after - before : 0;
	if (g->open_bytes > g->peak_open_bytes)
		g->peak_open_bytes = g->open_bytes;
	if (!ip->mf) {
		if (d->last_seen && d->end != hi)
			ov = true; /* two different ends */
		d->last_seen = true;
		d->end = hi;
	}

	if (fresh) {
		d->v6 = ip->version == 6;
		d->proto = ip->version == 6 ? ip->frag_proto : ip->proto;
	}
	if (ov)
		d->overlaps++;
	if (dup)
		d->dups++;
	if (ip->version == 4 && ip->df)
		d->df = true;
	if (ip->total_len > d->max_frag_total)
		d->max_frag_total = ip->total_len;
	if (ip->frag_offset == 0 && ip->mf)
		d->first_total = ip->total_len;
	else if (ip->frag_offset == 0)
		d->first_total = 0;

	if (d->last_seen && !d->untrackable && d->n_ivals == 1 && d->lo[0] == 0 && d->hi[0] >= d->end)
		fr_complete(g, d, pkt->ts);
}

/* First fragments reach the flow hooks: the datagram learns its flow. */
static void fr_on_first_fragment(pd_run *run, fr_global *g, pd_flow *flow, fr_flow *o, const pd_packet *pkt,
				 int dir, uint16_t sport, uint16_t dport)
{
	o->flow = flow;
	if (!o->in_map) {
		if (pd_tuple_map_add(&g->flowmap, flow, o, FR_MAX_FLOWMAP))
			o->in_map = true;
		else
			g->flowmap_full++;
	}
	fr_key k;
	fr_key_from(&k, &pkt->ip);
	fr_dgram *d = fr_find(g, &k);
	if (!d || d->owner == o)
		return;
	fr_owner_link(d, o, dir);
	fr_stats *s = fr_flow_stats(o);
	if (!s->has_ports) {
		s->has_ports = true;
		s->sport = sport;
		s->dport = dport;
	}
	if (!s->frag_f)
		s->frag_f = pd_finding_get(run, "ip-fragmentation", flow);
	char what[64];
	snprintf(what, sizeof(what), "first fragment, ID 0x%x, %u bytes", pkt->ip.ident, pkt->ip.total_len);
	pd_finding_occurrence(s->frag_f, pkt, what);
}

static void fr_on_udp(pd_run *run, void *gv, pd_flow *flow, void *fs, const pd_packet *pkt, int dir)
{
	if (!pkt->ip.is_fragment || pkt->ip.frag_offset != 0)
		return;
	fr_on_first_fragment(run, gv, flow, fs, pkt, dir, pkt->udp.sport, pkt->udp.dport);
}

static void fr_on_tcp(pd_run *run, void *gv, pd_flow *flow, void *fs, const pd_packet *pkt, const pd_seg *seg)
{
	if (!pkt->ip.is_fragment || pkt->ip.frag_offset != 0)
		return;
	fr_on_first_fragment(run, gv, flow, fs, pkt, seg->dir, pkt->tcp.sport, pkt->tcp.dport);
}

/* --------------------------------------------------------------- report */

static const char *fr_proto_name(uint8_t p)
{
	switch (p) {
	case 6:
		return "TCP";
	case 17:
		return "UDP";
	case 1:
		return "ICMP";
	case 58:
		return "ICMPv6";
	case 50:
		return "ESP";
	default:
		return "IP";
	}
}

/* Known datagram-heavy services, for the advice line. */
static const char *fr_app_hint(const fr_stats *s)
{
	if (!s->has_ports)
		return "";
	uint16_t p = s->sport < s->dport ? s->sport : s->dport;
	if (s->sport == 53 || s->dport == 53)
		return " (DNS: large answers with a big EDNS buffer size; 1232 avoids fragmentation)";
	if (s->sport == 2049 || s->dport == 2049)
		return " (NFS over UDP: use TCP or smaller rsize/wsize)";
	if (s->sport == 4789 || s->dport == 4789)
		return " (VXLAN underlay: raise the underlay MTU or lower the overlay MTU by 50 B)";
	if (s->sport == 500 || s->dport == 500 || s->sport == 4500 || s->dport == 4500)
		return " (IKE/IPsec: large certificates; enable IKE fragmentation)";
	if (s->sport == 161 || s->dport == 161 || s->sport == 162 || s->dport == 162)
		return " (SNMP: large responses)";
	if (s->sport == 514 || s->dport == 514)
		return " (syslog over UDP: long messages)";
	(void)p;
	return "";
}

/* The first fragment's payload is rounded down to 8 bytes, so the MTU
 * that produced it lies in [size, size + 7]. */
static void fr_tunnel_hint(uint32_t size, char *buf, size_t len)
{
	static const struct {
		uint32_t mtu;
		const char *what;
	} known[] = {
		{1500, "the Ethernet default: the datagram itself is larger than the MTU"},
		{1492, "PPPoE-sized"},
		{1480, "like an IPIP or SIT (6in4) tunnel"},
		{1476, "like a GRE tunnel"},
		{1450, "like VXLAN over IPv4"},
		{1440, "like WireGuard over IPv4"},
		{1420, "like WireGuard over IPv6"},
		{1280, "the IPv6 minimum MTU"},
	};
	buf[0] = 0;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i].mtu >= size && known[i].mtu <= size + 7) {
			snprintf(buf, len, ", %u: %s", known[i].mtu, known[i].what);
			return;
		}
}

static void fr_emit(pd_run *run, fr_global *g, fr_stats *s, const pd_flow *flow)
{
	(void)g;
	char hint[96], mtu_s[192] = "";
	if (s->frag_f || (s->dgrams && !flow)) {
		if (!s->frag_f)
			s->frag_f = pd_finding_get(run, "ip-fragmentation", NULL);
		pd_finding *f = s->frag_f;
		if (!flow && s->first_frame && f->occurrences == 0)
			pd_finding_occurrence_at(f, s->first_frame, s->first_ts, "first fragment");
		pd_finding_metric(f, "fragmented_datagrams", (double)s->dgrams, "count");
		pd_finding_metric(f, "fragments", (double)s->frags, "count");
		if (s->max_dgram)
			pd_finding_metric(f, "max_datagram_size", s->max_dgram, "bytes");
		if (s->max_frag_total)
			pd_finding_metric(f, "max_fragment_size", s->max_frag_total, "bytes");
		/* No real link fragments this small: IPv4 routers keep >= 552 B
		 * (Linux min_pmtu; 68 is the legal floor), IPv6 needs 1280. */
		bool tiny = s->min_first_total && s->min_first_total < (s->v6 ? 1280u : 552u);
		if (tiny) {
			snprintf(mtu_s, sizeof(mtu_s),
				 "; first fragments of only %u B: smaller than any real link MTU (%s), so made "
				 "by a tool or an evasion attempt, and dropped by many firewalls",
				 s->min_first_total, s->v6 ? "IPv6 minimum 1280" : "IPv4 paths carry at least 552-576");
			pd_finding_metric(f, "tiny_first_fragment", s->min_first_total, "bytes");
		} else if (s->min_first_total) {
			pd_finding_metric(f, "implied_mtu", s->min_first_total, "bytes");
			fr_tunnel_hint(s->min_first_total, hint, sizeof(hint));
			snprintf(mtu_s, sizeof(mtu_s), "; first fragments of %u B imply an MTU of %u-%u%s",
				 s->min_first_total, s->min_first_total, s->min_first_total + 7, hint);
		}
		if (s->overlaps)
			pd_finding_metric(f, "overlapping_fragments", (double)s->overlaps, "count");
		if (s->dups)
			pd_finding_metric(f, "duplicate_fragments", (double)s->dups, "count");
		if (s->oversize)
			pd_finding_metric(f, "oversize_datagrams", (double)s->oversize, "count");
		const char *app = flow && flow->app && strcmp(flow->app, "Unknown") ? flow->app : NULL;
		char ports[48] = "";
		if (s->has_ports)
			snprintf(ports, sizeof(ports), " port %u->%u", s->sport, s->dport);
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " %s%s %s datagram%s%s%s%s fragmented into %" G_GUINT64_FORMAT
				  " fragments (largest datagram %u B, largest fragment %u B)%s%s%s%s%s",
				  s->dgrams, s->v6 ? "IPv6" : "IPv4", ports, fr_proto_name(s->proto),
				  s->dgrams == 1 ? "" : "s", app ? " (" : "", app ? app : "", app ? ")" : "", s->frags,
				  s->max_dgram, s->max_frag_total, mtu_s,
				  s->overlaps ? "; OVERLAPPING fragments seen (malformed or an evasion attempt)" : "",
				  s->oversize ? "; reassembled size over 65535 B (invalid)" : "",
				  s->dups ? "; some fragments captured twice (not resent: IP never retransmits)" : "",
				  fr_app_hint(s));
		if (s->dgrams >= FR_MANY_DGRAMS || s->overlaps || s->oversize || tiny)
			f->severity = PD_SEV_WARNING;
		f->confidence = 0.95;
		if (s->proto == 6)
			pd_finding_settings(f, "net.ipv4.ip_no_pmtu_disc", "MSS clamping", "interface MTU", NULL);
		else if (s->min_first_total && s->min_first_total + 7 < 1500)
			pd_finding_settings(f, "interface MTU", "application datagram size", NULL);
		else
			pd_finding_settings(f, "application datagram size", "interface MTU", NULL);
	}
	if (s->incomplete && s->inc_f) {
		pd_finding *f = s->inc_f;
		pd_finding_metric(f, "incomplete_datagrams", (double)s->incomplete, "count");
		pd_finding_metric(f, "fragmented_datagrams", (double)s->dgrams, "count");
		pd_finding_metric(f, "incomplete_in_capture", (double)s->inc_holes, "count");
		if (s->rx_timeouts)
			pd_finding_metric(f, "receiver_reassembly_timeouts", (double)s->rx_timeouts, "count");
		if (s->dgrams)
			pd_finding_metric(f, "incomplete_ratio", (double)s->incomplete / (double)s->dgrams, "ratio");
		char rx[160] = "";
		if (s->rx_timeouts)
			snprintf(rx, sizeof(rx),
				 "; the receiver reported %" G_GUINT64_FORMAT
				 " reassembly timeout%s (ICMP time exceeded, code 1; first at frame %" G_GUINT64_FORMAT ")",
				 s->rx_timeouts, s->rx_timeouts == 1 ? "" : "s", s->rx_timeout_frame);
		char seen[200] = "";
		if (s->inc_holes && s->hole_hi > s->hole_lo)
			snprintf(seen, sizeof(seen),
				 "; %" G_GUINT64_FORMAT " with fragments missing in this capture (e.g. ID 0x%x, bytes %u-%u)%s",
				 s->inc_holes, s->hole_ident, s->hole_lo, s->hole_hi - 1,
				 s->inc_missing_first ? ", some without their first fragment" : "");
		else if (s->inc_holes)
			snprintf(seen, sizeof(seen), "; %" G_GUINT64_FORMAT " with fragments missing in this capture%s",
				 s->inc_holes, s->inc_missing_first ? ", some without their first fragment" : "");
		else if (s->rx_timeouts)
			snprintf(seen, sizeof(seen),
				 "; every fragment passed this capture point (sender side?): they were lost further on");
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
				  " fragmented datagrams never completed%s%s; each one is lost whole at the receiver "
				  "(the sender's application sees only a timeout)",
				  s->incomplete, s->dgrams > s->incomplete ? s->dgrams : s->incomplete, seen, rx);
		f->confidence = s->rx_timeouts ? 0.95 : 0.75;
		/* Many datagrams open at once point at the reassembly memory limit. */
		if (g->peak_open_bytes > 3u * 1024 * 1024)
			pd_finding_settings(f, "net.ipv4.ipfrag_high_thresh", "application datagram size",
					    "firewall dropping fragments", "net.ipv4.ipfrag_time", NULL);
		else
			pd_finding_settings(f, "firewall dropping fragments", "application datagram size",
					    "interface MTU", "net.ipv4.ipfrag_high_thresh", "net.ipv4.ipfrag_time", NULL);
	}
}

static void fr_on_flow_end(pd_run *run, void *gv, pd_flow *flow, void *fs)
{
	fr_global *g = gv;
	fr_flow *o = fs;
	if (!o->stp && !o->in_map && !o->owned)
		return;
	/* Datagrams still open end with their flow. */
	while (o->owned) {
		fr_dgram *d = o->owned;
		if (d->complete) {
			fr_account(g, d);
			fr_owner_unlink(d);
		}
		else
			fr_resolve(run, g, d, false);
	}
	if (o->in_map) {
		pd_tuple_map_remove(g->flowmap, flow);
		o->in_map = false;
	}
	if (o->stp)
		fr_emit(run, g, o->stp, flow);
	g_free(o->stp);
	o->stp = NULL;
}

static void fr_on_end(pd_run *run, void *gv)
{
	fr_global *g = gv;
	while (g->open.head)
		fr_resolve(run, g, g->open.head, false);
	while (g->linger.head)
		fr_resolve(run, g, g->linger.head, false);
	fr_stats *s = &g->nofl;
	if (s->dgrams || s->incomplete) {
		fr_emit(run, g, s, NULL);
	}
	if (g->evicted) {
		pd_finding *f = s->frag_f ? s->frag_f : NULL;
		if (!f)
			f = pd_finding_get(run, "ip-fragmentation", NULL);
		pd_finding_metric(f, "datagrams_dropped_from_tracking", (double)g->evicted, "count");
		pd_finding_metric(f, "open_datagrams_dropped_from_tracking", (double)g->evicted_open, "count");
		if (!f->detail)
			pd_finding_detail(f,
					  "more than %d fragmented datagrams open at once: %" G_GUINT64_FORMAT
					  " were dropped from tracking (%" G_GUINT64_FORMAT " still incomplete)",
					  FR_MAX_DGRAMS, g->evicted, g->evicted_open);
	}
}

static void fr_fini(void *gv)
{
	fr_global *g = gv;
	g_free(g->pool);
	g_free(g->buckets);
	if (g->flowmap)
		g_hash_table_destroy(g->flowmap);
}

const pd_detector pd_det_fragments = {
	.name = "fragments",
	.flow_state_size = sizeof(fr_flow),
	.cost = 2,
	.needs_app = true, /* names the application in its detail */
	.global_state_size = sizeof(fr_global),
	.on_packet = fr_on_packet,
	.on_tcp = fr_on_tcp,
	.on_udp = fr_on_udp,
	.on_flow_end = fr_on_flow_end,
	.on_end = fr_on_end,
	.fini = fr_fini,
};
