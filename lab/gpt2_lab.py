"""As contas do laboratório do GPT-2, uma seção por bloco de funções.

O notebook `laboratorio_gpt2.ipynb` e os testes importam este arquivo; assim as células do
notebook ficam curtas e cada número que ele mostra é o mesmo que os testes conferem.

Os nomes seguem os do próprio GPT-2 (`wte`, `wpe`, `h`, `ln_1`, `c_attn`, `c_proj`, `ln_2`,
`c_fc`, `ln_f`), para que cada peso do modelo caia no lugar certo. Importar não imprime nada.
"""
import inspect
import json
import math
import os
from contextlib import contextmanager

import torch

from gpt2_contas import (FRASES, FRASES_THE, PROMPT, PROMPTS_CONFIANCA, TEXTO_LONGO,  # noqa: F401
                         parametros_formula, resumo_bloco)

NOME = "gpt2"  # o identificador no hub; nunca trocado: os testes montam um cache com este nome
AQUI = os.path.dirname(os.path.abspath(__file__))


# --------------------------------------------------------------------------- carregar

def carrega(nome=NOME):
    """O GPT-2 e o seu tokenizador, do hub ou do cache local.

    A atenção "eager" é a que devolve os pesos de atenção (output_attentions).
    """
    from transformers import AutoTokenizer, GPT2LMHeadModel

    modelo = GPT2LMHeadModel.from_pretrained(nome, attn_implementation="eager")
    modelo.eval()
    tok = AutoTokenizer.from_pretrained(nome)
    return modelo, tok


def forma_gpt2_small(config):
    """A configuração tem a forma do GPT-2 small (12 blocos, d = 768, 12 cabeças, V = 50.257)?"""
    return (config.n_layer, config.n_embd, config.n_head, config.vocab_size) == (12, 768, 12, 50257)


def pesos_reais(modelo):
    """Vale comparar com os números do curso? Só com a forma do GPT-2 small.

    Pesos aleatórios na forma completa também passariam aqui; nesse caso a comparação com o
    curso falha, e é isso mesmo que deve acontecer.
    """
    return forma_gpt2_small(modelo.config)



def ids_de(tok, texto):
    """Texto -> tensor de ids, forma (1, n)."""
    return torch.tensor([tok.encode(texto)])  # (1, n)


# --------------------------------------------------------------------------- valores do curso

def valores_curso(caminho=None):
    """Os números medidos pelo curso no GPT-2 small, com a frase de onde vêm e a tolerância."""
    caminho = caminho or os.path.join(AQUI, "valores_curso.json")
    with open(caminho, encoding="utf-8") as f:
        return json.load(f)["valores"]


def dentro(medido, esperado, tol=0.0, rel=False):
    """`medido` está a no máximo `tol` de `esperado`? Listas e textos: igualdade (ou item a item)."""
    if isinstance(esperado, str):
        return medido == esperado
    if isinstance(esperado, (list, tuple)):
        if not isinstance(medido, (list, tuple)) or len(medido) != len(esperado):
            return False
        return all(dentro(m, e, tol, rel) for m, e in zip(medido, esperado))
    folga = tol * abs(esperado) if rel else tol
    return abs(float(medido) - float(esperado)) <= folga + 1e-12


def _mostra(v):
    """Um valor medido, curto e com vírgula decimal, para as linhas de comparação."""
    if isinstance(v, float):
        return format(v, ".4g").replace(".", ",")
    if isinstance(v, (list, tuple)):
        return "[" + "; ".join(_mostra(x) for x in v) + "]"
    return repr(v)


class Curso:
    """Compara o que o notebook mede com o que o curso mediu.

    `ativo` diz se o modelo carregado tem a forma do GPT-2 small; sem ela, as comparações que
    precisam dos pesos são puladas (com aviso) e só os invariantes do notebook valem.
    """

    def __init__(self, modelo=None, caminho=None, ativo=None):
        self.valores = valores_curso(caminho)
        if ativo is None:
            ativo = modelo is not None and pesos_reais(modelo)
        self.ativo = ativo
        self.conferidos = []
        self.pulados = []

    def confere_tudo(self, medidas):
        """Confere um dicionário {chave: valor medido} (ver `medidas`)."""
        for chave, medido in medidas.items():
            self.confere(chave, medido)

    def confere(self, chave, medido):
        v = self.valores[chave]
        if v.get("precisa") in ("pesos", "config") and not self.ativo:
            self.pulados.append(chave)
            print(f"  [curso] {chave}: pulado (não são os pesos do GPT-2 small)")
            return None
        if v.get("tipo") == "referencia":
            print(f"  [curso] {chave}: curso {_mostra(v['valor'])}, aqui {_mostra(medido)} (só referência)")
            return None
        if v.get("tipo") == "prefixo":
            ok = isinstance(medido, str) and medido.startswith(v["valor"])
        else:
            ok = dentro(medido, v["valor"], v.get("tol", 0.0), v.get("tipo") == "rel")
        marca = "ok" if ok else "DIFERENTE"
        print(f"  [curso] {chave}: curso {_mostra(v['valor'])}, aqui {_mostra(medido)} -> {marca}")
        assert ok, f"{chave}: esperado {v['valor']!r} (tolerância {v.get('tol', 0)}), medido {medido!r}"
        self.conferidos.append(chave)
        return True


# --------------------------------------------------------------------------- seção 1: tokens

def pedacos(tok, texto):
    """Os tokens como texto, com o espaço inicial à mostra: ['Data', ' visualization', ...]."""
    return [tok.decode([i]) for i in tok.encode(texto)]


def tokens_por_palavra(tok, frase):
    """Tokens ÷ palavras (palavras separadas por espaço)."""
    return len(tok.encode(frase)) / len(frase.split())


def secao1(tok, frases=FRASES):
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


# --------------------------------------------------------------------------- seção 2: parâmetros

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


def secao2(modelo):
    """Os parâmetros do modelo carregado (contados e pela fórmula) e os do GPT-2 small (fórmula)."""
    from transformers import GPT2Config

    contados = parametros_modelo(modelo)
    formula = parametros_formula(modelo.config)
    small = parametros_formula(GPT2Config())
    return {"contados": contados, "formula": formula, "resumo": resumo_bloco(contados["pecas"]),
            "small": small, "resumo_small": resumo_bloco(small["pecas"])}


# --------------------------------------------------------------------------- seção 3: formas

def _tensor(saida):
    """Um bloco devolve um tensor (transformers 5) ou uma tupla que começa por ele (4)."""
    return saida[0] if isinstance(saida, tuple) else saida


@torch.no_grad()
def caminho_em_formas(modelo, tok, texto=PROMPT):
    """O caminho completo com a forma de cada etapa, lida por ganchos durante a passada normal."""
    t = modelo.transformer
    ids = ids_de(tok, texto)                                   # (1, n)
    etapas = [("ids", tuple(ids.shape))]

    def anota(nome):
        return lambda m, e, s: etapas.append((nome, tuple(_tensor(s).shape)))

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


def mais_provaveis(tok, probs, k=4):
    """Os k tokens mais prováveis de um vetor de probabilidades (V,)."""
    p, i = torch.topk(probs, k)
    return [(tok.decode([int(j)]), float(q)) for q, j in zip(p, i)]


def secao3(modelo, tok, texto=PROMPT):
    """O caminho em formas, a distribuição da última linha e o que cada posição prevê."""
    c = caminho_em_formas(modelo, tok, texto)
    return {"etapas": c["etapas"], "soma": float(c["probs"].sum()),
            "top4": mais_provaveis(tok, c["probs"], 4), "posicoes": toda_posicao_preve(modelo, tok, texto)}


# --------------------------------------------------------------------------- seção 4: bloco à mão

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
def bloco_a_mao(bloco, x, n_head, eps=1e-5, mostra=False):
    """Um bloco do GPT-2 só com @, uma máscara, softmax, LayerNorm e GELU.

    x: (n, d), o fluxo residual de uma frase. Devolve y (n, d), os pesos de atenção A
    (cabeças, n, n) e a lista das formas de cada etapa.
    """
    n, d = x.shape
    dh = d // n_head
    formas = [("x, fluxo residual na entrada", tuple(x.shape))]
    u = layernorm(x, bloco.ln_1, eps)                                    # (n, d)
    qkv = u @ bloco.attn.c_attn.weight + bloco.attn.c_attn.bias          # (n, 3d)
    q, k, v = qkv.split(d, dim=-1)                                       # 3 × (n, d)
    q, k, v = (m.view(n, n_head, dh).transpose(0, 1) for m in (q, k, v))  # 3 × (h, n, dh)
    formas.append(("Q, K, V por cabeça", tuple(q.shape)))
    s = q @ k.transpose(-1, -2) / math.sqrt(dh) + mascara_causal(n)      # (h, n, n)
    A = softmax(s)                                                       # (h, n, n)
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
def secao4(modelo, tok, texto=PROMPT, mostra=False):
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


# --------------------------------------------------------------------------- seção 5: cabeças

@torch.no_grad()
def atencoes(modelo, ids):
    """Todos os pesos de atenção: (blocos, cabeças, n, n)."""
    saida = modelo(ids, output_attentions=True)
    return torch.stack([a[0] for a in saida.attentions])                 # (L, H, n, n)


def escore_anterior(A):
    """Atenção média que cada cabeça põe no token anterior (posições 1..n−1): (L, H)."""
    n = A.shape[-1]
    i = torch.arange(1, n)
    return A[..., i, i - 1].mean(dim=-1)


def escore_primeiro(A):
    """Atenção média no primeiro token, sem contar a posição 0 (que só pode olhar para si): (L, H)."""
    return A[..., 1:, 0].mean(dim=-1)


def escore_inducao(A, T):
    """Numa sequência repetida de período T: atenção média da posição i (2ª cópia) em i − T + 1.

    É o token que veio *depois* da ocorrência anterior do token atual: (L, H).
    """
    n = A.shape[-1]
    i = torch.arange(T, n)
    return A[..., i, i - T + 1].mean(dim=-1)


def melhor_head(escore):
    """(bloco, cabeça, valor) da cabeça com o maior escore; blocos e cabeças contados do 0."""
    L, H = escore.shape
    j = int(escore.argmax())
    return j // H, j % H, float(escore.flatten()[j])


def sequencia_repetida(T=50, vocab=50257, semente=0):
    """T tokens sorteados ao acaso, repetidos uma vez: (1, 2T)."""
    g = torch.Generator().manual_seed(semente)
    metade = torch.randint(0, vocab, (T,), generator=g)                  # (T,)
    return torch.cat([metade, metade]).unsqueeze(0)                      # (1, 2T)


@torch.no_grad()
def perdas_por_copia(modelo, ids, T):
    """Perda média na 1ª cópia e na 2ª cópia de uma sequência repetida, e o top-1 na 2ª.

    Conta só os alvos previsíveis por cópia: na 1ª cópia, os alvos 1..T−1; na 2ª, T+1..2T−1
    (o alvo T, o começo da repetição, o modelo não tem como saber).
    """
    logits = modelo(ids).logits[0]                                       # (2T, V)
    logp = torch.log_softmax(logits[:-1], dim=-1)                        # (2T−1, V)
    alvo = ids[0, 1:]                                                    # (2T−1,)
    nats = -logp.gather(1, alvo[:, None])[:, 0]                          # (2T−1,)
    acerto = (logp.argmax(dim=-1) == alvo).float()                       # (2T−1,)
    # a linha j prevê o alvo j+1
    primeira = nats[0:T - 1]
    segunda = nats[T:2 * T - 1]
    return {"primeira": float(primeira.mean()), "segunda": float(segunda.mean()),
            "top1_segunda": float(acerto[T:2 * T - 1].mean()), "ao_acaso": math.log(logits.shape[-1])}


def secao5(modelo, tok, texto=TEXTO_LONGO, T=50, semente=0):
    """Escores das três funções em todas as cabeças, e a sequência repetida."""
    A = atencoes(modelo, ids_de(tok, texto))                             # (L, H, n, n)
    ant, pri = escore_anterior(A), escore_primeiro(A)
    rep = sequencia_repetida(T, modelo.config.vocab_size, semente)       # (1, 2T)
    Ar = atencoes(modelo, rep)                                           # (L, H, 2T, 2T)
    ind = escore_inducao(Ar, T)
    return {
        "n_heads": ant.numel(),
        "anterior": ant, "primeiro": pri, "inducao": ind,
        "melhor_anterior": melhor_head(ant),
        "melhor_primeiro": melhor_head(pri),
        "melhor_inducao": melhor_head(ind),
        "heads_sumidouro": int((pri > 0.5).sum()),
        "copias": perdas_por_copia(modelo, rep, T),
        "soma_linhas": float((A.sum(dim=-1) - 1).abs().max()),
        "acima_diagonal": float(A.triu(diagonal=1).abs().max()),
    }


# --------------------------------------------------------------------------- seção 6: sem atenção

@contextmanager
def sem_atencao(modelo):
    """Zera a saída de toda subcamada de atenção (com ganchos); o resto do modelo fica igual."""
    def zera(modulo, entrada, saida):
        if isinstance(saida, tuple):
            return (torch.zeros_like(saida[0]),) + tuple(saida[1:])
        return torch.zeros_like(saida)

    ganchos = [b.attn.register_forward_hook(zera) for b in modelo.transformer.h]
    try:
        yield modelo
    finally:
        for g in ganchos:
            g.remove()


@torch.no_grad()
def ultima_distribuicao(modelo, tok, texto):
    """A distribuição da última posição: (V,)."""
    return torch.softmax(modelo(ids_de(tok, texto)).logits[0, -1], dim=-1)


@torch.no_grad()
def perda_media(modelo, ids):
    """A perda média de prever cada próximo token de ids (1, n), em nats."""
    logits = modelo(ids).logits[0, :-1]                                  # (n−1, V)
    return float(torch.nn.functional.cross_entropy(logits, ids[0, 1:]))


def secao6(modelo, tok, frases=FRASES_THE, texto=TEXTO_LONGO):
    """Com e sem atenção: as duas frases terminadas em "the" e a perda num parágrafo."""
    com = [ultima_distribuicao(modelo, tok, f) for f in frases]
    with sem_atencao(modelo):
        sem = [ultima_distribuicao(modelo, tok, f) for f in frases]
        perda_sem = perda_media(modelo, ids_de(tok, texto))
    perda_com = perda_media(modelo, ids_de(tok, texto))
    return {
        "n_tokens": [len(tok.encode(f)) for f in frases],
        "com": [mais_provaveis(tok, p, 2) for p in com],
        "sem": [mais_provaveis(tok, p, 2) for p in sem],
        "dif_sem": float((sem[0] - sem[1]).abs().max()),
        "dif_com": float((com[0] - com[1]).abs().max()),
        "tokens_texto": len(tok.encode(texto)),
        "perda_com": perda_com,
        "perda_sem": perda_sem,
    }


# --------------------------------------------------------------------------- seção 7: logit lens

@torch.no_grad()
def logit_lens(modelo, ids, alvo=None):
    """Lê o fluxo residual da última posição depois de cada bloco.

    Em cada profundidade aplica ln_f e a wte transposta. Cuidado: na saída da biblioteca o
    último hidden_state já passou pela ln_f; ali ela não é aplicada de novo.
    Devolve, por profundidade (0 = embedding), o token do topo e a posição e a probabilidade
    de `alvo` (por padrão, o token que o modelo inteiro escolhe).
    """
    t = modelo.transformer
    saida = modelo(ids, output_hidden_states=True)
    hs = saida.hidden_states                                             # L+1 × (1, n, d)
    L = len(t.h)
    final = saida.logits[0, -1]                                          # (V,)
    alvo = int(final.argmax()) if alvo is None else alvo
    linhas = []
    for prof, x in enumerate(hs):
        r = x[0, -1]                                                     # (d,)
        if prof < L:
            r = t.ln_f(r)                                                # (d,)
        logits = modelo.lm_head(r)                                       # (V,)
        p = torch.softmax(logits, dim=-1)                                # (V,)
        posicao = int((logits > logits[alvo]).sum()) + 1
        linhas.append({"profundidade": prof, "topo": int(logits.argmax()), "posicao": posicao,
                       "p": float(p[alvo]), "logits": logits})
    return {"alvo": alvo, "linhas": linhas,
            "dif_final": float((linhas[-1]["logits"] - final).abs().max())}


@torch.no_grad()
def normas_residuais(modelo, ids):
    """Norma média do fluxo residual depois de cada bloco (sem a posição 0, o "sumidouro").

    Usa ganchos nos blocos, para ler a saída do último bloco *antes* da ln_f.
    """
    t = modelo.transformer
    saidas = []

    def guarda(modulo, entrada, saida):
        saidas.append(_tensor(saida).detach())

    ganchos = [b.register_forward_hook(guarda) for b in t.h]
    try:
        hs = modelo(ids, output_hidden_states=True).hidden_states
    finally:
        for g in ganchos:
            g.remove()
    fluxos = [hs[0]] + saidas                                            # L+1 × (1, n, d)
    return {"normas": [float(x[0, 1:].norm(dim=-1).mean()) for x in fluxos],
            "norma_pos0": [float(x[0, 0].norm()) for x in fluxos],
            "confere_hidden": max(float((a - b).abs().max()) for a, b in zip(fluxos[:-1], hs[:-1]))}


PROFUNDIDADES = (0, 3, 6, 8, 9, 10, 11, 12)  # as colunas da tabela do curso


def secao7(modelo, tok, texto=PROMPT, profundidades=PROFUNDIDADES):
    """Logit lens no prompt do curso e a norma do fluxo residual em cada profundidade."""
    ids = ids_de(tok, texto)
    lens = logit_lens(modelo, ids)
    L = modelo.config.n_layer
    profs = [p for p in profundidades if p <= L]
    return {"alvo": tok.decode([lens["alvo"]]), "profundidades": profs,
            "posicoes": [lens["linhas"][p]["posicao"] for p in profs],
            "p": [lens["linhas"][p]["p"] for p in profs],
            "topos": [tok.decode([l["topo"]]) for l in lens["linhas"]],
            "todas_p": [l["p"] for l in lens["linhas"]],
            "todas_posicoes": [l["posicao"] for l in lens["linhas"]],
            "dif_final": lens["dif_final"], "normas": normas_residuais(modelo, ids)}


# --------------------------------------------------------------------------- seção 8: decodificação

def com_temperatura(logits, T):
    """softmax(z / T): T < 1 concentra, T > 1 achata."""
    return torch.softmax(logits / T, dim=-1)


def quantos_para(p, massa=0.9):
    """Quantos dos tokens mais prováveis são precisos para somar `massa`."""
    acumulada = torch.sort(p, descending=True).values.cumsum(dim=-1)
    return int((acumulada < massa).sum()) + 1


def filtra_top_k(logits, k):
    """Mantém os k maiores logits; os outros viram −∞."""
    corte = torch.topk(logits, k).values[..., -1:]
    return logits.masked_fill(logits < corte, float("-inf"))


def filtra_top_p(logits, p):
    """Mantém o menor conjunto dos mais prováveis cuja soma chega a p; os outros viram −∞."""
    ordem = torch.argsort(logits, descending=True)
    probs = torch.softmax(logits[ordem], dim=-1)
    antes = probs.cumsum(dim=-1) - probs          # massa dos que vêm antes de cada um
    fica = antes < p                              # o primeiro sempre fica
    saida = torch.full_like(logits, float("-inf"))
    saida[ordem[fica]] = logits[ordem[fica]]
    return saida


def escolhe(logits, T=1.0, k=None, p=None, gerador=None):
    """Escolhe o próximo token: T = 0 é o guloso; senão filtra (top-k, top-p) e sorteia."""
    if T == 0:
        return int(logits.argmax())
    z = logits / T
    if k is not None:
        z = filtra_top_k(z, k)
    if p is not None:
        z = filtra_top_p(z, p)
    return int(torch.multinomial(torch.softmax(z, dim=-1), 1, generator=gerador))


def _cache_de(saida):
    """O cache de KV de uma saída: `cache` (transformers 5) ou `past_key_values` (4)."""
    c = getattr(saida, "cache", None)
    return c if c is not None else saida.past_key_values


def _passo_com_cache(modelo, ids, cache):
    """Roda só os tokens novos, passando o cache pelo nome que a versão instalada usa."""
    nome = "cache" if "cache" in inspect.signature(modelo.forward).parameters else "past_key_values"
    return modelo(ids, use_cache=True, **{nome: cache})


@torch.no_grad()
def gera(modelo, ids, n, T=0.0, k=None, p=None, semente=0, cache=True):
    """Gera n tokens a partir de ids (1, m). Devolve os ids novos e os logits de cada passo.

    Com cache: só o token novo entra em cada passo; K e V das posições anteriores ficam
    guardados. Sem cache: a sequência inteira é recalculada a cada passo.
    """
    g = torch.Generator().manual_seed(semente)
    novos, passos = [], []
    seq = ids
    saida = modelo(ids, use_cache=cache)
    for _ in range(n):
        ultimo = saida.logits[0, -1]                                     # (V,)
        passos.append(ultimo)
        prox = escolhe(ultimo, T, k, p, g)
        novos.append(prox)
        if len(novos) == n:
            break
        prox_t = torch.tensor([[prox]])                                  # (1, 1)
        seq = torch.cat([seq, prox_t], dim=1)                            # (1, m+1)
        if cache:
            saida = _passo_com_cache(modelo, prox_t, _cache_de(saida))
        else:
            saida = modelo(seq, use_cache=False)
    return novos, torch.stack(passos)                                    # n, (n, V)


@torch.no_grad()
def secao8(modelo, tok, prompt=PROMPT, temperaturas=(0.2, 0.5, 0.8, 1.0, 2.0), n=16):
    """Temperatura, top-k, top-p e o cache de KV, no prompt do curso."""
    ids = ids_de(tok, prompt)                                            # (1, m)
    logits = modelo(ids).logits[0, -1]                                   # (V,)
    topo = int(logits.argmax())
    tabela = []
    for T in temperaturas:
        pt = com_temperatura(logits, T)
        tabela.append({"T": T, "p_topo": float(pt[topo]), "para_90": quantos_para(pt, 0.9),
                       "topo": int(pt.argmax())})
    com, passos_com = gera(modelo, ids, n, T=0.0, cache=True)
    sem, passos_sem = gera(modelo, ids, n, T=0.0, cache=False)
    return {
        "topo": tok.decode([topo]),
        "tabela": tabela,
        "guloso": tok.decode(com),
        "cache_igual": com == sem,
        "dif_cache": float((passos_com - passos_sem).abs().max()),
        "top_k2": int(torch.isfinite(filtra_top_k(logits, 2)).sum()),
        "top_p90": int(torch.isfinite(filtra_top_p(logits, 0.9)).sum()),
        "confianca": {nome: confianca(modelo, tok, texto) for nome, texto in PROMPTS_CONFIANCA.items()},
    }


@torch.no_grad()
def confianca(modelo, tok, prompt, p=0.9):
    """O token mais provável, a sua probabilidade e quantos tokens o top-p mantém."""
    logits = modelo(ids_de(tok, prompt)).logits[0, -1]                   # (V,)
    probs = torch.softmax(logits, dim=-1)
    return {"topo": tok.decode([int(probs.argmax())]), "p_topo": float(probs.max()),
            "top_p": int(torch.isfinite(filtra_top_p(logits, p)).sum())}


# --------------------------------------------------------------------------- seção 9: sua vez

@torch.no_grad()
def decodifica(modelo, tok, prompt, n=30, T=0.8, k=None, p=0.9, semente=0):
    """Gera n tokens com a decodificação escolhida e devolve o texto e o que cada passo manteve."""
    ids = ids_de(tok, prompt)
    novos, passos = gera(modelo, ids, n, T=T, k=k, p=p, semente=semente)
    mantidos = []
    for z, escolhido in zip(passos, novos):
        if T == 0:
            mantidos.append({"n": 1, "massa": float(torch.softmax(z, -1).max()),
                             "dentro": escolhido == int(z.argmax())})
            continue
        zz = z / T
        if k is not None:
            zz = filtra_top_k(zz, k)
        if p is not None:
            zz = filtra_top_p(zz, p)
        fica = torch.isfinite(zz)
        massa = float(torch.softmax(z / T, -1)[fica].sum())
        mantidos.append({"n": int(fica.sum()), "massa": massa, "dentro": bool(fica[escolhido])})
    return {"texto": tok.decode(novos), "ids": novos, "mantidos": mantidos}


# --------------------------------------------------------------------------- o que comparar com o curso

def medidas(secao, r):
    """Do resultado de uma seção, os valores que o curso também mediu: {chave do json: valor}."""
    if secao == 1:
        en = [a for a, _ in r["razoes"]]
        pt = [b for _, b in r["razoes"]]
        return {"s1.pedacos_prompt": r["pedacos"], "s1.vocabulario": r["vocabulario"],
                "s1.the_distintos": len({tuple(i) for i in r["ids_the"]}), "s1.gato": r["gato"],
                "s1.cachorro_pedacos": len(r["cachorro"]),
                "s1.razao_en": [round(min(en), 2), round(max(en), 2)],
                "s1.razao_pt": [round(min(pt), 2), round(max(pt), 2)]}
    if secao == 2:
        rs, sm = r["resumo_small"], r["small"]
        return {"s2.atencao": rs["atencao"], "s2.mlp": rs["mlp"], "s2.normas": rs["normas"],
                "s2.bloco": rs["bloco"], "s2.fracao_mlp": rs["fracao_mlp"],
                "s2.total_milhoes": sm["total"] / 1e6, "s2.fracao_wte": sm["wte"] / sm["total"]}
    if secao == 3:
        pos = r["posicoes"]
        linhas = pos["linhas"][:-1]                      # as linhas que têm resposta
        return {"s3.forma_logits": list(pos["forma_logits"]),
                "s3.top4": [t for t, _ in r["top4"]], "s3.p_visualize": r["top4"][0][1],
                "s3.palpites": [l["palpite"] for l in linhas],
                "s3.nats": [l["nats"] for l in linhas],
                "s3.p_certo_finais": [l["p_certo"] for l in linhas[2:]],
                "s3.perda": pos["perda"]}
    if secao == 4:
        return {"s4.formas": [list(f) for _, f in r["formas"]]}
    if secao == 5:
        c = r["copias"]
        return {"s5.n_heads": r["n_heads"],
                "s5.anterior_head": list(r["melhor_anterior"][:2]), "s5.anterior_peso": r["melhor_anterior"][2],
                "s5.primeiro_head": list(r["melhor_primeiro"][:2]), "s5.primeiro_peso": r["melhor_primeiro"][2],
                "s5.heads_sumidouro": r["heads_sumidouro"],
                "s5.inducao_head": list(r["melhor_inducao"][:2]), "s5.inducao_peso": r["melhor_inducao"][2],
                "s5.perda_primeira": c["primeira"], "s5.perda_segunda": c["segunda"],
                "s5.top1_segunda": c["top1_segunda"]}
    if secao == 6:
        sem = r["sem"][0]
        return {"s6.sem_atencao_top2": [t for t, _ in sem], "s6.sem_atencao_p": [p for _, p in sem],
                "s6.com_atencao": [[t for t, _ in c] for c in r["com"]],
                "s6.perda_com": r["perda_com"], "s6.perda_sem": r["perda_sem"]}
    if secao == 7:
        return {"s7.profundidades": r["profundidades"], "s7.posicoes": r["posicoes"], "s7.p": r["p"]}
    if secao == 8:
        c = r["confianca"]
        return {"s8.temperaturas": [l["T"] for l in r["tabela"]],
                "s8.p_visualize_T": [l["p_topo"] for l in r["tabela"]],
                "s8.para_90_T": [l["para_90"] for l in r["tabela"]],
                "s8.era_uma_vez": c["era_uma_vez"]["topo"], "s8.era_uma_vez_p": c["era_uma_vez"]["p_topo"],
                "s8.era_uma_vez_top_p": c["era_uma_vez"]["top_p"],
                "s8.presidente": c["presidente"]["topo"], "s8.presidente_p": c["presidente"]["p_topo"],
                "s8.presidente_top_p": c["presidente"]["top_p"],
                "s8.guloso": r["guloso"].strip()}
    return {}
