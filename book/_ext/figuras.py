"""As figuras do matplotlib no site: SVG, no mesmo tamanho em que o PNG aparecia.

Cada figura sai do kernel em PNG e em SVG (`lab/livro/paginas.py`). O site mostra o SVG:
nítido em qualquer tela (o PNG, de 100 pontos por polegada, fica borrado num celular com
2 ou 3 pixels por px) e mais leve pela rede (com gzip, as 20 figuras do livro pesam 154 KB
em SVG e 518 KB em PNG). O PNG fica para os notebooks baixados: o Colab não mostra SVG.

O SVG do matplotlib mede em pontos (72 por polegada), e o navegador conta 96 px por
polegada; o PNG tinha 100 px por polegada. No fim do build, `no_fim` reescreve a largura e a
altura de cada SVG do matplotlib em `_images` para px, 100 por polegada: a figura ocupa na
página o mesmo espaço que o PNG ocupava, com o texto no mesmo tamanho. O `viewBox` não muda
(o desenho só escala). Só no site: o PDF (`singlehtml`, `pdf.py`) usa o SVG como saiu.
"""
from __future__ import annotations

import re
from pathlib import Path

PX_POR_PT = 100 / 72  # o PNG do build: 100 px por polegada; o SVG: 72 pontos por polegada
# A abertura do <svg> do matplotlib: largura e altura em pt, nessa ordem.
_TAMANHO = re.compile(r'(<svg\b[^>]*?\swidth=")([\d.]+)pt("\s+height=")([\d.]+)pt(")')


def em_px(svg: str) -> str:
    """A largura e a altura da abertura do SVG, de pt para px (100 por polegada).

    >>> em_px('<svg width="72pt" height="36pt" viewBox="0 0 72 36">')
    '<svg width="100.0px" height="50.0px" viewBox="0 0 72 36">'
    >>> em_px('<svg width="100.0px" height="50.0px">')  # já em px: fica
    '<svg width="100.0px" height="50.0px">'
    """
    return _TAMANHO.sub(lambda m: f"{m[1]}{float(m[2]) * PX_POR_PT:.1f}px{m[3]}"
                                  f"{float(m[4]) * PX_POR_PT:.1f}px{m[5]}", svg, count=1)


def do_matplotlib(svg: str) -> bool:
    return "<dc:title>Matplotlib v" in svg[:2000]


def no_fim(app, excecao):
    """build-finished, só no HTML do site: os SVG do matplotlib em `_images` com o tamanho em px."""
    if excecao is not None or app.builder.name != "html":
        return
    for p in sorted((Path(app.outdir) / "_images").glob("*.svg")):
        texto = p.read_text(encoding="utf-8")
        if do_matplotlib(texto):
            novo = em_px(texto)
            if novo != texto:
                p.write_text(novo, encoding="utf-8")


def setup(app):
    app.connect("build-finished", no_fim)
