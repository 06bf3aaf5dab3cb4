/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a whole SMB2 connection's byte stream through the
 * engine as the transport would deliver it: direct-TCP frames cut by the
 * SMB protocol table's own frame_parse and message limit, each message
 * through smb2_process() (half the time first "on the event loop", so
 * deferrals continue as on a worker), the connection closed with the
 * protocol's conn_close and conn_free hooks at the end of the input.
 *
 * No socket: the engine's calls into the transport (shutdown, the message
 * limit, references, server-sent messages) are linked to this file with
 * -Wl,--wrap (tests/fuzz/meson.build) and act on one fake connection.
 *
 * Input: one control byte, then the stream.
 *   bit 0   clear: the connection starts fresh (NEGOTIATE, the SMB1
 *           upgrade, SESSION_SETUP's first leg, commands before a
 *           session); set: it starts negotiated (dialect by bits 1-2:
 *           3.1.1, 3.0.2, 3.0, 2.1) with a valid session of user "fuzz"
 *           (no keys, signing not required), and every header's SessionId
 *           1 is replaced by that session's id, so that TREE_CONNECT,
 *           CREATE, READ, WRITE, QUERY/SET_INFO, QUERY_DIRECTORY, LOCK,
 *           NOTIFY and compounds are reached;
 *   bit 3   with bit 0 and a 3.x dialect: the session has cipher keys
 *           (AES-128-GCM for 3.1.1, AES-128-CCM for 3.0.x) and every
 *           message is sealed here in a TRANSFORM_HEADER under them, as a
 *           client would (MS-SMB2 §3.1.4.3), so that the engine opens it
 *           and seals its answer, which is opened here before it is
 *           checked; bit 4 then flips one byte of each sealed message
 *           (picked by the message's length): the connection must close;
 *   the rest: frames, each 4 bytes (type 0, 24-bit length) and a message.
 *
 * Checked for every message answered: the reply is a chain of SMB2
 * responses (FE 'S' 'M' 'B', StructureSize 64, SERVER_TO_REDIR, each
 * NextCommand 8-aligned and inside the reply, the last 0), no more
 * responses than commands sent, each one the command and MessageId of its
 * request in order, and an error response's body StructureSize 9. Every
 * 1024 inputs or 30 s: the directory beside the share is unchanged, the
 * share emptied and made again.
 *
 * NASD_FUZZ_LOG=1 keeps nasd's log; =debug also prints every error
 * status answered.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "core/req.h"
#include "export/export.h"
#include "fuzz.h"
#include "smb2/auth/users.h"
#include "smb2/smb2.h"
#include "smb2/smb2_int.h"
#include "smb2/smb2_session.h"
#include "transport/transport.h"
#include "vfs/vfs.h"

#define ARENA_SIZE 8192
#define RESET_EVERY 1024
#define RESET_SECONDS 30
#define FS_LIMIT_MB 256
#define MAX_CMDS 256

static char base[PATH_MAX], share[PATH_MAX], outside[PATH_MAX];
static char state_dir[PATH_MAX];
static struct smb2_users *users;
static struct smb2_config cfg = {
	.signing_required = false,
	.max_credits = 8192,
};
/* The client's side of the sealed mode (control bit 3): its encryption
 * key is the server's decryption key and the reverse. */
static struct smb2_seal_key client_enc, client_dec;
static bool sealed, corrupt;
static unsigned long iterations;
static time_t last_reset;
static bool fs_private;
static const struct vfs_cred root_cred = { 0 };

static __attribute__((noreturn)) void die(const char *what, int err)
{
	fprintf(stderr, "fuzz_smb2: set-up: %s: %s\n", what, strerror(err));
	exit(1);
}

static void join(char *out, const char *dir, const char *name)
{
	if (snprintf(out, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX)
		die(name, ENAMETOOLONG);
}

/* ---- the fake transport connection (-Wl,--wrap=transport_...) ---- */

static uint64_t fake_conn_mem[8];
#define FAKE_CONN ((struct conn *)(void *)fake_conn_mem)

static atomic_int conn_refs;
static atomic_bool conn_shut;
static atomic_uint conn_max_msg;

void __wrap_transport_conn_get(struct conn *c);
void __wrap_transport_conn_put(struct conn *c);
bool __wrap_transport_conn_closed(const struct conn *c);
void __wrap_transport_conn_shutdown(struct conn *c);
void __wrap_transport_conn_set_max_msg(struct conn *c, uint32_t n);
void __wrap_transport_conn_set_max_inflight(struct conn *c, uint32_t n);
struct req *__wrap_transport_msg_new(struct conn *c);
int __wrap_transport_msg_send(struct req *m);
void __wrap_transport_msg_free(struct req *m);

void __wrap_transport_conn_get(struct conn *c)
{
	FUZZ_CHECK(c == FAKE_CONN);
	atomic_fetch_add(&conn_refs, 1);
}

void __wrap_transport_conn_put(struct conn *c)
{
	FUZZ_CHECK(c == FAKE_CONN);
	FUZZ_CHECK(atomic_fetch_sub(&conn_refs, 1) > 0);
}

bool __wrap_transport_conn_closed(const struct conn *c)
{
	FUZZ_CHECK(c == FAKE_CONN);
	return atomic_load(&conn_shut);
}

void __wrap_transport_conn_shutdown(struct conn *c)
{
	FUZZ_CHECK(c == FAKE_CONN);
	atomic_store(&conn_shut, true);
}

void __wrap_transport_conn_set_max_msg(struct conn *c, uint32_t n)
{
	FUZZ_CHECK(c == FAKE_CONN);
	atomic_store(&conn_max_msg, n);
}

void __wrap_transport_conn_set_max_inflight(struct conn *c, uint32_t n)
{
	FUZZ_CHECK(c == FAKE_CONN);
	(void)n;
}

/* Messages the engine sends on its own: requests with only a reply. */
struct fc_msg {
	struct req req;
	uint8_t arena[4096];
};

struct req *__wrap_transport_msg_new(struct conn *c)
{
	struct fc_msg *m;

	FUZZ_CHECK(c == FAKE_CONN);
	m = calloc(1, sizeof(*m));
	FUZZ_CHECK(m);
	req_init(&m->req, m->arena, sizeof(m->arena));
	m->req.conn = c;
	return &m->req;
}

void __wrap_transport_msg_free(struct req *m)
{
	req_finish(m);
	free((struct fc_msg *)(void *)m);
}

static void check_responses(const uint8_t *p, size_t len,
			    const uint16_t *cmds, const uint64_t *mids,
			    unsigned int ncmds);

/* An interim or final async response, or a delayed logon answer. */
int __wrap_transport_msg_send(struct req *m)
{
	size_t len = req_reply_len(m);
	uint8_t *p = malloc(len ? len : 1);

	FUZZ_CHECK(m->conn == FAKE_CONN);
	FUZZ_CHECK(p);
	FUZZ_CHECK(req_reply_copy(m, 0, p, len) == (ssize_t)len);
	if (len >= 4 && get_le32(p) == SMB2_TRANSFORM_PROTOCOL_ID) {
		uint64_t id;

		/* Sealed (the server's own messages may outlive the input
		 * and its keys, e.g. a delayed logon answer): its header. */
		FUZZ_CHECK(smb2_transform_parse(p, len, &id) == 0);
	} else {
		check_responses(p, len, NULL, NULL, 0);
	}
	free(p);
	__wrap_transport_msg_free(m);
	return 0;
}

/* ---- checks ---- */

static bool status_has_body(uint16_t cmd, uint32_t st)
{
	if (!(st >> 30 == 3))
		return true; /* success, warnings: the command's body */
	return cmd == SMB2_SESSION_SETUP &&
	       st == STATUS_MORE_PROCESSING_REQUIRED;
}

/*
 * A chain of responses; with @cmds, they answer the request's commands
 * in order (no more of them).
 */
static void check_responses(const uint8_t *p, size_t len,
			    const uint16_t *cmds, const uint64_t *mids,
			    unsigned int ncmds)
{
	size_t off = 0;
	unsigned int i = 0;

	FUZZ_CHECK(len >= SMB2_HDR_LEN);
	for (;;) {
		const uint8_t *h = p + off;
		size_t left = len - off, n;
		uint32_t next, st;
		uint16_t cmd;

		FUZZ_CHECK(left >= SMB2_HDR_LEN + 2);
		FUZZ_CHECK(get_le32(h) == SMB2_PROTOCOL_ID);
		FUZZ_CHECK(get_le16(h + SMB2_HDR_STRUCTURE_SIZE) ==
			   SMB2_HDR_LEN);
		FUZZ_CHECK(get_le32(h + SMB2_HDR_FLAGS) &
			   SMB2_FLAGS_SERVER_TO_REDIR);
		next = get_le32(h + SMB2_HDR_NEXT_COMMAND);
		st = get_le32(h + SMB2_HDR_STATUS);
		cmd = get_le16(h + SMB2_HDR_COMMAND);
		n = next ? next : left;
		FUZZ_CHECK(!(next & 7) && n <= left && n >= SMB2_HDR_LEN + 2);
		if (!status_has_body(cmd, st))
			FUZZ_CHECK(get_le16(h + SMB2_HDR_LEN) ==
				   SMB2_ERROR_STRUCTURE_SIZE);
		if (cmds) {
			FUZZ_CHECK(i < ncmds);
			FUZZ_CHECK(cmd == cmds[i]);
			FUZZ_CHECK(get_le64(h + SMB2_HDR_MESSAGE_ID) ==
				   mids[i]);
		}
		i++;
		if (!next)
			break;
		off += next;
	}
}

/* ---- parked requests (REQ_PARK: a CREATE waiting for an oplock break) */

struct parked {
	struct req rq;
	struct parked *next;
	uint8_t *arena;
	uint8_t *msg;
	atomic_bool resumed;
};

static struct parked *parked_head;

void __wrap_transport_req_resume(struct req *r);
void __wrap_transport_req_resume(struct req *r)
{
	struct parked *p = (struct parked *)(void *)r;

	FUZZ_CHECK(!atomic_exchange(&p->resumed, true));
}

static void parked_free(struct parked *p)
{
	req_finish(&p->rq);
	free(p->arena);
	free(p->msg);
	free(p);
}

/*
 * Has @p been resumed, or is it within @ms? A break's end wakes its
 * waiters after taking them off the file (grant.c wake_all), so a close
 * that finds a waiter gone may run just before the other thread (a kept
 * durable open's timer) resumes it.
 */
static bool resumed_within(struct parked *p, int ms)
{
	const struct timespec tick = { .tv_sec = 0, .tv_nsec = 1000000 };

	while (!atomic_load(&p->resumed) && ms-- > 0)
		nanosleep(&tick, NULL);
	return atomic_load(&p->resumed);
}

/*
 * Run the parked requests that were resumed again, as the transport's
 * worker would; once the connection is closed (@gone) they are released
 * unprocessed instead, and every one must have been resumed by then, or
 * be about to (the close ended the breaks they waited for).
 */
static void parked_poll(bool gone)
{
	const struct transport_proto *tp = smb2_transport_proto();
	struct parked **pp = &parked_head, *p;
	enum req_verdict v;

	while ((p = *pp) != NULL) {
		if (gone)
			FUZZ_CHECK(resumed_within(p, 2000));
		if (!atomic_exchange(&p->resumed, false)) {
			pp = &p->next;
			continue;
		}
		if (gone) {
			tp->release(&p->rq);
			*pp = p->next;
			parked_free(p);
			continue;
		}
		p->rq.nowait = false;
		v = tp->process(&p->rq);
		if (v == REQ_PARK) {
			pp = &p->next;
			continue;
		}
		FUZZ_CHECK(v == REQ_REPLY || v == REQ_DROP);
		FUZZ_CHECK(vfs_cred_set(&root_cred) == 0);
		*pp = p->next;
		parked_free(p);
	}
}

/* ---- one connection ---- */

static void req_prepare(struct req *rq, uint8_t *arena, struct smb2_conn *c,
			uint8_t *msg, size_t len)
{
	req_init(rq, arena, ARENA_SIZE);
	rq->conn = FAKE_CONN;
	rq->conn_priv = c;
	rq->caps = REQ_CAP_FILE;
	rq->msg = msg;
	rq->msg_len = len;
}

/*
 * The request's commands as the engine will walk them (CANCEL has no
 * response); SessionId 1 made @sid on the way when @sid.
 */
static unsigned int walk_request(uint8_t *m, size_t len, uint64_t sid,
				 uint16_t *cmds, uint64_t *mids)
{
	size_t off = 0;
	unsigned int n = 0;

	while (len - off >= SMB2_HDR_LEN &&
	       get_le32(m + off) == SMB2_PROTOCOL_ID) {
		uint8_t *h = m + off;
		uint32_t next = get_le32(h + SMB2_HDR_NEXT_COMMAND);

		if (sid && get_le64(h + SMB2_HDR_SESSION_ID) == 1)
			put_le64(h + SMB2_HDR_SESSION_ID, sid);
		if (get_le16(h + SMB2_HDR_COMMAND) != SMB2_CANCEL &&
		    n < MAX_CMDS) {
			cmds[n] = get_le16(h + SMB2_HDR_COMMAND);
			mids[n] = get_le64(h + SMB2_HDR_MESSAGE_ID);
			n++;
		}
		if (!next || next & 7 || next > len - off)
			break;
		off += next;
	}
	return n;
}

/* Run one message (@msg malloc'd: it is the request's from here). */
static void run_message(struct smb2_conn *c, uint8_t *msg, size_t len,
			uint64_t sid)
{
	static unsigned int turn;
	static uint16_t cmds[MAX_CMDS];
	static uint64_t mids[MAX_CMDS];
	const struct transport_proto *tp = smb2_transport_proto();
	struct parked *p = calloc(1, sizeof(*p));
	struct req *rq;
	enum req_verdict v;
	unsigned int n;
	uint8_t *flat;
	size_t rlen;

	FUZZ_CHECK(p);
	p->arena = malloc(ARENA_SIZE);
	FUZZ_CHECK(p->arena);
	p->msg = msg;
	rq = &p->rq;
	n = walk_request(msg, len, sid, cmds, mids);
	if (sealed && len) {
		/* The client seals the message (its bytes after the
		 * header); the request owns the sealed copy. */
		uint8_t *box = malloc(SMB2_TRANSFORM_LEN + len);
		struct iovec iov;

		FUZZ_CHECK(box);
		memcpy(box + SMB2_TRANSFORM_LEN, msg, len);
		iov.iov_base = box + SMB2_TRANSFORM_LEN;
		iov.iov_len = len;
		FUZZ_CHECK(smb2_encrypt(&client_enc, sid, &iov, 1, box) == 0);
		if (corrupt)
			box[4 + len % (SMB2_TRANSFORM_LEN - 4 + len)] ^= 0x10;
		free(msg);
		msg = box;
		len += SMB2_TRANSFORM_LEN;
		p->msg = msg;
	}
	req_prepare(rq, p->arena, c, msg, len);
	rq->nowait = ++turn % 2 == 0 && tp->may_inline(c, msg, len);
	v = tp->process(rq);
	if (v == REQ_DEFER) {
		FUZZ_CHECK(rq->nowait);
		rq->nowait = false;
		v = tp->process(rq);
	}
	if (v == REQ_PARK) {
		/* It waits: the request, its memory and its message stay,
		 * as the transport keeps them, and the stream goes on. */
		p->next = parked_head;
		parked_head = p;
		FUZZ_CHECK(vfs_cred_set(&root_cred) == 0);
		return;
	}
	FUZZ_CHECK(v == REQ_REPLY || v == REQ_DROP);
	FUZZ_CHECK(vfs_cred_set(&root_cred) == 0);
	/* A message that was altered after sealing is never processed. */
	FUZZ_CHECK(!corrupt || v == REQ_DROP);
	if (v == REQ_REPLY && !atomic_load(&conn_shut)) {
		size_t at = 0;

		rlen = req_reply_len(rq);
		flat = malloc(rlen ? rlen : 1);
		FUZZ_CHECK(flat);
		FUZZ_CHECK(req_reply_copy(rq, 0, flat, rlen) ==
			   (ssize_t)rlen);
		if (sealed) {
			/* Answers to sealed requests leave sealed. */
			FUZZ_CHECK(smb2_decrypt(&client_dec, flat, rlen) == 0);
			at = SMB2_TRANSFORM_LEN;
		}
		if (len >= 4 && get_le32(msg) == SMB1_PROTOCOL_ID) {
			cmds[0] = SMB2_NEGOTIATE;
			mids[0] = 0;
			n = 1;
		}
		check_responses(flat + at, rlen - at, cmds, mids, n);
		free(flat);
	}
	parked_free(p);
}

/*
 * Cipher keys for session @s (its mu held) from a fixed logon key, and the
 * client's side of them (control bit 3).
 */
static void sealed_setup(struct smb2_conn *c, struct smb2_session *s)
{
	static const uint8_t gss[16] = "fuzz-session-key";
	static const uint8_t preauth[64];
	enum smb2_cipher cipher = c->dialect == SMB2_DIALECT_0311
					  ? SMB2_CIPHER_AES128_GCM
					  : SMB2_CIPHER_AES128_CCM;

	FUZZ_CHECK(smb2_session_keys_derive(&s->keys, c->dialect,
					    SMB2_SIGN_AES_CMAC, cipher, gss,
					    sizeof(gss), preauth) == 0);
	s->have_keys = true;
	c->cipher = cipher;
	FUZZ_CHECK(smb2_seal_key_init(&client_enc, cipher, true, s->keys.c2s,
				      s->keys.cipher_len) == 0);
	FUZZ_CHECK(smb2_seal_key_init(&client_dec, cipher, false,
				      s->keys.s2c, s->keys.cipher_len) == 0);
	sealed = true;
}

/* A negotiated connection with a valid session (control bit 0). */
static uint64_t preauth_setup(struct smb2_conn *c, uint8_t ctl)
{
	static const uint16_t dialects[4] = {
		SMB2_DIALECT_0311, SMB2_DIALECT_0302, SMB2_DIALECT_0300,
		SMB2_DIALECT_0210,
	};
	struct smb2_session *s;
	uint64_t id;

	pthread_mutex_lock(&c->mu);
	c->negotiated = true;
	c->dialect = dialects[(ctl >> 1) & 3];
	c->sign_alg = SMB2_SIGNING_AES_CMAC;
	c->seq_range = 512;
	pthread_mutex_unlock(&c->mu);
	atomic_store(&conn_max_msg, SMB2_MAX_MSG);
	s = smb2_session_new(c);
	FUZZ_CHECK(s);
	pthread_mutex_lock(&s->mu);
	s->state = SMB2_SESS_VALID;
	snprintf(s->user, sizeof(s->user), "fuzz");
	s->uid = 1000;
	s->gid = 1000;
	s->signing_required = false;
	if ((ctl & 8) && c->dialect >= SMB2_DIALECT_0300)
		sealed_setup(c, s);
	id = s->id;
	pthread_mutex_unlock(&s->mu);
	smb2_session_put(s);
	return id;
}

static void run_stream(const uint8_t *data, size_t size)
{
	const struct transport_proto *tp = smb2_transport_proto();
	struct smb2_conn *c;
	void *priv = NULL;
	uint64_t sid = 0;
	size_t off = 1;
	int i;

	atomic_store(&conn_shut, false);
	atomic_store(&conn_max_msg, tp->max_msg);
	atomic_store(&conn_refs, 1); /* the transport's own */
	FUZZ_CHECK(tp->conn_init(FAKE_CONN, &priv) == 0);
	c = priv;
	sealed = false;
	if (data[0] & 1)
		sid = preauth_setup(c, data[0]);
	corrupt = sealed && (data[0] & 16);
	while (!atomic_load(&conn_shut) && size - off >= tp->hdr_len) {
		uint32_t len;
		bool last;
		uint8_t *msg;

		if (tp->frame_parse(data + off, &len, &last) < 0)
			break; /* the transport closes */
		off += tp->hdr_len;
		if (len > atomic_load(&conn_max_msg) || len > tp->frame_max)
			break; /* refused before anything is allocated */
		if (len > size - off)
			break; /* the stream ends inside the message */
		/* A copy of its exact size: ASan sees any read past it. */
		msg = malloc(len ? len : 1);
		FUZZ_CHECK(msg);
		memcpy(msg, data + off, len);
		off += len;
		run_message(c, msg, len, sid);
		parked_poll(false);
	}
	tp->conn_close(FAKE_CONN, priv);
	parked_poll(true);
	/* Async operations give their references back as they end. */
	for (i = 0; i < 2000 && atomic_load(&conn_refs) > 1; i++)
		usleep(1000);
	FUZZ_CHECK(atomic_load(&conn_refs) == 1);
	tp->conn_free(priv);
	smb2_seal_key_wipe(&client_enc);
	smb2_seal_key_wipe(&client_dec);
	FUZZ_CHECK(vfs_cred_set(&root_cred) == 0);
}

/* ---- the share ---- */

static void write_file(const char *dir, const char *name, const char *text,
		       mode_t mode)
{
	char p[PATH_MAX];
	int fd;

	join(p, dir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (fd < 0)
		die(p, errno);
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die(p, EIO);
	close(fd);
	if (chmod(p, mode) < 0)
		die(p, errno);
}

static void populate(void)
{
	char p[PATH_MAX];

	write_file(share, "hello.txt", "hello, world\n", 0666);
	join(p, share, "sub");
	if (mkdir(p, 0777) < 0 || chmod(p, 0777) < 0)
		die(p, errno);
	write_file(p, "inner.txt", "inner\n", 0666);
	join(p, share, "link");
	if (symlink("../outside", p) < 0)
		die(p, errno);
}

static int rm_visit(const char *p, const struct stat *st, int flag,
		    struct FTW *f)
{
	(void)st;
	(void)flag;
	if (f->level > 0)
		remove(p);
	return 0;
}

static void tree_empty(const char *dir)
{
	nftw(dir, rm_visit, 16, FTW_DEPTH | FTW_PHYS);
}

/* What lies beside the share: exactly "canary" with its text. */
static void outside_check(void)
{
	char p[PATH_MAX], buf[64];
	struct stat st;
	ssize_t n;
	int fd;

	FUZZ_CHECK(stat(outside, &st) == 0 && st.st_nlink == 2);
	join(p, outside, "canary");
	fd = open(p, O_RDONLY);
	FUZZ_CHECK(fd >= 0);
	n = read(fd, buf, sizeof(buf));
	close(fd);
	FUZZ_CHECK(n == 7 && !memcmp(buf, "canary\n", 7));
}

static void exports_load(void)
{
	struct export_table *t;
	char file[PATH_MAX], err[512];
	FILE *f;

	join(file, base, "exports");
	f = fopen(file, "w");
	if (!f)
		die(file, errno);
	fprintf(f, "%s *(rw,no_root_squash,fsid=1,smb=share)\n", share);
	fclose(f);
	if (export_parse_file(file, &t, err, sizeof(err)) < 0 ||
	    export_table_open(t, err, sizeof(err)) < 0) {
		fprintf(stderr, "fuzz_smb2: exports: %s\n", err);
		exit(1);
	}
	export_table_install(t);
}

static void periodic_reset(void)
{
	FUZZ_CHECK(vfs_cred_set(&root_cred) == 0);
	outside_check();
	/* Without a table every cached object of the share is closed. */
	export_table_install(NULL);
	tree_empty(share);
	populate();
	exports_load();
	last_reset = time(NULL);
}

static void users_make(void)
{
	struct smb2_users_table *t = smb2_users_table_new();
	struct smb2_user u = { .uid = 1000, .gid = 1000 };
	char p[PATH_MAX], err[256], *text;
	size_t len;
	int fd;

	FUZZ_CHECK(t);
	snprintf(u.name, sizeof(u.name), "fuzz");
	memset(u.nt_hash, 0x5a, sizeof(u.nt_hash));
	if (smb2_users_table_set(t, &u) < 0 ||
	    smb2_users_table_format(t, &text, &len) < 0)
		die("users", ENOMEM);
	join(p, state_dir, SMB2_USERS_FILE);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		die(p, errno);
	close(fd);
	smb2_users_text_free(text, len);
	smb2_users_table_put(t);
	if (smb2_users_open(state_dir, &users, err, sizeof(err)) < 0) {
		fprintf(stderr, "fuzz_smb2: users: %s\n", err);
		exit(1);
	}
}

/*
 * WRITE and SET_INFO let the fuzzer ask for any amount of disk: the share
 * lives on a private tmpfs where one can be made, else every file is held
 * under FS_LIMIT_MB by RLIMIT_FSIZE.
 */
static void fs_limit(void)
{
	struct rlimit rl = {
		.rlim_cur = (rlim_t)FS_LIMIT_MB << 20,
		.rlim_max = (rlim_t)FS_LIMIT_MB << 20,
	};
	char opts[64];

	snprintf(opts, sizeof(opts), "size=%dm,mode=0755", FS_LIMIT_MB);
	if (unshare(CLONE_NEWNS) == 0 &&
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
	    mount("nasd-fuzz", base, "tmpfs", MS_NOSUID | MS_NODEV, opts) == 0) {
		fs_private = true;
		return;
	}
	signal(SIGXFSZ, SIG_IGN);
	if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
		die("RLIMIT_FSIZE", errno);
}

static void cleanup(void)
{
	vfs_cred_set(&root_cred);
	nftw(base, rm_visit, 16, FTW_DEPTH | FTW_PHYS);
	if (fs_private)
		umount2(base, MNT_DETACH);
	rmdir(base);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	if (!getenv("NASD_FUZZ_LOG"))
		log_level_max = -1;
	else if (!strcmp(getenv("NASD_FUZZ_LOG"), "debug"))
		log_level_max = LL_DEBUG;
	if (geteuid() != 0) {
		fprintf(stderr, "fuzz_smb2: must run as root\n");
		exit(1);
	}
	snprintf(base, sizeof(base), "%s/nasd-fuzz-smb2.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(base))
		die(base, errno);
	fs_limit();
	if (chmod(base, 0755) < 0)
		die(base, errno);
	atexit(cleanup);
	join(share, base, "share");
	join(outside, base, "outside");
	join(state_dir, base, "state");
	if (mkdir(share, 0777) < 0 || chmod(share, 0777) < 0 ||
	    mkdir(outside, 0755) < 0 || mkdir(state_dir, 0700) < 0)
		die(base, errno);
	write_file(outside, "canary", "canary\n", 0666);
	populate();
	users_make();
	cfg.state_dir = state_dir;
	cfg.users = users;
	cfg.netbios_name = "FUZZ";
	if (smb2_init(&cfg) < 0)
		die("smb2_init", EINVAL);
	exports_load();
	last_reset = time(NULL);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	run_stream(data, size);
	if (++iterations % RESET_EVERY == 0 ||
	    time(NULL) - last_reset >= RESET_SECONDS)
		periodic_reset();
	return 0;
}
