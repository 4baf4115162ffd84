/* Comparing reports: `pcapdoc diff OLD.json NEW.json` and --baseline.
 *
 * Both match findings on the key from pd_r_json_finding_key (id, plus the
 * client address and server address:port of its flows; id alone for
 * capture-wide findings), computed on the JSON form of each report so an
 * in-memory report and a saved one key identically. */
#include "report/internal.h"

#include <string.h>

typedef struct agg {
	char *key;
	const char *id, *title, *severity;
	int sev_rank;
	double occurrences, impact;
	int count;
} agg;

static void agg_free(gpointer p)
{
	agg *a = p;
	g_free(a->key);
	g_free(a);
}

static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : "";
}

static double jnum(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static int sev_rank(const char *s)
{
	pd_severity sev;
	return pd_severity_parse(s, &sev) ? (int)sev : -1;
}

/* key -> agg, plus the keys in first-seen order (for stable output). */
static GHashTable *aggregate(const cJSON *doc, GPtrArray *order)
{
	GHashTable *h = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, agg_free);
	const cJSON *f;
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(doc, "findings"))
	{
		char *key = pd_r_json_finding_key(f);
		agg *a = g_hash_table_lookup(h, key);
		if (!a) {
			a = g_new0(agg, 1);
			a->key = key;
			a->id = jstr(f, "id");
			a->title = jstr(f, "title");
			a->severity = jstr(f, "severity");
			a->sev_rank = sev_rank(a->severity);
			g_hash_table_insert(h, a->key, a);
			g_ptr_array_add(order, a);
		} else {
			g_free(key);
			int r = sev_rank(jstr(f, "severity"));
			if (r > a->sev_rank) {
				a->sev_rank = r;
				a->severity = jstr(f, "severity");
			}
		}
		a->count++;
		a->occurrences += jnum(f, "occurrences");
		a->impact += jnum(f, "impact_s");
	}
	return h;
}

static void print_where(FILE *out, const agg *a)
{
	const char *bar = strchr(a->key, '|');
	if (bar)
		fprintf(out, " (%s)", bar + 1);
}

static int cmp_agg(gconstpointer pa, gconstpointer pb)
{
	const agg *a = *(const agg *const *)pa, *b = *(const agg *const *)pb;
	if (a->sev_rank != b->sev_rank)
		return a->sev_rank > b->sev_rank ? -1 : 1;
	return strcmp(a->key, b->key);
}

int pd_diff_main(int argc, char **argv, FILE *out)
{
	/* argv[0] is the command's name; accept "diff" as an extra leading word */
	int first = 1;
	if (argc == 4 && strcmp(argv[1], "diff") == 0)
		first = 2;
	if (argc - first != 2) {
		fprintf(stderr, "usage: pcapdoc diff OLD.json NEW.json\n");
		return 2;
	}
	const char *old_path = argv[first], *new_path = argv[first + 1];
	GError *err = NULL;
	cJSON *old_doc = pd_r_load_json(old_path, &err);
	if (!old_doc) {
		fprintf(stderr, "pcapdoc diff: %s\n", err ? err->message : old_path);
		g_clear_error(&err);
		return 3;
	}
	cJSON *new_doc = pd_r_load_json(new_path, &err);
	if (!new_doc) {
		fprintf(stderr, "pcapdoc diff: %s\n", err ? err->message : new_path);
		g_clear_error(&err);
		cJSON_Delete(old_doc);
		return 3;
	}

	GPtrArray *old_order = g_ptr_array_new(), *new_order = g_ptr_array_new();
	GHashTable *old_h = aggregate(old_doc, old_order);
	GHashTable *new_h = aggregate(new_doc, new_order);
	g_ptr_array_sort(old_order, cmp_agg);
	g_ptr_array_sort(new_order, cmp_agg);

	GPtrArray *added = g_ptr_array_new(), *gone = g_ptr_array_new(),
		  *changed = g_ptr_array_new();
	for (guint i = 0; i < new_order->len; i++) {
		agg *n = new_order->pdata[i];
		agg *o = g_hash_table_lookup(old_h, n->key);
		if (!o)
			g_ptr_array_add(added, n);
		else if (o->sev_rank != n->sev_rank || o->count != n->count ||
			 o->occurrences != n->occurrences)
			g_ptr_array_add(changed, n);
	}
	for (guint i = 0; i < old_order->len; i++) {
		agg *o = old_order->pdata[i];
		if (!g_hash_table_lookup(new_h, o->key))
			g_ptr_array_add(gone, o);
	}

	fprintf(out, "pcapdoc diff: %u new, %u resolved, %u changed, %u unchanged\n", added->len,
		gone->len, changed->len, new_order->len - added->len - changed->len);
	for (guint i = 0; i < added->len; i++) {
		agg *a = added->pdata[i];
		fprintf(out, "+ new      [%s] %s: %s", a->severity, a->id, a->title);
		print_where(out, a);
		fprintf(out, "\n");
	}
	for (guint i = 0; i < gone->len; i++) {
		agg *a = gone->pdata[i];
		fprintf(out, "- resolved [%s] %s: %s", a->severity, a->id, a->title);
		print_where(out, a);
		fprintf(out, "\n");
	}
	for (guint i = 0; i < changed->len; i++) {
		agg *n = changed->pdata[i];
		agg *o = g_hash_table_lookup(old_h, n->key);
		fprintf(out, "~ changed  [%s", o->severity);
		if (o->sev_rank != n->sev_rank)
			fprintf(out, " -> %s", n->severity);
		fprintf(out, "] %s: %s", n->id, n->title);
		print_where(out, n);
		fprintf(out, "; occurrences %.0f -> %.0f, time lost %.3f s -> %.3f s\n",
			o->occurrences, n->occurrences, o->impact, n->impact);
	}
	int status = added->len ? 1 : 0;

	g_ptr_array_unref(added);
	g_ptr_array_unref(gone);
	g_ptr_array_unref(changed);
	g_ptr_array_unref(old_order);
	g_ptr_array_unref(new_order);
	g_hash_table_unref(old_h);
	g_hash_table_unref(new_h);
	cJSON_Delete(old_doc);
	cJSON_Delete(new_doc);
	return status;
}

bool pd_baseline_apply(pd_report *r, const char *path, GError **err)
{
	cJSON *base = pd_r_load_json(path, err);
	if (!base)
		return false;
	GHashTable *known = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	const cJSON *f;
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(base, "findings"))
		g_hash_table_add(known, pd_r_json_finding_key(f));
	cJSON_Delete(base);

	/* key the current findings exactly as a saved report would be keyed */
	cJSON *cur = pd_report_to_json(r, NULL);
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(cur, "findings");
	guint i = 0;
	cJSON_ArrayForEach(f, arr)
	{
		if (i >= r->findings->len)
			break;
		char *key = pd_r_json_finding_key(f);
		pd_finding *pf = r->findings->pdata[i++];
		pf->known = g_hash_table_contains(known, key);
		g_free(key);
	}
	cJSON_Delete(cur);
	g_hash_table_unref(known);
	return true;
}
