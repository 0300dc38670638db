// SPDX-License-Identifier: GPL-2.0
/*
 * The metadata section: builders for the compiler, a writer, and a reader for the runtime that
 * treats the bytes as hostile (they come from an ELF file anyone may hand to aotrace-run).
 *
 * Serialised format, version 4 or 5 (5: the same, where a map has a last-key cache, meta.h; 3
 * had the same records, but a keyless hist was always a hash map, see meta.h; 2 had no element
 * names; 1 no stop flag for BEGIN). Every field is a
 * little-endian u32; records are fixed-size and need no alignment (the reader copies bytes out).
 * Offsets are from the start of the section.
 *
 *   header (64 bytes)
 *      0  magic[8]       "AOTMETA\0"
 *      8  version        AOT_META_VERSION
 *     12  total_size     bytes of the whole section; the reader ignores anything past it
 *     16  nparams
 *     20  settings_off   0, or the offset of the settings record: a count N, then N values
 *                        indexed by enum aot_setting (a reader takes those it knows; an
 *                        object from before the config block has 0 here); in a version 10
 *                        object with enums one more value, AOT_SET_ENUMS: the enum table's
 *                        offset, which objects without enums leave out (as before)
 *     24  probes_off, nprobes     probe records (20 bytes): prog type target name flags
 *     32  maps_off, nmaps         map records (80 bytes): name elf_name agg nkeys key value
 *                                 lhist_min lhist_max lhist_step (each s64 as low, high u32;
 *                                 a tseries: interval, count, fn in the same fields)
 *     40  fmts_off, nfmts         format records (28 bytes): kind fmt args
 *     48  elems_off, nelems       element records (28 bytes): offset type name (tuple and
 *                                 array elements have no name: AOT_META_NOSTR)
 *     56  strtab_off, strtab_size string table: NUL-terminated strings
 *
 *   enum table (version 10): nenums, nenumvals, then nenums records (8 bytes): first n (the
 *        enum's enumerators), then nenumvals records (12 bytes): value (s64) name
 *   type (20 bytes inside the records above): kind size is_signed nelems elems (an INT's
 *        elems: 0, or since version 8 a bitfield's bit offset and size, AOT_INT_BITS in meta.h;
 *        its nelems since version 10 may be AOT_INT_ENUM(i), an index into the enum table)
 *   string: offset into the string table, or AOT_META_NOSTR for a NULL pointer; strings may
 *           share bytes (a target is often the end of its probe's name)
 *   AOT_PROBE_ALIAS records: name AOT_META_NOSTR means "type:target", prog AOT_META_NOSTR
 *           means "a.INDEX" (the probe's index), the names codegen gives aliases
 *
 * The reader checks every offset and count against total_size, every string for a NUL inside
 * the table, every type's kind and size, every tuple's element range, element offsets within
 * the tuple, a bitfield's bits within its bytes, an enum index and its enumerators' range within
 * the enum table, cycles and a nesting depth of at most
 * AOT_META_MAX_DEPTH.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meta.h"

#define META_HDR_SIZE 64
#define META_TYPE_SIZE 20
#define META_PROBE_SIZE 20
#define META_MAP_SIZE (16 + 2 * META_TYPE_SIZE + 24)
#define META_LHIST_MAX_BUCKETS 1000 /* as bpftrace: lhist's (max - min) / step */
#define META_FMT_SIZE (8 + META_TYPE_SIZE)
#define META_ELEM_SIZE (8 + META_TYPE_SIZE)
#define META_STR_MAX 4096 /* longest string the reader accepts: names and formats */

/* Builders */

struct aot_meta *aot_meta_new(void)
{
	struct aot_meta *m = calloc(1, sizeof(*m));

	if (m)
		m->version = AOT_META_VERSION_BASE;
	return m;
}

const char *const aot_stack_mode_names[AOT_STACK_MODE_COUNT] = {
	[AOT_STACK_MODE_BPFTRACE] = "bpftrace",
	[AOT_STACK_MODE_PERF] = "perf",
	[AOT_STACK_MODE_RAW] = "raw",
	[AOT_STACK_MODE_BUILD_ID] = "build_id",
};

void aot_meta_set_version(struct aot_meta *m, uint32_t version)
{
	if (m->version < version)
		m->version = version;
}

static void meta_free_probe(struct aot_probe *p)
{
	free(p->prog);
	free(p->type);
	free(p->target);
	free(p->name);
}

void aot_meta_free(struct aot_meta *m)
{
	uint32_t i;

	if (!m)
		return;
	for (i = 0; i < m->nprobes; i++)
		meta_free_probe(&m->probes[i]);
	for (i = 0; i < m->nmaps; i++) {
		free(m->maps[i].name);
		free(m->maps[i].elf_name);
	}
	for (i = 0; i < m->nfmts; i++)
		free(m->fmts[i].fmt);
	for (i = 0; i < m->nelems; i++)
		free(m->elems[i].name);
	for (i = 0; i < m->nenumvals; i++)
		free(m->enumvals[i].name);
	free(m->enums);
	free(m->enumvals);
	free(m->probes);
	free(m->maps);
	free(m->fmts);
	free(m->elems);
	free(m->trailer);
	free(m);
}

int aot_meta_set_trailer(struct aot_meta *m, const char *trailer)
{
	char *t = strdup(trailer);

	if (!t)
		return -ENOMEM;
	free(m->trailer);
	m->trailer = t;
	return 0;
}

/* strdup that keeps NULL as NULL; *ok turns false on allocation failure. */
static char *meta_strdup(const char *s, bool *ok)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*ok = false;
	return d;
}

/* Grows an array of n elements of size sz by one; returns the new array or NULL. */
static void *meta_grow(void *arr, uint32_t n, size_t sz)
{
	if (n >= INT32_MAX - 1)
		return NULL;
	return realloc(arr, (n + 1) * sz);
}

int aot_meta_add_probe(struct aot_meta *m, const struct aot_probe *p)
{
	struct aot_probe *arr, *d;
	bool ok = true;

	arr = meta_grow(m->probes, m->nprobes, sizeof(*arr));
	if (!arr)
		return -ENOMEM;
	m->probes = arr;
	d = &arr[m->nprobes];
	d->prog = meta_strdup(p->prog, &ok);
	d->type = meta_strdup(p->type, &ok);
	d->target = meta_strdup(p->target, &ok);
	d->name = meta_strdup(p->name, &ok);
	d->flags = p->flags;
	if (!ok) {
		meta_free_probe(d);
		return -ENOMEM;
	}
	return m->nprobes++;
}

int aot_meta_add_map(struct aot_meta *m, const struct aot_map *map)
{
	struct aot_map *arr, *d;
	bool ok = true;

	arr = meta_grow(m->maps, m->nmaps, sizeof(*arr));
	if (!arr)
		return -ENOMEM;
	m->maps = arr;
	d = &arr[m->nmaps];
	*d = *map;
	d->name = meta_strdup(map->name, &ok);
	d->elf_name = meta_strdup(map->elf_name, &ok);
	if (!ok) {
		free(d->name);
		free(d->elf_name);
		return -ENOMEM;
	}
	return m->nmaps++;
}

int aot_meta_add_fmt(struct aot_meta *m, const struct aot_fmt *f)
{
	struct aot_fmt *arr, *d;
	bool ok = true;

	arr = meta_grow(m->fmts, m->nfmts, sizeof(*arr));
	if (!arr)
		return -ENOMEM;
	m->fmts = arr;
	d = &arr[m->nfmts];
	*d = *f;
	d->fmt = meta_strdup(f->fmt, &ok);
	if (!ok)
		return -ENOMEM;
	return m->nfmts++;
}

int aot_meta_add_enum(struct aot_meta *m, char *const *names, const int64_t *vals, uint32_t n)
{
	struct aot_enumval *ev;
	struct aot_enum *en;
	uint32_t i, j;

	for (i = 0; i < m->nenums; i++) {
		if (m->enums[i].n != n)
			continue;
		for (j = 0; j < n; j++) {
			ev = &m->enumvals[m->enums[i].first + j];
			if (ev->val != vals[j] || strcmp(ev->name, names[j]))
				break;
		}
		if (j == n)
			return (int)i;
	}
	if (m->nenums >= INT32_MAX || n > INT32_MAX - m->nenumvals)
		return -ENOMEM;
	en = realloc(m->enums, (m->nenums + 1) * sizeof(*en));
	if (!en)
		return -ENOMEM;
	m->enums = en;
	ev = realloc(m->enumvals, ((size_t)m->nenumvals + n + 1) * sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	m->enumvals = ev;
	for (j = 0; j < n; j++) {
		ev[m->nenumvals + j].val = vals[j];
		ev[m->nenumvals + j].name = strdup(names[j]);
		if (!ev[m->nenumvals + j].name) {
			while (j--)
				free(ev[m->nenumvals + j].name);
			return -ENOMEM;
		}
	}
	en[m->nenums] = (struct aot_enum){ .first = m->nenumvals, .n = n };
	m->nenumvals += n;
	aot_meta_set_version(m, AOT_META_VERSION_ENUM);
	return (int)m->nenums++;
}

const char *aot_meta_enum_name(const struct aot_meta *m, const struct aot_type *t, int64_t val)
{
	uint64_t mask = t->size >= 8 ? ~0ull : (1ull << (8 * t->size)) - 1;
	const struct aot_enum *en;

	if (t->kind != AOT_K_INT || !t->size || t->nelems < AOT_INT_ENUM(0) ||
	    t->nelems - AOT_INT_ENUM(0) >= m->nenums)
		return NULL;
	en = &m->enums[t->nelems - AOT_INT_ENUM(0)];
	/* a C enum member is unsigned to aotrace: its -1 reads as 0xffffffff */
	for (uint32_t i = 0; i < en->n; i++)
		if (((uint64_t)m->enumvals[en->first + i].val & mask) == ((uint64_t)val & mask))
			return m->enumvals[en->first + i].name;
	return NULL;
}

int aot_meta_add_elems(struct aot_meta *m, uint32_t n)
{
	struct aot_elem *arr;
	uint32_t first = m->nelems;

	if (n > AOT_META_MAX_TUPLE || first > INT32_MAX - n)
		return -ENOMEM;
	arr = realloc(m->elems, ((size_t)first + n) * sizeof(*arr) + 1);
	if (!arr)
		return -ENOMEM;
	memset(&arr[first], 0, n * sizeof(*arr));
	m->elems = arr;
	m->nelems += n;
	return first;
}

/* Writer */

struct meta_buf {
	uint8_t *data;
	size_t len, cap;
	bool failed;
};

static void *meta_buf_reserve(struct meta_buf *b, size_t n)
{
	void *p;

	if (b->failed)
		return NULL;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1024;
		uint8_t *d;

		while (cap < b->len + n)
			cap *= 2;
		d = realloc(b->data, cap);
		if (!d) {
			b->failed = true;
			return NULL;
		}
		b->data = d;
		b->cap = cap;
	}
	p = b->data + b->len;
	memset(p, 0, n);
	b->len += n;
	return p;
}

static void meta_put32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/* Appends one u32 to a record being written; *pos advances. */
static void meta_rec32(uint8_t *rec, size_t *pos, uint32_t v)
{
	meta_put32(rec + *pos, v);
	*pos += 4;
}

static void meta_rec64(uint8_t *rec, size_t *pos, uint64_t v)
{
	meta_rec32(rec, pos, (uint32_t)v);
	meta_rec32(rec, pos, (uint32_t)(v >> 32));
}

static void meta_rec_type(uint8_t *rec, size_t *pos, const struct aot_type *t)
{
	meta_rec32(rec, pos, t->kind);
	meta_rec32(rec, pos, t->size);
	meta_rec32(rec, pos, t->is_signed);
	meta_rec32(rec, pos, t->nelems);
	meta_rec32(rec, pos, t->elems);
}

/* Strings go to a separate buffer; returns the offset to store in a record. */
static uint32_t meta_str(struct meta_buf *strs, const char *s)
{
	size_t n, off = strs->len;
	void *p;

	if (!s)
		return AOT_META_NOSTR;
	n = strlen(s) + 1;
	p = meta_buf_reserve(strs, n);
	if (!p)
		return 0;
	memcpy(p, s, n);
	return off;
}

/* Whether an alias probe's program has the name codegen gives aliases, "a.INDEX". */
static bool meta_alias_prog(const struct aot_probe *p, uint32_t i)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "a.%u", i);
	return p->prog && !strcmp(p->prog, buf);
}

/* Whether a probe's name is "type:target", which an alias probe then leaves out. */
static bool meta_alias_name(const struct aot_probe *p)
{
	size_t tl = p->type ? strlen(p->type) : 0;

	return p->name && p->type && p->target && !strncmp(p->name, p->type, tl) &&
	       p->name[tl] == ':' && !strcmp(p->name + tl + 1, p->target);
}

int aot_meta_write(const struct aot_meta *m, void **out, size_t *size)
{
	struct meta_buf b = { 0 }, strs = { 0 };
	size_t offs[5], pos, settings_off;
	uint32_t i, last_type = AOT_META_NOSTR, nset;
	uint8_t *rec;
	int err = -ENOMEM;

	/* Strings first, into their own buffer, so that record offsets stay put. */
	if (!meta_buf_reserve(&b, META_HDR_SIZE))
		goto out;

	offs[0] = b.len;
	if (!meta_buf_reserve(&b, (size_t)m->nprobes * META_PROBE_SIZE))
		goto out;
	for (i = 0; i < m->nprobes; i++) {
		const struct aot_probe *p = &m->probes[i];
		uint32_t prog, type, target, name;
		size_t nlen = p->name ? strlen(p->name) : 0,
		       tlen = p->target ? strlen(p->target) : 0;

		/*
		 * Thousands of probes of one wildcard share their type, and a target is the end
		 * of its name ("kfunc:vfs_read"): both point into strings already written.
		 */
		type = i && p->type && m->probes[i - 1].type &&
				       !strcmp(p->type, m->probes[i - 1].type)
			       ? last_type
			       : meta_str(&strs, p->type);
		last_type = type;
		/* An alias's program is "a.INDEX" and its name type:target: the reader makes them.
		 */
		prog = (p->flags & AOT_PROBE_ALIAS) && meta_alias_prog(p, i)
			       ? AOT_META_NOSTR
			       : meta_str(&strs, p->prog);
		if ((p->flags & AOT_PROBE_ALIAS) && meta_alias_name(p))
			name = AOT_META_NOSTR;
		else
			name = meta_str(&strs, p->name);
		if (p->target && name != AOT_META_NOSTR && !strs.failed && tlen <= nlen &&
		    !strcmp(p->name + nlen - tlen, p->target))
			target = name + (uint32_t)(nlen - tlen);
		else
			target = meta_str(&strs, p->target);
		rec = b.data + offs[0] + i * META_PROBE_SIZE;
		pos = 0;
		meta_rec32(rec, &pos, prog);
		meta_rec32(rec, &pos, type);
		meta_rec32(rec, &pos, target);
		meta_rec32(rec, &pos, name);
		meta_rec32(rec, &pos, p->flags);
	}

	offs[1] = b.len;
	if (!meta_buf_reserve(&b, (size_t)m->nmaps * META_MAP_SIZE))
		goto out;
	for (i = 0; i < m->nmaps; i++) {
		const struct aot_map *map = &m->maps[i];

		rec = b.data + offs[1] + i * META_MAP_SIZE;
		pos = 0;
		meta_rec32(rec, &pos, meta_str(&strs, map->name));
		meta_rec32(rec, &pos, meta_str(&strs, map->elf_name));
		meta_rec32(rec, &pos, map->agg);
		meta_rec32(rec, &pos, map->nkeys);
		meta_rec_type(rec, &pos, &map->key);
		meta_rec_type(rec, &pos, &map->value);
		meta_rec64(rec, &pos, (uint64_t)map->lhist_min);
		meta_rec64(rec, &pos, (uint64_t)map->lhist_max);
		meta_rec64(rec, &pos, (uint64_t)map->lhist_step);
	}

	offs[2] = b.len;
	if (!meta_buf_reserve(&b, (size_t)m->nfmts * META_FMT_SIZE))
		goto out;
	for (i = 0; i < m->nfmts; i++) {
		const struct aot_fmt *f = &m->fmts[i];

		rec = b.data + offs[2] + i * META_FMT_SIZE;
		pos = 0;
		meta_rec32(rec, &pos, f->kind);
		meta_rec32(rec, &pos, meta_str(&strs, f->fmt));
		meta_rec_type(rec, &pos, &f->args);
	}

	offs[3] = b.len;
	if (!meta_buf_reserve(&b, (size_t)m->nelems * META_ELEM_SIZE))
		goto out;
	for (i = 0; i < m->nelems; i++) {
		rec = b.data + offs[3] + i * META_ELEM_SIZE;
		pos = 0;
		meta_rec32(rec, &pos, m->elems[i].offset);
		meta_rec_type(rec, &pos, &m->elems[i].type);
		meta_rec32(rec, &pos, meta_str(&strs, m->elems[i].name));
	}

	settings_off = b.len;
	nset = m->nenums ? AOT_SET_ENUMS + 1 : AOT_SET_N;
	rec = meta_buf_reserve(&b, 4 * (1 + nset));
	if (!rec)
		goto out;
	pos = 0;
	meta_rec32(rec, &pos, nset);
	for (i = 0; i < AOT_SET_N; i++)
		meta_rec32(rec, &pos,
			   i == AOT_SET_TRAILER ? (m->trailer ? meta_str(&strs, m->trailer) + 1 : 0)
						: m->settings[i]);
	if (m->nenums) {
		/* the enum table follows: its offset is the value past the settings */
		meta_put32(rec + pos, (uint32_t)b.len);
		rec = meta_buf_reserve(&b, 8 + (size_t)m->nenums * 8 + (size_t)m->nenumvals * 12);
		if (!rec)
			goto out;
		pos = 0;
		meta_rec32(rec, &pos, m->nenums);
		meta_rec32(rec, &pos, m->nenumvals);
		for (i = 0; i < m->nenums; i++) {
			meta_rec32(rec, &pos, m->enums[i].first);
			meta_rec32(rec, &pos, m->enums[i].n);
		}
		for (i = 0; i < m->nenumvals; i++) {
			meta_rec64(rec, &pos, (uint64_t)m->enumvals[i].val);
			meta_rec32(rec, &pos, meta_str(&strs, m->enumvals[i].name));
		}
	}

	offs[4] = b.len;
	if (strs.failed)
		goto out;
	rec = meta_buf_reserve(&b, strs.len);
	if (strs.len && !rec)
		goto out;
	if (strs.len)
		memcpy(rec, strs.data, strs.len);
	if (b.failed || b.len > UINT32_MAX) {
		err = b.failed ? -ENOMEM : -E2BIG;
		goto out;
	}

	memcpy(b.data, AOT_META_MAGIC, 8);
	meta_put32(b.data + 8, m->version);
	meta_put32(b.data + 12, b.len);
	meta_put32(b.data + 16, m->nparams);
	meta_put32(b.data + 20, settings_off);
	meta_put32(b.data + 24, offs[0]);
	meta_put32(b.data + 28, m->nprobes);
	meta_put32(b.data + 32, offs[1]);
	meta_put32(b.data + 36, m->nmaps);
	meta_put32(b.data + 40, offs[2]);
	meta_put32(b.data + 44, m->nfmts);
	meta_put32(b.data + 48, offs[3]);
	meta_put32(b.data + 52, m->nelems);
	meta_put32(b.data + 56, offs[4]);
	meta_put32(b.data + 60, strs.len);

	*out = b.data;
	*size = b.len;
	b.data = NULL;
	err = 0;
out:
	free(b.data);
	free(strs.data);
	return err;
}

/* Reader */

struct meta_reader {
	const uint8_t *buf;
	size_t size;
	const uint8_t *strtab;
	uint32_t strtab_size;
	struct aot_meta *m;
	uint8_t *elem_state; /* per element: 0 unseen, 1 being checked, 2 checked */
	uint32_t enums_off;  /* the settings record's AOT_SET_ENUMS, 0 if none */
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3))) static int meta_fail(struct meta_reader *r, const char *fmt,
							   ...)
{
	va_list ap;

	if (r->err && r->errlen) {
		int n = snprintf(r->err, r->errlen, "bad %s section: ", AOT_META_SECTION);

		va_start(ap, fmt);
		if (n >= 0 && (size_t)n < r->errlen)
			vsnprintf(r->err + n, r->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static uint32_t meta_get32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t meta_get64(const uint8_t *p)
{
	return meta_get32(p) | (uint64_t)meta_get32(p + 4) << 32;
}

static int meta_read_str(struct meta_reader *r, uint32_t off, bool nullable, char **out,
			 const char *what, uint32_t idx)
{
	const uint8_t *nul;
	size_t max;

	*out = NULL;
	if (off == AOT_META_NOSTR) {
		if (nullable)
			return 0;
		return meta_fail(r, "%s %u: missing string", what, idx);
	}
	if (off >= r->strtab_size)
		return meta_fail(r, "%s %u: string offset %u outside the string table (%u bytes)",
				 what, idx, off, r->strtab_size);
	max = r->strtab_size - off;
	if (max > META_STR_MAX + 1)
		max = META_STR_MAX + 1;
	nul = memchr(r->strtab + off, 0, max);
	if (!nul)
		return meta_fail(r, "%s %u: string at offset %u is unterminated or too long", what,
				 idx, off);
	*out = strdup((const char *)r->strtab + off);
	if (!*out)
		return -ENOMEM;
	return 0;
}

static void meta_read_type(const uint8_t *p, struct aot_type *t)
{
	t->kind = meta_get32(p);
	t->size = meta_get32(p + 4);
	t->is_signed = meta_get32(p + 8);
	t->nelems = meta_get32(p + 12);
	t->elems = meta_get32(p + 16);
}

static int meta_check_type(struct meta_reader *r, const struct aot_type *t, uint32_t depth,
			   const char *what, uint32_t idx);

/* Checks the elements of tuple t; each element is checked once whatever shares it. */
static int meta_check_tuple(struct meta_reader *r, const struct aot_type *t, uint32_t depth,
			    const char *what, uint32_t idx)
{
	const struct aot_meta *m = r->m;
	uint32_t i;
	int err;

	if (t->nelems > AOT_META_MAX_TUPLE)
		return meta_fail(r, "%s %u: tuple of %u elements (at most %u)", what, idx,
				 t->nelems, AOT_META_MAX_TUPLE);
	if (t->elems > m->nelems || t->nelems > m->nelems - t->elems)
		return meta_fail(r, "%s %u: tuple elements %u..%u outside the %u elements", what,
				 idx, t->elems, t->elems + t->nelems, m->nelems);
	for (i = t->elems; i < t->elems + t->nelems; i++) {
		const struct aot_elem *e = &m->elems[i];

		if (e->offset > t->size || e->type.size > t->size - e->offset)
			return meta_fail(r,
					 "element %u: bytes %u..%u outside its tuple of %u bytes",
					 i, e->offset, e->offset + e->type.size, t->size);
		if (r->elem_state[i] == 2)
			continue;
		if (r->elem_state[i] == 1)
			return meta_fail(r, "element %u: tuple contains itself", i);
		r->elem_state[i] = 1;
		err = meta_check_type(r, &e->type, depth + 1, "element", i);
		if (err)
			return err;
		r->elem_state[i] = 2;
	}
	return 0;
}

const char *aot_render_kind_name(uint32_t kind)
{
	static const char *const names[] = {
		[AOT_K_KSTACK] = "kstack",	[AOT_K_USTACK] = "ustack",
		[AOT_K_KSYM] = "ksym",		[AOT_K_USYM] = "usym",
		[AOT_K_INET] = "inet",		[AOT_K_MACADDR] = "macaddr",
		[AOT_K_USERNAME] = "username",	[AOT_K_TIMESTAMP] = "timestamp",
		[AOT_K_BUF] = "buffer",		[AOT_K_CGROUP_PATH] = "cgroup_path",
		[AOT_K_PROBE] = "probe",	[AOT_K_STRERROR] = "strerror",
		[AOT_K_SIGNAL] = "signal_name", [AOT_K_SYSCALL] = "syscall_name",
	};

	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : NULL;
}

const char *aot_agg_name(uint32_t agg)
{
	static const char *const names[] = {
		[AOT_AGG_NONE] = "value",      [AOT_AGG_COUNT] = "count", [AOT_AGG_SUM] = "sum",
		[AOT_AGG_MIN] = "min",	       [AOT_AGG_MAX] = "max",	  [AOT_AGG_AVG] = "avg",
		[AOT_AGG_STATS] = "stats",     [AOT_AGG_HIST] = "hist",	  [AOT_AGG_LHIST] = "lhist",
		[AOT_AGG_TSERIES] = "tseries",
	};

	return agg < sizeof(names) / sizeof(names[0]) ? names[agg] : "?";
}

const char *aot_tseries_fn_name(int64_t fn)
{
	static const char *const names[] = {
		[AOT_TSERIES_LAST] = "last", [AOT_TSERIES_AVG] = "avg", [AOT_TSERIES_MAX] = "max",
		[AOT_TSERIES_MIN] = "min",   [AOT_TSERIES_SUM] = "sum",
	};

	return fn >= 0 && fn <= AOT_TSERIES__LAST ? names[fn] : NULL;
}

/* Fixed sizes of the rendered kinds, from the layouts in meta.h. */
static uint32_t meta_rendered_size(uint32_t kind)
{
	switch (kind) {
	case AOT_K_USYM:
		return 16;
	case AOT_K_INET:
		return 24;
	case AOT_K_MACADDR:
		return 6;
	default:
		return 8;
	}
}

/*
 * A bitfield (AOT_INT_BITS): its bits lie inside the INT's 1 to 8 bytes, which its tuple holds
 * (meta_check_tuple). Objects from before version 8 wrote 0 there.
 */
static int meta_check_bitfield(struct meta_reader *r, const struct aot_type *t, const char *what,
			       uint32_t idx)
{
	uint32_t off = AOT_INT_BIT_OFF(t->elems), bits = AOT_INT_BIT_SIZE(t->elems);

	if (r->m->version < AOT_META_VERSION_BITFIELD)
		return meta_fail(r, "%s %u: a bitfield in a version %u object", what, idx,
				 r->m->version);
	if (t->elems >> 16 || !t->size || t->size > 8 || !bits || bits > 64 ||
	    off + bits > 8 * t->size)
		return meta_fail(r, "%s %u: bitfield of bits %u..%u outside its %u bytes", what,
				 idx, off, off + bits, t->size);
	return 0;
}

static int meta_check_type(struct meta_reader *r, const struct aot_type *t, uint32_t depth,
			   const char *what, uint32_t idx)
{
	if (depth > AOT_META_MAX_DEPTH)
		return meta_fail(r, "%s %u: types nested deeper than %u", what, idx,
				 AOT_META_MAX_DEPTH);
	if (t->size > AOT_META_MAX_SIZE)
		return meta_fail(r, "%s %u: type of %u bytes (at most %u)", what, idx, t->size,
				 AOT_META_MAX_SIZE);
	switch (t->kind) {
	case AOT_K_NONE:
		if (t->size)
			return meta_fail(r, "%s %u: empty type with a size", what, idx);
		return 0;
	case AOT_K_INT:
		if (!t->elems && t->size != 1 && t->size != 2 && t->size != 4 && t->size != 8)
			return meta_fail(r, "%s %u: integer of %u bytes", what, idx, t->size);
		if (t->nelems >= AOT_INT_ENUM(0) && t->nelems - AOT_INT_ENUM(0) >= r->m->nenums)
			return meta_fail(r, "%s %u: enum %u, but the object has %u", what, idx,
					 t->nelems - AOT_INT_ENUM(0), r->m->nenums);
		if (t->elems)
			return meta_check_bitfield(r, t, what, idx);
		return 0;
	case AOT_K_BOOL:
		if (t->size != 1)
			return meta_fail(r, "%s %u: bool of %u bytes", what, idx, t->size);
		return 0;
	case AOT_K_STR:
		if (!t->size && r->m->version < AOT_META_VERSION_EMPTY_ARRAY)
			return meta_fail(r, "%s %u: string of 0 bytes", what, idx);
		return 0;
	case AOT_K_TUPLE:
	case AOT_K_RECORD:
		return meta_check_tuple(r, t, depth, what, idx);
	case AOT_K_ARRAY:
		/* one element type, repeated: nelems of them fill the array exactly */
		if ((!t->nelems && r->m->version < AOT_META_VERSION_EMPTY_ARRAY) ||
		    t->elems >= r->m->nelems ||
		    (uint64_t)r->m->elems[t->elems].type.size * t->nelems != t->size ||
		    r->m->elems[t->elems].offset)
			return meta_fail(r,
					 "%s %u: array of %u items that do not fill its %u bytes",
					 what, idx, t->nelems, t->size);
		{
			struct aot_type one = { .kind = AOT_K_TUPLE,
						.size = r->m->elems[t->elems].type.size,
						.nelems = 1,
						.elems = t->elems };

			return meta_check_tuple(r, &one, depth, what, idx);
		}
	case AOT_K_KSTACK:
	case AOT_K_USTACK:
		if (t->size != (t->kind == AOT_K_KSTACK ? 8u : 16u))
			return meta_fail(r, "%s %u: stack of %u bytes", what, idx, t->size);
		if (t->nelems > AOT_STACK_MAX_DEPTH || t->elems >= AOT_STACK_MODE_COUNT ||
		    (t->elems == AOT_STACK_MODE_BUILD_ID &&
		     (t->kind != AOT_K_USTACK || r->m->version < AOT_META_VERSION_BUILDID)))
			return meta_fail(r, "%s %u: stack of %u frames in mode %u", what, idx,
					 t->nelems, t->elems);
		return 0;
	case AOT_K_TIMESTAMP:
		if (t->size != 8)
			return meta_fail(r, "%s %u: timestamp of %u bytes", what, idx, t->size);
		if (t->elems >= r->m->nfmts || r->m->fmts[t->elems].kind != AOT_FMT_TIME)
			return meta_fail(r, "%s %u: timestamp format %u is not a time format", what,
					 idx, t->elems);
		return 0;
	case AOT_K_KSYM:
	case AOT_K_USERNAME:
	case AOT_K_CGROUP_PATH:
	case AOT_K_PROBE:
	case AOT_K_STRERROR:
	case AOT_K_SIGNAL:
	case AOT_K_SYSCALL:
	case AOT_K_USYM:
	case AOT_K_INET:
	case AOT_K_MACADDR:
		if (t->size != meta_rendered_size(t->kind))
			return meta_fail(r, "%s %u: rendered value of kind %u and %u bytes", what,
					 idx, t->kind, t->size);
		return 0;
	case AOT_K_BUF:
		if (t->size < 4)
			return meta_fail(r, "%s %u: buffer of %u bytes", what, idx, t->size);
		return 0;
	default:
		return meta_fail(r, "%s %u: unknown type kind %u", what, idx, t->kind);
	}
}

/* Checks a table of n records of sz bytes at off lies inside the section. */
static int meta_check_table(struct meta_reader *r, uint32_t off, uint32_t n, size_t sz,
			    const char *what)
{
	if ((uint64_t)off + (uint64_t)n * sz > r->size)
		return meta_fail(r, "%u %s records at offset %u overrun the section (%zu bytes)", n,
				 what, off, r->size);
	if (n && off < META_HDR_SIZE)
		return meta_fail(r, "%s records at offset %u overlap the header", what, off);
	return 0;
}

/* The settings record at off (0: none): those of its values this reader knows. */
static int meta_read_settings(struct meta_reader *r, uint32_t off)
{
	uint32_t n;

	if (!off)
		return 0;
	if (meta_check_table(r, off, 1, 4, "settings"))
		return -EINVAL;
	n = meta_get32(r->buf + off);
	if (meta_check_table(r, off + 4, n, 4, "setting"))
		return -EINVAL;
	for (uint32_t i = 0; i < n && i < AOT_SET_N; i++)
		r->m->settings[i] = meta_get32(r->buf + off + 4 + 4 * i);
	if (n > AOT_SET_ENUMS)
		r->enums_off = meta_get32(r->buf + off + 4 + 4 * AOT_SET_ENUMS);
	return 0;
}

/*
 * The enum table at off (0: none): nenums, nenumvals, then per enum its first enumerator and
 * count (8 bytes), then per enumerator its s64 value and name (12 bytes).
 */
static int meta_read_enums(struct meta_reader *r, uint32_t off)
{
	struct aot_meta *m = r->m;
	uint32_t ne, nv, i;
	const uint8_t *p;
	int err;

	if (!off)
		return 0;
	if (m->version < AOT_META_VERSION_ENUM)
		return meta_fail(r, "enums in a version %u object", m->version);
	if (meta_check_table(r, off, 2, 4, "enum table"))
		return -EINVAL;
	ne = meta_get32(r->buf + off);
	nv = meta_get32(r->buf + off + 4);
	if (meta_check_table(r, off + 8, ne, 8, "enum") ||
	    meta_check_table(r, off + 8 + 8 * ne, nv, 12, "enumerator"))
		return -EINVAL;
	m->enums = calloc(ne ? ne : 1, sizeof(*m->enums));
	m->enumvals = calloc(nv ? nv : 1, sizeof(*m->enumvals));
	if (!m->enums || !m->enumvals)
		return -ENOMEM;
	m->nenums = ne;
	for (i = 0; i < ne; i++) {
		p = r->buf + off + 8 + 8 * (size_t)i;
		m->enums[i].first = meta_get32(p);
		m->enums[i].n = meta_get32(p + 4);
		if (m->enums[i].first > nv || m->enums[i].n > nv - m->enums[i].first)
			return meta_fail(r, "enum %u: enumerators %u..%u outside the %u there are",
					 i, m->enums[i].first, m->enums[i].first + m->enums[i].n,
					 nv);
	}
	for (i = 0; i < nv; i++) {
		p = r->buf + off + 8 + 8 * (size_t)ne + 12 * (size_t)i;
		m->nenumvals = i + 1; /* so that aot_meta_free frees what was read */
		m->enumvals[i].val = (int64_t)meta_get64(p);
		err = meta_read_str(r, meta_get32(p + 8), false, &m->enumvals[i].name, "enumerator",
				    i);
		if (err)
			return err;
	}
	return 0;
}

static int meta_read_probes(struct meta_reader *r, uint32_t off, uint32_t n)
{
	struct aot_meta *m = r->m;
	uint32_t i;
	int err;

	m->probes = calloc(n ? n : 1, sizeof(*m->probes));
	if (!m->probes)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const uint8_t *p = r->buf + off + (size_t)i * META_PROBE_SIZE;
		struct aot_probe *pr = &m->probes[i];

		m->nprobes = i + 1; /* so that aot_meta_free frees what was read */
		err = meta_read_str(r, meta_get32(p), !!(meta_get32(p + 16) & AOT_PROBE_ALIAS),
				    &pr->prog, "probe", i);
		if (!err)
			err = meta_read_str(r, meta_get32(p + 4), false, &pr->type, "probe", i);
		if (!err)
			err = meta_read_str(r, meta_get32(p + 8), true, &pr->target, "probe", i);
		if (!err)
			err = meta_read_str(r, meta_get32(p + 12), true, &pr->name, "probe", i);
		if (err)
			return err;
		pr->flags = meta_get32(p + 16);
		if (pr->flags &
		    ~(uint32_t)(AOT_PROBE_BEGIN | AOT_PROBE_END | AOT_PROBE_MULTI |
				AOT_PROBE_ALIAS | AOT_PROBE_UNSAFE | AOT_PROBE_SESSION |
				AOT_PROBE_IN_SESSION | AOT_PROBE_NO_ARGS | AOT_PROBE_SIGNAL |
				AOT_PROBE_TEST | AOT_PROBE_BENCH | AOT_PROBE_ITER | AOT_PROBE_STMT))
			return meta_fail(r, "probe %u: unknown flags 0x%x", i, pr->flags);
		if ((pr->flags & AOT_PROBE_ALIAS) && !pr->prog &&
		    asprintf(&pr->prog, "a.%u", i) < 0) {
			pr->prog = NULL;
			return -ENOMEM;
		}
		if ((pr->flags & AOT_PROBE_ALIAS) && !pr->name && pr->target) {
			if (asprintf(&pr->name, "%s:%s", pr->type, pr->target) < 0) {
				pr->name = NULL;
				return -ENOMEM;
			}
		}
	}
	return 0;
}

static int meta_read_maps(struct meta_reader *r, uint32_t off, uint32_t n)
{
	struct aot_meta *m = r->m;
	uint32_t i;
	int err;

	m->maps = calloc(n ? n : 1, sizeof(*m->maps));
	if (!m->maps)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const uint8_t *p = r->buf + off + (size_t)i * META_MAP_SIZE;
		struct aot_map *map = &m->maps[i];

		m->nmaps = i + 1;
		err = meta_read_str(r, meta_get32(p), false, &map->name, "map", i);
		if (!err)
			err = meta_read_str(r, meta_get32(p + 4), false, &map->elf_name, "map", i);
		if (err)
			return err;
		map->agg = meta_get32(p + 8);
		map->nkeys = meta_get32(p + 12);
		meta_read_type(p + 16, &map->key);
		meta_read_type(p + 16 + META_TYPE_SIZE, &map->value);
		map->lhist_min = (int64_t)meta_get64(p + 16 + 2 * META_TYPE_SIZE);
		map->lhist_max = (int64_t)meta_get64(p + 24 + 2 * META_TYPE_SIZE);
		map->lhist_step = (int64_t)meta_get64(p + 32 + 2 * META_TYPE_SIZE);
	}
	return 0;
}

static int meta_read_fmts(struct meta_reader *r, uint32_t off, uint32_t n)
{
	struct aot_meta *m = r->m;
	uint32_t i;
	int err;

	m->fmts = calloc(n ? n : 1, sizeof(*m->fmts));
	if (!m->fmts)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const uint8_t *p = r->buf + off + (size_t)i * META_FMT_SIZE;
		struct aot_fmt *f = &m->fmts[i];

		m->nfmts = i + 1;
		f->kind = meta_get32(p);
		err = meta_read_str(r, meta_get32(p + 4), false, &f->fmt, "format", i);
		if (err)
			return err;
		meta_read_type(p + 8, &f->args);
		if (f->kind < AOT_FMT_PRINTF || f->kind > AOT_FMT__LAST)
			return meta_fail(r, "format %u: unknown kind %u", i, f->kind);
	}
	return 0;
}

/* Types are checked once every table is read, since tuples point into the elements. */
static int meta_check_types(struct meta_reader *r)
{
	struct aot_meta *m = r->m;
	uint32_t i;
	int err;

	for (i = 0; i < m->nelems; i++) {
		if (r->elem_state[i])
			continue;
		r->elem_state[i] = 1;
		err = meta_check_type(r, &m->elems[i].type, 1, "element", i);
		if (err)
			return err;
		r->elem_state[i] = 2;
	}
	for (i = 0; i < m->nmaps; i++) {
		const struct aot_map *map = &m->maps[i];

		if (map->agg > AOT_AGG_TSERIES)
			return meta_fail(r, "map %u: unknown aggregation %u", i, map->agg);
		if (map->agg == AOT_AGG_TSERIES &&
		    (map->tseries_interval <= 0 || map->tseries_count <= 0 ||
		     map->tseries_count > AOT_TSERIES_MAX_INTERVALS || map->tseries_fn < 0 ||
		     map->tseries_fn > AOT_TSERIES__LAST))
			return meta_fail(r, "map %u: tseries(..., %lld, %lld) fn %lld out of range",
					 i, (long long)map->tseries_interval,
					 (long long)map->tseries_count, (long long)map->tseries_fn);
		if (map->agg == AOT_AGG_HIST && (map->hist_k < 0 || map->hist_k > AOT_HIST_MAX_K))
			return meta_fail(r, "map %u: hist(..., %lld) out of range", i,
					 (long long)map->hist_k);
		if (map->agg == AOT_AGG_LHIST &&
		    (map->lhist_step <= 0 || map->lhist_min < 0 ||
		     map->lhist_max <= map->lhist_min ||
		     (uint64_t)(map->lhist_max - map->lhist_min) / (uint64_t)map->lhist_step >
			     META_LHIST_MAX_BUCKETS))
			return meta_fail(r, "map %u: lhist(%lld, %lld, %lld) out of range", i,
					 (long long)map->lhist_min, (long long)map->lhist_max,
					 (long long)map->lhist_step);
		err = meta_check_type(r, &map->key, 0, "map key", i);
		if (!err)
			err = meta_check_type(r, &map->value, 0, "map value", i);
		if (err)
			return err;
		if (map->nkeys > 1 &&
		    (map->key.kind != AOT_K_TUPLE || map->key.nelems != map->nkeys))
			return meta_fail(r, "map %u: %u keys but the key is not a tuple of %u", i,
					 map->nkeys, map->nkeys);
		if (map->nkeys == 1 && map->key.kind == AOT_K_NONE)
			return meta_fail(r, "map %u: keyed map without a key type", i);
		if (map->agg == AOT_AGG_NONE && map->value.kind == AOT_K_NONE)
			return meta_fail(r, "map %u: no value type", i);
	}
	for (i = 0; i < m->nfmts; i++) {
		err = meta_check_type(r, &m->fmts[i].args, 0, "format", i);
		if (err)
			return err;
		if (m->fmts[i].args.kind != AOT_K_TUPLE)
			return meta_fail(r, "format %u: arguments are not a tuple", i);
	}
	return 0;
}

int aot_meta_read(const void *buf, size_t size, struct aot_meta **out, char *errbuf, size_t errlen)
{
	struct meta_reader r = { .buf = buf, .size = size, .err = errbuf, .errlen = errlen };
	const uint8_t *h = buf;
	uint32_t total, off[5], cnt[5], i;
	int err;

	*out = NULL;
	if (errbuf && errlen)
		errbuf[0] = '\0';
	if (!buf || size < META_HDR_SIZE)
		return meta_fail(&r, "%zu bytes, shorter than its %u-byte header", size,
				 META_HDR_SIZE);
	if (memcmp(h, AOT_META_MAGIC, 8))
		return meta_fail(&r, "wrong magic");
	if (meta_get32(h + 8) < AOT_META_VERSION_MIN || meta_get32(h + 8) > AOT_META_VERSION)
		return meta_fail(&r, "version %u, this runtime reads versions %u to %u",
				 meta_get32(h + 8), AOT_META_VERSION_MIN, AOT_META_VERSION);
	total = meta_get32(h + 12);
	if (total < META_HDR_SIZE || total > size)
		return meta_fail(&r, "total size %u, but the section has %zu bytes", total, size);
	r.size = total;
	for (i = 0; i < 5; i++) {
		off[i] = meta_get32(h + 24 + 8 * i);
		cnt[i] = meta_get32(h + 28 + 8 * i);
	}
	if (meta_check_table(&r, off[0], cnt[0], META_PROBE_SIZE, "probe") ||
	    meta_check_table(&r, off[1], cnt[1], META_MAP_SIZE, "map") ||
	    meta_check_table(&r, off[2], cnt[2], META_FMT_SIZE, "format") ||
	    meta_check_table(&r, off[3], cnt[3], META_ELEM_SIZE, "element") ||
	    meta_check_table(&r, off[4], cnt[4], 1, "string table"))
		return -EINVAL;
	r.strtab = r.buf + off[4];
	r.strtab_size = cnt[4];

	r.m = aot_meta_new();
	if (!r.m)
		return -ENOMEM;
	r.m->version = meta_get32(h + 8);
	r.m->nparams = meta_get32(h + 16);
	err = meta_read_settings(&r, meta_get32(h + 20));
	if (!err && r.m->settings[AOT_SET_TRAILER])
		err = meta_read_str(&r, r.m->settings[AOT_SET_TRAILER] - 1, false, &r.m->trailer,
				    "setting", AOT_SET_TRAILER);
	if (!err)
		err = meta_read_enums(&r, r.enums_off);
	if (err)
		goto out;
	err = meta_read_probes(&r, off[0], cnt[0]);
	if (!err)
		err = meta_read_maps(&r, off[1], cnt[1]);
	if (!err)
		err = meta_read_fmts(&r, off[2], cnt[2]);
	if (err)
		goto out;

	err = -ENOMEM;
	r.m->elems = calloc(cnt[3] ? cnt[3] : 1, sizeof(*r.m->elems));
	r.elem_state = calloc(cnt[3] ? cnt[3] : 1, 1);
	if (!r.m->elems || !r.elem_state)
		goto out;
	r.m->nelems = cnt[3];
	for (i = 0; i < cnt[3]; i++) {
		const uint8_t *p = r.buf + off[3] + (size_t)i * META_ELEM_SIZE;

		r.m->elems[i].offset = meta_get32(p);
		meta_read_type(p + 4, &r.m->elems[i].type);
		err = meta_read_str(&r, meta_get32(p + 4 + META_TYPE_SIZE), true,
				    &r.m->elems[i].name, "element", i);
		if (err)
			goto out;
	}
	err = meta_check_types(&r);
out:
	free(r.elem_state);
	if (err == -ENOMEM && errbuf && errlen && !errbuf[0])
		snprintf(errbuf, errlen, "out of memory reading %s", AOT_META_SECTION);
	if (err) {
		aot_meta_free(r.m);
		return err;
	}
	*out = r.m;
	return 0;
}

uint32_t aot_hist_nbuckets(uint32_t k)
{
	return ((64 - k) << k) + 1;
}

uint64_t aot_hist_upper(uint32_t k, uint32_t i)
{
	uint32_t n = 1u << k;

	if (i <= 2 * n)
		return i;
	return (1ull << ((i >> k) - 1)) * (n + (i & (n - 1)));
}

void aot_hist_label(char *buf, size_t size, uint32_t k, uint32_t i)
{
	uint32_t n = 1u << k, power, decade;

	if (i <= 2 * n) {
		snprintf(buf, size, "%u", i);
		return;
	}
	power = (i >> k) - 1;
	decade = power / 10;
	snprintf(buf, size, "%llu%.*s", (1ull << (power - 10 * decade)) * (n + (i & (n - 1))),
		 decade ? 1 : 0, &"\0KMGTPE"[decade]);
}
