/* pcapdoc capture: tcpdump between two sets of host snapshots
 * (collect.c). Every command it runs is in pd_collect_cmds or is tcpdump
 * writing the capture; all read-only (tests/test_host.c checks them
 * against an allowlist and the knowledge base's unsafe-command rules). */
#ifndef PD_COLLECT_H
#define PD_COLLECT_H

#include <stdbool.h>

#define PD_COLLECT_MAX_ARGS 6

typedef struct pd_collect_cmd {
	const char *file; /* written in FILE.host/ as <file>.<when> */
	const char *argv[PD_COLLECT_MAX_ARGS]; /* NULL-terminated */
	bool during; /* also taken every second while tcpdump runs (ss) */
} pd_collect_cmd;

extern const pd_collect_cmd pd_collect_cmds[];
extern const unsigned pd_collect_cmds_len;

/* argv[0] is "capture". PD_CAPTURE_DRYRUN=1 in the environment: prints
 * every command it would run, one per line, and runs none. */
int pd_collect_main(int argc, char **argv);

#endif
