/* SPDX-License-Identifier: MIT */
/*
 * What the SMB2 client's own files share: nasd's wire constants and
 * little-endian helpers, and the logon tokens (nb_smb2_auth.c) that
 * nb_smb2.c puts in SESSION_SETUP.
 */
#ifndef NASD_BENCH_NB_SMB2_INT_H
#define NASD_BENCH_NB_SMB2_INT_H

#include <stdlib.h>

#include "core/le.h"
#include "nb_smb2.h"
#include "smb2/auth/ntlmssp.h"

int nb_ntlm_negotiate(uint8_t *out, size_t max, size_t *len);
int nb_ntlm_authenticate(const struct nb_smb2_opts *o, const uint8_t *in,
			 size_t in_len, uint8_t *out, size_t max, size_t *len,
			 uint8_t key[16]);

#endif /* NASD_BENCH_NB_SMB2_INT_H */
