"""Diagramas do modelo em SVG, desenhados por código (formas e tamanhos calculados).

Cada função devolve um `Diagrama`: o SVG entra na página como HTML (cola + {glue}),
então herda as cores do tema (claro ou escuro) pelas classes `lv-*` de livro.css.
Só a biblioteca padrão. As formas vêm de `brinquedo` e de `arquitetura.GPT2_SMALL`.

Versão inicial: caixas em fila. (Esboço a ser refinado.)
"""
import html

import arquitetura as arq
import brinquedo as b
from formato import inteiro

PASSOS = ["Tokens", "Embeddings", "Q, K, V", "Máscaras e cabeças", "O bloco", "A saída",
          "O próximo token"]
PAGINAS = ["tokens", "embeddings", "qkv", "mascaras", "bloco", "saida", "proximo_token"]


class Diagrama:
    """Um SVG com texto alternativo; o Jupyter e o myst-nb o mostram como HTML."""

    def __init__(self, svg, alt):
        self.svg, self.alt = svg, alt

    def _repr_html_(self):
        return f'<figure class="lv-diagrama" role="group">{self.svg}</figure>'

    def __str__(self):
        return self.svg


def _svg(largura, altura, corpo, alt, titulo):
    return (f'<svg class="lv-svg" viewBox="0 0 {largura} {altura}" role="img" '
            f'aria-label="{html.escape(alt, quote=True)}" xmlns="http://www.w3.org/2000/svg">'
            f'<title>{html.escape(titulo)}</title>{corpo}</svg>')


def voce_esta_aqui(k):
    """O mapa dos sete passos, com o passo k (1 a 7) destacado."""
    if not 1 <= k <= len(PASSOS):
        raise ValueError(f"passo {k} fora de 1 a {len(PASSOS)}")
    w, h, gap = 96, 30, 6
    corpo = []
    for i, nome in enumerate(PASSOS):
        x = i * (w + gap)
        classe = "lv-caixa lv-atual" if i + 1 == k else "lv-caixa"
        corpo.append(f'<a href="{PAGINAS[i]}.html"><rect class="{classe}" x="{x}" y="2" width="{w}" '
                     f'height="{h}" rx="5"/><text class="lv-texto" x="{x + w / 2}" y="{2 + h / 2}" '
                     f'text-anchor="middle" dominant-baseline="central">{i + 1}. {html.escape(nome)}</text></a>')
    alt = f"Mapa dos sete passos; você está no passo {k} de {len(PASSOS)}: {PASSOS[k - 1]}."
    return Diagrama(_svg(len(PASSOS) * (w + gap), h + 4, "".join(corpo), alt, "Você está aqui"), alt)


def caminho():
    """O caminho inteiro, com as formas do brinquedo e do GPT-2 small."""
    g2 = arq.GPT2_SMALL
    n = len(b.IDS_PROMPT)
    etapas = [("texto", "", ""), ("tokens", f"{n}", "n"), ("X", f"{n} × {b.d}", f"n × {g2['d']}"),
              ("blocos", f"{n} × {b.d}", f"n × {g2['d']}"), ("logits", f"{n} × {b.V}", f"n × {inteiro(g2['V'])}"),
              ("p", f"{b.V}", inteiro(g2["V"]))]
    w, h, gap = 110, 56, 14
    corpo = []
    for i, (nome, toy, gpt) in enumerate(etapas):
        x = i * (w + gap)
        corpo.append(f'<rect class="lv-caixa" x="{x}" y="2" width="{w}" height="{h}" rx="6"/>'
                     f'<text class="lv-texto" x="{x + w / 2}" y="20" text-anchor="middle">{nome}</text>'
                     f'<text class="lv-forma" x="{x + w / 2}" y="38" text-anchor="middle">{toy}</text>'
                     f'<text class="lv-forma" x="{x + w / 2}" y="52" text-anchor="middle">{gpt}</text>')
    alt = "O caminho: " + " → ".join(f"{n_} ({t})" if t else n_ for n_, t, _ in etapas)
    return Diagrama(_svg(len(etapas) * (w + gap), h + 4, "".join(corpo), alt, "O caminho inteiro"), alt)


def bloco():
    """O bloco pré-LN: o fluxo residual, as duas subcamadas e onde a LN fica."""
    d = b.d
    alt = (f"Bloco pré-LN: x ({d} números por token) → LN → atenção → soma (h = x + a) → LN → MLP "
           f"→ soma (y = h + m).")
    pecas = ["x", "LN", "atenção", "+", "LN", "MLP", "+", "y"]
    w, h, gap = 70, 30, 10
    corpo = []
    for i, nome in enumerate(pecas):
        x = i * (w + gap)
        corpo.append(f'<rect class="lv-caixa" x="{x}" y="2" width="{w}" height="{h}" rx="5"/>'
                     f'<text class="lv-texto" x="{x + w / 2}" y="{2 + h / 2}" text-anchor="middle" '
                     f'dominant-baseline="central">{nome}</text>')
    return Diagrama(_svg(len(pecas) * (w + gap), h + 4, "".join(corpo), alt, "O bloco pré-LN"), alt)
