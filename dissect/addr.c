/* Address helpers; see addr.h. */
#include "addr.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <sys/socket.h>

bool pd_addr_equal(const pd_addr *a, const pd_addr *b)
{
	return a->family == b->family && memcmp(a->bytes, b->bytes, pd_addr_len(a)) == 0;
}

int pd_addr_cmp(const pd_addr *a, const pd_addr *b)
{
	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	int r = memcmp(a->bytes, b->bytes, pd_addr_len(a));
	return r < 0 ? -1 : r > 0 ? 1 : 0;
}

const char *pd_addr_str(const pd_addr *a, char *buf, size_t len)
{
	if (!buf || len == 0)
		return buf;
	int af = a->family == 4 ? AF_INET : a->family == 6 ? AF_INET6 : -1;
	if (af < 0 || len > UINT32_MAX || !inet_ntop(af, a->bytes, buf, (socklen_t)len)) {
		/* No address, or buf too small for it. */
		buf[0] = '\0';
		if (af < 0 && len >= 2) {
			buf[0] = '-';
			buf[1] = '\0';
		}
	}
	return buf;
}

const char *pd_addr_bracketed(const pd_addr *a, char *buf, size_t len)
{
	char s[PD_ADDR_STRLEN];
	pd_addr_str(a, s, sizeof(s));
	snprintf(buf, len, a->family == 6 ? "[%s]" : "%s", s[0] ? s : "?");
	return buf;
}

const char *pd_endpoint_str(const pd_addr *a, uint16_t port, char *buf, size_t len)
{
	char s[PD_ADDR_STRLEN + 2];
	pd_addr_bracketed(a, s, sizeof(s));
	snprintf(buf, len, "%s:%u", s, port);
	return buf;
}
