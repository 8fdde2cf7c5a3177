#!/usr/bin/env python3
"""Drives the review page (OUT/index.html) in a real headless Chromium and reports what it saw, as JSON.

Usage: review_page_driver.py URL --video ID --unplayable ID --shots DIR [--overlays ID]

Chromium is started with a temporary profile and spoken to over --remote-debugging-pipe (the DevTools protocol
on file descriptors 3 and 4: no port, nothing listening), and stopped by its process id whatever happens. The
driver only acts and observes: the Swift test (ReviewPageTests) compares what it reports with the thumbnail track
the job wrote. Standard library only.
"""
import argparse
import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

CHROMIUM = "/usr/bin/chromium"
WINDOW = (1280, 900)


class Browser:
    """One Chromium process and a session on its one page."""

    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="framefarm-chromium-")
        to_browser_read, self.to_browser = os.pipe()
        self.from_browser, from_browser_write = os.pipe()

        def wire_pipes():  # in the child: its fd 3 reads our messages, its fd 4 writes its own
            reading, writing = os.dup(to_browser_read), os.dup(from_browser_write)
            os.dup2(reading, 3)
            os.dup2(writing, 4)

        self.process = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--user-data-dir=" + self.profile, "--no-first-run", "--no-default-browser-check",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-extensions", "--mute-audio", "--autoplay-policy=no-user-gesture-required",
             "--window-size=%d,%d" % WINDOW, "about:blank"],
            preexec_fn=wire_pipes, pass_fds=(3, 4), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_read)
        os.close(from_browser_write)
        self.buffer = b""
        self.next_id = 0
        self.session = None
        self.events = []

    def stop(self):
        for fd in (self.to_browser, self.from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

    def _message(self, deadline):
        while b"\0" not in self.buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise EOFError("Chromium closed its DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, timeout=30, **params):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if self.session and not method.startswith("Target."):
            message["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def wait_for_event(self, name, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            for index, event in enumerate(self.events):
                if event["method"] == name:
                    return self.events.pop(index)
            self.events.append(self._message(deadline))

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError("page script failed: %s" % result["exceptionDetails"])
        return result["result"].get("value")

    def wait_until(self, expression, timeout=15):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.1)
        return None

    def mouse(self, kind, x, y):
        self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left" if kind != "mouseMoved" else "none",
                  clickCount=1 if kind != "mouseMoved" else 0)

    def key(self, key, code, key_code):
        for kind in ("keyDown", "keyUp"):
            params = dict(type=kind, key=key, code=code, windowsVirtualKeyCode=key_code, nativeVirtualKeyCode=key_code)
            if kind == "keyDown" and len(key) == 1:
                params["text"] = key
            self.call("Input.dispatchKeyEvent", **params)

    def screenshot(self, box, path):
        clip = dict(x=box["x"], y=box["y"], width=box["width"], height=box["height"], scale=1)
        data = self.call("Page.captureScreenshot", format="png", clip=clip, captureBeyondViewport=True)["data"]
        with open(path, "wb") as file:
            file.write(base64.b64decode(data))
        return path


def box_of(browser, selector):
    """The element's box in page coordinates, after scrolling it to the middle of the window."""
    return browser.evaluate("""(() => {
        const element = document.querySelector(%s);
        element.scrollIntoView({block: "center"});
        const box = element.getBoundingClientRect();
        return {x: box.left + scrollX, y: box.top + scrollY, width: box.width, height: box.height,
                viewportX: box.left, viewportY: box.top};
    })()""" % json.dumps(selector))


def tile_state(browser, scrub):
    return browser.evaluate("""(() => {
        const tile = document.querySelector(%s + " .tile"), style = getComputedStyle(tile);
        return {image: style.backgroundImage, position: style.backgroundPosition,
                time: document.querySelector(%s + " .time").textContent};
    })()""" % (json.dumps(scrub), json.dumps(scrub)))


def scrub(browser, video, shots):
    scrub_selector = "section[id=%s] .scrub" % json.dumps(video)
    bar = box_of(browser, scrub_selector + " .timeline")
    tile = box_of(browser, scrub_selector + " .tile")
    bar = box_of(browser, scrub_selector + " .timeline")
    hovers = []
    for number, fraction in enumerate((0.10, 0.90, 0.37)):
        x, y = bar["viewportX"] + fraction * bar["width"], bar["viewportY"] + bar["height"] / 2
        browser.mouse("mouseMoved", x, y)
        state = tile_state(browser, scrub_selector)
        state.update(fraction=(x - bar["viewportX"]) / bar["width"],
                     screenshot=browser.screenshot(tile, os.path.join(shots, "tile-%d.png" % number)))
        hovers.append(state)
    browser.evaluate("document.querySelector(%s).focus()" % json.dumps(scrub_selector + " .timeline"))
    steps = []
    for key, key_code in (("ArrowRight", 39), ("ArrowLeft", 37), ("ArrowLeft", 37)):
        browser.key(key, key, key_code)
        steps.append(dict(tile_state(browser, scrub_selector), key=key))
    return {"bar": bar, "hovers": hovers, "steps": steps}


def play(browser, video, fraction):
    """Clicks the timeline at `fraction`; reports the time the video seeked to, then whether it plays."""
    scrub_selector = "section[id=%s] .scrub" % json.dumps(video)
    browser.evaluate("""(() => {
        const video = document.querySelector(%s + " video");
        window.seekedAt = undefined;
        window.playing = false;
        video.addEventListener("seeked", () => { window.seekedAt = video.currentTime; }, {once: true});
        video.addEventListener("playing", () => { window.playing = true; }, {once: true});
    })()""" % json.dumps(scrub_selector))
    bar = box_of(browser, scrub_selector + " .timeline")
    x, y = bar["viewportX"] + fraction * bar["width"], bar["viewportY"] + bar["height"] / 2
    browser.mouse("mouseMoved", x, y)
    browser.mouse("mousePressed", x, y)
    browser.mouse("mouseReleased", x, y)
    status = scrub_selector + " .player-status"
    browser.wait_until("window.playing === true || document.querySelector(%s).textContent.startsWith('Cannot')"
                       % json.dumps(status), timeout=20)
    return browser.evaluate("""(() => {
        const video = document.querySelector(%s + " video");
        return {fraction: %r, seekedAt: window.seekedAt === undefined ? null : window.seekedAt,
                playing: window.playing === true, paused: video.paused, hidden: video.hidden,
                error: video.error && video.error.code, source: video.currentSrc,
                status: document.querySelector(%s).textContent};
    })()""" % (json.dumps(scrub_selector), (x - bar["viewportX"]) / bar["width"], json.dumps(status)))


def overlays(browser, video):
    """Clicks each overlay toggle of the section: which overlays show before and after, and where each lies on
    its render (fractions of the screen image's box)."""
    section = "section[id=%s]" % json.dumps(video)
    report = {}
    for toggle, kind in (("show-safe-area", "safe-area"), ("show-crop", "crop"), ("show-picture", "picture")):
        checkbox = section + " input." + toggle
        if not browser.evaluate("!!document.querySelector(%s)" % json.dumps(checkbox)):
            continue
        overlay = json.dumps(section + " i." + kind)
        shown = "[...document.querySelectorAll(%s)].map(i => getComputedStyle(i).display !== 'none')" % overlay
        before = browser.evaluate(shown)
        box = box_of(browser, checkbox)
        x, y = box["viewportX"] + box["width"] / 2, box["viewportY"] + box["height"] / 2
        browser.mouse("mousePressed", x, y)
        browser.mouse("mouseReleased", x, y)
        report[kind] = {"before": before, "after": browser.evaluate(shown), "rects": browser.evaluate("""
            [...document.querySelectorAll(%s)].map(i => {
                const screen = i.parentElement.querySelector("img").getBoundingClientRect(), box = i.getBoundingClientRect();
                return {render: i.parentElement.querySelector("img").getAttribute("src"),
                        left: (box.left - screen.left) / screen.width, top: (box.top - screen.top) / screen.height,
                        width: box.width / screen.width, height: box.height / screen.height};
            })""" % overlay)}
    return report


VISIBLE_ITEMS = "[...document.querySelectorAll('.item')].filter(item => !item.hidden).map(item => item.id || item.dataset.name)"


def filters(browser):
    shown = {}
    buttons = browser.evaluate("[...document.querySelectorAll('.summary button')].map(button => button.dataset.filter)")
    for flag in buttons[1:] + buttons[:1]:
        button = box_of(browser, ".summary button[data-filter=%s]" % json.dumps(flag))
        if browser.evaluate("document.querySelector('.summary button[data-filter=%s]').disabled" % json.dumps(flag)):
            continue
        x, y = button["viewportX"] + button["width"] / 2, button["viewportY"] + button["height"] / 2
        browser.mouse("mousePressed", x, y)
        browser.mouse("mouseReleased", x, y)
        shown[flag or "all"] = browser.evaluate(VISIBLE_ITEMS)
    browser.evaluate("document.querySelector('.name-filter').focus()")
    browser.call("Input.insertText", text="BOX")
    by_name = browser.evaluate(VISIBLE_ITEMS)
    browser.evaluate("""(() => { const input = document.querySelector('.name-filter'); input.value = '';
        input.dispatchEvent(new Event('input', {bubbles: true})); input.blur(); })()""")
    return {"byFlag": shown, "byName": by_name, "afterClearing": browser.evaluate(VISIBLE_ITEMS)}


def keys(browser):
    browser.evaluate("document.activeElement.blur(); scrollTo(0, 0)")
    focused = []
    for key, key_code in (("j", 74), ("j", 74), ("k", 75)):
        browser.key(key, "Key" + key.upper(), key_code)
        focused.append(browser.evaluate("document.activeElement.id || document.activeElement.dataset.name || ''"))
    return focused


def section_shots(browser, shots):
    ids = browser.evaluate("[...document.querySelectorAll('section')].map((section, index) => "
                           "section.id || (section.id = 'section-' + index))")
    paths = {}
    for number, identifier in enumerate(ids):
        box = box_of(browser, "section[id=%s]" % json.dumps(identifier))
        box["height"] = min(box["height"], 1600)
        browser.evaluate("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
        browser.wait_until("[...document.querySelectorAll('section[id=%s] img')].every(image => "
                           "image.closest('details:not([open])') || image.complete)" % identifier.replace("'", "\\'"))
        paths[identifier] = browser.screenshot(box, os.path.join(shots, "section-%d.png" % number))
    return paths


def main():
    # SIGTERM (the test's watchdog) unwinds through `finally`, which stops Chromium.
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(1))
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--video", required=True, help="the section id to scrub and play")
    parser.add_argument("--unplayable", required=True, help="a section id whose source the browser cannot play")
    parser.add_argument("--shots", required=True, help="folder for the screenshots")
    parser.add_argument("--overlays", help="a section id whose overlay toggles are clicked")
    arguments = parser.parse_args()
    browser = Browser()
    report = {}
    try:
        target = browser.call("Target.createTarget", url="about:blank")["targetId"]
        browser.session = browser.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            browser.call(domain + ".enable")
        browser.call("Emulation.setDeviceMetricsOverride", width=WINDOW[0], height=WINDOW[1], deviceScaleFactor=1,
                     mobile=False)
        browser.call("Page.navigate", url=arguments.url)
        browser.wait_for_event("Page.loadEventFired")
        report["sectionShots"] = section_shots(browser, arguments.shots)
        report["scrub"] = scrub(browser, arguments.video, arguments.shots)
        report["play"] = play(browser, arguments.video, 0.37)
        report["unplayable"] = play(browser, arguments.unplayable, 0.5)
        if arguments.overlays:
            report["overlays"] = overlays(browser, arguments.overlays)
        report["filters"] = filters(browser)
        report["keys"] = keys(browser)
        browser.evaluate("new Promise(done => setTimeout(done, 200))")
        events = browser.events
        report["requests"] = [event["params"]["request"]["url"] for event in events
                              if event["method"] == "Network.requestWillBeSent"]
        report["consoleErrors"] = (
            [event["params"]["entry"]["text"] for event in events
             if event["method"] == "Log.entryAdded" and event["params"]["entry"]["level"] == "error"]
            + [" ".join(str(argument.get("value", argument.get("description", ""))) for argument in event["params"]["args"])
               for event in events if event["method"] == "Runtime.consoleAPICalled" and event["params"]["type"] == "error"]
            + [event["params"]["exceptionDetails"].get("exception", {}).get("description", "exception")
               for event in events if event["method"] == "Runtime.exceptionThrown"])
    except Exception as error:  # reported, so the test says what went wrong
        report["driverError"] = "%s: %s" % (type(error).__name__, error)
    finally:
        browser.stop()
    json.dump(report, sys.stdout)


if __name__ == "__main__":
    main()
