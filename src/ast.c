// SPDX-License-Identifier: GPL-2.0
/*
 * AST nodes: allocation from the compilation's arena, kind names for messages, and the
 * indented dump behind `-d ast` (one node a line: kind, name or value, line:col).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "ast.h"

void program_add_dep(struct program *prog, const char *path)
{
	if (prog->ndeps == prog->capdeps) {
		uint32_t cap = prog->capdeps ? 2 * prog->capdeps : 32;
		char **deps = arena_alloc(prog->arena, cap * sizeof(*deps));

		if (prog->ndeps)
			memcpy(deps, prog->deps, prog->ndeps * sizeof(*deps));
		prog->deps = deps;
		prog->capdeps = cap;
	}
	prog->deps[prog->ndeps++] = arena_strdup(prog->arena, path);
}

const char *node_member_path(struct arena *a, const struct node *n)
{
	const char *left;

	if (n->kind == NODE_BUILTIN)
		return n->name;
	if (n->kind != NODE_FIELD || n->is_arrow || !(left = node_member_path(a, n->lhs)))
		return NULL;
	return arena_printf(a, "%s.%s", left, n->name);
}

struct node *node_new(struct arena *a, enum node_kind kind, struct loc loc)
{
	struct node *n = arena_alloc(a, sizeof(*n));

	n->kind = kind;
	n->loc = loc;
	return n;
}

/*
 * A target's quotes, which bpftrace lets a part hold characters of its own in
 * (uprobe:/bin/bash:"echo_builtin"+0): dropped where no quoted part holds a ':' (the parts are
 * split at them later); else the target stays as written, and what cannot be found says so.
 */
static void ast_attach_unquote(char *t)
{
	bool in = false, colon_in = false;
	char *o = t;

	for (const char *p = t; *p; p++) {
		if (*p == '"')
			in = !in;
		else if (in && *p == ':')
			colon_in = true;
	}
	if (colon_in || in || !strchr(t, '"'))
		return;
	for (const char *p = t; *p; p++)
		if (*p != '"')
			*o++ = *p;
	*o = 0;
}

void ast_attach_set(struct arena *a, struct node *ap, char *str)
{
	const char *colon = strchr(str, ':');

	ap->str = str;
	ap->provider = colon ? arena_strndup(a, str, (size_t)(colon - str)) : str;
	ap->target = arena_strdup(a, colon ? colon + 1 : "");
	ast_attach_unquote(ap->target);
}

static const char *const node_kind_names[] = {
	[NODE_INT] = "INT",
	[NODE_STR] = "STR",
	[NODE_BUILTIN] = "BUILTIN",
	[NODE_POSPARAM] = "POSPARAM",
	[NODE_VAR] = "VAR",
	[NODE_MAP] = "MAP",
	[NODE_CALL] = "CALL",
	[NODE_BINOP] = "BINOP",
	[NODE_UNOP] = "UNOP",
	[NODE_TERNARY] = "TERNARY",
	[NODE_FIELD] = "FIELD",
	[NODE_INDEX] = "INDEX",
	[NODE_CAST] = "CAST",
	[NODE_TUPLE] = "TUPLE",
	[NODE_EXPR_STMT] = "EXPR_STMT",
	[NODE_ASSIGN] = "ASSIGN",
	[NODE_IF] = "IF",
	[NODE_WHILE] = "WHILE",
	[NODE_UNROLL] = "UNROLL",
	[NODE_FOR] = "FOR",
	[NODE_BREAK] = "BREAK",
	[NODE_CONTINUE] = "CONTINUE",
	[NODE_RETURN] = "RETURN",
	[NODE_BLOCK] = "BLOCK",
	[NODE_ATTACH] = "ATTACH",
	[NODE_PROBE] = "PROBE",
	[NODE_CDEF] = "CDEF",
	[NODE_INCLUDE] = "INCLUDE",
	[NODE_PROGRAM] = "PROGRAM",
	[NODE_BOOL] = "BOOL",
	[NODE_NAMED] = "NAMED",
	[NODE_RANGE] = "RANGE",
	[NODE_TYPE] = "TYPE",
	[NODE_LET] = "LET",
	[NODE_MAPDECL] = "MAPDECL",
	[NODE_CONFIG] = "CONFIG",
	[NODE_CONFIG_VAR] = "CONFIG_VAR",
	[NODE_IMPORT] = "IMPORT",
	[NODE_MACRO] = "MACRO",
};

bool node_is_addressable(const struct node *n)
{
	return (n->kind == NODE_FIELD && n->mpath) || n->kind == NODE_INDEX ||
	       (n->kind == NODE_UNOP && n->op == '*');
}

const char *node_kind_name(enum node_kind kind)
{
	if ((unsigned int)kind >= sizeof(node_kind_names) / sizeof(node_kind_names[0]) ||
	    !node_kind_names[kind])
		return "?";
	return node_kind_names[kind];
}

/* Spells an operator the way it is written in the source. */
static void ast_print_op(int op, FILE *f)
{
	static const char *const names[] = {
		[OP_EQ - OP_EQ] = "==",	 [OP_NE - OP_EQ] = "!=",  [OP_LE - OP_EQ] = "<=",
		[OP_GE - OP_EQ] = ">=",	 [OP_AND - OP_EQ] = "&&", [OP_OR - OP_EQ] = "||",
		[OP_SHL - OP_EQ] = "<<", [OP_SHR - OP_EQ] = ">>", [OP_INC - OP_EQ] = "++",
		[OP_DEC - OP_EQ] = "--",
	};

	if (op >= OP_EQ && op <= OP_DEC)
		fputs(names[op - OP_EQ], f);
	else if (op > 0 && op < 256)
		fputc(op, f);
}

/* Prints a string with C escapes so a dump stays one line per node. */
static void ast_print_str(const char *s, size_t len, FILE *f)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void ast_dump_list(const struct node *n, int depth, const char *label, FILE *f);

static void ast_dump_node(const struct node *n, int depth, const char *label, FILE *f)
{
	fprintf(f, "%*s", depth * 2, "");
	if (label)
		fprintf(f, "%s: ", label);
	fputs(node_kind_name(n->kind), f);

	switch (n->kind) {
	case NODE_INT:
		fprintf(f, " %" PRIu64, n->num);
		break;
	case NODE_BOOL:
		fputs(n->num ? " true" : " false", f);
		break;
	case NODE_STR:
		fputc(' ', f);
		ast_print_str(n->str ? n->str : "", n->str ? n->str_len : 0, f);
		break;
	case NODE_POSPARAM:
		if (n->is_count)
			fputs(" $#", f);
		else
			fprintf(f, " $%" PRIu64, n->num);
		break;
	case NODE_BINOP:
	case NODE_UNOP:
	case NODE_ASSIGN:
		fputc(' ', f);
		if (n->kind == NODE_ASSIGN && n->op != OP_INC && n->op != OP_DEC) {
			ast_print_op(n->op, f);
			fputc('=', f);
		} else {
			ast_print_op(n->op, f);
		}
		if (n->is_post)
			fputs(" post", f);
		break;
	case NODE_FIELD:
		fprintf(f, " %s%s", n->is_arrow ? "->" : ".", n->name ? n->name : "?");
		break;
	case NODE_CAST:
	case NODE_TYPE:
	case NODE_LET:
		if (n->cast_type)
			fprintf(f, " (%s)", n->cast_type);
		else if (n->type_expr)
			fputs(" (typeof)", f);
		break;
	case NODE_EXPR_STMT:
		if (n->is_discard)
			fputs(" _ =", f);
		break;
	case NODE_UNROLL:
		fprintf(f, " %" PRIu64, n->num);
		break;
	case NODE_ATTACH:
		fprintf(f, " %s", n->str ? n->str : "");
		break;
	case NODE_CDEF:
	case NODE_INCLUDE:
		fputc(' ', f);
		ast_print_str(n->str ? n->str : "", n->str ? strlen(n->str) : 0, f);
		break;
	default:
		if (n->name)
			fprintf(f, " %s", n->name);
		if (n->kind == NODE_CALL && n->cast_type)
			fprintf(f, " (%s)", n->cast_type);
		break;
	}
	fprintf(f, " %u:%u\n", n->loc.line, n->loc.col);

	ast_dump_list(n->args, depth + 1, NULL, f);
	if (n->type_expr)
		ast_dump_node(n->type_expr, depth + 1, "typeof", f);
	if (n->cond)
		ast_dump_node(n->cond, depth + 1, "cond", f);
	if (n->lhs)
		ast_dump_node(n->lhs, depth + 1, NULL, f);
	if (n->rhs)
		ast_dump_node(n->rhs, depth + 1, NULL, f);
	if (n->body) {
		/* Blocks and the program chain their statements through body->next. */
		if (n->kind == NODE_BLOCK || n->kind == NODE_PROGRAM)
			ast_dump_list(n->body, depth + 1, NULL, f);
		else
			ast_dump_node(n->body, depth + 1, NULL, f);
	}
	if (n->else_body)
		ast_dump_node(n->else_body, depth + 1, "else", f);
}

static void ast_dump_list(const struct node *n, int depth, const char *label, FILE *f)
{
	for (; n; n = n->next)
		ast_dump_node(n, depth, label, f);
}

void ast_dump(const struct node *n, FILE *f)
{
	if (n)
		ast_dump_node(n, 0, NULL, f);
}
