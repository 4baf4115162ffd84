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
	uint32_t inc_missing_first; /* incomplete datagrams whose first fragment was missing */
	uint64_t inc_holes; /* incomplete datagrams with a hole visible in this capture */
	uint32_t hole_lo, hole_hi; /* the first such hole */
	uint32_t hole_ident;
} fr_stats;

typedef struct fr_dgram {
	fr_key key;
	bool used, complete, last_seen, untrackable, rx_timeout;
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

enum { FR_INC_RX, FR_INC_SEEN, FR_INC_LAST, FR_INC_RX_GONE };
typedef struct fr_inc {
	uint64_t frame;
	pd_time ts;
	uint32_t ident, covered, end;
	uint8_t kind;
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

/* A datagram leaves the flow's table at time now: decide what it was
 * (cut: the capture ended; evicted: no longer followed). */
static void fr_resolve_at(fr_state *st, fr_dgram *d, pd_time now, bool evicted, bool cut)
{
	fr_account(st, d);
	if (!d->complete && !d->rx_timeout) {
		if (evicted) {
			st->evicted_open++;
		} else if (d->untrackable) {
			/* too many holes to judge */
		} else if (cut && now - d->last_ts < FR_END_GRACE_NS && now - d->first_ts < FR_TIMEOUT_NS) {
			st->s.cut_at_end++;
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

static void fr_fragment(fr_state *st, const pd_packet *pkt)
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

/* A first fragment: it carries the ports, and is the finding's evidence. */
static void fr_first_fragment(fr_flow *o, const pd_packet *pkt, uint16_t sport, uint16_t dport)
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
	fr_fragment(st, pkt);
}

static void fr_on_tcp(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, const pd_seg *seg)
{
	(void)ctx;
	(void)flow;
	(void)seg;
	if (pkt->ip.is_fragment)
		fr_first_fragment(fs, pkt, pkt->tcp.sport, pkt->tcp.dport);
}

static void fr_on_udp(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, const pd_seg *seg)
{
	(void)ctx;
	(void)flow;
	(void)seg;
	if (pkt->ip.is_fragment)
		fr_first_fragment(fs, pkt, pkt->udp.sport, pkt->udp.dport);
}

static void fr_on_fragment(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, int dir)
{
	(void)ctx;
	(void)flow;
	(void)dir;
	fr_fragment(fr_state_of(fs), pkt);
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

static void fr_emit(pd_ctx *ctx, fr_state *st, const pd_flow *flow)
{
	fr_stats *s = &st->s;
	char hint[96], mtu_s[192] = "";
	if (s->dgrams) {
		pd_finding *f = pd_finding_get(ctx, "ip-fragmentation", flow);
		for (uint32_t i = 0; i < st->n_firsts && i < FR_EXAMPLES; i++)
			pd_finding_occurrence(f, st->firsts[i].frame, st->firsts[i].ts,
					      "first fragment, ID 0x%x, %u bytes", "首个分片，ID 0x%x，%u 字节",
					      st->firsts[i].ident, st->firsts[i].size);
		if (!st->n_firsts)
			pd_finding_occurrence(f, s->first_frame, s->first_ts, "first fragment seen", "见到的第一个分片");
		if (st->n_firsts > FR_EXAMPLES)
			pd_finding_count(f, st->n_firsts - FR_EXAMPLES);
		if (st->evicted) {
			pd_finding_metric(f, "datagrams_dropped_from_tracking", (double)st->evicted, PD_UNIT_COUNT,
					  PD_AGG_SUM);
			pd_finding_metric(f, "open_datagrams_dropped_from_tracking", (double)st->evicted_open,
					  PD_UNIT_COUNT, PD_AGG_SUM);
		}
		pd_finding_metric(f, "fragmented_datagrams", (double)s->dgrams, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "fragments", (double)s->frags, PD_UNIT_COUNT, PD_AGG_SUM);
		if (s->max_dgram)
			pd_finding_metric(f, "max_datagram_size", s->max_dgram, PD_UNIT_BYTES, PD_AGG_MAX);
		if (s->max_frag_total)
			pd_finding_metric(f, "max_fragment_size", s->max_frag_total, PD_UNIT_BYTES, PD_AGG_MAX);
		/* No real link fragments this small: IPv4 routers keep >= 552 B
		 * (Linux min_pmtu; 68 is the legal floor), IPv6 needs 1280. */
		bool tiny = s->min_first_total && s->min_first_total < (s->v6 ? 1280u : 552u);
		if (tiny) {
			snprintf(mtu_s, sizeof(mtu_s),
				 "; first fragments of only %u B: smaller than any real link MTU (%s), so made "
				 "by a tool or an evasion attempt, and dropped by many firewalls",
				 s->min_first_total, s->v6 ? "IPv6 minimum 1280" : "IPv4 paths carry at least 552-576");
			pd_finding_metric(f, "tiny_first_fragment", s->min_first_total, PD_UNIT_BYTES, PD_AGG_MAX);
		} else if (s->min_first_total) {
			pd_finding_metric(f, "implied_mtu", s->min_first_total, PD_UNIT_BYTES, PD_AGG_MAX);
			fr_tunnel_hint(s->min_first_total, hint, sizeof(hint));
			snprintf(mtu_s, sizeof(mtu_s), "; first fragments of %u B imply an MTU of %u-%u%s",
				 s->min_first_total, s->min_first_total, s->min_first_total + 7, hint);
		}
		if (s->overlaps)
			pd_finding_metric(f, "overlapping_fragments", (double)s->overlaps, PD_UNIT_COUNT, PD_AGG_SUM);
		if (s->dups)
			pd_finding_metric(f, "duplicate_fragments", (double)s->dups, PD_UNIT_COUNT, PD_AGG_SUM);
		if (s->oversize)
			pd_finding_metric(f, "oversize_datagrams", (double)s->oversize, PD_UNIT_COUNT, PD_AGG_SUM);
		const char *app = flow->app && strcmp(flow->app, "Unknown") ? flow->app : NULL;
		char ports[48] = "";
		if (s->has_ports)
			snprintf(ports, sizeof(ports), " port %u->%u", s->sport, s->dport);
		pd_finding_detail(f,
				  "%" G_GUINT64_FORMAT " %s%s %s datagram%s%s%s%s fragmented into %" G_GUINT64_FORMAT
				  " fragments (largest datagram %u B, largest fragment %u B)%s%s%s%s%s", NULL,
				  s->dgrams, s->v6 ? "IPv6" : "IPv4", ports, fr_proto_name(s->proto),
				  s->dgrams == 1 ? "" : "s", app ? " (" : "", app ? app : "", app ? ")" : "", s->frags,
				  s->max_dgram, s->max_frag_total, mtu_s,
				  s->overlaps ? "; OVERLAPPING fragments seen (malformed or an evasion attempt)" : "",
				  s->oversize ? "; reassembled size over 65535 B (invalid)" : "",
				  s->dups ? "; some fragments captured twice (not resent: IP never retransmits)" : "",
				  fr_app_hint(s));
		if (s->dgrams >= FR_MANY_DGRAMS || s->overlaps || s->oversize || tiny)
			pd_finding_set_severity(f, PD_SEV_WARNING);
		pd_finding_set_confidence(f, 0.95);
		if (s->proto == 6)
			pd_finding_settings(f, "net.ipv4.ip_no_pmtu_disc", "MSS clamping", "interface MTU", NULL);
		else if (s->min_first_total && s->min_first_total + 7 < 1500)
			pd_finding_settings(f, "interface MTU", "application datagram size", NULL);
		else
			pd_finding_settings(f, "application datagram size", "interface MTU", NULL);
	}
	if (s->incomplete) {
		pd_finding *f = pd_finding_get(ctx, "fragment-reassembly-incomplete", flow);
		for (uint32_t i = 0; i < st->n_incs && i < FR_EXAMPLES; i++) {
			const fr_inc *e = &st->incs[i];
			if (e->kind == FR_INC_RX)
				pd_finding_occurrence(f, e->frame, e->ts, "ID 0x%x: receiver reassembly timed out",
						      "ID 0x%x：接收方重组超时", e->ident);
			else if (e->kind == FR_INC_SEEN)
				pd_finding_occurrence(f, e->frame, e->ts, "ID 0x%x: %u of %u bytes seen",
						      "ID 0x%x：只见到 %u / %u 字节", e->ident, e->covered, e->end);
			else if (e->kind == FR_INC_LAST)
				pd_finding_occurrence(f, e->frame, e->ts, "ID 0x%x: last fragment missing",
						      "ID 0x%x：缺少最后一个分片", e->ident);
			else
				pd_finding_occurrence(f, e->frame, e->ts, "receiver: fragment reassembly time exceeded",
						      "接收方：分片重组超时");
		}
		if (st->n_incs > FR_EXAMPLES)
			pd_finding_count(f, st->n_incs - FR_EXAMPLES);
		pd_finding_metric(f, "incomplete_datagrams", (double)s->incomplete, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "fragmented_datagrams", (double)s->dgrams, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "incomplete_in_capture", (double)s->inc_holes, PD_UNIT_COUNT, PD_AGG_SUM);
		if (s->rx_timeouts)
			pd_finding_metric(f, "receiver_reassembly_timeouts", (double)s->rx_timeouts, PD_UNIT_COUNT, PD_AGG_SUM);
		if (s->dgrams)
			pd_finding_metric(f, "incomplete_ratio", (double)s->incomplete / (double)s->dgrams, PD_UNIT_RATIO, PD_AGG_MAX);
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
				  "(the sender's application sees only a timeout)", NULL,
				  s->incomplete, s->dgrams > s->incomplete ? s->dgrams : s->incomplete, seen, rx);
		pd_finding_set_confidence(f, s->rx_timeouts ? 0.95 : 0.75);
		/* Many datagrams open at once point at the reassembly memory limit. */
		if (st->peak_open_bytes > 3u * 1024 * 1024)
			pd_finding_settings(f, "net.ipv4.ipfrag_high_thresh", "application datagram size",
					    "firewall dropping fragments", "net.ipv4.ipfrag_time", NULL);
		else
			pd_finding_settings(f, "firewall dropping fragments", "application datagram size",
					    "interface MTU", "net.ipv4.ipfrag_high_thresh", "net.ipv4.ipfrag_time", NULL);
	}
}

static void fr_on_flow_end(pd_ctx *ctx, void *gv, const pd_flow *flow, void *fs)
{
	(void)gv;
	fr_flow *o = fs;
	fr_state *st = o->st;
	if (!st)
		return;
	/* Datagrams still open end with their flow: judged at the capture's
	 * end or the flow's timeout; a flow evicted early stops being
	 * followed (counted as dropped from tracking). */
	pd_time now = pd_ctx_now(ctx);
	bool evicted = flow->end_reason == PD_END_EVICTED, cut = flow->end_reason == PD_END_CAPTURE;
	for (uint32_t i = 0; i < st->n_d; i++)
		if (st->d[i].used)
			fr_resolve_at(st, &st->d[i], now, evicted && !st->d[i].complete, cut);
	fr_emit(ctx, st, flow);
	g_free(st->d);
	g_free(st);
	o->st = NULL;
}

static const char *const fr_emits[] = {"ip-fragmentation", "fragment-reassembly-incomplete", NULL};

const pd_detector pd_det_fragments = {
	.name = "fragments",
	.emits = fr_emits,
	.flow_state_size = sizeof(fr_flow),
	.on_tcp = fr_on_tcp,
	.on_udp = fr_on_udp,
	.on_fragment = fr_on_fragment,
	.on_icmp_error = fr_on_icmp_error,
	.on_flow_end = fr_on_flow_end,
};
