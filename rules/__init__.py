"""gpulint's rules, one module per rule, grouped by family. Importing a module registers its rule."""
