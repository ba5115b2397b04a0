"""Headless Chromium driven through the DevTools protocol over a pipe (`--remote-debugging-pipe`:
commands on the browser's file descriptor 3, replies and events on 4, each a JSON text ended by
a NUL byte), with nothing but the standard library: open a page, evaluate JavaScript in it, move
the mouse, take screenshots, and collect the console's errors and the page's uncaught exceptions.

WebGL runs without a GPU on SwiftShader, Chromium's software renderer.
"""

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--hide-scrollbars",
    "--mute-audio",
    "--remote-debugging-pipe",
]


class BrowserError(Exception):
    pass


class Browser:
    """One headless Chromium with one page (a tab) of `width` x `height` CSS pixels."""

    def __init__(self, width=960, height=640):
        self.profile = tempfile.mkdtemp(prefix="fmu3d-chromium-")
        commands_read, self._commands = os.pipe()
        self._replies, replies_write = os.pipe()

        def descriptors():
            # Through fresh copies: a pipe may itself be 3 or 4, and dup2 onto the same number
            # would keep its close-on-exec flag.
            commands, replies = os.dup(commands_read), os.dup(replies_write)
            os.dup2(commands, 3)
            os.dup2(replies, 4)

        self.process = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=False,
            preexec_fn=descriptors,
        )
        os.close(commands_read)
        os.close(replies_write)
        self._buffer = b""
        self._next_id = 0
        self.events = []
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable", session=True)
        self.send("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    # --- the protocol ---------------------------------------------------------------------

    def _read_message(self, deadline):
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise BrowserError("Chromium did not answer in time")
            chunk = os.read(self._replies, 1 << 20)
            if not chunk:
                raise BrowserError(f"Chromium ended (exit status {self.process.poll()})")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, session=False, timeout=60, **params):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    # --- what the tests use -----------------------------------------------------------------

    def evaluate(self, expression, timeout=60):
        """The value of a JavaScript expression in the page (a Promise is awaited)."""
        result = self.send("Runtime.evaluate", session=True, timeout=timeout, expression=expression,
                           awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression, timeout=60):
        """Evaluates `expression` until it is true; its last value."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                value = self.evaluate(expression)
            except BrowserError as error:  # e.g. while the page is being replaced
                value, last = None, error
            else:
                last = value
            if value:
                return value
            if time.monotonic() > deadline:
                raise BrowserError(f"waited {timeout} s for {expression}: {last}")
            time.sleep(0.05)

    def open(self, url):
        self.send("Page.navigate", session=True, url=url)

    def screenshot(self, path=None):
        """A PNG of the page's viewport (bytes), also written to `path` if given."""
        data = base64.b64decode(self.send("Page.captureScreenshot", session=True, format="png")["data"])
        if path is not None:
            Path(path).write_bytes(data)
        return data

    def move_mouse(self, x, y):
        self.send("Input.dispatchMouseEvent", session=True, type="mouseMoved", x=x, y=y)

    def errors(self):
        """The console's errors and the uncaught exceptions seen so far, as text."""
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append(" ".join(str(a.get("value", a.get("description", ""))) for a in params["args"]))
            elif method == "Runtime.exceptionThrown":
                details = params["exceptionDetails"]
                found.append(details.get("exception", {}).get("description", details.get("text", "")))
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                found.append(f"{params['entry'].get('source')}: {params['entry'].get('text')}")
        return found

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except BrowserError:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._commands)
        os.close(self._replies)
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
