"""Per-store revenue from a folder of daily Parquet exports, computed with Dask.

Reads `data/sales/*.parquet` (`store, day, amount`) and writes `out/store_totals.csv`.
"""

import csv

import dask
import dask.dataframe as dd


def clean_day(path: str) -> list[float]:
    with open(path, encoding="utf-8") as handle:
        return [float(line) for line in handle if line.strip()]


def store_totals(stores: list[int]) -> dict[int, float]:
    sales = dd.read_parquet("data/sales/*.parquet")
    totals = {}
    for store in stores:
        # one pass over every file per store
        totals[store] = sales[sales.store == store].amount.sum().compute()
    return totals


def daily_refunds(days: list[str]) -> list[list[float]]:
    # builds a task graph for each day and runs it on the spot
    return [dask.delayed(clean_day)(f"data/refunds/{day}.txt").compute() for day in days]


def busiest_days() -> list:
    sales = dd.read_parquet("data/sales/*.parquet")
    by_day = sales.groupby("day").amount.sum()
    peak, mean = dask.compute(by_day.max(), by_day.mean())  # one pass for both: fine
    return [peak, mean]


if __name__ == "__main__":
    totals = store_totals(list(range(1, 21)))
    with open("out/store_totals.csv", "w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["store", "revenue"])
        writer.writerows(sorted(totals.items()))
