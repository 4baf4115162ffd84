/* --format text (the default): a report for a person at a terminal.
 *
 * Capture summary and capture-quality notes first, then the findings in
 * the report's order (severity, impact), each with what was seen, where
 * (flows and Wireshark frame numbers), the time lost, the settings to look
 * at and what else could explain it; then the flow table on request.
 * Prose wraps at 100 columns (CJK aware); colour only when allowed;
 * everything that came from a packet goes through pd_escape_text. */
#include "report/internal.h"

#include <pcap/pcap.h>
#include <string.h>

#define WIDTH 100

typedef struct ctx {
	GString *out;
	FILE *file; /* where out goes (pd_r_spill) */
	bool write_failed;
	const pd_labels *l;
	bool zh, color, verbose;
} ctx;

/* ---------- colour ---------- */

static void color_on(ctx *c, const char *code)
{
	if (c->color)
		g_string_append_printf(c->out, "\x1b[%sm", code);
}

static void color_off(ctx *c)
{
	if (c->color)
		g_string_append(c->out, "\x1b[0m");
}

static const char *sev_color(pd_severity s)
{
	return s == PD_SEV_ERROR ? "1;31" : s == PD_SEV_WARNING ? "1;33" : "1;36";
}

/* ---------- wrapping ---------- */

static int char_width(gunichar ch)
{
	return g_unichar_iswide(ch) ? 2 : 1;
}

static int str_width(const char *s)
{
	int w = 0;
	for (const char *p = s; *p; p = g_utf8_next_char(p))
		w += char_width(g_utf8_get_char(p));
	return w;
}

static void indent(GString *out, int n)
{
	for (int i = 0; i < n; i++)
		g_string_append_c(out, ' ');
}

/* Appends text (valid UTF-8, no controls) wrapped to WIDTH. The cursor is
 * assumed to be at column col; continuation lines start at column ind.
 * Breaks at spaces, and between wide (CJK) characters except before wide
 * punctuation. Ends with a newline. */
static void wrap_at(GString *out, const char *text, int col, int ind)
{
	int line = col;
	bool pending_space = false;
	const char *p = text;

	while (*p) {
		if (*p == ' ' || *p == '\n') {
			pending_space = true;
			p++;
			continue;
		}
		/* one token: a run of narrow non-space characters, or one wide
		 * character plus any wide punctuation that follows it */
		const char *start = p;
		int w = 0;
		gunichar ch = g_utf8_get_char(p);
		if (g_unichar_iswide(ch)) {
			w += 2;
			p = g_utf8_next_char(p);
			while (*p) {
				gunichar n = g_utf8_get_char(p);
				if (!(g_unichar_iswide(n) && g_unichar_ispunct(n)))
					break;
				w += 2;
				p = g_utf8_next_char(p);
			}
		} else {
			while (*p && *p != ' ' && *p != '\n') {
				gunichar n = g_utf8_get_char(p);
				if (g_unichar_iswide(n)) {
					/* closing wide punctuation sticks to the word */
					if (g_unichar_ispunct(n)) {
						w += 2;
						p = g_utf8_next_char(p);
						continue;
					}
					break;
				}
				w += 1;
				p = g_utf8_next_char(p);
			}
		}
		int need = w + (pending_space && line > ind ? 1 : 0);
		if (line + need > WIDTH && line > ind) {
			g_string_append_c(out, '\n');
			indent(out, ind);
			line = ind;
		} else if (pending_space && line > ind) {
			g_string_append_c(out, ' ');
			line++;
		}
		g_string_append_len(out, start, p - start);
		line += w;
		pending_space = false;
	}
	g_string_append_c(out, '\n');
}

/* "label: text" with the text wrapped under itself. */
static void labelled(ctx *c, int ind, const char *label, const char *text)
{
	indent(c->out, ind);
	g_string_append(c->out, label);
	g_string_append(c->out, c->zh ? "：" : ": ");
	int col = ind + str_width(label) + 2;
	wrap_at(c->out, text, col, col);
}

static void para(ctx *c, int ind, const char *text)
{
	indent(c->out, ind);
	wrap_at(c->out, text, ind, ind);
}

static void heading(ctx *c, int ind, const char *text)
{
	indent(c->out, ind);
	color_on(c, "1");
	g_string_append(c->out, text);
	color_off(c);
	g_string_append(c->out, c->zh ? "：\n" : ":\n");
}

/* ---------- numbers ---------- */

static void fmt_number(GString *b, double v)
{
	v = pd_r_finite(v);
	if (v == (double)(long long)v && v < 1e15 && v > -1e15)
		g_string_append_printf(b, "%lld", (long long)v);
	else
		g_string_append_printf(b, "%.6g", v);
}

static void fmt_metric(GString *b, const pd_labels *l, const pd_metric *m)
{
	const char *unit = m->unit ? m->unit : "";
	g_string_append_printf(b, "%s = ", m->key);
	if (strcmp(unit, "ratio") == 0) {
		fmt_number(b, m->value);
		g_string_append_printf(b, " (%.1f%%)", pd_r_finite(m->value) * 100.0);
		return;
	}
	if (strcmp(unit, "s") == 0) {
		pd_labels_seconds(b, l, m->value);
		return;
	}
	fmt_number(b, m->value);
	const char *u = pd_labels_unit(l, unit);
	if (u)
		g_string_append(b, u);
	else
		g_string_append_printf(b, " %s", unit);
}

static void fmt_bytes(GString *b, uint64_t v)
{
	if (v >= 10ull * 1024 * 1024 * 1024)
		g_string_append_printf(b, "%.1f GiB", (double)v / (1024.0 * 1024 * 1024));
	else if (v >= 10ull * 1024 * 1024)
		g_string_append_printf(b, "%.1f MiB", (double)v / (1024.0 * 1024));
	else if (v >= 10ull * 1024)
		g_string_append_printf(b, "%.1f KiB", (double)v / 1024.0);
	else
		g_string_append_printf(b, "%llu B", (unsigned long long)v);
}

/* ---------- pieces ---------- */

static void flow_line(GString *b, const pd_flow_ref *f)
{
	char tmp[8];
	g_string_append_printf(b, "#%llu %s ", (unsigned long long)f->flow_id,
			       pd_r_proto_name(f->proto, tmp, sizeof tmp));
	pd_r_endpoints(b, f, " -> ");
	char *app = g_strndup(f->app, sizeof f->app);
	if (*app) {
		g_string_append(b, " ");
		pd_escape_text(b, app);
	}
	g_free(app);
}

static void evidence_text(GString *b, const pd_evidence *e)
{
	char iso[PD_TIME_STRLEN];
	pd_time_iso(e->ts, iso, sizeof iso);
	g_string_append_printf(b, "#%llu (%s)", (unsigned long long)e->frame, iso);
}

static void render_setting(ctx *c, const pd_finding *f, size_t idx, const char *name)
{
	const pd_labels *l = c->l;
	const pd_setting *s = pd_kb_find(name);
	GString *b = g_string_new(NULL);
	g_string_append_printf(b, "%zu. ", idx + 1);
	indent(c->out, 5);
	color_on(c, "1");
	g_string_append(c->out, b->str);
	g_string_truncate(b, 0);
	pd_escape_text(b, name);
	g_string_append(c->out, b->str);
	color_off(c);
	g_string_truncate(b, 0);
	if (s) {
		g_string_append_printf(b, "[%s, %s", l->kinds[s->kind], l->sides[s->side]);
		if (s->default_value)
			g_string_append_printf(b, "; %s %s", l->default_, s->default_value);
		if (s->removed_in)
			g_string_append_printf(b, "; %s %s", l->removed_in, s->removed_in);
		g_string_append(b, "]");
		int col = 5 + str_width(name) + (int)strlen("1. ") + (idx >= 9 ? 1 : 0);
		g_string_append_c(c->out, ' ');
		wrap_at(c->out, b->str, col + 1, 8);
		labelled(c, 8, l->check, pd_kb_check(s, c->zh));
		labelled(c, 8, l->change, c->zh ? s->change_zh : s->change_en);
		labelled(c, 8, l->caveat, c->zh ? s->caveat_zh : s->caveat_en);
	} else {
		g_string_append_c(c->out, '\n');
	}
	if (pd_r_host_line(b, f, name, c->zh))
		labelled(c, 8, pd_r_host_label(c->zh), b->str);
	g_string_free(b, TRUE);
}

static void render_finding(ctx *c, size_t n, const pd_finding *f)
{
	const pd_labels *l = c->l;
	const pd_finding_def *d = f->def;
	GString *b = g_string_new(NULL);
	unsigned sev = (unsigned)f->severity <= PD_SEV_ERROR ? (unsigned)f->severity : 0;

	/* title line */
	g_string_append_printf(c->out, "%zu. ", n);
	color_on(c, sev_color(f->severity));
	g_string_append_printf(c->out, "[%s]", l->sev[sev]);
	color_off(c);
	g_string_append_c(c->out, ' ');
	color_on(c, "1");
	g_string_append(c->out, pd_r_title(d, c->zh));
	color_off(c);
	g_string_append_c(c->out, '\n');

	const char *sep = c->zh ? "；" : "; ";
	g_string_append_printf(b, "id %s%s%s %s%s%s %.2f", d ? d->id : "unknown", sep, l->category,
			       d ? pd_category_name(d->category) : "unknown", sep, l->confidence,
			       pd_r_finite(f->confidence));
	if (f->impact_s > 0) {
		g_string_append_printf(b, "%s%s ", sep, l->time_lost);
		pd_labels_seconds(b, l, f->impact_s);
	}
	g_string_append_printf(b, "%s%s%llu%s", sep, l->occ_pre, (unsigned long long)f->occurrences,
			       pd_labels_occurrences(l, f->occurrences));
	if (f->known)
		g_string_append_printf(b, "%s%s", sep, l->known);
	if (f->explained_by)
		g_string_append_printf(b, "%s%s %s", sep, l->explained_by, f->explained_by);
	para(c, 3, b->str);

	heading(c, 3, l->meaning);
	para(c, 5, pd_r_explain(d, c->zh));
	if (f->n_consequences) {
		g_string_truncate(b, 0);
		g_string_append_printf(b, "%s%s", l->explains, l->colon);
		for (size_t i = 0; i < f->n_consequences; i++)
			g_string_append_printf(b, "%s%s", i ? ", " : "", f->consequences[i]);
		para(c, 5, b->str);
	}

	/* what was seen: detail and metrics */
	bool has_metrics = f->metrics && f->metrics->len > 0;
	const char *detail = pd_finding_detail_in(f, c->zh);
	if ((detail && *detail) || has_metrics) {
		heading(c, 3, l->seen);
		if (detail && *detail) {
			g_string_truncate(b, 0);
			pd_escape_text(b, detail);
			para(c, 5, b->str);
		}
		if (has_metrics) {
			g_string_truncate(b, 0);
			for (guint i = 0; i < f->metrics->len; i++) {
				const pd_metric *m = &g_array_index(f->metrics, pd_metric, i);
				if (!m->key)
					continue;
				if (b->len)
					g_string_append(b, "; ");
				fmt_metric(b, c->l, m);
			}
			para(c, 5, b->str);
		}
	}

	/* where */
	guint listed = f->flows ? f->flows->len : 0;
	if (!listed && f->flow_count) {
		g_string_truncate(b, 0);
		g_string_append_printf(b, "%llu%s", (unsigned long long)f->flow_count, l->flows_n);
		labelled(c, 3, l->where, b->str);
	} else if (listed) {
		g_string_truncate(b, 0);
		g_string_append_printf(b, "%s%s%llu%s", l->where, c->zh ? "（" : " (",
				       (unsigned long long)f->flow_count, l->flows_n);
		if (listed < f->flow_count)
			g_string_append_printf(b, "%s%s %u", c->zh ? "，" : ", ", l->listed, listed);
		g_string_append(b, c->zh ? "）" : ")");
		heading(c, 3, b->str);
		for (guint i = 0; i < listed; i++) {
			g_string_truncate(b, 0);
			flow_line(b, &g_array_index(f->flows, pd_flow_ref, i));
			para(c, 5, b->str);
		}
	}

	/* packets */
	if (f->first.frame) {
		heading(c, 3, l->packets_h);
		g_string_truncate(b, 0);
		g_string_append_printf(b, "%s ", l->first);
		evidence_text(b, &f->first);
		if (f->last.frame && f->last.frame != f->first.frame) {
			g_string_append_printf(b, "%s%s ", c->zh ? "，" : ", ", l->last);
			evidence_text(b, &f->last);
		}
		para(c, 5, b->str);
		for (guint i = 0; f->examples && i < f->examples->len; i++) {
			const pd_evidence *e = &g_array_index(f->examples, pd_evidence, i);
			g_string_truncate(b, 0);
			g_string_append_printf(b, "#%llu ", (unsigned long long)e->frame);
			char what[128];
			pd_escape_text(b, pd_evidence_what_in(e, c->zh, what));
			para(c, 5, b->str);
		}
	}

	/* settings */
	const char *names[PD_FINDING_MAX_SETTINGS + PD_DEF_MAX_SETTINGS];
	size_t ns = pd_r_settings(f, names);
	if (ns) {
		heading(c, 3, l->settings);
		if (f->host_counters)
			labelled(c, 5, pd_r_host_label(c->zh), c->zh ? f->host_counters_zh : f->host_counters);
		size_t full = c->verbose ? ns : MIN(ns, (size_t)PD_R_SETTINGS_SHOWN);
		for (size_t i = 0; i < full; i++)
			render_setting(c, f, i, names[i]);
		if (full < ns) {
			/* the rest by name only: the verdict and two in full are what a
			 * reader acts on; the KB has the others */
			g_string_truncate(b, 0);
			for (size_t i = full; i < ns; i++) {
				if (i > full)
					g_string_append(b, c->zh ? "、" : ", ");
				pd_escape_text(b, names[i]);
			}
			g_string_append_printf(b, c->zh ? "（%s）" : " (%s)", l->fold_pointer);
			labelled(c, 5, l->also_settings, b->str);
		}
	}

	/* alternatives */
	if (d && d->alternatives_en[0]) {
		heading(c, 3, l->alternatives);
		for (size_t i = 0; i < PD_DEF_MAX_ALTS && d->alternatives_en[i]; i++) {
			const char *a = c->zh && d->alternatives_zh[i] ? d->alternatives_zh[i]
								     : d->alternatives_en[i];
			indent(c->out, 5);
			g_string_append(c->out, "- ");
			wrap_at(c->out, a, 7, 7);
		}
	}
	g_string_append_c(c->out, '\n');
	g_string_free(b, TRUE);
}

/* The first screen: the root causes, most time lost first, one entry
 * each: a line with what, where, cost and confidence, and a line with the
 * first setting to check and what to change. */
static void render_verdict(ctx *c, const pd_report *r)
{
	const pd_labels *l = c->l;
	double lost = 0;
	size_t n_info = 0;
	GPtrArray *v = pd_r_verdict(r, &lost, &n_info);
	GString *b = g_string_new(NULL);
	const char *sep = c->zh ? "；" : "; ";

	if (!v->len) {
		color_on(c, "1");
		g_string_append_printf(c->out, "%s%s", l->verdict, c->zh ? "：" : ": ");
		color_off(c);
		if (n_info)
			g_string_append_printf(b, "%s%zu%s", l->no_problems_info_pre, n_info,
					       l->no_problems_info_post);
		else
			g_string_append(b, l->no_findings);
		wrap_at(c->out, b->str, str_width(l->verdict) + 2, 2);
		g_string_append_c(c->out, '\n');
		g_string_free(b, TRUE);
		g_ptr_array_free(v, TRUE);
		return;
	}
	g_string_append_printf(b, "%s%s%s%u%s", l->verdict, c->zh ? "（" : " (", l->problems_pre,
			       v->len, v->len == 1 ? l->problems_post_one : l->problems_post);
	if (lost > 0) {
		g_string_append_printf(b, "%s%s", sep, l->lost_total_pre);
		pd_labels_seconds(b, l, lost);
		g_string_append(b, l->lost_total_post);
	}
	g_string_append(b, c->zh ? "）" : ")");
	heading(c, 0, b->str);

	for (guint i = 0; i < v->len; i++) {
		const pd_finding *f = v->pdata[i];
		unsigned sev = (unsigned)f->severity <= PD_SEV_ERROR ? (unsigned)f->severity : 0;
		char num[16];
		int nw = g_snprintf(num, sizeof num, "%2u. ", i + 1);
		g_string_append(c->out, num);
		color_on(c, sev_color(f->severity));
		g_string_append(c->out, l->sev[sev]);
		color_off(c);
		g_string_truncate(b, 0);
		g_string_append_printf(b, " %s%s", pd_r_title(f->def, c->zh), c->zh ? "：" : ": ");
		pd_r_verdict_where(b, f, l, " -> ");
		pd_r_verdict_segment(b, f, l);
		g_string_append(b, sep);
		pd_r_verdict_cost(b, f, l);
		g_string_append(b, sep);
		pd_r_confidence(b, f, l);
		wrap_at(c->out, b->str, nw + str_width(l->sev[sev]), nw);

		const char *name = NULL;
		const pd_setting *s = pd_r_first_setting(f, &name);
		if (name) {
			g_string_truncate(b, 0);
			g_string_append_printf(b, "%s%s", l->first_step, c->zh ? "：" : ": ");
			pd_escape_text(b, name);
			if (s) {
				g_string_append_printf(b, "%s%s%s%s", c->zh ? " —— " : " — ", l->check_cmd,
						       c->zh ? "：" : ": ", pd_kb_check(s, c->zh));
				g_string_append_printf(b, "%s%s%s%s", sep, l->change_cmd,
						       c->zh ? "：" : ": ",
						       c->zh ? s->change_zh : s->change_en);
			}
			para(c, nw, b->str);
		}
	}
	g_string_append_c(c->out, '\n');
	g_string_free(b, TRUE);
	g_ptr_array_free(v, TRUE);
}

static void render_capture(ctx *c, const pd_capture_summary *cap)
{
	const pd_labels *l = c->l;
	GString *b = g_string_new(NULL);
	char t1[PD_TIME_STRLEN], t2[PD_TIME_STRLEN];

	heading(c, 0, l->capture);
	/* One label, the files comma-separated (wrapped by labelled()). */
	g_string_truncate(b, 0);
	for (guint i = 0; cap->files && i < cap->files->len; i++) {
		if (i)
			g_string_append(b, ", ");
		pd_escape_text(b, cap->files->pdata[i]);
	}
	if (b->len)
		labelled(c, 2, l->files, b->str);

	g_string_truncate(b, 0);
	g_string_append_printf(b, "%llu%s%s", (unsigned long long)cap->packets, c->zh ? "，" : ", ",
			       l->on_wire_pre);
	fmt_bytes(b, cap->wire_bytes);
	g_string_append(b, l->on_wire_post);
	if (cap->packets) {
		pd_time_iso(cap->first_ts, t1, sizeof t1);
		pd_time_iso(cap->last_ts, t2, sizeof t2);
		double dur = cap->last_ts > cap->first_ts
				     ? (double)(cap->last_ts - cap->first_ts) / 1e9
				     : 0.0;
		g_string_append_printf(b, "%s%s", c->zh ? "；" : "; ", l->span_pre);
		pd_labels_seconds(b, l, dur);
		g_string_append_printf(b, "%s%s %s %s %s", c->zh ? "，" : ", ", l->from, t1, l->to, t2);
	}
	labelled(c, 2, l->packets, b->str);

	if (cap->linktypes && cap->linktypes->len) {
		g_string_truncate(b, 0);
		for (guint i = 0; i < cap->linktypes->len; i++) {
			const pd_linktype_count *lt =
				&g_array_index(cap->linktypes, pd_linktype_count, i);
			char ltbuf[32];
			const char *name = pd_r_linktype_name(lt->linktype, ltbuf, sizeof(ltbuf));
			g_string_append_printf(b, "%s%s %llu", i ? ", " : "", name,
					       (unsigned long long)lt->packets);
		}
		labelled(c, 2, l->link_types, b->str);
	}

	g_string_truncate(b, 0);
	g_string_append_printf(b,
			       "IPv4 %llu, IPv6 %llu, TCP %llu, UDP %llu, ICMP %llu, %s %llu, "
			       "%s %llu",
			       (unsigned long long)cap->ipv4, (unsigned long long)cap->ipv6,
			       (unsigned long long)cap->tcp, (unsigned long long)cap->udp,
			       (unsigned long long)cap->icmp, l->other, (unsigned long long)cap->other_l4,
			       l->fragments, (unsigned long long)cap->fragments);
	if (cap->not_ip)
		g_string_append_printf(b, ", %s %llu", l->non_ip, (unsigned long long)cap->not_ip);
	labelled(c, 2, l->protocols, b->str);

	g_string_truncate(b, 0);
	g_string_append_printf(b, "TCP %llu, UDP %llu", (unsigned long long)cap->tcp_flows,
			       (unsigned long long)cap->udp_flows);
	if (cap->flows_evicted)
		g_string_append_printf(b, " (%llu %s)", (unsigned long long)cap->flows_evicted,
				       l->evicted);
	labelled(c, 2, l->flows, b->str);

	if (cap->apps && cap->apps->len) {
		g_string_truncate(b, 0);
		for (guint i = 0; i < cap->apps->len; i++) {
			const pd_app_count *a = &g_array_index(cap->apps, pd_app_count, i);
			char *name = g_strndup(a->name, sizeof a->name);
			if (i)
				g_string_append(b, ", ");
			pd_escape_text(b, name);
			g_free(name);
			g_string_append_printf(b, " %llu", (unsigned long long)a->flows);
		}
		labelled(c, 2, l->apps, b->str);
	}

	g_string_truncate(b, 0);
	g_string_append_printf(b, c->zh ? "%u（%llu %s）" : "%u (%llu %s)", cap->snaplen,
			       (unsigned long long)cap->snap_truncated, l->truncated_frames);
	labelled(c, 2, l->snaplen, b->str);

	g_string_truncate(b, 0);
	for (int m = 1; m < PD_MAL__COUNT; m++)
		if (cap->malformed[m])
			g_string_append_printf(b, "%s%s %llu", b->len ? ", " : "",
					       pd_malformed_name((pd_malformed)m),
					       (unsigned long long)cap->malformed[m]);
	if (b->len)
		labelled(c, 2, l->malformed, b->str);

	if (cap->input_truncated)
		labelled(c, 2, l->notes, l->input_truncated);
	for (guint i = 0; cap->notes && i < cap->notes->len; i++) {
		g_string_truncate(b, 0);
		pd_escape_text(b, pd_note_in(&g_array_index(cap->notes, pd_note, i), c->zh));
		labelled(c, 2, l->notes, b->str);
	}
	for (guint i = 0; cap->errors && i < cap->errors->len; i++) {
		g_string_truncate(b, 0);
		pd_escape_text(b, cap->errors->pdata[i]);
		labelled(c, 2, l->errors, b->str);
	}
	g_string_append_c(c->out, '\n');
	g_string_free(b, TRUE);
}

static void render_flows(ctx *c, const pd_report *r)
{
	const pd_labels *l = c->l;
	GString *b = g_string_new(NULL);
	heading(c, 0, l->flow_table);
	for (guint i = 0; i < r->flows->len; i++) {
		const pd_flow_row *row = &g_array_index(r->flows, pd_flow_row, i);
		g_string_truncate(b, 0);
		flow_line(b, &row->ref);
		g_string_append_printf(b, "  %s %s", l->state, pd_labels_state(l, row->state));
		if (row->first_frame)
			g_string_append_printf(b, "  %s #%llu-#%llu", l->frames,
					       (unsigned long long)row->first_frame,
					       (unsigned long long)row->last_frame);
		para(c, 2, b->str);
		g_string_truncate(b, 0);
		g_string_append_printf(b, "%s %llu/%llu, %s %llu/%llu", l->pkts,
				       (unsigned long long)row->pkts[0],
				       (unsigned long long)row->pkts[1],
				       l->bytes, (unsigned long long)row->bytes[0],
				       (unsigned long long)row->bytes[1]);
		if (row->hs_rtt >= 0)
			g_string_append_printf(b, ", %s %.3f%s", l->rtt, (double)row->hs_rtt / 1e6, l->u_ms);
		g_string_append_printf(b, ", %s %u, %s %u, %s %u, %s %u", l->retrans, row->retrans,
				       l->ooo, row->ooo, l->dupack, row->dupacks, l->zero_win,
				       row->zero_win);
		para(c, 6, b->str);
		if (!pd_r_spill(c->out, c->file))
			c->write_failed = true;
	}
	if (r->flows_omitted) {
		g_string_truncate(b, 0);
		g_string_append_printf(b, c->zh ? "（%llu %s）" : "(%llu %s)",
				       (unsigned long long)r->flows_omitted, l->omitted);
		para(c, 2, b->str);
	}
	g_string_free(b, TRUE);
}

static bool render_text(const pd_report *r, const pd_render_opts *o, FILE *out)
{
	ctx c = {
		.out = g_string_new(NULL),
		.file = out,
		.zh = pd_r_is_zh(o),
		.color = o && o->color,
		.verbose = o && o->verbose,
	};
	c.l = pd_labels_get(c.zh);
	const pd_labels *l = c.l;

	color_on(&c, "1");
	g_string_append_printf(c.out, "%s", l->report);
	color_off(&c);
	if (o && o->version)
		g_string_append_printf(c.out, " (pcapdoc %s)", o->version);
	g_string_append(c.out, "\n\n");

	render_verdict(&c, r);
	render_capture(&c, &r->cap);

	guint nf = r->findings ? r->findings->len : 0;
	size_t n = 0;
	bool any_capture = false;
	heading(&c, 0, l->quality);
	for (guint i = 0; i < nf; i++) {
		const pd_finding *f = r->findings->pdata[i];
		if (f->def && f->def->category == PD_CAT_CAPTURE) {
			render_finding(&c, ++n, f);
			any_capture = true;
		}
	}
	if (!any_capture) {
		para(&c, 2, l->no_quality);
		g_string_append_c(c.out, '\n');
	}

	uint64_t counts[3] = {0, 0, 0};
	for (guint i = 0; i < nf; i++) {
		const pd_finding *f = r->findings->pdata[i];
		if (!(f->def && f->def->category == PD_CAT_CAPTURE) &&
		    (unsigned)f->severity <= PD_SEV_ERROR)
			counts[f->severity]++;
	}
	GString *b = g_string_new(NULL);
	g_string_append_printf(b, c.zh ? "%s（%llu%s，%llu%s，%llu%s）" : "%s (%llu%s, %llu%s, %llu%s)",
			       l->findings, (unsigned long long)counts[2], l->errors_n,
			       (unsigned long long)counts[1], l->warnings_n,
			       (unsigned long long)counts[0], l->infos_n);
	heading(&c, 0, b->str);
	g_string_free(b, TRUE);
	bool any = false, capture_warn = false;
	for (guint i = 0; i < nf; i++) {
		const pd_finding *f = r->findings->pdata[i];
		if (f->def && f->def->category == PD_CAT_CAPTURE) {
			capture_warn |= f->severity >= PD_SEV_WARNING;
			continue;
		}
		render_finding(&c, ++n, f);
		any = true;
	}
	if (!any) {
		para(&c, 2, capture_warn ? l->no_traffic_findings : l->no_findings);
		g_string_append_c(c.out, '\n');
	}

	if (o && o->show_flows && r->flows)
		render_flows(&c, r);

	bool ok = fwrite(c.out->str, 1, c.out->len, out) == c.out->len && !c.write_failed;
	g_string_free(c.out, TRUE);
	return ok && !ferror(out);
}

const pd_renderer pd_fmt_text = {
	.name = "text",
	.render = render_text,
};
