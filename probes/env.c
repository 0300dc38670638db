// SPDX-License-Identifier: GPL-2.0
/*
 * The per-run cache of the kernel's probe sources. Each source is read at most once per run and
 * only when a probe of a type that needs it appears, so a BEGIN-only script reads nothing.
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe_internal.h"

struct probe_env *probe_env__new(void)
{
	return calloc(1, sizeof(struct probe_env));
}

void probe_env__free(struct probe_env *env)
{
	if (!env)
		return;
	free(env->tracefs);
	btf__free(env->vmlinux_btf);
	free(env);
}

void probe_err_set(struct probe_err *err, const char *hint, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	snprintf(err->hint, sizeof(err->hint), "%s", hint ? hint : "");
}

const char *probe_env_tracefs(struct probe_env *env, struct probe_err *err)
{
	static const char *const candidates[] = { "/sys/kernel/tracing",
						  "/sys/kernel/debug/tracing" };
	char path[64];

	if (env->tracefs)
		return env->tracefs;
	if (!env->tracefs_err) {
		env->tracefs_err = -ENOENT;
		for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
			snprintf(path, sizeof(path), "%s/events", candidates[i]);
			if (access(path, R_OK) == 0) {
				env->tracefs = strdup(candidates[i]);
				env->tracefs_err = env->tracefs ? 0 : -ENOMEM;
				break;
			}
		}
	}
	if (!env->tracefs)
		probe_err_set(err, "mount it: mount -t tracefs nodev /sys/kernel/tracing",
			      "tracefs is not mounted, so tracepoints cannot be found");
	return env->tracefs;
}

struct btf *probe_env_vmlinux_btf(struct probe_env *env, struct probe_err *err)
{
	if (!env->vmlinux_btf && !env->vmlinux_btf_err) {
		/*
		 * AOTRACE_BTF (or BPFTRACE_BTF): the types of another kernel (a saved
		 * /sys/kernel/btf/vmlinux), to build an object for it; CO-RE relocations make it
		 * read right on others too.
		 */
		const char *path = getenv("AOTRACE_BTF");

		if (!path || !*path)
			path = getenv("BPFTRACE_BTF"); /* bpftrace's name for it */

		env->vmlinux_btf = path && *path ? btf__parse(path, NULL) : btf__load_vmlinux_btf();
		env->vmlinux_btf_err = env->vmlinux_btf ? 0 : -errno;
	}
	if (!env->vmlinux_btf)
		probe_err_set(err, "kfunc probes need a kernel built with CONFIG_DEBUG_INFO_BTF",
			      "cannot read the kernel's BTF: %s", strerror(-env->vmlinux_btf_err));
	return env->vmlinux_btf;
}
