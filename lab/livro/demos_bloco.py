"""As contas da página "Por que o bloco é assim": pequenas, exatas e rápidas (numpy).

Cada função devolve números; a página os formata (lab/livro/formato.py) e os cola.

1. Atenção sem MLP: uma pilha de camadas só de atenção. Na posição 1 (o primeiro token só
   vê a si mesmo) a pilha inteira é UMA matriz; nas outras posições, não (os pesos do
   softmax dependem da entrada), mas cada saída é uma mistura convexa de imagens lineares.
2. GELU: a exata, z·Φ(z), e a aproximação por tanh que o GPT-2 usa; o maior erro numa grade;
   a derivada nos negativos (a ReLU tem derivada 0 ali).
3. Conexão residual: o tamanho do gradiente que chega à entrada de uma cadeia de L camadas,
   com e sem o caminho residual.
"""
import math

import numpy as np

# ---------------------------------------------------------------------------
# 1. Atenção sem MLP
# ---------------------------------------------------------------------------


def _softmax_linhas(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1)[..., None]


def pilha_de_atencao(d=4, camadas=3, cabecas=2, semente=5):
    """Pesos de uma pilha só de atenção (sem normas, sem MLP, sem vieses): uma lista de
    dicionários com W_Q, W_K, W_V e W_O (d x d cada)."""
    g = np.random.default_rng(semente)
    return [{nome: g.normal(size=(d, d)) / math.sqrt(d) for nome in ("W_Q", "W_K", "W_V", "W_O")}
            | {"cabecas": cabecas} for _ in range(camadas)]


def camada_de_atencao(x, w):
    """x + Attn(x), com máscara causal; devolve (saída, pesos A por cabeça)."""
    n, d = x.shape
    c = w["cabecas"]
    dh = d // c
    Q, K, V = x @ w["W_Q"], x @ w["W_K"], x @ w["W_V"]
    mascara = np.where(np.tri(n, dtype=bool), 0.0, -np.inf)  # -inf acima da diagonal
    partes, As = [], []
    for k in range(c):
        fatia = slice(k * dh, (k + 1) * dh)
        A = _softmax_linhas(Q[:, fatia] @ K[:, fatia].T / math.sqrt(dh) + mascara)
        As.append(A)
        partes.append(A @ V[:, fatia])
    return x + np.concatenate(partes, axis=1) @ w["W_O"], As


def roda_pilha(x, pilha):
    for w in pilha:
        x, _ = camada_de_atencao(x, w)
    return x


def matriz_da_posicao_1(pilha):
    """A matriz M tal que, na posição 1, a pilha inteira é x_1 -> x_1 M.

    Na posição 1 cada cabeça tem peso 1 em si mesma, então a camada é x_1 (I + W_V W_O).
    """
    d = pilha[0]["W_V"].shape[0]
    M = np.eye(d)
    for w in pilha:
        M = M @ (np.eye(d) + w["W_V"] @ w["W_O"])
    return M


def demo_atencao_sem_mlp(n=5, d=4, camadas=3, semente=5):
    """Os números da seção 1 da página."""
    pilha = pilha_de_atencao(d, camadas, semente=semente)
    g = np.random.default_rng(semente + 100)
    x = g.normal(size=(n, d))
    y = roda_pilha(x, pilha)
    M = matriz_da_posicao_1(pilha)
    # posição 1: a pilha é a matriz M (diferença só de arredondamento)
    dif_M = float(np.abs(y[0] - x[0] @ M).max())
    # e por isso é ímpar: trocar o sinal de x_1 troca o sinal da saída
    y_neg = roda_pilha(-x, pilha)
    dif_impar = float(np.abs(y_neg[0] + y[0]).max())
    # posição n: dobrar a entrada NÃO dobra a saída (os pesos do softmax mudam)
    y2 = roda_pilha(2 * x, pilha)
    desvio_dobro = float(np.linalg.norm(y2[-1] - 2 * y[-1]) / np.linalg.norm(2 * y[-1]))
    # uma camada: a saída da última posição (sem o residual) é uma mistura convexa dos x_j W_V W_O
    _, As = camada_de_atencao(x, pilha[0])
    pesos = [A[-1] for A in As]
    return {"x1": x[0], "y1": y[0], "M": M, "dif_M": dif_M, "dif_impar": dif_impar,
            "desvio_dobro": desvio_dobro, "pesos_ultima": pesos,
            "somas_pesos": [float(p.sum()) for p in pesos], "n": n, "d": d, "camadas": camadas}


def mlp_do_brinquedo(v):
    """O MLP do brinquedo numa linha: gelu(v) + gelu(-v), coordenada a coordenada."""
    from livro import brinquedo as b

    return [b.gelu(z) + b.gelu(-z) for z in v]


# ---------------------------------------------------------------------------
# 2. GELU
# ---------------------------------------------------------------------------
C_GELU = math.sqrt(2 / math.pi)
K_GELU = 0.044715


def Phi(z):
    """A função de distribuição da normal padrão: P(Z <= z)."""
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


def phi(z):
    return math.exp(-z * z / 2) / math.sqrt(2 * math.pi)


def gelu_exata(z):
    """GELU(z) = z · Φ(z) (Hendrycks e Gimpel, 2016)."""
    return z * Phi(z)


def gelu_tanh(z):
    """A aproximação por tanh da GELU, a do GPT-2 (a mesma de brinquedo.gelu)."""
    return 0.5 * z * (1 + math.tanh(C_GELU * (z + K_GELU * z ** 3)))


def derivada_gelu(z):
    """d/dz [z Φ(z)] = Φ(z) + z φ(z)."""
    return Phi(z) + z * phi(z)


def derivada_relu(z):
    return 1.0 if z > 0 else 0.0


def grade(inicio=-6.0, fim=6.0, passo=0.001):
    n = round((fim - inicio) / passo)
    return [inicio + i * passo for i in range(n + 1)]


def erro_da_aproximacao(zs=None):
    """O maior |gelu_tanh - gelu_exata| na grade, e onde ele acontece."""
    zs = grade() if zs is None else zs
    erros = [abs(gelu_tanh(z) - gelu_exata(z)) for z in zs]
    i = max(range(len(zs)), key=erros.__getitem__)
    return {"erro_max": erros[i], "z": zs[i], "inicio": zs[0], "fim": zs[-1],
            "passo": zs[1] - zs[0], "pontos": len(zs)}


def minimo_gelu(zs=None):
    """O ponto mais baixo da GELU exata (ela fica negativa para z < 0)."""
    zs = grade(-3, 0, 0.001) if zs is None else zs
    z = min(zs, key=gelu_exata)
    return {"z": z, "valor": gelu_exata(z)}


# ---------------------------------------------------------------------------
# 3. Conexão residual e o gradiente
# ---------------------------------------------------------------------------


def gradiente_na_entrada(L, residual, d=64, escala=1.0, semente=0):
    """Norma de ∂(w · x_L)/∂x_0 numa cadeia de L camadas x_{l+1} = f(x_l), com ‖w‖ = 1.

    Sem residual: f(x) = tanh(W x). Com residual: f(x) = x + tanh(W x) / √L (o ramo entra
    pequeno, como no GPT-2, que divide a inicialização das projeções de saída por √(2L)).
    W tem entradas normais de desvio escala/√d. A derivada é o produto das jacobianas,
    calculado de trás para frente (o que o backprop faz).
    """
    g = np.random.default_rng(semente)
    x = g.normal(size=d)
    Ws, jac = [], []
    for _ in range(L):
        W = g.normal(size=(d, d)) * escala / math.sqrt(d)
        pre = W @ x
        deriv = 1 - np.tanh(pre) ** 2                       # tanh'
        if residual:
            J = np.eye(d) + (deriv[:, None] * W) / math.sqrt(L)
            x = x + np.tanh(pre) / math.sqrt(L)
        else:
            J = deriv[:, None] * W
            x = np.tanh(pre)
        Ws.append(W)
        jac.append(J)
    w = g.normal(size=d)
    grad = w / np.linalg.norm(w)
    for J in reversed(jac):
        grad = J.T @ grad
    return float(np.linalg.norm(grad))


def tabela_gradientes(profundidades=(1, 5, 10, 20, 40), sementes=range(5), **kw):
    """Média (sobre sementes) da norma do gradiente na entrada, com e sem residual."""
    linhas = []
    for L in profundidades:
        sem = [gradiente_na_entrada(L, False, semente=s, **kw) for s in sementes]
        com = [gradiente_na_entrada(L, True, semente=s, **kw) for s in sementes]
        linhas.append({"L": L, "sem": sum(sem) / len(sem), "com": sum(com) / len(com)})
    return linhas
