/* ss -tmi / -tin / -tmina: a socket line ("State Recv-Q Send-Q Local:Port
 * Peer:Port", the State column missing under a state filter) followed by
 * indented detail lines: skmem:(r..,rb..,t..,tb..) and key:value words. */
#include <string.h>

#include "host/host.h"

#define SS_MAX_WORDS 8

static size_t words(const char *l, size_t n, const char **w, size_t *wn)
{
	size_t k = 0, i = 0;
	while (i < n && k < SS_MAX_WORDS) {
		while (i < n && (l[i] == ' ' || l[i] == '\t'))
			i++;
		if (i >= n)
			break;
		size_t s = i;
		while (i < n && l[i] != ' ' && l[i] != '\t')
			i++;
		w[k] = l + s;
		wn[k] = i - s;
		k++;
	}
	return k;
}

static bool endpoint(const char *s, size_t n, pd_addr *a, uint16_t *port)
{
	const char *colon = NULL;
	for (size_t i = n; i > 0; i--)
		if (s[i - 1] == ':') {
			colon = s + i - 1;
			break;
		}
	if (!colon)
		return false;
	size_t an = (size_t)(colon - s), pn = n - an - 1;
	int64_t p = 0;
	size_t used = 0;
	if (pn == 1 && colon[1] == '*')
		p = 0;
	else if (!pd_host_int(colon + 1, pn, &p, &used) || used != pn || p < 0 || p > 65535)
		return false;
	*port = (uint16_t)p;
	if ((an == 1 && s[0] == '*') || (an == 3 && !memcmp(s, "[*]", 3))) {
		memset(a, 0, sizeof(*a));
		return true;
	}
	return pd_host_addr_parse(s, an, a);
}

/* "key:123" or "key123" after prefix inside a detail line. */
static int64_t detail_num(const char *l, size_t n, const char *key)
{
	size_t kl = strlen(key);
	for (size_t i = 0; i + kl < n; i++) {
		bool start = i == 0 || l[i - 1] == ' ' || l[i - 1] == '\t' || l[i - 1] == ',' || l[i - 1] == '(';
		if (start && !memcmp(l + i, key, kl)) {
			int64_t v;
			size_t used;
			if (pd_host_int(l + i + kl, n - i - kl, &v, &used) &&
			    (i + kl + used == n || l[i + kl + used] == ' ' || l[i + kl + used] == ',' ||
			     l[i + kl + used] == ')' || l[i + kl + used] == '\t'))
				return v;
		}
	}
	return -1;
}

static bool state_word(const char *w, size_t n)
{
	static const char *const st[] = {"ESTAB", "LISTEN", "SYN-SENT", "SYN-RECV", "FIN-WAIT-1", "FIN-WAIT-2",
					 "TIME-WAIT", "CLOSE-WAIT", "LAST-ACK", "CLOSING", "UNCONN", "CLOSED"};
	for (size_t i = 0; i < G_N_ELEMENTS(st); i++)
		if (strlen(st[i]) == n && !memcmp(w, st[i], n))
			return true;
	return false;
}

bool pd_host_parse_ss(pd_host *h, const char *text, size_t len, double time)
{
	pd_host_lines c = {text, text + len};
	const char *l;
	size_t n;
	bool header = false, any_skmem = false;
	guint first = h->socks->len;
	pd_host_sock *cur = NULL;
	while (pd_host_next_line(&c, &l, &n)) {
		if (n == 0)
			continue;
		if (n > 12 && !memcmp(l, "State", 5) && g_strstr_len(l, (gssize)n, "Recv-Q")) {
			header = true;
			continue;
		}
		if (n > 6 && !memcmp(l, "Recv-Q", 6)) {
			header = true;
			continue;
		}
		if (l[0] == ' ' || l[0] == '\t') {
			if (!cur)
				continue;
			int64_t v;
			if (g_strstr_len(l, (gssize)n, "skmem:(")) {
				any_skmem = true;
				if ((v = detail_num(l, n, "rb")) >= 0)
					cur->rb = v;
				if ((v = detail_num(l, n, "tb")) >= 0)
					cur->tb = v;
			}
			if ((v = detail_num(l, n, "rcv_space:")) >= 0)
				cur->rcv_space = v;
			if ((v = detail_num(l, n, "snd_wnd:")) >= 0)
				cur->snd_wnd = v;
			if ((v = detail_num(l, n, "rcv_wnd:")) >= 0)
				cur->rcv_wnd = v;
			continue;
		}
		cur = NULL;
		const char *w[SS_MAX_WORDS];
		size_t wn[SS_MAX_WORDS];
		size_t k = words(l, n, w, wn);
		size_t j = 0;
		pd_host_sock s = {.rb = -1, .tb = -1, .rcv_space = -1, .snd_wnd = -1, .rcv_wnd = -1, .time = time};
		if (k >= 5 && state_word(w[0], wn[0])) {
			memcpy(s.state, w[0], MIN(wn[0], sizeof(s.state) - 1));
			j = 1;
		} else if (k >= 4) {
			memcpy(s.state, "ESTAB", 6); /* ss ... state established drops the column */
		} else {
			continue;
		}
		if (!pd_host_int(w[j], wn[j], &s.recvq, NULL) || !pd_host_int(w[j + 1], wn[j + 1], &s.sendq, NULL) ||
		    !endpoint(w[j + 2], wn[j + 2], &s.local, &s.lport) ||
		    !endpoint(w[j + 3], wn[j + 3], &s.peer, &s.pport))
			continue;
		if (h->socks->len >= PD_HOST_MAX_SOCKS) {
			h->socks_capped = true; /* bounded: more sockets than any report could use */
			break;
		}
		g_array_append_val(h->socks, s);
		cur = &g_array_index(h->socks, pd_host_sock, h->socks->len - 1);
	}
	if ((!header && !any_skmem) || (h->socks->len == first && !header)) {
		g_array_set_size(h->socks, first);
		return false;
	}
	return true;
}
