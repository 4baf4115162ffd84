/* Report renderers. A format is one file report/fmt_<name>.c defining a
 * `const pd_renderer pd_fmt_<name>` plus one name in report/meson.build.
 * Renderers only read the finished pd_report. */
#ifndef PD_RENDER_H
#define PD_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>
#include <glib.h>

#include "report/model.h"

typedef struct pd_render_opts {
	const char *lang; /* "en" or "zh" */
	bool color; /* ANSI colour allowed (TTY and no NO_COLOR) */
	bool show_flows; /* include the per-flow table */
	bool verbose; /* every setting in full (otherwise the first two, then names) */
	const char *version; /* pcapdoc version string */
} pd_render_opts;

typedef struct pd_renderer {
	const char *name;
	/* false on a write error (errno set by stdio) */
	bool (*render)(const pd_report *r, const pd_render_opts *o, FILE *out);
} pd_renderer;

extern const pd_renderer *const pd_renderers[];
extern const size_t pd_renderers_len;
const pd_renderer *pd_renderer_find(const char *name);

/* The JSON document (json_model.c): the single source for --format json,
 * baselines and diffs. Caller cJSON_Delete()s. */
cJSON *pd_report_to_json(const pd_report *r, const char *version);
/* The same with rows false: the flow table ("flows") left empty, for a
 * writer that streams the rows (pd_flow_row_to_json each). */
cJSON *pd_report_to_json_rows(const pd_report *r, const char *version, bool rows);
cJSON *pd_flow_row_to_json(const pd_flow_row *row);

/* Baseline (--baseline FILE): marks findings present in an earlier JSON
 * report as known. A finding matches on id plus its flows' endpoints (or
 * id alone for capture-wide findings). False with *err set on a bad file. */
bool pd_baseline_apply(pd_report *r, const char *path, GError **err);

/* JUnit XML (--junit FILE): one testsuite per capture, one testcase per
 * detector; a testcase fails when it has a finding at or above fail_on
 * that is not known from the baseline. */
bool pd_junit_write(const pd_report *r, const char *path, pd_severity fail_on, GError **err);

/* `pcapdoc diff OLD.json NEW.json`: prints new, gone and changed findings;
 * returns the process exit status (0 no new finding, 1 new findings, 3 unreadable). */
int pd_diff_main(int argc, char **argv, FILE *out);

/* Output safety (escape.c): strings that come from packets never carry
 * control characters or escape sequences to a terminal or a Markdown file. */
/* Appends s to buf with C0/C1 controls, DEL and invalid UTF-8 shown as \xNN. */
void pd_escape_text(GString *buf, const char *s);
/* As pd_escape_text, plus Markdown/HTML metacharacters neutralised. */
void pd_escape_markdown(GString *buf, const char *s);

#endif
