/* The fast pipeline fuzzer's input format; see fzinput.h. */
#include "fzinput.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/reader.h"
#include "dissect/dissect.h"

const int fz_linktypes[] = {1, 113, 276, 0, 108, 101, 228, 229, 239, 12, 14};
const size_t fz_n_linktypes = sizeof(fz_linktypes) / sizeof(fz_linktypes[0]);

static const size_t fixed_size[FZ_KINDS] = {
	[FZ_RAW] = 2, [FZ_IP] = 2, [FZ_ICMP] = 8, [FZ_FRAG] = 8, [FZ_SEG] = 16, [FZ_REPEAT] = 4,
};
static const size_t max_flows_of[4] = {1024, 16, 128, 100000};
/* made frames' payloads, so that one input cannot ask for gigabytes */
#define FZ_MAX_MADE 16384

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (24 - 8 * i));
}

size_t fz_record_size(const uint8_t *d, size_t n)
{
	if (n < 4)
		return 0;
	size_t fixed = 4 + fixed_size[d[0] % FZ_KINDS];
	if (n < fixed)
		return 0;
	size_t size = fixed;
	if (d[0] % FZ_KINDS == FZ_RAW || d[0] % FZ_KINDS == FZ_IP)
		size += le16(d + 4);
	return size < n ? size : n;
}

/* --------------------------------------------------------------- frames */

/* Times as the reader clamps them (capture/reader.c frame_time). */
#define FZ_MAX_SEC ((INT64_MAX / 2) / PD_NS_PER_SEC - 1)

static pd_time advance(pd_time t, uint8_t flags, uint16_t dt)
{
	static const int64_t unit[4] = {1000, 1000000, PD_NS_PER_SEC, 1000 * PD_NS_PER_SEC};
	int64_t d = (int64_t)dt * unit[flags & 3];
	t = flags & 4 ? t - d : t + d;
	const int64_t lim = FZ_MAX_SEC * PD_NS_PER_SEC;
	return t > lim ? lim : t < -lim ? -lim : t;
}

static void fix_lengths(uint8_t *ip, size_t len)
{
	if (len > 65535)
		len = 65535;
	if (len >= 20 && ip[0] >> 4 == 4) {
		size_t ihl = (size_t)(ip[0] & 15) * 4;
		put_be16(ip + 2, (uint16_t)len);
		bool frag = ((ip[6] << 8 | ip[7]) & 0x3fff) != 0;
		if (ip[9] == 17 && !frag && ihl >= 20 && ihl + 8 <= len)
			put_be16(ip + ihl + 4, (uint16_t)(len - ihl));
	} else if (len >= 40 && ip[0] >> 4 == 6) {
		put_be16(ip + 4, (uint16_t)(len - 40));
		if (ip[6] == 17 && len >= 48)
			put_be16(ip + 44, (uint16_t)(len - 40));
	}
}

static const uint8_t mac_host[6] = {2, 0, 0, 0, 0, 1}, mac_gw[6] = {2, 0, 0, 0, 0, 2};

/* The link header of a made frame: the input's link type, the IP version
 * of what follows, and the direction and VLAN flags. */
static size_t link_header(uint8_t *o, int lt, int ipver, size_t iplen, uint8_t flags)
{
	bool out = flags & 0x40, vlan = flags & 0x80;
	uint16_t et = ipver == 6 ? 0x86dd : 0x0800;
	switch (lt) {
	case 1:
		memcpy(o, out ? mac_gw : mac_host, 6);
		memcpy(o + 6, out ? mac_host : mac_gw, 6);
		if (vlan) {
			put_be16(o + 12, 0x8100);
			put_be16(o + 14, 100);
			put_be16(o + 16, et);
			return 18;
		}
		put_be16(o + 12, et);
		return 14;
	case 113:
		memset(o, 0, 16);
		put_be16(o, out ? 4 : 0);
		put_be16(o + 2, 1);
		put_be16(o + 4, 6);
		memcpy(o + 6, out ? mac_host : mac_gw, 6);
		put_be16(o + 14, et);
		return 16;
	case 276:
		memset(o, 0, 20);
		put_be16(o, et);
		put_be32(o + 4, 2);
		put_be16(o + 8, 1);
		o[10] = out ? 4 : 0;
		o[11] = 6;
		memcpy(o + 12, out ? mac_host : mac_gw, 6);
		return 20;
	case 0:
		put_le32(o, ipver == 6 ? 30 : 2);
		return 4;
	case 108:
		put_be32(o, ipver == 6 ? 24 : 2);
		return 4;
	case 239:
		o[0] = ipver == 6 ? 10 : 2;
		o[1] = 0;
		put_be16(o + 2, 0);
		put_le16(o + 4, (uint16_t)(iplen + 4 > 65535 ? 65535 : iplen + 4));
		put_le16(o + 6, 9);
		return 8;
	default:
		return 0;
	}
}

static void dissect_frame(const fz_input *in, const uint8_t *data, uint32_t caplen, uint32_t wirelen,
			  pd_packet *pkt)
{
	memset(pkt, 0, sizeof(*pkt));
	pkt->caplen = caplen;
	pkt->wirelen = wirelen;
	pkt->linktype = in->linktype;
	(void)pd_dissect(pkt, data);
}

/* Adds a frame of len bytes (cut to the snap length); wirelen from the
 * flags unless given (>= 0). */
static void commit(fz_input *in, const uint8_t *frame, size_t len, pd_time t, uint8_t flags, int64_t wire)
{
	if (in->n >= FZ_MAX_FRAMES)
		return;
	size_t cap = len < in->snaplen ? len : in->snaplen;
	if (in->bytes + cap > FZ_MAX_BYTES)
		return;
	uint32_t wirelen = (uint32_t)len;
	if (wire >= 0 && !(flags & 0x30))
		wirelen = (uint32_t)wire;
	else if (flags & 0x10)
		wirelen = (uint32_t)len + 64;
	else if (flags & 0x20)
		wirelen = (uint32_t)len / 2;
	fz_frame *f = &in->frames[in->n];
	memset(f, 0, sizeof(*f));
	f->data = malloc(cap); /* malloc(0) too: ASan flags any read */
	if (cap && !f->data)
		return;
	if (cap)
		memcpy(f->data, frame, cap);
	f->caplen = (uint32_t)cap;
	f->wirelen = wirelen;
	f->ts = t;
	f->ipver = 0xff; /* found when a record refers to it */
	in->bytes += cap;
	in->n++;
}

/* An IP packet of the made kinds, wrapped in the input's link header. */
static void commit_ip(fz_input *in, const uint8_t *ip, size_t len, pd_time t, uint8_t flags)
{
	static uint8_t frame[FZ_MAX_FRAME + 64];
	if (len > FZ_MAX_FRAME)
		len = FZ_MAX_FRAME;
	size_t h = link_header(frame, in->linktype, len ? ip[0] >> 4 : 4, len, flags);
	memcpy(frame + h, ip, len);
	commit(in, frame, h + len, t, flags, -1);
}

static const fz_frame *ref_frame(fz_input *in, uint8_t ref, bool need_ip)
{
	if (!in->n)
		return NULL;
	fz_frame *f = &in->frames[in->n - 1 - ref % in->n];
	if (f->ipver == 0xff) {
		pd_packet pkt;
		dissect_frame(in, f->data, f->caplen, f->wirelen, &pkt);
		f->ipver = 0;
		if (pkt.is_ip && pkt.l3) {
			f->ipver = pkt.ip.version;
			f->l3_off = (uint32_t)(pkt.l3 - f->data);
			f->l3_len = pkt.l3_captured;
		}
	}
	if (need_ip && !f->ipver)
		return NULL;
	return f;
}

static void swap_bytes(uint8_t *a, uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t x = a[i];
		a[i] = b[i];
		b[i] = x;
	}
}

static void swap_addrs(uint8_t *ip, size_t len)
{
	if (ip[0] >> 4 == 4 && len >= 20)
		swap_bytes(ip + 12, ip + 16, 4);
	else if (ip[0] >> 4 == 6 && len >= 40)
		swap_bytes(ip + 8, ip + 24, 16);
}

static uint8_t buf[FZ_MAX_FRAME + 256];

static void make_icmp(fz_input *in, const uint8_t *r, pd_time t, uint8_t flags)
{
	const fz_frame *q = ref_frame(in, r[4], true);
	if (!q)
		return;
	const uint8_t *qip = q->data + q->l3_off;
	size_t qlen = q->l3_len;
	uint8_t type = r[5], code = r[6], src = r[7];
	uint16_t mtu = le16(r + 8), quote = le16(r + 10);
	bool v6 = q->ipver == 6;
	size_t hdr = v6 ? 48 : 28;
	if ((v6 && qlen < 40) || (!v6 && qlen < 20))
		return;
	size_t n = quote < qlen ? quote : qlen;
	if (n > FZ_MAX_FRAME - hdr)
		n = FZ_MAX_FRAME - hdr;
	uint8_t *o = buf;
	memset(o, 0, hdr);
	if (v6) {
		o[0] = 0x60;
		o[6] = 58;
		o[7] = 64;
		memcpy(o + 8, qip + 24, 16); /* from the quoted packet's destination */
		memcpy(o + 24, qip + 8, 16);
		if (src)
			o[23] ^= src; /* or a router next to it */
		put_be32(o + 44, mtu);
	} else {
		o[0] = 0x45;
		put_be16(o + 4, (uint16_t)(0x4000 + in->n));
		o[8] = 64;
		o[9] = 1;
		memcpy(o + 12, qip + 16, 4);
		memcpy(o + 16, qip + 12, 4);
		if (src)
			o[15] ^= src;
		put_be16(o + 26, mtu);
	}
	o[hdr - 8] = type;
	o[hdr - 7] = code;
	memcpy(o + hdr, qip, n);
	fix_lengths(o, hdr + n);
	commit_ip(in, o, hdr + n, t, flags);
}

static void make_frag(fz_input *in, const uint8_t *r, pd_time t, uint8_t flags)
{
	const fz_frame *q = ref_frame(in, r[4], true);
	if (!q)
		return;
	const uint8_t *qip = q->data + q->l3_off;
	size_t qlen = q->l3_len;
	bool more = r[5] & 1;
	uint16_t off8 = le16(r + 6) & 0x1fff, ident = le16(r + 10);
	size_t flen = le16(r + 8);
	bool v6 = q->ipver == 6;
	size_t ihl = v6 ? 40 : (size_t)(qip[0] & 15) * 4;
	if (ihl < 20 || qlen < ihl)
		return;
	size_t hdr = v6 ? 48 : ihl;
	if (flen > FZ_MAX_MADE)
		flen = FZ_MAX_MADE;
	uint8_t *o = buf;
	memcpy(o, qip, ihl);
	const uint8_t *pay = qip + ihl;
	size_t avail = qlen - ihl;
	for (size_t i = 0; i < flen; i++) {
		size_t at = (size_t)off8 * 8 + i;
		o[hdr + i] = at < avail ? pay[at] : (uint8_t)(at * 13 + 1);
	}
	if (v6) {
		o[40] = qip[6];
		o[41] = 0;
		put_be16(o + 42, (uint16_t)(off8 << 3 | more));
		put_be32(o + 44, ident ? ident : 0x10000u + (uint32_t)in->n);
		o[6] = 44;
	} else {
		uint16_t ff = (uint16_t)((qip[6] << 8 | qip[7]) & 0x4000);
		put_be16(o + 6, (uint16_t)(ff | (more ? 0x2000 : 0) | off8));
		if (ident)
			put_be16(o + 4, ident);
	}
	fix_lengths(o, hdr + flen);
	commit_ip(in, o, hdr + flen, t, flags);
}

static void make_seg(fz_input *in, const uint8_t *r, pd_time t, uint8_t flags)
{
	const fz_frame *q = ref_frame(in, r[4], true);
	if (!q)
		return;
	pd_packet pkt;
	dissect_frame(in, q->data, q->caplen, q->wirelen, &pkt);
	if (!pkt.is_ip || !pkt.l3)
		return;
	bool reply = r[5] & 1;
	uint8_t tflags = r[6];
	uint32_t dseq = le32(r + 8), dack = le32(r + 12);
	uint16_t win = le16(r + 16);
	size_t plen = le16(r + 18);
	if (plen > FZ_MAX_MADE)
		plen = FZ_MAX_MADE;
	const uint8_t *qip = pkt.l3;
	size_t qlen = pkt.l3_captured, ih = pkt.ip.hdr_len;
	uint8_t *o = buf;
	size_t len;
	size_t room = qlen < FZ_MAX_FRAME ? FZ_MAX_FRAME - qlen : 0;
	if (plen > room)
		plen = room;
	if (pkt.l4 == PD_L4_TCP && ih + pkt.tcp.hdr_len <= qlen) {
		size_t th = pkt.tcp.hdr_len;
		memcpy(o, qip, ih + th);
		uint8_t *tcp = o + ih;
		uint32_t used = pkt.tcp.payload_len + !!(pkt.tcp.flags & PD_TCP_SYN) +
				!!(pkt.tcp.flags & PD_TCP_FIN);
		uint32_t seq = pkt.tcp.seq, ack = pkt.tcp.ack;
		if (reply) {
			swap_addrs(o, ih);
			swap_bytes(tcp, tcp + 2, 2);
			put_be32(tcp + 4, ack + dseq);
			put_be32(tcp + 8, seq + used + dack);
		} else {
			put_be32(tcp + 4, seq + used + dseq);
			put_be32(tcp + 8, ack + dack);
		}
		tcp[13] = tflags;
		put_be16(tcp + 14, win);
		const uint8_t *src = pkt.tcp.payload;
		size_t srcn = src ? pkt.tcp.payload_captured : 0;
		for (size_t i = 0; i < plen; i++)
			tcp[th + i] = srcn ? src[i % srcn] : (uint8_t)(i * 7 + 3);
		len = ih + th + plen;
	} else if (pkt.l4 == PD_L4_UDP && ih + 8 <= qlen) {
		memcpy(o, qip, ih + 8);
		if (reply) {
			swap_addrs(o, ih);
			swap_bytes(o + ih, o + ih + 2, 2);
		}
		for (size_t i = 0; i < plen; i++)
			o[ih + 8 + i] = (uint8_t)(i * 11 + tflags);
		len = ih + 8 + plen;
		if (len <= 65535)
			put_be16(o + ih + 4, (uint16_t)(len - ih));
	} else {
		len = qlen;
		memcpy(o, qip, len);
		if (reply)
			swap_addrs(o, len);
	}
	if (o[0] >> 4 == 4 && len >= 20)
		put_be16(o + 4, (uint16_t)(be32(o + 4) >> 16) + 1); /* the next IP ID */
	fix_lengths(o, len);
	commit_ip(in, o, len, t, reply ? flags ^ 0x40 : flags);
}

static void make_repeat(fz_input *in, const uint8_t *r, pd_time t, uint8_t flags)
{
	const fz_frame *q = ref_frame(in, r[4], false);
	if (!q)
		return;
	uint8_t x = r[5];
	uint16_t pos = le16(r + 6);
	memcpy(buf, q->data, q->caplen);
	if (q->caplen)
		buf[pos % q->caplen] ^= x;
	commit(in, buf, q->caplen, t, flags, q->wirelen);
}

void fz_build(const uint8_t *d, size_t n, fz_input *in)
{
	in->n = 0;
	in->bytes = 0;
	uint8_t hdr[FZ_HDR] = {0};
	memcpy(hdr, d, n < FZ_HDR ? n : FZ_HDR);
	in->linktype = fz_linktypes[hdr[0] % fz_n_linktypes];
	in->two_threads = hdr[1] & 1;
	in->max_flows = max_flows_of[(hdr[1] >> 1) & 3];
	in->no_ndpi = hdr[1] & 8;
	/* 0-2: no renderer (seeds have 0), then one each */
	in->renderer = ((hdr[1] >> 4) & 7) < 3 ? 99 : ((hdr[1] >> 4) & 7) - 3u;
	in->zh = hdr[1] & 0x80;
	in->snaplen = le16(hdr + 2) ? le16(hdr + 2) : 262144;
	pd_time t = (pd_time)(int32_t)le32(hdr + 4) * PD_NS_PER_SEC;
	for (size_t off = FZ_HDR; off < n && in->n < FZ_MAX_FRAMES;) {
		size_t rs = fz_record_size(d + off, n - off);
		if (!rs)
			break;
		const uint8_t *r = d + off;
		off += rs;
		uint8_t flags = r[1];
		t = advance(t, flags, le16(r + 2));
		switch (r[0] % FZ_KINDS) {
		case FZ_RAW: {
			size_t len = rs - 6;
			memcpy(buf, r + 6, len);
			if (flags & 8) {
				pd_packet pkt;
				dissect_frame(in, buf, (uint32_t)len, (uint32_t)len, &pkt);
				if (pkt.is_ip && pkt.l3)
					fix_lengths((uint8_t *)pkt.l3, pkt.l3_captured);
			}
			commit(in, buf, len, t, flags, -1);
			break;
		}
		case FZ_IP:
			memcpy(buf, r + 6, rs - 6);
			if (flags & 8)
				fix_lengths(buf, rs - 6);
			commit_ip(in, buf, rs - 6, t, flags);
			break;
		case FZ_ICMP:
			make_icmp(in, r, t, flags);
			break;
		case FZ_FRAG:
			make_frag(in, r, t, flags);
			break;
		case FZ_SEG:
			make_seg(in, r, t, flags);
			break;
		default:
			make_repeat(in, r, t, flags);
			break;
		}
	}
}

void fz_clear(fz_input *in)
{
	for (size_t i = 0; i < in->n; i++)
		free(in->frames[i].data);
	in->n = 0;
	in->bytes = 0;
}

/* ----------------------------------------------------------- captures */

typedef struct piece {
	GByteArray *b;
	size_t frames;
	pd_time cur;
} piece;

static void piece_start(piece *p, int lt_index, uint32_t snaplen, pd_time first, unsigned k)
{
	g_byte_array_set_size(p->b, 0);
	uint8_t h[FZ_HDR];
	h[0] = (uint8_t)lt_index;
	h[1] = (uint8_t)(k & 1); /* pieces alternate one and two threads */
	put_le16(h + 2, snaplen > 65535 ? 0 : (uint16_t)snaplen);
	int64_t sec = first / PD_NS_PER_SEC;
	if (first < 0 && first % PD_NS_PER_SEC)
		sec--;
	sec = sec > INT32_MAX ? INT32_MAX : sec < INT32_MIN ? INT32_MIN : sec;
	put_le32(h + 4, (uint32_t)(int32_t)sec);
	g_byte_array_append(p->b, h, FZ_HDR);
	p->cur = sec * PD_NS_PER_SEC;
	p->frames = 0;
}

/* The delta to ts as a unit and a count, from the time reached so far. */
static void encode_time(piece *p, pd_time ts, uint8_t *flags, uint16_t *dt)
{
	static const int64_t unit[4] = {1000, 1000000, PD_NS_PER_SEC, 1000 * PD_NS_PER_SEC};
	int64_t d = ts - p->cur;
	bool back = d < 0;
	uint64_t mag = back ? (uint64_t)0 - (uint64_t)d : (uint64_t)d;
	unsigned u = 0;
	while (u < 3 && mag / (uint64_t)unit[u] > 65535)
		u++;
	uint64_t count = (mag + (uint64_t)unit[u] / 2) / (uint64_t)unit[u];
	if (count > 65535)
		count = 65535;
	*flags = (uint8_t)(u | (back ? 4 : 0));
	*dt = (uint16_t)count;
	p->cur = advance(p->cur, *flags, *dt);
}

bool fz_from_capture(const char *path, size_t max_bytes, unsigned max_pieces, fz_emit_fn emit, void *user)
{
	GError *err = NULL;
	const char *paths[] = {path};
	pd_reader *r = pd_reader_open(paths, 1, NULL, &err);
	if (!r) {
		g_clear_error(&err);
		return false;
	}
	piece p = {.b = g_byte_array_new()};
	unsigned pieces = 0;
	int lt = -1;
	pd_frame fr;
	while (pieces < max_pieces && pd_reader_next(r, &fr)) {
		int idx = -1;
		for (size_t i = 0; i < fz_n_linktypes; i++)
			if (fz_linktypes[i] == fr.linktype)
				idx = (int)i;
		if (idx < 0)
			continue;
		size_t cap = fr.caplen > 65535 ? 65535 : fr.caplen;
		if (p.frames && (idx != lt || p.b->len + 6 + cap > max_bytes || p.frames >= FZ_MAX_FRAMES)) {
			emit(p.b->data, p.b->len, user);
			pieces++;
			p.frames = 0;
			if (pieces >= max_pieces)
				break;
		}
		if (!p.frames) {
			lt = idx;
			piece_start(&p, idx, pd_reader_snaplen(r), fr.ts, pieces);
		}
		uint8_t rec[6];
		uint16_t dt;
		rec[0] = FZ_RAW;
		encode_time(&p, fr.ts, &rec[1], &dt);
		if (fr.wirelen > fr.caplen)
			rec[1] |= 0x10;
		put_le16(rec + 2, dt);
		put_le16(rec + 4, (uint16_t)cap);
		g_byte_array_append(p.b, rec, 6);
		g_byte_array_append(p.b, fr.data, (guint)cap);
		p.frames++;
	}
	if (p.frames && pieces < max_pieces)
		emit(p.b->data, p.b->len, user);
	g_byte_array_free(p.b, TRUE);
	pd_reader_close(r);
	return true;
}

/* pcap when every time fits its 32-bit seconds, pcapng otherwise (no
 * times before 1970 there: they are clamped). */
bool fz_write_pcap(const fz_input *in, const char *path)
{
	bool fits = true;
	for (size_t i = 0; i < in->n; i++) {
		int64_t s = in->frames[i].ts / PD_NS_PER_SEC;
		if (s > INT32_MAX - 1 || s < INT32_MIN + 1)
			fits = false;
	}
	FILE *f = fopen(path, "wb");
	if (!f)
		return false;
	uint8_t h[32];
	if (fits) {
		put_le32(h, 0xa1b23c4d);
		put_le16(h + 4, 2);
		put_le16(h + 6, 4);
		put_le32(h + 8, 0);
		put_le32(h + 12, 0);
		put_le32(h + 16, in->snaplen);
		put_le32(h + 20, (uint32_t)in->linktype);
		fwrite(h, 1, 24, f);
		for (size_t i = 0; i < in->n; i++) {
			const fz_frame *fr = &in->frames[i];
			int64_t s = fr->ts / PD_NS_PER_SEC, ns = fr->ts % PD_NS_PER_SEC;
			if (ns < 0) {
				s--;
				ns += PD_NS_PER_SEC;
			}
			put_le32(h, (uint32_t)(int32_t)s);
			put_le32(h + 4, (uint32_t)ns);
			put_le32(h + 8, fr->caplen);
			put_le32(h + 12, fr->wirelen);
			fwrite(h, 1, 16, f);
			fwrite(fr->data, 1, fr->caplen, f);
		}
	} else {
		static const uint8_t shb[28] = {0x0a, 0x0d, 0x0d, 0x0a, 28, 0, 0, 0, 0x4d, 0x3c,
						0x2b, 0x1a, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
						0xff, 0xff, 0xff, 0xff, 28, 0, 0, 0};
		fwrite(shb, 1, 28, f);
		uint8_t idb[32] = {1, 0, 0, 0, 32, 0, 0, 0};
		put_le16(idb + 8, (uint16_t)in->linktype);
		put_le32(idb + 12, in->snaplen);
		idb[16] = 9; /* if_tsresol: nanoseconds */
		idb[18] = 1;
		idb[20] = 9;
		put_le32(idb + 28, 32);
		fwrite(idb, 1, 32, f);
		for (size_t i = 0; i < in->n; i++) {
			const fz_frame *fr = &in->frames[i];
			uint64_t ts = fr->ts < 0 ? 0 : (uint64_t)fr->ts;
			uint32_t padded = (fr->caplen + 3) & ~3u, total = 32 + padded;
			uint8_t e[28];
			put_le32(e, 6);
			put_le32(e + 4, total);
			put_le32(e + 8, 0);
			put_le32(e + 12, (uint32_t)(ts >> 32));
			put_le32(e + 16, (uint32_t)ts);
			put_le32(e + 20, fr->caplen);
			put_le32(e + 24, fr->wirelen);
			fwrite(e, 1, 28, f);
			fwrite(fr->data, 1, fr->caplen, f);
			static const uint8_t zero[4];
			fwrite(zero, 1, padded - fr->caplen, f);
			put_le32(e, total);
			fwrite(e, 1, 4, f);
		}
	}
	return fclose(f) == 0;
}

/* ------------------------------------------------------------ mutation */

typedef struct rng {
	uint64_t s;
} rng;

static uint32_t rnd(rng *r)
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 7;
	r->s ^= r->s << 17;
	return (uint32_t)(r->s >> 11);
}

static uint32_t pick(rng *r, const uint32_t *v, size_t n)
{
	return v[rnd(r) % n];
}
#define PICK(r, arr) pick(r, arr, sizeof(arr) / sizeof(arr[0]))

/* Where each record starts; the count. */
static size_t split(const uint8_t *d, size_t n, size_t *starts, size_t *ends, size_t max)
{
	size_t k = 0;
	for (size_t off = FZ_HDR; off < n && k < max;) {
		size_t rs = fz_record_size(d + off, n - off);
		if (!rs)
			break;
		starts[k] = off;
		ends[k] = off + rs;
		k++;
		off += rs;
	}
	return k;
}

static const uint32_t times[] = {0, 0, 1, 2, 10, 50, 100, 200, 999, 1000, 3000, 30000, 65535};
static const uint32_t icmp4[][2] = {{3, 4}, {3, 3}, {3, 1}, {3, 13}, {11, 1}, {11, 0}, {3, 0},
				    {5, 1}, {4, 0}, {12, 0}, {3, 2}, {3, 10}};
static const uint32_t icmp6[][2] = {{2, 0}, {1, 4}, {1, 1}, {3, 1}, {3, 0}, {4, 0}, {1, 0}, {1, 3}};
static const uint32_t mtus[] = {0, 1, 68, 296, 552, 576, 1006, 1280, 1400, 1480, 1492, 1500, 9000, 65535};
static const uint32_t quotes[] = {0, 1, 8, 19, 20, 24, 28, 39, 40, 44, 48, 64, 548, 576, 1232, 65535};
static const uint32_t offs[] = {0, 0, 1, 2, 3, 10, 181, 185, 1024, 8190, 8191};
static const uint32_t flens[] = {0, 1, 7, 8, 16, 24, 100, 1232, 1480, 1500, 8192, 65535};
static const uint32_t tflags[] = {0x02, 0x12, 0x10, 0x18, 0x11, 0x04, 0x14, 0x01, 0x00, 0xff,
				  0x50, 0xc2, 0x52, 0x30, 0x19, 0x06, 0x03};
static const uint32_t deltas[] = {0, 0, 0, 1, 0xffffffff, 1448, (uint32_t)-1448, 0x7fffffff, 0x80000000,
				  (uint32_t)-65536, 65536, 1000, (uint32_t)-2896};
static const uint32_t wins[] = {0, 1, 512, 29200, 64240, 65535};
static const uint32_t plens[] = {0, 0, 1, 20, 100, 536, 1200, 1448, 1460, 8948};

/* A made record, written at o; its size. */
static size_t gen_record(rng *r, uint8_t *o)
{
	unsigned kind = FZ_ICMP + rnd(r) % 4;
	o[0] = (uint8_t)kind;
	o[1] = (uint8_t)(rnd(r) % 3 | (rnd(r) % 8 == 0 ? 4 : 0) | (rnd(r) % 2 ? 0x40 : 0));
	put_le16(o + 2, (uint16_t)PICK(r, times));
	o[4] = (uint8_t)(rnd(r) % 4 ? rnd(r) % 4 : rnd(r)); /* mostly a recent frame */
	switch (kind) {
	case FZ_ICMP: {
		bool v6 = rnd(r) % 2;
		const uint32_t *tc = v6 ? icmp6[rnd(r) % 8] : icmp4[rnd(r) % 12];
		o[5] = (uint8_t)tc[0];
		o[6] = (uint8_t)tc[1];
		o[7] = (uint8_t)(rnd(r) % 2 ? 0 : rnd(r));
		put_le16(o + 8, (uint16_t)PICK(r, mtus));
		put_le16(o + 10, (uint16_t)PICK(r, quotes));
		return 12;
	}
	case FZ_FRAG:
		o[5] = (uint8_t)(rnd(r) % 2);
		put_le16(o + 6, (uint16_t)PICK(r, offs));
		put_le16(o + 8, (uint16_t)PICK(r, flens));
		put_le16(o + 10, (uint16_t)(rnd(r) % 3 ? 0 : rnd(r)));
		return 12;
	case FZ_SEG:
		o[5] = (uint8_t)(rnd(r) % 2);
		o[6] = (uint8_t)PICK(r, tflags);
		o[7] = 0;
		put_le32(o + 8, PICK(r, deltas));
		put_le32(o + 12, PICK(r, deltas));
		put_le16(o + 16, (uint16_t)PICK(r, wins));
		put_le16(o + 18, (uint16_t)PICK(r, plens));
		return 20;
	default:
		o[5] = (uint8_t)(rnd(r) % 2 ? 0 : rnd(r));
		put_le16(o + 6, (uint16_t)rnd(r));
		return 8;
	}
}

static size_t mutate_bytes_fixed(uint8_t *p, size_t n, fz_bytes_fn mb)
{
	uint8_t tmp[32];
	if (n > sizeof(tmp))
		n = sizeof(tmp);
	memcpy(tmp, p, n);
	size_t m = mb(tmp, n, n);
	memcpy(p, tmp, m < n ? m : n);
	return n;
}

size_t fz_mutate(uint8_t *d, size_t n, size_t max, unsigned seed, fz_bytes_fn mb)
{
	static size_t starts[FZ_MAX_FRAMES + 1], ends[FZ_MAX_FRAMES + 1];
	static uint8_t out[1 << 20];
	rng r = {.s = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)seed * 0x2545f4914f6cdd1dULL | 1)};
	if (max > sizeof(out))
		max = sizeof(out);
	if (n < FZ_HDR || max < FZ_HDR + 32)
		return mb(d, n, max);
	size_t k = split(d, n, starts, ends, FZ_MAX_FRAMES);
	unsigned op = rnd(&r) % 16;
	if (!k && op >= 4)
		op = 10; /* no record yet: make one */
	size_t ri = k ? rnd(&r) % k : 0;
	size_t o = 0;
	memcpy(out, d, FZ_HDR);
	o = FZ_HDR;
	switch (op) {
	case 0: case 1: case 2:
		return mb(d, n, max);
	case 3:
		mutate_bytes_fixed(out, FZ_HDR, mb);
		memcpy(out + o, d + FZ_HDR, n - FZ_HDR);
		o = n;
		break;
	case 4: case 5: case 6: case 15: { /* one record's fields or bytes */
		const uint8_t *rec = d + starts[ri];
		size_t rs = ends[ri] - starts[ri];
		unsigned kind = rec[0] % FZ_KINDS;
		memcpy(out + o, d + FZ_HDR, starts[ri] - FZ_HDR);
		o += starts[ri] - FZ_HDR;
		size_t fixed = 4 + fixed_size[kind];
		if ((kind == FZ_RAW || kind == FZ_IP) && (op == 15 || rnd(&r) % 2)) {
			size_t len = rs - fixed;
			size_t room = max - (n - rs) - fixed;
			size_t cap = len + 256 < room ? len + 256 : room;
			if (cap > 65535)
				cap = 65535;
			if (cap < len)
				return mb(d, n, max);
			memcpy(out + o, rec, fixed);
			memcpy(out + o + fixed, rec + fixed, len);
			size_t m = mb(out + o + fixed, len, cap);
			put_le16(out + o + 4, (uint16_t)m);
			o += fixed + m;
		} else {
			memcpy(out + o, rec, rs);
			/* the kind stays (mostly): the fields change */
			size_t fields = kind == FZ_RAW || kind == FZ_IP ? 3 : fixed - 1;
			mutate_bytes_fixed(out + o + 1, fields, mb);
			if (rnd(&r) % 8 == 0)
				mutate_bytes_fixed(out + o, 1, mb);
			o += rs;
		}
		memcpy(out + o, d + ends[ri], n - ends[ri]);
		o += n - ends[ri];
		break;
	}
	case 7: /* delete a record */
		memcpy(out + o, d + FZ_HDR, starts[ri] - FZ_HDR);
		o += starts[ri] - FZ_HDR;
		memcpy(out + o, d + ends[ri], n - ends[ri]);
		o += n - ends[ri];
		break;
	case 8: case 9: { /* copy (8) or move (9) a record elsewhere */
		size_t rs = ends[ri] - starts[ri];
		size_t to = rnd(&r) % (k + 1);
		if (n + rs > max && op == 8)
			return mb(d, n, max);
		for (size_t j = 0; j <= k; j++) {
			if (j == to) {
				memcpy(out + o, d + starts[ri], rs);
				o += rs;
			}
			if (j < k && !(op == 9 && j == ri)) {
				memcpy(out + o, d + starts[j], ends[j] - starts[j]);
				o += ends[j] - starts[j];
			}
		}
		break;
	}
	case 10: case 11: case 12: { /* a made record somewhere */
		uint8_t rec[32];
		size_t rs = gen_record(&r, rec);
		if (n + rs > max)
			return mb(d, n, max);
		size_t at = k ? (rnd(&r) % 4 ? ends[ri] : starts[ri]) : FZ_HDR;
		memcpy(out + o, d + FZ_HDR, at - FZ_HDR);
		o += at - FZ_HDR;
		memcpy(out + o, rec, rs);
		o += rs;
		memcpy(out + o, d + at, n - at);
		o += n - at;
		break;
	}
	case 13: /* a record's time */
		memcpy(out + o, d + FZ_HDR, n - FZ_HDR);
		o = n;
		out[starts[ri] + 1] &= (uint8_t)~7u;
		out[starts[ri] + 1] |= (uint8_t)(rnd(&r) % 4 | (rnd(&r) % 4 ? 0 : 4));
		put_le16(out + starts[ri] + 2, (uint16_t)PICK(&r, times));
		break;
	default: { /* which earlier frame a made record refers to */
		memcpy(out + o, d + FZ_HDR, n - FZ_HDR);
		o = n;
		unsigned kind = out[starts[ri]] % FZ_KINDS;
		if (kind >= FZ_ICMP && ends[ri] - starts[ri] > 4)
			out[starts[ri] + 4] = (uint8_t)(rnd(&r) % 2 ? rnd(&r) % 8 : rnd(&r));
		else
			out[starts[ri] + 1] ^= (uint8_t)(1u << (rnd(&r) % 8)); /* a flag */
		break;
	}
	}
	if (o > max)
		return mb(d, n, max);
	memcpy(d, out, o);
	return o;
}

size_t fz_crossover(const uint8_t *a, size_t na, const uint8_t *b, size_t nb, uint8_t *out, size_t max,
		    unsigned seed)
{
	static size_t sa[FZ_MAX_FRAMES + 1], ea[FZ_MAX_FRAMES + 1];
	static size_t sb[FZ_MAX_FRAMES + 1], eb[FZ_MAX_FRAMES + 1];
	rng r = {.s = 0x243f6a8885a308d3ULL ^ ((uint64_t)seed << 1 | 1)};
	if (na < FZ_HDR || max < FZ_HDR)
		return 0;
	size_t ka = split(a, na, sa, ea, FZ_MAX_FRAMES);
	size_t kb = nb >= FZ_HDR ? split(b, nb, sb, eb, FZ_MAX_FRAMES) : 0;
	memcpy(out, a, FZ_HDR);
	size_t o = FZ_HDR;
	/* a's first records, then a run of b's, then the rest of a's */
	size_t cut = ka ? rnd(&r) % (ka + 1) : 0;
	for (size_t i = 0; i < cut && o + ea[i] - sa[i] <= max; i++) {
		memcpy(out + o, a + sa[i], ea[i] - sa[i]);
		o += ea[i] - sa[i];
	}
	if (kb) {
		size_t from = rnd(&r) % kb, cnt = 1 + rnd(&r) % (kb - from);
		for (size_t i = from; i < from + cnt && o + eb[i] - sb[i] <= max; i++) {
			memcpy(out + o, b + sb[i], eb[i] - sb[i]);
			o += eb[i] - sb[i];
		}
	}
	if (rnd(&r) % 2)
		for (size_t i = cut; i < ka && o + ea[i] - sa[i] <= max; i++) {
			memcpy(out + o, a + sa[i], ea[i] - sa[i]);
			o += ea[i] - sa[i];
		}
	return o;
}
