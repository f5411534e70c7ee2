"""Os números que o curso mediu no GPT-2 small e a conferência dos checkpoints do laboratório."""
import json

from livro import dados
from livro.formato import casas_min, cientifico
from livro.gpt2.base import pesos_reais

# --------------------------------------------------------------------------- valores do curso

def valores_curso(caminho=None):
    """Os números medidos pelo curso no GPT-2 small, com a frase de onde vêm e a tolerância
    (sem `caminho`, os do pacote: livro/valores_curso.json)."""
    if caminho is None:
        return dados.valores_curso()
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
    """Um valor medido, curto e com vírgula decimal (por lab/livro/formato.py), para as comparações."""
    if isinstance(v, float):
        return casas_min(v, 4) if v == 0 or abs(v) >= 1e-3 else cientifico(v, 2)
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
        return {"s5.n_heads": r["n_cabecas"],
                "s5.anterior_head": list(r["melhor_anterior"][:2]), "s5.anterior_peso": r["melhor_anterior"][2],
                "s5.primeiro_head": list(r["melhor_primeiro"][:2]), "s5.primeiro_peso": r["melhor_primeiro"][2],
                "s5.heads_sumidouro": r["cabecas_sumidouro"],
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
                "s8.guloso": r["guloso"].strip(), "s8.amostra_T1": r["amostra_T1"].strip()}
    return {}

