/* Entry point: frame reset, link -> IP -> transport dispatch, and the small
 * shared helpers (names, addresses). Each layer lives in its own file. */
#include "dissect.h"

#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>

static const char *const pd_malformed_names[PD_MAL__COUNT] = {
	[PD_MAL_NONE] = "none",
	[PD_MAL_LINK] = "link-header",
	[PD_MAL_IP_VERSION] = "ip-version",
	[PD_MAL_IP_HDRLEN] = "ip-header-length",
	[PD_MAL_IP_TOTLEN] = "ip-total-length",
	[PD_MAL_IP_OPTIONS] = "ip-options",
	[PD_MAL_IP6_EXT] = "ipv6-extension-headers",
	[PD_MAL_TCP_HDRLEN] = "tcp-header-length",
	[PD_MAL_TCP_OPTIONS] = "tcp-options",
	[PD_MAL_UDP_LEN] = "udp-length",
	[PD_MAL_ICMP] = "icmp-length",
};

const char *pd_malformed_name(pd_malformed m)
{
	if ((unsigned)m >= PD_MAL__COUNT)
		return "unknown";
	return pd_malformed_names[m];
}

/* Transport dispatch. c covers the IP packet (clipped to its total length)
 * and sits at the transport header. */
static void pd_dissect_l4(pd_packet *pkt, pd_cursor *c)
{
	const pd_ip *ip = &pkt->ip;

	/* A non-first fragment carries the middle of a datagram: nothing in it
	 * is a transport header. */
	if (ip->is_fragment && ip->frag_offset != 0) {
		pkt->l4 = PD_L4_OTHER;
		return;
	}
	/* Wire length of what follows the IP header(s), from the header. For a
	 * first fragment (offset 0, MF) this is the fragment's share only, so
	 * tcp.payload_len then describes this fragment, not the segment. */
	uint32_t l4_wire = ip->total_len > ip->hdr_len ? ip->total_len - ip->hdr_len : 0;

	switch (ip->proto) {
	case 6:
		pd_dissect_tcp(pkt, c, l4_wire);
		break;
	case 17:
		pd_dissect_udp(pkt, c, l4_wire);
		break;
	case 1:
		if (ip->version == 4)
			pd_dissect_icmp(pkt, c, false);
		else
			pkt->l4 = PD_L4_OTHER;
		break;
	case 58:
		if (ip->version == 6)
			pd_dissect_icmp(pkt, c, true);
		else
			pkt->l4 = PD_L4_OTHER;
		break;
	default:
		pkt->l4 = PD_L4_OTHER;
		break;
	}
}

pd_dissect_status pd_dissect(pd_packet *pkt, const uint8_t *data)
{
	/* Keep the frame fields, reset the rest (the union included). */
	uint64_t frame_no = pkt->frame_no;
	pd_time ts = pkt->ts;
	uint32_t caplen = pkt->caplen, wirelen = pkt->wirelen;
	int linktype = pkt->linktype;
	uint32_t file_index = pkt->file_index;

	memset(pkt, 0, sizeof(*pkt));
	pkt->frame_no = frame_no;
	pkt->ts = ts;
	pkt->caplen = caplen;
	pkt->wirelen = wirelen;
	pkt->linktype = linktype;
	pkt->file_index = file_index;
	pkt->snap_truncated = caplen < wirelen;

	pd_cursor c;
	pd_cursor_init(&c, data, caplen);

	pd_dissect_status st = pd_dissect_link(pkt, &c);
	if (st != PD_DISSECT_OK)
		return st;

	if (pkt->ethertype == 0x0800)
		st = pd_dissect_ipv4(pkt, &c);
	else if (pkt->ethertype == 0x86DD)
		st = pd_dissect_ipv6(pkt, &c);
	else
		return PD_DISSECT_NOT_IP; /* link layer should have said so */
	/* is_ip says the IP header is usable; it may still be MALFORMED when
	 * the total length claims more than the frame holds (Wireshark also
	 * dissects on, with the length clipped to the frame). */
	if (!pkt->is_ip)
		return st;

	/* Tunnels (IP-in-IP, GRE, ERSPAN, VXLAN, GENEVE): the inner packet is
	 * the conversation, so it replaces the outer one in the view. Each
	 * round opens one, or stops; the last allowed round only records. */
	for (int depth = 0; depth <= PD_MAX_TUNNEL_DEPTH; depth++) {
		pd_decap d = pd_dissect_tunnel(pkt, &c, depth < PD_MAX_TUNNEL_DEPTH);
		if (d == PD_DECAP_INNER_NOT_IP)
			return PD_DISSECT_NOT_IP;
		if (d != PD_DECAP_INNER)
			break;
	}

	pd_dissect_l4(pkt, &c);
	return pkt->malformed != PD_MAL_NONE ? PD_DISSECT_MALFORMED : PD_DISSECT_OK;
}

bool pd_dissect_quoted_ip(pd_ip *ip, pd_cursor *c)
{
	/* A scratch packet with wirelen 0 = "no frame context": the quoted
	 * header's lengths describe the original datagram, not these bytes, so
	 * the IP layer skips its frame-length checks. */
	pd_packet scratch;
	memset(&scratch, 0, sizeof(scratch));
	memset(ip, 0, sizeof(*ip));

	pd_cursor peek = *c;
	uint8_t v = (uint8_t)(pd_cursor_u8(&peek) >> 4);
	size_t fixed = v == 4 ? 20 : 40;
	if (peek.err || pd_cursor_remaining(c) < fixed)
		return false; /* not even the fixed header */
	pd_dissect_status st;
	if (v == 4)
		st = pd_dissect_ipv4(&scratch, c);
	else if (v == 6)
		st = pd_dissect_ipv6(&scratch, c);
	else
		return false;
	*ip = scratch.ip;
	/* Transport header not reached (options or extension headers cut or
	 * broken): leave nothing readable rather than the IP header's bytes. */
	if (st != PD_DISSECT_OK)
		(void)pd_cursor_skip(c, pd_cursor_remaining(c));
	/* Usable when the fixed header with addresses is there and sane; a
	 * quote cut inside options or extension headers still has addresses. */
	if (ip->version == 0)
		return false;
	switch (scratch.malformed) {
	case PD_MAL_IP_VERSION:
	case PD_MAL_IP_HDRLEN:
	case PD_MAL_IP_TOTLEN:
		return false;
	default:
		return true;
	}
}


/* A pointer into [from, from + len) moved to the same offset from to. */
static const uint8_t *rebase_ptr(const uint8_t *p, const uint8_t *from, size_t len, const uint8_t *to)
{
	/* addresses as numbers: `from` may be a buffer that is gone */
	uintptr_t a = (uintptr_t)p, f = (uintptr_t)from;
	if (!p || a < f || a - f > len)
		return p;
	return to + (a - f);
}

void pd_packet_rebase(pd_packet *pkt, const uint8_t *from, const uint8_t *to)
{
	size_t len = pkt->caplen;
	pkt->l3 = rebase_ptr(pkt->l3, from, len, to);
	if (pkt->l4 == PD_L4_TCP)
		pkt->tcp.payload = rebase_ptr(pkt->tcp.payload, from, len, to);
	else if (pkt->l4 == PD_L4_UDP)
		pkt->udp.payload = rebase_ptr(pkt->udp.payload, from, len, to);
}
