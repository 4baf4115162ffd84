/* Helpers shared by the criterion tests. */
#ifndef PD_TESTUTIL_H
#define PD_TESTUTIL_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>
#include <math.h>

/* Absolute path of a file under the source tree / ../shared (g_free it). */
char *pd_test_src(const char *rel);
char *pd_test_shared(const char *rel);

/* Runs the pcapdoc binary with argv (NULL-terminated, without argv[0]);
 * captures stdout and stderr (g_free them) and returns the exit status,
 * or -1 if it could not run or died from a signal. */
int pd_test_run(char **out, char **err, const char *const *argv);

/* Runs `pcapdoc --format json ARGS... FILE` and parses stdout; NULL on
 * failure. Caller cJSON_Delete()s. */
cJSON *pd_test_json(const char *capture_rel, const char *const *extra_args);

/* Memory limits in tests are for a plain build; sanitizers multiply the
 * footprint (ASan's shadow memory and quarantine), so limits scale by this. */
long pd_test_rss_factor(void);

/* Same for a capture given by absolute path. */
cJSON *pd_test_json_abs(const char *capture_path, const char *const *extra_args);
/* The JSON report of a public trace (rel below PD_SHARED), or NULL when the
 * shared traces are not here: the caller skips its test then. */
cJSON *pd_test_public(const char *rel);

/* Every capture file (.pcap, .pcapng, .gz) below dir, sorted; g_free'd paths. */
GPtrArray *pd_test_list_captures(const char *dir);

/* Findings with the given id in a JSON report (count) and the n-th one. */
int pd_test_count_findings(const cJSON *report, const char *id);
const cJSON *pd_test_finding(const cJSON *report, const char *id, int n);
/* One problem on several flows is one finding whose members are each
 * flow's part. The parts of id: every member of every finding with that
 * id, or the finding itself where it has no members (one flow, or made
 * capture-wide as it is); n-th of them, in report order. A member has
 * "flow" (one flow_ref) where a finding has "flows". */
int pd_test_count_parts(const cJSON *report, const char *id);
const cJSON *pd_test_part(const cJSON *report, const char *id, int n);
/* The part of id whose flow has that client port, or NULL. */
const cJSON *pd_test_part_for_port(const cJSON *report, const char *id, int client_port);
/* The finding of id that holds part (itself, or the one it is a member of). */
const cJSON *pd_test_parent(const cJSON *report, const char *id, const cJSON *part);
/* The value of a finding's metric; the test fails when it is missing or
 * not a number. */
double pd_test_metric(const cJSON *finding, const char *key);

/* Accessors that fail the test when the report lacks what they read. */
cJSON *pd_test_report(const char *capture_rel); /* pd_test_json, asserted */
const char *pd_test_str(const cJSON *o, const char *key);
double pd_test_num(const cJSON *o, const char *key);
const char *pd_test_setting(const cJSON *finding, int n); /* the n-th ranked setting's name */
double pd_test_first_frame(const cJSON *finding);
double pd_test_client_port(const cJSON *finding); /* of its first flow */
bool pd_test_has_example(const cJSON *finding, double frame);

#define PD_TEST_NEAR(a, b, tol)                                                                       \
	cr_assert(fabs((a) - (b)) <= (tol), "%s = %g, expected %g +- %g", #a, (double)(a), (double)(b), \
		  (double)(tol))
/* Findings at or above "warning". */
int pd_test_count_at_least(const cJSON *report, const char *severity);

/* A thread that calls fn(arg) over and over until stopped, yielding
 * whenever it returns false: another thread doing chores all the time,
 * the most chances to race with the code under test. */
typedef bool (*pd_test_chore_fn)(void *arg);
typedef struct pd_test_spinner pd_test_spinner;
pd_test_spinner *pd_test_spinner_start(pd_test_chore_fn fn, void *arg);
/* Stops and joins it; returns how many calls returned true. */
guint pd_test_spinner_stop(pd_test_spinner *sp);

#endif
