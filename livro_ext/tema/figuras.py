"""As figuras do matplotlib no site: o SVG no espaço em que o PNG aparecia (dev/MEDIDAS.md).

O SVG mede em pontos (72 por polegada); o PNG, 100 px por polegada. No site (não no PDF), a abertura
de cada SVG de `_images` passa a px, 100 por polegada; o `viewBox` não muda."""
from __future__ import annotations

import re
from pathlib import Path

PX_POR_PT = 100 / 72
# A abertura do <svg>: largura e altura, nessa ordem, com a unidade (pt, px ou nenhuma, que é px).
TAMANHO = re.compile(r'(<svg\b[^>]*?\swidth=")([\d.]+)(pt|px)?("\s+height=")([\d.]+)(pt|px)?(")')


def em_px(svg: str) -> str:
    """A largura e a altura da abertura do SVG, de pt para px (100 por polegada); em px, fica."""
    def troca(m):
        if m[3] != "pt" or m[6] != "pt":
            return m[0]
        return f"{m[1]}{float(m[2]) * PX_POR_PT:.1f}px{m[4]}{float(m[5]) * PX_POR_PT:.1f}px{m[7]}"

    return TAMANHO.sub(troca, svg, count=1)


def do_matplotlib(svg: str) -> bool:
    return "<dc:title>Matplotlib v" in svg[:2000]


def aplicar(saida: Path):
    for p in sorted(Path(saida, "_images").glob("*.svg")):
        texto = p.read_text(encoding="utf-8")
        if do_matplotlib(texto):
            novo = em_px(texto)
            if novo != texto:
                p.write_text(novo, encoding="utf-8")
