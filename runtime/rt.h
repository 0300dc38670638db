/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces of the runtime, one section per file: the run context shared by the loader,
 * attach, event loop and map printing, plus the text helpers (buffer, printf engine, value
 * rendering) that every output format uses. Not a contract: nothing outside runtime/ includes it.
 */
#ifndef AOT_RT_H
#define AOT_RT_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "meta.h"
#include "output.h"
#include "probe.h"
#include "runtime.h"

struct arena;
struct bpf_object;
struct bpf_program;
struct bpf_link;
struct rt_ring;

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

/*
 * report.c: what the runtime tells the user besides the program's output, as libbpf's pr_warn:
 * "PREFIX: message\n" on o->err, one prefix per level; --no-warnings (o->no_warnings) leaves
 * warnings out. o may be NULL (stderr, nothing left out): before a run has an output, and for
 * libbpf's log.
 */
enum rt_level {
	RT_ERROR, /* "ERROR: ": the run cannot go on */
	RT_WARN,  /* "WARNING: ": worth knowing, not fatal */
	RT_HINT,  /* "HINT: ": what to do about the report just made */
	RT_TEXT,  /* as given, newlines and all: the lines that go with a report (source lines, a
		   * verifier log), progress, -v statistics, libbpf's log */
};

void rt_report(const struct output *o, enum rt_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void rt_vreport(const struct output *o, enum rt_level level, const char *fmt, va_list ap);

/* json.c: a streaming JSON writer into an rt_buf; separators and escapes are its business. */
#define JSON_MAX_DEPTH 16
struct json_writer {
	struct rt_buf *b;
	int depth;
	bool first[JSON_MAX_DEPTH];   /* per level: nothing written in it yet */
	bool compact[JSON_MAX_DEPTH]; /* per level: "," between items instead of ", " */
	bool spaced[JSON_MAX_DEPTH];  /* per level: "{ " and " }", as bpftrace writes records */
	bool after_key;		      /* the next value completes a member */
};

void json_init(struct json_writer *w, struct rt_buf *b);
void json_object_begin(struct json_writer *w);
void json_object_end(struct json_writer *w);
/* An object written as bpftrace writes a struct value: { "a": 1, "b": 2 } */
void json_object_begin_spaced(struct json_writer *w);
/* compact: "," between items, as bpftrace 0.27 writes tuples and hist buckets: [1,"a"] */
void json_array_begin(struct json_writer *w, bool compact);
/* A value written as s is: JSON that bpftrace writes in a layout of its own (tseries) */
void json_raw(struct json_writer *w, const char *s, size_t n);
void json_array_end(struct json_writer *w);
void json_key(struct json_writer *w, const char *k, size_t n);
void json_string(struct json_writer *w, const char *s, size_t n);
void json_int(struct json_writer *w, int64_t v);
void json_uint(struct json_writer *w, uint64_t v);
void json_bool(struct json_writer *w, bool v);
/* Appends s escaped as the inside of a JSON string (no quotes). */
void json_escape(struct rt_buf *b, const char *s, size_t n);

/* syms.c: kernel and user symbols and stacks for the renderers, loaded on first use. */
struct ksyms;
struct rt_syms {
	bool eager;	     /* lazy_symbolication = false: a process's symbols read all at once */
	struct ksyms *ksyms; /* NULL until needed (or opened early by rt_syms_kernel_open) */
	bool ksyms_failed;   /* reported once, then addresses print as hex */
	int kstack_fd, ustack_fd; /* AOT_KSTACK_MAP / AOT_USTACK_MAP, -1 if absent */
	int ustack_bid_fd;	  /* AOT_USTACK_BUILDID_MAP, -1 if absent */
	/* Reads the frames of stack id into ips (AOT_STACK_MAX_DEPTH, zero-ended); tests
	 * replace it. 0 or -errno. */
	int (*stack_read)(struct rt_syms *s, bool user, int64_t id, uint64_t *ips);
	/* The same for ustack(build_id): AOT_STACK_MAX_DEPTH frames, ended by status 0. */
	int (*stack_read_build_id)(struct rt_syms *s, int64_t id, struct aot_stack_build_id *f);
	struct rt_usyms *usyms; /* per-pid bcc symbol caches */
	size_t nusyms, cap_usyms;
	const struct output *out; /* where its warnings and -v statistics are reported */
	int verbose;
	pthread_mutex_t lock; /* the caches: the event loop and the metrics thread both look up */
};

void rt_syms_init(struct rt_syms *s, const struct output *out, int verbose);
void rt_syms_fini(struct rt_syms *s);
/* Subscribes to kernel symbol changes now, so nothing is missed before the first lookup. */
int rt_syms_kernel_open(struct rt_syms *s);
/* Applies the kernel symbol changes waiting (the event loop, when the subscription polls). */
void rt_syms_update(struct rt_syms *s);
/* Appends the name of a kernel address (with "+offset" if offset); -ENOENT if unknown. */
int rt_syms_ksym(struct rt_syms *s, uint64_t addr, bool offset, struct rt_buf *out);
/* The same for a user address of pid; module appends " (path)". */
int rt_syms_usym(struct rt_syms *s, int pid, uint64_t addr, bool offset, bool module,
		 struct rt_buf *out);

/* syscalls.c, made by gen_syscalls.py: system call names by number, NULL in the gaps. */
extern const char *const rt_syscall_names[];
extern const unsigned int rt_nsyscalls;

/* render.c: typed values as text (bpftrace's text output) and as JSON values. */
struct rt_render {
	const struct aot_meta *meta;
	const char *trailer;  /* after a string that fills its buffer: it was cut short */
	struct rt_syms *syms; /* NULL: addresses print as hex and stacks as nothing */
};

/*
 * Appends a value of type t read from data (which holds t->size bytes) the way bpftrace prints
 * it: integers in decimal, strings up to their NUL, tuples as "(a, b)", rendered kinds by their
 * renderer. With bare set, a tuple's parentheses are left out and its elements are joined by
 * sep (map keys: "[a, b]" in text, "a,b" in JSON).
 */
void rt_value_text(struct rt_buf *out, const struct rt_render *r, const struct aot_type *t,
		   const void *data, bool bare);
void rt_key_text(struct rt_buf *out, const struct rt_render *r, const struct aot_type *t,
		 const void *data, const char *sep);
/* The same value as JSON: numbers, quoted strings, tuples as arrays. */
void rt_value_json(struct json_writer *w, const struct rt_render *r, const struct aot_type *t,
		   const void *data);
/* A value's integer reading, extended to 64 bits by its signedness; 0 for non-integers. */
uint64_t rt_value_int(const struct aot_type *t, const void *data);
/* Length of a string value: up to its NUL or the whole buffer. */
size_t rt_value_strlen(const struct aot_type *t, const void *data);
/*
 * A string value as bpftrace 0.27 prints it: up to its NUL, or all of it and r's trailer when
 * it has none (it was cut short).
 */
void rt_value_str(struct rt_buf *out, const struct rt_render *r, const struct aot_type *t,
		  const void *data);

/*
 * The bytes of a buf() (AOT_K_BUF) as bpftrace prints them: mode 0 (%r) printable ASCII as it is
 * and other bytes as \xNN, 'x' (%rx) every byte as \xNN, 'h' (%rh) hex bytes between spaces.
 */
void rt_buf_bytes(struct rt_buf *out, const struct aot_type *t, const void *data, char mode);

/*
 * gfp.c: %gr, GFP flags as bpftrace 0.27 names them, by the running kernel's bits (its BTF's
 * ___GFP_*_BIT enumerators, read on first use).
 */
void rt_gfp_format(struct rt_buf *out, uint64_t flags);

/* printf.c: payload formatting by an aot_fmt's argument tuple. */
/* Appends the formatted text; -EINVAL if the payload is shorter than the arguments. */
int rt_printf_format(struct rt_buf *out, const struct rt_render *r, const struct aot_fmt *f,
		     const void *payload, size_t len);

/* child.c: -c CMD, started before attach and held until the probes are in place. */
struct rt_child {
	int pid;   /* 0: no command */
	int go_fd; /* write end of the pipe the child waits on before exec */
	int pidfd; /* readable once the child has exited; -1 if none */
	bool exited;
	const struct output *out; /* where its errors are reported */
};

/*
 * Forks the command, which waits (signals as in mask) until rt_child_go; out says where errors
 * go. 0 or -errno.
 */
int rt_child_start(struct rt_child *c, char *const *argv, const void *sigmask,
		   const struct output *out);
/* Lets the command exec. */
void rt_child_go(struct rt_child *c);
/* True once the command has exited (reaped). */
bool rt_child_done(struct rt_child *c);
/* Ends the command if it still runs (SIGTERM, before exec: it just exits) and reaps it. */
void rt_child_stop(struct rt_child *c);

/*
 * plan.c: every probe of an object resolved once, after open and before load, into its probe
 * type, program, strategy and targets here (struct probe_plan, in probe.h): what prepare,
 * attach, BEGIN/END and --explain read.
 */
struct rt_plan {
	struct probe_plan *v; /* one per probe of the metadata, in its order */
	uint32_t n;
	struct bpf_object *obj; /* opened, not yet loaded, while resolving */
	struct arena *a;	/* the target lists and reasons */
	struct probe_env *env;	/* the kernel's probe sources, read on first use */
	bool list_all;		/* --explain: list every probe's targets, user binaries' too */
	/* obj's programs by name: libbpf finds one by name in linear time, too slow for kfunc:* */
	struct bpf_program **progs;
	size_t nprogs;
};

/* Each probe starts unresolved (PROBE_BROKEN). 0 or -ENOMEM. */
int rt_plan_init(struct rt_plan *pl, const struct aot_meta *m, struct bpf_object *obj,
		 bool list_all);
/*
 * Resolves probe i: finds its program and probe type, lists its targets, picks its strategy
 * (PROBE_MISSING where nothing matches) and lets its probe type prepare the program for this
 * kernel. 0, or -errno with err->msg set (what is known so far stays in the plan).
 */
int rt_plan_resolve(struct rt_plan *pl, uint32_t i, struct probe_err *err);
/* Once every probe is resolved: drops the probe sources, which a run need not hold. */
void rt_plan_resolved(struct rt_plan *pl);
void rt_plan_free(struct rt_plan *pl);

/* The state of one aot_run(). */
struct rt {
	const struct aot_run_opts *opts;
	struct aot_meta *meta;
	struct bpf_object *obj;
	/*
	 * The verifier's log, shared by every program: libbpf asks for it only when a program
	 * fails, and stops there (a buffer each cost 256 KiB a program: gigabytes for kfunc:*).
	 */
	char *logbuf;
	size_t log_size; /* its bytes */
	struct probe_links links;
	struct output out;
	struct rt_ring *rb;
	struct rt_pcap *pcap; /* skboutput(), NULL if unused */
	int sigfd;	      /* signalfd for SIGINT/SIGTERM/SIGHUP and SIGUSR1, -1 if none */
	/* A signal came while loading or attaching (runtime.c's watcher): stop attaching. */
	atomic_bool interrupted;
	/* SIGUSR1 came: the event loop runs the self:signal probes, or prints every map (0.17). */
	atomic_bool maps_asked;
	bool exiting;	  /* exit() seen or signal received */
	bool exit_called; /* exit() seen: exit_code is the status the run ends with */
	bool after_exit;  /* exit() handled: later events are dropped until END runs */
	int64_t exit_code;
	/* events.c: when the event loop's pass over the ring ends (EVENTS_PASS_MS), 0: never */
	uint64_t pass_end_ns;
	uint64_t malformed; /* ring buffer records we could not make sense of */
	uint64_t lost;	    /* events the programs counted as lost, reported so far */
	int lost_fd;	    /* AOT_LOST_MAP, -1 if the object has none */
	struct rt_buf text; /* scratch for formatting events */
	struct rt_syms syms;
	struct rt_render render;
	struct rt_clones *clones; /* clone.c: alias groups, NULL if the object has none */
	struct rt_child child;	  /* -c CMD */
	int pid_fd;		  /* -p PID: a pidfd, readable once it has exited; -1 if none */
	struct rt_plan plan;	  /* every probe, resolved once by rt_prepare */
	size_t nattached; /* probes attached, a multi probe's targets each, BEGIN and END too */
	/* metrics.c: --metrics, NULL without */
	struct rt_metrics *metrics;
	/* maps.c: per map, 1 if zero() left a keyless hist's or count()'s array at 0; NULL: none */
	uint8_t *zeroed;
};

/* loader.c */
/* Finds a section's bytes in an ELF image, bounds-checked. 0, -ENOENT or -EINVAL. */
int rt_elf_section(const void *elf, size_t size, const char *name, const void **data, size_t *len);
/* What rt_elf_section's error means for the metadata section, for messages. */
const char *rt_elf_error(int err);
int rt_load(struct rt *rt, const void *elf, size_t size);
void rt_unload(struct rt *rt);

/*
 * verifier.c: reports a rejected program: probe, source line, the log's last lines (all of
 * it with -v) and a hint.
 */
void rt_verifier_report(const struct rt *rt, const char *prog, const char *probe, const char *log,
			int err);

/*
 * errors.c: helper errors the programs counted in AOT_ERRORS_MAP. report_fd warns about each
 * non-zero count of a map of that layout (max_keys: each map's key limit, or NULL; seen: the
 * counts already reported, updated, or NULL; all: deletes of missing keys too); -EINVAL if the
 * map's layout is not ours.
 */
void rt_errors_report(struct rt *rt);
int rt_errors_report_fd(const struct aot_meta *m, int fd, const uint32_t *max_keys, bool all,
			struct output *out, uint64_t *seen);

/* params.c: fills AOT_PARAMS_MAP from the ARGS, if the object has it. 0 or -errno, reported. */
int rt_params_fill(struct rt *rt);

/*
 * clone.c: alias groups (AOT_PROBE_ALIAS), from the plan. Before load: only each group's
 * template is loaded, attached to its own target. After load: a copy of the template per other
 * alias. Attach: a PROBE_CLONE probe; 0 or -errno with perr set.
 */
int rt_clone_prepare(struct rt *rt, const void *elf, size_t size);
int rt_clone_load(struct rt *rt);
int rt_clone_attach(struct rt *rt, uint32_t probe, struct probe_err *perr);
void rt_clone_close(struct rt *rt);
/* Links the clones hold. */
size_t rt_clone_count(const struct rt *rt);
/* The loaded program whose instructions an alias probe runs (its group's template), or NULL. */
const struct bpf_program *rt_clone_template(const struct rt *rt, uint32_t probe);

/* attach.c */
/* Progress of a long step on stderr: nothing in its first second, then a line a second. */
struct rt_progress {
	const struct output *out;
	const char *verb, *noun;
	double start, next;
};
void rt_progress_start(struct rt_progress *p, const struct output *out, const char *verb,
		       const char *noun);
void rt_progress(struct rt_progress *p, uint32_t done, uint32_t total);
/*
 * Before load: resolves the plan of every probe (rt->plan), which also lets each probe type
 * adapt its program to the running kernel, and skips the probes whose targets this kernel
 * lacks, per --missing-probes.
 */
int rt_prepare(struct rt *rt);
/* Attaches every probe as its plan says. */
int rt_attach(struct rt *rt);
/*
 * Runs the programs of the run-once probes with this flag (AOT_PROBE_BEGIN, _END, _SIGNAL)
 * once each, in the metadata's order. 0, or the first failure's -errno (reported).
 */
int rt_run_flagged(struct rt *rt, uint32_t flag);
/* Whether the object has a run-once probe with this flag. */
bool rt_has_flagged(const struct rt *rt, uint32_t flag);
/* What one test run of a program gave: its return value, and the kernel's time per run. */
struct rt_test_run {
	uint32_t retval;
	uint32_t duration_ns;
};
/*
 * Runs one run-once probe's program with BPF_PROG_TEST_RUN, repeat times where its type can
 * be repeated (test:, bench:), else once; res may be NULL. 0 or -errno (reported).
 */
int rt_run_probe(struct rt *rt, const struct probe_plan *pp, uint32_t repeat,
		 struct rt_test_run *res);
void rt_detach(struct rt *rt);

/* testmode.c: --test and --bench. 0 (all passed), 1 (one failed) or -errno (reported). */
int rt_run_tests(struct rt *rt);
int rt_run_benches(struct rt *rt);

/*
 * ring.c: the event ring's consumer, one window of its data mapped at a time. fn gets each
 * record; a negative return stops consume after that record.
 */
typedef int (*rt_ring_fn)(void *ctx, void *data, size_t size);
struct rt_ring *rt_ring__new(int map_fd, rt_ring_fn fn, void *ctx, int *errp);
int rt_ring__fd(const struct rt_ring *r);
int rt_ring__consume(struct rt_ring *r);
void rt_ring__free(struct rt_ring *r);

/* pcap.c: skboutput()'s perf buffers and pcap files; NULL (and *errp 0) without AOT_SKB_MAP. */
struct rt_pcap;
struct rt_pcap *rt_pcap__new(struct rt *rt, int *errp);
int rt_pcap__fd(const struct rt_pcap *p);
int rt_pcap__consume(struct rt_pcap *p);
/* Reads what is left, closes the files, warns of packets lost. */
void rt_pcap__free(struct rt_pcap *p);

/* events.c */
/* Sizes the ring buffer before load: BPFTRACE_PERF_RB_PAGES (64) pages per CPU. */
int rt_events_size(struct rt *rt);
int rt_events_open(struct rt *rt);
/* Polls until exit() or a signal. 0 or -errno. */
int rt_events_loop(struct rt *rt);
/* Handles whatever is left in the ring buffer (e.g. END's printfs). */
void rt_events_drain(struct rt *rt);
void rt_events_close(struct rt *rt);
/* The record handler, exposed for tests. */
int rt_events_handle(void *ctx, void *data, size_t size);
/* Reports events lost since the last call (AOT_LOST_MAP). */
void rt_events_report_lost(struct rt *rt);

/*
 * metrics.c: --metrics, the maps served to Prometheus. open listens (before the object loads,
 * so a taken port fails at once); start serves, from a thread of its own, once the maps exist;
 * stop ends the thread and closes the socket (before the maps print; a scrape in progress gives
 * up); free releases the rest. 0 or -errno, reported.
 */
struct sockaddr_storage;
int rt_metrics_open(struct rt *rt);
int rt_metrics_start(struct rt *rt);
void rt_metrics_stop(struct rt *rt);
void rt_metrics_free(struct rt *rt);
/* ADDRESS:PORT (numeric; IPv6 in brackets) to a socket address; -EINVAL with err set. */
int rt_metrics_parse_addr(const char *s, struct sockaddr_storage *ss, unsigned int *len, char *err,
			  size_t errlen);

/* actions.c: the user-space side of FORMAT events: system, cat, time, join, print(value). */
int rt_action_run(struct rt *rt, const struct aot_fmt *f, const void *payload, size_t len);

/* maps.c */
int rt_maps_print(struct rt *rt);
/* A map read whole and folded: what printing and the metrics server both show. */
struct rt_map_read {
	struct output_entry *ents; /* sorted for printing; they point into keys and vals */
	size_t n;
	bool val_signed;
	bool has_sum; /* hist/lhist: each entry's total is the sum of its values */
	void *keys, *vals;
};
/*
 * Reads and folds a map. 0; -ENOENT if the object has no BPF map of that name or its sizes do
 * not match the metadata (warned about when warn); -ENOMEM. Safe from any thread: only bpf()
 * calls and the metadata, which nothing changes while the run lasts.
 */
int rt_maps_read(struct rt *rt, const struct aot_map *map, bool warn, struct rt_map_read *r);
void rt_maps_read_free(struct rt_map_read *r);
/* print(@map, top, div), clear(@map), zero(@map) on the map at index i of the metadata. */
int rt_maps_print_one(struct rt *rt, uint32_t i, uint64_t top, uint64_t div);
int rt_maps_clear(struct rt *rt, uint32_t i, bool zero);
/*
 * Folds n entries read from a map (keys at key_size apart; values ncpus * stride bytes apart)
 * into output entries sorted for printing; they point into keys and vals. 0 or -ENOMEM.
 */
int rt_maps_fold(const struct aot_meta *m, const struct aot_map *map, const void *keys,
		 size_t key_size, const void *vals, size_t stride, int ncpus, size_t n,
		 struct output_entry **out, size_t *nout, bool *val_signed);
/* Keeps the last top entries (0: all), as print(@map, top) does, and divides values by div. */
void rt_maps_top_div(const struct aot_map *map, struct output_entry *ents, size_t *n, uint64_t top,
		     uint64_t div, bool val_signed);
void rt_maps_entries_free(struct output_entry *ents, size_t n);
/* rt_maps_fold of a tseries() map (maps_tseries.c): an entry of rows per key, in key order. */
int rt_tseries_fold(const struct aot_map *map, const void *keys, size_t key_size, const void *vals,
		    size_t stride, int ncpus, size_t n, struct output_entry **out, size_t *nout);

/*
 * The first signal that ends the run, so that its copy is not taken for a second one: GNU
 * timeout sends its signal to the command and then to the whole process group, and on one CPU
 * the two arrive one after the other. The same signal from the same sender within
 * RT_SIGNAL_REPEAT_NS is that copy (events.c; read by runtime.c's second-signal handler).
 */
#define RT_SIGNAL_REPEAT_NS 200000000ULL
void rt_signal_first(int signo, pid_t pid);
bool rt_signal_is_repeat(int signo, pid_t pid);

#endif
