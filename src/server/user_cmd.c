/* SPDX-License-Identifier: MIT */
/*
 * `nasd user add|del|list` (user_cmd.h): edits STATE_DIR/smbpasswd.
 *
 * The file is replaced, never edited in place: the new text goes to a
 * temporary file in the same directory (mkstemp: mode 0600 from the
 * start), is fsynced, renamed over the old one and the directory fsynced,
 * so a running server's reload sees the old file or the new one. Two
 * commands at once serialize on an flock of STATE_DIR/smbpasswd.lock.
 * Passwords are read without echo from the terminal (twice), or as one
 * line from stdin when it is not a terminal, and wiped after hashing.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "server/user_cmd.h"
#include "smb2/auth/ntlm_crypto.h"
#include "smb2/auth/users.h"

#define DEFAULT_STATE_DIR "/var/lib/nasd"

struct user_opts {
	const char *state_dir;
	long uid; /* -1: from the local account */
	long gid;
	char path[PATH_MAX];
};

static void user_usage(FILE *f)
{
	fprintf(f,
		"usage: nasd user add NAME [--uid N] [--gid N] "
		"[--state-dir DIR]\n"
		"       nasd user del NAME [--state-dir DIR]\n"
		"       nasd user list [--state-dir DIR]\n"
		"  Keep the SMB users in DIR/" SMB2_USERS_FILE
		" (default " DEFAULT_STATE_DIR "), mode 0600.\n"
		"  add asks for the password (twice on a terminal; one line "
		"from stdin\n"
		"  otherwise) and stores its NT hash, which is as good as the "
		"password:\n"
		"  keep the file private. uid and gid default to the local "
		"account of\n"
		"  that name. An existing user is updated. A running nasd "
		"reads the\n"
		"  file again on SIGHUP.\n");
}

static bool parse_id(const char *s, long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (!*s || *end || errno || s[0] == '-' || v >= UINT32_MAX)
		return false;
	*out = (long)v;
	return true;
}

/* The terminal's settings while echo is off, to restore on a signal. */
static struct termios saved_tty;
static volatile sig_atomic_t tty_changed;

static void restore_tty(int sig)
{
	if (tty_changed)
		(void)tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tty);
	(void)signal(sig, SIG_DFL);
	(void)raise(sig);
}

/* One line from stdin into @buf (no newline): 0, -E2BIG, -ENODATA. */
static int read_line(char *buf, size_t max, size_t *len)
{
	size_t n = 0;
	ssize_t r;
	char c;

	for (;;) {
		r = read(STDIN_FILENO, &c, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (c == '\n')
			goto out;
		if (n == max) {
			/* drain the rest of the line */
			while (read(STDIN_FILENO, &c, 1) == 1 && c != '\n')
				;
			return -E2BIG;
		}
		buf[n++] = c;
	}
	if (n == 0)
		return -ENODATA;
out:
	if (n && buf[n - 1] == '\r')
		n--;
	*len = n;
	return 0;
}

static int prompt(const char *what, char *buf, size_t max, size_t *len)
{
	struct termios t;
	int ret;

	if (tcgetattr(STDIN_FILENO, &saved_tty) < 0)
		return -errno;
	t = saved_tty;
	t.c_lflag &= ~(tcflag_t)ECHO;
	t.c_lflag |= ECHONL;
	(void)signal(SIGINT, restore_tty);
	(void)signal(SIGTERM, restore_tty);
	(void)signal(SIGTSTP, restore_tty);
	tty_changed = 1;
	/* echo off first (dropping what was typed ahead), then the prompt:
	 * what is typed after it is never echoed nor lost */
	if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &t) < 0) {
		tty_changed = 0;
		return -errno;
	}
	fprintf(stderr, "%s", what);
	ret = read_line(buf, max, len);
	(void)tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
	tty_changed = 0;
	(void)signal(SIGINT, SIG_DFL);
	(void)signal(SIGTERM, SIG_DFL);
	(void)signal(SIGTSTP, SIG_DFL);
	return ret;
}

/* The password's NT hash; the password itself never leaves this frame. */
static int read_password_hash(uint8_t hash[16])
{
	char pw[NTLM_PASSWORD_MAX], again[NTLM_PASSWORD_MAX];
	size_t n = 0, m = 0;
	int ret;

	if (isatty(STDIN_FILENO)) {
		ret = prompt("New SMB password: ", pw, sizeof(pw), &n);
		if (!ret)
			ret = prompt("Retype it: ", again, sizeof(again), &m);
		if (!ret && (n != m || memcmp(pw, again, n) != 0)) {
			fprintf(stderr, "nasd user: the passwords differ\n");
			ret = -EINVAL;
		}
	} else {
		ret = read_line(pw, sizeof(pw), &n);
	}
	if (ret == -E2BIG) {
		fprintf(stderr, "nasd user: password longer than %d bytes\n",
			NTLM_PASSWORD_MAX);
	} else if (ret == -ENODATA || (!ret && n == 0)) {
		fprintf(stderr, "nasd user: empty password refused\n");
		ret = -EINVAL;
	} else if (ret < 0 && ret != -EINVAL) {
		/* -EINVAL: the passwords differed, already said */
		fprintf(stderr, "nasd user: reading the password: %s\n",
			strerror(-ret));
	}
	if (!ret) {
		ret = ntlm_nt_hash(pw, n, hash);
		if (ret)
			fprintf(stderr, "nasd user: the password is not "
					"valid UTF-8\n");
	}
	ntlm_wipe(pw, sizeof(pw));
	ntlm_wipe(again, sizeof(again));
	return ret;
}

/* Take the edit lock (held until exit). */
static int lock_state(const struct user_opts *o)
{
	char path[PATH_MAX];
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s.lock", o->state_dir,
		     SMB2_USERS_FILE) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (mkdir(o->state_dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX) < 0) {
		close(fd);
		return -errno;
	}
	return 0; /* the descriptor stays open: the lock lasts until exit */
}

static int load(const struct user_opts *o, struct smb2_users_table **t,
		bool missing_ok)
{
	char err[512];
	int ret = smb2_users_table_load(o->path, t, err, sizeof(err));

	if (ret == -ENOENT && missing_ok) {
		*t = smb2_users_table_new();
		return *t ? 0 : -ENOMEM;
	}
	if (ret == -ENOENT)
		fprintf(stderr, "nasd user: %s: no such file\n", o->path);
	else if (ret)
		fprintf(stderr, "nasd user: %s\n", err);
	return ret;
}

static int write_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Replace the file with @t's text (see the top of this file). */
static int store(const struct user_opts *o, const struct smb2_users_table *t)
{
	char tmp[PATH_MAX + 16], *text = NULL;
	size_t len = 0;
	int fd, dfd, ret;

	ret = smb2_users_table_format(t, &text, &len);
	if (ret)
		return ret;
	(void)snprintf(tmp, sizeof(tmp), "%s.XXXXXX", o->path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out_free;
	}
	ret = fchmod(fd, 0600) < 0 ? -errno : 0;
	if (!ret)
		ret = write_all(fd, text, len);
	if (!ret && fsync(fd) < 0)
		ret = -errno;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	if (!ret && rename(tmp, o->path) < 0)
		ret = -errno;
	if (ret) {
		(void)unlink(tmp);
		goto out_free;
	}
	dfd = open(o->state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		if (fsync(dfd) < 0)
			ret = -errno;
		close(dfd);
	}
out_free:
	smb2_users_text_free(text, len);
	if (ret)
		fprintf(stderr, "nasd user: writing %s: %s\n", o->path,
			strerror(-ret));
	return ret;
}

static int user_add(struct user_opts *o, const char *name)
{
	struct smb2_users_table *t = NULL;
	struct smb2_user u = {0};
	struct passwd pw, *pwp = NULL;
	char pwbuf[4096];
	bool existed;
	int ret;

	if (o->uid < 0 || o->gid < 0) {
		(void)getpwnam_r(name, &pw, pwbuf, sizeof(pwbuf), &pwp);
		if (!pwp) {
			fprintf(stderr,
				"nasd user: no local account '%s': give "
				"--uid and --gid\n",
				name);
			return 1;
		}
		if (o->uid < 0)
			o->uid = (long)pwp->pw_uid;
		if (o->gid < 0)
			o->gid = (long)pwp->pw_gid;
	}
	(void)snprintf(u.name, sizeof(u.name), "%s", name);
	u.uid = (uint32_t)o->uid;
	u.gid = (uint32_t)o->gid;
	ret = lock_state(o);
	if (ret) {
		fprintf(stderr, "nasd user: %s: %s\n", o->state_dir,
			strerror(-ret));
		return 1;
	}
	/* the file first: a refused file is reported before the prompt */
	if (load(o, &t, true))
		return 1;
	ret = read_password_hash(u.nt_hash);
	if (ret)
		goto out_put;
	existed = smb2_users_table_find(t, name, strlen(name)) != NULL;
	ret = smb2_users_table_set(t, &u);
	if (!ret)
		ret = store(o, t);
	if (!ret)
		printf("nasd user: %s %s (uid %ld, gid %ld)\n",
		       existed ? "updated" : "added", name, o->uid, o->gid);
out_put:
	ntlm_wipe(&u, sizeof(u));
	smb2_users_table_put(t);
	return ret ? 1 : 0;
}

static int user_del(struct user_opts *o, const char *name)
{
	struct smb2_users_table *t;
	int ret = lock_state(o);

	if (ret) {
		fprintf(stderr, "nasd user: %s: %s\n", o->state_dir,
			strerror(-ret));
		return 1;
	}
	if (load(o, &t, false))
		return 1;
	ret = smb2_users_table_del(t, name);
	if (ret)
		fprintf(stderr, "nasd user: no user '%s'\n", name);
	else
		ret = store(o, t);
	if (!ret)
		printf("nasd user: deleted %s\n", name);
	smb2_users_table_put(t);
	return ret ? 1 : 0;
}

static int user_list(struct user_opts *o)
{
	struct smb2_users_table *t;
	const struct smb2_user *u;
	size_t i;

	if (load(o, &t, true))
		return 1;
	for (i = 0; i < smb2_users_table_count(t); i++) {
		u = smb2_users_table_at(t, i);
		printf("%s %u %u\n", u->name, (unsigned int)u->uid,
		       (unsigned int)u->gid);
	}
	smb2_users_table_put(t);
	return fflush(stdout) == 0 ? 0 : 1;
}

int user_cmd_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"state-dir", required_argument, NULL, 'd'},
		{"uid", required_argument, NULL, 'u'},
		{"gid", required_argument, NULL, 'g'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct user_opts o = {
		.state_dir = DEFAULT_STATE_DIR, .uid = -1, .gid = -1};
	const char *cmd, *name = NULL;
	int c, n;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		user_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	cmd = argv[1];
	optind = 1;
	while ((c = getopt_long(argc - 1, argv + 1, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o.state_dir = optarg;
			break;
		case 'u':
		case 'g':
			if (!parse_id(optarg, c == 'u' ? &o.uid : &o.gid)) {
				fprintf(stderr, "nasd user: bad --%s '%s'\n",
					c == 'u' ? "uid" : "gid", optarg);
				return 2;
			}
			break;
		case 'h':
			user_usage(stdout);
			return 0;
		default:
			user_usage(stderr);
			return 2;
		}
	}
	n = argc - 1 - optind; /* operands after the subcommand's name */
	if (n > 0)
		name = argv[1 + optind];
	if ((strcmp(cmd, "list") != 0 ? n != 1 : n != 0) ||
	    (strcmp(cmd, "add") != 0 && (o.uid >= 0 || o.gid >= 0))) {
		user_usage(stderr);
		return 2;
	}
	if (name && !smb2_user_name_valid(name, strlen(name))) {
		fprintf(stderr,
			"nasd user: invalid name '%s' (1..%d bytes of UTF-8, "
			"none of \"/\\[]:;|=,+*?<> or control characters)\n",
			name, SMB2_USER_NAME_MAX);
		return 2;
	}
	if (snprintf(o.path, sizeof(o.path), "%s/%s", o.state_dir,
		     SMB2_USERS_FILE) >= (int)sizeof(o.path)) {
		fprintf(stderr, "nasd user: %s: path too long\n", o.state_dir);
		return 2;
	}
	if (strcmp(cmd, "list") == 0)
		return user_list(&o);
	if (!name) {
		user_usage(stderr);
		return 2;
	}
	if (strcmp(cmd, "add") == 0)
		return user_add(&o, name);
	if (strcmp(cmd, "del") == 0)
		return user_del(&o, name);
	fprintf(stderr, "nasd user: unknown command '%s'\n", cmd);
	user_usage(stderr);
	return 2;
}
