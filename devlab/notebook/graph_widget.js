// The placed graph in the notebook: the SVG that devlab.views draws, fitted to the output width,
// with pan (drag), zoom (buttons, or Ctrl + wheel), a click on a folded scope (3-D box) to open
// it, and the current op or copy of a stepper kept in view. In the device view (one node per
// device), a click on a device asks the kernel for its ops, a click on an arrow lists its copies
// below the drawing from the rows that came with it.
//
// Where the kernel's machine has no Graphviz `dot`, the kernel sends the graph as DOT text with a
// WebAssembly build of Graphviz (graphviz.js, built by tools/build_widget.sh), and the layout
// happens here, in the browser. The library is loaded once per page, whatever the widget count.
const MAX_HEIGHT = 560;
const MIN_TEXT_PX = 11;  // the device view's text is never drawn smaller (issue 30: 4-px labels at "fit")

function graphviz(source) {
  const cache = globalThis.__devlabGraphviz || (globalThis.__devlabGraphviz = {});
  if (!cache.promise) {
    const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
    cache.promise = import(url).then((m) => m.Graphviz.load());
    cache.promise.catch(() => { cache.promise = null; });  // a later draw tries again
  }
  return cache.promise;
}

// What devlab.views.graph_view.fit_svg does to dot's SVG in Python: ids and classes with plain hyphens.
const fitted = (svg) => svg.replaceAll("&#45;", "-");

function render({ model, el }) {
  el.classList.add("devlab-graph");
  const bar = document.createElement("div");
  bar.className = "devlab-graph-bar";
  const view = document.createElement("div");
  view.className = "devlab-graph-view";
  const inner = document.createElement("div");
  inner.className = "devlab-graph-inner";
  view.appendChild(inner);
  const panel = document.createElement("div");
  panel.className = "devlab-graph-copies";
  el.append(bar, view, panel);

  let scale = 1, tx = 0, ty = 0, natural = null;
  const apply = () => { inner.style.transform = `translate(${tx}px, ${ty}px) scale(${scale})`; };
  const button = (label, title, fn) => {
    const b = document.createElement("button");
    b.textContent = label;
    b.title = title;
    b.className = "devlab-graph-button";
    b.addEventListener("click", fn);
    bar.appendChild(b);
    return b;
  };
  const zoom = (factor) => { scale = Math.max(0.05, Math.min(4, scale * factor)); apply(); };
  button("fit", "Fit the whole graph to the width", () => fit());
  button("1:1", "Actual size", () => { scale = 1; apply(); keepInView(); });
  button("+", "Zoom in", () => zoom(1.25));
  button("\u2212", "Zoom out", () => zoom(0.8));
  const back = button("devices", "Back to one node per device", () => model.send({ event: "devices" }));
  const foldAll = button("fold all", "Fold the scopes you opened", () => model.send({ event: "fold_all" }));
  const hint = document.createElement("span");
  hint.className = "devlab-graph-hint";
  bar.appendChild(hint);

  // The smallest text of the drawing in screen pixels at scale 1 (0 when it cannot be measured yet).
  function smallestTextPx() {
    const saved = scale;
    scale = 1; apply();
    let px = Infinity;
    for (const t of inner.querySelectorAll("svg text")) {
      const ctm = t.getScreenCTM();
      const size = parseFloat(t.getAttribute("font-size"));
      if (ctm && size) px = Math.min(px, size * ctm.a);
    }
    scale = saved; apply();
    return Number.isFinite(px) ? px : 0;
  }

  function fit() {
    if (!natural) return;
    const avail = Math.max(view.clientWidth || el.clientWidth || 800, 100);
    scale = Math.min(1, avail / natural.w);
    if (inner.querySelector("g.devlab-device")) {
      // The device view is never shrunk below MIN_TEXT_PX: wider than the page, it is dragged instead.
      const px = smallestTextPx();
      if (px > 0) scale = Math.max(scale, Math.min(1, MIN_TEXT_PX / px));
    }
    tx = 0; ty = 0;
    view.style.height = Math.min(natural.h * scale + 4, MAX_HEIGHT) + "px";
    apply();
  }

  function keepInView() {
    const id = model.get("focus");
    if (!id) return;
    const node = inner.querySelector(`[id="${CSS.escape(id)}"]`);
    if (!node) return;
    const box = node.getBoundingClientRect();
    const frame = view.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) return;
    const margin = 24;
    if (box.left < frame.left + margin || box.right > frame.right - margin) {
      tx += frame.left + frame.width / 2 - (box.left + box.width / 2);
    }
    if (box.top < frame.top + margin || box.bottom > frame.bottom - margin) {
      ty += frame.top + frame.height / 2 - (box.top + box.height / 2);
    }
    apply();
  }

  let ticket = 0;  // the latest draw: a layout that finishes after a newer one started is dropped
  async function draw() {
    const mine = ++ticket;
    let text = model.get("svg");
    const dot = model.get("dot");
    if (!text && dot) {
      const start = performance.now();
      hint.textContent = "laying the graph out in the browser\u2026";
      try {
        text = fitted((await graphviz(model.get("graphviz_js"))).dot(dot));
      } catch (e) {
        text = `<p>devlab: the browser could not lay the graph out (${e}); installing Graphviz's dot ` +
          "on the kernel's machine (apt-get install graphviz) draws it there instead</p>";
      }
      if (mine !== ticket) return;
      el.dataset.layoutMs = (performance.now() - start).toFixed(0);  // read by the browser test
    }
    show(text);
  }

  function show(text) {
    inner.innerHTML = text;
    const svg = inner.querySelector("svg");
    const folds = model.get("folds") || {};
    const devices = model.get("devices") || {};
    const routes = model.get("routes") || {};
    foldAll.style.display = model.get("unfolded").length ? "" : "none";
    back.style.display = model.get("opened") ? "" : "none";
    panel.innerHTML = "";
    hint.textContent = (model.get("opened") ? `${model.get("opened")}'s ops \u00b7 ` : "") +
      (Object.keys(devices).length ? "click a device to open it, an arrow to list its copies \u00b7 " : "") +
      (Object.keys(folds).length ? "click a 3-D box to open its scope \u00b7 " : "") +
      "drag to pan \u00b7 Ctrl+wheel to zoom";
    if (!svg) { natural = null; view.style.height = "auto"; return; }
    svg.removeAttribute("style");
    natural = { w: svg.width.baseVal.value, h: svg.height.baseVal.value };
    svg.setAttribute("width", natural.w);
    svg.setAttribute("height", natural.h);
    for (const id of Object.keys(folds)) {
      const node = inner.querySelector(`[id="${CSS.escape(id)}"]`);
      if (!node) continue;
      node.style.cursor = "pointer";
      node.addEventListener("click", (e) => { e.stopPropagation(); model.send({ event: "unfold", id }); });
    }
    for (const id of Object.keys(devices)) {
      const node = inner.querySelector(`[id="${CSS.escape(id)}"]`);
      if (!node) continue;
      node.style.cursor = "pointer";
      node.addEventListener("click", (e) => { e.stopPropagation(); model.send({ event: "open_device", id }); });
    }
    for (const id of Object.keys(routes)) {
      const edge = inner.querySelector(`[id="${CSS.escape(id)}"]`);
      if (!edge) continue;
      edge.style.cursor = "pointer";
      edge.addEventListener("click", (e) => { e.stopPropagation(); listCopies(routes[id]); });
    }
    const keep = model.get("keep_zoom") && model._devlabDrawn;
    model._devlabDrawn = true;
    if (!keep) fit();
    requestAnimationFrame(keepInView);
  }

  // The copies of one arrow, as a table under the drawing (tensor, bytes, producing op, line).
  function listCopies(route) {
    const esc = (t) => String(t).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
    const rows = route.rows.map((r) => `<tr><td>${esc(r[0])}</td><td style="text-align:right">${esc(r[1])}</td>` +
      `<td>${esc(r[3])}</td><td>${esc(r[4])}</td></tr>`).join("");
    panel.innerHTML = `<div class="devlab-graph-copies-title">${esc(route.title)}</div>` +
      `<table><thead><tr><th>tensor</th><th>bytes</th><th>producing op</th><th>line</th></tr></thead>` +
      `<tbody>${rows}</tbody></table>` + (route.more ? `<div>\u2026 and ${route.more} more</div>` : "");
  }

  let drag = null;
  view.addEventListener("mousedown", (e) => {
    if (e.button !== 0) return;
    drag = { x: e.clientX, y: e.clientY, tx, ty, moved: false };
  });
  window.addEventListener("mousemove", (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
    tx = drag.tx + dx; ty = drag.ty + dy;
    apply();
  });
  window.addEventListener("mouseup", () => { drag = null; });
  view.addEventListener("wheel", (e) => {
    if (!(e.ctrlKey || e.metaKey)) return;
    e.preventDefault();
    zoom(e.deltaY < 0 ? 1.1 : 0.9);
  }, { passive: false });

  model.on("change:svg", draw);
  model.on("change:dot", draw);
  model.on("change:routes", () => { panel.innerHTML = ""; });
  model.on("change:focus", () => requestAnimationFrame(keepInView));
  draw();
  // The output area may get its width only after the first paint.
  requestAnimationFrame(() => { if (natural && !model.get("keep_zoom")) fit(); keepInView(); });
}

export default { render };
