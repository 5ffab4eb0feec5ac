"""The widgets in a real browser: JupyterLab on localhost, Debian's Chromium driven by Playwright,
one notebook written here and run cell by cell. Three interactions, on one page:

1. a click on a folded name scope (a 3-D box) of a big graph opens it (the kernel redraws);
2. the stepper on the mixed sum: on a transfer step the *copy edge* is highlighted, not its source;
3. a model of about 150 ops: its drawing fits the width of the output area;

then README's picture, a ``%%placement --step`` cell (log, graph, stepper), compared with
docs/placement_cell.png (``DEVLAB_REFRESH_DOCS=1`` writes it there). A second JupyterLab runs
with Graphviz's ``dot`` off the PATH, as after a bare ``pip install``: there the browser lays the
graphs out (WebAssembly Graphviz): tutorial 00 run from the top, and a 500-op model whose
first-draw time goes to test-artifacts/browser-timings.json. A third opens a 1,000-op two-tower
model: its default drawing (one node per device) is legible, the placement table's device column
is in view, and one click finds a copy.

Screenshots are kept in test-artifacts/.
"""
import contextlib
import json
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
    "%%placement --ops\nx = tf.constant(1.0, name='x')\nfor i in range(4):\n    with tf.name_scope(f'block{i}'):\n"
    "        for _ in range(20):\n            x = tf.sin(x) + 1.0\ntf.Session().run(x)",
    # 2. the stepper on tutorial 4's mixed sum
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


# README's picture: the "Using GPUs" first program with the stepper (log, summary, the stepper and its graph)
README_CELL = ("%%placement --gpus 2 --step --no-draw\nwith tf.device('/cpu:0'):\n"
               "    a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3], name='a')\n"
               "    b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2], name='b')\n"
               "c = tf.matmul(a, b)\nsess = tf.Session(config=tf.ConfigProto(log_device_placement=True))\n"
               "print(sess.run(c))")
CELLS.append(README_CELL)
README_PNG = os.path.join(ROOT, "docs", "placement_cell.png")

# Without Graphviz: what the kernel sees, and a model of about 500 ops (eighteen layers, two GPUs)
CELLS_WITHOUT_DOT = [
    "%load_ext devlab\nimport devlab as tf\nimport numpy as np\nimport shutil\nprint('dot on PATH:', shutil.which('dot'))",
    "%%placement --gpus 2 --ops\nx = tf.placeholder(tf.float32, [8, 16], name='x')\nh = x\nfor i in range(18):\n"
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


def write_notebook(path, cells):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(path))


def path_without_dot(folder):
    """A PATH like this one with Graphviz's programs left out: this Python's folder, then a folder
    of links to everything else on PATH but them (``dot`` lives in /usr/bin beside what is needed)."""
    links = folder / "bin"
    links.mkdir()
    graphviz = {"dot", "neato", "twopi", "circo", "fdp", "sfdp", "patchwork", "osage"}
    for d in os.environ.get("PATH", "").split(os.pathsep):
        if not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            target = links / name
            if name not in graphviz and not target.exists():
                target.symlink_to(os.path.join(d, name))
    path = os.pathsep.join([os.path.dirname(sys.executable), str(links)])
    assert shutil.which("dot", path=path) is None
    return path


@pytest.fixture(scope="module")
def browser():
    """Chromium, one for the module (Playwright's sync API runs one instance at a time)."""
    assert os.path.exists(CHROMIUM), "the browser test needs Chromium: apt-get install -y chromium"
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield chromium
        chromium.close()


@contextlib.contextmanager
def jupyter_lab(browser, folder, notebook, env=None):
    """JupyterLab serving ``folder`` and a Chromium page open on ``notebook``, its kernel up."""
    port, token = free_port(), "devlab-test"
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
         f"--ServerApp.token={token}", "--ServerApp.allow_root=True", f"--ServerApp.root_dir={folder}",
         "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
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
        context = browser.new_context(viewport={"width": 1280, "height": 1000})
        pg = context.new_page()
        pg.lab_url, pg.lab_token = url, token
        open_notebook(pg, notebook)
        yield pg
        context.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def open_notebook(pg, notebook):
    """Opens ``notebook`` alone (a reset workspace) and waits for its kernel."""
    pg.goto(f"{pg.lab_url}/lab/tree/{notebook}?reset&token={pg.lab_token}")
    pg.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    pg.get_by_text("Kernel status: Idle").first.wait_for(state="attached", timeout=90_000)  # the kernel is up
    pg.runs = 0


@pytest.fixture(scope="module")
def page(browser, tmp_path_factory):
    folder = tmp_path_factory.mktemp("lab")
    write_notebook(folder / "widgets.ipynb", CELLS)
    with jupyter_lab(browser, folder, "widgets.ipynb") as pg:
        yield pg


@pytest.fixture(scope="module")
def page_without_dot(browser, tmp_path_factory):
    """JupyterLab (and so its kernels) with no Graphviz on PATH, open on a 500-op model; tutorial 00
    beside it."""
    folder = tmp_path_factory.mktemp("lab-without-dot")
    write_notebook(folder / "draw500.ipynb", CELLS_WITHOUT_DOT)
    shutil.copy(os.path.join(ROOT, "notebooks", "00_start_here.ipynb"), folder / "00_start_here.ipynb")
    env = dict(os.environ, PATH=path_without_dot(folder))
    with jupyter_lab(browser, folder, "draw500.ipynb", env=env) as pg:
        yield pg


def run_all_cells(pg):
    """Run > Run All Cells, clicked again until the kernel is seen busy or a cell running: on a
    loaded machine JupyterLab can drop a menu click while it is still settling."""
    running = pg.locator(".jp-Notebook .jp-InputPrompt", has_text="*")
    for _ in range(5):
        pg.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        pg.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
        for _ in range(40):
            if running.count() or pg.get_by_text("Kernel status: Busy").count():
                return
            pg.wait_for_timeout(250)
        pg.keyboard.press("Escape")
    raise AssertionError("Run All Cells started no cell")


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


def png_size(path):
    """(width, height) of a PNG, from its header."""
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", path
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


@pytest.mark.browser
def test_readme_picture_is_a_placement_cell_with_log_graph_and_stepper(page):
    cell = run_next_cell(page, ".jupyter-widgets button:has-text('Next')")
    cell.locator(".devlab-graph svg").first.wait_for(timeout=60_000)  # the stepper's graph
    text = cell.inner_text()
    assert "MatMul: (MatMul): /job:localhost/replica:0/task:0/device:GPU:0" in text  # the placement log
    next_button = cell.locator(".jupyter-widgets button:has-text('Next')").first
    for _ in range(3):
        next_button.click()
        page.wait_for_timeout(300)
    # The whole cell in view, at README's width, without JupyterLab's notices or hover effects
    page.add_style_tag(content=".Toastify, .jp-toast-container { display: none !important; }")
    page.set_viewport_size({"width": 1240, "height": 1800})
    page.wait_for_timeout(500)
    cell.evaluate("(c) => c.scrollIntoView({block: 'start'})")
    page.mouse.move(0, 0)
    page.wait_for_timeout(800)
    shot = os.path.join(ARTIFACTS, "placement_cell.png")
    cell.screenshot(path=shot)
    if os.environ.get("DEVLAB_REFRESH_DOCS") == "1" or not os.path.exists(README_PNG):
        os.makedirs(os.path.dirname(README_PNG), exist_ok=True)
        shutil.copy(shot, README_PNG)
    # The committed picture shows this cell as it is drawn now: the same layout, give or take fonts
    (w, h), (w0, h0) = png_size(shot), png_size(README_PNG)
    assert abs(w - w0) <= 0.05 * w0 and abs(h - h0) <= 0.15 * h0, (
        f"the cell now draws {w}x{h}, docs/placement_cell.png is {w0}x{h0}: check {shot} and refresh the "
        "picture with DEVLAB_REFRESH_DOCS=1 python -m pytest -m browser tests/test_browser.py")
    with open(os.path.join(ROOT, "README.md")) as f:
        assert "docs/placement_cell.png" in f.read(1500)  # at the top of the README


def layout_times(cell):
    """The browser's layout time of each graph widget in ``cell`` (ms; set only when the browser laid it out)."""
    return cell.evaluate("(c) => [...c.querySelectorAll('.devlab-graph')].map((g) => g.dataset.layoutMs || null)")


@pytest.mark.browser
def test_without_graphviz_a_500_op_model_is_laid_out_in_the_browser(page_without_dot):
    pg = page_without_dot
    cell = run_next_cell(pg, ".jp-OutputArea-output:has-text('dot on PATH')")
    assert "dot on PATH: None" in cell.inner_text()  # the kernel has no Graphviz
    start = time.perf_counter()
    cell = run_next_cell(pg, ".devlab-graph svg")
    seconds = time.perf_counter() - start
    n_ops = int(re.search(r"(\d+) ops\n", cell.inner_text()).group(1))
    assert 480 <= n_ops <= 560, n_ops
    (ms,) = layout_times(cell)
    assert ms is not None  # laid out here, by the WebAssembly Graphviz
    svg = cell.locator(".devlab-graph svg")
    assert svg.locator("g.node").count() > 20 and svg.locator("g.edge.devlab-copy").count() > 0
    assert cell.locator(".devlab-graph svg g.devlab-fold").count() > 0  # folded scopes, clickable as with dot
    nodes = svg.locator("g.node")
    before = nodes.count()
    cell.locator(".devlab-graph svg g.devlab-fold").first.click()  # a click opens a scope here too
    for _ in range(120):
        if nodes.count() > before:
            break
        pg.wait_for_timeout(250)
    assert nodes.count() > before
    (again,) = layout_times(cell)  # Graphviz already loaded: the layout alone
    timings = {"ops": n_ops, "first_draw_layout_ms": int(ms), "cell_run_to_drawing_s": round(seconds, 2),
               "unfold_redraw_layout_ms": int(again),
               "graphviz_js_bytes": os.path.getsize(os.path.join(ROOT, "devlab", "notebook", "graphviz.js"))}
    with open(os.path.join(ARTIFACTS, "browser-timings.json"), "w") as f:
        json.dump(timings, f, indent=1)
    print("browser timings:", timings)
    cell.screenshot(path=os.path.join(ARTIFACTS, "browser-500-ops-without-dot.png"))


@pytest.mark.browser
def test_without_graphviz_tutorial_00_draws_every_graph(page_without_dot):
    pg = page_without_dot
    open_notebook(pg, "00_start_here.ipynb")
    run_all_cells(pg)
    graphs = pg.locator(".jp-Notebook .devlab-graph svg")
    for _ in range(240):  # the two drawings and the stepper's graph
        if graphs.count() >= 3:
            break
        pg.wait_for_timeout(500)
    if graphs.count() != 3:
        pg.screenshot(path=os.path.join(ARTIFACTS, "browser-failed-tutorial-00-without-dot.png"), full_page=True)
    assert graphs.count() == 3
    assert None not in layout_times(pg.locator(".jp-Notebook").first)  # each laid out in the browser
    assert pg.locator(".jp-Notebook .devlab-graph svg g.edge.devlab-copy").count() >= 2  # the red copy arrows
    assert "Graphviz's `dot` program is not installed" not in pg.locator(".jp-Notebook").first.inner_text()
    graphs.first.evaluate("(g) => g.closest('.jp-Cell').scrollIntoView({block: 'start'})")
    pg.wait_for_timeout(500)
    pg.screenshot(path=os.path.join(ARTIFACTS, "browser-tutorial-00-without-dot.png"), full_page=True)


# A 1,000-op two-tower model, the variables on the CPU (cifar10_multi_gpu_train's layout)
TOWERS_CELLS = [
    "%load_ext devlab\nimport devlab as tf\nimport numpy as np",
    "%%placement --gpus 2\nwith tf.device('/cpu:0'):\n    x = tf.placeholder(tf.float32, [16, 32], name='x')\n"
    "    ws = [tf.get_variable(f'w{i}', [32, 32], initializer=tf.ones_initializer()) for i in range(18)]\n"
    "    xs = tf.split(x, 2)\ngrads = []\nfor t in range(2):\n"
    "    with tf.device(f'/gpu:{t}'), tf.name_scope(f'tower_{t}'):\n        h = xs[t]\n"
    "        for i, w in enumerate(ws):\n            with tf.name_scope(f'layer{i}'):\n"
    "                h = tf.nn.relu(tf.matmul(h, w) * 0.5 + 0.1)\n"
    "        grads.append(tf.gradients(tf.reduce_mean(tf.square(h)), ws))\nwith tf.device('/cpu:0'):\n"
    "    train = tf.group(*[w.assign_sub(0.01 * tf.add_n(list(g)) / 2.0) for w, g in zip(ws, zip(*grads))])\n"
    "sess = tf.Session()\nsess.run(tf.global_variables_initializer())\nsess.run(train, {x: np.ones((16, 32))})\n"
    "print(len(tf.get_default_graph().get_operations()), 'ops')",
]


@pytest.fixture(scope="module")
def page_towers(browser, tmp_path_factory):
    folder = tmp_path_factory.mktemp("lab-towers")
    write_notebook(folder / "towers.ipynb", TOWERS_CELLS)
    with jupyter_lab(browser, folder, "towers.ipynb") as pg:
        yield pg


def smallest_text_px(cell):
    """The smallest on-screen font size (px) of the drawing's text, after fitting."""
    return cell.evaluate("""(c) => Math.min(...[...c.querySelectorAll('.devlab-graph svg text')].map((t) =>
        parseFloat(t.getAttribute('font-size')) * t.getScreenCTM().a))""")


@pytest.mark.browser
def test_a_1000_op_tower_model_reads_as_devices_tables_and_copies(page_towers):
    pg = page_towers
    run_next_cell(pg, None)  # %load_ext
    pg.wait_for_timeout(500)
    cell = run_next_cell(pg, ".devlab-graph svg g.devlab-device")
    n_ops = int(re.search(r"(\d+) ops\n", cell.inner_text()).group(1))
    assert 900 <= n_ops <= 1200, n_ops
    svg = cell.locator(".devlab-graph svg")
    assert svg.locator("g.devlab-device").count() == 3  # CPU:0, GPU:0, GPU:1: one node each
    assert svg.locator("g.devlab-route").count() >= 4  # batch slices and variables out, gradients back
    assert smallest_text_px(cell) >= 11
    pg.add_style_tag(content=".Toastify, .jp-toast-container { display: none !important; }")
    cell.locator(".devlab-graph").first.screenshot(path=os.path.join(ARTIFACTS, "browser-towers-device-view.png"))

    # The placement table, opened: its device column is in view, left of the op names
    cell.locator("details:not(.devlab-copies) > summary").first.click()
    first = cell.locator("table[id^=devlab-placement] tbody tr").first.locator("td").first
    first.wait_for(timeout=10_000)
    box, area = first.bounding_box(), cell.locator(".jp-OutputArea").first.bounding_box()
    assert re.fullmatch(r"(CPU|GPU):\d", first.inner_text()) and box["width"] > 0
    assert area["x"] <= box["x"] and box["x"] + box["width"] <= area["x"] + area["width"]

    # One click on the copies table's summary shows its rows, devices and bytes first
    cell.locator("details.devlab-copies > summary").first.click()
    row = cell.locator("table[id^=devlab-copies] tbody tr").first
    row.wait_for(timeout=10_000)
    assert row.is_visible() and re.match(r"(CPU|GPU):\d", row.locator("td").first.inner_text())
    cell.screenshot(path=os.path.join(ARTIFACTS, "browser-towers-tables.png"))

    # One click on an arrow of the device view lists that arrow's copies under the drawing
    cell.locator(".devlab-graph svg g.devlab-route text").first.click()
    listed = cell.locator(".devlab-graph-copies tbody tr")
    listed.first.wait_for(timeout=10_000)
    assert listed.count() >= 1 and "copies" in cell.locator(".devlab-graph-copies-title").inner_text()
    cell.locator(".devlab-graph").first.screenshot(path=os.path.join(ARTIFACTS, "browser-towers-arrow-copies.png"))

    # A click on a device opens its ops, folded by scope
    cell.locator(".devlab-graph svg g.devlab-device", has_text="GPU:1").first.click()
    cell.locator(".devlab-graph svg g.devlab-fold").first.wait_for(timeout=60_000)
    assert cell.locator(".devlab-graph svg g.devlab-device").count() == 0
    cell.locator(".devlab-graph").first.screenshot(path=os.path.join(ARTIFACTS, "browser-towers-gpu1-opened.png"))


# Real models: tutorial 13's cifar10-style program (1,068 ops, two towers), a 12,501-op graph file
# with no name scopes, and the stepper on the cifar10 program's fed training step.

def tutorial_program():
    """The code cell of tutorial 13 that defines ``training_program`` (the cifar10-style towers)."""
    sys.path.insert(0, os.path.join(ROOT, "notebooks"))
    import build
    return next(c.source for c in build.read_source("13_debug_a_real_model").cells
                if c.cell_type == "code" and "def training_program" in c.source)


def write_no_scope_graph(path):
    """A 12,501-op GraphDef with no name scopes (Mul_123, Const_123...): a chain of 6,250 products,
    250 at a time on CPU:0, GPU:0, GPU:1, written as a binary .pb by devlab."""
    import devlab as tf
    g = tf.Graph()
    with g.as_default():
        with tf.device("/cpu:0"):
            h = tf.placeholder(tf.float32, [64], name="x")
        for i in range(6_250):
            with tf.device(["/cpu:0", "/gpu:0", "/gpu:1"][(i // 250) % 3]):
                h = h * tf.constant(1.0001, shape=[64])
        tf.train.write_graph(g.as_graph_def(), str(path.parent), path.name, as_text=False)
    return h.op.name


@pytest.fixture(scope="module")
def page_real(browser, tmp_path_factory):
    folder = tmp_path_factory.mktemp("lab-real")
    last = write_no_scope_graph(folder / "no_scopes.pb")
    cells = [
        "%load_ext devlab\nimport re\nimport devlab as tf\nimport numpy as np\n" + tutorial_program(),
        "%%placement --no-log\nsess, train, feed = training_program('/gpu:0', average_on='/cpu:0')\n"
        "sess.run(train, feed)\nprint(len(sess.graph.get_operations()), 'ops')",
        "%%placement --gpus 2 --no-log\ng = tf.load_graph('no_scopes.pb')\n"
        "sess = tf.Session(graph=g, config=tf.ConfigProto(allow_soft_placement=True))\n"
        f"sess.modelled_run(g.get_operation_by_name('{last}').outputs[0])\nprint(len(g.get_operations()), 'ops')",
        "%%placement --step --no-log\nsess, train, feed = training_program('/gpu:0', average_on='/cpu:0')\n"
        "sess.run(train, feed)",
    ]
    write_notebook(folder / "real.ipynb", cells)
    with jupyter_lab(browser, folder, "real.ipynb") as pg:
        pg.add_style_tag(content=".Toastify, .jp-toast-container { display: none !important; }")
        yield pg


def check_device_view_tables_and_copies(cell, name, devices=3):
    """The default drawing is the device view, its text 11 px or more on screen; the placement
    table's device column is in view; one click on the copies table shows a copy with its devices."""
    svg = cell.locator(".devlab-graph svg")
    assert svg.locator("g.devlab-device").count() == devices
    assert smallest_text_px(cell) >= 11
    cell.locator(".devlab-graph").first.screenshot(path=os.path.join(ARTIFACTS, f"browser-{name}-device-view.png"))
    cell.locator("details:not(.devlab-copies) > summary").first.click()
    first = cell.locator("table[id^=devlab-placement] tbody tr").first.locator("td").first
    first.wait_for(timeout=10_000)
    box, area = first.bounding_box(), cell.locator(".jp-OutputArea").first.bounding_box()
    assert re.fullmatch(r"(CPU|GPU):\d", first.inner_text()) and box["width"] > 0
    assert area["x"] <= box["x"] and box["x"] + box["width"] <= area["x"] + area["width"]
    cell.locator("details.devlab-copies > summary").first.click()  # one click
    row = cell.locator("table[id^=devlab-copies] tbody tr").first
    row.wait_for(timeout=10_000)
    cells = row.locator("td")
    assert row.is_visible() and re.match(r"(CPU|GPU):\d", cells.first.inner_text())
    assert any(re.search(r"\d+(\.\d)? (B|KB|MB)", cells.nth(i).inner_text()) for i in range(cells.count()))
    cell.screenshot(path=os.path.join(ARTIFACTS, f"browser-{name}-tables.png"))


@pytest.mark.browser
def test_the_cifar10_towers_read_as_devices_tables_and_copies(page_real):
    pg = page_real
    run_next_cell(pg, None)  # %load_ext and the program
    pg.wait_for_timeout(500)
    cell = run_next_cell(pg, ".devlab-graph svg g.devlab-device")
    n_ops = int(re.search(r"(\d+) ops\n", cell.inner_text()).group(1))
    assert 1000 <= n_ops <= 1300, n_ops
    check_device_view_tables_and_copies(cell, "cifar10")


@pytest.mark.browser
def test_a_12k_op_graph_file_without_scopes_reads_as_devices_tables_and_copies(page_real):
    cell = run_next_cell(page_real, ".devlab-graph svg g.devlab-device")
    assert "12501 ops" in cell.inner_text()
    check_device_view_tables_and_copies(cell, "no-scopes-12k")


@pytest.mark.browser
def test_the_stepper_on_a_fed_training_step_runs_to_copies_and_breakpoints_and_never_pans(page_real):
    pg = page_real
    cell = run_next_cell(pg, ".jupyter-widgets button:has-text('Next copy')")
    info = cell.locator(".devlab-step").first
    assert "fed:" in info.inner_text() and "images:0" in info.inner_text()  # the feeds, as they enter
    lanes = cell.locator(".devlab-lanes-scroll").first
    lanes.locator("svg.devlab-lanes").wait_for(timeout=30_000)
    px = cell.evaluate("""(c) => Math.min(...[...c.querySelectorAll('.devlab-lanes-labels text, svg.devlab-lanes text')]
        .map((t) => parseFloat(t.getAttribute('font-size')) * t.getScreenCTM().a))""")
    assert px >= 11
    assert lanes.evaluate("(e) => e.scrollWidth > e.clientWidth")  # 500 steps: wider than the page, so it scrolls
    lanes.evaluate("(e) => { e.scrollLeft = 200; }")

    cell.locator(".jupyter-widgets button:has-text('Next copy')").first.click()
    pg.wait_for_function("(e) => e.innerText.includes('copy of')", arg=info.element_handle(), timeout=30_000)
    cell.locator(".devlab-lanes .devlab-current").first.wait_for(state="attached", timeout=30_000)
    assert lanes.evaluate("(e) => e.scrollLeft") == 200  # the lanes stayed where the reader left them

    cell.locator("input[placeholder^='/gpu:1 or a scope']").fill("/gpu:1")
    cell.locator(".jupyter-widgets button:has-text('Break on')").first.click()
    cell.get_by_text("breakpoints: device GPU:1").first.wait_for(timeout=30_000)
    cell.locator(".jupyter-widgets button:has-text('Continue')").first.click()
    cell.get_by_text("stopped at the breakpoint on device GPU:1").first.wait_for(timeout=30_000)
    assert "GPU:1" in info.inner_text()
    cell.locator("input[placeholder^='op name']").fill("tower_1/conv1/Conv2D")
    cell.locator(".jupyter-widgets button:has-text('Run to op')").first.click()
    cell.get_by_text("ran to tower_1/conv1/Conv2D").first.wait_for(timeout=30_000)
    assert "tower_1/conv1/Conv2D" in info.inner_text() and lanes.evaluate("(e) => e.scrollLeft") == 200
    cell.screenshot(path=os.path.join(ARTIFACTS, "browser-cifar10-stepper.png"))
