/* Application labels; see app_label.h. The API changed across releases: Debian 12
 * ships 4.2 (5-argument process_packet, init with prefs); 4.4 added the
 * flow-input-info argument and 4.10 a global context at init. */
#include "app_label.h"

#include <glib.h>
#include <ndpi/ndpi_api.h>
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "heuristics/memacct.h"
#include "pd_config.h"

#define PD_NDPI_AT_LEAST(maj, min) \
	(PD_NDPI_MAJOR > (maj) || (PD_NDPI_MAJOR == (maj) && PD_NDPI_MINOR >= (min)))

struct pd_app_label {
	struct ndpi_detection_module_struct *mod;
	size_t flow_size;
	GHashTable *names; /* master << 16 | app protocol -> interned name */
};

static void release(pd_flow_slot *s, pd_app_budget *b)
{
	if (s->ndpi) {
		ndpi_flow_free(s->ndpi);
		s->ndpi = NULL;
		b->live--;
	}
}

static void destroy(pd_app_label *n)
{
	ndpi_exit_detection_module(n->mod);
	g_hash_table_destroy(n->names);
	g_free(n);
}

/* Released modules kept for the next runs (pd_app_label_keep). */
static struct {
	GMutex lock;
	unsigned keep;
	GSList *kept;
	unsigned n_kept;
} pool;

void pd_app_label_keep(unsigned n)
{
	g_mutex_lock(&pool.lock);
	pool.keep = n;
	GSList *drop = NULL;
	while (pool.n_kept > n) {
		GSList *l = pool.kept;
		pool.kept = l->next;
		l->next = drop;
		drop = l;
		pool.n_kept--;
	}
	g_mutex_unlock(&pool.lock);
	g_slist_free_full(drop, (GDestroyNotify)destroy);
}

static pd_app_label *pool_take(void)
{
	pd_app_label *n = NULL;
	g_mutex_lock(&pool.lock);
	if (pool.kept) {
		GSList *l = pool.kept;
		n = l->data;
		pool.kept = g_slist_delete_link(pool.kept, l);
		pool.n_kept--;
	}
	g_mutex_unlock(&pool.lock);
	return n;
}

static bool pool_give(pd_app_label *n)
{
	bool kept = false;
	g_mutex_lock(&pool.lock);
	if (pool.n_kept < pool.keep) {
		pool.kept = g_slist_prepend(pool.kept, n);
		pool.n_kept++;
		kept = true;
	}
	g_mutex_unlock(&pool.lock);
	return kept;
}

/* nDPI's allocations, counted for --stats on the thread that makes or
 * frees them (nDPI 4.2 sends every allocation, flow states included,
 * through these; its realloc is a malloc, a copy and a free). */
static void *ndpi_counted_malloc(size_t size)
{
	void *p = malloc(size);
	if (p)
		pd_mem_count(PD_MEM_NDPI, (int64_t)pd_mem_size(p));
	return p;
}

static void ndpi_counted_free(void *p)
{
	pd_mem_count(PD_MEM_NDPI, -(int64_t)pd_mem_size(p));
	free(p);
}

pd_app_label *pd_app_label_new(void)
{
	pd_app_label *kept = pool_take();
	if (kept)
		return kept;
	/* Workers start their modules on their own threads, and starting one
	 * is not thread-safe: nDPI 4.2 fills process-wide tables (the DGA
	 * check's letter pairs, libgcrypt) behind a plain flag. */
	static GMutex init_lock;
	g_mutex_lock(&init_lock);
	static bool counting;
	if (!counting) { /* before nDPI's first allocation */
		set_ndpi_malloc(ndpi_counted_malloc);
		set_ndpi_free(ndpi_counted_free);
		counting = true;
	}
	struct ndpi_detection_module_struct *mod;
#if PD_NDPI_AT_LEAST(4, 10)
	mod = ndpi_init_detection_module(NULL);
#else
	mod = ndpi_init_detection_module(ndpi_no_prefs);
#endif
	if (mod) {
#if !PD_NDPI_AT_LEAST(4, 12)
		NDPI_PROTOCOL_BITMASK all;
		NDPI_BITMASK_SET_ALL(all);
		ndpi_set_protocol_detection_bitmask2(mod, &all);
#endif
		ndpi_finalize_initialization(mod);
	}
	g_mutex_unlock(&init_lock);
	if (!mod)
		return NULL;
	pd_app_label *n = g_new0(pd_app_label, 1);
	n->mod = mod;
	n->flow_size = ndpi_detection_get_sizeof_ndpi_flow_struct();
	n->names = g_hash_table_new(g_direct_hash, g_direct_equal);
	return n;
}

size_t pd_app_label_state_size(void)
{
	return ndpi_detection_get_sizeof_ndpi_flow_struct();
}

void pd_app_label_free(pd_app_label *n)
{
	if (n && !pool_give(n))
		destroy(n);
}

/* The name nDPI gives a protocol pair, interned once per pair: flows keep
 * a pointer, not a copy. */
static void set_label(pd_app_label *n, pd_flow *f, ndpi_protocol proto)
{
	gpointer key = GUINT_TO_POINTER(((guint)proto.master_protocol << 16) | (guint)proto.app_protocol);
	const char *name = g_hash_table_lookup(n->names, key);
	if (!name) {
		char buf[64];
		const char *s = ndpi_protocol2name(n->mod, proto, buf, sizeof(buf));
		name = g_intern_string(s ? s : "Unknown");
		g_hash_table_insert(n->names, key, (gpointer)name);
	}
	f->app = name;
}

static bool detected(ndpi_protocol p)
{
	return p.app_protocol != NDPI_PROTOCOL_UNKNOWN || p.master_protocol != NDPI_PROTOCOL_UNKNOWN;
}

void pd_app_label_feed(pd_app_label *n, pd_flow_slot *s, const pd_packet *pkt, pd_app_budget *b)
{
	if (s->ndpi_done || !n)
		return;
	pd_flow *f = &s->flow;
	uint32_t payload = pkt->l4 == PD_L4_TCP ? pkt->tcp.payload_len
			   : pkt->l4 == PD_L4_UDP ? pkt->udp.payload_len
						  : 0;
	/* nDPI's state is made at the first payload: handshakes, scans and
	 * floods never cost one (nDPI copes with flows picked up mid-stream). */
	if (!s->ndpi && payload == 0)
		return;
	if (!s->ndpi) {
		/* A flood of one-packet flows must not pin an nDPI state each. */
		if (b->live >= b->cap) {
			b->skipped++;
			s->ndpi_done = true;
			f->app = g_intern_static_string("Unknown");
			return;
		}
		s->ndpi = ndpi_flow_malloc(n->flow_size);
		if (!s->ndpi) {
			s->ndpi_done = true;
			return;
		}
		memset(s->ndpi, 0, n->flow_size);
		if (++b->live > b->peak)
			b->peak = b->live;
	}
	uint32_t len = pkt->l3_captured;
	if (pkt->ip.total_len && len > pkt->ip.total_len)
		len = pkt->ip.total_len;
	if (len > 65535)
		len = 65535;
	uint64_t ms = (uint64_t)(pkt->ts / 1000000);
	ndpi_protocol p;
#if PD_NDPI_AT_LEAST(4, 4)
	p = ndpi_detection_process_packet(n->mod, s->ndpi, pkt->l3, (unsigned short)len, ms, NULL);
#else
	p = ndpi_detection_process_packet(n->mod, s->ndpi, pkt->l3, (unsigned short)len, ms);
#endif
	if (payload)
		s->ndpi_pkts++;
	if (detected(p)) {
		set_label(n, f, p);
		s->ndpi_done = true;
		release(s, b);
	} else if (s->ndpi_pkts >= PD_APP_MAX_PKTS) {
		pd_app_label_finish(n, s, b);
	}
}

void pd_app_label_finish(pd_app_label *n, pd_flow_slot *s, pd_app_budget *b)
{
	pd_flow *f = &s->flow;
	if (!s->ndpi_done && s->ndpi && n) {
		uint8_t guessed = 0;
		ndpi_protocol p = ndpi_detection_giveup(n->mod, s->ndpi, 1, &guessed);
		if (detected(p))
			set_label(n, f, p);
	}
	if (!s->ndpi_done && !s->ndpi && n && s->ndpi_pkts == 0 && (f->proto == 6 || f->proto == 17) &&
	    !f->pseudo) {
		/* No payload ever (a failed handshake, a scan): the ports are
		 * all there is, and nDPI's port table is the best guess. Its IP
		 * lists are asked about the server only: a flood's spoofed
		 * sources are random, and one that falls in Amazon's or Apple's
		 * ranges says nothing about the service (address 0 is never in a
		 * list). That also spares a tree search per spoofed source. */
		uint32_t srv = 0;
		if (f->addr[PD_SERVER].family == 4)
			memcpy(&srv, f->addr[PD_SERVER].bytes, 4);
		ndpi_protocol p = ndpi_guess_undetected_protocol(n->mod, NULL, f->proto, 0, f->port[PD_CLIENT],
								 ntohl(srv), f->port[PD_SERVER]);
		if (detected(p))
			set_label(n, f, p);
	}
	release(s, b);
	s->ndpi_done = true;
	if (!f->app)
		f->app = g_intern_static_string("Unknown");
}
