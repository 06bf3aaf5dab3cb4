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
 *
 * Client options (rw, squash, anonuid, secure, ...) belong to the client
 * spec they are written in. Export-wide options (wide_opts[]: fsid=, io=,
 * pseudo=) belong to the export: written in the path's list or in any
 * client spec's, they hold for every client, and two places of one
 * export that give different values fail the parse. A path list of
 * export-wide options only, followed by client specs, adds no "*" client:
 *
 *   /srv/data(io=direct) 10.0.0.0/8(rw)   (10.0.0.0/8 only, io=direct)
 *   /srv/data 10.0.0.0/8(rw,io=direct) *(ro,io=buffered)   (an error)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/log.h"
#include "export/export_int.h"

#define EXPORTS_FILE_MAX (4u << 20)

/* The client options of one option list as it is parsed. */
struct opt_state {
	bool root_squash;
	bool all_squash;
	bool client_set; /* a client option was given */
	struct export_opts o;
};

static void opts_default(struct opt_state *s)
{
	memset(s, 0, sizeof(*s));
	s->root_squash = true;
	s->o.rw = false;
	s->o.anonuid = 65534;
	s->o.anongid = 65534;
	s->o.secure = false;
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

static int wide_parse_fsid(struct export_wide *w, const char *val,
			   const struct export_ctx *c)
{
	uint32_t v;

	/* fsid=0 (or root): the NFSv4 pseudo-root, kept as id 0. */
	if (strcmp(val, "root") == 0)
		v = 0;
	else if (!parse_u32(val, &v))
		return export_err(c, "bad fsid value '%s' (a number is needed)",
				  val);
	w->fsid = v;
	return 0;
}

static int wide_parse_io(struct export_wide *w, const char *val,
			 const struct export_ctx *c)
{
	static const struct {
		const char *name;
		enum vfs_io io;
	} modes[] = {
		{"auto", VFS_IO_AUTO},
		{"buffered", VFS_IO_BUFFERED},
		{"direct", VFS_IO_DIRECT},
	};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (strcmp(val, modes[i].name) == 0) {
			w->io = modes[i].io;
			return 0;
		}
	}
	return export_err(c, "bad io value '%s' (buffered, direct or auto)",
			  val);
}

static int wide_parse_pseudo(struct export_wide *w, const char *val,
			     const struct export_ctx *c)
{
	char norm[VFS_PATH_MAX];

	/* NFSv4 pseudo-fs location: absolute, canonical, no "..". */
	if (val[0] != '/' ||
	    export_path_normalize(val, strlen(val), norm) < 0 ||
	    strlen(norm) >= sizeof(w->pseudo))
		return export_err(c, "bad pseudo path '%s'", val);
	memcpy(w->pseudo, norm, strlen(norm) + 1);
	return 0;
}

/*
 * smb=NAME: a share name (MS-FSCC 2.1.6 names minus the characters share
 * names may not hold, MS-SRVS 2.2.4.22): 1-80 bytes, none of
 * \ / : * ? " < > | or control characters; "IPC$" is the server's own.
 */
static int wide_parse_smb(struct export_wide *w, const char *val,
			  const struct export_ctx *c)
{
	size_t n = strlen(val), i;

	if (!n || n > EXPORT_SHARE_NAME_MAX)
		return export_err(c, "bad smb share name '%s' (1 to %d "
				  "characters)", val, EXPORT_SHARE_NAME_MAX);
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)val[i];

		if (ch < 0x20 || ch == 0x7f || strchr("\\/:*?\"<>|", ch))
			return export_err(c, "bad smb share name '%s' "
					  "(character '%c' not allowed)",
					  val, ch < 0x20 ? '?' : ch);
	}
	if (strcasecmp(val, "IPC$") == 0)
		return export_err(c, "smb share name IPC$ is reserved");
	memcpy(w->smb, val, n + 1);
	return 0;
}

/* smb_case=insensitive|sensitive: how SMB names find files. */
static int wide_parse_smb_case(struct export_wide *w, const char *val,
			       const struct export_ctx *c)
{
	if (strcmp(val, "insensitive") == 0)
		w->smb_case_sensitive = false;
	else if (strcmp(val, "sensitive") == 0)
		w->smb_case_sensitive = true;
	else
		return export_err(c, "bad smb_case value '%s' (insensitive "
				  "or sensitive)", val);
	return 0;
}

/* A yes|no option's value into *@out. */
static int parse_yes_no(const char *name, const char *val, bool *out,
			const struct export_ctx *c)
{
	if (strcmp(val, "yes") == 0)
		*out = true;
	else if (strcmp(val, "no") == 0)
		*out = false;
	else
		return export_err(c, "bad %s value '%s' (yes or no)", name,
				  val);
	return 0;
}

/* smb_guest=yes|no: may anonymous SMB sessions use the share? */
static int wide_parse_smb_guest(struct export_wide *w, const char *val,
				const struct export_ctx *c)
{
	return parse_yes_no("smb_guest", val, &w->smb_guest, c);
}

/* smb_encrypt=required|auto: does the share take only encrypted SMB? */
static int wide_parse_smb_encrypt(struct export_wide *w, const char *val,
				  const struct export_ctx *c)
{
	if (strcmp(val, "required") == 0)
		w->smb_encrypt = true;
	else if (strcmp(val, "auto") == 0)
		w->smb_encrypt = false;
	else
		return export_err(c, "bad smb_encrypt value '%s' (required "
				  "or auto)", val);
	return 0;
}

/* deleg=yes|no: may NFSv4 clients get delegations of its files? */
static int wide_parse_deleg(struct export_wide *w, const char *val,
			    const struct export_ctx *c)
{
	bool on = true;
	int ret = parse_yes_no("deleg", val, &on, c);

	w->no_deleg = !on;
	return ret;
}

/*
 * ceph=FSNAME[:/DIR]: the export is directory DIR (default "/") of the
 * CephFS filesystem FSNAME (empty: the cluster's default), served by
 * the CephFS backend instead of the local directory of the export path.
 */
static int wide_parse_ceph(struct export_wide *w, const char *val,
			   const struct export_ctx *c)
{
	const char *colon = strchr(val, ':');
	size_t fl = colon ? (size_t)(colon - val) : strlen(val);
	const char *dir = colon ? colon + 1 : "/";
	char norm[VFS_PATH_MAX];

	if (fl >= sizeof(w->ceph_where.ceph_fs) || memchr(val, '/', fl))
		return export_err(c, "bad ceph filesystem name in '%s'", val);
	if (dir[0] != '/' || export_path_normalize(dir, strlen(dir), norm) < 0 ||
	    strlen(norm) >= sizeof(w->ceph_where.ceph_dir))
		return export_err(c, "bad ceph directory in '%s' (FSNAME:/DIR)",
				  val);
	memcpy(w->ceph_where.ceph_fs, val, fl);
	w->ceph_where.ceph_fs[fl] = '\0';
	memcpy(w->ceph_where.ceph_dir, norm, strlen(norm) + 1);
	w->ceph_where.ceph = true;
	return 0;
}

/* A string option's value into @out (@size bytes with the NUL). */
static int parse_string(const char *name, const char *val, char *out,
			size_t size, const struct export_ctx *c)
{
	size_t n = strlen(val);

	if (!n || n >= size)
		return export_err(c, "bad %s value '%s' (1 to %zu characters)",
				  name, val, size - 1);
	memcpy(out, val, n + 1);
	return 0;
}

/* ceph_conf=PATH: the cluster configuration (default: libcephfs's). */
static int wide_parse_ceph_conf(struct export_wide *w, const char *val,
				const struct export_ctx *c)
{
	if (val[0] != '/')
		return export_err(c, "ceph_conf must be an absolute path: "
				  "'%s'", val);
	return parse_string("ceph_conf", val, w->ceph_conf,
			    sizeof(w->ceph_conf), c);
}

/* ceph_id=NAME: the cephx client name (client.NAME; default admin). */
static int wide_parse_ceph_id(struct export_wide *w, const char *val,
			      const struct export_ctx *c)
{
	return parse_string("ceph_id", val, w->ceph_id, sizeof(w->ceph_id),
			    c);
}

/* xattr=yes|no: may NFSv4.2 clients use its files' user. xattrs? */
static int wide_parse_xattr(struct export_wide *w, const char *val,
			    const struct export_ctx *c)
{
	bool on = true;
	int ret = parse_yes_no("xattr", val, &on, c);

	w->no_xattr = !on;
	return ret;
}

/*
 * Export-wide options, one row each: .parse sets
 * the option's field of struct export_wide from the value as written;
 * two places of one export agree when the field's bytes are equal (so
 * fsid=0 and fsid=root, or pseudo=/a/ and pseudo=/a, agree).
 */
struct wide_opt {
	const char *name;
	int (*parse)(struct export_wide *w, const char *val,
		     const struct export_ctx *c);
	size_t off; /* the field in struct export_wide */
	size_t size;
};

#define WIDE_FIELD(f)                                                          \
	.off = offsetof(struct export_wide, f),                                \
	.size = sizeof(((struct export_wide *)NULL)->f)

static const struct wide_opt wide_opts[] = {
	{
		.name = "fsid",
		.parse = wide_parse_fsid,
		WIDE_FIELD(fsid),
	},
	{
		.name = "io",
		.parse = wide_parse_io,
		WIDE_FIELD(io),
	},
	{
		.name = "pseudo",
		.parse = wide_parse_pseudo,
		WIDE_FIELD(pseudo),
	},
	{
		.name = "smb",
		.parse = wide_parse_smb,
		WIDE_FIELD(smb),
	},
	{
		.name = "smb_case",
		.parse = wide_parse_smb_case,
		WIDE_FIELD(smb_case_sensitive),
	},
	{
		.name = "smb_guest",
		.parse = wide_parse_smb_guest,
		WIDE_FIELD(smb_guest),
	},
	{
		.name = "smb_encrypt",
		.parse = wide_parse_smb_encrypt,
		WIDE_FIELD(smb_encrypt),
	},
	{
		.name = "deleg",
		.parse = wide_parse_deleg,
		WIDE_FIELD(no_deleg),
	},
	{
		.name = "xattr",
		.parse = wide_parse_xattr,
		WIDE_FIELD(no_xattr),
	},
	{
		.name = "ceph",
		.parse = wide_parse_ceph,
		WIDE_FIELD(ceph_where),
	},
	{
		.name = "ceph_conf",
		.parse = wide_parse_ceph_conf,
		WIDE_FIELD(ceph_conf),
	},
	{
		.name = "ceph_id",
		.parse = wide_parse_ceph_id,
		WIDE_FIELD(ceph_id),
	},
};

#define WIDE_NOPTS (sizeof(wide_opts) / sizeof(wide_opts[0]))

/* wide_state.from[] of a value written in the path's own option list. */
static const char from_path[] = "the path's options";

/* One export's export-wide options as its line (or spec) is parsed. */
struct wide_state {
	const char *path; /* canonical, for messages */
	struct export_wide w;
	/*
	 * Per row of wide_opts[]: where the value was first given (a client
	 * spec, or from_path; NULL: not yet) and the value as written there,
	 * in the caller's line buffer, for the message when another place
	 * differs.
	 */
	const char *from[WIDE_NOPTS];
	const char *text[WIDE_NOPTS];
};

static void wide_init(struct wide_state *ws, const char *path)
{
	memset(ws, 0, sizeof(*ws));
	ws->path = path;
	ws->w.fsid = -1;
	ws->w.io = VFS_IO_AUTO;
}

/*
 * Export-wide option @row is @val in the option list of @from (a client
 * spec, or from_path): the first value sets it, the same value again is
 * fine, a different one is an error that names both places.
 */
static int wide_set(struct wide_state *ws, size_t row, const char *val,
		    const char *from, const struct export_ctx *c)
{
	const struct wide_opt *wo = &wide_opts[row];
	unsigned char *cur = (unsigned char *)&ws->w + wo->off;
	const char *how = "for ", *where;
	struct export_wide v;
	int ret;

	memset(&v, 0, sizeof(v));
	ret = wo->parse(&v, val, c);
	if (ret < 0)
		return ret;
	if (ws->from[row] == NULL) {
		memcpy(cur, (unsigned char *)&v + wo->off, wo->size);
		ws->from[row] = from;
		ws->text[row] = val;
		return 0;
	}
	if (memcmp(cur, (unsigned char *)&v + wo->off, wo->size) == 0)
		return 0;
	where = ws->from[row];
	if (where == from) {
		how = "earlier in the same options";
		where = "";
	} else if (where == from_path) {
		how = "in ";
	}
	return export_err(c,
			  "%s: conflicting %s values: %s=%s here but %s=%s "
			  "%s%s (%s= applies to the whole export)",
			  ws->path, wo->name, wo->name, val, wo->name,
			  ws->text[row], how, where, wo->name);
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

	/* Per client in knfsd: they count as client options. */
	for (i = 0; i < sizeof(ignored_opts) / sizeof(ignored_opts[0]); i++) {
		if (strcmp(name, ignored_opts[i]) == 0) {
			s->client_set = true;
			return 0;
		}
	}
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (strcmp(name, flags[i].name) == 0)
			break;
	if (i == sizeof(flags) / sizeof(flags[0]))
		return -ENOENT;
	s->client_set = true;
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

/* "NAME=VAL" in the option list of @from (see wide_set()). */
static int opt_value(struct opt_state *s, struct wide_state *ws,
		     const char *from, const char *name, const char *val,
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
		s->client_set = true;
		return 0;
	}
	for (size_t i = 0; i < WIDE_NOPTS; i++)
		if (strcmp(name, wide_opts[i].name) == 0)
			return wide_set(ws, i, val, from, c);
	return -ENOENT;
}

/*
 * Apply the comma-separated @list (modified in place; export-wide values
 * in @ws point into it) of @from to @s and @ws.
 */
static int opts_apply(struct opt_state *s, struct wide_state *ws,
		      const char *from, char *list, const struct export_ctx *c)
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
			ret = opt_value(s, ws, from, item, eq + 1, c);
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
 * Cut "TEXT(OPTS)" (@paren: its first unquoted '(') at the '(' and give
 * OPTS, checking the parentheses.
 */
static int opts_split(const char *tok, char *paren, char **opts,
		      const struct export_ctx *c)
{
	size_t len = strlen(paren);

	if (len < 2 || paren[len - 1] != ')')
		return export_err(c, "missing ')' in '%s'", tok);
	paren[len - 1] = '\0';
	*paren = '\0';
	*opts = paren + 1;
	if (strpbrk(*opts, "()") != NULL)
		return export_err(c, "unbalanced parentheses in '%s'", tok);
	return 0;
}

/* @cl is "*" with the client options @o. */
static void client_set_all(struct export_client *cl,
			   const struct export_opts *o)
{
	memcpy(cl->spec, "*", sizeof("*"));
	cl->family = AF_UNSPEC;
	cl->opts = *o;
}

/*
 * One client token "HOST(OPTS)", "HOST" or "(OPTS)" (@paren: its first
 * unquoted '(' or NULL); its export-wide options go to @ws.
 */
static int parse_client(char *tok, char *paren, struct export_client *cl,
			struct wide_state *ws, const struct export_ctx *c)
{
	struct opt_state s;
	char *opts = NULL;
	int ret;

	opts_default(&s);
	if (paren != NULL) {
		ret = opts_split(tok, paren, &opts, c);
		if (ret < 0)
			return ret;
	}
	ret = parse_host(tok, cl, c);
	if (ret < 0)
		return ret;
	if (opts != NULL) {
		ret = opts_apply(&s, ws, cl->spec, opts, c);
		if (ret < 0)
			return ret;
	}
	opts_finish(&s);
	cl->opts = s.o;
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
	struct wide_state ws;
	uint32_t ntok = 0, ncl = 0;
	char *path, *path_opts = NULL;
	int ret;

	ret = tokenize(line, &toks, &ntok, c);
	if (ret < 0)
		return ret;
	if (ntok == 0)
		return 0;

	path = toks[0].text;
	if (toks[0].paren != NULL) {
		/* "PATH(OPTS)": cut the path at its '('. */
		if (toks[0].paren == path) {
			ret = export_err(c, "missing export path");
			goto out_free;
		}
		ret = opts_split(path, toks[0].paren, &path_opts, c);
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
	wide_init(&ws, norm);
	clients = calloc(ntok + 1, sizeof(*clients));
	if (clients == NULL) {
		ret = export_err(c, "out of memory");
		goto out_free;
	}
	if (path_opts != NULL) {
		struct opt_state s;

		opts_default(&s);
		ret = opts_apply(&s, &ws, from_path, path_opts, c);
		if (ret < 0)
			goto out_free;
		opts_finish(&s);
		/*
		 * Client options there are those of every client ("*", first
		 * in the list); export-wide ones alone must not open the
		 * export to everyone ahead of the client specs that follow.
		 */
		if (s.client_set || ntok == 1)
			client_set_all(&clients[ncl++], &s.o);
	}
	for (uint32_t i = 1; i < ntok; i++) {
		ret = parse_client(toks[i].text, toks[i].paren, &clients[ncl++],
				   &ws, c);
		if (ret < 0)
			goto out_free;
	}
	if (ncl == 0) {
		/* exports(5): no client means everyone, default options. */
		struct opt_state s;

		opts_default(&s);
		opts_finish(&s);
		client_set_all(&clients[0], &s.o);
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
	return export_add(t, path, clients, ncl, &ws.w, c);

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

/* Whether @s can be an option list: '/' only inside the values of the
 * options that take a path (pseudo=, ceph=, ceph_conf=). */
static bool opts_like(const char *s)
{
	const char *item = s;

	for (; *s; s++) {
		if (*s == ',')
			item = s + 1;
		else if (*s == '/' && strncmp(item, "pseudo=", 7) != 0 &&
			 strncmp(item, "ceph=", 5) != 0 &&
			 strncmp(item, "ceph_conf=", 10) != 0)
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
	struct export_client *cl = NULL;
	struct wide_state ws;
	struct opt_state s;
	char norm[VFS_PATH_MAX];
	const char *colon;
	char *opts = NULL, *path = NULL;
	size_t plen;
	int ret;

	/* PATH[:OPTS]: the last ':' followed by what can be an option list
	 * ends the path (a ceph= value holds a ':' of its own). */
	colon = strrchr(spec, ':');
	while (colon != NULL && !opts_like(colon + 1)) {
		while (--colon >= spec && *colon != ':')
			;
		if (colon < spec)
			colon = NULL;
	}
	plen = colon != NULL ? (size_t)(colon - spec) : strlen(spec);
	if (plen == 0 || spec[0] != '/')
		return export_err(&c, "export path must be absolute: '%s'",
				  spec);
	if (plen >= VFS_PATH_MAX || export_path_normalize(spec, plen, norm) < 0)
		return export_err(&c, "bad export path '%s'", spec);
	wide_init(&ws, norm);
	opts_default(&s);
	if (colon != NULL) {
		/* OPTS are the path's own list: for every client. */
		opts = strdup(colon + 1);
		if (opts == NULL)
			return export_err(&c, "out of memory");
		ret = opts_apply(&s, &ws, from_path, opts, &c);
		if (ret < 0)
			goto out_free;
	}
	opts_finish(&s);
	cl = calloc(1, sizeof(*cl));
	path = strdup(norm);
	if (cl == NULL || path == NULL) {
		ret = export_err(&c, "out of memory");
		goto out_free;
	}
	client_set_all(cl, &s.o);
	free(opts);
	return export_add(t, path, cl, 1, &ws.w, &c);

out_free:
	free(cl);
	free(path);
	free(opts);
	return ret;
}
