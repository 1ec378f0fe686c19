#!/usr/bin/env python3
"""Writes the archives of the Truecaller one-tap contract fixtures with an independent
writer: Python's plistlib (binary format, `plistlib.UID` for archive references), laid out as
NSKeyedArchiver lays out an archive (Docs/Providers/Truecaller.md, "One-tap hand-off").

The Swift reader (`KeyedArchive` in MultiAuthCrypto) must read these bytes; the adapter's and
the emulated Truecaller app's own writer is checked against the same field lists. Keys, class
names and constants come from TrueSDK (`truecaller/ios-sdk` at
165b1095a831f66ef185dea4cb6187d1788ae016: `TCTrueProfileRequest.m`, `TCTrueProfileResponse.m`,
`TCError.m`, `TCVersion.m`); the values are ours.

    python3 Scripts/generate_onetap_fixtures.py     rewrites Tests/Fixtures/Contracts/Truecaller/OneTap/archives.json
"""
import base64
import json
import os
import plistlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests", "Fixtures", "Contracts", "Truecaller", "OneTap", "archives.json")


def archive(classes, fields, inline=()):
    """One root object: fields reference `$objects` entries, except `inline` integer keys."""
    objects = ["$null"]
    root = {}
    objects.append(root)
    for key, value in fields.items():
        if key in inline:
            root[key] = value
        elif value is None:
            root[key] = plistlib.UID(0)
        elif isinstance(value, dict):
            index = len(objects)
            objects.append(None)
            keys = [plistlib.UID(len(objects) + i) for i in range(len(value))]
            objects.extend(value.keys())
            vals = []
            for item in value.values():
                vals.append(plistlib.UID(len(objects)))
                objects.append(item)
            objects.append({"$classname": "NSDictionary", "$classes": ["NSDictionary", "NSObject"]})
            objects[index] = {"NS.keys": keys, "NS.objects": vals, "$class": plistlib.UID(len(objects) - 1)}
            root[key] = plistlib.UID(index)
        else:
            root[key] = plistlib.UID(len(objects))
            objects.append(value)
    objects.append({"$classname": classes[0], "$classes": classes})
    root["$class"] = plistlib.UID(len(objects) - 1)
    document = {"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": plistlib.UID(1)},
                "$objects": objects}
    return base64.b64encode(plistlib.dumps(document, fmt=plistlib.FMT_BINARY, sort_keys=True)).decode()


def main():
    request_fields = {
        "appId": "com.example.onetap", "appKey": "fixture-app-key", "appLink": "https://si0000fixture.truecallerdevs.com",
        "appName": "Fixture", "requestNonce": "4F7C2B9A-1D3E-4A5B-8C6D-7E8F9A0B1C2D", "apiVersion": "1.0",
        "sdkVersion": "0.1.8", "titleType": 2, "locale": "en_US", "urlScheme": "truecallersdk-fixture-app-key",
    }
    response_fields = {
        "payload": "eyJyZXF1ZXN0Tm9uY2UiOiJGSVhUVVJFIn0=", "signature": "c2lnbmF0dXJl",
        "signatureAlgorithm": "SHA512withRSA", "requestNonce": "4F7C2B9A-1D3E-4A5B-8C6D-7E8F9A0B1C2D",
    }
    error_fields = {"NSCode": 3, "NSDomain": "TrueSDKErrorDomain",
                    "NSUserInfo": {"NSLocalizedDescription": "User cancelled operation"}}
    document = {
        "generator": "Scripts/generate_onetap_fixtures.py (Python plistlib, binary format)",
        "request": {"fields": request_fields,
                    "archive": archive(["TCTrueProfileRequest", "NSObject"], request_fields)},
        "response": {"fields": response_fields,
                     "archive": archive(["TCTrueProfileResponse", "NSObject"], response_fields)},
        "error": {"fields": {"NSCode": 3, "NSDomain": "TrueSDKErrorDomain"},
                  "archive": archive(["TCError", "NSError", "NSObject"], error_fields, inline=("NSCode",))},
    }
    with open(OUT, "w") as handle:
        json.dump(document, handle, indent=2, sort_keys=True)
        handle.write("\n")
    print("wrote", os.path.relpath(OUT, ROOT))


if __name__ == "__main__":
    main()
