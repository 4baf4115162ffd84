/* A small JSON Schema validator for the tests: the subset
 * docs/report.schema.json uses ($ref to #/$defs/..., type (name or list),
 * required, properties, additionalProperties (false or a schema), items,
 * enum, const, minimum, maximum, pattern). Unknown keywords are ignored. */
#ifndef PD_SCHEMA_CHECK_H
#define PD_SCHEMA_CHECK_H

#include <stdbool.h>
#include <cjson/cJSON.h>
#include <glib.h>

/* True when doc is valid. On failure, appends one line per error
 * ("/findings/0/severity: not in enum") to errors if non-NULL. */
bool pd_schema_validate(const cJSON *schema, const cJSON *doc, GString *errors);

#endif
