/* Host snapshots (host/): every parser on real output, on truncated and
 * garbage input (never a crash, a note naming the file); the collector
 * runs only read-only commands; --host on bad input leaves the packet
 * diagnosis as it was. */
#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "host/collect.h"
#include "host/host.h"
#include "testutil.h"

static const char sysctl_txt[] = "# time 1765000000.5\n# cmd sysctl -a\n"
				 "net.core.somaxconn = 4096\n"
				 "net.ipv4.tcp_rmem = 4096\t131072\t262144\n"
				 "net.ipv4.tcp_syncookies = 0\n"
				 "net.netfilter.nf_conntrack_count = 64\n"
				 "net.netfilter.nf_conntrack_max = 64\n";
static const char nstat1[] = "#kernel\nIpInReceives 10 0.0\nTcpExtListenOverflows 3 0.0\nTcpExtPAWSEstab 0 0.0\n";
static const char nstat2[] = "#kernel\nIpInReceives 50 0.0\nTcpExtListenOverflows 7 0.0\nTcpExtPAWSEstab 0 0.0\n";
static const char ss_txt[] = "State  Recv-Q Send-Q Local Address:Port Peer Address:Port Process\n"
			     "LISTEN 0      2      10.1.0.2:8080       0.0.0.0:*\n"
			     "\t skmem:(r0,rb131072,t0,tb16384,f0,w0,o0,bl0,d0) cubic rto:1000\n"
			     "ESTAB  0      0      10.1.0.2:8080       10.1.0.1:41001\n"
			     "\t skmem:(r0,rb262144,t0,tb32768,f0,w0,o0,bl0,d0) ts sack cubic rcv_space:14480\n"
			     "ESTAB  0      0      [::ffff:10.1.0.2]:22 [::ffff:10.1.0.9]:5000\n";
static const char ct_txt[] = "cpu=0   \tfound=0 invalid=1 insert=0 insert_failed=2 drop=15 early_drop=0 error=0\n"
			     "cpu=1   \tfound=0 invalid=0 insert=0 insert_failed=0 drop=45 early_drop=1 error=0\n";
static const char ip_txt[] = "1: lo: <LOOPBACK,UP> mtu 65536 qdisc noqueue state UNKNOWN\n"
			     "    inet 127.0.0.1/8 scope host lo\n"
			     "2: eth0@if3: <BROADCAST,UP> mtu 1500 qdisc noqueue state UP\n"
			     "    inet 10.1.0.2/24 scope global eth0\n"
			     "    inet6 fe80::1/64 scope link\n";

static pd_host *fresh(void)
{
	/* a missing path: an empty host with one note, the way to start from nothing */
	pd_host *h = pd_host_load("/nonexistent/pcapdoc-host-test");
	g_ptr_array_set_size(h->notes_en, 0);
	g_ptr_array_set_size(h->notes_zh, 0);
	return h;
}

static pd_host_kind add(pd_host *h, const char *name, const char *s)
{
	return pd_host_add_text(h, name, s, strlen(s), 0);
}

Test(host, parses_each_kind)
{
	pd_host *h = fresh();
	cr_expect_eq(add(h, "a", sysctl_txt), PD_HK_SYSCTL);
	cr_expect_eq(add(h, "b", nstat1), PD_HK_NSTAT);
	cr_expect_eq(add(h, "c", nstat2), PD_HK_NSTAT);
	cr_expect_eq(add(h, "d", ss_txt), PD_HK_SS);
	cr_expect_eq(add(h, "e", ct_txt), PD_HK_CONNTRACK_S);
	cr_expect_eq(add(h, "f", "64\n"), PD_HK_CONNTRACK_C);
	cr_expect_eq(add(h, "g", ip_txt), PD_HK_IPADDR);
	cr_expect_eq(add(h, "h", "6.8.0-31-generic\n"), PD_HK_UNAME);
	cr_expect_eq(add(h, "i", "web-1\n"), PD_HK_HOSTNAME);
	cr_expect_eq(h->notes_en->len, 0);
	int64_t v;
	cr_expect(pd_host_sysctl_int(h, "net.ipv4.tcp_rmem", 2, &v) && v == 262144);
	cr_expect(pd_host_sysctl_int(h, "net.core.somaxconn", 0, &v) && v == 4096);
	cr_expect(!pd_host_sysctl_int(h, "net.ipv4.tcp_rmem", 3, &v));
	cr_expect(!pd_host_sysctl_int(h, "net.no.such", 0, &v));
	bool abs;
	cr_expect(pd_host_counter(h, "TcpExtListenOverflows", &v, &abs));
	cr_expect_eq(v, 4);
	cr_expect(!abs);
	int64_t drop, failed, early;
	cr_expect(pd_host_ct_delta(h, &drop, &failed, &early));
	cr_expect_eq(drop, 60); /* one snapshot: absolute, summed over CPUs */
	cr_expect_eq(failed, 2);
	cr_expect_eq(h->ct_count, 64);
	cr_expect_eq(h->socks->len, 3);
	const pd_host_sock *l = &g_array_index(h->socks, pd_host_sock, 0);
	cr_expect_str_eq(l->state, "LISTEN");
	cr_expect_eq(l->sendq, 2);
	cr_expect_eq(l->lport, 8080);
	const pd_host_sock *e = &g_array_index(h->socks, pd_host_sock, 1);
	cr_expect_eq(e->rb, 262144);
	cr_expect_eq(e->tb, 32768);
	cr_expect_eq(e->pport, 41001);
	const pd_host_sock *m = &g_array_index(h->socks, pd_host_sock, 2);
	cr_expect_eq(m->local.family, 4); /* a v4-mapped address is the IPv4 peer */
	cr_expect_eq(h->nets->len, 3);
	pd_addr a = {0};
	cr_expect(pd_host_addr_parse("10.1.0.2", 8, &a));
	cr_expect(pd_host_has_addr(h, &a));
	cr_expect(pd_host_addr_parse("10.1.0.77", 9, &a));
	cr_expect(!pd_host_has_addr(h, &a));
	cr_expect(pd_host_on_net(h, &a));
	cr_expect_str_eq(h->kernel, "6.8.0-31-generic");
	cr_expect_str_eq(h->hostname, "web-1");
	cr_expect(h->first_time > 1765000000.0);
	pd_host_free(h);
}

/* Every prefix of every snapshot, and random bytes: parsed or noted, never
 * a crash or a read past the end (run under the sanitizers too). */
Test(host, truncated_and_garbage_never_crash)
{
	const char *texts[] = {sysctl_txt, nstat1, ss_txt, ct_txt, ip_txt};
	for (size_t t = 0; t < G_N_ELEMENTS(texts); t++) {
		size_t n = strlen(texts[t]);
		for (size_t k = 0; k <= n; k++) {
			pd_host *h = fresh();
			char *copy = g_memdup2(texts[t], k ? k : 1); /* exactly k bytes: no terminator to lean on */
			pd_host_kind kind = pd_host_add_text(h, "cut", copy, k, 0);
			if (kind == PD_HK_UNKNOWN)
				cr_expect_geq(h->notes_en->len, 1, "text %zu cut at %zu: no note", t, k);
			g_free(copy);
			pd_host_free(h);
		}
	}
	GRand *r = g_rand_new_with_seed(35);
	for (int i = 0; i < 300; i++) {
		size_t n = (size_t)g_rand_int_range(r, 0, 600);
		char *buf = g_malloc(n ? n : 1);
		for (size_t k = 0; k < n; k++) {
			/* mostly the characters snapshots are made of */
			static const char alpha[] = "0123456789 \t\n:=.-_,()[]*%/abcdefkrtbnsLISTENESTABcpu=drop#";
			buf[k] = g_rand_int_range(r, 0, 8) ? alpha[g_rand_int_range(r, 0, sizeof(alpha) - 1)]
							   : (char)g_rand_int_range(r, 1, 256);
		}
		pd_host *h = fresh();
		pd_host_add_text(h, "garbage", buf, n, 0);
		g_free(buf);
		pd_host_free(h);
	}
	g_rand_free(r);
}

Test(host, notes_name_the_file_and_why)
{
	pd_host *h = fresh();
	const char bin[] = {'a', 0, 'b', '\n'};
	cr_expect_eq(pd_host_add_text(h, "/x/core.dump", bin, sizeof(bin), 0), PD_HK_UNKNOWN);
	cr_expect_eq(add(h, "/x/notes.txt", "hello there\nthis is prose\n"), PD_HK_UNKNOWN);
	cr_expect_eq(add(h, "/x/empty", "\n\n"), PD_HK_UNKNOWN);
	cr_assert_eq(h->notes_en->len, 3);
	cr_expect(strstr(h->notes_en->pdata[0], "/x/core.dump") && strstr(h->notes_en->pdata[0], "binary"));
	cr_expect(strstr(h->notes_en->pdata[1], "/x/notes.txt") && strstr(h->notes_en->pdata[1], "not the output"));
	cr_expect(strstr(h->notes_en->pdata[2], "empty"));
	cr_expect_eq(h->notes_zh->len, 3);
	pd_host_free(h);
}

Test(host, tgz_truncated_is_noted)
{
	char *src = pd_test_src("testdata/captures/aq-early-host-server/host.tgz");
	char *data = NULL;
	gsize len = 0;
	cr_assert(g_file_get_contents(src, &data, &len, NULL));
	char *tmp = g_build_filename(g_get_tmp_dir(), "pd-host-cut.tgz", NULL);
	cr_assert(g_file_set_contents(tmp, data, (gssize)(len / 3), NULL));
	pd_host *h = pd_host_load(tmp);
	bool noted = false;
	for (guint i = 0; i < h->notes_en->len; i++)
		noted = noted || strstr(h->notes_en->pdata[i], "truncated");
	cr_expect(noted, "a truncated archive says so");
	pd_host_free(h);
	pd_host *full = pd_host_load(src);
	cr_expect_geq(full->files_used, 8);
	cr_expect_geq(full->nstat->len, 2);
	cr_expect_eq(full->notes_en->len, 0);
	pd_host_free(full);
	g_unlink(tmp);
	g_free(tmp);
	g_free(data);
	g_free(src);
}

/* --host with snapshots that cannot be used: a note, the diagnosis unchanged. */
static char *report_without_notes(const char *const *argv)
{
	char *out = NULL;
	pd_test_run(&out, NULL, argv);
	cJSON *doc = out ? cJSON_Parse(out) : NULL;
	g_free(out);
	cr_assert_not_null(doc);
	cJSON *cap = cJSON_GetObjectItemCaseSensitive(doc, "capture");
	cJSON_DeleteItemFromObject(cap, "notes");
	cJSON_DeleteItemFromObject(cap, "notes_zh");
	cJSON_DeleteItemFromObject(cap, "hosts");
	char *s = cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	return s;
}

static void write_snap(const char *dir, const char *name, const char *text)
{
	char *p = g_build_filename(dir, name, NULL);
	cr_assert(g_file_set_contents(p, text, -1, NULL));
	g_free(p);
}

Test(host, bad_snapshots_leave_the_diagnosis, .timeout = 60)
{
	char *pcap = pd_test_src("testdata/captures/aq-early-server/aq-early-server.pcap");
	const char *plain[] = {"-q", "--format", "json", pcap, NULL};
	char *want = report_without_notes(plain);
	char *base = g_dir_make_tmp("pd-host-XXXXXX", NULL);
	/* another host: its addresses are in no flow */
	char *other = g_build_filename(base, "other", NULL);
	g_mkdir(other, 0755);
	write_snap(other, "ip", "2: eth0: <UP> mtu 1500\n    inet 192.0.2.7/24 scope global eth0\n");
	write_snap(other, "n1", nstat1);
	write_snap(other, "n2", nstat2);
	/* hours away from the capture */
	char *old = g_build_filename(base, "old", NULL);
	g_mkdir(old, 0755);
	write_snap(old, "ip", "2: eth0: <UP> mtu 1500\n    inet 10.201.141.2/24 scope global eth0\n");
	write_snap(old, "n1", "# time 1000000000\n#kernel\nIpInReceives 1 0.0\nTcpExtListenOverflows 0 0.0\nTcpInSegs 1 0\n");
	/* nothing pcapdoc reads */
	char *junk = g_build_filename(base, "junk", NULL);
	g_mkdir(junk, 0755);
	write_snap(junk, "readme", "these are my notes\nabout the outage\n");
	/* an older kernel: the sysctl a rule needs is missing (rmem-host-client's flow and socket) */
	char *older = g_build_filename(base, "older", NULL);
	g_mkdir(older, 0755);
	write_snap(older, "ip", "2: eth0: <UP> mtu 1500\n    inet 10.204.1.2/24 scope global eth0\n");
	write_snap(older, "sys", "net.core.somaxconn = 4096\nnet.ipv4.tcp_sack = 1\nnet.ipv4.tcp_wmem = 4096 16384 4194304\n");
	write_snap(older, "ss", "State Recv-Q Send-Q Local Address:Port Peer Address:Port Process\n"
				"ESTAB 0 0 10.204.1.2:59742 10.204.2.2:5403\n\t skmem:(r0,rb262144,t0,tb87040,f0)\n");
	char *rmem = pd_test_src("testdata/captures/rmem-host-client/rmem-host-client.pcap");
	{
		const char *argv[] = {"-q", "--format", "json", "--host", older, rmem, NULL};
		const char *plain_r[] = {"-q", "--format", "json", rmem, NULL};
		char *got = report_without_notes(argv), *want_r = report_without_notes(plain_r);
		cr_expect_str_eq(got, want_r, "a snapshot without tcp_rmem changed the diagnosis");
		char *out = NULL;
		pd_test_run(&out, NULL, argv);
		cr_expect(out && strstr(out, "net.ipv4.tcp_rmem is not in its sysctl -a"), "no note on the missing sysctl");
		g_free(out);
		g_free(got);
		g_free(want_r);
	}
	g_free(rmem);
	g_free(older);
	const char *dirs[] = {other, old, junk, "/nonexistent/pd-host"};
	const char *why[] = {"another host", "h away from the capture", "not the output", "No such file"};
	for (size_t i = 0; i < G_N_ELEMENTS(dirs); i++) {
		const char *argv[] = {"-q", "--format", "json", "--host", dirs[i], pcap, NULL};
		char *got = report_without_notes(argv);
		cr_expect_str_eq(got, want, "%s changed the diagnosis", dirs[i]);
		g_free(got);
		char *out = NULL;
		pd_test_run(&out, NULL, argv);
		cr_expect(out && strstr(out, why[i]), "%s: no note saying '%s'", dirs[i], why[i]);
		g_free(out);
	}
	g_free(other);
	g_free(old);
	g_free(junk);
	g_free(base);
	g_free(want);
	g_free(pcap);
}

/* ---- the collector: only commands that read */

static const char *const allowed[] = {
	"sysctl -a", "nstat -asz", "ss -tmina", "conntrack -S", "conntrack -C", "ip addr", "ip -s link",
	"tc -s qdisc", "cat /proc/net/softnet_stat", "uname -r", "hostname",
};

static bool is_allowed(const char *cmd)
{
	for (size_t i = 0; i < G_N_ELEMENTS(allowed); i++)
		if (!strcmp(cmd, allowed[i]))
			return true;
	/* tcpdump writing the capture file named with -w, nothing else */
	return g_regex_match_simple("^tcpdump -i \\S+ -n -w \\S+( -c [0-9]+)?( -G [0-9]+ -W 1)?( [a-z0-9 ]+)?$", cmd, 0, 0);
}

Test(host, collector_runs_only_allowed_commands)
{
	for (unsigned i = 0; i < pd_collect_cmds_len; i++) {
		char *j = g_strjoinv(" ", (char **)pd_collect_cmds[i].argv);
		cr_expect(is_allowed(j), "the collector runs '%s', not in the allowlist", j);
		g_free(j);
	}
	/* and what a run would execute, in order, every line */
	g_setenv("PD_CAPTURE_DRYRUN", "1", TRUE);
	const char *argv[] = {"capture", "-i", "eth0", "-w", "/tmp/x.pcap", "-c", "100", "-G", "30", "tcp", "port", "80",
			      NULL};
	char *out = NULL;
	int rc = pd_test_run(&out, NULL, argv);
	g_unsetenv("PD_CAPTURE_DRYRUN");
	cr_assert_eq(rc, 0);
	char **lines = g_strsplit(out, "\n", -1);
	int n = 0;
	bool tcpdump = false, hint = false;
	for (char **l = lines; *l; l++) {
		if (!**l)
			continue;
		if (g_str_has_prefix(*l, "pcapdoc --host ")) {
			hint = strstr(*l, "/tmp/x.pcap.host /tmp/x.pcap") != NULL;
			continue;
		}
		cr_expect(is_allowed(*l), "the collector would run '%s'", *l);
		tcpdump = tcpdump || g_str_has_prefix(*l, "tcpdump");
		n++;
	}
	cr_expect(tcpdump);
	cr_expect(hint, "it prints the pcapdoc command to run");
	cr_expect_eq(n, 2 * (int)pd_collect_cmds_len + 1, "before, tcpdump, after: %d commands", n);
	g_strfreev(lines);
	g_free(out);
}

/* ---- the report with --host: valid against the schema; counters that
 * moved with nothing to explain them are an info finding */

#include "schema_check.c"

static cJSON *run_json(const char *const *argv)
{
	char *out = NULL;
	pd_test_run(&out, NULL, argv);
	cJSON *doc = out ? cJSON_Parse(out) : NULL;
	g_free(out);
	cr_assert_not_null(doc);
	return doc;
}

Test(host, report_validates_and_unexplained_counters, .timeout = 60)
{
	char *sp = pd_test_src("docs/report.schema.json");
	char *text = NULL;
	cr_assert(g_file_get_contents(sp, &text, NULL, NULL));
	cJSON *schema = cJSON_Parse(text);
	g_free(text);
	g_free(sp);
	const char *cases[] = {"aq-early-host-server", "rmem-host-client", "synqueue-host-client"};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *pcap = g_strdup_printf("%s/testdata/captures/%s/%s.pcap", g_getenv("PD_SOURCE_ROOT"), cases[i],
					     cases[i]);
		char *tgz = g_strdup_printf("%s/testdata/captures/%s/host.tgz", g_getenv("PD_SOURCE_ROOT"), cases[i]);
		const char *argv[] = {"-q", "--format", "json", "--host", tgz, pcap, NULL};
		cJSON *doc = run_json(argv);
		GString *errs = g_string_new("");
		cr_expect(pd_schema_validate(schema, doc, errs), "%s: schema errors:\n%s", cases[i], errs->str);
		g_string_free(errs, TRUE);
		cJSON_Delete(doc);
		g_free(pcap);
		g_free(tgz);
	}
	/* the server of aq-synretry-server, whose PAWSEstab and ListenOverflows
	 * rose although the capture shows neither (hand-made numbers: this
	 * checks the bookkeeping, the golden cases the kernel's) */
	char *dir = g_dir_make_tmp("pd-host-XXXXXX", NULL);
	write_snap(dir, "ip", "2: s0: <UP> mtu 1500\n    inet 10.201.142.2/24 scope global s0\n");
	write_snap(dir, "n1", "#kernel\nIpInReceives 10 0.0\nTcpExtPAWSEstab 1 0.0\nTcpExtListenOverflows 0 0.0\n");
	write_snap(dir, "n2", "#kernel\nIpInReceives 90 0.0\nTcpExtPAWSEstab 8 0.0\nTcpExtListenOverflows 3 0.0\n");
	char *pcap = pd_test_src("testdata/captures/aq-synretry-server/aq-synretry-server.pcap");
	const char *argv[] = {"-q", "--format", "json", "--host", dir, pcap, NULL};
	cJSON *doc = run_json(argv);
	GString *errs = g_string_new("");
	cr_expect(pd_schema_validate(schema, doc, errs), "schema errors:\n%s", errs->str);
	g_string_free(errs, TRUE);
	const cJSON *f = pd_test_finding(doc, "host-counter-moved", 0);
	cr_assert_not_null(f, "no host-counter-moved finding");
	cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(f, "severity")->valuestring, "info");
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(f, "metrics");
	const cJSON *paws = cJSON_GetObjectItemCaseSensitive(m, "TcpExtPAWSEstab");
	cr_expect(paws && cJSON_GetObjectItemCaseSensitive(paws, "value")->valuedouble == 7);
	/* ListenOverflows rose and syn-retransmit can explain it: not listed */
	cr_expect_null(cJSON_GetObjectItemCaseSensitive(m, "TcpExtListenOverflows"));
	/* and syn-retransmit's listener settings are now consistent, not ruled out */
	const cJSON *sr = pd_test_finding(doc, "syn-retransmit", 0);
	cr_assert_not_null(sr);
	const cJSON *s;
	bool seen = false;
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(sr, "settings"))
	{
		if (strcmp(cJSON_GetObjectItemCaseSensitive(s, "name")->valuestring, "net.core.somaxconn"))
			continue;
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s, "host"), "verdict");
		cr_expect(cJSON_IsString(v) && !strcmp(v->valuestring, "consistent"));
		seen = true;
	}
	cr_expect(seen);
	cJSON_Delete(doc);
	/* without --host, no trace of it */
	const char *plain[] = {"-q", "--format", "json", pcap, NULL};
	doc = run_json(plain);
	cr_expect_null(pd_test_finding(doc, "host-counter-moved", 0));
	cr_expect_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "capture"), "hosts"));
	cJSON_Delete(doc);
	g_free(pcap);
	g_free(dir);
	cJSON_Delete(schema);
}

/* A listener bound to every address (0.0.0.0:PORT) is the flows' listener. */
Test(host, wildcard_listener_backlog, .timeout = 30)
{
	char *dir = g_dir_make_tmp("pd-host-XXXXXX", NULL);
	write_snap(dir, "ip", "2: s0: <UP> mtu 1500\n    inet 10.201.141.2/24 scope global s0\n");
	write_snap(dir, "sys", "net.core.somaxconn = 4096\nnet.ipv4.tcp_syncookies = 1\nnet.ipv4.tcp_sack = 1\n");
	write_snap(dir, "n1", "#kernel\nIpInReceives 10 0.0\nTcpExtListenOverflows 0 0.0\nTcpInSegs 1 0\n");
	write_snap(dir, "n2", "#kernel\nIpInReceives 90 0.0\nTcpExtListenOverflows 2 0.0\nTcpInSegs 9 0\n");
	write_snap(dir, "ss", "State Recv-Q Send-Q Local Address:Port Peer Address:Port Process\n"
			      "LISTEN 0 2 0.0.0.0:8080 0.0.0.0:*\n\t skmem:(r0,rb131072,t0,tb16384)\n");
	char *pcap = pd_test_src("testdata/captures/aq-early-server/aq-early-server.pcap");
	const char *argv[] = {"-q", "--format", "json", "--host", dir, pcap, NULL};
	cJSON *doc = run_json(argv);
	const cJSON *f = pd_test_finding(doc, "accept-queue-overflow", 0);
	cr_assert_not_null(f);
	const cJSON *s0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(f, "settings"), 0);
	cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(s0, "name")->valuestring, "listen() backlog");
	cr_expect(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(f, "host"), "confirmed")));
	cJSON_Delete(doc);
	g_free(pcap);
	g_free(dir);
}

/* SO_SNDBUF from the socket's tb: the ss lines of sndbuf-small-server's own run
 * (its counters.txt, taken by the kernel during the capture), the namespace's
 * default tcp_wmem. */
Test(host, sndbuf_from_the_sockets_tb, .timeout = 30)
{
	char *dir = g_dir_make_tmp("pd-host-XXXXXX", NULL);
	char *ctr = pd_test_src("testdata/captures/sndbuf-small-server/counters.txt");
	char *text = NULL;
	cr_assert(g_file_get_contents(ctr, &text, NULL, NULL));
	/* the server's first ss block: the header line after "== ss -tmi at +0.5s (server)" and its socket */
	const char *b = strstr(text, "(server)\n");
	cr_assert_not_null(b);
	b += strlen("(server)\n");
	const char *e = strstr(b, "== ");
	cr_assert_not_null(e);
	char *ss = g_strndup(b, (gsize)(e - b));
	write_snap(dir, "ss", ss);
	write_snap(dir, "ip", "2: eth0: <UP> mtu 1500\n    inet 10.91.2.2/24 scope global eth0\n");
	write_snap(dir, "sys", "net.ipv4.tcp_wmem = 4096\t16384\t4194304\nnet.core.wmem_max = 212992\nnet.ipv4.tcp_sack = 1\n");
	char *pcap = pd_test_src("testdata/captures/sndbuf-small-server/sndbuf-small-server.pcap");
	const char *argv[] = {"-q", "--format", "json", "--host", dir, pcap, NULL};
	cJSON *doc = run_json(argv);
	const cJSON *f = pd_test_finding(doc, "sender-limited", 0);
	cr_assert_not_null(f);
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(f, "settings");
	const cJSON *s0 = cJSON_GetArrayItem(st, 0);
	cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(s0, "name")->valuestring, "SO_SNDBUF");
	cr_expect_str_eq(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s0, "host"), "verdict")->valuestring,
		"confirmed");
	const cJSON *last = cJSON_GetArrayItem(st, cJSON_GetArraySize(st) - 1);
	cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(last, "name")->valuestring, "net.ipv4.tcp_wmem");
	cJSON_Delete(doc);
	g_free(pcap);
	g_free(ss);
	g_free(text);
	g_free(ctr);
	g_free(dir);
}

/* ip -s link, tc -s qdisc and softnet_stat as this machine printed them, in
 * network namespace px6-a with a tbf (rate 1mbit, limit 6000) on px6-va and
 * 400 UDP datagrams of 1200 B sent through it (testdata/captures/tools has
 * no generator for these: the commands are in the comment of each). */
/* ip -s link (before) */
static const char iplink_before[] =
	"1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000\n"
	"    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n"
	"    RX:  bytes packets errors dropped  missed   mcast           \n"
	"             0       0      0       0       0       0 \n"
	"    TX:  bytes packets errors dropped carrier collsns           \n"
	"             0       0      0       0       0       0 \n"
	"2: px6-va@if2: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc tbf state UP mode DEFAULT group default qlen 1000\n"
	"    link/ether ea:e0:bc:b4:92:2b brd ff:ff:ff:ff:ff:ff link-netns px6-b\n"
	"    RX:  bytes packets errors dropped  missed   mcast           \n"
	"             0       0      0       0       0       0 \n"
	"    TX:  bytes packets errors dropped carrier collsns           \n"
	"            90       1      0       0       0       0 \n";
/* ip -s link (after) */
static const char iplink_after[] =
	"1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000\n"
	"    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n"
	"    RX:  bytes packets errors dropped  missed   mcast           \n"
	"             0       0      0       0       0       0 \n"
	"    TX:  bytes packets errors dropped carrier collsns           \n"
	"             0       0      0       0       0       0 \n"
	"2: px6-va@if2: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc tbf state UP mode DEFAULT group default qlen 1000\n"
	"    link/ether ea:e0:bc:b4:92:2b brd ff:ff:ff:ff:ff:ff link-netns px6-b\n"
	"    RX:  bytes packets errors dropped  missed   mcast           \n"
	"          3848      10      0       0       0       0 \n"
	"    TX:  bytes packets errors dropped carrier collsns           \n"
	"         10404      14      0       0       0       0 \n";
/* ip -s -s link show dev px6-va: the error lines under their own headers */
static const char iplink_ss[] =
	"2: px6-va@if2: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc tbf state UP mode DEFAULT group default qlen 1000\n"
	"    link/ether ea:e0:bc:b4:92:2b brd ff:ff:ff:ff:ff:ff link-netns px6-b\n"
	"    RX:  bytes packets errors dropped  missed   mcast           \n"
	"          3848      10      0       0       0       0 \n"
	"    RX errors:  length    crc   frame    fifo overrun\n"
	"                     0      0       0       0       0 \n"
	"    TX:  bytes packets errors dropped carrier collsns           \n"
	"         10494      15      0       0       0       0 \n"
	"    TX errors: aborted   fifo  window heartbt transns\n"
	"                     0      0       0       0       2 \n";
/* an older iproute2's layout (overrun where newer ones print missed), as a
 * driver whose RX ring overflowed counts it */
static const char iplink_old[] = "3: eth1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP qlen 1000\n"
				 "    link/ether 52:54:00:12:34:56 brd ff:ff:ff:ff:ff:ff\n"
				 "    RX: bytes  packets  errors  dropped overrun mcast\n"
				 "    98765432   70000    0       12      31      0\n"
				 "    TX: bytes  packets  errors  dropped carrier collsns\n"
				 "    1234567    9000     0       0       0       0\n";
/* tc -s qdisc (before, after) */
static const char qdisc_before[] = "qdisc noqueue 0: dev lo root refcnt 2 \n"
				   " Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0) \n"
				   " backlog 0b 0p requeues 0\n"
				   "qdisc tbf 8002: dev px6-va root refcnt 3 rate 1Mbit burst 4Kb lat 15.2ms \n"
				   " Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0) \n"
				   " backlog 0b 0p requeues 0\n";
static const char qdisc_after[] = "qdisc noqueue 0: dev lo root refcnt 2 \n"
				  " Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0) \n"
				  " backlog 0b 0p requeues 0\n"
				  "qdisc tbf 8002: dev px6-va root refcnt 3 rate 1Mbit burst 4Kb lat 15.2ms \n"
				  " Sent 10314 bytes 13 pkt (dropped 392, overlimits 405 requeues 0) \n"
				  " backlog 0b 0p requeues 0\n";
/* cat /proc/net/softnet_stat (2 CPUs) */
static const char softnet_txt[] = "000811c6 00000000 00000004 00000000 00000000 00000000 00000000 00000000 00000000 "
				  "00000000 00000000 00000000 00000000 00000000 00000000\n"
				  "001122b1 00000000 00000001 00000000 00000000 00000000 00000000 00000000 00000000 "
				  "00000000 00000000 00000000 00000001 00000000 00000000\n";
/* the same with CPU 1's backlog full 0x2a times */
static const char softnet_drop[] = "000811d0 00000000 00000004 00000000 00000000 00000000 00000000 00000000 00000000 "
				   "00000000 00000000 00000000 00000000 00000000 00000000\n"
				   "001142b1 0000002a 00000003 00000000 00000000 00000000 00000000 00000000 00000000 "
				   "00000000 00000000 00000000 00000001 00000000 00000000\n";

Test(host, link_qdisc_softnet_deltas)
{
	pd_host *h = fresh();
	/* after first: the order is the counters' sums, not the files' */
	cr_expect_eq(add(h, "l2", iplink_after), PD_HK_IPLINK);
	cr_expect_eq(add(h, "l1", iplink_before), PD_HK_IPLINK);
	cr_expect_eq(add(h, "q2", qdisc_after), PD_HK_QDISC);
	cr_expect_eq(add(h, "q1", qdisc_before), PD_HK_QDISC);
	cr_expect_eq(add(h, "s1", softnet_txt), PD_HK_SOFTNET);
	cr_expect_eq(add(h, "s2", softnet_drop), PD_HK_SOFTNET);
	cr_expect_eq(h->notes_en->len, 0);
	cr_expect_eq(h->nets->len, 0, "ip -s link has no address");
	pd_host_free(h);
	/* load sorts: go through a folder */
	char *dir = g_dir_make_tmp("pd-host-XXXXXX", NULL);
	const char *files[][2] = {{"a", iplink_after}, {"b", iplink_before}, {"c", qdisc_after},
				  {"d", qdisc_before}, {"e", softnet_drop}, {"f", softnet_txt}};
	for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
		char *p = g_build_filename(dir, files[i][0], NULL);
		cr_assert(g_file_set_contents(p, files[i][1], -1, NULL));
		g_free(p);
	}
	h = pd_host_load(dir);
	int64_t d;
	bool abs, all;
	const char *va[] = {"px6-va", NULL};
	cr_expect(pd_host_if_delta(h->qdisc, va, "dropped", &d, &abs, &all));
	cr_expect_eq(d, 392);
	cr_expect(!abs && !all);
	cr_expect(pd_host_if_delta(h->qdisc, va, "overlimits", &d, &abs, &all));
	cr_expect_eq(d, 405);
	cr_expect(pd_host_if_delta(h->qdisc, NULL, "dropped", &d, &abs, &all) && d == 392 && all);
	const char *other[] = {"eth9", NULL};
	cr_expect(pd_host_if_delta(h->qdisc, other, "dropped", &d, &abs, &all) && all, "unknown interface: all");
	cr_expect(pd_host_if_delta(h->link, va, "tx_packets", &d, &abs, &all));
	cr_expect_eq(d, 13);
	cr_expect(pd_host_if_delta(h->link, va, "rx_missed", &d, &abs, &all) && d == 0);
	cr_expect(pd_host_if_delta(h->link, va, "rx_dropped", &d, &abs, &all) && d == 0);
	cr_expect(!pd_host_if_delta(h->link, va, "rx_overrun", &d, &abs, &all));
	cr_expect(pd_host_series_delta(h->softnet, "dropped", &d, &abs) && d == 42 && !abs);
	cr_expect(pd_host_series_delta(h->softnet, "time_squeeze", &d, &abs) && d == 2);
	cr_expect(pd_host_series_delta(h->softnet, "cpus", &d, &abs) && d == 0);
	pd_host_free(h);
	g_free(dir);

	/* ip -s -s link: the error lines are not taken for the RX: columns */
	h = fresh();
	cr_expect_eq(add(h, "ss", iplink_ss), PD_HK_IPLINK);
	cr_expect(pd_host_series_delta(h->link, "px6-va rx_missed", &d, &abs) && d == 0 && abs);
	cr_expect(pd_host_series_delta(h->link, "px6-va tx_packets", &d, &abs) && d == 15);
	cr_expect(!pd_host_series_delta(h->link, "px6-va rx_length", &d, &abs));
	cr_expect_eq(add(h, "old", iplink_old), PD_HK_IPLINK);
	cr_expect(pd_host_series_delta(h->link, "eth1 rx_overrun", &d, &abs) && d == 31);
	cr_expect(pd_host_series_delta(h->link, "eth1 rx_dropped", &d, &abs) && d == 12);
	/* one CPU: a single line */
	cr_expect_eq(add(h, "one", "00000010 00000002 00000001 00000000 00000000 00000000 00000000 00000000 00000000 "
				   "00000000\n"),
		     PD_HK_SOFTNET);
	pd_host_free(h);

	/* ip -s addr: the counters and the addresses */
	h = fresh();
	cr_expect_eq(add(h, "sa", "2: eth0@if7: <BROADCAST,UP> mtu 1500 qdisc noqueue state UP\n"
				  "    link/ether 02:00:00:00:00:01 brd ff:ff:ff:ff:ff:ff\n"
				  "    inet 10.206.1.2/24 scope global eth0\n"
				  "    RX:  bytes packets errors dropped  missed   mcast\n"
				  "          100       2      0       1       0       0\n"),
		     PD_HK_IPLINK);
	cr_expect_eq(h->nets->len, 1);
	cr_expect_str_eq(g_array_index(h->nets, pd_host_net, 0).ifname, "eth0");
	pd_host_free(h);
}

/* Not these kinds: the parsers say no rather than take a look-alike. */
Test(host, link_qdisc_softnet_lookalikes)
{
	const char *bad[] = {
		/* human-readable numbers (ip -h -s link): not counts */
		"2: eth0: <UP> mtu 1500\n    RX:  bytes packets errors dropped  missed   mcast\n"
		"          1.2M     700      0       0       0       0\n",
		/* a header with no numbers under it */
		"2: eth0: <UP> mtu 1500\n    RX:  bytes packets errors dropped  missed   mcast\n",
		/* hex words of the wrong width, several lines */
		"0811c6 00000000 00000004\n1122b1 00000000 00000001\n",
		/* a Sent line with no qdisc before it */
		" Sent 10 bytes 1 pkt (dropped 3, overlimits 0 requeues 0)\n backlog 0b 0p requeues 0\n",
		/* tc -s class: not a qdisc's counters */
		"class htb 1:10 root prio 0 rate 1Mbit ceil 1Mbit burst 1600b cburst 1600b\n"
		" Sent 10 bytes 1 pkt (dropped 3, overlimits 0 requeues 0)\n",
	};
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		pd_host *h = fresh();
		pd_host_kind k = add(h, "bad", bad[i]);
		cr_expect(k != PD_HK_IPLINK && k != PD_HK_QDISC && k != PD_HK_SOFTNET, "text %zu taken as %d", i, k);
		cr_expect_eq(h->link->len + h->qdisc->len + h->softnet->len, 0, "text %zu", i);
		pd_host_free(h);
	}
	/* every prefix of the real outputs: parsed as far as it goes, or noted */
	const char *texts[] = {iplink_after, iplink_ss, iplink_old, qdisc_after, softnet_txt};
	for (size_t t = 0; t < G_N_ELEMENTS(texts); t++) {
		size_t n = strlen(texts[t]);
		for (size_t k = 0; k <= n; k++) {
			pd_host *h = fresh();
			char *copy = g_memdup2(texts[t], k ? k : 1);
			pd_host_kind kind = pd_host_add_text(h, "cut", copy, k, 0);
			if (kind == PD_HK_UNKNOWN)
				cr_expect_geq(h->notes_en->len, 1, "text %zu cut at %zu: no note", t, k);
			int64_t d;
			bool abs;
			/* a cut number is never read as a smaller count of the right key */
			if (t == 3 && pd_host_series_delta(h->qdisc, "px6-va dropped", &d, &abs))
				cr_expect(d == 392 || k < n, "cut at %zu: dropped %lld", k, (long long)d);
			g_free(copy);
			pd_host_free(h);
		}
	}
}

/* The capture's interface: local-drop-sender (client 10.64.1.2) with the
 * qdisc that dropped on the interface ip addr puts 10.64.1.2 on, softnet
 * with no backlog drop. */
Test(host, qdisc_drops_confirm_the_qdisc_limit, .timeout = 30)
{
	char *dir = g_dir_make_tmp("pd-host-XXXXXX", NULL);
	write_snap(dir, "ip", "2: px6-va@if2: <BROADCAST,UP> mtu 1500\n    inet 10.64.1.2/24 scope global px6-va\n");
	write_snap(dir, "q1", qdisc_before);
	write_snap(dir, "q2", qdisc_after);
	write_snap(dir, "s1", softnet_txt);
	write_snap(dir, "s2", softnet_txt);
	write_snap(dir, "l1", iplink_before);
	write_snap(dir, "l2", iplink_after);
	char *pcap = pd_test_src("testdata/captures/local-drop/local-drop-sender.pcap");
	const char *argv[] = {"-q", "--format", "json", "--host", dir, pcap, NULL};
	cJSON *doc = run_json(argv);
	const cJSON *f = pd_test_finding(doc, "local-drop", 0);
	cr_assert_not_null(f);
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(f, "settings");
	const cJSON *s0 = cJSON_GetArrayItem(st, 0);
	cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(s0, "name")->valuestring, "qdisc limit");
	const cJSON *h0 = cJSON_GetObjectItemCaseSensitive(s0, "host");
	cr_assert_not_null(h0);
	cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(h0, "verdict")->valuestring, "confirmed");
	const char *fact = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(h0, "fact"));
	cr_expect(fact && strstr(fact, "px6-va") && strstr(fact, "dropped +392"), "fact: %s", fact ? fact : "(none)");
	const cJSON *last = cJSON_GetArrayItem(st, cJSON_GetArraySize(st) - 1);
	cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(last, "name")->valuestring, "net.core.netdev_max_backlog");
	cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(last, "host"), "verdict")
				 ->valuestring,
			 "ruled out");
	cJSON_Delete(doc);
	g_free(pcap);
	g_free(dir);
}
