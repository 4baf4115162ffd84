/* IPv6 header and extension header chain. */
#include "dissect.h"

#include <string.h>

#define PD_IP6_MAX_EXT 16 /* longer chains are treated as broken */

/* See ipv4.c: wire bytes from the cursor on, UINT64_MAX without a frame. */
static uint64_t pd_ip6_wire_avail(const pd_packet *pkt, const pd_cursor *c)
{
	if (pkt->wirelen == 0)
		return UINT64_MAX;
	uint64_t extra = pkt->wirelen > pkt->caplen ? pkt->wirelen - pkt->caplen : 0;
	return (uint64_t)pd_cursor_remaining(c) + extra;
}

static pd_dissect_status pd_ip6_malformed(pd_packet *pkt, pd_malformed m)
{
	pkt->malformed = m;
	return PD_DISSECT_MALFORMED;
}

static pd_dissect_status pd_ip6_truncated(pd_packet *pkt)
{
	if (pkt->malformed != PD_MAL_NONE) /* cut by a lying payload length */
		return PD_DISSECT_MALFORMED;
	pkt->snap_truncated = true;
	return PD_DISSECT_TRUNCATED;
}

pd_dissect_status pd_dissect_ipv6(pd_packet *pkt, pd_cursor *c)
{
	pd_ip *ip = &pkt->ip;
	uint64_t wire = pd_ip6_wire_avail(pkt, c);
	size_t avail = pd_cursor_remaining(c);

	pkt->l3 = avail ? c->base + c->off : NULL;
	pkt->l3_captured = avail > UINT32_MAX ? UINT32_MAX : (uint32_t)avail;

	pd_cursor h = *c;
	uint32_t vtf = pd_cursor_be32(&h);
	if (!h.err && (vtf >> 28) != 6)
		return pd_ip6_malformed(pkt, PD_MAL_IP_VERSION);
	uint32_t plen = pd_cursor_be16(&h);
	uint8_t nh = pd_cursor_u8(&h);
	ip->ttl = pd_cursor_u8(&h);
	const uint8_t *src = pd_cursor_bytes(&h, 16);
	const uint8_t *dst = pd_cursor_bytes(&h, 16);
	if (vtf) {
		ip->version = 6;
		ip->tos = (uint8_t)(vtf >> 20);
	}
	if (src) {
		ip->src.family = 6;
		memcpy(ip->src.bytes, src, 16);
	}
	if (dst) {
		ip->dst.family = 6;
		memcpy(ip->dst.bytes, dst, 16);
	}
	ip->proto = nh;
	ip->hdr_len = 40;
	if (h.err) {
		if (wire >= 40)
			return pd_ip6_truncated(pkt);
		return pd_ip6_malformed(pkt, PD_MAL_IP_HDRLEN);
	}

	uint64_t tot;
	if (plen == 0) {
		/* Jumbogram, or BIG TCP / GSO super-packet on a sender-side
		 * capture: the frame length is the payload length. */
		tot = wire == UINT64_MAX ? avail : wire;
	} else {
		tot = 40 + (uint64_t)plen;
		/* See ipv4.c: flagged, then clipped to the frame. */
		if (tot > wire) {
			pkt->malformed = PD_MAL_IP_TOTLEN;
			tot = wire;
		}
	}
	if (tot > UINT32_MAX)
		tot = UINT32_MAX;
	ip->total_len = (uint32_t)tot;

	pd_cursor d = pd_cursor_take(c, (size_t)tot);
	ip->captured_len = (uint32_t)pd_cursor_remaining(&d);
	(void)pd_cursor_skip(&d, 40);

	/* Extension header chain. off counts bytes from the IPv6 header start;
	 * every header is checked against the wire length (tot) first, so a
	 * lie is malformed, and then against the capture (snaplen cut). */
	uint64_t off = 40;
	for (int n = 0;; n++) {
		uint64_t hlen;
		switch (nh) {
		case 0: /* hop-by-hop: only right after the fixed header */
			if (n != 0)
				return pd_ip6_malformed(pkt, PD_MAL_IP6_EXT);
			/* fall through */
		case 43: /* routing */
		case 60: /* destination options */
		case 135: /* mobility */
		case 139: /* HIP */
		case 140: /* shim6 */
		case 44: /* fragment */
		case 51: /* AH */
			break;
		default:
			/* Upper layer, ESP (50) or no next header (59): stop. */
			ip->proto = nh;
			ip->hdr_len = (uint16_t)off;
			pkt->is_ip = true;
			*c = d;
			return pkt->malformed != PD_MAL_NONE ? PD_DISSECT_MALFORMED
							     : PD_DISSECT_OK;
		}
		if (n >= PD_IP6_MAX_EXT)
			return pd_ip6_malformed(pkt, PD_MAL_IP6_EXT);
		if (off + 2 > tot)
			return pd_ip6_malformed(pkt, PD_MAL_IP6_EXT);
		pd_cursor e = d;
		uint8_t next = pd_cursor_u8(&e);
		uint8_t elen = pd_cursor_u8(&e);
		if (e.err)
			return pd_ip6_truncated(pkt);
		if (nh == 44)
			hlen = 8;
		else if (nh == 51)
			hlen = ((uint64_t)elen + 2) * 4;
		else
			hlen = ((uint64_t)elen + 1) * 8;
		if (off + hlen > tot)
			return pd_ip6_malformed(pkt, PD_MAL_IP6_EXT);
		e = d;
		if (!pd_cursor_skip(&e, (size_t)hlen))
			return pd_ip6_truncated(pkt);

		if (nh == 44) {
			pd_cursor f = d;
			(void)pd_cursor_skip(&f, 2);
			uint16_t offm = pd_cursor_be16(&f);
			ip->ident = pd_cursor_be32(&f);
			ip->has_frag_header = true;
			ip->frag_proto = next;
			ip->frag_offset = (uint32_t)(offm >> 3) * 8;
			ip->mf = offm & 1;
			/* An atomic fragment (offset 0, M 0) is a whole datagram. */
			ip->is_fragment = ip->mf || ip->frag_offset != 0;
			ip->frag_payload_len = (uint32_t)(tot - off - hlen);
		}
		off += hlen;
		d = e;
		nh = next;
		if (ip->has_frag_header && ip->frag_offset != 0) {
			/* The rest is the middle of a datagram, not headers. */
			ip->proto = nh;
			ip->hdr_len = (uint16_t)off;
			pkt->is_ip = true;
			*c = d;
			return pkt->malformed != PD_MAL_NONE ? PD_DISSECT_MALFORMED
							     : PD_DISSECT_OK;
		}
	}
}
