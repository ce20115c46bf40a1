"""The replication pipeline on Apache Spark (PySpark): sessions, local clusters, stages."""
