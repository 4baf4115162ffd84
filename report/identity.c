/* The capture's identity for --format jsonl: a SHA-256 of every input
 * file, read again as plain bytes after the run (the packets are not
 * parsed again). Standard input cannot be read twice and gets "". */
#include "report/model.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static char *hash_file(const char *path, uint64_t *size)
{
	*size = 0;
	if (strcmp(path, "-") == 0)
		return g_strdup("");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return g_strdup("");
	GChecksum *ck = g_checksum_new(G_CHECKSUM_SHA256);
	enum { BUF = 1 << 20 };
	guchar *buf = g_malloc(BUF);
	bool ok = true;
	for (;;) {
		ssize_t n = read(fd, buf, BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ok = false;
			break;
		}
		if (n == 0)
			break;
		g_checksum_update(ck, buf, (gssize)n);
		*size += (uint64_t)n;
	}
	close(fd);
	g_free(buf);
	char *hex = ok ? g_strdup(g_checksum_get_string(ck)) : g_strdup("");
	if (!ok)
		*size = 0;
	g_checksum_free(ck);
	return hex;
}

void pd_report_hash_files(pd_report *r)
{
	pd_capture_summary *c = &r->cap;
	if (c->file_sha256)
		return;
	c->file_sha256 = g_ptr_array_new_with_free_func(g_free);
	c->file_sizes = g_array_new(FALSE, TRUE, sizeof(uint64_t));
	for (guint i = 0; c->files && i < c->files->len; i++) {
		uint64_t size = 0;
		g_ptr_array_add(c->file_sha256, hash_file(c->files->pdata[i], &size));
		g_array_append_val(c->file_sizes, size);
	}
}
