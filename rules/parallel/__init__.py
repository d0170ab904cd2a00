"""GPU5xx: parallel and distributed work (Dask) forced to run one piece at a time."""
