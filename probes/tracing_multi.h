/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracing multi links (fentry/fexit multi): one program, attached with one link to many kernel
 * functions by BTF id, each with an attach cookie. libbpf 1.4 does not know them, so the
 * constants are those of the UAPI that brought them (linux-libc-dev 7.2.13, Debian sid) and the
 * link is made with a bare bpf(BPF_LINK_CREATE). The kernel refuses every context read in such
 * a program, so only bodies that read no argument use them (AOT_PROBE_NO_ARGS).
 */
#ifndef AOT_TRACING_MULTI_H
#define AOT_TRACING_MULTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct probe_env;

/* enum bpf_attach_type and enum bpf_link_type of Linux 7.2's include/uapi/linux/bpf.h */
#define PROBE_TRACE_FENTRY_MULTI 59
#define PROBE_TRACE_FEXIT_MULTI 60
#define PROBE_LINK_TYPE_TRACING_MULTI 15

/* The multi attach type for fentry (24) or fexit (25); 0 for any other. */
int probe_tracing_multi_type(int attach_type);

/*
 * Whether the running kernel makes tracing multi links: a program that returns 0 is loaded as
 * fentry multi and linked to vfs_read for a moment. Tried once per env.
 */
bool probe_tracing_multi_supported(struct probe_env *env);

/* One link of prog_fd to the functions ids[0..cnt), cookie i for ids[i]. An fd, or -errno. */
int probe_tracing_multi_link(int prog_fd, int multi_type, const uint32_t *ids,
			     const uint64_t *cookies, uint32_t cnt);

#endif
