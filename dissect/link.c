/* Link layers: Ethernet (+VLAN tags, LLC/SNAP, PPPoE), Linux cooked v1/v2,
 * BSD NULL/LOOP, raw IP, NFLOG, PPP (plain and HDLC-framed), Cisco HDLC and
 * IEEE 802.11 data frames (bare or after a radiotap header). On success the
 * cursor is left at the IP header and pkt->ethertype says 0x0800 or
 * 0x86DD. Frames without IP say whether they are link control
 * (pkt->link_control). */
#include "dissect.h"

#define PD_ETH_IPV4 0x0800
#define PD_ETH_IPV6 0x86DD
#define PD_ETH_PPPOE_DISC 0x8863
#define PD_ETH_PPPOE_SESS 0x8864

#define PD_PPP_IPV4 0x0021
#define PD_PPP_IPV6 0x0057

/* Bytes of the frame on the wire from the cursor on (the snaplen only cuts
 * the tail, so the missing bytes are all after us). */
static uint64_t pd_link_wire_avail(const pd_packet *pkt, const pd_cursor *c)
{
	uint64_t extra = pkt->wirelen > pkt->caplen ? pkt->wirelen - pkt->caplen : 0;
	return (uint64_t)pd_cursor_remaining(c) + extra;
}

/* need bytes of link header are not all captured: a snaplen cut if the wire
 * frame had them, otherwise the frame is too short for its own header. */
static pd_dissect_status pd_link_short(pd_packet *pkt, const pd_cursor *c, size_t need)
{
	if (pkt->wirelen != 0 && pd_link_wire_avail(pkt, c) >= need) {
		pkt->snap_truncated = true;
		return PD_DISSECT_TRUNCATED;
	}
	pkt->malformed = PD_MAL_LINK;
	return PD_DISSECT_MALFORMED;
}

/* A header that ends past the bytes at c (whatever its length). */
static pd_dissect_status pd_link_short_any(pd_packet *pkt, const pd_cursor *c)
{
	return pd_link_short(pkt, c, pd_cursor_remaining(c) + 1);
}

static pd_dissect_status pd_link_bad(pd_packet *pkt)
{
	pkt->malformed = PD_MAL_LINK;
	return PD_DISSECT_MALFORMED;
}

/* Ethertypes of frames without a transport conversation: 802.3 lengths
 * (LLC: STP, CDP, ...), ARP, RARP (and Cisco SLARP), LLDP, slow protocols
 * (LACP), EAPOL, PPPoE discovery. */
static bool pd_link_control_type(uint16_t t)
{
	return (t > 0 && t <= 1500) || t == 0x0806 || t == 0x8035 || t == 0x88CC || t == 0x8809 || t == 0x888E ||
	       t == PD_ETH_PPPOE_DISC;
}

bool pd_linktype_supported(int linktype)
{
	switch (linktype) {
	case 0: case 1: case 9: case 12: case 14: case 50: case 101:
	case 104: case 105: case 108: case 113: case 127: case 228:
	case 229: case 239: case 276:
		return true;
	default:
		return false;
	}
}

const char *pd_linktype_name(int linktype)
{
	switch (linktype) {
	case 0: return "NULL";
	case 1: return "EN10MB";
	case 9: return "PPP";
	case 50: return "PPP_HDLC";
	case 104: return "C_HDLC";
	case 105: return "IEEE802_11";
	case 127: return "IEEE802_11_RADIOTAP";
	case 12: case 14: case 101: return "RAW";
	case 108: return "LOOP";
	case 113: return "LINUX_SLL";
	case 228: return "IPV4";
	case 229: return "IPV6";
	case 239: return "NFLOG";
	case 276: return "LINUX_SLL2";
	default: return "unknown";
	}
}

/* A PPP protocol number: IPv4 and IPv6 go on; LCP, authentication and
 * the network control protocols (0x8000 and up) are link control;
 * anything else (compressed or encrypted data, IPX, ...) is not read. */
static pd_dissect_status pd_link_ppp_proto(pd_packet *pkt, uint16_t proto)
{
	if (proto == PD_PPP_IPV4 || proto == PD_PPP_IPV6) {
		pkt->ethertype = proto == PD_PPP_IPV4 ? PD_ETH_IPV4 : PD_ETH_IPV6;
		return PD_DISSECT_OK;
	}
	pkt->ethertype = 0;
	pkt->link_control = proto >= 0x8000;
	return PD_DISSECT_NOT_IP;
}

/* PPP (RFC 1661, 1662): the HDLC-like address and control bytes FF 03
 * (required when framed is set), then the protocol, in one byte when its
 * low bit is set (protocol field compression), else in two. */
static pd_dissect_status pd_link_ppp(pd_packet *pkt, pd_cursor *c, bool framed)
{
	pd_cursor t = *c;
	uint8_t b = pd_cursor_u8(&t);
	if (t.err)
		return pd_link_short(pkt, c, framed ? 4 : 1);
	if (b == 0xFF) {
		uint8_t ctl = pd_cursor_u8(&t);
		if (t.err)
			return pd_link_short_any(pkt, c);
		if (ctl != 0x03)
			return pd_link_bad(pkt);
		b = pd_cursor_u8(&t);
	} else if (framed) {
		return pd_link_bad(pkt);
	}
	uint16_t proto = b;
	if (!(b & 1))
		proto = (uint16_t)(b << 8 | pd_cursor_u8(&t));
	if (t.err)
		return pd_link_short_any(pkt, c);
	if (!(proto & 1)) /* the last byte of a PPP protocol is odd */
		return pd_link_bad(pkt);
	*c = t;
	return pd_link_ppp_proto(pkt, proto);
}

/* Cisco HDLC: address 0x0F (unicast) or 0x8F (broadcast), control 0,
 * then an ethertype (SLARP 0x8035 and CDP 0x2000 are link control). */
static pd_dissect_status pd_link_chdlc(pd_packet *pkt, pd_cursor *c)
{
	pd_cursor t = *c;
	uint8_t addr = pd_cursor_u8(&t), ctl = pd_cursor_u8(&t);
	uint16_t type = pd_cursor_be16(&t);
	if (t.err)
		return pd_link_short(pkt, c, 4);
	if ((addr != 0x0F && addr != 0x8F) || ctl != 0)
		return pd_link_bad(pkt);
	*c = t;
	pkt->ethertype = type;
	if (type == PD_ETH_IPV4 || type == PD_ETH_IPV6)
		return PD_DISSECT_OK;
	pkt->link_control = type == 0x8035 || type == 0x2000;
	return PD_DISSECT_NOT_IP;
}

/* PPPoE session stage (RFC 2516): version and type 0x11, code 0, session
 * id, length, then a PPP protocol number (2 bytes, no address/control). */
static pd_dissect_status pd_link_pppoe(pd_packet *pkt, pd_cursor *c)
{
	pd_cursor t = *c;
	uint8_t vt = pd_cursor_u8(&t), code = pd_cursor_u8(&t);
	(void)pd_cursor_skip(&t, 4); /* session id, length */
	uint16_t proto = pd_cursor_be16(&t);
	if (t.err)
		return pd_link_short(pkt, c, 8);
	if (vt != 0x11 || code != 0)
		return pd_link_bad(pkt);
	*c = t;
	return pd_link_ppp_proto(pkt, proto);
}

static bool pd_is_vlan_tpid(uint16_t t)
{
	return t == 0x8100 || t == 0x88a8 || t == 0x9100;
}

/* Follows an ethertype through VLAN tags (any depth: each tag consumes 4
 * bytes, so the loop is bounded by the frame) and decides IP or not. */
static pd_dissect_status pd_link_ethertype(pd_packet *pkt, pd_cursor *c, uint16_t type)
{
	while (pd_is_vlan_tpid(type)) {
		pd_cursor t = *c;
		uint16_t tci = pd_cursor_be16(&t);
		uint16_t inner = pd_cursor_be16(&t);
		if (t.err)
			return pd_link_short(pkt, c, 4);
		if (pkt->vlan_depth == 0)
			pkt->vlan_id = tci & 0x0fff;
		if (pkt->vlan_depth < UINT8_MAX)
			pkt->vlan_depth++;
		*c = t;
		type = inner;
	}
	pkt->ethertype = type;
	if (type == PD_ETH_IPV4 || type == PD_ETH_IPV6)
		return PD_DISSECT_OK;
	if (type == PD_ETH_PPPOE_SESS)
		return pd_link_pppoe(pkt, c);
	pkt->link_control = pd_link_control_type(type);
	return PD_DISSECT_NOT_IP;
}

static pd_dissect_status pd_link_ether(pd_packet *pkt, pd_cursor *c)
{
	pd_cursor t = *c;
	(void)pd_cursor_skip(&t, 12); /* MAC addresses */
	uint16_t type = pd_cursor_be16(&t);
	if (t.err)
		return pd_link_short(pkt, c, 14);
	*c = t;
	if (type <= 1500) {
		/* 802.3 length field: only LLC/SNAP with an ethertype can carry
		 * IP (AA AA 03, OUI 00-00-00). */
		pd_cursor s = *c;
		uint8_t dsap = pd_cursor_u8(&s), ssap = pd_cursor_u8(&s), ctl = pd_cursor_u8(&s);
		uint8_t o0 = pd_cursor_u8(&s), o1 = pd_cursor_u8(&s), o2 = pd_cursor_u8(&s);
		uint16_t snap_type = pd_cursor_be16(&s);
		if (s.err || dsap != 0xAA || ssap != 0xAA || ctl != 0x03 || o0 || o1 || o2) {
			pkt->ethertype = type;
			pkt->link_control = true; /* STP, CDP, ... */
			return PD_DISSECT_NOT_IP;
		}
		*c = s;
		type = snap_type;
	}
	return pd_link_ethertype(pkt, c, type);
}

static pd_dissect_status pd_link_sll(pd_packet *pkt, pd_cursor *c, bool v2)
{
	pd_cursor t = *c;
	uint16_t proto, pkttype;
	if (v2) {
		proto = pd_cursor_be16(&t); /* protocol first, 20-byte header */
		(void)pd_cursor_skip(&t, 6); /* reserved, ifindex */
		(void)pd_cursor_skip(&t, 2); /* hatype */
		pkttype = pd_cursor_u8(&t);
		(void)pd_cursor_skip(&t, 9); /* halen, addr[8] */
	} else {
		pkttype = pd_cursor_be16(&t);
		(void)pd_cursor_skip(&t, 12); /* hatype, halen, addr[8] */
		proto = pd_cursor_be16(&t);
	}
	if (t.err)
		return pd_link_short(pkt, c, v2 ? 20 : 16);
	/* Linux packet types: 0 host, 1 broadcast, 2 multicast, 3 other host,
	 * 4 outgoing. */
	pkt->link_dir = pkttype == 4 ? PD_LINK_OUTGOING
			: pkttype == 3 ? PD_LINK_OTHERHOST
			: pkttype <= 2 ? PD_LINK_INCOMING
				       : PD_LINK_DIR_UNKNOWN;
	*c = t;
	return pd_link_ethertype(pkt, c, proto);
}

/* BSD loopback family values for IPv6 differ per OS (NetBSD/OpenBSD 24,
 * FreeBSD 28, Darwin 30); IPv4 is 2 everywhere. */
static uint16_t pd_family_to_ethertype(uint32_t fam)
{
	if (fam == 2)
		return PD_ETH_IPV4;
	if (fam == 24 || fam == 28 || fam == 30)
		return PD_ETH_IPV6;
	return 0;
}

static pd_dissect_status pd_link_null(pd_packet *pkt, pd_cursor *c, bool loop)
{
	pd_cursor t = *c;
	const uint8_t *p = pd_cursor_bytes(&t, 4);
	if (!p)
		return pd_link_short(pkt, c, 4);
	pd_cursor f;
	pd_cursor_init(&f, p, 4);
	uint32_t be = pd_cursor_be32(&f);
	uint16_t et = pd_family_to_ethertype(be);
	if (!loop && !et) {
		/* NULL stores the family in the writer's byte order, which the
		 * file does not record: try the other one. */
		pd_cursor_init(&f, p, 4);
		et = pd_family_to_ethertype(pd_cursor_le32(&f));
	}
	if (!et) {
		/* Some systems write PPP or Cisco HDLC frames under the NULL
		 * link type with no family word: FF 03 or 0F/8F 00 first. */
		if (p[0] == 0xFF && p[1] == 0x03)
			return pd_link_ppp(pkt, c, true);
		if ((p[0] == 0x0F || p[0] == 0x8F) && p[1] == 0x00)
			return pd_link_chdlc(pkt, c);
	}
	*c = t;
	if (!et)
		return PD_DISSECT_NOT_IP;
	pkt->ethertype = et;
	return PD_DISSECT_OK;
}

/* IEEE 802.11 data frames (as captured, or carried by a wireless
 * controller's GRE): frame control, duration, three addresses, sequence
 * control, a fourth address when both to-DS and from-DS are set, QoS
 * control in QoS subtypes and an HT control field when a QoS frame sets
 * the order bit; then LLC/SNAP with an ethertype (first A-MSDU subframe
 * when the QoS control says A-MSDU). Management, control and null data
 * frames are link control; protected (encrypted) frames cannot be read. */
pd_dissect_status pd_dissect_wlan(pd_packet *pkt, pd_cursor *c)
{
	pd_cursor t = *c;
	uint8_t fc0 = pd_cursor_u8(&t), fc1 = pd_cursor_u8(&t);
	if (t.err)
		return pd_link_short(pkt, c, 2);
	if (fc0 & 0x03) /* protocol version 0 only */
		return pd_link_bad(pkt);
	unsigned type = (fc0 >> 2) & 3, subtype = fc0 >> 4;
	if (type != 2) {
		pkt->link_control = true; /* management, control, extension */
		return PD_DISSECT_NOT_IP;
	}
	bool qos = subtype & 0x8;
	size_t hdr = 24 + ((fc1 & 0x03) == 0x03 ? 6 : 0) + (qos ? 2 : 0) + (qos && (fc1 & 0x80) ? 4 : 0);
	(void)pd_cursor_skip(&t, 22); /* duration, 3 addresses, sequence control */
	if ((fc1 & 0x03) == 0x03)
		(void)pd_cursor_skip(&t, 6); /* 4th address (WDS, mesh) */
	uint16_t qc = qos ? pd_cursor_le16(&t) : 0;
	if (qos && (fc1 & 0x80))
		(void)pd_cursor_skip(&t, 4); /* HT control */
	if (t.err)
		return pd_link_short(pkt, c, hdr);
	if (subtype & 0x4) {
		pkt->link_control = true; /* null data, CF-Ack/Poll only: no body */
		return PD_DISSECT_NOT_IP;
	}
	if (fc1 & 0x40) { /* protected: the body is encrypted */
		pkt->ethertype = 0;
		return PD_DISSECT_NOT_IP;
	}
	pd_cursor s = t;
	if (qc & 0x80)
		(void)pd_cursor_skip(&s, 14); /* A-MSDU subframe: DA, SA, length */
	uint8_t dsap = pd_cursor_u8(&s), ssap = pd_cursor_u8(&s), ctl = pd_cursor_u8(&s);
	uint8_t o0 = pd_cursor_u8(&s), o1 = pd_cursor_u8(&s), o2 = pd_cursor_u8(&s);
	uint16_t snap_type = pd_cursor_be16(&s);
	if (s.err)
		return pd_link_short(pkt, &t, (qc & 0x80 ? 14 : 0) + 8);
	/* SNAP with OUI 00-00-00 (RFC 1042) or 00-00-F8 (802.1H bridge tunnel) */
	if (dsap != 0xAA || ssap != 0xAA || ctl != 0x03 || o0 || o1 || (o2 && o2 != 0xF8)) {
		pkt->link_control = true; /* other LLC: STP, ... */
		return PD_DISSECT_NOT_IP;
	}
	*c = s;
	return pd_link_ethertype(pkt, c, snap_type);
}

/* Radiotap (version 0): its own length, little-endian, then 802.11. */
static pd_dissect_status pd_link_radiotap(pd_packet *pkt, pd_cursor *c)
{
	pd_cursor t = *c;
	uint8_t ver = pd_cursor_u8(&t);
	(void)pd_cursor_skip(&t, 1); /* pad */
	uint16_t len = pd_cursor_le16(&t);
	if (t.err)
		return pd_link_short(pkt, c, 4);
	if (ver != 0 || len < 8)
		return pd_link_bad(pkt);
	t = *c;
	if (!pd_cursor_skip(&t, len))
		return pd_link_short(pkt, c, len);
	*c = t;
	return pd_dissect_wlan(pkt, c);
}

/* Raw IP: the version nibble is the only type information. */
static pd_dissect_status pd_link_raw(pd_packet *pkt, pd_cursor *c, int want)
{
	pd_cursor t = *c;
	uint8_t v = (uint8_t)(pd_cursor_u8(&t) >> 4);
	if (t.err)
		return pd_link_short(pkt, c, 1);
	if (want == 0)
		want = v; /* LINKTYPE_RAW: either */
	if (v != want || (v != 4 && v != 6)) {
		pkt->malformed = PD_MAL_IP_VERSION;
		return PD_DISSECT_MALFORMED;
	}
	pkt->ethertype = v == 4 ? PD_ETH_IPV4 : PD_ETH_IPV6;
	return PD_DISSECT_OK;
}

static uint16_t pd_host16(pd_cursor *c)
{
	/* NFLOG TLV headers are in the capturing host's order; libpcap swaps
	 * them to our order when it reads a file from the other endianness. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return pd_cursor_be16(c);
#else
	return pd_cursor_le16(c);
#endif
}

static pd_dissect_status pd_link_nflog(pd_packet *pkt, pd_cursor *c)
{
	pd_cursor t = *c;
	uint8_t family = pd_cursor_u8(&t);
	(void)pd_cursor_skip(&t, 3); /* version, resource id */
	if (t.err)
		return pd_link_short(pkt, c, 4);

	/* Each TLV is at least 4 bytes, so the walk is bounded by the frame. */
	while (pd_cursor_remaining(&t) > 0) {
		pd_cursor h = t;
		uint16_t len = pd_host16(&h);
		uint16_t type = pd_host16(&h);
		if (h.err)
			return pd_link_short(pkt, &t, 4);
		if (len < 4) {
			pkt->malformed = PD_MAL_LINK;
			return PD_DISSECT_MALFORMED;
		}
		if (type == 9) { /* NFULA_PAYLOAD: the packet itself */
			pd_cursor payload = pd_cursor_take(&h, (size_t)len - 4);
			uint16_t et = family == 2 ? PD_ETH_IPV4 : family == 10 ? PD_ETH_IPV6 : 0;
			if (family == 0) {
				/* AF_UNSPEC: let the version nibble decide. */
				pd_cursor v = payload;
				uint8_t ver = (uint8_t)(pd_cursor_u8(&v) >> 4);
				et = ver == 4 ? PD_ETH_IPV4 : ver == 6 ? PD_ETH_IPV6 : 0;
			}
			*c = payload;
			if (!et)
				return PD_DISSECT_NOT_IP;
			pkt->ethertype = et;
			return PD_DISSECT_OK;
		}
		/* TLVs are padded to 4 bytes. */
		size_t step = ((size_t)len + 3) & ~(size_t)3;
		if (!pd_cursor_skip(&t, step)) {
			t.err = false;
			return pd_link_short(pkt, &t, step);
		}
	}
	return PD_DISSECT_NOT_IP; /* no payload TLV (e.g. a metadata-only log) */
}

pd_dissect_status pd_dissect_ether(pd_packet *pkt, pd_cursor *c)
{
	return pd_link_ether(pkt, c);
}

pd_dissect_status pd_dissect_link(pd_packet *pkt, pd_cursor *c)
{
	switch (pkt->linktype) {
	case 1:
		return pd_link_ether(pkt, c);
	case 113:
		return pd_link_sll(pkt, c, false);
	case 276:
		return pd_link_sll(pkt, c, true);
	case 0:
		return pd_link_null(pkt, c, false);
	case 108:
		return pd_link_null(pkt, c, true);
	case 12: case 14: case 101:
		return pd_link_raw(pkt, c, 0);
	case 228:
		return pd_link_raw(pkt, c, 4);
	case 229:
		return pd_link_raw(pkt, c, 6);
	case 239:
		return pd_link_nflog(pkt, c);
	case 9:
		return pd_link_ppp(pkt, c, false);
	case 50: {
		/* PPP in HDLC-like framing, or Cisco PPP with HDLC framing */
		pd_cursor t = *c;
		uint8_t b = pd_cursor_u8(&t);
		if (!t.err && (b == 0x0F || b == 0x8F))
			return pd_link_chdlc(pkt, c);
		return pd_link_ppp(pkt, c, true);
	}
	case 104:
		return pd_link_chdlc(pkt, c);
	case 105:
		return pd_dissect_wlan(pkt, c);
	case 127:
		return pd_link_radiotap(pkt, c);
	default:
		return PD_DISSECT_UNSUPPORTED_LINK;
	}
}
