/* A Chinese report says in Chinese everything pcapdoc can say in Chinese.
 *
 * Every English text that has a translation (a detector's or the engine's
 * PD_TXT sentence with a Chinese format, a catalogue title, explanation or
 * alternative, a KB change, caveat or check, a kernel counter's meaning, a
 * report label) becomes a set of pieces: the literal runs between its printf
 * conversions, or its sentences, of at least PIECE_MIN characters.
 * pcapdoc --lang zh runs over every golden capture and a few crafted
 * inputs, in text (--verbose, every setting in full) and Markdown; no piece
 * may appear in what it prints. Whitespace is ignored (the text report
 * wraps lines) and Markdown's escapes are undone first.
 *
 * What stays English on purpose is not a piece: the part a Chinese text
 * shares with its English (a setting name, a command), KB checks that are
 * only commands, KB defaults, ids. Texts whose Chinese is still missing
 * print English, so a piece they share is skipped; they are listed with a
 * count, and only the files in still_english[] may have them. */
#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "analyzer/run.h"
#include "heuristics/detector.h"
#include "report/text.h"
#include "knowledge/catalog.h"
#include "knowledge/counters.h"
#include "knowledge/kb.h"
#include "report/labels.h"
#include "testutil.h"

#define PIECE_MIN 16

/* Source files whose texts are still being translated: their PD_TXT texts
 * may have a NULL Chinese format for now. Any other file's may not. Take a
 * file off when it has none left. */
static const char *const still_english[] = {
	"",
};

typedef struct piece {
	char *squashed; /* the piece without whitespace */
	char *shown; /* as written, for the message */
	char *origin; /* "heuristics/det_nagle.c:212", "catalog nagle-delayed-ack explain" */
} piece;

static void piece_free(gpointer p)
{
	piece *pc = p;
	g_free(pc->squashed);
	g_free(pc->shown);
	g_free(pc->origin);
	g_free(pc);
}

static char *squash(const char *s)
{
	GString *b = g_string_new(NULL);
	for (; s && *s; s++)
		if (!g_ascii_isspace(*s))
			g_string_append_c(b, *s);
	return g_string_free(b, FALSE);
}

/* The literal runs of a printf format, split at each conversion ("%%" is
 * a literal '%'). */
static GPtrArray *format_pieces(const char *fmt)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
	GString *cur = g_string_new(NULL);
	for (const char *p = fmt; *p; p++) {
		if (*p != '%') {
			g_string_append_c(cur, *p);
			continue;
		}
		if (p[1] == '%') {
			g_string_append_c(cur, '%');
			p++;
			continue;
		}
		g_ptr_array_add(out, g_strdup(cur->str));
		g_string_truncate(cur, 0);
		p++;
		while (*p && strchr("0123456789$-+ #'.*", *p))
			p++;
		while (*p && strchr("hlLqjzt", *p))
			p++;
		if (!*p)
			break; /* a format never ends inside a conversion; be safe */
	}
	g_ptr_array_add(out, g_strdup(cur->str));
	g_string_free(cur, TRUE);
	return out;
}

/* The sentences of a prose text: split after '.', ';', ':' or '?' that a
 * space follows (never inside "net.ipv4.x" or "e.g.x"). */
static GPtrArray *sentence_pieces(const char *text)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
	const char *start = text;
	for (const char *p = text; *p; p++) {
		if (strchr(".;:?", *p) && (p[1] == ' ' || p[1] == '\0')) {
			g_ptr_array_add(out, g_strndup(start, (gsize)(p + 1 - start)));
			start = p + 1;
		}
	}
	if (*start)
		g_ptr_array_add(out, g_strdup(start));
	return out;
}

typedef struct catalogue {
	GPtrArray *pieces; /* piece* */
	GPtrArray *untranslated; /* char*: squashed English of texts without Chinese */
	GPtrArray *english_on_purpose; /* char*: squashed KB command-only checks, defaults, names; ids */
	int skipped_shared, skipped_untranslated, skipped_short;
} catalogue;

static bool in_any(const GPtrArray *a, const char *s)
{
	for (guint i = 0; i < a->len; i++)
		if (strstr(a->pdata[i], s))
			return true;
	return false;
}

/* Adds the pieces of en that zh (its translation) does not contain. */
static void add_pieces(catalogue *c, GPtrArray *raw, const char *zh, const char *origin)
{
	char *zh_sq = squash(zh);
	for (guint i = 0; i < raw->len; i++) {
		const char *r = raw->pdata[i];
		char *stripped = g_strstrip(g_strdup(r));
		char *sq = squash(stripped);
		if (strlen(stripped) < PIECE_MIN) {
			c->skipped_short++;
		} else if (strstr(zh_sq, sq) || in_any(c->english_on_purpose, sq)) {
			c->skipped_shared++; /* a name, a command: English in both */
		} else if (in_any(c->untranslated, sq)) {
			c->skipped_untranslated++; /* an untranslated text prints it too */
		} else {
			piece *pc = g_new0(piece, 1);
			pc->squashed = sq;
			pc->shown = stripped;
			pc->origin = g_strdup(origin);
			g_ptr_array_add(c->pieces, pc);
			continue;
		}
		g_free(sq);
		g_free(stripped);
	}
	g_free(zh_sq);
}

static void add_prose(catalogue *c, const char *en, const char *zh, const char *origin)
{
	if (!en || !zh || !*zh || strcmp(en, zh) == 0)
		return;
	GPtrArray *raw = sentence_pieces(en);
	add_pieces(c, raw, zh, origin);
	g_ptr_array_unref(raw);
}

/* A KB check: its sentences less the ';' or ':' that ends them, so a
 * command that check_zh keeps (followed there by '；') is shared, not a
 * piece; only the prose around the commands is. */
static void add_check(catalogue *c, const char *en, const char *zh, const char *origin)
{
	if (!en || !zh || !*zh || strcmp(en, zh) == 0)
		return;
	GPtrArray *raw = sentence_pieces(en);
	for (guint i = 0; i < raw->len; i++) {
		char *r = raw->pdata[i];
		size_t n = strlen(r);
		while (n && strchr(";: ", r[n - 1]))
			r[--n] = '\0';
	}
	add_pieces(c, raw, zh, origin);
	g_ptr_array_unref(raw);
}

static int cmp_int(gconstpointer a, gconstpointer b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return x < y ? -1 : x > y;
}

static bool listed_still_english(const char *file)
{
	char *base = g_path_get_basename(file);
	bool listed = false;
	for (size_t i = 0; i < G_N_ELEMENTS(still_english); i++)
		listed = listed || strcmp(base, still_english[i]) == 0;
	g_free(base);
	return listed;
}

static void build(catalogue *c)
{
	c->pieces = g_ptr_array_new_with_free_func(piece_free);
	c->untranslated = g_ptr_array_new_with_free_func(g_free);
	c->english_on_purpose = g_ptr_array_new_with_free_func(g_free);

	/* link every detector and the engine in: their texts are the section */
	cr_assert_gt(pd_detectors_len, 0);
	pd_run_opts o;
	pd_run_opts_default(&o);
	const pd_text *b = pd_texts_begin(), *e = pd_texts_end();
	cr_assert(b && e && e > b, "no texts in the pd_texts section");

	for (size_t i = 0; i < pd_kb_len; i++) {
		/* a check with Chinese prose is English no longer; one that is
		 * only commands is the same in both */
		const pd_setting *s = &pd_kb[i];
		bool check_same = !s->check_zh || strcmp(s->check, s->check_zh) == 0;
		const char *keep[] = {check_same ? s->check : NULL, s->default_value, s->name};
		for (size_t k = 0; k < G_N_ELEMENTS(keep); k++)
			if (keep[k])
				g_ptr_array_add(c->english_on_purpose, squash(keep[k]));
	}

	/* texts without Chinese: listed by file and line, counted */
	GHashTable *by_file = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	int missing = 0, translated = 0;
	for (const pd_text *t = b; t < e; t++) {
		if (t->zh) {
			translated++;
			continue;
		}
		missing++;
		g_ptr_array_add(c->untranslated, squash(t->en));
		char *base = g_path_get_basename(t->file);
		GArray *lines = g_hash_table_lookup(by_file, base);
		if (!lines) {
			lines = g_array_new(FALSE, FALSE, sizeof(int));
			g_hash_table_insert(by_file, g_strdup(base), lines);
		}
		g_array_append_val(lines, t->line);
		g_free(base);
		cr_expect(listed_still_english(t->file),
			  "%s:%d has no Chinese format; only the files in still_english[] may", t->file, t->line);
	}
	fprintf(stderr, "test_zh: %d texts with Chinese, %d without\n", translated, missing);
	GList *names = g_list_sort(g_hash_table_get_keys(by_file), (GCompareFunc)strcmp);
	for (GList *l = names; l; l = l->next) {
		GArray *lines = g_hash_table_lookup(by_file, l->data);
		g_array_sort(lines, cmp_int);
		GString *list = g_string_new(NULL);
		for (guint i = 0; i < lines->len; i++)
			g_string_append_printf(list, " %d", g_array_index(lines, int, i));
		fprintf(stderr, "test_zh:   %s: %u without Chinese, lines%s\n", (const char *)l->data, lines->len,
			list->str);
		g_string_free(list, TRUE);
		g_array_unref(lines);
	}
	g_list_free(names);
	for (size_t i = 0; i < G_N_ELEMENTS(still_english); i++)
		if (!g_hash_table_contains(by_file, still_english[i]))
			fprintf(stderr, "test_zh: %s has no untranslated text left: take it off still_english[]\n",
				still_english[i]);
	g_hash_table_unref(by_file);

	for (const pd_text *t = b; t < e; t++) {
		if (!t->zh)
			continue;
		char origin[256];
		g_snprintf(origin, sizeof origin, "%s:%d", t->file, t->line);
		GPtrArray *raw = format_pieces(t->en);
		add_pieces(c, raw, t->zh, origin);
		g_ptr_array_unref(raw);
	}

	for (size_t i = 0; i < pd_catalog_len; i++) {
		const pd_finding_def *d = &pd_catalog[i];
		char origin[160];
		g_snprintf(origin, sizeof origin, "catalogue %s title", d->id);
		add_prose(c, d->title_en, d->title_zh, origin);
		g_snprintf(origin, sizeof origin, "catalogue %s explanation", d->id);
		add_prose(c, d->explain_en, d->explain_zh, origin);
		for (size_t a = 0; a < PD_DEF_MAX_ALTS && d->alternatives_en[a]; a++) {
			g_snprintf(origin, sizeof origin, "catalogue %s alternative %zu", d->id, a + 1);
			add_prose(c, d->alternatives_en[a], d->alternatives_zh[a], origin);
		}
	}
	for (size_t i = 0; i < pd_kb_len; i++) {
		const pd_setting *s = &pd_kb[i];
		char origin[160];
		g_snprintf(origin, sizeof origin, "KB %s change", s->name);
		add_prose(c, s->change_en, s->change_zh, origin);
		g_snprintf(origin, sizeof origin, "KB %s caveat", s->name);
		add_prose(c, s->caveat_en, s->caveat_zh, origin);
		g_snprintf(origin, sizeof origin, "KB %s check", s->name);
		add_check(c, s->check, s->check_zh, origin);
	}

	for (size_t i = 0; i < pd_counters_len; i++) {
		char origin[160];
		g_snprintf(origin, sizeof origin, "counter %s", pd_counters[i].name);
		add_prose(c, pd_counters[i].meaning_en, pd_counters[i].meaning_zh, origin);
	}

	const pd_labels *en = pd_labels_get(false), *zh = pd_labels_get(true);
	const char *const *el = (const char *const *)en, *const *zl = (const char *const *)zh;
	for (size_t i = 0; i < PD_LABELS_COUNT; i++) {
		if (!el[i] || !zl[i] || strcmp(el[i], zl[i]) == 0)
			continue;
		char origin[64];
		g_snprintf(origin, sizeof origin, "report label #%zu", i);
		GPtrArray *raw = format_pieces(el[i]);
		add_pieces(c, raw, zl[i], origin);
		g_ptr_array_unref(raw);
	}
	fprintf(stderr,
		"test_zh: %u English pieces to look for; skipped %d shorter than %d, %d shared with the "
		"Chinese or a command, %d printed by an untranslated text too\n",
		c->pieces->len, c->skipped_short, PIECE_MIN, c->skipped_shared, c->skipped_untranslated);
}

/* Markdown escapes undone: the text as a reader sees it. */
static char *unmarkdown(const char *s)
{
	GString *b = g_string_new(NULL);
	for (const char *p = s; *p; p++) {
		if (*p == '\\' && p[1] && strchr("\\`*_[]!|~", p[1])) {
			g_string_append_c(b, *++p);
		} else if (g_str_has_prefix(p, "&lt;")) {
			g_string_append_c(b, '<');
			p += 3;
		} else if (g_str_has_prefix(p, "&gt;")) {
			g_string_append_c(b, '>');
			p += 3;
		} else if (g_str_has_prefix(p, "&amp;")) {
			g_string_append_c(b, '&');
			p += 4;
		} else {
			g_string_append_c(b, *p);
		}
	}
	return g_string_free(b, FALSE);
}

/* Looks for every piece in one report; the first report a piece shows up
 * in is remembered (one message per piece, not per capture). */
static void scan(const catalogue *c, const char *report, bool markdown, const char *what, GHashTable *hits)
{
	char *plain = markdown ? unmarkdown(report) : g_strdup(report);
	char *flat = squash(plain);
	/* the KB's command-only checks and defaults are English on purpose (a
	 * short one, "0", cannot hold a piece) */
	for (guint i = 0; i < c->english_on_purpose->len; i++) {
		const char *d = c->english_on_purpose->pdata[i];
		size_t n = strlen(d);
		if (n < PIECE_MIN / 2)
			continue;
		for (char *p = flat; (p = strstr(p, d)); p += n)
			memset(p, '_', n);
	}
	for (guint i = 0; i < c->pieces->len; i++) {
		const piece *pc = c->pieces->pdata[i];
		if (!g_hash_table_contains(hits, pc) && strstr(flat, pc->squashed))
			g_hash_table_insert(hits, (gpointer)pc, g_strdup(what));
	}
	g_free(flat);
	g_free(plain);
}

/* Small inputs whose capture notes no golden capture has: only a header,
 * one ARP frame, one frame of a link type pcapdoc does not decode. */
static void write_pcap(const char *path, uint32_t linktype, const uint8_t *frame, uint32_t len)
{
	uint8_t hdr[24] = {0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0};
	memcpy(hdr + 16, &(uint32_t){65535}, 4);
	memcpy(hdr + 20, &linktype, 4);
	GString *b = g_string_new_len((const char *)hdr, sizeof hdr);
	if (frame) {
		uint32_t rec[4] = {1700000000, 0, len, len};
		g_string_append_len(b, (const char *)rec, sizeof rec);
		g_string_append_len(b, (const char *)frame, len);
	}
	cr_assert(g_file_set_contents(path, b->str, (gssize)b->len, NULL), "%s", path);
	g_string_free(b, TRUE);
}

static GPtrArray *crafted_inputs(const char *dir)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
	char *empty = g_build_filename(dir, "empty.pcap", NULL);
	write_pcap(empty, 1, NULL, 0);
	g_ptr_array_add(out, empty);

	uint8_t arp[42] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 0x08, 0x06,
			   0, 1, 0x08, 0, 6, 4, 0, 1, 2, 0, 0, 0, 0, 1, 10, 0, 0, 1};
	char *noip = g_build_filename(dir, "arp.pcap", NULL);
	write_pcap(noip, 1, arp, sizeof arp);
	g_ptr_array_add(out, noip);

	char *odd = g_build_filename(dir, "user0.pcap", NULL);
	write_pcap(odd, 147, arp, sizeof arp); /* LINKTYPE_USER0 */
	g_ptr_array_add(out, odd);
	return out;
}

static void catalogue_free(catalogue *c)
{
	g_ptr_array_unref(c->pieces);
	g_ptr_array_unref(c->untranslated);
	g_ptr_array_unref(c->english_on_purpose);
}

Test(zh, reports_carry_no_translated_english, .timeout = 900)
{
	catalogue c = {0};
	build(&c);
	cr_assert_gt(c.pieces->len, 500, "too few pieces: %u", c.pieces->len);

	char *root = pd_test_src("testdata/captures");
	GPtrArray *files = pd_test_list_captures(root);
	cr_assert_gt(files->len, 100, "golden captures not found under %s", root);
	char *probe = pd_test_src("testdata/probes/synflood-evict-icmp.pcap.gz");
	g_ptr_array_add(files, probe);
	char *dir = g_dir_make_tmp("pcapdoc-zh-XXXXXX", NULL);
	cr_assert_not_null(dir);
	GPtrArray *crafted = crafted_inputs(dir);
	for (guint i = 0; i < crafted->len; i++)
		g_ptr_array_add(files, g_strdup(crafted->pdata[i]));

	GHashTable *hits = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	int notes_seen = 0;
	for (guint i = 0; i < files->len; i++) {
		const char *cap = files->pdata[i];
		const char *text_args[] = {"--lang", "zh", "--verbose", cap, NULL};
		const char *md_args[] = {"--lang", "zh", "--format", "markdown", cap, NULL};
		const char *const *runs[] = {text_args, md_args};
		for (size_t k = 0; k < G_N_ELEMENTS(runs); k++) {
			char *out = NULL;
			int st = pd_test_run(&out, NULL, runs[k]);
			cr_expect(st >= 0 && st <= 4, "%s: exit %d", cap, st);
			cr_expect(out && *out, "%s: nothing printed", cap);
			if (!out)
				continue;
			char *base = g_path_get_basename(cap);
			char *what = g_strdup_printf("%s (%s)", base, k ? "markdown" : "text");
			scan(&c, out, k == 1, what, hits);
			if (k == 0 && strstr(out, "备注："))
				notes_seen++;
			g_free(what);
			g_free(base);
			g_free(out);
		}
	}
	/* the crafted inputs and the probe each carry a capture note */
	cr_expect_geq(notes_seen, 4, "capture notes in %d reports", notes_seen);

	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, hits);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		const piece *pc = k;
		cr_expect_fail("%s: the Chinese report says \"%s\" in English (%s)", (const char *)v, pc->shown,
			       pc->origin);
	}
	fprintf(stderr, "test_zh: %u inputs, %u pieces found in a Chinese report\n", files->len,
		g_hash_table_size(hits));

	for (guint i = 0; i < crafted->len; i++)
		g_unlink(crafted->pdata[i]);
	g_rmdir(dir);
	g_free(dir);
	g_ptr_array_unref(crafted);
	g_hash_table_unref(hits);
	g_ptr_array_unref(files);
	g_free(root);
	catalogue_free(&c);
}

Test(zh, pieces_of_a_format)
{
	GPtrArray *p = format_pieces("%s %s holds (Nagle) %.1f ms, %" G_GUINT64_FORMAT " = %.0f%% of %2$s.");
	const char *want[] = {"", " ", " holds (Nagle) ", " ms, ", " = ", "% of ", "."};
	cr_assert_eq(p->len, G_N_ELEMENTS(want));
	for (guint i = 0; i < p->len; i++)
		cr_expect_str_eq(p->pdata[i], want[i]);
	g_ptr_array_unref(p);
	GPtrArray *s = sentence_pieces("Raise it (e.g. net.ipv4.tcp_rmem=4096). Then: restart; done");
	const char *sent[] = {"Raise it (e.g.", " net.ipv4.tcp_rmem=4096).", " Then:", " restart;", " done"};
	cr_assert_eq(s->len, G_N_ELEMENTS(sent));
	for (guint i = 0; i < s->len; i++)
		cr_expect_str_eq(s->pdata[i], sent[i]);
	g_ptr_array_unref(s);
}

/* The search finds English where there is some: the same captures'
 * English reports show the pieces, those of the translated detectors too. */
Test(zh, english_reports_show_the_pieces)
{
	catalogue c = {0};
	build(&c);
	const char *caps[] = {"testdata/captures/nagle-delack/nagle-delack.pcap",
			      "testdata/captures/keepalive-probes/keepalive-dropped.pcap"};
	GHashTable *hits = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	for (size_t i = 0; i < G_N_ELEMENTS(caps); i++) {
		char *cap = pd_test_src(caps[i]);
		const char *text_args[] = {"--verbose", cap, NULL};
		const char *md_args[] = {"--format", "markdown", cap, NULL};
		const char *const *runs[] = {text_args, md_args};
		for (size_t k = 0; k < G_N_ELEMENTS(runs); k++) {
			char *out = NULL;
			pd_test_run(&out, NULL, runs[k]);
			cr_assert(out && *out, "%s: nothing printed", cap);
			scan(&c, out, k == 1, caps[i], hits);
			g_free(out);
		}
		g_free(cap);
	}
	int nagle = 0, transfer = 0, catalogue_texts = 0, labels = 0;
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, hits);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		const piece *pc = k;
		nagle += strstr(pc->origin, "det_nagle.c") != NULL;
		transfer += strstr(pc->origin, "det_transfer.c") != NULL;
		catalogue_texts += g_str_has_prefix(pc->origin, "catalogue ");
		labels += g_str_has_prefix(pc->origin, "report label");
	}
	cr_expect_geq(nagle, 3, "%d pieces of det_nagle.c found", nagle);
	cr_expect_geq(transfer, 3, "%d pieces of det_transfer.c found", transfer);
	cr_expect_geq(catalogue_texts, 2, "%d catalogue pieces found", catalogue_texts);
	cr_expect_geq(labels, 1, "%d label pieces found", labels);
	g_hash_table_unref(hits);
	catalogue_free(&c);
}
