/* SPDX-License-Identifier: GPL-2.0 */
/* An inline function whose code lands in srcline_prog.c's compilation unit. */
static inline long half(long x)
{
	return x / 2; /* MARK_HEADER */
}
