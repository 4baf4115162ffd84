/* What the capture itself is like, counted on every frame in capture order
 * as it is read: packets and bytes, link types, protocols, malformed and
 * truncated frames, and the capture facts detectors read at the end
 * (timestamps going backwards, snap length, packets captured twice). */
#ifndef PD_SUMMARY_H
#define PD_SUMMARY_H

#include <glib.h>

#include "capture/reader.h"
#include "dissect/dissect.h"
#include "heuristics/detector.h"
#include "report/model.h"

typedef struct pd_summary pd_summary;

pd_summary *pd_summary_new(pd_capture_summary *cap, pd_capture_facts *facts);
void pd_summary_free(pd_summary *s);

/* Counts one frame. Returns whether it is the same packet as one captured
 * within the last 10 ms (1 ms without an IP ID): a duplicate. */
bool pd_summary_frame(pd_summary *s, const pd_frame *fr, const pd_packet *pkt, pd_dissect_status st);

/* Coverage: which packets were read but not analysed, and why, and which
 * were analysed as the packet inside a tunnel (the capture-quality notes
 * say both, so that a quiet report never means "not read"). Analysed means
 * handed to the flow analysis: TCP, UDP, ICMP and IP fragments. */
#define PD_COVERAGE_TUNNEL_ROWS 8

/* UDP ports of tunnels and VPNs pcapdoc does not open: their packets are
 * analysed as UDP only, the conversations inside are not read. */
#define PD_UDP_ENCAPS 7
typedef struct pd_udp_encap {
	uint16_t port;
	const char *name;
} pd_udp_encap;
extern const pd_udp_encap pd_udp_encaps[PD_UDP_ENCAPS];

typedef struct pd_coverage_tunnel {
	uint8_t kind; /* pd_tunnel */
	uint8_t why; /* pd_tunnel_stop */
	uint16_t type; /* pkt->tunnel_stop_type */
	uint64_t packets;
} pd_coverage_tunnel;

typedef struct pd_coverage {
	uint64_t unread; /* all the packets counted below */
	uint64_t no_link; /* a link type pcapdoc does not decode */
	uint64_t not_ip; /* ARP, LLDP, ... (inside a tunnel too) */
	uint64_t ip_cut; /* IP header cut by the snaplen */
	uint64_t l4_cut; /* transport header cut by the snaplen */
	uint64_t malformed; /* headers that lie */
	uint64_t proto[256]; /* IP protocols pcapdoc does not analyse (ESP, SCTP, OSPF, ...) */
	pd_coverage_tunnel tunnels[PD_COVERAGE_TUNNEL_ROWS]; /* tunnels not opened, by kind, why, type */
	uint8_t n_tunnels;
	uint64_t tunnels_other; /* rows past the table */
	uint64_t udp_encap[PD_UDP_ENCAPS]; /* UDP packets to or from pd_udp_encaps[i].port */
	uint64_t udp_encap_packets; /* their sum */
	uint64_t unread_bytes; /* wire bytes of the unread packets */
	uint64_t link_control, link_control_bytes; /* of not_ip: ARP, LLDP, STP, LACP, EAPOL */
	/* IP packets of a protocol that carries no TCP or UDP inside (IGMP,
	 * OSPF, PIM, VRRP, SCTP): read, only out of scope; not capture-unread */
	uint64_t ip_other, ip_other_bytes;
	uint64_t first_unread_frame; /* not link control */
	pd_time first_unread_ts;
	int first_no_link; /* the first link type not decoded */
	struct {
		uint16_t type;
		uint64_t packets;
	} ethertypes[PD_COVERAGE_TUNNEL_ROWS]; /* not_ip, not link control */
	uint8_t n_ethertypes;

	uint64_t decap; /* packets analysed as the one inside a tunnel */
	uint64_t decap_kind[PD_TUN__COUNT]; /* by each kind taken off */
	pd_addr decap_src[PD_TUN__COUNT], decap_dst[PD_TUN__COUNT]; /* the first outer pair of each kind */
	bool decap_more_pairs[PD_TUN__COUNT]; /* other outer pairs seen */
} pd_coverage;

const pd_coverage *pd_summary_coverage(const pd_summary *s);

/* The link-type counts into cap (at the end). */
void pd_summary_finish(pd_summary *s);

#endif
