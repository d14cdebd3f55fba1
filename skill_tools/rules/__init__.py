"""The CUDA-graph rule catalog (data in ``catalog.yaml``), its engine and the MCore oracle."""
