"""Monthly sales report: revenue and margin per order line, and a summary per region."""

import pandas as pd

# One export per month.
orders = pd.DataFrame()
for month in ["2024-01", "2024-02", "2024-03"]:
    orders = pd.concat([orders, pd.read_csv(f"data/orders_{month}.csv", parse_dates=["order_date"])],
                       ignore_index=True)
products = pd.read_csv("data/products.csv")
products["category"] = products["category"].apply(lambda name: name.strip().lower())
orders = orders.merge(products, on="product_id", how="left")

# Some exports write numbers as text; convert column by column.
numeric = ["quantity", "unit_price", "unit_cost", "discount"]
orders[numeric] = orders[numeric].apply(pd.to_numeric, errors="coerce")
orders = orders.dropna(subset=numeric)

# Revenue per order line.
revenue = []
for _, row in orders.iterrows():
    revenue.append(row["quantity"] * row["unit_price"])
orders["revenue"] = revenue

# Margin after the discount and the unit cost.
orders["margin"] = orders.apply(
    lambda r: r["revenue"] * (1 - r["discount"]) - r["quantity"] * r["unit_cost"], axis=1
)

# Large orders get a manual review.
for idx, row in orders.iterrows():
    orders.loc[idx, "needs_review"] = row["revenue"] > 5000 or row["discount"] > 0.3

# One summary row per region.
summary = pd.DataFrame(columns=["region", "orders", "revenue", "margin"])
for region, group in orders.groupby("region"):
    row = {
        "region": region,
        "orders": len(group),
        "revenue": group["revenue"].sum(),
        "margin": group["margin"].sum(),
    }
    summary = pd.concat([summary, pd.DataFrame([row])], ignore_index=True)
summary["margin_pct"] = 100 * summary["margin"] / summary["revenue"]
units_per_region = orders.groupby("region").apply(lambda g: g["quantity"].sum())

# The three largest order lines of each region, for the account managers.
top_orders = pd.DataFrame()
for region, group in orders.groupby("region"):
    top_orders = pd.concat([top_orders, group.nlargest(3, "revenue")])

# Regions that lost money, for the e-mail to the sales leads.
losing = []
for row in summary.itertuples():
    if row.margin < 0:
        losing.append(f"{row.region}: {row.margin:,.0f}")

orders.to_csv("out/orders_enriched.csv", index=False)
summary.sort_values("revenue", ascending=False).to_csv("out/sales_summary.csv", index=False)
top_orders.to_csv("out/top_orders.csv", index=False)
print(f"{len(orders)} order lines, {orders['needs_review'].sum()} to review")
print("Regions with a negative margin:", ", ".join(losing) or "none")
print("Units sold per region:")
print(units_per_region)
