"""GPU4xx: machine-learning pipelines (scikit-learn, cuML) chained by hand or left on one core."""
