// SPDX-License-Identifier: GPL-2.0
/*
 * The script's C definitions and #include lines, parsed with libclang into the type universe.
 * One virtual file holds them in order. Headers that are not installed are dropped (with a
 * warning), and names clang cannot resolve are defined from the kernel's BTF and the file parsed
 * again, so a script whose types BTF has works without kernel headers. Records the script
 * defines keep its layout; records it only names come from BTF, whose accesses are relocatable.
 */
#include <bpf/btf.h>
#include <clang-c/Index.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "arena.h"
#include "ctypes.h"
#include "diag.h"

#define CC_FILE "aotrace_definitions.c"
#define CC_MAX_PASSES 5
#define CC_CONST_PREFIX "__aot_const_"

/*
 * libclang is opened with dlopen when a script first has C definitions: it brings its own
 * shared libLLVM, which must not meet the LLVM linked into aotrace (two copies of LLVM's
 * global registries in one symbol namespace break), and scripts without C pay nothing.
 */
#ifndef AOT_LIBCLANG
#define AOT_LIBCLANG "libclang-19.so.19"
#endif
/* clang-format off */
#define CC_API(X) \
	X(clang_Cursor_Evaluate) \
	X(clang_Cursor_getOffsetOfField) \
	X(clang_Cursor_isAnonymous) \
	X(clang_Cursor_isAnonymousRecordDecl) \
	X(clang_Cursor_isBitField) \
	X(clang_EvalResult_dispose) \
	X(clang_EvalResult_getAsLongLong) \
	X(clang_EvalResult_getKind) \
	X(clang_Location_isFromMainFile) \
	X(clang_Type_getSizeOf) \
	X(clang_Type_visitFields) \
	X(clang_createIndex) \
	X(clang_disposeDiagnostic) \
	X(clang_disposeIndex) \
	X(clang_disposeString) \
	X(clang_disposeTranslationUnit) \
	X(clang_getArrayElementType) \
	X(clang_getArraySize) \
	X(clang_getCString) \
	X(clang_getCanonicalType) \
	X(clang_getCursorDefinition) \
	X(clang_getCursorLocation) \
	X(clang_getCursorSpelling) \
	X(clang_getCursorType) \
	X(clang_getDiagnostic) \
	X(clang_getDiagnosticLocation) \
	X(clang_getDiagnosticSeverity) \
	X(clang_getDiagnosticSpelling) \
	X(clang_getEnumConstantDeclValue) \
	X(clang_getExpansionLocation) \
	X(clang_getFieldDeclBitWidth) \
	X(clang_getFileName) \
	X(clang_getInclusions) \
	X(clang_getNumDiagnostics) \
	X(clang_getPointeeType) \
	X(clang_getTranslationUnitCursor) \
	X(clang_getTypeDeclaration) \
	X(clang_getTypedefDeclUnderlyingType) \
	X(clang_isCursorDefinition) \
	X(clang_parseTranslationUnit2) \
	X(clang_visitChildren)
#define CC_API_FIELD(f) __typeof__(&f) f;
struct cc_api {
	void *lib;
	CC_API(CC_API_FIELD)
};
/* clang-format on */

/* One parse's state. */
struct cc {
	struct cc_api api;
	struct ctypes *ct;
	struct arena *a;
	struct ctypes_c *c;
	struct diags *d;
	const struct btf *btf;
	/* the virtual file: text, and for each of its lines the script line it came from */
	char *text;
	size_t len, cap;
	uint32_t *origin;
	uint32_t nlines, caplines;
	uint32_t script_first, script_last; /* lines of the script's own definitions */
	uint32_t consts_first;		    /* first line of the constant probes */
	struct btf_dump *dump;
	char *prelude;
	size_t prelude_len, prelude_cap;
	const char *const *wanted;
};

static void cc_grow(struct arena *a, char **buf, size_t *cap, size_t need)
{
	char *n;

	if (need <= *cap)
		return;
	while (*cap < need)
		*cap = *cap ? *cap * 2 : 4096;
	n = arena_alloc(a, *cap);
	if (*buf)
		memcpy(n, *buf, strlen(*buf) + 1);
	*buf = n;
}

/* Appends text that came from script line `line` (0: generated). */
static void cc_append(struct cc *cc, const char *s, uint32_t line)
{
	size_t n = strlen(s);

	cc_grow(cc->a, &cc->text, &cc->cap, cc->len + n + 2);
	memcpy(cc->text + cc->len, s, n);
	cc->len += n;
	cc->text[cc->len++] = '\n';
	cc->text[cc->len] = 0;
	for (const char *p = s;; p++) {
		if (cc->nlines == cc->caplines) {
			uint32_t c = cc->caplines ? cc->caplines * 2 : 256;
			uint32_t *v = arena_alloc(cc->a, c * sizeof(*v));

			if (cc->nlines)
				memcpy(v, cc->origin, cc->nlines * sizeof(*v));
			cc->origin = v;
			cc->caplines = c;
		}
		cc->origin[cc->nlines++] = line;
		if (line)
			line++;
		p = strchr(p, '\n');
		if (!p)
			break;
	}
}

static void cc_dump_printf(void *ctx, const char *fmt, va_list ap)
{
	struct cc *cc = ctx;
	char buf[1024];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);

	if (n <= 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	cc_grow(cc->a, &cc->prelude, &cc->prelude_cap, cc->prelude_len + (size_t)n + 1);
	memcpy(cc->prelude + cc->prelude_len, buf, (size_t)n);
	cc->prelude_len += (size_t)n;
	cc->prelude[cc->prelude_len] = 0;
}

/* The virtual file: includes, the BTF prelude, the script's definitions, constant probes. */
static void cc_build(struct cc *cc, const struct program *prog, const bool *dropped)
{
	bool prelude_done = false;
	uint32_t i = 0;

	cc->len = 0;
	cc->nlines = 0;
	cc->script_first = UINT32_MAX;
	cc->script_last = 0;
	if (cc->text)
		cc->text[0] = 0;
	for (struct node *p = prog->root->body; p; p = p->next) {
		if (p->kind != NODE_CDEF && p->kind != NODE_INCLUDE)
			continue;
		if (p->kind == NODE_CDEF && !prelude_done) {
			prelude_done = true;
			if (cc->prelude_len)
				cc_append(cc, cc->prelude, 0);
		}
		if (dropped[i++]) {
			cc_append(cc, "", p->loc.line);
			continue;
		}
		if (p->kind == NODE_CDEF) {
			if (cc->script_first == UINT32_MAX)
				cc->script_first = cc->nlines + 1;
			cc_append(cc, p->str, p->loc.line);
			cc->script_last = cc->nlines;
		} else {
			cc_append(cc, p->str, p->loc.line);
		}
	}
	if (!prelude_done && cc->prelude_len)
		cc_append(cc, cc->prelude, 0);
	cc->consts_first = cc->nlines + 1;
	for (const char *const *w = cc->wanted; w && *w; w++) {
		char *s =
			arena_printf(cc->a, "#ifdef %s\nlong long %s%s = (long long)(%s);\n#endif",
				     *w, CC_CONST_PREFIX, *w, *w);

		cc_append(cc, s, 0);
	}
}

static const char *cc_kernel_dir(struct arena *a)
{
	struct utsname u;
	char *dir;

	if (uname(&u))
		return NULL;
	dir = arena_printf(a, "/lib/modules/%s/build", u.release);
	return access(dir, R_OK) == 0 ? dir : NULL;
}

static CXTranslationUnit cc_parse(struct cc *cc, CXIndex idx)
{
	const struct program *prog = ctypes_program(cc->ct);
	const char *const *dirs = prog->opts->include_dirs, *const *incs = prog->opts->includes;
	size_t nuser = 0;
	const char **args;
	int n = 0;
	const char *kdir = cc_kernel_dir(cc->a);
	struct CXUnsavedFile uf = { .Filename = CC_FILE,
				    .Contents = cc->text,
				    .Length = (unsigned long)cc->len };
	CXTranslationUnit tu = NULL;

	for (const char *const *p = dirs; p && *p; p++)
		nuser++;
	for (const char *const *p = incs; p && *p; p++)
		nuser += 2;
	args = arena_alloc(cc->a, (32 + nuser) * sizeof(*args));
	args[n++] = "-x";
	args[n++] = "c";
	args[n++] = "-std=gnu11";
	args[n++] = "-w";
	args[n++] = "-ferror-limit=0";
	/* bpftrace's tools choose between kernel headers and BTF with this */
	if (cc->btf)
		args[n++] = "-DBPFTRACE_HAVE_BTF";
	/* -I DIR: searched before the kernel's headers */
	for (const char *const *p = dirs; p && *p; p++)
		args[n++] = arena_printf(cc->a, "-I%s", *p);
	if (kdir) {
		static const char *const sub[] = {
			"arch/x86/include",	  "arch/x86/include/generated",	     "include",
			"arch/x86/include/uapi",  "arch/x86/include/generated/uapi", "include/uapi",
			"include/generated/uapi",
		};

		for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++)
			args[n++] = arena_printf(cc->a, "-I%s/%s", kdir, sub[i]);
		args[n++] = "-D__KERNEL__";
		args[n++] = "-include";
		args[n++] = arena_printf(cc->a, "%s/include/linux/kconfig.h", kdir);
	}
	for (const char *const *p = incs; p && *p; p++) {
		args[n++] = "-include";
		args[n++] = *p;
	}
	if (cc->api.clang_parseTranslationUnit2(idx, CC_FILE, args, n, &uf, 1,
						CXTranslationUnit_DetailedPreprocessingRecord |
							CXTranslationUnit_SkipFunctionBodies,
						&tu) != CXError_Success)
		return NULL;
	return tu;
}

/* Every file the definitions included is a dependency of the object (the cache checks them). */
static void cc_inclusion(CXFile file, CXSourceLocation *stack, unsigned depth, CXClientData data)
{
	struct cc *cc = data;
	CXString name = cc->api.clang_getFileName(file);
	const char *path = cc->api.clang_getCString(name);

	(void)stack, (void)depth;
	if (path && strcmp(path, CC_FILE))
		program_add_dep(ctypes_program(cc->ct), path);
	cc->api.clang_disposeString(name);
}

/* The first 'quoted' name in a diagnostic message, without a leading struct/union. */
static const char *cc_quoted(struct arena *a, const char *msg, bool *is_record, bool *is_union)
{
	const char *s = strchr(msg, '\''), *e;

	*is_record = *is_union = false;
	if (!s || !(e = strchr(s + 1, '\'')))
		return NULL;
	s++;
	if (!strncmp(s, "struct ", 7)) {
		*is_record = true;
		s += 7;
	} else if (!strncmp(s, "union ", 6)) {
		*is_record = *is_union = true;
		s += 6;
	}
	return arena_strndup(a, s, (size_t)(e - s));
}

/* Defines name from BTF in the prelude; false if BTF lacks it. */
static bool cc_from_btf(struct cc *cc, const char *name, bool is_record, bool is_union)
{
	int id = -1;

	if (!cc->btf)
		return false;
	if (is_record) {
		id = btf__find_by_name_kind(cc->btf, name,
					    is_union ? BTF_KIND_UNION : BTF_KIND_STRUCT);
	} else {
		id = btf__find_by_name_kind(cc->btf, name, BTF_KIND_TYPEDEF);
		if (id < 0)
			id = btf__find_by_name_kind(cc->btf, name, BTF_KIND_STRUCT);
	}
	if (id <= 0)
		return false;
	if (!cc->dump) {
		cc->dump = btf_dump__new(cc->btf, cc_dump_printf, cc, NULL);
		if (!cc->dump)
			return false;
	}
	return btf_dump__dump_type(cc->dump, (uint32_t)id) == 0;
}

/* Is clang's "'FILE' file not found" about a --include FILE? */
static bool cc_is_include_opt(const struct program *prog, const char *msg)
{
	size_t len;

	for (const char *const *p = prog->opts->includes; p && *p; p++) {
		len = strlen(*p);
		if (msg[0] == '\'' && !strncmp(msg + 1, *p, len) && msg[len + 1] == '\'')
			return true;
	}
	return false;
}

/*
 * Looks at the errors: drops includes that are not found, defines unknown names from BTF.
 * Returns true if the file changed and needs another parse; reports what is left when final.
 */
static bool cc_fix(struct cc *cc, CXTranslationUnit tu, const struct program *prog, bool *dropped,
		   bool final)
{
	unsigned nd = cc->api.clang_getNumDiagnostics(tu), reported = 0;
	bool changed = false;

	for (unsigned i = 0; i < nd; i++) {
		CXDiagnostic dg = cc->api.clang_getDiagnostic(tu, i);
		CXString msg = cc->api.clang_getDiagnosticSpelling(dg);
		const char *m = cc->api.clang_getCString(msg);
		CXSourceLocation sl = cc->api.clang_getDiagnosticLocation(dg);
		CXFile file;
		unsigned line = 0, col = 0;
		bool in_main, is_record, is_union;
		const char *name;

		cc->api.clang_getExpansionLocation(sl, &file, &line, &col, NULL);
		in_main = cc->api.clang_Location_isFromMainFile(sl);
		if (cc->api.clang_getDiagnosticSeverity(dg) < CXDiagnostic_Error)
			goto next;
		if (!in_main && strstr(m, "file not found") && cc_is_include_opt(prog, m)) {
			/* --include FILE that is nowhere: said once, on the last pass */
			if (final)
				diag_warn(cc->d, prog->root->loc,
					  "give its path, or the folder it is in with -I DIR",
					  "--include: %s", m);
			goto next;
		}
		if (in_main && strstr(m, "file not found") && line && line <= cc->nlines) {
			uint32_t k = 0;

			/* Which include was it? Count the CDEF/INCLUDE nodes up to its line. */
			for (struct node *p = prog->root->body; p; p = p->next) {
				if (p->kind != NODE_CDEF && p->kind != NODE_INCLUDE)
					continue;
				if (p->kind == NODE_INCLUDE &&
				    p->loc.line == cc->origin[line - 1] && !dropped[k]) {
					dropped[k] = true;
					changed = true;
					diag_warn(
						cc->d, p->loc,
						"types it would define come from the kernel's BTF",
						"%s", m);
				}
				k++;
			}
			goto next;
		}
		name = cc_quoted(cc->a, m, &is_record, &is_union);
		if (name && (strstr(m, "unknown type name") || strstr(m, "incomplete type")) &&
		    cc_from_btf(cc, name, is_record, is_union)) {
			changed = true;
			goto next;
		}
		/* Errors in the generated lines (BTF, constant probes) are not the script's. */
		if (final && in_main && line && line <= cc->nlines && cc->origin[line - 1] &&
		    line < cc->consts_first && reported < 5) {
			struct loc l = { .line = cc->origin[line - 1], .col = 1, .len = 1 };

			diag_warn(cc->d, l, "definitions that depend on it may be missing",
				  "C definitions: %s", m);
			reported++;
		}
	next:
		cc->api.clang_disposeString(msg);
		cc->api.clang_disposeDiagnostic(dg);
	}
	return changed;
}

/* ---- conversion of clang's types ---- */

static struct type cc_type(struct cc *cc, CXType t);

static bool cc_script_defined(struct cc *cc, CXCursor c)
{
	CXSourceLocation sl = cc->api.clang_getCursorLocation(c);
	unsigned line = 0;

	if (!cc->api.clang_Location_isFromMainFile(sl))
		return false;
	cc->api.clang_getExpansionLocation(sl, NULL, &line, NULL, NULL);
	return line >= cc->script_first && line <= cc->script_last;
}

struct cc_fields {
	struct cc *cc;
	struct crecord *r;
	uint32_t cap;
};

static enum CXVisitorResult cc_field(CXCursor f, CXClientData data)
{
	struct cc_fields *fs = data;
	struct cc *cc = fs->cc;
	struct crecord *r = fs->r;
	struct cmember *m;
	CXString name;
	long long bits = cc->api.clang_Cursor_getOffsetOfField(f);

	if (r->nmembers == fs->cap) {
		uint32_t c = fs->cap ? fs->cap * 2 : 16;
		struct cmember *v = arena_alloc(fs->cc->a, c * sizeof(*v));

		if (r->nmembers)
			memcpy(v, r->members, r->nmembers * sizeof(*v));
		r->members = v;
		fs->cap = c;
	}
	m = &r->members[r->nmembers];
	name = cc->api.clang_getCursorSpelling(f);
	{
		/*
		 * An anonymous member has no name of its own (libclang spells it "struct
		 * foo::(anonymous at ...)"); `struct { ... } in;` does.
		 */
		CXCursor td = cc->api.clang_getTypeDeclaration(cc->api.clang_getCursorType(f));
		const char *s = cc->api.clang_getCString(name);
		bool anon = (cc->api.clang_Cursor_isAnonymousRecordDecl(td) ||
			     cc->api.clang_Cursor_isAnonymous(td)) &&
			    (!s || !*s || strchr(s, '('));

		m->name = arena_strdup(fs->cc->a, anon ? "" : s);
	}
	cc->api.clang_disposeString(name);
	m->type = cc_type(fs->cc, cc->api.clang_getCursorType(f));
	if (bits < 0)
		bits = 0;
	m->off = (uint32_t)(bits / 8);
	if (cc->api.clang_Cursor_isBitField(f)) {
		m->bit_size = (uint32_t)cc->api.clang_getFieldDeclBitWidth(f);
		m->bit_off = (uint32_t)(bits % 8);
	}
	m->index = r->nmembers;
	m->parent = r;
	r->nmembers++;
	return CXVisit_Continue;
}

static struct crecord *cc_record(struct cc *cc, CXType t)
{
	CXCursor decl = cc->api.clang_getTypeDeclaration(t);
	bool is_union = decl.kind == CXCursor_UnionDecl;
	bool anon = cc->api.clang_Cursor_isAnonymous(decl) ||
		    cc->api.clang_Cursor_isAnonymousRecordDecl(decl);
	CXString s = cc->api.clang_getCursorSpelling(decl);
	char *name = arena_strdup(cc->a, anon ? "" : cc->api.clang_getCString(s));
	struct cc_named *e;
	struct crecord *r;
	struct cc_fields fs = { .cc = cc };
	long long size;

	cc->api.clang_disposeString(s);
	if (*name) {
		for (e = cc->c->records; e; e = e->next)
			if (e->is_union == is_union && !strcmp(e->name, name))
				return e->rec;
		/* Named only, or from a header: the kernel's definition, which CO-RE relocates. */
		if (!cc_script_defined(cc, cc->api.clang_getCursorDefinition(decl)) &&
		    (r = ctypes_record(cc->ct, name, is_union)))
			return r;
	}
	r = arena_alloc(cc->a, sizeof(*r));
	r->name = name;
	r->is_union = is_union;
	r->ct = cc->ct;
	size = cc->api.clang_Type_getSizeOf(t);
	r->defined = size >= 0;
	r->size = size > 0 ? (uint32_t)size : 0;
	if (*name) {
		e = arena_alloc(cc->a, sizeof(*e));
		e->name = name;
		e->is_union = is_union;
		e->rec = r;
		e->next = cc->c->records;
		cc->c->records = e;
	}
	fs.r = r;
	if (r->defined)
		cc->api.clang_Type_visitFields(t, cc_field, &fs);
	r->complete = true;
	return r;
}

struct cc_enumerators {
	struct cc *cc;
	struct cenum *en;
	uint32_t cap;
};

static enum CXChildVisitResult cc_enumerator(CXCursor c, CXCursor parent, CXClientData data)
{
	struct cc_enumerators *es = data;
	struct cc *cc = es->cc;
	struct cenum *en = es->en;
	CXString s;

	(void)parent;
	if (c.kind != CXCursor_EnumConstantDecl)
		return CXChildVisit_Continue;
	if (en->n == es->cap) {
		uint32_t cap = es->cap ? 2 * es->cap : 8;

		en->names = arena_grow(cc->a, en->names, en->n, cap, sizeof(*en->names));
		en->vals = arena_grow(cc->a, en->vals, en->n, cap, sizeof(*en->vals));
		es->cap = cap;
	}
	s = cc->api.clang_getCursorSpelling(c);
	en->names[en->n] = arena_strdup(cc->a, cc->api.clang_getCString(s));
	cc->api.clang_disposeString(s);
	en->vals[en->n++] = cc->api.clang_getEnumConstantDeclValue(c);
	return CXChildVisit_Continue;
}

static bool cc_enum_same(const struct cenum *x, const struct cenum *y)
{
	if (strcmp(x->name, y->name) || x->n != y->n)
		return false;
	for (uint32_t i = 0; i < x->n; i++)
		if (x->vals[i] != y->vals[i] || strcmp(x->names[i], y->names[i]))
			return false;
	return true;
}

/*
 * The enum an EnumDecl declares, once per enum: made only for the enums that the script
 * defines, whose constants it uses, or that type a member, since headers declare thousands.
 */
static struct cenum *cc_enum(struct cc *cc, CXCursor decl)
{
	CXCursor def = cc->api.clang_getCursorDefinition(decl);
	struct cc_enumerators es = { .cc = cc };
	CXString s;
	struct cc_named *e;

	if (def.kind == CXCursor_EnumDecl)
		decl = def;
	es.en = arena_alloc(cc->a, sizeof(*es.en));
	s = cc->api.clang_getCursorSpelling(decl);
	es.en->name = arena_strdup(
		cc->a, cc->api.clang_Cursor_isAnonymous(decl) ? "" : cc->api.clang_getCString(s));
	cc->api.clang_disposeString(s);
	cc->api.clang_visitChildren(decl, cc_enumerator, &es);
	for (e = cc->c->enums; e; e = e->next)
		if (cc_enum_same(e->type.enm, es.en))
			return e->type.enm;
	e = arena_alloc(cc->a, sizeof(*e));
	e->name = es.en->name;
	e->type = (struct type){ .kind = TYPE_INT, .size = 8, .is_signed = true, .enm = es.en };
	e->next = cc->c->enums;
	cc->c->enums = e;
	return es.en;
}

static struct type cc_type(struct cc *cc, CXType t)
{
	struct type out = { .kind = TYPE_NONE };
	long long size;

	t = cc->api.clang_getCanonicalType(t);
	size = cc->api.clang_Type_getSizeOf(t);
	switch (t.kind) {
	case CXType_Bool:
		return (struct type){ .kind = TYPE_BOOL, .size = 1 };
	case CXType_Char_S:
	case CXType_SChar:
	case CXType_Short:
	case CXType_Int:
	case CXType_Long:
	case CXType_LongLong:
		return (struct type){ .kind = TYPE_INT, .size = (uint32_t)size, .is_signed = true };
	case CXType_Char_U:
	case CXType_UChar:
	case CXType_UShort:
	case CXType_UInt:
	case CXType_ULong:
	case CXType_ULongLong:
		return (struct type){ .kind = TYPE_INT, .size = (uint32_t)size };
	case CXType_Enum:
		return (struct type){ .kind = TYPE_INT,
				      .size = (uint32_t)size,
				      .enm = cc_enum(cc, cc->api.clang_getTypeDeclaration(t)) };
	case CXType_Pointer: {
		CXType pt = cc->api.clang_getCanonicalType(cc->api.clang_getPointeeType(t));

		out = (struct type){ .kind = TYPE_PTR, .size = 8 };
		if (pt.kind != CXType_Void && pt.kind != CXType_FunctionProto &&
		    pt.kind != CXType_FunctionNoProto) {
			out.pointee = arena_alloc(cc->a, sizeof(*out.pointee));
			*out.pointee = cc_type(cc, pt);
		}
		return out;
	}
	case CXType_ConstantArray: {
		CXType et = cc->api.clang_getCanonicalType(cc->api.clang_getArrayElementType(t));
		long long n = cc->api.clang_getArraySize(t);

		if (et.kind == CXType_Char_S || et.kind == CXType_SChar ||
		    et.kind == CXType_Char_U || et.kind == CXType_UChar)
			return (struct type){ .kind = TYPE_STR, .size = (uint32_t)n };
		out = (struct type){ .kind = TYPE_ARRAY,
				     .nelems = (uint32_t)n,
				     .size = size > 0 ? (uint32_t)size : 0 };
		out.pointee = arena_alloc(cc->a, sizeof(*out.pointee));
		*out.pointee = cc_type(cc, et);
		return out;
	}
	case CXType_Record:
		out.kind = TYPE_RECORD;
		out.rec = cc_record(cc, t);
		out.size = out.rec->size;
		return out;
	default:
		return out;
	}
}

/* ---- loading libclang ---- */

static int cc_api_load(struct cc *cc, const char **why)
{
	static const char *const names[] = { AOT_LIBCLANG, "libclang-19.so.19", "libclang-19.so",
					     "libclang.so" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !cc->api.lib; i++)
		cc->api.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!cc->api.lib) {
		*why = dlerror();
		return -ENOENT;
	}
#define CC_API_LOAD(f)                                                                             \
	cc->api.f = (__typeof__(&f))dlsym(cc->api.lib, #f);                                        \
	if (!cc->api.f) {                                                                          \
		*why = "libclang lacks " #f;                                                       \
		goto fail;                                                                         \
	}
	CC_API(CC_API_LOAD)
#undef CC_API_LOAD
	return 0;
fail:
	dlclose(cc->api.lib);
	cc->api.lib = NULL;
	return -ENOENT;
}

/* ---- collecting what the file defines ---- */

static bool cc_wanted(struct cc *cc, const char *name)
{
	for (const char *const *w = cc->wanted; w && *w; w++)
		if (!strcmp(*w, name))
			return true;
	return false;
}

static void cc_add_const(struct cc *cc, const char *name, int64_t val, struct cenum *en)
{
	struct cc_named *e = arena_alloc(cc->a, sizeof(*e));

	e->name = arena_strdup(cc->a, name);
	e->val = val;
	e->type = (struct type){ .kind = TYPE_INT, .size = 8, .is_signed = true, .enm = en };
	e->next = cc->c->consts;
	cc->c->consts = e;
}

static enum CXChildVisitResult cc_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	struct cc *cc = data;
	CXString s = cc->api.clang_getCursorSpelling(c);
	const char *name = cc->api.clang_getCString(s);
	enum CXChildVisitResult ret = CXChildVisit_Continue;
	struct cc_named *e;

	switch (c.kind) {
	case CXCursor_StructDecl:
	case CXCursor_UnionDecl:
		if (cc->api.clang_isCursorDefinition(c) && *name &&
		    !cc->api.clang_Cursor_isAnonymous(c))
			cc_record(cc, cc->api.clang_getCursorType(c));
		ret = CXChildVisit_Recurse;
		break;
	case CXCursor_TypedefDecl:
		e = arena_alloc(cc->a, sizeof(*e));
		e->name = arena_strdup(cc->a, name);
		e->type = cc_type(cc, cc->api.clang_getTypedefDeclUnderlyingType(c));
		e->next = cc->c->typedefs;
		cc->c->typedefs = e;
		break;
	case CXCursor_EnumDecl:
		if (cc->api.clang_isCursorDefinition(c) && cc_script_defined(cc, c))
			cc_enum(cc, c);
		ret = CXChildVisit_Recurse;
		break;
	case CXCursor_EnumConstantDecl:
		if (cc_wanted(cc, name))
			cc_add_const(cc, name, cc->api.clang_getEnumConstantDeclValue(c),
				     parent.kind == CXCursor_EnumDecl ? cc_enum(cc, parent) : NULL);
		break;
	case CXCursor_VarDecl:
		if (!strncmp(name, CC_CONST_PREFIX, strlen(CC_CONST_PREFIX))) {
			CXEvalResult r = cc->api.clang_Cursor_Evaluate(c);

			if (r && cc->api.clang_EvalResult_getKind(r) == CXEval_Int)
				cc_add_const(cc, name + strlen(CC_CONST_PREFIX),
					     cc->api.clang_EvalResult_getAsLongLong(r), NULL);
			if (r)
				cc->api.clang_EvalResult_dispose(r);
		}
		break;
	default:
		break;
	}
	cc->api.clang_disposeString(s);
	return ret;
}

int ctypes_clang_parse(struct ctypes *ct, struct diags *d, const char *const *wanted)
{
	struct program *prog = NULL;
	struct cc cc = { .ct = ct, .a = ctypes_arena(ct), .d = d, .wanted = wanted };
	CXTranslationUnit tu = NULL;
	CXIndex idx;
	const char *why = NULL;
	bool *dropped;
	uint32_t n = 0;
	int err = 0;

	prog = ctypes_program(ct);
	for (struct node *p = prog->root->body; p; p = p->next)
		n += p->kind == NODE_CDEF || p->kind == NODE_INCLUDE;
	dropped = arena_alloc(cc.a, (n + 1) * sizeof(*dropped));
	cc.c = arena_alloc(cc.a, sizeof(*cc.c));
	cc.btf = ctypes_btf(ct, NULL);
	if (cc_api_load(&cc, &why)) {
		diag_warn(d, prog->root->body ? prog->root->body->loc : prog->root->loc,
			  "install libclang-19 (Debian: apt-get install libclang1-19)",
			  "cannot load libclang, so the C definitions are ignored: %s", why);
		return -ENOENT;
	}
	idx = cc.api.clang_createIndex(0, 0);
	if (!idx) {
		err = -ENOMEM;
		goto out_lib;
	}
	for (int pass = 0; pass < CC_MAX_PASSES; pass++) {
		bool last = pass == CC_MAX_PASSES - 1;

		cc_build(&cc, prog, dropped);
		if (tu)
			cc.api.clang_disposeTranslationUnit(tu);
		tu = cc_parse(&cc, idx);
		if (!tu) {
			diag_warn(d, prog->root->loc, NULL,
				  "libclang could not parse the C definitions");
			err = -EINVAL;
			goto out;
		}
		if (!cc_fix(&cc, tu, prog, dropped, last)) {
			if (!last)
				cc_fix(&cc, tu, prog, dropped, true);
			break;
		}
	}
	cc.api.clang_visitChildren(cc.api.clang_getTranslationUnitCursor(tu), cc_visit, &cc);
	cc.api.clang_getInclusions(tu, cc_inclusion, &cc);
	ctypes_set_c(ct, cc.c);
out:
	if (cc.dump)
		btf_dump__free(cc.dump);
	if (tu)
		cc.api.clang_disposeTranslationUnit(tu);
	cc.api.clang_disposeIndex(idx);
out_lib:
	dlclose(cc.api.lib);
	return err;
}

struct crecord *ctypes_c_record(struct ctypes_c *c, const char *name, bool is_union)
{
	for (struct cc_named *e = c->records; e; e = e->next)
		if (e->is_union == is_union && !strcmp(e->name, name))
			return e->rec;
	return NULL;
}

bool ctypes_c_typedef(struct ctypes_c *c, const char *name, struct type *out)
{
	for (struct cc_named *e = c->typedefs; e; e = e->next) {
		if (!strcmp(e->name, name) && e->type.kind != TYPE_NONE) {
			*out = e->type;
			return true;
		}
	}
	return false;
}

bool ctypes_c_const(struct ctypes_c *c, const char *name, int64_t *val, struct cenum **en)
{
	for (struct cc_named *e = c->consts; e; e = e->next) {
		if (!strcmp(e->name, name)) {
			*val = e->val;
			if (en)
				*en = e->type.enm;
			return true;
		}
	}
	return false;
}

struct cenum *ctypes_c_enum(struct ctypes_c *c, const char *name)
{
	for (struct cc_named *e = c->enums; e; e = e->next)
		if (*name && !strcmp(e->name, name))
			return e->type.enm;
	return NULL;
}
