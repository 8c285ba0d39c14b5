#!/usr/bin/env python3
"""Independent cross-check of vectors/messaging/kat.json with pyca/cryptography (OpenSSL).

Re-derives every construction of docs/PROTOCOL.md from the KAT inputs with a second,
unrelated implementation of X25519, Ed25519, ML-KEM-768, HKDF-SHA256, AES-256-GCM and
SHA-256 (ML-KEM needs cryptography >= 46 built against OpenSSL >= 3.5). A step of
`npm test` (scripts/test.sh); run from the repository root: python3 vectors/messaging/crosscheck_pyca.py
"""
import json, hashlib, base64, struct
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives import hashes, serialization
R=serialization.Encoding.Raw; RP=serialization.PublicFormat.Raw
d=json.load(open('vectors/messaging/kat.json'))['families']
H=bytes.fromhex
def hkdf(ikm,salt,info): return HKDF(hashes.SHA256(),32,salt if salt else None,info).derive(ikm)
def xpub(sk): return X25519PrivateKey.from_private_bytes(sk).public_key().public_bytes(R,RP)
def dh(sk,pk): return X25519PrivateKey.from_private_bytes(sk).exchange(X25519PublicKey.from_public_bytes(pk))
def edpub(seed): return Ed25519PrivateKey.from_private_bytes(seed).public_key().public_bytes(R,RP)
def sha(b): return hashlib.sha256(b).digest()
def b64d(s): return base64.urlsafe_b64decode(s+'='*(-len(s)%4))
n=0
for c in d['srk']:
    i,e=c['input'],c['expected']; assert hkdf(H(i['dek']),H(i['chatId']),b'veilkit-srk-v1').hex()==e['srk']; n+=1
for c in d['windowKey']:
    i,e=c['input'],c['expected']; assert hkdf(H(i['srk']),struct.pack('>Q',i['windowIndex']),b'veilkit-window-key-v1').hex()==e['windowKey']; n+=1
for c in d['ratchet']:
    i,e=c['input'],c['expected']
    a=xpub(H(i['aliceRatchetSecret'])); b=xpub(H(i['bobRatchetSecret'])); lo,hi=sorted([a,b])
    k=hkdf(H(i['currentSrk'])+dh(H(i['aliceRatchetSecret']),b), struct.pack('>Q',i['ratchetStep'])+H(i['chatId']), b'veilkit-pcs-ratchet-v1'+lo+hi)
    assert k.hex()==e['newSrk']; n+=1
for c in d['transcript']:
    lp=lambda x: struct.pack('>I',len(x))+x
    i,e=c['input'],c['expected']; ch=sha(b'veilkit-transcript-v2/new'+lp(H(i['sessionId']))); assert ch.hex()==e['h0']
    for k,m in enumerate(i['messages']):
        h=sha(b'veilkit-transcript-v2/message'+lp(H(m['messageId']))+lp(H(m['senderId']))+struct.pack('>Q',m['timestamp'])+lp(H(m['ciphertext'])))
        assert h.hex()==e['messageHashes'][k]; ch=sha(b'veilkit-transcript-v2/update'+ch+h); assert ch.hex()==e['chain'][k]
    n+=1
def pad_len(l):
    L=l+4
    if L<=64: return 64
    if L<=65536: return 1<<(L-1).bit_length()
    E=L.bit_length()-1; S=E.bit_length(); z=E-S; m=(1<<z)-1; return (L+m)&~m
for c in d['padding']:
    i,e=c['input'],c['expected']; l=i['contentLength']; content=bytes((31*j+7)%256 for j in range(l))
    p=struct.pack('>I',l)+content; p+=b'\0'*(pad_len(l)-len(p)); assert sha(p).hex()==e['paddedSha256'] and len(p)==e['paddedLength']; n+=1
for c in d['paddedAead']:
    i,e=c['input'],c['expected']; pt=H(i['plaintext']); p=struct.pack('>I',len(pt))+pt; p+=b'\0'*(pad_len(len(pt))-len(p))
    assert (H(i['iv'])+AESGCM(H(i['key'])).encrypt(H(i['iv']),p,H(i['aad']))).hex()==e['ciphertext']; n+=1
for c in d['chunked']:
    i,e=c['input'],c['expected']; pt=H(i['plaintext']); cs=i['chunkSize']; chunks=[pt[j:j+cs] for j in range(0,len(pt),cs)] or [b'']
    cnt=len(chunks); out=struct.pack('>II',cs,cnt); ivs=H(i['ivs'])
    for j,ch in enumerate(chunks):
        iv=ivs[12*j:12*j+12]; out+=iv+AESGCM(H(i['key'])).encrypt(iv,ch,H(i['aad'])+struct.pack('>III',j,cnt,cs))
    assert out.hex()==e['ciphertext']; n+=1
for c in d['sealed']:
    i,e=c['input'],c['expected']; rpk=xpub(H(i['recipientX25519Secret'])); eph=H(i['ephemeralSecret']); epk=xpub(eph)
    sid=H(i['senderId']); content=H(i['content']); seed=H(i['senderSigningSeed'])
    sig=Ed25519PrivateKey.from_private_bytes(seed).sign(b'veilkit-sealed-v1'+rpk+struct.pack('>H',len(sid))+sid+content)
    inner=struct.pack('>H',len(sid))+sid+sig+content; p=struct.pack('>I',len(inner))+inner; p+=b'\0'*(pad_len(len(inner))-len(p))
    K=hkdf(dh(eph,rpk),epk+rpk,b'veilkit-sealed-sender-v1')
    assert (epk+H(i['iv'])+AESGCM(K).encrypt(H(i['iv']),p,epk+rpk)).hex()==e['packet']; n+=1
def ident(k): return (b'\x01'+H(k['ed25519'])+H(k['mlDsa65'])+H(k['x25519'])) if k['mlDsa65'] else (b'\x00'+H(k['ed25519'])+H(k['x25519']))
lp=lambda x: struct.pack('>I',len(x))+x
for c in d['verificationCode']:
    i,e=c['input'],c['expected']; a,b=ident(i['a']),ident(i['b']); assert a.hex()==e['identityA'] and b.hex()==e['identityB']; lo,hi=sorted([a,b])
    enc=lp(H(i['conversationId']))+lp(lo)+lp(hi); h=lambda t: sha(b'veilkit-verification-v2'+bytes([t])+enc)
    D=h(0)+h(1); num=' '.join('%05d'%(int.from_bytes(D[5*j:5*j+5],'big')%100000) for j in range(12))
    assert num==e['numeric'] and h(2).hex()==e['fingerprint']; n+=1
for c in d['sas']:
    i,e=c['input'],c['expected']; ini,res=ident(i['initiator']),ident(i['responder']); tx=H(i['txId'])
    assert sha(b'veilkit-sas-commit-v1'+lp(tx)+lp(res)+H(i['responderNonce'])).hex()==e['commitment']
    assert sha(b'veilkit-sas-v1'+lp(tx)+lp(ini)+lp(res)+H(i['initiatorNonce'])+H(i['responderNonce'])).hex()==e['sas']; n+=1
for c in d['keyLog']:
    i,e=c['input'],c['expected']; entries=json.loads(e['json']); prev=b'\0'*32
    for k,(op,en) in enumerate(zip(i['ops'],entries)):
        act={'add':1,'update':2,'revoke':3}[op['action']]; uid=H(op['userId']); pk=edpub(H(op['publicKeySeed']))
        body=b'veilkit-keylog-v2'+bytes([act])+struct.pack('>H',len(uid))+uid+pk+struct.pack('>Q',op['timestamp'])+prev
        sig=Ed25519PrivateKey.from_private_bytes(H(op['signingSeed'])).sign(body)
        assert en['version']==2 and b64d(en['signature'])==sig and b64d(en['publicKey'])==pk and b64d(en['prevHash'])==prev
        pop=Ed25519PrivateKey.from_private_bytes(H(op['publicKeySeed'])).sign(b'veilkit-keylog-pop-v2'+body) if act!=3 else b''
        assert ('keySignature' in en)==(act!=3) and (act==3 or b64d(en['keySignature'])==pop)
        prev=sha(body+sig+pop); assert prev.hex()==e['entryHashes'][k]
    n+=1
for c in d['registry']:
    i,e=c['input'],c['expected']; r=json.loads(e['json']); acct=edpub(H(i['accountSeed'])); assert b64d(r['accountKey'])==acct; prev=b'\0'*32
    for op,ch in zip(i['ops'],r['changes']):
        did=op['deviceId'].encode()
        body=b'veilkit-registry-v1'+acct+prev+bytes([1 if op['op']=='add' else 2])+struct.pack('>Q',op['at'])+struct.pack('>H',len(did))+did
        if op['op']=='add':
            nm=op['name'].encode(); pk=H(op['devicePublicKey']); body+=struct.pack('>H',len(nm))+nm+struct.pack('>H',len(pk))+pk
        sig=Ed25519PrivateKey.from_private_bytes(H(i['accountSeed'])).sign(body); assert b64d(ch['signature'])==sig
        prev=sha(body+sig)
    n+=1
for c in d['authenticatedKem']:
    i,e=c['input'],c['expected']; full=H(e['ciphertext']); ct=full[2:1090]; spk=xpub(H(i['senderX25519Secret'])); rpk=xpub(H(i['recipientX25519Secret']))
    Ed25519PublicKey.from_public_bytes(edpub(H(i['senderIdentitySeed']))).verify(full[1090:], b'veilkit-akem-v1'+spk+rpk+ct); n+=1
print("python cross-check ok:", n)
from cryptography.hazmat.primitives.asymmetric import mlkem
m=0
for c in d['hybridKem']:
    i,e=c['input'],c['expected']; sk=mlkem.MLKEM768PrivateKey.from_seed_bytes(H(i['recipientMlKemSeed']))
    ss=sk.decapsulate(H(e['mlKemCiphertext'])); spk=xpub(H(i['senderX25519Secret'])); rpk=xpub(H(i['recipientX25519Secret']))
    k=hkdf(dh(H(i['recipientX25519Secret']),spk)+ss,b'',b'veilkit-hybrid-kem-v1'+spk+rpk+H(e['mlKemCiphertext'])); assert k.hex()==e['sharedKey']; m+=1
for c in d['authenticatedKem']:
    i,e=c['input'],c['expected']; sk=mlkem.MLKEM768PrivateKey.from_seed_bytes(H(i['recipientMlKemSeed'])); full=H(e['ciphertext']); ct=full[2:1090]
    ss=sk.decapsulate(ct); spk=xpub(H(i['senderX25519Secret'])); rpk=xpub(H(i['recipientX25519Secret'])); idpk=edpub(H(i['senderIdentitySeed']))
    k=hkdf(dh(H(i['recipientX25519Secret']),spk)+ss,b'',b'veilkit-akem-v1'+idpk+spk+rpk+ct); assert k.hex()==e['sharedSecret']; m+=1
print("ml-kem cross-check ok:", m)
