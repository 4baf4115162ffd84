/* The finding builder and the store behind it; see finding.h and store.h. */
#include "heuristics/finding.h"

#include <stdarg.h>
#include <string.h>

#include "heuristics/ctx.h"
#include "heuristics/store.h"
#include "dissect/addr.h"
#include "knowledge/catalog.h"
#include "knowledge/causality.h"
#include "knowledge/kb.h"
#include "knowledge/host_evidence.h"

/* A finding and the store's bookkeeping about it (the report sees only
 * `pub`, which must stay first: pd_finding_free frees the whole). */
typedef struct stored {
	pd_finding pub;
	bool spill; /* flows past PD_MAX_FLOW_FINDINGS folded in here */
	double explained_s; /* time lost by the symptoms this one explains */
	uint64_t span_first, span_last; /* pd_finding_span; span_last 0: not set */
	/* symptoms on other connections to the listener it explains (their
	 * time adds to this one's), and whether the total is final */
	GPtrArray *siblings;
	bool impact_final;
	struct stored *declared_cause; /* pd_finding_explained_by */
	/* the flows of those symptoms: this problem's too, listed at the end */
	GArray *sibling_flows;
	uint64_t sibling_count;
	uint64_t last_flow; /* id + 1 of the flow added last (detectors repeat themselves) */
	/* past the listed flows, which flows flow_count counts: a sparse
	 * bit set over flow ids (frame numbers), chunk -> bits */
	GHashTable *counted;
} stored;

#define COUNTED_CHUNK_BITS 65536

struct pd_store {
	GHashTable *findings; /* key -> stored* */
	uint32_t *per_id; /* per-flow findings made, by catalogue index */
};

static stored *st(pd_finding *f)
{
	return (stored *)f;
}

pd_store *pd_store_new(void)
{
	pd_store *s = g_new0(pd_store, 1);
	s->findings = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	s->per_id = g_new0(uint32_t, pd_catalog_len);
	return s;
}

static void stored_free(stored *f)
{
	if (f->siblings)
		g_ptr_array_free(f->siblings, TRUE);
	if (f->sibling_flows)
		g_array_free(f->sibling_flows, TRUE);
	if (f->counted)
		g_hash_table_destroy(f->counted);
	f->counted = NULL;
	pd_finding_free(&f->pub);
}

void pd_store_free(pd_store *s)
{
	if (!s)
		return;
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, s->findings);
	while (g_hash_table_iter_next(&it, &k, &v))
		stored_free(v);
	g_hash_table_destroy(s->findings);
	g_free(s->per_id);
	g_free(s);
}

/* ------------------------------------------------------------- flows */

void pd_flow_key_of(pd_flow_key *k, const pd_flow *f)
{
	memset(k, 0, sizeof(*k));
	k->id = f->id;
	k->proto = f->proto;
	k->addr[0] = f->addr[0];
	k->addr[1] = f->addr[1];
	k->port[0] = f->port[0];
	k->port[1] = f->port[1];
	k->app = f->app;
}

void pd_flow_ref_from_key(pd_flow_ref *ref, const pd_flow_key *k)
{
	memset(ref, 0, sizeof(*ref));
	ref->flow_id = k->id;
	ref->proto = k->proto;
	ref->client = k->addr[PD_CLIENT];
	ref->server = k->addr[PD_SERVER];
	ref->client_port = k->port[PD_CLIENT];
	ref->server_port = k->port[PD_SERVER];
	g_strlcpy(ref->app, k->app ? k->app : "Unknown", sizeof(ref->app));

	/* Community ID v1: SHA-1 over seed, ordered endpoints, proto, ports. */
	const pd_addr *a = &k->addr[0], *b = &k->addr[1];
	uint16_t pa = k->port[0], pb = k->port[1];
	size_t alen = pd_addr_len(a);
	int c = memcmp(a->bytes, b->bytes, alen);
	if (c > 0 || (c == 0 && pa > pb)) {
		const pd_addr *ta = a;
		a = b;
		b = ta;
		uint16_t tp = pa;
		pa = pb;
		pb = tp;
	}
	uint8_t buf[2 + 16 + 16 + 2 + 4];
	size_t n = 0;
	buf[n++] = 0;
	buf[n++] = 0; /* seed 0 */
	memcpy(buf + n, a->bytes, alen);
	n += alen;
	memcpy(buf + n, b->bytes, alen);
	n += alen;
	buf[n++] = k->proto;
	buf[n++] = 0;
	buf[n++] = (uint8_t)(pa >> 8);
	buf[n++] = (uint8_t)pa;
	buf[n++] = (uint8_t)(pb >> 8);
	buf[n++] = (uint8_t)pb;
	GChecksum *ck = g_checksum_new(G_CHECKSUM_SHA1);
	g_checksum_update(ck, buf, n);
	uint8_t digest[20];
	gsize dlen = sizeof(digest);
	g_checksum_get_digest(ck, digest, &dlen);
	g_checksum_free(ck);
	gchar *b64 = g_base64_encode(digest, dlen);
	g_snprintf(ref->community_id, sizeof(ref->community_id), "1:%s", b64);
	g_free(b64);
}

/* ----------------------------------------------------------- findings */

static uint64_t finding_key(const pd_finding_def *def, uint64_t flow_id_plus1)
{
	uint64_t idx = (uint64_t)(def - pd_catalog) + 1;
	return (idx << 44) | (flow_id_plus1 & ((UINT64_C(1) << 44) - 1));
}

static pd_store *store_of(pd_ctx *ctx, const char *what)
{
	if (!ctx->store)
		g_error("pcapdoc: detector '%s' %s in a flow hook: findings are made in on_flow_end and on_end",
			ctx->det ? ctx->det->name : "?", what);
	return ctx->store;
}

static const pd_finding_def *def_of(pd_ctx *ctx, const char *id)
{
	const pd_finding_def *def = pd_catalog_find(id);
	if (!def)
		g_error("pcapdoc: finding id '%s' is not in the catalogue", id);
	if (ctx->det) {
		bool listed = false;
		for (const char *const *e = ctx->det->emits; e && *e && !listed; e++)
			listed = strcmp(*e, id) == 0;
		if (!listed)
			g_error("pcapdoc: detector '%s' reports '%s', which its emits list lacks", ctx->det->name, id);
	}
	return def;
}

static stored *new_finding(const pd_finding_def *def, bool capture_wide)
{
	stored *s = g_new0(stored, 1);
	pd_finding *f = &s->pub;
	f->def = def;
	f->severity = def->severity;
	f->confidence = 0.5;
	f->capture_wide = capture_wide;
	f->flows = g_array_new(FALSE, TRUE, sizeof(pd_flow_ref));
	f->examples = g_array_new(FALSE, TRUE, sizeof(pd_evidence));
	f->metrics = g_array_new(FALSE, TRUE, sizeof(pd_metric));
	for (size_t i = 0; i < PD_DEF_MAX_SETTINGS && def->settings[i]; i++)
		f->settings[f->n_settings++] = def->settings[i];
	return s;
}

/* Marks flow id as counted; returns whether it was already. */
static bool counted_mark(stored *f, uint64_t id)
{
	if (!f->counted)
		f->counted = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	uint64_t chunk = id / COUNTED_CHUNK_BITS, bit = id % COUNTED_CHUNK_BITS;
	uint8_t *bits = g_hash_table_lookup(f->counted, &chunk);
	if (!bits) {
		bits = g_malloc0(COUNTED_CHUNK_BITS / 8);
		g_hash_table_insert(f->counted, g_memdup2(&chunk, sizeof(chunk)), bits);
	}
	uint8_t m = (uint8_t)(1u << (bit % 8));
	bool was = bits[bit / 8] & m;
	bits[bit / 8] |= m;
	return was;
}

static void add_key(stored *s, const pd_flow_key *k)
{
	pd_finding *f = &s->pub;
	if (s->last_flow == k->id + 1)
		return;
	if (s->counted) {
		if (counted_mark(s, k->id))
			return;
	} else {
		for (guint i = 0; i < f->flows->len; i++)
			if (g_array_index(f->flows, pd_flow_ref, i).flow_id == k->id)
				return;
	}
	s->last_flow = k->id + 1;
	f->flow_count++;
	if (f->flows->len >= PD_FINDING_MAX_FLOWS) {
		/* past the listed flows: count each once, however often a
		 * detector reports it */
		if (!s->counted) {
			for (guint i = 0; i < f->flows->len; i++)
				counted_mark(s, g_array_index(f->flows, pd_flow_ref, i).flow_id);
			counted_mark(s, k->id);
		}
		return;
	}
	pd_flow_ref ref;
	pd_flow_ref_from_key(&ref, k);
	g_array_append_val(f->flows, ref);
}

pd_finding *pd_finding_get_key(pd_ctx *ctx, const char *id, const pd_flow_key *flow)
{
	pd_store *store = store_of(ctx, "made a finding");
	const pd_finding_def *def = def_of(ctx, id);
	uint64_t key = finding_key(def, flow ? flow->id + 1 : 0);
	stored *s = g_hash_table_lookup(store->findings, &key);
	if (s)
		return &s->pub;
	size_t idx = (size_t)(def - pd_catalog);
	if (flow && store->per_id[idx] >= PD_MAX_FLOW_FINDINGS) {
		/* Past the cap: the flow joins the id's spill finding, whose
		 * metrics accumulate (see pd_finding_metric). */
		uint64_t skey = finding_key(def, (UINT64_C(1) << 44) - 1);
		s = g_hash_table_lookup(store->findings, &skey);
		if (!s) {
			s = new_finding(def, true);
			s->spill = true;
			g_hash_table_insert(store->findings, g_memdup2(&skey, sizeof(skey)), s);
		}
		add_key(s, flow);
		return &s->pub;
	}
	if (flow)
		store->per_id[idx]++;
	s = new_finding(def, flow == NULL);
	g_hash_table_insert(store->findings, g_memdup2(&key, sizeof(key)), s);
	if (flow)
		add_key(s, flow);
	return &s->pub;
}

pd_finding *pd_finding_get(pd_ctx *ctx, const char *id, const pd_flow *flow)
{
	if (!flow)
		return pd_finding_get_key(ctx, id, NULL);
	pd_flow_key k;
	pd_flow_key_of(&k, flow);
	return pd_finding_get_key(ctx, id, &k);
}

void pd_finding_add_key(pd_ctx *ctx, pd_finding *f, const pd_flow_key *flow)
{
	store_of(ctx, "named a flow");
	add_key(st(f), flow);
}

void pd_finding_add_flow(pd_ctx *ctx, pd_finding *f, const pd_flow *flow)
{
	pd_flow_key k;
	pd_flow_key_of(&k, flow);
	pd_finding_add_key(ctx, f, &k);
}

void pd_finding_drop(pd_ctx *ctx, pd_finding *f)
{
	pd_store *store = store_of(ctx, "dropped a finding");
	stored *s = st(f);
	if (s->spill)
		return; /* shared by many flows: keep it */
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, store->findings);
	bool removed = false;
	while (g_hash_table_iter_next(&it, &k, &v)) {
		stored *o = v;
		if (o->declared_cause == s)
			o->declared_cause = NULL;
		if (v == s && !removed) {
			g_hash_table_iter_remove(&it);
			removed = true;
		}
	}
	stored_free(s);
}

/* --------------------------------------------------------------- texts */

static void evidence_text(char *dst, size_t len, const char *src)
{
	g_strlcpy(dst, src ? src : "", len);
	/* never cut a UTF-8 sequence in two */
	const char *end = NULL;
	if (!g_utf8_validate(dst, -1, &end))
		dst[end - dst] = '\0';
}

void pd_finding_occurrence_(pd_finding *f, uint64_t frame, pd_time ts, const pd_text *what, ...)
{
	bool first = !f->first.frame || frame < f->first.frame, last = frame >= f->last.frame;
	bool example = f->examples->len < PD_FINDING_MAX_EXAMPLES;
	if (!first && !last && !example) {
		f->occurrences++; /* kept nowhere: no need to write its label */
		return;
	}
	pd_evidence ev;
	memset(&ev, 0, sizeof(ev));
	ev.frame = frame;
	ev.ts = ts;
	char *en = NULL, *zh = NULL;
	va_list ap;
	va_start(ap, what);
	pd_text_format(what, &en, &zh, ap);
	va_end(ap);
	evidence_text(ev.what, sizeof(ev.what), en);
	evidence_text(ev.what_zh, sizeof(ev.what_zh), zh);
	g_free(en);
	g_free(zh);
	f->occurrences++;
	if (first)
		f->first = ev;
	if (last)
		f->last = ev;
	if (example)
		g_array_append_val(f->examples, ev);
}

void pd_finding_count(pd_finding *f, uint64_t n)
{
	f->occurrences += n;
}

void pd_finding_detail_(pd_finding *f, const pd_text *t, ...)
{
	va_list ap;
	va_start(ap, t);
	g_free(f->detail);
	g_free(f->detail_zh);
	pd_text_format(t, &f->detail, &f->detail_zh, ap);
	va_end(ap);
}

void pd_finding_append_(pd_finding *f, const pd_text *t, ...)
{
	char *en = NULL, *zh = NULL;
	va_list ap;
	va_start(ap, t);
	pd_text_format(t, &en, &zh, ap);
	va_end(ap);
	char *den = g_strconcat(f->detail ? f->detail : "", en, NULL);
	char *dzh = g_strconcat(f->detail_zh ? f->detail_zh : (f->detail ? f->detail : ""), zh, NULL);
	g_free(f->detail);
	g_free(f->detail_zh);
	g_free(en);
	g_free(zh);
	f->detail = den;
	f->detail_zh = dzh;
}

/* ------------------------------------------------------------- values */

const char *pd_unit_name(pd_unit u)
{
	switch (u) {
	case PD_UNIT_COUNT:
		return "count";
	case PD_UNIT_S:
		return "s";
	case PD_UNIT_MS:
		return "ms";
	case PD_UNIT_BYTES:
		return "bytes";
	case PD_UNIT_BYTES_PER_S:
		return "bytes/s";
	case PD_UNIT_RATIO:
		return "ratio";
	case PD_UNIT_TICKS:
		return "ticks";
	}
	return "count";
}

static double merge(pd_agg agg, double a, double b)
{
	switch (agg) {
	case PD_AGG_SUM:
		return a + b;
	case PD_AGG_MIN:
		return b < a ? b : a;
	case PD_AGG_MAX:
		break;
	}
	return b > a ? b : a;
}

void pd_finding_metric(pd_finding *f, const char *key, double value, pd_unit unit, pd_agg agg)
{
	if (value != value || value > 1e300 || value < -1e300)
		value = 0; /* NaN or inf never reaches a report */
	for (guint i = 0; i < f->metrics->len; i++) {
		pd_metric *m = &g_array_index(f->metrics, pd_metric, i);
		if (strcmp(m->key, key) == 0) {
			m->value = st(f)->spill ? merge(agg, m->value, value) : value;
			m->unit = pd_unit_name(unit);
			m->agg = agg;
			return;
		}
	}
	pd_metric m = {.key = key, .value = value, .unit = pd_unit_name(unit), .agg = agg};
	g_array_append_val(f->metrics, m);
}

/* A ranking may name only settings the knowledge base says can cause the
 * finding: a wrong one is a programming error, caught by any run that
 * reaches it (the golden captures reach every ranking). */
void pd_finding_settings(pd_finding *f, const char *first, ...)
{
	va_list ap;
	va_start(ap, first);
	f->n_settings = 0;
	for (const char *s = first; s && f->n_settings < PD_FINDING_MAX_SETTINGS; s = va_arg(ap, const char *)) {
		if (!pd_kb_can_cause(s, f->def->id))
			g_error("pcapdoc: '%s' is ranked for '%s', which the knowledge base says it cannot cause", s,
				f->def->id);
		f->settings[f->n_settings++] = s;
	}
	va_end(ap);
}

void pd_finding_set_severity(pd_finding *f, pd_severity sev)
{
	f->severity = sev;
}

void pd_finding_set_confidence(pd_finding *f, double confidence)
{
	f->confidence = confidence < 0 ? 0 : confidence > 1 ? 1 : confidence;
}

void pd_finding_add_impact(pd_finding *f, double seconds)
{
	if (seconds == seconds && seconds > 0 && seconds < 1e12)
		f->impact_s += seconds;
}

void pd_finding_span(pd_finding *f, uint64_t first_frame, uint64_t last_frame)
{
	if (!f || !first_frame || last_frame < first_frame)
		return;
	stored *s = st(f);
	if (!s->span_last || first_frame < s->span_first)
		s->span_first = first_frame;
	if (last_frame > s->span_last)
		s->span_last = last_frame;
}

void pd_finding_explained_by(pd_finding *symptom, pd_finding *cause)
{
	if (!symptom || !cause || symptom == cause || st(symptom)->spill || st(cause)->spill ||
	    symptom->capture_wide || cause->capture_wide)
		return; /* one flow's findings only */
	if (!pd_explains_declared(cause->def->id, symptom->def->id))
		g_error("pcapdoc: '%s' is declared to explain '%s', which knowledge/causality.c has no row for",
			cause->def->id, symptom->def->id);
	st(symptom)->declared_cause = st(cause);
	st(cause)->declared_cause = NULL; /* never both ways */
}

/* Whether the symptom's occurrences all fall in the cause's span. */
static bool within_span(const stored *cause, const stored *symptom)
{
	if (!cause->span_last)
		return true;
	uint64_t a = symptom->pub.first.frame, b = symptom->pub.last.frame;
	if (symptom->span_last) { /* its whole extent, beyond the examples quoted */
		a = symptom->span_first;
		b = symptom->span_last;
	}
	if (!a)
		return true; /* a symptom with no frames: nothing to place */
	return a >= cause->span_first && (b ? b : a) <= cause->span_last;
}

/* ---------------------------------------------------------- the end */

static uint64_t first_flow_id(const pd_finding *f)
{
	return f->flows && f->flows->len ? g_array_index(f->flows, pd_flow_ref, 0).flow_id : UINT64_MAX;
}

/* First frame, then a total order, so the result never depends on the
 * order findings were made in. */
static int cmp_first(gconstpointer a, gconstpointer b)
{
	const stored *x = *(stored *const *)a, *y = *(stored *const *)b;
	if (x->pub.first.frame != y->pub.first.frame)
		return x->pub.first.frame < y->pub.first.frame ? -1 : 1;
	if (x->pub.def != y->pub.def)
		return x->pub.def < y->pub.def ? -1 : 1;
	if (x->spill != y->spill)
		return x->spill ? 1 : -1;
	uint64_t fx = first_flow_id(&x->pub), fy = first_flow_id(&y->pub);
	return fx < fy ? -1 : fx > fy;
}

static void add_consequence(pd_finding *cause, const char *id)
{
	for (size_t i = 0; i < cause->n_consequences; i++)
		if (!strcmp(cause->consequences[i], id))
			return;
	if (cause->n_consequences < PD_FINDING_MAX_CONSEQUENCES)
		cause->consequences[cause->n_consequences++] = id;
}

/* The finding of the flow that lost most time: its settings and detail
 * speak for the merged one. */
static bool worse(const pd_finding *f, const pd_finding *than)
{
	return !than || f->impact_s > than->impact_s || (f->impact_s == than->impact_s && f->severity > than->severity);
}

/* Many flows with one id become one capture-wide finding; server: the
 * server endpoint they all share, or NULL. */
static pd_finding *merge_same(const pd_finding_def *def, GPtrArray *same, const pd_flow_ref *server)
{
	g_ptr_array_sort(same, cmp_first);
	stored *sagg = new_finding(def, true);
	pd_finding *agg = &sagg->pub;
	agg->members = g_ptr_array_new_with_free_func((GDestroyNotify)pd_finding_free);
	agg->one_server = server != NULL;
	agg->severity = PD_SEV_INFO;
	agg->confidence = 0;
	agg->n_settings = 0;
	pd_finding *w = NULL;
	for (guint i = 0; i < same->len; i++) {
		stored *sf = g_ptr_array_index(same, i);
		pd_finding *f = &sf->pub;
		if (worse(f, w))
			w = f;
		if (sf->sibling_flows) {
			if (!sagg->sibling_flows)
				sagg->sibling_flows = g_array_new(FALSE, TRUE, sizeof(pd_flow_ref));
			for (guint j = 0; j < sf->sibling_flows->len && sagg->sibling_flows->len < PD_FINDING_MAX_FLOWS; j++)
				g_array_append_val(sagg->sibling_flows, g_array_index(sf->sibling_flows, pd_flow_ref, j));
			sagg->sibling_count += sf->sibling_count;
		}
		agg->flow_count += f->flow_count;
		for (guint j = 0; j < f->flows->len && agg->flows->len < PD_FINDING_MAX_FLOWS; j++)
			g_array_append_val(agg->flows, g_array_index(f->flows, pd_flow_ref, j));
		agg->occurrences += f->occurrences;
		agg->impact_s += f->impact_s;
		if (f->severity > agg->severity)
			agg->severity = f->severity;
		if (f->confidence > agg->confidence)
			agg->confidence = f->confidence;
		if (!agg->first.frame || f->first.frame < agg->first.frame)
			agg->first = f->first;
		if (f->last.frame >= agg->last.frame)
			agg->last = f->last;
		if (agg->examples->len < PD_FINDING_MAX_EXAMPLES)
			g_array_append_val(agg->examples, f->first);
		for (size_t j = 0; j < f->n_consequences; j++)
			add_consequence(agg, f->consequences[j]);
		for (guint j = 0; j < f->metrics->len; j++) {
			pd_metric m = g_array_index(f->metrics, pd_metric, j);
			bool found = false;
			for (guint k = 0; k < agg->metrics->len && !found; k++) {
				pd_metric *am = &g_array_index(agg->metrics, pd_metric, k);
				if (strcmp(am->key, m.key) == 0) {
					am->value = merge(m.agg, am->value, m.value);
					found = true;
				}
			}
			if (!found)
				g_array_append_val(agg->metrics, m);
		}
	}
	g_assert(w); /* same is never empty */
	memcpy(agg->settings, w->settings, sizeof(agg->settings));
	agg->n_settings = w->n_settings;
	const char *wen = w->detail ? w->detail : def->title_en;
	const char *wzh = w->detail_zh ? w->detail_zh : w->detail ? w->detail : def->title_zh;
	if (server) {
		char ep[PD_ENDPOINT_STRLEN];
		pd_endpoint_str(&server->server, server->server_port, ep, sizeof(ep));
		agg->detail = g_strdup_printf("%" G_GUINT64_FORMAT " connections to %s; worst: %s", agg->flow_count,
					      ep, wen);
		agg->detail_zh = g_strdup_printf("到 %s 的 %" G_GUINT64_FORMAT " 条连接；最严重的一条：%s", ep,
						 agg->flow_count, wzh);
	} else {
		agg->detail = g_strdup_printf("%" G_GUINT64_FORMAT " flows; worst: %s", agg->flow_count, wen);
		agg->detail_zh = g_strdup_printf("%" G_GUINT64_FORMAT " 条流；最严重的一条：%s", agg->flow_count, wzh);
	}
	pd_finding_metric(agg, "flows", (double)agg->flow_count, PD_UNIT_COUNT, PD_AGG_SUM);
	return agg;
}

/* ------------------------------------------------------ root causes */


/* A symptom explained: linked both ways, and down to info. */
static void explain(stored *c, stored *f)
{
	/* the problem is as grave as the worst of what it caused */
	if (f->pub.severity > c->pub.severity)
		c->pub.severity = f->pub.severity;
	f->pub.explained_by = c->pub.def->id;
	f->pub.severity = PD_SEV_INFO;
	add_consequence(&c->pub, f->pub.def->id);
}

static bool is_cause(const stored *c)
{
	for (size_t k = 0; k < pd_causalities_len; k++)
		if (!strcmp(pd_causalities[k].cause, c->pub.def->id))
			return true;
	return false;
}

/* The server endpoint of a flow, as a hash key. */
typedef struct server_key {
	pd_addr addr;
	uint16_t port;
} server_key;

static GBytes *server_key_of(const pd_flow_ref *r)
{
	server_key k;
	memset(&k, 0, sizeof(k));
	k.addr = r->server;
	k.port = r->server_port;
	return g_bytes_new(&k, sizeof(k));
}

static bool same_endpoint(const pd_flow_ref *a, const pd_flow_ref *b)
{
	return a->server_port == b->server_port && a->proto == b->proto && pd_addr_equal(&a->server, &b->server);
}

static bool names_flow(const stored *c, uint64_t flow_id)
{
	for (guint i = 0; i < c->pub.flows->len; i++)
		if (g_array_index(c->pub.flows, pd_flow_ref, i).flow_id == flow_id)
			return true;
	return false;
}

/* A listener's state outlives the packets that show it: SYNs dropped
 * while it was full are retried a second or three later. */
#define SIBLING_SLACK_NS (3 * PD_NS_PER_SEC)

/* Whether the symptom (on another connection to the cause's server) falls
 * in the time the cause's evidence spans. */
static bool during(const stored *c, const stored *f)
{
	pd_time a = c->pub.first.ts - SIBLING_SLACK_NS, b = c->pub.last.ts + SIBLING_SLACK_NS;
	if (!c->pub.first.frame || !f->pub.first.frame)
		return false;
	return f->pub.first.ts >= a && f->pub.first.ts <= b;
}

/* The flows of a symptom on the listener's other connections become the
 * cause's (named once each, at most PD_FINDING_MAX_FLOWS kept). */
static void add_sibling_flows(stored *c, const pd_finding *f)
{
	if (!c->sibling_flows)
		c->sibling_flows = g_array_new(FALSE, TRUE, sizeof(pd_flow_ref));
	for (guint i = 0; i < f->flows->len && c->sibling_flows->len < PD_FINDING_MAX_FLOWS; i++)
		g_array_append_val(c->sibling_flows, g_array_index(f->flows, pd_flow_ref, i));
	c->sibling_count += f->flow_count;
}

/* At the end, the cause lists them after its own; it now concerns
 * several flows. */
static void absorb_sibling_flows(stored *c)
{
	if (!c->sibling_flows)
		return;
	pd_finding *f = &c->pub;
	uint64_t added = 0;
	for (guint i = 0; i < c->sibling_flows->len; i++) {
		const pd_flow_ref *r = &g_array_index(c->sibling_flows, pd_flow_ref, i);
		bool listed = false;
		for (guint j = 0; j < f->flows->len && !listed; j++)
			listed = g_array_index(f->flows, pd_flow_ref, j).flow_id == r->flow_id;
		if (listed)
			continue;
		added++;
		if (f->flows->len < PD_FINDING_MAX_FLOWS)
			g_array_append_val(f->flows, *r);
	}
	/* the unlisted ones are distinct flows too (a symptom names each once) */
	uint64_t unlisted = c->sibling_count > c->sibling_flows->len ? c->sibling_count - c->sibling_flows->len : 0;
	f->flow_count += added + unlisted;
	f->capture_wide = true;
	/* siblings share the cause's server; the cause's own flows may too */
	bool one = f->flows->len > 0;
	for (guint j = 1; j < f->flows->len && one; j++)
		one = same_endpoint(&g_array_index(f->flows, pd_flow_ref, 0), &g_array_index(f->flows, pd_flow_ref, j));
	f->one_server = one;
	g_array_free(c->sibling_flows, TRUE);
	c->sibling_flows = NULL;
	c->sibling_count = 0;
}

/* A cause's time: its own or its symptoms' on its flows, whichever is
 * more, plus that of the symptoms on the listener's other connections
 * (themselves causes of further symptoms, at most a few links deep). */
static double final_impact(stored *c, int depth)
{
	if (c->impact_final || depth > 8)
		return c->pub.impact_s;
	if (c->explained_s > c->pub.impact_s)
		c->pub.impact_s = c->explained_s;
	for (guint i = 0; c->siblings && i < c->siblings->len; i++)
		c->pub.impact_s += final_impact(g_ptr_array_index(c->siblings, i), depth + 1);
	if (c->siblings)
		g_ptr_array_free(c->siblings, TRUE);
	c->siblings = NULL;
	c->impact_final = true;
	return c->pub.impact_s;
}

/* A symptom on a flow whose problem another finding names becomes that
 * finding's evidence. The time it cost counts toward the cause: on the
 * cause's own flows, per flow the largest of the symptoms' measures and
 * the cause's own (they describe the same stall); on the other
 * connections to the same listener that a listener-wide cause explains
 * (a same_server row), the symptom's own time, added. Per-flow findings
 * only, before they are merged; a capture-wide cause explains the flows
 * it lists, and through same_server rows the others to those servers. */
static void attribute(GPtrArray *all)
{
	GHashTable *causes = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
						   (GDestroyNotify)g_ptr_array_unref);
	GHashTable *by_server = g_hash_table_new_full(g_bytes_hash, g_bytes_equal, (GDestroyNotify)g_bytes_unref,
						      (GDestroyNotify)g_ptr_array_unref);
	for (guint i = 0; i < all->len; i++) {
		stored *c = g_ptr_array_index(all, i);
		if (!is_cause(c))
			continue;
		for (guint j = 0; j < c->pub.flows->len; j++) {
			const pd_flow_ref *r = &g_array_index(c->pub.flows, pd_flow_ref, j);
			gint64 id = (gint64)r->flow_id;
			GPtrArray *list = g_hash_table_lookup(causes, &id);
			if (!list) {
				list = g_ptr_array_new();
				g_hash_table_insert(causes, g_memdup2(&id, sizeof(id)), list);
			}
			g_ptr_array_add(list, c);
			GBytes *sk = server_key_of(r);
			GPtrArray *at = g_hash_table_lookup(by_server, sk);
			if (!at) {
				at = g_ptr_array_new();
				g_hash_table_insert(by_server, g_bytes_ref(sk), at);
			}
			if (!at->len || g_ptr_array_index(at, at->len - 1) != c)
				g_ptr_array_add(at, c);
			g_bytes_unref(sk);
		}
	}
	/* (cause, flow) -> the largest symptom's time on that flow */
	GHashTable *per_flow = g_hash_table_new_full(g_bytes_hash, g_bytes_equal, (GDestroyNotify)g_bytes_unref,
						     g_free);
	for (guint i = 0; i < all->len && g_hash_table_size(causes); i++) {
		stored *f = g_ptr_array_index(all, i);
		if (f->spill || !f->pub.flows->len)
			continue;
		const pd_flow_ref *r = &g_array_index(f->pub.flows, pd_flow_ref, 0);
		bool done = false;
		if (f->pub.capture_wide) {
			/* one listener's symptom over several of its connections */
			for (guint j = 1; j < f->pub.flows->len; j++)
				if (!same_endpoint(r, &g_array_index(f->pub.flows, pd_flow_ref, j)))
					done = true;
			if (done || f->pub.flow_count > f->pub.flows->len)
				continue;
			goto siblings;
		}
		if (f->pub.flows->len != 1)
			continue;
		gint64 id = (gint64)r->flow_id;
		GPtrArray *list = g_hash_table_lookup(causes, &id);
		/* a root cause another detector found first; the detector's own
		 * word on which of its findings is the problem after */
		for (guint j = 0; list && j < 2 * list->len && !done; j++) {
			bool second = j >= list->len;
			stored *c = g_ptr_array_index(list, second ? j - list->len : j);
			bool ok = second ? f->declared_cause == c
					 : c != f->declared_cause && pd_explains(c->pub.def->id, f->pub.def->id);
			if (c == f || c->declared_cause == f || !ok ||
			    (!within_span(c, f) && !pd_explains_anywhere(c->pub.def->id, f->pub.def->id)))
				continue;
			explain(c, f);
			struct {
				const stored *c;
				gint64 flow;
			} key = {c, id};
			GBytes *k = g_bytes_new(&key, sizeof(key));
			double *most = g_hash_table_lookup(per_flow, k);
			if (!most) {
				most = g_new0(double, 1);
				g_hash_table_insert(per_flow, g_bytes_ref(k), most);
			}
			if (f->pub.impact_s > *most) {
				c->explained_s += f->pub.impact_s - *most;
				*most = f->pub.impact_s;
			}
			g_bytes_unref(k);
			done = true;
		}
		if (done)
			continue;
	siblings:;
		/* another connection to a listener a cause names */
		GBytes *sk = server_key_of(r);
		GPtrArray *at = g_hash_table_lookup(by_server, sk);
		g_bytes_unref(sk);
		for (guint j = 0; at && j < at->len && !done; j++) {
			stored *c = g_ptr_array_index(at, j);
			if (c == f || !pd_explains_sibling(c->pub.def->id, f->pub.def->id) || !during(c, f) ||
			    (!f->pub.capture_wide && names_flow(c, r->flow_id)))
				continue; /* its own flows: only inside its span (above) */
			explain(c, f);
			if (!c->siblings)
				c->siblings = g_ptr_array_new();
			g_ptr_array_add(c->siblings, f);
			add_sibling_flows(c, &f->pub);
			done = true;
		}
	}
	for (guint i = 0; i < all->len; i++)
		final_impact(g_ptr_array_index(all, i), 0);
	g_hash_table_destroy(per_flow);
	g_hash_table_destroy(by_server);
	g_hash_table_destroy(causes);
}

static const char *first_setting_of(const pd_finding *f)
{
	return f->n_settings ? f->settings[0] : NULL;
}

/* The store's bookkeeping of a finding dropped; what the report reads stays. */
static void strip(stored *f)
{
	if (f->counted)
		g_hash_table_destroy(f->counted);
	f->counted = NULL;
	if (f->siblings)
		g_ptr_array_free(f->siblings, TRUE);
	f->siblings = NULL;
	if (f->sibling_flows)
		g_array_free(f->sibling_flows, TRUE);
	f->sibling_flows = NULL;
}

/* Takes the findings of `same` out of `all`: they were merged into agg,
 * whose members the first PD_FINDING_MAX_FLOWS of them become. */
static void take_merged(GPtrArray *all, GPtrArray *same, pd_finding *agg)
{
	for (guint i = 0; i < same->len; i++) {
		stored *f = g_ptr_array_index(same, i);
		for (guint j = 0; j < all->len; j++)
			if (g_ptr_array_index(all, j) == f)
				g_ptr_array_index(all, j) = NULL;
		if (f->spill || f->pub.members || agg->members->len >= PD_FINDING_MAX_FLOWS) {
			stored_free(f);
			continue;
		}
		strip(f);
		g_ptr_array_add(agg->members, &f->pub);
	}
}

/* One problem on several connections to one server: per-flow findings of
 * one id on the same server endpoint, with the same first setting (the
 * same probable cause) and explained by the same cause, are one finding
 * whose flows are its evidence. */
static void group_by_server(GPtrArray *out, GPtrArray *all, const pd_finding_def *def, GPtrArray *same,
			    const char *by)
{
	for (guint i = 0; i < same->len; i++) {
		stored *f = g_ptr_array_index(same, i);
		if (!f || f->pub.capture_wide || f->pub.flows->len != 1)
			continue;
		const pd_flow_ref *r = &g_array_index(f->pub.flows, pd_flow_ref, 0);
		GPtrArray *group = g_ptr_array_new();
		g_ptr_array_add(group, f);
		for (guint j = i + 1; j < same->len; j++) {
			stored *g = g_ptr_array_index(same, j);
			if (!g || g->pub.capture_wide || g->pub.flows->len != 1)
				continue;
			if (same_endpoint(r, &g_array_index(g->pub.flows, pd_flow_ref, 0)) &&
			    g_strcmp0(first_setting_of(&f->pub), first_setting_of(&g->pub)) == 0) {
				g_ptr_array_add(group, g);
				g_ptr_array_index(same, j) = NULL;
			}
		}
		if (group->len > 1) {
			pd_finding *agg = merge_same(def, group, r);
			agg->explained_by = by;
			if (by)
				agg->severity = PD_SEV_INFO;
			g_ptr_array_add(out, agg);
			take_merged(all, group, agg);
		}
		g_ptr_array_free(group, TRUE);
	}
}

GPtrArray *pd_store_take(pd_store *s)
{
	GPtrArray *all = g_ptr_array_new();
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, s->findings);
	while (g_hash_table_iter_next(&it, &k, &v))
		g_ptr_array_add(all, v);
	g_hash_table_remove_all(s->findings); /* frees keys only */
	memset(s->per_id, 0, sizeof(uint32_t) * pd_catalog_len);
	g_ptr_array_sort(all, cmp_first);
	attribute(all);

	/* Per id, and apart for the symptoms each cause explains: many flows
	 * become one capture-wide finding; a few to one server, one finding
	 * per server. */
	GPtrArray *out = g_ptr_array_new();
	for (size_t d = 0; d < pd_catalog_len; d++) {
		const pd_finding_def *def = &pd_catalog[d];
		for (size_t c = 0; c <= pd_causalities_len; c++) {
			const char *by = c < pd_causalities_len ? pd_causalities[c].cause : NULL;
			bool seen = false;
			for (size_t e = 0; by && e < c && !seen; e++)
				seen = !strcmp(pd_causalities[e].cause, by);
			if (seen)
				continue; /* a cause with several rows: once */
			GPtrArray *same = g_ptr_array_new();
			for (guint i = 0; i < all->len; i++) {
				stored *f = g_ptr_array_index(all, i);
				if (f && f->pub.def == def && (!f->pub.capture_wide || f->spill) &&
				    g_strcmp0(f->pub.explained_by, by) == 0)
					g_ptr_array_add(same, f);
			}
			if (same->len > PD_AGGREGATE_MIN_FLOWS) {
				pd_finding *agg = merge_same(def, same, NULL);
				agg->explained_by = by;
				if (by)
					agg->severity = PD_SEV_INFO;
				g_ptr_array_add(out, agg);
				take_merged(all, same, agg);
			} else if (same->len > 1) {
				group_by_server(out, all, def, same, by);
			}
			g_ptr_array_free(same, TRUE);
		}
	}
	for (guint i = 0; i < all->len; i++) {
		stored *f = g_ptr_array_index(all, i);
		if (!f)
			continue;
		g_ptr_array_add(out, &f->pub);
	}
	for (guint i = 0; i < out->len; i++) {
		stored *f = st(g_ptr_array_index(out, i));
		absorb_sibling_flows(f);
		strip(f);
	}
	g_ptr_array_free(all, TRUE);
	return out;
}

/* ---------------------------------------------------------------- ctx */

pd_time pd_ctx_now(const pd_ctx *ctx)
{
	return ctx->now;
}

void *pd_ctx_payload(const pd_ctx *ctx)
{
	return ctx->payload;
}

pd_time pd_ctx_start(const pd_ctx *ctx)
{
	return ctx->start;
}

uint32_t pd_ctx_snaplen(const pd_ctx *ctx)
{
	return ctx->snaplen;
}

const pd_capture_facts *pd_ctx_facts(const pd_ctx *ctx)
{
	return ctx->facts;
}

/* ------------------------------------------------------------ registry */

void pd_detectors_check(void)
{
	for (size_t i = 0; i < pd_detectors_len; i++)
		if (pd_detectors[i]->from_payload && pd_detectors[i]->payload_state_size)
			g_error("pcapdoc: detector '%s' is from_payload and asks for a payload block too: "
				"its block already is one", pd_detectors[i]->name);
	for (size_t i = 0; i < pd_detectors_len; i++)
		for (const char *const *e = pd_detectors[i]->emits; e && *e; e++)
			if (!pd_catalog_find(*e))
				g_error("pcapdoc: detector '%s' emits '%s', which is not in the catalogue",
					pd_detectors[i]->name, *e);
	for (size_t c = 0; c < pd_catalog_len; c++) {
		bool found = false;
		for (size_t i = 0; i < pd_detectors_len && !found; i++)
			for (const char *const *e = pd_detectors[i]->emits; e && *e && !found; e++)
				found = strcmp(*e, pd_catalog[c].id) == 0;
		/* the run makes this one from host snapshots (knowledge/host_evidence.h) */
		found = found || strcmp(pd_catalog[c].id, PD_HOST_COUNTER_FINDING) == 0;
		if (!found)
			g_error("pcapdoc: catalogue id '%s' has no detector that emits it", pd_catalog[c].id);
	}
}
