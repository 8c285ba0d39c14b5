#!/usr/bin/env python3
"""Independent verifier of docs/DEVICES.md §2-§3 written from the document alone,
cross-checking vectors/devices/registry.json; a step of npm test.

Uses pyca/cryptography (Ed25519, ML-DSA-65 with context) and hashlib (SHA-256).
Run from the repository root: python3 vectors/devices/crosscheck_pyca.py
"""
import hashlib
import json
import sys
import time

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.mldsa import MLDSA65PublicKey

LABEL = b"veilkit-device-registry-v1"
ID_LABEL = b"veilkit-session-identity-v1"
ENC_LEN, ED_SIG, ML_SIG = 2017, 64, 3309
SIGS = ED_SIG + ML_SIG                      # 3,373
BODY = 1 + 4 + 8 + 32 + 32                  # 77
HEADER = 4 + 1 + ENC_LEN + 2                # 2,024
MAX_CHANGES, MAX_NAME, MAX_TIME = 512, 64, 2**53 - 1
MAX_LEN = HEADER + MAX_CHANGES * (BODY + ENC_LEN + SIGS + 1 + MAX_NAME + SIGS)


class Refused(Exception):
    def __init__(self, reason, index, **details):
        super().__init__(f"{reason} at {index}")
        self.reason, self.index, self.details = reason, index, details


def sha256(*parts):
    return hashlib.sha256(b"".join(parts)).digest()


def identity_id(enc):
    return sha256(ID_LABEL, enc)


def hybrid_ok(enc, msg, sigs):
    """Both signatures (Ed25519 ‖ ML-DSA-65, ctx = label) over msg under Enc(ID)'s keys."""
    try:
        Ed25519PublicKey.from_public_bytes(enc[1:33]).verify(sigs[:ED_SIG], msg)
        MLDSA65PublicKey.from_public_bytes(enc[33:33 + 1952]).verify(sigs[ED_SIG:], msg, LABEL)
        return True
    except (InvalidSignature, ValueError):
        return False


def parse(reg):
    """§3 step 1. Returns (Enc(U), [change dicts]) or raises Refused('MALFORMED', index)."""
    def bad(i=0):
        raise Refused("MALFORMED", i)
    if not HEADER <= len(reg) <= MAX_LEN or reg[:4] != b"VKDR" or reg[4] != 1 or reg[5] != 1:
        bad()
    user = reg[5:5 + ENC_LEN]
    n = int.from_bytes(reg[5 + ENC_LEN:HEADER], "big")
    if not 1 <= n <= MAX_CHANGES:
        bad()
    pos, changes = HEADER, []
    for i in range(1, n + 1):
        start = pos

        def take(k):
            nonlocal pos
            if pos + k > len(reg):
                bad(i)
            pos += k
            return reg[pos - k:pos]
        body = take(BODY)
        c = {"action": body[0], "seq": int.from_bytes(body[1:5], "big"),
             "time": int.from_bytes(body[5:13], "big"), "prev": body[13:45], "id": body[45:77]}
        if c["action"] not in (1, 2) or c["time"] > MAX_TIME:
            bad(i)
        if c["action"] == 1:
            c["enc"] = take(ENC_LEN)
            if c["enc"][0] != 1:
                bad(i)
            c["consent"] = take(SIGS)
            (length,) = take(1)
            if length > MAX_NAME:
                bad(i)
            try:
                c["name"] = take(length).decode("utf-8")
            except UnicodeDecodeError:
                bad(i)
            body = reg[start:pos]
        c["body"], c["sigs"] = body, take(SIGS)
        c["raw"] = reg[start:pos]
        changes.append(c)
    if pos != len(reg):
        bad()
    return user, changes


def verify(reg, trusted_user, pinned=None):
    """§3 steps 1-5. pinned = (m, h) from an earlier verification, or None."""
    user, changes = parse(reg)
    if user != trusted_user:
        raise Refused("USER_MISMATCH", 0)
    n = len(changes)
    m, pinned_hash = pinned or (0, None)
    if m > n:
        raise Refused("STATE_ROLLBACK", 0, got=n, needed=m)
    user_id = identity_id(user)
    prev, prev_time = sha256(LABEL, b"\x00", user), None
    ever_added, active, revoked = set(), {}, []   # active: id -> device, in insertion order
    for i, c in enumerate(changes, 1):
        if c["seq"] != i:
            raise Refused("BAD_SEQUENCE", i)
        if c["prev"] != prev:
            raise Refused("BAD_PREV_HASH", i)
        if prev_time is not None and c["time"] < prev_time:
            raise Refused("TIMESTAMP_DECREASED", i)
        if i > m and not hybrid_ok(user, LABEL + b"\x02" + c["body"], c["sigs"]):
            raise Refused("BAD_SIGNATURE", i)
        h = sha256(LABEL, b"\x01", c["raw"])
        if i == m and h != pinned_hash:
            raise Refused("FORK", i)
        if c["action"] == 1:
            if c["id"] != identity_id(c["enc"]):
                raise Refused("DEVICE_ID_MISMATCH", i)
            if c["id"] == user_id:
                raise Refused("USER_AS_DEVICE", i)
            if i > m and not hybrid_ok(c["enc"], LABEL + b"\x03" + user + c["enc"], c["consent"]):
                raise Refused("BAD_CONSENT", i)
            if c["id"] in ever_added:
                raise Refused("DUPLICATE_DEVICE", i)
            ever_added.add(c["id"])
            active[c["id"]] = {"identityId": c["id"].hex(), "name": c["name"], "addedAt": c["time"]}
        else:
            if c["id"] not in active:
                raise Refused("ALREADY_REVOKED" if c["id"] in ever_added else "UNKNOWN_DEVICE", i)
            revoked.append({**active.pop(c["id"]), "revokedAt": c["time"]})
        prev, prev_time = h, c["time"]
    return {"valid": True, "count": n, "head": prev.hex(),
            "devices": list(active.values()), "revoked": revoked}


def main():
    cases = json.load(open("vectors/devices/registry.json"))["cases"]
    agree, t0 = 0, time.perf_counter()
    for case in cases:
        try:
            try:
                pin = case.get("pinned")
                pinned = None if pin is None else (pin["count"], bytes.fromhex(pin["hash"]))
                got = verify(bytes.fromhex(case["registry"]), bytes.fromhex(case["user"]), pinned)
            except Refused as r:
                got = {"valid": False, "reason": r.reason, "index": r.index}
            ok = got == case["expected"]
            detail = "" if ok else f"\n  expected {case['expected']}\n  got      {got}"
        except Exception as e:  # noqa: BLE001 - any crash is a disagreement
            ok, detail = False, f"\n  exception {type(e).__name__}: {e}"
        agree += ok
        print(f"{'OK' if ok else 'MISMATCH'}  {case['name']}{detail}")
    ms = (time.perf_counter() - t0) * 1000
    print(f"devices crosscheck: {agree}/{len(cases)} cases agree ({ms:.0f} ms)")
    return 0 if agree == len(cases) else 1


if __name__ == "__main__":
    sys.exit(main())
