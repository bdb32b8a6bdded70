"""WebDriver helpers for the desktop tests: a WebKitWebDriver session on the real app binary
under Xvfb, scripts run in the page, and screenshots of the X screen (xwd → PNG).

Used by desktop.py (the development build) and package.py (the installed package). Only the
standard library is used.
"""

import json
import os
import socket
import struct
import subprocess
import time
import urllib.error
import urllib.request
import zlib


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


PORT = free_port()
BASE = f"http://127.0.0.1:{PORT}"


def wd(method, path, body=None, timeout=120):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(BASE + path, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.load(r).get("value")
    except urllib.error.HTTPError as e:
        raise AssertionError(f"WebDriver {method} {path}: {e.code} {e.read().decode()[:400]}") from None


class Session:
    def __init__(self, sid, out):
        self.sid, self.out = sid, out

    def js(self, script, *args):
        return wd("POST", f"/session/{self.sid}/execute/sync", {"script": script, "args": list(args)})

    def wait(self, script, what, timeout=90.0):
        end = time.time() + timeout
        last = None
        while time.time() < end:
            try:
                last = self.js(script)
            except (AssertionError, TimeoutError) as e:
                last = f"{type(e).__name__}: {e}"
            if last:
                return last
            time.sleep(0.3)
        self.shot("failure")
        raise AssertionError(f"timed out waiting for {what} (last: {last!r})")

    def find(self, css):
        el = wd("POST", f"/session/{self.sid}/element", {"using": "css selector", "value": css})
        return next(iter(el.values()))

    def click(self, css):
        wd("POST", f"/session/{self.sid}/element/{self.find(css)}/click", {})

    def type(self, css, text):
        wd("POST", f"/session/{self.sid}/element/{self.find(css)}/value", {"text": text})

    def shot(self, name):
        """Saves the X screen as <out>/name.png (evidence, not a check). WebKit's own WebDriver
        snapshot waits for a rendering update that an idle page under Xvfb may never produce,
        so the screen is read with xwd instead."""
        try:
            xwd = subprocess.run(["xwd", "-root", "-silent"], capture_output=True, timeout=30, check=True).stdout
            path = os.path.join(self.out, f"{name}.png")
            with open(path, "wb") as f:
                f.write(xwd_to_png(xwd))
            print(f"screenshot: {path}")
        except Exception as e:
            print(f"screenshot {name} failed: {e}")


def xwd_to_png(data):
    """Converts a 24- or 32-bit-per-pixel ZPixmap XWD image (what xwd writes for Xvfb) to PNG."""
    h = struct.unpack(">25I", data[:100])
    header_size, width, height = h[0], h[4], h[5]
    byte_order, bits_per_pixel, bytes_per_line = h[7], h[11], h[12]
    red_mask, green_mask, blue_mask, ncolors = h[14], h[15], h[16], h[19]
    assert bits_per_pixel in (24, 32), f"unsupported xwd depth {bits_per_pixel}"
    size = bits_per_pixel // 8
    pixels = data[header_size + 12 * ncolors:]
    endian = "little" if byte_order == 0 else "big"
    shift = lambda m: (m & -m).bit_length() - 1
    rs, gs, bs = shift(red_mask), shift(green_mask), shift(blue_mask)
    rows = bytearray()
    for y in range(height):
        line = pixels[y * bytes_per_line: y * bytes_per_line + size * width]
        rows.append(0)
        for x in range(0, len(line), size):
            p = int.from_bytes(line[x:x + size], endian)
            rows += bytes(((p & red_mask) >> rs, (p & green_mask) >> gs, (p & blue_mask) >> bs))
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(bytes(rows), 6)) + chunk(b"IEND", b""))


class launch:
    """Starts WebKitWebDriver with the app binary `app` on the library in `data` (None: the
    app's own default, as for a user), the app started with `args`, `env` added to the
    environment; yields (session id, Session). Logs and screenshots go to `out`."""

    def __init__(self, app, data, out, log_name, args=(), env=None):
        self.app, self.data, self.out, self.log_name, self.sid = app, data, out, log_name, None
        self.args, self.extra_env = list(args), dict(env or {})

    def __enter__(self):
        env = dict(os.environ, TAURI_WEBVIEW_AUTOMATION="true",
                   WEBKIT_DISABLE_DMABUF_RENDERER="1", WEBKIT_DISABLE_COMPOSITING_MODE="1",
                   GDK_BACKEND="x11")
        if self.data is not None:
            env["POLICYPAL_DATA_DIR"] = self.data
        env.update(self.extra_env)
        self.log = open(os.path.join(self.out, self.log_name), "w")
        self.driver = subprocess.Popen(["WebKitWebDriver", f"--port={PORT}", "--host=127.0.0.1"], env=env,
                                       stdout=self.log, stderr=self.log)
        try:
            for _ in range(100):
                try:
                    wd("GET", "/status", timeout=2)
                    break
                except Exception:
                    time.sleep(0.1)
            caps = {"capabilities": {"alwaysMatch": {"webkitgtk:browserOptions": {"binary": self.app, "args": self.args}}}}
            started = time.time()
            self.sid = wd("POST", "/session", caps)["sessionId"]
            s = Session(self.sid, self.out)
            s.wait("return document.querySelector('aside') && document.body.innerText.includes('PolicyPal')", "the window")
            print(f"window ready in {time.time() - started:.1f}s")
            return self.sid, s
        except BaseException:
            self.__exit__(None, None, None)
            raise

    def __exit__(self, *exc):
        if self.sid:
            try:
                wd("DELETE", f"/session/{self.sid}", timeout=20)
            except Exception as e:  # the app may already be gone; the driver is killed below
                print(f"closing the session: {e}")
        self.driver.terminate()
        self.driver.wait(timeout=20)
        self.log.close()
        return False
