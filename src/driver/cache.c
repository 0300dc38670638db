// SPDX-License-Identifier: GPL-2.0
/*
 * The compiled-object cache (cache.h). An entry is named by a hash of everything the object
 * is made from and holds that text itself, so a collision or a foreign file is seen as such.
 * It is written whole to a temporary file and renamed into place, so racing runs each see an
 * old entry or a whole new one; what it holds is read as untrusted, like any object.
 *
 *   entry  struct entry_hdr, then the key, the dependencies, the diagnostics and the ELF
 *   key    "aotrace VERSION", this binary's identity, the kernel's (build id, uname, the
 *          modules with BTF, AOTRACE_BTF's file), the working directory, the source's name and
 *          text, its parameters and every option that reaches the compiler
 *   deps   one line a file the object depends on: "DEV INO SIZE MTIME_S MTIME_NS PATH"
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cache.h"
#include "runtime.h"

#ifndef AOTRACE_VERSION
#define AOTRACE_VERSION "0.1.0"
#endif

#define ENTRY_MAGIC "AOTCACH1"
#define ENTRY_SUFFIX ".aotc"

struct entry_hdr {
	char magic[8];
	uint64_t keylen, depslen, diaglen, elflen;
};

struct aot_cache {
	char *dir;  /* $XDG_CACHE_HOME/aotrace */
	char *path; /* dir/HASH.aotc */
	char *key;
	size_t keylen;
	bool verbose;
};

static void cache_say(const struct aot_cache *c, const char *what, const char *why)
{
	if (c->verbose)
		fprintf(stderr, "aotrace: cache %s: %s%s%s\n", what, c->path, why ? ": " : "",
			why ? why : "");
}

static void cache_warn(const struct aot_cache *c, const char *why)
{
	fprintf(stderr, "aotrace: warning: cache entry %s %s: compiling the program again\n",
		c->path, why);
}

/* A file's identity: it changed if any of these did. */
static void key_stat(FILE *k, const char *what, const char *path)
{
	struct stat st;

	if (stat(path, &st))
		fprintf(k, "%s %s: none\n", what, path);
	else
		fprintf(k, "%s %s: %llu %llu %lld %lld %ld\n", what, path,
			(unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
			(long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

static void key_blob(FILE *k, const char *what, const void *buf, size_t len)
{
	fprintf(k, "%s %zu:", what, len);
	fwrite(buf, 1, len, k);
	fputc('\n', k);
}

static void key_str(FILE *k, const char *what, const char *s)
{
	key_blob(k, what, s ? s : "", s ? strlen(s) : 0);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The running kernel: its build id (in /sys/kernel/notes), its name, and the modules that have
 * BTF, which add probes and types. A kernel built again has another build id.
 */
static void key_kernel(FILE *k)
{
	char buf[4096], **names = NULL;
	size_t n = 0, cap = 0;
	struct utsname u;
	struct dirent *e;
	FILE *f = fopen("/sys/kernel/notes", "re");
	DIR *d;

	if (f) {
		key_blob(k, "notes", buf, fread(buf, 1, sizeof(buf), f));
		fclose(f);
	}
	if (!uname(&u))
		fprintf(k, "uname %s %s %s %s\n", u.sysname, u.release, u.version, u.machine);
	d = opendir("/sys/kernel/btf");
	while (d && (e = readdir(d))) {
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof(*names));

			if (!nn)
				break;
			names = nn;
		}
		names[n] = strdup(e->d_name);
		if (names[n])
			n++;
	}
	if (d)
		closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		key_str(k, "btf", names[i]);
		free(names[i]);
	}
	free(names);
}

static void key_list(FILE *k, const char *what, const char *const *list)
{
	for (; list && *list; list++)
		key_str(k, what, *list);
}

static int cache_key(struct aot_cache *c, const char *name, const char *text, size_t len,
		     const struct aot_compile_opts *o)
{
	char cwd[4096];
	FILE *k = open_memstream(&c->key, &c->keylen);

	if (!k)
		return -ENOMEM;
	fprintf(k, "aotrace %s\n", AOTRACE_VERSION);
	key_stat(k, "exe", "/proc/self/exe");
	key_kernel(k);
	if (o->btf_path)
		key_stat(k, "AOTRACE_BTF", o->btf_path);
	key_str(k, "cwd", getcwd(cwd, sizeof(cwd)) ? cwd : "?");
	key_str(k, "name", name);
	key_blob(k, "text", text, len);
	for (int i = 0; i < o->nparams; i++)
		key_str(k, "param", o->params[i]);
	for (int i = 0; i < o->nnamed; i++)
		key_str(k, "named", o->named[i]);
	key_list(k, "-I", o->include_dirs);
	key_list(k, "--include", o->includes);
	fprintf(k,
		"strlen %u keys %u probes %u expand %d missing %d%s k %u multi %d unsafe %d nowarn "
		"%d stack %u onstack %u session %d tseries %u lastkey %d license %s\n",
		o->strlen_max, o->map_keys_max, o->max_probes, (int)o->expand, (int)o->missing,
		o->missing_set ? " set" : "", o->helper_check, !o->no_multi, o->unsafe,
		o->no_warnings, o->stack_mode, o->on_stack_limit, !o->no_session,
		o->unstable_tseries, (int)o->lastkey, o->license ? o->license : "GPL");
	return fclose(k) ? -ENOMEM : 0;
}

/* FNV-1a twice over, from two bases: a name, not a check (the entry holds the key itself). */
static void cache_hash(const char *buf, size_t len, char out[33])
{
	uint64_t h[2] = { 0xcbf29ce484222325ull, 0x84222325cbf29ce4ull };

	for (size_t i = 0; i < len; i++)
		for (int j = 0; j < 2; j++)
			h[j] = (h[j] ^ (uint8_t)buf[i]) * 0x100000001b3ull;
	snprintf(out, 33, "%016llx%016llx", (unsigned long long)h[0], (unsigned long long)h[1]);
}

/* $XDG_CACHE_HOME/aotrace, or ~/.cache/aotrace (as the XDG base directory spec says), made. */
static char *cache_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *base = NULL, *dir = NULL;

	/* the spec: a relative XDG_CACHE_HOME is to be ignored */
	if (xdg && xdg[0] == '/')
		base = strdup(xdg);
	else if (home && home[0] == '/' && asprintf(&base, "%s/.cache", home) < 0)
		base = NULL;
	if (!base)
		return NULL;
	mkdir(base, 0700);
	if (asprintf(&dir, "%s/aotrace", base) < 0)
		dir = NULL;
	free(base);
	if (dir && mkdir(dir, 0700) && errno != EEXIST) {
		free(dir);
		return NULL;
	}
	return dir;
}

struct aot_cache *aot_cache__new(const char *name, const char *text, size_t len,
				 const struct aot_compile_opts *opts, bool verbose)
{
	struct aot_cache *c = calloc(1, sizeof(*c));
	char hash[33];

	if (!c)
		return NULL;
	c->verbose = verbose;
	c->dir = cache_dir();
	if (!c->dir) {
		if (verbose)
			fprintf(stderr,
				"aotrace: cache off: no cache directory (XDG_CACHE_HOME, HOME)\n");
		goto err;
	}
	if (cache_key(c, name, text, len, opts))
		goto err;
	cache_hash(c->key, c->keylen, hash);
	if (asprintf(&c->path, "%s/%s" ENTRY_SUFFIX, c->dir, hash) < 0) {
		c->path = NULL;
		goto err;
	}
	return c;
err:
	aot_cache__free(c);
	return NULL;
}

void aot_cache__free(struct aot_cache *c)
{
	if (!c)
		return;
	free(c->dir);
	free(c->path);
	free(c->key);
	free(c);
}

/* Is every file of deps as it was? NULL if so, else the path of one that changed. */
static const char *deps_changed(char *deps, size_t len, char *why, size_t whylen)
{
	char *line = deps, *end = deps + len;

	while (line < end) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		unsigned long long dev, ino;
		long long size, sec;
		long nsec;
		int off = 0;
		struct stat st;

		if (!nl)
			return "malformed";
		*nl = 0;
		if (sscanf(line, "%llu %llu %lld %lld %ld %n", &dev, &ino, &size, &sec, &nsec,
			   &off) != 5 ||
		    !off)
			return "malformed";
		if (stat(line + off, &st) || st.st_dev != dev || st.st_ino != ino ||
		    st.st_size != size || st.st_mtim.tv_sec != sec || st.st_mtim.tv_nsec != nsec) {
			snprintf(why, whylen, "%s changed", line + off);
			return why;
		}
		line = nl + 1;
	}
	return NULL;
}

static int read_all(int fd, void *buf, size_t len)
{
	for (size_t got = 0; got < len;) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n <= 0)
			return n ? -errno : -EIO;
		got += (size_t)n;
	}
	return 0;
}

int aot_cache__load(struct aot_cache *c, void **elf, size_t *size, char **diags)
{
	char why[512], msg[256], *buf = NULL, *p;
	const char *changed;
	struct entry_hdr h;
	struct stat st;
	int fd = open(c->path, O_RDONLY | O_CLOEXEC), ret = -ENOENT;

	if (fd < 0) {
		cache_say(c, "miss", NULL);
		return -ENOENT;
	}
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(h) || st.st_size > 4 * AOT_CACHE_MAX_BYTES)
		goto corrupt_size;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf || read_all(fd, buf, (size_t)st.st_size))
		goto out;
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, ENTRY_MAGIC, sizeof(h.magic))) {
		cache_warn(c, "is not an aotrace cache entry");
		goto bad;
	}
	/* each length at most the file's, so that their sum cannot wrap */
	if (h.keylen > (uint64_t)st.st_size || h.depslen > (uint64_t)st.st_size ||
	    h.diaglen > (uint64_t)st.st_size || h.elflen > (uint64_t)st.st_size ||
	    sizeof(h) + h.keylen + h.depslen + h.diaglen + h.elflen != (uint64_t)st.st_size)
		goto corrupt_size;
	p = buf + sizeof(h);
	if (h.keylen != c->keylen || memcmp(p, c->key, c->keylen)) {
		cache_warn(c, "was made from another program");
		goto bad;
	}
	p += h.keylen;
	changed = deps_changed(p, h.depslen, why, sizeof(why));
	if (changed) {
		if (!strcmp(changed, "malformed")) {
			cache_warn(c, "is corrupt (its list of files)");
			goto bad;
		}
		cache_say(c, "miss", changed);
		goto out;
	}
	p += h.depslen;
	if (aot_object_check(p + h.diaglen, h.elflen, msg, sizeof(msg))) {
		snprintf(why, sizeof(why), "is corrupt (%s)", msg);
		cache_warn(c, why);
		goto bad;
	}
	*diags = strndup(p, h.diaglen);
	*elf = malloc(h.elflen);
	if (!*diags || !*elf) {
		free(*diags);
		free(*elf);
		ret = -ENOMEM;
		goto out;
	}
	memcpy(*elf, p + h.diaglen, h.elflen);
	*size = h.elflen;
	/* the trimming keeps what was used last */
	futimens(fd, NULL);
	cache_say(c, "hit", "LLVM not started");
	ret = 0;
	goto out;
corrupt_size:
	cache_warn(c, "is corrupt (its size)");
bad:
	unlink(c->path);
out:
	free(buf);
	close(fd);
	return ret;
}

/* The deps lines of prog, or NULL when one cannot be described (not cached then). */
static char *deps_text(struct aot_program *prog, size_t *len)
{
	size_t n;
	const char *const *deps = aot_program__deps(prog, &n);
	char *text = NULL;
	FILE *f = open_memstream(&text, len);
	bool ok = f != NULL;

	for (size_t i = 0; ok && i < n; i++) {
		struct stat st;

		ok = !strchr(deps[i], '\n') && !stat(deps[i], &st);
		if (ok)
			fprintf(f, "%llu %llu %lld %lld %ld %s\n", (unsigned long long)st.st_dev,
				(unsigned long long)st.st_ino, (long long)st.st_size,
				(long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, deps[i]);
	}
	if (f && fclose(f))
		ok = false;
	if (!ok) {
		free(text);
		return NULL;
	}
	return text;
}

struct old_entry {
	struct timespec mtime;
	off_t size;
	char *name;
};

static int cmp_old(const void *a, const void *b)
{
	const struct old_entry *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : x->mtime.tv_nsec > y->mtime.tv_nsec;
}

/* Entries least recently used go until the directory holds at most AOT_CACHE_MAX_BYTES. */
static void cache_trim(const struct aot_cache *c)
{
	struct old_entry *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	int dfd = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *e;

	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return;
	}
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		struct stat st;

		if (l <= strlen(ENTRY_SUFFIX) ||
		    strcmp(e->d_name + l - strlen(ENTRY_SUFFIX), ENTRY_SUFFIX) ||
		    fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			struct old_entry *nv = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*v));

			if (!nv)
				break;
			v = nv;
		}
		v[n] = (struct old_entry){ st.st_mtim, st.st_size, strdup(e->d_name) };
		if (v[n].name) {
			total += (uint64_t)st.st_size;
			n++;
		}
	}
	qsort(v, n, sizeof(*v), cmp_old);
	for (size_t i = 0; i < n; i++) {
		/* another run may have removed it first: that is as good */
		if (total > AOT_CACHE_MAX_BYTES && !unlinkat(dfd, v[i].name, 0))
			total -= (uint64_t)v[i].size;
		free(v[i].name);
	}
	free(v);
	closedir(d);
}

void aot_cache__store(struct aot_cache *c, struct aot_program *prog, const void *elf, size_t size,
		      const char *diags)
{
	size_t depslen = 0, diaglen = diags ? strlen(diags) : 0;
	char *deps, *tmp = NULL;
	struct entry_hdr h = { .magic = ENTRY_MAGIC };
	FILE *f = NULL;
	int fd = -1;

	if (aot_program__host_bound(prog)) {
		cache_say(c, "not stored", "the program reads this boot's kaddr/uaddr/cgroupid");
		return;
	}
	deps = deps_text(prog, &depslen);
	if (!deps) {
		cache_say(c, "not stored", "a file it depends on cannot be named");
		return;
	}
	if (asprintf(&tmp, "%s/.tmp-XXXXXX", c->dir) < 0) {
		tmp = NULL;
		goto out;
	}
	fd = mkstemp(tmp);
	f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (!f)
		goto fail;
	fd = -1;
	h.keylen = c->keylen;
	h.depslen = depslen;
	h.diaglen = diaglen;
	h.elflen = size;
	if (fwrite(&h, sizeof(h), 1, f) != 1 || fwrite(c->key, 1, c->keylen, f) != c->keylen ||
	    fwrite(deps, 1, depslen, f) != depslen || fwrite(diags, 1, diaglen, f) != diaglen ||
	    fwrite(elf, 1, size, f) != size)
		goto fail;
	if (fclose(f)) {
		f = NULL;
		goto fail;
	}
	f = NULL;
	/* whole or not at all: a racing run reads the old entry or this one */
	if (rename(tmp, c->path))
		goto fail;
	cache_say(c, "stored", NULL);
	cache_trim(c);
	goto out;
fail:
	fprintf(stderr, "aotrace: warning: cannot write the cache entry %s: %s\n", c->path,
		strerror(errno));
	unlink(tmp);
out:
	if (f)
		fclose(f);
	if (fd >= 0)
		close(fd);
	free(tmp);
	free(deps);
}
