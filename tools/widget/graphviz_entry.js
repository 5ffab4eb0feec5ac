// The one thing the graph widget needs from @hpcc-js/wasm-graphviz: Graphviz.load() -> an object
// whose dot(source) returns the SVG that Graphviz's `dot -Tsvg` would. Its ESM inlines the wasm.
export { Graphviz } from "@hpcc-js/wasm-graphviz";
