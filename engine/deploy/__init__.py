"""Deployment artefacts generated from a model for replication products (GoldenGate, PostgreSQL...)."""
