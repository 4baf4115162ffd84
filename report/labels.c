/* The en/zh label table the text, Markdown and HTML renderers share (see
 * labels.h). Chinese numbers read as Chinese does: "出现 3 次", "1.2 秒",
 * "3 条流"; full-width punctuation is added by the renderers. */
#include "report/labels.h"

#include <string.h>

#include "report/model.h"

static const pd_labels EN = {
	.sep = "; ",
	.colon = ": ",
	.report = "pcapdoc report",
	.verdict = "Verdict",
	.capture = "Capture",
	.quality = "Capture quality",
	.findings = "Findings",
	.flow_table = "Flow table",
	.flow_details = "Flow details",
	.summary = "Summary",

	.files = "Files",
	.packets = "Packets",
	.on_wire_pre = "",
	.on_wire_post = " on the wire",
	.span_pre = "",
	.from = "from",
	.to = "to",
	.duration = "Duration",
	.start = "First packet",
	.link_types = "Link types",
	.protocols = "Protocols",
	.other = "other",
	.non_ip = "non-IP",
	.fragments = "fragments",
	.flows = "Flows",
	.evicted = "evicted at the flow-table cap",
	.apps = "Applications",
	.snaplen = "Snap length",
	.truncated_frames = "frames truncated",
	.malformed = "Malformed",
	.notes = "Notes",
	.errors = "Errors",
	.input_truncated = "input truncated: a file ended in the middle of a packet",
	.no_quality = "no capture problems noticed",

	.no_findings = "No problems found.",
	.no_traffic_findings = "No problems found in the traffic that was read; the capture itself has a "
			       "problem (capture quality, above).",
	.no_problems_info_pre = "No problems found. Informational notes below: ",
	.no_problems_info_post = ".",
	.problems_pre = "",
	.problems_post = " problems, most time lost first",
	.problems_post_one = " problem",
	.lost_total_pre = "",
	.lost_total_post = " lost in all",
	.lost_pre = "",
	.lost_post = " lost",
	.cost_unmeasured = "time lost not measurable",
	.whole_capture = "whole capture",
	.server = "server",
	.servers_post = " servers",
	.first_step = "First",
	.check_cmd = "check",
	.change_cmd = "change",
	.verdict_then = "Details follow: capture, capture quality, then every finding.",

	.errors_n = " error(s)",
	.warnings_n = " warning(s)",
	.infos_n = " info",
	.category = "category",
	.confidence = "confidence",
	.time_lost = "time lost",
	.occ_pre = "",
	.occ_post = " occurrences",
	.occ_post_one = " occurrence",
	.known = "known from baseline",
	.explained_by = "a symptom of",
	.explains = "Its symptoms, not reported as problems of their own",
	.meaning = "What it means",
	.seen = "What was seen",
	.where = "Where",
	.flows_n = " flow(s)",
	.listed = "listed",
	.packets_h = "Packets (Wireshark frame numbers)",
	.first = "first",
	.last = "last",
	.settings = "Likely settings, most likely first",
	.default_ = "default",
	.check = "check",
	.change = "change",
	.caveat = "caveat",
	.removed_in = "removed in kernel",
	.alternatives = "What else could explain it",
	.also_settings = "Also possible",
	.fold_pointer = "details in docs/settings.md or with --verbose",

	.severity = "Severity",
	.finding = "Finding",
	.time_lost_s = "Time lost (s)",
	.occurrences = "Occurrences",
	.flow = "Flow",
	.client = "Client",
	.server_h = "Server",
	.application = "Application",
	.value = "Value",
	.omitted = "more flows not shown",
	.rtt = "handshake RTT",
	.retrans = "retrans",
	.state = "state",
	.frames = "frames",
	.pkts = "pkts",
	.bytes = "bytes",
	.ooo = "ooo",
	.dupack = "dupack",
	.zero_win = "zero-win",
	.first_packet = "first",
	.last_packet = "last",
	.pkts_cs = "packets c→s / s→c",
	.bytes_cs = "payload bytes c→s / s→c",
	.retransmissions = "retransmissions",
	.out_of_order = "out of order",
	.dup_acks = "duplicate ACKs",
	.zero_windows = "zero windows",
	.community_id = "community id",

	.u_s = " s",
	.u_ms = " ms",
	.u_bytes = " bytes",
	.u_bytes_s = " bytes/s",
	.u_flows = " flow(s)",
	.u_frames = " frames",

	.pictures = "Pictures",
	.tseq = "Time-sequence graph (Stevens)",
	.tseq_note = "Each data segment is a vertical bar from its first to its last byte; the "
		     "grey step is the highest byte ACKed, the dashed line the edge of the "
		     "receive window. Marked frames are numbered as in Wireshark.",
	.inflight = "Bytes in flight against the receive window",
	.inflight_note = "In flight: bytes sent and not yet acknowledged. When it touches the "
			 "window the receiver limits the transfer; when it stays below, the "
			 "sender does.",
	.rtt_chart = "Round-trip time over time",
	.rtt_note = "Time from a data segment to the first packet acknowledging it (matched by "
		    "TCP timestamps when both sides send them, else only segments sent once). A "
		    "rising floor is queueing on the path.",
	.gaps = "Gaps between the sender's segments",
	.gaps_note = "How long the sender waited between data segments (log scale). A cluster "
		     "near 40 ms is the delayed-ACK timer that Nagle waits for.",
	.legend_data = "data",
	.legend_retrans = "retransmission",
	.legend_syn = "SYN / SYN retry",
	.legend_zwp = "zero-window probe",
	.legend_zero = "zero window",
	.legend_evidence = "finding evidence",
	.legend_ack = "ACKed",
	.legend_win = "receive window edge",
	.legend_inflight = "in flight",
	.legend_rtt = "RTT sample",
	.legend_one_point = "at one point only",
	.point_clock = "clock moved",
	.one_point_title = "seen at this capture point only",
	.tseq_points_note = "Both capture points on one time axis: the other file's packets (hollow "
			    "marks, purple) are moved by the estimated clock offset into this file's "
			    "clock, and each point counts sequence numbers from its own ISN, so the "
			    "same segment is drawn twice, one one-way delay apart. A cross marks a "
			    "packet seen at one point only: lost between the points (or missed by the "
			    "other capture).",
	.legend_cluster = "the finding's period",
	.axis_time = "time since the flow's first packet (s)",
	.axis_time_points = "time since the flow's first packet at either point (s)",
	.axis_seq = "relative sequence number (bytes)",
	.axis_bytes = "bytes",
	.axis_rtt_ms = "RTT (ms)",
	.axis_gap = "gap between segments",
	.axis_count = "segments",
	.sampled_pre = "",
	.sampled_mid = " of ",
	.sampled_post = " packets drawn (a sample; every marked packet is kept).",
	.no_series_stdin = "No pictures: the capture came from standard input, which cannot be "
			   "read a second time. Save it to a file and run pcapdoc on the file.",
	.no_series = "No pictures for this flow: its packets were not found again.",
	.marked_frames = "Marked frames",
	.more_flows_pre = "Pictures for ",
	.more_flows_post = " more flow(s) left out.",
	.generated_by = "Generated by",

	.kinds = {"sysctl", "socket option", "route", "application", "firewall", "interface"},
	.sides = {"client", "server", "both", "sender", "receiver", "path"},
	.sev = {"INFO", "WARNING", "ERROR"},
	.sev_lower = {"info", "warning", "error"},
	.states = {"closed", "reset", "open", "syn-only", "udp"},
};

static const pd_labels ZH = {
	.sep = "；",
	.colon = "：",
	.report = "pcapdoc 诊断报告",
	.verdict = "结论",
	.capture = "抓包概况",
	.quality = "抓包质量",
	.findings = "诊断详情",
	.flow_table = "流表",
	.flow_details = "流详情",
	.summary = "摘要",

	.files = "文件",
	.packets = "报文",
	.on_wire_pre = "线上 ",
	.on_wire_post = "",
	.span_pre = "历时 ",
	.from = "从",
	.to = "到",
	.duration = "时长",
	.start = "首个报文",
	.link_types = "链路类型",
	.protocols = "协议",
	.other = "其他",
	.non_ip = "非 IP",
	.fragments = "分片",
	.flows = "流",
	.evicted = "因流表上限被淘汰",
	.apps = "应用",
	.snaplen = "截断长度",
	.truncated_frames = "帧被截断",
	.malformed = "畸形报文",
	.notes = "备注",
	.errors = "错误",
	.input_truncated = "输入被截断：文件在报文中间结束",
	.no_quality = "未发现抓包问题",

	.no_findings = "未发现问题。",
	.no_traffic_findings = "在已读取的流量中未发现问题；抓包本身有问题（见上方的抓包质量）。",
	.no_problems_info_pre = "未发现问题（下方有 ",
	.no_problems_info_post = " 条提示）。",
	.problems_pre = "共 ",
	.problems_post = " 个问题，按损失时间从多到少排列",
	.problems_post_one = " 个问题",
	.lost_total_pre = "合计损失 ",
	.lost_total_post = "",
	.lost_pre = "损失 ",
	.lost_post = "",
	.cost_unmeasured = "损失时间无法测量",
	.whole_capture = "整个抓包",
	.server = "服务端",
	.servers_post = " 个服务端",
	.first_step = "首先",
	.check_cmd = "检查",
	.change_cmd = "修改",
	.verdict_then = "下面依次是抓包概况、抓包质量和每个诊断的详情。",

	.errors_n = " 个错误",
	.warnings_n = " 个警告",
	.infos_n = " 个提示",
	.category = "类别",
	.confidence = "置信度",
	.time_lost = "损失时间",
	.occ_pre = "出现 ",
	.occ_post = " 次",
	.occ_post_one = " 次",
	.known = "基线中已知",
	.explained_by = "是以下问题的症状",
	.explains = "它引起的症状（不单独作为问题报告）",
	.meaning = "含义",
	.seen = "观察到的现象",
	.where = "位置",
	.flows_n = " 条流",
	.listed = "已列出",
	.packets_h = "报文（Wireshark 帧号）",
	.first = "首个",
	.last = "最后",
	.settings = "可能相关的设置（按可能性排序）",
	.default_ = "默认值",
	.check = "检查",
	.change = "修改",
	.caveat = "注意",
	.removed_in = "已删除于内核",
	.alternatives = "其他可能的原因",
	.also_settings = "其他可能的设置",
	.fold_pointer = "详见 docs/settings.md 或加 --verbose",

	.severity = "严重程度",
	.finding = "诊断",
	.time_lost_s = "损失时间（秒）",
	.occurrences = "次数",
	.flow = "流",
	.client = "客户端",
	.server_h = "服务端",
	.application = "应用",
	.value = "值",
	.omitted = "条流未显示",
	.rtt = "握手 RTT",
	.retrans = "重传",
	.state = "状态",
	.frames = "帧",
	.pkts = "报文",
	.bytes = "字节",
	.ooo = "乱序",
	.dupack = "重复 ACK",
	.zero_win = "零窗口",
	.first_packet = "首个报文",
	.last_packet = "最后报文",
	.pkts_cs = "报文数 客户端→服务端 / 服务端→客户端",
	.bytes_cs = "载荷字节 客户端→服务端 / 服务端→客户端",
	.retransmissions = "重传",
	.out_of_order = "乱序",
	.dup_acks = "重复 ACK",
	.zero_windows = "零窗口",
	.community_id = "Community ID",

	.u_s = " 秒",
	.u_ms = " 毫秒",
	.u_bytes = " 字节",
	.u_bytes_s = " 字节/秒",
	.u_flows = " 条流",
	.u_frames = " 帧",

	.pictures = "图示",
	.tseq = "时间-序列号图（Stevens 图）",
	.tseq_note = "每个数据段画成一条竖线，从它的第一个字节到最后一个字节；灰色阶梯是已确认的最高字节，"
		     "虚线是接收窗口的右边界。标出的帧号与 Wireshark 一致。",
	.inflight = "在途字节与接收窗口",
	.inflight_note = "在途字节：已发送但尚未被确认的字节。它顶到窗口时是接收端在限制传输；"
			 "一直低于窗口时是发送端自己发得慢。",
	.rtt_chart = "往返时间随时间的变化",
	.rtt_note = "从一个数据段发出到第一个确认它的报文到达的时间（两端都带 TCP 时间戳时按时间戳匹配，"
		    "否则只取未重传的段）。底线抬高说明路径上在排队。",
	.gaps = "发送端数据段之间的间隔",
	.gaps_note = "发送端相邻两个数据段之间等了多久（对数刻度）。集中在 40 毫秒附近的，"
		     "就是 Nagle 在等的延迟 ACK 定时器。",
	.legend_data = "数据",
	.legend_retrans = "重传",
	.legend_syn = "SYN / SYN 重试",
	.legend_zwp = "零窗口探测",
	.legend_zero = "零窗口",
	.legend_evidence = "诊断证据",
	.legend_ack = "已确认",
	.legend_win = "接收窗口边界",
	.legend_inflight = "在途字节",
	.legend_rtt = "RTT 样本",
	.legend_one_point = "只在一个捕获点",
	.point_clock = "时钟已平移",
	.one_point_title = "只在这个捕获点看到",
	.tseq_points_note = "两个捕获点画在同一条时间轴上：另一个文件的报文（空心标记，紫色）按估计的时钟"
			    "偏差平移到本文件的时钟，每个捕获点的序列号从它自己的 ISN 算起，所以同一个报文段"
			    "画两次，相隔一个单向时延。叉号是只在一个捕获点看到的报文：在两个捕获点之间丢失"
			    "（或另一份捕获漏掉了它）。",
	.legend_cluster = "诊断测得的周期",
	.axis_time = "距该流第一个报文的时间（秒）",
	.axis_time_points = "距该流在任一捕获点的第一个报文的时间（秒）",
	.axis_seq = "相对序列号（字节）",
	.axis_bytes = "字节",
	.axis_rtt_ms = "RTT（毫秒）",
	.axis_gap = "数据段间隔",
	.axis_count = "数据段数",
	.sampled_pre = "画出 ",
	.sampled_mid = " 个报文（共 ",
	.sampled_post = " 个，已抽样；所有标记的报文都保留）。",
	.no_series_stdin = "没有图示：抓包来自标准输入，无法再读一遍。请先存成文件，再对文件运行 pcapdoc。",
	.no_series = "该流没有图示：再次读取时没有找到它的报文。",
	.marked_frames = "标出的帧",
	.more_flows_pre = "另有 ",
	.more_flows_post = " 条流未画图。",
	.generated_by = "生成工具",

	.kinds = {"sysctl", "套接字选项", "路由", "应用", "防火墙", "接口"},
	.sides = {"客户端", "服务端", "两端", "发送端", "接收端", "路径"},
	.sev = {"提示", "警告", "错误"},
	.sev_lower = {"提示", "警告", "错误"},
	.states = {"已关闭", "被重置", "未结束", "仅 SYN", "UDP"},
};

const pd_labels *pd_labels_get(bool zh)
{
	return zh ? &ZH : &EN;
}

const char *pd_labels_state(const pd_labels *l, const char *state)
{
	if (!state)
		return "?";
	for (size_t i = 0; i < G_N_ELEMENTS(EN.states); i++)
		if (strcmp(state, EN.states[i]) == 0)
			return l->states[i];
	return state;
}

const char *pd_labels_unit(const pd_labels *l, const char *unit)
{
	if (!unit || !*unit || strcmp(unit, "count") == 0 || strcmp(unit, "ratio") == 0)
		return "";
	if (strcmp(unit, "s") == 0)
		return l->u_s;
	if (strcmp(unit, "ms") == 0)
		return l->u_ms;
	if (strcmp(unit, "bytes") == 0)
		return l->u_bytes;
	if (strcmp(unit, "bytes/s") == 0)
		return l->u_bytes_s;
	return NULL; /* the caller prints the unit as given */
}

const char *pd_labels_occurrences(const pd_labels *l, uint64_t n)
{
	return n == 1 ? l->occ_post_one : l->occ_post;
}

void pd_labels_seconds(GString *b, const pd_labels *l, double s)
{
	if (!(s == s) || s > 1e12 || s < -1e12)
		s = 0;
	g_string_append_printf(b, "%.3f%s", s, l->u_s);
}
