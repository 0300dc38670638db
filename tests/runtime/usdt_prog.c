// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of usdt.test: N rounds of USDT probes with known arguments (registers,
 * stack memory at -O0, constants, a global read through %rip) and one probe behind a semaphore.
 * usage: usdt_prog ROUNDS MESSAGE [SLEEP_US]
 */
#define _SDT_HAS_SEMAPHORES 1
#include <stdlib.h>
#include <sys/sdt.h>
#include <unistd.h>

unsigned short aot_args_semaphore __attribute__((unused, section(".probes")));
unsigned short aot_gated_semaphore __attribute__((unused, section(".probes")));
unsigned short aot_twice_semaphore __attribute__((unused, section(".probes")));
volatile long aot_global = 77;

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1;
	const char *msg = argc > 2 ? argv[2] : "none";
	useconds_t pause = argc > 3 ? (useconds_t)atoi(argv[3]) : 20000;

	for (int i = 0; i < rounds; i++) {
		long big = 1234567890123L + i;
		short neg = (short)(-100 - i);

		DTRACE_PROBE6(aot, args, i, -7, big, msg, aot_global, neg);
		/* Only a tracer sets the semaphore: untraced, this probe costs a test and a jump.
		 */
		if (aot_gated_semaphore)
			DTRACE_PROBE1(aot, gated, i * 10);
		/* One probe, two locations with their own argument specs. */
		if (i % 2)
			DTRACE_PROBE2(aot, twice, 1, i);
		else
			DTRACE_PROBE2(aot, twice, 2, big);
		usleep(pause);
	}
	return 0;
}
