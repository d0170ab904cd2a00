"""The tier sample: usefulness of gpulint's findings on repositories it was never tuned on."""
