/* libFuzzer target over the whole pipeline: the input is a capture file
 * (pcap or pcapng bytes), read through the same reader as the CLI, with
 * every detector and every renderer on. The bytes go through a memfd so
 * the reader's real file path (libpcap, gzip sniffing) is exercised. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyzer/run.h"
#include "report/render.h"
#include "analyzer/series.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("pcapdoc-fuzz", 0);
	if (fd < 0)
		return 0;
	size_t off = 0;
	while (off < size) {
		ssize_t n = write(fd, data + off, size - off);
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	const char *paths[] = {path};

	pd_run_opts ro;
	pd_run_opts_default(&ro);
	ro.want_flow_rows = true;
	/* nDPI's start-up dominates a run on small inputs: keep it for one
	 * input in four so the glue is fuzzed without slowing everything
	 * (fuzz_engine is the fast target for the engine itself) */
	ro.no_ndpi = (size % 4) != 0;
	ro.threads = 1 + (unsigned)(size % 2);
	setenv("PD_CHECK", "1", 0); /* the engine's invariants (engine.h) */
	ro.max_flows = 1024; /* exercises eviction on small inputs */
	pd_run *run = pd_run_new(&ro);
	(void)pd_run_files(run, paths, 1);
	pd_report *rep = pd_run_finish(run);
	pd_run_free(run);
	/* the HTML pictures' second read of the flagged flows, small bounds so
	 * the thinning runs too */
	(void)pd_series_collect(rep, paths, 1, NULL, 4, 64, NULL);
	if (rep->cap.files)
		pd_report_hash_files(rep);

	FILE *null = fopen("/dev/null", "w");
	if (null) {
		pd_render_opts o = {.lang = "en", .color = true, .show_flows = true, .version = "fuzz"};
		for (size_t i = 0; i < pd_renderers_len; i++)
			pd_renderers[i]->render(rep, &o, null);
		o.lang = "zh";
		for (size_t i = 0; i < pd_renderers_len; i++)
			pd_renderers[i]->render(rep, &o, null);
		fclose(null);
	}
	pd_report_free(rep);
	close(fd);
	return 0;
}
