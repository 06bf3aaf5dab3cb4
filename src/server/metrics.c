/* SPDX-License-Identifier: MIT */
/*
 * The --metrics endpoint: parse an HTTP/1.x request head (RFC 9112 §3),
 * answer GET /metrics with the Prometheus text exposition of the
 * statistics, anything else with an error status. Nothing from the peer
 * is trusted: the head is bounded by METRICS_REQ_MAX, every byte of the
 * request line is checked, and no header is interpreted.
 */
#include "server/metrics.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"

#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* Build a whole response; @body may be NULL for HEAD (length still sent). */
static int http_reply(int code, const char *reason, const char *type,
		      const char *body, size_t blen, bool head, char **reply,
		      size_t *rlen)
{
	char hdr[256];
	size_t send_body = head ? 0 : blen;
	char *r;
	int n;

	n = snprintf(hdr, sizeof(hdr),
		     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
		     "Content-Length: %zu\r\nConnection: close\r\n"
		     "Cache-Control: no-store\r\n\r\n",
		     code, reason, type, blen);
	if (n < 0 || (size_t)n >= sizeof(hdr))
		return -ENOMEM;
	r = malloc((size_t)n + send_body + 1);
	if (!r)
		return -ENOMEM;
	memcpy(r, hdr, (size_t)n);
	if (send_body)
		memcpy(r + n, body, send_body);
	r[(size_t)n + send_body] = '\0';
	*reply = r;
	*rlen = (size_t)n + send_body;
	return 1;
}

static int http_error(int code, const char *reason, char **reply, size_t *rlen)
{
	char body[64];
	int n = snprintf(body, sizeof(body), "%d %s\n", code, reason);

	return http_reply(code, reason, "text/plain; charset=utf-8", body,
			  (size_t)n, false, reply, rlen);
}

/* End of the head (after the blank line), or 0 if not received yet. */
static size_t head_end(const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (buf[i + 1] == '\n')
			return i + 2;
		if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

/* RFC 9110 §5.6.2 tchar, the characters of a method token. */
static bool is_tchar(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* RFC 9112 §3.2 origin-form: visible ASCII, starting with '/'. */
static bool is_target_char(char c)
{
	return c > 0x20 && c < 0x7f;
}

int metrics_http_handle(const char *buf, size_t len, bool full, char **reply,
			size_t *rlen)
{
	size_t i = 0, m_len, t_off, t_len, p_len, end, line;
	struct stats_snapshot *s;
	char *body;
	size_t blen;
	bool head;
	int ret;

	*reply = NULL;
	*rlen = 0;
	/* The request line alone decides a 400 as soon as it is complete. */
	for (line = 0; line < len && buf[line] != '\n'; line++)
		;
	if (line == len) {
		if (full)
			return len >= METRICS_REQ_MAX
				       ? http_error(431,
						    "Request Header Fields "
						    "Too Large",
						    reply, rlen)
				       : http_error(400, "Bad Request", reply,
						    rlen);
		return 0;
	}
	if (line && buf[line - 1] == '\r')
		line--;
	while (i < line && is_tchar(buf[i]))
		i++;
	m_len = i;
	if (!m_len || i >= line || buf[i] != ' ')
		return http_error(400, "Bad Request", reply, rlen);
	t_off = ++i;
	while (i < line && is_target_char(buf[i]))
		i++;
	t_len = i - t_off;
	if (!t_len || i >= line || buf[i] != ' ' || buf[t_off] != '/')
		return http_error(400, "Bad Request", reply, rlen);
	i++;
	if (line - i != 8 || (memcmp(buf + i, "HTTP/1.1", 8) != 0 &&
			      memcmp(buf + i, "HTTP/1.0", 8) != 0))
		return http_error(400, "Bad Request", reply, rlen);

	/* Answer only once the whole head is in, so the peer reads it. */
	end = head_end(buf, len);
	if (!end) {
		if (full)
			return len >= METRICS_REQ_MAX
				       ? http_error(431,
						    "Request Header Fields "
						    "Too Large",
						    reply, rlen)
				       : http_error(400, "Bad Request", reply,
						    rlen);
		return 0;
	}
	head = m_len == 4 && !memcmp(buf, "HEAD", 4);
	if (!head && !(m_len == 3 && !memcmp(buf, "GET", 3)))
		return http_error(405, "Method Not Allowed", reply, rlen);
	for (p_len = 0; p_len < t_len && buf[t_off + p_len] != '?'; p_len++)
		;
	if (p_len != 8 || memcmp(buf + t_off, "/metrics", 8) != 0)
		return http_error(404, "Not Found", reply, rlen);

	ret = stats_snapshot_take(&s);
	if (ret < 0)
		return ret;
	ret = stats_render(s, STATS_PROMETHEUS, &body, &blen);
	stats_snapshot_free(s);
	if (ret < 0)
		return ret;
	ret = http_reply(200, "OK", PROM_CONTENT_TYPE, body, blen, head, reply,
			 rlen);
	free(body);
	return ret;
}
