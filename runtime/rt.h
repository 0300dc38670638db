/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces of the runtime, one section per file: the run context shared by the loader,
 * attach, event loop and map printing, plus the text helpers (buffer, printf engine, value
 * rendering) that every output format uses. Not a contract: nothing outside runtime/ includes it.
 */
#ifndef AOT_RT_H
#define AOT_RT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "meta.h"
#include "output.h"
#include "probe.h"
#include "runtime.h"

struct bpf_object;
struct bpf_link;
struct ring_buffer;

/* buf.c: a growable text buffer; on allocation failure it stops growing and sets oom. */
struct rt_buf {
	char *s;
	size_t len, cap;
	bool oom;
};

void rt_buf_reset(struct rt_buf *b);
void rt_buf_free(struct rt_buf *b);
void rt_buf_add(struct rt_buf *b, const char *s, size_t n);
void rt_buf_printf(struct rt_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rt_buf_vprintf(struct rt_buf *b, const char *fmt, va_list ap);

/* printf.c: payload formatting by an aot_fmt's argument tuple, and typed values as text. */
/* Appends the formatted text; -EINVAL if the payload is shorter than the arguments. */
int rt_printf_format(struct rt_buf *out, const struct aot_meta *m, const struct aot_fmt *f,
		     const void *payload, size_t len);
/*
 * Appends a value of type t read from data (which holds t->size bytes) the way bpftrace prints
 * it: integers in decimal, strings up to their NUL, tuples as "(a, b)". With bare set, a tuple's
 * parentheses are left out (multi-key map keys print as "[a, b]").
 */
void rt_value_text(struct rt_buf *out, const struct aot_meta *m, const struct aot_type *t,
		   const void *data, bool bare);
/* A value's integer reading, extended to 64 bits by its signedness; 0 for non-integers. */
uint64_t rt_value_int(const struct aot_type *t, const void *data);

/* The state of one aot_run(). */
struct rt {
	const struct aot_run_opts *opts;
	struct aot_meta *meta;
	struct bpf_object *obj;
	char **logbufs; /* per program, verifier logs; indexed like bpf_object__for_each_program */
	size_t nlogbufs;
	struct probe_links links;
	struct output out;
	struct ring_buffer *rb;
	int sigfd;	    /* signalfd for SIGINT/SIGTERM/SIGHUP, -1 if none */
	bool exiting;	    /* exit() seen or signal received */
	uint64_t malformed; /* ring buffer records we could not make sense of */
	struct rt_buf text; /* scratch for formatting events */
};

/* loader.c */
/* Finds a section's bytes in an ELF image, bounds-checked. 0, -ENOENT or -EINVAL. */
int rt_elf_section(const void *elf, size_t size, const char *name, const void **data, size_t *len);
int rt_load(struct rt *rt, const void *elf, size_t size);
void rt_unload(struct rt *rt);

/*
 * verifier.c: reports a rejected program: probe, source line, the log's last lines (all of
 * it with -v) and a hint.
 */
void rt_verifier_report(const struct rt *rt, const char *prog, const char *probe,
			const char *log, int err);

/* attach.c */
/* Before load: lets each probe type adapt its programs to the running kernel. */
int rt_prepare(struct rt *rt);
int rt_attach(struct rt *rt);
/* Runs the programs of probes with this flag (AOT_PROBE_BEGIN or AOT_PROBE_END) once. */
int rt_run_flagged(struct rt *rt, uint32_t flag);
void rt_detach(struct rt *rt);

/* events.c */
int rt_events_open(struct rt *rt);
/* Polls until exit() or a signal. 0 or -errno. */
int rt_events_loop(struct rt *rt);
/* Handles whatever is left in the ring buffer (e.g. END's printfs). */
void rt_events_drain(struct rt *rt);
void rt_events_close(struct rt *rt);
/* The record handler, exposed for tests. */
int rt_events_handle(void *ctx, void *data, size_t size);

/* maps.c */
int rt_maps_print(struct rt *rt);
/*
 * Folds n entries read from a map (keys at key_size apart; values ncpus * stride bytes apart)
 * into output entries sorted for printing; they point into keys and vals. 0 or -ENOMEM.
 */
int rt_maps_fold(const struct aot_meta *m, const struct aot_map *map, const void *keys,
		 size_t key_size, const void *vals, size_t stride, int ncpus, size_t n,
		 struct output_entry **out, size_t *nout, bool *val_signed);

#endif
