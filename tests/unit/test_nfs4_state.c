// SPDX-License-Identifier: MIT
/*
 * Unit tests of the NFSv4 state module (src/nfs4/state/): stateid seqid
 * rules, the EXCHANGE_ID case table of RFC 8881 §18.35.4,
 * SEQUENCE slot replay/misordering, CREATE_SESSION replay, 4.0 client
 * confirmation and lease expiry with a fake clock, 4.0 OPEN / seqid replay
 * / OPEN_CONFIRM / CLOSE / LOCK over a real vfs export, and grace-period
 * reclaim across a simulated restart (re-init with the same state dir).
 *
 * Operations are driven through their descriptors: arguments encoded as
 * on the wire, decoded, handled, and the result encoded and parsed back.
 * The vfs part needs root (exits 77 otherwise).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "nfs4/compound.h"
#include "nfs4/nfs4_xdr.h"
#include "nfs4/state/ops.h"
#include "nfs4/state/state.h"
#include "nfs4/state/state_int.h"
#include "rpc/rpc.h"
#include "state/file_state.h"
#include "vfs/vfs.h"

extern const struct nfs4_op nfs4_op_desc_exchange_id;
extern const struct nfs4_op nfs4_op_desc_create_session;
extern const struct nfs4_op nfs4_op_desc_sequence;
extern const struct nfs4_op nfs4_op_desc_reclaim_complete;
extern const struct nfs4_op nfs4_op_desc_destroy_clientid;
extern const struct nfs4_op nfs4_op_desc_destroy_session;
extern const struct nfs4_op nfs4_op_desc_setclientid;
extern const struct nfs4_op nfs4_op_desc_setclientid_confirm;
extern const struct nfs4_op nfs4_op_desc_renew;
extern const struct nfs4_op nfs4_op_desc_open;
extern const struct nfs4_op nfs4_op_desc_open_confirm;
extern const struct nfs4_op nfs4_op_desc_close;
extern const struct nfs4_op nfs4_op_desc_lock;
extern const struct nfs4_op nfs4_op_desc_lockt;
extern const struct nfs4_op nfs4_op_desc_locku;
extern const struct nfs4_op nfs4_op_desc_test_stateid;
extern const struct nfs4_op nfs4_op_desc_remove;
extern const struct nfs4_op nfs4_op_desc_rename;

/* ---- helpers ---------------------------------------------------------- */

static uint64_t fake_now = 1000000;

static uint64_t fake_clock(void)
{
	return fake_now;
}

struct tcall {
	struct rpc_call call;
	struct req req;
	uint8_t arena[16384];
	uint8_t argbuf[200];       /* the COMPOUND args SEQUENCE digests */
	int conn;                  /* its address is the "connection" */
};

static void tcall_init(struct tcall *t, uint32_t uid)
{
	memset(t, 0, sizeof(*t));
	req_init(&t->req, t->arena, sizeof(t->arena));
	t->call.req = &t->req;
	t->call.cred.flavor = AUTH_SYS;
	t->call.cred.uid = uid;
	t->call.cred.gid = uid;
	t->call.conn = (struct conn *)&t->conn;
	/* args.len stands for the request size SEQUENCE checks */
	t->call.args.base = t->argbuf;
	t->call.args.len = sizeof(t->argbuf);
}

/* The request of @t is over: what its calls allocated goes. */
static void tcall_finish(struct tcall *t)
{
	req_finish(&t->req);
}

static void comp_init(struct nfs4_compound *c, struct tcall *t,
		      uint32_t minor, uint32_t numops)
{
	memset(c, 0, sizeof(*c));
	c->call = &t->call;
	c->minorversion = minor;
	c->numops = numops;
}

/* The result of one op: status and the encoded body after the status. */
struct opres {
	uint32_t status;
	uint8_t body[4096];
	size_t len;
	bool replayed;
};

/*
 * Run @op on @args (XDR bytes) as the COMPOUND loop does: decode,
 * handle, encode (on OK or encode_err), the cache hook, release; a 4.0
 * seqid replay copies the cached result instead.
 */
static void run_op(struct nfs4_compound *c, const struct nfs4_op *op,
		   const uint8_t *args, size_t alen, struct opres *out)
{
	void *a = calloc(1, op->args_size + 1);
	void *r = calloc(1, op->res_size + 1);
	uint8_t enc[4100];
	struct xdr_buf x;

	assert_non_null(a);
	assert_non_null(r);
	memset(out, 0, sizeof(*out));
	xdr_init(&x, (void *)args, alen);
	assert_true(op->decode(&x, a));
	assert_int_equal(xdr_remaining(&x), 0);
	out->status = op->handle(c, a, r);
	if (c->op_replay) {
		assert_true(c->op_replay_len >= 4);
		out->replayed = true;
		out->len = c->op_replay_len - 4;
		memcpy(out->body, c->op_replay + 4, out->len);
		c->op_replay = NULL;
		c->op_replay_len = 0;
		goto out;
	}
	xdr_init(&x, enc, sizeof(enc));
	assert_true(xdr_enc_u32(&x, out->status));
	if (op->encode && (out->status == NFS4_OK || op->encode_err))
		assert_true(op->encode(&x, out->status, r));
	if (op->cache)
		op->cache(c, r, enc, x.pos);
	out->len = x.pos - 4;
	memcpy(out->body, enc + 4, out->len);
out:
	if (op->release)
		op->release(c, r);
	free(a);
	free(r);
}

/* A small XDR writer for arguments. */
struct wbuf {
	uint8_t b[2048];
	struct xdr_buf x;
};

static struct xdr_buf *wb_init(struct wbuf *w)
{
	xdr_init(&w->x, w->b, sizeof(w->b));
	return &w->x;
}

static void wb_verf(struct xdr_buf *x, uint8_t v)
{
	uint8_t d[8];

	memset(d, v, sizeof(d));
	assert_true(xdr_enc_opaque_fixed(x, d, 8));
}

static void wb_str(struct xdr_buf *x, const char *s)
{
	assert_true(xdr_enc_opaque(x, s, (uint32_t)strlen(s)));
}

static void wb_stateid(struct xdr_buf *x, const struct stateid4 *s)
{
	assert_true(xdr_enc_u32(x, s->seqid));
	assert_true(xdr_enc_opaque_fixed(x, s->other, NFS4_OTHER_SIZE));
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static void rd_stateid(const uint8_t *p, struct stateid4 *s)
{
	s->seqid = be32(p);
	memcpy(s->other, p + 4, NFS4_OTHER_SIZE);
}

static void state_reset(const char *dir, uint32_t grace)
{
	nfs4_state_shutdown();
	assert_int_equal(nfs4_state_init(dir, 90, grace), 0);
}

/* EXCHANGE_ID(owner, verifier byte, flags) as @uid. */
static void exchange_id(const char *owner, uint8_t verf, uint32_t flags,
			uint32_t uid, struct opres *res)
{
	struct nfs4_compound c;
	struct tcall t;
	struct wbuf w;
	struct xdr_buf *x = wb_init(&w);

	tcall_init(&t, uid);
	comp_init(&c, &t, 1, 1);
	wb_verf(x, verf);
	wb_str(x, owner);
	xdr_enc_u32(x, flags);
	xdr_enc_u32(x, SP4_NONE);
	xdr_enc_u32(x, 0); /* no impl id */
	run_op(&c, &nfs4_op_desc_exchange_id, w.b, x->pos, res);
	nfs4_compound_end(&c);
	tcall_finish(&t);
}

static void enc_chan(struct xdr_buf *x, uint32_t maxreq, uint32_t slots)
{
	xdr_enc_u32(x, 0);
	xdr_enc_u32(x, maxreq);
	xdr_enc_u32(x, maxreq);
	xdr_enc_u32(x, 8192);
	xdr_enc_u32(x, 16);
	xdr_enc_u32(x, slots);
	xdr_enc_u32(x, 0);
}

static void create_session(clientid4 id, uint32_t seq, uint32_t uid,
			   struct tcall *t, struct opres *res)
{
	struct nfs4_compound c;
	struct wbuf w;
	struct xdr_buf *x = wb_init(&w);

	comp_init(&c, t, 1, 1);
	(void)uid;
	xdr_enc_u64(x, id);
	xdr_enc_u32(x, seq);
	xdr_enc_u32(x, CREATE_SESSION4_FLAG_CONN_BACK_CHAN);
	enc_chan(x, 4 * 1024 * 1024, 200);   /* more than nasd offers */
	enc_chan(x, 4096, 4);
	xdr_enc_u32(x, 0x40000000);
	xdr_enc_u32(x, 1);
	xdr_enc_u32(x, AUTH_NONE);
	run_op(&c, &nfs4_op_desc_create_session, w.b, x->pos, res);
	nfs4_compound_end(&c);
}

/* A confirmed 4.1 client with one session, no RECLAIM_COMPLETE sent; its
 * id into *@id. */
static void client41_bare(const char *owner, uint32_t uid, clientid4 *id,
			  uint8_t sessionid[16])
{
	struct opres r;
	struct tcall t;

	exchange_id(owner, 1, 0, uid, &r);
	assert_int_equal(r.status, NFS4_OK);
	*id = be64(r.body);
	tcall_init(&t, uid);
	create_session(*id, be32(r.body + 8), uid, &t, &r);
	assert_int_equal(r.status, NFS4_OK);
	memcpy(sessionid, r.body, 16);
	tcall_finish(&t);
}

static void sequence(struct nfs4_compound *c, const uint8_t sid[16],
		     uint32_t seq, uint32_t slot, bool cachethis,
		     struct opres *res);

/*
 * client41_bare() and RECLAIM_COMPLETE (RFC 8881 §18.51: before its first
 * new open or lock), on the session's last slot so that the tests' own
 * sequence ids on slot 0 start at 1.
 */
static void client41(const char *owner, uint32_t uid, clientid4 *id,
		     uint8_t sessionid[16])
{
	struct nfs4_compound c;
	struct opres sr, r;
	struct tcall t;
	struct wbuf w;
	struct xdr_buf *x = wb_init(&w);

	client41_bare(owner, uid, id, sessionid);
	tcall_init(&t, uid);
	comp_init(&c, &t, 1, 2);
	sequence(&c, sessionid, 1, NFS4_CA_MAXREQUESTS - 1, false, &sr);
	assert_int_equal(sr.status, NFS4_OK);
	xdr_enc_bool(x, false);
	run_op(&c, &nfs4_op_desc_reclaim_complete, w.b, x->pos, &r);
	assert_int_equal(r.status, NFS4_OK);
	nfs4_compound_end(&c);
	tcall_finish(&t);
}

static void sequence(struct nfs4_compound *c, const uint8_t sid[16],
		     uint32_t seq, uint32_t slot, bool cachethis,
		     struct opres *res)
{
	struct wbuf w;
	struct xdr_buf *x = wb_init(&w);

	assert_true(xdr_enc_opaque_fixed(x, sid, 16));
	xdr_enc_u32(x, seq);
	xdr_enc_u32(x, slot);
	xdr_enc_u32(x, slot);
	xdr_enc_bool(x, cachethis);
	run_op(c, &nfs4_op_desc_sequence, w.b, x->pos, res);
}

/* ---- stateids ---------------------------------------------------------- */

static void test_stateid_seqid(void **state)
{
	struct nfs4_stid s = {.seqid = 5};
	struct stateid4 sid;

	(void)state;
	sid.seqid = 5;
	assert_int_equal(nfs4_stid_check_seqid(&s, &sid, 0), NFS4_OK);
	sid.seqid = 4;
	assert_int_equal(nfs4_stid_check_seqid(&s, &sid, 0),
			 NFS4ERR_OLD_STATEID);
	sid.seqid = 6;
	assert_int_equal(nfs4_stid_check_seqid(&s, &sid, 1),
			 NFS4ERR_BAD_STATEID);
	sid.seqid = 0;
	assert_int_equal(nfs4_stid_check_seqid(&s, &sid, 1), NFS4_OK);
	assert_int_equal(nfs4_stid_check_seqid(&s, &sid, 0),
			 NFS4ERR_OLD_STATEID);
	/* across the wrap: 0xffffffff is older than 1 */
	s.seqid = 1;
	sid.seqid = 0xffffffff;
	assert_int_equal(nfs4_stid_check_seqid(&s, &sid, 0),
			 NFS4ERR_OLD_STATEID);
	s.seqid = 0xffffffff;
	nfs4_stid_bump(&s);
	assert_int_equal(s.seqid, 1);

	memset(&sid, 0, sizeof(sid));
	assert_true(nfs4_stateid_is_anon(&sid));
	assert_true(nfs4_stateid_is_special(&sid));
	sid.seqid = 1;
	assert_true(nfs4_stateid_is_current(&sid));
	assert_false(nfs4_stateid_is_anon(&sid));
	memset(&sid, 0xff, sizeof(sid));
	assert_true(nfs4_stateid_is_bypass(&sid));
}

/* Lookup: stale boot id, unknown, tombstoned (expired), wrong client. */
static void test_stateid_lookup(void **state)
{
	struct nfs4_compound c;
	struct nfs4_stid *s, *found;
	struct nfs4_client fake = {.minor = 0};
	struct stateid4 sid;
	struct tcall t;

	(void)state;
	state_reset(NULL, 0);
	tcall_init(&t, 0);
	comp_init(&c, &t, 0, 1);
	/* a client record of our own: the table's reference, its mutex */
	atomic_init(&fake.refs, 1);
	pthread_mutex_init(&fake.mu, NULL);
	s = calloc(1, sizeof(*s));
	pthread_mutex_lock(&fake.mu);
	nfs4_stid_init(s, NFS4_STID_OPEN, &fake, NULL);
	nfs4_stid_hash(s);
	pthread_mutex_unlock(&fake.mu);
	nfs4_stid_to_wire(s, &sid);
	assert_int_equal(nfs4_stid_lookup(&c, &sid, 1u << NFS4_STID_OPEN,
					  true, &found),
			 NFS4_OK);
	assert_ptr_equal(found, s);
	/* found: its client is locked and pinned for us */
	assert_int_equal(atomic_load(&fake.refs), 2);
	assert_int_equal(pthread_mutex_trylock(&fake.mu), EBUSY);
	nfs4_client_unlock_put(found->client);
	assert_int_equal(nfs4_stid_lookup(&c, &sid, 1u << NFS4_STID_LOCK,
					  true, &found),
			 NFS4ERR_BAD_STATEID);
	/* an error holds nothing */
	assert_int_equal(atomic_load(&fake.refs), 1);
	sid.other[0] ^= 0x55; /* another boot id */
	assert_int_equal(nfs4_stid_lookup(&c, &sid, 1u << NFS4_STID_OPEN,
					  true, &found),
			 NFS4ERR_STALE_STATEID);
	c.minorversion = 1;
	assert_int_equal(nfs4_stid_lookup(&c, &sid, 1u << NFS4_STID_OPEN,
					  true, &found),
			 NFS4ERR_BAD_STATEID);
	sid.other[0] ^= 0x55;
	/* 4.1: a stateid of another client is BAD_STATEID */
	assert_int_equal(nfs4_stid_lookup(&c, &sid, 1u << NFS4_STID_OPEN,
					  true, &found),
			 NFS4ERR_BAD_STATEID);
	/* 4.1 current stateid */
	c.client = &fake;
	c.cur.stateid = sid;
	c.cur.stateid_set = true;
	{
		struct stateid4 cur = {.seqid = 1};

		assert_int_equal(nfs4_stid_lookup(&c, &cur,
						  1u << NFS4_STID_OPEN, true,
						  &found),
				 NFS4_OK);
		nfs4_client_unlock_put(found->client);
		c.cur.stateid_set = false;
		assert_int_equal(nfs4_stid_lookup(&c, &cur,
						  1u << NFS4_STID_OPEN, true,
						  &found),
				 NFS4ERR_BAD_STATEID);
	}
	c.client = NULL;
	c.minorversion = 0;
	fake.expiring = true;
	pthread_mutex_lock(&fake.mu);
	nfs4_stid_unhash(s);
	pthread_mutex_unlock(&fake.mu);
	assert_int_equal(nfs4_stid_lookup(&c, &sid, 1u << NFS4_STID_OPEN,
					  true, &found),
			 NFS4ERR_EXPIRED);
	sid.other[11] ^= 1;
	assert_int_equal(nfs4_stid_lookup(&c, &sid, 1u << NFS4_STID_OPEN,
					  true, &found),
			 NFS4ERR_BAD_STATEID);
	assert_int_equal(atomic_load(&fake.refs), 1);
	pthread_mutex_destroy(&fake.mu);
	free(s);
	tcall_finish(&t);
}

/* ---- EXCHANGE_ID, CREATE_SESSION, SEQUENCE ----------------------------- */

static void test_exchange_id_cases(void **state)
{
	uint8_t sid[16];
	clientid4 id, id4, id5;
	struct opres r;
	struct tcall t;

	(void)state;
	state_reset(NULL, 0);
	/* case 1: new owner → unconfirmed record */
	exchange_id("owner-a", 1, 0, 0, &r);
	assert_int_equal(r.status, NFS4_OK);
	id = be64(r.body);
	assert_int_equal(be32(r.body + 8), 1); /* eir_sequenceid */
	assert_int_equal(be32(r.body + 12) & EXCHGID4_FLAG_CONFIRMED_R, 0);
	assert_true(be32(r.body + 12) & EXCHGID4_FLAG_USE_NON_PNFS);
	/* confirm with CREATE_SESSION */
	tcall_init(&t, 0);
	create_session(id, 1, 0, &t, &r);
	assert_int_equal(r.status, NFS4_OK);
	memcpy(sid, r.body, 16);
	/* channels negotiated down (fore: maxrequestsize, maxrequests) */
	assert_int_equal(be32(r.body + 24 + 4), NFS4_CA_MAXREQUEST);
	assert_int_equal(be32(r.body + 24 + 20), NFS4_CA_MAXREQUESTS);
	assert_true(be32(r.body + 20) & CREATE_SESSION4_FLAG_CONN_BACK_CHAN);
	/* CREATE_SESSION replay: same session; next-but-one: misordered */
	create_session(id, 1, 0, &t, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_memory_equal(r.body, sid, 16);
	create_session(id, 3, 0, &t, &r);
	assert_int_equal(r.status, NFS4ERR_SEQ_MISORDERED);
	create_session(0x1234, 1, 0, &t, &r);
	assert_int_equal(r.status, NFS4ERR_STALE_CLIENTID);
	tcall_finish(&t);

	/* case 2: same verifier and principal → same id, CONFIRMED_R */
	exchange_id("owner-a", 1, 0, 0, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_true(be64(r.body) == id);
	assert_true(be32(r.body + 12) & EXCHGID4_FLAG_CONFIRMED_R);
	assert_int_equal(be32(r.body + 8), 2);
	/* case 3: other principal while the record is in use */
	exchange_id("owner-a", 1, 0, 1000, &r);
	assert_int_equal(r.status, NFS4ERR_CLID_INUSE);
	/* case 6: update of the confirmed record */
	exchange_id("owner-a", 1, EXCHGID4_FLAG_UPD_CONFIRMED_REC_A, 0, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_true(be64(r.body) == id);
	assert_true(be32(r.body + 12) & EXCHGID4_FLAG_CONFIRMED_R);
	/* case 8: update with another verifier */
	exchange_id("owner-a", 2, EXCHGID4_FLAG_UPD_CONFIRMED_REC_A, 0, &r);
	assert_int_equal(r.status, NFS4ERR_NOT_SAME);
	/* case 9: update by another principal */
	exchange_id("owner-a", 1, EXCHGID4_FLAG_UPD_CONFIRMED_REC_A, 7, &r);
	assert_int_equal(r.status, NFS4ERR_PERM);
	/* case 7: update of nothing */
	exchange_id("owner-b", 1, EXCHGID4_FLAG_UPD_CONFIRMED_REC_A, 0, &r);
	assert_int_equal(r.status, NFS4ERR_NOENT);
	/* case 4: client restart (new verifier) → new unconfirmed id */
	exchange_id("owner-a", 2, 0, 0, &r);
	assert_int_equal(r.status, NFS4_OK);
	id4 = be64(r.body);
	assert_true(id4 != id);
	assert_int_equal(be32(r.body + 12) & EXCHGID4_FLAG_CONFIRMED_R, 0);
	/* the old record still works until the new one is confirmed */
	pthread_mutex_lock(&nfs4_st.mu);
	assert_non_null(nfs4_client_find(id));
	pthread_mutex_unlock(&nfs4_st.mu);
	/* case 5: the unconfirmed record is replaced */
	exchange_id("owner-a", 3, 0, 0, &r);
	assert_int_equal(r.status, NFS4_OK);
	id5 = be64(r.body);
	assert_true(id5 != id4 && id5 != id);
	pthread_mutex_lock(&nfs4_st.mu);
	assert_null(nfs4_client_find(id4));
	pthread_mutex_unlock(&nfs4_st.mu);
	/* confirming the new one removes the old one and its session */
	tcall_init(&t, 0);
	create_session(id5, 1, 0, &t, &r);
	assert_int_equal(r.status, NFS4_OK);
	tcall_finish(&t);
	pthread_mutex_lock(&nfs4_st.mu);
	assert_null(nfs4_client_find(id));
	assert_null(nfs4_session_find(sid));
	pthread_mutex_unlock(&nfs4_st.mu);

	/* bad flags, unsupported state protection */
	exchange_id("owner-c", 1, EXCHGID4_FLAG_CONFIRMED_R, 0, &r);
	assert_int_equal(r.status, NFS4ERR_INVAL);
	{
		struct nfs4_compound c;
		struct wbuf w;
		struct xdr_buf *x = wb_init(&w);

		tcall_init(&t, 0);
		comp_init(&c, &t, 1, 1);
		wb_verf(x, 1);
		wb_str(x, "owner-c");
		xdr_enc_u32(x, 0);
		xdr_enc_u32(x, SP4_MACH_CRED);
		xdr_enc_u32(x, 0);
		xdr_enc_u32(x, 0);
		xdr_enc_u32(x, 0);
		run_op(&c, &nfs4_op_desc_exchange_id, w.b, x->pos, &r);
		assert_int_equal(r.status, NFS4ERR_NOTSUPP);
		tcall_finish(&t);
	}
}

static void test_sequence_slots(void **state)
{
	static const uint8_t reply[] = "a cached compound reply";
	struct nfs4_compound c;
	uint8_t sid[16];
	clientid4 id;
	struct opres r;
	struct tcall t;

	(void)state;
	state_reset(NULL, 0);
	client41("seq-owner", 0, &id, sid);

	tcall_init(&t, 0);
	comp_init(&c, &t, 1, 2);
	sequence(&c, sid, 1, 0, true, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_non_null(c.session);
	assert_non_null(c.slot);
	assert_int_equal(be32(r.body + 28), NFS4_CA_MAXREQUESTS - 1);
	/* a back channel was bound at CREATE_SESSION: path up */
	assert_int_equal(be32(r.body + 32) & SEQ4_STATUS_CB_PATH_DOWN, 0);
	/* a retry while the first is still running: DELAY */
	{
		struct nfs4_compound c2;
		struct tcall t2;

		tcall_init(&t2, 0);
		comp_init(&c2, &t2, 1, 2);
		sequence(&c2, sid, 1, 0, true, &r);
		assert_int_equal(r.status, NFS4ERR_DELAY);
		nfs4_compound_end(&c2);
		tcall_finish(&t2);
	}
	nfs4_sequence_cache(&c, reply, sizeof(reply));
	nfs4_compound_end(&c);
	assert_null(c.session);
	tcall_finish(&t);

	/* the retry gets the cached reply, without re-execution */
	tcall_init(&t, 0);
	comp_init(&c, &t, 1, 2);
	sequence(&c, sid, 1, 0, true, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_non_null(c.replay);
	assert_int_equal(c.replay_len, sizeof(reply));
	assert_memory_equal(c.replay, reply, sizeof(reply));
	assert_null(c.slot);
	nfs4_compound_end(&c);
	/* skipping a seqid, going back: misordered */
	comp_init(&c, &t, 1, 2);
	sequence(&c, sid, 3, 0, false, &r);
	assert_int_equal(r.status, NFS4ERR_SEQ_MISORDERED);
	sequence(&c, sid, 0, 0, false, &r);
	assert_int_equal(r.status, NFS4ERR_SEQ_MISORDERED);
	/* slot beyond the table */
	sequence(&c, sid, 1, NFS4_CA_MAXREQUESTS, false, &r);
	assert_int_equal(r.status, NFS4ERR_BADSLOT);
	/* too many ops for the session (ca_maxoperations 16) */
	comp_init(&c, &t, 1, 17);
	sequence(&c, sid, 2, 0, false, &r);
	assert_int_equal(r.status, NFS4ERR_TOO_MANY_OPS);
	/* unknown session */
	{
		uint8_t bad[16] = {0};

		comp_init(&c, &t, 1, 1);
		sequence(&c, bad, 1, 0, false, &r);
		assert_int_equal(r.status, NFS4ERR_BADSESSION);
	}
	/* a large reply not asked to be cached: RETRY_UNCACHED_REP */
	comp_init(&c, &t, 1, 2);
	sequence(&c, sid, 2, 0, false, &r);
	assert_int_equal(r.status, NFS4_OK);
	{
		uint8_t *big = calloc(1, NFS4_SLOT_CACHE_ALWAYS + 1);

		nfs4_sequence_cache(&c, big, NFS4_SLOT_CACHE_ALWAYS + 1);
		free(big);
	}
	nfs4_compound_end(&c);
	comp_init(&c, &t, 1, 2);
	sequence(&c, sid, 2, 0, false, &r);
	assert_int_equal(r.status, NFS4ERR_RETRY_UNCACHED_REP);
	/* another slot is independent */
	sequence(&c, sid, 1, 5, false, &r);
	assert_int_equal(r.status, NFS4_OK);
	nfs4_compound_end(&c);
	tcall_finish(&t);

	/* DESTROY_CLIENTID while a session exists: busy */
	{
		struct wbuf w;
		struct xdr_buf *x = wb_init(&w);

		tcall_init(&t, 0);
		t.call.conn = (struct conn *)(uintptr_t)0x1234; /* new conn */
		comp_init(&c, &t, 1, 1);
		xdr_enc_u64(x, id);
		run_op(&c, &nfs4_op_desc_destroy_clientid, w.b, x->pos, &r);
		assert_int_equal(r.status, NFS4ERR_CLIENTID_BUSY);
		/* from another connection the session is not bound */
		x = wb_init(&w);
		xdr_enc_opaque_fixed(x, sid, 16);
		run_op(&c, &nfs4_op_desc_destroy_session, w.b, x->pos, &r);
		assert_int_equal(r.status,
				 NFS4ERR_CONN_NOT_BOUND_TO_SESSION);
		tcall_finish(&t);
	}
}

/* ---- 4.0 clients and leases -------------------------------------------- */

static clientid4 client40(const char *name, uint32_t uid, uint8_t verf)
{
	struct nfs4_compound c;
	struct opres r;
	struct tcall t;
	struct wbuf w;
	struct xdr_buf *x = wb_init(&w);
	clientid4 id;

	tcall_init(&t, uid);
	comp_init(&c, &t, 0, 1);
	wb_verf(x, verf);
	wb_str(x, name);
	xdr_enc_u32(x, 0x40000000);
	wb_str(x, "tcp");
	wb_str(x, "10.9.9.9.3.1"); /* not loopback: never contacted */
	xdr_enc_u32(x, 1);
	run_op(&c, &nfs4_op_desc_setclientid, w.b, x->pos, &r);
	assert_int_equal(r.status, NFS4_OK);
	id = be64(r.body);
	x = wb_init(&w);
	xdr_enc_u64(x, id);
	assert_true(xdr_enc_opaque_fixed(x, r.body + 8, 8));
	run_op(&c, &nfs4_op_desc_setclientid_confirm, w.b, x->pos, &r);
	assert_int_equal(r.status, NFS4_OK);
	tcall_finish(&t);
	return id;
}

static uint32_t renew(clientid4 id)
{
	struct nfs4_compound c;
	struct opres r;
	struct tcall t;
	struct wbuf w;
	struct xdr_buf *x = wb_init(&w);

	tcall_init(&t, 0);
	comp_init(&c, &t, 0, 1);
	xdr_enc_u64(x, id);
	run_op(&c, &nfs4_op_desc_renew, w.b, x->pos, &r);
	tcall_finish(&t);
	return r.status;
}

/*
 * Reap until @id is gone (up to 2 s): a client pinned by a reference at
 * that moment is not expired (nfs4_client_expired), and on a loaded
 * machine something may still hold one briefly (seen under ASan in CI:
 * the first reap left the client alive).
 */
static void reap_until_gone(clientid4 id)
{
	struct timespec ts = { 0, 10 * 1000000L };
	bool alive = true;

	for (int i = 0; i < 200 && alive; i++) {
		nfs4_state_reap();
		pthread_mutex_lock(&nfs4_st.mu);
		alive = nfs4_client_find(id) != NULL;
		pthread_mutex_unlock(&nfs4_st.mu);
		if (alive)
			nanosleep(&ts, NULL);
	}
	assert_false(alive);
}

static void test_client40_and_lease(void **state)
{
	clientid4 id, id2;

	(void)state;
	nfs4_state_set_clock(fake_clock);
	state_reset(NULL, 0);
	id = client40("linux-client", 0, 1);
	assert_int_equal(renew(id), NFS4_OK);
	assert_int_equal(renew(id + 1000), NFS4ERR_STALE_CLIENTID);
	/* same id and verifier, confirmed: a callback update keeps id */
	id2 = client40("linux-client", 0, 1);
	assert_true(id2 == id);
	/* client reboot: new verifier, new clientid, old one gone */
	id2 = client40("linux-client", 0, 2);
	assert_true(id2 != id);
	assert_int_equal(renew(id), NFS4ERR_STALE_CLIENTID);
	/* the lease runs out */
	fake_now += 60 * 1000;
	nfs4_state_reap();
	assert_int_equal(renew(id2), NFS4_OK);
	fake_now += 91 * 1000;
	reap_until_gone(id2);
	/* expired, not from another server instance (RFC 7530 §16.33.5);
	 * one replaced by its client's reboot stays STALE_CLIENTID */
	assert_int_equal(renew(id2), NFS4ERR_EXPIRED);
	assert_int_equal(renew(id), NFS4ERR_STALE_CLIENTID);
	nfs4_state_set_clock(NULL);
}

/* ---- 4.0 OPEN / seqid replay / share deny / CLOSE / LOCK --------------- */

static char vdir[256];
static struct vfs_export *vex;
static struct export_opts vopts = {.rw = true};

static void fh_root(struct nfs4_compound *c)
{
	struct vfs_obj *root;

	nfs4_fh_clear(&c->cur);
	assert_int_equal(vfs_obj_root(vex, &root), 0);
	c->cur.set = true;
	c->cur.obj = root;
	c->cur.opts = &vopts;
}

static void open40(struct nfs4_compound *c, clientid4 id, const char *owner,
		   uint32_t seqid, uint32_t access, uint32_t deny,
		   bool create, struct opres *r)
{
	struct wbuf w;
	struct xdr_buf *x = wb_init(&w);

	fh_root(c);
	xdr_enc_u32(x, seqid);
	xdr_enc_u32(x, access);
	xdr_enc_u32(x, deny);
	xdr_enc_u64(x, id);
	wb_str(x, owner);
	xdr_enc_u32(x, create ? OPEN4_CREATE : OPEN4_NOCREATE);
	if (create) {
		xdr_enc_u32(x, UNCHECKED4);
		xdr_enc_u32(x, 0); /* empty bitmap */
		xdr_enc_u32(x, 0); /* no values */
	}
	xdr_enc_u32(x, CLAIM_NULL);
	wb_str(x, "f");
	run_op(c, &nfs4_op_desc_open, w.b, x->pos, r);
}

static void confirm40(struct nfs4_compound *c, const struct stateid4 *s,
		      uint32_t seqid, struct opres *r)
{
	struct wbuf w;
	struct xdr_buf *x = wb_init(&w);

	wb_stateid(x, s);
	xdr_enc_u32(x, seqid);
	run_op(c, &nfs4_op_desc_open_confirm, w.b, x->pos, r);
}

static void close40(struct nfs4_compound *c, const struct stateid4 *s,
		    uint32_t seqid, struct opres *r)
{
	struct wbuf w;
	struct xdr_buf *x = wb_init(&w);

	xdr_enc_u32(x, seqid);
	wb_stateid(x, s);
	run_op(c, &nfs4_op_desc_close, w.b, x->pos, r);
}

static void test_open40(void **state)
{
	struct nfs4_compound c, c2;
	struct stateid4 s1, s2, ls;
	struct tcall t, t2;
	struct opres r, r2;
	clientid4 id;

	(void)state;
	if (!vex)
		skip();
	nfs4_state_set_clock(fake_clock);
	state_reset(NULL, 0);
	id = client40("open-client", 0, 1);
	tcall_init(&t, 0);
	comp_init(&c, &t, 0, 3);

	/* a new owner: OPEN4_RESULT_CONFIRM, then OPEN_CONFIRM */
	open40(&c, id, "oo1", 7, OPEN4_SHARE_ACCESS_BOTH,
	       OPEN4_SHARE_DENY_WRITE, true, &r);
	assert_int_equal(r.status, NFS4_OK);
	rd_stateid(r.body, &s1);
	assert_true(be32(r.body + 16 + 20) & OPEN4_RESULT_CONFIRM);
	/* the stateid is unusable before the confirm */
	assert_int_equal(nfs4_state_check_io(&c, &s1, false, 0, 1),
			 NFS4ERR_BAD_STATEID);
	confirm40(&c, &s1, 8, &r);
	assert_int_equal(r.status, NFS4_OK);
	rd_stateid(r.body, &s1);
	assert_int_equal(s1.seqid, 2);
	/* replay of OPEN_CONFIRM: the same bytes, no re-execution */
	{
		struct stateid4 old = s1;

		old.seqid = 1;
		confirm40(&c, &old, 8, &r2);
		assert_true(r2.replayed);
		assert_int_equal(r2.len, r.len);
		assert_memory_equal(r2.body, r.body, r.len);
	}
	/* bad seqid */
	confirm40(&c, &s1, 20, &r);
	assert_int_equal(r.status, NFS4ERR_BAD_SEQID);
	assert_int_equal(nfs4_state_check_io(&c, &s1, true, 0, 1), NFS4_OK);
	assert_int_equal(nfs4_state_check_io(&c, &s1, false, 0, 1), NFS4_OK);
	/* anonymous write is refused by the deny-write reservation */
	{
		struct stateid4 anon = {0};

		assert_int_equal(nfs4_state_check_io(&c, &anon, true, 0, 1),
				 NFS4ERR_LOCKED);
		assert_int_equal(nfs4_state_check_io(&c, &anon, false, 0, 1),
				 NFS4_OK);
	}

	/* another owner wanting write: SHARE_DENIED; read only: fine */
	tcall_init(&t2, 0);
	comp_init(&c2, &t2, 0, 3);
	open40(&c2, id, "oo2", 1, OPEN4_SHARE_ACCESS_WRITE,
	       OPEN4_SHARE_DENY_NONE, false, &r);
	assert_int_equal(r.status, NFS4ERR_SHARE_DENIED);
	open40(&c2, id, "oo2", 1, OPEN4_SHARE_ACCESS_READ,
	       OPEN4_SHARE_DENY_NONE, false, &r);
	assert_int_equal(r.status, NFS4_OK);
	rd_stateid(r.body, &s2);
	confirm40(&c2, &s2, 2, &r);
	assert_int_equal(r.status, NFS4_OK);
	rd_stateid(r.body, &s2);
	/* its stateid may not write */
	assert_int_equal(nfs4_state_check_io(&c2, &s2, true, 0, 1),
			 NFS4ERR_OPENMODE);

	/* LOCK for a new lock owner from the first open (seqid 9) */
	{
		struct wbuf w;
		struct xdr_buf *x = wb_init(&w);

		xdr_enc_u32(x, WRITE_LT);
		xdr_enc_bool(x, false);
		xdr_enc_u64(x, 0);
		xdr_enc_u64(x, 100);
		xdr_enc_bool(x, true);
		xdr_enc_u32(x, 9);
		wb_stateid(x, &s1);
		xdr_enc_u32(x, 0);
		xdr_enc_u64(x, id);
		wb_str(x, "lo1");
		run_op(&c, &nfs4_op_desc_lock, w.b, x->pos, &r);
		assert_int_equal(r.status, NFS4_OK);
		rd_stateid(r.body, &ls);
		assert_int_equal(ls.seqid, 1);
	}
	/* LOCKT by another owner sees the conflict with its owner */
	{
		struct wbuf w;
		struct xdr_buf *x = wb_init(&w);

		xdr_enc_u32(x, READ_LT);
		xdr_enc_u64(x, 50);
		xdr_enc_u64(x, 1);
		xdr_enc_u64(x, id);
		wb_str(x, "lo2");
		run_op(&c2, &nfs4_op_desc_lockt, w.b, x->pos, &r);
		assert_int_equal(r.status, NFS4ERR_DENIED);
		assert_true(be64(r.body) == 0);
		assert_true(be64(r.body + 8) == 100);
		assert_int_equal(be32(r.body + 16), WRITE_LT);
		assert_true(be64(r.body + 20) == id);
		assert_int_equal(be32(r.body + 28), 3);
		assert_memory_equal(r.body + 32, "lo1", 3);
		/* beyond the lock: free */
		x = wb_init(&w);
		xdr_enc_u32(x, WRITE_LT);
		xdr_enc_u64(x, 100);
		xdr_enc_u64(x, UINT64_MAX);
		xdr_enc_u64(x, id);
		wb_str(x, "lo2");
		run_op(&c2, &nfs4_op_desc_lockt, w.b, x->pos, &r);
		assert_int_equal(r.status, NFS4_OK);
	}
	/* CLOSE with the lock held: LOCKS_HELD (seqid 10 is consumed) */
	close40(&c, &s1, 10, &r);
	assert_int_equal(r.status, NFS4ERR_LOCKS_HELD);
	/* LOCKU the whole range with the lock owner's seqid */
	{
		struct wbuf w;
		struct xdr_buf *x = wb_init(&w);

		xdr_enc_u32(x, WRITE_LT);
		xdr_enc_u32(x, 1);
		wb_stateid(x, &ls);
		xdr_enc_u64(x, 0);
		xdr_enc_u64(x, UINT64_MAX);
		run_op(&c, &nfs4_op_desc_locku, w.b, x->pos, &r);
		assert_int_equal(r.status, NFS4_OK);
		rd_stateid(r.body, &ls);
		assert_int_equal(ls.seqid, 2);
	}
	/* now CLOSE works, and its retransmission is replayed */
	close40(&c, &s1, 11, &r);
	assert_int_equal(r.status, NFS4_OK);
	close40(&c, &s1, 11, &r2);
	assert_true(r2.replayed);
	assert_int_equal(r2.status, NFS4_OK);
	assert_memory_equal(r2.body, r.body, r.len);
	/* the closed stateid is no longer usable */
	assert_int_equal(nfs4_state_check_io(&c, &s1, false, 0, 1),
			 NFS4ERR_BAD_STATEID);
	/* with the deny gone, the second owner may upgrade to write */
	open40(&c2, id, "oo2", 3, OPEN4_SHARE_ACCESS_BOTH,
	       OPEN4_SHARE_DENY_NONE, false, &r);
	assert_int_equal(r.status, NFS4_OK);
	rd_stateid(r.body, &s2);
	assert_int_equal(s2.seqid, 3);
	assert_int_equal(nfs4_state_check_io(&c2, &s2, true, 0, 1), NFS4_OK);

	nfs4_fh_clear(&c.cur);
	nfs4_fh_clear(&c2.cur);
	tcall_finish(&t);
	tcall_finish(&t2);
	/* client expiry releases everything: EXPIRED for its stateids */
	fake_now += 200 * 1000;
	reap_until_gone(id);
	tcall_init(&t, 0);
	comp_init(&c, &t, 0, 1);
	fh_root(&c);
	assert_int_equal(nfs4_state_check_io(&c, &s2, false, 0, 1),
			 NFS4ERR_EXPIRED);
	nfs4_fh_clear(&c.cur);
	tcall_finish(&t);
	nfs4_state_set_clock(NULL);
}

/* ---- the file state other protocols share --------------------------- */

/* An SMB open, as the shared file state sees it (holder of tag SMB). */
static int smb_open_;
static const struct state_holder smb = {&smb_open_, STATE_HOLDER_SMB};

static uint32_t remove_name(struct nfs4_compound *c, const char *name)
{
	struct opres r;
	struct wbuf w;
	struct xdr_buf *x = wb_init(&w);

	fh_root(c);
	wb_str(x, name);
	run_op(c, &nfs4_op_desc_remove, w.b, x->pos, &r);
	return r.status;
}

static uint32_t rename_name(struct nfs4_compound *c, const char *from,
			    const char *to)
{
	struct opres r;
	struct wbuf w;
	struct xdr_buf *x = wb_init(&w);

	fh_root(c);
	nfs4_fh_copy(&c->saved, &c->cur);
	wb_str(x, from);
	wb_str(x, to);
	run_op(c, &nfs4_op_desc_rename, w.b, x->pos, &r);
	nfs4_fh_clear(&c->saved);
	return r.status;
}

/*
 * NFSv4 opens and locks against another protocol's (an SMB open's) in the
 * shared file state: share modes both ways, Windows locks mandatory for
 * NFSv4 I/O and conflicting with NFSv4 locks, and DELETE denied to REMOVE
 * and RENAME. With NFSv4 alone none of this can happen.
 */
static void test_other_protocols(void **state)
{
	struct nfs4_compound c;
	struct state_range rg;
	struct stateid4 s1, anon = {0};
	struct state_file *f;
	struct vfs_obj *obj;
	struct opres r;
	struct tcall t;
	clientid4 id;

	(void)state;
	if (!vex)
		skip();
	nfs4_state_set_clock(fake_clock);
	state_reset(NULL, 0);
	id = client40("mixed-client", 0, 1);
	tcall_init(&t, 0);
	comp_init(&c, &t, 0, 3);
	open40(&c, id, "mo1", 1, OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE,
	       true, &r);
	assert_int_equal(r.status, NFS4_OK);
	rd_stateid(r.body, &s1);
	confirm40(&c, &s1, 2, &r);
	assert_int_equal(r.status, NFS4_OK);
	rd_stateid(r.body, &s1);
	obj = c.cur.obj;
	f = state_file_find(obj);
	assert_non_null(f);

	/* the NFSv4 open's write access refuses an SMB deny-write */
	assert_int_equal(state_share_acquire(f, &smb, STATE_ACCESS_READ,
					     STATE_DENY_WRITE),
			 -EBUSY);
	/* an SMB exclusive lock: NFSv4 I/O over it is LOCKED */
	assert_int_equal(state_range_win(0, 100, &rg), 0);
	assert_int_equal(state_lock(f, &smb, &rg, true, NULL, NULL), 0);
	assert_int_equal(nfs4_state_check_io(&c, &s1, false, 0, 10),
			 NFS4ERR_LOCKED);
	assert_int_equal(nfs4_state_check_io(&c, &s1, true, 99, 10),
			 NFS4ERR_LOCKED);
	assert_int_equal(nfs4_state_check_io(&c, &anon, false, 50, 1),
			 NFS4ERR_LOCKED);
	assert_int_equal(nfs4_state_check_io(&c, &s1, true, 100, 10), NFS4_OK);
	/* an NFSv4 LOCK over it: DENIED, described without an owner */
	{
		struct wbuf w;
		struct xdr_buf *x = wb_init(&w);

		xdr_enc_u32(x, READ_LT);
		xdr_enc_bool(x, false);
		xdr_enc_u64(x, 50);
		xdr_enc_u64(x, 10);
		xdr_enc_bool(x, true);
		xdr_enc_u32(x, 3);
		wb_stateid(x, &s1);
		xdr_enc_u32(x, 0);
		xdr_enc_u64(x, id);
		wb_str(x, "mlo");
		run_op(&c, &nfs4_op_desc_lock, w.b, x->pos, &r);
		assert_int_equal(r.status, NFS4ERR_DENIED);
		assert_true(be64(r.body) == 0);
		assert_true(be64(r.body + 8) == 100);
		assert_int_equal(be32(r.body + 16), WRITE_LT);
		assert_true(be64(r.body + 20) == 0);
		assert_int_equal(be32(r.body + 28), 0);
	}
	assert_int_equal(state_unlock_all(f, &smb), 1);
	assert_int_equal(nfs4_state_check_io(&c, &s1, false, 0, 10), NFS4_OK);

	/* NFSv4 CLOSE, then an SMB open without FILE_SHARE_WRITE and
	 * FILE_SHARE_DELETE */
	close40(&c, &s1, 4, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_int_equal(
		state_share_acquire(f, &smb, STATE_ACCESS_READ,
				    STATE_DENY_WRITE | STATE_DENY_DELETE),
		0);
	open40(&c, id, "mo1", 5, OPEN4_SHARE_ACCESS_WRITE,
	       OPEN4_SHARE_DENY_NONE, false, &r);
	assert_int_equal(r.status, NFS4ERR_SHARE_DENIED);
	open40(&c, id, "mo1", 6, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_READ,
	       false, &r);
	assert_int_equal(r.status, NFS4ERR_SHARE_DENIED);
	/* anonymous writes are refused by its deny-write (the entry holds
	 * the object for us) */
	vfs_obj_get(obj);
	nfs4_fh_set_obj(&c.cur, NULL, &vopts, obj);
	assert_int_equal(nfs4_state_check_io(&c, &anon, true, 0, 1),
			 NFS4ERR_LOCKED);
	assert_int_equal(nfs4_state_check_io(&c, &anon, false, 0, 1), NFS4_OK);
	/* REMOVE and RENAME of it or over it: FILE_OPEN */
	assert_int_equal(remove_name(&c, "f"), NFS4ERR_FILE_OPEN);
	assert_int_equal(rename_name(&c, "f", "g"), NFS4ERR_FILE_OPEN);
	{
		struct vfs_sattr sa = {0};
		struct vfs_obj *root, *other;

		assert_int_equal(vfs_obj_root(vex, &root), 0);
		assert_int_equal(vfs_create(root, "h", 1, VFS_CREATE_UNCHECKED,
					    &sa, NULL, &other),
				 0);
		vfs_obj_put(other);
		vfs_obj_put(root);
	}
	assert_int_equal(rename_name(&c, "h", "f"), NFS4ERR_FILE_OPEN);
	/* other names are not affected */
	assert_int_equal(rename_name(&c, "h", "h2"), NFS4_OK);
	assert_int_equal(remove_name(&c, "h2"), NFS4_OK);
	assert_int_equal(nfs4_status(OP_REMOVE, -ETXTBSY), NFS4ERR_FILE_OPEN);
	/* FILE_SHARE_DELETE given: the name may go */
	assert_int_equal(state_share_change(f, &smb, STATE_ACCESS_READ,
					    STATE_DENY_WRITE),
			 0);
	assert_int_equal(rename_name(&c, "f", "f2"), NFS4_OK);
	assert_int_equal(rename_name(&c, "f2", "f"), NFS4_OK);
	state_share_release(f, &smb);
	state_file_put(f);

	nfs4_fh_clear(&c.cur);
	tcall_finish(&t);
	state_reset(NULL, 0);
	{
		struct state_counts sc;

		state_counts(&sc);
		assert_int_equal(sc.shares, 0);
		assert_int_equal(sc.ranges, 0);
	}
	nfs4_state_set_clock(NULL);
}

/* ---- threads: clients at once -------------------------------------------- */

/*
 * Several clients drive the state module at once through the operations
 * (SEQUENCE, OPEN, LOCK, LOCKU, TEST_STATEID, CLOSE, check_io; a 4.0 client
 * with RENEW and its seqids) on a few shared files, while another thread
 * creates and destroys clients and sessions and runs the reaper: the
 * structural lock against the hot path. Meant for ThreadSanitizer too
 * (docs/testing.md). cmocka's asserts are for the main thread only, so
 * the threads count what went wrong and the main thread checks.
 */
#define MT_CLIENTS 4
#define MT_ROUNDS  2000
#define MT_FILES   3

/* run_op without cmocka: the status, or UINT32_MAX if it did not decode */
static uint32_t mt_op(struct nfs4_compound *c, const struct nfs4_op *op,
		      const uint8_t *args, size_t alen, uint8_t *body,
		      size_t bsize)
{
	void *a = calloc(1, op->args_size + 1);
	void *r = calloc(1, op->res_size + 1);
	uint8_t enc[4100];
	struct xdr_buf x;
	uint32_t st = UINT32_MAX;

	if (!a || !r)
		goto out;
	xdr_init(&x, (void *)args, alen);
	if (!op->decode(&x, a) || xdr_remaining(&x) != 0)
		goto out;
	st = op->handle(c, a, r);
	if (c->op_replay) { /* not expected: 4.0 seqids go one by one */
		c->op_replay = NULL;
		c->op_replay_len = 0;
		st = UINT32_MAX - 1;
		goto out_release;
	}
	xdr_init(&x, enc, sizeof(enc));
	xdr_enc_u32(&x, st);
	if (op->encode && (st == NFS4_OK || op->encode_err) &&
	    !op->encode(&x, st, r))
		st = UINT32_MAX - 2;
	if (op->cache)
		op->cache(c, r, enc, x.pos);
	if (body)
		memcpy(body, enc + 4, x.pos - 4 < bsize ? x.pos - 4 : bsize);
out_release:
	if (op->release)
		op->release(c, r);
out:
	free(a);
	free(r);
	return st;
}

static bool mt_root(struct nfs4_compound *c)
{
	struct vfs_obj *root;

	nfs4_fh_clear(&c->cur);
	if (vfs_obj_root(vex, &root) != 0)
		return false;
	c->cur.set = true;
	c->cur.obj = root;
	c->cur.opts = &vopts;
	return true;
}

static uint32_t mt_sequence(struct nfs4_compound *c, const uint8_t sid[16],
			    uint32_t seq)
{
	struct wbuf w;
	struct xdr_buf *x = wb_init(&w);

	xdr_enc_opaque_fixed(x, sid, 16);
	xdr_enc_u32(x, seq);
	xdr_enc_u32(x, 0);
	xdr_enc_u32(x, 0);
	xdr_enc_bool(x, false);
	return mt_op(c, &nfs4_op_desc_sequence, w.b, x->pos, NULL, 0);
}

/* OPEN (CLAIM_NULL, create UNCHECKED) of @name in the root. */
static uint32_t mt_open(struct nfs4_compound *c, clientid4 id,
			const char *owner, uint32_t seqid, uint32_t deny,
			const char *name, struct stateid4 *sid)
{
	uint8_t body[64];
	struct wbuf w;
	struct xdr_buf *x = wb_init(&w);
	uint32_t st;

	if (!mt_root(c))
		return UINT32_MAX;
	xdr_enc_u32(x, seqid);
	xdr_enc_u32(x, OPEN4_SHARE_ACCESS_BOTH);
	xdr_enc_u32(x, deny);
	xdr_enc_u64(x, id);
	wb_str(x, owner);
	xdr_enc_u32(x, OPEN4_CREATE);
	xdr_enc_u32(x, UNCHECKED4);
	xdr_enc_u32(x, 0);
	xdr_enc_u32(x, 0);
	xdr_enc_u32(x, CLAIM_NULL);
	wb_str(x, name);
	st = mt_op(c, &nfs4_op_desc_open, w.b, x->pos, body, sizeof(body));
	if (st == NFS4_OK)
		rd_stateid(body, sid);
	return st;
}

static uint32_t mt_stateid_op(struct nfs4_compound *c, const struct nfs4_op *op,
			      uint32_t seqid, bool seqid_first,
			      const struct stateid4 *sid, struct stateid4 *out)
{
	uint8_t body[64];
	struct wbuf w;
	struct xdr_buf *x = wb_init(&w);
	uint32_t st;

	if (seqid_first)
		xdr_enc_u32(x, seqid);
	wb_stateid(x, sid);
	if (!seqid_first)
		xdr_enc_u32(x, seqid);
	st = mt_op(c, op, w.b, x->pos, body, sizeof(body));
	if (st == NFS4_OK && out)
		rd_stateid(body, out);
	return st;
}

/* all threads start together, so that they overlap */
static pthread_barrier_t mt_start;

struct mt_client {
	int idx;
	clientid4 id;
	uint8_t sid[16];
	unsigned int seed;
	int errors;
	int opened, locked, denied;
};

/* One 4.1 client: a compound per round. */
static void *mt_client41(void *arg)
{
	struct mt_client *m = arg;
	char owner[16], lowner[16], name[16];
	uint32_t seq = 0;
	int i;

	pthread_barrier_wait(&mt_start);

	for (i = 0; i < MT_ROUNDS; i++) {
		struct stateid4 os, ls;
		struct nfs4_compound c;
		struct tcall t;
		struct wbuf w;
		struct xdr_buf *x;
		uint32_t st, deny;
		uint64_t off = (uint64_t)(rand_r(&m->seed) % 4) * 10;

		tcall_init(&t, 0);
		comp_init(&c, &t, 1, 8);
		if (mt_sequence(&c, m->sid, ++seq) != NFS4_OK) {
			m->errors++;
			tcall_finish(&t);
			continue;
		}
		snprintf(owner, sizeof(owner), "o%d.%d", m->idx, i % 2);
		snprintf(lowner, sizeof(lowner), "l%d.%d", m->idx, i);
		snprintf(name, sizeof(name), "mt%d",
			 rand_r(&m->seed) % MT_FILES);
		deny = rand_r(&m->seed) % 4 == 0 ? OPEN4_SHARE_DENY_WRITE
						 : OPEN4_SHARE_DENY_NONE;
		st = mt_open(&c, m->id, owner, 0, deny, name, &os);
		if (st == NFS4ERR_SHARE_DENIED) {
			m->denied++;
			goto end;
		}
		if (st != NFS4_OK) {
			m->errors++;
			goto end;
		}
		m->opened++;
		/* POSIX locks never refuse I/O; the open allows both */
		if (nfs4_state_check_io(&c, &os, false, off, 10) != NFS4_OK ||
		    nfs4_state_check_io(&c, &os, true, off, 10) != NFS4_OK)
			m->errors++;
		/* LOCK from the open, for a new lock owner */
		x = wb_init(&w);
		xdr_enc_u32(x, WRITE_LT);
		xdr_enc_bool(x, false);
		xdr_enc_u64(x, off);
		xdr_enc_u64(x, 10);
		xdr_enc_bool(x, true);
		xdr_enc_u32(x, 0);
		wb_stateid(x, &os);
		xdr_enc_u32(x, 0);
		xdr_enc_u64(x, m->id);
		wb_str(x, lowner);
		{
			uint8_t body[64];

			st = mt_op(&c, &nfs4_op_desc_lock, w.b, x->pos, body,
				   sizeof(body));
			if (st == NFS4_OK)
				rd_stateid(body, &ls);
		}
		if (st == NFS4_OK) {
			m->locked++;
			x = wb_init(&w);
			xdr_enc_u32(x, WRITE_LT);
			xdr_enc_u32(x, 0);
			wb_stateid(x, &ls);
			xdr_enc_u64(x, off);
			xdr_enc_u64(x, 10);
			if (mt_op(&c, &nfs4_op_desc_locku, w.b, x->pos, NULL,
				  0) != NFS4_OK)
				m->errors++;
		} else if (st != NFS4ERR_DENIED) {
			m->errors++;
		}
		/* TEST_STATEID of the open: valid */
		x = wb_init(&w);
		xdr_enc_u32(x, 1);
		wb_stateid(x, &os);
		{
			uint8_t body[16];

			if (mt_op(&c, &nfs4_op_desc_test_stateid, w.b, x->pos,
				  body, sizeof(body)) != NFS4_OK ||
			    be32(body + 4) != NFS4_OK)
				m->errors++;
		}
		if (mt_stateid_op(&c, &nfs4_op_desc_close, 0, true, &os,
				  NULL) != NFS4_OK)
			m->errors++;
	end:
		nfs4_sequence_cache(&c, (const uint8_t *)"r", 1);
		nfs4_compound_end(&c);
		nfs4_fh_clear(&c.cur);
		tcall_finish(&t);
	}
	return NULL;
}

/* A 4.0 client: RENEW, OPEN (confirmed once), I/O checks, CLOSE. */
static void *mt_client40(void *arg)
{
	struct mt_client *m = arg;
	uint32_t seqid = 1;
	bool confirmed = false;
	int i;

	pthread_barrier_wait(&mt_start);

	for (i = 0; i < MT_ROUNDS; i++) {
		struct nfs4_compound c;
		struct stateid4 os;
		struct tcall t;
		struct wbuf w;
		struct xdr_buf *x = wb_init(&w);

		tcall_init(&t, 0);
		comp_init(&c, &t, 0, 3);
		xdr_enc_u64(x, m->id);
		if (mt_op(&c, &nfs4_op_desc_renew, w.b, x->pos, NULL, 0) !=
		    NFS4_OK)
			m->errors++;
		if (mt_open(&c, m->id, "o40", seqid++, OPEN4_SHARE_DENY_NONE,
			    "m40", &os) != NFS4_OK) {
			m->errors++;
			goto end;
		}
		if (!confirmed) {
			if (mt_stateid_op(&c, &nfs4_op_desc_open_confirm,
					  seqid++, false, &os, &os) != NFS4_OK)
				m->errors++;
			confirmed = true;
		}
		m->opened++;
		if (nfs4_state_check_io(&c, &os, true, 0, 4096) != NFS4_OK)
			m->errors++;
		if (mt_stateid_op(&c, &nfs4_op_desc_close, seqid++, true, &os,
				  NULL) != NFS4_OK)
			m->errors++;
	end:
		nfs4_fh_clear(&c.cur);
		tcall_finish(&t);
	}
	return NULL;
}

/* Structural work meanwhile: clients and sessions come and go. */
static void *mt_churn(void *arg)
{
	struct mt_client *m = arg;
	int i;

	pthread_barrier_wait(&mt_start);

	for (i = 0; i < MT_ROUNDS / 3; i++) {
		uint8_t body[128], sid[16];
		struct nfs4_compound c;
		struct tcall t;
		struct wbuf w;
		struct xdr_buf *x = wb_init(&w);
		char owner[24];
		clientid4 id;
		uint32_t st;

		tcall_init(&t, 0);
		comp_init(&c, &t, 1, 1);
		snprintf(owner, sizeof(owner), "churn-%d", i);
		wb_verf(x, 1);
		wb_str(x, owner);
		xdr_enc_u32(x, 0);
		xdr_enc_u32(x, SP4_NONE);
		xdr_enc_u32(x, 0);
		st = mt_op(&c, &nfs4_op_desc_exchange_id, w.b, x->pos, body,
			   sizeof(body));
		if (st != NFS4_OK) {
			m->errors++;
			goto end;
		}
		id = be64(body);
		x = wb_init(&w);
		xdr_enc_u64(x, id);
		xdr_enc_u32(x, be32(body + 8));
		xdr_enc_u32(x, CREATE_SESSION4_FLAG_CONN_BACK_CHAN);
		enc_chan(x, 1 << 20, 8);
		enc_chan(x, 4096, 4);
		xdr_enc_u32(x, 0x40000000);
		xdr_enc_u32(x, 1);
		xdr_enc_u32(x, AUTH_NONE);
		if (mt_op(&c, &nfs4_op_desc_create_session, w.b, x->pos, body,
			  sizeof(body)) != NFS4_OK) {
			m->errors++;
			goto end;
		}
		memcpy(sid, body, 16);
		nfs4_state_reap();
		/* a session in use cannot go with its client */
		x = wb_init(&w);
		xdr_enc_u64(x, id);
		if (mt_op(&c, &nfs4_op_desc_destroy_clientid, w.b, x->pos, NULL,
			  0) != NFS4ERR_CLIENTID_BUSY)
			m->errors++;
		x = wb_init(&w);
		xdr_enc_opaque_fixed(x, sid, 16);
		if (mt_op(&c, &nfs4_op_desc_destroy_session, w.b, x->pos, NULL,
			  0) != NFS4_OK)
			m->errors++;
		/* a connection closing walks every client's sessions */
		nfs4_bc_conn_closed(t.call.conn);
		x = wb_init(&w);
		xdr_enc_u64(x, id);
		if (mt_op(&c, &nfs4_op_desc_destroy_clientid, w.b, x->pos, NULL,
			  0) != NFS4_OK)
			m->errors++;
	end:
		nfs4_compound_end(&c);
		tcall_finish(&t);
	}
	return NULL;
}

static void test_threads(void **state)
{
	struct mt_client m[MT_CLIENTS + 2];
	pthread_t th[MT_CLIENTS + 2];
	struct state_counts sc;
	int i;

	(void)state;
	if (!vex)
		skip();
	state_reset(NULL, 0);
	memset(m, 0, sizeof(m));
	for (i = 0; i < MT_CLIENTS; i++) {
		char owner[16];

		snprintf(owner, sizeof(owner), "mt-client-%d", i);
		m[i].idx = i;
		m[i].seed = (unsigned int)i * 2654435761u + 1;
		client41(owner, 0, &m[i].id, m[i].sid);
	}
	m[MT_CLIENTS].id = client40("mt-client-40", 0, 1);
	pthread_barrier_init(&mt_start, NULL, MT_CLIENTS + 2);
	for (i = 0; i < MT_CLIENTS; i++)
		assert_int_equal(
			pthread_create(&th[i], NULL, mt_client41, &m[i]), 0);
	assert_int_equal(pthread_create(&th[MT_CLIENTS], NULL, mt_client40,
					&m[MT_CLIENTS]),
			 0);
	assert_int_equal(pthread_create(&th[MT_CLIENTS + 1], NULL, mt_churn,
					&m[MT_CLIENTS + 1]),
			 0);
	for (i = 0; i < MT_CLIENTS + 2; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&mt_start);
	for (i = 0; i < MT_CLIENTS + 2; i++)
		assert_int_equal(m[i].errors, 0);
	for (i = 0; i < MT_CLIENTS; i++) {
		fprintf(stderr,
			"test_threads: client %d: %d opens, %d locks, "
			"%d opens denied\n",
			i, m[i].opened, m[i].locked, m[i].denied);
		assert_int_equal(m[i].opened + m[i].denied, MT_ROUNDS);
		assert_true(m[i].opened > 0);
		assert_true(m[i].locked > 0);
	}
	assert_int_equal(m[MT_CLIENTS].opened, MT_ROUNDS);
	/* everything was closed: no share, no range, no entry left */
	state_counts(&sc);
	assert_int_equal(sc.shares, 0);
	assert_int_equal(sc.ranges, 0);
	assert_int_equal(sc.files, 0);
	state_reset(NULL, 0);
}

/* ---- grace and reclaim across a restart -------------------------------- */

static void reclaim_complete(clientid4 id, const uint8_t sid[16],
			     uint32_t seq, struct opres *r)
{
	struct nfs4_compound c;
	struct opres sr;
	struct tcall t;
	struct wbuf w;
	struct xdr_buf *x = wb_init(&w);

	(void)id;
	tcall_init(&t, 0);
	comp_init(&c, &t, 1, 2);
	sequence(&c, sid, seq, 0, false, &sr);
	assert_int_equal(sr.status, NFS4_OK);
	xdr_enc_bool(x, false);
	run_op(&c, &nfs4_op_desc_reclaim_complete, w.b, x->pos, r);
	nfs4_compound_end(&c);
	tcall_finish(&t);
}

static void test_grace_restart(void **state)
{
	char dir[] = "/tmp/nasd-n2-grace-XXXXXX";
	struct nfs4_client *cl;
	uint8_t sid[16], sid2[16];
	clientid4 id, id2;
	struct opres r;

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* first life: two clients confirmed (recorded) */
	state_reset(dir, 60);
	assert_false(nfs4_in_grace()); /* nothing to reclaim */
	client41_bare("known-1", 0, &id, sid);
	client41_bare("known-2", 0, &id2, sid2);
	/* "restart" */
	state_reset(dir, 60);
	assert_true(nfs4_in_grace());
	client41_bare("known-1", 0, &id, sid);
	client41_bare("stranger", 0, &id2, sid2);
	pthread_mutex_lock(&nfs4_st.mu);
	cl = nfs4_client_find(id);
	assert_non_null(cl);
	assert_int_equal(nfs4_grace_check_reclaim(cl), NFS4_OK);
	assert_int_equal(nfs4_grace_check_new(), NFS4ERR_GRACE);
	assert_int_equal(nfs4_grace_check_reclaim(nfs4_client_find(id2)),
			 NFS4ERR_RECLAIM_BAD);
	pthread_mutex_unlock(&nfs4_st.mu);
	reclaim_complete(id, sid, 1, &r);
	assert_int_equal(r.status, NFS4_OK);
	reclaim_complete(id, sid, 2, &r);
	assert_int_equal(r.status, NFS4ERR_COMPLETE_ALREADY);
	pthread_mutex_lock(&nfs4_st.mu);
	cl = nfs4_client_find(id);
	/* done reclaiming: its reclaims are over; "known-2" keeps grace */
	assert_int_equal(nfs4_grace_check_reclaim(cl), NFS4ERR_NO_GRACE);
	pthread_mutex_unlock(&nfs4_st.mu);
	assert_true(nfs4_in_grace());
	/* known-2 comes back and completes: grace ends early */
	client41_bare("known-2", 0, &id2, sid2);
	reclaim_complete(id2, sid2, 1, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_false(nfs4_in_grace());
	pthread_mutex_lock(&nfs4_st.mu);
	assert_int_equal(nfs4_grace_check_new(), NFS4_OK);
	assert_int_equal(nfs4_grace_check_reclaim(nfs4_client_find(id2)),
			 NFS4ERR_NO_GRACE);
	pthread_mutex_unlock(&nfs4_st.mu);

	/* third life: grace ends on its timer; the stranger was recorded
	 * too, and one that never returns loses its record at the end */
	nfs4_state_set_clock(fake_clock);
	state_reset(dir, 60);
	assert_true(nfs4_in_grace());
	fake_now += 61 * 1000;
	assert_false(nfs4_in_grace());
	nfs4_state_reap(); /* flushes the record removals */
	state_reset(dir, 60);
	assert_false(nfs4_in_grace()); /* no records left */
	nfs4_state_set_clock(NULL);

	/* grace 0 disables it even with records */
	client41_bare("known-3", 0, &id, sid);
	state_reset(dir, 0);
	assert_false(nfs4_in_grace());
	nfs4_state_shutdown();
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		assert_int_equal(system(cmd), 0);
	}
}

/* ---- main --------------------------------------------------------------- */

static int vfs_setup(void)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/var/tmp";
	uint8_t key[16] = {9, 8, 7, 6, 5, 4, 3, 2, 1};

	if (geteuid() != 0)
		return -1;
	snprintf(vdir, sizeof(vdir), "%s/nasd-n2-vfs-XXXXXX", base);
	if (!mkdtemp(vdir))
		return -1;
	vfs_secret_set(key);
	return vfs_export_open(vdir, 77, &vex);
}

/* ---- 4.1 back channel and false retries -------------------------------- */

static pthread_mutex_t fk_mu = PTHREAD_MUTEX_INITIALIZER;
static int fk_refs;             /* pins held on fake connections */
static bool fk_closed;
static uint8_t fk_sent[512];
static size_t fk_sent_len;
static struct conn *fk_sent_conn;
static int fk_nsent;

static void fk_get(struct conn *c)
{
	(void)c;
	pthread_mutex_lock(&fk_mu);
	fk_refs++;
	pthread_mutex_unlock(&fk_mu);
}

static void fk_put(struct conn *c)
{
	(void)c;
	pthread_mutex_lock(&fk_mu);
	fk_refs--;
	pthread_mutex_unlock(&fk_mu);
}

static bool fk_is_closed(const struct conn *c)
{
	(void)c;
	return fk_closed;
}

/* Messages are requests with only a reply (transport_msg_new's shape). */
struct fk_msg {
	struct req req;
	uint8_t arena[4096];
};

static struct req *fk_msg_new(struct conn *c)
{
	struct fk_msg *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	req_init(&m->req, m->arena, sizeof(m->arena));
	m->req.conn = c;
	return &m->req;
}

static void fk_msg_free(struct req *r)
{
	req_finish(r);
	free((struct fk_msg *)(void *)r);
}

static int fk_msg_send(struct req *r)
{
	size_t len = req_reply_len(r);

	pthread_mutex_lock(&fk_mu);
	if (len <= sizeof(fk_sent)) {
		assert_int_equal(req_reply_copy(r, 0, fk_sent, len),
				 (ssize_t)len);
		fk_sent_len = len;
	}
	fk_sent_conn = r->conn;
	fk_nsent++;
	pthread_mutex_unlock(&fk_mu);
	fk_msg_free(r);
	return 0;
}

static const struct nfs4_bc_ops fk_ops = {
	.get = fk_get,
	.put = fk_put,
	.closed = fk_is_closed,
	.msg_new = fk_msg_new,
	.msg_send = fk_msg_send,
	.msg_free = fk_msg_free,
};

/* Wait (up to 5 s) for the callback thread to have sent @n calls. */
static void fk_wait_sent(int n)
{
	int i, got = 0;

	for (i = 0; i < 500; i++) {
		pthread_mutex_lock(&fk_mu);
		got = fk_nsent;
		pthread_mutex_unlock(&fk_mu);
		if (got >= n)
			break;
		usleep(10000);
	}
	assert_int_equal(got, n);
}

/* Wait (up to 5 s) for the pins to be @n: the callback thread drops the
 * one of a probe just after sending it. */
static void fk_wait_refs(int n)
{
	int i, got = 0;

	for (i = 0; i < 500; i++) {
		pthread_mutex_lock(&fk_mu);
		got = fk_refs;
		pthread_mutex_unlock(&fk_mu);
		if (got == n)
			break;
		usleep(10000);
	}
	assert_int_equal(got, n);
}

/* SEQUENCE on a new slot seqid of @sid from @t; returns sr_status_flags. */
static uint32_t seq_flags(const uint8_t sid[16], uint32_t seq,
			  struct tcall *t)
{
	struct nfs4_compound c;
	struct opres r;

	comp_init(&c, t, 1, 1);
	sequence(&c, sid, seq, 0, false, &r);
	assert_int_equal(r.status, NFS4_OK);
	nfs4_sequence_cache(&c, (const uint8_t *)"r", 1);
	nfs4_compound_end(&c);
	return be32(r.body + 32);
}

/* An RPC reply record to @xid: accepted with @stat. */
static size_t mk_reply(uint8_t *b, uint32_t xid, uint32_t stat)
{
	struct xdr_buf x;

	xdr_init(&x, b, 64);
	xdr_enc_u32(&x, xid);
	xdr_enc_u32(&x, REPLY);
	xdr_enc_u32(&x, MSG_ACCEPTED);
	xdr_enc_u32(&x, AUTH_NONE);
	xdr_enc_u32(&x, 0);
	xdr_enc_u32(&x, stat);
	return x.pos;
}

static void test_backchannel(void **state)
{
	struct nfs4_bc_counts cnt;
	uint8_t sid[16], sid2[16], rep[64];
	struct conn *conn;
	clientid4 id, id2;
	struct tcall t;
	uint32_t xid;
	size_t n;

	(void)state;
	fk_refs = 0;
	fk_nsent = 0;
	fk_closed = false;
	state_reset(NULL, 0);
	nfs4_state_set_clock(fake_clock);
	nfs4_bc_set_ops(&fk_ops);

	/* CREATE_SESSION with CONN_BACK_CHAN: a CB_NULL goes out */
	client41_bare("bc-owner", 0, &id, sid);
	fk_wait_sent(1);
	assert_int_equal(fk_sent_len, 40);
	xid = be32(fk_sent);
	assert_int_equal(be32(fk_sent + 4), CALL);
	assert_int_equal(be32(fk_sent + 8), RPC_VERSION);
	assert_int_equal(be32(fk_sent + 12), 0x40000000); /* csa_cb_program */
	assert_int_equal(be32(fk_sent + 16), NFS4_CB_VERSION);
	assert_int_equal(be32(fk_sent + 20), 0);          /* CB_NULL */
	assert_int_equal(be32(fk_sent + 24), AUTH_NONE);
	conn = fk_sent_conn;
	/* the session pins its connection */
	fk_wait_refs(1);

	tcall_init(&t, 0);
	t.call.conn = conn;
	/* not answered yet, within the timeout: not reported down */
	assert_int_equal(seq_flags(sid, 1, &t), 0);
	/* a reply with another xid, or from another connection: ignored */
	n = mk_reply(rep, xid + 1, SUCCESS);
	nfs4_bc_reply(conn, xid + 1, rep, n);
	n = mk_reply(rep, xid, SUCCESS);
	nfs4_bc_reply((struct conn *)&t.argbuf, xid, rep, n);
	nfs4_bc_counts(&cnt);
	assert_int_equal(cnt.answered, 0);
	/* the answer: up, and stays up past the timeout */
	nfs4_bc_reply(conn, xid, rep, n);
	nfs4_bc_counts(&cnt);
	assert_int_equal(cnt.sent, 1);
	assert_int_equal(cnt.answered, 1);
	fake_now += NFS4_CB_PROBE_TIMEOUT_MS + 1000;
	assert_int_equal(seq_flags(sid, 2, &t), 0);

	/* a second session of the same client whose probe is never
	 * answered: down after the timeout, for that session only */
	{
		struct opres r;
		struct tcall t2;

		tcall_init(&t2, 0);
		create_session(id, 2, 0, &t2, &r);
		assert_int_equal(r.status, NFS4_OK);
		memcpy(sid2, r.body, 16);
		tcall_finish(&t2);
	}
	fk_wait_sent(2);
	assert_int_equal(seq_flags(sid2, 1, &t), 0);
	fake_now += NFS4_CB_PROBE_TIMEOUT_MS + 1;
	assert_int_equal(seq_flags(sid2, 2, &t),
			 SEQ4_STATUS_CB_PATH_DOWN_SESSION);
	/* the refused answer of a late reply changes nothing */
	n = mk_reply(rep, be32(fk_sent), SUCCESS);
	nfs4_bc_reply(fk_sent_conn, be32(fk_sent), rep, n);
	assert_int_equal(seq_flags(sid2, 3, &t),
			 SEQ4_STATUS_CB_PATH_DOWN_SESSION);
	/* pins: session 1 and 2 on conn (2 bound it by use), 2 on its own */
	fk_wait_refs(3);

	/* the first session's connection closes: both down, client-wide */
	nfs4_bc_conn_closed(conn);
	assert_int_equal(fk_refs, 1);
	t.call.conn = (struct conn *)&t.conn; /* a live one for SEQUENCE */
	assert_int_equal(seq_flags(sid, 3, &t) &
				 (SEQ4_STATUS_CB_PATH_DOWN_SESSION |
				  SEQ4_STATUS_CB_PATH_DOWN),
			 SEQ4_STATUS_CB_PATH_DOWN_SESSION |
				 SEQ4_STATUS_CB_PATH_DOWN);
	nfs4_bc_counts(&cnt);
	assert_true(cnt.failed >= 1);

	/* another client whose sec parms are all RPCSEC_GSS: down at once */
	{
		struct nfs4_compound c;
		struct opres r;
		struct tcall t3;
		struct wbuf w;
		struct xdr_buf *x = wb_init(&w);

		exchange_id("bc-gss", 1, 0, 0, &r);
		assert_int_equal(r.status, NFS4_OK);
		id2 = be64(r.body);
		tcall_init(&t3, 0);
		comp_init(&c, &t3, 1, 1);
		xdr_enc_u64(x, id2);
		xdr_enc_u32(x, be32(r.body + 8));
		xdr_enc_u32(x, CREATE_SESSION4_FLAG_CONN_BACK_CHAN);
		enc_chan(x, 1 << 20, 8);
		enc_chan(x, 4096, 4);
		xdr_enc_u32(x, 0x40000000);
		xdr_enc_u32(x, 1);
		xdr_enc_u32(x, RPCSEC_GSS);
		xdr_enc_u32(x, 1);          /* gcbp_service */
		xdr_enc_u32(x, 0);          /* handle from server */
		xdr_enc_u32(x, 0);          /* handle from client */
		run_op(&c, &nfs4_op_desc_create_session, w.b, x->pos, &r);
		assert_int_equal(r.status, NFS4_OK);
		memcpy(sid2, r.body, 16);
		nfs4_compound_end(&c);
		tcall_finish(&t3);
		assert_int_equal(seq_flags(sid2, 1, &t),
				 SEQ4_STATUS_CB_PATH_DOWN_SESSION |
					 SEQ4_STATUS_CB_PATH_DOWN);
	}
	tcall_finish(&t);

	/* every pin is given back when the sessions go */
	state_reset(NULL, 0);
	assert_int_equal(fk_refs, 0);
	assert_int_equal(fk_nsent, 2);
	nfs4_bc_set_ops(NULL);
	nfs4_state_set_clock(NULL);
}

static void test_false_retry(void **state)
{
	static const uint8_t reply[] = "cached";
	struct nfs4_compound c;
	uint8_t sid[16];
	clientid4 id;
	struct opres r;
	struct tcall t;

	(void)state;
	state_reset(NULL, 0);
	client41("false-retry", 0, &id, sid);
	tcall_init(&t, 0);
	memset(t.argbuf, 0x5a, sizeof(t.argbuf));
	comp_init(&c, &t, 1, 2);
	sequence(&c, sid, 1, 0, true, &r);
	assert_int_equal(r.status, NFS4_OK);
	nfs4_sequence_cache(&c, reply, sizeof(reply));
	nfs4_compound_end(&c);
	/* same slot and seqid, other arguments: a false retry */
	t.argbuf[150] ^= 1;
	comp_init(&c, &t, 1, 2);
	sequence(&c, sid, 1, 0, true, &r);
	assert_int_equal(r.status, NFS4ERR_SEQ_FALSE_RETRY);
	nfs4_compound_end(&c);
	/* other length: also false */
	t.argbuf[150] ^= 1;
	t.call.args.len = sizeof(t.argbuf) - 4;
	sequence(&c, sid, 1, 0, true, &r);
	assert_int_equal(r.status, NFS4ERR_SEQ_FALSE_RETRY);
	/* the real retry still gets the cached reply */
	t.call.args.len = sizeof(t.argbuf);
	comp_init(&c, &t, 1, 2);
	sequence(&c, sid, 1, 0, true, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_non_null(c.replay);
	assert_memory_equal(c.replay, reply, sizeof(reply));
	nfs4_compound_end(&c);
	/* the next seqid with any arguments is new */
	t.argbuf[0] = 1;
	comp_init(&c, &t, 1, 2);
	sequence(&c, sid, 2, 0, true, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_null(c.replay);
	nfs4_sequence_cache(&c, reply, sizeof(reply));
	nfs4_compound_end(&c);
	tcall_finish(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stateid_seqid),
		cmocka_unit_test(test_stateid_lookup),
		cmocka_unit_test(test_exchange_id_cases),
		cmocka_unit_test(test_sequence_slots),
		cmocka_unit_test(test_false_retry),
		cmocka_unit_test(test_backchannel),
		cmocka_unit_test(test_client40_and_lease),
		cmocka_unit_test(test_open40),
		cmocka_unit_test(test_other_protocols),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_grace_restart),
	};
	int ret;

	if (vfs_setup() < 0) {
		fprintf(stderr, "test_nfs4_state: no vfs export (needs root); "
				"OPEN tests skipped\n");
		vex = NULL;
	}
	assert_int_equal(nfs4_state_init(NULL, 90, 0), 0);
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	nfs4_state_shutdown();
	if (vex) {
		char cmd[300];

		vfs_export_close(vex);
		snprintf(cmd, sizeof(cmd), "rm -rf %s", vdir);
		if (system(cmd) != 0)
			ret = 1;
	}
	return ret;
}
