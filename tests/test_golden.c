/* Golden captures with an `expect` file (testdata/captures/<name>/expect,
 * format in testdata/captures/README.md): each says what pcapdoc must
 * report on the capture made for one planted problem, at one vantage
 * point, or on its healthy twin:
 *
 *   expect <finding-id> <first setting or ->   must be reported, that setting first
 *   allow <finding-id>                          another warning that is also true
 *   forbid <finding-id>                         must not be reported at any severity
 *   healthy                                     no warning or error at all
 *   options <pcapdoc options>
 *   host <DIR or .tgz>                          host snapshots beside the capture (repeatable):
 *                                               the capture is checked twice, without them (the
 *                                               lines above) and with --host (the lines below)
 *   confirmed <finding-id> <setting>            with --host: that setting first, verdict confirmed
 *   ruledout <finding-id> <setting>             with --host: that setting's verdict is ruled out
 *
 * Any warning or error that no expect or allow line names fails the test:
 * one problem is one finding, its symptoms are its evidence. The test
 * also prints a summary table (problems found with the right first
 * setting, warnings on healthy controls, stray warnings). */
#include <criterion/criterion.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

typedef struct expectation {
	GPtrArray *expect_ids, *expect_settings, *allow, *forbid;
	GPtrArray *hosts, *confirmed_ids, *confirmed_settings, *ruledout_ids, *ruledout_settings;
	bool healthy;
	char *options;
} expectation;

static void expectation_free(expectation *e)
{
	g_ptr_array_free(e->expect_ids, TRUE);
	g_ptr_array_free(e->expect_settings, TRUE);
	g_ptr_array_free(e->allow, TRUE);
	g_ptr_array_free(e->forbid, TRUE);
	g_ptr_array_free(e->hosts, TRUE);
	g_ptr_array_free(e->confirmed_ids, TRUE);
	g_ptr_array_free(e->confirmed_settings, TRUE);
	g_ptr_array_free(e->ruledout_ids, TRUE);
	g_ptr_array_free(e->ruledout_settings, TRUE);
	g_free(e->options);
}

static bool load(const char *path, expectation *e)
{
	char *text = NULL;
	if (!g_file_get_contents(path, &text, NULL, NULL))
		return false;
	memset(e, 0, sizeof(*e));
	e->expect_ids = g_ptr_array_new_with_free_func(g_free);
	e->expect_settings = g_ptr_array_new_with_free_func(g_free);
	e->allow = g_ptr_array_new_with_free_func(g_free);
	e->forbid = g_ptr_array_new_with_free_func(g_free);
	e->hosts = g_ptr_array_new_with_free_func(g_free);
	e->confirmed_ids = g_ptr_array_new_with_free_func(g_free);
	e->confirmed_settings = g_ptr_array_new_with_free_func(g_free);
	e->ruledout_ids = g_ptr_array_new_with_free_func(g_free);
	e->ruledout_settings = g_ptr_array_new_with_free_func(g_free);
	char *dir = g_path_get_dirname(path);
	char **lines = g_strsplit(text, "\n", -1);
	for (char **l = lines; *l; l++) {
		char *line = g_strstrip(*l);
		if (!*line || *line == '#')
			continue;
		char **w = g_strsplit_set(line, " \t", 3);
		const char *kw = w[0];
		if (!strcmp(kw, "expect") && w[1]) {
			g_ptr_array_add(e->expect_ids, g_strdup(w[1]));
			/* the rest of the line: a setting name may hold spaces */
			g_ptr_array_add(e->expect_settings, g_strdup(w[2] ? g_strstrip(w[2]) : "-"));
		} else if (!strcmp(kw, "allow") && w[1]) {
			g_ptr_array_add(e->allow, g_strdup(w[1]));
		} else if (!strcmp(kw, "forbid") && w[1]) {
			g_ptr_array_add(e->forbid, g_strdup(w[1]));
		} else if (!strcmp(kw, "host") && w[1]) {
			g_ptr_array_add(e->hosts, g_build_filename(dir, w[1], NULL));
		} else if ((!strcmp(kw, "confirmed") || !strcmp(kw, "ruledout")) && w[1] && w[2]) {
			bool conf = !strcmp(kw, "confirmed");
			g_ptr_array_add(conf ? e->confirmed_ids : e->ruledout_ids, g_strdup(w[1]));
			g_ptr_array_add(conf ? e->confirmed_settings : e->ruledout_settings,
					g_strdup(g_strstrip(w[2])));
		} else if (!strcmp(kw, "healthy")) {
			e->healthy = true;
		} else if (!strcmp(kw, "options") && w[1]) {
			const char *rest = line + strlen("options");
			e->options = g_strdup(g_strstrip((char *)g_strdup(rest)));
		}
		g_strfreev(w);
	}
	g_strfreev(lines);
	g_free(text);
	g_free(dir);
	return true;
}

static bool listed(const GPtrArray *a, const char *id)
{
	for (guint i = 0; i < a->len; i++)
		if (!strcmp(g_ptr_array_index(a, i), id))
			return true;
	return false;
}

static const char *first_setting(const cJSON *f)
{
	const cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(f, "settings"), 0);
	const cJSON *n = s ? cJSON_GetObjectItemCaseSensitive(s, "name") : NULL;
	return cJSON_IsString(n) ? n->valuestring : "";
}

/* The --host verdict of setting name in finding f ("" when none). */
static const char *host_verdict(const cJSON *f, const char *name, int *rank)
{
	const cJSON *s;
	int i = 0;
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(f, "settings"))
	{
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(s, "name");
		if (cJSON_IsString(n) && !strcmp(n->valuestring, name)) {
			*rank = i;
			const cJSON *h = cJSON_GetObjectItemCaseSensitive(s, "host");
			const cJSON *v = h ? cJSON_GetObjectItemCaseSensitive(h, "verdict") : NULL;
			return cJSON_IsString(v) ? v->valuestring : "";
		}
		i++;
	}
	*rank = -1;
	return "";
}

/* Captures not yet diagnosed as their expect file says: one name per line
 * in tests/golden_pending.txt. They are run and reported, not failed. */
static GHashTable *pending_set(void)
{
	GHashTable *set = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	char *path = pd_test_src("tests/golden_pending.txt");
	char *text = NULL;
	if (g_file_get_contents(path, &text, NULL, NULL)) {
		char **lines = g_strsplit(text, "\n", -1);
		for (char **l = lines; *l; l++) {
			char *line = g_strstrip(*l);
			if (*line && *line != '#')
				g_hash_table_add(set, g_strdup(line));
		}
		g_strfreev(lines);
	}
	g_free(text);
	g_free(path);
	return set;
}

typedef struct tally {
	int problems, found_right, found_wrong_setting, missed;
	int healthy, healthy_warned;
	int stray;
	int failed, pending_failed, pending_passed;
} tally;

/* Checks one capture; returns the failures as text ("" when it passes). */
static GString *check(const char *name, const char *pcap, const expectation *e, tally *t, bool with_host)
{
	GString *why = g_string_new("");
	char **extra = e->options ? g_strsplit(e->options, " ", -1) : g_new0(char *, 1);
	GPtrArray *args = g_ptr_array_new();
	g_ptr_array_add(args, "-q");
	g_ptr_array_add(args, "--format");
	g_ptr_array_add(args, "json");
	for (char **x = extra; *x; x++)
		if (**x)
			g_ptr_array_add(args, *x);
	for (guint i = 0; with_host && i < e->hosts->len; i++) {
		g_ptr_array_add(args, "--host");
		g_ptr_array_add(args, g_ptr_array_index(e->hosts, i));
	}
	g_ptr_array_add(args, (char *)pcap);
	g_ptr_array_add(args, NULL);
	char *out = NULL;
	pd_test_run(&out, NULL, (const char **)args->pdata);
	cJSON *doc = out ? cJSON_Parse(out) : NULL;
	g_free(out);
	g_ptr_array_free(args, TRUE);
	g_strfreev(extra);
	if (!doc) {
		g_string_append(why, "no JSON report; ");
		return why;
	}
	const cJSON *findings = cJSON_GetObjectItemCaseSensitive(doc, "findings");
	for (guint i = 0; with_host && i < e->confirmed_ids->len; i++) {
		const char *id = g_ptr_array_index(e->confirmed_ids, i);
		const char *want = g_ptr_array_index(e->confirmed_settings, i);
		const cJSON *f = pd_test_finding(doc, id, 0);
		int rank;
		const char *v = f ? host_verdict(f, want, &rank) : "";
		if (!f)
			g_string_append_printf(why, "with --host: missing %s; ", id);
		else if (rank != 0 || strcmp(v, "confirmed"))
			g_string_append_printf(why, "with --host: %s ranks '%s' first, '%s' is #%d '%s'; ", id,
					       first_setting(f), want, rank + 1, v);
	}
	for (guint i = 0; with_host && i < e->ruledout_ids->len; i++) {
		const char *id = g_ptr_array_index(e->ruledout_ids, i);
		const char *want = g_ptr_array_index(e->ruledout_settings, i);
		const cJSON *f = pd_test_finding(doc, id, 0);
		int rank;
		const char *v = f ? host_verdict(f, want, &rank) : "";
		if (!f)
			g_string_append_printf(why, "with --host: missing %s; ", id);
		else if (strcmp(v, "ruled out"))
			g_string_append_printf(why, "with --host: %s '%s' is '%s', not ruled out; ", id, want, v);
	}
	/* with --host the first settings are the host's (checked above); the
	 * packet-only run checks the expect lines' settings */
	for (guint i = 0; !with_host && i < e->expect_ids->len; i++) {
		const char *id = g_ptr_array_index(e->expect_ids, i);
		const char *want = g_ptr_array_index(e->expect_settings, i);
		t->problems++;
		const cJSON *f = pd_test_finding(doc, id, 0);
		if (!f) {
			t->missed++;
			g_string_append_printf(why, "missing %s; ", id);
			continue;
		}
		/* the planted problem is a root cause, not another's symptom */
		const cJSON *by = cJSON_GetObjectItemCaseSensitive(f, "explained_by");
		if (cJSON_IsString(by)) {
			t->missed++;
			g_string_append_printf(why, "%s is only a symptom of %s; ", id, by->valuestring);
			continue;
		}
		if (strcmp(want, "-") && strcmp(first_setting(f), want)) {
			t->found_wrong_setting++;
			g_string_append_printf(why, "%s ranks '%s' first, not '%s'; ", id, first_setting(f), want);
			continue;
		}
		t->found_right++;
	}
	if (e->healthy && !with_host)
		t->healthy++;
	bool healthy_warned = false;
	const cJSON *f;
	cJSON_ArrayForEach(f, findings)
	{
		const char *id = cJSON_GetObjectItemCaseSensitive(f, "id")->valuestring;
		const char *sev = cJSON_GetObjectItemCaseSensitive(f, "severity")->valuestring;
		const cJSON *by = cJSON_GetObjectItemCaseSensitive(f, "explained_by");
		if (listed(e->forbid, id)) {
			g_string_append_printf(why, "%sforbidden %s (%s); ", with_host ? "with --host: " : "", id, sev);
			continue;
		}
		bool warn = strcmp(sev, "info") != 0;
		/* a symptom another finding explains is its evidence, not a stray */
		if (!warn || cJSON_IsString(by) || listed(e->expect_ids, id) || listed(e->allow, id))
			continue;
		if (e->healthy)
			healthy_warned = true;
		else if (!with_host)
			t->stray++;
		g_string_append_printf(why, "%sunexpected %s %s; ", with_host ? "with --host: " : "", sev, id);
	}
	if (healthy_warned && !with_host)
		t->healthy_warned++;
	cJSON_Delete(doc);
	(void)name;
	return why;
}

static gint cmp_name(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

Test(golden, expect_files, .timeout = 900)
{
	char *root = pd_test_src("testdata/captures");
	GDir *dir = g_dir_open(root, 0, NULL);
	cr_assert_not_null(dir);
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	const char *n;
	while ((n = g_dir_read_name(dir))) {
		char *ex = g_build_filename(root, n, "expect", NULL);
		if (g_file_test(ex, G_FILE_TEST_EXISTS))
			g_ptr_array_add(names, g_strdup(n));
		g_free(ex);
	}
	g_dir_close(dir);
	g_ptr_array_sort(names, cmp_name);
	cr_assert_gt(names->len, 50, "expect files: %u", names->len);
	GHashTable *pending = pending_set();
	tally t = {0};
	for (guint i = 0; i < names->len; i++) {
		const char *name = g_ptr_array_index(names, i);
		char *ex = g_build_filename(root, name, "expect", NULL);
		char *base = g_strconcat(name, ".pcap", NULL);
		char *pcap = g_build_filename(root, name, base, NULL);
		if (!g_file_test(pcap, G_FILE_TEST_EXISTS)) {
			/* a large capture is kept gzip-compressed (pcapdoc reads it so) */
			g_free(pcap);
			char *gz = g_strconcat(name, ".pcap.gz", NULL);
			pcap = g_build_filename(root, name, gz, NULL);
			g_free(gz);
		}
		if (!g_file_test(pcap, G_FILE_TEST_EXISTS)) {
			g_free(pcap);
			pcap = g_build_filename(root, name, "capture.pcap", NULL);
		}
		expectation e;
		cr_assert(load(ex, &e), "%s: unreadable expect file", name);
		GString *why = check(name, pcap, &e, &t, false);
		if (e.hosts->len) {
			GString *hw = check(name, pcap, &e, &t, true);
			g_string_append(why, hw->str);
			g_string_free(hw, TRUE);
		}
		bool is_pending = g_hash_table_contains(pending, name);
		if (why->len && is_pending) {
			t.pending_failed++;
			fprintf(stderr, "golden: %-40s pending: %s\n", name, why->str);
		} else if (why->len) {
			t.failed++;
			cr_expect(false, "%s: %s", name, why->str);
		} else if (is_pending) {
			t.pending_passed++;
			cr_expect(false, "%s passes now: take it off tests/golden_pending.txt", name);
		}
		g_string_free(why, TRUE);
		expectation_free(&e);
		g_free(ex);
		g_free(base);
		g_free(pcap);
	}
	fprintf(stderr,
		"golden: %u captures; problems %d: %d found with the right first setting, %d with another, "
		"%d missed; healthy controls %d, %d with a warning; stray warnings %d; failed %d, pending %d\n",
		names->len, t.problems, t.found_right, t.found_wrong_setting, t.missed, t.healthy, t.healthy_warned,
		t.stray, t.failed, t.pending_failed);
	g_hash_table_destroy(pending);
	g_ptr_array_free(names, TRUE);
	g_free(root);
}
