/* The capture summary and capture facts; see summary.h. */
#include "summary.h"

#include <string.h>

#define DUP_WINDOW_NS (10 * 1000 * 1000LL)
#define DUP_WINDOW6_NS (1000 * 1000LL) /* no IP ID in IPv6: be stricter */
#define DUP_SLOTS 4096 /* power of two */

typedef struct dup_slot {
	uint64_t sig;
	pd_time ts;
} dup_slot;

struct pd_summary {
	pd_capture_summary *cap;
	pd_capture_facts *facts;
	GHashTable *linktypes; /* linktype + 1 -> count */
	int lt_run; /* link type of the current run of frames */
	uint64_t lt_run_count;
	bool have_ts;
	pd_time max_ts;
	dup_slot *slots;
	pd_coverage cov;
};

pd_summary *pd_summary_new(pd_capture_summary *cap, pd_capture_facts *facts)
{
	pd_summary *s = g_new0(pd_summary, 1);
	s->cap = cap;
	s->facts = facts;
	s->linktypes = g_hash_table_new(g_direct_hash, g_direct_equal);
	return s;
}

void pd_summary_free(pd_summary *s)
{
	if (!s)
		return;
	g_hash_table_destroy(s->linktypes);
	g_free(s->slots);
	g_free(s);
}

static void flush_linktype_run(pd_summary *s)
{
	if (!s->lt_run_count)
		return;
	gpointer key = GINT_TO_POINTER(s->lt_run + 1);
	gsize n = GPOINTER_TO_SIZE(g_hash_table_lookup(s->linktypes, key));
	g_hash_table_insert(s->linktypes, key, GSIZE_TO_POINTER(n + s->lt_run_count));
	s->lt_run_count = 0;
}

static void count_linktype(pd_summary *s, int lt)
{
	/* Captures rarely mix link types: count runs of the same one and only
	 * touch the table when it changes. */
	if (s->lt_run_count && lt == s->lt_run) {
		s->lt_run_count++;
		return;
	}
	flush_linktype_run(s);
	s->lt_run = lt;
	s->lt_run_count = 1;
}

static gint cmp_lt(gconstpointer a, gconstpointer b)
{
	const pd_linktype_count *x = a, *y = b;
	return x->linktype - y->linktype;
}

/* IP protocols that wrap other traffic (tunnels left unopened, IPsec):
 * what they carry was not read. The others (IGMP, OSPF, PIM, VRRP, SCTP)
 * are read and only outside what pcapdoc diagnoses. */
static bool ip_proto_hides_traffic(uint8_t p)
{
	switch (p) {
	case 4:	  /* IP in IP */
	case 41:  /* IPv6 in IP */
	case 47:  /* GRE */
	case 50:  /* ESP */
	case 51:  /* AH */
	case 94:  /* IPIP (KA9Q) */
	case 97:  /* EtherIP */
	case 98:  /* ENCAP */
	case 115: /* L2TPv3 */
	case 137: /* MPLS in IP */
		return true;
	default:
		return false;
	}
}

void pd_summary_finish(pd_summary *s)
{
	flush_linktype_run(s);
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, s->linktypes);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		pd_linktype_count lc = {.linktype = GPOINTER_TO_INT(k) - 1, .packets = GPOINTER_TO_SIZE(v)};
		g_array_append_val(s->cap->linktypes, lc);
	}
	g_array_sort(s->cap->linktypes, cmp_lt);
	g_hash_table_remove_all(s->linktypes);

	/* what was not decoded, for the capture-unread finding */
	const pd_coverage *cv = &s->cov;
	pd_capture_facts *fa = s->facts;
	fa->frames = s->cap->packets;
	fa->wire_bytes = s->cap->wire_bytes;
	fa->link_control = cv->link_control;
	fa->link_control_bytes = cv->link_control_bytes;
	fa->unread = cv->unread - cv->link_control - cv->ip_other;
	fa->unread_bytes = cv->unread_bytes - cv->link_control_bytes - cv->ip_other_bytes;
	fa->unread_frame = cv->first_unread_frame;
	fa->unread_ts = cv->first_unread_ts;
	fa->unread_no_link = cv->no_link;
	fa->unread_not_ip = cv->not_ip - cv->link_control;
	fa->unread_cut = cv->ip_cut + cv->l4_cut;
	fa->unread_malformed = cv->malformed;
	fa->unread_linktype = cv->first_no_link;
	uint64_t best = 0;
	for (uint8_t i = 0; i < cv->n_ethertypes; i++)
		if (cv->ethertypes[i].packets > best) {
			best = cv->ethertypes[i].packets;
			fa->unread_ethertype = cv->ethertypes[i].type;
		}
	best = 0;
	fa->unread_proto = 0;
	for (unsigned p = 0; p < 256; p++) {
		if (!ip_proto_hides_traffic((uint8_t)p))
			continue;
		fa->unread_proto += cv->proto[p];
		if (cv->proto[p] > best) {
			best = cv->proto[p];
			fa->unread_ip_proto = (uint8_t)p;
		}
	}
	best = 0;
	fa->unread_tunnel = cv->tunnels_other;
	for (uint8_t i = 0; i < cv->n_tunnels; i++) {
		fa->unread_tunnel += cv->tunnels[i].packets;
		if (cv->tunnels[i].packets > best) {
			best = cv->tunnels[i].packets;
			fa->unread_tunnel_kind = cv->tunnels[i].kind;
			fa->unread_tunnel_why = cv->tunnels[i].why;
			fa->unread_tunnel_type = cv->tunnels[i].type;
		}
	}
}

/* ----------------------------------------------------------- duplicates */

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

/* What the two addresses give the signature: a word at a time (one for
 * IPv4, four for IPv6), each through a full mixer. */
static uint64_t sig_addrs(const pd_ip *ip)
{
	if (ip->version == 4) {
		uint32_t a, b;
		memcpy(&a, ip->src.bytes, 4);
		memcpy(&b, ip->dst.bytes, 4);
		return pd_mix64((uint64_t)a << 32 | b);
	}
	uint64_t w[4];
	memcpy(&w[0], ip->src.bytes, 8);
	memcpy(&w[1], ip->src.bytes + 8, 8);
	memcpy(&w[2], ip->dst.bytes, 8);
	memcpy(&w[3], ip->dst.bytes + 8, 8);
	uint64_t h = 0x6a09e667f3bcc909ull;
	for (int i = 0; i < 4; i++)
		h = pd_mix64(h ^ w[i]);
	return h;
}

/* What makes a frame the same packet: addresses, IP ID, and for TCP the
 * sequence, ACK, flags, length, window, timestamp and SACK blocks. */
static uint64_t packet_sig(const pd_packet *pkt)
{
	const pd_ip *ip = &pkt->ip;
	uint64_t h = sig_addrs(ip);
	h = mix(h, ((uint64_t)ip->version << 40) | ((uint64_t)ip->proto << 32) | ip->total_len);
	h = mix(h, ((uint64_t)ip->ident << 16) | ip->frag_offset);
	if (pkt->l4 == PD_L4_TCP) {
		const pd_tcp *t = &pkt->tcp;
		h = mix(h, ((uint64_t)t->sport << 16) | t->dport);
		h = mix(h, ((uint64_t)t->seq << 32) | t->ack);
		h = mix(h, ((uint64_t)t->flags << 48) | ((uint64_t)t->window << 32) | t->payload_len);
		h = mix(h, ((uint64_t)t->tsval << 32) | t->tsecr);
		/* duplicate ACKs may repeat everything above (a stack that keeps
		 * the IP ID for pure ACKs, a coarse timestamp clock) while their
		 * SACK blocks move on: those are new packets */
		for (uint8_t i = 0; i < t->sack_count && i < PD_MAX_SACK_BLOCKS; i++)
			h = mix(h, ((uint64_t)t->sack_left[i] << 32) | t->sack_right[i]);
	} else if (pkt->l4 == PD_L4_UDP) {
		h = mix(h, ((uint64_t)pkt->udp.sport << 16) | pkt->udp.dport);
		if (pkt->udp.payload && pkt->udp.payload_captured >= 8) {
			uint64_t v;
			memcpy(&v, pkt->udp.payload, 8);
			h = mix(h, v);
		}
	}
	return h ? h : 1;
}

static bool dup_candidate(const pd_packet *pkt)
{
	const pd_ip *ip = &pkt->ip;
	if (pkt->malformed != PD_MAL_NONE)
		return false;
	if (ip->version == 4 && ip->ident != 0)
		return true; /* a new datagram gets a new ID */
	/* No ID to tell copies apart (IPv6, or IPv4 ID 0 as Linux uses for
	 * SYN-ACKs): identical pure ACKs are normal duplicate ACKs, and a
	 * SYN-ACK is legitimately re-sent at once for a repeated SYN; only
	 * data segments are compared (within a tighter window). */
	if (pkt->l4 != PD_L4_TCP || (pkt->tcp.flags & PD_TCP_SYN))
		return false;
	return pkt->tcp.payload_len > 0;
}

static bool is_dup(pd_summary *s, const pd_packet *pkt)
{
	if (!dup_candidate(pkt))
		return false;
	if (!s->slots)
		s->slots = g_new0(dup_slot, DUP_SLOTS);
	uint64_t sig = packet_sig(pkt);
	dup_slot *d = &s->slots[sig & (DUP_SLOTS - 1)];
	pd_time win = pkt->ip.version == 4 && pkt->ip.ident ? DUP_WINDOW_NS : DUP_WINDOW6_NS;
	if (d->sig == sig && pkt->ts >= d->ts && pkt->ts - d->ts <= win)
		return true; /* keep the first copy's time: a third copy is a dup too */
	d->sig = sig;
	d->ts = pkt->ts;
	return false;
}

/* ------------------------------------------------------------- coverage */

const pd_udp_encap pd_udp_encaps[PD_UDP_ENCAPS] = {
	{1194, "OpenVPN"}, {1701, "L2TP"}, {2152, "GTP-U"}, {3544, "Teredo"},
	{4500, "IPsec NAT-T"}, {4790, "VXLAN-GPE"}, {51820, "WireGuard"},
};

static void count_udp_encap(pd_coverage *cv, const pd_udp *u)
{
	for (int i = 0; i < PD_UDP_ENCAPS; i++) {
		if (u->dport == pd_udp_encaps[i].port || u->sport == pd_udp_encaps[i].port) {
			cv->udp_encap[i]++;
			cv->udp_encap_packets++;
			return;
		}
	}
}

const pd_coverage *pd_summary_coverage(const pd_summary *s)
{
	return &s->cov;
}

static bool same_pair(const pd_addr *a, const pd_addr *b, const pd_addr *x, const pd_addr *y)
{
	return (pd_addr_equal(a, x) && pd_addr_equal(b, y)) || (pd_addr_equal(a, y) && pd_addr_equal(b, x));
}

static void count_decap(pd_coverage *cv, const pd_packet *pkt)
{
	cv->decap++;
	for (int k = 1; k < PD_TUN__COUNT; k++) {
		if (!(pkt->tunnels & (1u << k)))
			continue;
		const pd_addr *a = &pkt->tunnel_src, *z = &pkt->tunnel_dst;
		if (!cv->decap_kind[k]++) {
			cv->decap_src[k] = *a;
			cv->decap_dst[k] = *z;
		} else if (!cv->decap_more_pairs[k] &&
			   !same_pair(&cv->decap_src[k], &cv->decap_dst[k], a, z)) {
			cv->decap_more_pairs[k] = true;
		}
	}
}

static void count_unopened(pd_coverage *cv, const pd_packet *pkt)
{
	for (uint8_t i = 0; i < cv->n_tunnels; i++) {
		pd_coverage_tunnel *t = &cv->tunnels[i];
		if (t->kind == pkt->tunnel_stop_kind && t->why == pkt->tunnel_stop &&
		    t->type == pkt->tunnel_stop_type) {
			t->packets++;
			return;
		}
	}
	if (cv->n_tunnels == PD_COVERAGE_TUNNEL_ROWS) {
		cv->tunnels_other++;
		return;
	}
	cv->tunnels[cv->n_tunnels++] = (pd_coverage_tunnel){
		.kind = pkt->tunnel_stop_kind,
		.why = pkt->tunnel_stop,
		.type = pkt->tunnel_stop_type,
		.packets = 1,
	};
}

static void count_ethertype(pd_coverage *cv, uint16_t type)
{
	for (uint8_t i = 0; i < cv->n_ethertypes; i++) {
		if (cv->ethertypes[i].type == type) {
			cv->ethertypes[i].packets++;
			return;
		}
	}
	if (cv->n_ethertypes < PD_COVERAGE_TUNNEL_ROWS) {
		cv->ethertypes[cv->n_ethertypes].type = type;
		cv->ethertypes[cv->n_ethertypes++].packets = 1;
	}
}

/* Whether the flow analysis gets the packet, and if not, why (the router
 * hands on TCP, UDP, ICMP and fragments, never a transport header that
 * lies). */
static void count_coverage(pd_coverage *cv, const pd_packet *pkt, pd_dissect_status st)
{
	if (pkt->tunnel_depth)
		count_decap(cv, pkt);
	switch (st) {
	case PD_DISSECT_UNSUPPORTED_LINK:
		if (!cv->no_link)
			cv->first_no_link = pkt->linktype;
		cv->no_link++;
		break;
	case PD_DISSECT_NOT_IP:
		cv->not_ip++;
		if (pkt->link_control) {
			cv->link_control++;
			cv->link_control_bytes += pkt->wirelen;
			cv->unread++;
			cv->unread_bytes += pkt->wirelen;
			return;
		}
		count_ethertype(cv, pkt->ethertype);
		break;
	case PD_DISSECT_TRUNCATED:
		cv->ip_cut++;
		break;
	default:
		if (!pkt->is_ip) {
			cv->malformed++;
		} else if (pkt->tunnel_stop != PD_TSTOP_NONE) {
			/* a tunnel left closed: its content was not read, even
			 * where the outer packet is UDP or a fragment */
			count_unopened(cv, pkt);
		} else if (pkt->ip.is_fragment) {
			return; /* datagram and fragment-loss bookkeeping */
		} else if (pkt->malformed != PD_MAL_NONE && pkt->malformed != PD_MAL_IP_TOTLEN) {
			cv->malformed++;
		} else if (pkt->l4 == PD_L4_NONE) {
			cv->l4_cut++;
		} else if (pkt->l4 == PD_L4_OTHER) {
			cv->proto[pkt->ip.proto]++;
			if (!ip_proto_hides_traffic(pkt->ip.proto)) {
				cv->ip_other++;
				cv->ip_other_bytes += pkt->wirelen;
			}
		} else {
			if (pkt->l4 == PD_L4_UDP)
				count_udp_encap(cv, &pkt->udp);
			return; /* TCP, UDP, ICMP */
		}
		break;
	}
	if (cv->unread == cv->link_control) {
		cv->first_unread_frame = pkt->frame_no;
		cv->first_unread_ts = pkt->ts;
	}
	cv->unread++;
	cv->unread_bytes += pkt->wirelen;
}

/* --------------------------------------------------------------- frames */

bool pd_summary_frame(pd_summary *s, const pd_frame *fr, const pd_packet *pkt, pd_dissect_status st)
{
	pd_capture_summary *cap = s->cap;
	cap->packets++;
	cap->wire_bytes += fr->wirelen;
	cap->captured_bytes += fr->caplen;
	if (fr->caplen < fr->wirelen)
		cap->snap_truncated++;
	if (cap->packets == 1 || fr->ts < cap->first_ts)
		cap->first_ts = fr->ts;
	if (cap->packets == 1 || fr->ts > cap->last_ts)
		cap->last_ts = fr->ts;
	count_linktype(s, fr->linktype);
	count_coverage(&s->cov, pkt, st);

	switch (st) {
	case PD_DISSECT_UNSUPPORTED_LINK:
		cap->unsupported_link++;
		return false;
	case PD_DISSECT_NOT_IP:
		cap->not_ip++;
		return false;
	case PD_DISSECT_TRUNCATED:
		cap->ip_truncated++;
		return false;
	case PD_DISSECT_MALFORMED:
		if (pkt->malformed < PD_MAL__COUNT)
			cap->malformed[pkt->malformed]++;
		break;
	case PD_DISSECT_OK:
		break;
	}
	if (!pkt->is_ip)
		return false;
	if (pkt->ip.version == 4)
		cap->ipv4++;
	else
		cap->ipv6++;
	if (pkt->ip.is_fragment)
		cap->fragments++;
	if (pkt->malformed != PD_MAL_NONE && pkt->malformed != PD_MAL_IP_TOTLEN) {
		if (pkt->l4 == PD_L4_TCP)
			cap->tcp++;
		else if (pkt->l4 == PD_L4_UDP)
			cap->udp++;
	} else {
		switch (pkt->l4) {
		case PD_L4_TCP:
			cap->tcp++;
			break;
		case PD_L4_UDP:
			cap->udp++;
			break;
		case PD_L4_ICMP:
		case PD_L4_ICMP6:
			cap->icmp++;
			break;
		default:
			cap->other_l4++;
			break;
		}
	}

	/* capture facts */
	pd_capture_facts *fa = s->facts;
	fa->ip_packets++;
	if (s->have_ts && pkt->ts < s->max_ts) {
		pd_time back = s->max_ts - pkt->ts;
		if (!fa->back_steps) {
			fa->back_frame = pkt->frame_no;
			fa->back_ts = pkt->ts;
		}
		fa->back_steps++;
		if (back > fa->back_max)
			fa->back_max = back;
	} else {
		s->max_ts = pkt->ts;
		s->have_ts = true;
	}
	if (pkt->snap_truncated || pkt->caplen < pkt->wirelen) {
		if (!fa->truncated) {
			fa->truncated_frame = pkt->frame_no;
			fa->truncated_ts = pkt->ts;
		}
		fa->truncated++;
	}
	if (pkt->l4 == PD_L4_TCP) {
		if (pkt->tcp.payload_len > fa->max_tcp_payload_hdr)
			fa->max_tcp_payload_hdr = pkt->tcp.payload_len;
		if (pkt->tcp.payload_captured > fa->max_tcp_payload_captured)
			fa->max_tcp_payload_captured = pkt->tcp.payload_captured;
	}
	if (!is_dup(s, pkt))
		return false;
	if (fa->dup_frames < PD_FACT_EXAMPLES) {
		fa->dup_frame[fa->dup_frames] = pkt->frame_no;
		fa->dup_ts[fa->dup_frames] = pkt->ts;
	}
	fa->dup_frames++;
	fa->dup_last_frame = pkt->frame_no;
	fa->dup_last_ts = pkt->ts;
	return true;
}
