"""The tutorial in a real browser: JupyterLab on localhost, Debian's Chromium driven by
Playwright. Runs notebook 0, clicks the stepper's Next, and checks that the highlighted op
changes and the graph SVG renders; the screenshot is kept in test-artifacts/."""
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def lab(tmp_path):
    assert os.path.exists(CHROMIUM), "the browser test needs Chromium: apt-get install -y chromium"
    shutil.copy(os.path.join(ROOT, "notebooks", "00_start_here.ipynb"), tmp_path)
    port, token = free_port(), "devlab-test"
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
         f"--ServerApp.token={token}", "--ServerApp.allow_root=True", f"--ServerApp.root_dir={tmp_path}",
         "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(120):
        try:
            urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=1)
            break
        except OSError:
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("JupyterLab did not start")
    yield f"{url}/lab/tree/00_start_here.ipynb?token={token}"
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.mark.browser
def test_stepper_next_changes_highlighted_op_in_jupyterlab(lab):
    from playwright.sync_api import sync_playwright
    artifacts = os.path.join(ROOT, "test-artifacts")
    os.makedirs(artifacts, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            page.goto(lab)
            page.wait_for_selector(".jp-Notebook", timeout=60_000)
            page.wait_for_selector(".jp-Notebook-ExecutionIndicator, .jp-Toolbar", timeout=60_000)
            page.locator(".jp-Cell").first.click()
            next_button = page.locator(".jupyter-widgets button:has-text('Next')")
            for _ in range(12):  # run cells from the top until the stepper appears
                page.keyboard.press("Shift+Enter")
                page.wait_for_timeout(1500)
                if next_button.count():
                    break
            next_button.first.wait_for(timeout=60_000)
            info = page.locator(".devlab-step").first
            assert "step 0 of" in info.inner_text()
            next_button.first.click()
            page.wait_for_function("document.querySelector('.devlab-step').innerText.includes('step 1 of')",
                                   timeout=30_000)
            first = info.inner_text()
            next_button.first.click()
            page.wait_for_function("document.querySelector('.devlab-step').innerText.includes('step 2 of')",
                                   timeout=30_000)
            second = info.inner_text()
            highlighted = page.locator(".jupyter-widgets svg [fill='#ffd54f']")
            highlighted.first.wait_for(timeout=30_000)
            n_highlighted = highlighted.count()
            page.screenshot(path=os.path.join(artifacts, "browser-stepper.png"), full_page=True)
        finally:
            browser.close()
    name = lambda text: next(line for line in text.splitlines() if " on " in line)  # noqa: E731
    assert name(first) != name(second)  # the current op changed
    assert n_highlighted >= 1  # the graph rendered, with the current op highlighted
