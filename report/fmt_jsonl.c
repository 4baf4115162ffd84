/* --format jsonl: one JSON object per finding per line, for Filebeat,
 * Vector or Logstash to ship into Elasticsearch or OpenSearch as they are
 * (docs/siem.md). ECS field names where ECS has one (@timestamp, event.*,
 * rule.*, network.*, source.*, destination.*, related.ip, observer.*),
 * everything else under "pcapdoc". Every line carries the capture's
 * identity (file names, SHA-256 of each file, first and last packet time)
 * and, for a finding on flows, the first flow's Community ID; the others'
 * are in pcapdoc.flows[].community_id.
 *
 * Types stay what an ECS index template maps: ports and event.severity and
 * event.duration are integers; measured values (confidence, impact_s,
 * metrics) are always written with a decimal point, so a dynamic mapping
 * makes them floating point from the first document on, never long. */
#include "report/internal.h"
#include "dissect/addr.h"

#include <math.h>
#include <string.h>

#define ECS_VERSION "8.11.0"
#define PD_JSONL_SCHEMA "1"

static cJSON *safe_string(const char *s)
{
	GString *b = g_string_new(NULL);
	pd_escape_text(b, s ? s : "");
	cJSON *j = cJSON_CreateString(b->str);
	g_string_free(b, TRUE);
	return j;
}

static cJSON *safe_fixed(const char *a, size_t n)
{
	char *tmp = g_strndup(a, n);
	cJSON *j = safe_string(tmp);
	g_free(tmp);
	return j;
}

/* A number that always reads as floating point: the shortest form that
 * round-trips, with ".0" added when it would look like an integer. */
static void add_float(cJSON *o, const char *k, double v)
{
	v = pd_r_finite(v);
	char buf[40];
	for (int prec = 1; prec <= 17; prec++) {
		g_snprintf(buf, sizeof buf, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (!strpbrk(buf, ".eE"))
		g_strlcat(buf, ".0", sizeof buf);
	cJSON_AddItemToObject(o, k, cJSON_CreateRaw(buf));
}

static void add_int(cJSON *o, const char *k, int64_t v)
{
	char buf[32];
	g_snprintf(buf, sizeof buf, "%" G_GINT64_FORMAT, v);
	cJSON_AddItemToObject(o, k, cJSON_CreateRaw(buf));
}

static void add_str(cJSON *o, const char *k, const char *v)
{
	cJSON_AddItemToObject(o, k, cJSON_CreateString(v ? v : ""));
}

static void add_iso(cJSON *o, const char *k, pd_time t)
{
	char buf[PD_TIME_STRLEN];
	pd_time_iso(t, buf, sizeof buf);
	add_str(o, k, buf);
}

static cJSON *str_array(const char *a, const char *b)
{
	cJSON *arr = cJSON_CreateArray();
	if (a)
		cJSON_AddItemToArray(arr, cJSON_CreateString(a));
	if (b)
		cJSON_AddItemToArray(arr, cJSON_CreateString(b));
	return arr;
}

/* The capture, the same on every line: its id (a SHA-256 over the files'
 * hashes, or over names and times when a file could not be hashed) and
 * its files. */
typedef struct capture_id {
	char id[65];
	cJSON *obj; /* template, duplicated into each line */
} capture_id;

static void capture_identity(const pd_capture_summary *c, capture_id *out)
{
	GChecksum *ck = g_checksum_new(G_CHECKSUM_SHA256);
	cJSON *o = cJSON_CreateObject();
	cJSON *files = cJSON_AddArrayToObject(o, "files");
	for (guint i = 0; c->files && i < c->files->len; i++) {
		const char *path = c->files->pdata[i];
		const char *sha = c->file_sha256 && i < c->file_sha256->len ? c->file_sha256->pdata[i]
									    : "";
		uint64_t size = c->file_sizes && i < c->file_sizes->len
					? g_array_index(c->file_sizes, uint64_t, i)
					: 0;
		cJSON *fo = cJSON_CreateObject();
		cJSON_AddItemToObject(fo, "path", safe_string(path));
		char *base = g_path_get_basename(path);
		cJSON_AddItemToObject(fo, "name", safe_string(base));
		g_free(base);
		if (*sha) {
			add_str(fo, "sha256", sha);
			add_int(fo, "size", (int64_t)size);
			g_checksum_update(ck, (const guchar *)sha, -1);
		} else {
			cJSON_AddItemToObject(fo, "sha256", cJSON_CreateNull());
			g_checksum_update(ck, (const guchar *)path, -1);
		}
		g_checksum_update(ck, (const guchar *)"\n", 1);
		cJSON_AddItemToArray(files, fo);
	}
	char t[64];
	g_snprintf(t, sizeof t, "%" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GUINT64_FORMAT,
		   (gint64)c->first_ts, (gint64)c->last_ts, (guint64)c->packets);
	g_checksum_update(ck, (const guchar *)t, -1);
	g_strlcpy(out->id, g_checksum_get_string(ck), sizeof out->id);
	g_checksum_free(ck);

	cJSON *copy = cJSON_CreateObject();
	add_str(copy, "id", out->id);
	cJSON_AddItemToObject(copy, "files", cJSON_Duplicate(files, true));
	cJSON_Delete(o);
	add_int(copy, "packets", (int64_t)c->packets);
	if (c->packets) {
		add_iso(copy, "first_ts", c->first_ts);
		add_iso(copy, "last_ts", c->last_ts);
	}
	add_float(copy, "duration_s",
		  c->packets && c->last_ts > c->first_ts ? (double)(c->last_ts - c->first_ts) / 1e9 : 0);
	out->obj = copy;
}

static cJSON *endpoint(const pd_addr *a, uint16_t port)
{
	char ip[64];
	pd_addr_str(a, ip, sizeof ip);
	cJSON *o = cJSON_CreateObject();
	add_str(o, "ip", ip);
	add_int(o, "port", port);
	return o;
}

static void add_related_ip(cJSON *related, const pd_addr *a)
{
	char ip[64];
	pd_addr_str(a, ip, sizeof ip);
	if (!*ip)
		return;
	const cJSON *it;
	cJSON_ArrayForEach(it, related)
	{
		if (strcmp(it->valuestring, ip) == 0)
			return;
	}
	if (cJSON_GetArraySize(related) < 64)
		cJSON_AddItemToArray(related, cJSON_CreateString(ip));
}

static cJSON *finding_line(const pd_finding *f, const capture_id *cap,
			   const pd_capture_summary *c, const char *version, const char *host)
{
	const pd_finding_def *d = f->def;
	const char *id = d ? d->id : "unknown";
	unsigned sev = (unsigned)f->severity <= PD_SEV_ERROR ? (unsigned)f->severity : 0;
	static const int ecs_sev[3] = {21, 47, 73}; /* low, medium, high: Elastic's risk bands */
	guint listed = f->flows ? f->flows->len : 0;
	const pd_flow_ref *f0 = listed ? &g_array_index(f->flows, pd_flow_ref, 0) : NULL;
	pd_time start = f->first.frame ? f->first.ts : c->first_ts;
	pd_time end = f->last.frame ? f->last.ts : start;
	if (end < start)
		end = start;

	cJSON *o = cJSON_CreateObject();
	add_iso(o, "@timestamp", start);
	cJSON *ecs = cJSON_AddObjectToObject(o, "ecs");
	add_str(ecs, "version", ECS_VERSION);

	GString *msg = g_string_new(pd_r_title(d, false));
	if (f->detail && *f->detail) {
		g_string_append(msg, ": ");
		g_string_append(msg, f->detail);
	}
	cJSON_AddItemToObject(o, "message", safe_string(msg->str));
	g_string_free(msg, TRUE);

	/* event.id: the same finding in the same capture always gets the same
	 * id, so a shipper can use it as the document id and a file shipped
	 * twice is stored once */
	GChecksum *ck = g_checksum_new(G_CHECKSUM_SHA256);
	g_checksum_update(ck, (const guchar *)cap->id, -1);
	g_checksum_update(ck, (const guchar *)id, -1);
	char t[64];
	g_snprintf(t, sizeof t, "|%" G_GUINT64_FORMAT "|%" G_GUINT64_FORMAT, (guint64)f->first.frame,
		   (guint64)f->last.frame);
	g_checksum_update(ck, (const guchar *)t, -1);
	for (guint i = 0; i < listed; i++) {
		const pd_flow_ref *fr = &g_array_index(f->flows, pd_flow_ref, i);
		char *cid = g_strndup(fr->community_id, sizeof fr->community_id);
		g_checksum_update(ck, (const guchar *)cid, -1);
		g_free(cid);
	}
	char event_id[33];
	g_strlcpy(event_id, g_checksum_get_string(ck), sizeof event_id);
	g_checksum_free(ck);

	bool capture_cat = d && d->category == PD_CAT_CAPTURE;
	cJSON *ev = cJSON_AddObjectToObject(o, "event");
	add_str(ev, "kind", f->severity >= PD_SEV_WARNING ? "alert" : "event");
	cJSON_AddItemToObject(ev, "category", str_array("network", NULL));
	if (capture_cat || !listed)
		cJSON_AddItemToObject(ev, "type", str_array("info", NULL));
	else
		cJSON_AddItemToObject(ev, "type",
				      str_array("connection",
						f->severity >= PD_SEV_WARNING ? "error" : "info"));
	add_int(ev, "severity", ecs_sev[sev]);
	add_str(ev, "id", event_id);
	add_str(ev, "dataset", "pcapdoc.finding");
	add_str(ev, "module", "pcapdoc");
	add_str(ev, "provider", "pcapdoc");
	add_iso(ev, "start", start);
	add_iso(ev, "end", end);
	add_int(ev, "duration", (int64_t)(end - start));

	cJSON *log = cJSON_AddObjectToObject(o, "log");
	add_str(log, "level", pd_severity_name(f->severity));

	cJSON *rule = cJSON_AddObjectToObject(o, "rule");
	add_str(rule, "id", id);
	add_str(rule, "name", pd_r_title(d, false));
	add_str(rule, "category", d ? pd_category_name(d->category) : "unknown");
	add_str(rule, "description", pd_r_explain(d, false));
	add_str(rule, "ruleset", "pcapdoc");
	add_str(rule, "version", version ? version : "unknown");

	if (f0) {
		char tmp[8];
		cJSON *net = cJSON_AddObjectToObject(o, "network");
		add_str(net, "transport", pd_r_proto_name(f0->proto, tmp, sizeof tmp));
		g_snprintf(tmp, sizeof tmp, "%u", f0->proto);
		add_str(net, "iana_number", tmp);
		add_str(net, "type", f0->client.family == 6 ? "ipv6" : "ipv4");
		if (f0->community_id[0])
			cJSON_AddItemToObject(net, "community_id",
					      safe_fixed(f0->community_id, sizeof f0->community_id));
		cJSON_AddItemToObject(o, "source", endpoint(&f0->client, f0->client_port));
		cJSON_AddItemToObject(o, "destination", endpoint(&f0->server, f0->server_port));
		cJSON *related = cJSON_AddObjectToObject(o, "related");
		cJSON *ips = cJSON_AddArrayToObject(related, "ip");
		for (guint i = 0; i < listed; i++) {
			const pd_flow_ref *fr = &g_array_index(f->flows, pd_flow_ref, i);
			add_related_ip(ips, &fr->client);
			add_related_ip(ips, &fr->server);
		}
	}

	cJSON *obs = cJSON_AddObjectToObject(o, "observer");
	add_str(obs, "vendor", "pcapdoc");
	add_str(obs, "product", "pcapdoc");
	add_str(obs, "version", version ? version : "unknown");
	if (host && *host)
		cJSON_AddItemToObject(obs, "hostname", safe_string(host));

	cJSON *pd = cJSON_AddObjectToObject(o, "pcapdoc");
	add_str(pd, "schema_version", PD_JSONL_SCHEMA);
	cJSON *fi = cJSON_AddObjectToObject(pd, "finding");
	add_str(fi, "id", id);
	add_str(fi, "severity", pd_severity_name(f->severity));
	add_str(fi, "category", d ? pd_category_name(d->category) : "unknown");
	double conf = pd_r_finite(f->confidence);
	add_float(fi, "confidence", conf < 0 ? 0 : conf > 1 ? 1 : conf);
	add_float(fi, "impact_s", f->impact_s > 0 ? f->impact_s : 0);
	add_int(fi, "occurrences", (int64_t)f->occurrences);
	add_int(fi, "flow_count", (int64_t)f->flow_count);
	add_str(fi, "scope", f->one_server ? "server" : f->capture_wide ? "capture" : "flow");
	cJSON_AddItemToObject(fi, "detail", safe_string(f->detail));
	cJSON_AddItemToObject(fi, "known", cJSON_CreateBool(f->known));
	if (f->first.frame) {
		cJSON *e = cJSON_AddObjectToObject(fi, "first");
		add_int(e, "frame", (int64_t)f->first.frame);
		add_iso(e, "ts", f->first.ts);
	}
	if (f->last.frame) {
		cJSON *e = cJSON_AddObjectToObject(fi, "last");
		add_int(e, "frame", (int64_t)f->last.frame);
		add_iso(e, "ts", f->last.ts);
	}
	cJSON *ex = cJSON_AddArrayToObject(fi, "examples");
	for (guint i = 0; f->examples && i < f->examples->len; i++) {
		const pd_evidence *e = &g_array_index(f->examples, pd_evidence, i);
		cJSON *eo = cJSON_CreateObject();
		add_int(eo, "frame", (int64_t)e->frame);
		add_iso(eo, "ts", e->ts);
		cJSON_AddItemToObject(eo, "what", safe_fixed(e->what, sizeof e->what));
		cJSON_AddItemToArray(ex, eo);
	}
	cJSON *metrics = cJSON_AddObjectToObject(fi, "metrics");
	cJSON *units = cJSON_AddObjectToObject(fi, "metric_units");
	for (guint i = 0; f->metrics && i < f->metrics->len; i++) {
		const pd_metric *m = &g_array_index(f->metrics, pd_metric, i);
		if (!m->key)
			continue;
		/* a repeated key keeps its latest value, as in the JSON report */
		cJSON_DeleteItemFromObjectCaseSensitive(metrics, m->key);
		cJSON_DeleteItemFromObjectCaseSensitive(units, m->key);
		add_float(metrics, m->key, m->value);
		add_str(units, m->key, m->unit ? m->unit : "");
	}
	const char *names[PD_FINDING_MAX_SETTINGS + PD_DEF_MAX_SETTINGS];
	size_t ns = pd_r_settings(f, names);
	cJSON *settings = cJSON_AddArrayToObject(fi, "settings");
	for (size_t i = 0; i < ns; i++)
		cJSON_AddItemToArray(settings, safe_string(names[i]));
	if (ns) {
		const pd_setting *s = pd_kb_find(names[0]);
		cJSON *fs = cJSON_AddObjectToObject(fi, "first_setting");
		cJSON_AddItemToObject(fs, "name", safe_string(names[0]));
		if (s) {
			add_str(fs, "check", s->check);
			add_str(fs, "change", s->change_en);
		}
	}

	cJSON *flows = cJSON_AddArrayToObject(pd, "flows");
	for (guint i = 0; i < listed; i++) {
		const pd_flow_ref *fr = &g_array_index(f->flows, pd_flow_ref, i);
		char tmp[8];
		cJSON *fo = cJSON_CreateObject();
		add_int(fo, "flow_id", (int64_t)fr->flow_id);
		add_str(fo, "transport", pd_r_proto_name(fr->proto, tmp, sizeof tmp));
		cJSON_AddItemToObject(fo, "client", endpoint(&fr->client, fr->client_port));
		cJSON_AddItemToObject(fo, "server", endpoint(&fr->server, fr->server_port));
		cJSON_AddItemToObject(fo, "application", safe_fixed(fr->app, sizeof fr->app));
		cJSON_AddItemToObject(fo, "community_id",
				      safe_fixed(fr->community_id, sizeof fr->community_id));
		cJSON_AddItemToArray(flows, fo);
	}
	cJSON_AddItemToObject(pd, "capture", cJSON_Duplicate(cap->obj, true));
	return o;
}

static bool render_jsonl(const pd_report *r, const pd_render_opts *o, FILE *out)
{
	capture_id cap;
	capture_identity(&r->cap, &cap);
	const char *host = g_get_host_name();
	bool ok = true;
	for (guint i = 0; ok && r->findings && i < r->findings->len; i++) {
		cJSON *line = finding_line(r->findings->pdata[i], &cap, &r->cap, o ? o->version : NULL,
					   host);
		char *text = cJSON_PrintUnformatted(line);
		cJSON_Delete(line);
		if (!text) {
			ok = false;
			break;
		}
		ok = fputs(text, out) >= 0 && fputc('\n', out) != EOF;
		cJSON_free(text);
	}
	cJSON_Delete(cap.obj);
	return ok && !ferror(out);
}

const pd_renderer pd_fmt_jsonl = {
	.name = "jsonl",
	.render = render_jsonl,
};
