/* The reader's two ways through a classic pcap file must agree: a plain
 * file is read with read(2) and parsed by the reader itself (the direct
 * path), standard input goes through libpcap. Each capture here
 * (well-formed, hostile, randomly damaged, and larger than the reader's
 * buffers) is read both ways and every frame, error message and counter
 * compared; the direct path also in the ways the analysis uses it: frames
 * used until the next read, or held and reported done in order. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "capture/reader.h"
#include "testutil.h"

typedef struct blob {
	GByteArray *b;
	bool be; /* big-endian file */
} blob;

static void put32(blob *f, uint32_t v)
{
	uint8_t p[4];
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(f->be ? v >> (24 - 8 * i) : v >> (8 * i));
	g_byte_array_append(f->b, p, 4);
}

static void put16(blob *f, uint16_t v)
{
	uint8_t p[2] = {(uint8_t)(f->be ? v >> 8 : v), (uint8_t)(f->be ? v : v >> 8)};
	g_byte_array_append(f->b, p, 2);
}

static blob file_new(bool be, uint32_t magic, uint16_t major, uint16_t minor, uint32_t snap,
		     uint32_t linktype)
{
	blob f = {g_byte_array_new(), be};
	put32(&f, magic);
	put16(&f, major);
	put16(&f, minor);
	put32(&f, 0);
	put32(&f, 0);
	put32(&f, snap);
	put32(&f, linktype);
	return f;
}

/* A record of len bytes of an Ethernet/IPv4/TCP frame (cut or padded);
 * caplen and wirelen as given, so a record may lie about its size. */
static void record(blob *f, uint32_t sec, uint32_t sub, uint32_t caplen, uint32_t wirelen, size_t len,
		   uint32_t seed)
{
	put32(f, sec);
	put32(f, sub);
	put32(f, caplen);
	put32(f, wirelen);
	static const uint8_t hdr[54] = {
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0x08, 0x00,
		0x45, 0, 0, 40, 0, 1, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
		0x9c, 0x41, 0, 80, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x18, 0xff, 0xff, 0, 0, 0, 0};
	for (size_t i = 0; i < len; i++) {
		uint8_t c = i < sizeof(hdr) ? hdr[i] : (uint8_t)(seed + i);
		g_byte_array_append(f->b, &c, 1);
	}
}

static void good_records(blob *f, int n, bool nsec)
{
	for (int i = 0; i < n; i++) {
		size_t len = 54 + (size_t)(i * 37) % 1400;
		record(f, 1700000000u + (uint32_t)i / 3, (uint32_t)(i * 1000) * (nsec ? 1000u : 1u),
		       (uint32_t)len, (uint32_t)len + (i % 4 == 0 ? 100 : 0), len, (uint32_t)i);
	}
}

static char *write_tmp(const blob *f, const char *name)
{
	char *base = g_strdup_printf("%d-%s", (int)getpid(), name);
	char *path = g_build_filename(g_get_tmp_dir(), base, NULL);
	g_free(base);
	cr_assert(g_file_set_contents(path, (const char *)f->b->data, (gssize)f->b->len, NULL));
	return path;
}

/* Everything after "NAME: " of a reader error, so both paths compare. */
static const char *after_name(const char *msg)
{
	const char *p = strstr(msg, ": ");
	return p ? p + 2 : msg;
}

typedef struct seen {
	pd_frame fr;
	GBytes *copy; /* the bytes as handed out */
} seen;

static void seen_free(gpointer p)
{
	seen *s = p;
	g_bytes_unref(s->copy);
	g_free(s);
}

/* How the direct path's frames are used while reading. */
enum { USE_NEXT, HOLD_ALL, HOLD_WINDOW, HOLD_WINDOW_AHEAD };
#define WINDOW 64
/* with read-ahead: frames of a few pieces stay held while later pieces are
 * read, so a buffer reused too early shows */
#define WINDOW_AHEAD 1024

/* Another thread reading ahead all the time, as an idle lane does now
 * and then: the most chances for it to race with the reader's consumer. */
static guint read_ahead_pieces; /* by every helper so far */

static bool read_ahead_chore(void *r)
{
	return pd_reader_read_ahead(r);
}

/* Every frame of r, copied as handed out. HOLD_ALL keeps every frame
 * without reporting any done; HOLD_WINDOW reports each done WINDOW frames
 * later, after checking it did not change meanwhile; HOLD_WINDOW_AHEAD
 * does that WINDOW_AHEAD frames later while another thread reads ahead. */
static GPtrArray *read_all(pd_reader *r, int use, const char *what)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(seen_free);
	if (use != USE_NEXT)
		pd_reader_hold_frames(r);
	pd_test_spinner *helper = NULL;
	if (use == HOLD_WINDOW_AHEAD) {
		pd_reader_allow_read_ahead(r);
		/* the first piece read ahead here, whatever the scheduler does
		 * with the helper (on a loaded machine it may not run before
		 * the file is read); the helper's races come on top */
		if (pd_reader_read_ahead(r))
			read_ahead_pieces++;
		helper = pd_test_spinner_start(read_ahead_chore, r);
	}
	pd_frame fr;
	while (pd_reader_next(r, &fr)) {
		seen *s = g_new0(seen, 1);
		s->fr = fr;
		s->copy = g_bytes_new(fr.data, fr.caplen);
		g_ptr_array_add(out, s);
		guint window = use == HOLD_WINDOW_AHEAD ? WINDOW_AHEAD : WINDOW;
		if ((use == HOLD_WINDOW || use == HOLD_WINDOW_AHEAD) && out->len > window) {
			const seen *old = g_ptr_array_index(out, out->len - 1 - window);
			cr_assert(old->fr.caplen == 0 ||
					  memcmp(old->fr.data, g_bytes_get_data(old->copy, NULL), old->fr.caplen) == 0,
				  "%s: held frame %" G_GUINT64_FORMAT " changed", what, old->fr.frame_no);
			pd_reader_frame_done(r, &old->fr);
		}
	}
	if (helper)
		read_ahead_pieces += pd_test_spinner_stop(helper);
	return out;
}

/* Reads path as a file (used as `use` says) and again as standard input
 * and compares; returns whether the file took the direct path. */
static bool compare_paths(const char *path, const char *filter, const char *what, int use)
{
	const char *files[] = {path};
	GError *err = NULL;
	pd_reader *a = pd_reader_open(files, 1, filter, &err);
	char *err_a = err ? g_strdup(after_name(err->message)) : NULL;
	g_clear_error(&err);

	int saved = dup(STDIN_FILENO);
	int fd = open(path, O_RDONLY);
	cr_assert(saved >= 0 && fd >= 0);
	dup2(fd, STDIN_FILENO);
	close(fd);
	const char *dash[] = {"-"};
	pd_reader *b = pd_reader_open(dash, 1, filter, &err);
	char *err_b = err ? g_strdup(after_name(err->message)) : NULL;
	g_clear_error(&err);

	cr_assert_eq(a == NULL, b == NULL, "%s: one path opened, the other not", what);
	if (!a) {
		cr_assert_str_eq(err_a, err_b, "%s: open errors differ", what);
		dup2(saved, STDIN_FILENO);
		close(saved);
		g_free(err_a);
		g_free(err_b);
		return false;
	}
	bool direct = pd_reader_frames_stable(a);
	cr_assert_not(pd_reader_frames_stable(b), "%s: standard input cannot be stable", what);
	cr_assert_eq(pd_reader_snaplen(a), pd_reader_snaplen(b), "%s: snaplen", what);

	GPtrArray *fa = read_all(a, direct ? use : USE_NEXT, what), *fb = read_all(b, USE_NEXT, what);
	dup2(saved, STDIN_FILENO);
	close(saved);
	cr_assert_eq(fa->len, fb->len, "%s: %u frames direct, %u through libpcap", what, fa->len, fb->len);
	for (guint i = 0; i < fa->len; i++) {
		const seen *x = g_ptr_array_index(fa, i), *y = g_ptr_array_index(fb, i);
		cr_assert_eq(x->fr.frame_no, y->fr.frame_no, "%s: frame %u number", what, i);
		cr_assert_eq(x->fr.ts, y->fr.ts, "%s: frame %u time %" G_GINT64_FORMAT " vs %" G_GINT64_FORMAT,
			     what, i, (gint64)x->fr.ts, (gint64)y->fr.ts);
		cr_assert_eq(x->fr.caplen, y->fr.caplen, "%s: frame %u caplen", what, i);
		cr_assert_eq(x->fr.wirelen, y->fr.wirelen, "%s: frame %u wirelen", what, i);
		cr_assert_eq(x->fr.linktype, y->fr.linktype, "%s: frame %u linktype", what, i);
		cr_assert(g_bytes_equal(x->copy, y->copy), "%s: frame %u bytes", what, i);
		/* held frames: still there after everything was read */
		if (direct && use == HOLD_ALL && x->fr.caplen)
			cr_assert_eq(memcmp(x->fr.data, g_bytes_get_data(x->copy, NULL), x->fr.caplen), 0,
				     "%s: frame %u changed after later reads", what, i);
	}
	cr_assert_eq(pd_reader_frames_seen(a), pd_reader_frames_seen(b), "%s: frames seen", what);
	cr_assert_eq(pd_reader_truncated(a), pd_reader_truncated(b), "%s: truncated flag", what);
	cr_assert_eq(pd_reader_any_failed(a), pd_reader_any_failed(b), "%s: failed flag", what);
	const GPtrArray *ea = pd_reader_errors(a), *eb = pd_reader_errors(b);
	cr_assert_eq(ea->len, eb->len, "%s: %u errors vs %u", what, ea->len, eb->len);
	for (guint i = 0; i < ea->len; i++)
		cr_assert_str_eq(after_name(g_ptr_array_index(ea, i)), after_name(g_ptr_array_index(eb, i)),
				 "%s: error %u", what, i);
	if (direct && !pd_reader_truncated(a) && !pd_reader_any_failed(a))
		cr_assert_eq(pd_reader_bytes_read(a), pd_reader_total_bytes(a), "%s: bytes read", what);
	g_ptr_array_unref(fa);
	g_ptr_array_unref(fb);
	pd_reader_close(a);
	pd_reader_close(b);
	g_free(err_a);
	g_free(err_b);
	return direct;
}

static bool check(const blob *f, const char *what)
{
	char *path = write_tmp(f, "reader.pcap");
	bool direct = compare_paths(path, NULL, what, HOLD_ALL);
	compare_paths(path, NULL, what, USE_NEXT);
	compare_paths(path, "tcp and len > 100", what, HOLD_WINDOW);
	compare_paths(path, NULL, what, HOLD_WINDOW_AHEAD);
	g_remove(path);
	g_free(path);
	return direct;
}

#define US 0xa1b2c3d4u
#define NS 0xa1b23c4du

Test(reader, well_formed_files_are_read_directly_and_agree)
{
	for (int be = 0; be < 2; be++) {
		for (int ns = 0; ns < 2; ns++) {
			blob f = file_new(be, ns ? NS : US, 2, 4, 65535, 1);
			good_records(&f, 300, ns);
			cr_expect(check(&f, "good"), "be %d ns %d: not read directly", be, ns);
			g_byte_array_unref(f.b);
		}
	}
	blob f = file_new(false, US, 2, 4, 65535, 1);
	cr_expect(check(&f, "header only"));
	g_byte_array_unref(f.b);
}

Test(reader, hostile_records_agree)
{
	for (int be = 0; be < 2; be++) {
		blob f;
#define CASE(what, snap, body)                                     \
	do {                                                       \
		f = file_new(be, US, 2, 4, snap, 1);               \
		good_records(&f, 5, false);                        \
		body;                                              \
		check(&f, what);                                   \
		g_byte_array_unref(f.b);                           \
	} while (0)
		CASE("record header cut", 65535, record(&f, 1, 0, 60, 60, 60, 0); g_byte_array_set_size(f.b, f.b->len - 60 - 9));
		CASE("record data cut", 65535, record(&f, 1, 0, 60, 60, 20, 0));
		CASE("no data at all", 65535, record(&f, 1, 0, 60, 60, 0, 0));
		CASE("caplen 0xffffffff", 65535, record(&f, 1, 0, 0xffffffffu, 60, 60, 0));
		CASE("caplen 300 KiB", 65535, record(&f, 1, 0, 300 * 1024, 300 * 1024, 64, 0));
		CASE("caplen 256 KiB + 1", 0xffffffffu, record(&f, 1, 0, 262145, 262145, 64, 0));
		CASE("caplen 256 KiB", 0, record(&f, 1, 0, 262144, 262144, 262144, 0));
		CASE("above snaplen", 128, record(&f, 1, 0, 300, 300, 300, 0); record(&f, 2, 0, 60, 60, 60, 1));
		CASE("above snaplen, cut inside it", 128, record(&f, 1, 0, 300, 300, 100, 0));
		CASE("above snaplen, cut after it", 128, record(&f, 1, 0, 300, 300, 200, 0));
		CASE("caplen above wirelen", 65535, record(&f, 1, 0, 90, 30, 90, 0));
		CASE("zero-length frames", 65535, record(&f, 1, 0, 0, 60, 0, 0); record(&f, 1, 5, 0, 0, 0, 0));
		CASE("times past 2038 and before 1970", 65535,
		     record(&f, 0x80000000u, 5, 60, 60, 60, 0); record(&f, 0xffffffffu, 0xffffffffu, 60, 60, 60, 1);
		     record(&f, 0x90000000u, 0x80000000u, 60, 60, 60, 2));
		CASE("clock steps back", 65535, record(&f, 1000, 0, 60, 60, 60, 0); record(&f, 999, 999999, 60, 60, 60, 1));
#undef CASE
	}
}

Test(reader, other_versions_and_link_types_stay_with_libpcap)
{
	static const struct {
		uint32_t magic;
		uint16_t major, minor;
		uint32_t linktype;
		bool be;
	} v[] = {
		{US, 2, 3, 1, false}, {US, 2, 2, 1, false}, {US, 543, 0, 1, false}, {0xa1b2cd34u, 2, 4, 1, false},
		{US, 2, 4, 220, false}, {US, 2, 4, 113, true}, {US, 2, 4, 147, false},
		{US, 3, 0, 1, false}, {US, 1, 0, 1, false},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(v); i++) {
		blob f = file_new(v[i].be, v[i].magic, v[i].major, v[i].minor, 65535, v[i].linktype);
		good_records(&f, 20, false);
		cr_expect_not(check(&f, "version/link type"), "case %zu was read directly", i);
		g_byte_array_unref(f.b);
	}
	blob f = file_new(false, US, 2, 4, 65535, 113);
	good_records(&f, 20, false);
	cr_expect(check(&f, "cooked, own byte order"));
	g_byte_array_unref(f.b);
}

/* A largest record (256 KiB of frame) whose header is cut by a piece's
 * end spans three pieces when a piece is no bigger than the record: the
 * carried part then grows by a whole piece. Each file puts such a header
 * across the end of the first piece, for pieces of 128 KiB, 256 KiB and
 * 1 MiB, cut after 1, 8 and 15 of its 16 bytes. */
Test(reader, largest_record_across_three_pieces)
{
	static const uint32_t pieces[] = {1u << 17, 1u << 18, 1u << 20};
	static const uint32_t cuts[] = {1, 8, 15};
	for (size_t p = 0; p < G_N_ELEMENTS(pieces); p++)
		for (size_t c = 0; c < G_N_ELEMENTS(cuts); c++) {
			blob f = file_new(false, US, 2, 4, 262144, 1);
			/* file header (24 bytes), fillers, then the header at
			 * 24 + piece - cut */
			uint32_t at = 24 + pieces[p] - cuts[c], i = 0;
			while (f.b->len + 16 + 262144 < at) {
				record(&f, 1700000000u, i, 262144, 262144, 262144, i);
				i++;
			}
			uint32_t filler = at - f.b->len - 16;
			record(&f, 1700000000u, i, filler, filler, filler, i);
			cr_assert_eq(f.b->len, at);
			record(&f, 1700000001u, 0, 262144, 262144, 262144, 77);
			record(&f, 1700000001u, 1, 60, 60, 60, 78);
			char *what = g_strdup_printf("piece %u, header cut after %u bytes", pieces[p], cuts[c]);
			cr_expect(check(&f, what), "%s: not read directly", what);
			g_free(what);
			g_byte_array_unref(f.b);
		}
}

/* Files of several of the reader's buffers (256 KiB reads): records of every
 * size up to libpcap's 256 KiB, so records start and end on every side of
 * a buffer's edge; whole, and cut at random points. */
Test(reader, large_files_cross_buffers_and_agree, .timeout = 120)
{
	GRand *rng = g_rand_new_with_seed(20261130);
	/* read-ahead takes long enough that the consumer often has to wait
	 * for a piece being read */
	g_setenv("PD_TEST_READ_AHEAD_DELAY_US", "300", TRUE);
	for (int round = 0; round < 6; round++) {
		blob f = file_new(round & 1, US, 2, 4, 262144, 1);
		uint32_t i = 0;
		while (f.b->len < (6u << 20)) {
			int kind = g_rand_int_range(rng, 0, 100);
			size_t len = kind < 90   ? (size_t)g_rand_int_range(rng, 54, 1515)
				     : kind < 98 ? (size_t)g_rand_int_range(rng, 1515, 65536)
						 : (size_t)g_rand_int_range(rng, 65536, 262145);
			record(&f, 1700000000u + i / 1000, i % 1000 * 1000, (uint32_t)len, (uint32_t)len, len, i);
			i++;
		}
		if (round >= 2)
			g_byte_array_set_size(f.b, (guint)g_rand_int_range(rng, 1 << 20, (gint32)f.b->len));
		char *what = g_strdup_printf("large round %d", round);
		cr_expect(check(&f, what), "%s: not read directly", what);
		g_free(what);
		g_byte_array_unref(f.b);
	}
	/* the helper thread did read pieces the consumer then parsed */
	cr_expect(read_ahead_pieces > 0, "no piece was read ahead");
	g_rand_free(rng);
}

/* Random damage to record headers and bytes, from a fixed seed: whatever
 * libpcap makes of it, the direct path makes the same. */
Test(reader, damaged_files_agree, .timeout = 120)
{
	GRand *rng = g_rand_new_with_seed(20240611);
	for (int round = 0; round < 300; round++) {
		bool be = g_rand_boolean(rng);
		blob f = file_new(be, g_rand_boolean(rng) ? NS : US, 2, 4,
				  g_rand_boolean(rng) ? 65535 : (uint32_t)g_rand_int_range(rng, 0, 2000), 1);
		good_records(&f, 40, false);
		int hits = g_rand_int_range(rng, 1, 6);
		for (int h = 0; h < hits; h++) {
			guint at = (guint)g_rand_int_range(rng, 24, (gint32)f.b->len);
			int n = g_rand_int_range(rng, 1, 5);
			for (int k = 0; k < n && at + (guint)k < f.b->len; k++)
				f.b->data[at + (guint)k] = (uint8_t)g_rand_int(rng);
		}
		if (g_rand_int_range(rng, 0, 4) == 0)
			g_byte_array_set_size(f.b, (guint)g_rand_int_range(rng, 24, (gint32)f.b->len));
		char *what = g_strdup_printf("damaged round %d", round);
		check(&f, what);
		g_free(what);
		g_byte_array_unref(f.b);
	}
	g_rand_free(rng);
}
