/* Converts between captures and the fast fuzzer's inputs (fzinput.h).
 *
 *   fzconvert corpus OUTDIR [-b MAX_BYTES] [-p MAX_PIECES] CAPTURE...
 *       each capture as inputs of at most MAX_BYTES (default 16384), at
 *       most MAX_PIECES per capture (default 4): OUTDIR/<name>.<k>.fz
 *   fzconvert pcap INPUT OUT.pcap
 *       the frames an input makes, as a capture (pcap; pcapng when times
 *       do not fit 32-bit seconds), and the run it asks for on stderr */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fzinput.h"

typedef struct sink {
	const char *dir, *name;
	unsigned k;
} sink;

static void write_piece(const uint8_t *data, size_t size, void *user)
{
	sink *s = user;
	char *path = g_strdup_printf("%s/%s.%u.fz", s->dir, s->name, s->k++);
	if (!g_file_set_contents(path, (const char *)data, (gssize)size, NULL))
		fprintf(stderr, "fzconvert: cannot write %s\n", path);
	g_free(path);
}

static int corpus(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: fzconvert corpus OUTDIR [-b MAX_BYTES] [-p MAX_PIECES] CAPTURE...\n");
		return 2;
	}
	const char *dir = argv[2];
	size_t max_bytes = 16384;
	unsigned pieces = 4;
	int i = 3;
	for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
		if (!strcmp(argv[i], "-b"))
			max_bytes = strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "-p"))
			pieces = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else
			break;
	}
	g_mkdir_with_parents(dir, 0755);
	int bad = 0;
	unsigned total = 0;
	for (; i < argc; i++) {
		char *base = g_path_get_basename(argv[i]);
		sink s = {.dir = dir, .name = base};
		if (!fz_from_capture(argv[i], max_bytes, pieces, write_piece, &s)) {
			fprintf(stderr, "fzconvert: cannot read %s\n", argv[i]);
			bad = 1;
		}
		total += s.k;
		g_free(base);
	}
	fprintf(stderr, "fzconvert: %u inputs in %s\n", total, dir);
	return bad;
}

static fz_input input;

static int to_pcap(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: fzconvert pcap INPUT OUT.pcap\n");
		return 2;
	}
	gchar *data = NULL;
	gsize len = 0;
	if (!g_file_get_contents(argv[2], &data, &len, NULL)) {
		fprintf(stderr, "fzconvert: cannot read %s\n", argv[2]);
		return 1;
	}
	fz_build((const uint8_t *)data, len, &input);
	bool ok = fz_write_pcap(&input, argv[3]);
	fprintf(stderr, "fzconvert: %zu frames, link type %d, snaplen %u -> %s; the run: --threads %d "
			"--max-flows %zu%s\n",
		input.n, input.linktype, input.snaplen, argv[3], input.two_threads ? 2 : 1, input.max_flows,
		input.no_ndpi ? " (no nDPI)" : "");
	fz_clear(&input);
	g_free(data);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "corpus"))
		return corpus(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "pcap"))
		return to_pcap(argc, argv);
	fprintf(stderr, "usage: fzconvert corpus OUTDIR [-b MAX_BYTES] [-p MAX_PIECES] CAPTURE...\n"
			"       fzconvert pcap INPUT OUT.pcap\n");
	return 2;
}
