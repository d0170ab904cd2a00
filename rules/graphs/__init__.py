"""GPU6xx: graphs (NetworkX, cuGraph) built, queried and aggregated one item at a time in Python."""
