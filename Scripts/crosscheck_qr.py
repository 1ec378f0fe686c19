#!/usr/bin/env python3
"""Cross-checks MultiAuthQR's QR encoder against reference implementations (dev/CI only).

The Swift test `QRCodeTests` compares our module matrices, module for module, with
Tests/Fixtures/QR/qr_reference.json. This script writes and checks that fixture:

* matrices come from python-qrcode (byte mode, level M, smallest version, a forced mask):
  it pads the data stream exactly as ISO/IEC 18004:2015 §7.4.10 says;
* the expected automatic mask is the one with the lowest penalty under segno's evaluation
  (ISO/IEC 18004:2015 §7.8.3: N1-N4, scored before format and version information is
  placed), applied to python-qrcode's masked matrices with the format/version areas and the
  dark module cleared;
* where segno's own output is comparable, it must equal the fixture: segno appends one extra
  zero codeword when the data stream ends on a byte boundary after the terminator (it pads
  with `8 - len % 8` bits), so for those inputs only python-qrcode is used;
* every fixture matrix (4-module quiet zone, 4 px per module) is decoded with zxing-cpp and
  must give back the text.

Usage: python3 Scripts/crosscheck_qr.py           # check (exit 1 on any difference)
       python3 Scripts/crosscheck_qr.py --write   # regenerate the fixture
Needs: qrcode, segno, zxing-cpp (Scripts/requirements-dev.txt).
"""
import json
import pathlib
import sys

import qrcode
import qrcode.util
import segno
import segno.encoder
import zxingcpp

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "Tests" / "Fixtures" / "QR" / "qr_reference.json"

# Docs/Cases.md, B12: the canonical enrolment URI.
B12 = ("otpauth://totp/Acme%20Co:user%40example.com?secret=JBSWY3DPEHPK3PXP"
       "&issuer=Acme%20Co&algorithm=SHA1&digits=6&period=30")
INPUTS = [
    # (text, forced masks to record besides the automatic choice)
    ("HELLO", []),
    ("otpauth://totp/A?secret=JBSWY3DPEHPK3PXP", []),
    (B12, list(range(8))),
    ("otpauth://totp/Portal:end-user-7f3a9c2e%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
     "&issuer=Portal&algorithm=SHA1&digits=6&period=30", []),
    ("otpauth://totp/Example%20Corporation%20International:a.very.long.account.name%2Bwith.tags"
     "%40subdomain.example.co.uk?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA"
     "&issuer=Example%20Corporation%20International&algorithm=SHA256&digits=8&period=60", []),
    ("https://example.com/" + "0123456789abcdef" * 20, list(range(8))),
    ("x" * 500, []),
]


def reference(text, mask):
    qr = qrcode.QRCode(version=None, error_correction=qrcode.constants.ERROR_CORRECT_M, border=0, mask_pattern=mask)
    qr.add_data(qrcode.util.QRData(text.encode("utf-8"), mode=qrcode.util.MODE_8BIT_BYTE), optimize=0)
    qr.make(fit=True)
    return qr.version, ["".join("1" if module else "0" for module in row) for row in qr.modules]


def penalty(rows, version):
    """segno's N1-N4 score of a masked matrix, format/version areas and dark module light."""
    size = len(rows)
    m = [bytearray(int(c) for c in row) for row in rows]
    for i in range(9):
        m[i][8] = m[8][i] = 0
    for i in range(8):
        m[size - 1 - i][8] = m[8][size - 1 - i] = 0
    if version >= 7:
        for i in range(6):
            for k in range(size - 11, size - 8):
                m[i][k] = m[k][i] = 0
    return segno.encoder.evaluate_mask(tuple(m), size, size)


def segno_rows(text):
    code = segno.make_qr(text, error="m", mode="byte", boost_error=False)
    return code.mask, ["".join("1" if module else "0" for module in row) for row in code.matrix]


def segno_pads_extra(text, version):
    count_bits = 8 if version <= 9 else 16
    capacity = qrcode.util.BIT_LIMIT_TABLE[qrcode.constants.ERROR_CORRECT_M][version]
    length = 4 + count_bits + 8 * len(text.encode("utf-8"))
    length += min(4, capacity - length)
    return length % 8 == 0 and length < capacity


def build():
    cases = []
    for text, masks in INPUTS:
        by_mask = [reference(text, m) for m in range(8)]
        version = by_mask[0][0]
        scores = [penalty(rows, version) for _, rows in by_mask]
        best = scores.index(min(scores))
        case = {"text": text, "version": version, "mask": best, "rows": by_mask[best][1],
                "forced": [{"mask": m, "rows": by_mask[m][1]} for m in masks]}
        cases.append(case)
    return {"generator": f"python-qrcode {qrcode.__version__ if hasattr(qrcode, '__version__') else '8'}, "
                         f"segno {segno.__version__} mask evaluation", "level": "M", "mode": "byte", "cases": cases}


def decode(rows, quiet=4, scale=4):
    size = len(rows) + 2 * quiet
    pixels = bytearray(b"\xff" * (size * scale) ** 2)
    width = size * scale
    for r, row in enumerate(rows):
        for c, bit in enumerate(row):
            if bit == "1":
                for dy in range(scale):
                    start = ((r + quiet) * scale + dy) * width + (c + quiet) * scale
                    pixels[start:start + scale] = b"\x00" * scale
    view = memoryview(bytes(pixels)).cast("B", (width, width))
    results = zxingcpp.read_barcodes(view, formats=zxingcpp.BarcodeFormat.QRCode)
    return [result.text for result in results]


def main():
    fresh = build()
    if "--write" in sys.argv:
        FIXTURE.write_text(json.dumps(fresh, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {FIXTURE.relative_to(ROOT)}")
    committed = json.loads(FIXTURE.read_text(encoding="utf-8"))
    failures = []
    if committed["cases"] != fresh["cases"]:
        failures.append("committed fixture differs from segno's output (run with --write and review)")
    checked = 0
    for case in committed["cases"]:
        if not segno_pads_extra(case["text"], case["version"]):
            mask, rows = segno_rows(case["text"])
            if (mask, rows) != (case["mask"], case["rows"]):
                failures.append(f"version {case['version']}: segno disagrees (mask {mask} vs {case['mask']})")
        for symbol in [case] + case["forced"]:
            checked += 1
            texts = decode(symbol["rows"])
            if texts != [case["text"]]:
                failures.append(f"version {case['version']} mask {symbol['mask']}: zxing-cpp read {len(texts)} codes, "
                                f"{'wrong text' if texts else 'none'}")
    for failure in failures:
        print("FAIL", failure)
    print(f"{checked} symbols checked: {'OK' if not failures else 'FAILED'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
