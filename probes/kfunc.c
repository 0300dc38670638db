// SPDX-License-Identifier: GPL-2.0
/*
 * kfunc:FUNC / kretfunc:FUNC, also spelled fentry/fexit: BPF trampolines on kernel functions.
 * Targets are the FUNC entries of the kernel's BTF (parsed once per run, only when such a probe
 * appears); libbpf resolves each "fentry/FUNC" section to its BTF id at load.
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "meta.h"
#include "probe_internal.h"

static int name_cmp(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static int kfunc_match(struct probe_env *env, struct arena *a, const char *pattern, char ***out,
		       size_t *n, struct probe_err *err)
{
	struct btf *btf = probe_env_vmlinux_btf(env, err);
	size_t cap = 0;
	uint32_t nr;

	*out = NULL;
	*n = 0;
	if (!btf)
		return -ENOENT;
	if (!probe_has_wildcard(pattern)) {
		if (btf__find_by_name_kind(btf, pattern, BTF_KIND_FUNC) < 0)
			return 0;
		*out = arena_alloc(a, sizeof(char *));
		(*out)[0] = arena_strdup(a, pattern);
		*n = 1;
		return 1;
	}
	nr = btf__type_cnt(btf);
	for (uint32_t id = 1; id < nr; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name;

		if (!btf_is_func(t))
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		if (!name || !probe_wildcard_match(pattern, name))
			continue;
		if (*n == cap) {
			char **v = arena_alloc(a, (cap ? cap * 2 : 64) * sizeof(*v));

			if (*n)
				memcpy(v, *out, *n * sizeof(*v));
			*out = v;
			cap = cap ? cap * 2 : 64;
		}
		(*out)[(*n)++] = arena_strdup(a, name);
	}
	if (*n)
		qsort(*out, *n, sizeof(char *), name_cmp);
	return (int)*n;
}

static char *kfunc_section(struct arena *a, const char *target)
{
	return arena_printf(a, "fentry/%s", target);
}

static char *kretfunc_section(struct arena *a, const char *target)
{
	return arena_printf(a, "fexit/%s", target);
}

static int kfunc_attach(struct bpf_program *prog, const struct aot_probe *p,
			struct bpf_link **link, struct probe_err *err)
{
	int ret;

	*link = bpf_program__attach_trace(prog);
	ret = libbpf_get_error(*link);
	if (ret) {
		*link = NULL;
		probe_err_set(err, "a kprobe on the same function may work where trampolines do not",
			      "cannot attach %s: %s", p->name, strerror(-ret));
	}
	return ret;
}

const struct probe_type probe_kfunc = {
	.name = "kfunc",
	.spellings = (const char *const[]){ "fentry", "f", NULL },
	.has_target = true,
	.list_all = "*",
	.match = kfunc_match,
	.section = kfunc_section,
	.attach = kfunc_attach,
};

const struct probe_type probe_kretfunc = {
	.name = "kretfunc",
	.spellings = (const char *const[]){ "fexit", "fr", NULL },
	.has_target = true,
	.match = kfunc_match,
	.section = kretfunc_section,
	.attach = kfunc_attach,
};
