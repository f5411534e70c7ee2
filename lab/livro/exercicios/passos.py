"""Exercícios dos passos 1 a 3: tokens, embeddings e a LN com Q, K, V."""
import math

from livro import brinquedo as b
from livro import arquitetura as arq
from livro.formato import cientifico, inteiro, num, vetor
from livro.exercicios.base import Degenerado, Erro, Versao, exercicio, esc, frase, sub, tk, ordinal


def par(x, casas=3):
    """Um número numa conta das dicas, entre parênteses se for negativo: 1,0 − (-0,125)."""
    return f"({num(x, casas)})" if num(x, casas).startswith("-") else num(x, casas)


# ---------------------------------------------------------------------------
# Passo 1: tokens
# ---------------------------------------------------------------------------
@exercicio("tokens-1", "tokens", "Quantos tokens?")
def tokens_1(s):
    texto = "o gato subiu no sofá e no chão." if s is None else frase(s)
    toks = b.tokenizar(texto)
    n = len(toks)
    erros = [Erro("palavras", len(texto.split()),
                  "Você contou as palavras separadas por espaço. O tokenizador corta em pedaços do "
                  "vocabulário: uma palavra pode virar dois tokens, e o ponto é um token à parte."),
             Erro("subiu inteiro", n - texto.count("subiu"),
                  "Você contou «subiu» como um token só. O vocabulário do brinquedo não tem «␣subiu»: "
                  "ela vira ␣sub + iu.")]
    palavras = texto.rstrip(".").split()
    dicas = ["Corte a frase em pedaços do vocabulário do brinquedo, da esquerda para a direita: cada palavra "
             "com o espaço da frente é um pedaço (␣gato), se ele estiver no vocabulário; o ponto é um token à parte.",
             f"Comece pelas palavras: «{esc(texto.rstrip('.'))}» tem {len(palavras)}. O vocabulário não tem "
             "«␣subiu» inteira: cada «subiu» vira ␣sub + iu, um token a mais"
             + ("; e o ponto final é mais um." if texto.endswith(".") else ".")]
    return Versao(f"Quantos tokens o brinquedo tira de «{esc(texto)}»?", n,
                  f"São {n}: {' · '.join(tk(i) for i in b.codificar(texto))}.", tipo="inteiro",
                  casas=0, erros=erros, rotulo="Número de tokens", dicas=dicas)


@exercicio("tokens-2", "tokens", "O id de um token")
def tokens_2(s):
    texto = "o gato subiu no sofá e no chão." if s is None else frase(s)
    ids = b.codificar(texto)
    k = 6 if s is None else s.inteiro(1, len(ids) - 1)
    alvo = ids[k - 1]
    erros = [Erro("contou do 0", ids[k], "Você pegou o token seguinte: as posições contam do 1 "
                  f"(o {ordinal(k)} token é {tk(alvo)}); só os ids contam do 0."),
             Erro("posição no lugar do id", k, "Você deu a posição do token, não o id dele na tabela do vocabulário.")]
    dicas = [f"Duas contagens diferentes: as posições contam do 1, da esquerda para a direita; o id é a linha do "
             f"token na tabela do vocabulário, que conta do 0. Primeiro ache o {ordinal(k)} token, depois o id dele.",
             f"Do 1º ao {ordinal(k)}, os tokens de «{esc(texto)}» são {' · '.join(tk(i) for i in ids[:k])}: o {ordinal(k)} é "
             f"{tk(alvo)}. Agora procure {tk(alvo)} na tabela do vocabulário."]
    return Versao(f"Qual é o id do {ordinal(k)} token de «{esc(texto)}»?", alvo,
                  f"Os ids são [{', '.join(str(i) for i in ids)}]; o {ordinal(k)} é {tk(alvo)}, id {alvo}.",
                  tipo="inteiro", casas=0, erros=erros, rotulo="Id", dicas=dicas)


@exercicio("tokens-3", "tokens", "Tokens novos no vocabulário", transferencia=True)
def tokens_3(s):
    m = 3 if s is None else s.inteiro(1, 9)
    resp = b.V + m - 1
    erros = [Erro("contou do 1", b.V + m, "Os ids contam do 0: o último id de hoje é "
                  f"{b.V - 1}, e o primeiro token novo recebe {b.V}."),
             Erro("só os novos", m - 1, "Os tokens novos entram depois dos que já existem: os ids "
                  "continuam a contagem do vocabulário.")]
    dicas = [f"Os ids contam do 0: com {b.V} tokens, o último id de hoje não é {b.V}. Os tokens novos entram no fim "
             "e continuam a contagem de onde ela parou, um id para cada.",
             f"Hoje os ids vão de 0 a {b.V - 1}. O 1º token novo fica com o id seguinte a {b.V - 1}; agora conte "
             f"até o {ordinal(m)} deles."]
    return Versao(f"O vocabulário do brinquedo tem {b.V} tokens. Acrescente {m} tokens novos ao fim da "
                  "tabela. Que id recebe o último deles?", resp,
                  f"Os ids de hoje vão de 0 a {b.V - 1}; os {m} novos recebem de {b.V} a {resp}.",
                  tipo="inteiro", casas=0, erros=erros, rotulo="Id", dicas=dicas)


# ---------------------------------------------------------------------------
# Passo 2: embeddings
# ---------------------------------------------------------------------------
@exercicio("embeddings-1", "embeddings", "Uma linha de X")
def embeddings_1(s):
    texto = "o gato subiu no telhado" if s is None else frase(s, maximo=b.n_ctx - 1)
    ids = b.codificar(texto)
    n, t = len(ids), ids[-1]
    x = b.embed(ids)[-1]
    erros = [Erro("contou a posição do 0", b.soma(b.E[t], b.P[n]),
                  f"Você usou a linha {n + 1} de P: as posições contam do 1, e o último token está na posição {n}."),
             Erro("esqueceu P", list(b.E[t]), "Falta somar a linha da posição: x = E[id] + P[posição].")]
    if t > 0:
        erros.append(Erro("linha errada de E", b.soma(b.E[t - 1], b.P[n - 1]),
                          f"Você usou a linha do id {t - 1}: a linha do id {t} é a {t + 1}ª de E (os ids contam do 0)."))
    e, p = b.E[t], b.P[n - 1]
    dicas = [f"x{sub(n)} = E[id] + P[posição]: a linha do id {t} na tabela E (a {t + 1}ª, porque os ids contam do 0) "
             f"mais a linha da posição {n} na tabela P (as posições contam do 1).",
             f"E[{t}] = {vetor(e, 1)} e P[{n}] = {vetor(p, 1)}. O 1º número de x{sub(n)} é {num(e[0], 1)} + "
             f"{par(p[0], 1)} = {num(e[0] + p[0], 1)}; faça o mesmo com os outros {b.d - 1}."]
    return Versao(f"Em «{esc(texto)}», o último token é {tk(t)} (id {t}), na posição {n}. "
                  f"Calcule a linha x{sub(n)} de X com as tabelas E e P.", x,
                  f"x{sub(n)} = E[{t}] + P[{n}] = {vetor(b.E[t], 1)} + {vetor(b.P[n - 1], 1)} = {vetor(x, 1)}.",
                  tipo="vetor", casas=1, erros=erros, rotulo=f"x{sub(n)}", dicas=dicas)


@exercicio("embeddings-2", "embeddings", "O mesmo token em duas posições", transferencia=True)
def embeddings_2(s):
    t, i, j = (2, 2, 7) if s is None else (s.inteiro(0, b.V - 1), *sorted(s.amostra(range(1, b.n_ctx + 1), 2)))
    dif = [p - q for p, q in zip(b.P[j - 1], b.P[i - 1])]
    if all(x == 0 for x in dif):
        raise Degenerado
    erros = [Erro("sinal trocado", [-x for x in dif], f"Você calculou x{sub(i)} − x{sub(j)}: a pergunta pede a outra ordem."),
             Erro("tudo zero", [0.0] * b.d, "O token é o mesmo, mas a posição não: E[id] se cancela, P não.")]
    dicas = [f"Escreva as duas linhas: x{sub(j)} = E[{t}] + P[{j}] e x{sub(i)} = E[{t}] + P[{i}]. Na diferença, a parte "
             "que é igual nas duas some.",
             f"E[{t}] se cancela, e sobra P[{j}] − P[{i}], com P[{j}] = {vetor(b.P[j - 1], 1)} e P[{i}] = "
             f"{vetor(b.P[i - 1], 1)}; agora subtraia número a número, na ordem da pergunta."]
    return Versao(f"O token {tk(t)} aparece na posição {i} e na posição {j}. Quanto vale x{sub(j)} − x{sub(i)}?",
                  dif, f"E[{t}] aparece nas duas linhas e se cancela: x{sub(j)} − x{sub(i)} = P[{j}] − P[{i}] = "
                  f"{vetor(b.P[j - 1], 1)} − {vetor(b.P[i - 1], 1)} = {vetor(dif, 1)}.",
                  tipo="vetor", casas=1, erros=erros, rotulo=f"x{sub(j)} − x{sub(i)}", dicas=dicas)


@exercicio("embeddings-3", "embeddings", "Quantos números nas tabelas?", transferencia=True)
def embeddings_3(s):
    V, d, n_ctx = (b.V, b.d, b.n_ctx) if s is None else (s.inteiro(10, 60), s.escolhe([4, 8, 16]), s.escolhe([8, 16, 32]))
    resp = V * d + n_ctx * d
    erros = [Erro("só E", V * d, "Faltou a tabela de posições P, com n_ctx linhas de d números."),
             Erro("sem d", V + n_ctx, "Cada linha das tabelas tem d números, não um.")]
    dicas = ["Duas tabelas: E tem uma linha por token do vocabulário, P uma linha por posição, e toda linha das duas "
             "tem d números. Conte cada tabela (linhas × d) e some.",
             f"E tem V × d = {V} × {d} = {inteiro(V * d)} números; falta P, com n_ctx = {n_ctx} linhas de {d} "
             "números cada: conte e some."]
    return Versao(f"Um brinquedo com V = {V} tokens, d = {d} e n_ctx = {n_ctx} posições: quantos números "
                  "guardam as tabelas E e P juntas?", resp,
                  f"E tem V × d = {inteiro(V * d)} números e P, n_ctx × d = {inteiro(n_ctx * d)}: {inteiro(resp)}.",
                  tipo="inteiro", casas=0, erros=erros, rotulo="Números", dicas=dicas)


# ---------------------------------------------------------------------------
# Passo 3: LN, Q, K, V
# ---------------------------------------------------------------------------
def _prompt_linha(s):
    if s is None:
        return b.PROMPT, None
    texto = frase(s)
    return texto, s.inteiro(1, len(b.codificar(texto)))


@exercicio("qkv-1", "qkv", "Um número da LayerNorm")
def qkv_1(s):
    texto, i = _prompt_linha(s)
    ids = b.codificar(texto)
    i = i or len(ids)
    j = 1 if s is None else s.inteiro(1, b.d)
    x = b.embed(ids)[i - 1]
    mu = b.media(x)
    var = sum((v - mu) ** 2 for v in x) / b.d
    if var < 0.05:
        raise Degenerado
    resp = b.ln_linha(x)[j - 1]
    erros = [Erro("sem raiz", (x[j - 1] - mu) / (var + b.EPS),
                  "Você dividiu pela variância: a LayerNorm divide pela raiz, √(σ² + ε)."),
             Erro("n − 1", (x[j - 1] - mu) / math.sqrt(sum((v - mu) ** 2 for v in x) / (b.d - 1) + b.EPS),
                  f"A variância da LayerNorm divide por d = {b.d}, não por d − 1."),
             Erro("sem a média", x[j - 1] / b.desvio(x), "Faltou subtrair a média μ antes de dividir.")]
    dicas = [f"A LayerNorm olha a linha x{sub(i)} inteira: tire a média μ e divida pelo desvio √(σ² + ε), em que σ² "
             f"é a média dos quadrados de (x − μ), dividida por d = {b.d}. Da saída, você só precisa do {ordinal(j)} número.",
             f"μ = média de x{sub(i)} = {num(mu)}; o {ordinal(j)} número menos μ dá {num(x[j - 1], 1)} − {par(mu)} = "
             f"{num(x[j - 1] - mu)}. Agora calcule σ² e divida por √(σ² + ε)."]
    return Versao(f"Em «{esc(texto)}», x{sub(i)} = {vetor(x, 1)}. Calcule o {ordinal(j)} número de "
                  f"u{sub(i)} = LN(x{sub(i)}) (γ = 1, β = 0, ε = {cientifico(b.EPS, 0)}).", resp,
                  f"μ = {num(mu)}, σ² = {num(var)}, √(σ² + ε) = {num(b.desvio(x))}; "
                  f"({num(x[j - 1], 1)} − {num(mu)}) / {num(b.desvio(x))} = {num(resp)}.",
                  erros=erros, rotulo=f"u{sub(i)},{sub(j)}", dicas=dicas)


@exercicio("qkv-2", "qkv", "Uma chave à mão")
def qkv_2(s):
    texto, i = _prompt_linha(s)
    ids = b.codificar(texto)
    i = i or len(ids)
    i = 4 if s is None else i
    c = 1 if s is None else s.inteiro(1, b.n_cabecas)
    nome, W = ("q", b.W_Q) if s is None else s.escolhe([("q", b.W_Q), ("k", b.W_K), ("v", b.W_V)])
    outra = b.W_Q if nome != "q" else b.W_K
    X = b.embed(ids)
    u = b.LN(X)[i - 1]
    ini = (c - 1) * b.d_h
    cols = lambda M, v: [sum(v[r] * M[r][cc] for r in range(b.d)) for cc in range(ini, ini + b.d_h)]  # noqa: E731
    resp = cols(W, u)
    outra_c = (c % b.n_cabecas) * b.d_h
    erros = [Erro("cabeça errada", [sum(u[r] * W[r][cc] for r in range(b.d)) for cc in range(outra_c, outra_c + b.d_h)],
                  f"Você usou as colunas da outra cabeça: a cabeça {c} são as colunas {ini + 1} e {ini + b.d_h} da matriz."),
             Erro("matriz errada", cols(outra, u), f"Você usou a matriz errada: {nome} sai de W_{nome.upper()}."),
             Erro("esqueceu a LN", cols(W, X[i - 1]), f"A projeção lê u{sub(i)} = LN(x{sub(i)}), não x{sub(i)}.")]
    coluna = [W[r][ini] for r in range(b.d)]
    dicas = [f"{nome}{sub(i)} = u{sub(i)} · W_{nome.upper()}, mas a cabeça {c} usa só as colunas {ini + 1} e {ini + b.d_h}: "
             f"cada número de {nome}{sub(i)} é u{sub(i)} vezes uma dessas colunas, número a número, somado.",
             f"A coluna {ini + 1} de W_{nome.upper()} é {vetor(coluna, 1)}; o 1º número de {nome}{sub(i)} é "
             + " + ".join(f"{num(u[r]) if r == 0 else par(u[r])} × {par(coluna[r], 1)}" for r in range(b.d))
             + f". Depois, o mesmo com a coluna {ini + b.d_h}."]
    return Versao(f"Em «{esc(texto)}», u{sub(i)} = {vetor(u)}. Calcule {nome}{sub(i)} da cabeça {c} "
                  f"(as colunas {ini + 1} e {ini + b.d_h} de W_{nome.upper()}).", resp,
                  f"{nome}{sub(i)} = u{sub(i)} · (colunas {ini + 1}–{ini + b.d_h} de W_{nome.upper()}) = {vetor(resp, 2)}.",
                  tipo="vetor", casas=2, erros=erros, rotulo=f"{nome}{sub(i)}", dicas=dicas)


@exercicio("qkv-3", "qkv", "As formas no GPT-2", transferencia=True)
def qkv_3(s):
    g = arq.GPT2_SMALL
    n = 10 if s is None else s.inteiro(2, 40)
    dh = g["d"] // g["n_cabecas"]
    erros = [Erro("Q inteira", n * g["d"], f"Isso é Q inteira: uma cabeça tem d_h = {dh} colunas, não d = {g['d']}."),
             Erro("sem os tokens", dh, "Uma consulta por token: são n linhas.")]
    dicas = ["O Q de uma cabeça tem uma linha por token do prompt e d_h colunas, com d_h = d dividido pelo número "
             "de cabeças: conte linhas × colunas.",
             f"d_h = {inteiro(g['d'])} / {g['n_cabecas']} = {dh} colunas, e o prompt de {n} tokens dá uma linha "
             "por token; agora multiplique linhas por colunas."]
    return Versao(f"No bloco 0 do GPT-2 small (d = {inteiro(g['d'])}, {g['n_cabecas']} cabeças), um prompt de "
                  f"{n} tokens: quantos números tem o Q de uma cabeça?", n * dh,
                  f"Uma linha por token e d_h = {inteiro(g['d'])} / {g['n_cabecas']} = {dh} colunas: "
                  f"{n} × {dh} = {inteiro(n * dh)}.", tipo="inteiro", casas=0, erros=erros, rotulo="Números",
                  dicas=dicas)
