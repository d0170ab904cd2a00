"""GPU3xx: copies between host and device memory (PyTorch, CuPy, cuDF) where they serialise the work."""
