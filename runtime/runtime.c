// SPDX-License-Identifier: GPL-2.0
/*
 * aot_run(): the whole life of a run in one short function, each step in its own file: load
 * (loader.c), attach (attach.c), BEGIN, poll events (events.c), END, print maps (maps.c), and
 * tear down so that nothing we loaded stays in the kernel on any path.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <poll.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rt.h"

/* Output implementations by format; a missing one is reported, not guessed at. */
static const struct output_ops *const runtime_outputs[] = {
	[AOT_OUT_TEXT] = &output_text_ops,
	[AOT_OUT_JSON] = &output_json_ops,
};

/* Whether a type renders kernel addresses (kstack, ksym), through tuples too. */
static bool runtime_type_kernel(const struct aot_type *t)
{
	return t->kind == AOT_K_KSTACK || t->kind == AOT_K_KSYM;
}

static bool runtime_needs_ksyms(const struct aot_meta *m)
{
	uint32_t i;

	for (i = 0; i < m->nelems; i++)
		if (runtime_type_kernel(&m->elems[i].type))
			return true;
	for (i = 0; i < m->nmaps; i++)
		if (runtime_type_kernel(&m->maps[i].key) || runtime_type_kernel(&m->maps[i].value))
			return true;
	return false;
}

static int runtime_map_fd(struct rt *rt, const char *name)
{
	struct bpf_map *map = bpf_object__find_map_by_name(rt->obj, name);

	return map ? bpf_map__fd(map) : -1;
}

/* The run's struct aot_state: its data section's map, or a version 3 object's map. */
static int runtime_state_fd(struct rt *rt)
{
	int fd = runtime_map_fd(rt, AOT_STATE_SECTION);

	return fd >= 0 ? fd : runtime_map_fd(rt, AOT_STATE_MAP);
}

/*
 * The pid namespace pid and tid are counted in: this process's, unless it is the initial one
 * (PROC_PID_INIT_INO), where the programs use the cheaper helper.
 */
static void runtime_pidns(struct aot_state *st)
{
	struct stat sb;

	if (stat("/proc/self/ns/pid", &sb) || sb.st_ino == 0xeffffffcu)
		return;
	st->pidns_dev = (uint64_t)sb.st_dev;
	st->pidns_ino = (uint64_t)sb.st_ino;
}

/* CLOCK_TAI - CLOCK_BOOTTIME in ns: what tseries() adds to boot time (aot_state.tai_ns). */
static uint64_t runtime_tai_offset(void)
{
	struct timespec tai, boot;

	if (clock_gettime(CLOCK_TAI, &tai) || clock_gettime(CLOCK_BOOTTIME, &boot))
		return 0;
	return (uint64_t)(tai.tv_sec - boot.tv_sec) * 1000000000ull + (uint64_t)tai.tv_nsec -
	       (uint64_t)boot.tv_nsec;
}

/*
 * After load, before attach: the symbol services and their maps, the lost-event counter, and
 * the start time `elapsed` counts from. A program that renders kernel addresses subscribes to
 * symbol changes now, so that programs loaded from here on are named right.
 */
static void runtime_prepare(struct rt *rt)
{
	struct timespec ts;
	struct aot_state st = { 0 };
	uint32_t key = 0;
	int fd;

	rt->syms.kstack_fd = runtime_map_fd(rt, AOT_KSTACK_MAP);
	rt->syms.ustack_fd = runtime_map_fd(rt, AOT_USTACK_MAP);
	rt->syms.ustack_bid_fd = runtime_map_fd(rt, AOT_USTACK_BUILDID_MAP);
	rt->lost_fd = runtime_map_fd(rt, AOT_LOST_MAP);
	if (runtime_needs_ksyms(rt->meta))
		rt_syms_kernel_open(&rt->syms);
	fd = runtime_state_fd(rt);
	if (fd >= 0 && !clock_gettime(CLOCK_MONOTONIC, &ts)) {
		st.start_ns = (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
		/* Inert until BEGIN has run: runtime_start_programs(). */
		st.stopped = AOT_STOPPED_NOT_STARTED;
		st.ncpus = (uint64_t)libbpf_num_possible_cpus();
		st.cpid = (uint64_t)rt->child.pid;
		runtime_pidns(&st);
		st.tai_ns = runtime_tai_offset();
		bpf_map_update_elem(fd, &key, &st, BPF_ANY);
	}
}

/* The signals that end a run: the first one gracefully (END, the maps), a second one at once. */
#define RUNTIME_NEND 3
static const int runtime_end_signals[RUNTIME_NEND] = { SIGINT, SIGTERM, SIGHUP };

static void runtime_end_sigset(sigset_t *set)
{
	int i;

	sigemptyset(set);
	for (i = 0; i < RUNTIME_NEND; i++)
		sigaddset(set, runtime_end_signals[i]);
}

/*
 * Until aot_run blocks them, the end signals end the process by their default action: nothing
 * is loaded yet and nothing printed, and a signal during the compile of a few hundred probes
 * (a second or more) must not wait for it. But the kernel discards a signal whose disposition
 * is SIG_IGN, and a script's background job (`aotrace ... &` from sh or bash, job control off)
 * starts with SIGINT ignored: its `kill -INT` during the compile was lost and the run went on
 * until a second signal. After start-up the same SIGINT ended the run, since the signalfd
 * reads a blocked signal whatever its disposition; so the disposition we inherit does not
 * count, at any moment (bpftrace, too, installs its handler over an ignored SIGINT), nor does
 * an inherited mask that would hold a signal back until aot_run. A constructor rather than
 * main(): an ignored signal is lost for good, and the executable's priority constructors run
 * before LLVM's 353 static ones, about half the time from exec to main().
 */
__attribute__((constructor(101))) static void runtime_signals_default(void)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t set;
	int i;

	for (i = 0; i < RUNTIME_NEND; i++)
		sigaction(runtime_end_signals[i], &dfl, NULL);
	runtime_end_sigset(&set);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/*
 * Signals become readable on a signalfd instead of running a handler; they stay blocked for
 * the whole run so that a Ctrl-C during load or attach still reaches the teardown.
 */
static int runtime_signals_block(struct rt *rt, sigset_t *old)
{
	sigset_t set;

	runtime_end_sigset(&set);
	sigaddset(&set, SIGUSR1); /* prints the maps: events.c */
	if (sigprocmask(SIG_BLOCK, &set, old))
		return -errno;
	rt->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (rt->sigfd < 0) {
		int err = -errno;

		sigprocmask(SIG_SETMASK, old, NULL);
		return err;
	}
	return 0;
}

static void runtime_signals_restore(struct rt *rt, const sigset_t *old)
{
	struct signalfd_siginfo si;

	/* Swallow signals that came after the loop ended, or unblocking would deliver them. */
	while (read(rt->sigfd, &si, sizeof(si)) == sizeof(si))
		;
	close(rt->sigfd);
	rt->sigfd = -1;
	sigprocmask(SIG_SETMASK, old, NULL);
}

/*
 * Once the run is ending (exit(), a first signal, or an error), another SIGINT, SIGTERM or
 * SIGHUP ends the process at once, whatever is left: END, printing, or a detach the kernel makes
 * slow (tens of milliseconds per tracepoint link). The handler leaves our file descriptors to a
 * child that holds them until we are gone and then dies, so the kernel's slow release runs in
 * that child, the shell gets its prompt back now, and nothing stays loaded once the child ends.
 * _Fork, not fork: fork takes glibc's atfork and malloc locks, and the code this handler
 * interrupted may hold one (printing the maps, or runtime_release_later's own fork), which
 * hung the process for good; the child below makes only system calls.
 */
static void runtime_signal_exit_now(int sig)
{
	pid_t parent = getpid(), pid = _Fork();

	if (pid == 0) {
		struct sigaction ign = { .sa_handler = SIG_IGN };

		/* Out of the terminal's foreground group, and deaf to its signals. */
		sigaction(SIGINT, &ign, NULL);
		sigaction(SIGTERM, &ign, NULL);
		sigaction(SIGHUP, &ign, NULL);
		setsid();
		/* A reader of our output (a pipe to less) must see its end when we exit. */
		close(STDIN_FILENO);
		close(STDOUT_FILENO);
		close(STDERR_FILENO);
		if (!prctl(PR_SET_PDEATHSIG, SIGKILL) && getppid() == parent)
			for (;;)
				pause();
		_exit(0);
	}
	_exit(128 + sig);
}

/* The second signal's handler; the first one's copy (rt_signal_is_repeat) is not a second. */
static void runtime_signal_exit_info(int sig, siginfo_t *info, void *uc)
{
	(void)uc;
	if (rt_signal_is_repeat(sig, info->si_pid))
		return;
	runtime_signal_exit_now(sig);
}

/*
 * Loading and attaching are long calls that do not look at signals (bpf_object__load verifies
 * every program in one call; hundreds of links take seconds). A thread reads the signalfd
 * meanwhile: the first signal sets rt->interrupted, so attaching stops at the next probe (or
 * the next try of a multi link: rt->links.stop) and the run ends as if the signal had come in
 * the event loop; a second one ends the process at once (runtime_signal_exit_now).
 */
struct runtime_watch {
	struct rt *rt;
	pthread_t thread;
	int stop_fd; /* an eventfd: written to end the thread */
};

static void *runtime_watch_main(void *arg)
{
	struct runtime_watch *w = arg;
	struct pollfd fds[2] = { { .fd = w->rt->sigfd, .events = POLLIN },
				 { .fd = w->stop_fd, .events = POLLIN } };
	struct signalfd_siginfo si;

	for (;;) {
		if (poll(fds, 2, -1) < 0 && errno != EINTR)
			break;
		if (fds[1].revents)
			break;
		if (read(w->rt->sigfd, &si, sizeof(si)) != sizeof(si))
			continue;
		/* The maps are printed once the event loop runs. */
		if (si.ssi_signo == SIGUSR1) {
			atomic_store(&w->rt->maps_asked, true);
			continue;
		}
		if (!atomic_exchange(&w->rt->interrupted, true))
			rt_signal_first((int)si.ssi_signo, (pid_t)si.ssi_pid);
		else if (!rt_signal_is_repeat((int)si.ssi_signo, (pid_t)si.ssi_pid))
			runtime_signal_exit_now((int)si.ssi_signo);
	}
	return NULL;
}

static void runtime_watch_start(struct runtime_watch *w, struct rt *rt)
{
	w->rt = rt;
	w->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (w->stop_fd >= 0 && pthread_create(&w->thread, NULL, runtime_watch_main, w)) {
		close(w->stop_fd);
		w->stop_fd = -1;
	}
}

/* Ends the watcher; a signal it saw ends the run (the event loop returns at once). */
static void runtime_watch_stop(struct runtime_watch *w)
{
	uint64_t one = 1;

	if (w->stop_fd < 0)
		return;
	if (write(w->stop_fd, &one, sizeof(one)) == sizeof(one))
		pthread_join(w->thread, NULL);
	close(w->stop_fd);
	w->stop_fd = -1;
	if (atomic_load(&w->rt->interrupted))
		w->rt->exiting = true;
}

/* Dispositions saved while runtime_signal_exit_now is installed. */
struct runtime_exit_sigs {
	bool installed;
	struct sigaction old[RUNTIME_NEND];
};

/*
 * Whether every probe has one of these flags. With only BEGIN and END (and test: and bench:
 * probes, which a run does not attach), bpftrace 0.27 ends once BEGIN has run.
 */
static bool runtime_only(const struct aot_meta *meta, uint32_t flags)
{
	for (uint32_t i = 0; i < meta->nprobes; i++)
		if (!(meta->probes[i].flags & flags))
			return false;
	return true;
}

static void runtime_signals_exiting(struct runtime_exit_sigs *s)
{
	struct sigaction act = { .sa_sigaction = runtime_signal_exit_info, .sa_flags = SA_SIGINFO };
	sigset_t set;
	int i;

	if (s->installed)
		return;
	for (i = 0; i < RUNTIME_NEND; i++)
		sigaction(runtime_end_signals[i], &act, &s->old[i]);
	runtime_end_sigset(&set);
	s->installed = true;
	/* A signal already queued (a quick double Ctrl-C) is delivered here. */
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static void runtime_signals_exit_restore(struct runtime_exit_sigs *s)
{
	int i;

	for (i = 0; s->installed && i < RUNTIME_NEND; i++)
		sigaction(runtime_end_signals[i], &s->old[i], NULL);
	s->installed = false;
}

/* Sets struct aot_state.stopped; with from, only if it holds that value. */
static void runtime_set_stopped(struct rt *rt, uint64_t value, const uint64_t *from)
{
	int fd = runtime_state_fd(rt);
	struct aot_state st = { 0 };
	uint32_t key = 0;

	if (fd < 0 || bpf_map_lookup_elem(fd, &key, &st) || (from && st.stopped != *from))
		return;
	st.stopped = value;
	bpf_map_update_elem(fd, &key, &st, BPF_ANY);
}

/*
 * Makes every program but END return at once (struct aot_state.stopped): the maps then hold
 * what they held when the run ended, and links can be released later at leisure.
 */
static void runtime_stop_programs(struct rt *rt)
{
	runtime_set_stopped(rt, AOT_STOPPED_ENDING, NULL);
}

/*
 * The probes stay inert while they are attached and BEGIN runs (runtime_prepare), as bpftrace
 * runs BEGIN before it attaches the others: nothing our own attach does is traced, BEGIN's
 * lines come first, and every probe starts at once, here, unless BEGIN called exit(). Timers
 * (interval, profile) start over first, so that their first tick is a whole period away.
 */
static void runtime_start_programs(struct rt *rt)
{
	const uint64_t not_started = AOT_STOPPED_NOT_STARTED;
	int err = probe_links_start_timers(&rt->links);

	if (err)
		rt_report(&rt->out, RT_WARN,
			  "could not restart the timers of interval and profile probes: %s; their "
			  "first tick may come early",
			  strerror(-err));
	runtime_set_stopped(rt, 0, &not_started);
}

/*
 * The kernel releases links slowly: a tracepoint link waits for an RCU grace period (60 ms
 * here), a kprobe_multi link for RCU tasks (half a second in the VM), each fentry or single
 * kprobe link for its own, seconds for dozens of them. When there is any link, a grandchild that
 * shares our file descriptors takes the last reference: it waits until we have closed ours (the
 * pipe's end, closed at the very end of the run, or our death) and then exits, so the slow release
 * happens in its exit, while the prompt comes back. The programs are inert already (stopped).
 * Returns the pipe's end for the caller to close last, or -1 (the release happens inline).
 */
static int runtime_release_later(struct rt *rt)
{
	size_t n = rt->links.n + rt->links.nfds + rt_clone_count(rt);
	int fds[2], status;
	pid_t pid;

	if (!n || pipe2(fds, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(fds[1]);
		if (fork() == 0) {
			char c;

			setsid();
			close(STDIN_FILENO);
			close(STDOUT_FILENO);
			close(STDERR_FILENO);
			while (read(fds[0], &c, 1) < 0 && errno == EINTR)
				;
			_exit(0);
		}
		_exit(0);
	}
	close(fds[0]);
	if (pid < 0) {
		close(fds[1]);
		return -1;
	}
	waitpid(pid, &status, 0);
	return fds[1];
}

/*
 * The object's config block (aot_meta.settings) where the command line and the environment
 * gave nothing: bpftrace 0.27 ranks them so.
 */
static void runtime_settings(struct aot_run_opts *o, const struct aot_meta *m)
{
	const uint32_t *set = m->settings;

	if (!o->missing_set && set[AOT_SET_MISSING] &&
	    set[AOT_SET_MISSING] - 1 <= AOT_MISSING_IGNORE)
		o->missing = (enum aot_missing_policy)(set[AOT_SET_MISSING] - 1);
	if (!o->print_maps && set[AOT_SET_PRINT_MAPS] <= 2)
		o->print_maps = (int)set[AOT_SET_PRINT_MAPS];
	if (!o->rb_pages && set[AOT_SET_RB_PAGES] <= AOT_RB_PAGES_MAX)
		o->rb_pages = set[AOT_SET_RB_PAGES];
	if (!o->cat_max && set[AOT_SET_CAT_MAX] <= AOT_CAT_BYTES_MAX)
		o->cat_max = set[AOT_SET_CAT_MAX];
	if (!o->lazy_syms && set[AOT_SET_LAZY_SYMS] <= 2)
		o->lazy_syms = (int)set[AOT_SET_LAZY_SYMS];
	if (!o->trailer)
		o->trailer = m->trailer ? m->trailer : AOT_TRAILER_DEFAULT;
}

/*
 * Each probe copy holds two descriptors (its program and its link): kfunc:* attached a copy
 * per function needs 90 000, past the soft limit of 1024. Raised to the hard limit, and as
 * root to the kernel's most (fs.nr_open).
 */
static void runtime_raise_nofile(void)
{
	struct rlimit rl;
	unsigned long most = 0;
	FILE *f;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	f = fopen("/proc/sys/fs/nr_open", "r");
	if (f) {
		if (fscanf(f, "%lu", &most) != 1)
			most = 0;
		fclose(f);
	}
	if (most > rl.rlim_max) {
		struct rlimit all = { most, most };

		if (!setrlimit(RLIMIT_NOFILE, &all))
			return;
	}
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

int aot_run(const void *elf, size_t size, const struct aot_run_opts *opts)
{
	struct aot_run_opts o = { 0 };
	struct rt rt = {
		.sigfd = -1, .lost_fd = -1, .pid_fd = -1, .child = { .go_fd = -1, .pidfd = -1 }
	};
	struct runtime_exit_sigs exit_sigs = { 0 };
	struct runtime_watch watch = { .stop_fd = -1 };
	sigset_t oldmask;
	int err, status = 1, release_fd, tests = 0;

	memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	if (o.exit_code)
		*o.exit_code = 0;
	if (!o.out)
		o.out = stdout;
	if (!o.obj_name)
		o.obj_name = "<memory>";
	rt.opts = &o;
	runtime_raise_nofile();
	if ((unsigned int)o.format >= sizeof(runtime_outputs) / sizeof(runtime_outputs[0]) ||
	    !runtime_outputs[o.format]) {
		rt_report(NULL, RT_ERROR, "this output format is not implemented yet");
		return 1;
	}
	rt.out = (struct output){ .ops = runtime_outputs[o.format],
				  .f = o.out,
				  .err = stderr,
				  .no_warnings = o.no_warnings };
	if (o.buffering == AOT_BUF_LINE)
		setvbuf(o.out, NULL, _IOLBF, BUFSIZ);
	else if (o.buffering == AOT_BUF_FULL)
		setvbuf(o.out, NULL, _IOFBF, BUFSIZ);
	else if (o.buffering == AOT_BUF_NONE)
		setvbuf(o.out, NULL, _IONBF, 0);
	rt_syms_init(&rt.syms, &rt.out, o.verbose);
	rt.render.syms = &rt.syms;
	/* Before anything loads: a port that is taken fails the run at once. */
	if (rt_metrics_open(&rt))
		return AOT_RUN_USAGE;

	err = runtime_signals_block(&rt, &oldmask);
	if (err) {
		rt_report(&rt.out, RT_ERROR, "could not set up signal handling: %s",
			  strerror(-err));
		rt_metrics_free(&rt);
		return 1;
	}
	runtime_watch_start(&watch, &rt);
	/* -p: checked by the options already; it may have exited since. Without pidfds (before
	 * 5.3) the run does not end with it. */
	if (o.pid) {
		rt.pid_fd = (int)syscall(SYS_pidfd_open, o.pid, 0);
		if (rt.pid_fd < 0 && errno == ESRCH) {
			rt_report(&rt.out, RT_ERROR, "process %d (-p) has exited", o.pid);
			goto out;
		}
	}
	/* -c: forked before the load; it waits on a pipe and execs once the probes are attached. */
	if (o.cmd) {
		err = rt_child_start(&rt.child, o.cmd, &oldmask, &rt.out);
		if (err) {
			rt_report(&rt.out, RT_ERROR, "cannot start %s: %s", o.cmd[0],
				  strerror(-err));
			goto out;
		}
	}
	err = rt_load(&rt, elf, size);
	if (err)
		goto out;
	runtime_settings(&o, rt.meta);
	rt.render.meta = rt.meta;
	rt.render.trailer = o.trailer;
	rt.syms.eager = o.lazy_syms == 1;
	runtime_prepare(&rt);
	err = rt_params_fill(&rt);
	if (err)
		goto out;
	/* The maps exist: scrapes show them (empty while the probes attach) until the loop ends. */
	err = rt_metrics_start(&rt);
	if (err) {
		status = err == -EINVAL ? AOT_RUN_USAGE : 1;
		goto out;
	}
	rt.links.stop = &rt.interrupted;
	if (o.mode == AOT_RUN_TRACE && rt.meta->nprobes &&
	    runtime_only(rt.meta, AOT_PROBE_TEST | AOT_PROBE_BENCH)) {
		bool tests_only = runtime_only(rt.meta, AOT_PROBE_TEST);

		/* As bpftrace 0.27, which says which mode would run them. */
		rt_report(&rt.out, RT_ERROR, "No probes attached; use --%s to run %s probes.",
			  tests_only ? "test" : "bench", tests_only ? "test" : "benchmark");
		status = AOT_RUN_USAGE;
		goto out;
	}
	/* skboutput()'s files: made before anything attaches, as bpftrace makes them */
	if (!o.dry_run) {
		rt.pcap = rt_pcap__new(&rt, &err);
		if (err)
			goto out;
	}
	/* --test and --bench attach nothing: they run BEGIN, their probes and END. */
	err = o.mode == AOT_RUN_TRACE ? rt_attach(&rt) : 0;
	/* As bpftrace 0.27: once they are attached, how many (a wildcard's matches each) */
	if (!err && !o.quiet && !o.dry_run && o.mode == AOT_RUN_TRACE &&
	    !atomic_load(&rt.interrupted))
		rt.out.ops->attached(&rt.out, (unsigned int)rt.nattached);
	if (!err && o.dry_run) {
		status = 0; /* bpftrace's --dry-run: attached, and that is all */
		goto out;
	}
	if (!err)
		err = rt_events_open(&rt);
	if (!err)
		err = rt_run_flagged(&rt, AOT_PROBE_BEGIN);
	if (err)
		goto out;
	runtime_watch_stop(&watch);
	if (rt.exiting) {
		/* Interrupted while attaching: nothing starts, a second signal ends us now. */
		runtime_signals_exiting(&exit_sigs);
	} else {
		runtime_start_programs(&rt);
		rt_child_go(&rt.child);
		/* iter: read to its end (or pinned) once BEGIN has run, which ends the run. */
		if (rt.links.iter) {
			struct probe_err perr = { 0 };

			if (probe_iter_run(&rt.links, o.out, &perr)) {
				rt_report(&rt.out, RT_ERROR, "%s", perr.msg);
				if (perr.hint[0])
					rt_report(&rt.out, RT_HINT, "%s", perr.hint);
			}
			rt.exiting = true;
		}
		/* As bpftrace 0.27: with only BEGIN and END there is nothing to wait for. */
		if (runtime_only(rt.meta, AOT_PROBE_BEGIN | AOT_PROBE_END | AOT_PROBE_TEST |
						  AOT_PROBE_BENCH))
			rt.exiting = true;
	}
	/* BEGIN's output is drained with the first test's, and shown only if that one fails. */
	if (o.mode == AOT_RUN_TEST && !atomic_load(&rt.interrupted))
		tests = rt_run_tests(&rt);
	else if (o.mode == AOT_RUN_BENCH && !atomic_load(&rt.interrupted))
		tests = rt_run_benches(&rt);
	if (o.mode != AOT_RUN_TRACE)
		rt.exiting = true; /* a test's exit() ended that test only */
	err = tests < 0 ? tests : rt_events_loop(&rt);
	runtime_stop_programs(&rt);
	runtime_signals_exiting(&exit_sigs);
	/* No scrape reads the maps while END changes them and they are printed and freed. */
	rt_metrics_stop(&rt);
	if (err)
		rt_report(&rt.out, RT_ERROR, "polling events: %s", strerror(-err));
	/* END and the maps come even after a polling error: the data so far is still worth it. */
	rt.after_exit = false; /* END's output is shown */
	if (!rt_run_flagged(&rt, AOT_PROBE_END))
		rt_events_drain(&rt);
	/* print_maps_on_exit = false: no maps, but the lines around them, as bpftrace 0.27 */
	rt.out.ops->maps_begin(&rt.out);
	if (o.print_maps == 1 || o.mode != AOT_RUN_TRACE)
		; /* --test and --bench print no maps, as bpftrace's */
	else if (!err)
		err = rt_maps_print(&rt);
	else
		rt_maps_print(&rt);
	rt.out.ops->maps_end(&rt.out);
	rt_errors_report(&rt);
	if (err)
		rt_report(&rt.out, RT_ERROR, "%s", strerror(-err));
	status = err ? 1 : 0;
	/* all a process can exit with; --test: 1 when a test failed, as bpftrace */
	if (!err && o.exit_code)
		*o.exit_code = tests > 0 ? 1 : (int)(rt.exit_code & 0xff);
out:
	runtime_watch_stop(&watch);
	rt_child_stop(&rt.child);
	if (rt.pid_fd >= 0)
		close(rt.pid_fd);
	runtime_signals_exiting(&exit_sigs);
	rt_events_close(&rt);
	/* The socket closes before a child of ours could hold it past our exit. */
	rt_metrics_free(&rt);
	release_fd = runtime_release_later(&rt);
	rt_detach(&rt);
	rt_syms_fini(&rt.syms);
	rt_unload(&rt);
	if (release_fd >= 0)
		close(release_fd);
	runtime_signals_restore(&rt, &oldmask);
	runtime_signals_exit_restore(&exit_sigs);
	return status;
}
