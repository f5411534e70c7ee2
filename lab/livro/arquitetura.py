"""Contas de arquitetura e de escala: onde moram os parâmetros, quanto custa treinar e servir.

As páginas "O que mudou desde 2017" e "Escala" calculam aqui todos os seus números.
Só a biblioteca padrão, como o brinquedo: o mesmo arquivo roda no build, nos testes
e (mais tarde) num widget Pyodide.

Nomes como no livro: d (números por token), n_cabecas (cabeças de consulta),
n_kv (cabeças de chave/valor), d_h = d / n_cabecas, d_ff (largura do MLP),
N (parâmetros), D (tokens de treino), C (compute, em FLOPs).
"""

import math

# ---------------------------------------------------------------------------
# Configurações de referência
# ---------------------------------------------------------------------------
# GPT-2 small: os valores padrão de GPT2Config (Radford et al., 2019).
GPT2_SMALL = {
    "d": 768,           # n_embd
    "n_cabecas": 12,    # n_head
    "n_kv": 12,         # MHA: cada cabeça tem K e V próprios
    "d_ff": 3072,       # 4 · d
    "n_camadas": 12,    # n_layer
    "V": 50257,         # vocab_size
    "n_ctx": 1024,      # n_positions
}

# Um bloco "classe 8B" de hoje: d = 4096, 32 cabeças de consulta, 8 de K/V (GQA),
# SwiGLU com a largura 8d/3 arredondada (a mesma conta do script da página do bloco).
CLASSE_8B = {
    "d": 4096,
    "n_cabecas": 32,
    "n_kv": 8,
    "n_camadas": 32,
}

# O Llama 3 8B (Meta, 2024, config.json publicado): a mesma classe, com o MLP mais largo que 8d/3
# e um vocabulário de 128.256 tokens.
LLAMA3_8B = {**CLASSE_8B, "d_ff": 14336, "V": 128256}


# ---------------------------------------------------------------------------
# Parâmetros de um bloco
# ---------------------------------------------------------------------------
MULTIPLO_SWIGLU = 256  # as larguras são arredondadas a múltiplos disto (as GPUs preferem)


def swiglu_largura(d, multiplo=MULTIPLO_SWIGLU):
    """Largura do SwiGLU: 8d/3 (três matrizes custam o mesmo que duas de 4d),
    arredondada ao múltiplo de 256 mais próximo, como no Llama; d pequeno: 8d//3."""
    if d >= multiplo:
        return round(8 * d / 3 / multiplo) * multiplo
    return 8 * d // 3


def params_atencao(d, n_cabecas, n_kv=None, vieses=True):
    """W_Q (d x d), W_K e W_V (d x n_kv·d_h cada), W_O (d x d), e os vieses de cada uma.

    n_kv = n_cabecas é MHA; n_kv < n_cabecas é GQA (grupos de consultas dividem K e V).
    """
    n_kv = n_cabecas if n_kv is None else n_kv
    if d % n_cabecas or n_cabecas % n_kv:
        raise ValueError("d precisa ser múltiplo de n_cabecas, e n_cabecas múltiplo de n_kv.")
    d_h = d // n_cabecas
    d_kv = n_kv * d_h
    pesos = d * d + 2 * d * d_kv + d * d
    vies = (d + 2 * d_kv + d) if vieses else 0
    return pesos + vies


def params_mlp(d, mlp="gelu", d_ff=None, vieses=True):
    """ReLU/GELU: W_1 (d x d_ff) e W_2 (d_ff x d). SwiGLU: W_1, W_3 (d x d_ff) e W_2 (d_ff x d)."""
    if mlp in ("gelu", "relu"):
        d_ff = 4 * d if d_ff is None else d_ff
        return 2 * d * d_ff + ((d_ff + d) if vieses else 0)
    if mlp == "swiglu":
        d_ff = swiglu_largura(d) if d_ff is None else d_ff
        return 3 * d * d_ff + ((2 * d_ff + d) if vieses else 0)
    raise ValueError('mlp precisa ser "relu", "gelu" ou "swiglu".')


def params_normas(d, norma="layernorm"):
    """As duas normas do bloco. LayerNorm: ganho γ e deslocamento β (2d cada); RMSNorm: só γ (d)."""
    if norma == "layernorm":
        return 2 * (2 * d)
    if norma == "rmsnorm":
        return 2 * d
    raise ValueError('norma precisa ser "layernorm" ou "rmsnorm".')


def params_bloco(d, n_cabecas, n_kv=None, mlp="gelu", vieses=True, norma="layernorm", d_ff=None):
    """Parâmetros de um bloco, por parte -> dict com atencao, mlp, normas, total e as frações."""
    at = params_atencao(d, n_cabecas, n_kv, vieses)
    ml = params_mlp(d, mlp, d_ff, vieses)
    no = params_normas(d, norma)
    total = at + ml + no
    return {"atencao": at, "mlp": ml, "normas": no, "total": total,
            "frac_atencao": at / total, "frac_mlp": ml / total, "frac_normas": no / total}


def params_gpt2(cfg=GPT2_SMALL):
    """O GPT-2 inteiro: blocos + wte (V x d) + wpe (n_ctx x d) + ln_f; a saída reusa wte."""
    d = cfg["d"]
    bloco = params_bloco(d, cfg["n_cabecas"], cfg["n_kv"], "gelu", True, "layernorm", cfg["d_ff"])
    blocos = cfg["n_camadas"] * bloco["total"]
    wte = cfg["V"] * d
    wpe = cfg["n_ctx"] * d
    ln_f = 2 * d
    return {"bloco": bloco["total"], "blocos": blocos, "wte": wte, "wpe": wpe, "ln_f": ln_f,
            "mlps": cfg["n_camadas"] * bloco["mlp"], "total": blocos + wte + wpe + ln_f}


def cache_kv_bytes(n_camadas, n_kv, d_h, n_tokens=1, bytes_por_numero=2):
    """Memória do cache de KV: K e V (2) em cada camada, n_kv cabeças de d_h números, por token.

    bytes_por_numero = 2: float16/bfloat16.
    """
    return 2 * n_camadas * n_kv * d_h * n_tokens * bytes_por_numero


# ---------------------------------------------------------------------------
# As peças novas, em miniatura
# ---------------------------------------------------------------------------
def layernorm(v, eps=1e-5):
    """(v - μ) / sqrt(σ² + ε): centra e reescala (γ = 1, β = 0)."""
    mu = sum(v) / len(v)
    var = sum((x - mu) ** 2 for x in v) / len(v)
    return [(x - mu) / math.sqrt(var + eps) for x in v]


def rms(v):
    """Raiz da média dos quadrados."""
    return math.sqrt(sum(x * x for x in v) / len(v))


def rmsnorm(v, eps=1e-5):
    """v / sqrt(média(v²) + ε): só reescala, não centra (γ = 1)."""
    s = math.sqrt(sum(x * x for x in v) / len(v) + eps)
    return [x / s for x in v]


def sigmoide(z):
    return 1 / (1 + math.exp(-z))


def swish(z):
    """Swish (ou SiLU): z · σ(z)."""
    return z * sigmoide(z)


def rope(v, pos, base=10000.0):
    """RoPE: gira cada par (v[2i], v[2i+1]) pelo ângulo pos · base^(-2i/d)."""
    d = len(v)
    out = []
    for i in range(0, d, 2):
        ang = pos * base ** (-i / d)
        c, s = math.cos(ang), math.sin(ang)
        out += [v[i] * c - v[i + 1] * s, v[i] * s + v[i + 1] * c]
    return out


def produto(a, b):
    return sum(x * y for x, y in zip(a, b))


# ---------------------------------------------------------------------------
# Compute
# ---------------------------------------------------------------------------
FLOPS_IDA = 2    # por parâmetro por token: uma multiplicação e uma soma
FLOPS_VOLTA = 4  # a volta calcula dois gradientes (das entradas e dos pesos), cada um do tamanho da ida
FLOPS_TREINO = FLOPS_IDA + FLOPS_VOLTA  # = 6


def flops_linear(n, d_in, d_out):
    """FLOPs de (n x d_in) @ (d_in x d_out): cada saída soma d_in produtos."""
    return 2 * n * d_in * d_out


def flops_treino(N, D):
    """C ≈ 6 · N · D."""
    return FLOPS_TREINO * N * D


def flops_servir(N, tokens):
    """Servir (inferência) é só a ida: 2 · N por token."""
    return FLOPS_IDA * N * tokens


# Modelos da tabela de escala: (nome, ano, N parâmetros, D tokens de treino).
# GPT-3: Brown et al. (2020); Chinchilla: Hoffmann et al. (2022); Llama 3 8B: Meta (2024).
MODELOS = [
    ("GPT-3", 2020, 175e9, 0.3e12),
    ("Chinchilla", 2022, 70e9, 1.4e12),
    ("Llama 3 8B", 2024, 8e9, 15e12),
]


# ---------------------------------------------------------------------------
# A lei de escala do Chinchilla: L(N, D) = E + A / N^α + B / D^β
# ---------------------------------------------------------------------------
# Hoffmann et al. (2022), "Training Compute-Optimal Large Language Models",
# arXiv:2203.15556, seção 3.3 (abordagem 3: ajustar uma forma paramétrica da perda).
HOFFMANN_2022 = {"E": 1.69, "A": 406.4, "B": 410.7, "alfa": 0.34, "beta": 0.28}

# Besiroglu, Erdil, Barnett e You (2024), "Chinchilla Scaling: A replication attempt",
# arXiv:2404.10102: o mesmo ajuste refeito sobre os dados reconstruídos dos gráficos.
# Concorda com as abordagens 1 e 2 de Hoffmann (cerca de 20 tokens por parâmetro).
BESIROGLU_2024 = {"E": 1.8172, "A": 482.01, "B": 2085.43, "alfa": 0.3478, "beta": 0.3658}


def perda(N, D, ajuste=HOFFMANN_2022):
    """Perda prevista (nats por token) de um modelo de N parâmetros treinado em D tokens."""
    return ajuste["E"] + ajuste["A"] / N ** ajuste["alfa"] + ajuste["B"] / D ** ajuste["beta"]


def perda_com_compute(N, C, ajuste=HOFFMANN_2022):
    """Com C fixo, D = C / (6N): a curva da perda em função só de N."""
    return perda(N, C / (FLOPS_TREINO * N), ajuste)


def otimo_chinchilla(C, ajuste=HOFFMANN_2022):
    """A divisão ótima de C (Hoffmann et al., 2022, seção 3.3):
    N* = G (C/6)^a, D* = (C/6)/N*, com G = (αA / βB)^(1/(α+β)) e a = β/(α+β)."""
    al, be = ajuste["alfa"], ajuste["beta"]
    G = (al * ajuste["A"] / (be * ajuste["B"])) ** (1 / (al + be))
    N = G * (C / FLOPS_TREINO) ** (be / (al + be))
    D = C / (FLOPS_TREINO * N)
    return {"N": N, "D": D, "perda": perda(N, D, ajuste), "tokens_por_parametro": D / N}


def tokens_para_perda(N, L_alvo, ajuste=HOFFMANN_2022):
    """Quantos tokens de treino um modelo de N parâmetros precisa para chegar a L_alvo (inf se nunca)."""
    folga = L_alvo - ajuste["E"] - ajuste["A"] / N ** ajuste["alfa"]
    if folga <= 0:
        return math.inf
    return (ajuste["B"] / folga) ** (1 / ajuste["beta"])


def _minimo_dourado(f, a, b, passos=200):
    """Mínimo de uma função unimodal em [a, b] pela razão áurea."""
    r = (math.sqrt(5) - 1) / 2
    c, d_ = b - r * (b - a), a + r * (b - a)
    fc, fd = f(c), f(d_)
    for _ in range(passos):
        if fc < fd:
            b, d_, fd = d_, c, fc
            c = b - r * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d_, fd
            d_ = a + r * (b - a)
            fd = f(d_)
    return (a + b) / 2


def otimo_com_inferencia(L_alvo, tokens_servidos, ajuste=HOFFMANN_2022):
    """O modelo mais barato que chega a L_alvo contando treino E serviço.

    custo(N) = 6 · N · D(N) + 2 · N · tokens_servidos, com D(N) = tokens_para_perda(N, L_alvo).
    (A ideia de Sardana et al., 2023, "Beyond Chinchilla-Optimal", arXiv:2401.00448.)
    """
    folga = L_alvo - ajuste["E"]
    if folga <= 0:
        raise ValueError("A perda alvo precisa ser maior que E, a perda irredutível.")
    logN_min = math.log(ajuste["A"] / folga) / ajuste["alfa"]  # abaixo disso, nem D infinito basta

    def custo(logN):
        N = math.exp(logN)
        return flops_treino(N, tokens_para_perda(N, L_alvo, ajuste)) + flops_servir(N, tokens_servidos)

    logN = _minimo_dourado(custo, logN_min + 1e-9, logN_min + 30)
    N = math.exp(logN)
    D = tokens_para_perda(N, L_alvo, ajuste)
    treino, servir = flops_treino(N, D), flops_servir(N, tokens_servidos)
    return {"N": N, "D": D, "tokens_por_parametro": D / N,
            "custo_treino": treino, "custo_servir": servir, "custo_total": treino + servir}


def otimo_com_inferencia_para_compute(C, tokens_servidos, ajuste=HOFFMANN_2022):
    """A mesma qualidade do modelo ótimo de Chinchilla para C, agora pagando também o serviço."""
    return otimo_com_inferencia(otimo_chinchilla(C, ajuste)["perda"], tokens_servidos, ajuste)
