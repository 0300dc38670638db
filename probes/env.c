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
	free(env->btf_path);
	btf_funcs_free(&env->funcs);
	probe_kmods_free(&env->kmods);
	btf__free(env->vmlinux_btf);
	free(env);
}

int probe_env__set_btf_path(struct probe_env *env, const char *path)
{
	free(env->btf_path);
	env->btf_path = path ? strdup(path) : NULL;
	return path && !env->btf_path ? -ENOMEM : 0;
}

void probe_env__set_srcline(struct probe_env *env, probe_srcline_fn *fn)
{
	env->srcline = fn;
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
		env->vmlinux_btf =
			env->btf_path ? btf__parse(env->btf_path, NULL) : btf__load_vmlinux_btf();
		env->vmlinux_btf_err = env->vmlinux_btf ? 0 : -errno;
	}
	if (!env->vmlinux_btf)
		probe_err_set(err, "kfunc probes need a kernel built with CONFIG_DEBUG_INFO_BTF",
			      "cannot read the kernel's BTF: %s", strerror(-env->vmlinux_btf_err));
	return env->vmlinux_btf;
}

struct probe_kmods *probe_env_kmods(struct probe_env *env)
{
	struct btf *vmlinux = probe_env_vmlinux_btf(env, NULL);

	if (vmlinux && !env->btf_path)
		probe_kmods_read(&env->kmods, vmlinux);
	return &env->kmods;
}
