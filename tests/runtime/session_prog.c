// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program of session.test: ROUNDS rounds of calls to three functions with known
 * arguments and return values, for entry and return probes on one wildcard (sess_*).
 * usage: session_prog ROUNDS
 */
#include <stdlib.h>

__attribute__((noinline)) int sess_add(int a)
{
	__asm__ volatile("" ::: "memory");
	return a + 1;
}

__attribute__((noinline)) int sess_double(int a)
{
	__asm__ volatile("" ::: "memory");
	return a * 2;
}

/* Called once a round from sess_outer: nested calls of one session. */
__attribute__((noinline)) long sess_outer(int a)
{
	__asm__ volatile("" ::: "memory");
	return sess_add(a) + 100;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1;
	long sum = 0;

	for (int i = 0; i < rounds; i++)
		sum += sess_add(i) + sess_double(i) + sess_outer(i);
	return sum == 0;
}
