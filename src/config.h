/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The config block's keys (src/config.c), applied right after parsing.
 */
#ifndef AOT_CONFIG_H
#define AOT_CONFIG_H

#include "aotcc.h"
#include "ast.h"
#include "diag.h"

/*
 * Checks the program's config block and sets opts from it where given (the command line and
 * the environment) left a setting unset; run-time keys go into prog->meta->settings. 0, or
 * -EINVAL once it reported errors (file:line:col naming the key).
 */
int config_apply(struct program *prog, const struct aot_compile_opts *given,
		 struct aot_compile_opts *opts, struct diags *d);
/*
 * An unstable_* value as bpftrace 0.27 takes it (any case): enable, warn, error; true and 1
 * enable, false and 0 are error. enum aot_unstable, or -1 if it is none of these.
 */
int config_unstable(const char *value);
/*
 * A license as bpftrace 0.27 takes it: one of the GPL-compatible strings the kernel knows
 * (exact case). The string kept (static), or NULL. CONFIG_LICENSES lists them for messages.
 */
const char *config_license(const char *value);
#define CONFIG_LICENSES                                                                            \
	"Dual MIT/GPL, Dual BSD/GPL, Dual MPL/GPL, GPL and additional rights, GPL v2, GPL"

#endif
