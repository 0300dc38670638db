// SPDX-License-Identifier: GPL-2.0
/* A sorted index of a BTF's functions by name (btf_funcs.h). */
#include <bpf/btf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "btf_funcs.h"

static int btf_funcs_cmp(const void *x, const void *y, void *btf)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	int c = strcmp(btf__name_by_offset(btf, btf__type_by_id(btf, a)->name_off),
		       btf__name_by_offset(btf, btf__type_by_id(btf, b)->name_off));

	return c ? c : (a > b) - (a < b);
}

static int btf_funcs_make(struct btf_funcs *ix, const struct btf *btf)
{
	uint32_t n = btf__type_cnt(btf);
	/* a module's BTF, split over vmlinux's: its own functions only */
	const struct btf *base = btf__base_btf(btf);
	uint32_t first = base ? btf__type_cnt(base) : 1;

	btf_funcs_free(ix);
	ix->ids = malloc(n * sizeof(*ix->ids));
	if (!ix->ids)
		return -ENOMEM;
	for (uint32_t id = first; id < n; id++)
		if (btf_is_func(btf__type_by_id(btf, id)))
			ix->ids[ix->n++] = id;
	qsort_r(ix->ids, ix->n, sizeof(*ix->ids), btf_funcs_cmp, (void *)btf);
	ix->btf = btf;
	return 0;
}

int btf_funcs_find(struct btf_funcs *ix, const struct btf *btf, const char *name)
{
	size_t lo = 0, hi;

	if (ix->btf != btf && btf_funcs_make(ix, btf))
		return -ENOMEM;
	/* the first entry not below name: the lowest id of that name */
	hi = ix->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct btf_type *t = btf__type_by_id(btf, ix->ids[mid]);

		if (strcmp(btf__name_by_offset(btf, t->name_off), name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ix->n &&
	    !strcmp(btf__name_by_offset(btf, btf__type_by_id(btf, ix->ids[lo])->name_off), name))
		return (int)ix->ids[lo];
	return -ENOENT;
}

void btf_funcs_free(struct btf_funcs *ix)
{
	free(ix->ids);
	*ix = (struct btf_funcs){ 0 };
}
