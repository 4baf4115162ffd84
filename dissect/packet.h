/* The dissector's view of one captured frame.
 *
 * Everything here is either a copied scalar or a pointer into the capture
 * buffer that the reader owns: the view is valid only until the next packet
 * is read (libpcap reuses its buffer). Lengths that describe the wire
 * (ip.total_len, tcp.payload_len) come from the headers, so a snaplen cut
 * never shrinks them; "captured" lengths say what bytes are really present. */
#ifndef PD_PACKET_H
#define PD_PACKET_H

#include <stdbool.h>
#include <stdint.h>

/* Nanoseconds since the Unix epoch. */
typedef int64_t pd_time;
#define PD_NS_PER_SEC INT64_C(1000000000)

typedef struct pd_addr {
	uint8_t family; /* 4 or 6; 0 = none */
	uint8_t bytes[16]; /* IPv4 in the first 4 bytes, rest zero */
} pd_addr;

/* Why a packet could not be fully dissected. "Truncated by snaplen" is not
 * here on purpose: it is normal and counted separately. These are packets
 * whose headers lie or make no sense. */
typedef enum pd_malformed {
	PD_MAL_NONE = 0,
	PD_MAL_LINK, /* link header shorter than its own fixed size */
	PD_MAL_IP_VERSION, /* version nibble does not match the link's claim */
	PD_MAL_IP_HDRLEN, /* IHL < 5, or header longer than total length */
	PD_MAL_IP_TOTLEN, /* total length below header or above frame length */
	PD_MAL_IP_OPTIONS, /* IPv4 option runs past the header */
	PD_MAL_IP6_EXT, /* IPv6 extension header chain broken */
	PD_MAL_TCP_HDRLEN, /* data offset < 5 or beyond the IP payload */
	PD_MAL_TCP_OPTIONS, /* TCP option length field lies */
	PD_MAL_UDP_LEN, /* UDP length below 8 or beyond the IP payload */
	PD_MAL_ICMP, /* ICMP too short for its type */
	PD_MAL__COUNT
} pd_malformed;

const char *pd_malformed_name(pd_malformed m);

typedef enum pd_l4 {
	PD_L4_NONE = 0, /* not IP, or no transport header reached */
	PD_L4_TCP,
	PD_L4_UDP,
	PD_L4_ICMP, /* ICMPv4 */
	PD_L4_ICMP6,
	PD_L4_OTHER, /* IP with another protocol, or a non-first fragment */
} pd_l4;

/* TCP flag bits as on the wire (byte 13). */
#define PD_TCP_FIN 0x01
#define PD_TCP_SYN 0x02
#define PD_TCP_RST 0x04
#define PD_TCP_PSH 0x08
#define PD_TCP_ACK 0x10
#define PD_TCP_URG 0x20
#define PD_TCP_ECE 0x40
#define PD_TCP_CWR 0x80

#define PD_MAX_SACK_BLOCKS 4

/* Encapsulations the dissector takes off (dissect/tunnel.c): the packet it
 * reports is the one inside, which is the conversation. */
typedef enum pd_tunnel {
	PD_TUN_NONE = 0,
	PD_TUN_IPIP, /* IPv4 or IPv6 in IPv4 or IPv6 (protocols 4 and 41) */
	PD_TUN_GRE, /* GRE carrying IPv4 or IPv6 (RFC 2784, 2890) */
	PD_TUN_GRETAP, /* GRE carrying Ethernet (0x6558, transparent bridging) */
	PD_TUN_ERSPAN, /* ERSPAN type I, II or III over GRE (mirrored frames) */
	PD_TUN_VXLAN, /* UDP 4789 (or Linux's old default 8472), inner Ethernet */
	PD_TUN_GENEVE, /* UDP 6081, inner Ethernet or IP */
	PD_TUN_PPTP, /* GRE version 1 (PPTP, PPP inside): never followed */
	PD_TUN_ARUBA, /* GRE 0x8200-0x83f0 or 0x9000: 802.11 frames from a wireless AP (Aruba) */
	PD_TUN__COUNT
} pd_tunnel;

/* Why a tunnel was not followed: the packet stays the outer one. */
typedef enum pd_tunnel_stop {
	PD_TSTOP_NONE = 0,
	PD_TSTOP_CUT, /* the tunnel or inner header is cut by the snaplen */
	PD_TSTOP_BROKEN, /* the tunnel or inner header lies */
	PD_TSTOP_UNSUPPORTED, /* a version or payload pcapdoc does not follow (tunnel_stop_type says) */
	PD_TSTOP_FRAGMENT, /* the outer packet is an IP fragment (not reassembled) */
	PD_TSTOP_DEPTH, /* nested deeper than pcapdoc follows */
	PD_TSTOP__COUNT
} pd_tunnel_stop;

#define PD_LINK_DIR_UNKNOWN 0
#define PD_LINK_INCOMING 1 /* addressed to the capture host (or broadcast/multicast) */
#define PD_LINK_OUTGOING 2 /* sent by the capture host */
#define PD_LINK_OTHERHOST 3 /* seen in promiscuous mode, neither */

typedef struct pd_ip {
	uint8_t version; /* 4 or 6 */
	pd_addr src, dst;
	uint8_t proto; /* upper-layer protocol after IPv6 extension headers */
	uint8_t ttl; /* hop limit for IPv6 */
	uint8_t tos; /* traffic class for IPv6 */
	uint16_t hdr_len; /* bytes up to the transport header (IPv6: incl. ext headers) */
	uint32_t total_len; /* from the header: IPv4 tot_len, IPv6 40 + payload_len */
	uint32_t ident; /* IPv4 ID, or IPv6 fragment header identification */
	bool df, mf; /* MF also set from the IPv6 fragment header M flag */
	bool is_fragment; /* MF set or offset non-zero (v4 and v6); an atomic v6 fragment is not */
	bool has_frag_header; /* IPv6 fragment header seen (atomic fragments too) */
	uint32_t frag_offset; /* in bytes */
	uint32_t frag_payload_len; /* bytes of this fragment's payload per the header */
	uint8_t frag_proto; /* IPv6: next header after the fragment header */
	uint32_t captured_len; /* bytes of the IP packet present in the capture */
} pd_ip;

/* pd_tcp.opt_layout: one code per option, up to 10 of them; bit 30 set
 * when the header had more (a layout no stack sends by default). */
enum {
	PD_TCP_LAYOUT_END = 0, /* no further option */
	PD_TCP_LAYOUT_EOL,
	PD_TCP_LAYOUT_NOP,
	PD_TCP_LAYOUT_MSS,
	PD_TCP_LAYOUT_WS,
	PD_TCP_LAYOUT_SACK_PERM,
	PD_TCP_LAYOUT_TS,
	PD_TCP_LAYOUT_OTHER, /* SACK blocks, TFO, MPTCP, MD5, any other kind */
};
#define PD_TCP_LAYOUT_MAX 10
#define PD_TCP_LAYOUT_MORE (1u << 30)

typedef struct pd_tcp {
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	uint16_t window; /* raw, unscaled */
	uint16_t hdr_len;
	uint32_t payload_len; /* from the IP header, not from caplen */
	uint32_t payload_captured;
	/* the options' kinds in the order sent: PD_TCP_LAYOUT_* codes of 3
	 * bits from the lowest up, an EOL the last one (dissect/peer_os.h) */
	uint32_t opt_layout;
	const uint8_t *payload; /* payload_captured bytes, may be NULL */
	/* options */
	bool has_mss;
	uint16_t mss;
	int8_t wscale; /* -1 when absent */
	bool sack_permitted;
	bool has_ts;
	uint32_t tsval, tsecr;
	uint8_t sack_count;
	uint32_t sack_left[PD_MAX_SACK_BLOCKS], sack_right[PD_MAX_SACK_BLOCKS];
	bool options_truncated; /* options cut by snaplen: absent != not sent */
} pd_tcp;

typedef struct pd_udp {
	uint16_t sport, dport;
	uint16_t length; /* from the UDP header */
	uint32_t payload_len;
	uint32_t payload_captured;
	const uint8_t *payload;
} pd_udp;

/* ICMP/ICMPv6 with, for errors, what the quoted header says. */
typedef struct pd_icmp {
	uint8_t type, code;
	bool is_error; /* dest unreachable, time exceeded, PTB, param problem */
	bool is_frag_needed; /* v4 3/4 or v6 type 2 */
	uint32_t mtu; /* next-hop MTU (v4 3/4) or PTB MTU; 0 when not given */
	bool has_inner; /* quoted IP header parsed */
	pd_ip inner_ip;
	bool inner_has_ports;
	uint16_t inner_sport, inner_dport;
	bool inner_has_seq; /* TCP: the 8 quoted bytes include seq */
	uint32_t inner_seq;
} pd_icmp;

typedef struct pd_packet {
	/* frame */
	uint64_t frame_no; /* 1-based, in capture order as Wireshark numbers frames */
	pd_time ts;
	uint32_t caplen, wirelen;
	int linktype; /* DLT_* as libpcap reports */
	uint32_t file_index; /* which input file (0-based) */

	/* link */
	uint8_t vlan_depth; /* 802.1Q/802.1ad tags seen */
	uint16_t vlan_id; /* outermost tag's VID */
	uint16_t ethertype; /* final ethertype (or equivalent for SLL/NULL) */
	/* not IP, and a frame every network carries that holds no transport
	 * conversation: ARP, LLDP, STP and other LLC, LACP, EAPOL, PPPoE
	 * discovery, PPP's LCP and NCPs, 802.11 management, control and null
	 * data frames */
	bool link_control;
	bool is_ip; /* IPv4 or IPv6 header parsed */

	pd_ip ip;
	const uint8_t *l3; /* start of the IP header in the buffer */
	uint32_t l3_captured; /* bytes from l3 to the end of the capture */

	pd_l4 l4;
	union {
		pd_tcp tcp;
		pd_udp udp;
		pd_icmp icmp;
	};

	/* Which way the frame went through the capturing host, when the link
	 * header says so (Linux cooked SLL/SLL2, tcpdump -i any): the capture
	 * host sent PD_LINK_OUTGOING frames itself. */
	uint8_t link_dir;

	/* Tunnels. The view above is the innermost packet followed; what was
	 * taken off around it stays known for the capture notes. */
	uint8_t tunnel_depth; /* encapsulations taken off (0: none) */
	uint16_t tunnels; /* bit (1 << pd_tunnel) for each kind taken off */
	pd_addr tunnel_src, tunnel_dst; /* the outermost IP header's addresses */
	uint8_t tunnel_stop; /* pd_tunnel_stop: a tunnel left unopened, or 0 */
	uint8_t tunnel_stop_kind; /* pd_tunnel: which kind it was */
	uint16_t tunnel_stop_type; /* PD_TSTOP_UNSUPPORTED: GRE protocol type, ERSPAN version */

	bool snap_truncated; /* caplen < wirelen, or headers cut by snaplen */
	pd_malformed malformed;
} pd_packet;

#endif
