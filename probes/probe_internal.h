/* SPDX-License-Identifier: GPL-2.0 */
/* What the probe types share among themselves and nobody else needs: the per-run source caches. */
#ifndef AOT_PROBE_INTERNAL_H
#define AOT_PROBE_INTERNAL_H

#include <stdarg.h>

#include "probe.h"

struct probe_env {
	char *tracefs; /* "/sys/kernel/tracing", found on first use; NULL until then */
	int tracefs_err;
	struct btf *vmlinux_btf; /* parsed on first use */
	int vmlinux_btf_err;
};

/* arg0..arg5 (or retval) from the x86-64 registers in struct pt_regs, as hidden args. */
int probe_regs_args(struct arena *a, bool is_return, struct probe_arg **args, uint32_t *nargs);

struct btf;
/* The running kernel's BTF, parsed once per run; NULL with err set if it has none. */
struct btf *probe_env_vmlinux_btf(struct probe_env *env, struct probe_err *err);

/* The tracefs mount point, looked up once per run; NULL with err set if there is none. */
const char *probe_env_tracefs(struct probe_env *env, struct probe_err *err);

void probe_err_set(struct probe_err *err, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
