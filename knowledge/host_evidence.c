/* Host evidence as data: which host fact confirms or rules out which
 * ranked setting (knowledge/host_evidence.h has the tests' meanings). A
 * reviewer reads this table on its own; docs/host-evidence.md follows it. */
#include "knowledge/host_evidence.h"

#define YES_NO(y, n) .if_yes = PD_HV_##y, .if_no = PD_HV_##n

const pd_host_rule pd_host_rules[] = {
	/* ---- accept queue: TcpExtListenOverflows counts every connection a
	 * full accept queue could not take. 0 over the capture: not the queue. */
	{"accept-queue-overflow", "net.core.somaxconn", PD_HE_SERVER, PD_HE_COUNTER_ROSE, "TcpExtListenOverflows", NULL,
	 0, YES_NO(CONFIRMED, RULED_OUT)},
	{"accept-queue-overflow", "listen() backlog", PD_HE_SERVER, PD_HE_COUNTER_ROSE, "TcpExtListenOverflows", NULL, 0,
	 YES_NO(CONSISTENT, RULED_OUT)},
	{"accept-queue-overflow", "accept loop", PD_HE_SERVER, PD_HE_COUNTER_ROSE, "TcpExtListenOverflows", NULL, 0,
	 YES_NO(CONSISTENT, RULED_OUT)},
	/* which limit: the listener's backlog (ss Send-Q) is min(listen() arg, somaxconn) */
	{"accept-queue-overflow", "listen() backlog", PD_HE_SERVER, PD_HE_BACKLOG_BELOW_SOMAXCONN, NULL, NULL, 0,
	 YES_NO(CONFIRMED, NONE)},
	{"accept-queue-overflow", "net.core.somaxconn", PD_HE_SERVER, PD_HE_BACKLOG_BELOW_SOMAXCONN, NULL, NULL, 0,
	 YES_NO(RULED_OUT, NONE)},
	{"accept-queue-overflow", "net.core.somaxconn", PD_HE_SERVER, PD_HE_BACKLOG_AT_SOMAXCONN, NULL, NULL, 0,
	 YES_NO(CONFIRMED, NONE)},
	{"accept-queue-overflow", "net.ipv4.tcp_syncookies", PD_HE_SERVER, PD_HE_COUNTER_ROSE, "TcpExtListenOverflows",
	 NULL, 0, YES_NO(NONE, RULED_OUT)},

	/* ---- a listener that stops answering new SYNs: accept queue
	 * (ListenOverflows), SYN queue (TCPReqQFullDrop with cookies off), the
	 * connection tracking table */
#define LISTENER_ROWS(id)                                                                                              \
	{id, "net.core.somaxconn", PD_HE_SERVER, PD_HE_COUNTER_ROSE, "TcpExtListenOverflows", NULL, 0,                  \
	 YES_NO(CONSISTENT, RULED_OUT)},                                                                              \
		{id, "listen() backlog", PD_HE_SERVER, PD_HE_COUNTER_ROSE, "TcpExtListenOverflows", NULL, 0,            \
		 YES_NO(CONSISTENT, RULED_OUT)},                                                                      \
		{id, "accept loop", PD_HE_SERVER, PD_HE_COUNTER_ROSE, "TcpExtListenOverflows", NULL, 0,                 \
		 YES_NO(CONSISTENT, RULED_OUT)},                                                                      \
		{id, "listen() backlog", PD_HE_SERVER, PD_HE_BACKLOG_BELOW_SOMAXCONN, NULL, NULL, 0,                   \
		 YES_NO(CONFIRMED, NONE)},                                                                            \
		{id, "net.core.somaxconn", PD_HE_SERVER, PD_HE_BACKLOG_BELOW_SOMAXCONN, NULL, NULL, 0,                 \
		 YES_NO(RULED_OUT, NONE)},                                                                            \
		{id, "net.ipv4.tcp_max_syn_backlog", PD_HE_SERVER, PD_HE_COUNTER_ROSE, "TcpExtTCPReqQFullDrop", NULL,   \
		 0, YES_NO(CONFIRMED, RULED_OUT)},                                                                    \
		{id, "net.ipv4.tcp_syncookies", PD_HE_SERVER, PD_HE_COUNTER_ROSE_SYSCTL_IS, "TcpExtTCPReqQFullDrop",    \
		 "net.ipv4.tcp_syncookies", 0, YES_NO(CONFIRMED, NONE)},                                              \
		{id, "net.netfilter.nf_conntrack_max", PD_HE_PATH, PD_HE_CONNTRACK_FULL, NULL, NULL, 0,                 \
		 YES_NO(CONFIRMED, RULED_OUT)}
	LISTENER_ROWS("listener-overload"),
	LISTENER_ROWS("syn-retransmit"),
	LISTENER_ROWS("syn-unanswered"),
	LISTENER_ROWS("syn-flood"),

	/* ---- the connection tracking table */
	{"state-table-full", "net.netfilter.nf_conntrack_max", PD_HE_PATH, PD_HE_CONNTRACK_FULL, NULL, NULL, 0,
	 YES_NO(CONFIRMED, RULED_OUT)},

	/* ---- receive window: the receiver's socket buffer (ss skmem rb) */
	{"window-limited", "net.ipv4.tcp_rmem", PD_HE_SOCKET, PD_HE_RB_AT_RMEM_MAX, NULL, NULL, 0,
	 YES_NO(CONFIRMED, RULED_OUT)},
	{"window-limited", "SO_RCVBUF", PD_HE_SOCKET, PD_HE_RB_BELOW_RMEM_MAX, NULL, NULL, 0,
	 YES_NO(CONFIRMED, RULED_OUT)},
	{"window-limited", "net.ipv4.tcp_mem", PD_HE_EITHER, PD_HE_COUNTER_ROSE, "TcpExtTCPMemoryPressures", NULL, 0,
	 YES_NO(CONFIRMED, RULED_OUT)},
	{"receive-window-fixed", "SO_RCVBUF", PD_HE_SOCKET, PD_HE_RB_BELOW_RMEM_MAX, NULL, NULL, 0,
	 YES_NO(CONFIRMED, RULED_OUT)},
	{"receive-window-fixed", "net.ipv4.tcp_rmem", PD_HE_SOCKET, PD_HE_RB_AT_RMEM_MAX, NULL, NULL, 0,
	 YES_NO(CONFIRMED, RULED_OUT)},

	/* ---- send buffer: the sender's socket (ss skmem tb) */
	{"sender-limited", "SO_SNDBUF", PD_HE_SOCKET, PD_HE_TB_BELOW_WMEM_MAX, NULL, NULL, 0,
	 YES_NO(CONFIRMED, RULED_OUT)},
	{"sender-limited", "net.ipv4.tcp_wmem", PD_HE_SOCKET, PD_HE_TB_AT_WMEM_MAX, NULL, NULL, 0,
	 YES_NO(CONFIRMED, RULED_OUT)},

	/* ---- drops inside a host, below TCP: the qdisc (tc -s qdisc dropped on
	 * the flow's interface), the per-CPU input backlog (softnet_stat column
	 * 2), the NIC's rings (ip -s link). Missed / overrun is the ring itself;
	 * RX/TX dropped also counts other drops in the driver and core, so it
	 * is only consistent. 0 over the capture: not there. */
	{"retransmissions", "qdisc limit", PD_HE_PATH, PD_HE_QDISC_ROSE, "dropped", NULL, 0,
	 YES_NO(CONFIRMED, RULED_OUT)},
	{"local-drop", "qdisc limit", PD_HE_PATH, PD_HE_QDISC_ROSE, "dropped", NULL, 0, YES_NO(CONFIRMED, RULED_OUT)},
	{"retransmissions", "shaper queue size", PD_HE_PATH, PD_HE_QDISC_ROSE, "dropped", NULL, 0,
	 YES_NO(CONSISTENT, NONE)},
	{"local-drop", "shaper queue size", PD_HE_PATH, PD_HE_QDISC_ROSE, "dropped", NULL, 0,
	 YES_NO(CONSISTENT, NONE)},
	{"queueing-delay", "qdisc limit", PD_HE_PATH, PD_HE_QDISC_ROSE, "overlimits", NULL, 0,
	 YES_NO(CONSISTENT, NONE)},
	{"queueing-delay", "shaper queue size", PD_HE_PATH, PD_HE_QDISC_ROSE, "overlimits", NULL, 0,
	 YES_NO(CONSISTENT, NONE)},
	{"retransmissions", "net.core.netdev_max_backlog", PD_HE_PATH, PD_HE_SOFTNET_ROSE, "dropped", NULL, 0,
	 YES_NO(CONFIRMED, RULED_OUT)},
	{"local-drop", "net.core.netdev_max_backlog", PD_HE_PATH, PD_HE_SOFTNET_ROSE, "dropped", NULL, 0,
	 YES_NO(CONFIRMED, RULED_OUT)},
	{"retransmissions", "NIC ring buffers", PD_HE_PATH, PD_HE_LINK_ROSE,
	 "rx_dropped rx_missed rx_overrun tx_dropped", NULL, 0, YES_NO(CONSISTENT, RULED_OUT)},
	{"retransmissions", "NIC ring buffers", PD_HE_PATH, PD_HE_LINK_ROSE, "rx_missed rx_overrun", NULL, 0,
	 YES_NO(CONFIRMED, NONE)},

	/* ---- PAWS: the receiver counts every segment its check dropped */
	{"paws-rejected-data", "net.ipv4.tcp_timestamps", PD_HE_EITHER, PD_HE_COUNTER_ROSE, "TcpExtPAWSEstab", NULL, 0,
	 YES_NO(CONFIRMED, NONE)},
	{"paws-rejected-data", "middlebox rewriting TCP timestamps", PD_HE_EITHER, PD_HE_COUNTER_ROSE,
	 "TcpExtPAWSEstab", NULL, 0, YES_NO(CONSISTENT, NONE)},
	{"paws-rejected-data", "NAT source-port reuse", PD_HE_EITHER, PD_HE_COUNTER_ROSE, "TcpExtPAWSEstab", NULL, 0,
	 YES_NO(CONSISTENT, NONE)},
};
const size_t pd_host_rules_len = sizeof(pd_host_rules) / sizeof(pd_host_rules[0]);

const pd_host_unexplained pd_host_watch[] = {
	{"TcpExtListenOverflows", {"accept-queue-overflow", "listener-overload", "syn-retransmit", "syn-unanswered", NULL}},
	{"TcpExtTCPReqQFullDrop", {"syn-flood", "listener-overload", "syn-retransmit", "syn-unanswered", NULL}},
	{"TcpExtPAWSEstab", {"paws-rejected-data", NULL}},
	{"TcpExtOutOfWindowIcmps", {NULL}},
	{"TcpExtTCPRcvQDrop", {"window-limited", "receive-window-fixed", NULL}},
	{"TcpExtTCPMemoryPressures", {"window-limited", NULL}},
};
const size_t pd_host_watch_len = sizeof(pd_host_watch) / sizeof(pd_host_watch[0]);

const char *pd_host_verdict_name(pd_host_verdict v)
{
	switch (v) {
	case PD_HV_CONFIRMED:
		return "confirmed";
	case PD_HV_CONSISTENT:
		return "consistent";
	case PD_HV_RULED_OUT:
		return "ruled out";
	default:
		return "unknown";
	}
}
