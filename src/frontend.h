/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The front end's passes, in pipeline order. Each pass reads the program, reports into diags,
 * and returns 0 or -EINVAL once it has reported errors; the pipeline stops there. What each
 * consumes and produces is said once, in the pass table of src/pipeline.c.
 */
#ifndef AOT_FRONTEND_H
#define AOT_FRONTEND_H

#include <stdbool.h>
#include <stdint.h>

#include "ast.h"
#include "diag.h"

struct probe_env;

/* ---- lexer ---- */

enum tok_kind {
	TOK_EOF = 0,
	TOK_INT,      /* num */
	TOK_STR,      /* str, str_len: the unescaped contents */
	TOK_IDENT,    /* text: identifiers and keywords (if, else, while, ...) */
	TOK_VAR,      /* text: "$x" */
	TOK_MAP,      /* text: "@x" or "@" */
	TOK_POSPARAM, /* num = N for $N; is_count for $# */
	TOK_PUNCT,    /* op: ASCII char or enum op; also "op=" forms via is_assign */
	TOK_ATTACH,   /* text: a raw attach point ("tracepoint:syscalls:sys_enter_*", "BEGIN") */
	TOK_CDEF,     /* text: a top-level C definition or preprocessor line */
	TOK_ERROR,    /* a lexical error already reported */
};

struct token {
	enum tok_kind kind;
	struct loc loc;
	char *text; /* arena-owned */
	char *str;
	size_t str_len;
	uint64_t num;
	int op;
	bool is_assign; /* "+=", "-=", ... : op is the arithmetic operator */
	bool is_count;
};

struct lexer;
struct lexer *lexer_new(struct arena *a, const struct source *src, struct diags *d);
/*
 * Attach points and C definitions need the parser's context to lex: in top-level mode the
 * lexer returns TOK_ATTACH and TOK_CDEF; inside blocks and predicates, ordinary tokens.
 */
void lexer_set_toplevel(struct lexer *lx, bool toplevel);
struct token lexer_next(struct lexer *lx);
/*
 * Restarts lexing at loc (a token's start) in the given mode: the parser's way back to the top
 * level when a probe's block lacks its '}' and the next probe's attach point was lexed as code.
 */
void lexer_reset(struct lexer *lx, struct loc loc, bool toplevel);

/* ---- parser ---- */

/* Builds prog->root, with the items of the files it imports in place of each import. */
int parse_program(struct program *prog, struct diags *d);
/* The items of one source (a NODE_PROGRAM), its imports not yet followed. */
struct node *parse_source(struct program *prog, const struct source *src, struct diags *d);
/* import "path";: each NODE_IMPORT of root replaced by what it imports (import.c). */
void import_resolve(struct program *prog, struct node *root, struct diags *d);
/* Replaces every macro call in prog->root by the macro's body and drops the macros (macro.c). */
int macro_expand(struct program *prog, struct diags *d);

/* ---- expand ---- */

/* Splits attach points, asks each probe type to match, fills node->matches and meta probes. */
int expand_probes(struct program *prog, struct probe_env *env, struct diags *d);
/*
 * The --max-probes limit, after sema: a wildcard attached with one multi link counts once.
 * 0, or -E2BIG with an error naming the widest wildcard.
 */
int expand_check_limit(struct program *prog, struct probe_env *env, struct diags *d);
/*
 * import "lib.bpf.c" (cimport.c): compiles each imported .bpf.c with clang 19 into
 * prog->cimports[i].bitcode and lists its global functions in prog->cfuncs. 0 or -errno with
 * the error reported at the import.
 */
int cimport_build(struct program *prog, struct diags *d);
/*
 * The whole file at path in the arena, NUL-terminated, *len its bytes (import.c); NULL with
 * errno set if it cannot be read.
 */
char *import_read_file(struct arena *a, const char *path, size_t *len);
/* The imported C function of that name, or NULL. */
const struct cfunc *cimport_find(const struct program *prog, const char *name);
/*
 * uprobe:BINARY@FILE:LINE[:COL]: the address of that source line in the binary, from its DWARF
 * line table (srcline.c, libdw); a probe_srcline_fn that the pipeline gives its probe env.
 */
struct probe_err;
int srcline_addr(struct arena *a, const char *bin, const char *file, unsigned long line,
		 unsigned long col, uint64_t *addr, struct probe_err *err);
/*
 * Sessions (session.c): pairs an entry and a return wildcard probe on the same pattern, adding
 * the session program that serves both to prog->sessions and the metadata. 0 or -ENOMEM.
 */
int session_pair(struct program *prog, struct probe_env *env);
/*
 * aotrace -l with a script: prints every concrete probe the expanded attach points of root
 * stand for, as -l prints them (with args when verbose). 0 or -ENOMEM.
 */
int expand_list(struct probe_env *env, const struct node *root, bool verbose, FILE *out);

/* ---- sema ---- */

int sema_check(struct program *prog, struct probe_env *env, struct diags *d);

/* ---- the pipeline's inside (pipeline.c, settings.c), for the compiler's own tests ---- */

/* Fills what opts leaves unset with its default; -EINVAL for a setting out of range. */
int aot_compile_opts_resolve(struct aot_compile_opts *opts);
/* What the passes share: the AST and what they annotated it with. */
struct program *aot_program__ast(struct aot_program *prog);
/* The probe types' lookups the passes used (kernel BTF among them). */
struct probe_env *aot_program__env(struct aot_program *prog);

#endif
