#!/usr/bin/env python3
"""Convert an ARCH-COMP AINNCS controller (ONNX, as published in verivital/ARCH-COMP2022) into a
simreach network file (HDF5, src/model/network_file.c) with per-layer activations.

  convert.py IN.onnx OUT.h5 [--drop-sub]

Accepted graphs: a chain of Sub (input offset), Gemm / MatMul+Add / 1x1 Conv (affine layers),
Relu / Tanh / Sigmoid, Flatten.  The weights are copied exactly (float32 -> float64).  A leading
Sub of a constant is not folded into the bias (that would round): with --drop-sub it is dropped
and its constant printed, and the plant file's 'input' lines must subtract it (they are evaluated
in outward-rounded arithmetic); without --drop-sub a nonzero Sub is refused.  Writes OUT.h5 only
if it does not exist.  This is a data conversion for jobs/arch (docs/arch.md), not a reader of
simreach: SPEC §14's ONNX reader refuses Sub and Conv."""
import argparse
import os
import sys

import h5py
import numpy as np
import onnx
from onnx import numpy_helper


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("inp")
    ap.add_argument("out")
    ap.add_argument("--drop-sub", action="store_true")
    a = ap.parse_args()
    m = onnx.load(a.inp)
    init = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in m.graph.initializer}
    layers, acts, pending = [], [], None  # pending: (W, b) awaiting its activation
    for node in m.graph.node:
        op = node.op_type
        if op == "Sub":
            c = init[node.input[1]].ravel()
            if np.any(c != 0) and not a.drop_sub:
                sys.exit(f"convert.py: {a.inp}: Sub of {c.tolist()} before the first layer; give --drop-sub and subtract it in the plant file")
            print(f"{a.inp}: input offset (Sub) {c.tolist()} dropped")
        elif op in ("Gemm", "MatMul", "Conv"):
            if pending is not None:
                layers.append(pending), acts.append("linear")
            W = init[node.input[1]]
            if op == "Gemm":
                attrs = {x.name: onnx.helper.get_attribute_value(x) for x in node.attribute}
                if attrs.get("transB", 0) == 0:
                    W = W.T
                if attrs.get("alpha", 1.0) != 1.0 or attrs.get("beta", 1.0) != 1.0 or attrs.get("transA", 0):
                    sys.exit(f"convert.py: {a.inp}: Gemm with alpha/beta/transA")
            elif op == "MatMul":
                W = W.T
            else:  # Conv over a 1 x k input: [out, in, 1, k] or [out, in, 1, 1]
                W = W.reshape(W.shape[0], -1)
            b = init[node.input[2]].ravel() if len(node.input) > 2 else np.zeros(W.shape[0])
            pending = [W, b]
        elif op == "Add":
            pending[1] = pending[1] + init[node.input[1]].ravel()
        elif op in ("Relu", "Tanh", "Sigmoid"):
            layers.append(pending), acts.append(op.lower())
            pending = None
        elif op == "Flatten":
            pass
        else:
            sys.exit(f"convert.py: {a.inp}: operator {op} not handled")
    if pending is not None:
        layers.append(pending), acts.append("linear")
    if os.path.exists(a.out):
        sys.exit(f"convert.py: {a.out} exists")
    widths = [layers[0][0].shape[1]] + [W.shape[0] for W, _ in layers]
    with h5py.File(a.out + ".part", "w") as f:
        f.attrs["simreach_format"] = np.bytes_("simreach-network-2")
        f.attrs["sys"] = np.bytes_("none")
        f.attrs["model"] = np.bytes_("controller")
        f.attrs["activations"] = np.bytes_(",".join(acts))
        f.attrs["control_steps"] = np.int64(1)
        f.attrs["source"] = np.bytes_(os.path.basename(a.inp))
        f["widths"] = np.asarray(widths, dtype=np.int64)
        for i, (W, b) in enumerate(layers):
            f[f"layers/{i}/weight"] = W
            f[f"layers/{i}/bias"] = b
    os.replace(a.out + ".part", a.out)
    print(f"{a.out}: widths {widths}, activations {','.join(acts)}")


if __name__ == "__main__":
    main()
