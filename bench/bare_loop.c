/* The baseline pcapdoc is measured against: the least a flow tool can do.
 *
 *   bare_loop FILE [TCP_IDLE_S [OTHER_IDLE_S]]
 *
 * pcap_next_ex over the file, Ethernet (+ VLAN) / IPv4 / IPv6 / TCP / UDP
 * header parse, and one lookup-or-insert per packet in an open-addressing
 * hash table keyed by the direction-independent 5-tuple (linear probing,
 * power-of-two size, doubled at half load), bumping a packet and a byte
 * counter. Nothing is ever removed. The input gets the same 1 MiB stdio
 * buffer pcapdoc's reader uses, so the ratio measures analysis, not I/O
 * tuning.
 *
 * It also counts the flows that are live, which is what a flow tool must
 * keep, and prints the peak: a flow is live from its first packet until
 * it has seen a FIN from both ends or a RST (TCP), or until it has been
 * idle for more than TCP_IDLE_S (default 300: longer than any idle time
 * inside a connection of the front-end captures) or, for UDP and other
 * protocols, OTHER_IDLE_S (default 120, pcapdoc's UDP timeout) seconds of
 * capture time (to a second). A packet of an idle-expired flow makes it
 * live again; of a closed one, only a SYN without ACK (a new connection on
 * the same 5-tuple). Counted, not enforced: the counters are per second
 * of expiry in a ring, no flow is visited to expire it.
 *
 * Prints packets, IP packets, bytes, flows (ever), the peak of live flows
 * (and how many of them were TCP, and when) and the peak RSS.
 */
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

typedef struct key {
	uint8_t a[16], b[16]; /* a <= b (memcmp then port) */
	uint16_t pa, pb;
	uint8_t proto, family;
} key;

enum { ST_LIVE = 1, ST_FIN_A = 2, ST_FIN_B = 4, ST_CLOSED = 8 };

typedef struct slot {
	key k;
	uint8_t st; /* ST_* */
	uint64_t hash; /* 0 = empty */
	uint32_t pkts;
	uint32_t last_s; /* capture second of its last packet while live */
	uint64_t bytes;
} slot;

/* Live flows: two counters (TCP, other) and, per class, a ring of how many
 * live flows expire in each coming second. */
#define RING 1024 /* seconds; more than the longest idle timeout + 1 */
static uint32_t idle_s[2] = {300, 120}; /* TCP, other */
static uint32_t expiring[2][RING];
static uint64_t live[2], peak_live, peak_tcp;
static uint32_t cur_s, peak_s;

static slot *tab;
static size_t mask, used;

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

static uint64_t key_hash(const key *k)
{
	uint64_t w[4];
	memcpy(w, k->a, 16);
	memcpy(w + 2, k->b, 16);
	uint64_t h = mix64(w[0] ^ mix64(w[1] ^ mix64(w[2] ^ mix64(w[3]))));
	h = mix64(h ^ ((uint64_t)k->pa << 24 | (uint64_t)k->pb << 8 | k->proto));
	return h ? h : 1;
}

static void grow(void)
{
	size_t nmask = mask * 2 + 1;
	slot *nt = calloc(nmask + 1, sizeof(slot));
	if (!nt) {
		perror("calloc");
		exit(2);
	}
	for (size_t i = 0; i <= mask; i++) {
		if (!tab[i].hash)
			continue;
		size_t j = tab[i].hash & nmask;
		while (nt[j].hash)
			j = (j + 1) & nmask;
		nt[j] = tab[i];
	}
	free(tab);
	tab = nt;
	mask = nmask;
}

static slot *lookup_or_insert(const key *k)
{
	uint64_t h = key_hash(k);
	size_t i = h & mask;
	for (;;) {
		slot *s = &tab[i];
		if (!s->hash)
			break;
		if (s->hash == h && memcmp(&s->k, k, sizeof(*k)) == 0)
			return s;
		i = (i + 1) & mask;
	}
	if ((used + 1) * 2 > mask + 1) {
		grow();
		return lookup_or_insert(k);
	}
	slot *s = &tab[i];
	s->k = *k;
	s->hash = h;
	used++;
	return s;
}

static inline uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The capture clock reaches second now: flows idle past their timeout
 * stop being live. */
static void advance(uint32_t now)
{
	if (now <= cur_s)
		return;
	uint32_t steps = now - cur_s > RING ? RING : now - cur_s;
	for (uint32_t i = 1; i <= steps; i++)
		for (int c = 0; c < 2; c++) {
			uint32_t *e = &expiring[c][(cur_s + i) % RING];
			live[c] -= *e;
			*e = 0;
		}
	cur_s = now;
}

/* Bookkeeping for one packet of flow s: c is 0 for TCP, 1 else; from_a
 * says the sender is k.a; flags are TCP's. */
static void track(slot *s, bool fresh, int c, bool from_a, uint8_t flags)
{
	uint32_t now = cur_s;
	if (fresh) {
		s->st = 0;
	} else if (s->st & ST_LIVE) {
		uint32_t exp = s->last_s + idle_s[c] + 1;
		if (exp > now) { /* still counted: move it to its new second */
			expiring[c][exp % RING]--;
			live[c]--;
		} else {
			s->st = 0; /* expired while idle: live again from here */
		}
	} else if (s->st & ST_CLOSED) {
		if ((flags & 0x12) != 0x02)
			return;
		s->st = 0; /* a new connection on the same 5-tuple */
	}
	s->st |= ST_LIVE;
	if (c == 0) {
		if (flags & 0x04) {
			s->st = ST_CLOSED;
			return;
		}
		if (flags & 0x01)
			s->st |= from_a ? ST_FIN_A : ST_FIN_B;
		if ((s->st & (ST_FIN_A | ST_FIN_B)) == (ST_FIN_A | ST_FIN_B)) {
			s->st = ST_CLOSED;
			return;
		}
	}
	s->last_s = now;
	expiring[c][(now + idle_s[c] + 1) % RING]++;
	live[c]++;
	if (live[0] + live[1] > peak_live) {
		peak_live = live[0] + live[1];
		peak_tcp = live[0];
		peak_s = now;
	}
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: bare_loop FILE [TCP_IDLE_S [OTHER_IDLE_S]]\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		long v = strtol(argv[i], NULL, 10);
		if (v < 1 || v > RING - 2) {
			fprintf(stderr, "bare_loop: idle time must be 1-%d s\n", RING - 2);
			return 2;
		}
		idle_s[i - 2] = (uint32_t)v;
	}
	char errbuf[PCAP_ERRBUF_SIZE];
	FILE *fp = fopen(argv[1], "rb");
	if (!fp) {
		perror(argv[1]);
		return 1;
	}
	static char iobuf[1 << 20];
	setvbuf(fp, iobuf, _IOFBF, sizeof(iobuf));
	pcap_t *p = pcap_fopen_offline(fp, errbuf);
	if (!p) {
		fprintf(stderr, "bare_loop: %s\n", errbuf);
		return 1;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		fprintf(stderr, "bare_loop: Ethernet captures only\n");
		return 1;
	}
	mask = (1u << 16) - 1;
	tab = calloc(mask + 1, sizeof(slot));

	struct pcap_pkthdr *h;
	const u_char *d;
	uint64_t packets = 0, ip_packets = 0, bytes = 0;
	uint32_t first_s = 0;
	int rc;
	while ((rc = pcap_next_ex(p, &h, &d)) == 1) {
		if (packets == 0)
			first_s = cur_s = (uint32_t)h->ts.tv_sec;
		packets++;
		bytes += h->len;
		advance((uint32_t)h->ts.tv_sec);
		uint32_t n = h->caplen;
		if (n < 14)
			continue;
		uint16_t et = be16(d + 12);
		uint32_t off = 14;
		while ((et == 0x8100 || et == 0x88a8) && off + 4 <= n) {
			et = be16(d + off + 2);
			off += 4;
		}
		key k;
		memset(&k, 0, sizeof(k));
		const uint8_t *src, *dst;
		uint32_t l4;
		if (et == 0x0800 && off + 20 <= n) {
			const uint8_t *ip = d + off;
			uint32_t ihl = (ip[0] & 15u) * 4;
			if ((ip[0] >> 4) != 4 || ihl < 20 || off + ihl > n)
				continue;
			k.family = 4;
			k.proto = ip[9];
			src = ip + 12, dst = ip + 16;
			memcpy(k.a, src, 4);
			memcpy(k.b, dst, 4);
			/* non-first fragments have no ports */
			l4 = (be16(ip + 6) & 0x1fff) ? 0 : off + ihl;
		} else if (et == 0x86dd && off + 40 <= n) {
			const uint8_t *ip = d + off;
			k.family = 6;
			k.proto = ip[6];
			memcpy(k.a, ip + 8, 16);
			memcpy(k.b, ip + 24, 16);
			l4 = off + 40;
			if (k.proto == 44 && off + 48 <= n) { /* fragment header */
				k.proto = ip[40];
				l4 = (be16(ip + 42) & 0xfff8) ? 0 : off + 48;
			}
		} else {
			continue;
		}
		ip_packets++;
		uint8_t tcp_flags = 0;
		if (l4 && (k.proto == 6 || k.proto == 17) && l4 + 4 <= n) {
			k.pa = be16(d + l4);
			k.pb = be16(d + l4 + 2);
			if (k.proto == 6 && l4 + 14 <= n)
				tcp_flags = d[l4 + 13];
		}
		/* direction-independent: smaller endpoint first */
		int c = memcmp(k.a, k.b, 16);
		bool from_a = true;
		if (c > 0 || (c == 0 && k.pa > k.pb)) {
			from_a = false;
			uint8_t t[16];
			memcpy(t, k.a, 16);
			memcpy(k.a, k.b, 16);
			memcpy(k.b, t, 16);
			uint16_t tp = k.pa;
			k.pa = k.pb;
			k.pb = tp;
		}
		size_t before = used;
		slot *s = lookup_or_insert(&k);
		track(s, used != before, k.proto == 6 ? 0 : 1, from_a, tcp_flags);
		s->pkts++;
		s->bytes += h->len;
	}
	if (rc == PCAP_ERROR)
		fprintf(stderr, "bare_loop: %s\n", pcap_geterr(p));
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("packets %" PRIu64 " ip %" PRIu64 " bytes %" PRIu64 " flows %zu live_peak %" PRIu64 " live_peak_tcp %" PRIu64
	       " live_peak_at %" PRIu32 " peak_rss_kb %ld\n",
	       packets, ip_packets, bytes, used, peak_live, peak_tcp, peak_s - first_s, ru.ru_maxrss);
	pcap_close(p);
	free(tab);
	return 0;
}
