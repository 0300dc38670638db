// SPDX-License-Identifier: GPL-2.0
/*
 * Listing probes (-l, -lv): every listable probe type matches the pattern's target part with the
 * same match callback the compiler expands wildcards with, so -l shows exactly what would attach.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "probe_internal.h"
#include "types.h"

/* Hidden arg0..argN are listed only for probes whose arguments have no names. */
static void list_args(FILE *out, const struct probe_arg *args, uint32_t nargs)
{
	bool named = false;

	for (uint32_t j = 0; j < nargs; j++)
		named = named || !args[j].hidden;
	for (uint32_t j = 0; j < nargs; j++)
		if (!named || !args[j].hidden || strncmp(args[j].name, "arg", 3))
			fprintf(out, "    %s\n", args[j].decl);
}

/*
 * Whether a target passes a search by a pattern without a type: the pattern matches the whole
 * target or its last part ("sched_switch" finds tracepoint:sched:sched_switch).
 */
static bool list_search_match(const char *search, const char *target)
{
	size_t end = strlen(target), start;
	char last[256];

	if (probe_wildcard_match(search, target))
		return true;
	while (end && target[end - 1] == ':') /* software:faults: */
		end--;
	for (start = end; start && target[start - 1] != ':'; start--)
		;
	snprintf(last, sizeof(last), "%.*s", (int)(end - start), target + start);
	return probe_wildcard_match(search, last);
}

/* Prints the targets of one type a pattern lists (only those a search keeps); their number. */
static int list_type(struct probe_env *env, struct arena *a, const struct probe_type *pt,
		     const char *target_pat, const char *search, bool verbose, FILE *out)
{
	struct probe_err err = { { 0 }, { 0 } };
	char **targets;
	size_t n;
	int ret = (pt->list ? pt->list : pt->match)(env, a, target_pat, &targets, &n, &err),
	    shown = 0;
	const char *prev = NULL;

	if (ret < 0)
		return ret;
	for (size_t i = 0; i < n; i++) {
		struct probe_arg *args = NULL;
		uint32_t nargs = 0;
		char *name;

		if (search && !list_search_match(search, targets[i]))
			continue;
		name = pt->probe_name ? pt->probe_name(a, target_pat, targets[i])
				      : arena_printf(a, "%s:%s", pt->name, targets[i]);
		/* Several targets of one name (USDT locations) list once, with the first's args. */
		if (prev && !strcmp(prev, name))
			continue;
		prev = name;
		shown++;
		fprintf(out, "%s\n", name);
		if (!verbose || !pt->args || pt->list ||
		    pt->args(env, a, targets[i], &args, &nargs, &err))
			continue;
		list_args(out, args, nargs);
	}
	return shown;
}

static bool list_type_matches(const struct probe_type *pt, const char *type_pat)
{
	if (probe_wildcard_match(type_pat, pt->name))
		return true;
	for (const char *const *sp = pt->spellings; sp && *sp; sp++)
		if (probe_wildcard_match(type_pat, *sp))
			return true;
	return false;
}

static int list_type_cmp(const void *x, const void *y)
{
	return strcmp((*(const struct probe_type *const *)x)->name,
		      (*(const struct probe_type *const *)y)->name);
}

/*
 * A pattern is TYPE:TARGET, or a TYPE alone (every target of the types it matches), or, where
 * it names no type, a search of every listable type's targets, as bpftrace lists
 * '*sched_switch*'.
 */
int probe_list(struct probe_env *env, const char *pattern, bool verbose, void *out_file)
{
	struct arena *a = arena_new();
	const char *colon = pattern ? strchr(pattern, ':') : NULL, *search = NULL;
	const struct probe_type *const *pt, **sorted;
	char *type_pat;
	int total = 0, ret = 0;
	size_t n;

	if (!a)
		return -ENOMEM;
	type_pat = pattern ? arena_strndup(a, pattern,
					   colon ? (size_t)(colon - pattern) : strlen(pattern))
			   : arena_strdup(a, "*");
	for (pt = probe_types; !colon && *pt && !list_type_matches(*pt, type_pat); pt++)
		;
	if (!colon && !*pt) {
		search = pattern;
		type_pat = arena_strdup(a, "*");
	}
	/* Types in name order, as bpftrace lists them. */
	for (n = 0; probe_types[n]; n++)
		;
	sorted = arena_alloc(a, (n + 1) * sizeof(*sorted));
	memcpy(sorted, probe_types, (n + 1) * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), list_type_cmp);
	for (pt = sorted; *pt; pt++) {
		/* A type with no list of everything (usdt: which binary?) lists only given a
		 * target. */
		if (!(*pt)->has_target || (!(*pt)->list_all && !colon) ||
		    !list_type_matches(*pt, type_pat))
			continue;
		ret = list_type(env, a, *pt, colon ? colon + 1 : (*pt)->list_all, search, verbose,
				out_file);
		/* Listing every type skips the ones this kernel lacks (no kprobes, no BTF). */
		if (ret < 0 && probe_has_wildcard(type_pat)) {
			ret = 0;
			continue;
		}
		if (ret < 0)
			break;
		total += ret;
		ret = 0;
	}
	arena_free(a);
	return ret ? ret : total ? 0 : -ENOENT;
}

/* One concrete probe of a script and, verbose, its arguments; repeats of a name list once. */
static void list_match(struct probe_env *env, struct arena *a, const struct probe_type *pt,
		       const char *name, const char *target, bool verbose, const char **prev,
		       FILE *out)
{
	struct probe_err err = { { 0 }, { 0 } };
	struct probe_arg *args = NULL;
	uint32_t nargs = 0;

	if (*prev && !strcmp(*prev, name))
		return;
	*prev = name;
	fprintf(out, "%s\n", name);
	if (verbose && pt->args && target && !pt->args(env, a, target, &args, &nargs, &err))
		list_args(out, args, nargs);
}

void probe_list_match(struct probe_env *env, struct arena *a, const struct probe_match *m,
		      bool verbose, const char **prev, void *out_file)
{
	size_t plen = strlen(m->pt->name) + 1;

	if (!m->is_multi || !m->ntargets) {
		list_match(env, a, m->pt, m->name, m->is_multi ? NULL : m->target, verbose, prev,
			   out_file);
		return;
	}
	/* A multi program's targets are named "TYPE:TARGET". */
	for (uint32_t t = 0; t < m->ntargets; t++)
		list_match(env, a, m->pt, m->targets[t], m->targets[t] + plen, verbose, prev,
			   out_file);
}
