/* ICMP and ICMPv6, with the header quoted by error messages. */
#include "dissect.h"

static bool pd_icmp_is_error(uint8_t type, bool v6)
{
	if (v6)
		return type >= 1 && type <= 4;
	return type == 3 || type == 4 || type == 5 || type == 11 || type == 12;
}

/* need bytes of ICMP are not all captured: a snaplen cut when the IP
 * header says they were sent, a lie otherwise. */
static void pd_icmp_short(pd_packet *pkt, uint32_t wire, uint32_t need)
{
	if (wire >= need)
		pkt->snap_truncated = true;
	else
		pkt->malformed = PD_MAL_ICMP;
}

/* The invoking datagram's first bytes: its IP header and usually the first
 * 8 bytes of its transport header (RFC 792), often more (RFC 1812, v6). */
static void pd_icmp_inner(pd_icmp *ic, pd_cursor *c)
{
	pd_cursor q = *c;
	ic->has_inner = pd_dissect_quoted_ip(&ic->inner_ip, &q);
	if (!ic->has_inner)
		return;
	const pd_ip *in = &ic->inner_ip;
	if ((in->is_fragment && in->frag_offset != 0) || (in->proto != 6 && in->proto != 17))
		return;
	/* q is at the inner transport header (or exhausted when the quote
	 * ends before it). */
	pd_cursor t = q;
	uint16_t sp = pd_cursor_be16(&t);
	uint16_t dp = pd_cursor_be16(&t);
	if (t.err)
		return;
	ic->inner_has_ports = true;
	ic->inner_sport = sp;
	ic->inner_dport = dp;
	if (in->proto == 6) {
		uint32_t seq = pd_cursor_be32(&t);
		if (!t.err) {
			ic->inner_has_seq = true;
			ic->inner_seq = seq;
		}
	}
}

void pd_dissect_icmp(pd_packet *pkt, pd_cursor *c, bool v6)
{
	pd_icmp *ic = &pkt->icmp;
	const pd_ip *ip = &pkt->ip;
	/* Wire bytes of the ICMP message per the IP header. */
	uint32_t wire = ip->total_len > ip->hdr_len ? ip->total_len - ip->hdr_len : 0;

	pd_cursor h = *c;
	ic->type = pd_cursor_u8(&h);
	ic->code = pd_cursor_u8(&h);
	(void)pd_cursor_skip(&h, 2); /* checksum */
	if (h.err) {
		pd_icmp_short(pkt, wire, 4);
		return;
	}
	if (wire < 4) {
		pkt->malformed = PD_MAL_ICMP;
		return;
	}
	pkt->l4 = v6 ? PD_L4_ICMP6 : PD_L4_ICMP;
	ic->is_error = pd_icmp_is_error(ic->type, v6);
	if (!ic->is_error) {
		*c = h;
		return;
	}

	/* Errors: 4 type-specific bytes, then the quoted datagram. */
	if (!v6 && ic->type == 3 && ic->code == 4) {
		ic->is_frag_needed = true;
		pd_cursor m = h;
		(void)pd_cursor_skip(&m, 2); /* unused */
		ic->mtu = pd_cursor_be16(&m); /* 0: a pre-RFC 1191 router */
	} else if (v6 && ic->type == 2) {
		ic->is_frag_needed = true;
		pd_cursor m = h;
		ic->mtu = pd_cursor_be32(&m);
	}
	if (!pd_cursor_skip(&h, 4)) {
		ic->mtu = 0;
		pd_icmp_short(pkt, wire, 8);
		return;
	}
	if (wire < 8) {
		pkt->malformed = PD_MAL_ICMP;
		return;
	}
	pd_icmp_inner(ic, &h);
	/* The quote runs to the end of the message. */
	(void)pd_cursor_skip(&h, pd_cursor_remaining(&h));
	*c = h;
}
