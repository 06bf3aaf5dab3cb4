// SPDX-License-Identifier: MIT
/*
 * exports(5) parser:
 *
 *   # comment
 *   /srv/data   10.0.0.0/8(rw,no_root_squash) 192.168.1.7(ro) *(ro)
 *   "/srv/my data" ::1(rw)  2001:db8::/32(ro,all_squash,anonuid=1000)
 *   /srv/pub(ro)            (all clients, these options)
 *   /srv/pub                (all clients, default options; warned)
 *   /srv/long  10.0.0.1(rw) \
 *              10.0.0.2(rw)
 *
 * Clients are "*", an IPv4/IPv6 address, or address/prefix (an IPv4
 * prefix may be a dotted netmask). Host names, wildcards and netgroups
 * are refused: nasd resolves no names. Any error fails the whole parse
 * with "FILE:LINE: reason" (LINE is where the logical line starts).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "export/export_int.h"

#define EXPORTS_FILE_MAX (4u << 20)

struct opt_state {
	bool root_squash;
	bool all_squash;
	struct export_opts o;
	int64_t fsid; /* -1: not given */
};

static void opts_default(struct opt_state *s)
{
	memset(s, 0, sizeof(*s));
	s->root_squash = true;
	s->o.rw = false;
	s->o.anonuid = 65534;
	s->o.anongid = 65534;
	s->o.secure = false;
	s->o.io = EXPORT_IO_AUTO;
	s->fsid = -1;
}

static void opts_finish(struct opt_state *s)
{
	if (s->all_squash)
		s->o.squash = EXPORT_ALL_SQUASH;
	else if (s->root_squash)
		s->o.squash = EXPORT_ROOT_SQUASH;
	else
		s->o.squash = EXPORT_NO_ROOT_SQUASH;
}

static bool parse_u32(const char *s, uint32_t *out)
{
	unsigned long long v = 0;

	if (*s == '\0')
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (unsigned long long)(*s - '0');
		if (v > UINT32_MAX)
			return false;
	}
	*out = (uint32_t)v;
	return true;
}

/*
 * Options knfsd knows that need nothing from nasd: sync/async and
 * wdelay/no_wdelay concern knfsd's write gathering (nasd honours each
 * WRITE's stable_how and COMMIT), subtree_check/no_subtree_check its
 * parent checks (nasd's handles name inodes, never paths). Accepted so
 * that real exports files parse, and ignored.
 */
static const char *const ignored_opts[] = {
	"sync",	     "async",	      "wdelay",
	"no_wdelay", "subtree_check", "no_subtree_check",
};

static int opt_flag(struct opt_state *s, const char *name)
{
	static const struct {
		const char *name;
		int what;
	} flags[] = {
		{"rw", 1},	    {"ro", 2},
		{"root_squash", 3}, {"no_root_squash", 4},
		{"all_squash", 5},  {"no_all_squash", 6},
		{"secure", 7},	    {"insecure", 8},
	};
	size_t i;

	for (i = 0; i < sizeof(ignored_opts) / sizeof(ignored_opts[0]); i++)
		if (strcmp(name, ignored_opts[i]) == 0)
			return 0;
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (strcmp(name, flags[i].name) == 0)
			break;
	if (i == sizeof(flags) / sizeof(flags[0]))
		return -ENOENT;
	switch (flags[i].what) {
	case 1:
	case 2:
		s->o.rw = flags[i].what == 1;
		break;
	case 3:
	case 4:
		s->root_squash = flags[i].what == 3;
		break;
	case 5:
	case 6:
		s->all_squash = flags[i].what == 5;
		break;
	default:
		s->o.secure = flags[i].what == 7;
		break;
	}
	return 0;
}

static int opt_value(struct opt_state *s, const char *name, const char *val,
		     const struct export_ctx *c)
{
	uint32_t v;

	if (strcmp(name, "anonuid") == 0 || strcmp(name, "anongid") == 0) {
		if (!parse_u32(val, &v))
			return export_err(c, "bad %s value '%s'", name, val);
		if (name[4] == 'u')
			s->o.anonuid = v;
		else
			s->o.anongid = v;
		return 0;
	}
	if (strcmp(name, "fsid") == 0) {
		/* fsid=0 (or root): the NFSv4 pseudo-root, kept as id 0. */
		if (strcmp(val, "root") == 0)
			v = 0;
		else if (!parse_u32(val, &v))
			return export_err(c,
					  "bad fsid value '%s' (a number "
					  "is needed)",
					  val);
		s->fsid = v;
		return 0;
	}
	if (strcmp(name, "pseudo") == 0) {
		char norm[VFS_PATH_MAX];

		/* NFSv4 pseudo-fs location: absolute, canonical, no "..". */
		if (val[0] != '/' ||
		    export_path_normalize(val, strlen(val), norm) < 0 ||
		    strlen(norm) >= sizeof(s->o.pseudo))
			return export_err(c, "bad pseudo path '%s'", val);
		memcpy(s->o.pseudo, norm, strlen(norm) + 1);
		return 0;
	}
	if (strcmp(name, "io") == 0) {
		if (strcmp(val, "auto") == 0)
			s->o.io = EXPORT_IO_AUTO;
		else if (strcmp(val, "buffered") == 0)
			s->o.io = EXPORT_IO_BUFFERED;
		else if (strcmp(val, "direct") == 0)
			s->o.io = EXPORT_IO_DIRECT;
		else
			return export_err(c,
					  "bad io value '%s' (buffered, "
					  "direct or auto)",
					  val);
		return 0;
	}
	return -ENOENT;
}

/* Apply the comma-separated @list (modified in place) to @s. */
static int opts_apply(struct opt_state *s, char *list,
		      const struct export_ctx *c)
{
	char *item, *eq;
	int ret;

	if (*list == '\0')
		return 0;
	while ((item = strsep(&list, ",")) != NULL) {
		if (*item == '\0')
			return export_err(c, "empty export option");
		eq = strchr(item, '=');
		if (eq != NULL) {
			*eq = '\0';
			ret = opt_value(s, item, eq + 1, c);
			*eq = '=';
		} else {
			ret = opt_flag(s, item);
		}
		if (ret == -ENOENT)
			return export_err(c, "unknown export option '%s'",
					  item);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static bool mask_to_prefix(const uint8_t m[4], uint32_t *bits)
{
	uint32_t v = (uint32_t)m[0] << 24 | (uint32_t)m[1] << 16 |
		     (uint32_t)m[2] << 8 | m[3];
	uint32_t n = 0;

	while (n < 32 && (v & (0x80000000u >> n)))
		n++;
	/* Contiguous: nothing set after the first zero bit. */
	if (n < 32 && (v << n) != 0)
		return false;
	*bits = n;
	return true;
}

static int parse_host(const char *host, struct export_client *cl,
		      const struct export_ctx *c)
{
	char buf[sizeof(cl->spec)];
	size_t len = strlen(host);
	char *slash;
	uint32_t max;

	if (len == 0 || strcmp(host, "*") == 0) {
		memcpy(cl->spec, "*", sizeof("*"));
		cl->family = AF_UNSPEC;
		return 0;
	}
	if (len >= sizeof(buf))
		return export_err(c, "client '%s' too long", host);
	memcpy(cl->spec, host, len + 1);
	memcpy(buf, host, len + 1);
	slash = strchr(buf, '/');
	if (slash != NULL)
		*slash = '\0';
	if (inet_pton(AF_INET, buf, cl->addr) == 1) {
		cl->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, buf, cl->addr) == 1) {
		cl->family = AF_INET6;
		max = 128;
	} else {
		return export_err(c,
				  "client '%s': host names, wildcards and "
				  "netgroups are not supported (use an "
				  "address or address/prefix)",
				  host);
	}
	cl->prefix = max;
	if (slash != NULL) {
		const char *p = slash + 1;
		uint8_t m[4];

		if (cl->family == AF_INET && strchr(p, '.') != NULL) {
			if (inet_pton(AF_INET, p, m) != 1 ||
			    !mask_to_prefix(m, &cl->prefix))
				return export_err(c, "client '%s': bad netmask",
						  host);
		} else if (!parse_u32(p, &cl->prefix) || cl->prefix > max) {
			return export_err(c, "client '%s': bad prefix length",
					  host);
		}
	}
	/* Clear host bits so matching compares the network only. */
	for (uint32_t i = 0; i < max / 8; i++) {
		uint32_t keep = cl->prefix > i * 8 ? cl->prefix - i * 8 : 0;

		if (keep < 8)
			cl->addr[i] &= (uint8_t)(0xff00 >> keep);
	}
	return 0;
}

/*
 * One client token "HOST(OPTS)", "HOST" or "(OPTS)" (@paren: its first
 * unquoted '(' or NULL). Updates *@fsid, refusing conflicting values.
 */
static int parse_client(char *tok, char *paren, struct export_client *cl,
			int64_t *fsid, const struct export_ctx *c)
{
	struct opt_state s;
	char *opts = NULL;
	size_t len;
	int ret;

	opts_default(&s);
	if (paren != NULL) {
		len = strlen(paren);
		if (len < 2 || paren[len - 1] != ')')
			return export_err(c, "missing ')' in '%s'", tok);
		paren[len - 1] = '\0';
		*paren = '\0';
		opts = paren + 1;
		if (strpbrk(opts, "()") != NULL)
			return export_err(c, "unbalanced parentheses in '%s'",
					  tok);
	}
	ret = parse_host(tok, cl, c);
	if (ret < 0)
		return ret;
	if (opts != NULL) {
		ret = opts_apply(&s, opts, c);
		if (ret < 0)
			return ret;
	}
	opts_finish(&s);
	cl->opts = s.o;
	if (s.fsid >= 0) {
		if (*fsid >= 0 && *fsid != s.fsid)
			return export_err(c, "conflicting fsid values");
		*fsid = s.fsid;
	}
	return 0;
}

struct token {
	char *text;
	char *paren; /* first '(' outside quotes, or NULL */
};

static bool is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' ||
	       ch == '\f';
}

/*
 * Split @line in place into tokens: whitespace-separated, double quotes
 * group (and are removed), '#' at a token start begins a comment.
 */
static int tokenize(char *line, struct token **out, uint32_t *nout,
		    const struct export_ctx *c)
{
	struct token *toks = NULL, *nt;
	uint32_t n = 0;
	char *r = line, *w;

	for (;;) {
		bool inq = false;
		char *paren = NULL, ch;

		while (is_space(*r))
			r++;
		if (*r == '\0' || *r == '#')
			break;
		w = r;
		nt = realloc(toks, (n + 1) * sizeof(*toks));
		if (nt == NULL) {
			free(toks);
			return export_err(c, "out of memory");
		}
		toks = nt;
		toks[n].text = w;
		while (*r != '\0' && (inq || !is_space(*r))) {
			if (*r == '"') {
				inq = !inq;
				r++;
				continue;
			}
			if (!inq && *r == '(' && paren == NULL)
				paren = w;
			*w++ = *r++;
		}
		if (inq) {
			free(toks);
			return export_err(c, "unterminated quote");
		}
		ch = *r;
		*w = '\0';
		if (ch != '\0')
			r++;
		toks[n].paren = paren;
		n++;
	}
	*out = toks;
	*nout = n;
	return 0;
}

/* One logical line (continuations joined), modified in place. */
static int parse_line(struct export_table *t, char *line,
		      const struct export_ctx *c)
{
	struct export_client *clients = NULL;
	char norm[VFS_PATH_MAX];
	struct token *toks = NULL;
	uint32_t ntok = 0, ncl = 0;
	int64_t fsid = -1;
	char *path, *path_opts = NULL;
	int ret;

	ret = tokenize(line, &toks, &ntok, c);
	if (ret < 0)
		return ret;
	if (ntok == 0)
		return 0;

	path = toks[0].text;
	if (toks[0].paren != NULL) {
		/* "PATH(OPTS)": options for every client. */
		path_opts = toks[0].paren;
		if (path_opts == path) {
			ret = export_err(c, "missing export path");
			goto out_free;
		}
	}
	clients = calloc(ntok + 1, sizeof(*clients));
	if (clients == NULL) {
		ret = export_err(c, "out of memory");
		goto out_free;
	}
	if (path_opts != NULL) {
		/* Cuts the path token at its '(' as it parses the options. */
		ret = parse_client(path_opts, path_opts, &clients[ncl++], &fsid,
				   c);
		if (ret < 0)
			goto out_free;
	}
	if (path[0] != '/') {
		ret = export_err(c, "export path must be absolute: '%s'", path);
		goto out_free;
	}
	if (export_path_normalize(path, strlen(path), norm) < 0) {
		ret = export_err(c, "bad export path '%s'", path);
		goto out_free;
	}
	for (uint32_t i = 1; i < ntok; i++) {
		ret = parse_client(toks[i].text, toks[i].paren, &clients[ncl++],
				   &fsid, c);
		if (ret < 0)
			goto out_free;
	}
	if (ncl == 0) {
		/* exports(5): no client means everyone, default options. */
		struct opt_state s;

		opts_default(&s);
		opts_finish(&s);
		strcpy(clients[0].spec, "*");
		clients[0].family = AF_UNSPEC;
		clients[0].opts = s.o;
		ncl = 1;
		log_warn("%s:%u: no client given for %s: exporting to all "
			 "clients with default options (ro,root_squash)",
			 c->file, c->line, norm);
	}
	free(toks);
	path = strdup(norm);
	if (path == NULL) {
		free(clients);
		return export_err(c, "out of memory");
	}
	return export_add(t, path, clients, ncl, fsid, c);

out_free:
	free(clients);
	free(toks);
	return ret;
}

static int read_file(const char *file, char **out, size_t *len,
		     const struct export_ctx *c)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	int fd;

	if (buf == NULL)
		return export_err(c, "out of memory");
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return export_err(c, "cannot open: %s", strerror(errno));
	}
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap) {
			char *nb;

			if (cap >= EXPORTS_FILE_MAX) {
				close(fd);
				free(buf);
				return export_err(c, "file too large");
			}
			nb = realloc(buf, cap * 2);
			if (nb == NULL) {
				close(fd);
				free(buf);
				return export_err(c, "out of memory");
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			free(buf);
			return export_err(c, "read: %s", strerror(errno));
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int export_parse_file(const char *file, struct export_table **out, char *err,
		      size_t errlen)
{
	struct export_ctx c = {
		.file = file,
		.err = err,
		.errlen = errlen,
	};
	struct export_table *t;
	char *text = NULL, *logical = NULL;
	size_t len = 0, pos = 0, llen = 0;
	unsigned int lineno = 0, start = 0;
	int ret;

	ret = read_file(file, &text, &len, &c);
	if (ret < 0)
		return ret;
	/*
	 * read_file() fails only with export_err()'s -EINVAL (table.c), which
	 * the analyzer cannot see from this file: here text is set.
	 */
	/* NOLINTNEXTLINE(clang-analyzer-core.NonNullParamChecker) */
	if (memchr(text, '\0', len) != NULL) {
		free(text);
		return export_err(&c, "NUL byte in file");
	}
	t = export_table_new();
	logical = malloc(len + 2);
	if (t == NULL || logical == NULL) {
		ret = export_err(&c, "out of memory");
		goto out_free;
	}
	while (pos < len) {
		char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl != NULL ? (size_t)(nl - text) : len;
		size_t plen = end - pos;
		bool cont;

		lineno++;
		if (llen == 0)
			start = lineno;
		if (plen > 0 && text[pos + plen - 1] == '\r')
			plen--;
		cont = plen > 0 && text[pos + plen - 1] == '\\';
		if (cont)
			plen--;
		memcpy(logical + llen, text + pos, plen);
		llen += plen;
		pos = end + 1;
		if (cont && pos < len) {
			logical[llen++] = ' ';
			continue;
		}
		logical[llen] = '\0';
		c.line = start;
		ret = parse_line(t, logical, &c);
		if (ret < 0)
			goto out_free;
		llen = 0;
	}
	free(logical);
	free(text);
	*out = t;
	return 0;

out_free:
	free(logical);
	free(text);
	export_table_free(t);
	return ret;
}

/* Whether @s can be an option list: '/' only inside pseudo= values. */
static bool opts_like(const char *s)
{
	const char *item = s;

	for (; *s; s++) {
		if (*s == ',')
			item = s + 1;
		else if (*s == '/' && strncmp(item, "pseudo=", 7) != 0)
			return false;
	}
	return true;
}

int export_parse_spec(struct export_table *t, const char *spec, char *err,
		      size_t errlen)
{
	struct export_ctx c = {
		.file = "--export",
		.err = err,
		.errlen = errlen,
	};
	struct export_client *cl;
	struct opt_state s;
	char norm[VFS_PATH_MAX];
	const char *colon;
	char *opts = NULL, *path;
	size_t plen;
	int ret;

	/* PATH[:OPTS]: the last ':' not followed by a '/' ends the path
	 * (a '/' in a pseudo= value does not count). */
	colon = strrchr(spec, ':');
	if (colon != NULL && !opts_like(colon + 1))
		colon = NULL;
	plen = colon != NULL ? (size_t)(colon - spec) : strlen(spec);
	if (plen == 0 || spec[0] != '/')
		return export_err(&c, "export path must be absolute: '%s'",
				  spec);
	if (plen >= VFS_PATH_MAX || export_path_normalize(spec, plen, norm) < 0)
		return export_err(&c, "bad export path '%s'", spec);
	opts_default(&s);
	if (colon != NULL) {
		opts = strdup(colon + 1);
		if (opts == NULL)
			return export_err(&c, "out of memory");
		ret = opts_apply(&s, opts, &c);
		free(opts);
		if (ret < 0)
			return ret;
	}
	opts_finish(&s);
	cl = calloc(1, sizeof(*cl));
	path = strdup(norm);
	if (cl == NULL || path == NULL) {
		free(cl);
		free(path);
		return export_err(&c, "out of memory");
	}
	strcpy(cl->spec, "*");
	cl->family = AF_UNSPEC;
	cl->opts = s.o;
	return export_add(t, path, cl, 1, s.fsid, &c);
}
