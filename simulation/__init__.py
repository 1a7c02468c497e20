"""N-edge experiments (benchmark bundles live in simulation/bundles/)."""
