// SPDX-License-Identifier: GPL-2.0
/*
 * The builtins and functions of the language as data: name, resolved id, type, and what the
 * probe type must provide. Sema looks names up here; codegen has its own table keyed by id.
 */
#include <string.h>

#include "probe.h"
#include "sema_types.h"

/* clang-format would spread each one-line initialiser over four lines. */
/* clang-format off */
#define U64 { .kind = TYPE_INT, .size = 8 }
#define S64 { .kind = TYPE_INT, .size = 8, .is_signed = true }

#define RENDERED(k, n) { .kind = TYPE_BUF, .size = n, .render = k }
/* clang-format on */

static const struct sema_builtin builtins[] = {
	{ "pid", BI_PID, U64, 0, false },
	{ "tid", BI_TID, U64, 0, false },
	{ "uid", BI_UID, U64, 0, false },
	{ "gid", BI_GID, U64, 0, false },
	{ "nsecs", BI_NSECS, U64, 0, false },
	{ "cpu", BI_CPU, U64, 0, false },
	{ "comm", BI_COMM, { .kind = TYPE_STR, .size = 16 }, 0, false },
	{ "probe", BI_PROBE, { .kind = TYPE_STR }, 0, false },
	{ "args", BI_ARGS, { .kind = TYPE_NONE }, PB_ARGS, false },
	{ "elapsed", BI_ELAPSED, U64, 0, false },
	{ "retval", BI_RETVAL, S64, PB_RETVAL, false },
	/* a kernel symbol; sema makes it a user one (usym) in user-space probes */
	{ "func", BI_FUNC, RENDERED(AOT_K_KSYM, 8), PB_FUNC, false },
	{ "curtask", BI_CURTASK, U64, 0, false },
	{ "rand", BI_RAND, U64, 0, false },
	{ "cgroup", BI_CGROUP, U64, 0, false },
	{ "kstack", BI_KSTACK, RENDERED(AOT_K_KSTACK, 8), 0, false },
	{ "ustack", BI_USTACK, RENDERED(AOT_K_USTACK, 16), 0, false },
	{ "username", BI_USERNAME, RENDERED(AOT_K_USERNAME, 8), 0, false },
};

static const struct sema_func funcs[] = {
	{ "count", FN_COUNT, 0, 0, false },
	{ "sum", FN_SUM, 1, 1, false },
	{ "min", FN_MIN, 1, 1, false },
	{ "max", FN_MAX, 1, 1, false },
	{ "avg", FN_AVG, 1, 1, false },
	{ "stats", FN_STATS, 1, 1, false },
	{ "hist", FN_HIST, 1, 1, false },
	{ "lhist", FN_LHIST, 4, 4, false },
	{ "printf", FN_PRINTF, 1, 64, false },
	{ "exit", FN_EXIT, 0, 1, false },
	{ "str", FN_STR, 1, 2, false },
	{ "delete", FN_DELETE, 1, 1, false },
	{ "clear", FN_CLEAR, 1, 1, false },
	{ "zero", FN_ZERO, 1, 1, false },
	{ "print", FN_PRINT, 1, 3, false },
	{ "time", FN_TIME, 0, 1, false },
	{ "strftime", FN_STRFTIME, 2, 2, false },
	{ "buf", FN_BUF, 1, 2, false },
	{ "ksym", FN_KSYM, 1, 1, false },
	{ "usym", FN_USYM, 1, 1, false },
	{ "kaddr", FN_KADDR, 1, 1, false },
	{ "uaddr", FN_UADDR, 1, 1, false },
	{ "ntop", FN_NTOP, 1, 2, false },
	{ "join", FN_JOIN, 1, 2, false },
	{ "system", FN_SYSTEM, 1, 64, false },
	{ "cat", FN_CAT, 1, 64, false },
	{ "signal", FN_SIGNAL, 1, 1, false },
	{ "override", FN_OVERRIDE, 1, 1, false },
	{ "path", FN_PATH, 1, 1, false },
	{ "macaddr", FN_MACADDR, 1, 1, false },
	{ "cgroupid", FN_CGROUPID, 1, 1, false },
	{ "strncmp", FN_STRNCMP, 3, 3, false },
	{ "sizeof", FN_SIZEOF, 0, 1, false },
	{ "offsetof", FN_OFFSETOF, 2, 2, false },
	{ "reg", FN_REG, 1, 1, false },
	{ "kptr", FN_KPTR, 1, 1, false },
	{ "uptr", FN_UPTR, 1, 1, false },
	{ "kstack", FN_KSTACK, 0, 2, false },
	{ "ustack", FN_USTACK, 0, 2, false },
	{ "bswap", FN_BSWAP, 1, 1, false },
	{ "cgroup_path", FN_CGROUP_PATH, 1, 2, false },
};

const struct sema_builtin *sema_builtin_find(const char *name)
{
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (strcmp(builtins[i].name, name) == 0)
			return &builtins[i];
	return NULL;
}

const struct sema_func *sema_func_find(const char *name)
{
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (strcmp(funcs[i].name, name) == 0)
			return &funcs[i];
	return NULL;
}
