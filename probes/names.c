// SPDX-License-Identifier: GPL-2.0
/*
 * Target name lists, the form every match callback returns: grown in the run's arena, sorted so
 * that programs and -l output are stable, and with duplicates dropped where a source lists a
 * name twice (static functions of the same name, .symtab and .dynsym).
 */
#include <bpf/btf.h>
#include <stdlib.h>
#include <string.h>

#include "probe_internal.h"

int probe_name_cmp(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

void probe_names_add(struct probe_names *l, char *name)
{
	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 64;
		char **v = arena_alloc(l->a, ncap * sizeof(*v));

		if (l->n)
			memcpy(v, l->v, l->n * sizeof(*v));
		l->v = v;
		l->cap = ncap;
	}
	l->v[l->n++] = name;
}

size_t probe_names_finish(struct probe_names *l, char ***out)
{
	size_t kept = 0;

	if (l->n)
		qsort(l->v, l->n, sizeof(char *), probe_name_cmp);
	for (size_t i = 0; i < l->n; i++)
		if (!kept || strcmp(l->v[kept - 1], l->v[i]))
			l->v[kept++] = l->v[i];
	l->n = kept;
	*out = l->v;
	return kept;
}

void probe_btf_names(const struct btf *btf, uint32_t first, unsigned kind, const char *strip,
		     const char *pattern, const char *prefix, struct probe_names *l)
{
	size_t slen = strlen(strip);
	uint32_t nr = btf__type_cnt(btf);

	for (uint32_t id = first; id < nr; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name;

		if (btf_kind(t) != kind)
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		if (name && !strncmp(name, strip, slen) &&
		    probe_wildcard_match(pattern, name + slen))
			probe_names_add(l, arena_printf(l->a, "%s%s", prefix, name + slen));
	}
}
