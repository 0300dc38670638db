/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A kernel function's BTF id by name in O(log n). libbpf's btf__find_by_name_kind walks every
 * type (some 150 000 in a vmlinux), which once per target made kfunc:* (50 000 functions)
 * take a minute before anything loaded.
 */
#ifndef AOT_BTF_FUNCS_H
#define AOT_BTF_FUNCS_H

#include <stddef.h>
#include <stdint.h>

struct btf;

struct btf_funcs {
	const struct btf *btf; /* the index is of this BTF; NULL before the first lookup */
	uint32_t *ids;	       /* its BTF_KIND_FUNC ids, by name, then by id */
	size_t n;
};

/*
 * The id of the function name in btf (the lowest, where static functions share a name, as
 * btf__find_by_name_kind), or -ENOENT; -ENOMEM if the index cannot be made. Made on the first
 * call, again if btf changed.
 */
int btf_funcs_find(struct btf_funcs *ix, const struct btf *btf, const char *name);
void btf_funcs_free(struct btf_funcs *ix);

#endif
