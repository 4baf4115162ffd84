/* --junit FILE: JUnit XML for CI dashboards. One testsuite for the
 * capture (its files), one testcase per catalogue id (each id is one check
 * the detectors make); a testcase fails when it has a finding at or above
 * fail_on that the baseline did not already know. No timestamps, so the
 * same report gives the same file. */
#include "report/internal.h"

#include <string.h>

static bool failing(const pd_finding *f, pd_severity fail_on)
{
	return f->severity >= fail_on && !f->known;
}

bool pd_junit_write(const pd_report *r, const char *path, pd_severity fail_on, GError **err)
{
	guint nf = r->findings ? r->findings->len : 0;
	size_t failures = 0;
	for (size_t i = 0; i < pd_catalog_len; i++)
		for (guint k = 0; k < nf; k++) {
			const pd_finding *f = r->findings->pdata[k];
			if (f->def == &pd_catalog[i] && failing(f, fail_on)) {
				failures++;
				break;
			}
		}

	GString *suite = g_string_new(NULL);
	for (guint i = 0; r->cap.files && i < r->cap.files->len; i++) {
		if (i)
			g_string_append(suite, ", ");
		g_string_append(suite, r->cap.files->pdata[i]);
	}
	if (!suite->len)
		g_string_append(suite, "capture");

	GString *x = g_string_new("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	g_string_append_printf(x, "<testsuites name=\"pcapdoc\" tests=\"%zu\" failures=\"%zu\">\n",
			       pd_catalog_len, failures);
	g_string_append(x, "  <testsuite name=\"");
	pd_r_xml_escape(x, suite->str, true);
	g_string_append_printf(x, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\">\n",
			       pd_catalog_len, failures);
	g_string_free(suite, TRUE);

	for (size_t i = 0; i < pd_catalog_len; i++) {
		const pd_finding_def *d = &pd_catalog[i];
		size_t fail = 0, seen = 0;
		const pd_finding *first_fail = NULL;
		for (guint k = 0; k < nf; k++) {
			const pd_finding *f = r->findings->pdata[k];
			if (f->def != d)
				continue;
			seen++;
			if (failing(f, fail_on)) {
				if (!first_fail)
					first_fail = f;
				fail++;
			}
		}
		g_string_append_printf(x, "    <testcase classname=\"pcapdoc.%s\" name=\"%s\"",
				       pd_category_name(d->category), d->id);
		if (!fail && !seen) {
			g_string_append(x, "/>\n");
			continue;
		}
		g_string_append(x, ">\n");
		if (fail) {
			GString *msg = g_string_new(NULL);
			g_string_append_printf(msg, "%zu finding(s) at or above %s: %s", fail,
					       pd_severity_name(fail_on), d->title_en);
			g_string_append(x, "      <failure message=\"");
			pd_r_xml_escape(x, msg->str, true);
			g_string_append_printf(x, "\" type=\"%s\">",
					       pd_severity_name(first_fail->severity));
			pd_r_xml_escape(x, first_fail->detail ? first_fail->detail : d->explain_en, true);
			g_string_append(x, "</failure>\n");
			g_string_free(msg, TRUE);
		} else {
			g_string_append_printf(x,
					       "      <system-out>%zu finding(s) below %s or known "
					       "from the baseline</system-out>\n",
					       seen, pd_severity_name(fail_on));
		}
		g_string_append(x, "    </testcase>\n");
	}
	g_string_append(x, "  </testsuite>\n</testsuites>\n");

	bool ok = g_file_set_contents(path, x->str, (gssize)x->len, err);
	g_string_free(x, TRUE);
	return ok;
}
