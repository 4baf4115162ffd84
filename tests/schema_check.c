/* See schema_check.h. Written for the report schema, strict about the
 * keywords it supports; good enough to keep docs/report.schema.json and
 * json_model.c honest with each other. */
#include "schema_check.h"

#include <math.h>
#include <string.h>

typedef struct vctx {
	const cJSON *root;
	GString *errors;
	int n_errors;
	int depth;
} vctx;

/* Records "path: msg arg". */
static void fail(vctx *v, const char *path, const char *msg, const char *arg)
{
	v->n_errors++;
	if (v->errors)
		g_string_append_printf(v->errors, "%s: %s%s\n", *path ? path : "/", msg,
				       arg ? arg : "");
}

static bool type_is(const cJSON *d, const char *t)
{
	if (strcmp(t, "object") == 0)
		return cJSON_IsObject(d);
	if (strcmp(t, "array") == 0)
		return cJSON_IsArray(d);
	if (strcmp(t, "string") == 0)
		return cJSON_IsString(d);
	if (strcmp(t, "boolean") == 0)
		return cJSON_IsBool(d);
	if (strcmp(t, "null") == 0)
		return cJSON_IsNull(d);
	if (strcmp(t, "number") == 0)
		return cJSON_IsNumber(d);
	if (strcmp(t, "integer") == 0)
		return cJSON_IsNumber(d) && isfinite(d->valuedouble) &&
		       floor(d->valuedouble) == d->valuedouble;
	return false;
}

static const cJSON *resolve(vctx *v, const char *ref)
{
	const char *prefix = "#/$defs/";
	if (strncmp(ref, prefix, strlen(prefix)) != 0)
		return NULL;
	const cJSON *defs = cJSON_GetObjectItemCaseSensitive(v->root, "$defs");
	return cJSON_GetObjectItemCaseSensitive(defs, ref + strlen(prefix));
}

static void validate(vctx *v, const cJSON *s, const cJSON *d, const char *path);

static void check_type(vctx *v, const cJSON *s, const cJSON *d, const char *path, bool *ok)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(s, "type");
	if (!t)
		return;
	bool match = false;
	if (cJSON_IsString(t)) {
		match = type_is(d, t->valuestring);
	} else if (cJSON_IsArray(t)) {
		const cJSON *e;
		cJSON_ArrayForEach(e, t) if (cJSON_IsString(e) && type_is(d, e->valuestring)) match = true;
	}
	if (!match) {
		char *p = cJSON_PrintUnformatted(t);
		fail(v, path, "wrong type, expected ", p);
		cJSON_free(p);
		*ok = false;
	}
}

static void validate(vctx *v, const cJSON *s, const cJSON *d, const char *path)
{
	if (!cJSON_IsObject(s))
		return;
	if (++v->depth > 64) {
		fail(v, path, "schema too deep", NULL);
		v->depth--;
		return;
	}
	const cJSON *ref = cJSON_GetObjectItemCaseSensitive(s, "$ref");
	if (cJSON_IsString(ref)) {
		const cJSON *target = resolve(v, ref->valuestring);
		if (!target)
			fail(v, path, "unresolvable $ref ", ref->valuestring);
		else
			validate(v, target, d, path);
	}

	bool ok = true;
	check_type(v, s, d, path, &ok);
	if (!ok) {
		v->depth--;
		return;
	}

	const cJSON *en = cJSON_GetObjectItemCaseSensitive(s, "enum");
	if (cJSON_IsArray(en)) {
		bool found = false;
		const cJSON *e;
		cJSON_ArrayForEach(e, en) if (cJSON_Compare(e, d, true)) found = true;
		if (!found) {
			char *p = cJSON_PrintUnformatted(d);
			fail(v, path, "value not in enum: ", p);
			cJSON_free(p);
		}
	}
	const cJSON *cst = cJSON_GetObjectItemCaseSensitive(s, "const");
	if (cst && !cJSON_Compare(cst, d, true))
		fail(v, path, "value differs from const", NULL);

	if (cJSON_IsNumber(d)) {
		const cJSON *mn = cJSON_GetObjectItemCaseSensitive(s, "minimum");
		const cJSON *mx = cJSON_GetObjectItemCaseSensitive(s, "maximum");
		if (cJSON_IsNumber(mn) && d->valuedouble < mn->valuedouble)
			fail(v, path, "below minimum", NULL);
		if (cJSON_IsNumber(mx) && d->valuedouble > mx->valuedouble)
			fail(v, path, "above maximum", NULL);
	}
	if (cJSON_IsString(d)) {
		const cJSON *pat = cJSON_GetObjectItemCaseSensitive(s, "pattern");
		if (cJSON_IsString(pat) &&
		    !g_regex_match_simple(pat->valuestring, d->valuestring, 0, 0))
			fail(v, path, "does not match pattern: ", d->valuestring);
	}

	if (cJSON_IsObject(d)) {
		const cJSON *req = cJSON_GetObjectItemCaseSensitive(s, "required");
		const cJSON *e;
		cJSON_ArrayForEach(e, req)
		{
			if (cJSON_IsString(e) && !cJSON_GetObjectItemCaseSensitive(d, e->valuestring))
				fail(v, path, "missing required property ", e->valuestring);
		}
		const cJSON *props = cJSON_GetObjectItemCaseSensitive(s, "properties");
		const cJSON *addl = cJSON_GetObjectItemCaseSensitive(s, "additionalProperties");
		const cJSON *member;
		cJSON_ArrayForEach(member, d)
		{
			char *sub = g_strdup_printf("%s/%s", path, member->string);
			const cJSON *ps = cJSON_GetObjectItemCaseSensitive(props, member->string);
			if (ps)
				validate(v, ps, member, sub);
			else if (cJSON_IsFalse(addl))
				fail(v, path, "unexpected property ", member->string);
			else if (cJSON_IsObject(addl))
				validate(v, addl, member, sub);
			g_free(sub);
		}
	}
	if (cJSON_IsArray(d)) {
		const cJSON *items = cJSON_GetObjectItemCaseSensitive(s, "items");
		if (cJSON_IsObject(items)) {
			int i = 0;
			const cJSON *e;
			cJSON_ArrayForEach(e, d)
			{
				char *sub = g_strdup_printf("%s/%d", path, i++);
				validate(v, items, e, sub);
				g_free(sub);
			}
		}
	}
	v->depth--;
}

bool pd_schema_validate(const cJSON *schema, const cJSON *doc, GString *errors)
{
	vctx v = {.root = schema, .errors = errors};
	validate(&v, schema, doc, "");
	return v.n_errors == 0;
}
