"""As figuras do matplotlib no site são SVG, no tamanho em que o PNG aparecia (figuras.py)."""
import base64
import json
import re
import struct

import pytest
from conftest import RAIZ
from livro_ext.tema import figuras


def tamanho(svg):
    """(largura, altura, unidade) da abertura do SVG, como escrita ("pt" ou "px")."""
    m = figuras.TAMANHO.search(svg)
    return float(m[2]), float(m[5]), m[3] or "px"


def tamanho_png(dados):
    """(largura, altura) em px de um PNG, lidas do cabeçalho (o bloco IHDR)."""
    assert dados[:8] == b"\x89PNG\r\n\x1a\n" and dados[12:16] == b"IHDR", "não é um PNG"
    return struct.unpack(">II", dados[16:24])


def tamanho_no_navegador(svg):
    """(largura, altura) em px de CSS, como o navegador mostra o SVG num <img> (96 px por polegada)."""
    w, h, unidade = tamanho(svg)
    k = 96 / 72 if unidade == "pt" else 1
    return w * k, h * k


def test_tamanhos():
    png = b"\x89PNG\r\n\x1a\n" + bytes(4) + b"IHDR" + (335).to_bytes(4, "big") + (290).to_bytes(4, "big")
    assert tamanho_png(png) == (335, 290)
    assert tamanho('<svg width="72pt" height="36pt">') == (72.0, 36.0, "pt")
    assert tamanho_no_navegador('<svg width="72pt" height="36pt">') == (96.0, 48.0)
    assert tamanho_no_navegador('<svg width="100.0px" height="50.0px">') == (100.0, 50.0)


def test_em_px_so_muda_a_abertura():
    svg = ('<?xml version="1.0"?>\n<svg xmlns:xlink="http://www.w3.org/1999/xlink" width="241.2pt" '
           'height="36pt" viewBox="0 0 241.2 36" version="1.1">\n<text width="3pt"/></svg>')
    novo = figuras.em_px(svg)
    assert 'width="335.0px" height="50.0px" viewBox="0 0 241.2 36"' in novo
    assert novo.replace('width="335.0px" height="50.0px"', 'width="241.2pt" height="36pt"') == svg
    assert figuras.em_px(novo) == novo          # de novo: nada muda
    assert figuras.em_px('<svg width="72pt" height="36pt" viewBox="0 0 72 36">') == \
        '<svg width="100.0px" height="50.0px" viewBox="0 0 72 36">'


def _pngs(build):
    """(largura, altura) em px do PNG de cada figura que o kernel desenhou."""
    tamanhos = []
    for arq in sorted((build / "jupyter_execute").rglob("*.glue.json")):
        for valor in json.loads(arq.read_text(encoding="utf-8")).values():
            png = (valor.get("data") or {}).get("image/png")
            if png:
                tamanhos.append(tamanho_png(base64.b64decode("".join(png))))
    return sorted(tamanhos)


def test_site_mostra_svg_no_tamanho_do_png(build):
    html = build / "html"
    fontes = set()
    for pagina in sorted((html / "book").glob("*.html")):
        fontes |= set(re.findall(r'<img [^>]*src="\.\./_images/([^"]+)"', pagina.read_text(encoding="utf-8")))
    assert fontes and all(f.endswith(".svg") for f in fontes), sorted(fontes)
    tamanhos = []
    for nome in fontes:
        texto = (html / "_images" / nome).read_text(encoding="utf-8")
        assert figuras.do_matplotlib(texto), nome
        w, h, unidade = tamanho(texto)
        assert unidade == "px", nome   # o navegador o mostra com 100 px por polegada
        tamanhos.append((w, h))
    pngs = _pngs(build)
    # uma figura por diretiva {glue:figure} das páginas: nenhuma se perde no caminho do PNG ao SVG
    diretivas = sum(len(re.findall(r"^[`:]{3,}\{glue:figure\}", md.read_text(encoding="utf-8"), re.M))
                    for md in (RAIZ / "book").glob("*.md"))
    assert len(pngs) == len(tamanhos) == diretivas > 0
    # o mesmo espaço na página que o PNG ocupava (o recorte justo do SVG difere em até uns px)
    # (larguras e alturas comparadas em ordem, cada lista por si)
    for w, pw in zip(sorted(w for w, _ in tamanhos), sorted(pw for pw, _ in pngs)):
        assert abs(w - pw) <= 3 and w <= 350, (w, pw)   # e cabe na coluna de um celular sem encolher
    for h, ph in zip(sorted(h for _, h in tamanhos), sorted(ph for _, ph in pngs)):
        assert abs(h - ph) <= 0.02 * ph, (h, ph)


def test_pdf_usa_o_svg_como_saiu(build):
    """O singlehtml do PDF não passa pelo figuras.aplicar: o SVG fica em pt."""
    pasta = build / "singlehtml" / "_images"
    if not pasta.is_dir():
        pytest.skip("sem o PDF (o make test o faz antes do pytest)")
    svgs = [p.read_text(encoding="utf-8") for p in pasta.glob("*.svg")]
    mpl = [t for t in svgs if figuras.do_matplotlib(t)]
    assert mpl and all(tamanho(t)[2] == "pt" for t in mpl)
