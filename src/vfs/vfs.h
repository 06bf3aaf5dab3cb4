/* SPDX-License-Identifier: MIT */
#ifndef NASD_VFS_VFS_H
#define NASD_VFS_VFS_H

/*
 * vfs: the only layer that touches storage. It speaks in objects (an
 * open reference to one file of one export), attributes and 0/-errno
 * (plus the extra values of core/err.h). It knows nothing of protocols:
 * wire handles are opaque byte strings it mints and verifies. Each export
 * is served by a backend (backend.h: the local filesystem, local/); the
 * entry points below are the same whichever it is.
 *
 * Credentials: every operation runs with the calling thread's
 * credentials set by vfs_cred_set(), and the backend enforces them (the
 * local one through the kernel, as the thread's fs credentials). Object
 * lookups from handles are done with root privileges internally.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "core/req.h"

#define VFS_FH_MAX 128        /* NFSv4 limit; NFSv3 asks for <= 64 */
#define VFS_NAME_MAX 255
#define VFS_PATH_MAX 4096
#define VFS_NGROUPS_MAX 16

/* Credentials after export squashing. */
struct vfs_cred {
	uid_t uid;
	gid_t gid;
	uint32_t ngroups;
	gid_t groups[VFS_NGROUPS_MAX];
};

/*
 * vfs_cred_set() - make @c the calling thread's fsuid/fsgid/groups
 * (per-thread syscalls, not glibc's process-wide wrappers). Cheap when
 * unchanged. Returns 0 or -errno.
 */
int vfs_cred_set(const struct vfs_cred *c);

enum vfs_ftype {
	VFS_REG = 1,
	VFS_DIR = 2,
	VFS_BLK = 3,
	VFS_CHR = 4,
	VFS_LNK = 5,
	VFS_SOCK = 6,
	VFS_FIFO = 7,
};

struct vfs_attr {
	enum vfs_ftype type;
	uint32_t mode;     /* permission bits incl. suid/sgid/sticky (07777) */
	uint32_t nlink;
	uint32_t uid;
	uint32_t gid;
	uint64_t size;
	uint64_t used;     /* bytes allocated */
	uint32_t rdev_major;
	uint32_t rdev_minor;
	uint64_t fsid;     /* the export's fsid */
	uint64_t fileid;   /* inode number */
	struct timespec atime;
	struct timespec mtime;
	struct timespec ctime;
	uint64_t change;   /* changes on every data or metadata change */
};

enum vfs_time_how {
	VFS_TIME_DONT = 0,
	VFS_TIME_SERVER = 1,   /* set to the server's current time */
	VFS_TIME_CLIENT = 2,   /* set to the given value */
};

struct vfs_sattr {
	bool set_mode;
	bool set_uid;
	bool set_gid;
	bool set_size;
	uint32_t mode;
	uint32_t uid;
	uint32_t gid;
	uint64_t size;
	enum vfs_time_how atime_how;
	enum vfs_time_how mtime_how;
	struct timespec atime;
	struct timespec mtime;
};

struct vfs_statfs {
	uint64_t tbytes, fbytes, abytes;  /* total, free, available to user */
	uint64_t tfiles, ffiles, afiles;
	uint32_t bsize;
	uint32_t namemax;
};

/* One exported directory tree (a root fd and its identity). */
struct vfs_export;

/*
 * vfs_export_open() - open @path as an export root with export id @id.
 * The path must be an existing directory; symlinks in it are resolved
 * once here, at start-up. Returns 0 and *out, or -errno.
 */
int vfs_export_open(const char *path, uint32_t id, struct vfs_export **out);
void vfs_export_close(struct vfs_export *ex);

/*
 * A CephFS export (the CephFS backend, vfs/ceph/, built when libcephfs
 * is found): directory @subdir ("/" when NULL or empty) of filesystem
 * @fs (the cluster's default when NULL or empty), reached with the
 * cluster configuration @conf (libcephfs's default search when NULL or
 * empty) as cephx client @id ("admin" when NULL or empty).
 */
struct vfs_ceph_spec {
	const char *fs;
	const char *subdir;
	const char *conf;
	const char *id;
};

/*
 * vfs_export_open_ceph() - open a CephFS export with export id @id, shown
 * as @name (vfs_export_path). One libcephfs mount per export; a session a
 * previous run of this server left behind (same STATE_DIR/instance.id and
 * export id) is reclaimed and reset first, so its caps and locks do not
 * hold other clients off for a session timeout. Returns 0 and *@out, or
 * -errno (-EOPNOTSUPP when nasd was built without libcephfs).
 */
int vfs_export_open_ceph(const char *name, const struct vfs_ceph_spec *spec,
			 uint32_t id, struct vfs_export **out);

/*
 * vfs_export_reuse() - open @ex once more (an export kept across a reload
 * of the export table): the caller owns one more open, given back with
 * vfs_export_close(). The root is not looked up again, so a path that was
 * swapped for a symlink since start-up is not followed.
 */
struct vfs_export *vfs_export_reuse(struct vfs_export *ex);
uint32_t vfs_export_id(const struct vfs_export *ex);
/* vfs_export_path() - the export root as resolved at open (realpath). */
const char *vfs_export_path(const struct vfs_export *ex);

/*
 * How READ/WRITE reach the file (DESIGN.md §4). BUFFERED goes through the
 * page cache. DIRECT uses O_DIRECT into aligned buffers, unaligned heads
 * and tails by read-modify-write of their blocks, so the page cache does
 * not grow. AUTO uses the page cache for requests under VFS_IO_AUTO_MIN
 * bytes, and for larger ones while the memory situation allows it
 * (vfs_auto_buffered()); otherwise O_DIRECT for those whose offset and
 * length (and, for writes, buffer) are aligned.
 */
enum vfs_io {
	VFS_IO_AUTO = 0,
	VFS_IO_BUFFERED = 1,
	VFS_IO_DIRECT = 2,
};

#define VFS_IO_AUTO_MIN (64u << 10)

/*
 * Adaptive io=auto (autoio.c): large AUTO I/O goes through the page cache
 * while the cache nasd's memory holds is under a budget and there is no
 * memory pressure, and O_DIRECT otherwise, with hysteresis.
 * vfs_auto_configure() - the budget: @bytes, or (@bytes 0) @pct percent
 *   of the memory nasd may use (its cgroup's limit, else MemTotal); 0 and
 *   0: always direct.
 * vfs_auto_sample() - look at the memory situation again (the server
 *   calls it every VFS_AUTO_SAMPLE_MS).
 * vfs_auto_buffered() - may a large I/O of @len bytes that the cache does
 *   not hold yet go through it? (Counted against the budget if so.)
 */
#define VFS_AUTO_SAMPLE_MS 250
struct vfs_auto_stats {
	bool buffered;
	uint64_t cached;   /* the page cache charged to nasd's memory */
	uint64_t budget;
	uint64_t limit;    /* the memory nasd may use */
	uint64_t switches; /* between buffered and direct */
	unsigned int pressure_x100; /* PSI memory some avg10, 1/100 % */
	uint64_t dirty;    /* of the cache, dirty or under writeback */
};
void vfs_auto_configure(uint64_t bytes, unsigned int pct);
void vfs_auto_sample(void);

/*
 * One look at the memory situation (vfs_auto_sample reads it from
 * /proc and the cgroup), in bytes, and the decision taken on it, apart
 * for the unit tests.
 */
struct vfs_auto_reading {
	uint64_t limit;   /* the memory nasd may use */
	uint64_t avail;   /* MemAvailable */
	uint64_t cached;  /* the page cache charged to that memory */
	uint64_t dirty;   /* ...of it dirty or under writeback */
	unsigned int psi; /* PSI memory "some avg10", hundredths of % */
	/* vm.dirty_background_ratio and vm.dirty_ratio (percent) */
	unsigned int dirty_bg_pct;
	unsigned int dirty_pct;
};
/*
 * vfs_auto_decide() - may large I/O go through the page cache, given @r,
 * the cache @budget, and whether it did (@was; @first: the first look,
 * decided without hysteresis)? Buffered needs the cache under the
 * budget, no pressure (PSI under 10 %, a tenth of the memory available)
 * and dirty data under 3/4 of the point where the kernel throttles
 * writers ((background + dirty ratio) / 2 of the memory that can be
 * dirtied): past it a buffered writer only waits for writeback, which
 * O_DIRECT does not. Going back needs the cache under 3/4 of the budget,
 * PSI under 1 %, a fifth of the memory available, dirty data under half
 * of that mark.
 */
bool vfs_auto_decide(const struct vfs_auto_reading *r, uint64_t budget,
		     bool was, bool first);
bool vfs_auto_buffered(size_t len);
void vfs_auto_stats(struct vfs_auto_stats *out);

/*
 * vfs_export_may_block() - may any call on @ex's objects wait on a
 * network (a cluster backend)? Then no protocol runs them on an event
 * loop, not even the cheap ones (GETATTR, LOOKUP, ACCESS): a loop that
 * waited on a metadata server would hold every connection it serves.
 */
bool vfs_export_may_block(const struct vfs_export *ex);

/* vfs_export_set_io() - the data path of @ex from now on. */
void vfs_export_set_io(struct vfs_export *ex, enum vfs_io io);
enum vfs_io vfs_export_io(const struct vfs_export *ex);

/*
 * vfs_set_max_open_files() - cap the object (open file) cache at @n
 * objects (each holds up to four descriptors); it is lowered further to
 * fit RLIMIT_NOFILE. Call at start-up, before any export is opened; 0
 * keeps the default (65536).
 */
void vfs_set_max_open_files(uint32_t n);

/*
 * vfs_secret_init() - load the handle MAC key from @state_dir/handle.key,
 * creating it (mode 0600, random) if absent. Call once at start-up.
 */
int vfs_secret_init(const char *state_dir);

/* For tests: set the handle MAC key directly (16 bytes). */
void vfs_secret_set(const uint8_t key[16]);

/*
 * vfs_fh_export_id() - verify a wire handle's format and MAC and return
 * the export id it names. -EBADHANDLE if malformed or forged.
 */
int vfs_fh_export_id(const void *fh, size_t len, uint32_t *export_id);

/*
 * Opaque MAC'd handles for objects a protocol synthesises (NFSv4 pseudo-fs
 * nodes): a distinct version byte, so they never name an export's file.
 * vfs_fh_mint_opaque() writes the handle of @payload (1..VFS_FH_OPAQUE_MAX
 * bytes) into @buf and returns its length, -EOVERFLOW (@max too small) or
 * -EINVAL. vfs_fh_verify_opaque() checks format and MAC and copies the
 * payload out: its length, -EBADHANDLE (forged/other kind) or -EOVERFLOW.
 */
#define VFS_FH_OPAQUE_MAX 64
int vfs_fh_mint_opaque(const void *payload, size_t n, void *buf, size_t max);
int vfs_fh_verify_opaque(const void *fh, size_t len, void *payload,
			 size_t max);

/*
 * An open reference to one file: refcounted, from a bounded cache keyed
 * by handle. Callers own one reference per successful get and give it
 * back with vfs_obj_put().
 */
struct vfs_obj;

/*
 * vfs_obj_from_fh() - the object named by a wire handle of export @ex.
 * Returns 0, -EBADHANDLE (forged/malformed, or another export's handle),
 * or -ESTALE (the file no longer exists).
 */
int vfs_obj_from_fh(struct vfs_export *ex, const void *fh, size_t len,
		    struct vfs_obj **out);
/* vfs_obj_root() - a reference to the export root. */
int vfs_obj_root(struct vfs_export *ex, struct vfs_obj **out);
void vfs_obj_get(struct vfs_obj *o);
void vfs_obj_put(struct vfs_obj *o);
/* vfs_obj_release() - vfs_obj_put() with a void * (release hooks). */
void vfs_obj_release(void *o);
struct vfs_export *vfs_obj_export(const struct vfs_obj *o);
/* vfs_obj_type() - @o's file type, known since it was opened (no I/O). */
enum vfs_ftype vfs_obj_type(const struct vfs_obj *o);
bool vfs_obj_is_root(const struct vfs_obj *o);

/*
 * vfs_obj_fh() - mint the wire handle of @o into @buf (at most @max bytes).
 * Returns its length, or -EOVERFLOW when it does not fit in @max.
 */
int vfs_obj_fh(const struct vfs_obj *o, void *buf, size_t max);

int vfs_getattr(struct vfs_obj *o, struct vfs_attr *attr);

/*
 * vfs_setattr() - apply @sa. A size change needs write permission (the
 * owner always has it, as with knfsd). Returns 0 or -errno.
 */
int vfs_setattr(struct vfs_obj *o, const struct vfs_sattr *sa);

/*
 * vfs_mark_modified() - set @o's mtime (so its ctime and change too) to
 * now, with the server's credentials: the holder of a write delegation
 * said it changed the file (CB_GETATTR, RFC 8881 §10.4.3), which others
 * must see before its data comes back. Returns 0 or -errno.
 */
int vfs_mark_modified(struct vfs_obj *o);

/*
 * vfs_lookup() - the entry @name (not NUL-terminated, @len bytes) of
 * directory @dir, never following a symlink. "." is @dir itself and ".."
 * at the export root is the root. Names with '/' or NUL are -EINVAL (or
 * -ENOENT for lookup), longer than VFS_NAME_MAX -ENAMETOOLONG. A mount
 * point inside the export is -EXDEV (exports do not cross mounts).
 */
int vfs_lookup(struct vfs_obj *dir, const char *name, size_t len,
	       struct vfs_obj **out);

/*
 * A directory's place in the filesystem now, to ask whether objects lie
 * below it (SMB refuses to rename a directory with files open below
 * it, as Windows and Samba do). The names are the kernel's current ones, so the
 * answer stays right when any client (or a local process) renamed a
 * directory on the way since the objects were opened. A file with
 * several links is below the directory of the name it was first looked
 * up by while its object is cached.
 */
struct vfs_subtree {
	dev_t dev;
	ino_t ino;
	size_t len;                  /* of @path; 0 for the filesystem root */
	char path[VFS_PATH_MAX];
};

/*
 * vfs_subtree_init() - take @dir's name now into @t (the caller's
 * memory; nothing to release). 0; -ENOTDIR; -ENAMETOOLONG for a name
 * longer than VFS_PATH_MAX; -ENOENT when the kernel gives no absolute
 * name; another -errno of readlink.
 */
int vfs_subtree_init(struct vfs_subtree *t, struct vfs_obj *dir);

/*
 * vfs_subtree_holds() - is @o strictly below the directory of @t (which
 * vfs_subtree_init() filled)? False for the directory itself, another
 * filesystem, an unlinked file, or when @o's name cannot be read. One
 * readlink, and an fstat when the name matches; no lock taken.
 */
bool vfs_subtree_holds(const struct vfs_subtree *t, struct vfs_obj *o);

/* Access bits, as NFSv3 ACCESS3_* (RFC 1813 §3.3.4). */
#define VFS_ACCESS_READ 0x01
#define VFS_ACCESS_LOOKUP 0x02
#define VFS_ACCESS_MODIFY 0x04
#define VFS_ACCESS_EXTEND 0x08
#define VFS_ACCESS_DELETE 0x10
#define VFS_ACCESS_EXECUTE 0x20

/*
 * vfs_access() - which of @want the caller has on @o, in *@granted.
 * @ro: the export is read-only (no MODIFY/EXTEND/DELETE).
 */
int vfs_access(struct vfs_obj *o, uint32_t want, bool ro, uint32_t *granted);

/*
 * vfs_check_lock() - may the caller (its fs credentials) take byte-range
 * locks on @o? As knfsd's NFSD_MAY_LOCK: read permission (or execute, for
 * a regular file), the owner always. 0 or -errno.
 */
int vfs_check_lock(struct vfs_obj *o);

/*
 * vfs_obj_changed_elsewhere() - may @o's file change through others than
 * this server (a cluster filesystem's other gateways and clients), unseen
 * here? Then nothing here would break a client's cache of it: the file
 * state gives no caching grant on it (no delegation, oplock or lease).
 */
bool vfs_obj_changed_elsewhere(const struct vfs_obj *o);

/*
 * Byte-range locks that other servers see. A backend shared by several
 * servers (CephFS, between gateways) keeps locks of its own; nasd's file
 * state (state/) decides between nasd's clients and mirrors each holder's
 * locks there under a 64-bit owner number, so that another server's
 * clients conflict with nasd's and the reverse. Ranges are inclusive
 * ([@start, @end]; @end UINT64_MAX: to the end of any file), with POSIX
 * semantics per owner: setting replaces what the owner held over the
 * range, unlocking may split. Calls on one object must be serialized by
 * the caller (the file state's entry mutex) and may block (a network).
 *
 * vfs_locks_shared() - does @o's backend keep such locks?
 * vfs_lock_set() - make @owner hold [@start, @end] as @type (unlock,
 * shared, exclusive): 0; -EAGAIN when another owner's lock conflicts
 * (nothing changed); -errno when the backend failed.
 * vfs_lock_test() - would a lock of @owner over [@start, @end] conflict?
 * 0 or -EAGAIN with the first conflicting lock in *@c; -errno.
 * vfs_lock_release() - no holder of this server keeps a lock on @o any
 * more: the backend lets go of what it kept for them (every lock of
 * every owner on @o goes with it).
 */
enum vfs_lock_type {
	VFS_LOCK_UNLOCK = 0,
	VFS_LOCK_SHARED,
	VFS_LOCK_EXCL,
};

struct vfs_lock_conflict {
	uint64_t start, end;
	bool excl;
};

bool vfs_locks_shared(const struct vfs_obj *o);
int vfs_lock_set(struct vfs_obj *o, uint64_t owner, uint64_t start,
		 uint64_t end, enum vfs_lock_type type);
int vfs_lock_test(struct vfs_obj *o, uint64_t owner, uint64_t start,
		  uint64_t end, bool excl, struct vfs_lock_conflict *c);
void vfs_lock_release(struct vfs_obj *o);

/* vfs_readlink() - symlink target into @buf; returns its length or -errno. */
ssize_t vfs_readlink(struct vfs_obj *o, char *buf, size_t size);

/* vfs_read_payload() flags. */
#define VFS_READ_NOWAIT 0x1  /* the caller must not block (an event loop) */
#define VFS_READ_FILE_OK 0x2 /* a file-range payload may be returned */
/* the caller holds the right to read already (an NFSv4 open for read,
 * checked at OPEN as a file descriptor is): no access check here */
#define VFS_READ_CHECKED 0x4
/* Longest read served in one call (SMB2's 8 MiB). */
#define VFS_READ_MAX (8u << 20)

/* What a read gives back. */
struct vfs_read_res {
	struct payload data;   /* the bytes; owned by the caller */
	bool eof;              /* the data ends at the end of the file */
	struct vfs_attr attr;  /* the file as the read saw it */
};

/*
 * vfs_read_payload() - the one read entry (DESIGN.md §4): up to @len
 * bytes (at most VFS_READ_MAX) at @off of @o, with the attributes seen by
 * the same fstat that decides end of file. The data comes back in
 * res->data, owned by the caller (payload_release, or hand it to a reply
 * with req_reply_set_payload):
 * - with VFS_READ_FILE_OK, a large read (at least VFS_IO_AUTO_MIN bytes)
 *   that the page cache holds whole, on an export not io=direct, is a
 *   file range (PAYLOAD_FILE: nothing is read; the range keeps @o
 *   referenced, and payload_fill() reads it if it must be in memory);
 * - else a pooled buffer (PAYLOAD_BUF), read with O_DIRECT or through the
 *   page cache as the export's io= says;
 * - nothing (PAYLOAD_NONE) at or past end of file, or for @len 0.
 * With VFS_READ_NOWAIT only the page cache is read (RWF_NOWAIT): -EAGAIN
 * when a part is not cached, the read would go direct, or faults are
 * being injected; the caller then reads again on a thread that may block.
 * The owner may read even without the mode bit (knfsd's owner override);
 * execute implies read. Returns the bytes of data (short only at end of
 * file), or -errno: -EISDIR/-EINVAL for a directory or another
 * non-regular file, -EACCES, -EJUKEBOX when the buffer pool is at its
 * ceiling, -EAGAIN as above. res->attr is valid once the type and
 * permission checks passed (also for -EJUKEBOX and -EAGAIN).
 */
ssize_t vfs_read_payload(struct vfs_obj *o, uint64_t off, size_t len,
			 unsigned int flags, struct vfs_read_res *res);

/*
 * vfs_read() - vfs_read_payload() into the caller's @buf (copied): bytes
 * read (short only at end of file) and *@eof, or -errno. For callers
 * that want the bytes in their own memory (tools, tests); servers hand
 * payloads on instead.
 */
ssize_t vfs_read(struct vfs_obj *o, uint64_t off, void *buf, size_t len,
		 bool *eof);

/*
 * vfs_read_goes_direct() - whether a READ of @len bytes at @off of @o
 * would use O_DIRECT now (AUTO: large, aligned and not already all in the
 * page cache). For tests and diagnostics; the answer may change at once.
 */
bool vfs_read_goes_direct(struct vfs_obj *o, uint64_t off, size_t len);

enum vfs_stable {
	VFS_UNSTABLE = 0,
	VFS_DATA_SYNC = 1,
	VFS_FILE_SYNC = 2,
};

/*
 * vfs_write() - @len bytes at @off. With DATA_SYNC/FILE_SYNC the data is
 * on stable storage before return. In direct mode @buf is written without
 * a copy when its block-aligned part sits at an address aligned for
 * O_DIRECT, else through a pooled bounce buffer. Returns bytes
 * written or -errno (-EJUKEBOX when the buffer pool is at its ceiling).
 */
ssize_t vfs_write(struct vfs_obj *o, uint64_t off, const void *buf,
		  size_t len, enum vfs_stable stable);

/* vfs_commit() - flush @o's data (whole file; @off/@count advisory). */
int vfs_commit(struct vfs_obj *o, uint64_t off, uint64_t count);

enum vfs_createmode {
	VFS_CREATE_UNCHECKED = 0,
	VFS_CREATE_GUARDED = 1,
	VFS_CREATE_EXCLUSIVE = 2,
};

/*
 * vfs_create() - create regular file @name in @dir with @sa applied
 * (mode, and for UNCHECKED an existing file's size). EXCLUSIVE stores @verf
 * in the file's times so that a retried create with the same verifier
 * succeeds and one with another verifier gets -EEXIST; the caller then
 * applies attributes with vfs_setattr (RFC 1813 §3.3.8).
 */
int vfs_create(struct vfs_obj *dir, const char *name, size_t len,
	       enum vfs_createmode how, const struct vfs_sattr *sa,
	       const uint8_t verf[8], struct vfs_obj **out);
int vfs_mkdir(struct vfs_obj *dir, const char *name, size_t len,
	      const struct vfs_sattr *sa, struct vfs_obj **out);
int vfs_symlink(struct vfs_obj *dir, const char *name, size_t len,
		const char *target, size_t tlen, const struct vfs_sattr *sa,
		struct vfs_obj **out);
/* @type: VFS_CHR/BLK (with major/minor), VFS_FIFO or VFS_SOCK. */
int vfs_mknod(struct vfs_obj *dir, const char *name, size_t len,
	      enum vfs_ftype type, uint32_t major, uint32_t minor,
	      const struct vfs_sattr *sa, struct vfs_obj **out);
int vfs_remove(struct vfs_obj *dir, const char *name, size_t len);
int vfs_rmdir(struct vfs_obj *dir, const char *name, size_t len);
/* Both directories must be in the same export, else -EXDEV. */
int vfs_rename(struct vfs_obj *fdir, const char *fname, size_t flen,
	       struct vfs_obj *tdir, const char *tname, size_t tlen);
int vfs_link(struct vfs_obj *o, struct vfs_obj *dir, const char *name,
	     size_t len);

/*
 * Directory listing. Cookies are opaque 64-bit positions, stable across
 * calls (0 = start). @emit is called per entry (including "." and "..")
 * with the cookie of the *next* entry; it returns false to stop (the
 * entry is then not consumed). vfs_readdir returns 0 at the end or after a
 * stop, *@eof telling which, or -errno (-EBADCOOKIE for a bad cookie).
 */
struct vfs_dirent {
	const char *name;
	size_t namelen;
	uint64_t fileid;
	uint64_t cookie;   /* position after this entry */
	enum vfs_ftype type;
};
typedef bool (*vfs_readdir_cb)(void *ctx, const struct vfs_dirent *de);
int vfs_readdir(struct vfs_obj *dir, uint64_t cookie, vfs_readdir_cb emit,
		void *ctx, bool *eof);
/* vfs_dir_verifier() - cookie verifier of @dir (stable while it exists). */
uint64_t vfs_dir_verifier(struct vfs_obj *dir);

int vfs_statfs(struct vfs_obj *o, struct vfs_statfs *st);

/* Server boot verifier for WRITE/COMMIT: differs on every server start. */
uint64_t vfs_write_verifier(void);

/*
 * Extended attributes (xattr.c): names with their namespace prefix
 * ("user.NAME"), as the caller's fs credentials allow (read permission to
 * get or list, write to set or remove). -ENODATA: no such attribute;
 * -ERANGE: @size too small (or a name longer than VFS_XATTR_NAME_MAX);
 * -ENOTSUP where the filesystem has none. Only regular files and
 * directories have them: on other types get is -ENODATA, list empty, set
 * and remove -EPERM (as the kernel answers for user.).
 */
#define VFS_XATTR_NAME_MAX  255   /* XATTR_NAME_MAX */
#define VFS_XATTR_VALUE_MAX 65536 /* XATTR_SIZE_MAX */
#define VFS_XATTR_LIST_MAX  65536 /* XATTR_LIST_MAX */

enum vfs_xattr_how {
	VFS_XATTR_ANY = 0,     /* create or replace */
	VFS_XATTR_CREATE = 1,  /* -EEXIST if it exists */
	VFS_XATTR_REPLACE = 2, /* -ENODATA if it does not */
};

/* vfs_xattr_get() - the value of @name into @buf (@size 0: its length);
 * the length or -errno. */
ssize_t vfs_xattr_get(struct vfs_obj *o, const char *name, void *buf,
		      size_t size);
/*
 * vfs_xattr_get_slot() - vfs_xattr_get() for an xattr that most objects
 * lack and a hot path asks for (SMB's kept security descriptor): that it
 * is absent is remembered in bit @slot (VFS_XSLOT_*) under @a's ctime
 * (@a: @o's attributes just read; any xattr change moves the ctime, and
 * our own changes forget it at once), so that asking again costs no
 * syscall.
 */
enum { VFS_XSLOT_NTACL = 0 };
ssize_t vfs_xattr_get_slot(struct vfs_obj *o, const struct vfs_attr *a,
			   unsigned int slot, const char *name, void *buf,
			   size_t size);
/* vfs_xattr_set() - set @name to @len bytes at @val. 0 or -errno. */
int vfs_xattr_set(struct vfs_obj *o, const char *name, const void *val,
		  size_t len, enum vfs_xattr_how how);
/* vfs_xattr_list() - the names, each NUL-terminated, into @buf (@size 0:
 * the length needed); the length or -errno. */
ssize_t vfs_xattr_list(struct vfs_obj *o, char *buf, size_t size);
/*
 * vfs_xattr_names() - the names as vfs_xattr_list() gives them, in a
 * buffer the caller frees (*@out, NUL-terminated once more after the
 * last name; NULL when there are none); the length or -errno. With @a
 * (@o's attributes just read), the list is remembered under @a's ctime
 * as vfs_xattr_get_slot() remembers an absence, so that a hot path
 * (SMB's EaSize in every FileAllInformation) lists once per change.
 */
ssize_t vfs_xattr_names(struct vfs_obj *o, const struct vfs_attr *a,
			char **out);
/* vfs_xattr_remove() - remove @name. 0 or -errno. */
int vfs_xattr_remove(struct vfs_obj *o, const char *name);
/* vfs_xattr_probe() - 0 when @o's filesystem keeps user. attributes (or
 * @o's type has none to keep), -ENOTSUP when it does not. */
int vfs_xattr_probe(struct vfs_obj *o);

/*
 * Windows attributes kept with a file (dosattr.c): the FILE_ATTRIBUTE_*
 * bits and the creation time (a FILETIME) that SMB clients set, in the
 * xattr user.DOSATTRIB in Samba's layout (a share moves between Samba and
 * nasd with them); NFSv4's archive, hidden, system and time_create are
 * the same properties. Regular files and directories only. Read and
 * written with the server's credentials: the protocol has decided that
 * the caller may (FILE_READ_ATTRIBUTES / FILE_WRITE_ATTRIBUTES), whatever
 * the mode bits say of the xattr.
 */
#define VFS_DOSATTR_MAX 24 /* the encoded length (version 5) */

struct vfs_dosattr {
	bool has_attrib;      /* attrib is kept */
	bool has_create_time; /* create_time is kept */
	uint32_t attrib;      /* FILE_ATTRIBUTE_* as stored */
	uint64_t create_time; /* FILETIME */
};

/* vfs_dosattr_decode() - parse @len bytes of a user.DOSATTRIB value
 * (versions 1, 3, 4, 5, or an old attrib_hex alone) into @d. 0, or
 * -EINVAL with @d empty when it is none of those. */
int vfs_dosattr_decode(const uint8_t *p, size_t len, struct vfs_dosattr *d);
/* vfs_dosattr_encode() - @d as version 5 into @out; its length. */
size_t vfs_dosattr_encode(const struct vfs_dosattr *d,
			  uint8_t out[VFS_DOSATTR_MAX]);
/* vfs_dosattr_get() - what @o keeps into @d (both has_ false when nothing,
 * or nothing readable, is kept); @a: @o's attributes just read, whose
 * ctime the value is cached under (an xattr change moves the ctime).
 * 0 or -errno. */
int vfs_dosattr_get(struct vfs_obj *o, const struct vfs_attr *a,
		    struct vfs_dosattr *d);
/* vfs_dosattr_set() - keep @d with @o (replacing what was). 0 or -errno
 * (-EOPNOTSUPP where the type or the filesystem keeps no xattrs). */
int vfs_dosattr_set(struct vfs_obj *o, const struct vfs_dosattr *d);

/*
 * Space and server-side data operations (space.c), for NFSv4.2's
 * ALLOCATE, DEALLOCATE, SEEK, COPY, CLONE, READ_PLUS and IO_ADVISE.
 * Regular files only (-EISDIR / -EINVAL otherwise); the caller needs
 * write permission on the target (read on a copy or clone source).
 */

/* vfs_allocate() - reserve blocks for [@off, @off + @len) (fallocate
 * mode 0; the size grows when the range ends past it). @len 0 is -EINVAL,
 * a range past the largest offset -EFBIG. Returns 0 or -errno. */
int vfs_allocate(struct vfs_obj *o, uint64_t off, uint64_t len);

/* vfs_deallocate() - punch a hole over [@off, @off + @len): reads of it
 * return zeros afterwards; the size does not change. 0 or -errno. */
int vfs_deallocate(struct vfs_obj *o, uint64_t off, uint64_t len);

enum vfs_seek_what {
	VFS_SEEK_DATA = 0,
	VFS_SEEK_HOLE = 1,
};

/*
 * vfs_seek() - the first offset >= @off that starts data (or a hole; the
 * end of the file counts as a hole), in *@pos, and the file size in
 * *@size. When no data follows @off, *@pos is the size. @off at or past
 * the end of the file is -ENXIO. Returns 0 or -errno.
 */
int vfs_seek(struct vfs_obj *o, uint64_t off, enum vfs_seek_what what,
	     uint64_t *pos, uint64_t *size);

/*
 * vfs_copy_range() - copy @count bytes (0 = to the end of the source)
 * from @src at @soff to @dst at @doff inside the kernel
 * (copy_file_range, or a bounce buffer where the kernel declines), at
 * most @max bytes in this call. A source range past the source's end, or
 * overlapping ranges of one file, are -EINVAL. With @stable other than
 * VFS_UNSTABLE the data is on stable storage before return. Returns the
 * bytes copied (short only at @max or if the source shrank) or -errno.
 */
ssize_t vfs_copy_range(struct vfs_obj *src, uint64_t soff,
		       struct vfs_obj *dst, uint64_t doff, uint64_t count,
		       uint64_t max, enum vfs_stable stable);

/*
 * vfs_clone_range() - share @src's blocks [@soff, @soff + @count) with
 * @dst at @doff (FICLONERANGE; @count 0 = to the end of the source).
 * -ENOTSUPP when the filesystem cannot clone (ext4), -EINVAL for a range
 * past the source's end, overlapping ranges of one file, or offsets not
 * aligned to the block size. Returns 0 or -errno.
 */
int vfs_clone_range(struct vfs_obj *src, uint64_t soff, struct vfs_obj *dst,
		    uint64_t doff, uint64_t count);

/* vfs_clone_blksize() - the alignment clones need (the block size). */
int vfs_clone_blksize(struct vfs_obj *o, uint32_t *blksize);

enum vfs_advice {
	VFS_ADV_NORMAL = 0,
	VFS_ADV_SEQUENTIAL = 1,
	VFS_ADV_RANDOM = 2,
	VFS_ADV_WILLNEED = 3,
	VFS_ADV_DONTNEED = 4,
	VFS_ADV_NOREUSE = 5,
};

/* vfs_advise() - tell the kernel how [@off, @off + @len) will be used
 * (posix_fadvise; @len 0 = to the end). Returns 0 or -errno. */
int vfs_advise(struct vfs_obj *o, uint64_t off, uint64_t len,
	       enum vfs_advice advice);

#endif
