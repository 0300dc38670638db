// SPDX-License-Identifier: GPL-2.0
/*
 * The printf engine: formats a ring-buffer payload by its aot_fmt's argument tuple. Like
 * bpftrace, which hands each conversion to C printf with the argument as a 64-bit integer, every
 * conversion is rebuilt from parsed pieces (never the user's bytes) and passed to snprintf with
 * the C type its length modifier names, so %d of a u64 truncates exactly as bpftrace's does.
 * Conversions are parsed by src/common/conv.c, as sema checked them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "rt.h"

/* Rebuilds the conversion for snprintf, with length modifier len and conversion conv. */
static void printf_spec_str(const struct aot_conv *sp, const char *len, char conv, char *buf,
			    size_t size)
{
	int n = snprintf(buf, size, "%%%.*s", sp->nflags, sp->flags);

	if (sp->width >= 0)
		n += snprintf(buf + n, size - n, "%d", sp->width);
	if (sp->precision >= 0)
		n += snprintf(buf + n, size - n, ".%d", sp->precision);
	snprintf(buf + n, size - n, "%s%c", len, conv);
}

/* %s (and any conversion given a non-integer) of already rendered text. */
static void printf_text(struct rt_buf *out, const struct aot_conv *sp, const char *s, size_t len)
{
	char spec[48];

	printf_spec_str(sp, "", 's', spec, sizeof(spec));
	/* The precision bounds the read too: s need not be NUL-terminated past len. */
	if (sp->precision < 0 || (size_t)sp->precision > len) {
		struct aot_conv bounded = *sp;

		bounded.precision = (int)len; /* at most AOT_META_MAX_SIZE or a rendered value */
		printf_spec_str(&bounded, "", 's', spec, sizeof(spec));
	}
	rt_buf_printf(out, spec, s);
}

static void printf_int(struct rt_buf *out, const struct aot_conv *sp, uint64_t v)
{
	bool is_signed = sp->conv == 'd' || sp->conv == 'i';
	char spec[48];

	printf_spec_str(sp, sp->length, sp->conv, spec, sizeof(spec));
	if (sp->conv == 'c') {
		printf_spec_str(sp, "", 'c', spec, sizeof(spec));
		rt_buf_printf(out, spec, (int)(unsigned char)v);
	} else if (sp->conv == 'p') {
		printf_spec_str(sp, "", 'p', spec, sizeof(spec));
		rt_buf_printf(out, spec, (void *)(uintptr_t)v);
	} else if (!strcmp(sp->length, "hh")) {
		if (is_signed)
			rt_buf_printf(out, spec, (signed char)v);
		else
			rt_buf_printf(out, spec, (unsigned char)v);
	} else if (!strcmp(sp->length, "h")) {
		if (is_signed)
			rt_buf_printf(out, spec, (short)v);
		else
			rt_buf_printf(out, spec, (unsigned short)v);
	} else if (sp->length[0]) {
		/* l, ll, z, j, t are all 64 bits on the hosts BPF runs on; say ll to snprintf. */
		printf_spec_str(sp, "ll", sp->conv, spec, sizeof(spec));
		if (is_signed)
			rt_buf_printf(out, spec, (long long)v);
		else
			rt_buf_printf(out, spec, (unsigned long long)v);
	} else {
		if (is_signed)
			rt_buf_printf(out, spec, (int)v);
		else
			rt_buf_printf(out, spec, (unsigned int)v);
	}
}

int rt_printf_format(struct rt_buf *out, const struct rt_render *r, const struct aot_fmt *f,
		     const void *payload, size_t len)
{
	const struct aot_type *args = &f->args;
	const struct aot_meta *m = r->meta;
	const uint8_t *p = payload;
	const char *s = f->fmt, *start;
	struct aot_conv sp;
	struct rt_buf tmp = { 0 };
	uint32_t argi = 0;

	if (args->kind != AOT_K_TUPLE || len < args->size)
		return -EINVAL;
	while (*s) {
		const struct aot_elem *e;
		const void *data;

		if (*s != '%') {
			start = s;
			while (*s && *s != '%')
				s++;
			rt_buf_add(out, start, s - start);
			continue;
		}
		start = s;
		s = aot_conv_parse(s, &sp);
		if (sp.arg == AOT_CONV_PERCENT) {
			rt_buf_add(out, "%", 1);
			continue;
		}
		if (sp.arg == AOT_CONV_UNKNOWN || argi >= args->nelems) {
			/* sema refuses these: only an object made by hand gets here */
			rt_buf_add(out, start, s - start);
			continue;
		}
		e = &m->elems[args->elems + argi++];
		data = p + e->offset;
		if (sp.arg != AOT_CONV_INT ||
		    (e->type.kind != AOT_K_INT && e->type.kind != AOT_K_BOOL)) {
			/* a string cut short gets its trailer here too, as in bpftrace 0.27 */
			rt_buf_reset(&tmp);
			if (e->type.kind == AOT_K_BUF)
				rt_buf_bytes(&tmp, &e->type, data, sp.buf_mode);
			else
				rt_value_text(&tmp, r, &e->type, data, false);
			printf_text(out, &sp, tmp.s ? tmp.s : "", tmp.len);
			continue;
		}
		printf_int(out, &sp, rt_value_int(&e->type, data));
	}
	rt_buf_free(&tmp);
	return 0;
}
