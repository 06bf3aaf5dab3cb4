// SPDX-License-Identifier: MIT
/*
 * QUERY_DIRECTORY entries (fscc.h): the seven directory classes of MS-FSCC
 * 2.4, one writer each for the fixed part, found through a table indexed
 * by class; the entry is only written once it is known to fit whole
 * (fscc_list_reserve()).
 */
#include "smb2/fscc.h"

#include "smb2/fscc_int.h"

/* What the EaSize field carries: the reparse tag of a reparse point
 * (MS-FSCC FileFullDirectoryInformation and the classes built on it; the
 * Linux client reads the tag there), else the EA size. */
static uint32_t ea_field(const struct fscc_file_info *fi)
{
	if (fi->attributes & FILE_ATTRIBUTE_REPARSE_POINT)
		return fi->reparse_tag;
	return fi->ea_size;
}

/*
 * The head shared by every class but FileNames: NextEntryOffset (0: the
 * next append patches it), FileIndex, the times, EndOfFile,
 * AllocationSize, FileAttributes, FileNameLength; 64 bytes.
 */
static void put_head(struct smb2_buf *b, const struct fscc_file_info *fi,
		     uint32_t n16)
{
	sb_put_u32(b, 0); /* NextEntryOffset */
	sb_put_u32(b, 0); /* FileIndex: undefined where order is not fixed */
	sb_put_u64(b, fi->creation_time);
	sb_put_u64(b, fi->last_access_time);
	sb_put_u64(b, fi->last_write_time);
	sb_put_u64(b, fi->change_time);
	sb_put_u64(b, fi->end_of_file);
	sb_put_u64(b, fi->allocation_size);
	sb_put_u32(b, fi->attributes);
	sb_put_u32(b, n16); /* FileNameLength */
}

/* FILE_DIRECTORY_INFORMATION: the head, then FileName at 64. */
static void put_FILE_DIRECTORY_INFORMATION(struct smb2_buf *b,
					   const struct fscc_file_info *fi,
					   uint32_t n16)
{
	put_head(b, fi, n16);
}

/* FILE_FULL_DIR_INFORMATION: EaSize at 64, FileName at 68. */
static void put_FILE_FULL_DIR_INFORMATION(struct smb2_buf *b,
					  const struct fscc_file_info *fi,
					  uint32_t n16)
{
	put_head(b, fi, n16);
	sb_put_u32(b, ea_field(fi));
}

/* FILE_ID_FULL_DIR_INFORMATION: EaSize 64, Reserved 68, FileId 72,
 * FileName at 80. */
static void put_FILE_ID_FULL_DIR_INFORMATION(struct smb2_buf *b,
					     const struct fscc_file_info *fi,
					     uint32_t n16)
{
	put_head(b, fi, n16);
	sb_put_u32(b, ea_field(fi));
	sb_put_u32(b, 0); /* Reserved */
	sb_put_u64(b, fi->file_id);
}

/* FILE_BOTH_DIR_INFORMATION: EaSize 64, ShortNameLength 68 (0: nasd makes
 * no 8.3 names), Reserved 69, ShortName[24] 70, FileName at 94. */
static void put_FILE_BOTH_DIR_INFORMATION(struct smb2_buf *b,
					  const struct fscc_file_info *fi,
					  uint32_t n16)
{
	put_head(b, fi, n16);
	sb_put_u32(b, ea_field(fi));
	sb_put_u8(b, 0);    /* ShortNameLength */
	sb_put_u8(b, 0);    /* Reserved */
	sb_put_zero(b, 24); /* ShortName */
}

/* FILE_ID_BOTH_DIR_INFORMATION: as FILE_BOTH_DIR_INFORMATION, then
 * Reserved2 94, FileId 96, FileName at 104. */
static void put_FILE_ID_BOTH_DIR_INFORMATION(struct smb2_buf *b,
					     const struct fscc_file_info *fi,
					     uint32_t n16)
{
	put_FILE_BOTH_DIR_INFORMATION(b, fi, n16);
	sb_put_u16(b, 0); /* Reserved2 */
	sb_put_u64(b, fi->file_id);
}

/* FILE_ID_EXTD_DIR_INFORMATION: EaSize 64, ReparsePointTag 68, FileId
 * (128 bits, the inode in the low half) 72, FileName at 88. */
static void put_FILE_ID_EXTD_DIR_INFORMATION(struct smb2_buf *b,
					     const struct fscc_file_info *fi,
					     uint32_t n16)
{
	put_head(b, fi, n16);
	sb_put_u32(b, fi->ea_size);
	sb_put_u32(b, fi->attributes & FILE_ATTRIBUTE_REPARSE_POINT
			      ? fi->reparse_tag
			      : 0);
	sb_put_u64(b, fi->file_id);
	sb_put_u64(b, 0);
}

/* FILE_NAMES_INFORMATION: NextEntryOffset, FileIndex, FileNameLength,
 * FileName at 12. */
static void put_FILE_NAMES_INFORMATION(struct smb2_buf *b,
				       const struct fscc_file_info *fi,
				       uint32_t n16)
{
	(void)fi;
	sb_put_u32(b, 0);
	sb_put_u32(b, 0);
	sb_put_u32(b, n16);
}

struct dir_class {
	size_t fixed; /* bytes before FileName */
	void (*put)(struct smb2_buf *b, const struct fscc_file_info *fi,
		    uint32_t n16);
};

static const struct dir_class dir_classes[] = {
	[FileDirectoryInformation] =
		{
			.fixed = 64,
			.put = put_FILE_DIRECTORY_INFORMATION,
		},
	[FileFullDirectoryInformation] =
		{
			.fixed = 68,
			.put = put_FILE_FULL_DIR_INFORMATION,
		},
	[FileBothDirectoryInformation] =
		{
			.fixed = 94,
			.put = put_FILE_BOTH_DIR_INFORMATION,
		},
	[FileNamesInformation] =
		{
			.fixed = 12,
			.put = put_FILE_NAMES_INFORMATION,
		},
	[FileIdBothDirectoryInformation] =
		{
			.fixed = 104,
			.put = put_FILE_ID_BOTH_DIR_INFORMATION,
		},
	[FileIdFullDirectoryInformation] =
		{
			.fixed = 80,
			.put = put_FILE_ID_FULL_DIR_INFORMATION,
		},
	[FileIdExtdDirectoryInformation] =
		{
			.fixed = 88,
			.put = put_FILE_ID_EXTD_DIR_INFORMATION,
		},
};

#define NDIR (sizeof(dir_classes) / sizeof(dir_classes[0]))

size_t fscc_dir_entry_min(uint8_t cls)
{
	return cls < NDIR ? dir_classes[cls].fixed : 0;
}

enum fscc_status fscc_dir_append(struct fscc_list *l, uint8_t cls,
				 const char *name, size_t len,
				 const struct fscc_file_info *fi)
{
	const struct dir_class *c;
	enum fscc_status st;
	size_t at;
	long n16;

	if (cls >= NDIR || !dir_classes[cls].put)
		return FSCC_INVALID_INFO_CLASS;
	c = &dir_classes[cls];
	/* Converted length first: once reserved, the entry is written
	 * whole, so nothing after this point may fail. */
	n16 = fscc_utf16_len(name, len);
	if (n16 <= 0)
		return FSCC_OBJECT_NAME_INVALID;
	if ((unsigned long)n16 > UINT32_MAX - c->fixed)
		return FSCC_NAME_TOO_LONG;
	st = fscc_list_reserve(l, c->fixed + (size_t)n16, &at);
	if (st)
		return st;
	c->put(l->b, fi, (uint32_t)n16);
	fscc_put_utf16(l->b, name, len, (size_t)n16, false);
	fscc_list_commit(l, at);
	return FSCC_OK;
}
