/* The collector: the capture-wide stage (see engine.h). It takes each ended
 * flow in capture order, whichever worker it comes from, runs the
 * detectors' on_flow_end, counts the flow for the summary and frees it;
 * at the end it runs on_end and hands the findings to the report. One
 * thread at a time, in capture order: the findings are the same for any
 * number of workers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "heuristics/store.h"

struct pd_collector {
	const pd_engine_cfg *cfg;
	void **det_global;
	pd_store *store;
	pd_ctx ctx;
	GHashTable *apps; /* interned name -> count */
	uint8_t *unpack_det, *unpack_data; /* a packed flow's blocks while its end hooks run */
	uint64_t tcp_flows, udp_flows, other_flows;
	GArray *rows; /* pd_flow_row, when asked for */
	size_t max_rows;
	uint64_t rows_omitted;
	/* a bit per frame that started a flow: flows are numbered 0, 1, 2...
	 * by first frame at the end (like tcp.stream) */
	uint64_t *starts;
	size_t starts_words;
	bool finished;
	uint64_t last_pos, last_sub; /* PD_CHECK: the key of the flow taken last */
	bool have_last;
};

/* The detectors' global blocks of a finished run, kept for the next run
 * when asked (pd_collector_keep_blocks): some are tables of fixed size,
 * megabytes in all, and a run over a few packets (the fuzzer's) would
 * spend most of its time mapping them and faulting them in. One set. */
static struct {
	GMutex lock;
	bool keep;
	void **blocks; /* [n_det], each of its detector's size */
	size_t n;
} kept;

void pd_collector_keep_blocks(bool keep)
{
	g_mutex_lock(&kept.lock);
	kept.keep = keep;
	void **drop = keep ? NULL : kept.blocks;
	size_t n = kept.n;
	if (!keep)
		kept.blocks = NULL;
	g_mutex_unlock(&kept.lock);
	for (size_t i = 0; drop && i < n; i++)
		g_free(drop[i]);
	g_free(drop);
}

static size_t block_size(const pd_detector *d)
{
	return d->global_state_size ? d->global_state_size : 1;
}

static void **blocks_new(const pd_engine_cfg *cfg)
{
	void **b = NULL;
	g_mutex_lock(&kept.lock);
	if (kept.blocks && kept.n == cfg->n_det) {
		b = kept.blocks;
		kept.blocks = NULL;
	}
	g_mutex_unlock(&kept.lock);
	if (b) {
		for (size_t i = 0; i < cfg->n_det; i++)
			memset(b[i], 0, block_size(cfg->det[i]));
		return b;
	}
	b = g_new0(void *, cfg->n_det + 1);
	for (size_t i = 0; i < cfg->n_det; i++)
		b[i] = g_malloc0(block_size(cfg->det[i]));
	return b;
}

static void blocks_free(const pd_engine_cfg *cfg, void **b)
{
	g_mutex_lock(&kept.lock);
	if (kept.keep && !kept.blocks) {
		kept.blocks = b;
		kept.n = cfg->n_det;
		b = NULL;
	}
	g_mutex_unlock(&kept.lock);
	for (size_t i = 0; b && i < cfg->n_det; i++)
		g_free(b[i]);
	g_free(b);
}

pd_collector *pd_collector_new(const pd_engine_cfg *cfg, bool want_flow_rows, size_t max_flow_rows)
{
	pd_collector *c = g_new0(pd_collector, 1);
	c->cfg = cfg;
	c->store = pd_store_new();
	c->apps = g_hash_table_new(g_direct_hash, g_direct_equal);
	if (want_flow_rows)
		c->rows = g_array_new(FALSE, TRUE, sizeof(pd_flow_row));
	c->max_rows = max_flow_rows;
	c->det_global = blocks_new(cfg);
	c->ctx.store = c->store;
	c->ctx.start = cfg->start;
	c->ctx.snaplen = cfg->snaplen;
	for (size_t i = 0; i < cfg->n_det; i++) {
		const pd_detector *d = cfg->det[i];
		c->ctx.det = d;
		if (d->init)
			d->init(&c->ctx, c->det_global[i]);
	}
	return c;
}

void pd_collector_free(pd_collector *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->cfg->n_det; i++) {
		const pd_detector *d = c->cfg->det[i];
		if (d->fini)
			d->fini(c->det_global[i]);
	}
	blocks_free(c->cfg, c->det_global);
	pd_store_free(c->store);
	g_hash_table_destroy(c->apps);
	if (c->rows)
		g_array_free(c->rows, TRUE);
	g_free(c->starts);
	g_free(c->unpack_det);
	g_free(c->unpack_data);
	g_free(c);
}

static const char *row_state(const pd_flow *f)
{
	if (f->pseudo)
		return "fragments";
	if (f->proto == 17)
		return "udp";
	if (f->rst_seen)
		return "reset";
	if (f->state == PD_FLOW_CLOSED)
		return "closed";
	if (f->syn_frame && !f->synack_frame)
		return "syn-only";
	return "open";
}

static void add_row(pd_collector *c, const pd_flow *f)
{
	if (c->rows->len >= c->max_rows) {
		c->rows_omitted++;
		return;
	}
	pd_flow_row row;
	memset(&row, 0, sizeof(row));
	pd_flow_key k;
	pd_flow_key_of(&k, f);
	pd_flow_ref_from_key(&row.ref, &k);
	row.first_frame = f->first_frame;
	row.last_frame = f->last_frame;
	row.first_ts = f->first_ts;
	row.last_ts = f->last_ts;
	for (int d = 0; d < 2; d++) {
		const pd_tcp_half *h = &f->half[d];
		row.pkts[d] = h->pkts;
		row.bytes[d] = h->payload_bytes;
		row.retrans += h->retrans;
		row.ooo += h->ooo;
		row.dupacks += h->dupacks;
		row.zero_win += h->zero_win;
	}
	row.hs_rtt = f->proto == 6 && !f->pseudo ? f->hs_rtt : -1;
	row.state = row_state(f);
	g_array_append_val(c->rows, row);
}

static void mark_start(pd_collector *c, uint64_t frame)
{
	size_t w = (size_t)(frame / 64);
	if (w >= c->starts_words) {
		size_t n = c->starts_words ? c->starts_words : 1024;
		while (n <= w)
			n *= 2;
		c->starts = g_realloc(c->starts, n * sizeof(uint64_t));
		memset(c->starts + c->starts_words, 0, (n - c->starts_words) * sizeof(uint64_t));
		c->starts_words = n;
	}
	c->starts[w] |= UINT64_C(1) << (frame % 64);
}

/* PD_CHECK (engine.h): ended flows come unlinked, in capture order, from
 * every worker merged; the first violation aborts. */
static void check_order(pd_collector *c, const pd_flow_slot *s)
{
	const char *bad = NULL;
	bool after = !c->have_last ||
		     (s->end_pos != c->last_pos ? s->end_pos > c->last_pos : s->end_sub > c->last_sub);
	if (s->link.prev || s->link.next)
		bad = "an ended flow is still linked in an activity queue";
	else if (!after)
		bad = "ended flows reach the collector out of capture order";
	if (bad) {
		fprintf(stderr,
			"pcapdoc: engine invariant broken (PD_CHECK), collector: %s (flow of frame %" G_GUINT64_FORMAT
			", key %" G_GUINT64_FORMAT "/%#" G_GINT64_MODIFIER "x after %" G_GUINT64_FORMAT
			"/%#" G_GINT64_MODIFIER "x)\n",
			bad, s->flow.first_frame, s->end_pos, s->end_sub, c->last_pos, c->last_sub);
		abort();
	}
	c->last_pos = s->end_pos;
	c->last_sub = s->end_sub;
	c->have_last = true;
}

static void prefetch_lines(const void *p, size_t len)
{
	for (size_t off = 0; off < len; off += 64)
		__builtin_prefetch((const char *)p + off);
}

static void prefetch_flow(const pd_collector *c, const pd_flow_slot *s)
{
	prefetch_lines(s, sizeof(*s));
	if (s->packed)
		prefetch_lines(s->packed, s->packed_len);
	if (s->det_state)
		prefetch_lines(s->det_state, c->cfg->det_size);
	if (s->data_state)
		prefetch_lines(s->data_state, c->cfg->data_size);
}

void pd_collector_flow(pd_collector *c, pd_flow_slot *s)
{
	const pd_engine_cfg *cfg = c->cfg;
	pd_flow *f = &s->flow;
	if (cfg->check)
		check_order(c, s);
	if (s->end_next)
		prefetch_flow(c, s->end_next);
	if (!f->app)
		f->app = g_intern_static_string("Unknown");
	c->ctx.now = s->end_now;
	/* A flow that ended packed (worker.c) is unpacked here, one at a
	 * time, so the flows a capture's end ends at once stay small. */
	bool packed = s->packed != NULL;
	if (packed) {
		if (!c->unpack_det)
			c->unpack_det = g_malloc(cfg->det_size);
		if (s->packed_data && !c->unpack_data)
			c->unpack_data = g_malloc(cfg->data_size);
		pd_flow_slot_unpack(s, cfg->det_layout, c->unpack_det, cfg->data_layout, c->unpack_data);
		pd_flow_slot_set_blocks(s, c->unpack_det, s->packed_data ? c->unpack_data : NULL);
	}
	for (size_t i = 0; i < cfg->n_det; i++) {
		const pd_detector *d = cfg->det[i];
		void *fs = pd_det_block(cfg, s, i);
		if (!d->on_flow_end || !fs)
			continue;
		c->ctx.det = d;
		c->ctx.payload = pd_det_payload(cfg, s, i);
		d->on_flow_end(&c->ctx, c->det_global[i], f, fs);
	}
	c->ctx.payload = NULL; /* the scratch blocks are the next flow's */
	if (f->pseudo)
		c->other_flows++;
	else if (f->proto == 6)
		c->tcp_flows++;
	else
		c->udp_flows++;
	gpointer n = g_hash_table_lookup(c->apps, f->app);
	g_hash_table_insert(c->apps, (gpointer)f->app, GSIZE_TO_POINTER(GPOINTER_TO_SIZE(n) + 1));
	if (c->rows)
		add_row(c, f);
	mark_start(c, f->id);
	if (packed)
		pd_flow_slot_set_blocks(s, NULL, NULL); /* the scratch blocks stay here */
	g_free(s->packed);
	s->packed = NULL;
}

/* ------------------------------------------------------------- the end */

/* Flow numbers: the rank of each flow's first frame among all flows'. */
typedef struct ranks {
	const uint64_t *bits;
	size_t words;
	uint64_t *before; /* flows starting before word i */
} ranks;

static void ranks_init(ranks *r, const uint64_t *bits, size_t words)
{
	r->bits = bits;
	r->words = words;
	r->before = g_new(uint64_t, words + 1);
	uint64_t n = 0;
	for (size_t i = 0; i < words; i++) {
		r->before[i] = n;
		n += (uint64_t)__builtin_popcountll(bits[i]);
	}
	r->before[words] = n;
}

static uint64_t rank_of(const ranks *r, uint64_t frame)
{
	size_t w = (size_t)(frame / 64);
	if (w >= r->words)
		return r->before[r->words];
	uint64_t below = r->bits[w] & ((UINT64_C(1) << (frame % 64)) - 1);
	return r->before[w] + (uint64_t)__builtin_popcountll(below);
}

static void renumber(GArray *refs, size_t stride, const ranks *r)
{
	for (guint i = 0; i < refs->len; i++) {
		pd_flow_ref *ref = (pd_flow_ref *)(refs->data + (size_t)i * stride);
		ref->flow_id = rank_of(r, ref->flow_id);
	}
}

static gint cmp_app(gconstpointer a, gconstpointer b)
{
	const pd_app_count *x = a, *y = b;
	if (x->flows != y->flows)
		return x->flows > y->flows ? -1 : 1;
	return strcmp(x->name, y->name);
}

static gint cmp_row(gconstpointer a, gconstpointer b)
{
	const pd_flow_row *x = a, *y = b;
	return x->ref.flow_id < y->ref.flow_id ? -1 : x->ref.flow_id > y->ref.flow_id;
}

void pd_collector_finish(pd_collector *c, pd_report *r, const pd_capture_facts *facts, pd_time last_ts)
{
	g_assert(!c->finished);
	c->finished = true;
	c->ctx.now = last_ts;
	c->ctx.facts = facts;
	for (size_t i = 0; i < c->cfg->n_det; i++) {
		const pd_detector *d = c->cfg->det[i];
		c->ctx.det = d;
		if (d->on_end)
			d->on_end(&c->ctx, c->det_global[i]);
	}
	c->ctx.facts = NULL;

	pd_capture_summary *cap = &r->cap;
	cap->tcp_flows = c->tcp_flows;
	cap->udp_flows = c->udp_flows;
	cap->other_flows = c->other_flows;
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, c->apps);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		pd_app_count ac;
		memset(&ac, 0, sizeof(ac));
		g_strlcpy(ac.name, k, sizeof(ac.name));
		ac.flows = GPOINTER_TO_SIZE(v);
		g_array_append_val(cap->apps, ac);
	}
	g_array_sort(cap->apps, cmp_app);

	ranks rk;
	ranks_init(&rk, c->starts, c->starts_words);
	GPtrArray *found = pd_store_take(c->store);
	for (guint i = 0; i < found->len; i++) {
		pd_finding *f = g_ptr_array_index(found, i);
		renumber(f->flows, sizeof(pd_flow_ref), &rk);
		g_ptr_array_add(r->findings, f);
	}
	g_ptr_array_free(found, TRUE);
	if (c->rows) {
		renumber(c->rows, sizeof(pd_flow_row), &rk);
		g_array_sort(c->rows, cmp_row);
		if (r->flows)
			g_array_free(r->flows, TRUE);
		r->flows = c->rows;
		r->flows_omitted = c->rows_omitted;
		c->rows = NULL;
	}
	g_free(rk.before);
	pd_report_sort(r);
}
