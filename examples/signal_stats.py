"""Signal statistics: detrend a sensor trace, summarise it per window, flag the loud samples."""

import numpy as np

trace = np.loadtxt("data/trace.csv", delimiter=",")
baseline = np.convolve(trace, np.ones(25) / 25, mode="same")

# Remove the moving baseline, one sample at a time.
detrended = np.zeros(len(trace))
for i in range(len(trace)):
    detrended[i] = trace[i] - baseline[i]

# Mean and peak of every window of 100 samples.
window_means = np.array([])
window_peaks = np.empty((0, 2))
for start in range(0, len(detrended), 100):
    window = detrended[start:start + 100]
    window_means = np.append(window_means, window.mean())
    window_peaks = np.vstack([window_peaks, [start, window.max()]])

# Overall figures.
energy = sum(detrended ** 2)
peak = max(detrended)
loud = [abs(x) > 3.0 for x in detrended]


def level(value):
    return "loud" if abs(value) > 3.0 else "quiet"


levels = np.vectorize(level, otypes=[str])(detrended)

# Look-alikes that are fine: a list of thresholds, and the counts collected in a list and
# turned into an array once after the loop.
thresholds = [1.0, 2.0, 3.0]
counts = []
for threshold in thresholds:
    counts.append(int((np.abs(detrended) > threshold).sum()))
counts = np.array(counts)
largest_threshold = max(thresholds)

np.savetxt("out/window_means.csv", window_means, delimiter=",")
np.savetxt("out/window_peaks.csv", window_peaks, delimiter=",")
print(f"energy {energy:.1f}, peak {peak:.2f}, {sum(loud)} loud samples")
print(dict(zip(thresholds, counts.tolist())), levels[:5])
