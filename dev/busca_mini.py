"""Busca (dev, numpy) do mini-brinquedo do simulador: A[3] = 0,107; 0,787; 0,107 e y31 = 1,651."""
import numpy as np
import math
import sys
rng = np.random.default_rng(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
EPS = 1e-5
def ln(x):
    mu = x.mean(-1, keepdims=True); var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + EPS)
def gelu(z): return 0.5 * z * (1 + np.tanh(math.sqrt(2 / math.pi) * (z + 0.044715 * z ** 3)))
S = np.array([0, 1, -1, 2, -2])
achou = []
for it in range(200000):
    x = rng.choice(np.array([0, 1, -1, 2, -2, 3]), size=(3, 4))
    if np.any(x.std(1) < 0.3): continue
    u = ln(x)
    WK = rng.choice(S, size=(4, 4)) * (rng.random((4, 4)) < 0.3)
    s = (u[2] @ (u[:3] @ WK).T) / 2  # W_Q = I
    A = np.exp(s - s.max()); A /= A.sum()
    if not (np.all(np.round(A, 3) == [0.107, 0.787, 0.107])): continue
    # W_V = I; W_O: várias tentativas
    n = 20000
    WO = rng.choice(S, size=(n, 4, 4)) * (rng.random((n, 4, 4)) < 0.3)
    o3 = A @ u  # (4,)
    a3 = np.einsum('d,nde->ne', o3, WO)
    h3 = x[2] + a3
    u2 = ln(h3)
    y3 = h3 + gelu(u2) + gelu(-u2)
    ok = np.where(np.abs(y3[:, 0] - 1.651) < 0.0004)[0]
    for i in ok:
        custo = (WK != 0).sum() + (WO[i] != 0).sum() + (np.abs(x) > 1).sum() * 0.3
        achou.append((custo, x, WK, WO[i], A, y3[i]))
    if len(achou) > 30: break
achou.sort(key=lambda t: t[0])
for a in achou[:3]:
    print("custo", a[0]); print("x\n", a[1]); print("WK\n", a[2]); print("WO\n", a[3]); print("A3", a[4], "y3", a[5])
