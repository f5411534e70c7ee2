"""Busca (dev, numpy) de pesos simples para a atenção do brinquedo: a5 do curso."""
import itertools
import numpy as np
import math
import sys
rng = np.random.default_rng(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
S = np.array([0, 0.5, -0.5, 1, -1, 2, -2])
ALVO = np.array([-0.739, 1.411, -0.521, -0.520])
x5 = np.array([-0.5, -0.5, -0.5, 1.5])
EPS = 1e-5
def ln(x):
    mu = x.mean(-1, keepdims=True); var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + EPS)
def gelu(z): return 0.5 * z * (1 + np.tanh(math.sqrt(2 / math.pi) * (z + 0.044715 * z ** 3)))
def r3(v): return np.round(np.asarray(v) + 0.0, 3)
def confere(a5):
    h = x5 + a5; mu = h.mean(); sd = math.sqrt(((h - mu) ** 2).mean() + EPS)  # note: sigma com eps
    up = (h - mu) / sd; m = gelu(up) + gelu(-up); y = h + m
    ok = (np.all(r3(a5) == ALVO) and np.all(r3(h) == [-1.239, 0.911, -1.021, 0.980]) and r3(mu) == -0.092
          and r3(sd) == 1.041 and np.all(r3(up) == [-1.102, 0.964, -0.892, 1.030])
          and r3(gelu(up[0])) == -0.149 and r3(gelu(-up[0])) == 0.952
          and np.all(r3(m) == [0.803, 0.640, 0.560, 0.718]) and np.all(r3(y) == [-0.436, 1.551, -0.461, 1.698]))
    return ok
# colunas de W_V com no máximo 2 entradas não nulas
cols = []
for c in itertools.product(S, repeat=4):
    if np.count_nonzero(c) <= 2: cols.append(c)
cols = np.array(cols).T  # 4 x K
custo_col = (cols != 0).sum(0) + (np.abs(cols) == 0.5).sum(0) * 0.5 + (np.abs(cols) == 2).sum(0) * 0.3
def rand_sparse(shape, p=0.4):
    M = rng.choice(S[1:], size=shape) * (rng.random(shape) < p)
    return M
achados = []
for tent in range(int(sys.argv[2]) if len(sys.argv) > 2 else 4000):
    # E e P esparsos; x5 fixo
    E = {t: rand_sparse(4, 0.4) for t in (0, 2, 4, 5)}
    P = rand_sparse((4, 4), 0.5)
    e1 = rand_sparse(4, 0.4); p5 = x5 - e1
    if not np.all(np.isin(p5, S)): continue
    X = np.array([E[0] + P[0], E[2] + P[1], E[4] + P[2], E[5] + P[3], x5])
    if np.any(X.std(1) < 0.2) or len({tuple(r) for r in X}) < 5: continue
    # todo token e toda posição carregam alguma informação
    if any((v != 0).sum() == 0 for v in E.values()) or (e1 != 0).sum() == 0: continue
    if np.any((P != 0).sum(1) == 0) or (p5 != 0).sum() == 0: continue
    U = ln(X)
    # muitas W_Q, W_K por cabeça
    n = 3000
    WQ = rand_sparse((n, 4, 2), 0.35); WK = rand_sparse((n, 4, 2), 0.35)
    q5 = np.einsum('d,ndk->nk', U[4], WQ); K = np.einsum('jd,ndk->njk', U, WK)
    s = np.einsum('nk,njk->nj', q5, K) / math.sqrt(2)
    A = np.exp(s - s.max(1, keepdims=True)); A /= A.sum(1, keepdims=True)
    ubar = A @ U  # n x 4
    vals = ubar @ cols  # n x K
    best = {}
    for hd, (t1, t2) in enumerate([(ALVO[0], ALVO[1]), (ALVO[2], ALVO[3])]):
        ok1 = np.abs(vals - t1) < 0.0005; ok2 = np.abs(vals - t2) < 0.0005
        idx = np.where(ok1.any(1) & ok2.any(1))[0]
        for i in idx:
            c1 = np.where(ok1[i])[0]; c2 = np.where(ok2[i])[0]
            c1 = c1[np.argmin(custo_col[c1])]; c2 = c2[np.argmin(custo_col[c2])]
            cost = custo_col[c1] + custo_col[c2] + (WQ[i] != 0).sum() * 0.5 + (WK[i] != 0).sum() * 0.5
            # preferência didática: uma cabeça olha o token anterior, a outra o primeiro
            padrao = 'ant' if A[i, 3] > 0.6 else ('pri' if A[i, 0] > 0.6 else None)
            if padrao is None: continue
            if hd == 1 and 0 in best and best[0][7] == padrao: continue
            cost -= 0
            if hd not in best or cost < best[hd][0]:
                best[hd] = (cost, WQ[i], WK[i], cols[:, c1], cols[:, c2], A[i], None, padrao)
    if len(best) == 2:
        b0, b1 = best[0], best[1]
        # reconstrói a5 exato
        def head_out(b):
            WQh, WKh, v1, v2, Ah = b[1:6]
            return Ah @ U @ np.stack([v1, v2], 1)
        a5 = np.concatenate([head_out(b0), head_out(b1)])
        if confere(a5):
            todos = np.concatenate([*E.values(), e1, P.ravel(), p5, b0[1].ravel(), b0[2].ravel(), b1[1].ravel(), b1[2].ravel()])
            cost = b0[0] + b1[0] + sum((v != 0).sum() for v in E.values()) * 0.3 + (P != 0).sum() * 0.3 + (np.abs(todos) == 0.5).sum() * 0.4 + (np.abs(todos) == 2).sum() * 0.2
            achados.append((cost, X, E, e1, P, p5, b0, b1, a5))
            print(f"tent {tent} custo {cost:.1f} a5 {a5}", flush=True)
achados.sort(key=lambda t: t[0])
np.save(f'/tmp/achados_{sys.argv[1] if len(sys.argv)>1 else 0}.npy', np.array(achados[:20], dtype=object), allow_pickle=True)
for a in achados[:3]:
    cost, X, E, e1, P, p5, b0, b1, a5 = a
    print("CUSTO", cost); print("X\n", X); print("E", E, "e_no", e1); print("P\n", P, "\np5", p5)
    for b in (b0, b1): print("WQ\n", b[1], "\nWK\n", b[2], "\nv cols", b[3], b[4], "\nA5", b[5])
    print("a5", a5)
