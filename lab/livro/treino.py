"""De onde vêm os pesos: a perda do passo 6 de volta a cada peso do brinquedo, e o treino.

Só a biblioteca padrão (o mesmo arquivo roda no Pyodide). Os pesos são um dict
{nome: lista de linhas} com os nomes de `livro.brinquedo` (E, P, W_Q, W_K, W_V, W_O,
W1, W2, W_U); γ = 1 e β = 0 nas LayerNorms ficam fixos, como no brinquedo.

    ida(pesos, ids)        o caminho de ida, guardando cada etapa
    perda(pesos, ids)      a perda média do próximo token nas linhas que têm alvo
    gradiente(pesos, ids)  ∂perda/∂peso, com as mesmas chaves e formas de `pesos`

O caminho de volta tem uma função por equação, com o nome da etapa de ida que ela
desfaz (`volta_saida` desfaz `saida`, `volta_LN` desfaz `LN`...). `pos_ln=True` troca
o bloco pré-LN pelo pós-LN (a norma no fluxo, sem norma final).
"""
import math
import random
from math import fsum
from operator import mul

from livro import brinquedo as b

NOMES = ("E", "P", "W_Q", "W_K", "W_V", "W_O", "W1", "W2", "W_U")


def pesos_do_brinquedo():
    """Os pesos postos à mão de `livro.brinquedo`, copiados para um dict de listas de floats."""
    return {nome: [[float(x) for x in linha] for linha in getattr(b, nome)] for nome in NOMES}


def formas():
    """nome -> (linhas, colunas) de cada peso."""
    return {nome: (len(M), len(M[0])) for nome, M in pesos_do_brinquedo().items()}


def pesos_aleatorios(semente, escala=0.5):
    """Um começo aleatório: cada peso uniforme em [-escala, escala), do gerador com `semente`.

    Só `random.random()` (o Mersenne Twister, contas inteiras): o mesmo em toda máquina."""
    gerador = random.Random(semente)
    return {nome: [[escala * (2 * gerador.random() - 1) for _ in range(c)] for _ in range(n)]
            for nome, (n, c) in formas().items()}


def zeros_como(pesos):
    return {nome: [[0.0] * len(M[0]) for _ in M] for nome, M in pesos.items()}


# ---------------------------------------------------------------------------
# Álgebra mínima, com somas exatas
# ---------------------------------------------------------------------------
# Toda soma é `math.fsum` (arredondada uma vez só, do valor exato): o mesmo resultado em
# qualquer ordem, em qualquer máquina IEEE e em qualquer Python (o `sum` de floats mudou no
# 3.12, e o Pyodide é 3.13). Só exp, log e tanh (a libm) ainda podem variar no último bit.
def matmul(A, B):
    """A B -> (n x m), para A (n x k) e B (k x m)."""
    Bt = list(zip(*B))
    return [[fsum(map(mul, linha, col)) for col in Bt] for linha in A]


def matmul_t(A, B):
    """A Bᵀ -> (n x m), para A (n x k) e B (m x k)."""
    return [[fsum(map(mul, linha, col)) for col in B] for linha in A]


def t_matmul(A, B):
    """Aᵀ B -> (k x m), para A (n x k) e B (n x m): o gradiente de um peso."""
    return matmul(b.transposta(A), B)


def media(v):
    return fsum(v) / len(v)


def desvio(v):
    """√(σ² + ε), como `brinquedo.desvio`."""
    mu = media(v)
    return math.sqrt(fsum([(x - mu) ** 2 for x in v]) / len(v) + b.EPS)


def LN(X):
    """LayerNorm de cada linha (γ = 1, β = 0)."""
    return LN_e_desvios(X)[0]


def LN_e_desvios(X):
    """-> (LN(X), o desvio s de cada linha): a volta reaproveita os dois."""
    out, S = [], []
    for v in X:
        mu = fsum(v) / len(v)                                    # media(v) e desvio(v), numa conta só
        s = math.sqrt(fsum([(x - mu) ** 2 for x in v]) / len(v) + b.EPS)
        out.append([(x - mu) / s for x in v])
        S.append(s)
    return out, S


def softmax(z):
    m = max(z)
    e = [math.exp(x - m) if x != -math.inf else 0.0 for x in z]
    s = fsum(e)
    return [x / s for x in e]


def soma(A, B):
    return [[a + c for a, c in zip(la, lb)] for la, lb in zip(A, B)]


# ---------------------------------------------------------------------------
# O caminho de ida, guardando o que a volta precisa
# ---------------------------------------------------------------------------
def _valida(ids):
    if not isinstance(ids, (list, tuple)) or not all(isinstance(i, int) and 0 <= i < b.V
                                                       for i in ids):
        raise b.ErroToken(f"Os ids precisam ser inteiros de 0 a {b.V - 1}.")
    if len(ids) < 2:
        raise b.ErroToken("É preciso ao menos dois tokens: um que lê e um que é o alvo.")
    if len(ids) > b.n_ctx:
        raise b.ErroToken(f"O brinquedo conhece só {b.n_ctx} posições; a entrada tem {len(ids)} tokens.")


def embed(pesos, ids, posicoes):
    """X = E[ids] + P[posições] -> (n x d)."""
    return [[e + p for e, p in zip(pesos["E"][t], pesos["P"][pos])] for pos, t in zip(posicoes, ids)]


def causal(n):
    """A máscara causal, como listas: a linha i vê as linhas 0..i."""
    return [list(range(i + 1)) for i in range(n)]


def atencao(pesos, u, vistos):
    """As duas cabeças e W_O, como `brinquedo.atencao`, com os pesos dados. `vistos[i]`: as linhas
    que a linha i vê (a máscara); A^c guarda só essas entradas (as outras são zero)."""
    # Q, K e V num produto só: u [W_Q | W_K | W_V], depois separados
    QKV = matmul(u, [q + k + v for q, k, v in zip(pesos["W_Q"], pesos["W_K"], pesos["W_V"])])
    # a cabeça c de Q, de K e de V, cortada direto de QKV: {"Q": [Q¹, Q²], "K": ..., "V": ...}
    cab = {M: [b.colunas(QKV, i * b.d + c * b.d_h, i * b.d + (c + 1) * b.d_h) for c in range(b.n_cabecas)]
           for i, M in enumerate("QKV")}
    r = 1 / math.sqrt(b.d_h)
    A, O = [], []
    for Qc, Kc, Vc in zip(cab["Q"], cab["K"], cab["V"]):
        Ac = [softmax([fsum(map(mul, q, Kc[j])) * r for j in vis])
              for q, vis in zip(Qc, vistos)]                          # Q^c K^cᵀ / √d_h + M
        A.append(Ac)
        O.append([[fsum(map(mul, a, col)) for col in zip(*[Vc[j] for j in vis])]   # A^c V^c
                  for a, vis in zip(Ac, vistos)])
    concat = junta_cabecas(O, len(u))
    return {**cab, "A": A, "vistos": vistos, "concat": concat,
            "a": matmul(concat, pesos["W_O"])}


def gelu(z):
    """A GELU do brinquedo (a aproximação por tanh), com z·z·z no lugar de z ** 3 (o `**` é a libm)."""
    return 0.5 * z * (1 + math.tanh(b.C_GELU * (z + b.K_GELU * z * z * z)))


def mlp(pesos, u2):
    """g = u' W1, o = gelu(g), m = o W2 (e o tanh de cada gelu, que a volta reaproveita)."""
    g = matmul(u2, pesos["W1"])
    tg = [[math.tanh(b.C_GELU * (z + b.K_GELU * z * z * z)) for z in linha] for linha in g]
    o = [[0.5 * z * (1 + t) for z, t in zip(lz, lt)] for lz, lt in zip(g, tg)]   # gelu(g)
    return {"g": g, "tg": tg, "o": o, "m": matmul(o, pesos["W2"])}


def ida(pesos, ids, pos_ln=False):
    """O caminho de ida inteiro -> dict com cada etapa (nomes das páginas)."""
    _valida(ids)
    return ida_mascarada(pesos, ids, range(len(ids)), causal(len(ids)), pos_ln)


def ida_mascarada(pesos, ids, posicoes, vistos, pos_ln=False):
    """A ida com posições e máscara dadas (a árvore do corpus: cada linha vê os seus prefixos)."""
    X = embed(pesos, ids, posicoes)
    ln = {}                                         # entrada da LN -> (saída, desvios), para a volta
    if not pos_ln:
        u, *_ = ln["X"] = LN_e_desvios(X)           # pré-LN: o ramo lê uma cópia normalizada
        at = atencao(pesos, u, vistos)
        h = soma(X, at["a"])
        u2, *_ = ln["h"] = LN_e_desvios(h)
        ml = mlp(pesos, u2)
        y = soma(h, ml["m"])
        y_chapeu, *_ = ln["y"] = LN_e_desvios(y)    # a norma final
    else:
        u = X                                         # pós-LN: a norma fica no fluxo
        at = atencao(pesos, u, vistos)
        h_soma = soma(X, at["a"])
        h, *_ = ln["h_soma"] = LN_e_desvios(h_soma)
        u2 = h
        ml = mlp(pesos, u2)
        y_soma = soma(h, ml["m"])
        y, *_ = ln["y_soma"] = LN_e_desvios(y_soma)  # sem norma final
        y_chapeu = y
    z = matmul(y_chapeu, pesos["W_U"])
    p = [softmax(linha) for linha in z]
    r = {"ids": list(ids), "posicoes": list(posicoes), "pos_ln": pos_ln, "X": X, "u": u, **at, "h": h, "u2": u2, **ml,
         "y": y, "y_chapeu": y_chapeu, "z": z, "p": p, "ln": ln}
    if pos_ln:
        r["h_soma"], r["y_soma"] = h_soma, y_soma
    return r


def perdas(pesos, ids, pos_ln=False):
    """-ln p(alvo) de cada linha que tem alvo -> lista de n-1."""
    p = ida(pesos, ids, pos_ln)["p"]
    return [-math.log(p[i][ids[i + 1]]) for i in range(len(ids) - 1)]


def perda(pesos, ids, pos_ln=False):
    """A perda média do próximo token nas n-1 linhas que têm alvo (em nats)."""
    ps = perdas(pesos, ids, pos_ln)
    return fsum(ps) / len(ps)


# ---------------------------------------------------------------------------
# O caminho de volta: uma função por equação, da perda até E e P
# ---------------------------------------------------------------------------
def volta_perda(p, ids):
    """∂L/∂z_i = (p_i − e_{alvo}) / (n−1) nas linhas com alvo; a última linha, zero."""
    n = len(ids)
    dz = []
    for i, linha in enumerate(p):
        if i == n - 1:
            dz.append([0.0] * len(linha))
        else:
            dz.append([(pj - (1.0 if j == ids[i + 1] else 0.0)) / (n - 1) for j, pj in enumerate(linha)])
    return dz


def volta_saida(y_chapeu, dz, W_U):
    """z = ŷ W_U  ->  ∂L/∂W_U = ŷᵀ ∂L/∂z  e  ∂L/∂ŷ = ∂L/∂z W_Uᵀ."""
    return t_matmul(y_chapeu, dz), matmul_t(dz, W_U)


def volta_ln_linha(v, dv_chapeu, vc=None, s=None):
    """v̂ = (v − μ)/s, s = √(σ² + ε)  ->  ∂L/∂v = (g − média(g) − v̂ · média(g ⊙ v̂)) / s, g = ∂L/∂v̂.
    `vc` e `s`, se vierem da ida, não são refeitos."""
    if vc is None:
        mu, s = media(v), desvio(v)
        vc = [(x - mu) / s for x in v]
    mg = media(dv_chapeu)
    mgv = fsum(map(mul, dv_chapeu, vc)) / len(v)
    return [(g - mg - x * mgv) / s for g, x in zip(dv_chapeu, vc)]


def volta_LN(X, dU, ida_ln=None):
    """A LayerNorm de cada linha, de volta (linha a linha, cada token separado); `ida_ln`, o par
    (LN(X), desvios) guardado na ida."""
    if ida_ln is None:
        return [volta_ln_linha(x, du) for x, du in zip(X, dU)]
    return [volta_ln_linha(x, du, vc, s) for x, du, vc, s in zip(X, dU, *ida_ln)]


def volta_gelu_escalar(z, t=None):
    """GELU_tanh'(z) = ½(1 + t) + ½ z (1 − t²) √(2/π)(1 + 3·0,044715 z²), t = tanh(√(2/π)(z + 0,044715 z³))."""
    if t is None:
        t = math.tanh(b.C_GELU * (z + b.K_GELU * z * z * z))
    return 0.5 * (1 + t) + 0.5 * z * (1 - t * t) * b.C_GELU * (1 + 3 * b.K_GELU * z * z)


def volta_mlp(u2, g, o, dm, W1, W2, tg=None):
    """m = gelu(u' W1) W2  ->  ∂L/∂W2 = oᵀ ∂L/∂m, ∂L/∂g = (∂L/∂m W2ᵀ) ⊙ gelu'(g),
    ∂L/∂W1 = u'ᵀ ∂L/∂g, ∂L/∂u' = ∂L/∂g W1ᵀ."""
    dW2 = t_matmul(o, dm)
    do = matmul_t(dm, W2)
    if tg is None:
        dg = [[d_ * volta_gelu_escalar(x) for d_, x in zip(ld, lg)] for ld, lg in zip(do, g)]
    else:                                       # volta_gelu_escalar(x, t), sem chamar a função
        C, K = b.C_GELU, b.K_GELU
        dg = [[d_ * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * C * (1 + 3 * K * x * x))
               for d_, x, t in zip(ld, lg, lt)] for ld, lg, lt in zip(do, g, tg)]
    return {"W1": t_matmul(u2, dg), "W2": dW2, "u2": matmul_t(dg, W1)}


def volta_softmax(A, dA):
    """A = softmax(S) em cada linha  ->  ∂L/∂S = A ⊙ (∂L/∂A − soma da linha de ∂L/∂A ⊙ A)."""
    out = []
    for a, da in zip(A, dA):
        s = fsum(map(mul, a, da))
        out.append([x * (y - s) for x, y in zip(a, da)])
    return out


def volta_cabeca(Qc, Kc, Vc, Ac, dOc, vistos, quem_ve):
    """O^c = A^c V^c, A^c = softmax(Q^c K^cᵀ/√d_h + M) -> (∂L/∂Q^c, ∂L/∂K^c, ∂L/∂V^c).

    A máscara não tem gradiente: onde ela vale −∞, A = 0 e a volta do softmax dá zero; as contas
    correm só nas entradas vistas. `quem_ve[j]`: os pares (i, k) com vistos[i][k] = j."""
    dA = [[fsum(map(mul, d, Vc[j])) for j in vis] for d, vis in zip(dOc, vistos)]  # ∂L/∂O Vᵀ
    dS = volta_softmax(Ac, dA)
    r = 1 / math.sqrt(len(Qc[0]))
    dQc = [[fsum(map(mul, ds, col)) * r for col in zip(*[Kc[j] for j in vis])]      # ∂L/∂S K / √d_h
           for ds, vis in zip(dS, vistos)]
    dKc, dVc = [], []
    for par in quem_ve:
        Qs, dOs = [Qc[i] for i, _ in par], [dOc[i] for i, _ in par]
        dKc.append([fsum(map(mul, [dS[i][k] for i, k in par], col)) * r for col in zip(*Qs)])  # ∂L/∂Sᵀ Q / √d_h
        dVc.append([fsum(map(mul, [Ac[i][k] for i, k in par], col)) for col in zip(*dOs)])     # Aᵀ ∂L/∂O
    return dQc, dKc, dVc


def junta_cabecas(partes, n, quantas=b.n_cabecas):
    """[M¹ | M²]: as d_h colunas de cada cabeça lado a lado -> (n x d)."""
    return [[x for c in range(quantas) for x in partes[c][i]] for i in range(n)]


def volta_atencao(u, at, da, pesos):
    """a = [O¹ | O²] W_O, Q = u W_Q, K = u W_K, V = u W_V -> gradientes dos quatro pesos e de u
    (e [∂L/∂Q | ∂L/∂K | ∂L/∂V], em "QKV")."""
    dW_O = t_matmul(at["concat"], da)
    dconcat = matmul_t(da, pesos["W_O"])
    n, dQ, dK, dV = len(u), [], [], []
    quem_ve = [[] for _ in range(n)]
    for i, vis in enumerate(at["vistos"]):
        for k, j in enumerate(vis):
            quem_ve[j].append((i, k))
    for c in range(b.n_cabecas):
        dOc = b.cabeca(dconcat, c)
        partes = volta_cabeca(at["Q"][c], at["K"][c], at["V"][c],
                              at["A"][c], dOc, at["vistos"], quem_ve)
        for lista, parte in zip((dQ, dK, dV), partes):
            lista.append(parte)
    dQKV = junta_cabecas(dQ + dK + dV, n, 3 * b.n_cabecas)          # [∂L/∂Q | ∂L/∂K | ∂L/∂V]
    du = matmul_t(dQKV, [q + k + v for q, k, v in zip(pesos["W_Q"], pesos["W_K"], pesos["W_V"])])
    dW = t_matmul(u, dQKV)                                            # uᵀ [∂L/∂Q | ∂L/∂K | ∂L/∂V]
    return {"W_Q": b.colunas(dW, 0, b.d), "W_K": b.colunas(dW, b.d, 2 * b.d),
            "W_V": b.colunas(dW, 2 * b.d, 3 * b.d), "W_O": dW_O, "u": du, "QKV": dQKV}


def volta_embed(ids, dX, pesos, posicoes):
    """X = E[ids] + P[posições]  ->  a linha i de ∂L/∂X soma-se à linha ids[i] de ∂L/∂E e à
    linha posições[i] de ∂L/∂P."""
    dE = [[0.0] * len(pesos["E"][0]) for _ in pesos["E"]]
    dP = [[0.0] * len(pesos["P"][0]) for _ in pesos["P"]]
    for i, t, dx in zip(posicoes, ids, dX):
        dE[t] = [e + x for e, x in zip(dE[t], dx)]
        dP[i] = [p + x for p, x in zip(dP[i], dx)]
    return dE, dP


def volta(pesos, r, dz=None):
    """O caminho de volta inteiro a partir da ida `r` -> (dict de gradientes, etapas da volta).
    Sem `dz`, a perda é a média do próximo token nas linhas de `r["ids"]`."""
    ids = r["ids"]
    dz = volta_perda(r["p"], ids) if dz is None else dz
    ln = r["ln"]
    dW_U, dy_chapeu = volta_saida(r["y_chapeu"], dz, pesos["W_U"])
    if not r["pos_ln"]:
        dy = volta_LN(r["y"], dy_chapeu, ln["y"])              # a norma final
        dh, dm = dy, dy                                        # y = h + m
        ml = volta_mlp(r["u2"], r["g"], r["o"], dm, pesos["W1"], pesos["W2"], r["tg"])
        dh = soma(dh, volta_LN(r["h"], ml["u2"], ln["h"]))   # u' = LN(h)
        dX, da = dh, dh                                        # h = x + a
        at = volta_atencao(r["u"], r, da, pesos)
        dX = soma(dX, volta_LN(r["X"], at["u"], ln["X"]))    # u = LN(x)
    else:
        dy = dy_chapeu
        dy_soma = volta_LN(r["y_soma"], dy, ln["y_soma"])      # y = LN(h + m)
        ml = volta_mlp(r["u2"], r["g"], r["o"], dy_soma, pesos["W1"], pesos["W2"], r["tg"])
        dh = soma(dy_soma, ml["u2"])                         # o MLP lê h direto
        dh_soma = volta_LN(r["h_soma"], dh, ln["h_soma"])      # h = LN(x + a)
        at = volta_atencao(r["u"], r, dh_soma, pesos)
        dX = soma(dh_soma, at["u"])                          # a atenção lê x direto
    dE, dP = volta_embed(ids, dX, pesos, r["posicoes"])
    grad = {"E": dE, "P": dP, "W_Q": at["W_Q"], "W_K": at["W_K"], "W_V": at["W_V"],
            "W_O": at["W_O"], "W1": ml["W1"], "W2": ml["W2"], "W_U": dW_U}
    etapas = {"dz": dz, "dy_chapeu": dy_chapeu, "dy": dy, "dh": dh, "dX": dX}
    return grad, etapas


def gradiente(pesos, ids, pos_ln=False):
    """∂(perda média do próximo token)/∂(cada peso): dict com as chaves e formas de `pesos`."""
    return volta(pesos, ida(pesos, ids, pos_ln))[0]


def soma_gradientes(G, H, peso=1.0):
    """G + peso·H, peso a peso (para somar os gradientes de várias frases)."""
    return {k: [[g + peso * h for g, h in zip(lg, lh)] for lg, lh in zip(G[k], H[k])] for k in G}


# Os limites que a página cita e os testes usam: a volta contra o torch e contra a diferença finita.
LIMITE_TORCH, PASSO_DF, LIMITE_DF = 1e-10, 1e-5, 1e-8


def diferenca_finita(pesos, ids, nome, i, j, passo=PASSO_DF, pos_ln=False):
    """(L(w + passo) − L(w − passo)) / (2·passo) no peso nome[i][j]: a conferência do gradiente."""
    original = pesos[nome][i][j]
    try:
        pesos[nome][i][j] = original + passo
        mais = perda(pesos, ids, pos_ln)
        pesos[nome][i][j] = original - passo
        menos = perda(pesos, ids, pos_ln)
    finally:
        pesos[nome][i][j] = original
    return (mais - menos) / (2 * passo)


# ---------------------------------------------------------------------------
# O treino: um corpus pequeno, a perda média de todas as linhas, Adam
# ---------------------------------------------------------------------------
# Frases sobre os 12 tokens do brinquedo: (frase, quantas vezes aparece no corpus).
# Cada uma termina em <|endoftext|>; depois de "o gato subiu no" vêm três continuações.
CORPUS = [
    ("o gato subiu no telhado.", 3),
    ("o gato subiu no muro.", 2),
    ("o gato subiu no sofá.", 1),
    ("o gato no chão.", 1),
    ("o gato no sofá.", 1),
]
SEMENTE = 2017
ESCALA_INICIAL = 0.5


def ids_do_corpus(corpus=CORPUS):
    """[(ids da frase com <|endoftext|> no fim, vezes)]."""
    return [(b.codificar(frase) + [b.EOT], vezes) for frase, vezes in corpus]


def perda_do_corpus(pesos, corpus_ids, pos_ln=False):
    """A perda média do próximo token sobre todas as linhas com alvo do corpus (em nats)."""
    total = sum(vezes * (len(ids) - 1) for ids, vezes in corpus_ids)
    return fsum([vezes * (len(ids) - 1) * perda(pesos, ids, pos_ln) for ids, vezes in corpus_ids]) / total


def arvore(corpus_ids):
    """O corpus como árvore de prefixos: numa atenção causal, a linha i de uma frase só depende
    de ids[0..i], então frases com o mesmo começo têm as mesmas linhas até ali. Cada prefixo que
    tem alvo vira uma linha só -> (ids, posições, vistos, alvos); a linha vê os seus prefixos, e
    alvos[i] = {token seguinte: vezes / total de linhas com alvo}. A última linha de cada frase
    (sem alvo, e que nenhuma outra lê) fica de fora."""
    total = sum(vezes * (len(ids) - 1) for ids, vezes in corpus_ids)
    linha, ids_, pos, pais, alvos = {}, [], [], [], []
    for ids, vezes in corpus_ids:
        for i in range(len(ids) - 1):
            pre = tuple(ids[:i + 1])
            if pre not in linha:
                linha[pre] = len(ids_)
                for lista, x in ((ids_, ids[i]), (pos, i), (alvos, {}), (pais, linha.get(pre[:-1]))):
                    lista.append(x)
            a = alvos[linha[pre]]
            a[ids[i + 1]] = a.get(ids[i + 1], 0) + vezes
    vistos = []
    for k in range(len(ids_)):
        vis, j = [], k
        while j is not None:
            vis.append(j)
            j = pais[j]
        vistos.append(vis[::-1])
    return ids_, pos, vistos, [{t: c / total for t, c in a.items()} for a in alvos]


def gradiente_do_corpus(pesos, corpus_ids, pos_ln=False, arv=None):
    """-> (perda do corpus, gradiente): a média sobre todas as linhas com alvo do corpus, numa
    ida e numa volta pela árvore de prefixos (o mesmo valor que a média das frases)."""
    ids, pos, vistos, alvos = arvore(corpus_ids) if arv is None else arv
    r = ida_mascarada(pesos, ids, pos, vistos, pos_ln)
    L = fsum([w * -math.log(r["p"][i][t]) for i, a in enumerate(alvos) for t, w in a.items()])
    # ∂L/∂z_i = (soma dos pesos da linha) · p_i − pesos dos alvos
    dz = [[c * pj - a.get(j, 0.0) for j, pj in enumerate(p)]
          for p, a, c in zip(r["p"], alvos, [fsum(a.values()) for a in alvos])]
    return L, volta(pesos, r, dz)[0]


class Adam:
    """Adam (Kingma e Ba): médias móveis do gradiente (m) e do seu quadrado (v), corrigidas.

    β₁ᵗ e β₂ᵗ são produtos acumulados (nada de `**`): o mesmo em toda máquina."""

    def __init__(self, pesos, taxa, beta1=0.9, beta2=0.999, eps=1e-8):
        self.taxa, self.beta1, self.beta2, self.eps = taxa, beta1, beta2, eps
        self.m, self.v = zeros_como(pesos), zeros_como(pesos)
        self.b1t, self.b2t, self.t = 1.0, 1.0, 0

    def passo(self, pesos, G):
        """Um passo: muda `pesos` no lugar."""
        self.t += 1
        self.b1t *= self.beta1
        self.b2t *= self.beta2
        b1, b2, c1, c2, taxa, eps = self.beta1, self.beta2, 1 - self.b1t, 1 - self.b2t, self.taxa, self.eps
        sqrt, a1, a2 = math.sqrt, 1 - b1, 1 - b2
        for k in pesos:
            for W, g_, m_, v_ in zip(pesos[k], G[k], self.m[k], self.v[k]):
                m_[:] = [b1 * m + a1 * g for m, g in zip(m_, g_)]
                v_[:] = [b2 * v + a2 * g * g for v, g in zip(v_, g_)]
                W[:] = [w - taxa * (m / c1) / (sqrt(v / c2) + eps) for w, m, v in zip(W, m_, v_)]


class Treino:
    """Um treino que anda aos poucos (a página e o widget): pesos, Adam e a curva da perda.

    `curva[k]` é a perda do corpus depois de k passos; `curva[-1]`, a de agora. O gradiente dos
    pesos de agora fica guardado para o próximo passo: cada passo custa uma ida e uma volta."""

    def __init__(self, taxa=0.01, semente=SEMENTE, pos_ln=False, corpus=CORPUS):
        self.pesos = pesos_aleatorios(semente, ESCALA_INICIAL)
        self.adam = Adam(self.pesos, taxa)
        self.pos_ln = pos_ln
        self.corpus_ids = ids_do_corpus(corpus)
        self._arvore = arvore(self.corpus_ids)
        L, self._G = gradiente_do_corpus(self.pesos, self.corpus_ids, pos_ln, self._arvore)
        self.curva = [L]

    def anda(self, passos):
        """Dá `passos` passos de Adam; a curva ganha a perda depois de cada um."""
        for _ in range(passos):
            self.adam.passo(self.pesos, self._G)
            L, self._G = gradiente_do_corpus(self.pesos, self.corpus_ids, self.pos_ln, self._arvore)
            if not math.isfinite(L):
                raise OverflowError("A perda deixou de ser um número finito.")
            self.curva.append(L)
        return self

    def perda_agora(self):
        return self.curva[-1]

    @property
    def passos(self):
        return len(self.curva) - 1

    def proximo(self, ids=b.IDS_PROMPT):
        """p do próximo token depois de `ids` (a última linha)."""
        return ida(self.pesos, list(ids) + [0], self.pos_ln)["p"][len(ids) - 1]


def treinar(passos, taxa=0.01, semente=SEMENTE, pos_ln=False):
    """Um treino inteiro -> o objeto `Treino` depois de `passos` passos."""
    return Treino(taxa, semente, pos_ln).anda(passos)


def continuacoes(prefixo, corpus=CORPUS):
    """{token seguinte: vezes} depois de `prefixo` (ids) nas frases do corpus."""
    conta = {}
    for ids, vezes in ids_do_corpus(corpus):
        if ids[:len(prefixo)] == list(prefixo) and len(ids) > len(prefixo):
            conta[ids[len(prefixo)]] = conta.get(ids[len(prefixo)], 0) + vezes
    return conta


def perda_minima(corpus=CORPUS):
    """O piso da perda no corpus: cada linha prevê com as frequências do que veio depois do mesmo
    começo de frase (o melhor que um modelo causal pode fazer nestas frases)."""
    seguintes, linhas = {}, []
    for ids, vezes in ids_do_corpus(corpus):
        for i in range(len(ids) - 1):
            conta = seguintes.setdefault(tuple(ids[:i + 1]), {})
            conta[ids[i + 1]] = conta.get(ids[i + 1], 0) + vezes
            linhas.append((tuple(ids[:i + 1]), ids[i + 1], vezes))
    total = sum(v for *_, v in linhas)
    return fsum([v * -math.log(seguintes[pre][alvo] / sum(seguintes[pre].values()))
                 for pre, alvo, v in linhas]) / total


# Os treinos que a página mostra (e que os testes conferem, com a libm perturbada).
PASSOS = 150
TAXA = 0.05               # o treino principal, e o começo do widget
TAXAS = (0.005, 0.05, 0.3)
TAXA_ALTA = 0.3           # pré-LN contra pós-LN


def experimentos():
    """{(taxa, pos_ln): Treino depois de PASSOS passos}: as três taxas no pré-LN; a do meio e a
    alta no pós-LN."""
    runs = {(taxa, False): treinar(PASSOS, taxa) for taxa in TAXAS}
    runs[(TAXA, True)] = treinar(PASSOS, TAXA, pos_ln=True)
    runs[(TAXA_ALTA, True)] = treinar(PASSOS, TAXA_ALTA, pos_ln=True)
    return runs


def salto(curva, depois=1, limite=1.0):
    """O primeiro passo, a partir de `depois`, em que a perda passa de `limite` (None se nunca)."""
    return next((i for i in range(depois, len(curva)) if curva[i] > limite), None)


LIMIAR_BAIXO, LIMIAR_SALTO = 0.3, 2    # "abaixo de 0,3 nat" e "mais de 2 nats" (o salto do pós-LN)


def resumo(runs=None):
    """Os números dos treinos que a página imprime: nome -> (valor, casas); casas None: inteiro.

    Os testes rodam isto com exp, log e tanh perturbados no último bit e exigem o mesmo texto
    impresso, com folga: são números que saem iguais em qualquer máquina IEEE."""
    runs = experimentos() if runs is None else runs
    T, lento, alto = runs[(TAXA, False)], runs[(TAXAS[0], False)], runs[(TAXAS[-1], False)]
    pos = runs[(TAXA_ALTA, True)]
    k_alto = max(range(20, 60), key=lambda k: alto.curva[k])           # a subida no meio do caminho
    baixou = next(i for i, v in enumerate(pos.curva) if v < LIMIAR_BAIXO)
    k_salto = salto(pos.curva, depois=baixou, limite=1)
    R = {"perda_ini": (T.curva[0], 3), "perda_fim": (T.perda_agora(), 3),
         "fim_lento": (lento.perda_agora(), 3), "fim_alto": (alto.perda_agora(), 3),
         "alto_pico": (alto.curva[k_alto], 2), "alto_pico_passo": (k_alto, None),
         "alto_antes": (min(alto.curva[:k_alto]), 2),
         "pos_baixou": (baixou, None), "pos_salto": (k_salto, None),
         "pos_min": (min(pos.curva[:k_salto]), 2),
         "pos_fim_taxa": (runs[(TAXA, True)].perda_agora(), 3)}
    for i, x in enumerate(T.proximo()):
        R[f"p_trein_{i}"] = (x, 2)
    return R
