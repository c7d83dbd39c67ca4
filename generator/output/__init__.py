"""The output folder: staging, the digest manifest, recycling the retired output, the atomic swap and the lock.

Owns: ``writer``, ``staged``, ``recycle``, ``manifest``. May import ``generator.dataset`` only; it knows files
and digests, never routes.
"""
