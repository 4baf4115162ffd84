/* pcapdoc capture [-i IF] [-w FILE] [-c N] [-G S] [filter]: the host
 * snapshots, tcpdump until Ctrl-C (or -c / -G), the snapshots again; FILE
 * and FILE.host/ side by side, and the pcapdoc command to read them. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "host/collect.h"

extern char **environ;

/* Read-only, every one: nstat -s does not even update its history file. */
const pd_collect_cmd pd_collect_cmds[] = {
	{"sysctl", {"sysctl", "-a", NULL}, false},
	{"nstat", {"nstat", "-asz", NULL}, false},
	{"ss", {"ss", "-tmina", NULL}, true},
	{"conntrack-S", {"conntrack", "-S", NULL}, false},
	{"conntrack-C", {"conntrack", "-C", NULL}, false},
	{"ipaddr", {"ip", "addr", NULL}, false},
	{"iplink", {"ip", "-s", "link", NULL}, false},
	{"qdisc", {"tc", "-s", "qdisc", NULL}, false},
	{"softnet", {"cat", "/proc/net/softnet_stat", NULL}, false},
	{"uname", {"uname", "-r", NULL}, false},
	{"hostname", {"hostname", NULL}, false},
};
const unsigned pd_collect_cmds_len = sizeof(pd_collect_cmds) / sizeof(pd_collect_cmds[0]);

#define COLLECT_MAX_DURING 300 /* ss snapshots while capturing: the first 5 minutes, each second */

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static bool dry_run(void)
{
	const char *d = getenv("PD_CAPTURE_DRYRUN");
	return d && *d && strcmp(d, "0");
}

static void print_argv(const char *const *argv)
{
	for (size_t i = 0; argv[i]; i++)
		printf("%s%s", i ? " " : "", argv[i]);
	printf("\n");
}

/* Runs argv with its standard output into path (prefixed by the time and
 * the command), standard error discarded. */
static void snapshot(const pd_collect_cmd *c, const char *dir, const char *when)
{
	if (dry_run()) {
		print_argv(c->argv);
		return;
	}
	char *path = g_strdup_printf("%s/%s.%s", dir, c->file, when);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		fprintf(stderr, "pcapdoc capture: cannot write %s: %s\n", path, g_strerror(errno));
		g_free(path);
		return;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	GString *hdr = g_string_new("");
	g_string_append_printf(hdr, "# time %lld.%03ld\n# cmd", (long long)ts.tv_sec, ts.tv_nsec / 1000000);
	for (size_t i = 0; c->argv[i]; i++)
		g_string_append_printf(hdr, " %s", c->argv[i]);
	g_string_append_c(hdr, '\n');
	if (write(fd, hdr->str, hdr->len) < 0)
		fprintf(stderr, "pcapdoc capture: cannot write %s\n", path);
	g_string_free(hdr, TRUE);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd, STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	pid_t pid;
	if (posix_spawnp(&pid, c->argv[0], &fa, NULL, (char *const *)c->argv, environ) == 0) {
		int st;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(fd);
	g_free(path);
}

static void snapshots(const char *dir, const char *when)
{
	for (unsigned i = 0; i < pd_collect_cmds_len; i++)
		snapshot(&pd_collect_cmds[i], dir, when);
}

static void usage(void)
{
	fprintf(stderr, "usage: pcapdoc capture [-i IF] [-w FILE] [-c COUNT] [-G SECONDS] [TCPDUMP FILTER]\n"
			"Takes host snapshots (sysctl -a, nstat, ss, conntrack, ip addr, ip -s link, tc -s qdisc,\n"
			"softnet_stat, uname, hostname), runs tcpdump until Ctrl-C, -c packets or -G seconds,\n"
			"takes them again, and writes FILE and FILE.host/. Every command it runs only reads.\n");
}

int pd_collect_main(int argc, char **argv)
{
	const char *ifc = "any", *file = "capture.pcap", *count = NULL, *secs = NULL;
	int i = 1;
	for (; i < argc; i++) {
		const char *a = argv[i];
		bool more = i + 1 < argc;
		if (!strcmp(a, "-i") && more)
			ifc = argv[++i];
		else if (!strcmp(a, "-w") && more)
			file = argv[++i];
		else if (!strcmp(a, "-c") && more)
			count = argv[++i];
		else if (!strcmp(a, "-G") && more)
			secs = argv[++i];
		else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage();
			return 0;
		} else if (a[0] == '-') {
			usage();
			return 2;
		} else
			break;
	}
	if ((count && !g_ascii_string_to_unsigned(count, 10, 1, 1000000000, NULL, NULL)) ||
	    (secs && !g_ascii_string_to_unsigned(secs, 10, 1, 86400, NULL, NULL))) {
		fprintf(stderr, "pcapdoc capture: -c and -G take a positive number\n");
		return 2;
	}
	char *dir = g_strconcat(file, ".host", NULL);
	if (!dry_run() && g_mkdir_with_parents(dir, 0755) != 0) {
		fprintf(stderr, "pcapdoc capture: cannot make %s: %s\n", dir, g_strerror(errno));
		g_free(dir);
		return 3;
	}
	GPtrArray *td = g_ptr_array_new();
	g_ptr_array_add(td, "tcpdump");
	g_ptr_array_add(td, "-i");
	g_ptr_array_add(td, (char *)ifc);
	g_ptr_array_add(td, "-n");
	g_ptr_array_add(td, "-w");
	g_ptr_array_add(td, (char *)file);
	if (count) {
		g_ptr_array_add(td, "-c");
		g_ptr_array_add(td, (char *)count);
	}
	if (secs) {
		g_ptr_array_add(td, "-G");
		g_ptr_array_add(td, (char *)secs);
		g_ptr_array_add(td, "-W");
		g_ptr_array_add(td, "1");
	}
	for (; i < argc; i++)
		g_ptr_array_add(td, argv[i]);
	g_ptr_array_add(td, NULL);

	snapshots(dir, "before");
	int rc = 0;
	if (dry_run()) {
		print_argv((const char *const *)td->pdata);
	} else {
		/* Ctrl-C reaches tcpdump (same process group) and this process,
		 * which only notes it and waits for tcpdump to finish the file */
		struct sigaction sa = {0};
		sa.sa_handler = on_signal;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		pid_t pid;
		if (posix_spawnp(&pid, "tcpdump", NULL, NULL, (char *const *)td->pdata, environ) != 0) {
			fprintf(stderr, "pcapdoc capture: cannot run tcpdump: %s\n", g_strerror(errno));
			rc = 3;
		} else {
			unsigned n = 0;
			int st = 0;
			for (;;) {
				pid_t w = waitpid(pid, &st, WNOHANG);
				if (w == pid || (w < 0 && errno != EINTR))
					break;
				if (interrupted)
					kill(pid, SIGINT);
				if (!interrupted && n < COLLECT_MAX_DURING) {
					char when[24];
					snprintf(when, sizeof(when), "during%03u", n++);
					for (unsigned k = 0; k < pd_collect_cmds_len; k++)
						if (pd_collect_cmds[k].during)
							snapshot(&pd_collect_cmds[k], dir, when);
				}
				sleep(1);
			}
			if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
				rc = 3;
		}
	}
	snapshots(dir, "after");
	if (dry_run() || rc == 0)
		printf("pcapdoc --host %s %s\n", dir, file);
	g_ptr_array_free(td, TRUE);
	g_free(dir);
	return rc;
}
