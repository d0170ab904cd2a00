"""Train a small classifier on tabular features and keep the best epoch's weights.

A typical PyTorch script: the per-batch `.to(device)` copies are what a training loop is
for; the other copies between host and device are not.
"""

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Classifier(nn.Module):
    def __init__(self, features: int, classes: int):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(features, 64), nn.ReLU(), nn.Linear(64, classes))

    def forward(self, x):
        return self.layers(x)


features = np.load("data/features.npy").astype(np.float32)
labels = np.load("data/labels.npy").astype(np.int64)
split = int(len(features) * 0.8)
train_set = TensorDataset(torch.from_numpy(features[:split]), torch.from_numpy(labels[:split]))
valid_set = TensorDataset(torch.from_numpy(features[split:]), torch.from_numpy(labels[split:]))

# Rare classes weigh more: inverse class frequency.
counts = np.bincount(labels, minlength=3)
class_weights = torch.tensor(len(labels) / (3 * np.maximum(counts, 1)), dtype=torch.float32)

model = Classifier(features.shape[1], 3).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
train_loader = DataLoader(train_set, batch_size=256, shuffle=True)
valid_loader = DataLoader(valid_set, batch_size=1024, num_workers=2)


def train_one_epoch():
    model.train()
    running = 0.0
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        loss = F.cross_entropy(model(x), y, weight=class_weights.to(device))
        if not torch.isfinite(loss):
            raise FloatingPointError(f"loss diverged: {loss}")
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running += loss.item()
    return running / len(train_loader)


@torch.no_grad()
def evaluate():
    model.eval()
    correct = torch.zeros(1).to(device)
    total_loss = torch.zeros((), device=device)
    for x, y in valid_loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        logits = model(x)
        total_loss += F.cross_entropy(logits, y, reduction="sum")
        correct += (logits.argmax(dim=1) == y).sum()
    return total_loss / len(valid_set), correct.item() / len(valid_set)


best_loss = torch.tensor(float("inf"), device=device)
for epoch in range(20):
    train_loss = train_one_epoch()
    valid_loss, accuracy = evaluate()
    print(f"epoch {epoch}: train {train_loss:.4f}, valid {valid_loss.item():.4f}, accuracy {accuracy:.3f}")
    if valid_loss < best_loss:
        best_loss = valid_loss
        torch.save(model.state_dict(), "out/best_classifier.pt")
