"""Exercícios de "De onde vêm os pesos" que pedem entradas do gradiente: a volta por um peso, a média, os softmax.

O leitor digita um número ou um vetor do caminho de volta; o gabarito sai das funções de `livro.treino` que a
página mostra (`volta_perda`, `volta_saida`, `volta_softmax`, `volta_atencao`, `volta_ln_linha`), com os pesos
do brinquedo. Cada erro típico é a mesma conta com aquele erro: a matriz sem a transposta, o ∂L/∂z sem o 1/n da
média ou sem o softmax (só −1/p no alvo, só a diagonal do jacobiano), a norma tratada número a número.
A versão do livro usa a frase da página; as outras sorteiam outra frase, outra linha, outra cabeça, outra entrada.
"""
from math import fsum
from operator import mul

from livro import brinquedo as b
from livro import treino as tr
from livro.formato import casas_min, num, vetor
from livro.exercicios.base import Degenerado, Erro, Versao, esc, exercicio, frase, sub, tk
from livro.exercicios.treino import FRASE

MINIMO = 0.01            # um gabarito com todas as entradas abaixo disto fica perto demais de zero


def _frase(texto, ids):
    return f"«{esc(texto)}» (tokens: {' · '.join(tk(t) for t in ids)})"


def _volta(s):
    """(texto, ids, pesos, ida, gradiente, etapas da volta) da frase da página ou de uma sorteada."""
    texto = FRASE if s is None else frase(s, minimo=4)
    ids = b.codificar(texto)
    pesos = tr.pesos_do_brinquedo()
    r = tr.ida(pesos, ids)
    G, etapas = tr.volta(pesos, r)
    return texto, ids, pesos, r, G, etapas


def _matriz(nome, W):
    """W_Q = [linha 1 / linha 2 / ...], com os números como estão nos pesos."""
    return f"{nome} = [" + " / ".join("; ".join(casas_min(x) for x in linha) for linha in W) + "] (linha a linha)"


def _linha_lida(ids, i, artigo="a"):
    """"a linha 2, a de ␣gato" (ou "da linha 2, a de ␣gato", com artigo="da")."""
    return f"{artigo} linha {i}, a de {tk(ids[i - 1])}"


# ---------------------------------------------------------------------------
# treino-4: de volta pelas três projeções (a transposta, e a soma dos três caminhos)
# ---------------------------------------------------------------------------
@exercicio("treino-4", "treino", "De volta pelas três projeções")
def treino_4(s):
    texto, ids, pesos, r, G, et = _volta(s)
    n = len(ids) - 1
    i = 2 if s is None else s.inteiro(1, n)
    at = tr.volta_atencao(r["u"], r, et["dh"], pesos)          # ∂L/∂a = ∂L/∂h
    dQKV = at["QKV"][i - 1]
    parte = {M: dQKV[k * b.d:(k + 1) * b.d] for k, M in enumerate("QKV")}
    resp = at["u"][i - 1]
    if max(abs(x) for x in resp) < 2 * MINIMO:
        raise Degenerado

    def de_volta(M, transposta=True):
        """∂L/∂M_i W_Mᵀ (ou, com o erro, ∂L/∂M_i W_M)."""
        return (tr.matmul_t if transposta else tr.matmul)([parte[M]], pesos["W_" + M])[0]
    sem_t = [fsum(x) for x in zip(*(de_volta(M, transposta=False) for M in "QKV"))]
    dica_soma = ("As três projeções leram a mesma cópia u: Q = u W_Q, K = u W_K e V = u W_V, e os três "
                 "gradientes se somam nela.")
    erros = [Erro("sem a transposta", sem_t, "Para Q = u W_Q, a volta é ∂L/∂u = ∂L/∂Q W_Qᵀ: o peso volta "
                  "transposto (a linha k de W_Q diz quanto u_k entra em cada coluna de Q). Multiplicar por W_Q "
                  "sem transpor só tem a forma certa porque W_Q é quadrada."),
             Erro("só o Q", de_volta("Q"), dica_soma), Erro("só o V", de_volta("V"), dica_soma),
             Erro("sem o V", [q + k for q, k in zip(de_volta("Q"), de_volta("K"))], dica_soma)]
    pesos_txt = "; ".join(_matriz("W_" + M, pesos["W_" + M]) for M in "QKV")
    dicas = ["Q = u W_Q, K = u W_K e V = u W_V leram a mesma cópia u: cada projeção volta com o seu peso "
             "transposto, ∂L/∂Q W_Qᵀ, ∂L/∂K W_Kᵀ e ∂L/∂V W_Vᵀ, e os três caminhos se somam.",
             f"Em «{esc(texto)}», o primeiro caminho, o da consulta: ∂L/∂Q{sub(i)} W_Qᵀ = {vetor(parte['Q'], 5)} W_Qᵀ = "
             f"{vetor(de_volta('Q'))} (a coordenada k é o produto de ∂L/∂Q{sub(i)} com a linha k de W_Q). Agora "
             "faça o mesmo com K e V e some os três."]
    return Versao(f"Em {_frase(texto, ids)}, com os pesos do brinquedo e a perda média da frase, a volta chega às "
                  f"projeções {_linha_lida(ids, i, 'da')}: ∂L/∂Q{sub(i)} = {vetor(parte['Q'], 5)}, ∂L/∂K{sub(i)} = "
                  f"{vetor(parte['K'], 5)} e ∂L/∂V{sub(i)} = {vetor(parte['V'], 5)}. Os pesos: {pesos_txt}. "
                  f"Qual é ∂L/∂u{sub(i)}, o gradiente que a atenção devolve à cópia normalizada u{sub(i)}?",
                  resp,
                  f"Cada projeção volta com o seu peso transposto: ∂L/∂Q W_Qᵀ = {vetor(de_volta('Q'))}, ∂L/∂K W_Kᵀ = "
                  f"{vetor(de_volta('K'))} e ∂L/∂V W_Vᵀ = {vetor(de_volta('V'))}; somados, {vetor(resp)}. "
                  + ("A chave e o valor de uma linha recebem gradiente das linhas de depois que olharam para ela; "
                     "a consulta, só da própria linha." if i < n else
                     f"A linha {i} é a última com alvo: nenhuma linha com alvo depois dela lê a sua chave ou o seu "
                     "valor, e quase tudo volta pela consulta."),
                  tipo="vetor", erros=erros, rotulo=f"∂L/∂u{sub(i)}", dicas=dicas)


# ---------------------------------------------------------------------------
# treino-5: uma entrada de ∂L/∂W_U (o 1/n da média; a volta do softmax da saída)
# ---------------------------------------------------------------------------
def dz_com_erro(p, ids, erro=None):
    """∂L/∂z de todas as linhas, como `tr.volta_perda`, ou com um erro: "sem a média" (sem o 1/n), "pelos
    tokens" (1/(n+1)), "sem o e" (p sem o −1 do alvo), "−1/p" (∂L/∂p no lugar de ∂L/∂z: só o alvo, −1/p) e
    "diagonal" (o jacobiano do softmax só na diagonal, p(1 − p) · (−1/p), e zero nos rivais)."""
    n = len(ids) - 1
    if erro is None:
        return tr.volta_perda(p, ids)
    div = {"sem a média": 1, "pelos tokens": n + 1}.get(erro, n)
    dz = []
    for i, linha in enumerate(p[:n]):
        a = ids[i + 1]
        if erro == "−1/p":
            d = [-1 / linha[a] if k == a else 0.0 for k in range(len(linha))]
        elif erro == "diagonal":
            d = [linha[a] * (1 - linha[a]) * (-1 / linha[a]) if k == a else 0.0 for k in range(len(linha))]
        elif erro == "sem o e":
            d = list(linha)
        else:
            d = [pk - (1.0 if k == a else 0.0) for k, pk in enumerate(linha)]
        dz.append([x / div for x in d])
    return dz + [[0.0] * len(p[0])]


@exercicio("treino-5", "treino", "Uma entrada de ∂L/∂W_U", transferencia=True)
def treino_5(s):
    texto, ids, pesos, r, G, et = _volta(s)
    n, p, yc = len(ids) - 1, r["p"], r["y_chapeu"]
    alvos = ids[1:]
    if s is None:
        t = alvos[-1]
    else:
        t = s.escolhe(alvos + [s.escolhe([k for k in range(b.V) if k not in alvos])])

    def entrada(dz):
        return tr.volta_saida(yc, dz, pesos["W_U"])[0]
    dW = entrada(tr.volta_perda(p, ids))
    j = max(range(b.d), key=lambda c: abs(dW[c][t])) if s is None else s.inteiro(0, b.d - 1)
    resp = dW[j][t]
    if abs(resp) < MINIMO:
        raise Degenerado

    def com(erro):
        return entrada(dz_com_erro(p, ids, erro))[j][t]
    dica_softmax = (f"−ln p(alvo) depende de todos os logits, pelo softmax: ∂L/∂z = (p − e)/n, e cada linha com "
                    f"outro alvo também empurra a coluna de {tk(t)}, com p/n.")
    erros = [Erro("esqueceu a média", com("sem a média"), f"A perda é a média das {n} linhas com alvo: cada linha "
                  f"entra com 1/{n}."),
             Erro("dividiu pelos tokens", com("pelos tokens"), f"A frase tem {n + 1} tokens, mas só {n} linhas têm "
                  f"alvo: a última, {tk(ids[-1])}, não entra na média."),
             Erro("esqueceu o −1", com("sem o e"), f"Nas linhas em que {tk(t)} é o alvo, ∂L/∂z é p − 1, não p."),
             Erro("−1/p só no alvo", com("−1/p"), "Essa é a derivada em relação a p, −1/p(alvo); falta voltar pelo "
                  "softmax, que leva a z. " + dica_softmax),
             Erro("só a diagonal do softmax", com("diagonal"), "O jacobiano do softmax não é diagonal: subir um "
                  "logit baixa a probabilidade de todos os outros. " + dica_softmax)]
    linhas = "; ".join(f"linha {k + 1} (alvo {tk(alvos[k])}): ŷ = {num(yc[k][j], 4)}, p = {num(p[k][t], 4)}"
                       for k in range(n))
    quem = [k + 1 for k in range(n) if alvos[k] == t]
    e1 = 1 if alvos[0] == t else 0
    dicas = [f"∂L/∂W_U = ŷᵀ ∂L/∂z, com ∂L/∂z = (p − e)/{n} (a média das {n} linhas): a entrada pedida soma, linha "
             f"a linha, a coordenada {j + 1} de ŷ vezes (p − e)/{n} da coluna de {tk(t)}, com e = 1 onde {tk(t)} é o "
             "alvo e 0 nas outras.",
             f"Em «{esc(texto)}», a linha 1 (alvo {tk(alvos[0])}, e = {e1}) entra com {num(yc[0][j], 4)} × ({num(p[0][t], 4)} − {e1}) / "
             f"{n} = {num(yc[0][j] * (p[0][t] - e1) / n, 4)}. Agora faça o mesmo nas outras {n - 1} linhas e some."]
    return Versao(f"Em {_frase(texto, ids)}, com os pesos do brinquedo e a perda da página (a média das {n} "
                  f"linhas com alvo), a camada de saída faz z = ŷ W_U. Em cada linha com alvo, a coordenada {j + 1} "
                  f"de ŷ e a probabilidade que ela dá a {tk(t)} são: {linhas}. Qual é a entrada de ∂L/∂W_U na linha "
                  f"{j + 1}, coluna de {tk(t)}?",
                  resp,
                  f"∂L/∂W_U = ŷᵀ ∂L/∂z, com ∂L/∂z = (p − e)/{n}: a entrada soma, nas {n} linhas, ŷ vezes "
                  f"(p − e)/{n}, com e = 1 "
                  + (f"nas linhas em que {tk(t)} é o alvo ({', '.join(map(str, quem))})" if quem else
                     f"onde {tk(t)} é o alvo (aqui, em nenhuma: todas entram com p)")
                  + f" e 0 nas outras. O total dá {num(resp)}: "
                  + ("negativo, e o passo de descida sobe esse peso." if resp < 0 else
                     "positivo, e o passo de descida baixa esse peso."),
                  erros=erros, rotulo="Entrada", dicas=dicas)


# ---------------------------------------------------------------------------
# treino-6: a volta do softmax da atenção (o jacobiano inteiro)
# ---------------------------------------------------------------------------
@exercicio("treino-6", "treino", "A volta do softmax da atenção")
def treino_6(s):
    texto, ids, pesos, r, G, et = _volta(s)
    n = len(ids) - 1
    i, c = (n, 0) if s is None else (s.inteiro(2, n), s.inteiro(0, b.n_cabecas - 1))
    dO = b.cabeca(tr.matmul_t(et["dh"], pesos["W_O"]), c)        # ∂L/∂O^(c), de ∂L/∂a = ∂L/∂h
    vis, A = r["vistos"][i - 1], r["A"][c][i - 1]
    dA = [fsum(map(mul, dO[i - 1], r["V"][c][k])) for k in vis]   # a linha i de ∂L/∂O V^(c)ᵀ
    resp = tr.volta_softmax([A], [dA])[0]
    if max(abs(x) for x in resp) < MINIMO / 2:
        raise Degenerado
    dica = ("Cada peso A_ik depende de todos os escores da linha, não só de S_ik: ∂A_ik/∂S_il = A_ik (δ_kl − A_il). "
            "Somado, ∂L/∂S_il = A_il (∂L/∂A_il − Σ_k A_ik ∂L/∂A_ik).")
    erros = [Erro("número a número", [a * (1 - a) * d for a, d in zip(A, dA)], "Tratar o softmax número a número "
                  "guarda só a diagonal do jacobiano, A(1 − A). " + dica),
             Erro("sem tirar a soma", [a * d for a, d in zip(A, dA)], "Faltou tirar de cada ∂L/∂A a média "
                  "ponderada Σ_k A_ik ∂L/∂A_ik: os pesos da linha somam 1, e subir um baixa os outros. " + dica),
             Erro("sem o softmax", list(dA), "Essa é a linha de ∂L/∂A; o escore S ainda passa pelo softmax. " + dica)]
    cab = f"cabeça {c + 1}"
    soma = fsum(map(mul, A, dA))
    dicas = ["O softmax mistura a linha toda: ∂L/∂S_k = A_k (∂L/∂A_k − Σ_l A_l ∂L/∂A_l). Comece pela média "
             "ponderada Σ_l A_l ∂L/∂A_l, uma só para a linha.",
             f"A média ponderada da linha {i} de «{esc(texto)}»: Σ_l A_l ∂L/∂A_l = {' + '.join(f'{num(a, 5)} × ({num(d, 5)})' for a, d in zip(A, dA))} "
             f"= {num(soma, 5)}. Agora, em cada coluna, tire {num(soma, 5)} de ∂L/∂A_k e multiplique por A_k."]
    return Versao(f"Em {_frase(texto, ids)}, com os pesos do brinquedo e a perda média da frase, na {cab}, "
                  f"{_linha_lida(ids, i)}, tem os pesos de atenção A = {vetor(A, 5)} (as colunas 1 a {i}, as que a "
                  f"máscara deixa) e a volta chega a eles com ∂L/∂A = {vetor(dA, 5)}. Qual é a linha {i} de ∂L/∂S, "
                  f"o gradiente dos escores antes do softmax ({i} números)?",
                  resp,
                  f"Primeiro a média ponderada: Σ_k A_k ∂L/∂A_k = {num(soma, 5)}. Depois, em cada coluna, "
                  f"A_k (∂L/∂A_k − {num(soma, 5)}) = {vetor(resp, 4)}. Os {i} números somam zero: somar a mesma "
                  "constante a todos os escores da linha não muda o softmax. Onde o peso é quase zero, o gradiente "
                  "também é: um token que a cabeça não olha quase não aprende por ela.",
                  tipo="vetor", casas=4, erros=erros, rotulo=f"Linha {i} de ∂L/∂S", dicas=dicas)


# ---------------------------------------------------------------------------
# treino-7: de volta pela norma final (a LayerNorm não é número a número)
# ---------------------------------------------------------------------------
def ln_com_erro(vc, g, desvio, media=True, escala=True, divide=True):
    """A volta de v̂ = (v − μ)/s numa linha, (g − média(g) − v̂ · média(g ⊙ v̂)) / s, com termos esquecidos:
    sem a média, sem a escala ou sem dividir por s; sem os dois primeiros, é a norma tratada número a número."""
    mg = fsum(g) / len(g) if media else 0.0
    mgv = fsum(map(mul, g, vc)) / len(g) if escala else 0.0
    return [(x - mg - v * mgv) / (desvio if divide else 1.0) for x, v in zip(g, vc)]


@exercicio("treino-7", "treino", "De volta pela norma final")
def treino_7(s):
    texto, ids, pesos, r, G, et = _volta(s)
    n = len(ids) - 1
    i = n if s is None else s.inteiro(1, n)
    y, yc, g = r["y"][i - 1], r["y_chapeu"][i - 1], et["dy_chapeu"][i - 1]
    desvio = tr.desvio(y)
    resp = tr.volta_ln_linha(y, g)
    if max(abs(x) for x in resp) < 2 * MINIMO:
        raise Degenerado
    dica = ("A norma tira a média e divide pelo desvio da própria linha: mexer num número muda μ e σ, e com eles "
            "todos os números da saída.")
    erros = [Erro("número a número", ln_com_erro(yc, g, desvio, media=False, escala=False), "Dividir por s é só "
                  "metade da volta: μ e s também dependem de y. " + dica),
             Erro("sem a média", ln_com_erro(yc, g, desvio, media=False), "Faltou tirar a média de ∂L/∂ŷ, a parte "
                  "que só mudaria a média da linha. " + dica),
             Erro("sem a escala", ln_com_erro(yc, g, desvio, escala=False), "Faltou tirar ŷ · média(∂L/∂ŷ ⊙ ŷ), a "
                  "parte que só mudaria a escala da linha. " + dica),
             Erro("sem dividir por s", ln_com_erro(yc, g, desvio, divide=False), "A norma divide por s = √(σ² + ε); "
                  "a volta também.")]
    mg, mgv = fsum(g) / len(g), fsum(map(mul, g, yc)) / len(g)
    dicas = ["A norma tira a média e divide pelo desvio da própria linha, e a volta desfaz as duas coisas: ∂L/∂y = "
             "(∂L/∂ŷ − média(∂L/∂ŷ) − ŷ · média(∂L/∂ŷ ⊙ ŷ)) / s. Comece pelas duas médias.",
             f"As duas médias da linha {i} de «{esc(texto)}»: média(∂L/∂ŷ{sub(i)}) = {num(mg, 5)} e média(∂L/∂ŷ{sub(i)} ⊙ ŷ{sub(i)}) = "
             f"{num(mgv, 5)}. Agora, em cada coordenada, tire {num(mg, 5)} e ŷ · ({num(mgv, 5)}) de ∂L/∂ŷ e divida por "
             f"s = {num(desvio, 5)}."]
    return Versao(f"Em {_frase(texto, ids)}, com os pesos do brinquedo e a perda média da frase, a volta chega à "
                  f"norma final {_linha_lida(ids, i, 'na')}, com ∂L/∂ŷ{sub(i)} = {vetor(g, 5)}. Na ida, essa linha "
                  f"tinha ŷ{sub(i)} = {vetor(yc, 5)}, com s = √(σ² + ε) = {num(desvio, 5)}. Qual é ∂L/∂y{sub(i)}?",
                  resp,
                  f"A média de ∂L/∂ŷ é {num(mg, 5)}, e a de ∂L/∂ŷ ⊙ ŷ é {num(mgv, 5)}. Tirando as duas partes e "
                  f"dividindo por s: (∂L/∂ŷ − {num(mg, 5)} − ŷ · ({num(mgv, 5)})) / {num(desvio, 5)} = {vetor(resp)}. "
                  "O resultado soma zero: a volta tira o que só mudaria a média ou a escala da "
                  "linha, as duas coisas que a norma apaga na ida.",
                  tipo="vetor", erros=erros, rotulo=f"∂L/∂y{sub(i)}", dicas=dicas)
