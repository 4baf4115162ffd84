/* Deterministic benchmark capture generator.
 *
 *   gen_capture OUT.pcap SIZE_MB [SEED [FLOOD_SOURCES]]
 *   gen_capture --frontend LIVE OUT.pcap SIZE_MB [SEED]
 *
 * The second form writes a front end's capture instead (see "front end"
 * below): keep-alive connections, LIVE of them alive at once once the
 * capture is longer than a few minutes.
 *
 * Writes a classic pcap (Ethernet, microsecond timestamps) of SIZE_MB * 10^6
 * bytes (file size, headers included; it stops at the first record that
 * reaches the size, so open connections are cut like a real capture's).
 * Same arguments, same bytes: one fixed PRNG (splitmix64) drives everything.
 *
 * Traffic, interleaved on one timeline at ~1.7 MB of capture per second:
 *   - short TCP connections (HTTP, TLS, other): handshake with Linux-like
 *     options, request, response segments, delayed ACKs, FIN/FIN/ACK; a few
 *     reset, refused or with a retransmitted SYN; ~10 % IPv6.
 *     Tens of thousands of them per GB.
 *   - bulk TCP flows (a few hundred per GB, ~8 at once): full segments
 *     (1448 bytes, 1428 over IPv6) in rounds of cwnd, ~1 % loss seen as a
 *     gap, SACKed duplicate ACKs and a fast retransmission; some
 *     reordering; zero-window periods with probes and a window update in
 *     about one flow in eight; captured at the sender or at the receiver,
 *     handshake included.
 *   - a SYN flood: 100 000 spoofed sources (scaled down below 100 MB) hit
 *     one server at 20 000 SYN/s from 40 % of the planned duration; the
 *     server answers half of them.
 *   - DNS over UDP, and UDP datagrams of 3-6 KB sent as IPv4 fragments (and
 *     some IPv6 fragments), some with the fragments out of order.
 * A summary of what was written goes to stderr.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------ PRNG */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Uniform in [0, n). */
static uint32_t rndn(uint32_t n)
{
	return (uint32_t)(((rnd() >> 32) * (uint64_t)n) >> 32);
}

static double rndf(void)
{
	return (double)(rnd() >> 11) * (1.0 / 9007199254740992.0);
}

static bool chance(double p)
{
	return rndf() < p;
}

/* Exponential with the given mean (ns). */
static uint64_t rnd_exp(double mean)
{
	double u = rndf();
	if (u < 1e-12)
		u = 1e-12;
	double x = -mean * __builtin_log(u);
	return (uint64_t)x;
}

/* ------------------------------------------------------------ output */

#define NS 1ull
#define US 1000ull
#define MS 1000000ull
#define SEC 1000000000ull

/* Segment payload with timestamps: Linux announces MSS 1460 (IPv4) or
 * 1440 (IPv6) and leaves 12 bytes for the option. */
#define MSS4 1448u
#define MSS6 1428u
#define BASE_TIME (UINT64_C(1709294400) * SEC) /* 2024-03-01 12:00:00 UTC */
#define BYTES_PER_SEC 1700000.0 /* capture bytes per second of capture time */

static pcap_dumper_t *dumper;
static uint64_t bytes_written = 24, target_bytes;
static uint64_t n_packets;
static uint8_t frame[70000];
static uint8_t randbuf[1 << 16]; /* payload source: random bytes */
static uint64_t last_ts_written;

enum { CL_SHORT, CL_BULK, CL_FLOOD, CL_DNS, CL_FRAG, CL_KA, CL_FDNS, CL__N };
static const char *const class_name[CL__N] = {"short-tcp", "bulk-tcp", "syn-flood", "dns",
					      "udp-frag",  "keepalive", "dns"};
static uint64_t class_pkts[CL__N], class_bytes[CL__N], class_flows[CL__N];

static void write_frame(uint64_t ts, uint32_t len, int cls)
{
	struct pcap_pkthdr h;
	if (ts < last_ts_written)
		ts = last_ts_written; /* never happens by construction; keep order anyway */
	last_ts_written = ts;
	h.ts.tv_sec = (time_t)(ts / SEC);
	h.ts.tv_usec = (suseconds_t)((ts % SEC) / US);
	h.caplen = len;
	h.len = len;
	pcap_dump((u_char *)dumper, &h, frame);
	bytes_written += 16 + len;
	n_packets++;
	class_pkts[cls]++;
	class_bytes[cls] += 16 + len;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t n)
{
	while (n > 1) {
		sum += (uint32_t)(p[0] << 8 | p[1]);
		p += 2;
		n -= 2;
	}
	if (n)
		sum += (uint32_t)(p[0] << 8);
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Endpoint: IPv4 in the first 4 bytes when v6 is false. */
typedef struct ep {
	bool v6;
	uint8_t a[16];
} ep;

static const uint8_t mac_client[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
static const uint8_t mac_router[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0xfe};

/* Ethernet + IP header for l4len bytes of IP payload; returns the L4 offset. */
static size_t put_l2l3(const ep *src, const ep *dst, uint8_t proto, size_t l4len, bool to_client,
		       uint16_t ipid, uint8_t ttl)
{
	memcpy(frame, to_client ? mac_client : mac_router, 6);
	memcpy(frame + 6, to_client ? mac_router : mac_client, 6);
	if (!src->v6) {
		put16(frame + 12, 0x0800);
		uint8_t *ip = frame + 14;
		ip[0] = 0x45;
		ip[1] = 0;
		put16(ip + 2, (uint16_t)(20 + l4len));
		put16(ip + 4, ipid);
		put16(ip + 6, 0x4000); /* DF */
		ip[8] = ttl ? ttl : to_client ? 56 : 64;
		ip[9] = proto;
		put16(ip + 10, 0);
		memcpy(ip + 12, src->a, 4);
		memcpy(ip + 16, dst->a, 4);
		put16(ip + 10, csum_fold(csum_add(0, ip, 20)));
		return 34;
	}
	put16(frame + 12, 0x86dd);
	uint8_t *ip = frame + 14;
	put32(ip, 0x60000000);
	put16(ip + 4, (uint16_t)l4len);
	ip[6] = proto;
	ip[7] = ttl ? ttl : to_client ? 56 : 64;
	memcpy(ip + 8, src->a, 16);
	memcpy(ip + 24, dst->a, 16);
	return 54;
}

static uint32_t pseudo_sum(const ep *src, const ep *dst, uint8_t proto, size_t l4len)
{
	uint32_t s = 0;
	size_t alen = src->v6 ? 16 : 4;
	s = csum_add(s, src->a, alen);
	s = csum_add(s, dst->a, alen);
	s += proto;
	s += (uint32_t)l4len;
	return s;
}

/* ------------------------------------------------------------ TCP packets */

enum { OPT_NONE, OPT_SYN, OPT_TS, OPT_TS_SACK };

typedef struct pkt_spec {
	uint64_t ts;
	uint32_t seq, ack;
	uint32_t sack_l, sack_r; /* OPT_TS_SACK */
	uint32_t plen;
	const uint8_t *pdata; /* NULL: random bytes */
	uint16_t win;
	uint8_t flags;
	uint8_t dir; /* 0 client->server, 1 server->client */
	uint8_t opt;
	/* Payload of a message cut into segments (front-end mode): pk says
	 * what the bytes are, moff is this segment's offset in the message,
	 * mlen the message's length, and its first hl bytes are pdata's. */
	uint8_t pk;
	uint16_t hl;
	uint32_t moff, mlen;
} pkt_spec;

enum {
	PK_SEQ, /* pdata, or else random bytes by sequence number */
	PK_TEXT, /* pdata[0..hl), then text by sequence number */
	PK_TLS, /* pdata[0..hl), then TLS application-data records */
};

#define F_FIN 0x01
#define F_SYN 0x02
#define F_RST 0x04
#define F_PSH 0x08
#define F_ACK 0x10

typedef struct conn {
	ep cli, srv;
	uint16_t cport, sport;
	uint16_t ipid[2];
	uint8_t ttl_dummy;
	/* front-end mode (0 = the defaults below): TTL and SYN options by
	 * sender, and whether that sender's unlabelled payload (bulk data) is
	 * a stream of TLS records starting at sequence number tls_base */
	uint8_t ttl[2];
	uint16_t mss[2];
	uint8_t ws1[2]; /* window scale + 1 */
	bool tls_stream[2];
	uint32_t tls_base[2];
} conn;

static void fill_message(uint8_t *p, const pkt_spec *s, const conn *c);

static void emit_tcp(const conn *c, const pkt_spec *s, int cls)
{
	const ep *src = s->dir ? &c->srv : &c->cli, *dst = s->dir ? &c->cli : &c->srv;
	size_t optlen = s->opt == OPT_SYN ? 20 : s->opt == OPT_TS ? 12 : s->opt == OPT_TS_SACK ? 24 : 0;
	size_t thl = 20 + optlen;
	size_t l4len = thl + s->plen;
	size_t off = put_l2l3(src, dst, 6, l4len, s->dir == 1, c->ipid[s->dir] + (uint16_t)(s->seq >> 4),
			      c->ttl[s->dir]);
	uint8_t *t = frame + off;
	put16(t, s->dir ? c->sport : c->cport);
	put16(t + 2, s->dir ? c->cport : c->sport);
	put32(t + 4, s->seq);
	put32(t + 8, (s->flags & F_ACK) ? s->ack : 0);
	t[12] = (uint8_t)((thl / 4) << 4);
	t[13] = s->flags;
	put16(t + 14, s->win);
	put16(t + 16, 0);
	put16(t + 18, 0);
	uint8_t *o = t + 20;
	uint32_t tsval = (uint32_t)(s->ts / MS) + (s->dir ? 0x5000000u : 0x1000000u);
	uint32_t tsecr = s->flags & F_ACK ? tsval - (s->dir ? 0x4000000u : 0u) - 20 : 0;
	if (s->dir == 0 && (s->flags & F_ACK))
		tsecr = (uint32_t)(s->ts / MS) + 0x5000000u - 20;
	else if (s->dir == 1 && (s->flags & F_ACK))
		tsecr = (uint32_t)(s->ts / MS) + 0x1000000u - 20;
	if (s->opt == OPT_SYN) {
		/* Linux: MSS, SACK_PERM, TS, NOP, WS */
		o[0] = 2, o[1] = 4;
		put16(o + 2, c->mss[s->dir] ? c->mss[s->dir] : c->cli.v6 ? 1440 : 1460);
		o[4] = 4, o[5] = 2;
		o[6] = 8, o[7] = 10;
		put32(o + 8, tsval);
		put32(o + 12, tsecr);
		o[16] = 1;
		o[17] = 3, o[18] = 3, o[19] = c->ws1[s->dir] ? (uint8_t)(c->ws1[s->dir] - 1) : 7;
	} else if (s->opt == OPT_TS || s->opt == OPT_TS_SACK) {
		o[0] = 1, o[1] = 1, o[2] = 8, o[3] = 10;
		put32(o + 4, tsval);
		put32(o + 8, tsecr);
		if (s->opt == OPT_TS_SACK) {
			o[12] = 1, o[13] = 1, o[14] = 5, o[15] = 10;
			put32(o + 16, s->sack_l);
			put32(o + 20, s->sack_r);
		}
	}
	uint8_t *p = t + thl;
	if (s->plen && (s->pk != PK_SEQ || (!s->pdata && c->tls_stream[s->dir]))) {
		fill_message(p, s, c);
	} else if (s->plen) {
		if (s->pdata) {
			memcpy(p, s->pdata, s->plen);
		} else {
			/* byte at sequence number x is randbuf[x mod 64K], so
			 * retransmissions and probes carry the same bytes */
			uint32_t start = s->seq & (sizeof(randbuf) - 1);
			uint32_t left = s->plen;
			uint8_t *q = p;
			while (left) {
				uint32_t k = (uint32_t)sizeof(randbuf) - start;
				if (k > left)
					k = left;
				memcpy(q, randbuf + start, k);
				q += k;
				left -= k;
				start = 0;
			}
		}
	}
	uint32_t sum = pseudo_sum(src, dst, 6, l4len);
	sum = csum_add(sum, t, l4len);
	put16(t + 16, csum_fold(sum));
	write_frame(s->ts, (uint32_t)(off + l4len), cls);
}

/* ------------------------------------------------------------ actors */

#define QCAP 512

typedef struct actor actor;
typedef void (*refill_fn)(actor *a);

struct actor {
	int cls;
	conn c;
	refill_fn refill; /* NULL or returns nothing more: actor done */
	pkt_spec *q; /* a ring of qcap specs */
	size_t qcap, qh, qn; /* capacity, head, count */
	bool done;
	uint64_t now; /* the time the next burst may start */
	/* TCP sequence state: client and server next seq */
	uint32_t cseq, sseq;
	/* bulk */
	uint64_t bulk_left;
	uint32_t cwnd, rtt_us;
	uint16_t rwin;
	int zw_rounds; /* rounds left in a zero-window stall */
	bool upload; /* data goes client->server */
	bool zw_flow; /* stalls on a zero window now and then */
	bool at_receiver; /* capture point on the receiving host */
	bool closed;
	uint32_t flood_left;
	int frag_kind;
	uint32_t frag_left;
	bool started; /* has written a packet (front-end mode's live count) */
	void *ext; /* front-end mode: the connection's or the DNS exchange's state */
};

static pkt_spec *qpush(actor *a)
{
	if (a->qn >= a->qcap) {
		/* grow, the ring unrolled from its head */
		size_t ncap = a->qcap * 2;
		pkt_spec *nq = malloc(ncap * sizeof(*nq));
		if (!nq)
			exit(2);
		for (size_t i = 0; i < a->qn; i++)
			nq[i] = a->q[(a->qh + i) % a->qcap];
		free(a->q);
		a->q = nq;
		a->qcap = ncap;
		a->qh = 0;
	}
	pkt_spec *s = &a->q[(a->qh + a->qn) % a->qcap];
	a->qn++;
	memset(s, 0, sizeof(*s));
	return s;
}

/* Sorts the queued specs by time (stable insertion sort; bursts are small). */
static void qsort_ts(actor *a)
{
	for (size_t i = 1; i < a->qn; i++) {
		size_t cap = a->qcap;
		pkt_spec tmp = a->q[(a->qh + i) % cap];
		size_t j = i;
		while (j > 0 && a->q[(a->qh + j - 1) % cap].ts > tmp.ts) {
			a->q[(a->qh + j) % cap] = a->q[(a->qh + j - 1) % cap];
			j--;
		}
		a->q[(a->qh + j) % cap] = tmp;
	}
}

static uint64_t head_ts(const actor *a)
{
	return a->q[a->qh].ts;
}

/* ------------------------------------------------------------ heap */

/* Actors by the time of their next packet, the time kept beside the
 * pointer (front-end captures have 10^5 actors: no cache miss per step). */
typedef struct heap_ent {
	uint64_t ts;
	actor *a;
} heap_ent;

static heap_ent *heap;
static size_t heap_n, heap_cap;

static void heap_swap(size_t i, size_t j)
{
	heap_ent t = heap[i];
	heap[i] = heap[j];
	heap[j] = t;
}

static void heap_up(size_t i)
{
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (heap[p].ts <= heap[i].ts)
			break;
		heap_swap(i, p);
		i = p;
	}
}

static void heap_down(size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < heap_n && heap[l].ts < heap[m].ts)
			m = l;
		if (r < heap_n && heap[r].ts < heap[m].ts)
			m = r;
		if (m == i)
			break;
		heap_swap(i, m);
		i = m;
	}
}

static void heap_push(actor *a)
{
	if (heap_n == heap_cap) {
		heap_cap = heap_cap ? heap_cap * 2 : 1024;
		heap = realloc(heap, heap_cap * sizeof(*heap));
		if (!heap)
			exit(2);
	}
	heap[heap_n].ts = head_ts(a);
	heap[heap_n++].a = a;
	heap_up(heap_n - 1);
}

/* ------------------------------------------------------------ addresses */

#define N_CLIENTS 6000
#define N_SERVERS 240

static uint16_t next_port[N_CLIENTS];

static void client_ep(ep *e, uint32_t i, bool v6)
{
	memset(e, 0, sizeof(*e));
	e->v6 = v6;
	if (!v6) {
		e->a[0] = 10, e->a[1] = (uint8_t)(1 + i / 250), e->a[2] = (uint8_t)(i % 250), e->a[3] = 10;
	} else {
		e->a[0] = 0x20, e->a[1] = 0x01, e->a[2] = 0x0d, e->a[3] = 0xb8;
		e->a[5] = 1;
		put16(e->a + 14, (uint16_t)(i + 1));
	}
}

static void server_ep(ep *e, uint32_t i, bool v6)
{
	memset(e, 0, sizeof(*e));
	e->v6 = v6;
	if (!v6) {
		e->a[0] = i < 120 ? 192 : 198, e->a[1] = i < 120 ? 0 : 51, e->a[2] = i < 120 ? 2 : 100;
		e->a[3] = (uint8_t)(1 + i % 120);
	} else {
		e->a[0] = 0x20, e->a[1] = 0x01, e->a[2] = 0x0d, e->a[3] = 0xb8;
		e->a[5] = 2;
		put16(e->a + 14, (uint16_t)(i + 1));
	}
}

static uint16_t client_port(uint32_t ci)
{
	uint16_t p = next_port[ci];
	if (p < 32768 || p >= 60999)
		p = (uint16_t)(32768 + rndn(28000));
	next_port[ci] = (uint16_t)(p + 1);
	return p;
}

static void new_conn(actor *a, bool v6, uint16_t sport)
{
	uint32_t ci = rndn(N_CLIENTS), si = rndn(N_SERVERS);
	client_ep(&a->c.cli, ci, v6);
	server_ep(&a->c.srv, si, v6);
	a->c.cport = client_port(ci);
	a->c.sport = sport;
	a->c.ipid[0] = (uint16_t)rnd();
	a->c.ipid[1] = (uint16_t)rnd();
	a->cseq = (uint32_t)rnd();
	a->sseq = (uint32_t)rnd();
}

/* ------------------------------------------------------------ app payloads */

static uint8_t http_req[4][160];
static uint32_t http_req_len[4];
static uint8_t http_resp_hdr[128];
static uint32_t http_resp_hdr_len;
static uint8_t tls_hello[4][320];
static uint32_t tls_hello_len[4];
static const char ssh_banner[] = "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n";

static void build_tls_hello(uint8_t *b, uint32_t *outlen, const char *sni)
{
	size_t sl = strlen(sni);
	uint8_t body[300];
	size_t n = 0;
	body[n++] = 0x03, body[n++] = 0x03; /* TLS 1.2 */
	for (int i = 0; i < 32; i++)
		body[n++] = (uint8_t)rnd();
	body[n++] = 32; /* session id */
	for (int i = 0; i < 32; i++)
		body[n++] = (uint8_t)rnd();
	static const uint16_t suites[] = {0x1301, 0x1302, 0x1303, 0xc02b, 0xc02f, 0xc02c, 0xc030, 0xcca9, 0xcca8};
	put16(body + n, (uint16_t)(2 * (sizeof(suites) / sizeof(suites[0]))));
	n += 2;
	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++, n += 2)
		put16(body + n, suites[i]);
	body[n++] = 1, body[n++] = 0; /* compression: null */
	size_t ext_len_at = n;
	n += 2;
	/* server_name */
	put16(body + n, 0);
	put16(body + n + 2, (uint16_t)(sl + 5));
	put16(body + n + 4, (uint16_t)(sl + 3));
	body[n + 6] = 0;
	put16(body + n + 7, (uint16_t)sl);
	memcpy(body + n + 9, sni, sl);
	n += 9 + sl;
	/* supported_groups */
	static const uint8_t groups[] = {0x00, 0x0a, 0x00, 0x08, 0x00, 0x06, 0x00, 0x1d, 0x00, 0x17, 0x00, 0x18};
	memcpy(body + n, groups, sizeof(groups));
	n += sizeof(groups);
	/* ec_point_formats */
	static const uint8_t pf[] = {0x00, 0x0b, 0x00, 0x02, 0x01, 0x00};
	memcpy(body + n, pf, sizeof(pf));
	n += sizeof(pf);
	/* ALPN h2, http/1.1 */
	static const uint8_t alpn[] = {0x00, 0x10, 0x00, 0x0e, 0x00, 0x0c, 0x02, 'h', '2', 0x08,
				       'h',  't',  't',  'p',  '/',  '1',  '.',  '1'};
	memcpy(body + n, alpn, sizeof(alpn));
	n += sizeof(alpn);
	/* supported_versions 1.3, 1.2 */
	static const uint8_t sv[] = {0x00, 0x2b, 0x00, 0x05, 0x04, 0x03, 0x04, 0x03, 0x03};
	memcpy(body + n, sv, sizeof(sv));
	n += sizeof(sv);
	put16(body + ext_len_at, (uint16_t)(n - ext_len_at - 2));
	/* record + handshake headers */
	b[0] = 0x16, b[1] = 0x03, b[2] = 0x01;
	put16(b + 3, (uint16_t)(n + 4));
	b[5] = 0x01;
	b[6] = 0;
	put16(b + 7, (uint16_t)n);
	memcpy(b + 9, body, n);
	*outlen = (uint32_t)(n + 9);
}

static void init_payloads(void)
{
	for (size_t i = 0; i < sizeof(randbuf); i += 8) {
		uint64_t r = rnd();
		memcpy(randbuf + i, &r, 8);
	}
	static const char *const hosts[4] = {"www.example.com", "api.example.net", "cdn.example.org",
					     "intranet.example.com"};
	static const char *const paths[4] = {"/", "/index.html", "/v1/items?page=2", "/static/app.js"};
	for (int i = 0; i < 4; i++) {
		http_req_len[i] = (uint32_t)snprintf((char *)http_req[i], sizeof(http_req[i]),
						     "GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: curl/7.88.1\r\n"
						     "Accept: */*\r\n\r\n",
						     paths[i], hosts[i]);
		build_tls_hello(tls_hello[i], &tls_hello_len[i], hosts[i]);
	}
	http_resp_hdr_len = (uint32_t)snprintf((char *)http_resp_hdr, sizeof(http_resp_hdr),
					       "HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\n"
					       "Content-Type: text/html\r\nConnection: close\r\n\r\n");
}

/* ------------------------------------------------------------ short TCP */

static pkt_spec *tcp_pkt(actor *a, uint64_t ts, int dir, uint8_t flags, uint32_t plen, const uint8_t *pd,
			 int opt)
{
	pkt_spec *s = qpush(a);
	s->ts = ts;
	s->dir = (uint8_t)dir;
	s->flags = flags;
	s->seq = dir ? a->sseq : a->cseq;
	s->ack = dir ? a->cseq : a->sseq;
	s->plen = plen;
	s->pdata = pd;
	s->opt = (uint8_t)opt;
	s->win = opt == OPT_SYN ? (dir ? 65160 : 64240) : (dir ? 501 : 2048);
	uint32_t adv = plen + ((flags & (F_SYN | F_FIN)) ? 1u : 0u);
	if (dir)
		a->sseq += adv;
	else
		a->cseq += adv;
	return s;
}

static uint32_t conn_mss(const actor *a)
{
	return a->c.cli.v6 ? MSS6 : MSS4;
}

/* The whole connection is queued at once. */
static void short_refill(actor *a)
{
	if (a->closed) {
		a->done = true;
		return;
	}
	a->closed = true;
	const uint32_t mss = conn_mss(a);
	uint64_t t = a->now;
	uint64_t rtt = (uint64_t)(2 + rndn(60)) * MS + rndn(1000) * US;
	int kind = a->c.sport == 80 ? 0 : a->c.sport == 443 ? 1 : 2;
	int variant = (int)rndn(4);
	uint32_t syn_seq = a->cseq;

	/* 1 %: the first SYN goes unanswered and is retried after 1 s */
	if (chance(0.01)) {
		tcp_pkt(a, t, 0, F_SYN, 0, NULL, OPT_SYN);
		a->cseq = syn_seq;
		t += 1 * SEC + rndn(5) * MS;
	}
	/* 1.5 %: refused */
	if (chance(0.015)) {
		tcp_pkt(a, t, 0, F_SYN, 0, NULL, OPT_SYN);
		pkt_spec *r = tcp_pkt(a, t + rtt, 1, F_RST | F_ACK, 0, NULL, OPT_NONE);
		r->seq = 0;
		r->win = 0;
		return;
	}
	tcp_pkt(a, t, 0, F_SYN, 0, NULL, OPT_SYN);
	t += rtt;
	tcp_pkt(a, t, 1, F_SYN | F_ACK, 0, NULL, OPT_SYN);
	t += 30 * US + rndn(100) * US;
	tcp_pkt(a, t, 0, F_ACK, 0, NULL, OPT_TS);
	t += 50 * US + rndn(200) * US;
	/* request */
	const uint8_t *req;
	uint32_t reqlen;
	if (kind == 0) {
		req = http_req[variant];
		reqlen = http_req_len[variant];
	} else if (kind == 1) {
		req = tls_hello[variant];
		reqlen = tls_hello_len[variant];
	} else {
		req = NULL;
		reqlen = 40 + rndn(400);
	}
	tcp_pkt(a, t, 0, F_PSH | F_ACK, reqlen, req, OPT_TS);
	t += rtt + rndn(3000) * US; /* server think time */
	/* response: 1-8 KB mostly, a long tail to 64 KB */
	uint32_t resp = 600 + rndn(6000);
	if (chance(0.1))
		resp += rndn(60000);
	uint32_t sent = 0;
	int unacked = 0;
	bool first = true;
	while (sent < resp) {
		uint32_t seg = resp - sent > mss ? mss : resp - sent;
		const uint8_t *pd = NULL;
		uint32_t hl = 0;
		if (first && kind == 0) {
			pd = http_resp_hdr;
			hl = http_resp_hdr_len;
			if (seg < hl)
				seg = hl;
		}
		uint8_t fl = F_ACK | (sent + seg >= resp ? F_PSH : 0);
		if (pd && seg > hl) {
			/* header then random body: a spec carries one source, so
			 * send the header alone first, like a server that writes it
			 * separately */
			tcp_pkt(a, t, 1, F_ACK | F_PSH, hl, pd, OPT_TS);
			sent += hl;
			first = false;
			t += 20 * US;
			unacked++;
			continue;
		}
		tcp_pkt(a, t, 1, fl, seg, pd, OPT_TS);
		first = false;
		sent += seg;
		unacked++;
		t += 15 * US + rndn(40) * US;
		if (unacked >= 2) {
			tcp_pkt(a, t + 5 * US, 0, F_ACK, 0, NULL, OPT_TS);
			unacked = 0;
		}
		if ((sent / mss) % 10 == 9)
			t += rtt; /* next flight */
	}
	if (unacked)
		tcp_pkt(a, t + 40 * MS, 0, F_ACK, 0, NULL, OPT_TS);
	t += 40 * MS + rndn(200) * MS;
	/* 3 %: the client resets instead of closing */
	if (chance(0.03)) {
		tcp_pkt(a, t, 0, F_RST | F_ACK, 0, NULL, OPT_NONE);
		return;
	}
	tcp_pkt(a, t, 0, F_FIN | F_ACK, 0, NULL, OPT_TS);
	t += rtt;
	tcp_pkt(a, t, 1, F_FIN | F_ACK, 0, NULL, OPT_TS);
	t += 40 * US;
	tcp_pkt(a, t, 0, F_ACK, 0, NULL, OPT_TS);
}

/* ------------------------------------------------------------ bulk TCP */

/* The handshake and the first message(s), timed at the capture point: the
 * client for downloads captured at the receiver and uploads captured at
 * the sender, else the server (the data rounds use the same vantage, see
 * bulk_refill). */
static void bulk_handshake(actor *a)
{
	uint64_t rtt = (uint64_t)a->rtt_us * US;
	uint64_t d = rtt / 2;
	bool at_server = a->upload ? a->at_receiver : !a->at_receiver;
	uint64_t off[2] = {at_server ? d : 0, at_server ? 0 : d}; /* by sender: client, server */
	/* send times, one clock for both hosts */
	uint64_t syn = a->now;
	uint64_t synack = syn + d + 40 * US;
	uint64_t ack = synack + d + 40 * US;
	uint64_t hello = ack + 80 * US; /* the client speaks at once */
	tcp_pkt(a, syn + off[0], 0, F_SYN, 0, NULL, OPT_SYN);
	tcp_pkt(a, synack + off[1], 1, F_SYN | F_ACK, 0, NULL, OPT_SYN);
	tcp_pkt(a, ack + off[0], 0, F_ACK, 0, NULL, OPT_TS);
	if (a->c.sport == 22) {
		/* SSH: both sides send their banner when connected */
		tcp_pkt(a, ack + d + 80 * US + off[1], 1, F_PSH | F_ACK, sizeof(ssh_banner) - 1,
			(const uint8_t *)ssh_banner, OPT_TS);
		tcp_pkt(a, hello + off[0], 0, F_PSH | F_ACK, sizeof(ssh_banner) - 1, (const uint8_t *)ssh_banner,
			OPT_TS);
	} else if (a->c.sport == 443) {
		tcp_pkt(a, hello + off[0], 0, F_PSH | F_ACK, tls_hello_len[0], tls_hello[0], OPT_TS);
	} else {
		tcp_pkt(a, hello + off[0], 0, F_PSH | F_ACK, 120, NULL, OPT_TS);
	}
	/* the sender's first round: the server once the request is in, the
	 * client once the server's answer to it could be back */
	a->now = a->upload ? hello + rtt : hello + d + 100 * US;
}

/* One round trip of data: up to cwnd segments, at most one of them lost
 * (~1 % of segments), some reordered, and the receiver's ACKs: SACKed
 * duplicate ACKs above a hole, then a fast retransmission (or an RTO when
 * too few dup ACKs come back). The capture point is the sender's host for
 * most flows (the lost segment is seen, retransmissions look like
 * retransmissions) and the receiver's host for the rest (the loss is a gap,
 * the retransmission arrives late). Now and then a zero-window stall. */
static void bulk_refill(actor *a)
{
	if (a->closed) {
		a->done = true;
		return;
	}
	int snd = a->upload ? 0 : 1, rcv = snd ^ 1;
	const uint32_t mss = conn_mss(a);
	uint32_t *sseq = snd ? &a->sseq : &a->cseq;
	uint64_t rtt = (uint64_t)a->rtt_us * US;
	uint64_t d = rtt / 2; /* one-way delay */
	uint64_t off_snd = a->at_receiver ? d : 0; /* capture time = own time + offset */
	uint64_t off_rcv = a->at_receiver ? 0 : d;
	uint64_t t = a->now; /* sender's clock: the round starts */
	uint64_t gap = 12 * US + rndn(20) * US; /* ~1 Gbit/s serialisation + jitter */

	if (a->bulk_left == 0) {
		/* close: sender FIN, receiver FIN, sender ACK */
		tcp_pkt(a, t + off_snd, snd, F_FIN | F_ACK, 0, NULL, OPT_TS);
		tcp_pkt(a, t + d + 100 * US + off_rcv, rcv, F_FIN | F_ACK, 0, NULL, OPT_TS);
		tcp_pkt(a, t + rtt + 150 * US + off_snd, snd, F_ACK, 0, NULL, OPT_TS);
		a->closed = true;
		return;
	}

	if (a->zw_rounds > 0) {
		/* zero window: the sender probes, the receiver keeps win 0 */
		tcp_pkt(a, t + off_snd, snd, F_ACK, 1, NULL, OPT_TS);
		*sseq -= 1; /* the probe byte is not accepted */
		pkt_spec *r = tcp_pkt(a, t + d + 60 * US + off_rcv, rcv, F_ACK, 0, NULL, OPT_TS);
		r->win = 0;
		a->zw_rounds--;
		if (a->zw_rounds == 0) {
			pkt_spec *u = tcp_pkt(a, t + d + 200 * MS + rndn(100) * MS + off_rcv, rcv, F_ACK, 0, NULL,
					      OPT_TS);
			u->win = a->rwin;
			a->now = u->ts - off_rcv + d;
		} else {
			a->now = t + 200 * MS * (uint64_t)(2 + (3 - a->zw_rounds % 4)); /* backoff */
		}
		return;
	}

	uint32_t n = a->cwnd;
	uint32_t lost = UINT32_MAX, swap = UINT32_MAX;
	/* ~1 % of segments lost: in a round of n, lose one with p = n/100 */
	if (n >= 6 && rndf() < n * 0.01)
		lost = 1 + rndn(n - 4);
	if (rndf() < n * 0.004)
		swap = rndn(n - 1);
	uint32_t base = *sseq;
	uint32_t sent_bytes = 0;
	uint32_t seg_seq[64];
	uint32_t seg_len[64];
	for (uint32_t i = 0; i < n; i++) {
		uint32_t len = a->bulk_left - sent_bytes > mss ? mss : (uint32_t)(a->bulk_left - sent_bytes);
		if (len == 0) {
			n = i;
			break;
		}
		seg_seq[i] = base + sent_bytes;
		seg_len[i] = len;
		sent_bytes += len;
	}
	if (lost != UINT32_MAX && lost >= n)
		lost = UINT32_MAX;
	if (swap != UINT32_MAX && swap + 1 >= n)
		swap = UINT32_MAX;
	*sseq = base + sent_bytes;
	a->bulk_left -= sent_bytes;
	uint32_t rcv_seq = rcv ? a->sseq : a->cseq, snd_ack = snd ? a->cseq : a->sseq;

	/* the sender's segments, in sending order */
	for (uint32_t i = 0; i < n; i++) {
		uint64_t sent_at = t + (i + 1) * gap;
		uint64_t cap;
		if (a->at_receiver) {
			if (i == lost)
				continue;
			/* a swapped pair arrives the other way round */
			uint32_t k = i;
			if (swap != UINT32_MAX && i == swap)
				k = i + 1;
			else if (swap != UINT32_MAX && i == swap + 1)
				k = i - 1;
			cap = t + d + (k + 1) * gap;
		} else {
			cap = sent_at;
		}
		pkt_spec *s = qpush(a);
		s->ts = cap;
		s->dir = (uint8_t)snd;
		s->flags = F_ACK | (i == n - 1 ? F_PSH : 0);
		s->seq = seg_seq[i];
		s->ack = snd_ack;
		s->plen = seg_len[i];
		s->opt = OPT_TS;
		s->win = 501;
	}

	/* the receiver, in arrival order (receiver's clock) */
	uint32_t rcv_next = base;
	bool got[64] = {false};
	int since_ack = 0, dups = 0;
	uint64_t third_dup = 0, last_r = t + d;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = k;
		if (swap != UINT32_MAX && k == swap)
			i = k + 1;
		else if (swap != UINT32_MAX && k == swap + 1)
			i = k - 1;
		uint64_t r_at = t + d + (k + 1) * gap + 8 * US;
		if (i == lost)
			continue;
		got[i] = true;
		uint32_t prev_next = rcv_next;
		while (rcv_next - base < sent_bytes) {
			uint32_t j = (rcv_next - base) / mss;
			if (!got[j])
				break;
			rcv_next = seg_seq[j] + seg_len[j];
		}
		pkt_spec *r = NULL;
		if (rcv_next != prev_next && rcv_next == seg_seq[i] + seg_len[i] &&
		    !(lost != UINT32_MAX && i > lost)) {
			if (++since_ack >= 2 || k == n - 1) {
				r = qpush(a);
				since_ack = 0;
				r->opt = OPT_TS;
			}
		} else if (rcv_next != prev_next) {
			/* a reordered segment filled the hole: ACK at once */
			r = qpush(a);
			r->opt = OPT_TS;
			since_ack = 0;
		} else {
			/* above a hole: duplicate ACK with a SACK block */
			r = qpush(a);
			r->opt = OPT_TS_SACK;
			uint32_t lo = i, hi = i;
			while (lo > 0 && got[lo - 1] && seg_seq[lo - 1] != rcv_next)
				lo--;
			while (hi + 1 < n && got[hi + 1])
				hi++;
			r->sack_l = seg_seq[lo];
			r->sack_r = seg_seq[hi] + seg_len[hi];
			if (lost != UINT32_MAX && ++dups == 3)
				third_dup = r_at;
		}
		if (r) {
			r->ts = r_at + off_rcv;
			r->dir = (uint8_t)rcv;
			r->flags = F_ACK;
			r->seq = rcv_seq;
			r->ack = rcv_next;
			r->win = a->rwin;
			last_r = r_at;
		}
	}
	if (lost != UINT32_MAX) {
		/* the sender retransmits when the third dup ACK reaches it, or on RTO */
		uint64_t rt = third_dup ? third_dup + d + 30 * US : t + (lost + 1) * gap + 200 * MS + rtt;
		pkt_spec *s = qpush(a);
		s->ts = rt + off_snd;
		s->dir = (uint8_t)snd;
		s->flags = F_ACK;
		s->seq = seg_seq[lost];
		s->ack = snd_ack;
		s->plen = seg_len[lost];
		s->opt = OPT_TS;
		s->win = 501;
		uint64_t r_at = rt + d + 8 * US;
		pkt_spec *r = qpush(a);
		r->ts = r_at + off_rcv;
		r->dir = (uint8_t)rcv;
		r->flags = F_ACK;
		r->seq = rcv_seq;
		r->ack = base + sent_bytes;
		r->opt = OPT_TS;
		r->win = a->rwin;
		last_r = r_at;
		if (a->cwnd > 8)
			a->cwnd /= 2;
	} else if (a->cwnd < 44) {
		a->cwnd += 2;
	}
	a->now = last_r + d; /* the last ACK reaches the sender */
	/* one flow in eight stalls on a zero window now and then */
	if (a->zw_flow && chance(0.02)) {
		a->zw_rounds = 2 + (int)rndn(4);
		pkt_spec *r = tcp_pkt(a, last_r + 20 * US + off_rcv, rcv, F_ACK, 0, NULL, OPT_TS);
		r->win = 0;
		a->now = last_r + d + 200 * MS;
	}
}

static void bulk_start(actor *a)
{
	a->cls = CL_BULK;
	static const uint16_t ports[] = {443, 443, 443, 22, 445, 873};
	uint16_t sp = ports[rndn(sizeof(ports) / sizeof(ports[0]))];
	new_conn(a, chance(0.08), sp);
	a->rtt_us = 5000 + rndn(80000);
	a->cwnd = 10;
	a->bulk_left = 500000 + rndn(3000000);
	a->upload = chance(0.2);
	a->rwin = 501; /* x 2^7 = 64 KB */
	a->zw_flow = chance(0.125);
	a->at_receiver = chance(0.3);
	a->refill = bulk_refill;
	bulk_handshake(a);
}

/* ------------------------------------------------------------ SYN flood */

#define FLOOD_RATE 20000.0 /* SYN/s */

static void flood_refill(actor *a)
{
	if (a->flood_left == 0) {
		a->done = true;
		return;
	}
	uint64_t t = a->now;
	for (int i = 0; i < 64 && a->flood_left; i++) {
		a->flood_left--;
		/* spoofed source: a fresh random address and port for each SYN */
		uint32_t src = 0x0b000000u + rndn(0x3f000000u); /* 11.0.0.0 .. 73.255.255.255 */
		pkt_spec *s = qpush(a);
		s->ts = t;
		s->dir = 0;
		s->flags = F_SYN;
		s->seq = (uint32_t)rnd();
		s->win = 1024;
		s->opt = OPT_NONE;
		/* address and port ride in the fields a flood SYN does not use */
		s->sack_l = src;
		s->sack_r = 1024 + rndn(64000);
		if (rndn(2)) {
			pkt_spec *r = qpush(a);
			r->ts = t + 20 * US;
			r->dir = 1;
			r->flags = F_SYN | F_ACK;
			r->seq = (uint32_t)rnd();
			r->ack = s->seq + 1;
			r->win = 65160;
			r->opt = OPT_SYN;
			r->sack_l = src;
			r->sack_r = s->sack_r;
		}
		t += rnd_exp(SEC / FLOOD_RATE) + 1;
	}
	a->now = t;
}

static void flood_emit(actor *a, const pkt_spec *s)
{
	conn c = a->c;
	c.cli.v6 = false;
	memset(c.cli.a, 0, 16);
	put32(c.cli.a, s->sack_l);
	c.cport = (uint16_t)s->sack_r;
	pkt_spec x = *s;
	x.sack_l = x.sack_r = 0;
	emit_tcp(&c, &x, CL_FLOOD);
}

/* ------------------------------------------------------------ UDP */

static uint8_t dns_q[64], dns_r[96];
static uint32_t dns_q_len, dns_r_len;

static void init_dns(void)
{
	static const uint8_t qname[] = {3, 'w', 'w', 'w', 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0};
	uint8_t *q = dns_q;
	put16(q, 0x1234);
	put16(q + 2, 0x0100);
	put16(q + 4, 1);
	put16(q + 6, 0), put16(q + 8, 0), put16(q + 10, 0);
	memcpy(q + 12, qname, sizeof(qname));
	put16(q + 12 + sizeof(qname), 1);
	put16(q + 14 + sizeof(qname), 1);
	dns_q_len = 16 + sizeof(qname);
	memcpy(dns_r, dns_q, dns_q_len);
	put16(dns_r + 2, 0x8180);
	put16(dns_r + 6, 1);
	uint8_t *an = dns_r + dns_q_len;
	put16(an, 0xc00c);
	put16(an + 2, 1), put16(an + 4, 1);
	put32(an + 6, 300);
	put16(an + 10, 4);
	an[12] = 93, an[13] = 184, an[14] = 216, an[15] = 34;
	dns_r_len = dns_q_len + 16;
}

static void emit_udp(const conn *c, int dir, uint64_t ts, const uint8_t *pd, uint32_t plen, int cls)
{
	const ep *src = dir ? &c->srv : &c->cli, *dst = dir ? &c->cli : &c->srv;
	size_t l4len = 8 + plen;
	size_t off = put_l2l3(src, dst, 17, l4len, dir == 1, (uint16_t)(c->ipid[dir] + (uint16_t)ts), c->ttl[dir]);
	uint8_t *u = frame + off;
	put16(u, dir ? c->sport : c->cport);
	put16(u + 2, dir ? c->cport : c->sport);
	put16(u + 4, (uint16_t)l4len);
	put16(u + 6, 0);
	memcpy(u + 8, pd, plen);
	uint32_t sum = csum_add(pseudo_sum(src, dst, 17, l4len), u, l4len);
	uint16_t cs = csum_fold(sum);
	put16(u + 6, cs ? cs : 0xffff);
	write_frame(ts, (uint32_t)(off + l4len), cls);
}

/* DNS: a query and its answer; the actor is queue-less (see main loop). */
static void dns_refill(actor *a)
{
	if (a->closed) {
		a->done = true;
		return;
	}
	a->closed = true;
	pkt_spec *q = qpush(a);
	q->ts = a->now;
	q->dir = 0;
	pkt_spec *r = qpush(a);
	r->ts = a->now + 1 * MS + rndn(30) * MS;
	r->dir = 1;
}

/* One fragmented UDP datagram of 3-6 KB from the server per round, a
 * handful of rounds per flow; one in six is sent last fragment first. */
static void frag_refill(actor *a)
{
	if (a->frag_left == 0) {
		a->done = true;
		return;
	}
	a->frag_left--;
	pkt_spec *q = qpush(a);
	q->ts = a->now;
	q->dir = 0; /* small request */
	q->plen = 100;
	pkt_spec *r = qpush(a);
	r->ts = a->now + 500 * US + rndn(2000) * US;
	r->dir = 1;
	r->plen = 3000 + rndn(3000);
	r->flags = chance(1.0 / 6) ? 1 : 0; /* reversed fragment order */
	a->now = r->ts + 10 * MS + rndn(300) * MS;
}

/* Writes the datagram as fragments (their times 10 us apart). */
static void emit_frag_datagram(actor *a, const pkt_spec *s)
{
	const conn *c = &a->c;
	uint32_t dlen = 8 + s->plen; /* UDP header + payload */
	uint8_t dgram[8 + 6000];
	put16(dgram, c->sport);
	put16(dgram + 2, c->cport);
	put16(dgram + 4, (uint16_t)dlen);
	put16(dgram + 6, 0);
	uint32_t start = (uint32_t)(s->ts & (sizeof(randbuf) - 1));
	for (uint32_t i = 0; i < s->plen; i++)
		dgram[8 + i] = randbuf[(start + i) & (sizeof(randbuf) - 1)];
	uint32_t sum = csum_add(pseudo_sum(&c->srv, &c->cli, 17, dlen), dgram, dlen);
	uint16_t cs = csum_fold(sum);
	put16(dgram + 6, cs ? cs : 0xffff);
	bool v6 = c->srv.v6;
	uint32_t chunk = v6 ? 1448 : 1480;
	uint32_t nfrag = (dlen + chunk - 1) / chunk;
	uint16_t id = (uint16_t)(a->c.ipid[1]++);
	for (uint32_t k = 0; k < nfrag; k++) {
		uint32_t fi = s->flags ? nfrag - 1 - k : k;
		uint32_t foff = fi * chunk;
		uint32_t flen = dlen - foff > chunk ? chunk : dlen - foff;
		bool more = fi + 1 < nfrag;
		size_t off;
		memcpy(frame, mac_client, 6);
		memcpy(frame + 6, mac_router, 6);
		if (!v6) {
			put16(frame + 12, 0x0800);
			uint8_t *ip = frame + 14;
			ip[0] = 0x45;
			ip[1] = 0;
			put16(ip + 2, (uint16_t)(20 + flen));
			put16(ip + 4, id);
			put16(ip + 6, (uint16_t)((more ? 0x2000 : 0) | (foff / 8)));
			ip[8] = 57;
			ip[9] = 17;
			put16(ip + 10, 0);
			memcpy(ip + 12, c->srv.a, 4);
			memcpy(ip + 16, c->cli.a, 4);
			put16(ip + 10, csum_fold(csum_add(0, ip, 20)));
			off = 34;
		} else {
			put16(frame + 12, 0x86dd);
			uint8_t *ip = frame + 14;
			put32(ip, 0x60000000);
			put16(ip + 4, (uint16_t)(8 + flen));
			ip[6] = 44; /* fragment header */
			ip[7] = 57;
			memcpy(ip + 8, c->srv.a, 16);
			memcpy(ip + 24, c->cli.a, 16);
			uint8_t *fh = ip + 40;
			fh[0] = 17;
			fh[1] = 0;
			put16(fh + 2, (uint16_t)(foff | (more ? 1 : 0)));
			put32(fh + 4, 0x10000u + id);
			off = 14 + 48;
		}
		memcpy(frame + off, dgram + foff, flen);
		write_frame(s->ts + k * 10 * US, (uint32_t)(off + flen), CL_FRAG);
	}
}

/* ------------------------------------------------------------ front end */

/* --frontend LIVE: the capture of a busy front end (a reverse proxy or
 * load balancer), taken on it: many clients hold HTTP/1.1 keep-alive
 * connections (80 % TLS 1.3 on 443, the rest plain HTTP on 80) to a few
 * virtual IPs, 1-8 request/response exchanges each with idle times of
 * seconds to minutes between them, then the client closes (FIN or RST) or
 * the server's keep-alive timeout does (now and then to a client that has
 * gone: FINs retransmitted into the void). Beside them a few bulk TLS
 * downloads and uploads with ~1 % loss (bulk_refill) and the front end's
 * own DNS queries. Every byte an application-protocol library looks at is
 * real: TLS ClientHello (SNI, ALPN, key_share; PSK when resumed) and
 * ServerHello records, TLS application-data record framing, HTTP/1.1
 * requests and responses with a correct Content-Length. Connections arrive
 * at LIVE / (mean lifetime) per second, so LIVE connections are alive at
 * once once the capture is longer than most lifetimes (a few minutes). */

#define TLS_REC_MAX (5 + 16384 + 17) /* a full TLS 1.3 record: header, plaintext, type + tag */

static uint8_t textbuf[1 << 16]; /* plain HTTP bodies: text */

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

/* Log-uniform in [lo, hi). */
static double logu(double lo, double hi)
{
	return lo * __builtin_exp(rndf() * __builtin_log(hi / lo));
}

/* A message's payload bytes: the plaintext header pdata[0..hl), then text
 * (PK_TEXT) or TLS application-data records of at most TLS_REC_MAX bytes,
 * the last one shorter (PK_TLS), random bytes by sequence number inside
 * records. Bulk data of a TLS stream is one endless message. */
static void fill_message(uint8_t *p, const pkt_spec *s, const conn *c)
{
	uint32_t len = s->plen, moff = s->moff, mlen = s->mlen, hl = s->hl;
	uint8_t pk = s->pk;
	const uint8_t *pd = s->pdata;
	if (pk == PK_SEQ) {
		pk = PK_TLS;
		moff = s->seq - c->tls_base[s->dir];
		mlen = UINT32_MAX;
		hl = 0;
		pd = NULL;
	}
	const uint8_t *src = pk == PK_TEXT ? textbuf : randbuf;
	uint32_t start = s->seq & 0xffffu, left = len;
	uint8_t *q = p;
	while (left) {
		uint32_t k = 0x10000u - start;
		if (k > left)
			k = left;
		memcpy(q, src + start, k);
		q += k;
		left -= k;
		start = 0;
	}
	if (moff < hl) {
		uint32_t n = hl - moff;
		memcpy(p, pd + moff, n < len ? n : len);
	}
	if (pk != PK_TLS || (uint64_t)moff + len <= hl)
		return;
	uint64_t lo = moff > hl ? moff - hl : 0, hi = (uint64_t)moff + len - hl, bl = (uint64_t)mlen - hl;
	for (uint64_t r = lo / TLS_REC_MAX * TLS_REC_MAX; r < hi; r += TLS_REC_MAX) {
		uint64_t tot = bl - r < TLS_REC_MAX ? bl - r : TLS_REC_MAX;
		const uint8_t h[5] = {0x17, 0x03, 0x03, (uint8_t)((tot - 5) >> 8), (uint8_t)(tot - 5)};
		for (uint64_t i = 0; i < 5; i++)
			if (r + i >= lo && r + i < hi)
				p[r + i + hl - moff] = h[i];
	}
}

/* TLS 1.3 application data carrying plain bytes of plaintext: records of
 * 16 KiB, each with its header, content type and tag. */
static uint32_t tls_wrap(uint32_t plain)
{
	uint32_t n = plain ? (plain + 16383) / 16384 : 1;
	return plain + n * 22;
}

/* The names the front end serves (SNI and Host), and others now and then. */
static const char *const fe_hosts[] = {"www.shop.example",     "api.shop.example",    "static.shop.example",
				       "img.cdn.shop.example", "auth.shop.example",   "m.shop.example",
				       "partner-api.example.net", "ws.shop.example"};
#define N_HELLO 32 /* ClientHello variants: odd ones resume a session (PSK) */
#define N_SHELLO 16 /* ServerHello + CCS prefixes: odd ones accept the PSK */
#define N_REQ 128 /* HTTP request variants */

static uint8_t fe_hello[N_HELLO][640];
static uint32_t fe_hello_len[N_HELLO];
static uint8_t fe_shello[N_SHELLO][160];
static uint16_t fe_shello_len[N_SHELLO];
static uint8_t *fe_req[N_REQ]; /* header, then the body is text (POST) */
static uint16_t fe_req_hl[N_REQ];
static uint32_t fe_req_len[N_REQ];
static const uint8_t tls_ccs[6] = {0x14, 0x03, 0x03, 0x00, 0x01, 0x01};

static size_t put_ext(uint8_t *b, uint16_t type, const uint8_t *d, uint16_t n)
{
	put16(b, type);
	put16(b + 2, n);
	if (n)
		memcpy(b + 4, d, n);
	return 4u + n;
}

/* A browser-like TLS 1.3 ClientHello record (resumed: with a PSK). */
static uint32_t fe_build_hello(uint8_t *b, const char *sni, bool resume)
{
	uint8_t body[600], tmp[300];
	size_t n = 0;
	body[n++] = 0x03, body[n++] = 0x03;
	for (int i = 0; i < 32; i++)
		body[n++] = (uint8_t)rnd();
	body[n++] = 32; /* legacy session id */
	for (int i = 0; i < 32; i++)
		body[n++] = (uint8_t)rnd();
	static const uint16_t suites[] = {0x1301, 0x1302, 0x1303, 0xc02b, 0xc02f, 0xc02c, 0xc030, 0xcca9,
					  0xcca8, 0xc013, 0xc014, 0x009c, 0x009d, 0x002f, 0x0035};
	put16(body + n, (uint16_t)(2 * (sizeof(suites) / sizeof(suites[0]))));
	n += 2;
	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++, n += 2)
		put16(body + n, suites[i]);
	body[n++] = 1, body[n++] = 0;
	size_t ext_at = n;
	n += 2;
	size_t sl = strlen(sni);
	put16(tmp, (uint16_t)(sl + 3));
	tmp[2] = 0;
	put16(tmp + 3, (uint16_t)sl);
	memcpy(tmp + 5, sni, sl);
	n += put_ext(body + n, 0x0000, tmp, (uint16_t)(sl + 5)); /* server_name */
	n += put_ext(body + n, 0x0017, NULL, 0); /* extended_master_secret */
	static const uint8_t reneg[] = {0};
	n += put_ext(body + n, 0xff01, reneg, 1);
	static const uint8_t groups[] = {0x00, 0x06, 0x00, 0x1d, 0x00, 0x17, 0x00, 0x18};
	n += put_ext(body + n, 0x000a, groups, sizeof(groups));
	static const uint8_t pf[] = {0x01, 0x00};
	n += put_ext(body + n, 0x000b, pf, sizeof(pf));
	n += put_ext(body + n, 0x0023, NULL, 0); /* session_ticket */
	static const uint8_t alpn[] = {0x00, 0x0c, 0x02, 'h', '2', 0x08, 'h', 't', 't', 'p', '/', '1', '.', '1'};
	n += put_ext(body + n, 0x0010, alpn, sizeof(alpn));
	static const uint8_t status[] = {0x01, 0x00, 0x00, 0x00, 0x00};
	n += put_ext(body + n, 0x0005, status, sizeof(status));
	static const uint8_t sigalgs[] = {0x00, 0x10, 0x04, 0x03, 0x08, 0x04, 0x04, 0x01, 0x05,
					  0x03, 0x08, 0x05, 0x05, 0x01, 0x08, 0x06, 0x06, 0x01};
	n += put_ext(body + n, 0x000d, sigalgs, sizeof(sigalgs));
	put16(tmp, 36);
	put16(tmp + 2, 0x001d);
	put16(tmp + 4, 32);
	for (int i = 0; i < 32; i++)
		tmp[6 + i] = (uint8_t)rnd();
	n += put_ext(body + n, 0x0033, tmp, 38); /* key_share: x25519 */
	static const uint8_t pskm[] = {0x01, 0x01};
	n += put_ext(body + n, 0x002d, pskm, sizeof(pskm));
	static const uint8_t sv[] = {0x04, 0x03, 0x04, 0x03, 0x03};
	n += put_ext(body + n, 0x002b, sv, sizeof(sv));
	if (resume) {
		/* pre_shared_key, last: one identity (a 192-byte ticket), one binder */
		uint16_t tl = 192;
		put16(tmp, (uint16_t)(2 + tl + 4));
		put16(tmp + 2, tl);
		for (int i = 0; i < tl; i++)
			tmp[4 + i] = (uint8_t)rnd();
		put32(tmp + 4 + tl, (uint32_t)rnd());
		size_t k = 8u + tl;
		put16(tmp + k, 33);
		tmp[k + 2] = 32;
		for (int i = 0; i < 32; i++)
			tmp[k + 3 + i] = (uint8_t)rnd();
		n += put_ext(body + n, 0x0029, tmp, (uint16_t)(k + 35));
	}
	put16(body + ext_at, (uint16_t)(n - ext_at - 2));
	b[0] = 0x16, b[1] = 0x03, b[2] = 0x01;
	put16(b + 3, (uint16_t)(n + 4));
	b[5] = 0x01;
	b[6] = 0;
	put16(b + 7, (uint16_t)n);
	memcpy(b + 9, body, n);
	return (uint32_t)(n + 9);
}

/* A TLS 1.3 ServerHello record then ChangeCipherSpec. */
static uint16_t fe_build_shello(uint8_t *b, bool psk)
{
	uint8_t *h = b + 9;
	size_t n = 0;
	h[n++] = 0x03, h[n++] = 0x03;
	for (int i = 0; i < 32; i++)
		h[n++] = (uint8_t)rnd();
	h[n++] = 32;
	for (int i = 0; i < 32; i++)
		h[n++] = (uint8_t)rnd();
	put16(h + n, psk ? 0x1301 : 0x1302);
	n += 2;
	h[n++] = 0;
	size_t ext_at = n;
	n += 2;
	static const uint8_t sv[] = {0x03, 0x04};
	n += put_ext(h + n, 0x002b, sv, 2);
	uint8_t ks[36];
	put16(ks, 0x001d);
	put16(ks + 2, 32);
	for (int i = 0; i < 32; i++)
		ks[4 + i] = (uint8_t)rnd();
	n += put_ext(h + n, 0x0033, ks, sizeof(ks));
	if (psk) {
		static const uint8_t id0[] = {0x00, 0x00};
		n += put_ext(h + n, 0x0029, id0, 2);
	}
	put16(h + ext_at, (uint16_t)(n - ext_at - 2));
	b[0] = 0x16, b[1] = 0x03, b[2] = 0x03;
	put16(b + 3, (uint16_t)(n + 4));
	b[5] = 0x02;
	b[6] = 0;
	put16(b + 7, (uint16_t)n);
	memcpy(b + 9 + n, tls_ccs, sizeof(tls_ccs));
	return (uint16_t)(9 + n + sizeof(tls_ccs));
}

static void fe_init_payloads(void)
{
	static const char *const words[] = {"the", "order", "item", "cart", "price", "shipping", "user", "session",
					    "value", "page", "result", "status", "image", "size", "color", "total",
					    "review", "stock", "city", "delivery", "offer", "account", "name", "id"};
	size_t nw = sizeof(words) / sizeof(words[0]), n = 0;
	while (n < sizeof(textbuf)) {
		const char *w = words[rndn((uint32_t)nw)];
		for (size_t i = 0; w[i] && n < sizeof(textbuf); i++)
			textbuf[n++] = (uint8_t)w[i];
		if (n < sizeof(textbuf))
			textbuf[n++] = rndn(12) ? ' ' : '\n';
	}
	for (int v = 0; v < N_HELLO; v++) {
		const char *sni = fe_hosts[rndn(10) ? rndn(6) : 6 + rndn(2)];
		fe_hello_len[v] = fe_build_hello(fe_hello[v], sni, v & 1);
	}
	for (int v = 0; v < N_SHELLO; v++)
		fe_shello_len[v] = fe_build_shello(fe_shello[v], v & 1);
	static const char *const agents[] = {
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
		"Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1",
		"okhttp/4.12.0",
		"ShopApp/5.14.2 (Android 14; Pixel 7)",
		"python-requests/2.31.0"};
	static const char *const langs[] = {"en-US,en;q=0.9", "de-DE,de;q=0.8,en;q=0.5", "fr-FR,fr;q=0.9", "*"};
	for (int v = 0; v < N_REQ; v++) {
		char path[128], cookie[512] = "";
		switch (rndn(8)) {
		case 0:
			snprintf(path, sizeof(path), "/");
			break;
		case 1:
			snprintf(path, sizeof(path), "/api/v2/items/%u", 1000 + rndn(900000));
			break;
		case 2:
			snprintf(path, sizeof(path), "/api/v1/users/%u/cart", rndn(5000000));
			break;
		case 3:
			snprintf(path, sizeof(path), "/static/js/app.%08x.js", (unsigned)rnd());
			break;
		case 4:
			snprintf(path, sizeof(path), "/img/p/%u/%u.webp", rndn(1000), rndn(100000));
			break;
		case 5:
			snprintf(path, sizeof(path), "/search?q=%s+%s&page=%u", words[rndn((uint32_t)nw)],
				 words[rndn((uint32_t)nw)], 1 + rndn(9));
			break;
		case 6:
			snprintf(path, sizeof(path), "/api/v1/session/refresh");
			break;
		default:
			snprintf(path, sizeof(path), "/api/v2/recommendations?user=%u&n=%u", rndn(5000000),
				 10 + rndn(40));
			break;
		}
		if (rndn(10) < 6) {
			static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
			uint32_t cl = 32 + rndn(300);
			size_t k = (size_t)snprintf(cookie, sizeof(cookie), "Cookie: session=");
			for (uint32_t i = 0; i < cl; i++)
				cookie[k++] = b64[rndn(64)];
			cookie[k++] = '\r', cookie[k++] = '\n', cookie[k] = 0;
		}
		bool post = rndn(100) < 12;
		uint32_t body = post ? 100 + rndn(3000) : 0;
		char clen[64] = "";
		if (post)
			snprintf(clen, sizeof(clen), "Content-Type: text/plain\r\nContent-Length: %u\r\n", body);
		char *h = malloc(1400);
		if (!h)
			exit(2);
		int hl = snprintf(h, 1400,
				  "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: %s\r\nAccept: */*\r\n"
				  "Accept-Encoding: gzip, deflate, br\r\nAccept-Language: %s\r\n%s%s\r\n",
				  post ? "POST" : "GET", path, fe_hosts[rndn(6)], agents[rndn(6)], langs[rndn(4)], cookie,
				  clen);
		fe_req[v] = (uint8_t *)h;
		fe_req_hl[v] = (uint16_t)hl;
		fe_req_len[v] = (uint32_t)hl + body;
	}
}

/* Clients: 10 % IPv6; IPv4 ones in 198.18.0.0/15 then 100.64.0.0/10. Each
 * has its own RTT, TTL, MSS and window scale (a hash of its index). */
static uint32_t fe_nclients;
static uint16_t *fe_next_port;

typedef struct fe_client {
	ep e;
	uint64_t rtt;
	uint8_t ttl, ws;
	uint16_t mss;
} fe_client;

static void fe_client_get(fe_client *c, uint32_t i)
{
	uint64_t h = mix64(i + UINT64_C(0x5bd1e995));
	memset(c, 0, sizeof(*c));
	c->e.v6 = h % 10 == 0;
	if (c->e.v6) {
		c->e.a[0] = 0x20, c->e.a[1] = 0x01, c->e.a[2] = 0x0d, c->e.a[3] = 0xb8;
		c->e.a[4] = 0xc0;
		put32(c->e.a + 12, i + 1);
		c->mss = 1440;
	} else {
		uint32_t j = i < 131072 ? i : i - 131072;
		c->e.a[0] = i < 131072 ? 198 : 100;
		c->e.a[1] = (uint8_t)((i < 131072 ? 18 : 64) + (j >> 16));
		c->e.a[2] = (uint8_t)(j >> 8);
		c->e.a[3] = (uint8_t)j;
		static const uint16_t mss[10] = {1460, 1460, 1460, 1460, 1460, 1460, 1460, 1400, 1380, 1360};
		c->mss = mss[(h >> 8) % 10];
	}
	/* 5-200 ms, log-uniform */
	c->rtt = (uint64_t)(5.0 * MS * __builtin_exp((double)((h >> 16) & 0xffff) / 65536.0 * __builtin_log(40.0)));
	c->ttl = (uint8_t)(((h >> 32) % 10 < 7 ? 64 : 128) - 6 - (h >> 40) % 18);
	static const uint8_t ws[4] = {7, 8, 6, 10};
	c->ws = ws[(h >> 48) % 4];
}

/* Virtual IPs: four IPv4, one IPv6, each with its keep-alive timeout. */
#define N_VIPS 5
static const uint64_t vip_keepalive[N_VIPS] = {60 * SEC, 75 * SEC, 120 * SEC, 240 * SEC, 120 * SEC};

static void fe_vip(ep *e, uint32_t v)
{
	memset(e, 0, sizeof(*e));
	if (v < 4) {
		e->a[0] = 203, e->a[1] = 0, e->a[2] = 113, e->a[3] = (uint8_t)(10 + v);
	} else {
		e->v6 = true;
		e->a[0] = 0x20, e->a[1] = 0x01, e->a[2] = 0x0d, e->a[3] = 0xb8;
		e->a[4] = 0xf0;
		e->a[15] = 0x10;
	}
}

enum { FE_END_CLIENT, FE_END_RST, FE_END_SERVER, FE_END_VANISHED };

typedef struct fe_conn {
	uint64_t rtt, keepalive, final;
	uint32_t gap_ms[8]; /* idle before exchange i + 1 */
	uint32_t mss; /* segment payload */
	uint8_t n, done; /* exchanges planned, done */
	uint8_t tls, resumed, end;
	uint16_t rhl;
	uint8_t rhdr[320]; /* the current response's header */
} fe_conn;

/* Idle time between exchanges: page assets a moment apart, or the user
 * (or the app's poll) back after seconds to minutes. */
static uint64_t fe_gap(void)
{
	return (uint64_t)((chance(0.3) ? logu(0.2, 3.0) : logu(3.0, 180.0)) * SEC);
}

/* How the connection goes: 1-8 exchanges and the idle times between them;
 * an idle time longer than the server's keep-alive timeout ends it there. */
static void fe_plan(fe_conn *f)
{
	static const uint8_t w[8] = {22, 18, 15, 13, 11, 9, 7, 5};
	uint32_t r = rndn(100), n = 1;
	while (n < 8 && r >= w[n - 1])
		r -= w[n - 1], n++;
	f->n = (uint8_t)n;
	for (uint32_t i = 0; i + 1 < n; i++) {
		uint64_t g = fe_gap();
		if (g >= f->keepalive) {
			f->n = (uint8_t)(i + 1);
			f->end = FE_END_SERVER;
			f->final = f->keepalive;
			return;
		}
		f->gap_ms[i] = (uint32_t)(g / MS);
	}
	uint64_t g = fe_gap();
	if (g >= f->keepalive) {
		f->end = chance(0.06) ? FE_END_VANISHED : FE_END_SERVER;
		f->final = f->keepalive;
	} else {
		f->end = chance(0.12) ? FE_END_RST : FE_END_CLIENT;
		f->final = g;
	}
}

static uint64_t fe_lifetime(const fe_conn *f)
{
	uint64_t l = f->final + (uint64_t)f->n * 150 * MS;
	for (int i = 0; i + 1 < f->n; i++)
		l += (uint64_t)f->gap_ms[i] * MS;
	return l;
}

static pkt_spec *fe_seg(actor *a, uint64_t ts, int dir, uint8_t flags, uint32_t len, uint8_t pk,
			const uint8_t *pd, uint16_t hl, uint32_t moff, uint32_t mlen)
{
	pkt_spec *s = tcp_pkt(a, ts, dir, flags, len, pd, OPT_TS);
	s->pk = pk;
	s->hl = hl;
	s->moff = moff;
	s->mlen = mlen;
	return s;
}

/* The server sends a message (times at the server, where the capture is):
 * slow start from 10 segments, the client ACKs every second segment one
 * RTT later, and delays the ACK of an odd last one by 40 ms unless it has
 * something to send at once (more). Returns the last segment's time. */
static uint64_t fe_server_msg(actor *a, uint64_t t, uint8_t pk, const uint8_t *pd, uint16_t hl, uint32_t mlen,
			      bool more)
{
	fe_conn *f = a->ext;
	uint32_t sent = 0, cwnd = 10, k = 0;
	uint64_t round = t, last = t, gap = 12 * US;
	while (sent < mlen) {
		for (uint32_t i = 0; i < cwnd && sent < mlen; i++) {
			uint32_t seg = mlen - sent > f->mss ? f->mss : mlen - sent;
			last = round + i * gap;
			fe_seg(a, last, 1, F_ACK | (sent + seg == mlen ? F_PSH : 0), seg, pk, pd, hl, sent, mlen);
			sent += seg;
			if (++k % 2 == 0)
				tcp_pkt(a, last + f->rtt + 30 * US, 0, F_ACK, 0, NULL, OPT_TS);
		}
		round += f->rtt + gap;
		if (cwnd < 256)
			cwnd *= 2;
	}
	if (k % 2 == 1 && !more)
		tcp_pkt(a, last + f->rtt + 40 * MS, 0, F_ACK, 0, NULL, OPT_TS);
	return last;
}

/* The client's message as it arrives (segments 30-60 us apart); the
 * server ACKs every second segment at once. Returns the last arrival. */
static uint64_t fe_client_msg(actor *a, uint64_t t, uint8_t pk, const uint8_t *pd, uint16_t hl, uint32_t mlen,
			      uint32_t *nseg)
{
	fe_conn *f = a->ext;
	uint32_t sent = 0, k = 0;
	uint64_t last = t;
	while (sent < mlen) {
		uint32_t seg = mlen - sent > f->mss ? f->mss : mlen - sent;
		fe_seg(a, last, 0, F_ACK | (sent + seg == mlen ? F_PSH : 0), seg, pk, pd, hl, sent, mlen);
		sent += seg;
		if (++k % 2 == 0 && sent < mlen)
			tcp_pkt(a, last + 20 * US, 1, F_ACK, 0, NULL, OPT_TS);
		if (sent < mlen)
			last += 30 * US + rndn(30) * US;
	}
	*nseg = k;
	return last;
}

/* Handshake, and TLS's, from the SYN's arrival at t; returns when the
 * client's first request arrives. */
static uint64_t fe_connect(actor *a, uint64_t t)
{
	fe_conn *f = a->ext;
	uint32_t isn_c = a->cseq, isn_s = a->sseq;
	if (chance(0.004)) {
		/* the SYN-ACK is lost on its way: the client's SYN again after 1 s */
		tcp_pkt(a, t, 0, F_SYN, 0, NULL, OPT_SYN);
		tcp_pkt(a, t + 25 * US, 1, F_SYN | F_ACK, 0, NULL, OPT_SYN);
		a->cseq = isn_c, a->sseq = isn_s;
		t += 1 * SEC + f->rtt;
	}
	tcp_pkt(a, t, 0, F_SYN, 0, NULL, OPT_SYN);
	t += 20 * US + rndn(40) * US;
	tcp_pkt(a, t, 1, F_SYN | F_ACK, 0, NULL, OPT_SYN);
	t += f->rtt;
	tcp_pkt(a, t, 0, F_ACK, 0, NULL, OPT_TS);
	t += 30 * US + rndn(300) * US;
	if (!f->tls)
		return t;
	uint32_t v = 2 * rndn(N_HELLO / 2) + f->resumed;
	tcp_pkt(a, t, 0, F_PSH | F_ACK, fe_hello_len[v], fe_hello[v], OPT_TS);
	/* ServerHello + CCS, then the encrypted rest of the server's flight:
	 * EncryptedExtensions, Certificate, CertificateVerify, Finished (or
	 * EncryptedExtensions and Finished when resumed) */
	uint32_t sv = 2 * rndn(N_SHELLO / 2) + f->resumed;
	uint32_t inner = f->resumed ? 40 + rndn(40) : 2200 + rndn(2200);
	uint16_t hl = fe_shello_len[sv];
	t += (f->resumed ? 200 : 600) * US + rndn(1500) * US; /* key exchange, signature */
	uint64_t last = fe_server_msg(a, t, PK_TLS, fe_shello[sv], hl, hl + tls_wrap(inner), true);
	/* the client's CCS + Finished, its first request right behind */
	t = last + f->rtt + 300 * US + rndn(2000) * US;
	uint32_t nseg;
	fe_client_msg(a, t, PK_TLS, tls_ccs, sizeof(tls_ccs), sizeof(tls_ccs) + tls_wrap(36), &nseg);
	return t + 40 * US;
}

static const char *const fe_types[] = {"text/html; charset=utf-8", "text/plain", "application/octet-stream"};

/* One request and its response, the request arriving at t. Returns when
 * the client's next move can arrive: a round trip after the last segment. */
static uint64_t fe_exchange(actor *a, uint64_t t)
{
	fe_conn *f = a->ext;
	uint32_t v = rndn(N_REQ), nseg;
	uint64_t last = f->tls ? fe_client_msg(a, t, PK_TLS, NULL, 0, tls_wrap(fe_req_len[v]), &nseg)
			       : fe_client_msg(a, t, PK_TEXT, fe_req[v], fe_req_hl[v], fe_req_len[v], &nseg);
	/* the backend's time */
	uint64_t think = chance(0.02) ? (uint64_t)(logu(60, 900) * MS) : (uint64_t)(logu(0.3, 60) * MS);
	if (think > 40 * MS && nseg % 2 == 1)
		tcp_pkt(a, last + 40 * MS, 1, F_ACK, 0, NULL, OPT_TS); /* delayed ACK */
	uint64_t at = last + think;
	uint32_t r = rndn(100), body;
	int code;
	if (r < 92) {
		code = 200;
		uint32_t k = rndn(100);
		body = (uint32_t)(k < 72 ? logu(80, 2000) : k < 96 ? logu(2000, 16000) : logu(16000, 128000));
	} else if (r < 97) {
		code = 304, body = 0;
	} else {
		code = 404, body = 150 + rndn(450);
	}
	time_t sec = (time_t)(at / SEC);
	struct tm tm;
	gmtime_r(&sec, &tm);
	char date[40];
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", &tm);
	char *h = (char *)f->rhdr;
	int n;
	if (code == 304)
		n = snprintf(h, sizeof(f->rhdr),
			     "HTTP/1.1 304 Not Modified\r\nServer: nginx\r\nDate: %s\r\nConnection: keep-alive\r\n"
			     "ETag: \"%08x\"\r\n\r\n",
			     date, (unsigned)rnd());
	else
		n = snprintf(h, sizeof(f->rhdr),
			     "HTTP/1.1 %d %s\r\nServer: nginx\r\nDate: %s\r\nContent-Type: %s\r\n"
			     "Content-Length: %u\r\nConnection: keep-alive\r\nCache-Control: %s\r\n"
			     "X-Request-Id: %016" PRIx64 "\r\n\r\n",
			     code, code == 200 ? "OK" : "Not Found", date, fe_types[rndn(3)], body,
			     rndn(2) ? "no-store" : "max-age=3600", rnd());
	if (n < 0 || (size_t)n >= sizeof(f->rhdr))
		exit(2);
	f->rhl = (uint16_t)n;
	if (f->tls)
		last = fe_server_msg(a, at, PK_TLS, NULL, 0, tls_wrap(f->rhl + body), false);
	else
		last = fe_server_msg(a, at, PK_TEXT, f->rhdr, f->rhl, f->rhl + body, false);
	return last + f->rtt;
}

/* The end, at t: by the client (close_notify then FIN, or RST), or by the
 * server's keep-alive timeout (close_notify and FIN in one segment), which
 * a vanished client never answers: the FIN is retransmitted, backing off,
 * until the server gives the socket up. */
static void fe_close(actor *a, uint64_t t)
{
	fe_conn *f = a->ext;
	switch (f->end) {
	case FE_END_RST: {
		pkt_spec *r = tcp_pkt(a, t, 0, F_RST | F_ACK, 0, NULL, OPT_NONE);
		r->win = 0;
		return;
	}
	case FE_END_CLIENT:
		if (f->tls && chance(0.5))
			fe_seg(a, t, 0, F_FIN | F_PSH | F_ACK, 24, PK_TLS, NULL, 0, 0, 24);
		else
			tcp_pkt(a, t, 0, F_FIN | F_ACK, 0, NULL, OPT_TS);
		tcp_pkt(a, t + 40 * US + rndn(200) * US, 1, F_FIN | F_ACK, 0, NULL, OPT_TS);
		tcp_pkt(a, t + 300 * US + f->rtt, 0, F_ACK, 0, NULL, OPT_TS);
		return;
	default:
		break;
	}
	uint32_t seq = a->sseq;
	uint32_t len = f->tls ? 24 : 0;
	if (len)
		fe_seg(a, t, 1, F_FIN | F_PSH | F_ACK, len, PK_TLS, NULL, 0, 0, len);
	else
		tcp_pkt(a, t, 1, F_FIN | F_ACK, 0, NULL, OPT_TS);
	if (f->end == FE_END_SERVER) {
		uint64_t c = t + f->rtt + 200 * US + rndn(2000) * US; /* the browser closes its end */
		tcp_pkt(a, c, 0, F_FIN | F_ACK, 0, NULL, OPT_TS);
		tcp_pkt(a, c + 30 * US, 1, F_ACK, 0, NULL, OPT_TS);
		return;
	}
	uint64_t rto = 200 * MS + f->rtt, at = t;
	for (int i = 0; i < 6; i++) {
		at += rto << i;
		a->sseq = seq;
		if (len)
			fe_seg(a, at, 1, F_FIN | F_PSH | F_ACK, len, PK_TLS, NULL, 0, 0, len);
		else
			tcp_pkt(a, at, 1, F_FIN | F_ACK, 0, NULL, OPT_TS);
	}
}

static void ka_refill(actor *a)
{
	fe_conn *f = a->ext;
	if (a->closed) {
		a->done = true;
		return;
	}
	uint64_t t = a->now;
	if (f->done == 0)
		t = fe_connect(a, t);
	t = fe_exchange(a, t);
	f->done++;
	if (f->done < f->n) {
		a->now = t + (uint64_t)f->gap_ms[f->done - 1] * MS + rndn(1000) * US;
		return;
	}
	fe_close(a, t + f->final);
	a->closed = true;
}

/* A client connection: address, port, options; 80 % TLS on 443. */
static void fe_new_conn(actor *a, fe_conn *f, bool any_mss)
{
	fe_client cl;
	uint32_t ci = rndn(fe_nclients);
	fe_client_get(&cl, ci);
	if (!any_mss) { /* bulk_refill: full-size segments, rounds of up to 64 KB */
		cl.mss = cl.e.v6 ? 1440 : 1460;
		cl.ws = 7;
	}
	uint32_t vi = cl.e.v6 ? 4 : rndn(4);
	a->c.cli = cl.e;
	fe_vip(&a->c.srv, vi);
	uint16_t p = fe_next_port[ci];
	if (p < 32768 || p >= 60999)
		p = (uint16_t)(32768 + rndn(28000));
	fe_next_port[ci] = (uint16_t)(p + 1);
	a->c.cport = p;
	a->c.sport = chance(0.8) ? 443 : 80;
	a->c.ipid[0] = (uint16_t)rnd();
	a->c.ipid[1] = (uint16_t)rnd();
	a->c.ttl[0] = cl.ttl;
	a->c.ttl[1] = 64;
	a->c.mss[0] = cl.mss;
	a->c.mss[1] = cl.e.v6 ? 1440 : 1460;
	a->c.ws1[0] = (uint8_t)(cl.ws + 1);
	a->c.ws1[1] = 8;
	a->cseq = (uint32_t)rnd();
	a->sseq = (uint32_t)rnd();
	f->rtt = cl.rtt;
	f->keepalive = vip_keepalive[vi];
	f->mss = (a->c.mss[0] < a->c.mss[1] ? a->c.mss[0] : a->c.mss[1]) - 12u;
	f->tls = a->c.sport == 443;
}

static void ka_start(actor *a)
{
	fe_conn *f = calloc(1, sizeof(*f));
	if (!f)
		exit(2);
	a->ext = f;
	fe_new_conn(a, f, true);
	f->resumed = f->tls && chance(0.45);
	fe_plan(f);
	a->refill = ka_refill;
}

/* A bulk download (90 %) or upload over TLS, 0.3-8 MB, with ~1 % loss:
 * the handshakes and request here, the data rounds in bulk_refill. */
static void fe_bulk_start(actor *a)
{
	fe_conn *f = calloc(1, sizeof(*f));
	if (!f)
		exit(2);
	a->ext = f;
	do {
		fe_new_conn(a, f, false);
	} while (!f->tls);
	a->rtt_us = (uint32_t)(f->rtt / US);
	a->cwnd = 10;
	a->bulk_left = (uint64_t)logu(300e3, 8e6);
	a->upload = chance(0.1);
	a->at_receiver = a->upload; /* the capture is on the server */
	a->rwin = 501;
	a->zw_flow = chance(0.1);
	a->refill = bulk_refill;
	uint64_t t = fe_connect(a, a->now);
	uint32_t nseg;
	uint32_t v = rndn(N_REQ);
	t = fe_client_msg(a, t, PK_TLS, NULL, 0, tls_wrap(fe_req_len[v]), &nseg);
	int snd = a->upload ? 0 : 1;
	a->c.tls_stream[snd] = true;
	a->c.tls_base[snd] = snd ? a->sseq : a->cseq;
	/* the sender's clock: the server's, or for an upload the client's,
	 * half a round trip behind the capture */
	a->now = a->upload ? t + 100 * US - f->rtt / 2 : t + 1 * MS + rndn(4000) * US;
}

/* The front end's own DNS lookups (backends), a query and an answer. */
typedef struct fe_dns {
	uint8_t q[128], r[256];
	uint16_t ql, rl;
} fe_dns;

static void fdns_refill(actor *a)
{
	if (a->closed) {
		a->done = true;
		return;
	}
	a->closed = true;
	pkt_spec *q = qpush(a);
	q->ts = a->now;
	q->dir = 0;
	pkt_spec *r = qpush(a);
	r->ts = a->now + 300 * US + (uint64_t)(logu(0.1, 30) * MS);
	r->dir = 1;
}

static void fdns_start(actor *a)
{
	fe_dns *d = calloc(1, sizeof(*d));
	if (!d)
		exit(2);
	a->ext = d;
	memset(&a->c.cli, 0, sizeof(a->c.cli));
	a->c.cli.a[0] = 203, a->c.cli.a[1] = 0, a->c.cli.a[2] = 113, a->c.cli.a[3] = 2;
	a->c.srv = a->c.cli;
	a->c.srv.a[3] = (uint8_t)(53 + rndn(2));
	a->c.cport = (uint16_t)(32768 + rndn(28000));
	a->c.sport = 53;
	a->c.ipid[0] = (uint16_t)rnd();
	a->c.ipid[1] = (uint16_t)rnd();
	a->c.ttl[0] = 64;
	a->c.ttl[1] = 63;
	char name[80];
	static const char *const svc[] = {"api", "auth", "cart", "search", "images", "session", "reco", "stock"};
	switch (rndn(4)) {
	case 0:
		snprintf(name, sizeof(name), "%s-%u.backend.shop.example", svc[rndn(8)], rndn(24));
		break;
	case 1:
		snprintf(name, sizeof(name), "redis-%u.cache.shop.example", rndn(6));
		break;
	case 2:
		snprintf(name, sizeof(name), "%s.prod.svc.cluster.local", svc[rndn(8)]);
		break;
	default:
		snprintf(name, sizeof(name), "db-%u.shop.example", rndn(4));
		break;
	}
	bool aaaa = chance(0.3), nx = chance(0.03);
	uint8_t *q = d->q;
	put16(q, (uint16_t)rnd());
	put16(q + 2, 0x0100);
	put16(q + 4, 1);
	put16(q + 6, 0), put16(q + 8, 0), put16(q + 10, 0);
	size_t n = 12;
	for (const char *l = name; *l;) {
		const char *dot = strchr(l, '.');
		size_t ll = dot ? (size_t)(dot - l) : strlen(l);
		q[n++] = (uint8_t)ll;
		memcpy(q + n, l, ll);
		n += ll;
		l += ll + (dot ? 1 : 0);
	}
	q[n++] = 0;
	put16(q + n, aaaa ? 28 : 1);
	put16(q + n + 2, 1);
	n += 4;
	d->ql = (uint16_t)n;
	memcpy(d->r, q, n);
	uint32_t an = nx ? 0 : 1 + rndn(3);
	put16(d->r + 2, nx ? 0x8183 : 0x8180);
	put16(d->r + 6, (uint16_t)an);
	for (uint32_t i = 0; i < an; i++) {
		uint8_t *r = d->r + n;
		put16(r, 0xc00c);
		put16(r + 2, aaaa ? 28 : 1);
		put16(r + 4, 1);
		put32(r + 6, 30 + rndn(270));
		put16(r + 10, aaaa ? 16 : 4);
		n += 12;
		if (aaaa) {
			static const uint8_t pfx[8] = {0x20, 0x01, 0x0d, 0xb8, 0xbe, 0, 0, 0};
			memcpy(d->r + n, pfx, 8);
			put32(d->r + n + 8, 0);
			put32(d->r + n + 12, rndn(4096) + 1);
			n += 16;
		} else {
			d->r[n] = 10, d->r[n + 1] = (uint8_t)(20 + rndn(8)), d->r[n + 2] = (uint8_t)rndn(256),
			d->r[n + 3] = (uint8_t)(1 + rndn(254));
			n += 4;
		}
	}
	d->rl = (uint16_t)n;
	a->refill = fdns_refill;
}

/* ------------------------------------------------------------ main */

static actor *actor_new(int cls, uint64_t now, size_t qcap)
{
	actor *a = calloc(1, sizeof(*a));
	if (!a)
		exit(2);
	a->q = malloc(qcap * sizeof(*a->q));
	if (!a->q)
		exit(2);
	a->qcap = qcap;
	a->cls = cls;
	a->now = now;
	class_flows[cls]++;
	return a;
}

static void actor_free(actor *a)
{
	free(a->ext);
	free(a->q);
	free(a);
}

/* Fills the queue; false when the actor has nothing more to say. */
static bool actor_fill(actor *a)
{
	while (a->qn == 0 && !a->done) {
		a->refill(a);
		qsort_ts(a);
	}
	return a->qn > 0;
}

static void actor_emit(actor *a)
{
	pkt_spec s = a->q[a->qh];
	a->qh = (a->qh + 1) % a->qcap;
	a->qn--;
	switch (a->cls) {
	case CL_FLOOD:
		flood_emit(a, &s);
		break;
	case CL_DNS:
		emit_udp(&a->c, s.dir, s.ts, s.dir ? dns_r : dns_q, s.dir ? dns_r_len : dns_q_len, CL_DNS);
		break;
	case CL_FDNS: {
		const fe_dns *d = a->ext;
		emit_udp(&a->c, s.dir, s.ts, s.dir ? d->r : d->q, s.dir ? d->rl : d->ql, CL_FDNS);
		break;
	}
	case CL_FRAG:
		if (s.dir == 0) {
			uint8_t req[100];
			memcpy(req, randbuf, sizeof(req));
			emit_udp(&a->c, 0, s.ts, req, s.plen, CL_FRAG);
		} else {
			emit_frag_datagram(a, &s);
		}
		break;
	default:
		emit_tcp(&a->c, &s, a->cls);
		break;
	}
}

int main(int argc, char **argv)
{
	double fe_live = 0; /* front-end mode: connections alive at once */
	if (argc > 2 && strcmp(argv[1], "--frontend") == 0) {
		fe_live = strtod(argv[2], NULL);
		if (fe_live < 1) {
			fprintf(stderr, "gen_capture: bad --frontend '%s'\n", argv[2]);
			return 2;
		}
		argc -= 2;
		argv += 2;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: gen_capture [--frontend LIVE] OUT.pcap SIZE_MB [SEED [FLOOD_SOURCES]]\n");
		return 2;
	}
	const char *out = argv[1];
	double size_mb = strtod(argv[2], NULL);
	uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 0) : UINT64_C(20240301);
	if (size_mb <= 0) {
		fprintf(stderr, "gen_capture: bad size '%s'\n", argv[2]);
		return 2;
	}
	rng_state = seed;
	target_bytes = (uint64_t)(size_mb * 1e6);
	init_payloads();
	init_dns();

	pcap_t *dead = pcap_open_dead(DLT_EN10MB, 65535);
	FILE *fp = fopen(out, "wb");
	if (!dead || !fp) {
		perror(out);
		return 1;
	}
	static char obuf[1 << 20];
	setvbuf(fp, obuf, _IOFBF, sizeof(obuf));
	dumper = pcap_dump_fopen(dead, fp);
	if (!dumper) {
		fprintf(stderr, "gen_capture: %s\n", pcap_geterr(dead));
		return 1;
	}

	/* Planned duration: the size at BYTES_PER_SEC; arrival rates are per
	 * second of capture time, so every slice has the same traffic mix. */
	double dur_s = (double)target_bytes / BYTES_PER_SEC;
	double rate[CL__N] = {
		[CL_SHORT] = 75.0, /* connections/s: ~43 % of the bytes */
		[CL_BULK] = 0.42, /* flows/s, ~1.9 MB each: ~45 % */
		[CL_DNS] = 60.0, /* query/answer pairs/s */
		[CL_FRAG] = 3.0, /* flows/s, 1-12 datagrams each */
	};
	double fe_mean_life = 0;
	if (fe_live > 0) {
		fe_init_payloads();
		/* clients: two per live connection, at least 4096 */
		double nc = fe_live * 2 < 4096 ? 4096 : fe_live * 2;
		fe_nclients = nc > 4000000 ? 4000000 : (uint32_t)nc;
		fe_next_port = calloc(fe_nclients, sizeof(*fe_next_port));
		if (!fe_next_port)
			return 2;
		/* the mean lifetime of a connection, from the plans themselves */
		fe_conn f;
		for (int i = 0; i < 20000; i++) {
			memset(&f, 0, sizeof(f));
			f.keepalive = vip_keepalive[rndn(10) == 0 ? 4 : rndn(4)];
			fe_plan(&f);
			fe_mean_life += (double)fe_lifetime(&f) / 20000.0;
		}
		memset(rate, 0, sizeof(rate));
		rate[CL_KA] = fe_live / (fe_mean_life / SEC);
		rate[CL_BULK] = rate[CL_KA] / 1500; /* ~10 % of the bytes */
		rate[CL_FDNS] = rate[CL_KA] / 10;
	}
	uint64_t t0 = BASE_TIME;
	uint64_t next_spawn[CL__N];
	for (int c = 0; c < CL__N; c++)
		next_spawn[c] = rate[c] > 0 ? t0 + rnd_exp(SEC / rate[c]) : UINT64_MAX;
	uint32_t flood_n = size_mb >= 100 ? 100000 : (uint32_t)(size_mb * 1000);
	if (argc > 4)
		flood_n = (uint32_t)strtoul(argv[4], NULL, 0); /* 0: no flood */
	if (fe_live > 0)
		flood_n = 0;
	next_spawn[CL_FLOOD] = flood_n ? t0 + (uint64_t)(0.4 * dur_s * SEC) : UINT64_MAX;
	/* a few bulk flows are already running when the capture starts */
	if (fe_live == 0)
		next_spawn[CL_BULK] = t0;
	/* front-end mode: TCP connections alive (first packet to last) */
	uint64_t alive = 0, alive_peak = 0, alive_peak_ts = t0;

	while (bytes_written < target_bytes) {
		int cls = -1;
		uint64_t ts = UINT64_MAX;
		for (int c = 0; c < CL__N; c++)
			if (next_spawn[c] < ts)
				ts = next_spawn[c], cls = c;
		if (heap_n == 0 || ts <= heap[0].ts) {
			if (cls < 0)
				break;
			actor *a = actor_new(cls, ts, fe_live > 0 ? 16 : QCAP);
			switch (cls) {
			case CL_SHORT: {
				uint32_t r = rndn(100);
				uint16_t sp = r < 40 ? 80 : r < 85 ? 443 : r < 95 ? 9000 : 10050;
				new_conn(a, chance(0.1), sp);
				a->refill = short_refill;
				break;
			}
			case CL_BULK:
				if (fe_live > 0)
					fe_bulk_start(a);
				else
					bulk_start(a);
				break;
			case CL_KA:
				ka_start(a);
				break;
			case CL_FDNS:
				fdns_start(a);
				break;
			case CL_FLOOD:
				new_conn(a, false, 80);
				server_ep(&a->c.srv, 7, false);
				a->flood_left = flood_n;
				a->refill = flood_refill;
				break;
			case CL_DNS:
				new_conn(a, chance(0.1), 53);
				a->refill = dns_refill;
				break;
			case CL_FRAG:
				new_conn(a, chance(0.15), 2049);
				a->frag_left = 1 + rndn(12);
				a->refill = frag_refill;
				break;
			}
			if (cls == CL_FLOOD)
				next_spawn[cls] = UINT64_MAX;
			else
				next_spawn[cls] = ts + 1 + rnd_exp(SEC / rate[cls]);
			if (actor_fill(a))
				heap_push(a);
			else
				actor_free(a);
			continue;
		}
		actor *a = heap[0].a;
		actor_emit(a);
		bool tcp = a->cls == CL_KA || a->cls == CL_BULK;
		if (!a->started) {
			a->started = true;
			if (tcp && ++alive > alive_peak)
				alive_peak = alive, alive_peak_ts = last_ts_written;
		}
		if (actor_fill(a)) {
			heap[0].ts = head_ts(a);
			heap_down(0);
		} else {
			heap[0] = heap[--heap_n];
			if (heap_n)
				heap_down(0);
			if (tcp)
				alive--;
			actor_free(a);
		}
	}
	pcap_dump_close(dumper);
	pcap_close(dead);

	fprintf(stderr, "gen_capture: %s: %" PRIu64 " bytes, %" PRIu64 " packets, %.1f s of capture time\n",
		out, bytes_written, n_packets, (double)(last_ts_written - t0) / 1e9);
	for (int c = 0; c < CL__N; c++) {
		if (fe_live > 0 ? class_flows[c] == 0 : c > CL_FRAG)
			continue;
		fprintf(stderr, "  %-10s %9" PRIu64 " flows %10" PRIu64 " packets %12" PRIu64 " bytes (%4.1f %%)\n",
			class_name[c], c == CL_FLOOD ? (uint64_t)flood_n * (class_flows[c] ? 1 : 0) : class_flows[c],
			class_pkts[c], class_bytes[c], 100.0 * (double)class_bytes[c] / (double)bytes_written);
	}
	if (fe_live > 0)
		fprintf(stderr,
			"  front end: %.0f connections/s (mean lifetime %.1f s), %u clients; TCP connections alive "
			"at once (first packet to last): peak %" PRIu64 " at %.1f s, %" PRIu64 " at the end\n",
			rate[CL_KA], fe_mean_life / SEC, fe_nclients, alive_peak, (double)(alive_peak_ts - t0) / 1e9,
			alive);
	for (size_t i = 0; i < heap_n; i++)
		actor_free(heap[i].a);
	free(heap);
	free(fe_next_port);
	return 0;
}
