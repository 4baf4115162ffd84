/* libFuzzer target for the dissector: the first 2 bytes pick a supported
 * link type, the rest is the frame. The frame is copied into an exact-size
 * buffer so ASan sees any read past caplen. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/dissect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const int pd_fuzz_linktypes[] = {1, 113, 276, 0, 108, 12, 14, 101, 228, 229, 239};
#define PD_FUZZ_NLT (sizeof(pd_fuzz_linktypes) / sizeof(pd_fuzz_linktypes[0]))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2 || size - 2 > UINT32_MAX)
		return 0;
	uint16_t sel = (uint16_t)((data[0] << 8) | data[1]);
	size_t len = size - 2;
	uint8_t *frame = malloc(len ? len : 1);
	if (!frame)
		return 0;
	memcpy(frame, data + 2, len);

	pd_packet pkt;
	memset(&pkt, 0, sizeof(pkt));
	pkt.linktype = pd_fuzz_linktypes[sel % PD_FUZZ_NLT];
	pkt.caplen = (uint32_t)len;
	/* The high bits pick the wire length too: equal, a snaplen cut, or the
	 * corrupt cases (shorter than caplen, zero). */
	switch ((sel / PD_FUZZ_NLT) % 4) {
	case 0: pkt.wirelen = (uint32_t)len; break;
	case 1: pkt.wirelen = (uint32_t)len + 1 + (sel >> 8); break;
	case 2: pkt.wirelen = (uint32_t)len / 2; break;
	default: pkt.wirelen = 65535 + (uint32_t)len * 16; break;
	}

	pd_dissect_status st = pd_dissect(&pkt, frame);

	/* Invariants: any violation aborts so the fuzzer records it. */
	if ((st == PD_DISSECT_MALFORMED) != (pkt.malformed != PD_MAL_NONE))
		abort();
	if (pkt.l3 && (pkt.l3 < frame || pkt.l3 + pkt.l3_captured > frame + len))
		abort();
	if (pkt.l4 == PD_L4_TCP) {
		if (pkt.tcp.hdr_len < 20 || pkt.tcp.hdr_len > 60 ||
		    pkt.tcp.payload_captured > pkt.tcp.payload_len ||
		    pkt.tcp.sack_count > PD_MAX_SACK_BLOCKS || pkt.tcp.wscale > 14)
			abort();
		if (pkt.tcp.payload && (pkt.tcp.payload < frame ||
					pkt.tcp.payload + pkt.tcp.payload_captured > frame + len))
			abort();
	}
	if (pkt.l4 == PD_L4_UDP) {
		if (pkt.udp.payload_captured > pkt.udp.payload_len)
			abort();
		if (pkt.udp.payload && (pkt.udp.payload < frame ||
					pkt.udp.payload + pkt.udp.payload_captured > frame + len))
			abort();
	}
	if (pkt.is_ip) {
		char buf[PD_ADDR_STRLEN];
		(void)pd_addr_str(&pkt.ip.src, buf, sizeof(buf));
		(void)pd_addr_cmp(&pkt.ip.src, &pkt.ip.dst);
		if (pkt.ip.hdr_len > pkt.ip.total_len)
			abort();
	}
	(void)pd_malformed_name(pkt.malformed);
	(void)pd_linktype_name(pkt.linktype);
	free(frame);
	return 0;
}
