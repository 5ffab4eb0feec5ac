"""The widgets in a real browser: JupyterLab on localhost, Debian's Chromium driven by Playwright,
one notebook written here and run cell by cell. Three interactions, on one page:

1. a click on a folded name scope (a 3-D box) of a big graph opens it (the kernel redraws);
2. the stepper on the mixed sum: on a transfer step the *copy edge* is highlighted, not its source;
3. a model of about 150 ops: its drawing fits the width of the output area.

Screenshots are kept in test-artifacts/.
"""
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import nbformat
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARTIFACTS = os.path.join(ROOT, "test-artifacts")
CHROMIUM = os.environ.get("DEVLAB_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]

CELLS = [
    "%load_ext devlab\nimport devlab as tf\nimport numpy as np\nfrom devlab.notebook import StepperWidget",
    # 1. a graph big enough to fold by scope
    "%%placement\nx = tf.constant(1.0, name='x')\nfor i in range(4):\n    with tf.name_scope(f'block{i}'):\n"
    "        for _ in range(20):\n            x = tf.sin(x) + 1.0\ntf.Session().run(x)",
    # 2. the stepper on seed 004's mixed sum
    "c = []\nfor d in ['/device:GPU:2', '/device:GPU:3']:\n    with tf.device(d):\n"
    "        c.append(tf.matmul(tf.ones([2, 3]), tf.ones([3, 2])))\nwith tf.device('/cpu:0'):\n"
    "    total = tf.add_n(c)\nsess = tf.Session(config=tf.ConfigProto(device_count={'GPU': 4}))\n"
    "StepperWidget(sess, total)",
    # 3. a model of about 150 ops (five layers on two GPUs, its gradients and its optimizer)
    "%%placement --gpus 2\nx = tf.placeholder(tf.float32, [8, 16], name='x')\nh = x\nfor i in range(5):\n"
    "    with tf.variable_scope(f'layer{i}'), tf.device(f'/gpu:{i % 2}'):\n"
    "        w = tf.get_variable('w', [16, 16], initializer=tf.ones_initializer())\n"
    "        b = tf.get_variable('b', [16], initializer=tf.zeros_initializer())\n"
    "        h = tf.nn.relu(tf.matmul(h, w) + b)\nloss = tf.reduce_mean(tf.square(h))\n"
    "train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)\nsess = tf.Session()\n"
    "sess.run(tf.global_variables_initializer())\nsess.run(train, {x: np.ones((8, 16))})\n"
    "print(len(tf.get_default_graph().get_operations()), 'ops')",
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    assert os.path.exists(CHROMIUM), "the browser test needs Chromium: apt-get install -y chromium"
    from playwright.sync_api import sync_playwright
    folder = tmp_path_factory.mktemp("lab")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(folder / "widgets.ipynb"))
    port, token = free_port(), "devlab-test"
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
         f"--ServerApp.token={token}", "--ServerApp.allow_root=True", f"--ServerApp.root_dir={folder}",
         "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=1)
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("JupyterLab did not start")
        os.makedirs(ARTIFACTS, exist_ok=True)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            pg = browser.new_page(viewport={"width": 1280, "height": 1000})
            pg.goto(f"{url}/lab/tree/widgets.ipynb?token={token}")
            pg.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
            pg.get_by_text("Kernel status: Idle").first.wait_for(state="attached", timeout=90_000)  # the kernel is up
            pg.runs = 0
            yield pg
            browser.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def run_next_cell(page, expect):
    """Runs the next cell (Shift+Enter) and waits for ``expect`` to appear in its output."""
    cell = page.locator(".jp-Notebook .jp-Cell").nth(page.runs)
    prompt = cell.locator(".jp-InputPrompt")
    page.runs += 1
    for attempt in range(240):  # until the prompt shows its execution count ("[3]:", not "[*]:")
        text = prompt.inner_text()
        if any(ch.isdigit() for ch in text) and "*" not in text:
            break
        if attempt % 20 == 0 and "*" not in text:  # not started: (again) select the cell and run it
            prompt.click()
            page.keyboard.press("Shift+Enter")
        page.wait_for_timeout(250)
    if expect:
        try:
            cell.locator(expect).first.wait_for(timeout=60_000)
        except Exception:
            page.screenshot(path=os.path.join(ARTIFACTS, f"browser-failed-cell-{page.runs}.png"), full_page=True)
            raise
    return cell


@pytest.mark.browser
def test_click_on_a_folded_scope_opens_it(page):
    run_next_cell(page, None)  # %load_ext
    page.wait_for_timeout(500)
    cell = run_next_cell(page, ".devlab-graph svg .devlab-fold")
    folds = cell.locator(".devlab-graph svg g.devlab-fold")
    before = folds.count()
    assert before == 4  # block0 ... block3, one 3-D box each
    assert cell.locator(".devlab-graph svg text", has_text="block0/Sin").count() == 0
    folds.first.click()
    cell.locator(".devlab-graph svg text", has_text="block0/Sin").first.wait_for(timeout=30_000)
    assert cell.locator(".devlab-graph svg g.devlab-fold").count() == before - 1
    page.screenshot(path=os.path.join(ARTIFACTS, "browser-unfold.png"), full_page=True)


@pytest.mark.browser
def test_stepper_highlights_the_copy_edge_on_a_transfer_step(page):
    cell = run_next_cell(page, ".jupyter-widgets button:has-text('Next')")
    info = cell.locator(".devlab-step").first
    assert "step 0 of" in info.inner_text()
    next_button = cell.locator(".jupyter-widgets button:has-text('Next')").first
    for _ in range(12):  # until a transfer step
        next_button.click()
        page.wait_for_timeout(300)
        if "copy of" in info.inner_text():
            break
    assert "copy of" in info.inner_text()
    current_edge = cell.locator(".devlab-graph svg g.edge.devlab-copy.devlab-current")
    current_edge.first.wait_for(timeout=30_000)
    assert current_edge.count() == 1
    assert cell.locator(".devlab-graph svg g.node.devlab-current").count() == 0  # not the source op
    assert cell.locator(".devlab-lanes .devlab-current").count() == 1  # and its box in the lanes
    page.screenshot(path=os.path.join(ARTIFACTS, "browser-stepper-copy.png"), full_page=True)


@pytest.mark.browser
def test_a_150_op_model_fits_the_output_width(page):
    cell = run_next_cell(page, ".devlab-graph svg")
    page.wait_for_timeout(500)
    sizes = cell.evaluate("""(cell) => {
        const out = cell.querySelector('.jp-OutputArea-output .devlab-graph').closest('.jp-OutputArea-output');
        const svg = cell.querySelector('.devlab-graph svg');
        return {out: out.getBoundingClientRect().width, svg: svg.getBoundingClientRect().width,
                natural: svg.width.baseVal.value, text: cell.innerText};
    }""")
    n_ops = int(re.search(r"(\d+) ops\n", sizes["text"]).group(1))
    assert 140 <= n_ops <= 170, n_ops  # a model of about 150 ops
    assert 0 < sizes["svg"] <= sizes["out"] + 1, sizes
    cell.screenshot(path=os.path.join(ARTIFACTS, "browser-150-ops.png"))
