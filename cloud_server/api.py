"""The public Python API of the cloud."""
