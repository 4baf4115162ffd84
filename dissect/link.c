/* Link layers: Ethernet (+VLAN tags, LLC/SNAP), Linux cooked v1/v2, BSD
 * NULL/LOOP, raw IP and NFLOG. On success the cursor is left at the IP
 * header and pkt->ethertype says 0x0800 or 0x86DD. */
#include "dissect.h"

#define PD_ETH_IPV4 0x0800
#define PD_ETH_IPV6 0x86DD

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

bool pd_linktype_supported(int linktype)
{
	switch (linktype) {
	case 0: case 1: case 12: case 14: case 101: case 108:
	case 113: case 228: case 229: case 239: case 276:
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
	*c = t;
	if (!et)
		return PD_DISSECT_NOT_IP;
	pkt->ethertype = et;
	return PD_DISSECT_OK;
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
	default:
		return PD_DISSECT_UNSUPPORTED_LINK;
	}
}
