"""Dev: parte da W_U atual e troca entradas por valores simples ({0, ±0,5, ±1, ±1,5, ±2})
enquanto as outras, reajustadas, ainda reproduzem os números do curso; no fim arredonda as
que sobraram para duas (ou três) casas. Usa as funções de ajuste_saida.py.
O scipy não está no requirements.txt (o livro não o usa): `.venv/bin/pip install scipy==1.17.1`.
"""
import sys
import numpy as np
from scipy.optimize import least_squares
CASAS_FIM = int(sys.argv[1]) if len(sys.argv) > 1 else 2
MIN_ARG = sys.argv[2] if len(sys.argv) > 2 else "24"
from ajuste_saida import residuos, confere, viol  # noqa: E402  (dev/ é a pasta do script; nada roda no import)
from livro import brinquedo as bq  # noqa: E402

W0 = np.array(bq.W_U, float).ravel()
MIN_LIVRES = int(MIN_ARG)
SIMPLES = np.array([0, 0.5, -0.5, 1, -1, 1.5, -1.5, 2, -2])


def refit(w, livres):
    def r(wl):
        t = w.copy(); t[livres] = wl
        return residuos(t, reg=0.0)
    t = w.copy()
    t[livres] = least_squares(r, w[livres], method="trf", max_nfev=400).x
    return t


w = W0.copy()
fixas = {}
ordem = list(np.argsort(np.abs(w - np.round(w * 2) / 2)))  # as mais perto de um simples primeiro
for idx in ordem:
    livres = [i for i in range(48) if i not in fixas and i != idx]
    if len(livres) < MIN_LIVRES:
        break
    melhor = None
    for v in sorted(SIMPLES, key=lambda v: abs(v - w[idx])):
        if abs(v - w[idx]) > 1.0:
            break
        t = w.copy(); t[idx] = v
        t = refit(t, livres)
        if confere(t.reshape(4, 12)):
            melhor = t
            break
    if melhor is not None:
        w = melhor; fixas[idx] = w[idx]
        print(f"fixa W_U[{idx // 12}][{idx % 12}] = {w[idx]} ({len(fixas)} simples)", flush=True)
# arredonda as livres, reajustando aos poucos
livres = [i for i in range(48) if i not in fixas]
while livres:
    i = livres.pop(0)
    w[i] = round(w[i], CASAS_FIM)
    if livres:
        w = refit(w, livres)
# conserto fino: passos de uma unidade da última casa nas entradas livres
livres = [i for i in range(48) if i not in fixas]
passo = 10.0 ** -CASAS_FIM
for volta in range(60):
    if confere(w.reshape(4, 12)) and viol(w.reshape(4, 12)) < 0.9:
        break
    base, melhor = viol(w.reshape(4, 12)), None
    for i in livres:
        for dlt in (-passo, passo, -2 * passo, 2 * passo):
            t = w.copy(); t[i] = round(t[i] + dlt, CASAS_FIM)
            v = viol(t.reshape(4, 12))
            if v < base:
                base, melhor = v, t
    if melhor is None:
        break
    w = melhor
W = w.reshape(4, 12)
print("confere:", confere(W), "viol", round(viol(W), 3), "simples:", len(fixas))
if confere(W):
    np.save(f"/tmp/WU_simples_{CASAS_FIM}.npy", W)
    print(repr(W.round(CASAS_FIM).tolist()))
