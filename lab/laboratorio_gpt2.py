# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Laboratório: do texto ao próximo token, no GPT-2 small
#
# Duas horas, nove seções, o GPT-2 small de verdade rodando na CPU. Cada seção mede uma parte
# do caminho texto → tokens → embedding → blocos → norma + unembedding → softmax e termina num
# **checkpoint**: uma célula com `assert` que confere uma propriedade que tem de valer (a forma,
# uma soma, duas contas que têm de dar o mesmo) e, quando os pesos carregados são os do
# GPT-2 small, compara os seus números com os que o curso mediu (`valores_curso.json`, cada
# valor com a frase do slide de onde veio e a tolerância).
#
# Rode as células em ordem. Se um checkpoint falhar, a mensagem diz o que era esperado e o
# que saiu.
#
# O `.ipynb` é gerado a partir de `lab/laboratorio_gpt2.py` (formato "percent" do jupytext)
# por `python -m livro.gpt2.notebook` (lab/livro/gpt2/notebook.py): para mudar o notebook, edite o `.py` e gere de novo.

# %% [markdown]
# ## 0. Preparação
#
# No Colab, a célula abaixo instala o `transformers` (se faltar) e baixa o pacote do livro
# (`livro/`): o laboratório `livro/gpt2/` (as contas, um arquivo por parte do caminho),
# `livro/formato.py` (números com vírgula) e `livro/valores_curso.json`. Rodando do
# repositório, o pacote já está lá.

# %%
#@title Preparação: instala o que falta e acha (ou baixa) os arquivos do laboratório
import importlib.util
import os
import subprocess
import sys

if importlib.util.find_spec("transformers") is None:
    subprocess.check_call([sys.executable, "-m", "pip", "install", "-q", "transformers"])

URL_LAB = "{{URL_LAB}}"
# os arquivos do laboratório que o Colab baixa (o gerador do .ipynb os copia de livro/gpt2/lab.py)
ARQUIVOS = ("{{ARQUIVOS}}",)
# O pacote do livro: instalado (o `make` do repositório), na pasta lab/ ou, no Colab, baixado
# para uma pasta livro/ ao lado do notebook (a pasta do notebook é importável).
if importlib.util.find_spec("livro") is None:
    import urllib.request

    for a in ARQUIVOS:
        os.makedirs(os.path.dirname(a), exist_ok=True)
        urllib.request.urlretrieve(URL_LAB + a, a)
    importlib.invalidate_caches()

# %%
import torch

from livro.gpt2 import lab as gl
from livro.formato import cientifico, inteiro, num, pct

torch.set_grad_enabled(False)

# %% [markdown]
# Agora o modelo. Na primeira vez, `from_pretrained("gpt2")` baixa os pesos, cerca de
# meio GiB (depois eles ficam no cache do Hugging Face). `Curso` decide se vale comparar com o curso: só se o modelo tiver a forma do GPT-2
# small.

# %%
modelo, tok = gl.carrega()          # GPT2LMHeadModel.from_pretrained("gpt2") e o tokenizador
c = modelo.config
curso = gl.Curso(modelo)
print(f"{c.n_layer} blocos, d = {c.n_embd}, {c.n_head} cabeças, V = {inteiro(c.vocab_size)}, "
      f"até {c.n_positions} posições")
print("comparar com o curso:", "sim" if curso.ativo else "não (não é o GPT-2 small)")

# %% [markdown]
# ## 1. Do texto aos tokens, em inglês e em português
#
# O GPT-2 não lê palavras: lê pedaços de uma lista fixa, o vocabulário (os V da célula de cima), montada com texto da web em
# inglês (BPE). Veja como o prompt do curso é cortado, como o espaço faz parte do token e
# quanto uma frase em português custa a mais.

# %%
r1 = gl.tokens_em_dois_idiomas(tok)
print("prompt:", gl.PROMPT)
print("tokens:", r1["pedacos"], "->", r1["ids"])
print('ids de " the", "the", " The":', r1["ids_the"])
print(' gato:', r1["gato"], '   cachorro:', r1["cachorro"])
print()
print(f"{'inglês':>42}  tok/pal   {'português':>48}  tok/pal")
for (en, pt), (ren, rpt) in zip(gl.FRASES, r1["razoes"]):
    print(f"{en:>42}  {num(ren, 2):>7}   {pt:>48}  {num(rpt, 2):>7}")

# %% [markdown]
# **Pense:** em português, a mesma frase pede bem mais tokens por palavra. Cada token a mais
# é mais conta para responder e menos espaço livre no contexto.

# %%
# checkpoint 1
assert tok.decode(r1["ids"]) == gl.PROMPT                  # ida e volta sem perder nada
assert len(r1["pedacos"]) == len(r1["ids"])
assert len({tuple(i) for i in r1["ids_the"]}) == 3         # o espaço e a maiúscula contam
media_en = sum(a for a, _ in r1["razoes"]) / len(r1["razoes"])
media_pt = sum(b for _, b in r1["razoes"]) / len(r1["razoes"])
assert media_pt > 1.5 * media_en, (media_en, media_pt)
curso.confere_tudo(gl.medidas(1, r1))
print("checkpoint 1 ok")

# %% [markdown]
# ## 2. Onde moram os parâmetros
#
# Contamos os parâmetros do modelo carregado peça por peça e conferimos com a fórmula que só
# usa a configuração (d, L, V, posições). A camada de saída não entra na conta: ela é a própria
# tabela `wte`, usada de novo, transposta.

# %%
r2 = gl.onde_moram_os_parametros(modelo)
for peca, n in r2["contados"]["pecas"].items():
    print(f"  {peca:12s} {inteiro(n):>12}")
rb = r2["resumo"]
print(f"um bloco: atenção {inteiro(rb['atencao'])} · MLP {inteiro(rb['mlp'])} · "
      f"normas {inteiro(rb['normas'])} = {inteiro(rb['bloco'])} (MLP {pct(rb['fracao_mlp'], 1)})")
k = r2["contados"]
print(f"modelo: wte {inteiro(k['wte'])} + wpe {inteiro(k['wpe'])} + {c.n_layer} blocos "
      f"{inteiro(k['blocos'])} + ln_f {inteiro(k['ln_f'])} = {inteiro(k['total'])}")
rs, sm = r2["resumo_small"], r2["small"]
print(f"GPT-2 small pela fórmula: bloco {inteiro(rs['bloco'])}, total {inteiro(sm['total'])}, "
      f"wte {pct(sm['wte'] / sm['total'])} do total")

# %%
# checkpoint 2
assert k["pecas"] == r2["formula"]["pecas"]                 # contado = fórmula, peça por peça
assert k["total"] == r2["formula"]["total"]
assert k["saida_amarrada"]                                  # lm_head é a wte
assert k["total"] == k["wte"] + k["wpe"] + k["blocos"] + k["ln_f"]
assert rb["mlp"] > rb["atencao"]                            # o MLP é a maior parte do bloco
curso.confere_tudo(gl.medidas(2, r2))
print("checkpoint 2 ok")

# %% [markdown]
# ## 3. As formas ao longo do caminho
#
# Ganchos (`register_forward_hook`) anotam a forma de cada etapa durante uma passada normal.
# Repare: dentro da pilha a forma não muda; só a última projeção leva de d para V. E toda
# posição faz uma previsão — o treino usa todas; a geração, só a última.

# %%
r3 = gl.caminho_completo(modelo, tok)
for etapa, forma in r3["etapas"]:
    print(f"  {etapa:26s} {forma}")
print("\nmais prováveis depois do prompt:", [(t, num(p)) for t, p in r3["top4"]])
print(f"\n{'depois de':>40}  {'palpite':>10}  {'certo':>14}  p(certo)  −ln p")
for l in r3["posicoes"]["linhas"][:-1]:
    print(f"{l['depois_de'][-40:]:>40}  {l['palpite']!r:>10}  {l['certo']!r:>14}  "
          f"{num(l['p_certo']):>8}  {num(l['nats'], 2):>5}")
print(f"perda média (a do treino): {num(r3['posicoes']['perda'], 2)} nats")

# %%
# checkpoint 3
n = len(r3["posicoes"]["linhas"])
formas = dict(r3["etapas"])
assert all(formas[f"bloco {i + 1}"] == (1, n, c.n_embd) for i in range(c.n_layer))
assert formas["logits"] == (1, n, c.vocab_size)
assert abs(r3["soma"] - 1) < 1e-4                           # V probabilidades que somam 1
nats = [l["nats"] for l in r3["posicoes"]["linhas"][:-1]]
assert abs(sum(nats) / len(nats) - r3["posicoes"]["perda"]) < 1e-6
curso.confere_tudo(gl.medidas(3, r3))
print("checkpoint 3 ok")

# %% [markdown]
# ## 4. Refazer um bloco à mão
#
# `gl.bloco_a_mao` refaz o bloco 0 só com `@`, uma máscara causal, softmax, LayerNorm e a GELU,
# usando os pesos do próprio modelo (`ln_1`, `attn.c_attn`, `attn.c_proj`, `ln_2`, `mlp.c_fc`,
# `mlp.c_proj`). Leia a função: cada linha é uma equação do capítulo. Depois fazemos o modelo
# inteiro à mão (12 blocos, `ln_f` e a `wte` transposta) e comparamos com a biblioteca.

# %%
r4 = gl.bloco_a_mao_e_a_biblioteca(modelo, tok, mostra=True)
print(f"\nsaída do bloco 0:      diferença máxima {cientifico(r4['dif_bloco'])}")
print(f"pesos de atenção:      diferença máxima {cientifico(r4['dif_atencao'])}")
print(f"logits no fim:         diferença máxima {cientifico(r4['dif_logits'])} "
      f"(os logits chegam a {num(r4['escala_logits'], 1)})")

# %%
# checkpoint 4
assert r4["dif_bloco"] < 1e-5, r4["dif_bloco"]
assert r4["dif_atencao"] < 1e-5, r4["dif_atencao"]
assert r4["dif_logits"] < 1e-5 * max(1.0, r4["escala_logits"]), r4["dif_logits"]
curso.confere_tudo(gl.medidas(4, r4))
print("checkpoint 4 ok: só arredondamento de float32")

# %% [markdown]
# ## 5. O que as cabeças fazem
#
# Para cada uma das L × H cabeças medimos três funções: olhar o token anterior, olhar o
# primeiro token (o "sumidouro" onde a atenção que não tem para onde ir descansa) e
# **indução**: numa sequência aleatória repetida, olhar o token que veio *depois* da última
# vez que o token atual apareceu. É essa cabeça que deixa o modelo copiar.

# %%
r5 = gl.o_que_as_cabecas_fazem(modelo, tok)
for nome in ("anterior", "primeiro", "inducao"):
    b, h, v = r5[f"melhor_{nome}"]
    print(f"{nome:>9}: melhor cabeça {b}.{h} (bloco.cabeça, do 0), peso médio {num(v, 2)}")
print(f"{r5['cabecas_sumidouro']} de {r5['n_cabecas']} cabeças põem mais da metade no primeiro token")
cp = r5["copias"]
print(f"sequência aleatória repetida: perda {num(cp['primeira'], 2)} nats na 1ª cópia "
      f"(ao acaso: {num(cp['ao_acaso'], 2)}), {num(cp['segunda'], 2)} na 2ª, "
      f"top-1 {pct(cp['top1_segunda'])}")

# %%
# checkpoint 5
assert r5["anterior"].shape == (c.n_layer, c.n_head)
assert r5["n_cabecas"] == c.n_layer * c.n_head
assert r5["soma_linhas"] < 1e-5                             # cada linha de A soma 1
assert r5["acima_diagonal"] == 0.0                          # máscara causal: nada do futuro
assert all(0 <= float(r5[f].min()) and float(r5[f].max()) <= 1 for f in ("anterior", "primeiro", "inducao"))
curso.confere_tudo(gl.medidas(5, r5))
print("checkpoint 5 ok")

# %% [markdown]
# ## 6. Desligar a atenção
#
# Um gancho em cada `attn` troca a saída por zeros; embeddings, MLPs e normas continuam.
# Sem atenção, cada posição só vê o próprio token e o próprio índice. Duas frases de 10
# tokens que terminam em " the" ficam com a mesma previsão?

# %%
r6 = gl.tire_a_atencao(modelo, tok)
for frase, com, sem in zip(gl.FRASES_THE, r6["com"], r6["sem"]):
    print(frase)
    print("   com atenção:", [(t, num(p)) for t, p in com])
    print("   sem atenção:", [(t, num(p)) for t, p in sem])
print(f"diferença entre as duas distribuições: com {cientifico(r6['dif_com'])}, sem {cientifico(r6['dif_sem'])}")
print(f"perda média num parágrafo de {r6['tokens_texto']} tokens: {num(r6['perda_com'], 2)} "
      f"-> {num(r6['perda_sem'], 2)} nats sem atenção")

# %%
# checkpoint 6
assert r6["n_tokens"] == [10, 10]
assert r6["dif_sem"] < 1e-6                                 # sem atenção: mesma previsão
assert r6["dif_com"] > r6["dif_sem"]                        # com atenção o contexto conta
if curso.ativo:
    assert r6["perda_sem"] > r6["perda_com"] + 1.0          # sem atenção o modelo piora muito
curso.confere_tudo(gl.medidas(6, r6))
print("checkpoint 6 ok")

# %% [markdown]
# ## 7. O logit lens: ler o fluxo no meio da pilha
#
# O *logit lens*: aplicamos a `ln_f` e a `wte` transposta ao fluxo residual depois de cada
# bloco, como se o modelo acabasse ali. Atenção a um detalhe da biblioteca: o último
# `hidden_states` já passou pela `ln_f`; nele a norma não é aplicada de novo.

# %%
r7 = gl.fluxo_em_cada_profundidade(modelo, tok)
print(f"resposta final: {r7['alvo']!r}\n")
print(f"{'depois de':>12}  {'topo':>14}  posição  p(resposta)  ‖x‖ médio")
for prof, (topo, pos, p) in enumerate(zip(r7["topos"], r7["todas_posicoes"], r7["todas_p"])):
    nome = "embedding" if prof == 0 else f"bloco {prof}"
    print(f"{nome:>12}  {topo!r:>14}  {pos:>7}  {num(p):>11}  {num(r7['normas']['normas'][prof], 1):>9}")

# %%
# checkpoint 7
assert len(r7["todas_p"]) == c.n_layer + 1
assert r7["todas_posicoes"][-1] == 1                        # no fim, a resposta é o topo
assert r7["dif_final"] < 1e-4                               # a última leitura é a própria saída
assert r7["normas"]["confere_hidden"] < 1e-5                # ganchos = hidden_states
curso.confere_tudo(gl.medidas(7, r7))
print("checkpoint 7 ok")

# %% [markdown]
# ## 8. Temperatura, top-k, top-p e o cache de KV
#
# A temperatura divide os logits antes do softmax: T < 1 concentra, T > 1 achata, e a ordem
# nunca muda. O top-k e o top-p cortam a cauda. Por fim, geramos com e sem o cache de KV:
# com cache, cada passo só calcula a linha nova; o resultado tem de ser o mesmo.

# %%
r8 = gl.temperatura_e_cache(modelo, tok)
print(f"depois do prompt, o topo é {r8['topo']!r}")
print("   T   p(topo)  tokens para 90%")
for l in r8["tabela"]:
    print(f"{num(l['T'], 1):>4}  {num(l['p_topo']):>8}  {inteiro(l['para_90']):>15}")
for nome, texto in gl.PROMPTS_CONFIANCA.items():
    cf = r8["confianca"][nome]
    print(f"{texto!r}: topo {cf['topo']!r} {num(cf['p_topo'])}, top-p 0,9 mantém {inteiro(cf['top_p'])}")
print("\ngulosa (sempre o mais provável):", repr(r8["guloso"]))
print(f"com cache = sem cache: {r8['cache_igual']} (logits diferem no máximo {cientifico(r8['dif_cache'])})")

# %%
# checkpoint 8
ps = [l["p_topo"] for l in r8["tabela"]]
assert all(a >= b for a, b in zip(ps, ps[1:]))              # mais quente, menos concentrado
noventa = [l["para_90"] for l in r8["tabela"]]
assert all(a <= b for a, b in zip(noventa, noventa[1:]))
assert len({l["topo"] for l in r8["tabela"]}) == 1          # a ordem não muda
assert r8["top_k2"] == 2
assert r8["cache_igual"] and r8["dif_cache"] < 1e-3
curso.confere_tudo(gl.medidas(8, r8))
print("checkpoint 8 ok")

# %% [markdown]
# ## 9. Sua vez: escolha a decodificação
#
# Mude `T`, `k`, `p` e a semente e rode de novo. Experimente a decodificação gulosa
# (`guloso=True`: sempre o mais provável, o limite de T → 0; T = 0 não é uma temperatura),
# a configuração que a célula já traz (uma temperatura abaixo de 1, com top-p) e uma
# temperatura acima de 1 sem filtro (`p=None`). Quando o texto degringola? Quando ele entra
# em laço?

# %%
MINHA = dict(T=0.7, k=None, p=0.9, semente=0, guloso=False)
r9 = gl.decodifica(modelo, tok, gl.PROMPT, n=30, **MINHA)
print(gl.PROMPT + r9["texto"])
print("\ntokens mantidos em cada passo:", [m["n"] for m in r9["mantidos"]])

# %%
# checkpoint 9
de_novo = gl.decodifica(modelo, tok, gl.PROMPT, n=30, **MINHA)
assert de_novo["ids"] == r9["ids"]                          # mesma semente, mesmo texto
assert all(m["dentro"] for m in r9["mantidos"])             # todo sorteado estava no conjunto
if MINHA["p"] is not None and MINHA["k"] is None and not MINHA["guloso"]:
    assert all(m["massa"] >= MINHA["p"] - 1e-5 for m in r9["mantidos"])
print("checkpoint 9 ok")

# %% [markdown]
# ## Resumo

# %%
print(f"valores do curso conferidos: {len(curso.conferidos)}; pulados: {len(curso.pulados)}")
if curso.pulados:
    print("pulados porque o modelo não é o GPT-2 small:", ", ".join(curso.pulados))
