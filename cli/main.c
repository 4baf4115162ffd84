/* pcapdoc command line. The engine lives in run.c; this file only parses
 * options, picks the renderer and maps outcomes to exit codes. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pd_config.h"
#include "report/render.h"
#include "analyzer/run.h"
#include "analyzer/series.h"
#include "analyzer/points.h"
#include "analyzer/sanitizers.h"
#include "host/collect.h"

/* Documented in pcapdoc(1); 1 is reserved for --fail-on. */
typedef enum pd_exit {
	PD_EXIT_OK = 0,
	PD_EXIT_FINDINGS = 1,
	PD_EXIT_USAGE = 2,
	PD_EXIT_INPUT = 3,
	PD_EXIT_TRUNCATED = 4, /* only with --strict */
	PD_EXIT_OUTPUT = 5, /* the report could not be written */
} pd_exit;

static void usage(FILE *out)
{
	fputs("usage: pcapdoc [OPTIONS] [-r FILE]... [FILE...] [FILTER WORDS]\n"
	      "       pcapdoc diff OLD.json NEW.json\n"
	      "       pcapdoc capture [-i IF] [-w FILE] [-c N] [-G S] [TCPDUMP FILTER]\n"
	      "\n"
	      "Reads pcap/pcapng captures (also .gz, or - for standard input), rebuilds every TCP\n"
	      "flow and prints a diagnosis: what went wrong, where, what it cost, which setting.\n"
	      "\n"
	      "  -r, --read-file FILE read FILE (repeatable, as in tcpdump and tshark);\n"
	      "                      positional files are read too\n"
	      "      --format FMT    text (default), json, markdown, jsonl (one ECS-shaped\n"
	      "                      JSON object per finding per line, for a SIEM) or html\n"
	      "  -o, --output FILE   write the report to FILE instead of standard output\n"
	      "  -f, --filter EXPR   BPF filter (tcpdump syntax); words after the files also count\n"
	      "      --flows         add the per-flow table\n"
	      "      --host DIR      host snapshots taken during the capture (a folder or .tar.gz\n"
	      "                      of sysctl -a, nstat -az, ss -tmi, conntrack -S, ip addr ...;\n"
	      "                      repeatable): each finding's settings confirmed or ruled out\n"
	      "      --points A,B    A and B are two capture points of the same connections\n"
	      "                      (two files given alone are paired when they share them)\n"
	      "  -v, --verbose       every likely setting in full (text, markdown, html);\n"
	      "                      otherwise the first two, then their names\n"
	      "      --lang LANG     en (default) or zh, for text and markdown\n"
	      "      --fail-on SEV   exit 1 when a finding at or above info|warning|error is present\n"
	      "      --baseline FILE earlier JSON report: its findings are known and do not fail\n"
	      "      --junit FILE    also write JUnit XML (one test case per finding id)\n"
	      "      --max-flows N   live flow cap (default 100000)\n"
	      "      --strict        exit 4 when an input file is truncated\n"
	      "      --color WHEN    auto (default), always or never\n"
	      "      --threads N     N worker threads own the flows, one more reads and one\n"
	      "                      collects ended flows (default: the number of cores;\n"
	      "                      1: all on one thread); the report is the same for any N\n"
	      "  -q, --quiet         no progress line, no warnings on stderr\n"
	      "      --version       print the version\n"
	      "  -h, --help          this help\n"
	      "\n"
	      "Exit status: 0 ok, 1 findings at or above --fail-on, 2 usage, 3 unreadable input,\n"
	      "4 truncated input with --strict, 5 the report could not be written.\n",
	      out);
}

/* A positional argument is a file if it exists or looks like one; the first
 * that does neither starts the filter words, as in tcpdump. */
static bool looks_like_file(const char *a)
{
	struct stat st;
	if (strcmp(a, "-") == 0 || stat(a, &st) == 0)
		return true;
	return strchr(a, '/') || strstr(a, ".pcap") || strstr(a, ".cap") || strstr(a, ".gz");
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "diff") == 0)
		return pd_diff_main(argc - 1, argv + 1, stdout);
	if (argc >= 2 && strcmp(argv[1], "capture") == 0)
		return pd_collect_main(argc - 1, argv + 1);

	/* A closed pipe must be an error we report, not a silent death. */
	signal(SIGPIPE, SIG_IGN);

	enum { OPT_FORMAT = 256, OPT_FLOWS, OPT_LANG, OPT_FAIL_ON, OPT_BASELINE, OPT_JUNIT,
	       OPT_MAX_FLOWS, OPT_STRICT, OPT_COLOR, OPT_THREADS, OPT_VERSION, OPT_NO_NDPI,
	       OPT_NO_DETECTORS, OPT_STATS, OPT_DETECTORS, OPT_NO_PACK, OPT_HOST, OPT_POINTS };
	static const struct option longopts[] = {
		{"format", required_argument, NULL, OPT_FORMAT},
		{"output", required_argument, NULL, 'o'},
		{"read-file", required_argument, NULL, 'r'},
		{"filter", required_argument, NULL, 'f'},
		{"flows", no_argument, NULL, OPT_FLOWS},
		{"host", required_argument, NULL, OPT_HOST},
		{"points", required_argument, NULL, OPT_POINTS},
		{"verbose", no_argument, NULL, 'v'},
		{"lang", required_argument, NULL, OPT_LANG},
		{"fail-on", required_argument, NULL, OPT_FAIL_ON},
		{"baseline", required_argument, NULL, OPT_BASELINE},
		{"junit", required_argument, NULL, OPT_JUNIT},
		{"max-flows", required_argument, NULL, OPT_MAX_FLOWS},
		{"strict", no_argument, NULL, OPT_STRICT},
		{"color", required_argument, NULL, OPT_COLOR},
		{"colour", required_argument, NULL, OPT_COLOR},
		{"threads", required_argument, NULL, OPT_THREADS},
		{"no-ndpi", no_argument, NULL, OPT_NO_NDPI}, /* not in --help: tests, measurements */
		{"no-detectors", no_argument, NULL, OPT_NO_DETECTORS},
		{"detectors", required_argument, NULL, OPT_DETECTORS}, /* only these (names, commas) */
		{"stats", no_argument, NULL, OPT_STATS}, /* engine figures on stderr */
		{"no-pack", no_argument, NULL, OPT_NO_PACK}, /* idle flows stay unpacked (tests) */
		{"quiet", no_argument, NULL, 'q'},
		{"version", no_argument, NULL, OPT_VERSION},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *format = "text", *output = NULL, *filter = NULL, *lang = "en";
	const char *baseline = NULL, *junit = NULL, *color = "auto";
	bool flows = false, verbose = false, quiet = false, strict = false, fail_on_set = false;
	bool force_points = false;
	g_auto(GStrv) points_arg = NULL;
	pd_severity fail_on = PD_SEV_ERROR;
	pd_run_opts ro;
	pd_run_opts_default(&ro);
	ro.threads = (unsigned)CLAMP(g_get_num_processors(), 1, 16);

	/* freed on every return, the usage errors' too */
	g_autoptr(GPtrArray) files = g_ptr_array_new();
	g_autoptr(GPtrArray) hosts = g_ptr_array_new();
	int c;
	/* '+': stop at the first positional, so filter words like "-" survive. */
	while ((c = getopt_long(argc, argv, "+o:f:r:vqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			/* tcpdump's and tshark's habit: -r FILE, as often as wanted;
			 * read in the order given, before the positional files */
			g_ptr_array_add(files, optarg);
			break;
		case OPT_FORMAT:
			format = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'f':
			filter = optarg;
			break;
		case OPT_FLOWS:
			flows = true;
			break;
		case OPT_HOST:
			g_ptr_array_add(hosts, optarg);
			break;
		case OPT_POINTS:
			g_strfreev(points_arg);
			points_arg = g_strsplit(optarg, ",", 3);
			if (g_strv_length(points_arg) != 2 || !*points_arg[0] || !*points_arg[1]) {
				fprintf(stderr, "pcapdoc: --points takes two files: A,B\n");
				return PD_EXIT_USAGE;
			}
			g_ptr_array_add(files, points_arg[0]);
			g_ptr_array_add(files, points_arg[1]);
			force_points = true;
			break;
		case 'v':
			verbose = true;
			break;
		case OPT_LANG:
			if (strcmp(optarg, "en") && strcmp(optarg, "zh")) {
				fprintf(stderr, "pcapdoc: --lang takes en or zh, not '%s'\n", optarg);
				return PD_EXIT_USAGE;
			}
			lang = optarg;
			break;
		case OPT_FAIL_ON:
			if (!pd_severity_parse(optarg, &fail_on)) {
				fprintf(stderr, "pcapdoc: --fail-on takes info, warning or error, not '%s'\n", optarg);
				return PD_EXIT_USAGE;
			}
			fail_on_set = true;
			break;
		case OPT_BASELINE:
			baseline = optarg;
			break;
		case OPT_JUNIT:
			junit = optarg;
			break;
		case OPT_MAX_FLOWS: {
			char *end = NULL;
			errno = 0;
			unsigned long long v = strtoull(optarg, &end, 10);
			if (errno || !end || *end || v < 16 || v > 100000000ULL) {
				fprintf(stderr, "pcapdoc: --max-flows takes a number from 16 to 100000000\n");
				return PD_EXIT_USAGE;
			}
			ro.max_flows = (size_t)v;
			break;
		}
		case OPT_STRICT:
			strict = true;
			break;
		case OPT_COLOR:
			if (strcmp(optarg, "auto") && strcmp(optarg, "always") && strcmp(optarg, "never")) {
				fprintf(stderr, "pcapdoc: --color takes auto, always or never\n");
				return PD_EXIT_USAGE;
			}
			color = optarg;
			break;
		case OPT_THREADS: {
			char *end = NULL;
			long v = strtol(optarg, &end, 10);
			if (!end || *end || v < 1 || v > 256) {
				fprintf(stderr, "pcapdoc: --threads takes a number from 1 to 256\n");
				return PD_EXIT_USAGE;
			}
			ro.threads = (unsigned)v;
			break;
		}
		case OPT_NO_NDPI:
			ro.no_ndpi = true;
			break;
		case OPT_NO_DETECTORS:
			ro.no_detectors = true;
			break;
		case OPT_DETECTORS:
			ro.detectors = optarg;
			break;
		case OPT_STATS:
			ro.stats = true;
			break;
		case OPT_NO_PACK:
			ro.no_pack = true;
			break;
		case 'q':
			quiet = true;
			break;
		case OPT_VERSION:
			printf("pcapdoc %s\n", PD_VERSION);
			return PD_EXIT_OK;
		case 'h':
			usage(stdout);
			return PD_EXIT_OK;
		default:
			usage(stderr);
			return PD_EXIT_USAGE;
		}
	}
	const pd_renderer *renderer = pd_renderer_find(format);
	if (!renderer) {
		fprintf(stderr, "pcapdoc: unknown --format '%s' (text, json, markdown, jsonl, html)\n",
			format);
		return PD_EXIT_USAGE;
	}

	int i = optind;
	for (; i < argc && looks_like_file(argv[i]); i++)
		g_ptr_array_add(files, argv[i]);
	char *joined_filter = NULL;
	if (i < argc) {
		if (filter) {
			fprintf(stderr, "pcapdoc: give the filter either with -f or as trailing words, not both\n");
			return PD_EXIT_USAGE;
		}
		joined_filter = g_strjoinv(" ", argv + i);
		filter = joined_filter;
	}
	if (files->len == 0) {
		fprintf(stderr, "pcapdoc: no capture file given (use - for standard input)\n");
		usage(stderr);
		g_free(joined_filter);
		return PD_EXIT_USAGE;
	}

	FILE *out = stdout;
	if (output && strcmp(output, "-") != 0) {
		out = fopen(output, "w");
		if (!out) {
			fprintf(stderr, "pcapdoc: cannot write %s: %s\n", output, g_strerror(errno));
			g_free(joined_filter);
			return PD_EXIT_OUTPUT;
		}
	}

	ro.filter = filter;
	ro.want_flow_rows = flows;
	ro.hosts = (const char *const *)hosts->pdata;
	ro.n_hosts = hosts->len;
	ro.progress = !quiet && isatty(STDERR_FILENO) && !getenv("CI");
	if (force_points && files->len != 2) {
		fprintf(stderr, "pcapdoc: --points pairs two files; give no other\n");
		g_free(joined_filter);
		return PD_EXIT_USAGE;
	}
	/* two files: two capture points of the same connections, or not
	 * (analyzer/points.h); when they are, the run reads one of them */
	pd_points *points = files->len == 2 ? pd_points_pair(files->pdata[0], files->pdata[1], filter, force_points) : NULL;
	const char *const *run_files = (const char *const *)files->pdata;
	size_t n_run = files->len;
	if (pd_points_split(points)) {
		run_files = (const char *const *)&files->pdata[points->analysed];
		n_run = 1;
	}
	pd_run *run = pd_run_new(&ro);
	pd_run_status st = pd_run_files(run, run_files, n_run);
	pd_report *report = pd_run_finish(run);
	pd_points_apply(report, points);
	/* The report owns all it needs. Handing the run's flows, detector
	 * state and nDPI's tables back block by block takes ~10 ms on a big
	 * capture, just before the process exits and the kernel takes it all
	 * at once; sanitizer builds still free it, so leak checks see every
	 * owner. */
	if (PD_SANITIZED)
		pd_run_free(run);

	int rc = PD_EXIT_OK;
	for (guint k = 0; k < report->cap.errors->len; k++)
		fprintf(stderr, "pcapdoc: %s\n", (const char *)g_ptr_array_index(report->cap.errors, k));
	if (!quiet && report->cap.packets == 0 && st == PD_RUN_OK)
		fprintf(stderr, "pcapdoc: warning: the capture contains no packets\n");

	if (baseline) {
		GError *err = NULL;
		if (!pd_baseline_apply(report, baseline, &err)) {
			fprintf(stderr, "pcapdoc: %s\n", err ? err->message : "cannot read baseline");
			g_clear_error(&err);
			rc = PD_EXIT_INPUT;
		}
	}

	/* jsonl lines carry the capture's identity: the files' SHA-256, read
	 * again as bytes (not as packets) once the run is over */
	if (st != PD_RUN_NONE_READ && strcmp(renderer->name, "jsonl") == 0)
		pd_report_hash_files(report);
	/* html draws the flagged flows: their packets are read once more, for
	 * the pictures only (analyzer/series.c); standard input cannot be */
	if (st != PD_RUN_NONE_READ && strcmp(renderer->name, "html") == 0) {
		GError *err = NULL;
		if (!pd_series_collect(report, run_files, n_run, filter, 0,
				       0, &err) &&
		    err) {
			if (!quiet)
				fprintf(stderr, "pcapdoc: warning: no pictures: %s\n", err->message);
			g_clear_error(&err);
		}
	}

	if (st != PD_RUN_NONE_READ) {
		bool use_color = strcmp(color, "always") == 0 ||
				 (strcmp(color, "auto") == 0 && isatty(fileno(out)) && !getenv("NO_COLOR"));
		if (getenv("NO_COLOR") && *getenv("NO_COLOR"))
			use_color = false;
		pd_render_opts o = {.lang = lang, .color = use_color, .show_flows = flows,
				    .verbose = verbose, .version = PD_VERSION};
		bool ok = renderer->render(report, &o, out);
		if (fflush(out) != 0 || ferror(out))
			ok = false;
		if (!ok) {
			fprintf(stderr, "pcapdoc: error writing the report to %s: %s\n",
				output ? output : "standard output", g_strerror(errno));
			rc = PD_EXIT_OUTPUT;
		}
	}
	if (out != stdout) {
		if (fclose(out) != 0 && rc == PD_EXIT_OK) {
			fprintf(stderr, "pcapdoc: error writing %s: %s\n", output, g_strerror(errno));
			rc = PD_EXIT_OUTPUT;
		}
	}
	if (junit && rc != PD_EXIT_OUTPUT) {
		GError *err = NULL;
		if (!pd_junit_write(report, junit, fail_on_set ? fail_on : PD_SEV_WARNING, &err)) {
			fprintf(stderr, "pcapdoc: %s\n", err ? err->message : "cannot write JUnit file");
			g_clear_error(&err);
			rc = PD_EXIT_OUTPUT;
		}
	}

	if (rc == PD_EXIT_OK) {
		if (st == PD_RUN_NONE_READ || st == PD_RUN_SOME_FAILED)
			rc = PD_EXIT_INPUT;
		else if (st == PD_RUN_TRUNCATED && strict)
			rc = PD_EXIT_TRUNCATED;
	}
	if (rc == PD_EXIT_OK && fail_on_set) {
		for (guint k = 0; k < report->findings->len; k++) {
			const pd_finding *f = g_ptr_array_index(report->findings, k);
			if (f->severity >= fail_on && !f->known) {
				rc = PD_EXIT_FINDINGS;
				break;
			}
		}
	}
	if (st == PD_RUN_TRUNCATED && !quiet && !strict)
		fprintf(stderr, "pcapdoc: warning: input truncated; the report covers what was read\n");

	pd_report_free(report);
	g_free(joined_filter);
	if (fclose(stdout) != 0 && rc == PD_EXIT_OK) {
		fprintf(stderr, "pcapdoc: error writing standard output: %s\n", g_strerror(errno));
		rc = PD_EXIT_OUTPUT;
	}
	return rc;
}
