/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The metadata section: the only contract between the compiler and the runtime besides the
 * standard ELF sections. The compiler fills a struct aot_meta and serialises it into the ELF
 * section AOT_META_SECTION; the runtime parses it back, treating it as untrusted input.
 *
 * Layouts shared by generated code and the runtime (all little-endian, naturally aligned).
 * A TUPLE's elements keep their own types ((int8)1 is one byte) at offsets aligned as bpftrace
 * 0.17 aligns them: strings 1, values of 1 or 2 bytes their size, byte arrays (AOT_K_BUF,
 * _USYM, _INET, _TIMESTAMP, _MACADDR, _CGROUP_PATH) and values up to 4 bytes 4, a tuple its
 * largest element's, the rest 8; its size is padded to that largest alignment
 * (src/sema_types.c). A reader takes every offset from aot_elem, never recomputes one.
 *
 *
 *   ring buffer record  struct aot_event_hdr, then the payload of the event kind
 *   AOT_EV_PRINTF       payload laid out as fmts[index].args (a TUPLE)
 *   AOT_EV_EXIT         s64 exit code (absent in objects from before exit(code): 0)
 *
 *   map key             maps[i].key; a scalar map (nkeys == 0) has one u64 key 0
 *   map value by agg    (per-CPU for every aggregation; the runtime folds the CPUs)
 *     AOT_AGG_NONE      maps[i].value
 *     AOT_AGG_COUNT     u64
 *     AOT_AGG_SUM       s64 (u64 if value.is_signed == 0)
 *     AOT_AGG_MIN/MAX   struct { s64 val; u64 is_set; }
 *     AOT_AGG_AVG       struct { s64 total; u64 count; }
 *     AOT_AGG_STATS     struct { s64 total; u64 count; }  (printed as count, average, total)
 *     AOT_AGG_HIST      struct { u64 count; s64 sum; } per bucket: how many values fell in it,
 *     AOT_AGG_LHIST     and their sum (Prometheus's histogram _sum). The BPF key is the user key
 *                       (padded to 8 bytes, absent for a scalar map) followed by a u64 bucket
 *                       index. hist buckets are bpftrace's log2 ones; lhist's come from
 *                       lhist_min/max/step. Objects from before the sums have a u64 count alone:
 *                       the BPF map's value size (8, not 16) says so, and a reader of either
 *                       takes the count at offset 0, so AOT_META_VERSION did not change.
 *                       Since version 4, a hist/lhist map without keys and not declared with
 *                       let is a BPF_MAP_TYPE_PERCPU_ARRAY instead: u32 key = the bucket index,
 *                       max_entries = the number of buckets (AOT_HIST_NBUCKETS, or lhist's
 *                       (max - min) / step + 2), the same value per bucket; a bucket whose count
 *                       is 0 on every CPU is not an entry. The BPF map's type says which (a
 *                       version 3 object has the hash), so the runtime reads both.
 *     AOT_AGG_TSERIES   struct { s64 val; u64 meta; u64 epoch; } per interval slot, bpftrace
 *                       0.27's: epoch = TAI ns / tseries_interval (aot_state.tai_ns), the BPF
 *                       key is as a hist's with slot = epoch % tseries_count for the bucket.
 *                       val is the last value (meta: the TAI ns it was set at), the sum or the
 *                       total (avg; meta: the count), the min or max (meta: 1 once set), by
 *                       tseries_fn; a slot whose epoch is not the current one is stale. Older
 *                       runtimes refuse the aggregation (unknown), so the version stays 4.
 *
 * Events that act on a map name it by index in aot_meta.maps (hdr.index):
 *   AOT_EV_PRINT_MAP    payload struct { u64 top; u64 div; } (0: all / no divisor)
 *   AOT_EV_CLEAR        no payload: the runtime deletes every entry
 *   AOT_EV_ZERO         no payload: the runtime zeroes every value
 * Events that format something in user space name a format (hdr.index into aot_meta.fmts),
 * whose kind says what to do and whose args TUPLE lays out the payload:
 *   AOT_EV_FORMAT       fmts[index].kind: AOT_FMT_PRINTF, _SYSTEM, _CAT, _TIME, _PRINT_VALUE,
 *                       _JOIN; AOT_EV_PRINTF is the same event for printf.
 *
 * Values that only user space can render are AOT_K_* kinds below with fixed layouts:
 *   AOT_K_KSTACK  s64 stack id in the BPF_MAP_TYPE_STACK_TRACE map AOT_KSTACK_MAP
 *   AOT_K_USTACK  struct { s64 stack id in AOT_USTACK_MAP; u64 pid; }; in mode
 *                 AOT_STACK_MODE_BUILD_ID (version 7) the id is in AOT_USTACK_BUILDID_MAP
 *   AOT_K_KSYM    u64 kernel address        AOT_K_USYM   struct { u64 addr; u64 pid; }
 *   AOT_K_INET    struct { u64 af; u8 addr[16]; } (ntop)
 *   AOT_K_MACADDR u8[6], size 6             AOT_K_USERNAME u64 uid
 *   AOT_K_TIMESTAMP u64 ns since boot (strftime; fmts[...].fmt holds the strftime format)
 *   AOT_K_BUF     struct { u32 len; u8 data[size - 4]; } (buf(), printed with \x escapes)
 *   AOT_K_CGROUP_PATH u64 cgroup id
 *   AOT_K_PROBE   u64 index into aot_meta.probes (probe as a map key, printed as its name)
 *   AOT_K_STRERROR s64 errno (strerror(), printed as strerror(3) says it)
 *   AOT_K_SIGNAL  s64 signal number (signal_name(): strsignal(3)'s text for 0..64, else N/A)
 *   AOT_K_SYSCALL s64 system call number (syscall_name(): its name, else Unknown syscall)
 * Extra parameters of rendered kinds travel in aot_type fields a non-TUPLE does not use:
 *   AOT_K_KSTACK/USTACK  nelems = frames to print (0: all), elems = AOT_STACK_MODE_*
 *   AOT_K_TIMESTAMP      elems = index in aot_meta.fmts of the strftime format (kind _TIME)
 * and so does a bitfield member of a RECORD: an AOT_K_INT whose elems is AOT_INT_BITS (below).
 * Other layouts:
 *   AOT_FMT_TIME        args is an empty TUPLE (size 0)
 *   AOT_FMT_JOIN        args: one element, a TUPLE of AOT_JOIN_MAX STR elements; the runtime
 *                       prints the strings up to the first empty one, separated by fmt
 *   AOT_FMT_SYSTEM/CAT  args laid out as for AOT_FMT_PRINTF
 *   AOT_FMT_HELPER_ERROR  a call site of a BPF helper checked by -k/-kk; the program sends it
 *                       when the helper returns an error. args: one INT s64, the return code.
 *                       fmt: five lines, "HELPER\nLINE\nCOL\nLOCATION\nEXCERPT": the helper's
 *                       name (map_update_elem), the script line and column, the location as
 *                       text (script.bt:3:5-12) and the source line with ~ under the call (the
 *                       excerpt is two lines itself)
 *   AOT_FMT_ERRORF/WARNF  errorf()/warnf() (also assert()): a printf whose text the runtime
 *                       reports as an error or warning of the call site. fmt: four lines,
 *                       "LOCATION\nLINE\nCOL\nFILE\n" (script.bt:3:5-30, the line and column
 *                       of the call, the script's name), then the printf format; args laid out
 *                       as for AOT_FMT_PRINTF. Where the call was expanded from macro calls
 *                       (assert() is one), LOCATION goes on with AOT_SITE_US and the text
 *                       printed after the error, "FILE:L:C-E: ERROR: expanded from", the
 *                       source line and ~ under the call for each, its lines ended by
 *                       AOT_SITE_RS
 *   AOT_STATE_SECTION   the global struct aot_state AOT_STATE_MAP in a data section of its own,
 *                       which libbpf loads as a BPF_MAP_TYPE_ARRAY of 1 entry (u32 key 0) named
 *                       after the section; the programs read it at its address (version 4;
 *                       version 3 objects have a .maps array named AOT_STATE_MAP instead).
 *                       Always present (optional to the runtime): the runtime writes start_ns
 *                       (CLOCK_MONOTONIC, which is bpf_ktime_get_ns's clock) before attaching
 *                       and before running BEGIN
 *   AOT_KSTACK_MAP/AOT_USTACK_MAP  BPF_MAP_TYPE_STACK_TRACE, u32 key, value u64[127]; present
 *                       only when the program uses kstack/ustack
 *   AOT_USTACK_BUILDID_MAP  BPF_MAP_TYPE_STACK_TRACE with map_flags BPF_F_STACK_BUILD_ID, u32
 *                       key, value struct aot_stack_build_id[127] (the kernel's struct
 *                       bpf_stack_build_id; frames after the last have status 0); present only
 *                       when the program uses ustack(build_id)
 *   AOT_LOST_MAP        BPF_MAP_TYPE_PERCPU_ARRAY, 1 entry, u32 key 0, value u64: the programs
 *                       add 1 whenever bpf_ringbuf_output to AOT_EVENTS_MAP fails; the runtime
 *                       reports the growth as lost events (optional: absent, nothing reported)
 *   AOT_ERRORS_MAP      BPF_MAP_TYPE_PERCPU_ARRAY, u32 key, value u64, max_entries nmaps *
 *                       AOT_ERR_NKINDS (optional: absent, nothing reported): the programs add 1
 *                       at key i * AOT_ERR_NKINDS + kind when a helper fails on maps[i]:
 *                       AOT_ERR_MAP_FULL    bpf_map_update_elem returned -E2BIG (key limit)
 *                       AOT_ERR_MAP_UPDATE  it returned another error (not -EEXIST, which
 *                                           only means a BPF_NOEXIST insert lost a race)
 *                       AOT_ERR_MAP_DELETE  bpf_map_delete_elem returned an error (-ENOENT)
 *                       the runtime warns about each non-zero count at exit, with the map's name
 *   AOT_SCRATCH_MAP     BPF_MAP_TYPE_PERCPU_ARRAY, 1 entry, u32 key 0, value char[N] (N <= 32 KiB);
 *                       present only when a program needs more than the 512 bytes of BPF stack:
 *                       its big temporaries live there instead. Not for the runtime, which
 *                       neither reads nor prints it
 *   AOT_LASTKEY_PREFIX  "LC_" + the map's elf_name after "AT_" (version 5): a count() map whose
 *                       programs only count into it, with a key that stays the same while a
 *                       task runs (@[comm] = count()), has this BPF_MAP_TYPE_PERCPU_ARRAY of 1
 *                       entry (u32 key 0) beside it, value struct { u64 seq; u64 pending;
 *                       u8 key[the map's key size rounded up to 8]; }: the last key counted
 *                       on that CPU and how many of its events are not in the map yet
 *                       (pending 0: none, the key means nothing). An event with another key
 *                       adds pending to the map at the old key and sets key and pending = 1,
 *                       seq odd meanwhile (an atomic add before and after). A reader adds
 *                       each CPU's pending to that CPU's count at key (an entry of its own if
 *                       the map has none), from a read of the array taken after the map's,
 *                       whose seq on every CPU is even and equal to a read taken before it;
 *                       clear() and zero() set pending to 0 after the map's entries
 *   AOT_PARAMS_MAP      BPF_MAP_TYPE_ARRAY, u32 key, value struct aot_param, max_entries
 *                       nparams + 1; present only in an object compiled with --emit-elf whose
 *                       program uses $N or $#. Those objects read positional parameters where
 *                       they run: before attaching, the runtime writes $# (the number of ARGS
 *                       given) into slot 0's num and $N into slot N: num = its value if the whole
 *                       text is an integer (strtoll base 0), else 0; str = its text, NUL-ended,
 *                       cut to AOT_PARAM_STR_MAX - 1 bytes; a $N not given is 0 and "", as in
 *                       bpftrace. (A program compiled and run at once has them as constants.)
 */
#ifndef AOT_META_H
#define AOT_META_H

#include <stddef.h>
#include <stdint.h>

#define AOT_META_SECTION ".aotrace.meta"
#define AOT_LASTKEY_PREFIX "LC_"
#define AOT_LASTKEY_PENDING_OFF 8
#define AOT_LASTKEY_KEY_OFF 16
#define AOT_META_MAGIC "AOTMETA" /* 8 bytes with the NUL */
#define AOT_META_VERSION 10	 /* the newest the runtime reads */
#define AOT_META_VERSION_MIN 3	 /* the oldest the runtime still reads: 4 added hist arrays */
/*
 * What an object is written as: 4, or 5 when a map has a last-key cache (AOT_LASTKEY_PREFIX),
 * which a runtime that did not know them would leave out of the counts it prints.
 */
#define AOT_META_VERSION_BASE 4
#define AOT_META_VERSION_LASTKEY 5
/* 6: a hist with k > 0 (hist_k), whose buckets an older runtime would label as k = 0's */
#define AOT_META_VERSION_HISTK 6
/* 7: a ustack(build_id) (AOT_STACK_MODE_BUILD_ID), whose frames an older runtime cannot read */
#define AOT_META_VERSION_BUILDID 7
/* 8: a struct value with bitfield members, which an older runtime would print whole */
#define AOT_META_VERSION_BITFIELD 8
/* 9: an array of no items (a struct's int z[0], or a STR of 0 bytes: char c[0]), refused before */
#define AOT_META_VERSION_EMPTY_ARRAY 9
/* 10: an INT whose values print by an enum's names (AOT_INT_ENUM), which older runtimes refuse */
#define AOT_META_VERSION_ENUM 10
#define AOT_HIST_NBUCKETS 65 /* bpftrace's log2 buckets: below 0, 0, then [2^k, 2^(k+1)) */
#define AOT_HIST_MAX_K 5
#define AOT_EVENTS_MAP "aot_events"
#define AOT_PROBE_NAMES_MAP "aot_probe_names" /* u64 -> char[AOT_PROBE_NAME_MAX] */
#define AOT_PROBE_NAME_MAX 128
/*
 * A `func` value that is no address: where the kernel lacks bpf_get_func_ip (5.15), a program
 * with one target gives this tag ORed with its probe's index in aot_meta.probes, and the
 * runtime prints the function its target names. The tag is no canonical x86-64 or arm64
 * address, so no kernel symbol has it.
 */
#define AOT_FUNC_TAG 0xa07f000000000000ull
#define AOT_FUNC_TAG_MASK 0xffffffff00000000ull

/*
 * Serialised form (documented in full at the top of src/common/meta.c): a 64-byte header with the
 * magic, version, total size and nparams, then offset + count of fixed-size little-endian
 * records for probes, maps, formats and tuple elements, and a string table. Strings are offsets
 * into the table, AOT_META_NOSTR for NULL (only aot_probe.target and .name may be NULL).
 * Limits the reader enforces:
 */
#define AOT_META_NOSTR 0xffffffffu
#define AOT_META_MAX_DEPTH 8	     /* tuples inside tuples */
#define AOT_META_MAX_TUPLE 256	     /* elements of one tuple */
#define AOT_META_MAX_SIZE (1u << 20) /* bytes of one type */

enum aot_event_kind {
	AOT_EV_PRINTF = 1,
	AOT_EV_EXIT = 2,
	AOT_EV_PRINT_MAP = 3,
	AOT_EV_CLEAR = 4,
	AOT_EV_ZERO = 5,
	AOT_EV_FORMAT = 6,
	AOT_EV_UNWATCH = 7, /* unwatch(addr): payload the u64 address */
};

/*
 * skboutput(path, skb, len, off): BPF_MAP_TYPE_PERF_EVENT_ARRAY (one ring per CPU; the kernel's
 * bpf_skb_output writes only to those), each sample a struct aot_skb_hdr and the first len bytes
 * of the packet's data. The runtime appends bytes off.. of them to the pcap file
 * fmts[fmt].fmt (kind AOT_FMT_SKBOUTPUT), stamped boot_ns plus the boot's wall-clock time.
 */
#define AOT_SKB_MAP "aot_skb"
struct aot_skb_hdr {
	uint32_t fmt;	  /* index in aot_meta.fmts */
	uint32_t len;	  /* bytes of packet data after the header */
	uint64_t off;	  /* the first of them to write */
	uint64_t boot_ns; /* bpf_ktime_get_boot_ns() */
};

#define AOT_KSTACK_MAP "aot_kstacks"
#define AOT_USTACK_MAP "aot_ustacks"
#define AOT_USTACK_BUILDID_MAP "aot_ustacks_bid"
#define AOT_STATE_MAP "aot_state"
#define AOT_STATE_SECTION ".data.aot_state"
#define AOT_LOST_MAP "aot_lost"
#define AOT_ERRORS_MAP "aot_errors"
#define AOT_PARAMS_MAP "aot_params"
#define AOT_SCRATCH_MAP "aot_scratch"
#define AOT_PARAM_STR_MAX 64
/* A positional parameter slot of AOT_PARAMS_MAP. */
struct aot_param {
	uint64_t num;
	char str[AOT_PARAM_STR_MAX];
};
enum aot_err_kind { AOT_ERR_MAP_FULL = 0, AOT_ERR_MAP_UPDATE, AOT_ERR_MAP_DELETE, AOT_ERR_NKINDS };
#define AOT_STACK_MAX_DEPTH 127
#define AOT_JOIN_MAX 16
#define AOT_JOIN_ARG_LEN 1024 /* bytes of each join() string (bpftrace's join_argsize) */

enum aot_stack_mode {
	AOT_STACK_MODE_BPFTRACE = 0,
	AOT_STACK_MODE_PERF = 1,
	AOT_STACK_MODE_RAW = 2,
	AOT_STACK_MODE_BUILD_ID = 3, /* ustack only: build id and file offset of each frame */
	AOT_STACK_MODE_COUNT,
};
/* The modes as the language, the config block and BPFTRACE_STACK_MODE name them. */
extern const char *const aot_stack_mode_names[AOT_STACK_MODE_COUNT];
#define AOT_STACK_MODE_LIST "bpftrace, perf, raw and build_id"

/* A frame of AOT_USTACK_BUILDID_MAP: the kernel's struct bpf_stack_build_id. */
#define AOT_BUILD_ID_SIZE 20
enum aot_build_id_status {
	AOT_BUILD_ID_EMPTY = 0, /* no frame: the stack ended before */
	AOT_BUILD_ID_VALID = 1, /* build_id and offset into the file */
	AOT_BUILD_ID_IP = 2,	/* the kernel could not read the build id: ip */
};
struct aot_stack_build_id {
	int32_t status;
	uint8_t build_id[AOT_BUILD_ID_SIZE];
	uint64_t offset_or_ip;
};
_Static_assert(sizeof(struct aot_stack_build_id) == 32, "the kernel's bpf_stack_build_id");

struct aot_state {
	uint64_t start_ns; /* elapsed = bpf_ktime_get_ns() - start_ns */
	/*
	 * Non-zero: every program but BEGIN and END returns at once. AOT_STOPPED_NOT_STARTED
	 * while the runtime attaches and runs BEGIN (so nothing is traced before BEGIN, and our
	 * own attach is not), then 0; AOT_STOPPED_ENDING once the run is ending (exit() in a
	 * program, or a signal), so the maps printed are the maps at that moment and slow
	 * detaches can go on in the background without the programs doing anything.
	 */
	uint64_t stopped;
	/*
	 * Written with start_ns; absent from objects before ncpus and cpid existed, which read
	 * only the fields above (the runtime writes the map's value size of this struct).
	 */
	uint64_t ncpus; /* possible CPUs, libbpf_num_possible_cpus() */
	uint64_t cpid;	/* -c's child, 0 without one */
	/*
	 * The runtime's pid namespace (st_dev and st_ino of /proc/self/ns/pid), both 0 when it is
	 * the initial namespace: pid and tid are the ids in it (absent before pid(curr_ns)).
	 */
	uint64_t pidns_dev;
	uint64_t pidns_ino;
	/*
	 * CLOCK_TAI - CLOCK_BOOTTIME at start: tseries() counts its intervals in TAI time as
	 * bpf_ktime_get_boot_ns() + tai_ns, as bpftrace 0.27 does (sw_tai; kernels before 6.1 have
	 * no TAI helper). Absent before tseries().
	 */
	uint64_t tai_ns;
};

#define AOT_STOPPED_ENDING 1
#define AOT_STOPPED_NOT_STARTED 2

struct aot_event_hdr {
	uint16_t kind;	/* enum aot_event_kind */
	uint16_t cpu;	/* the CPU the program ran on: text lines are kept whole per CPU */
	uint32_t index; /* AOT_EV_PRINTF: index in aot_meta.fmts */
};

enum aot_kind {
	AOT_K_NONE = 0,
	AOT_K_INT,   /* size 1, 2, 4, 8; is_signed */
	AOT_K_STR,   /* size = buffer bytes, NUL-terminated unless full (0 since version 9) */
	AOT_K_TUPLE, /* nelems elements from aot_meta.elems[elems] */
	AOT_K_BOOL,  /* size 1 */
	/* rendered by the runtime; layouts at the top of this file */
	AOT_K_KSTACK,
	AOT_K_USTACK,
	AOT_K_KSYM,
	AOT_K_USYM,
	AOT_K_INET,
	AOT_K_MACADDR,
	AOT_K_USERNAME,
	AOT_K_TIMESTAMP,
	AOT_K_BUF,
	AOT_K_CGROUP_PATH,
	AOT_K_PROBE,
	AOT_K_RECORD, /* a struct or union by value: nelems named members from elems, like TUPLE */
	AOT_K_ARRAY,  /* nelems items (0 since version 9) of the one element at elems (offset 0),
		       * size = all */
	AOT_K_STRERROR, /* rendered: s64 errno, printed as strerror(3) text */
	AOT_K_SIGNAL,	/* rendered: s64 signal number, printed as strsignal(3) text */
	AOT_K_SYSCALL,	/* rendered: s64 system call number, printed as its name */
};

/* An INT's nelems: an address (a pointer's value), which text shows as 0x... (bpftrace 0.27). */
#define AOT_INT_ADDRESS 1
/*
 * An INT's nelems from AOT_INT_ENUM(0) on (since AOT_META_VERSION_ENUM): a value of the enum
 * aot_meta.enums[nelems - AOT_INT_ENUM(0)], which text prints by its enumerator's name (a value
 * that none has prints as a number; JSON writes numbers), as bpftrace 0.27 prints enums.
 */
#define AOT_INT_ENUM(i) (2u + (uint32_t)(i))
/*
 * An INT's elems, 0 for a whole integer: a bitfield (a struct member, since
 * AOT_META_VERSION_BITFIELD), the bits AOT_INT_BIT_OFF up of the INT's size bytes (1 to 8 of
 * them, little-endian), AOT_INT_BIT_SIZE of them (1 to 64), zero-extended, or sign-extended if
 * is_signed. The compiler sets is_signed only where the field fills its declared type: bpftrace
 * 0.27 reads `int a:3` holding 0b111 as 7 but `int a:32` holding all ones as -1.
 */
#define AOT_INT_BITS(off, size) ((uint32_t)(off) | (uint32_t)(size) << 8)
#define AOT_INT_BIT_OFF(elems) (0xffu & (elems))
#define AOT_INT_BIT_SIZE(elems) ((elems) >> 8 & 0xffu)

struct aot_type {
	uint32_t kind; /* enum aot_kind */
	uint32_t size;
	uint32_t is_signed;
	uint32_t nelems; /* TUPLE; INT: AOT_INT_ADDRESS or 0 */
	uint32_t elems;	 /* TUPLE: its first element's index in aot_meta.elems; INT: AOT_INT_BITS */
};

struct aot_elem {
	uint32_t offset;
	struct aot_type type;
	char *name; /* a RECORD's member name; NULL in tuples and arrays */
};

enum aot_agg {
	AOT_AGG_NONE = 0,
	AOT_AGG_COUNT,
	AOT_AGG_SUM,
	AOT_AGG_MIN,
	AOT_AGG_MAX,
	AOT_AGG_AVG,
	AOT_AGG_STATS,
	AOT_AGG_HIST,
	AOT_AGG_LHIST,
	AOT_AGG_TSERIES,
};

/* How tseries() folds the values of one interval (aot_map.tseries_fn): the last one, or ... */
enum aot_tseries_fn {
	AOT_TSERIES_LAST = 0,
	AOT_TSERIES_AVG,
	AOT_TSERIES_MAX,
	AOT_TSERIES_MIN,
	AOT_TSERIES_SUM,
	AOT_TSERIES__LAST = AOT_TSERIES_SUM,
};
#define AOT_TSERIES_MAX_INTERVALS 1000000 /* as bpftrace 0.27: num_intervals at most */

struct aot_map {
	char *name;	/* as the user wrote it: "@x", "@" */
	char *elf_name; /* the BPF map's name in the ELF */
	uint32_t agg;	/* enum aot_agg */
	uint32_t nkeys; /* 0: scalar map */
	struct aot_type key;
	struct aot_type value; /* AOT_AGG_NONE: the stored value; else the aggregated input */
	/* three parameters of the aggregation, one record field each (meta.c) */
	union {
		struct {
			int64_t lhist_min, lhist_max, lhist_step; /* AOT_AGG_LHIST */
		};
		/* AOT_AGG_HIST: k of hist(v, k), 2^k buckets per power of two (0..5) */
		int64_t hist_k;
		struct {
			/* AOT_AGG_TSERIES: ns per interval, intervals kept, enum aot_tseries_fn */
			int64_t tseries_interval, tseries_count, tseries_fn;
		};
	};
};

/* The separators in an errorf() call site's LOCATION (AOT_FMT_ERRORF above). */
#define AOT_SITE_US '\x1f'
#define AOT_SITE_RS '\x1e'

enum aot_fmt_kind {
	AOT_FMT_PRINTF = 1,
	AOT_FMT_SYSTEM,	     /* fmt is a printf format; the runtime runs the result with sh -c */
	AOT_FMT_CAT,	     /* fmt is a printf format naming a file; the runtime prints the file */
	AOT_FMT_TIME,	     /* fmt is a strftime format of the current wall-clock time */
	AOT_FMT_PRINT_VALUE, /* print(value): args holds one element */
	AOT_FMT_JOIN,	     /* join(argv[, sep]): fmt is the separator; args: one STR array */
	AOT_FMT_HELPER_ERROR, /* -k: a helper failed; fmt and args are described above */
	AOT_FMT_ERRORF,	      /* errorf(): fmt and args are described above */
	AOT_FMT_WARNF,	      /* warnf(): as errorf, a warning (left out with --no-warnings) */
	AOT_FMT_SKBOUTPUT,    /* skboutput(): fmt is the pcap file's path; see AOT_SKB_MAP */
	AOT_FMT__LAST = AOT_FMT_SKBOUTPUT,
};

struct aot_fmt {
	uint32_t kind;	      /* enum aot_fmt_kind */
	char *fmt;	      /* unescaped format string as written */
	struct aot_type args; /* TUPLE, offsets relative to the byte after aot_event_hdr */
};

enum aot_probe_flags {
	AOT_PROBE_BEGIN = 1 << 0, /* run once before the others start: BPF_PROG_TEST_RUN */
	AOT_PROBE_END = 1 << 1,	  /* run once at exit, before the maps are printed */
	/*
	 * One program for every target of a wildcard (target holds the pattern), attached with
	 * one kprobe_multi/uprobe_multi link where the kernel has them, else one link per target.
	 * Each target gets an attach cookie unique in the run, and the runtime writes the
	 * target's probe name into AOT_PROBE_NAMES_MAP at that cookie before attaching.
	 */
	AOT_PROBE_MULTI = 1 << 2,
	/*
	 * The program is one of an alias group: several ELF symbols at the same code, one per
	 * target (target names it; the section names only one of them). libbpf relocates one
	 * program of the group; the runtime loads that one and clones its instructions for the
	 * others with their own attach target. `probe` reads AOT_PROBE_NAMES_MAP at the attach
	 * cookie, as in multi programs.
	 */
	AOT_PROBE_ALIAS = 1 << 3,
	/*
	 * Compiled with --unsafe: the runtime may attach where it cannot check that the probe is
	 * safe, with a warning (a uprobe at an offset into a function or at an address in none,
	 * which may be inside an instruction); without it, that is an error.
	 */
	AOT_PROBE_UNSAFE = 1 << 4,
	/*
	 * A uprobe at a source line (uprobe:BINARY@FILE:LINE): the compiler took its address from
	 * a row of the binary's DWARF line table, which starts an instruction, so the runtime
	 * attaches it inside its function without --unsafe.
	 */
	AOT_PROBE_STMT = 1 << 12,
	/*
	 * The probe's predicate and body read no argument (args, argN, retval: no context slot),
	 * which is what a tracing multi program may do (the kernel refuses its context reads): an
	 * alias group of such kfunc/kretfunc probes attaches as one program with one
	 * BPF_LINK_TYPE_TRACING_MULTI link where the kernel has them (probes/tracing_multi.c).
	 */
	AOT_PROBE_NO_ARGS = 1 << 7,
	/*
	 * self:signal:SIGUSR1: no link; the runtime runs the program with BPF_PROG_TEST_RUN each
	 * time the process gets SIGUSR1 (which then no longer prints the maps).
	 */
	AOT_PROBE_SIGNAL = 1 << 5,
	/*
	 * test:NAME and bench:NAME: XDP programs with no link, run only by --test or --bench
	 * (runtime/testmode.c), as bpftrace 0.27 does.
	 */
	AOT_PROBE_TEST = 1 << 6,
	AOT_PROBE_BENCH = 1 << 11,
	/*
	 * iter:NAME: a BPF iterator, the only probe of its program but for BEGIN and END. The
	 * runtime reads it after BEGIN (what printf wrote with bpf_seq_printf) and ends the run.
	 */
	AOT_PROBE_ITER = 1 << 10,
	/*
	 * A session program: the entry and return probes (AOT_PROBE_IN_SESSION) of one wildcard
	 * in one program, attached with one kprobe or uprobe session link where the kernel has
	 * them (type and target are the entry probe's). It calls the kfunc bpf_session_is_return
	 * (a weak extern in .ksyms: no argument on 6.10 to 6.18, ctx on newer kernels) to run the
	 * return probe's body or the entry probe's, which returns 0 so that the return runs. Its
	 * return probe's names are in AOT_PROBE_NAMES_MAP at cookie | AOT_PROBE_NAME_RETURN. Where
	 * the kernel has no session links, the runtime loads the members instead.
	 */
	AOT_PROBE_SESSION = 1 << 8,
	/* An entry or return probe that a session program serves where the kernel has them. */
	AOT_PROBE_IN_SESSION = 1 << 9,
};

/* The bit of a session's attach cookie under which the names map holds the return's name. */
#define AOT_PROBE_NAME_RETURN (1ull << 63)

/* Probes with no link, whose programs the runtime runs itself with BPF_PROG_TEST_RUN. */
#define AOT_PROBE_RUN_BY_RUNTIME                                                                   \
	(AOT_PROBE_BEGIN | AOT_PROBE_END | AOT_PROBE_SIGNAL | AOT_PROBE_TEST | AOT_PROBE_BENCH)

struct aot_probe {
	char *prog;   /* ELF function name of its BPF program */
	char *type;   /* probe type name in probes/registry.c: "tracepoint", "interval", "BEGIN" */
	char *target; /* type-specific target: "syscalls:sys_enter_openat", "s:1" */
	char *name;   /* full name, what `probe` prints */
	uint32_t flags; /* enum aot_probe_flags */
};

/*
 * Run-time settings a script's config block gave (bpftrace 0.23's config = { ... }), for the
 * runtime to use where its command line and environment give none. 0: not given.
 */
enum aot_setting {
	AOT_SET_MISSING = 0, /* enum aot_missing_policy + 1 */
	AOT_SET_PRINT_MAPS,  /* print_maps_on_exit: 1 false, 2 true */
	AOT_SET_RB_PAGES,    /* perf_rb_pages */
	AOT_SET_CAT_MAX,     /* max_cat_bytes */
	AOT_SET_LOG_SIZE,    /* log_size */
	/*
	 * str_trunc_trailer: in the serialised settings record, the offset of aot_meta.trailer in
	 * the string table + 1 (the builder and the reader fill it; code reads .trailer)
	 */
	AOT_SET_TRAILER,
	AOT_SET_LAZY_SYMS, /* lazy_symbolication: 1 false, 2 true */
	AOT_SET_N,
};
/*
 * One more value of the serialised settings record, past the settings, written only by objects
 * with enums (AOT_META_VERSION_ENUM): the offset of the enum table (meta.c). Not a setting:
 * the reader fills aot_meta.enums from it.
 */
#define AOT_SET_ENUMS AOT_SET_N

/* An enum's enumerators: aot_meta.enumvals[first .. first + n). */
struct aot_enum {
	uint32_t first, n;
};

struct aot_enumval {
	int64_t val;
	char *name;
};

struct aot_meta {
	uint32_t version;
	struct aot_probe *probes;
	uint32_t nprobes;
	struct aot_map *maps;
	uint32_t nmaps;
	struct aot_fmt *fmts;
	uint32_t nfmts;
	struct aot_elem *elems;
	uint32_t nelems;
	uint32_t nparams; /* highest positional parameter the program uses (AOT_PARAMS_MAP) */
	uint32_t settings[AOT_SET_N];
	char *trailer;		/* str_trunc_trailer of the config block; NULL: not given */
	struct aot_enum *enums; /* what AOT_INT_ENUM types refer to */
	uint32_t nenums;
	struct aot_enumval *enumvals;
	uint32_t nenumvals;
};

/* Builders used by the compiler; strings are copied. Each returns the new index, or -ENOMEM. */
struct aot_meta *aot_meta_new(void);
void aot_meta_free(struct aot_meta *m);
int aot_meta_add_probe(struct aot_meta *m, const struct aot_probe *p);
int aot_meta_add_map(struct aot_meta *m, const struct aot_map *map);
/* The object needs a runtime that reads version (AOT_META_VERSION_LASTKEY): write at least it. */
void aot_meta_set_version(struct aot_meta *m, uint32_t version);
int aot_meta_add_fmt(struct aot_meta *m, const struct aot_fmt *f);
/* The config block's str_trunc_trailer (copied, replacing any before). 0 or -ENOMEM. */
int aot_meta_set_trailer(struct aot_meta *m, const char *trailer);
/*
 * An enum of n enumerators (names and values copied), the same index for the same enum; the
 * object becomes AOT_META_VERSION_ENUM. Returns the index for AOT_INT_ENUM, or -ENOMEM.
 */
int aot_meta_add_enum(struct aot_meta *m, char *const *names, const int64_t *vals, uint32_t n);
/* The name of val if t is an INT of an enum that has it, else NULL. */
const char *aot_meta_enum_name(const struct aot_meta *m, const struct aot_type *t, int64_t val);
/* Reserves n consecutive tuple elements and returns the index of the first. */
int aot_meta_add_elems(struct aot_meta *m, uint32_t n);

/*
 * hist(v, k)'s buckets, as bpftrace 0.27 numbers them: 0 holds the negative values, 1 to 2^k
 * the values 0 to 2^k - 1, then each power of two [2^p, 2^(p+1)) from p = k on is 2^k buckets
 * of 2^(p-k) values. The number of buckets ((64 - k) << k, plus 1), the exclusive upper bound of
 * bucket i (i itself for the buckets of one value, i <= 2 << k), and that bound as bpftrace
 * labels it ("12", "4K", "3584K", "8E").
 */
uint32_t aot_hist_nbuckets(uint32_t k);
uint64_t aot_hist_upper(uint32_t k, uint32_t i);
void aot_hist_label(char *buf, size_t size, uint32_t k, uint32_t i);

/* Serialise into a malloc'd buffer. 0 or -errno. */
int aot_meta_write(const struct aot_meta *m, void **buf, size_t *size);
/*
 * Parse untrusted bytes. On error returns -EINVAL and writes a one-line reason to err;
 * never reads outside [buf, buf + size).
 */
int aot_meta_read(const void *buf, size_t size, struct aot_meta **out, char *err, size_t errlen);

/*
 * The language's name for a kind only user space renders (AOT_K_KSTACK .. AOT_K_PROBE:
 * "kstack", "buffer", ...), shared by sema's types and --explain; NULL for any other kind.
 */
const char *aot_render_kind_name(uint32_t kind);
/* The language's name of an aggregation ("count", "hist"; "value" for none; "?" if unknown). */
const char *aot_agg_name(uint32_t agg);
/* tseries()'s fold as the language names it ("avg", ...; "last" for none; NULL if unknown). */
const char *aot_tseries_fn_name(int64_t fn);

#endif
