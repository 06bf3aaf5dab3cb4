#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""SESSION_SETUP authentication (src/smb2/auth) against real clients.

usage: smb2_auth_clients.py SMB2_AUTH_TOOL [--record DIR]

Drives smb2_auth_tool (the server side of one exchange per process) with
the NTLMSSP and SPNEGO clients of impacket and of Samba's gensec (what
smbclient uses), and checks that the right password logs on with the
session key the client derived, and that a wrong password, an unknown
user and NTLMv1 do not. Samba's client is the strict one: it sends the
NTLM MIC and a mechListMIC and fails unless the server's mechListMIC
checks out.

--record DIR writes the same exchanges, made with a fixed server challenge
and timestamp, as test vectors (DIR/*.txt) for tests/unit/test_smb2_auth.c,
which replays them byte for byte without Python. A vector file:
    # comment
    challenge HEX16 / filetime N
    user NAME UID GID PASSWORD       (one or more: the smbpasswd to use)
    C HEX|-                          (a client token; "-" empty)
    S MORE|DONE|ERR... HEX|- [rest]  (the tool's answer, as it printed it)

Exit 0, 1 on a failure, 77 when impacket is not installed (Debian's
python3-impacket; Samba's cases need python3-samba and are skipped
without it, with a note).
"""

import os
import subprocess
import sys
import tempfile

try:
    from impacket import ntlm, spnego
except ImportError:
    print("smb2_auth_clients: skipped: no impacket (apt-get install "
          "python3-impacket)")
    sys.exit(77)

try:
    from samba import credentials, gensec
    from samba.param import LoadParm
    HAVE_SAMBA = True
except ImportError:
    HAVE_SAMBA = False

FIXED_CHALLENGE = bytes.fromhex("0123456789abcdef")
FIXED_FILETIME = 133000000000000000  # 2022-06-18

USERS = [
    ("alice", 1000, 1000, "Secret-Pw1"),
    ("Björn", 1001, 1002, "pässwörd ß"),
]
NTLMSSP_OID = spnego.TypesMech[
    "NTLMSSP - Microsoft NTLM Security Support Provider"]
KRB5_OID = spnego.TypesMech["MS KRB5 - Microsoft Kerberos 5"]

failures = []


def check(cond, what):
    if cond:
        print("ok - " + what)
    else:
        print("not ok - " + what)
        failures.append(what)


def write_smbpasswd(state_dir, users):
    path = os.path.join(state_dir, "smbpasswd")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write("# nasd smbpasswd 1\n")
        for name, uid, gid, pw in users:
            f.write("%s:%d:%d:%s\n" % (name, uid, gid,
                                       ntlm.compute_nthash(pw).hex()))


class Server:
    """One smb2_auth_tool process: one exchange."""

    def __init__(self, tool, state_dir, fixed):
        args = [tool, state_dir]
        if fixed:
            args += [FIXED_CHALLENGE.hex(), str(FIXED_FILETIME)]
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        self.lines = []

    def _ask(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        ans = self.p.stdout.readline().strip()
        if not ans:
            raise RuntimeError("smb2_auth_tool died")
        return ans

    def negotiate_token(self):
        ans = self._ask("NEGOTIATE").split()
        return bytes.fromhex(ans[1])

    def step(self, token):
        line = token.hex() if token else "-"
        ans = self._ask(line)
        self.lines.append("C " + line)
        self.lines.append("S " + ans)
        f = ans.split()
        out = b"" if f[1 if f[0] != "ERR" else 2] == "-" else \
            bytes.fromhex(f[1 if f[0] != "ERR" else 2])
        return f[0] if f[0] != "ERR" else "ERR " + f[1], out, f

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=10)


# impacket


def imp_raw(srv, user, pw, domain="WORKGROUP", v2=True, sign=True):
    t1 = ntlm.getNTLMSSPType1("CLIENT1", "", signingRequired=sign,
                              use_ntlmv2=v2)
    kind, chal, _ = srv.step(t1.getData())
    if kind != "MORE":
        return kind, None, None
    t3, key = ntlm.getNTLMSSPType3(t1, chal, user, pw, domain,
                                   use_ntlmv2=v2)
    kind, _, f = srv.step(t3.getData())
    return kind, f, key


def imp_spnego(srv, user, pw, domain="WORKGROUP", mechs=None):
    t1 = ntlm.getNTLMSSPType1("CLIENT1", "", signingRequired=True)
    init = spnego.SPNEGO_NegTokenInit()
    init["MechTypes"] = mechs or [NTLMSSP_OID]
    if not mechs or mechs[0] == NTLMSSP_OID:
        init["MechToken"] = t1.getData()
    kind, out, _ = srv.step(init.getData())
    if kind != "MORE":
        return kind, None, None
    try:
        r = spnego.SPNEGO_NegTokenResp(out)
        token = r["ResponseToken"] if "ResponseToken" in r.fields else None
    except Exception:  # impacket cannot parse a reply with no token
        token = None
    if not token:
        # the server asked for NTLMSSP's first token
        r1 = spnego.SPNEGO_NegTokenResp()
        r1["ResponseToken"] = t1.getData()
        kind, out, _ = srv.step(r1.getData())
        if kind != "MORE":
            return kind, None, None
        r = spnego.SPNEGO_NegTokenResp(out)
    t3, key = ntlm.getNTLMSSPType3(t1, r["ResponseToken"], user, pw, domain)
    r2 = spnego.SPNEGO_NegTokenResp()
    r2["ResponseToken"] = t3.getData()
    kind, _, f = srv.step(r2.getData())
    return kind, f, key


# Samba gensec


def samba_client(user, pw, domain, mech):
    lp = LoadParm()
    creds = credentials.Credentials()
    creds.guess(lp)
    creds.set_username(user)
    creds.set_password(pw)
    creds.set_domain(domain)
    creds.set_workstation("SAMBACLIENT")
    creds.set_kerberos_state(credentials.DONT_USE_KERBEROS)
    g = gensec.Security.start_client({"lp_ctx": lp,
                                      "target_hostname": "nasdtest"})
    g.set_credentials(creds)
    g.want_feature(gensec.FEATURE_SESSION_KEY)
    g.want_feature(gensec.FEATURE_SIGN)
    if mech == "spnego":
        g.start_mech_by_sasl_name("GSS-SPNEGO")
    else:
        g.start_mech_by_name("ntlmssp")
    return g


def samba_exchange(srv, user, pw, domain="WORKGROUP", mech="spnego",
                   hinted=True):
    """Returns (server kind, server fields, client finished, client key)."""
    g = samba_client(user, pw, domain, mech)
    data = srv.negotiate_token() if (hinted and mech == "spnego") else b""
    kind, f = None, None
    for _ in range(6):
        try:
            fin, tok = g.update(data)
        except Exception as e:  # the client refused the server's token
            return kind, f, False, "client: %s" % e
        if fin and not tok:
            break
        kind, data, f = srv.step(tok)
        if kind.startswith("ERR"):
            return kind, f, False, None
        if kind == "DONE" and not data:
            fin = True
            break
    try:
        key = g.session_key()
    except Exception:  # not finished
        key = None
    return kind, f, fin, key


def done_ok(kind, f, user, key):
    return (kind == "DONE" and f[2] == user and f[5] == "0" and
            key is not None and f[6] == bytes(key).hex())


def run(tool, state_dir, record_dir):
    fixed = record_dir is not None
    vectors = []

    def server():
        return Server(tool, state_dir, fixed)

    def keep(name, comment, srv, users=USERS):
        srv.close()
        if fixed:
            head = ["# " + comment,
                    "challenge " + FIXED_CHALLENGE.hex(),
                    "filetime %d" % FIXED_FILETIME]
            head += ["user %s %d %d %s" % u for u in users]
            vectors.append((name, head + srv.lines))

    alice, apw = USERS[0][0], USERS[0][3]
    bjorn, bpw = USERS[1][0], USERS[1][3]

    # impacket, raw NTLMSSP (as Linux cifs sends it) and in SPNEGO
    srv = server()
    kind, f, key = imp_raw(srv, alice, apw)
    check(done_ok(kind, f, alice, key), "impacket raw NTLMSSP, KEY_EXCH")
    keep("impacket_raw", "impacket getNTLMSSPType1/3, raw, key exchange",
         srv)
    srv = server()
    kind, f, key = imp_raw(srv, "ALICE", apw, sign=False)
    check(done_ok(kind, f, alice, key),
          "impacket raw, no KEY_EXCH, user name upper-cased")
    keep("impacket_raw_nokex", "impacket raw, no key exchange, user ALICE",
         srv)
    srv = server()
    kind, f, key = imp_spnego(srv, bjorn, bpw, domain="")
    check(done_ok(kind, f, bjorn, key), "impacket SPNEGO, non-ASCII")
    keep("impacket_spnego", "impacket SPNEGO, non-ASCII user and password",
         srv)
    srv = server()
    kind, f, key = imp_spnego(srv, alice, apw, mechs=[KRB5_OID, NTLMSSP_OID])
    check(done_ok(kind, f, alice, key),
          "impacket SPNEGO, NTLMSSP second (request-mic, 3 legs)")
    keep("impacket_spnego_krb5_first", "impacket SPNEGO, Kerberos offered "
         "first: NTLMSSP's NEGOTIATE comes in a second leg", srv)
    srv = server()
    kind, f, key = imp_raw(srv, alice, "wrong")
    check(kind == "ERR EACCES", "impacket wrong password: EACCES")
    keep("impacket_wrong_password", "impacket raw, wrong password", srv)
    srv = server()
    kind, f, key = imp_raw(srv, "mallory", apw)
    check(kind == "ERR EACCES", "impacket unknown user: EACCES")
    keep("impacket_unknown_user", "impacket raw, unknown user", srv)
    srv = server()
    kind, f, key = imp_raw(srv, alice, apw, v2=False)
    check(kind == "ERR EOPNOTSUPP", "impacket NTLMv1: EOPNOTSUPP")
    keep("impacket_ntlmv1", "impacket raw, NTLMv1 response", srv)
    srv = server()
    kind, f, key = imp_raw(srv, "", "")
    check(kind == "DONE" and f[5] == "1" and f[6] == "-",
          "impacket anonymous: DONE, anonymous, no key")
    keep("impacket_anonymous", "impacket raw, anonymous", srv)

    if not HAVE_SAMBA:
        print("note: python3-samba not installed: Samba gensec cases "
              "skipped")
    else:
        srv = server()
        kind, f, fin, key = samba_exchange(srv, alice, apw)
        check(fin and done_ok(kind, f, alice, key),
              "Samba gensec SPNEGO (MIC, mechListMIC checked by the "
              "client)")
        keep("samba_spnego", "Samba 4.17 gensec SPNEGO+NTLMSSP, started "
             "from our NegTokenInit2, NTLM MIC and mechListMIC", srv)
        srv = server()
        kind, f, fin, key = samba_exchange(srv, bjorn, bpw, domain="NASDTEST",
                                           hinted=False)
        check(fin and done_ok(kind, f, bjorn, key),
              "Samba gensec SPNEGO without the hint, non-ASCII")
        keep("samba_spnego_nohint", "Samba gensec SPNEGO, client-initiated, "
             "non-ASCII user", srv)
        srv = server()
        kind, f, fin, key = samba_exchange(srv, alice, apw, mech="ntlmssp")
        check(fin and done_ok(kind, f, alice, key),
              "Samba gensec raw NTLMSSP with MIC")
        keep("samba_raw", "Samba gensec raw NTLMSSP (MIC in AUTHENTICATE)",
             srv)
        srv = server()
        kind, f, fin, key = samba_exchange(srv, alice, "wrong")
        check(kind == "ERR EACCES", "Samba wrong password: EACCES")
        keep("samba_wrong_password", "Samba gensec SPNEGO, wrong password",
             srv)

    if fixed:
        os.makedirs(record_dir, exist_ok=True)
        for name, lines in vectors:
            with open(os.path.join(record_dir, name + ".txt"), "w") as f:
                f.write("\n".join(lines) + "\n")
        print("wrote %d vectors to %s" % (len(vectors), record_dir))


def main():
    if len(sys.argv) not in (2, 4) or (len(sys.argv) == 4 and
                                       sys.argv[2] != "--record"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    tool = sys.argv[1]
    record = sys.argv[3] if len(sys.argv) == 4 else None
    with tempfile.TemporaryDirectory(prefix="nasd-auth.") as d:
        write_smbpasswd(d, USERS)
        run(tool, d, None)       # random challenges, as the server runs
        if record:
            run(tool, d, record)
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
