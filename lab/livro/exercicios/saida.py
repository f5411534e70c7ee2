"""Exercícios dos passos 6 e 7: a saída (logits, probabilidades, perda) e a escolha do próximo token."""
import math

from livro import brinquedo as b
from livro.formato import casas_min, num, vetor
from livro.exercicios.base import Degenerado, Erro, Versao, exercicio, esc, frase, sub, tk


def _logits(s, com_linha=False):
    """(texto, linha i, z da linha i) do prompt do livro (última linha) ou de um sorteado."""
    texto = b.PROMPT if s is None else frase(s)
    ids = b.codificar(texto)
    i = len(ids) if (s is None or not com_linha) else s.inteiro(1, len(ids))
    return texto, ids, i, b.modelo(ids)["z"][i - 1]


def _tabela(z):
    """Os logits no enunciado: token = valor, um por id."""
    return "; ".join(f"{tk(j)} {num(x)}" for j, x in enumerate(z))


def _unico(p, n=3, folga=0.002):
    """Os n primeiros de p sem empate na precisão impressa (senão, sorteia de novo)."""
    o = b.ranking(p)
    if any(p[o[k]] - p[o[k + 1]] < folga for k in range(min(n, len(o) - 1))):
        raise Degenerado
    return o


@exercicio("saida-1", "saida", "Uma probabilidade dos logits")
def saida_1(s):
    texto, ids, i, z = _logits(s, True)
    p = b.softmax(z)
    o = _unico(p)
    j = o[0] if s is None else s.escolhe(o[:4])
    soma_z = sum(z)
    erros = [Erro("sem exponencial", z[j] / soma_z if soma_z else 99.0,
                  "Você dividiu o logit pela soma dos logits: o softmax exponencia antes, p = e^z / Σ e^z."),
             Erro("uniforme", 1 / b.V, f"Esse é o chute uniforme, 1/{b.V}: use os logits.")]
    dicas = [f"O softmax leva os {b.V} logits da linha a probabilidades: exponencie cada logit e divida o de "
             f"{tk(j)} pela soma de todas as exponenciais, p = e^z / Σ e^z.",
             f"O denominador: as {b.V} exponenciais dos logits da tabela somam Σ e^z = "
             f"{num(sum(math.exp(x) for x in z))}. Agora exponencie o logit de {tk(j)} e divida por essa soma."]
    return Versao(f"Em «{esc(texto)}», os logits da linha {i} são: {_tabela(z)}. "
                  f"Qual é a probabilidade de {tk(j)}?", p[j],
                  f"p = e^{{{num(z[j])}}} / Σ e^z = {num(math.exp(z[j]))} / {num(sum(math.exp(x) for x in z))} = {num(p[j])}.",
                  tipo="prob", erros=erros, rotulo="Probabilidade", dicas=dicas)


@exercicio("saida-2", "saida", "Logits multiplicados", transferencia=True)
def saida_2(s):
    texto, ids, i, z = _logits(s)
    a = 2 if s is None else s.escolhe([0.5, 1.5, 2, 3])
    p, pa = b.softmax(z), b.softmax([a * x for x in z])
    t = b.ranking(p)[0]
    erros = [Erro("não muda", p[t], "Somar uma constante não muda nada, mas multiplicar muda: as diferenças entre "
                  "logits crescem (ou encolhem) com o fator."),
             Erro("potência sem renormalizar", p[t] ** a, f"p^{casas_min(a)} é o numerador certo, mas falta dividir "
                  "pela nova soma de todos os termos."),
             Erro("multiplicou p", a * p[t] if a * p[t] <= 1 else 99.0, "Multiplicar os logits não multiplica as probabilidades.")]
    dicas = [f"Multiplicar todos os logits por {casas_min(a)} é usar a temperatura T = 1/{casas_min(a)}: "
             "refaça o softmax com os logits novos, a · z, e o denominador também muda.",
             f"O logit de {tk(t)} passa de {num(z[t])} a {casas_min(a)} · {num(z[t])} = {num(a * z[t])}, e o "
             f"numerador fica e^{{{num(a * z[t])}}} = {num(math.exp(a * z[t]))}. Agora faça o mesmo com os outros "
             f"{b.V - 1} logits e divida pela soma."]
    return Versao(f"Em «{esc(texto)}», o mais provável da última linha é {tk(t)}, com p = {num(p[t])}. "
                  f"Multiplique todos os {b.V} logits por {casas_min(a)}: qual passa a ser a probabilidade de {tk(t)}?",
                  pa[t], f"softmax({casas_min(a)} · z) é o softmax na temperatura T = 1/{casas_min(a)}: "
                  f"p = {num(pa[t])} (era {num(p[t])}).", tipo="prob", erros=erros, rotulo="Probabilidade",
                  dicas=dicas)


@exercicio("saida-3", "saida", "A perda de uma linha")
def saida_3(s):
    texto = "o gato subiu no muro" if s is None else frase(s, minimo=3)
    ids = b.codificar(texto)
    i = len(ids) - 1 if s is None else s.inteiro(1, len(ids) - 1)
    p = b.modelo(ids)["p"][i - 1]
    alvo = ids[i]
    top = b.ranking(p)[0]
    if top == alvo and s is not None:
        raise Degenerado  # com o alvo em primeiro, o erro "usou o mais provável" não se distingue
    resp = -math.log(p[alvo])
    erros = [Erro("log na base 10", -math.log10(p[alvo]), "A perda do livro usa o logaritmo natural (nats), não o de base 10."),
             Erro("sem o sinal", math.log(p[alvo]), "A perda é −ln p: o sinal de menos a deixa positiva."),
             Erro("o mais provável", -math.log(p[top]), f"Use a probabilidade do alvo, {tk(alvo)}, não a do mais provável.")]
    dicas = ["A perda de uma linha é −ln da probabilidade que o modelo deu ao alvo, o token que veio de fato "
             "depois, com o logaritmo natural (nats): a do mais provável não entra.",
             f"A probabilidade que conta é a de {tk(alvo)}, {num(p[alvo])} (não o {num(p[top])} de {tk(top)}); "
             "−ln p é o mesmo que ln(1/p), e "
             f"1/{num(p[alvo])} = {num(1 / p[alvo])}. Agora tire o logaritmo natural desse número."]
    return Versao(f"Em «{esc(texto)}», a linha {i} ({tk(ids[i - 1])}) tem como alvo o token seguinte, {tk(alvo)}, "
                  f"com p = {num(p[alvo])}; o mais provável é {tk(top)}, com {num(p[top])}. "
                  f"Qual é a perda dessa linha, em nats?", resp,
                  f"−ln {num(p[alvo])} = {num(resp)} nats.", erros=erros, casas=2, rotulo="Perda (nats)", dicas=dicas)


@exercicio("saida-4", "saida", "Dois tokens seguidos: a regra da cadeia", transferencia=True)
def saida_4(s):
    if s is None:                                  # a palavra de dois tokens ␣sub + iu depois de "o sofá"
        ids, i = b.codificar("o sofá subiu"), 2
    else:                                          # dois tokens seguidos de uma frase, depois da posição i
        ids = b.codificar(frase(s, minimo=3))
        i = s.inteiro(1, len(ids) - 2)
    t1, t2 = ids[i], ids[i + 1]
    if b.VOCAB[t1] == "iu" or b.VOCAB[t2] == "␣sub":
        raise Degenerado  # o par partiria "subiu" ao meio
    p = b.modelo(ids)["p"]
    # a linha do contexto e a de t1, com as três casas do enunciado: a conta do leitor dá o gabarito
    p1, p2_antes, p2 = (float(num(x).replace(",", ".")) for x in (p[i - 1][t1], p[i - 1][t2], p[i][t2]))
    resp = p1 * p2
    casas = 3 if resp >= 0.1 else 4
    if resp < 0.003:
        raise Degenerado  # um produto quase 0 não distingue os erros
    ctx, escrito = esc(b.decodificar(ids[:i])), esc(b.decodificar([t1, t2]).strip())
    erros = [Erro("somou", p1 + p2 if p1 + p2 <= 1 else 99.0,
                  "Somar serve para alternativas no mesmo lugar (um token ou outro); aqui um token vem depois "
                  "do outro, e as probabilidades se multiplicam."),
             Erro("a linha errada", p1 * p2_antes,
                  f"O segundo fator é a probabilidade de {tk(t2)} depois de {tk(t1)}: a da linha que já viu "
                  f"{tk(t1)}, não a da linha do contexto."),
             Erro("só o primeiro token", p1, f"Falta o segundo passo: {tk(t2)} também tem de sair.")]
    dicas = ["Regra da cadeia: a probabilidade de dois tokens seguidos é a do primeiro depois do contexto vezes "
             "a do segundo depois do contexto já seguido do primeiro.",
             f"O primeiro fator é p({tk(t1)} | «{ctx}») = {num(p1)}. O segundo vem da linha que já viu {tk(t1)}: "
             f"{num(p2)}, não o {num(p2_antes)} da linha do contexto. Agora multiplique os dois."]
    return Versao(f"Depois de «{ctx}», o modelo dá p = {num(p1)} a {tk(t1)} e p = {num(p2_antes)} a {tk(t2)}. "
                  f"Depois de «{ctx}» seguido de {tk(t1)}, dá p = {num(p2)} a {tk(t2)}. Qual é a probabilidade "
                  f"de o modelo escrever “{escrito}” ({tk(t1)} e depois {tk(t2)}) logo depois de «{ctx}»?", resp,
                  f"Pela regra da cadeia, p({tk(t1)} | «{ctx}») · p({tk(t2)} | «{ctx}» {tk(t1)}) = "
                  f"{num(p1)} · {num(p2)} = {num(resp, casas)}.", tipo="prob", casas=casas, erros=erros,
                  rotulo="Probabilidade", dicas=dicas)


# ---------------------------------------------------------------------------
# Passo 7: temperatura, top-k, top-p, o sorteio u
# ---------------------------------------------------------------------------
def _z_ultima(s):
    texto = b.PROMPT if s is None else frase(s)
    return texto, b.modelo(b.codificar(texto))["z"][-1]


def _longe(u, acum, folga=0.01):
    """u longe de toda soma acumulada (senão a resposta depende do arredondamento)."""
    if any(abs(u - a) < folga for a in acum):
        raise Degenerado


@exercicio("proximo_token-1", "proximo_token", "Que token sai?")
def proximo_1(s):
    texto, z = _z_ultima(s)
    T, k, u = (0.7, 2, 0.8) if s is None else (s.escolhe([0.5, 0.7, 1, 1.5, 2]), s.inteiro(2, 5), s.escolhe([0.3, 0.45, 0.6, 0.75, 0.9]))
    resp, det = b.escolher(z, T=T, k=k, u=u)
    _longe(u, det["acumuladas"])
    p1 = b.softmax(z)
    pT_errado = b.softmax([x / T for x in p1])  # a temperatura aplicada às probabilidades
    o_err, q_err = b.filtrar(pT_errado, k)
    ordem = det["mantidos"]
    cru = [det["p"][j] for j in ordem]
    erros = [Erro("T nas probabilidades", b.sortear(o_err, q_err, u),
                  "Você dividiu as probabilidades por T: a temperatura divide os logits, antes do softmax."),
             Erro("sem renormalizar", b.sortear(ordem, cru, u),
                  f"Depois do top-k, as {k} probabilidades que ficam são divididas pela soma delas (somam 1 de novo)."),
             Erro("sem o top-k", b.sortear(b.ranking(det["p"]), sorted(det["p"], reverse=True), u),
                  f"O top-k deixa só os {k} mais prováveis antes do sorteio.")]
    linhas = "; ".join(f"{tk(j)} {num(q)} (acumulada {num(a)})" for j, q, a in zip(ordem, det["q"], det["acumuladas"]))
    dicas = [f"Três passos, nesta ordem: divida os logits por T e faça o softmax; fique com os {k} mais prováveis e "
             f"renormalize; ande pelas acumuladas até a primeira que passa de u = {casas_min(u)}.",
             f"Os logits divididos por T = {casas_min(T)}, na ordem da tabela: {vetor([x / T for x in z])}; o "
             f"softmax deles dá {vetor(det['p'])}. Agora fique com os {k} maiores, renormalize e procure "
             f"u = {casas_min(u)} nas acumuladas."]
    return Versao(f"Os logits da última linha de «{esc(texto)}» são: {_tabela(z)}. Com T = {casas_min(T)}, "
                  f"top-k = {k} e o sorteio u = {casas_min(u)}, que token sai?", resp,
                  f"softmax(z / {casas_min(T)}), os {k} primeiros, renormalizados: {linhas}. "
                  f"O primeiro cuja acumulada passa de {casas_min(u)} é {tk(resp)}.",
                  tipo="token", erros=erros, rotulo="Token", dicas=dicas)


@exercicio("proximo_token-2", "proximo_token", "Quantos ficam no top-p?")
def proximo_2(s):
    texto, z = _z_ultima(s)
    T, P = (0.7, 0.9) if s is None else (s.escolhe([0.5, 0.7, 1, 1.5, 2]), s.escolhe([0.5, 0.7, 0.8, 0.9, 0.95]))
    p = b.softmax(z, T)
    o, _ = b.filtrar(p, top_p=P)
    acum = b.acumuladas(sorted(p, reverse=True))
    _longe(P, acum, 0.005)
    erros = [Erro("parou antes", len(o) - 1, f"O top-p guarda o menor conjunto cuja soma chega a {casas_min(P)}: "
                  "o token que faz a soma passar do corte também fica."),
             Erro("sem a temperatura", len(b.filtrar(b.softmax(z), top_p=P)[0]),
                  f"O corte vale sobre as probabilidades já na temperatura T = {casas_min(T)}.")]
    dicas = [f"Primeiro a temperatura: o softmax de z / T. Depois ordene do mais provável ao menos e vá somando: o "
             f"top-p guarda o menor grupo cuja soma chega a {casas_min(P)}, com o token que faz a soma passar.",
             f"Em T = {casas_min(T)}, as probabilidades, da maior para a menor, são: "
             f"{'; '.join(num(x) for x in sorted(p, reverse=True))}. Agora some da maior para a menor até chegar "
             f"a {casas_min(P)}."]
    return Versao(f"Os logits da última linha de «{esc(texto)}» são: {_tabela(z)}. Com T = {casas_min(T)} e "
                  f"top-p = {casas_min(P)}, quantos tokens ficam para o sorteio?", len(o),
                  "As acumuladas, do mais provável ao menos: " + "; ".join(num(a) for a in acum[:len(o) + 1])
                  + f". A {len(o)}ª é a primeira que chega a {casas_min(P)}: ficam {len(o)}.",
                  tipo="inteiro", casas=0, erros=erros, rotulo="Tokens", dicas=dicas)


@exercicio("proximo_token-3", "proximo_token", "Depois do corte", transferencia=True)
def proximo_3(s):
    texto, z = _z_ultima(s)
    T, P = (0.7, 0.9) if s is None else (s.escolhe([0.5, 0.7, 1, 1.5]), s.escolhe([0.5, 0.7, 0.8, 0.9]))
    p = b.softmax(z, T)
    o, q = b.filtrar(p, top_p=P)
    if len(o) < 2:
        raise Degenerado
    erros = [Erro("top-p sem renormalizar", p[o[0]], "Os tokens que ficam dividem a probabilidade toda: divida "
                  "cada p pela soma dos que ficaram."),
             Erro("T = 1", b.filtrar(b.softmax(z), top_p=P)[1][0],
                  f"Use as probabilidades na temperatura T = {casas_min(T)}.")]
    dicas = [f"Faça o corte do top-p nas probabilidades em T = {casas_min(T)} e renormalize: no sorteio, {tk(o[0])} "
             "fica com a probabilidade dela dividida pela soma das que ficaram.",
             f"Em T = {casas_min(T)}, {tk(o[0])} tem p = {num(p[o[0]])}, e as probabilidades, da maior para a menor, "
             f"são: {'; '.join(num(x) for x in sorted(p, reverse=True))}. Agora ache o corte de {casas_min(P)} e "
             "some as que ficam."]
    return Versao(f"Os logits da última linha de «{esc(texto)}» são: {_tabela(z)}. Com T = {casas_min(T)} e "
                  f"top-p = {casas_min(P)}, que probabilidade tem {tk(o[0])} no sorteio, depois do corte?", q[0],
                  f"Ficam {len(o)} tokens, com soma {num(sum(p[j] for j in o))}; "
                  f"{num(p[o[0]])} / {num(sum(p[j] for j in o))} = {num(q[0])}.",
                  tipo="prob", erros=erros, rotulo="Probabilidade", dicas=dicas)


@exercicio("proximo_token-4", "proximo_token", "Outra temperatura", transferencia=True)
def proximo_4(s):
    texto, z = _z_ultima(s)
    T = 0.5 if s is None else s.escolhe([0.25, 0.5, 0.7, 1.5, 2, 3])
    p1 = b.softmax(z)
    t = _unico(p1)[0]
    pT = b.softmax(z, T)
    erros = [Erro("T nas probabilidades", b.softmax([x / T for x in p1])[t],
                  "Você dividiu as probabilidades por T: a temperatura divide os logits, antes do softmax."),
             Erro("multiplicou por T", b.softmax([x * T for x in z])[t], "Com T, os logits são divididos por T, não multiplicados."),
             Erro("T = 1", p1[t], "Essa é a probabilidade em T = 1.")]
    dicas = [f"A temperatura divide os logits, antes do softmax: p = e^(z/T) / Σ e^(z/T), com os logits da tabela "
             f"e T = {casas_min(T)} (nunca as probabilidades divididas por T).",
             f"Divididos por T = {casas_min(T)}, os logits ficam, na ordem da tabela, {vetor([x / T for x in z])}; o "
             f"de {tk(t)} é {num(z[t] / T)}. Agora exponencie todos e divida o de {tk(t)} pela soma."]
    return Versao(f"Em T = 1, {tk(t)} tem p = {num(p1[t])} na última linha de «{esc(texto)}»; os logits são: "
                  f"{_tabela(z)}. Qual é a probabilidade de {tk(t)} em T = {casas_min(T)}?", pT[t],
                  f"softmax(z / {casas_min(T)}): p = {num(pT[t])}.", tipo="prob", erros=erros, rotulo="Probabilidade",
                  dicas=dicas)


_ = sub  # (reservado aos enunciados com índices)
