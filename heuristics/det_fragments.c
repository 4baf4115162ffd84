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
 * Fragments missing from the capture are not always missing at the
 * receiver: a TCP segment whose data the receiver ACKs with no resend in
 * between arrived whole (the capture dropped the fragment), and a UDP peer
 * that sends its next datagram at the pace it keeps after complete ones
 * most likely got the answer. The first are capture drops and no loss; the
 * second are said to be most likely capture drops, at info. A UDP request
 * of a request/response protocol (DNS by its ID, ONC RPC such as NFS by
 * its xid) that the receiver answered from the same port pair before the
 * sender sent the request again was delivered whole too: a capture drop,
 * no finding of its own (the capture missed the fragments; a request
 * resent before any answer was lost on the path and stays one). A datagram
 * whose first fragment (with the TCP header) is missing reaches a
 * pseudo-flow; it is judged at the end against the TCP flows between the
 * same addresses whose receiver got everything without a resend.
 *
 * Every fragment reaches its flow (analyzer/router.c): the first through
 * on_tcp/on_udp, the others through on_fragment; a datagram whose first
 * fragment the capture lacks, and fragments of protocols without ports,
 * reach a pseudo-flow between the two addresses. So datagrams are followed
 * per flow. Memory is bounded: at most FR_FLOW_DGRAMS datagrams of a flow
 * are followed at once; past that the oldest is dropped from tracking
 * (counted). */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "dissect/cursor.h"
#include "heuristics/detector.h"
#include "heuristics/util.h"

#define FR_FLOW_DGRAMS 32 /* datagrams of one flow followed at once */
#define FR_TIMEOUT_NS (30 * PD_NS_PER_SEC) /* net.ipv4.ipfrag_time default */
/* A completed datagram stays known this long, so a second copy of its
 * fragments (capture on two interfaces) is not taken for a new one. */
#define FR_LINGER_NS (PD_NS_PER_SEC)
/* Datagrams still open this close to the flow's end may just have been
 * cut by the end of the capture. */
#define FR_END_GRACE_NS (PD_NS_PER_SEC)
#define FR_MAX_IVALS 16
#define FR_MANY_DGRAMS 100 /* "fragments a lot": warning */
#define FR_EXAMPLES 8 /* evidence frames kept per finding */

typedef struct fr_key {
	uint8_t fam, proto;
	uint16_t pad;
	uint32_t ident;
	uint8_t src[16], dst[16];
} fr_key;

/* What a flow fragmented. */
typedef struct fr_stats {
	uint64_t dgrams, frags, complete, incomplete, rx_timeouts, overlaps, dups, oversize;
	uint64_t cut_at_end;
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
	uint64_t rx_timeout_frame;
	pd_time rx_timeout_ts;
	uint64_t missed; /* incomplete here, but the receiver's TCP ACK shows it got them whole */
	uint64_t missed_frame;
	pd_time missed_ts;
	uint32_t missed_ident;
	uint64_t answered; /* incomplete here, but the receiver answered this very UDP request */
	uint64_t answered_frame;
	pd_time answered_ts;
	uint32_t answered_ident;
	uint8_t answered_xid_kind;
	uint64_t in_step; /* incomplete here, but the UDP peer went on at its usual pace */
	pd_time in_step_gap; /* the largest peer gap after one of them */
	uint32_t step_n; /* complete datagrams the peer followed with one of its own */
	pd_time step_max; /* the longest of those gaps */
	/* IPv4 IDs of each side's TCP datagrams: first and span */
	bool id_set[2];
	uint16_t id_first[2], id_span[2];
	uint32_t inc_missing_first; /* incomplete datagrams whose first fragment was missing */
	uint64_t inc_holes; /* incomplete datagrams with a hole visible in this capture */
	uint32_t hole_lo, hole_hi; /* the first such hole */
	uint32_t hole_ident;
} fr_stats;

typedef struct fr_dgram {
	fr_key key;
	uint8_t dir; /* its sender */
	bool used, complete, last_seen, untrackable, rx_timeout;
	/* a TCP segment (first fragment seen): its sequence, and whether the
	 * receiver ACKed past what the capture saw of it before any resend */
	bool tcp_known, resent, delivered;
	uint32_t tcp_seq, tcp_hdr;
	/* a UDP request whose transaction id is known (first fragment
	 * seen): resent by the sender, answered by the receiver (before a
	 * resend) */
	uint8_t xid_kind;
	bool xid_resent, answered;
	uint32_t xid;
	/* the time from its last fragment to the peer's next datagram */
	bool peer_gap_set;
	pd_time peer_gap;
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
} fr_dgram;

/* Evidence for the findings, kept until the flow ends. */
typedef struct fr_first {
	uint64_t frame;
	pd_time ts;
	uint32_t ident, size;
} fr_first;

enum { FR_INC_RX, FR_INC_SEEN, FR_INC_LAST, FR_INC_RX_GONE, FR_INC_STEP };
typedef struct fr_inc {
	uint64_t frame;
	pd_time ts;
	uint32_t ident, covered, end;
	uint8_t kind, dir;
} fr_inc;

/* A flow's fragmentation, made at its first fragment. */
typedef struct fr_state {
	fr_stats s;
	fr_dgram *d; /* n_d of them, up to FR_FLOW_DGRAMS */
	uint32_t n_d;
	uint64_t evicted, evicted_open;
	uint64_t open_bytes, peak_open_bytes;
	fr_first firsts[FR_EXAMPLES];
	uint32_t n_firsts;
	fr_inc incs[FR_EXAMPLES];
	uint32_t n_incs;
} fr_state;

/* Per-flow block: a pointer until the flow fragments. */
typedef struct fr_flow {
	fr_state *st;
} fr_flow;

/* Datagrams of a pseudo-flow (first fragment missing) that carried TCP,
 * judged at the end against the TCP flows between the same addresses. */
#define FR_ORPHANS 64
typedef struct fr_orphan {
	pd_flow_key flow; /* the pseudo-flow */
	uint8_t fam;
	uint8_t src[16], dst[16];
	fr_inc inc;
} fr_orphan;

/* A TCP flow's side whose receiver got all its data with no resend: any
 * datagram of it the capture shows incomplete arrived whole. */
#define FR_CLEAN 64
typedef struct fr_clean {
	uint8_t fam;
	uint8_t src[16], dst[16];
	uint16_t id_first, id_span;
	pd_time first_ts, last_ts;
} fr_clean;

typedef struct fr_global {
	fr_orphan orphans[FR_ORPHANS];
	uint32_t n_orphans;
	fr_clean clean[FR_CLEAN];
	uint32_t n_clean, next_clean;
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

static fr_state *fr_state_of(fr_flow *o)
{
	if (!o->st)
		o->st = g_new0(fr_state, 1);
	return o->st;
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

static fr_dgram *fr_find(fr_state *st, const fr_key *k)
{
	for (uint32_t i = 0; i < st->n_d; i++)
		if (st->d[i].used && memcmp(&st->d[i].key, k, sizeof(*k)) == 0)
			return &st->d[i];
	return NULL;
}

static void fr_note_inc(fr_state *st, uint8_t kind, uint64_t frame, pd_time ts, const fr_dgram *d)
{
	if (st->n_incs < FR_EXAMPLES) {
		fr_inc *e = &st->incs[st->n_incs];
		e->kind = kind;
		e->frame = frame;
		e->ts = ts;
		e->ident = d ? d->key.ident : 0;
		e->covered = d ? fr_covered(d) : 0;
		e->end = d ? d->end : 0;
		e->dir = d ? d->dir : 0;
	}
	st->n_incs++;
}

/* --------------------------------------------------------- resolution */

/* A datagram's own counts go to its flow. */
static void fr_account(fr_state *st, const fr_dgram *d)
{
	fr_stats *s = &st->s;
	s->dgrams++;
	s->frags += d->nfrags;
	s->overlaps += d->overlaps;
	s->dups += d->dups;
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
	if (d->complete && !d->rx_timeout) {
		s->complete++;
		if (d->peer_gap_set) {
			s->step_n++;
			if (d->peer_gap > s->step_max)
				s->step_max = d->peer_gap;
		}
		uint32_t size = d->end + d->hdr;
		if (size > s->max_dgram)
			s->max_dgram = size;
		if (!s->min_dgram || size < s->min_dgram)
			s->min_dgram = size;
		if (size > 65535)
			s->oversize++;
	}
}

static void fr_note_incomplete(fr_state *st, const fr_dgram *d, bool rx_reported, uint64_t frame, pd_time ts)
{
	fr_stats *s = &st->s;
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
	fr_note_inc(st, rx_reported ? FR_INC_RX : d->last_seen ? FR_INC_SEEN : FR_INC_LAST, frame, ts, d);
}

static void fr_free(fr_state *st, fr_dgram *d)
{
	if (!d->complete) {
		uint32_t b = fr_open_bytes(d);
		st->open_bytes = st->open_bytes > b ? st->open_bytes - b : 0;
	}
	d->used = false;
}

/* A UDP datagram incomplete here that the peer followed at the pace it
 * keeps after complete ones (at least 3 of them, within a quarter more plus
 * 10 ms): the exchange went on, most likely the peer got it. */
static bool fr_in_step(const fr_state *st, const fr_dgram *d)
{
	const fr_stats *s = &st->s;
	if (d->tcp_known || d->proto == 6 || !d->peer_gap_set || s->step_n < 3)
		return false;
	return d->peer_gap <= s->step_max + s->step_max / 4 + 10 * 1000 * 1000LL;
}

/* A datagram leaves the flow's table at time now: decide what it was
 * (cut: the capture ended; evicted: no longer followed). */
static void fr_resolve_at(fr_state *st, fr_dgram *d, pd_time now, bool evicted, bool cut)
{
	fr_account(st, d);
	if (!d->complete && !d->rx_timeout) {
		fr_stats *s = &st->s;
		if (evicted) {
			st->evicted_open++;
		} else if (d->untrackable) {
			/* too many holes to judge */
		} else if (d->answered) {
			/* the receiver answered this very request: the capture
			 * missed fragments (proven however close to the end) */
			if (!s->answered || d->first_frame < s->answered_frame) {
				s->answered_frame = d->first_frame;
				s->answered_ts = d->first_ts;
				s->answered_ident = d->key.ident;
				s->answered_xid_kind = d->xid_kind;
			}
			s->answered++;
		} else if (cut && now - d->last_ts < FR_END_GRACE_NS && now - d->first_ts < FR_TIMEOUT_NS) {
			s->cut_at_end++;
		} else if (d->delivered) {
			/* the receiver ACKed its data: the capture missed fragments */
			if (!s->missed || d->first_frame < s->missed_frame) {
				s->missed_frame = d->first_frame;
				s->missed_ts = d->first_ts;
				s->missed_ident = d->key.ident;
			}
			s->missed++;
		} else if (fr_in_step(st, d)) {
			s->in_step++;
			if (d->peer_gap > s->in_step_gap)
				s->in_step_gap = d->peer_gap;
			fr_note_inc(st, FR_INC_STEP, d->first_frame, d->first_ts, d);
		} else {
			fr_note_incomplete(st, d, false, d->first_frame, d->first_ts);
		}
	}
	if (evicted)
		st->evicted++;
	fr_free(st, d);
}

static void fr_resolve(fr_state *st, fr_dgram *d, pd_time now, bool evicted)
{
	fr_resolve_at(st, d, now, evicted, false);
}

/* Datagrams of the flow whose time is up at now. */
static void fr_expire(fr_state *st, pd_time now)
{
	for (uint32_t i = 0; i < st->n_d; i++) {
		fr_dgram *d = &st->d[i];
		if (!d->used)
			continue;
		if ((!d->complete && now - d->first_ts > FR_TIMEOUT_NS) || (d->complete && now - d->done_ts > FR_LINGER_NS))
			fr_resolve(st, d, now, false);
	}
}

/* A free entry: finished ones go first, then the oldest open one. */
static fr_dgram *fr_new(fr_state *st, const fr_key *k, pd_time now)
{
	fr_dgram *d = NULL, *done = NULL, *oldest = NULL;
	for (uint32_t i = 0; i < st->n_d && !d; i++) {
		fr_dgram *x = &st->d[i];
		if (!x->used)
			d = x;
		else if (x->complete && (!done || x->done_ts < done->done_ts))
			done = x;
		else if (!x->complete && (!oldest || x->first_ts < oldest->first_ts))
			oldest = x;
	}
	if (!d && st->n_d < FR_FLOW_DGRAMS) {
		/* most flows follow one datagram at a time: grow by one */
		st->d = g_renew(fr_dgram, st->d, st->n_d + 1);
		d = &st->d[st->n_d++];
	} else if (!d) {
		d = done ? done : oldest;
		fr_resolve(st, d, now, true);
	}
	memset(d, 0, sizeof(*d));
	d->used = true;
	d->key = *k;
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

/* ---------------------------------------------------------- packets */

static void fr_fragment(fr_state *st, const pd_packet *pkt, int dir)
{
	const pd_ip *ip = &pkt->ip;
	fr_expire(st, pkt->ts);
	fr_key k;
	fr_key_from(&k, ip);
	fr_dgram *d = fr_find(st, &k);
	if (d && d->complete) {
		bool ov, dup;
		fr_cover(d, ip->frag_offset, ip->frag_offset + ip->frag_payload_len, &ov, &dup);
		if (dup) {
			/* A second copy of a fragment of a finished datagram. */
			st->s.dups++;
			return;
		}
		/* New datagram reusing the ID. */
		fr_resolve(st, d, pkt->ts, false);
		d = NULL;
	}
	bool fresh = d == NULL;
	if (!d)
		d = fr_new(st, &k, pkt->ts);
	if (fresh) {
		d->first_frame = pkt->frame_no;
		d->first_ts = pkt->ts;
		d->v6 = ip->version == 6;
		d->proto = ip->proto;
		d->dir = (uint8_t)dir;
		if (ip->version == 4 && ip->proto == 6) {
			fr_stats *s = &st->s;
			uint16_t id = (uint16_t)ip->ident;
			if (!s->id_set[dir]) {
				s->id_set[dir] = true;
				s->id_first[dir] = id;
			} else if ((uint16_t)(id - s->id_first[dir]) < 32768 &&
				   (uint16_t)(id - s->id_first[dir]) > s->id_span[dir]) {
				s->id_span[dir] = (uint16_t)(id - s->id_first[dir]);
			}
		}
	}
	if (pkt->frame_no < d->first_frame) { /* a held fragment, delivered after its first */
		d->first_frame = pkt->frame_no;
		d->first_ts = pkt->ts;
	}
	d->last_frame = pkt->frame_no;
	if (pkt->ts > d->last_ts)
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
	st->open_bytes += after > before ? after - before : 0;
	if (st->open_bytes > st->peak_open_bytes)
		st->peak_open_bytes = st->open_bytes;
	if (!ip->mf) {
		if (d->last_seen && d->end != hi)
			ov = true; /* two different ends */
		d->last_seen = true;
		d->end = hi;
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

	if (d->last_seen && !d->untrackable && d->n_ivals == 1 && d->lo[0] == 0 && d->hi[0] >= d->end) {
		uint32_t b = fr_open_bytes(d);
		st->open_bytes = st->open_bytes > b ? st->open_bytes - b : 0;
		d->complete = true;
		d->done_ts = pkt->ts;
	}
}

/* Transaction ids of UDP request/response protocols, read from the start
 * of a datagram (its first fragment): DNS (port 53 or 5353 on either side;
 * 16-bit ID, QR bit 0 in a query, 1 in a response) and ONC RPC (NFS,
 * portmap, ...: 32-bit xid, message type 0 call or 1 reply, RPC version 2
 * in a call). */
enum { FR_XID_NONE, FR_XID_DNS, FR_XID_RPC };

static uint8_t fr_xid(const pd_packet *pkt, bool reply, uint32_t *xid)
{
	if (pkt->l4 != PD_L4_UDP || !pkt->udp.payload)
		return FR_XID_NONE;
	pd_cursor c;
	pd_cursor_init(&c, pkt->udp.payload, pkt->udp.payload_captured);
	const pd_udp *u = &pkt->udp;
	bool dns = u->sport == 53 || u->dport == 53 || u->sport == 5353 || u->dport == 5353;
	if (dns) {
		uint16_t id = pd_cursor_be16(&c);
		uint8_t flags = pd_cursor_u8(&c);
		if (c.err || ((flags & 0x80) != 0) != reply)
			return FR_XID_NONE;
		*xid = id;
		return FR_XID_DNS;
	}
	uint32_t x = pd_cursor_be32(&c);
	uint32_t type = pd_cursor_be32(&c);
	if (c.err || type != (reply ? 1u : 0u))
		return FR_XID_NONE;
	if (!reply) {
		uint32_t vers = pd_cursor_be32(&c);
		if (c.err || vers != 2)
			return FR_XID_NONE;
	}
	*xid = x;
	return FR_XID_RPC;
}

/* A first fragment: it carries the ports, and is the finding's evidence. */
static void fr_first_fragment(fr_flow *o, const pd_packet *pkt, uint16_t sport, uint16_t dport, int dir)
{
	fr_state *st = fr_state_of(o);
	fr_stats *s = &st->s;
	if (!s->has_ports) {
		s->has_ports = true;
		s->sport = sport;
		s->dport = dport;
	}
	fr_key k;
	fr_key_from(&k, &pkt->ip);
	fr_dgram *d = fr_find(st, &k);
	bool counted = d && d->n_ivals && d->lo[0] == 0; /* a copy of a first fragment seen */
	if (!counted) {
		if (st->n_firsts < FR_EXAMPLES)
			st->firsts[st->n_firsts] = (fr_first){pkt->frame_no, pkt->ts, pkt->ip.ident, pkt->ip.total_len};
		st->n_firsts++;
	}
	fr_fragment(st, pkt, dir);
	if (pkt->l4 == PD_L4_TCP && (d = fr_find(st, &k)) && !d->complete) {
		d->tcp_known = true;
		d->tcp_seq = pkt->tcp.seq;
		d->tcp_hdr = pkt->tcp.hdr_len;
	}
	uint32_t xid = 0;
	uint8_t kind = fr_xid(pkt, false, &xid);
	if (kind && (d = fr_find(st, &k)) && !d->complete && !d->xid_kind) {
		d->xid_kind = kind;
		d->xid = xid;
	}
}

/* Every TCP packet of a flow that fragments: a resend of an incomplete
 * segment's data (a new datagram), or an ACK from the receiver past what
 * the capture saw of it. */
static void fr_tcp_watch(fr_state *st, const pd_packet *pkt, int dir)
{
	const pd_tcp *t = &pkt->tcp;
	for (uint32_t i = 0; i < st->n_d; i++) {
		fr_dgram *d = &st->d[i];
		if (!d->used || d->complete || !d->tcp_known)
			continue;
		if (d->dir == dir) {
			bool same = pkt->ip.is_fragment && pkt->ip.ident == d->key.ident;
			if (!same && t->payload_len && pd_seq_le(t->seq, d->tcp_seq) &&
			    pd_seq_lt(d->tcp_seq, t->seq + t->payload_len))
				d->resent = true;
		} else if ((t->flags & PD_TCP_ACK) && !d->resent) {
			uint32_t seen = d->n_ivals && d->lo[0] == 0 && d->hi[0] > d->tcp_hdr ? d->hi[0] - d->tcp_hdr : 0;
			if (pd_seq_lt(d->tcp_seq + seen, t->ack))
				d->delivered = true;
		}
	}
}

/* Every UDP datagram of a flow that fragments: the peer's next datagram
 * after each datagram from the other side, and how long it took; a resend
 * of an open request (same transaction id, another datagram), or the
 * receiver's answer to it. */
static void fr_udp_watch(fr_state *st, const pd_packet *pkt, int dir)
{
	pd_time ts = pkt->ts;
	uint32_t req = 0, rep = 0;
	uint8_t req_kind = FR_XID_NONE, rep_kind = FR_XID_NONE;
	bool xids = false;
	for (uint32_t i = 0; i < st->n_d; i++) {
		fr_dgram *d = &st->d[i];
		if (d->used && d->dir != dir && !d->peer_gap_set && d->last_ts <= ts) {
			d->peer_gap_set = true;
			d->peer_gap = ts - d->last_ts;
		}
		if (!d->used || d->complete || !d->xid_kind)
			continue;
		if (!xids) {
			req_kind = fr_xid(pkt, false, &req);
			rep_kind = fr_xid(pkt, true, &rep);
			xids = true;
		}
		if (d->dir == dir) {
			bool same = pkt->ip.is_fragment && pkt->ip.ident == d->key.ident;
			if (!same && req_kind == d->xid_kind && req == d->xid)
				d->xid_resent = true;
		} else if (!d->xid_resent && rep_kind == d->xid_kind && rep == d->xid) {
			d->answered = true;
		}
	}
}

static void fr_on_tcp(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, const pd_seg *seg)
{
	(void)ctx;
	(void)flow;
	fr_flow *o = fs;
	if (pkt->ip.is_fragment)
		fr_first_fragment(o, pkt, pkt->tcp.sport, pkt->tcp.dport, seg->dir);
	if (o->st)
		fr_tcp_watch(o->st, pkt, seg->dir);
}

static void fr_on_udp(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, const pd_seg *seg)
{
	(void)ctx;
	(void)flow;
	fr_flow *o = fs;
	if (pkt->ip.is_fragment)
		fr_first_fragment(o, pkt, pkt->udp.sport, pkt->udp.dport, seg->dir);
	if (o->st)
		fr_udp_watch(o->st, pkt, seg->dir);
}

static void fr_on_fragment(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, int dir)
{
	(void)ctx;
	(void)flow;
	fr_fragment(fr_state_of(fs), pkt, dir);
}

/* ICMP time exceeded, code 1: the receiver dropped a partial datagram of
 * this flow (the router brought the error here by the quoted header). */
static void fr_on_icmp_error(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, int dir)
{
	(void)ctx;
	(void)flow;
	(void)dir;
	const pd_icmp *ic = &pkt->icmp;
	bool v6 = pkt->l4 == PD_L4_ICMP6;
	if (!ic->has_inner || ic->code != 1 || ic->type != (v6 ? 3 : 11))
		return;
	fr_state *st = fr_state_of(fs);
	fr_expire(st, pkt->ts);
	fr_stats *s = &st->s;
	s->rx_timeouts++;
	if (!s->rx_timeout_frame) {
		s->rx_timeout_frame = pkt->frame_no;
		s->rx_timeout_ts = pkt->ts;
	}
	fr_key k;
	fr_key_from(&k, &ic->inner_ip);
	fr_dgram *d = fr_find(st, &k);
	if (d && !d->rx_timeout) {
		/* Seen complete here (sender side) or still open: either way the
		 * receiver did not get every fragment. */
		d->rx_timeout = true;
		fr_note_incomplete(st, d, true, d->first_frame, d->first_ts);
		fr_resolve(st, d, pkt->ts, false);
	} else if (!d) {
		/* Already gone (seen complete here): lost at the receiver. */
		if (s->complete)
			s->complete--;
		s->incomplete++;
		fr_note_inc(st, FR_INC_RX_GONE, pkt->frame_no, pkt->ts, NULL);
	}
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

/* Known datagram-heavy services, as advice. */
static void fr_append_app_hint(pd_finding *f, const fr_stats *s)
{
	if (!s->has_ports)
		return;
	uint16_t a = s->sport, b = s->dport;
	if (a == 53 || b == 53)
		pd_finding_append(f,
				  " DNS: large answers with a big EDNS buffer size; an EDNS buffer of 1232 B avoids "
				  "fragmentation.",
				  "DNS：EDNS 缓冲区设得大时应答会很大；把 EDNS 缓冲区设为 1232 字节可以避免分片。");
	else if (a == 2049 || b == 2049)
		pd_finding_append(f, " NFS over UDP: use TCP or smaller rsize/wsize.",
				  "基于 UDP 的 NFS：改用 TCP，或调小 rsize/wsize。");
	else if (a == 4789 || b == 4789)
		pd_finding_append(f, " VXLAN underlay: raise the underlay MTU or lower the overlay MTU by 50 B.",
				  "VXLAN 承载网络：调大承载网络的 MTU，或把覆盖网络的 MTU 调小 50 字节。");
	else if (a == 500 || b == 500 || a == 4500 || b == 4500)
		pd_finding_append(f, " IKE/IPsec: large certificates; enable IKE fragmentation.",
				  "IKE/IPsec：证书较大；请启用 IKE 分片。");
	else if (a == 161 || b == 161 || a == 162 || b == 162)
		pd_finding_append(f, " SNMP: large responses.", "SNMP：响应较大。");
	else if (a == 514 || b == 514)
		pd_finding_append(f, " Syslog over UDP: long messages.", "基于 UDP 的 syslog：消息较长。");
}

/* The first fragment's payload is rounded down to 8 bytes, so the MTU
 * that produced it lies in [size, size + 7]. */
static void fr_append_tunnel_hint(pd_finding *f, uint32_t size)
{
	static const struct {
		uint32_t mtu;
		const char *en, *zh;
	} known[] = {
		{1500, "the Ethernet default: the datagram itself is larger than the MTU", "以太网默认值，数据报本身就大于 MTU"},
		{1492, "PPPoE-sized", "PPPoE 大小"},
		{1480, "like an IPIP or SIT (6in4) tunnel", "类似 IPIP 或 SIT（6in4）隧道"},
		{1476, "like a GRE tunnel", "类似 GRE 隧道"},
		{1450, "like VXLAN over IPv4", "类似 IPv4 上的 VXLAN"},
		{1440, "like WireGuard over IPv4", "类似 IPv4 上的 WireGuard"},
		{1420, "like WireGuard over IPv6", "类似 IPv6 上的 WireGuard"},
		{1280, "the IPv6 minimum MTU", "IPv6 的最小 MTU"},
	};
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i].mtu >= size && known[i].mtu <= size + 7) {
			pd_finding_append(f, " %1$u: %2$s%3$.0s.", "%1$u：%3$s%2$.0s。", known[i].mtu, known[i].en,
					  known[i].zh);
			return;
		}
}

static void fr_emit_fragmentation(pd_ctx *ctx, fr_state *st, const pd_flow *flow)
{
	fr_stats *s = &st->s;
	pd_finding *f = pd_finding_get(ctx, "ip-fragmentation", flow);
	for (uint32_t i = 0; i < st->n_firsts && i < FR_EXAMPLES; i++)
		pd_finding_occurrence(f, st->firsts[i].frame, st->firsts[i].ts, "first fragment, ID 0x%x, %u bytes",
				      "首个分片，ID 0x%x，%u 字节", st->firsts[i].ident, st->firsts[i].size);
	if (!st->n_firsts)
		pd_finding_occurrence(f, s->first_frame, s->first_ts, "first fragment seen", "见到的第一个分片");
	if (st->n_firsts > FR_EXAMPLES)
		pd_finding_count(f, st->n_firsts - FR_EXAMPLES);
	if (st->evicted) {
		pd_finding_metric(f, "datagrams_dropped_from_tracking", (double)st->evicted, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "open_datagrams_dropped_from_tracking", (double)st->evicted_open, PD_UNIT_COUNT,
				  PD_AGG_SUM);
	}
	pd_finding_metric(f, "fragmented_datagrams", (double)s->dgrams, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "fragments", (double)s->frags, PD_UNIT_COUNT, PD_AGG_SUM);
	if (s->max_dgram)
		pd_finding_metric(f, "max_datagram_size", s->max_dgram, PD_UNIT_BYTES, PD_AGG_MAX);
	if (s->max_frag_total)
		pd_finding_metric(f, "max_fragment_size", s->max_frag_total, PD_UNIT_BYTES, PD_AGG_MAX);
	const char *fam = s->v6 ? "IPv6" : "IPv4", *proto = fr_proto_name(s->proto);
	if (s->has_ports)
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " %s %s datagrams from port %u to port %u were fragmented into %"
				  G_GUINT64_FORMAT " fragments (largest fragment %u B).",
				  "%1$" G_GUINT64_FORMAT " 个从端口 %4$u 发往端口 %5$u 的 %2$s %3$s 数据报被分成了 %6$"
				  G_GUINT64_FORMAT " 个分片（最大分片 %7$u 字节）。",
				  s->dgrams, fam, proto, s->sport, s->dport, s->frags, s->max_frag_total);
	else
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " %s %s datagrams were fragmented into %" G_GUINT64_FORMAT
				  " fragments (largest fragment %u B).",
				  "%" G_GUINT64_FORMAT " 个 %s %s 数据报被分成了 %" G_GUINT64_FORMAT " 个分片（最大分片 %u 字节）。",
				  s->dgrams, fam, proto, s->frags, s->max_frag_total);
	if (s->max_dgram)
		pd_finding_append(f, " Largest datagram reassembled from them: %u B.", "由它们重组出的最大数据报：%u 字节。",
				  s->max_dgram);
	else
		pd_finding_append(f, " None of them is complete in this capture.", "这份抓包里没有一个是完整的。");
	if (flow->app && strcmp(flow->app, "Unknown"))
		pd_finding_append(f, " Application: %s.", "应用：%s。", flow->app);
	/* No real link fragments this small: IPv4 routers keep >= 552 B
	 * (Linux min_pmtu; 68 is the legal floor), IPv6 needs 1280. */
	bool tiny = s->min_first_total && s->min_first_total < (s->v6 ? 1280u : 552u);
	if (tiny) {
		if (s->v6)
			pd_finding_append(f,
					  " First fragments of only %u B: smaller than any real link MTU (IPv6 needs 1280), "
					  "so made by a tool or an evasion attempt, and dropped by many firewalls.",
					  "首个分片只有 %u 字节：比任何真实链路的 MTU 都小（IPv6 至少 1280），所以是工具构造的"
					  "或是规避检测的企图，很多防火墙会丢弃它们。",
					  s->min_first_total);
		else
			pd_finding_append(f,
					  " First fragments of only %u B: smaller than any real link MTU (IPv4 paths carry "
					  "at least 552-576 B), so made by a tool or an evasion attempt, and dropped by many "
					  "firewalls.",
					  "首个分片只有 %u 字节：比任何真实链路的 MTU 都小（IPv4 路径至少能通过 552-576 字节），"
					  "所以是工具构造的或是规避检测的企图，很多防火墙会丢弃它们。",
					  s->min_first_total);
		pd_finding_metric(f, "tiny_first_fragment", s->min_first_total, PD_UNIT_BYTES, PD_AGG_MAX);
	} else if (s->min_first_total) {
		pd_finding_metric(f, "implied_mtu", s->min_first_total, PD_UNIT_BYTES, PD_AGG_MAX);
		pd_finding_append(f, " First fragments of %u B imply an MTU of %u-%u.",
				  "首个分片为 %u 字节，说明 MTU 在 %u 到 %u 之间。", s->min_first_total, s->min_first_total,
				  s->min_first_total + 7);
		fr_append_tunnel_hint(f, s->min_first_total);
	}
	if (s->overlaps) {
		pd_finding_metric(f, "overlapping_fragments", (double)s->overlaps, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_append(f, " OVERLAPPING fragments seen (malformed or an evasion attempt).",
				  "发现相互重叠的分片（格式错误或规避检测的企图）。");
	}
	if (s->oversize) {
		pd_finding_metric(f, "oversize_datagrams", (double)s->oversize, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_append(f, " Reassembled size over 65535 B (invalid).", "重组后的大小超过 65535 字节（无效）。");
	}
	if (s->dups) {
		pd_finding_metric(f, "duplicate_fragments", (double)s->dups, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_append(f, " Some fragments were captured twice (not resent: IP never retransmits).",
				  "有些分片被抓到了两次（不是重发：IP 从不重传）。");
	}
	if (s->missed) {
		pd_finding_metric(f, "fragments_missed_by_capture", (double)s->missed, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_occurrence(f, s->missed_frame, s->missed_ts, "ID 0x%x: fragments missing here, data ACKed",
				      "ID 0x%x：这里缺少分片，但数据已被确认", s->missed_ident);
		pd_finding_append(f,
				  " %" G_GUINT64_FORMAT " of them lack fragments in this capture, yet the receiver's TCP ACKs "
				  "cover their data with no resend in between: it got them whole, and the capture missed "
				  "those fragments (a capture drop, not a loss).",
				  "其中 %" G_GUINT64_FORMAT " 个在这份抓包里缺少分片，但接收端的 TCP ACK 确认了它们的数据，"
				  "其间也没有重发：接收端收到了完整的数据报，是抓包漏掉了这些分片（抓包丢包，不是网络丢包）。",
				  s->missed);
	}
	if (s->answered) {
		const char *idname = s->answered_xid_kind == FR_XID_DNS ? "DNS ID" : "RPC xid";
		pd_finding_metric(f, "fragments_missed_by_capture_answered", (double)s->answered, PD_UNIT_COUNT,
				  PD_AGG_SUM);
		pd_finding_occurrence(f, s->answered_frame, s->answered_ts,
				      "ID 0x%x: fragments missing here, request answered",
				      "ID 0x%x：这里缺少分片，但请求得到了应答", s->answered_ident);
		pd_finding_append(f,
				  " %" G_GUINT64_FORMAT " of them lack fragments in this capture, yet the receiver answered "
				  "each of those requests (same %s, same port pair) before any resend: it got them whole, "
				  "and the capture missed those fragments (a capture drop, not a loss).",
				  "其中 %" G_GUINT64_FORMAT " 个在这份抓包里缺少分片，但接收端在发送端重发之前就应答了每一个"
				  "这样的请求（相同的 %s，相同的端口对）：接收端收到了完整的数据报，是抓包漏掉了这些分片"
				  "（抓包丢包，不是网络丢包）。",
				  s->answered, idname);
	}
	fr_append_app_hint(f, s);
	if (s->dgrams >= FR_MANY_DGRAMS || s->overlaps || s->oversize || tiny)
		pd_finding_set_severity(f, PD_SEV_WARNING);
	pd_finding_set_confidence(f, 0.95);
	/* net.ipv4.ip_no_pmtu_disc and net.ipv4.route.min_pmtu govern IPv4
	 * only (the DF bit, the floor a frag-needed may lower the path MTU
	 * to): no IPv6 router fragments, so they cannot explain an IPv6
	 * fragment */
	if (s->proto == 6 && s->v6)
		pd_finding_settings(f, "interface MTU", "MSS clamping", NULL);
	else if (s->proto == 6)
		pd_finding_settings(f, "net.ipv4.ip_no_pmtu_disc", "MSS clamping", "interface MTU",
				    "net.ipv4.route.min_pmtu", NULL);
	else if (s->min_first_total && s->min_first_total + 7 < 1500)
		pd_finding_settings(f, "interface MTU", "application datagram size", NULL);
	else
		pd_finding_settings(f, "application datagram size", "interface MTU", NULL);
}

static void fr_inc_occurrence(pd_finding *f, const fr_inc *e)
{
	switch (e->kind) {
	case FR_INC_RX:
		pd_finding_occurrence(f, e->frame, e->ts, "ID 0x%x: receiver reassembly timed out", "ID 0x%x：接收方重组超时",
				      e->ident);
		break;
	case FR_INC_SEEN:
		pd_finding_occurrence(f, e->frame, e->ts, "ID 0x%x: %u of %u bytes seen", "ID 0x%x：只见到 %u / %u 字节",
				      e->ident, e->covered, e->end);
		break;
	case FR_INC_LAST:
		pd_finding_occurrence(f, e->frame, e->ts, "ID 0x%x: last fragment missing", "ID 0x%x：缺少最后一个分片",
				      e->ident);
		break;
	case FR_INC_STEP:
		pd_finding_occurrence(f, e->frame, e->ts, "ID 0x%x: fragments missing here, the peer went on in step",
				      "ID 0x%x：这里缺少分片，但对端按原有节奏继续", e->ident);
		break;
	default:
		pd_finding_occurrence(f, e->frame, e->ts, "receiver: fragment reassembly time exceeded",
				      "接收方：分片重组超时");
		break;
	}
}

static void fr_emit_incomplete(pd_ctx *ctx, fr_state *st, const pd_flow *flow)
{
	fr_stats *s = &st->s;
	if (!s->incomplete && !s->in_step)
		return;
	pd_finding *f = pd_finding_get(ctx, "fragment-reassembly-incomplete", flow);
	for (uint32_t i = 0; i < st->n_incs && i < FR_EXAMPLES; i++)
		fr_inc_occurrence(f, &st->incs[i]);
	if (st->n_incs > FR_EXAMPLES)
		pd_finding_count(f, st->n_incs - FR_EXAMPLES);
	pd_finding_metric(f, "incomplete_datagrams", (double)s->incomplete, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "fragmented_datagrams", (double)s->dgrams, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "incomplete_in_capture", (double)s->inc_holes, PD_UNIT_COUNT, PD_AGG_SUM);
	if (s->rx_timeouts)
		pd_finding_metric(f, "receiver_reassembly_timeouts", (double)s->rx_timeouts, PD_UNIT_COUNT, PD_AGG_SUM);
	if (s->dgrams)
		pd_finding_metric(f, "incomplete_ratio", (double)s->incomplete / (double)s->dgrams, PD_UNIT_RATIO, PD_AGG_MAX);
	uint64_t total = s->dgrams > s->incomplete ? s->dgrams : s->incomplete;
	double gap_ms = (double)s->in_step_gap / 1e6, usual_ms = (double)s->step_max / 1e6;
	if (!s->incomplete) {
		/* only datagrams the peer answered as usual: most likely the
		 * capture missed their fragments */
		pd_finding_metric(f, "incomplete_answered_in_step", (double)s->in_step, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " fragmented datagrams lack fragments in "
				  "this capture, but the peer went on in step after each of them, as after the complete "
				  "ones (its next datagram within %.1f ms; %.1f ms at most after a complete one): most "
				  "likely the capture missed those fragments (tcpdump's 'dropped by kernel', "
				  "a busy mirror port), not the receiver.",
				  "%" G_GUINT64_FORMAT " 个分片数据报（共 %" G_GUINT64_FORMAT " 个）在这份抓包里缺少分片，"
				  "但对端在每一个之后都和在完整数据报之后一样按原有节奏继续（它的下一个数据报在 %.1f "
				  "毫秒内到来；完整数据报之后最多 %.1f 毫秒）：最可能是抓包漏掉了这些分片"
				  "（tcpdump 的“dropped by kernel”、繁忙的镜像端口），而不是接收端没收到。",
				  s->in_step, s->dgrams, gap_ms, usual_ms);
		pd_finding_set_severity(f, PD_SEV_INFO);
		pd_finding_set_confidence(f, 0.6);
		pd_finding_settings(f, "capture buffer", "firewall dropping fragments", "application datagram size", NULL);
		return;
	}
	pd_finding_detail(f,
			  "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " fragmented datagrams never completed; each "
			  "one is lost whole at the receiver (the sender's application sees only a timeout).",
			  "%" G_GUINT64_FORMAT " 个分片数据报（共 %" G_GUINT64_FORMAT " 个）始终没有重组完成；每一个都会"
			  "在接收端整个丢失（发送端的应用只会看到超时）。",
			  s->incomplete, total);
	if (s->inc_holes && s->hole_hi > s->hole_lo)
		pd_finding_append(f, " %" G_GUINT64_FORMAT " with fragments missing in this capture (e.g. ID 0x%x, bytes %u-%u).",
				  "其中 %" G_GUINT64_FORMAT " 个在这份抓包里缺少分片（例如 ID 0x%x 的第 %u-%u 字节）。",
				  s->inc_holes, s->hole_ident, s->hole_lo, s->hole_hi - 1);
	else if (s->inc_holes)
		pd_finding_append(f, " %" G_GUINT64_FORMAT " with fragments missing in this capture.",
				  "其中 %" G_GUINT64_FORMAT " 个在这份抓包里缺少分片。", s->inc_holes);
	else if (s->rx_timeouts)
		pd_finding_append(f,
				  " Every fragment passed this capture point (sender side?): they were lost further on.",
				  "所有分片都经过了这个抓包点（发送端一侧？）：它们是在更远处丢失的。");
	if (s->inc_holes && s->inc_missing_first)
		pd_finding_append(f, " Some lack their first fragment.", "有些缺少首个分片。");
	if (s->rx_timeouts)
		pd_finding_append(f,
				  " The receiver reported %" G_GUINT64_FORMAT " reassembly timeouts (ICMP time exceeded, "
				  "code 1; first at frame %" G_GUINT64_FORMAT ").",
				  "接收端报告了 %" G_GUINT64_FORMAT " 次重组超时（ICMP 超时，代码 1；第一次在第 %"
				  G_GUINT64_FORMAT " 帧）。",
				  s->rx_timeouts, s->rx_timeout_frame);
	if (s->in_step) {
		pd_finding_metric(f, "incomplete_answered_in_step", (double)s->in_step, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_append(f,
				  " %" G_GUINT64_FORMAT " more lack fragments here, but the peer went on in step after them "
				  "(within %.1f ms): most likely the capture missed those.",
				  "另有 %" G_GUINT64_FORMAT " 个在这里缺少分片，但对端之后按原有节奏继续（%.1f 毫秒内）："
				  "最可能是抓包漏掉了它们。",
				  s->in_step, gap_ms);
	}
	pd_finding_set_confidence(f, s->rx_timeouts ? 0.95 : 0.75);
	/* Many datagrams open at once point at the reassembly memory limit. */
	if (st->peak_open_bytes > 3u * 1024 * 1024)
		pd_finding_settings(f, "net.ipv4.ipfrag_high_thresh", "application datagram size",
				    "firewall dropping fragments", "net.ipv4.ipfrag_time", NULL);
	else
		pd_finding_settings(f, "firewall dropping fragments", "application datagram size", "interface MTU",
				    "net.ipv4.ipfrag_high_thresh", "net.ipv4.ipfrag_time", NULL);
}

/* A pseudo-flow's TCP datagrams with fragments missing go to the end,
 * where the TCP flows between the same addresses can vouch for them; true
 * when they were all taken. */
static bool fr_defer_orphans(fr_global *g, fr_state *st, const pd_flow *flow)
{
	fr_stats *s = &st->s;
	if (!flow->pseudo || flow->proto != 6 || !s->incomplete || s->rx_timeouts || s->in_step ||
	    st->n_incs != s->incomplete || st->n_incs > FR_EXAMPLES || g->n_orphans + st->n_incs > FR_ORPHANS)
		return false;
	for (uint32_t i = 0; i < st->n_incs; i++) {
		fr_orphan *o = &g->orphans[g->n_orphans++];
		pd_flow_key_of(&o->flow, flow);
		const fr_inc *e = &st->incs[i];
		o->fam = flow->addr[e->dir].family;
		memcpy(o->src, flow->addr[e->dir].bytes, 16);
		memcpy(o->dst, flow->addr[pd_peer(e->dir)].bytes, 16);
		o->inc = *e;
	}
	return true;
}

/* A TCP flow's side whose receiver got every byte it sent with no resend:
 * remembered for the pseudo-flows' datagrams (their first fragment, with
 * the TCP header, is missing). */
static void fr_note_clean(fr_global *g, fr_state *st, const pd_flow *flow)
{
	if (flow->pseudo || flow->proto != 6)
		return;
	for (int dir = 0; dir < 2; dir++) {
		const pd_tcp_half *h = &flow->half[dir], *r = &flow->half[pd_peer(dir)];
		if (!st->s.id_set[dir] || h->retrans || !h->seq_valid || !r->ack_valid ||
		    pd_seq_lt(r->last_ack, h->next_seq))
			continue;
		fr_clean *c = &g->clean[g->next_clean];
		g->next_clean = (g->next_clean + 1) % FR_CLEAN;
		if (g->n_clean < FR_CLEAN)
			g->n_clean++;
		c->fam = flow->addr[dir].family;
		memcpy(c->src, flow->addr[dir].bytes, 16);
		memcpy(c->dst, flow->addr[pd_peer(dir)].bytes, 16);
		c->id_first = st->s.id_first[dir];
		c->id_span = st->s.id_span[dir];
		c->first_ts = flow->first_ts;
		c->last_ts = flow->last_ts;
	}
}

static void fr_on_flow_end(pd_ctx *ctx, void *gv, const pd_flow *flow, void *fs)
{
	fr_global *g = gv;
	fr_flow *o = fs;
	fr_state *st = o->st;
	if (!st)
		return;
	/* Datagrams still open end with their flow: judged at the capture's
	 * end or the flow's timeout; a flow evicted early stops being
	 * followed (counted as dropped from tracking). The complete ones
	 * first: they tell the peer's usual pace. */
	pd_time now = pd_ctx_now(ctx);
	bool evicted = flow->end_reason == PD_END_EVICTED, cut = flow->end_reason == PD_END_CAPTURE;
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < st->n_d; i++)
			if (st->d[i].used && st->d[i].complete == (pass == 0))
				fr_resolve_at(st, &st->d[i], now, evicted && !st->d[i].complete, cut);
	if (st->s.dgrams)
		fr_emit_fragmentation(ctx, st, flow);
	if (!fr_defer_orphans(g, st, flow))
		fr_emit_incomplete(ctx, st, flow);
	fr_note_clean(g, st, flow);
	g_free(st->d);
	g_free(st);
	o->st = NULL;
}

/* Was the orphan datagram a segment of a clean TCP flow's side? */
static bool fr_vouched(const fr_global *g, const fr_orphan *o)
{
	for (uint32_t i = 0; i < g->n_clean; i++) {
		const fr_clean *c = &g->clean[i];
		if (c->fam != o->fam || memcmp(c->src, o->src, 16) || memcmp(c->dst, o->dst, 16))
			continue;
		if ((uint16_t)((uint16_t)o->inc.ident - c->id_first) <= c->id_span && o->inc.ts >= c->first_ts &&
		    o->inc.ts <= c->last_ts)
			return true;
	}
	return false;
}

static void fr_on_end(pd_ctx *ctx, void *gv)
{
	fr_global *g = gv;
	for (uint32_t i = 0; i < g->n_orphans; i++) {
		const fr_orphan *o = &g->orphans[i];
		if (fr_vouched(g, o))
			continue; /* the TCP flow's receiver got that segment: a capture drop */
		pd_finding *f = pd_finding_get_key(ctx, "fragment-reassembly-incomplete", &o->flow);
		fr_inc_occurrence(f, &o->inc);
		uint32_t n = 0;
		for (uint32_t j = 0; j < g->n_orphans; j++)
			n += g->orphans[j].flow.id == o->flow.id && !fr_vouched(g, &g->orphans[j]);
		pd_finding_metric(f, "incomplete_datagrams", n, PD_UNIT_COUNT, PD_AGG_MAX);
		pd_finding_detail(f,
				  "%u TCP datagrams arrived without their first fragment (the one with the TCP header) "
				  "and never completed; no TCP flow between these addresses shows its receiver getting "
				  "everything without a resend, so they may be lost whole at the receiver.",
				  "有 %u 个 TCP 数据报在到达时缺少首个分片（带 TCP 头的那个），且始终没有重组完成；这两个地址"
				  "之间没有哪条 TCP 连接显示其接收端在没有重发的情况下收到了全部数据，所以它们可能在接收端"
				  "整个丢失。",
				  n);
		pd_finding_set_confidence(f, 0.5);
		pd_finding_settings(f, "firewall dropping fragments", "interface MTU", "net.ipv4.ipfrag_high_thresh", NULL);
	}
}

static const char *const fr_emits[] = {"ip-fragmentation", "fragment-reassembly-incomplete", NULL};

const pd_detector pd_det_fragments = {
	.name = "fragments",
	.emits = fr_emits,
	.flow_state_size = sizeof(fr_flow),
	.global_state_size = sizeof(fr_global),
	.on_tcp = fr_on_tcp,
	.on_udp = fr_on_udp,
	.on_fragment = fr_on_fragment,
	.on_icmp_error = fr_on_icmp_error,
	.on_flow_end = fr_on_flow_end,
	.on_end = fr_on_end,
};
