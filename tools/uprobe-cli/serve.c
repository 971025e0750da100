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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

/* Listen on @port of every address: IPv6 and IPv4, or IPv4 alone */
static struct MHD_Daemon *listen_any(uint16_t port)
{
	struct MHD_Daemon *d;

	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
			     MHD_USE_DUAL_STACK, port, NULL, NULL, answer,
			     NULL, MHD_OPTION_CONNECTION_TIMEOUT,
			     (unsigned int)SERVE_TIMEOUT_S, MHD_OPTION_END);
	if (d)
		return d;
	/* a machine without IPv6 */
	return MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, port, NULL,
				NULL, answer, NULL,
				MHD_OPTION_CONNECTION_TIMEOUT,
				(unsigned int)SERVE_TIMEOUT_S, MHD_OPTION_END);
}

/*
 * Listen on @addr, HOST:PORT (HOST a numeric IPv4 or [IPv6] address,
 * or empty for every address, IPv4 and IPv6): the daemon, or NULL after
 * a message.
 */
static struct MHD_Daemon *listen_on(const char *addr)
{
	struct addrinfo hints = {
		.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE,
		.ai_socktype = SOCK_STREAM,
	};
	const char *colon = strrchr(addr, ':'), *h = addr;
	struct addrinfo *ai = NULL;
	struct MHD_Daemon *d;
	char host[64];
	int len, r;

	len = colon ? (int)(colon - addr) : 0;
	if (len > 1 && addr[0] == '[' && addr[len - 1] == ']') {
		h++;
		len -= 2;
	}
	if (!colon || !colon[1] || len >= (int)sizeof(host)) {
		die("--listen '%s': give HOST:PORT, :PORT or [IPv6]:PORT", addr);
		return NULL;
	}
	snprintf(host, sizeof(host), "%.*s", len, h);
	r = getaddrinfo(len ? host : NULL, colon + 1, &hints, &ai);
	if (r) {
		die("--listen '%s': %s", addr, gai_strerror(r));
		return NULL;
	}
	if (len)
		d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
				     (ai->ai_family == AF_INET6 ?
				      MHD_USE_IPv6 : 0),
				     0, NULL, NULL, answer, NULL,
				     MHD_OPTION_SOCK_ADDR, ai->ai_addr,
				     MHD_OPTION_CONNECTION_TIMEOUT,
				     (unsigned int)SERVE_TIMEOUT_S,
				     MHD_OPTION_END);
	else
		d = listen_any(ntohs(((struct sockaddr_in *)
				      ai->ai_addr)->sin_port));
	if (!d)
		die("cannot listen on %s (the port in use, or not an address of this machine)",
		    addr);
	freeaddrinfo(ai);
	return d;
}

/* Place the probes @specs[0..@nspecs) as serve's own; 0, or 1 */
static int place(const char **specs, int nspecs, struct probe **ps, int *n)
{
	char **lines;
	int r, bad = 0;

	for (int i = 0; i < nspecs; i++)
		if (resolve_probes(specs[i], 0, false, ps, n))
			return 1;
	if (any_return(*ps, *n) && need_returns())
		return 1;
	for (int i = 0; i < *n; i++)
		run_name(&(*ps)[i], "serve", i);
	if (!*n)
		return 0;
	if (own_probes())
		return 1;
	lines = file_lines(*ps, *n, 0);
	if (!lines)
		return die("out of memory");
	r = place_probes(*ps, lines, *n, &bad);
	lines_free(lines, *n);
	if (r)
		return die("%s (%s:%#lx): %s", (*ps)[bad].name,
			   (*ps)[bad].place.path, (*ps)[bad].place.offset,
			   kernel_errmsg(r));
	return 0;
}

int cmd_serve(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "event", required_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 },
	};
	const char **specs = calloc(argc, sizeof(*specs));
	const char *addr = NULL;
	struct probe *ps = NULL;
	struct MHD_Daemon *d;
	int c, n = 0, nspecs = 0, ret = 0, sig;
	bool placed;
	sigset_t stop;

	if (!specs)
		return die("out of memory");
	while ((c = getopt_long(argc, argv, "e:l:", opts, NULL)) != -1) {
		if (c == 'e')
			specs[nspecs++] = optarg;
		else if (c == 'l')
			addr = optarg;
		else
			ret = 2;
	}
	if (!ret && optind < argc)
		ret = die("serve: '%s': give probes with -e SPEC", argv[optind]);
	if (!ret && !addr)
		ret = die("serve: no address given (--listen HOST:PORT)");
	/* until ^C or SIGTERM, taken by sigwait() alone */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	if (!ret)
		ret = place(specs, nspecs, &ps, &n);
	placed = !ret;
	free(specs);
	d = ret ? NULL : listen_on(addr);
	if (!ret && !d)
		ret = 1;
	if (!ret) {
		fprintf(stderr, "uprobe-cli: serving http://%s/metrics\n", addr);
		while (sigwait(&stop, &sig))
			;
		MHD_stop_daemon(d);
	}
	if (placed)
		remove_probes(ps, n);
	free(ps);
	return ret;
}
