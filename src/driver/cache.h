/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The compiled-object cache of aotrace's driver: a program compiled once is kept, under the
 * user's cache directory, with everything its object was made from, and a second run of it
 * loads the object without starting LLVM.
 */
#ifndef AOT_DRIVER_CACHE_H
#define AOT_DRIVER_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "aotcc.h"

#define AOT_CACHE_MAX_BYTES (64u << 20) /* the directory is trimmed to this, oldest first */

struct aot_cache;

/*
 * The cache entry of a compilation: name and text of the source with opts (settings from the
 * environment applied). NULL when there is no cache directory to use (reported when verbose).
 */
struct aot_cache *aot_cache__new(const char *name, const char *text, size_t len,
				 const struct aot_compile_opts *opts, bool verbose);
void aot_cache__free(struct aot_cache *c);

/*
 * The cached object and the diagnostics its compilation printed: 0 (the caller frees both), or
 * -ENOENT on a miss. A corrupt or foreign entry is a miss with a warning, and is removed.
 */
int aot_cache__load(struct aot_cache *c, void **elf, size_t *size, char **diags);

/*
 * Keeps the object of prog (compiled from what aot_cache__new was given) and the diagnostics it
 * printed, unless it is bound to this boot. Failures only warn: the run goes on without.
 */
void aot_cache__store(struct aot_cache *c, struct aot_program *prog, const void *elf, size_t size,
		      const char *diags);

#endif
