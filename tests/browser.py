"""Headless Chromium driven through the DevTools protocol over a pipe (``--remote-debugging-pipe``: no port, no
websocket library): open a page at a window width, wait for its script, read element geometry with JavaScript,
screenshot it. The HTML tests (tests/test_reports.py) use it to check a page's layout, not its pixels."""

from __future__ import annotations

import base64
import json
import os
import select
import subprocess
import time
from pathlib import Path


class BrowserError(RuntimeError):
    pass


class Page:
    """One Chromium with one page, at ``width`` x ``height`` CSS pixels (device scale 1). A context manager."""

    def __init__(self, chromium: str, width: int, height: int = 1200, timeout: float = 60.0):
        self.width, self.height, self.timeout = width, height, timeout
        self.log: list[str] = []  # console messages, uncaught exceptions, refusals of the page's policy
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def _fds():  # Chromium reads commands on fd 3 and answers on fd 4
            r, w = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(r, 3)
            os.dup2(w, 4)

        self._proc = subprocess.Popen(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--remote-debugging-pipe",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            pass_fds=(3, 4),
            preexec_fn=_fds,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buf, self._next_id, self._events = b"", 0, []
        target = next(t for t in self._call("Target.getTargets")["targetInfos"] if t["type"] == "page")
        self._session = self._call("Target.attachToTarget", targetId=target["targetId"], flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    def __enter__(self) -> Page:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait(timeout=30)
        for fd in (self._to_chrome, self._from_chrome):
            try:
                os.close(fd)
            except OSError:
                pass

    # -- the protocol --------------------------------------------------------------------------------------------

    def _send(self, method: str, params: dict, session: str | None) -> int:
        self._next_id += 1
        msg = {"id": self._next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self._to_chrome, json.dumps(msg).encode() + b"\0")
        return self._next_id

    def _message(self, deadline: float) -> dict:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or self._proc.poll() is not None:
                raise BrowserError("Chromium did not answer in time" if left <= 0 else "Chromium exited")
            ready, _, _ = select.select([self._from_chrome], [], [], min(left, 1.0))
            if ready:
                self._buf += os.read(self._from_chrome, 1 << 20)
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def _call(self, method: str, session: str | None = None, **params):
        wanted = self._send(method, params, session)
        deadline = time.monotonic() + self.timeout
        while True:
            msg = self._message(deadline)
            if msg.get("id") == wanted:
                if "error" in msg:
                    raise BrowserError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self._event(msg)

    def _event(self, msg: dict) -> None:
        method, params = msg.get("method"), msg.get("params", {})
        if method == "Runtime.consoleAPICalled":
            self.log.append("console: " + " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"]))
        elif method == "Runtime.exceptionThrown":
            self.log.append("exception: " + json.dumps(params["exceptionDetails"])[:500])
        elif method == "Log.entryAdded":
            self.log.append(f"{params['entry']['source']}: {params['entry']['text']}")
        self._events.append(method)

    def call(self, method: str, **params):
        """A DevTools command on the page; its result."""
        return self._call(method, self._session, **params)

    # -- what a test does ------------------------------------------------------------------------------------------

    def open(self, path: Path, ready: str = "document.body && document.body.hasAttribute('data-rendered')") -> None:
        """Load ``path`` and wait until the JavaScript expression ``ready`` holds (the page's script has drawn)."""
        self.call("Page.navigate", url=path.resolve().as_uri())
        deadline = time.monotonic() + self.timeout
        while not self.evaluate(f"!!({ready})"):
            if time.monotonic() > deadline:
                raise BrowserError(f"{path.name}: not ready after {self.timeout:.0f} s ({ready})")
            time.sleep(0.1)

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page (JSON-able)."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression[:80]}: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def screenshot(self, out: Path) -> Path:
        """The whole page as a PNG."""
        height = int(self.evaluate("document.documentElement.scrollHeight"))
        shot = self.call(
            "Page.captureScreenshot",
            format="png",
            captureBeyondViewport=True,
            clip={"x": 0, "y": 0, "width": self.width, "height": height, "scale": 1},
        )
        out.write_bytes(base64.b64decode(shot["data"]))
        return out
