// SPDX-License-Identifier: GPL-2.0
/*
 * Probe-name wildcards. bpftrace matches attach points with shell globs; fnmatch(3) is exactly
 * that, so the probe types share it rather than each growing its own matcher.
 */
#include <fnmatch.h>
#include <string.h>

#include "probe.h"

bool probe_wildcard_match(const char *pattern, const char *s)
{
	return fnmatch(pattern, s, 0) == 0;
}

bool probe_has_wildcard(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}
