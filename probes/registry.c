// SPDX-License-Identifier: GPL-2.0
/*
 * The one table of probe types. Adding a probe type is one file defining its struct
 * probe_type and one row here.
 */
#include <string.h>
#include <strings.h>

#include "probe.h"

extern const struct probe_type probe_begin, probe_end, probe_tracepoint, probe_interval,
	probe_uprobe, probe_uretprobe, probe_kprobe, probe_kretprobe, probe_kfunc, probe_kretfunc,
	probe_rawtracepoint, probe_profile, probe_software, probe_hardware, probe_usdt,
	probe_watchpoint, probe_tp_btf, probe_self, probe_test, probe_bench, probe_iter;

const struct probe_type *const probe_types[] = {
	&probe_begin,	   &probe_end,
	&probe_kprobe,	   &probe_kretprobe,
	&probe_kfunc,	   &probe_kretfunc,
	&probe_tracepoint, &probe_rawtracepoint,
	&probe_tp_btf,	   &probe_profile,
	&probe_interval,   &probe_software,
	&probe_hardware,   &probe_uprobe,
	&probe_uretprobe,  &probe_usdt,
	&probe_watchpoint, &probe_self,
	&probe_test,	   &probe_bench,
	&probe_iter,	   NULL,
};

/*
 * Names are case-insensitive, as in bpftrace 0.24 and later (begin, Tracepoint:, KPROBE:), but
 * an exact spelling wins and one-letter short forms keep their case: U: is usdt, u: uprobe.
 */
const struct probe_type *probe_type_find(const char *name)
{
	for (int exact = 1; exact >= 0; exact--) {
		for (const struct probe_type *const *pt = probe_types; *pt; pt++) {
			if (exact ? !strcmp((*pt)->name, name) : !strcasecmp((*pt)->name, name))
				return *pt;
			for (const char *const *sp = (*pt)->spellings; sp && *sp; sp++)
				if (exact ? !strcmp(*sp, name)
					  : strlen(*sp) > 1 && !strcasecmp(*sp, name))
					return *pt;
		}
	}
	return NULL;
}
