/* --format json: the document from json_model.c, pretty-printed.
 *
 * The flow table (--flows, up to 100 000 rows) is written row by row into
 * the document's place for it, with the layout cJSON would give it: as one
 * cJSON tree it took ~350 MB for 100 000 rows. */
#include "report/internal.h"
#include "report/render.h"

#include <string.h>

/* A row printed alone, at the depth of the document's flow table (two
 * more tabs on every line after the first), appended to buf. */
static bool put_row(const pd_flow_row *row, GString *buf)
{
	cJSON *o = pd_flow_row_to_json(row);
	char *text = o ? cJSON_Print(o) : NULL;
	cJSON_Delete(o);
	if (!text)
		return false;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		if (!nl) {
			g_string_append(buf, p);
			break;
		}
		g_string_append_len(buf, p, nl + 1 - p);
		g_string_append(buf, "\t\t");
		p = nl + 1;
	}
	cJSON_free(text);
	return true;
}

static bool render_json(const pd_report *r, const pd_render_opts *o, FILE *out)
{
	bool stream = r->flows && r->flows->len > 0;
	cJSON *doc = pd_report_to_json_rows(r, o ? o->version : NULL, !stream);
	char *text = doc ? cJSON_Print(doc) : NULL;
	cJSON_Delete(doc);
	if (!text)
		return false;
	bool ok = true;
	/* the top-level key: "flows" in the capture summary and in findings
	 * sits deeper, behind more tabs */
	static const char mark[] = "\n\t\"flows\":\t[]";
	const char *at = stream ? strstr(text, mark) : NULL;
	if (stream && !at) {
		/* cannot happen with json_model.c's layout; stay correct if it changes */
		cJSON_free(text);
		doc = pd_report_to_json(r, o ? o->version : NULL);
		text = doc ? cJSON_Print(doc) : NULL;
		cJSON_Delete(doc);
		if (!text)
			return false;
	}
	if (at) {
		size_t head = (size_t)(at - text) + strlen(mark) - 1; /* up to and with '[' */
		ok = fwrite(text, 1, head, out) == head;
		GString *buf = g_string_sized_new(PD_R_SPILL + 4096);
		for (guint i = 0; ok && i < r->flows->len; i++) {
			if (i)
				g_string_append(buf, ", ");
			ok = put_row(&g_array_index(r->flows, pd_flow_row, i), buf) && pd_r_spill(buf, out);
		}
		ok = ok && fwrite(buf->str, 1, buf->len, out) == buf->len;
		g_string_free(buf, TRUE);
		ok = ok && fputs(text + head, out) >= 0;
	} else {
		ok = fputs(text, out) >= 0;
	}
	ok = ok && fputc('\n', out) != EOF;
	cJSON_free(text);
	return ok && !ferror(out);
}

const pd_renderer pd_fmt_json = {
	.name = "json",
	.render = render_json,
};
