// SPDX-License-Identifier: GPL-2.0
/*
 * The compile pipeline: one table of passes from source text to a BPF ELF object, and the
 * program object that carries a compilation through them (aotcc.h). Whoever compiles, the
 * driver, aotrace -l, the tests or the fuzzers, runs the same passes in the same order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "codegen.h"
#include "config.h"
#include "frontend.h"
#include "meta.h"
#include "probe.h"

struct aot_program {
	struct aot_compile_opts opts;  /* the caller's, every setting resolved */
	struct aot_compile_opts given; /* the caller's as given, for the config block */
	struct source src;	       /* a NUL-terminated copy of the text, in the arena */
	struct program prog;	       /* what the passes share */
	struct diags d;
	struct probe_env *env; /* opts.env, or env_own */
	struct probe_env *env_own;
	enum aot_pass next; /* the first pass not run yet */
	int err;	    /* why the pipeline stopped, for good; 0 */
	void *elf;
	size_t elf_size;
};

static int pass_parse(struct aot_program *p)
{
	int ret = parse_program(&p->prog, &p->d) ?: macro_expand(&p->prog, &p->d);

	/* The script's config block: under the caller's settings, over the defaults. */
	if (!ret)
		ret = config_apply(&p->prog, &p->given, &p->opts, &p->d);
	if (!ret && (p->opts.dump & AOT_DUMP_AST))
		ast_dump(p->prog.root, p->opts.dump_out);
	return ret;
}

static int pass_expand(struct aot_program *p)
{
	return expand_probes(&p->prog, p->env, &p->d) ?: session_pair(&p->prog, p->env);
}

static int pass_sema(struct aot_program *p)
{
	return cimport_build(&p->prog, &p->d) ?: sema_check(&p->prog, p->env, &p->d)
						 ?: expand_check_limit(&p->prog, p->env, &p->d);
}

static int pass_codegen(struct aot_program *p)
{
	return cg_compile(&p->prog, &p->d, &p->elf, &p->elf_size);
}

/* The pipeline, in order: each pass consumes what the ones above it produced. */
static const struct pass {
	const char *name;
	const char *does;
	int (*run)(struct aot_program *p);
} passes[] = {
	[AOT_PASS_PARSE] = { "parse", "source text -> AST with locations, macros expanded",
			     pass_parse },
	[AOT_PASS_EXPAND] = { "expand", "attach points -> concrete probes, one program each",
			      pass_expand },
	[AOT_PASS_SEMA] = { "sema", "AST -> typed AST, explicit casts, map and printf layouts",
			    pass_sema },
	[AOT_PASS_CODEGEN] = { "codegen", "typed AST -> LLVM IR -> BPF ELF object in memory",
			       pass_codegen },
};

#define NPASSES (sizeof(passes) / sizeof(passes[0]))

int aot_program__run(struct aot_program *p, enum aot_pass last)
{
	for (; !p->err && p->next <= last && p->next < NPASSES; p->next++) {
		int ret = passes[p->next].run(p);

		/* Every error a pass finds is reported; none of the passes after it runs. */
		if (ret || p->d.nerrors)
			p->err = ret ? ret : -EINVAL;
	}
	return p->err;
}

/*
 * The caller's options, as libbpf takes them: as many bytes as its struct has (sz), the rest
 * zero; fields of a newer caller that this build does not know must be unset.
 */
static int program_opts(struct aot_compile_opts *dst, const struct aot_compile_opts *src)
{
	size_t n;

	*dst = (struct aot_compile_opts){ .sz = sizeof(*dst) };
	if (!src)
		return 0;
	if (src->sz < sizeof(src->sz))
		return -EINVAL;
	for (size_t i = sizeof(*dst); i < src->sz; i++)
		if (((const char *)src)[i])
			return -EINVAL;
	n = src->sz < sizeof(*dst) ? src->sz : sizeof(*dst);
	memcpy(dst, src, n);
	dst->sz = sizeof(*dst);
	return 0;
}

struct aot_program *aot_program__new(const char *name, const char *text, size_t len,
				     const struct aot_compile_opts *opts)
{
	struct aot_program *p = calloc(1, sizeof(*p));
	int ret = -ENOMEM;

	if (!p)
		goto err;
	diags_init(&p->d, &p->src);
	ret = program_opts(&p->given, opts);
	p->opts = p->given;
	ret = ret ?: aot_compile_opts_resolve(&p->opts);
	if (ret)
		goto err;
	ret = -ENOMEM;
	p->prog.arena = arena_new();
	p->prog.meta = aot_meta_new();
	if (!p->prog.arena || !p->prog.meta)
		goto err;
	/* The lexer reads up to a NUL; the text may hold others (the fuzzers' does). */
	p->src.name = arena_strdup(p->prog.arena, name);
	p->src.text = arena_alloc(p->prog.arena, len + 1);
	memcpy(p->src.text, text, len);
	p->src.len = len;
	p->prog.src = &p->src;
	p->prog.opts = &p->opts;
	p->d.no_warnings = p->opts.no_warnings;
	p->env = p->opts.env;
	if (!p->env) {
		p->env = p->env_own = probe_env__new();
		if (!p->env || probe_env__set_btf_path(p->env, p->opts.btf_path))
			goto err;
	}
	probe_env__set_srcline(p->env, srcline_addr);
	return p;
err:
	aot_program__free(p);
	errno = -ret;
	return NULL;
}

void aot_program__free(struct aot_program *p)
{
	if (!p)
		return;
	free(p->elf);
	probe_env__free(p->env_own);
	aot_meta_free(p->prog.meta);
	arena_free(p->prog.arena);
	diags_free(&p->d);
	free(p);
}

const struct diags *aot_program__diags(const struct aot_program *p)
{
	return &p->d;
}

const void *aot_program__elf(const struct aot_program *p, size_t *size)
{
	*size = p->elf_size;
	return p->elf;
}

void *aot_program__take_elf(struct aot_program *p, size_t *size)
{
	void *elf = p->elf;

	*size = p->elf_size;
	p->elf = NULL;
	p->elf_size = 0;
	return elf;
}

bool aot_program__host_bound(const struct aot_program *p)
{
	return p->prog.host_bound;
}

const char *const *aot_program__deps(struct aot_program *p, size_t *n)
{
	struct program *prog = &p->prog;
	const struct aot_meta *m = prog->meta;
	uint32_t nuser = 0, k = 0;
	char **deps;

	*n = 0;
	if (!m)
		return NULL;
	/* the binary of a user probe is its target up to the first ':' (as it was written) */
	for (uint32_t i = 0; i < m->nprobes; i++)
		nuser += m->probes[i].type && m->probes[i].type[0] == 'u' && m->probes[i].target;
	deps = arena_alloc(prog->arena, (prog->ndeps + nuser + 1) * sizeof(*deps));
	for (uint32_t i = 0; i < prog->ndeps; i++)
		deps[k++] = prog->deps[i];
	for (uint32_t i = 0; i < m->nprobes; i++) {
		const char *t = m->probes[i].target;

		if (m->probes[i].type && m->probes[i].type[0] == 'u' && t)
			deps[k++] = arena_strndup(prog->arena, t, strcspn(t, ":"));
	}
	deps[k] = NULL;
	*n = k;
	return (const char *const *)deps;
}

int aot_program__list(struct aot_program *p, bool verbose, FILE *out)
{
	if (p->err || p->next <= AOT_PASS_EXPAND)
		return -EINVAL;
	return expand_list(p->env, p->prog.root, verbose, out);
}

struct program *aot_program__ast(struct aot_program *p)
{
	return &p->prog;
}

struct probe_env *aot_program__env(struct aot_program *p)
{
	return p->env;
}
