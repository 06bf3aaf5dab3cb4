/* SPDX-License-Identifier: MIT */
#ifndef NASD_SERVER_METRICS_H
#define NASD_SERVER_METRICS_H

/*
 * The --metrics HTTP endpoint's request handling (RFC 9112 message
 * syntax, just enough of it): GET or HEAD of /metrics answers the
 * statistics in the Prometheus text format; every reply closes the
 * connection. The sockets are driven by control.c.
 */

#include <stdbool.h>
#include <stddef.h>

#define METRICS_REQ_MAX 8192 /* request line + headers, bytes */

/*
 * metrics_http_handle() - look at the first @len bytes received of a
 * request; @full says the receive buffer (METRICS_REQ_MAX) is full or the
 * peer finished sending. Returns 0 when the head is incomplete and more
 * may come; 1 with a complete HTTP/1.1 response in *@reply (owned by the
 * caller, free()) of *@rlen bytes: 200 for GET/HEAD /metrics (query
 * ignored), 404 for another path, 405 for another method, 400 for a
 * malformed request, 431 for a head that does not fit; -ENOMEM.
 */
int metrics_http_handle(const char *buf, size_t len, bool full, char **reply,
			size_t *rlen);

#endif
