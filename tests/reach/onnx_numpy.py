"""An ONNX controller evaluated by NumPy, node by node, from the graph python3-onnx reads (not
simreach's C reader): the oracle's forward pass of the reach and abstraction soundness tests."""
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def onnx_forward(path):
    """the graph's nodes in order, each evaluated with NumPy (the ARCH controllers' ops)"""
    m = onnx.load(path)
    init = {i.name: numpy_helper.to_array(i).astype(np.float64) for i in m.graph.initializer}
    inp = [i.name for i in m.graph.input if i.name not in init][0]
    out = m.graph.output[0].name

    def f(x):
        v = dict(init)
        v[inp] = np.asarray(x, dtype=np.float64).reshape(len(x), -1)
        for n in m.graph.node:
            a = {at.name: onnx.helper.get_attribute_value(at) for at in n.attribute}
            x0 = v[n.input[0]]
            N = len(x)
            if n.op_type == "Sub":
                y = x0.reshape(N, -1) - v[n.input[1]].reshape(1, -1)
            elif n.op_type == "Add":
                y = x0.reshape(N, -1) + v[n.input[1]].reshape(1, -1)
            elif n.op_type == "Gemm":
                A = x0.reshape(N, -1)
                B = v[n.input[1]]
                A = A.T if a.get("transA", 0) else A
                B = B.T if a.get("transB", 0) else B
                y = a.get("alpha", 1.0) * A @ B
                if len(n.input) > 2:
                    y = y + a.get("beta", 1.0) * v[n.input[2]].reshape(1, -1)
            elif n.op_type == "MatMul":
                y = x0.reshape(N, -1) @ v[n.input[1]]
            elif n.op_type == "Conv":  # 1x1 over a 1x1 image: a dense layer
                W = v[n.input[1]]
                y = x0.reshape(N, -1) @ W.reshape(W.shape[0], -1).T
                if len(n.input) > 2:
                    y = y + v[n.input[2]].reshape(1, -1)
            elif n.op_type == "Relu":
                y = np.maximum(x0, 0)
            elif n.op_type == "Tanh":
                y = np.tanh(x0)
            elif n.op_type == "Sigmoid":
                y = 1 / (1 + np.exp(-x0))
            elif n.op_type in ("Flatten", "Reshape", "Identity"):
                y = x0.reshape(N, -1)
            else:
                sys.exit(f"onnx_numpy: op {n.op_type} not handled")
            v[n.output[0]] = y
        return v[out].reshape(len(x), -1)

    return f
