// SPDX-License-Identifier: GPL-2.0
/*
 * --metrics ADDR:PORT: the maps as Prometheus metrics over HTTP while the program runs. One
 * thread of ours drives libmicrohttpd (its epoll fd and a stop eventfd in one poll) and answers
 * GET /metrics with every map read and folded as the printer reads them (maps.c), formatted by
 * output_metrics.c; the event loop never waits for a scrape. The bounds are ours to keep: a
 * request of at most 16 KiB, a fixed number of connections, each ended after METRICS_TIMEOUT_S,
 * and a series limit per map.
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <microhttpd.h>

#include "rt.h"

#define METRICS_PATH "/metrics"
/* Connections served at once; up to as many more are answered 503 at once, the rest wait. */
#define METRICS_CONNS 8
#define METRICS_CONNS_MAX (2 * METRICS_CONNS)
/* Bytes libmicrohttpd may use per connection: the request line and headers fit in half. */
#define METRICS_CONN_MEMORY 16384
/* Seconds a connection may last, from accept to the response's last byte (Prometheus's own
 * default scrape timeout). Every response closes its connection, so this is per request. */
#define METRICS_TIMEOUT_S 10
/* Probes a HELP line names before "and N more". */
#define METRICS_HELP_PROBES 4

/*
 * libmicrohttpd is opened with dlopen when --metrics is given: it brings GnuTLS and eight more
 * libraries, whose loading costs every other run 2.5 MB of RSS (aotrace-run: 6.0 -> 8.5 MB).
 */
#define METRICS_LIB "libmicrohttpd.so.12"
/* clang-format off */
#define METRICS_API(X) \
	X(MHD_start_daemon) \
	X(MHD_stop_daemon) \
	X(MHD_run) \
	X(MHD_get_timeout) \
	X(MHD_get_daemon_info) \
	X(MHD_get_connection_info) \
	X(MHD_lookup_connection_value) \
	X(MHD_create_response_from_buffer) \
	X(MHD_add_response_header) \
	X(MHD_queue_response) \
	X(MHD_destroy_response)
/* clang-format on */

struct metrics_api {
	void *lib;
#define METRICS_API_PTR(f) __typeof__(&f) f;
	METRICS_API(METRICS_API_PTR)
#undef METRICS_API_PTR
};

/* A connection we watch for its deadline. */
struct metrics_conn {
	struct MHD_Connection *c; /* NULL: a free slot */
	int fd;
	uint64_t deadline_ns;
	bool excess;   /* beyond METRICS_CONNS: answered 503 */
	bool answered; /* a response is queued: no status line of ours may be written any more */
	bool ended;    /* shut down by us; libmicrohttpd closes it on its next run */
};

struct rt_metrics {
	struct rt *rt;
	struct metrics_api api;
	int listen_fd;
	char url[INET6_ADDRSTRLEN + 32];
	struct MHD_Daemon *d;
	pthread_t thread;
	bool running;
	int stop_fd;	      /* eventfd: written to end the thread */
	atomic_bool stopping; /* a scrape in progress gives up */
	uint64_t max_series;
	/* Per map of the metadata; type NONE: not served. order: the maps in name order. */
	struct output_metrics_family *fams;
	uint32_t *order;
	atomic_bool *capped; /* the series limit was reported for this map */
	struct metrics_conn conns[METRICS_CONNS_MAX];
};

static uint64_t metrics_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int rt_metrics_parse_addr(const char *s, struct sockaddr_storage *ss, unsigned int *len, char *err,
			  size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV };
	struct addrinfo *ai = NULL;
	const char *colon = strrchr(s, ':'), *port;
	char host[INET6_ADDRSTRLEN + 2];
	size_t hlen;
	char *end;
	long p;

	if (!colon || colon == s) {
		snprintf(err, errlen,
			 "expected ADDRESS:PORT (127.0.0.1:9448, [::1]:9448, or "
			 "0.0.0.0:9448 for every interface)");
		return -EINVAL;
	}
	port = colon + 1;
	errno = 0;
	p = strtol(port, &end, 10);
	if (!*port || *end || errno || p < 0 || p > 65535) {
		snprintf(err, errlen, "'%s' is not a port number (0 to 65535)", port);
		return -EINVAL;
	}
	hlen = (size_t)(colon - s);
	if (s[0] == '[') {
		if (hlen < 3 || s[hlen - 1] != ']') {
			snprintf(err, errlen, "an IPv6 address goes in brackets: [::1]:9448");
			return -EINVAL;
		}
		s++;
		hlen -= 2;
	}
	if (hlen >= sizeof(host)) {
		snprintf(err, errlen, "'%.*s' is not a numeric IP address", (int)hlen, s);
		return -EINVAL;
	}
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	if (getaddrinfo(host, port, &hints, &ai) || !ai) {
		snprintf(err, errlen,
			 "'%s' is not a numeric IP address (names are not resolved: the server "
			 "listens only where it is told)",
			 host);
		return -EINVAL;
	}
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

/* The listening socket, made before the object loads so a taken port fails the run at once. */
static int metrics_listen(struct rt_metrics *m, const char *addr)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char err[160], host[INET6_ADDRSTRLEN];
	int one = 1, fd, port;

	if (rt_metrics_parse_addr(addr, &ss, &len, err, sizeof(err))) {
		rt_report(&m->rt->out, RT_ERROR, "--metrics %s: %s", addr, err);
		return -EINVAL;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		goto fail;
	/* A restarted run must not wait for the last one's connections in TIME_WAIT. */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* [::] means IPv6's addresses, not IPv4's too: only where it is told. */
	if (ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, METRICS_CONNS_MAX) ||
	    getsockname(fd, (struct sockaddr *)&ss, &len))
		goto fail;
	if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
		port = ntohs(a->sin6_port);
		snprintf(m->url, sizeof(m->url), "http://[%s]:%d%s", host, port, METRICS_PATH);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
		port = ntohs(a->sin_port);
		snprintf(m->url, sizeof(m->url), "http://%s:%d%s", host, port, METRICS_PATH);
	}
	m->listen_fd = fd;
	return 0;
fail:
	port = -errno;
	rt_report(&m->rt->out, RT_ERROR, "--metrics %s: cannot listen there: %s", addr,
		  strerror(-port));
	if (fd >= 0)
		close(fd);
	return port;
}

static int metrics_api_load(struct metrics_api *api, const struct output *out)
{
	api->lib = dlopen(METRICS_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!api->lib) {
		rt_report(out, RT_ERROR, "--metrics needs libmicrohttpd: %s", dlerror());
		rt_report(out, RT_HINT, "apt install libmicrohttpd12");
		return -ENOENT;
	}
#define METRICS_API_LOAD(f)                                                                        \
	api->f = (__typeof__(&f))dlsym(api->lib, #f);                                              \
	if (!api->f) {                                                                             \
		rt_report(out, RT_ERROR, "--metrics: %s has no %s", METRICS_LIB, #f);              \
		dlclose(api->lib);                                                                 \
		api->lib = NULL;                                                                   \
		return -ENOENT;                                                                    \
	}
	METRICS_API(METRICS_API_LOAD)
#undef METRICS_API_LOAD
	return 0;
}

int rt_metrics_open(struct rt *rt)
{
	struct rt_metrics *m;
	int err;

	if (!rt->opts->metrics_addr)
		return 0;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	*m = (struct rt_metrics){ .rt = rt, .listen_fd = -1, .stop_fd = -1 };
	m->max_series = rt->opts->metrics_max_series ? rt->opts->metrics_max_series
						     : AOT_METRICS_SERIES_DEFAULT;
	err = metrics_api_load(&m->api, &rt->out) ?: metrics_listen(m, rt->opts->metrics_addr);
	if (err) {
		if (m->api.lib)
			dlclose(m->api.lib);
		free(m);
		return err;
	}
	rt->metrics = m;
	return 0;
}

/* Whether the program's relocated instructions load the map whose fd is fd (ld_imm64). */
static bool metrics_prog_uses(const struct bpf_program *prog, int fd)
{
	const struct bpf_insn *insn = bpf_program__insns(prog);
	size_t n = bpf_program__insn_cnt(prog);

	for (size_t i = 0; insn && i + 1 < n; i++) {
		if (insn[i].code != (BPF_LD | BPF_IMM | BPF_DW))
			continue;
		if ((insn[i].src_reg == BPF_PSEUDO_MAP_FD ||
		     insn[i].src_reg == BPF_PSEUDO_MAP_VALUE) &&
		    insn[i].imm == fd)
			return true;
		i++; /* the second half of the instruction */
	}
	return false;
}

/*
 * "@syscalls: count() in tracepoint:raw_syscalls:sys_enter": the map, its aggregation and the
 * probes whose programs use it, as loaded here (the instructions libbpf relocated name the
 * maps by fd).
 */
static char *metrics_help(struct rt *rt, const struct aot_map *map)
{
	const struct bpf_map *bm = bpf_object__find_map_by_name(rt->obj, map->elf_name);
	struct rt_buf b = { 0 };
	uint32_t n = 0;
	int fd = bm ? bpf_map__fd(bm) : -1;

	rt_buf_printf(&b, "%s", map->name);
	if (map->agg != AOT_AGG_NONE)
		rt_buf_printf(&b, ": %s()", aot_agg_name(map->agg));
	for (uint32_t i = 0; fd >= 0 && i < rt->meta->nprobes; i++) {
		const struct aot_probe *p = &rt->meta->probes[i];
		const struct probe_plan *pp = &rt->plan.v[i];
		const struct bpf_program *prog;

		/* An alias runs its group's template: that is the program libbpf relocated. */
		prog = pp->strategy == PROBE_CLONE || pp->strategy == PROBE_TRACING_MULTI
			       ? rt_clone_template(rt, i)
			       : pp->prog;
		if (pp->strategy == PROBE_MISSING || !prog || bpf_program__fd(prog) < 0 ||
		    !metrics_prog_uses(prog, fd))
			continue;
		if (n < METRICS_HELP_PROBES)
			rt_buf_printf(&b, "%s%s", n ? ", " : " in ", p->name ? p->name : p->prog);
		n++;
	}
	if (n > METRICS_HELP_PROBES)
		rt_buf_printf(&b, " and %u more probes", n - METRICS_HELP_PROBES);
	if (b.oom) {
		rt_buf_free(&b);
		return NULL;
	}
	return b.s;
}

static int metrics_cmp_order(const void *a, const void *b, void *ctx)
{
	const struct aot_meta *m = ctx;

	return strcmp(m->maps[*(const uint32_t *)a].name, m->maps[*(const uint32_t *)b].name);
}

/* Whether two families would write a sample of the same name. */
static bool metrics_clash(const struct output_metrics_family *a,
			  const struct output_metrics_family *b)
{
	static const char *const suffixes[][4] = {
		[OUTPUT_METRIC_COUNTER] = { "_total" },
		[OUTPUT_METRIC_GAUGE] = { "" },
		[OUTPUT_METRIC_HISTOGRAM] = { "_bucket", "_sum", "_count" },
	};
	char x[512], y[512];

	for (int i = 0; i < 4 && suffixes[a->type][i]; i++) {
		snprintf(x, sizeof(x), "%s%s", a->name, suffixes[a->type][i]);
		for (int j = 0; j < 4 && suffixes[b->type][j]; j++) {
			snprintf(y, sizeof(y), "%s%s", b->name, suffixes[b->type][j]);
			if (!strcmp(x, y))
				return true;
		}
	}
	return !strcmp(a->name, b->name);
}

/* Whether map is one of --metrics-maps (a comma-separated list); every map without the option. */
static bool metrics_listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	if (!list)
		return true;
	for (const char *p = list; *p; p += strcspn(p, ","), p += *p == ',') {
		size_t len = strcspn(p, ",");

		if (len == n && !memcmp(p, name, n))
			return true;
	}
	return false;
}

/* Each name --metrics-maps gives must be a map of numbers of the program. 0 or -EINVAL. */
static int metrics_check_list(const struct rt *rt, const char *list)
{
	struct rt_buf name = { 0 };
	int err = 0;

	for (const char *p = list; p && *p && !err; p += strcspn(p, ","), p += *p == ',') {
		uint32_t i;

		rt_buf_reset(&name);
		rt_buf_add(&name, p, strcspn(p, ","));
		for (i = 0; i < rt->meta->nmaps; i++)
			if (name.s && !strcmp(rt->meta->maps[i].name, name.s))
				break;
		if (i == rt->meta->nmaps) {
			rt_report(&rt->out, RT_ERROR, "--metrics-maps: the program has no map '%s'",
				  name.s ? name.s : "");
			err = -EINVAL;
		} else if (output_metrics_type(&rt->meta->maps[i]) == OUTPUT_METRIC_NONE) {
			rt_report(
				&rt->out, RT_ERROR,
				"--metrics-maps: the values of %s are not numbers: it cannot be a "
				"metric",
				name.s);
			err = -EINVAL;
		}
	}
	rt_buf_free(&name);
	return err;
}

/*
 * Decides each map's family once: its name, type and HELP text. Maps whose values are not
 * numbers, not listed by --metrics-maps, that cannot be read, or whose name another map's
 * family already took are left out (the last two with a warning, here).
 */
static int metrics_families(struct rt_metrics *m)
{
	struct rt *rt = m->rt;
	const struct aot_meta *meta = rt->meta;
	const char *prefix =
		rt->opts->metrics_prefix ? rt->opts->metrics_prefix : AOT_METRICS_PREFIX_DEFAULT;
	uint32_t n = meta->nmaps, i, j;

	if (metrics_check_list(rt, rt->opts->metrics_maps))
		return -EINVAL;
	m->fams = calloc(n ? n : 1, sizeof(*m->fams));
	m->order = calloc(n ? n : 1, sizeof(*m->order));
	m->capped = calloc(n ? n : 1, sizeof(*m->capped));
	if (!m->fams || !m->order || !m->capped)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		m->order[i] = i;
	qsort_r(m->order, n, sizeof(*m->order), metrics_cmp_order, (void *)meta);
	for (i = 0; i < n; i++) {
		uint32_t k = m->order[i];
		const struct aot_map *map = &meta->maps[k];
		struct output_metrics_family *f = &m->fams[k];
		struct rt_map_read r;
		struct rt_buf name = { 0 };

		f->type = output_metrics_type(map);
		if (f->type == OUTPUT_METRIC_NONE ||
		    !metrics_listed(rt->opts->metrics_maps, map->name)) {
			f->type = OUTPUT_METRIC_NONE;
			continue;
		}
		/* Readable at all? Warned about once, here, not at every scrape. */
		if (rt_maps_read(rt, map, true, &r)) {
			f->type = OUTPUT_METRIC_NONE;
			continue;
		}
		rt_maps_read_free(&r);
		output_metrics_name(&name, prefix, map);
		f->name = name.s;
		f->help = metrics_help(rt, map);
		if (!f->name || !f->help)
			return -ENOMEM;
		for (j = 0; j < i; j++) {
			const struct output_metrics_family *g = &m->fams[m->order[j]];

			if (g->type == OUTPUT_METRIC_NONE || !metrics_clash(f, g))
				continue;
			rt_report(&rt->out, RT_WARN,
				  "metrics: %s would be %s, as %s is: it is not served", map->name,
				  f->name, meta->maps[m->order[j]].name);
			f->type = OUTPUT_METRIC_NONE;
			break;
		}
	}
	return 0;
}

/* One scrape: every served map, read now. 0, -ECANCELED if the run is ending, or -ENOMEM. */
static int metrics_scrape(struct rt_metrics *m, bool openmetrics, struct rt_buf *b)
{
	struct output_metrics o = { .openmetrics = openmetrics, .max_series = m->max_series };
	struct rt *rt = m->rt;
	int err = 0;

	for (uint32_t i = 0; i < rt->meta->nmaps && !err; i++) {
		uint32_t k = m->order[i];
		const struct aot_map *map = &rt->meta->maps[k];
		const struct output_metrics_family *f = &m->fams[k];
		struct output_map om;
		struct rt_map_read r;
		size_t left;

		if (f->type == OUTPUT_METRIC_NONE)
			continue;
		if (atomic_load(&m->stopping))
			return -ECANCELED;
		err = rt_maps_read(rt, map, false, &r);
		if (err == -ENOENT) {
			err = 0;
			continue;
		}
		if (err)
			break;
		om = (struct output_map){ .r = &rt->render,
					  .map = map,
					  .entries = r.ents,
					  .n = r.n,
					  .val_signed = r.val_signed,
					  .div = 1,
					  .has_sum = r.has_sum };
		left = output_metrics_map(b, &o, f, &om);
		if (left && !atomic_exchange(&m->capped[k], true))
			rt_report(&rt->out, RT_WARN,
				  "metrics: %s has more series than --metrics-max-series %llu: "
				  "%zu of its %zu keys, those with the smallest values, are left "
				  "out of the scrapes",
				  map->name, (unsigned long long)m->max_series, left, r.n);
		rt_maps_read_free(&r);
	}
	output_metrics_end(b, &o);
	return err ? err : b->oom ? -ENOMEM : 0;
}

/* q of one Accept media range ("type/sub;version=x;q=0.5"); -1 if it does not name what we
 * have: OpenMetrics 1.0 (om) or the text format 0.0.4. */
static double metrics_accept_q(const char *range, size_t len, bool om)
{
	char buf[256], *save = NULL, *tok, *type;
	double q = 1;

	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, range, len);
	buf[len] = '\0';
	type = strtok_r(buf, ";", &save);
	if (!type)
		return -1;
	type += strspn(type, " \t");
	type[strcspn(type, " \t")] = '\0';
	if (strcasecmp(type, om ? "application/openmetrics-text" : "text/plain") &&
	    (om || (strcasecmp(type, "text/*") && strcmp(type, "*/*"))))
		return -1;
	while ((tok = strtok_r(NULL, ";", &save))) {
		tok += strspn(tok, " \t");
		if (!strncasecmp(tok, "q=", 2))
			q = strtod(tok + 2, NULL);
		else if (!strncasecmp(tok, "version=", 8) &&
			 strncmp(tok + 8, om ? "1.0.0" : "0.0.4", 5) &&
			 !(om && !strncmp(tok + 8, "0.0.1", 5)))
			return -1;
	}
	return q;
}

/*
 * Whether the Accept header asks for OpenMetrics at least as much as for the text format.
 * Prometheus asks for OpenMetrics 1.0.0 first; a scraper that says nothing gets text.
 */
static bool metrics_wants_openmetrics(const char *accept)
{
	double om = -1, text = -1;

	while (accept && *accept) {
		size_t len = strcspn(accept, ",");
		double q;

		q = metrics_accept_q(accept, len, true);
		om = q > om ? q : om;
		q = metrics_accept_q(accept, len, false);
		text = q > text ? q : text;
		accept += len + (accept[len] == ',');
	}
	return om > 0 && om >= text;
}

static struct metrics_conn *metrics_conn_of(struct rt_metrics *m, struct MHD_Connection *c)
{
	for (size_t i = 0; i < METRICS_CONNS_MAX; i++)
		if (m->conns[i].c == c)
			return &m->conns[i];
	return NULL;
}

static enum MHD_Result metrics_respond(const struct metrics_api *api, struct MHD_Connection *c,
				       unsigned int status, const char *type, char *body,
				       size_t len, const char *allow)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	resp = api->MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(body);
		return MHD_NO;
	}
	api->MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	/* One request per connection: the deadline then bounds each request. */
	api->MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	if (allow)
		api->MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
	ret = api->MHD_queue_response(c, status, resp);
	api->MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result metrics_error(const struct metrics_api *api, struct MHD_Connection *c,
				     unsigned int status, const char *msg, const char *allow)
{
	char *body = strdup(msg);

	return body ? metrics_respond(api, c, status, "text/plain; charset=utf-8", body,
				      strlen(body), allow)
		    : MHD_NO;
}

static enum MHD_Result metrics_answer(void *cls, struct MHD_Connection *c, const char *url,
				      const char *method, const char *version,
				      const char *upload_data, size_t *upload_size, void **req_cls)
{
	struct rt_metrics *m = cls;
	struct metrics_conn *mc = metrics_conn_of(m, c);
	struct rt_buf b = { 0 };
	bool om;
	int err;

	(void)version;
	(void)upload_data;
	(void)upload_size;
	(void)req_cls;
	if (mc)
		mc->answered = true;
	/* Beyond METRICS_CONNS: whether its request came whole (here) or not (metrics_reap). */
	if (mc && mc->excess)
		return metrics_error(&m->api, c, MHD_HTTP_SERVICE_UNAVAILABLE,
				     "too many connections: try again\n", NULL);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return metrics_error(&m->api, c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n",
				     "GET, HEAD");
	if (strcmp(url, METRICS_PATH))
		return metrics_error(&m->api, c, MHD_HTTP_NOT_FOUND,
				     "not found: the metrics are at " METRICS_PATH "\n", NULL);
	om = metrics_wants_openmetrics(
		m->api.MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT));
	err = metrics_scrape(m, om, &b);
	if (err) {
		rt_buf_free(&b);
		return metrics_error(
			&m->api, c,
			err == -ECANCELED ? MHD_HTTP_SERVICE_UNAVAILABLE
					  : MHD_HTTP_INTERNAL_SERVER_ERROR,
			err == -ECANCELED ? "the program is ending\n" : "out of memory\n", NULL);
	}
	return metrics_respond(&m->api, c, MHD_HTTP_OK,
			       om ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
				  : "text/plain; version=0.0.4; charset=utf-8",
			       b.s ? b.s : strdup(""), b.len, NULL);
}

/* Connections start and end inside MHD_run, in our thread: the table needs no lock. */
static void metrics_notify(void *cls, struct MHD_Connection *c, void **socket_ctx,
			   enum MHD_ConnectionNotificationCode toe)
{
	struct rt_metrics *m = cls;
	struct metrics_conn *mc = *socket_ctx;
	const union MHD_ConnectionInfo *ci;
	size_t i, live = 0;

	if (toe != MHD_CONNECTION_NOTIFY_STARTED) {
		if (mc)
			memset(mc, 0, sizeof(*mc));
		*socket_ctx = NULL;
		return;
	}
	/* Connections we ended and libmicrohttpd has not closed yet take no place. */
	for (i = 0; i < METRICS_CONNS_MAX; i++)
		live += m->conns[i].c && !m->conns[i].excess && !m->conns[i].ended;
	ci = m->api.MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	for (i = 0; ci && i < METRICS_CONNS_MAX; i++) {
		if (m->conns[i].c)
			continue;
		m->conns[i] = (struct metrics_conn){
			.c = c,
			.fd = ci->connect_fd,
			.deadline_ns = metrics_now_ns() + METRICS_TIMEOUT_S * 1000000000ull,
			.excess = live >= METRICS_CONNS,
		};
		*socket_ctx = &m->conns[i];
		break;
	}
}

/*
 * Ends what overstays: a connection past its deadline (408 if its request never came whole)
 * and one beyond METRICS_CONNS (503). The status line is written here only while libmicrohttpd
 * has queued nothing on it; shutting the socket down makes its next run close the connection.
 * Returns the milliseconds until the next deadline, or -1.
 */
static int metrics_reap(struct rt_metrics *m)
{
	static const char timeout[] = "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n"
				      "Content-Length: 0\r\n\r\n";
	static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n"
				   "Retry-After: 1\r\nContent-Length: 0\r\n\r\n";
	uint64_t now = metrics_now_ns(), next = UINT64_MAX;

	for (size_t i = 0; i < METRICS_CONNS_MAX; i++) {
		struct metrics_conn *mc = &m->conns[i];
		const char *msg;

		if (!mc->c || mc->ended)
			continue;
		if (!mc->excess && now < mc->deadline_ns) {
			next = mc->deadline_ns < next ? mc->deadline_ns : next;
			continue;
		}
		msg = mc->excess ? busy : timeout;
		/* Best effort: a peer gone or not reading gets the shutdown alone. */
		if (!mc->answered)
			(void)send(mc->fd, msg, strlen(msg), MSG_NOSIGNAL | MSG_DONTWAIT);
		shutdown(mc->fd, SHUT_RDWR);
		mc->ended = true;
	}
	if (next == UINT64_MAX)
		return -1;
	return (int)((next - now) / 1000000 + 1);
}

static void *metrics_main(void *arg)
{
	struct rt_metrics *m = arg;
	const union MHD_DaemonInfo *di = m->api.MHD_get_daemon_info(m->d, MHD_DAEMON_INFO_EPOLL_FD);
	struct pollfd fds[2] = { { .fd = di ? di->epoll_fd : -1, .events = POLLIN },
				 { .fd = m->stop_fd, .events = POLLIN } };

	for (;;) {
		MHD_UNSIGNED_LONG_LONG to;
		int timeout = metrics_reap(m);

		if (m->api.MHD_get_timeout(m->d, &to) == MHD_YES &&
		    (timeout < 0 || to < (MHD_UNSIGNED_LONG_LONG)timeout))
			timeout = to > INT_MAX ? INT_MAX : (int)to;
		if (poll(fds, 2, timeout) < 0 && errno != EINTR)
			break;
		if (fds[1].revents)
			break;
		m->api.MHD_run(m->d);
	}
	return NULL;
}

/* libmicrohttpd's own messages: with -v only (a client that hangs up is not news). */
static void metrics_log(void *cls, const char *fmt, va_list ap)
{
	struct rt_metrics *m = cls;

	struct rt_buf b = { 0 };

	if (!m->rt->opts->verbose)
		return;
	rt_buf_add(&b, "metrics: ", 9);
	rt_buf_vprintf(&b, fmt, ap);
	if (b.s)
		rt_report(&m->rt->out, RT_TEXT, "%s", b.s);
	rt_buf_free(&b);
}

int rt_metrics_start(struct rt *rt)
{
	struct rt_metrics *m = rt->metrics;
	int err;

	if (!m)
		return 0;
	err = metrics_families(m);
	if (err)
		return err;
	m->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (m->stop_fd < 0)
		return -errno;
	m->d = m->api.MHD_start_daemon(
		MHD_USE_EPOLL | MHD_USE_ERROR_LOG, 0, NULL, NULL, metrics_answer, m,
		MHD_OPTION_LISTEN_SOCKET, m->listen_fd, MHD_OPTION_CONNECTION_LIMIT,
		(unsigned int)METRICS_CONNS_MAX, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		(size_t)METRICS_CONN_MEMORY,
		/* Only a backstop: metrics_reap ends a connection first, with its 408. */
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)METRICS_TIMEOUT_S + 2,
		MHD_OPTION_NOTIFY_CONNECTION, metrics_notify, m, MHD_OPTION_EXTERNAL_LOGGER,
		metrics_log, m, MHD_OPTION_END);
	if (!m->d) {
		rt_report(&rt->out, RT_ERROR, "--metrics: cannot start the HTTP server");
		return -EIO;
	}
	/* libmicrohttpd closes it when it stops. */
	m->listen_fd = -1;
	/* The thread inherits the blocked SIGINT/SIGTERM/SIGHUP: signals stay the event loop's. */
	err = pthread_create(&m->thread, NULL, metrics_main, m);
	if (err)
		return -err;
	m->running = true;
	rt_report(&rt->out, RT_TEXT, "Serving metrics on %s\n", m->url);
	return 0;
}

void rt_metrics_stop(struct rt *rt)
{
	struct rt_metrics *m = rt->metrics;
	uint64_t one = 1;

	if (!m)
		return;
	atomic_store(&m->stopping, true);
	if (m->running) {
		if (write(m->stop_fd, &one, sizeof(one)) == sizeof(one))
			pthread_join(m->thread, NULL);
		m->running = false;
	}
	if (m->d) {
		m->api.MHD_stop_daemon(m->d);
		m->d = NULL;
	}
	if (m->listen_fd >= 0) {
		close(m->listen_fd);
		m->listen_fd = -1;
	}
}

void rt_metrics_free(struct rt *rt)
{
	struct rt_metrics *m = rt->metrics;

	if (!m)
		return;
	rt_metrics_stop(rt);
	if (m->stop_fd >= 0)
		close(m->stop_fd);
	for (uint32_t i = 0; m->fams && i < rt->meta->nmaps; i++) {
		free(m->fams[i].name);
		free(m->fams[i].help);
	}
	free(m->fams);
	free(m->order);
	free((void *)m->capped);
	if (m->api.lib)
		dlclose(m->api.lib);
	free(m);
	rt->metrics = NULL;
}
