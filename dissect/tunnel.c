/* Tunnels: IP-in-IP, GRE (carrying IP, Ethernet, ERSPAN I/II/III or a
 * wireless controller's 802.11 frames), VXLAN and GENEVE. One call takes one encapsulation off: the inner packet
 * replaces the outer one in the view, because the inner packet is the
 * conversation. A tunnel that cannot be opened leaves the outer packet as it
 * was, with the reason in tunnel_stop.
 *
 * GRE and IP-in-IP are IP protocols, so whatever follows is the tunnel's
 * (a lying inner header makes the packet malformed). VXLAN and GENEVE are
 * found by a UDP port only: anything on those ports that does not parse as
 * the tunnel all the way to a sane inner IP header stays plain UDP, so
 * random UDP traffic is never taken for a tunnel. */
#include "dissect.h"

#include <string.h>

/* GRE flag bits (RFC 2784, 2890; R, s and recursion are RFC 1701's). */
#define GRE_CSUM 0x8000
#define GRE_ROUTING 0x4000
#define GRE_KEY 0x2000
#define GRE_SEQ 0x1000
#define GRE_STRICT_ROUTE 0x0800
#define GRE_RECURSION 0x0700
#define GRE_VERSION 0x0007

#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_IPV6 0x86DD
#define ETHERTYPE_ARP 0x0806
#define ETHERTYPE_RARP 0x8035
#define ETHERTYPE_LLDP 0x88CC
#define ETHERTYPE_TEB 0x6558 /* transparent Ethernet bridging */
#define ETHERTYPE_ERSPAN_2 0x88BE /* type I without a GRE sequence number */
#define ETHERTYPE_ERSPAN_3 0x22EB

/* Aruba access points tunnel the 802.11 frames of their clients to the
 * controller in GRE with protocol types 0x8200 to 0x83f0 (a step of 0x10,
 * one per tunnel flavour) and 0x9000, the frame without its FCS. */
#define GRE_ARUBA_FIRST 0x8200
#define GRE_ARUBA_LAST 0x83F0
#define GRE_ARUBA_9000 0x9000

#define ERSPAN_TRUNCATED 0x0400 /* T bit of the second word (types II and III) */

#define UDP_VXLAN 4789
#define UDP_VXLAN_LINUX 8472 /* Linux's default before the IANA port (Flannel uses it) */
#define UDP_GENEVE 6081

static const char *const pd_tunnel_names[PD_TUN__COUNT] = {
	[PD_TUN_NONE] = "none",
	[PD_TUN_IPIP] = "IP-in-IP",
	[PD_TUN_GRE] = "GRE",
	[PD_TUN_GRETAP] = "GRE/Ethernet (gretap)",
	[PD_TUN_ERSPAN] = "ERSPAN",
	[PD_TUN_VXLAN] = "VXLAN",
	[PD_TUN_GENEVE] = "GENEVE",
	[PD_TUN_PPTP] = "GRE version 1 (PPTP)",
	[PD_TUN_ARUBA] = "GRE/802.11 (Aruba)",
};

const char *pd_tunnel_name(pd_tunnel t)
{
	if ((unsigned)t >= PD_TUN__COUNT)
		return "unknown";
	return pd_tunnel_names[t];
}

static const char *const pd_tunnel_stop_names[PD_TSTOP__COUNT] = {
	[PD_TSTOP_NONE] = "none",
	[PD_TSTOP_CUT] = "cut",
	[PD_TSTOP_BROKEN] = "broken",
	[PD_TSTOP_UNSUPPORTED] = "unsupported",
	[PD_TSTOP_FRAGMENT] = "fragment",
	[PD_TSTOP_DEPTH] = "depth",
};

const char *pd_tunnel_stop_name(pd_tunnel_stop s)
{
	if ((unsigned)s >= PD_TSTOP__COUNT)
		return "unknown";
	return pd_tunnel_stop_names[s];
}

typedef enum inner_kind {
	INNER_IPV4,
	INNER_IPV6,
	INNER_IP, /* IPv4 or IPv6, by the version nibble */
	INNER_ETHER,
	INNER_WLAN, /* an 802.11 frame */
} inner_kind;

/* What a tunnel header said. */
typedef struct tunnel_hdr {
	pd_tunnel kind;
	inner_kind inner;
	bool by_port; /* found by a UDP port: failing to parse means "plain UDP" */
	bool mirror_cut; /* ERSPAN T bit: the mirroring device cut the frame */
} tunnel_hdr;

static pd_decap stop(pd_packet *pkt, pd_tunnel kind, pd_tunnel_stop why, uint16_t type)
{
	pkt->tunnel_stop = (uint8_t)why;
	pkt->tunnel_stop_kind = (uint8_t)kind;
	pkt->tunnel_stop_type = type;
	return PD_DECAP_STOP;
}

/* need bytes from c on are missing: cut by the snaplen if the wire frame
 * had them (the snaplen only cuts the tail), else the header lies. */
static pd_tunnel_stop short_header(const pd_packet *pkt, const pd_cursor *c, size_t need)
{
	uint64_t extra = pkt->wirelen > pkt->caplen ? pkt->wirelen - pkt->caplen : 0;
	return (uint64_t)pd_cursor_remaining(c) + extra >= need ? PD_TSTOP_CUT : PD_TSTOP_BROKEN;
}

/* ERSPAN type II (8 bytes, version 1) or III (12 bytes, version 2, and an
 * 8-byte platform subheader when its O bit is set) after the GRE header. */
static pd_decap erspan_header(pd_packet *pkt, pd_cursor *c, bool type3, tunnel_hdr *th)
{
	pd_cursor t = *c;
	uint16_t ver_vlan = pd_cursor_be16(&t);
	uint16_t cos_session = pd_cursor_be16(&t);
	uint16_t last = 0;
	if (type3) {
		(void)pd_cursor_skip(&t, 6); /* timestamp, security group tag */
		last = pd_cursor_be16(&t); /* P, frame type, hardware id, D, Gra, O */
	} else {
		(void)pd_cursor_skip(&t, 4); /* reserved, index */
	}
	size_t need = type3 ? 12 : 8;
	if (t.err)
		return stop(pkt, PD_TUN_ERSPAN, short_header(pkt, c, need), 0);
	unsigned version = ver_vlan >> 12;
	if (version != (type3 ? 2u : 1u))
		return stop(pkt, PD_TUN_ERSPAN, PD_TSTOP_UNSUPPORTED, (uint16_t)version);
	th->mirror_cut = cos_session & ERSPAN_TRUNCATED;
	th->inner = INNER_ETHER;
	if (type3) {
		unsigned frame_type = (last >> 10) & 0x1f;
		if (last & 1) { /* optional platform-specific subheader */
			if (!pd_cursor_skip(&t, 8))
				return stop(pkt, PD_TUN_ERSPAN, short_header(pkt, c, need + 8), 0);
		}
		if (frame_type == 2)
			th->inner = INNER_IP;
		else if (frame_type != 0)
			return stop(pkt, PD_TUN_ERSPAN, PD_TSTOP_UNSUPPORTED, (uint16_t)version);
	}
	*c = t;
	return PD_DECAP_INNER;
}

/* GRE: flags and version, protocol type, then checksum, key and sequence
 * number when their flags say so (4 bytes each). */
static pd_decap gre_header(pd_packet *pkt, pd_cursor *c, tunnel_hdr *th)
{
	pd_cursor t = *c;
	uint16_t flags = pd_cursor_be16(&t);
	uint16_t proto = pd_cursor_be16(&t);
	if (t.err)
		return stop(pkt, PD_TUN_GRE, short_header(pkt, c, 4), 0);
	unsigned version = flags & GRE_VERSION;
	if (version == 1)
		return stop(pkt, PD_TUN_PPTP, PD_TSTOP_UNSUPPORTED, proto);
	if (version != 0)
		return stop(pkt, PD_TUN_GRE, PD_TSTOP_BROKEN, 0);
	/* RFC 1701 source routing: a receiver of RFC 2784 GRE discards it. */
	if (flags & (GRE_ROUTING | GRE_STRICT_ROUTE | GRE_RECURSION))
		return stop(pkt, PD_TUN_GRE, PD_TSTOP_UNSUPPORTED, proto);
	size_t opt = ((flags & GRE_CSUM) ? 4 : 0) + ((flags & GRE_KEY) ? 4 : 0) + ((flags & GRE_SEQ) ? 4 : 0);
	if (!pd_cursor_skip(&t, opt))
		return stop(pkt, PD_TUN_GRE, short_header(pkt, c, 4 + opt), 0);
	switch (proto) {
	case ETHERTYPE_IPV4:
		th->kind = PD_TUN_GRE;
		th->inner = INNER_IPV4;
		break;
	case ETHERTYPE_IPV6:
		th->kind = PD_TUN_GRE;
		th->inner = INNER_IPV6;
		break;
	case ETHERTYPE_TEB:
		th->kind = PD_TUN_GRETAP;
		th->inner = INNER_ETHER;
		break;
	case ETHERTYPE_ERSPAN_2:
		th->kind = PD_TUN_ERSPAN;
		th->inner = INNER_ETHER;
		/* Type I has no sequence number and no ERSPAN header. */
		if ((flags & GRE_SEQ) && erspan_header(pkt, &t, false, th) != PD_DECAP_INNER)
			return PD_DECAP_STOP;
		break;
	case ETHERTYPE_ERSPAN_3:
		th->kind = PD_TUN_ERSPAN;
		if (erspan_header(pkt, &t, true, th) != PD_DECAP_INNER)
			return PD_DECAP_STOP;
		break;
	case GRE_ARUBA_9000:
	aruba: {
		th->kind = PD_TUN_ARUBA;
		th->inner = INNER_WLAN;
		/* a protected data frame's body is encrypted: nothing to open */
		pd_cursor w = t;
		uint8_t fc0 = pd_cursor_u8(&w), fc1 = pd_cursor_u8(&w);
		if (!w.err && ((fc0 >> 2) & 3) == 2 && (fc1 & 0x40))
			return stop(pkt, PD_TUN_ARUBA, PD_TSTOP_UNSUPPORTED, proto);
		break;
	}
	default:
		if (proto >= GRE_ARUBA_FIRST && proto <= GRE_ARUBA_LAST && !(proto & 0xF))
			goto aruba;
		return stop(pkt, PD_TUN_GRE, PD_TSTOP_UNSUPPORTED, proto);
	}
	*c = t;
	return PD_DECAP_INNER;
}

/* VXLAN (RFC 7348): flags with I set, 24 reserved bits (the group-policy
 * extension uses them), VNI, 8 reserved bits. */
static pd_decap vxlan_header(pd_cursor *c, tunnel_hdr *th)
{
	pd_cursor t = *c;
	uint8_t flags = pd_cursor_u8(&t);
	(void)pd_cursor_skip(&t, 6); /* reserved or group policy, VNI */
	uint8_t reserved = pd_cursor_u8(&t);
	if (t.err || !(flags & 0x08) || (flags & 0x77) || reserved != 0)
		return PD_DECAP_NO;
	th->kind = PD_TUN_VXLAN;
	th->inner = INNER_ETHER;
	*c = t;
	return PD_DECAP_INNER;
}

/* GENEVE (RFC 8926): version 0, options length in 4-byte words, protocol
 * type, VNI. Only the payload types we follow make it a tunnel. */
static pd_decap geneve_header(pd_packet *pkt, pd_cursor *c, tunnel_hdr *th)
{
	pd_cursor t = *c;
	uint8_t ver_optlen = pd_cursor_u8(&t);
	(void)pd_cursor_skip(&t, 1); /* O, C, reserved */
	uint16_t proto = pd_cursor_be16(&t);
	(void)pd_cursor_skip(&t, 4); /* VNI, reserved */
	if (t.err || (ver_optlen >> 6) != 0)
		return PD_DECAP_NO;
	th->kind = PD_TUN_GENEVE;
	if (proto == ETHERTYPE_TEB)
		th->inner = INNER_ETHER;
	else if (proto == ETHERTYPE_IPV4)
		th->inner = INNER_IPV4;
	else if (proto == ETHERTYPE_IPV6)
		th->inner = INNER_IPV6;
	else
		return PD_DECAP_NO;
	size_t opt = (size_t)(ver_optlen & 0x3f) * 4;
	if (!pd_cursor_skip(&t, opt)) {
		if (short_header(pkt, &t, opt) == PD_TSTOP_CUT)
			return stop(pkt, PD_TUN_GENEVE, PD_TSTOP_CUT, 0);
		return PD_DECAP_NO;
	}
	*c = t;
	return PD_DECAP_INNER;
}

/* The UDP header of a packet to a tunnel port; c moves to the UDP payload
 * (clipped to the UDP length). PD_TUN_NONE when it is not one. */
static pd_tunnel udp_tunnel_port(const pd_packet *pkt, pd_cursor *c)
{
	pd_cursor t = *c;
	(void)pd_cursor_skip(&t, 2); /* source port: a per-flow hash */
	uint16_t dport = pd_cursor_be16(&t);
	uint16_t len = pd_cursor_be16(&t);
	(void)pd_cursor_skip(&t, 2);
	if (t.err)
		return PD_TUN_NONE;
	pd_tunnel kind = dport == UDP_VXLAN || dport == UDP_VXLAN_LINUX ? PD_TUN_VXLAN
			 : dport == UDP_GENEVE				 ? PD_TUN_GENEVE
									 : PD_TUN_NONE;
	uint32_t l4_wire = pkt->ip.total_len > pkt->ip.hdr_len ? pkt->ip.total_len - pkt->ip.hdr_len : 0;
	/* In a first fragment the UDP length covers the whole datagram. */
	if (kind == PD_TUN_NONE || len < 8 || (!pkt->ip.is_fragment && len > l4_wire))
		return PD_TUN_NONE;
	*c = pd_cursor_take(&t, (size_t)len - 8);
	return kind;
}

/* The packet inside: Ethernet or IP at c. Success replaces the view; a
 * failure puts the outer packet back. */
static pd_decap inner_packet(pd_packet *pkt, pd_cursor *c, const tunnel_hdr *th)
{
	pd_packet outer = *pkt;
	memset(&pkt->ip, 0, sizeof(pkt->ip));
	pkt->is_ip = false;
	pkt->l3 = NULL;
	pkt->l3_captured = 0;
	/* A frame cut by the mirroring device: the inner lengths describe
	 * bytes that were never sent here, as a snaplen cut would. */
	if (th->mirror_cut)
		pkt->wirelen = pkt->caplen > UINT32_MAX - 65535 ? UINT32_MAX : pkt->caplen + 65535;

	pd_cursor t = *c;
	pd_dissect_status st = PD_DISSECT_OK;
	inner_kind k = th->inner;
	if (k == INNER_ETHER || k == INNER_WLAN) {
		st = k == INNER_ETHER ? pd_dissect_ether(pkt, &t) : pd_dissect_wlan(pkt, &t);
		k = pkt->ethertype == ETHERTYPE_IPV6 ? INNER_IPV6 : INNER_IPV4;
	} else if (k == INNER_IP) {
		pd_cursor v = t;
		uint8_t version = (uint8_t)(pd_cursor_u8(&v) >> 4);
		if (v.err) {
			pkt->snap_truncated = true;
			st = PD_DISSECT_TRUNCATED;
		} else if (version != 4 && version != 6) {
			pkt->malformed = PD_MAL_IP_VERSION;
			st = PD_DISSECT_MALFORMED;
		}
		k = version == 6 ? INNER_IPV6 : INNER_IPV4;
	}
	if (st == PD_DISSECT_OK) {
		pkt->ethertype = k == INNER_IPV6 ? ETHERTYPE_IPV6 : ETHERTYPE_IPV4;
		st = k == INNER_IPV6 ? pd_dissect_ipv6(pkt, &t) : pd_dissect_ipv4(pkt, &t);
	}
	pkt->wirelen = outer.wirelen;
	if (th->mirror_cut && pkt->is_ip && pkt->ip.captured_len < pkt->ip.total_len)
		pkt->snap_truncated = true;

	bool inside = pkt->is_ip && !(th->by_port && pkt->malformed != PD_MAL_NONE);
	/* Found by port, only the usual non-IP frames of an overlay count: any
	 * other "ethertype" is more likely a UDP payload that looked right. */
	bool not_ip = st == PD_DISSECT_NOT_IP &&
		      (!th->by_port || pkt->ethertype == ETHERTYPE_ARP || pkt->ethertype == ETHERTYPE_RARP ||
		       pkt->ethertype == ETHERTYPE_LLDP);
	if (inside || not_ip) {
		if (outer.tunnel_depth == 0) {
			pkt->tunnel_src = outer.ip.src;
			pkt->tunnel_dst = outer.ip.dst;
		}
		pkt->tunnel_depth++;
		pkt->tunnels |= (uint16_t)(1u << th->kind);
		if (!inside) {
			/* ARP, LLDP, ... in a tunnel: no IP to analyse, as without one. */
			memset(&pkt->ip, 0, sizeof(pkt->ip));
			pkt->is_ip = false;
			pkt->l3 = NULL;
			pkt->l3_captured = 0;
			pkt->l4 = PD_L4_NONE;
			return PD_DECAP_INNER_NOT_IP;
		}
		*c = t;
		return PD_DECAP_INNER;
	}

	/* Inner packet cut or broken: the outer packet it is. */
	if (st == PD_DISSECT_NOT_IP) {
		*pkt = outer;
		return PD_DECAP_NO; /* by port, and not a frame an overlay carries */
	}
	pd_malformed inner_malformed = pkt->malformed;
	bool cut = pkt->snap_truncated;
	*pkt = outer;
	pkt->snap_truncated = cut;
	if (inner_malformed != PD_MAL_NONE) {
		if (th->by_port)
			return PD_DECAP_NO; /* not a tunnel after all: plain UDP */
		pkt->malformed = inner_malformed; /* an IP protocol's payload lies */
		return stop(pkt, th->kind, PD_TSTOP_BROKEN, 0);
	}
	return stop(pkt, th->kind, PD_TSTOP_CUT, 0);
}

pd_decap pd_dissect_tunnel(pd_packet *pkt, pd_cursor *c, bool may_open)
{
	const pd_ip *ip = &pkt->ip;
	if (!pkt->is_ip || pkt->malformed != PD_MAL_NONE)
		return PD_DECAP_NO;
	tunnel_hdr th = {0};
	pd_cursor t = *c;
	pd_decap d;
	switch (ip->proto) {
	case 4:
	case 41:
		if (ip->is_fragment)
			return stop(pkt, PD_TUN_IPIP, PD_TSTOP_FRAGMENT, 0);
		th.kind = PD_TUN_IPIP;
		th.inner = ip->proto == 4 ? INNER_IPV4 : INNER_IPV6;
		break;
	case 47:
		if (ip->is_fragment)
			return stop(pkt, PD_TUN_GRE, PD_TSTOP_FRAGMENT, 0);
		d = gre_header(pkt, &t, &th);
		if (d != PD_DECAP_INNER)
			return d;
		break;
	case 17:
		if (ip->is_fragment && ip->frag_offset != 0)
			return PD_DECAP_NO;
		th.by_port = true;
		switch (udp_tunnel_port(pkt, &t)) {
		case PD_TUN_VXLAN:
			d = vxlan_header(&t, &th);
			break;
		case PD_TUN_GENEVE:
			d = geneve_header(pkt, &t, &th);
			break;
		default:
			return PD_DECAP_NO;
		}
		if (d != PD_DECAP_INNER)
			return d;
		if (ip->is_fragment)
			return stop(pkt, th.kind, PD_TSTOP_FRAGMENT, 0);
		break;
	default:
		return PD_DECAP_NO;
	}
	if (!may_open)
		return stop(pkt, th.kind, PD_TSTOP_DEPTH, 0);
	d = inner_packet(pkt, &t, &th);
	if (d == PD_DECAP_INNER)
		*c = t;
	return d;
}
