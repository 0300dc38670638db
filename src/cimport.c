// SPDX-License-Identifier: GPL-2.0
/*
 * import "lib.bpf.c"; (bpftrace 0.26 and later): a file of BPF C whose global functions the
 * script calls by name. clang 19 (the binary: libclang's C API has no code generation) compiles
 * it twice, to LLVM bitcode, which codegen links into its module before optimising (so a small
 * function is inlined into its callers), and to an object, whose BTF gives each function's
 * parameters and return type with their signedness, which bitcode does not keep. The compile
 * runs before sema, in a private temporary folder that is removed after.
 */
#include <bpf/btf.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena.h"
#include "frontend.h"
#include "sema_types.h"

extern char **environ;

/* clang 19: its bitcode is what this LLVM reads. AOTRACE_CLANG names another. */
static const char *cimport_clang(void)
{
	static const char *const candidates[] = { "/usr/bin/clang-19",
						  "/usr/lib/llvm-19/bin/clang" };
	const char *env = getenv("AOTRACE_CLANG");

	if (env && *env)
		return env;
	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++)
		if (!access(candidates[i], X_OK))
			return candidates[i];
	return NULL;
}

/*
 * Runs clang on src, writing out (bitcode if emit_llvm, else an object) and its messages to
 * log. 0, or the exit status (-errno if it did not run).
 */
static int cimport_run(const char *clang, const char *src, const char *out, bool emit_llvm,
		       const char *log)
{
	const char *argv[] = { clang, "-target", "bpfel", "-O2",   "-g", "-c",
			       src,   "-o",	 out,	  "-Wall", NULL, NULL };
	posix_spawn_file_actions_t fa;
	int status, ret;
	pid_t pid;

	if (emit_llvm)
		argv[10] = "-emit-llvm";
	if (posix_spawn_file_actions_init(&fa))
		return -ENOMEM;
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, log, O_WRONLY | O_CREAT | O_APPEND, 0600);
	ret = posix_spawn(&pid, clang, &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (ret)
		return -ret;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* t past typedefs and qualifiers. */
static const struct btf_type *cimport_resolve(const struct btf *btf, uint32_t *id)
{
	const struct btf_type *t = btf__type_by_id(btf, *id);

	while (t && (btf_is_typedef(t) || btf_is_const(t) || btf_is_volatile(t) ||
		     btf_is_restrict(t) || btf_is_type_tag(t))) {
		*id = t->type;
		t = btf__type_by_id(btf, *id);
	}
	return t;
}

/*
 * The aotrace type of BTF type id, for a parameter or a return value: an integer (enums too),
 * a bool, or a pointer to an integer or to void. kind TYPE_NONE for anything else.
 */
static struct type cimport_type(struct arena *a, const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = cimport_resolve(btf, &id);
	struct type none = { .kind = TYPE_NONE };

	if (!t)
		return none;
	if (btf_is_int(t)) {
		uint8_t enc = btf_int_encoding(t);

		if (enc & BTF_INT_BOOL)
			return (struct type){ .kind = TYPE_BOOL, .size = 1 };
		return t->size == 1 || t->size == 2 || t->size == 4 || t->size == 8
			       ? type_int(t->size, enc & BTF_INT_SIGNED)
			       : none;
	}
	if (btf_is_any_enum(t))
		return t->size == 1 || t->size == 2 || t->size == 4 || t->size == 8
			       ? type_int(t->size, btf_kflag(t))
			       : none;
	if (btf_is_ptr(t)) {
		struct type p = { .kind = TYPE_PTR, .size = 8 };
		uint32_t pid = t->type;
		const struct btf_type *pt = pid ? cimport_resolve(btf, &pid) : NULL;

		if (pt && !btf_is_int(pt) && !btf_is_any_enum(pt))
			return none;
		if (pt) {
			struct type elem = cimport_type(a, btf, pid);

			if (elem.kind == TYPE_NONE)
				return none;
			p.pointee = arena_alloc(a, sizeof(*p.pointee));
			*p.pointee = elem;
		}
		return p;
	}
	return none;
}

/* A C type as written: "unsigned int", "const char *". */
static const char *cimport_type_name(struct arena *a, const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const char *name;

	if (!id)
		return "void";
	if (!t)
		return "?";
	name = btf__name_by_offset(btf, t->name_off);
	if (btf_is_ptr(t))
		return arena_printf(a, "%s *", cimport_type_name(a, btf, t->type));
	if (btf_is_const(t))
		return arena_printf(a, "const %s", cimport_type_name(a, btf, t->type));
	if (btf_is_volatile(t))
		return arena_printf(a, "volatile %s", cimport_type_name(a, btf, t->type));
	if (btf_is_struct(t) || btf_is_union(t) || btf_is_any_enum(t))
		return arena_printf(a, "%s %s",
				    btf_is_struct(t)  ? "struct"
				    : btf_is_union(t) ? "union"
						      : "enum",
				    name && *name ? name : "(anonymous)");
	if (btf_is_array(t))
		return arena_printf(a, "%s[]", cimport_type_name(a, btf, btf_array(t)->type));
	return name && *name ? name : btf_is_func_proto(t) ? "function" : "?";
}

/* The global functions of the object's BTF, added to prog->cfuncs. */
static int cimport_funcs(struct program *prog, struct diags *d, const struct cimport *ci,
			 const struct btf *btf)
{
	struct arena *a = prog->arena;
	uint32_t n = btf__type_cnt(btf);

	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *f = btf__type_by_id(btf, id), *proto;
		const struct btf_param *p;
		struct cfunc *cf, *grown;
		const char *name;
		uint16_t np;

		if (!btf_is_func(f) || btf_vlen(f) != BTF_FUNC_GLOBAL)
			continue;
		proto = btf__type_by_id(btf, f->type);
		if (!proto || !btf_is_func_proto(proto))
			continue;
		name = btf__name_by_offset(btf, f->name_off);
		for (uint32_t i = 0; i < prog->ncfuncs; i++)
			if (!strcmp(prog->cfuncs[i].name, name)) {
				diag_error(d, ci->loc, "rename one of them",
					   "%s defines %s(), which %s defines too", ci->path, name,
					   prog->cfuncs[i].from->path);
				return -EINVAL;
			}
		grown = arena_alloc(a, (prog->ncfuncs + 1) * sizeof(*grown));
		if (prog->ncfuncs)
			memcpy(grown, prog->cfuncs, prog->ncfuncs * sizeof(*grown));
		prog->cfuncs = grown;
		cf = &prog->cfuncs[prog->ncfuncs++];
		cf->name = arena_strdup(a, name);
		cf->from = ci;
		cf->ret_void = !proto->type;
		if (!cf->ret_void)
			cf->ret = cimport_type(a, btf, proto->type);
		np = btf_vlen(proto);
		p = btf_params(proto);
		cf->nparams = np;
		cf->params = arena_alloc(a, (np ? np : 1) * sizeof(*cf->params));
		cf->param_types = arena_alloc(a, (np ? np : 1) * sizeof(*cf->param_types));
		for (uint16_t i = 0; i < np; i++) {
			cf->params[i] = p[i].type ? cimport_type(a, btf, p[i].type)
						  : (struct type){ .kind = TYPE_NONE };
			cf->param_types[i] =
				p[i].type ? cimport_type_name(a, btf, p[i].type) : "...";
		}
	}
	return 0;
}

/* The first lines of clang's messages, for a hint. */
static const char *cimport_log_hint(struct arena *a, const char *log)
{
	size_t size;
	char *text = import_read_file(a, log, &size), *end;
	int lines = 0;

	if (!text || !size)
		return NULL;
	for (end = text; *end && lines < 8; end++)
		if (*end == '\n')
			lines++;
	if (end > text && end[-1] == '\n')
		end--;
	*end = 0;
	return arena_printf(a, "clang says:\n%s", text);
}

static int cimport_one(struct program *prog, struct diags *d, struct cimport *ci, const char *clang,
		       const char *dir)
{
	struct arena *a = prog->arena;
	char *obj = arena_printf(a, "%s/c.o", dir), *bc = arena_printf(a, "%s/c.bc", dir);
	char *log = arena_printf(a, "%s/clang.log", dir);
	struct btf *btf;
	int ret;

	ret = cimport_run(clang, ci->path, bc, true, log);
	if (!ret)
		ret = cimport_run(clang, ci->path, obj, false, log);
	if (ret < 0)
		diag_error(d, ci->loc, NULL, "cannot run %s to compile %s: %s", clang, ci->path,
			   strerror(-ret));
	else if (ret)
		diag_error(d, ci->loc, cimport_log_hint(a, log),
			   "%s could not compile %s (exit status %d)", clang, ci->path, ret);
	if (!ret) {
		ci->bitcode = import_read_file(a, bc, &ci->bitcode_size);
		btf = btf__parse_elf(obj, NULL);
		if (ci->bitcode && btf)
			ret = cimport_funcs(prog, d, ci, btf);
		else {
			diag_error(d, ci->loc, NULL, "cannot read what clang made of %s", ci->path);
			ret = -EINVAL;
		}
		btf__free(btf);
	}
	unlink(obj);
	unlink(bc);
	unlink(log);
	return ret ? -EINVAL : 0;
}

int cimport_build(struct program *prog, struct diags *d)
{
	char dir[] = "/tmp/aotrace-cimport.XXXXXX";
	const char *clang;
	int ret = 0;

	if (!prog->ncimports)
		return 0;
	clang = cimport_clang();
	if (!clang) {
		diag_error(d, prog->cimports[0].loc,
			   "install clang-19 (apt-get install clang-19), or name a clang 19 in "
			   "AOTRACE_CLANG",
			   "cannot import %s: compiling BPF C needs clang 19",
			   prog->cimports[0].path);
		return -ENOENT;
	}
	if (!mkdtemp(dir)) {
		diag_error(d, prog->cimports[0].loc, NULL, "cannot make a temporary folder: %m");
		return -errno;
	}
	for (uint32_t i = 0; i < prog->ncimports && !ret; i++)
		ret = cimport_one(prog, d, &prog->cimports[i], clang, dir);
	rmdir(dir);
	return ret;
}

const struct cfunc *cimport_find(const struct program *prog, const char *name)
{
	for (uint32_t i = 0; i < prog->ncfuncs; i++)
		if (!strcmp(prog->cfuncs[i].name, name))
			return &prog->cfuncs[i];
	return NULL;
}
