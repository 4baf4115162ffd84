/* --format markdown: a report to paste into a ticket or a wiki page.
 * Summary table, findings with evidence, per-flow details in <details>
 * blocks. Catalogue and knowledge-base prose is ours and goes in as is;
 * every string derived from packets or the command line is escaped with
 * pd_escape_markdown (or HTML-escaped inside raw HTML). */
#include "report/internal.h"

#include <pcap/pcap.h>
#include <string.h>

static void md_esc_fixed(GString *b, const char *a, size_t n)
{
	char *t = g_strndup(a, n);
	pd_escape_markdown(b, t);
	g_free(t);
}

static void row2(GString *b, const char *k, const char *v)
{
	g_string_append_printf(b, "| %s | %s |\n", k, v);
}

static void render_capture(GString *o, const pd_labels *l, bool zh, const pd_capture_summary *c)
{
	GString *v = g_string_new(NULL);
	char t[PD_TIME_STRLEN];
	g_string_append_printf(o, "## %s\n\n| | |\n|---|---|\n", l->capture);

	for (guint i = 0; c->files && i < c->files->len; i++) {
		if (i)
			g_string_append(v, ", ");
		pd_escape_markdown(v, c->files->pdata[i]);
	}
	row2(o, l->files, v->str);
	g_string_printf(v, "%llu (%llu%s)", (unsigned long long)c->packets,
			(unsigned long long)c->wire_bytes, l->u_bytes);
	row2(o, l->packets, v->str);
	if (c->packets) {
		pd_time_iso(c->first_ts, t, sizeof t);
		row2(o, l->start, t);
		double dur = c->last_ts > c->first_ts ? (double)(c->last_ts - c->first_ts) / 1e9 : 0;
		g_string_truncate(v, 0);
		pd_labels_seconds(v, l, dur);
		row2(o, l->duration, v->str);
	}
	g_string_truncate(v, 0);
	for (guint i = 0; c->linktypes && i < c->linktypes->len; i++) {
		const pd_linktype_count *lt = &g_array_index(c->linktypes, pd_linktype_count, i);
		char ltbuf[32];
			const char *name = pd_r_linktype_name(lt->linktype, ltbuf, sizeof(ltbuf));
		g_string_append_printf(v, "%s%s %llu", i ? ", " : "", name,
				       (unsigned long long)lt->packets);
	}
	if (v->len)
		row2(o, l->link_types, v->str);
	g_string_printf(v, "IPv4 %llu, IPv6 %llu, TCP %llu, UDP %llu, ICMP %llu, %s %llu",
			(unsigned long long)c->ipv4, (unsigned long long)c->ipv6,
			(unsigned long long)c->tcp, (unsigned long long)c->udp,
			(unsigned long long)c->icmp, l->fragments, (unsigned long long)c->fragments);
	row2(o, l->protocols, v->str);
	g_string_printf(v, "TCP %llu, UDP %llu", (unsigned long long)c->tcp_flows,
			(unsigned long long)c->udp_flows);
	row2(o, l->flows, v->str);
	g_string_truncate(v, 0);
	for (guint i = 0; c->apps && i < c->apps->len; i++) {
		const pd_app_count *a = &g_array_index(c->apps, pd_app_count, i);
		if (i)
			g_string_append(v, ", ");
		md_esc_fixed(v, a->name, sizeof a->name);
		g_string_append_printf(v, " %llu", (unsigned long long)a->flows);
	}
	if (v->len)
		row2(o, l->apps, v->str);
	g_string_printf(v, "%u (%llu %s)", c->snaplen, (unsigned long long)c->snap_truncated,
			l->truncated_frames);
	row2(o, l->snaplen, v->str);
	g_string_truncate(v, 0);
	for (int m = 1; m < PD_MAL__COUNT; m++)
		if (c->malformed[m])
			g_string_append_printf(v, "%s%s %llu", v->len ? ", " : "",
					       pd_malformed_name((pd_malformed)m),
					       (unsigned long long)c->malformed[m]);
	if (v->len)
		row2(o, l->malformed, v->str);
	g_string_append_c(o, '\n');

	if (c->input_truncated)
		g_string_append_printf(o, "- %s\n", l->input_truncated);
	for (guint i = 0; c->notes && i < c->notes->len; i++) {
		g_string_append_printf(o, "- %s%s", l->notes, l->colon);
		pd_escape_markdown(o, pd_note_in(&g_array_index(c->notes, pd_note, i), zh));
		g_string_append_c(o, '\n');
	}
	for (guint i = 0; c->errors && i < c->errors->len; i++) {
		g_string_append_printf(o, "- %s%s", l->errors, l->colon);
		pd_escape_markdown(o, c->errors->pdata[i]);
		g_string_append_c(o, '\n');
	}
	if (c->input_truncated || (c->notes && c->notes->len) || (c->errors && c->errors->len))
		g_string_append_c(o, '\n');
	g_string_free(v, TRUE);
}

/* The verdict: one numbered entry per root cause, most time lost first. */
static void render_verdict(GString *o, const pd_labels *l, bool zh, const pd_report *r)
{
	double lost = 0;
	size_t n_info = 0;
	GPtrArray *v = pd_r_verdict(r, &lost, &n_info);
	const char *sep = zh ? "；" : "; ";
	g_string_append_printf(o, "## %s\n\n", l->verdict);
	if (!v->len) {
		if (n_info)
			g_string_append_printf(o, "**%s%zu%s**\n\n", l->no_problems_info_pre, n_info,
					       l->no_problems_info_post);
		else
			g_string_append_printf(o, "**%s**\n\n", l->no_findings);
		g_ptr_array_free(v, TRUE);
		return;
	}
	g_string_append_printf(o, "%s%u%s", l->problems_pre, v->len,
			       v->len == 1 ? l->problems_post_one : l->problems_post);
	if (lost > 0) {
		g_string_append_printf(o, "%s%s", sep, l->lost_total_pre);
		pd_labels_seconds(o, l, lost);
		g_string_append(o, l->lost_total_post);
	}
	g_string_append(o, zh ? "。\n\n" : ".\n\n");
	for (guint i = 0; i < v->len; i++) {
		const pd_finding *f = v->pdata[i];
		unsigned sev = (unsigned)f->severity <= PD_SEV_ERROR ? (unsigned)f->severity : 0;
		g_string_append_printf(o, "%u. **%s · %s**%s", i + 1, l->sev_lower[sev],
				       pd_r_title(f->def, zh), zh ? "：" : ": ");
		GString *w = g_string_new(NULL);
		pd_r_verdict_where(w, f, l, " → ");
		g_string_append_printf(o, "`%s`", w->str);
		g_string_truncate(w, 0);
		pd_r_verdict_segment(w, f, l);
		pd_escape_markdown(o, w->str);
		g_string_append(o, sep);
		g_string_free(w, TRUE);
		pd_r_verdict_cost(o, f, l);
		g_string_append(o, sep);
		pd_r_confidence(o, f, l);
		const char *name = NULL;
		const pd_setting *s = pd_r_first_setting(f, &name);
		if (name) {
			g_string_append_printf(o, "  \n   %s%s**", l->first_step, zh ? "：" : ": ");
			pd_escape_markdown(o, name);
			g_string_append(o, "**");
			if (s)
				g_string_append_printf(o, "%s%s `%s`%s%s%s%s", zh ? " —— " : " — ",
						       l->check_cmd, pd_kb_check(s, zh), sep, l->change_cmd,
						       zh ? "：" : ": ", zh ? s->change_zh : s->change_en);
		}
		g_string_append_c(o, '\n');
	}
	g_string_append_c(o, '\n');
	g_ptr_array_free(v, TRUE);
}

static void metric_md(GString *o, const pd_labels *l, const pd_metric *m)
{
	double v = pd_r_finite(m->value);
	g_string_append_printf(o, "- `%s`: ", m->key);
	if (v == (double)(long long)v && v < 1e15 && v > -1e15)
		g_string_append_printf(o, "%lld", (long long)v);
	else
		g_string_append_printf(o, "%.6g", v);
	const char *u = pd_labels_unit(l, m->unit);
	if (u)
		g_string_append(o, u);
	else
		g_string_append_printf(o, " %s", m->unit);
	g_string_append_c(o, '\n');
}

static void evidence_md(GString *o, const pd_evidence *e)
{
	char iso[PD_TIME_STRLEN];
	pd_time_iso(e->ts, iso, sizeof iso);
	g_string_append_printf(o, "#%llu (%s)", (unsigned long long)e->frame, iso);
}

static void render_finding(GString *o, const pd_labels *l, bool zh, bool verbose, size_t n,
			   const pd_finding *f)
{
	const pd_finding_def *d = f->def;
	unsigned sev = (unsigned)f->severity <= PD_SEV_ERROR ? (unsigned)f->severity : 0;

	g_string_append_printf(o, "### %zu. %s: %s\n\n", n, l->sev_lower[sev], pd_r_title(d, zh));
	g_string_append_printf(o, "`%s` · %s · %s %.2f", d ? d->id : "unknown",
			       d ? pd_category_name(d->category) : "unknown", l->confidence,
			       pd_r_finite(f->confidence));
	if (f->impact_s > 0) {
		g_string_append_printf(o, " · %s ", l->time_lost);
		pd_labels_seconds(o, l, f->impact_s);
	}
	g_string_append_printf(o, " · %s%llu%s", l->occ_pre, (unsigned long long)f->occurrences,
			       pd_labels_occurrences(l, f->occurrences));
	if (f->known)
		g_string_append_printf(o, " · %s", l->known);
	if (f->explained_by)
		g_string_append_printf(o, " · %s `%s`", l->explained_by, f->explained_by);
	g_string_append_printf(o, "\n\n%s\n\n", pd_r_explain(d, zh));
	if (f->n_consequences) {
		g_string_append_printf(o, "%s%s", l->explains, l->colon);
		for (size_t i = 0; i < f->n_consequences; i++)
			g_string_append_printf(o, "%s`%s`", i ? ", " : "", f->consequences[i]);
		g_string_append(o, "\n\n");
	}

	bool has_metrics = f->metrics && f->metrics->len;
	const char *detail = pd_finding_detail_in(f, zh);
	if ((detail && *detail) || has_metrics) {
		g_string_append_printf(o, "**%s:** ", l->seen);
		pd_escape_markdown(o, detail ? detail : "");
		g_string_append(o, "\n\n");
		for (guint i = 0; has_metrics && i < f->metrics->len; i++) {
			const pd_metric *m = &g_array_index(f->metrics, pd_metric, i);
			if (m->key)
				metric_md(o, l, m);
		}
		if (has_metrics)
			g_string_append_c(o, '\n');
	}

	guint listed = f->flows ? f->flows->len : 0;
	if (listed) {
		g_string_append_printf(o, "**%s** (%llu):\n\n", l->where,
				       (unsigned long long)f->flow_count);
		g_string_append_printf(o, "| %s | %s | %s | %s |\n|---|---|---|---|\n", l->flow,
				       l->client, l->server_h, l->application);
		for (guint i = 0; i < listed; i++) {
			const pd_flow_ref *fr = &g_array_index(f->flows, pd_flow_ref, i);
			g_string_append_printf(o, "| %llu | ", (unsigned long long)fr->flow_id);
			pd_r_endpoints(o, fr, " | ");
			g_string_append(o, " | ");
			md_esc_fixed(o, fr->app, sizeof fr->app);
			g_string_append(o, " |\n");
		}
		g_string_append_c(o, '\n');
	}

	if (f->first.frame) {
		g_string_append_printf(o, "**%s:** %s ", l->packets_h, l->first);
		evidence_md(o, &f->first);
		if (f->last.frame && f->last.frame != f->first.frame) {
			g_string_append_printf(o, "%s%s ", zh ? "，" : ", ", l->last);
			evidence_md(o, &f->last);
		}
		g_string_append(o, "\n\n");
		for (guint i = 0; f->examples && i < f->examples->len; i++) {
			const pd_evidence *e = &g_array_index(f->examples, pd_evidence, i);
			g_string_append_printf(o, "- #%llu ", (unsigned long long)e->frame);
			char what[128];
			pd_escape_markdown(o, pd_evidence_what_in(e, zh, what));
			g_string_append_c(o, '\n');
		}
		if (f->examples && f->examples->len)
			g_string_append_c(o, '\n');
	}

	const char *names[PD_FINDING_MAX_SETTINGS + PD_DEF_MAX_SETTINGS];
	size_t ns = pd_r_settings(f, names);
	if (ns) {
		g_string_append_printf(o, "**%s**\n\n", l->settings);
		if (f->host_counters) {
			g_string_append_printf(o, "%s: ", pd_r_host_label(zh));
			pd_escape_markdown(o, zh ? f->host_counters_zh : f->host_counters);
			g_string_append(o, "\n\n");
		}
		size_t full = verbose ? ns : MIN(ns, (size_t)PD_R_SETTINGS_SHOWN);
		GString *hl = g_string_new(NULL);
		for (size_t i = 0; i < full; i++) {
			const pd_setting *s = pd_kb_find(names[i]);
			g_string_append_printf(o, "%zu. **", i + 1);
			pd_escape_markdown(o, names[i]);
			g_string_append(o, "**");
			if (!s) {
				g_string_append_c(o, '\n');
				if (pd_r_host_line(hl, f, names[i], zh)) {
					g_string_append_printf(o, "   - %s: ", pd_r_host_label(zh));
					pd_escape_markdown(o, hl->str);
					g_string_append_c(o, '\n');
				}
				continue;
			}
			g_string_append_printf(o, " (%s, %s", l->kinds[s->kind], l->sides[s->side]);
			if (s->default_value)
				g_string_append_printf(o, "; %s %s", l->default_, s->default_value);
			if (s->removed_in)
				g_string_append_printf(o, "; %s %s", l->removed_in, s->removed_in);
			g_string_append(o, ")\n");
			g_string_append_printf(o, "   - %s: `%s`\n", l->check, pd_kb_check(s, zh));
			g_string_append_printf(o, "   - %s: %s\n", l->change,
					       zh ? s->change_zh : s->change_en);
			g_string_append_printf(o, "   - %s: %s\n", l->caveat,
					       zh ? s->caveat_zh : s->caveat_en);
			if (pd_r_host_line(hl, f, names[i], zh)) {
				g_string_append_printf(o, "   - %s: ", pd_r_host_label(zh));
				pd_escape_markdown(o, hl->str);
				g_string_append_c(o, '\n');
			}
		}
		g_string_free(hl, TRUE);
		if (full < ns) {
			g_string_append_printf(o, "\n%s: ", l->also_settings);
			for (size_t i = full; i < ns; i++) {
				if (i > full)
					g_string_append(o, ", ");
				pd_escape_markdown(o, names[i]);
			}
			g_string_append_printf(o, " (%s)\n", l->fold_pointer);
		}
		g_string_append_c(o, '\n');
	}

	if (d && d->alternatives_en[0]) {
		g_string_append_printf(o, "**%s**\n\n", l->alternatives);
		for (size_t i = 0; i < PD_DEF_MAX_ALTS && d->alternatives_en[i]; i++)
			g_string_append_printf(o, "- %s\n",
					       zh && d->alternatives_zh[i] ? d->alternatives_zh[i]
									   : d->alternatives_en[i]);
		g_string_append_c(o, '\n');
	}
}

static bool render_flows(GString *o, const pd_labels *l, const pd_report *r, FILE *out)
{
	bool ok = true;
	char tmp[8], t[PD_TIME_STRLEN];
	g_string_append_printf(o, "## %s\n\n", l->flow_details);
	for (guint i = 0; i < r->flows->len; i++) {
		const pd_flow_row *row = &g_array_index(r->flows, pd_flow_row, i);
		const pd_flow_ref *f = &row->ref;
		GString *s = g_string_new(NULL);
		g_string_append_printf(s, "#%llu %s ", (unsigned long long)f->flow_id,
				       pd_r_proto_name(f->proto, tmp, sizeof tmp));
		pd_r_endpoints(s, f, " → ");
		char *app = g_strndup(f->app, sizeof f->app);
		if (*app) {
			g_string_append_c(s, ' ');
			pd_r_xml_escape(s, app, false); /* raw HTML inside <summary> */
		}
		g_free(app);
		g_string_append_printf(o, "<details><summary>%s</summary>\n\n", s->str);
		g_string_free(s, TRUE);

		g_string_append_printf(o, "| | %s |\n|---|---|\n", l->value);
		if (row->first_frame)
			g_string_append_printf(o, "| %s | #%llu – #%llu |\n", l->frames,
					       (unsigned long long)row->first_frame,
					       (unsigned long long)row->last_frame);
		pd_time_iso(row->first_ts, t, sizeof t);
		g_string_append_printf(o, "| %s | %s |\n", l->first_packet, t);
		pd_time_iso(row->last_ts, t, sizeof t);
		g_string_append_printf(o, "| %s | %s |\n", l->last_packet, t);
		g_string_append_printf(o, "| %s | %llu / %llu |\n", l->pkts_cs,
				       (unsigned long long)row->pkts[0],
				       (unsigned long long)row->pkts[1]);
		g_string_append_printf(o, "| %s | %llu / %llu |\n", l->bytes_cs,
				       (unsigned long long)row->bytes[0],
				       (unsigned long long)row->bytes[1]);
		if (row->hs_rtt >= 0)
			g_string_append_printf(o, "| %s | %.3f%s |\n", l->rtt,
					       (double)row->hs_rtt / 1e6, l->u_ms);
		g_string_append_printf(o, "| %s | %u |\n| %s | %u |\n| %s | %u |\n| %s | %u |\n",
				       l->retransmissions, row->retrans, l->out_of_order, row->ooo,
				       l->dup_acks, row->dupacks, l->zero_windows, row->zero_win);
		g_string_append_printf(o, "| %s | %s |\n", l->state, pd_labels_state(l, row->state));
		if (f->community_id[0]) {
			g_string_append_printf(o, "| %s | ", l->community_id);
			md_esc_fixed(o, f->community_id, sizeof f->community_id);
			g_string_append(o, " |\n");
		}
		g_string_append(o, "\n</details>\n\n");
		ok &= pd_r_spill(o, out);
	}
	if (r->flows_omitted)
		g_string_append_printf(o, "(%llu %s)\n\n", (unsigned long long)r->flows_omitted,
				       l->omitted);
	return ok;
}

static bool render_markdown(const pd_report *r, const pd_render_opts *opt, FILE *out)
{
	bool zh = pd_r_is_zh(opt);
	const pd_labels *l = pd_labels_get(zh);
	bool verbose = opt && opt->verbose;
	GString *o = g_string_new(NULL);

	g_string_append_printf(o, "# %s\n\n", l->report);
	if (opt && opt->version) {
		g_string_append(o, "pcapdoc ");
		pd_escape_markdown(o, opt->version);
		g_string_append(o, "\n\n");
	}
	render_verdict(o, l, zh, r);
	render_capture(o, l, zh, &r->cap);

	guint nf = r->findings ? r->findings->len : 0;
	g_string_append_printf(o, "## %s\n\n", l->summary);
	if (!nf) {
		g_string_append_printf(o, "%s\n\n", l->no_findings);
	} else {
		g_string_append_printf(o, "| # | %s | %s | id | %s | %s | %s |\n",
				       l->severity, l->finding, l->flows, l->occurrences,
				       l->time_lost_s);
		g_string_append(o, "|---|---|---|---|---|---|---|\n");
		for (guint i = 0; i < nf; i++) {
			const pd_finding *f = r->findings->pdata[i];
			unsigned sev = (unsigned)f->severity <= PD_SEV_ERROR ? (unsigned)f->severity : 0;
			g_string_append_printf(o, "| %u | %s | %s | `%s` | %llu | %llu | %.3f |\n",
					       i + 1, l->sev_lower[sev], pd_r_title(f->def, zh),
					       f->def ? f->def->id : "unknown",
					       (unsigned long long)f->flow_count,
					       (unsigned long long)f->occurrences,
					       pd_r_finite(f->impact_s));
		}
		g_string_append_c(o, '\n');
		g_string_append_printf(o, "## %s\n\n", l->findings);
		for (guint i = 0; i < nf; i++)
			render_finding(o, l, zh, verbose, i + 1, r->findings->pdata[i]);
	}

	/* collapsed, so always included when the run kept the flow table */
	bool flows_ok = !r->flows || render_flows(o, l, r, out);

	bool ok = fwrite(o->str, 1, o->len, out) == o->len && flows_ok;
	g_string_free(o, TRUE);
	return ok && !ferror(out);
}

const pd_renderer pd_fmt_markdown = {
	.name = "markdown",
	.render = render_markdown,
};
