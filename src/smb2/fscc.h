/* SPDX-License-Identifier: MIT */
#ifndef NASD_SMB2_FSCC_H
#define NASD_SMB2_FSCC_H

/*
 * The file-system structures that SMB2 QUERY_INFO, SET_INFO and
 * QUERY_DIRECTORY carry (MS-FSCC 2.4, 2.5, 2.6), built from and decoded
 * into plain C values: nasd's vfs attributes on one side, the wire bytes
 * on the other, through the bounds-checked cursor (smb2_buf.h) only.
 *
 * What the engine supplies and what it decides is said at each function;
 * this module holds no state and does no I/O. Every encoder writes at the
 * cursor's position into at most sb_remaining() bytes: the caller bounds
 * the cursor by the request's OutputBufferLength (and the reply's room),
 * and what was written is the cursor's advance. Every function answers an
 * enum fscc_status, which fscc_ntstatus() turns into the NTSTATUS to send.
 *
 * MS-FSCC section numbers move between revisions; where one is given it is
 * the learn.microsoft.com revision of 2024, and the structure's name is
 * what to search for.
 *
 * Files: fscc.c (conversions, statuses, list chaining), fscc_query.c
 * (QUERY_INFO file and volume classes), fscc_set.c (SET_INFO classes, the
 * EA list), fscc_dir.c (QUERY_DIRECTORY entries). Security descriptors
 * are in sd.h, directory patterns in wildcard.h.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "smb2/smb2_buf.h"
#include "vfs/vfs.h"

/*
 * Outcomes. FSCC_OK and FSCC_BUFFER_OVERFLOW are successes (the latter
 * with a truncated variable part written: a warning status whose reply
 * carries the data, MS-SMB2 §3.3.5.20.1); every other value wrote nothing.
 */
enum fscc_status {
	FSCC_OK = 0,
	FSCC_BUFFER_OVERFLOW,	     /* 0x80000005 */
	FSCC_INFO_LENGTH_MISMATCH,   /* 0xC0000004: below the fixed part */
	FSCC_BUFFER_TOO_SMALL,	     /* 0xC0000023: security, size reported */
	FSCC_INVALID_PARAMETER,	     /* 0xC000000D */
	FSCC_OBJECT_NAME_INVALID,    /* 0xC0000033: not well-formed Unicode */
	FSCC_NAME_TOO_LONG,	     /* 0xC0000106 */
	FSCC_EA_LIST_INCONSISTENT,   /* 0x80000014 */
	FSCC_INVALID_EA_NAME,	     /* 0x80000013 */
	FSCC_INVALID_SECURITY_DESCR, /* 0xC0000079 */
	FSCC_INVALID_INFO_CLASS,     /* 0xC0000003: no codec here */
	FSCC_NO_SPACE,		     /* a list entry did not fit (internal) */
};

/*
 * fscc_ntstatus() - the NTSTATUS of @s. FSCC_NO_SPACE maps to
 * STATUS_BUFFER_OVERFLOW; a QUERY_DIRECTORY whose first entry does not fit
 * is the engine's case to answer (MS-SMB2 §3.3.5.18). For
 * FSCC_INVALID_INFO_CLASS the engine may prefer STATUS_NOT_SUPPORTED for
 * classes MS-FSCC documents (MS-SMB2 §3.3.5.20.1, §3.3.5.21.1).
 */
uint32_t fscc_ntstatus(enum fscc_status s);

/* MS-FSCC 2.4 file information classes (the ones nasd speaks). */
enum fscc_file_class {
	FileDirectoryInformation = 1,
	FileFullDirectoryInformation = 2,
	FileBothDirectoryInformation = 3,
	FileBasicInformation = 4,
	FileStandardInformation = 5,
	FileInternalInformation = 6,
	FileEaInformation = 7,
	FileAccessInformation = 8,
	FileRenameInformation = 10,
	FileLinkInformation = 11,
	FileNamesInformation = 12,
	FileDispositionInformation = 13,
	FilePositionInformation = 14,
	FileFullEaInformation = 15,
	FileModeInformation = 16,
	FileAlignmentInformation = 17,
	FileAllInformation = 18,
	FileAllocationInformation = 19,
	FileEndOfFileInformation = 20,
	FileAlternateNameInformation = 21,
	FileStreamInformation = 22,
	FileCompressionInformation = 28,
	FileNetworkOpenInformation = 34,
	FileAttributeTagInformation = 35,
	FileIdBothDirectoryInformation = 37,
	FileIdFullDirectoryInformation = 38,
	FileNormalizedNameInformation = 48,
	FileIdInformation = 59,
	FileIdExtdDirectoryInformation = 60,
	FileDispositionInformationEx = 64,
};

/* MS-FSCC 2.5 file system information classes. */
enum fscc_fs_class {
	FileFsVolumeInformation = 1,
	FileFsSizeInformation = 3,
	FileFsDeviceInformation = 4,
	FileFsAttributeInformation = 5,
	FileFsFullSizeInformation = 7,
	FileFsObjectIdInformation = 8,
	FileFsSectorSizeInformation = 11,
};

/* MS-FSCC 2.6 file attributes. */
#define FILE_ATTRIBUTE_READONLY		   0x00000001u
#define FILE_ATTRIBUTE_HIDDEN		   0x00000002u
#define FILE_ATTRIBUTE_SYSTEM		   0x00000004u
#define FILE_ATTRIBUTE_DIRECTORY	   0x00000010u
#define FILE_ATTRIBUTE_ARCHIVE		   0x00000020u
#define FILE_ATTRIBUTE_NORMAL		   0x00000080u
#define FILE_ATTRIBUTE_TEMPORARY	   0x00000100u
#define FILE_ATTRIBUTE_SPARSE_FILE	   0x00000200u
#define FILE_ATTRIBUTE_REPARSE_POINT	   0x00000400u
#define FILE_ATTRIBUTE_COMPRESSED	   0x00000800u
#define FILE_ATTRIBUTE_OFFLINE		   0x00001000u
#define FILE_ATTRIBUTE_NOT_CONTENT_INDEXED 0x00002000u
#define FILE_ATTRIBUTE_ENCRYPTED	   0x00004000u
#define FILE_ATTRIBUTE_INTEGRITY_STREAM	   0x00008000u
#define FILE_ATTRIBUTE_NO_SCRUB_DATA	   0x00020000u

/* What SET_INFO FileBasicInformation may change (MS-FSA 2.1.5.15.2). */
#define FSCC_ATTR_SETTABLE                                                     \
	(FILE_ATTRIBUTE_READONLY | FILE_ATTRIBUTE_HIDDEN |                     \
	 FILE_ATTRIBUTE_SYSTEM | FILE_ATTRIBUTE_ARCHIVE |                      \
	 FILE_ATTRIBUTE_TEMPORARY | FILE_ATTRIBUTE_OFFLINE |                   \
	 FILE_ATTRIBUTE_NOT_CONTENT_INDEXED)

/* What nasd keeps of the attributes (vfs_dosattr): the settable ones and
 * SPARSE_FILE, which FSCTL_SET_SPARSE sets. */
#define FSCC_ATTR_KEPT (FSCC_ATTR_SETTABLE | FILE_ATTRIBUTE_SPARSE_FILE)

/* MS-FSCC 2.1.2.1: the tag of a Windows symbolic link. */
#define IO_REPARSE_TAG_SYMLINK 0xA000000Cu

/* FILE_MODE_INFORMATION flags (MS-FSCC FileModeInformation). */
#define FILE_WRITE_THROUGH	       0x00000002u
#define FILE_SEQUENTIAL_ONLY	       0x00000004u
#define FILE_NO_INTERMEDIATE_BUFFERING 0x00000008u
#define FILE_SYNCHRONOUS_IO_ALERT      0x00000010u
#define FILE_SYNCHRONOUS_IO_NONALERT   0x00000020u
#define FILE_DELETE_ON_CLOSE	       0x00001000u

/* FILE_DISPOSITION_INFORMATION_EX flags (MS-FSCC). */
#define FILE_DISPOSITION_DELETE			   0x00000001u
#define FILE_DISPOSITION_POSIX_SEMANTICS	   0x00000002u
#define FILE_DISPOSITION_FORCE_IMAGE_SECTION_CHECK 0x00000004u
#define FILE_DISPOSITION_ON_CLOSE		   0x00000008u
#define FILE_DISPOSITION_IGNORE_READONLY_ATTRIBUTE 0x00000010u

/* MS-FSCC 2.5.1 FileSystemAttributes. */
#define FILE_CASE_SENSITIVE_SEARCH	  0x00000001u
#define FILE_CASE_PRESERVED_NAMES	  0x00000002u
#define FILE_UNICODE_ON_DISK		  0x00000004u
#define FILE_PERSISTENT_ACLS		  0x00000008u
#define FILE_FILE_COMPRESSION		  0x00000010u
#define FILE_VOLUME_QUOTAS		  0x00000020u
#define FILE_SUPPORTS_SPARSE_FILES	  0x00000040u
#define FILE_SUPPORTS_REPARSE_POINTS	  0x00000080u
#define FILE_SUPPORTS_POSIX_UNLINK_RENAME 0x00000400u
#define FILE_SUPPORTS_OBJECT_IDS	  0x00010000u
#define FILE_NAMED_STREAMS		  0x00040000u
#define FILE_READ_ONLY_VOLUME		  0x00080000u
#define FILE_SUPPORTS_HARD_LINKS	  0x00400000u
#define FILE_SUPPORTS_EXTENDED_ATTRIBUTES 0x00800000u
#define FILE_SUPPORTS_BLOCK_REFCOUNTING	  0x08000000u

/* ---- Conversions (fscc.c) ---- */

/* FILETIME of 1970-01-01 00:00:00 UTC (100 ns units since 1601). */
#define FSCC_FILETIME_UNIX_EPOCH 116444736000000000ull
/* The largest FILETIME: LARGE_INTEGER is signed (MS-DTYP 2.3.3). */
#define FSCC_FILETIME_MAX 0x7fffffffffffffffull

/*
 * fscc_filetime_from_timespec() - @ts as a FILETIME (MS-FSCC 2.1.1),
 * rounded down to 100 ns. Times before 1601 give 0, times past the
 * largest FILETIME (year 30828) give FSCC_FILETIME_MAX; a tv_nsec outside
 * [0, 1e9) is carried into the seconds first.
 */
uint64_t fscc_filetime_from_timespec(const struct timespec *ts);

/*
 * fscc_timespec_from_filetime() - the Unix time of FILETIME @ft, which
 * must be at most FSCC_FILETIME_MAX (larger values are read as it). Every
 * such time fits a 64-bit time_t. The SET_INFO "special" values (0, -1,
 * -2) are fscc_dec_time()'s business, not this one's.
 */
struct timespec fscc_timespec_from_filetime(uint64_t ft);

/* What a SET_INFO FileBasicInformation time field asks (MS-FSCC 2.4.7). */
enum fscc_time_op {
	FSCC_TIME_KEEP = 0, /* 0: do not change it */
	FSCC_TIME_SET,	    /* set it to .ts */
	FSCC_TIME_FREEZE,   /* -1: do not change it, and stop updating it
			       for the rest of this handle's life */
	FSCC_TIME_THAW,	    /* -2: resume updating it on this handle */
};

struct fscc_time_set {
	enum fscc_time_op op;
	uint64_t filetime;  /* as received, for FSCC_TIME_SET */
	struct timespec ts; /* its Unix time, for FSCC_TIME_SET */
};

/*
 * fscc_dec_time() - classify a signed 64-bit FILETIME @raw from a SET_INFO
 * request into *@out. Values below -2 are FSCC_INVALID_PARAMETER
 * (MS-FSA 2.1.5.15.2). What FREEZE and THAW mean over the handle's life
 * (which later writes must not move which time) is the engine's state.
 */
enum fscc_status fscc_dec_time(uint64_t raw, struct fscc_time_set *out);

/* fscc_attributes() flags. */
#define FSCC_ATTR_SYMLINK_REPARSE 0x1 /* report symlinks as reparse points */

/*
 * fscc_attributes() - the FILE_ATTRIBUTE_* of a file with attributes @a,
 * as nasd reports them without stored DOS attributes (tier 1):
 * - DIRECTORY for a directory, and nothing else for it;
 * - ARCHIVE for every other type (what Windows sets on a file it creates
 *   or writes, and what ksmbd reports);
 * - READONLY for a non-directory whose mode has no write bit for anyone
 *   (mode & 0222 == 0): nobody can write it through the kernel, so
 *   clients may as well know before they try. (Samba's default, "map
 *   readonly = no", never derives it
 *   from the mode; its "yes" uses the owner's bit alone, which marks
 *   group-writable files read-only.)
 * - SPARSE_FILE for a regular file with fewer bytes allocated than its
 *   size (punched or never-written ranges);
 * - REPARSE_POINT for a symbolic link only with FSCC_ATTR_SYMLINK_REPARSE
 *   (with fscc_reparse_tag() IO_REPARSE_TAG_SYMLINK). nasd never follows
 *   a symlink, so a client that sees the tag reads it with
 *   FSCTL_GET_REPARSE_POINT or meets STATUS_STOPPED_ON_SYMLINK: set the
 *   flag once the engine answers those (tier 2); until then a symlink is
 *   shown as an ordinary file that cannot be opened.
 * - NORMAL when nothing else is set (MS-FSCC 2.6: only ever alone), which
 *   the rules above never leave; fscc_attributes_normalize() is there for
 *   attributes from elsewhere (stored DOS attributes, SET_INFO).
 * HIDDEN for dot-files is fscc_name_hidden()'s, as it needs the name.
 */
uint32_t fscc_attributes(const struct vfs_attr *a, unsigned int flags);

/* fscc_reparse_tag() - the reparse tag that goes with those attributes. */
uint32_t fscc_reparse_tag(const struct vfs_attr *a, unsigned int flags);

/*
 * fscc_name_hidden() - whether the last component @name (@len bytes) is a
 * Unix hidden file: starts with '.' and is neither "." nor "..". Samba's
 * default "hide dot files = yes" reports those FILE_ATTRIBUTE_HIDDEN; the
 * engine ORs the bit in where it wants the same.
 */
bool fscc_name_hidden(const char *name, size_t len);

/*
 * fscc_attributes_normalize() - @attrs with FILE_ATTRIBUTE_NORMAL dropped
 * when any other bit is set, and set when none is (MS-FSCC 2.6).
 */
uint32_t fscc_attributes_normalize(uint32_t attrs);

/*
 * fscc_allocation_size() - AllocationSize: the bytes allocated (st_blocks
 * * 512, vfs_attr.used); 0 for a directory, as Samba and ksmbd report.
 */
uint64_t fscc_allocation_size(const struct vfs_attr *a);

/*
 * fscc_volume_serial() - a 32-bit VolumeSerialNumber for export @export_id:
 * stable, never 0, and different for neighbouring ids (a mix of the id, so
 * that clients keying caches on serial + FileId do not confuse exports).
 */
uint32_t fscc_volume_serial(uint32_t export_id);

/*
 * What QUERY_INFO and QUERY_DIRECTORY report of one file: times as
 * FILETIMEs, sizes, attributes. fscc_file_info_from_attr() fills it from
 * the vfs; the engine then overrides what only it knows (see there).
 */
struct fscc_file_info {
	uint64_t creation_time;
	uint64_t last_access_time;
	uint64_t last_write_time;
	uint64_t change_time;
	uint64_t allocation_size;
	uint64_t end_of_file;
	uint64_t file_id;     /* IndexNumber / FileId (MS-FSCC 2.1.9) */
	uint32_t attributes;  /* FILE_ATTRIBUTE_* */
	uint32_t reparse_tag; /* with FILE_ATTRIBUTE_REPARSE_POINT */
	uint32_t nlink;	      /* NumberOfLinks */
	uint32_t ea_size;     /* EaSize as MS-FSA 2.1.5.12.10 counts it */
	bool directory;
	bool delete_pending;
};

/*
 * fscc_file_info_from_attr() - fill @fi from @a (flags as
 * fscc_attributes()):
 * - CreationTime: vfs_attr has no birth time, so the earliest of ctime,
 *   mtime and atime (of ctime and mtime when atime is 0), Samba's fallback;
 *   the engine overrides it once it keeps a creation time;
 * - LastAccessTime atime, LastWriteTime mtime, ChangeTime ctime;
 * - AllocationSize fscc_allocation_size(), EndOfFile the size (0 for a
 *   directory, as Windows and Samba report);
 * - file_id the inode number;
 * - NumberOfLinks the link count, 1 for a directory (Samba);
 * - ea_size 0, delete_pending false.
 * The engine sets delete_pending (and then lowers nlink by one, as
 * Windows reports a link being deleted), ea_size when EAs are kept, and
 * ORs in FILE_ATTRIBUTE_HIDDEN (fscc_name_hidden()).
 */
void fscc_file_info_from_attr(struct fscc_file_info *fi,
			      const struct vfs_attr *a, unsigned int flags);

/*
 * fscc_file_info_apply_dos() - what the file keeps (@d, vfs_dosattr) over
 * what fscc_file_info_from_attr() derived: a kept creation time replaces
 * the derived one; kept attributes (FSCC_ATTR_KEPT) replace the derived
 * ones, but for a regular file READONLY stays the mode's (the mode is
 * what the kernel enforces, and NFS clients change it), and DIRECTORY
 * and REPARSE_POINT stay the type's. Call it before
 * fscc_attributes_normalize().
 */
void fscc_file_info_apply_dos(struct fscc_file_info *fi,
			      const struct vfs_dosattr *d);

/* ---- QUERY_INFO, SMB2_0_INFO_FILE (fscc_query.c) ---- */

/* What an open adds to the file for QUERY_INFO. */
/* One entry of FileStreamInformation: "::$DATA" or ":NAME:$DATA". */
struct fscc_stream {
	const char *name; /* UTF-8, well formed */
	size_t name_len;
	uint64_t size;
	uint64_t allocation_size;
};

struct fscc_query {
	const struct fscc_file_info *fi;
	/* FileStreamInformation: the streams of the file, in order */
	const struct fscc_stream *streams;
	size_t nstreams;
	uint32_t access;   /* Open.GrantedAccess (FileAccess, FileAll) */
	uint64_t position; /* CurrentByteOffset: MS-SMB2 §3.3.5.20.1
			      says a server SHOULD report 0 */
	uint32_t mode;	   /* FILE_MODE_INFORMATION flags of the open */
	/*
	 * The open's path from the share root, UTF-8 with '/' separators and
	 * no leading '/' ("" for the root). FileAllInformation sends it as
	 * "\dir\file" ("\" for the root), FileNormalizedNameInformation as
	 * "dir\file" ("" for the root), as Samba does.
	 */
	const char *path;
	size_t path_len;
	uint64_t volume_serial; /* FileIdInformation (fscc_volume_serial()) */
};

/*
 * fscc_query_file() - encode information class @cls of the file in @q at
 * @out's position. Classes: Basic, Standard, Internal, Ea, Access,
 * Position, Mode, Alignment, All, Stream, Compression, NetworkOpen,
 * AttributeTag, NormalizedName, Id. Sizes and short buffers as MS-FSA
 * 2.1.5.12 gives them:
 * - fewer bytes than the class's fixed part (fscc_query_file_min()):
 *   FSCC_INFO_LENGTH_MISMATCH, nothing written;
 * - a name (All, NormalizedName) that does not fit: as much of it as fits
 *   in whole UTF-16 units, FileNameLength still the full length, and
 *   FSCC_BUFFER_OVERFLOW;
 * - FileStreamInformation: @q's streams (the engine lists "::$DATA" for
 *   a file, not for a directory, then the named ones); an entry that does
 *   not fit is left out and the answer is FSCC_BUFFER_OVERFLOW with the
 *   entries before it.
 * FSCC_OBJECT_NAME_INVALID when the path is not valid UTF-8,
 * FSCC_INVALID_INFO_CLASS for a class not listed above (21,
 * AlternateName, is the engine's STATUS_OBJECT_NAME_NOT_FOUND; 15,
 * FullEa, the engine's walk over fscc_ea_append()).
 */
enum fscc_status fscc_query_file(uint8_t cls, struct smb2_buf *out,
				 const struct fscc_query *q);

/*
 * fscc_query_file_min() - the fixed part of class @cls, below which
 * fscc_query_file() answers FSCC_INFO_LENGTH_MISMATCH; 0 if unknown.
 */
size_t fscc_query_file_min(uint8_t cls);

/* ---- QUERY_INFO, SMB2_0_INFO_FILESYSTEM (fscc_query.c) ---- */

/*
 * What nasd can honestly claim for a volume: the fscc_fs_attributes()
 * input. Tier 1 on ext4: case-sensitive unless the share folds case, no
 * named streams, no reparse points, EAs as user. xattrs when the engine
 * serves them.
 */
struct fscc_fs_caps {
	bool case_insensitive; /* the share matches names case-insensitively */
	bool eas;	       /* FullEa / ExtA served from user. xattrs */
	bool streams;	       /* named streams (tier 2) */
	bool reparse;	       /* reparse points served (tier 2) */
	bool posix_unlink;     /* POSIX unlink/rename semantics (tier 2) */
	bool clone;	       /* FSCTL_DUPLICATE_EXTENTS_TO_FILE works */
	bool read_only;	       /* the share is read-only for this session */
};

/*
 * fscc_fs_attributes() - FileSystemAttributes for @c: always
 * CASE_PRESERVED_NAMES, UNICODE_ON_DISK, PERSISTENT_ACLS (security
 * descriptors are synthesized from, and written back to, the owner, group
 * and mode the filesystem keeps: what a client sets that they can express
 * persists), SUPPORTS_SPARSE_FILES (holes: SET_SPARSE, SET_ZERO_DATA) and
 * SUPPORTS_HARD_LINKS (FileLinkInformation); CASE_SENSITIVE_SEARCH unless
 * case-insensitive; the others as @c says.
 */
uint32_t fscc_fs_attributes(const struct fscc_fs_caps *c);

/* What QUERY_INFO reports of a volume (an export). */
struct fscc_fs_query {
	const struct vfs_statfs *st;
	uint64_t volume_creation_time; /* FILETIME (e.g. the root's ctime) */
	uint32_t volume_serial;	       /* fscc_volume_serial() */
	const char *label;	       /* UTF-8: the share name */
	size_t label_len;
	/*
	 * FileSystemName, UTF-8; NULL for "NTFS", Samba's default (its
	 * "fstype" option): Windows software tests for that name, while the
	 * true one ("ext4") would tell a client nothing it acts on; what the
	 * volume can do is in fs_attributes either way.
	 */
	const char *fs_name;
	size_t fs_name_len;
	uint32_t fs_attributes; /* fscc_fs_attributes() */
	bool read_only;		/* FILE_READ_ONLY_DEVICE */
	uint8_t object_id[16];	/* FileFsObjectIdInformation */
};

/*
 * fscc_query_fs() - encode file system information class @cls of @q at
 * @out's position: Volume, Size, Device, Attribute, FullSize, ObjectId,
 * SectorSize (MS-FSCC 2.5, sizes and short buffers as MS-FSA 2.1.5.13:
 * the label and the file system name are truncated with
 * FSCC_BUFFER_OVERFLOW, their length fields still the full length).
 * Allocation units are the filesystem block (vfs_statfs.bsize, 4096 when
 * it is 0 or not a multiple of 512) over 512-byte sectors.
 * FSCC_INVALID_INFO_CLASS for other classes (FileFsControlInformation,
 * quotas, is the engine's STATUS_NOT_SUPPORTED or a zero answer).
 */
enum fscc_status fscc_query_fs(uint8_t cls, struct smb2_buf *out,
			       const struct fscc_fs_query *q);

/* fscc_query_fs_min() - the fixed part of FS class @cls; 0 if unknown. */
size_t fscc_query_fs_min(uint8_t cls);

/* ---- Chained lists (fscc.c): directory entries, EAs, streams ---- */

/*
 * A list of entries linked by NextEntryOffset, being appended to @b. Each
 * entry starts at a multiple of @align counted from where the list began
 * (the output buffer is 8-byte aligned in the reply, MS-SMB2 §2.2.34);
 * appending one pads the previous entry and patches its NextEntryOffset,
 * the last entry's stays 0. An entry that does not fit, with its padding,
 * leaves the list and the cursor as they were: no partial entry is ever
 * written.
 */
struct fscc_list {
	struct smb2_buf *b;
	size_t start;	/* b->pos when the list began */
	size_t last;	/* offset in b of the last entry */
	uint32_t count; /* entries written */
	uint32_t align; /* 8 (directories, streams) or 4 (EAs) */
};

/* fscc_list_init() - begin a list at @b's position; @align 4 or 8. */
void fscc_list_init(struct fscc_list *l, struct smb2_buf *b, uint32_t align);

/* ---- QUERY_DIRECTORY entries (fscc_dir.c) ---- */

/*
 * fscc_dir_append() - append the entry of class @cls for the file named
 * @name (@len bytes of UTF-8, a single component: "." and ".." are the
 * engine's to add) with @fi to @l (fscc_list_init(l, b, 8)). Classes:
 * FileDirectory, FileFullDirectory, FileBothDirectory (ShortName empty),
 * FileNames, FileIdBothDirectory, FileIdFullDirectory, FileIdExtdDirectory
 * (MS-FSCC 2.4). EaSize carries the reparse tag when
 * FILE_ATTRIBUTE_REPARSE_POINT is set; FileIndex is 0 (undefined for
 * NTFS-like stores). FSCC_NO_SPACE when the entry does not fit (nothing
 * written), FSCC_OBJECT_NAME_INVALID when @name is not valid UTF-8 (or
 * holds NUL: the engine skips such a file), FSCC_INVALID_INFO_CLASS.
 */
enum fscc_status fscc_dir_append(struct fscc_list *l, uint8_t cls,
				 const char *name, size_t len,
				 const struct fscc_file_info *fi);

/* fscc_dir_entry_min() - the fixed part of an entry of @cls; 0 unknown. */
size_t fscc_dir_entry_min(uint8_t cls);

/* ---- SET_INFO, SMB2_0_INFO_FILE (fscc_set.c) ---- */

/*
 * The decoders read the request's InputBuffer, a cursor over exactly its
 * bytes (from @in->pos), and never modify it. A buffer shorter than the
 * class's fixed part is FSCC_INFO_LENGTH_MISMATCH (MS-FSA 2.1.5.15);
 * trailing bytes past what the class uses are ignored.
 */

struct fscc_set_basic {
	struct fscc_time_set creation;
	struct fscc_time_set last_access;
	struct fscc_time_set last_write;
	struct fscc_time_set change; /* Linux cannot set ctime: the engine
					ignores SET (as Samba does) */
	uint32_t attributes;	     /* 0: leave them (else replace the
					FSCC_ATTR_SETTABLE ones) */
};

/*
 * fscc_dec_FILE_BASIC_INFORMATION() - MS-FSCC 2.4.7, 40 bytes. Each time
 * through fscc_dec_time(); FILE_ATTRIBUTE_DIRECTORY on a non-directory or
 * FILE_ATTRIBUTE_TEMPORARY on a directory (@is_dir says which the open
 * is) is FSCC_INVALID_PARAMETER (MS-FSA 2.1.5.15.2).
 */
enum fscc_status fscc_dec_FILE_BASIC_INFORMATION(struct smb2_buf *in,
						 bool is_dir,
						 struct fscc_set_basic *out);

/* A rename or hard-link target (FILE_RENAME/LINK_INFORMATION_TYPE_2). */
struct fscc_set_link {
	bool replace_if_exists;
	char *name; /* the caller's buffer, UTF-8, as sent: '\'
		       separators, relative to the share root
		       (MS-SMB2 §3.3.5.21.1); not NUL-terminated */
	size_t name_len;
};

/*
 * fscc_dec_FILE_RENAME_INFORMATION_TYPE_2() - MS-FSCC 2.4.42.2
 * (FileRenameInformation for SMB2): 20 fixed bytes (ReplaceIfExists, Reserved,
 * RootDirectory, FileNameLength) and the name, converted into @name (@max
 * bytes) and described in *@out. FSCC_INFO_LENGTH_MISMATCH below 20 bytes (the
 * fixed fields; Samba's minimum too); FSCC_INVALID_PARAMETER for a
 * RootDirectory other than 0 (MS-FSCC: MUST be 0 over a network), a
 * FileNameLength of 0, odd, or past the buffer; FSCC_OBJECT_NAME_INVALID for
 * ill-formed UTF-16 or a NUL; FSCC_NAME_TOO_LONG when the UTF-8 form exceeds
 * @max.
 */
enum fscc_status
fscc_dec_FILE_RENAME_INFORMATION_TYPE_2(struct smb2_buf *in, char *name,
					size_t max, struct fscc_set_link *out);

/* fscc_dec_FILE_LINK_INFORMATION_TYPE_2() - MS-FSCC FileLinkInformation for
 * SMB2: the same layout and checks as the rename form. */
enum fscc_status
fscc_dec_FILE_LINK_INFORMATION_TYPE_2(struct smb2_buf *in, char *name,
				      size_t max, struct fscc_set_link *out);

/* fscc_dec_FILE_DISPOSITION_INFORMATION() - MS-FSCC FileDispositionInformation:
 * one byte, DeletePending nonzero = true. */
enum fscc_status fscc_dec_FILE_DISPOSITION_INFORMATION(struct smb2_buf *in,
						       bool *delete_pending);

/*
 * fscc_dec_FILE_DISPOSITION_INFORMATION_EX() - MS-FSCC
 * FileDispositionInformationEx: Flags, 4
 * bytes; a bit outside FILE_DISPOSITION_* is FSCC_INVALID_PARAMETER.
 */
enum fscc_status fscc_dec_FILE_DISPOSITION_INFORMATION_EX(struct smb2_buf *in,
							  uint32_t *flags);

/* fscc_dec_FILE_POSITION_INFORMATION() - MS-FSCC FilePositionInformation:
 * CurrentByteOffset; negative (above INT64_MAX) is FSCC_INVALID_PARAMETER. */
enum fscc_status fscc_dec_FILE_POSITION_INFORMATION(struct smb2_buf *in,
						    uint64_t *offset);

/*
 * fscc_dec_FILE_MODE_INFORMATION() - MS-FSCC FileModeInformation: Mode. Only
 * FILE_WRITE_THROUGH, FILE_SEQUENTIAL_ONLY and the two SYNCHRONOUS_IO
 * flags may be set, and not both of those (FSCC_INVALID_PARAMETER); that
 * the SYNCHRONOUS ones must match the open's is the engine's check.
 */
enum fscc_status fscc_dec_FILE_MODE_INFORMATION(struct smb2_buf *in,
						uint32_t *mode);

/* fscc_dec_FILE_ALLOCATION_INFORMATION() - MS-FSCC FileAllocationInformation:
 * AllocationSize; above INT64_MAX is FSCC_INVALID_PARAMETER. */
enum fscc_status fscc_dec_FILE_ALLOCATION_INFORMATION(struct smb2_buf *in,
						      uint64_t *size);

/* fscc_dec_FILE_END_OF_FILE_INFORMATION() - MS-FSCC FileEndOfFileInformation:
 * EndOfFile; above INT64_MAX is FSCC_INVALID_PARAMETER. */
enum fscc_status fscc_dec_FILE_END_OF_FILE_INFORMATION(struct smb2_buf *in,
						       uint64_t *eof);

/* ---- Extended attributes (fscc_set.c) ---- */

#define FILE_NEED_EA 0x80u

/* One FILE_FULL_EA_INFORMATION entry (MS-FSCC 2.4.15). @name and @value
 * borrow the buffer it was decoded from. */
struct fscc_ea {
	uint8_t flags;	    /* 0 or FILE_NEED_EA */
	uint8_t name_len;   /* without the NUL the wire carries */
	uint16_t value_len; /* 0 on SET_INFO: delete this EA */
	const uint8_t *name;
	const uint8_t *value;
};

/* A walk over an EA list; see fscc_ea_next(). */
struct fscc_ea_iter {
	struct smb2_buf b;
	size_t next;	      /* offset of the next entry in b */
	enum fscc_status err; /* the first error, kept */
	bool done;
	bool get; /* FILE_GET_EA_INFORMATION entries */
};

/*
 * fscc_ea_iter_init() - walk the FILE_FULL_EA_INFORMATION list in @in
 * (from in->pos to in->len; borrowed). fscc_ea_iter_init_get() walks a
 * FILE_GET_EA_INFORMATION list (MS-FSCC 2.4.15.1: names only, the
 * QUERY_INFO FileFullEaInformation input) the same way.
 */
void fscc_ea_iter_init(struct fscc_ea_iter *it, const struct smb2_buf *in);
void fscc_ea_iter_init_get(struct fscc_ea_iter *it, const struct smb2_buf *in);

/*
 * fscc_ea_next() - the next entry into *@ea, or *@end at the end of the
 * list. Every entry is checked against the bytes left: its header, name,
 * NUL and value must lie inside, a NextEntryOffset other than 0 must be a
 * multiple of 4, at least the entry's size and inside the buffer (so the
 * walk only moves forward and cannot loop): else
 * FSCC_EA_LIST_INCONSISTENT. Bytes after the last entry (NextEntryOffset
 * 0) are ignored. An empty list (no bytes) is FSCC_INFO_LENGTH_MISMATCH.
 * A name that is empty, 255 bytes long, or holds a character MS-FSCC
 * 2.4.15 forbids (0x00-0x1F and "*+,/:;<=>?[\]|) is
 * FSCC_INVALID_EA_NAME; flags other than FILE_NEED_EA are
 * FSCC_INVALID_PARAMETER. After an error the walk stays failed. A GET
 * entry has no flags or value (both 0 in *@ea).
 */
enum fscc_status fscc_ea_next(struct fscc_ea_iter *it, struct fscc_ea *ea,
			      bool *end);

/*
 * fscc_dec_FILE_FULL_EA_INFORMATION() - check a whole list (SET_INFO
 * FileFullEaInformation, the ExtA create context) before anything is
 * applied: FSCC_OK and the number of entries in *@count, or the first
 * entry's error as fscc_ea_next() gives it.
 */
enum fscc_status fscc_dec_FILE_FULL_EA_INFORMATION(const struct smb2_buf *in,
						   size_t *count);

/*
 * fscc_ea_append() - append @ea as a FILE_FULL_EA_INFORMATION entry to @l
 * (fscc_list_init(l, b, 4)): a QUERY_INFO FileFullEaInformation answer.
 * FSCC_NO_SPACE when it does not fit (nothing written).
 */
enum fscc_status fscc_ea_append(struct fscc_list *l, const struct fscc_ea *ea);

#endif
