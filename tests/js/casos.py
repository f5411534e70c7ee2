"""Os casos que o teste roda duas vezes: no CPython do .venv e no Pyodide (Node).

`casos()` devolve um JSON com as saídas do brinquedo, do formatador, das contas de
arquitetura e do adaptador dos widgets; tests/js/pyodide.test.mjs compara os dois.
Nenhum número esperado fica aqui: a referência é o CPython, calculada na hora. Os casos do
brinquedo são montados dele mesmo (nunca de uma constante de um módulo de widget), e a
geração do widget no Pyodide é comparada com `brinquedo.gerar` no CPython.
"""
import json
import math

from livro import arquitetura as arq
from livro import brinquedo as b
from livro import formato as f
from livro import treino as tr
from livro.widgets import api as w

# O mini-bloco: o x do brinquedo, a linha 2 vezes 10, outra linha 3, e sem atenção.
MINI = {
    "base": (b.MINI_X, True),
    "linha2x10": ([b.MINI_X[0], [10 * v for v in b.MINI_X[1]], b.MINI_X[2]], True),
    "ultimo": ([b.MINI_X[0], b.MINI_X[1], [2, -1, 0, 1]], True),
    "sem_atencao": (b.MINI_X, False),
}
# Gerações com um sorteio u diferente a cada passo: (T, top-k, top-p, us).
GERACOES = [(0.7, None, 0.9, [0.5, 0.95, 0.05]), (2.0, 6, None, [0.2, 0.97, 0.5]), (1.0, None, None, None)]


def _limpa(x):
    """JSON estrito: ±∞ viram texto; tuplas viram listas."""
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if isinstance(x, dict):
        return {str(k): _limpa(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_limpa(v) for v in x]
    return x


def _erro(fn, *a, **k):
    try:
        return {"ok": _limpa(fn(*a, **k))}
    except ValueError as e:
        return {"erro": type(e).__name__, "msg": str(e)}


PEDIDOS = [
    {"widget": nome} for nome in w.WIDGETS
] + [
    {"widget": "tokens", "campos": {"texto": "o gato subiu no telhado."}},
    {"widget": "tokens", "campos": {"texto": "o cachorro"}},
    {"widget": "tokens", "campos": {"texto": ""}},
    {"widget": "embeddings", "campos": {"token": "2", "posicao": "2"}},
    {"widget": "embeddings", "campos": {"token": "99", "posicao": "2"}},
    {"widget": "qkv", "campos": {"linha": "1"}, "acao": "linha"},
    {"widget": "qkv", "campos": {"x1": "1", "x2": "1", "x3": "1", "x4": "1"}},
    {"widget": "qkv", "campos": {"x1": "abc"}},
    {"widget": "mascaras", "campos": {"causal": False, "cabeca": "2"}},
    {"widget": "saida", "campos": {"atencao": False}},
    {"widget": "saida", "campos": {"frase": "o sofá subiu no", "atencao": False}},
    {"widget": "saida", "campos": {"frase": "o cachorro subiu no"}},
    {"widget": "bloco", "acao": "tudo"},
    {"widget": "bloco", "acao": "caso:linha2x10"},
    {"widget": "bloco", "acao": "caso:ultimo"},
    {"widget": "bloco", "acao": "caso:sem_atencao"},
    {"widget": "bloco", "campos": {"x11": "x"}},
    {"widget": "bloco", "campos": {"x23": ""}},
    {"widget": "proximo", "acao": "anexar"},
    {"widget": "proximo", "campos": {"u": "0,8"}, "acao": "anexar"},
    {"widget": "proximo", "acao": "preset:guloso"},
    {"widget": "proximo", "acao": "preset:quente"},
    {"widget": "proximo", "acao": "preset:topk2"},
    {"widget": "proximo", "campos": {"T": "1", "top_p": "", "u": "", "ids": "0 2 4 5 1 6 10"}},
    {"widget": "proximo", "campos": {"T": "1", "top_p": "", "u": "", "ids": "0 2 4 5 1 6 10 11"}},
    {"widget": "proximo", "campos": {"T": "0"}},
    {"widget": "proximo", "campos": {"top_p": "0"}},
    {"widget": "proximo", "campos": {"k": "13"}},
    {"widget": "proximo", "campos": {"T": "quente"}},
    {"widget": "config-bloco", "acao": "preset:2017"},
    {"widget": "config-bloco", "acao": "preset:2019"},
    {"widget": "config-bloco", "campos": {"atencao": "mha", "mlp": "gelu", "vieses": True}},
    {"widget": "compute", "campos": {"logC": "24", "logN": "11", "ajuste": "hoffmann"}},
    {"widget": "compute", "campos": {"inferencia": True, "logS": "14"}},
    # texto decomposto (NFD, colado de um PDF): o Pyodide tem de compor igual (unicodedata)
    {"widget": "tokens", "campos": {"texto": "o sofa\u0301 subiu no"}},
    {"widget": "saida", "campos": {"frase": "o sofa\u0301 subiu no"}},
    {"widget": "bloco", "campos": {"passo": "99"}, "acao": "recomecar"},
    {"widget": "proximo", "campos": {"T": "quente"}, "acao": "recomecar"},
    {"widget": "treino", "campos": {"taxa": "0,3", "arranjo": "pos"}},
    {"widget": "treino", "acao": "pausar"},
    {"widget": "treino", "acao": "recomecar"},
    {"widget": "treino", "campos": {"taxa": "abc"}},
    {"widget": "treino", "campos": {"taxa": "2"}},
    {"widget": "treino", "campos": {"taxa": "", "arranjo": "<script>"}},
]


def _campo(x):
    return "" if x is None else repr(x).replace(".", ",")


def geracao_do_widget(T, k, top_p, us, inst):
    """Os tokens que o widget anexa (com o seu cache de KV), um u diferente a cada clique."""
    campos = {"T": _campo(T), "k": _campo(k), "top_p": _campo(top_p)}
    novos = []
    for n in range(3):
        campos["u"] = _campo(None if us is None else us[n])
        r = w.responder({"widget": "proximo", "campos": campos, "acao": "anexar", "inst": inst})
        if "erro" in r:
            return r
        campos = r["campos"]
        novos.append(int(campos["ids"].split()[-1]))
        if "anexar" in r["desligar"]:
            break
    return novos


def embeddings_do_widget(t, pos):
    """O x que o widget mostra (em negrito) para uma opção de cada lista, lido de volta."""
    r = w.responder({"widget": "embeddings", "campos": {"token": str(t), "posicao": str(pos)}})
    if "erro" in r:
        return {"token": t, "posicao": pos, "erro": r["erro"]}
    x = r["html"].split("<strong>[", 1)[1].split("]</strong>", 1)[0]
    return {"token": t, "posicao": pos, "x": [float(v.replace(",", ".")) for v in x.split("; ")]}


def casos():
    r = {}
    m = b.modelo(b.IDS_PROMPT)
    r["modelo"] = _limpa(m)
    r["modelo_sem_atencao"] = _limpa(b.modelo(b.IDS_PROMPT, com_atencao=False))
    r["modelo_sem_mascara"] = _limpa(b.modelo(b.IDS_PROMPT, causal=False))
    r["perdas"] = b.perdas(b.IDS_PROMPT)
    z = m["z"][-1]
    for nome, cfg in {"curso": dict(T=0.7, top_p=0.9, u=0.5), "u08": dict(T=0.7, top_p=0.9, u=0.8),
                      "topk2": dict(T=1.0, k=2, u=0.5), "quente": dict(T=2.0, u=0.5), "guloso": {},
                      "topp_T1": dict(T=1.0, top_p=0.9)}.items():
        r[f"escolher_{nome}"] = _limpa(b.escolher(z, **cfg))
    r["gerar"] = _limpa(b.gerar(b.IDS_PROMPT, T=1.0))
    r["gerar_amostra"] = _limpa(b.gerar(b.IDS_PROMPT, T=0.7, top_p=0.9, us=[0.5, 0.8, 0.3]))
    cache = b.CacheKV()
    r["cache"] = [_limpa(cache.adiciona(t)) for t in b.IDS_PROMPT + [6]] + [cache.linhas_calculadas]
    for nome, (x, at) in MINI.items():
        r[f"mini_{nome}"] = _limpa(b.mini_bloco(x, at))
    for texto in (b.PROMPT, "o gato subiu no telhado.", "  o   gato ", "o cachorro", "", "   "):
        r[f"tokenizar[{texto}]"] = _erro(b.tokenizar, texto)
    for nome, cfg in {"T0": dict(T=0), "p0": dict(top_p=0), "k13": dict(k=13), "u1": dict(u=1)}.items():
        r[f"valida_{nome}"] = _erro(b.valida_config, **cfg)
    valores = [0.3951, -0.739, 2.4905, 50257, 1e-9, -0.0004, 1234567.891]
    r["formato"] = [[f.num(v), f.num(v, 1, sinal=True), f.tex(v), f.casas_min(v), f.pct(v)] for v in valores]
    r["formato_int"] = [f.inteiro(n) for n in (0, 7, 1000, 50257, 124439808, -7087872)]
    r["arquitetura"] = {
        "gpt2": arq.params_gpt2(),
        "blocos": [arq.params_bloco(4096, 32, kv, mlp, vies, norma)
                   for kv in (32, 8) for mlp in ("relu", "gelu", "swiglu") for vies in (True, False)
                   for norma in ("layernorm", "rmsnorm")],
        "chinchilla": [arq.otimo_chinchilla(10.0 ** e, aj) for e in (21, 23, 25)
                       for aj in (arq.HOFFMANN_2022, arq.BESIROGLU_2024)],
        "inferencia": [arq.otimo_com_inferencia_para_compute(1e23, 10.0 ** s) for s in (10, 12, 15)],
        "cientifico": [f.cientifico(x) for x in (5.88e23, 1e23, 9.96e22)],
    }
    r["widgets"] = [w.responder(dict(p)) for p in PEDIDOS]
    r["gerar_varios"] = [[p["token"] for p in b.gerar(b.IDS_PROMPT, T, k, top_p, us=us, max_novos=3)]
                         for T, k, top_p, us in GERACOES]
    r["widget_geracao"] = [geracao_do_widget(*g, inst=f"casos-{i}") for i, g in enumerate(GERACOES)]
    r["pesos"] = {"E": b.E, "P": b.P}
    r["exercicios"] = exercicios_casos()
    ids = b.codificar("o gato subiu no telhado")
    r["treino_gradiente"] = [tr.gradiente(tr.pesos_do_brinquedo(), ids, pos) for pos in (False, True)]
    # O treino da página, como o navegador o imprime: o texto tem de ser o mesmo, número a número.
    T = tr.treinar(tr.PASSOS, tr.TAXA)
    r["treino_pagina"] = [f.num(T.curva[0]), f.num(T.perda_agora()), [f.num(p, 2) for p in T.proximo()]]
    r["embeddings_todos"] = [embeddings_do_widget(t, pos) for t in range(b.V) for pos in range(1, b.n_ctx + 1)]
    return json.dumps(_limpa(r), ensure_ascii=False, sort_keys=True)


def exercicios_casos():
    """Cada exercício conferido: a versão do livro e duas sorteadas (enunciado, gabarito, erros) e o
    veredito de respostas certas, erradas e hostis, pelo mesmo adaptador do navegador."""
    from livro.exercicios import EXERCICIOS, versao
    out = {}
    for id_ in EXERCICIOS:
        for sem in (None, 7, 4242):
            v = versao(id_, sem)
            out[f"{id_}@{sem}"] = [v.enunciado, v.resposta_txt, [(e.nome, v.texto(e.valor)) for e in v.erros]]
        v = versao(id_, None)
        for resp in [v.resposta_txt, ""] + [v.texto(e.valor) for e in v.erros] + ["abc", "1e308", "<script>x</script>"]:
            out[f"{id_}:{resp}"] = w.responder({"widget": f"exercicio:{id_}", "campos": {"resposta": resp},
                                                "acao": "conferir"})
        out[f"{id_}:outra"] = w.responder({"widget": f"exercicio:{id_}", "acao": "outra", "inst": "casos"})
        out[f"{id_}:dica"] = w.responder({"widget": f"exercicio:{id_}", "campos": {"dica": "1"}, "acao": "dica"})
    out["lista"] = lista_casos(list(EXERCICIOS))
    return out


def lista_casos(ids):
    """A lista de um aluno no navegador: os exercícios na versão dele (e o veredito, no modo lista), o
    link estragado e o código de entrega (o mesmo texto que o CPython dá: a correção o lê)."""
    from livro.exercicios import lista as L
    link = "?" + L.link("http://x", "semana-4", "A1", ids, True).split("?")[1]
    s = L.semente("semana-4", "A1")
    respostas = {i: str(k) + ",5" for k, i in enumerate(ids)} | {ids[0]: "␣telhádo <b>"}
    return {"lista": w.responder({"widget": "lista", "campos": {"link": link}}),
            "estragado": w.responder({"widget": "lista", "campos": {"link": link[:-3]}}),
            "entrega": w.responder({"widget": "entrega", "campos": {"link": link, "respostas": json.dumps(respostas)},
                                    "acao": "gerar"}),
            "oculto": [w.responder({"widget": f"exercicio:{i}", "campos": {"semente": s, "modo": "lista-oculto",
                                                                            "resposta": "0,5"}, "acao": "conferir"})
                       for i in ids[:4]]}


if __name__ == "__main__":
    print(casos())
