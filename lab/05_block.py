"""Apostila 05 — o bloco Transformer completo, em seis experimentos.

    python lab/05_block.py            # os seis, em ordem
    python lab/05_block.py --so 2 6   # só alguns

1. Um bloco montado do zero: a forma que entra é a forma que sai.
2. Pré-LN contra pós-LN numa pilha de 40 blocos: o gradiente que chega ao 1º bloco.
3. A norma do fluxo residual, bloco a bloco, no GPT-2.
4. O logit lens: a norma final e a camada de saída aplicadas no meio da pilha.
5. Os parâmetros de um bloco do GPT-2, peça por peça.
6. GELU contra ReLU, desenhadas em ASCII.

Os experimentos 1, 3, 4 e 5 usam o GPT-2 small de verdade, via from_pretrained("gpt2").
Os nomes dos módulos são os do GPT-2 (wte, wpe, h, ln_1, attn.c_attn, attn.c_proj, ln_2,
mlp.c_fc, mlp.c_proj, ln_f): os pesos do modelo entram no nosso bloco chave por chave.
"""
import argparse
import json
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

from livro.formato import casas_min, cientifico, inteiro, num  # os números com vírgula, como no livro

PROMPT = "Data visualization empowers users to"
TEXTO = ("The small town sits at the edge of a wide river. Every morning the baker opens his "
         "shop before sunrise, and the smell of fresh bread fills the street.")


# ============================================================== as peças, com os nomes do GPT-2

class Linear(nn.Module):
    """y = x @ W + b, com W guardada como (entrada, saída): o layout do Conv1D do GPT-2."""

    def __init__(self, entrada, saida, desvio=0.02):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(entrada, saida) * desvio)   # (entrada, saída)
        self.bias = nn.Parameter(torch.zeros(saida))                      # (saída,)

    def forward(self, x):
        return x @ self.weight + self.bias


class AtencaoMultiCabeca(nn.Module):
    """Atenção causal com h cabeças: c_attn gera Q, K e V juntos; c_proj junta as cabeças."""

    def __init__(self, d, h, desvio_saida=0.02):
        super().__init__()
        self.h = h
        self.c_attn = Linear(d, 3 * d)
        self.c_proj = Linear(d, d, desvio_saida)

    def forward(self, x):
        B, n, d = x.shape
        dh = d // self.h
        q, k, v = self.c_attn(x).split(d, dim=-1)                          # 3 × (B, n, d)
        q, k, v = (m.view(B, n, self.h, dh).transpose(1, 2) for m in (q, k, v))  # (B, h, n, dh)
        s = q @ k.transpose(-1, -2) / math.sqrt(dh)                        # (B, h, n, n)
        mascara = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)  # (n, n)
        A = torch.softmax(s.masked_fill(mascara, float("-inf")), dim=-1)  # (B, h, n, n)
        z = (A @ v).transpose(1, 2).reshape(B, n, d)                       # (B, n, d)
        return self.c_proj(z)                                              # (B, n, d)


class MLP(nn.Module):
    """Expande 4×, GELU (a aproximação por tanh, como no GPT-2), contrai."""

    def __init__(self, d, desvio_saida=0.02):
        super().__init__()
        self.c_fc = Linear(d, 4 * d)
        self.c_proj = Linear(4 * d, d, desvio_saida)

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))      # (B, n, d)


class Bloco(nn.Module):
    """Um bloco do GPT-2. pre_ln=True: x + f(LN(x)); pre_ln=False (pós-LN, 2017): LN(x + f(x))."""

    def __init__(self, d=768, h=12, pre_ln=True, eps=1e-5, desvio_saida=0.02):
        super().__init__()
        self.pre_ln = pre_ln
        self.ln_1 = nn.LayerNorm(d, eps=eps)
        self.attn = AtencaoMultiCabeca(d, h, desvio_saida)
        self.ln_2 = nn.LayerNorm(d, eps=eps)
        self.mlp = MLP(d, desvio_saida)

    def forward(self, x):
        if self.pre_ln:
            x = x + self.attn(self.ln_1(x))    # comunicação: os tokens conversam
            x = x + self.mlp(self.ln_2(x))     # computação: cada token pensa sozinho
            return x
        x = self.ln_1(x + self.attn(x))        # pós-LN: a norma fica no caminho residual
        x = self.ln_2(x + self.mlp(x))
        return x


class Pilha(nn.Module):
    """Um modelo de linguagem pequeno: wte + wpe, L blocos, (ln_f no pré-LN) e a camada de saída."""

    def __init__(self, V, d, h, L, n_max, pre_ln):
        super().__init__()
        self.wte = nn.Embedding(V, d)
        self.wpe = nn.Embedding(n_max, d)
        nn.init.normal_(self.wte.weight, std=0.02)
        nn.init.normal_(self.wpe.weight, std=0.02)
        # como no GPT-2: as projeções que somam no fluxo residual começam com desvio 0,02/√(2L)
        desvio = 0.02 / math.sqrt(2 * L)
        self.h = nn.ModuleList(Bloco(d, h, pre_ln, desvio_saida=desvio) for _ in range(L))
        self.ln_f = nn.LayerNorm(d) if pre_ln else nn.Identity()  # o pós-LN já sai normalizado
        self.lm_head = nn.Linear(d, V, bias=False)
        nn.init.normal_(self.lm_head.weight, std=0.02)

    def forward(self, ids):
        n = ids.shape[1]
        x = self.wte(ids) + self.wpe(torch.arange(n))                     # (B, n, d)
        for bloco in self.h:
            x = bloco(x)                                                   # (B, n, d)
        return self.lm_head(self.ln_f(x))                                  # (B, n, V)


def _tensor(saida):
    """Um bloco da biblioteca devolve um tensor (transformers 5) ou uma tupla (4)."""
    return saida[0] if isinstance(saida, tuple) else saida


def carrega_gpt2():
    from transformers import AutoTokenizer, GPT2LMHeadModel

    modelo = GPT2LMHeadModel.from_pretrained("gpt2", attn_implementation="eager")
    modelo.eval()
    tok = AutoTokenizer.from_pretrained("gpt2")
    return modelo, tok


def titulo(k, texto):
    print()
    print("=" * 78)
    print(f"Experimento {k}: {texto}")
    print("=" * 78)


# ============================================================== 1. um bloco do zero

@torch.no_grad()
def experimento_1(modelo=None, tok=None, n=5):
    """Monta um bloco, confere a forma e, com o GPT-2, compara com o bloco 0 da biblioteca."""
    titulo(1, "um bloco do zero — a forma que entra é a que sai")
    d, h = (modelo.config.n_embd, modelo.config.n_head) if modelo is not None else (768, 12)
    torch.manual_seed(0)
    bloco = Bloco(d, h).eval()
    x = torch.randn(1, n, d)                                               # (1, n, d)
    y = bloco(x)                                                           # (1, n, d)
    print(f"entra {tuple(x.shape)}  ->  sai {tuple(y.shape)}")
    r = {"entra": list(x.shape), "sai": list(y.shape)}
    assert y.shape == x.shape
    if modelo is not None:
        gpt2_bloco = modelo.transformer.h[0]
        pesos = {k: v for k, v in gpt2_bloco.state_dict().items() if k in bloco.state_dict()}
        faltam = set(bloco.state_dict()) - set(pesos)
        assert not faltam, f"chaves sem par no GPT-2: {faltam}"
        bloco.load_state_dict(pesos)
        bloco.ln_1.eps = bloco.ln_2.eps = modelo.config.layer_norm_epsilon
        # a referência: a saída do bloco 0 dentro do modelo (com a máscara causal que ele monta)
        ids = torch.tensor([tok.encode(PROMPT)])                            # (1, n)
        capturado = []
        gancho = gpt2_bloco.register_forward_hook(lambda m, e, s: capturado.append(_tensor(s)))
        try:
            x0 = modelo(ids, output_hidden_states=True).hidden_states[0]    # (1, n, d)
        finally:
            gancho.remove()
        dif = float((bloco(x0) - capturado[0]).abs().max())
        print(f"com os pesos do bloco 0 do GPT-2 (as {len(pesos)} chaves casam uma a uma),")
        print(f'no prompt "{PROMPT}" ({ids.shape[1]} tokens):')
        print(f"  diferença máxima entre o nosso bloco e o da biblioteca: {cientifico(dif, 1)}")
        r["dif_gpt2"] = dif
    print("forma de entrada = forma de saída: dá para empilhar quantos blocos quiser.")
    return r


# ============================================================== 2. pré-LN contra pós-LN

def _lote(gerador, B, n, V):
    """Sequências que sobem de 1 em 1 (mod V): o próximo token é o atual + 1."""
    inicio = torch.randint(0, V, (B, 1), generator=gerador)               # (B, 1)
    seq = (inicio + torch.arange(n + 1)) % V                               # (B, n+1)
    return seq[:, :-1], seq[:, 1:]


def _norma_grad(bloco):
    return float(torch.cat([p.grad.flatten() for p in bloco.parameters()]).norm())


def treina(pre_ln, L=40, d=32, h=4, V=16, n=8, B=32, lr=1.5e-2, passos=50, semente=0):
    """Adam sem warmup (a taxa é cheia desde o 1º passo). Devolve perda e gradiente por passo."""
    torch.manual_seed(semente)
    rede = Pilha(V, d, h, L, n, pre_ln)
    opt = torch.optim.Adam(rede.parameters(), lr=lr)
    dados = torch.Generator().manual_seed(1000 + semente)
    perdas, grads = [], []
    for _ in range(passos):
        x, y = _lote(dados, B, n, V)
        perda = F.cross_entropy(rede(x).reshape(-1, V), y.reshape(-1))
        opt.zero_grad()
        perda.backward()
        perdas.append(perda.item())
        grads.append(_norma_grad(rede.h[0]))   # o que chega ao 1º bloco
        opt.step()
    return perdas, grads


def experimento_2(L=40, passos=50, lr=1.5e-2, semente=0, **kw):
    titulo(2, f"pré-LN contra pós-LN, {L} blocos, Adam sem warmup")
    # gradientes minúsculos (denormais) deixariam a CPU lentíssima: tratamos como zero
    torch.set_flush_denormal(True)
    # matrizes pequenas: mais de uma thread só atrapalha (e muito, se a CPU estiver ocupada)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    t0 = time.time()
    try:
        V = kw.get("V", 16)
        pre = treina(True, L=L, lr=lr, passos=passos, semente=semente, **kw)
        post = treina(False, L=L, lr=lr, passos=passos, semente=semente, **kw)
    finally:
        torch.set_flush_denormal(False)
        torch.set_num_threads(threads)
    print(f"tarefa: prever o próximo de uma sequência que sobe de 1 em 1, V = {V} "
          f"(chute uniforme: ln V = {num(math.log(V), 2)})")
    print(f"taxa de aprendizado {casas_min(lr, 6)} desde o 1º passo, {passos} passos\n")
    print(f"{'passo':>5}  {'perda pré':>9}  {'perda pós':>10}  {'|grad| 1º bloco pré':>19}  {'pós':>9}")
    marcos = sorted({0, 1, 2, 5} | set(range(10, passos, 10)) | {passos - 1})
    for i in marcos:
        print(f"{i:>5}  {num(pre[0][i], 3):>9}  {num(post[0][i], 3):>10}  "
              f"{cientifico(pre[1][i], 1):>19}  {cientifico(post[1][i], 1):>9}")
    ultimos = max(1, passos // 10)
    r = {
        "ln_V": math.log(V),
        "perda_pre": sum(pre[0][-ultimos:]) / ultimos,
        "perda_post": sum(post[0][-ultimos:]) / ultimos,
        "grad_pre_inicio": pre[1][0], "grad_post_inicio": post[1][0],
        "grad_pre_fim": pre[1][-1], "grad_post_fim": post[1][-1],
        "segundos": time.time() - t0,
    }
    razao = r["grad_pre_inicio"] / r["grad_post_inicio"]
    print(f"\nna inicialização: gradiente no 1º bloco: pré {num(r['grad_pre_inicio'], 2)}, "
          f"pós {num(r['grad_post_inicio'], 2)} (razão {num(razao, 1)}: a mesma ordem de grandeza)")
    print(f"depois de {passos} passos: perda pré {num(r['perda_pre'], 2)}, "
          f"pós {num(r['perda_post'], 2)} (ln V = {num(r['ln_V'], 2)})")
    print(f"gradiente no 1º bloco no fim: pré {cientifico(r['grad_pre_fim'], 1)}, "
          f"pós {cientifico(r['grad_post_fim'], 1)}")
    if r["perda_post"] > 0.9 * r["ln_V"] and r["perda_pre"] < r["perda_post"] - 0.5:
        print("-> o pós-LN parou no chute uniforme e o gradiente dele sumiu; o pré-LN aprende.")
    else:
        print("-> nesta configuração a diferença não apareceu (mude lr, L ou a semente).")
    print(f"({num(r['segundos'], 1)} s)")
    return r


# ============================================================== 3. a norma do fluxo residual

@torch.no_grad()
def experimento_3(modelo, tok, texto=TEXTO):
    titulo(3, "a norma do fluxo residual, bloco a bloco")
    t = modelo.transformer
    ids = torch.tensor([tok.encode(texto)])                                # (1, n)
    saidas = []
    ganchos = [b.register_forward_hook(lambda m, e, s: saidas.append(_tensor(s)))
               for b in t.h]
    try:
        hs = modelo(ids, output_hidden_states=True).hidden_states         # L+1 × (1, n, d)
    finally:
        for g in ganchos:
            g.remove()
    # hidden_states[-1] já passou pela ln_f; para a norma do fluxo usamos o gancho no último bloco
    fluxos = [hs[0]] + saidas                                              # L+1 × (1, n, d)
    normas = [float(x[0, 1:].norm(dim=-1).mean()) for x in fluxos]
    pos0 = [float(x[0, 0].norm()) for x in fluxos]
    print(f"{ids.shape[1]} tokens; norma média ‖x‖ por token (sem a posição 0)\n")
    maior = max(normas)
    for i, (v, p0) in enumerate(zip(normas, pos0)):
        nome = "embedding" if i == 0 else f"bloco {i}"
        barra = "#" * max(1, round(40 * v / maior))
        print(f"{nome:>10}  {num(v, 1):>8}  {barra}")
    print(f"\na posição 0 é um caso à parte: {num(pos0[0], 1)} no embedding, "
          f"{num(max(pos0), 1)} no máximo (o 'sumidouro' de atenção)")
    subidas = sum(b > a for a, b in zip(normas, normas[1:]))
    print(f"a norma subiu em {subidas} das {len(normas) - 1} passagens de bloco "
          f"({num(normas[0], 1)} -> {num(normas[-1], 1)}): cada bloco soma a sua parte ao fluxo")
    return {"normas": normas, "norma_pos0": pos0, "subidas": subidas}


# ============================================================== 4. o logit lens

@torch.no_grad()
def experimento_4(modelo, tok, texto=PROMPT):
    titulo(4, "logit lens — a previsão que o fluxo já carrega depois de cada bloco")
    t = modelo.transformer
    ids = torch.tensor([tok.encode(texto)])                                # (1, n)
    saida = modelo(ids, output_hidden_states=True)
    hs = saida.hidden_states                                               # L+1 × (1, n, d)
    L = len(t.h)
    final = saida.logits[0, -1]                                            # (V,)
    alvo = int(final.argmax())
    print(f'"{texto}" -> o modelo inteiro escolhe {tok.decode([alvo])!r}\n')
    print(f"{'lido depois de':>15}  {'topo':>20}  {'posição do alvo':>15}  {'p(alvo)':>8}")
    linhas = []
    for prof, x in enumerate(hs):
        r = x[0, -1]                                                       # (d,)
        if prof < L:           # o último hidden_state da biblioteca já passou pela ln_f
            r = t.ln_f(r)
        logits = modelo.lm_head(r)                                         # (V,)
        p = torch.softmax(logits, dim=-1)
        posicao = int((logits > logits[alvo]).sum()) + 1
        topo = tok.decode([int(logits.argmax())])
        nome = "embedding" if prof == 0 else f"bloco {prof}"
        print(f"{nome:>15}  {topo!r:>20}  {inteiro(posicao):>15}  {num(float(p[alvo]), 3):>8}")
        linhas.append({"posicao": posicao, "p": float(p[alvo]), "logits": logits})
    dif = float((linhas[-1]["logits"] - final).abs().max())
    print(f"\nna última profundidade o lens é a própria saída (diferença {cientifico(dif, 1)}).")
    posicoes = [l["posicao"] for l in linhas]
    desde = next(i for i in range(len(posicoes)) if all(q == 1 for q in posicoes[i:]))
    onde = "já no embedding" if desde == 0 else f"depois do bloco {desde}"
    print(f"o alvo chega ao topo {onde} e não sai mais: a resposta se acumula no fluxo.")
    return {"alvo": alvo, "posicoes": posicoes, "topo_desde": desde,
            "p": [l["p"] for l in linhas], "dif_final": dif}


# ============================================================== 5. os parâmetros de um bloco

def experimento_5(modelo):
    titulo(5, "os parâmetros de um bloco, peça por peça")
    t = modelo.transformer
    bloco = t.h[0]
    pecas = ["ln_1", "attn.c_attn", "attn.c_proj", "ln_2", "mlp.c_fc", "mlp.c_proj"]
    conta = {p: sum(q.numel() for q in bloco.get_submodule(p).parameters()) for p in pecas}
    for p in pecas:
        formas = " + ".join("×".join(map(str, q.shape)) for q in bloco.get_submodule(p).parameters())
        print(f"  {p:12s} {inteiro(conta[p]):>12}   ({formas})")
    atencao = conta["attn.c_attn"] + conta["attn.c_proj"]
    mlp = conta["mlp.c_fc"] + conta["mlp.c_proj"]
    normas = conta["ln_1"] + conta["ln_2"]
    total_bloco = atencao + mlp + normas
    total = sum(p.numel() for p in modelo.parameters())   # a wte e a saída são o mesmo tensor
    fmt = inteiro
    print(f"\n  atenção {fmt(atencao)} · MLP {fmt(mlp)} · normas {fmt(normas)} "
          f"= bloco {fmt(total_bloco)}")
    print(f"  o MLP leva {num(100 * mlp / total_bloco, 1)}% do bloco")
    print(f"  o modelo inteiro: {fmt(total)} (wte {fmt(t.wte.weight.numel())}, "
          f"{len(t.h)} blocos {fmt(len(t.h) * total_bloco)})")
    return {"pecas": conta, "atencao": atencao, "mlp": mlp, "normas": normas,
            "bloco": total_bloco, "fracao_mlp": mlp / total_bloco, "total": total}


# ============================================================== 6. GELU contra ReLU

def gelu_tanh(x):
    return 0.5 * x * (1 + math.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def experimento_6(x_min=-3.0, x_max=2.0, y_min=-0.4, y_max=2.0, passo_y=0.1, colunas=51):
    titulo(6, "GELU (o) contra ReLU (+), em ASCII")
    linhas = round((y_max - y_min) / passo_y) + 1          # uma linha a cada passo_y
    xs = [x_min + (x_max - x_min) * j / (colunas - 1) for j in range(colunas)]
    relu = [max(0.0, x) for x in xs]
    gelu = [gelu_tanh(x) for x in xs]
    tela = [[" "] * colunas for _ in range(linhas)]

    def linha_de(y):
        return round((y_max - y) / passo_y)

    for j, x in enumerate(xs):                             # os eixos
        tela[linha_de(0.0)][j] = "-"
        if abs(x) < 1e-9:
            for i in range(linhas):
                tela[i][j] = "|"
    for j in range(colunas):                               # as curvas
        tela[linha_de(relu[j])][j] = "+"
        i = linha_de(gelu[j])
        tela[i][j] = "*" if tela[i][j] == "+" else "o"
    for i, l in enumerate(tela):
        print(f"{num(y_max - i * passo_y, 1):>6} {''.join(l)}")
    print(f"       x de {num(x_min, 1)} a {num(x_max, 1)}, um caractere a cada "
          f"{num((x_max - x_min) / (colunas - 1), 1)}"
          "   (* = as duas caem no mesmo ponto)")
    j_min = min(range(colunas), key=lambda j: gelu[j])
    print("\n     x    ReLU    GELU")
    for x in (-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0):
        print(f"{num(x, 1):>6}  {num(max(0.0, x), 3):>6}  {num(gelu_tanh(x), 3):>6}")
    print(f"\na GELU fica negativa para x < 0 (mínimo {num(gelu[j_min], 3)} "
          f"perto de x = {num(xs[j_min], 1)})"
          " e é suave em 0;\na ReLU é zero para todo x < 0 e tem um bico em 0.")
    return {"gelu_min": gelu[j_min], "x_min": xs[j_min], "tela": ["".join(l) for l in tela]}


# ============================================================== main

def main(argv=None):
    ap = argparse.ArgumentParser(description="Os seis experimentos da apostila 05.")
    ap.add_argument("--so", type=int, nargs="+", choices=range(1, 7), metavar="N",
                    help="rodar só estes experimentos (1 a 6)")
    ap.add_argument("--json", help="gravar os resultados neste arquivo (para testes)")
    args = ap.parse_args(argv)
    quais = args.so or [1, 2, 3, 4, 5, 6]
    modelo = tok = None
    if set(quais) & {1, 3, 4, 5}:
        print('carregando o GPT-2: from_pretrained("gpt2") ...')
        try:
            modelo, tok = carrega_gpt2()
        except OSError as e:
            raise SystemExit(f"não deu para carregar o GPT-2 ({type(e).__name__}). Na primeira vez é\n"
                             "preciso internet para baixar os pesos; depois eles ficam no cache.\n"
                             "Os experimentos 2 e 6 rodam sem o modelo: python lab/05_block.py --so 2 6")
        c = modelo.config
        print(f"  {c.n_layer} blocos, d = {c.n_embd}, {c.n_head} cabeças, V = {inteiro(c.vocab_size)}")
    resultados = {}
    for k in quais:
        if k == 1:
            resultados[1] = experimento_1(modelo, tok)
        elif k == 2:
            resultados[2] = experimento_2()
        elif k == 3:
            resultados[3] = experimento_3(modelo, tok)
        elif k == 4:
            resultados[4] = experimento_4(modelo, tok)
        elif k == 5:
            resultados[5] = experimento_5(modelo)
        elif k == 6:
            resultados[6] = experimento_6()
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(resultados, f, ensure_ascii=False, indent=1)
    return resultados


if __name__ == "__main__":
    main()
