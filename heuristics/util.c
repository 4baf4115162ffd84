/* Helpers shared by the detectors; see util.h. */
#include "heuristics/util.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pd_time pd_flow_rtt(const pd_flow *f)
{
	if (f->hs_rtt > 0) {
		/* A handshake without a repeated SYN or SYN-ACK spans exactly one
		 * round trip of the whole path wherever the capture was taken.
		 * Data/ACK samples do not: next to the receiver (or the ACKer of
		 * a request) they only see the local turn-around, so they must not
		 * override a clean handshake. */
		if (f->half[PD_CLIENT].syn_count <= 1 && f->half[PD_SERVER].syn_count <= 1)
			return f->hs_rtt;
		if (f->rtt_count > 0 && f->rtt_max > 0 && f->hs_rtt > f->rtt_max + f->rtt_max / 2)
			return f->rtt_max;
		return f->hs_rtt;
	}
	return f->rtt_min > 0 ? f->rtt_min : 0;
}

int pd_flow_link_vantage(const pd_flow *f)
{
	const uint8_t in = 1u << (PD_LINK_INCOMING - 1), out = 1u << (PD_LINK_OUTGOING - 1),
		      other = 1u << (PD_LINK_OTHERHOST - 1);
	uint8_t cl = f->half[PD_CLIENT].link_dirs, sv = f->half[PD_SERVER].link_dirs;
	if (!cl || !sv)
		return PD_VANTAGE_UNKNOWN;
	if (((cl & in) && (cl & out)) || ((sv & in) && (sv & out)) || ((cl | sv) & other))
		return PD_VANTAGE_MIDDLE;
	if (cl == out && sv == in)
		return PD_CLIENT;
	if (sv == out && cl == in)
		return PD_SERVER;
	return PD_VANTAGE_UNKNOWN;
}

int pd_flow_vantage(const pd_flow *f)
{
	int lv = pd_flow_link_vantage(f);
	if (lv == PD_CLIENT || lv == PD_SERVER)
		return lv;
	if (lv == PD_VANTAGE_MIDDLE)
		return -1;
	if (!f->syn_ts || !f->synack_frame || !f->hs_ack_frame || f->hs_rtt < 1000 * 1000)
		return -1;
	pd_time syn = f->syn_last_ts ? f->syn_last_ts : f->syn_ts;
	pd_time srv = f->synack_ts - syn, cli = f->hs_ack_ts - f->synack_ts;
	if (srv >= 0 && srv < f->hs_rtt / 4)
		return PD_SERVER;
	if (cli >= 0 && cli < f->hs_rtt / 4)
		return PD_CLIENT;
	return -1;
}

uint32_t pd_flow_mss(const pd_flow *f, int s, bool trust_seen)
{
	const pd_tcp_half *hs = &f->half[s], *hr = &f->half[pd_peer(s)];
	uint32_t mss = hr->mss;
	if (mss && hs->ts_offered && hr->ts_offered)
		mss -= 12;
	if (!mss || (trust_seen && hs->max_payload > mss))
		mss = hs->max_payload > 536 ? hs->max_payload : 536;
	return mss;
}

void pd_addr_bracketed(const pd_addr *a, char *buf, size_t len)
{
	char tmp[INET6_ADDRSTRLEN];
	if (!inet_ntop(a->family == 6 ? AF_INET6 : AF_INET, a->bytes, tmp, sizeof(tmp)))
		snprintf(tmp, sizeof(tmp), "?");
	snprintf(buf, len, a->family == 6 ? "[%s]" : "%s", tmp);
}

const char *pd_times(uint64_t n, bool capital, char buf[24])
{
	if (n == 1)
		return capital ? "Once" : "once";
	snprintf(buf, 24, "%" PRIu64 " times", n);
	return buf;
}

void pd_flow_endpoint(const pd_flow *f, int side, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN] = "?";
	const pd_addr *a = &f->addr[side];
	inet_ntop(a->family == 6 ? AF_INET6 : AF_INET, a->bytes, ip, sizeof(ip));
	if (a->family == 6)
		snprintf(buf, len, "[%s]:%u", ip, f->port[side]);
	else
		snprintf(buf, len, "%s:%u", ip, f->port[side]);
}

bool pd_addr_same(const pd_addr *a, const pd_addr *b)
{
	return a->family == b->family && memcmp(a->bytes, b->bytes, 16) == 0;
}

/* ---- TIME_WAIT tuples ---- */

static bool tw_match(const pd_tw_tuple *t, const pd_flow *f)
{
	return t->used && t->cp == f->port[PD_CLIENT] && t->sp == f->port[PD_SERVER] &&
	       pd_addr_same(&t->c, &f->addr[PD_CLIENT]) && pd_addr_same(&t->s, &f->addr[PD_SERVER]);
}

static pd_tw_tuple *tw_at(const pd_tw_table *t, uint32_t j)
{
	return (pd_tw_tuple *)(void *)((char *)t->slots + j * t->elem_size);
}

pd_tw_tuple *pd_tw_lookup(const pd_tw_table *t, const pd_flow *f, uint32_t h)
{
	uint32_t tag = h | 1;
	for (int i = 0; i < t->probe; i++) {
		uint32_t j = (h + (uint32_t)i) & (t->n_slots - 1);
		if (t->tags[j] == tag && tw_match(tw_at(t, j), f))
			return tw_at(t, j);
	}
	return NULL;
}

pd_tw_tuple *pd_tw_slot(const pd_tw_table *t, pd_time hold, const pd_flow *f, uint32_t h, pd_time now)
{
	uint32_t tag = h | 1;
	int64_t victim = -1; /* a slot index */
	bool victim_live = false; /* used and not older than hold */
	for (int i = 0; i < t->probe; i++) {
		uint32_t j = (h + (uint32_t)i) & (t->n_slots - 1);
		if (t->tags[j] == tag && tw_match(tw_at(t, j), f)) {
			t->ends[j] = now;
			tw_at(t, j)->end_ts = now;
			return tw_at(t, j);
		}
		bool live = t->tags[j] && now - t->ends[j] <= hold;
		/* first free or expired slot; else the oldest live one */
		if (victim < 0 || (victim_live && (!live || t->ends[j] < t->ends[victim]))) {
			victim = j;
			victim_live = live;
		}
	}
	pd_tw_tuple *v = tw_at(t, (uint32_t)victim);
	memset(v, 0, t->elem_size);
	v->used = true;
	v->c = f->addr[PD_CLIENT];
	v->s = f->addr[PD_SERVER];
	v->cp = f->port[PD_CLIENT];
	v->sp = f->port[PD_SERVER];
	v->end_ts = now;
	t->tags[victim] = tag;
	t->ends[victim] = now;
	return v;
}

/* ---- quoted 5-tuples ---- */

void pd_tuple_of_flow(pd_tuple *t, const pd_flow *f)
{
	memset(t, 0, sizeof(*t));
	t->fam = f->addr[PD_CLIENT].family;
	t->proto = f->proto;
	t->sport = f->port[PD_CLIENT];
	t->dport = f->port[PD_SERVER];
	memcpy(t->src, f->addr[PD_CLIENT].bytes, 16);
	memcpy(t->dst, f->addr[PD_SERVER].bytes, 16);
}

guint pd_tuple_hash(gconstpointer p)
{
	/* FNV-1a over the struct's bytes, in field order (no padding) */
	const pd_tuple *t = p;
	G_STATIC_ASSERT(sizeof(pd_tuple) == 6 + 16 + 16);
	G_STATIC_ASSERT(offsetof(pd_tuple, src) == 6 && offsetof(pd_tuple, dst) == 22);
	uint32_t h = pd_fnv_run(PD_FNV_BASIS, p, 6);
	h = pd_fnv_addr_bytes(h, t->src);
	return pd_fnv_addr_bytes(h, t->dst);
}

gboolean pd_tuple_eq(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, sizeof(pd_tuple)) == 0;
}

bool pd_tuple_map_add(GHashTable **map, const pd_flow *flow, void *value, guint max)
{
	if (!*map)
		*map = g_hash_table_new_full(pd_tuple_hash, pd_tuple_eq, g_free, NULL);
	if (g_hash_table_size(*map) >= max)
		return false;
	pd_tuple *t = g_new(pd_tuple, 1);
	pd_tuple_of_flow(t, flow);
	g_hash_table_replace(*map, t, value);
	return true;
}

void pd_tuple_map_remove(GHashTable *map, const pd_flow *flow)
{
	pd_tuple t;
	pd_tuple_of_flow(&t, flow);
	g_hash_table_remove(map, &t);
}

void *pd_tuple_map_find(GHashTable *map, const pd_ip *in, uint8_t proto, uint16_t sp, uint16_t dp, int *dir)
{
	if (!map)
		return NULL;
	pd_tuple t;
	memset(&t, 0, sizeof(t));
	t.fam = in->version;
	t.proto = proto;
	t.sport = sp;
	t.dport = dp;
	memcpy(t.src, in->src.bytes, 16);
	memcpy(t.dst, in->dst.bytes, 16);
	void *o = g_hash_table_lookup(map, &t);
	if (o) {
		*dir = PD_CLIENT;
		return o;
	}
	t.sport = dp;
	t.dport = sp;
	memcpy(t.src, in->dst.bytes, 16);
	memcpy(t.dst, in->src.bytes, 16);
	o = g_hash_table_lookup(map, &t);
	if (o)
		*dir = PD_SERVER;
	return o;
}

/* ---- statistics ---- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

double pd_median_u32(uint32_t *v, uint32_t n)
{
	qsort(v, n, sizeof(*v), cmp_u32);
	return n % 2 ? v[n / 2] : ((double)v[n / 2 - 1] + v[n / 2]) / 2.0;
}

void pd_rate_init(pd_rate_1s *r)
{
	memset(r, 0, sizeof(*r));
	r->bin_idx = INT64_MIN;
}

void pd_rate_add(pd_rate_1s *r, pd_time ts)
{
	int64_t b = ts / (PD_NS_PER_SEC / PD_RATE_BINS);
	if (r->bin_idx == INT64_MIN) {
		r->bin_idx = b;
	} else if (b > r->bin_idx) {
		int64_t steps = b - r->bin_idx;
		if (steps > PD_RATE_BINS)
			steps = PD_RATE_BINS;
		for (int64_t j = 1; j <= steps; j++) {
			uint32_t *bin = &r->bins[pd_bin_index(r->bin_idx + j, PD_RATE_BINS)];
			r->sum -= *bin;
			*bin = 0;
		}
		r->bin_idx = b;
	}
	r->bins[pd_bin_index(r->bin_idx, PD_RATE_BINS)]++;
	r->sum++; /* kept, not re-added: this runs for every SYN */
	if (r->sum > r->peak) {
		r->peak = r->sum;
		r->peak_ts = ts;
	}
}
