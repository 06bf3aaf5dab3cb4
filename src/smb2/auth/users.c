/* SPDX-License-Identifier: MIT */
/*
 * The SMB user database (users.h): parsing and formatting STATE_DIR/
 * smbpasswd, the checks made before reading it, and the reference-counted
 * tables lookups run on. Writing the file is the command line's job
 * (server/user_cmd.c); the server only reads it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "smb2/auth/ntlm_crypto.h"
#include "smb2/auth/users.h"
#include "smb2/utf16.h"

#define KEY_MAX	     (2 * SMB2_USER_NAME_MAX) /* UTF-16 of the longest name */
#define LINE_MAX_LEN 256

struct users_entry {
	struct smb2_user u;
	uint8_t key[KEY_MAX]; /* the upper-cased UTF-16LE name */
	size_t keylen;
};

struct smb2_users_table {
	atomic_uint refs;
	size_t n;
	size_t cap;
	struct users_entry *e; /* sorted by key */
};

struct smb2_users {
	pthread_mutex_t lock; /* guards cur (the pointer only) */
	struct smb2_users_table *cur;
	char path[PATH_MAX];
};

static void errf(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

bool smb2_user_name_valid(const char *name, size_t len)
{
	static const char bad[] = "\"/\\[]:;|=,+*?<>";
	size_t i;

	if (len == 0 || len > SMB2_USER_NAME_MAX)
		return false;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c < 0x20 || c == 0x7f || memchr(bad, c, sizeof(bad) - 1))
			return false;
	}
	/* no leading '#' (a comment), no space at either end */
	if (name[0] == '#' || name[0] == ' ' || name[len - 1] == ' ')
		return false;
	return utf16le_len_of_utf8(name, len) >= 0;
}

/* The lookup key of a name: UTF-16LE, upper-cased as NTLM does. */
static int name_key(const char *name, size_t len, uint8_t key[KEY_MAX],
		    size_t *keylen)
{
	uint8_t u16[KEY_MAX];
	int ret;

	if (len > SMB2_USER_NAME_MAX)
		return -ENAMETOOLONG;
	ret = utf8_to_utf16le(name, len, u16, sizeof(u16), keylen);
	if (ret)
		return ret;
	utf16le_upper(u16, *keylen, key);
	return 0;
}

static int key_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	if (c)
		return c;
	return alen < blen ? -1 : alen > blen;
}

/* Index of @key in @t, or (-1 - where it would go). */
static long table_search(const struct smb2_users_table *t, const uint8_t *key,
			 size_t keylen)
{
	size_t lo = 0, hi = t->n, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = key_cmp(key, keylen, t->e[mid].key, t->e[mid].keylen);
		if (c == 0)
			return (long)mid;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1 - (long)lo;
}

struct smb2_users_table *smb2_users_table_new(void)
{
	struct smb2_users_table *t = calloc(1, sizeof(*t));

	if (t)
		atomic_init(&t->refs, 1);
	return t;
}

void smb2_users_table_put(struct smb2_users_table *t)
{
	if (!t || atomic_fetch_sub(&t->refs, 1) != 1)
		return;
	if (t->e) {
		ntlm_wipe(t->e, t->cap * sizeof(*t->e));
		free(t->e);
	}
	free(t);
}

size_t smb2_users_table_count(const struct smb2_users_table *t)
{
	return t->n;
}

const struct smb2_user *smb2_users_table_at(const struct smb2_users_table *t,
					    size_t i)
{
	return i < t->n ? &t->e[i].u : NULL;
}

const struct smb2_user *smb2_users_table_find(const struct smb2_users_table *t,
					      const char *name, size_t len)
{
	uint8_t key[KEY_MAX];
	size_t keylen;
	long i;

	if (name_key(name, len, key, &keylen))
		return NULL;
	i = table_search(t, key, keylen);
	return i >= 0 ? &t->e[i].u : NULL;
}

/* Insert at the sorted place, or replace; -EEXIST instead when @unique. */
static int table_insert(struct smb2_users_table *t, const struct smb2_user *u,
			bool unique)
{
	struct users_entry *ne, *slot;
	size_t keylen, len = strnlen(u->name, sizeof(u->name));
	uint8_t key[KEY_MAX];
	long i;
	size_t at;

	if (!smb2_user_name_valid(u->name, len) ||
	    name_key(u->name, len, key, &keylen))
		return -EINVAL;
	i = table_search(t, key, keylen);
	if (i >= 0) {
		if (unique)
			return -EEXIST;
		slot = &t->e[i];
	} else {
		if (t->n == t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 16;

			/* not realloc: the old array holds hashes to wipe */
			ne = calloc(cap, sizeof(*ne));
			if (!ne)
				return -ENOMEM;
			if (t->e) {
				memcpy(ne, t->e, t->n * sizeof(*ne));
				ntlm_wipe(t->e, t->cap * sizeof(*t->e));
				free(t->e);
			}
			t->e = ne;
			t->cap = cap;
		}
		at = (size_t)(-1 - i);
		memmove(&t->e[at + 1], &t->e[at], (t->n - at) * sizeof(*t->e));
		t->n++;
		slot = &t->e[at];
	}
	memset(slot, 0, sizeof(*slot));
	slot->u = *u;
	memcpy(slot->key, key, keylen);
	slot->keylen = keylen;
	return 0;
}

int smb2_users_table_set(struct smb2_users_table *t, const struct smb2_user *u)
{
	return table_insert(t, u, false);
}

int smb2_users_table_del(struct smb2_users_table *t, const char *name)
{
	uint8_t key[KEY_MAX];
	size_t keylen;
	long i;

	if (name_key(name, strlen(name), key, &keylen))
		return -ENOENT;
	i = table_search(t, key, keylen);
	if (i < 0)
		return -ENOENT;
	ntlm_wipe(&t->e[i], sizeof(t->e[i]));
	memmove(&t->e[i], &t->e[i + 1], (t->n - (size_t)i - 1) * sizeof(*t->e));
	t->n--;
	ntlm_wipe(&t->e[t->n], sizeof(t->e[t->n]));
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A decimal id 0..UINT32_MAX-1 ((uid_t)-1 means "no id" to the kernel). */
static bool parse_id(const char *s, size_t len, uint32_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (len == 0 || len > 10 || (len > 1 && s[0] == '0'))
		return false;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v >= UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* "# nasd smbpasswd N": the version line's N, or 0 for another comment. */
static long version_of(const char *line, size_t len)
{
	static const char tag[] = "# nasd smbpasswd ";
	uint32_t v;

	if (len < sizeof(tag) - 1 || memcmp(line, tag, sizeof(tag) - 1) != 0)
		return 0;
	if (!parse_id(line + sizeof(tag) - 1, len - (sizeof(tag) - 1), &v))
		return -1;
	return v;
}

/* One user line "NAME:UID:GID:HASH" into @u; the reason in @why. */
static bool parse_line(const char *line, size_t len, struct smb2_user *u,
		       const char **why)
{
	const char *f[4];
	size_t flen[4], i, k = 0, start = 0;
	int hi, lo;

	for (i = 0; i <= len; i++) {
		if (i < len && line[i] != ':')
			continue;
		if (k == 4) {
			*why = "more than 4 fields";
			return false;
		}
		f[k] = line + start;
		flen[k++] = i - start;
		start = i + 1;
	}
	if (k != 4) {
		*why = "not NAME:UID:GID:NTHASH";
		return false;
	}
	if (!smb2_user_name_valid(f[0], flen[0])) {
		*why = "invalid user name";
		return false;
	}
	if (!parse_id(f[1], flen[1], &u->uid) ||
	    !parse_id(f[2], flen[2], &u->gid)) {
		*why = "uid and gid must be decimal numbers below 4294967295";
		return false;
	}
	if (flen[3] != 2 * sizeof(u->nt_hash)) {
		*why = "the NT hash must be 32 hex digits";
		return false;
	}
	for (i = 0; i < sizeof(u->nt_hash); i++) {
		hi = hexval(f[3][2 * i]);
		lo = hexval(f[3][2 * i + 1]);
		if (hi < 0 || lo < 0) {
			*why = "the NT hash must be 32 hex digits";
			return false;
		}
		u->nt_hash[i] = (uint8_t)(hi << 4 | lo);
	}
	memcpy(u->name, f[0], flen[0]);
	u->name[flen[0]] = '\0';
	return true;
}

int smb2_users_table_parse(const char *text, size_t len,
			   struct smb2_users_table **out, char *err,
			   size_t errlen)
{
	struct smb2_users_table *t = smb2_users_table_new();
	size_t pos = 0, end, lineno = 0, n;
	const char *why = NULL, *nl;
	struct smb2_user u;
	long v;
	int ret;

	if (!t)
		return -ENOMEM;
	while (pos < len) {
		nl = memchr(text + pos, '\n', len - pos);
		end = nl ? (size_t)(nl - text) : len;
		n = end - pos;
		lineno++;
		memset(&u, 0, sizeof(u));
		if (n > LINE_MAX_LEN) {
			why = "line too long";
		} else if (n == 0) {
			/* blank */
		} else if (text[pos] == '#') {
			v = version_of(text + pos, n);
			if (v < 0 || v > SMB2_USERS_VERSION)
				why = "unsupported format version";
		} else if (parse_line(text + pos, n, &u, &why)) {
			ret = table_insert(t, &u, true);
			if (ret == -EEXIST)
				why = "duplicate user name (names are "
				      "case-insensitive)";
			else if (ret)
				why = "cannot store the entry";
		}
		ntlm_wipe(&u, sizeof(u));
		if (why) {
			errf(err, errlen, "line %zu: %s", lineno, why);
			smb2_users_table_put(t);
			return -EINVAL;
		}
		pos = end + 1;
	}
	*out = t;
	return 0;
}

int smb2_users_table_format(const struct smb2_users_table *t, char **text,
			    size_t *len)
{
	static const char hex[] = "0123456789abcdef";
	size_t cap = 64 + t->n * (SMB2_USER_NAME_MAX + 64), o, i, k;
	const struct smb2_user *u;
	char *s = malloc(cap);
	int n;

	if (!s)
		return -ENOMEM;
	n = snprintf(s, cap, "# nasd smbpasswd %d\n", SMB2_USERS_VERSION);
	o = (size_t)n;
	for (i = 0; i < t->n; i++) {
		u = &t->e[i].u;
		n = snprintf(s + o, cap - o, "%s:%u:%u:", u->name,
			     (unsigned int)u->uid, (unsigned int)u->gid);
		if (n < 0 || (size_t)n >= cap - o - 34)
			goto out_overflow;
		o += (size_t)n;
		for (k = 0; k < sizeof(u->nt_hash); k++) {
			s[o++] = hex[u->nt_hash[k] >> 4];
			s[o++] = hex[u->nt_hash[k] & 15];
		}
		s[o++] = '\n';
	}
	*text = s;
	*len = o;
	return 0;
out_overflow:
	smb2_users_text_free(s, cap);
	return -ENOMEM;
}

void smb2_users_text_free(char *text, size_t len)
{
	if (!text)
		return;
	ntlm_wipe(text, len);
	free(text);
}

int smb2_users_table_load(const char *path, struct smb2_users_table **out,
			  char *err, size_t errlen)
{
	struct stat st;
	size_t got = 0;
	ssize_t r;
	char *buf;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0) {
		ret = -errno;
		if (ret != -ENOENT)
			errf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		errf(err, errlen, "%s: %s", path, strerror(-ret));
		goto out_close;
	}
	ret = -EPERM;
	if (!S_ISREG(st.st_mode)) {
		errf(err, errlen, "%s: not a regular file", path);
		goto out_close;
	}
	if (st.st_uid != geteuid()) {
		errf(err, errlen, "%s: owned by uid %u, not by this user (%u)",
		     path, (unsigned int)st.st_uid, (unsigned int)geteuid());
		goto out_close;
	}
	if (st.st_mode & 077) {
		errf(err, errlen,
		     "%s: mode %04o lets others read password hashes "
		     "(chmod 600 it)",
		     path, (unsigned int)(st.st_mode & 07777));
		goto out_close;
	}
	if (st.st_size > (off_t)SMB2_USERS_FILE_MAX) {
		ret = -EFBIG;
		errf(err, errlen, "%s: larger than %u bytes", path,
		     SMB2_USERS_FILE_MAX);
		goto out_close;
	}
	/* one byte more than the size: a file growing meanwhile is seen */
	buf = malloc((size_t)st.st_size + 1);
	ret = -ENOMEM;
	if (!buf)
		goto out_close;
	while (got < (size_t)st.st_size + 1) {
		r = read(fd, buf + got, (size_t)st.st_size + 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			errf(err, errlen, "%s: %s", path, strerror(-ret));
			goto out_free;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	if (got > (size_t)st.st_size) {
		ret = -EAGAIN;
		errf(err, errlen, "%s: changed while being read", path);
		goto out_free;
	}
	ret = smb2_users_table_parse(buf, got, out, err, errlen);
	if (ret == -EINVAL) {
		char line[128];

		(void)snprintf(line, sizeof(line), "%s", err ? err : "");
		errf(err, errlen, "%s: %s", path, line);
	}
out_free:
	smb2_users_text_free(buf, (size_t)st.st_size + 1);
out_close:
	close(fd);
	return ret;
}

static int db_load(struct smb2_users *db, struct smb2_users_table **out,
		   char *err, size_t errlen)
{
	int ret = smb2_users_table_load(db->path, out, err, errlen);

	if (ret == -ENOENT) {
		*out = smb2_users_table_new();
		ret = *out ? 0 : -ENOMEM;
	}
	return ret;
}

int smb2_users_open(const char *state_dir, struct smb2_users **out, char *err,
		    size_t errlen)
{
	struct smb2_users *db = calloc(1, sizeof(*db));
	int n, ret;

	if (!db)
		return -ENOMEM;
	n = snprintf(db->path, sizeof(db->path), "%s/%s", state_dir,
		     SMB2_USERS_FILE);
	if (n < 0 || (size_t)n >= sizeof(db->path)) {
		errf(err, errlen, "%s: path too long", state_dir);
		free(db);
		return -ENAMETOOLONG;
	}
	ret = db_load(db, &db->cur, err, errlen);
	if (ret) {
		free(db);
		return ret;
	}
	pthread_mutex_init(&db->lock, NULL);
	*out = db;
	return 0;
}

int smb2_users_reload(struct smb2_users *db, char *err, size_t errlen)
{
	struct smb2_users_table *t = NULL, *old;
	int ret = db_load(db, &t, err, errlen);

	if (ret || !t)
		return ret ? ret : -ENOMEM;
	pthread_mutex_lock(&db->lock);
	old = db->cur;
	db->cur = t;
	pthread_mutex_unlock(&db->lock);
	smb2_users_table_put(old);
	return 0;
}

static struct smb2_users_table *db_get(struct smb2_users *db)
{
	struct smb2_users_table *t;

	pthread_mutex_lock(&db->lock);
	t = db->cur;
	atomic_fetch_add(&t->refs, 1);
	pthread_mutex_unlock(&db->lock);
	return t;
}

int smb2_users_lookup(struct smb2_users *db, const char *name, size_t len,
		      struct smb2_user *out)
{
	struct smb2_users_table *t = db_get(db);
	const struct smb2_user *u = smb2_users_table_find(t, name, len);

	if (u)
		*out = *u;
	smb2_users_table_put(t);
	return u ? 0 : -ENOENT;
}

size_t smb2_users_count(struct smb2_users *db)
{
	struct smb2_users_table *t = db_get(db);
	size_t n = t->n;

	smb2_users_table_put(t);
	return n;
}

void smb2_users_close(struct smb2_users *db)
{
	if (!db)
		return;
	smb2_users_table_put(db->cur);
	pthread_mutex_destroy(&db->lock);
	free(db);
}
