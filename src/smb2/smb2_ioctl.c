// SPDX-License-Identifier: MIT
/*
 * IOCTL (MS-SMB2 §2.2.31, §2.2.32, §3.3.5.15): the request's buffers
 * checked once here, then a table of the FSCTLs this server answers
 * (MS-FSCC 2.3), each with what it needs:
 *
 *  - the connection ones (VALIDATE_NEGOTIATE_INFO, QUERY_NETWORK_
 *    INTERFACE_INFO, DFS_GET_REFERRALS(_EX), PIPE_WAIT) name no open: their
 *    FileId must be all ones (§3.3.5.15);
 *  - every other one acts on the open its FileId names, through the vfs as
 *    the tree's user (the dispatcher applied the credentials), after the
 *    open's granted access is checked here, and honours the other opens'
 *    byte-range locks as READ and WRITE do.
 *
 * Output is written straight into the response after its 48-byte fixed
 * part, into room reserved before the handler runs and never larger than
 * MaxOutputResponse. An FSCTL not in the table is
 * STATUS_INVALID_DEVICE_REQUEST (what Windows and Samba answer for an
 * FSCTL the file system does not implement).
 */
#include "smb2/smb2_int.h"

#include <errno.h>
#include <openssl/crypto.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "core/log.h"
#include "smb2/smb2_info.h"
#include "smb2/smb2_netif.h"
#include "smb2/smb2_open.h"
#include "smb2/smb2_stream.h"
#include "state/file_state.h"
#include "transport/transport.h"
#include "vfs/vfs.h"

/* §2.2.31: StructureSize .. Reserved2; the buffer follows at 64 + 56. */
#define IOCTL_REQ_FIXED 56
/* §2.2.32: StructureSize .. Reserved2; our buffer at 64 + 48. */
#define IOCTL_RSP_FIXED	      48
#define IOCTL_RSP_BUFFER      (SMB2_HDR_LEN + IOCTL_RSP_FIXED)
#define SMB2_0_IOCTL_IS_FSCTL 0x00000001u

/* FSCTL codes (MS-FSCC 2.3, MS-SMB2 §2.2.31). */
#define FSCTL_DFS_GET_REFERRALS		   0x00060194u
#define FSCTL_DFS_GET_REFERRALS_EX	   0x000601b0u
#define FSCTL_GET_COMPRESSION		   0x0009003cu
#define FSCTL_GET_OBJECT_ID		   0x0009009cu
#define FSCTL_CREATE_OR_GET_OBJECT_ID	   0x000900c0u
#define FSCTL_SET_COMPRESSION		   0x0009c040u
#define FSCTL_GET_REPARSE_POINT		   0x000900a8u
#define FSCTL_SET_SPARSE		   0x000900c4u
#define FSCTL_SET_ZERO_DATA		   0x000980c8u
#define FSCTL_QUERY_ALLOCATED_RANGES	   0x000940cfu
#define FSCTL_DUPLICATE_EXTENTS_TO_FILE	   0x00098344u
#define FSCTL_PIPE_PEEK			   0x0011400cu
#define FSCTL_PIPE_WAIT			   0x00110018u
#define FSCTL_PIPE_TRANSCEIVE		   0x0011c017u
#define FSCTL_SRV_REQUEST_RESUME_KEY	   0x00140078u
#define FSCTL_QUERY_NETWORK_INTERFACE_INFO 0x001401fcu
#define FSCTL_VALIDATE_NEGOTIATE_INFO	   0x00140204u
#define FSCTL_SRV_ENUMERATE_SNAPSHOTS	   0x00144064u
#define FSCTL_SRV_COPYCHUNK		   0x001440f2u
#define FSCTL_SRV_COPYCHUNK_WRITE	   0x001480f2u

/* MS-ERREF statuses only IOCTL answers. */
#define STATUS_INVALID_VIEW_SIZE 0xc000001fu

/* MS-FSCC 2.3.67 CompressionState. */
#define COMPRESSION_FORMAT_NONE	   0x0000
#define COMPRESSION_FORMAT_DEFAULT 0x0001
#define COMPRESSION_FORMAT_LZNT1   0x0002

/*
 * Server-side copy limits (§3.3.5.15.6: ServerSideCopyMaxNumberofChunks,
 * ServerSideCopyMaxChunkSize, ServerSideCopyMaxDataSize), Windows' values.
 */
#define COPYCHUNK_MAX_CHUNKS 256u
#define COPYCHUNK_MAX_CHUNK  (1u << 20)
#define COPYCHUNK_MAX_TOTAL  (16u << 20)
#define COPYCHUNK_RSP_LEN    12
#define COPYCHUNK_HDR_LEN    32 /* SourceKey, ChunkCount, Reserved */
#define COPYCHUNK_CHUNK_LEN  24 /* SRV_COPYCHUNK */

/*
 * A resume key (§2.2.32.3, 24 opaque bytes): the source open's FileId
 * and a MAC over it and the session, so that a key only ever names an
 * open of the session that asked for it and cannot be made up.
 */
#define RESUME_KEY_LEN 24
#define RESUME_RSP_LEN 32 /* ResumeKey, ContextLength, 4 bytes of Context */

#define VNI_REQ_FIXED	 24 /* Capabilities, Guid, SecurityMode, DialectCount */
#define VNI_RSP_LEN	 24
#define SNAPSHOT_RSP_LEN 16
#define RANGE_LEN	 16 /* FILE_ALLOCATED_RANGE_BUFFER */

/* One IOCTL being answered. */
struct fsctl_call {
	struct smb2_work *w;
	uint32_t code;
	struct smb2_open *o; /* the open named, referenced; NULL: none */
	struct smb2_buf in;  /* the input buffer (borrows the request) */
	uint32_t max_out;    /* MaxOutputResponse */
	struct smb2_buf out; /* the output, at most max_out bytes */
	bool body_on_error;  /* the output goes with an error status */
};

/* FSCTL flags. */
#define FSCTL_NO_FID 0x1u /* names no open: FileId all ones (§3.3.5.15) */
#define FSCTL_WRITES 0x2u /* changes the file: refused on a read-only tree */

struct fsctl {
	uint32_t code;
	const char *name;
	unsigned int flags;
	/* Most bytes of output it writes; 0: up to MaxOutputResponse. */
	uint32_t out_max;
	uint32_t (*handle)(struct fsctl_call *c);
};

/* ---- helpers ---------------------------------------------------------- */

/* May the open @o READ (@write false) or WRITE [@off, @off + @len)? */
static bool io_locked(struct smb2_open *o, bool write, uint64_t off,
		      uint64_t len)
{
	struct state_holder h = {.id = o, .tag = STATE_HOLDER_SMB};
	struct state_range r;

	state_range_io(off, len, &r);
	return state_check_io(o->sf, &h, write, &r) != 0;
}

/* A range of signed 64-bit file offsets (MS-FSCC: LONGLONG). */
static bool range_ok(uint64_t off, uint64_t len)
{
	return off <= INT64_MAX && len <= (uint64_t)INT64_MAX - off;
}

static pthread_once_t resume_once = PTHREAD_ONCE_INIT;
static struct smb2_sign_key resume_mac_key;
static bool resume_ready;

static void resume_init(void)
{
	uint8_t k[SMB2_SIGN_KEY_SIZE];

	if (getrandom(k, sizeof(k), 0) != (ssize_t)sizeof(k))
		return;
	resume_ready = smb2_sign_key_init(&resume_mac_key,
					  SMB2_SIGN_HMAC_SHA256, k) == 0;
	OPENSSL_cleanse(k, sizeof(k));
}

/* The 8-byte tag of FileId {@p, @v} in session @sid; false: no MAC. */
static bool resume_tag(uint64_t sid, uint64_t p, uint64_t v, uint8_t tag[8])
{
	uint8_t msg[24], mac[SMB2_SIG_SIZE];
	struct iovec iov = {.iov_base = msg, .iov_len = sizeof(msg)};

	pthread_once(&resume_once, resume_init);
	if (!resume_ready)
		return false;
	put_le64(msg, sid);
	put_le64(msg + 8, p);
	put_le64(msg + 16, v);
	if (smb2_mac(&resume_mac_key, NULL, &iov, 1, mac) < 0)
		return false;
	memcpy(tag, mac, 8);
	return true;
}

/* ---- connection FSCTLs (no open) -------------------------------------- */

/* The dialect NEGOTIATE picks from @offered (smb2_negotiate.c's rule). */
static uint16_t vni_dialect(struct smb2_buf *in, uint16_t n)
{
	static const uint16_t order[] = {
		SMB2_DIALECT_0311, SMB2_DIALECT_0302, SMB2_DIALECT_0300,
		SMB2_DIALECT_0210, SMB2_DIALECT_0202,
	};
	size_t start = in->pos, i;
	uint16_t j, d;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (order[i] == SMB2_DIALECT_0202 && !smb2_cfg()->allow_smb202)
			continue;
		in->pos = start;
		for (j = 0; j < n; j++)
			if (sb_get_u16(in, &d) && d == order[i])
				return order[i];
	}
	return 0;
}

/*
 * §3.3.5.15.12: the client repeats what it sent in NEGOTIATE, signed;
 * anything different means someone changed the NEGOTIATE on the way
 * (a downgrade), and the connection is dropped. nasd answers for 3.1.1
 * too, as Samba does (the spec says drop; Windows clients never send it
 * with 3.1.1, whose preauth integrity covers the same ground, and a
 * truthful answer gives nothing away).
 */
static uint32_t fsctl_validate_negotiate(struct fsctl_call *c)
{
	struct smb2_work *w = c->w;
	struct smb2_conn *conn = w->conn;
	uint32_t caps, srv_caps;
	uint16_t sec, n, dialect, mine;
	uint8_t guid[16];
	bool same;

	pthread_mutex_lock(&conn->mu);
	mine = conn->dialect;
	pthread_mutex_unlock(&conn->mu);
	/* 2.0.2 sends neither GUID nor capabilities: nothing to check (a
	 * 2.0.2 server has no such FSCTL; Samba answers the same). */
	if (mine == SMB2_DIALECT_0202)
		return STATUS_FILE_CLOSED;
	/* The answer is only worth anything signed (§3.2.5.14.12), or
	 * encrypted, whose tag authenticates it as well. */
	if (!w->encrypted && (!(w->flags & SMB2_FLAGS_SIGNED) || !w->sign))
		return STATUS_ACCESS_DENIED;
	if (!sb_get_u32(&c->in, &caps) || !sb_get_bytes(&c->in, guid, 16) ||
	    !sb_get_u16(&c->in, &sec) || !sb_get_u16(&c->in, &n) ||
	    sb_remaining(&c->in) < (size_t)n * 2)
		return STATUS_INVALID_PARAMETER;
	if (c->max_out < VNI_RSP_LEN)
		goto out_drop;
	dialect = vni_dialect(&c->in, n);
	pthread_mutex_lock(&conn->mu);
	same = dialect == conn->dialect && caps == conn->client_caps &&
	       sec == conn->client_sec_mode &&
	       CRYPTO_memcmp(guid, conn->client_guid, 16) == 0;
	srv_caps = conn->server_caps;
	pthread_mutex_unlock(&conn->mu);
	if (!same)
		goto out_drop;
	sec = SMB2_NEGOTIATE_SIGNING_ENABLED;
	if (smb2_cfg()->signing_required)
		sec |= SMB2_NEGOTIATE_SIGNING_REQUIRED;
	if (!sb_put_u32(&c->out, srv_caps) ||
	    !sb_put_bytes(&c->out, smb2_server_guid(), 16) ||
	    !sb_put_u16(&c->out, sec) || !sb_put_u16(&c->out, dialect))
		return STATUS_INSUFFICIENT_RESOURCES;
	return STATUS_SUCCESS;

out_drop:
	log_ratelimited(LL_WARN, "smb2: VALIDATE_NEGOTIATE_INFO does not "
				 "match the NEGOTIATE, closing the connection");
	transport_conn_shutdown(conn->tconn);
	return STATUS_ACCESS_DENIED;
}

/*
 * §3.3.5.15.11: the server's interfaces that a listener accepts
 * (smb2_netif.c). A 2.x connection has no such FSCTL (the section is 3.x
 * only; its MAY fail with NOT_SUPPORTED is taken). On 3.x it is answered
 * although SMB2_GLOBAL_CAP_MULTI_CHANNEL is never offered (the same MAY
 * would allow refusing): Linux cifs asks on every 3.x mount and logs a
 * failure, smbtorture's ioctl.bug14788.NETWORK_INTERFACE wants the list,
 * and the answer is only information; without the capability no client
 * binds a second channel to a session (§3.2.4.1.7, §3.3.5.5.2).
 */
static uint32_t fsctl_query_network_interface_info(struct fsctl_call *c)
{
	struct smb2_conn *conn = c->w->conn;
	uint16_t dialect;

	pthread_mutex_lock(&conn->mu);
	dialect = conn->dialect;
	pthread_mutex_unlock(&conn->mu);
	if (dialect < SMB2_DIALECT_0300)
		return STATUS_NOT_SUPPORTED;
	return smb2_netif_answer(&c->out);
}

/* No DFS (SMB2_GLOBAL_CAP_DFS and SMB2_SHARE_CAP_DFS are never set). */
static uint32_t fsctl_dfs_referrals(struct fsctl_call *c)
{
	(void)c;
	return STATUS_NOT_FOUND;
}

/*
 * FSCTL_PIPE_WAIT (MS-FSCC 2.3.49): IPC$ has no pipes yet (CREATE of one
 * is OBJECT_NAME_NOT_FOUND), so none can become available.
 */
static uint32_t fsctl_pipe_wait(struct fsctl_call *c)
{
	uint64_t timeout;
	uint32_t name_len;

	if (!c->w->tree->ipc)
		return STATUS_INVALID_DEVICE_REQUEST;
	if (!sb_get_u64(&c->in, &timeout) || !sb_get_u32(&c->in, &name_len) ||
	    !sb_skip(&c->in, 2) || sb_remaining(&c->in) < name_len)
		return STATUS_INVALID_PARAMETER;
	return STATUS_OBJECT_NAME_NOT_FOUND;
}

/* ---- file FSCTLs ------------------------------------------------------- */

/* PIPE_TRANSCEIVE and PIPE_PEEK on an open that is not a pipe. */
static uint32_t fsctl_not_a_pipe(struct fsctl_call *c)
{
	(void)c;
	return STATUS_INVALID_DEVICE_REQUEST;
}

/* No reparse points are kept (symlinks are not shown as such yet). */
static uint32_t fsctl_get_reparse_point(struct fsctl_call *c)
{
	(void)c;
	return STATUS_NOT_A_REPARSE_POINT;
}

/*
 * §3.3.5.15.1, §2.2.32.2: there are no previous versions; an honest
 * SRV_SNAPSHOT_ARRAY says none (NumberOfSnapShots 0, an empty list: its
 * terminating UTF-16 NUL, padded).
 */
/*
 * FSCTL_GET_OBJECT_ID / CREATE_OR_GET_OBJECT_ID (MS-FSCC 2.3.27, 2.3.7):
 * a FILE_OBJECTID_BUFFER. nasd keeps no object ids; the file's own
 * identity stands for one, so it is stable and unique within the share
 * (fileid, then fsid), as Samba derives it from the inode: ObjectId and
 * BirthObjectId that, BirthVolumeId the volume's (FileFsObjectIdInformation),
 * DomainId zero.
 */
#define OBJECTID_BUF_LEN 64

static uint32_t fsctl_object_id(struct fsctl_call *c)
{
	uint8_t id[16], vol[16];
	struct vfs_attr a;
	int err;

	if (c->max_out < OBJECTID_BUF_LEN)
		return STATUS_INVALID_PARAMETER;
	err = vfs_getattr(c->o->obj, &a);
	if (err)
		return smb2_status(SMB2_IOCTL, err);
	put_le64(id, a.fileid);
	put_le64(id + 8, a.fsid);
	memcpy(vol, smb2_server_guid(), 16);
	put_le32(vol + 12, get_le32(vol + 12) ^ c->w->tree->export->id);
	if (!sb_put_bytes(&c->out, id, 16) || !sb_put_bytes(&c->out, vol, 16) ||
	    !sb_put_bytes(&c->out, id, 16) || !sb_put_zero(&c->out, 16))
		return STATUS_INSUFFICIENT_RESOURCES;
	return STATUS_SUCCESS;
}

static uint32_t fsctl_enumerate_snapshots(struct fsctl_call *c)
{
	if (c->max_out < SNAPSHOT_RSP_LEN)
		return STATUS_INVALID_PARAMETER;
	/* NumberOfSnapShots, NumberOfSnapShotsReturned: 0; SnapShotArraySize
	 * 2; the empty list's NUL and 2 bytes of padding. */
	if (!sb_put_zero(&c->out, 8) || !sb_put_u32(&c->out, 2) ||
	    !sb_put_zero(&c->out, 4))
		return STATUS_INSUFFICIENT_RESOURCES;
	return STATUS_SUCCESS;
}

/*
 * MS-FSCC 2.3.67 / MS-FSA 2.1.5.9.9: no file is compressed here (the
 * volume does not claim FILE_FILE_COMPRESSION).
 */
static uint32_t fsctl_get_compression(struct fsctl_call *c)
{
	if (c->max_out < 2)
		return STATUS_INVALID_PARAMETER;
	return sb_put_u16(&c->out, COMPRESSION_FORMAT_NONE)
		       ? STATUS_SUCCESS
		       : STATUS_INSUFFICIENT_RESOURCES;
}

/* MS-FSA 2.1.5.9.31: turning compression off is what already holds. */
static uint32_t fsctl_set_compression(struct fsctl_call *c)
{
	uint16_t fmt;

	if (!sb_get_u16(&c->in, &fmt))
		return STATUS_INVALID_PARAMETER;
	if (!(c->o->access & (FILE_WRITE_DATA | FILE_WRITE_ATTRIBUTES)))
		return STATUS_ACCESS_DENIED;
	if (fmt == COMPRESSION_FORMAT_NONE)
		return STATUS_SUCCESS;
	if (fmt == COMPRESSION_FORMAT_DEFAULT ||
	    fmt == COMPRESSION_FORMAT_LZNT1)
		return STATUS_NOT_SUPPORTED;
	return STATUS_INVALID_PARAMETER;
}

/* Whether @o's file reports FILE_ATTRIBUTE_SPARSE_FILE (kept or derived);
 * its attributes into *@a. */
static int open_sparse(struct smb2_open *o, struct vfs_attr *a, bool *sparse)
{
	struct fscc_file_info fi;
	int err = vfs_getattr(o->obj, a);

	if (err)
		return err;
	smb2_info_fill(o->obj, "", 0, a, &fi);
	*sparse = fi.attributes & FILE_ATTRIBUTE_SPARSE_FILE;
	return 0;
}

/*
 * MS-FSA 2.1.5.9.36 SET_SPARSE. Every file on the Linux file systems
 * served can have holes; FILE_ATTRIBUTE_SPARSE_FILE is kept with the file
 * (vfs_dosattr) once a client sets or clears it, and derived from what is
 * allocated before that (fscc.h). Clearing allocates the holes, as Windows
 * must when a file stops being sparse.
 */
static uint32_t fsctl_set_sparse(struct fsctl_call *c)
{
	struct smb2_open *o = c->o;
	struct fscc_file_info fi;
	struct vfs_attr a;
	uint8_t set = 1;
	int err;

	/* The buffer is optional (MS-FSCC 2.3.64): absent means TRUE. */
	if (sb_remaining(&c->in) && !sb_get_u8(&c->in, &set))
		return STATUS_INVALID_PARAMETER;
	if (!(o->access &
	      (FILE_WRITE_DATA | FILE_APPEND_DATA | FILE_WRITE_ATTRIBUTES)))
		return STATUS_ACCESS_DENIED;
	if (o->is_dir)
		return STATUS_INVALID_PARAMETER;
	if (o->stream)
		return STATUS_NOT_SUPPORTED; /* xattr streams have no holes */
	err = vfs_getattr(o->obj, &a);
	if (err)
		return smb2_status(SMB2_IOCTL, err);
	if (!set && a.size && a.used < a.size) {
		err = vfs_allocate(o->obj, 0, a.size);
		if (!err)
			err = vfs_getattr(o->obj, &a);
		if (err)
			return smb2_status(SMB2_IOCTL, err);
	}
	smb2_info_fill(o->obj, "", 0, &a, &fi);
	fi.attributes &= ~FILE_ATTRIBUTE_SPARSE_FILE;
	err = smb2_dos_store(o->obj, &a,
			     fi.attributes |
				     (set ? FILE_ATTRIBUTE_SPARSE_FILE : 0),
			     NULL);
	/* Where nothing can be kept the derived flag is all there is. */
	if (err && err != -EOPNOTSUPP)
		return smb2_status(SMB2_IOCTL, err);
	return STATUS_SUCCESS;
}

/*
 * MS-FSA 2.1.5.9.27 SET_ZERO_DATA: [FileOffset, BeyondFinalZero) reads as
 * zeros afterwards, and the size never changes. A sparse file gives the
 * blocks back (a hole is punched); any other keeps them allocated, as
 * Windows zero-fills a file that is not sparse.
 */
static uint32_t fsctl_set_zero_data(struct fsctl_call *c)
{
	struct smb2_open *o = c->o;
	uint64_t off, beyond;
	struct vfs_attr a;
	bool sparse;
	int err;

	if (!sb_get_u64(&c->in, &off) || !sb_get_u64(&c->in, &beyond))
		return STATUS_INVALID_PARAMETER;
	if (off > INT64_MAX || beyond > INT64_MAX || off > beyond)
		return STATUS_INVALID_PARAMETER;
	if (o->is_dir)
		return STATUS_INVALID_PARAMETER;
	if (!(o->access & FILE_WRITE_DATA))
		return STATUS_ACCESS_DENIED;
	if (o->stream)
		return STATUS_NOT_SUPPORTED;
	if (off == beyond)
		return STATUS_SUCCESS;
	if (io_locked(o, true, off, beyond - off))
		return STATUS_FILE_LOCK_CONFLICT;
	err = open_sparse(o, &a, &sparse);
	if (err)
		return smb2_status(SMB2_IOCTL, err);
	/* Past the end of file there is nothing to zero. */
	if (off >= a.size)
		return STATUS_SUCCESS;
	if (beyond > a.size)
		beyond = a.size;
	err = vfs_deallocate(o->obj, off, beyond - off);
	if (!err && !sparse)
		err = vfs_allocate(o->obj, off, beyond - off);
	return err ? smb2_status(SMB2_IOCTL, err) : STATUS_SUCCESS;
}

/*
 * MS-FSA 2.1.5.9.21 QUERY_ALLOCATED_RANGES: the data extents inside
 * [FileOffset, FileOffset + Length), from SEEK_DATA/SEEK_HOLE; as many as
 * fit, then STATUS_BUFFER_OVERFLOW with those. None at all needs no room.
 */
static uint32_t fsctl_query_allocated_ranges(struct fsctl_call *c)
{
	struct smb2_open *o = c->o;
	uint64_t off, len, end, pos, data, hole, size;
	struct vfs_attr a;
	bool sparse;
	int err;

	if (!sb_get_u64(&c->in, &off) || !sb_get_u64(&c->in, &len))
		return STATUS_INVALID_PARAMETER;
	if (!range_ok(off, len))
		return STATUS_INVALID_PARAMETER;
	if (o->is_dir)
		return STATUS_INVALID_PARAMETER;
	if (!(o->access & FILE_READ_DATA))
		return STATUS_ACCESS_DENIED;
	if (o->stream)
		return STATUS_NOT_SUPPORTED;
	end = off + len;
	err = open_sparse(o, &a, &sparse);
	if (err)
		return smb2_status(SMB2_IOCTL, err);
	/* A file that is not sparse is allocated throughout, as far as a
	 * client can tell: one range, up to the end of file (Windows; what
	 * a zeroed range of it holds SEEK_DATA may call a hole). */
	if (!sparse) {
		if (end > a.size)
			end = a.size;
		if (off >= end)
			return STATUS_SUCCESS;
		if (sb_remaining(&c->out) < RANGE_LEN)
			return STATUS_BUFFER_TOO_SMALL;
		sb_put_u64(&c->out, off);
		sb_put_u64(&c->out, end - off);
		return STATUS_SUCCESS;
	}
	for (pos = off; pos < end; pos = hole) {
		err = vfs_seek(o->obj, pos, VFS_SEEK_DATA, &data, &size);
		if (err == -ENXIO)
			break; /* at or past the end of file */
		if (err)
			return smb2_status(SMB2_IOCTL, err);
		if (data >= end || data >= size)
			break;
		err = vfs_seek(o->obj, data, VFS_SEEK_HOLE, &hole, &size);
		if (err == -ENXIO)
			break; /* the file shrank under us */
		if (err)
			return smb2_status(SMB2_IOCTL, err);
		if (hole > end)
			hole = end;
		if (hole <= data)
			break;
		/* No room for even one range is an error without output
		 * (MS-FSA: STATUS_BUFFER_TOO_SMALL); some ranges returned,
		 * the rest cut off, a warning with them. */
		if (sb_remaining(&c->out) < RANGE_LEN)
			return c->out.pos ? STATUS_BUFFER_OVERFLOW
					  : STATUS_BUFFER_TOO_SMALL;
		sb_put_u64(&c->out, data);
		sb_put_u64(&c->out, hole - data);
	}
	return STATUS_SUCCESS;
}

/*
 * §3.3.5.15.7, §2.2.32.3: a key for the open, to name it as the source of
 * a later COPYCHUNK. Any open may ask (the copy checks its access).
 */
static uint32_t fsctl_request_resume_key(struct fsctl_call *c)
{
	struct smb2_open *o = c->o;
	uint8_t tag[8];

	if (c->max_out < RESUME_RSP_LEN)
		return STATUS_INVALID_PARAMETER;
	if (!resume_tag(c->w->sess->id, o->persistent, o->volatile_id, tag))
		return STATUS_INTERNAL_ERROR;
	if (!sb_put_u64(&c->out, o->persistent) ||
	    !sb_put_u64(&c->out, o->volatile_id) ||
	    !sb_put_bytes(&c->out, tag, sizeof(tag)) ||
	    !sb_put_u32(&c->out, 0) || !sb_put_u32(&c->out, 0))
		return STATUS_INSUFFICIENT_RESOURCES;
	return STATUS_SUCCESS;
}

/* The open a resume key names, referenced, or NULL (§3.3.5.15.6). */
static struct smb2_open *resume_open(struct smb2_work *w,
				     const uint8_t key[RESUME_KEY_LEN])
{
	uint64_t p = get_le64(key), v = get_le64(key + 8);
	uint8_t tag[8];
	struct smb2_open *o;

	if (!resume_tag(w->sess->id, p, v, tag) ||
	    CRYPTO_memcmp(tag, key + 16, sizeof(tag)) != 0)
		return NULL;
	o = smb2_open_find(w->sess, p, v);
	if (o && atomic_load(&o->tree->dead)) {
		smb2_open_put(o);
		o = NULL;
	}
	return o;
}

/* SRV_COPYCHUNK_RESPONSE (§2.2.32.1) with the status it goes with. */
static uint32_t copychunk_answer(struct fsctl_call *c, uint32_t st, uint32_t a,
				 uint32_t b, uint32_t t)
{
	if (c->max_out < COPYCHUNK_RSP_LEN)
		return st;
	c->out.pos = 0;
	if (!sb_put_u32(&c->out, a) || !sb_put_u32(&c->out, b) ||
	    !sb_put_u32(&c->out, t))
		return STATUS_INSUFFICIENT_RESOURCES;
	c->body_on_error = true;
	return st;
}

/* §3.3.5.15.6.2: a request past the limits learns them. */
static uint32_t copychunk_limits(struct fsctl_call *c)
{
	return copychunk_answer(c, STATUS_INVALID_PARAMETER,
				COPYCHUNK_MAX_CHUNKS, COPYCHUNK_MAX_CHUNK,
				COPYCHUNK_MAX_TOTAL);
}

/* Are @a and @b opens of one file? */
static bool same_file(struct vfs_obj *a, struct vfs_obj *b)
{
	struct vfs_attr x, y;

	if (a == b)
		return true;
	return vfs_getattr(a, &x) == 0 && vfs_getattr(b, &y) == 0 &&
	       x.fsid == y.fsid && x.fileid == y.fileid;
}

/*
 * One chunk: @len bytes from @src at @soff to @dst at @doff. Ranges of
 * one file that overlap are copied through a buffer holding the whole
 * chunk (as Windows 2012 does), so the source is read before any of it is
 * overwritten. Returns the bytes copied or -errno.
 */
static ssize_t copychunk_one(struct smb2_open *src, uint64_t soff,
			     struct smb2_open *dst, uint64_t doff, uint32_t len,
			     bool same, enum vfs_stable stable)
{
	uint8_t *buf;
	ssize_t n, m;
	bool eof;

	if (!src->stream && !dst->stream &&
	    (!same || soff + len <= doff || doff + len <= soff))
		return vfs_copy_range(src->obj, soff, dst->obj, doff, len, len,
				      stable);
	/* Through a buffer: overlapping ranges, or a named stream. */
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	if (src->stream)
		n = smb2_stream_read(src->obj, src->stream, soff, buf, len);
	else
		n = vfs_read(src->obj, soff, buf, len, &eof);
	if (n <= 0)
		m = n;
	else if (dst->stream)
		m = smb2_stream_write(dst->obj, dst->stream, doff, buf,
				      (size_t)n);
	else
		m = vfs_write(dst->obj, doff, buf, (size_t)n, stable);
	free(buf);
	return m;
}

/* The length of what @o reads: its file's, or its stream's. */
static int open_size(struct smb2_open *o, uint64_t *size)
{
	struct vfs_attr a;
	ssize_t n;
	int err;

	if (o->stream) {
		n = smb2_stream_size(o->obj, o->stream);
		if (n < 0)
			return (int)n;
		*size = (uint64_t)n;
		return 0;
	}
	err = vfs_getattr(o->obj, &a);
	if (!err)
		*size = a.size;
	return err;
}

/*
 * §3.3.5.15.6 COPYCHUNK and COPYCHUNK_WRITE: the chunks are checked
 * against the limits first (all of them, before a byte moves), then
 * copied in order; the first one that fails stops the copy and the
 * response says how far it got (§3.3.5.15.6.1).
 */
static uint32_t fsctl_copychunk(struct fsctl_call *c)
{
	struct smb2_open *dst = c->o, *src;
	uint8_t key[RESUME_KEY_LEN];
	uint32_t count, i, len = 0, done = 0, st = STATUS_SUCCESS;
	uint64_t soff = 0, doff = 0, total = 0;
	enum vfs_stable stable = VFS_UNSTABLE;
	uint64_t size = 0;
	size_t chunks;
	bool same;
	ssize_t n;
	int err;

	if (!sb_get_bytes(&c->in, key, sizeof(key)) ||
	    !sb_get_u32(&c->in, &count) || !sb_skip(&c->in, 4))
		return STATUS_INVALID_PARAMETER;
	if (c->max_out < COPYCHUNK_RSP_LEN)
		return STATUS_INVALID_PARAMETER;
	/* COPYCHUNK is what a handle that may read and write sends;
	 * COPYCHUNK_WRITE is for one that may only write (§2.2.31). */
	if (!(dst->access & FILE_WRITE_DATA) ||
	    (c->code == FSCTL_SRV_COPYCHUNK && !(dst->access & FILE_READ_DATA)))
		return STATUS_ACCESS_DENIED;
	if (count > COPYCHUNK_MAX_CHUNKS)
		return copychunk_limits(c);
	if (sb_remaining(&c->in) < (size_t)count * COPYCHUNK_CHUNK_LEN)
		return STATUS_INVALID_PARAMETER;
	chunks = c->in.pos;
	for (i = 0; i < count; i++) {
		sb_get_u64(&c->in, &soff);
		sb_get_u64(&c->in, &doff);
		sb_get_u32(&c->in, &len);
		sb_skip(&c->in, 4);
		total += len;
		if (!len || len > COPYCHUNK_MAX_CHUNK ||
		    total > COPYCHUNK_MAX_TOTAL)
			return copychunk_limits(c);
		if (!range_ok(soff, len) || !range_ok(doff, len))
			return STATUS_INVALID_PARAMETER;
	}
	src = resume_open(c->w, key);
	if (!src)
		return STATUS_OBJECT_NAME_NOT_FOUND;
	/* As READ: read or execute access (smbtorture
	 * ioctl.copy_chunk_bad_access). */
	if (!(src->access & (FILE_READ_DATA | FILE_EXECUTE))) {
		st = STATUS_ACCESS_DENIED;
		goto out_put;
	}
	if (src->is_dir || dst->is_dir) {
		st = STATUS_INVALID_DEVICE_REQUEST;
		goto out_put;
	}
	if ((dst->create_options & FILE_WRITE_THROUGH_OPT))
		stable = VFS_DATA_SYNC;
	/* one file's data, or one stream of it */
	same = same_file(src->obj, dst->obj) &&
	       (!src->stream ? !dst->stream
			     : dst->stream && !strcmp(src->stream, dst->stream));
	c->in.pos = chunks;
	total = 0;
	for (i = 0; i < count; i++) {
		sb_get_u64(&c->in, &soff);
		sb_get_u64(&c->in, &doff);
		sb_get_u32(&c->in, &len);
		sb_skip(&c->in, 4);
		err = open_size(src, &size);
		if (err) {
			st = smb2_status(SMB2_IOCTL, err);
			break;
		}
		/* A source range past its end (Windows' answer). */
		if (soff + len > size) {
			st = STATUS_INVALID_VIEW_SIZE;
			break;
		}
		/* As the READ and WRITE it stands for (Windows 2012). */
		if (io_locked(src, false, soff, len) ||
		    io_locked(dst, true, doff, len)) {
			st = STATUS_FILE_LOCK_CONFLICT;
			break;
		}
		n = copychunk_one(src, soff, dst, doff, len, same, stable);
		if (n < 0) {
			st = smb2_status(SMB2_IOCTL, (int)n);
			break;
		}
		total += (uint64_t)n;
		if ((uint32_t)n < len) {
			/* The source shrank under the copy. */
			st = copychunk_answer(c, STATUS_INVALID_VIEW_SIZE, done,
					      (uint32_t)n, (uint32_t)total);
			goto out_put;
		}
		done++;
	}
	st = copychunk_answer(c, st, done, 0, (uint32_t)total);
out_put:
	smb2_open_put(src);
	return st;
}

/*
 * MS-FSCC 2.3.8 DUPLICATE_EXTENTS_TO_FILE: share the source's blocks
 * (a reflink); NOT_SUPPORTED where the file system cannot clone (ext4),
 * which the volume says by leaving out FILE_SUPPORTS_BLOCK_REFCOUNTING.
 */
static uint32_t fsctl_duplicate_extents(struct fsctl_call *c)
{
	struct smb2_open *dst = c->o, *src;
	uint64_t p, v, soff, doff, count;
	uint32_t st;
	int err;

	if (!sb_get_u64(&c->in, &p) || !sb_get_u64(&c->in, &v) ||
	    !sb_get_u64(&c->in, &soff) || !sb_get_u64(&c->in, &doff) ||
	    !sb_get_u64(&c->in, &count))
		return STATUS_INVALID_PARAMETER;
	if (!range_ok(soff, count) || !range_ok(doff, count))
		return STATUS_INVALID_PARAMETER;
	if (!(dst->access & FILE_WRITE_DATA))
		return STATUS_ACCESS_DENIED;
	if (dst->is_dir)
		return STATUS_INVALID_PARAMETER;
	if (dst->stream)
		return STATUS_NOT_SUPPORTED;
	src = smb2_open_find(c->w->sess, p, v);
	if (!src)
		return STATUS_INVALID_HANDLE;
	if (atomic_load(&src->tree->dead)) {
		st = STATUS_INVALID_HANDLE;
		goto out_put;
	}
	/* As READ: read or execute access (smbtorture
	 * ioctl.copy_chunk_bad_access). */
	if (!(src->access & (FILE_READ_DATA | FILE_EXECUTE))) {
		st = STATUS_ACCESS_DENIED;
		goto out_put;
	}
	if (src->is_dir) {
		st = STATUS_INVALID_PARAMETER;
		goto out_put;
	}
	if (src->stream) {
		st = STATUS_NOT_SUPPORTED;
		goto out_put;
	}
	if (!count) {
		st = STATUS_SUCCESS;
		goto out_put;
	}
	if (io_locked(src, false, soff, count) ||
	    io_locked(dst, true, doff, count)) {
		st = STATUS_FILE_LOCK_CONFLICT;
		goto out_put;
	}
	err = vfs_clone_range(src->obj, soff, dst->obj, doff, count);
	st = err ? smb2_status(SMB2_IOCTL, err) : STATUS_SUCCESS;
out_put:
	smb2_open_put(src);
	return st;
}

/* ---- the table ------------------------------------------------------- */

static const struct fsctl fsctls[] = {
	{
		.code = FSCTL_VALIDATE_NEGOTIATE_INFO,
		.name = "VALIDATE_NEGOTIATE_INFO",
		.flags = FSCTL_NO_FID,
		.out_max = VNI_RSP_LEN,
		.handle = fsctl_validate_negotiate,
	},
	{
		.code = FSCTL_QUERY_NETWORK_INTERFACE_INFO,
		.name = "QUERY_NETWORK_INTERFACE_INFO",
		.flags = FSCTL_NO_FID,
		.out_max = SMB2_NETIF_OUT_MAX,
		.handle = fsctl_query_network_interface_info,
	},
	{
		.code = FSCTL_DFS_GET_REFERRALS,
		.name = "DFS_GET_REFERRALS",
		.flags = FSCTL_NO_FID,
		.out_max = 1,
		.handle = fsctl_dfs_referrals,
	},
	{
		.code = FSCTL_DFS_GET_REFERRALS_EX,
		.name = "DFS_GET_REFERRALS_EX",
		.flags = FSCTL_NO_FID,
		.out_max = 1,
		.handle = fsctl_dfs_referrals,
	},
	{
		.code = FSCTL_PIPE_WAIT,
		.name = "PIPE_WAIT",
		.flags = FSCTL_NO_FID,
		.out_max = 1,
		.handle = fsctl_pipe_wait,
	},
	{
		.code = FSCTL_PIPE_TRANSCEIVE,
		.name = "PIPE_TRANSCEIVE",
		.out_max = 1,
		.handle = fsctl_not_a_pipe,
	},
	{
		.code = FSCTL_PIPE_PEEK,
		.name = "PIPE_PEEK",
		.out_max = 1,
		.handle = fsctl_not_a_pipe,
	},
	{
		.code = FSCTL_SRV_ENUMERATE_SNAPSHOTS,
		.name = "SRV_ENUMERATE_SNAPSHOTS",
		.out_max = SNAPSHOT_RSP_LEN,
		.handle = fsctl_enumerate_snapshots,
	},
	{
		.code = FSCTL_GET_OBJECT_ID,
		.name = "GET_OBJECT_ID",
		.out_max = OBJECTID_BUF_LEN,
		.handle = fsctl_object_id,
	},
	{
		.code = FSCTL_CREATE_OR_GET_OBJECT_ID,
		.name = "CREATE_OR_GET_OBJECT_ID",
		.out_max = OBJECTID_BUF_LEN,
		.handle = fsctl_object_id,
	},
	{
		.code = FSCTL_GET_REPARSE_POINT,
		.name = "GET_REPARSE_POINT",
		.out_max = 1,
		.handle = fsctl_get_reparse_point,
	},
	{
		.code = FSCTL_GET_COMPRESSION,
		.name = "GET_COMPRESSION",
		.out_max = 2,
		.handle = fsctl_get_compression,
	},
	{
		.code = FSCTL_SET_COMPRESSION,
		.name = "SET_COMPRESSION",
		.flags = FSCTL_WRITES,
		.out_max = 1,
		.handle = fsctl_set_compression,
	},
	{
		.code = FSCTL_SET_SPARSE,
		.name = "SET_SPARSE",
		.flags = FSCTL_WRITES,
		.out_max = 1,
		.handle = fsctl_set_sparse,
	},
	{
		.code = FSCTL_SET_ZERO_DATA,
		.name = "SET_ZERO_DATA",
		.flags = FSCTL_WRITES,
		.out_max = 1,
		.handle = fsctl_set_zero_data,
	},
	{
		.code = FSCTL_QUERY_ALLOCATED_RANGES,
		.name = "QUERY_ALLOCATED_RANGES",
		.out_max = 0,
		.handle = fsctl_query_allocated_ranges,
	},
	{
		.code = FSCTL_SRV_REQUEST_RESUME_KEY,
		.name = "SRV_REQUEST_RESUME_KEY",
		.out_max = RESUME_RSP_LEN,
		.handle = fsctl_request_resume_key,
	},
	{
		.code = FSCTL_SRV_COPYCHUNK,
		.name = "SRV_COPYCHUNK",
		.flags = FSCTL_WRITES,
		.out_max = COPYCHUNK_RSP_LEN,
		.handle = fsctl_copychunk,
	},
	{
		.code = FSCTL_SRV_COPYCHUNK_WRITE,
		.name = "SRV_COPYCHUNK_WRITE",
		.flags = FSCTL_WRITES,
		.out_max = COPYCHUNK_RSP_LEN,
		.handle = fsctl_copychunk,
	},
	{
		.code = FSCTL_DUPLICATE_EXTENTS_TO_FILE,
		.name = "DUPLICATE_EXTENTS_TO_FILE",
		.flags = FSCTL_WRITES,
		.out_max = 1,
		.handle = fsctl_duplicate_extents,
	},
};

static const struct fsctl *fsctl_find(uint32_t code)
{
	size_t i;

	for (i = 0; i < sizeof(fsctls) / sizeof(fsctls[0]); i++)
		if (fsctls[i].code == code)
			return &fsctls[i];
	return NULL;
}

/* ---- the command ------------------------------------------------------ */

/*
 * A buffer of the request at header offset @off, @len bytes: inside this
 * command and after its fixed part. Empty when @len is 0.
 */
static bool req_buffer(struct smb2_work *w, uint32_t off, uint32_t len,
		       struct smb2_buf *out)
{
	if (!len) {
		sb_init(out, NULL, 0);
		return true;
	}
	return off >= SMB2_HDR_LEN + IOCTL_REQ_FIXED &&
	       (uint64_t)off + len <= w->cmd_len &&
	       sb_range(&w->msg, w->off + (uint64_t)off, len, out);
}

/*
 * §3.3.5.2.5: CreditCharge covers the larger of what is sent (InputCount
 * + OutputCount) and what may come back (MaxInputResponse +
 * MaxOutputResponse), in 64 KiB units.
 */
static bool ioctl_charge_ok(const struct smb2_work *w, uint64_t send,
			    uint64_t recv)
{
	uint64_t big = send > recv ? send : recv;
	uint64_t need = big ? (big - 1) / 65536 + 1 : 1;

	if (w->conn->dialect == SMB2_DIALECT_0202)
		return big <= 65536;
	return (uint64_t)(w->credit_charge ? w->credit_charge : 1) >= need;
}

uint32_t smb2_cmd_ioctl(struct smb2_work *w, struct smb2_buf *body)
{
	struct fsctl_call c = {.w = w};
	const struct fsctl *f;
	struct smb2_buf outbuf;
	uint16_t ssize;
	uint32_t in_off, in_len, max_in, out_off, out_len, flags, st, cap;
	uint32_t max_io;
	uint64_t p, v;
	uint8_t *fix;

	if (!sb_get_u16(body, &ssize) || !sb_skip(body, 2) ||
	    !sb_get_u32(body, &c.code) || !sb_get_u64(body, &p) ||
	    !sb_get_u64(body, &v) || !sb_get_u32(body, &in_off) ||
	    !sb_get_u32(body, &in_len) || !sb_get_u32(body, &max_in) ||
	    !sb_get_u32(body, &out_off) || !sb_get_u32(body, &out_len) ||
	    !sb_get_u32(body, &c.max_out) || !sb_get_u32(body, &flags) ||
	    !sb_skip(body, 4))
		return STATUS_INVALID_PARAMETER;
	/* §3.3.5.15: only FSCTLs (an IOCTL to a device is not ours). */
	if (flags != SMB2_0_IOCTL_IS_FSCTL)
		return STATUS_NOT_SUPPORTED;
	/* Every count is bounded by the transact size we offered (§2.2.4)
	 * and every buffer lies inside this command. */
	max_io = w->conn->dialect == SMB2_DIALECT_0202 ? 65536 : SMB2_MAX_IO;
	if (in_len > max_io || out_len > max_io || max_in > max_io ||
	    c.max_out > max_io || !req_buffer(w, in_off, in_len, &c.in) ||
	    !req_buffer(w, out_off, out_len, &outbuf) ||
	    !ioctl_charge_ok(w, (uint64_t)in_len + out_len,
			     (uint64_t)max_in + c.max_out))
		return STATUS_INVALID_PARAMETER;
	f = fsctl_find(c.code);
	if (f && (f->flags & FSCTL_NO_FID)) {
		if (p != UINT64_MAX || v != UINT64_MAX)
			return STATUS_INVALID_PARAMETER;
	} else {
		st = smb2_open_lookup(w, p, v, &c.o);
		if (st != STATUS_SUCCESS)
			return st;
		p = c.o->persistent;
		v = c.o->volatile_id;
	}
	if (!f) {
		st = STATUS_INVALID_DEVICE_REQUEST;
		goto out_put;
	}
	if ((f->flags & FSCTL_WRITES) && !w->tree->acc.opts->rw) {
		st = STATUS_MEDIA_WRITE_PROTECTED;
		goto out_put;
	}
	/* Room for the fixed part and the most output it may write, never
	 * more than MaxOutputResponse; reserved now, so the handler writes
	 * in place and nothing moves under it. */
	cap = f->out_max && f->out_max < c.max_out ? f->out_max : c.max_out;
	if (!smb2_rsp_room(w, IOCTL_RSP_FIXED + (size_t)cap)) {
		st = STATUS_INSUFFICIENT_RESOURCES;
		goto out_put;
	}
	fix = w->rsp.base + w->rsp.pos;
	sb_init(&c.out, fix + IOCTL_RSP_FIXED, cap);
	st = f->handle(&c);
	if (st != STATUS_SUCCESS && st != STATUS_BUFFER_OVERFLOW &&
	    !c.body_on_error)
		goto out_put;
	/* §2.2.32: no input is echoed; the output follows the fixed part. */
	put_le16(fix, 49);
	put_le16(fix + 2, 0);
	put_le32(fix + 4, c.code);
	put_le64(fix + 8, p);
	put_le64(fix + 16, v);
	put_le32(fix + 24, IOCTL_RSP_BUFFER);
	put_le32(fix + 28, 0);
	put_le32(fix + 32, IOCTL_RSP_BUFFER);
	put_le32(fix + 36, (uint32_t)c.out.pos);
	put_le32(fix + 40, 0);
	put_le32(fix + 44, 0);
	w->rsp.pos += IOCTL_RSP_FIXED + c.out.pos;
	w->keep_body = c.body_on_error;
out_put:
	if (c.o)
		smb2_open_put(c.o);
	if (smb2_status_is_error(st) && f)
		log_debug("smb2: FSCTL %s -> %#x", f->name, st);
	return st;
}
