/* The report model and its renderers, on a report built by hand: JSON
 * valid against docs/report.schema.json, byte-identical re-rendering, no
 * packet-derived control sequence or invalid UTF-8 reaching a terminal or
 * a Markdown file, Chinese output, baselines, diffs, JUnit. */
#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "report/model.h"
#include "analyzer/run.h"
#include "heuristics/ctx.h"
#include "heuristics/detector.h"
#include "heuristics/store.h"
#include "knowledge/kb.h"
#include "report/render.h"
#include "report/labels.h"
#include "testutil.h"

/* tests/meson.build links each test with testutil.c only */
#include "schema_check.c"

#define EVIL_APP "\x1b[31mEVIL\xff\xfe"
#define EVIL_DETAIL "ACK then SYN-ACK again \x1b]0;pwned\x07 \xc2\x9b done"

static pd_addr v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	pd_addr x = {.family = 4};
	x.bytes[0] = a;
	x.bytes[1] = b;
	x.bytes[2] = c;
	x.bytes[3] = d;
	return x;
}

static pd_flow_ref flow_ref(uint64_t id, uint16_t cport, uint16_t sport, const char *app)
{
	pd_flow_ref r = {.flow_id = id, .proto = 6};
	r.client = v4(10, 0, 0, 1);
	r.server = v4(10, 0, 0, 2);
	r.client_port = cport;
	r.server_port = sport;
	g_strlcpy(r.app, app, sizeof r.app);
	g_strlcpy(r.community_id, "1:abcdefghijklmnopqrstuvwxyz0=", sizeof r.community_id);
	return r;
}

static pd_finding *finding(const char *id, pd_severity sev, double impact, uint64_t frame)
{
	pd_finding *f = g_new0(pd_finding, 1);
	f->def = pd_catalog_find(id);
	cr_assert_not_null(f->def, "%s", id);
	f->severity = sev;
	f->confidence = 0.8;
	f->flows = g_array_new(FALSE, TRUE, sizeof(pd_flow_ref));
	f->examples = g_array_new(FALSE, TRUE, sizeof(pd_evidence));
	f->metrics = g_array_new(FALSE, TRUE, sizeof(pd_metric));
	f->impact_s = impact;
	f->first.frame = frame;
	f->first.ts = INT64_C(1700000000123456789);
	f->last.frame = frame + 10;
	f->last.ts = INT64_C(1700000001000000000);
	f->occurrences = 3;
	return f;
}

static void add_metric(pd_finding *f, const char *k, double v, const char *unit)
{
	pd_metric m = {.key = k, .value = v, .unit = unit};
	g_array_append_val(f->metrics, m);
}

static void add_example(pd_finding *f, uint64_t frame, const char *what)
{
	pd_evidence e = {.frame = frame, .ts = INT64_C(1700000000500000000)};
	g_strlcpy(e.what, what, sizeof e.what);
	g_array_append_val(f->examples, e);
}

/* A report with a bit of everything; extra adds one more flow finding. */
static pd_report *sample(bool with_flows, bool extra)
{
	pd_report *r = pd_report_new();
	pd_capture_summary *c = &r->cap;
	g_ptr_array_add(c->files, g_strdup("capture.pcap"));
	g_ptr_array_add(c->files, g_strdup("odd\x1b[2Jname\xff.pcap"));
	pd_linktype_count lt = {.linktype = 1, .packets = 1234};
	g_array_append_val(c->linktypes, lt);
	c->packets = 1234;
	c->wire_bytes = 987654;
	c->captured_bytes = 900000;
	c->first_ts = INT64_C(1700000000000000000);
	c->last_ts = INT64_C(1700000012345678901);
	c->snaplen = 262144;
	c->snap_truncated = 2;
	c->malformed[PD_MAL_TCP_OPTIONS] = 1;
	c->ipv4 = 1200;
	c->tcp = 1100;
	c->udp = 100;
	c->tcp_flows = 20;
	c->udp_flows = 5;
	pd_app_count app = {.flows = 3};
	g_strlcpy(app.name, EVIL_APP, sizeof app.name);
	g_array_append_val(c->apps, app);
	pd_capture_note(c, "a note with \x1b[5m blink", "带 \x1b[5m 闪烁的备注");

	pd_finding *a = finding("accept-queue-overflow", PD_SEV_ERROR, 3.0, 12);
	a->detail = g_strdup(EVIL_DETAIL);
	a->flow_count = 2;
	pd_flow_ref fr1 = flow_ref(3, 40000, 80, EVIL_APP);
	pd_flow_ref fr2 = flow_ref(4, 40001, 80, "HTTP");
	g_array_append_val(a->flows, fr1);
	g_array_append_val(a->flows, fr2);
	add_metric(a, "synack_retransmits", 3, "count");
	add_metric(a, "connect_delay", 1.5, "s");
	add_metric(a, "bad_value", 0.0 / 0.0, "ratio");
	add_example(a, 12, "SYN-ACK retransmission #1");
	add_example(a, 15, "evil \x1b[31m what");
	a->settings[0] = "net.core.somaxconn";
	a->settings[1] = "listen() backlog";
	a->settings[2] = "not-in-kb";
	a->n_settings = 3;
	g_ptr_array_add(r->findings, a);

	pd_finding *t = finding("capture-offload-tso", PD_SEV_INFO, 0, 1);
	t->capture_wide = true;
	t->flow_count = 7;
	t->detail = g_strdup("7 flows with segments larger than the MSS");
	g_ptr_array_add(r->findings, t);

	pd_finding *n = finding("nagle-delayed-ack", PD_SEV_WARNING, 0.42, 100);
	n->flow_count = 1;
	pd_flow_ref fr3 = flow_ref(5, 40002, 6379, "Redis");
	g_array_append_val(n->flows, fr3);
	n->detail = g_strdup("10 stalls of about 40 ms");
	add_metric(n, "stalls", 10, "count");
	add_metric(n, "stall_share", 0.375, "ratio");
	g_ptr_array_add(r->findings, n);

	if (extra) {
		pd_finding *z = finding("zero-window", PD_SEV_WARNING, 1.0, 200);
		z->flow_count = 1;
		pd_flow_ref fr4 = flow_ref(6, 40003, 443, "TLS");
		g_array_append_val(z->flows, fr4);
		g_ptr_array_add(r->findings, z);
	}

	if (with_flows) {
		r->flows = g_array_new(FALSE, TRUE, sizeof(pd_flow_row));
		pd_flow_row row = {.ref = fr1, .hs_rtt = 1500000, .state = "closed"};
		row.first_ts = c->first_ts;
		row.last_ts = c->last_ts;
		row.pkts[0] = 10;
		row.pkts[1] = 12;
		row.bytes[0] = 500;
		row.bytes[1] = 12000;
		g_array_append_val(r->flows, row);
		pd_flow_row row2 = {.ref = fr2, .hs_rtt = -1, .state = "syn-only"};
		g_array_append_val(r->flows, row2);
		r->flows_omitted = 4;
	}
	pd_report_sort(r);
	return r;
}

static char *render_v(const pd_report *r, const char *fmt, const char *lang, bool color,
		      bool flows, bool verbose)
{
	const pd_renderer *rd = pd_renderer_find(fmt);
	cr_assert_not_null(rd, "no renderer %s", fmt);
	pd_render_opts o = {.lang = lang, .color = color, .show_flows = flows, .verbose = verbose,
			    .version = "0.1.0"};
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	cr_assert(rd->render(r, &o, m));
	fclose(m);
	return buf;
}

static char *render(const pd_report *r, const char *fmt, const char *lang, bool color,
		    bool flows)
{
	return render_v(r, fmt, lang, color, flows, false);
}

static cJSON *load_schema(void)
{
	char *p = pd_test_src("docs/report.schema.json");
	char *text = NULL;
	cr_assert(g_file_get_contents(p, &text, NULL, NULL), "cannot read %s", p);
	cJSON *s = cJSON_Parse(text);
	cr_assert_not_null(s, "schema is not JSON");
	g_free(text);
	g_free(p);
	return s;
}

static void expect_safe(const char *out, const char *what)
{
	cr_expect(g_utf8_validate(out, -1, NULL), "%s: invalid UTF-8", what);
	cr_expect_null(strstr(out, "\x1b["), "%s: raw escape sequence", what);
	cr_expect_null(strstr(out, "\x1b]"), "%s: raw OSC sequence", what);
	cr_expect_null(strchr(out, '\x07'), "%s: raw BEL", what);
	cr_expect_null(strstr(out, "\xc2\x9b"), "%s: raw C1 CSI", what);
}

/* ---------------- model ---------------- */

Test(model, time_strings)
{
	char b[PD_TIME_STRLEN];
	pd_time_str(INT64_C(1700000000123456789), b, sizeof b);
	cr_expect_str_eq(b, "1700000000.123456789");
	pd_time_str(0, b, sizeof b);
	cr_expect_str_eq(b, "0.000000000");
	pd_time_str(-1, b, sizeof b);
	cr_expect_str_eq(b, "-0.000000001");
	pd_time_str(INT64_C(-1500000000), b, sizeof b);
	cr_expect_str_eq(b, "-1.500000000");
	pd_time_str(INT64_MIN, b, sizeof b);
	cr_expect_str_eq(b, "-9223372036.854775808");
	pd_time_iso(INT64_C(1700000000123456789), b, sizeof b);
	cr_expect_str_eq(b, "2023-11-14T22:13:20.123456789Z");
	pd_time_iso(-1, b, sizeof b);
	cr_expect_str_eq(b, "1969-12-31T23:59:59.999999999Z");
}

/* A finding counts each flow once however often detectors report it: the
 * listed flows by their refs, the rest in a bit set by flow id. */
Test(model, finding_counts_each_flow_once)
{
	pd_store *store = pd_store_new();
	pd_ctx ctx = {.store = store};
	pd_ctx *run = &ctx;
	pd_finding *f = pd_finding_get(run, "syn-flood", NULL);
	pd_flow *flow = g_malloc0(sizeof(pd_flow));
	flow->proto = 6;
	flow->addr[PD_CLIENT] = v4(10, 0, 0, 1);
	flow->addr[PD_SERVER] = v4(10, 0, 0, 2);
	/* 100 flows, ids in a scattered order, each reported twice in a row */
	for (uint64_t k = 0; k < 100; k++) {
		flow->id = (k * 37) % 100;
		pd_finding_add_flow(run, f, flow);
		pd_finding_add_flow(run, f, flow);
	}
	cr_assert_eq(f->flow_count, 100);
	cr_assert_eq(f->flows->len, PD_FINDING_MAX_FLOWS);
	/* again, listed and unlisted alike, not in a row */
	for (uint64_t k = 0; k < 100; k += 3) {
		flow->id = k;
		pd_finding_add_flow(run, f, flow);
		flow->id = 99 - k;
		pd_finding_add_flow(run, f, flow);
	}
	cr_assert_eq(f->flow_count, 100, "flows counted again: %" G_GUINT64_FORMAT, f->flow_count);
	/* an id far beyond the others, twice */
	flow->id = 5000000;
	pd_finding_add_flow(run, f, flow);
	flow->id = 7;
	pd_finding_add_flow(run, f, flow);
	flow->id = 5000000;
	pd_finding_add_flow(run, f, flow);
	cr_assert_eq(f->flow_count, 101);
	for (guint i = 0; i < f->flows->len; i++)
		cr_assert_lt(g_array_index(f->flows, pd_flow_ref, i).flow_id, 100);
	g_free(flow);
	pd_store_free(store);
}

/* Findings of one id on many flows become one: counts and time lost add
 * up, a per-flow extreme (the longest stall) stays the largest one. Both
 * ways in: the per-id cap's spill finding and the aggregation at the end. */
Test(model, merged_findings_keep_extremes)
{
	pd_store *store = pd_store_new();
	pd_ctx ctx = {.store = store};
	pd_ctx *run = &ctx;
	pd_flow *flow = g_malloc0(sizeof(pd_flow));
	flow->proto = 6;
	flow->addr[PD_CLIENT] = v4(10, 0, 0, 1);
	flow->addr[PD_SERVER] = v4(10, 0, 0, 2);
	const uint64_t n = PD_MAX_FLOW_FINDINGS + 44;
	for (uint64_t i = 0; i < n; i++) {
		flow->id = i;
		pd_finding *f = pd_finding_get(run, "zero-window", flow);
		pd_finding_occurrence(f, i + 1, 0, "zero window", NULL);
		pd_finding_metric(f, "zero_window_events", 2, PD_UNIT_COUNT, PD_AGG_SUM);
		pd_finding_metric(f, "zero_window_stall", 1.5, PD_UNIT_S, PD_AGG_SUM);
		pd_finding_metric(f, "longest_stall", i == 77 || i == n - 3 ? 9.25 : 1.0 + (double)(i % 7) / 10,
				  PD_UNIT_S, PD_AGG_MAX);
		if (f->impact_s == 0)
			pd_finding_add_impact(f, 1.5);
	}
	g_free(flow);
	GPtrArray *found = pd_store_take(store);
	cr_assert_eq(found->len, 1);
	pd_finding *agg = g_ptr_array_index(found, 0);
	cr_assert_str_eq(agg->def->id, "zero-window");
	cr_assert_eq(agg->flow_count, n);
	double events = -1, stall = -1, longest = -1;
	for (guint i = 0; i < agg->metrics->len; i++) {
		const pd_metric *m = &g_array_index(agg->metrics, pd_metric, i);
		if (!strcmp(m->key, "zero_window_events"))
			events = m->value;
		else if (!strcmp(m->key, "zero_window_stall"))
			stall = m->value;
		else if (!strcmp(m->key, "longest_stall"))
			longest = m->value;
	}
	cr_expect_eq(events, 2.0 * (double)n, "events %g stall %g", events, stall);
	cr_expect_eq(stall, 1.5 * (double)n);
	cr_expect_eq(longest, 9.25, "longest stall of all flows: %g", longest);
	for (guint i = 0; i < found->len; i++)
		pd_finding_free(g_ptr_array_index(found, i));
	g_ptr_array_free(found, TRUE);
	pd_store_free(store);
}

/* Store tests: a flow to server 10.0.0.SRV:PORT, its finding of id with
 * one occurrence at frame (time = frame seconds), impact and a first setting. */
static pd_finding *put(pd_ctx *run, pd_flow *flow, uint64_t id, uint8_t srv, uint16_t port, const char *fid,
		       uint64_t frame, double impact, const char *setting)
{
	flow->id = id;
	flow->proto = 6;
	flow->addr[PD_CLIENT] = v4(10, 0, 1, (uint8_t)id);
	flow->addr[PD_SERVER] = v4(10, 0, 0, srv);
	flow->port[PD_CLIENT] = (uint16_t)(40000 + id);
	flow->port[PD_SERVER] = port;
	pd_finding *f = pd_finding_get(run, fid, flow);
	pd_finding_occurrence(f, frame, (pd_time)frame * PD_NS_PER_SEC, "x", NULL);
	pd_finding_add_impact(f, impact);
	if (setting)
		pd_finding_settings(f, setting, NULL);
	return f;
}

static const pd_finding *taken(GPtrArray *found, const char *id, int n)
{
	for (guint i = 0; i < found->len; i++) {
		const pd_finding *f = g_ptr_array_index(found, i);
		if (!strcmp(f->def->id, id) && n-- == 0)
			return f;
	}
	return NULL;
}

static void free_taken(GPtrArray *found)
{
	for (guint i = 0; i < found->len; i++)
		pd_finding_free(g_ptr_array_index(found, i));
	g_ptr_array_free(found, TRUE);
}

/* The same problem on a few connections to one server is one finding
 * (scope server) whose members are the flows' own; another server, or
 * another first setting (another probable cause), stays apart. */
Test(model, one_problem_per_server)
{
	pd_store *store = pd_store_new();
	pd_ctx ctx = {.store = store};
	pd_flow *flow = g_malloc0(sizeof(pd_flow));
	put(&ctx, flow, 1, 2, 443, "syn-retransmit", 10, 2.0, "firewall dropping SYN/SYN-ACK");
	put(&ctx, flow, 2, 2, 443, "syn-retransmit", 20, 2.5, "firewall dropping SYN/SYN-ACK");
	put(&ctx, flow, 3, 2, 443, "syn-retransmit", 30, 1.5, "firewall dropping SYN/SYN-ACK");
	put(&ctx, flow, 4, 3, 443, "syn-retransmit", 40, 2.0, "firewall dropping SYN/SYN-ACK");
	put(&ctx, flow, 5, 2, 443, "syn-retransmit", 50, 2.0, "net.core.somaxconn");
	g_free(flow);
	GPtrArray *found = pd_store_take(store);
	cr_assert_eq(found->len, 3);
	const pd_finding *g = taken(found, "syn-retransmit", 0);
	cr_assert_eq(g->flow_count, 3);
	cr_assert(g->one_server && g->capture_wide);
	cr_assert_eq(g->members->len, 3);
	cr_assert_eq(g->first.frame, 10);
	cr_assert_eq(g->last.frame, 30);
	cr_assert_float_eq(g->impact_s, 6.0, 1e-9);
	cr_assert_str_eq(g->settings[0], "firewall dropping SYN/SYN-ACK");
	cr_assert(g_str_has_prefix(g->detail, "3 connections to 10.0.0.2:443; worst: "), "%s", g->detail);
	const pd_finding *m = g_ptr_array_index(g->members, 1);
	cr_assert_eq(g_array_index(m->flows, pd_flow_ref, 0).flow_id, 2);
	cr_assert_eq(m->first.frame, 20);
	for (int i = 1; i < 3; i++) {
		const pd_finding *o = taken(found, "syn-retransmit", i);
		cr_assert_eq(o->flow_count, 1);
		cr_assert(!o->one_server && !o->members);
	}
	free_taken(found);
	pd_store_free(store);
}

/* A symptom's own span is its whole extent: examples quoted inside the
 * cause's stalls do not make resends outside them the cause's doing
 * (Zeek's 206_example_b.pcap: two brief zero windows, resends all over). */
Test(model, symptom_span_beyond_its_examples)
{
	pd_store *store = pd_store_new();
	pd_ctx ctx = {.store = store};
	pd_flow *flow = g_malloc0(sizeof(pd_flow));
	pd_finding *zw = put(&ctx, flow, 1, 2, 80, "zero-window", 166, 0.075, NULL);
	pd_finding_span(zw, 165, 1047);
	pd_finding *rx = put(&ctx, flow, 1, 2, 80, "retransmissions", 217, 65.0, NULL);
	pd_finding_occurrence(rx, 224, 224 * PD_NS_PER_SEC, "r", NULL);
	pd_finding_span(rx, 217, 1300);
	pd_finding *inside = put(&ctx, flow, 2, 2, 81, "zero-window", 230, 0.2, NULL);
	pd_finding_span(inside, 230, 234);
	pd_finding *caught = put(&ctx, flow, 2, 2, 81, "rto-timeouts", 232, 0.2, NULL);
	pd_finding_span(caught, 232, 232);
	g_free(flow);
	GPtrArray *found = pd_store_take(store);
	cr_assert_null(taken(found, "retransmissions", 0)->explained_by, "resends beyond the stalls are their own");
	cr_assert_float_eq(taken(found, "zero-window", 0)->impact_s, 0.075, 1e-9, "it takes none of their time");
	cr_assert_str_eq(taken(found, "rto-timeouts", 0)->explained_by, "zero-window",
			 "a resend of data caught by the closed window is its evidence");
	free_taken(found);
	pd_store_free(store);
}

/* A cause explains a symptom on its flow only inside the frames it spans;
 * a listener-wide cause also explains another connection's SYN retries to
 * the same server while it lasted, whose flow and time become its own. */
Test(model, causes_need_their_own_evidence)
{
	pd_store *store = pd_store_new();
	pd_ctx ctx = {.store = store};
	pd_flow *flow = g_malloc0(sizeof(pd_flow));
	pd_finding *aq = put(&ctx, flow, 1, 2, 80, "accept-queue-overflow", 10, 3.0, NULL);
	pd_finding_occurrence(aq, 20, 20 * PD_NS_PER_SEC, "y", NULL);
	pd_finding_span(aq, 10, 20);
	pd_finding *in = pd_finding_get(&ctx, "rto-timeouts", flow);
	pd_finding_occurrence(in, 12, 12 * PD_NS_PER_SEC, "r", NULL);
	pd_finding_occurrence(in, 18, 18 * PD_NS_PER_SEC, "r", NULL);
	pd_finding_add_impact(in, 2.0);
	pd_finding *out = pd_finding_get(&ctx, "retransmissions", flow);
	pd_finding_occurrence(out, 15, 15 * PD_NS_PER_SEC, "r", NULL);
	pd_finding_occurrence(out, 40, 40 * PD_NS_PER_SEC, "r", NULL);
	/* another client of the listener, retrying 1 s after the stall began */
	put(&ctx, flow, 2, 2, 80, "syn-retransmit", 11, 1.5, NULL);
	/* one long after it: not the same overflow */
	put(&ctx, flow, 3, 2, 80, "syn-retransmit", 90, 1.0, NULL);
	/* and one to another server */
	put(&ctx, flow, 4, 3, 80, "syn-retransmit", 12, 1.0, NULL);
	g_free(flow);
	GPtrArray *found = pd_store_take(store);
	const pd_finding *c = taken(found, "accept-queue-overflow", 0);
	cr_assert_not_null(c);
	cr_assert_str_eq(taken(found, "rto-timeouts", 0)->explained_by, "accept-queue-overflow");
	cr_assert_null(taken(found, "retransmissions", 0)->explained_by, "loss after the stall is its own");
	cr_assert_eq(c->flow_count, 2);
	cr_assert(c->one_server);
	cr_assert_float_eq(c->impact_s, 3.0 + 1.5, 1e-9);
	int explained = 0, apart = 0;
	for (int i = 0; i < 3; i++) {
		const pd_finding *s = taken(found, "syn-retransmit", i);
		cr_assert_not_null(s);
		if (s->explained_by) {
			explained++;
			cr_assert_eq(s->first.frame, 11);
			cr_assert_eq(s->severity, PD_SEV_INFO);
		} else {
			apart++;
		}
	}
	cr_assert_eq(explained, 1);
	cr_assert_eq(apart, 2);
	free_taken(found);
	pd_store_free(store);
}

/* Two findings of one detector on one flow that name one problem: the
 * detector says which is the cause; the cause takes the worse severity,
 * and the time is counted once. A declared row never applies on its own. */
Test(model, declared_cause_and_worst_severity)
{
	pd_store *store = pd_store_new();
	pd_ctx ctx = {.store = store};
	pd_flow *flow = g_malloc0(sizeof(pd_flow));
	pd_finding *retx = put(&ctx, flow, 1, 2, 80, "retransmissions", 10, 4.0, NULL);
	pd_finding_set_severity(retx, PD_SEV_INFO);
	pd_finding *rto = put(&ctx, flow, 1, 2, 80, "rto-timeouts", 12, 4.0, NULL);
	pd_finding_set_severity(rto, PD_SEV_WARNING);
	pd_finding_explained_by(rto, retx);
	/* the same pair on another flow, undeclared: two findings */
	put(&ctx, flow, 2, 3, 80, "retransmissions", 30, 1.0, NULL);
	put(&ctx, flow, 2, 3, 80, "rto-timeouts", 31, 1.0, NULL);
	g_free(flow);
	GPtrArray *found = pd_store_take(store);
	int linked = 0;
	for (int i = 0; i < 2; i++) {
		const pd_finding *c = taken(found, "retransmissions", i);
		const pd_finding *t = taken(found, "rto-timeouts", i);
		cr_assert(c && t);
		if (g_array_index(c->flows, pd_flow_ref, 0).flow_id != 1)
			continue;
		linked++;
		cr_assert_eq(c->severity, PD_SEV_WARNING);
		cr_assert_float_eq(c->impact_s, 4.0, 1e-9);
	}
	cr_assert_eq(linked, 1);
	int explained = 0;
	for (int i = 0; i < 2; i++)
		explained += taken(found, "rto-timeouts", i)->explained_by != NULL;
	cr_assert_eq(explained, 1);
	free_taken(found);
	pd_store_free(store);
}

Test(model, names_and_parse)
{
	cr_expect_str_eq(pd_severity_name(PD_SEV_INFO), "info");
	cr_expect_str_eq(pd_severity_name(PD_SEV_WARNING), "warning");
	cr_expect_str_eq(pd_severity_name(PD_SEV_ERROR), "error");
	pd_severity s;
	cr_expect(pd_severity_parse("warning", &s) && s == PD_SEV_WARNING);
	cr_expect(pd_severity_parse("ERROR", &s) && s == PD_SEV_ERROR);
	cr_expect(!pd_severity_parse("fatal", &s));
	cr_expect(!pd_severity_parse(NULL, &s));
	cr_expect_str_eq(pd_category_name(PD_CAT_NAGLE_DELAYED_ACK), "nagle-delayed-ack");
	cr_expect_str_eq(pd_category_name(PD_CAT_FRAGMENTATION_PMTU), "fragmentation-pmtu");
	cr_expect_str_eq(pd_category_name(PD_CAT_CONNECTION_CHURN), "connection-churn");
	cr_expect_str_eq(pd_category_name(PD_CAT_RESETS), "resets");
}

Test(model, sort_order)
{
	pd_report *r = pd_report_new();
	g_ptr_array_add(r->findings, finding("retransmissions", PD_SEV_WARNING, 1.0, 50));
	g_ptr_array_add(r->findings, finding("capture-drops", PD_SEV_INFO, 9.0, 1));
	g_ptr_array_add(r->findings, finding("syn-unanswered", PD_SEV_ERROR, 0.5, 9));
	g_ptr_array_add(r->findings, finding("retransmissions", PD_SEV_WARNING, 1.0, 20));
	g_ptr_array_add(r->findings, finding("nagle-delayed-ack", PD_SEV_WARNING, 1.0, 1));
	g_ptr_array_add(r->findings, finding("zero-window", PD_SEV_WARNING, 2.0, 99));
	pd_report_sort(r);
	const char *ids[] = {"syn-unanswered", "zero-window", "nagle-delayed-ack",
			     "retransmissions", "retransmissions", "capture-drops"};
	for (guint i = 0; i < r->findings->len; i++) {
		const pd_finding *f = r->findings->pdata[i];
		cr_expect_str_eq(f->def->id, ids[i], "position %u", i);
	}
	cr_expect_eq(((pd_finding *)r->findings->pdata[3])->first.frame, 20);
	pd_report_free(r);
	pd_report_free(NULL);
	pd_finding_free(NULL);
}

/* ---------------- escaping ---------------- */

Test(escape, text_and_markdown)
{
	GString *b = g_string_new(NULL);
	pd_escape_text(b, "a\x1b[31mb\xff\xc2\x85\xc3\xbc\xe2\x80\xae\x7f\n中");
	cr_expect_str_eq(b->str, "a\\x1B[31mb\\xFF\\xC2\\x85\xc3\xbc\\u{202E}\\x7F\\x0A中");
	g_string_truncate(b, 0);
	pd_escape_text(b, "\xe4\xb8"); /* truncated sequence */
	cr_expect_str_eq(b->str, "\\xE4\\xB8");
	g_string_truncate(b, 0);
	pd_escape_text(b, "\xc0\xaf"); /* overlong */
	cr_expect_str_eq(b->str, "\\xC0\\xAF");
	g_string_truncate(b, 0);
	pd_escape_markdown(b, "*x*|<script>&[a](b)`c`");
	cr_expect_str_eq(b->str, "\\*x\\*\\|&lt;script&gt;&amp;\\[a\\](b)\\`c\\`");
	g_string_free(b, TRUE);
}

/* ---------------- JSON ---------------- */

Test(json, validates_against_schema)
{
	cJSON *schema = load_schema();
	for (int flows = 0; flows < 2; flows++) {
		pd_report *r = sample(flows, flows);
		char *out = render(r, "json", "en", false, true);
		cJSON *doc = cJSON_Parse(out);
		cr_assert_not_null(doc, "output is not JSON");
		GString *errs = g_string_new(NULL);
		cr_expect(pd_schema_validate(schema, doc, errs), "schema errors:\n%s", errs->str);
		g_string_free(errs, TRUE);
		cr_expect_eq(cJSON_GetObjectItemCaseSensitive(doc, "flows") != NULL, flows == 1);
		expect_safe(out, "json");
		cJSON_Delete(doc);
		free(out);
		pd_report_free(r);
	}
	/* an empty report too */
	pd_report *r = pd_report_new();
	char *out = render(r, "json", "en", false, false);
	cJSON *doc = cJSON_Parse(out);
	cr_expect(pd_schema_validate(schema, doc, NULL));
	cJSON_Delete(doc);
	free(out);
	pd_report_free(r);
	cJSON_Delete(schema);
}

Test(json, schema_rejects_bad_documents)
{
	cJSON *schema = load_schema();
	pd_report *r = sample(true, false);
	cJSON *doc = pd_report_to_json(r, "x");
	cJSON *f0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "findings"), 0);
	cJSON_ReplaceItemInObjectCaseSensitive(f0, "severity", cJSON_CreateString("fatal"));
	cJSON_AddItemToObject(doc, "surprise", cJSON_CreateTrue());
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "summary");
	GString *errs = g_string_new(NULL);
	cr_expect(!pd_schema_validate(schema, doc, errs));
	cr_expect(strstr(errs->str, "severity"), "%s", errs->str);
	cr_expect(strstr(errs->str, "surprise"), "%s", errs->str);
	cr_expect(strstr(errs->str, "summary"), "%s", errs->str);
	g_string_free(errs, TRUE);
	cJSON_Delete(doc);
	pd_report_free(r);
	cJSON_Delete(schema);
}

Test(json, content)
{
	pd_report *r = sample(true, false);
	cJSON *doc = pd_report_to_json(r, "0.1.0");
	cr_expect_str_eq(cJSON_GetObjectItem(doc, "schema_version")->valuestring, PD_SCHEMA_VERSION);
	cr_expect_str_eq(cJSON_GetObjectItem(doc, "lang")->valuestring, "en");
	const cJSON *cap = cJSON_GetObjectItem(doc, "capture");
	cr_expect_str_eq(cJSON_GetObjectItem(cap, "first_ts")->valuestring, "1700000000.000000000");
	cr_expect_str_eq(cJSON_GetObjectItem(cap, "last_ts_iso")->valuestring,
			 "2023-11-14T22:13:32.345678901Z");
	const cJSON *mal = cJSON_GetObjectItem(cap, "malformed");
	cr_expect_eq(cJSON_GetArraySize(mal), 1);
	const cJSON *f = pd_test_finding(doc, "accept-queue-overflow", 0);
	cr_assert_not_null(f);
	cr_expect_str_eq(cJSON_GetObjectItem(f, "scope")->valuestring, "flow");
	cr_expect_str_eq(cJSON_GetObjectItem(f, "category")->valuestring, "handshake");
	const cJSON *m = cJSON_GetObjectItem(cJSON_GetObjectItem(f, "metrics"), "bad_value");
	cr_expect_eq(cJSON_GetObjectItem(m, "value")->valuedouble, 0.0, "NaN clamped");
	const cJSON *settings = cJSON_GetObjectItem(f, "settings");
	cr_expect_eq(cJSON_GetArraySize(settings), 3);
	cr_expect_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(settings, 0), "kind")->valuestring,
			 "sysctl");
	cr_expect(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(settings, 2), "kind")));
	/* default ranking from the catalogue when the detector set none */
	const cJSON *n = pd_test_finding(doc, "nagle-delayed-ack", 0);
	const cJSON *ns = cJSON_GetObjectItem(n, "settings");
	cr_expect_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(ns, 0), "name")->valuestring,
			 "TCP_NODELAY");
	const cJSON *t = pd_test_finding(doc, "capture-offload-tso", 0);
	cr_expect_str_eq(cJSON_GetObjectItem(t, "scope")->valuestring, "capture");
	const cJSON *by = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "summary"),
					      "findings_by_severity");
	cr_expect_eq(cJSON_GetObjectItem(by, "error")->valueint, 1);
	cr_expect_eq(cJSON_GetObjectItem(by, "warning")->valueint, 1);
	cr_expect_eq(cJSON_GetObjectItem(by, "info")->valueint, 1);
	cr_expect_eq(pd_test_count_at_least(doc, "warning"), 2);
	cJSON_Delete(doc);
	pd_report_free(r);
}

/* ---------------- determinism and safety, all formats ---------------- */

Test(render, deterministic_and_safe)
{
	static const char *fmts[] = {"text", "json", "markdown"};
	static const char *langs[] = {"en", "zh"};
	for (size_t i = 0; i < G_N_ELEMENTS(fmts); i++)
		for (size_t k = 0; k < G_N_ELEMENTS(langs); k++) {
			pd_report *r1 = sample(true, true), *r2 = sample(true, true);
			char *a = render(r1, fmts[i], langs[k], false, true);
			char *b = render(r2, fmts[i], langs[k], false, true);
			char *c = render(r1, fmts[i], langs[k], false, true);
			cr_expect_str_eq(a, b, "%s/%s differs between identical reports", fmts[i],
					 langs[k]);
			cr_expect_str_eq(a, c, "%s/%s differs between two renderings", fmts[i],
					 langs[k]);
			expect_safe(a, fmts[i]);
			cr_expect_null(strchr(a, '\x1b'), "%s: ESC without --color", fmts[i]);
			cr_expect_null(strstr(a, "\xff"), "%s: raw invalid byte", fmts[i]);
			free(a);
			free(b);
			free(c);
			pd_report_free(r1);
			pd_report_free(r2);
		}
}

Test(render, unknown_format)
{
	cr_expect_null(pd_renderer_find("yaml"));
	cr_expect_null(pd_renderer_find(NULL));
	cr_expect_not_null(pd_renderer_find("text"));
}

static int display_width(const char *line, size_t len)
{
	int w = 0;
	for (const char *p = line; p < line + len; p = g_utf8_next_char(p))
		w += g_unichar_iswide(g_utf8_get_char(p)) ? 2 : 1;
	return w;
}

/* Text without whitespace, so wrapped prose can be searched for. */
static char *squash(const char *s)
{
	GString *b = g_string_new(NULL);
	for (; *s; s++)
		if (!g_ascii_isspace(*s))
			g_string_append_c(b, *s);
	return g_string_free(b, FALSE);
}

Test(text, content_and_wrapping)
{
	pd_report *r = sample(true, false);
	char *en = render(r, "text", "en", false, true);
	char *zh = render(r, "text", "zh", false, true);
	const pd_finding_def *d = pd_catalog_find("accept-queue-overflow");
	cr_expect(strstr(en, d->title_en));
	cr_expect(strstr(en, "sysctl net.core.somaxconn"), "check command shown");
	cr_expect(strstr(en, "#12"), "first frame shown");
	cr_expect(strstr(en, "3.000 s"), "impact shown");
	cr_expect(strstr(en, "10.0.0.1:40000 -> 10.0.0.2:80"), "flow endpoints shown");
	cr_expect(strstr(en, "\\x1B[31mEVIL\\xFF\\xFE"), "app name escaped visibly");
	cr_expect(strstr(en, "37.5%"), "ratio as percentage");
	/* capture-quality findings come before the others' details (the
	 * verdict, above both, names the warnings and errors) */
	char *tso = strstr(en, pd_catalog_find("capture-offload-tso")->title_en);
	char *details = strstr(en, "Findings (");
	cr_expect(tso && details && tso < strstr(details, d->title_en));
	cr_expect(strstr(en, "pkts 10/12"), "flow table");
	cr_expect(strstr(zh, d->title_zh), "Chinese title");
	char *zh_flat = squash(zh), *ex = squash(d->explain_zh);
	char *adv = squash(pd_kb_find("net.core.somaxconn")->caveat_zh);
	cr_expect(strstr(zh_flat, ex), "Chinese explanation");
	cr_expect(strstr(zh_flat, adv), "Chinese advice");
	g_free(zh_flat);
	g_free(ex);
	g_free(adv);
	const char *outs[] = {en, zh};
	for (size_t k = 0; k < 2; k++) {
		const char *p = outs[k];
		while (*p) {
			const char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);
			cr_expect(display_width(p, len) <= 100, "line over 100 columns: %.*s",
				  (int)len, p);
			p += len + (nl ? 1 : 0);
		}
	}
	char *col = render(r, "text", "en", true, false);
	cr_expect(strstr(col, "\x1b[1;31m"), "colour when allowed");
	cr_expect_null(strstr(col, "\x1b[31mEVIL"), "but never from the packet");
	cr_expect_null(strstr(col, "pkts 10/12"), "no flow table without --flows");
	free(col);
	free(en);
	free(zh);
	pd_report_free(r);
}

Test(markdown, content)
{
	pd_report *r = sample(true, false);
	char *md = render(r, "markdown", "en", false, false);
	cr_expect(strstr(md, "| # |"), "summary table");
	cr_expect(strstr(md, "<details><summary>"), "flow details");
	cr_expect(strstr(md, "`sysctl net.core.somaxconn"), "check in a code span");
	cr_expect(strstr(md, "\\x1B\\[31mEVIL"), "app name escaped for Markdown");
	cr_expect_null(strstr(md, "<script"));
	free(md);
	char *zh = render(r, "markdown", "zh", false, false);
	cr_expect(strstr(zh, pd_catalog_find("nagle-delayed-ack")->title_zh));
	free(zh);
	pd_report_free(r);
}

/* ---------------- verdict, folding, labels ---------------- */

/* Position of needle in hay, or SIZE_MAX. */
static size_t pos(const char *hay, const char *needle)
{
	const char *p = hay && needle ? strstr(hay, needle) : NULL;
	return p ? (size_t)(p - hay) : SIZE_MAX;
}

Test(verdict, first_and_in_order_of_time_lost)
{
	pd_report *r = sample(true, true); /* accept queue 3 s, zero window 1 s, Nagle 0.42 s */
	const char *aq = pd_catalog_find("accept-queue-overflow")->title_en;
	const char *zw = pd_catalog_find("zero-window")->title_en;
	const char *ng = pd_catalog_find("nagle-delayed-ack")->title_en;
	char *en = render(r, "text", "en", false, false);
	size_t v = pos(en, "Verdict (3 problems, most time lost first; 4.420 s lost in all):");
	cr_expect_lt(v, pos(en, "Capture:"), "the verdict opens the report:\n%s", en);
	cr_expect_lt(pos(en, aq), pos(en, zw));
	cr_expect_lt(pos(en, zw), pos(en, ng));
	cr_expect_lt(pos(en, ng), pos(en, "Capture:"));
	/* what, where, cost, confidence on one line; the first setting after */
	cr_expect(strstr(en, " 1. ERROR "), "%s", en);
	char *en_flat = squash(en);
	cr_expect(strstr(en_flat, "2flow(s);server10.0.0.2:80;3.000slost;confidence80%"), "%s", en);
	free(en_flat);
	cr_expect(strstr(en, "10.0.0.1:40002 -> 10.0.0.2:6379; 0.420 s lost"), "%s", en);
	cr_expect(strstr(en, "First: net.core.somaxconn — check: sysctl net.core.somaxconn"), "%s",
		  en);
	/* info notes are not root causes */
	cr_expect_gt(pos(en, pd_catalog_find("capture-offload-tso")->title_en), pos(en, "Capture:"));
	free(en);

	char *md = render(r, "markdown", "en", false, false);
	cr_expect_lt(pos(md, "## Verdict"), pos(md, "## Capture"));
	cr_expect(strstr(md, "1. **error · "), "%s", md);
	cr_expect_lt(pos(md, aq), pos(md, zw));
	cr_expect_lt(pos(md, zw), pos(md, "## Capture"));
	free(md);

	char *zh = render(r, "text", "zh", false, false);
	char *zh_flat = squash(zh);
	cr_expect(strstr(zh, "结论（共 3 个问题，按损失时间从多到少排列；合计损失 4.420 秒）"), "%s", zh);
	cr_expect(strstr(zh_flat, "损失3.000秒；置信度80%"), "%s", zh);
	cr_expect(strstr(zh_flat, "2条流；服务端10.0.0.2:80"), "%s", zh);
	free(zh_flat);
	free(zh);
	pd_report_free(r);

	/* nothing at warning or above: said so, explicitly */
	r = pd_report_new();
	char *none = render(r, "text", "en", false, false);
	cr_expect(strstr(none, "Verdict: No problems found."), "%s", none);
	free(none);
	none = render(r, "markdown", "zh", false, false);
	cr_expect(strstr(none, "未发现问题。"), "%s", none);
	free(none);
	pd_report_free(r);
}

Test(verdict, settings_fold_past_two_unless_verbose)
{
	pd_report *r = sample(false, false); /* accept queue: somaxconn, backlog, not-in-kb */
	char *en = render(r, "text", "en", false, false);
	char *flat = squash(en);
	cr_expect(strstr(flat, "Alsopossible:not-in-kb(detailsindocs/settings.mdorwith--verbose)"),
		  "%s", en);
	cr_expect_null(strstr(en, "3. not-in-kb"));
	char *v = render_v(r, "text", "en", false, false, true);
	cr_expect(strstr(v, "3. not-in-kb"), "%s", v);
	cr_expect_null(strstr(v, "Also possible"));
	char *md = render(r, "markdown", "en", false, false);
	cr_expect(strstr(md, "Also possible: not-in-kb (details in docs/settings.md"), "%s", md);
	char *mdv = render_v(r, "markdown", "en", false, false, true);
	cr_expect(strstr(mdv, "3. **not-in-kb**"), "%s", mdv);
	free(en);
	free(flat);
	free(v);
	free(md);
	free(mdv);
	pd_report_free(r);
}

/* A Chinese report carries none of the renderers' English labels: the
 * sample without the strings detectors and packets supply (those become
 * bilingual through the finding API), and without the knowledge base's
 * commands and defaults, which are commands. */
Test(labels, zh_reports_have_no_english_label)
{
	pd_report *r = sample(true, true);
	for (guint i = 0; i < r->findings->len; i++) {
		pd_finding *f = r->findings->pdata[i];
		g_clear_pointer(&f->detail, g_free);
		g_array_set_size(f->examples, 0);
		for (guint k = 0; k < f->flows->len; k++)
			g_array_index(f->flows, pd_flow_ref, k).app[0] = '\0';
	}
	g_array_set_size(r->cap.notes, 0);
	g_array_set_size(r->cap.apps, 0);
	for (guint k = 0; k < r->flows->len; k++)
		g_array_index(r->flows, pd_flow_row, k).ref.app[0] = '\0';
	const pd_labels *en = pd_labels_get(false), *zh = pd_labels_get(true);
	const char *const *el = (const char *const *)en, *const *zl = (const char *const *)zh;
	const char *fmts[] = {"text", "markdown"};
	for (size_t k = 0; k < G_N_ELEMENTS(fmts); k++) {
		char *out = render_v(r, fmts[k], "zh", false, true, true);
		char *flat = squash(out);
		/* commands and defaults from the KB are not labels */
		for (size_t i = 0; i < pd_kb_len; i++) {
			const char *drop[] = {pd_kb[i].check, pd_kb[i].default_value, pd_kb[i].name};
			for (size_t j = 0; j < G_N_ELEMENTS(drop); j++) {
				if (!drop[j])
					continue;
				char *d = squash(drop[j]);
				for (char *p; *d && (p = strstr(flat, d));)
					memset(p, '_', strlen(d));
				free(d);
			}
		}
		for (size_t i = 0; i < pd_catalog_len; i++) {
			char *d = squash(pd_catalog[i].id);
			for (char *p; (p = strstr(flat, d));)
				memset(p, '_', strlen(d));
			free(d);
		}
		int checked = 0;
		for (size_t i = 0; i < PD_LABELS_COUNT; i++) {
			if (!el[i] || !zl[i] || strcmp(el[i], zl[i]) == 0)
				continue;
			char *e = squash(el[i]);
			/* short words ("s", "ms", "ooo") hide inside ids and metric keys */
			if (strlen(e) >= 5) {
				/* a hit inside a longer identifier (JavaServerSocket) is not the label */
				const char *hit = flat;
				size_t el_len = strlen(e);
				while ((hit = strstr(hit, e)) &&
				       ((hit > flat && g_ascii_isalpha(hit[-1]) && g_ascii_isalpha(e[0])) ||
					(g_ascii_isalpha(hit[el_len]) && g_ascii_isalpha(e[el_len - 1]))))
					hit += el_len;
				cr_expect_null(hit, "%s (zh) still says \"%s\": ...%.60s...", fmts[k], el[i],
					       hit ? (hit - flat > 20 ? hit - 20 : flat) : "");
				checked++;
			}
			free(e);
		}
		cr_expect_gt(checked, 100);
		free(flat);
		free(out);
	}
	pd_report_free(r);
}

/* ---------------- baseline, diff, junit ---------------- */

static char *write_json(const pd_report *r, const char *dir, const char *name)
{
	cJSON *doc = pd_report_to_json(r, "0.1.0");
	char *text = cJSON_Print(doc);
	char *path = g_build_filename(dir, name, NULL);
	cr_assert(g_file_set_contents(path, text, -1, NULL));
	cJSON_free(text);
	cJSON_Delete(doc);
	return path;
}

static int run_diff(const char *a, const char *b, char **out)
{
	char *argv[] = {(char *)"diff", (char *)a, (char *)b, NULL};
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int st = pd_diff_main(3, argv, m);
	fclose(m);
	if (out)
		*out = buf;
	else
		free(buf);
	return st;
}

Test(baseline, marks_known_and_diff_exit_codes)
{
	char *dir = g_dir_make_tmp("pdtest-XXXXXX", NULL);
	cr_assert_not_null(dir);
	pd_report *old = sample(false, false);
	pd_report *cur = sample(false, true);
	char *old_path = write_json(old, dir, "old.json");
	char *new_path = write_json(cur, dir, "new.json");

	GError *err = NULL;
	cr_assert(pd_baseline_apply(cur, old_path, &err));
	for (guint i = 0; i < cur->findings->len; i++) {
		const pd_finding *f = cur->findings->pdata[i];
		bool want = strcmp(f->def->id, "zero-window") != 0;
		cr_expect_eq(f->known, want, "%s known=%d", f->def->id, f->known);
	}

	char *out = NULL;
	cr_expect_eq(run_diff(old_path, new_path, &out), 1, "new finding -> 1");
	cr_expect(strstr(out, "zero-window"), "%s", out);
	cr_expect(strstr(out, "1 new"), "%s", out);
	free(out);
	cr_expect_eq(run_diff(new_path, old_path, &out), 0, "only resolved -> 0");
	cr_expect(strstr(out, "1 resolved"), "%s", out);
	free(out);
	cr_expect_eq(run_diff(old_path, old_path, NULL), 0);

	char *missing = g_build_filename(dir, "missing.json", NULL);
	cr_expect_eq(run_diff(old_path, missing, NULL), 3);
	char *garbage = g_build_filename(dir, "garbage.json", NULL);
	g_file_set_contents(garbage, "{not json", -1, NULL);
	cr_expect_eq(run_diff(garbage, new_path, NULL), 3);
	cr_expect(!pd_baseline_apply(cur, garbage, &err));
	cr_expect_not_null(err);
	g_clear_error(&err);
	char *argv[] = {(char *)"diff", (char *)old_path, NULL};
	cr_expect_eq(pd_diff_main(2, argv, stdout), 2, "usage error");

	/* JUnit: known findings do not fail; the new one does */
	char *junit = g_build_filename(dir, "junit.xml", NULL);
	cr_assert(pd_junit_write(cur, junit, PD_SEV_WARNING, &err));
	char *xml = NULL;
	cr_assert(g_file_get_contents(junit, &xml, NULL, NULL));
	cr_expect(strstr(xml, "<testsuites"));
	cr_expect(strstr(xml, "name=\"zero-window\">\n      <failure"), "%s", xml);
	cr_expect_null(strstr(xml, "name=\"accept-queue-overflow\">\n      <failure"));
	cr_expect(strstr(xml, "failures=\"1\""));
	expect_safe(xml, "junit");
	cr_expect_null(strchr(xml, '\x1b'));
	g_free(xml);

	g_unlink(junit);
	g_unlink(garbage);
	g_unlink(old_path);
	g_unlink(new_path);
	g_rmdir(dir);
	g_free(junit);
	g_free(garbage);
	g_free(missing);
	g_free(old_path);
	g_free(new_path);
	g_free(dir);
	pd_report_free(old);
	pd_report_free(cur);
}

Test(baseline, pcapdoc_diff_cli)
{
	/* through the binary, when the build provides it */
	if (!g_getenv("PD_PCAPDOC"))
		cr_skip_test("PD_PCAPDOC not set");
	char *dir = g_dir_make_tmp("pdtest-XXXXXX", NULL);
	pd_report *old = sample(false, false);
	pd_report *cur = sample(false, true);
	char *a = write_json(old, dir, "a.json"), *b = write_json(cur, dir, "b.json");
	char *out = NULL, *err = NULL;
	const char *argv1[] = {"diff", a, b, NULL};
	cr_expect_eq(pd_test_run(&out, &err, argv1), 1, "stdout %s stderr %s", out, err);
	g_free(out);
	g_free(err);
	const char *argv2[] = {"diff", a, a, NULL};
	cr_expect_eq(pd_test_run(&out, &err, argv2), 0);
	g_free(out);
	g_free(err);
	const char *argv3[] = {"diff", a, "/nonexistent/x.json", NULL};
	cr_expect_eq(pd_test_run(&out, &err, argv3), 3);
	g_free(out);
	g_free(err);
	g_unlink(a);
	g_unlink(b);
	g_rmdir(dir);
	g_free(a);
	g_free(b);
	g_free(dir);
	pd_report_free(old);
	pd_report_free(cur);
}

/* ---------------- the real binary on the golden captures ---------------- */

/* Every capture twice: the same JSON, valid against the schema, UTF-8.
 * The limit is meson's (scaled for sanitizer builds); criterion's own is
 * only a backstop above it. */
Test(captures, json_valid_and_deterministic, .timeout = 1500)
{
	if (!g_getenv("PD_PCAPDOC"))
		cr_skip_test("PD_PCAPDOC not set");
	cJSON *schema = load_schema();
	char *root = pd_test_src("testdata/captures");
	GPtrArray *files = pd_test_list_captures(root);
	for (guint i = 0; i < files->len; i++) {
		const char *cap = files->pdata[i];
		const char *json_args[] = {"--format", "json", "--flows", cap, NULL};
		char *a = NULL, *b = NULL, *err = NULL;
		int st = pd_test_run(&a, &err, json_args);
		g_free(err);
		cr_expect(st == 0 || st == 3 || st == 4, "%s: exit %d", cap, st);
		pd_test_run(&b, NULL, json_args);
		cr_expect_str_eq(a ? a : "", b ? b : "", "%s: JSON differs between runs", cap);
		cJSON *doc = a ? cJSON_Parse(a) : NULL;
		cr_expect_not_null(doc, "%s: not JSON", cap);
		if (doc) {
			GString *errs = g_string_new(NULL);
			cr_expect(pd_schema_validate(schema, doc, errs), "%s:\n%s", cap, errs->str);
			g_string_free(errs, TRUE);
			cJSON_Delete(doc);
		}
		cr_expect(a && g_utf8_validate(a, -1, NULL), "%s: JSON not UTF-8", cap);
		g_free(a);
		g_free(b);
	}
	g_ptr_array_unref(files);
	g_free(root);
	cJSON_Delete(schema);
}

static void check_format_safe(const char *fmt)
{
	char *root = pd_test_src("testdata/captures");
	GPtrArray *files = pd_test_list_captures(root);
	for (guint i = 0; i < files->len; i++) {
		const char *cap = files->pdata[i];
		const char *args[] = {"--format", fmt, "--flows", "--lang", "zh", cap, NULL};
		char *o = NULL;
		pd_test_run(&o, NULL, args);
		cr_expect(o && *o, "%s: no %s output", cap, fmt);
		if (o)
			expect_safe(o, fmt);
		g_free(o);
	}
	g_ptr_array_unref(files);
	g_free(root);
}

Test(captures, text_safe, .timeout = 1500)
{
	if (!g_getenv("PD_PCAPDOC"))
		cr_skip_test("PD_PCAPDOC not set");
	check_format_safe("text");
}

Test(captures, markdown_safe, .timeout = 1500)
{
	if (!g_getenv("PD_PCAPDOC"))
		cr_skip_test("PD_PCAPDOC not set");
	check_format_safe("markdown");
}
