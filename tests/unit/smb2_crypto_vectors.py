#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Write tests/unit/smb2_crypto_vectors.h, the vectors of test_smb2_crypto.

usage: /usr/bin/python3 tests/unit/smb2_crypto_vectors.py |
           clang-format --assume-filename=x.h > tests/unit/smb2_crypto_vectors.h
(Debian's python3-cryptography loads only under /usr/bin/python3; the
checked-in file is this output after clang-format, as `make format` keeps
it.)

Three kinds of vector, each asserted here before it is written:

* Published by Microsoft: the key derivation examples of "SMB 2 and SMB 3
  security in Windows 10: the anatomy of signing and cryptographic keys"
  (Open Specifications blog, 2017-05-26, appendix; learn.microsoft.com/
  en-us/archive/blogs/openspecification/smb-2-and-smb-3-security-in-
  windows-10-the-anatomy-of-signing-and-cryptographic-keys): SMB 3.0 keys of two
  channels, and an SMB 3.1.1 multichannel logon captured from Windows with
  every NEGOTIATE and SESSION_SETUP message, the preauth hash after each,
  the keys, and the signatures Windows put in the signed messages. The
  hash chain and the signatures are recomputed here (hashlib, CMAC from
  python3-cryptography) so that a mistyped byte fails this script.
* Published elsewhere: RFC 4493 section 4 (AES-CMAC) and the IEEE 802.1
  MACsec GCM-AES test vectors (www.ieee802.org/1/files/public/docs2011/
  bn-randall-test-vectors-0511-v1.pdf) 2.1.1 and
  2.5.1 (GCM-AES-128 with no plaintext, i.e. GMAC), checked here with
  python3-cryptography and the GHASH below.
* Computed here where nothing is published: SP800-108 KDF outputs of other
  shapes (python3-cryptography's KBKDFHMAC, whose counter-mode framing is
  its own Python code), the SMB 3.1.1 AES-256 key set, AES-GMAC signatures
  of SMB messages (AESGCM from python3-cryptography, cross-checked with
  the pure-Python GHASH below, SP 800-38D section 6.4), and HMAC-SHA256
  signatures (hmac from the standard library).
"""

import binascii
import hashlib
import hmac
import sys

from cryptography.hazmat.primitives import cmac, hashes
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.kbkdf import (CounterLocation,
                                                      KBKDFHMAC, Mode)


def H(s):
    return binascii.unhexlify("".join(s.split()))


msgs = {
'neg_req': """FE534D4240000100000000000000800000000000000000000100000000000000FFFE000000000000
00000000000000000000000000000000000000000000000024000500000000003F000000ECD86F32
6276024F9F7752B89BB33F3A70000000020000000202100200030203110300000100260000000000
010020000100FA49E6578F1F3A9F4CD3E9CC14A67AA884B3D05844E0E5A118225C15887F32FF0000
0200060000000000020002000100""",
'neg_rsp': """FE534D4240000100000000000000010001000000000000000100000000000000FFFE000000000000
000000000000000000000000000000000000000000000000410001001103020039CBCAF329714942
BDCE5D60F09AB3FB2F000000000080000000800000008000D8DAE5ADCBAED00109094AB095AED001
80004001C00100006082013C06062B0601050502A08201303082012CA01A3018060A2B0601040182
3702021E060A2B06010401823702020AA282010C048201084E45474F455854530100000000000000
60000000700000007C7CC0FD06D6362D02DDE1CF343BFE292900F49750B4AA97934D9C4296B26E51
FD370471B235E15A50DAE15BD5489C87000000000000000060000000010000000000000000000000
5C33530DEAF90D4DB2EC4AE3786EC3084E45474F4558545303000000010000004000000098000000
7C7CC0FD06D6362D02DDE1CF343BFE295C33530DEAF90D4DB2EC4AE3786EC3084000000058000000
3056A05430523027802530233121301F06035504031318546F6B656E205369676E696E6720507562
6C6963204B65793027802530233121301F06035504031318546F6B656E205369676E696E67205075
626C6963204B6579010026000000000001002000010060A3C3B95C3C7CCD51EC536648D9B3AC74C4
83CA5B65385A251117BEB30712E50000020004000000000001000200""",
'ss_req1': """FE534D4240000100000000000100800000000000000000000200000000000000FFFE000000000000
00000000000000000000000000000000000000000000000019000001010000000000000058004A00
0000000000000000604806062B0601050502A03E303CA00E300C060A2B06010401823702020AA22A
04284E544C4D5353500001000000978208E200000000000000000000000000000000060380250000
000F""",
'ss_rsp1': """FE534D4240000100160000C00100010001000000000000000200000000000000FFFE000000000000
190000000010000000000000000000000000000000000000090000004800B300A181B03081ADA003
0A0101A10C060A2B06010401823702020AA281970481944E544C4D53535000020000000C000C0038
00000015828AE20D1D8BA31179D008000000000000000050005000440000000A0092270000000F53
005500540033003100310002000C0053005500540033003100310001000C00530055005400330031
00310004000C0053005500540033003100310003000C0053005500540033003100310007000800A1
A1F5ADCBAED00100000000""",
'ss_req2': """FE534D4240000100000000000100800000000000000000000300000000000000FFFE000000000000
1900000000100000000000000000000000000000000000001900000101000000000000005800CF01
0000000000000000A18201CB308201C7A0030A0101A28201AA048201A64E544C4D53535000030000
001800180090000000EE00EE00A80000000C000C00580000001A001A0064000000120012007E0000
001000100096010000158288E2060380250000000FECAC77A5F385A8BF9C38C706EEEDDCD3530055
005400330031003100610064006D0069006E006900730074007200610074006F0072004400520049
0056004500520033003100310000000000000000000000000000000000000000000000000063078E
B639FE03E20A231C3AE3BF23080101000000000000A1A1F5ADCBAED001BC4AD05F223CC90F000000
0002000C0053005500540033003100310001000C0053005500540033003100310004000C00530055
00540033003100310003000C0053005500540033003100310007000800A1A1F5ADCBAED001060004
00020000000800300030000000000000000000000000300000B61FEFCAA857EA57BF1EDCEBF8974B
8E0EBA5A6DFD9D07A31D11B548F8C9D0CC0A00100000000000000000000000000000000000090016
0063006900660073002F005300550054003300310031000000000000000000000000003B9BDFF38F
5EE8F9663F11A0F4C03A78A31204100100000063775A9A5FD97F0600000000""",
'ss_rsp2': """FE534D4240000100000000000100800009000000000000000300000000000000FFFE000000000000
1900000000100000EBE146DA120BA25FC3376A49DFE31BC10900000048001D00A11B3019A0030A01
00A3120410010000003B453CDC3524164200000000""",
'b_ss_req1': """FE534D4240000100000000000100800008000000000000000200000000000000FFFE000000000000
190000000010000068BD0C58F613CE1334B1EB51C68D39EA19000101010000000000000058004A00
0000000000000000604806062B0601050502A03E303CA00E300C060A2B06010401823702020AA22A
04284E544C4D5353500001000000978208E200000000000000000000000000000000060380250000
000F""",
'b_ss_rsp1': """FE534D4240000100160000C00100010009000000000000000200000000000000FFFE000000000000
1900000000100000014A71CAE724995E612430E2BE87578C090000004800B300A181B03081ADA003
0A0101A10C060A2B06010401823702020AA281970481944E544C4D53535000020000000C000C0038
00000015828AE23823DA68E32D2FE1000000000000000050005000440000000A0092270000000F53
005500540033003100310002000C0053005500540033003100310001000C00530055005400330031
00310004000C0053005500540033003100310003000C005300550054003300310031000700080041
3B42AECBAED00100000000""",
'b_ss_req2': """FE534D4240000100000000000100800008000000000000000300000000000000FFFE000000000000
19000000001000003CA64529ACAE57B26DCEC17B14E477D71900010101000000000000005800CF01
0000000000000000A18201CB308201C7A0030A0101A28201AA048201A64E544C4D53535000030000
001800180090000000EE00EE00A80000000C000C00580000001A001A0064000000120012007E0000
001000100096010000158288E2060380250000000FED00E0F3D901F7B77E98071474F83009530055
005400330031003100610064006D0069006E006900730074007200610074006F0072004400520049
00560045005200330031003100000000000000000000000000000000000000000000000000A46794
DA5D2033965D5339E1A675B79B0101000000000000413B42AECBAED0018E4D343661BA6A75000000
0002000C0053005500540033003100310001000C0053005500540033003100310004000C00530055
00540033003100310003000C0053005500540033003100310007000800413B42AECBAED001060004
00020000000800300030000000000000000000000000300000B61FEFCAA857EA57BF1EDCEBF8974B
8E0EBA5A6DFD9D07A31D11B548F8C9D0CC0A00100000000000000000000000000000000000090016
0063006900660073002F00530055005400330031003100000000000000000000000000C8C61D67CE
697693891336917655DDD3A3120410010000005122F070A7314A9B00000000""",
'b_ss_rsp2': """FE534D4240000100000000000100800009000000000000000300000000000000FFFE000000000000
19000000001000008D604217FFBACF40635BF9D8729921500900000048001D00A11B3019A0030A01
00A312041001000000CFB046FC5D368E2200000000""",
'b_neg_req': """FE534D4240000100000000000000800000000000000000000100000000000000FFFE000000000000
00000000000000000000000000000000000000000000000024000500010000003F000000ECD86F32
6276024F9F7752B89BB33F3A70000000020000000202100200030203110300000100260000000000
0100200001003E38B8B81A9AFB172278056F4898FD09A1B9976A49B2D771161FCD4D40DF7D7D0000
0200060000000000020002000100""",
'b_neg_rsp': """FE534D4240000100000000000000010001000000000000000100000000000000FFFE000000000000
000000000000000000000000000000000000000000000000410001001103020039CBCAF329714942
BDCE5D60F09AB3FB2F000000000080000000800000008000A76533AECBAED00109094AB095AED001
80004001C00100006082013C06062B0601050502A08201303082012CA01A3018060A2B0601040182
3702021E060A2B06010401823702020AA282010C048201084E45474F455854530100000000000000
60000000700000007E7CC0FD06D6362D02DDE1CF343BFE29172BA8482F8B7BE4DBA9F69A8DEBBA83
36E453F3EE58983492F66354ED01A5BE000000000000000060000000010000000000000000000000
5C33530DEAF90D4DB2EC4AE3786EC3084E45474F4558545303000000010000004000000098000000
7E7CC0FD06D6362D02DDE1CF343BFE295C33530DEAF90D4DB2EC4AE3786EC3084000000058000000
3056A05430523027802530233121301F06035504031318546F6B656E205369676E696E6720507562
6C6963204B65793027802530233121301F06035504031318546F6B656E205369676E696E67205075
626C6963204B657901002600000000000100200001002521FE7288989F816EE6D3D6C55921FBEF2C
C239789E83B8A0EC29E8D84EBAB80000020004000000000001000200""",
}
M = {k: H(v) for k, v in msgs.items()}

# The blog's preauth hash after each message (PreauthIntegrityHashValue).
BLOG_CHAIN = {
    "neg_req": "DD94EFC5321BB618A2E208BA8920D2F422992526947A409B5037DE1E0FE8C736"
               "2B8C47122594CDE0CE26AA9DFC8BCDBDE0621957672623351A7540F1E54A0426",
    "neg_rsp": "324BFA92A4F3A190E466EBEA08D9C110DC88BFED758D9846ECC6F541CC1D02AE"
               "3C94A79F36011E997E13F841B91B50957AD07B19C8E2539C0B23FDAE09D2C513",
    "ss_req1": "AC0B0F2B9986257700365E416D142A6EDC96DF03594A19E52A15F6BD0D041CD5"
               "D432F8ED42C55E33197A50C9EC00F1462B50C592211B1471A04B56088FDFD5F9",
    "ss_rsp1": "2729E3440DFDDD839E37193F6E8F20C20CEFB3469E453A70CD980EEC06B88357"
               "40A73760085633364C8989895ECE81BF102DEEB14D4B7D48AFA76901A7A38387",
    "ss_req2": "0DD13628CC3ED218EF9DF9772D436D0887AB9814BFAE63A80AA845F36909DB79"
               "28622DDDAD522D9751640A459762C5A9D6BB084CBB3CE6BDADEF5D5BCE3C6C01",
    "b_neg_req": "F035C2B2BAB116E0DCF6A74E26670604D1BF6DDA065913AF7C30E93C1F025AC3"
                 "CE2DD44D4DE26524A785E5D8E06AF0BE1C74296FEF05B045C3793A12B32C49DF",
    "b_neg_rsp": "E267AB1AA0403082AA2A9FEB0224AF3EA92E53CAA50A893A9635F0659F93591F"
                 "81391737E68DB0C9AD878C56449C36A6895EBCF435A7D97072C7B596B8AF3817",
    "b_ss_req1": "8346469934A59E951A3F2DA7FA4C2C29F0F6B13A6B0951D4CD5279F8D40FD84F"
                 "F98157937613C6BE9514582E44344B1710DD5BFCE3BB023D28C6EA512E0ADEBD",
    "b_ss_rsp1": "6DAD1BA61CAF5FDFBB46D995463FF5780F7248D692E70CE87D8B58B2FBEFD438"
                 "937E1BCBEC3676F26F7EE374E169F8AFB17671FB9A47AB88EE2C079DB2B2C7D3",
    "b_ss_req2": "EA3BF912B11CBFEC5B1889E8209614218687F82FA5294521AD3063425E49E88A"
                 "10BD022124CE25123BC9111F52D9566BA88BF46344E6063DC5E3FF0389026F6C",
}
MASTER = ["neg_req", "neg_rsp", "ss_req1", "ss_rsp1", "ss_req2"]
BINDING = ["b_neg_req", "b_neg_rsp", "b_ss_req1", "b_ss_rsp1", "b_ss_req2"]

# The blog's keys (SMB 3.0: two channels; SMB 3.1.1: CipherId 2, the
# session and the bound channel). The blog is the client's view: its
# EncryptionKey is client-to-server, its DecryptionKey server-to-client.
K30 = dict(sk="7CD451825D0450D235424E44BA6E78CC",
           sign="0B7E9C5CAC36C0F6EA9AB275298CEDCE",
           c2s="FAD27796665B313EBB578F388632B4F7",
           s2c="B0F0427F7CEB416D1D9DCC0CD4F99447",
           app="BB23A4575AA26C721AF525AF15A87B4F",
           sk2="4E01A2B313BCF660CC250BEF021AEDE6",
           sign2="BA1A17DBBFEC349BCA105563D598952F")
K311 = dict(sk="270E1BA896585EEB7AF3472D3B4C75A7",
            sign="73FE7A9A77BEF0BDE49C650D8CCB5F76",
            c2s="629BCBC54422A0F572B97F45989B6073",
            s2c="E2AF0DCEFAC68DA71A0DFBD0D1350D74",
            app="6D7AD7954E9EC61E907B4D473DC178FF",
            sk2="84B9DBB730116A8FA6E9889555C265F9",
            sign2="C962BCA1A9DD1697B030644199705431")


def kdf(key, label, ctx, n):
    return KBKDFHMAC(algorithm=hashes.SHA256(), mode=Mode.CounterMode,
                     length=n, rlen=4, llen=4,
                     location=CounterLocation.BeforeFixed, label=label,
                     context=ctx, fixed=None).derive(key)


def zero_sig(m):
    m = bytearray(m)
    m[48:64] = bytes(16)
    return bytes(m)


def aes_cmac(key, m):
    c = cmac.CMAC(algorithms.AES(key))
    c.update(m)
    return c.finalize()


def aes_block(key, b):
    e = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    return e.update(b) + e.finalize()


def gf_mul(x, y):
    # GF(2^128) with the bit order of SP 800-38D 6.3 (Algorithm 1).
    r = 0xE1 << 120
    z, v = 0, y
    for i in range(127, -1, -1):
        if (x >> i) & 1:
            z ^= v
        v = (v >> 1) ^ r if v & 1 else v >> 1
    return z


def gmac_ref(key, iv, aad):
    h = int.from_bytes(aes_block(key, bytes(16)), "big")
    data = aad + bytes(-len(aad) % 16) + (len(aad) * 8).to_bytes(8, "big") \
        + bytes(8)
    y = 0
    for i in range(0, len(data), 16):
        y = gf_mul(y ^ int.from_bytes(data[i:i + 16], "big"), h)
    j0 = aes_block(key, iv + b"\0\0\0\1")
    return bytes(a ^ b for a, b in zip(j0, y.to_bytes(16, "big")))


def gmac(key, iv, aad):
    tag = AESGCM(key).encrypt(iv, b"", aad)
    assert tag == gmac_ref(key, iv, aad)
    return tag


def smb_nonce(msgid, server, cancel):
    return msgid.to_bytes(8, "little") + \
        ((1 if server else 0) | (2 if cancel else 0)).to_bytes(4, "little")


out = []


def arr(name, b, comment=None):
    if comment:
        out.append("/* %s */" % comment)
    out.append("static const uint8_t %s[%d] = {" % (name, len(b)))
    for i in range(0, len(b), 12):
        out.append("\t" + ", ".join("0x%02x" % c for c in b[i:i + 12]) + ",")
    out.append("};")


def check_blog():
    for chain in (MASTER, BINDING):
        h = bytes(64)
        for k in chain:
            h = hashlib.sha512(h + M[k]).digest()
            assert h == H(BLOG_CHAIN[k]), k
    for k in (K30, K311):
        for f in k:
            k[f] = H(k[f])
    m = H(BLOG_CHAIN["ss_req2"])
    b = H(BLOG_CHAIN["b_ss_req2"])
    assert kdf(K30["sk"], b"SMB2AESCMAC\0", b"SmbSign\0", 16) == K30["sign"]
    assert kdf(K30["sk"], b"SMB2AESCCM\0", b"ServerIn \0", 16) == K30["c2s"]
    assert kdf(K30["sk"], b"SMB2AESCCM\0", b"ServerOut\0", 16) == K30["s2c"]
    assert kdf(K30["sk"], b"SMB2APP\0", b"SmbRpc\0", 16) == K30["app"]
    assert kdf(K30["sk2"], b"SMB2AESCMAC\0", b"SmbSign\0", 16) == K30["sign2"]
    assert kdf(K311["sk"], b"SMBSigningKey\0", m, 16) == K311["sign"]
    assert kdf(K311["sk"], b"SMBC2SCipherKey\0", m, 16) == K311["c2s"]
    assert kdf(K311["sk"], b"SMBS2CCipherKey\0", m, 16) == K311["s2c"]
    assert kdf(K311["sk"], b"SMBAppKey\0", m, 16) == K311["app"]
    assert kdf(K311["sk2"], b"SMBSigningKey\0", b, 16) == K311["sign2"]
    # Windows' signatures: the session's signing key signs the logon's
    # last response and the binding's requests and interim response, the
    # channel's key the binding's last response (MS-SMB2 3.3.4.1.1).
    for k in ("ss_rsp2", "b_ss_req1", "b_ss_rsp1", "b_ss_req2"):
        assert aes_cmac(K311["sign"], zero_sig(M[k])) == M[k][48:64], k
    assert aes_cmac(K311["sign2"], zero_sig(M["b_ss_rsp2"])) == \
        M["b_ss_rsp2"][48:64]


# RFC 4493 section 4.
RFC4493_KEY = H("2b7e151628aed2a6abf7158809cf4f3c")
RFC4493_MSG = H("6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51"
                "30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710")
RFC4493 = [(0, "bb1d6929e95937287fa37d129b756746"),
           (16, "070a16b46b4d4144f79bdd9dd04a287c"),
           (40, "dfa66747de9ae63030ca32611497c827"),
           (64, "51f0bebf7e3b9d92fc49741779363cfe")]

# IEEE 802.1 MACsec GCM-AES test vectors (bn-randall-test-vectors-0511-v1):
# 2.1.1 "54-byte packet authentication using GCM-AES-128" and 2.5.1
# "65-byte packet authentication using GCM-AES-128".
IEEE = [("ad7a2bd03eac835a6f620fdcb506b345", "12153524c0895e81b2c28465",
         "d609b1f056637a0d46df998d88e5222ab2c2846512153524c0895e8108000f10"
         "1112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f30"
         "313233340001", "f09478a9b09007d06f46e9b6a1da25dd"),
        ("013fe00b5f11be7f866d0cbbc55a7a90", "7cfde9f9e33724c68932d612",
         "84c5d513d2aaf6e5bbd2727788e523008932d6127cfde9f9e33724c608000f10"
         "1112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f30"
         "3132333435363738393a3b3c3d3e3f0005", "217867e50c2dad74c28c3b50abdf695a")]


def main():
    check_blog()
    for n, t in RFC4493:
        assert aes_cmac(RFC4493_KEY, RFC4493_MSG[:n]) == H(t)
    for k, iv, a, t in IEEE:
        assert gmac(H(k), H(iv), H(a)) == H(t)

    out.append("/* SPDX-License-Identifier: MIT */")
    out.append("/*")
    out.append(" * Generated by tests/unit/smb2_crypto_vectors.py (which says where each")
    out.append(" * vector comes from, checks it, and how to run it): do not edit.")
    out.append(" */")
    out.append("#ifndef NASD_TESTS_SMB2_CRYPTO_VECTORS_H")
    out.append("#define NASD_TESTS_SMB2_CRYPTO_VECTORS_H")
    out.append("")
    out.append("#include <stddef.h>")
    out.append("#include <stdint.h>")
    out.append("")
    out.append("/* Microsoft's SMB 3.0 key derivation example. */")
    for f in ("sk", "sign", "c2s", "s2c", "app", "sk2", "sign2"):
        arr("ms30_" + f, K30[f])
    out.append("")
    out.append("/*")
    out.append(" * Microsoft's SMB 3.1.1 multichannel example: the messages of the")
    out.append(" * logon (ms311_*) and of the binding of a second channel (ms311_b_*),")
    out.append(" * the preauth hash after each (*_hash), and the keys.")
    out.append(" */")
    for k in MASTER + ["ss_rsp2"] + BINDING + ["b_ss_rsp2"]:
        arr("ms311_" + k, M[k])
        if k in BLOG_CHAIN:
            arr("ms311_" + k + "_hash", H(BLOG_CHAIN[k]))
    for f in ("sk", "sign", "c2s", "s2c", "app", "sk2", "sign2"):
        arr("ms311_" + f, K311[f])
    out.append("")
    out.append("/* RFC 4493 section 4: AES-CMAC, key and the 64-byte message. */")
    arr("rfc4493_key", RFC4493_KEY)
    arr("rfc4493_msg", RFC4493_MSG)
    for n, t in RFC4493:
        arr("rfc4493_mac%d" % n, H(t))
    out.append("")
    out.append("/* IEEE 802.1 MACsec vectors 2.1.1, 2.5.1: GCM-AES-128, no plaintext. */")
    for i, (k, iv, a, t) in enumerate(IEEE):
        arr("ieee%d_key" % i, H(k))
        arr("ieee%d_iv" % i, H(iv))
        arr("ieee%d_aad" % i, H(a))
        arr("ieee%d_tag" % i, H(t))
    out.append("")

    # SP800-108 shapes: (key, label, context, length), computed with
    # KBKDFHMAC. Lengths 16 and 32 are SMB's; 64 takes two PRF rounds
    # (counter 1 and 2).
    out.append("/* SP800-108 counter-mode HMAC-SHA256, from python3-cryptography. */")
    key32 = bytes(range(0x40, 0x60))
    shapes = [(K311["sk"], b"SMBSigningKey\0", H(BLOG_CHAIN["ss_req2"]), 16),
              (key32, b"SMBC2SCipherKey\0", H(BLOG_CHAIN["ss_req2"]), 32),
              (key32[:20], b"label", b"", 64),
              (K30["sk"], b"SMB2AESCMAC\0", b"SmbSign\0", 32)]
    out.append("struct kdf_vec {")
    out.append("\tconst uint8_t *key;")
    out.append("\tsize_t key_len;")
    out.append("\tconst char *label;")
    out.append("\tsize_t label_len;")
    out.append("\tconst uint8_t *ctx;")
    out.append("\tsize_t ctx_len;")
    out.append("\tsize_t out_len;")
    out.append("\tconst uint8_t *out;")
    out.append("};")
    for i, (k, l, c, n) in enumerate(shapes):
        arr("kdf%d_key" % i, k)
        arr("kdf%d_ctx" % i, c + b"\0")  # never empty in C; ctx_len says
        arr("kdf%d_out" % i, kdf(k, l, c, n))
    out.append("static const struct kdf_vec kdf_vecs[] = {")
    for i, (k, l, c, n) in enumerate(shapes):
        # A C string literal ends in the NUL that SMB's labels include;
        # label_len says whether it counts.
        lit = l.rstrip(b"\0").decode()
        out.append("\t{ kdf%d_key, %d, \"%s\", %d, kdf%d_ctx, %d, %d, kdf%d_out },"
                   % (i, len(k), lit, len(l), i, len(c), n, i))
    out.append("};")
    out.append("")

    # SMB 3.1.1 with AES-256-GCM: a 32-byte (Kerberos-sized) GSS key. The
    # signing and application keys come from its first 16 bytes
    # (Session.SessionKey), the cipher keys from all of it
    # (Session.FullSessionKey) with L = 256.
    gss = bytes(range(0xa0, 0xc0))
    ph = H(BLOG_CHAIN["ss_req2"])
    out.append("/* SMB 3.1.1, AES-256-GCM, 32-byte GSS key, Microsoft's preauth hash. */")
    arr("aes256_gss", gss)
    arr("aes256_sign", kdf(gss[:16], b"SMBSigningKey\0", ph, 16))
    arr("aes256_app", kdf(gss[:16], b"SMBAppKey\0", ph, 16))
    arr("aes256_c2s", kdf(gss, b"SMBC2SCipherKey\0", ph, 32))
    arr("aes256_s2c", kdf(gss, b"SMBS2CCipherKey\0", ph, 32))
    out.append("")

    # AES-GMAC signatures (MS-SMB2 3.1.4.1): Microsoft's last logon
    # response (MessageId 3, from the server) under the session's signing
    # key, and a CANCEL request built here, from the client, as a CANCEL
    # and (to show the nonce bits matter) as if it were not one and as if
    # the server had sent it.
    cancel = bytearray(68)
    cancel[0:4] = b"\xfeSMB"
    cancel[4:6] = (64).to_bytes(2, "little")       # StructureSize
    cancel[12:14] = (0x000C).to_bytes(2, "little")  # Command: CANCEL
    cancel[16:20] = (0x00000008).to_bytes(4, "little")  # SMB2_FLAGS_SIGNED
    cancel[24:32] = (0x0000000000000102).to_bytes(8, "little")  # MessageId
    cancel[32:36] = (0xFEFF).to_bytes(4, "little")
    cancel[40:48] = (0x0000100000000019).to_bytes(8, "little")  # SessionId
    cancel[48:64] = bytes(range(0xe0, 0xf0))  # a stale signature, ignored
    cancel[64:66] = (4).to_bytes(2, "little")
    cancel = bytes(cancel)
    sk = K311["sign"]
    out.append("/* AES-GMAC signatures, from python3-cryptography and the GHASH here. */")
    arr("gmac_rsp_sig", gmac(sk, smb_nonce(3, True, False), zero_sig(M["ss_rsp2"])),
        "ms311_ss_rsp2, MessageId 3, server")
    arr("gmac_cancel", cancel, "a CANCEL request, MessageId 0x102")
    arr("gmac_cancel_sig", gmac(sk, smb_nonce(0x102, False, True), zero_sig(cancel)),
        "client, cancel")
    arr("gmac_cancel_sig_nc", gmac(sk, smb_nonce(0x102, False, False), zero_sig(cancel)),
        "client, not a cancel")
    arr("gmac_cancel_sig_srv", gmac(sk, smb_nonce(0x102, True, True), zero_sig(cancel)),
        "server, cancel")
    out.append("")

    # HMAC-SHA256 (2.0.2, 2.1): Session.SessionKey signs; the first 16 of
    # the 32 bytes are the signature.
    out.append("/* HMAC-SHA256 signature (2.x), from Python's hmac, all 32 bytes. */")
    arr("hmac_key", K311["sk"])
    arr("hmac_req2_full", hmac.new(K311["sk"], zero_sig(M["ss_req2"]),
                                   hashlib.sha256).digest(),
        "HMAC-SHA256(key, ms311_ss_req2 with its signature field zeroed)")
    out.append("")
    out.append("#endif")
    sys.stdout.write("\n".join(out) + "\n")


main()
