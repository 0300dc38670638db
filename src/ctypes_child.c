// SPDX-License-Identifier: GPL-2.0
/*
 * The script's C definitions, parsed in a short-lived child process. libclang brings its own
 * shared libLLVM (tens of MiB resident beside the one linked into aotrace): a forked child loads
 * it, parses (ctypes_clang.c), and writes back over a pipe what the definitions define (records,
 * typedefs, constants), the files they included and its diagnostics, in the flat form below. The
 * process that goes on to load and run the program never maps libclang.
 *
 * The form: little-endian u32s and strings (u32 length, bytes). A record is written whole the
 * first time a type names it and by its index after that, so shared and self-referencing
 * records stay one record; a record of the kernel's BTF is written as its name, and the parent
 * looks it up in its own copy of the same BTF.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "aotcc.h"
#include "arena.h"
#include "ctypes.h"
#include "diag.h"

enum { CHILD_REC_NEW = 1, CHILD_REC_BTF, CHILD_REC_SEEN };

/* ---- writing, in the child ---- */

struct child_out {
	FILE *f;
	/* the records written so far, in index order (a record's index is its position) */
	const struct crecord **recs;
	uint32_t nrecs, cap;
	/* the enums written so far, likewise */
	const struct cenum **enums;
	uint32_t nenums, capenums;
};

static void out_u32(struct child_out *o, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	fwrite(b, 1, 4, o->f);
}

static void out_str(struct child_out *o, const char *s)
{
	uint32_t n = s ? (uint32_t)strlen(s) : UINT32_MAX;

	out_u32(o, n);
	if (s)
		fwrite(s, 1, n, o->f);
}

static void out_record(struct child_out *o, const struct crecord *r);

/* An enum: the index of one written before (CHILD_REC_SEEN), or CHILD_REC_NEW and all of it. */
static void out_enum(struct child_out *o, const struct cenum *en)
{
	for (uint32_t i = 0; i < o->nenums; i++) {
		if (o->enums[i] == en) {
			out_u32(o, CHILD_REC_SEEN);
			out_u32(o, i);
			return;
		}
	}
	if (o->nenums == o->capenums) {
		uint32_t cap = o->capenums ? 2 * o->capenums : 16;
		const struct cenum **v = realloc(o->enums, cap * sizeof(*v));

		if (!v)
			_exit(127);
		o->enums = v;
		o->capenums = cap;
	}
	o->enums[o->nenums++] = en;
	out_u32(o, CHILD_REC_NEW);
	out_str(o, en->name);
	out_u32(o, en->n);
	for (uint32_t i = 0; i < en->n; i++) {
		out_str(o, en->names[i]);
		out_u32(o, (uint32_t)en->vals[i]);
		out_u32(o, (uint32_t)((uint64_t)en->vals[i] >> 32));
	}
}

static void out_type(struct child_out *o, const struct type *t)
{
	out_u32(o, t->kind);
	out_u32(o, t->size);
	out_u32(o, t->nelems);
	out_u32(o, t->btf_id);
	out_u32(o, (uint32_t)t->is_signed | (uint32_t)t->is_user << 1 |
			   (uint32_t) !!t->pointee << 2 | (uint32_t) !!t->rec << 3 |
			   (uint32_t) !!t->enm << 4);
	if (t->pointee)
		out_type(o, t->pointee);
	if (t->rec)
		out_record(o, t->rec);
	if (t->enm)
		out_enum(o, t->enm);
}

static void out_record(struct child_out *o, const struct crecord *r)
{
	for (uint32_t i = 0; i < o->nrecs; i++) {
		if (o->recs[i] == r) {
			out_u32(o, CHILD_REC_SEEN);
			out_u32(o, i);
			return;
		}
	}
	if (o->nrecs == o->cap) {
		uint32_t cap = o->cap ? 2 * o->cap : 256;
		const struct crecord **v = realloc(o->recs, cap * sizeof(*v));

		if (!v)
			_exit(127);
		o->recs = v;
		o->cap = cap;
	}
	o->recs[o->nrecs++] = r;
	out_u32(o, r->btf_id ? CHILD_REC_BTF : CHILD_REC_NEW);
	out_str(o, r->name);
	out_u32(o, r->is_union);
	if (r->btf_id)
		return;
	out_u32(o, (uint32_t)r->complete | (uint32_t)r->defined << 1);
	out_u32(o, r->size);
	out_u32(o, r->nmembers);
	for (uint32_t i = 0; i < r->nmembers; i++) {
		const struct cmember *m = &r->members[i];

		out_str(o, m->name);
		out_u32(o, m->off);
		out_u32(o, m->bit_off);
		out_u32(o, m->bit_size);
		out_u32(o, m->index);
		out_type(o, &m->type);
	}
}

static void out_named(struct child_out *o, const struct cc_named *e, int what)
{
	uint32_t n = 0;

	for (const struct cc_named *p = e; p; p = p->next)
		n++;
	out_u32(o, n);
	for (; e; e = e->next) {
		out_str(o, e->name);
		if (what == 0) {
			out_record(o, e->rec);
		} else if (what == 1) {
			out_type(o, &e->type);
		} else {
			out_u32(o, (uint32_t)e->val);
			out_u32(o, (uint32_t)((uint64_t)e->val >> 32));
			out_type(o, &e->type);
		}
	}
}

/* The child: parses, writes everything to fd, and ends without running atexit handlers. */
static __attribute__((noreturn)) void child_main(struct ctypes *ct, const struct diags *d,
						 const char *const *wanted, int fd)
{
	struct program *prog = ctypes_program(ct);
	struct ctypes_c *c = NULL;
	struct child_out o = { 0 };
	struct diags cd;
	uint32_t deps0 = prog->ndeps;
	char *buf = NULL;
	size_t len = 0;
	int err;

	diags_init(&cd, d->src);
	err = ctypes_clang_parse(ct, &cd, wanted);
	c = ctypes_get_c(ct);
	o.f = open_memstream(&buf, &len);
	if (!o.f)
		_exit(127);
	out_u32(&o, (uint32_t)-err);
	out_u32(&o, (uint32_t)cd.n);
	for (size_t i = 0; i < cd.n; i++) {
		out_u32(&o, cd.v[i].level);
		out_u32(&o, cd.v[i].loc.line);
		out_u32(&o, cd.v[i].loc.col);
		out_u32(&o, cd.v[i].loc.len);
		out_str(&o, cd.v[i].msg);
		out_str(&o, cd.v[i].hint);
	}
	out_u32(&o, prog->ndeps - deps0);
	for (uint32_t i = deps0; i < prog->ndeps; i++)
		out_str(&o, prog->deps[i]);
	out_u32(&o, !!c);
	if (c) {
		out_named(&o, c->records, 0);
		out_named(&o, c->typedefs, 1);
		out_named(&o, c->consts, 2);
		out_named(&o, c->enums, 1);
	}
	if (fclose(o.f))
		_exit(127);
	for (size_t off = 0; off < len;) {
		ssize_t w = write(fd, buf + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(127);
		off += (size_t)w;
	}
	_exit(0);
}

/* ---- reading, in the parent ---- */

struct child_in {
	const uint8_t *p, *end;
	bool bad;
	struct ctypes *ct;
	struct arena *a;
	struct crecord **recs;
	uint32_t nrecs, cap;
	struct cenum **enums;
	uint32_t nenums, capenums;
	uint32_t depth;
};

static uint32_t in_u32(struct child_in *in)
{
	uint32_t v;

	if (in->bad || in->end - in->p < 4) {
		in->bad = true;
		return 0;
	}
	v = (uint32_t)in->p[0] | (uint32_t)in->p[1] << 8 | (uint32_t)in->p[2] << 16 |
	    (uint32_t)in->p[3] << 24;
	in->p += 4;
	return v;
}

/* An arena string, or NULL (written as NULL, or bad input). */
static char *in_str(struct child_in *in)
{
	uint32_t n = in_u32(in);
	char *s;

	if (n == UINT32_MAX || in->bad)
		return NULL;
	if ((size_t)(in->end - in->p) < n) {
		in->bad = true;
		return NULL;
	}
	s = arena_strndup(in->a, (const char *)in->p, n);
	in->p += n;
	return s;
}

static struct crecord *in_record(struct child_in *in);

static struct cenum *in_enum(struct child_in *in)
{
	uint32_t tag = in_u32(in), n;
	struct cenum *en;

	if (tag == CHILD_REC_SEEN) {
		n = in_u32(in);
		if (in->bad || n >= in->nenums) {
			in->bad = true;
			return NULL;
		}
		return in->enums[n];
	}
	en = arena_alloc(in->a, sizeof(*en));
	en->name = in_str(in);
	n = in_u32(in);
	if (tag != CHILD_REC_NEW || !en->name || (size_t)(in->end - in->p) / 12 < n) {
		in->bad = true;
		return NULL;
	}
	en->names = arena_alloc(in->a, (n ? n : 1) * sizeof(*en->names));
	en->vals = arena_alloc(in->a, (n ? n : 1) * sizeof(*en->vals));
	for (uint32_t i = 0; i < n && !in->bad; i++) {
		uint64_t lo;

		en->names[i] = in_str(in);
		lo = in_u32(in);
		en->vals[i] = (int64_t)(lo | (uint64_t)in_u32(in) << 32);
		if (!en->names[i])
			in->bad = true;
	}
	en->n = n;
	if (in->bad)
		return NULL;
	if (in->nenums == in->capenums) {
		uint32_t cap = in->capenums ? 2 * in->capenums : 16;

		in->enums = arena_grow(in->a, in->enums, in->nenums, cap, sizeof(*in->enums));
		in->capenums = cap;
	}
	in->enums[in->nenums++] = en;
	return en;
}

static void in_type(struct child_in *in, struct type *t)
{
	uint32_t flags;

	/* the child's types are trees of bounded depth; more is a broken stream */
	if (++in->depth > 10000)
		in->bad = true;
	t->kind = (enum type_kind)in_u32(in);
	t->size = in_u32(in);
	t->nelems = in_u32(in);
	t->btf_id = in_u32(in);
	flags = in_u32(in);
	if (in->bad) {
		in->depth--;
		*t = (struct type){ .kind = TYPE_NONE };
		return;
	}
	t->is_signed = flags & 1;
	t->is_user = flags & 2;
	if (flags & 4) {
		t->pointee = arena_alloc(in->a, sizeof(*t->pointee));
		in_type(in, t->pointee);
	}
	if (flags & 8)
		t->rec = in_record(in);
	if (flags & 16) {
		t->enm = in_enum(in);
		if (!t->enm)
			in->bad = true;
	}
	if (t->kind == TYPE_RECORD && !t->rec)
		in->bad = true;
	in->depth--;
}

static struct crecord *in_record(struct child_in *in)
{
	uint32_t tag = in_u32(in), n;
	struct crecord *r;
	char *name;
	bool is_union;

	if (tag == CHILD_REC_SEEN) {
		n = in_u32(in);
		if (n >= in->nrecs)
			in->bad = true;
		return in->bad ? NULL : in->recs[n];
	}
	if (tag != CHILD_REC_NEW && tag != CHILD_REC_BTF) {
		in->bad = true;
		return NULL;
	}
	name = in_str(in);
	is_union = in_u32(in);
	if (in->bad || !name)
		return NULL;
	r = tag == CHILD_REC_BTF ? ctypes_record(in->ct, name, is_union) : NULL;
	if (!r) {
		/* the parent's BTF lacks it (it is the same BTF): an incomplete record then */
		r = arena_alloc(in->a, sizeof(*r));
		r->name = name;
		r->is_union = is_union;
		r->ct = in->ct;
	}
	if (in->nrecs == in->cap) {
		uint32_t cap = in->cap ? 2 * in->cap : 256;

		in->recs = arena_grow(in->a, in->recs, in->nrecs, cap, sizeof(*in->recs));
		in->cap = cap;
	}
	in->recs[in->nrecs++] = r;
	if (tag == CHILD_REC_BTF)
		return r;
	n = in_u32(in);
	r->complete = n & 1;
	r->defined = n & 2;
	r->size = in_u32(in);
	n = in_u32(in);
	if (in->bad || (size_t)(in->end - in->p) / 24 < n) {
		in->bad = true;
		return NULL;
	}
	r->members = arena_alloc(in->a, (n ? n : 1) * sizeof(*r->members));
	for (uint32_t i = 0; i < n && !in->bad; i++) {
		struct cmember *m = &r->members[i];

		m->name = in_str(in);
		if (!m->name)
			m->name = "";
		m->off = in_u32(in);
		m->bit_off = in_u32(in);
		m->bit_size = in_u32(in);
		m->index = in_u32(in);
		m->parent = r;
		in_type(in, &m->type);
	}
	r->nmembers = in->bad ? 0 : n;
	return r;
}

static struct cc_named *in_named(struct child_in *in, int what)
{
	uint32_t n = in_u32(in);
	struct cc_named *head = NULL, **tail = &head;

	if ((size_t)(in->end - in->p) / 4 < n)
		in->bad = true;
	for (uint32_t i = 0; i < n && !in->bad; i++) {
		struct cc_named *e = arena_alloc(in->a, sizeof(*e));

		e->name = in_str(in);
		if (what == 0) {
			e->rec = in_record(in);
			if (e->rec)
				e->is_union = e->rec->is_union;
		} else if (what == 1) {
			in_type(in, &e->type);
		} else {
			uint64_t lo = in_u32(in);

			e->val = (int64_t)(lo | (uint64_t)in_u32(in) << 32);
			in_type(in, &e->type);
		}
		if (!e->name || (what == 0 && !e->rec))
			in->bad = true;
		*tail = e;
		tail = &e->next;
	}
	return in->bad ? NULL : head;
}

static int child_decode(struct ctypes *ct, struct diags *d, const uint8_t *buf, size_t len)
{
	struct child_in in = { .p = buf, .end = buf + len, .ct = ct, .a = ctypes_arena(ct) };
	struct ctypes_c *c;
	int err = -(int)in_u32(&in);
	uint32_t n = in_u32(&in);

	for (uint32_t i = 0; i < n && !in.bad; i++) {
		uint32_t level = in_u32(&in);
		struct loc loc = { .line = in_u32(&in), .col = in_u32(&in), .len = in_u32(&in) };
		const char *msg = in_str(&in), *hint = in_str(&in);

		if (in.bad || !msg)
			break;
		if (level == DIAG_ERROR)
			diag_error(d, loc, hint, "%s", msg);
		else
			diag_warn(d, loc, hint, "%s", msg);
	}
	n = in_u32(&in);
	for (uint32_t i = 0; i < n && !in.bad; i++) {
		char *path = in_str(&in);

		if (!path)
			break;
		program_add_dep(ctypes_program(ct), path);
	}
	if (in_u32(&in) && !in.bad) {
		c = arena_alloc(in.a, sizeof(*c));
		c->records = in_named(&in, 0);
		c->typedefs = in_named(&in, 1);
		c->consts = in_named(&in, 2);
		c->enums = in_named(&in, 1);
		if (!in.bad)
			ctypes_set_c(ct, c);
	}
	if (in.bad || in.p != in.end)
		return -EPROTO;
	return err;
}

int ctypes_parse_c(struct ctypes *ct, struct diags *d, const char *const *wanted)
{
	struct program *prog = ctypes_program(ct);
	struct loc where = prog->root->body ? prog->root->body->loc : prog->root->loc;
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	struct rusage ru;
	int fds[2], status = 0, err;
	pid_t pid;

	/* The kernel's BTF is the parent's anyway (for the BTF records): the child inherits it. */
	ctypes_btf(ct, NULL);
	if (pipe2(fds, O_CLOEXEC))
		return ctypes_clang_parse(ct, d, wanted);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return ctypes_clang_parse(ct, d, wanted);
	}
	if (pid == 0) {
		close(fds[0]);
		child_main(ct, d, wanted, fds[1]);
	}
	close(fds[1]);
	for (;;) {
		ssize_t r;

		if (len == cap) {
			uint8_t *nb = realloc(buf, cap = cap ? 2 * cap : 65536);

			if (!nb) {
				err = -ENOMEM;
				break;
			}
			buf = nb;
		}
		r = read(fds[0], buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		err = r < 0 ? -errno : 0;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fds[0]);
	while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
		;
	if (err) {
		diag_warn(d, where, NULL, "cannot read the C definitions' types: %s",
			  strerror(-err));
	} else if (WIFSIGNALED(status) || !WIFEXITED(status) || WEXITSTATUS(status)) {
		diag_warn(
			d, where, NULL,
			"the process parsing the C definitions failed (%s %d), so they are ignored",
			WIFSIGNALED(status) ? "signal" : "exit status",
			WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		err = -ECHILD;
	} else {
		if (prog->opts->verbose)
			fprintf(stderr,
				"aotrace: C definitions parsed by libclang in process %d: peak RSS "
				"%.1f MiB\n",
				(int)pid, ru.ru_maxrss / 1024.0);
		err = child_decode(ct, d, buf, len);
		if (err == -EPROTO)
			diag_warn(
				d, where, NULL,
				"the C definitions' types came back garbled, so they are ignored");
	}
	free(buf);
	return err;
}
