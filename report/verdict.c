/* The verdict every human-readable report opens with: the warnings and
 * errors as root causes, the one that cost the most time first, each with
 * where it happened, what it cost, how sure pcapdoc is and the first thing
 * to check or change. Shared by text, Markdown and HTML (internal.h). */
#include "report/internal.h"

#include <string.h>

static gint cmp_verdict(gconstpointer a, gconstpointer b)
{
	const pd_finding *fa = *(const pd_finding *const *)a;
	const pd_finding *fb = *(const pd_finding *const *)b;
	/* problems of the capture itself come after the network's */
	bool ca = fa->def && fa->def->category == PD_CAT_CAPTURE;
	bool cb = fb->def && fb->def->category == PD_CAT_CAPTURE;
	if (ca != cb)
		return ca ? 1 : -1;
	double ia = pd_r_finite(fa->impact_s), ib = pd_r_finite(fb->impact_s);
	if (ia != ib)
		return ia > ib ? -1 : 1;
	return 0; /* stable: the report's order (severity, then id) */
}

GPtrArray *pd_r_verdict(const pd_report *r, double *total_lost, size_t *n_info)
{
	GPtrArray *v = g_ptr_array_new();
	double lost = 0;
	size_t info = 0;
	for (guint i = 0; r->findings && i < r->findings->len; i++) {
		const pd_finding *f = r->findings->pdata[i];
		if (f->severity >= PD_SEV_WARNING) {
			g_ptr_array_add(v, (gpointer)f);
			if (f->impact_s > 0)
				lost += pd_r_finite(f->impact_s);
		} else {
			info++;
		}
	}
	g_ptr_array_sort(v, cmp_verdict); /* g_ptr_array_sort is stable */
	if (total_lost)
		*total_lost = lost;
	if (n_info)
		*n_info = info;
	return v;
}

static bool same_server(const pd_flow_ref *a, const pd_flow_ref *b)
{
	return a->server_port == b->server_port && pd_addr_equal(&a->server, &b->server);
}

static void verdict_where(GString *b, const pd_finding *f, const pd_labels *l, const char *arrow);

void pd_r_verdict_where(GString *b, const pd_finding *f, const pd_labels *l, const char *arrow)
{
	verdict_where(b, f, l, arrow);
}

void pd_r_verdict_segment(GString *b, const pd_finding *f, const pd_labels *l)
{
	if (f->segment)
		g_string_append_printf(b, "%s%s", l->sep, l == pd_labels_get(true) && f->segment_zh ? f->segment_zh : f->segment);
}

static void verdict_where(GString *b, const pd_finding *f, const pd_labels *l, const char *arrow)
{
	guint listed = f->flows ? f->flows->len : 0;
	if (!listed) {
		if (f->flow_count)
			g_string_append_printf(b, "%llu%s", (unsigned long long)f->flow_count,
					       l->u_flows);
		else
			g_string_append(b, l->whole_capture);
		return;
	}
	const pd_flow_ref *f0 = &g_array_index(f->flows, pd_flow_ref, 0);
	if (f->flow_count <= 1) {
		pd_r_endpoints(b, f0, arrow);
		return;
	}
	g_string_append_printf(b, "%llu%s%s", (unsigned long long)f->flow_count, l->u_flows, l->sep);
	/* distinct servers among the listed flows */
	guint servers = 0;
	for (guint i = 0; i < listed; i++) {
		const pd_flow_ref *fi = &g_array_index(f->flows, pd_flow_ref, i);
		bool seen = false;
		for (guint j = 0; j < i && !seen; j++)
			seen = same_server(fi, &g_array_index(f->flows, pd_flow_ref, j));
		servers += !seen;
	}
	if (servers == 1) {
		g_string_append_printf(b, "%s ", l->server);
		pd_r_endpoint(b, &f0->server, f0->server_port);
	} else {
		g_string_append_printf(b, "%u%s%s", servers, listed < f->flow_count ? "+" : "",
				       l->servers_post);
	}
}

void pd_r_verdict_cost(GString *b, const pd_finding *f, const pd_labels *l)
{
	if (f->impact_s > 0) {
		g_string_append(b, l->lost_pre);
		pd_labels_seconds(b, l, f->impact_s);
		g_string_append(b, l->lost_post);
	} else {
		g_string_append_printf(b, "%s%llu%s", l->occ_pre, (unsigned long long)f->occurrences,
				       pd_labels_occurrences(l, f->occurrences));
	}
}

void pd_r_confidence(GString *b, const pd_finding *f, const pd_labels *l)
{
	double c = pd_r_finite(f->confidence);
	c = c < 0 ? 0 : c > 1 ? 1 : c;
	g_string_append_printf(b, "%s %.0f%%", l->confidence, c * 100.0);
	if (pd_r_host_confirmed(f))
		g_string_append(b, l == pd_labels_get(true) ? "，已由主机计数器证实" : ", confirmed by host counters");
}

const pd_setting *pd_r_first_setting(const pd_finding *f, const char **name)
{
	const char *names[PD_FINDING_MAX_SETTINGS + PD_DEF_MAX_SETTINGS];
	size_t n = pd_r_settings(f, names);
	*name = n ? names[0] : NULL;
	return n ? pd_kb_find(names[0]) : NULL;
}
