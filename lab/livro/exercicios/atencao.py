"""Exercícios dos passos 4 e 5: escores, máscara e pesos; o bloco (resíduo, GELU, parâmetros)."""
import math

from livro import brinquedo as b
from livro import arquitetura as arq
from livro.formato import inteiro, num, vetor
from livro.exercicios.base import Degenerado, Erro, Versao, exercicio, esc, frase, sub, tk
from livro.exercicios.passos import par


def _cena(s, futuro=False):
    """(texto, ids, linha i, coluna j <= i, cabeça c) do livro ou sorteados. futuro: i < n (há o que mascarar)."""
    if s is None:
        return b.PROMPT, b.IDS_PROMPT, 4, 2, 1
    texto = frase(s)
    ids = b.codificar(texto)
    i = s.inteiro(2, len(ids) - (1 if futuro else 0))
    return texto, ids, i, s.inteiro(1, i), s.inteiro(1, b.n_cabecas)


def _atencao(ids, causal=True):
    return b.atencao(b.LN(b.embed(ids)), causal)


@exercicio("mascaras-1", "mascaras", "Um escore")
def mascaras_1(s):
    texto, ids, i, j, c = _cena(s)
    at = _atencao(ids)
    q, k = b.cabeca(at["Q"], c - 1)[i - 1], b.cabeca(at["K"], c - 1)[j - 1]
    qk = sum(x * y for x, y in zip(q, k))
    resp = at["S"][c - 1][i - 1][j - 1]
    if s is not None and abs(qk) < 0.05:
        raise Degenerado
    erros = [Erro("sem √d_h", qk, f"Faltou dividir por √d_h = √{b.d_h}: S = q · k / √d_h."),
             Erro("dividiu por d_h", qk / b.d_h, f"Divide-se pela raiz de d_h, √{b.d_h}, não por d_h.")]
    dicas = [f"O escore é o produto escalar de q{sub(i)} com k{sub(j)} (número a número, somado), dividido por √d_h, "
             f"com d_h = {b.d_h}, o tamanho de q numa cabeça.",
             "q · k = " + " + ".join(f"{num(x) if r == 0 else par(x)} × {par(y)}" for r, (x, y) in enumerate(zip(q, k))) + f" = {num(qk)}; "
             f"agora divida por √{b.d_h}."]
    return Versao(f"Em «{esc(texto)}», na cabeça {c}, q{sub(i)} = {vetor(q)} ({tk(ids[i - 1])}) e "
                  f"k{sub(j)} = {vetor(k)} ({tk(ids[j - 1])}). Qual é o escore S{sub(i)},{sub(j)}?", resp,
                  f"q · k = {num(qk)}; dividido por √{b.d_h} = {num(math.sqrt(b.d_h))}: {num(resp)}.",
                  erros=erros, casas=2, rotulo=f"S{sub(i)},{sub(j)}", dicas=dicas)


@exercicio("mascaras-2", "mascaras", "Um peso de atenção")
def mascaras_2(s):
    texto, ids, i, j, c = _cena(s, futuro=True)
    at = _atencao(ids)
    linha = at["S"][c - 1][i - 1]
    resp = at["A"][c - 1][i - 1][j - 1]
    sem = _atencao(ids, causal=False)["S"][c - 1][i - 1]
    depois = b.softmax(sem)[j - 1]  # softmax sobre a linha inteira, e só depois os futuros zerados
    bruto = b.softmax([x * math.sqrt(b.d_h) for x in linha[:i]])[j - 1]
    if s is not None and max(abs(x - y) for x, y in zip(b.softmax(linha[:i]), [1 / i] * i)) < 0.02:
        raise Degenerado  # pesos quase iguais: os erros não se distinguem
    if s is not None and not 0.03 < resp < 0.97:
        raise Degenerado  # um peso quase 0 ou quase 1: pouco a calcular
    vis = "; ".join(num(x) for x in linha[:i])
    erros = [Erro("máscara depois do softmax", depois,
                  "Você aplicou a máscara depois do softmax: os escores futuros viram −∞ antes, e os pesos "
                  "visíveis somam 1 sozinhos."),
             Erro("sem √d_h", bruto, "Os escores já vêm divididos por √d_h; você multiplicou de novo (ou usou q · k cru).")]
    exps = [math.exp(x) for x in linha[:i]]
    dicas = [f"Na linha {i}, a máscara põe −∞ nas colunas depois de {i} (e e^−∞ = 0): faça o softmax só dos {i} "
             f"escores visíveis, e^S de cada um dividido pela soma deles. Ignore a linha sem a máscara.",
             f"e^S dos escores visíveis: [{'; '.join(num(x) for x in exps)}], que somam {num(sum(exps))}; "
             f"agora divida o da coluna {j} pela soma."]
    return Versao(f"Em «{esc(texto)}» ({len(ids)} tokens), a linha {i} da cabeça {c} tem escores visíveis "
                  f"S = [{vis}] (colunas 1 a {i}) e, sem a máscara, [{'; '.join(num(x) for x in sem)}]. "
                  f"Qual é o peso A{sub(i)},{sub(j)}?", resp,
                  f"A máscara põe −∞ nas colunas depois de {i}; o softmax dos {i} escores visíveis dá "
                  f"[{'; '.join(num(x) for x in b.softmax(linha[:i]))}]: A{sub(i)},{sub(j)} = {num(resp)}.",
                  tipo="prob", erros=erros, rotulo=f"A{sub(i)},{sub(j)}", dicas=dicas)


@exercicio("mascaras-3", "mascaras", "Sem a máscara", transferencia=True)
def mascaras_3(s):
    texto, ids, i, _, c = _cena(s, futuro=True)
    if s is None:
        i = 2
    sem = b.softmax(_atencao(ids, causal=False)["S"][c - 1][i - 1])
    resp = sum(sem[i:])
    if s is not None and resp < 0.02:
        raise Degenerado
    erros = [Erro("zero", 0.0, "Sem a máscara, nada impede a linha de olhar para a frente."),
             Erro("tudo", 1.0, "O próprio token e os anteriores continuam com peso.")]
    escores = _atencao(ids, causal=False)["S"][c - 1][i - 1]
    exps = [math.exp(x) for x in escores]
    dicas = [f"Sem a máscara, o softmax da linha {i} corre sobre todas as {len(ids)} colunas da cabeça {c}, também as "
             f"que vêm depois de {i}. Calcule esses pesos e some os "
             + (f"da coluna {i + 1}." if i + 1 == len(ids) else f"das colunas {i + 1} a {len(ids)}."),
             f"Os escores da linha {i} sem a máscara são [{'; '.join(num(x) for x in escores)}]; os e^S somam "
             f"{num(sum(exps))}, e as colunas depois de {i} têm e^S = [{'; '.join(num(x) for x in exps[i:])}]. "
             "Agora divida pela soma."]
    return Versao(f"Em «{esc(texto)}», tire a máscara causal da cabeça {c}. Que peso total a linha {i} "
                  f"({tk(ids[i - 1])}) dá aos tokens que vêm depois dela?", resp,
                  f"Os pesos da linha sem máscara: [{'; '.join(num(x) for x in sem)}]; as colunas depois de {i} "
                  f"somam {num(resp)}. É o vazamento do futuro que a máscara impede no treino.",
                  tipo="prob", erros=erros, rotulo="Peso total", dicas=dicas)


# ---------------------------------------------------------------------------
# Passo 5: o bloco
# ---------------------------------------------------------------------------
@exercicio("bloco-1", "bloco", "A conexão residual")
def bloco_1(s):
    texto = b.PROMPT if s is None else frase(s)
    ids = b.codificar(texto)
    i = len(ids) if s is None else s.inteiro(1, len(ids))
    r = b.bloco(b.embed(ids))
    x, a, h = r["x"][i - 1], r["a"][i - 1], r["h"][i - 1]
    erros = [Erro("sem o resíduo", list(a), "Faltou somar a entrada: h = x + a (a conexão residual)."),
             Erro("sem a atenção", list(x), "Faltou a correção da atenção: h = x + a.")]
    dicas = [f"A conexão residual soma à entrada a correção que a atenção calculou: h{sub(i)} = x{sub(i)} + a{sub(i)}, "
             "número a número.",
             f"O 1º número: {num(x[0], 2)} + {par(a[0], 2)} = {num(x[0] + a[0], 2)}; faça o mesmo com os outros "
             f"{b.d - 1}."]
    return Versao(f"Em «{esc(texto)}», x{sub(i)} = {vetor(x, 2)} e a saída da atenção é a{sub(i)} = {vetor(a, 2)}. "
                  f"Quanto vale h{sub(i)}?", h, f"h{sub(i)} = x{sub(i)} + a{sub(i)} = {vetor(h, 2)}.",
                  tipo="vetor", casas=2, erros=erros, rotulo=f"h{sub(i)}", dicas=dicas)


def _gelu_exata(z):
    return 0.5 * z * (1 + math.erf(z / math.sqrt(2)))


@exercicio("bloco-2", "bloco", "A GELU de um número")
def bloco_2(s):
    z = -0.5 if s is None else s.escolhe([-2.5, -2, -1.5, -1, -0.5, -0.25, 0.25, 0.5, 1.5])
    resp = b.gelu(z)
    erros = [Erro("ReLU", max(0.0, z), "Essa é a ReLU: a GELU deixa passar um pouco dos negativos, z · Φ(z)."),
             Erro("sem o ½", 2 * resp, "Faltou o ½ da fórmula: ½ z (1 + tanh(…)).")]
    dentro = z + b.K_GELU * z ** 3
    dicas = [f"Vá de dentro para fora: primeiro z + {num(b.K_GELU, 6)} z³; depois vezes √(2/π) = {num(b.C_GELU)}; "
             "depois a tanh; por fim ½ z (1 + tanh).",
             f"Com z = {num(z, 2)}: z³ = {num(z ** 3, 4)}, e z + {num(b.K_GELU, 6)} z³ = {num(dentro, 4)}. Agora "
             f"multiplique por √(2/π) = {num(b.C_GELU)} e tire a tanh."]
    return Versao(f"Calcule GELU(z) em z = {num(z, 2)}, com a aproximação por tanh da GELU, a do GPT-2: "
                  f"½ z (1 + tanh(√(2/π) (z + {num(b.K_GELU, 6)} z³))).", resp,
                  f"√(2/π) (z + {num(b.K_GELU, 6)} z³) = {num(b.C_GELU * (z + b.K_GELU * z ** 3))}; "
                  f"tanh = {num(math.tanh(b.C_GELU * (z + b.K_GELU * z ** 3)))}; GELU = {num(resp)} "
                  f"(a GELU exata dá {num(_gelu_exata(z))}).", erros=erros, rotulo="GELU(z)", dicas=dicas)


@exercicio("bloco-3", "bloco", "Os parâmetros de um bloco", transferencia=True)
def bloco_3(s):
    d, h = (1024, 16) if s is None else s.escolhe([(256, 4), (384, 6), (512, 8), (768, 12), (1024, 16), (1280, 20), (1600, 25), (2048, 32)])
    p = arq.params_bloco(d, h)
    erros = [Erro("sem vieses", arq.params_bloco(d, h, vieses=False)["total"],
                  "Cada camada linear do GPT-2 tem também um viés (um número por saída)."),
             Erro("sem as normas", p["total"] - p["normas"], "As duas LayerNorms têm γ e β: 2 × 2 × d."),
             Erro("d_ff = d", arq.params_bloco(d, h, d_ff=d)["total"], "No GPT-2 a camada oculta do MLP é 4 × d.")]
    dicas = ["Conte por partes: a atenção tem quatro matrizes d × d (W_Q, W_K, W_V, W_O), cada uma com d vieses; o MLP, "
             "uma d × 4d e uma 4d × d, com os vieses; as duas LayerNorms, γ e β de d números cada. As cabeças não entram.",
             f"A atenção: 4 × ({inteiro(d)} × {inteiro(d)} + {inteiro(d)}) = {inteiro(p['atencao'])}; agora conte o MLP e "
             "as normas do mesmo jeito, e some tudo."]
    return Versao(f"Um bloco no estilo do GPT-2 com d = {inteiro(d)}, {h} cabeças e d_ff = 4d (vieses em toda "
                  "camada linear, duas LayerNorms): quantos parâmetros ele tem?", p["total"],
                  f"Atenção {inteiro(p['atencao'])} (W_Q, W_K, W_V e W_O, d × d cada, com vieses) + MLP "
                  f"{inteiro(p['mlp'])} + normas {inteiro(p['normas'])} = {inteiro(p['total'])}. "
                  "As cabeças não mudam a conta.", tipo="inteiro", casas=0, erros=erros, rotulo="Parâmetros",
                  dicas=dicas)


@exercicio("bloco-4", "bloco", "Um caso do simulador: x multiplicado", transferencia=True)
def bloco_4(s):
    texto, ids, i, _, _ = _cena(s)
    i = 3 if s is None else i
    f = 100 if s is None else s.escolhe([2, 5, 10, 100])
    j = 2 if s is None else s.inteiro(1, b.d)
    x = b.embed(ids)[i - 1]
    if max(x) - min(x) < 0.5:
        raise Degenerado
    fx = [f * v for v in x]
    resp = b.ln_linha(fx)[j - 1]
    erros = [Erro("escalou a saída", f * b.ln_linha(x)[j - 1],
                  "A LayerNorm divide pelo desvio da própria linha: multiplicar x multiplica o desvio também, e o fator se cancela."),
             Erro("sem a média", fx[j - 1] / b.desvio(fx), "Faltou subtrair a média μ (que também fica multiplicada).")]
    dicas = [f"A LayerNorm tira a média da linha e divide pelo desvio da própria linha. Veja o que acontece com μ e com o "
             f"desvio quando todo número de x{sub(i)} é multiplicado por {f}: o que sobra de LN({f} x{sub(i)})?",
             f"{f} x{sub(i)} = {vetor(fx, 1)}: μ = {num(b.media(fx), 2)} e o desvio = {num(b.desvio(fx), 2)}, {f} vezes "
             f"os de x{sub(i)} ({num(b.media(x), 4)} e {num(b.desvio(x), 4)}). Então basta calcular o {j}º número de LN(x{sub(i)})."]
    return Versao(f"No simulador do bloco, multiplique x{sub(i)} = {vetor(x, 1)} por {f}. Quanto vale o "
                  f"{j}º número de LN({f} x{sub(i)})?", resp,
                  f"A média e o desvio crescem {f} vezes, e LN({f} x) = LN(x) = {num(b.ln_linha(x)[j - 1])} (o ε "
                  f"muda só casas bem mais à direita): {num(resp)}. Por isso o bloco lê o mesmo u, e é a correção "
                  "somada, não x, que fica pequena perto da linha grande.", erros=erros, rotulo="LN, um número",
                  dicas=dicas)
