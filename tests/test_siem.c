/* --format jsonl through the binary: one valid JSON object per finding per
 * line, ECS fields with the types an ECS index template gives them, the
 * capture's identity and the Community ID on every line, so Filebeat,
 * Vector or Logstash can ship the lines as they are (docs/siem.md). */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <glib.h>
#include <string.h>

#include "testutil.h"

/* ECS types of the fields pcapdoc writes (ECS 8.11 field reference). */
typedef enum { T_KEYWORD, T_TEXT, T_DATE, T_LONG, T_IP, T_KEYWORD_ARRAY, T_IP_ARRAY } ecs_type;
static const struct {
	const char *path;
	ecs_type type;
	bool always;
} ECS[] = {
	{"@timestamp", T_DATE, true},
	{"ecs.version", T_KEYWORD, true},
	{"message", T_TEXT, true},
	{"event.kind", T_KEYWORD, true},
	{"event.category", T_KEYWORD_ARRAY, true},
	{"event.type", T_KEYWORD_ARRAY, true},
	{"event.severity", T_LONG, true},
	{"event.id", T_KEYWORD, true},
	{"event.dataset", T_KEYWORD, true},
	{"event.module", T_KEYWORD, true},
	{"event.provider", T_KEYWORD, true},
	{"event.start", T_DATE, true},
	{"event.end", T_DATE, true},
	{"event.duration", T_LONG, true},
	{"log.level", T_KEYWORD, true},
	{"rule.id", T_KEYWORD, true},
	{"rule.name", T_KEYWORD, true},
	{"rule.category", T_KEYWORD, true},
	{"rule.description", T_KEYWORD, true},
	{"rule.ruleset", T_KEYWORD, true},
	{"rule.version", T_KEYWORD, true},
	{"network.transport", T_KEYWORD, false},
	{"network.iana_number", T_KEYWORD, false},
	{"network.type", T_KEYWORD, false},
	{"network.community_id", T_KEYWORD, false},
	{"source.ip", T_IP, false},
	{"source.port", T_LONG, false},
	{"destination.ip", T_IP, false},
	{"destination.port", T_LONG, false},
	{"related.ip", T_IP_ARRAY, false},
	{"observer.vendor", T_KEYWORD, true},
	{"observer.product", T_KEYWORD, true},
	{"observer.version", T_KEYWORD, true},
	{"observer.hostname", T_KEYWORD, false},
};

/* Top-level keys: ECS field sets and pcapdoc's own object, nothing else. */
static const char *const TOP[] = {"@timestamp", "ecs",     "message", "event",    "log",
				  "rule",       "network", "source",  "destination", "related",
				  "observer",   "pcapdoc"};

static const cJSON *get_path(const cJSON *o, const char *path)
{
	if (path[0] == '@')
		return cJSON_GetObjectItemCaseSensitive(o, path);
	gchar **parts = g_strsplit(path, ".", -1);
	const cJSON *cur = o;
	for (gchar **p = parts; *p && cur; p++)
		cur = cJSON_GetObjectItemCaseSensitive(cur, *p);
	g_strfreev(parts);
	return cur;
}

static bool is_date(const char *s)
{
	return g_regex_match_simple("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d{1,9})?Z$", s, 0, 0);
}

static bool is_ip(const char *s)
{
	unsigned char buf[16];
	return inet_pton(AF_INET, s, buf) == 1 || inet_pton(AF_INET6, s, buf) == 1;
}

/* The raw text of a number in a line: "key":<digits...>; integers must be
 * written as integers and measured values with a decimal point. */
static void expect_raw_numbers(const char *line, const char *key, bool integer)
{
	char *pat = g_strdup_printf("\"%s\":", key);
	for (const char *p = strstr(line, pat); p; p = strstr(p + 1, pat)) {
		const char *v = p + strlen(pat);
		if (*v == '{' || *v == '[' || *v == '"' || *v == 'n' || *v == 't' || *v == 'f')
			continue;
		size_t n = strspn(v, "-0123456789.eE+");
		bool dot = memchr(v, '.', n) || memchr(v, 'e', n) || memchr(v, 'E', n);
		if (integer)
			cr_expect(!dot, "%s written as floating point: %.*s", key, (int)n, v);
		else
			cr_expect(dot, "%s written as an integer (maps as long): %.*s", key, (int)n, v);
	}
	g_free(pat);
}

static void check_ecs_types(const cJSON *o, const char *line)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, o)
	{
		bool known = false;
		for (size_t i = 0; i < G_N_ELEMENTS(TOP); i++)
			known |= strcmp(it->string, TOP[i]) == 0;
		cr_expect(known, "top-level key %s is neither ECS nor pcapdoc", it->string);
	}
	for (size_t i = 0; i < G_N_ELEMENTS(ECS); i++) {
		const cJSON *v = get_path(o, ECS[i].path);
		if (!v) {
			cr_expect(!ECS[i].always, "%s missing: %s", ECS[i].path, line);
			continue;
		}
		switch (ECS[i].type) {
		case T_KEYWORD:
		case T_TEXT:
			cr_expect(cJSON_IsString(v) && *v->valuestring, "%s: not a non-empty string",
				  ECS[i].path);
			break;
		case T_DATE:
			cr_expect(cJSON_IsString(v) && is_date(v->valuestring), "%s: not a date",
				  ECS[i].path);
			break;
		case T_LONG:
			cr_expect(cJSON_IsNumber(v) && v->valuedouble == (double)(long long)v->valuedouble,
				  "%s: not an integer", ECS[i].path);
			break;
		case T_IP:
			cr_expect(cJSON_IsString(v) && is_ip(v->valuestring), "%s: not an IP",
				  ECS[i].path);
			break;
		case T_KEYWORD_ARRAY:
		case T_IP_ARRAY: {
			cr_expect(cJSON_IsArray(v) && cJSON_GetArraySize(v) > 0, "%s: not an array",
				  ECS[i].path);
			const cJSON *e;
			cJSON_ArrayForEach(e, v)
			{
				cr_expect(cJSON_IsString(e), "%s: element not a string", ECS[i].path);
				if (ECS[i].type == T_IP_ARRAY && cJSON_IsString(e))
					cr_expect(is_ip(e->valuestring), "%s: %s", ECS[i].path,
						  e->valuestring);
			}
			break;
		}
		}
	}
	/* allowed values of the categorisation fields */
	const char *kind = get_path(o, "event.kind")->valuestring;
	cr_expect(strcmp(kind, "alert") == 0 || strcmp(kind, "event") == 0, "event.kind %s", kind);
	const cJSON *e;
	cJSON_ArrayForEach(e, get_path(o, "event.category"))
	cr_expect_str_eq(e->valuestring, "network");
	cJSON_ArrayForEach(e, get_path(o, "event.type"))
	{
		const char *t = e->valuestring;
		cr_expect(strcmp(t, "connection") == 0 || strcmp(t, "error") == 0 ||
				  strcmp(t, "info") == 0,
			  "event.type %s not allowed for category network", t);
	}
	const cJSON *cid = get_path(o, "network.community_id");
	if (cid)
		cr_expect(g_regex_match_simple("^1:[A-Za-z0-9+/]{27}=$", cid->valuestring, 0, 0),
			  "community id %s", cid->valuestring);
	const cJSON *port = get_path(o, "source.port");
	if (port)
		cr_expect(port->valuedouble >= 0 && port->valuedouble <= 65535);
	expect_raw_numbers(line, "severity", true);
	expect_raw_numbers(line, "duration", true);
	expect_raw_numbers(line, "port", true);
	expect_raw_numbers(line, "frame", true);
	expect_raw_numbers(line, "confidence", false);
	expect_raw_numbers(line, "impact_s", false);
	expect_raw_numbers(line, "duration_s", false);
	/* every metric value reads as floating point */
	const cJSON *metrics = get_path(o, "pcapdoc.finding.metrics");
	cr_assert(cJSON_IsObject(metrics));
	cJSON_ArrayForEach(e, metrics)
	expect_raw_numbers(line, e->string, false);
}

static char *run_out(const char *const *argv, int *rc)
{
	char *out = NULL, *err = NULL;
	*rc = pd_test_run(&out, &err, argv);
	g_free(err);
	return out;
}

Test(jsonl, ecs_lines_for_golden_captures, .timeout = 120)
{
	const char *caps[] = {"zero-window", "nagle-delack", "random-loss", "syn-drop-recover",
			      "accept-queue-full", "healthy-http"};
	int lines_seen = 0;
	for (size_t k = 0; k < G_N_ELEMENTS(caps); k++) {
		char *rel = g_strdup_printf("testdata/captures/%s/%s.pcap", caps[k], caps[k]);
		char *path = pd_test_src(rel);
		int rc;
		const char *argv[] = {"-q", "--format", "jsonl", path, NULL};
		char *out = run_out(argv, &rc);
		cr_assert_eq(rc, 0, "%s", caps[k]);
		cJSON *doc = pd_test_json_abs(path, NULL);
		cr_assert_not_null(doc);
		const cJSON *findings = cJSON_GetObjectItemCaseSensitive(doc, "findings");
		const cJSON *capture = cJSON_GetObjectItemCaseSensitive(doc, "capture");

		/* the capture's identity, computed here from the file itself */
		char *bytes = NULL;
		gsize len = 0;
		cr_assert(g_file_get_contents(path, &bytes, &len, NULL));
		char *sha = g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)bytes, len);
		g_free(bytes);

		gchar **lines = g_strsplit(out, "\n", -1);
		guint n = g_strv_length(lines);
		cr_expect_str_empty(lines[n - 1], "output ends with a newline");
		cr_expect_eq((int)n - 1, cJSON_GetArraySize(findings), "%s: one line per finding",
			     caps[k]);
		for (guint i = 0; i + 1 < n; i++) {
			cJSON *o = cJSON_Parse(lines[i]);
			cr_assert(cJSON_IsObject(o), "%s line %u is not a JSON object: %s", caps[k], i + 1,
				  lines[i]);
			check_ecs_types(o, lines[i]);
			const cJSON *f = cJSON_GetArrayItem(findings, (int)i);
			cr_expect_str_eq(get_path(o, "rule.id")->valuestring,
					 cJSON_GetObjectItemCaseSensitive(f, "id")->valuestring,
					 "lines in the report's order");
			const cJSON *files = get_path(o, "pcapdoc.capture.files");
			cr_assert_eq(cJSON_GetArraySize(files), 1);
			const cJSON *f0 = cJSON_GetArrayItem(files, 0);
			cr_expect_str_eq(get_path(f0, "sha256")->valuestring, sha);
			cr_expect_eq(get_path(f0, "size")->valuedouble, (double)len);
			cr_expect_str_eq(get_path(f0, "path")->valuestring, path);
			cr_expect_str_eq(get_path(o, "pcapdoc.capture.first_ts")->valuestring,
					 get_path(capture, "first_ts_iso")->valuestring);
			cr_expect_str_eq(get_path(o, "pcapdoc.capture.last_ts")->valuestring,
					 get_path(capture, "last_ts_iso")->valuestring);
			const cJSON *flows = cJSON_GetObjectItemCaseSensitive(f, "flows");
			if (cJSON_GetArraySize(flows) > 0) {
				const cJSON *fl = cJSON_GetArrayItem(flows, 0);
				cr_expect_str_eq(get_path(o, "network.community_id")->valuestring,
						 get_path(fl, "community_id")->valuestring);
				cr_expect_str_eq(get_path(o, "source.ip")->valuestring,
						 get_path(fl, "client.ip")->valuestring);
				cr_expect_eq(get_path(o, "destination.port")->valuedouble,
					     get_path(fl, "server.port")->valuedouble);
			}
			cJSON_Delete(o);
			lines_seen++;
		}
		g_strfreev(lines);
		g_free(sha);
		cJSON_Delete(doc);
		g_free(out);
		g_free(path);
		g_free(rel);
	}
	cr_expect_geq(lines_seen, 8);
}

/* The same capture gives the same lines (event.id included); from
 * standard input the files cannot be hashed and say so with null. */
Test(jsonl, deterministic_and_stdin_has_no_hash, .timeout = 60)
{
	char *path = pd_test_src("testdata/captures/nagle-delack/nagle-delack.pcap");
	int rc;
	const char *argv[] = {"-q", "--format", "jsonl", path, NULL};
	char *a = run_out(argv, &rc);
	char *b = run_out(argv, &rc);
	cr_assert(a && b);
	cr_expect_str_eq(a, b);
	char *cmd = g_strdup_printf("cat '%s' | '%s' -q --format jsonl -", path, g_getenv("PD_PCAPDOC"));
	char *out = NULL;
	int status = 0;
	const char *sh[] = {"/bin/sh", "-c", cmd, NULL};
	cr_assert(g_spawn_sync(NULL, (gchar **)sh, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL,
			       &status, NULL));
	cJSON *o = cJSON_Parse(out);
	cr_assert_not_null(o, "%s", out);
	const cJSON *f0 = cJSON_GetArrayItem(get_path(o, "pcapdoc.capture.files"), 0);
	cr_expect(cJSON_IsNull(get_path(f0, "sha256")), "standard input has no hash");
	cr_expect_str_eq(get_path(f0, "path")->valuestring, "-");
	cJSON_Delete(o);
	g_free(out);
	g_free(cmd);
	g_free(a);
	g_free(b);
	g_free(path);
}
