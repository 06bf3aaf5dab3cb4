/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the MOUNT argument decoders (RFC 1813 Appendix I,
 * versions 1-3), through mount3_program's table as the dispatcher calls
 * them. Input: one byte selecting version and procedure, then the
 * arguments, copied into a buffer of exactly their size (ASan reports any
 * read past it); the decoded struct is a heap block of exactly the
 * table's args_size.
 *
 * The only MOUNT argument is dirpath (MNT, UMNT): a string<MNTPATHLEN>,
 * decoded into a private struct of mount3.c whose one member is the
 * borrowed string (struct mnt_dirpath { struct nfs3_str path; }). That is
 * checked here: the string lies inside the input, is at most MNTPATHLEN
 * bytes, and decode -> encode -> decode gives the same string from
 * exactly the bytes that were consumed.
 */
#include <string.h>

#include "fuzz.h"
#include "nfs3/nfs3.h"
#include "nfs3/nfs3_xdr.h"

#define MNTPATHLEN 1024 /* RFC 1813 Appendix I */

static uint8_t enc_b[4 + MNTPATHLEN + 4];

/* The dirpath decoder's output, as mount3.c lays it out. */
static void check_dirpath(const void *args, size_t args_size, const uint8_t *lo,
			  const uint8_t *hi)
{
	const struct nfs3_str *s = args;

	FUZZ_CHECK(args_size == sizeof(struct nfs3_str));
	FUZZ_CHECK(s->len <= MNTPATHLEN);
	if (s->len) {
		FUZZ_CHECK((const uint8_t *)s->s >= lo);
		FUZZ_CHECK((const uint8_t *)s->s + s->len <= hi);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct rpc_version *v;
	const struct rpc_proc *p;
	const struct nfs3_str *s1, *s2;
	struct xdr_buf x, eb;
	void *a1, *a2;
	uint8_t *buf;
	size_t len, used;
	unsigned int vi;

	if (size < 1)
		return 0;
	vi = (data[0] >> 4) % mount3_program.nversions;
	v = &mount3_program.versions[vi];
	p = &v->procs[(data[0] & 0x0f) % v->nprocs];
	if (!p->decode)
		return 0; /* void arguments, or a hole (PROC_UNAVAIL) */
	len = size - 1;
	buf = malloc(len ? len : 1);
	a1 = calloc(1, p->args_size);
	a2 = calloc(1, p->args_size);
	FUZZ_CHECK(buf && a1 && a2);
	memcpy(buf, data + 1, len);

	xdr_init(&x, buf, len);
	if (!p->decode(&x, a1))
		goto out;
	FUZZ_CHECK(xdr_ok(&x));
	used = x.pos;
	check_dirpath(a1, p->args_size, buf, buf + len);

	s1 = a1;
	xdr_init(&eb, enc_b, sizeof(enc_b));
	FUZZ_CHECK(xdr_enc_opaque(&eb, s1->s, s1->len));
	FUZZ_CHECK(eb.pos == used);
	xdr_init(&x, enc_b, eb.pos);
	FUZZ_CHECK(p->decode(&x, a2));
	FUZZ_CHECK(xdr_remaining(&x) == 0);
	check_dirpath(a2, p->args_size, enc_b, enc_b + eb.pos);
	s2 = a2;
	FUZZ_CHECK(s2->len == s1->len);
	FUZZ_CHECK(!s1->len || memcmp(s1->s, s2->s, s1->len) == 0);
out:
	free(a2);
	free(a1);
	free(buf);
	return 0;
}
