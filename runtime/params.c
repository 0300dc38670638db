// SPDX-License-Identifier: GPL-2.0
/*
 * Positional parameters of an object compiled for later: the runtime writes the ARGS of this
 * run into AOT_PARAMS_MAP before anything attaches (layout and rules in src/common/meta.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rt.h"

int rt_params_fill(struct rt *rt)
{
	struct bpf_map *map = bpf_object__find_map_by_name(rt->obj, AOT_PARAMS_MAP);
	const struct aot_run_opts *o = rt->opts;
	struct aot_param slot;
	uint32_t i, n;

	if (!map)
		return 0; /* the parameters, if any, were constants */
	n = bpf_map__max_entries(map);
	if (bpf_map__value_size(map) != sizeof(slot) || bpf_map__key_size(map) != 4 ||
	    n != rt->meta->nparams + 1) {
		rt_report(&rt->out, RT_ERROR, "%s: map %s does not have the layout of this aotrace",
			  o->obj_name, AOT_PARAMS_MAP);
		return -EINVAL;
	}
	/* as bpftrace: a parameter not given is 0, or "" as a string */
	if ((uint32_t)o->nparams < rt->meta->nparams)
		rt_report(
			&rt->out, RT_WARN,
			"%s: positional parameter $%u was not given (the program uses $1 to $%u): "
			"it is 0, or \"\" as a string",
			o->obj_name, (unsigned)o->nparams + 1, rt->meta->nparams);
	for (i = 0; i < n; i++) {
		const char *val = i && i <= (uint32_t)o->nparams ? o->params[i - 1] : "";
		char *end;
		long long v;

		memset(&slot, 0, sizeof(slot));
		if (i == 0) {
			slot.num = (uint64_t)o->nparams;
		} else {
			v = strtoll(val, &end, 0);
			slot.num = *val && !*end ? (uint64_t)v : 0;
			snprintf(slot.str, sizeof(slot.str), "%s", val);
		}
		if (bpf_map__update_elem(map, &i, sizeof(i), &slot, sizeof(slot), BPF_ANY)) {
			int err = -errno;

			rt_report(&rt->out, RT_ERROR, "could not set positional parameter $%u: %s",
				  i, strerror(-err));
			return err;
		}
	}
	return 0;
}
