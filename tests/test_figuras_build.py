"""Toda figura do site cabe na coluna de um celular sem encolher (issue 21, §2).

Lê o HTML de um `make book` já feito: cada <img> de uma página que aponta para _images/ (as
figuras que as células de código desenham; o site mostra o SVG, com largura e altura em px,
100 por polegada, como o PNG do build: livro_ext/tema/figuras.py) tem no máximo 342 px de largura
natural. A coluna de texto tem 358 px numa tela de 390 px; mais largo que isso, o CSS encolhe
a figura e os rótulos ficam miúdos.
"""
from html.parser import HTMLParser
from pathlib import Path

from test_figuras_svg import tamanho_no_navegador, tamanho_png

COLUNA = 342  # px: a coluna de 358 px menos os 8 px de cada lado que o modo escuro põe em volta da figura
PULA = {"_static", "_sources", "_notebooks", "_images"}


class _Imagens(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.srcs = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img" and a.get("src"):
            self.srcs.append(a["src"])


def _tamanho(caminho):
    """(largura, altura) em px, do cabeçalho do arquivo (PNG, SVG; outro formato, pelo Pillow)."""
    dados = caminho.read_bytes()
    if dados[:8] == b"\x89PNG\r\n\x1a\n":
        return tamanho_png(dados)
    if caminho.suffix.lower() == ".svg":
        return tuple(round(x) for x in tamanho_no_navegador(dados[:4000].decode("utf-8", "replace")))
    from PIL import Image

    with Image.open(caminho) as im:
        return im.size


def _figuras(html_dir):
    """(página, arquivo) de cada figura em _images/ mostrada por uma página do site."""
    achadas = []
    for pagina in sorted(html_dir.rglob("*.html")):
        if PULA & set(pagina.relative_to(html_dir).parts):
            continue
        p = _Imagens()
        p.feed(pagina.read_text(encoding="utf-8"))
        for src in p.srcs:
            alvo = (pagina.parent / src.split("#")[0].split("?")[0]).resolve()
            if alvo.parent == (html_dir / "_images").resolve():
                achadas.append((pagina.relative_to(html_dir), alvo))
    return achadas


def test_figuras_cabem_no_celular(build):
    html_dir = Path(build) / "html"
    figuras = _figuras(html_dir)
    assert len(figuras) >= 15, figuras  # as figuras das páginas estão lá (o teste não passa à toa)
    largas = []
    for pagina, arquivo in figuras:
        assert arquivo.is_file(), f"{pagina}: {arquivo.name} não existe"
        largura, altura = _tamanho(arquivo)
        if largura > COLUNA:
            largas.append(f"{pagina}: _images/{arquivo.name} tem {largura} × {altura} px")
    assert not largas, (f"figuras mais largas que {COLUNA} px (desenhe-as com "
                        "livro.paginas.LARGURA_CELULAR):\n" + "\n".join(largas))
