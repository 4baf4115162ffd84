/* Which TCP stack sent a SYN or SYN-ACK: its initial TTL (the TTL or hop
 * limit seen, rounded up to the usual starting values) and the order of
 * its options tell Linux, Windows and Apple's systems apart, each with
 * settings of its own. A guess from the packet alone; NAT, proxies and
 * middleboxes that rewrite TTLs or options make it "unknown", never
 * another system. The signatures and their evidence: docs/peer-os.md. */
#ifndef PD_PEER_OS_H
#define PD_PEER_OS_H

#include <stddef.h>
#include <stdint.h>

#include "dissect/packet.h"

typedef enum pd_peer_os {
	PD_OS_UNKNOWN = 0,
	PD_OS_LINUX, /* Linux and Android */
	PD_OS_WINDOWS,
	PD_OS_APPLE, /* macOS, iOS */
} pd_peer_os;

typedef struct pd_os_signature {
	pd_peer_os os;
	uint8_t initial_ttl;
	const char *layout; /* pd_tcp_layout_str letters */
	const char *what; /* which packets of that system carry it */
} pd_os_signature;

extern const pd_os_signature pd_os_signatures[];
extern const size_t pd_os_signatures_len;

/* The system that sent this SYN or SYN-ACK; PD_OS_UNKNOWN when no
 * signature fits (or the options were cut or malformed). */
pd_peer_os pd_peer_os_of_syn(const pd_packet *pkt);
/* "Linux", "Windows", "macOS/iOS"; "unknown" */
const char *pd_peer_os_name(pd_peer_os os);
/* The TTL a sender started from: 64, 128 or 255 when the one seen is at
 * most 31 hops below it; 0 otherwise. */
uint8_t pd_initial_ttl(uint8_t ttl);
/* A layout (pd_tcp.opt_layout) as letters: M MSS, N NOP, W window scale,
 * S SACK permitted, T timestamps, E EOL, ? any other kind, + more than
 * PD_TCP_LAYOUT_MAX options; "" without options. Returns buf. */
char *pd_tcp_layout_str(uint32_t layout, char *buf, size_t len);

#endif
