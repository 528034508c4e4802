"""Real private keys for the third probe, derived from the probe's seeded random source so that the
rows are the same on every run: Ed25519 keys in OpenSSH's own format (written here, since the
library's writer draws its check words from the system's random source) and P-384 keys in SEC 1."""

import base64
import struct

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

from probe3_values import R


def _s(b):
    return struct.pack(">I", len(b)) + b


def openssh_ed25519():
    seed = bytes(R.randrange(256) for _ in range(32))
    k = ed25519.Ed25519PrivateKey.from_private_bytes(seed)
    pub = k.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    pub_blob = _s(b"ssh-ed25519") + _s(pub)
    check = struct.pack(">I", R.getrandbits(32)) * 2
    priv = check + pub_blob + _s(seed + pub) + _s(("ops@" + R.choice(["laptop", "build", "jump"])).encode())
    pad = 8 - len(priv) % 8
    priv += bytes(range(1, pad + 1)) if pad < 8 else b""
    blob = b"openssh-key-v1\x00" + _s(b"none") + _s(b"none") + _s(b"") + struct.pack(">I", 1) + _s(pub_blob) + _s(priv)
    body = base64.b64encode(blob).decode()
    lines = [body[i:i + 70] for i in range(0, len(body), 70)]
    return "-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n-----END OPENSSH PRIVATE KEY-----" % "\n".join(lines)


def ec_pem():
    n = R.getrandbits(380) + 1
    k = ec.derive_private_key(n, ec.SECP384R1())
    return k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                           serialization.NoEncryption()).decode().strip()


def ed25519_public_b64():
    """The public half of a derived Ed25519 key as an authorized_keys body."""
    k = ed25519.Ed25519PrivateKey.from_private_bytes(bytes(R.randrange(256) for _ in range(32)))
    pub = k.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return base64.b64encode(_s(b"ssh-ed25519") + _s(pub)).decode()


def ec_public_pem():
    k = ec.derive_private_key(R.getrandbits(380) + 1, ec.SECP384R1())
    return k.public_key().public_bytes(serialization.Encoding.PEM,
                                       serialization.PublicFormat.SubjectPublicKeyInfo).decode().strip()
