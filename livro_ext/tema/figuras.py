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
import struct
from pathlib import Path

PX_POR_PT = 100 / 72  # o PNG do build: 100 px por polegada; o SVG: 72 pontos por polegada
# A abertura do <svg>: largura e altura, nessa ordem, com a unidade (pt, px ou nenhuma, que é px).
_TAMANHO = re.compile(r'(<svg\b[^>]*?\swidth=")([\d.]+)(pt|px)?("\s+height=")([\d.]+)(pt|px)?(")')


def tamanho(svg: str) -> tuple[float, float, str]:
    """(largura, altura, unidade) da abertura do SVG, como escrito ("pt" ou "px").

    >>> tamanho('<svg width="72pt" height="36pt">')
    (72.0, 36.0, 'pt')
    """
    m = _TAMANHO.search(svg)
    return float(m[2]), float(m[5]), m[3] or "px"


def tamanho_png(dados: bytes) -> tuple[int, int]:
    """(largura, altura) em px de um PNG, lidas do cabeçalho (o bloco IHDR).

    >>> tamanho_png(b"\\x89PNG\\r\\n\\x1a\\n" + bytes(4) + b"IHDR" + (335).to_bytes(4, "big") + (290).to_bytes(4, "big"))
    (335, 290)
    """
    if dados[:8] != b"\x89PNG\r\n\x1a\n" or dados[12:16] != b"IHDR":
        raise ValueError("não é um PNG")
    return struct.unpack(">II", dados[16:24])


def tamanho_no_navegador(svg: str) -> tuple[float, float]:
    """(largura, altura) em px de CSS, como o navegador mostra o SVG num <img> (96 px por polegada).

    >>> tamanho_no_navegador('<svg width="72pt" height="36pt">')
    (96.0, 48.0)
    """
    w, h, unidade = tamanho(svg)
    k = 96 / 72 if unidade == "pt" else 1
    return w * k, h * k


def em_px(svg: str) -> str:
    """A largura e a altura da abertura do SVG, de pt para px (100 por polegada).

    >>> em_px('<svg width="72pt" height="36pt" viewBox="0 0 72 36">')
    '<svg width="100.0px" height="50.0px" viewBox="0 0 72 36">'
    >>> em_px('<svg width="100.0px" height="50.0px">')  # já em px: fica
    '<svg width="100.0px" height="50.0px">'
    """
    def troca(m):
        if m[3] != "pt" or m[6] != "pt":
            return m[0]
        return f"{m[1]}{float(m[2]) * PX_POR_PT:.1f}px{m[4]}{float(m[5]) * PX_POR_PT:.1f}px{m[7]}"

    return _TAMANHO.sub(troca, svg, count=1)


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
