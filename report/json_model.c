/* The JSON document: the one machine-readable form of a report, used by
 * --format json, baselines and diffs. Key order is fixed, times are
 * strings, every string that could come from a packet or the command line
 * is passed through pd_escape_text (so the document is valid UTF-8 without
 * control characters), and numbers are finite: the same report always
 * prints to the same bytes. docs/report.schema.json describes it. */
#include "report/internal.h"
#include "dissect/addr.h"
#include "knowledge/counters.h"

#include <pcap/pcap.h>
#include <string.h>

static cJSON *safe_string(const char *s)
{
	GString *b = g_string_new(NULL);
	pd_escape_text(b, s ? s : "");
	cJSON *j = cJSON_CreateString(b->str);
	g_string_free(b, TRUE);
	return j;
}

/* A fixed char[] that may lack its terminator. */
static cJSON *safe_fixed(const char *a, size_t n)
{
	char *tmp = g_strndup(a, n);
	cJSON *j = safe_string(tmp);
	g_free(tmp);
	return j;
}

static void add_num(cJSON *o, const char *k, double v)
{
	cJSON_AddItemToObject(o, k, cJSON_CreateNumber(pd_r_finite(v)));
}

static void add_u64(cJSON *o, const char *k, uint64_t v)
{
	cJSON_AddItemToObject(o, k, cJSON_CreateNumber((double)v));
}

static void add_str_or_null(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddItemToObject(o, k, cJSON_CreateString(v));
	else
		cJSON_AddItemToObject(o, k, cJSON_CreateNull());
}

static void add_time(cJSON *o, const char *k, pd_time t)
{
	char buf[PD_TIME_STRLEN];
	pd_time_str(t, buf, sizeof buf);
	cJSON_AddItemToObject(o, k, cJSON_CreateString(buf));
}

static void add_time_iso(cJSON *o, const char *k, pd_time t)
{
	char buf[PD_TIME_STRLEN];
	pd_time_iso(t, buf, sizeof buf);
	cJSON_AddItemToObject(o, k, cJSON_CreateString(buf));
}

static cJSON *endpoint(const pd_addr *a, uint16_t port)
{
	char ip[64];
	pd_addr_str(a, ip, sizeof ip);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "ip", cJSON_CreateString(ip));
	add_u64(o, "port", port);
	return o;
}

static void add_flow_ref(cJSON *o, const pd_flow_ref *f)
{
	char tmp[8];
	add_u64(o, "flow_id", f->flow_id);
	cJSON_AddItemToObject(o, "proto",
			      cJSON_CreateString(pd_r_proto_name(f->proto, tmp, sizeof tmp)));
	cJSON_AddItemToObject(o, "client", endpoint(&f->client, f->client_port));
	cJSON_AddItemToObject(o, "server", endpoint(&f->server, f->server_port));
	cJSON_AddItemToObject(o, "application", safe_fixed(f->app, sizeof f->app));
	cJSON_AddItemToObject(o, "community_id",
			      safe_fixed(f->community_id, sizeof f->community_id));
}

static cJSON *evidence(const pd_evidence *e, bool with_what)
{
	cJSON *o = cJSON_CreateObject();
	add_u64(o, "frame", e->frame);
	add_time(o, "ts", e->ts);
	if (with_what) {
		cJSON_AddItemToObject(o, "what", safe_fixed(e->what, sizeof e->what));
		if (e->what_zh[0] && strncmp(e->what_zh, e->what, sizeof e->what))
			cJSON_AddItemToObject(o, "what_zh", safe_fixed(e->what_zh, sizeof e->what_zh));
	}
	return o;
}

static cJSON *setting_json(const char *name)
{
	const pd_setting *s = pd_kb_find(name);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "name", safe_string(name));
	add_str_or_null(o, "kind", s ? pd_kb_kind_name(s->kind) : NULL);
	add_str_or_null(o, "side", s ? pd_kb_side_name(s->side) : NULL);
	add_str_or_null(o, "default", s ? s->default_value : NULL);
	add_str_or_null(o, "check", s ? s->check : NULL);
	/* the same in Chinese: equal to check when the check is only commands */
	add_str_or_null(o, "check_zh", pd_kb_check(s, true));
	add_str_or_null(o, "change", s ? s->change_en : NULL);
	add_str_or_null(o, "caveat", s ? s->caveat_en : NULL);
	add_str_or_null(o, "removed_in", s ? s->removed_in : NULL);
	return o;
}

static cJSON *metrics_json(const pd_finding *f)
{
	cJSON *metrics = cJSON_CreateObject();
	for (guint i = 0; f->metrics && i < f->metrics->len; i++) {
		const pd_metric *m = &g_array_index(f->metrics, pd_metric, i);
		if (!m->key)
			continue;
		cJSON *mo = cJSON_CreateObject();
		add_num(mo, "value", m->value);
		cJSON_AddItemToObject(mo, "unit", cJSON_CreateString(m->unit ? m->unit : ""));
		/* a repeated key keeps its first position and its latest value */
		if (cJSON_GetObjectItemCaseSensitive(metrics, m->key))
			cJSON_ReplaceItemInObjectCaseSensitive(metrics, m->key, mo);
		else
			cJSON_AddItemToObject(metrics, m->key, mo);
	}
	return metrics;
}

static cJSON *evidence_json(const pd_finding *f)
{
	cJSON *ev = cJSON_CreateObject();
	cJSON_AddItemToObject(ev, "first", evidence(&f->first, false));
	cJSON_AddItemToObject(ev, "last", evidence(&f->last, false));
	cJSON *ex = cJSON_AddArrayToObject(ev, "examples");
	for (guint i = 0; f->examples && i < f->examples->len; i++)
		cJSON_AddItemToArray(ex, evidence(&g_array_index(f->examples, pd_evidence, i), true));
	return ev;
}

/* One flow's part of a problem found on several: its own facts, without
 * what the finding says once for all (texts, settings in full). */
static cJSON *member_json(const pd_finding *m)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *fo = cJSON_AddObjectToObject(o, "flow");
	if (m->flows && m->flows->len)
		add_flow_ref(fo, &g_array_index(m->flows, pd_flow_ref, 0));
	cJSON_AddItemToObject(o, "severity", cJSON_CreateString(pd_severity_name(m->severity)));
	double conf = pd_r_finite(m->confidence);
	add_num(o, "confidence", conf < 0 ? 0 : conf > 1 ? 1 : conf);
	cJSON_AddItemToObject(o, "detail", safe_string(m->detail));
	if (m->detail_zh && m->detail && strcmp(m->detail_zh, m->detail))
		cJSON_AddItemToObject(o, "detail_zh", safe_string(m->detail_zh));
	add_u64(o, "occurrences", m->occurrences);
	cJSON_AddItemToObject(o, "evidence", evidence_json(m));
	cJSON_AddItemToObject(o, "metrics", metrics_json(m));
	add_num(o, "impact_s", m->impact_s < 0 ? 0 : m->impact_s);
	cJSON *settings = cJSON_AddArrayToObject(o, "settings");
	const char *names[PD_FINDING_MAX_SETTINGS + PD_DEF_MAX_SETTINGS];
	size_t n = pd_r_settings(m, names);
	for (size_t i = 0; i < n; i++) {
		cJSON *so = cJSON_CreateObject();
		cJSON_AddItemToObject(so, "name", safe_string(names[i]));
		cJSON_AddItemToArray(settings, so);
	}
	return o;
}

static cJSON *finding_json(const pd_finding *f)
{
	const pd_finding_def *d = f->def;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "id", cJSON_CreateString(d ? d->id : "unknown"));
	cJSON_AddItemToObject(o, "category",
			      cJSON_CreateString(d ? pd_category_name(d->category) : "unknown"));
	cJSON_AddItemToObject(o, "severity", cJSON_CreateString(pd_severity_name(f->severity)));
	double conf = pd_r_finite(f->confidence);
	add_num(o, "confidence", conf < 0 ? 0 : conf > 1 ? 1 : conf);
	cJSON_AddItemToObject(o, "title", cJSON_CreateString(pd_r_title(d, false)));
	cJSON_AddItemToObject(o, "explanation", cJSON_CreateString(pd_r_explain(d, false)));
	cJSON_AddItemToObject(o, "detail", safe_string(f->detail));
	if (f->detail_zh && f->detail && strcmp(f->detail_zh, f->detail))
		cJSON_AddItemToObject(o, "detail_zh", safe_string(f->detail_zh));
	cJSON_AddItemToObject(o, "scope",
			      cJSON_CreateString(f->one_server ? "server" : f->capture_wide ? "capture" : "flow"));
	add_str_or_null(o, "explained_by", f->explained_by);
	cJSON *cons = cJSON_AddArrayToObject(o, "consequences");
	for (size_t i = 0; i < f->n_consequences; i++)
		cJSON_AddItemToArray(cons, cJSON_CreateString(f->consequences[i]));
	add_u64(o, "flow_count", f->flow_count);

	cJSON *flows = cJSON_AddArrayToObject(o, "flows");
	for (guint i = 0; f->flows && i < f->flows->len; i++) {
		cJSON *fo = cJSON_CreateObject();
		add_flow_ref(fo, &g_array_index(f->flows, pd_flow_ref, i));
		cJSON_AddItemToArray(flows, fo);
	}
	add_u64(o, "occurrences", f->occurrences);
	cJSON_AddItemToObject(o, "evidence", evidence_json(f));
	cJSON_AddItemToObject(o, "metrics", metrics_json(f));
	add_num(o, "impact_s", f->impact_s < 0 ? 0 : f->impact_s);

	cJSON *settings = cJSON_AddArrayToObject(o, "settings");
	const char *names[PD_FINDING_MAX_SETTINGS + PD_DEF_MAX_SETTINGS];
	size_t n = pd_r_settings(f, names);
	for (size_t i = 0; i < n; i++) {
		cJSON *so = setting_json(names[i]);
		/* what the --host snapshots said about it */
		const char *fact_en = NULL, *fact_zh = NULL;
		pd_host_verdict v = pd_r_host_verdict(f, names[i], &fact_en, &fact_zh);
		if (f->host_source) {
			cJSON *h = cJSON_AddObjectToObject(so, "host");
			cJSON_AddItemToObject(h, "verdict",
					      v == PD_HV_NONE ? cJSON_CreateNull()
							      : cJSON_CreateString(pd_host_verdict_name(v)));
			add_str_or_null(h, "fact", fact_en);
			add_str_or_null(h, "fact_zh", fact_zh);
		}
		cJSON_AddItemToArray(settings, so);
	}

	cJSON *alts = cJSON_AddArrayToObject(o, "alternatives");
	for (size_t i = 0; d && i < PD_DEF_MAX_ALTS && d->alternatives_en[i]; i++)
		cJSON_AddItemToArray(alts, cJSON_CreateString(d->alternatives_en[i]));

	/* kernel counters that confirm the finding on the host (catalogue) */
	cJSON *ctrs = cJSON_AddArrayToObject(o, "counters");
	for (size_t i = 0; d && i < PD_DEF_MAX_COUNTERS && d->counters[i]; i++) {
		const pd_counter *c = pd_counter_find(d->counters[i]);
		cJSON *co = cJSON_CreateObject();
		cJSON_AddItemToObject(co, "name", cJSON_CreateString(d->counters[i]));
		add_str_or_null(co, "meaning", c ? c->meaning_en : NULL);
		add_str_or_null(co, "since", c ? c->since : NULL);
		cJSON_AddItemToArray(ctrs, co);
	}
	cJSON_AddItemToObject(o, "known", cJSON_CreateBool(f->known));
	cJSON *members = cJSON_AddArrayToObject(o, "members");
	for (guint i = 0; f->members && i < f->members->len; i++)
		cJSON_AddItemToArray(members, member_json(g_ptr_array_index(f->members, i)));
	/* only with --host: the snapshot that judged it, the counters that moved */
	if (f->host_source || f->host_counters) {
		cJSON *h = cJSON_AddObjectToObject(o, "host");
		add_str_or_null(h, "source", f->host_source);
		cJSON_AddItemToObject(h, "confirmed", cJSON_CreateBool(pd_r_host_confirmed(f)));
		add_str_or_null(h, "counters", f->host_counters);
		add_str_or_null(h, "counters_zh", f->host_counters_zh);
	}
	return o;
}

static cJSON *strings_json(const GPtrArray *a)
{
	cJSON *arr = cJSON_CreateArray();
	for (guint i = 0; a && i < a->len; i++)
		cJSON_AddItemToArray(arr, safe_string(a->pdata[i]));
	return arr;
}

static cJSON *capture_json(const pd_capture_summary *c)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "files", strings_json(c->files));

	cJSON *lts = cJSON_AddArrayToObject(o, "link_types");
	for (guint i = 0; c->linktypes && i < c->linktypes->len; i++) {
		const pd_linktype_count *l = &g_array_index(c->linktypes, pd_linktype_count, i);
		char ltbuf[32];
		const char *name = pd_r_linktype_name(l->linktype, ltbuf, sizeof(ltbuf));
		cJSON *lo = cJSON_CreateObject();
		cJSON_AddItemToObject(lo, "linktype", cJSON_CreateNumber(l->linktype));
		cJSON_AddItemToObject(lo, "name", cJSON_CreateString(name ? name : "unknown"));
		add_u64(lo, "packets", l->packets);
		cJSON_AddItemToArray(lts, lo);
	}
	add_u64(o, "packets", c->packets);
	add_u64(o, "wire_bytes", c->wire_bytes);
	add_u64(o, "captured_bytes", c->captured_bytes);
	add_time(o, "first_ts", c->first_ts);
	add_time(o, "last_ts", c->last_ts);
	add_time_iso(o, "first_ts_iso", c->first_ts);
	add_time_iso(o, "last_ts_iso", c->last_ts);
	double dur = c->packets && c->last_ts > c->first_ts
			     ? (double)(c->last_ts - c->first_ts) / 1e9
			     : 0.0;
	add_num(o, "duration_s", dur);
	add_u64(o, "snaplen", c->snaplen);
	add_u64(o, "snap_truncated", c->snap_truncated);
	cJSON *mal = cJSON_AddObjectToObject(o, "malformed");
	for (int m = 1; m < PD_MAL__COUNT; m++)
		if (c->malformed[m])
			add_u64(mal, pd_malformed_name((pd_malformed)m), c->malformed[m]);
	add_u64(o, "not_ip", c->not_ip);
	add_u64(o, "unsupported_link", c->unsupported_link);
	add_u64(o, "ip_truncated", c->ip_truncated);
	add_u64(o, "ipv4", c->ipv4);
	add_u64(o, "ipv6", c->ipv6);
	add_u64(o, "tcp", c->tcp);
	add_u64(o, "udp", c->udp);
	add_u64(o, "icmp", c->icmp);
	add_u64(o, "other_l4", c->other_l4);
	add_u64(o, "fragments", c->fragments);
	cJSON *fl = cJSON_AddObjectToObject(o, "flows");
	add_u64(fl, "tcp", c->tcp_flows);
	add_u64(fl, "udp", c->udp_flows);
	add_u64(fl, "fragments_only", c->other_flows);
	add_u64(fl, "evicted", c->flows_evicted);
	cJSON *apps = cJSON_AddArrayToObject(o, "applications");
	for (guint i = 0; c->apps && i < c->apps->len; i++) {
		const pd_app_count *a = &g_array_index(c->apps, pd_app_count, i);
		cJSON *ao = cJSON_CreateObject();
		cJSON_AddItemToObject(ao, "name", safe_fixed(a->name, sizeof a->name));
		add_u64(ao, "flows", a->flows);
		cJSON_AddItemToArray(apps, ao);
	}
	cJSON_AddItemToObject(o, "input_truncated", cJSON_CreateBool(c->input_truncated));
	cJSON *notes = cJSON_AddArrayToObject(o, "notes");
	for (guint i = 0; c->notes && i < c->notes->len; i++)
		cJSON_AddItemToArray(notes, safe_string(g_array_index(c->notes, pd_note, i).en));
	cJSON_AddItemToObject(o, "errors", strings_json(c->errors));
	/* the notes in Chinese, parallel to notes; only when there are notes */
	if (c->notes && c->notes->len) {
		cJSON *zh = cJSON_AddArrayToObject(o, "notes_zh");
		for (guint i = 0; i < c->notes->len; i++)
			cJSON_AddItemToArray(zh, safe_string(pd_note_in(&g_array_index(c->notes, pd_note, i), true)));
	}
	/* the --host snapshots given, used or not (the notes say why not) */
	if (c->hosts)
		cJSON_AddItemToObject(o, "hosts", strings_json(c->hosts));
	return o;
}

cJSON *pd_flow_row_to_json(const pd_flow_row *row)
{
	cJSON *o = cJSON_CreateObject();
	add_flow_ref(o, &row->ref);
	add_u64(o, "first_frame", row->first_frame);
	add_u64(o, "last_frame", row->last_frame);
	add_time(o, "first_ts", row->first_ts);
	add_time(o, "last_ts", row->last_ts);
	cJSON *p = cJSON_AddObjectToObject(o, "packets");
	add_u64(p, "client_to_server", row->pkts[0]);
	add_u64(p, "server_to_client", row->pkts[1]);
	cJSON *b = cJSON_AddObjectToObject(o, "bytes");
	add_u64(b, "client_to_server", row->bytes[0]);
	add_u64(b, "server_to_client", row->bytes[1]);
	if (row->hs_rtt >= 0)
		add_num(o, "handshake_rtt_s", (double)row->hs_rtt / 1e9);
	else
		cJSON_AddItemToObject(o, "handshake_rtt_s", cJSON_CreateNull());
	add_u64(o, "retransmissions", row->retrans);
	add_u64(o, "out_of_order", row->ooo);
	add_u64(o, "dup_acks", row->dupacks);
	add_u64(o, "zero_windows", row->zero_win);
	cJSON_AddItemToObject(o, "state", cJSON_CreateString(row->state ? row->state : "unknown"));
	return o;
}

static cJSON *points_dir_json(const pd_points_dir *d)
{
	cJSON *o = cJSON_CreateObject();
	add_u64(o, "both", d->both);
	add_u64(o, "only_upstream", d->only_up);
	add_u64(o, "only_downstream", d->only_down);
	add_u64(o, "outside", d->outside);
	add_u64(o, "lost_syn", d->lost_syn);
	add_u64(o, "lost_data", d->lost_data);
	add_u64(o, "reordered", d->reordered);
	cJSON *lf = cJSON_AddArrayToObject(o, "lost_frames");
	for (uint32_t i = 0; i < d->n_lost_frames; i++)
		cJSON_AddItemToArray(lf, cJSON_CreateNumber((double)d->lost_frames[i]));
	cJSON *ls = cJSON_AddArrayToObject(o, "lost_syn_frames");
	for (uint32_t i = 0; i < d->n_lost_syn_frames; i++)
		cJSON_AddItemToArray(ls, cJSON_CreateNumber((double)d->lost_syn_frames[i]));
	if (d->delay_n) {
		cJSON *dl = cJSON_AddObjectToObject(o, "one_way_delay_ms");
		add_u64(dl, "n", d->delay_n);
		add_num(dl, "min", d->delay_min_ms);
		add_num(dl, "p50", d->delay_p50_ms);
		add_num(dl, "p95", d->delay_p95_ms);
		add_num(dl, "max", d->delay_max_ms);
		add_num(dl, "first_quarter", d->delay_early_ms);
		add_num(dl, "last_quarter", d->delay_late_ms);
	} else {
		cJSON_AddItemToObject(o, "one_way_delay_ms", cJSON_CreateNull());
	}
	if (d->ttl_up >= 0) {
		cJSON *t = cJSON_AddArrayToObject(o, "ttl");
		cJSON_AddItemToArray(t, cJSON_CreateNumber(d->ttl_up));
		cJSON_AddItemToArray(t, cJSON_CreateNumber(d->ttl_down));
	} else {
		cJSON_AddItemToObject(o, "ttl", cJSON_CreateNull());
	}
	add_u64(o, "dscp_changed", d->dscp_changed);
	add_u64(o, "ecn_changed", d->ecn_changed);
	add_u64(o, "ece_cwr_changed", d->ece_cwr_changed);
	return o;
}

static cJSON *int_pair(const int v[2])
{
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; i < 2; i++)
		cJSON_AddItemToArray(a, v[i] >= 0 ? cJSON_CreateNumber(v[i]) : cJSON_CreateNull());
	return a;
}

#define PD_JSON_POINTS_CONNS 256

static cJSON *points_json(const pd_points *p)
{
	static const char *const verdicts[] = {"two-points", "rotation", "duplicate", "disjoint"};
	cJSON *o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "verdict", cJSON_CreateString(verdicts[p->verdict]));
	cJSON_AddItemToObject(o, "forced", cJSON_CreateBool(p->forced));
	cJSON *files = cJSON_AddArrayToObject(o, "files");
	for (int i = 0; i < 2; i++)
		cJSON_AddItemToArray(files, safe_string(p->files[i] ? p->files[i] : ""));
	if (p->client_side >= 0)
		add_u64(o, "client_side", (uint64_t)p->client_side);
	else
		cJSON_AddItemToObject(o, "client_side", cJSON_CreateNull());
	add_u64(o, "analysed", (uint64_t)p->analysed);
	add_num(o, "clock_offset_s", p->offset_s);
	add_num(o, "clock_uncertainty_s", p->uncertainty_s);
	if (p->drift_known) {
		add_num(o, "clock_drift_ppm", p->drift_ppm);
		add_num(o, "clock_drift_uncertainty_ppm", p->drift_uncertainty_ppm);
	} else {
		cJSON_AddItemToObject(o, "clock_drift_ppm", cJSON_CreateNull());
		cJSON_AddItemToObject(o, "clock_drift_uncertainty_ppm", cJSON_CreateNull());
	}
	add_u64(o, "offset_samples", p->samples);
	cJSON *nc = cJSON_AddArrayToObject(o, "connections_read");
	cJSON *np = cJSON_AddArrayToObject(o, "packets_read");
	cJSON *tr = cJSON_AddArrayToObject(o, "truncated");
	for (int i = 0; i < 2; i++) {
		cJSON_AddItemToArray(nc, cJSON_CreateNumber((double)p->n_conns[i]));
		cJSON_AddItemToArray(np, cJSON_CreateNumber((double)p->packets[i]));
		cJSON_AddItemToArray(tr, cJSON_CreateBool(p->truncated[i]));
	}
	add_u64(o, "paired", p->paired);
	add_u64(o, "translated", p->translated);
	cJSON_AddItemToObject(o, "capped", cJSON_CreateBool(p->capped));
	cJSON *dirs = cJSON_AddObjectToObject(o, "directions");
	cJSON_AddItemToObject(dirs, "client_to_server", points_dir_json(&p->total[0]));
	cJSON_AddItemToObject(dirs, "server_to_client", points_dir_json(&p->total[1]));
	cJSON *conns = cJSON_AddArrayToObject(o, "connections");
	guint n = p->conns ? p->conns->len : 0;
	for (guint i = 0; i < n && i < PD_JSON_POINTS_CONNS; i++) {
		const pd_points_conn *c = &g_array_index(p->conns, pd_points_conn, i);
		cJSON *co = cJSON_CreateObject();
		cJSON *cl = cJSON_AddArrayToObject(co, "client");
		cJSON *sv = cJSON_AddArrayToObject(co, "server");
		cJSON *ff = cJSON_AddArrayToObject(co, "first_frame");
		cJSON *so = cJSON_AddArrayToObject(co, "seq_offset");
		for (int k = 0; k < 2; k++) {
			cJSON_AddItemToArray(cl, endpoint(&c->client[k], c->cport[k]));
			cJSON_AddItemToArray(sv, endpoint(&c->server[k], c->sport[k]));
			cJSON_AddItemToArray(ff, cJSON_CreateNumber((double)c->first_frame[k]));
			cJSON_AddItemToArray(so, c->seq_known[k] ? cJSON_CreateNumber(c->seq_offset[k]) : cJSON_CreateNull());
		}
		cJSON_AddItemToObject(co, "translated", cJSON_CreateBool(c->translated));
		cJSON_AddItemToObject(co, "syn_mss", int_pair(c->mss[0]));
		cJSON_AddItemToObject(co, "synack_mss", int_pair(c->mss[1]));
		cJSON_AddItemToObject(co, "syn_wscale", int_pair(c->wscale[0]));
		cJSON_AddItemToObject(co, "synack_wscale", int_pair(c->wscale[1]));
		cJSON *cd = cJSON_AddObjectToObject(co, "directions");
		cJSON_AddItemToObject(cd, "client_to_server", points_dir_json(&c->dir[0]));
		cJSON_AddItemToObject(cd, "server_to_client", points_dir_json(&c->dir[1]));
		cJSON_AddItemToArray(conns, co);
	}
	add_u64(o, "connections_omitted", n > PD_JSON_POINTS_CONNS ? n - PD_JSON_POINTS_CONNS : 0);
	return o;
}

cJSON *pd_report_to_json(const pd_report *r, const char *version)
{
	return pd_report_to_json_rows(r, version, true);
}

cJSON *pd_report_to_json_rows(const pd_report *r, const char *version, bool rows)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddItemToObject(doc, "schema_version", cJSON_CreateString(PD_SCHEMA_VERSION));
	cJSON *tool = cJSON_AddObjectToObject(doc, "tool");
	cJSON_AddItemToObject(tool, "name", cJSON_CreateString("pcapdoc"));
	cJSON_AddItemToObject(tool, "version", safe_string(version ? version : "unknown"));
	cJSON_AddItemToObject(doc, "lang", cJSON_CreateString("en"));
	cJSON_AddItemToObject(doc, "capture", capture_json(&r->cap));
	if (r->points)
		cJSON_AddItemToObject(doc, "points", points_json(r->points));

	cJSON *findings = cJSON_AddArrayToObject(doc, "findings");
	for (guint i = 0; r->findings && i < r->findings->len; i++)
		cJSON_AddItemToArray(findings, finding_json(r->findings->pdata[i]));

	if (r->flows) {
		cJSON *flows = cJSON_AddArrayToObject(doc, "flows");
		for (guint i = 0; rows && i < r->flows->len; i++)
			cJSON_AddItemToArray(flows,
					     pd_flow_row_to_json(&g_array_index(r->flows, pd_flow_row, i)));
		add_u64(doc, "flows_omitted", r->flows_omitted);
	}

	uint64_t counts[3];
	pd_r_count(r, counts);
	cJSON *summary = cJSON_AddObjectToObject(doc, "summary");
	add_u64(summary, "findings", r->findings ? r->findings->len : 0);
	cJSON *by = cJSON_AddObjectToObject(summary, "findings_by_severity");
	add_u64(by, "info", counts[PD_SEV_INFO]);
	add_u64(by, "warning", counts[PD_SEV_WARNING]);
	add_u64(by, "error", counts[PD_SEV_ERROR]);
	return doc;
}
