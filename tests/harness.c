/* The in-process detector harness; see harness.h. */
#include "harness.h"

#include <arpa/inet.h>
#include <glib.h>
#include <math.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

#include "analyzer/run.h"

#define H_EPOCH_NS (INT64_C(1700000000) * 1000000000)
#define H_MAX_FRAME 2048

struct pd_harness {
	pd_run *run;
	int64_t now; /* ns */
	uint64_t frames;
	uint16_t ipid;
	GPtrArray *kept; /* GBytes of every frame, for ICMP quotes */
	uint8_t udp_head[16]; /* the first UDP payload bytes (pd_harness_udp_head) */
	size_t udp_head_len;
};

void pd_harness_udp_head(pd_harness *h, const uint8_t *bytes, size_t n)
{
	g_assert(n <= sizeof(h->udp_head));
	if (n)
		memcpy(h->udp_head, bytes, n);
	h->udp_head_len = n;
}

static void put_udp_head(const pd_harness *h, uint8_t *payload, uint32_t room)
{
	memcpy(payload, h->udp_head, h->udp_head_len < room ? h->udp_head_len : room);
}

pd_harness *pd_harness_new(const char *detectors)
{
	pd_harness *h = g_new0(pd_harness, 1);
	pd_run_opts o;
	pd_run_opts_default(&o);
	o.no_ndpi = true;
	o.detectors = detectors;
	h->run = pd_run_new(&o);
	h->now = H_EPOCH_NS;
	h->ipid = 1000;
	h->kept = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
	return h;
}

pd_report *pd_harness_finish(pd_harness *h)
{
	pd_report *r = pd_run_finish(h->run);
	pd_run_free(h->run);
	g_ptr_array_free(h->kept, TRUE);
	g_free(h);
	return r;
}

void pd_harness_at(pd_harness *h, double seconds)
{
	h->now = H_EPOCH_NS + (int64_t)llround(seconds * 1e9);
}

void pd_harness_later(pd_harness *h, double seconds)
{
	h->now += (int64_t)llround(seconds * 1e9);
}

double pd_harness_now(const pd_harness *h)
{
	return (double)(h->now - H_EPOCH_NS) / 1e9;
}

/* "a.b.c.d:port" */
static void parse_ep(const char *s, uint32_t *ip, uint16_t *port)
{
	char host[32];
	const char *colon = strrchr(s, ':');
	g_assert(colon && (size_t)(colon - s) < sizeof(host));
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = '\0';
	struct in_addr a;
	g_assert(inet_pton(AF_INET, host, &a) == 1);
	*ip = a.s_addr; /* network order */
	*port = (uint16_t)atoi(colon + 1);
}

static uint64_t feed(pd_harness *h, const uint8_t *bytes, uint32_t len)
{
	pd_frame fr;
	memset(&fr, 0, sizeof(fr));
	fr.frame_no = ++h->frames;
	fr.ts = h->now;
	fr.caplen = fr.wirelen = len;
	fr.linktype = DLT_EN10MB;
	fr.data = bytes;
	g_ptr_array_add(h->kept, g_bytes_new(bytes, len));
	pd_run_frame(h->run, 262144, &fr);
	return fr.frame_no;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

/* Ethernet + IPv4 header for a payload of l4 bytes; returns the IP offset. */
static size_t ip4(pd_harness *h, uint8_t *f, uint32_t src, uint32_t dst, uint8_t proto, size_t l4, uint8_t ttl,
		  uint16_t ipid, bool df, uint8_t tos)
{
	memset(f, 0, 14);
	f[0] = 0x02, f[5] = 0x02, f[6] = 0x02, f[11] = 0x01;
	f[12] = 0x08;
	uint8_t *ip = f + 14;
	memset(ip, 0, 20);
	ip[0] = 0x45;
	ip[1] = tos;
	put16(ip + 2, (uint16_t)(20 + l4));
	put16(ip + 4, ipid ? ipid : h->ipid++);
	if (df)
		ip[6] = 0x40;
	ip[8] = ttl ? ttl : 64;
	ip[9] = proto;
	memcpy(ip + 12, &src, 4);
	memcpy(ip + 16, &dst, 4);
	return 14;
}

uint64_t pd_harness_tcp(pd_harness *h, const char *src, const char *dst, const pd_hseg *s)
{
	uint32_t sip, dip;
	uint16_t sp, dp;
	parse_ep(src, &sip, &sp);
	parse_ep(dst, &dip, &dp);
	uint8_t opt[60];
	size_t o = 0;
	for (const char *l = s->layout; l && *l && o + 10 <= 40; l++) {
		switch (*l) {
		case 'M':
			opt[o++] = 2, opt[o++] = 4;
			put16(opt + o, s->mss ? s->mss : 1460);
			o += 2;
			break;
		case 'W':
			opt[o++] = 3, opt[o++] = 3, opt[o++] = (uint8_t)(s->wscale >= 0 ? s->wscale : 0);
			break;
		case 'S':
			opt[o++] = 4, opt[o++] = 2;
			break;
		case 'T':
			opt[o++] = 8, opt[o++] = 10;
			put32(opt + o, s->tsval);
			put32(opt + o + 4, s->tsecr);
			o += 8;
			break;
		case 'E':
			opt[o++] = 0;
			while (o % 4)
				opt[o++] = 0;
			break;
		default: /* N */
			opt[o++] = 1;
			break;
		}
	}
	if (s->layout)
		goto laid_out;
	if (s->mss) {
		opt[o++] = 2, opt[o++] = 4;
		put16(opt + o, s->mss);
		o += 2;
	}
	if (s->sack_ok)
		opt[o++] = 4, opt[o++] = 2;
	if (s->ts) {
		opt[o++] = 8, opt[o++] = 10;
		put32(opt + o, s->tsval);
		put32(opt + o + 4, s->tsecr);
		o += 8;
	}
	if (s->wscale >= 0 && (s->flags & PD_TCP_SYN))
		opt[o++] = 3, opt[o++] = 3, opt[o++] = (uint8_t)s->wscale;
	if (s->sacks) {
		opt[o++] = 5, opt[o++] = (uint8_t)(2 + 8 * s->sacks);
		for (int i = 0; i < s->sacks && i < 3; i++) {
			put32(opt + o, s->sack_left[i]);
			put32(opt + o + 4, s->sack_right[i]);
			o += 8;
		}
	}
laid_out:
	while (o % 4)
		opt[o++] = 1; /* NOP */
	size_t thl = 20 + o;
	g_assert(14 + 20 + thl + s->len <= H_MAX_FRAME);
	uint8_t f[H_MAX_FRAME];
	size_t ipo = ip4(h, f, sip, dip, 6, thl + s->len, s->ttl, s->ipid, s->df, s->tos);
	uint8_t *t = f + ipo + 20;
	memset(t, 0, thl + s->len);
	put16(t, sp);
	put16(t + 2, dp);
	put32(t + 4, s->seq);
	put32(t + 8, s->ack);
	t[12] = (uint8_t)((thl / 4) << 4);
	t[13] = s->flags;
	put16(t + 14, (uint16_t)s->win);
	memcpy(t + 20, opt, o);
	return feed(h, f, (uint32_t)(14 + 20 + thl + s->len));
}

uint64_t pd_harness_udp(pd_harness *h, const char *src, const char *dst, uint32_t len)
{
	uint32_t sip, dip;
	uint16_t sp, dp;
	parse_ep(src, &sip, &sp);
	parse_ep(dst, &dip, &dp);
	g_assert(14 + 28 + len <= H_MAX_FRAME);
	uint8_t f[H_MAX_FRAME];
	size_t ipo = ip4(h, f, sip, dip, 17, 8 + len, 0, 0, false, 0);
	uint8_t *u = f + ipo + 20;
	memset(u, 0, 8 + len);
	put16(u, sp);
	put16(u + 2, dp);
	put16(u + 4, (uint16_t)(8 + len));
	put_udp_head(h, u + 8, len);
	return feed(h, f, (uint32_t)(14 + 28 + len));
}

/* An IPv4 fragment of protocol proto into f: flen zero bytes at offset
 * (a multiple of 8), MF if more; returns where its payload starts. */
static uint8_t *fragment_frame(pd_harness *h, uint8_t *f, uint32_t sip, uint32_t dip, uint8_t proto, uint16_t ident,
			       uint32_t offset, uint32_t flen, bool more)
{
	g_assert(offset % 8 == 0 && 14 + 20 + flen <= H_MAX_FRAME);
	size_t ipo = ip4(h, f, sip, dip, proto, flen, 0, ident, false, 0);
	put16(f + ipo + 6, (uint16_t)(offset / 8 | (more ? 0x2000 : 0))); /* MF */
	memset(f + ipo + 20, 0, flen);
	return f + ipo + 20;
}

uint64_t pd_harness_udp_fragment(pd_harness *h, const char *src, const char *dst, uint32_t len, uint16_t ident,
				 uint32_t offset, uint32_t flen)
{
	uint32_t sip, dip;
	uint16_t sp, dp;
	parse_ep(src, &sip, &sp);
	parse_ep(dst, &dip, &dp);
	g_assert(offset + flen <= 8 + len);
	uint8_t f[H_MAX_FRAME];
	uint8_t *u = fragment_frame(h, f, sip, dip, 17, ident, offset, flen, offset + flen < 8 + len);
	if (offset == 0) {
		g_assert(flen >= 8);
		put16(u, sp);
		put16(u + 2, dp);
		put16(u + 4, (uint16_t)(8 + len));
		put_udp_head(h, u + 8, flen - 8);
	}
	return feed(h, f, (uint32_t)(14 + 20 + flen));
}

uint64_t pd_harness_ip_fragment(pd_harness *h, const char *src, const char *dst, uint8_t proto, uint16_t ident,
				uint32_t offset, uint32_t flen, bool more)
{
	uint32_t sip, dip;
	uint16_t sp, dp;
	parse_ep(src, &sip, &sp);
	parse_ep(dst, &dip, &dp);
	uint8_t f[H_MAX_FRAME];
	fragment_frame(h, f, sip, dip, proto, ident, offset, flen, more);
	return feed(h, f, (uint32_t)(14 + 20 + flen));
}

uint64_t pd_harness_icmp_frag_needed(pd_harness *h, const char *router, uint64_t quoted, uint32_t mtu)
{
	g_assert(quoted >= 1 && quoted <= h->kept->len);
	gsize qlen = 0;
	const uint8_t *q = g_bytes_get_data(g_ptr_array_index(h->kept, quoted - 1), &qlen);
	g_assert(qlen >= 14 + 28);
	uint32_t rip, to;
	uint16_t rport;
	parse_ep(router, &rip, &rport);
	memcpy(&to, q + 14 + 12, 4); /* back to the quoted packet's source */
	uint8_t f[H_MAX_FRAME];
	size_t ipo = ip4(h, f, rip, to, 1, 8 + 28, 0, 0, false, 0);
	uint8_t *ic = f + ipo + 20;
	memset(ic, 0, 8);
	ic[0] = 3;
	ic[1] = 4;
	put16(ic + 6, (uint16_t)mtu);
	memcpy(ic + 8, q + 14, 28);
	return feed(h, f, (uint32_t)(14 + 20 + 8 + 28));
}

/* ------------------------------------------------------------ flows */

static uint32_t ts_now(const pd_harness *h, const pd_hflow *c, int dir)
{
	/* 1 kHz clocks from each side's own origin */
	return c->tsval[dir] + (uint32_t)((h->now - H_EPOCH_NS) / 1000000);
}

static pd_hseg seg_of(const pd_harness *h, const pd_hflow *c, int dir, uint8_t flags, uint32_t len)
{
	pd_hseg s;
	memset(&s, 0, sizeof(s));
	s.flags = flags;
	s.seq = c->next[dir];
	s.ack = c->next[pd_peer(dir)];
	s.win = 502; /* x 2^7: 64 KB */
	s.len = len;
	s.wscale = -1;
	s.df = true;
	s.ts = c->ts;
	s.tsval = ts_now(h, c, dir);
	s.tsecr = ts_now(h, c, pd_peer(dir)) - (uint32_t)(c->rtt * 500);
	return s;
}

pd_hflow pd_harness_connect(pd_harness *h, const char *client, const char *server, double rtt)
{
	return pd_harness_connect_isn(h, client, server, rtt, 1000, 900000);
}

static pd_hflow connect_with(pd_harness *h, const char *client, const char *server, double rtt, uint32_t isn_client,
			     uint32_t isn_server, uint8_t client_ttl, const char *client_layout, uint8_t server_ttl,
			     const char *server_layout)
{
	pd_hflow c;
	memset(&c, 0, sizeof(c));
	g_strlcpy(c.client, client, sizeof(c.client));
	g_strlcpy(c.server, server, sizeof(c.server));
	c.next[PD_CLIENT] = isn_client;
	c.next[PD_SERVER] = isn_server;
	c.tsval[PD_CLIENT] = 5000;
	c.tsval[PD_SERVER] = 700000;
	c.ts = (!client_layout || strchr(client_layout, 'T')) && (!server_layout || strchr(server_layout, 'T'));
	c.rtt = rtt;
	pd_hseg s = seg_of(h, &c, PD_CLIENT, PD_TCP_SYN, 0);
	s.ack = 0;
	s.tsecr = 0;
	s.win = 64240;
	s.mss = 1460;
	s.wscale = 7;
	s.sack_ok = true;
	s.ttl = client_ttl;
	s.layout = client_layout;
	pd_harness_tcp(h, c.client, c.server, &s);
	c.next[PD_CLIENT]++;
	pd_harness_later(h, rtt);
	s = seg_of(h, &c, PD_SERVER, PD_TCP_SYN | PD_TCP_ACK, 0);
	s.win = 65160;
	s.mss = 1460;
	s.wscale = 7;
	s.sack_ok = true;
	s.ttl = server_ttl;
	s.layout = server_layout;
	pd_harness_tcp(h, c.server, c.client, &s);
	c.next[PD_SERVER]++;
	pd_harness_later(h, 0.0001);
	pd_harness_ack(h, &c, PD_CLIENT);
	return c;
}

pd_hflow pd_harness_connect_isn(pd_harness *h, const char *client, const char *server, double rtt, uint32_t isn_client,
				uint32_t isn_server)
{
	return connect_with(h, client, server, rtt, isn_client, isn_server, 0, NULL, 0, NULL);
}

pd_hflow pd_harness_connect_os(pd_harness *h, const char *client, const char *server, double rtt, uint8_t client_ttl,
			       const char *client_layout, uint8_t server_ttl, const char *server_layout)
{
	return connect_with(h, client, server, rtt, 1000, 900000, client_ttl, client_layout, server_ttl, server_layout);
}

static const char *side(const pd_hflow *c, int dir)
{
	return dir == PD_CLIENT ? c->client : c->server;
}

uint64_t pd_harness_data(pd_harness *h, pd_hflow *c, int dir, uint32_t len)
{
	pd_hseg s = seg_of(h, c, dir, PD_TCP_ACK | PD_TCP_PSH, len);
	uint64_t fr = pd_harness_tcp(h, side(c, dir), side(c, pd_peer(dir)), &s);
	c->next[dir] += len;
	return fr;
}

uint64_t pd_harness_ack(pd_harness *h, pd_hflow *c, int dir)
{
	pd_hseg s = seg_of(h, c, dir, PD_TCP_ACK, 0);
	return pd_harness_tcp(h, side(c, dir), side(c, pd_peer(dir)), &s);
}

uint64_t pd_harness_fin(pd_harness *h, pd_hflow *c, int dir)
{
	pd_hseg s = seg_of(h, c, dir, PD_TCP_ACK | PD_TCP_FIN, 0);
	uint64_t fr = pd_harness_tcp(h, side(c, dir), side(c, pd_peer(dir)), &s);
	c->next[dir]++;
	return fr;
}

pd_hseg pd_harness_seg(const pd_harness *h, const pd_hflow *c, int dir, uint8_t flags, uint32_t len)
{
	return seg_of(h, c, dir, flags, len);
}

uint64_t pd_harness_send(pd_harness *h, pd_hflow *c, int dir, const pd_hseg *seg)
{
	uint64_t fr = pd_harness_tcp(h, side(c, dir), side(c, pd_peer(dir)), seg);
	uint32_t end = seg->seq + seg->len + !!(seg->flags & PD_TCP_SYN) + !!(seg->flags & PD_TCP_FIN);
	if ((int32_t)(end - c->next[dir]) > 0)
		c->next[dir] = end;
	return fr;
}

/* ----------------------------------------------------------- report */

const pd_finding *pd_harness_finding(const pd_report *r, const char *id, int n)
{
	for (guint i = 0; i < r->findings->len; i++) {
		const pd_finding *f = g_ptr_array_index(r->findings, i);
		if (f->def && !strcmp(f->def->id, id) && n-- == 0)
			return f;
	}
	return NULL;
}

int pd_harness_count(const pd_report *r, const char *id)
{
	int n = 0;
	for (guint i = 0; i < r->findings->len; i++) {
		const pd_finding *f = g_ptr_array_index(r->findings, i);
		n += f->def && !strcmp(f->def->id, id);
	}
	return n;
}

double pd_harness_metric(const pd_finding *f, const char *key)
{
	for (guint i = 0; f && i < f->metrics->len; i++) {
		const pd_metric *m = &g_array_index(f->metrics, pd_metric, i);
		if (!strcmp(m->key, key))
			return m->value;
	}
	return NAN;
}
