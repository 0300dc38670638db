// SPDX-License-Identifier: GPL-2.0
/*
 * A fixed syscall workload for the benchmarks: N getppid() calls (the per-event cost rows), or
 * openat() of /dev/null until killed (the start-to-first-event rows need a steady event source).
 *
 *   syscall_loop getppid N | syscall_loop openat
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long i, n;
	int fd;

	if (argc == 3 && !strcmp(argv[1], "getppid")) {
		n = strtol(argv[2], NULL, 0);
		/* syscall() so that no libc caching can skip the kernel */
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "openat")) {
		for (;;) {
			fd = open("/dev/null", O_RDONLY);
			if (fd >= 0)
				close(fd);
			usleep(200);
		}
	}
	fprintf(stderr, "usage: syscall_loop getppid N | syscall_loop openat\n");
	return 2;
}
