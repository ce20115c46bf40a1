"""Deployments of a model to real replication products (PostgreSQL logical replication, GoldenGate)."""
