/* Who reset an established connection, and why; and connections that a
 * stateful middlebox forgot while they were idle.
 *
 * Each RST is told apart by what made it, from its own header against the
 * ordinary packets of the side it claims to come from:
 *  - the connection's own socket (tcp_send_active_reset): ACK flag, the
 *    side's TTL, its IP ID sequence continued, its timestamp option;
 *  - a kernel with no socket for the segment (tcp_v4_send_reset and kin):
 *    no ACK flag when it answers a segment that had one, seq = that
 *    segment's ACK number, no options, window 0, IP ID 0, the side's TTL;
 *  - a device on the path forging it: a TTL that side never has, or an
 *    answer faster than the round trip to that side, or DF clear with an
 *    IP ID outside the side's sequence.
 * The first RST of a connection decides (the later ones answer segments
 * that were in flight, and are listed as its consequences):
 *  - from the socket, with a receive window larger than its previous ACKs:
 *    close() freed received data the application never read, which Linux
 *    answers with a RST (reset-unread-data);
 *  - from the socket otherwise: an abortive close, SO_LINGER {1, 0} or an
 *    explicit abort (reset-abort);
 *  - from a side that had already sent its FIN, answering the other side's
 *    data that came after (or crossed) that FIN and that it never
 *    acknowledged: the application closed while the peer still sent, and
 *    the kernel reset the data that arrived at the closed socket
 *    (reset-after-close; often right after a TLS alert);
 *  - from a kernel without the socket, answering a segment on a connection
 *    that side had established and never closed: it lost the connection
 *    (reset-stale-connection);
 *  - forged: reset-injected, or, when it answered the first segment after
 *    a long silence and the real peer never spoke again, a firewall or NAT
 *    that had dropped the idle connection (middlebox-idle-timeout).
 * Without any RST, a connection whose first segment after a long silence
 * is retransmitted into silence, by a peer that answered before, is the
 * other face of middlebox-idle-timeout. */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "dissect/cursor.h"
#include "heuristics/detector.h"
#include "heuristics/keytable.h"
#include "heuristics/util.h"

/* A middlebox's idle timeout is seconds at least (4 s in the golden
 * captures; minutes in the field) and many round trips. */
#define RS_IDLE_MIN_NS (2 * PD_NS_PER_SEC)
#define RS_IDLE_MIN_RTTS 20
/* A dead connection: its first segment after the silence tried this many
 * more times without any answer, over at least this long. */
#define RS_DEAD_TRIES 2
#define RS_DEAD_SPAN_NS (PD_NS_PER_SEC / 2)
/* An IP ID within this step of the side's previous one continues its
 * per-connection counter. */
#define RS_IPID_NEXT 64
#define RS_IPID_FAR 2048
/* What followed a dead connection: the latest connection starts per
 * (client, server, server port), and the dead connections waiting for
 * the end of the capture to learn whether a new one followed. */
#define RS_STARTS 4
#define RS_PAIRS 16384
#define RS_PENDING 256
/* Later RSTs listed as evidence. */
#define RS_LATER_LISTED 4
/* Window growth in a RST that shows freed receive memory: more than the
 * window granularity and than a reading application's update delay. */
#define RS_WIN_FREED_MIN 1024u

enum { RK_UNKNOWN = 0, RK_SOCKET, RK_STACKLESS, RK_FOREIGN };

/* One side's ordinary packets (not RST): what its own stack sends. */
typedef struct rs_side {
	uint32_t plain, nonsyn, nonsyn_ts, v4, v4_df;
	uint8_t ttl_min, ttl_max;
	bool ipid_known, answered, fin;
	uint16_t last_ipid;
	uint32_t win_last, win_max; /* scaled, after the handshake */
	uint32_t win_before_fall; /* the window when it last started to fall */
	uint64_t acked_while_falling;
	uint32_t keepalives;
	/* its first FIN, the ACK that FIN carried, and its last data before
	 * it when that was a TLS alert record (content type 21) */
	uint64_t fin_frame, alert_frame;
	pd_time fin_ts, alert_ts;
	uint32_t fin_ack;
	bool fin_has_ack, last_data_alert;
	/* its new data after the other side's FIN */
	uint32_t data_after_peer_fin;
	uint64_t bytes_after_peer_fin, first_after_peer_fin_frame;
	pd_time first_after_peer_fin_ts;
	pd_time last_ts, last_data_ts, gap_before_last;
	uint64_t last_frame, last_data_frame;
	uint32_t last_seq, last_seq_end, last_ack, last_len;
	bool last_has_ack;
	/* how fast it acknowledges the other side's data: one sample pending
	 * at a time (the other side's new data), none across a retransmission */
	bool sample_pending;
	uint32_t sample_seq_end;
	pd_time sample_sent, answer_min;
} rs_side;

/* The first RST of the connection and what surrounded it. */
typedef struct rs_rst {
	uint64_t frame;
	pd_time ts;
	int8_t dir, kind;
	uint8_t flags, ttl, ttl_min, ttl_max;
	bool ipv4, df, has_ts, uses_ts, df_always;
	bool ttl_off, too_fast, df_off, ipid_off, answers, after_idle;
	uint16_t ipid, prev_ipid;
	bool prev_ipid_known;
	uint32_t seq, ack, win, win_before, win_max, win_fall_from;
	uint64_t acked_while_falling;
	/* the other side's last packet before it (what it may answer) */
	uint64_t trig_frame;
	pd_time trig_ts, trig_gap;
	uint32_t trig_len;
	/* the RST sender's own last packet and data before it */
	uint64_t own_frame, own_data_frame;
	pd_time own_ts, own_data_ts;
	bool own_fin, own_answered, peer_fin;
	uint32_t peer_unacked; /* bytes of the other side the RST's ACK did not cover */
	/* the RST sender's FIN before it, and what the other side sent after it */
	uint64_t own_fin_frame, own_alert_frame;
	pd_time own_fin_ts, own_alert_ts;
	bool peer_fin_first; /* the other side's FIN came before this side's */
	bool peer_fin_unacked; /* the other side's FIN is in peer_unacked */
	uint32_t peer_after_fin_segs;
	uint64_t peer_after_fin_bytes, peer_after_fin_frame;
	pd_time peer_after_fin_ts;
	pd_time rtt;
	int vantage;
} rs_rst;

/* The first segment after a long silence, and what became of it. */
typedef struct rs_idle {
	bool open, answered, reset;
	int8_t dir; /* who sent after the silence */
	pd_time gap, before_ts, first_ts, last_ts;
	uint64_t before_frame, first_frame, last_frame;
	uint32_t first_seq, first_len;
	bool first_keepalive;
	uint32_t tries, retrans;
	uint32_t keepalives_before; /* probes the connection sent before the silence ended */
} rs_idle;

/* What happened once a connection was reset or fell silent: rare, so
 * made only then (most flows never need it). */
typedef struct rs_event {
	bool have_rst;
	rs_rst first;
	rs_idle idle;
	/* after the first RST */
	uint32_t later[2]; /* further RSTs by sender */
	uint32_t later_listed;
	uint64_t later_frame[RS_LATER_LISTED];
	pd_time later_ts[RS_LATER_LISTED];
	int8_t later_dir[RS_LATER_LISTED];
	bool later_stackless[RS_LATER_LISTED];
	uint64_t later_first, later_last;
	uint32_t genuine_after; /* packets of the claimed sender with its own TTL */
	uint64_t genuine_frame;
	pd_time genuine_ts;
	uint32_t hit_after, hit_data_after; /* the RST's receiver kept sending */
	uint64_t hit_frame;
	uint32_t hit_rst; /* the RST's receiver's own RSTs after it */
	uint64_t hit_rst_frame;
} rs_event;

/* Connections from one client to one server port. */
typedef struct rs_pair_key {
	pd_addr c, s;
	uint16_t sp, pad;
} rs_pair_key;

typedef struct rs_starts {
	pd_time ts[RS_STARTS]; /* the latest starts (SYN), a ring */
	uint64_t frame[RS_STARTS];
	uint16_t cport[RS_STARTS];
	uint32_t n;
} rs_starts;

/* A connection the middlebox forgot: did the client open a new one? */
typedef struct rs_pending {
	pd_finding *f;
	rs_pair_key key;
	uint16_t cport;
	pd_time dead_ts; /* the first segment it could not deliver */
} rs_pending;

typedef struct rs_global {
	pd_keytable *starts; /* rs_pair_key -> rs_starts */
	rs_pending pending[RS_PENDING];
	uint32_t npending;
} rs_global;

typedef struct rs_flow {
	rs_side s[2];
	pd_time last_ts;
	uint64_t last_frame;
	bool closed_before; /* a FIN or RST before the current packet */
	bool has_ev; /* from the first RST or long silence */
	rs_event ev;
} rs_flow;

/* ---------- per packet ---------- */

static uint32_t rs_scaled_win(const pd_flow *flow, int dir, const pd_tcp *t)
{
	uint64_t w = t->window;
	int8_t sh = flow->half[dir].wscale;
	if (!(t->flags & PD_TCP_SYN) && sh > 0)
		w <<= sh;
	return w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
}

static pd_time rs_idle_min(const pd_flow *flow)
{
	pd_time rtt = pd_flow_rtt(flow);
	pd_time m = rtt * RS_IDLE_MIN_RTTS;
	return m > RS_IDLE_MIN_NS ? m : RS_IDLE_MIN_NS;
}

/* The ordinary packet of side d updates what its stack looks like. */
static void rs_learn(rs_side *sd, const pd_flow *flow, int d, const pd_packet *pkt, const pd_seg *seg,
		     pd_time gap, bool peer_fin)
{
	const pd_tcp *t = &pkt->tcp;
	bool syn = t->flags & PD_TCP_SYN;
	uint8_t ttl = pkt->ip.ttl;
	if (!sd->plain || ttl < sd->ttl_min)
		sd->ttl_min = ttl;
	if (!sd->plain || ttl > sd->ttl_max)
		sd->ttl_max = ttl;
	sd->plain++;
	if (pkt->ip.version == 4) {
		sd->v4++;
		sd->v4_df += pkt->ip.df;
		/* a SYN-ACK leaves with ID 0 on Linux: not the connection's counter */
		if (!syn || pkt->ip.ident) {
			sd->last_ipid = (uint16_t)pkt->ip.ident;
			sd->ipid_known = true;
		}
	}
	if (!syn) {
		sd->nonsyn++;
		sd->nonsyn_ts += t->has_ts;
		sd->answered = true;
		uint32_t w = rs_scaled_win(flow, d, t);
		/* the window falling while new data is acknowledged: the
		 * application is not reading */
		if (seg->acked > 0 && sd->win_last && w < sd->win_last) {
			if (!sd->acked_while_falling)
				sd->win_before_fall = sd->win_last;
			sd->acked_while_falling += seg->acked;
		} else if (w > sd->win_last) {
			sd->acked_while_falling = 0;
		}
		sd->win_last = w;
		if (w > sd->win_max)
			sd->win_max = w;
	}
	if ((t->flags & PD_TCP_FIN) && !sd->fin) {
		sd->fin_frame = pkt->frame_no;
		sd->fin_ts = pkt->ts;
		sd->fin_ack = t->ack;
		sd->fin_has_ack = t->flags & PD_TCP_ACK;
	}
	if (t->flags & PD_TCP_FIN)
		sd->fin = true;
	if (t->payload_len && !sd->fin) {
		/* a TLS record header: type 21 (alert), version 3.x */
		pd_cursor c;
		pd_cursor_init(&c, pkt->tcp.payload, pkt->tcp.payload_captured);
		uint8_t type = pd_cursor_u8(&c), major = pd_cursor_u8(&c), minor = pd_cursor_u8(&c);
		sd->last_data_alert = !c.err && type == 21 && major == 3 && minor <= 4;
		if (sd->last_data_alert) {
			sd->alert_frame = pkt->frame_no;
			sd->alert_ts = pkt->ts;
		}
	}
	if (t->payload_len && (seg->flags & PD_SEG_NEW_DATA) && peer_fin) {
		if (!sd->data_after_peer_fin++) {
			sd->first_after_peer_fin_frame = pkt->frame_no;
			sd->first_after_peer_fin_ts = pkt->ts;
		}
		sd->bytes_after_peer_fin += t->payload_len;
	}
	if (seg->flags & PD_SEG_KEEPALIVE)
		sd->keepalives++;
	sd->gap_before_last = gap;
	sd->last_ts = pkt->ts;
	sd->last_frame = pkt->frame_no;
	sd->last_seq = t->seq;
	sd->last_seq_end = seg->seq_end;
	sd->last_ack = t->ack;
	sd->last_has_ack = t->flags & PD_TCP_ACK;
	sd->last_len = t->payload_len;
	if (t->payload_len) {
		sd->last_data_ts = pkt->ts;
		sd->last_data_frame = pkt->frame_no;
	}
}

/* What made this RST, judged against the ordinary packets of its side. */
static void rs_classify(rs_flow *st, const pd_flow *flow, int d, const pd_packet *pkt, rs_rst *r)
{
	const pd_tcp *t = &pkt->tcp;
	const rs_side *sd = &st->s[d], *sp = &st->s[pd_peer(d)];
	memset(r, 0, sizeof(*r));
	r->frame = pkt->frame_no;
	r->ts = pkt->ts;
	r->dir = (int8_t)d;
	r->flags = t->flags;
	r->ttl = pkt->ip.ttl;
	r->ttl_min = sd->ttl_min;
	r->ttl_max = sd->ttl_max;
	r->ipv4 = pkt->ip.version == 4;
	r->df = pkt->ip.df;
	r->ipid = (uint16_t)pkt->ip.ident;
	r->prev_ipid = sd->last_ipid;
	r->prev_ipid_known = sd->ipid_known;
	r->has_ts = t->has_ts;
	r->uses_ts = sd->nonsyn > 0 && sd->nonsyn_ts == sd->nonsyn;
	r->df_always = sd->v4 >= 2 && sd->v4_df == sd->v4;
	r->seq = t->seq;
	r->ack = t->ack;
	r->win = rs_scaled_win(flow, d, t);
	r->win_before = sd->win_last;
	r->win_max = sd->win_max;
	r->win_fall_from = sd->win_before_fall;
	r->acked_while_falling = sd->acked_while_falling;
	r->own_frame = sd->last_frame;
	r->own_ts = sd->last_ts;
	r->own_data_frame = sd->last_data_frame;
	r->own_data_ts = sd->last_data_ts;
	r->own_fin = sd->fin;
	r->own_answered = sd->answered;
	r->peer_fin = sp->fin;
	r->own_fin_frame = sd->fin_frame;
	r->own_fin_ts = sd->fin_ts;
	if (sd->fin && sd->last_data_alert) {
		r->own_alert_frame = sd->alert_frame;
		r->own_alert_ts = sd->alert_ts;
	}
	r->peer_fin_first = sp->fin && sd->fin && sp->fin_frame < sd->fin_frame;
	r->peer_after_fin_segs = sp->data_after_peer_fin;
	r->peer_after_fin_bytes = sp->bytes_after_peer_fin;
	r->peer_after_fin_frame = sp->first_after_peer_fin_frame;
	r->peer_after_fin_ts = sp->first_after_peer_fin_ts;
	r->trig_frame = sp->last_frame;
	r->trig_ts = sp->last_ts;
	r->trig_gap = sp->gap_before_last;
	r->trig_len = sp->last_len;
	r->rtt = flow->hs_rtt > 0 ? pd_flow_rtt(flow) : sd->answer_min;
	r->vantage = pd_flow_vantage(flow);
	const pd_tcp_half *hp = &flow->half[pd_peer(d)];
	if ((t->flags & PD_TCP_ACK) && hp->seq_valid && pd_seq_lt(t->ack, hp->next_seq))
		r->peer_unacked = (uint32_t)pd_seq_diff(hp->next_seq, t->ack);
	else if (!(t->flags & PD_TCP_ACK) && hp->seq_valid && flow->half[d].ack_valid &&
		 pd_seq_lt(flow->half[d].last_ack, hp->next_seq))
		r->peer_unacked = (uint32_t)pd_seq_diff(hp->next_seq, flow->half[d].last_ack);
	/* the other side's FIN takes a sequence number but carries no data */
	uint32_t covered = (t->flags & PD_TCP_ACK) ? t->ack : flow->half[d].last_ack;
	r->peer_fin_unacked = r->peer_unacked && hp->fin_valid && pd_seq_le(covered, hp->fin_seq);

	/* a reply to the other side's last packet: its ACK number as our
	 * sequence, and (with ACK) its end as our acknowledgement */
	if (sp->plain && sp->last_has_ack)
		r->answers =
			t->seq == sp->last_ack && (!(t->flags & PD_TCP_ACK) || t->ack == sp->last_seq_end);
	r->ttl_off = sd->plain >= 2 && (r->ttl < sd->ttl_min || r->ttl > sd->ttl_max);
	/* next to the side it answers, a real answer needs the round trip:
	 * the handshake's, or the quickest answer that side gave to data (a
	 * handshake can wait in a queue) */
	pd_time rtt = flow->hs_rtt > 0 ? flow->hs_rtt : 0;
	if (sd->answer_min > 0 && (rtt <= 0 || sd->answer_min < rtt))
		rtt = sd->answer_min;
	r->too_fast = r->answers && sd->answered && r->vantage == pd_peer(d) && rtt >= PD_NS_PER_SEC / 1000 &&
		      pkt->ts - sp->last_ts < rtt / 2;
	r->df_off = r->ipv4 && r->df_always && !r->df;
	r->ipid_off = r->ipv4 && sd->ipid_known && r->ipid != 0 &&
		      (uint16_t)(r->ipid - sd->last_ipid) > RS_IPID_FAR &&
		      (uint16_t)(sd->last_ipid - r->ipid) > RS_IPID_FAR;
	bool ipid_next = !r->ipv4 || (sd->ipid_known && r->ipid != sd->last_ipid &&
				      (uint16_t)(r->ipid - sd->last_ipid) <= RS_IPID_NEXT);
	bool socket_form = (t->flags & PD_TCP_ACK) && r->has_ts == r->uses_ts && ipid_next;
	bool stackless_form = !r->has_ts && t->window == 0 && (!r->ipv4 || r->ipid == 0);
	if (r->ttl_off)
		r->kind = RK_FOREIGN;
	else if (socket_form)
		r->kind = RK_SOCKET;
	else if (sd->answered && (r->too_fast || (r->df_off && r->ipid_off)))
		r->kind = RK_FOREIGN;
	else if (stackless_form)
		r->kind = RK_STACKLESS;
	else
		r->kind = RK_UNKNOWN;
}

static rs_event *rs_event_of(rs_flow *st)
{
	st->has_ev = true;
	return &st->ev;
}

/* A RST: the first is judged, the later ones are its consequences. */
static void rs_on_rst(rs_flow *st, const pd_flow *flow, int d, const pd_packet *pkt)
{
	const pd_tcp *t = &pkt->tcp;
	rs_event *ev = rs_event_of(st);
	rs_idle *id = &ev->idle;
	if (!ev->have_rst) {
		rs_classify(st, flow, d, pkt, &ev->first);
		ev->have_rst = true;
		/* the first thing the other side said after the silence */
		if (id->open && !id->answered && id->dir == pd_peer(d)) {
			ev->first.after_idle = true;
			id->reset = true;
		}
		id->open = false;
		return;
	}
	ev->later[d]++;
	if (!ev->later_first)
		ev->later_first = pkt->frame_no;
	ev->later_last = pkt->frame_no;
	if (ev->later_listed < RS_LATER_LISTED) {
		ev->later_frame[ev->later_listed] = pkt->frame_no;
		ev->later_ts[ev->later_listed] = pkt->ts;
		ev->later_dir[ev->later_listed] = (int8_t)d;
		ev->later_stackless[ev->later_listed] = !t->has_ts && t->window == 0;
		ev->later_listed++;
	}
	if (d != ev->first.dir) {
		ev->hit_rst++;
		if (!ev->hit_rst_frame)
			ev->hit_rst_frame = pkt->frame_no;
	}
}

/* After the first RST: does the side it claims to come from still talk
 * with its own TTL, does the side it hit keep sending? */
static void rs_after_rst(rs_event *ev, int d, const pd_packet *pkt)
{
	const rs_rst *r = &ev->first;
	if (d == r->dir) {
		if (r->kind == RK_FOREIGN && pkt->ip.ttl >= r->ttl_min && pkt->ip.ttl <= r->ttl_max) {
			ev->genuine_after++;
			if (!ev->genuine_frame) {
				ev->genuine_frame = pkt->frame_no;
				ev->genuine_ts = pkt->ts;
			}
		}
	} else if (!(pkt->tcp.flags & PD_TCP_RST)) {
		ev->hit_after++;
		ev->hit_data_after += pkt->tcp.payload_len > 0;
		if (!ev->hit_frame)
			ev->hit_frame = pkt->frame_no;
	}
}

/* The first segment after a long silence, and its fate. */
static void rs_idle_step(rs_flow *st, const pd_flow *flow, int d, const pd_packet *pkt, const pd_seg *seg,
			 pd_time gap)
{
	const pd_tcp *t = &pkt->tcp;
	int p = pd_peer(d);
	rs_idle *id = st->has_ev ? &st->ev.idle : NULL;
	if (id && id->open && !id->answered) {
		if (d == id->dir) {
			id->tries++;
			id->retrans += (seg->flags & PD_SEG_RETRANS) != 0;
			id->last_frame = pkt->frame_no;
			id->last_ts = pkt->ts;
		} else {
			/* the peer's own data still carrying an old ACK crossed the
			 * silence the other way: it is no answer */
			bool acks = (t->flags & PD_TCP_ACK) && pd_seq_lt(id->first_seq, t->ack);
			if (acks || !t->payload_len) {
				id->answered = true;
				id->open = false;
			}
		}
		return;
	}
	/* a silence both ways, long for a middlebox, in a connection the peer
	 * answered before, not waiting on the peer's window; then data, a FIN
	 * or a keepalive probe */
	if (st->closed_before || !st->last_ts || gap < rs_idle_min(flow) || !st->s[p].answered ||
	    st->s[p].win_last < pd_flow_mss(flow, d, false) ||
	    !(t->payload_len > 0 || (t->flags & PD_TCP_FIN) || (seg->flags & PD_SEG_KEEPALIVE)))
		return;
	/* Idle means nothing was left unacknowledged: a resend after the
	 * silence is the retransmission timer backing off over data the peer
	 * never acknowledged (suricata-verify's ssh-hassh-incomplete: 4.7 s
	 * between the 5th and 6th resend of one segment), not a quiet
	 * connection a middlebox forgot. */
	const pd_tcp_half *hp = &flow->half[p];
	if ((seg->flags & PD_SEG_RETRANS) ||
	    (!(seg->flags & PD_SEG_KEEPALIVE) && hp->ack_valid && pd_seq_lt(hp->last_ack, t->seq)))
		return;
	id = &rs_event_of(st)->idle;
	memset(id, 0, sizeof(*id));
	id->open = true;
	id->dir = (int8_t)d;
	id->gap = gap;
	id->before_ts = st->last_ts;
	id->before_frame = st->last_frame;
	id->first_ts = id->last_ts = pkt->ts;
	id->first_frame = id->last_frame = pkt->frame_no;
	id->first_seq = t->seq;
	id->first_len = t->payload_len;
	id->first_keepalive = (seg->flags & PD_SEG_KEEPALIVE) != 0;
	id->keepalives_before = st->s[0].keepalives + st->s[1].keepalives;
}

static void rs_on_tcp(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, const pd_seg *seg)
{
	(void)ctx;
	rs_flow *st = fs;
	const pd_tcp *t = &pkt->tcp;
	int d = seg->dir, p = pd_peer(d);
	pd_time gap = st->last_ts ? pkt->ts - st->last_ts : 0;
	bool had_rst = st->has_ev && st->ev.have_rst;

	if (had_rst)
		rs_after_rst(&st->ev, d, pkt);
	if (t->flags & PD_TCP_RST) {
		rs_on_rst(st, flow, d, pkt);
		st->closed_before = true;
		st->last_ts = pkt->ts;
		st->last_frame = pkt->frame_no;
		return;
	}
	rs_idle_step(st, flow, d, pkt, seg, gap);

	/* d's answer time to p's data (a RST's ACK takes no sample) */
	rs_side *sp = &st->s[p], *sd = &st->s[d];
	if ((t->flags & PD_TCP_ACK) && sp->sample_pending && pd_seq_le(sp->sample_seq_end, t->ack)) {
		pd_time a = pkt->ts - sp->sample_sent;
		if (a > 0 && (!sd->answer_min || a < sd->answer_min))
			sd->answer_min = a;
		sp->sample_pending = false;
	}
	if (seg->flags & PD_SEG_RETRANS)
		sd->sample_pending = false;
	else if ((seg->flags & PD_SEG_NEW_DATA) && !sd->sample_pending) {
		sd->sample_pending = true;
		sd->sample_seq_end = seg->seq_end;
		sd->sample_sent = pkt->ts;
	}
	rs_learn(sd, flow, d, pkt, seg, gap, sp->fin);
	if (t->flags & PD_TCP_FIN)
		st->closed_before = true;
	st->last_ts = pkt->ts;
	st->last_frame = pkt->frame_no;
}

/* ---------- text helpers ---------- */

/* A duration with a unit that suits it: "12 us", "0.21 ms", "4.98 s". */
static const char *rs_dur(pd_time ns, char buf[32])
{
	if (ns < 0)
		ns = 0;
	if (ns < 1000 * 1000)
		snprintf(buf, 32, "%lld µs", (long long)(ns / 1000));
	else if (ns < 10 * 1000 * 1000)
		snprintf(buf, 32, "%.2f ms", (double)ns / 1e6);
	else if (ns < PD_NS_PER_SEC)
		snprintf(buf, 32, "%.1f ms", (double)ns / 1e6);
	else
		snprintf(buf, 32, "%.2f s", (double)ns / 1e9);
	return buf;
}

static double rs_t(pd_ctx *ctx, pd_time ts)
{
	return (double)(ts - pd_ctx_start(ctx)) / 1e9;
}

/* "62" or "62-64": the TTLs of the side's ordinary packets. */
static const char *rs_ttls(const rs_rst *r, char buf[16])
{
	if (r->ttl_min == r->ttl_max)
		snprintf(buf, 16, "%u", r->ttl_min);
	else
		snprintf(buf, 16, "%u-%u", r->ttl_min, r->ttl_max);
	return buf;
}

/* The consequences: later RSTs listed, and counted. */
static void rs_list_later(pd_finding *f, const rs_event *ev)
{
	for (uint32_t i = 0; i < ev->later_listed; i++) {
		uint64_t fr = ev->later_frame[i];
		pd_time ts = ev->later_ts[i];
		bool srv = ev->later_dir[i] == PD_SERVER;
		if (ev->later_stackless[i] && srv)
			pd_finding_occurrence(f, fr, ts, "server's RST: no socket any more",
					      "服务端的 RST：已无套接字");
		else if (ev->later_stackless[i])
			pd_finding_occurrence(f, fr, ts, "client's RST: no socket any more",
					      "客户端的 RST：已无套接字");
		else if (srv)
			pd_finding_occurrence(f, fr, ts, "another RST from the server", "服务端的又一个 RST");
		else
			pd_finding_occurrence(f, fr, ts, "another RST from the client", "客户端的又一个 RST");
	}
	uint32_t more = ev->later[0] + ev->later[1];
	if (more > ev->later_listed)
		pd_finding_count(f, more - ev->later_listed);
}

/* Where the RST's own header says it comes from the side's socket. */
static void rs_append_socket(pd_finding *f, const rs_rst *r)
{
	char ttl[16];
	rs_ttls(r, ttl);
	if (r->ipv4 && r->has_ts)
		pd_finding_append(f,
				  "; it comes from the connection's own socket: ACK flag set, TTL %u (its "
				  "other packets: %s), IP ID 0x%04x right after 0x%04x, and the timestamp "
				  "option",
				  "；它来自该连接自己的套接字：带 ACK 标志，TTL 为 %u（该方其他报文：%s），"
				  "IP ID 0x%04x 紧接 0x%04x，并带时间戳选项",
				  r->ttl, ttl, r->ipid, r->prev_ipid);
	else if (r->ipv4)
		pd_finding_append(f,
				  "; it comes from the connection's own socket: ACK flag set, TTL %u (its "
				  "other packets: %s), IP ID 0x%04x right after 0x%04x",
				  "；它来自该连接自己的套接字：带 ACK 标志，TTL 为 %u（该方其他报文：%s），"
				  "IP ID 0x%04x 紧接 0x%04x",
				  r->ttl, ttl, r->ipid, r->prev_ipid);
	else if (r->has_ts)
		pd_finding_append(f,
				  "; it comes from the connection's own socket: ACK flag set, hop limit %u "
				  "(its other packets: %s), and the timestamp option",
				  "；它来自该连接自己的套接字：带 ACK 标志，跳数限制为 %u（该方其他报文：%s）"
				  "，并带时间戳选项",
				  r->ttl, ttl);
	else
		pd_finding_append(
			f,
			"; it comes from the connection's own socket: ACK flag set, hop limit %u "
			"(its other packets: %s)",
			"；它来自该连接自己的套接字：带 ACK 标志，跳数限制为 %u（该方其他报文：%s）", r->ttl,
			ttl);
}

/* The peer's segments that were in flight, and what answered them. */
static void rs_append_in_flight(pd_finding *f, const rs_event *ev)
{
	const rs_rst *r = &ev->first;
	if (r->peer_unacked)
		pd_finding_append(f, "; %u bytes the other side had sent were never acknowledged",
				  "；对端已发送的 %u 字节始终没有被确认", r->peer_unacked);
	uint32_t own_later = ev->later[r->dir];
	if (own_later == 1)
		pd_finding_append(f,
				  "; one later RST from the same address (frame %llu) answered a segment "
				  "that was still on its way: its kernel no longer had the socket (R only, "
				  "no options, IP ID 0); it is a consequence, not another problem",
				  "；之后同一地址又发出 1 个 RST（第 %llu 帧），回应仍在路上的报文："
				  "其内核已没有这个套接字（只有 R 标志、无选项、IP ID 为 0）；它是后果，"
				  "不是另一个问题",
				  (unsigned long long)ev->later_first);
	else if (own_later)
		pd_finding_append(f,
				  "; %u later RSTs from the same address (frames %llu-%llu) answered "
				  "segments that were still on their way: its kernel no longer had the "
				  "socket (R only, no options, IP ID 0); they are consequences, not another "
				  "problem",
				  "；之后同一地址又发出 %u 个 RST（第 %llu-%llu 帧），回应仍在路上的报文："
				  "其内核已没有这个套接字（只有 R 标志、无选项、IP ID 为 0）；它们是后果，"
				  "不是另一个问题",
				  own_later, (unsigned long long)ev->later_first,
				  (unsigned long long)ev->later_last);
}

/* ---------- the findings ---------- */

/* The RST grew the window past its previous ACKs: close() freed data the
 * application never read. */
static bool rs_unread(const rs_rst *r)
{
	return r->win > r->win_before && r->win - r->win_before >= RS_WIN_FREED_MIN && r->win_max > 0;
}

/* Bytes of the other side's data (not its FIN) the RST sender never
 * acknowledged. */
static uint32_t rs_peer_lost(const rs_rst *r)
{
	return r->peer_unacked - (r->peer_fin_unacked && r->peer_unacked ? 1 : 0);
}

/* The side had closed (FIN) and then reset the other side's data that
 * came after its close, or crossed it: the data never reached its
 * application. */
static void rs_report_after_close(pd_ctx *ctx, const pd_flow *flow, const rs_event *ev)
{
	const rs_rst *r = &ev->first;
	int d = r->dir, p = pd_peer(d);
	char ep[64], peer[64], b1[32];
	pd_flow_endpoint(flow, d, ep, sizeof(ep));
	pd_flow_endpoint(flow, p, peer, sizeof(peer));
	uint32_t lost = rs_peer_lost(r);
	/* the other side closed too: both ends closing at once, only its last
	 * short record lost */
	bool both_closing = r->peer_fin && lost <= 128 && !ev->hit_data_after;
	/* or its one short last record and nothing after it: the other side
	 * saying goodbye (a TLS close_notify, an SSH disconnect, a WebSocket
	 * close frame: 2-68 bytes in suricata-verify's and Zeek's captures)
	 * while it closed too, its FIN not yet sent; nothing the application
	 * needed was lost */
	bool last_word = !both_closing && lost <= 128 && r->peer_after_fin_segs <= 1 && !ev->hit_data_after;
	bool stackless = r->kind == RK_STACKLESS;
	pd_finding *f = pd_finding_get(ctx, "reset-after-close", flow);
	if (r->own_alert_frame)
		pd_finding_occurrence(f, r->own_alert_frame, r->own_alert_ts, "TLS alert record before the FIN",
				      "FIN 之前的 TLS 告警记录");
	if (d == PD_SERVER)
		pd_finding_occurrence(f, r->own_fin_frame, r->own_fin_ts, "the server's FIN: it closed",
				      "服务端的 FIN：它关闭了连接");
	else
		pd_finding_occurrence(f, r->own_fin_frame, r->own_fin_ts, "the client's FIN: it closed",
				      "客户端的 FIN：它关闭了连接");
	if (r->peer_after_fin_frame)
		pd_finding_occurrence(f, r->peer_after_fin_frame, r->peer_after_fin_ts,
				      "data arriving after that close", "关闭之后到达的数据");
	if (d == PD_SERVER)
		pd_finding_occurrence(f, r->frame, r->ts, "the server's RST to that data", "服务端对这些数据的 RST");
	else
		pd_finding_occurrence(f, r->frame, r->ts, "the client's RST to that data", "客户端对这些数据的 RST");
	rs_list_later(f, ev);

	if (d == PD_SERVER)
		pd_finding_detail(f,
				  "The server %1$s closed its end of the connection (FIN at frame %3$llu, t=%4$.6f s) "
				  "while data from client %2$s was still arriving, and then answered that data with "
				  "a RST (frame %5$llu, t=%6$.6f s)",
				  "服务端 %1$s 关闭了自己这一端（FIN 在第 %3$llu 帧，t=%4$.6f s），而客户端 %2$s "
				  "的数据仍在陆续到达，随后服务端用 RST（第 %5$llu 帧，t=%6$.6f s）回应了这些数据",
				  ep, peer, (unsigned long long)r->own_fin_frame, rs_t(ctx, r->own_fin_ts), (unsigned long long)r->frame,
				  rs_t(ctx, r->ts));
	else
		pd_finding_detail(f,
				  "The client %1$s closed its end of the connection (FIN at frame %3$llu, t=%4$.6f s) "
				  "while data from server %2$s was still arriving, and then answered that data with "
				  "a RST (frame %5$llu, t=%6$.6f s)",
				  "客户端 %1$s 关闭了自己这一端（FIN 在第 %3$llu 帧，t=%4$.6f s），而服务端 %2$s "
				  "的数据仍在陆续到达，随后客户端用 RST（第 %5$llu 帧，t=%6$.6f s）回应了这些数据",
				  ep, peer, (unsigned long long)r->own_fin_frame, rs_t(ctx, r->own_fin_ts), (unsigned long long)r->frame,
				  rs_t(ctx, r->ts));
	if (r->own_alert_frame)
		pd_finding_append(f,
				  "; its last data before the FIN was a TLS alert record (content type 21, frame "
				  "%llu): the application ended the session and closed at once",
				  "；FIN 之前它最后发送的数据是一个 TLS 告警记录（内容类型 21，第 %llu 帧）："
				  "应用结束了会话并立即关闭",
				  (unsigned long long)r->own_alert_frame);
	if (r->peer_after_fin_segs)
		pd_finding_append(f,
				  "; %u segment(s) of data (%llu bytes) came from the other side after the FIN, the "
				  "first at frame %llu",
				  "；FIN 之后对端又发来 %u 个数据报文段（%llu 字节），第一个在第 %llu 帧",
				  r->peer_after_fin_segs, (unsigned long long)r->peer_after_fin_bytes,
				  (unsigned long long)r->peer_after_fin_frame);
	if (both_closing)
		pd_finding_append(f,
				  "; %u bytes the other side had sent (its last record, crossing the FIN) were never "
				  "acknowledged: they reached a socket whose application had closed and were thrown "
				  "away",
				  "；对端已发送的 %u 字节（它最后的记录，与 FIN 交错）始终没有被确认：它们到达的是应用"
				  "已经关闭的套接字，被直接丢弃",
				  lost);
	else
		pd_finding_append(f,
				  "; %u bytes the other side had sent were never acknowledged: they reached a socket "
				  "whose application had closed and were thrown away, and the sender got ECONNRESET "
				  "or EPIPE instead of an orderly end",
				  "；对端已发送的 %u 字节始终没有被确认：它们到达的是应用已经关闭的套接字，被直接丢弃，"
				  "发送方得到的是 ECONNRESET 或 EPIPE，而不是正常结束",
				  lost);
	if (stackless)
		pd_finding_append(f,
				  "; the RST has no ACK flag, no options and window 0: the kernel sent it for data "
				  "arriving after close(), as Linux does for a socket closed while the peer still "
				  "sends (counted in TcpExtTCPAbortOnData; macOS and the BSDs do the same)",
				  "；这个 RST 没有 ACK 标志、没有选项、窗口为 0：是内核对 close() 之后到达的数据发出的，"
				  "Linux 对对端仍在发送时已关闭的套接字就是这样处理的（计入 "
				  "TcpExtTCPAbortOnData；macOS 和 BSD 也一样）");
	else
		pd_finding_append(f,
				  "; a kernel answers data that arrives after close() with a RST (Linux counts it in "
				  "TcpExtTCPAbortOnData)",
				  "；内核对 close() 之后到达的数据回应 RST（Linux 计入 TcpExtTCPAbortOnData）");
	if (both_closing && p == PD_CLIENT)
		pd_finding_append(f,
				  "; the client was closing too (its FIN came before the RST): the two closes "
				  "crossed and only the client's last short record (such as a TLS close_notify) was "
				  "lost",
				  "；客户端当时也在关闭（它的 FIN 在 RST 之前）：两端的关闭相互交错，只丢失了客户端最后"
				  "一条很短的记录（例如 TLS close_notify）");
	else if (both_closing)
		pd_finding_append(f,
				  "; the server was closing too (its FIN came before the RST): the two closes "
				  "crossed and only the server's last short record (such as a TLS close_notify) was "
				  "lost",
				  "；服务端当时也在关闭（它的 FIN 在 RST 之前）：两端的关闭相互交错，只丢失了服务端最后"
				  "一条很短的记录（例如 TLS close_notify）");
	else if (last_word)
		pd_finding_append(f,
				  "; only one short last record (%u bytes, such as a TLS close_notify) was lost: the "
				  "other side was saying goodbye, nothing its application needed",
				  "；只丢失了最后一条很短的记录（%u 字节，例如 TLS close_notify）：对端是在道别，"
				  "没有丢失其应用需要的数据",
				  lost);
	else if (ev->hit_data_after)
		pd_finding_append(f, "; the other side still sent %u data segment(s) after the RST",
				  "；RST 之后对端仍发送了 %u 个数据报文段", ev->hit_data_after);
	pd_finding_append(f,
			  "; to end a connection the peer may still be writing to, call shutdown(SHUT_WR), read "
			  "until the peer's FIN (with a timeout), then close(); an HTTP client should keep its "
			  "idle keep-alive timeout below the server's, and a TLS endpoint should wait for the "
			  "peer's close_notify before close()",
			  "；要结束一条对端可能仍在写入的连接，应先调用 shutdown(SHUT_WR)，读到对端的 FIN（设超时）"
			  "后再 close()；HTTP 客户端的空闲长连接超时应短于服务端的，TLS 端点应等到对端的 "
			  "close_notify 再 close()");
	(void)b1;
	pd_finding_metric(f, "rst_frame", (double)r->frame, PD_UNIT_COUNT, PD_AGG_MIN);
	pd_finding_metric(f, "rst_from_server", d == PD_SERVER, PD_UNIT_COUNT, PD_AGG_MAX);
	pd_finding_metric(f, "fin_frame", (double)r->own_fin_frame, PD_UNIT_COUNT, PD_AGG_MIN);
	pd_finding_metric(f, "peer_bytes_lost", lost, PD_UNIT_BYTES, PD_AGG_SUM);
	pd_finding_metric(f, "peer_segments_after_fin", r->peer_after_fin_segs, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "rsts", 1 + ev->later[d], PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "tls_alert_before_fin", r->own_alert_frame != 0, PD_UNIT_COUNT, PD_AGG_MAX);
	pd_finding_set_severity(f, both_closing || last_word ? PD_SEV_INFO : PD_SEV_WARNING);
	pd_finding_set_confidence(f, stackless ? 0.85 : 0.75);
	pd_finding_settings(f, "application: close() while the peer still sends",
			    "application: close() with unread data", NULL);
}

static void rs_report_close(pd_ctx *ctx, const pd_flow *flow, const rs_event *ev)
{
	const rs_rst *r = &ev->first;
	int d = r->dir, p = pd_peer(d);
	char ep[64], peer[64], b1[32];
	pd_flow_endpoint(flow, d, ep, sizeof(ep));
	pd_flow_endpoint(flow, p, peer, sizeof(peer));
	/* a zero window before counts: a full queue nobody read */
	bool unread = rs_unread(r);
	/* data of the peer's the RST did not cover, or that came after it */
	bool peer_sending = r->peer_unacked > 0 || ev->hit_data_after > 0;
	pd_time since_own = r->own_data_frame ? r->ts - r->own_data_ts : -1;
	bool right_after_data = r->own_data_frame && r->own_data_frame == r->own_frame && since_own >= 0 &&
				since_own < (r->rtt > 0 ? r->rtt / 2 : 5 * 1000 * 1000);
	pd_time quiet = r->ts - (r->own_ts > r->trig_ts ? r->own_ts : r->trig_ts);

	pd_finding *f = pd_finding_get(ctx, unread ? "reset-unread-data" : "reset-abort", flow);
	if (right_after_data)
		pd_finding_occurrence(f, r->own_data_frame, r->own_data_ts, "its last data before the RST",
				      "RST 之前它最后发送的数据");
	if (d == PD_SERVER)
		pd_finding_occurrence(f, r->frame, r->ts, "RST|ACK from the server's socket",
				      "来自服务端套接字的 RST|ACK");
	else
		pd_finding_occurrence(f, r->frame, r->ts, "RST|ACK from the client's socket",
				      "来自客户端套接字的 RST|ACK");
	rs_list_later(f, ev);

	if (d == PD_SERVER)
		pd_finding_detail(f,
				  "The server %s ended the connection with client %s by a RST|ACK (frame "
				  "%llu, t=%.6f s) where a FIN was due",
				  "服务端 %1$s 用 RST|ACK（第 %3$llu 帧，t=%4$.6f s）结束了与客户端 %2$s "
				  "的连接，而此处本应发送 FIN",
				  ep, peer, (unsigned long long)r->frame, rs_t(ctx, r->ts));
	else
		pd_finding_detail(f,
				  "The client %s ended the connection with server %s by a RST|ACK (frame "
				  "%llu, t=%.6f s) where a FIN was due",
				  "客户端 %1$s 用 RST|ACK（第 %3$llu 帧，t=%4$.6f s）结束了与服务端 %2$s "
				  "的连接，而此处本应发送 FIN",
				  ep, peer, (unsigned long long)r->frame, rs_t(ctx, r->ts));
	rs_append_socket(f, r);
	if (right_after_data)
		pd_finding_append(f, "; it followed the side's own last data (frame %llu) by %s",
				  "；距该方自己最后一次发送数据（第 %llu 帧）仅 %s",
				  (unsigned long long)r->own_data_frame, rs_dur(since_own, b1));
	else if (quiet >= 100 * 1000 * 1000 && !r->peer_unacked)
		pd_finding_append(f,
				  "; it came after %s of silence in both directions, with every byte either "
				  "side had sent acknowledged",
				  "；此前双向已静默 %s，双方发送的每个字节都已被确认", rs_dur(quiet, b1));
	if (unread) {
		pd_finding_append(f,
				  "; the RST advertises a window of %u bytes where its previous ACK had %u: "
				  "close() discarded received data the application had never read, and Linux "
				  "answers that with a RST instead of a FIN (TcpExtTCPAbortOnClose on a "
				  "Linux host)",
				  "；RST 中通告的窗口为 %u 字节，而之前的 ACK 为 %u 字节：close() "
				  "丢弃了应用从未读取的已接收数据，Linux 此时发送 RST 而不是 FIN（Linux "
				  "主机上 TcpExtTCPAbortOnClose 会增加）",
				  r->win, r->win_before);
		if (r->acked_while_falling && r->win_fall_from > r->win_before)
			pd_finding_append(f,
					  "; before that its window had fallen from %u to %u bytes while it "
					  "acknowledged %llu bytes: the data was piling up unread",
					  "；在此之前，它在确认 %3$llu 字节的同时窗口从 %1$u 字节降到 %2$u "
					  "字节：数据在接收队列中堆积而未被读取",
					  r->win_fall_from, r->win_before,
					  (unsigned long long)r->acked_while_falling);
	} else if (r->win == 0 && r->win_before) {
		pd_finding_append(f,
				  "; the RST carries window 0, the way Windows sends an abortive close "
				  "(closesocket() after SO_LINGER {1, 0}, or a process ending with the "
				  "socket open), so the window cannot tell whether data was left unread",
				  "；RST 携带的窗口为 0，Windows 的中止式关闭就是这样发送的（设置 SO_LINGER "
				  "{1, 0} 后调用 closesocket()，或进程退出时套接字仍未关闭），"
				  "因此无法从窗口判断是否有未读数据");
	} else {
		pd_finding_append(f,
				  "; its window did not grow in the RST (%u bytes, %u before), so nothing "
				  "unread was freed: the application aborted the connection, as close() "
				  "after SO_LINGER {1, 0} does (TcpExtTCPAbortOnData on a Linux host)",
				  "；RST 中的窗口没有增大（%u 字节，之前为 %u 字节），说明没有释放未读数据："
				  "是应用中止了连接，设置 SO_LINGER {1, 0} 后调用 close() 就会这样（Linux "
				  "主机上 TcpExtTCPAbortOnData 会增加）",
				  r->win, r->win_before);
	}
	if (peer_sending && p == PD_CLIENT)
		pd_finding_append(f, "; the client was still sending", "；当时客户端仍在发送数据");
	else if (peer_sending)
		pd_finding_append(f, "; the server was still sending", "；当时服务端仍在发送数据");
	rs_append_in_flight(f, ev);
	if (unread)
		pd_finding_append(f,
				  "; the application should read what the peer sends to the end before "
				  "close(), or call shutdown(SHUT_WR), read until the peer's FIN, then "
				  "close()",
				  "；应用应在 close() 之前把对端发来的数据读完，或先调用 shutdown(SHUT_WR)，"
				  "读到对端的 FIN 后再 close()");

	pd_finding_metric(f, "rst_frame", (double)r->frame, PD_UNIT_COUNT, PD_AGG_MIN);
	pd_finding_metric(f, "rst_from_server", d == PD_SERVER, PD_UNIT_COUNT, PD_AGG_MAX);
	pd_finding_metric(f, "window_before_bytes", r->win_before, PD_UNIT_BYTES, PD_AGG_MAX);
	pd_finding_metric(f, "window_in_rst_bytes", r->win, PD_UNIT_BYTES, PD_AGG_MAX);
	pd_finding_metric(f, "peer_unacked_bytes", r->peer_unacked, PD_UNIT_BYTES, PD_AGG_SUM);
	pd_finding_metric(f, "later_rsts", ev->later[d], PD_UNIT_COUNT, PD_AGG_SUM);
	if (since_own >= 0)
		pd_finding_metric(f, "since_own_data_ms", (double)since_own / 1e6, PD_UNIT_MS, PD_AGG_MAX);
	if (unread) {
		pd_finding_set_severity(f, PD_SEV_WARNING);
		pd_finding_set_confidence(f, r->acked_while_falling ? 0.9 : 0.8);
		pd_finding_settings(f, "application: close() with unread data", "SO_LINGER", NULL);
	} else {
		/* an idle connection closed by RST costs the peer an error, not data */
		pd_finding_set_severity(f, peer_sending ? PD_SEV_WARNING : PD_SEV_INFO);
		pd_finding_set_confidence(f, 0.8);
		pd_finding_settings(f, "SO_LINGER", "application: close() with unread data", NULL);
	}
}

static void rs_report_stale(pd_ctx *ctx, const pd_flow *flow, const rs_event *ev)
{
	const rs_rst *r = &ev->first;
	int d = r->dir, p = pd_peer(d);
	char ep[64], peer[64], b1[32], b2[32];
	pd_flow_endpoint(flow, d, ep, sizeof(ep));
	pd_flow_endpoint(flow, p, peer, sizeof(peer));
	pd_finding *f = pd_finding_get(ctx, "reset-stale-connection", flow);
	pd_finding_occurrence(f, r->trig_frame, r->trig_ts, "segment for the lost connection",
			      "发往已丢失连接的报文");
	if (d == PD_SERVER)
		pd_finding_occurrence(f, r->frame, r->ts, "bare RST: the server has no such socket",
				      "裸 RST：服务端已无此套接字");
	else
		pd_finding_occurrence(f, r->frame, r->ts, "bare RST: the client has no such socket",
				      "裸 RST：客户端已无此套接字");
	rs_list_later(f, ev);
	if (d == PD_SERVER)
		pd_finding_detail(f,
				  "The server %s no longer had this connection: it answered the segment of "
				  "client %s at frame %llu with a bare RST (frame %llu, t=%.6f s)",
				  "服务端 %1$s 已经没有这条连接：它用一个裸 RST（第 %4$llu 帧，t=%5$.6f s）"
				  "回应了客户端 %2$s 第 %3$llu 帧的报文",
				  ep, peer, (unsigned long long)r->trig_frame, (unsigned long long)r->frame,
				  rs_t(ctx, r->ts));
	else
		pd_finding_detail(f,
				  "The client %s no longer had this connection: it answered the segment of "
				  "server %s at frame %llu with a bare RST (frame %llu, t=%.6f s)",
				  "客户端 %1$s 已经没有这条连接：它用一个裸 RST（第 %4$llu 帧，t=%5$.6f s）"
				  "回应了服务端 %2$s 第 %3$llu 帧的报文",
				  ep, peer, (unsigned long long)r->trig_frame, (unsigned long long)r->frame,
				  rs_t(ctx, r->ts));
	char ttl[16];
	rs_ttls(r, ttl);
	const char *flags = (r->flags & PD_TCP_ACK) ? "R|A" : "R";
	if (r->ipv4)
		pd_finding_append(f,
				  "; the RST is what a kernel sends for a segment of a connection it does "
				  "not know: flags %s, sequence number = the segment's ACK number, no TCP "
				  "options, window 0, IP ID %u, TTL %u as on that side's own packets (%s)",
				  "；这个 RST 正是内核对不认识的连接的报文所发的那种：标志 %s，"
				  "序列号等于该报文的确认号，没有 TCP 选项，窗口为 0，IP ID 为 %u，TTL 为 "
				  "%u，与该方自己的报文一致（%s）",
				  flags, r->ipid, r->ttl, ttl);
	else
		pd_finding_append(f,
				  "; the RST is what a kernel sends for a segment of a connection it does "
				  "not know: flags %s, sequence number = the segment's ACK number, no TCP "
				  "options, window 0, hop limit %u as on that side's own packets (%s)",
				  "；这个 RST 正是内核对不认识的连接的报文所发的那种：标志 %s，"
				  "序列号等于该报文的确认号，没有 TCP 选项，窗口为 0，跳数限制为 %u，"
				  "与该方自己的报文一致（%s）",
				  flags, r->ttl, ttl);
	pd_time dt = r->ts - r->trig_ts;
	if (r->vantage == p)
		pd_finding_append(
			f,
			"; it arrived %s after that segment, about one round trip (RTT %s): the far host "
			"answered",
			"；它在该报文之后 %s 到达，约为一个往返（RTT %s）：是远端主机自己回应的",
			rs_dur(dt, b1), rs_dur(r->rtt, b2));
	else if (r->vantage == d)
		pd_finding_append(f, "; this host sent it %s after the segment arrived",
				  "；本机在该报文到达后 %s 发出了它", rs_dur(dt, b1));
	if (r->trig_gap >= 100 * 1000 * 1000)
		pd_finding_append(f,
				  "; the segment came after %s of silence, and neither side had sent a FIN "
				  "or a RST before it",
				  "；该报文之前双向静默了 %s，而在此之前双方都没有发送过 FIN 或 RST",
				  rs_dur(r->trig_gap, b1));
	pd_finding_append(f,
			  "; the host lost the connection's state in between (restart, crash, failover, a "
			  "socket killed on it), or a NAT or load balancer on the path forgot the mapping "
			  "and sent the segment to a host without the connection; the application then gets "
			  "ECONNRESET",
			  "；这段时间里该主机丢失了连接状态（重启、崩溃、故障切换、套接字被强制关闭），"
			  "或路径上的 NAT、负载均衡忘记了映射，把报文送到了没有这条连接的主机；应用随后收到 "
			  "ECONNRESET");
	rs_append_in_flight(f, ev);
	pd_finding_metric(f, "rst_frame", (double)r->frame, PD_UNIT_COUNT, PD_AGG_MIN);
	pd_finding_metric(f, "rst_from_server", d == PD_SERVER, PD_UNIT_COUNT, PD_AGG_MAX);
	pd_finding_metric(f, "answer_delay_ms", (double)dt / 1e6, PD_UNIT_MS, PD_AGG_MAX);
	pd_finding_metric(f, "idle_before_s", (double)r->trig_gap / 1e9, PD_UNIT_S, PD_AGG_MAX);
	pd_finding_set_severity(f, PD_SEV_WARNING);
	pd_finding_set_confidence(f, 0.8);
	pd_finding_settings(f, "peer restart or failover", "middlebox idle timeout", NULL);
}

/* The signs that a RST was forged, as appended clauses. */
static void rs_append_forged(pd_finding *f, const rs_rst *r, bool timing)
{
	char ttl[16], b1[32], b2[32];
	rs_ttls(r, ttl);
	if (r->ttl_off)
		pd_finding_append(f, "; its TTL is %u where every other packet of that side has %s",
				  "；它的 TTL 为 %u，而该方其他所有报文的 TTL 都是 %s", r->ttl, ttl);
	if (timing && r->answers && r->vantage == pd_peer(r->dir) && r->rtt > 0)
		pd_finding_append(
			f,
			"; it arrived %s after the segment it answers, where the round trip to that side "
			"takes %s",
			"；它在所回应的报文之后 %s 就到达了，而到该方的往返需要 %s",
			rs_dur(r->ts - r->trig_ts, b1), rs_dur(r->rtt, b2));
	if (r->ipid_off)
		pd_finding_append(f, "; IP ID 0x%04x is outside that side's sequence (last 0x%04x)",
				  "；IP ID 0x%04x 不在该方的序列中（上一个为 0x%04x）", r->ipid,
				  r->prev_ipid);
	if (r->df_off)
		pd_finding_append(f, "; DF is clear while that side sets it on every packet",
				  "；DF 位未置位，而该方每个报文都置了 DF");
	if (r->uses_ts && !r->has_ts)
		pd_finding_append(f,
				  "; it has no timestamp option although that side puts one on every segment",
				  "；它没有时间戳选项，而该方每个报文都带时间戳");
}

static void rs_report_injected(pd_ctx *ctx, const pd_flow *flow, const rs_event *ev)
{
	const rs_rst *r = &ev->first;
	int d = r->dir, p = pd_peer(d);
	char ep[64], peer[64], b1[32];
	pd_flow_endpoint(flow, d, ep, sizeof(ep));
	pd_flow_endpoint(flow, p, peer, sizeof(peer));
	pd_finding *f = pd_finding_get(ctx, "reset-injected", flow);
	if (d == PD_SERVER)
		pd_finding_occurrence(f, r->frame, r->ts, "forged RST in the server's name",
				      "冒充服务端的伪造 RST");
	else
		pd_finding_occurrence(f, r->frame, r->ts, "forged RST in the client's name",
				      "冒充客户端的伪造 RST");
	bool listed = false;
	for (uint32_t i = 0; i < ev->later_listed; i++)
		listed |= ev->later_frame[i] == ev->genuine_frame;
	if (ev->genuine_frame && !listed)
		pd_finding_occurrence(f, ev->genuine_frame, ev->genuine_ts, "the real side still talks",
				      "真实的一方仍在发送");
	rs_list_later(f, ev);
	if (d == PD_SERVER)
		pd_finding_detail(f,
				  "A device on the path reset the connection of client %s: the RST at frame "
				  "%llu (t=%.6f s) claims to come from the server %s but was not made by it",
				  "路径上的设备复位了客户端 %1$s 的连接：第 %2$llu 帧（t=%3$.6f s）的 RST "
				  "自称来自服务端 %4$s，但并不是它发出的",
				  peer, (unsigned long long)r->frame, rs_t(ctx, r->ts), ep);
	else
		pd_finding_detail(f,
				  "A device on the path reset the connection of server %s: the RST at frame "
				  "%llu (t=%.6f s) claims to come from the client %s but was not made by it",
				  "路径上的设备复位了服务端 %1$s 的连接：第 %2$llu 帧（t=%3$.6f s）的 RST "
				  "自称来自客户端 %4$s，但并不是它发出的",
				  peer, (unsigned long long)r->frame, rs_t(ctx, r->ts), ep);
	rs_append_forged(f, r, true);
	bool timed = r->answers && r->vantage == pd_peer(r->dir) && r->rtt > 0;
	if (r->trig_frame && !timed)
		pd_finding_append(f, "; it came %s after the segment at frame %llu (%u bytes)",
				  "；它出现在第 %2$llu 帧（%3$u 字节）之后 %1$s",
				  rs_dur(r->ts - r->trig_ts, b1), (unsigned long long)r->trig_frame,
				  r->trig_len);
	if (ev->genuine_after)
		pd_finding_append(f,
				  "; the real side kept talking: %u packet(s) with its usual TTL after the "
				  "RST, the first at frame %llu",
				  "；真实的一方仍在通信：RST 之后还有 %u 个带其正常 TTL 的报文，第一个在第 "
				  "%llu 帧",
				  ev->genuine_after, (unsigned long long)ev->genuine_frame);
	if (ev->hit_rst)
		pd_finding_append(f,
				  "; the side that received it tore its connection down and its stack "
				  "answered the next segment with a RST of its own (frame %llu)",
				  "；收到它的一方拆除了连接，其协议栈随后用自己的 RST 回应了下一个报文（第 "
				  "%llu 帧）",
				  (unsigned long long)ev->hit_rst_frame);
	pd_finding_append(f,
			  "; firewalls, IPS and censorship devices forge such resets; a capture at the other "
			  "end shows whether the real host ever sent it",
			  "；防火墙、IPS 和审查设备会伪造这种 RST；在另一端抓包即可确认真实主机是否发送过它");
	int signs = r->ttl_off + r->too_fast + r->ipid_off + r->df_off + (r->uses_ts && !r->has_ts) +
		    (ev->genuine_after > 0);
	pd_finding_metric(f, "rst_frame", (double)r->frame, PD_UNIT_COUNT, PD_AGG_MIN);
	pd_finding_metric(f, "claimed_from_server", d == PD_SERVER, PD_UNIT_COUNT, PD_AGG_MAX);
	pd_finding_metric(f, "rst_ttl", r->ttl, PD_UNIT_COUNT, PD_AGG_MAX);
	pd_finding_metric(f, "side_ttl", r->ttl_min, PD_UNIT_COUNT, PD_AGG_MAX);
	pd_finding_metric(f, "forgery_signs", signs, PD_UNIT_COUNT, PD_AGG_MAX);
	pd_finding_set_severity(f, PD_SEV_WARNING);
	pd_finding_set_confidence(f, signs >= 3 ? 0.9 : signs == 2 ? 0.8 : 0.6);
	pd_finding_settings(f, "middlebox forging resets", NULL);
}

static pd_finding *rs_report_idle(pd_ctx *ctx, const pd_flow *flow, const rs_event *ev)
{
	const rs_idle *id = &ev->idle;
	const rs_rst *r = &ev->first;
	int s = id->dir, p = pd_peer(s);
	char ep[64], peer[64], b1[32], b2[32], b3[32];
	pd_flow_endpoint(flow, s, ep, sizeof(ep));
	pd_flow_endpoint(flow, p, peer, sizeof(peer));
	pd_finding *f = pd_finding_get(ctx, "middlebox-idle-timeout", flow);
	/* what the ends sent after the silence is its doing; losses before it are not */
	pd_finding_span(f, id->before_frame, flow->last_frame);
	pd_finding_occurrence(f, id->before_frame, id->before_ts, "last packet before the silence",
			      "静默前的最后一个报文");
	pd_finding_occurrence(f, id->first_frame, id->first_ts, "first segment after the silence",
			      "静默后的第一个报文");
	if (id->reset) {
		pd_finding_occurrence(f, r->frame, r->ts, "RST made by the middlebox", "中间设备发出的 RST");
		rs_list_later(f, ev);
	} else if (id->tries) {
		pd_finding_occurrence(f, id->last_frame, id->last_ts, "last unanswered try",
				      "最后一次无应答的重试");
	}
	pd_finding_detail(f,
			  "The connection between %s and %s was idle for %s (frame %llu to frame %llu), and "
			  "the first segment after that, from %s at t=%.3f s (frame %llu, %u bytes), found "
			  "it gone",
			  "%1$s 与 %2$s 之间的连接空闲了 %3$s（第 %4$llu 帧到第 %5$llu 帧），之后 %6$s 在 "
			  "t=%7$.3f s 发出的第一个报文（第 %8$llu 帧，%9$u 字节）发现连接已经不在了",
			  ep, peer, rs_dur(id->gap, b1), (unsigned long long)id->before_frame,
			  (unsigned long long)id->first_frame, ep, rs_t(ctx, id->first_ts),
			  (unsigned long long)id->first_frame, id->first_len);
	pd_time dead = 0;
	if (id->reset) {
		pd_finding_append(f,
				  "; it was answered %s later by a RST (frame %llu) that claims to come from "
				  "%s but was made by a device on the path",
				  "；%1$s 之后它收到一个 RST（第 %2$llu 帧），自称来自 %3$s，"
				  "实际由路径上的设备发出",
				  rs_dur(r->ts - r->trig_ts, b2), (unsigned long long)r->frame, peer);
		rs_append_forged(f, r, false);
		pd_finding_append(
			f, "; a stateful firewall or NAT that no longer had the connection rejected it",
			"；是一个已不再保存该连接状态的有状态防火墙或 NAT 拒绝了它");
		dead = r->ts - id->first_ts;
	} else {
		dead = id->last_ts - id->first_ts;
		pd_finding_append(f,
				  "; it was sent %u more times over %s (%u retransmissions, last at frame "
				  "%llu) and nothing at all came back, no ACK, no RST, no ICMP, although "
				  "before the silence the other side answered within a round trip (RTT %s)",
				  "；它又被发送了 %1$u 次，历时 %2$s（%3$u 次重传，最后一次在第 %4$llu 帧），"
				  "却没有任何回应：没有 ACK、没有 RST、也没有 ICMP，"
				  "而在静默之前对端总能在一个往返内应答（RTT %5$s）",
				  id->tries, rs_dur(dead, b2), id->retrans,
				  (unsigned long long)id->last_frame, rs_dur(pd_flow_rtt(flow), b3));
		pd_finding_append(f,
				  "; a NAT, firewall or load balancer on the path dropped the connection's "
				  "state during the silence and now discards its packets",
				  "；路径上的 NAT、防火墙或负载均衡在静默期间删除了该连接的状态，"
				  "现在丢弃它的报文");
	}
	double idle_s = (double)id->gap / 1e9;
	if (id->keepalives_before || id->first_keepalive)
		pd_finding_append(f,
				  "; keepalive probes were on, but the device's idle timeout is shorter than "
				  "their period: set TCP_KEEPIDLE (or net.ipv4.tcp_keepalive_time) well "
				  "below %.0f s, or raise the device's timeout",
				  "；保活探测已开启，但设备的空闲超时比探测周期更短：把 TCP_KEEPIDLE（或 "
				  "net.ipv4.tcp_keepalive_time）设得远小于 %.0f 秒，或调大设备的超时",
				  idle_s);
	else
		pd_finding_append(f,
				  "; nothing was sent during the silence (no keepalive probe): enable "
				  "SO_KEEPALIVE with TCP_KEEPIDLE well below %.1f s (the idle time this "
				  "connection did not survive; net.ipv4.tcp_keepalive_time is 7200 s by "
				  "default), or send application heartbeats, or raise the device's idle "
				  "timeout (net.netfilter.nf_conntrack_tcp_timeout_established on a Linux "
				  "firewall) above the longest idle time",
				  "；静默期间没有发送任何报文（没有保活探测）：开启 SO_KEEPALIVE，并把 "
				  "TCP_KEEPIDLE 设得远小于 %.1f 秒（这条连接没能熬过的空闲时间；"
				  "net.ipv4.tcp_keepalive_time 默认为 7200 秒），或发送应用层心跳，"
				  "或把设备的空闲超时（Linux 防火墙上为 "
				  "net.netfilter.nf_conntrack_tcp_timeout_established）调到大于最长空闲时间",
				  idle_s);
	pd_finding_metric(f, "idle_s", idle_s, PD_UNIT_S, PD_AGG_MAX);
	pd_finding_metric(f, "retransmissions", id->retrans, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "unanswered_tries", id->tries, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "dead_s", (double)dead / 1e9, PD_UNIT_S, PD_AGG_SUM);
	pd_finding_metric(f, "reset_by_middlebox", id->reset, PD_UNIT_COUNT, PD_AGG_MAX);
	pd_finding_metric(f, "first_frame_after_idle", (double)id->first_frame, PD_UNIT_COUNT, PD_AGG_MIN);
	pd_finding_add_impact(f, (double)dead / 1e9);
	pd_finding_set_severity(f, PD_SEV_ERROR);
	pd_finding_set_confidence(f, id->reset ? 0.85 : 0.75);
	if (id->keepalives_before || id->first_keepalive)
		pd_finding_settings(f, "TCP_KEEPIDLE", "net.ipv4.tcp_keepalive_time",
				    "middlebox idle timeout",
				    "net.netfilter.nf_conntrack_tcp_timeout_established", NULL);
	else
		pd_finding_settings(f, "SO_KEEPALIVE", "TCP_KEEPIDLE", "net.ipv4.tcp_keepalive_time",
				    "middlebox idle timeout",
				    "net.netfilter.nf_conntrack_tcp_timeout_established", NULL);
	return f;
}

static void rs_pair_key_of(rs_pair_key *k, const pd_flow *flow)
{
	memset(k, 0, sizeof(*k));
	k->c = flow->addr[PD_CLIENT];
	k->s = flow->addr[PD_SERVER];
	k->sp = flow->port[PD_SERVER];
}

/* Which finding the first RST, or the silence, makes; the idle-timeout
 * finding, when there is one. */
static pd_finding *rs_judge(pd_ctx *ctx, const pd_flow *flow, const rs_event *ev)
{
	const rs_idle *id = &ev->idle;
	const rs_rst *r = &ev->first;
	if (id->reset && r->kind == RK_FOREIGN && !ev->genuine_after)
		return rs_report_idle(ctx, flow, ev);
	if (!ev->have_rst) {
		if (id->open && !id->answered && id->tries >= RS_DEAD_TRIES &&
		    id->last_ts - id->first_ts >= RS_DEAD_SPAN_NS)
			return rs_report_idle(ctx, flow, ev);
		return NULL;
	}
	/* the side closed with a FIN, then reset the other side's data that
	 * came after (or crossed) it; a socket's RST that freed unread data
	 * is the close() with unread data below */
	if (r->kind != RK_FOREIGN && r->own_fin && r->own_fin_frame && r->own_answered && rs_peer_lost(r) > 0 &&
	    !(r->kind == RK_SOCKET && rs_unread(r))) {
		rs_report_after_close(ctx, flow, ev);
		return NULL;
	}
	switch (r->kind) {
	case RK_FOREIGN:
		rs_report_injected(ctx, flow, ev);
		break;
	case RK_SOCKET:
		/* a RST after both FINs, or one the side's socket sends
		 * before it ever spoke, is no abortive close of a conversation */
		if (r->own_answered && !(r->own_fin && r->peer_fin))
			rs_report_close(ctx, flow, ev);
		break;
	case RK_STACKLESS:
		/* the side had the connection (it spoke after the handshake),
		 * closed nothing, and now answers the peer's segment as unknown:
		 * without the ACK flag, as every stack answers a segment that has
		 * one (RFC 793; a RST|ACK with window 0 is some stacks' abortive
		 * close) */
		if (r->own_answered && !r->own_fin && !r->peer_fin && r->answers && r->trig_frame &&
		    !(r->flags & PD_TCP_ACK))
			rs_report_stale(ctx, flow, ev);
		break;
	default:
		break;
	}
	return NULL;
}

static void rs_init(pd_ctx *ctx, void *gv)
{
	(void)ctx;
	rs_global *g = gv;
	g->starts = pd_keytable_new(sizeof(rs_pair_key), sizeof(rs_starts), RS_PAIRS, NULL, NULL, NULL);
}

static void rs_fini(void *gv)
{
	rs_global *g = gv;
	pd_keytable_free(g->starts);
}

static void rs_on_flow_end(pd_ctx *ctx, void *gv, const pd_flow *flow, void *fs)
{
	rs_global *g = gv;
	rs_flow *st = fs;
	if (flow->proto != 6)
		return;
	rs_pair_key key;
	rs_pair_key_of(&key, flow);
	if (flow->syn_frame && flow->roles_from_syn) {
		bool made;
		rs_starts *v = pd_keytable_get(g->starts, &key, &made);
		uint32_t slot = v->n++ % RS_STARTS;
		v->ts[slot] = flow->syn_ts;
		v->frame[slot] = flow->syn_frame;
		v->cport[slot] = flow->port[PD_CLIENT];
	}
	if (!st->has_ev)
		return;
	pd_finding *f = rs_judge(ctx, flow, &st->ev);
	if (f && g->npending < RS_PENDING) {
		rs_pending *pe = &g->pending[g->npending++];
		pe->f = f;
		pe->key = key;
		pe->cport = flow->port[PD_CLIENT];
		pe->dead_ts = st->ev.idle.first_ts;
	}
}

/* A dead connection followed by a new one from the same client to the
 * same server port: the application reconnected (after its own timeout). */
static void rs_on_end(pd_ctx *ctx, void *gv)
{
	rs_global *g = gv;
	for (uint32_t i = 0; i < g->npending; i++) {
		const rs_pending *pe = &g->pending[i];
		const rs_starts *v = pd_keytable_find(g->starts, &pe->key);
		if (!v)
			continue;
		int best = -1;
		uint32_t n = v->n < RS_STARTS ? v->n : RS_STARTS;
		for (uint32_t k = 0; k < n; k++)
			if (v->ts[k] > pe->dead_ts && (best < 0 || v->ts[k] < v->ts[best]))
				best = (int)k;
		if (best < 0)
			continue;
		char b1[32];
		pd_finding_occurrence(pe->f, v->frame[best], v->ts[best], "a new connection from the client",
				      "客户端新建的连接");
		pd_finding_append(pe->f,
				  "; a new connection from the same client to the same server port followed "
				  "at t=%.3f s (SYN at frame %llu, client port %u), %s after the first "
				  "segment the old one could not deliver",
				  "；随后同一客户端在 t=%.3f s 向同一服务端口建立了新连接（SYN 在第 %llu 帧，"
				  "客户端端口 %u），距旧连接第一个无法送达的报文 %s",
				  (double)(v->ts[best] - pd_ctx_start(ctx)) / 1e9,
				  (unsigned long long)v->frame[best], v->cport[best],
				  rs_dur(v->ts[best] - pe->dead_ts, b1));
		pd_finding_metric(pe->f, "new_connection_after_s", (double)(v->ts[best] - pe->dead_ts) / 1e9,
				  PD_UNIT_S, PD_AGG_MAX);
	}
}

static const char *const rs_emits[] = {"reset-unread-data",      "reset-abort",	     "reset-stale-connection",
				       "reset-injected",	 "middlebox-idle-timeout", "reset-after-close",
				       NULL};

const pd_detector pd_det_resets = {
	.name = "resets",
	.emits = rs_emits,
	.from_payload = true,
	.flow_state_size = sizeof(rs_flow),
	.global_state_size = sizeof(rs_global),
	.init = rs_init,
	.on_tcp = rs_on_tcp,
	.on_flow_end = rs_on_flow_end,
	.on_end = rs_on_end,
	.fini = rs_fini,
};
