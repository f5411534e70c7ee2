"""A busca põe primeiro a página que é sobre a palavra (o placar fica em `_static/tema.js`).

O Sphinx pontua igual toda página que contém a palavra no texto; o título da página e os
das seções só contam quando a consulta é quase o título inteiro e com os mesmos acentos.
O tema.js (Scorer.score, o gancho do Sphinx) soma pontos quando a palavra, sem acento,
está no título da página, no que a página entrega (a 1ª frase da linha "Entrega" da caixa do passo:
"a saída da atenção" diz que a página Máscaras e cabeças é sobre a atenção) ou no título
de uma seção. Os títulos já estão no índice; a linha "Entrega" entra nele aqui, no fim do
build, como `livro_destaques` (página -> texto sem acento, em minúsculas).
"""
from __future__ import annotations

import html as html_mod
import json
import re
from pathlib import Path

from .tema import sem_acento

_CAIXA = re.compile(r'<div class="[^"]*\bpasso\b[^"]*">(.*?)</div>', re.S)
_MATH = re.compile(r'<span class="math[^"]*">.*?</span>', re.S)
_ENTREGA = re.compile(r"<li>(?:(?!</li>).)*?Entrega:(.*?)</li>", re.S)
_TAGS = re.compile(r"<[^>]+>")


def destaque(html: str) -> str:
    """O texto da linha "Entrega" da caixa do passo (sem acento, minúsculo), ou ""."""
    caixa = _CAIXA.search(html)
    if not caixa:
        return ""
    m = _ENTREGA.search(caixa.group(1))
    if not m:
        return ""
    texto = html_mod.unescape(_TAGS.sub(" ", _MATH.sub(" ", m.group(1))))
    # só a 1ª frase: o que a página entrega; o resto diz para onde vai ("agora com
    # temperatura", na saída, é o assunto do passo 7, não o dela)
    texto = re.split(r"(?<=\.)\s", texto.strip(), maxsplit=1)[0]
    return " ".join(sem_acento(texto.lower()).split())


def aplicar(saida: Path) -> dict:
    saida = Path(saida)
    indice = saida / "searchindex.js"
    if not indice.exists():
        return {}
    texto = indice.read_text(encoding="utf-8")
    pre, suf = "Search.setIndex(", ")"
    if not (texto.startswith(pre) and texto.rstrip().endswith(suf)):
        raise RuntimeError("busca.py: searchindex.js não tem a forma Search.setIndex({...})")
    dados = json.loads(texto[len(pre):texto.rstrip().rindex(suf)])
    destaques = {}
    for nome in dados.get("docnames", []):
        pagina = saida / f"{nome}.html"
        if pagina.exists():
            d = destaque(pagina.read_text(encoding="utf-8"))
            if d:
                destaques[nome] = d
    dados["livro_destaques"] = destaques
    indice.write_text(pre + json.dumps(dados, ensure_ascii=False, separators=(",", ":")) + suf,
                      encoding="utf-8")
    return destaques


def no_fim(app, exc):
    if exc or app.builder.format != "html":
        return
    aplicar(Path(app.outdir))


def setup(app):
    app.connect("build-finished", no_fim)
