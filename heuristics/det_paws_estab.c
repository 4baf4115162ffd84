/* PAWS inside an established connection: data the receiver throws away
 * because its timestamp is older than the last one it accepted.
 *
 * Linux checks PAWS first thing for every segment of an established
 * connection (tcp_validate_incoming): a TSval older than ts_recent drops
 * the segment (TcpExtPAWSEstab) and answers it with a duplicate ACK that
 * echoes ts_recent, carries no SACK block (nothing was queued) and does
 * not move. So, per direction (sender S, receiver R):
 *  - S sends data that R can take at once: it starts at R's last ACK
 *    (with SACK off, it must also be S's latest segment, so that no later
 *    segment can have drawn R's answer);
 *  - R's next pure ACK is a duplicate (same ACK, same window), without
 *    SACK, whose TSecr is not the TSval of that segment: R received it and
 *    accepted nothing. A segment R takes moves its ACK; one it drops for
 *    lack of buffer still updates ts_recent and echoes its own TSval.
 * Two such rejections make the finding. Where the capture sees what R
 * received, the segment's TSval is older than S's previous one (the step
 * back is measured); where it sees what S sent, S's TSvals rise and R
 * echoes an older one: the step happened on the path.
 *
 * An older TSecr alone is also what loss looks like. R echoes the last
 * TSval it took in order (ts_recent moves only for a segment that starts
 * at or before the ACK it last sent: RFC 7323, Linux's
 * tcp_replace_ts_recent), so the duplicate ACK that a later segment draws
 * when the one at R's ACK was lost after the capture point echoes a TSval
 * older than the lost one's and, with SACK off, has no SACK block either.
 * A duplicate ACK is taken as the segment's rejection only when one of
 * these says that nothing else drew it:
 *  - its TSecr is newer than the segment's TSval: R already holds a later
 *    timestamp than this segment carries, which no loss explains;
 *  - the capture shows the segment's TSval stepping back below S's own
 *    earlier ones (what R received, where the capture is next to it);
 *  - SACK is on (a segment out of order draws a SACK block), or every
 *    later segment S sent since R's ACK last moved has had its duplicate
 *    ACK already: R answers each segment out of order at once, so the ACKs
 *    after those answers are for the segment at its ACK.
 * Otherwise the duplicate ACK goes to the later segment, and the stall is
 * the loss detector's (retransmissions, rto-timeouts). */
#include <stdio.h>
#include <string.h>

#include "heuristics/detector.h"
#include "heuristics/util.h"

#define PW_MIN_REJECTS 2
#define PW_RECENT 8 /* (TSval, frame) pairs remembered to name the echoed one */

typedef struct pw_dir {
	/* the candidate: S's latest segment R can take at once */
	bool cand;
	uint32_t cand_seq, cand_tsval, cand_len;
	uint64_t cand_frame;
	pd_time cand_ts;
	bool cand_back; /* its TSval is older than S's previous one */
	bool cand_sack; /* SACK on when it was sent */
	uint32_t cand_prev_tsval;
	uint64_t cand_prev_frame;
	pd_time cand_prev_ts;
	/* S's TSvals: the highest so far, and the latest few */
	bool ts_known;
	uint32_t max_tsval;
	uint64_t max_tsval_frame;
	pd_time max_tsval_ts;
	uint32_t recent_tsval[PW_RECENT];
	uint64_t recent_frame[PW_RECENT];
	uint32_t recent_n;
	/* S's segments that do not start at R's ACK, sent since R's ACK last
	 * moved with nothing beyond it, and not yet answered by a duplicate ACK:
	 * each can draw one of R's duplicate ACKs */
	uint32_t others;
	/* R's rejections of S's data */
	uint32_t rejects, copies_back, newer;
	uint32_t rej_seq, stuck_tsecr, first_tsval;
	bool stuck_same; /* every rejection echoed the same TSecr */
	uint64_t first_data_frame, first_ack_frame, last_data_frame, last_ack_frame;
	pd_time first_ts, last_ts;
	uint32_t back_prev_tsval, back_tsval; /* the first step back seen */
	uint64_t back_frame, back_prev_frame;
	pd_time back_ts, back_prev_ts;
	uint64_t echoed_frame; /* the frame whose TSval R keeps echoing, if seen */
	bool recovered;
	uint64_t recovered_frame;
} pw_dir;

typedef struct pw_flow {
	pw_dir d[2]; /* indexed by the data sender */
} pw_flow;

static void pw_remember(pw_dir *s, uint32_t tsval, uint64_t frame)
{
	s->recent_tsval[s->recent_n % PW_RECENT] = tsval;
	s->recent_frame[s->recent_n % PW_RECENT] = frame;
	s->recent_n++;
}

static uint64_t pw_frame_of(const pw_dir *s, uint32_t tsval)
{
	uint32_t n = s->recent_n < PW_RECENT ? s->recent_n : PW_RECENT;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = (s->recent_n - 1 - i) % PW_RECENT;
		if (s->recent_tsval[k] == tsval)
			return s->recent_frame[k];
	}
	return 0;
}

static void pw_on_tcp(pd_ctx *ctx, const pd_flow *flow, void *fs, const pd_packet *pkt, const pd_seg *seg)
{
	(void)ctx;
	pw_flow *st = fs;
	const pd_tcp *t = &pkt->tcp;
	int d = seg->dir, r = pd_peer(d);
	if (t->flags & (PD_TCP_SYN | PD_TCP_RST))
		return;
	pw_dir *me = &st->d[d], *other = &st->d[r];

	/* As receiver R of the other direction: does this ACK reject its data? */
	bool pure_ack = (t->flags & PD_TCP_ACK) && !t->payload_len && !(t->flags & PD_TCP_FIN);
	/* R's ACK moved past everything S sent: nothing of S's is left to draw an answer */
	if ((t->flags & PD_TCP_ACK) && flow->half[r].seq_valid && t->ack == flow->half[r].next_seq)
		other->others = 0;
	bool drawn_by_other = false;
	if (other->cand && pure_ack && t->ack == other->cand_seq && (seg->flags & PD_SEG_DUP_ACK) && t->has_ts &&
	    !t->sack_count && t->tsecr != other->cand_tsval) {
		bool newer = pd_seq_lt(other->cand_tsval, t->tsecr);
		/* a later segment of S's still unanswered may have drawn it */
		drawn_by_other = !newer && !other->cand_back && !other->cand_sack && other->others;
	}
	if (pure_ack && (seg->flags & PD_SEG_DUP_ACK) && other->others && (drawn_by_other || !other->cand))
		other->others--;
	if (other->cand && pure_ack && !drawn_by_other) {
		if (pd_seq_lt(other->cand_seq, t->ack)) {
			if (other->rejects)
				other->recovered = true, other->recovered_frame = pkt->frame_no;
			other->cand = false;
		} else if (t->ack == other->cand_seq && (seg->flags & PD_SEG_DUP_ACK) && t->has_ts &&
			   !t->sack_count && t->tsecr != other->cand_tsval) {
			if (pd_seq_lt(other->cand_tsval, t->tsecr))
				other->newer++;
			if (!other->rejects) {
				other->first_data_frame = other->cand_frame;
				other->first_ack_frame = pkt->frame_no;
				other->first_ts = other->cand_ts;
				other->rej_seq = other->cand_seq;
				other->stuck_tsecr = t->tsecr;
				other->first_tsval = other->cand_tsval;
				other->stuck_same = true;
				other->echoed_frame = pw_frame_of(other, t->tsecr);
			} else if (t->tsecr != other->stuck_tsecr) {
				other->stuck_same = false;
			}
			other->rejects++;
			if (other->cand_back) {
				if (!other->copies_back) {
					other->back_tsval = other->cand_tsval;
					other->back_prev_tsval = other->cand_prev_tsval;
					other->back_frame = other->cand_frame;
					other->back_prev_frame = other->cand_prev_frame;
					other->back_ts = other->cand_ts;
					other->back_prev_ts = other->cand_prev_ts;
				}
				other->copies_back++;
			}
			other->last_data_frame = other->cand_frame;
			other->last_ack_frame = pkt->frame_no;
			other->last_ts = pkt->ts;
			other->recovered = false;
			other->cand = false;
		} else {
			other->cand = false;
		}
	}

	/* As sender S: a segment that does not start at R's ACK can draw one of
	 * R's duplicate ACKs */
	if (t->payload_len && flow->half[r].ack_valid && t->seq != flow->half[r].last_ack && me->others < UINT32_MAX)
		me->others++;
	/* a segment R can take at once */
	if (t->payload_len && t->has_ts) {
		const pd_tcp_half *hr = &flow->half[r], *hs = &flow->half[d];
		bool sack = hs->sack_permitted && hr->sack_permitted;
		bool at_edge = hr->ack_valid && t->seq == hr->last_ack;
		bool latest = hs->seq_valid && seg->seq_end == hs->next_seq;
		bool room = hr->win_known && hr->win >= t->payload_len;
		if (at_edge && room && (sack || latest)) {
			me->cand = true;
			me->cand_sack = sack;
			me->cand_seq = t->seq;
			me->cand_tsval = t->tsval;
			me->cand_len = t->payload_len;
			me->cand_frame = pkt->frame_no;
			me->cand_ts = pkt->ts;
			me->cand_back = me->ts_known && pd_seq_lt(t->tsval, me->max_tsval);
			me->cand_prev_tsval = me->max_tsval;
			me->cand_prev_frame = me->max_tsval_frame;
			me->cand_prev_ts = me->max_tsval_ts;
		}
	}
	if (t->has_ts) {
		/* the reference for a step back: S's highest TSval so far */
		if (!me->ts_known || pd_seq_lt(me->max_tsval, t->tsval)) {
			me->max_tsval = t->tsval;
			me->max_tsval_frame = pkt->frame_no;
			me->max_tsval_ts = pkt->ts;
		}
		me->ts_known = true;
		if (!me->rejects)
			pw_remember(me, t->tsval, pkt->frame_no);
	}
}

static void pw_report(pd_ctx *ctx, const pd_flow *flow, int s, const pw_dir *p)
{
	int r = pd_peer(s);
	char snd[64], rcv[64];
	pd_flow_endpoint(flow, s, snd, sizeof(snd));
	pd_flow_endpoint(flow, r, rcv, sizeof(rcv));
	pd_finding *f = pd_finding_get(ctx, "paws-rejected-data", flow);
	pd_finding_occurrence(f, p->first_data_frame, p->first_ts, "data with an old timestamp",
			      "时间戳过旧的数据");
	pd_finding_occurrence(f, p->first_ack_frame, p->first_ts, "duplicate ACK: segment dropped",
			      "重复 ACK：报文被丢弃");
	if (p->last_ack_frame != p->first_ack_frame)
		pd_finding_occurrence(f, p->last_ack_frame, p->last_ts, "still rejected", "仍被拒绝");
	pd_finding_count(f, p->rejects > 2 ? p->rejects - 2 : 0);

	if (s == PD_CLIENT)
		pd_finding_detail(
			f,
			"The server %s threw away the data of client %s: %u copies of the segment "
			"at seq %u (first at frame %llu) were each answered by a duplicate ACK "
			"(last at frame %llu) that does not move, carries no SACK block and echoes "
			"TSecr %u instead of the segment's TSval",
			"服务端 %1$s 丢弃了客户端 %2$s 的数据：seq %4$u 处报文的 %3$u 个副本（"
			"第一个在第 %5$llu 帧）各自只换来一个不前进、不带 SACK 块的重复 ACK（"
			"最后一个在第 %6$llu 帧），其 TSecr 回显的是 %7$u，而不是该报文自己的 TSval",
			rcv, snd, p->rejects, p->rej_seq - flow->half[s].isn,
			(unsigned long long)p->first_data_frame, (unsigned long long)p->last_ack_frame,
			p->stuck_tsecr);
	else
		pd_finding_detail(
			f,
			"The client %s threw away the data of server %s: %u copies of the segment "
			"at seq %u (first at frame %llu) were each answered by a duplicate ACK "
			"(last at frame %llu) that does not move, carries no SACK block and echoes "
			"TSecr %u instead of the segment's TSval",
			"客户端 %1$s 丢弃了服务端 %2$s 的数据：seq %4$u 处报文的 %3$u 个副本（"
			"第一个在第 %5$llu 帧）各自只换来一个不前进、不带 SACK 块的重复 ACK（"
			"最后一个在第 %6$llu 帧），其 TSecr 回显的是 %7$u，而不是该报文自己的 TSval",
			rcv, snd, p->rejects, p->rej_seq - flow->half[s].isn,
			(unsigned long long)p->first_data_frame, (unsigned long long)p->last_ack_frame,
			p->stuck_tsecr);

	uint32_t step = 0;
	if (p->copies_back) {
		step = p->back_prev_tsval - p->back_tsval;
		pd_finding_append(f,
				  "; here the segment's TSval %u is %u ticks older than the sender's "
				  "previous TSval %u (frame %llu): the receiver's PAWS check (RFC 7323) "
				  "drops every segment older than the last timestamp it accepted",
				  "；在这里，该报文的 TSval %1$u 比发送端上一个 TSval %3$u（第 %4$llu 帧）旧 "
				  "%2$u 个刻度：接收端的 PAWS 检查（RFC 7323）"
				  "会丢弃所有比它已接受的最后一个时间戳更旧的报文",
				  p->back_tsval, step, p->back_prev_tsval,
				  (unsigned long long)p->back_prev_frame);
		/* the sender's clock ran on between the two: the jump itself is
		 * the step plus those ticks (Linux: 1000 per second) */
		double dt = (double)(p->back_ts - p->back_prev_ts) / 1e9;
		double jump = (double)step + 1000.0 * dt;
		for (int bits = 16; bits < 32; bits++) {
			double pow2 = (double)(1u << bits);
			if (jump > pow2 - (10 + 50.0 * dt) && jump < pow2 + (10 + 50.0 * dt)) {
				pd_finding_append(f,
						  "; with the %.3f s between them the clock went back about "
						  "2^%d ticks: a rewritten timestamp, not a clock",
						  "；考虑到两者相隔 %.3f s，时钟约回退了 2^%d 个刻度："
						  "这是被改写的时间戳，而不是时钟本身",
						  dt, bits);
				break;
			}
		}
	} else if (p->newer) {
		pd_finding_append(f,
				  "; TSecr %u is newer than the TSval %u the segment carries: the receiver had "
				  "already accepted a later timestamp than the sender now sends (its timestamp "
				  "clock went back, or another host's segments on the same 4-tuple moved the "
				  "receiver's reference), and its PAWS check (RFC 7323) drops older ones",
				  "；TSecr %u 比该报文携带的 TSval %u 更新：接收端已经接受过比发送端现在所发更晚的"
				  "时间戳（发送端的时间戳时钟回退了，或同一四元组上另一台主机的报文推高了接收端的"
				  "参照值），其 PAWS 检查（RFC 7323）会丢弃更旧的报文",
				  p->stuck_tsecr, p->first_tsval);
	} else if (p->echoed_frame) {
		pd_finding_append(f,
				  "; TSecr %u is the TSval of frame %llu, sent before, while the sender's "
				  "timestamps kept rising: the segments reached the receiver with an older "
				  "timestamp than that one, so something on the path rewrote them (or "
				  "another host's segments on the same 4-tuple moved the receiver's "
				  "reference), and its PAWS check (RFC 7323) drops them",
				  "；TSecr %u 是此前第 %llu 帧的 TSval，而发送端的时间戳一直在增长："
				  "这些报文到达接收端时带的时间戳比那个更旧，说明路径上有设备改写了时间戳（"
				  "或同一四元组上另一台主机的报文推高了接收端的参照值），于是被其 PAWS 检查（"
				  "RFC 7323）丢弃",
				  p->stuck_tsecr, (unsigned long long)p->echoed_frame);
	} else {
		pd_finding_append(f,
				  "; the receiver accepted none of them although they start at its own ACK: "
				  "its PAWS check (RFC 7323) drops segments whose timestamp is older than "
				  "the last it accepted",
				  "；这些报文正好从接收端自己的确认号开始，它却一个也没有接受：其 PAWS 检查（"
				  "RFC 7323）会丢弃时间戳比已接受的最后一个更旧的报文");
	}
	double lost;
	if (p->recovered) {
		lost = (double)(p->last_ts - p->first_ts) / 1e9;
		pd_finding_append(f, "; the data got through only at frame %llu",
				  "；数据直到第 %llu 帧才被接受", (unsigned long long)p->recovered_frame);
	} else {
		lost = (double)(flow->last_ts - p->first_ts) / 1e9;
		pd_finding_append(f,
				  "; it never got through: %.2f s from the first copy to the end of the flow",
				  "；数据始终没有被接受：从第一个副本到连接结束共 %.2f s", lost);
	}
	pd_finding_append(f,
			  "; a NAT or load balancer that maps two hosts onto one 4-tuple, or that rewrites "
			  "or strips timestamps, does this; nstat TcpExtPAWSEstab on the receiver counts the "
			  "drops",
			  "；把两台主机映射到同一个四元组、或改写/剥离时间戳的 NAT 或负载均衡会造成这种情况；"
			  "接收端上的 nstat TcpExtPAWSEstab 会统计这些丢弃");
	if (lost < 0)
		lost = 0;
	pd_finding_metric(f, "rejected_segments", p->rejects, PD_UNIT_COUNT, PD_AGG_SUM);
	pd_finding_metric(f, "echoed_tsecr", p->stuck_tsecr, PD_UNIT_TICKS, PD_AGG_MAX);
	pd_finding_metric(f, "first_rejected_tsval", p->first_tsval, PD_UNIT_TICKS, PD_AGG_MAX);
	if (p->copies_back)
		pd_finding_metric(f, "tsval_step_back", step, PD_UNIT_TICKS, PD_AGG_MAX);
	pd_finding_metric(f, "time_lost", lost, PD_UNIT_S, PD_AGG_SUM);
	pd_finding_add_impact(f, lost);
	pd_finding_set_severity(f, PD_SEV_ERROR);
	pd_finding_set_confidence(f, p->copies_back || p->stuck_same ? 0.9 : 0.7);
	pd_finding_settings(f, "net.ipv4.tcp_timestamps", "middlebox rewriting TCP timestamps",
			    "NAT source-port reuse", NULL);
}

static void pw_on_flow_end(pd_ctx *ctx, void *g, const pd_flow *flow, void *fs)
{
	(void)g;
	pw_flow *st = fs;
	if (flow->proto != 6)
		return;
	for (int s = 0; s < 2; s++)
		if (st->d[s].rejects >= PW_MIN_REJECTS)
			pw_report(ctx, flow, s, &st->d[s]);
}

static const char *const pw_emits[] = {"paws-rejected-data", NULL};

const pd_detector pd_det_paws_estab = {
	.name = "paws-estab",
	.emits = pw_emits,
	.from_payload = true,
	.flow_state_size = sizeof(pw_flow),
	.on_tcp = pw_on_tcp,
	.on_flow_end = pw_on_flow_end,
};
