"""What the host keeps on disk: the data dir, the journal database, record files."""
