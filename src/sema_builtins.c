// SPDX-License-Identifier: GPL-2.0
/*
 * The builtins and functions of the language as data: name, resolved id, type, and what the
 * probe type must provide. Sema looks names up here; codegen has its own table keyed by id.
 */
#include <string.h>

#include "probe.h"
#include "sema_types.h"

#define U64 { .kind = TYPE_INT, .size = 8 }
#define S64 { .kind = TYPE_INT, .size = 8, .is_signed = true }

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
	{ "elapsed", BI_ELAPSED, U64, 0, true },
	{ "retval", BI_RETVAL, S64, PB_RETVAL, true },
	{ "func", BI_FUNC, { .kind = TYPE_STR }, PB_FUNC, true },
	{ "curtask", BI_CURTASK, U64, 0, false },
	{ "rand", BI_RAND, U64, 0, true },
	{ "cgroup", BI_CGROUP, U64, 0, true },
	{ "kstack", BI_KSTACK, U64, 0, true },
	{ "ustack", BI_USTACK, U64, 0, true },
	{ "username", BI_USERNAME, U64, 0, true },
};

static const struct sema_func funcs[] = {
	{ "count", FN_COUNT, 0, 0, false },
	{ "sum", FN_SUM, 1, 1, false },
	{ "min", FN_MIN, 1, 1, false },
	{ "max", FN_MAX, 1, 1, false },
	{ "avg", FN_AVG, 1, 1, false },
	{ "printf", FN_PRINTF, 1, 64, false },
	{ "exit", FN_EXIT, 0, 0, false },
	{ "str", FN_STR, 1, 2, false },
	{ "delete", FN_DELETE, 1, 1, false },
	{ "clear", FN_CLEAR, 1, 1, true },
	{ "zero", FN_ZERO, 1, 1, true },
	{ "print", FN_PRINT, 1, 3, true },
	/* The rest of bpftrace 0.17's functions, recognised so they get an honest message. */
	{ "stats", FN_NONE, 1, 1, true },
	{ "hist", FN_NONE, 1, 1, true },
	{ "lhist", FN_NONE, 4, 4, true },
	{ "time", FN_NONE, 0, 1, true },
	{ "strftime", FN_NONE, 2, 2, true },
	{ "buf", FN_NONE, 1, 2, true },
	{ "ksym", FN_NONE, 1, 1, true },
	{ "usym", FN_NONE, 1, 1, true },
	{ "kaddr", FN_NONE, 1, 1, true },
	{ "uaddr", FN_NONE, 1, 1, true },
	{ "ntop", FN_NONE, 1, 2, true },
	{ "join", FN_NONE, 1, 2, true },
	{ "system", FN_NONE, 1, 64, true },
	{ "cat", FN_NONE, 1, 64, true },
	{ "signal", FN_NONE, 1, 1, true },
	{ "override", FN_NONE, 1, 1, true },
	{ "path", FN_NONE, 1, 1, true },
	{ "macaddr", FN_NONE, 1, 1, true },
	{ "cgroupid", FN_NONE, 1, 1, true },
	{ "strncmp", FN_NONE, 3, 3, true },
	{ "sizeof", FN_NONE, 1, 1, true },
	{ "offsetof", FN_NONE, 2, 2, true },
	{ "reg", FN_NONE, 1, 1, true },
	{ "kptr", FN_NONE, 1, 1, true },
	{ "uptr", FN_NONE, 1, 1, true },
	{ "kstack", FN_NONE, 0, 2, true },
	{ "ustack", FN_NONE, 0, 2, true },
	{ "cgroup_path", FN_NONE, 1, 2, true },
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
