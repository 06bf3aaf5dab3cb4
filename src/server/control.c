/* SPDX-License-Identifier: MIT */
/*
 * The control socket and the --metrics HTTP listener: one thread, poll(2),
 * a handful of clients at a time, each with a deadline (control.h), plus
 * the `nasd stats` client that talks to the control socket.
 */
#include "server/control.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "core/stats.h"
#include "server/metrics.h"
#include "transport/transport.h"

#define LINGER_MS 1000 /* reading what the peer still sends after a reply */

enum client_kind {
	CK_CONTROL,
	CK_HTTP,
};

enum client_state {
	CS_FREE,
	CS_READ,
	CS_WRITE,
	CS_LINGER, /* reply sent, write side shut; drain until EOF */
};

struct ctl_client {
	enum client_state state;
	enum client_kind kind;
	int fd;
	uint64_t deadline; /* monotonic ms */
	size_t in_len;
	char *out; /* the whole reply, malloc'd */
	size_t out_len;
	size_t out_off;
	char in[METRICS_REQ_MAX + 1]; /* + a NUL after what was received */
};

static struct {
	int ctl_fd;
	int http_fd;
	int wake_fd;
	bool running;
	bool sock_made;
	dev_t sock_dev;
	ino_t sock_ino;
	pthread_t thread;
	char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct ctl_client clients[CONTROL_MAX_CLIENTS];
} ctl = {
	.ctl_fd = -1,
	.http_fd = -1,
	.wake_fd = -1,
};

static uint64_t now_ms(void)
{
	return stats_clock_ns() / 1000000u;
}

/* Is someone answering on the unix socket at @sa? */
static bool sock_alive(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	bool alive;

	if (fd < 0)
		return false;
	alive = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0 ||
		errno == EAGAIN || errno == EINPROGRESS;
	close(fd);
	return alive;
}

/* Bind @sa with mode 0600 (umask is process-wide: start-up only). */
static int bind_private(int fd, const struct sockaddr_un *sa)
{
	mode_t old = umask(0177);
	int ret = bind(fd, (const struct sockaddr *)sa, sizeof(*sa));
	int err = errno;

	umask(old);
	return ret < 0 ? -err : 0;
}

static int open_control_sock(const char *state_dir)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct stat st;
	int fd, n, ret;

	n = snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", state_dir,
		     CONTROL_SOCK_NAME);
	if (n < 0 || (size_t)n >= sizeof(sa.sun_path)) {
		log_warn("control socket: %s/%s is too long for a unix "
			 "socket; `nasd stats` will not work",
			 state_dir, CONTROL_SOCK_NAME);
		return 0;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	ret = bind_private(fd, &sa);
	if (ret == -EADDRINUSE) {
		if (sock_alive(&sa)) {
			log_warn("control socket %s: another nasd answers "
				 "there; none for this one",
				 sa.sun_path);
			close(fd);
			return 0;
		}
		/* Left by a server that was killed: ours now. */
		unlink(sa.sun_path);
		ret = bind_private(fd, &sa);
	}
	if (ret < 0)
		goto out_close;
	if (chmod(sa.sun_path, 0600) < 0 || stat(sa.sun_path, &st) < 0 ||
	    listen(fd, 16) < 0) {
		ret = -errno;
		unlink(sa.sun_path);
		goto out_close;
	}
	memcpy(ctl.sock_path, sa.sun_path, sizeof(ctl.sock_path));
	ctl.sock_dev = st.st_dev;
	ctl.sock_ino = st.st_ino;
	ctl.sock_made = true;
	ctl.ctl_fd = fd;
	log_info("control socket %s", sa.sun_path);
	return 0;

out_close:
	close(fd);
	log_warn("control socket %s: %s; `nasd stats` will not work",
		 sa.sun_path, strerror(-ret));
	return 0;
}

static int open_http(const char *spec, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	unsigned int port = 0;
	socklen_t len;
	int fd, one = 1, ret;

	ret = transport_parse_addr(spec, 0, &ss, &len);
	if (ret < 0) {
		(void)snprintf(err, errlen, "--metrics %s: not ADDR:PORT",
			       spec);
		return ret;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0) {
		ret = -errno;
		goto out_err;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    (ss.ss_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) <
		     0) ||
	    bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 16) < 0) {
		ret = -errno;
		goto out_close;
	}
	len = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0)
		port = ntohs(ss.ss_family == AF_INET
				     ? ((struct sockaddr_in *)&ss)->sin_port
				     : ((struct sockaddr_in6 *)&ss)->sin6_port);
	log_info("metrics on http://%s/metrics (port %u)", spec, port);
	ctl.http_fd = fd;
	return 0;

out_close:
	close(fd);
out_err:
	snprintf(err, errlen, "--metrics %s: %s", spec, strerror(-ret));
	return ret;
}

int control_open(const char *state_dir, const char *metrics_addr, char *err,
		 size_t errlen)
{
	unsigned int i;
	int ret;

	err[0] = '\0';
	for (i = 0; i < CONTROL_MAX_CLIENTS; i++) {
		ctl.clients[i].state = CS_FREE;
		ctl.clients[i].fd = -1;
	}
	ctl.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ctl.wake_fd < 0) {
		ret = -errno;
		(void)snprintf(err, errlen, "eventfd: %s", strerror(-ret));
		return ret;
	}
	ret = open_control_sock(state_dir);
	if (ret < 0) {
		(void)snprintf(err, errlen, "control socket: %s",
			       strerror(-ret));
		control_stop();
		return ret;
	}
	if (metrics_addr) {
		ret = open_http(metrics_addr, err, errlen);
		if (ret < 0) {
			control_stop(); /* removes the control socket again */
			return ret;
		}
	}
	return 0;
}

static void client_close(struct ctl_client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->out);
	c->out = NULL;
	c->fd = -1;
	c->state = CS_FREE;
}

static int reply_text(const char *text, char **out, size_t *len)
{
	*out = strdup(text);
	if (!*out)
		return -ENOMEM;
	*len = strlen(text);
	return 0;
}

/* One control request line (without its '\n') to its reply. */
static int control_answer(char *line, char **out, size_t *len)
{
	struct stats_snapshot *s;
	enum stats_format fmt = STATS_TEXT;
	char *cmd, *arg, *extra, *save = NULL;
	size_t n = strlen(line);
	int ret;

	if (n && line[n - 1] == '\r')
		line[n - 1] = '\0';
	cmd = strtok_r(line, " \t", &save);
	arg = cmd ? strtok_r(NULL, " \t", &save) : NULL;
	extra = arg ? strtok_r(NULL, " \t", &save) : NULL;
	if (!cmd || strcmp(cmd, "stats") != 0 || extra)
		return reply_text("error: unknown request (try "
				  "\"stats [text|json|prometheus]\")\n",
				  out, len);
	if (arg && stats_format_parse(arg, &fmt) < 0)
		return reply_text("error: unknown format (text, json or "
				  "prometheus)\n",
				  out, len);
	ret = stats_snapshot_take(&s);
	if (ret < 0)
		return ret;
	ret = stats_render(s, fmt, out, len);
	stats_snapshot_free(s);
	return ret;
}

/* Turn what @c has received into a reply, if it is complete. */
static int client_parse(struct ctl_client *c, bool eof)
{
	size_t cap = c->kind == CK_HTTP ? METRICS_REQ_MAX : CONTROL_REQ_MAX;
	char *nl;
	int ret;

	if (c->kind == CK_HTTP) {
		ret = metrics_http_handle(c->in, c->in_len,
					  eof || c->in_len == cap, &c->out,
					  &c->out_len);
		if (ret <= 0)
			return ret;
	} else {
		nl = memchr(c->in, '\n', c->in_len);
		if (nl) {
			*nl = '\0';
			ret = control_answer(c->in, &c->out, &c->out_len);
		} else if (eof || c->in_len == cap) {
			ret = reply_text("error: request too long or not "
					 "ended by a newline\n",
					 &c->out, &c->out_len);
		} else {
			return 0;
		}
		if (ret < 0)
			return ret;
	}
	c->out_off = 0;
	c->state = CS_WRITE;
	return 1;
}

static void client_read(struct ctl_client *c)
{
	size_t cap = c->kind == CK_HTTP ? METRICS_REQ_MAX : CONTROL_REQ_MAX;
	char sink[512];
	ssize_t n;

	if (c->state == CS_LINGER) {
		/* Discard: the peer may still be sending its request. */
		do {
			n = recv(c->fd, sink, sizeof(sink), 0);
		} while (n > 0);
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			client_close(c);
		return;
	}
	n = recv(c->fd, c->in + c->in_len, cap - c->in_len, 0);
	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			client_close(c);
		return;
	}
	c->in_len += (size_t)n;
	c->in[c->in_len] = '\0';
	if (client_parse(c, n == 0) < 0)
		client_close(c);
}

static void client_write(struct ctl_client *c)
{
	ssize_t n;

	while (c->out_off < c->out_len) {
		n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
			 MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				client_close(c);
			return;
		}
		c->out_off += (size_t)n;
	}
	free(c->out);
	c->out = NULL;
	shutdown(c->fd, SHUT_WR);
	c->state = CS_LINGER;
	if (c->deadline > now_ms() + LINGER_MS)
		c->deadline = now_ms() + LINGER_MS;
}

static struct ctl_client *client_slot(void)
{
	unsigned int i;

	for (i = 0; i < CONTROL_MAX_CLIENTS; i++)
		if (ctl.clients[i].state == CS_FREE)
			return &ctl.clients[i];
	return NULL;
}

static void accept_clients(int lfd, enum client_kind kind)
{
	struct ctl_client *c;
	int fd;

	while ((c = client_slot()) != NULL) {
		fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		c->fd = fd;
		c->kind = kind;
		c->state = CS_READ;
		c->in_len = 0;
		c->out = NULL;
		c->out_len = c->out_off = 0;
		c->deadline = now_ms() + CONTROL_CLIENT_TIMEOUT * 1000u;
	}
}

static void *control_main(void *arg)
{
	struct pollfd pfd[3 + CONTROL_MAX_CLIENTS];
	struct ctl_client *map[3 + CONTROL_MAX_CLIENTS];
	struct ctl_client *c;
	unsigned int i, n, nl;
	uint64_t now, next;
	bool room;
	int timeout;

	(void)arg;
	for (;;) {
		room = client_slot() != NULL;
		n = 0;
		pfd[n++] = (struct pollfd){.fd = ctl.wake_fd, .events = POLLIN};
		/* poll ignores fd -1: when full, the listeners wait. */
		pfd[n++] = (struct pollfd){.fd = room ? ctl.ctl_fd : -1,
					   .events = POLLIN};
		pfd[n++] = (struct pollfd){.fd = room ? ctl.http_fd : -1,
					   .events = POLLIN};
		nl = n;
		now = now_ms();
		next = UINT64_MAX;
		for (i = 0; i < CONTROL_MAX_CLIENTS; i++) {
			c = &ctl.clients[i];
			if (c->state == CS_FREE)
				continue;
			if (c->deadline < next)
				next = c->deadline;
			map[n] = c;
			pfd[n++] = (struct pollfd){
				.fd = c->fd,
				.events =
					c->state == CS_WRITE ? POLLOUT : POLLIN,
			};
		}
		if (next == UINT64_MAX)
			timeout = -1;
		else
			timeout = next <= now ? 0 : (int)(next - now);
		if (poll(pfd, n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			log_err("control: poll: %s", strerror(errno));
			break;
		}
		if (pfd[0].revents)
			break;
		for (i = nl; i < n; i++) {
			c = map[i];
			if (!pfd[i].revents || c->state == CS_FREE)
				continue;
			if (c->state == CS_WRITE)
				client_write(c);
			else
				client_read(c);
		}
		if (pfd[1].revents)
			accept_clients(ctl.ctl_fd, CK_CONTROL);
		if (pfd[2].revents)
			accept_clients(ctl.http_fd, CK_HTTP);
		now = now_ms();
		for (i = 0; i < CONTROL_MAX_CLIENTS; i++) {
			c = &ctl.clients[i];
			if (c->state != CS_FREE && c->deadline <= now)
				client_close(c);
		}
	}
	for (i = 0; i < CONTROL_MAX_CLIENTS; i++)
		if (ctl.clients[i].state != CS_FREE)
			client_close(&ctl.clients[i]);
	return NULL;
}

int control_start(void)
{
	int ret;

	if (ctl.wake_fd < 0 || (ctl.ctl_fd < 0 && ctl.http_fd < 0))
		return 0;
	ret = pthread_create(&ctl.thread, NULL, control_main, NULL);
	if (ret)
		return -ret;
	ctl.running = true;
	return 0;
}

void control_stop(void)
{
	uint64_t one = 1;
	struct stat st;

	if (ctl.running) {
		if (write(ctl.wake_fd, &one, sizeof(one)) != sizeof(one))
			log_warn("control: cannot wake the thread: %s",
				 strerror(errno));
		pthread_join(ctl.thread, NULL);
		ctl.running = false;
	}
	if (ctl.ctl_fd >= 0)
		close(ctl.ctl_fd);
	if (ctl.http_fd >= 0)
		close(ctl.http_fd);
	if (ctl.wake_fd >= 0)
		close(ctl.wake_fd);
	ctl.ctl_fd = ctl.http_fd = ctl.wake_fd = -1;
	/* Remove the socket only if it is still the one we made. */
	if (ctl.sock_made && stat(ctl.sock_path, &st) == 0 &&
	    st.st_dev == ctl.sock_dev && st.st_ino == ctl.sock_ino)
		unlink(ctl.sock_path);
	ctl.sock_made = false;
}

static void stats_usage(FILE *f)
{
	fprintf(f, "usage: nasd stats [--state-dir DIR] [--json|--prometheus|"
		   "--text]\n"
		   "  Print the statistics of the nasd serving DIR (default "
		   "/var/lib/nasd)\n"
		   "  from its control socket DIR/" CONTROL_SOCK_NAME ".\n");
}

/* Copy the reply to stdout (or, for a refusal, stderr). */
static int stats_relay(int fd, const char *path)
{
	char buf[16384];
	bool first = true, refused = false;
	ssize_t n;

	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "nasd stats: reading from %s: %s\n",
				path,
				errno == EAGAIN ? "timed out"
						: strerror(errno));
			return 1;
		}
		if (n == 0)
			break;
		if (first && n >= 7 && !memcmp(buf, "error: ", 7))
			refused = true;
		first = false;
		if (fwrite(buf, 1, (size_t)n, refused ? stderr : stdout) !=
		    (size_t)n)
			return 1;
	}
	if (first) {
		fprintf(stderr, "nasd stats: %s closed without a reply\n",
			path);
		return 1;
	}
	return fflush(stdout) == 0 && !refused ? 0 : 1;
}

int control_stats_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"state-dir", required_argument, NULL, 'd'},
		{"json", no_argument, NULL, 'j'},
		{"prometheus", no_argument, NULL, 'p'},
		{"text", no_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	const char *dir = "/var/lib/nasd", *fmt = "text";
	struct timeval tv = {.tv_sec = 10};
	char req[64];
	int c, fd, n, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 'j':
			fmt = "json";
			break;
		case 'p':
			fmt = "prometheus";
			break;
		case 't':
			fmt = "text";
			break;
		case 'h':
			stats_usage(stdout);
			return 0;
		default:
			stats_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "nasd stats: unexpected argument '%s'\n",
			argv[optind]);
		return 2;
	}
	n = snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", dir,
		     CONTROL_SOCK_NAME);
	if (n < 0 || (size_t)n >= sizeof(sa.sun_path)) {
		fprintf(stderr, "nasd stats: %s/%s: path too long\n", dir,
			CONTROL_SOCK_NAME);
		return 2;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("nasd stats: socket");
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr,
			"nasd stats: cannot connect to %s: %s (is nasd "
			"running with --state-dir %s?)\n",
			sa.sun_path, strerror(errno), dir);
		close(fd);
		return 1;
	}
	n = snprintf(req, sizeof(req), "stats %s\n", fmt);
	if (send(fd, req, (size_t)n, MSG_NOSIGNAL) != n) {
		fprintf(stderr, "nasd stats: sending to %s: %s\n", sa.sun_path,
			strerror(errno));
		close(fd);
		return 1;
	}
	ret = stats_relay(fd, sa.sun_path);
	close(fd);
	return ret;
}
