/* Stateless dissection of one frame into a pd_packet view. One file per
 * layer (link.c, ipv4.c, ipv6.c, tcp.c, udp.c, icmp.c); this is the entry. */
#ifndef PD_DISSECT_H
#define PD_DISSECT_H

#include "addr.h"
#include "cursor.h"
#include "packet.h"

typedef enum pd_dissect_status {
	PD_DISSECT_OK = 0, /* IP parsed (maybe a fragment or an unknown protocol) */
	PD_DISSECT_UNSUPPORTED_LINK, /* linktype we do not decode */
	PD_DISSECT_NOT_IP, /* ARP, LLDP, ...: counted, not an error */
	PD_DISSECT_MALFORMED, /* see pkt->malformed */
	PD_DISSECT_TRUNCATED, /* snaplen cut before the IP header was complete */
} pd_dissect_status;

/* Link types we decode (numbers from the pcap LINKTYPE_ registry). */
bool pd_linktype_supported(int linktype);
const char *pd_linktype_name(int linktype);

/* Fills pkt from the frame. pkt's frame fields (frame_no, ts, caplen,
 * wirelen, linktype, file_index) must be set by the caller; everything else
 * is reset here. Never reads outside data[0..caplen). */
pd_dissect_status pd_dissect(pd_packet *pkt, const uint8_t *data);

/* The view of a frame whose bytes moved from `from` to `to` (copied as
 * they are): its pointers follow them. Every pointer field of pd_packet is
 * handled here (tests/test_dissect.c checks it against a fresh dissection). */
void pd_packet_rebase(pd_packet *pkt, const uint8_t *from, const uint8_t *to);

/* Tunnels: encapsulations opened one inside the other, at most this deep. */
#define PD_MAX_TUNNEL_DEPTH 4

const char *pd_tunnel_name(pd_tunnel t);
const char *pd_tunnel_stop_name(pd_tunnel_stop s);

typedef enum pd_decap {
	PD_DECAP_NO = 0, /* not a tunnel: the packet is what it is */
	PD_DECAP_INNER, /* the view is now the inner IP packet, c at its transport header */
	PD_DECAP_INNER_NOT_IP, /* the tunnel carries a frame without IP (ARP, ...) */
	PD_DECAP_STOP, /* a tunnel that was not opened: pkt->tunnel_stop says why */
} pd_decap;

/* Takes one encapsulation off the IP packet in pkt, whose payload starts
 * at c (dissect/tunnel.c). may_open false: the nesting bound is reached,
 * a tunnel is only recorded as not opened. */
pd_decap pd_dissect_tunnel(pd_packet *pkt, pd_cursor *c, bool may_open);

/* Layer entry points, for unit tests and for ICMP's quoted headers. */
pd_dissect_status pd_dissect_link(pd_packet *pkt, pd_cursor *c);
/* An Ethernet header (VLAN tags, LLC/SNAP) at c, as inside a tunnel. */
pd_dissect_status pd_dissect_ether(pd_packet *pkt, pd_cursor *c);
/* An IEEE 802.11 frame (no FCS expected; trailing bytes are ignored by
 * the IP layer) at c, as captured or inside a wireless controller's GRE. */
pd_dissect_status pd_dissect_wlan(pd_packet *pkt, pd_cursor *c);
pd_dissect_status pd_dissect_ipv4(pd_packet *pkt, pd_cursor *c);
pd_dissect_status pd_dissect_ipv6(pd_packet *pkt, pd_cursor *c);
void pd_dissect_tcp(pd_packet *pkt, pd_cursor *c, uint32_t l4_wire_len);
void pd_dissect_udp(pd_packet *pkt, pd_cursor *c, uint32_t l4_wire_len);
void pd_dissect_icmp(pd_packet *pkt, pd_cursor *c, bool v6);

/* Parses a bare IP header (v4 or v6 by its version nibble) into ip, with
 * no frame context: used for headers quoted inside ICMP errors. Returns
 * false if not even the fixed header is there. The cursor is left at the
 * transport header. */
bool pd_dissect_quoted_ip(pd_ip *ip, pd_cursor *c);


#endif
