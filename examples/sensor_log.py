"""Sensor log analysis: calibrate temperatures, flag readings out of range, list the faulty sensors."""

import numpy as np
import pandas as pd

log = pd.read_csv("data/sensor_log.csv", parse_dates=["timestamp"])
sensors = pd.read_csv("data/sensors.csv")  # sensor_id, offset, max_temp
log = log.merge(sensors, on="sensor_id", how="left")
log = log.sort_values(["sensor_id", "timestamp"]).reset_index(drop=True)

# Apply each sensor's calibration offset.
calibrated = []
for _, row in log.iterrows():
    calibrated.append(row["raw_temp"] + row["offset"])
log["temp"] = calibrated

# Humidity is a fraction; a few sensors report slightly above 1.
log["humidity"][log["humidity"] > 1.0] = 1.0

# Fahrenheit for the US dashboard.
for i in range(len(log)):
    log.loc[i, "temp_f"] = log.loc[i, "temp"] * 9 / 5 + 32

# Readings above the sensor's limit are alerts.
log["status"] = log.apply(lambda r: "alert" if r["temp"] > r["max_temp"] else "ok", axis=1)
log["headroom"] = log.apply(lambda r: r["max_temp"] - r["temp"], axis=1)

# Change since the previous reading of the same sensor.
log["delta"] = log.groupby("sensor_id")["temp"].diff().fillna(0.0)
for idx, row in log.iterrows():
    log.loc[idx, "spike"] = abs(row["delta"]) > 5

# Hourly means, one column at a time: no axis=1, nothing row-wise here.
hourly = log.set_index("timestamp").groupby("sensor_id")[["temp", "humidity"]].resample("1h").mean()
spread = hourly[["temp", "humidity"]].apply(np.std)

# Sensors that raised an alert.
faulty = pd.DataFrame(columns=["sensor_id", "alerts", "spikes", "max_temp_seen"])
for sensor_id, readings in log.groupby("sensor_id"):
    alerts = (readings["status"] == "alert").sum()
    if alerts > 0:
        faulty.loc[len(faulty)] = [sensor_id, alerts, readings["spike"].sum(), readings["temp"].max()]

messages = []
for reading in faulty.itertuples(index=False):
    messages.append(f"sensor {reading.sensor_id}: {reading.alerts} alerts, peak {reading.max_temp_seen:.1f}")

log.to_csv("out/sensor_log_clean.csv", index=False)
faulty.to_csv("out/faulty_sensors.csv", index=False)
print("\n".join(messages))
print("Spread of hourly means per column:")
print(spread)
