"""A referência dos testes de navegador, calculada pelo CPython do projeto.

Lê do stdin {"pedidos": [...]} e escreve {"respostas": [...], "fatos": {...}}:
as respostas de widgets_api.responder para os mesmos pedidos que o teste faz
clicando na página, e alguns fatos do brinquedo (o token escolhido, o texto final), calculados
pelo brinquedo chamado direto, nunca pelos módulos dos widgets.
"""
import json
import sys

from livro import brinquedo as b
from livro.widgets import api as w

# As configurações que a página de amostragem usa (T, top-p, u; o caso u = 0,8) e uma geração
# com um sorteio diferente a cada passo, como o teste os digita.
CURSO = {"T": 0.7, "top_p": 0.9, "u": 0.5}
U08 = 0.8
GERACAO = {"T": 0.7, "top_p": 0.9, "us": [0.5, 0.95, 0.05]}


def fatos():
    z = b.modelo(b.IDS_PROMPT)["z"][-1]
    T, top_p, u = CURSO["T"], CURSO["top_p"], CURSO["u"]
    u08 = U08
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
        "geracao": {"T": GERACAO["T"], "top_p": GERACAO["top_p"], "us": GERACAO["us"],
                    "tokens": [b.VOCAB[p["token"]] for p in b.gerar(b.IDS_PROMPT, GERACAO["T"], None,
                                                                     GERACAO["top_p"], us=GERACAO["us"],
                                                                     max_novos=len(GERACAO["us"]))]},
    }


if __name__ == "__main__":
    pedidos = json.load(sys.stdin)["pedidos"]
    print(json.dumps({"respostas": [w.responder(p) for p in pedidos], "fatos": fatos()}, ensure_ascii=False))
