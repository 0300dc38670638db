// SPDX-License-Identifier: GPL-2.0
/*
 * arg0..argN and retval of probes whose context is the traced task's registers (kprobe,
 * uprobe): the x86-64 calling convention's registers at their struct pt_regs offsets, given as
 * hidden args so the compiler reads them like any other context field; and at function entry
 * sarg0..sargN, the arguments passed on the stack, the 8-byte slots above the return address at
 * the stack pointer (in user memory for a uprobe, the kernel's for a kprobe).
 */
#include <stddef.h>

#include "arena.h"
#include "types.h"
#include "probe_internal.h"

/* struct pt_regs on x86-64 (arch/x86/include/uapi/asm/ptrace.h), in 8-byte slots. */
enum {
	PT_R9 = 8,
	PT_R8 = 9,
	PT_AX = 10,
	PT_CX = 11,
	PT_DX = 12,
	PT_SI = 13,
	PT_DI = 14,
	PT_SP = 19
};

#define NSARGS 8

static const unsigned arg_slots[] = { PT_DI, PT_SI, PT_DX, PT_CX, PT_R8, PT_R9 };

int probe_regs_args(struct arena *a, bool is_return, bool user_stack, struct probe_arg **args,
		    uint32_t *nargs)
{
	uint32_t n = is_return ? 1 : sizeof(arg_slots) / sizeof(arg_slots[0]);
	uint32_t nsargs = is_return ? 0 : NSARGS;
	struct probe_arg *v = arena_alloc(a, (n + nsargs) * sizeof(*v));

	for (uint32_t i = 0; i < n; i++) {
		v[i].name = is_return ? arena_strdup(a, "retval") : arena_printf(a, "arg%u", i);
		v[i].decl = v[i].name;
		v[i].offset = 8 * (is_return ? PT_AX : arg_slots[i]);
		v[i].type = (struct type){ .kind = TYPE_INT, .size = 8, .is_signed = is_return };
		v[i].hidden = true;
	}
	for (uint32_t i = 0; i < nsargs; i++) {
		struct probe_arg *s = &v[n + i];

		s->name = arena_printf(a, "sarg%u", i);
		s->decl = s->name;
		s->loc = user_stack ? PROBE_ARG_MEM : PROBE_ARG_KMEM; /* at sp + 8 * (i + 1) */
		s->offset = 8 * PT_SP;
		s->loc_value = 8 * (int64_t)(i + 1);
		s->loc_size = 8;
		s->type = (struct type){ .kind = TYPE_INT, .size = 8 };
		s->hidden = true;
	}
	*args = v;
	*nargs = n + nsargs;
	return 0;
}
