/* Agreement with tshark's TCP analysis.
 *
 * For each capture, per TCP flow, pcapdoc's counts of retransmissions,
 * duplicate ACKs, zero windows and out-of-order segments are compared with
 * tshark's tcp.analysis.* flags. Flows are matched on their first frame
 * (tshark's tcp.stream vs pcapdoc's flow rows). tshark is a test-time
 * cross-check only; without it the comparison is skipped. The table of
 * agreement is printed so the figures can be quoted. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

enum { C_RETX, C_DUPACK, C_ZEROWIN, C_OOO, C__N };
static const char *const counter_names[C__N] = {"retransmissions", "dup_acks", "zero_windows",
						 "out_of_order"};
static const char *const row_keys[C__N] = {"retransmissions", "dup_acks", "zero_windows",
					    "out_of_order"};

typedef struct stream_counts {
	uint64_t first_frame;
	uint64_t c[C__N];
} stream_counts;

static bool have_tshark(void)
{
	gchar *path = g_find_program_in_path("tshark");
	bool ok = path != NULL;
	g_free(path);
	return ok;
}

/* tcp.stream -> counts, from one tshark pass. */
static GHashTable *tshark_streams(const char *file)
{
	const char *argv[] = {"tshark", "-n", "-r", file, "-T", "fields", "-E", "separator=|",
			      "-e", "frame.number", "-e", "tcp.stream",
			      "-e", "tcp.analysis.retransmission", "-e", "tcp.analysis.duplicate_ack",
			      "-e", "tcp.analysis.zero_window", "-e", "tcp.analysis.out_of_order",
			      "-e", "icmp.type", "-e", "icmpv6.type", "-Y", "tcp", NULL};
	gchar *out = NULL, *err = NULL;
	gint status = 0;
	if (!g_spawn_sync(NULL, (gchar **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err,
			  &status, NULL))
		return NULL;
	GHashTable *h = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	gchar **lines = g_strsplit(out, "\n", -1);
	for (gchar **l = lines; *l; l++) {
		gchar **f = g_strsplit(*l, "|", -1);
		if (g_strv_length(f) >= 8 && f[1][0] && !f[6][0] && !f[7][0]) {
			int64_t stream = g_ascii_strtoll(f[1], NULL, 10);
			stream_counts *sc = g_hash_table_lookup(h, &stream);
			if (!sc) {
				sc = g_new0(stream_counts, 1);
				sc->first_frame = g_ascii_strtoull(f[0], NULL, 10);
				g_hash_table_insert(h, g_memdup2(&stream, sizeof(stream)), sc);
			}
			for (int c = 0; c < C__N; c++)
				if (f[2 + c][0])
					sc->c[c]++;
		}
		g_strfreev(f);
	}
	g_strfreev(lines);
	g_free(out);
	g_free(err);
	return h;
}

typedef struct agreement {
	bool dupack_skipped; /* capture doubled: dup ACKs not compared (counted as agreeing) */
	int flows_tshark, flows_matched;
	int agree[C__N]; /* flows with equal counts */
	uint64_t total_ts[C__N], total_pd[C__N];
} agreement;

static bool compare_file(const char *path, agreement *a)
{
	memset(a, 0, sizeof(*a));
	GHashTable *ts = tshark_streams(path);
	if (!ts)
		return false;
	const char *args[] = {"--no-ndpi", "--flows", NULL};
	cJSON *rep = pd_test_json_abs(path, args);
	if (!rep) {
		g_hash_table_destroy(ts);
		return false;
	}
	/* A capture that saw every packet twice (tcpdump -i any on a router:
	 * in and out) makes tshark flag each second copy of an ACK as a
	 * duplicate ACK; pcapdoc recognises the copies (capture-duplicates)
	 * and does not count them, so duplicate ACKs are not compared there. */
	bool doubled = false;
	const cJSON *fi;
	cJSON_ArrayForEach(fi, cJSON_GetObjectItemCaseSensitive(rep, "findings"))
	{
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(fi, "id");
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(fi, "metrics");
		if (!cJSON_IsString(id) || strcmp(id->valuestring, "capture-duplicates") != 0)
			continue;
		/* most of the capture doubled, not a few stray copies */
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(m, "duplicate_frames"), "value");
		const cJSON *pk = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(rep, "capture"), "packets");
		if (cJSON_IsNumber(v) && cJSON_IsNumber(pk) && v->valuedouble * 3 >= pk->valuedouble)
			doubled = true;
	}
	a->dupack_skipped = doubled;
	/* first_frame -> row */
	GHashTable *rows = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	const cJSON *flows = cJSON_GetObjectItemCaseSensitive(rep, "flows");
	const cJSON *row;
	cJSON_ArrayForEach(row, flows)
	{
		const cJSON *proto = cJSON_GetObjectItemCaseSensitive(row, "proto");
		const cJSON *ff = cJSON_GetObjectItemCaseSensitive(row, "first_frame");
		if (!cJSON_IsNumber(ff) || !cJSON_IsString(proto) || strcmp(proto->valuestring, "tcp") != 0)
			continue;
		int64_t k = (int64_t)ff->valuedouble;
		g_hash_table_insert(rows, g_memdup2(&k, sizeof(k)), (gpointer)row);
	}
	GHashTableIter it;
	gpointer key, val;
	g_hash_table_iter_init(&it, ts);
	while (g_hash_table_iter_next(&it, &key, &val)) {
		stream_counts *sc = val;
		a->flows_tshark++;
		for (int c = 0; c < C__N; c++)
			a->total_ts[c] += sc->c[c];
		int64_t k = (int64_t)sc->first_frame;
		const cJSON *r = g_hash_table_lookup(rows, &k);
		if (!r)
			continue;
		a->flows_matched++;
		for (int c = 0; c < C__N; c++) {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, row_keys[c]);
			uint64_t pd = cJSON_IsNumber(v) ? (uint64_t)v->valuedouble : UINT64_MAX;
			a->total_pd[c] += pd == UINT64_MAX ? 0 : pd;
			if (pd == sc->c[c] || (c == C_DUPACK && doubled))
				a->agree[c]++;
		}
	}
	g_hash_table_destroy(rows);
	g_hash_table_destroy(ts);
	cJSON_Delete(rep);
	return true;
}

static void print_row(FILE *out, const char *name, const agreement *a)
{
	fprintf(out, "%-58s flows %4d/%-4d", name, a->flows_matched, a->flows_tshark);
	for (int c = 0; c < C__N; c++)
		fprintf(out, " | %s %d/%d (pd %" G_GUINT64_FORMAT " ts %" G_GUINT64_FORMAT ")",
			counter_names[c], a->agree[c], a->flows_matched, a->total_pd[c], a->total_ts[c]);
	if (a->dupack_skipped)
		fputs(" | dup ACKs not compared: every packet captured twice", out);
	fputc('\n', out);
}

/* Kernel-made golden captures: pcapdoc must agree flow by flow. */
Test(tshark, golden_captures_agree)
{
	if (!have_tshark())
		cr_skip_test("tshark not installed");
	char *root = pd_test_src("testdata/captures");
	GPtrArray *files = pd_test_list_captures(root);
	cr_assert(files->len > 0, "no golden captures under %s", root);
	agreement sum;
	memset(&sum, 0, sizeof(sum));
	for (guint i = 0; i < files->len; i++) {
		const char *f = g_ptr_array_index(files, i);
		agreement a;
		if (!compare_file(f, &a))
			continue;
		print_row(stderr, f + strlen(root) + 1, &a);
		sum.flows_tshark += a.flows_tshark;
		sum.flows_matched += a.flows_matched;
		for (int c = 0; c < C__N; c++) {
			sum.agree[c] += a.agree[c];
			sum.total_ts[c] += a.total_ts[c];
			sum.total_pd[c] += a.total_pd[c];
		}
	}
	print_row(stderr, "TOTAL golden", &sum);
	cr_assert(sum.flows_tshark > 0);
	/* Every tshark stream is a pcapdoc flow starting at the same frame. */
	cr_expect_geq(sum.flows_matched * 100, sum.flows_tshark * 98, "flows matched %d of %d",
		      sum.flows_matched, sum.flows_tshark);
	for (int c = 0; c < C__N; c++)
		cr_expect_geq(sum.agree[c] * 100, sum.flows_matched * 95, "%s agree on %d of %d flows",
			      counter_names[c], sum.agree[c], sum.flows_matched);
	g_ptr_array_free(files, TRUE);
	g_free(root);
}

/* Third-party captures: printed for the record, with a looser bar (they
 * hold deliberately odd traffic: duplicates, injected RSTs, fuzzed frames). */
Test(tshark, public_captures_mostly_agree)
{
	if (!have_tshark())
		cr_skip_test("tshark not installed");
	char *root = pd_test_shared("traces/public");
	if (!g_file_test(root, G_FILE_TEST_IS_DIR)) {
		g_free(root);
		cr_skip_test("no ../shared/traces/public");
	}
	GPtrArray *files = pd_test_list_captures(root);
	agreement sum;
	memset(&sum, 0, sizeof(sum));
	for (guint i = 0; i < files->len; i++) {
		const char *f = g_ptr_array_index(files, i);
		agreement a;
		if (!compare_file(f, &a))
			continue;
		print_row(stderr, f + strlen(root) + 1, &a);
		sum.flows_tshark += a.flows_tshark;
		sum.flows_matched += a.flows_matched;
		for (int c = 0; c < C__N; c++) {
			sum.agree[c] += a.agree[c];
			sum.total_ts[c] += a.total_ts[c];
			sum.total_pd[c] += a.total_pd[c];
		}
	}
	print_row(stderr, "TOTAL public", &sum);
	cr_expect_geq(sum.flows_matched * 100, sum.flows_tshark * 90);
	for (int c = 0; c < C__N; c++)
		cr_expect_geq(sum.agree[c] * 100, sum.flows_matched * 90, "%s agree on %d of %d flows",
			      counter_names[c], sum.agree[c], sum.flows_matched);
	g_ptr_array_free(files, TRUE);
	g_free(root);
}
