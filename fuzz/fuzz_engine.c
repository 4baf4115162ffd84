/* The fast pipeline fuzz target: each input is a sequence of packets in
 * the format of fzinput.h (not a capture file), analysed by a run set up
 * and torn down per input: router, one or two workers with their shards,
 * nDPI, every detector, the collector and one renderer. What is
 * per-process (nDPI's modules, the detector checks, interned strings) is
 * made once: finished runs hand their nDPI modules to the next ones.
 * The engine checks its invariants after every packet (PD_CHECK=1).
 * `fzconvert pcap INPUT OUT.pcap` turns an input (a crash) into a capture. */
#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/app_label.h"
#include "analyzer/engine.h"
#include "analyzer/run.h"
#include "fzinput.h"
#include "report/render.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2, uint8_t *out,
				 size_t max, unsigned int seed);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max);

static FILE *devnull;
static fz_input input;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("PD_CHECK", "1", 0);
	/* a worker's module each, for two workers */
	pd_app_label_keep(2);
	pd_collector_keep_blocks(true);
	devnull = fopen("/dev/null", "w");
	/* a GLib critical is a bug like a crash */
	g_log_set_always_fatal(G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_ERROR);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!devnull)
		LLVMFuzzerInitialize(NULL, NULL);
	fz_build(data, size, &input);

	pd_run_opts ro;
	pd_run_opts_default(&ro);
	ro.want_flow_rows = true;
	ro.threads = input.two_threads ? 2 : 1;
	ro.max_flows = input.max_flows;
	ro.no_ndpi = input.no_ndpi;
	pd_run *run = pd_run_new(&ro);
	for (size_t i = 0; i < input.n; i++) {
		const fz_frame *f = &input.frames[i];
		pd_frame fr = {
			.frame_no = i + 1,
			.ts = f->ts,
			.caplen = f->caplen,
			.wirelen = f->wirelen,
			.linktype = input.linktype,
			.data = f->data,
		};
		pd_run_frame(run, input.snaplen, &fr);
	}
	pd_report *rep = pd_run_finish(run);
	pd_run_free(run);
	/* one renderer per input, or none (the input picks) */
	if (input.renderer < pd_renderers_len) {
		pd_render_opts o = {.lang = input.zh ? "zh" : "en", .color = input.zh, .show_flows = true,
				    .verbose = input.renderer & 1, .version = "fuzz"};
		pd_renderers[input.renderer]->render(rep, &o, devnull);
		fflush(devnull);
	}
	pd_report_free(rep);
	fz_clear(&input);
	return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed)
{
	return fz_mutate(data, size, max, seed, LLVMFuzzerMutate);
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2, uint8_t *out,
				 size_t max, unsigned int seed)
{
	return fz_crossover(d1, s1, d2, s2, out, max, seed);
}
