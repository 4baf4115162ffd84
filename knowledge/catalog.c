/* The finding catalogue: one entry per id, texts in English and Chinese,
 * the settings that usually lie behind it (KB names, most likely first)
 * the other causes a capture alone cannot rule out, and the kernel
 * counters (knowledge/counters.c) that confirm it on the host. Every
 * setting a finding ranks must list the finding among its causes
 * (knowledge/kb.h; tests/test_kb.c). Ids are stable:
 * never rename one (reports, baselines and diffs key on them). */
#include "knowledge/catalog.h"

#include <string.h>

#define S(...) .settings = {__VA_ARGS__, NULL}
#define AEN(...) .alternatives_en = {__VA_ARGS__, NULL}
#define AZH(...) .alternatives_zh = {__VA_ARGS__, NULL}
#define C(...) .counters = {__VA_ARGS__, NULL}

const pd_finding_def pd_catalog[] = {
	/* ================= handshake ================= */
	{
		.id = "syn-retransmit",
		.category = PD_CAT_HANDSHAKE,
		.severity = PD_SEV_WARNING,
		.title_en = "SYN retransmitted before the connection was set up",
		.title_zh = "建立连接时 SYN 被重传",
		.explain_en = "The client sent its SYN more than once with the same initial sequence "
			      "number: the first attempts got no SYN-ACK in time. Each retry waits for a "
			      "timer (about 1 s, then longer), so every connection here started late.",
		.explain_zh = "客户端用相同的初始序列号多次发送 SYN：前几次没有及时收到 SYN-ACK。"
			      "每次重试都要等定时器（约 1 秒，之后更长），所以这些连接都被推迟建立。",
		S("net.core.somaxconn", "listen() backlog", "net.ipv4.tcp_max_syn_backlog",
		  "net.netfilter.nf_conntrack_max", "firewall dropping SYN/SYN-ACK",
		  "net.ipv4.tcp_syn_linear_timeouts"),
		AEN("Packet loss on the path (one client affected rather than many)",
		    "The server host was busy or briefly unreachable",
		    "A firewall or rate limiter dropping SYNs"),
		AZH("路径丢包（只影响单个客户端而非大量客户端时更可能）", "服务器主机繁忙或短暂不可达",
		    "防火墙或限速设备丢弃 SYN"),
		C("TcpExtTCPSynRetrans", "TcpExtListenOverflows", "TcpExtListenDrops",
		  "TcpExtTCPReqQFullDrop"),
	},
	{
		.id = "ecn-syn-dropped",
		.category = PD_CAT_HANDSHAKE,
		.severity = PD_SEV_WARNING,
		.title_en = "SYN asking for ECN dropped; the retry without ECN connected",
		.title_zh = "请求 ECN 的 SYN 被丢弃，不带 ECN 的重试才连上",
		.explain_en = "The client's SYN asked for ECN (ECE and CWR set) and got no answer, and its "
			      "retransmission without them was answered at once. Something on the path drops "
			      "ECN-setup SYNs, so each connection from this client waits one SYN timeout "
			      "(about 1 s) and then runs without ECN.",
		.explain_zh = "客户端请求 ECN 的 SYN（置了 ECE 和 CWR）没有得到应答，而不带这两个标志的重传 SYN "
			      "立即得到了应答。路径上有设备丢弃请求 ECN 的 SYN，因此该客户端的每个连接都要先等一次 "
			      "SYN 超时（约 1 秒），之后也不使用 ECN。",
		S("net.ipv4.tcp_ecn", "net.ipv4.tcp_ecn_fallback", "firewall dropping SYN/SYN-ACK"),
		AEN("One SYN lost by chance: a client that asks for ECN always retries without it"),
		AZH("偶然丢了一个 SYN：请求 ECN 的客户端重试时总是不再请求 ECN"),
		C("TcpExtTCPSynRetrans"),
	},
	{
		.id = "syn-unanswered",
		.category = PD_CAT_HANDSHAKE,
		.severity = PD_SEV_ERROR,
		.title_en = "Connection attempt gave up: no SYN-ACK",
		.title_zh = "连接尝试放弃：始终没有 SYN-ACK",
		.explain_en = "The client retried its SYN until it stopped, and no SYN-ACK ever came "
			      "back. The application saw a connect timeout.",
		.explain_zh = "客户端不断重传 SYN 直到放弃，始终没有收到 SYN-ACK。应用层看到的是连接超时。",
		S("firewall dropping SYN/SYN-ACK", "net.core.somaxconn", "listen() backlog",
		  "net.netfilter.nf_conntrack_max", "net.ipv4.tcp_syn_retries",
		  "net.ipv4.tcp_syn_linear_timeouts"),
		AEN("The server is down or the address is wrong",
		    "Routing problem between client and server",
		    "The capture ended before the answer (check the capture's end time)"),
		AZH("服务器宕机或地址错误", "客户端与服务器之间的路由问题", "抓包在应答到来前结束（检查抓包结束时间）"),
		C("TcpExtTCPSynRetrans", "TcpAttemptFails", "TcpExtTCPAbortOnTimeout",
		  "TcpExtListenDrops"),
	},
	{
		.id = "synack-retransmit",
		.category = PD_CAT_HANDSHAKE,
		.severity = PD_SEV_WARNING,
		.title_en = "Server repeated its SYN-ACK",
		.title_zh = "服务端重传了 SYN-ACK",
		.explain_en = "The server sent its SYN-ACK again because it did not get (or did not "
			      "accept) the client's ACK. The handshake finished late or not at all.",
		.explain_zh = "服务端再次发送 SYN-ACK，因为它没有收到（或没有接受）客户端的 ACK。"
			      "握手完成被推迟，或根本没有完成。",
		S("net.core.somaxconn", "listen() backlog", "accept loop",
		  "firewall dropping SYN/SYN-ACK", "TCP_DEFER_ACCEPT",
		  "net.ipv4.tcp_synack_retries"),
		AEN("The client's ACK was lost on the path", "The SYN-ACK was lost on its way to the client",
		    "The client gave up and never answered"),
		AZH("客户端的 ACK 在路径上丢失", "SYN-ACK 在发往客户端途中丢失", "客户端已放弃，没有应答"),
		C("TcpExtTCPSynRetrans", "TcpExtListenOverflows", "TcpExtTCPDeferAcceptDrop"),
	},
	{
		.id = "accept-queue-overflow",
		.category = PD_CAT_HANDSHAKE,
		.severity = PD_SEV_ERROR,
		.title_en = "Listener accept queue full: handshake ACK dropped",
		.title_zh = "监听端全连接队列已满：握手 ACK 被丢弃",
		.explain_en = "The client completed the handshake but the listener behaved as if it had "
			      "not: its SYN-ACK timer re-sent the SYN-ACK after the client's ACK had reached "
			      "it, it reset the connection right after the ACK, or (seen at the server) it "
			      "said nothing to the ACK and the data until it took a retransmission as new. "
			      "That is what Linux does when a listener's accept queue is full: the "
			      "application is not calling accept() fast enough, or the queue is too small "
			      "for the burst.",
		.explain_zh = "客户端已经完成握手，但监听端表现得好像没有完成：客户端的 ACK 到达之后，"
			      "它的 SYN-ACK 定时器仍重发 SYN-ACK；或紧接着 ACK 重置连接；或（在服务端抓包可见）"
			      "对 ACK 和数据一声不吭，直到把某次重传当作新数据接收。这正是 Linux 在监听套接字"
			      "全连接队列满时的行为：应用 accept() 不够快，或者队列相对突发太小。",
		S("net.core.somaxconn", "listen() backlog", "accept loop",
		  "net.ipv4.tcp_abort_on_overflow", "TCP_DEFER_ACCEPT"),
		AEN("The client's ACK was lost on the path (rare when it repeats across many clients)",
		    "A middlebox dropping the third packet of the handshake",
		    "TCP_DEFER_ACCEPT on the listener (nginx deferred) with a protocol where the server "
		    "speaks first"),
		AZH("客户端的 ACK 在路径上丢失（若多个客户端同时出现则不太可能）", "中间设备丢弃了握手的第三个报文",
		    "监听端开启了 TCP_DEFER_ACCEPT（nginx deferred），而协议是服务端先发言"),
		C("TcpExtListenOverflows", "TcpExtListenDrops", "TcpExtTCPDeferAcceptDrop"),
	},
	{
		.id = "syncookies",
		.category = PD_CAT_HANDSHAKE,
		.severity = PD_SEV_WARNING,
		.title_en = "SYN cookies in use: SYN-ACK lost its options",
		.title_zh = "启用了 SYN cookie：SYN-ACK 缺少选项",
		.explain_en = "This server normally answers with window scaling and SACK, but some SYN-ACKs "
			      "came without them although the client offered them. Linux does that when its "
			      "SYN queue overflows and it answers a SYN that carried no timestamp option with "
			      "a SYN cookie (to a SYN with timestamps a cookie keeps both options and cannot be "
			      "seen this way); those connections may be stuck with a 64 KiB window.",
		.explain_zh = "该服务器通常在 SYN-ACK 中带窗口扩大和 SACK 选项，但尽管客户端提供了这些选项，"
			      "部分 SYN-ACK 仍没有带。这是 Linux 在 SYN 队列溢出、用 SYN cookie 应答不带"
			      "时间戳选项的 SYN 时的表现（应答带时间戳的 SYN 时，cookie 会保留这两个选项，"
			      "因此无法这样看出）；这些连接的窗口可能被限制在 64 KiB。",
		S("listen() backlog", "net.core.somaxconn", "net.ipv4.tcp_syncookies",
		  "net.ipv4.tcp_timestamps"),
		AEN("A SYN flood toward the service", "Several servers behind one address with different settings"),
		AZH("针对该服务的 SYN 洪泛", "同一地址后面有多台配置不同的服务器"),
		C("TcpExtSyncookiesSent", "TcpExtSyncookiesRecv", "TcpExtSyncookiesFailed",
		  "TcpExtTCPReqQFullDoCookies"),
	},
	{
		.id = "listener-overload",
		.category = PD_CAT_HANDSHAKE,
		.severity = PD_SEV_ERROR,
		.title_en = "Many clients' SYNs retransmitted at once toward one service",
		.title_zh = "大量客户端同时向同一服务重传 SYN",
		.explain_en = "SYN retransmissions from many different clients cluster in the same seconds "
			      "toward the same server port. Path loss rarely hits everyone at once; a "
			      "listener whose queues are full, or a full connection-tracking table, does.",
		.explain_zh = "来自许多不同客户端、发往同一服务端口的 SYN 重传集中在同一时间段。"
			      "路径丢包很少同时影响所有人；而监听队列满或连接跟踪表满会。",
		S("net.core.somaxconn", "listen() backlog", "accept loop",
		  "net.ipv4.tcp_max_syn_backlog", "net.netfilter.nf_conntrack_max",
		  "firewall dropping SYN/SYN-ACK"),
		AEN("Congestion on a link shared by all the clients", "A load balancer or firewall rate limit"),
		AZH("所有客户端共用的链路拥塞", "负载均衡或防火墙的速率限制"),
		C("TcpExtListenOverflows", "TcpExtListenDrops", "TcpExtTCPReqQFullDrop",
		  "TcpExtTCPReqQFullDoCookies", "TcpExtTCPSynRetrans"),
	},
	{
		.id = "syn-flood",
		.category = PD_CAT_HANDSHAKE,
		.severity = PD_SEV_ERROR,
		.title_en = "Many half-open connections from many sources",
		.title_zh = "来自大量源地址的半连接",
		.explain_en = "Many sources sent SYNs that were answered but never completed. That fills "
			      "the listener's SYN queue and looks like a SYN flood (or a scan).",
		.explain_zh = "大量源地址发送 SYN，服务端应答后握手从未完成。这会填满监听端的 SYN 队列，"
			      "看起来像 SYN 洪泛（或扫描）。",
		S("net.ipv4.tcp_syncookies", "listen() backlog", "net.core.somaxconn",
		  "net.ipv4.tcp_max_syn_backlog", "net.ipv4.tcp_synack_retries",
		  "firewall dropping SYN/SYN-ACK"),
		AEN("Clients whose return path is broken (SYN-ACKs never reach them)",
		    "A load-balancer health check that only half-opens connections"),
		AZH("客户端回程路径故障（SYN-ACK 无法到达）", "只做半开连接的负载均衡健康检查"),
		C("TcpExtTCPReqQFullDoCookies", "TcpExtSyncookiesSent", "TcpExtTCPReqQFullDrop",
		  "TcpExtListenDrops", "TcpExtTCPSynRetrans"),
	},
	{
		.id = "state-table-full",
		.category = PD_CAT_HANDSHAKE,
		.severity = PD_SEV_ERROR,
		.title_en = "New connections dropped while open ones work: a state table is full",
		.title_zh = "新连接被丢弃而已有连接正常：状态表已满",
		.explain_en = "From one moment on no new connection got through from any of several clients: "
			      "their SYNs got no SYN-ACK, no RST and no ICMP error, while the connections "
			      "already open kept exchanging data both ways. Something every new connection "
			      "passes through and that counts connections was full: a connection-tracking "
			      "table (nf_conntrack_max, on a router, a firewall or the server itself), a "
			      "firewall's connection limit, a NAT gateway's or a load balancer's. It drops "
			      "the first packet of each new flow and lets the known ones pass.",
		.explain_zh = "从某一刻起，多个客户端的新连接都无法建立：它们的 SYN 既没有 SYN-ACK，也没有 RST "
			      "或 ICMP 差错，而已经打开的连接仍在双向交换数据。每个新连接都要经过、并且会计数"
			      "连接的某个东西满了：连接跟踪表（nf_conntrack_max，在路由器、防火墙或服务端本机"
			      "上）、防火墙的连接数上限、NAT 网关或负载均衡的上限。它丢弃每个新流的首包，"
			      "放行已知的流。",
		S("net.netfilter.nf_conntrack_max", "firewall connection limit"),
		AEN("A firewall rule limiting connections (nft ct count, iptables connlimit), or one that "
		    "began to drop new connections",
		    "A cloud NAT gateway out of ports or connections for this destination",
		    "A load balancer at its connection limit",
		    "One listener that stopped accepting (only if a single server endpoint failed)"),
		AZH("限制连接数的防火墙规则（nft ct count、iptables connlimit），或开始丢弃新连接的规则",
		    "云 NAT 网关针对该目的地的端口或连接数用完", "负载均衡达到连接数上限",
		    "某个不再 accept 的监听端（仅当只有一个服务端端点失败时）"),
	},
	{
		.id = "syn-rejected-icmp",
		.category = PD_CAT_HANDSHAKE,
		.severity = PD_SEV_ERROR,
		.title_en = "Connection rejected on the way: SYN answered by ICMP unreachable",
		.title_zh = "连接在途中被拒绝：SYN 收到 ICMP 不可达",
		.explain_en = "The client's SYN was answered neither by a SYN-ACK nor by a RST but by an ICMP "
			      "destination-unreachable error (such as 'communication administratively "
			      "prohibited') from a firewall or router on the way, whose address the ICMP "
			      "carries. The server never saw the SYN. The application sees connect() fail at "
			      "once ('No route to host', 'Permission denied'), or, if its TCP ignores the ICMP, "
			      "a connect timeout.",
		.explain_zh = "客户端的 SYN 既没有收到 SYN-ACK，也没有收到 RST，而是收到了途中某台防火墙或路由器"
			      "发来的 ICMP 目的不可达差错（例如“管理性禁止通信”），ICMP 的源地址就是这台设备。"
			      "服务端根本没有收到 SYN。应用看到的是 connect() 立即失败（'No route to host'、"
			      "'Permission denied'），如果它的 TCP 忽略了这个 ICMP，则是连接超时。",
		S("firewall rejecting connections"),
		AEN("A router with no route to the server, or whose ARP / neighbour lookup for it failed "
		    "(net or host unreachable codes)",
		    "The server host's own firewall (the ICMP then comes from the server's address)",
		    "A cloud security group or network ACL configured to reject"),
		AZH("路由器没有到服务端的路由，或对它的 ARP / 邻居解析失败（网络或主机不可达代码）",
		    "服务端主机自己的防火墙（此时 ICMP 来自服务端的地址）", "配置为拒绝的云安全组或网络 ACL"),
		C("IcmpInDestUnreachs", "Icmp6InDestUnreachs", "TcpAttemptFails", "IcmpOutDestUnreachs"),
	},
	/* ================= timestamps ================= */
	{
		.id = "paws-rejected-syn",
		.category = PD_CAT_TIMESTAMPS,
		.severity = PD_SEV_ERROR,
		.title_en = "SYN rejected: 4-tuple reused during TIME_WAIT with an older timestamp",
		.title_zh = "SYN 被拒绝：TIME_WAIT 期间复用四元组且时间戳更旧",
		.explain_en = "A new connection reused the same addresses and ports as one closed less "
			      "than 60 s before, and its TCP timestamp was lower than the old one. The "
			      "server still held the old connection in TIME_WAIT and answered with an ACK "
			      "for it (or a RST) instead of a SYN-ACK, so the client had to retry.",
		.explain_zh = "新连接复用了 60 秒内刚关闭连接的地址和端口，且 TCP 时间戳比旧连接小。"
			      "服务端仍把旧连接保存在 TIME_WAIT 中，于是回复了旧连接的 ACK（或 RST）"
			      "而不是 SYN-ACK，客户端只好重试。",
		S("connection pooling / keep-alive", "net.ipv4.ip_local_port_range",
		  "NAT source-port reuse", "net.ipv4.tcp_timestamps", "net.ipv4.tcp_rfc1337",
		  "bind() before connect()"),
		AEN("Several hosts behind one NAT address sharing the server's view of a 4-tuple",
		    "A client whose timestamp clock jumped backwards (reboot, VM migration)"),
		AZH("同一 NAT 地址后的多台主机在服务端看来共用同一四元组", "客户端时间戳时钟回退（重启、虚拟机迁移）"),
		C("TcpExtPAWSTimewait", "TcpExtPAWSEstab"),
	},
	{
		.id = "syn-rejected-existing-state",
		.category = PD_CAT_TIMESTAMPS,
		.severity = PD_SEV_WARNING,
		.title_en = "SYN rejected: the reused 4-tuple still had state on the server or a middlebox",
		.title_zh = "SYN 被拒绝：复用的四元组在服务端或中间设备上仍有旧状态",
		.explain_en = "A new connection used the same addresses and ports as an earlier one that the "
			      "server (or a stateful middlebox) still remembered: in TIME_WAIT after the server "
			      "closed first, or still open. Instead of a SYN-ACK it answered with an ACK for the "
			      "old connection (a challenge ACK); the client reset it and had to retry. Without "
			      "TCP timestamps a TIME_WAIT socket accepts a reused 4-tuple only when the new "
			      "initial sequence number is above the old connection's; this is not a PAWS "
			      "(timestamp) rejection.",
		.explain_zh = "新连接使用了与先前某个连接相同的地址和端口，而服务端（或有状态的中间设备）仍记着"
			      "那个旧连接：服务端先关闭后处于 TIME_WAIT，或者旧连接仍然打开。它没有回 SYN-ACK，"
			      "而是回了旧连接的 ACK（挑战 ACK）；客户端将其重置后只好重试。没有 TCP 时间戳时，"
			      "TIME_WAIT 套接字只在新的初始序列号大于旧连接的序列号时才接受复用的四元组；"
			      "这不是 PAWS（时间戳）拒绝。",
		S("connection pooling / keep-alive", "bind() before connect()", "NAT source-port reuse",
		  "net.ipv4.tcp_timestamps", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_rfc1337"),
		AEN("The server's old connection is still open (the client restarted, or a NAT gave the port "
		    "to another host)",
		    "A load balancer or firewall holding state for the old connection answers for the server",
		    "A middlebox rewriting sequence numbers, so the new SYN looks older than the old connection"),
		AZH("服务端的旧连接仍然打开（客户端重启过，或 NAT 把端口分配给了另一台主机）",
		    "保存着旧连接状态的负载均衡或防火墙代替服务端作了应答",
		    "中间设备改写了序列号，使新的 SYN 看起来比旧连接更旧"),
		C("TcpExtTCPSYNChallenge"),
	},
	{
		.id = "nat-timestamp-clocks",
		.category = PD_CAT_TIMESTAMPS,
		.severity = PD_SEV_WARNING,
		.title_en = "Several timestamp clocks behind one source address",
		.title_zh = "同一源地址后面存在多个时间戳时钟",
		.explain_en = "Connections from one IP address carry TCP timestamps from unrelated clocks: "
			      "several hosts share that address (NAT, proxy, load balancer). Servers that "
			      "compare timestamps per IP (tcp_tw_recycle, kernels before 4.12) drop some of "
			      "their SYNs, and reused 4-tuples can fail PAWS.",
		.explain_zh = "来自同一 IP 的连接携带互不相关的时钟产生的 TCP 时间戳：多台主机共用该地址"
			      "（NAT、代理、负载均衡）。按 IP 比较时间戳的服务器（tcp_tw_recycle，4.12 之前的"
			      "内核）会丢弃其中一部分 SYN，复用的四元组也可能无法通过 PAWS 检查。",
		S("NAT source-port reuse", "net.ipv4.tcp_tw_recycle", "net.ipv4.tcp_timestamps"),
		AEN("Per-connection timestamp offsets from one host (harmless unless SYNs fail)"),
		AZH("同一主机的每连接时间戳偏移（除非 SYN 失败，否则无害）"),
		C("TcpExtPAWSTimewait", "TcpExtPAWSEstab"),
	},
	{
		.id = "rst-closed-port",
		.category = PD_CAT_TIMESTAMPS,
		.severity = PD_SEV_INFO,
		.title_en = "SYN answered by RST: nothing listening",
		.title_zh = "SYN 被 RST 应答：端口无监听",
		.explain_en = "The server answered the SYN with a reset: no process was listening on that "
			      "address and port, or a firewall or middlebox refused the connection for it. "
			      "A full queue does not do this: Linux drops such SYNs.",
		.explain_zh = "服务端用 RST 应答 SYN：该地址和端口没有进程监听，或防火墙、中间设备代为拒绝了"
			      "连接。队列满不会这样：Linux 会直接丢弃这些 SYN。",
		S("listen address and port", "firewall rejecting connections"),
		AEN("The service was restarting", "A firewall configured to reject with TCP reset",
		    "A load balancer or proxy rejecting because its backend is down"),
		AZH("服务正在重启", "配置为以 TCP RST 拒绝的防火墙", "负载均衡或代理因后端不可用而拒绝连接"),
		C("TcpOutRsts", "TcpAttemptFails"),
	},
	{
		.id = "paws-rejected-data",
		.category = PD_CAT_TIMESTAMPS,
		.severity = PD_SEV_ERROR,
		.title_en = "Data dropped by PAWS: timestamps older than the last accepted",
		.title_zh = "数据被 PAWS 丢弃：时间戳比上次接受的更旧",
		.explain_en = "Inside an established connection, segments reached the receiver with a TCP "
			      "timestamp (TSval) older than the last one it had accepted from that side. Its "
			      "PAWS check (RFC 7323) throws such segments away and answers each with a "
			      "duplicate ACK, so the data is never acknowledged: the sender retransmits into "
			      "what looks like a stalled connection until it gives up. Seen when two hosts "
			      "behind one NAT or load balancer share a 4-tuple, when a middlebox rewrites or "
			      "strips timestamps in the middle of a connection, and after a jump of the "
			      "sender's timestamp clock.",
		.explain_zh = "在已建立的连接中，报文到达接收端时携带的 TCP 时间戳（TSval）比它此前从该方接受的"
			      "最后一个更旧。接收端的 PAWS 检查（RFC 7323）会丢弃这些报文，并对每个报文回一个重复 "
			      "ACK，于是数据始终得不到确认：发送端不断重传，连接看起来像卡住了，直到发送端放弃。"
			      "常见于同一 NAT 或负载均衡后的两台主机共用一个四元组、中间设备在连接中途改写或去掉"
			      "时间戳，以及发送端时间戳时钟跳变之后。",
		S("net.ipv4.tcp_timestamps", "middlebox rewriting TCP timestamps", "NAT source-port reuse"),
		AEN("A receiver that drops the data for lack of buffer space (then its duplicate ACKs echo "
		    "the segment's own timestamp and it counts TcpExtTCPRcvQDrop)",
		    "A sender whose timestamp clock went backwards (VM migration, a restored snapshot)",
		    "Plain loss with SACK off: the duplicate ACKs that later segments draw echo the last "
		    "in-order timestamp, older than the lost segment's, and carry no SACK block either "
		    "(then TcpExtPAWSEstab stays at 0)"),
		AZH("接收端因缓冲区不足而丢弃数据（此时其重复 ACK 回显的是该报文自己的时间戳，并计入 "
		    "TcpExtTCPRcvQDrop）",
		    "发送端的时间戳时钟回退（虚拟机迁移、从快照恢复）",
		    "SACK 未启用时的普通丢包：后续报文引出的重复 ACK 回显的是最后一个按序到达报文的时间戳，"
		    "比丢失报文的更旧，同样不带 SACK 块（此时 TcpExtPAWSEstab 保持为 0）"),
		C("TcpExtPAWSEstab", "TcpRetransSegs", "TcpExtTCPTimeouts"),
	},
	/* ================= connection churn ================= */
	{
		.id = "connection-churn",
		.category = PD_CAT_CONNECTION_CHURN,
		.severity = PD_SEV_WARNING,
		.title_en = "Many short connections, one request each",
		.title_zh = "大量短连接，每个连接只有一次请求",
		.explain_en = "The client opens a new connection for each request and closes it right "
			      "after. Each pays a handshake round trip, leaves a TIME_WAIT socket for 60 s "
			      "on the side that closes first and uses an ephemeral port; at high rates ports "
			      "and accept queues run out.",
		.explain_zh = "客户端每个请求都新建连接并立即关闭。每次都要付出一次握手往返，"
			      "在先关闭的一方留下一个持续 60 秒的 TIME_WAIT 套接字，并占用一个临时端口；"
			      "速率高时会耗尽端口和全连接队列。",
		S("connection pooling / keep-alive", "net.ipv4.ip_local_port_range",
		  "net.ipv4.tcp_tw_reuse", "net.ipv4.tcp_max_tw_buckets"),
		AEN("A protocol or client library without keep-alive support", "Health checks or monitoring probes"),
		AZH("协议或客户端库不支持长连接", "健康检查或监控探测"),
		C("TcpActiveOpens", "TcpPassiveOpens", "TcpExtTCPTimeWaitOverflow",
		  "TcpExtTWRecycled"),
	},
	{
		.id = "port-reuse-timewait",
		.category = PD_CAT_CONNECTION_CHURN,
		.severity = PD_SEV_WARNING,
		.title_en = "4-tuple reused within 60 s (TIME_WAIT)",
		.title_zh = "60 秒内复用了同一四元组（TIME_WAIT）",
		.explain_en = "A connection used the same addresses and ports as one that closed less than "
			      "60 s earlier, while that one could still be in TIME_WAIT. It works only if "
			      "the new SYN's sequence number or timestamp is newer; otherwise the SYN is "
			      "rejected.",
		.explain_zh = "新连接使用了 60 秒内刚关闭连接的地址和端口，而旧连接可能仍处于 TIME_WAIT。"
			      "只有新 SYN 的序列号或时间戳更新时才能成功，否则 SYN 会被拒绝。",
		S("net.ipv4.ip_local_port_range", "connection pooling / keep-alive",
		  "net.ipv4.tcp_tw_reuse", "NAT source-port reuse", "bind() before connect()",
		  "net.ipv4.tcp_rfc1337"),
		AEN("A NAT or load balancer mapping many clients onto few source ports",
		    "A client that binds a fixed source port"),
		AZH("NAT 或负载均衡把大量客户端映射到少量源端口", "客户端绑定了固定源端口"),
		C("TcpExtTWRecycled", "TcpExtPAWSTimewait", "TcpExtPAWSEstab"),
	},
	{
		.id = "ephemeral-port-pressure",
		.category = PD_CAT_CONNECTION_CHURN,
		.severity = PD_SEV_WARNING,
		.title_en = "Source ports close to the ephemeral range size",
		.title_zh = "源端口数量接近临时端口范围上限",
		.explain_en = "One client used nearly as many distinct source ports toward one destination "
			      "as the default ephemeral range holds. New connections soon fail with "
			      "EADDRNOTAVAIL or reuse ports still in TIME_WAIT.",
		.explain_zh = "单个客户端访问同一目的地使用的不同源端口数接近默认临时端口范围的大小。"
			      "新连接很快会以 EADDRNOTAVAIL 失败，或复用仍处于 TIME_WAIT 的端口。",
		S("net.ipv4.ip_local_port_range", "connection pooling / keep-alive",
		  "net.ipv4.tcp_tw_reuse", "NAT source-port reuse", "bind() before connect()"),
		AEN("A NAT address shared by many clients"),
		AZH("多个客户端共享同一个 NAT 地址"),
		C("TcpExtTWRecycled", "TcpActiveOpens"),
	},
	/* ================= Nagle / delayed ACK ================= */
	{
		.id = "nagle-delayed-ack",
		.category = PD_CAT_NAGLE_DELAYED_ACK,
		.severity = PD_SEV_WARNING,
		.title_en = "Nagle and delayed ACK stall each request",
		.title_zh = "Nagle 算法与延迟确认导致每个请求停顿",
		.explain_en = "The sender held back a small segment until the previous one was "
			      "acknowledged (Nagle), and the receiver delayed that ACK (about 40 ms on "
			      "Linux, 200 ms on Windows). The pattern repeats, so each request waits one "
			      "delayed-ACK timer for nothing.",
		.explain_zh = "发送端在前一个小报文被确认前扣住下一个小报文（Nagle 算法），"
			      "而接收端延迟发送这个 ACK（Linux 约 40 毫秒，Windows 200 毫秒）。"
			      "这一模式反复出现，每个请求都白白等待一次延迟确认定时器。",
		S("TCP_NODELAY", "writev coalescing", "TCP_CORK", "MSG_MORE", "TCP_QUICKACK",
		  "route quickack"),
		AEN("The application itself pausing between writes (think time)",
		    "A peer that really is slow to respond"),
		AZH("应用自身在两次写之间停顿（处理时间）", "对端确实响应缓慢"),
		C("TcpExtDelayedACKs"),
	},
	{
		.id = "cork-timer-delay",
		.category = PD_CAT_NAGLE_DELAYED_ACK,
		.severity = PD_SEV_WARNING,
		.title_en = "TCP_CORK holds the end of each response about 200 ms",
		.title_zh = "TCP_CORK 把每个响应的结尾扣住约 200 毫秒",
		.explain_en = "The sender's socket has TCP_CORK set (or writes with MSG_MORE) and the "
			      "application never clears it: each response's last partial segment waits "
			      "until the kernel sends it anyway, when the zero-window-probe timer fires "
			      "(the larger of the RTO and 200 ms, about 200 ms plus the RTT on Linux). Every "
			      "reply then leaves that fixed time after its request, whatever its size, while "
			      "the full-sized part of a large reply leaves at once.",
		.explain_zh = "发送端的套接字设置了 TCP_CORK（或用 MSG_MORE 写入），而应用始终没有清除它："
			      "每个响应最后一个不满的报文段都要等内核自行发出，即零窗口探测定时器触发时（取 RTO "
			      "与 200 毫秒中的较大者，在 Linux 上约为 200 毫秒加 RTT）。于是每个应答都在请求之后"
			      "固定的时间才发出，与大小无关，而大响应中满 MSS 的部分会立即发出。",
		S("TCP_CORK", "MSG_MORE"),
		AEN("An application that sleeps a fixed 200 ms before each answer (only responses "
		    "smaller than one segment cannot tell it from a cork)"),
		AZH("应用在每次应答前固定休眠 200 毫秒（只有小于一个报文段的响应时无法与 cork 区分）"),
		C("TcpExtTCPWinProbe"),
	},
	/* ================= window ================= */
	{
		.id = "zero-window",
		.category = PD_CAT_WINDOW,
		.severity = PD_SEV_WARNING,
		.title_en = "Receiver advertised a zero window",
		.title_zh = "接收端通告了零窗口",
		.explain_en = "The receiver's buffer was full: it told the sender to stop, and the sender "
			      "waited (sending window probes) until the application read data and the "
			      "window opened again.",
		.explain_zh = "接收端缓冲区已满：它通知发送端停止发送，发送端只能等待（发送窗口探测），"
			      "直到应用读走数据、窗口重新打开。",
		S("slow-reading application", "SO_RCVBUF", "net.ipv4.tcp_rmem", "net.core.rmem_max",
		  "net.ipv4.tcp_mem"),
		AEN("The receiving host was overloaded (CPU, memory pressure)"),
		AZH("接收主机过载（CPU、内存压力）"),
		C("TcpExtTCPToZeroWindowAdv", "TcpExtTCPFromZeroWindowAdv",
		  "TcpExtTCPZeroWindowDrop", "TcpExtTCPWinProbe"),
	},
	{
		.id = "window-limited",
		.category = PD_CAT_WINDOW,
		.severity = PD_SEV_WARNING,
		.title_en = "Transfer limited by the receive window",
		.title_zh = "传输受接收窗口限制",
		.explain_en = "Much of the time the data in flight equalled the receiver's advertised "
			      "window: the sender could have sent more but the window did not allow it. "
			      "Throughput is capped at window / RTT.",
		.explain_zh = "大部分时间在途数据量等于接收端通告的窗口：发送端本可以发更多，但窗口不允许。"
			      "吞吐量上限为 窗口 / RTT。",
		S("net.ipv4.tcp_rmem", "SO_RCVBUF", "net.core.rmem_max",
		  "net.ipv4.tcp_window_scaling", "net.ipv4.tcp_moderate_rcvbuf",
		  "slow-reading application", "net.ipv4.tcp_mem"),
		AEN("The receiving application reads slowly", "A middlebox rewriting the window"),
		AZH("接收端应用读取缓慢", "中间设备改写了窗口"),
		C("TcpExtTCPMemoryPressures", "TcpExtPruneCalled"),
	},
	{
		.id = "window-scaling-disabled",
		.category = PD_CAT_WINDOW,
		.severity = PD_SEV_WARNING,
		.title_en = "Window scaling not negotiated: window capped at 64 KiB",
		.title_zh = "未协商窗口扩大：窗口上限 64 KiB",
		.explain_en = "At least one side's SYN had no window-scale option, so neither side can "
			      "advertise more than 65535 bytes. On long-RTT paths that caps throughput "
			      "far below the link speed.",
		.explain_zh = "至少一方的 SYN 中没有窗口扩大选项，双方的通告窗口都不能超过 65535 字节。"
			      "在长 RTT 路径上，吞吐量会被限制得远低于链路速率。",
		S("net.ipv4.tcp_window_scaling", "net.ipv4.tcp_syncookies",
		  "net.ipv4.tcp_timestamps"),
		AEN("A middlebox that strips TCP options", "A SYN cookie answer without timestamps"),
		AZH("中间设备剥离了 TCP 选项", "不带时间戳的 SYN cookie 应答"),
		C("TcpExtSyncookiesSent"),
	},
	{
		.id = "receive-window-fixed",
		.category = PD_CAT_WINDOW,
		.severity = PD_SEV_INFO,
		.title_en = "Receive window never grew",
		.title_zh = "接收窗口始终没有增长",
		.explain_en = "During a long transfer the receiver kept advertising the same window instead "
			      "of growing it. That is typical of an application that fixed its buffer with "
			      "SO_RCVBUF, which switches autotuning off, or of autotuning with no room to "
			      "grow (a net.ipv4.tcp_rmem maximum no larger than its default). The window "
			      "scale in the receiver's SYN tells them apart: Linux derives it from a buffer "
			      "locked before the handshake, so only a locked buffer gives a scale as small "
			      "as the window.",
		.explain_zh = "在较长的传输过程中，接收端一直通告相同的窗口而没有增长。"
			      "这通常是应用用 SO_RCVBUF 固定了缓冲区，从而关闭了自动调节；也可能是自动调节"
			      "没有增长空间（net.ipv4.tcp_rmem 的最大值不大于其默认值）。接收端 SYN 中的窗口扩大"
			      "因子可以区分两者：Linux 根据握手前锁定的缓冲区计算它，所以只有锁定的缓冲区才会给出"
			      "与窗口一样小的扩大因子。",
		S("SO_RCVBUF", "net.ipv4.tcp_moderate_rcvbuf", "net.ipv4.tcp_rmem",
		  "net.core.rmem_max"),
		AEN("The transfer was too short for autotuning to act", "A middlebox clamping the window"),
		AZH("传输太短，自动调节来不及生效", "中间设备钳制了窗口"),
	},
	{
		.id = "sender-limited",
		.category = PD_CAT_WINDOW,
		.severity = PD_SEV_INFO,
		.title_en = "Sender held back by its send buffer",
		.title_zh = "发送端受发送缓冲区限制",
		.explain_en = "The sender kept the same amount of data in flight round trip after round "
			      "trip although the receiver's window had room and nothing was lost, and it "
			      "sent again as soon as an ACK freed space: it had data waiting, but its send "
			      "buffer was full. A congestion window would have grown. A sender that pauses "
			      "between writes is the application, not a buffer, and is not reported here.",
		.explain_zh = "接收窗口还有空间、也没有丢包，发送端的在途数据却一个往返接一个往返地停在同一"
			      "数值，而且 ACK 一释放空间它就立即继续发送：它有数据在等待，但发送缓冲区已满。"
			      "如果是拥塞窗口，它本会增长。两次写之间停顿的发送端是应用本身的原因，"
			      "与缓冲区无关，不在此报告。",
		S("SO_SNDBUF", "net.ipv4.tcp_wmem", "net.core.wmem_max", "TCP_NOTSENT_LOWAT",
		  "net.ipv4.tcp_notsent_lowat", "pacing (fq, SO_MAX_PACING_RATE)"),
		AEN("A congestion control that holds its window flat (BBR's window cap)",
		    "An application that writes exactly one buffer's worth per round trip"),
		AZH("拥塞控制算法让拥塞窗口保持不变（BBR 的窗口上限）", "应用每个往返恰好只写入一个缓冲区的数据量"),
	},
	/* ================= loss ================= */
	{
		.id = "retransmissions",
		.category = PD_CAT_LOSS,
		.severity = PD_SEV_WARNING,
		.title_en = "Data segments retransmitted",
		.title_zh = "数据报文被重传",
		.explain_en = "The sender had to send some data again because it was lost or its "
			      "acknowledgement did not arrive. Each loss costs at least a round trip, and "
			      "the sender slows down.",
		.explain_zh = "由于数据丢失或确认未到，发送端不得不重发部分数据。"
			      "每次丢包至少损失一个往返，并且发送端会降速。",
		S("net.ipv4.tcp_congestion_control", "qdisc limit", "net.core.netdev_max_backlog",
		  "NIC ring buffers", "local netfilter drops", "net.ipv4.tcp_sack",
		  "shaper queue size"),
		AEN("Congestion on the path", "A faulty link or cable (errors on an interface)",
		    "Policers or shapers on the path"),
		AZH("路径拥塞", "故障链路或线缆（接口有错误计数）", "路径上的限速或整形设备"),
		C("TcpRetransSegs", "TcpExtTCPFastRetrans", "TcpExtTCPLostRetransmit",
		  "TcpExtTCPRcvQDrop", "TcpExtTCPBacklogDrop"),
	},
	{
		.id = "rto-timeouts",
		.category = PD_CAT_LOSS,
		.severity = PD_SEV_WARNING,
		.title_en = "Retransmission timeouts (RTO)",
		.title_zh = "重传超时（RTO）",
		.explain_en = "Lost data was resent only after the retransmission timer expired (at least "
			      "200 ms on Linux unless lowered with tcp_rto_min_us or a route's rto_min, "
			      "doubling on each repeat), not by fast retransmit. The connection stood still "
			      "for that time.",
		.explain_zh = "丢失的数据要等重传定时器超时后才重发（Linux 最少 200 毫秒，除非用 "
			      "tcp_rto_min_us 或路由的 rto_min 调低；每次翻倍），而不是快速重传。"
			      "在这段时间里连接完全停顿。",
		S("net.ipv4.tcp_early_retrans", "net.ipv4.tcp_recovery", "net.ipv4.tcp_sack",
		  "net.ipv4.tcp_retries2", "net.ipv4.tcp_rto_min_us", "route rto_min",
		  "TCP_USER_TIMEOUT"),
		AEN("Loss of the last segments of a burst (nothing after them to trigger duplicate ACKs)",
		    "A path black hole for large packets", "Heavy loss or an outage"),
		AZH("突发末尾报文丢失（之后没有报文触发重复确认）", "路径对大包形成黑洞", "严重丢包或中断"),
		C("TcpExtTCPTimeouts", "TcpExtTCPAbortOnTimeout", "TcpExtTCPSpuriousRTOs"),
	},
	{
		.id = "spurious-retransmissions",
		.category = PD_CAT_LOSS,
		.severity = PD_SEV_INFO,
		.title_en = "Retransmissions of data the receiver already had",
		.title_zh = "重传了接收端已收到的数据",
		.explain_en = "Data was sent again although the receiver had already acknowledged it, or "
			      "its ACK was on the way: the sender's timer fired too early or the ACKs were "
			      "delayed or lost.",
		.explain_zh = "数据被重发，但接收端已经确认过或确认正在途中：发送端定时器过早触发，"
			      "或者 ACK 被延迟或丢失。",
		S("net.ipv4.tcp_early_retrans", "net.ipv4.tcp_recovery", "net.ipv4.tcp_sack",
		  "net.ipv4.tcp_frto", "net.ipv4.tcp_rto_min_us", "route rto_min"),
		AEN("Reordering on the path", "A sudden RTT increase (queueing)", "ACK loss in the reverse direction"),
		AZH("路径上乱序", "RTT 突然增大（排队）", "反向 ACK 丢失"),
		C("TcpExtTCPSpuriousRTOs", "TcpExtTCPDSACKRecv", "TcpExtTCPDSACKUndo"),
	},
	{
		.id = "local-drop",
		.category = PD_CAT_LOSS,
		.severity = PD_SEV_WARNING,
		.title_en = "Retransmission of a segment that never left the sender",
		.title_zh = "重传的报文原本从未离开发送端",
		.explain_en = "On this sender-side capture, a retransmission appeared whose original was "
			      "never seen. The capture tap sees a packet when it is handed to the driver, "
			      "after the qdisc, so the first copy was dropped inside the sending host before "
			      "that point: by the qdisc, in the neighbour queue, or (seen from the host side "
			      "of a container's veth) in the per-CPU backlog. A full NIC ring drops after "
			      "the tap and would show the original.",
		.explain_zh = "在这份发送端抓包中，出现了重传报文，但原始报文从未出现过。"
			      "抓包点在报文交给网卡驱动时（qdisc 之后）看到它，所以第一份是在到达这一点之前"
			      "就在发送主机内部被丢弃的：被 qdisc 丢弃、在邻居（ARP）队列中丢弃，或者"
			      "（在容器 veth 的宿主机一侧抓包时）在每 CPU 的 backlog 队列中丢弃。"
			      "网卡环形缓冲满时的丢包发生在抓包点之后，抓包中会有原始报文。",
		S("qdisc limit", "net.core.default_qdisc", "qdisc choice", "shaper queue size",
		  "net.core.netdev_max_backlog", "net.ipv4.neigh.default.unres_qlen_bytes",
		  "capture buffer"),
		AEN("The capture itself dropped the original (check the capture's drop count)",
		    "The capture was not taken on the sender"),
		AZH("抓包本身丢失了原始报文（检查抓包丢包计数）", "抓包点并不在发送端"),
	},
	{
		.id = "tail-loss",
		.category = PD_CAT_LOSS,
		.severity = PD_SEV_INFO,
		.title_en = "Loss at the end of a burst",
		.title_zh = "突发末尾丢包",
		.explain_en = "The last segments of a response were lost; with nothing after them to "
			      "trigger duplicate ACKs, recovery waited for a probe or a timeout.",
		.explain_zh = "响应的最后几个报文丢失；由于之后没有报文触发重复确认，"
			      "只能等待探测报文或超时才能恢复。",
		S("net.ipv4.tcp_early_retrans", "net.ipv4.tcp_recovery"),
		AEN("Congestion or a policer at the end of bursts"),
		AZH("突发末尾遇到拥塞或限速"),
		C("TcpExtTCPLossProbes", "TcpExtTCPLossProbeRecovery"),
	},
	{
		.id = "slow-start-after-idle",
		.category = PD_CAT_LOSS,
		.severity = PD_SEV_INFO,
		.title_en = "Sending restarted slowly after idle",
		.title_zh = "空闲后重新慢启动",
		.explain_en = "After the connection sat idle, the sender started again with a small burst "
			      "and needed several round trips to get back up to speed, although nothing "
			      "was lost.",
		.explain_zh = "连接空闲一段时间后，发送端以很小的突发重新开始，需要多个往返才能恢复速度，"
			      "尽管期间并没有丢包。",
		S("net.ipv4.tcp_slow_start_after_idle", "route initcwnd"),
		AEN("The application produced the response in pieces"),
		AZH("应用分多次产生响应数据"),
	},
	{
		.id = "queueing-delay",
		.category = PD_CAT_LOSS,
		.severity = PD_SEV_WARNING,
		.title_en = "Queueing delay: the RTT grew many-fold under load (bufferbloat)",
		.title_zh = "排队时延：负载下 RTT 成倍增长（缓冲区膨胀）",
		.explain_en = "While the transfer ran, the round-trip time rose to many times the path's "
			      "base RTT while the throughput stayed flat: the extra data in flight only "
			      "waited in a queue in front of the bottleneck (a router's or shaper's buffer, "
			      "or a host's qdisc). Every packet through that queue waits as long, other "
			      "connections' included: interactive traffic sharing the link sees the delay.",
		.explain_zh = "传输过程中往返时间涨到路径基础 RTT 的许多倍，吞吐量却没有增加：多出来的在途数据"
			      "只是在瓶颈前的队列里排队（路由器或整形器的缓冲区，或主机的 qdisc）。经过这个队列的"
			      "每个报文都要等这么久，其他连接的也一样：共用这条链路的交互式流量都会感到这段时延。",
		S("qdisc limit", "shaper queue size", "qdisc choice", "net.core.default_qdisc",
		  "byte queue limits (BQL)", "pacing (fq, SO_MAX_PACING_RATE)",
		  "net.ipv4.tcp_congestion_control"),
		AEN("Another flow filling the same queue (the delay is shared, the capture shows one flow)",
		    "A wireless or cellular link that buffers on its own (retries, scheduling)"),
		AZH("另一条流在填满同一个队列（时延是共享的，抓包只看到其中一条流）",
		    "自带缓冲的无线或蜂窝链路（重传、调度）"),
	},
	{
		.id = "ecn-congestion-marks",
		.category = PD_CAT_LOSS,
		.severity = PD_SEV_INFO,
		.title_en = "Congestion signalled with ECN marks instead of drops",
		.title_zh = "拥塞通过 ECN 标记而不是丢包来通知",
		.explain_en = "A hop on the path marked packets Congestion Experienced (CE) instead of "
			      "dropping them; the receiver echoed the mark (ECE) and the sender reduced its "
			      "congestion window (CWR), as after a loss but with nothing to retransmit. A "
			      "queue on the path is congested and manages itself with ECN (AQM).",
		.explain_zh = "路径上的某一跳把报文标记为“经历拥塞”（CE），而不是丢弃；接收端回显该标记"
			      "（ECE），发送端减小拥塞窗口（CWR），效果与丢包相同但无需重传。路径上有队列发生拥塞，"
			      "并用 ECN 进行管理（AQM）。",
		S("qdisc choice", "net.ipv4.tcp_ecn"),
		AEN("A DCTCP or L4S flow, for which marks are the normal signal"),
		AZH("DCTCP 或 L4S 流，对它们来说标记是正常的信号"),
		C("IpExtInCEPkts", "TcpExtTCPDeliveredCE"),
	},
	{
		.id = "initial-window",
		.category = PD_CAT_LOSS,
		.severity = PD_SEV_INFO,
		.title_en = "Short transfers limited by the initial window",
		.title_zh = "短传输受初始窗口限制",
		.explain_en = "The response was sent in several round trips because the first flight was "
			      "limited by the initial congestion window (or the receiver's initial window).",
		.explain_zh = "由于首轮发送受初始拥塞窗口（或接收端初始窗口）限制，响应需要多个往返才发完。",
		S("route initcwnd", "route initrwnd", "net.ipv4.tcp_rmem", "SO_RCVBUF",
		  "qdisc limit"),
		AEN("The application wrote the response in pieces"),
		AZH("应用分多次写出响应"),
	},
	{
		.id = "keepalive",
		.category = PD_CAT_LOSS,
		.severity = PD_SEV_INFO,
		.title_en = "TCP keepalive probes",
		.title_zh = "TCP 保活探测",
		.explain_en = "Keepalive probes were sent on an idle connection. Unanswered probes mean the "
			      "peer or a NAT/firewall state on the path is gone.",
		.explain_zh = "空闲连接上发送了保活探测。探测无应答说明对端或路径上 NAT/防火墙的状态已经消失。",
		S("net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_keepalive_intvl",
		  "net.ipv4.tcp_keepalive_probes", "SO_KEEPALIVE", "TCP_KEEPIDLE",
		  "net.netfilter.nf_conntrack_tcp_timeout_established", "TCP_USER_TIMEOUT"),
		AEN("A NAT or load balancer idle timeout shorter than the keepalive time"),
		AZH("NAT 或负载均衡的空闲超时比保活时间更短"),
		C("TcpExtTCPKeepAlive", "TcpExtTCPAbortOnTimeout"),
	},
	{
		.id = "tiny-writes",
		.category = PD_CAT_LOSS,
		.severity = PD_SEV_INFO,
		.title_en = "Many tiny segments",
		.title_zh = "大量极小报文",
		.explain_en = "The sender emitted many segments far smaller than the MSS: each application "
			      "write became its own packet, wasting headers, CPU and round trips.",
		.explain_zh = "发送端发出大量远小于 MSS 的报文：应用的每次写入都单独成包，"
			      "浪费报文头、CPU 和往返时间。",
		S("writev coalescing", "TCP_CORK", "MSG_MORE", "TCP_NODELAY",
		  "net.ipv4.tcp_autocorking"),
		AEN("An interactive protocol (keystrokes, small RPCs) where small segments are normal"),
		AZH("交互式协议（按键、小 RPC），小报文本属正常"),
		C("TcpExtTCPAutoCorking"),
	},
	/* ================= fragmentation / PMTU ================= */
	{
		.id = "ip-fragmentation",
		.category = PD_CAT_FRAGMENTATION_PMTU,
		.severity = PD_SEV_INFO,
		.title_en = "IP fragmentation",
		.title_zh = "IP 分片",
		.explain_en = "Datagrams larger than the MTU were split into IP fragments. One lost "
			      "fragment loses the whole datagram, and many firewalls drop fragments.",
		.explain_zh = "大于 MTU 的数据报被拆成 IP 分片。丢失任何一个分片都会丢掉整个数据报，"
			      "而且很多防火墙会丢弃分片。",
		S("application datagram size", "interface MTU", "net.ipv4.ip_no_pmtu_disc",
		  "net.ipv4.route.min_pmtu"),
		AEN("A tunnel with a smaller MTU on the path"),
		AZH("路径上存在 MTU 更小的隧道"),
		C("IpFragCreates", "IpReasmReqds", "IpReasmOKs"),
	},
	{
		.id = "fragment-reassembly-incomplete",
		.category = PD_CAT_FRAGMENTATION_PMTU,
		.severity = PD_SEV_WARNING,
		.title_en = "Fragmented datagrams never completed",
		.title_zh = "分片数据报未能重组完成",
		.explain_en = "Some fragments of a datagram were seen but not all of them: the receiver "
			      "cannot reassemble it and the whole datagram is lost.",
		.explain_zh = "只看到数据报的部分分片：接收端无法重组，整个数据报丢失。",
		S("firewall dropping fragments", "application datagram size", "net.ipv4.ipfrag_high_thresh",
		  "net.ipv4.ipfrag_time", "interface MTU"),
		AEN("A firewall that drops non-first fragments", "The capture missed them (capture drops)"),
		AZH("防火墙丢弃非首个分片", "抓包遗漏（抓包丢包）"),
		C("IpReasmFails", "IpReasmTimeout", "Ip6ReasmFails", "Ip6ReasmTimeout"),
	},
	{
		.id = "pmtu-frag-needed",
		.category = PD_CAT_FRAGMENTATION_PMTU,
		.severity = PD_SEV_INFO,
		.title_en = "Path MTU discovery at work",
		.title_zh = "路径 MTU 发现正常工作",
		.explain_en = "A router reported that a packet was too big for the next link (ICMP "
			      "fragmentation needed / Packet Too Big) and the sender then used smaller "
			      "packets. This is PMTU discovery working; it costs a retransmission.",
		.explain_zh = "路由器报告报文对下一跳链路过大（ICMP 需要分片 / Packet Too Big），"
			      "发送端随后改用更小的报文。这是 PMTU 发现在正常工作，代价是一次重传。",
		S("MSS clamping", "interface MTU"),
		AEN("A tunnel or VPN with encapsulation overhead on the path"),
		AZH("路径上存在带封装开销的隧道或 VPN"),
		C("IcmpInDestUnreachs", "Icmp6InPktTooBigs"),
	},
	{
		.id = "pmtu-not-adapted",
		.category = PD_CAT_FRAGMENTATION_PMTU,
		.severity = PD_SEV_WARNING,
		.title_en = "Sender ignored ICMP fragmentation-needed",
		.title_zh = "发送端忽略了 ICMP 需要分片消息",
		.explain_en = "The path reported a smaller MTU, but the sender kept sending packets that "
			      "were too large. The ICMP message probably never reached it (filtered on its "
			      "side) or was not believed.",
		.explain_zh = "路径已报告了更小的 MTU，但发送端仍在发送过大的报文。"
			      "ICMP 消息很可能没有到达发送端（在其一侧被过滤）或未被采信。",
		S("firewall dropping ICMP frag-needed", "MSS clamping", "net.ipv4.ip_no_pmtu_disc",
		  "net.ipv4.tcp_mtu_probing", "net.ipv4.route.min_pmtu"),
		AEN("The ICMP was rate limited by the router", "The capture point is between the router and a "
		    "filter that dropped the ICMP"),
		AZH("路由器对 ICMP 限速", "抓包点位于路由器与丢弃 ICMP 的过滤设备之间"),
		C("IcmpInDestUnreachs", "Icmp6InPktTooBigs"),
	},
	{
		.id = "pmtu-blackhole",
		.category = PD_CAT_FRAGMENTATION_PMTU,
		.severity = PD_SEV_ERROR,
		.title_en = "PMTU black hole: full-size segments never get through",
		.title_zh = "PMTU 黑洞：满尺寸报文始终无法通过",
		.explain_en = "Small packets got through but full-size segments were retransmitted again "
			      "and again with growing timeouts, and no ICMP came back. A link on the path "
			      "has a smaller MTU and its ICMP messages are filtered: the connection hangs "
			      "as soon as there is a lot to send.",
		.explain_zh = "小报文能通过，但满尺寸报文一再重传、超时越来越长，且没有任何 ICMP 返回。"
			      "路径上某段链路 MTU 更小且其 ICMP 消息被过滤：一旦要发送大量数据，连接就会卡住。",
		S("MSS clamping", "firewall dropping ICMP frag-needed", "net.ipv4.tcp_mtu_probing",
		  "interface MTU", "net.ipv4.tcp_base_mss"),
		AEN("Heavy loss of large packets only (a faulty link)", "A middlebox dropping large packets"),
		AZH("仅大包严重丢失（故障链路）", "中间设备丢弃大包"),
		C("TcpExtTCPMTUPFail", "TcpExtTCPMTUPSuccess", "TcpExtTCPTimeouts"),
	},
	{
		.id = "mss-exceeds-path",
		.category = PD_CAT_FRAGMENTATION_PMTU,
		.severity = PD_SEV_WARNING,
		.title_en = "Announced MSS larger than what gets through",
		.title_zh = "通告的 MSS 大于路径实际能通过的大小",
		.explain_en = "The MSS announced in the SYN is larger than the largest segment that got "
			      "through the path. The endpoints believe their local MTU; a smaller MTU in "
			      "between (tunnel, VPN) is not reflected in the MSS.",
		.explain_zh = "SYN 中通告的 MSS 大于实际通过路径的最大报文。两端相信的是本地 MTU；"
			      "中间更小的 MTU（隧道、VPN）没有反映到 MSS 中。",
		S("MSS clamping", "interface MTU", "net.ipv4.tcp_mtu_probing"),
		AEN("The sender never had that much data to send at once (no full-size segment needed)"),
		AZH("发送端从未一次有那么多数据要发（并不需要满尺寸报文）"),
		C("IcmpInDestUnreachs", "Icmp6InPktTooBigs"),
	},
	/* ================= resets, forgotten connections ================= */
	{
		.id = "reset-unread-data",
		.category = PD_CAT_RESETS,
		.severity = PD_SEV_WARNING,
		.title_en = "Connection reset: closed with unread data",
		.title_zh = "连接被复位：关闭时仍有未读数据",
		.explain_en = "One side closed its socket while data it had received and acknowledged was "
			      "still unread in its receive queue. Linux then throws that data away and sends a "
			      "RST instead of a FIN: the peer gets 'connection reset by peer' (ECONNRESET), may "
			      "lose the end of an answer it had not read yet, and each segment it still had in "
			      "flight draws another RST. Typical: a server that answers a request before it "
			      "has read the whole body, or closes with pipelined requests still queued.",
		.explain_zh = "一方在接收队列中仍有已接收、已确认但未读取的数据时关闭了套接字。Linux 会丢弃"
			      "这些数据并发送 RST 而不是 FIN：对端收到 “connection reset by peer”（ECONNRESET），"
			      "可能丢失尚未读取的应答结尾，它仍在途中的每个报文也会再招来一个 RST。典型场景："
			      "服务端在读完整个请求体之前就应答并关闭，或关闭时还有排队的流水线请求。",
		S("application: close() with unread data", "SO_LINGER"),
		AEN("The process was killed or crashed: the kernel closes its sockets the same way",
		    "A request rejected on purpose (too large) without draining it"),
		AZH("进程被杀死或崩溃：内核会以同样的方式关闭它的套接字", "应用有意拒绝请求（例如过大）却没有把它读完"),
		C("TcpExtTCPAbortOnClose", "TcpOutRsts"),
	},
	{
		.id = "reset-abort",
		.category = PD_CAT_RESETS,
		.severity = PD_SEV_WARNING,
		.title_en = "Connection aborted with a RST where a FIN was due",
		.title_zh = "连接被 RST 中止（本应发送 FIN）",
		.explain_en = "One side's own socket ended the connection with a RST instead of the "
			      "orderly FIN, with nothing unread: an abortive close. Applications do it on "
			      "purpose with SO_LINGER {1, 0} before close(), to skip TIME_WAIT (nginx "
			      "reset_timedout_connection, HAProxy option nolinger), or after a protocol error "
			      "(a TLS alert). The peer's next read or write fails with ECONNRESET, and what "
			      "it still had in flight is lost.",
		.explain_zh = "一方自己的套接字用 RST 而不是正常的 FIN 结束了连接，且没有未读数据：这是中止式"
			      "关闭。应用会有意这样做：在 close() 之前设置 SO_LINGER {1, 0} 以跳过 TIME_WAIT"
			      "（nginx 的 reset_timedout_connection、HAProxy 的 option nolinger），或在协议错误"
			      "（如 TLS 告警）之后。对端下一次读写会失败并得到 ECONNRESET，仍在途中的数据也会丢失。",
		S("SO_LINGER", "application: close() with unread data"),
		AEN("The socket was destroyed by an administrator or an agent (ss -K, SOCK_DESTROY)",
		    "A little unread data that did not change the advertised window"),
		AZH("套接字被管理员或代理程序强制销毁（ss -K、SOCK_DESTROY）", "少量未读数据没有改变通告窗口"),
		C("TcpExtTCPAbortOnData", "TcpExtTCPAbortOnClose", "TcpOutRsts"),
	},
	{
		.id = "reset-after-close",
		.category = PD_CAT_RESETS,
		.severity = PD_SEV_WARNING,
		.title_en = "Data sent to a closed socket was reset",
		.title_zh = "发往已关闭套接字的数据被 RST",
		.explain_en = "One side closed the connection with a FIN (often right after a TLS alert) while "
			      "the other side was still sending, and then answered that data with a RST. A "
			      "kernel resets data that arrives after the application called close(): nobody "
			      "can read it any more (Linux counts it in TcpExtTCPAbortOnData). The sender's "
			      "last data never reached the application and its next read or write fails with "
			      "ECONNRESET or EPIPE. Typical causes: a server closing an idle keep-alive "
			      "connection just as the client sends its next request, a server that answers "
			      "an error and closes without reading the rest of the request, a TLS endpoint "
			      "that closes right after its alert or close_notify.",
		.explain_zh = "一方在另一方仍在发送时用 FIN 关闭了连接（常常紧跟在一个 TLS 告警之后），随后用 "
			      "RST 回应了这些数据。应用调用 close() 之后到达的数据，内核会用 RST 回应：已经没有"
			      "人能读取它（Linux 计入 TcpExtTCPAbortOnData）。发送方最后的数据没有到达应用，它的下一次"
			      "读写会失败并得到 ECONNRESET 或 EPIPE。常见原因：服务端恰在客户端发出下一个请求时关闭"
			      "空闲的长连接；服务端回应错误后不读完请求就关闭；TLS 端点在发出告警或 close_notify "
			      "后立即关闭。",
		S("application: close() while the peer still sends", "application: close() with unread data"),
		AEN("The peer kept sending after it had read the other side's end of the session "
		    "(a protocol error on the peer's side)",
		    "Both sides closing at the same moment, with only a final short record lost"),
		AZH("对端在读到会话结束之后仍继续发送（对端一侧的协议错误）",
		    "两端同时关闭，只丢失了最后一条很短的记录"),
		C("TcpExtTCPAbortOnData", "TcpOutRsts", "TcpEstabResets"),
	},
	{
		.id = "reset-stale-connection",
		.category = PD_CAT_RESETS,
		.severity = PD_SEV_WARNING,
		.title_en = "RST from a host that no longer had the connection",
		.title_zh = "对端已没有该连接，以 RST 回应",
		.explain_en = "A segment of an established connection reached a host that no longer had "
			      "it, and that host's kernel answered with a bare RST. The host lost the "
			      "connection without telling the other side: a restart or crash, a failover to "
			      "another machine, a socket destroyed on it, or a NAT or load balancer that forgot "
			      "the mapping and delivered the segment elsewhere. The other application gets "
			      "ECONNRESET on its next request.",
		.explain_zh = "已建立连接的一个报文到达了一台已经没有这条连接的主机，该主机内核用一个裸 RST "
			      "作答。主机在没有通知对方的情况下丢失了连接：重启或崩溃、故障切换到另一台机器、"
			      "套接字在其上被强制销毁，或 NAT、负载均衡忘记了映射而把报文送到了别处。"
			      "另一端的应用在下一次请求时收到 ECONNRESET。",
		S("peer restart or failover", "middlebox idle timeout"),
		AEN("A firewall dropped the FIN or RST the host sent when it closed",
		    "A RST forged by a device next to that host, with its TTL"),
		AZH("防火墙丢弃了该主机关闭时发出的 FIN 或 RST", "紧挨该主机的设备伪造的 RST，TTL 与它相同"),
		C("TcpEstabResets", "TcpOutRsts"),
	},
	{
		.id = "reset-injected",
		.category = PD_CAT_RESETS,
		.severity = PD_SEV_WARNING,
		.title_en = "RST forged by a device on the path",
		.title_zh = "路径上的设备伪造了 RST",
		.explain_en = "A RST that claims to come from one end of the connection was made by "
			      "something in between: its TTL, IP ID, DF bit or options differ from every real "
			      "packet of that end, or it arrived sooner than that end could have answered. "
			      "Firewalls, intrusion prevention systems and censorship devices kill connections "
			      "this way; both applications see 'connection reset by peer' although neither "
			      "host reset anything.",
		.explain_zh = "一个自称来自连接某一端的 RST 其实是中间的设备发出的：它的 TTL、IP ID、DF 位或选项"
			      "与该端所有真实报文都不同，或者到达得比该端可能应答的时间还早。防火墙、入侵防御系统"
			      "和审查设备会这样切断连接；两端应用都看到 “connection reset by peer”，其实两台主机"
			      "都没有复位连接。",
		S("middlebox forging resets"),
		AEN("A load balancer or proxy that ends connections in that host's name",
		    "A host whose RSTs leave with another TTL than its connections (a per-socket IP_TTL)"),
		AZH("以该主机名义结束连接的负载均衡或代理", "RST 的 TTL 与其连接报文不同的主机（按套接字设置了 IP_TTL）"),
		C("TcpEstabResets"),
	},
	{
		.id = "middlebox-idle-timeout",
		.category = PD_CAT_RESETS,
		.severity = PD_SEV_ERROR,
		.title_en = "Idle connection forgotten by a NAT, firewall or load balancer",
		.title_zh = "空闲连接被 NAT、防火墙或负载均衡遗忘",
		.explain_en = "The connection stayed silent longer than a stateful device on the path keeps "
			      "its state. When one side spoke again, the device no longer knew the connection: "
			      "it discarded the segment, so the sender retransmitted into silence until it gave "
			      "up, or it answered with a RST of its own. Keepalive probes or application "
			      "heartbeats sent more often than the device's idle timeout keep the state alive.",
		.explain_zh = "连接静默的时间超过了路径上有状态设备保存其状态的时长。当一方再次发送数据时，"
			      "设备已不认识这条连接：要么丢弃报文，发送端对着沉默不断重传直到放弃；要么自己回一个 "
			      "RST。比设备空闲超时更频繁的保活探测或应用层心跳可以让状态保持有效。",
		S("SO_KEEPALIVE", "TCP_KEEPIDLE", "net.ipv4.tcp_keepalive_time", "middlebox idle timeout",
		  "net.netfilter.nf_conntrack_tcp_timeout_established"),
		AEN("The other host went down or lost its network during the silence",
		    "A path outage that began during the silence"),
		AZH("对端主机在静默期间宕机或断网", "在静默期间开始的路径中断"),
		C("TcpRetransSegs", "TcpExtTCPTimeouts", "TcpExtTCPAbortOnTimeout", "TcpExtTCPKeepAlive",
		  "TcpEstabResets"),
	},
	/* ================= capture ================= */
	{
		.id = "window-scale-unknown",
		.category = PD_CAT_CAPTURE,
		.severity = PD_SEV_INFO,
		.title_en = "Window scale unknown: the handshake was not captured",
		.title_zh = "窗口扩大因子未知：没有抓到握手",
		.explain_en = "The window scale is announced only in the SYN and SYN-ACK, which the capture "
			      "does not hold for these connections. The raw window field is then only a "
			      "lower "
			      "bound of the real window, so no window-size verdict is drawn for them.",
		.explain_zh = "窗口扩大因子只在 SYN 和 SYN-ACK 中通告，而抓包中没有这些连接的握手报文。"
			      "原始窗口字段只是实际窗口的下限，因此不对这些连接的窗口大小下结论。",
		.settings = {NULL},
		AEN("Connections set up before the capture started",
		    "A capture filter or ring buffer that lost the handshake"),
		AZH("连接在开始抓包之前就已建立", "抓包过滤器或环形缓冲区丢掉了握手报文"),
	},
	{
		/* made by the run from --host snapshots (analyzer/run.c), not by a detector */
		.id = "host-counter-moved",
		.category = PD_CAT_CAPTURE,
		.severity = PD_SEV_INFO,
		.title_en = "A host counter moved that no finding explains",
		.title_zh = "主机计数器有变化，但没有结论能解释",
		.explain_en = "A kernel counter in the host snapshots (nstat) rose during the capture, yet "
			      "nothing in the packets explains it: the capture may have missed the flows it "
			      "counts (another interface, a filter, packets dropped before the capture point).",
		.explain_zh = "主机快照（nstat）中的某个内核计数器在抓包期间增加了，但报文中没有任何现象能解释它："
			      "抓包可能漏掉了它所统计的连接（其他网卡、过滤条件、在抓包点之前被丢弃的报文）。",
		.settings = {NULL},
		AEN("Traffic outside the capture's filter or interface"),
		AZH("抓包过滤条件或网卡之外的流量"),
	},
	{
		.id = "capture-vantage",
		.category = PD_CAT_CAPTURE,
		.severity = PD_SEV_INFO,
		.title_en = "Where this capture was taken",
		.title_zh = "本次抓包的位置",
		.explain_en = "Round-trip times and the order of packets show which host the capture was "
			      "taken on (client, server or in between). Some findings only make sense from "
			      "one vantage point.",
		.explain_zh = "往返时间和报文顺序可以看出抓包是在哪一侧进行的（客户端、服务端或中间）。"
			      "部分结论只在特定抓包位置才成立。",
		.settings = {NULL},
		AEN("Timestamps skewed by the capture host"),
		AZH("抓包主机导致时间戳偏差"),
	},
	{
		.id = "capture-offload-tso",
		.category = PD_CAT_CAPTURE,
		.severity = PD_SEV_INFO,
		.title_en = "Segments larger than the MSS: segmentation offload (TSO/GSO)",
		.title_zh = "报文大于 MSS：分段卸载（TSO/GSO）",
		.explain_en = "The sender's capture shows TCP segments bigger than the MSS. The NIC or "
			      "kernel splits them later; on the wire they were normal-sized. Not a network "
			      "problem.",
		.explain_zh = "发送端的抓包中出现大于 MSS 的 TCP 报文。它们随后由网卡或内核切分，"
			      "线上实际是正常大小。这不是网络问题。",
		S("NIC offloads"),
		AEN("Jumbo frames on the link"),
		AZH("链路使用了巨型帧"),
	},
	{
		.id = "capture-offload-gro",
		.category = PD_CAT_CAPTURE,
		.severity = PD_SEV_INFO,
		.title_en = "Merged segments on the receiver: receive offload (GRO/LRO)",
		.title_zh = "接收端报文被合并：接收卸载（GRO/LRO）",
		.explain_en = "The receiver's capture shows segments merged into bigger ones by the NIC or "
			      "kernel before the capture saw them. Sizes and counts differ from the wire. "
			      "Not a network problem.",
		.explain_zh = "接收端的抓包中，报文在被抓到之前已被网卡或内核合并成更大的报文，"
			      "大小和数量与线上不同。这不是网络问题。",
		S("NIC offloads"),
		AEN("Jumbo frames on the link"),
		AZH("链路使用了巨型帧"),
	},
	{
		.id = "capture-drops",
		.category = PD_CAT_CAPTURE,
		.severity = PD_SEV_INFO,
		.title_en = "Packets missing from the capture",
		.title_zh = "抓包中缺失报文",
		.explain_en = "The peer acknowledged data that never appears in the capture: the capture "
			      "missed packets that did cross the network. Loss figures from this capture "
			      "are too high.",
		.explain_zh = "对端确认了抓包中从未出现的数据：抓包遗漏了实际已经过网络的报文。"
			      "基于此抓包得到的丢包数据偏高。",
		S("capture buffer", "capture snaplen"),
		AEN("Asymmetric routing: the capture point sees only part of the traffic"),
		AZH("非对称路由：抓包点只能看到部分流量"),
	},
	{
		.id = "capture-snaplen",
		.category = PD_CAT_CAPTURE,
		.severity = PD_SEV_INFO,
		.title_en = "Packets truncated by the capture's snap length",
		.title_zh = "报文被抓包的截断长度截短",
		.explain_en = "The capture kept only the first bytes of each packet. Header analysis still "
			      "works (sizes come from the headers), but payload and application detection "
			      "are limited.",
		.explain_zh = "抓包只保留了每个报文的前若干字节。报文头分析仍然有效（长度取自报文头），"
			      "但载荷和应用识别受限。",
		S("capture snaplen"),
		AEN("Intentional headers-only capture"),
		AZH("有意只抓报文头"),
	},
	{
		.id = "capture-one-direction",
		.category = PD_CAT_CAPTURE,
		.severity = PD_SEV_INFO,
		.title_en = "Only one direction captured",
		.title_zh = "只抓到了单方向流量",
		.explain_en = "Flows show packets in one direction only. Round-trip times, loss and window "
			      "findings need both directions.",
		.explain_zh = "流中只有单方向的报文。往返时间、丢包和窗口相关的分析需要双向流量。",
		S("capture interface and filter"),
		AEN("Asymmetric routing", "A capture filter that matched one direction"),
		AZH("非对称路由", "抓包过滤器只匹配了一个方向"),
	},
	{
		.id = "capture-time-backwards",
		.category = PD_CAT_CAPTURE,
		.severity = PD_SEV_INFO,
		.title_en = "Capture timestamps go backwards",
		.title_zh = "抓包时间戳出现倒退",
		.explain_en = "Some packets carry earlier timestamps than the packets before them (merged "
			      "files, clock adjustments, multi-queue capture). Timings around them are "
			      "unreliable.",
		.explain_zh = "部分报文的时间戳早于它前面的报文（合并的文件、时钟调整、多队列抓包）。"
			      "这些位置附近的时间计算不可靠。",
		.settings = {NULL},
		AEN("Files merged out of order"),
		AZH("文件合并顺序错误"),
	},
	{
		.id = "capture-duplicates",
		.category = PD_CAT_CAPTURE,
		.severity = PD_SEV_INFO,
		.title_en = "Duplicate packets in the capture",
		.title_zh = "抓包中存在重复报文",
		.explain_en = "Identical packets appear twice within a short time: the capture saw them on "
			      "two interfaces (e.g. 'any' with VLAN or bridge devices) or a SPAN port "
			      "duplicated them. They are not retransmissions.",
		.explain_zh = "相同的报文在短时间内出现两次：抓包在两个接口上看到了它们（例如 any "
			      "接口配合 VLAN 或网桥），或镜像端口重复了它们。它们不是重传。",
		S("capture interface and filter"),
		AEN("A real duplicate on the network (loops, misbehaving NIC)"),
		AZH("网络上确实出现重复（环路、网卡异常）"),
	},
	{
		.id = "capture-unread",
		.category = PD_CAT_CAPTURE,
		.severity = PD_SEV_WARNING,
		.title_en = "Part of the capture could not be read",
		.title_zh = "抓包中有一部分无法读取",
		.explain_en = "pcapdoc could not decode a share of the frames down to TCP, UDP or ICMP (a "
			      "link type, tunnel or protocol it does not open, or headers cut or broken). "
			      "Nothing was checked in them: no finding about them does not mean they were "
			      "healthy.",
		.explain_zh = "有一部分帧 pcapdoc 无法解码到 TCP、UDP 或 ICMP（它不能打开的链路类型、隧道"
			      "或协议，或者报文头被截断、不自洽）。这些帧完全没有被检查：没有关于它们的发现"
			      "并不代表它们是正常的。",
		S("capture point and encapsulation", "capture snaplen"),
		AEN("Non-IP traffic that is the capture's purpose (industrial or storage protocols)"),
		AZH("非 IP 流量本来就是抓包的目的（工业或存储协议）"),
	},
	{
		.id = "capture-flow-cap",
		.category = PD_CAT_CAPTURE,
		.severity = PD_SEV_INFO,
		.title_en = "Flow table limit reached",
		.title_zh = "达到流表上限",
		.explain_en = "The capture had more concurrent flows than pcapdoc keeps (--max-flows). The "
			      "oldest idle flows were evicted early, so some per-flow findings may be "
			      "missing.",
		.explain_zh = "抓包中的并发流数量超过了 pcapdoc 的保留上限（--max-flows）。"
			      "最早空闲的流被提前淘汰，部分按流的结论可能缺失。",
		.settings = {NULL},
		AEN("A scan or flood with many distinct flows"),
		AZH("扫描或洪泛产生了大量不同的流"),
	},
};

const size_t pd_catalog_len = sizeof pd_catalog / sizeof pd_catalog[0];

const pd_finding_def *pd_catalog_find(const char *id)
{
	if (!id)
		return NULL;
	for (size_t i = 0; i < pd_catalog_len; i++)
		if (strcmp(pd_catalog[i].id, id) == 0)
			return &pd_catalog[i];
	return NULL;
}
