"""A referência dos testes de navegador, calculada pelo CPython do projeto.

Lê do stdin {"pedidos": [...]} e escreve {"respostas": [...], "fatos": {...}}:
as respostas de widgets_api.responder para os mesmos pedidos que o teste faz
clicando na página, e alguns fatos do brinquedo (o token escolhido, o texto final).
"""
import json
import sys

from livro import brinquedo as b
from livro.widgets import api as w
from livro.widgets import geracao as wg
def fatos():
    z = b.modelo(b.IDS_PROMPT)["z"][-1]
    curso = wg.PRESETS_PROXIMO["padrao"]
    T, top_p, u = (float(curso[k].replace(",", ".")) for k in ("T", "top_p", "u"))
    u08 = float(wg.PRESETS_PROXIMO["u08"]["u"].replace(",", "."))
    guloso = b.gerar(b.IDS_PROMPT, T=1.0, max_novos=b.n_ctx)
    seq = guloso[-1]["entrada"] + [guloso[-1]["token"]]
    return {
        "curso": b.VOCAB[b.escolher(z, T, None, top_p, u)[0]],
        "u08": b.VOCAB[b.escolher(z, T, None, top_p, u08)[0]],
        "guloso_ids": seq,
        "guloso_texto": b.decodificar(seq),
        "guloso_para_em_eot": seq[-1] == b.EOT,
        "tokens_prompt": [b.VOCAB[i] for i in b.IDS_PROMPT],
        "widgets": list(w.WIDGETS),
    }


if __name__ == "__main__":
    pedidos = json.load(sys.stdin)["pedidos"]
    print(json.dumps({"respostas": [w.responder(p) for p in pedidos], "fatos": fatos()}, ensure_ascii=False))
