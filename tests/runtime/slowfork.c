// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim for tracepoint.test: the process's first fork() gets SIGHUP while the
 * fork system call runs, that is while glibc holds its atfork and malloc locks. The fork is made
 * slow with many small mappings (the kernel copies each one), and a timer armed by the
 * fork's prepare handler sends the signal a moment later. A signal handler that itself calls
 * fork() deadlocks there.
 *
 * SLOWFORK_MAPS: how many mappings to add (default 0: none, no timer).
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static timer_t slowfork_timer;
static int slowfork_armed;

static void slowfork_prepare(void)
{
	struct itimerspec its = { .it_value = { .tv_nsec = 1000000 } };

	if (slowfork_armed++ == 0)
		timer_settime(slowfork_timer, 0, &its, NULL);
}

__attribute__((constructor)) static void slowfork_init(void)
{
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGHUP };
	const char *env = getenv("SLOWFORK_MAPS");
	long i, n = env ? atol(env) : 0;
	long page = 4096;
	char *p;

	if (n <= 0)
		return;
	/* Every other page writable, so that neighbours do not merge into one mapping. */
	p = mmap(NULL, 2 * n * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	for (i = 0; i < n; i++)
		mprotect(p + 2 * i * page, page, PROT_READ | PROT_WRITE);
	if (timer_create(CLOCK_MONOTONIC, &sev, &slowfork_timer) == 0)
		pthread_atfork(slowfork_prepare, NULL, NULL);
}
