"""Um exercício conferido em cada página fora do caminho: por que o bloco, desde 2017, escala, laboratório."""
import math

from livro import arquitetura as arq
from livro.formato import abreviado, casas_min, cientifico, inteiro, num
from livro.exercicios.base import Degenerado, Erro, Versao, exercicio


@exercicio("por_que_bloco-1", "por_que_bloco", "A derivada da GELU exata", transferencia=True)
def por_que_bloco_1(s):
    z = -1.5 if s is None else s.escolhe([-2.5, -2, -1, -0.75, -0.5, -0.25, 0.25, 0.5, 0.75, 1, 1.5, 2, 2.5])
    Phi = 0.5 * (1 + math.erf(z / math.sqrt(2)))
    phi = math.exp(-z * z / 2) / math.sqrt(2 * math.pi)
    resp = Phi + z * phi
    erros = [Erro("ReLU", 1.0 if z > 0 else 0.0, "Essa é a derivada da ReLU: 0 ou 1. A da GELU passa suave entre os dois."),
             Erro("só Φ", Phi, "Faltou o segundo termo da regra do produto: d/dz [z Φ(z)] = Φ(z) + z φ(z).")]
    zz = casas_min(z)
    dicas = ["A GELU é um produto, z vezes Φ(z): use a regra do produto, d/dz [z Φ(z)] = Φ(z) + z Φ′(z), e "
             "lembre que a derivada de Φ é a densidade φ.",
             f"Os dois ingredientes em z = {zz}: Φ({zz}) = {num(Phi)} (a tabela da normal) e φ({zz}) = "
             f"e^(−z²/2)/√(2π) = {num(phi)}. Agora monte Φ + z φ, com cuidado no sinal de z."]
    return Versao(f"A GELU exata é z · Φ(z), com Φ a função de distribuição da normal padrão e φ a sua densidade. "
                  f"Qual é a derivada dela em z = {casas_min(z)}?", resp,
                  f"Φ({casas_min(z)}) = {num(Phi)} e φ({casas_min(z)}) = {num(phi)}; Φ + z φ = {num(resp)}. "
                  + ("Negativa: um gradiente pequeno, mas não nulo, onde a ReLU daria zero." if resp < 0 else
                     "Acima de 1: ali a GELU sobe mais depressa que a identidade." if resp > 1 else
                     "Entre 0 e 1: a GELU passa suave de um lado ao outro, sem o salto da ReLU em zero."),
                  erros=erros, rotulo="Derivada", dicas=dicas)


@exercicio("desde_2017-1", "desde_2017", "O cache de KV por token", transferencia=True)
def desde_2017_1(s):
    g = arq.GPT2_SMALL if s is not None else arq.CLASSE_8B
    L, h, kv = (g["n_camadas"], g["n_cabecas"], g["n_kv"]) if s is None else (
        s.escolhe([12, 24, 32]), 12, s.escolhe([1, 2, 4, 6, 12]))
    dh = g["d"] // h
    resp = arq.cache_kv_bytes(L, kv, dh, 1, 2)
    erros = [Erro("sem o 2 de K e V", resp // 2, "O cache guarda duas coisas por cabeça: K e V."),
             Erro("float32", 2 * resp, "Em float16 cada número ocupa 2 bytes, não 4."),
             Erro("cabeças de consulta", arq.cache_kv_bytes(L, h, dh, 1, 2),
                  f"Com GQA, só as {kv} cabeças de chave e valor entram no cache, não as {h} de consulta.")]
    dicas = [f"Por token, cada bloco guarda uma chave e um valor para cada cabeça de chave e valor (as {kv}, não as "
             f"{h} de consulta), cada um com d_h números; em float16, cada número ocupa 2 bytes.",
             f"Num bloco só: 2 (K e V) × {kv} × {dh} = {inteiro(2 * kv * dh)} números, ou "
             f"{inteiro(4 * kv * dh)} bytes em float16. Agora multiplique pelos {L} blocos."]
    return Versao(f"Um modelo com {L} blocos, d = {inteiro(g['d'])}, {h} cabeças de consulta e {kv} cabeça(s) de "
                  f"chave e valor (d_h = {dh}), em float16: quantos bytes o cache de KV guarda por token?", resp,
                  f"2 (K e V) × {L} blocos × {kv} × {dh} × 2 bytes = {inteiro(resp)} bytes por token.",
                  tipo="inteiro", casas=0, erros=erros, rotulo="Bytes", dicas=dicas)


# A regra de bolso das abordagens 1 e 2 de Hoffmann et al. (2022): tokens por parâmetro.
TOKENS_POR_PARAMETRO = 20


@exercicio("escala-1", "escala", "O mínimo da curva", transferencia=True)
def escala_1(s):
    C = 1e23 if s is None else s.escolhe([1, 2, 3, 5]) * 10.0 ** s.escolhe([21, 22, 23, 24, 25])
    o = arq.otimo_chinchilla(C)
    N = o["N"] / 1e9
    vinte = math.sqrt(C / (arq.FLOPS_TREINO * TOKENS_POR_PARAMETRO)) / 1e9
    erros = [Erro("C = ND", arq.otimo_chinchilla(C * arq.FLOPS_TREINO)["N"] / 1e9,
                  f"Treinar custa C ≈ {arq.FLOPS_TREINO} N D FLOPs: D = C / ({arq.FLOPS_TREINO} N)."),
             Erro("a regra de bolso", vinte, f"A regra de {TOKENS_POR_PARAMETRO} tokens por parâmetro é a das abordagens 1 e 2; "
                  "aqui o pedido é o mínimo da curva do ajuste paramétrico (abordagem 3).")]
    h = arq.HOFFMANN_2022
    expoente = h["beta"] / (h["alfa"] + h["beta"])
    G = (h["alfa"] * h["A"] / (h["beta"] * h["B"])) ** (1 / (h["alfa"] + h["beta"]))
    dicas = [f"Troque D por C / ({arq.FLOPS_TREINO} N): a perda vira função só de N, e o mínimo fica onde a derivada "
             f"em N zera. Isso dá N* = G (C/{arq.FLOPS_TREINO})^(β/(α+β)), com G = (αA/(βB))^(1/(α+β)).",
             f"Com os números do ajuste, β/(α+β) = {num(expoente)} e G = {num(G)}; e C/{arq.FLOPS_TREINO} = "
             f"{cientifico(C / arq.FLOPS_TREINO, 2)}. Agora eleve C/{arq.FLOPS_TREINO} a {num(expoente)}, "
             "multiplique por G e passe para bilhões."]
    return Versao(f"Com o ajuste de Hoffmann et al. (2022), L(N, D) = E + A/N^α + B/D^β (E = {num(h['E'], 2)}, "
                  f"A = {num(h['A'], 1)}, B = {num(h['B'], 1)}, α = {num(h['alfa'], 2)}, β = {num(h['beta'], 2)}), e D = C / "
                  f"({arq.FLOPS_TREINO} N), ache o mínimo da curva da perda em C = {cientifico(C, 0)} FLOPs: "
                  "quantos bilhões de parâmetros tem o modelo ótimo?", N,
                  f"N* = G (C/{arq.FLOPS_TREINO})^(β/(α+β)) = {abreviado(o['N'])} parâmetros, treinados em "
                  f"{abreviado(o['D'])} tokens ({num(o['tokens_por_parametro'], 0)} por parâmetro).",
                  rel=0.05, casas=1, erros=erros, rotulo="N* (bilhões)", dicas=dicas)


@exercicio("laboratorio-1", "laboratorio", "Os logits do GPT-2", transferencia=True)
def laboratorio_1(s):
    g = arq.GPT2_SMALL
    n = 7 if s is None else s.inteiro(2, 40)
    erros = [Erro("d no lugar de V", n * g["d"], "Essa é a forma do fluxo residual (n × d). z tem uma coluna por token do vocabulário."),
             Erro("só a última linha", g["V"], "Toda posição prevê o token seguinte: z tem uma linha por token do prompt.")]
    dicas = ["Toda posição do prompt prevê o token seguinte: z tem uma linha por token do prompt e uma coluna por "
             "token do vocabulário (não por coordenada do fluxo residual).",
             f"As linhas: {n}, uma por token do prompt. As colunas: V = {inteiro(g['V'])}, uma por token do "
             f"vocabulário (não as d = {inteiro(g['d'])} do fluxo residual). Agora multiplique linhas por colunas."]
    return Versao(f"Um prompt de {n} tokens entra no GPT-2 small (V = {inteiro(g['V'])}). Quantos logits a "
                  "saída z contém?", n * g["V"],
                  f"z tem forma {n} × {inteiro(g['V'])}: {inteiro(n * g['V'])} logits.",
                  tipo="inteiro", casas=0, erros=erros, rotulo="Logits", dicas=dicas)


@exercicio("escala-2", "escala", "Um caso do simulador: qual modelo?")
def escala_2(s):
    C = 1e23 if s is None else s.escolhe([1, 3]) * 10.0 ** s.escolhe([21, 22, 23, 24])
    fator = 6 if s is None else s.escolhe([4, 6, 8, 10])
    N_otimo = arq.otimo_chinchilla(C)["N"]
    Ns = [N_otimo / fator, N_otimo * (0.8 if s is None else s.escolhe([0.7, 0.8, 1.2, 1.4])), N_otimo * fator]
    ordem = [0, 1, 2] if s is None else s.amostra([0, 1, 2], 3)
    letras = ["a", "b", "c"]
    perdas = [arq.perda_com_compute(N, C) for N in Ns]
    por_letra = {letras[k]: ordem[k] for k in range(3)}          # letra -> qual modelo
    letra_de = {m: l for l, m in por_letra.items()}
    if sorted(perdas)[1] - min(perdas) < 0.005 or min(range(3), key=lambda m: perdas[m]) != 1:
        raise Degenerado  # sem uma só resposta clara (ou o do meio não é o melhor)
    linhas = "; ".join(f"({l}) N = {abreviado(Ns[por_letra[l]])}, D = {abreviado(C / (arq.FLOPS_TREINO * Ns[por_letra[l]]))}"
                       for l in letras)
    h = arq.HOFFMANN_2022
    D0 = C / (arq.FLOPS_TREINO * Ns[0])
    outros = " e ".join(f"N = {abreviado(Ns[m])}" for m in sorted((1, 2), key=letra_de.get))
    dicas = [f"Para cada modelo, a perda prevista é L(N, D) = E + A/N^α + B/D^β, com o seu N e o seu D = C / "
             f"({arq.FLOPS_TREINO} N); o menor L ganha. Um N pequeno deixa A/N^α grande; um N grande, com C fixo, "
             "deixa B/D^β grande.",
             f"O menor dos três, o ({letra_de[0]}), com N = {abreviado(Ns[0])} e D = {abreviado(D0)}: A/N^α = "
             f"{num(h['A'] / Ns[0] ** h['alfa'])}, B/D^β = {num(h['B'] / D0 ** h['beta'])}, e L = {num(perdas[0])}. "
             f"Agora faça a mesma conta com os outros dois ({outros})."]
    erros = [Erro("o maior", letra_de[2], "Crescer o modelo sem dados não paga: com C fixo, o maior treina em "
                  "poucos tokens, e o termo B/D^β cresce."),
             Erro("o menor", letra_de[0], "O menor vê muitos tokens, mas o termo A/N^α dele fica grande.")]
    return Versao(f"Com C = {cientifico(C, 0)} FLOPs e D = C / ({arq.FLOPS_TREINO} N), qual destes modelos tem a menor perda "
                  f"prevista pelo ajuste de Hoffmann et al. (2022)? {linhas}.", letra_de[1],
                  "Perdas previstas: " + "; ".join(f"({l}) {num(perdas[por_letra[l]])}" for l in letras)
                  + f". O de tamanho intermediário fica perto do mínimo da curva (N* = {abreviado(N_otimo)}).",
                  tipo="escolha", casas=0, erros=erros, opcoes=[(l, f"({l})") for l in letras], rotulo="Modelo",
                  dicas=dicas)
