"""Recompute every checksum of a simreach network file (format simreach-network-3) or safety
file (simreach-safety-2), as an attacker who knows the formats would after editing one, so that
only the validation on open (and, for safety files, simreach check's recomputation) can see the
edit.  The rules: analysis/abstraction-schema.md; the network file's through
analysis/network_torch.py, the safety file's here (src/graph/safety_file.c).

    python3 sr_reseal_net.py FILE
"""
import os
import struct
import sys
import numpy as np
import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from network_torch import fnv, checksum_seed, header_checksum, TRANSFORM_IN, TRANSFORM_OUT  # noqa: E402

SR_PAD_DIM = 3  # the per-dimension values are padded to max(3, n) slots (src/graph/safety_file.c)


def s(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def one(a):
    return np.asarray(a).reshape(-1)[0]


def reseal_network(f):
    loop = {"sys": s(f.attrs["sys"]), "model": s(f.attrs["model"]), "control_steps": int(one(f.attrs["control_steps"])),
            "sys_param": [float(v) for v in np.asarray(f.attrs["sys_param"]).reshape(-1)],
            "sys_dt": float(one(f.attrs["sys_dt"])), "sys_umax": float(one(f.attrs["sys_umax"]))}
    tr = {k: np.asarray(f.attrs[k], dtype=np.float64).reshape(-1) for k in TRANSFORM_IN + TRANSFORM_OUT if k in f.attrs}
    f.attrs["header_checksum"] = np.uint64(header_checksum(loop, s(f.attrs["activations"]), tr))

    def visit(name, o):
        if isinstance(o, h5py.Dataset):
            o.attrs["checksum"] = np.uint64(fnv(np.ascontiguousarray(o[()]).tobytes(), checksum_seed(name)))
    f.visititems(visit)


def reseal_safety(f):
    a = f.attrs
    n = int(one(a["n"]))
    pad = lambda v, z=0: list(v)[:n] + [z] * (max(SR_PAD_DIM, n) - n)  # noqa: E731
    iv = [one(a[k]) for k in ("K", "n", "iterations", "safe_cells", "unverified_cells", "max_horizon", "trajectory_cap",
                              "trajectories", "trajectories_with_claim", "trajectory_steps", "trajectory_violations",
                              "source_run", "source_seed")] + [0, 0] + pad(np.asarray(a["counts"]).reshape(-1))
    dv = [one(a[k]) for k in ("safe_fraction", "mean_horizon", "time_total", "source_beta", "source_tau")]
    dv += pad(np.asarray(a["domain_lo"]).reshape(-1), 0.0) + pad(np.asarray(a["domain_hi"]).reshape(-1), 0.0)
    h = checksum_seed("safety-header")
    h = fnv(np.asarray(iv, dtype="<i8").tobytes(), h)
    h = fnv(np.asarray(dv, dtype="<f8").tobytes(), h)
    for k in ("sys", "abstraction", "source_file"):
        h = fnv(s(a[k]).encode(), h)
    a["header_checksum"] = np.uint64(h)
    H = f["horizon"][()]
    sums = np.asarray([fnv(np.int32(H[k]).tobytes(), checksum_seed("safety-horizon", k)) for k in range(len(H))], dtype=np.uint64)
    f["horizon_checksum"][...] = sums


if __name__ == "__main__":
    with h5py.File(sys.argv[1], "r+") as f:
        fmt = s(f.attrs["simreach_format"])
        if fmt == "simreach-network-3":
            reseal_network(f)
        elif fmt == "simreach-safety-2":
            reseal_safety(f)
        else:
            sys.exit(f"sr_reseal_net.py: {sys.argv[1]}: format {fmt}")
