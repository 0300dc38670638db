// SPDX-License-Identifier: GPL-2.0
/*
 * Peak RSS of a command's own process, not of its children:
 *
 *     peak_rss [-o FILE] CMD ARGS...
 *
 * writes "OWN_KIB TREE_KIB USER_S SYSTEM_S" to FILE (default stderr) when CMD has exited, and
 * exits with CMD's status. /usr/bin/time's %M (wait4's ru_maxrss) is the largest of the
 * process and every child it waited for, so a compiler that parses C in a short-lived child
 * shows the child's peak there. OWN_KIB is the process's VmHWM read at its exit (a ptrace exit
 * stop, where its memory is still mapped); TREE_KIB is /usr/bin/time's figure. CMD's own
 * execs (a wrapper that execs the real program, as tests/peers/bpftrace-0.27 does) stay the
 * same process, and its children are not traced.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static long vm_hwm(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			kib = strtol(line + 6, NULL, 10);
	fclose(f);
	return kib;
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	struct rusage ru;
	long own = -1;
	int status, argi = 1;
	pid_t pid;
	FILE *f = stderr;

	if (argc > 2 && !strcmp(argv[1], "-o")) {
		out = argv[2];
		argi = 3;
	}
	if (argi >= argc) {
		fprintf(stderr, "usage: peak_rss [-o FILE] CMD ARGS...\n");
		return 2;
	}
	pid = fork();
	if (pid < 0)
		return perror("fork"), 2;
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(126);
		raise(SIGSTOP);
		execvp(argv[argi], argv + argi);
		_exit(127);
	}
	/* the child stopped itself: from here on its exit (and execs) stop it */
	if (waitpid(pid, &status, 0) < 0 || !WIFSTOPPED(status))
		return 2;
	ptrace(PTRACE_SETOPTIONS, pid, NULL,
	       (void *)(long)(PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL));
	ptrace(PTRACE_CONT, pid, NULL, NULL);
	for (;;) {
		int sig = 0;

		if (wait4(pid, &status, 0, &ru) < 0) {
			if (errno == EINTR)
				continue;
			return 2;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status))
			break;
		if (!WIFSTOPPED(status))
			continue;
		if (status >> 8 == (SIGTRAP | PTRACE_EVENT_EXIT << 8))
			own = vm_hwm(pid);
		else if (status >> 16 == 0)
			sig = WSTOPSIG(status); /* a signal for the process: pass it on */
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
	}
	if (out && !(f = fopen(out, "we")))
		return perror(out), 2;
	fprintf(f, "%ld %ld %.2f %.2f\n", own, ru.ru_maxrss,
		ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	if (out)
		fclose(f);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
