/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the MS-FSCC / MS-DTYP decoders of src/smb2 and the
 * encoders that take sizes from the wire. The first byte picks one:
 *   0  FILE_FULL_EA_INFORMATION list: walked, re-encoded with
 *      fscc_ea_append() and walked again (same entries, same bytes)
 *   1  FILE_GET_EA_INFORMATION list: walked; every entry lies inside
 *   2  self-relative security descriptor: parsed; a parse's mode is
 *      within 0777, and the descriptor synthesized from its owner, group
 *      and mode parses back to the same
 *   3  SET_INFO classes (next byte: which): each decoder; a rename/link
 *      name converts back to exactly the UTF-16 the input carried
 *   4  wildcard: byte 1 flags, byte 2 pattern length, then the UTF-16
 *      pattern and a UTF-8 name; short ones are compared with a reference
 *      matcher written straight from MS-FSA 2.1.4.4's rules (memoized
 *      recursion, independent of the dynamic programme under test)
 *   5  QUERY_DIRECTORY entries: class, room and names from the input; an
 *      entry is written whole or not at all, chained at 8-byte offsets
 *   6  QUERY_INFO file and FS classes with the room and path from the
 *      input; nothing is written past the cursor, and a status never
 *      claims success below the class's fixed part
 *   7  a user.DOSATTRIB value (vfs_dosattr_decode(), which reads what any
 *      local user may have written): what it takes encodes and decodes
 *      back to the same; what it refuses leaves nothing
 * Every output buffer is surrounded by a sentinel that must survive.
 */
#include <string.h>

#include "fuzz.h"
#include "smb2/fscc.h"
#include "smb2/sd.h"
#include "smb2/utf16.h"
#include "smb2/wildcard.h"

#define SENT 0xA5

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void check_sentinel(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(p[i] == SENT);
}

/* A private, exactly-sized copy so that ASan sees every overread. */
static uint8_t *dup_input(const uint8_t *d, size_t n)
{
	uint8_t *p = malloc(n ? n : 1);

	FUZZ_CHECK(p);
	if (n)
		memcpy(p, d, n);
	return p;
}

static void fuzz_ea_full(const uint8_t *d, size_t n)
{
	uint8_t *in = dup_input(d, n), *out;
	struct fscc_ea_iter it, it2;
	struct fscc_ea ea, ea2;
	struct smb2_buf b, ob;
	struct fscc_list l;
	enum fscc_status st;
	size_t count = 0, seen = 0, osize;
	bool end = false, end2 = false;

	sb_init(&b, in, n);
	st = fscc_dec_FILE_FULL_EA_INFORMATION(&b, &count);
	if (st != FSCC_OK) {
		free(in);
		return;
	}
	/* Minimal entries take no more room than the input's, but for the
	 * last one's alignment padding (at most 3 bytes). Half the runs get
	 * less, to exercise FSCC_NO_SPACE. */
	osize = n & 1 ? n / 2 : n + 3;
	out = malloc(osize + 16);
	FUZZ_CHECK(out);
	memset(out, SENT, osize + 16);
	sb_init(&ob, out, osize);
	fscc_list_init(&l, &ob, 4);
	fscc_ea_iter_init(&it, &b);
	for (;;) {
		FUZZ_CHECK(fscc_ea_next(&it, &ea, &end) == FSCC_OK);
		if (end)
			break;
		FUZZ_CHECK(ea.name >= in && ea.value + ea.value_len <= in + n);
		FUZZ_CHECK(ea.name[ea.name_len] == 0);
		if (fscc_ea_append(&l, &ea) != FSCC_OK)
			break; /* the re-encoding ran out of room: fine */
		seen++;
	}
	FUZZ_CHECK(seen <= count);
	FUZZ_CHECK(seen == count || n & 1);
	check_sentinel(out + ob.pos, osize + 16 - ob.pos);
	if (seen == count) {
		/* the re-encoded list walks to the same entries */
		struct smb2_buf rb;

		sb_init(&rb, out, ob.pos);
		fscc_ea_iter_init(&it, &b);
		fscc_ea_iter_init(&it2, &rb);
		for (;;) {
			FUZZ_CHECK(fscc_ea_next(&it, &ea, &end) == FSCC_OK);
			FUZZ_CHECK(fscc_ea_next(&it2, &ea2, &end2) == FSCC_OK);
			FUZZ_CHECK(end == end2);
			if (end)
				break;
			FUZZ_CHECK(ea.flags == ea2.flags &&
				   ea.name_len == ea2.name_len &&
				   ea.value_len == ea2.value_len);
			FUZZ_CHECK(!memcmp(ea.name, ea2.name, ea.name_len));
			FUZZ_CHECK(!memcmp(ea.value, ea2.value, ea.value_len));
		}
	}
	free(out);
	free(in);
}

static void fuzz_ea_get(const uint8_t *d, size_t n)
{
	uint8_t *in = dup_input(d, n);
	struct fscc_ea_iter it;
	struct fscc_ea ea;
	struct smb2_buf b;
	bool end = false;
	size_t steps = 0;

	sb_init(&b, in, n);
	fscc_ea_iter_init_get(&it, &b);
	while (fscc_ea_next(&it, &ea, &end) == FSCC_OK && !end) {
		FUZZ_CHECK(ea.name >= in && ea.name + ea.name_len < in + n);
		FUZZ_CHECK(ea.name[ea.name_len] == 0);
		FUZZ_CHECK(++steps <= n / 8 + 1);
	}
	free(in);
}

static void fuzz_sd(const uint8_t *d, size_t n)
{
	uint8_t *in = dup_input(d, n), out[256 + 16];
	struct sd_parsed p, p2;
	struct smb2_buf b;
	struct sd_unix u;
	size_t need;

	sb_init(&b, in, n);
	if (sd_dec_SECURITY_DESCRIPTOR(&b, 1000, 100, &p) != FSCC_OK)
		goto out;
	FUZZ_CHECK(p.mode <= 0777);
	FUZZ_CHECK(!p.null_dacl || (p.has_dacl && p.mode == 0777));
	FUZZ_CHECK(p.control & SE_SELF_RELATIVE);
	/* what nasd would answer next, read back */
	u.uid = p.owner_unix ? p.uid : 1000;
	u.gid = p.group_unix ? p.gid : 100;
	u.mode = p.mode;
	u.is_dir = n & 1;
	memset(out, SENT, sizeof(out));
	sb_init(&b, out, sizeof(out) - 16);
	FUZZ_CHECK(sd_enc_SECURITY_DESCRIPTOR(&b, &u, 7, &need) == FSCC_OK);
	FUZZ_CHECK(need == b.pos && need == sd_size(&u, 7));
	check_sentinel(out + need, sizeof(out) - need);
	sb_init(&b, out, need);
	FUZZ_CHECK(sd_dec_SECURITY_DESCRIPTOR(&b, 0, 0, &p2) == FSCC_OK);
	FUZZ_CHECK(p2.mode == u.mode && p2.uid == u.uid && p2.gid == u.gid &&
		   p2.owner_unix && p2.group_unix && p2.lossy == 0);
out:
	free(in);
}

static void fuzz_set_info(const uint8_t *d, size_t n)
{
	uint8_t *in, u16[2 * 4096];
	struct fscc_set_basic basic;
	struct fscc_set_link link;
	struct smb2_buf b;
	char name[4096];
	enum fscc_status st;
	uint64_t v64;
	uint32_t v32;
	size_t olen, max;
	uint8_t which;
	bool del;

	if (n < 1)
		return;
	which = d[0];
	in = dup_input(d + 1, n - 1);
	sb_init(&b, in, n - 1);
	max = 1 + (which >> 4) * 256; /* small caller buffers too */
	switch (which & 15) {
	case 0:
		st = fscc_dec_FILE_BASIC_INFORMATION(&b, which & 0x80, &basic);
		FUZZ_CHECK(st != FSCC_OK || n - 1 >= 40);
		if (st == FSCC_OK) {
			FUZZ_CHECK(basic.creation.op <= FSCC_TIME_THAW);
			FUZZ_CHECK(basic.change.op != FSCC_TIME_SET ||
				   basic.change.filetime <= FSCC_FILETIME_MAX);
		}
		break;
	case 1:
	case 2:
		st = (which & 15) == 1
			     ? fscc_dec_FILE_RENAME_INFORMATION_TYPE_2(
				       &b, name, max, &link)
			     : fscc_dec_FILE_LINK_INFORMATION_TYPE_2(
				       &b, name, max, &link);
		if (st != FSCC_OK)
			break;
		FUZZ_CHECK(link.name == name && link.name_len <= max);
		/* back to UTF-16: exactly FileNameLength bytes at 20 */
		FUZZ_CHECK(utf8_to_utf16le(name, link.name_len, u16,
					   sizeof(u16), &olen) == 0);
		FUZZ_CHECK(olen == get_le32(in + 16) &&
			   !memcmp(u16, in + 20, olen));
		break;
	case 3:
		st = fscc_dec_FILE_DISPOSITION_INFORMATION(&b, &del);
		FUZZ_CHECK((st == FSCC_OK) == (n - 1 >= 1));
		break;
	case 4:
		st = fscc_dec_FILE_DISPOSITION_INFORMATION_EX(&b, &v32);
		FUZZ_CHECK(st != FSCC_OK || !(v32 & ~0x1fu));
		break;
	case 5:
		st = fscc_dec_FILE_POSITION_INFORMATION(&b, &v64);
		FUZZ_CHECK(st != FSCC_OK || v64 <= (uint64_t)INT64_MAX);
		break;
	case 6:
		st = fscc_dec_FILE_MODE_INFORMATION(&b, &v32);
		FUZZ_CHECK(st != FSCC_OK || !(v32 & ~0x36u));
		break;
	case 7:
		st = fscc_dec_FILE_ALLOCATION_INFORMATION(&b, &v64);
		FUZZ_CHECK(st != FSCC_OK || v64 <= (uint64_t)INT64_MAX);
		break;
	default:
		st = fscc_dec_FILE_END_OF_FILE_INFORMATION(&b, &v64);
		FUZZ_CHECK(st != FSCC_OK || v64 <= (uint64_t)INT64_MAX);
		break;
	}
	FUZZ_CHECK(b.pos == 0); /* decoders leave the caller's cursor */
	free(in);
}

/* ---- the reference matcher: MS-FSA 2.1.4.4 read literally ---- */

#define REF_P 16
#define REF_N 24

struct ref {
	const uint32_t *p, *s;
	size_t m, n;
	long lastdot;
	int8_t memo[REF_P + 1][REF_N + 1];
};

static bool ref_at(struct ref *r, size_t i, size_t j)
{
	bool v;

	if (r->memo[i][j] >= 0)
		return r->memo[i][j];
	if (i == r->m) {
		v = j == r->n;
	} else {
		uint32_t e = r->p[i];
		bool more = j < r->n;
		uint32_t c = more ? r->s[j] : 0;

		switch (e) {
		case '*': /* zero or more characters */
			v = ref_at(r, i + 1, j) ||
			    (more && ref_at(r, i, j + 1));
			break;
		case '?': /* exactly one */
			v = more && ref_at(r, i + 1, j + 1);
			break;
		case '"': /* a period, or nothing at the end */
			v = more ? c == '.' && ref_at(r, i + 1, j + 1)
				 : ref_at(r, i + 1, j);
			break;
		case '>': { /* one char; at '.' or end, skip the QM run */
			size_t k = i;

			if (more && c != '.') {
				v = ref_at(r, i + 1, j + 1);
				break;
			}
			while (k < r->m && r->p[k] == '>')
				k++;
			v = ref_at(r, k, j);
			break;
		}
		case '<': { /* up to the final '.', possibly including it */
			size_t k;

			v = false;
			for (k = j; k <= r->n && !v; k++) {
				v = ref_at(r, i + 1, k);
				if ((long)k == r->lastdot) {
					v = v || ref_at(r, i + 1, k + 1);
					break;
				}
			}
			break;
		}
		default:
			v = more && c == e && ref_at(r, i + 1, j + 1);
			break;
		}
	}
	r->memo[i][j] = v;
	return v;
}

static bool ref_match(const uint32_t *p, size_t m, const uint32_t *s, size_t n)
{
	struct ref r = {.p = p, .s = s, .m = m, .n = n, .lastdot = -1};
	size_t i;

	if (n == 0)
		return m == 0;
	if (m == 0)
		return false;
	if ((m == 1 && p[0] == '*') ||
	    (m == 3 && p[0] == '*' && p[1] == '.' && p[2] == '*'))
		return true;
	for (i = 0; i < n; i++) {
		if (s[i] == '.')
			r.lastdot = (long)i;
	}
	memset(r.memo, -1, sizeof(r.memo));
	return ref_at(&r, 0, 0);
}

/* ASCII-only decoding for the reference (the case the comparison runs). */
static bool ascii_cps(const uint8_t *b, size_t n, size_t step, uint32_t *out,
		      size_t *cnt, bool fold)
{
	size_t i;

	*cnt = 0;
	for (i = 0; i + step <= n; i += step) {
		uint32_t c = b[i];

		if ((step == 2 && b[i + 1]) || c == 0 || c >= 0x80)
			return false;
		if (fold && c >= 'a' && c <= 'z')
			c -= 'a' - 'A';
		out[(*cnt)++] = c;
	}
	return i == n;
}

static void fuzz_wildcard(const uint8_t *d, size_t n)
{
	struct wildcard *w = malloc(sizeof(*w));
	uint32_t rp[256], rs[4096];
	size_t plen, nlen, rm, rn;
	uint8_t *pat, *name;
	bool icase, got;

	FUZZ_CHECK(w);
	if (n < 2)
		goto out;
	icase = d[0] & 1;
	plen = d[1];
	if (plen > n - 2)
		plen = n - 2;
	pat = dup_input(d + 2, plen);
	nlen = n - 2 - plen;
	name = dup_input(d + 2 + plen, nlen);
	if (wildcard_compile(w, pat, plen, icase) == 0) {
		got = wildcard_match(w, (const char *)name, nlen);
		if (ascii_cps(pat, plen, 2, rp, &rm, icase) &&
		    ascii_cps(name, nlen, 1, rs, &rn, icase) && rm <= REF_P &&
		    rn <= REF_N)
			FUZZ_CHECK(got == ref_match(rp, rm, rs, rn));
		if (wildcard_kind(w) == WILDCARD_ALL && nlen &&
		    utf16le_len_of_utf8((const char *)name, nlen) > 0)
			FUZZ_CHECK(got);
	}
	free(pat);
	free(name);
out:
	free(w);
}

static void fuzz_dir(const uint8_t *d, size_t n)
{
	static const uint8_t classes[] = {1, 2, 3, 12, 37, 38, 60};
	struct fscc_file_info fi;
	uint8_t out[4096 + 16];
	struct fscc_list l;
	struct smb2_buf b;
	size_t room, i, len, before, last = 0;
	enum fscc_status st;
	uint8_t cls;

	if (n < 3)
		return;
	cls = classes[d[0] % sizeof(classes)];
	room = ((size_t)d[1] << 4 | d[2] >> 4) % 4096;
	memset(&fi, 0x3c, sizeof(fi));
	fi.directory = false;
	fi.delete_pending = false;
	fi.attributes = d[2] & 1 ? FILE_ATTRIBUTE_REPARSE_POINT : 0;
	memset(out, SENT, sizeof(out));
	sb_init(&b, out, room);
	fscc_list_init(&l, &b, 8);
	/* names: runs of the rest split at '/' */
	for (i = 3; i <= n;) {
		len = 0;
		while (i + len < n && d[i + len] != '/')
			len++;
		before = b.pos;
		st = fscc_dir_append(&l, cls, (const char *)d + i, len, &fi);
		if (st == FSCC_OK) {
			FUZZ_CHECK(b.pos > before &&
				   (l.count == 1 || (l.last & 7) == 0));
			FUZZ_CHECK(l.count == 1 ||
				   get_le32(out + last) == l.last - last);
			FUZZ_CHECK(get_le32(out + l.last) == 0);
			last = l.last;
		} else {
			FUZZ_CHECK(b.pos == before);
		}
		/* nothing past the cursor: near it after each append (an
		 * entry is at most 104 bytes plus its name), all of it once
		 * the room is gone (the engine stops there too) */
		if (st == FSCC_NO_SPACE)
			break;
		check_sentinel(out + b.pos, sizeof(out) - b.pos < 128 + 2 * len
						    ? sizeof(out) - b.pos
						    : 128 + 2 * len);
		i += len + 1;
	}
	check_sentinel(out + b.pos, sizeof(out) - b.pos);
}

static void fuzz_query(const uint8_t *d, size_t n)
{
	struct fscc_file_info fi;
	struct fscc_query q;
	struct fscc_fs_query fq;
	struct vfs_statfs st;
	uint8_t out[512 + 16];
	struct smb2_buf b;
	enum fscc_status s;
	size_t room, min;
	uint8_t cls;

	if (n < 3)
		return;
	cls = d[1];
	room = d[2] * 2 % 512;
	memset(&fi, 0x5a, sizeof(fi));
	fi.directory = d[0] & 0x10;
	fi.delete_pending = d[0] & 0x20;
	memset(&st, 0x11, sizeof(st));
	memset(&q, 0, sizeof(q));
	q.fi = &fi;
	q.path = (const char *)d + 3;
	q.path_len = n - 3;
	memset(&fq, 0, sizeof(fq));
	fq.st = &st;
	fq.label = q.path;
	fq.label_len = q.path_len;
	memset(out, SENT, sizeof(out));
	sb_init(&b, out, room);
	if (d[0] & 1) {
		s = fscc_query_fs(cls, &b, &fq);
		min = fscc_query_fs_min(cls);
	} else {
		s = fscc_query_file(cls, &b, &q);
		min = fscc_query_file_min(cls);
	}
	check_sentinel(out + b.pos, sizeof(out) - b.pos);
	if (s == FSCC_OK || s == FSCC_BUFFER_OVERFLOW)
		FUZZ_CHECK(room >= min && min > 0);
	else
		FUZZ_CHECK(b.pos == 0);
	if (room < min)
		FUZZ_CHECK(s == FSCC_INFO_LENGTH_MISMATCH);
}

static void fuzz_dosattr(const uint8_t *d, size_t n)
{
	uint8_t *in = dup_input(d, n), enc[VFS_DOSATTR_MAX];
	struct vfs_dosattr a, b;
	size_t len;

	if (vfs_dosattr_decode(in, n, &a)) {
		FUZZ_CHECK(!a.has_attrib && !a.has_create_time);
		free(in);
		return;
	}
	len = vfs_dosattr_encode(&a, enc);
	FUZZ_CHECK(len == VFS_DOSATTR_MAX);
	FUZZ_CHECK(vfs_dosattr_decode(enc, len, &b) == 0);
	FUZZ_CHECK(a.has_attrib == b.has_attrib &&
		   a.has_create_time == b.has_create_time);
	FUZZ_CHECK(!a.has_attrib || a.attrib == b.attrib);
	FUZZ_CHECK(!a.has_create_time || a.create_time == b.create_time);
	free(in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % 8) {
	case 0:
		fuzz_ea_full(data + 1, size - 1);
		break;
	case 1:
		fuzz_ea_get(data + 1, size - 1);
		break;
	case 2:
		fuzz_sd(data + 1, size - 1);
		break;
	case 3:
		fuzz_set_info(data + 1, size - 1);
		break;
	case 4:
		fuzz_wildcard(data + 1, size - 1);
		break;
	case 5:
		fuzz_dir(data + 1, size - 1);
		break;
	case 6:
		fuzz_query(data + 1, size - 1);
		break;
	default:
		fuzz_dosattr(data + 1, size - 1);
		break;
	}
	return 0;
}
