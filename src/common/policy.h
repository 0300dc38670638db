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

/*
 * The ranges of the run-time settings (BPFTRACE_* variables, config block keys): the compiler
 * checks a config block's values, the runtime the environment's.
 */
/* The most ring buffer pages per CPU perf_rb_pages may ask for. */
#define AOT_RB_PAGES_MAX 16384
/* The most max_cat_bytes may ask for. */
#define AOT_CAT_BYTES_MAX (1ul << 30)
/* The verifier log sizes log_size may ask for: what the kernel accepts. */
#define AOT_LOG_SIZE_MIN 128
#define AOT_LOG_SIZE_MAX (UINT32_MAX >> 2)
/*
 * str_trunc_trailer: what a string that filled its whole buffer (it was cut short) prints
 * after it, as bpftrace 0.27 prints it, and the longest trailer taken.
 */
#define AOT_TRAILER_DEFAULT ".."
#define AOT_TRAILER_MAX 64

#endif
