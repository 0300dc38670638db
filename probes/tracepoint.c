// SPDX-License-Identifier: GPL-2.0
/*
 * tracepoint:CATEGORY:NAME. Targets come from tracefs (events/CATEGORY/NAME), `args` from the
 * event's format file, and the program is a BPF_PROG_TYPE_TRACEPOINT whose context is the raw
 * trace entry those offsets index.
 */
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arena.h"
#include "types.h"
#include "meta.h"
#include "probe_internal.h"

#define TP_HINT "list them with: aotrace -l 'tracepoint:*'"

/* Splits "cat:name" into its two parts; both must be non-empty. */
static int tp_split(const char *target, char *cat, size_t catlen, char *name, size_t namelen)
{
	const char *colon = strchr(target, ':');

	if (!colon || colon == target || !colon[1] || strchr(colon + 1, ':'))
		return -EINVAL;
	snprintf(cat, catlen, "%.*s", (int)(colon - target), target);
	snprintf(name, namelen, "%s", colon + 1);
	return 0;
}

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int tp_match(struct probe_env *env, struct arena *a, const char *pattern, char ***out,
		    size_t *n, struct probe_err *err)
{
	char cat[256], name[256], path[768];
	const char *root = probe_env_tracefs(env, err);
	struct probe_names names = { .a = a };
	DIR *cats, *evs;
	struct dirent *c, *e;

	*out = NULL;
	*n = 0;
	if (!root)
		return -ENOENT;
	/* tracepoint:*open* is a name in any category, as bpftrace 0.17 and 0.27 read it. */
	if (!strchr(pattern, ':') && probe_has_wildcard(pattern))
		pattern = arena_printf(a, "*:%s", pattern);
	if (tp_split(pattern, cat, sizeof(cat), name, sizeof(name))) {
		probe_err_set(
			err,
			"write it as tracepoint:CATEGORY:NAME, e.g. tracepoint:syscalls:sys_enter_openat",
			"a tracepoint needs a category and a name");
		return -EINVAL;
	}
	/* The common case, no wildcard, costs one stat and no directory walk. */
	if (!probe_has_wildcard(pattern)) {
		snprintf(path, sizeof(path), "%s/events/%s/%s", root, cat, name);
		if (!is_dir(path))
			return 0;
		probe_names_add(&names, arena_printf(a, "%s:%s", cat, name));
		*n = probe_names_finish(&names, out);
		return (int)*n;
	}
	snprintf(path, sizeof(path), "%s/events", root);
	cats = opendir(path);
	if (!cats) {
		probe_err_set(err, NULL, "cannot read %s: %s", path, strerror(errno));
		return -errno;
	}
	while ((c = readdir(cats))) {
		if (c->d_name[0] == '.' || !probe_wildcard_match(cat, c->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", root, c->d_name);
		evs = opendir(path);
		if (!evs)
			continue;
		while ((e = readdir(evs))) {
			if (e->d_name[0] == '.' || e->d_type != DT_DIR ||
			    !probe_wildcard_match(name, e->d_name))
				continue;
			probe_names_add(&names, arena_printf(a, "%s:%s", c->d_name, e->d_name));
		}
		closedir(evs);
	}
	closedir(cats);
	/* Directory order is arbitrary; sorted targets keep programs and output stable. */
	*n = probe_names_finish(&names, out);
	return (int)*n;
}

static char *tp_section(struct arena *a, const char *target)
{
	char *s = arena_printf(a, "tracepoint/%s", target);

	*strchr(s + strlen("tracepoint/"), ':') = '/';
	return s;
}

/*
 * One format line: "field:const char * filename;	offset:24;	size:8;	signed:0;".
 * Returns 1 and fills arg for a usable field, 0 to skip the line.
 */
static int tp_parse_field(struct arena *a, const char *line, bool user_ptrs, struct probe_arg *arg)
{
	const char *decl = strstr(line, "field:"), *end, *p, *name_end, *name_start;
	unsigned offset, size;
	int is_signed;
	size_t arrlen = 0;
	const char *o = strstr(line, "offset:"), *s = strstr(line, "size:"),
		   *sg = strstr(line, "signed:");

	if (!decl || !o || !s || !sg)
		return 0;
	decl += strlen("field:");
	end = strchr(decl, ';');
	if (!end || sscanf(o, "offset:%u", &offset) != 1 || sscanf(s, "size:%u", &size) != 1 ||
	    sscanf(sg, "signed:%d", &is_signed) != 1)
		return 0;
	/*
	 * The name is the last identifier of the declaration, before its [N] if it has one;
	 * "__data_loc char[] name" has brackets before the name instead.
	 */
	name_end = end;
	p = NULL;
	while (name_end > decl && name_end[-1] == ' ')
		name_end--;
	if (name_end > decl && name_end[-1] == ']') {
		p = memrchr(decl, '[', (size_t)(name_end - decl));
		if (p) {
			arrlen = strtoul(p + 1, NULL, 10);
			name_end = p;
		}
	}
	while (name_end > decl && name_end[-1] == ' ')
		name_end--;
	name_start = name_end;
	while (name_start > decl &&
	       (name_start[-1] == '_' || (name_start[-1] >= 'a' && name_start[-1] <= 'z') ||
		(name_start[-1] >= 'A' && name_start[-1] <= 'Z') ||
		(name_start[-1] >= '0' && name_start[-1] <= '9')))
		name_start--;
	if (name_start == name_end || strncmp(name_start, "common_", 7) == 0)
		return 0;
	memset(arg, 0, sizeof(*arg));
	arg->name = arena_strndup(a, name_start, (size_t)(name_end - name_start));
	arg->decl = arena_strndup(a, decl, (size_t)(end - decl));
	arg->offset = offset;
	if (strncmp(decl, "__data_loc", 10) == 0) {
		arg->is_dataloc = true;
		arg->type.kind = TYPE_INT;
		arg->type.size = 4;
	} else if (p && strstr(decl, "char") && memchr(decl, '*', (size_t)(p - decl)) == NULL) {
		arg->type.kind = TYPE_STR;
		arg->type.size = (uint32_t)(arrlen ? arrlen : size);
	} else {
		bool is_ptr = memchr(decl, '*', (size_t)(name_start - decl)) != NULL;

		arg->type.kind = TYPE_INT;
		arg->type.size = size == 1 || size == 2 || size == 4 || size == 8 ? size : 8;
		arg->type.is_signed = is_signed && !is_ptr;
		arg->is_user_ptr = is_ptr && user_ptrs;
		/*
		 * A pointer, as bpftrace 0.27 types it (printed in hex, is_ptr): void * here, its
		 * pointee made from decl when a program uses it (sema).
		 */
		if (is_ptr && size == 8) {
			arg->type = (struct type){ .kind = TYPE_PTR, .size = 8 };
			arg->type.is_user = arg->is_user_ptr;
		}
	}
	return 1;
}

static int tp_args(struct probe_env *env, struct arena *a, const char *target,
		   struct probe_arg **args, uint32_t *nargs, struct probe_err *err)
{
	char cat[256], name[256], path[768], line[1024];
	const char *root = probe_env_tracefs(env, err);
	uint32_t n = 0, cap = 16;
	struct probe_arg *v;
	FILE *f;

	if (!root)
		return -ENOENT;
	if (tp_split(target, cat, sizeof(cat), name, sizeof(name)))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", root, cat, name);
	f = fopen(path, "r");
	if (!f) {
		probe_err_set(err, TP_HINT, "cannot read the format of tracepoint %s: %s", target,
			      strerror(errno));
		return -errno;
	}
	v = arena_alloc(a, cap * sizeof(*v));
	while (fgets(line, sizeof(line), f)) {
		if (n == cap) {
			struct probe_arg *nv = arena_alloc(a, 2 * cap * sizeof(*nv));

			memcpy(nv, v, cap * sizeof(*nv));
			v = nv;
			cap *= 2;
		}
		/* Pointers in syscall arguments point into the calling process. */
		n += (uint32_t)tp_parse_field(a, line, strcmp(cat, "syscalls") == 0, &v[n]);
	}
	fclose(f);
	*args = v;
	*nargs = n;
	return 0;
}

static int tp_attach(const struct probe_plan *plan, struct probe_links *links,
		     struct probe_err *err)
{
	const struct aot_probe *p = plan->probe;
	char cat[256], name[256];

	if (tp_split(p->target, cat, sizeof(cat), name, sizeof(name))) {
		probe_err_set(err, NULL, "malformed tracepoint target '%s'", p->target);
		return -EINVAL;
	}
	return probe_links_add_result(links, bpf_program__attach_tracepoint(plan->prog, cat, name),
				      err, TP_HINT, p->name);
}

const struct probe_type probe_tracepoint = {
	.name = "tracepoint",
	.spellings = (const char *const[]){ "t", NULL },
	.builtins = PB_ARGS,
	.has_target = true,
	.list_all = "*:*",
	.match = tp_match,
	.section = tp_section,
	.args = tp_args,
	.attach = tp_attach,
};
