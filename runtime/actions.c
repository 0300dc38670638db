// SPDX-License-Identifier: GPL-2.0
/*
 * The user-space half of FORMAT events (meta.h): printf, system() run through /bin/sh, cat() of
 * a file, time() of the wall clock, join() of a string array and print(value). Each produces
 * text (or a value) that goes to the output as bpftrace's message of the same name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt.h"

#define ACTIONS_TIME_MAX 64 /* bpftrace's STRING_SIZE for time()'s result */

/* Runs cmd with /bin/sh -c and appends what it writes to stdout. */
static int actions_system(struct rt *rt, const char *cmd, struct rt_buf *out)
{
	char chunk[4096];
	size_t n;
	FILE *p;

	/* The child shares our stdout: what we printed so far must come first. */
	fflush(rt->out.f);
	p = popen(cmd, "r");
	if (!p)
		return -errno;
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		rt_buf_add(out, chunk, n);
	pclose(p);
	return 0;
}

static void actions_cat(struct rt *rt, const char *path, struct rt_buf *out)
{
	/* At most BPFTRACE_CAT_BYTES_MAX, as bpftrace: /dev/zero must end too. */
	size_t max = rt->opts->cat_max ? rt->opts->cat_max : AOT_CAT_BYTES_DEFAULT, n;
	char chunk[4096];
	FILE *f = fopen(path, "re");

	if (!f) {
		rt_report(&rt->out, RT_WARN, "failed to open file '%s': %s", path, strerror(errno));
		return;
	}
	while (out->len < max &&
	       (n = fread(chunk, 1, max - out->len < sizeof(chunk) ? max - out->len : sizeof(chunk),
			  f)) > 0)
		rt_buf_add(out, chunk, n);
	fclose(f);
}

static int actions_time(struct rt *rt, const char *fmt, struct rt_buf *out)
{
	char s[ACTIONS_TIME_MAX];
	time_t now = time(NULL);
	struct tm tm;

	if (!localtime_r(&now, &tm) || !strftime(s, sizeof(s), fmt, &tm)) {
		rt_report(&rt->out, RT_WARN, "time(): strftime returned 0");
		return -EINVAL;
	}
	rt_buf_add(out, s, strlen(s));
	return 0;
}

/* join(): the strings of the array up to the first empty one, separated by sep. */
static int actions_join(const struct aot_meta *m, const struct aot_fmt *f, const uint8_t *p,
			struct rt_buf *out)
{
	const struct aot_elem *arr;
	uint32_t i;

	if (f->args.nelems != 1)
		return -EINVAL;
	arr = &m->elems[f->args.elems];
	if (arr->type.kind != AOT_K_TUPLE)
		return -EINVAL;
	for (i = 0; i < arr->type.nelems; i++) {
		const struct aot_elem *e = &m->elems[arr->type.elems + i];
		const uint8_t *s = p + arr->offset + e->offset;

		if (e->type.kind != AOT_K_STR || !s[0])
			break;
		if (i)
			rt_buf_add(out, f->fmt, strlen(f->fmt));
		rt_buf_add(out, (const char *)s, rt_value_strlen(&e->type, s));
	}
	return 0;
}

/*
 * -k: a helper failed at the call site fmts[...] describes (meta.h, AOT_FMT_HELPER_ERROR): its
 * five lines are split in a copy, the return code comes from the payload.
 */
static int actions_helper_error(struct rt *rt, const struct aot_fmt *f, const void *payload)
{
	const struct aot_elem *e;
	struct output_helper_error he = { 0 };
	char *copy, *field[5], *p, *end;
	int64_t ret;
	int i;

	if (f->args.nelems != 1)
		return -EINVAL;
	e = &rt->meta->elems[f->args.elems];
	if (e->type.kind != AOT_K_INT || e->type.size != 8)
		return -EINVAL;
	copy = strdup(f->fmt);
	if (!copy)
		return -ENOMEM;
	for (i = 0, p = copy; i < 5 && p; i++) {
		field[i] = p;
		p = i < 4 ? strchr(p, '\n') : NULL;
		if (p)
			*p++ = '\0';
	}
	if (i < 5) {
		free(copy);
		return -EINVAL;
	}
	memcpy(&ret, (const uint8_t *)payload + e->offset, sizeof(ret));
	he = (struct output_helper_error){ .helper = field[0],
					   .ret = ret,
					   .line = (unsigned)strtoul(field[1], &end, 10),
					   .col = (unsigned)strtoul(field[2], &end, 10),
					   .loc = field[3],
					   .excerpt = field[4] };
	rt->out.ops->helper_error(&rt->out, &he);
	free(copy);
	return 0;
}

/*
 * errorf()/warnf(): the four lines of the call site before the printf format (meta.h,
 * AOT_FMT_ERRORF), then the text formatted as printf's.
 */
static int actions_diag(struct rt *rt, const struct aot_fmt *f, const void *payload, size_t len,
			struct rt_buf *t)
{
	struct output_diag d = { .error = f->kind == AOT_FMT_ERRORF };
	struct aot_fmt body = *f;
	char *copy, *field[4], *p, *end;
	int err = -EINVAL;

	if (!d.error && rt->out.no_warnings) /* in JSON too, as bpftrace */
		return 0;
	copy = p = strdup(f->fmt);
	if (!copy)
		return -ENOMEM;
	for (int i = 0; i < 4; i++) {
		field[i] = p;
		p = p ? strchr(p, '\n') : NULL;
		if (p)
			*p++ = '\0';
	}
	if (!p)
		goto out;
	body.fmt = f->fmt + (p - copy);
	err = rt_printf_format(t, &rt->render, &body, payload, len);
	if (err)
		goto out;
	d.loc = field[0];
	/* the macro calls it was expanded from, after the location (meta.h) */
	d.expanded = strchr(field[0], AOT_SITE_US);
	if (d.expanded) {
		*(char *)d.expanded++ = '\0';
		for (char *c = (char *)d.expanded; *c; c++)
			if (*c == AOT_SITE_RS)
				*c = '\n';
	}
	d.line = (unsigned)strtoul(field[1], &end, 10);
	d.col = (unsigned)strtoul(field[2], &end, 10);
	d.file = field[3];
	d.text = t->s ? t->s : "";
	d.len = t->len;
	if (d.error)
		rt->out.nerrors++;
	rt->out.ops->diag(&rt->out, &d);
out:
	free(copy);
	return err;
}

int rt_action_run(struct rt *rt, const struct aot_fmt *f, const void *payload, size_t len)
{
	struct rt_buf *t = &rt->text;
	struct rt_buf cmd = { 0 };
	int err = 0;

	if (f->args.kind != AOT_K_TUPLE || len < f->args.size)
		return -EINVAL;
	rt_buf_reset(t);
	switch (f->kind) {
	case AOT_FMT_PRINTF:
		err = rt_printf_format(t, &rt->render, f, payload, len);
		if (!err && t->len)
			rt->out.ops->printf(&rt->out, t->s, t->len);
		break;
	case AOT_FMT_SYSTEM:
	case AOT_FMT_CAT:
		err = rt_printf_format(&cmd, &rt->render, f, payload, len);
		if (err || !cmd.s)
			break;
		if (f->kind == AOT_FMT_SYSTEM)
			err = actions_system(rt, cmd.s, t);
		else
			actions_cat(rt, cmd.s, t);
		if (!err)
			rt->out.ops->message(&rt->out,
					     f->kind == AOT_FMT_SYSTEM ? OUTPUT_MSG_SYSCALL
								       : OUTPUT_MSG_CAT,
					     t->s ? t->s : "", t->len);
		break;
	case AOT_FMT_TIME:
		if (!actions_time(rt, f->fmt, t))
			rt->out.ops->message(&rt->out, OUTPUT_MSG_TIME, t->s, t->len);
		break;
	case AOT_FMT_JOIN:
		err = actions_join(rt->meta, f, payload, t);
		if (!err)
			rt->out.ops->message(&rt->out, OUTPUT_MSG_JOIN, t->s ? t->s : "", t->len);
		break;
	case AOT_FMT_HELPER_ERROR:
		err = actions_helper_error(rt, f, payload);
		break;
	case AOT_FMT_ERRORF:
	case AOT_FMT_WARNF:
		err = actions_diag(rt, f, payload, len, t);
		break;
	case AOT_FMT_PRINT_VALUE: {
		const struct aot_elem *e;

		if (f->args.nelems != 1) {
			err = -EINVAL;
			break;
		}
		e = &rt->meta->elems[f->args.elems];
		rt->out.ops->value(&rt->out, &rt->render, &e->type,
				   (const uint8_t *)payload + e->offset);
		break;
	}
	default:
		err = -EINVAL;
		break;
	}
	rt_buf_free(&cmd);
	return err;
}
