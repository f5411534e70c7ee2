"""Seções 1 a 4 do laboratório: tokens, parâmetros, o caminho em formas, um bloco à mão."""
import math

import torch

from livro.gpt2.base import ids_de, mais_provaveis, tensor_da_saida
from livro.gpt2.contas import FRASES, PROMPT, parametros_formula, resumo_bloco

# --------------------------------------------------------------------------- 1. tokens em dois idiomas

def pedacos(tok, texto):
    """Os tokens como texto, com o espaço inicial à mostra: ['Data', ' visualization', ...]."""
    return [tok.decode([i]) for i in tok.encode(texto)]


def tokens_por_palavra(tok, frase):
    """Tokens ÷ palavras (palavras separadas por espaço)."""
    return len(tok.encode(frase)) / len(frase.split())


def tokens_em_dois_idiomas(tok, frases=FRASES):
    """Prompt em tokens, três grafias de "the" e a razão tokens/palavra nos dois idiomas."""
    ids_the = [tok.encode(s) for s in (" the", "the", " The")]
    razoes = [(tokens_por_palavra(tok, en), tokens_por_palavra(tok, pt)) for en, pt in frases]
    return {
        "pedacos": pedacos(tok, PROMPT),
        "ids": tok.encode(PROMPT),
        "ids_the": ids_the,
        "vocabulario": len(tok),
        "razoes": razoes,  # [(inglês, português), ...]
        "gato": pedacos(tok, " gato"),
        "cachorro": pedacos(tok, " cachorro"),
    }


# --------------------------------------------------------------------------- 2. onde moram os parâmetros

PARTES_BLOCO = ["ln_1", "attn.c_attn", "attn.c_proj", "ln_2", "mlp.c_fc", "mlp.c_proj"]


def conta(modulo):
    return sum(p.numel() for p in modulo.parameters())


def parametros_bloco(bloco):
    """Parâmetros de um bloco, peça por peça (pesos + vieses)."""
    return {nome: conta(bloco.get_submodule(nome)) for nome in PARTES_BLOCO}


def parametros_modelo(modelo):
    """Onde moram os parâmetros do modelo inteiro.

    A camada de saída (lm_head) é a própria wte: `parameters()` conta o tensor uma vez só.
    """
    t = modelo.transformer
    pecas = parametros_bloco(t.h[0])
    return {
        "wte": t.wte.weight.numel(),
        "wpe": t.wpe.weight.numel(),
        "bloco": sum(pecas.values()),
        "blocos": sum(conta(b) for b in t.h),
        "ln_f": conta(t.ln_f),
        "total": conta(modelo),
        "saida_amarrada": modelo.lm_head.weight.data_ptr() == t.wte.weight.data_ptr(),
        "pecas": pecas,
    }


def onde_moram_os_parametros(modelo):
    """Os parâmetros do modelo carregado (contados e pela fórmula) e os do GPT-2 small (fórmula)."""
    from transformers import GPT2Config

    contados = parametros_modelo(modelo)
    formula = parametros_formula(modelo.config)
    small = parametros_formula(GPT2Config())
    return {"contados": contados, "formula": formula, "resumo": resumo_bloco(contados["pecas"]),
            "small": small, "resumo_small": resumo_bloco(small["pecas"])}


# --------------------------------------------------------------------------- 3. o caminho em formas

@torch.no_grad()
def caminho_em_formas(modelo, tok, texto=PROMPT):
    """O caminho completo com a forma de cada etapa, lida por ganchos durante a passada normal."""
    t = modelo.transformer
    ids = ids_de(tok, texto)                                   # (1, n)
    etapas = [("ids", tuple(ids.shape))]

    def anota(nome):
        return lambda m, e, s: etapas.append((nome, tuple(tensor_da_saida(s).shape)))

    modulos = [(t.wte, "wte"), (t.wpe, "wpe")]
    modulos += [(b, f"bloco {i + 1}") for i, b in enumerate(t.h)]
    modulos += [(t.ln_f, "ln_f"), (modelo.lm_head, "logits")]
    ganchos = [m.register_forward_hook(anota(nome)) for m, nome in modulos]
    try:
        logits = modelo(ids).logits                            # (1, n, V)
    finally:
        for g in ganchos:
            g.remove()
    p = torch.softmax(logits[0, -1], dim=-1)                   # (V,)
    etapas.append(("softmax da última linha", tuple(p.shape)))
    return {"etapas": etapas, "logits": logits, "probs": p, "ids": ids}


@torch.no_grad()
def toda_posicao_preve(modelo, tok, texto=PROMPT):
    """Para cada posição: o palpite do modelo, o token certo, p(certo) e −ln p(certo)."""
    ids = ids_de(tok, texto)                                   # (1, n)
    logits = modelo(ids).logits[0]                             # (n, V)
    logp = torch.log_softmax(logits, dim=-1)                   # (n, V)
    linhas = []
    for i in range(ids.shape[1]):
        palpite = int(logp[i].argmax())
        linha = {"depois_de": tok.decode(ids[0, : i + 1]), "palpite": tok.decode([palpite]),
                 "p_palpite": float(logp[i, palpite].exp())}
        if i + 1 < ids.shape[1]:
            certo = int(ids[0, i + 1])
            linha.update(certo=tok.decode([certo]), p_certo=float(logp[i, certo].exp()),
                         nats=float(-logp[i, certo]))
        linhas.append(linha)
    perda = sum(l["nats"] for l in linhas[:-1]) / (len(linhas) - 1)
    return {"linhas": linhas, "perda": perda, "forma_logits": tuple(logits.unsqueeze(0).shape)}


def caminho_completo(modelo, tok, texto=PROMPT):
    """O caminho em formas, a distribuição da última linha e o que cada posição prevê."""
    c = caminho_em_formas(modelo, tok, texto)
    return {"etapas": c["etapas"], "soma": float(c["probs"].sum()),
            "top4": mais_provaveis(tok, c["probs"], 4), "posicoes": toda_posicao_preve(modelo, tok, texto)}


# --------------------------------------------------------------------------- 4. um bloco à mão

def layernorm(x, ln, eps):
    """(x − média) / √(variância + ε) · ganho + viés, em cada linha."""
    media = x.mean(dim=-1, keepdim=True)                       # (n, 1)
    var = ((x - media) ** 2).mean(dim=-1, keepdim=True)        # (n, 1)
    return (x - media) / torch.sqrt(var + eps) * ln.weight + ln.bias


def gelu(x):
    """A GELU do GPT-2: a aproximação por tangente hiperbólica."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def softmax(s):
    """exp(s) / soma, linha a linha (subtrair o máximo não muda o resultado e evita estouro)."""
    e = torch.exp(s - s.max(dim=-1, keepdim=True).values)
    return e / e.sum(dim=-1, keepdim=True)


def mascara_causal(n):
    """0 na diagonal e abaixo, −∞ acima: o token i só lê os tokens 0..i."""
    return torch.triu(torch.full((n, n), float("-inf")), diagonal=1)  # (n, n)


@torch.no_grad()
def bloco_a_mao(bloco, x, n_cabecas, eps=1e-5, mostra=False):
    """Um bloco do GPT-2 refeito com @, a máscara causal, softmax, LayerNorm e GELU.

    x: (n, d), o fluxo residual de uma frase. Devolve y (n, d), os pesos de atenção A
    (cabeças, n, n) e a lista das formas de cada etapa.
    """
    n, d = x.shape
    dh = d // n_cabecas
    formas = [("x, o fluxo residual na entrada", tuple(x.shape))]
    u = layernorm(x, bloco.ln_1, eps)                                    # (n, d)
    qkv = u @ bloco.attn.c_attn.weight + bloco.attn.c_attn.bias          # (n, 3d)
    q, k, v = qkv.split(d, dim=-1)                                       # 3 × (n, d)
    q, k, v = (m.view(n, n_cabecas, dh).transpose(0, 1) for m in (q, k, v))  # 3 × (cabeças, n, dh)
    formas.append(("Q, K, V por cabeça", tuple(q.shape)))
    s = q @ k.transpose(-1, -2) / math.sqrt(dh) + mascara_causal(n)      # (cabeças, n, n)
    A = softmax(s)                                                       # (cabeças, n, n)
    formas.append(("softmax(QKᵀ/√dh + M)", tuple(A.shape)))
    z = (A @ v).transpose(0, 1).reshape(n, d)                            # (n, d)
    a = z @ bloco.attn.c_proj.weight + bloco.attn.c_proj.bias            # (n, d)
    h = x + a                                                            # (n, d)
    formas.append(("h = x + atenção", tuple(h.shape)))
    oculta = gelu(layernorm(h, bloco.ln_2, eps) @ bloco.mlp.c_fc.weight
                  + bloco.mlp.c_fc.bias)                                 # (n, 4d)
    formas.append(("camada oculta do MLP", tuple(oculta.shape)))
    y = h + oculta @ bloco.mlp.c_proj.weight + bloco.mlp.c_proj.bias     # (n, d)
    formas.append(("y, fluxo residual na saída", tuple(y.shape)))
    if mostra:
        for nome, f in formas:
            print(f"  {nome:32s} {' × '.join(map(str, f))}")
    return y, A, formas


@torch.no_grad()
def logits_a_mao(modelo, ids):
    """O modelo inteiro à mão: wte + wpe, os blocos, ln_f e a wte transposta. ids: (1, n)."""
    t, c = modelo.transformer, modelo.config
    n = ids.shape[1]
    x = t.wte.weight[ids[0]] + t.wpe.weight[:n]                         # (n, d)
    for bloco in t.h:
        x = bloco_a_mao(bloco, x, c.n_head, c.layer_norm_epsilon)[0]    # (n, d)
    x = layernorm(x, t.ln_f, c.layer_norm_epsilon)                      # (n, d)
    return x @ t.wte.weight.T                                           # (n, V)


@torch.no_grad()
def bloco_a_mao_e_a_biblioteca(modelo, tok, texto=PROMPT, mostra=False):
    """Bloco 0 à mão contra a biblioteca: saída, pesos de atenção e logits finais."""
    c = modelo.config
    assert c.activation_function == "gelu_new", c.activation_function
    ids = ids_de(tok, texto)                                             # (1, n)
    saida = modelo(ids, output_hidden_states=True, output_attentions=True)
    x0 = saida.hidden_states[0][0]                                       # (n, d)
    y, A, formas = bloco_a_mao(modelo.transformer.h[0], x0, c.n_head, c.layer_norm_epsilon, mostra)
    # hidden_states[1] é a saída do bloco 0 (sem ln_f) quando há mais de um bloco
    ref_y = saida.hidden_states[1][0] if c.n_layer > 1 else None
    logits = logits_a_mao(modelo, ids)                                   # (n, V)
    return {
        "formas": formas,
        "dif_bloco": float((y - ref_y).abs().max()) if ref_y is not None else float("nan"),
        "dif_atencao": float((A - saida.attentions[0][0]).abs().max()),
        "dif_logits": float((logits - saida.logits[0]).abs().max()),
        "escala_logits": float(saida.logits.abs().max()),
    }

