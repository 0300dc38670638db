// SPDX-License-Identifier: GPL-2.0
/*
 * printf's %gr: an allocation's GFP flags as names, in the order and with the combinations
 * bpftrace 0.27 prints them (the kernel's __def_gfpflag_names), bits it has no name for as hex.
 * The bits are the running kernel's: where its BTF has the ___GFP_*_BIT enumerators (Linux
 * 6.10 and later) their values, which move with its configuration (___GFP_NO_OBJ_EXT_BIT is 24
 * without KASAN's hardware tags, 26 with them); where it has none, the layout every x86-64
 * kernel from 5.10 to 6.9 shares for the bits below 23.
 */
#include <bpf/btf.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "rt.h"

enum gfp_bit {
	G_DMA,
	G_HIGHMEM,
	G_DMA32,
	G_MOVABLE,
	G_RECLAIMABLE,
	G_HIGH,
	G_IO,
	G_FS,
	G_ZERO,
	G_UNUSED,
	G_DIRECT_RECLAIM,
	G_KSWAPD_RECLAIM,
	G_WRITE,
	G_NOWARN,
	G_RETRY_MAYFAIL,
	G_NOFAIL,
	G_NORETRY,
	G_MEMALLOC,
	G_COMP,
	G_NOMEMALLOC,
	G_HARDWALL,
	G_THISNODE,
	G_ACCOUNT,
	G_ZEROTAGS,
	G_SKIP_ZERO,
	G_SKIP_KASAN,
	G_NO_OBJ_EXT,
	G_NBITS,
};

/* The enumerators' names without ___GFP_ and _BIT. */
static const char *const gfp_bit_names[G_NBITS] = {
	"DMA",	     "HIGHMEM",	   "DMA32",	    "MOVABLE",	"RECLAIMABLE",	  "HIGH",
	"IO",	     "FS",	   "ZERO",	    "UNUSED",	"DIRECT_RECLAIM", "KSWAPD_RECLAIM",
	"WRITE",     "NOWARN",	   "RETRY_MAYFAIL", "NOFAIL",	"NORETRY",	  "MEMALLOC",
	"COMP",	     "NOMEMALLOC", "HARDWALL",	    "THISNODE", "ACCOUNT",	  "ZEROTAGS",
	"SKIP_ZERO", "SKIP_KASAN", "NO_OBJ_EXT",
};

/* Each flag's mask on this kernel (0: it has no such flag), read once. */
static uint64_t gfp_mask[G_NBITS];
static bool gfp_read;

static void gfp_read_btf(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool found = false;

	for (uint32_t id = 1; btf && id < btf__type_cnt(btf) && !found; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e;

		if (!btf_is_enum(t))
			continue;
		e = btf_enum(t);
		for (uint16_t i = 0; i < btf_vlen(t); i++) {
			const char *name = btf__name_by_offset(btf, e[i].name_off);
			size_t len = name ? strlen(name) : 0;

			if (len < 11 || strncmp(name, "___GFP_", 7) ||
			    strcmp(name + len - 4, "_BIT") || e[i].val < 0 || e[i].val >= 64)
				continue;
			for (int b = 0; b < G_NBITS; b++)
				if (strlen(gfp_bit_names[b]) == len - 11 &&
				    !strncmp(name + 7, gfp_bit_names[b], len - 11)) {
					gfp_mask[b] = 1ull << e[i].val;
					found = true;
				}
		}
	}
	btf__free(btf);
	if (found)
		return;
	/* no enumerators: flags as #defines, bit n for flag n below ZEROTAGS */
	for (int b = 0; b < G_ZEROTAGS; b++)
		gfp_mask[b] = b == G_UNUSED ? 0 : 1ull << b;
}

void rt_gfp_format(struct rt_buf *out, uint64_t flags)
{
	const uint64_t *m = gfp_mask;
	uint64_t reclaim, nofs, user, highuser, movable, light;
	struct {
		const char *name;
		uint64_t mask;
	} names[40];
	size_t n = 0;
	bool first = true;

	if (!gfp_read) {
		gfp_read_btf();
		gfp_read = true;
	}
	if (!flags) {
		rt_buf_add(out, "0", 1);
		return;
	}
	reclaim = m[G_DIRECT_RECLAIM] | m[G_KSWAPD_RECLAIM];
	nofs = reclaim | m[G_IO];
	user = nofs | m[G_FS] | m[G_HARDWALL];
	highuser = user | m[G_HIGHMEM];
	movable = highuser | m[G_MOVABLE] | m[G_SKIP_KASAN];
	light = (movable | m[G_COMP] | m[G_NOMEMALLOC] | m[G_NOWARN]) & ~reclaim;
#define GFP_NAME(s, v) (names[n].name = (s), names[n++].mask = (v))
	GFP_NAME("GFP_TRANSHUGE", light | m[G_DIRECT_RECLAIM]);
	GFP_NAME("GFP_TRANSHUGE_LIGHT", light);
	GFP_NAME("GFP_HIGHUSER_MOVABLE", movable);
	GFP_NAME("GFP_HIGHUSER", highuser);
	GFP_NAME("GFP_USER", user);
	GFP_NAME("GFP_KERNEL_ACCOUNT", nofs | m[G_FS] | m[G_ACCOUNT]);
	GFP_NAME("GFP_KERNEL", nofs | m[G_FS]);
	GFP_NAME("GFP_NOFS", nofs);
	GFP_NAME("GFP_ATOMIC", m[G_HIGH] | m[G_KSWAPD_RECLAIM]);
	GFP_NAME("GFP_NOIO", reclaim);
	GFP_NAME("GFP_NOWAIT", m[G_KSWAPD_RECLAIM] | m[G_NOWARN]);
	GFP_NAME("GFP_DMA", m[G_DMA]);
	GFP_NAME("__GFP_HIGHMEM", m[G_HIGHMEM]);
	GFP_NAME("GFP_DMA32", m[G_DMA32]);
	static const enum gfp_bit singles[] = {
		G_HIGH,		  G_IO,	      G_FS,	  G_ZERO,	   G_DIRECT_RECLAIM,
		G_KSWAPD_RECLAIM, G_WRITE,    G_NOWARN,	  G_RETRY_MAYFAIL, G_NOFAIL,
		G_NORETRY,	  G_MEMALLOC, G_COMP,	  G_NOMEMALLOC,	   G_HARDWALL,
		G_THISNODE,	  G_ACCOUNT,  G_ZEROTAGS, G_SKIP_ZERO,	   G_SKIP_KASAN,
		G_NO_OBJ_EXT,
	};
	static const char *const single_names[] = {
		"__GFP_HIGH",
		"__GFP_IO",
		"__GFP_FS",
		"__GFP_ZERO",
		"__GFP_DIRECT_RECLAIM",
		"__GFP_KSWAPD_RECLAIM",
		"__GFP_WRITE",
		"__GFP_NOWARN",
		"__GFP_RETRY_MAYFAIL",
		"__GFP_NOFAIL",
		"__GFP_NORETRY",
		"__GFP_MEMALLOC",
		"__GFP_COMP",
		"__GFP_NOMEMALLOC",
		"__GFP_HARDWALL",
		"__GFP_THISNODE",
		"__GFP_ACCOUNT",
		"__GFP_ZEROTAGS",
		"__GFP_SKIP_ZERO",
		"__GFP_SKIP_KASAN",
		"__GFP_NO_OBJ_EXT",
	};
	for (size_t i = 0; i < sizeof(singles) / sizeof(singles[0]); i++)
		GFP_NAME(single_names[i], m[singles[i]]);
#undef GFP_NAME
	for (size_t i = 0; i < n; i++) {
		/* a flag this kernel lacks has no mask: it names nothing */
		if (!names[i].mask || (flags & names[i].mask) != names[i].mask)
			continue;
		rt_buf_printf(out, "%s%s", first ? "" : "|", names[i].name);
		flags &= ~names[i].mask;
		first = false;
	}
	if (flags)
		rt_buf_printf(out, "%s0x%llx", first ? "" : "|", (unsigned long long)flags);
}
