/* The report model: allocation, canonical order and the small name and
 * time formatting helpers every renderer shares. */
#include "report/model.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

static void free_str(gpointer p)
{
	g_free(p);
}

static void clear_note(gpointer p)
{
	pd_note *n = p;
	g_free(n->en);
	g_free(n->zh);
}

static void free_finding(gpointer p)
{
	pd_finding_free(p);
}

bool pd_finding_metric_of(const pd_finding *f, const char *key, double *value)
{
	for (guint i = 0; f->metrics && i < f->metrics->len; i++) {
		const pd_metric *m = &g_array_index(f->metrics, pd_metric, i);
		if (!strcmp(m->key, key)) {
			*value = m->value;
			return true;
		}
	}
	return false;
}

pd_report *pd_report_new(void)
{
	pd_report *r = g_new0(pd_report, 1);
	pd_capture_summary *c = &r->cap;

	c->files = g_ptr_array_new_with_free_func(free_str);
	c->linktypes = g_array_new(FALSE, TRUE, sizeof(pd_linktype_count));
	c->apps = g_array_new(FALSE, TRUE, sizeof(pd_app_count));
	c->notes = g_array_new(FALSE, TRUE, sizeof(pd_note));
	g_array_set_clear_func(c->notes, clear_note);
	c->errors = g_ptr_array_new_with_free_func(free_str);
	r->flows = NULL; /* only when the flow table was asked for */
	r->findings = g_ptr_array_new_with_free_func(free_finding);
	return r;
}

void pd_report_free(pd_report *r)
{
	if (!r)
		return;
	pd_capture_summary *c = &r->cap;
	if (c->files)
		g_ptr_array_unref(c->files);
	if (c->linktypes)
		g_array_unref(c->linktypes);
	if (c->apps)
		g_array_unref(c->apps);
	if (c->notes)
		g_array_unref(c->notes);
	if (c->errors)
		g_ptr_array_unref(c->errors);
	if (c->file_sha256)
		g_ptr_array_unref(c->file_sha256);
	if (c->file_sizes)
		g_array_unref(c->file_sizes);
	if (c->hosts)
		g_ptr_array_unref(c->hosts);
	if (r->flows)
		g_array_unref(r->flows);
	if (r->findings)
		g_ptr_array_unref(r->findings);
	pd_series_set_free(r->series);
	pd_points_free(r->points);
	g_free(r);
}

void pd_points_free(pd_points *p)
{
	if (!p)
		return;
	g_free(p->files[0]);
	g_free(p->files[1]);
	if (p->conns)
		g_array_unref(p->conns);
	g_free(p);
}

static void free_series(gpointer p)
{
	pd_flow_series *fs = p;
	if (!fs)
		return;
	if (fs->points)
		g_array_unref(fs->points);
	if (fs->rtt)
		g_array_unref(fs->rtt);
	free_series(fs->partner);
	g_free(fs);
}

void pd_series_set_free(pd_series_set *s)
{
	if (!s)
		return;
	for (guint i = 0; s->flows && i < s->flows->len; i++)
		free_series(s->flows->pdata[i]);
	if (s->flows)
		g_ptr_array_free(s->flows, TRUE);
	g_free(s->unavailable);
	g_free(s);
}

const pd_flow_series *pd_series_find(const pd_series_set *s, uint64_t flow_id)
{
	for (guint i = 0; s && s->flows && i < s->flows->len; i++) {
		const pd_flow_series *fs = s->flows->pdata[i];
		if (fs->ref.flow_id == flow_id)
			return fs;
	}
	return NULL;
}

void pd_finding_free(pd_finding *f)
{
	if (!f)
		return;
	g_free(f->detail);
	g_free(f->detail_zh);
	if (f->flows)
		g_array_unref(f->flows);
	if (f->examples)
		g_array_unref(f->examples);
	if (f->metrics)
		g_array_unref(f->metrics);
	if (f->members)
		g_ptr_array_free(f->members, TRUE);
	for (size_t i = 0; i < PD_FINDING_MAX_SETTINGS; i++) {
		g_free(f->host_fact[i]);
		g_free(f->host_fact_zh[i]);
	}
	g_free(f->host_counters);
	g_free(f->host_counters_zh);
	g_free(f);
}

static int cmp_findings(gconstpointer a, gconstpointer b)
{
	const pd_finding *fa = *(const pd_finding *const *)a;
	const pd_finding *fb = *(const pd_finding *const *)b;

	if (fa->severity != fb->severity)
		return fa->severity > fb->severity ? -1 : 1;
	if (fa->impact_s != fb->impact_s)
		return fa->impact_s > fb->impact_s ? -1 : 1;
	const char *ia = fa->def ? fa->def->id : "";
	const char *ib = fb->def ? fb->def->id : "";
	int c = strcmp(ia, ib);
	if (c)
		return c;
	if (fa->first.frame != fb->first.frame)
		return fa->first.frame < fb->first.frame ? -1 : 1;
	/* a total order: the report never depends on the order findings
	 * were made in */
	if (fa->capture_wide != fb->capture_wide)
		return fa->capture_wide ? 1 : -1;
	uint64_t la = fa->flows && fa->flows->len ? g_array_index(fa->flows, pd_flow_ref, 0).flow_id : UINT64_MAX;
	uint64_t lb = fb->flows && fb->flows->len ? g_array_index(fb->flows, pd_flow_ref, 0).flow_id : UINT64_MAX;
	return la < lb ? -1 : la > lb;
}

void pd_report_sort(pd_report *r)
{
	if (r && r->findings)
		g_ptr_array_sort(r->findings, cmp_findings);
}

const char *pd_severity_name(pd_severity s)
{
	switch (s) {
	case PD_SEV_INFO:
		return "info";
	case PD_SEV_WARNING:
		return "warning";
	case PD_SEV_ERROR:
		return "error";
	}
	return "info";
}

bool pd_severity_parse(const char *s, pd_severity *out)
{
	static const pd_severity all[] = {PD_SEV_INFO, PD_SEV_WARNING, PD_SEV_ERROR};

	if (!s)
		return false;
	for (size_t i = 0; i < G_N_ELEMENTS(all); i++) {
		if (g_ascii_strcasecmp(s, pd_severity_name(all[i])) == 0) {
			if (out)
				*out = all[i];
			return true;
		}
	}
	return false;
}

const char *pd_category_name(pd_category c)
{
	switch (c) {
	case PD_CAT_HANDSHAKE:
		return "handshake";
	case PD_CAT_TIMESTAMPS:
		return "timestamps";
	case PD_CAT_NAGLE_DELAYED_ACK:
		return "nagle-delayed-ack";
	case PD_CAT_FRAGMENTATION_PMTU:
		return "fragmentation-pmtu";
	case PD_CAT_WINDOW:
		return "window";
	case PD_CAT_LOSS:
		return "loss";
	case PD_CAT_CONNECTION_CHURN:
		return "connection-churn";
	case PD_CAT_RESETS:
		return "resets";
	case PD_CAT_CAPTURE:
		return "capture";
	case PD_CAT__COUNT:
		break;
	}
	return "unknown";
}

/* Splits t into whole seconds (floored) and 0..999999999 nanoseconds. */
static void split_time(pd_time t, int64_t *sec, int64_t *nsec)
{
	int64_t s = t / PD_NS_PER_SEC;
	int64_t n = t % PD_NS_PER_SEC;
	if (n < 0) {
		n += PD_NS_PER_SEC;
		s -= 1;
	}
	*sec = s;
	*nsec = n;
}

void pd_time_str(pd_time t, char *buf, size_t len)
{
	if (!buf || !len)
		return;
	/* Magnitude as unsigned so INT64_MIN is safe. */
	bool neg = t < 0;
	uint64_t m = neg ? (uint64_t)0 - (uint64_t)t : (uint64_t)t;
	snprintf(buf, len, "%s%" PRIu64 ".%09" PRIu64, neg ? "-" : "", m / 1000000000u,
		 m % 1000000000u);
}

void pd_time_iso(pd_time t, char *buf, size_t len)
{
	if (!buf || !len)
		return;
	int64_t sec, nsec;
	split_time(t, &sec, &nsec);
	time_t tt = (time_t)sec;
	struct tm tm;
	if (!gmtime_r(&tt, &tm)) {
		snprintf(buf, len, "invalid");
		return;
	}
	char date[32];
	strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%09" PRId64 "Z", date, nsec);
}

void pd_capture_note_(pd_capture_summary *c, const pd_text *t, ...)
{
	pd_note n;
	va_list ap;
	va_start(ap, t);
	pd_text_format(t, &n.en, &n.zh, ap);
	va_end(ap);
	g_array_append_val(c->notes, n);
}

void pd_capture_note_take(pd_capture_summary *c, char *en, char *zh)
{
	pd_note n = {en, zh};
	g_array_append_val(c->notes, n);
}

const char *pd_note_in(const pd_note *n, bool zh)
{
	return zh && n->zh && *n->zh ? n->zh : n->en;
}

const char *pd_finding_detail_in(const pd_finding *f, bool zh)
{
	if (zh && f->detail_zh && *f->detail_zh)
		return f->detail_zh;
	return f->detail;
}

const char *pd_evidence_what_in(const pd_evidence *e, bool zh, char buf[128])
{
	const char *src = zh && e->what_zh[0] ? e->what_zh : e->what;
	size_t n = zh && e->what_zh[0] ? sizeof e->what_zh : sizeof e->what;
	size_t len = strnlen(src, n);
	if (len > 127)
		len = 127;
	memcpy(buf, src, len);
	buf[len] = '\0';
	return buf;
}
