/* --format json: the document from json_model.c, pretty-printed. */
#include "report/render.h"

static bool render_json(const pd_report *r, const pd_render_opts *o, FILE *out)
{
	cJSON *doc = pd_report_to_json(r, o ? o->version : NULL);
	char *text = doc ? cJSON_Print(doc) : NULL;
	cJSON_Delete(doc);
	if (!text)
		return false;
	bool ok = fputs(text, out) >= 0 && fputc('\n', out) != EOF;
	cJSON_free(text);
	return ok && !ferror(out);
}

const pd_renderer pd_fmt_json = {
	.name = "json",
	.render = render_json,
};
