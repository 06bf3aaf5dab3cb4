// SPDX-License-Identifier: MIT
/*
 * TREE_CONNECT and TREE_DISCONNECT (MS-SMB2 §2.2.9-§2.2.12, §3.3.5.7,
 * §3.3.5.8): shares are the exports published with smb=NAME, admitted
 * through the one admission of every protocol (export_admit: client
 * match, secure port, squash of the session's user), plus IPC$.
 */
#include "smb2/smb2_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "smb2/smb2_seal.h"
#include "smb2/smb2_session.h"
#include "smb2/utf16.h"

#define SMB2_TREE_CONNECT_FLAG_EXTENSION_PRESENT 0x0004
#define FILE_GENERIC_READ_EXECUTE (FILE_GENERIC_READ | FILE_GENERIC_EXECUTE)

/*
 * The share part of "\\server\share" (@path, UTF-8, @len bytes): what
 * follows the second backslash; NULL for any other shape.
 */
static const char *share_of(const char *path, size_t len, size_t *slen)
{
	const char *p = path, *end = path + len, *s;

	if (len < 3 || p[0] != '\\' || p[1] != '\\')
		return NULL;
	s = memchr(p + 2, '\\', (size_t)(end - p - 2));
	if (!s || s == p + 2 || s + 1 == end)
		return NULL;
	s++;
	if (memchr(s, '\\', (size_t)(end - s)))
		return NULL;
	*slen = (size_t)(end - s);
	return s;
}

uint32_t smb2_cmd_tree_connect(struct smb2_work *w, struct smb2_buf *body)
{
	struct smb2_session *s = w->sess;
	struct export_identity id;
	struct smb2_buf path16;
	struct smb2_tree *t;
	uint16_t ssize, flags, off, len;
	char path[1024];
	const char *share;
	size_t plen, slen;
	uint32_t st = STATUS_SUCCESS;
	int err;

	if (!sb_get_u16(body, &ssize) || !sb_get_u16(body, &flags) ||
	    !sb_get_u16(body, &off) || !sb_get_u16(body, &len))
		return STATUS_INVALID_PARAMETER;
	/* PathOffset is from the header; with the 3.1.1 extension the
	 * path is still where PathOffset says. */
	(void)flags;
	if (off < SMB2_HDR_LEN || !sb_range(&w->msg, w->off + off, len,
					     &path16) ||
	    off + (size_t)len > w->cmd_len)
		return STATUS_INVALID_PARAMETER;
	if (utf16le_to_utf8(path16.base, len, path, sizeof(path), &plen,
			    false) < 0)
		return STATUS_BAD_NETWORK_NAME;
	share = share_of(path, plen, &slen);
	if (!share)
		return STATUS_BAD_NETWORK_NAME;
	t = calloc(1, sizeof(*t));
	if (!t)
		return STATUS_INSUFFICIENT_RESOURCES;
	atomic_init(&t->refs, 1);
	smb2_session_get(s);
	t->sess = s;
	if (slen == 4 && strncasecmp(share, "IPC$", 4) == 0) {
		t->ipc = true;
		t->maximal_access = FILE_GENERIC_READ_EXECUTE;
	} else {
		t->table = export_table_current();
		t->export = t->table ? export_find_by_share(t->table, share,
							    slen)
				     : NULL;
		if (!t->export || !t->export->vex) {
			st = STATUS_BAD_NETWORK_NAME;
			goto out_put;
		}
		/* No guest access unless the export asks for it: then an
		 * anonymous session is the export's anonymous uid/gid. */
		if (s->anonymous && !t->export->wide.smb_guest) {
			st = STATUS_ACCESS_DENIED;
			goto out_put;
		}
		id.anonymous = s->anonymous;
		id.uid = s->uid;
		id.gid = s->gid;
		id.ngroups = s->ngroups;
		id.groups = s->groups;
		err = export_admit(t->export,
				   (const struct sockaddr *)w->req->peer,
				   w->req->peer_privileged, &id, &t->acc);
		if (err) {
			st = STATUS_ACCESS_DENIED;
			goto out_put;
		}
		t->maximal_access = t->acc.opts->rw ? FILE_ALL_ACCESS
						    : FILE_GENERIC_READ_EXECUTE;
		/* Share.EncryptData (§3.3.5.7): a session that cannot
		 * encrypt (no cipher negotiated, anonymous) is refused. */
		if (t->export->wide.smb_encrypt) {
			if (!smb2_session_seals(s)) {
				st = STATUS_ACCESS_DENIED;
				goto out_put;
			}
			t->encrypt = true;
		}
	}
	err = smb2_tree_add(s, t);
	if (err) {
		st = err == -ENOSPC ? STATUS_INSUFFICIENT_RESOURCES
				    : STATUS_USER_SESSION_DELETED;
		goto out_put;
	}
	w->tree_id = t->id;
	smb2_tree_put(w->tree);
	w->tree = t; /* related commands use it; the table has its own */
	if (!sb_put_u16(&w->rsp, 16) ||
	    !sb_put_u8(&w->rsp, t->ipc ? SMB2_SHARE_TYPE_PIPE
				       : SMB2_SHARE_TYPE_DISK) ||
	    !sb_put_u8(&w->rsp, 0) ||
	    !sb_put_u32(&w->rsp,
			(t->ipc ? SMB2_SHAREFLAG_NO_CACHING
				: SMB2_SHAREFLAG_MANUAL_CACHING) |
				(t->encrypt || s->encrypt_data
					 ? SMB2_SHAREFLAG_ENCRYPT_DATA
					 : 0)) ||
	    !sb_put_u32(&w->rsp, 0) || !sb_put_u32(&w->rsp, t->maximal_access))
		return STATUS_INSUFFICIENT_RESOURCES;
	return STATUS_SUCCESS;

out_put:
	smb2_tree_put(t);
	return st;
}

uint32_t smb2_cmd_tree_disconnect(struct smb2_work *w, struct smb2_buf *body)
{
	(void)body;
	smb2_tree_disconnect(w->tree);
	return sb_put_u16(&w->rsp, 4) && sb_put_u16(&w->rsp, 0)
		       ? STATUS_SUCCESS
		       : STATUS_INSUFFICIENT_RESOURCES;
}
