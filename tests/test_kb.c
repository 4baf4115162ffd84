/* The catalogue and the settings knowledge base: consistency between the
 * two, facts checkable on this machine, and the generated docs
 * (docs/findings.md, docs/settings.md) never drifting from the data.
 * Regenerate the docs with PD_BLESS=1 (e.g. PD_BLESS=1 meson test -C build test_kb). */
#include <criterion/criterion.h>
#include <glib.h>
#include <string.h>

#include "report/model.h"
#include "knowledge/catalog.h"
#include "knowledge/causality.h"
#include "knowledge/counters.h"
#include "knowledge/kb.h"
#include "testutil.h"
#include "host/collect.h"

static bool is_kebab(const char *s)
{
	if (!s || !*s || *s == '-')
		return false;
	for (const char *p = s; *p; p++) {
		bool ok = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-';
		if (!ok || (*p == '-' && (p[1] == '-' || p[1] == '\0')))
			return false;
	}
	return true;
}

static bool has_cjk(const char *s)
{
	for (const char *p = s; p && *p; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);
		if (c >= 0x4E00 && c <= 0x9FFF)
			return true;
	}
	return false;
}

/* "6.18.44-xyz" or "6.16" as 6018 / 6016; 0 when unparsable */
static int kver(const char *v)
{
	int maj = 0, min = 0;
	if (!v || sscanf(v, "%d.%d", &maj, &min) != 2)
		return 0;
	return maj * 1000 + min;
}

static int running_kernel(void)
{
	char *rel = NULL;
	int v = 0;
	if (g_file_get_contents("/proc/sys/kernel/osrelease", &rel, NULL, NULL))
		v = kver(rel);
	g_free(rel);
	return v;
}

Test(kb, catalogue_settings_exist_in_kb)
{
	for (size_t i = 0; i < pd_catalog_len; i++)
		for (size_t k = 0; k < PD_DEF_MAX_SETTINGS && pd_catalog[i].settings[k]; k++)
			cr_expect_not_null(pd_kb_find(pd_catalog[i].settings[k]),
					   "%s names unknown setting '%s'", pd_catalog[i].id,
					   pd_catalog[i].settings[k]);
}

/* ---------------- a ranked setting can cause the finding ---------------- */

/* Entries no current finding can point at: the tcp_fin_timeout myth (kept so
 * docs/settings.md says what it does not do) and settings for findings
 * still being built (resets, queueing delay). Remove a name here when a
 * finding lists it. */
static const char *const no_finding_yet[] = {"net.ipv4.tcp_fin_timeout"};

static bool awaiting(const char *name)
{
	for (size_t i = 0; i < G_N_ELEMENTS(no_finding_yet); i++)
		if (strcmp(no_finding_yet[i], name) == 0)
			return true;
	return false;
}

/* (a) every setting of every default ranking lists that finding among its causes */
Test(kb, catalogue_rankings_can_cause)
{
	for (size_t i = 0; i < pd_catalog_len; i++)
		for (size_t k = 0; k < PD_DEF_MAX_SETTINGS && pd_catalog[i].settings[k]; k++)
			cr_expect(pd_kb_can_cause(pd_catalog[i].settings[k], pd_catalog[i].id),
				  "%s ranks '%s', whose causes do not list it", pd_catalog[i].id,
				  pd_catalog[i].settings[k]);
}

/* (b) every id in causes exists, once */
Test(kb, causes_name_existing_findings)
{
	for (size_t j = 0; j < pd_kb_len; j++) {
		const pd_setting *s = &pd_kb[j];
		for (size_t k = 0; k < PD_KB_MAX_CAUSES && s->causes[k]; k++) {
			cr_expect_not_null(pd_catalog_find(s->causes[k]), "%s: unknown finding '%s'",
					   s->name, s->causes[k]);
			for (size_t m = 0; m < k; m++)
				cr_expect(strcmp(s->causes[m], s->causes[k]) != 0, "%s: '%s' twice",
					  s->name, s->causes[k]);
		}
		/* a full array would have no NULL terminator */
		cr_expect_null(s->causes[PD_KB_MAX_CAUSES - 1], "%s: too many causes", s->name);
	}
}

Test(kb, every_kb_entry_can_cause_a_finding)
{
	for (size_t j = 0; j < pd_kb_len; j++) {
		const pd_setting *s = &pd_kb[j];
		if (awaiting(s->name))
			cr_expect_null(s->causes[0], "%s causes %s: take it off no_finding_yet", s->name,
				       s->causes[0]);
		else
			cr_expect_not_null(s->causes[0], "KB entry '%s' can cause no finding", s->name);
	}
	for (size_t i = 0; i < G_N_ELEMENTS(no_finding_yet); i++)
		cr_expect_not_null(pd_kb_find(no_finding_yet[i]), "%s", no_finding_yet[i]);
}

Test(kb, can_cause)
{
	cr_expect(pd_kb_can_cause("net.core.somaxconn", "accept-queue-overflow"));
	cr_expect(pd_kb_can_cause("TCP_DEFER_ACCEPT", "accept-queue-overflow"));
	/* the audit's ranking errors, now refused */
	cr_expect(!pd_kb_can_cause("listen() backlog", "rst-closed-port"));
	cr_expect(!pd_kb_can_cause("NIC ring buffers", "local-drop"));
	cr_expect(!pd_kb_can_cause("SO_RCVBUF", "window-scaling-disabled"));
	cr_expect(!pd_kb_can_cause("net.ipv4.tcp_fin_timeout", "connection-churn"));
	cr_expect(!pd_kb_can_cause("net.ipv4.tcp_fin_timeout", "port-reuse-timewait"));
	cr_expect(!pd_kb_can_cause("net.ipv4.tcp_tw_reuse", "paws-rejected-syn"));
	cr_expect(!pd_kb_can_cause("net.ipv4.tcp_max_syn_backlog", "syncookies"));
	cr_expect(!pd_kb_can_cause("net.ipv4.tcp_congestion_control", "local-drop"));
	/* unknown names and ids */
	cr_expect(!pd_kb_can_cause("no.such.setting", "syn-retransmit"));
	cr_expect(!pd_kb_can_cause("net.core.somaxconn", "no-such-id"));
	cr_expect(!pd_kb_can_cause(NULL, "syn-retransmit"));
	cr_expect(!pd_kb_can_cause("net.core.somaxconn", NULL));
}

/* The detectors' own rankings, as pcapdoc prints them for every bundled
 * capture: each setting can cause the finding it is named for. */
Test(kb, report_rankings_can_cause)
{
	char *dir = pd_test_src("testdata/captures");
	GPtrArray *caps = pd_test_list_captures(dir);
	cr_assert(caps->len > 20, "only %u captures under %s", caps->len, dir);
	guint checked = 0, refused = 0;
	for (guint c = 0; c < caps->len; c++) {
		const char *path = caps->pdata[c];
		cJSON *r = pd_test_json_abs(path, NULL);
		if (!r) { /* a file pcapdoc refuses on purpose (mixed link types) */
			refused++;
			continue;
		}
		const cJSON *f;
		cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(r, "findings"))
		{
			const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "id"));
			const cJSON *s;
			cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(f, "settings"))
			{
				const char *name =
					cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "name"));
				cr_expect(pd_kb_can_cause(name, id), "%s: %s ranks '%s', which cannot cause it",
					  path, id, name);
				checked++;
			}
		}
		cJSON_Delete(r);
	}
	cr_expect(checked > 100, "only %u rankings checked", checked);
	cr_expect(refused <= 2, "pcapdoc gave no report for %u captures", refused);
	g_ptr_array_free(caps, TRUE);
	g_free(dir);
}

Test(kb, entries_complete_and_unique)
{
	for (size_t j = 0; j < pd_kb_len; j++) {
		const pd_setting *s = &pd_kb[j];
		cr_expect(s->name && *s->name);
		cr_expect_eq(pd_kb_find(s->name), s, "duplicate KB name %s", s->name);
		cr_expect(s->check && *s->check, "%s: no check", s->name);
		cr_expect(s->change_en && *s->change_en, "%s: no change_en", s->name);
		cr_expect(s->caveat_en && *s->caveat_en, "%s: no caveat_en", s->name);
		cr_expect(has_cjk(s->change_zh), "%s: change_zh not Chinese", s->name);
		cr_expect(has_cjk(s->caveat_zh), "%s: caveat_zh not Chinese", s->name);
		cr_expect(strcmp(pd_kb_kind_name(s->kind), "unknown") != 0, "%s: kind", s->name);
		cr_expect(strcmp(pd_kb_side_name(s->side), "unknown") != 0, "%s: side", s->name);
		cr_expect(!s->added_in || kver(s->added_in) > 4019, "%s: added_in %s", s->name,
			  s->added_in);
		cr_expect(!s->removed_in || kver(s->removed_in), "%s: removed_in", s->name);
		/* Markdown puts commands in code spans */
		cr_expect(!strchr(s->check, '`'), "%s: backquote in check", s->name);
		cr_expect(!s->check_zh || !strchr(s->check_zh, '`'), "%s: backquote in check_zh", s->name);
		const char *texts[] = {s->change_en, s->change_zh, s->caveat_en, s->caveat_zh,
				       s->default_value, s->check_zh};
		for (size_t t = 0; t < G_N_ELEMENTS(texts); t++)
			cr_expect(!texts[t] || g_utf8_validate(texts[t], -1, NULL), "%s: UTF-8",
				  s->name);
	}
	cr_expect_null(pd_kb_find("no.such.setting"));
	cr_expect_null(pd_kb_find(NULL));
}

Test(kb, sysctls_exist_on_this_kernel)
{
	int here = running_kernel();
	for (size_t j = 0; j < pd_kb_len; j++) {
		const pd_setting *s = &pd_kb[j];
		if (s->kind != PD_KB_SYSCTL || s->removed_in || s->os)
			continue;
		if (s->added_in && here && kver(s->added_in) > here) {
			cr_log_info("skipping %s: added in %s", s->name, s->added_in);
			continue;
		}
		char *rel = g_strdup(s->name);
		g_strdelimit(rel, ".", '/');
		char *path = g_build_filename("/proc/sys", rel, NULL);
		char *dir = g_path_get_dirname(path);
		/* a module's whole tree (net/netfilter) is absent when it is not loaded */
		if (g_file_test(dir, G_FILE_TEST_IS_DIR))
			cr_expect(g_file_test(path, G_FILE_TEST_EXISTS), "%s missing", path);
		else
			cr_log_warn("skipping %s: %s absent (module not loaded?)", s->name, dir);
		g_free(dir);
		g_free(path);
		g_free(rel);
	}
}

Test(kb, removed_settings_are_gone)
{
	const pd_setting *s = pd_kb_find("net.ipv4.tcp_tw_recycle");
	cr_assert_not_null(s);
	cr_expect_str_eq(s->removed_in, "4.12");
	const pd_setting *fin = pd_kb_find("net.ipv4.tcp_fin_timeout");
	cr_assert_not_null(fin);
	cr_expect(strstr(fin->caveat_en, "TIME_WAIT") && strstr(fin->caveat_en, "FIN_WAIT_2"));
}

Test(catalog, ids_kebab_unique_complete)
{
	for (size_t i = 0; i < pd_catalog_len; i++) {
		const pd_finding_def *d = &pd_catalog[i];
		cr_expect(is_kebab(d->id), "id '%s' is not kebab-case", d->id);
		cr_expect_eq(pd_catalog_find(d->id), d, "duplicate id %s", d->id);
		cr_expect(d->category < PD_CAT__COUNT, "%s: category", d->id);
		cr_expect(d->severity <= PD_SEV_ERROR, "%s: severity", d->id);
		cr_expect(d->title_en && *d->title_en && d->explain_en && *d->explain_en, "%s", d->id);
		cr_expect(has_cjk(d->title_zh) && has_cjk(d->explain_zh), "%s: Chinese", d->id);
		for (size_t k = 0; k < PD_DEF_MAX_ALTS && d->alternatives_en[k]; k++)
			cr_expect(has_cjk(d->alternatives_zh[k]), "%s: alternative %zu in Chinese",
				  d->id, k);
		for (size_t k = 0; k < PD_DEF_MAX_ALTS && d->alternatives_zh[k]; k++)
			cr_expect_not_null(d->alternatives_en[k], "%s: extra zh alternative", d->id);
	}
	cr_expect_null(pd_catalog_find("no-such-id"));
}

/* The ids detectors are written against: never renamed or removed. */
/* Every row of the causality table names findings that exist, and no
 * finding explains itself (the attribution would hide it). */
Test(catalog, causality_rows_name_findings)
{
	for (size_t i = 0; i < pd_causalities_len; i++) {
		const pd_causality *c = &pd_causalities[i];
		cr_expect_not_null(pd_catalog_find(c->cause), "causality: unknown cause '%s'", c->cause);
		size_t n = 0;
		for (const char *const *s = c->consequences; *s; s++, n++) {
			cr_expect_not_null(pd_catalog_find(*s), "causality %s: unknown consequence '%s'", c->cause, *s);
			cr_expect_str_neq(*s, c->cause, "%s explains itself", c->cause);
		}
		cr_expect_lt(n, PD_MAX_CONSEQUENCES, "%s: too many consequences", c->cause);
	}
	cr_expect(pd_explains("middlebox-idle-timeout", "retransmissions"));
	cr_expect_not(pd_explains("retransmissions", "middlebox-idle-timeout"));
}

Test(catalog, stable_ids_present)
{
	static const struct {
		const char *id;
		pd_category cat;
		pd_severity sev;
	} want[] = {
		{"syn-retransmit", PD_CAT_HANDSHAKE, PD_SEV_WARNING},
		{"syn-unanswered", PD_CAT_HANDSHAKE, PD_SEV_ERROR},
		{"synack-retransmit", PD_CAT_HANDSHAKE, PD_SEV_WARNING},
		{"accept-queue-overflow", PD_CAT_HANDSHAKE, PD_SEV_ERROR},
		{"syncookies", PD_CAT_HANDSHAKE, PD_SEV_WARNING},
		{"listener-overload", PD_CAT_HANDSHAKE, PD_SEV_ERROR},
		{"syn-flood", PD_CAT_HANDSHAKE, PD_SEV_ERROR},
		{"paws-rejected-syn", PD_CAT_TIMESTAMPS, PD_SEV_ERROR},
		{"nat-timestamp-clocks", PD_CAT_TIMESTAMPS, PD_SEV_WARNING},
		{"rst-closed-port", PD_CAT_TIMESTAMPS, PD_SEV_INFO},
		{"paws-rejected-data", PD_CAT_TIMESTAMPS, PD_SEV_ERROR},
		{"connection-churn", PD_CAT_CONNECTION_CHURN, PD_SEV_WARNING},
		{"port-reuse-timewait", PD_CAT_CONNECTION_CHURN, PD_SEV_WARNING},
		{"ephemeral-port-pressure", PD_CAT_CONNECTION_CHURN, PD_SEV_WARNING},
		{"nagle-delayed-ack", PD_CAT_NAGLE_DELAYED_ACK, PD_SEV_WARNING},
		{"zero-window", PD_CAT_WINDOW, PD_SEV_WARNING},
		{"window-limited", PD_CAT_WINDOW, PD_SEV_WARNING},
		{"window-scaling-disabled", PD_CAT_WINDOW, PD_SEV_WARNING},
		{"receive-window-fixed", PD_CAT_WINDOW, PD_SEV_INFO},
		{"sender-limited", PD_CAT_WINDOW, PD_SEV_INFO},
		{"queueing-delay", PD_CAT_LOSS, PD_SEV_WARNING},
		{"ecn-syn-dropped", PD_CAT_HANDSHAKE, PD_SEV_WARNING},
		{"ecn-congestion-marks", PD_CAT_LOSS, PD_SEV_INFO},
		{"window-scale-unknown", PD_CAT_CAPTURE, PD_SEV_INFO},
		{"retransmissions", PD_CAT_LOSS, PD_SEV_WARNING},
		{"rto-timeouts", PD_CAT_LOSS, PD_SEV_WARNING},
		{"spurious-retransmissions", PD_CAT_LOSS, PD_SEV_INFO},
		{"local-drop", PD_CAT_LOSS, PD_SEV_WARNING},
		{"tail-loss", PD_CAT_LOSS, PD_SEV_INFO},
		{"slow-start-after-idle", PD_CAT_LOSS, PD_SEV_INFO},
		{"initial-window", PD_CAT_LOSS, PD_SEV_INFO},
		{"keepalive", PD_CAT_LOSS, PD_SEV_INFO},
		{"tiny-writes", PD_CAT_LOSS, PD_SEV_INFO},
		{"ip-fragmentation", PD_CAT_FRAGMENTATION_PMTU, PD_SEV_INFO},
		{"fragment-reassembly-incomplete", PD_CAT_FRAGMENTATION_PMTU, PD_SEV_WARNING},
		{"pmtu-frag-needed", PD_CAT_FRAGMENTATION_PMTU, PD_SEV_INFO},
		{"pmtu-not-adapted", PD_CAT_FRAGMENTATION_PMTU, PD_SEV_WARNING},
		{"pmtu-blackhole", PD_CAT_FRAGMENTATION_PMTU, PD_SEV_ERROR},
		{"mss-exceeds-path", PD_CAT_FRAGMENTATION_PMTU, PD_SEV_WARNING},
		{"reset-unread-data", PD_CAT_RESETS, PD_SEV_WARNING},
		{"reset-abort", PD_CAT_RESETS, PD_SEV_WARNING},
		{"reset-stale-connection", PD_CAT_RESETS, PD_SEV_WARNING},
		{"reset-injected", PD_CAT_RESETS, PD_SEV_WARNING},
		{"middlebox-idle-timeout", PD_CAT_RESETS, PD_SEV_ERROR},
		{"capture-vantage", PD_CAT_CAPTURE, PD_SEV_INFO},
		{"capture-offload-tso", PD_CAT_CAPTURE, PD_SEV_INFO},
		{"capture-offload-gro", PD_CAT_CAPTURE, PD_SEV_INFO},
		{"capture-drops", PD_CAT_CAPTURE, PD_SEV_INFO},
		{"capture-snaplen", PD_CAT_CAPTURE, PD_SEV_INFO},
		{"capture-one-direction", PD_CAT_CAPTURE, PD_SEV_INFO},
		{"capture-time-backwards", PD_CAT_CAPTURE, PD_SEV_INFO},
		{"capture-duplicates", PD_CAT_CAPTURE, PD_SEV_INFO},
		{"capture-flow-cap", PD_CAT_CAPTURE, PD_SEV_INFO},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
		const pd_finding_def *d = pd_catalog_find(want[i].id);
		cr_expect_not_null(d, "catalogue lacks %s", want[i].id);
		if (!d)
			continue;
		cr_expect_eq(d->category, want[i].cat, "%s: category", want[i].id);
		cr_expect_eq(d->severity, want[i].sev, "%s: severity", want[i].id);
	}
}

/* ---------------- counters ---------------- */

Test(counters, catalogue_counters_known)
{
	for (size_t i = 0; i < pd_catalog_len; i++) {
		const pd_finding_def *d = &pd_catalog[i];
		for (size_t k = 0; k < PD_DEF_MAX_COUNTERS && d->counters[k]; k++) {
			cr_expect_not_null(pd_counter_find(d->counters[k]), "%s: unknown counter %s", d->id,
					   d->counters[k]);
			for (size_t m = 0; m < k; m++)
				cr_expect(strcmp(d->counters[m], d->counters[k]) != 0, "%s: %s twice", d->id,
					  d->counters[k]);
		}
		cr_expect_null(d->counters[PD_DEF_MAX_COUNTERS - 1], "%s: too many counters", d->id);
	}
	for (size_t j = 0; j < pd_counters_len; j++) {
		const pd_counter *c = &pd_counters[j];
		cr_expect_eq(pd_counter_find(c->name), c, "duplicate counter %s", c->name);
		cr_expect(c->meaning_en && *c->meaning_en, "%s: meaning", c->name);
		cr_expect(has_cjk(c->meaning_zh), "%s: meaning_zh not Chinese", c->name);
		cr_expect(!c->since || kver(c->since), "%s: since", c->name);
		bool used = false;
		for (size_t i = 0; i < pd_catalog_len && !used; i++)
			for (size_t k = 0; k < PD_DEF_MAX_COUNTERS && pd_catalog[i].counters[k]; k++)
				used |= strcmp(pd_catalog[i].counters[k], c->name) == 0;
		cr_expect(used, "counter %s confirms no finding", c->name);
	}
	cr_expect_null(pd_counter_find("NoSuchCounter"));
	cr_expect_null(pd_counter_find(NULL));
}

/* nstat's names: "TcpExt" + field of /proc/net/netstat, "Tcp" + field of
 * /proc/net/snmp, the Ip6/Icmp6 rows of /proc/net/snmp6 as they are. */
static void add_proc_names(GHashTable *names, const char *path, bool snmp6)
{
	char *text = NULL;
	if (!g_file_get_contents(path, &text, NULL, NULL))
		return;
	char **lines = g_strsplit(text, "\n", -1);
	for (size_t i = 0; lines[i]; i++) {
		if (snmp6) {
			char **f = g_strsplit_set(lines[i], " \t", 2);
			if (f[0] && *f[0])
				g_hash_table_add(names, g_strdup(f[0]));
			g_strfreev(f);
			continue;
		}
		char *colon = strchr(lines[i], ':');
		/* header lines: "TcpExt: SyncookiesSent ..."; the value lines follow */
		if (!colon || (colon[1] && colon[2] >= '0' && colon[2] <= '9'))
			continue;
		*colon = 0;
		char **f = g_strsplit(g_strstrip(colon + 1), " ", -1);
		for (size_t k = 0; f[k]; k++)
			if (*f[k])
				g_hash_table_add(names, g_strconcat(lines[i], f[k], NULL));
		g_strfreev(f);
	}
	g_strfreev(lines);
	g_free(text);
}

Test(counters, exist_on_this_kernel)
{
	GHashTable *names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	add_proc_names(names, "/proc/net/netstat", false);
	add_proc_names(names, "/proc/net/snmp", false);
	add_proc_names(names, "/proc/net/snmp6", true);
	cr_assert(g_hash_table_contains(names, "TcpExtListenOverflows") &&
			  g_hash_table_contains(names, "TcpRetransSegs") &&
			  g_hash_table_contains(names, "Ip6ReasmFails"),
		  "could not read the counter names from /proc/net");
	int here = running_kernel();
	for (size_t j = 0; j < pd_counters_len; j++) {
		const pd_counter *c = &pd_counters[j];
		if (c->since && here && kver(c->since) > here) {
			cr_log_info("skipping %s: added in %s", c->name, c->since);
			continue;
		}
		cr_expect(g_hash_table_contains(names, c->name), "this kernel has no counter %s",
			  c->name);
	}
	g_hash_table_destroy(names);
}

/* ---------------- check commands are safe on a production host ---------------- */

/* Forms that change state, or stop or slow a process, with an example of
 * each so no pattern is vacuous. */
static const struct {
	const char *re, *why, *example;
} unsafe[] = {
	{"\\bstrace\\b", "stops the traced process at every system call", "strace -f -p 1234"},
	{"\\bltrace\\b", "stops the traced process at every library call", "ltrace -p 1234"},
	{"\\bgdb\\b", "stops the process", "gdb -p 1234"},
	{"\\bperf\\s+(record|trace|probe)\\b", "samples or traces with overhead", "perf trace -p 1234"},
	{"\\bbpftrace\\b", "tracing: only where the entry marks it as tracing", "bpftrace -e 'k:x {}'"},
	{"\\bsysctl\\b[^;]*(\\s-\\w*w|--write|=)", "changes a sysctl", "sysctl -w net.core.somaxconn=1"},
	{">\\s*/(proc|sys)/|\\btee\\s+/(proc|sys)/", "writes to /proc or /sys",
	 "echo 1 > /proc/sys/net/ipv4/tcp_sack"},
	{"\\btc\\s+(qdisc|class|filter)\\s+(add|change|replace|del|delete|link)\\b", "changes a qdisc",
	 "tc qdisc replace dev eth0 root fq"},
	{"\\bip\\b(\\s+-\\S+)*\\s+(link|addr|address|route|rule|neigh|neighbor)\\s+(add|change|replace|"
	 "del|delete|flush|set|append)\\b",
	 "changes links, addresses, routes or neighbours", "ip route change default via 10.0.0.1"},
	{"\\b(ip6?tables|ebtables|arptables)\\b[^;]*\\s(-[AIDRFXZNPE]\\b|--(append|insert|delete|replace|"
	 "flush|zero|new-chain|policy))",
	 "changes firewall rules", "iptables -I INPUT -j DROP"},
	{"\\bnft\\s+(-\\S+\\s+)*(add|insert|delete|flush|replace|create|reset|destroy|-f)\\b",
	 "changes nftables rules", "nft flush ruleset"},
	{"\\bethtool\\s+-[KGLACsrftEWNUX]\\b", "changes NIC settings or disrupts the link",
	 "ethtool -K eth0 tso off"},
	{"\\bconntrack\\s+(-\\S+\\s+)*(-[FDUI]\\b|--(flush|delete|update|create))", "changes the conntrack table",
	 "conntrack -F"},
	{"\\bss\\b[^;]*\\s-K\\b", "kills sockets", "ss -K dst 10.0.0.1"},
	{"\\b(kill|pkill|killall|modprobe|rmmod|insmod|reboot)\\b", "stops processes or changes the kernel",
	 "modprobe tcp_bbr"},
	{"\\bdmesg\\s+-\\w*[cCnDE]", "clears the kernel log or changes its level", "dmesg -c"},
	{"\\bsystemctl\\s+(restart|stop|start|reload|enable|disable|kill)\\b", "changes a service",
	 "systemctl restart nginx"},
	{"\\bping\\b[^;]*\\s-\\w*f\\b|\\bhping3?\\b", "floods the network", "ping -f 10.0.0.1"},
};

static const char *const safe_examples[] = {
	"sysctl net.core.somaxconn net.ipv4.tcp_syncookies", "ss -lnt; ss -tmi; ss -tno",
	"nstat -az TcpExtListenOverflows", "tc -s qdisc show dev IF", "ip route show; ip -s link show dev IF",
	"ip route get DST", "iptables -L -v -n; iptables -t mangle -S", "nft list ruleset",
	"ethtool -k IF; ethtool -g IF; ethtool -S IF", "conntrack -S; conntrack -L -p tcp --dport 80",
	"dmesg | grep -i 'SYN flooding'", "ping -M do -s SIZE HOST", "systemctl status SERVICE",
	"cat /proc/net/softnet_stat", "ls /proc/sys/net/ipv4/tcp_tw_recycle",
};

Test(kb, unsafe_patterns_work)
{
	for (size_t p = 0; p < G_N_ELEMENTS(unsafe); p++)
		cr_expect(g_regex_match_simple(unsafe[p].re, unsafe[p].example, 0, 0),
			  "pattern for '%s' misses its example '%s'", unsafe[p].why, unsafe[p].example);
	for (size_t e = 0; e < G_N_ELEMENTS(safe_examples); e++)
		for (size_t p = 0; p < G_N_ELEMENTS(unsafe); p++)
			cr_expect(!g_regex_match_simple(unsafe[p].re, safe_examples[e], 0, 0),
				  "safe '%s' taken for: %s", safe_examples[e], unsafe[p].why);
}

Test(kb, checks_are_safe)
{
	for (size_t j = 0; j < pd_kb_len; j++)
		for (size_t p = 0; p < G_N_ELEMENTS(unsafe); p++) {
			cr_expect(!g_regex_match_simple(unsafe[p].re, pd_kb[j].check, 0, 0),
				  "%s: the check '%s' %s", pd_kb[j].name, pd_kb[j].check, unsafe[p].why);
			cr_expect(!pd_kb[j].check_zh ||
					  !g_regex_match_simple(unsafe[p].re, pd_kb[j].check_zh, 0, 0),
				  "%s: the check '%s' %s", pd_kb[j].name, pd_kb[j].check_zh, unsafe[p].why);
		}
}

/* pcapdoc capture runs these on the user's host: the same rules as the checks */
Test(kb, collector_commands_are_safe)
{
	for (unsigned i = 0; i < pd_collect_cmds_len; i++) {
		char *cmd = g_strjoinv(" ", (char **)pd_collect_cmds[i].argv);
		for (size_t p = 0; p < G_N_ELEMENTS(unsafe); p++)
			cr_expect(!g_regex_match_simple(unsafe[p].re, cmd, 0, 0), "the collector's '%s' %s", cmd,
				  unsafe[p].why);
		g_free(cmd);
	}
}

/* ---------------- English and Chinese say the same thing ---------------- */

/* Every text field comes in both languages. */
Test(i18n, every_text_has_both)
{
	for (size_t j = 0; j < pd_kb_len; j++) {
		const pd_setting *s = &pd_kb[j];
		cr_expect(s->change_en && *s->change_en && has_cjk(s->change_zh), "%s: change", s->name);
		cr_expect(s->caveat_en && *s->caveat_en && has_cjk(s->caveat_zh), "%s: caveat", s->name);
		/* the default is a value, the same in both languages */
		cr_expect(!has_cjk(s->check) && !has_cjk(s->default_value), "%s: CJK in check/default",
			  s->name);
		/* the check has its Chinese: translated prose, or the same commands */
		cr_expect(s->check_zh && *s->check_zh &&
				  (has_cjk(s->check_zh) || strcmp(s->check_zh, s->check) == 0),
			  "%s: check_zh missing, or English that differs from check", s->name);
	}
	for (size_t i = 0; i < pd_catalog_len; i++) {
		const pd_finding_def *d = &pd_catalog[i];
		cr_expect(d->title_en && *d->title_en && has_cjk(d->title_zh), "%s: title", d->id);
		cr_expect(d->explain_en && *d->explain_en && has_cjk(d->explain_zh), "%s: explain", d->id);
		for (size_t k = 0; k < PD_DEF_MAX_ALTS; k++)
			cr_expect(!d->alternatives_en[k] == !d->alternatives_zh[k], "%s: alternative %zu",
				  d->id, k);
		cr_expect(!has_cjk(d->title_en) && !has_cjk(d->explain_en), "%s: CJK in English", d->id);
	}
	for (size_t j = 0; j < pd_counters_len; j++)
		cr_expect(!has_cjk(pd_counters[j].meaning_en) && has_cjk(pd_counters[j].meaning_zh), "%s",
			  pd_counters[j].name);
}

/* The command-like tokens of a check: its words (split at white space,
 * brackets and punctuation trimmed from both ends) that hold '-', '.', '_'
 * or '/' (options, sysctl and counter names, paths, ss states) and its
 * all-caps words (placeholders IF, DEV, PEER, PID, FILE; LISTEN, SYN). */
static GPtrArray *command_tokens(const char *check)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
	char **words = g_strsplit_set(check, " \t\n", -1);
	for (char **w = words; *w; w++) {
		const char *b = *w, *e = *w + strlen(*w);
		while (b < e && strchr("()[];,:'\"?", *b))
			b++;
		while (e > b && strchr("()[];,:'\"?", e[-1]))
			e--;
		if (b == e)
			continue;
		char *t = g_strndup(b, (gsize)(e - b));
		bool caps = g_ascii_isupper(*t);
		for (const char *p = t; *p && caps; p++)
			caps = g_ascii_isupper(*p) || g_ascii_isdigit(*p) || *p == '_';
		if (caps || strpbrk(t, "-._/"))
			g_ptr_array_add(out, t);
		else
			g_free(t);
	}
	g_strfreev(words);
	return out;
}

/* English prose words the rule above takes for commands; check_zh says
 * them in Chinese. */
static const char *const check_prose_words[] = {"e.g.", "thread-pool", "delayed-ACK"};

static bool check_prose_word(const char *t)
{
	for (size_t i = 0; i < G_N_ELEMENTS(check_prose_words); i++)
		if (strcmp(t, check_prose_words[i]) == 0)
			return true;
	return false;
}

Test(i18n, command_tokens_extraction)
{
	GPtrArray *t = command_tokens("mtr -n -r -c 200 PEER (the hop where loss starts); on each "
				      "Linux hop: ip -s link show DEV, sysctl net.ipv4.tcp_sack; ss -tno "
				      "(timer:(keepalive,...)); cat /proc/net/softnet_stat");
	static const char *const want[] = {"-n", "-r", "-c", "PEER", "-s", "DEV", "net.ipv4.tcp_sack",
					   "-tno", "timer:(keepalive,...", "/proc/net/softnet_stat"};
	static const char *const not_want[] = {"200", "the", "hop", "Linux", "(the", "starts", "show"};
	for (size_t i = 0; i < G_N_ELEMENTS(want); i++)
		cr_expect(g_ptr_array_find_with_equal_func(t, want[i], g_str_equal, NULL), "missing %s",
			  want[i]);
	for (size_t i = 0; i < G_N_ELEMENTS(not_want); i++)
		cr_expect(!g_ptr_array_find_with_equal_func(t, not_want[i], g_str_equal, NULL),
			  "%s taken for a command", not_want[i]);
	g_ptr_array_unref(t);
}

/* A Chinese check runs the same commands: every command-like token of the
 * English is in the Chinese as written, and the Chinese of a check that is
 * only commands is the check itself. */
Test(i18n, checks_keep_their_commands)
{
	size_t translated = 0;
	for (size_t j = 0; j < pd_kb_len; j++) {
		const pd_setting *s = &pd_kb[j];
		if (!s->check_zh)
			continue; /* every_text_has_both reports it */
		translated += strcmp(s->check_zh, s->check) != 0;
		GPtrArray *t = command_tokens(s->check);
		for (guint i = 0; i < t->len; i++)
			cr_expect(check_prose_word(t->pdata[i]) || strstr(s->check_zh, t->pdata[i]),
				  "%s: '%s' of the check is not in check_zh", s->name,
				  (const char *)t->pdata[i]);
		g_ptr_array_unref(t);
		/* a command-only check_zh has no prose to translate: nothing in
		 * it is Chinese, so it must be the check exactly */
		cr_expect(has_cjk(s->check_zh) || strcmp(s->check_zh, s->check) == 0,
			  "%s: check_zh has no Chinese but differs from check", s->name);
	}
	for (size_t i = 0; i < G_N_ELEMENTS(check_prose_words); i++) {
		bool used = false;
		for (size_t j = 0; j < pd_kb_len && !used; j++)
			used = strstr(pd_kb[j].check, check_prose_words[i]) != NULL;
		cr_expect(used, "'%s' is in no check: take it off check_prose_words[]",
			  check_prose_words[i]);
	}
	cr_expect(translated > 40, "only %zu checks translated", translated);
}

/* The facts a reader acts on: numbers (not the 4 of "4-tuple" or the 6 of
 * IPv6) and identifiers (names with an underscore or two dots: sysctls,
 * socket options, commands' keys). */
static GHashTable *facts_of(const char *text)
{
	GHashTable *t = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	GMatchInfo *mi = NULL;
	GRegex *num = g_regex_new("(?<![A-Za-z0-9._^])[0-9]+(\\.[0-9]+)*(?![0-9]*-?[A-Za-z])", 0, 0, NULL);
	GRegex *ident = g_regex_new("[A-Za-z][A-Za-z0-9]*(_[A-Za-z0-9]+)+|[a-z0-9]+(\\.[a-z0-9_]+){2,}", 0, 0,
				    NULL);
	GRegex *res[] = {num, ident};
	for (size_t r = 0; r < G_N_ELEMENTS(res); r++) {
		g_regex_match(res[r], text ? text : "", 0, &mi);
		while (g_match_info_matches(mi)) {
			g_hash_table_add(t, g_match_info_fetch(mi, 0));
			g_match_info_next(mi, NULL);
		}
		g_match_info_free(mi);
		g_regex_unref(res[r]);
	}
	return t;
}

static void expect_same_facts(const char *what, const char *en, const char *zh)
{
	GHashTable *a = facts_of(en), *b = facts_of(zh);
	GHashTableIter it;
	gpointer k;
	g_hash_table_iter_init(&it, a);
	while (g_hash_table_iter_next(&it, &k, NULL))
		cr_expect(g_hash_table_contains(b, k), "%s: '%s' is in the English, not in the Chinese",
			  what, (char *)k);
	g_hash_table_iter_init(&it, b);
	while (g_hash_table_iter_next(&it, &k, NULL))
		cr_expect(g_hash_table_contains(a, k), "%s: '%s' is in the Chinese, not in the English",
			  what, (char *)k);
	g_hash_table_destroy(a);
	g_hash_table_destroy(b);
}

Test(i18n, facts_extraction)
{
	GHashTable *t = facts_of("set TCP_NODELAY and net.ipv4.tcp_sack to 1 for 40 ms on a 4-tuple over "
				 "IPv6, 6.18 kernels, 2^(n+1)-1 s, e.g. this");
	static const char *const want[] = {"TCP_NODELAY", "net.ipv4.tcp_sack", "1", "40", "6.18"};
	for (size_t i = 0; i < G_N_ELEMENTS(want); i++)
		cr_expect(g_hash_table_contains(t, want[i]), "missing %s", want[i]);
	cr_expect(!g_hash_table_contains(t, "4") && !g_hash_table_contains(t, "6"), "4-tuple or IPv6");
	cr_expect(!g_hash_table_contains(t, "e.g"), "e.g. is no identifier");
	g_hash_table_destroy(t);
}

Test(i18n, numbers_and_names_agree)
{
	char what[160];
	for (size_t j = 0; j < pd_kb_len; j++) {
		const pd_setting *s = &pd_kb[j];
		snprintf(what, sizeof what, "%s check", s->name);
		expect_same_facts(what, s->check, s->check_zh);
		snprintf(what, sizeof what, "%s change", s->name);
		expect_same_facts(what, s->change_en, s->change_zh);
		snprintf(what, sizeof what, "%s caveat", s->name);
		expect_same_facts(what, s->caveat_en, s->caveat_zh);
	}
	for (size_t i = 0; i < pd_catalog_len; i++) {
		const pd_finding_def *d = &pd_catalog[i];
		snprintf(what, sizeof what, "%s title", d->id);
		expect_same_facts(what, d->title_en, d->title_zh);
		snprintf(what, sizeof what, "%s explain", d->id);
		expect_same_facts(what, d->explain_en, d->explain_zh);
		for (size_t k = 0; k < PD_DEF_MAX_ALTS && d->alternatives_en[k]; k++) {
			snprintf(what, sizeof what, "%s alternative %zu", d->id, k);
			expect_same_facts(what, d->alternatives_en[k], d->alternatives_zh[k]);
		}
	}
	for (size_t j = 0; j < pd_counters_len; j++)
		expect_same_facts(pd_counters[j].name, pd_counters[j].meaning_en, pd_counters[j].meaning_zh);
}

/* ---------------- generated docs ---------------- */

static char *gen_findings_md(void)
{
	GString *o = g_string_new(NULL);
	g_string_append(o, "# pcapdoc findings\n\n"
			   "<!-- Generated from knowledge/catalog.c by tests/test_kb.c: do not edit.\n"
			   "     Regenerate: PD_BLESS=1 meson test -C build test_kb -->\n\n"
			   "Every finding pcapdoc can report, by category. The id is stable: reports,\n"
			   "baselines and diffs key on it. The severity is the default; a detector may\n"
			   "raise or lower it for one finding. Settings are listed most likely first and\n"
			   "are described in [settings.md](settings.md); every one of them can cause\n"
			   "the finding (a test checks it). The kernel counters confirm a finding on the\n"
			   "host: run nstat NAME ... twice while the problem happens (it prints the change\n"
			   "since its last run). The model is described in\n"
			   "[findings-model.md](findings-model.md).\n\n");
	for (int c = 0; c < PD_CAT__COUNT; c++) {
		g_string_append_printf(o, "## %s\n\n", pd_category_name((pd_category)c));
		for (size_t i = 0; i < pd_catalog_len; i++) {
			const pd_finding_def *d = &pd_catalog[i];
			if ((int)d->category != c)
				continue;
			g_string_append_printf(o, "### `%s`: %s\n\n", d->id, d->title_en);
			g_string_append_printf(o, "Default severity: **%s**\n\n",
					       pd_severity_name(d->severity));
			g_string_append_printf(o, "%s\n\n", d->explain_en);
			g_string_append_printf(o, "%s：%s\n\n", d->title_zh, d->explain_zh);
			if (d->settings[0]) {
				g_string_append(o, "Settings:");
				for (size_t k = 0; k < PD_DEF_MAX_SETTINGS && d->settings[k]; k++)
					g_string_append_printf(o, "%s `%s`", k ? "," : "",
							       d->settings[k]);
				g_string_append(o, "\n\n");
			}
			if (d->counters[0]) {
				g_string_append(o, "Kernel counters that confirm it (nstat):\n\n");
				for (size_t k = 0; k < PD_DEF_MAX_COUNTERS && d->counters[k]; k++) {
					const pd_counter *ct = pd_counter_find(d->counters[k]);
					g_string_append_printf(o, "- `%s`: %s（%s）", d->counters[k],
							       ct ? ct->meaning_en : "", ct ? ct->meaning_zh : "");
					if (ct && ct->since)
						g_string_append_printf(o, "; since Linux %s", ct->since);
					g_string_append_c(o, '\n');
				}
				g_string_append_c(o, '\n');
			}
			if (d->alternatives_en[0]) {
				g_string_append(o, "Other explanations:\n\n");
				for (size_t k = 0; k < PD_DEF_MAX_ALTS && d->alternatives_en[k]; k++)
					g_string_append_printf(o, "- %s（%s）\n", d->alternatives_en[k],
							       d->alternatives_zh[k] ? d->alternatives_zh[k]
										     : "");
				g_string_append_c(o, '\n');
			}
		}
	}
	return g_string_free(o, FALSE);
}

static char *gen_settings_md(void)
{
	GString *o = g_string_new(NULL);
	g_string_append(o, "# pcapdoc settings knowledge base\n\n"
			   "<!-- Generated from knowledge/kb.c by tests/test_kb.c: do not edit.\n"
			   "     Regenerate: PD_BLESS=1 meson test -C build test_kb -->\n\n"
			   "Every kernel, socket, route, application and middlebox setting a finding can\n"
			   "point at. Defaults are those of current Linux (checked on kernel 6.18 in a\n"
			   "fresh network namespace); where a default scales with memory or changed\n"
			   "recently the entry says so. An entry marked with another system (Windows,\n"
			   "macOS) is that system's, ranked when the peer's SYN shows that system\n"
			   "(docs/peer-os.md). Run the check on the host in question: its\n"
			   "values are the ones that count. Every check only reads state and is safe on\n"
			   "a production host. \"Can cause\" lists the findings the setting can produce,\n"
			   "or whose limit or delay it sets; a finding ranks only settings that list it.\n\n");
	for (size_t j = 0; j < pd_kb_len; j++) {
		const pd_setting *s = &pd_kb[j];
		g_string_append_printf(o, "## %s\n\n", s->name);
		g_string_append_printf(o, "- Kind: %s; side: %s\n", pd_kb_kind_name(s->kind),
				       pd_kb_side_name(s->side));
		if (s->os)
			g_string_append_printf(o, "- System: %s (not Linux)\n", pd_kb_os_name(s));
		if (s->default_value)
			g_string_append_printf(o, "- Default: %s\n", s->default_value);
		if (s->added_in)
			g_string_append_printf(o, "- Added in Linux %s\n", s->added_in);
		if (s->removed_in)
			g_string_append_printf(o, "- Removed in Linux %s\n", s->removed_in);
		g_string_append_printf(o, "- Check: `%s`\n", s->check);
		g_string_append_printf(o, "- Change: %s\n", s->change_en);
		g_string_append_printf(o, "- Caveat: %s\n", s->caveat_en);
		if (s->check_zh && strcmp(s->check_zh, s->check) != 0)
			g_string_append_printf(o, "- 检查：`%s`\n", s->check_zh);
		g_string_append_printf(o, "- 修改：%s\n", s->change_zh);
		g_string_append_printf(o, "- 注意：%s\n", s->caveat_zh);
		g_string_append(o, "- Can cause:");
		for (size_t k = 0; k < PD_KB_MAX_CAUSES && s->causes[k]; k++)
			g_string_append_printf(o, "%s `%s`", k ? "," : "", s->causes[k]);
		if (!s->causes[0])
			g_string_append(o, " none of pcapdoc's findings");
		g_string_append(o, "\n\n");
	}
	return g_string_free(o, FALSE);
}

static void check_doc(const char *rel, char *want)
{
	char *path = pd_test_src(rel);
	if (g_getenv("PD_BLESS")) {
		GError *err = NULL;
		cr_assert(g_file_set_contents(path, want, -1, &err), "writing %s: %s", path,
			  err ? err->message : "");
		cr_log_info("wrote %s", path);
	}
	char *have = NULL;
	cr_assert(g_file_get_contents(path, &have, NULL, NULL), "cannot read %s", path);
	cr_expect_str_eq(have, want,
			 "%s is out of date: regenerate with PD_BLESS=1 meson test -C build test_kb",
			 rel);
	g_free(have);
	g_free(path);
	g_free(want);
}

Test(docs, findings_md_matches_catalogue)
{
	check_doc("docs/findings.md", gen_findings_md());
}

Test(docs, settings_md_matches_kb)
{
	check_doc("docs/settings.md", gen_settings_md());
}

Test(docs, every_id_and_setting_named)
{
	char *fp = pd_test_src("docs/findings.md"), *sp = pd_test_src("docs/settings.md");
	char *f = NULL, *s = NULL;
	cr_assert(g_file_get_contents(fp, &f, NULL, NULL));
	cr_assert(g_file_get_contents(sp, &s, NULL, NULL));
	for (size_t i = 0; i < pd_catalog_len; i++) {
		char *h = g_strdup_printf("### `%s`: %s\n", pd_catalog[i].id, pd_catalog[i].title_en);
		cr_expect(strstr(f, h), "findings.md lacks %s", pd_catalog[i].id);
		g_free(h);
	}
	for (size_t j = 0; j < pd_kb_len; j++) {
		char *h = g_strdup_printf("## %s\n", pd_kb[j].name);
		cr_expect(strstr(s, h), "settings.md lacks %s", pd_kb[j].name);
		g_free(h);
	}
	g_free(f);
	g_free(s);
	g_free(fp);
	g_free(sp);
}

Test(docs, man_page_lists_options)
{
	char *path = pd_test_src("docs/pcapdoc.1");
	char *man = NULL;
	cr_assert(g_file_get_contents(path, &man, NULL, NULL), "no %s", path);
	static const char *opts[] = {"format", "filter", "flows", "lang", "fail\\-on", "baseline",
				     "junit", "threads", "max\\-flows", "strict", "color",
				     "version", "help", "NO_COLOR", "EXIT STATUS", "diff",
				     "\\-r \", \" \\-\\-read\\-file", "\\-\\-verbose", "jsonl | html",
				     "docs/siem.md", "verdict", "\\-\\-host", "pcapdoc capture",
				     "docs/host-evidence.md"};
	for (size_t i = 0; i < G_N_ELEMENTS(opts); i++)
		cr_expect(strstr(man, opts[i]), "pcapdoc.1 does not mention %s", opts[i]);
	g_free(man);
	g_free(path);
}
