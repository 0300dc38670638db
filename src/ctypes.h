/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The type universe of a program: records, pointers, arrays, enums and typedefs from the kernel's
 * BTF (read lazily, only when a script names such a type) and from the C definitions and
 * #include lines of the script (parsed with libclang). Sema resolves names here; codegen reads
 * the records' members and, for BTF records, the BTF ids to build CO-RE relocations.
 */
#ifndef AOT_CTYPES_H
#define AOT_CTYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "ast.h"

struct btf;
struct probe_env;
struct diags;

struct cmember {
	char *name; /* "" for an anonymous struct or union */
	struct type type;
	uint32_t off;	  /* bytes from the start of the record */
	uint32_t bit_off; /* bitfields: bits from off; bit_size 0 for ordinary members */
	uint32_t bit_size;
	uint32_t index; /* position in the record, the CO-RE access index */
	struct crecord *parent;
};

struct crecord {
	char *name; /* "task_struct"; "" for an anonymous one */
	bool is_union;
	bool complete; /* members filled (BTF records are filled on first use) */
	bool defined;  /* not just a forward declaration */
	uint32_t size;
	uint32_t btf_id; /* in the kernel's BTF; 0 for records of the script's C definitions */
	uint32_t nmembers;
	struct cmember *members;
	struct ctypes *ct;
};

/* An enum: its enumerators' names and values, to print a value by its name. */
struct cenum {
	char *name; /* "bpf_map_type"; "" for an anonymous one */
	uint32_t n;
	char **names;
	int64_t *vals;
};

/* The program's universe, made on first use; the kernel's BTF comes from env. */
struct ctypes *ctypes_get(struct program *prog, struct probe_env *env);
/* The kernel's BTF, or NULL (with a reason in *why, static text) when the kernel has none. */
const struct btf *ctypes_btf(struct ctypes *ct, const char **why);

/*
 * A type as written in a cast: "struct task_struct *", "uint8 *", "pid_t", "u32 **".
 * 0, or -ENOENT with *missing set to the name that is unknown.
 */
int ctypes_parse(struct ctypes *ct, const char *text, struct type *out, const char **missing);
/* A record by name, looked up in the C definitions first, then in BTF; NULL if unknown. */
struct crecord *ctypes_record(struct ctypes *ct, const char *name, bool is_union);
/* Fills the members of a BTF record. false if it has no definition anywhere. */
bool ctypes_complete(struct crecord *r);
/* The pointee of a pointer (resolving a BTF id on first use); NULL for void. */
const struct type *ctypes_pointee(struct ctypes *ct, struct type *ptr);
/* A type from the kernel's BTF by id (typedefs and modifiers skipped). */
struct type ctypes_from_btf(struct ctypes *ct, uint32_t id);

/*
 * Finds a member by name, descending into anonymous members. Fills path (up to max entries)
 * from the outermost member to the named one; returns the path's length, 0 if not found.
 */
uint32_t ctypes_member(struct crecord *r, const char *name, const struct cmember **path,
		       uint32_t max);
/* "did you mean ..." text for an unknown member: the closest names, or NULL. */
const char *ctypes_member_hint(struct arena *a, struct crecord *r, const char *name);

/*
 * An integer constant: an object-like macro or enum constant of the C definitions, or an
 * enumerator in the kernel's BTF. false if unknown. *en (if en) is the enumerator's enum, NULL
 * for a macro.
 */
bool ctypes_const(struct ctypes *ct, const char *name, int64_t *val, struct cenum **en);
/* The name of val in en, or NULL if no enumerator has that value. */
const char *ctypes_enum_name(const struct cenum *en, int64_t val);

/* "struct task_struct *", "int32", "char[16]": a type as a C programmer reads it. */
const char *ctypes_name(struct arena *a, const struct type *t);

/* ---- the script's C definitions (ctypes_clang.c) ---- */

/*
 * Parses the C definitions and #include lines of prog (in order) with libclang. Headers that
 * are not installed are left out with a warning; names clang could not resolve come from BTF.
 * wanted: NULL-terminated identifiers the script uses that may be macros. 0 or -errno.
 */
int ctypes_parse_c(struct ctypes *ct, struct diags *d, const char *const *wanted);

/* Internal, between ctypes.c, ctypes_clang.c and ctypes_child.c. */

/* What the C definitions define: lists in the program's arena. */
struct cc_named {
	char *name;
	bool is_union;
	struct crecord *rec; /* records */
	struct type type;    /* typedefs; enums; constants: an INT, whose enm is an enum's */
	int64_t val;	     /* constants */
	struct cc_named *next;
};

struct ctypes_c {
	struct cc_named *records, *typedefs, *consts, *enums;
};

/*
 * ctypes_parse_c's work, in this process: loads libclang (and with it a second LLVM) and parses.
 * ctypes_parse_c runs it in a short-lived child (ctypes_child.c) so that none of that stays.
 */
int ctypes_clang_parse(struct ctypes *ct, struct diags *d, const char *const *wanted);
struct crecord *ctypes_c_record(struct ctypes_c *c, const char *name, bool is_union);
bool ctypes_c_typedef(struct ctypes_c *c, const char *name, struct type *out);
bool ctypes_c_const(struct ctypes_c *c, const char *name, int64_t *val, struct cenum **en);
struct cenum *ctypes_c_enum(struct ctypes_c *c, const char *name);
void ctypes_set_c(struct ctypes *ct, struct ctypes_c *c);
struct ctypes_c *ctypes_get_c(struct ctypes *ct);
struct arena *ctypes_arena(struct ctypes *ct);
struct program *ctypes_program(struct ctypes *ct);

#endif
