/* The router; see router.h. */
#include "router.h"

#include <glib.h>
#include <string.h>

#include "dissect/addr.h"
#include "dissect/dissect.h"
#include "flowtable.h"

#define RT_DGRAM_TIMEOUT_NS (30 * PD_NS_PER_SEC) /* net.ipv4.ipfrag_time */
#define RT_MAX_DGRAMS 4096
#define RT_MAX_HELD_BYTES (8u << 20)

/* A datagram the router has seen fragments of. */
typedef struct dgram_key {
	uint8_t fam, proto;
	uint16_t pad;
	uint32_t ident;
	uint8_t src[16], dst[16];
} dgram_key;

typedef struct dgram {
	dgram_key key;
	bool have_first; /* route is the flow's */
	pd_route route;
	pd_time last_ts;
	pd_held *held, *held_tail;
	GList link; /* in the router's queue, oldest activity first */
} dgram;

struct pd_router {
	uint32_t n_shards;
	GHashTable *dgrams; /* dgram_key -> dgram */
	GQueue queue;
	uint64_t held_n, held_bytes;
	pd_held *due, *due_tail; /* to deliver at the next pd_router_take */
};

static guint key_hash(gconstpointer p)
{
	const dgram_key *k = p;
	uint64_t lo, hi;
	memcpy(&lo, k->src, 8);
	memcpy(&hi, k->dst, 8);
	return (guint)pd_mix64(lo ^ pd_mix64(hi + k->ident) ^ ((uint64_t)k->proto << 8 | k->fam));
}

static gboolean key_eq(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, sizeof(dgram_key)) == 0;
}

pd_router *pd_router_new(uint32_t n_shards)
{
	pd_router *r = g_new0(pd_router, 1);
	r->n_shards = n_shards ? n_shards : 1;
	r->dgrams = g_hash_table_new(key_hash, key_eq);
	g_queue_init(&r->queue);
	return r;
}

void pd_held_free(pd_held *h)
{
	while (h) {
		pd_held *next = h->next;
		g_free(h->data);
		g_free(h);
		h = next;
	}
}

static void dgram_free(dgram *d)
{
	pd_held_free(d->held);
	g_free(d);
}

void pd_router_free(pd_router *r)
{
	if (!r)
		return;
	for (GList *l = r->queue.head; l;) {
		GList *next = l->next;
		dgram_free(l->data);
		l = next;
	}
	g_hash_table_destroy(r->dgrams);
	pd_held_free(r->due);
	g_free(r);
}

static void set_tuple(pd_router *r, pd_route *rt, uint8_t proto, const pd_addr *a, uint16_t pa, const pd_addr *b,
		      uint16_t pb)
{
	rt->proto = proto;
	rt->a = *a;
	rt->b = *b;
	rt->pa = pa;
	rt->pb = pb;
	rt->hash = pd_flow_hash(proto, a, pa, b, pb);
	rt->shard = pd_shard_of(rt->hash, r->n_shards);
}

/* The pseudo-flow of a datagram without its first fragment. */
static void set_pseudo(pd_router *r, pd_route *rt, uint8_t proto, const pd_addr *src, const pd_addr *dst)
{
	set_tuple(r, rt, proto, src, 0, dst, 0);
	rt->pseudo = true;
}

static void key_of(dgram_key *k, const pd_ip *ip)
{
	memset(k, 0, sizeof(*k));
	k->fam = ip->version;
	/* Linux keys IPv6 reassembly on addresses and identification only. */
	k->proto = ip->version == 4 ? ip->proto : 0;
	k->ident = ip->ident;
	memcpy(k->src, ip->src.bytes, 16);
	memcpy(k->dst, ip->dst.bytes, 16);
}

static void due_append(pd_router *r, pd_held *list)
{
	while (list) {
		pd_held *next = list->next;
		list->next = NULL;
		if (r->due_tail)
			r->due_tail->next = list;
		else
			r->due = list;
		r->due_tail = list;
		list = next;
	}
}

/* The datagram leaves the table: its held fragments become due, to the
 * pseudo-flow unless its first fragment came. */
static void dgram_drop(pd_router *r, dgram *d)
{
	for (pd_held *h = d->held; h; h = h->next) {
		r->held_n--;
		r->held_bytes -= h->pkt.caplen;
		if (!d->have_first) {
			h->route.kind = PD_ROUTE_FRAGMENT;
			set_pseudo(r, &h->route, h->pkt.ip.proto, &h->pkt.ip.src, &h->pkt.ip.dst);
		}
	}
	due_append(r, d->held);
	d->held = d->held_tail = NULL;
	g_queue_unlink(&r->queue, &d->link);
	g_hash_table_remove(r->dgrams, &d->key);
	dgram_free(d);
}

static dgram *dgram_get(pd_router *r, const pd_ip *ip, pd_time ts)
{
	dgram_key k;
	key_of(&k, ip);
	dgram *d = g_hash_table_lookup(r->dgrams, &k);
	if (d) {
		d->last_ts = ts;
		g_queue_unlink(&r->queue, &d->link);
		g_queue_push_tail_link(&r->queue, &d->link);
		return d;
	}
	if (g_hash_table_size(r->dgrams) >= RT_MAX_DGRAMS)
		dgram_drop(r, r->queue.head->data);
	d = g_new0(dgram, 1);
	d->key = k;
	d->last_ts = ts;
	d->link.data = d;
	g_hash_table_insert(r->dgrams, &d->key, d);
	g_queue_push_tail_link(&r->queue, &d->link);
	return d;
}

static dgram *dgram_find(pd_router *r, const pd_ip *ip)
{
	dgram_key k;
	key_of(&k, ip);
	return g_hash_table_lookup(r->dgrams, &k);
}

static void hold(pd_router *r, dgram *d, const pd_packet *pkt, const uint8_t *data)
{
	pd_held *h = g_new0(pd_held, 1);
	h->data = g_memdup2(data, pkt->caplen ? pkt->caplen : 1);
	h->pkt = *pkt;
	pd_packet_rebase(&h->pkt, data, h->data);
	h->route.kind = PD_ROUTE_FRAGMENT;
	if (d->held_tail)
		d->held_tail->next = h;
	else
		d->held = h;
	d->held_tail = h;
	r->held_n++;
	r->held_bytes += pkt->caplen;
	/* bounded: the oldest datagrams give up their fragments first */
	while (r->held_bytes > RT_MAX_HELD_BYTES && r->queue.head && r->queue.head->data != d)
		dgram_drop(r, r->queue.head->data);
}

static pd_route_result route_fragment(pd_router *r, const pd_packet *pkt, const uint8_t *data, pd_route *out)
{
	const pd_ip *ip = &pkt->ip;
	bool ported = ip->proto == 6 || ip->proto == 17;
	if (!ported) {
		/* no ports to find a flow by: the pair's pseudo-flow, at once */
		out->kind = PD_ROUTE_FRAGMENT;
		set_pseudo(r, out, ip->proto, &ip->src, &ip->dst);
		return PD_ROUTED;
	}
	dgram *d = dgram_get(r, ip, pkt->ts);
	if (ip->frag_offset == 0 && (pkt->l4 == PD_L4_TCP || pkt->l4 == PD_L4_UDP)) {
		/* the first fragment: the flow's own packet */
		out->kind = pkt->l4 == PD_L4_TCP ? PD_ROUTE_TCP : PD_ROUTE_UDP;
		if (pkt->l4 == PD_L4_TCP)
			set_tuple(r, out, 6, &ip->src, pkt->tcp.sport, &ip->dst, pkt->tcp.dport);
		else
			set_tuple(r, out, 17, &ip->src, pkt->udp.sport, &ip->dst, pkt->udp.dport);
		if (!d->have_first) {
			d->have_first = true;
			d->route = *out;
			d->route.kind = PD_ROUTE_FRAGMENT;
			for (pd_held *h = d->held; h; h = h->next) {
				h->route = d->route;
				r->held_n--;
				r->held_bytes -= h->pkt.caplen;
			}
			due_append(r, d->held);
			d->held = d->held_tail = NULL;
		}
		return PD_ROUTED;
	}
	if (ip->frag_offset == 0) {
		/* a first fragment whose transport header is cut or broken:
		 * nothing to find a flow by */
		out->kind = PD_ROUTE_FRAGMENT;
		set_pseudo(r, out, ip->proto, &ip->src, &ip->dst);
		return PD_ROUTED;
	}
	if (d->have_first) {
		*out = d->route;
		return PD_ROUTED;
	}
	hold(r, d, pkt, data);
	return PD_HELD;
}

static pd_route_result route_icmp_error(pd_router *r, const pd_packet *pkt, pd_route *out)
{
	const pd_icmp *ic = &pkt->icmp;
	if (!ic->is_error || !ic->has_inner)
		return PD_NOT_ROUTED;
	const pd_ip *in = &ic->inner_ip;
	out->kind = PD_ROUTE_ICMP_ERROR;
	if (ic->inner_has_ports) {
		set_tuple(r, out, in->proto, &in->src, ic->inner_sport, &in->dst, ic->inner_dport);
		return PD_ROUTED;
	}
	if (in->is_fragment && in->frag_offset != 0 && (in->proto == 6 || in->proto == 17)) {
		dgram *d = dgram_find(r, in);
		if (d && d->have_first) {
			*out = d->route;
			out->kind = PD_ROUTE_ICMP_ERROR;
			return PD_ROUTED;
		}
	}
	set_pseudo(r, out, in->proto, &in->src, &in->dst);
	return PD_ROUTED;
}

pd_route_result pd_router_route(pd_router *r, const pd_packet *pkt, const uint8_t *data, pd_route *out)
{
	memset(out, 0, sizeof(*out));
	if (!pkt->is_ip)
		return PD_NOT_ROUTED;
	if (pkt->ip.is_fragment)
		return route_fragment(r, pkt, data, out);
	/* A malformed transport header goes no further. An IP total length
	 * beyond the frame was clipped to the frame by the dissector and is
	 * analysed, as Wireshark does. */
	if (pkt->malformed != PD_MAL_NONE && pkt->malformed != PD_MAL_IP_TOTLEN)
		return PD_NOT_ROUTED;
	const pd_ip *ip = &pkt->ip;
	switch (pkt->l4) {
	case PD_L4_TCP:
		out->kind = PD_ROUTE_TCP;
		set_tuple(r, out, 6, &ip->src, pkt->tcp.sport, &ip->dst, pkt->tcp.dport);
		return PD_ROUTED;
	case PD_L4_UDP:
		out->kind = PD_ROUTE_UDP;
		set_tuple(r, out, 17, &ip->src, pkt->udp.sport, &ip->dst, pkt->udp.dport);
		return PD_ROUTED;
	case PD_L4_ICMP:
	case PD_L4_ICMP6:
		return route_icmp_error(r, pkt, out);
	default:
		return PD_NOT_ROUTED;
	}
}

pd_held *pd_router_take(pd_router *r)
{
	pd_held *h = r->due;
	r->due = r->due_tail = NULL;
	return h;
}

void pd_router_expire(pd_router *r, pd_time now)
{
	while (r->queue.head) {
		dgram *d = r->queue.head->data;
		if (now - d->last_ts <= RT_DGRAM_TIMEOUT_NS)
			break;
		dgram_drop(r, d);
	}
}

void pd_router_flush(pd_router *r)
{
	while (r->queue.head)
		dgram_drop(r, r->queue.head->data);
}

uint64_t pd_router_held(const pd_router *r, uint64_t *bytes)
{
	if (bytes)
		*bytes = r->held_bytes;
	return r->held_n;
}
