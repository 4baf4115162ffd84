/* Unit tests for dissect/: hand-built frames for every layer, lying
 * lengths, snaplen cuts at every byte, and every public capture. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/dissect.h"

/* ---- frame builders (checksums are not computed: the dissector ignores
 * them) ---- */

#define MAXF 4096

typedef struct frame {
	uint8_t b[MAXF];
	size_t len;
} frame;

static void put8(frame *f, uint8_t v)
{
	cr_assert(f->len < MAXF);
	f->b[f->len++] = v;
}
static void put16(frame *f, uint16_t v)
{
	put8(f, (uint8_t)(v >> 8));
	put8(f, (uint8_t)v);
}
static void put32(frame *f, uint32_t v)
{
	put16(f, (uint16_t)(v >> 16));
	put16(f, (uint16_t)v);
}
static void putn(frame *f, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put8(f, ((const uint8_t *)p)[i]);
}
static void cat(frame *f, const frame *g)
{
	putn(f, g->b, g->len);
}
static void set16(frame *f, size_t off, uint16_t v)
{
	f->b[off] = (uint8_t)(v >> 8);
	f->b[off + 1] = (uint8_t)v;
}

static const uint8_t SRC4[4] = {10, 0, 0, 1};
static const uint8_t DST4[4] = {192, 168, 1, 2};
static const uint8_t SRC6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
static const uint8_t DST6[16] = {0x20, 0x01, 0x0d, 0xb8, [14] = 0xab, [15] = 2};

/* Ethernet header with n VLAN tags (tpid, vid pairs) and an ethertype. */
static void eth(frame *f, const uint16_t *tags, int ntags, uint16_t type)
{
	static const uint8_t macs[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
	putn(f, macs, 12);
	for (int i = 0; i < ntags; i++) {
		put16(f, tags[2 * i]);
		put16(f, tags[2 * i + 1]);
	}
	put16(f, type);
}

/* IPv4 header carrying l4 (ihl = 20 + optlen, optlen multiple of 4). */
static void ipv4(frame *f, uint8_t proto, const uint8_t *opts, size_t optlen, const frame *l4,
		 uint16_t flags_off)
{
	size_t ihl = 20 + optlen;
	put8(f, (uint8_t)(0x40 | (ihl / 4)));
	put8(f, 0x10); /* tos */
	put16(f, (uint16_t)(ihl + l4->len));
	put16(f, 0x1234); /* ident */
	put16(f, flags_off);
	put8(f, 64);
	put8(f, proto);
	put16(f, 0);
	putn(f, SRC4, 4);
	putn(f, DST4, 4);
	putn(f, opts, optlen);
	cat(f, l4);
}

/* IPv6 fixed header; payload follows (ext headers included). */
static void ipv6(frame *f, uint8_t nh, const frame *payload)
{
	put32(f, 0x60000000u | (0x2eu << 20) | 0x12345);
	put16(f, (uint16_t)payload->len);
	put8(f, nh);
	put8(f, 57);
	putn(f, SRC6, 16);
	putn(f, DST6, 16);
	cat(f, payload);
}

static void tcp(frame *f, uint16_t sp, uint16_t dp, uint32_t seq, uint32_t ack, uint8_t flags,
		const uint8_t *opts, size_t optlen, const void *data, size_t dlen)
{
	put16(f, sp);
	put16(f, dp);
	put32(f, seq);
	put32(f, ack);
	put8(f, (uint8_t)(((20 + optlen) / 4) << 4));
	put8(f, flags);
	put16(f, 65535);
	put32(f, 0);
	putn(f, opts, optlen);
	putn(f, data, dlen);
}

static void udp(frame *f, uint16_t sp, uint16_t dp, const void *data, size_t dlen)
{
	put16(f, sp);
	put16(f, dp);
	put16(f, (uint16_t)(8 + dlen));
	put16(f, 0);
	putn(f, data, dlen);
}

/* ---- running the dissector ---- */

static pd_packet P;

static pd_dissect_status run2(const frame *f, int lt, uint32_t caplen, uint32_t wirelen)
{
	memset(&P, 0xA5, sizeof(P)); /* garbage: pd_dissect must reset it */
	P.frame_no = 7;
	P.ts = 42;
	P.caplen = caplen;
	P.wirelen = wirelen;
	P.linktype = lt;
	P.file_index = 3;
	/* Copy into an exact-size heap block so ASan sees any overread. */
	uint8_t *d = malloc(caplen ? caplen : 1);
	cr_assert(d);
	memcpy(d, f->b, caplen);
	pd_dissect_status st = pd_dissect(&P, d);
	/* Pointers must point into the frame; rebase them onto f for the
	 * caller (d is freed). */
	if (P.l3) {
		cr_assert(P.l3 >= d && P.l3 + P.l3_captured <= d + caplen);
		P.l3 = f->b + (P.l3 - d);
	}
	if (P.l4 == PD_L4_TCP && P.tcp.payload) {
		cr_assert(P.tcp.payload >= d && P.tcp.payload + P.tcp.payload_captured <= d + caplen);
		P.tcp.payload = f->b + (P.tcp.payload - d);
	}
	if (P.l4 == PD_L4_UDP && P.udp.payload) {
		cr_assert(P.udp.payload >= d && P.udp.payload + P.udp.payload_captured <= d + caplen);
		P.udp.payload = f->b + (P.udp.payload - d);
	}
	free(d);
	cr_assert_eq(P.frame_no, 7);
	cr_assert_eq(P.ts, 42);
	cr_assert_eq(P.caplen, caplen);
	cr_assert_eq(P.wirelen, wirelen);
	cr_assert_eq(P.linktype, lt);
	cr_assert_eq(P.file_index, 3);
	cr_assert_eq(P.snap_truncated || caplen >= wirelen, true);
	cr_assert_eq(st == PD_DISSECT_MALFORMED, P.malformed != PD_MAL_NONE,
		     "status %d malformed %d", st, P.malformed);
	return st;
}

static pd_dissect_status run(const frame *f, int lt)
{
	return run2(f, lt, (uint32_t)f->len, (uint32_t)f->len);
}

/* A typical Ethernet/IPv4/TCP data segment. */
static void std_tcp4(frame *f, const uint8_t *opts, size_t optlen, const char *data)
{
	frame t = {0}, ip = {0};
	tcp(&t, 40000, 443, 1000, 2000, PD_TCP_ACK | PD_TCP_PSH, opts, optlen, data, strlen(data));
	ipv4(&ip, 6, NULL, 0, &t, 0x4000);
	eth(f, NULL, 0, 0x0800);
	cat(f, &ip);
}

static void check_std_tcp(size_t payload)
{
	cr_assert_eq(P.is_ip, true);
	cr_assert_eq(P.ip.version, 4);
	cr_assert_eq(P.ip.src.family, 4);
	cr_assert_eq(memcmp(P.ip.src.bytes, SRC4, 4), 0);
	cr_assert_eq(memcmp(P.ip.dst.bytes, DST4, 4), 0);
	cr_assert_eq(P.ip.proto, 6);
	cr_assert_eq(P.l4, PD_L4_TCP);
	cr_assert_eq(P.tcp.sport, 40000);
	cr_assert_eq(P.tcp.dport, 443);
	cr_assert_eq(P.tcp.seq, 1000);
	cr_assert_eq(P.tcp.ack, 2000);
	cr_assert_eq(P.tcp.payload_len, payload);
}

/* ---- basics ---- */

Test(dissect, ether_ipv4_tcp_fields)
{
	frame f = {0};
	std_tcp4(&f, NULL, 0, "hello");
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	check_std_tcp(5);
	cr_assert_eq(P.ethertype, 0x0800);
	cr_assert_eq(P.vlan_depth, 0);
	cr_assert_eq(P.snap_truncated, false);
	cr_assert_eq(P.ip.ttl, 64);
	cr_assert_eq(P.ip.tos, 0x10);
	cr_assert_eq(P.ip.ident, 0x1234);
	cr_assert_eq(P.ip.df, true);
	cr_assert_eq(P.ip.mf, false);
	cr_assert_eq(P.ip.is_fragment, false);
	cr_assert_eq(P.ip.hdr_len, 20);
	cr_assert_eq(P.ip.total_len, 45);
	cr_assert_eq(P.ip.captured_len, 45);
	cr_assert_eq(P.l3, f.b + 14);
	cr_assert_eq(P.l3_captured, 45);
	cr_assert_eq(P.tcp.flags, PD_TCP_ACK | PD_TCP_PSH);
	cr_assert_eq(P.tcp.window, 65535);
	cr_assert_eq(P.tcp.hdr_len, 20);
	cr_assert_eq(P.tcp.payload_captured, 5);
	cr_assert_eq(memcmp(P.tcp.payload, "hello", 5), 0);
	cr_assert_eq(P.tcp.wscale, -1);
	cr_assert_eq(P.tcp.has_mss, false);
	cr_assert_eq(P.tcp.has_ts, false);
	cr_assert_eq(P.tcp.sack_count, 0);
}

Test(dissect, ethernet_padding_is_clipped)
{
	/* 40-byte SYN in a 60-byte minimum frame plus a 4-byte FCS. */
	frame f = {0};
	std_tcp4(&f, NULL, 0, "");
	for (int i = 0; i < 10; i++)
		put8(&f, 0xEE);
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	cr_assert_eq(P.ip.total_len, 40);
	cr_assert_eq(P.ip.captured_len, 40);
	cr_assert_eq(P.l3_captured, 50);
	cr_assert_eq(P.tcp.payload_len, 0);
	cr_assert_eq(P.tcp.payload_captured, 0);
	cr_assert_null(P.tcp.payload);
}

Test(dissect, tso_total_len_zero_uses_frame)
{
	frame f = {0};
	char big[1500];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	std_tcp4(&f, NULL, 0, big);
	set16(&f, 14 + 2, 0);
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	cr_assert_eq(P.ip.total_len, 40 + 1499);
	cr_assert_eq(P.tcp.payload_len, 1499);
	/* Snaplen-cut TSO frame: the wire length still gives the size. */
	cr_assert_eq(run2(&f, 1, 100, (uint32_t)f.len), PD_DISSECT_OK);
	cr_assert_eq(P.ip.total_len, 40 + 1499);
	cr_assert_eq(P.tcp.payload_len, 1499);
	cr_assert_eq(P.tcp.payload_captured, 100 - 54);
	cr_assert_eq(P.snap_truncated, true);
}

Test(dissect, snaplen_keeps_header_lengths)
{
	frame f = {0};
	std_tcp4(&f, NULL, 0, "0123456789abcdef");
	/* Honest frame, cut at 60 of 70: */
	cr_assert_eq(run2(&f, 1, 60, (uint32_t)f.len), PD_DISSECT_OK);
	cr_assert_eq(P.snap_truncated, true);
	cr_assert_eq(P.tcp.payload_len, 16);
	cr_assert_eq(P.tcp.payload_captured, 6);
	cr_assert_eq(P.ip.captured_len, 46);
	cr_assert_eq(P.malformed, PD_MAL_NONE);
}

/* ---- link types ---- */

static void ipv4_tcp_l3(frame *ip)
{
	frame t = {0};
	tcp(&t, 40000, 443, 1000, 2000, PD_TCP_ACK, NULL, 0, "abc", 3);
	ipv4(ip, 6, NULL, 0, &t, 0);
}

static void ipv6_tcp_l3(frame *ip)
{
	frame t = {0};
	tcp(&t, 40000, 443, 1000, 2000, PD_TCP_ACK, NULL, 0, "abc", 3);
	ipv6(ip, 6, &t);
}

static void expect_v4_tcp(pd_dissect_status st)
{
	cr_assert_eq(st, PD_DISSECT_OK);
	cr_assert_eq(P.ethertype, 0x0800);
	cr_assert_eq(P.ip.version, 4);
	cr_assert_eq(P.l4, PD_L4_TCP);
	cr_assert_eq(P.tcp.dport, 443);
	cr_assert_eq(P.tcp.payload_len, 3);
}

static void expect_v6_tcp(pd_dissect_status st)
{
	cr_assert_eq(st, PD_DISSECT_OK);
	cr_assert_eq(P.ethertype, 0x86DD);
	cr_assert_eq(P.ip.version, 6);
	cr_assert_eq(P.l4, PD_L4_TCP);
	cr_assert_eq(P.tcp.dport, 443);
	cr_assert_eq(P.tcp.payload_len, 3);
}

Test(dissect, linux_sll)
{
	frame ip = {0}, f = {0};
	ipv4_tcp_l3(&ip);
	put16(&f, 0); /* packet type */
	put16(&f, 1); /* ARPHRD_ETHER */
	put16(&f, 6);
	putn(&f, "\1\2\3\4\5\6\0\0", 8);
	put16(&f, 0x0800);
	cat(&f, &ip);
	expect_v4_tcp(run(&f, 113));
	cr_assert_eq(P.l3, f.b + 16);
}

Test(dissect, linux_sll2)
{
	frame ip = {0}, f = {0};
	ipv6_tcp_l3(&ip);
	put16(&f, 0x86DD);
	put16(&f, 0);
	put32(&f, 2); /* ifindex */
	put16(&f, 1);
	put8(&f, 4); /* outgoing */
	put8(&f, 6);
	putn(&f, "\1\2\3\4\5\6\0\0", 8);
	cat(&f, &ip);
	expect_v6_tcp(run(&f, 276));
	cr_assert_eq(P.l3, f.b + 20);
}

Test(dissect, null_both_byte_orders)
{
	frame ip = {0}, ip6 = {0};
	ipv4_tcp_l3(&ip);
	ipv6_tcp_l3(&ip6);
	const uint8_t le2[4] = {2, 0, 0, 0}, be2[4] = {0, 0, 0, 2};
	frame f = {0};
	putn(&f, le2, 4);
	cat(&f, &ip);
	expect_v4_tcp(run(&f, 0));
	f.len = 0;
	putn(&f, be2, 4);
	cat(&f, &ip);
	expect_v4_tcp(run(&f, 0));
	const uint32_t fams6[] = {24, 28, 30};
	for (int i = 0; i < 3; i++) {
		for (int be = 0; be < 2; be++) {
			f.len = 0;
			uint8_t h[4] = {0};
			h[be ? 3 : 0] = (uint8_t)fams6[i];
			putn(&f, h, 4);
			cat(&f, &ip6);
			expect_v6_tcp(run(&f, 0));
		}
	}
	/* AF 7 (neither): not IP. */
	f.len = 0;
	put32(&f, 7);
	cat(&f, &ip);
	cr_assert_eq(run(&f, 0), PD_DISSECT_NOT_IP);
}

Test(dissect, loop_big_endian)
{
	frame ip = {0}, f = {0};
	ipv4_tcp_l3(&ip);
	put32(&f, 2);
	cat(&f, &ip);
	expect_v4_tcp(run(&f, 108));
	frame ip6 = {0};
	ipv6_tcp_l3(&ip6);
	f.len = 0;
	put32(&f, 30);
	cat(&f, &ip6);
	expect_v6_tcp(run(&f, 108));
}

Test(dissect, raw_ip_link_types)
{
	frame ip = {0}, ip6 = {0};
	ipv4_tcp_l3(&ip);
	ipv6_tcp_l3(&ip6);
	const int raws[] = {12, 14, 101};
	for (int i = 0; i < 3; i++) {
		expect_v4_tcp(run(&ip, raws[i]));
		cr_assert_eq(P.l3, ip.b);
		expect_v6_tcp(run(&ip6, raws[i]));
	}
	expect_v4_tcp(run(&ip, 228));
	expect_v6_tcp(run(&ip6, 229));
	/* The link's claim and the version nibble disagree. */
	cr_assert_eq(run(&ip6, 228), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_IP_VERSION);
	cr_assert_eq(run(&ip, 229), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_IP_VERSION);
	frame bad = {0};
	put8(&bad, 0x55);
	for (int i = 0; i < 30; i++)
		put8(&bad, 0);
	cr_assert_eq(run(&bad, 101), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_IP_VERSION);
	/* Ethernet claiming IPv4 for an IPv6 packet. */
	frame f = {0};
	eth(&f, NULL, 0, 0x0800);
	cat(&f, &ip6);
	cr_assert_eq(run(&f, 1), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_IP_VERSION);
}

static void nflog_tlv(frame *f, uint16_t type, const frame *v)
{
	/* Little-endian TLV header (host order on x86, as libpcap gives). */
	uint16_t len = (uint16_t)(4 + v->len);
	put8(f, (uint8_t)len);
	put8(f, (uint8_t)(len >> 8));
	put8(f, (uint8_t)type);
	put8(f, (uint8_t)(type >> 8));
	cat(f, v);
	while (f->len % 4)
		put8(f, 0);
}

Test(dissect, nflog)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	cr_skip_test("little-endian TLVs built by hand");
#endif
	frame ip = {0}, f = {0}, pfx = {0}, hw = {0};
	ipv4_tcp_l3(&ip);
	put8(&f, 2); /* AF_INET */
	put8(&f, 0);
	put16(&f, 5);
	putn(&pfx, "abc", 3); /* odd length: padded */
	nflog_tlv(&f, 10, &pfx);
	put16(&hw, 0x0800);
	put8(&hw, 0);
	put8(&hw, 0);
	nflog_tlv(&f, 1, &hw);
	size_t at = f.len + 4;
	nflog_tlv(&f, 9, &ip);
	expect_v4_tcp(run(&f, 239));
	cr_assert_eq(P.l3, f.b + at);
	/* IPv6 family 10 */
	frame ip6 = {0};
	ipv6_tcp_l3(&ip6);
	f.len = 0;
	put8(&f, 10);
	put8(&f, 0);
	put16(&f, 0);
	nflog_tlv(&f, 9, &ip6);
	expect_v6_tcp(run(&f, 239));
	/* No payload TLV */
	f.len = 0;
	put8(&f, 2);
	put8(&f, 0);
	put16(&f, 0);
	nflog_tlv(&f, 10, &pfx);
	cr_assert_eq(run(&f, 239), PD_DISSECT_NOT_IP);
	/* TLV length 2 lies */
	f.len = 0;
	put8(&f, 2);
	put8(&f, 0);
	put16(&f, 0);
	putn(&f, "\2\0\11\0", 4);
	cr_assert_eq(run(&f, 239), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_LINK);
}

Test(dissect, unsupported_and_non_ip)
{
	frame ip = {0}, f = {0};
	ipv4_tcp_l3(&ip);
	cr_assert_eq(run(&ip, 160), PD_DISSECT_UNSUPPORTED_LINK);
	cr_assert_eq(pd_linktype_supported(160), false);
	cr_assert_eq(pd_linktype_supported(1), true);
	cr_assert_eq(pd_linktype_supported(276), true);
	cr_assert_str_eq(pd_linktype_name(160), "unknown");
	cr_assert_str_eq(pd_linktype_name(1), "EN10MB");
	cr_assert_str_eq(pd_linktype_name(276), "LINUX_SLL2");
	cr_assert_str_eq(pd_linktype_name(113), "LINUX_SLL");
	cr_assert_str_eq(pd_linktype_name(101), "RAW");
	cr_assert_str_eq(pd_linktype_name(12), "RAW");
	cr_assert_str_eq(pd_linktype_name(0), "NULL");
	cr_assert_str_eq(pd_linktype_name(108), "LOOP");
	cr_assert_str_eq(pd_linktype_name(228), "IPV4");
	cr_assert_str_eq(pd_linktype_name(229), "IPV6");
	cr_assert_str_eq(pd_linktype_name(239), "NFLOG");
	/* ARP */
	eth(&f, NULL, 0, 0x0806);
	for (int i = 0; i < 28; i++)
		put8(&f, (uint8_t)i);
	cr_assert_eq(run(&f, 1), PD_DISSECT_NOT_IP);
	cr_assert_eq(P.ethertype, 0x0806);
	cr_assert_eq(P.is_ip, false);
	cr_assert_eq(P.l4, PD_L4_NONE);
	/* ARP behind a VLAN tag */
	const uint16_t tag[] = {0x8100, 5};
	f.len = 0;
	eth(&f, tag, 1, 0x0806);
	cr_assert_eq(run(&f, 1), PD_DISSECT_NOT_IP);
	cr_assert_eq(P.vlan_depth, 1);
	/* Too short for an Ethernet header and not cut by a snaplen */
	f.len = 10;
	cr_assert_eq(run(&f, 1), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_LINK);
	cr_assert_eq(run2(&f, 1, 10, 60), PD_DISSECT_TRUNCATED);
	cr_assert_eq(P.malformed, PD_MAL_NONE);
}

Test(dissect, llc_snap)
{
	frame ip = {0}, f = {0};
	ipv4_tcp_l3(&ip);
	eth(&f, NULL, 0, (uint16_t)(8 + ip.len));
	putn(&f, "\xAA\xAA\x03\0\0\0", 6);
	put16(&f, 0x0800);
	cat(&f, &ip);
	expect_v4_tcp(run(&f, 1));
	/* plain 802.2 (STP) is not IP */
	f.len = 0;
	eth(&f, NULL, 0, 38);
	putn(&f, "\x42\x42\x03\0\0\0\0\0", 8);
	cr_assert_eq(run(&f, 1), PD_DISSECT_NOT_IP);
}

/* ---- VLAN ---- */

Test(dissect, vlan_single_qinq_triple)
{
	frame ip = {0}, f = {0};
	ipv4_tcp_l3(&ip);
	const uint16_t one[] = {0x8100, 0x2000 | 100};
	eth(&f, one, 1, 0x0800);
	cat(&f, &ip);
	expect_v4_tcp(run(&f, 1));
	cr_assert_eq(P.vlan_depth, 1);
	cr_assert_eq(P.vlan_id, 100);
	cr_assert_eq(P.l3, f.b + 18);

	const uint16_t qinq[] = {0x88a8, 300, 0x8100, 0xE000 | 7};
	f.len = 0;
	eth(&f, qinq, 2, 0x86DD);
	frame ip6 = {0};
	ipv6_tcp_l3(&ip6);
	cat(&f, &ip6);
	expect_v6_tcp(run(&f, 1));
	cr_assert_eq(P.vlan_depth, 2);
	cr_assert_eq(P.vlan_id, 300, "outermost VID");
	cr_assert_eq(P.l3, f.b + 22);

	const uint16_t three[] = {0x9100, 4095, 0x88a8, 2, 0x8100, 3};
	f.len = 0;
	eth(&f, three, 3, 0x0800);
	cat(&f, &ip);
	expect_v4_tcp(run(&f, 1));
	cr_assert_eq(P.vlan_depth, 3);
	cr_assert_eq(P.vlan_id, 4095);
}

/* ---- IPv4 ---- */

Test(dissect, ipv4_options)
{
	/* NOP, record route (len 7, 1 slot), EOL: 12 bytes of options */
	const uint8_t opts[12] = {1, 7, 7, 4, 1, 2, 3, 4, 0, 0, 0, 0};
	frame t = {0}, ip = {0}, f = {0};
	tcp(&t, 1, 2, 3, 4, PD_TCP_SYN, NULL, 0, NULL, 0);
	ipv4(&ip, 6, opts, sizeof(opts), &t, 0);
	eth(&f, NULL, 0, 0x0800);
	cat(&f, &ip);
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	cr_assert_eq(P.ip.hdr_len, 32);
	cr_assert_eq(P.ip.total_len, 52);
	cr_assert_eq(P.l4, PD_L4_TCP);
	cr_assert_eq(P.tcp.sport, 1);
	cr_assert_eq(P.tcp.dport, 2);
	cr_assert_eq(P.tcp.flags, PD_TCP_SYN);
	cr_assert_eq(P.tcp.payload_len, 0);

	/* Option length runs past the header. */
	const uint8_t bad[4] = {1, 7, 7, 4};
	f.len = ip.len = t.len = 0;
	tcp(&t, 1, 2, 3, 4, PD_TCP_SYN, NULL, 0, NULL, 0);
	ipv4(&ip, 6, bad, sizeof(bad), &t, 0);
	eth(&f, NULL, 0, 0x0800);
	cat(&f, &ip);
	cr_assert_eq(run(&f, 1), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_IP_OPTIONS);
	cr_assert_eq(P.is_ip, false);
	cr_assert_eq(P.l4, PD_L4_NONE);
	/* Option length 1 */
	const uint8_t bad1[4] = {0x44, 1, 0, 0};
	f.len = ip.len = 0;
	ipv4(&ip, 6, bad1, sizeof(bad1), &t, 0);
	eth(&f, NULL, 0, 0x0800);
	cat(&f, &ip);
	cr_assert_eq(run(&f, 1), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_IP_OPTIONS);
}

Test(dissect, ipv4_lying_lengths)
{
	frame f = {0};
	std_tcp4(&f, NULL, 0, "data");
	size_t ipo = 14;

	frame g = f;
	g.b[ipo] = 0x44; /* IHL 4 */
	cr_assert_eq(run(&g, 1), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_IP_HDRLEN);
	cr_assert_eq(P.ip.version, 4, "fields up to the failure are filled");
	cr_assert_eq(P.ip.ttl, 64);
	cr_assert_eq(P.is_ip, false);

	g = f;
	set16(&g, ipo + 2, 10); /* total below any header */
	cr_assert_eq(run(&g, 1), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_IP_TOTLEN);

	g = f;
	g.b[ipo] = 0x4F; /* IHL 60 > total 44 */
	cr_assert_eq(run(&g, 1), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_IP_HDRLEN);

	g = f;
	set16(&g, ipo + 2, 1500); /* beyond the frame */
	cr_assert_eq(run(&g, 1), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_IP_TOTLEN);
	/* flagged, then dissected on with what the frame holds (as Wireshark) */
	cr_assert_eq(P.is_ip, true);
	cr_assert_eq(P.ip.total_len, 44);
	cr_assert_eq(P.l4, PD_L4_TCP);
	cr_assert_eq(P.tcp.payload_len, 4);
	cr_assert_eq(P.tcp.payload_captured, 4);
	/* ...but not if the frame was cut by the snaplen from 1514 */
	cr_assert_eq(run2(&g, 1, (uint32_t)g.len, 1514), PD_DISSECT_OK);
	cr_assert_eq(P.tcp.payload_len, 1460);
	cr_assert_eq(P.tcp.payload_captured, 4);

	g = f;
	g.b[ipo] = 0x65; /* version 6 behind 0x0800 */
	cr_assert_eq(run(&g, 1), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_IP_VERSION);

	/* Frame shorter than an IPv4 header, not cut */
	g = f;
	g.len = 14 + 12;
	cr_assert_eq(run(&g, 1), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_IP_HDRLEN);
	cr_assert_eq(run2(&g, 1, (uint32_t)g.len, (uint32_t)f.len), PD_DISSECT_TRUNCATED);
}

Test(dissect, ipv4_fragments)
{
	/* First fragment: offset 0, MF, carrying the TCP header. */
	frame t = {0}, ip = {0}, f = {0};
	tcp(&t, 1111, 80, 5, 6, PD_TCP_ACK, NULL, 0, "0123456789abcdef", 16);
	ipv4(&ip, 6, NULL, 0, &t, 0x2000);
	eth(&f, NULL, 0, 0x0800);
	cat(&f, &ip);
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	cr_assert_eq(P.ip.is_fragment, true);
	cr_assert_eq(P.ip.mf, true);
	cr_assert_eq(P.ip.frag_offset, 0);
	cr_assert_eq(P.ip.frag_payload_len, 36);
	cr_assert_eq(P.l4, PD_L4_TCP);
	cr_assert_eq(P.tcp.sport, 1111);
	cr_assert_eq(P.tcp.payload_len, 16, "this fragment's share");

	/* Non-first fragment: offset 185*8, no transport. */
	f.len = ip.len = 0;
	ipv4(&ip, 6, NULL, 0, &t, 185);
	eth(&f, NULL, 0, 0x0800);
	cat(&f, &ip);
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	cr_assert_eq(P.ip.is_fragment, true);
	cr_assert_eq(P.ip.mf, false);
	cr_assert_eq(P.ip.frag_offset, 1480);
	cr_assert_eq(P.ip.frag_payload_len, 36);
	cr_assert_eq(P.l4, PD_L4_OTHER);

	/* Tiny first fragment splitting the TCP header: not malformed. */
	frame tiny = {0};
	putn(&tiny, "\x04\x57\x00\x50\0\0\0\5", 8);
	f.len = ip.len = 0;
	ipv4(&ip, 6, NULL, 0, &tiny, 0x2000);
	eth(&f, NULL, 0, 0x0800);
	cat(&f, &ip);
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	cr_assert_eq(P.l4, PD_L4_OTHER);
	/* The same 8 bytes unfragmented: the TCP header does not fit. */
	f.len = ip.len = 0;
	ipv4(&ip, 6, NULL, 0, &tiny, 0);
	eth(&f, NULL, 0, 0x0800);
	cat(&f, &ip);
	cr_assert_eq(run(&f, 1), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_TCP_HDRLEN);
	cr_assert_eq(P.is_ip, true, "IP info kept");

	/* UDP first fragment: UDP length covers the whole datagram. */
	frame u = {0};
	char big[100] = {0};
	udp(&u, 53, 5353, big, sizeof(big));
	u.len = 40; /* this fragment carries 40 of 108 bytes */
	f.len = ip.len = 0;
	ipv4(&ip, 17, NULL, 0, &u, 0x2000);
	eth(&f, NULL, 0, 0x0800);
	cat(&f, &ip);
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	cr_assert_eq(P.l4, PD_L4_UDP);
	cr_assert_eq(P.udp.length, 108);
	cr_assert_eq(P.udp.payload_len, 100);
	cr_assert_eq(P.udp.payload_captured, 32);
}

/* ---- TCP ---- */

Test(dissect, tcp_all_options)
{
	const uint8_t opts[] = {
		2, 4, 0x05, 0xb4, /* MSS 1460 */
		4, 2, /* SACK permitted */
		8, 10, 0, 0, 0x12, 0x34, 0xde, 0xad, 0xbe, 0xef, /* TS */
		1, /* NOP */
		3, 3, 7, /* WS 7 */
		30, 6, 1, 2, 3, 4, /* unknown kind: skipped */
		1, 1, 0, /* NOP NOP EOL */
		0, 0, 0, /* pad to 32 */
	};
	cr_assert_eq(sizeof(opts) % 4, 0);
	frame f = {0};
	std_tcp4(&f, opts, sizeof(opts), "xy");
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	check_std_tcp(2);
	cr_assert_eq(P.tcp.hdr_len, 20 + sizeof(opts));
	cr_assert_eq(P.tcp.has_mss, true);
	cr_assert_eq(P.tcp.mss, 1460);
	cr_assert_eq(P.tcp.sack_permitted, true);
	cr_assert_eq(P.tcp.has_ts, true);
	cr_assert_eq(P.tcp.tsval, 0x1234);
	cr_assert_eq(P.tcp.tsecr, 0xdeadbeef);
	cr_assert_eq(P.tcp.wscale, 7);
	cr_assert_eq(P.tcp.sack_count, 0);
	cr_assert_eq(P.tcp.options_truncated, false);
	cr_assert_eq(P.tcp.payload_captured, 2);
	cr_assert_eq(memcmp(P.tcp.payload, "xy", 2), 0);
}

Test(dissect, tcp_wscale_clamped)
{
	const uint8_t opts[] = {1, 3, 3, 15};
	frame f = {0};
	std_tcp4(&f, opts, sizeof(opts), "");
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	cr_assert_eq(P.tcp.wscale, 14);
	const uint8_t zero[] = {1, 3, 3, 0};
	f.len = 0;
	std_tcp4(&f, zero, sizeof(zero), "");
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	cr_assert_eq(P.tcp.wscale, 0);
}

Test(dissect, tcp_sack_blocks)
{
	/* NOP NOP TS, NOP NOP SACK with 3 blocks = 12 + 28 = 40 bytes */
	uint8_t opts[40] = {1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2, 1, 1, 5, 26};
	for (int i = 0; i < 6; i++) {
		uint32_t v = 1000u * (uint32_t)(i + 1);
		opts[16 + 4 * i] = (uint8_t)(v >> 24);
		opts[17 + 4 * i] = (uint8_t)(v >> 16);
		opts[18 + 4 * i] = (uint8_t)(v >> 8);
		opts[19 + 4 * i] = (uint8_t)v;
	}
	frame f = {0};
	std_tcp4(&f, opts, sizeof(opts), "");
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	cr_assert_eq(P.tcp.hdr_len, 60);
	cr_assert_eq(P.tcp.has_ts, true);
	cr_assert_eq(P.tcp.tsval, 1);
	cr_assert_eq(P.tcp.tsecr, 2);
	cr_assert_eq(P.tcp.sack_count, 3);
	cr_assert_eq(P.tcp.sack_left[0], 1000);
	cr_assert_eq(P.tcp.sack_right[0], 2000);
	cr_assert_eq(P.tcp.sack_left[1], 3000);
	cr_assert_eq(P.tcp.sack_right[1], 4000);
	cr_assert_eq(P.tcp.sack_left[2], 5000);
	cr_assert_eq(P.tcp.sack_right[2], 6000);

	/* 4 blocks (no TS): 2 NOPs + 34 bytes + 4 pad */
	uint8_t o4[40] = {1, 1, 5, 34};
	for (int i = 0; i < 8; i++) {
		uint32_t v = 0xfffffff0u + (uint32_t)i;
		o4[4 + 4 * i] = (uint8_t)(v >> 24);
		o4[5 + 4 * i] = (uint8_t)(v >> 16);
		o4[6 + 4 * i] = (uint8_t)(v >> 8);
		o4[7 + 4 * i] = (uint8_t)v;
	}
	f.len = 0;
	std_tcp4(&f, o4, sizeof(o4), "");
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	cr_assert_eq(P.tcp.sack_count, 4);
	cr_assert_eq(P.tcp.sack_left[3], 0xfffffff6u);
	cr_assert_eq(P.tcp.sack_right[3], 0xfffffff7u);
}

Test(dissect, tcp_lying_lengths)
{
	frame f = {0};
	std_tcp4(&f, NULL, 0, "data");
	size_t to = 14 + 20;

	frame g = f;
	g.b[to + 12] = 0x40; /* data offset 4 */
	cr_assert_eq(run(&g, 1), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_TCP_HDRLEN);
	cr_assert_eq(P.is_ip, true);
	cr_assert_eq(P.ip.proto, 6);
	cr_assert_eq(P.tcp.sport, 40000, "fields parsed so far kept");

	g = f;
	g.b[to + 12] = 0x70; /* 28 bytes > 24 of IP payload */
	cr_assert_eq(run(&g, 1), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_TCP_HDRLEN);
	/* ...even when the frame is snaplen-cut: the IP length is the wire */
	cr_assert_eq(run2(&g, 1, 14 + 20 + 13, (uint32_t)g.len), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_TCP_HDRLEN);
	/* cut before the data offset byte: nothing to judge yet */
	cr_assert_eq(run2(&g, 1, 14 + 20 + 12, (uint32_t)g.len), PD_DISSECT_OK);
	cr_assert_eq(P.l4, PD_L4_NONE);
	cr_assert_eq(P.snap_truncated, true);

	const uint8_t len0[] = {2, 0, 0, 0};
	const uint8_t len1[] = {1, 1, 8, 1};
	const uint8_t over[] = {1, 1, 8, 10};
	const uint8_t kind_last[] = {1, 1, 1, 2}; /* length byte outside */
	const uint8_t *bad[] = {len0, len1, over, kind_last};
	for (int i = 0; i < 4; i++) {
		g.len = 0;
		std_tcp4(&g, bad[i], 4, "data");
		cr_assert_eq(run(&g, 1), PD_DISSECT_MALFORMED, "case %d", i);
		cr_assert_eq(P.malformed, PD_MAL_TCP_OPTIONS);
		cr_assert_eq(P.l4, PD_L4_TCP);
		cr_assert_eq(P.tcp.payload_len, 4);
	}
	/* Options cut by the snaplen are not malformed. */
	const uint8_t ts[] = {1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2};
	g.len = 0;
	std_tcp4(&g, ts, sizeof(ts), "data");
	cr_assert_eq(run2(&g, 1, 14 + 20 + 20 + 6, (uint32_t)g.len), PD_DISSECT_OK);
	cr_assert_eq(P.tcp.options_truncated, true);
	cr_assert_eq(P.tcp.has_ts, false);
	cr_assert_eq(P.tcp.payload_len, 4);
	cr_assert_eq(P.tcp.payload_captured, 0);
	cr_assert_eq(P.snap_truncated, true);
}

/* ---- UDP ---- */

Test(dissect, udp_basic_and_lies)
{
	frame u = {0}, ip = {0}, f = {0};
	udp(&u, 5353, 53, "query", 5);
	ipv4(&ip, 17, NULL, 0, &u, 0);
	eth(&f, NULL, 0, 0x0800);
	cat(&f, &ip);
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	cr_assert_eq(P.l4, PD_L4_UDP);
	cr_assert_eq(P.udp.sport, 5353);
	cr_assert_eq(P.udp.dport, 53);
	cr_assert_eq(P.udp.length, 13);
	cr_assert_eq(P.udp.payload_len, 5);
	cr_assert_eq(P.udp.payload_captured, 5);
	cr_assert_eq(memcmp(P.udp.payload, "query", 5), 0);

	frame g = f;
	set16(&g, 14 + 20 + 4, 7);
	cr_assert_eq(run(&g, 1), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_UDP_LEN);
	cr_assert_eq(P.is_ip, true);
	g = f;
	set16(&g, 14 + 20 + 4, 14);
	cr_assert_eq(run(&g, 1), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_UDP_LEN);
	/* Shorter than the IP payload is fine (trailing bytes ignored). */
	g = f;
	set16(&g, 14 + 20 + 4, 10);
	cr_assert_eq(run(&g, 1), PD_DISSECT_OK);
	cr_assert_eq(P.udp.payload_len, 2);
	cr_assert_eq(P.udp.payload_captured, 2);
}

/* ---- IPv6 ---- */

Test(dissect, ipv6_hbh_and_fragment)
{
	frame t = {0}, pl = {0}, ip = {0}, f = {0};
	tcp(&t, 2222, 443, 77, 88, PD_TCP_ACK, NULL, 0, "payload!", 8);
	/* hop-by-hop (8 bytes: next 44, len 0, PadN) */
	put8(&pl, 44);
	put8(&pl, 0);
	putn(&pl, "\1\4\0\0\0\0", 6);
	/* fragment header: next TCP, offset 0, M=1, id 0xcafebabe */
	put8(&pl, 6);
	put8(&pl, 0);
	put16(&pl, 0x0001);
	put32(&pl, 0xcafebabe);
	cat(&pl, &t);
	ipv6(&ip, 0, &pl);
	eth(&f, NULL, 0, 0x86DD);
	cat(&f, &ip);
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	cr_assert_eq(P.ip.version, 6);
	cr_assert_eq(P.ip.tos, 0x2e);
	cr_assert_eq(P.ip.ttl, 57);
	cr_assert_eq(memcmp(P.ip.src.bytes, SRC6, 16), 0);
	cr_assert_eq(memcmp(P.ip.dst.bytes, DST6, 16), 0);
	cr_assert_eq(P.ip.hdr_len, 56);
	cr_assert_eq(P.ip.total_len, 40 + 16 + 28);
	cr_assert_eq(P.ip.proto, 6);
	cr_assert_eq(P.ip.has_frag_header, true);
	cr_assert_eq(P.ip.is_fragment, true);
	cr_assert_eq(P.ip.mf, true);
	cr_assert_eq(P.ip.frag_offset, 0);
	cr_assert_eq(P.ip.ident, 0xcafebabe);
	cr_assert_eq(P.ip.frag_proto, 6);
	cr_assert_eq(P.ip.frag_payload_len, 28);
	cr_assert_eq(P.l4, PD_L4_TCP);
	cr_assert_eq(P.tcp.sport, 2222);
	cr_assert_eq(P.tcp.payload_len, 8);

	/* Non-first fragment: offset 1232 */
	frame g = f;
	set16(&g, 14 + 40 + 8 + 2, (1232 / 8) << 3);
	cr_assert_eq(run(&g, 1), PD_DISSECT_OK);
	cr_assert_eq(P.ip.is_fragment, true);
	cr_assert_eq(P.ip.mf, false);
	cr_assert_eq(P.ip.frag_offset, 1232);
	cr_assert_eq(P.ip.proto, 6);
	cr_assert_eq(P.l4, PD_L4_OTHER);

	/* Hop-by-hop later in the chain: broken */
	g = f;
	g.b[14 + 40 + 8] = 0;
	cr_assert_eq(run(&g, 1), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_IP6_EXT);
	/* Extension header longer than the payload length */
	g = f;
	g.b[14 + 40 + 1] = 20;
	cr_assert_eq(run(&g, 1), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_IP6_EXT);
	/* payload_len beyond the frame */
	g = f;
	set16(&g, 14 + 4, 1000);
	cr_assert_eq(run(&g, 1), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_IP_TOTLEN);
	cr_assert_eq(P.is_ip, true);
	cr_assert_eq(P.l4, PD_L4_TCP, "dissected on");
	cr_assert_eq(P.ip.total_len, 84, "clipped to the frame");
	cr_assert_eq(P.tcp.payload_len, 8);
}

Test(dissect, ipv6_atomic_fragment)
{
	frame t = {0}, pl = {0}, ip = {0};
	tcp(&t, 1, 2, 3, 4, PD_TCP_SYN, NULL, 0, NULL, 0);
	put8(&pl, 6);
	put8(&pl, 0);
	put16(&pl, 0);
	put32(&pl, 99);
	cat(&pl, &t);
	ipv6(&ip, 44, &pl);
	cr_assert_eq(run(&ip, 229), PD_DISSECT_OK);
	cr_assert_eq(P.ip.has_frag_header, true);
	cr_assert_eq(P.ip.is_fragment, false);
	cr_assert_eq(P.ip.ident, 99);
	cr_assert_eq(P.l4, PD_L4_TCP);
	cr_assert_eq(P.tcp.flags, PD_TCP_SYN);
}

Test(dissect, ipv6_chain_limits)
{
	/* 17 destination-options headers: too many */
	frame pl = {0}, ip = {0};
	for (int i = 0; i < 17; i++) {
		put8(&pl, i == 16 ? 59 : 60);
		put8(&pl, 0);
		putn(&pl, "\1\4\0\0\0\0", 6);
	}
	ipv6(&ip, 60, &pl);
	cr_assert_eq(run(&ip, 229), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_IP6_EXT);
	/* 16 is fine, ends in no-next-header */
	pl.len = 8 * 16;
	pl.b[8 * 15] = 59;
	ip.len = 0;
	ipv6(&ip, 60, &pl);
	cr_assert_eq(run(&ip, 229), PD_DISSECT_OK);
	cr_assert_eq(P.ip.proto, 59);
	cr_assert_eq(P.l4, PD_L4_OTHER);
	cr_assert_eq(P.ip.hdr_len, 40 + 128);
	/* AH: (len + 2) * 4 */
	frame t = {0};
	pl.len = ip.len = 0;
	put8(&pl, 17);
	put8(&pl, 4); /* 24 bytes */
	for (int i = 0; i < 22; i++)
		put8(&pl, 0);
	udp(&t, 500, 500, "ike", 3);
	cat(&pl, &t);
	ipv6(&ip, 51, &pl);
	cr_assert_eq(run(&ip, 229), PD_DISSECT_OK);
	cr_assert_eq(P.ip.hdr_len, 64);
	cr_assert_eq(P.l4, PD_L4_UDP);
	cr_assert_eq(P.udp.payload_len, 3);
	/* ESP stops the chain */
	ip.len = 0;
	ipv6(&ip, 50, &pl);
	cr_assert_eq(run(&ip, 229), PD_DISSECT_OK);
	cr_assert_eq(P.ip.proto, 50);
	cr_assert_eq(P.l4, PD_L4_OTHER);
}

Test(dissect, ipv6_payload_len_zero_is_wire)
{
	frame ip = {0};
	ipv6_tcp_l3(&ip);
	set16(&ip, 4, 0);
	cr_assert_eq(run2(&ip, 229, (uint32_t)ip.len, 70000), PD_DISSECT_OK);
	cr_assert_eq(P.ip.total_len, 70000);
	cr_assert_eq(P.tcp.payload_len, 70000 - 60);
	cr_assert_eq(P.tcp.payload_captured, 3);
}

/* ---- tunnels ---- */

Test(dissect, ip_in_ip_tunnels)
{
	frame ip6 = {0}, outer = {0}, f = {0};
	ipv6_tcp_l3(&ip6);
	ipv4(&outer, 41, NULL, 0, &ip6, 0);
	eth(&f, NULL, 0, 0x0800);
	cat(&f, &outer);
	expect_v6_tcp(run(&f, 1));
	cr_assert_eq(P.l3, f.b + 34, "the inner header");
	cr_assert_eq(P.ip.total_len, 63);
	/* IPv4 in IPv4 in IPv6: two levels */
	frame ip4 = {0}, mid = {0}, o6 = {0};
	ipv4_tcp_l3(&ip4);
	ipv4(&mid, 4, NULL, 0, &ip4, 0);
	ipv6(&o6, 4, &mid);
	expect_v4_tcp(run(&o6, 229));
	/* Inner header cut by the snaplen: the outer packet is reported */
	cr_assert_eq(run2(&f, 1, 14 + 20 + 30, (uint32_t)f.len), PD_DISSECT_OK);
	cr_assert_eq(P.ip.version, 4);
	cr_assert_eq(P.ip.proto, 41);
	cr_assert_eq(P.l4, PD_L4_OTHER);
	cr_assert_eq(P.snap_truncated, true);
	/* Inner header lying */
	frame g = f;
	g.b[34] = 0x45;
	cr_assert_eq(run(&g, 1), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_IP_VERSION);
	cr_assert_eq(P.ip.proto, 41);
	cr_assert_eq(P.l4, PD_L4_OTHER);
}

/* ---- ICMP ---- */

/* An ICMPv4 error quoting n bytes of an IPv4/TCP packet. */
static void icmp4_err(frame *f, uint8_t type, uint8_t code, uint16_t mtu, size_t quote)
{
	frame qt = {0}, qip = {0}, ic = {0}, ip = {0};
	tcp(&qt, 40000, 443, 0x11223344, 0x55667788, PD_TCP_ACK, NULL, 0, NULL, 0);
	qt.len = 1440; /* the original was a 1460-byte datagram */
	ipv4(&qip, 6, NULL, 0, &qt, 0x4000);
	/* swap addresses: it is our packet coming back */
	memcpy(qip.b + 12, DST4, 4);
	memcpy(qip.b + 16, SRC4, 4);
	put8(&ic, type);
	put8(&ic, code);
	put16(&ic, 0);
	put16(&ic, 0);
	put16(&ic, mtu);
	putn(&ic, qip.b, quote);
	ipv4(&ip, 1, NULL, 0, &ic, 0);
	eth(f, NULL, 0, 0x0800);
	cat(f, &ip);
}

Test(dissect, icmp_frag_needed_quotes_tcp)
{
	frame f = {0};
	icmp4_err(&f, 3, 4, 1400, 28);
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	cr_assert_eq(P.l4, PD_L4_ICMP);
	cr_assert_eq(P.icmp.type, 3);
	cr_assert_eq(P.icmp.code, 4);
	cr_assert_eq(P.icmp.is_error, true);
	cr_assert_eq(P.icmp.is_frag_needed, true);
	cr_assert_eq(P.icmp.mtu, 1400);
	cr_assert_eq(P.icmp.has_inner, true);
	cr_assert_eq(P.icmp.inner_ip.version, 4);
	cr_assert_eq(P.icmp.inner_ip.proto, 6);
	cr_assert_eq(P.icmp.inner_ip.total_len, 1460);
	cr_assert_eq(P.icmp.inner_ip.df, true);
	cr_assert_eq(memcmp(P.icmp.inner_ip.src.bytes, DST4, 4), 0);
	cr_assert_eq(memcmp(P.icmp.inner_ip.dst.bytes, SRC4, 4), 0);
	cr_assert_eq(P.icmp.inner_has_ports, true);
	cr_assert_eq(P.icmp.inner_sport, 40000);
	cr_assert_eq(P.icmp.inner_dport, 443);
	cr_assert_eq(P.icmp.inner_has_seq, true);
	cr_assert_eq(P.icmp.inner_seq, 0x11223344);

	/* Old router: MTU 0 */
	f.len = 0;
	icmp4_err(&f, 3, 4, 0, 28);
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	cr_assert_eq(P.icmp.is_frag_needed, true);
	cr_assert_eq(P.icmp.mtu, 0);

	/* RFC 1812 router quoting more than 8 bytes */
	f.len = 0;
	icmp4_err(&f, 11, 0, 0, 60);
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	cr_assert_eq(P.icmp.is_error, true);
	cr_assert_eq(P.icmp.is_frag_needed, false);
	cr_assert_eq(P.icmp.inner_seq, 0x11223344);
}

Test(dissect, icmp_error_truncated_quote)
{
	frame f = {0};
	icmp4_err(&f, 3, 1, 0, 24); /* 4 transport bytes: ports only */
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	cr_assert_eq(P.icmp.has_inner, true);
	cr_assert_eq(P.icmp.inner_has_ports, true);
	cr_assert_eq(P.icmp.inner_dport, 443);
	cr_assert_eq(P.icmp.inner_has_seq, false);

	f.len = 0;
	icmp4_err(&f, 3, 1, 0, 20); /* IP header only */
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	cr_assert_eq(P.icmp.has_inner, true);
	cr_assert_eq(P.icmp.inner_has_ports, false);

	f.len = 0;
	icmp4_err(&f, 3, 1, 0, 12); /* not even an IP header */
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	cr_assert_eq(P.icmp.is_error, true);
	cr_assert_eq(P.icmp.has_inner, false);

	/* ICMP error message shorter than 8 bytes on the wire */
	f.len = 0;
	icmp4_err(&f, 3, 1, 0, 0);
	set16(&f, 14 + 2, 20 + 6);
	f.len = 14 + 26;
	cr_assert_eq(run(&f, 1), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_ICMP);

	/* echo request: not an error */
	frame ic = {0}, ip = {0};
	putn(&ic, "\x08\x00\x00\x00\x00\x01\x00\x02", 8);
	ipv4(&ip, 1, NULL, 0, &ic, 0);
	f.len = 0;
	eth(&f, NULL, 0, 0x0800);
	cat(&f, &ip);
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	cr_assert_eq(P.l4, PD_L4_ICMP);
	cr_assert_eq(P.icmp.type, 8);
	cr_assert_eq(P.icmp.is_error, false);
	cr_assert_eq(P.icmp.has_inner, false);
}

Test(dissect, icmp6_packet_too_big)
{
	frame qt = {0}, qip = {0}, ic = {0}, ip = {0};
	tcp(&qt, 443, 50000, 0xabcdef01, 1, PD_TCP_ACK, NULL, 0, NULL, 0);
	qt.len = 1400;
	ipv6(&qip, 6, &qt);
	put8(&ic, 2);
	put8(&ic, 0);
	put16(&ic, 0);
	put32(&ic, 1280);
	putn(&ic, qip.b, 40 + 20 + 100);
	ipv6(&ip, 58, &ic);
	cr_assert_eq(run(&ip, 229), PD_DISSECT_OK);
	cr_assert_eq(P.l4, PD_L4_ICMP6);
	cr_assert_eq(P.icmp.type, 2);
	cr_assert_eq(P.icmp.is_error, true);
	cr_assert_eq(P.icmp.is_frag_needed, true);
	cr_assert_eq(P.icmp.mtu, 1280);
	cr_assert_eq(P.icmp.has_inner, true);
	cr_assert_eq(P.icmp.inner_ip.version, 6);
	cr_assert_eq(P.icmp.inner_ip.total_len, 1440);
	cr_assert_eq(P.icmp.inner_ip.proto, 6);
	cr_assert_eq(P.icmp.inner_sport, 443);
	cr_assert_eq(P.icmp.inner_dport, 50000);
	cr_assert_eq(P.icmp.inner_has_seq, true);
	cr_assert_eq(P.icmp.inner_seq, 0xabcdef01);

	/* Echo request (128) is no error; ICMP in IPv4 proto 58 is OTHER */
	ic.len = ip.len = 0;
	putn(&ic, "\x80\x00\x00\x00\x00\x01\x00\x01", 8);
	ipv6(&ip, 58, &ic);
	cr_assert_eq(run(&ip, 229), PD_DISSECT_OK);
	cr_assert_eq(P.icmp.is_error, false);
	frame ip4 = {0};
	ipv4(&ip4, 58, NULL, 0, &ic, 0);
	cr_assert_eq(run(&ip4, 228), PD_DISSECT_OK);
	cr_assert_eq(P.l4, PD_L4_OTHER);
}

Test(dissect, quoted_ip_direct)
{
	pd_ip ip;
	pd_cursor c;
	const uint8_t junk[3] = {0x45, 0, 0};
	pd_cursor_init(&c, junk, sizeof(junk));
	cr_assert_eq(pd_dissect_quoted_ip(&ip, &c), false);
	pd_cursor_init(&c, NULL, 0);
	cr_assert_eq(pd_dissect_quoted_ip(&ip, &c), false);
	/* IHL 15 but only 24 bytes quoted: addresses yes, ports no */
	frame t = {0}, q = {0};
	tcp(&t, 9, 10, 11, 12, 0, NULL, 0, NULL, 0);
	uint8_t opts[40] = {0};
	ipv4(&q, 6, opts, 40, &t, 0);
	pd_cursor_init(&c, q.b, 24);
	cr_assert_eq(pd_dissect_quoted_ip(&ip, &c), true);
	cr_assert_eq(ip.version, 4);
	cr_assert_eq(pd_cursor_remaining(&c), 0);
	pd_cursor_init(&c, q.b, q.len);
	cr_assert_eq(pd_dissect_quoted_ip(&ip, &c), true);
	cr_assert_eq(ip.hdr_len, 60);
	cr_assert_eq(pd_cursor_remaining(&c), 20);
}

/* ---- snaplen cut at every byte ---- */

static void cut_everywhere(const frame *f, int lt, size_t ip_hdr_end, uint32_t want_l4_len, bool tcp_l4)
{
	/* Full frame first, for reference. */
	pd_dissect_status full = run(f, lt);
	cr_assert_eq(full, PD_DISSECT_OK);
	for (size_t n = 0; n <= f->len; n++) {
		pd_dissect_status st = run2(f, lt, (uint32_t)n, (uint32_t)f->len);
		cr_assert_neq(st, PD_DISSECT_MALFORMED, "cut at %zu: %s", n,
			      pd_malformed_name(P.malformed));
		cr_assert_eq(P.malformed, PD_MAL_NONE);
		cr_assert_eq(P.snap_truncated, n < f->len);
		if (n >= ip_hdr_end) {
			cr_assert_eq(st, PD_DISSECT_OK, "cut at %zu", n);
			cr_assert_eq(P.is_ip, true);
			if (tcp_l4 && P.l4 == PD_L4_TCP) {
				cr_assert_eq(P.tcp.payload_len, want_l4_len, "cut at %zu", n);
				cr_assert_leq(P.tcp.payload_captured, P.tcp.payload_len);
			}
		} else {
			cr_assert_eq(st, PD_DISSECT_TRUNCATED, "cut at %zu", n);
		}
	}
}

Test(dissect, snaplen_cut_every_byte)
{
	const uint8_t opts[] = {2, 4, 5, 0xb4, 1, 3, 3, 8, 1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2,
				1, 1, 5, 10, 0, 0, 0, 5, 0, 0, 0, 9};
	const uint8_t ipopts[] = {1, 1, 1, 0};
	frame t = {0}, ip = {0}, f = {0};
	tcp(&t, 1, 2, 3, 4, PD_TCP_ACK, opts, sizeof(opts), "some payload", 12);
	ipv4(&ip, 6, ipopts, 4, &t, 0);
	const uint16_t tags[] = {0x88a8, 10, 0x8100, 20};
	eth(&f, tags, 2, 0x0800);
	cat(&f, &ip);
	cut_everywhere(&f, 1, 22 + 24, 12, true);
	/* Once the options are complete they must be all there */
	cr_assert_eq(run2(&f, 1, 22 + 24 + 52, (uint32_t)f.len), PD_DISSECT_OK);
	cr_assert_eq(P.tcp.options_truncated, false);
	cr_assert_eq(P.tcp.sack_count, 1);
	cr_assert_eq(P.tcp.has_ts, true);

	/* IPv6 with hop-by-hop + fragment header in SLL2 */
	frame pl = {0}, ip6 = {0}, g = {0};
	t.len = 0;
	tcp(&t, 1, 2, 3, 4, PD_TCP_ACK, opts, sizeof(opts), "v6 data", 7);
	put8(&pl, 44);
	put8(&pl, 0);
	putn(&pl, "\1\4\0\0\0\0", 6);
	put8(&pl, 6);
	put8(&pl, 0);
	put16(&pl, 0);
	put32(&pl, 1);
	cat(&pl, &t);
	ipv6(&ip6, 0, &pl);
	put16(&g, 0x86DD);
	for (int i = 0; i < 18; i++)
		put8(&g, 0);
	cat(&g, &ip6);
	cut_everywhere(&g, 276, 20 + 56, 7, true);

	/* ICMP frag-needed: quote cuts at every length */
	frame h = {0};
	icmp4_err(&h, 3, 4, 1400, 28);
	cut_everywhere(&h, 1, 34, 0, false);

	/* UDP in NULL */
	frame u = {0}, uip = {0}, k = {0};
	udp(&u, 1, 2, "datagram", 8);
	ipv4(&uip, 17, NULL, 0, &u, 0);
	put32(&k, 2);
	cat(&k, &uip);
	cut_everywhere(&k, 108, 24, 0, false);
}

/* ---- tunnels: GRE, gretap, ERSPAN, VXLAN, GENEVE ---- */

/* Outer addresses, distinct from the inner SRC4/DST4 and SRC6/DST6. */
static const uint8_t OSRC4[4] = {172, 16, 0, 1};
static const uint8_t ODST4[4] = {172, 16, 0, 2};

/* Ethernet + outer IPv4 (DF, ident 7) with distinct addresses, carrying payload. */
static void outer4(frame *f, uint8_t proto, const frame *payload, uint16_t flags_off)
{
	frame ip = {0};
	ipv4(&ip, proto, NULL, 0, payload, flags_off);
	memcpy(ip.b + 12, OSRC4, 4);
	memcpy(ip.b + 16, ODST4, 4);
	eth(f, NULL, 0, 0x0800);
	cat(f, &ip);
}

/* GRE header; checksum, key and sequence words follow when flagged. */
static void gre(frame *f, uint16_t flags, uint16_t proto)
{
	put16(f, flags);
	put16(f, proto);
	if (flags & 0x8000)
		put32(f, 0); /* checksum, reserved */
	if (flags & 0x2000)
		put32(f, 42); /* key */
	if (flags & 0x1000)
		put32(f, 7); /* sequence */
}

static void vxlan(frame *f, uint32_t vni)
{
	put32(f, 0x08000000u);
	put32(f, vni << 8);
}

/* GENEVE with optwords 4-byte words of options (filled with 0x5a). */
static void geneve(frame *f, uint8_t optwords, uint16_t proto)
{
	put8(f, optwords & 0x3f);
	put8(f, 0);
	put16(f, proto);
	put32(f, 42u << 8);
	for (int i = 0; i < optwords * 4; i++)
		put8(f, 0x5a);
}

static void erspan2(frame *f, bool cut_by_mirror)
{
	put16(f, 0x1000 | 10); /* version 1, VLAN 10 */
	put16(f, (uint16_t)((cut_by_mirror ? 0x0400 : 0) | 42)); /* T, session 42 */
	put32(f, 0); /* reserved, index */
}

static void erspan3(frame *f, uint8_t frame_type, bool subheader)
{
	put16(f, 0x2000 | 10); /* version 2, VLAN 10 */
	put16(f, 42);
	put32(f, 0x01020304); /* timestamp */
	put16(f, 0); /* security group tag */
	put16(f, (uint16_t)((frame_type & 0x1f) << 10 | (subheader ? 1 : 0)));
	if (subheader)
		for (int i = 0; i < 8; i++)
			put8(f, 0xee);
}

/* Ethernet around the inner IPv4/TCP packet. */
static void eth_ipv4_tcp(frame *f)
{
	frame ip = {0};
	ipv4_tcp_l3(&ip);
	eth(f, NULL, 0, 0x0800);
	cat(f, &ip);
}

static void expect_decap(pd_tunnel kind, uint8_t depth)
{
	cr_assert_eq(P.tunnel_depth, depth);
	cr_assert(P.tunnels & (1u << kind), "tunnels 0x%x lack %s", P.tunnels, pd_tunnel_name(kind));
	cr_assert_eq(P.tunnel_stop, PD_TSTOP_NONE);
	cr_assert_eq(memcmp(P.tunnel_src.bytes, OSRC4, 4), 0);
	cr_assert_eq(memcmp(P.tunnel_dst.bytes, ODST4, 4), 0);
	cr_assert_eq(memcmp(P.ip.src.bytes, SRC4, 4) == 0 || P.ip.version == 6, true);
}

/* The outer packet stays, with the reason the tunnel was not opened. */
static void expect_outer(uint8_t proto, pd_l4 l4, pd_tunnel kind, pd_tunnel_stop why)
{
	cr_assert_eq(P.is_ip, true);
	cr_assert_eq(P.ip.proto, proto);
	cr_assert_eq(memcmp(P.ip.src.bytes, OSRC4, 4), 0);
	cr_assert_eq(P.l4, l4);
	cr_assert_eq(P.tunnel_depth, 0);
	cr_assert_eq(P.tunnels, 0);
	cr_assert_eq(P.tunnel_stop, why, "stop %s, want %s", pd_tunnel_stop_name(P.tunnel_stop),
		     pd_tunnel_stop_name(why));
	if (why != PD_TSTOP_NONE)
		cr_assert_eq(P.tunnel_stop_kind, kind, "kind %s", pd_tunnel_name(P.tunnel_stop_kind));
}

Test(tunnel, gre_ipv4_ipv6_and_optional_fields)
{
	frame ip4 = {0}, g = {0}, f = {0};
	ipv4_tcp_l3(&ip4);
	gre(&g, 0, 0x0800);
	cat(&g, &ip4);
	outer4(&f, 47, &g, 0x4000);
	expect_v4_tcp(run(&f, 1));
	expect_decap(PD_TUN_GRE, 1);
	cr_assert_eq(P.l3, f.b + 14 + 20 + 4, "the inner header");
	cr_assert_eq(memcmp(P.ip.src.bytes, SRC4, 4), 0);
	/* checksum, key and sequence number (RFC 2890), IPv6 inside */
	frame ip6 = {0}, g6 = {0}, f6 = {0};
	ipv6_tcp_l3(&ip6);
	gre(&g6, 0x8000 | 0x2000 | 0x1000, 0x86DD);
	cat(&g6, &ip6);
	outer4(&f6, 47, &g6, 0);
	expect_v6_tcp(run(&f6, 1));
	expect_decap(PD_TUN_GRE, 1);
	cr_assert_eq(P.l3, f6.b + 14 + 20 + 16);
	/* every cut: outer packet until the inner headers are whole */
	cut_everywhere(&f6, 1, 34, 3, true);
	cr_assert_eq(run2(&f6, 1, 14 + 20 + 10, (uint32_t)f6.len), PD_DISSECT_OK);
	expect_outer(47, PD_L4_OTHER, PD_TUN_GRE, PD_TSTOP_CUT);
	cr_assert_eq(P.snap_truncated, true);
	cr_assert_eq(run2(&f6, 1, 14 + 20 + 16 + 39, (uint32_t)f6.len), PD_DISSECT_OK);
	expect_outer(47, PD_L4_OTHER, PD_TUN_GRE, PD_TSTOP_CUT);
}

Test(tunnel, gre_not_opened)
{
	frame ip4 = {0};
	ipv4_tcp_l3(&ip4);
	struct {
		uint16_t flags, proto;
		pd_tunnel kind;
		pd_tunnel_stop why;
		uint16_t type;
	} cases[] = {
		{0x0001, 0x880B, PD_TUN_PPTP, PD_TSTOP_UNSUPPORTED, 0x880B}, /* version 1: PPTP */
		{0x0003, 0x0800, PD_TUN_GRE, PD_TSTOP_BROKEN, 0}, /* no version 3 */
		{0x4000, 0x0800, PD_TUN_GRE, PD_TSTOP_UNSUPPORTED, 0x0800}, /* RFC 1701 routing */
		{0x0100, 0x0800, PD_TUN_GRE, PD_TSTOP_UNSUPPORTED, 0x0800}, /* recursion control */
		{0x0000, 0x8847, PD_TUN_GRE, PD_TSTOP_UNSUPPORTED, 0x8847}, /* MPLS */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		frame g = {0}, f = {0};
		gre(&g, cases[i].flags, cases[i].proto);
		cat(&g, &ip4);
		outer4(&f, 47, &g, 0);
		cr_assert_eq(run(&f, 1), PD_DISSECT_OK, "case %zu", i);
		expect_outer(47, PD_L4_OTHER, cases[i].kind, cases[i].why);
		cr_assert_eq(P.tunnel_stop_type, cases[i].type, "case %zu", i);
		cr_assert_eq(P.l3, f.b + 14, "case %zu", i);
	}
	/* The outer total length leaves 2 bytes of GRE: a header that lies */
	frame two = {0}, f2 = {0};
	put16(&two, 0);
	outer4(&f2, 47, &two, 0);
	cr_assert_eq(run(&f2, 1), PD_DISSECT_OK);
	expect_outer(47, PD_L4_OTHER, PD_TUN_GRE, PD_TSTOP_BROKEN);
	/* Key flag set, key missing on the wire */
	frame k = {0}, f3 = {0};
	put16(&k, 0x2000);
	put16(&k, 0x0800);
	outer4(&f3, 47, &k, 0);
	cr_assert_eq(run(&f3, 1), PD_DISSECT_OK);
	expect_outer(47, PD_L4_OTHER, PD_TUN_GRE, PD_TSTOP_BROKEN);
	/* Inner header lying: malformed, as for IP-in-IP */
	frame g = {0}, f = {0};
	gre(&g, 0, 0x0800);
	cat(&g, &ip4);
	g.b[4] = 0x55; /* version 5 */
	outer4(&f, 47, &g, 0);
	cr_assert_eq(run(&f, 1), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_IP_VERSION);
	expect_outer(47, PD_L4_OTHER, PD_TUN_GRE, PD_TSTOP_BROKEN);
	/* An IPv6 packet in GRE that says IPv4: also a lie */
	frame ip6 = {0}, g6 = {0}, f6 = {0};
	ipv6_tcp_l3(&ip6);
	gre(&g6, 0, 0x0800);
	cat(&g6, &ip6);
	outer4(&f6, 47, &g6, 0);
	cr_assert_eq(run(&f6, 1), PD_DISSECT_MALFORMED);
	expect_outer(47, PD_L4_OTHER, PD_TUN_GRE, PD_TSTOP_BROKEN);
	/* Outer fragments are not reassembled: first and later ones */
	frame g7 = {0}, f7 = {0};
	gre(&g7, 0, 0x0800);
	cat(&g7, &ip4);
	outer4(&f7, 47, &g7, 0x2000);
	cr_assert_eq(run(&f7, 1), PD_DISSECT_OK);
	expect_outer(47, PD_L4_OTHER, PD_TUN_GRE, PD_TSTOP_FRAGMENT);
	f7.len = 0;
	outer4(&f7, 47, &g7, 0x0010);
	cr_assert_eq(run(&f7, 1), PD_DISSECT_OK);
	expect_outer(47, PD_L4_OTHER, PD_TUN_GRE, PD_TSTOP_FRAGMENT);
}

Test(tunnel, gretap_and_frames_without_ip)
{
	frame inner = {0}, g = {0}, f = {0}, ip4 = {0};
	ipv4_tcp_l3(&ip4);
	const uint16_t tag[] = {0x8100, 77};
	eth(&inner, tag, 1, 0x0800);
	cat(&inner, &ip4);
	gre(&g, 0x2000, 0x6558);
	cat(&g, &inner);
	outer4(&f, 47, &g, 0);
	expect_v4_tcp(run(&f, 1));
	expect_decap(PD_TUN_GRETAP, 1);
	cr_assert_eq(P.vlan_depth, 1);
	cr_assert_eq(P.vlan_id, 77);
	cr_assert_eq(P.l3, f.b + 14 + 20 + 8 + 18);
	cut_everywhere(&f, 1, 34, 3, true);
	/* Inner Ethernet cut: the outer packet */
	cr_assert_eq(run2(&f, 1, 14 + 20 + 8 + 10, (uint32_t)f.len), PD_DISSECT_OK);
	expect_outer(47, PD_L4_OTHER, PD_TUN_GRETAP, PD_TSTOP_CUT);
	/* ARP over gretap: not IP, as it would be without the tunnel */
	frame arp = {0}, ga = {0}, fa = {0};
	eth(&arp, NULL, 0, 0x0806);
	for (int i = 0; i < 28; i++)
		put8(&arp, (uint8_t)i);
	gre(&ga, 0, 0x6558);
	cat(&ga, &arp);
	outer4(&fa, 47, &ga, 0);
	cr_assert_eq(run(&fa, 1), PD_DISSECT_NOT_IP);
	cr_assert_eq(P.is_ip, false);
	cr_assert_eq(P.ethertype, 0x0806);
	cr_assert_eq(P.l4, PD_L4_NONE);
	cr_assert_null(P.l3);
	cr_assert_eq(P.tunnel_depth, 1);
	cr_assert(P.tunnels & (1u << PD_TUN_GRETAP));
	/* Inner Ethernet shorter than its header on the wire: a lie */
	frame gs = {0}, fs = {0};
	gre(&gs, 0, 0x6558);
	put32(&gs, 0);
	outer4(&fs, 47, &gs, 0);
	cr_assert_eq(run(&fs, 1), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_LINK);
	expect_outer(47, PD_L4_OTHER, PD_TUN_GRETAP, PD_TSTOP_BROKEN);
}

Test(tunnel, erspan_types)
{
	frame e = {0}, inner = {0}, f = {0};
	eth_ipv4_tcp(&inner);
	/* Type I: no sequence number, no ERSPAN header */
	gre(&e, 0, 0x88BE);
	cat(&e, &inner);
	outer4(&f, 47, &e, 0);
	expect_v4_tcp(run(&f, 1));
	expect_decap(PD_TUN_ERSPAN, 1);
	cr_assert_eq(P.l3, f.b + 14 + 20 + 4 + 14);
	/* Type II */
	e.len = f.len = 0;
	gre(&e, 0x1000, 0x88BE);
	erspan2(&e, false);
	cat(&e, &inner);
	outer4(&f, 47, &e, 0);
	expect_v4_tcp(run(&f, 1));
	expect_decap(PD_TUN_ERSPAN, 1);
	cr_assert_eq(P.l3, f.b + 14 + 20 + 8 + 8 + 14);
	cut_everywhere(&f, 1, 34, 3, true);
	cr_assert_eq(run2(&f, 1, 14 + 20 + 8 + 5, (uint32_t)f.len), PD_DISSECT_OK);
	expect_outer(47, PD_L4_OTHER, PD_TUN_ERSPAN, PD_TSTOP_CUT);
	/* Type II with a version it does not have */
	f.b[14 + 20 + 8] = 0x30;
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	expect_outer(47, PD_L4_OTHER, PD_TUN_ERSPAN, PD_TSTOP_UNSUPPORTED);
	/* Type III with the platform subheader */
	e.len = f.len = 0;
	gre(&e, 0x1000, 0x22EB);
	erspan3(&e, 0, true);
	cat(&e, &inner);
	outer4(&f, 47, &e, 0);
	expect_v4_tcp(run(&f, 1));
	expect_decap(PD_TUN_ERSPAN, 1);
	cr_assert_eq(P.l3, f.b + 14 + 20 + 8 + 20 + 14);
	cut_everywhere(&f, 1, 34, 3, true);
	/* Type III carrying IP without Ethernet (frame type 2) */
	frame ip6 = {0};
	ipv6_tcp_l3(&ip6);
	e.len = f.len = 0;
	gre(&e, 0x1000, 0x22EB);
	erspan3(&e, 2, false);
	cat(&e, &ip6);
	outer4(&f, 47, &e, 0);
	expect_v6_tcp(run(&f, 1));
	expect_decap(PD_TUN_ERSPAN, 1);
	/* Type III with a frame type it does not follow */
	e.len = f.len = 0;
	gre(&e, 0x1000, 0x22EB);
	erspan3(&e, 5, false);
	cat(&e, &ip6);
	outer4(&f, 47, &e, 0);
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	expect_outer(47, PD_L4_OTHER, PD_TUN_ERSPAN, PD_TSTOP_UNSUPPORTED);
}

Test(tunnel, erspan_frame_cut_by_the_mirror)
{
	/* The switch mirrored only the first bytes (T bit): the inner lengths
	 * describe the original frame, like a snaplen cut, not a lie. */
	frame t = {0}, ip = {0}, inner = {0}, e = {0}, f = {0};
	static const char data[1000] = {0};
	tcp(&t, 40000, 443, 1000, 2000, PD_TCP_ACK, NULL, 0, data, sizeof(data));
	ipv4(&ip, 6, NULL, 0, &t, 0);
	eth(&inner, NULL, 0, 0x0800);
	cat(&inner, &ip);
	inner.len = 14 + 20 + 20 + 60; /* what the mirror kept */
	gre(&e, 0x1000, 0x88BE);
	erspan2(&e, true);
	cat(&e, &inner);
	outer4(&f, 47, &e, 0);
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	expect_decap(PD_TUN_ERSPAN, 1);
	cr_assert_eq(P.malformed, PD_MAL_NONE);
	cr_assert_eq(P.l4, PD_L4_TCP);
	cr_assert_eq(P.ip.total_len, 1040);
	cr_assert_eq(P.tcp.payload_len, 1000);
	cr_assert_eq(P.tcp.payload_captured, 60);
	cr_assert_eq(P.snap_truncated, true);
	cr_assert_eq(P.wirelen, f.len);
	/* Without the T bit the same bytes lie about their length */
	f.b[14 + 20 + 8 + 2] &= (uint8_t)~0x04;
	cr_assert_eq(run(&f, 1), PD_DISSECT_MALFORMED);
	cr_assert_eq(P.malformed, PD_MAL_IP_TOTLEN);
}

/* Ethernet/IPv4/UDP to dport carrying payload (outer addresses). */
static void udp4(frame *f, uint16_t sport, uint16_t dport, const frame *payload, uint16_t flags_off)
{
	frame u = {0};
	udp(&u, sport, dport, payload->b, payload->len);
	outer4(f, 17, &u, flags_off);
}

Test(tunnel, vxlan)
{
	frame v = {0}, inner = {0}, f = {0};
	eth_ipv4_tcp(&inner);
	vxlan(&v, 42);
	cat(&v, &inner);
	udp4(&f, 51353, 4789, &v, 0);
	expect_v4_tcp(run(&f, 1));
	expect_decap(PD_TUN_VXLAN, 1);
	cr_assert_eq(P.l3, f.b + 14 + 20 + 8 + 8 + 14);
	cr_assert_eq(P.tcp.sport, 40000);
	cut_everywhere(&f, 1, 34, 3, true);
	/* VXLAN header whole, inner cut: plain UDP, the tunnel noted as cut */
	cr_assert_eq(run2(&f, 1, 14 + 20 + 8 + 8 + 14 + 10, (uint32_t)f.len), PD_DISSECT_OK);
	expect_outer(17, PD_L4_UDP, PD_TUN_VXLAN, PD_TSTOP_CUT);
	cr_assert_eq(P.udp.dport, 4789);
	/* Linux's old default port */
	f.len = 0;
	udp4(&f, 1, 8472, &v, 0);
	expect_v4_tcp(run(&f, 1));
	expect_decap(PD_TUN_VXLAN, 1);
	/* IPv6 underlay */
	frame u = {0}, o6 = {0}, f6 = {0};
	udp(&u, 1, 4789, v.b, v.len);
	ipv6(&o6, 17, &u);
	eth(&f6, NULL, 0, 0x86DD);
	cat(&f6, &o6);
	expect_v4_tcp(run(&f6, 1));
	cr_assert_eq(P.tunnel_depth, 1);
	cr_assert_eq(P.tunnel_src.family, 6);
	cr_assert_eq(memcmp(P.tunnel_src.bytes, SRC6, 16), 0);
	/* ARP in VXLAN */
	frame arp = {0}, va = {0}, fa = {0};
	eth(&arp, NULL, 0, 0x0806);
	for (int i = 0; i < 28; i++)
		put8(&arp, (uint8_t)i);
	vxlan(&va, 42);
	cat(&va, &arp);
	udp4(&fa, 1, 4789, &va, 0);
	cr_assert_eq(run(&fa, 1), PD_DISSECT_NOT_IP);
	cr_assert(P.tunnels & (1u << PD_TUN_VXLAN));
	/* First fragment of a VXLAN datagram: not reassembled */
	f.len = 0;
	udp4(&f, 1, 4789, &v, 0x2000);
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	expect_outer(17, PD_L4_UDP, PD_TUN_VXLAN, PD_TSTOP_FRAGMENT);
}

/* What is on a tunnel's UDP port but does not parse as the tunnel all the
 * way to a sane inner IP header is plain UDP: nothing else changes. */
static void expect_plain_udp(const frame *payload, uint16_t sport, uint16_t dport)
{
	frame f = {0};
	udp4(&f, sport, dport, payload, 0);
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	expect_outer(17, PD_L4_UDP, PD_TUN_NONE, PD_TSTOP_NONE);
	cr_assert_eq(P.malformed, PD_MAL_NONE);
	cr_assert_eq(P.udp.dport, dport);
	cr_assert_eq(P.udp.payload_len, payload->len);
	cr_assert_eq(P.l3, f.b + 14);
}

Test(tunnel, udp_ports_without_a_tunnel)
{
	frame inner = {0};
	eth_ipv4_tcp(&inner);
	frame p = {0};
	/* random bytes, a short payload, no payload */
	putn(&p, "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10", 16);
	expect_plain_udp(&p, 1, 4789);
	expect_plain_udp(&p, 1, 6081);
	p.len = 5;
	expect_plain_udp(&p, 1, 4789);
	p.len = 0;
	expect_plain_udp(&p, 1, 4789);
	/* the VXLAN port as the source only */
	frame v = {0};
	vxlan(&v, 42);
	cat(&v, &inner);
	expect_plain_udp(&v, 4789, 40000);
	/* I flag missing; other flag bits; last byte not zero */
	frame w = v;
	w.b[0] = 0x00;
	expect_plain_udp(&w, 1, 4789);
	w = v;
	w.b[0] = 0x0c;
	expect_plain_udp(&w, 1, 4789);
	w = v;
	w.b[7] = 1;
	expect_plain_udp(&w, 1, 4789);
	/* inner "Ethernet" with a type an overlay does not carry */
	w = v;
	w.b[8 + 12] = 0x12;
	w.b[8 + 13] = 0x34;
	expect_plain_udp(&w, 1, 4789);
	/* inner IPv4 that lies: version, header length, total length */
	w = v;
	w.b[8 + 14] = 0x55;
	expect_plain_udp(&w, 1, 4789);
	w = v;
	w.b[8 + 14] = 0x43;
	expect_plain_udp(&w, 1, 4789);
	w = v;
	set16(&w, 8 + 14 + 2, 900);
	expect_plain_udp(&w, 1, 4789);
	/* inner Ethernet shorter than its header on the wire */
	w = v;
	w.len = 8 + 10;
	expect_plain_udp(&w, 1, 4789);
	/* GENEVE: version 1, a protocol type it does not follow */
	frame g = {0};
	geneve(&g, 0, 0x6558);
	cat(&g, &inner);
	w = g;
	w.b[0] = 0x40;
	expect_plain_udp(&w, 1, 6081);
	w = g;
	w.b[2] = 0x12;
	expect_plain_udp(&w, 1, 6081);
	/* options longer than the datagram */
	w = g;
	w.b[0] = 0x3f;
	expect_plain_udp(&w, 1, 6081);
}

Test(tunnel, geneve)
{
	frame g = {0}, inner = {0}, f = {0};
	eth_ipv4_tcp(&inner);
	geneve(&g, 2, 0x6558);
	cat(&g, &inner);
	udp4(&f, 6081, 6081, &g, 0);
	expect_v4_tcp(run(&f, 1));
	expect_decap(PD_TUN_GENEVE, 1);
	cr_assert_eq(P.l3, f.b + 14 + 20 + 8 + 16 + 14);
	cut_everywhere(&f, 1, 34, 3, true);
	/* IP directly (protocol type 0x0800 and 0x86DD) */
	frame ip4 = {0}, ip6 = {0};
	ipv4_tcp_l3(&ip4);
	ipv6_tcp_l3(&ip6);
	g.len = f.len = 0;
	geneve(&g, 0, 0x0800);
	cat(&g, &ip4);
	udp4(&f, 1, 6081, &g, 0);
	expect_v4_tcp(run(&f, 1));
	expect_decap(PD_TUN_GENEVE, 1);
	g.len = f.len = 0;
	geneve(&g, 1, 0x86DD);
	cat(&g, &ip6);
	udp4(&f, 1, 6081, &g, 0);
	expect_v6_tcp(run(&f, 1));
	expect_decap(PD_TUN_GENEVE, 1);
	/* options cut by the snaplen */
	g.len = f.len = 0;
	geneve(&g, 10, 0x6558);
	cat(&g, &inner);
	udp4(&f, 1, 6081, &g, 0);
	cr_assert_eq(run2(&f, 1, 14 + 20 + 8 + 8 + 12, (uint32_t)f.len), PD_DISSECT_OK);
	expect_outer(17, PD_L4_UDP, PD_TUN_GENEVE, PD_TSTOP_CUT);
	/* options that end the datagram, cut right before them */
	g.len = f.len = 0;
	geneve(&g, 4, 0x6558);
	udp4(&f, 1, 6081, &g, 0);
	cr_assert_eq(run2(&f, 1, 14 + 20 + 8 + 8, (uint32_t)f.len), PD_DISSECT_OK);
	expect_outer(17, PD_L4_UDP, PD_TUN_GENEVE, PD_TSTOP_CUT);
}

Test(tunnel, nesting_is_bounded)
{
	/* IP-in-IP as deep as allowed: the innermost packet */
	frame cur = {0};
	ipv4_tcp_l3(&cur);
	for (int i = 0; i < PD_MAX_TUNNEL_DEPTH; i++) {
		frame next = {0};
		ipv4(&next, 4, NULL, 0, &cur, 0);
		cur = next;
	}
	frame f = {0};
	eth(&f, NULL, 0, 0x0800);
	cat(&f, &cur);
	expect_v4_tcp(run(&f, 1));
	cr_assert_eq(P.tunnel_depth, PD_MAX_TUNNEL_DEPTH);
	cr_assert_eq(P.tunnels, 1u << PD_TUN_IPIP);
	/* one more: the last tunnel is left closed */
	frame deeper = {0};
	ipv4(&deeper, 4, NULL, 0, &cur, 0);
	f.len = 0;
	eth(&f, NULL, 0, 0x0800);
	cat(&f, &deeper);
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	cr_assert_eq(P.tunnel_depth, PD_MAX_TUNNEL_DEPTH);
	cr_assert_eq(P.ip.proto, 4);
	cr_assert_eq(P.l4, PD_L4_OTHER);
	cr_assert_eq(P.tunnel_stop, PD_TSTOP_DEPTH);
	cr_assert_eq(P.tunnel_stop_kind, PD_TUN_IPIP);
	/* Mixed: TCP in VXLAN in GRE in IPv4; the outermost addresses kept */
	frame inner = {0}, v = {0}, u = {0}, mid = {0}, g = {0}, m = {0};
	eth_ipv4_tcp(&inner);
	vxlan(&v, 1);
	cat(&v, &inner);
	udp(&u, 1, 4789, v.b, v.len);
	ipv6(&mid, 17, &u);
	gre(&g, 0, 0x86DD);
	cat(&g, &mid);
	outer4(&m, 47, &g, 0);
	expect_v4_tcp(run(&m, 1));
	expect_decap(PD_TUN_GRE, 2);
	cr_assert(P.tunnels & (1u << PD_TUN_VXLAN));
	cut_everywhere(&m, 1, 34, 3, true);
}

Test(tunnel, names)
{
	cr_assert_str_eq(pd_tunnel_name(PD_TUN_VXLAN), "VXLAN");
	cr_assert_str_eq(pd_tunnel_name(PD_TUN_PPTP), "GRE version 1 (PPTP)");
	cr_assert_str_eq(pd_tunnel_name(PD_TUN__COUNT), "unknown");
	cr_assert_str_eq(pd_tunnel_stop_name(PD_TSTOP_CUT), "cut");
	cr_assert_str_eq(pd_tunnel_stop_name(PD_TSTOP__COUNT), "unknown");
	for (int k = 0; k < PD_TUN__COUNT; k++)
		cr_assert_str_neq(pd_tunnel_name((pd_tunnel)k), "unknown");
	for (int s = 0; s < PD_TSTOP__COUNT; s++)
		cr_assert_str_neq(pd_tunnel_stop_name((pd_tunnel_stop)s), "unknown");
}

/* ---- helpers ---- */

Test(dissect, addr_helpers_and_names)
{
	pd_addr a = {0}, b = {0}, c6 = {0};
	a.family = b.family = 4;
	memcpy(a.bytes, SRC4, 4);
	memcpy(b.bytes, DST4, 4);
	c6.family = 6;
	memcpy(c6.bytes, SRC6, 16);
	char buf[PD_ADDR_STRLEN];
	cr_assert_str_eq(pd_addr_str(&a, buf, sizeof(buf)), "10.0.0.1");
	cr_assert_str_eq(pd_addr_str(&c6, buf, sizeof(buf)), "2001:db8::1");
	cr_assert_eq(pd_addr_equal(&a, &a), true);
	cr_assert_eq(pd_addr_equal(&a, &b), false);
	cr_assert_lt(pd_addr_cmp(&a, &b), 0);
	cr_assert_gt(pd_addr_cmp(&b, &a), 0);
	cr_assert_eq(pd_addr_cmp(&a, &a), 0);
	cr_assert_lt(pd_addr_cmp(&a, &c6), 0, "v4 sorts before v6");
	char tiny[4];
	cr_assert_str_eq(pd_addr_str(&a, tiny, sizeof(tiny)), "");
	pd_addr none = {0};
	cr_assert_str_eq(pd_addr_str(&none, buf, sizeof(buf)), "-");
	for (int m = 0; m < PD_MAL__COUNT; m++) {
		cr_assert_not_null(pd_malformed_name((pd_malformed)m));
		cr_assert_str_neq(pd_malformed_name((pd_malformed)m), "unknown");
	}
	cr_assert_str_eq(pd_malformed_name(PD_MAL__COUNT), "unknown");
	cr_assert_str_eq(pd_malformed_name(PD_MAL_NONE), "none");
}

/* ---- every public capture ---- */

typedef struct cap_stats {
	uint64_t frames, ip, tcp, udp, icmp, frag4, frag6, vlan, ptb, fragneeded, truncated;
	uint64_t st[5];
} cap_stats;

static void dissect_file(const char *path, cap_stats *s, int *linktype)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	if (!p)
		return;
	*linktype = pcap_datalink(p);
	struct pcap_pkthdr *h;
	const u_char *data;
	while (pcap_next_ex(p, &h, &data) == 1) {
		pd_packet pkt;
		memset(&pkt, 0, sizeof(pkt));
		pkt.frame_no = ++s->frames;
		pkt.caplen = h->caplen;
		pkt.wirelen = h->len;
		pkt.linktype = *linktype;
		/* Exact-size copy so ASan catches any overread. */
		uint8_t *d = malloc(h->caplen ? h->caplen : 1);
		cr_assert(d);
		memcpy(d, data, h->caplen);
		pd_dissect_status st = pd_dissect(&pkt, d);
		cr_assert_leq((unsigned)st, 4u);
		s->st[st]++;
		cr_assert_eq(st == PD_DISSECT_MALFORMED, pkt.malformed != PD_MAL_NONE, "%s #%lu", path,
			     (unsigned long)pkt.frame_no);
		if (pkt.l3)
			cr_assert(pkt.l3 >= d && pkt.l3 + pkt.l3_captured <= d + h->caplen);
		if (pkt.is_ip) {
			s->ip++;
			cr_assert(pkt.ip.version == 4 || pkt.ip.version == 6);
			cr_assert_leq(pkt.ip.hdr_len, pkt.ip.total_len);
			cr_assert_leq(pkt.ip.captured_len, pkt.l3_captured);
			if (pkt.ip.version == 4 && pkt.ip.is_fragment)
				s->frag4++;
			if (pkt.ip.has_frag_header)
				s->frag6++;
		}
		if (pkt.vlan_depth)
			s->vlan++;
		if (pkt.snap_truncated)
			s->truncated++;
		if (pkt.l4 == PD_L4_TCP) {
			s->tcp++;
			cr_assert_geq(pkt.tcp.hdr_len, 20);
			cr_assert_leq(pkt.tcp.hdr_len, 60);
			cr_assert_leq(pkt.tcp.payload_captured, pkt.caplen);
			cr_assert_leq(pkt.tcp.payload_captured, pkt.tcp.payload_len);
			cr_assert_leq(pkt.tcp.sack_count, PD_MAX_SACK_BLOCKS);
			cr_assert(pkt.tcp.wscale >= -1 && pkt.tcp.wscale <= 14);
			if (pkt.tcp.payload)
				cr_assert(pkt.tcp.payload >= d &&
					  pkt.tcp.payload + pkt.tcp.payload_captured <= d + h->caplen);
			/* Header lengths add up unless it is a first fragment. */
			if (!pkt.ip.is_fragment)
				cr_assert_eq((uint64_t)pkt.ip.hdr_len + pkt.tcp.hdr_len + pkt.tcp.payload_len,
					     pkt.ip.total_len);
		}
		if (pkt.l4 == PD_L4_UDP) {
			s->udp++;
			cr_assert_leq(pkt.udp.payload_captured, pkt.udp.payload_len);
		}
		if ((pkt.l4 == PD_L4_ICMP || pkt.l4 == PD_L4_ICMP6)) {
			s->icmp++;
			if (pkt.icmp.is_frag_needed && pkt.l4 == PD_L4_ICMP)
				s->fragneeded++;
			if (pkt.icmp.is_frag_needed && pkt.l4 == PD_L4_ICMP6)
				s->ptb++;
		}
		free(d);
	}
	pcap_close(p);
}

static bool ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

/* Checks a few facts about specific files against the tshark counts in
 * traces/public/MANIFEST.md. */
static void check_known(const char *rel, const cap_stats *s, int lt)
{
	if (strcmp(rel, "zeek/nflog-http.pcap") == 0) {
		cr_assert_eq(lt, 239);
		cr_assert_gt(s->tcp, 0, "%s", rel);
	} else if (strcmp(rel, "zeek/q-in-q.pcap") == 0) {
		cr_assert_eq(s->vlan, 5, "%s", rel);
	} else if (strcmp(rel, "zeek/vlan-collisions.pcap") == 0) {
		cr_assert_eq(s->vlan, 28, "%s", rel);
	} else if (strcmp(rel, "zeek/icmp6-toobig.pcap") == 0 ||
		   strcmp(rel, "suricata-verify/toobig.pcap") == 0) {
		cr_assert_eq(s->ptb, 1, "%s", rel);
	} else if (strcmp(rel, "zeek/smtp.pcap") == 0) {
		cr_assert_eq(s->fragneeded, 4, "%s", rel);
	} else if (strcmp(rel, "PcapPlusPlus/frag_http_req.pcap") == 0) {
		cr_assert_eq(s->frag4, 11, "%s", rel);
	} else if (strcmp(rel, "chrissanders-packets/ipv6_fragments.pcapng") == 0) {
		cr_assert_eq(s->frag6, 20, "%s", rel);
	} else if (strcmp(rel, "PcapPlusPlus/sll2.pcap") == 0 ||
		   strcmp(rel, "PcapPlusPlus/null_loopback.pcap") == 0 ||
		   strcmp(rel, "PcapPlusPlus/raw_ip.pcap") == 0 ||
		   strcmp(rel, "tcpdump/tcp-handshake-nano.pcap") == 0 ||
		   strcmp(rel, "tcpdump/bigtcp-ipv4.pcap") == 0 ||
		   strcmp(rel, "tcpdump/ipv4_tcp_http_xml_tso.pcap") == 0) {
		cr_assert_gt(s->tcp, 0, "%s", rel);
		cr_assert_eq(s->st[PD_DISSECT_MALFORMED], 0, "%s", rel);
	}
}

Test(dissect, public_captures, .timeout = 240)
{
	const char *shared = getenv("PD_SHARED");
	char root[4096];
	snprintf(root, sizeof(root), "%s/traces/public", shared ? shared : "../shared");
	DIR *top = opendir(root);
	if (!top)
		cr_skip_test("no captures under %s", root);
	int files = 0;
	struct dirent *e;
	while ((e = readdir(top))) {
		if (e->d_name[0] == '.')
			continue;
		char dir[4096 + 256];
		snprintf(dir, sizeof(dir), "%s/%s", root, e->d_name);
		DIR *sub = opendir(dir);
		if (!sub)
			continue;
		struct dirent *fe;
		while ((fe = readdir(sub))) {
			const char *n = fe->d_name;
			if (ends_with(n, ".gz") ||
			    !(ends_with(n, ".pcap") || ends_with(n, ".pcapng") || ends_with(n, ".cap")))
				continue;
			char path[sizeof(dir) + 256], rel[600];
			snprintf(path, sizeof(path), "%s/%s", dir, n);
			snprintf(rel, sizeof(rel), "%s/%s", e->d_name, n);
			cap_stats s = {0};
			int lt = -1;
			dissect_file(path, &s, &lt);
			if (lt < 0)
				continue; /* libpcap could not open it */
			files++;
			check_known(rel, &s, lt);
			if (getenv("PD_DISSECT_VERBOSE"))
				fprintf(stderr,
					"%-60s lt=%3d frames=%6lu ip=%6lu tcp=%6lu udp=%5lu icmp=%4lu ok=%lu unsup=%lu notip=%lu mal=%lu trunc=%lu\n",
					rel, lt, (unsigned long)s.frames, (unsigned long)s.ip,
					(unsigned long)s.tcp, (unsigned long)s.udp, (unsigned long)s.icmp,
					(unsigned long)s.st[0], (unsigned long)s.st[1], (unsigned long)s.st[2],
					(unsigned long)s.st[3], (unsigned long)s.st[4]);
		}
		closedir(sub);
	}
	closedir(top);
	cr_assert_gt(files, 10, "read %d capture files", files);
}

/* The cooked headers of `tcpdump -i any` say whether the capture host sent
 * a frame (packet type 4) or received it (0): the SYN in these captures was
 * sent by the client host the capture ran on, the SYN-ACK received. */
static void check_link_dirs(const char *rel, int linktype)
{
	const char *root = getenv("PD_SOURCE_ROOT");
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", root ? root : ".", rel);
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline(path, err);
	cr_assert_not_null(p, "%s: %s", path, err);
	cr_assert_eq(pcap_datalink(p), linktype);
	const uint8_t want[2] = {PD_LINK_OUTGOING, PD_LINK_INCOMING};
	for (int i = 0; i < 2; i++) {
		struct pcap_pkthdr *h;
		const u_char *data;
		cr_assert_eq(pcap_next_ex(p, &h, &data), 1);
		pd_packet pkt;
		memset(&pkt, 0, sizeof(pkt));
		pkt.frame_no = (uint64_t)i + 1;
		pkt.caplen = h->caplen;
		pkt.wirelen = h->len;
		pkt.linktype = linktype;
		cr_assert_eq(pd_dissect(&pkt, data), PD_DISSECT_OK);
		cr_expect_eq(pkt.link_dir, want[i], "%s frame %d: link_dir %d", rel, i + 1, pkt.link_dir);
		cr_expect(pkt.l4 == PD_L4_TCP && (pkt.tcp.flags & PD_TCP_SYN));
	}
	pcap_close(p);
}

Test(link, cooked_headers_give_the_direction)
{
	check_link_dirs("testdata/captures/linktypes/sll2-any.pcap", 276);
	check_link_dirs("testdata/captures/linktypes/sll.pcap", 113);
}

/* ---- 802.11, PPP, HDLC, PPPoE; Aruba GRE (issue 34) ---- */

/* An 802.11 header: frame control (type, subtype; flags: to-DS 0x01,
 * from-DS 0x02, protected 0x40, order 0x80), duration, 3 addresses,
 * sequence control, the 4th address with both DS bits, QoS control in QoS
 * subtypes (little-endian), HT control when a QoS frame sets order. */
static void wlan(frame *f, uint8_t type, uint8_t subtype, uint8_t flags, uint16_t qos)
{
	put8(f, (uint8_t)(subtype << 4 | type << 2));
	put8(f, flags);
	put16(f, 0x2c00);
	for (int i = 0; i < 18; i++)
		put8(f, (uint8_t)(0x10 + i));
	put16(f, 0x1234);
	if ((flags & 3) == 3)
		for (int i = 0; i < 6; i++)
			put8(f, (uint8_t)(0x40 + i));
	if (subtype & 8) {
		put8(f, (uint8_t)qos);
		put8(f, (uint8_t)(qos >> 8));
		if (flags & 0x80)
			put32(f, 0);
	}
}

static void snap(frame *f, uint16_t type)
{
	const uint8_t h[6] = {0xAA, 0xAA, 0x03, 0, 0, 0};
	putn(f, h, 6);
	put16(f, type);
}

/* 802.11 data (header as given) + SNAP + the inner IPv4/TCP packet. */
static void wlan_ipv4_tcp(frame *f, uint8_t subtype, uint8_t flags, uint16_t qos)
{
	frame ip = {0};
	ipv4_tcp_l3(&ip);
	wlan(f, 2, subtype, flags, qos);
	if (qos & 0x80) { /* A-MSDU subframe header: DA, SA, length */
		for (int i = 0; i < 12; i++)
			put8(f, (uint8_t)(0x60 + i));
		put16(f, (uint16_t)(8 + ip.len));
	}
	snap(f, 0x0800);
	cat(f, &ip);
}

static void aruba(frame *f, uint16_t proto, const frame *w)
{
	frame g = {0};
	gre(&g, 0, proto);
	cat(&g, w);
	outer4(f, 47, &g, 0x4000);
}

Test(tunnel, aruba_gre_80211_data_frames)
{
	const uint16_t protos[] = {0x8200, 0x8210, 0x83f0, 0x9000};
	const struct {
		uint8_t subtype, flags;
		uint16_t qos;
	} hdrs[] = {
		{0, 0x01, 0}, /* data, to DS */
		{0, 0x02, 0}, /* data, from DS */
		{8, 0x01, 0x0005}, /* QoS data, TID 5 */
		{8, 0x83, 0x0000}, /* QoS data, 4 addresses, HT control */
		{8, 0x02, 0x0080}, /* QoS data, A-MSDU */
	};
	for (size_t p = 0; p < sizeof(protos) / sizeof(protos[0]); p++) {
		for (size_t h = 0; h < sizeof(hdrs) / sizeof(hdrs[0]); h++) {
			frame w = {0}, f = {0};
			wlan_ipv4_tcp(&w, hdrs[h].subtype, hdrs[h].flags, hdrs[h].qos);
			aruba(&f, protos[p], &w);
			expect_v4_tcp(run(&f, 1));
			expect_decap(PD_TUN_ARUBA, 1);
		}
	}
	/* IPv6 inside */
	frame ip6 = {0}, w = {0}, f = {0};
	ipv6_tcp_l3(&ip6);
	wlan(&w, 2, 8, 0x01, 0);
	snap(&w, 0x86DD);
	cat(&w, &ip6);
	aruba(&f, 0x8200, &w);
	expect_v6_tcp(run(&f, 1));
	cr_assert(P.tunnels & (1u << PD_TUN_ARUBA));
	cr_assert_str_eq(pd_tunnel_name(PD_TUN_ARUBA), "GRE/802.11 (Aruba)");
}

Test(tunnel, aruba_gre_frames_without_ip)
{
	/* protected: the body is encrypted, the tunnel stays closed */
	frame w = {0}, f = {0};
	wlan_ipv4_tcp(&w, 8, 0x41, 0);
	aruba(&f, 0x8200, &w);
	cr_assert_eq(run(&f, 1), PD_DISSECT_OK);
	expect_outer(47, PD_L4_OTHER, PD_TUN_ARUBA, PD_TSTOP_UNSUPPORTED);
	cr_assert_eq(P.tunnel_stop_type, 0x8200);
	cr_assert_eq(P.link_control, false);

	/* a beacon (management), a null data frame: link control */
	const uint8_t types[][2] = {{0, 8}, {2, 4}, {2, 12}, {1, 11}};
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		frame m = {0}, g = {0};
		wlan(&m, types[i][0], types[i][1], 0x01, 0);
		for (int k = 0; k < 12; k++)
			put8(&m, 0);
		aruba(&g, 0x9000, &m);
		cr_assert_eq(run(&g, 1), PD_DISSECT_NOT_IP, "type %u subtype %u", types[i][0], types[i][1]);
		cr_assert_eq(P.link_control, true);
		cr_assert(P.tunnels & (1u << PD_TUN_ARUBA));
		cr_assert_eq(P.is_ip, false);
	}

	/* another LLC than SNAP (STP): link control too */
	frame s = {0}, g = {0};
	wlan(&s, 2, 0, 0x01, 0);
	const uint8_t stp[8] = {0x42, 0x42, 0x03, 0, 0, 0, 0, 0};
	putn(&s, stp, 8);
	aruba(&g, 0x8200, &s);
	cr_assert_eq(run(&g, 1), PD_DISSECT_NOT_IP);
	cr_assert_eq(P.link_control, true);

	/* 0x8201 is not one of the Aruba types: GRE left closed */
	frame w2 = {0}, f2 = {0};
	wlan_ipv4_tcp(&w2, 0, 0x01, 0);
	aruba(&f2, 0x8201, &w2);
	cr_assert_eq(run(&f2, 1), PD_DISSECT_OK);
	expect_outer(47, PD_L4_OTHER, PD_TUN_GRE, PD_TSTOP_UNSUPPORTED);

	/* protocol version 1: the inner header lies */
	frame w3 = {0}, f3 = {0};
	wlan_ipv4_tcp(&w3, 0, 0x01, 0);
	w3.b[0] |= 1;
	aruba(&f3, 0x8200, &w3);
	run(&f3, 1);
	cr_assert_eq(P.tunnel_depth, 0);
	cr_assert_eq(P.tunnel_stop, PD_TSTOP_BROKEN);
}

/* Cut by the snaplen at every byte, and cut short with the wire length
 * equal (a frame too short for its own headers): never a read past the
 * bytes, never a tunnel opened on a partial inner header. */
Test(tunnel, aruba_gre_cut_at_every_length)
{
	frame w = {0}, f = {0};
	wlan_ipv4_tcp(&w, 8, 0x83, 0x0080);
	aruba(&f, 0x8200, &w);
	expect_v4_tcp(run(&f, 1));
	size_t inner_l4 = f.len - 20 - 3; /* the inner TCP header starts here */
	for (size_t n = 0; n < f.len; n++) {
		pd_dissect_status st = run2(&f, 1, (uint32_t)n, (uint32_t)f.len);
		cr_assert_neq(st, PD_DISSECT_MALFORMED, "cut at %zu: %s", n, pd_malformed_name(P.malformed));
		if (n < 14 + 20) {
			cr_assert_eq(st, PD_DISSECT_TRUNCATED, "cut at %zu", n);
			continue;
		}
		cr_assert_eq(st, PD_DISSECT_OK, "cut at %zu", n);
		if (P.tunnel_depth == 0)
			cr_assert_eq(P.tunnel_stop, PD_TSTOP_CUT, "cut at %zu: stop %s", n,
				     pd_tunnel_stop_name(P.tunnel_stop));
		else
			cr_assert_geq(n, inner_l4 - 20, "cut at %zu: opened before the inner IP header", n);
		(void)run2(&f, 1, (uint32_t)n, (uint32_t)n); /* short frame: any status, no overread */
	}
}

static void ppp_frame(frame *f, const uint8_t *hdr, size_t n, bool v6)
{
	frame ip = {0};
	if (v6)
		ipv6_tcp_l3(&ip);
	else
		ipv4_tcp_l3(&ip);
	putn(f, hdr, n);
	cat(f, &ip);
}

Test(dissect, ppp_hdlc_and_pppoe)
{
	const struct {
		int lt;
		uint8_t hdr[8];
		size_t n;
		bool v6;
	} ok[] = {
		{9, {0xFF, 0x03, 0x00, 0x21}, 4, false}, /* PPP */
		{9, {0x00, 0x21}, 2, false}, /* no address/control */
		{9, {0x21}, 1, false}, /* protocol field compressed */
		{9, {0xFF, 0x03, 0x00, 0x57}, 4, true},
		{50, {0xFF, 0x03, 0x00, 0x21}, 4, false}, /* PPP in HDLC-like framing */
		{50, {0x0F, 0x00, 0x08, 0x00}, 4, false}, /* Cisco PPP with HDLC framing */
		{104, {0x0F, 0x00, 0x08, 0x00}, 4, false}, /* Cisco HDLC */
		{104, {0x8F, 0x00, 0x86, 0xDD}, 4, true},
		{0, {0x0F, 0x00, 0x08, 0x00}, 4, false}, /* C-HDLC under NULL, no family */
		{0, {0xFF, 0x03, 0x00, 0x21}, 4, false}, /* PPP under NULL */
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		frame f = {0};
		ppp_frame(&f, ok[i].hdr, ok[i].n, ok[i].v6);
		pd_dissect_status st = run(&f, ok[i].lt);
		if (ok[i].v6)
			expect_v6_tcp(st);
		else
			expect_v4_tcp(st);
		cut_everywhere(&f, ok[i].lt, ok[i].n + (ok[i].v6 ? 40 : 20), 3, true);
	}
	const struct {
		int lt;
		uint8_t hdr[4];
		size_t n;
		pd_dissect_status st;
		bool link_control;
	} other[] = {
		{9, {0xC0, 0x21}, 2, PD_DISSECT_NOT_IP, true}, /* LCP */
		{9, {0xFF, 0x03, 0x80, 0x21}, 4, PD_DISSECT_NOT_IP, true}, /* IPCP */
		{9, {0x00, 0xFD}, 2, PD_DISSECT_NOT_IP, false}, /* compressed datagram */
		{104, {0x8F, 0x00, 0x80, 0x35}, 4, PD_DISSECT_NOT_IP, true}, /* SLARP */
		{104, {0x0F, 0x00, 0x20, 0x00}, 4, PD_DISSECT_NOT_IP, true}, /* CDP */
		{104, {0x0F, 0x03, 0x08, 0x00}, 4, PD_DISSECT_MALFORMED, false}, /* control must be 0 */
		{50, {0xFF, 0x05, 0x00, 0x21}, 4, PD_DISSECT_MALFORMED, false}, /* control must be 3 */
		{50, {0x00, 0x21}, 2, PD_DISSECT_MALFORMED, false}, /* framing required */
		{9, {0x00, 0x20}, 2, PD_DISSECT_MALFORMED, false}, /* protocol numbers are odd */
	};
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		frame f = {0};
		ppp_frame(&f, other[i].hdr, other[i].n, false);
		cr_assert_eq(run(&f, other[i].lt), other[i].st, "case %zu", i);
		cr_assert_eq(P.link_control, other[i].link_control, "case %zu", i);
	}

	/* PPPoE session: version/type 0x11, code 0, session, length, PPP protocol */
	frame ip = {0}, f = {0};
	ipv4_tcp_l3(&ip);
	eth(&f, NULL, 0, 0x8864);
	put16(&f, 0x1100);
	put16(&f, 0x0001);
	put16(&f, (uint16_t)(2 + ip.len));
	put16(&f, 0x0021);
	cat(&f, &ip);
	expect_v4_tcp(run(&f, 1));
	cut_everywhere(&f, 1, 14 + 8 + 20, 3, true);
	f.b[14] = 0x12; /* version/type */
	cr_assert_eq(run(&f, 1), PD_DISSECT_MALFORMED);
	frame d = {0};
	eth(&d, NULL, 0, 0x8863); /* discovery */
	put32(&d, 0x11090000);
	put16(&d, 0);
	cr_assert_eq(run(&d, 1), PD_DISSECT_NOT_IP);
	cr_assert_eq(P.link_control, true);
	cr_assert_str_eq(pd_linktype_name(9), "PPP");
	cr_assert_str_eq(pd_linktype_name(104), "C_HDLC");
	cr_assert_eq(pd_linktype_supported(105), true);
	cr_assert_eq(pd_linktype_supported(127), true);
}

Test(dissect, ieee80211_and_radiotap)
{
	frame w = {0};
	wlan_ipv4_tcp(&w, 8, 0x01, 0);
	expect_v4_tcp(run(&w, 105));
	cut_everywhere(&w, 105, 26 + 8 + 20, 3, true);

	frame r = {0};
	put8(&r, 0); /* version */
	put8(&r, 0);
	put8(&r, 12); /* length 12, little-endian */
	put8(&r, 0);
	put32(&r, 0x02000000); /* present: flags (bit 1, little-endian) */
	put32(&r, 0x10000000); /* flags: FCS at the end, padding */
	cat(&r, &w);
	putn(&r, "\x01\x02\x03\x04", 4); /* the FCS after the IP datagram */
	expect_v4_tcp(run(&r, 127));
	cr_assert_eq(P.ip.total_len, 20 + 20 + 3);
	cut_everywhere(&r, 127, 12 + 26 + 8 + 20, 3, true);
	r.b[0] = 1; /* radiotap version 1 does not exist */
	cr_assert_eq(run(&r, 127), PD_DISSECT_MALFORMED);

	/* a data frame to an encrypted network: not read, not link control */
	frame p = {0};
	wlan_ipv4_tcp(&p, 0, 0x41, 0);
	cr_assert_eq(run(&p, 105), PD_DISSECT_NOT_IP);
	cr_assert_eq(P.link_control, false);
	/* a beacon */
	frame b = {0};
	wlan(&b, 0, 8, 0, 0);
	cr_assert_eq(run(&b, 105), PD_DISSECT_NOT_IP);
	cr_assert_eq(P.link_control, true);
}
