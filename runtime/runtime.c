// SPDX-License-Identifier: GPL-2.0
/*
 * aot_run(): the whole life of a run in one short function, each step in its own file: load
 * (loader.c), attach (attach.c), BEGIN, poll events (events.c), END, print maps (maps.c), and
 * tear down so that nothing we loaded stays in the kernel on any path.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "rt.h"

/* Output implementations by format; a missing one is reported, not guessed at. */
static const struct output_ops *const runtime_outputs[] = {
	[AOT_OUT_TEXT] = &output_text_ops,
};

/*
 * Signals become readable on a signalfd instead of running a handler; they stay blocked for
 * the whole run so that a Ctrl-C during load or attach still reaches the teardown.
 */
static int runtime_signals_block(struct rt *rt, sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
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

int aot_run(const void *elf, size_t size, const struct aot_run_opts *opts)
{
	struct aot_run_opts o = {0};
	struct rt rt = {.sigfd = -1};
	sigset_t oldmask;
	int err, status = 1;

	memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	if (!o.out)
		o.out = stdout;
	if (!o.obj_name)
		o.obj_name = "<memory>";
	rt.opts = &o;
	if ((unsigned int)o.format >= sizeof(runtime_outputs) / sizeof(runtime_outputs[0]) ||
	    !runtime_outputs[o.format]) {
		fprintf(stderr, "ERROR: this output format is not implemented yet\n");
		return 1;
	}
	rt.out = (struct output){.ops = runtime_outputs[o.format], .f = o.out, .err = stderr};

	err = runtime_signals_block(&rt, &oldmask);
	if (err) {
		fprintf(stderr, "ERROR: could not set up signal handling: %s\n", strerror(-err));
		return 1;
	}
	err = rt_load(&rt, elf, size);
	if (err)
		goto out;
	if (!o.quiet)
		rt.out.ops->attached(&rt.out, rt.meta->nprobes);
	err = rt_attach(&rt);
	if (!err)
		err = rt_events_open(&rt);
	if (!err)
		err = rt_run_flagged(&rt, AOT_PROBE_BEGIN);
	if (err)
		goto out;
	err = rt_events_loop(&rt);
	if (err)
		fprintf(stderr, "ERROR: polling events: %s\n", strerror(-err));
	/* END and the maps come even after a polling error: the data so far is still worth it. */
	if (!rt_run_flagged(&rt, AOT_PROBE_END))
		rt_events_drain(&rt);
	rt.out.ops->maps_begin(&rt.out);
	if (!err)
		err = rt_maps_print(&rt);
	else
		rt_maps_print(&rt);
	rt.out.ops->maps_end(&rt.out);
	if (err)
		fprintf(stderr, "ERROR: %s\n", strerror(-err));
	status = err ? 1 : 0;
out:
	rt_events_close(&rt);
	rt_detach(&rt);
	rt_unload(&rt);
	runtime_signals_restore(&rt, &oldmask);
	return status;
}
