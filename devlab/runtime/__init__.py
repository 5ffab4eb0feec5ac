"""The runtime: partition a placed graph, compile a plan, execute it, and report what happened."""
