// SPDX-License-Identifier: GPL-2.0
/*
 * The printf conversion parser both halves use (conv.h): sema checks formats with it, the
 * runtime's printf engine formats with it.
 */
#include <string.h>

#include "conv.h"

static int conv_number(const char **s)
{
	int v = 0;

	for (; **s >= '0' && **s <= '9'; (*s)++)
		if (v < AOT_CONV_MAX_WIDTH)
			v = v * 10 + (**s - '0');
	return v > AOT_CONV_MAX_WIDTH ? AOT_CONV_MAX_WIDTH : v;
}

const char *aot_conv_parse(const char *s, struct aot_conv *c)
{
	memset(c, 0, sizeof(*c));
	c->width = c->precision = -1;
	s++; /* the '%' */
	if (*s == '%') {
		c->conv = '%';
		c->arg = AOT_CONV_PERCENT;
		return s + 1;
	}
	while (*s && strchr("-0+ #", *s)) {
		if (!memchr(c->flags, *s, c->nflags) && c->nflags < 5)
			c->flags[c->nflags++] = *s;
		s++;
	}
	if (*s >= '0' && *s <= '9')
		c->width = conv_number(&s);
	if (*s == '.') {
		s++;
		c->precision = conv_number(&s);
	}
	if ((s[0] == 'h' && s[1] == 'h') || (s[0] == 'l' && s[1] == 'l')) {
		memcpy(c->length, s, 2);
		s += 2;
	} else if (*s && strchr("hlzjt", *s)) {
		c->length[0] = *s++;
	}
	c->conv = *s;
	if (!*s)
		return s;
	s++;
	if (strchr("diuxXop", c->conv)) {
		c->arg = AOT_CONV_INT;
	} else if (!c->length[0] && c->conv == 'c') {
		c->arg = AOT_CONV_INT;
	} else if (!c->length[0] && c->conv == 's') {
		c->arg = AOT_CONV_STR;
	} else if (!c->length[0] && c->conv == 'r') {
		c->arg = AOT_CONV_BUF;
		if (*s == 'x' || *s == 'h')
			c->buf_mode = *s++;
	} else if (!c->length[0] && c->conv == 'g' && *s == 'r') {
		c->arg = AOT_CONV_GFP;
		s++;
	}
	return s;
}

const char *aot_conv_next(const char *s, struct aot_conv *c, const char **start)
{
	s = strchr(s, '%');
	if (!s)
		return NULL;
	*start = s;
	return aot_conv_parse(s, c);
}
