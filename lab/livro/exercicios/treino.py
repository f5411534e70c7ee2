"""Exercícios de "De onde vêm os pesos": a derivada de um logit, um passo nos logits, um token repetido.

Os números saem de `livro.treino` (a ida e a volta da página, com os pesos do brinquedo) e de
`livro.brinquedo` (o tokenizador). A versão do livro usa a frase da página e a linha 5; as outras
sorteiam outra frase do vocabulário, outra linha, outro token, outra taxa.
"""
import math

from livro import brinquedo as b
from livro import treino as tr
from livro.formato import casas_min, num, vetor
from livro.exercicios.base import Degenerado, Erro, Versao, esc, exercicio, frase, sub, tk

FRASE = "o gato subiu no telhado"            # a frase da página (a do passo 6)
FRASE_REPETIDA = "o gato no muro e no telhado"  # a do exercício 3: ␣no aparece duas vezes
MINIMO = 0.01                                  # |resposta| abaixo disto fica perto demais de zero


def _tokens(ids):
    return " · ".join(tk(t) for t in ids)


def _frase(texto, ids):
    return f"«{esc(texto)}» (tokens: {_tokens(ids)})"


def _linha(s):
    """(texto, ids, i de 1 a n, ida) da frase da página na linha 5, ou de uma sorteada."""
    texto = FRASE if s is None else frase(s)
    ids = b.codificar(texto)
    n = len(ids) - 1
    i = n if s is None else s.inteiro(1, n)
    return texto, ids, i, tr.ida(tr.pesos_do_brinquedo(), ids)


def _p_menos_e(r, ids, i):
    """p − e da linha i (de 1 a n): a derivada da perda só dessa linha, sem a média."""
    n = len(ids) - 1
    return [x * n for x in tr.volta_perda(r["p"], ids)[i - 1]]


@exercicio("treino-1", "treino", "A derivada de um logit")
def treino_1(s):
    texto, ids, i, r = _linha(s)
    n, p, alvo = len(ids) - 1, r["p"][i - 1], ids[i]
    media = s is not None and s.inteiro(0, 1) == 1
    if s is None:
        j = alvo
    else:
        rival = max((t for t in range(b.V) if t != alvo), key=lambda t: p[t])
        j = s.escolhe([alvo, alvo, rival, ids[i - 1]])
    g = _p_menos_e(r, ids, i)
    div = n if media else 1
    resp = g[j] / div
    if abs(resp) < MINIMO:
        raise Degenerado
    e = 1 if j == alvo else 0
    erros = [Erro("sinal trocado", -resp, "A derivada é p − e, não e − p: o logit do alvo tem derivada negativa "
                  "(subi-lo baixa a perda), e o de um rival, positiva.")]
    if media:
        erros += [Erro("esqueceu a média", g[j], f"A perda é a média das {n} linhas com alvo: cada linha entra "
                       f"com 1/{n}, e a derivada dela também."),
                  Erro("dividiu pelos tokens", g[j] / (n + 1), f"A frase tem {n + 1} tokens, mas só {n} linhas têm "
                       f"alvo: a última, {tk(ids[-1])}, não prevê nada da frase.")]
    else:
        erros.append(Erro("dividiu pela média", g[j] / n, f"Aqui a perda é só a da linha {i}: não há média, "
                          f"nada a dividir por {n}."))
    if j == alvo:
        erros.append(Erro("esqueceu o −1", p[j] / div, f"{tk(j)} é o alvo da linha {i} (o token seguinte da "
                          "frase): o e dele vale 1, e a derivada é p − 1."))
    else:
        erros.append(Erro("alvo errado", (p[j] - 1) / div, f"A linha {i} lê {tk(ids[i - 1])} e tem como alvo o "
                          f"token seguinte, {tk(alvo)}; {tk(j)} é um rival, com e = 0."))
    pergunta = (f"Com a perda da página, a média das {n} linhas com alvo, quanto vale" if media else
                f"Se a perda fosse só a da linha {i} (sem a média das {n} linhas), quanto valeria")
    tabela = "; ".join(f"{tk(t)} {num(x)}" for t, x in enumerate(p))
    dicas = ["Para a perda −ln p(alvo), a derivada em relação ao logit de cada token é p − e, com e = 1 no alvo "
             "(o token que vem depois na frase) e 0 em todos os outros"
             + (": com a média das linhas, cada linha entra dividida pelo número delas." if media else "."),
             f"Em «{esc(texto)}», a linha {i} lê {tk(ids[i - 1])}, e o alvo dela é o token seguinte, {tk(alvo)}: "
             f"na coluna de {tk(j)}, e = {e}"
             + (f"; a média divide por {n}, as linhas com alvo." if media else "; a perda é só a dessa linha, nada a dividir.")
             + f" Agora pegue o p de {tk(j)} na tabela."]
    return Versao(f"Em {_frase(texto, ids)}, a linha {i}, a de {tk(ids[i - 1])}, dá ao próximo token estas "
                  f"probabilidades: {tabela}. {pergunta} ∂L/∂z{sub(i)} na coluna de {tk(j)}?",
                  resp,
                  f"A linha {i} lê {tk(ids[i - 1])} e tem como alvo o token seguinte, {tk(alvo)}: "
                  + (f"{tk(j)} é o alvo, e = 1" if e else f"{tk(j)} é um rival, e = 0")
                  + ". ∂L/∂z = p − e" + (f", dividido pelas {n} linhas da média" if media else "")
                  + f": ({num(p[j])} − {e})" + (f" / {n}" if media else "") + f" = {num(resp)}. "
                  + ("Negativa: subir o logit do alvo baixa a perda." if e else
                     "Positiva: o treino empurra o rival para baixo, na medida da probabilidade que ele levou."),
                  erros=erros, rotulo="Derivada", dicas=dicas)


@exercicio("treino-2", "treino", "Um passo nos logits", transferencia=True)
def treino_2(s):
    texto, ids, i, r = _linha(s)
    n, z, p, alvo = len(ids) - 1, r["z"][i - 1], r["p"][i - 1], ids[i]
    eta = 1 if s is None else s.escolhe([0.5, 1, 1.5, 2])
    g = _p_menos_e(r, ids, i)

    def depois(passo):
        """p depois do passo z ← z − passo · (p − e)."""
        return tr.softmax([zj - passo * gj for zj, gj in zip(z, g)])
    resp = depois(eta)[alvo]
    if resp < 5 * MINIMO:
        raise Degenerado                 # uma probabilidade pequena demais para três casas
    so_alvo = tr.softmax([zj - (eta * g[t] if t == alvo else 0.0) for t, zj in enumerate(z)])[alvo]
    sem_softmax = p[alvo] * math.exp(-eta * g[alvo])
    erros = [Erro("sinal trocado", depois(-eta)[alvo], "O passo vai contra o gradiente, z − η ∂L/∂z: com o "
                  "sinal trocado, o alvo desce em vez de subir."),
             Erro("só o alvo", so_alvo, "Todo logit tem derivada, não só o do alvo: cada rival desce η p, "
                  "na medida da probabilidade que levou."),
             Erro("com a média", depois(eta / n)[alvo], f"A perda aqui é só a da linha {i}: a derivada é p − e, "
                  f"sem dividir por {n}."),
             Erro("sem refazer o softmax", sem_softmax, "Depois de mudar os logits, o denominador do softmax "
                  f"também muda: some de novo as {b.V} exponenciais.")]
    tabela = "; ".join(f"{tk(t)} {num(zj)} ({num(pj)})" for t, (zj, pj) in enumerate(zip(z, p)))
    perda0, perda1 = -math.log(p[alvo]), -math.log(resp)
    dicas = ["Com a perda de uma linha, ∂L/∂z = p − e (e = 1 só no alvo): o passo tira η(p − e) de cada um dos "
             f"{b.V} logits. Depois refaça o softmax com os logits novos.",
             f"Na linha {i} de «{esc(texto)}», o logit do alvo, {tk(alvo)}, sobe η(1 − p) = {casas_min(eta)} × (1 − {num(p[alvo])}) = "
             f"{num(-eta * g[alvo])}, e cada rival desce η p. Os logits novos, na ordem da tabela: "
             f"{vetor([zj - eta * gj for zj, gj in zip(z, g)])}. Agora refaça o softmax."]
    return Versao(f"Em {_frase(texto, ids)}, a linha {i}, a de {tk(ids[i - 1])}, tem alvo {tk(alvo)}. Os logits "
                  f"dela (e as probabilidades, entre parênteses) são: {tabela}. Com a perda só dessa linha, dê um "
                  f"passo de descida do gradiente direto nos {b.V} logits, z ← z − η ∂L/∂z, com η = "
                  f"{casas_min(eta)}. Qual passa a ser a probabilidade de {tk(alvo)}?", resp,
                  f"∂L/∂z = p − e: o logit de {tk(alvo)} sobe η(1 − p) = {num(-eta * g[alvo])}, e cada rival "
                  f"desce η p. Os {b.V} números de ∂L/∂z somam zero (as probabilidades somam 1, e o alvo tira 1): "
                  "o passo não mexe na média dos logits, a única direção que o softmax ignora. Refeito o "
                  f"softmax, p = {num(resp)} (era {num(p[alvo])}), e a perda da linha cai de {num(perda0)} para "
                  f"{num(perda1)} nats.", tipo="prob", erros=erros, rotulo="Probabilidade", dicas=dicas)


@exercicio("treino-3", "treino", "Um token repetido", transferencia=True)
def treino_3(s):
    texto = FRASE_REPETIDA if s is None else frase(s, minimo=4)
    ids = b.codificar(texto)
    pesos = tr.pesos_do_brinquedo()
    G, etapas = tr.volta(pesos, tr.ida(pesos, ids))
    dX = etapas["dX"]
    repetidos = [t for t in dict.fromkeys(ids) if ids.count(t) >= 2]
    if s is None:
        t = repetidos[0]
    elif repetidos:
        t = s.escolhe(repetidos)
    elif s.inteiro(0, 3) == 0:       # às vezes, um token que aparece uma vez só
        t = s.escolhe(sorted(set(ids)))
    else:
        raise Degenerado
    pos = [k for k, x in enumerate(ids) if x == t]
    resp = G["E"][t]
    if max(abs(x) for x in resp) < MINIMO:
        raise Degenerado

    def soma_linhas(ks):
        return [math.fsum(dX[k][c] for k in ks) for c in range(b.d)]
    erros = []
    if len(pos) >= 2:
        dica = (f"{tk(t)} aparece {len(pos)} vezes: a linha de ∂L/∂E dele soma as linhas de ∂L/∂x de todas as "
                "ocorrências.")
        erros += [Erro("só a primeira", dX[pos[0]], dica), Erro("só a última", dX[pos[-1]], dica),
                  Erro("a média", [x / len(pos) for x in resp], "As ocorrências se somam, não se tiram a média: "
                       "cada uma é um uso do mesmo vetor de E, e cada uso leva a sua parte do gradiente.")]
    contagem = "Conte as linhas a partir do primeiro token, «o», que é a linha 1."
    if pos[-1] + 1 < len(ids):
        erros.append(Erro("linha seguinte", soma_linhas([k + 1 for k in pos]), contagem))
    if pos[0] >= 1:
        erros.append(Erro("linha anterior", soma_linhas([k - 1 for k in pos]), contagem))
    linhas = "; ".join(f"{k + 1}: {vetor(x, 4)}" for k, x in enumerate(dX))
    dicas = ["x = E[ids] + P: cada linha de ∂L/∂x volta para a linha de E do seu token. Se o token aparece mais de "
             "uma vez na frase, as linhas de todas as ocorrências se somam.",
             (f"Conte os tokens de «{esc(texto)}» a partir de «o», a linha 1: {tk(t)} aparece uma vez só, na linha "
              f"{pos[0] + 1}. Procure essa linha na lista." if len(pos) == 1 else
              f"Conte os tokens de «{esc(texto)}» a partir de «o», a linha 1: {tk(t)} está nas linhas "
              f"{', '.join(str(k + 1) for k in pos[:-1])} e {pos[-1] + 1}. Agora some "
              f"{' e '.join(vetor(dX[k], 4) for k in pos)}, coordenada a coordenada.")]
    if len(pos) == 1:
        conta = (f"{tk(t)} aparece uma vez só, na linha {pos[0] + 1}: a linha de E dele recebe essa linha "
                 f"inteira, {vetor(resp)}.")
    else:
        conta = (f"{tk(t)} está nas linhas {', '.join(str(k + 1) for k in pos[:-1])} e {pos[-1] + 1}, e as "
                 f"ocorrências se somam: {' + '.join(vetor(dX[k], 4) for k in pos)} = {vetor(resp)}.")
    return Versao(f"Em {_frase(texto, ids)}, com os pesos do brinquedo e a perda média da frase, a volta chega "
                  f"à entrada com estas linhas de ∂L/∂x (a linha 1 é a de «o»): {linhas}. Qual é a linha de ∂L/∂E "
                  f"do token {tk(t)}?",
                  resp,
                  f"x = E[ids] + P: cada linha de ∂L/∂x vai para a linha de E do seu token. {conta} Um token "
                  "ausente da frase receberia zero; a coluna de W_U dele, ao contrário, recebe gradiente, porque todo "
                  "logit entra no softmax.", tipo="vetor", erros=erros, rotulo="Linha de ∂L/∂E", dicas=dicas)
