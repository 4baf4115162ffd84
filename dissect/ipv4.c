/* IPv4 header. */
#include "dissect.h"

#include <string.h>

/* Bytes of the wire frame from the cursor on; UINT64_MAX when there is no
 * frame context (wirelen 0: a header quoted inside ICMP, whose lengths
 * describe a datagram we only see the start of). */
static uint64_t pd_ip4_wire_avail(const pd_packet *pkt, const pd_cursor *c)
{
	if (pkt->wirelen == 0)
		return UINT64_MAX;
	uint64_t extra = pkt->wirelen > pkt->caplen ? pkt->wirelen - pkt->caplen : 0;
	return (uint64_t)pd_cursor_remaining(c) + extra;
}

static pd_dissect_status pd_ip4_malformed(pd_packet *pkt, pd_malformed m)
{
	pkt->malformed = m;
	return PD_DISSECT_MALFORMED;
}

/* Walks the options only to check that none runs past the header. The walk
 * advances at least one byte per step within at most 40 bytes. */
static bool pd_ip4_options_ok(pd_cursor o)
{
	while (pd_cursor_remaining(&o) > 0) {
		uint8_t kind = pd_cursor_u8(&o);
		if (kind == 0) /* end of option list: the rest is padding */
			return true;
		if (kind == 1) /* NOP */
			continue;
		uint8_t len = pd_cursor_u8(&o);
		if (o.err || len < 2 || !pd_cursor_skip(&o, (size_t)len - 2))
			return false;
	}
	return true;
}

pd_dissect_status pd_dissect_ipv4(pd_packet *pkt, pd_cursor *c)
{
	pd_ip *ip = &pkt->ip;
	uint64_t wire = pd_ip4_wire_avail(pkt, c);
	size_t avail = pd_cursor_remaining(c);

	pkt->l3 = avail ? c->base + c->off : NULL;
	pkt->l3_captured = avail > UINT32_MAX ? UINT32_MAX : (uint32_t)avail;

	/* Read the fixed header on a copy; a short read leaves zeros in what
	 * was not there and err set, and the fields read so far stay filled. */
	pd_cursor h = *c;
	uint8_t vihl = pd_cursor_u8(&h);
	if (h.err)
		goto short_hdr;
	if ((vihl >> 4) != 4)
		return pd_ip4_malformed(pkt, PD_MAL_IP_VERSION);
	ip->version = 4;
	uint32_t ihl = (uint32_t)(vihl & 0x0f) * 4;
	ip->tos = pd_cursor_u8(&h);
	uint32_t tot = pd_cursor_be16(&h);
	ip->ident = pd_cursor_be16(&h);
	uint16_t fo = pd_cursor_be16(&h);
	ip->ttl = pd_cursor_u8(&h);
	ip->proto = pd_cursor_u8(&h);
	(void)pd_cursor_skip(&h, 2); /* checksum: not verified (offload) */
	const uint8_t *src = pd_cursor_bytes(&h, 4);
	const uint8_t *dst = pd_cursor_bytes(&h, 4);
	ip->df = fo & 0x4000;
	ip->mf = fo & 0x2000;
	ip->frag_offset = (uint32_t)(fo & 0x1fff) * 8;
	ip->is_fragment = ip->mf || ip->frag_offset != 0;
	if (src) {
		ip->src.family = 4;
		memcpy(ip->src.bytes, src, 4);
	}
	if (dst) {
		ip->dst.family = 4;
		memcpy(ip->dst.bytes, dst, 4);
	}
	ip->hdr_len = (uint16_t)ihl;
	ip->total_len = tot;
	if (h.err)
		goto short_hdr;

	if (ihl < 20)
		return pd_ip4_malformed(pkt, PD_MAL_IP_HDRLEN);
	if (tot == 0) {
		/* Sender-side captures with TSO / BIG TCP hand the stack's
		 * super-packet to the tap with tot_len 0 (or > 64 KiB): the frame
		 * length is the only length there is (Wireshark does the same). */
		uint64_t w = wire == UINT64_MAX ? avail : wire;
		tot = w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
		ip->total_len = tot;
		if (tot < ihl)
			return pd_ip4_malformed(pkt, PD_MAL_IP_HDRLEN);
	} else if (tot < 20) {
		/* Below any header: the total length is what lies. */
		return pd_ip4_malformed(pkt, PD_MAL_IP_TOTLEN);
	} else if (tot < ihl) {
		/* A plausible total but a header longer than it: IHL lies. */
		return pd_ip4_malformed(pkt, PD_MAL_IP_HDRLEN);
	}
	/* Claims more than the frame holds: a lie (or a capture rewritten
	 * without fixing caplen/len). Flag it, then go on with what the frame
	 * holds, as Wireshark does, so the lengths below still add up. */
	if (tot > wire) {
		pkt->malformed = PD_MAL_IP_TOTLEN;
		tot = (uint32_t)wire; /* wire < tot <= 0xffff here */
		ip->total_len = tot;
		if (tot < ihl)
			return PD_DISSECT_MALFORMED;
	}
	ip->frag_payload_len = tot - ihl;

	/* From here on only the datagram's bytes count: Ethernet pads short
	 * frames and may carry an FCS after the datagram. */
	pd_cursor d = pd_cursor_take(c, tot);
	ip->captured_len = (uint32_t)pd_cursor_remaining(&d);
	(void)pd_cursor_skip(&d, 20);
	pd_cursor opts = pd_cursor_take(&d, ihl - 20);
	if (pd_cursor_remaining(&opts) < ihl - 20) {
		if (pkt->malformed != PD_MAL_NONE)
			return PD_DISSECT_MALFORMED;
		/* Options cut by the snaplen (tot <= wire, so they were sent). */
		pkt->snap_truncated = true;
		return PD_DISSECT_TRUNCATED;
	}
	if (!pd_ip4_options_ok(opts))
		return pd_ip4_malformed(pkt, PD_MAL_IP_OPTIONS);

	pkt->is_ip = true;
	*c = d; /* at the transport header, clipped to the datagram */
	return pkt->malformed != PD_MAL_NONE ? PD_DISSECT_MALFORMED : PD_DISSECT_OK;

short_hdr:
	/* Fewer than 20 bytes (or fewer than IHL) captured. */
	if (wire >= 20) {
		pkt->snap_truncated = true;
		return PD_DISSECT_TRUNCATED;
	}
	return pd_ip4_malformed(pkt, PD_MAL_IP_HDRLEN);
}
