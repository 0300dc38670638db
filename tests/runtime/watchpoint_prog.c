// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of watchpoint.test: prints the address of a variable, then writes
 * ROUNDS values to it, one every 20 ms.  usage: watchpoint_prog ROUNDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

volatile long aot_watched __attribute__((aligned(8)));

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100;

	printf("%p\n", (void *)&aot_watched);
	fflush(stdout);
	for (int i = 0; i < rounds; i++) {
		aot_watched = i;
		usleep(20000);
	}
	return 0;
}
