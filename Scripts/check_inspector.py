#!/usr/bin/env python3
"""The inspector page in a real browser (run by .ci/run).

Starts `multiauth serve` as a separate process on a free loopback port, starts a Dynamic e-mail
sign-in over HTTP (the emulated backend's create endpoint, as the adapter sends it), then loads
the inspector page at `/` in headless Chromium (Debian's `chromium` package): the DOM Chromium
renders after the page's script ran must show the delivered code in the inbox, and a
screenshot of the page is kept as a test artifact (not committed; its path is printed).

  python3 Scripts/check_inspector.py [--multiauth .build/debug/multiauth] [--out .build/inspector]

Exit 0 when the code is on the rendered page; 1 otherwise (the DOM is printed).
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENVIRONMENT = "6b1c2d3e-0000-4000-8000-00000000d7a1"  # DynamicBackend.defaultEnvironmentID


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise SystemExit("check_inspector: no Chromium; install Debian's package: apt-get install chromium")


def post(url, body):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, json.loads(response.read() or b"null")


def get(url):
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


def browser(binary, profile, *arguments):
    command = [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
               "--no-first-run", "--user-data-dir=" + profile, "--hide-scrollbars", "--window-size=1400,1000",
               "--virtual-time-budget=4000", *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--multiauth", default=os.path.join(ROOT, ".build", "debug", "multiauth"))
    parser.add_argument("--out", default=os.path.join(ROOT, ".build", "inspector"))
    arguments = parser.parse_args()
    binary = chromium()
    os.makedirs(arguments.out, exist_ok=True)
    screenshot = os.path.join(arguments.out, "inspector.png")
    if os.path.exists(screenshot):
        os.remove(screenshot)
    server = subprocess.Popen([arguments.multiauth, "serve"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True)
    profile = tempfile.mkdtemp(prefix="multiauth-chromium-")
    try:
        url = server.stdout.readline().strip()
        if not url.startswith("http://127.0.0.1:"):
            raise SystemExit(f"check_inspector: the server's first line is not its URL: {url!r}")
        status, answer = post(f"{url}/app.dynamic.test/api/v0/sdk/{ENVIRONMENT}/emailVerifications/create",
                              {"email": "ada@example.com"})
        assert status == 201 and "verificationUUID" in answer, (status, answer)
        code = get(f"{url}/_multiauth/inbox/ada@example.com")["latest"]["code"]
        dom = browser(binary, profile, "--dump-dom", url + "/").stdout
        shot = browser(binary, profile, "--screenshot=" + screenshot, url + "/")
        problems = []
        if code not in dom:
            problems.append(f"the delivered code {code} is not on the rendered page")
        if "ada@example.com" not in dom or "delivered" not in dom:
            problems.append("the inbox row (destination, status) is not on the rendered page")
        if not os.path.exists(screenshot) or os.path.getsize(screenshot) < 10_000:
            problems.append(f"no screenshot was written ({shot.stderr.strip()[-300:]})")
        if problems:
            print(dom[:4000])
            print("check_inspector: " + "; ".join(problems))
            return 1
        print(f"check_inspector: headless {subprocess.run([binary, '--version'], capture_output=True, text=True).stdout.strip()}"
              f" shows the delivered code {code} for ada@example.com on {url}/")
        print(f"check_inspector: screenshot {screenshot}")
        return 0
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            status = server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            status = "killed"
        shutil.rmtree(profile, ignore_errors=True)
        if status != 0:
            print(f"check_inspector: the server did not stop cleanly on SIGTERM (status {status})")


if __name__ == "__main__":
    sys.exit(main())
