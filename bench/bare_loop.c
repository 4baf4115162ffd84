/* The baseline pcapdoc is measured against: the least a flow tool can do.
 *
 *   bare_loop FILE
 *
 * pcap_next_ex over the file, Ethernet (+ VLAN) / IPv4 / IPv6 / TCP / UDP
 * header parse, and one lookup-or-insert per packet in an open-addressing
 * hash table keyed by the direction-independent 5-tuple (linear probing,
 * power-of-two size, doubled at half load), bumping a packet and a byte
 * counter. Nothing is ever removed. Prints packets, IP packets and flows.
 * The input gets the same 1 MiB stdio buffer pcapdoc's reader uses, so the
 * ratio measures analysis, not I/O tuning.
 */
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct key {
	uint8_t a[16], b[16]; /* a <= b (memcmp then port) */
	uint16_t pa, pb;
	uint8_t proto, family;
} key;

typedef struct slot {
	key k;
	uint64_t hash; /* 0 = empty */
	uint64_t pkts, bytes;
} slot;

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

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: bare_loop FILE\n");
		return 2;
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
	int rc;
	while ((rc = pcap_next_ex(p, &h, &d)) == 1) {
		packets++;
		bytes += h->len;
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
		if (l4 && (k.proto == 6 || k.proto == 17) && l4 + 4 <= n) {
			k.pa = be16(d + l4);
			k.pb = be16(d + l4 + 2);
		}
		/* direction-independent: smaller endpoint first */
		int c = memcmp(k.a, k.b, 16);
		if (c > 0 || (c == 0 && k.pa > k.pb)) {
			uint8_t t[16];
			memcpy(t, k.a, 16);
			memcpy(k.a, k.b, 16);
			memcpy(k.b, t, 16);
			uint16_t tp = k.pa;
			k.pa = k.pb;
			k.pb = tp;
		}
		slot *s = lookup_or_insert(&k);
		s->pkts++;
		s->bytes += h->len;
	}
	if (rc == PCAP_ERROR)
		fprintf(stderr, "bare_loop: %s\n", pcap_geterr(p));
	printf("packets %" PRIu64 " ip %" PRIu64 " bytes %" PRIu64 " flows %zu\n", packets, ip_packets, bytes, used);
	pcap_close(p);
	free(tab);
	return 0;
}
