// SPDX-License-Identifier: MIT
/*
 * READ and WRITE (MS-SMB2 §2.2.19-§2.2.22, §3.3.5.12, §3.3.5.13) on the
 * one data path of every protocol (DESIGN.md §4):
 *
 *  - READ asks vfs_read_payload(): on the event loop only the page cache
 *    is read (a miss defers the request to a worker); a large cached read
 *    whose response ends the message and is not signed leaves as a file
 *    range by sendfile, anything else as a pooled buffer. The data is the
 *    response's payload, after its 80 bytes of header and body, never
 *    copied into the body, unless another response of the compound
 *    follows it (then it is).
 *  - WRITE takes the data where it lies in the received message: the
 *    transport received a large WRITE with its data aligned for
 *    O_DIRECT (smb2_write_align), so io=direct writes it without a copy.
 *
 * Both check the open's granted access, the other opens' byte-range
 * locks (Windows locks are mandatory, MS-FSA 2.1.4.10); the credit
 * charge of a multi-credit request is checked before (smb2_dispatch.c).
 */
#include "smb2/smb2_int.h"

#include "core/stats.h"
#include "smb2/smb2_open.h"
#include "smb2/smb2_stream.h"
#include "state/file_state.h"
#include "vfs/vfs.h"

#define READ_RSP_FIXED 16  /* StructureSize .. Reserved2 */
#define SMB2_READ_DATA_OFFSET (SMB2_HDR_LEN + READ_RSP_FIXED)
/* Where clients put a WRITE's data: after the header and its 48 fixed
 * bytes (DataOffset 0x70). */
#define SMB2_WRITE_DATA_OFFSET (SMB2_HDR_LEN + 48)

static int io_check_locks(struct smb2_open *o, bool write, uint64_t off,
			  uint32_t len)
{
	struct state_holder h = { .id = o, .tag = STATE_HOLDER_SMB };
	struct state_range r;

	state_range_io(off, len, &r);
	return state_check_io(o->sf, &h, write, &r);
}

/* FilePositionInformation follows the I/O, as Samba and Windows keep it. */
static void open_advance(struct smb2_open *o, uint64_t pos)
{
	pthread_mutex_lock(&o->mu);
	o->position = pos;
	pthread_mutex_unlock(&o->mu);
}

/* READ of a named stream (smb2_stream.h): the bytes go into the body. */
static uint32_t read_stream(struct smb2_work *w, struct smb2_open *o,
			    uint64_t off, uint32_t len, uint32_t min)
{
	struct smb2_buf *b = &w->rsp;
	size_t at;
	ssize_t n;

	if (w->req->nowait) {
		w->req->defer = true; /* xattr I/O: on a worker */
		return STATUS_SUCCESS;
	}
	if (len > SMB2_STREAM_DATA_MAX + 1)
		len = SMB2_STREAM_DATA_MAX + 1;
	if (!smb2_rsp_room(w, READ_RSP_FIXED + (size_t)len))
		return STATUS_INSUFFICIENT_RESOURCES;
	at = b->pos + READ_RSP_FIXED;
	n = smb2_stream_read(o->obj, o->stream, off, b->base + at, len);
	if (n < 0)
		return smb2_status(SMB2_READ, (int)n);
	if ((uint32_t)n < min || (n == 0 && len))
		return STATUS_END_OF_FILE;
	sb_put_u16(b, 17);
	sb_put_u8(b, SMB2_READ_DATA_OFFSET);
	sb_put_u8(b, 0);
	sb_put_u32(b, (uint32_t)n);
	sb_put_u32(b, 0);
	sb_put_u32(b, 0);
	b->pos += (size_t)n;
	stats_add_bytes_read((uint64_t)n);
	open_advance(o, off + (uint64_t)n);
	return STATUS_SUCCESS;
}

uint32_t smb2_cmd_read(struct smb2_work *w, struct smb2_buf *body)
{
	struct req *rq = w->req;
	struct vfs_read_res rd = { 0 };
	struct smb2_open *o;
	struct smb2_buf *b = &w->rsp;
	uint16_t ssize;
	uint8_t pad, flags;
	uint32_t len, min, st;
	uint64_t off, p, v;
	unsigned int vflags = 0;
	/* the only response of its message: its data may follow it as a
	 * payload (a compounded answer's last response is padded) */
	bool last = !w->next_command && !w->answered;
	ssize_t n;
	int err;

	if (!sb_get_u16(body, &ssize) || !sb_get_u8(body, &pad) ||
	    !sb_get_u8(body, &flags) || !sb_get_u32(body, &len) ||
	    !sb_get_u64(body, &off) || !sb_get_u64(body, &p) ||
	    !sb_get_u64(body, &v) || !sb_get_u32(body, &min))
		return STATUS_INVALID_PARAMETER;
	st = smb2_open_lookup(w, p, v, &o);
	if (st != STATUS_SUCCESS)
		return st;
	if (len > SMB2_MAX_IO || off > INT64_MAX ||
	    len > INT64_MAX - off) {
		st = STATUS_INVALID_PARAMETER;
		goto out_put;
	}
	if (o->is_dir) {
		st = STATUS_INVALID_DEVICE_REQUEST;
		goto out_put;
	}
	if (!(o->access & (FILE_READ_DATA | FILE_EXECUTE))) {
		st = STATUS_ACCESS_DENIED;
		goto out_put;
	}
	err = io_check_locks(o, false, off, len);
	if (err) {
		st = STATUS_FILE_LOCK_CONFLICT;
		goto out_put;
	}
	if (o->stream) {
		st = read_stream(w, o, off, len, min);
		goto out_put;
	}
	if (rq->nowait)
		vflags |= VFS_READ_NOWAIT;
	/* A file range only where it goes out as is: the last response,
	 * unsigned, on a transport that sends files. */
	if ((rq->caps & REQ_CAP_FILE) && last && !w->sign)
		vflags |= VFS_READ_FILE_OK;
	n = vfs_read_payload(o->obj, off, len, vflags, &rd);
	if (n == -EAGAIN && rq->nowait) {
		rq->defer = true; /* a worker reads it */
		goto out_put;
	}
	if (n < 0) {
		st = smb2_status(SMB2_READ, (int)n);
		goto out_put;
	}
	/* From here this command owns the data. */
	if ((uint32_t)n < min || (n == 0 && len)) {
		payload_release(&rd.data);
		st = STATUS_END_OF_FILE;
		goto out_put;
	}
	if (!sb_put_u16(b, 17) || !sb_put_u8(b, SMB2_READ_DATA_OFFSET) ||
	    !sb_put_u8(b, 0) || !sb_put_u32(b, (uint32_t)n) ||
	    !sb_put_u32(b, 0) || !sb_put_u32(b, 0)) {
		payload_release(&rd.data);
		st = STATUS_INSUFFICIENT_RESOURCES;
		goto out_put;
	}
	if (last) {
		req_reply_set_payload(rq, &rd.data, 0);
	} else {
		/* Another response follows: the bytes go into this one. */
		err = payload_fill(&rd.data);
		if (err || !smb2_rsp_room(w, (size_t)n)) {
			payload_release(&rd.data);
			st = err ? smb2_status(SMB2_READ, err)
				 : STATUS_INSUFFICIENT_RESOURCES;
			goto out_put;
		}
		sb_put_bytes(&w->rsp, rd.data.data, (size_t)n);
		payload_release(&rd.data);
	}
	stats_add_bytes_read((uint64_t)n);
	open_advance(o, off + (uint64_t)n);
	st = STATUS_SUCCESS;
out_put:
	smb2_open_put(o);
	return st;
}

uint32_t smb2_cmd_write(struct smb2_work *w, struct smb2_buf *body)
{
	struct smb2_open *o;
	struct smb2_buf data = { 0 };
	uint16_t ssize, doff;
	uint32_t len, st, flags, channel, remaining;
	uint64_t off, p, v;
	enum vfs_stable stable = VFS_UNSTABLE;
	struct vfs_attr a;
	ssize_t n;
	int err;

	if (!sb_get_u16(body, &ssize) || !sb_get_u16(body, &doff) ||
	    !sb_get_u32(body, &len) || !sb_get_u64(body, &off) ||
	    !sb_get_u64(body, &p) || !sb_get_u64(body, &v) ||
	    !sb_get_u32(body, &channel) || !sb_get_u32(body, &remaining) ||
	    !sb_skip(body, 4) || !sb_get_u32(body, &flags))
		return STATUS_INVALID_PARAMETER;
	st = smb2_open_lookup(w, p, v, &o);
	if (st != STATUS_SUCCESS)
		return st;
	/* The data lies inside this command (DataOffset from its header). */
	if (len > SMB2_MAX_IO || channel != SMB2_CHANNEL_NONE ||
	    (len && (doff < SMB2_HDR_LEN + 48 ||
		     (size_t)doff + len > w->cmd_len ||
		     !sb_range(&w->msg, w->off + doff, len, &data)))) {
		st = STATUS_INVALID_PARAMETER;
		goto out_put;
	}
	if (o->is_dir) {
		st = STATUS_INVALID_DEVICE_REQUEST;
		goto out_put;
	}
	/*
	 * Offsets as Windows takes them over SMB2 (smbtorture
	 * smb2.rw.invalid): none past INT64_MAX, not even MS-FSA's
	 * FILE_WRITE_TO_END_OF_FILE (all ones: Samba bug 14361), and no
	 * data past MAXFILESIZE (MS-FSA 2.1.5.3); an empty WRITE below
	 * INT64_MAX writes nothing and succeeds.
	 */
	if (off > INT64_MAX || len > INT64_MAX - off ||
	    (len && off + len > SMB2_MAX_FILE_SIZE)) {
		st = STATUS_INVALID_PARAMETER;
		goto out_put;
	}
	if (!(o->access & FILE_WRITE_DATA) &&
	    (o->access & FILE_APPEND_DATA)) {
		/* An open that may only append writes at or past the end
		 * (MS-SMB2 §3.3.5.13: within the file needs
		 * FILE_WRITE_DATA). */
		if (o->stream) {
			n = smb2_stream_size(o->obj, o->stream);
			err = n < 0 ? (int)n : 0;
			a.size = n < 0 ? 0 : (uint64_t)n;
		} else {
			err = vfs_getattr(o->obj, &a);
		}
		if (err) {
			st = smb2_status(SMB2_WRITE, err);
			goto out_put;
		}
		if (off < a.size) {
			st = STATUS_ACCESS_DENIED;
			goto out_put;
		}
	} else if (!(o->access & FILE_WRITE_DATA)) {
		st = STATUS_ACCESS_DENIED;
		goto out_put;
	}
	if (io_check_locks(o, true, off, len)) {
		st = STATUS_FILE_LOCK_CONFLICT;
		goto out_put;
	}
	/* Level II oplocks of other opens, and NFS clients' grants, break
	 * before the data changes. */
	st = smb2_open_break(w, o, STATE_OP_WRITE);
	if (st != STATUS_SUCCESS)
		goto out_put;
	if ((flags & SMB2_WRITEFLAG_WRITE_THROUGH) ||
	    (o->create_options & FILE_WRITE_THROUGH_OPT))
		stable = VFS_DATA_SYNC;
	if (!len)
		n = 0;
	else if (o->stream)
		n = smb2_stream_write(o->obj, o->stream, off, data.base, len);
	else
		n = vfs_write(o->obj, off, data.base, len, stable);
	if (n < 0) {
		st = smb2_status(SMB2_WRITE, (int)n);
		goto out_put;
	}
	stats_add_bytes_written((uint64_t)n);
	open_advance(o, off + (uint64_t)n);
	if (!sb_put_u16(&w->rsp, 17) || !sb_put_u16(&w->rsp, 0) ||
	    !sb_put_u32(&w->rsp, (uint32_t)n) || !sb_put_u32(&w->rsp, 0) ||
	    !sb_put_u16(&w->rsp, 0) || !sb_put_u16(&w->rsp, 0)) {
		st = STATUS_INSUFFICIENT_RESOURCES;
		goto out_put;
	}
	st = STATUS_SUCCESS;
out_put:
	smb2_open_put(o);
	return st;
}

size_t smb2_write_align(const uint8_t *head, size_t len)
{
	/* A large encrypted message is, as a rule, a WRITE, which opens in
	 * place (smb2_seal.c) with its data where every client puts it:
	 * DataOffset 0x70. A guess that misses only costs the copy into
	 * the page cache that an unaligned WRITE costs anyway. */
	if (len >= 4 && get_le32(head) == SMB2_TRANSFORM_PROTOCOL_ID)
		return SMB2_TRANSFORM_LEN + SMB2_WRITE_DATA_OFFSET;
	/* A WRITE that is the message's first command: its DataOffset. */
	if (len < SMB2_HDR_LEN + 4 || get_le32(head) != SMB2_PROTOCOL_ID ||
	    get_le16(head + SMB2_HDR_COMMAND) != SMB2_WRITE)
		return 0;
	return get_le16(head + SMB2_HDR_LEN + 2);
}
