/* The bounded line cursor and the small number / address readers every
 * snapshot parser shares: nothing here reads past len. */
#include <arpa/inet.h>
#include <string.h>

#include "host/host.h"

bool pd_host_next_line(pd_host_lines *c, const char **line, size_t *n)
{
	if (!c->p || c->p >= c->end)
		return false;
	const char *s = c->p;
	const char *nl = memchr(s, '\n', (size_t)(c->end - s));
	const char *e = nl ? nl : c->end;
	c->p = nl ? nl + 1 : c->end;
	if (e > s && e[-1] == '\r')
		e--;
	*line = s;
	*n = (size_t)(e - s);
	return true;
}

bool pd_host_int(const char *s, size_t n, int64_t *out, size_t *used)
{
	size_t i = 0;
	bool neg = false;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	size_t d0 = i;
	uint64_t v = 0;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > (UINT64_C(1) << 62))
			return false; /* no counter of ours is that large: not a number we trust */
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (i == d0)
		return false;
	*out = neg ? -(int64_t)v : (int64_t)v;
	if (used)
		*used = i;
	return true;
}

bool pd_host_ifline(const char *l, size_t n, char out[16])
{
	int64_t idx;
	size_t used;
	if (n < 4 || !pd_host_int(l, n, &idx, &used) || idx < 0 || used >= n || l[used] != ':' || !memchr(l, '<', n))
		return false;
	size_t i = used + 1;
	while (i < n && l[i] == ' ')
		i++;
	size_t s = i;
	while (i < n && l[i] != ':' && l[i] != '@' && l[i] != ' ')
		i++;
	size_t k = i - s;
	if (k == 0 || k > 15)
		return false;
	memcpy(out, l + s, k);
	out[k] = 0;
	return true;
}

bool pd_host_addr_parse(const char *s, size_t n, pd_addr *out)
{
	char buf[64];
	if (n && s[0] == '[') {
		s++;
		n--;
		const char *rb = memchr(s, ']', n);
		if (!rb)
			return false;
		n = (size_t)(rb - s);
	}
	const char *pct = memchr(s, '%', n);
	if (pct)
		n = (size_t)(pct - s);
	if (n == 0 || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	memset(out, 0, sizeof(*out));
	if (inet_pton(AF_INET, buf, out->bytes) == 1) {
		out->family = 4;
		return true;
	}
	if (inet_pton(AF_INET6, buf, out->bytes) == 1) {
		/* ::ffff:a.b.c.d is the IPv4 peer of a dual-stack socket */
		static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
		if (!memcmp(out->bytes, mapped, 12)) {
			memmove(out->bytes, out->bytes + 12, 4);
			memset(out->bytes + 4, 0, 12);
			out->family = 4;
			return true;
		}
		out->family = 6;
		return true;
	}
	return false;
}
