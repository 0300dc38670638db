// SPDX-License-Identifier: GPL-2.0
/*
 * -c CMD: the command is forked before the probes attach and waits on a pipe; once they are
 * attached it is let go to exec, so its very first instructions are traced. The run ends when
 * it exits, which a pidfd in the event loop's poll set tells.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt.h"

int rt_child_start(struct rt_child *c, char *const *argv, const void *sigmask,
		   const struct output *out)
{
	int fds[2], err;
	pid_t pid, parent = getpid();
	char go;

	c->pid = 0;
	c->go_fd = c->pidfd = -1;
	c->exited = false;
	c->out = out;
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(fds[0]);
		close(fds[1]);
		return err;
	}
	if (pid == 0) {
		close(fds[1]);
		/* However we end (a second Ctrl-C exits at once, a crash), the command gets SIGTERM
		 * as it does from rt_child_stop. */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
			_exit(127);
		sigprocmask(SIG_SETMASK, sigmask, NULL);
		/* EOF without the byte: the run failed before attaching; do not run at all. */
		if (read(fds[0], &go, 1) != 1)
			_exit(127);
		close(fds[0]);
		execvp(argv[0], argv);
		rt_report(out, RT_ERROR, "cannot run %s: %s", argv[0], strerror(errno));
		_exit(127);
	}
	close(fds[0]);
	c->pid = pid;
	c->go_fd = fds[1];
	c->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	return 0;
}

void rt_child_go(struct rt_child *c)
{
	char go = 'g';

	if (c->go_fd < 0)
		return;
	if (write(c->go_fd, &go, 1) != 1)
		rt_report(c->out, RT_WARN, "could not start the command: %s", strerror(errno));
	close(c->go_fd);
	c->go_fd = -1;
}

bool rt_child_done(struct rt_child *c)
{
	int status;

	if (!c->pid || c->exited)
		return c->exited;
	if (waitpid(c->pid, &status, WNOHANG) == c->pid)
		c->exited = true;
	return c->exited;
}

void rt_child_stop(struct rt_child *c)
{
	int status;

	if (!c->pid)
		return;
	if (c->go_fd >= 0) {
		close(c->go_fd); /* never started: it exits on EOF */
		c->go_fd = -1;
	} else if (!rt_child_done(c)) {
		kill(c->pid, SIGTERM);
	}
	if (!c->exited)
		waitpid(c->pid, &status, 0);
	c->exited = true;
	if (c->pidfd >= 0)
		close(c->pidfd);
	c->pidfd = -1;
	c->pid = 0;
}
