"""A one-hidden-layer ReLU controller as the reach oracles write it: the NNet text layout that
simreach reads (SPEC §14; inputs clipped to [-5, 5], no normalisation) and its NumPy forward
pass, so that a test's network and its oracle come from the same weights."""
import numpy as np


def write_relu_nnet(path, W1, b1, W2, b2, comment):
    """Writes path; returns x -> the network's outputs (rows of x are inputs)."""
    hid, nin = W1.shape
    nout = W2.shape[0]
    with open(path, "w") as f:
        f.write(f"// {comment}\n2,{nin},{nout},{max(hid, nin, nout)}\n{nin},{hid},{nout}\n0\n")
        f.write(",".join(["-5"] * nin) + "\n" + ",".join(["5"] * nin) + "\n")
        f.write(",".join(["0"] * (nin + 1)) + "\n" + ",".join(["1"] * (nin + 1)) + "\n")
        for W, b in ((W1, b1), (W2, b2)):
            for row in W:
                f.write(",".join(f"{x:.17g}" for x in row) + "\n")
            for x in b:
                f.write(f"{x:.17g}\n")
    return lambda x: np.maximum(np.clip(x, -5, 5) @ W1.T + b1, 0) @ W2.T + b2
