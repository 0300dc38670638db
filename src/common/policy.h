/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Policies both halves apply: the compiler when it expands attach points on this host, the
 * runtime when it attaches an object, maybe on another. Part of the shared floor.
 */
#ifndef AOT_POLICY_H
#define AOT_POLICY_H

/*
 * --missing-probes: what to do with a probe whose target this kernel does not have (compiled
 * on another host: a tracepoint, kprobe or kfunc that does not exist here).
 */
enum aot_missing_policy {
	AOT_MISSING_WARN = 0, /* skip it with a warning */
	AOT_MISSING_ERROR,    /* fail the run */
	AOT_MISSING_IGNORE,   /* skip it silently */
};

#endif
