/* sysctl -a: "name = value" lines. Taken when most lines have that shape
 * and a name of the kernel's own trees (net., kernel., vm., fs.). */
#include <string.h>

#include "host/host.h"

static bool sysctl_name(const char *s, size_t n)
{
	if (n == 0 || n > 200)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
		      c == '_' || c == '-' || c == '/'))
			return false;
	}
	return (n > 4 && !strncmp(s, "net.", 4)) || (n > 7 && !strncmp(s, "kernel.", 7)) ||
	       (n > 3 && !strncmp(s, "vm.", 3)) || (n > 3 && !strncmp(s, "fs.", 3)) ||
	       (n > 4 && !strncmp(s, "dev.", 4)) || (n > 5 && !strncmp(s, "user.", 5)) ||
	       (n > 6 && !strncmp(s, "debug.", 6)) || (n > 7 && !strncmp(s, "crypto.", 7));
}

bool pd_host_parse_sysctl(pd_host *h, const char *text, size_t len)
{
	pd_host_lines c = {text, text + len};
	const char *l;
	size_t n;
	unsigned good = 0, bad = 0;
	GHashTable *t = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	while (pd_host_next_line(&c, &l, &n)) {
		if (n == 0 || l[0] == '#')
			continue;
		const char *eq = memchr(l, '=', n);
		size_t kn = eq ? (size_t)(eq - l) : 0;
		while (kn && l[kn - 1] == ' ')
			kn--;
		if (!eq || !sysctl_name(l, kn)) {
			bad++;
			continue;
		}
		const char *v = eq + 1;
		size_t vn = n - (size_t)(v - l);
		while (vn && (*v == ' ' || *v == '\t')) {
			v++;
			vn--;
		}
		g_hash_table_replace(t, g_strndup(l, kn), g_strndup(v, vn));
		good++;
	}
	if (good < 3 || good < bad * 4) {
		g_hash_table_destroy(t);
		return false;
	}
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, t);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		g_hash_table_iter_steal(&it);
		g_hash_table_replace(h->sysctl, k, v);
	}
	g_hash_table_destroy(t);
	return true;
}
