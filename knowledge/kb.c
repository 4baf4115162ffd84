/* The settings knowledge base.
 *
 * One designated-initializer entry per setting so each can be reviewed on
 * its own. Defaults are those of current mainline Linux (checked on 6.18 in
 * a fresh network namespace, which shows the per-namespace defaults);
 * where a default scales with memory or changed recently, the entry says
 * so instead of pretending to a single number. Check commands must be
 * harmless to run. Texts are plain: no backquotes (the Markdown renderer
 * puts commands in code spans). */
#include "knowledge/kb.h"

#include <string.h>

const pd_setting pd_kb[] = {
	/* ---------------- handshake, listen queues ---------------- */
	{
		.name = "net.core.somaxconn",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SERVER,
		.default_value = "4096 (128 before kernel 5.4)",
		.check = "sysctl net.core.somaxconn; ss -lnt (for a listener Send-Q is the accept "
			 "queue limit, Recv-Q its current length); nstat -az TcpExtListenOverflows "
			 "TcpExtListenDrops",
		.change_en = "Raise it (e.g. sysctl -w net.core.somaxconn=8192, persist in "
			     "/etc/sysctl.d/) and raise the application's listen() backlog with it; "
			     "the effective accept queue is min(backlog, somaxconn).",
		.change_zh = "调大该值（如 sysctl -w net.core.somaxconn=8192，并写入 /etc/sysctl.d/ "
			     "持久化），同时调大应用 listen() 的 backlog；实际全连接队列长度为 "
			     "min(backlog, somaxconn)。",
		.caveat_en = "The value is read when listen() is called: restart (or re-listen) the "
			     "service after changing it. A bigger queue only absorbs bursts; if the "
			     "application accepts too slowly the queue fills again and connections wait "
			     "longer instead of failing fast.",
		.caveat_zh = "该值在调用 listen() 时读取，修改后需重启服务（或重新 listen）才生效。"
			     "更大的队列只能吸收突发；如果应用 accept 太慢，队列仍会被填满，"
			     "连接只是等待更久而不是快速失败。",
	},
	{
		.name = "listen() backlog",
		.kind = PD_KB_APP,
		.side = PD_SIDE_SERVER,
		.default_value = "application-specific (nginx 511, many runtimes 128 or 50)",
		.check = "ss -lnt (Send-Q of the LISTEN socket is the backlog in effect)",
		.change_en = "Raise the backlog in the server's configuration (nginx: listen ... "
			     "backlog=N; Java ServerSocket backlog; Python socket.listen(N)) and keep "
			     "net.core.somaxconn at least as large.",
		.change_zh = "在服务端配置中调大 backlog（nginx: listen ... backlog=N；Java "
			     "ServerSocket 的 backlog 参数；Python socket.listen(N)），并保证 "
			     "net.core.somaxconn 不小于它。",
		.caveat_en = "The kernel silently truncates the backlog to net.core.somaxconn, so a "
			     "large backlog in the configuration may not be what ss -lnt shows.",
		.caveat_zh = "内核会把 backlog 静默截断为 net.core.somaxconn，配置里写得很大不等于"
			     "实际生效，以 ss -lnt 显示为准。",
	},
	{
		.name = "accept loop",
		.kind = PD_KB_APP,
		.side = PD_SIDE_SERVER,
		.default_value = NULL,
		.check = "ss -lnt (Recv-Q close to Send-Q means accept() is not keeping up); "
			 "top/pidstat for the server's CPU; application thread-pool metrics",
		.change_en = "Make the server accept faster: more acceptor threads or processes "
			     "(SO_REUSEPORT), no blocking work in the accept path, enough worker "
			     "capacity behind it.",
		.change_zh = "让服务端更快地 accept：增加 accept 线程/进程（SO_REUSEPORT），"
			     "accept 路径上不做阻塞操作，后端工作线程容量充足。",
		.caveat_en = "A full accept queue is usually a symptom of an overloaded or stalled "
			     "application; enlarging queues without fixing the rate only delays the "
			     "failure.",
		.caveat_zh = "全连接队列满通常是应用过载或卡住的表现；只加大队列而不提高处理速度，"
			     "只是推迟故障。",
	},
	{
		.name = "net.ipv4.tcp_max_syn_backlog",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SERVER,
		.default_value = "scaled with memory at boot, at least 128 (often 1024-4096)",
		.check = "sysctl net.ipv4.tcp_max_syn_backlog; nstat -az TcpExtListenDrops "
			 "TcpExtTCPReqQFullDrop TcpExtTCPReqQFullDoCookies",
		.change_en = "Raise it together with net.core.somaxconn and the listen() backlog "
			     "when many half-open connections are legitimate (high connection rate, "
			     "long RTTs).",
		.change_zh = "当大量半连接是正常业务（高建连速率、长 RTT）时，与 net.core.somaxconn "
			     "和 listen() backlog 一起调大。",
		.caveat_en = "On current kernels a listener's half-open (SYN) queue is also capped by "
			     "its accept backlog; this sysctl mainly matters with tcp_syncookies=0, where "
			     "SYNs from unverified peers are dropped once the queue is three-quarters full.",
		.caveat_zh = "在当前内核中，监听套接字的半连接（SYN）队列同样受其 accept backlog 限制；"
			     "该参数主要在 tcp_syncookies=0 时起作用：队列满四分之三后，"
			     "来自未验证对端的 SYN 会被丢弃。",
	},
	{
		.name = "net.ipv4.tcp_syncookies",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SERVER,
		.default_value = "1 (cookies only when the SYN queue overflows)",
		.check = "sysctl net.ipv4.tcp_syncookies; nstat -az TcpExtSyncookiesSent "
			 "TcpExtSyncookiesRecv TcpExtSyncookiesFailed; dmesg | grep -i 'SYN flooding'",
		.change_en = "Keep it at 1. If cookies are sent under normal load, the queues are too "
			     "small: raise the listen() backlog and net.core.somaxconn rather than "
			     "changing this.",
		.change_zh = "保持为 1。若正常负载下也在发送 cookie，说明队列太小：应调大 listen() "
			     "backlog 和 net.core.somaxconn，而不是改这个参数。",
		.caveat_en = "A cookie SYN-ACK cannot keep per-connection state: without the client's "
			     "timestamp option it loses window scaling and SACK, so such connections run "
			     "with a 64 KiB window. 2 sends cookies always; 0 drops SYNs under a flood.",
		.caveat_zh = "cookie 方式的 SYN-ACK 不保存连接状态：若客户端没有带时间戳选项，"
			     "窗口扩大和 SACK 会丢失，连接窗口被限制在 64 KiB。设为 2 表示总是发送 cookie；"
			     "设为 0 则在 SYN 洪泛时直接丢弃 SYN。",
	},
	{
		.name = "net.ipv4.tcp_syn_retries",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_CLIENT,
		.default_value = "6",
		.check = "sysctl net.ipv4.tcp_syn_retries net.ipv4.tcp_syn_linear_timeouts",
		.change_en = "Lower it (or set a connect timeout in the application) to fail over "
			     "faster to another server; it does not make the server answer.",
		.change_zh = "调小它（或在应用里设置连接超时）可以更快地切换到其他服务器；"
			     "它并不能让服务端应答。",
		.caveat_en = "With the classic 1 s initial RTO doubling, 6 retries give up after about "
			     "127 s. Kernels that have net.ipv4.tcp_syn_linear_timeouts keep the first "
			     "retries about 1 s apart before doubling; trust the schedule seen in the "
			     "capture. Per-socket TCP_SYNCNT overrides it.",
		.caveat_zh = "按经典的 1 秒初始 RTO 指数退避，6 次重试约 127 秒后放弃。"
			     "带有 net.ipv4.tcp_syn_linear_timeouts 的内核前几次重试间隔约 1 秒，"
			     "之后才翻倍；以抓包中实际观察到的间隔为准。套接字选项 TCP_SYNCNT 可单独覆盖。",
	},
	{
		.name = "net.ipv4.tcp_synack_retries",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SERVER,
		.default_value = "5",
		.check = "sysctl net.ipv4.tcp_synack_retries",
		.change_en = "Rarely the fix. Lowering it frees half-open entries sooner under a SYN "
			     "flood; find why the client's ACK does not arrive or is dropped first.",
		.change_zh = "通常不是根本解法。在 SYN 洪泛时调小可更快释放半连接；"
			     "应先查明客户端的 ACK 为何没到或被丢弃。",
		.caveat_en = "With a 1 s initial RTO, 5 retries keep a half-open entry for about 63 s. "
			     "SYN-ACK retransmits after the client's ACK point to the accept queue, not "
			     "to this setting.",
		.caveat_zh = "初始 RTO 为 1 秒时，5 次重试会让半连接保留约 63 秒。"
			     "若客户端已经 ACK 后服务端仍重传 SYN-ACK，问题在全连接队列，而不在此参数。",
	},
	{
		.name = "net.ipv4.tcp_abort_on_overflow",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SERVER,
		.default_value = "0",
		.check = "sysctl net.ipv4.tcp_abort_on_overflow; nstat -az TcpExtListenOverflows",
		.change_en = "Keep 0 for bursty load (the client's ACK is dropped and the handshake "
			     "completes later). Set 1 only if clients must fail fast with a RST instead "
			     "of waiting.",
		.change_zh = "突发负载下保持 0（丢弃客户端的 ACK，握手稍后完成）。"
			     "只有在希望客户端立刻收到 RST 快速失败时才设为 1。",
		.caveat_en = "With 1 a short burst turns into connection resets seen by users; it "
			     "hides nothing about the cause (a full accept queue).",
		.caveat_zh = "设为 1 后，短暂的突发就会变成用户可见的连接重置；"
			     "它并不能解决根因（全连接队列满）。",
	},
	{
		.name = "net.netfilter.nf_conntrack_max",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_PATH,
		.default_value = "scaled with memory (e.g. 262144)",
		.check = "sysctl net.netfilter.nf_conntrack_count net.netfilter.nf_conntrack_max; "
			 "conntrack -S (drop, insert_failed); dmesg | grep 'table full'",
		.change_en = "Raise nf_conntrack_max (and the hash size, nf_conntrack_buckets) on the "
			     "host or firewall that tracks connections, or exempt high-rate traffic from "
			     "tracking (notrack).",
		.change_zh = "在做连接跟踪的主机或防火墙上调大 nf_conntrack_max（以及哈希桶 "
			     "nf_conntrack_buckets），或对高速率流量关闭跟踪（notrack）。",
		.caveat_en = "Only exists when the nf_conntrack module is loaded. When the table is "
			     "full new flows' first packets (SYNs) are dropped for every client at once; "
			     "each entry costs a few hundred bytes of kernel memory. The conntrack "
			     "timeouts (nf_conntrack_tcp_timeout_*) decide how long entries stay.",
		.caveat_zh = "仅在加载 nf_conntrack 模块时存在。表满时所有客户端新连接的首包（SYN）"
			     "都会被丢弃；每个表项占用几百字节内核内存。conntrack 的各类超时"
			     "（nf_conntrack_tcp_timeout_*）决定表项保留多久。",
	},
	{
		.name = "firewall dropping SYN/SYN-ACK",
		.kind = PD_KB_FIREWALL,
		.side = PD_SIDE_PATH,
		.default_value = NULL,
		.check = "nft list ruleset; iptables -S; iptables -L -v -n (drop counters); cloud "
			 "security groups / network ACLs; capture on both sides of the firewall",
		.change_en = "Find the rule, rate limit or security group that drops the handshake "
			     "packets and allow the service's port.",
		.change_zh = "找到丢弃握手报文的规则、限速或安全组，放行该服务端口。",
		.caveat_en = "A capture on one side cannot tell a drop on the path from an overloaded "
			     "listener; capture at the server too, or compare its counters.",
		.caveat_zh = "单侧抓包无法区分是路径上丢包还是监听端过载；请同时在服务端抓包或对比其计数器。",
	},
	/* ---------------- timestamps, TIME_WAIT, ports ---------------- */
	{
		.name = "net.ipv4.tcp_timestamps",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_BOTH,
		.default_value = "1",
		.check = "sysctl net.ipv4.tcp_timestamps",
		.change_en = "Keep timestamps on (1). They provide PAWS protection and RTT samples, "
			     "and tcp_tw_reuse depends on them. Fix the 4-tuple reuse instead of "
			     "disabling them.",
		.change_zh = "保持开启（1）。时间戳提供 PAWS 保护和 RTT 采样，tcp_tw_reuse 也依赖它。"
			     "应解决四元组复用问题，而不是关闭时间戳。",
		.caveat_en = "0 disables them, 1 enables them with a random offset per connection, "
			     "2 enables them without the offset. Disabling them on one side turns off "
			     "PAWS, TIME_WAIT reuse and window scaling for syncookie connections.",
		.caveat_zh = "0 关闭；1 开启并按连接加随机偏移；2 开启但不加偏移。"
			     "一端关闭后，PAWS、TIME_WAIT 复用以及 syncookie 连接的窗口扩大都会失效。",
	},
	{
		.name = "net.ipv4.tcp_tw_reuse",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_CLIENT,
		.default_value = "2 (loopback connections only)",
		.check = "sysctl net.ipv4.tcp_tw_reuse; ss -tan state time-wait | wc -l",
		.change_en = "Set 1 on the host that opens the connections (the client) when it runs "
			     "out of ports to the same destination; better, reuse connections.",
		.change_zh = "当发起连接的一方（客户端）到同一目的地的端口耗尽时，可在客户端设为 1；"
			     "更好的办法是复用连接。",
		.caveat_en = "It only affects outgoing connections (connect()), never a server's "
			     "accepted ones, and needs tcp_timestamps on both ends; a TIME_WAIT socket is "
			     "reused only after it is about 1 s old (net.ipv4.tcp_tw_reuse_delay on newer "
			     "kernels).",
		.caveat_zh = "只对本机主动发起的连接（connect()）生效，对服务端 accept 的连接无效；"
			     "需要两端都开启 tcp_timestamps；TIME_WAIT 套接字须存在约 1 秒后才能被复用"
			     "（新内核可由 net.ipv4.tcp_tw_reuse_delay 调整）。",
	},
	{
		.name = "net.ipv4.tcp_tw_recycle",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SERVER,
		.default_value = "0",
		.check = "ls /proc/sys/net/ipv4/tcp_tw_recycle (absent on kernels 4.12 and later)",
		.change_en = "Set 0 on old kernels that still have it; upgrade the kernel.",
		.change_zh = "在仍有此参数的老内核上设为 0；建议升级内核。",
		.caveat_en = "Removed in Linux 4.12. With 1 the server drops SYNs whose timestamp is "
			     "older than the last one seen from the same IP, which breaks clients behind "
			     "NAT (their clocks are unrelated): connects time out at random.",
		.caveat_zh = "已在 Linux 4.12 中删除。设为 1 时，服务端会丢弃时间戳比同一 IP 上次更旧的 SYN，"
			     "这会破坏 NAT 后面的客户端（它们的时钟互不相关），导致随机的连接超时。",
		.removed_in = "4.12",
	},
	{
		.name = "net.ipv4.ip_local_port_range",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_CLIENT,
		.default_value = "32768 60999 (28232 ports)",
		.check = "sysctl net.ipv4.ip_local_port_range; ss -tan state time-wait | wc -l; "
			 "nstat -az TcpExtTCPTimeWaitOverflow",
		.change_en = "Widen it on the connecting host, e.g. 10000 65000, and list ports used by "
			     "local services in net.ipv4.ip_local_reserved_ports.",
		.change_zh = "在发起连接的主机上扩大范围，如 10000 65000，并把本机服务使用的端口加入 "
			     "net.ipv4.ip_local_reserved_ports。",
		.caveat_en = "The limit applies per destination (IP, port): each closed connection holds "
			     "its port in TIME_WAIT for 60 s, so about range/60 new connections per "
			     "second to one destination is the ceiling without reuse.",
		.caveat_zh = "限制是按目的（IP，端口）计算的：每个关闭的连接在 TIME_WAIT 中占用端口 60 秒，"
			     "因此不复用连接时，到同一目的地的新建速率上限约为 端口数/60 每秒。",
	},
	{
		.name = "net.ipv4.tcp_fin_timeout",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_BOTH,
		.default_value = "60",
		.check = "sysctl net.ipv4.tcp_fin_timeout; ss -tan state fin-wait-2 | wc -l",
		.change_en = "Lower it only if many orphaned sockets sit in FIN_WAIT_2 because peers "
			     "never close; it is not a TIME_WAIT knob.",
		.change_zh = "仅当大量孤儿套接字因对端不关闭而停留在 FIN_WAIT_2 时才调小；"
			     "它不是控制 TIME_WAIT 的参数。",
		.caveat_en = "A common myth: it does NOT shorten TIME_WAIT, which is fixed at 60 s "
			     "(TCP_TIMEWAIT_LEN, a compile-time constant). It bounds how long an orphaned "
			     "socket waits in FIN_WAIT_2.",
		.caveat_zh = "常见误区：它并不能缩短 TIME_WAIT，TIME_WAIT 固定为 60 秒"
			     "（TCP_TIMEWAIT_LEN，编译期常量）。它限制的是孤儿套接字在 FIN_WAIT_2 的等待时间。",
	},
	{
		.name = "net.ipv4.tcp_max_tw_buckets",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_BOTH,
		.default_value = "scaled with memory (e.g. 131072)",
		.check = "sysctl net.ipv4.tcp_max_tw_buckets; ss -s (timewait); nstat -az "
			 "TcpExtTCPTimeWaitOverflow; dmesg | grep 'time wait bucket'",
		.change_en = "Leave it; reduce the connection rate (pooling, keep-alive) instead.",
		.change_zh = "保持不变；应通过连接池、长连接降低建连速率。",
		.caveat_en = "When exceeded, the kernel destroys TIME_WAIT sockets at once, which removes "
			     "TIME_WAIT's protection against old duplicates; lowering it is not a fix for "
			     "port exhaustion.",
		.caveat_zh = "超过上限时内核会直接销毁 TIME_WAIT 套接字，失去 TIME_WAIT 对旧重复报文的保护；"
			     "调小它不能解决端口耗尽。",
	},
	{
		.name = "connection pooling / keep-alive",
		.kind = PD_KB_APP,
		.side = PD_SIDE_CLIENT,
		.default_value = NULL,
		.check = "Application or HTTP client configuration (keep-alive, pool size, max idle); "
			 "ss -tan state time-wait | wc -l",
		.change_en = "Reuse connections: HTTP keep-alive, a connection pool in the client or "
			     "database driver, upstream keepalive in proxies (nginx: keepalive N).",
		.change_zh = "复用连接：开启 HTTP keep-alive，在客户端或数据库驱动中使用连接池，"
			     "代理开启到上游的长连接（nginx: keepalive N）。",
		.caveat_en = "Pooled connections can be closed by idle timeouts on servers, NATs or load "
			     "balancers; validate or refresh idle connections before use.",
		.caveat_zh = "池中的连接可能被服务端、NAT 或负载均衡的空闲超时关闭；"
			     "使用前应校验或定期刷新空闲连接。",
	},
	{
		.name = "NAT source-port reuse",
		.kind = PD_KB_FIREWALL,
		.side = PD_SIDE_PATH,
		.default_value = NULL,
		.check = "NAT / load balancer configuration and its port allocation; conntrack -L on "
			 "a Linux NAT; compare SYN timestamps per source IP in the capture",
		.change_en = "Give the NAT more source addresses or ports, use random port allocation, "
			     "or keep connections alive so fewer 4-tuples are reused within 60 s.",
		.change_zh = "为 NAT 增加源地址或端口池，使用随机端口分配，或保持长连接，"
			     "减少 60 秒内复用同一四元组。",
		.caveat_en = "Hosts behind one NAT address have unrelated timestamp clocks; a reused "
			     "4-tuple can then carry an older timestamp than the server's TIME_WAIT entry "
			     "and be rejected.",
		.caveat_zh = "同一 NAT 地址后面的主机时间戳时钟互不相关；复用的四元组可能携带比服务端 "
			     "TIME_WAIT 记录更旧的时间戳而被拒绝。",
	},
	/* ---------------- Nagle / delayed ACK ---------------- */
	{
		.name = "TCP_NODELAY",
		.kind = PD_KB_SOCKOPT,
		.side = PD_SIDE_SENDER,
		.default_value = "off (Nagle enabled)",
		.check = "strace -f -e trace=setsockopt -p PID (look for TCP_NODELAY); application or "
			 "library settings (e.g. tcp_nodelay in nginx, Redis clients, gRPC)",
		.change_en = "Set TCP_NODELAY on the socket that sends small writes "
			     "(setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, 1)), and send each message in "
			     "one write.",
		.change_zh = "在发送小块数据的套接字上设置 TCP_NODELAY（setsockopt(fd, IPPROTO_TCP, "
			     "TCP_NODELAY, 1)），并且每条消息一次写出。",
		.caveat_en = "With Nagle off, every small write becomes its own packet; a chatty sender "
			     "then emits many tiny segments. Coalescing writes fixes the cause.",
		.caveat_zh = "关闭 Nagle 后，每次小写都会单独成包；频繁小写的程序会发出大量小报文。"
			     "合并写才是治本。",
	},
	{
		.name = "TCP_CORK",
		.kind = PD_KB_SOCKOPT,
		.side = PD_SIDE_SENDER,
		.default_value = "off",
		.check = "strace -f -e trace=setsockopt -p PID",
		.change_en = "Cork the socket while writing the pieces of one message and uncork it at "
			     "the end, so they leave as full segments.",
		.change_zh = "在写一条消息的各部分时设置 TCP_CORK，写完后取消，使其以满段发送。",
		.caveat_en = "Forgetting to uncork delays data by up to 200 ms (the kernel's cork "
			     "ceiling).",
		.caveat_zh = "忘记取消 cork 会让数据最多延迟 200 毫秒（内核的 cork 上限）。",
	},
	{
		.name = "MSG_MORE",
		.kind = PD_KB_SOCKOPT,
		.side = PD_SIDE_SENDER,
		.default_value = NULL,
		.check = "strace -f -e trace=sendto,sendmsg -p PID (look for MSG_MORE)",
		.change_en = "Pass MSG_MORE on every send() of a message except the last one.",
		.change_zh = "对一条消息的除最后一次外的每次 send() 传入 MSG_MORE 标志。",
		.caveat_en = "Per-call equivalent of TCP_CORK; the final send without the flag must "
			     "follow or the data waits.",
		.caveat_zh = "相当于单次调用的 TCP_CORK；最后必须有一次不带该标志的发送，否则数据会被滞留。",
	},
	{
		.name = "writev coalescing",
		.kind = PD_KB_APP,
		.side = PD_SIDE_SENDER,
		.default_value = NULL,
		.check = "strace -f -e trace=write,writev,sendto,sendmsg -p PID (several small writes "
			 "per request)",
		.change_en = "Build the request (headers and body) in one buffer, or hand the pieces to "
			     "one writev()/sendmsg() call, instead of write-write-read.",
		.change_zh = "把请求（头和体）放到一个缓冲区，或用一次 writev()/sendmsg() 发出，"
			     "避免“写-写-读”模式。",
		.caveat_en = "This fixes the cause of Nagle/delayed-ACK stalls without giving up Nagle "
			     "for the rest of the connection.",
		.caveat_zh = "这样能从根源上消除 Nagle 与延迟确认的相互等待，同时保留 Nagle 的好处。",
	},
	{
		.name = "TCP_QUICKACK",
		.kind = PD_KB_SOCKOPT,
		.side = PD_SIDE_RECEIVER,
		.default_value = "off (delayed ACK, 40 ms minimum on Linux)",
		.check = "strace -f -e trace=setsockopt -p PID",
		.change_en = "On the receiver, set TCP_QUICKACK after each recv() when the peer waits "
			     "for an ACK before sending more.",
		.change_zh = "在接收端每次 recv() 之后设置 TCP_QUICKACK，适用于对端需等 ACK 才继续发送的场景。",
		.caveat_en = "Not permanent: the kernel can fall back to delayed ACKs, so it has to be "
			     "set again after reads. Windows peers delay ACKs up to 200 ms by default.",
		.caveat_zh = "不是永久生效：内核可能回到延迟确认模式，需要在每次读取后重新设置。"
			     "Windows 对端默认的延迟确认最长 200 毫秒。",
	},
	{
		.name = "route quickack",
		.kind = PD_KB_ROUTE,
		.side = PD_SIDE_RECEIVER,
		.default_value = "off",
		.check = "ip route show (look for quickack 1)",
		.change_en = "On the receiving host: ip route change PREFIX via GW dev IF quickack 1 "
			     "(kernel 3.11 and later), for the routes toward the sender.",
		.change_zh = "在接收端主机上对指向发送端的路由执行：ip route change PREFIX via GW dev IF "
			     "quickack 1（内核 3.11 及以上）。",
		.caveat_en = "Affects every connection over that route and sends more ACKs; the route "
			     "must be re-created with the attribute after reboots (persist it in the "
			     "network configuration).",
		.caveat_zh = "影响走该路由的所有连接，并增加 ACK 数量；重启后需重新设置（请写入网络配置持久化）。",
	},
	/* ---------------- windows and buffers ---------------- */
	{
		.name = "net.ipv4.tcp_rmem",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_RECEIVER,
		.default_value = "4096 131072 33554432 on kernel 6.18 (max 6291456 on older kernels)",
		.check = "sysctl net.ipv4.tcp_rmem net.ipv4.tcp_mem; ss -tmi (rb, rcv_space, rcv_wnd)",
		.change_en = "Raise the third value (max) on the receiver so the window can reach the "
			     "bandwidth-delay product: bandwidth x RTT, e.g. 1 Gbit/s x 50 ms = 6.25 MB.",
		.change_zh = "在接收端调大第三个值（最大值），使窗口能达到带宽时延积：带宽 × RTT，"
			     "例如 1 Gbit/s × 50 ms = 6.25 MB。",
		.caveat_en = "The advertised window is only a fraction of the buffer (about half on older "
			     "kernels with tcp_adv_win_scale=1; newer kernels measure the overhead per "
			     "socket). Memory: max bytes x busy sockets, bounded overall by "
			     "net.ipv4.tcp_mem. Sockets that set SO_RCVBUF ignore it.",
		.caveat_zh = "通告窗口只是缓冲区的一部分（老内核 tcp_adv_win_scale=1 时约一半；"
			     "新内核按套接字实际开销估算）。内存：最大值 × 活跃套接字数，"
			     "总量受 net.ipv4.tcp_mem 限制。设置了 SO_RCVBUF 的套接字不受其影响。",
	},
	{
		.name = "net.core.rmem_max",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_RECEIVER,
		.default_value = "4194304 on kernel 6.18 (212992 on many older kernels)",
		.check = "sysctl net.core.rmem_max",
		.change_en = "Raise it only if the application sets SO_RCVBUF and needs more than this "
			     "cap; autotuned sockets are bounded by tcp_rmem instead.",
		.change_zh = "仅当应用设置了 SO_RCVBUF 且需要超过此上限时才调大；"
			     "自动调节的套接字受 tcp_rmem 限制，而非此值。",
		.caveat_en = "It caps SO_RCVBUF requests (the kernel doubles the requested value for "
			     "bookkeeping). It applies to all protocols, UDP included.",
		.caveat_zh = "它限制 SO_RCVBUF 的请求值（内核会把请求值翻倍用于记账开销）。"
			     "对所有协议生效，包括 UDP。",
	},
	{
		.name = "SO_RCVBUF",
		.kind = PD_KB_SOCKOPT,
		.side = PD_SIDE_RECEIVER,
		.default_value = "not set (autotuning)",
		.check = "ss -tmi (rb stays constant: a fixed buffer); strace -e trace=setsockopt -p PID",
		.change_en = "Remove the fixed SO_RCVBUF so autotuning can grow the buffer, or set it "
			     "large enough for the bandwidth-delay product before connect()/listen().",
		.change_zh = "去掉固定的 SO_RCVBUF 让内核自动调节；或在 connect()/listen() 之前把它设为"
			     "足以覆盖带宽时延积的大小。",
		.caveat_en = "Setting it turns autotuning off for that socket, and the window scale is "
			     "chosen from the buffer at SYN time, so setting it after the handshake cannot "
			     "open the window further. Capped by net.core.rmem_max.",
		.caveat_zh = "一旦设置，该套接字的自动调节即关闭；窗口扩大因子在 SYN 时根据缓冲区确定，"
			     "握手后再调大也无法让窗口更大。受 net.core.rmem_max 限制。",
	},
	{
		.name = "net.ipv4.tcp_window_scaling",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_BOTH,
		.default_value = "1",
		.check = "sysctl net.ipv4.tcp_window_scaling; look for the wscale option in both SYNs",
		.change_en = "Set 1 on both ends, and make sure no middlebox strips the window scale "
			     "option from SYNs.",
		.change_zh = "两端都设为 1，并确认没有中间设备剥离 SYN 中的窗口扩大选项。",
		.caveat_en = "Without scaling on both sides the window is capped at 65535 bytes: at most "
			     "65535 / RTT bytes per second (about 5 Mbit/s at 100 ms).",
		.caveat_zh = "任一端不支持窗口扩大，窗口上限即为 65535 字节：吞吐上限为 65535 / RTT "
			     "字节每秒（RTT 100 ms 时约 5 Mbit/s）。",
	},
	{
		.name = "net.ipv4.tcp_moderate_rcvbuf",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_RECEIVER,
		.default_value = "1",
		.check = "sysctl net.ipv4.tcp_moderate_rcvbuf",
		.change_en = "Keep 1 so the receive buffer grows with the transfer.",
		.change_zh = "保持为 1，使接收缓冲区随传输自动增长。",
		.caveat_en = "0 leaves every socket at the tcp_rmem default (second value).",
		.caveat_zh = "设为 0 时，所有套接字都停留在 tcp_rmem 的默认值（第二个值）。",
	},
	{
		.name = "net.ipv4.tcp_wmem",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "4096 16384 4194304",
		.check = "sysctl net.ipv4.tcp_wmem; ss -tmi (tb, notsent)",
		.change_en = "Raise the third value on the sender when the flight stays below the "
			     "peer's window and the application has data queued.",
		.change_zh = "当在途数据低于对端窗口而应用仍有数据待发时，在发送端调大第三个值。",
		.caveat_en = "Memory: max bytes x busy sockets; sockets that set SO_SNDBUF ignore it.",
		.caveat_zh = "内存：最大值 × 活跃套接字数；设置了 SO_SNDBUF 的套接字不受其影响。",
	},
	{
		.name = "net.core.wmem_max",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "4194304 on kernel 6.18 (212992 on many older kernels)",
		.check = "sysctl net.core.wmem_max",
		.change_en = "Raise it only when the application sets SO_SNDBUF above this cap.",
		.change_zh = "仅当应用设置的 SO_SNDBUF 超过此上限时才调大。",
		.caveat_en = "It caps SO_SNDBUF requests (doubled by the kernel), not autotuning.",
		.caveat_zh = "它限制 SO_SNDBUF 请求值（内核会翻倍），不限制自动调节。",
	},
	{
		.name = "SO_SNDBUF",
		.kind = PD_KB_SOCKOPT,
		.side = PD_SIDE_SENDER,
		.default_value = "not set (autotuning)",
		.check = "ss -tmi (tb constant); strace -e trace=setsockopt -p PID",
		.change_en = "Remove a small fixed SO_SNDBUF or size it for the bandwidth-delay product.",
		.change_zh = "去掉过小的固定 SO_SNDBUF，或按带宽时延积设置。",
		.caveat_en = "Setting it disables send-buffer autotuning for the socket; capped by "
			     "net.core.wmem_max.",
		.caveat_zh = "设置后该套接字的发送缓冲区自动调节关闭；受 net.core.wmem_max 限制。",
	},
	{
		.name = "slow-reading application",
		.kind = PD_KB_APP,
		.side = PD_SIDE_RECEIVER,
		.default_value = NULL,
		.check = "ss -tmi (Recv-Q growing on the receiver); top/pidstat for the reader's CPU; "
			 "application logs for stalls (GC, disk, locks)",
		.change_en = "Make the receiving application read faster or sooner (more readers, no "
			     "blocking work between reads).",
		.change_zh = "让接收端应用更快、更及时地读取数据（增加读线程，读之间不做阻塞操作）。",
		.caveat_en = "A zero window is the receiver's application not reading; bigger buffers only "
			     "delay it.",
		.caveat_zh = "零窗口说明接收端应用没有在读数据；加大缓冲区只能推迟出现。",
	},
	/* ---------------- loss, queues, congestion ---------------- */
	{
		.name = "net.core.netdev_max_backlog",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_RECEIVER,
		.default_value = "1000",
		.check = "sysctl net.core.netdev_max_backlog; cat /proc/net/softnet_stat (second "
			 "column: drops per CPU)",
		.change_en = "Raise it (e.g. 10000) when softnet_stat shows drops on the receiving host.",
		.change_zh = "当 softnet_stat 显示接收主机有丢包时调大（如 10000）。",
		.caveat_en = "It is the per-CPU input queue on receive; it does not explain drops on the "
			     "sending side (see qdisc limit and NIC ring buffers). Only in the initial "
			     "network namespace.",
		.caveat_zh = "这是接收方向的每 CPU 输入队列，不能解释发送方向的丢包（见 qdisc 限制和网卡环形缓冲）。"
			     "仅在初始网络命名空间中存在。",
	},
	{
		.name = "qdisc limit",
		.kind = PD_KB_INTERFACE,
		.side = PD_SIDE_SENDER,
		.default_value = "depends on the qdisc (txqueuelen 1000; fq_codel limit 10240)",
		.check = "tc -s qdisc show dev IF (dropped, overlimits); ip -s link show dev IF (TX "
			 "dropped)",
		.change_en = "Raise the queue limit (tc qdisc change ... limit N, or ip link set IF "
			     "txqueuelen N) or remove a shaping rule that is too tight.",
		.change_zh = "调大队列上限（tc qdisc change ... limit N 或 ip link set IF txqueuelen N），"
			     "或放宽过紧的限速规则。",
		.caveat_en = "Longer queues add latency (bufferbloat); a shaper's rate is usually the "
			     "real limit.",
		.caveat_zh = "队列越长时延越大（缓冲膨胀）；真正的限制通常是整形器的速率。",
	},
	{
		.name = "NIC ring buffers",
		.kind = PD_KB_INTERFACE,
		.side = PD_SIDE_BOTH,
		.default_value = "driver-specific",
		.check = "ethtool -g IF; ethtool -S IF | grep -i -E 'drop|miss|fifo'",
		.change_en = "Enlarge the rings (ethtool -G IF rx N tx N) when the driver counts drops.",
		.change_zh = "当驱动统计到丢包时调大环形缓冲（ethtool -G IF rx N tx N）。",
		.caveat_en = "Changing ring sizes briefly resets the link on many drivers.",
		.caveat_zh = "很多驱动在修改环形缓冲大小时会短暂重置链路。",
	},
	{
		.name = "net.core.default_qdisc",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "pfifo_fast (kernel default; many distributions set fq_codel through "
				 "systemd's sysctl.d)",
		.check = "sysctl net.core.default_qdisc; tc -s qdisc show dev IF (the qdisc in use, its "
			 "drops and backlog)",
		.change_en = "Prefer fq_codel (short queues: it drops or marks packets that waited too "
			     "long) or fq (per-flow pacing, the usual partner of bbr): sysctl -w "
			     "net.core.default_qdisc=fq_codel, then re-create the device's root qdisc "
			     "(tc qdisc replace dev IF root fq_codel), since the default only applies to "
			     "qdiscs created afterwards.",
		.change_zh = "优先使用 fq_codel（短队列：排队过久的报文会被丢弃或标记）或 fq（按流 pacing，"
			     "bbr 的常见搭配）：sysctl -w net.core.default_qdisc=fq_codel，然后重建网卡的"
			     "根 qdisc（tc qdisc replace dev IF root fq_codel），因为默认值只对之后新建的 "
			     "qdisc 生效。",
		.caveat_en = "Only in the initial network namespace, and only for devices that have a "
			     "queue: veth and loopback default to noqueue, so a container's packets queue "
			     "where they leave the host. fq_codel drops packets after it has accepted them "
			     "(TCP counted them as sent: a sender-side capture shows the retransmission but "
			     "not the original); pfifo_fast refuses packets only when its txqueuelen "
			     "(1000 packets) is full, and TCP then sends that data again as new data.",
		.caveat_zh = "仅在初始网络命名空间中存在，且只作用于有队列的设备：veth 和 loopback 默认是 "
			     "noqueue，容器的报文在离开宿主机的网卡处排队。fq_codel 会在接纳报文之后再丢弃"
			     "（TCP 已认为它发出：发送端抓包只看到重传、看不到原始报文）；pfifo_fast 只在 "
			     "txqueuelen（1000 个报文）满时拒收，TCP 随后会把这些数据当作新数据重新发送。",
	},
	{
		.name = "local netfilter drops",
		.kind = PD_KB_FIREWALL,
		.side = PD_SIDE_BOTH,
		.default_value = NULL,
		.check = "nft list ruleset (counters of drop and reject rules in the input, output and "
			 "postrouting chains); iptables -L -v -n; iptables -t mangle -L -v -n; conntrack -S "
			 "(drop, early_drop, invalid, insert_failed)",
		.change_en = "Find the host's own rule or conntrack check that drops the connection's "
			     "packets and fix it: allow the traffic, raise the rate limit, or size the "
			     "conntrack table (net.netfilter.nf_conntrack_max).",
		.change_zh = "找到本机丢弃该连接报文的规则或 conntrack 检查并修正：放行流量、放宽限速，"
			     "或调整连接跟踪表大小（net.netfilter.nf_conntrack_max）。",
		.caveat_en = "On the receiving host an input or prerouting drop happens after the capture "
			     "tap: the capture shows packets that arrived and were never acknowledged. On "
			     "the sending host an output or postrouting drop of a TCP segment is reported to "
			     "TCP at once, and TCP sends the data again as new data: no retransmission and no "
			     "gap in the capture (measured on kernel 6.18); only the rule counters show it.",
		.caveat_zh = "在接收主机上，input 或 prerouting 链的丢弃发生在抓包点之后：抓包中能看到"
			     "报文已到达却始终没有被确认。在发送主机上，output 或 postrouting 链丢弃 TCP "
			     "报文时会立即通知 TCP，TCP 把这些数据当作新数据重新发送：抓包里既没有重传也没有"
			     "序号空洞（在 6.18 内核上实测），只有规则计数器能看到。",
	},
	{
		.name = "net.ipv4.tcp_congestion_control",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "cubic (kernel default; distributions may choose bbr)",
		.check = "sysctl net.ipv4.tcp_congestion_control "
			 "net.ipv4.tcp_available_congestion_control; ss -ti (shows the algorithm)",
		.change_en = "On lossy long-RTT paths try bbr on the sender (modprobe tcp_bbr; "
			     "sysctl -w net.ipv4.tcp_congestion_control=bbr) or per route (ip route "
			     "... congctl bbr).",
		.change_zh = "在丢包较多、RTT 较长的路径上，可在发送端尝试 bbr（modprobe tcp_bbr；"
			     "sysctl -w net.ipv4.tcp_congestion_control=bbr），或按路由设置（ip route ... "
			     "congctl bbr）。",
		.caveat_en = "Only the sender's algorithm matters. It does not fix a receive-window or "
			     "application limit.",
		.caveat_zh = "只有发送端的算法起作用。它不能解决接收窗口或应用层的限制。",
	},
	{
		.name = "net.ipv4.tcp_slow_start_after_idle",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "1",
		.check = "sysctl net.ipv4.tcp_slow_start_after_idle",
		.change_en = "Set 0 on the sender of long-lived connections with bursty traffic "
			     "(HTTP/2, RPC) so the congestion window survives idle periods.",
		.change_zh = "对有突发流量的长连接（HTTP/2、RPC），在发送端设为 0，使拥塞窗口在空闲后保留。",
		.caveat_en = "With 1 the congestion window is halved for every RTO of idleness, down to "
			     "the initial window; with 0 a full-window burst is sent into a path whose "
			     "state may have changed.",
		.caveat_zh = "设为 1 时，每空闲一个 RTO 拥塞窗口减半，最低降到初始窗口；设为 0 时，"
			     "会按旧窗口把整窗突发发到可能已变化的路径上。",
	},
	{
		.name = "route initcwnd",
		.kind = PD_KB_ROUTE,
		.side = PD_SIDE_SENDER,
		.default_value = "10 segments",
		.check = "ip route show (initcwnd attribute; absent means 10)",
		.change_en = "On the sender: ip route change PREFIX via GW dev IF initcwnd N (e.g. 20) "
			     "for short transfers over long RTTs.",
		.change_zh = "在发送端：ip route change PREFIX via GW dev IF initcwnd N（如 20），"
			     "适用于长 RTT 上的短传输。",
		.caveat_en = "Bigger initial bursts can overflow shallow buffers; the receiver's window "
			     "(route initrwnd on Linux receivers) must allow it too.",
		.caveat_zh = "更大的初始突发可能溢出浅缓冲；接收端的窗口（Linux 接收端可用 route initrwnd）"
			     "也必须允许。",
	},
	{
		.name = "route initrwnd",
		.kind = PD_KB_ROUTE,
		.side = PD_SIDE_RECEIVER,
		.default_value = "chosen by the kernel from the receive buffer",
		.check = "ip route show (initrwnd attribute)",
		.change_en = "On the receiver: ip route change PREFIX via GW dev IF initrwnd N "
			     "(segments) so a larger initial window is advertised.",
		.change_zh = "在接收端：ip route change PREFIX via GW dev IF initrwnd N（单位为段），"
			     "以通告更大的初始窗口。",
		.caveat_en = "Only helps when the sender's initial congestion window is larger than the "
			     "receiver's initial window.",
		.caveat_zh = "只有当发送端初始拥塞窗口大于接收端初始窗口时才有帮助。",
	},
	{
		.name = "net.ipv4.tcp_keepalive_time",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_BOTH,
		.default_value = "7200 (seconds)",
		.check = "sysctl net.ipv4.tcp_keepalive_time; ss -tno (timer:(keepalive,...))",
		.change_en = "Lower it (or TCP_KEEPIDLE per socket) below the idle timeout of NATs, "
			     "firewalls and load balancers on the path (often 300-3600 s).",
		.change_zh = "将其（或套接字选项 TCP_KEEPIDLE）调到小于路径上 NAT、防火墙、负载均衡的空闲超时"
			     "（通常 300-3600 秒）。",
		.caveat_en = "Applies only to sockets with SO_KEEPALIVE enabled; TCP_KEEPIDLE overrides it "
			     "per socket.",
		.caveat_zh = "只对开启了 SO_KEEPALIVE 的套接字生效；TCP_KEEPIDLE 可按套接字覆盖。",
	},
	{
		.name = "net.ipv4.tcp_keepalive_intvl",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_BOTH,
		.default_value = "75 (seconds)",
		.check = "sysctl net.ipv4.tcp_keepalive_intvl",
		.change_en = "Lower it (or TCP_KEEPINTVL) to detect a dead peer sooner after the first "
			     "unanswered probe.",
		.change_zh = "调小它（或 TCP_KEEPINTVL），在首个探测未被应答后更快发现对端失效。",
		.caveat_en = "Dead-peer detection takes keepalive_time + intvl x probes (about 2 h 11 min "
			     "by default).",
		.caveat_zh = "发现对端失效的时间为 keepalive_time + intvl × probes（默认约 2 小时 11 分）。",
	},
	{
		.name = "net.ipv4.tcp_keepalive_probes",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_BOTH,
		.default_value = "9",
		.check = "sysctl net.ipv4.tcp_keepalive_probes",
		.change_en = "Lower it (or TCP_KEEPCNT) to give up on an unreachable peer sooner.",
		.change_zh = "调小它（或 TCP_KEEPCNT）可更快放弃不可达的对端。",
		.caveat_en = "Too few probes can drop connections across a short outage.",
		.caveat_zh = "探测次数太少可能在短暂中断时误断连接。",
	},
	{
		.name = "SO_KEEPALIVE",
		.kind = PD_KB_SOCKOPT,
		.side = PD_SIDE_BOTH,
		.default_value = "off",
		.check = "ss -tno (a keepalive timer is listed only for sockets that enabled it)",
		.change_en = "Enable it (with TCP_KEEPIDLE/TCP_KEEPINTVL/TCP_KEEPCNT) for long idle "
			     "connections, or use application-level heartbeats.",
		.change_zh = "对长时间空闲的连接开启它（配合 TCP_KEEPIDLE/TCP_KEEPINTVL/TCP_KEEPCNT），"
			     "或使用应用层心跳。",
		.caveat_en = "Keepalive probes carry no data; some middleboxes do not count them as "
			     "activity.",
		.caveat_zh = "保活探测不带数据；部分中间设备不会把它算作活动流量。",
	},
	{
		.name = "net.ipv4.tcp_sack",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_BOTH,
		.default_value = "1",
		.check = "sysctl net.ipv4.tcp_sack; look for SACK_PERM in both SYNs",
		.change_en = "Keep 1 on both ends so several losses per window recover in one round "
			     "trip.",
		.change_zh = "两端保持 1，使一个窗口内的多个丢包能在一个往返内恢复。",
		.caveat_en = "Middleboxes that rewrite sequence numbers without fixing SACK blocks break "
			     "SACK; then the fix is in the middlebox.",
		.caveat_zh = "改写序列号却不修正 SACK 块的中间设备会破坏 SACK，此时应修复中间设备。",
	},
	{
		.name = "net.ipv4.tcp_retries2",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "15 (about 15 minutes of retries)",
		.check = "sysctl net.ipv4.tcp_retries2",
		.change_en = "Lower it (e.g. 8, roughly 100 s) when connections to dead peers must fail "
			     "sooner; or set TCP_USER_TIMEOUT per socket.",
		.change_zh = "当需要更快放弃已失效的对端时调小（如 8，约 100 秒）；或按套接字设置 "
			     "TCP_USER_TIMEOUT。",
		.caveat_en = "The time is computed from an exponential RTO schedule, not a fixed count "
			     "of seconds; too low breaks connections across short outages.",
		.caveat_zh = "超时时间按指数退避的 RTO 计算，而不是固定秒数；设得过小会在短暂中断时断开连接。",
	},
	{
		.name = "net.ipv4.tcp_recovery",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "1 (RACK loss detection)",
		.check = "sysctl net.ipv4.tcp_recovery net.ipv4.tcp_early_retrans",
		.change_en = "Keep the default; RACK and tail loss probes shorten recovery of the last "
			     "segments of a burst.",
		.change_zh = "保持默认值；RACK 与尾部丢包探测可缩短突发末尾报文的恢复时间。",
		.caveat_en = "Disabling them makes tail losses wait for a full RTO.",
		.caveat_zh = "关闭后，尾部丢包需要等待完整的 RTO。",
	},
	{
		.name = "net.ipv4.tcp_early_retrans",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "3 (tail loss probes on)",
		.check = "sysctl net.ipv4.tcp_early_retrans",
		.change_en = "Keep 3 so a tail loss is probed after about two RTTs instead of an RTO.",
		.change_zh = "保持 3，使尾部丢包在约两个 RTT 后即被探测，而不是等 RTO。",
		.caveat_en = "0 turns tail loss probes off.",
		.caveat_zh = "设为 0 会关闭尾部丢包探测。",
	},
	/* ---------------- MTU, fragmentation ---------------- */
	{
		.name = "net.ipv4.tcp_mtu_probing",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "0",
		.check = "sysctl net.ipv4.tcp_mtu_probing net.ipv4.tcp_base_mss",
		.change_en = "Set 1 on the sender: after repeated timeouts of full-size segments TCP "
			     "probes smaller sizes (packetization-layer PMTU discovery), which survives "
			     "ICMP black holes.",
		.change_zh = "在发送端设为 1：当满尺寸报文反复超时后，TCP 会探测更小的尺寸"
			     "（分组层 PMTU 发现），可绕过 ICMP 黑洞。",
		.caveat_en = "0 off, 1 only after a black hole is detected, 2 always. Recovery still "
			     "costs a few RTOs per connection; fixing ICMP filtering or clamping MSS is "
			     "better.",
		.caveat_zh = "0 关闭，1 仅在检测到黑洞后启用，2 始终启用。每个连接仍要损失几个 RTO；"
			     "修复 ICMP 过滤或进行 MSS 钳制更好。",
	},
	{
		.name = "net.ipv4.tcp_base_mss",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "1024",
		.check = "sysctl net.ipv4.tcp_base_mss",
		.change_en = "Leave it unless the path MTU is below about 1064 bytes; it is the MSS that "
			     "MTU probing starts from.",
		.change_zh = "除非路径 MTU 低于约 1064 字节，否则保持不变；它是 MTU 探测的起始 MSS。",
		.caveat_en = "Only used when net.ipv4.tcp_mtu_probing is non-zero.",
		.caveat_zh = "仅在 net.ipv4.tcp_mtu_probing 非 0 时使用。",
	},
	{
		.name = "interface MTU",
		.kind = PD_KB_INTERFACE,
		.side = PD_SIDE_PATH,
		.default_value = "1500 on Ethernet",
		.check = "ip link show dev IF (mtu); tracepath HOST; ping -M do -s SIZE HOST",
		.change_en = "Set the MTU of tunnel and overlay interfaces to the underlay MTU minus the "
			     "encapsulation (VXLAN 50 B, GRE 24 B, IPsec about 50-70 B): ip link set IF "
			     "mtu N.",
		.change_zh = "把隧道和 overlay 接口的 MTU 设为底层 MTU 减去封装开销（VXLAN 50 字节，"
			     "GRE 24 字节，IPsec 约 50-70 字节）：ip link set IF mtu N。",
		.caveat_en = "Both ends derive their MSS from their own interface MTU; a smaller MTU "
			     "somewhere in the path is invisible to them without ICMP.",
		.caveat_zh = "两端各自根据本机接口 MTU 计算 MSS；路径中间更小的 MTU 在没有 ICMP 时它们无法得知。",
	},
	{
		.name = "MSS clamping",
		.kind = PD_KB_FIREWALL,
		.side = PD_SIDE_PATH,
		.default_value = "off",
		.check = "nft list ruleset | grep maxseg; iptables -t mangle -S | grep TCPMSS",
		.change_en = "On the router or tunnel endpoint: iptables -t mangle -A FORWARD -p tcp "
			     "--tcp-flags SYN,RST SYN -j TCPMSS --clamp-mss-to-pmtu, or in nftables: "
			     "tcp flags syn tcp option maxseg size set rt mtu.",
		.change_zh = "在路由器或隧道端点上：iptables -t mangle -A FORWARD -p tcp --tcp-flags "
			     "SYN,RST SYN -j TCPMSS --clamp-mss-to-pmtu，或 nftables：tcp flags syn tcp "
			     "option maxseg size set rt mtu。",
		.caveat_en = "Fixes TCP only (UDP and ICMP still need PMTU discovery) and only for "
			     "connections whose SYN passes through that device.",
		.caveat_zh = "只对 TCP 有效（UDP 和 ICMP 仍依赖 PMTU 发现），且只对 SYN 经过该设备的连接有效。",
	},
	{
		.name = "firewall dropping ICMP frag-needed",
		.kind = PD_KB_FIREWALL,
		.side = PD_SIDE_PATH,
		.default_value = NULL,
		.check = "nft list ruleset; iptables -S; ip6tables -S; cloud security groups (is ICMP "
			 "type 3 code 4 / ICMPv6 type 2 allowed?)",
		.change_en = "Allow ICMP destination-unreachable fragmentation-needed (type 3 code 4) and "
			     "ICMPv6 Packet Too Big (type 2) toward the senders.",
		.change_zh = "放行发往发送端的 ICMP 目的不可达-需要分片（类型 3 代码 4）和 ICMPv6 "
			     "Packet Too Big（类型 2）。",
		.caveat_en = "IPv6 routers never fragment: blocking Packet Too Big always creates a "
			     "black hole for large packets.",
		.caveat_zh = "IPv6 路由器从不分片：拦截 Packet Too Big 必然造成大包黑洞。",
	},
	{
		.name = "net.ipv4.ip_no_pmtu_disc",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "0 (PMTU discovery on)",
		.check = "sysctl net.ipv4.ip_no_pmtu_disc",
		.change_en = "Keep 0 so TCP sets DF and adapts to frag-needed messages.",
		.change_zh = "保持 0，使 TCP 设置 DF 并根据“需要分片”消息调整。",
		.caveat_en = "1 sends IPv4 without DF so routers fragment instead; modes 2 and 3 change "
			     "which frag-needed messages are believed (see the kernel's ip-sysctl "
			     "documentation). IPv6 is not affected.",
		.caveat_zh = "设为 1 时 IPv4 报文不带 DF，由路由器分片；2 和 3 两种模式改变对“需要分片”"
			     "消息的信任方式（见内核 ip-sysctl 文档）。对 IPv6 无效。",
	},
	{
		.name = "firewall dropping fragments",
		.kind = PD_KB_FIREWALL,
		.side = PD_SIDE_PATH,
		.default_value = NULL,
		.check = "nft list ruleset; iptables -S (rules matching fragments, e.g. ip frag-off or "
			 "-f); cloud security groups; capture on both sides of the firewall",
		.change_en = "Let fragments of the service's traffic through, or avoid fragmentation by "
			     "making datagrams smaller than the path MTU.",
		.change_zh = "放行该业务流量的分片，或让数据报小于路径 MTU 以避免分片。",
		.caveat_en = "Non-first fragments carry no ports, so port-based rules and stateless ACLs "
			     "often drop them while the first fragment passes.",
		.caveat_zh = "非首个分片不携带端口，基于端口的规则和无状态 ACL 常常丢弃它们，而首个分片能通过。",
	},
	{
		.name = "net.ipv4.ipfrag_high_thresh",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_RECEIVER,
		.default_value = "4194304 (low threshold 3145728)",
		.check = "sysctl net.ipv4.ipfrag_high_thresh net.ipv4.ipfrag_low_thresh; nstat -az "
			 "IpReasmFails IpReasmTimeout",
		.change_en = "Raise it on a receiver that reassembles many large fragmented datagrams at "
			     "once.",
		.change_zh = "当接收端需同时重组大量分片数据报时调大。",
		.caveat_en = "Memory for incomplete datagrams per network namespace; when exceeded, new "
			     "fragments are dropped. Avoiding fragmentation is the better fix.",
		.caveat_zh = "这是每个网络命名空间中未完成重组数据报可用的内存；超过后新分片会被丢弃。"
			     "避免分片是更好的办法。",
	},
	{
		.name = "net.ipv4.ipfrag_time",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_RECEIVER,
		.default_value = "30 (seconds)",
		.check = "sysctl net.ipv4.ipfrag_time; nstat -az IpReasmTimeout",
		.change_en = "Rarely worth changing: incomplete datagrams are discarded after this time; "
			     "find why fragments are lost.",
		.change_zh = "通常不需要修改：未完成的数据报在此时间后丢弃；应查找分片丢失的原因。",
		.caveat_en = "One lost fragment loses the whole datagram, whatever this value.",
		.caveat_zh = "无论取值多少，丢失一个分片就会丢掉整个数据报。",
	},
	{
		.name = "application datagram size",
		.kind = PD_KB_APP,
		.side = PD_SIDE_SENDER,
		.default_value = NULL,
		.check = "Application configuration (DNS: EDNS buffer size; dig +bufsize=1232 shows the "
			 "effect)",
		.change_en = "Keep UDP datagrams below the path MTU: DNS servers and resolvers with an EDNS "
			     "buffer size of 1232 bytes (unbound edns-buffer-size, BIND edns-udp-size and "
			     "max-udp-size), falling back to TCP for larger answers.",
		.change_zh = "让 UDP 数据报小于路径 MTU：DNS 服务器与解析器的 EDNS 缓冲区设为 1232 字节"
			     "（unbound edns-buffer-size，BIND edns-udp-size 和 max-udp-size），"
			     "更大的应答改走 TCP。",
		.caveat_en = "UDP has no MSS: the application's message size decides whether IP fragments.",
		.caveat_zh = "UDP 没有 MSS：是否分片由应用的消息大小决定。",
	},
	/* ---------------- capture ---------------- */
	{
		.name = "NIC offloads",
		.kind = PD_KB_INTERFACE,
		.side = PD_SIDE_BOTH,
		.default_value = "TSO/GSO/GRO usually on",
		.check = "ethtool -k IF | grep -E 'segmentation-offload|receive-offload'",
		.change_en = "Nothing to fix on the network. For a capture that shows wire-sized "
			     "packets, capture on another host or switch port, or (on a test host only) "
			     "ethtool -K IF tso off gso off gro off lro off.",
		.change_zh = "网络本身无需修复。如需抓到线上真实大小的报文，可在其他主机或交换机镜像口抓包，"
			     "或（仅在测试主机上）执行 ethtool -K IF tso off gso off gro off lro off。",
		.caveat_en = "Offloads make the capture show segments larger than the MSS; turning them "
			     "off costs CPU and changes the behaviour being measured.",
		.caveat_zh = "卸载功能会让抓包中出现大于 MSS 的报文；关闭它们会增加 CPU 开销并改变被测行为。",
	},
	{
		.name = "capture buffer",
		.kind = PD_KB_APP,
		.side = PD_SIDE_BOTH,
		.default_value = "2 MiB (libpcap on Linux)",
		.check = "tcpdump's exit statistics (packets dropped by kernel)",
		.change_en = "Capture with a larger buffer (tcpdump -B 65536, in KiB), a capture filter, "
			     "a shorter snaplen, and write to a fast disk with -w.",
		.change_zh = "使用更大的抓包缓冲（tcpdump -B 65536，单位 KiB）、抓包过滤器、更短的 snaplen，"
			     "并用 -w 写到快速磁盘。",
		.caveat_en = "Capture drops look like packet loss but the packets did cross the network "
			     "(the peer ACKed them).",
		.caveat_zh = "抓包丢失看起来像网络丢包，但这些报文其实已经过网络（对端已确认）。",
	},
	{
		.name = "capture snaplen",
		.kind = PD_KB_APP,
		.side = PD_SIDE_BOTH,
		.default_value = "262144 bytes (tcpdump)",
		.check = "capinfos FILE (packet size limit); tcpdump -s",
		.change_en = "Use -s 0 (full packets) when payload matters; headers-only captures are fine "
			     "for TCP analysis.",
		.change_zh = "需要载荷时使用 -s 0（完整报文）；仅分析 TCP 时只抓报文头即可。",
		.caveat_en = "pcapdoc uses the lengths in the IP and TCP headers, so truncation does not "
			     "distort sizes; it hides payload and application detection.",
		.caveat_zh = "pcapdoc 使用 IP 和 TCP 头中的长度，截断不会影响大小判断；但会隐藏载荷并影响应用识别。",
	},
};

const size_t pd_kb_len = sizeof pd_kb / sizeof pd_kb[0];

const pd_setting *pd_kb_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < pd_kb_len; i++)
		if (strcmp(pd_kb[i].name, name) == 0)
			return &pd_kb[i];
	return NULL;
}

const char *pd_kb_kind_name(pd_kb_kind k)
{
	switch (k) {
	case PD_KB_SYSCTL:
		return "sysctl";
	case PD_KB_SOCKOPT:
		return "socket-option";
	case PD_KB_ROUTE:
		return "route";
	case PD_KB_APP:
		return "application";
	case PD_KB_FIREWALL:
		return "firewall";
	case PD_KB_INTERFACE:
		return "interface";
	}
	return "unknown";
}

const char *pd_kb_side_name(pd_kb_side s)
{
	switch (s) {
	case PD_SIDE_CLIENT:
		return "client";
	case PD_SIDE_SERVER:
		return "server";
	case PD_SIDE_BOTH:
		return "both";
	case PD_SIDE_SENDER:
		return "sender";
	case PD_SIDE_RECEIVER:
		return "receiver";
	case PD_SIDE_PATH:
		return "path";
	}
	return "unknown";
}
