"""O GPT de brinquedo: d = 4, V = 12, um bloco pré-LN, duas cabeças.

Um só arquivo, só a biblioteca padrão: o build do livro, os testes, os
notebooks e os widgets (Pyodide, no navegador) importam este mesmo módulo.
Lê-se de cima para baixo na ordem do livro:

    texto -> ids -> X -> u -> Q, K, V -> A -> a -> h -> u' -> m -> y -> ŷ -> z -> p

Os nomes seguem a matemática das páginas. Cada matriz é uma lista de linhas
(uma linha por token); o comentário ao lado diz a forma.
"""

import math

# ---------------------------------------------------------------------------
# Tamanhos
# ---------------------------------------------------------------------------
d = 4          # números por token
V = 12         # tokens no vocabulário
n_cabecas = 2  # cabeças de atenção
d_h = d // n_cabecas  # números por cabeça
d_ff = 2 * d   # unidades ocultas do MLP
n_ctx = 8      # posições que o brinquedo conhece
EPS = 1e-5     # o ε da LayerNorm

# ---------------------------------------------------------------------------
# Passo 1: tokens
# ---------------------------------------------------------------------------
ESPACO = "␣"  # marca o espaço que abre um token
VOCAB = [
    "o",         # 0
    "␣no",       # 1
    "␣gato",     # 2
    "␣muro",     # 3
    "␣sub",      # 4
    "iu",        # 5
    "␣telhado",  # 6
    "␣sofá",     # 7
    "␣chão",     # 8
    "␣e",        # 9
    ".",         # 10
    "<|endoftext|>",  # 11
]
EOT = VOCAB.index("<|endoftext|>")
PROMPT = "o gato subiu no"
IDS_PROMPT = [0, 2, 4, 5, 1]


class ErroToken(ValueError):
    """Texto que o vocabulário do brinquedo não cobre (mensagem em português)."""


def tokenizar(texto):
    """Texto -> lista de tokens, pelo pedaço mais longo do vocabulário a cada passo.

    O espaço antes de uma palavra vira "␣" e faz parte do token seguinte.
    """
    if not isinstance(texto, str) or texto.strip() == "":
        raise ErroToken("Digite um texto: a entrada está vazia.")
    s = texto.strip().replace(" ", ESPACO)
    s = s.replace(ESPACO * 2, ESPACO)
    while ESPACO * 2 in s:
        s = s.replace(ESPACO * 2, ESPACO)
    tokens, i = [], 0
    por_tamanho = sorted(VOCAB, key=len, reverse=True)
    while i < len(s):
        for t in por_tamanho:
            if s.startswith(t, i):
                tokens.append(t)
                i += len(t)
                break
        else:
            fim = s.find(ESPACO, i + 1)
            pedaco = s[i:fim if fim > 0 else len(s)]          # com o "␣", se o pedaço o tiver
            raise ErroToken(_mensagem_recusa(pedaco))
    return tokens


def _mensagem_recusa(pedaco):
    """A recusa do tokenizador: o pedaço que nenhum token cobre, com o "␣", e os V tokens."""
    msg = f"O brinquedo não conhece \"{pedaco}\": nenhum dos seus tokens serve para esse pedaço."
    palavra = pedaco.replace(ESPACO, "")
    if palavra != pedaco and palavra in VOCAB:
        msg += f" O token \"{palavra}\" existe, mas sem o espaço: é outro token."
    lista = ", ".join(f"\"{t}\"" for t in VOCAB[:-1]) + f" e \"{VOCAB[-1]}\""
    return msg + f" Os {V} tokens são {lista} (o fim de texto, que não se digita)."


def codificar(texto):
    """Texto -> ids."""
    return [VOCAB.index(t) for t in tokenizar(texto)]


def decodificar(ids):
    """Ids -> texto (o "␣" volta a ser espaço; <|endoftext|> não se escreve)."""
    for i in ids:
        if not (isinstance(i, int) and 0 <= i < V):
            raise ErroToken(f"Id {i} fora do vocabulário (0 a {V - 1}).")
    return "".join(VOCAB[i] for i in ids if i != EOT).replace(ESPACO, " ")


# ---------------------------------------------------------------------------
# Os pesos: todos aqui, simples o bastante para conferir à mão
# ---------------------------------------------------------------------------
# (dev/ guarda as buscas que os escolheram; os testes conferem cada número do curso)

# Tabela de tokens E (V x d): uma linha por token do vocabulário.
E = [
    [0, -2, 0, 0],     # 0  o
    [0, 0, -1, 0.5],   # 1  ␣no
    [2, 0, 0, 0],      # 2  ␣gato
    [0, 1, 1, 0],      # 3  ␣muro
    [0.5, 0, 0.5, 0],  # 4  ␣sub
    [-2, 1, 0, 0],     # 5  iu
    [0, 0, 1, 1],      # 6  ␣telhado
    [1, 0, -1, 0],     # 7  ␣sofá
    [0, -1, 0, 1],     # 8  ␣chão
    [1, 1, 0, 0],      # 9  ␣e
    [0, 0, -2, 0],     # 10 .
    [-1, 0, 0, -1],    # 11 <|endoftext|>
]

# Tabela de posições P (n_ctx x d), aprendida como no GPT-2 (nem senoide, nem RoPE).
P = [
    [0, 1, 0, 0],          # posição 1
    [0, 1, 0, 1],          # posição 2
    [0.5, -0.5, 0, -0.5],  # posição 3
    [-0.5, 0.5, 0, 2],     # posição 4
    [-0.5, -0.5, 0.5, 1],  # posição 5
    [0, -1, 0, 0.5],       # posição 6
    [1, 0, 0, -0.5],       # posição 7
    [0.5, 0.5, -1, 0],     # posição 8
]

# Atenção: as colunas 1-2 são a cabeça 1, as colunas 3-4 a cabeça 2 (d x d cada).
W_Q = [
    [-0.5, 0, 0, 0],
    [0, 0, 0, -2],
    [0, -0.5, 0, 0],
    [0, -2, 2, 0],
]
W_K = [
    [0, 0, 0, 0],
    [0, -2, -2, 2],
    [-2, 0, 1, 0],
    [1, 0, 0, 0],
]
W_V = [
    [0, -1, 0, 0],
    [0, 0, 1, 0],
    [-1, 0, 2, -0.5],
    [-1, 0, 0, -0.5],
]
# W_O = I: as saídas das cabeças, lado a lado, já são a.
W_O = [[1 if i == j else 0 for j in range(4)] for i in range(4)]

# Unembedding W_U (d x V): a camada de saída do brinquedo (não é Eᵀ, ao contrário do GPT-2).
# Ajustada aos números de saída do curso (dev/ajuste_saida.py, dev/simplifica_saida.py): 26 entradas
# simples (0, ±0,5, ±1, ±1,5, ±2) e 22 com três casas, uma folga fina para cada número apertado.
W_U = [
    # o     ␣no     ␣gato   ␣muro   ␣sub    iu      ␣telh.  ␣sofá   ␣chão   ␣e      .       <|eot|>
    [     0,   -1.5, -1.769,  0.309,    0.5,      0,     -1,     -1,  -0.24,  0.958, -0.666,  0.357],
    [     0,  1.844,     -2,      1, -1.512,     -2, -0.076,    0.5,  0.246,  1.202, -2.354,      0],
    [  -0.5,    1.5,  0.395, -0.302, -0.488, -0.374,   -0.5,   -0.5,   -0.5,  0.563,      2, -1.107],
    [     0,   -1.5,  1.069,    0.5,      1,    0.5,      1, -0.894,      0,    0.9,  1.024,   -0.5],
]


def parametros():
    """Quantos números cada peça do brinquedo tem (sem vieses; γ = 1 e β = 0 ficam fixos)."""
    tam = {nome: len(M) * len(M[0]) for nome, M in
           (("E", E), ("P", P), ("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V), ("W_O", W_O),
            ("W1", W1), ("W2", W2), ("W_U", W_U))}
    tam["total"] = sum(tam.values())
    tam["atencao"] = tam["W_Q"] + tam["W_K"] + tam["W_V"] + tam["W_O"]
    tam["mlp"] = tam["W1"] + tam["W2"]
    return tam


# O simulador do bloco: uma cabeça, 3 tokens, W_Q = W_V = I.
MINI_X = [
    [-1, 0, 0, -1],
    [-2, 0, -1, -1],
    [0, 1, 1, 0],
]
MINI_W_Q = [[1 if i == j else 0 for j in range(4)] for i in range(4)]
MINI_W_K = [
    [0, 0, 0, 0],
    [0, 0, 0, 0],
    [2, -2, 0, 1],
    [0, -1, 0, 0],
]
MINI_W_V = [[1 if i == j else 0 for j in range(4)] for i in range(4)]
MINI_W_O = [
    [-1, 0, 0, -1],
    [0, -2, 0, 0],
    [0, 0, 0, 0],
    [0, 0, 0, 0],
]

# MLP: W1 = [I | -I] (4 x 8), W2 = [I ; I] (8 x 4)
W1 = [[1.0 if j == i else (-1.0 if j == i + d else 0.0) for j in range(d_ff)] for i in range(d)]
W2 = [[1.0 if (i % d) == j else 0.0 for j in range(d)] for i in range(d_ff)]


# ---------------------------------------------------------------------------
# Álgebra mínima (listas de listas)
# ---------------------------------------------------------------------------
def matmul(A, B):
    """(n x k) @ (k x m) -> (n x m)."""
    Bt = list(zip(*B))
    return [[sum(a * b for a, b in zip(linha, col)) for col in Bt] for linha in A]


def transposta(A):
    return [list(c) for c in zip(*A)]


def soma(A, B):
    """A + B, elemento a elemento (matrizes ou vetores)."""
    if A and isinstance(A[0], list):
        return [soma(a, b) for a, b in zip(A, B)]
    return [a + b for a, b in zip(A, B)]


def colunas(A, ini, fim):
    """As colunas ini..fim-1 de A (o pedaço de uma cabeça)."""
    return [linha[ini:fim] for linha in A]


# ---------------------------------------------------------------------------
# Passo 2: embeddings
# ---------------------------------------------------------------------------
def embed(ids):
    """X = E[ids] + P[0:n]  -> (n x d)."""
    if len(ids) == 0:
        raise ErroToken("A sequência está vazia: é preciso ao menos um token.")
    if len(ids) > n_ctx:
        raise ErroToken(f"O brinquedo conhece só {n_ctx} posições; a entrada tem {len(ids)} tokens.")
    return [soma(E[t], P[pos]) for pos, t in enumerate(ids)]  # (n, d)


# ---------------------------------------------------------------------------
# Passo 3: LayerNorm e Q, K, V
# ---------------------------------------------------------------------------
def media(v):
    return sum(v) / len(v)


def desvio(v):
    """√(σ² + ε): o número que divide na LayerNorm (σ² é a variância da linha)."""
    mu = media(v)
    return math.sqrt(sum((x - mu) ** 2 for x in v) / len(v) + EPS)


def ln_linha(v):
    """LN(v) = (v - μ) / √(σ² + ε), com γ = 1 e β = 0."""
    mu, s = media(v), desvio(v)
    return [(x - mu) / s for x in v]


def LN(X):
    """LayerNorm em cada linha (cada token) separadamente -> (n x d)."""
    return [ln_linha(linha) for linha in X]


def projecoes(u):
    """Q = u W_Q, K = u W_K, V = u W_V -> três matrizes (n x d)."""
    return matmul(u, W_Q), matmul(u, W_K), matmul(u, W_V)


def cabeca(M, c):
    """As d_h colunas da cabeça c (0 ou 1) -> (n x d_h)."""
    return colunas(M, c * d_h, (c + 1) * d_h)


# ---------------------------------------------------------------------------
# Passo 4: máscaras e cabeças
# ---------------------------------------------------------------------------
def escores(Qc, Kc, causal=True):
    """S + M: Qc Kcᵀ / √d_h, somada a máscara M (-∞ acima da diagonal) se causal -> (n x m)."""
    S = matmul(Qc, transposta(Kc))
    escala = math.sqrt(len(Qc[0]))
    return [[(s / escala if (j <= i or not causal) else -math.inf) for j, s in enumerate(linha)]
            for i, linha in enumerate(S)]


def softmax(z, T=1.0):
    """softmax(z / T): probabilidades que somam 1."""
    if not T > 0:
        raise ValueError("A temperatura precisa ser maior que zero.")
    m = max(z)
    e = [math.exp((x - m) / T) if x != -math.inf else 0.0 for x in z]
    s = sum(e)
    return [x / s for x in e]


def atencao(u, causal=True):
    """Atenção com n_cabecas cabeças e W_O -> dicionário com Q, K, V, S, A, O e a (n x d)."""
    Q, K, Vm = projecoes(u)
    S, A, O = [], [], []
    for c in range(n_cabecas):
        Sc = escores(cabeca(Q, c), cabeca(K, c), causal)       # (n, n)
        Ac = [softmax(linha) for linha in Sc]                    # (n, n)
        S.append(Sc)
        A.append(Ac)
        O.append(matmul(Ac, cabeca(Vm, c)))                      # (n, d_h)
    concat = [sum((O[c][i] for c in range(n_cabecas)), []) for i in range(len(u))]  # (n, d)
    a = matmul(concat, W_O)                                      # (n, d)
    return {"Q": Q, "K": K, "V": Vm, "S": S, "A": A, "O": O, "concat": concat, "a": a}


# ---------------------------------------------------------------------------
# Passo 5: o bloco
# ---------------------------------------------------------------------------
C_GELU = math.sqrt(2 / math.pi)  # 0,798...
K_GELU = 0.044715


def gelu(z):
    """GELU_tanh(z) = ½ z (1 + tanh(√(2/π) (z + 0,044715 z³))): a aproximação por tanh da GELU, a do GPT-2."""
    return 0.5 * z * (1 + math.tanh(C_GELU * (z + K_GELU * z ** 3)))


def mlp(u2):
    """m = gelu(u' W1) W2 -> (n x d); com os pesos do brinquedo, m = gelu(u') + gelu(-u')."""
    oculta = [[gelu(x) for x in linha] for linha in matmul(u2, W1)]  # (n, d_ff)
    return matmul(oculta, W2)                                        # (n, d)


def bloco(X, com_atencao=True, causal=True):
    """Um bloco pré-LN: h = x + Attn(LN(x)); y = h + MLP(LN(h))."""
    u = LN(X)                                            # (n, d)
    at = atencao(u, causal)
    a = at["a"] if com_atencao else [[0.0] * d for _ in X]  # (n, d)
    h = soma(X, a)                                       # (n, d)
    u2 = LN(h)                                           # (n, d)
    m = mlp(u2)                                          # (n, d)
    y = soma(h, m)                                       # (n, d)
    return {"x": X, "u": u, **at, "a": a, "h": h, "u2": u2, "m": m, "y": y}


# ---------------------------------------------------------------------------
# Passo 6: a saída
# ---------------------------------------------------------------------------
def saida(y):
    """ŷ = LN(y), z = ŷ W_U (n x V), p = softmax de cada linha."""
    y_chapeu = LN(y)                          # (n, d)
    z = matmul(y_chapeu, W_U)                 # (n, V)
    p = [softmax(linha) for linha in z]       # (n, V)
    return {"y_chapeu": y_chapeu, "z": z, "p": p}


def modelo(ids, com_atencao=True, causal=True):
    """O caminho inteiro: ids -> todas as etapas, num dicionário."""
    X = embed(ids)
    b = bloco(X, com_atencao, causal)
    return {"ids": list(ids), "X": X, **b, **saida(b["y"])}


def perdas(ids):
    """-ln p(alvo) de cada linha que tem alvo (o token seguinte) -> lista de n-1."""
    p = modelo(ids)["p"]
    return [-math.log(p[i][ids[i + 1]]) for i in range(len(ids) - 1)]


def ranking(p, n=None):
    """Índices do mais provável ao menos provável (empate: menor id primeiro)."""
    ordem = sorted(range(len(p)), key=lambda i: (-p[i], i))
    return ordem if n is None else ordem[:n]


# ---------------------------------------------------------------------------
# Passo 7: escolher o próximo token
# ---------------------------------------------------------------------------
def valida_config(T=1.0, k=None, top_p=None, u=None):
    """Confere as configurações de amostragem; erro em português se algo não faz sentido."""
    if not (isinstance(T, (int, float)) and T > 0 and T < math.inf):
        raise ValueError("A temperatura T precisa ser um número maior que zero (T → 0 é o guloso).")
    if k is not None and not (isinstance(k, int) and 1 <= k <= V):
        raise ValueError(f"O top-k precisa ser um inteiro de 1 a {V}.")
    if top_p is not None and not (isinstance(top_p, (int, float)) and 0 < top_p <= 1):
        raise ValueError("O top-p precisa estar entre 0 (exclusive) e 1.")
    if u is not None and not (isinstance(u, (int, float)) and 0 <= u < 1):
        raise ValueError("O sorteio u precisa estar em [0, 1).")


def filtrar(p, k=None, top_p=None):
    """Top-k e depois top-p -> (ids mantidos em ordem, probabilidades renormalizadas)."""
    ordem = ranking(p)
    if k is not None:
        ordem = ordem[:k]
    if top_p is not None:
        total = sum(p[i] for i in ordem)
        acum, mantidos = 0.0, []
        for i in ordem:
            mantidos.append(i)
            acum += p[i] / total
            if acum >= top_p - 1e-12:
                break
        ordem = mantidos
    total = sum(p[i] for i in ordem)
    return ordem, [p[i] / total for i in ordem]


def acumuladas(q):
    """Somas acumuladas de uma lista de probabilidades."""
    out, s = [], 0.0
    for x in q:
        s += x
        out.append(s)
    return out


def sortear(ordem, q, u):
    """Escolhe o primeiro token cuja soma acumulada passa de u."""
    for i, s in zip(ordem, acumuladas(q)):
        if u < s:
            return i
    return ordem[-1]


def escolher(z, T=1.0, k=None, top_p=None, u=None):
    """Logits -> (token escolhido, detalhes). u=None: guloso (o mais provável)."""
    valida_config(T, k, top_p, u)
    p = softmax(z, T)
    ordem, q = filtrar(p, k, top_p)
    escolhido = ordem[0] if u is None else sortear(ordem, q, u)
    return escolhido, {"p": p, "mantidos": ordem, "q": q, "acumuladas": acumuladas(q)}


class CacheKV:
    """Guarda K e V das posições já vistas; cada token novo calcula uma linha só."""

    def __init__(self):
        self.ids, self.K, self.V = [], [], []
        self.linhas_calculadas = 0

    def adiciona(self, token):
        """Roda o bloco só para o token novo -> z (V logits) da nova última linha."""
        pos = len(self.ids)
        if pos >= n_ctx:
            raise ErroToken(f"O brinquedo conhece só {n_ctx} posições.")
        x = soma(E[token], P[pos])                        # (d,)
        q, k, v = (M[0] for M in projecoes([ln_linha(x)]))  # (d,) cada
        self.ids.append(token)
        self.K.append(k)                                  # o cache cresce uma linha
        self.V.append(v)
        concat = []
        for c in range(n_cabecas):
            s = escores([q[c * d_h:(c + 1) * d_h]], cabeca(self.K, c), causal=False)[0]  # (pos+1,)
            concat += matmul([softmax(s)], cabeca(self.V, c))[0]                            # (d_h,)
        a = matmul([concat], W_O)[0]                      # (d,)
        h = soma(x, a)
        y = soma(h, mlp([ln_linha(h)])[0])
        self.linhas_calculadas += 1
        return matmul([ln_linha(y)], W_U)[0]              # (V,)


def gerar(ids, T=1.0, k=None, top_p=None, us=None, max_novos=6):
    """Escolhe, anexa e roda de novo (com cache de KV) até <|endoftext|>.

    us: um sorteio u por passo (None: guloso). Devolve a lista de passos.
    """
    valida_config(T, k, top_p)
    cache = CacheKV()
    for t in ids[:-1]:
        cache.adiciona(t)
    z = cache.adiciona(ids[-1])
    seq, passos = list(ids), []
    for n in range(max_novos):
        u = None if us is None else us[min(n, len(us) - 1)]
        tok, det = escolher(z, T, k, top_p, u)
        passos.append({"entrada": list(seq), "token": tok, "p": softmax(z)[tok],
                       "p_T": det["p"][tok], "linhas_calculadas": cache.linhas_calculadas})
        seq.append(tok)
        if tok == EOT or len(seq) >= n_ctx:
            break
        z = cache.adiciona(tok)
    return passos


# ---------------------------------------------------------------------------
# O simulador do bloco: uma cabeça, 3 tokens, d = 4
# ---------------------------------------------------------------------------
def mini_bloco(x=None, com_atencao=True):
    """O bloco do simulador, linha a linha: uma cabeça (d_h = d), máscara causal."""
    x = [list(map(float, linha)) for linha in (MINI_X if x is None else x)]  # (3, d)
    u = LN(x)
    Q, K, Vm = matmul(u, MINI_W_Q), matmul(u, MINI_W_K), matmul(u, MINI_W_V)
    S = escores(Q, K)                                  # (3, 3)
    A = [softmax(linha) for linha in S]                # (3, 3)
    O = matmul(A, Vm)                                  # (3, d)
    a = matmul(O, MINI_W_O) if com_atencao else [[0.0] * d for _ in x]
    h = soma(x, a)
    u2 = LN(h)
    m = mlp(u2)
    y = soma(h, m)
    return {"x": x, "u": u, "Q": Q, "K": K, "V": Vm, "S": S, "A": A, "O": O, "a": a,
            "h": h, "u2": u2, "m": m, "y": y}
