/* Two capture points in the report: capture notes, and evidence on the
 * handshake and loss findings of the connections seen at both points
 * (analyzer/points.h). */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/points.h"
#include "dissect/addr.h"

/* One sentence, both languages, appended to en and zh. */
static void sb_add_(GString *en, GString *zh, const pd_text *t, ...)
{
	va_list ap;
	va_start(ap, t);
	char *e = NULL, *z = NULL;
	pd_text_format(t, &e, &z, ap);
	va_end(ap);
	g_string_append(en, e);
	g_string_append(zh, z);
	g_free(e);
	g_free(z);
}
#define sb_add(en, zh, fe, fz, ...) PD_TXT_CALL(sb_add_, (en, zh), fe, fz, ##__VA_ARGS__)

static void note_take(pd_capture_summary *c, GString *en, GString *zh)
{
	pd_capture_note_take(c, g_string_free(en, FALSE), g_string_free(zh, FALSE));
}

/* "#12, #19, #24" */
static char *frames_str(const uint64_t *f, uint32_t n, uint64_t total)
{
	GString *s = g_string_new("");
	for (uint32_t i = 0; i < n; i++)
		g_string_append_printf(s, "%s#%" PRIu64, i ? ", " : "", f[i]);
	if (total > n)
		g_string_append(s, ", ...");
	return g_string_free(s, FALSE);
}

/* The one-way delay rose from the first quarter to the last by more than
 * 1 ms and half its minimum (docs/two-points.md). */
static bool delay_rose(const pd_points_dir *t)
{
	return t->delay_n >= 8 && t->delay_late_ms - t->delay_early_ms > MAX(1.0, 0.5 * t->delay_min_ms);
}

static void note_dir(pd_capture_summary *c, const pd_points *p, int d)
{
	const pd_points_dir *t = &p->total[d];
	if (!t->both && !t->only_up && !t->only_down)
		return;
	int up = d == 0 ? p->client_side : !p->client_side, dn = !up;
	GString *en = g_string_new(""), *zh = g_string_new("");
	const char *way = d == 0 ? "client->server" : "server->client";
	sb_add(en, zh, "%s: %" PRIu64 " packets seen at both points",
	       "%s：%" PRIu64 " 个包在两个抓包点都出现", way, t->both);
	if (t->only_up) {
		char *fr = frames_str(t->lost_frames, t->n_lost_frames, t->only_up);
		sb_add(en, zh,
		       "; %" PRIu64 " (%" PRIu64 " with data) left %s and never reached %s: dropped between the two capture points (%s %s)",
		       "；%" PRIu64 " 个（其中 %" PRIu64 " 个带数据）离开了 %s 却没有到达 %s：在两个抓包点之间丢失（%s %s）",
		       t->only_up, t->lost_data, p->files[up], p->files[dn], p->files[up], fr);
		g_free(fr);
	} else {
		sb_add(en, zh, "; none lost between them", "；两点之间没有丢包");
	}
	if (t->only_down)
		sb_add(en, zh, "; %" PRIu64 " seen only at %s (its capture missed them, or a middlebox made them)",
		       "；%" PRIu64 " 个只在 %s 出现（另一处抓包漏掉了，或由中间设备生成）", t->only_down,
		       p->files[dn]);
	if (t->outside)
		sb_add(en, zh, "; %" PRIu64 " outside the time both files cover (not counted as lost)",
		       "；%" PRIu64 " 个在两个文件共同覆盖的时间之外（不算丢失）", t->outside);
	if (t->delay_n)
		sb_add(en, zh,
		       "; one-way delay %.3f ms at least, %.3f median, %.3f p95, %.3f at most",
		       "；单向时延最小 %.3f ms，中位数 %.3f，p95 %.3f，最大 %.3f", t->delay_min_ms,
		       t->delay_p50_ms, t->delay_p95_ms, t->delay_max_ms);
	/* each connection's own rise too: the capture-wide quarters follow the
	 * connections one after the other, and a queue that fills within each
	 * one as its window grows may be full again at the end of the last */
	unsigned n_with = 0, n_rise = 0;
	const pd_points_dir *top = NULL;
	for (guint i = 0; i < p->conns->len; i++) {
		const pd_points_dir *x = &g_array_index(p->conns, pd_points_conn, i).dir[d];
		if (x->delay_n < 8)
			continue;
		n_with++;
		if (!delay_rose(x))
			continue;
		n_rise++;
		if (!top || x->delay_late_ms - x->delay_early_ms > top->delay_late_ms - top->delay_early_ms)
			top = x;
	}
	bool most_rose = n_rise && 2 * n_rise > n_with;
	if (delay_rose(t)) {
		sb_add(en, zh, ", rising from %.3f to %.3f ms (median of the first and last quarter)",
		       "，从 %.3f 升到 %.3f ms（前四分之一与后四分之一的中位数）", t->delay_early_ms, t->delay_late_ms);
		if (most_rose)
			sb_add(en, zh, " and within %u of %u connections (the most from %.3f to %.3f ms)",
			       "，%u 个连接中有 %u 个在连接内部也升高（最多从 %.3f 升到 %.3f ms）", n_rise, n_with,
			       top->delay_early_ms, top->delay_late_ms);
		sb_add(en, zh, ": queueing between the points", "：两点之间在排队");
	} else if (most_rose) {
		sb_add(en, zh,
		       ", rising within %u of %u connections (the most from %.3f to %.3f ms, median of its first and last quarter): queueing between the points",
		       "，%u 个连接中有 %u 个在连接内部升高（最多从 %.3f 升到 %.3f ms，该连接前四分之一与后四分之一的中位数）：两点之间在排队",
		       n_rise, n_with, top->delay_early_ms, top->delay_late_ms);
	}
	if (t->reordered)
		sb_add(en, zh,
		       "; %" PRIu64 " reached %s ahead of a packet that left %s before them: reordered between the points",
		       "；%1$" PRIu64 " 个比先离开 %3$s 的包更早到达 %2$s：在两点之间乱序", t->reordered, p->files[dn],
		       p->files[up]);
	note_take(c, en, zh);
}

static void endpoint_pair(char *buf, size_t len, const pd_points_conn *pc, int point)
{
	char a[PD_ENDPOINT_STRLEN], b[PD_ENDPOINT_STRLEN];
	g_snprintf(buf, len, "%s -> %s", pd_endpoint_str(&pc->client[point], pc->cport[point], a, sizeof a),
		   pd_endpoint_str(&pc->server[point], pc->sport[point], b, sizeof b));
}

static void note_changes(pd_capture_summary *c, const pd_points *p)
{
	GString *en = g_string_new(""), *zh = g_string_new("");
	sb_add(en, zh, "between the two points", "两个抓包点之间");
	bool any = false;
	for (int d = 0; d < 2; d++) {
		const pd_points_dir *t = &p->total[d];
		if (t->ttl_up >= 0)
			sb_add(en, zh, "%s the TTL fell by %d %s", "%1$s%3$s 方向 TTL 减少 %2$d", d ? "," : ":",
			       t->ttl_up - t->ttl_down, d == 0 ? "client->server" : "server->client");
	}
	const pd_points_conn *nat = NULL;
	int mss_from[2] = {-1, -1}, mss_to[2] = {-1, -1};
	uint64_t n_mss[2] = {0, 0}, n_ws = 0, n_sack = 0, n_ts = 0, n_seq = 0;
	for (guint i = 0; i < p->conns->len; i++) {
		const pd_points_conn *pc = &g_array_index(p->conns, pd_points_conn, i);
		if (pc->translated && !nat)
			nat = pc;
		int up = p->client_side, dn = !up;
		for (int k = 0; k < 2; k++) {
			int u = k == 0 ? up : dn, w = !u; /* the SYN passes the client's side first */
			if (pc->mss[k][u] != pc->mss[k][w] && pc->mss[k][u] >= 0) {
				if (!n_mss[k]) {
					mss_from[k] = pc->mss[k][u];
					mss_to[k] = pc->mss[k][w];
				}
				n_mss[k]++;
			}
			if (pc->wscale[k][u] >= 0 && pc->wscale[k][w] < 0)
				n_ws++;
			if (pc->sack[k][u] == 1 && pc->sack[k][w] == 0)
				n_sack++;
			if (pc->ts[k][u] == 1 && pc->ts[k][w] == 0)
				n_ts++;
		}
		if ((pc->seq_known[0] && pc->seq_offset[0]) || (pc->seq_known[1] && pc->seq_offset[1]))
			n_seq++;
	}
	if (nat) {
		char a[2 * PD_ENDPOINT_STRLEN + 8], b[2 * PD_ENDPOINT_STRLEN + 8];
		endpoint_pair(a, sizeof a, nat, 0);
		endpoint_pair(b, sizeof b, nat, 1);
		sb_add(en, zh, "; a NAT translated %" PRIu64 " of %" PRIu64 " connections: %s at %s is %s at %s",
		       "；NAT 转换了 %1$" PRIu64 " 个连接（共 %2$" PRIu64 " 个）：%4$s 上的 %3$s 在 %6$s 上是 %5$s",
		       p->translated, p->paired, a, p->files[0], b, p->files[1]);
		any = true;
	}
	for (int k = 0; k < 2; k++) {
		if (!n_mss[k])
			continue;
		sb_add(en, zh, "; the MSS option of %" PRIu64 " %s was rewritten from %d to %d (MSS clamping)",
		       "；%" PRIu64 " 个 %s 的 MSS 选项从 %d 被改成 %d（MSS 钳制）", n_mss[k],
		       k ? "SYN-ACKs" : "SYNs", mss_from[k], mss_to[k]);
		any = true;
	}
	if (n_ws || n_sack || n_ts) {
		sb_add(en, zh, "; options removed: window scale from %" PRIu64 ", SACK-permitted from %" PRIu64 ", timestamps from %" PRIu64 " SYN or SYN-ACK",
		       "；被删除的选项：窗口缩放 %" PRIu64 " 个，SACK-permitted %" PRIu64 " 个，时间戳 %" PRIu64 " 个（SYN 或 SYN-ACK）",
		       n_ws, n_sack, n_ts);
		any = true;
	}
	if (n_seq) {
		sb_add(en, zh, "; sequence numbers shifted on %" PRIu64 " connections (sequence randomisation)",
		       "；%" PRIu64 " 个连接的序列号被平移（序列号随机化）", n_seq);
		any = true;
	}
	uint64_t dscp = p->total[0].dscp_changed + p->total[1].dscp_changed;
	uint64_t ecn = p->total[0].ecn_changed + p->total[1].ecn_changed;
	uint64_t ececwr = p->total[0].ece_cwr_changed + p->total[1].ece_cwr_changed;
	if (dscp || ecn || ececwr) {
		sb_add(en, zh, "; DSCP changed on %" PRIu64 " packets, the IP ECN field on %" PRIu64 ", the TCP ECE/CWR flags on %" PRIu64,
		       "；DSCP 改变 %" PRIu64 " 个包，IP ECN 字段 %" PRIu64 " 个，TCP ECE/CWR 标志 %" PRIu64 " 个",
		       dscp, ecn, ececwr);
		any = true;
	}
	if (!any)
		sb_add(en, zh, "; nothing else was rewritten (addresses, ports, sequence numbers, SYN options, DSCP, ECN)",
		       "；其余都没有被改写（地址、端口、序列号、SYN 选项、DSCP、ECN）");
	note_take(c, en, zh);
}

static void notes(pd_report *r, const pd_points *p)
{
	pd_capture_summary *c = &r->cap;
	switch (p->verdict) {
	case PD_POINTS_ROTATION:
		break;
	case PD_POINTS_DISJOINT:
		pd_capture_note(c,
				"%s and %s share no connection (no SYN sequence number, SYN timestamp or segment in common): they are not two capture points of the same traffic, and are read as one capture, merged in time order",
				"%s 与 %s 没有共同的连接（SYN 序列号、SYN 时间戳、报文段都不相同）：它们不是同一流量的两个抓包点，按时间顺序合并为一个抓包来读",
				p->files[0], p->files[1]);
		break;
	case PD_POINTS_DUPLICATE:
		pd_capture_note(c,
				"%s and %s are the same capture point: %" PRIu64 " packets are in both, at the same moment both ways; only %s is analysed, so none is counted twice",
				"%s 与 %s 是同一个抓包点：%" PRIu64 " 个包在两边都有，两个方向时间都相同；只分析 %s，不会重复计数",
				p->files[0], p->files[1], p->samples, p->files[p->analysed]);
		break;
	case PD_POINTS_TWO: {
		int a = p->analysed;
		int cs = p->client_side < 0 ? 0 : p->client_side;
		pd_capture_note(c,
				"two capture points of the same connections: %s near the client and %s near the server; %" PRIu64 " connections were seen at both (of %" PRIu64 " and %" PRIu64 "); the findings are from %s alone, with its frame numbers",
				"同一批连接的两个抓包点：靠近客户端的 %s 和靠近服务器的 %s；%" PRIu64 " 个连接在两处都出现（两边各 %" PRIu64 " 和 %" PRIu64 " 个）；以下发现只来自 %s，帧号也是它的",
				p->files[cs], p->files[!cs], p->paired, p->n_conns[cs], p->n_conns[!cs], p->files[a]);
		double off = p->offset_s;
		GString *en = g_string_new(""), *zh = g_string_new("");
		sb_add(en, zh,
		       "clocks: %s reads %+.6f s against %s, +- %.3f ms (half the sum of the minimum one-way delays, from %" PRIu64 " packets seen once at both)",
		       "时钟：%1$s 相对 %3$s 偏移 %2$+.6f 秒，正负 %4$.3f ms（两个方向最小单向时延之和的一半，来自两边各出现一次的 %5$" PRIu64 " 个包）",
		       p->files[1], off, p->files[0], p->uncertainty_s * 1e3, p->samples);
		if (p->drift_known)
			sb_add(en, zh, "; drift %+.0f ppm +- %.0f ppm (%s's clock against %s's, from the minimum one-way delays over time; the delays use the one offset)",
			       "；漂移 %+.0f ppm，正负 %.0f ppm（%s 的时钟相对 %s，由各时段的最小单向时延得出；时延按单一偏移计算）",
			       p->drift_ppm, p->drift_uncertainty_ppm, p->files[1], p->files[0]);
		if (fabs(off) >= 60)
			sb_add(en, zh, "; %.2f hours apart: the packets, not the clock, line the two files up",
			       "；相差 %.2f 小时：两份文件靠包本身而不是时钟对齐", fabs(off) / 3600);
		if (p->uncertainty_s < 0)
			sb_add(en, zh, "; the minimum delays disagree (a clock drifting, or packets matched wrongly): the alignment is uncertain",
			       "；两个方向的最小时延互相矛盾（时钟漂移或包匹配有误）：对齐不可靠");
		note_take(c, en, zh);
		note_dir(c, p, 0);
		note_dir(c, p, 1);
		note_changes(c, p);
		break;
	}
	}
	for (int i = 0; i < 2; i++)
		if (p->truncated[i])
			pd_capture_note(c, "%s is truncated: the pairing of the two points covers what was read",
					"%s 被截断：两个抓包点的配对只覆盖读到的部分", p->files[i]);
	if (p->capped)
		pd_capture_note(c, "the pairing of the two points kept the first %u TCP packets of each file",
				"两个抓包点的配对只保留每个文件的前 %u 个 TCP 包", 4u << 20);
}

/* ---- findings ---- */

static const pd_points_conn *conn_of(const pd_points *p, const pd_flow_ref *ref)
{
	int a = p->analysed;
	for (guint i = 0; i < p->conns->len; i++) {
		const pd_points_conn *pc = &g_array_index(p->conns, pd_points_conn, i);
		if (pc->cport[a] == ref->client_port && pc->sport[a] == ref->server_port &&
		    pd_addr_equal(&pc->client[a], &ref->client) && pd_addr_equal(&pc->server[a], &ref->server))
			return pc;
		if (pc->cport[a] == ref->server_port && pc->sport[a] == ref->client_port &&
		    pd_addr_equal(&pc->client[a], &ref->server) && pd_addr_equal(&pc->server[a], &ref->client))
			return pc;
	}
	return NULL;
}

/* Settings about the host itself (its listener, its queues, its NIC) that a
 * drop between the two points rules out. */
static bool host_local(const char *s)
{
	return strstr(s, "somaxconn") || strstr(s, "backlog") || strstr(s, "syncookies") ||
	       strstr(s, "abort_on_overflow") || strstr(s, "NIC ring") || strstr(s, "netdev_budget");
}

static void drop_host_settings(pd_finding *f)
{
	size_t keep = 0;
	for (size_t i = 0; i < f->n_settings; i++)
		if (!host_local(f->settings[i]))
			keep++;
	if (!keep)
		return;
	size_t n = 0;
	for (size_t i = 0; i < f->n_settings; i++)
		if (!host_local(f->settings[i]))
			f->settings[n++] = f->settings[i];
	f->n_settings = n;
}

static void append_detail(pd_finding *f, GString *en, GString *zh)
{
	char *e = g_strdup_printf("%s; %s", f->detail ? f->detail : "", en->str);
	char *z = g_strdup_printf("%s；%s", f->detail_zh ? f->detail_zh : (f->detail ? f->detail : ""), zh->str);
	g_free(f->detail);
	g_free(f->detail_zh);
	f->detail = e;
	f->detail_zh = z;
}

typedef struct fsum {
	pd_points_dir d[2];
	uint64_t conns;
} fsum;

static void add_frames(uint64_t *dst, uint32_t *n, const uint64_t *src, uint32_t m)
{
	for (uint32_t i = 0; i < m && *n < PD_POINTS_MAX_LOST; i++)
		dst[(*n)++] = src[i];
}

/* Nothing of the finding's connections was lost between the points. When
 * every packet either point saw crossed to the other, the analysed point's
 * own view of the first copies tells which side of the pair the losses
 * were on, whichever way the data went: a first copy it saw crossed both
 * points, so it was lost after the later one on its way; one it never saw
 * never reached the earlier one. */
static void not_between(GString *en, GString *zh, const pd_finding *f, const pd_points *p, const fsum *s)
{
	uint64_t both = s->d[0].both + s->d[1].both;
	uint64_t one_only = s->d[0].only_up + s->d[1].only_up + s->d[0].only_down + s->d[1].only_down;
	sb_add(en, zh, "no data segment was lost between the two capture points (%" PRIu64 " packets seen at both, %" PRIu64 " at one only)",
	       "没有数据段在两个抓包点之间丢失（%" PRIu64 " 个包两处都出现，%" PRIu64 " 个只在一处出现）", both, one_only);
	if (!strcmp(f->def->id, "spurious-retransmissions"))
		return; /* nothing was lost: where is no question */
	double retx = 0, unseen = 0, spurious = 0;
	bool all_paired = f->flows && s->conns == f->flows->len && f->flow_count == f->flows->len;
	/* a packet outside the time both files cover is not known to have crossed */
	uint64_t outside = s->d[0].outside + s->d[1].outside;
	if (one_only || outside || !all_paired || !pd_finding_metric_of(f, "retransmitted_segments", &retx) ||
	    !pd_finding_metric_of(f, "original_unseen", &unseen) || retx < 1 || unseen > retx) {
		sb_add(en, zh, ": the losses were before the first or after the second",
		       "：丢包发生在第一个点之前或第二个点之后");
		return;
	}
	pd_finding_metric_of(f, "spurious", &spurious);
	const char *a = p->files[p->analysed];
	double seen = retx - unseen, after = MAX(0.0, seen - spurious);
	if (after >= 1 && after == retx)
		sb_add(en, zh,
		       ": the first copies of all %.0f retransmitted segments were seen at %s, so they crossed both points and were lost after the second one on their way, nearer the receiver",
		       "：%2$s 看到了全部 %1$.0f 个重传数据段的首发报文，所以它们穿过了两个抓包点，是在沿途第二个点之后、靠近接收端处丢失的",
		       retx, a);
	else if (after >= 1)
		sb_add(en, zh,
		       ": the first copies of %.0f of the %.0f retransmitted segments were seen at %s, so they crossed both points and were lost after the second one on their way, nearer the receiver",
		       "：%3$s 看到了 %2$.0f 个重传数据段中 %1$.0f 个的首发报文，所以它们穿过了两个抓包点，是在沿途第二个点之后、靠近接收端处丢失的",
		       after, retx, a);
	if (seen - after >= 1)
		sb_add(en, zh, "%s%.0f were resent spuriously (their first copies arrived)",
		       "%s%.0f 个是虚假重传（首发报文已到达）", after >= 1 ? "; " : ": ", seen - after);
	if (unseen >= 1)
		sb_add(en, zh,
		       "%s%.0f first copies never appeared at %s, nor at the other point: lost before the first point on their way, nearer the sender",
		       "%s%.0f 个首发报文在 %s 和另一个点都没有出现：在沿途第一个点之前、靠近发送端处丢失", seen >= 1 ? "; " : ": ",
		       unseen, a);
}

static void explain_finding(pd_finding *f, const pd_points *p)
{
	static const char *const handshake[] = {"syn-retransmit", "syn-unanswered", "synack-retransmit",
						"accept-queue-overflow", "listener-overload", "ecn-syn-dropped"};
	static const char *const loss[] = {"retransmissions", "rto-timeouts", "tail-loss",
					   "spurious-retransmissions", "local-drop"};
	pd_category cat = PD_CAT__COUNT;
	for (size_t i = 0; i < G_N_ELEMENTS(handshake); i++)
		if (!strcmp(f->def->id, handshake[i]))
			cat = PD_CAT_HANDSHAKE;
	for (size_t i = 0; i < G_N_ELEMENTS(loss); i++)
		if (!strcmp(f->def->id, loss[i]))
			cat = PD_CAT_LOSS;
	if (cat == PD_CAT__COUNT)
		return;
	fsum s = {0};
	for (guint i = 0; f->flows && i < f->flows->len; i++) {
		const pd_points_conn *pc = conn_of(p, &g_array_index(f->flows, pd_flow_ref, i));
		if (!pc)
			continue;
		s.conns++;
		for (int d = 0; d < 2; d++) {
			pd_points_dir *t = &s.d[d];
			const pd_points_dir *x = &pc->dir[d];
			t->both += x->both;
			t->only_up += x->only_up;
			t->only_down += x->only_down;
			t->reordered += x->reordered;
			t->outside += x->outside;
			t->lost_syn += x->lost_syn;
			t->lost_data += x->lost_data;
			add_frames(t->lost_frames, &t->n_lost_frames, x->lost_frames, x->n_lost_frames);
			add_frames(t->lost_syn_frames, &t->n_lost_syn_frames, x->lost_syn_frames, x->n_lost_syn_frames);
		}
	}
	if (!s.conns)
		return;
	const char *cli = p->files[p->client_side], *srv = p->files[!p->client_side];
	GString *en = g_string_new(""), *zh = g_string_new("");
	uint64_t lost = 0;
	if (cat == PD_CAT_HANDSHAKE) {
		lost = s.d[0].lost_syn + s.d[1].lost_syn;
		if (s.d[1].lost_syn) {
			char *fr = frames_str(s.d[1].lost_syn_frames, s.d[1].n_lost_syn_frames, s.d[1].lost_syn);
			sb_add(en, zh,
			       "%" PRIu64 " SYN-ACKs left the server (%s %s) and never reached the client: dropped between the two capture points",
			       "%" PRIu64 " 个 SYN-ACK 离开了服务器（%s %s）却没有到达客户端：在两个抓包点之间丢失",
			       s.d[1].lost_syn, srv, fr);
			g_free(fr);
		}
		if (s.d[0].lost_syn) {
			char *fr = frames_str(s.d[0].lost_syn_frames, s.d[0].n_lost_syn_frames, s.d[0].lost_syn);
			sb_add(en, zh,
			       "%s%" PRIu64 " SYNs left the client (%s %s) and never reached the server: dropped between the two capture points",
			       "%s%" PRIu64 " 个 SYN 离开了客户端（%s %s）却没有到达服务器：在两个抓包点之间丢失",
			       en->len ? "; " : "", s.d[0].lost_syn, cli, fr);
			g_free(fr);
		}
		if (!lost)
			sb_add(en, zh,
			       "every SYN and SYN-ACK seen at one capture point was seen at the other (%s and %s): nothing of the handshake was dropped between them",
			       "在一个抓包点看到的每个 SYN 和 SYN-ACK 在另一个（%s 和 %s）也都看到了：握手包没有在两点之间丢失",
			       cli, srv);
	} else {
		lost = s.d[0].lost_data + s.d[1].lost_data;
		for (int d = 0; d < 2; d++) {
			if (!s.d[d].lost_data)
				continue;
			int up = d == 0 ? p->client_side : !p->client_side;
			char *fr = frames_str(s.d[d].lost_frames, s.d[d].n_lost_frames, s.d[d].only_up);
			sb_add(en, zh,
			       "%s%" PRIu64 " data segments left %s (%s) and never reached %s: dropped between the two capture points, %s",
			       "%s%" PRIu64 " 个数据段离开了 %s（%s）却没有到达 %s：在两个抓包点之间丢失，%s",
			       en->len ? "; " : "", s.d[d].lost_data, p->files[up], fr, p->files[!up],
			       d == 0 ? "client->server" : "server->client");
			g_free(fr);
		}
		if (!lost)
			not_between(en, zh, f, p, &s);
		/* reordering between the points makes the receiver's duplicate
		 * ACKs look like loss: spurious resends, early fast retransmits */
		for (int d = 0; d < 2; d++) {
			if (!s.d[d].reordered)
				continue;
			int up = d == 0 ? p->client_side : !p->client_side;
			sb_add(en, zh,
			       "; %" PRIu64 " %s packets of these connections reached %s ahead of one that left %s before them: the path between the two capture points reorders",
			       "；这些连接中有 %1$" PRIu64 " 个 %2$s 方向的包比先离开 %4$s 的包更早到达 %3$s：两个抓包点之间的路径会乱序",
			       s.d[d].reordered, d == 0 ? "client->server" : "server->client", p->files[!up], p->files[up]);
		}
	}
	append_detail(f, en, zh);
	g_string_free(en, TRUE);
	g_string_free(zh, TRUE);
	pd_metric m = {.key = "lost_between_points", .value = (double)lost, .unit = "count", .agg = PD_AGG_SUM};
	if (f->metrics)
		g_array_append_val(f->metrics, m);
	if (lost) {
		drop_host_settings(f);
		f->segment = "dropped between the two capture points";
		f->segment_zh = "在两个抓包点之间丢失";
	}
}

void pd_points_apply(pd_report *r, pd_points *p)
{
	if (!p)
		return;
	notes(r, p);
	if (p->verdict == PD_POINTS_TWO && p->client_side >= 0)
		for (guint i = 0; i < r->findings->len; i++)
			explain_finding(g_ptr_array_index(r->findings, i), p);
	pd_points_free(r->points);
	r->points = p;
}
