/* UDP header. */
#include "dissect.h"

void pd_dissect_udp(pd_packet *pkt, pd_cursor *c, uint32_t l4_wire_len)
{
	pd_udp *u = &pkt->udp;
	pd_cursor h = *c;
	u->sport = pd_cursor_be16(&h);
	u->dport = pd_cursor_be16(&h);
	u->length = pd_cursor_be16(&h);
	(void)pd_cursor_skip(&h, 2); /* checksum */

	if (l4_wire_len < 8) {
		if (pkt->ip.is_fragment) { /* header split across fragments */
			pkt->l4 = PD_L4_OTHER;
			return;
		}
		pkt->malformed = PD_MAL_UDP_LEN;
		return;
	}
	if (h.err) {
		pkt->snap_truncated = true;
		return;
	}
	uint32_t len = u->length;
	/* In a first fragment the UDP length covers the whole datagram, so it
	 * may well exceed this fragment's payload. */
	bool first_frag = pkt->ip.is_fragment;
	if (len == 0 && l4_wire_len > 0xffff) {
		len = l4_wire_len; /* IPv6 jumbogram (RFC 2675) */
	} else if (len < 8 || (!first_frag && len > l4_wire_len)) {
		pkt->malformed = PD_MAL_UDP_LEN;
		return;
	}
	pkt->l4 = PD_L4_UDP;
	u->payload_len = len - 8;
	size_t rest = pd_cursor_remaining(&h);
	u->payload_captured = (uint32_t)(rest < u->payload_len ? rest : u->payload_len);
	u->payload = u->payload_captured ? pd_cursor_bytes(&h, u->payload_captured) : NULL;
	*c = h;
}
