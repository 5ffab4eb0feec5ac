#!/usr/bin/env bash
# Builds devlab/notebook/graphviz.js, the WebAssembly build of Graphviz the graph widget uses to
# lay graphs out in the browser when the kernel's machine has no `dot` program. The output is
# committed, so `pip install devlab` needs no npm; run this only to update it:
#     bash tools/build_widget.sh        (needs node and npm; versions pinned in tools/widget/package-lock.json)
set -euo pipefail
cd "$(dirname "$0")/widget"
npm ci --no-audit --no-fund
version=$(node -p 'require("./node_modules/@hpcc-js/wasm-graphviz/package.json").version')
banner="// @hpcc-js/wasm-graphviz ${version} (Apache-2.0, https://github.com/hpcc-systems/hpcc-js-wasm): Graphviz (EPL-1.0,
// https://graphviz.org) compiled to WebAssembly. Built by tools/build_widget.sh; do not edit."
npx esbuild graphviz_entry.js --bundle --minify --format=esm --target=es2020 --legal-comments=inline \
  "--banner:js=${banner}" --outfile=../../devlab/notebook/graphviz.js
ls -l ../../devlab/notebook/graphviz.js
