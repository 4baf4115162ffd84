/* What pcapdoc read but did not analyse, and what it took out of tunnels:
 * the capture notes that keep a quiet report from meaning "not read"
 * (issue 19, rule 10). A crafted capture holds one packet of each kind;
 * the tunnel-*-zerowin golden captures are read through their tunnels. */
#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <pcap/pcap.h>
#include <string.h>

#include "testutil.h"

typedef struct buf {
	uint8_t b[2048];
	size_t len;
} buf;

static void put8(buf *f, uint8_t v)
{
	cr_assert(f->len < sizeof(f->b));
	f->b[f->len++] = v;
}
static void put16(buf *f, uint16_t v)
{
	put8(f, (uint8_t)(v >> 8));
	put8(f, (uint8_t)v);
}
static void put32(buf *f, uint32_t v)
{
	put16(f, (uint16_t)(v >> 16));
	put16(f, (uint16_t)v);
}
static void cat(buf *f, const buf *g)
{
	for (size_t i = 0; i < g->len; i++)
		put8(f, g->b[i]);
}
static void fill(buf *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put8(f, (uint8_t)(0x30 + i % 40));
}

static void eth(buf *f, uint16_t type)
{
	for (int i = 0; i < 12; i++)
		put8(f, (uint8_t)(i + 2));
	put16(f, type);
}

/* IPv4 a.b.c.s -> a.b.c.d (net: the first three bytes). */
static void ipv4(buf *f, uint32_t net, uint8_t s, uint8_t d, uint8_t proto, const buf *pl, uint16_t frag)
{
	put8(f, 0x45);
	put8(f, 0);
	put16(f, (uint16_t)(20 + pl->len));
	put16(f, 0x1000 + (uint16_t)f->len);
	put16(f, frag);
	put8(f, 64);
	put8(f, proto);
	put16(f, 0);
	put32(f, net << 8 | s);
	put32(f, net << 8 | d);
	cat(f, pl);
}

static void tcp(buf *f, uint16_t sp, uint16_t dp, uint8_t flags, size_t data)
{
	put16(f, sp);
	put16(f, dp);
	put32(f, 1000);
	put32(f, flags & 0x10 ? 2000 : 0);
	put8(f, 5 << 4);
	put8(f, flags);
	put16(f, 65535);
	put32(f, 0);
	fill(f, data);
}

static void udp(buf *f, uint16_t sp, uint16_t dp, const buf *pl)
{
	put16(f, sp);
	put16(f, dp);
	put16(f, (uint16_t)(8 + pl->len));
	put16(f, 0);
	cat(f, pl);
}

#define NET_IN 0x0a0000 /* 10.0.0.x: the conversations */
#define NET_GRE 0xac1000 /* 172.16.0.x: a GRE underlay */
#define NET_VX 0xac1001 /* 172.16.1.x: a VXLAN underlay */

/* Ethernet + IPv4 + TCP 10.0.0.1:40000 -> 10.0.0.2:80 with n bytes. */
static void eth_tcp(buf *f, uint8_t flags, size_t n)
{
	buf t = {0};
	tcp(&t, 40000, 80, flags, n);
	eth(f, 0x0800);
	ipv4(f, NET_IN, 1, 2, 6, &t, 0);
}

typedef struct dump {
	pcap_t *p;
	pcap_dumper_t *d;
	int n;
} dump;

static void frame(dump *c, const buf *f, size_t caplen)
{
	struct pcap_pkthdr h = {0};
	h.ts.tv_sec = 1700000000;
	h.ts.tv_usec = 1000 * ++c->n;
	h.caplen = (bpf_u_int32)(caplen < f->len ? caplen : f->len);
	h.len = (bpf_u_int32)f->len;
	pcap_dump((u_char *)c->d, &h, f->b);
}

static void ip_frame(dump *c, uint32_t net, uint8_t proto, const buf *pl, uint16_t frag, size_t caplen)
{
	buf f = {0};
	eth(&f, 0x0800);
	ipv4(&f, net, 1, 2, proto, pl, frag);
	frame(c, &f, caplen);
}

/* One packet of each kind the notes name; returns the file. */
static char *write_mixed(const char *dir)
{
	char *path = g_build_filename(dir, "mixed.pcap", NULL);
	dump c = {0};
	c.p = pcap_open_dead(DLT_EN10MB, 65535);
	c.d = pcap_dump_open(c.p, path);
	cr_assert_not_null(c.d, "%s", pcap_geterr(c.p));
	buf f = {0}, pl = {0}, in = {0};
	/* analysed: a TCP handshake's first two packets */
	eth_tcp(&f, 0x02, 0);
	frame(&c, &f, SIZE_MAX);
	f.len = 0;
	eth_tcp(&f, 0x12, 0);
	frame(&c, &f, SIZE_MAX);
	/* IP protocols with no analysis: ESP, SCTP twice */
	fill(&pl, 32);
	ip_frame(&c, NET_IN, 50, &pl, 0, SIZE_MAX);
	ip_frame(&c, NET_IN, 132, &pl, 0, SIZE_MAX);
	ip_frame(&c, NET_IN, 132, &pl, 0, SIZE_MAX);
	/* GRE version 1 (PPTP: key and sequence, PPP) */
	pl.len = 0;
	put16(&pl, 0x3001);
	put16(&pl, 0x880B);
	put32(&pl, 0x00200001);
	put32(&pl, 1);
	fill(&pl, 20);
	ip_frame(&c, NET_GRE, 47, &pl, 0, SIZE_MAX);
	/* GRE carrying MPLS */
	pl.len = in.len = 0;
	tcp(&in, 1, 2, 0x10, 10);
	put16(&pl, 0);
	put16(&pl, 0x8847);
	put32(&pl, 0x00010140);
	ipv4(&pl, NET_IN, 3, 4, 6, &in, 0);
	ip_frame(&c, NET_GRE, 47, &pl, 0, SIZE_MAX);
	/* ARP */
	f.len = 0;
	eth(&f, 0x0806);
	fill(&f, 28);
	frame(&c, &f, SIZE_MAX);
	/* analysed from inside: TCP in GRE, TCP in VXLAN */
	pl.len = in.len = 0;
	tcp(&in, 40000, 80, 0x10, 0);
	put32(&pl, 0x00000800);
	ipv4(&pl, NET_IN, 1, 2, 6, &in, 0);
	ip_frame(&c, NET_GRE, 47, &pl, 0, SIZE_MAX);
	buf vx = {0}, inner = {0};
	eth_tcp(&inner, 0x10, 0);
	put32(&vx, 0x08000000);
	put32(&vx, 42 << 8);
	cat(&vx, &inner);
	pl.len = 0;
	udp(&pl, 51353, 4789, &vx);
	ip_frame(&c, NET_VX, 17, &pl, 0, SIZE_MAX);
	/* VXLAN with its inner IP header cut by the snaplen */
	ip_frame(&c, NET_VX, 17, &pl, 0, 14 + 20 + 8 + 8 + 14 + 10);
	/* the IP header cut; the TCP header cut */
	f.len = 0;
	eth_tcp(&f, 0x10, 0);
	frame(&c, &f, 24);
	frame(&c, &f, 42);
	/* an IP header that lies (version 5) */
	f.len = 0;
	eth_tcp(&f, 0x10, 0);
	f.b[14] = 0x55;
	frame(&c, &f, SIZE_MAX);
	/* analysed as UDP only: GTP-U */
	pl.len = in.len = 0;
	fill(&in, 40);
	udp(&pl, 2152, 2152, &in);
	ip_frame(&c, NET_IN, 17, &pl, 0, SIZE_MAX);
	/* analysed: a first fragment of a TCP segment */
	f.len = 0;
	pl.len = 0;
	tcp(&pl, 40000, 80, 0x18, 40);
	eth(&f, 0x0800);
	ipv4(&f, NET_IN, 1, 2, 6, &pl, 0x2000);
	frame(&c, &f, SIZE_MAX);
	pcap_dump_close(c.d);
	pcap_close(c.p);
	cr_assert_eq(c.n, 16);
	return path;
}

static const char *note_with(const cJSON *report, const char *needle)
{
	const cJSON *cap = cJSON_GetObjectItemCaseSensitive(report, "capture");
	const cJSON *notes = cJSON_GetObjectItemCaseSensitive(cap, "notes");
	const cJSON *n;
	cJSON_ArrayForEach(n, notes)
	{
		if (cJSON_IsString(n) && strstr(n->valuestring, needle))
			return n->valuestring;
	}
	return NULL;
}

static double cap_num(const cJSON *report, const char *key)
{
	const cJSON *cap = cJSON_GetObjectItemCaseSensitive(report, "capture");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(cap, key);
	cr_assert(cJSON_IsNumber(v), "capture.%s", key);
	return v->valuedouble;
}

Test(coverage, every_packet_not_analysed_is_named_with_its_share)
{
	char *dir = g_dir_make_tmp("pdcov-XXXXXX", NULL);
	char *path = write_mixed(dir);
	cJSON *r = pd_test_json_abs(path, NULL);
	cr_assert_not_null(r);
	cr_expect_eq(cap_num(r, "packets"), 16);
	const char *unread = note_with(r, "were counted, not analysed");
	cr_assert_not_null(unread);
	cr_expect_str_eq(unread,
			 "10 of 16 packets (62 %) were counted, not analysed: 1 ESP (IPsec), 2 SCTP, "
			 "1 GRE version 1 (PPTP), 1 GRE carrying protocol 0x8847 (MPLS), "
			 "1 VXLAN with the inner packet cut by the snaplen, 1 without IP (ARP, LLDP, ...), "
			 "1 with the IP header cut by the snaplen, "
			 "1 with the TCP, UDP or ICMP header cut by the snaplen, "
			 "1 with headers that lie (see malformed)");
	const char *decap = note_with(r, "taken out of tunnels");
	cr_assert_not_null(decap);
	cr_expect_str_eq(decap,
			 "2 packets (12 %) were taken out of tunnels and analysed as the packets inside: "
			 "1 from GRE (outer 172.16.0.1 <-> 172.16.0.2), 1 from VXLAN (outer 172.16.1.1 <-> "
			 "172.16.1.2)");
	const char *udp_only = note_with(r, "analysed as UDP only");
	const char *want_udp = "1 packets (6 %) use UDP ports of tunnels or VPNs pcapdoc does not open, so "
			       "they were analysed as UDP only and what they carry was not read: "
			       "1 GTP-U (port 2152)";
	cr_expect(udp_only && !strcmp(udp_only, want_udp), "%s", udp_only ? udp_only : "(no note)");
	cJSON_Delete(r);
	g_remove(path);
	g_rmdir(dir);
	g_free(path);
	g_free(dir);
}

Test(coverage, a_capture_read_in_full_has_no_note)
{
	cJSON *r = pd_test_json("testdata/captures/tunnel-plain-zerowin/tunnel-plain-zerowin.pcap", NULL);
	cr_assert_not_null(r);
	cr_expect_null(note_with(r, "not analysed"));
	cr_expect_null(note_with(r, "tunnels"));
	cJSON_Delete(r);
}

/* Each tunnel capture reads as its plain twin: one TCP flow, every packet
 * TCP, the zero window found, and the note names the tunnel. */
Test(coverage, tunnel_captures_read_as_the_plain_twin)
{
	const struct {
		const char *name, *kind;
	} caps[] = {
		{"tunnel-gre-zerowin", "GRE"},
		{"tunnel-gretap-zerowin", "GRE/Ethernet (gretap)"},
		{"tunnel-erspan-zerowin", "ERSPAN"},
		{"tunnel-vxlan-zerowin", "VXLAN"},
		{"tunnel-geneve-zerowin", "GENEVE"},
		{"tunnel-vxlan-healthy", "VXLAN"},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(caps); i++) {
		char *rel = g_strdup_printf("testdata/captures/%s/%s.pcap", caps[i].name, caps[i].name);
		cJSON *r = pd_test_json(rel, NULL);
		cr_assert_not_null(r, "%s", rel);
		double packets = cap_num(r, "packets");
		cr_expect_eq(cap_num(r, "tcp"), packets, "%s", caps[i].name);
		cr_expect_eq(cap_num(r, "other_l4"), 0, "%s", caps[i].name);
		cr_expect_eq(cap_num(r, "udp"), 0, "%s", caps[i].name);
		const cJSON *cap = cJSON_GetObjectItemCaseSensitive(r, "capture");
		const cJSON *flows = cJSON_GetObjectItemCaseSensitive(cap, "flows");
		cr_expect_eq(cJSON_GetObjectItemCaseSensitive(flows, "tcp")->valuedouble, 1, "%s",
			     caps[i].name);
		char *want = g_strdup_printf("%.0f packets (100 %%) were taken out of tunnels and analysed "
					     "as the packets inside: %.0f from %s (outer 10.93.10.1 <-> "
					     "10.93.10.2)",
					     packets, packets, caps[i].kind);
		const char *decap = note_with(r, "taken out of tunnels");
		cr_expect(decap && !strcmp(decap, want), "%s: %s", caps[i].name, decap ? decap : "(no note)");
		cr_expect_null(note_with(r, "not analysed"), "%s", caps[i].name);
		bool healthy = strstr(caps[i].name, "healthy") != NULL;
		cr_expect_eq(pd_test_count_findings(r, "zero-window"), healthy ? 0 : 1, "%s", caps[i].name);
		if (healthy)
			cr_expect_eq(pd_test_count_at_least(r, "warning"), 0, "%s", caps[i].name);
		g_free(want);
		g_free(rel);
		cJSON_Delete(r);
	}
}

/* ---- capture-unread (issue 34): a capture pcapdoc could not read never
 * gets a clean verdict ---- */

/* n TCP packets of one flow in GRE with protocol type proto (0x8200: an
 * Aruba AP's 802.11 frames, which pcapdoc opens; 0x8847: MPLS, which it
 * does not), then `plain` TCP packets (200 B of data) and `arp` ARP
 * requests outside. */
static char *write_gre(const char *dir, uint16_t proto, int n, int plain, int arp)
{
	char *path = g_build_filename(dir, "gre.pcap", NULL);
	dump c = {0};
	c.p = pcap_open_dead(DLT_EN10MB, 65535);
	c.d = pcap_dump_open(c.p, path);
	cr_assert_not_null(c.d, "%s", pcap_geterr(c.p));
	for (int i = 0; i < n; i++) {
		buf pl = {0}, in = {0};
		tcp(&in, 40000, 80, i ? 0x10 : 0x02, i ? 100 : 0);
		put16(&pl, 0);
		put16(&pl, proto);
		if (proto == 0x8200) {
			/* 802.11 QoS data to the DS, 3 addresses, then SNAP */
			put8(&pl, 0x88);
			put8(&pl, 0x01);
			put16(&pl, 0);
			for (int k = 0; k < 18; k++)
				put8(&pl, (uint8_t)k);
			put16(&pl, 0);
			put16(&pl, 0);
			put32(&pl, 0xAAAA0300);
			put32(&pl, 0x00000800);
		} else {
			put32(&pl, 0x00010140); /* an MPLS label, bottom of stack */
		}
		ipv4(&pl, NET_IN, 1, 2, 6, &in, 0);
		ip_frame(&c, NET_GRE, 47, &pl, 0, SIZE_MAX);
	}
	for (int i = 0; i < plain; i++) {
		buf f = {0};
		eth_tcp(&f, 0x10, 200);
		frame(&c, &f, SIZE_MAX);
	}
	for (int i = 0; i < arp; i++) {
		buf f = {0};
		eth(&f, 0x0806);
		fill(&f, 28);
		frame(&c, &f, SIZE_MAX);
	}
	pcap_dump_close(c.d);
	pcap_close(c.p);
	return path;
}

static char *text_report(const char *path)
{
	char *out = NULL, *err = NULL;
	const char *argv[] = {"-q", "--color", "never", path, NULL};
	cr_assert_eq(pd_test_run(&out, &err, argv), 0, "%s", err ? err : "");
	g_free(err);
	return out;
}

Test(coverage, a_tunnel_left_closed_is_a_warning_and_no_clean_verdict)
{
	char *dir = g_dir_make_tmp("pdcov-XXXXXX", NULL);
	char *path = write_gre(dir, 0x8847, 20, 0, 0);
	cJSON *r = pd_test_json_abs(path, NULL);
	cr_assert_not_null(r);
	const cJSON *f = pd_test_finding(r, "capture-unread", 0);
	cr_assert_not_null(f);
	cr_expect_str_eq(pd_test_str(f, "severity"), "warning");
	cr_expect_eq(pd_test_metric(f, "unread_frames"), 20);
	cr_expect_eq(pd_test_metric(f, "unread_share"), 1.0);
	const char *d = pd_test_str(f, "detail");
	cr_expect(strstr(d, "20 of 20 frames (100.0 %)"), "%s", d);
	cr_expect(strstr(d, "20 in tunnels not opened (mostly GRE carrying protocol 0x8847)"), "%s", d);
	cr_expect_str_eq(pd_test_setting(f, 0), "capture point and encapsulation");
	cJSON_Delete(r);
	char *txt = text_report(path);
	cr_expect_null(strstr(txt, "No problems found."), "%s", txt);
	cr_expect(strstr(txt, "Verdict (1 problem)"), "%s", txt);
	cr_expect(strstr(txt, "WARNING Part of the capture could not be read"), "%s", txt);
	g_free(txt);
	g_remove(path);
	g_rmdir(dir);
	g_free(path);
	g_free(dir);
}

Test(coverage, an_aruba_tunnel_is_read_and_the_capture_clean)
{
	char *dir = g_dir_make_tmp("pdcov-XXXXXX", NULL);
	char *path = write_gre(dir, 0x8200, 20, 0, 0);
	cJSON *r = pd_test_json_abs(path, NULL);
	cr_assert_not_null(r);
	cr_expect_eq(pd_test_count_findings(r, "capture-unread"), 0);
	cr_expect_eq(cap_num(r, "tcp"), 20);
	const char *decap = note_with(r, "taken out of tunnels");
	cr_expect(decap && strstr(decap, "20 from GRE/802.11 (Aruba)"), "%s", decap ? decap : "(no note)");
	cJSON_Delete(r);
	g_remove(path);
	g_rmdir(dir);
	g_free(path);
	g_free(dir);
}

/* Below the share (1 of 60 frames, 1.2 % of the bytes), and link control
 * however much of it (ARP): no warning. */
Test(coverage, a_few_unread_frames_or_link_control_are_no_warning)
{
	char *dir = g_dir_make_tmp("pdcov-XXXXXX", NULL);
	char *path = write_gre(dir, 0x8847, 1, 59, 0);
	cJSON *r = pd_test_json_abs(path, NULL);
	cr_assert_not_null(r);
	cr_expect_eq(pd_test_count_findings(r, "capture-unread"), 0);
	cJSON_Delete(r);
	g_remove(path);
	g_free(path);
	path = write_gre(dir, 0x8847, 0, 5, 50);
	r = pd_test_json_abs(path, NULL);
	cr_assert_not_null(r);
	cr_expect_eq(pd_test_count_findings(r, "capture-unread"), 0);
	cr_expect(note_with(r, "50 without IP (ARP, LLDP, ...)"), "the note still counts them");
	cJSON_Delete(r);
	g_remove(path);
	g_rmdir(dir);
	g_free(path);
	g_free(dir);
}

/* 5 TCP packets and 20 of another IP protocol: IGMP (or OSPF, SCTP) is
 * read and only outside what pcapdoc diagnoses, so no warning (Zeek's
 * dns/mdns.pcap: 3 IGMP reports among 24 frames); ESP hides whatever it
 * carries, so it is unread (Zeek's ip6/esp.pcap). */
static char *write_ip_other(const char *dir, uint8_t proto)
{
	char *path = g_build_filename(dir, "other.pcap", NULL);
	dump c = {0};
	c.p = pcap_open_dead(DLT_EN10MB, 65535);
	c.d = pcap_dump_open(c.p, path);
	cr_assert_not_null(c.d, "%s", pcap_geterr(c.p));
	for (int i = 0; i < 5; i++) {
		buf f = {0};
		eth_tcp(&f, 0x10, 200);
		frame(&c, &f, SIZE_MAX);
	}
	for (int i = 0; i < 20; i++) {
		buf pl = {0};
		fill(&pl, 8);
		ip_frame(&c, NET_GRE, proto, &pl, 0, SIZE_MAX);
	}
	pcap_dump_close(c.d);
	pcap_close(c.p);
	return path;
}

Test(coverage, protocols_out_of_scope_are_read_encrypted_ones_are_not)
{
	char *dir = g_dir_make_tmp("pdcov-XXXXXX", NULL);
	char *path = write_ip_other(dir, 2);
	cJSON *r = pd_test_json_abs(path, NULL);
	cr_assert_not_null(r);
	cr_expect_eq(pd_test_count_findings(r, "capture-unread"), 0, "IGMP is read");
	cJSON_Delete(r);
	g_remove(path);
	g_free(path);
	path = write_ip_other(dir, 50);
	r = pd_test_json_abs(path, NULL);
	cr_assert_not_null(r);
	cr_expect_eq(pd_test_count_findings(r, "capture-unread"), 1, "what ESP carries is not");
	cJSON_Delete(r);
	g_remove(path);
	g_rmdir(dir);
	g_free(path);
	g_free(dir);
}
