/* TCP header and options. */
#include "dissect.h"

/* Options live in the hdr_len - 20 bytes after the fixed header. o covers
 * the captured part of them (hdr_opts is what the header claims). An option
 * whose length field lies is malformed; one cut by the snaplen only makes
 * the option set incomplete. */
static void pd_tcp_options(pd_packet *pkt, pd_cursor o, size_t hdr_opts)
{
	pd_tcp *t = &pkt->tcp;
	size_t captured = pd_cursor_remaining(&o);
	unsigned n = 0; /* options in t->opt_layout */

	/* Every step consumes at least one byte of at most 40. */
	while (pd_cursor_remaining(&o) > 0) {
		size_t start = o.off;
		uint8_t kind = pd_cursor_u8(&o);
		uint32_t code = kind == 0   ? PD_TCP_LAYOUT_EOL
				: kind == 1 ? PD_TCP_LAYOUT_NOP
				: kind == 2 ? PD_TCP_LAYOUT_MSS
				: kind == 3 ? PD_TCP_LAYOUT_WS
				: kind == 4 ? PD_TCP_LAYOUT_SACK_PERM
				: kind == 8 ? PD_TCP_LAYOUT_TS
					    : PD_TCP_LAYOUT_OTHER;
		if (n < PD_TCP_LAYOUT_MAX)
			t->opt_layout |= code << (3 * n++);
		else
			t->opt_layout |= PD_TCP_LAYOUT_MORE;
		if (kind == 0) /* EOL: the rest is padding */
			return;
		if (kind == 1) /* NOP */
			continue;
		uint8_t len = pd_cursor_u8(&o);
		if (o.err) {
			/* Length byte: in the header but not captured, or beyond
			 * the header altogether. */
			if (start + 1 >= hdr_opts)
				pkt->malformed = PD_MAL_TCP_OPTIONS;
			else
				t->options_truncated = true;
			return;
		}
		if (len < 2 || start + len > hdr_opts) {
			pkt->malformed = PD_MAL_TCP_OPTIONS;
			return;
		}
		if (start + len > captured) {
			t->options_truncated = true;
			return;
		}
		pd_cursor v = pd_cursor_take(&o, (size_t)len - 2);
		switch (kind) {
		case 2: /* MSS */
			if (len == 4) {
				t->has_mss = true;
				t->mss = pd_cursor_be16(&v);
			}
			break;
		case 3: /* window scale */
			if (len == 3) {
				uint8_t s = pd_cursor_u8(&v);
				/* RFC 7323 2.3: a shift above 14 is used as 14. */
				t->wscale = (int8_t)(s > 14 ? 14 : s);
			}
			break;
		case 4: /* SACK permitted */
			if (len == 2)
				t->sack_permitted = true;
			break;
		case 5: { /* SACK: 8 bytes per block; extra odd bytes ignored */
			size_t nblocks = ((size_t)len - 2) / 8;
			t->sack_count = 0;
			for (size_t i = 0; i < nblocks && i < PD_MAX_SACK_BLOCKS; i++) {
				t->sack_left[i] = pd_cursor_be32(&v);
				t->sack_right[i] = pd_cursor_be32(&v);
				t->sack_count++;
			}
			break;
		}
		case 8: /* timestamps */
			if (len == 10) {
				t->has_ts = true;
				t->tsval = pd_cursor_be32(&v);
				t->tsecr = pd_cursor_be32(&v);
			}
			break;
		default: /* skipped by length */
			break;
		}
	}
}

void pd_dissect_tcp(pd_packet *pkt, pd_cursor *c, uint32_t l4_wire_len)
{
	pd_tcp *t = &pkt->tcp;
	t->wscale = -1;

	pd_cursor h = *c;
	bool have_doff = pd_cursor_remaining(c) >= 13;
	t->sport = pd_cursor_be16(&h);
	t->dport = pd_cursor_be16(&h);
	t->seq = pd_cursor_be32(&h);
	t->ack = pd_cursor_be32(&h);
	uint8_t doff = pd_cursor_u8(&h);
	t->flags = pd_cursor_u8(&h);
	t->window = pd_cursor_be16(&h);
	(void)pd_cursor_skip(&h, 4); /* checksum, urgent pointer */
	uint32_t hdr_len = (uint32_t)(doff >> 4) * 4;

	if (l4_wire_len < 20) {
		/* The IP payload cannot hold even the fixed header. A first
		 * fragment may legally split it (tiny fragments): not ours to
		 * reassemble, so not a TCP packet for us, but not a lie either. */
		if (pkt->ip.is_fragment)
			pkt->l4 = PD_L4_OTHER;
		else
			pkt->malformed = PD_MAL_TCP_HDRLEN;
		return;
	}
	if (!have_doff) {
		pkt->snap_truncated = true; /* l4 stays NONE: header incomplete */
		return;
	}
	/* The data offset can be judged as soon as its byte is captured. */
	t->hdr_len = (uint16_t)hdr_len;
	if (hdr_len >= 20 && hdr_len > l4_wire_len && pkt->ip.is_fragment) {
		pkt->l4 = PD_L4_OTHER; /* options continue in the next fragment */
		return;
	}
	if (hdr_len < 20 || hdr_len > l4_wire_len) {
		pkt->malformed = PD_MAL_TCP_HDRLEN;
		return;
	}
	if (h.err) {
		pkt->snap_truncated = true; /* l4 stays NONE: header incomplete */
		return;
	}
	pkt->l4 = PD_L4_TCP;
	t->payload_len = l4_wire_len - hdr_len;

	pd_cursor opts = pd_cursor_take(&h, hdr_len - 20);
	if (pd_cursor_remaining(&opts) < hdr_len - 20) {
		t->options_truncated = true;
		pkt->snap_truncated = true;
	}
	pd_tcp_options(pkt, opts, hdr_len - 20);
	if (t->options_truncated)
		pkt->snap_truncated = true;

	size_t rest = pd_cursor_remaining(&h);
	/* c is clipped to the datagram, so this never counts padding. */
	t->payload_captured = (uint32_t)(rest < t->payload_len ? rest : t->payload_len);
	t->payload = t->payload_captured ? pd_cursor_bytes(&h, t->payload_captured) : NULL;
	*c = h;
}
