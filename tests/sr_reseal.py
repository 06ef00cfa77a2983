"""Recompute every checksum of a simreach abstraction file (format simreach-abstraction-3,
analysis/abstraction-schema.md), as an attacker who knows the format would after editing it.
Tests use it to plant edits that the checksums alone would not reveal: what is left to catch
them is the validation on open (src/abstraction/abstraction_validate.c) and the re-proof of
simreach check.

    python3 sr_reseal.py FILE [--no-rows]
"""
import sys
import struct
import numpy as np
import h5py

SR_MAX_LAYERS = 8


def fnv(data, seed):
    h = (14695981039346656037 ^ seed) & 0xFFFFFFFFFFFFFFFF
    for b in bytes(data):
        h ^= b
        h = (h * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h if h else 1


def fnv_np(arr_bytes, seed):
    return fnv(arr_bytes, seed)


def seed(tag, i, j):
    return fnv(struct.pack("<qq", i, j), fnv(tag.encode(), 0))


def s(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def one(a):
    return np.asarray(a).reshape(-1)[0]


def header_sum(f):
    net = f["network"]
    widths = [int(w) for w in np.asarray(net.attrs["hidden_widths"]).reshape(-1)]
    model = 1 if s(net.attrs["model"]) == "controller" else 0
    iv = [int(one(f.attrs["n"])), int(one(f.attrs["K"])), int(one(f.attrs["bisect"])), model,
          int(one(net.attrs["control_steps"])), len(widths)] + widths + [0] * (SR_MAX_LAYERS - len(widths))
    h = seed("abstraction-header", 0, 0)
    h = fnv(np.asarray(iv, dtype="<i8").tobytes(), h)
    h = fnv(np.asarray(net.attrs["sys_param"], dtype="<f8").reshape(-1).tobytes(), h)
    h = fnv(np.asarray(one(net.attrs["sys_dt"]), dtype="<f8").tobytes(), h)
    h = fnv(np.asarray(one(net.attrs["sys_umax"]), dtype="<f8").tobytes(), h)
    h = fnv(s(net.attrs["sys"]).encode(), h)
    h = fnv(s(f.attrs["enclosure"]).encode(), h)
    h = fnv(s(f.attrs["network_source"]).encode(), h)
    acts = s(net.attrs["activations"]) if "activations" in net.attrs else ""
    h = fnv(acts.encode(), h)
    for names in (("input_clip_lo", "input_clip_hi", "input_mean", "input_range"), ("output_scale", "output_offset")):
        if names[0] in net.attrs:
            for a in names:
                h = fnv(np.asarray(net.attrs[a], dtype="<f8").reshape(-1).tobytes(), h)
    return h


def reseal(path, rows=True):
    with h5py.File(path, "r+") as f:
        f.attrs["header_checksum"] = np.asarray([header_sum(f)], dtype=np.uint64)
        for g in ("network", "partition"):
            for name, d in f[g].items():
                d.attrs["checksum"] = np.asarray([fnv(d[()].tobytes(), seed(name, 0, 0))], dtype=np.uint64)
        if rows:
            E, L = f["cells/enclosure"][()], f["cells/list"][()]
            sums = np.empty(E.shape[0], dtype=np.uint64)
            for k in range(E.shape[0]):
                sums[k] = fnv(L[k].astype("<i4").tobytes(), fnv(E[k].astype("<f8").tobytes(), seed("abstraction-cells", k, 0)))
            del f["cells/checksum"]
            f["cells/checksum"] = sums
            c, w = f["failures/cell"][()], f["failures/witness"][()]
            fs = np.asarray([fnv(w[i].astype("<f8").tobytes(), fnv(np.int64(c[i]).tobytes(), seed("abstraction-failures", i, 0))) for i in range(len(c))], dtype=np.uint64)
            del f["failures/checksum"]
            f["failures/checksum"] = fs


if __name__ == "__main__":
    reseal(sys.argv[1], rows="--no-rows" not in sys.argv[2:])
