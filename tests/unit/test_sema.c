// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the semantic pass: programs through parse, expand and sema, asserting on the
 * types, resolved names, metadata layouts, and the diagnostics each class of error produces.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "arena.h"
#include "frontend.h"
#include "meta.h"
#include "probe.h"
#include "testlib.h"

/* Through sema, with positional parameters. */
static struct tl_build *compile(const char *text, char **params, int nparams)
{
	AOT_COMPILE_OPTS(o, .params = params, .nparams = nparams);

	return tl_build(text, &o, AOT_PASS_SEMA);
}

static struct node *first_stmt(struct tl_build *c)
{
	return c->prog->root->body->body->body;
}

static void test_aggregations_and_tuple_keys(void **state)
{
	struct tl_build *c =
		compile("BEGIN { @x = count(); @y[1, \"ab\"] = sum(5); @z = avg(-3); }", NULL, 0);
	struct map_info *x, *y;
	const struct aot_map *my;

	(void)state;
	assert_int_equal(c->ret, 0);
	x = tl_find_map(c, "@x");
	y = tl_find_map(c, "@y");
	assert_non_null(x);
	assert_non_null(y);
	assert_int_equal(x->value.kind, TYPE_COUNT);
	assert_int_equal(x->nkeys, 0);
	assert_string_equal(x->elf_name, "AT_x");
	assert_int_equal(y->value.kind, TYPE_SUM);
	assert_int_equal(y->nkeys, 2);
	assert_int_equal(y->key.kind, TYPE_TUPLE);
	assert_int_equal(y->key.elems[0].size, 8);
	assert_int_equal(y->key.offsets[1], 8);
	assert_int_equal(y->key.elems[1].kind, TYPE_STR);
	assert_int_equal(y->key.size, 16); /* 8 + 3, padded to the 8-byte alignment */
	assert_int_equal(c->prog->meta->nmaps, 3);
	my = &c->prog->meta->maps[y->meta_idx];
	assert_int_equal(my->agg, AOT_AGG_SUM);
	assert_int_equal(my->key.kind, AOT_K_TUPLE);
	assert_int_equal(my->key.nelems, 2);
	assert_int_equal(c->prog->meta->elems[my->key.elems + 1].offset, 8);
	assert_true(c->prog->meta->maps[tl_find_map(c, "@z")->meta_idx].value.is_signed);
	tl_free(c);
}

static void test_string_keys_grow_and_cast(void **state)
{
	struct tl_build *c = compile("BEGIN { @[\"a\"] = 1; @[comm] = 2; }", NULL, 0);
	struct map_info *m;
	struct node *first;

	(void)state;
	assert_int_equal(c->ret, 0);
	m = tl_find_map(c, "@");
	assert_int_equal(m->key.kind, TYPE_STR);
	assert_int_equal(m->key.size, 16);
	/* The literal key "a" (2 bytes) meets a 16-byte slot: sema made the conversion explicit. */
	first = first_stmt(c);
	assert_int_equal(first->kind, NODE_ASSIGN);
	assert_int_equal(first->lhs->args->kind, NODE_CAST);
	assert_int_equal(first->lhs->args->type.size, 16);
	assert_int_equal(first->lhs->args->lhs->kind, NODE_STR);
	tl_free(c);
}

static void test_printf_layout(void **state)
{
	struct tl_build *c =
		compile("BEGIN { printf(\"%d %s %x\\n\", pid, comm, (uint8)3); }", NULL, 0);
	const struct aot_fmt *f;
	const struct aot_elem *e;

	(void)state;
	assert_int_equal(c->ret, 0);
	assert_int_equal(c->prog->meta->nfmts, 1);
	f = &c->prog->meta->fmts[0];
	assert_string_equal(f->fmt, "%d %s %x\n");
	assert_int_equal(f->args.nelems, 3);
	e = &c->prog->meta->elems[f->args.elems];
	assert_int_equal(e[0].type.kind, AOT_K_INT);
	assert_int_equal(e[0].type.size, 8);
	assert_int_equal(e[1].type.kind, AOT_K_STR);
	assert_int_equal(e[1].type.size, 16);
	assert_int_equal(e[1].offset, 8);
	assert_int_equal(e[2].offset, 24);
	assert_int_equal(e[2].type.size, 8); /* printf arguments widen to 64 bits */
	tl_free(c);
}

static void test_printf_errors(void **state)
{
	struct tl_build *c = compile("BEGIN { printf(\"%d %d\\n\", 1); }", NULL, 0);

	(void)state;
	assert_int_not_equal(c->ret, 0);
	assert_true(tl_has_error(c, "2 conversions but 1 argument"));
	tl_free(c);
	c = compile("BEGIN { printf(\"%d\\n\", comm); }", NULL, 0);
	assert_true(tl_has_error(c, "'%d' cannot print string[16]"));
	tl_free(c);
	c = compile("BEGIN { printf(\"%k %r %rh\\n\", 1, \"s\", buf(\"ab\", 2)); }", NULL, 0);
	assert_true(tl_has_error(c, "printf: unknown conversion '%k'"));
	assert_true(tl_has_error(c, "printf: '%r' cannot print string[2]"));
	assert_false(tl_has_error(c, "'%rh'"));
	tl_free(c);
}

static void test_type_conflicts(void **state)
{
	struct tl_build *c =
		compile("BEGIN { $x = 1; $x = \"a\"; @m = count(); @m = 1; }", NULL, 0);

	(void)state;
	assert_true(tl_has_error(c, "variable $x cannot hold both"));
	assert_true(tl_has_error(c, "@m cannot hold both count and int64"));
	tl_free(c);
	c = compile("BEGIN { @k[1] = 1; @k[1, 2] = 2; }", NULL, 0);
	assert_true(tl_has_error(c, "@k used with 2 keys"));
	tl_free(c);
}

static void test_unknown_names(void **state)
{
	struct tl_build *c = compile("BEGIN { @x = foo; bar(1); printf(\"%d\", $y); }", NULL, 0);

	(void)state;
	assert_true(tl_has_error(c, "unknown identifier 'foo'"));
	assert_true(tl_has_error(c, "unknown function 'bar'"));
	assert_true(tl_has_error(c, "variable $y is used before it is assigned"));
	/* Every error of the pass is reported, not just the first. */
	assert_int_equal(c->d->nerrors, 3);
	tl_free(c);
}

static void test_map_read_before_assignment(void **state)
{
	/* END is above BEGIN in the text: the map's type comes from the later probe. */
	struct tl_build *c = compile("END { printf(\"%d\\n\", @x); } BEGIN { @x = 1; }", NULL, 0);

	(void)state;
	assert_int_equal(c->ret, 0);
	tl_free(c);
	c = compile("BEGIN { printf(\"%d\\n\", @never); }", NULL, 0);
	assert_true(tl_has_error(c, "@never is read but never assigned"));
	tl_free(c);
}

static void test_aggregation_outside_assignment(void **state)
{
	struct tl_build *c = compile("BEGIN { $x = count(); printf(\"%d\", sum(1)); }", NULL, 0);

	(void)state;
	assert_true(tl_has_error(c, "count() can only be assigned to a map"));
	assert_true(tl_has_error(c, "sum() can only be assigned to a map"));
	tl_free(c);
}

static void test_positional_parameters(void **state)
{
	char *params[] = { "42", "hello" };
	struct tl_build *c = compile("BEGIN { @a = $1; @b = $2; @n = $#; }", params, 2);

	(void)state;
	assert_int_equal(c->ret, 0);
	assert_int_equal(tl_find_map(c, "@a")->value.kind, TYPE_INT);
	assert_int_equal(tl_find_map(c, "@b")->value.kind, TYPE_STR);
	assert_int_equal(first_stmt(c)->rhs->kind, NODE_INT);
	assert_int_equal(first_stmt(c)->rhs->num, 42);
	assert_int_equal(c->prog->meta->nparams, 2);
	tl_free(c);
	/* as bpftrace: one not given is 0, or "" in str(), with a warning */
	c = compile("BEGIN { @a = $3; @b = str($4); @c = str($1 + 1); }", params, 2);
	assert_int_equal(c->ret, 0);
	assert_false(tl_has_error(c, "$3"));
	assert_true(c->d->n >= 1 &&
		    strstr(c->d->v[0].msg, "Positional parameter $3 is empty or not provided"));
	assert_int_equal(first_stmt(c)->rhs->kind, NODE_INT);
	assert_int_equal(first_stmt(c)->rhs->num, 0);
	assert_int_equal(tl_find_map(c, "@b")->value.kind, TYPE_STR);
	/* str() is a string[BPFTRACE_STRLEN], as in bpftrace */
	assert_int_equal(tl_find_map(c, "@c")->value.size, AOT_STRLEN_DEFAULT);
	tl_free(c);
}

static void test_builtin_availability(void **state)
{
	struct tl_build *c = compile("BEGIN { @ = args->x; }", NULL, 0);

	(void)state;
	assert_true(tl_has_error(c, "'args' is not available in BEGIN probes"));
	tl_free(c);
}

static void test_tracepoint_args(void **state)
{
	struct tl_build *c;
	struct node *key;

	(void)state;
	if (access("/sys/kernel/tracing/events/syscalls/sys_enter_openat/format", R_OK)) {
		skip();
		return;
	}
	c = compile("tracepoint:syscalls:sys_enter_openat { @[str(args->filename)] = count(); "
		    "@f[args->flags] = 1; }",
		    NULL, 0);
	assert_int_equal(c->ret, 0);
	key = first_stmt(c)->lhs->args;
	assert_int_equal(key->kind, NODE_CALL);
	assert_int_equal(key->func, FN_STR);
	assert_true(key->is_user);
	assert_int_equal(key->type.size, AOT_STRLEN_DEFAULT);
	tl_free(c);
	c = compile("tracepoint:syscalls:sys_enter_openat { @ = args->nonexistent; }", NULL, 0);
	assert_true(tl_has_error(c, "has no field 'nonexistent'"));
	tl_free(c);
}

static void test_wildcard_probe_names(void **state)
{
	struct tl_build *c;
	uint32_t n = 0;

	(void)state;
	if (access("/sys/kernel/tracing/events/syscalls", R_OK)) {
		skip();
		return;
	}
	c = compile("tracepoint:syscalls:sys_enter_open* { @[probe] = count(); }", NULL, 0);
	assert_int_equal(c->ret, 0);
	for (struct node *ap = c->prog->root->body->args; ap; ap = ap->next)
		n += ap->nmatches;
	assert_true(n >= 2);
	assert_int_equal(c->prog->meta->nprobes, n);
	/* Each match is its own program with a unique function name and a canonical section. */
	assert_string_not_equal(c->prog->meta->probes[0].prog, c->prog->meta->probes[1].prog);
	assert_non_null(
		strstr(c->prog->root->body->args->matches[0].section, "tracepoint/syscalls/"));
	tl_free(c);
}

static void test_loops(void **state)
{
	struct tl_build *c =
		compile("BEGIN { $i = 0; while ($i < 3) { $i++; if ($i == 2) { break; } } "
			"unroll(2) { continue; } delete(@m[1]); @m[2] = 1; }",
			NULL, 0);

	(void)state;
	assert_int_equal(c->ret, 0);
	tl_free(c);
	c = compile("BEGIN { break; unroll(101) { } while (\"s\") { } delete(1); }", NULL, 0);
	assert_true(tl_has_error(c, "break outside a loop"));
	assert_true(tl_has_error(c, "unroll(101) is out of range"));
	assert_true(tl_has_error(c, "a loop condition needs an integer"));
	assert_true(tl_has_error(c, "delete() takes a map element"));
	tl_free(c);
}

static void test_unknown_probe_type(void **state)
{
	struct tl_build *c = compile("nosuch:thing { }", NULL, 0);

	(void)state;
	assert_true(tl_has_error(c, "unknown probe type 'nosuch'"));
	tl_free(c);
}

static void test_hist_lhist_stats(void **state)
{
	struct tl_build *c = compile("BEGIN { @h[comm] = hist(5); @l = lhist(3, 0, 100, 10); "
				     "@s = stats(-1); }",
				     NULL, 0);
	const struct aot_map *ml;
	struct map_info *h;

	(void)state;
	assert_int_equal(c->ret, 0);
	h = tl_find_map(c, "@h");
	assert_int_equal(h->value.kind, TYPE_HIST);
	assert_int_equal(c->prog->meta->maps[h->meta_idx].agg, AOT_AGG_HIST);
	ml = &c->prog->meta->maps[tl_find_map(c, "@l")->meta_idx];
	assert_int_equal(ml->agg, AOT_AGG_LHIST);
	assert_int_equal(ml->lhist_min, 0);
	assert_int_equal(ml->lhist_max, 100);
	assert_int_equal(ml->lhist_step, 10);
	assert_int_equal(c->prog->meta->maps[tl_find_map(c, "@s")->meta_idx].agg, AOT_AGG_STATS);
	assert_true(c->prog->meta->maps[tl_find_map(c, "@s")->meta_idx].value.is_signed);
	tl_free(c);

	c = compile(
		"BEGIN { @a = lhist(1, 10, 5, 1); @b = lhist(1, 0, 10, 0); @c = lhist(1, $1, 2, 1);"
		" @d = lhist(1, 0, 10, 1); @d = lhist(2, 0, 20, 1); @e = hist(1); @f = @e; }",
		(char *[]){ "x" }, 1);
	assert_true(tl_has_error(c, "lhist(): max must be greater than min"));
	assert_true(tl_has_error(c, "lhist(): step must be at least 1"));
	assert_true(tl_has_error(c, "lhist(): min must be an integer literal"));
	assert_true(tl_has_error(c, "@d gets lhist() with different bounds"));
	assert_true(tl_has_error(c, "@e holds a hist() aggregation, which cannot be read"));
	tl_free(c);
}

static void test_map_functions(void **state)
{
	struct tl_build *c =
		compile("BEGIN { @a[1] = count(); print(@a, 10, 2); clear(@a); zero(@a); "
			"print(5); time(); }",
			NULL, 0);

	(void)state;
	assert_int_equal(c->ret, 0);
	/* print(5) and time() are formats */
	assert_int_equal(c->prog->meta->nfmts, 2);
	assert_int_equal(c->prog->meta->fmts[0].kind, AOT_FMT_PRINT_VALUE);
	assert_int_equal(c->prog->meta->fmts[0].args.nelems, 1);
	assert_int_equal(c->prog->meta->fmts[1].kind, AOT_FMT_TIME);
	assert_string_equal(c->prog->meta->fmts[1].fmt, "%H:%M:%S\n");
	tl_free(c);

	c = compile("BEGIN { clear(@never); zero(@a[1]); print(@x, 1); @x = 1; print(1, 2); "
		    "$v = clear(@x); }",
		    NULL, 0);
	assert_true(tl_has_error(c, "@never is used but never assigned"));
	assert_true(tl_has_error(c, "zero() takes a whole map, without a key"));
	assert_true(tl_has_error(c, "print() takes a top and a divisor only after a whole map"));
	assert_true(tl_has_error(c, "clear() has no value"));
	tl_free(c);
}

static void test_rendered_values(void **state)
{
	struct tl_build *c = compile("BEGIN { @k[kstack(perf, 5)] = count(); @u[ustack] = count(); "
				     "@t = strftime(\"%H\", nsecs); @n = ntop(1); @w = username; "
				     "@s = sizeof(uint16); @z = sizeof(comm); }",
				     NULL, 0);
	struct map_info *k;
	const struct aot_map *mk;

	(void)state;
	assert_int_equal(c->ret, 0);
	assert_true(c->prog->uses_kstack && c->prog->uses_ustack);
	k = tl_find_map(c, "@k");
	assert_int_equal(k->key.kind, TYPE_BUF);
	mk = &c->prog->meta->maps[k->meta_idx];
	assert_int_equal(mk->key.kind, AOT_K_KSTACK);
	assert_int_equal(mk->key.nelems, 5);
	assert_int_equal(mk->key.elems, AOT_STACK_MODE_PERF);
	assert_int_equal(tl_find_map(c, "@u")->key.size, 16);
	assert_int_equal(c->prog->meta->maps[tl_find_map(c, "@t")->meta_idx].value.kind,
			 AOT_K_TIMESTAMP);
	assert_string_equal(
		c->prog->meta->fmts[c->prog->meta->maps[tl_find_map(c, "@t")->meta_idx].value.elems]
			.fmt,
		"%H");
	assert_int_equal(tl_find_map(c, "@n")->value.render, AOT_K_INET);
	assert_int_equal(tl_find_map(c, "@n")->value.size, 24);
	assert_int_equal(tl_find_map(c, "@w")->value.render, AOT_K_USERNAME);
	tl_free(c);

	c = compile("BEGIN { $x = kstack(fast, 3); $y = ustack(200); $z = ntop(\"ab\"); "
		    "$r = reg(\"ip\"); printf(\"%d\", kstack); }",
		    NULL, 0);
	assert_true(tl_has_error(c, "kstack(): unknown mode 'fast'"));
	assert_true(tl_has_error(c, "ustack(): the frame limit must be a literal from 1 to 127"));
	assert_true(tl_has_error(c, "ntop() cannot take string[3]"));
	assert_true(tl_has_error(c, "reg() is not available in BEGIN probes"));
	assert_true(tl_has_error(c, "printf: '%d' cannot print kstack"));
	tl_free(c);
}

static void test_unsafe_functions(void **state)
{
	struct tl_build *c = compile("BEGIN { system(\"ls %d\", 1); signal(\"KILL\"); }", NULL, 0);

	(void)state;
	assert_true(tl_has_error(c, "system() is an unsafe function"));
	assert_true(tl_has_error(c, "signal() is an unsafe function"));
	tl_free(c);
}

static void test_for_and_scopes(void **state)
{
	struct tl_build *c = compile("BEGIN { @m[\"a\"] = count(); for ($kv : @m) { $n = $kv.1; } "
				     "if (1) { $a = 1; $b = 1; } else { $a = 2; } $c = $a; }",
				     NULL, 0);
	struct node *f;

	(void)state;
	assert_int_equal(c->ret, 0);
	f = first_stmt(c)->next;
	assert_int_equal(f->kind, NODE_FOR);
	assert_int_equal(f->lhs->var->type.kind, TYPE_TUPLE);
	assert_int_equal(f->lhs->var->type.elems[0].kind, TYPE_STR);
	assert_int_equal(f->lhs->var->type.elems[1].kind, TYPE_INT);
	tl_free(c);

	c = compile(
		"BEGIN { @h = hist(1); for ($kv : @h) { } "
		"if (1) { $b = 1; } $c = $b; while (0) { $w = 1; } $d = $w; $t = (1, 2); $e = $t.2; }",
		NULL, 0);
	assert_true(tl_has_error(c, "for cannot iterate over a hist() map"));
	assert_true(tl_has_error(c, "variable $b was assigned only inside a block that has ended"));
	assert_true(tl_has_error(c, "variable $w was assigned only inside a block that has ended"));
	assert_true(tl_has_error(c, "(int64, int64) has no element '2'"));
	tl_free(c);
}

/* Variables uaddr() finds in this program's own symbol table. */
short sema_test_var16 = 16;
long sema_test_var128[2] = { 1, 2 };

static void test_uaddr(void **state)
{
	struct tl_build *c =
		compile("uprobe:/proc/self/exe:main { @a = *uaddr(\"sema_test_var16\"); "
			"@b = uaddr(\"sema_test_var128\"); }",
			NULL, 0);
	struct node *read, *call;

	(void)state;
	assert_int_equal(sema_test_var16 + sema_test_var128[1], 18);
	assert_int_equal(c->ret, 0);
	read = first_stmt(c)->rhs->lhs; /* under the cast to the map's int64 */
	assert_int_equal(read->kind, NODE_UNOP);
	call = read->lhs;
	assert_int_equal(call->func, FN_UADDR);
	assert_int_equal(call->type.kind, TYPE_PTR);
	assert_true(call->type.is_user);
	assert_int_equal(call->type.pointee->size, 2);
	assert_true(call->type.pointee->is_signed);
	assert_int_equal(read->type.size, 2); /* the read is an int16 */
	/* a size other than 1, 2, 4 or 8 bytes reads an int64, as in bpftrace */
	assert_int_equal(first_stmt(c)->next->rhs->type.pointee->size, 8);
	tl_free(c);

	c = compile(
		"uprobe:/proc/self/exe:main { @a = uaddr(\"main\"); $s = \"x\"; @b = uaddr($s); } "
		"BEGIN { @c = uaddr(\"sema_test_var16\"); }",
		NULL, 0);
	assert_true(tl_has_error(c, "has no symbol 'main'"));
	assert_true(tl_has_error(c, "uaddr() needs a literal string as its symbol name"));
	assert_true(tl_has_error(c, "uaddr() is not available in BEGIN probes"));
	tl_free(c);
}

static void test_exit_code(void **state)
{
	struct tl_build *c = compile("BEGIN { exit(); } END { exit((uint8)3 + 1); }", NULL, 0);

	(void)state;
	assert_int_equal(c->ret, 0);
	assert_null(first_stmt(c)->lhs->args);
	/* the code goes into the event as an int64 */
	assert_int_equal(c->prog->root->body->next->body->body->lhs->args->type.size, 8);
	tl_free(c);

	c = compile("BEGIN { exit(\"a\"); exit(1, 2); $x = exit(1); }", NULL, 0);
	assert_true(tl_has_error(c, "the exit code of exit() needs an integer, not string[2]"));
	assert_true(tl_has_error(c, "exit() takes at most 1 argument, not 2"));
	assert_true(tl_has_error(c, "exit() has no value"));
	tl_free(c);
}

static void test_pointer_arithmetic(void **state)
{
	struct tl_build *c = compile("BEGIN { $p = (int32 *)1000; $q = $p + 2; $r = 3 - 1 + $p; "
				     "$p -= 1; @m = (int8 *)0; @m++; }",
				     NULL, 0);
	struct node *add, *sub;

	(void)state;
	assert_int_equal(c->ret, 0);
	add = first_stmt(c)->next->rhs;
	assert_int_equal(add->kind, NODE_BINOP);
	assert_int_equal(add->type.kind, TYPE_PTR);
	/* lowering scaled the integer side by the int32's size */
	assert_int_equal(add->rhs->kind, NODE_BINOP);
	assert_int_equal(add->rhs->op, '*');
	assert_int_equal(add->rhs->rhs->num, 4);
	assert_int_equal(first_stmt(c)->next->next->rhs->lhs->rhs->num, 4); /* int + pointer */
	sub = first_stmt(c)->next->next->next;
	assert_int_equal(sub->op, '-');
	assert_int_equal(sub->rhs->rhs->num, 4);
	/* elements of one byte need no scaling */
	assert_int_equal(first_stmt(c)->next->next->next->next->next->rhs->kind, NODE_INT);
	assert_int_equal(tl_find_map(c, "@m")->value.kind, TYPE_PTR);
	tl_free(c);

	c = compile("BEGIN { $p = (int32 *)1000; $q = $p; @a = $p - $q; @b = 1 - $p; "
		    "@c = $p << 1; $p |= 1; $p += $q; @d = $p < $q; }",
		    NULL, 0);
	assert_true(tl_has_error(c, "operator '-' cannot take int32 * and int32 *"));
	assert_true(tl_has_error(c, "operator '-' cannot take int64 and int32 *"));
	assert_true(tl_has_error(c, "operator '<<' cannot take int32 * and int64"));
	assert_true(tl_has_error(c, "'|=' cannot take int32 * and int64"));
	assert_true(tl_has_error(c, "'+=' cannot take int32 * and int32 *"));
	assert_false(tl_has_error(c, "'<'")); /* comparisons stay */
	tl_free(c);
}

/* The probe_arg sarg N of the first match of a program's first probe. */
static const struct probe_arg *stack_arg(struct tl_build *c, const char *name)
{
	const struct probe_match *m = &c->prog->root->body->args->matches[0];

	for (uint32_t i = 0; i < m->nargs; i++)
		if (m->args[i].hidden && !strcmp(m->args[i].name, name))
			return &m->args[i];
	return NULL;
}

static void test_stack_args(void **state)
{
	struct tl_build *c = compile("kprobe:vfs_read { @k = sarg1; }", NULL, 0);
	const struct probe_arg *a;

	(void)state;
	if (c->ret && tl_has_error(c, "kprobe")) {
		tl_free(c); /* no kprobe targets to expand here */
		skip();
		return;
	}
	assert_int_equal(c->ret, 0);
	a = stack_arg(c, "sarg1");
	assert_non_null(a);
	/* a kprobe's stack is kernel memory: sp (pt_regs slot 19) + 16 */
	assert_int_equal(a->loc, PROBE_ARG_KMEM);
	assert_int_equal(a->offset, 19 * 8);
	assert_int_equal(a->loc_value, 16);
	assert_false(first_stmt(c)->rhs->is_user);
	tl_free(c);

	c = compile("uprobe:/proc/self/exe:main { @u = sarg0; }", NULL, 0);
	assert_int_equal(c->ret, 0);
	assert_int_equal(stack_arg(c, "sarg0")->loc, PROBE_ARG_MEM);
	assert_int_equal(stack_arg(c, "sarg0")->loc_value, 8);
	tl_free(c);

	c = compile(
		"kretprobe:vfs_read { @a = sarg0; } uretprobe:/proc/self/exe:main { @b = sarg0; } "
		"kprobe:vfs_read { @c = sarg8; }",
		NULL, 0);
	assert_true(tl_has_error(c, "'sarg0' is not available in kretprobe probes"));
	assert_true(tl_has_error(c, "'sarg0' is not available in uretprobe probes"));
	assert_true(tl_has_error(c, "kprobe:vfs_read has no sarg8"));
	tl_free(c);
}

/* Every id has its row, and each row's name finds it in the forms it is written in. */
static void test_func_table(void **state)
{
	char name[64];

	(void)state;
	assert_null(func_defs[FN_NONE].name);
	for (int id = FN_NONE + 1; id < FN__NUM; id++) {
		const struct func_def *f = &func_defs[id];

		assert_non_null(f->name);
		/* an imported .bpf.c's function is found by its name there, never in the table */
		if (id == FN_CFUNC) {
			assert_int_equal(f->flags & (FUNC_BARE | FUNC_CALL), 0);
			continue;
		}
		assert_true(f->flags & (FUNC_BARE | FUNC_CALL));
		assert_true(f->min_args <= f->max_args);
		snprintf(name, sizeof(name), "%s%s", f->name, f->flags & FUNC_NUMBERED ? "7" : "");
		if (f->flags & FUNC_BARE)
			assert_int_equal(func_find(name, FUNC_BARE), id);
		if (f->flags & FUNC_CALL)
			assert_int_equal(func_find(name, FUNC_CALL), id);
		/* an aggregation is only a map's value, which has no emitter of its own */
		if (f->flags & FUNC_AGG)
			assert_null(f->emit);
	}
	assert_int_equal(func_find("arg12", FUNC_BARE), FN_ARG);
	assert_int_equal(func_find("arg", FUNC_BARE), FN_NONE);
	assert_int_equal(func_find("args", FUNC_BARE), FN_ARGS);
	assert_int_equal(func_find("arg1x", FUNC_BARE), FN_NONE);
	/* uid() is the builtin uid (FUNC_NULLARY: macro.c makes it so); 0.27's __builtin_ names */
	assert_int_equal(func_find("uid", FUNC_CALL), FN_NONE);
	assert_true(func_defs[FN_UID].flags & FUNC_NULLARY);
	assert_false(func_defs[FN_CTX].flags & FUNC_NULLARY);
	assert_int_equal(func_find("__builtin_cpu", FUNC_BARE), FN_CPU);
	assert_int_equal(func_find("__builtin_comm", FUNC_CALL), FN_NONE);
	assert_int_equal(func_find("__builtin_pid", FUNC_BARE), FN_NONE);
	assert_int_equal(func_find("__builtin_uaddr", FUNC_CALL), FN_UADDR);
	assert_string_equal(func_unwrap("__builtin_retval", FUNC_BARE), "retval");
	assert_null(func_unwrap("retval", FUNC_BARE));
	assert_int_equal(func_find("count", FUNC_BARE), FN_NONE);
}

/* kstack is kstack(): one row, written either way, gives one type. */
static void test_builtin_and_call(void **state)
{
	struct tl_build *c = compile("BEGIN { @a = kstack; @b = kstack(); @c = ustack; "
				     "@d = ustack(); }",
				     NULL, 0);
	static const char *const maps[] = { "@a", "@b", "@c", "@d" };
	const struct type *t[4];

	(void)state;
	assert_int_equal(c->ret, 0);
	for (int i = 0; i < 4; i++)
		t[i] = &tl_find_map(c, maps[i])->value;
	for (int i = 0; i < 4; i += 2) {
		assert_int_equal(t[i]->kind, TYPE_BUF);
		assert_int_equal(t[i]->kind, t[i + 1]->kind);
		assert_int_equal(t[i]->size, t[i + 1]->size);
		assert_int_equal(t[i]->render, t[i + 1]->render);
		assert_int_equal(t[i]->render_arg, t[i + 1]->render_arg);
	}
	assert_int_equal(t[0]->render, AOT_K_KSTACK);
	assert_int_equal(t[2]->render, AOT_K_USTACK);
	assert_true(c->prog->uses_kstack && c->prog->uses_ustack);
	tl_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aggregations_and_tuple_keys),
		cmocka_unit_test(test_string_keys_grow_and_cast),
		cmocka_unit_test(test_printf_layout),
		cmocka_unit_test(test_printf_errors),
		cmocka_unit_test(test_type_conflicts),
		cmocka_unit_test(test_unknown_names),
		cmocka_unit_test(test_map_read_before_assignment),
		cmocka_unit_test(test_aggregation_outside_assignment),
		cmocka_unit_test(test_positional_parameters),
		cmocka_unit_test(test_builtin_availability),
		cmocka_unit_test(test_tracepoint_args),
		cmocka_unit_test(test_wildcard_probe_names),
		cmocka_unit_test(test_loops),
		cmocka_unit_test(test_unknown_probe_type),
		cmocka_unit_test(test_hist_lhist_stats),
		cmocka_unit_test(test_map_functions),
		cmocka_unit_test(test_rendered_values),
		cmocka_unit_test(test_unsafe_functions),
		cmocka_unit_test(test_for_and_scopes),
		cmocka_unit_test(test_uaddr),
		cmocka_unit_test(test_exit_code),
		cmocka_unit_test(test_pointer_arithmetic),
		cmocka_unit_test(test_stack_args),
		cmocka_unit_test(test_func_table),
		cmocka_unit_test(test_builtin_and_call),
	};

	return cmocka_run_group_tests_name("sema", tests, NULL, NULL);
}
