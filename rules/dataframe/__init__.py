"""GPU1xx: DataFrames (pandas, cuDF, Modin, Dask)."""
