/* Capture input; see reader.h. */
#define _GNU_SOURCE
#include "capture/reader.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* Bigger stdio buffer than the default: fewer read(2) calls on big files. */
#define PD_READ_BUFSZ (1u << 20)

/* Classic pcap layout (pcap-savefile(5)): 24-byte file header, then records
 * of a 16-byte header (seconds, sub-second, caplen, wirelen) and caplen
 * bytes of frame. */
#define PD_PCAP_FILEHDR 24u
#define PD_PCAP_RECHDR 16u
#define PD_PCAP_MAGIC_US 0xa1b2c3d4u
#define PD_PCAP_MAGIC_NS 0xa1b23c4du
/* libpcap's cap on a record's caplen for the link types read directly here */
#define PD_PCAP_MAX_CAPLEN 262144u
/* The direct path (direct_open) reads the file in pieces of this size at
 * fixed offsets, the first right after the file header. Each piece goes to
 * a buffer of its own, after room for the start of a record carried over
 * from the piece before, so every record is whole in one buffer. A piece
 * is a quarter of a MiB: the kernel's copy into it and the parse after it
 * then stay within a core's L2 (1 MiB on many servers); 1 MiB pieces,
 * rotating over several buffers, make the copy write to lines that have
 * left the cache (docs/performance.md). */
#define PD_DIRECT_READ (1u << 18)
#define PD_DIRECT_CARRY (PD_PCAP_RECHDR + PD_PCAP_MAX_CAPLEN)
#define PD_DIRECT_BUF (PD_DIRECT_CARRY + PD_DIRECT_READ)
/* pd_reader_read_ahead: pieces read ahead of the consumer at most, and
 * the buffers made for them when it is allowed */
#define PD_AHEAD_PIECES 2u
#define PD_AHEAD_BUFS 8u

typedef enum read_buf_state {
	RB_FREE, /* unused */
	RB_READING, /* a piece is being read into it */
	RB_READY, /* read ahead, not yet parsed */
	RB_CURRENT, /* being parsed */
	RB_HELD, /* parsed; free once its frames are done (or at once, without hold) */
} read_buf_state;

typedef struct read_buf {
	uint8_t *buf; /* [PD_DIRECT_BUF]: the piece starts at PD_DIRECT_CARRY */
	read_buf_state state; /* changes under the source's lock */
	uint64_t piece_off; /* file offset of the piece; set when it is claimed */
	/* written by whoever reads the piece, read by the consumer once READY */
	size_t got; /* bytes of the piece read */
	bool short_read; /* fewer than the piece has: an error, or the file shrank */
	int err; /* errno of a failed read, 0 none */
	/* the consumer's */
	uint64_t frames_end; /* file offset past the last frame handed out from it */
} read_buf;

typedef struct pd_source {
	char *path; /* as given */
	pcap_t *pcap;
	gzFile gz; /* non-NULL when reading through zlib */
	uint64_t gz_out; /* bytes zlib has handed to libpcap */
	char *iobuf;
	int linktype;
	bool has_filter;
	struct bpf_program prog;
	bool done;
	/* the packet at the head of this source, valid until its next read */
	bool have_head;
	struct pcap_pkthdr *hdr;
	const u_char *data;
	pd_time head_ts;
	uint64_t size;
	/* Direct path (see direct_open): the file read in pieces with
	 * pread(2), records parsed here; pcap is then NULL and hdr points at
	 * mhdr. */
	bool direct;
	int fd;
	read_buf **bufs; /* the array grows (consumer, under lock); buffers stay put */
	size_t n_bufs;
	size_t n_bufs_seen; /* n_bufs for pd_reader_piece_bytes on any thread (atomic) */
	read_buf *cur; /* being parsed */
	size_t off, end; /* next record header, end of the data: in cur->buf */
	uint64_t direct_size; /* the file's size when opened: read up to there */
	bool swapped, nsec;
	uint32_t snap;
	bool hold; /* pd_reader_hold_frames */
	uint64_t done_off; /* hold: frames ending up to here are done with (atomic) */
	struct pcap_pkthdr mhdr;
	/* read ahead: buffer states, n_bufs and these under lock */
	GMutex lock;
	GCond piece_ready;
	bool ahead; /* pd_reader_allow_read_ahead */
	uint64_t next_piece; /* offset of the first piece nobody has claimed */
	unsigned ahead_delay_us; /* tests: read-ahead is slow, the consumer waits for it */
} pd_source;

struct pd_reader {
	pd_source *src;
	size_t n;
	uint64_t frame_no;
	GPtrArray *errors;
	bool truncated;
	bool failed;
	uint32_t snaplen;
	uint64_t total_bytes;
	pd_source *pending; /* advance before the next read */
};

/* libpcap reads zlib's output through a stdio cookie (the source), which
 * also counts it: on a pipe zlib cannot say how far into its input it is,
 * and the progress line shows what was read. */
static ssize_t gz_cookie_read(void *cookie, char *buf, size_t size)
{
	pd_source *s = cookie;
	if (size > INT32_MAX)
		size = INT32_MAX;
	int n = gzread(s->gz, buf, (unsigned)size);
	if (n > 0)
		s->gz_out += (uint64_t)n;
	return n < 0 ? -1 : n;
}

static int gz_cookie_close(void *cookie)
{
	pd_source *s = cookie;
	int rc = gzclose(s->gz) == Z_OK ? 0 : -1;
	s->gz = NULL;
	return rc;
}

static void add_error(pd_reader *r, char *msg)
{
	g_ptr_array_add(r->errors, msg);
}

/* Explains libpcap's terse messages in the user's terms. */
static char *explain_error(const char *path, const char *msg, bool at_open, uint64_t size)
{
	if (at_open && size == 0)
		return g_strdup_printf("%s: empty file (0 bytes), not a capture", path);
	if (strstr(msg, "unknown file format"))
		return g_strdup_printf("%s: not a pcap or pcapng capture (libpcap: %s)", path, msg);
	if (strstr(msg, "different from the type of the first interface") ||
	    strstr(msg, "different link-layer type"))
		return g_strdup_printf(
			"%s: the pcapng file has interfaces with different link types, which libpcap "
			"cannot read in one pass (%s); split it per interface, e.g. "
			"`tshark -r %s -Y 'frame.interface_id == 0' -w if0.pcapng` (and 1, 2, ...), "
			"and give the parts to pcapdoc",
			path, msg, path);
	if (strstr(msg, "truncated"))
		return g_strdup_printf("%s: file is truncated (cut off mid-record; %s)", path, msg);
	return g_strdup_printf("%s: %s", path, msg);
}

static uint32_t rec_u32(const uint8_t *p, bool swapped)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return swapped ? GUINT32_SWAP_LE_BE(v) : v;
}

static uint16_t rec_u16(const uint8_t *p, bool swapped)
{
	uint16_t v;
	memcpy(&v, p, sizeof(v));
	return swapped ? GUINT16_SWAP_LE_BE(v) : v;
}

static read_buf *direct_add_buf(pd_source *s);

/* Switches a plain classic pcap file (version 2.4, us or ns magic, either
 * byte order) that libpcap has just opened to the direct path: the file is
 * read with pread(2) into buffers whose frames stay put (see
 * pd_reader_hold_frames), and its records are parsed by direct_next(), so
 * frames are not copied again by stdio and libpcap. libpcap's open stays
 * the reference for the header (its messages, link type and snaplen);
 * anything this does not handle exactly like libpcap 1.10 stays with
 * libpcap. */
static void direct_open(pd_source *s)
{
	if (s->gz || s->size < PD_PCAP_FILEHDR || pcap_major_version(s->pcap) != 2 ||
	    pcap_minor_version(s->pcap) != 4)
		return;
	bool swapped = pcap_is_swapped(s->pcap) == 1;
	/* libpcap rewrites the pseudo-headers of some link types (USB, and the
	 * host-order fields of cooked and NFLOG headers from a foreign host):
	 * only the link types it passes through untouched go direct. */
	switch (s->linktype) {
	case DLT_NULL:
	case DLT_EN10MB:
	case DLT_RAW:
	case DLT_LOOP:
	case DLT_IPV4:
	case DLT_IPV6:
		break;
	case DLT_LINUX_SLL:
	case DLT_LINUX_SLL2:
	case DLT_NFLOG:
		if (swapped)
			return;
		break;
	default:
		return;
	}
	int snap = pcap_snapshot(s->pcap);
	FILE *fp = pcap_file(s->pcap);
	struct stat st;
	if (snap <= 0 || (uint32_t)snap > PD_PCAP_MAX_CAPLEN || !fp || fstat(fileno(fp), &st) != 0 ||
	    !S_ISREG(st.st_mode) || st.st_size < (off_t)PD_PCAP_FILEHDR)
		return;
	int fd = dup(fileno(fp));
	if (fd < 0)
		return;
	/* The header again: the file may have been replaced since libpcap
	 * read it. */
	uint8_t h[PD_PCAP_FILEHDR];
	uint32_t magic = 0;
	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    ((magic = rec_u32(h, swapped)) != PD_PCAP_MAGIC_US && magic != PD_PCAP_MAGIC_NS) ||
	    rec_u16(h + 4, swapped) != 2 || rec_u16(h + 6, swapped) != 4) {
		close(fd);
		return;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	s->direct = true;
	s->fd = fd;
	s->direct_size = (uint64_t)st.st_size;
	g_mutex_init(&s->lock);
	g_cond_init(&s->piece_ready);
	/* An empty piece ending at the file header is current: the first
	 * record calls for the piece after it. */
	s->cur = direct_add_buf(s);
	s->cur->state = RB_CURRENT;
	s->cur->piece_off = PD_PCAP_FILEHDR;
	s->off = s->end = PD_DIRECT_CARRY;
	s->next_piece = PD_PCAP_FILEHDR;
	s->swapped = swapped;
	s->nsec = magic == PD_PCAP_MAGIC_NS;
	s->snap = (uint32_t)snap;
	s->hdr = &s->mhdr;
	const char *shrink = g_getenv("PD_TEST_SHRINK_AT"); /* tests only: another program truncates the file now */
	if (shrink)
		(void)!truncate(s->path, (off_t)g_ascii_strtoull(shrink, NULL, 10));
	pcap_close(s->pcap); /* reading goes on through fd */
	s->pcap = NULL;
	g_free(s->iobuf);
	s->iobuf = NULL;
}

/* A new, unused buffer. Only the consumer adds buffers, under the lock
 * once read ahead is allowed. */
static read_buf *direct_add_buf(pd_source *s)
{
	read_buf *b = g_new0(read_buf, 1);
	b->buf = g_malloc(PD_DIRECT_BUF);
	s->bufs = g_renew(read_buf *, s->bufs, s->n_bufs + 1);
	s->bufs[s->n_bufs++] = b;
	__atomic_store_n(&s->n_bufs_seen, s->n_bufs, __ATOMIC_RELAXED);
	return b;
}

/* Under lock: a buffer a piece can go to, or NULL. A parsed buffer is
 * free once the consumer is done with every frame in it. */
static read_buf *direct_spare_buf(pd_source *s)
{
	uint64_t done = __atomic_load_n(&s->done_off, __ATOMIC_ACQUIRE);
	for (size_t k = 0; k < s->n_bufs; k++) {
		read_buf *b = s->bufs[k];
		if (b->state == RB_FREE || (b->state == RB_HELD && (!s->hold || b->frames_end <= done)))
			return b;
	}
	return NULL;
}

/* Under lock: b is to receive the piece at `at`, and nobody else will. */
static void direct_claim(pd_source *s, read_buf *b, uint64_t at)
{
	b->state = RB_READING;
	b->piece_off = at;
	if (s->next_piece < at + PD_DIRECT_READ)
		s->next_piece = at + PD_DIRECT_READ;
}

/* Reads the piece b was claimed for: all of it, unless the file ends first
 * (it shrank) or a read fails. Called without the lock: b is READING, so
 * nobody else touches it. */
static void direct_read_piece(const pd_source *s, read_buf *b)
{
	uint64_t at = b->piece_off;
	size_t want = s->direct_size - at < PD_DIRECT_READ ? (size_t)(s->direct_size - at) : PD_DIRECT_READ;
	b->got = 0;
	b->err = 0;
	b->short_read = false;
	while (b->got < want) {
		ssize_t n = pread(s->fd, b->buf + PD_DIRECT_CARRY + b->got, want - b->got, (off_t)(at + b->got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			b->err = n < 0 ? errno : 0;
			b->short_read = true;
			return;
		}
		b->got += (size_t)n;
	}
}

/* The piece after the current one becomes current, with the bytes from
 * s->off on (the start of a record) carried over in front of it. */
static void direct_advance(pd_source *s)
{
	read_buf *o = s->cur;
	uint64_t at = o->piece_off + o->got;
	read_buf *n = NULL;
	g_mutex_lock(&s->lock);
	for (size_t k = 0; k < s->n_bufs && !n; k++) {
		read_buf *b = s->bufs[k];
		if ((b->state == RB_READING || b->state == RB_READY) && b->piece_off == at)
			n = b;
	}
	if (n) {
		while (n->state == RB_READING)
			g_cond_wait(&s->piece_ready, &s->lock);
		g_assert(n->state == RB_READY); /* read, and by nobody else taken */
	} else {
		/* nobody has claimed it: read it here */
		n = direct_spare_buf(s);
		if (!n)
			n = direct_add_buf(s);
		direct_claim(s, n, at);
		g_mutex_unlock(&s->lock);
		direct_read_piece(s, n);
		g_mutex_lock(&s->lock);
	}
	size_t tail = s->end - s->off;
	g_assert(tail <= PD_DIRECT_CARRY); /* part of one record (caplen checked) */
	memcpy(n->buf + PD_DIRECT_CARRY - tail, o->buf + s->off, tail);
	n->frames_end = 0;
	n->state = RB_CURRENT;
	o->state = RB_HELD;
	g_mutex_unlock(&s->lock);
	s->cur = n;
	s->off = PD_DIRECT_CARRY - tail;
	s->end = PD_DIRECT_CARRY + n->got;
}

/* The current buffer lacks the rest of a record: 1 the next piece is now
 * current, 0 the file (as opened) has no more, -1 a read error described in
 * msg, -2 the file shrank while it was read. */
static int direct_more(pd_source *s, char *msg, size_t msgsz)
{
	const read_buf *b = s->cur;
	if (b->err) {
		snprintf(msg, msgsz, "error reading dump file: %s", g_strerror(b->err));
		return -1;
	}
	if (b->short_read)
		return -2;
	if (b->piece_off + b->got >= s->direct_size)
		return 0;
	direct_advance(s);
	return 1;
}

/* File offset of byte i of buffer b. */
static uint64_t direct_file_off(const read_buf *b, size_t i)
{
	return b->piece_off + i - PD_DIRECT_CARRY;
}

/* The next record of a direct source, checked as libpcap 1.10's
 * pcap_next_packet() checks it and with its messages, so reports do not
 * depend on the path taken: 1 a record (in s->mhdr, s->data), 0 the end,
 * -1 an error described in msg, -2 the file shrank while it was read. */
static int direct_next(pd_source *s, char *msg, size_t msgsz)
{
	int rc = 1;
	while (s->end - s->off < PD_PCAP_RECHDR && rc == 1)
		rc = direct_more(s, msg, msgsz);
	if (rc < 0)
		return rc;
	size_t left = s->end - s->off;
	if (left == 0)
		return 0;
	if (left < PD_PCAP_RECHDR) {
		snprintf(msg, msgsz, "truncated dump file; tried to read %u header bytes, only got %zu",
			 PD_PCAP_RECHDR, left);
		return -1;
	}
	uint32_t caplen = rec_u32(s->cur->buf + s->off + 8, s->swapped);
	if (caplen > PD_PCAP_MAX_CAPLEN) {
		/* the snaplen is at most that maximum (direct_open), so
		 * libpcap's other message, "bigger than maximum", cannot come
		 * up here */
		snprintf(msg, msgsz, "invalid packet capture length %u, bigger than snaplen of %d", caplen,
			 (int)s->snap);
		return -1;
	}
	while (s->end - s->off < PD_PCAP_RECHDR + (size_t)caplen && rc == 1)
		rc = direct_more(s, msg, msgsz);
	if (rc < 0)
		return rc;
	read_buf *b = s->cur; /* the record may have moved to the next piece */
	const uint8_t *p = b->buf + s->off;
	size_t avail = s->end - s->off - PD_PCAP_RECHDR;
	if (caplen > avail) {
		/* Above the snaplen, libpcap reads the snaplen first, and a
		 * short read there names that size, not the caplen. */
		uint32_t want = caplen > s->snap && avail < s->snap ? s->snap : caplen;
		snprintf(msg, msgsz, "truncated dump file; tried to read %u captured bytes, only got %zu",
			 want, avail);
		return -1;
	}
	/* libpcap 1.10 reads both time fields as signed 32-bit, but its byte
	 * swap yields them unsigned: the same values as it, for times before
	 * 1970 or past 2038. */
	uint32_t sec_raw = rec_u32(p, s->swapped), sub_raw = rec_u32(p + 4, s->swapped);
	int64_t sec = s->swapped ? (int64_t)sec_raw : (int64_t)(int32_t)sec_raw;
	int64_t sub = s->swapped ? (int64_t)sub_raw : (int64_t)(int32_t)sub_raw;
	s->mhdr.ts.tv_sec = sec;
	s->mhdr.ts.tv_usec = s->nsec ? sub : sub * 1000;
	/* Above the snaplen libpcap keeps the first snaplen bytes and skips
	 * the rest of the record. */
	s->mhdr.caplen = caplen > s->snap ? s->snap : caplen;
	s->mhdr.len = rec_u32(p + 12, s->swapped);
	s->data = p + PD_PCAP_RECHDR;
	s->off += PD_PCAP_RECHDR + (size_t)caplen;
	b->frames_end = direct_file_off(b, s->off);
	/* The next record and the start of its frame: a piece read ahead was
	 * filled on another core and is not in this one's cache. */
	if (s->end - s->off >= 128) {
		__builtin_prefetch(b->buf + s->off);
		__builtin_prefetch(b->buf + s->off + 64);
	}
	return 1;
}

static bool source_open(pd_reader *r, pd_source *s, const char *filter)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	bool is_stdin = strcmp(s->path, "-") == 0;
	FILE *fp = NULL;

	if (is_stdin) {
		/* zlib passes plain data through, so stdin may be either. */
		int fd = dup(STDIN_FILENO);
		s->gz = fd >= 0 ? gzdopen(fd, "rb") : NULL;
		if (!s->gz) {
			add_error(r, g_strdup_printf("-: cannot read standard input: %s", g_strerror(errno)));
			return false;
		}
	} else {
		struct stat st;
		if (stat(s->path, &st) != 0) {
			add_error(r, g_strdup_printf("%s: cannot open: %s", s->path, g_strerror(errno)));
			return false;
		}
		if (S_ISDIR(st.st_mode)) {
			add_error(r, g_strdup_printf("%s: is a directory, not a capture", s->path));
			return false;
		}
		s->size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
		fp = fopen(s->path, "rb");
		if (!fp) {
			add_error(r, g_strdup_printf("%s: cannot open: %s", s->path, g_strerror(errno)));
			return false;
		}
		if (S_ISREG(st.st_mode) && st.st_size == 0) {
			fclose(fp);
			add_error(r, g_strdup_printf("%s: empty file (0 bytes), not a capture", s->path));
			return false;
		}
		unsigned char magic[2] = {0, 0};
		size_t got = fread(magic, 1, 2, fp);
		if (got == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
			int fd = dup(fileno(fp));
			fclose(fp);
			fp = NULL;
			if (fd < 0 || lseek(fd, 0, SEEK_SET) != 0 || !(s->gz = gzdopen(fd, "rb"))) {
				if (fd >= 0 && !s->gz)
					close(fd);
				add_error(r, g_strdup_printf("%s: cannot open gzip stream", s->path));
				return false;
			}
		} else {
			rewind(fp);
		}
	}
	if (s->gz) {
		gzbuffer(s->gz, 256 * 1024);
		cookie_io_functions_t io = {.read = gz_cookie_read, .close = gz_cookie_close};
		fp = fopencookie(s, "rb", io);
		if (!fp) {
			gzclose(s->gz);
			s->gz = NULL;
			add_error(r, g_strdup_printf("%s: cannot open: %s", s->path, g_strerror(errno)));
			return false;
		}
	}
	s->iobuf = g_malloc(PD_READ_BUFSZ);
	setvbuf(fp, s->iobuf, _IOFBF, PD_READ_BUFSZ);
	s->pcap = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!s->pcap) {
		fclose(fp); /* also closes the gz stream through the cookie */
		s->gz = NULL;
		add_error(r, explain_error(s->path, errbuf, true, is_stdin ? 1 : s->size));
		if (strstr(errbuf, "truncated"))
			r->truncated = true;
		return false;
	}
	s->linktype = pcap_datalink(s->pcap);
	int snap = pcap_snapshot(s->pcap);
	if (snap > 0 && (uint32_t)snap > r->snaplen)
		r->snaplen = (uint32_t)snap;
	if (filter && *filter) {
		/* Compiled against this file's link type; applied per packet in
		 * pd_reader_next so filtered frames keep their numbers. */
		pcap_t *dead = pcap_open_dead(s->linktype, snap > 0 ? snap : 262144);
		if (!dead || pcap_compile(dead, &s->prog, filter, 1, PCAP_NETMASK_UNKNOWN) != 0) {
			add_error(r, g_strdup_printf("%s: bad filter \"%s\": %s", s->path, filter,
						     dead ? pcap_geterr(dead) : "cannot compile"));
			if (dead)
				pcap_close(dead);
			return false;
		}
		pcap_close(dead);
		s->has_filter = true;
	}
	if (!is_stdin)
		direct_open(s);
	return true;
}

static void source_close(pd_source *s)
{
	if (s->has_filter)
		pcap_freecode(&s->prog);
	if (s->pcap)
		pcap_close(s->pcap); /* closes the FILE, and the gz stream with it */
	if (s->direct) {
		close(s->fd);
		for (size_t k = 0; k < s->n_bufs; k++) {
			g_free(s->bufs[k]->buf);
			g_free(s->bufs[k]);
		}
		g_free(s->bufs);
		g_mutex_clear(&s->lock);
		g_cond_clear(&s->piece_ready);
	}
	g_free(s->iobuf);
	g_free(s->path);
}

/* A record's time in ns. pcapng carries 64-bit timestamps that libpcap
 * turns into seconds beyond what int64 nanoseconds hold. Times are clamped
 * to +-2^62 ns (years 1823 to 2116), so that the difference of any two
 * times, and any time plus an hour, fit in int64: nothing downstream has
 * to guard its arithmetic. */
static pd_time frame_time(const struct pcap_pkthdr *h)
{
	const int64_t max_sec = (INT64_MAX / 2) / PD_NS_PER_SEC - 1;
	int64_t sec = (int64_t)h->ts.tv_sec;
	if (sec > max_sec)
		sec = max_sec;
	else if (sec < -max_sec)
		sec = -max_sec;
	return sec * PD_NS_PER_SEC + (pd_time)h->ts.tv_usec;
}

/* Reads the next record of s into its head; marks the source done at the
 * end or on an error (recorded, and reading stops for this file only). */
static void source_advance(pd_reader *r, pd_source *s)
{
	s->have_head = false;
	if (s->done)
		return;
	char msgbuf[PCAP_ERRBUF_SIZE];
	int rc;
	if (s->direct) {
		rc = direct_next(s, msgbuf, sizeof(msgbuf));
		if (rc == -2) {
			/* Another program cut the file: what was read is analysed,
			 * as for a file that ends mid-record. */
			const read_buf *b = s->cur;
			r->truncated = true;
			add_error(r, g_strdup_printf("%s: the file shrank while it was read (%" G_GUINT64_FORMAT
						     " bytes when opened, %" G_GUINT64_FORMAT
						     " read); the findings cover what was read",
						     s->path, s->direct_size, b->piece_off + b->got));
			s->done = true;
			return;
		}
	} else {
		rc = pcap_next_ex(s->pcap, &s->hdr, &s->data);
	}
	if (rc == 1) {
		s->have_head = true;
		s->head_ts = frame_time(s->hdr);
		return;
	}
	s->done = true;
	if (rc == PCAP_ERROR) {
		const char *msg = s->direct ? msgbuf : pcap_geterr(s->pcap);
		if (strstr(msg, "truncated"))
			r->truncated = true;
		else
			r->failed = true;
		add_error(r, explain_error(s->path, msg, false, 1));
	}
}

pd_reader *pd_reader_open(const char *const *paths, size_t n, const char *filter, GError **err)
{
	pd_reader *r = g_new0(pd_reader, 1);
	r->errors = g_ptr_array_new_with_free_func(g_free);
	r->src = g_new0(pd_source, n);
	size_t ok = 0;
	for (size_t i = 0; i < n; i++) {
		pd_source *s = &r->src[r->n];
		s->path = g_strdup(paths[i]);
		if (!source_open(r, s, filter)) {
			r->failed = true;
			source_close(s);
			memset(s, 0, sizeof(*s));
			continue;
		}
		r->total_bytes += s->size;
		r->n++;
		ok++;
	}
	if (ok == 0) {
		const char *why = r->errors->len ? (const char *)g_ptr_array_index(r->errors, 0)
						 : "no input files";
		g_set_error(err, g_quark_from_static_string("pd-reader"), 1, "%s", why);
		pd_reader_close(r);
		return NULL;
	}
	for (size_t i = 0; i < r->n; i++)
		source_advance(r, &r->src[i]);
	return r;
}

bool pd_reader_next(pd_reader *r, pd_frame *out)
{
	/* The frame returned last time lives in its source's buffer until that
	 * source reads again, so its advance is deferred to here. */
	if (r->pending) {
		source_advance(r, r->pending);
		r->pending = NULL;
	}
	for (;;) {
		/* Earliest head wins; ties go to the earlier file, and a single
		 * file keeps its own order even when its clock steps back. */
		pd_source *best = NULL;
		for (size_t i = 0; i < r->n; i++) {
			pd_source *s = &r->src[i];
			if (s->have_head && (!best || s->head_ts < best->head_ts))
				best = s;
		}
		if (!best)
			return false;
		r->frame_no++;
		if (best->has_filter && pcap_offline_filter(&best->prog, best->hdr, best->data) == 0) {
			source_advance(r, best);
			continue;
		}
		out->frame_no = r->frame_no;
		out->ts = best->head_ts;
		out->caplen = best->hdr->caplen;
		out->wirelen = best->hdr->len;
		out->linktype = best->linktype;
		out->file_index = (uint32_t)(best - r->src);
		out->data = best->data;
		r->pending = best;
		return true;
	}
}

uint64_t pd_reader_bytes_read(const pd_reader *r)
{
	uint64_t total = 0;
	for (size_t i = 0; i < r->n; i++) {
		const pd_source *s = &r->src[i];
		if (s->direct) {
			total += direct_file_off(s->cur, s->off);
		} else if (s->gz) {
			z_off_t o = s->size ? gzoffset(s->gz) : -1;
			total += o > 0 ? (uint64_t)o : s->gz_out; /* a pipe: bytes read, decompressed */
		} else if (s->pcap) {
			FILE *fp = pcap_file(s->pcap);
			long o = fp ? ftell(fp) : -1;
			total += o > 0 ? (uint64_t)o : 0;
		}
	}
	return total;
}

void pd_reader_close(pd_reader *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		source_close(&r->src[i]);
	g_free(r->src);
	g_ptr_array_unref(r->errors);
	g_free(r);
}

const GPtrArray *pd_reader_errors(const pd_reader *r)
{
	return r->errors;
}
bool pd_reader_truncated(const pd_reader *r)
{
	return r->truncated;
}
bool pd_reader_any_failed(const pd_reader *r)
{
	return r->failed;
}
uint32_t pd_reader_snaplen(const pd_reader *r)
{
	return r->snaplen;
}
uint64_t pd_reader_total_bytes(const pd_reader *r)
{
	return r->total_bytes;
}
bool pd_reader_frames_stable(const pd_reader *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (!r->src[i].direct)
			return false;
	return r->n > 0;
}
void pd_reader_hold_frames(pd_reader *r)
{
	for (size_t i = 0; i < r->n; i++)
		r->src[i].hold = true;
}

void pd_reader_frame_done(pd_reader *r, const pd_frame *fr)
{
	if (fr->file_index >= r->n)
		return;
	pd_source *s = &r->src[fr->file_index];
	if (!s->direct)
		return;
	/* Only the consumer changes the buffer array; a READING buffer's
	 * fields are not read here, only where its memory lies. */
	uintptr_t d = (uintptr_t)fr->data;
	for (size_t k = 0; k < s->n_bufs; k++) {
		const read_buf *b = s->bufs[k];
		uintptr_t start = (uintptr_t)b->buf;
		if (d >= start && d < start + PD_DIRECT_BUF) {
			uint64_t end = direct_file_off(b, d - start) + fr->caplen;
			if (end > __atomic_load_n(&s->done_off, __ATOMIC_RELAXED))
				__atomic_store_n(&s->done_off, end, __ATOMIC_RELEASE);
			return;
		}
	}
}

void pd_reader_allow_read_ahead(pd_reader *r)
{
	for (size_t i = 0; i < r->n; i++) {
		pd_source *s = &r->src[i];
		if (!s->direct)
			continue;
		g_mutex_lock(&s->lock);
		while (s->n_bufs < PD_AHEAD_BUFS)
			direct_add_buf(s); /* their pages are touched only when used */
		s->ahead = true;
		const char *delay = g_getenv("PD_TEST_READ_AHEAD_DELAY_US");
		s->ahead_delay_us = delay ? (unsigned)g_ascii_strtoull(delay, NULL, 10) : 0;
		g_mutex_unlock(&s->lock);
	}
}

bool pd_reader_read_ahead(pd_reader *r)
{
	for (size_t i = 0; i < r->n; i++) {
		pd_source *s = &r->src[i];
		if (!s->direct)
			continue;
		g_mutex_lock(&s->lock);
		unsigned ahead = 0; /* pieces claimed and not yet taken by the consumer */
		for (size_t k = 0; k < s->n_bufs; k++)
			ahead += s->bufs[k]->state == RB_READING || s->bufs[k]->state == RB_READY;
		read_buf *b = NULL;
		if (s->ahead && ahead < PD_AHEAD_PIECES && s->next_piece < s->direct_size)
			b = direct_spare_buf(s);
		if (!b) {
			g_mutex_unlock(&s->lock);
			continue;
		}
		direct_claim(s, b, s->next_piece);
		g_mutex_unlock(&s->lock);
		if (s->ahead_delay_us)
			g_usleep(s->ahead_delay_us);
		direct_read_piece(s, b);
		g_mutex_lock(&s->lock);
		b->state = RB_READY;
		g_cond_broadcast(&s->piece_ready);
		g_mutex_unlock(&s->lock);
		return true;
	}
	return false;
}

uint64_t pd_reader_frames_seen(const pd_reader *r)
{
	return r->frame_no;
}

uint64_t pd_reader_piece_bytes(const pd_reader *r, uint64_t *allocated)
{
	uint64_t n = 0, resident = 0;
	for (size_t i = 0; r && i < r->n; i++) {
		uint64_t bufs = __atomic_load_n(&r->src[i].n_bufs_seen, __ATOMIC_RELAXED);
		/* a file of fewer pieces than buffers never touches the rest */
		uint64_t pieces = (r->src[i].direct_size + PD_DIRECT_READ - 1) / PD_DIRECT_READ;
		n += bufs;
		/* the carry room before each piece only ever holds a record's start */
		resident += MIN(bufs, pieces) * 4096 + MIN(r->src[i].direct_size, bufs * PD_DIRECT_READ);
	}
	*allocated = n * PD_DIRECT_BUF;
	return resident;
}
