"""The device layer: what a session can run on (numpy CPUs, CuPy GPUs, simulated GPUs), the one
function that moves data between them, and the cost model that times simulated GPUs."""
