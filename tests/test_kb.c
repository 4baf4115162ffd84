/* The catalogue and the settings knowledge base: consistency between the
 * two, facts checkable on this machine, and the generated docs
 * (docs/findings.md, docs/settings.md) never drifting from the data.
 * Regenerate the docs with PD_BLESS=1 (e.g. PD_BLESS=1 meson test -C build test_kb). */
#include <criterion/criterion.h>
#include <glib.h>
#include <string.h>

#include "report/model.h"
#include "knowledge/catalog.h"
#include "knowledge/kb.h"
#include "testutil.h"

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

Test(kb, catalogue_settings_exist_in_kb)
{
	for (size_t i = 0; i < pd_catalog_len; i++)
		for (size_t k = 0; k < PD_DEF_MAX_SETTINGS && pd_catalog[i].settings[k]; k++)
			cr_expect_not_null(pd_kb_find(pd_catalog[i].settings[k]),
					   "%s names unknown setting '%s'", pd_catalog[i].id,
					   pd_catalog[i].settings[k]);
}

Test(kb, every_kb_entry_is_referenced)
{
	for (size_t j = 0; j < pd_kb_len; j++) {
		bool used = false;
		for (size_t i = 0; i < pd_catalog_len && !used; i++)
			for (size_t k = 0; k < PD_DEF_MAX_SETTINGS && pd_catalog[i].settings[k]; k++)
				if (strcmp(pd_catalog[i].settings[k], pd_kb[j].name) == 0)
					used = true;
		cr_expect(used, "KB entry '%s' is not referenced by any catalogue entry",
			  pd_kb[j].name);
	}
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
		/* Markdown puts commands in code spans */
		cr_expect(!strchr(s->check, '`'), "%s: backquote in check", s->name);
		const char *texts[] = {s->change_en, s->change_zh, s->caveat_en, s->caveat_zh,
				       s->default_value};
		for (size_t t = 0; t < G_N_ELEMENTS(texts); t++)
			cr_expect(!texts[t] || g_utf8_validate(texts[t], -1, NULL), "%s: UTF-8",
				  s->name);
	}
	cr_expect_null(pd_kb_find("no.such.setting"));
	cr_expect_null(pd_kb_find(NULL));
}

Test(kb, sysctls_exist_on_this_kernel)
{
	for (size_t j = 0; j < pd_kb_len; j++) {
		const pd_setting *s = &pd_kb[j];
		if (s->kind != PD_KB_SYSCTL || s->removed_in)
			continue;
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
		{"connection-churn", PD_CAT_CONNECTION_CHURN, PD_SEV_WARNING},
		{"port-reuse-timewait", PD_CAT_CONNECTION_CHURN, PD_SEV_WARNING},
		{"ephemeral-port-pressure", PD_CAT_CONNECTION_CHURN, PD_SEV_WARNING},
		{"nagle-delayed-ack", PD_CAT_NAGLE_DELAYED_ACK, PD_SEV_WARNING},
		{"zero-window", PD_CAT_WINDOW, PD_SEV_WARNING},
		{"window-limited", PD_CAT_WINDOW, PD_SEV_WARNING},
		{"window-scaling-disabled", PD_CAT_WINDOW, PD_SEV_WARNING},
		{"receive-window-fixed", PD_CAT_WINDOW, PD_SEV_INFO},
		{"sender-limited", PD_CAT_WINDOW, PD_SEV_INFO},
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
			   "are described in [settings.md](settings.md); the model is described in\n"
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
			   "recently the entry says so. Run the check on the host in question: its\n"
			   "values are the ones that count.\n\n");
	for (size_t j = 0; j < pd_kb_len; j++) {
		const pd_setting *s = &pd_kb[j];
		g_string_append_printf(o, "## %s\n\n", s->name);
		g_string_append_printf(o, "- Kind: %s; side: %s\n", pd_kb_kind_name(s->kind),
				       pd_kb_side_name(s->side));
		if (s->default_value)
			g_string_append_printf(o, "- Default: %s\n", s->default_value);
		if (s->removed_in)
			g_string_append_printf(o, "- Removed in Linux %s\n", s->removed_in);
		g_string_append_printf(o, "- Check: `%s`\n", s->check);
		g_string_append_printf(o, "- Change: %s\n", s->change_en);
		g_string_append_printf(o, "- Caveat: %s\n", s->caveat_en);
		g_string_append_printf(o, "- 修改：%s\n", s->change_zh);
		g_string_append_printf(o, "- 注意：%s\n", s->caveat_zh);
		g_string_append(o, "- Findings:");
		int n = 0;
		for (size_t i = 0; i < pd_catalog_len; i++)
			for (size_t k = 0; k < PD_DEF_MAX_SETTINGS && pd_catalog[i].settings[k]; k++)
				if (strcmp(pd_catalog[i].settings[k], s->name) == 0)
					g_string_append_printf(o, "%s `%s`", n++ ? "," : "",
							       pd_catalog[i].id);
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
				     "docs/siem.md", "verdict"};
	for (size_t i = 0; i < G_N_ELEMENTS(opts); i++)
		cr_expect(strstr(man, opts[i]), "pcapdoc.1 does not mention %s", opts[i]);
	g_free(man);
	g_free(path);
}
