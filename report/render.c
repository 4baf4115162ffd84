/* Renderer lookup and the helpers the formats share. */
#include "report/internal.h"

#include "dissect/addr.h"

#include <pcap/pcap.h>
#include <math.h>
#include <string.h>
#include <glib.h>

const pd_renderer *pd_renderer_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < pd_renderers_len; i++)
		if (pd_renderers[i] && strcmp(pd_renderers[i]->name, name) == 0)
			return pd_renderers[i];
	return NULL;
}

void pd_r_endpoint(GString *buf, const pd_addr *a, uint16_t port)
{
	char ep[PD_ENDPOINT_STRLEN];
	g_string_append(buf, pd_endpoint_str(a, port, ep, sizeof ep));
}

void pd_r_endpoints(GString *buf, const pd_flow_ref *f, const char *sep)
{
	pd_r_endpoint(buf, &f->client, f->client_port);
	g_string_append(buf, sep);
	pd_r_endpoint(buf, &f->server, f->server_port);
}

void pd_r_xml_escape(GString *buf, const char *s, bool apos)
{
	GString *t = g_string_new(NULL);
	pd_escape_text(t, s);
	for (const char *p = t->str; *p; p++) {
		switch (*p) {
		case '&':
			g_string_append(buf, "&amp;");
			break;
		case '<':
			g_string_append(buf, "&lt;");
			break;
		case '>':
			g_string_append(buf, "&gt;");
			break;
		case '"':
			g_string_append(buf, "&quot;");
			break;
		case '\'':
			if (apos) {
				g_string_append(buf, "&apos;");
				break;
			}
			/* fall through */
		default:
			g_string_append_c(buf, *p);
		}
	}
	g_string_free(t, TRUE);
}

const char *pd_r_proto_name(uint8_t proto, char *tmp, size_t len)
{
	switch (proto) {
	case 6:
		return "tcp";
	case 17:
		return "udp";
	case 1:
		return "icmp";
	case 58:
		return "icmpv6";
	default:
		snprintf(tmp, len, "%u", proto);
		return tmp;
	}
}

size_t pd_r_settings(const pd_finding *f, const char **out)
{
	size_t n = 0;
	if (f->n_settings > 0) {
		for (size_t i = 0; i < f->n_settings && i < PD_FINDING_MAX_SETTINGS; i++)
			if (f->settings[i])
				out[n++] = f->settings[i];
		return n;
	}
	if (f->def)
		for (size_t i = 0; i < PD_DEF_MAX_SETTINGS && f->def->settings[i]; i++)
			out[n++] = f->def->settings[i];
	return n;
}

pd_host_verdict pd_r_host_verdict(const pd_finding *f, const char *name, const char **fact_en,
				  const char **fact_zh)
{
	if (fact_en)
		*fact_en = NULL;
	if (fact_zh)
		*fact_zh = NULL;
	if (!f->host_source)
		return PD_HV_NONE;
	for (size_t i = 0; i < f->n_settings && i < PD_FINDING_MAX_SETTINGS; i++)
		if (f->settings[i] && !strcmp(f->settings[i], name)) {
			if (fact_en)
				*fact_en = f->host_fact[i];
			if (fact_zh)
				*fact_zh = f->host_fact_zh[i] ? f->host_fact_zh[i] : f->host_fact[i];
			return f->host_verdict[i];
		}
	return PD_HV_NONE;
}

bool pd_r_host_line(GString *b, const pd_finding *f, const char *name, bool zh)
{
	const char *en, *zhf;
	pd_host_verdict v = pd_r_host_verdict(f, name, &en, &zhf);
	g_string_truncate(b, 0);
	if (v == PD_HV_NONE)
		return false;
	static const char *const zh_names[] = {"", "已排除", "相符", "已证实"};
	g_string_append(b, zh ? zh_names[v] : pd_host_verdict_name(v));
	const char *fact = zh ? zhf : en;
	if (fact && *fact)
		g_string_append_printf(b, zh ? "：%s" : ": %s", fact);
	return true;
}

const char *pd_r_host_label(bool zh)
{
	return zh ? "主机" : "Host";
}

bool pd_r_host_confirmed(const pd_finding *f)
{
	return f->host_source && f->n_settings && f->host_verdict[0] == PD_HV_CONFIRMED;
}

double pd_r_finite(double v)
{
	if (isnan(v))
		return 0;
	if (isinf(v))
		return v > 0 ? 1e300 : -1e300;
	return v;
}

bool pd_r_is_zh(const pd_render_opts *o)
{
	return o && o->lang && strcmp(o->lang, "zh") == 0;
}

const char *pd_r_title(const pd_finding_def *d, bool zh)
{
	if (!d)
		return "";
	return zh && d->title_zh ? d->title_zh : d->title_en;
}

const char *pd_r_explain(const pd_finding_def *d, bool zh)
{
	if (!d)
		return "";
	return zh && d->explain_zh ? d->explain_zh : d->explain_en;
}

static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : "";
}

static int cmp_str(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char *pd_r_json_finding_key(const cJSON *finding)
{
	GString *key = g_string_new(jstr(finding, "id"));
	if (strcmp(jstr(finding, "scope"), "capture") == 0)
		return g_string_free(key, FALSE);
	if (strcmp(jstr(finding, "scope"), "server") == 0) {
		/* one problem at one server, whichever of its clients showed it */
		const cJSON *f0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(finding, "flows"), 0);
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(f0, "server");
		const cJSON *sp = cJSON_GetObjectItemCaseSensitive(s, "port");
		g_string_append_printf(key, "|@%s %s:%d", jstr(f0, "proto"), jstr(s, "ip"),
				       cJSON_IsNumber(sp) ? sp->valueint : 0);
		return g_string_free(key, FALSE);
	}

	GPtrArray *parts = g_ptr_array_new_with_free_func(g_free);
	const cJSON *flows = cJSON_GetObjectItemCaseSensitive(finding, "flows");
	const cJSON *fl;
	cJSON_ArrayForEach(fl, flows)
	{
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(fl, "client");
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(fl, "server");
		const cJSON *sp = cJSON_GetObjectItemCaseSensitive(s, "port");
		char *p = g_strdup_printf("%s %s>%s:%d", jstr(fl, "proto"), jstr(c, "ip"),
					  jstr(s, "ip"), cJSON_IsNumber(sp) ? sp->valueint : 0);
		bool dup = false;
		for (guint i = 0; i < parts->len; i++)
			if (strcmp(parts->pdata[i], p) == 0)
				dup = true;
		if (dup)
			g_free(p);
		else
			g_ptr_array_add(parts, p);
	}
	g_ptr_array_sort(parts, cmp_str);
	for (guint i = 0; i < parts->len; i++) {
		g_string_append_c(key, i ? ',' : '|');
		g_string_append(key, parts->pdata[i]);
	}
	g_ptr_array_unref(parts);
	return g_string_free(key, FALSE);
}

cJSON *pd_r_load_json(const char *path, GError **err)
{
	gchar *text = NULL;
	gsize len = 0;
	if (!g_file_get_contents(path, &text, &len, err))
		return NULL;
	cJSON *doc = cJSON_ParseWithLength(text, len);
	g_free(text);
	if (!doc || !cJSON_IsObject(doc) ||
	    !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "findings"))) {
		cJSON_Delete(doc);
		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL,
			    "%s: not a pcapdoc JSON report", path);
		return NULL;
	}
	return doc;
}

void pd_r_count(const pd_report *r, uint64_t counts[3])
{
	counts[0] = counts[1] = counts[2] = 0;
	for (guint i = 0; r->findings && i < r->findings->len; i++) {
		const pd_finding *f = r->findings->pdata[i];
		if ((unsigned)f->severity <= PD_SEV_ERROR)
			counts[f->severity]++;
	}
}

const char *pd_r_linktype_name(int linktype, char *buf, size_t len)
{
	const char *name = pcap_datalink_val_to_name(linktype);
	if (name)
		return name;
	snprintf(buf, len, "LINKTYPE_%d", linktype);
	return buf;
}

bool pd_r_spill(GString *o, FILE *out)
{
	if (o->len < PD_R_SPILL)
		return true;
	bool ok = fwrite(o->str, 1, o->len, out) == o->len;
	g_string_truncate(o, 0);
	return ok;
}
