/* Bounds-checked reader over untrusted bytes.
 *
 * A cursor is (base, len, off) plus a sticky error flag: any read past the
 * end sets err, returns 0 and leaves the cursor where it was, so a parser can
 * do a run of reads and check err once. Nothing here ever touches memory
 * outside [base, base+len). */
#ifndef PD_CURSOR_H
#define PD_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pd_cursor {
	const uint8_t *base;
	size_t len;
	size_t off;
	bool err;
} pd_cursor;

static inline void pd_cursor_init(pd_cursor *c, const uint8_t *p, size_t len)
{
	c->base = p;
	c->len = p ? len : 0;
	c->off = 0;
	c->err = false;
}

static inline size_t pd_cursor_remaining(const pd_cursor *c)
{
	return c->len - c->off;
}

/* True when n more bytes are readable; sets err otherwise. */
static inline bool pd_cursor_need(pd_cursor *c, size_t n)
{
	if (c->err || n > c->len - c->off) {
		c->err = true;
		return false;
	}
	return true;
}

static inline uint8_t pd_cursor_u8(pd_cursor *c)
{
	if (!pd_cursor_need(c, 1))
		return 0;
	return c->base[c->off++];
}

static inline uint16_t pd_cursor_be16(pd_cursor *c)
{
	if (!pd_cursor_need(c, 2))
		return 0;
	const uint8_t *p = c->base + c->off;
	c->off += 2;
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint16_t pd_cursor_le16(pd_cursor *c)
{
	if (!pd_cursor_need(c, 2))
		return 0;
	const uint8_t *p = c->base + c->off;
	c->off += 2;
	return (uint16_t)((p[1] << 8) | p[0]);
}

static inline uint32_t pd_cursor_be32(pd_cursor *c)
{
	if (!pd_cursor_need(c, 4))
		return 0;
	const uint8_t *p = c->base + c->off;
	c->off += 4;
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static inline uint32_t pd_cursor_le32(pd_cursor *c)
{
	if (!pd_cursor_need(c, 4))
		return 0;
	const uint8_t *p = c->base + c->off;
	c->off += 4;
	return ((uint32_t)p[3] << 24) | ((uint32_t)p[2] << 16) | ((uint32_t)p[1] << 8) | p[0];
}

/* Returns a pointer to the next n bytes and advances, or NULL (err set). */
static inline const uint8_t *pd_cursor_bytes(pd_cursor *c, size_t n)
{
	if (!pd_cursor_need(c, n))
		return NULL;
	const uint8_t *p = c->base + c->off;
	c->off += n;
	return p;
}

static inline bool pd_cursor_skip(pd_cursor *c, size_t n)
{
	return pd_cursor_bytes(c, n) != NULL || n == 0;
}

/* A cursor over the next n bytes, clipped to what is there (a snaplen cut is
 * not an error at this level: the caller compares the header's claimed length
 * with what was captured). The parent advances past what the child covers. */
static inline pd_cursor pd_cursor_take(pd_cursor *c, size_t n)
{
	pd_cursor sub;
	size_t avail = c->err ? 0 : c->len - c->off;
	size_t k = n < avail ? n : avail;
	pd_cursor_init(&sub, c->base ? c->base + c->off : NULL, k);
	c->off += k;
	return sub;
}

#endif
