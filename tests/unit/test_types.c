// SPDX-License-Identifier: GPL-2.0
/*
 * The type universe and the checks of typed memory: records from the kernel's BTF and from C
 * text, member offsets, and the diagnostics for unknown structs, unknown members and
 * dereferencing what is not a pointer. BTF tests skip on a kernel without BTF.
 */
#include <bpf/btf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "arena.h"
#include "ctypes.h"
#include "frontend.h"
#include "meta.h"
#include "probe.h"
#include "testlib.h"

static struct tl_build *compile(const char *text)
{
	return tl_build(text, NULL, AOT_PASS_SEMA);
}

static bool has_diag(const struct tl_build *c, const char *msg, const char *hint)
{
	for (size_t i = 0; i < c->d->n; i++)
		if (strstr(c->d->v[i].msg, msg) &&
		    (!hint || (c->d->v[i].hint && strstr(c->d->v[i].hint, hint))))
			return true;
	return false;
}

static bool have_btf(void)
{
	return access("/sys/kernel/btf/vmlinux", R_OK) == 0;
}

/* The first member of a C record, found by name, with its offset. */
static const struct cmember *member(struct tl_build *c, const char *rec, const char *name)
{
	struct ctypes *ct = ctypes_get(c->prog, c->env);
	struct crecord *r = ctypes_record(ct, rec, false);
	const struct cmember *path[8];
	uint32_t n;

	if (!r)
		return NULL;
	n = ctypes_member(r, name, path, 8);
	return n ? path[n - 1] : NULL;
}

static void test_btf_records(void **state)
{
	struct tl_build *c;
	const struct cmember *m;
	struct btf *btf;
	int id;

	(void)state;
	if (!have_btf())
		skip();
	c = compile("BEGIN { printf(\"%d\\n\", curtask->real_parent->tgid); exit(); }");
	assert_int_equal(c->ret, 0);
	m = member(c, "task_struct", "tgid");
	assert_non_null(m);
	assert_int_equal(m->type.kind, TYPE_INT);
	assert_int_equal(m->type.size, 4);
	assert_true(m->parent->btf_id > 0);
	/* the offset is the kernel's own */
	btf = btf__load_vmlinux_btf();
	assert_non_null(btf);
	id = btf__find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT);
	assert_true(id > 0);
	{
		const struct btf_type *t = btf__type_by_id(btf, (uint32_t)id);
		const struct btf_member *bm = btf_members(t);
		uint32_t off = UINT32_MAX;

		for (uint16_t i = 0; i < btf_vlen(t); i++)
			if (!strcmp(btf__name_by_offset(btf, bm[i].name_off), "tgid"))
				off = btf_member_bit_offset(t, i) / 8;
		assert_int_equal(m->off, off);
	}
	btf__free(btf);
	/* comm is a char array: a string */
	m = member(c, "task_struct", "comm");
	assert_non_null(m);
	assert_int_equal(m->type.kind, TYPE_STR);
	assert_int_equal(m->type.size, 16);
	m = member(c, "task_struct", "real_parent");
	assert_int_equal(m->type.kind, TYPE_PTR);
	tl_free(c);
}

static void test_c_records(void **state)
{
	struct tl_build *c;
	const struct cmember *m;

	(void)state;
	c = compile("struct point { char tag; long x; union { int i; short s; }; char name[10]; "
		    "unsigned flag : 3; };\n"
		    "#define ANSWER (6 * 7)\n"
		    "BEGIN { $p = (struct point *)0; printf(\"%d\\n\", ANSWER); exit(); }");
	assert_int_equal(c->ret, 0);
	m = member(c, "point", "x");
	assert_non_null(m);
	assert_int_equal(m->off, 8);
	assert_int_equal(m->type.size, 8);
	assert_true(m->type.is_signed);
	assert_int_equal(m->parent->btf_id, 0);
	assert_int_equal(m->parent->size, 32);
	/* a member of an anonymous union is found through it (its offset is the union's) */
	m = member(c, "point", "s");
	assert_non_null(m);
	assert_true(m->parent->is_union);
	assert_string_equal(m->parent->name, "");
	assert_int_equal(m->off, 0);
	assert_int_equal(m->type.size, 2);
	m = member(c, "point", "name");
	assert_int_equal(m->type.kind, TYPE_STR);
	assert_int_equal(m->type.size, 10);
	m = member(c, "point", "flag");
	assert_int_equal(m->bit_size, 3);
	tl_free(c);
}

static void test_diagnostics(void **state)
{
	struct tl_build *c;

	(void)state;
	c = compile("BEGIN { $p = (struct no_such_thing *)0; exit(); }");
	assert_int_not_equal(c->ret, 0);
	assert_true(has_diag(c, "unknown type 'struct no_such_thing'", NULL));
	tl_free(c);

	c = compile("BEGIN { $x = \"ab\"; printf(\"%d\\n\", *$x); exit(); }");
	assert_int_not_equal(c->ret, 0);
	assert_true(has_diag(c, "cannot dereference char[3]: it is not a pointer", NULL));
	tl_free(c);

	/* an integer is an address, read as a u64 as bpftrace does (loads.bt: *kaddr(...)) */
	c = compile("BEGIN { $x = 5; printf(\"%d\\n\", *$x); exit(); }");
	assert_int_equal(c->ret, 0);
	tl_free(c);

	c = compile("struct s { int alpha; int beta; };\n"
		    "BEGIN { $p = (struct s *)0; printf(\"%d\\n\", $p->alpah); exit(); }");
	assert_int_not_equal(c->ret, 0);
	assert_true(has_diag(c, "struct s has no member 'alpah'", "did you mean 'alpha'"));
	tl_free(c);

	/* '.' follows a pointer, as in bpftrace 0.25 and later */
	c = compile("struct s { int alpha; };\n"
		    "BEGIN { $p = (struct s *)0; printf(\"%d\\n\", $p.alpha); exit(); }");
	assert_int_equal(c->ret, 0);
	tl_free(c);

	if (!have_btf())
		return;
	c = compile("BEGIN { printf(\"%d\\n\", curtask->real_parnt->tgid); exit(); }");
	assert_int_not_equal(c->ret, 0);
	assert_true(has_diag(c, "struct task_struct has no member 'real_parnt'", "'real_parent'"));
	tl_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_btf_records),
		cmocka_unit_test(test_c_records),
		cmocka_unit_test(test_diagnostics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
