"""O PDF lido como um leitor o lê (issue 49): links que levam a algum lugar, busca que acha a
palavra, nenhuma caixa de código vazia, o glifo certo em todo peso, tokens e números inteiros,
títulos com o que vem depois e a capa em português."""
import re
import shutil
import subprocess
import unicodedata

import pytest

from livro_ext.pdf import pdf as livro_pdf

pytestmark = pytest.mark.skipif(not shutil.which("pdftotext"), reason="falta o pdftotext (poppler-utils)")


@pytest.fixture(scope="module")
def texto(pdf):
    return subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout


def _links(pdf) -> list[str]:
    """Os destinos externos (URI) dos links do PDF."""
    return [u.decode("latin-1") for u in re.findall(rb"/URI \(([^)]*)\)", pdf.read_bytes())]


# --- links -----------------------------------------------------------------------------------

def test_religa_sem_build():
    from bs4 import BeautifulSoup

    html = ('<article><section id="cap-a"><p id="id5">Ref.</p><a href="book/index.html#id5">[1]</a>'
            '<a href="tokens.html">passo 1</a><a href="book/index.html#document-book/tokens">t</a>'
            '<a href="../_notebooks/book/qkv.ipynb">nb</a><a href="book/numeros.html#x">nums</a>'
            '<a href="#sumiu">sem alvo</a><a href="https://x.org/">fora</a></section>'
            '<section id="cap-b"></section></article>')
    doc = BeautifulSoup(html, "html.parser")
    livro_pdf.religa(doc, {"book/index": "cap-a", "book/tokens": "cap-b"}, "https://f.github.io/l/")
    assert [a["href"] for a in doc.find_all("a")] == [
        "#id5", "#cap-b", "#cap-b", "https://f.github.io/l/_notebooks/book/qkv.ipynb",
        "https://f.github.io/l/book/numeros.html#x", "https://x.org/"]
    assert "sem alvo" in doc.get_text()  # a âncora que não existe vira texto


def test_nenhum_link_para_a_origem_da_impressao(pdf):
    mortos = [u for u in _links(pdf) if "livro.pdf/" in u and not u.endswith("/livro.pdf")]
    assert not mortos, f"{len(mortos)} links para a origem falsa da impressão: {mortos[:5]}"
    assert all(u.startswith(("https://", "http://", "mailto:")) for u in _links(pdf))


def test_citacoes_e_referencias_dentro_do_pdf(pdf, build):
    """As citações e os passos viram links internos (destinos nomeados do PDF)."""
    dados = pdf.read_bytes()
    internos = len(re.findall(rb"/Subtype /Link[^>]*?/Dest\b", dados, re.S)) + dados.count(b"/S /GoTo")
    assert internos >= 200, internos


# --- texto -----------------------------------------------------------------------------------

def test_camada_de_texto_sem_hifen_suave(texto):
    assert texto.count("\u00ad") == 0
    # e o hífen que ficou é só o de fim de linha: nenhum no meio de uma palavra
    meio = re.findall(r"\w\u2010\w", texto)
    assert not meio, meio[:10]


def test_busca_acha_as_palavras(texto):
    """Uma palavra comum aparece inteira (só as partidas no fim da linha ficam de fora)."""
    inteiras = len(re.findall(r"probabilidades", texto))
    partidas = len(re.findall(r"p\w*\u2010\n\w*des", texto))
    assert inteiras >= 15 and inteiras >= 3 * partidas, (inteiras, partidas)


def test_tokens_e_numeros_inteiros(texto):
    """Nenhum token (␣...) nem URL hifenizado; nenhum número com operador partido em duas linhas."""
    assert not re.findall(r"␣\w*\u2010\n", texto)
    assert not re.findall(r"(?:https?://|github\.io)\S*\u2010\n", texto)
    assert not re.findall(r"\d \u00b7\s*\n\s*\d|\d\s*\n\s*\u00b7 \d", texto)


def test_protege_sem_build():
    from bs4 import BeautifulSoup

    doc = BeautifulSoup("<p>O token ␣visualize vale 6,7 · 10⁻⁶ em QKᵀ; veja https://a.org/b/c.</p>",
                        "html.parser")
    livro_pdf.protege(doc, doc)
    spans = {s["class"][0]: s.get_text() for s in doc.find_all("span")}
    assert spans == {"pdf-inteiro": "␣visualize", "pdf-glifo": "ᵀ", "pdf-url": "https://a.org/b/c."}
    assert "6,7\u00a0·\u00a010⁻⁶" in doc.get_text()
    livro_pdf.hifeniza(doc)
    assert "\u00ad" not in "".join(s.get_text() for s in doc.find_all("span"))


def test_capa_em_portugues(texto):
    capa = texto.split("\f")[0]
    assert "Edição em PDF" in capa
    assert not re.search(r"\bbuild\b", capa), capa


# --- glifos: a letra sobrescrita desenhada como a letra (ᵀ e T), em cada fonte do PDF -------

def _forma(arquivo, ch):
    import numpy as np
    from PIL import Image, ImageDraw, ImageFilter, ImageFont

    fonte = ImageFont.truetype(arquivo, 96)
    im = Image.new("L", (220, 220), 0)
    ImageDraw.Draw(im).text((50, 30), ch, font=fonte, fill=255)
    caixa = im.getbbox()
    if not caixa:
        return None
    a = np.asarray(im.crop(caixa).resize((24, 24)).filter(ImageFilter.GaussianBlur(2)), float)
    a -= a.mean()
    return a / (np.linalg.norm(a) or 1)


def parecida(arquivo, ch) -> float:
    """A semelhança (0 a 1) entre o glifo de `ch` e o da letra de que ele é o sobrescrito."""
    base = unicodedata.normalize("NFKD", ch)
    x, y = _forma(arquivo, ch), _forma(arquivo, base)
    return float((x * y).sum()) if x is not None and y is not None else 1.0


def test_detecta_o_glifo_errado():
    """A DejaVu Serif Bold desenha o ᵀ como ˢ; a regular, certo."""
    serif_bold = "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf"
    serif = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
    if not shutil.which("fc-list"):
        pytest.skip("sem fontconfig")
    assert parecida(serif, "ᵀ") > 0.8
    assert parecida(serif_bold, "ᵀ") < 0.3


def test_glifo_certo_em_todo_peso(pdf):
    """Cada letra sobrescrita (ᵀ, ⱼ, ²…) sai, na fonte em que o PDF a escreve, com a forma da
    letra (ᵀ como T, nunca ˢ)."""
    from test_pdf_fontes import arquivo_do_sistema

    xml = subprocess.run(["pdftohtml", "-xml", "-i", "-q", "-stdout", str(pdf)],
                         capture_output=True, text=True, check=True).stdout
    familias = dict(re.findall(r'<fontspec id="(\d+)"[^>]*family="(?:[A-Z]{6}\+)?([^"]+)"', xml))
    vistos = set()
    for fid, trecho in re.findall(r'<text [^>]*font="(\d+)"[^>]*>(.*?)</text>', xml):
        # o pdftohtml tira o "-Bold" do nome e marca o negrito com <b> (e o itálico com <i>)
        negrito = italico = False
        for marca, pedaco in re.findall(r"(<[^>]+>)?([^<]*)", trecho):
            negrito = {"<b>": True, "</b>": False}.get(marca, negrito)
            italico = {"<i>": True, "</i>": False}.get(marca, italico)
            for ch in set(pedaco):
                if unicodedata.decomposition(ch).startswith(("<super>", "<sub>")) and \
                        unicodedata.normalize("NFKD", ch).isalnum():
                    vistos.add((familias[fid], negrito, italico, ch))
    assert any(ch == "ᵀ" and negrito for _, negrito, _, ch in vistos), sorted(vistos)[:10]
    errados = []
    for familia, negrito, italico, ch in sorted(vistos):
        estilo = ("Bold" if negrito else "") + ("Italic" if italico else "")
        nomes = [familia + "-" + estilo, familia + "-" + estilo.replace("Italic", "Oblique")] if estilo else [familia]
        arquivo = next(filter(None, map(arquivo_do_sistema, nomes)), None)
        if arquivo and parecida(arquivo, ch) < 0.6:
            errados.append(f"{ch} em {familia} {estilo}")
    assert not errados, errados


# --- páginas ---------------------------------------------------------------------------------

def _caixas_vazias(pdf, dpi=30):
    """As caixas de código (o fundo #f6f7f9) sem nenhuma palavra dentro: [(página, y)]."""
    import numpy as np
    from PIL import Image

    bbox = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    palavras = []
    for pagina in bbox.split("<page ")[1:]:
        palavras.append([(float(a), float(b)) for a, b in re.findall(r'yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)"', pagina)])
    vazias = []
    with __import__("tempfile").TemporaryDirectory() as tmp:
        subprocess.run(["pdftoppm", "-r", str(dpi), "-png", str(pdf), f"{tmp}/p"], check=True)
        for n, arq in enumerate(sorted(__import__("pathlib").Path(tmp).glob("p-*.png")), start=1):
            a = np.asarray(Image.open(arq).convert("RGB")).astype(int)
            cinza = (abs(a - [246, 247, 249]).sum(axis=2) <= 3).mean(axis=1) > 0.5
            linhas = np.flatnonzero(cinza)
            if not len(linhas):
                continue
            faixas = np.split(linhas, np.flatnonzero(np.diff(linhas) > 1) + 1)
            for f in faixas:
                y0, y1 = f[0] * 72 / dpi, (f[-1] + 1) * 72 / dpi
                if y1 - y0 < 12:
                    continue
                if not any(y0 - 2 <= ya and yb <= y1 + 2 for ya, yb in palavras[n - 1]):
                    vazias.append((n, round(y0)))
    return vazias


def test_nenhuma_caixa_de_codigo_vazia(pdf):
    vazias = _caixas_vazias(pdf)
    assert not vazias, f"caixas cinza sem texto (página, y em pt): {vazias}"


def test_titulos_com_o_que_vem_depois(texto, build):
    """Nenhuma página termina num título de resposta ou de dropdown nem num termo do glossário
    (a última linha antes do número da página)."""
    from bs4 import BeautifulSoup

    html = BeautifulSoup((build / "singlehtml" / "livro_pdf.html").read_text(encoding="utf-8"), "html.parser")
    titulos = {" ".join(t.get_text(" ", strip=True).replace("\u00ad", "").split())
               for t in html.select("summary, .pdf-summary, dl.glossary > dt, p.admonition-title")}
    assert "Resposta" in titulos
    soltos = []
    for n, folha in enumerate(texto.split("\f"), start=1):
        linhas = [" ".join(x.replace("\u00ad", "").split()) for x in folha.splitlines() if x.strip()]
        if len(linhas) >= 2 and linhas[-2] in titulos:
            soltos.append((n, linhas[-2]))
    assert not soltos, soltos
