"""X.509 certificates for the Pages domains area, without the `cryptography` package (it is not a
dependency): a small DER reader takes a PEM certificate's subject and validity, a small DER writer makes
the seed's certificates (structurally valid, signed with nothing), and `certificate_text()` renders the
part of `openssl x509 -text` that GitLab's `certificate_text` shows.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from datetime import UTC, datetime

_PEM = re.compile(r"-----BEGIN CERTIFICATE-----\s*(.+?)\s*-----END CERTIFICATE-----", re.S)
_KEY = re.compile(r"-----BEGIN (?:RSA |EC )?PRIVATE KEY-----\s*(.+?)\s*"
                  r"-----END (?:RSA |EC )?PRIVATE KEY-----", re.S)
_NAMES = {"2.5.4.3": "CN", "2.5.4.6": "C", "2.5.4.7": "L", "2.5.4.8": "ST", "2.5.4.10": "O",
          "2.5.4.11": "OU"}
_OIDS = {short: oid for oid, short in _NAMES.items()}


class CertificateError(ValueError):
    """Not a PEM certificate this reader understands."""


@dataclass(frozen=True)
class CertificateInfo:
    subject: list[tuple[str, str]]
    not_before: datetime
    not_after: datetime

    @property
    def subject_line(self) -> str:
        """OpenSSL's one-line form, as GitLab shows `subject`: `/O=Acme/CN=docs.acme.test`."""
        return "".join(f"/{key}={value}" for key, value in self.subject)


# --- DER reading ----------------------------------------------------------------------------------------

def _tlv(data: bytes, pos: int) -> tuple[int, bytes, int]:
    """(tag, content, next position) of the element at `pos`."""
    if pos + 2 > len(data):
        raise CertificateError("truncated DER")
    tag, length = data[pos], data[pos + 1]
    pos += 2
    if length & 0x80:
        count = length & 0x7F
        if count == 0 or count > 4 or pos + count > len(data):
            raise CertificateError("bad DER length")
        length = int.from_bytes(data[pos:pos + count], "big")
        pos += count
    if pos + length > len(data):
        raise CertificateError("truncated DER")
    return tag, data[pos:pos + length], pos + length


def _children(content: bytes) -> list[tuple[int, bytes]]:
    out, pos = [], 0
    while pos < len(content):
        tag, value, pos = _tlv(content, pos)
        out.append((tag, value))
    return out


def _oid(value: bytes) -> str:
    parts = [value[0] // 40, value[0] % 40]
    number = 0
    for byte in value[1:]:
        number = (number << 7) | (byte & 0x7F)
        if not byte & 0x80:
            parts.append(number)
            number = 0
    return ".".join(str(p) for p in parts)


def _time(tag: int, value: bytes) -> datetime:
    text = value.decode("ascii")
    if tag == 0x17:  # UTCTime YYMMDDHHMMSSZ
        year = int(text[:2])
        text = f"{1900 + year if year >= 50 else 2000 + year}{text[2:]}"
    try:
        return datetime.strptime(text, "%Y%m%d%H%M%SZ").replace(tzinfo=UTC)
    except ValueError:
        raise CertificateError("bad certificate time") from None


def _name(content: bytes) -> list[tuple[str, str]]:
    out = []
    for _, rdn in _children(content):
        for _, attribute in _children(rdn):
            (_, oid), (_, value) = _children(attribute)[:2]
            key = _NAMES.get(_oid(oid), _oid(oid))
            out.append((key, value.decode("utf-8", "replace")))
    return out


def pem_blocks(pem: str) -> list[bytes]:
    """The DER of every certificate in a PEM text (leaf first)."""
    try:
        return [base64.b64decode("".join(body.split()), validate=True) for body in _PEM.findall(pem)]
    except ValueError:
        raise CertificateError("bad base64") from None


def parse_certificate(pem: str) -> CertificateInfo:
    """Subject and validity of the first certificate of `pem`; `CertificateError` when unreadable."""
    blocks = pem_blocks(pem)
    if not blocks:
        raise CertificateError("no certificate")
    try:
        _, certificate, _ = _tlv(blocks[0], 0)
        _, tbs = _children(certificate)[0]
        fields = _children(tbs)
        if fields and fields[0][0] == 0xA0:  # [0] version
            fields = fields[1:]
        (_, validity), (_, subject) = fields[3], fields[4]
        (tag1, before), (tag2, after) = _children(validity)[:2]
        return CertificateInfo(_name(subject), _time(tag1, before), _time(tag2, after))
    except (IndexError, ValueError, UnicodeDecodeError) as exc:
        raise CertificateError(str(exc) or "unreadable certificate") from None


def is_private_key(pem: str) -> bool:
    return _KEY.search(pem) is not None


def certificate_text(info: CertificateInfo) -> str:
    """The head of `openssl x509 -text` for the certificate."""
    def when(value: datetime) -> str:
        return f"{value:%b} {value.day:2d} {value:%H:%M:%S %Y} GMT"

    subject = ", ".join(f"{key} = {value}" for key, value in info.subject)
    return ("Certificate:\n    Data:\n        Version: 3 (0x2)\n"
            f"        Validity\n            Not Before: {when(info.not_before)}\n"
            f"            Not After : {when(info.not_after)}\n        Subject: {subject}\n")


# --- DER writing (seed certificates) --------------------------------------------------------------------

def _der(tag: int, content: bytes) -> bytes:
    length = len(content)
    if length < 0x80:
        head = bytes([length])
    else:
        raw = length.to_bytes((length.bit_length() + 7) // 8, "big")
        head = bytes([0x80 | len(raw)]) + raw
    return bytes([tag]) + head + content


def _oid_bytes(oid: str) -> bytes:
    numbers = [int(n) for n in oid.split(".")]
    out = bytearray([numbers[0] * 40 + numbers[1]])
    for number in numbers[2:]:
        chunk = [number & 0x7F]
        number >>= 7
        while number:
            chunk.append(0x80 | (number & 0x7F))
            number >>= 7
        out.extend(reversed(chunk))
    return _der(0x06, bytes(out))


def _name_der(subject: list[tuple[str, str]]) -> bytes:
    rdns = b"".join(_der(0x31, _der(0x30, _oid_bytes(_OIDS[key]) + _der(0x0C, value.encode())))
                    for key, value in subject)
    return _der(0x30, rdns)


def make_certificate(subject: list[tuple[str, str]], not_before: datetime, not_after: datetime,
                     serial: int = 1) -> str:
    """A PEM certificate with this subject (also the issuer) and validity; the signature is zeros."""
    algorithm = _der(0x30, _oid_bytes("1.2.840.113549.1.1.11") + b"\x05\x00")
    validity = _der(0x30, _der(0x18, not_before.strftime("%Y%m%d%H%M%SZ").encode())
                    + _der(0x18, not_after.strftime("%Y%m%d%H%M%SZ").encode()))
    key_info = _der(0x30, _der(0x30, _oid_bytes("1.2.840.10045.2.1")) + _der(0x03, b"\x00" + b"\x04" * 65))
    tbs = _der(0x30, _der(0xA0, _der(0x02, b"\x02")) + _der(0x02, serial.to_bytes(8, "big"))
               + algorithm + _name_der(subject) + validity + _name_der(subject) + key_info)
    der = _der(0x30, tbs + algorithm + _der(0x03, b"\x00" + bytes(64)))
    body = base64.b64encode(der).decode()
    lines = "\n".join(body[i:i + 64] for i in range(0, len(body), 64))
    return f"-----BEGIN CERTIFICATE-----\n{lines}\n-----END CERTIFICATE-----\n"


def make_private_key(seed: str) -> str:
    """A PEM block shaped like a private key (the sandbox never uses it)."""
    body = base64.b64encode(seed.encode().ljust(48, b"\x00")).decode()
    return f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----\n"
