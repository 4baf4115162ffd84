/* ip -s link (or ip -s addr): after each "N: IF: <FLAGS>" line, a header
 * "RX:  bytes packets errors dropped  missed   mcast" (older iproute2:
 * "RX: bytes packets errors dropped overrun mcast") and a line of numbers
 * under it; the same for "TX:". Each number is kept as "IF rx_NAME" /
 * "IF tx_NAME" by the header's own words, so either layout reads. */
#include <string.h>

#include "host/host.h"

#define IPLINK_MAX_COLS 8

/* The words after "RX:" / "TX:" into names; how many, 0 when l is not a header. */
static unsigned header(const char *l, size_t n, const char **dir, char names[IPLINK_MAX_COLS][16])
{
	size_t i = 0;
	while (i < n && (l[i] == ' ' || l[i] == '\t'))
		i++;
	if (n - i < 4 || (memcmp(l + i, "RX:", 3) && memcmp(l + i, "TX:", 3)))
		return 0;
	*dir = l[i] == 'R' ? "rx" : "tx";
	i += 3;
	unsigned k = 0;
	while (i < n) {
		while (i < n && (l[i] == ' ' || l[i] == '\t'))
			i++;
		size_t s = i;
		while (i < n && l[i] != ' ' && l[i] != '\t')
			i++;
		if (i == s)
			break;
		if (k == IPLINK_MAX_COLS || i - s > 15)
			return 0;
		for (size_t j = s; j < i; j++)
			if (!(l[j] >= 'a' && l[j] <= 'z'))
				return 0;
		memcpy(names[k], l + s, i - s);
		names[k][i - s] = 0;
		k++;
	}
	return k;
}

bool pd_host_parse_iplink(pd_host *h, const char *name, const char *text, size_t len, double time)
{
	pd_host_lines c = {text, text + len};
	const char *l;
	size_t n;
	char ifname[16] = "";
	char names[IPLINK_MAX_COLS][16];
	const char *dir = NULL;
	unsigned cols = 0;
	GHashTable *t = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	while (pd_host_next_line(&c, &l, &n)) {
		if (pd_host_ifline(l, n, ifname)) {
			cols = 0;
			continue;
		}
		if (!ifname[0])
			continue;
		unsigned k = header(l, n, &dir, names);
		if (k) {
			cols = k;
			continue;
		}
		if (!cols)
			continue;
		/* the numbers under the header: all of them, or the line is not taken */
		int64_t v[IPLINK_MAX_COLS];
		unsigned got = 0;
		size_t i = 0;
		bool bad = false;
		while (i < n && got <= cols) {
			while (i < n && (l[i] == ' ' || l[i] == '\t'))
				i++;
			if (i >= n)
				break;
			size_t used;
			if (got == cols || !pd_host_int(l + i, n - i, &v[got], &used) || v[got] < 0 ||
			    (i + used < n && l[i + used] != ' ' && l[i + used] != '\t')) {
				bad = true; /* 1.2M from ip -h, a cut line, another layout */
				break;
			}
			i += used;
			got++;
		}
		if (!bad && got == cols)
			for (unsigned j = 0; j < cols; j++) {
				char key[40];
				g_snprintf(key, sizeof(key), "%s %s_%s", ifname, dir, names[j]);
				pd_host_series_add(t, key, v[j]);
			}
		cols = 0;
	}
	return pd_host_series_keep(h->link, t, name, time);
}
