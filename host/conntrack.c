/* conntrack -S: "cpu=N  found=.. invalid=.. insert=.. insert_failed=..
 * drop=.. early_drop=.. error=.." per CPU, summed here. */
#include <string.h>

#include "host/host.h"

static bool field(const char *l, size_t n, const char *key, int64_t *acc)
{
	size_t kl = strlen(key);
	for (size_t i = 0; i + kl + 1 < n; i++) {
		if ((i == 0 || l[i - 1] == ' ' || l[i - 1] == '\t') && !memcmp(l + i, key, kl) && l[i + kl] == '=') {
			int64_t v;
			if (!pd_host_int(l + i + kl + 1, n - i - kl - 1, &v, NULL))
				return false;
			*acc += v;
			return true;
		}
	}
	return false;
}

bool pd_host_parse_conntrack_s(pd_host *h, const char *name, const char *text, size_t len, double time)
{
	pd_host_lines c = {text, text + len};
	const char *l;
	size_t n;
	pd_host_ctstat s = {0};
	unsigned cpus = 0;
	while (pd_host_next_line(&c, &l, &n)) {
		if (n < 5 || memcmp(l, "cpu=", 4))
			continue;
		int64_t sink = 0;
		if (!field(l, n, "found", &sink) || !field(l, n, "drop", &s.drop))
			continue;
		field(l, n, "invalid", &s.invalid);
		field(l, n, "insert", &s.insert);
		field(l, n, "insert_failed", &s.insert_failed);
		field(l, n, "early_drop", &s.early_drop);
		field(l, n, "error", &s.error);
		s.found += sink;
		cpus++;
	}
	if (!cpus)
		return false;
	pd_host_ctstat *p = g_new(pd_host_ctstat, 1);
	*p = s;
	p->file = g_strdup(name);
	p->time = time;
	g_ptr_array_add(h->ctstat, p);
	return true;
}
