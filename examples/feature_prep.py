"""Feature preparation for the churn model: per-customer ratios, flags and category statistics."""

import numpy as np
import pandas as pd

customers = pd.read_csv("data/customers.csv")
usage = pd.read_csv("data/usage_summary.csv")
df = customers.merge(usage, on="customer_id", how="inner")
df["plan"] = df["plan"].apply(str.lower)  # exports mix "Basic" and "BASIC"

# Ratios the model likes better than raw totals.
df["spend_per_visit"] = df.apply(lambda r: r["total_spend"] / r["visits"] if r["visits"] > 0 else 0.0, axis=1)
df["support_load"] = df.apply(lambda r: r["tickets"] / (r["tenure_months"] + 1), axis=1)
df["is_senior"] = df.apply(lambda r: 1 if r["age"] >= 65 else 0, axis=1)

spend_per_month = []
for _, row in df.iterrows():
    spend_per_month.append(row["total_spend"] / (row["tenure_months"] + 1))
df["spend_per_month"] = spend_per_month

for idx, row in df.iterrows():
    df.loc[idx, "discount_user"] = row["discounted_orders"] > 0.5 * row["orders"]

# Target encoding of the plan: churn rate and size of each plan.
plan_stats = pd.DataFrame()
for plan, group in df.groupby("plan"):
    stats = {"plan": plan, "plan_churn_rate": group["churned"].mean(), "plan_size": len(group)}
    plan_stats = pd.concat([plan_stats, pd.DataFrame([stats])], ignore_index=True)
df = df.merge(plan_stats, on="plan", how="left")
df["plan_mean_spend"] = df.groupby("plan")["total_spend"].transform(lambda spend: spend.mean())

# Standardise the numeric features, column by column.
numeric = ["total_spend", "visits", "tenure_months", "spend_per_visit", "support_load", "spend_per_month"]
df[numeric] = df[numeric].apply(lambda col: (col - col.mean()) / col.std())
df[numeric] = np.log1p(df[numeric].clip(lower=-0.99))

feature_names = []
for name in numeric + ["is_senior", "discount_user", "plan_churn_rate", "plan_size", "plan_mean_spend"]:
    feature_names.append(name)

# Quick sanity check on a few rows.
for row in df.head(3).itertuples():
    print(row.customer_id, row.spend_per_visit, row.plan_churn_rate)

X = df[feature_names].astype("float32")
y = df["churned"].astype("int8")
X.to_csv("out/features.csv", index=False)
y.to_csv("out/target.csv", index=False)
print(f"{X.shape[1]} features for {X.shape[0]} customers")
