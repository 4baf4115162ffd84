/* The settings knowledge base.
 *
 * One designated-initializer entry per setting so each can be reviewed on
 * its own. Defaults are those of current mainline Linux (checked on 6.18 in
 * a fresh network namespace, which shows the per-namespace defaults);
 * where a default scales with memory or changed recently, the entry says
 * so instead of pretending to a single number, and where the behaviour
 * depends on the kernel version the entry says which versions.
 *
 * Check commands must be safe on a production host: they read state, they
 * never change it, and they never stop or slow a process (no tracer
 * attached to a pid, no sysctl -w; tests/test_kb.c rejects such forms).
 * What no safe command can show is said in the caveat. Texts are plain: no
 * backquotes (the Markdown renderer puts commands in code spans).
 *
 * check_zh is the check for a Chinese report: the commands, options, sysctl
 * and counter names, paths and placeholders (IF, DEV, PEER, ...) exactly as
 * in check, the prose around them in Chinese; a check that is only commands
 * has the same string (tests/test_kb.c holds them to this).
 *
 * causes: the findings the setting can produce, or whose limit or delay it
 * sets (kb.h). A catalogue or detector ranking may name a setting only for
 * a finding listed here. */
#include "knowledge/kb.h"

#include <string.h>

#define CAUSES(...) .causes = {__VA_ARGS__, NULL}

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
		.check_zh = "sysctl net.core.somaxconn；ss -lnt（对监听套接字，Send-Q "
			    "是全连接队列的上限，Recv-Q 是其当前长度）；nstat -az "
			    "TcpExtListenOverflows TcpExtListenDrops",
		.change_en = "Raise it (e.g. sysctl -w net.core.somaxconn=8192, persist in "
			     "/etc/sysctl.d/) and raise the application's listen() backlog with it; "
			     "the limit in effect is min(backlog, somaxconn), and the queue holds one "
			     "connection more than that.",
		.change_zh = "调大该值（如 sysctl -w net.core.somaxconn=8192，并写入 /etc/sysctl.d/ "
			     "持久化），同时调大应用 listen() 的 backlog；实际生效的上限为 "
			     "min(backlog, somaxconn)，队列能比它多容纳一个连接。",
		.caveat_en = "The value is read when listen() is called: restart (or re-listen) the "
			     "service after changing it. A bigger queue only absorbs bursts; if the "
			     "application accepts too slowly the queue fills again and connections wait "
			     "longer instead of failing fast. The same limit also caps the listener's "
			     "SYN queue, so a small one sends SYN cookies early.",
		.caveat_zh = "该值在调用 listen() 时读取，修改后需重启服务（或重新 listen）才生效。"
			     "更大的队列只能吸收突发；如果应用 accept 太慢，队列仍会被填满，"
			     "连接只是等待更久而不是快速失败。这个上限同样限制监听套接字的 SYN 队列，"
			     "所以上限过小时会很早就开始发送 SYN cookie。",
		CAUSES("syn-retransmit", "syn-unanswered", "synack-retransmit", "accept-queue-overflow",
		       "syncookies", "listener-overload", "syn-flood"),
	},
	{
		.name = "listen() backlog",
		.kind = PD_KB_APP,
		.side = PD_SIDE_SERVER,
		.default_value = "application-specific (nginx 511, many runtimes 128 or 50)",
		.check = "ss -lnt (Send-Q of the LISTEN socket is the backlog in effect)",
		.check_zh = "ss -lnt（LISTEN 套接字的 Send-Q 即实际生效的 backlog）",
		.change_en = "Raise the backlog in the server's configuration (nginx: listen ... "
			     "backlog=N; Java ServerSocket backlog; Python socket.listen(N)) and keep "
			     "net.core.somaxconn at least as large.",
		.change_zh = "在服务端配置中调大 backlog（nginx: listen ... backlog=N；Java "
			     "ServerSocket 的 backlog 参数；Python socket.listen(N)），并保证 "
			     "net.core.somaxconn 不小于它。",
		.caveat_en = "The kernel silently truncates the backlog to net.core.somaxconn, so a "
			     "large backlog in the configuration may not be what ss -lnt shows. A full "
			     "queue never makes Linux answer a SYN with a RST: it drops the SYN (or the "
			     "handshake's last ACK) and the client retries.",
		.caveat_zh = "内核会把 backlog 静默截断为 net.core.somaxconn，配置里写得很大不等于"
			     "实际生效，以 ss -lnt 显示为准。队列满时 Linux 从不用 RST 应答 SYN：它丢弃 "
			     "SYN（或握手的最后一个 ACK），由客户端重试。",
		CAUSES("syn-retransmit", "syn-unanswered", "synack-retransmit", "accept-queue-overflow",
		       "syncookies", "listener-overload", "syn-flood"),
	},
	{
		.name = "accept loop",
		.kind = PD_KB_APP,
		.side = PD_SIDE_SERVER,
		.default_value = NULL,
		.check = "ss -lnt (Recv-Q close to Send-Q means accept() is not keeping up); "
			 "top/pidstat for the server's CPU; application thread-pool metrics",
		.check_zh = "ss -lnt（Recv-Q 接近 Send-Q 说明 accept() 跟不上）；用 top/pidstat "
			    "查看服务端的 CPU；应用的线程池指标",
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
		CAUSES("syn-retransmit", "syn-unanswered", "synack-retransmit", "accept-queue-overflow",
		       "listener-overload"),
	},
	{
		.name = "TCP_DEFER_ACCEPT",
		.kind = PD_KB_SOCKOPT,
		.side = PD_SIDE_SERVER,
		.default_value = "off (nginx listen ... deferred, HAProxy defer-accept turn it on)",
		.check = "The server's configuration (nginx deferred, HAProxy defer-accept, "
			 "setsockopt TCP_DEFER_ACCEPT); nstat -az TcpExtTCPDeferAcceptDrop",
		.check_zh = "服务端的配置（nginx deferred、HAProxy defer-accept、setsockopt "
			    "TCP_DEFER_ACCEPT）；nstat -az TcpExtTCPDeferAcceptDrop",
		.change_en = "Turn it off for protocols where the server speaks first (SMTP, FTP, "
			     "MySQL, SSH), or keep its timeout short; it only helps protocols where the "
			     "client sends the first bytes.",
		.change_zh = "对服务端先发言的协议（SMTP、FTP、MySQL、SSH）关闭它，或把超时设短；"
			     "它只对客户端先发送数据的协议有用。",
		.caveat_en = "The listener drops the handshake's bare ACK and waits for data, and "
			     "re-sends its SYN-ACK only when the deferring period ends: in a capture this "
			     "looks exactly like an accept-queue overflow (SYN-ACK repeated after the "
			     "client's ACK). TcpExtTCPDeferAcceptDrop tells the two apart.",
		.caveat_zh = "监听端丢弃握手中不带数据的 ACK，等待数据到来，直到延迟期结束才重发 "
			     "SYN-ACK：在抓包中这与全连接队列溢出完全相同（客户端 ACK 之后又出现 "
			     "SYN-ACK）。可用 TcpExtTCPDeferAcceptDrop 区分两者。",
		CAUSES("accept-queue-overflow", "synack-retransmit"),
	},
	{
		.name = "net.ipv4.tcp_max_syn_backlog",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SERVER,
		.default_value = "scaled with memory at boot, at least 128 (often 1024-4096)",
		.check = "sysctl net.ipv4.tcp_max_syn_backlog net.ipv4.tcp_syncookies; nstat -az "
			 "TcpExtListenDrops TcpExtTCPReqQFullDrop TcpExtTCPReqQFullDoCookies",
		.check_zh = "sysctl net.ipv4.tcp_max_syn_backlog net.ipv4.tcp_syncookies; nstat "
			    "-az TcpExtListenDrops TcpExtTCPReqQFullDrop "
			    "TcpExtTCPReqQFullDoCookies",
		.change_en = "Raise it together with net.core.somaxconn and the listen() backlog "
			     "when many half-open connections are legitimate (high connection rate, "
			     "long RTTs) and tcp_syncookies is 0.",
		.change_zh = "当大量半连接是正常业务（高建连速率、长 RTT）且 tcp_syncookies 为 0 时，"
			     "与 net.core.somaxconn 和 listen() backlog 一起调大。",
		.caveat_en = "On current kernels a listener's half-open (SYN) queue is also capped by "
			     "its accept backlog; this sysctl mainly matters with tcp_syncookies=0, where "
			     "SYNs from unverified peers are dropped once the queue is three-quarters full. "
			     "With cookies on it decides nothing about when they are sent.",
		.caveat_zh = "在当前内核中，监听套接字的半连接（SYN）队列同样受其 accept backlog 限制；"
			     "该参数主要在 tcp_syncookies=0 时起作用：队列满四分之三后，"
			     "来自未验证对端的 SYN 会被丢弃。开启 cookie 时，何时发送 cookie 与它无关。",
		CAUSES("syn-retransmit", "syn-unanswered", "listener-overload", "syn-flood"),
	},
	{
		.name = "net.ipv4.tcp_syncookies",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SERVER,
		.default_value = "1 (cookies only when the SYN queue overflows)",
		.check = "sysctl net.ipv4.tcp_syncookies; nstat -az TcpExtSyncookiesSent "
			 "TcpExtSyncookiesRecv TcpExtSyncookiesFailed; dmesg | grep -i 'SYN flooding'",
		.check_zh = "sysctl net.ipv4.tcp_syncookies; nstat -az TcpExtSyncookiesSent "
			    "TcpExtSyncookiesRecv TcpExtSyncookiesFailed; dmesg | grep -i 'SYN "
			    "flooding'",
		.change_en = "Keep it at 1. If cookies are sent under normal load, the queues are too "
			     "small: raise the listen() backlog and net.core.somaxconn rather than "
			     "changing this.",
		.change_zh = "保持为 1。若正常负载下也在发送 cookie，说明队列太小：应调大 listen() "
			     "backlog 和 net.core.somaxconn，而不是改这个参数。",
		.caveat_en = "A cookie SYN-ACK keeps no per-connection state: to a SYN without the "
			     "timestamp option it carries no window scaling and no SACK, so such "
			     "connections run with a 64 KiB window; to a SYN with timestamps it keeps both. "
			     "2 sends cookies always; 0 drops SYNs under a flood.",
		.caveat_zh = "cookie 方式的 SYN-ACK 不保存连接状态：应答不带时间戳选项的 SYN 时，"
			     "它不带窗口扩大和 SACK，这些连接的窗口被限制在 64 KiB；应答带时间戳的 SYN "
			     "时两者都会保留。设为 2 表示总是发送 cookie；设为 0 则在 SYN 洪泛时直接丢弃 SYN。",
		CAUSES("syncookies", "syn-flood", "window-scaling-disabled", "syn-retransmit",
		       "syn-unanswered", "listener-overload", "accept-queue-overflow"),
	},
	{
		.name = "net.ipv4.tcp_syn_retries",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_CLIENT,
		.default_value = "6",
		.check = "sysctl net.ipv4.tcp_syn_retries net.ipv4.tcp_syn_linear_timeouts; nstat -az "
			 "TcpExtTCPSynRetrans TcpAttemptFails",
		.check_zh = "sysctl net.ipv4.tcp_syn_retries net.ipv4.tcp_syn_linear_timeouts; "
			    "nstat -az TcpExtTCPSynRetrans TcpAttemptFails",
		.change_en = "Lower it (or set a connect timeout in the application) to fail over "
			     "faster to another server; it does not make the server answer.",
		.change_zh = "调小它（或在应用里设置连接超时）可以更快地切换到其他服务器；"
			     "它并不能让服务端应答。",
		.caveat_en = "With n retries and a 1 s initial RTO, kernels before 6.5 send n "
			     "retransmissions, 1, 3, 7 ... s after the first SYN, and connect() fails "
			     "after about 2^(n+1)-1 s (127 s for 6). Since 6.5 the kernel stops at the "
			     "first timeout after n + tcp_syn_linear_timeouts retransmissions or after "
			     "2^(n+1)-1 initial RTOs, whichever is first, and the first retries come 1 s "
			     "apart: with the defaults 10 retransmissions at 1, 2, 3, 4, 5, 7, 11, 19, 35 "
			     "and 67 s, and connect() fails after about 131 s (133 s measured on 6.18). "
			     "The capture shows which schedule ran. Per-socket TCP_SYNCNT overrides n; "
			     "TCP_USER_TIMEOUT also bounds connect().",
		.caveat_zh = "设重试次数为 n、初始 RTO 为 1 秒：6.5 之前的内核在首个 SYN 之后第 1、3、"
			     "7 …… 秒发出 n 次重传，connect() 约 2^(n+1)-1 秒后失败（n 为 6 时约 127 秒）。"
			     "从 6.5 起，内核在重传满 n + tcp_syn_linear_timeouts 次或经过 2^(n+1)-1 "
			     "个初始 RTO 之后（以先到者为准）的下一次超时放弃，且前几次重试间隔 1 秒："
			     "默认设置下共重传 10 次，分别在第 1、2、3、4、5、7、11、19、35、67 秒，"
			     "connect() 约 131 秒后失败（在 6.18 上实测 133 秒）。抓包可以看出实际是哪种"
			     "节奏。套接字选项 TCP_SYNCNT 可覆盖 n；TCP_USER_TIMEOUT 同样限制 connect()。",
		CAUSES("syn-unanswered"),
	},
	{
		.name = "net.ipv4.tcp_syn_linear_timeouts",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_CLIENT,
		.default_value = "4",
		.added_in = "6.5",
		.check = "sysctl net.ipv4.tcp_syn_linear_timeouts net.ipv4.tcp_syn_retries; in the "
			 "capture, SYN retries about 1 s apart before the gaps double",
		.check_zh = "sysctl net.ipv4.tcp_syn_linear_timeouts net.ipv4.tcp_syn_retries；"
			    "在抓包中，SYN 重试先是约 1 s 一次，之后间隔才开始翻倍",
		.change_en = "Nothing to fix: it makes a lost SYN cost about 1 s instead of up to 3 s. "
			     "To give up sooner on an unreachable server lower tcp_syn_retries or set a "
			     "connect timeout; 0 restores the classic doubling.",
		.change_zh = "无需修改：它让一个丢失的 SYN 只耽误约 1 秒，而不是最多 3 秒。"
			     "若要更快放弃不可达的服务器，应调小 tcp_syn_retries 或设置连接超时；"
			     "设为 0 则恢复经典的翻倍退避。",
		.caveat_en = "Only for connect() (SYN_SENT), not for a server's SYN-ACKs. Retransmissions "
			     "1 to this value + 1 each wait one initial RTO, then the wait doubles; it also "
			     "adds this many retransmissions to tcp_syn_retries, "
			     "so with the defaults a client sends 10 SYN retransmissions and gives up "
			     "after about 131 s.",
		.caveat_zh = "只作用于 connect()（SYN_SENT），不影响服务端的 SYN-ACK。第 1 次到第"
			     "（该值 + 1）次重传各等待一个初始 RTO，之后等待时间翻倍；它还会在 "
			     "tcp_syn_retries 之外再增加同样次数的重传，因此默认设置下客户端会重传 10 次 "
			     "SYN，约 131 秒后放弃。",
		CAUSES("syn-retransmit", "syn-unanswered"),
	},
	/* ---- the same for clients that are not Linux (dissect/peer_os.h) ---- */
	{
		.name = "net.inet.tcp.keepinit",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_CLIENT,
		.os = "macos",
		.default_value = "75000 (ms)",
		.check = "sysctl net.inet.tcp.keepinit",
		.check_zh = "sysctl net.inet.tcp.keepinit",
		.change_en = "On the macOS client: to fail over sooner to another server, give the application "
			     "a connect timeout (or TCP_CONNECTIONTIMEOUT on its socket) rather than lowering "
			     "this value for the whole host; it does not make the server answer.",
		.change_zh = "在 macOS 客户端上：若要更快切换到其他服务器，应在应用里设置连接超时（或在其套接字上"
			     "设置 TCP_CONNECTIONTIMEOUT），而不是为整台主机调小这个值；它并不能让服务端应答。",
		.caveat_en = "In milliseconds: a connect not answered within it fails, 75 s after the first SYN by "
			     "default. Before that macOS retries the SYN 1 s apart five times and then doubles the "
			     "wait (gaps of 1, 1, 1, 1, 1, 2, 4, 8, 16, 32 s), a schedule fixed in its kernel: no "
			     "setting changes the gaps. The same gaps come from Linux 6.5 and later; the SYN's "
			     "options tell the two apart.",
		.caveat_zh = "单位是毫秒：在此时间内得不到应答的连接会失败，默认是首个 SYN 之后 75 秒。在此之前，"
			     "macOS 以 1 秒的间隔重试 SYN 五次，之后等待时间翻倍（间隔 1、1、1、1、1、2、4、8、16、"
			     "32 秒），这个节奏固定在内核里，没有设置能改变这些间隔。Linux 6.5 及以后的间隔与此"
			     "相同，要靠 SYN 的选项区分两者。",
		CAUSES("syn-unanswered"),
	},
	{
		.name = "netsh int tcp maxsynretransmissions",
		.kind = PD_KB_NETSH,
		.side = PD_SIDE_CLIENT,
		.os = "windows",
		.default_value = "2 on Windows 7 and Server 2008 R2; recent releases show 4",
		.check = "netsh int tcp show global (Max SYN Retransmissions)",
		.check_zh = "netsh int tcp show global（看其中的 Max SYN Retransmissions）",
		.change_en = "On the Windows client: to fail over sooner, give the application a connect timeout "
			     "(per socket, SIO_TCP_INITIAL_RTO sets the retransmissions too) rather than changing "
			     "the host with netsh int tcp set global maxsynretransmissions=N; it does not make the "
			     "server answer.",
		.change_zh = "在 Windows 客户端上：若要更快切换，应在应用里设置连接超时（按套接字设置时，"
			     "SIO_TCP_INITIAL_RTO 也能设定重传次数），而不是用 netsh int tcp set global "
			     "maxsynretransmissions=N 修改整台主机；它并不能让服务端应答。",
		.caveat_en = "Windows doubles the wait from its initial RTO (Initial RTO in the same output) and "
			     "gives up at the timeout after the last retransmission: with 3000 ms and 2, SYNs at 0, "
			     "3 and 9 s and a failure after 21 s. Windows 7 and Server 2008 R2 can change neither "
			     "without hotfixes; XP and Server 2003 have neither, but the registry values "
			     "TcpMaxConnectRetransmissions and TcpInitialRTT (2 and 3 s).",
		.caveat_zh = "Windows 从它的初始 RTO（同一输出中的 Initial RTO）起把等待时间翻倍，并在最后一次重传"
			     "之后的下一个超时处放弃：取 3000 毫秒和 2 时，SYN 在第 0、3、9 秒发出，21 秒后失败。"
			     "Windows 7 和 Server 2008 R2 不打补丁就不能修改这两项；XP 和 Server 2003 没有这两项，"
			     "对应的是注册表值 TcpMaxConnectRetransmissions 和 TcpInitialRTT（2 和 3 秒）。",
		CAUSES("syn-unanswered"),
	},
	{
		.name = "netsh int tcp initialrto",
		.kind = PD_KB_NETSH,
		.side = PD_SIDE_CLIENT,
		.os = "windows",
		.default_value = "3000 ms on Windows 7 and Server 2008 R2; recent releases show 1000 ms",
		.check = "netsh int tcp show global (Initial RTO)",
		.check_zh = "netsh int tcp show global（看其中的 Initial RTO）",
		.change_en = "Usually nothing to change: it sets what a lost SYN costs the Windows client (the first "
			     "retry gap). Fix the loss instead: the path, or a firewall dropping SYNs or SYN-ACKs.",
		.change_zh = "通常无需修改：它决定一个丢失的 SYN 让 Windows 客户端多等多久（第一次重试的间隔）。"
			     "应当解决丢包本身：路径，或丢弃 SYN、SYN-ACK 的防火墙。",
		.caveat_en = "With 3000 ms the retry gaps are 3 and 6 s, so a single lost SYN costs 3 s; the gaps "
			     "double from it. netsh int tcp set global initialrto=MS changes it for the host, "
			     "SIO_TCP_INITIAL_RTO for one socket.",
		.caveat_zh = "取 3000 毫秒时重试间隔是 3 秒和 6 秒，丢一个 SYN 就多花 3 秒；之后的间隔由它翻倍而来。"
			     "netsh int tcp set global initialrto=MS 修改整台主机，SIO_TCP_INITIAL_RTO 修改单个"
			     "套接字。",
		CAUSES("syn-retransmit", "syn-unanswered"),
	},
	{
		.name = "TCP_USER_TIMEOUT",
		.kind = PD_KB_SOCKOPT,
		.side = PD_SIDE_BOTH,
		.default_value = "0 (off: the retries sysctls decide)",
		.check = "The application's or library's configuration (gRPC, database drivers, "
			 "HAProxy and others expose it) or source",
		.check_zh = "应用或库的配置（gRPC、数据库驱动、HAProxy 等都提供该选项）或源代码",
		.change_en = "Set it (in milliseconds) on sockets that must notice a dead peer or "
			     "path within a bounded time, e.g. 30000; it caps how long sent data may "
			     "stay unacknowledged before the connection is closed.",
		.change_zh = "在需要在限定时间内发现对端或路径失效的套接字上设置（单位毫秒，如 "
			     "30000）；它限定已发送数据最长可以多久得不到确认，超时即关闭连接。",
		.caveat_en = "It also bounds connect() and overrides the keepalive give-up "
			     "(keepalive_probes x intvl). Too low breaks connections across short outages. "
			     "No command shows it from outside the process.",
		.caveat_zh = "它同样限制 connect()，并取代保活的放弃条件（keepalive_probes × intvl）。"
			     "设得过小会在短暂中断时断开连接。无法从进程外部用命令查看它。",
		CAUSES("syn-unanswered", "rto-timeouts", "keepalive"),
	},
	{
		.name = "net.ipv4.tcp_synack_retries",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SERVER,
		.default_value = "5",
		.check = "sysctl net.ipv4.tcp_synack_retries; nstat -az TcpExtTCPSynRetrans",
		.check_zh = "sysctl net.ipv4.tcp_synack_retries; nstat -az TcpExtTCPSynRetrans",
		.change_en = "Rarely the fix. Lowering it frees half-open entries sooner under a SYN "
			     "flood; find why the client's ACK does not arrive or is dropped first.",
		.change_zh = "通常不是根本解法。在 SYN 洪泛时调小可更快释放半连接；"
			     "应先查明客户端的 ACK 为何没到或被丢弃。",
		.caveat_en = "With a 1 s initial RTO, 5 retries keep a half-open entry for about 63 s "
			     "on a quiet listener; once more than half of the SYN queue is in use, the "
			     "kernel retries older entries fewer times (down to 2), so under a flood they "
			     "go sooner. SYN-ACK retransmits after the client's ACK point to the accept "
			     "queue (or TCP_DEFER_ACCEPT), not to this setting.",
		.caveat_zh = "初始 RTO 为 1 秒时，在空闲的监听端上 5 次重试会让半连接保留约 63 秒；"
			     "当 SYN 队列使用超过一半时，内核会减少较老表项的重试次数（最少 2 次），"
			     "所以洪泛时它们会更早被清除。若客户端已经 ACK 后服务端仍重传 SYN-ACK，"
			     "问题在全连接队列（或 TCP_DEFER_ACCEPT），而不在此参数。",
		CAUSES("synack-retransmit", "syn-flood"),
	},
	{
		.name = "net.ipv4.tcp_abort_on_overflow",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SERVER,
		.default_value = "0",
		.check = "sysctl net.ipv4.tcp_abort_on_overflow; nstat -az TcpExtListenOverflows",
		.check_zh = "sysctl net.ipv4.tcp_abort_on_overflow; nstat -az "
			    "TcpExtListenOverflows",
		.change_en = "Keep 0 for bursty load (the client's ACK is dropped and the handshake "
			     "completes later). Set 1 only if clients must fail fast with a RST instead "
			     "of waiting.",
		.change_zh = "突发负载下保持 0（丢弃客户端的 ACK，握手稍后完成）。"
			     "只有在希望客户端立刻收到 RST 快速失败时才设为 1。",
		.caveat_en = "With 1 a short burst turns into connection resets seen by users; it "
			     "fixes nothing about the cause (a full accept queue).",
		.caveat_zh = "设为 1 后，短暂的突发就会变成用户可见的连接重置；"
			     "它并不能解决根因（全连接队列满）。",
		CAUSES("accept-queue-overflow"),
	},
	{
		.name = "net.netfilter.nf_conntrack_max",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_PATH,
		.default_value = "scaled with memory (e.g. 262144)",
		.check = "sysctl net.netfilter.nf_conntrack_count net.netfilter.nf_conntrack_max; "
			 "conntrack -S (drop, early_drop, insert_failed); dmesg | grep 'table full'",
		.check_zh = "sysctl net.netfilter.nf_conntrack_count "
			    "net.netfilter.nf_conntrack_max; conntrack -S (drop, early_drop, "
			    "insert_failed); dmesg | grep 'table full'",
		.change_en = "Raise nf_conntrack_max (and the hash size, nf_conntrack_buckets) on the "
			     "host or firewall that tracks connections. Exempting traffic from tracking "
			     "(notrack) is safe only for traffic that needs no NAT and is matched by "
			     "stateless rules in both directions: untracked packets are never NATed and "
			     "match ct state untracked, not established.",
		.change_zh = "在做连接跟踪的主机或防火墙上调大 nf_conntrack_max（以及哈希桶 "
			     "nf_conntrack_buckets）。对流量关闭跟踪（notrack）只适用于不需要 NAT、"
			     "且两个方向都由无状态规则匹配的流量：不被跟踪的报文不会做 NAT，匹配的是 "
			     "ct state untracked 而不是 established。",
		.caveat_en = "Only exists when the nf_conntrack module is loaded, and is read-only in a "
			     "container's network namespace: change it on the host (each namespace's "
			     "entries are counted against it separately). When the table is "
			     "full new flows' first packets (SYNs) are dropped for every client at once; "
			     "each entry costs a few hundred bytes of kernel memory. The conntrack "
			     "timeouts (nf_conntrack_tcp_timeout_*) decide how long entries stay.",
		.caveat_zh = "仅在加载 nf_conntrack 模块时存在，且在容器的网络命名空间中只读："
			     "需在宿主机上修改（每个命名空间的表项分别与它比较）。表满时所有客户端新连接的首包（SYN）都会被丢弃；"
			     "每个表项占用几百字节内核内存。conntrack 的各类超时"
			     "（nf_conntrack_tcp_timeout_*）决定表项保留多久。",
		CAUSES("syn-retransmit", "syn-unanswered", "listener-overload", "state-table-full"),
	},
	{
		.name = "firewall connection limit",
		.kind = PD_KB_FIREWALL,
		.side = PD_SIDE_PATH,
		.default_value = NULL,
		.check = "nft list ruleset (ct count, limit and meter rules and their counters); iptables -S "
			 "(connlimit, hashlimit); a cloud NAT gateway's or load balancer's connection and "
			 "port metrics (active connections, dropped connections, port allocation errors)",
		.check_zh = "nft list ruleset（ct count、limit 与 meter 规则及其计数）；iptables -S"
			    "（connlimit、hashlimit）；云 NAT 网关或负载均衡的连接与端口指标（活动连接数、"
			    "丢弃或端口分配错误）",
		.change_en = "Raise the limit (nft ct count over N, iptables connlimit --connlimit-above N, "
			     "the NAT gateway's ports per instance or its size, the load balancer's connection "
			     "limit) to what the service needs, or spread the clients over more addresses.",
		.change_zh = "把上限（nft ct count over N、iptables connlimit --connlimit-above N、NAT "
			     "网关每个实例的端口数或其规格、负载均衡的连接数上限）调到业务所需，"
			     "或把客户端分散到更多地址上。",
		.caveat_en = "Such a limit drops (or rejects) the first packet of every new connection over "
			     "it while the connections it already counts go on: in a capture it looks exactly "
			     "like a full conntrack table; conntrack -S shows no drops then. A per-source limit "
			     "stops one client at a time, a global one all of them at once.",
		.caveat_zh = "这类上限会丢弃（或拒绝）超出上限的每个新连接的首包，而已计入的连接照常进行："
			     "在抓包里与 conntrack 表满完全一样；此时 conntrack -S 不会显示丢弃。"
			     "按源地址的上限一次只挡住一个客户端，全局上限则同时挡住所有客户端。",
		CAUSES("state-table-full"),
	},
	{
		.name = "firewall dropping SYN/SYN-ACK",
		.kind = PD_KB_FIREWALL,
		.side = PD_SIDE_PATH,
		.default_value = NULL,
		.check = "nft list ruleset; iptables -L -v -n (drop and reject counters); cloud "
			 "security groups / network ACLs; capture on both sides of the firewall",
		.check_zh = "nft list ruleset；iptables -L -v -n（drop 与 reject 规则的计数）；"
			    "云安全组 / 网络 ACL；在防火墙两侧同时抓包",
		.change_en = "Find the rule, rate limit or security group that drops the handshake "
			     "packets (or rejects them with a RST) and allow the service's port.",
		.change_zh = "找到丢弃握手报文（或以 RST 拒绝）的规则、限速或安全组，放行该服务端口。",
		.caveat_en = "A capture on one side cannot tell a drop on the path from an overloaded "
			     "listener; capture at the server too, or compare its counters.",
		.caveat_zh = "单侧抓包无法区分是路径上丢包还是监听端过载；请同时在服务端抓包或对比其计数器。",
		CAUSES("syn-retransmit", "syn-unanswered", "synack-retransmit", "accept-queue-overflow",
		       "listener-overload", "syn-flood", "rst-closed-port", "ecn-syn-dropped"),
	},
	{
		.name = "firewall rejecting connections",
		.kind = PD_KB_FIREWALL,
		.side = PD_SIDE_PATH,
		.default_value = NULL,
		.check = "On the box whose address the ICMP error carries: nft list ruleset (reject rules and "
			 "their counters); iptables -S and ip6tables -S (REJECT targets), iptables -L -v -n "
			 "(packet counts); nstat -az IcmpOutDestUnreachs there; cloud security groups and "
			 "network ACLs",
		.check_zh = "在 ICMP 错误报文所带地址对应的设备上：nft list ruleset（reject "
			    "规则及其计数）；iptables -S 和 ip6tables -S（REJECT 目标），iptables "
			    "-L -v -n（报文计数）；在该设备上执行 nstat -az IcmpOutDestUnreachs；"
			    "云安全组和网络 ACL",
		.change_en = "Find the reject rule that matches the client and the service port on the box "
			     "that sent the ICMP error and allow the connection (or fix the rule's match); "
			     "if the rejection is intended, point the client at the address and port it "
			     "should use.",
		.change_zh = "在发出该 ICMP 差错的设备上找到匹配该客户端和服务端口的拒绝规则，放行这个连接"
			     "（或修正规则的匹配条件）；如果拒绝是有意的，就让客户端改用正确的地址和端口。",
		.caveat_en = "A reject rule answers at once (ICMP or RST) where a drop rule leaves clients "
			     "waiting for a connect timeout. The ICMP's source names the rejecting box only "
			     "when it answers with its own address (not behind NAT, not impersonating the "
			     "destination). Net and host unreachable codes also come from routers without a "
			     "route or whose ARP / neighbour lookup failed.",
		.caveat_zh = "拒绝规则会立即应答（ICMP 或 RST），而丢弃规则会让客户端一直等到连接超时。"
			     "只有当拒绝设备以自己的地址应答时（不在 NAT 之后，也没有冒用目的地址），ICMP 的"
			     "源地址才指向它。网络不可达和主机不可达代码也可能来自没有路由、或 ARP / 邻居解析"
			     "失败的路由器。",
		CAUSES("syn-rejected-icmp", "rst-closed-port"),
	},
	{
		.name = "listen address and port",
		.kind = PD_KB_APP,
		.side = PD_SIDE_SERVER,
		.default_value = NULL,
		.check = "ss -ltn (is there a LISTEN socket on that address and port?); the service's "
			 "configuration (bind address, port); systemctl status SERVICE",
		.check_zh = "ss -ltn（该地址和端口上是否有 LISTEN 套接字？）；服务的配置（绑定地址、"
			    "端口）；systemctl status SERVICE",
		.change_en = "Start the service, or make it listen on the address and port the clients "
			     "use (0.0.0.0, :: or the external address, not only 127.0.0.1).",
		.change_zh = "启动服务，或让它监听客户端实际访问的地址和端口（0.0.0.0、:: 或对外地址，"
			     "而不是只监听 127.0.0.1）。",
		.caveat_en = "Linux answers a SYN with a RST only when no socket listens there (or a "
			     "rule rejects it); a full queue never resets a SYN. A listener bound to IPv4 "
			     "only refuses IPv6 clients and the reverse.",
		.caveat_zh = "只有在没有套接字监听（或有规则拒绝）时 Linux 才用 RST 应答 SYN；"
			     "队列满从不会导致 SYN 被重置。只监听 IPv4 的服务会拒绝 IPv6 客户端，反之亦然。",
		CAUSES("rst-closed-port"),
	},
	/* ---------------- timestamps, TIME_WAIT, ports ---------------- */
	{
		.name = "net.ipv4.tcp_timestamps",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_BOTH,
		.default_value = "1",
		.check = "sysctl net.ipv4.tcp_timestamps; nstat -az TcpExtPAWSTimewait TcpExtPAWSEstab",
		.check_zh = "sysctl net.ipv4.tcp_timestamps; nstat -az TcpExtPAWSTimewait "
			    "TcpExtPAWSEstab",
		.change_en = "Keep timestamps on (1). They provide PAWS protection and RTT samples, "
			     "and tcp_tw_reuse depends on them. Fix the 4-tuple reuse instead of "
			     "disabling them.",
		.change_zh = "保持开启（1）。时间戳提供 PAWS 保护和 RTT 采样，tcp_tw_reuse 也依赖它。"
			     "应解决四元组复用问题，而不是关闭时间戳。",
		.caveat_en = "0 disables them, 1 enables them with a random offset, 2 enables them "
			     "without the offset. The offset is a fixed function of the connection's "
			     "addresses: per address pair from 4.11, per 4-tuple on kernels with the "
			     "change that added the ports back (7.0 and stable updates such as 6.12.94; "
			     "6.18.44 measured). Disabling them on one side turns off PAWS, TIME_WAIT "
			     "reuse and window scaling for syncookie connections.",
		.caveat_zh = "0 关闭；1 开启并加随机偏移；2 开启但不加偏移。偏移量由连接的地址决定："
			     "从 4.11 起按地址对计算，在把端口重新加入计算的内核上按四元组计算"
			     "（7.0 以及 6.12.94 等稳定版更新；已在 6.18.44 上实测）。"
			     "一端关闭后，PAWS、TIME_WAIT 复用以及 syncookie 连接的窗口扩大都会失效。",
		CAUSES("paws-rejected-syn", "nat-timestamp-clocks", "port-reuse-timewait", "syncookies",
		       "window-scaling-disabled", "syn-rejected-existing-state",
		       "paws-rejected-data"),
	},
	{
		.name = "net.ipv4.tcp_tw_reuse",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_CLIENT,
		.default_value = "2 (loopback connections only)",
		.check = "sysctl net.ipv4.tcp_tw_reuse; ss -tan state time-wait | wc -l; nstat -az "
			 "TcpExtTWRecycled",
		.check_zh = "sysctl net.ipv4.tcp_tw_reuse; ss -tan state time-wait | wc -l; nstat "
			    "-az TcpExtTWRecycled",
		.change_en = "Set 1 on the host that opens the connections (the client) when it runs "
			     "out of ports to the same destination; better, reuse connections.",
		.change_zh = "当发起连接的一方（客户端）到同一目的地的端口耗尽时，可在客户端设为 1；"
			     "更好的办法是复用连接。",
		.caveat_en = "It only affects outgoing connections (connect()), never a server's "
			     "accepted ones, and needs tcp_timestamps on both ends; a TIME_WAIT socket is "
			     "reused only after it is about 1 s old (net.ipv4.tcp_tw_reuse_delay on newer "
			     "kernels). It cannot help when the server holds the TIME_WAIT.",
		.caveat_zh = "只对本机主动发起的连接（connect()）生效，对服务端 accept 的连接无效；"
			     "需要两端都开启 tcp_timestamps；TIME_WAIT 套接字须存在约 1 秒后才能被复用"
			     "（新内核可由 net.ipv4.tcp_tw_reuse_delay 调整）。TIME_WAIT 在服务端时它无能为力。",
		CAUSES("port-reuse-timewait", "connection-churn", "ephemeral-port-pressure"),
	},
	{
		.name = "net.ipv4.tcp_tw_recycle",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SERVER,
		.default_value = "0",
		.check = "ls /proc/sys/net/ipv4/tcp_tw_recycle (absent on kernels 4.12 and later)",
		.check_zh = "ls /proc/sys/net/ipv4/tcp_tw_recycle（4.12 及以后的内核上不存在）",
		.change_en = "Set 0 on old kernels that still have it; upgrade the kernel.",
		.change_zh = "在仍有此参数的老内核上设为 0；建议升级内核。",
		.caveat_en = "Removed in Linux 4.12. With 1 the server silently drops SYNs whose "
			     "timestamp is older than the last one seen from the same IP, which breaks "
			     "clients behind NAT (their clocks are unrelated): connects time out at random.",
		.caveat_zh = "已在 Linux 4.12 中删除。设为 1 时，服务端会静默丢弃时间戳比同一 IP 上次更旧的 SYN，"
			     "这会破坏 NAT 后面的客户端（它们的时钟互不相关），导致随机的连接超时。",
		.removed_in = "4.12",
		CAUSES("nat-timestamp-clocks", "syn-retransmit", "syn-unanswered"),
	},
	{
		.name = "net.ipv4.tcp_rfc1337",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SERVER,
		.default_value = "0",
		.check = "sysctl net.ipv4.tcp_rfc1337",
		.check_zh = "sysctl net.ipv4.tcp_rfc1337",
		.change_en = "Keep 0 on servers that see 4-tuples reused quickly: the client's RST then "
			     "removes the TIME_WAIT socket that rejected its SYN, and the retry succeeds.",
		.change_zh = "在四元组会被很快复用的服务端保持 0：这样客户端的 RST 会清除拒绝其 SYN 的 "
			     "TIME_WAIT 套接字，重试即可成功。",
		.caveat_en = "With 1 (protection against TIME_WAIT assassination, RFC 1337) a TIME_WAIT "
			     "socket ignores RSTs, so a client whose SYN it rejected keeps failing until "
			     "the TIME_WAIT ends, up to 60 s later.",
		.caveat_zh = "设为 1（RFC 1337 所述的防 TIME_WAIT 暗杀保护）时，TIME_WAIT 套接字忽略 "
			     "RST，被它拒绝过 SYN 的客户端会一直失败，直到 TIME_WAIT 结束（最长 60 秒）。",
		CAUSES("paws-rejected-syn", "port-reuse-timewait", "syn-rejected-existing-state"),
	},
	{
		.name = "net.ipv4.ip_local_port_range",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_CLIENT,
		.default_value = "32768 60999 (28232 ports)",
		.check = "sysctl net.ipv4.ip_local_port_range net.ipv4.ip_local_reserved_ports; "
			 "ss -tan state time-wait | wc -l",
		.check_zh = "sysctl net.ipv4.ip_local_port_range net.ipv4.ip_local_reserved_ports; "
			    "ss -tan state time-wait | wc -l",
		.change_en = "Widen it on the connecting host, e.g. 10000 64999 (keep the two ends of "
			     "different parity: connect() takes ports of one parity first and leaves the "
			     "other to bind()), and list ports used by local services in "
			     "net.ipv4.ip_local_reserved_ports.",
		.change_zh = "在发起连接的主机上扩大范围，如 10000 64999（两端取不同的奇偶性："
			     "connect() 先使用一种奇偶性的端口，把另一种留给 bind()），并把本机服务使用的"
			     "端口加入 net.ipv4.ip_local_reserved_ports。",
		.caveat_en = "For ports chosen by connect() the limit applies per destination (address "
			     "and port); a socket that bind()s before connect() takes a port from every "
			     "destination's share. A port stays busy only on the side that closed first, "
			     "which holds it in TIME_WAIT for 60 s: when the server closes first the "
			     "client's port is free at once. When the client closes first, about range/60 "
			     "new connections per second to one destination is the ceiling without reuse. "
			     "Running out has no counter: connect() fails with EADDRNOTAVAIL.",
		.caveat_zh = "对由 connect() 自动选择的端口，限制按目的（地址和端口）计算；在 connect() "
			     "之前先 bind() 的套接字则会占用所有目的共享的端口。只有先关闭的一方会把端口"
			     "在 TIME_WAIT 中保留 60 秒：服务端先关闭时，客户端的端口立即可用。"
			     "客户端先关闭且不复用连接时，到同一目的地的新建速率上限约为每秒 端口数/60 个新连接。"
			     "端口耗尽没有计数器：connect() 会以 EADDRNOTAVAIL 失败。",
		CAUSES("connection-churn", "port-reuse-timewait", "ephemeral-port-pressure",
		       "paws-rejected-syn", "syn-rejected-existing-state"),
	},
	{
		.name = "bind() before connect()",
		.kind = PD_KB_APP,
		.side = PD_SIDE_CLIENT,
		.default_value = "not done (connect() picks the port)",
		.check = "The client's configuration or source (a fixed local port, or bind() to pick "
			 "a source address); ss -tan state time-wait (the same local port again and "
			 "again)",
		.check_zh = "客户端的配置或源代码（固定的本地端口，或用 bind() 选择源地址）；ss "
			    "-tan state time-wait（同一个本地端口反复出现）",
		.change_en = "Let connect() choose the port; when only the source address matters, set "
			     "IP_BIND_ADDRESS_NO_PORT before bind(). Never use a fixed source port for "
			     "short connections.",
		.change_zh = "让 connect() 选择端口；只需要指定源地址时，在 bind() 之前设置 "
			     "IP_BIND_ADDRESS_NO_PORT。短连接不要使用固定源端口。",
		.caveat_en = "bind() to port 0 reserves a port against every destination, so the "
			     "ephemeral range is shared by all destinations instead of counted per "
			     "destination; a fixed source port makes each new connection reuse the same "
			     "4-tuple, which is in TIME_WAIT for 60 s after every close.",
		.caveat_zh = "bind() 到 0 端口会让端口对所有目的地都被占用，临时端口范围由所有目的共享，"
			     "而不是按目的分别计算；固定源端口会让每个新连接复用同一个四元组，"
			     "而它在每次关闭后都要处于 TIME_WAIT 60 秒。",
		CAUSES("ephemeral-port-pressure", "port-reuse-timewait", "paws-rejected-syn",
		       "syn-rejected-existing-state"),
	},
	{
		.name = "net.ipv4.tcp_fin_timeout",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_BOTH,
		.default_value = "60",
		.check = "sysctl net.ipv4.tcp_fin_timeout; ss -tan state fin-wait-2 | wc -l",
		.check_zh = "sysctl net.ipv4.tcp_fin_timeout; ss -tan state fin-wait-2 | wc -l",
		.change_en = "Lower it only if many orphaned sockets sit in FIN_WAIT_2 because peers "
			     "never close; it is not a TIME_WAIT knob.",
		.change_zh = "仅当大量孤儿套接字因对端不关闭而停留在 FIN_WAIT_2 时才调小；"
			     "它不是控制 TIME_WAIT 的参数。",
		.caveat_en = "A common myth: it does NOT shorten TIME_WAIT, which is fixed at 60 s "
			     "(TCP_TIMEWAIT_LEN, a compile-time constant; with tcp_fin_timeout=5 a "
			     "TIME_WAIT timer still showed 58 s right after close on 6.18). It bounds how "
			     "long an orphaned socket waits in FIN_WAIT_2, so no finding here is caused "
			     "by it.",
		.caveat_zh = "常见误区：它并不能缩短 TIME_WAIT，TIME_WAIT 固定为 60 秒（TCP_TIMEWAIT_LEN，"
			     "编译期常量；在 6.18 上 tcp_fin_timeout=5 时，关闭后 TIME_WAIT 定时器仍显示 "
			     "58 秒）。它限制的是孤儿套接字在 FIN_WAIT_2 的等待时间，所以这里的任何结论"
			     "都不是它造成的。",
	},
	{
		.name = "net.ipv4.tcp_max_tw_buckets",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_BOTH,
		.default_value = "scaled with memory (e.g. 131072)",
		.check = "sysctl net.ipv4.tcp_max_tw_buckets; ss -s (timewait); nstat -az "
			 "TcpExtTCPTimeWaitOverflow",
		.check_zh = "sysctl net.ipv4.tcp_max_tw_buckets; ss -s (timewait); nstat -az "
			    "TcpExtTCPTimeWaitOverflow",
		.change_en = "Leave it; reduce the connection rate (pooling, keep-alive) instead.",
		.change_zh = "保持不变；应通过连接池、长连接降低建连速率。",
		.caveat_en = "When exceeded, the kernel destroys TIME_WAIT sockets at once, which removes "
			     "TIME_WAIT's protection against old duplicates; lowering it is not a fix for "
			     "port exhaustion. Current kernels log nothing then: only "
			     "TcpExtTCPTimeWaitOverflow counts it (the old 'time wait bucket table "
			     "overflow' message is gone).",
		.caveat_zh = "超过上限时内核会直接销毁 TIME_WAIT 套接字，失去 TIME_WAIT 对旧重复报文的保护；"
			     "调小它不能解决端口耗尽。当前内核此时不打印日志，只有 TcpExtTCPTimeWaitOverflow "
			     "计数（旧内核的 'time wait bucket table overflow' 消息已不存在）。",
		CAUSES("connection-churn", "port-reuse-timewait"),
	},
	{
		.name = "connection pooling / keep-alive",
		.kind = PD_KB_APP,
		.side = PD_SIDE_CLIENT,
		.default_value = NULL,
		.check = "Application or HTTP client configuration (keep-alive, pool size, max idle); "
			 "ss -tan state time-wait | wc -l; nstat TcpActiveOpens (new connections per "
			 "interval)",
		.check_zh = "应用或 HTTP 客户端的配置（keep-alive、连接池大小、最大空闲连接数）；"
			    "ss -tan state time-wait | wc -l；nstat "
			    "TcpActiveOpens（每个时间段内的新建连接数）",
		.change_en = "Reuse connections: HTTP keep-alive, a connection pool in the client or "
			     "database driver, upstream keepalive in proxies (nginx: keepalive N).",
		.change_zh = "复用连接：开启 HTTP keep-alive，在客户端或数据库驱动中使用连接池，"
			     "代理开启到上游的长连接（nginx: keepalive N）。",
		.caveat_en = "Pooled connections can be closed by idle timeouts on servers, NATs or load "
			     "balancers; validate or refresh idle connections before use.",
		.caveat_zh = "池中的连接可能被服务端、NAT 或负载均衡的空闲超时关闭；"
			     "使用前应校验或定期刷新空闲连接。",
		CAUSES("connection-churn", "port-reuse-timewait", "ephemeral-port-pressure",
		       "paws-rejected-syn", "syn-rejected-existing-state"),
	},
	{
		.name = "NAT source-port reuse",
		.kind = PD_KB_FIREWALL,
		.side = PD_SIDE_PATH,
		.default_value = NULL,
		.check = "NAT / load balancer configuration and its port allocation; conntrack -S "
			 "on a Linux NAT; compare SYN timestamps per source IP in the capture; on the "
			 "server, nstat -az TcpExtPAWSTimewait TcpExtPAWSEstab",
		.check_zh = "NAT / 负载均衡器的配置及其端口分配方式；Linux NAT 上执行 conntrack -S；"
			    "在抓包中按源 IP 比较各 SYN 的时间戳；在服务端执行 nstat -az "
			    "TcpExtPAWSTimewait TcpExtPAWSEstab",
		.change_en = "Give the NAT more source addresses (a bigger port pool), and keep "
			     "connections alive so fewer 4-tuples are reused within 60 s. Random port "
			     "allocation (MASQUERADE --random-fully, kube-proxy's default) does not prevent "
			     "it: on kernels whose timestamp offset depends on the source port it makes a "
			     "rejected reuse more likely.",
		.change_zh = "给 NAT 增加源地址（扩大端口池），并保持长连接，减少 60 秒内复用同一四元组。"
			     "随机端口分配（MASQUERADE --random-fully，kube-proxy 的默认做法）并不能避免这个问题："
			     "在时间戳偏移随源端口变化的内核上，它反而让复用被拒绝的情况更常见。",
		.caveat_en = "Hosts behind one NAT address have unrelated timestamp clocks, and on "
			     "current kernels every 4-tuple of one host gets its own offset too: when the "
			     "NAT maps a new connection onto a 4-tuple the server still holds in TIME_WAIT, "
			     "its timestamp is unrelated to the old one and is rejected when it is older. "
			     "A Linux NAT avoids 4-tuples still in its table, except when short of ports "
			     "(since 6.5 it then takes over one in TIME_WAIT if the new sequence number is "
			     "higher, whatever the timestamp).",
		.caveat_zh = "同一 NAT 地址后面的主机时间戳时钟互不相关，而且在当前内核上，同一主机的"
			     "每个四元组也有各自的偏移：当 NAT 把新连接映射到服务端仍处于 TIME_WAIT 的"
			     "四元组上时，新时间戳与旧的毫无关系，比旧的小时就会被拒绝。Linux NAT 会避开"
			     "仍在其连接跟踪表中的四元组，但端口不足时例外（从 6.5 起，只要新的序列号更大，"
			     "它就会接管处于 TIME_WAIT 的表项，而不管时间戳）。",
		CAUSES("paws-rejected-syn", "nat-timestamp-clocks", "port-reuse-timewait",
		       "ephemeral-port-pressure", "syn-rejected-existing-state",
		       "paws-rejected-data"),
	},
	/* ---------------- Nagle / delayed ACK ---------------- */
	{
		.name = "TCP_NODELAY",
		.kind = PD_KB_SOCKOPT,
		.side = PD_SIDE_SENDER,
		.default_value = "off (Nagle enabled)",
		.check = "Application or library settings (tcp_nodelay in nginx, Redis clients, gRPC, "
			 "database drivers) or source (setsockopt TCP_NODELAY); in the capture, a small "
			 "segment held until the previous data is acknowledged",
		.check_zh = "应用或库的设置（nginx 的 tcp_nodelay、Redis 客户端、gRPC、数据库驱动）"
			    "或源代码（setsockopt TCP_NODELAY）；在抓包中，一个小报文段被扣住，"
			    "直到之前的数据被确认才发出",
		.change_en = "Set TCP_NODELAY on the socket that sends small writes "
			     "(setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, 1)), and send each message in "
			     "one write.",
		.change_zh = "在发送小块数据的套接字上设置 TCP_NODELAY（setsockopt(fd, IPPROTO_TCP, "
			     "TCP_NODELAY, 1)），并且每条消息一次写出。",
		.caveat_en = "With Nagle off, every small write becomes its own packet; a chatty sender "
			     "then emits many tiny segments. Coalescing writes fixes the cause. No command "
			     "shows a socket's TCP_NODELAY from outside: ss and /proc do not report it, and "
			     "a tracer attached to the process (strace -p) stops it at every system call "
			     "and sees only calls made after attaching, long after the option was set.",
		.caveat_zh = "关闭 Nagle 后，每次小数据量的写入都会单独成包；频繁小块写入的程序会发出"
			     "大量小报文。合并写入才是治本。没有命令能从外部看到套接字的 TCP_NODELAY："
			     "ss 和 /proc 都不显示它；对进程挂上跟踪器（strace -p）会在每次系统调用时"
			     "暂停进程，而且只能看到挂上之后的调用，而该选项通常早已设置完毕。",
		CAUSES("nagle-delayed-ack", "tiny-writes"),
	},
	{
		.name = "TCP_CORK",
		.kind = PD_KB_SOCKOPT,
		.side = PD_SIDE_SENDER,
		.default_value = "off",
		.check = "Application or library settings (nginx tcp_nopush sets it) or source; "
			 "ss -tmi (notsent: bytes written but held back)",
		.check_zh = "应用或库的设置（nginx 的 tcp_nopush 会开启它）或源代码；ss "
			    "-tmi（notsent：已写入但被暂扣的字节数）",
		.change_en = "Set TCP_CORK while writing the pieces of one message and clear it at the "
			     "end, so they leave as full-sized segments.",
		.change_zh = "在写一条消息的各部分时设置 TCP_CORK，写完后取消，使其以满 MSS 的报文段发送。",
		.caveat_en = "Forgetting to uncork holds the last partial segment until the kernel sends "
			     "it anyway, with its window-probe timer: about 200 ms on a LAN (the minimum "
			     "RTO; 207 ms measured on loopback, 6.18) and about one RTO on longer paths. "
			     "Like TCP_NODELAY it cannot be read from outside the process.",
		.caveat_zh = "忘记取消 cork 时，最后一个不满的报文段会一直被扣住，直到内核用窗口探测"
			     "定时器把它发出：局域网上约 200 毫秒（最小 RTO；在 6.18 的 loopback 上实测 "
			     "207 毫秒），更长的路径上约一个 RTO。与 TCP_NODELAY 一样，无法从进程外部读取。",
		CAUSES("nagle-delayed-ack", "tiny-writes", "cork-timer-delay"),
	},
	{
		.name = "MSG_MORE",
		.kind = PD_KB_SOCKOPT,
		.side = PD_SIDE_SENDER,
		.default_value = NULL,
		.check = "Application or library source (the flags of send()/sendmsg())",
		.check_zh = "应用或库的源代码（send()/sendmsg() 的 flags 参数）",
		.change_en = "Pass MSG_MORE on every send() of a message except the last one.",
		.change_zh = "对一条消息的除最后一次外的每次 send() 传入 MSG_MORE 标志。",
		.caveat_en = "Per-call equivalent of TCP_CORK; the final send without the flag must "
			     "follow or the data waits. A per-call flag leaves no trace outside the process.",
		.caveat_zh = "相当于单次调用的 TCP_CORK；最后必须有一次不带该标志的发送，否则数据会被滞留。"
			     "这是每次调用的标志，在进程外部看不到痕迹。",
		CAUSES("nagle-delayed-ack", "tiny-writes", "cork-timer-delay"),
	},
	{
		.name = "writev coalescing",
		.kind = PD_KB_APP,
		.side = PD_SIDE_SENDER,
		.default_value = NULL,
		.check = "The capture (several small segments per request); application source (one "
			 "write for the header, another for the body)",
		.check_zh = "抓包（每个请求有多个小报文段）；应用源代码（头部一次写入，"
			    "正文又一次写入）",
		.change_en = "Build the request (headers and body) in one buffer, or hand the pieces to "
			     "one writev()/sendmsg() call, instead of write-write-read.",
		.change_zh = "把请求（头和体）放到一个缓冲区，或用一次 writev()/sendmsg() 发出，"
			     "避免“写-写-读”模式。",
		.caveat_en = "This fixes the cause of Nagle/delayed-ACK stalls without giving up Nagle "
			     "for the rest of the connection.",
		.caveat_zh = "这样能从根源上消除 Nagle 与延迟确认的相互等待，同时保留 Nagle 的好处。",
		CAUSES("nagle-delayed-ack", "tiny-writes"),
	},
	{
		.name = "net.ipv4.tcp_autocorking",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "1",
		.check = "sysctl net.ipv4.tcp_autocorking; nstat -az TcpExtTCPAutoCorking",
		.check_zh = "sysctl net.ipv4.tcp_autocorking; nstat -az TcpExtTCPAutoCorking",
		.change_en = "Keep 1: small writes issued while an earlier packet of the socket still "
			     "waits in the qdisc or the NIC are merged into fewer segments.",
		.change_zh = "保持 1：当该套接字更早的报文仍在 qdisc 或网卡中排队时，之后的小块写入会被"
			     "合并成更少的报文段。",
		.caveat_en = "It holds data only while the host itself is still sending, so it adds "
			     "microseconds, not a delayed-ACK wait; with 0 every small write leaves as its "
			     "own segment.",
		.caveat_zh = "它只在本机仍在发送时暂缓数据，因此只增加微秒级延迟，而不是一次延迟确认的"
			     "等待；设为 0 时每次小块写入都单独成为一个报文段。",
		CAUSES("tiny-writes"),
	},
	{
		.name = "TCP_QUICKACK",
		.kind = PD_KB_SOCKOPT,
		.side = PD_SIDE_RECEIVER,
		.default_value = "off (delayed ACK, 40 ms minimum on Linux)",
		.check = "ss -ti on the receiver (ato: its delayed-ACK timeout now); application source "
			 "(setsockopt TCP_QUICKACK after reads)",
		.check_zh = "在接收端执行 ss -ti（ato：当前的延迟 ACK 超时）；"
			    "应用源代码（读取后调用 setsockopt TCP_QUICKACK）",
		.change_en = "On the receiver, set TCP_QUICKACK after each recv() when the peer waits "
			     "for an ACK before sending more.",
		.change_zh = "在接收端每次 recv() 之后设置 TCP_QUICKACK，适用于对端需等 ACK 才继续发送的场景。",
		.caveat_en = "Not permanent: the kernel can fall back to delayed ACKs, so it has to be "
			     "set again after reads. Windows peers delay ACKs up to 200 ms by default.",
		.caveat_zh = "不是永久生效：内核可能回到延迟确认模式，需要在每次读取后重新设置。"
			     "Windows 对端默认的延迟确认最长 200 毫秒。",
		CAUSES("nagle-delayed-ack"),
	},
	{
		.name = "route quickack",
		.kind = PD_KB_ROUTE,
		.side = PD_SIDE_RECEIVER,
		.default_value = "off",
		.check = "ip route show (look for quickack 1)",
		.check_zh = "ip route show（查找 quickack 1）",
		.change_en = "On the receiving host: ip route change PREFIX via GW dev IF quickack 1 "
			     "(kernel 3.11 and later), for the routes toward the sender.",
		.change_zh = "在接收端主机上对指向发送端的路由执行：ip route change PREFIX via GW dev IF "
			     "quickack 1（内核 3.11 及以上）。",
		.caveat_en = "Affects every connection over that route and sends more ACKs; the route "
			     "must be re-created with the attribute after reboots (persist it in the "
			     "network configuration).",
		.caveat_zh = "影响走该路由的所有连接，并增加 ACK 数量；重启后需重新设置（请写入网络配置持久化）。",
		CAUSES("nagle-delayed-ack"),
	},
	{
		.name = "TcpAckFrequency",
		.kind = PD_KB_REGISTRY,
		.side = PD_SIDE_RECEIVER,
		.os = "windows",
		.default_value = "2 (absent: an ACK for every second segment, or after 200 ms)",
		.check = "reg query HKLM\\SYSTEM\\CurrentControlSet\\Services\\Tcpip\\Parameters\\Interfaces /s "
			 "/v TcpAckFrequency",
		.check_zh = "reg query HKLM\\SYSTEM\\CurrentControlSet\\Services\\Tcpip\\Parameters\\Interfaces /s "
			    "/v TcpAckFrequency",
		.change_en = "On the Windows host that delays the ACKs: better, set TCP_NODELAY on the peer that "
			     "holds its small segments; where that peer cannot change, a REG_DWORD TcpAckFrequency "
			     "of 1 under the interface's key (Interfaces\\{GUID}) ACKs every segment at once, or "
			     "SIO_TCP_SET_ACK_FREQUENCY does so for one socket.",
		.change_zh = "在延迟 ACK 的 Windows 主机上：更好的做法是在扣住小报文的对端设置 TCP_NODELAY；"
			     "对端无法修改时，在该网卡的键（Interfaces\\{GUID}）下把 REG_DWORD 值 TcpAckFrequency "
			     "设为 1，每个报文段都立即确认；或用 SIO_TCP_SET_ACK_FREQUENCY 只对一个套接字这样做。",
		.caveat_en = "Windows delays an ACK until a second segment arrives or its 200 ms timer fires; the "
			     "value is per interface and applies to every connection over it, with more ACKs on the "
			     "wire, and takes effect after the adapter restarts or a reboot. The TcpNoDelay registry "
			     "value often quoted with it is Message Queuing's (MSMQ) alone: Winsock programs turn "
			     "Nagle off with TCP_NODELAY.",
		.caveat_zh = "Windows 会把 ACK 推迟到收到第二个报文段，或等到它的 200 毫秒定时器触发；这个值按网卡"
			     "设置，作用于经过该网卡的所有连接，线路上的 ACK 会增多，需要重启网卡或重启系统后才生效。"
			     "常与它一起被提到的注册表值 TcpNoDelay 只对消息队列（MSMQ）有效：Winsock 程序要用 "
			     "TCP_NODELAY 关闭 Nagle。",
		CAUSES("nagle-delayed-ack"),
	},
	{
		.name = "net.inet.tcp.delayed_ack",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_RECEIVER,
		.os = "macos",
		.default_value = "3",
		.check = "sysctl net.inet.tcp.delayed_ack",
		.check_zh = "sysctl net.inet.tcp.delayed_ack",
		.change_en = "On the macOS host that delays the ACKs: better, set TCP_NODELAY on the peer that "
			     "holds its small segments; 0 here ACKs every segment at once for the whole host.",
		.change_zh = "在延迟 ACK 的 macOS 主机上：更好的做法是在扣住小报文的对端设置 TCP_NODELAY；"
			     "把这里设为 0 会让整台主机对每个报文段立即确认。",
		.caveat_en = "0 off, 1 always delay; 2 and 3 (the default, which also stretches ACKs on a fast "
			     "stream) do not delay the ACK of a segment with PSH set. The delayed ACK leaves on a "
			     "100 ms timer tick, 100 to 200 ms after the data. A sysctl -w change lasts until reboot.",
		.caveat_zh = "0 关闭，1 总是延迟；2 和 3（默认值，在高速数据流上还会拉长 ACK 间隔）对带 PSH 标志的"
			     "报文段不延迟确认。延迟的 ACK 在 100 毫秒的定时器节拍上发出，即数据到达后 100 到 200 毫秒。"
			     "用 sysctl -w 修改只在重启前有效。",
		CAUSES("nagle-delayed-ack"),
	},
	/* ---------------- windows and buffers ---------------- */
	{
		.name = "net.ipv4.tcp_rmem",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_RECEIVER,
		.default_value = "4096 131072 and a maximum scaled with RAM: up to 33554432 (32 MiB) since "
				 "kernel 6.16, up to 6291456 (6 MiB) before",
		.check = "sysctl net.ipv4.tcp_rmem net.ipv4.tcp_mem; ss -tmi (rb, rcv_space; on the "
			 "sender, rwnd_limited: the share of time the receive window was the limit)",
		.check_zh = "sysctl net.ipv4.tcp_rmem net.ipv4.tcp_mem；ss -tmi（rb、rcv_space；"
			    "在发送端看 rwnd_limited：接收窗口成为瓶颈的时间占比）",
		.change_en = "Raise the third value (max) on the receiver so the window can reach the "
			     "bandwidth-delay product: bandwidth x RTT, e.g. 1 Gbit/s x 50 ms = 6.25 MB.",
		.change_zh = "在接收端调大第三个值（最大值），使窗口能达到带宽时延积：带宽 × RTT，"
			     "例如 1 Gbit/s × 50 ms = 6.25 MB。",
		.caveat_en = "The advertised window is only a fraction of the buffer (about half on older "
			     "kernels with tcp_adv_win_scale=1; since 6.6 the kernel measures the overhead "
			     "per socket). The middle value sets the initial window (about 64 KB in the SYN "
			     "since 4.20). Memory: max bytes x busy sockets, bounded overall by "
			     "net.ipv4.tcp_mem. Sockets that set SO_RCVBUF ignore it.",
		.caveat_zh = "通告窗口只是缓冲区的一部分（老内核 tcp_adv_win_scale=1 时约一半；"
			     "从 6.6 起内核按套接字实际开销估算）。中间值决定初始窗口（从 4.20 起 SYN 中"
			     "约 64 KB）。内存：最大值 × 活跃套接字数，总量受 net.ipv4.tcp_mem 限制。"
			     "设置了 SO_RCVBUF 的套接字不受其影响。",
		CAUSES("zero-window", "window-limited", "receive-window-fixed", "initial-window",
		       "retransmissions"),
	},
	{
		.name = "net.core.rmem_max",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_RECEIVER,
		.default_value = "4194304 since kernel 6.18 (212992 before)",
		.check = "sysctl net.core.rmem_max",
		.check_zh = "sysctl net.core.rmem_max",
		.change_en = "Raise it only if the application sets SO_RCVBUF and needs more than this "
			     "cap; autotuned sockets are bounded by tcp_rmem instead.",
		.change_zh = "仅当应用设置了 SO_RCVBUF 且需要超过此上限时才调大；"
			     "自动调节的套接字受 tcp_rmem 限制，而非此值。",
		.caveat_en = "It caps SO_RCVBUF requests (the kernel doubles the requested value for "
			     "bookkeeping: a 64 MiB request gave 8 MiB with the 4 MiB cap on 6.18). It "
			     "applies to all protocols, UDP included.",
		.caveat_zh = "它限制 SO_RCVBUF 的请求值（内核会把请求值翻倍用于记账开销：在 6.18 上限为 "
			     "4 MiB 时，请求 64 MiB 实际得到 8 MiB）。对所有协议生效，包括 UDP。",
		CAUSES("zero-window", "window-limited", "receive-window-fixed"),
	},
	{
		.name = "SO_RCVBUF",
		.kind = PD_KB_SOCKOPT,
		.side = PD_SIDE_RECEIVER,
		.default_value = "not set (autotuning)",
		.check = "ss -tmi (skmem rb stays at twice the value set and rcv_space does not grow: a "
			 "fixed buffer); the application's configuration or source",
		.check_zh = "ss -tmi（skmem 中 rb 始终是所设值的两倍且 rcv_space 不增长："
			    "缓冲区大小被固定）；应用的配置或源代码",
		.change_en = "Remove the fixed SO_RCVBUF so autotuning can grow the buffer, or set it "
			     "large enough for the bandwidth-delay product before connect()/listen().",
		.change_zh = "去掉固定的 SO_RCVBUF 让内核自动调节；或在 connect()/listen() 之前把它设为"
			     "足以覆盖带宽时延积的大小。",
		.caveat_en = "Setting it turns autotuning off for that socket, and the window scale is "
			     "chosen from the buffer at SYN time, so setting it after the handshake cannot "
			     "open the window further. It never removes the window-scale option from the "
			     "SYN, it only lowers the factor (65536 gave wscale 1 on 6.18). Capped by "
			     "net.core.rmem_max.",
		.caveat_zh = "一旦设置，该套接字的自动调节即关闭；窗口扩大因子在 SYN 时根据缓冲区确定，"
			     "握手后再调大也无法让窗口更大。它从不会去掉 SYN 中的窗口扩大选项，只会降低"
			     "扩大因子（在 6.18 上设为 65536 时 wscale 为 1）。受 net.core.rmem_max 限制。",
		CAUSES("zero-window", "window-limited", "receive-window-fixed", "initial-window",
		       "retransmissions"),
	},
	{
		.name = "net.ipv4.tcp_window_scaling",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_BOTH,
		.default_value = "1",
		.check = "sysctl net.ipv4.tcp_window_scaling; look for the wscale option in both SYNs",
		.check_zh = "sysctl net.ipv4.tcp_window_scaling；查看两个 SYN 中是否都带有 wscale "
			    "选项",
		.change_en = "Set 1 on both ends, and make sure no middlebox strips the window scale "
			     "option from SYNs.",
		.change_zh = "两端都设为 1，并确认没有中间设备剥离 SYN 中的窗口扩大选项。",
		.caveat_en = "Without scaling on both sides the window is capped at 65535 bytes: at most "
			     "65535 / RTT bytes per second (about 5 Mbit/s at 100 ms). While this is 1 Linux "
			     "puts the option in every SYN; a Linux SYN without it means 0 here, a middlebox "
			     "stripping it, or a SYN-cookie answer to a SYN without timestamps.",
		.caveat_zh = "任一端不支持窗口扩大，窗口上限即为 65535 字节：吞吐上限为 65535 / RTT "
			     "字节每秒（RTT 100 ms 时约 5 Mbit/s）。该值为 1 时 Linux 在每个 SYN 中都带此"
			     "选项；Linux 的 SYN 没有它，说明此处为 0、中间设备剥离了它，或是对不带时间戳的 "
			     "SYN 的 SYN cookie 应答。",
		CAUSES("window-scaling-disabled", "window-limited"),
	},
	{
		.name = "net.ipv4.tcp_moderate_rcvbuf",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_RECEIVER,
		.default_value = "1",
		.check = "sysctl net.ipv4.tcp_moderate_rcvbuf",
		.check_zh = "sysctl net.ipv4.tcp_moderate_rcvbuf",
		.change_en = "Keep 1 so the receive buffer grows with the transfer.",
		.change_zh = "保持为 1，使接收缓冲区随传输自动增长。",
		.caveat_en = "0 leaves every socket at the tcp_rmem default (second value).",
		.caveat_zh = "设为 0 时，所有套接字都停留在 tcp_rmem 的默认值（第二个值）。",
		CAUSES("receive-window-fixed", "window-limited"),
	},
	{
		.name = "net.ipv4.tcp_mem",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_BOTH,
		.default_value = "three values in pages (low, pressure, high), scaled at boot to about "
				 "4.7 %, 6.25 % and 9.4 % of the free memory",
		.check = "sysctl net.ipv4.tcp_mem; cat /proc/net/sockstat (TCP mem: pages in use now); "
			 "nstat -az TcpExtTCPMemoryPressures TcpExtTCPRcvQDrop; dmesg | grep 'consider "
			 "tuning tcp_mem'",
		.check_zh = "sysctl net.ipv4.tcp_mem；cat /proc/net/sockstat（TCP 行的 mem："
			    "当前使用的页数）；nstat -az TcpExtTCPMemoryPressures "
			    "TcpExtTCPRcvQDrop；dmesg | grep 'consider tuning tcp_mem'",
		.change_en = "Find what holds the memory first (many sockets with full receive queues: "
			     "slow readers; huge tcp_rmem/tcp_wmem maxima); raise it only when the host has "
			     "memory to spare.",
		.change_zh = "先找出占用内存的原因（大量接收队列已满的套接字：读取慢的应用；过大的 "
			     "tcp_rmem/tcp_wmem 最大值）；只有在主机内存充裕时才调大它。",
		.caveat_en = "It is one limit for the whole host, shared by every TCP socket, containers "
			     "included (it exists only in the initial network namespace). Above the "
			     "pressure value buffers stop growing and windows shrink for all connections; "
			     "above the high value the kernel drops incoming segments and logs 'out of "
			     "memory -- consider tuning tcp_mem'.",
		.caveat_zh = "它是整台主机的一个上限，由所有 TCP 套接字（包括容器中的）共享（只存在于初始网络"
			     "命名空间中）。超过压力值后，所有连接的缓冲区停止增长、"
			     "窗口缩小；超过最高值后，内核丢弃收到的报文并记录 'out of memory -- consider "
			     "tuning tcp_mem'。",
		CAUSES("zero-window", "window-limited", "retransmissions"),
	},
	{
		.name = "net.ipv4.tcp_wmem",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "4096 16384 and a maximum scaled with RAM, up to 4194304 (4 MiB)",
		.check = "sysctl net.ipv4.tcp_wmem; ss -tmi (tb, notsent; sndbuf_limited: the share of "
			 "time the send buffer was the limit)",
		.check_zh = "sysctl net.ipv4.tcp_wmem；ss -tmi（tb、notsent；sndbuf_limited："
			    "发送缓冲区成为瓶颈的时间占比）",
		.change_en = "Raise the third value on the sender when the flight stays below the "
			     "peer's window and the application has data queued.",
		.change_zh = "当在途数据低于对端窗口而应用仍有数据待发时，在发送端调大第三个值。",
		.caveat_en = "Memory: max bytes x busy sockets; sockets that set SO_SNDBUF ignore it.",
		.caveat_zh = "内存：最大值 × 活跃套接字数；设置了 SO_SNDBUF 的套接字不受其影响。",
		CAUSES("sender-limited"),
	},
	{
		.name = "net.core.wmem_max",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "4194304 since kernel 6.18 (212992 before)",
		.check = "sysctl net.core.wmem_max",
		.check_zh = "sysctl net.core.wmem_max",
		.change_en = "Raise it only when the application sets SO_SNDBUF above this cap.",
		.change_zh = "仅当应用设置的 SO_SNDBUF 超过此上限时才调大。",
		.caveat_en = "It caps SO_SNDBUF requests (doubled by the kernel), not autotuning.",
		.caveat_zh = "它限制 SO_SNDBUF 请求值（内核会翻倍），不限制自动调节。",
		CAUSES("sender-limited"),
	},
	{
		.name = "SO_SNDBUF",
		.kind = PD_KB_SOCKOPT,
		.side = PD_SIDE_SENDER,
		.default_value = "not set (autotuning)",
		.check = "ss -tmi (skmem tb stays at twice the value set; sndbuf_limited in the tcp "
			 "info); the application's configuration or source",
		.check_zh = "ss -tmi（skmem 中 tb 始终是所设值的两倍；tcp info 中的 sndbuf_limited）"
			    "；应用的配置或源代码",
		.change_en = "Remove a small fixed SO_SNDBUF or size it for the bandwidth-delay product.",
		.change_zh = "去掉过小的固定 SO_SNDBUF，或按带宽时延积设置。",
		.caveat_en = "Setting it disables send-buffer autotuning for the socket; capped by "
			     "net.core.wmem_max.",
		.caveat_zh = "设置后该套接字的发送缓冲区自动调节关闭；受 net.core.wmem_max 限制。",
		CAUSES("sender-limited"),
	},
	{
		.name = "TCP_NOTSENT_LOWAT",
		.kind = PD_KB_SOCKOPT,
		.side = PD_SIDE_SENDER,
		.default_value = "not set (net.ipv4.tcp_notsent_lowat applies)",
		.check = "ss -ti (notsent: bytes written but not yet sent); the application's "
			 "configuration or source",
		.check_zh = "ss -ti（notsent：已写入但尚未发送的字节数）；应用的配置或源代码",
		.change_en = "Keep it no lower than what the path drains while the application wakes "
			     "up and writes again (1 ms at 1 Gbit/s is 125 KB); a value of a few KB makes "
			     "the application refill the socket for every few segments.",
		.change_zh = "不要低于应用被唤醒并再次写入期间路径能发送的数据量（1 Gbit/s 下 1 毫秒约为 "
			     "125 KB）；只有几 KB 时，应用每发几个报文段就得重新往套接字写数据。",
		.caveat_en = "It limits only data not yet sent, not data in flight: the socket counts as "
			     "writable (and accepts more) only while less than this is unsent. Low values "
			     "cut queueing latency inside the sender; too low ones leave the path idle "
			     "while the application wakes up.",
		.caveat_zh = "它只限制尚未发送的数据，不限制在途数据：只有未发送的数据少于该值时，"
			     "套接字才可写（才接受更多数据）。较小的值能减少发送端内部的排队时延；"
			     "过小则会在应用被唤醒之前让路径空闲。",
		CAUSES("sender-limited"),
	},
	{
		.name = "net.ipv4.tcp_notsent_lowat",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "4294967295 (no limit)",
		.check = "sysctl net.ipv4.tcp_notsent_lowat; ss -ti (notsent)",
		.check_zh = "sysctl net.ipv4.tcp_notsent_lowat; ss -ti (notsent)",
		.change_en = "Leave it unlimited, or no lower than what the path drains while the "
			     "application wakes up and writes again (1 ms at 1 Gbit/s is 125 KB).",
		.change_zh = "保持不限制，或不低于应用被唤醒并再次写入期间路径能发送的数据量"
			     "（1 Gbit/s 下 1 毫秒约为 125 KB）。",
		.caveat_en = "The default for sockets that do not set TCP_NOTSENT_LOWAT; the same trade-"
			     "off: small values bound the unsent queue, too small ones starve the path.",
		.caveat_zh = "它是未设置 TCP_NOTSENT_LOWAT 的套接字的默认值；取舍相同：较小的值限制"
			     "未发送队列，过小则会让路径“饿死”。",
		CAUSES("sender-limited"),
	},
	{
		.name = "pacing (fq, SO_MAX_PACING_RATE)",
		.kind = PD_KB_SOCKOPT,
		.side = PD_SIDE_SENDER,
		.default_value = "no cap (bbr and the fq qdisc pace at the rate they estimate)",
		.check = "ss -ti (pacing_rate, and max_pacing_rate when a cap is set); tc -s qdisc show "
			 "dev IF (fq: maxrate, throttled)",
		.check_zh = "ss -ti（pacing_rate，设置了上限时还有 max_pacing_rate）；tc -s qdisc "
			    "show dev IF（fq：maxrate、throttled）",
		.change_en = "Remove or raise a pacing cap (SO_MAX_PACING_RATE in the application, "
			     "maxrate on the fq qdisc) that is below what the path can carry.",
		.change_zh = "去掉或调高低于路径承载能力的 pacing 上限（应用中的 SO_MAX_PACING_RATE，"
			     "或 fq qdisc 的 maxrate）。",
		.caveat_en = "Pacing spreads a window's packets over the RTT instead of sending them in "
			     "a burst, which avoids losses in shallow queues; only a cap set too low limits "
			     "throughput.",
		.caveat_zh = "pacing（按速率均匀发送）把一个窗口的报文分散在整个 RTT 内发送，而不是一次性"
			     "突发，能避免在浅缓冲中丢包；只有设得过低的上限才会限制吞吐。",
		CAUSES("sender-limited", "queueing-delay"),
	},
	{
		.name = "slow-reading application",
		.kind = PD_KB_APP,
		.side = PD_SIDE_RECEIVER,
		.default_value = NULL,
		.check = "ss -tmi (Recv-Q growing on the receiver); top/pidstat for the reader's CPU; "
			 "application logs for stalls (GC, disk, locks)",
		.check_zh = "ss -tmi（接收端的 Recv-Q 持续增长）；用 top/pidstat 查看读取方的 CPU；"
			    "应用日志中的停顿（GC、磁盘、锁）",
		.change_en = "Make the receiving application read faster or sooner (more readers, no "
			     "blocking work between reads).",
		.change_zh = "让接收端应用更快、更及时地读取数据（增加读线程，读之间不做阻塞操作）。",
		.caveat_en = "A zero window is the receiver's application not reading; bigger buffers only "
			     "delay it.",
		.caveat_zh = "零窗口说明接收端应用没有在读数据；加大缓冲区只能推迟出现。",
		CAUSES("zero-window", "window-limited", "retransmissions"),
	},
	/* ---------------- loss, queues, congestion ---------------- */
	{
		.name = "net.core.netdev_max_backlog",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_RECEIVER,
		.default_value = "1000",
		.check = "sysctl net.core.netdev_max_backlog; cat /proc/net/softnet_stat (second "
			 "column: drops per CPU)",
		.check_zh = "sysctl net.core.netdev_max_backlog；cat "
			    "/proc/net/softnet_stat（第二列：每个 CPU 的丢包数）",
		.change_en = "Raise it (e.g. 10000) when softnet_stat shows drops on the receiving host.",
		.change_zh = "当 softnet_stat 显示接收主机有丢包时调大（如 10000）。",
		.caveat_en = "It is the per-CPU input queue. veth (every container) and loopback hand "
			     "their packets to this same queue, so traffic leaving a container can be "
			     "dropped here too; for a physical NIC's transmit side see qdisc limit. Only "
			     "in the initial network namespace.",
		.caveat_zh = "这是每 CPU 的输入队列。veth（每个容器都用）和 loopback 把报文交给同一个"
			     "队列，所以离开容器的流量也可能在这里被丢弃；物理网卡的发送方向见 qdisc 限制。"
			     "仅在初始网络命名空间中存在。",
		CAUSES("retransmissions", "local-drop"),
	},
	{
		.name = "qdisc limit",
		.kind = PD_KB_INTERFACE,
		.side = PD_SIDE_SENDER,
		.default_value = "depends on the qdisc (txqueuelen 1000; fq_codel limit 10240)",
		.check = "tc -s qdisc show dev IF (dropped, overlimits, backlog); ip -s link show dev "
			 "IF (TX dropped)",
		.check_zh = "tc -s qdisc show dev IF (dropped, overlimits, backlog); ip -s link "
			    "show dev IF (TX dropped)",
		.change_en = "Size the queue for a few tens of milliseconds at the link's rate: raise the "
			     "limit (tc qdisc change ... limit N, or ip link set IF txqueuelen N) when it "
			     "drops bursts, lower it or put fq_codel or cake in charge when packets wait "
			     "hundreds of milliseconds in it (bufferbloat); remove a shaping rule that is "
			     "too tight.",
		.change_zh = "按链路速率把队列设为几十毫秒的量：队列丢弃突发时调大上限（tc qdisc change ... "
			     "limit N 或 ip link set IF txqueuelen N）；报文在其中要等几百毫秒（缓冲区膨胀）"
			     "时调小上限，或改用 fq_codel、cake 管理队列；放宽过紧的限速规则。",
		.caveat_en = "Longer queues add latency (bufferbloat); a shaper's rate is usually the "
			     "real limit. A packet the qdisc refuses at once is sent again by TCP as new "
			     "data (no trace in a capture); one dropped after it was queued (AQM, a shaper "
			     "that splits large segments) shows on the sender's capture as a "
			     "retransmission without its original.",
		.caveat_zh = "队列越长时延越大（缓冲区膨胀，bufferbloat）；真正的限制通常是整形器的速率。"
			     "qdisc 当场拒收的报文会被 TCP 当作新数据重新发送（抓包中不留痕迹）；"
			     "入队之后才被丢弃的报文（AQM、会切分大报文段的整形器）在发送端抓包中表现为"
			     "只有重传、没有原始报文。",
		CAUSES("local-drop", "retransmissions", "initial-window", "queueing-delay"),
	},
	{
		.name = "net.core.default_qdisc",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "pfifo_fast (kernel default; many distributions set fq_codel through "
				 "systemd's sysctl.d)",
		.check = "sysctl net.core.default_qdisc; tc -s qdisc show dev IF (the qdisc in use, its "
			 "drops and backlog)",
		.check_zh = "sysctl net.core.default_qdisc；tc -s qdisc show dev IF（正在使用的 "
			    "qdisc 及其丢包数和 backlog）",
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
		CAUSES("local-drop", "retransmissions", "queueing-delay"),
	},
	{
		.name = "local netfilter drops",
		.kind = PD_KB_FIREWALL,
		.side = PD_SIDE_BOTH,
		.default_value = NULL,
		.check = "nft list ruleset (counters of drop and reject rules in the input, output and "
			 "postrouting chains); iptables -L -v -n; iptables -t mangle -L -v -n; conntrack -S "
			 "(drop, early_drop, invalid, insert_failed)",
		.check_zh = "nft list ruleset（input、output 和 postrouting 链中 drop 与 reject "
			    "规则的计数）；iptables -L -v -n；iptables -t mangle -L -v -n；"
			    "conntrack -S（drop、early_drop、invalid、insert_failed）",
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
		CAUSES("retransmissions", "rto-timeouts", "syn-retransmit", "synack-retransmit"),
	},
	{
		.name = "qdisc choice",
		.kind = PD_KB_INTERFACE,
		.side = PD_SIDE_SENDER,
		.default_value = "net.core.default_qdisc (pfifo_fast or fq_codel); noqueue on veth and "
				 "loopback",
		.check = "tc -s qdisc show dev IF (which qdisc, its drops, backlog and, for fq_codel and "
			 "cake, drop and mark counts)",
		.check_zh = "tc -s qdisc show dev IF（使用的是哪种 qdisc，它的丢包数、backlog，对 "
			    "fq_codel 和 cake 还有 drop 与 mark 计数）",
		.change_en = "fq_codel for general hosts and routers; fq on servers that pace (bbr); cake "
			     "with its bandwidth set on the router in front of a slower link: e.g. tc qdisc "
			     "replace dev IF root fq_codel.",
		.change_zh = "一般主机和路由器用 fq_codel；需要 pacing 的服务器（bbr）用 fq；在较慢链路前"
			     "的路由器上用设定了带宽的 cake：例如 tc qdisc replace dev IF root fq_codel。",
		.caveat_en = "A plain FIFO (pfifo_fast) in front of a slower link adds delay up to its "
			     "whole length (bufferbloat) and drops only when full. AQM qdiscs keep the queue "
			     "short by dropping or ECN-marking early; on the sending host itself those "
			     "drops show as retransmissions whose original the capture never saw.",
		.caveat_zh = "较慢链路前的普通 FIFO（pfifo_fast）会让时延增加到整条队列的长度"
			     "（缓冲区膨胀，bufferbloat），只在队列满时才丢包。AQM 类 qdisc 通过提前丢包或 "
			     "ECN 标记保持短队列；若发生在发送主机本身，这些丢包在抓包中表现为重传报文的"
			     "原始报文从未出现。",
		CAUSES("local-drop", "retransmissions", "queueing-delay", "ecn-congestion-marks"),
	},
	{
		.name = "shaper queue size",
		.kind = PD_KB_INTERFACE,
		.side = PD_SIDE_PATH,
		.default_value = "set by whoever configured the shaper (tbf limit or latency, htb class "
				 "queues)",
		.check = "tc -s qdisc show dev IF; tc -s class show dev IF (backlog, dropped, overlimits "
			 "per class)",
		.check_zh = "tc -s qdisc show dev IF；tc -s class show dev IF（每个 class 的 "
			    "backlog、dropped、overlimits）",
		.change_en = "Give the shaper a queue of a few tens of milliseconds at its rate (tbf "
			     "latency 20ms), or put fq_codel or cake under it so the queue stays short "
			     "without dropping whole bursts.",
		.change_zh = "给整形器配置相当于其速率下几十毫秒的队列（tbf latency 20ms），或在其下挂 "
			     "fq_codel 或 cake，使队列保持短小又不会整批丢弃突发。",
		.caveat_en = "Too small a queue drops every burst larger than it (retransmissions; on the "
			     "sending host, tbf splits large segments and drops parts, which the capture "
			     "shows as retransmissions without originals); too large a queue adds delay that "
			     "grows with load.",
		.caveat_zh = "队列过小会丢弃每个超过它的突发（表现为重传；在发送主机上，tbf 会切分大报文"
			     "段并丢弃其中一部分，抓包中就是没有原始报文的重传）；队列过大则会带来随负载"
			     "增长的时延。",
		CAUSES("retransmissions", "local-drop", "queueing-delay"),
	},
	{
		.name = "byte queue limits (BQL)",
		.kind = PD_KB_INTERFACE,
		.side = PD_SIDE_SENDER,
		.default_value = "on for most current NIC drivers (a limit that adapts)",
		.check = "cat /sys/class/net/IF/queues/tx-0/byte_queue_limits/limit "
			 "/sys/class/net/IF/queues/tx-0/byte_queue_limits/inflight",
		.check_zh = "cat /sys/class/net/IF/queues/tx-0/byte_queue_limits/limit "
			    "/sys/class/net/IF/queues/tx-0/byte_queue_limits/inflight",
		.change_en = "Use a driver that supports BQL and leave it on, so the NIC's ring holds "
			     "only what it needs and the queue forms in the qdisc, where fq_codel or cake "
			     "can manage it.",
		.change_zh = "使用支持 BQL 的驱动并保持开启，让网卡环形缓冲只容纳所需的数据，队列形成在 "
			     "qdisc 中，由 fq_codel 或 cake 管理。",
		.caveat_en = "Without BQL the TX ring can hold milliseconds of data below the qdisc, out "
			     "of reach of its AQM. A capture on the host sees packets as they enter the "
			     "driver, before that wait.",
		.caveat_zh = "没有 BQL 时，qdisc 之下的网卡发送环可能积压数毫秒的数据，qdisc 的 AQM 管不到"
			     "它们。在本机抓包时，报文是在进入驱动时被看到的，早于这段等待。",
		CAUSES("queueing-delay"),
	},
	{
		.name = "lossy path",
		.kind = PD_KB_INTERFACE,
		.side = PD_SIDE_PATH,
		.default_value = NULL,
		.check = "mtr -n -r -c 200 PEER (the hop where loss starts and stays); on each Linux hop: "
			 "ip -s link show DEV and ethtool -S DEV | grep -i -E 'err|crc|drop' (counters that "
			 "grow between two reads)",
		.check_zh = "mtr -n -r -c 200 PEER（丢包从哪一跳开始出现并一直持续）；在每个 Linux "
			    "跳点上：ip -s link show DEV 和 ethtool -S DEV | grep -i -E "
			    "'err|crc|drop'（两次读取之间增长的计数）",
		.change_en = "Find the hop that loses packets and fix it or route around it: CRC or frame "
			     "errors point at a cable, optic or duplex mismatch, drops at a fixed rate at a "
			     "policer. Where random loss cannot be removed (radio links, some long-haul paths), "
			     "a loss-tolerant congestion control (bbr) on the sender keeps the throughput up.",
		.change_zh = "找出丢包的那一跳并修复或绕开它：CRC 或帧错误通常指向线缆、光模块或双工不匹配，"
			     "按固定速率丢包则多是限速器（policer）。在无法消除随机丢包的路径上（无线链路、部分"
			     "长途链路），发送端使用容忍丢包的拥塞控制（bbr）可以保住吞吐量。",
		.caveat_en = "Loss without a queue building up is not congestion: a different congestion "
			     "control hides it from the throughput, it does not remove it. mtr loss shown only "
			     "at a middle hop that later hops do not share is that router rate-limiting its "
			     "own ICMP replies, not loss.",
		.caveat_zh = "没有队列积压的丢包不是拥塞：换一种拥塞控制只是让吞吐量不受它影响，并没有消除"
			     "丢包。mtr 中只出现在中间某一跳、而后续各跳都没有的丢包，是该路由器在限制自己的 "
			     "ICMP 应答速率，不是丢包。",
		CAUSES("retransmissions", "rto-timeouts", "tail-loss"),
	},
	{
		.name = "NIC ring buffers",
		.kind = PD_KB_INTERFACE,
		.side = PD_SIDE_BOTH,
		.default_value = "driver-specific",
		.check = "ethtool -g IF; ethtool -S IF | grep -i -E 'drop|miss|fifo'",
		.check_zh = "ethtool -g IF; ethtool -S IF | grep -i -E 'drop|miss|fifo'",
		.change_en = "Enlarge the rings (ethtool -G IF rx N tx N) when the driver counts drops.",
		.change_zh = "当驱动统计到丢包时调大环形缓冲（ethtool -G IF rx N tx N）。",
		.caveat_en = "Changing ring sizes briefly resets the link on many drivers. A receive "
			     "ring that overflows loses packets before any capture on that host; a packet "
			     "lost in the transmit ring was already captured there.",
		.caveat_zh = "很多驱动在修改环形缓冲大小时会短暂重置链路。接收环溢出时，报文在本机任何抓包"
			     "点之前就已丢失；发送环中丢失的报文则在本机已经被抓到。",
		CAUSES("retransmissions"),
	},
	{
		.name = "net.ipv4.neigh.default.unres_qlen_bytes",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "212992 (bytes queued per unresolved neighbour)",
		.check = "sysctl net.ipv4.neigh.default.unres_qlen_bytes; ip -s neigh show; cat "
			 "/proc/net/stat/arp_cache (unresolved_discards column)",
		.check_zh = "sysctl net.ipv4.neigh.default.unres_qlen_bytes；ip -s neigh show；cat "
			    "/proc/net/stat/arp_cache（unresolved_discards 列）",
		.change_en = "Usually fix why the next hop's address resolves slowly or not at all (the "
			     "neighbour is down, ARP or neighbour discovery filtered); raise it only for "
			     "large bursts toward new neighbours.",
		.change_zh = "通常应查明下一跳地址解析缓慢或失败的原因（邻居宕机、ARP 或邻居发现被过滤）；"
			     "只有在向新邻居发送大突发时才调大它。",
		.caveat_en = "Packets wait here only while the next hop's link-layer address is unknown; "
			     "beyond the limit they are dropped after TCP counted them as sent, so the "
			     "sender's capture shows the retransmission without the original. Each "
			     "interface has its own value (net.ipv4.neigh.IF.unres_qlen_bytes); a container's "
			     "network namespace has no default entry (6.18).",
		.caveat_zh = "只有在下一跳的链路层地址未知时报文才在这里等待；超过上限的报文在 TCP 已认为"
			     "发出之后被丢弃，所以发送端抓包中只有重传、没有原始报文。每个接口有自己的值"
			     "（net.ipv4.neigh.IF.unres_qlen_bytes）；容器的网络命名空间中没有 default 这一项"
			     "（6.18）。",
		CAUSES("local-drop"),
	},
	{
		.name = "net.ipv4.tcp_congestion_control",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "cubic (kernel default; distributions may choose bbr)",
		.check = "sysctl net.ipv4.tcp_congestion_control "
			 "net.ipv4.tcp_available_congestion_control; ss -ti (shows the algorithm)",
		.check_zh = "sysctl net.ipv4.tcp_congestion_control "
			    "net.ipv4.tcp_available_congestion_control；ss -ti（会显示所用的算法）",
		.change_en = "On lossy long-RTT paths try bbr on the sender (modprobe tcp_bbr; "
			     "sysctl -w net.ipv4.tcp_congestion_control=bbr) or per route (ip route "
			     "... congctl bbr).",
		.change_zh = "在丢包较多、RTT 较长的路径上，可在发送端尝试 bbr（modprobe tcp_bbr；"
			     "sysctl -w net.ipv4.tcp_congestion_control=bbr），或按路由设置（ip route ... "
			     "congctl bbr）。",
		.caveat_en = "Only the sender's algorithm matters. It does not fix a receive-window or "
			     "application limit, nor loss caused by a queue or a fault.",
		.caveat_zh = "只有发送端的算法起作用。它不能解决接收窗口或应用层的限制，也不能消除队列或"
			     "故障造成的丢包。",
		CAUSES("retransmissions", "sender-limited", "queueing-delay"),
	},
	{
		.name = "net.ipv4.tcp_slow_start_after_idle",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "1",
		.check = "sysctl net.ipv4.tcp_slow_start_after_idle",
		.check_zh = "sysctl net.ipv4.tcp_slow_start_after_idle",
		.change_en = "Set 0 on the sender of long-lived connections with bursty traffic "
			     "(HTTP/2, RPC) so the congestion window survives idle periods.",
		.change_zh = "对有突发流量的长连接（HTTP/2、RPC），在发送端设为 0，使拥塞窗口在空闲后保留。",
		.caveat_en = "With 1 the congestion window is halved for every RTO of idleness, down to "
			     "the initial window; with 0 a full-window burst is sent into a path whose "
			     "state may have changed.",
		.caveat_zh = "设为 1 时，每空闲一个 RTO 拥塞窗口减半，最低降到初始窗口；设为 0 时，"
			     "会按旧窗口把整窗突发发到可能已变化的路径上。",
		CAUSES("slow-start-after-idle"),
	},
	{
		.name = "route initcwnd",
		.kind = PD_KB_ROUTE,
		.side = PD_SIDE_SENDER,
		.default_value = "10 segments",
		.check = "ip route show (initcwnd attribute; absent means 10)",
		.check_zh = "ip route show（initcwnd 属性；没有该属性即为 10）",
		.change_en = "On the sender: ip route change PREFIX via GW dev IF initcwnd N (e.g. 20) "
			     "for short transfers over long RTTs.",
		.change_zh = "在发送端：ip route change PREFIX via GW dev IF initcwnd N（如 20），"
			     "适用于长 RTT 上的短传输。",
		.caveat_en = "Bigger initial bursts can overflow shallow buffers. The receiver's window "
			     "must allow them too; a Linux receiver since 4.20 offers about 64 KB (44 "
			     "segments) at the start, so it is rarely the limit.",
		.caveat_zh = "更大的初始突发可能溢出浅缓冲。接收端的窗口也必须允许；从 4.20 起，Linux "
			     "接收端一开始就提供约 64 KB（44 个报文段），因此它很少成为限制。",
		CAUSES("initial-window", "slow-start-after-idle"),
	},
	{
		.name = "route initrwnd",
		.kind = PD_KB_ROUTE,
		.side = PD_SIDE_RECEIVER,
		.default_value = "unset (the initial window comes from tcp_rmem's middle value, about "
				 "64 KB)",
		.check = "ip route show (initrwnd attribute)",
		.check_zh = "ip route show（initrwnd 属性）",
		.change_en = "Remove a small initrwnd on the receiver's route (it can only lower the "
			     "initial window); to advertise more, raise tcp_rmem's middle value instead.",
		.change_zh = "去掉接收端路由上过小的 initrwnd（它只能降低初始窗口）；若要通告更大的窗口，"
			     "应调大 tcp_rmem 的中间值。",
		.caveat_en = "Since 4.20 the kernel takes the smaller of the window from tcp_rmem and "
			     "initrwnd x MSS. Measured on 6.18: SYN-ACK window 65160 without it, 65160 with "
			     "initrwnd 100, 5792 with initrwnd 4.",
		.caveat_zh = "从 4.20 起，内核取 tcp_rmem 得出的窗口与 initrwnd × MSS 中较小的一个。"
			     "在 6.18 上实测：不设置时 SYN-ACK 窗口为 65160，initrwnd 100 时为 65160，"
			     "initrwnd 4 时为 5792。",
		CAUSES("initial-window"),
	},
	/* ---------------- timers and retries ---------------- */
	{
		.name = "net.ipv4.tcp_rto_min_us",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "200000 (200 ms)",
		.added_in = "6.11",
		.check = "sysctl net.ipv4.tcp_rto_min_us; ip route show (rto_min); ss -ti (rto per "
			 "connection)",
		.check_zh = "sysctl net.ipv4.tcp_rto_min_us；ip route show（rto_min）；ss "
			    "-ti（每个连接的 rto）",
		.change_en = "Lower it (e.g. to 5000-50000) only inside a data center with RTTs below "
			     "1 ms, where 200 ms timeouts dominate tail latency; it applies to new sockets.",
		.change_zh = "只在 RTT 低于 1 毫秒、200 毫秒超时主导尾部时延的数据中心内调小"
			     "（如 5000-50000）；只对新建的套接字生效。",
		.caveat_en = "A route's rto_min takes precedence over it. Too low a floor fires before a "
			     "delayed ACK from the peer arrives (200 ms on Windows) and causes spurious "
			     "retransmissions; it also caps this host's delayed-ACK timer (10000 cut a "
			     "Nagle stall from 44 ms to 12 ms on 6.18). Before 6.11 only "
			     "the route attribute lowers the floor. pcapdoc assumes the 200 ms floor when it "
			     "tells timeouts from tail-loss probes.",
		.caveat_zh = "路由的 rto_min 优先于它。下限太低时，定时器会在对端的延迟确认到来之前"
			     "（Windows 为 200 毫秒）触发，造成虚假重传；它还会限制本机的延迟确认定时器"
			     "（在 6.18 上设为 10000 时，Nagle 停顿从 44 毫秒降到 12 毫秒）。"
			     "6.11 之前只能用路由属性降低下限。pcapdoc 在区分超时与尾部丢包探测时按 200 毫秒"
			     "的下限判断。",
		CAUSES("rto-timeouts", "spurious-retransmissions", "nagle-delayed-ack"),
	},
	{
		.name = "route rto_min",
		.kind = PD_KB_ROUTE,
		.side = PD_SIDE_SENDER,
		.default_value = "unset (200 ms, or net.ipv4.tcp_rto_min_us)",
		.check = "ip route show (rto_min lock N)",
		.check_zh = "ip route show (rto_min lock N)",
		.change_en = "ip route change PREFIX via GW dev IF rto_min 10ms, for routes inside a "
			     "data center only; remove it on routes that leave it.",
		.change_zh = "ip route change PREFIX via GW dev IF rto_min 10ms，只用于数据中心内部的路由；"
			     "离开数据中心的路由上应去掉它。",
		.caveat_en = "iproute2 always locks it, so it overrides tcp_rto_min_us for every "
			     "connection over that route; since 6.7 it also caps the host's delayed-ACK "
			     "timer just below it (measured on 6.18: a write-write-read exchange stalled "
			     "44 ms per request, 12 ms with rto_min 10ms on the receiver's route). The same "
			     "risk of spurious timeouts as a low tcp_rto_min_us.",
		.caveat_zh = "iproute2 总是锁定该属性，所以它对走该路由的所有连接都优先于 tcp_rto_min_us；"
			     "从 6.7 起它还把本机的延迟确认定时器限制在略低于它的值（在 6.18 上实测："
			     "“写-写-读”模式每个请求停顿 44 毫秒，在接收端路由上设置 rto_min 10ms 后为 "
			     "12 毫秒）。与过低的 tcp_rto_min_us 一样有虚假超时的风险。",
		CAUSES("rto-timeouts", "spurious-retransmissions", "nagle-delayed-ack"),
	},
	{
		.name = "net.ipv4.tcp_sack",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_BOTH,
		.default_value = "1",
		.check = "sysctl net.ipv4.tcp_sack; look for SACK_PERM in both SYNs",
		.check_zh = "sysctl net.ipv4.tcp_sack；查看两个 SYN 中是否都带有 SACK_PERM",
		.change_en = "Keep 1 on both ends so several losses per window recover in one round "
			     "trip.",
		.change_zh = "两端保持 1，使一个窗口内的多个丢包能在一个往返内恢复。",
		.caveat_en = "Middleboxes that rewrite sequence numbers without fixing SACK blocks break "
			     "SACK; then the fix is in the middlebox.",
		.caveat_zh = "改写序列号却不修正 SACK 块的中间设备会破坏 SACK，此时应修复中间设备。",
		CAUSES("retransmissions", "rto-timeouts", "spurious-retransmissions"),
	},
	{
		.name = "net.ipv4.tcp_retries2",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "15 (about 15 minutes of retries)",
		.check = "sysctl net.ipv4.tcp_retries2; nstat -az TcpExtTCPAbortOnTimeout",
		.check_zh = "sysctl net.ipv4.tcp_retries2; nstat -az TcpExtTCPAbortOnTimeout",
		.change_en = "Lower it (e.g. 8, roughly 100 s) when connections to dead peers must fail "
			     "sooner; or set TCP_USER_TIMEOUT per socket.",
		.change_zh = "当需要更快放弃已失效的对端时调小（如 8，约 100 秒）；或按套接字设置 "
			     "TCP_USER_TIMEOUT。",
		.caveat_en = "The time is computed from an exponential RTO schedule, not a fixed count "
			     "of seconds; too low breaks connections across short outages.",
		.caveat_zh = "超时时间按指数退避的 RTO 计算，而不是固定秒数；设得过小会在短暂中断时断开连接。",
		CAUSES("rto-timeouts"),
	},
	{
		.name = "net.ipv4.tcp_recovery",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "1 (RACK loss detection)",
		.check = "sysctl net.ipv4.tcp_recovery net.ipv4.tcp_early_retrans",
		.check_zh = "sysctl net.ipv4.tcp_recovery net.ipv4.tcp_early_retrans",
		.change_en = "Keep the default; RACK and tail loss probes shorten recovery of the last "
			     "segments of a burst.",
		.change_zh = "保持默认值；RACK 与尾部丢包探测可缩短突发末尾报文的恢复时间。",
		.caveat_en = "Disabling them makes tail losses wait for a full RTO.",
		.caveat_zh = "关闭后，尾部丢包需要等待完整的 RTO。",
		CAUSES("rto-timeouts", "tail-loss", "spurious-retransmissions"),
	},
	{
		.name = "net.ipv4.tcp_early_retrans",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "3 (tail loss probes on)",
		.check = "sysctl net.ipv4.tcp_early_retrans; nstat -az TcpExtTCPLossProbes",
		.check_zh = "sysctl net.ipv4.tcp_early_retrans; nstat -az TcpExtTCPLossProbes",
		.change_en = "Keep 3 so a tail loss is probed after about two RTTs instead of an RTO.",
		.change_zh = "保持 3，使尾部丢包在约两个 RTT 后即被探测，而不是等 RTO。",
		.caveat_en = "0 turns tail loss probes off.",
		.caveat_zh = "设为 0 会关闭尾部丢包探测。",
		CAUSES("rto-timeouts", "tail-loss", "spurious-retransmissions"),
	},
	{
		.name = "net.ipv4.tcp_frto",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "2 (F-RTO, SACK-enhanced)",
		.check = "sysctl net.ipv4.tcp_frto; nstat -az TcpExtTCPSpuriousRTOs",
		.check_zh = "sysctl net.ipv4.tcp_frto; nstat -az TcpExtTCPSpuriousRTOs",
		.change_en = "Keep 2.",
		.change_zh = "保持 2。",
		.caveat_en = "0 turns spurious-timeout detection off: after a timeout that was only a "
			     "delay, the sender resends data the receiver already has and slows down for "
			     "nothing.",
		.caveat_zh = "设为 0 会关闭虚假超时检测：一次其实只是延迟的超时之后，发送端会重发接收端"
			     "已有的数据，并无谓地降速。",
		CAUSES("spurious-retransmissions"),
	},
	/* ---------------- idle connections ---------------- */
	{
		.name = "net.ipv4.tcp_keepalive_time",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_BOTH,
		.default_value = "7200 (seconds)",
		.check = "sysctl net.ipv4.tcp_keepalive_time; ss -tno (timer:(keepalive,...)); nstat "
			 "-az TcpExtTCPKeepAlive",
		.check_zh = "sysctl net.ipv4.tcp_keepalive_time; ss -tno (timer:(keepalive,...)); "
			    "nstat -az TcpExtTCPKeepAlive",
		.change_en = "Lower it (or TCP_KEEPIDLE per socket) below the idle timeout of NATs, "
			     "firewalls and load balancers on the path (often 300-3600 s).",
		.change_zh = "将其（或套接字选项 TCP_KEEPIDLE）调到小于路径上 NAT、防火墙、负载均衡的空闲超时"
			     "（通常 300-3600 秒）。",
		.caveat_en = "Applies only to sockets with SO_KEEPALIVE enabled; TCP_KEEPIDLE overrides it "
			     "per socket.",
		.caveat_zh = "只对开启了 SO_KEEPALIVE 的套接字生效；TCP_KEEPIDLE 可按套接字覆盖。",
		CAUSES("keepalive", "middlebox-idle-timeout"),
	},
	{
		.name = "net.ipv4.tcp_keepalive_intvl",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_BOTH,
		.default_value = "75 (seconds)",
		.check = "sysctl net.ipv4.tcp_keepalive_intvl",
		.check_zh = "sysctl net.ipv4.tcp_keepalive_intvl",
		.change_en = "Lower it (or TCP_KEEPINTVL) to detect a dead peer sooner after the first "
			     "unanswered probe.",
		.change_zh = "调小它（或 TCP_KEEPINTVL），在首个探测未被应答后更快发现对端失效。",
		.caveat_en = "Dead-peer detection takes keepalive_time + intvl x probes (about 2 h 11 min "
			     "by default).",
		.caveat_zh = "发现对端失效的时间为 keepalive_time + intvl × probes（默认约 2 小时 11 分）。",
		CAUSES("keepalive"),
	},
	{
		.name = "net.ipv4.tcp_keepalive_probes",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_BOTH,
		.default_value = "9",
		.check = "sysctl net.ipv4.tcp_keepalive_probes",
		.check_zh = "sysctl net.ipv4.tcp_keepalive_probes",
		.change_en = "Lower it (or TCP_KEEPCNT) to give up on an unreachable peer sooner.",
		.change_zh = "调小它（或 TCP_KEEPCNT）可更快放弃不可达的对端。",
		.caveat_en = "Too few probes can drop connections across a short outage.",
		.caveat_zh = "探测次数太少可能在短暂中断时误断连接。",
		CAUSES("keepalive"),
	},
	{
		.name = "SO_KEEPALIVE",
		.kind = PD_KB_SOCKOPT,
		.side = PD_SIDE_BOTH,
		.default_value = "off",
		.check = "ss -tno (a keepalive timer is listed only for sockets that enabled it)",
		.check_zh = "ss -tno（只有启用了 keepalive 的套接字才会列出 keepalive 计时器）",
		.change_en = "Enable it (with TCP_KEEPIDLE/TCP_KEEPINTVL/TCP_KEEPCNT) for long idle "
			     "connections, or use application-level heartbeats.",
		.change_zh = "对长时间空闲的连接开启它（配合 TCP_KEEPIDLE/TCP_KEEPINTVL/TCP_KEEPCNT），"
			     "或使用应用层心跳。",
		.caveat_en = "Keepalive probes carry no data; some middleboxes do not count them as "
			     "activity.",
		.caveat_zh = "保活探测不带数据；部分中间设备不会把它算作活动流量。",
		CAUSES("keepalive", "middlebox-idle-timeout"),
	},
	{
		.name = "TCP_KEEPIDLE",
		.kind = PD_KB_SOCKOPT,
		.side = PD_SIDE_BOTH,
		.default_value = "not set (net.ipv4.tcp_keepalive_time, 7200 s)",
		.check = "ss -tno (timer:(keepalive,T): the time to the next probe); the application's "
			 "configuration",
		.check_zh = "ss -tno（timer:(keepalive,T)：距下一次探测的时间）；应用的配置",
		.change_en = "Set it, with SO_KEEPALIVE, below the idle timeout of every NAT, firewall "
			     "and load balancer on the path (e.g. 60-300 s).",
		.change_zh = "配合 SO_KEEPALIVE 设置，使其小于路径上所有 NAT、防火墙、负载均衡的空闲超时"
			     "（如 60-300 秒）。",
		.caveat_en = "Per socket and only with SO_KEEPALIVE; TCP_KEEPINTVL and TCP_KEEPCNT set the "
			     "rest, and TCP_USER_TIMEOUT, when set, decides when unanswered probes give up.",
		.caveat_zh = "按套接字设置，且只在开启 SO_KEEPALIVE 时生效；其余由 TCP_KEEPINTVL 和 "
			     "TCP_KEEPCNT 决定；若设置了 TCP_USER_TIMEOUT，则由它决定无应答的探测何时放弃。",
		CAUSES("keepalive", "middlebox-idle-timeout"),
	},
	{
		.name = "net.netfilter.nf_conntrack_tcp_timeout_established",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_PATH,
		.default_value = "432000 (5 days)",
		.check = "sysctl net.netfilter.nf_conntrack_tcp_timeout_established on the NAT or "
			 "firewall; conntrack -L -p tcp --dport PORT (seconds left per entry)",
		.check_zh = "在 NAT 或防火墙上执行 sysctl "
			    "net.netfilter.nf_conntrack_tcp_timeout_established；conntrack -L -p "
			    "tcp --dport PORT（每个条目的剩余秒数）",
		.change_en = "Keep it above the longest idle time of the connections through the "
			     "device, or make them send keepalives more often than it. Cloud NATs and load "
			     "balancers have their own idle timeouts (often minutes).",
		.change_zh = "让它大于经过该设备的连接的最长空闲时间，或让这些连接发送保活的间隔比它短。"
			     "云上的 NAT 和负载均衡有各自的空闲超时（通常只有几分钟）。",
		.caveat_en = "When an entry expires, the next packet of the idle connection is no longer "
			     "NATed, or a stateful firewall drops it as invalid: the sender retransmits into "
			     "silence until it gives up, or gets a RST. Per network namespace.",
		.caveat_zh = "表项过期后，这条空闲连接的下一个报文不再被 NAT，或被有状态防火墙当作无效报文"
			     "丢弃：发送端对着沉默不断重传直到放弃，或者收到 RST。按网络命名空间设置。",
		CAUSES("keepalive", "rto-timeouts", "retransmissions", "middlebox-idle-timeout"),
	},
	{
		.name = "SO_LINGER",
		.kind = PD_KB_SOCKOPT,
		.side = PD_SIDE_BOTH,
		.default_value = "off (close() returns at once and the kernel finishes the close)",
		.check = "The application's configuration or source (SO_LINGER with a zero timeout); "
			 "nstat -az TcpExtTCPAbortOnData TcpExtTCPAbortOnClose",
		.check_zh = "应用的配置或源代码（超时为零的 SO_LINGER）；nstat -az "
			    "TcpExtTCPAbortOnData TcpExtTCPAbortOnClose",
		.change_en = "Do not use a zero linger time to avoid TIME_WAIT: close normally and let "
			     "the side that closes first hold TIME_WAIT; reuse connections to have fewer.",
		.change_zh = "不要为避免 TIME_WAIT 而把 linger 时间设为零：正常关闭连接，让先关闭的一方"
			     "保留 TIME_WAIT；通过复用连接来减少它。",
		.caveat_en = "With l_onoff=1 and l_linger=0, close() discards unsent data and sends a RST "
			     "(counted in TcpExtTCPAbortOnData): the peer sees 'connection reset by peer' "
			     "and may lose the end of a response. Closing a socket with unread received "
			     "data sends a RST too, with or without it (TcpExtTCPAbortOnClose).",
		.caveat_zh = "l_onoff=1 且 l_linger=0 时，close() 会丢弃未发送的数据并发送 RST（计入 "
			     "TcpExtTCPAbortOnData）：对端看到 'connection reset by peer'，可能丢失响应的"
			     "结尾。关闭一个仍有未读数据的套接字同样会发送 RST，与是否设置该选项无关"
			     "（TcpExtTCPAbortOnClose）。",
		CAUSES("reset-abort", "reset-unread-data"),
	},
	{
		.name = "application: close() with unread data",
		.kind = PD_KB_APP,
		.side = PD_SIDE_BOTH,
		.default_value = NULL,
		.check = "nstat -az TcpExtTCPAbortOnClose (one per such close); ss -tn on that host (a "
			 "Recv-Q above 0 on connections the application is about to close); the "
			 "application's code path that answers and closes",
		.check_zh = "nstat -az TcpExtTCPAbortOnClose（每次这样的 close 计一次）；"
			    "在该主机上执行 ss -tn（应用即将关闭的连接上 Recv-Q 大于 0）；"
			    "应用中应答后关闭连接的那段代码路径",
		.change_en = "Read what the peer sends to the end before close(): consume the rest of a "
			     "request body, or call shutdown(SHUT_WR) to send the FIN, keep reading until the "
			     "peer's FIN (or a short timeout), then close(). Servers that reject a request "
			     "early should still drain it (nginx does this with lingering_close).",
		.change_zh = "在 close() 之前把对端发来的数据读完：读掉剩余的请求体，或先调用 "
			     "shutdown(SHUT_WR) 发送 FIN，继续读到对端的 FIN（或一个较短的超时），再 close()。"
			     "提前拒绝请求的服务端也应把请求读完（nginx 的 lingering_close 就是这样做的）。",
		.caveat_en = "Linux sends a RST instead of a FIN whenever close() finds unread data in the "
			     "receive queue (RFC 2525, 2.17), whatever SO_LINGER says, and counts it in "
			     "TcpExtTCPAbortOnClose. The RST can make the peer lose an answer it had not read "
			     "yet; a killed process has its sockets closed the same way.",
		.caveat_zh = "只要 close() 时接收队列中还有未读数据，Linux 就发送 RST 而不是 FIN"
			     "（RFC 2525，2.17），与 SO_LINGER 的设置无关，并计入 TcpExtTCPAbortOnClose。"
			     "这个 RST 可能让对端丢失尚未读取的应答；进程被杀死时其套接字也以同样方式关闭。",
		CAUSES("reset-unread-data", "reset-abort", "reset-after-close"),
	},
	{
		.name = "application: close() while the peer still sends",
		.kind = PD_KB_APP,
		.side = PD_SIDE_BOTH,
		.default_value = NULL,
		.check = "nstat -az TcpExtTCPAbortOnData on the host that closed (one per connection reset "
			 "this way); the application's close path (close() right after writing an error, "
			 "an alert or the last response); the keep-alive idle timeouts of the client and "
			 "the server",
		.check_zh = "在关闭连接的主机上执行 nstat -az TcpExtTCPAbortOnData（每条这样被复位的连接计一次）；"
			    "应用的关闭路径（写完错误、告警或最后一个响应后立即 close()）；客户端和服务端的 keep-alive "
			    "空闲长连接超时",
		.change_en = "End a connection the peer may still write to in two steps: shutdown(SHUT_WR) "
			     "to send the FIN, read until the peer's FIN or a short timeout, then close() "
			     "(nginx lingering_close does this). Keep a client's idle keep-alive timeout "
			     "below the server's so that the client never sends into a connection the server "
			     "is closing, and retry idempotent requests that fail so. A TLS endpoint should "
			     "read the peer's close_notify before close().",
		.change_zh = "对一条对端可能仍在写入的连接，分两步结束：先 shutdown(SHUT_WR) 发送 FIN，读到对端的 "
			     "FIN 或一个较短的超时，再 close()（nginx 的 lingering_close 就是这样做的）。让客户端的"
			     "空闲长连接超时短于服务端的，客户端就不会向服务端正在关闭的连接发送数据；"
			     "这样失败的幂等请求应重试。TLS 端点应在读到对端的 close_notify 之后再 close()。",
		.caveat_en = "After close() the socket can no longer receive: Linux answers any data that "
			     "arrives then with a RST (tcp_rcv_state_process in FIN_WAIT1/FIN_WAIT2 with the "
			     "receive side shut, TcpExtTCPAbortOnData), and after the socket is gone its "
			     "kernel answers each later segment with a bare RST; macOS and the BSDs do the "
			     "same. shutdown(SHUT_WR) alone sends the same FIN but keeps reading. Closing "
			     "with data already unread sends a RST instead of the FIN (RFC 2525, 2.17): that "
			     "is the other entry. Whether the peer's lost bytes mattered depends on the "
			     "protocol: a final TLS close_notify is harmless, a request is not.",
		.caveat_zh = "close() 之后套接字不能再接收：此时到达的任何数据 Linux 都回应 RST（FIN_WAIT1/"
			     "FIN_WAIT2 状态且接收方向已关闭时的 tcp_rcv_state_process，计入 "
			     "TcpExtTCPAbortOnData），套接字消失后，内核对之后的每个报文回应一个裸 RST；macOS "
			     "和 BSD 也一样。只调用 shutdown(SHUT_WR) 会发送同样的 FIN，但仍继续接收。关闭时若已有"
			     "未读数据，则发送 RST 而不是 FIN（RFC 2525，2.17）：那是另一个条目。对端丢失的字节是否"
			     "要紧取决于协议：最后一条 TLS close_notify 无关紧要，一个请求则不然。",
		CAUSES("reset-after-close"),
	},
	{
		.name = "peer restart or failover",
		.kind = PD_KB_APP,
		.side = PD_SIDE_BOTH,
		.default_value = NULL,
		.check = "The logs and uptime of the host that sent the RST at that moment (service "
			 "restart, crash, the OOM killer, container rescheduled, failover); journalctl -u SERVICE; "
			 "nstat -az TcpEstabResets on the other host",
		.check_zh = "发出 RST 的主机在那一刻的日志与 uptime（服务重启、崩溃、OOM killer、"
			    "容器被重新调度、故障切换）；journalctl -u SERVICE；在另一台主机上执行 "
			    "nstat -az TcpEstabResets",
		.change_en = "Drain connections before a planned restart (stop accepting, close idle "
			     "keep-alive connections with a FIN, wait for requests in progress), and make "
			     "clients reconnect and retry idempotent requests after ECONNRESET.",
		.change_zh = "计划内重启前先排空连接（停止接受新连接，用 FIN 关闭空闲长连接，等待进行中的请求"
			     "完成），并让客户端在收到 ECONNRESET 后重连并重试幂等请求。",
		.caveat_en = "A host that restarts loses all its connections without a word to the peers; "
			     "each learns it only when it sends next and gets a RST. Keepalive finds such "
			     "connections earlier but does not prevent the loss.",
		.caveat_zh = "主机重启会在不通知对端的情况下丢失全部连接；对端只有在下一次发送并收到 RST 时"
			     "才会知道。保活探测能更早发现这类连接，但不能避免连接丢失。",
		CAUSES("reset-stale-connection"),
	},
	{
		.name = "middlebox idle timeout",
		.kind = PD_KB_FIREWALL,
		.side = PD_SIDE_PATH,
		.default_value = "device-specific (cloud NAT gateways and load balancers often a few minutes)",
		.check = "The idle timeout configured on the NAT, firewall or load balancer between the "
			 "hosts; on a Linux box: sysctl net.netfilter.nf_conntrack_tcp_timeout_established "
			 "and conntrack -L (seconds left per entry)",
		.check_zh = "两台主机之间的 NAT、防火墙或负载均衡器上配置的空闲超时；在 Linux "
			    "设备上：sysctl net.netfilter.nf_conntrack_tcp_timeout_established 和 "
			    "conntrack -L（每个条目的剩余秒数）",
		.change_en = "Make the connections speak more often than the device forgets them (TCP "
			     "keepalive with TCP_KEEPIDLE below its timeout, or application heartbeats), or "
			     "raise the device's idle timeout above the longest idle time of the connections.",
		.change_zh = "让连接发送报文的间隔比设备遗忘它们的时间更短（开启 TCP 保活并把 TCP_KEEPIDLE "
			     "设得小于其超时，或使用应用层心跳），或把设备的空闲超时调到大于连接的最长空闲时间。",
		.caveat_en = "After the state is gone the device drops the connection's next packets (the "
			     "sender retransmits into silence), answers them with a RST, or, for a NAT, maps "
			     "them to a new port the server does not know (a RST from the server). Neither "
			     "host logs anything about it.",
		.caveat_zh = "状态消失后，设备会丢弃该连接后续的报文（发送端对着沉默重传），或用 RST 应答；"
			     "如果是 NAT，还可能把报文映射到服务端不认识的新端口（于是服务端回 RST）。两台主机上"
			     "都不会有任何相关日志。",
		CAUSES("middlebox-idle-timeout", "reset-stale-connection", "keepalive"),
	},
	{
		.name = "middlebox forging resets",
		.kind = PD_KB_FIREWALL,
		.side = PD_SIDE_PATH,
		.default_value = NULL,
		.check = "Capture at both ends at once: a RST one end receives that the other never "
			 "sent; the firewall's or IPS's logs and reset actions (reject with tcp reset, "
			 "IPS drop-and-reset policies); traceroute to find the devices in between",
		.check_zh = "在两端同时抓包：一端收到、另一端却从未发出的 RST；防火墙或 IPS "
			    "的日志及重置动作（reject with tcp reset、IPS 的 drop-and-reset 策略）；"
			    "用 traceroute 找出中间的设备",
		.change_en = "Find the device and the rule that resets the connection (an IPS signature, a "
			     "URL or SNI filter, a session limit) and change the rule or the traffic that "
			     "matches it.",
		.change_zh = "找到复位连接的设备和规则（IPS 特征、URL 或 SNI 过滤、会话数限制），修改规则或"
			     "修改命中它的流量。",
		.caveat_en = "Forged resets usually carry the TTL of the device, not of the host they claim, "
			     "and arrive faster than that host could answer; a device right next to the host "
			     "can still look like it.",
		.caveat_zh = "伪造的 RST 通常带的是设备的 TTL 而不是其冒充主机的 TTL，而且到达得比该主机可能"
			     "应答的时间还早；但紧挨主机的设备仍可能与它难以区分。",
		CAUSES("reset-injected"),
	},
	{
		.name = "middlebox rewriting TCP timestamps",
		.kind = PD_KB_FIREWALL,
		.side = PD_SIDE_PATH,
		.default_value = NULL,
		.check = "Capture on both sides of the NAT, firewall or load balancer and compare the "
			 "TSval of the same segments; the device's TCP normalization or timestamp "
			 "randomization options; nstat -az TcpExtPAWSEstab on the receiver",
		.check_zh = "在 NAT、防火墙或负载均衡器两侧抓包，比较同一批报文段的 TSval；"
			    "该设备的 TCP 规范化（normalization）或时间戳随机化选项；在接收端执行 "
			    "nstat -az TcpExtPAWSEstab",
		.change_en = "Turn off the device's timestamp rewriting or stripping, or make it keep one "
			     "offset for the whole life of a connection (also across failover between two "
			     "devices); two hosts must never share one 4-tuple behind it.",
		.change_zh = "关闭设备的时间戳改写或剥离功能，或让它在连接的整个生命周期内保持同一个偏移"
			     "（在两台设备之间故障切换时也一样）；其后的两台主机绝不能共用一个四元组。",
		.caveat_en = "A receiver drops every segment whose timestamp is older than the last one it "
			     "accepted on the connection, so one backward step (a failover to a box with "
			     "another offset, two hosts on one 4-tuple) stalls the connection until the "
			     "sender gives up.",
		.caveat_zh = "接收端会丢弃时间戳比该连接上最后接受的时间戳更旧的每个报文，所以只要回退一步"
			     "（故障切换到偏移不同的设备、两台主机共用一个四元组），连接就会卡住，直到发送端放弃。",
		CAUSES("paws-rejected-data"),
	},
	/* ---------------- ECN ---------------- */
	{
		.name = "net.ipv4.tcp_ecn",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_CLIENT,
		.default_value = "2 (accept ECN when the peer asks, never ask)",
		.check = "sysctl net.ipv4.tcp_ecn net.ipv4.tcp_ecn_fallback; in the capture, a SYN with "
			 "ECE and CWR asks for ECN",
		.check_zh = "sysctl net.ipv4.tcp_ecn net.ipv4.tcp_ecn_fallback；在抓包中，带 ECE "
			    "和 CWR 标志的 SYN 表示请求使用 ECN",
		.change_en = "Keep 2 on clients whose paths you do not control. 1 makes outgoing "
			     "connections ask for ECN, which lets AQM routers mark instead of drop, but a "
			     "middlebox that drops ECN-setup SYNs then costs each connection a SYN "
			     "timeout.",
		.change_zh = "对路径不受自己控制的客户端保持 2。设为 1 会让发出的连接请求 ECN，使 AQM "
			     "路由器能用标记代替丢包；但如果有中间设备丢弃请求 ECN 的 SYN，每个连接都要"
			     "付出一次 SYN 超时。",
		.caveat_en = "Only the connecting side's value decides whether ECN is requested; servers "
			     "answer with 2. With tcp_ecn_fallback=1 the retransmitted SYN goes without "
			     "ECN. Kernels with net.ipv4.tcp_ecn_option also negotiate Accurate ECN.",
		.caveat_zh = "是否请求 ECN 只由发起连接一方的取值决定；服务端为 2 即会应答。"
			     "tcp_ecn_fallback=1 时，重传的 SYN 不再请求 ECN。带有 net.ipv4.tcp_ecn_option "
			     "的内核还会协商 Accurate ECN。",
		CAUSES("syn-retransmit", "syn-unanswered", "ecn-syn-dropped", "ecn-congestion-marks"),
	},
	{
		.name = "net.ipv4.tcp_ecn_fallback",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_CLIENT,
		.default_value = "1",
		.check = "sysctl net.ipv4.tcp_ecn_fallback",
		.check_zh = "sysctl net.ipv4.tcp_ecn_fallback",
		.change_en = "Keep 1.",
		.change_zh = "保持 1。",
		.caveat_en = "With 1 a retransmitted SYN is sent without ECE and CWR, so a middlebox that "
			     "drops ECN-setup SYNs costs one SYN timeout (about 1 s); with 0 every retry asks "
			     "for ECN again and such a path never connects.",
		.caveat_zh = "设为 1 时，重传的 SYN 不带 ECE 和 CWR，因此丢弃 ECN 请求 SYN 的中间设备只会"
			     "造成一次 SYN 超时（约 1 秒）；设为 0 时每次重试都再次请求 ECN，这样的路径"
			     "永远连不上。",
		CAUSES("syn-unanswered", "syn-retransmit", "ecn-syn-dropped"),
	},
	/* ---------------- MTU, fragmentation ---------------- */
	{
		.name = "net.ipv4.tcp_mtu_probing",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "0",
		.check = "sysctl net.ipv4.tcp_mtu_probing net.ipv4.tcp_base_mss",
		.check_zh = "sysctl net.ipv4.tcp_mtu_probing net.ipv4.tcp_base_mss",
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
		CAUSES("pmtu-blackhole", "pmtu-not-adapted", "mss-exceeds-path"),
	},
	{
		.name = "net.ipv4.tcp_base_mss",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "1024",
		.check = "sysctl net.ipv4.tcp_base_mss",
		.check_zh = "sysctl net.ipv4.tcp_base_mss",
		.change_en = "Leave it unless the path MTU is below about 1064 bytes; it is the MSS that "
			     "MTU probing starts from.",
		.change_zh = "除非路径 MTU 低于约 1064 字节，否则保持不变；它是 MTU 探测的起始 MSS。",
		.caveat_en = "Only used when net.ipv4.tcp_mtu_probing is non-zero.",
		.caveat_zh = "仅在 net.ipv4.tcp_mtu_probing 不为零时使用。",
		CAUSES("pmtu-blackhole"),
	},
	{
		.name = "interface MTU",
		.kind = PD_KB_INTERFACE,
		.side = PD_SIDE_PATH,
		.default_value = "1500 on Ethernet",
		.check = "ip link show dev IF (mtu); tracepath HOST; ping -M do -s SIZE HOST",
		.check_zh = "ip link show dev IF (mtu); tracepath HOST; ping -M do -s SIZE HOST",
		.change_en = "Set the MTU of tunnel and overlay interfaces to the underlay MTU minus the "
			     "encapsulation (VXLAN 50 B, GRE 24 B, IPsec about 50-70 B): ip link set IF "
			     "mtu N.",
		.change_zh = "把隧道和 overlay 接口的 MTU 设为底层 MTU 减去封装开销（VXLAN 50 字节，"
			     "GRE 24 字节，IPsec 约 50-70 字节）：ip link set IF mtu N。",
		.caveat_en = "Both ends derive their MSS from their own interface MTU; a smaller MTU "
			     "somewhere in the path is invisible to them without ICMP.",
		.caveat_zh = "两端各自根据本机接口 MTU 计算 MSS；路径中间更小的 MTU 在没有 ICMP 时它们无法得知。",
		CAUSES("ip-fragmentation", "fragment-reassembly-incomplete", "pmtu-frag-needed",
		       "pmtu-not-adapted", "pmtu-blackhole", "mss-exceeds-path"),
	},
	{
		.name = "MSS clamping",
		.kind = PD_KB_FIREWALL,
		.side = PD_SIDE_PATH,
		.default_value = "off",
		.check = "nft list ruleset | grep maxseg; iptables -t mangle -S | grep TCPMSS",
		.check_zh = "nft list ruleset | grep maxseg; iptables -t mangle -S | grep TCPMSS",
		.change_en = "On the router or tunnel endpoint: iptables -t mangle -A FORWARD -p tcp "
			     "--tcp-flags SYN,RST SYN -j TCPMSS --clamp-mss-to-pmtu, or in nftables: "
			     "tcp flags syn tcp option maxseg size set rt mtu.",
		.change_zh = "在路由器或隧道端点上：iptables -t mangle -A FORWARD -p tcp --tcp-flags "
			     "SYN,RST SYN -j TCPMSS --clamp-mss-to-pmtu，或 nftables：tcp flags syn tcp "
			     "option maxseg size set rt mtu。",
		.caveat_en = "Fixes TCP only (UDP and ICMP still need PMTU discovery) and only for "
			     "connections whose SYN passes through that device.",
		.caveat_zh = "只对 TCP 有效（UDP 和 ICMP 仍依赖 PMTU 发现），且只对 SYN 经过该设备的连接有效。",
		CAUSES("pmtu-frag-needed", "pmtu-not-adapted", "pmtu-blackhole", "mss-exceeds-path",
		       "ip-fragmentation"),
	},
	{
		.name = "firewall dropping ICMP frag-needed",
		.kind = PD_KB_FIREWALL,
		.side = PD_SIDE_PATH,
		.default_value = NULL,
		.check = "nft list ruleset; iptables -S; ip6tables -S; cloud security groups (is ICMP "
			 "type 3 code 4 / ICMPv6 type 2 allowed?)",
		.check_zh = "nft list ruleset；iptables -S；ip6tables -S；云安全组（是否放行 ICMP "
			    "type 3 code 4 / ICMPv6 type 2？）",
		.change_en = "Allow ICMP destination-unreachable fragmentation-needed (type 3 code 4) and "
			     "ICMPv6 Packet Too Big (type 2) toward the senders.",
		.change_zh = "放行发往发送端的 ICMP 目的不可达-需要分片（类型 3 代码 4）和 ICMPv6 "
			     "报文过大（Packet Too Big，类型 2）。",
		.caveat_en = "IPv6 routers never fragment: blocking Packet Too Big always creates a "
			     "black hole for large packets.",
		.caveat_zh = "IPv6 路由器从不分片：拦截 Packet Too Big 必然造成大包黑洞。",
		CAUSES("pmtu-not-adapted", "pmtu-blackhole"),
	},
	{
		.name = "net.ipv4.ip_no_pmtu_disc",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "0 (PMTU discovery on)",
		.check = "sysctl net.ipv4.ip_no_pmtu_disc",
		.check_zh = "sysctl net.ipv4.ip_no_pmtu_disc",
		.change_en = "Keep 0 so TCP sets DF and adapts to frag-needed messages.",
		.change_zh = "保持 0，使 TCP 设置 DF 并根据“需要分片”消息调整。",
		.caveat_en = "1 sends IPv4 without DF so routers fragment instead; modes 2 and 3 change "
			     "which frag-needed messages are believed (see the kernel's ip-sysctl "
			     "documentation). IPv6 is not affected.",
		.caveat_zh = "设为 1 时 IPv4 报文不带 DF，由路由器分片；2 和 3 两种模式改变对“需要分片”"
			     "消息的信任方式（见内核 ip-sysctl 文档）。对 IPv6 无效。",
		CAUSES("ip-fragmentation", "pmtu-not-adapted"),
	},
	{
		.name = "net.ipv4.route.min_pmtu",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_SENDER,
		.default_value = "552",
		.check = "sysctl net.ipv4.route.min_pmtu; ip route get DST (mtu of a cached path MTU)",
		.check_zh = "sysctl net.ipv4.route.min_pmtu；ip route get DST（已缓存路径 MTU 的 "
			    "mtu）",
		.change_en = "Lower it only for paths whose real MTU is below 552 bytes (rare).",
		.change_zh = "只有在路径的实际 MTU 低于 552 字节时才调小（罕见）。",
		.caveat_en = "An ICMP frag-needed announcing less than this is not believed as such: the "
			     "path MTU is set to this value and packets go out without DF, so the sender "
			     "keeps sending packets larger than announced and routers fragment them. "
			     "IPv4 only (IPv6's minimum is 1280).",
		.caveat_zh = "宣告的 MTU 小于该值的 ICMP“需要分片”消息不会被原样采信：路径 MTU 被设为该值，"
			     "报文不再带 DF 发送，因此发送端继续发送大于宣告值的报文，由路由器分片。"
			     "仅对 IPv4（IPv6 的下限是 1280）。",
		CAUSES("pmtu-not-adapted", "ip-fragmentation"),
	},
	{
		.name = "firewall dropping fragments",
		.kind = PD_KB_FIREWALL,
		.side = PD_SIDE_PATH,
		.default_value = NULL,
		.check = "nft list ruleset; iptables -S (rules matching fragments, e.g. ip frag-off or "
			 "-f); cloud security groups; capture on both sides of the firewall",
		.check_zh = "nft list ruleset；iptables -S（匹配分片的规则，如 ip frag-off 或 -f）；"
			    "云安全组；在防火墙两侧同时抓包",
		.change_en = "Let fragments of the service's traffic through, or avoid fragmentation by "
			     "making datagrams smaller than the path MTU.",
		.change_zh = "放行该业务流量的分片，或让数据报小于路径 MTU 以避免分片。",
		.caveat_en = "Non-first fragments carry no ports, so port-based rules and stateless ACLs "
			     "often drop them while the first fragment passes.",
		.caveat_zh = "非首个分片不携带端口，基于端口的规则和无状态 ACL 常常丢弃它们，而首个分片能通过。",
		CAUSES("fragment-reassembly-incomplete"),
	},
	{
		.name = "net.ipv4.ipfrag_high_thresh",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_RECEIVER,
		.default_value = "4194304",
		.check = "sysctl net.ipv4.ipfrag_high_thresh; nstat -az IpReasmReqds IpReasmFails "
			 "IpReasmTimeout",
		.check_zh = "sysctl net.ipv4.ipfrag_high_thresh; nstat -az IpReasmReqds "
			    "IpReasmFails IpReasmTimeout",
		.change_en = "Raise it on a receiver that reassembles many large fragmented datagrams at "
			     "once.",
		.change_zh = "当接收端需同时重组大量分片数据报时调大。",
		.caveat_en = "Memory for incomplete datagrams per network namespace; when exceeded, new "
			     "fragments are dropped. ipfrag_low_thresh has been obsolete since 4.17. "
			     "Avoiding fragmentation is the better fix.",
		.caveat_zh = "这是每个网络命名空间中未完成重组数据报可用的内存；超过后新分片会被丢弃。"
			     "ipfrag_low_thresh 从 4.17 起已废弃。避免分片是更好的办法。",
		CAUSES("fragment-reassembly-incomplete"),
	},
	{
		.name = "net.ipv4.ipfrag_time",
		.kind = PD_KB_SYSCTL,
		.side = PD_SIDE_RECEIVER,
		.default_value = "30 (seconds)",
		.check = "sysctl net.ipv4.ipfrag_time; nstat -az IpReasmTimeout",
		.check_zh = "sysctl net.ipv4.ipfrag_time; nstat -az IpReasmTimeout",
		.change_en = "Rarely worth changing: incomplete datagrams are discarded after this time; "
			     "find why fragments are lost.",
		.change_zh = "通常不需要修改：未完成的数据报在此时间后丢弃；应查找分片丢失的原因。",
		.caveat_en = "One lost fragment loses the whole datagram, whatever this value.",
		.caveat_zh = "无论取值多少，丢失一个分片就会丢掉整个数据报。",
		CAUSES("fragment-reassembly-incomplete"),
	},
	{
		.name = "application datagram size",
		.kind = PD_KB_APP,
		.side = PD_SIDE_SENDER,
		.default_value = NULL,
		.check = "Application configuration (DNS: EDNS buffer size; dig +bufsize=1232 shows the "
			 "effect)",
		.check_zh = "应用的配置（DNS：EDNS 缓冲区大小；dig +bufsize=1232 可看到效果）",
		.change_en = "Keep UDP datagrams below the path MTU: DNS servers and resolvers with an EDNS "
			     "buffer size of 1232 bytes (unbound edns-buffer-size, BIND edns-udp-size and "
			     "max-udp-size), falling back to TCP for larger answers.",
		.change_zh = "让 UDP 数据报小于路径 MTU：DNS 服务器与解析器的 EDNS 缓冲区设为 1232 字节"
			     "（unbound edns-buffer-size，BIND edns-udp-size 和 max-udp-size），"
			     "更大的应答改走 TCP。",
		.caveat_en = "UDP has no MSS: the application's message size decides whether IP fragments.",
		.caveat_zh = "UDP 没有 MSS：是否分片由应用的消息大小决定。",
		CAUSES("ip-fragmentation", "fragment-reassembly-incomplete"),
	},
	/* ---------------- capture ---------------- */
	{
		.name = "NIC offloads",
		.kind = PD_KB_INTERFACE,
		.side = PD_SIDE_BOTH,
		.default_value = "TSO/GSO/GRO usually on",
		.check = "ethtool -k IF | grep -E 'segmentation-offload|receive-offload'",
		.check_zh = "ethtool -k IF | grep -E 'segmentation-offload|receive-offload'",
		.change_en = "Nothing to fix on the network. For a capture that shows wire-sized "
			     "packets, capture on another host or switch port, or (on a test host only) "
			     "ethtool -K IF tso off gso off gro off lro off.",
		.change_zh = "网络本身无需修复。如需抓到线上真实大小的报文，可在其他主机或交换机镜像口抓包，"
			     "或（仅在测试主机上）执行 ethtool -K IF tso off gso off gro off lro off。",
		.caveat_en = "Offloads make the capture show segments larger than the MSS; turning them "
			     "off costs CPU and changes the behaviour being measured.",
		.caveat_zh = "卸载功能会让抓包中出现大于 MSS 的报文；关闭它们会增加 CPU 开销并改变被测行为。",
		CAUSES("capture-offload-tso", "capture-offload-gro"),
	},
	{
		.name = "capture buffer",
		.kind = PD_KB_APP,
		.side = PD_SIDE_BOTH,
		.default_value = "2 MiB (libpcap on Linux)",
		.check = "tcpdump's exit statistics (packets dropped by kernel)",
		.check_zh = "tcpdump 退出时打印的统计（packets dropped by kernel 一项）",
		.change_en = "Capture with a larger buffer (tcpdump -B 65536, in KiB), a capture filter, "
			     "a shorter snaplen, and write to a fast disk with -w.",
		.change_zh = "使用更大的抓包缓冲（tcpdump -B 65536，单位 KiB）、抓包过滤器、更短的 snaplen，"
			     "并用 -w 写到快速磁盘。",
		.caveat_en = "Capture drops look like packet loss but the packets did cross the network "
			     "(the peer ACKed them).",
		.caveat_zh = "抓包丢失看起来像网络丢包，但这些报文其实已经过网络（对端已确认）。",
		/* fragments the capture missed leave datagrams incomplete in it */
		CAUSES("capture-drops", "local-drop", "fragment-reassembly-incomplete"),
	},
	{
		.name = "capture snaplen",
		.kind = PD_KB_APP,
		.side = PD_SIDE_BOTH,
		.default_value = "262144 bytes (tcpdump)",
		.check = "capinfos FILE (packet size limit); tcpdump -s",
		.check_zh = "capinfos FILE（packet size limit 一行）；tcpdump -s",
		.change_en = "Use -s 0 (full packets) when payload matters; headers-only captures are fine "
			     "for TCP analysis.",
		.change_zh = "需要载荷时使用 -s 0（完整报文）；仅分析 TCP 时只抓报文头即可。",
		.caveat_en = "pcapdoc uses the lengths in the IP and TCP headers, so truncation does not "
			     "distort sizes; it hides payload and application detection.",
		.caveat_zh = "pcapdoc 使用 IP 和 TCP 头中的长度，截断不会影响大小判断；但会隐藏载荷并影响应用识别。",
		CAUSES("capture-snaplen", "capture-drops", "capture-unread"),
	},
	{
		.name = "capture point and encapsulation",
		.kind = PD_KB_APP,
		.side = PD_SIDE_BOTH,
		.default_value = NULL,
		.check = "tshark -r FILE -q -z io,phs (what the frames pcapdoc did not read are); capinfos FILE "
			 "(link type)",
		.check_zh = "tshark -r FILE -q -z io,phs（查看 pcapdoc 没有读取的帧是什么）；capinfos FILE（链路类型）",
		.change_en = "Capture where the traffic is plain IP over Ethernet, Linux cooked or raw IP: on "
			     "the host itself, or after the tunnel or wireless controller ends; for 802.11, "
			     "capture behind the access point or decrypt before analysis.",
		.change_zh = "在流量是以太网、Linux cooked 或原始 IP 上的普通 IP 的地方抓包：在主机本身上，"
			     "或在隧道、无线控制器终结之后；对于 802.11，在接入点之后抓包，或先解密再分析。",
		.caveat_en = "Traffic that is not IP at all (industrial buses, storage, routing protocols) has "
			     "no TCP or UDP for pcapdoc to diagnose; the warning then only says it was not "
			     "looked at.",
		.caveat_zh = "完全不是 IP 的流量（工业总线、存储、路由协议）没有可供 pcapdoc 诊断的 TCP 或 UDP；"
			     "此时该警告只说明这些流量没有被检查。",
		CAUSES("capture-unread"),
	},
	{
		.name = "capture interface and filter",
		.kind = PD_KB_APP,
		.side = PD_SIDE_BOTH,
		.default_value = NULL,
		.check = "The tcpdump command line: -i (an interface that carries both directions; any "
			 "shows bridged and VLAN traffic twice), the filter expression, -Q in or out",
		.check_zh = "tcpdump 的命令行：-i（应选一个同时承载两个方向流量的接口；any "
			    "会把桥接和 VLAN 流量显示两次）、过滤表达式、-Q in 或 out",
		.change_en = "Capture on an interface that carries both directions of the traffic, with "
			     "a filter that matches both (host A and host B, not src host A).",
		.change_zh = "在承载双向流量的接口上抓包，并使用能匹配两个方向的过滤器（host A and host B，"
			     "而不是 src host A）。",
		.caveat_en = "With asymmetric routing no single interface sees both directions: capture on "
			     "both paths and give pcapdoc both files.",
		.caveat_zh = "存在非对称路由时，没有哪个接口能看到双向流量：在两条路径上分别抓包，"
			     "把两个文件都交给 pcapdoc。",
		CAUSES("capture-one-direction", "capture-duplicates"),
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

bool pd_kb_can_cause(const char *setting, const char *finding_id)
{
	const pd_setting *s = pd_kb_find(setting);
	if (!s || !finding_id)
		return false;
	for (size_t i = 0; i < PD_KB_MAX_CAUSES && s->causes[i]; i++)
		if (strcmp(s->causes[i], finding_id) == 0)
			return true;
	return false;
}

const char *pd_kb_check(const pd_setting *s, bool zh)
{
	if (!s)
		return NULL;
	return zh && s->check_zh ? s->check_zh : s->check;
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
	case PD_KB_REGISTRY:
		return "registry";
	case PD_KB_NETSH:
		return "netsh";
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

const char *pd_kb_os_name(const pd_setting *s)
{
	if (s && s->os && strcmp(s->os, "windows") == 0)
		return "Windows";
	if (s && s->os && strcmp(s->os, "macos") == 0)
		return "macOS";
	return "Linux";
}
