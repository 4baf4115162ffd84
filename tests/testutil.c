/* Helpers shared by the criterion tests (see testutil.h). Paths come from
 * the environment meson sets: PD_SOURCE_ROOT, PD_SHARED, PD_PCAPDOC. */
/* testutil.h uses GPtrArray without including glib.h */
#include <criterion/criterion.h>
#include <glib.h>

#include "testutil.h"
#include <string.h>
#include <sys/wait.h>

static char *from_env(const char *var, const char *fallback, const char *rel)
{
	const char *root = g_getenv(var);
	if (!root || !*root)
		root = fallback;
	char *abs = g_canonicalize_filename(root, NULL);
	char *path = g_build_filename(abs, rel, NULL);
	g_free(abs);
	return path;
}

char *pd_test_src(const char *rel)
{
	return from_env("PD_SOURCE_ROOT", ".", rel);
}

char *pd_test_shared(const char *rel)
{
	return from_env("PD_SHARED", "../shared", rel);
}

int pd_test_run(char **out, char **err, const char *const *argv)
{
	const char *bin = g_getenv("PD_PCAPDOC");
	if (out)
		*out = NULL;
	if (err)
		*err = NULL;
	if (!bin || !*bin)
		return -1;

	GPtrArray *args = g_ptr_array_new();
	g_ptr_array_add(args, (gpointer)bin);
	for (size_t i = 0; argv && argv[i]; i++)
		g_ptr_array_add(args, (gpointer)argv[i]);
	g_ptr_array_add(args, NULL);

	char *o = NULL, *e = NULL;
	int wait_status = 0;
	GError *gerr = NULL;
	gboolean ran = g_spawn_sync(NULL, (gchar **)args->pdata, NULL, G_SPAWN_DEFAULT, NULL,
				    NULL, &o, &e, &wait_status, &gerr);
	g_ptr_array_free(args, TRUE);
	if (!ran) {
		if (err)
			*err = g_strdup(gerr ? gerr->message : "spawn failed");
		g_clear_error(&gerr);
		return -1;
	}
	if (out)
		*out = o;
	else
		g_free(o);
	if (err)
		*err = e;
	else
		g_free(e);
	if (WIFEXITED(wait_status))
		return WEXITSTATUS(wait_status);
	return -1;
}

cJSON *pd_test_json(const char *capture_rel, const char *const *extra_args)
{
	char *cap = pd_test_src(capture_rel);
	cJSON *doc = pd_test_json_abs(cap, extra_args);
	g_free(cap);
	return doc;
}

cJSON *pd_test_json_abs(const char *capture_path, const char *const *extra_args)
{
	char *cap = g_strdup(capture_path);
	GPtrArray *args = g_ptr_array_new();
	g_ptr_array_add(args, (gpointer) "--format");
	g_ptr_array_add(args, (gpointer) "json");
	for (size_t i = 0; extra_args && extra_args[i]; i++)
		g_ptr_array_add(args, (gpointer)extra_args[i]);
	g_ptr_array_add(args, cap);
	g_ptr_array_add(args, NULL);

	char *out = NULL, *err = NULL;
	int st = pd_test_run(&out, &err, (const char *const *)args->pdata);
	g_ptr_array_free(args, TRUE);
	g_free(cap);
	cJSON *doc = NULL;
	/* 1 only means findings at or above --fail-on: the output is still a report */
	if ((st == 0 || st == 1) && out)
		doc = cJSON_Parse(out);
	g_free(out);
	g_free(err);
	return doc;
}

double pd_test_metric(const cJSON *finding, const char *key)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(finding, "metrics"), key);
	cr_assert_not_null(m, "metric %s missing", key);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, "value");
	cr_assert(cJSON_IsNumber(v), "metric %s is not a number", key);
	return v->valuedouble;
}

int pd_test_count_findings(const cJSON *report, const char *id)
{
	int n = 0;
	const cJSON *f;
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(report, "findings"))
	{
		const cJSON *fid = cJSON_GetObjectItemCaseSensitive(f, "id");
		if (cJSON_IsString(fid) && strcmp(fid->valuestring, id) == 0)
			n++;
	}
	return n;
}

const cJSON *pd_test_finding(const cJSON *report, const char *id, int n)
{
	const cJSON *f;
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(report, "findings"))
	{
		const cJSON *fid = cJSON_GetObjectItemCaseSensitive(f, "id");
		if (cJSON_IsString(fid) && strcmp(fid->valuestring, id) == 0 && n-- == 0)
			return f;
	}
	return NULL;
}

/* Calls back on each part of id until it returns true; returns that part. */
static const cJSON *each_part(const cJSON *report, const char *id,
			      bool (*cb)(const cJSON *parent, const cJSON *part, void *arg), void *arg)
{
	const cJSON *f;
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(report, "findings"))
	{
		const cJSON *fid = cJSON_GetObjectItemCaseSensitive(f, "id");
		if (!cJSON_IsString(fid) || strcmp(fid->valuestring, id))
			continue;
		const cJSON *members = cJSON_GetObjectItemCaseSensitive(f, "members");
		if (cJSON_GetArraySize(members) == 0) {
			if (cb(f, f, arg))
				return f;
			continue;
		}
		const cJSON *m;
		cJSON_ArrayForEach(m, members)
		{
			if (cb(f, m, arg))
				return m;
		}
	}
	return NULL;
}

static bool count_cb(const cJSON *parent, const cJSON *part, void *arg)
{
	(void)parent;
	(void)part;
	(*(int *)arg)++;
	return false;
}

int pd_test_count_parts(const cJSON *report, const char *id)
{
	int n = 0;
	each_part(report, id, count_cb, &n);
	return n;
}

static bool nth_cb(const cJSON *parent, const cJSON *part, void *arg)
{
	(void)parent;
	(void)part;
	return (*(int *)arg)-- == 0;
}

const cJSON *pd_test_part(const cJSON *report, const char *id, int n)
{
	return each_part(report, id, nth_cb, &n);
}

static bool port_cb(const cJSON *parent, const cJSON *part, void *arg)
{
	(void)parent;
	int want = *(int *)arg;
	const cJSON *one = cJSON_GetObjectItemCaseSensitive(part, "flow");
	if (one) {
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(one, "client"), "port");
		return cJSON_IsNumber(p) && p->valueint == want;
	}
	const cJSON *fl;
	cJSON_ArrayForEach(fl, cJSON_GetObjectItemCaseSensitive(part, "flows"))
	{
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(fl, "client"), "port");
		if (cJSON_IsNumber(p) && p->valueint == want)
			return true;
	}
	return false;
}

const cJSON *pd_test_part_for_port(const cJSON *report, const char *id, int client_port)
{
	return each_part(report, id, port_cb, &client_port);
}

typedef struct parent_arg {
	const cJSON *part, *parent;
} parent_arg;

static bool parent_cb(const cJSON *parent, const cJSON *part, void *arg)
{
	parent_arg *a = arg;
	if (part != a->part)
		return false;
	a->parent = parent;
	return true;
}

const cJSON *pd_test_parent(const cJSON *report, const char *id, const cJSON *part)
{
	parent_arg a = {part, NULL};
	each_part(report, id, parent_cb, &a);
	return a.parent;
}

static int rank(const char *s)
{
	if (!s)
		return -1;
	if (strcmp(s, "info") == 0)
		return 0;
	if (strcmp(s, "warning") == 0)
		return 1;
	if (strcmp(s, "error") == 0)
		return 2;
	return -1;
}

int pd_test_count_at_least(const cJSON *report, const char *severity)
{
	int min = rank(severity), n = 0;
	const cJSON *f;
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(report, "findings"))
	{
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(f, "severity");
		if (cJSON_IsString(s) && rank(s->valuestring) >= min)
			n++;
	}
	return n;
}

static bool is_capture(const char *name)
{
	return g_str_has_suffix(name, ".pcap") || g_str_has_suffix(name, ".pcapng") ||
	       g_str_has_suffix(name, ".gz");
}

static void collect(GPtrArray *out, const char *dir, int depth)
{
	if (depth > 16)
		return;
	GDir *d = g_dir_open(dir, 0, NULL);
	if (!d)
		return;
	const char *name;
	while ((name = g_dir_read_name(d))) {
		char *path = g_build_filename(dir, name, NULL);
		bool link = g_file_test(path, G_FILE_TEST_IS_SYMLINK);
		if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
			if (!link) /* directory links are not followed: no loops */
				collect(out, path, depth + 1);
		} else if (is_capture(name) && g_file_test(path, G_FILE_TEST_IS_REGULAR)) {
			g_ptr_array_add(out, path);
			path = NULL;
		}
		g_free(path);
	}
	g_dir_close(d);
}

static int cmp_path(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

GPtrArray *pd_test_list_captures(const char *dir)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
	if (dir)
		collect(out, dir, 0);
	g_ptr_array_sort(out, cmp_path);
	return out;
}

long pd_test_rss_factor(void)
{
	const char *s = g_getenv("PD_SANITIZE");
	return s && *s && strcmp(s, "none") != 0 ? 4 : 1;
}

struct pd_test_spinner {
	pd_test_chore_fn fn;
	void *arg;
	gint stop;
	guint done; /* calls that returned true */
	GThread *thread;
};

static gpointer spinner_main(gpointer data)
{
	pd_test_spinner *sp = data;
	while (!g_atomic_int_get(&sp->stop)) {
		if (sp->fn(sp->arg))
			sp->done++;
		else
			g_thread_yield();
	}
	return NULL;
}

pd_test_spinner *pd_test_spinner_start(pd_test_chore_fn fn, void *arg)
{
	pd_test_spinner *sp = g_new0(pd_test_spinner, 1);
	sp->fn = fn;
	sp->arg = arg;
	sp->thread = g_thread_new("test-spinner", spinner_main, sp);
	return sp;
}

guint pd_test_spinner_stop(pd_test_spinner *sp)
{
	g_atomic_int_set(&sp->stop, 1);
	g_thread_join(sp->thread);
	guint done = sp->done;
	g_free(sp);
	return done;
}


cJSON *pd_test_report(const char *capture_rel)
{
	cJSON *r = pd_test_json(capture_rel, NULL);
	cr_assert_not_null(r, "pcapdoc failed on %s", capture_rel);
	return r;
}

const char *pd_test_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	cr_assert(cJSON_IsString(v), "%s not a string", key);
	return v->valuestring;
}

double pd_test_num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	cr_assert(cJSON_IsNumber(v), "%s not a number", key);
	return v->valuedouble;
}

const char *pd_test_setting(const cJSON *finding, int n)
{
	const cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(finding, "settings"), n);
	cr_assert_not_null(s, "no setting %d", n);
	return pd_test_str(s, "name");
}

double pd_test_first_frame(const cJSON *finding)
{
	const cJSON *ev = cJSON_GetObjectItemCaseSensitive(finding, "evidence");
	return pd_test_num(cJSON_GetObjectItemCaseSensitive(ev, "first"), "frame");
}

double pd_test_client_port(const cJSON *finding)
{
	const cJSON *fl = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(finding, "flows"), 0);
	cr_assert_not_null(fl, "finding has no flow");
	return pd_test_num(cJSON_GetObjectItemCaseSensitive(fl, "client"), "port");
}

bool pd_test_has_example(const cJSON *finding, double frame)
{
	const cJSON *ev = cJSON_GetObjectItemCaseSensitive(finding, "evidence");
	const cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(ev, "examples"))
	if (pd_test_num(e, "frame") == frame)
		return true;
	return false;
}

cJSON *pd_test_public(const char *rel)
{
	char *path = pd_test_shared(rel);
	if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
		g_free(path);
		return NULL;
	}
	cJSON *r = pd_test_json_abs(path, NULL);
	cr_assert_not_null(r, "pcapdoc failed on %s", path);
	g_free(path);
	return r;
}
