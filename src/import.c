// SPDX-License-Identifier: GPL-2.0
/*
 * import "path"; (bpftrace 0.26 and later), the end of parsing: each import is replaced by the
 * items of what it names, a .bt script (probes, macros, map declarations, C definitions and its
 * own imports), a .h header (its types, as an #include), a .bpf.c file of BPF C (its functions,
 * which cimport.c compiles and codegen links in) or a folder of them. Each file is imported
 * once, and each is a dependency of the object, which the cache checks.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arena.h"
#include "frontend.h"

/* Imports inside imports, at most: deeper is a loop that the once-only rule missed. */
#define IMPORT_MAX_DEPTH 32

struct import_ctx {
	struct program *prog;
	struct diags *d;
	const char *root_dir; /* the program's folder: "." for -e and stdin */
	char **seen;	      /* real paths imported so far */
	uint32_t nseen;
};

static void import_items(struct import_ctx *c, struct node *root, const char *dir, int depth);

static bool import_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && !strcmp(s + n - k, suffix);
}

static char *import_dirname(struct arena *a, const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return ".";
	return slash == path ? "/" : arena_strndup(a, path, (size_t)(slash - path));
}

/* true the first time the file at path is seen (by its real path) */
static bool import_first(struct import_ctx *c, const char *path)
{
	char real[PATH_MAX];
	char **seen;

	if (!realpath(path, real))
		snprintf(real, sizeof(real), "%s", path);
	for (uint32_t i = 0; i < c->nseen; i++)
		if (!strcmp(c->seen[i], real))
			return false;
	seen = arena_alloc(c->prog->arena, (c->nseen + 1) * sizeof(*seen));
	if (c->nseen)
		memcpy(seen, c->seen, c->nseen * sizeof(*seen));
	seen[c->nseen++] = arena_strdup(c->prog->arena, real);
	c->seen = seen;
	return true;
}

char *import_read_file(struct arena *a, const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	size_t cap = 4096, n;
	char *buf;

	if (!f)
		return NULL;
	*len = 0;
	buf = arena_alloc(a, cap + 1);
	while ((n = fread(buf + *len, 1, cap - *len, f)) > 0) {
		*len += n;
		if (*len == cap) {
			char *bigger = arena_alloc(a, 2 * cap + 1);

			memcpy(bigger, buf, *len);
			buf = bigger;
			cap *= 2;
		}
	}
	fclose(f);
	buf[*len] = '\0';
	return buf;
}

static struct source *import_read(struct import_ctx *c, const char *path)
{
	struct source *src = arena_alloc(c->prog->arena, sizeof(*src));

	src->text = import_read_file(c->prog->arena, path, &src->len);
	if (!src->text)
		return NULL;
	src->name = arena_strdup(c->prog->arena, path);
	return src;
}

/*
 * The items one file gives (a chain), NULL for none or after an error. at is the import, for
 * diagnostics.
 */
static struct node *import_file(struct import_ctx *c, const struct node *at, const char *path,
				int depth)
{
	const char *dir = import_dirname(c->prog->arena, path);
	struct node *items, *n;
	struct source *src;
	struct stat st;

	if (!stat(dir, &st) && (st.st_mode & S_IWOTH)) {
		diag_error(c->d, at->loc, "move it to a folder only its owner can write",
			   "refusing to import %s: its folder %s is world-writable", path, dir);
		return NULL;
	}
	if (!import_first(c, path))
		return NULL;
	if (import_ends_with(path, ".h")) {
		program_add_dep(c->prog, path);
		n = node_new(c->prog->arena, NODE_INCLUDE, at->loc);
		n->str = arena_printf(c->prog->arena, "#include \"%s\"", path);
		return n;
	}
	if (import_ends_with(path, ".bpf.c")) {
		struct cimport *ci =
			arena_alloc(c->prog->arena, (c->prog->ncimports + 1) * sizeof(*ci));

		if (c->prog->ncimports)
			memcpy(ci, c->prog->cimports, c->prog->ncimports * sizeof(*ci));
		ci[c->prog->ncimports++] =
			(struct cimport){ .path = arena_strdup(c->prog->arena, path),
					  .loc = at->loc };
		c->prog->cimports = ci;
		program_add_dep(c->prog, path);
		return NULL;
	}
	if (!import_ends_with(path, ".bt")) {
		diag_error(
			c->d, at->loc, NULL,
			"cannot import %s: a .bt script, a .h header, a .bpf.c file or a folder of them",
			path);
		return NULL;
	}
	src = import_read(c, path);
	if (!src) {
		diag_error(c->d, at->loc, NULL, "cannot read %s: %m", path);
		return NULL;
	}
	program_add_dep(c->prog, path);
	items = parse_source(c->prog, src, c->d);
	import_items(c, items, dir, depth + 1);
	for (n = items->body; n; n = n->next)
		if (n->kind == NODE_CONFIG)
			diag_error(c->d, n->loc,
				   "a config block belongs to the script that imports, at its top",
				   "an imported script cannot have a config block");
	return items->body;
}

static int import_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A folder: its .bt, .h and .bpf.c files (not its subfolders), in the order of their names. */
static struct node *import_folder(struct import_ctx *c, const struct node *at, const char *path,
				  int depth)
{
	struct node *first = NULL, **tail = &first;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	DIR *dh = opendir(path);

	if (!dh) {
		diag_error(c->d, at->loc, NULL, "cannot read the folder %s: %m", path);
		return NULL;
	}
	program_add_dep(c->prog, path); /* a file added to it changes what it imports */
	while ((e = readdir(dh))) {
		if (e->d_name[0] == '.' ||
		    !(import_ends_with(e->d_name, ".bt") || import_ends_with(e->d_name, ".h") ||
		      import_ends_with(e->d_name, ".bpf.c")))
			continue;
		if (n == cap) {
			char **bigger;

			cap = cap ? 2 * cap : 16;
			bigger = arena_alloc(c->prog->arena, cap * sizeof(*bigger));
			if (n)
				memcpy(bigger, names, n * sizeof(*names));
			names = bigger;
		}
		names[n++] = arena_printf(c->prog->arena, "%s/%s", path, e->d_name);
	}
	closedir(dh);
	if (n)
		qsort(names, n, sizeof(*names), import_cmp);
	for (size_t i = 0; i < n; i++) {
		*tail = import_file(c, at, names[i], depth);
		while (*tail)
			tail = &(*tail)->next;
	}
	return first;
}

/*
 * What import at in a file of folder dir names: found next to that file, else next to the
 * program (where bpftrace 0.27 looks).
 */
static struct node *import_one(struct import_ctx *c, const struct node *at, const char *dir,
			       int depth)
{
	const char *path = at->str, *tried;
	struct stat st;

	if (path[0] != '/') {
		if (strcmp(dir, "."))
			path = arena_printf(c->prog->arena, "%s/%s", dir, at->str);
		tried = path;
		if (stat(path, &st) && strcmp(dir, c->root_dir)) {
			path = strcmp(c->root_dir, ".")
				       ? arena_printf(c->prog->arena, "%s/%s", c->root_dir, at->str)
				       : at->str;
			tried = arena_printf(c->prog->arena, "%s, %s", tried, path);
		}
	} else {
		tried = path;
	}
	if (stat(path, &st)) {
		diag_error(c->d, at->loc, arena_printf(c->prog->arena, "looked for %s", tried),
			   "cannot find '%s' to import", at->str);
		return NULL;
	}
	if (S_ISDIR(st.st_mode))
		return import_folder(c, at, path, depth);
	return import_file(c, at, path, depth);
}

/* Puts what each import of root names in its place; imports come before the other items. */
static void import_items(struct import_ctx *c, struct node *root, const char *dir, int depth)
{
	struct node **np = &root->body, *items;
	const struct node *item = NULL; /* the first probe, macro or map declaration */

	while (*np) {
		struct node *n = *np;

		if (n->kind != NODE_IMPORT) {
			if (!item && n->kind != NODE_CDEF && n->kind != NODE_INCLUDE &&
			    n->kind != NODE_CONFIG)
				item = n;
			np = &n->next;
			continue;
		}
		*np = n->next;
		if (item) {
			diag_error(
				c->d, n->loc,
				arena_printf(c->prog->arena, "move it above line %u",
					     item->loc.line),
				"an import comes before the probes, macros and map declarations");
			continue;
		}
		if (depth > IMPORT_MAX_DEPTH) {
			diag_error(c->d, n->loc, NULL, "imports nested more than %d deep",
				   IMPORT_MAX_DEPTH);
			continue;
		}
		items = import_one(c, n, dir, depth);
		if (!items)
			continue;
		*np = items;
		while (*np)
			np = &(*np)->next;
		*np = n->next;
	}
}

void import_resolve(struct program *prog, struct node *root, struct diags *d)
{
	const char *name = prog->src->name;
	struct import_ctx c = { .prog = prog, .d = d, .root_dir = "." };

	if (name && strcmp(name, "-e") && strcmp(name, "stdin")) {
		c.root_dir = import_dirname(prog->arena, name);
		import_first(&c, name); /* a script that imports itself */
	}
	import_items(&c, root, c.root_dir, 0);
}
