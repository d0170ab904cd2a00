"""GPU2xx: NumPy and CuPy arrays walked element by element or grown piece by piece."""
