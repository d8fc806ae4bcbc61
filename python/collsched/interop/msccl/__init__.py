"""MSCCL XML algorithm files: read, check, simulate and write them."""
