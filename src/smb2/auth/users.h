/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_AUTH_USERS_H
#define NASD_SMB2_AUTH_USERS_H

/*
 * The SMB user database: STATE_DIR/smbpasswd, one line per user,
 *
 *     # nasd smbpasswd 1
 *     NAME:UID:GID:NTHASH
 *
 * NTHASH being the 32 hex digits of MD4(UTF-16LE(password)), the key
 * NTLMv2 proofs are made with. That hash is password-equivalent (whoever
 * reads it can log on as the user, docs/SECURITY.md), so the file must be
 * a regular file owned by the server's user with no group or other
 * permission bits: anything else is refused, never read. Lines starting
 * with '#' are comments; "# nasd smbpasswd N" names the format version
 * (only 1 exists; a file without that line is taken as version 1).
 *
 * Names are 1..SMB2_USER_NAME_MAX bytes of UTF-8 without control
 * characters or any of  " / \ [ ] : ; | = , + * ? < >  (Windows' rule),
 * and are unique and looked up case-insensitively, with the upper-casing
 * NTLM applies to them (utf16le_upper()).
 *
 * Locking: a parsed file is a table, immutable once published and
 * reference-counted. The database holds the current table under a mutex
 * that guards only the pointer: a lookup takes a reference under it and
 * searches without it, and a reload parses the new file with no lock held,
 * then swaps the pointer. A table is wiped and freed by its last put.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SMB2_USER_NAME_MAX  64 /* bytes of UTF-8 */
#define SMB2_USERS_FILE	    "smbpasswd"
#define SMB2_USERS_VERSION  1
#define SMB2_USERS_FILE_MAX (16u << 20) /* bytes: refused beyond */

struct smb2_user {
	char name[SMB2_USER_NAME_MAX + 1]; /* as written in the file */
	uint32_t uid;
	uint32_t gid;
	uint8_t nt_hash[16];
};

struct smb2_users_table;
struct smb2_users;

/* smb2_user_name_valid() - whether @len bytes at @name may be a user name. */
bool smb2_user_name_valid(const char *name, size_t len);

/*
 * smb2_users_table_new() - an empty table with one reference, or NULL
 * (ENOMEM).
 */
struct smb2_users_table *smb2_users_table_new(void);

/*
 * smb2_users_table_parse() - parse @len bytes of file text at @text into a
 * new table (*@out, one reference). Returns 0, -EINVAL (a bad line: the
 * line number and why in @err), -ENOMEM.
 */
int smb2_users_table_parse(const char *text, size_t len,
			   struct smb2_users_table **out, char *err,
			   size_t errlen);

/*
 * smb2_users_table_load() - read and parse the file at @path after checking
 * it (regular file, owned by the effective uid, no group/other bits).
 * Returns 0, -ENOENT (no file), -EPERM (unsafe owner or mode), -EFBIG,
 * -EINVAL (syntax), -errno of open/read; a message in @err for all but
 * -ENOENT.
 */
int smb2_users_table_load(const char *path, struct smb2_users_table **out,
			  char *err, size_t errlen);

/*
 * smb2_users_table_set() - add @u, or replace the entry of the same name
 * (any case). For a table nobody else holds yet (the CLI's). Returns 0,
 * -EINVAL (bad name), -ENOMEM. The hash is copied.
 */
int smb2_users_table_set(struct smb2_users_table *t, const struct smb2_user *u);

/* smb2_users_table_del() - remove @name (any case): 0 or -ENOENT. */
int smb2_users_table_del(struct smb2_users_table *t, const char *name);

/* Entries in lookup order: 0 <= @i < smb2_users_table_count(). Borrowed. */
size_t smb2_users_table_count(const struct smb2_users_table *t);
const struct smb2_user *smb2_users_table_at(const struct smb2_users_table *t,
					    size_t i);

/*
 * smb2_users_table_find() - the entry named @len bytes at @name, matched
 * case-insensitively, or NULL. Borrowed from @t.
 */
const struct smb2_user *smb2_users_table_find(const struct smb2_users_table *t,
					      const char *name, size_t len);

/*
 * smb2_users_table_format() - the file text of @t (version line first) in
 * a new buffer *@text of *@len bytes. It holds hashes: the caller frees it
 * with smb2_users_text_free(). Returns 0 or -ENOMEM.
 */
int smb2_users_table_format(const struct smb2_users_table *t, char **text,
			    size_t *len);

/* smb2_users_text_free() - wipe and free a buffer of file text. */
void smb2_users_text_free(char *text, size_t len);

/* smb2_users_table_put() - drop a reference; the last one wipes and frees. */
void smb2_users_table_put(struct smb2_users_table *t);

/*
 * smb2_users_open() - the database of STATE_DIR/smbpasswd, loaded now
 * (*@out). A missing file is an empty database (a later reload may find
 * one). Returns 0 or what smb2_users_table_load() does, with @err.
 */
int smb2_users_open(const char *state_dir, struct smb2_users **out, char *err,
		    size_t errlen);

/*
 * smb2_users_reload() - re-read the file (on SIGHUP). On any error the
 * current table stays in use and the error is returned (with @err); a
 * missing file empties the database. Lookups running meanwhile see the
 * old table or the new one, never a mix. Returns 0 or -errno.
 */
int smb2_users_reload(struct smb2_users *db, char *err, size_t errlen);

/*
 * smb2_users_lookup() - copy the user named @len bytes of UTF-8 at @name
 * (any case) into *@out. Returns 0 or -ENOENT. The copy holds the hash:
 * the caller wipes it (ntlm_wipe()) when done.
 */
int smb2_users_lookup(struct smb2_users *db, const char *name, size_t len,
		      struct smb2_user *out);

/* smb2_users_count() - users in the current table. */
size_t smb2_users_count(struct smb2_users *db);

/* smb2_users_close() - drop the database (lookups must have ended). */
void smb2_users_close(struct smb2_users *db);

#endif
