/* The stack signatures of peer_os.h: data, one row per layout a system's
 * SYN or SYN-ACK carries by default, each seen in public captures
 * (docs/peer-os.md lists them with the files). A layout another system
 * also sends with the same initial TTL has no row. */
#include "dissect/peer_os.h"

#include <string.h>

const pd_os_signature pd_os_signatures[] = {
	/* Linux: tcp_options_write() order */
	{PD_OS_LINUX, 64, "MSTNW", "SYN and SYN-ACK with SACK, timestamps and window scaling"},
	{PD_OS_LINUX, 64, "MNNSNW", "without timestamps (tcp_timestamps=0, or a SYN-ACK to a SYN without them)"},
	{PD_OS_LINUX, 64, "MNNTNW", "without SACK"},
	/* Windows */
	{PD_OS_WINDOWS, 128, "MNWNNS", "Vista to 11: SYN (no timestamps by default), and SYN-ACK"},
	{PD_OS_WINDOWS, 128, "MNNS", "XP and Server 2003: SYN without window scaling; SYN-ACK to one"},
	{PD_OS_WINDOWS, 128, "MNWST", "SYN-ACK granting timestamps"},
	{PD_OS_WINDOWS, 128, "MNWNNTNNS", "SYN or SYN-ACK with timestamps enabled"},
	/* Apple */
	{PD_OS_APPLE, 64, "MNWNNTSE", "macOS and iOS: SYN, and SYN-ACK to a SYN with all options"},
};
const size_t pd_os_signatures_len = sizeof(pd_os_signatures) / sizeof(pd_os_signatures[0]);

uint8_t pd_initial_ttl(uint8_t ttl)
{
	static const uint8_t starts[] = {64, 128, 255};
	for (size_t i = 0; i < sizeof(starts); i++)
		if (ttl <= starts[i])
			return starts[i] - ttl < 32 ? starts[i] : 0;
	return 0;
}

char *pd_tcp_layout_str(uint32_t layout, char *buf, size_t len)
{
	static const char letters[] = "\0ENMWST?";
	size_t n = 0;
	if (!len)
		return buf;
	for (unsigned i = 0; i < PD_TCP_LAYOUT_MAX && n + 1 < len; i++) {
		uint32_t code = layout >> (3 * i) & 7;
		if (code == PD_TCP_LAYOUT_END)
			break;
		buf[n++] = letters[code];
	}
	if ((layout & PD_TCP_LAYOUT_MORE) && n + 1 < len)
		buf[n++] = '+';
	buf[n] = 0;
	return buf;
}

pd_peer_os pd_peer_os_of_syn(const pd_packet *pkt)
{
	if (pkt->l4 != PD_L4_TCP || !(pkt->tcp.flags & PD_TCP_SYN) || pkt->tcp.options_truncated ||
	    pkt->malformed)
		return PD_OS_UNKNOWN;
	uint8_t ttl0 = pd_initial_ttl(pkt->ip.ttl);
	char layout[PD_TCP_LAYOUT_MAX + 2];
	pd_tcp_layout_str(pkt->tcp.opt_layout, layout, sizeof(layout));
	for (size_t i = 0; i < pd_os_signatures_len; i++)
		if (pd_os_signatures[i].initial_ttl == ttl0 && strcmp(pd_os_signatures[i].layout, layout) == 0)
			return pd_os_signatures[i].os;
	return PD_OS_UNKNOWN;
}

const char *pd_peer_os_name(pd_peer_os os)
{
	switch (os) {
	case PD_OS_LINUX:
		return "Linux";
	case PD_OS_WINDOWS:
		return "Windows";
	case PD_OS_APPLE:
		return "macOS/iOS";
	case PD_OS_UNKNOWN:
		break;
	}
	return "unknown";
}
