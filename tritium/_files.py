"""One file written whole or not at all, for caches that several processes fill at once
(compile workers storing the same entry): written under a private name, then renamed into
place. Below the layers, since the runtime's cache and a backend's (libdevice) both write."""
from __future__ import annotations

import os
import uuid


def write_atomically(folder: str, name: str, data: bytes) -> bool:
    """`folder/name` holds `data`, made if need be; False (and no stray file) on failure."""
    tmp = os.path.join(folder, f"tmp.pid_{os.getpid()}_{uuid.uuid4().hex}")
    try:
        os.makedirs(folder, exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, os.path.join(folder, name))
        return True
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return False
