"""Fault injection through the real binary (issue 38): a damaged memory repository, a full disk (a small tmpfs),
processes that start together, a print-mode run ending while its background review goes on. The checkpoint faults,
which use the end-to-end fixtures, are ``tests/e2e/test_checkpoint_faults_e2e.py``; the web view's concurrent reads
``tests/web/test_concurrent_reads.py``."""
