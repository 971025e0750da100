// SPDX-License-Identifier: GPL-2.0
/*
 * serve: the probes' metrics over HTTP for Prometheus, with libmicrohttpd.
 * GET /metrics answers the counters and histograms of every probe the
 * kernel has (metrics.c), in OpenMetrics if the scraper accepts it, else
 * in the Prometheus text format.  The probes given with -e are placed on
 * their files, for every process, and are serve's own: the kernel
 * removes them when it ends, however it ends.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

#include "cli.h"
#include "listing.h"
#include "metrics.h"
#include "serve.h"

#define OPENMETRICS_TYPE "application/openmetrics-text"

/* A response of @status with the text @body, which @c's request gets */
static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status,
			     const char *type, char *body, size_t len,
			     enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, body, mode);
	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* Each request: GET (or HEAD) /metrics, the only thing served */
static enum MHD_Result answer(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_size, void **state)
{
	static char not_found[] = "uprobe-cli serves /metrics only\n";
	static char no_method[] = "GET /metrics\n";
	const char *accept;
	struct listed *l = NULL;
	enum metrics_syntax syntax;
	char *body = NULL;
	size_t len = 0;
	FILE *f;
	int n;

	(void)cls, (void)version, (void)upload, (void)upload_size, (void)state;
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
			     no_method, strlen(no_method),
			     MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", not_found,
			     strlen(not_found), MHD_RESPMEM_PERSISTENT);
	accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					     MHD_HTTP_HEADER_ACCEPT);
	syntax = accept && strstr(accept, OPENMETRICS_TYPE) ?
		 METRICS_OPENMETRICS : METRICS_TEXT;
	n = read_probes(&l);
	f = open_memstream(&body, &len);
	if (!f) {
		free(l);
		return MHD_NO;
	}
	if (n < 0)
		fprintf(f, "%s\n", listing_errmsg(n));
	else
		metrics_write(f, syntax, l, n);
	free(l);
	if (fclose(f)) {
		free(body);
		return MHD_NO;
	}
	if (n < 0)
		return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain",
			     body, len, MHD_RESPMEM_MUST_FREE);
	return reply(c, MHD_HTTP_OK, syntax == METRICS_OPENMETRICS ?
		     OPENMETRICS_TYPE "; version=1.0.0; charset=utf-8" :
		     "text/plain; version=0.0.4; charset=utf-8",
		     body, len, MHD_RESPMEM_MUST_FREE);
}

/* A scraper silent this long is let go: it cannot hold a connection */
#define SERVE_TIMEOUT_S	10
/*
 * A request must have come in whole this long after its connection
 * opened, or after the answer to the one before: a client that trickles
 * a byte a second is let go all the same.
 */
#define SERVE_DEADLINE_S 5
/*
 * Connections at most: beyond, a new one pushes out the one whose
 * request is the latest, so that a flood of slow clients never keeps a
 * scraper out.  libmicrohttpd refuses beyond its own, higher limit.
 */
#define SERVE_MAX_CONN	256
#define SERVE_MHD_CONN	(2 * SERVE_MAX_CONN)

/*
 * The open connections, by deadline, the earliest first (a circular
 * list): each is let go (its socket shut down, which libmicrohttpd sees
 * and closes it for) once its deadline has passed.  Under conns_lock:
 * libmicrohttpd's thread adds, moves and removes them, serve's own
 * thread lets go of the late ones.
 */
struct conn {
	struct conn *prev, *next;
	int fd;
	double deadline;
};

static pthread_mutex_t conns_lock = PTHREAD_MUTEX_INITIALIZER;
static struct conn conns = { &conns, &conns, -1, 0 };
static int nconns;

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void conn_unlink(struct conn *k)
{
	k->prev->next = k->next;
	k->next->prev = k->prev;
}

/* @k's deadline from now, at the end of the list.  conns_lock held. */
static void conn_renew(struct conn *k)
{
	k->deadline = mono_now() + SERVE_DEADLINE_S;
	k->prev = conns.prev;
	k->next = &conns;
	conns.prev->next = k;
	conns.prev = k;
}

/* Let @k go: libmicrohttpd closes it, and then tells conn_notify() */
static void conn_drop(struct conn *k)
{
	shutdown(k->fd, SHUT_RDWR);
	/* once only: to the end, with no deadline to pass again */
	conn_unlink(k);
	conn_renew(k);
	k->deadline = 1e300;
}

/* Connections opened and closed (libmicrohttpd's thread) */
static void conn_notify(void *cls, struct MHD_Connection *c, void **ctx,
			enum MHD_ConnectionNotificationCode toe)
{
	const union MHD_ConnectionInfo *info;
	struct conn *k = *ctx;

	(void)cls;
	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (!k)
			return;
		pthread_mutex_lock(&conns_lock);
		conn_unlink(k);
		nconns--;
		pthread_mutex_unlock(&conns_lock);
		free(k);
		*ctx = NULL;
		return;
	}
	info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	k = info ? malloc(sizeof(*k)) : NULL;
	if (!k)
		return;
	k->fd = info->connect_fd;
	pthread_mutex_lock(&conns_lock);
	conn_renew(k);
	if (++nconns > SERVE_MAX_CONN && conns.next != k)
		conn_drop(conns.next);
	pthread_mutex_unlock(&conns_lock);
	*ctx = k;
}

/* A request answered: the connection's next one has its own deadline */
static void conn_answered(void *cls, struct MHD_Connection *c, void **req,
			  enum MHD_RequestTerminationCode toe)
{
	const union MHD_ConnectionInfo *info;
	struct conn *k;

	(void)cls;
	(void)req;
	(void)toe;
	info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	k = info ? info->socket_context : NULL;
	if (!k)
		return;
	pthread_mutex_lock(&conns_lock);
	if (k->deadline < 1e300) {
		conn_unlink(k);
		conn_renew(k);
	}
	pthread_mutex_unlock(&conns_lock);
}

/* Let go of the connections whose deadline has passed */
static void conns_sweep(void)
{
	double now = mono_now();

	pthread_mutex_lock(&conns_lock);
	while (conns.next != &conns && conns.next->deadline < now)
		conn_drop(conns.next);
	pthread_mutex_unlock(&conns_lock);
}

/*
 * Start a daemon with @flags on @port (or @sa, if not NULL): epoll, so
 * that no number of clients runs into select()'s limit, and the limits
 * above.
 */
static struct MHD_Daemon *start(unsigned int flags, uint16_t port,
				const struct sockaddr *sa)
{
	flags |= MHD_USE_EPOLL_INTERNAL_THREAD;
	if (sa)
		return MHD_start_daemon(flags, 0, NULL, NULL, answer, NULL,
					MHD_OPTION_SOCK_ADDR, sa,
					MHD_OPTION_CONNECTION_TIMEOUT,
					(unsigned int)SERVE_TIMEOUT_S,
					MHD_OPTION_CONNECTION_LIMIT,
					(unsigned int)SERVE_MHD_CONN,
					MHD_OPTION_NOTIFY_CONNECTION,
					conn_notify, NULL,
					MHD_OPTION_NOTIFY_COMPLETED,
					conn_answered, NULL, MHD_OPTION_END);
	return MHD_start_daemon(flags, port, NULL, NULL, answer, NULL,
				MHD_OPTION_CONNECTION_TIMEOUT,
				(unsigned int)SERVE_TIMEOUT_S,
				MHD_OPTION_CONNECTION_LIMIT,
				(unsigned int)SERVE_MHD_CONN,
				MHD_OPTION_NOTIFY_CONNECTION, conn_notify, NULL,
				MHD_OPTION_NOTIFY_COMPLETED, conn_answered,
				NULL, MHD_OPTION_END);
}

/* Listen on @port of every address: IPv6 and IPv4, or IPv4 alone */
static struct MHD_Daemon *listen_any(uint16_t port)
{
	struct MHD_Daemon *d = start(MHD_USE_DUAL_STACK, port, NULL);

	/* a machine without IPv6 */
	return d ? d : start(0, port, NULL);
}

/*
 * Read @addr, HOST:PORT (HOST a numeric IPv4 or [IPv6] address, or
 * empty for every address, IPv4 and IPv6), into *@ai (NULL for every
 * address, with *@port).  0, or -EINVAL after a message: a command line
 * that cannot run, found before anything is placed.
 */
static int listen_parse(const char *addr, struct addrinfo **ai,
			unsigned short *port)
{
	struct addrinfo hints = {
		.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE,
		.ai_socktype = SOCK_STREAM,
	};
	const char *colon = strrchr(addr, ':'), *h = addr;
	char host[64];
	int len, r;

	len = colon ? (int)(colon - addr) : 0;
	if (len > 1 && addr[0] == '[' && addr[len - 1] == ']') {
		h++;
		len -= 2;
	}
	if (!colon || !colon[1] || len >= (int)sizeof(host))
		return print_error(-EINVAL,
				   "--listen '%s': give HOST:PORT, :PORT or [IPv6]:PORT",
				   addr);
	snprintf(host, sizeof(host), "%.*s", len, h);
	r = getaddrinfo(len ? host : NULL, colon + 1, &hints, ai);
	if (r)
		return print_error(-EINVAL, "--listen '%s': %s", addr,
				   gai_strerror(r));
	*port = ntohs(((struct sockaddr_in *)(*ai)->ai_addr)->sin_port);
	if (!len) {
		freeaddrinfo(*ai);
		*ai = NULL;
	}
	return 0;
}

/*
 * Listen where listen_parse() read @addr to: @ai, or every address on
 * @port if NULL.  The daemon, or NULL after a message.
 */
static struct MHD_Daemon *listen_on(const char *addr, struct addrinfo *ai,
				    unsigned short port)
{
	struct MHD_Daemon *d;

	if (ai)
		d = start(ai->ai_family == AF_INET6 ? MHD_USE_IPv6 : 0, 0,
			  ai->ai_addr);
	else
		d = listen_any(port);
	if (!d)
		print_error(-EADDRNOTAVAIL,
			    "cannot listen on %s (the port in use, or not an address of this machine)",
			    addr);
	return d;
}

/*
 * Place the probes @specs[0..@nspecs) as serve's own; 0, or -errno after
 * a message.
 */
static int place(const char **specs, int nspecs, struct probe **ps, int *n)
{
	int r;

	for (int i = 0; i < nspecs; i++) {
		r = resolve_probes(specs[i], 0, false, ps, n);
		if (r)
			return r;
	}
	r = any_return(*ps, *n) ? need_returns() : 0;
	if (r)
		return r;
	for (int i = 0; i < *n; i++)
		run_name(&(*ps)[i], "serve", i);
	return *n ? place_session_probes(*ps, n, 0) : 0;
}

int cmd_serve(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "event", required_argument, NULL, 'e' },
		{ "trap", no_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	const char **specs = calloc(argc, sizeof(*specs));
	struct addrinfo *ai = NULL;
	unsigned short port = 0;
	const char *addr = NULL;
	struct probe *ps = NULL;
	struct MHD_Daemon *d;
	int c, n = 0, nspecs = 0, ret = 0;
	bool placed;
	sigset_t stop;

	if (!specs)
		return run_error("out of memory");
	jump_ok = true;
	while ((c = getopt_long(argc, argv, "e:l:", opts, NULL)) != -1) {
		if (c == 'e')
			specs[nspecs++] = optarg;
		else if (c == 'l')
			addr = optarg;
		else if (c == 'T')
			jump_ok = false;
		else
			ret = EXIT_USAGE;
		/* one message: the first bad option's */
		if (ret)
			break;
	}
	if (!ret && optind < argc)
		ret = usage_error("serve: '%s': give probes with -e SPEC", argv[optind]);
	if (!ret && !addr)
		ret = usage_error("serve: no address given (--listen HOST:PORT)");
	if (!ret && listen_parse(addr, &ai, &port))
		ret = EXIT_USAGE;
	/* until ^C or SIGTERM, taken by sigwait() alone */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	/* any failure, a spec's unknown suffix too, is EXIT_FAILURE */
	if (!ret && place(specs, nspecs, &ps, &n))
		ret = EXIT_FAILURE;
	placed = !ret;
	free(specs);
	d = ret ? NULL : listen_on(addr, ai, port);
	if (ai)
		freeaddrinfo(ai);
	if (!ret && !d)
		ret = 1;
	if (!ret) {
		fprintf(stderr, "uprobe-cli: serving http://%s/metrics\n", addr);
		/* each second, the late connections go */
		do
			conns_sweep();
		while (sigtimedwait(&stop, NULL,
				    &(struct timespec){ .tv_sec = 1 }) < 0);
		MHD_stop_daemon(d);
	}
	if (placed)
		remove_probes(ps, n);
	free(ps);
	return ret;
}
