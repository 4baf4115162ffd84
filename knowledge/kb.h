/* The settings knowledge base: one entry per kernel, socket, route,
 * application or middlebox setting a finding can point at. Data only
 * (kb.c), built into the binary, shared by all detectors and reports. */
#ifndef PD_KB_H
#define PD_KB_H

#include <stdbool.h>
#include <stddef.h>

typedef enum pd_kb_kind {
	PD_KB_SYSCTL = 0,
	PD_KB_SOCKOPT,
	PD_KB_ROUTE, /* ip route attribute */
	PD_KB_APP, /* application setting or behaviour */
	PD_KB_FIREWALL, /* firewall, NAT or other middlebox */
	PD_KB_INTERFACE, /* NIC / link property (MTU, offloads) */
	PD_KB_REGISTRY, /* Windows registry value */
	PD_KB_NETSH, /* Windows netsh int tcp global parameter */
} pd_kb_kind;

typedef enum pd_kb_side {
	PD_SIDE_CLIENT = 0,
	PD_SIDE_SERVER,
	PD_SIDE_BOTH,
	PD_SIDE_SENDER,
	PD_SIDE_RECEIVER,
	PD_SIDE_PATH,
} pd_kb_side;

#define PD_KB_MAX_CAUSES 12

typedef struct pd_setting {
	const char *name; /* canonical: "net.core.somaxconn", "TCP_NODELAY" */
	pd_kb_kind kind;
	pd_kb_side side;
	/* the system it belongs to: "windows", "macos"; NULL for Linux (and
	 * for what any system has: socket options, applications, the path) */
	const char *os;
	const char *default_value; /* on current Linux (or os); NULL when not applicable */
	const char *check; /* command that shows its value or effect */
	const char *check_zh; /* the same in Chinese: commands, names and placeholders as
			       * in check, the prose around them translated; equal to
			       * check when check is only commands */
	const char *change_en, *change_zh; /* what to change */
	const char *caveat_en, *caveat_zh; /* traps, myths, arithmetic */
	const char *removed_in; /* kernel version that removed it, or NULL */
	const char *added_in; /* kernel version that added it, NULL when older than 4.19 */
	/* The finding ids (knowledge/catalog.c) this setting can cause:
	 * its value, or its absence, can produce the pattern the finding
	 * reports, or sets the limit or the delay that pattern runs into.
	 * NULL-terminated. A finding may rank a setting only if the setting
	 * lists it here (tests/test_kb.c; pd_kb_can_cause). */
	const char *causes[PD_KB_MAX_CAUSES];
} pd_setting;

extern const pd_setting pd_kb[];
extern const size_t pd_kb_len;

const pd_setting *pd_kb_find(const char *name);
/* Whether the setting can cause the finding: false for an unknown
 * setting or a finding id its causes do not list. */
bool pd_kb_can_cause(const char *setting, const char *finding_id);
/* The check in the report's language (check_zh for Chinese, check when
 * an entry has none). */
const char *pd_kb_check(const pd_setting *s, bool zh);
const char *pd_kb_kind_name(pd_kb_kind k);
const char *pd_kb_side_name(pd_kb_side s);
/* "Windows", "macOS"; "Linux" for an entry without os */
const char *pd_kb_os_name(const pd_setting *s);

#endif
