// SPDX-License-Identifier: MIT
/*
 * Fault injection into the vfs: the rule table, its parser and the two
 * checks the hooks call (fault.h explains the spec and where faults land).
 *
 * The rules are written only by vfs_fault_set(), before the server serves
 * (or between the steps of a single-threaded unit test); afterwards the
 * hooks only read them and bump the atomic counters, so no lock is needed.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/log.h"
#include "vfs/fault.h"

/* Longest spec accepted (a few dozen rules fit easily). */
#define FAULT_SPEC_MAX 4096

enum fault_mode {
	FAULT_ONCE,	/* the Nth call */
	FAULT_EVERY,	/* every Nth call */
	FAULT_FROM,	/* the Nth call and all after it */
};

struct fault_rule {
	uint64_t ops;		/* bit per enum vfs_fault_op */
	int err;		/* positive errno, or 0: short transfer */
	enum fault_mode mode;
	unsigned long n;
	atomic_ulong calls;
};

atomic_bool vfs_faults_on;

static struct fault_rule rules[VFS_FAULT_RULES_MAX];
static atomic_uint nrules;
static atomic_ulong fired;

static const char *const op_names[VFS_OP_COUNT] = {
	[VFS_OP_GETATTR] = "getattr",
	[VFS_OP_SETATTR] = "setattr",
	[VFS_OP_LOOKUP] = "lookup",
	[VFS_OP_ACCESS] = "access",
	[VFS_OP_READLINK] = "readlink",
	[VFS_OP_READ] = "read",
	[VFS_OP_WRITE] = "write",
	[VFS_OP_COMMIT] = "commit",
	[VFS_OP_CREATE] = "create",
	[VFS_OP_MKDIR] = "mkdir",
	[VFS_OP_SYMLINK] = "symlink",
	[VFS_OP_MKNOD] = "mknod",
	[VFS_OP_REMOVE] = "remove",
	[VFS_OP_RMDIR] = "rmdir",
	[VFS_OP_RENAME] = "rename",
	[VFS_OP_LINK] = "link",
	[VFS_OP_READDIR] = "readdir",
	[VFS_OP_STATFS] = "statfs",
	[VFS_OP_FH] = "fh",
	[VFS_OP_ALLOCATE] = "allocate",
	[VFS_OP_DEALLOCATE] = "deallocate",
	[VFS_OP_SEEK] = "seek",
	[VFS_OP_COPY] = "copy",
	[VFS_OP_CLONE] = "clone",
	[VFS_OP_ADVISE] = "advise",
	[VFS_OP_CRED] = "cred",
	[VFS_OP_PREAD] = "pread",
	[VFS_OP_PWRITE] = "pwrite",
};

#define OP_BIT(op) ((uint64_t)1 << (op))
#define SYS_OPS (OP_BIT(VFS_OP_PREAD) | OP_BIT(VFS_OP_PWRITE))
#define ENTRY_OPS ((OP_BIT(VFS_OP_COUNT) - 1) & ~SYS_OPS)
/* "all": the filesystem operations; cred is asked for by name only. */
#define ALL_OPS (ENTRY_OPS & ~OP_BIT(VFS_OP_CRED))

struct errno_name {
	const char *name;
	int err;
};

static const struct errno_name errno_names[] = {
	{"EPERM", EPERM},
	{"ENOENT", ENOENT},
	{"EINTR", EINTR},
	{"EIO", EIO},
	{"ENXIO", ENXIO},
	{"EBADF", EBADF},
	{"EAGAIN", EAGAIN},
	{"ENOMEM", ENOMEM},
	{"EACCES", EACCES},
	{"EFAULT", EFAULT},
	{"EBUSY", EBUSY},
	{"EEXIST", EEXIST},
	{"EXDEV", EXDEV},
	{"ENODEV", ENODEV},
	{"ENOTDIR", ENOTDIR},
	{"EISDIR", EISDIR},
	{"EINVAL", EINVAL},
	{"ENFILE", ENFILE},
	{"EMFILE", EMFILE},
	{"ETXTBSY", ETXTBSY},
	{"EFBIG", EFBIG},
	{"ENOSPC", ENOSPC},
	{"EROFS", EROFS},
	{"EMLINK", EMLINK},
	{"ENAMETOOLONG", ENAMETOOLONG},
	{"ENOLCK", ENOLCK},
	{"ENOSYS", ENOSYS},
	{"ENOTEMPTY", ENOTEMPTY},
	{"ELOOP", ELOOP},
	{"EOVERFLOW", EOVERFLOW},
	{"EOPNOTSUPP", EOPNOTSUPP},
	{"ETIMEDOUT", ETIMEDOUT},
	{"EDQUOT", EDQUOT},
	{"ESTALE", ESTALE},
	{"EJUKEBOX", EJUKEBOX},
	{"ESERVERFAULT", ESERVERFAULT},
};

#define N_ERRNO_NAMES (sizeof(errno_names) / sizeof(errno_names[0]))

const char *vfs_fault_op_name(enum vfs_fault_op op)
{
	if ((unsigned int)op >= VFS_OP_COUNT)
		return "?";
	return op_names[op];
}

static const char *errno_name(int err)
{
	size_t i;

	for (i = 0; i < N_ERRNO_NAMES; i++)
		if (errno_names[i].err == err)
			return errno_names[i].name;
	return "errno";
}

/* Count one call against @r; true when the rule fires on it. */
static bool rule_hit(struct fault_rule *r, unsigned long *nth)
{
	unsigned long c = atomic_fetch_add_explicit(&r->calls, 1,
						    memory_order_relaxed) + 1;

	*nth = c;
	switch (r->mode) {
	case FAULT_ONCE:
		return c == r->n;
	case FAULT_EVERY:
		return c % r->n == 0;
	case FAULT_FROM:
		return c >= r->n;
	}
	return false;
}

static void fault_log(enum vfs_fault_op op, const struct fault_rule *r,
		      unsigned long nth)
{
	atomic_fetch_add_explicit(&fired, 1, memory_order_relaxed);
	if (r->err)
		log_info("vfs: fault: %s call %lu fails with %s (%d)",
			 op_names[op], nth, errno_name(r->err), r->err);
	else
		log_info("vfs: fault: %s call %lu is short", op_names[op], nth);
}

/*
 * Every rule naming @op counts the call (so rules keep independent
 * counts); the first one that fires decides.
 */
static const struct fault_rule *fault_match(enum vfs_fault_op op)
{
	const struct fault_rule *hit = NULL;
	unsigned int i, n;
	unsigned long nth, hit_nth = 0;

	if ((unsigned int)op >= VFS_OP_COUNT)
		return NULL;
	n = atomic_load_explicit(&nrules, memory_order_acquire);
	for (i = 0; i < n; i++) {
		struct fault_rule *r = &rules[i];

		if (!(r->ops & OP_BIT(op)))
			continue;
		if (rule_hit(r, &nth) && !hit) {
			hit = r;
			hit_nth = nth;
		}
	}
	if (hit)
		fault_log(op, hit, hit_nth);
	return hit;
}

int vfs_fault_check(enum vfs_fault_op op)
{
	const struct fault_rule *r = fault_match(op);

	/* Entry rules always carry an errno (the parser sees to it). */
	return r && r->err ? -r->err : 0;
}

int vfs_fault_sys(enum vfs_fault_op op, size_t *len, size_t align)
{
	const struct fault_rule *r = fault_match(op);
	size_t half;

	if (!r)
		return 0;
	if (r->err)
		return -r->err;
	if (!align)
		align = 1;
	half = *len / 2;
	half -= half % align;
	if (half)
		*len = half;
	return 0;
}

uint64_t vfs_fault_fired(void)
{
	return atomic_load_explicit(&fired, memory_order_relaxed);
}

static void fault_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(err, errlen, fmt, ap); /* a cut message is fine */
	va_end(ap);
}

/* Parse a decimal in [1, ULONG_MAX] that makes up all of @s. */
static bool parse_count(const char *s, unsigned long *out)
{
	unsigned long v;
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v == 0)
		return false;
	*out = v;
	return true;
}

/* The errno of @s: a name from the table or a number in [1, 4095]. */
static int parse_errno(const char *s)
{
	unsigned long v;
	size_t i;

	for (i = 0; i < N_ERRNO_NAMES; i++)
		if (!strcmp(s, errno_names[i].name))
			return errno_names[i].err;
	if (parse_count(s, &v) && v < 4096)
		return (int)v;
	return -1;
}

/* Parse one "OP:FAULT:N[/every|+]" token (modified in place) into @r. */
static int parse_rule(char *tok, struct fault_rule *r, char *err,
		      size_t errlen)
{
	char *op, *fault, *count, *suffix, whole[64];
	size_t len;
	int i;

	(void)snprintf(whole, sizeof(whole), "%s", tok); /* for messages */
	op = tok;
	fault = strchr(op, ':');
	if (!fault)
		goto bad_form;
	*fault++ = '\0';
	count = strchr(fault, ':');
	if (!count)
		goto bad_form;
	*count++ = '\0';

	memset(r, 0, sizeof(*r));
	if (!strcmp(op, "all")) {
		r->ops = ALL_OPS;
	} else {
		for (i = 0; i < VFS_OP_COUNT; i++)
			if (!strcmp(op, op_names[i]))
				r->ops = OP_BIT(i);
		if (!r->ops) {
			fault_err(err, errlen, "unknown operation '%s'", op);
			return -EINVAL;
		}
	}

	if (!strcmp(fault, "short")) {
		r->err = 0;
	} else {
		r->err = parse_errno(fault);
		if (r->err <= 0) {
			fault_err(err, errlen, "unknown fault '%s'", fault);
			return -EINVAL;
		}
	}

	/* EINTR and short transfers belong in the read/write loops. */
	if (!r->err || r->err == EINTR) {
		if (r->ops & OP_BIT(VFS_OP_READ))
			r->ops = (r->ops & ~OP_BIT(VFS_OP_READ)) |
				 OP_BIT(VFS_OP_PREAD);
		if (r->ops & OP_BIT(VFS_OP_WRITE))
			r->ops = (r->ops & ~OP_BIT(VFS_OP_WRITE)) |
				 OP_BIT(VFS_OP_PWRITE);
	}
	if (!r->err && (r->ops & ~SYS_OPS)) {
		fault_err(err, errlen,
			  "'short' is for read, write, pread, pwrite, not '%s'",
			  op);
		return -EINVAL;
	}

	r->mode = FAULT_ONCE;
	len = strlen(count);
	suffix = strchr(count, '/');
	if (suffix) {
		if (strcmp(suffix, "/every") != 0)
			goto bad_count;
		*suffix = '\0';
		r->mode = FAULT_EVERY;
	} else if (len && count[len - 1] == '+') {
		count[len - 1] = '\0';
		r->mode = FAULT_FROM;
	}
	if (!parse_count(count, &r->n))
		goto bad_count;
	atomic_init(&r->calls, 0);
	return 0;

bad_count:
	fault_err(err, errlen, "bad count '%s' (want N, N/every or N+)", count);
	return -EINVAL;
bad_form:
	fault_err(err, errlen, "bad rule '%s' (want OP:FAULT:COUNT)", whole);
	return -EINVAL;
}

int vfs_fault_set(const char *spec, char *err, size_t errlen)
{
	static struct fault_rule parsed[VFS_FAULT_RULES_MAX];
	char buf[FAULT_SPEC_MAX];
	unsigned int n = 0, i;
	char *tok, *save = NULL;
	size_t len;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	len = spec ? strlen(spec) : 0;
	if (len >= sizeof(buf)) {
		fault_err(err, errlen, "spec longer than %d bytes",
			  FAULT_SPEC_MAX - 1);
		return -EINVAL;
	}
	if (len)
		memcpy(buf, spec, len);
	buf[len] = '\0';
	for (tok = strtok_r(buf, ", ;\t\n", &save); tok;
	     tok = strtok_r(NULL, ", ;\t\n", &save)) {
		if (n == VFS_FAULT_RULES_MAX) {
			fault_err(err, errlen, "more than %d rules",
				  VFS_FAULT_RULES_MAX);
			return -EINVAL;
		}
		ret = parse_rule(tok, &parsed[n], err, errlen);
		if (ret < 0)
			return ret;
		n++;
	}

	/* Hooks stop looking before the table changes under them. */
	atomic_store(&vfs_faults_on, false);
	atomic_store(&nrules, 0);
	for (i = 0; i < n; i++) {
		rules[i].ops = parsed[i].ops;
		rules[i].err = parsed[i].err;
		rules[i].mode = parsed[i].mode;
		rules[i].n = parsed[i].n;
		atomic_store(&rules[i].calls, 0);
	}
	atomic_store(&fired, 0);
	atomic_store_explicit(&nrules, n, memory_order_release);
	atomic_store(&vfs_faults_on, n > 0);
	return 0;
}

int vfs_fault_init_env(void)
{
	const char *spec = getenv("NASD_FAULTS");
	char err[160];
	int ret;

	if (!spec || !*spec)
		return 0;
	ret = vfs_fault_set(spec, err, sizeof(err));
	if (ret < 0) {
		log_err("vfs: NASD_FAULTS: %s", err);
		return ret;
	}
	log_warn("vfs: fault injection on (NASD_FAULTS=%s): %u rule(s)", spec,
		 atomic_load(&nrules));
	return 0;
}
