// SPDX-License-Identifier: GPL-2.0
/*
 * The printf engine: formats a ring-buffer payload by its aot_fmt's argument tuple, as bpftrace
 * 0.27 formats it. Each value is cast to the C type its length modifier names (so %d of a u64
 * truncates exactly as bpftrace's does) and written by snprintf from parsed pieces (never the
 * user's bytes); then the width is applied as bpftrace 0.27's C++ streams apply it: the fill
 * ('0' with the 0 flag, else ' ') goes before the whole text, sign and 0x included ("000-42"),
 * or after it with the - flag ("300000"). A precision and the ' ' flag change nothing there
 * (%.2s prints the whole string), nor here. Conversions are parsed by src/common/conv.c, as
 * sema checked them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "rt.h"

static bool printf_flag(const struct aot_conv *sp, char flag)
{
	return memchr(sp->flags, flag, (size_t)sp->nflags) != NULL;
}

/* The conversion for snprintf without width and precision, with length modifier len. */
static void printf_spec_str(const struct aot_conv *sp, const char *len, char conv, char *buf,
			    size_t size)
{
	snprintf(buf, size, "%%%s%s%s%c", printf_flag(sp, '+') ? "+" : "",
		 printf_flag(sp, '#') ? "#" : "", len, conv);
}

/* text, of len bytes (not NUL-terminated), padded to the conversion's width. */
static void printf_pad(struct rt_buf *out, const struct aot_conv *sp, const char *text, size_t len)
{
	size_t pad = sp->width > 0 && (size_t)sp->width > len ? (size_t)sp->width - len : 0;
	char fill = printf_flag(sp, '0') ? '0' : ' ';
	bool left = printf_flag(sp, '-');

	if (!left)
		for (size_t i = 0; i < pad; i++)
			rt_buf_add(out, &fill, 1);
	rt_buf_add(out, text, len);
	if (left)
		for (size_t i = 0; i < pad; i++)
			rt_buf_add(out, &fill, 1);
}

static void printf_int(struct rt_buf *out, struct rt_buf *tmp, const struct aot_conv *sp,
		       uint64_t v)
{
	bool is_signed = sp->conv == 'd' || sp->conv == 'i';
	char spec[16];

	rt_buf_reset(tmp);
	printf_spec_str(sp, sp->length, sp->conv, spec, sizeof(spec));
	if (sp->conv == 'c') {
		char c = (char)v;

		rt_buf_add(tmp, &c, 1); /* a NUL byte too, as a stream writes it */
	} else if (sp->conv == 'p') {
		/* a C++ stream writes a null pointer as 0, not (nil) */
		if (v)
			rt_buf_printf(tmp, "0x%" PRIx64, v);
		else
			rt_buf_add(tmp, "0", 1);
	} else if (!strcmp(sp->length, "hh")) {
		if (is_signed)
			rt_buf_printf(tmp, spec, (signed char)v);
		else
			rt_buf_printf(tmp, spec, (unsigned char)v);
	} else if (!strcmp(sp->length, "h")) {
		if (is_signed)
			rt_buf_printf(tmp, spec, (short)v);
		else
			rt_buf_printf(tmp, spec, (unsigned short)v);
	} else if (sp->length[0]) {
		/* l, ll, z, j, t are all 64 bits on the hosts BPF runs on; say ll to snprintf. */
		printf_spec_str(sp, "ll", sp->conv, spec, sizeof(spec));
		if (is_signed)
			rt_buf_printf(tmp, spec, (long long)v);
		else
			rt_buf_printf(tmp, spec, (unsigned long long)v);
	} else {
		if (is_signed)
			rt_buf_printf(tmp, spec, (int)v);
		else
			rt_buf_printf(tmp, spec, (unsigned int)v);
	}
	printf_pad(out, sp, tmp->s ? tmp->s : "", tmp->len);
}

int rt_printf_format(struct rt_buf *out, const struct rt_render *r, const struct aot_fmt *f,
		     const void *payload, size_t len)
{
	const struct aot_type *args = &f->args;
	const struct aot_meta *m = r->meta;
	const uint8_t *p = payload;
	const char *s = f->fmt, *start;
	struct aot_conv sp;
	struct rt_buf tmp = { 0 }, num = { 0 };
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
		if (sp.arg == AOT_CONV_GFP && e->type.kind == AOT_K_INT) {
			rt_buf_reset(&tmp);
			rt_gfp_format(&tmp, rt_value_int(&e->type, data));
			printf_pad(out, &sp, tmp.s, tmp.len);
			continue;
		}
		if (sp.arg != AOT_CONV_INT ||
		    (e->type.kind != AOT_K_INT && e->type.kind != AOT_K_BOOL)) {
			/* a string cut short gets its trailer here too, as in bpftrace 0.27 */
			rt_buf_reset(&tmp);
			if (e->type.kind == AOT_K_BUF)
				rt_buf_bytes(&tmp, &e->type, data, sp.buf_mode);
			else
				rt_value_text(&tmp, r, &e->type, data, false);
			printf_pad(out, &sp, tmp.s ? tmp.s : "", tmp.len);
			continue;
		}
		printf_int(out, &num, &sp, rt_value_int(&e->type, data));
	}
	rt_buf_free(&tmp);
	rt_buf_free(&num);
	return 0;
}
