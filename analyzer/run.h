/* One analysis run: reads the input, drives dissector, flow engine, nDPI
 * and detectors in a single streaming pass, and owns the findings until it
 * hands over the finished report (analyzer/engine.h has the parts). */
#ifndef PD_RUN_H
#define PD_RUN_H

#include <glib.h>

#include "dissect/dissect.h"
#include "report/model.h"
#include "capture/reader.h"

typedef struct pd_run pd_run;

typedef struct pd_run_opts {
	const char *filter; /* BPF, may be NULL */
	bool want_flow_rows; /* keep a row per flow for --flows */
	size_t max_flows; /* live flow cap; least recently active evicted */
	size_t max_flow_rows; /* rows kept for the flow table */
	bool progress; /* progress line on stderr */
	bool no_ndpi; /* skip application detection (tests, fuzzing) */
	bool no_detectors; /* run none of them: the benchmark's floor (PD_BENCH_FLOOR) */
	/* workers: 1, everything on this thread; N, this thread reads and
	 * routes and N threads own the flows; the report is the same */
	unsigned threads;
	bool stats; /* engine figures on stderr at the end */
	bool no_pack; /* keep idle flows' blocks unpacked (tests: packing changes nothing) */
	/* run only these detectors (comma-separated names; NULL: all): for the
	 * in-process tests, which feed one detector packets built in C */
	const char *detectors;
	/* --host snapshots (folders or .tar.gz), applied once detection is
	 * over (analyzer/host_stage.c); none: the packets alone */
	const char *const *hosts;
	size_t n_hosts;
} pd_run_opts;

void pd_run_opts_default(pd_run_opts *o);

pd_run *pd_run_new(const pd_run_opts *opts);
void pd_run_free(pd_run *run);

typedef enum pd_run_status {
	PD_RUN_OK = 0,
	PD_RUN_TRUNCATED, /* a file ended mid-record; what was read is analysed */
	PD_RUN_SOME_FAILED, /* some file could not be opened or read */
	PD_RUN_NONE_READ, /* nothing could be opened */
} pd_run_status;

/* Reads and analyses the files as one merged capture. */
pd_run_status pd_run_files(pd_run *run, const char *const *paths, size_t n);

/* Analyses one frame as if read from a capture whose snap length is
 * snaplen, without a reader (the fuzzer, the detector harness): frames in order, numbered from 1,
 * times clamped as the reader clamps them (+-2^62 ns). Not with
 * pd_run_files on the same run. */
void pd_run_frame(pd_run *run, uint32_t snaplen, const pd_frame *fr);


/* Ends every flow, runs the end-of-capture passes and returns the report;
 * the caller owns it (pd_report_free). The run can then only be freed. */
pd_report *pd_run_finish(pd_run *run);

#endif
