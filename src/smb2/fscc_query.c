// SPDX-License-Identifier: MIT
/*
 * QUERY_INFO answers (fscc.h): the file classes of MS-FSCC 2.4 and the
 * volume classes of 2.5, one encoder each, found through a table indexed
 * by class. The dispatcher checks the fixed part (MS-SMB2 §3.3.5.20.1:
 * below it, STATUS_INFO_LENGTH_MISMATCH and no data); an encoder with a
 * variable part truncates that part as MS-FSA 2.1.5.12 / 2.1.5.13 say and
 * answers FSCC_BUFFER_OVERFLOW.
 */
#include "smb2/fscc.h"

#include "smb2/fscc_int.h"
#include "smb2/utf16.h"


static void put_basic(struct smb2_buf *b, const struct fscc_file_info *fi)
{
	sb_put_u64(b, fi->creation_time);
	sb_put_u64(b, fi->last_access_time);
	sb_put_u64(b, fi->last_write_time);
	sb_put_u64(b, fi->change_time);
	sb_put_u32(b, fi->attributes);
	sb_put_u32(b, 0); /* Reserved */
}

static void put_standard(struct smb2_buf *b, const struct fscc_file_info *fi)
{
	sb_put_u64(b, fi->allocation_size);
	sb_put_u64(b, fi->end_of_file);
	sb_put_u32(b, fi->nlink);
	sb_put_u8(b, fi->delete_pending);
	sb_put_u8(b, fi->directory);
	sb_put_u16(b, 0); /* Reserved */
}

/* MS-FSCC 2.4.7, 40 bytes. */
static enum fscc_status enc_FILE_BASIC_INFORMATION(struct smb2_buf *b,
						   const struct fscc_query *q)
{
	put_basic(b, q->fi);
	return FSCC_OK;
}

/* MS-FSCC FileStandardInformation, 24 bytes. */
static enum fscc_status
enc_FILE_STANDARD_INFORMATION(struct smb2_buf *b, const struct fscc_query *q)
{
	put_standard(b, q->fi);
	return FSCC_OK;
}

static enum fscc_status
enc_FILE_INTERNAL_INFORMATION(struct smb2_buf *b, const struct fscc_query *q)
{
	sb_put_u64(b, q->fi->file_id); /* IndexNumber */
	return FSCC_OK;
}

static enum fscc_status enc_FILE_EA_INFORMATION(struct smb2_buf *b,
						const struct fscc_query *q)
{
	sb_put_u32(b, q->fi->ea_size);
	return FSCC_OK;
}

static enum fscc_status enc_FILE_ACCESS_INFORMATION(struct smb2_buf *b,
						    const struct fscc_query *q)
{
	sb_put_u32(b, q->access); /* AccessFlags */
	return FSCC_OK;
}

static enum fscc_status
enc_FILE_POSITION_INFORMATION(struct smb2_buf *b, const struct fscc_query *q)
{
	sb_put_u64(b, q->position);
	return FSCC_OK;
}

static enum fscc_status enc_FILE_MODE_INFORMATION(struct smb2_buf *b,
						  const struct fscc_query *q)
{
	sb_put_u32(b, q->mode);
	return FSCC_OK;
}

static enum fscc_status
enc_FILE_ALIGNMENT_INFORMATION(struct smb2_buf *b, const struct fscc_query *q)
{
	(void)q;
	sb_put_u32(b, 0); /* FILE_BYTE_ALIGNMENT: any buffer will do */
	return FSCC_OK;
}

/*
 * The path's name field as MS-FSA's FileNameInformation algorithm writes
 * it: FileNameLength the whole length, then as many bytes of the name as
 * fit in whole UTF-16 units (BlockAlignTruncate(room, 2)). @lead: a '\'
 * before the path ("\" alone for the root).
 */
static enum fscc_status put_path_name(struct smb2_buf *b,
				      const struct fscc_query *q, bool lead)
{
	long n16 = fscc_utf16_len(q->path, q->path_len);
	size_t full, room, w = 0;

	if (n16 < 0)
		return FSCC_OBJECT_NAME_INVALID;
	full = (size_t)n16 + (lead ? 2 : 0);
	if (full > UINT32_MAX)
		return FSCC_NAME_TOO_LONG;
	sb_put_u32(b, (uint32_t)full);
	room = sb_remaining(b) & ~(size_t)1;
	if (room > full)
		room = full;
	if (lead && room >= 2) {
		sb_put_u16(b, '\\');
		w = 2;
	}
	w += fscc_put_utf16_trunc(b, q->path, q->path_len, room - w, true);
	return w < full ? FSCC_BUFFER_OVERFLOW : FSCC_OK;
}

/*
 * MS-FSCC 2.4.2: Basic, Standard, Internal, Ea, Access, Position, Mode,
 * Alignment (100 bytes), then FILE_NAME_INFORMATION. The fixed part is
 * 104 (MS-FSA: BlockAlign of the name's offset, 8), as Samba counts it.
 */
static enum fscc_status enc_FILE_ALL_INFORMATION(struct smb2_buf *b,
						 const struct fscc_query *q)
{
	const struct fscc_file_info *fi = q->fi;

	if (fscc_utf16_len(q->path, q->path_len) < 0)
		return FSCC_OBJECT_NAME_INVALID; /* before writing anything */
	put_basic(b, fi);
	put_standard(b, fi);
	sb_put_u64(b, fi->file_id);
	sb_put_u32(b, fi->ea_size);
	sb_put_u32(b, q->access);
	sb_put_u64(b, q->position);
	sb_put_u32(b, q->mode);
	sb_put_u32(b, 0); /* AlignmentRequirement */
	return put_path_name(b, q, true);
}

/* MS-FSCC FileNormalizedNameInformation: a FILE_NAME_INFORMATION, the path
 * from the share root without a leading '\'; fixed part 8 (MS-FSA:
 * BlockAlign(FieldOffset(FileName) + 2, 4)). */
static enum fscc_status
enc_FILE_NORMALIZED_NAME_INFORMATION(struct smb2_buf *b,
				     const struct fscc_query *q)
{
	return put_path_name(b, q, false);
}

/*
 * MS-FSCC FileStreamInformation: a list of FILE_STREAM_INFORMATION, one
 * per stream the engine found. The fixed part is
 * sizeof(FILE_STREAM_INFORMATION), 32, as MS-FSA 2.1.5.12.29 and Samba
 * use; an entry that does not fit is STATUS_BUFFER_OVERFLOW with the
 * entries before it.
 */
static enum fscc_status enc_FILE_STREAM_INFORMATION(struct smb2_buf *b,
						    const struct fscc_query *q)
{
	struct fscc_list l;
	size_t i, at;
	long n16;

	fscc_list_init(&l, b, 8);
	for (i = 0; i < q->nstreams; i++) {
		const struct fscc_stream *e = &q->streams[i];

		n16 = utf16le_len_of_utf8(e->name, e->name_len);
		if (n16 < 0)
			return FSCC_OBJECT_NAME_INVALID;
		if (fscc_list_reserve(&l, 24 + (size_t)n16, &at))
			return FSCC_BUFFER_OVERFLOW;
		sb_put_u32(b, 0); /* NextEntryOffset */
		sb_put_u32(b, (uint32_t)n16);
		sb_put_u64(b, e->size);
		sb_put_u64(b, e->allocation_size);
		fscc_put_utf16(b, e->name, e->name_len, (size_t)n16, false);
		fscc_list_commit(&l, at);
	}
	return FSCC_OK;
}

/* MS-FSCC FileCompressionInformation, 16 bytes: not compressed, so the
 * compressed size is the size (Samba) and the format NONE. */
static enum fscc_status
enc_FILE_COMPRESSION_INFORMATION(struct smb2_buf *b, const struct fscc_query *q)
{
	sb_put_u64(b, q->fi->end_of_file); /* CompressedFileSize */
	sb_put_u16(b, 0);		   /* COMPRESSION_FORMAT_NONE */
	sb_put_u8(b, 0);		   /* CompressionUnitShift */
	sb_put_u8(b, 0);		   /* ChunkShift */
	sb_put_u8(b, 0);		   /* ClusterShift */
	sb_put_zero(b, 3);		   /* Reserved */
	return FSCC_OK;
}

/* MS-FSCC FileNetworkOpenInformation, 56 bytes. */
static enum fscc_status
enc_FILE_NETWORK_OPEN_INFORMATION(struct smb2_buf *b,
				  const struct fscc_query *q)
{
	const struct fscc_file_info *fi = q->fi;

	sb_put_u64(b, fi->creation_time);
	sb_put_u64(b, fi->last_access_time);
	sb_put_u64(b, fi->last_write_time);
	sb_put_u64(b, fi->change_time);
	sb_put_u64(b, fi->allocation_size);
	sb_put_u64(b, fi->end_of_file);
	sb_put_u32(b, fi->attributes);
	sb_put_u32(b, 0); /* Reserved */
	return FSCC_OK;
}

/* MS-FSCC 2.4.6, 8 bytes: the tag only with FILE_ATTRIBUTE_REPARSE_POINT. */
static enum fscc_status
enc_FILE_ATTRIBUTE_TAG_INFORMATION(struct smb2_buf *b,
				   const struct fscc_query *q)
{
	const struct fscc_file_info *fi = q->fi;

	sb_put_u32(b, fi->attributes);
	sb_put_u32(b, fi->attributes & FILE_ATTRIBUTE_REPARSE_POINT
			      ? fi->reparse_tag
			      : 0);
	return FSCC_OK;
}

/* MS-FSCC FileIdInformation, 24 bytes: the 64-bit serial and a 128-bit
 * FileId whose low half is the inode number. */
static enum fscc_status enc_FILE_ID_INFORMATION(struct smb2_buf *b,
						const struct fscc_query *q)
{
	sb_put_u64(b, q->volume_serial);
	sb_put_u64(b, q->fi->file_id);
	sb_put_u64(b, 0);
	return FSCC_OK;
}

struct query_class {
	size_t min; /* the fixed part */
	enum fscc_status (*enc)(struct smb2_buf *b, const struct fscc_query *q);
};

static const struct query_class file_classes[] = {
	[FileBasicInformation] =
		{
			.min = 40,
			.enc = enc_FILE_BASIC_INFORMATION,
		},
	[FileStandardInformation] =
		{
			.min = 24,
			.enc = enc_FILE_STANDARD_INFORMATION,
		},
	[FileInternalInformation] =
		{
			.min = 8,
			.enc = enc_FILE_INTERNAL_INFORMATION,
		},
	[FileEaInformation] =
		{
			.min = 4,
			.enc = enc_FILE_EA_INFORMATION,
		},
	[FileAccessInformation] =
		{
			.min = 4,
			.enc = enc_FILE_ACCESS_INFORMATION,
		},
	[FilePositionInformation] =
		{
			.min = 8,
			.enc = enc_FILE_POSITION_INFORMATION,
		},
	[FileModeInformation] =
		{
			.min = 4,
			.enc = enc_FILE_MODE_INFORMATION,
		},
	[FileAlignmentInformation] =
		{
			.min = 4,
			.enc = enc_FILE_ALIGNMENT_INFORMATION,
		},
	[FileAllInformation] =
		{
			.min = 104,
			.enc = enc_FILE_ALL_INFORMATION,
		},
	[FileStreamInformation] =
		{
			.min = 32,
			.enc = enc_FILE_STREAM_INFORMATION,
		},
	[FileCompressionInformation] =
		{
			.min = 16,
			.enc = enc_FILE_COMPRESSION_INFORMATION,
		},
	[FileNetworkOpenInformation] =
		{
			.min = 56,
			.enc = enc_FILE_NETWORK_OPEN_INFORMATION,
		},
	[FileAttributeTagInformation] =
		{
			.min = 8,
			.enc = enc_FILE_ATTRIBUTE_TAG_INFORMATION,
		},
	[FileNormalizedNameInformation] =
		{
			.min = 8,
			.enc = enc_FILE_NORMALIZED_NAME_INFORMATION,
		},
	[FileIdInformation] =
		{
			.min = 24,
			.enc = enc_FILE_ID_INFORMATION,
		},
};

#define NCLASSES(t) (sizeof(t) / sizeof((t)[0]))

/*
 * What a class encoder left in @out (from @start) becomes the answer. The
 * fixed part fitted, so only a variable part can run out of room, and its
 * encoder stops short instead: a poisoned cursor is a bug, answered as if
 * nothing fitted; an error keeps nothing.
 */
static enum fscc_status enc_finish(struct smb2_buf *out, size_t start,
				   enum fscc_status st)
{
	if (!sb_ok(out)) {
		out->pos = start;
		return FSCC_INFO_LENGTH_MISMATCH;
	}
	if (st != FSCC_OK && st != FSCC_BUFFER_OVERFLOW)
		out->pos = start;
	return st;
}

size_t fscc_query_file_min(uint8_t cls)
{
	return cls < NCLASSES(file_classes) ? file_classes[cls].min : 0;
}

enum fscc_status fscc_query_file(uint8_t cls, struct smb2_buf *out,
				 const struct fscc_query *q)
{
	const struct query_class *c;
	size_t start = out->pos;

	if (cls >= NCLASSES(file_classes) || !file_classes[cls].enc)
		return FSCC_INVALID_INFO_CLASS;
	c = &file_classes[cls];
	if (!sb_ok(out) || sb_remaining(out) < c->min)
		return FSCC_INFO_LENGTH_MISMATCH;
	return enc_finish(out, start, c->enc(out, q));
}

/* ---- Volumes ---- */

uint32_t fscc_fs_attributes(const struct fscc_fs_caps *c)
{
	uint32_t a = FILE_CASE_PRESERVED_NAMES | FILE_UNICODE_ON_DISK |
		     FILE_PERSISTENT_ACLS | FILE_SUPPORTS_SPARSE_FILES |
		     FILE_SUPPORTS_HARD_LINKS;

	if (!c->case_insensitive)
		a |= FILE_CASE_SENSITIVE_SEARCH;
	if (c->eas)
		a |= FILE_SUPPORTS_EXTENDED_ATTRIBUTES;
	if (c->streams)
		a |= FILE_NAMED_STREAMS;
	if (c->reparse)
		a |= FILE_SUPPORTS_REPARSE_POINTS;
	if (c->posix_unlink)
		a |= FILE_SUPPORTS_POSIX_UNLINK_RENAME;
	if (c->clone)
		a |= FILE_SUPPORTS_BLOCK_REFCOUNTING;
	if (c->read_only)
		a |= FILE_READ_ONLY_VOLUME;
	return a;
}

#define SECTOR 512u

/* The allocation unit: the filesystem block, if it is whole sectors. */
static uint32_t fs_unit(const struct vfs_statfs *st)
{
	if (st->bsize >= SECTOR && st->bsize % SECTOR == 0)
		return st->bsize;
	return 4096;
}

/*
 * A name field of a volume class: @len bytes of the UTF-8 @s as UTF-16,
 * its full length in the u32 already written at @lenpos, and as many raw
 * bytes as fit after it (MS-FSA 2.1.5.13.1 and .5 copy bytes, not units).
 */
static enum fscc_status put_fs_name(struct smb2_buf *b, size_t lenpos,
				    const char *s, size_t len)
{
	long n16 = fscc_utf16_len(s, len);
	size_t room, w;

	if (n16 < 0)
		return FSCC_OBJECT_NAME_INVALID;
	if ((unsigned long)n16 > UINT32_MAX)
		return FSCC_NAME_TOO_LONG;
	put_le32(b->base + lenpos, (uint32_t)n16);
	room = sb_remaining(b);
	w = fscc_put_utf16_trunc(b, s, len, room, false);
	return w < (size_t)n16 ? FSCC_BUFFER_OVERFLOW : FSCC_OK;
}

/* MS-FSCC 2.5.9: 18 fixed bytes then the label; the fixed part is 24
 * (MS-FSA 2.1.5.13.1: BlockAlign(FieldOffset(VolumeLabel), 8)). */
static enum fscc_status
enc_FILE_FS_VOLUME_INFORMATION(struct smb2_buf *b,
			       const struct fscc_fs_query *q)
{
	size_t lenpos;

	if (fscc_utf16_len(q->label, q->label_len) < 0)
		return FSCC_OBJECT_NAME_INVALID;
	sb_put_u64(b, q->volume_creation_time);
	sb_put_u32(b, q->volume_serial);
	lenpos = b->pos;
	sb_put_u32(b, 0); /* VolumeLabelLength, below */
	sb_put_u8(b, 0);  /* SupportsObjects: no object ids */
	sb_put_u8(b, 0);  /* Reserved */
	return put_fs_name(b, lenpos, q->label, q->label_len);
}

/* MS-FSCC FileFsSizeInformation, 24 bytes. */
static enum fscc_status
enc_FILE_FS_SIZE_INFORMATION(struct smb2_buf *b, const struct fscc_fs_query *q)
{
	uint32_t unit = fs_unit(q->st);

	sb_put_u64(b, q->st->tbytes / unit);
	sb_put_u64(b, q->st->abytes / unit);
	sb_put_u32(b, unit / SECTOR);
	sb_put_u32(b, SECTOR);
	return FSCC_OK;
}

/* MS-FSCC FileFsDeviceInformation, 8 bytes: a mounted disk. */
static enum fscc_status
enc_FILE_FS_DEVICE_INFORMATION(struct smb2_buf *b,
			       const struct fscc_fs_query *q)
{
	sb_put_u32(b, 0x00000007); /* FILE_DEVICE_DISK */
	/* FILE_DEVICE_IS_MOUNTED, and FILE_READ_ONLY_DEVICE for ro */
	sb_put_u32(b, 0x00000020 | (q->read_only ? 0x00000002 : 0));
	return FSCC_OK;
}

/* MS-FSCC 2.5.1: 12 fixed bytes then FileSystemName. */
static enum fscc_status
enc_FILE_FS_ATTRIBUTE_INFORMATION(struct smb2_buf *b,
				  const struct fscc_fs_query *q)
{
	const char *name = q->fs_name ? q->fs_name : "NTFS";
	size_t len = q->fs_name ? q->fs_name_len : 4, lenpos;

	if (fscc_utf16_len(name, len) < 0)
		return FSCC_OBJECT_NAME_INVALID;
	sb_put_u32(b, q->fs_attributes);
	/* MaximumComponentNameLength: NAME_MAX, in bytes of UTF-8 on disk
	 * (Samba reports it the same way). */
	sb_put_u32(b, q->st->namemax ? q->st->namemax : 255);
	lenpos = b->pos;
	sb_put_u32(b, 0); /* FileSystemNameLength, below */
	return put_fs_name(b, lenpos, name, len);
}

/* MS-FSCC FileFsFullSizeInformation, 32 bytes. */
static enum fscc_status
enc_FILE_FS_FULL_SIZE_INFORMATION(struct smb2_buf *b,
				  const struct fscc_fs_query *q)
{
	uint32_t unit = fs_unit(q->st);

	sb_put_u64(b, q->st->tbytes / unit);
	sb_put_u64(b,
		   q->st->abytes / unit); /* CallerAvailableAllocationUnits */
	sb_put_u64(b,
		   q->st->fbytes / unit); /* ActualAvailableAllocationUnits */
	sb_put_u32(b, unit / SECTOR);
	sb_put_u32(b, SECTOR);
	return FSCC_OK;
}

/* MS-FSCC FileFsObjectIdInformation, 64 bytes: the id, no extended info. */
static enum fscc_status
enc_FILE_FS_OBJECTID_INFORMATION(struct smb2_buf *b,
				 const struct fscc_fs_query *q)
{
	sb_put_bytes(b, q->object_id, sizeof(q->object_id));
	sb_put_zero(b, 48); /* ExtendedInfo */
	return FSCC_OK;
}

/*
 * MS-FSCC FileFsSectorSizeInformation, 28 bytes. 512-byte sectors for
 * every atomicity figure (what a Linux block device guarantees, and what
 * Samba reports), the filesystem block as the size for performance;
 * aligned, offsets 0.
 */
static enum fscc_status
enc_FILE_FS_SECTOR_SIZE_INFORMATION(struct smb2_buf *b,
				    const struct fscc_fs_query *q)
{
	sb_put_u32(b, SECTOR);	       /* LogicalBytesPerSector */
	sb_put_u32(b, SECTOR);	       /* PhysicalBytesPerSectorForAtomicity */
	sb_put_u32(b, fs_unit(q->st)); /* ...ForPerformance */
	sb_put_u32(b, SECTOR);	       /* FileSystemEffective...Atomicity */
	/* SSINFO_FLAGS_ALIGNED_DEVICE |
	 * SSINFO_FLAGS_PARTITION_ALIGNED_ON_DEVICE */
	sb_put_u32(b, 0x00000003);
	sb_put_u32(b, 0); /* ByteOffsetForSectorAlignment */
	sb_put_u32(b, 0); /* ByteOffsetForPartitionAlignment */
	return FSCC_OK;
}

struct fs_class {
	size_t min;
	enum fscc_status (*enc)(struct smb2_buf *b,
				const struct fscc_fs_query *q);
};

static const struct fs_class fs_classes[] = {
	[FileFsVolumeInformation] =
		{
			.min = 24,
			.enc = enc_FILE_FS_VOLUME_INFORMATION,
		},
	[FileFsSizeInformation] =
		{
			.min = 24,
			.enc = enc_FILE_FS_SIZE_INFORMATION,
		},
	[FileFsDeviceInformation] =
		{
			.min = 8,
			.enc = enc_FILE_FS_DEVICE_INFORMATION,
		},
	[FileFsAttributeInformation] =
		{
			.min = 12,
			.enc = enc_FILE_FS_ATTRIBUTE_INFORMATION,
		},
	[FileFsFullSizeInformation] =
		{
			.min = 32,
			.enc = enc_FILE_FS_FULL_SIZE_INFORMATION,
		},
	[FileFsObjectIdInformation] =
		{
			.min = 64,
			.enc = enc_FILE_FS_OBJECTID_INFORMATION,
		},
	[FileFsSectorSizeInformation] =
		{
			.min = 28,
			.enc = enc_FILE_FS_SECTOR_SIZE_INFORMATION,
		},
};

size_t fscc_query_fs_min(uint8_t cls)
{
	return cls < NCLASSES(fs_classes) ? fs_classes[cls].min : 0;
}

enum fscc_status fscc_query_fs(uint8_t cls, struct smb2_buf *out,
			       const struct fscc_fs_query *q)
{
	const struct fs_class *c;
	size_t start = out->pos;

	if (cls >= NCLASSES(fs_classes) || !fs_classes[cls].enc)
		return FSCC_INVALID_INFO_CLASS;
	c = &fs_classes[cls];
	if (!sb_ok(out) || sb_remaining(out) < c->min)
		return FSCC_INFO_LENGTH_MISMATCH;
	return enc_finish(out, start, c->enc(out, q));
}
