/* The kernel counters that confirm findings on a host, as nstat names
 * them (the TcpExt, Ip, Icmp, Tcp and Ip6/Icmp6 rows of /proc/net/netstat,
 * /proc/net/snmp and /proc/net/snmp6). Read them twice, a known interval
 * apart (nstat prints the change since its last run; nstat -az the
 * totals): a counter that grows while the problem happens confirms it.
 * Every name was checked with nstat -az on kernel 6.18 (tests/test_kb.c
 * checks them against the running kernel). */
#include "knowledge/counters.h"

#include <string.h>

const pd_counter pd_counters[] = {
	/* ---------------- listener, handshake ---------------- */
	{"TcpExtListenOverflows", "a SYN or a handshake's final ACK dropped because the accept queue was full",
	 "因全连接队列满而丢弃的 SYN 或握手最后一个 ACK", NULL},
	{"TcpExtListenDrops", "every SYN or handshake ACK a listener dropped, overflows included",
	 "监听套接字丢弃的所有 SYN 或握手 ACK（包括队列溢出）", NULL},
	{"TcpExtTCPReqQFullDrop", "a SYN dropped because the SYN queue was full and no cookie could be sent",
	 "SYN 队列已满且无法发送 cookie 而丢弃的 SYN", NULL},
	{"TcpExtTCPReqQFullDoCookies", "a SYN answered with a SYN cookie because the SYN queue was full",
	 "因 SYN 队列满而用 SYN cookie 应答的 SYN", NULL},
	{"TcpExtSyncookiesSent", "a SYN cookie sent", "发送的 SYN cookie", NULL},
	{"TcpExtSyncookiesRecv", "a handshake ACK carrying a valid SYN cookie", "携带有效 SYN cookie 的握手 ACK", NULL},
	{"TcpExtSyncookiesFailed", "a handshake ACK whose SYN cookie did not validate",
	 "SYN cookie 校验失败的握手 ACK", NULL},
	{"TcpExtTCPSynRetrans", "a SYN or SYN-ACK retransmitted", "重传的 SYN 或 SYN-ACK", NULL},
	{"TcpExtTCPDeferAcceptDrop", "a bare handshake ACK dropped because the listener uses TCP_DEFER_ACCEPT",
	 "因监听套接字使用 TCP_DEFER_ACCEPT 而丢弃的不带数据的握手 ACK", NULL},
	{"TcpAttemptFails", "a connection attempt that failed (SYN_SENT or SYN_RECV to CLOSED)",
	 "失败的连接尝试（从 SYN_SENT 或 SYN_RECV 直接进入 CLOSED）", NULL},
	{"TcpOutRsts", "a RST sent", "发送的 RST", NULL},
	{"TcpExtTCPSYNChallenge", "a SYN received on an established connection, answered with a challenge ACK "
	 "(RFC 5961)",
	 "已建立的连接收到 SYN 并以挑战 ACK 应答（RFC 5961）", NULL},
	{"TcpEstabResets", "an established connection ended by a RST it received",
	 "已建立的连接因收到 RST 而结束", NULL},
	{"TcpExtTCPAbortOnClose", "a socket closed with unread received data: a RST sent instead of a FIN",
	 "关闭时仍有未读的已接收数据：发送 RST 而不是 FIN", NULL},
	{"TcpExtTCPAbortOnData", "a RST sent by an abortive close (SO_LINGER 0) or for data arriving after close()",
	 "中止式关闭（SO_LINGER 为 0）或 close() 之后仍有数据到达而发送的 RST", NULL},
	{"TcpActiveOpens", "a connection opened by connect()", "通过 connect() 主动建立的连接", NULL},
	{"TcpPassiveOpens", "a connection accepted by a listener", "监听套接字被动接受的连接", NULL},
	/* ---------------- timestamps, TIME_WAIT ---------------- */
	{"TcpExtPAWSTimewait", "a segment (such as a SYN) that a TIME_WAIT socket rejected by the PAWS check",
	 "被 TIME_WAIT 套接字的 PAWS 检查拒绝的报文（例如 SYN）", "6.16"},
	{"TcpExtPAWSEstab",
	 "a segment an established connection rejected by the PAWS check (before 6.16 also the TIME_WAIT "
	 "rejects)",
	 "被已建立连接的 PAWS 检查拒绝的报文（6.16 之前也包括 TIME_WAIT 的拒绝）", NULL},
	{"TcpExtTWRecycled", "a TIME_WAIT socket reused by connect() (tcp_tw_reuse)",
	 "被 connect() 复用的 TIME_WAIT 套接字（tcp_tw_reuse）", NULL},
	{"TcpExtTCPTimeWaitOverflow", "a TIME_WAIT socket not created because tcp_max_tw_buckets was reached",
	 "因达到 tcp_max_tw_buckets 而没有创建的 TIME_WAIT 套接字", NULL},
	/* ---------------- delayed ACK, small writes ---------------- */
	{"TcpExtDelayedACKs", "an ACK sent by the delayed-ACK timer", "由延迟确认定时器发出的 ACK", NULL},
	{"TcpExtTCPAutoCorking", "a small write held back by autocorking", "被自动 cork 暂缓发送的小块写入", NULL},
	/* ---------------- windows, receive memory ---------------- */
	{"TcpExtTCPToZeroWindowAdv", "the advertised window went from open to zero",
	 "通告窗口从非零变为零", NULL},
	{"TcpExtTCPFromZeroWindowAdv", "the advertised window reopened from zero", "通告窗口从零重新打开", NULL},
	{"TcpExtTCPZeroWindowDrop", "a segment dropped because the receive window was zero",
	 "因接收窗口为零而丢弃的报文", NULL},
	{"TcpExtTCPWinProbe", "a zero-window probe sent", "发送的零窗口探测", NULL},
	{"TcpExtTCPRcvQDrop", "a segment dropped because the receive buffer could not take it",
	 "因接收缓冲区容纳不下而丢弃的报文", NULL},
	{"TcpExtPruneCalled", "the receive queue had to be pruned because the socket was over its buffer",
	 "套接字超出缓冲区限制，接收队列被迫裁剪", NULL},
	{"TcpExtTCPMemoryPressures", "TCP entered memory pressure (net.ipv4.tcp_mem)",
	 "TCP 进入内存压力状态（net.ipv4.tcp_mem）", NULL},
	{"TcpExtTCPBacklogDrop", "a segment dropped because the socket's backlog was full while the application "
	 "held the socket",
	 "应用持有套接字期间 backlog 已满而丢弃的报文", NULL},
	/* ---------------- loss, timers ---------------- */
	{"TcpRetransSegs", "a segment retransmitted", "重传的报文", NULL},
	{"TcpExtTCPFastRetrans", "a fast (or SACK-based) retransmission", "快速重传（或基于 SACK 的重传）", NULL},
	{"TcpExtTCPLostRetransmit", "a retransmission that was lost again", "再次丢失的重传报文", NULL},
	{"TcpExtTCPTimeouts", "a retransmission timer that fired (RTO)", "重传定时器超时（RTO）", NULL},
	{"TcpExtTCPAbortOnTimeout",
	 "a connection given up after its retransmissions, SYN retries or keepalive probes ran out",
	 "因重传、SYN 重试或保活探测用尽而放弃的连接", NULL},
	{"TcpExtTCPLossProbes", "a tail-loss probe sent", "发送的尾部丢包探测", NULL},
	{"TcpExtTCPLossProbeRecovery", "a loss repaired by a tail-loss probe", "由尾部丢包探测修复的丢包", NULL},
	{"TcpExtTCPSpuriousRTOs", "a retransmission timeout found to be spurious (F-RTO)",
	 "被判定为虚假的重传超时（F-RTO）", NULL},
	{"TcpExtTCPDSACKRecv", "a D-SACK received: the peer got data twice", "收到 D-SACK：对端重复收到了数据", NULL},
	{"TcpExtTCPDSACKUndo", "a congestion-window reduction undone because D-SACK showed the loss was not real",
	 "因 D-SACK 表明并未真正丢包而撤销的拥塞窗口缩减", NULL},
	{"TcpExtTCPKeepAlive", "a keepalive probe sent", "发送的保活探测", NULL},
	/* ---------------- ECN ---------------- */
	{"IpExtInCEPkts", "an IPv4 packet received marked Congestion Experienced (CE)",
	 "收到的标记为“经历拥塞”（CE）的 IPv4 报文", NULL},
	{"TcpExtTCPDeliveredCE", "a segment acknowledged with the ECN echo (ECE) set: delivered through a congested "
	 "hop",
	 "被带 ECN 回显（ECE）的 ACK 确认的报文：它经过了拥塞的一跳", NULL},
	/* ---------------- MTU, fragments ---------------- */
	{"TcpExtTCPMTUPFail", "a TCP MTU probe that failed (tcp_mtu_probing)", "失败的 TCP MTU 探测（tcp_mtu_probing）",
	 NULL},
	{"TcpExtTCPMTUPSuccess", "a TCP MTU probe that succeeded", "成功的 TCP MTU 探测", NULL},
	{"IcmpInDestUnreachs", "an ICMP destination unreachable received (fragmentation needed among them)",
	 "收到的 ICMP 目的不可达（其中包括需要分片）", NULL},
	{"Icmp6InPktTooBigs", "an ICMPv6 Packet Too Big received", "收到的 ICMPv6 报文过大（Packet Too Big）消息", NULL},
	{"Icmp6InDestUnreachs", "an ICMPv6 destination unreachable received", "收到的 ICMPv6 目的不可达", NULL},
	{"IcmpOutDestUnreachs", "an ICMP destination unreachable sent (by a reject rule among others)",
	 "发出的 ICMP 目的不可达（其中包括拒绝规则发出的）", NULL},
	{"IpFragCreates", "an IPv4 fragment this host created", "本机产生的 IPv4 分片", NULL},
	{"IpReasmReqds", "an IPv4 fragment received for reassembly", "收到的需要重组的 IPv4 分片", NULL},
	{"IpReasmOKs", "an IPv4 datagram reassembled", "重组成功的 IPv4 数据报", NULL},
	{"IpReasmFails", "an IPv4 reassembly that failed (timeout, memory, overlap)",
	 "失败的 IPv4 重组（超时、内存不足、重叠）", NULL},
	{"IpReasmTimeout", "an IPv4 reassembly that timed out (net.ipv4.ipfrag_time)",
	 "超时的 IPv4 重组（net.ipv4.ipfrag_time）", NULL},
	{"Ip6ReasmFails", "an IPv6 reassembly that failed", "失败的 IPv6 重组", NULL},
	{"Ip6ReasmTimeout", "an IPv6 reassembly that timed out", "超时的 IPv6 重组", NULL},
};

const size_t pd_counters_len = sizeof pd_counters / sizeof pd_counters[0];

const pd_counter *pd_counter_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < pd_counters_len; i++)
		if (strcmp(pd_counters[i].name, name) == 0)
			return &pd_counters[i];
	return NULL;
}
