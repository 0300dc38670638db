// SPDX-License-Identifier: GPL-2.0
/*
 * A program for uprobe:BINARY@FILE:LINE (uprobe_srcline.test): built with -g, it calls step()
 * as often as its argument says. The test finds lines by the markers in their comments, so
 * edits above them move nothing it relies on.
 */
#include <stdlib.h>

#include "srcline_prog.h"

volatile long sink;

__attribute__((noinline)) long step(long i)
{
	long x = i * 3;

	sink += x;
	if (x % 2)		 /* MARK_ODD */
		sink -= half(x); /* MARK_HALF */
	return sink;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10;

	for (long i = 0; i < n; i++)
		step(i); /* MARK_CALL */
	return 0;
}
