"""As fontes do PDF: cada uma vem de um pacote que o projeto instala, e nenhuma face é sintética.

Um contêiner novo (o python:3.11-bookworm do CI e do Pages) não traz fontes: o que o PDF embute
tem de vir de PACOTES_PDF (o alvo `poppler` do Makefile) ou do próprio site (as fontes web do
MathJax e dos ícones, em _static). Sem o itálico instalado, o Chromium inclina a regular (o
texto sai com a matriz inclinada, `1 0 .25 -1 … Tm`); sem o negrito, engrossa o contorno e o
embute como Type 3 com o nome da regular. Os dois casos falham aqui.
"""
import re
import shutil
import subprocess
import zlib

import pytest
from conftest import RAIZ

sem_poppler = pytest.mark.skipif(not (shutil.which("pdffonts") and shutil.which("fc-list")),
                                 reason="falta o pdffonts (poppler-utils) ou o fc-list")


def pacotes_do_makefile() -> set[str]:
    m = re.search(r"^PACOTES_PDF\s*:=\s*(.+)$", (RAIZ / "Makefile").read_text(encoding="utf-8"), re.M)
    assert m, "o Makefile não tem PACOTES_PDF"
    return set(m.group(1).split())


def fontes(pdf: bytes) -> list[tuple[str, str]]:
    """[(tipo, nome sem o prefixo do subconjunto)] de cada fonte do PDF, Type 3 incluídas (o
    Chromium põe o nome da fonte de origem no descritor delas)."""
    objs = {int(m.group(1)): m.group(2) for m in re.finditer(rb"(?m)^(\d+) 0 obj\n(.*?)\nendobj", pdf, re.S)}
    saida = []
    for o in objs.values():
        if not re.search(rb"/Type /Font\s", o) or b"/Subtype /Type0" in o:
            continue
        tipo = re.search(rb"/Subtype /(\w+)", o).group(1).decode()
        m = re.search(rb"/FontDescriptor (\d+) 0 R", o)
        nome = re.search(rb"/FontName /(\S+)", objs[int(m.group(1))]) if m else None
        if nome:
            saida.append((tipo, re.sub(r"^[A-Z]{6}\+", "", nome.group(1).decode())))
    return saida


def inclinados(pdf: bytes) -> int:
    """Quantos textos saem com a matriz inclinada (o itálico sintético do Chromium)."""
    n = 0
    for m in re.finditer(rb"stream\r?\n(.*?)\r?\nendstream", pdf, re.S):
        try:
            conteudo = zlib.decompress(m.group(1))
        except zlib.error:
            continue
        for a, b, c, d in re.findall(rb"(-?[\d.]+) (-?[\d.]+) (-?[\d.]+) (-?[\d.]+) -?[\d.]+ -?[\d.]+ Tm", conteudo):
            if float(b) == 0 and float(c) != 0:
                n += 1
    return n


def arquivo_do_sistema(nome: str) -> str | None:
    r = subprocess.run(["fc-list", f":postscriptname={nome}", "file"], capture_output=True, text=True)
    arquivos = [x.rstrip(":").strip() for x in r.stdout.splitlines() if x.strip()]
    return arquivos[0].rstrip(":") if arquivos else None


def pacote_do_arquivo(arquivo: str) -> str | None:
    r = subprocess.run(["dpkg", "-S", arquivo], capture_output=True, text=True)
    return r.stdout.split(":")[0].strip() if r.returncode == 0 else None


def fontes_do_site(static) -> set[str]:
    """Os nomes PostScript das fontes web que a página impressa carrega de _static."""
    from fontTools.ttLib import TTFont

    nomes = set()
    for arq in list(static.rglob("*.woff")) + list(static.rglob("*.ttf")):
        try:
            nomes.add(TTFont(arq, lazy=True)["name"].getDebugName(6))
        except Exception:  # (um .woff2 sem o brotli): não conta
            continue
    return nomes


# --- a detecção, com PDFs mínimos ------------------------------------------------------------

def _pdf(fonte: bytes, conteudo: bytes) -> bytes:
    fluxo = zlib.compress(b"BT\n/F4 16 Tf\n" + conteudo + b"\n<07> Tj\nET\n")
    return (b"%PDF-1.4\n3 0 obj\n<</Type /FontDescriptor\n/FontName /AAAAAA+" + fonte + b"\n>>\nendobj\n"
            b"4 0 obj\n<</Type /Font\n/Subtype /Type3\n/FontDescriptor 3 0 R>>\nendobj\n"
            b"5 0 obj\n<</Length 9>> stream\n" + fluxo + b"\nendstream\nendobj\n")


def test_detecta_negrito_e_italico_sinteticos():
    negrito = _pdf(b"WenQuanYiMicroHei", b"1 0 0 -1 8 23 Tm")
    assert fontes(negrito) == [("Type3", "WenQuanYiMicroHei")]
    assert inclinados(negrito) == 0
    assert inclinados(_pdf(b"WenQuanYiMicroHei", b"1 0 .25 -1 8 23 Tm")) == 1


@pytest.mark.skipif(not shutil.which("dpkg"), reason="sem dpkg (não é Debian)")
def test_pacotes_do_makefile_tem_as_dejavu():
    pacotes = pacotes_do_makefile()
    assert {"poppler-utils", "fonts-dejavu-core", "fonts-dejavu-extra", "fonts-wqy-microhei"} <= pacotes
    arquivo = arquivo_do_sistema("DejaVuSerif-Italic")
    if arquivo:
        assert pacote_do_arquivo(arquivo) in pacotes


# --- o PDF construído ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def pdf_bytes(build):
    arquivo = build / "html" / "livro.pdf"
    if not arquivo.exists():
        pytest.fail("Falta o _build/html/livro.pdf: rode `make pdf` (o `make test` já roda).")
    return arquivo.read_bytes()


@sem_poppler
def test_cada_fonte_vem_de_um_pacote_do_projeto(pdf_bytes, build):
    pacotes = pacotes_do_makefile()
    do_site = fontes_do_site(build / "singlehtml" / "_static")
    problemas = []
    for tipo, nome in sorted(set(fontes(pdf_bytes))):
        arquivo = arquivo_do_sistema(nome)
        if tipo == "Type3" and arquivo:
            problemas.append(f"{nome}: negrito sintético (Type 3 de uma fonte do sistema, {arquivo})")
        elif arquivo:
            pacote = pacote_do_arquivo(arquivo)
            if pacote not in pacotes:
                problemas.append(f"{nome}: {arquivo} vem de {pacote or 'nenhum pacote'}, fora de PACOTES_PDF")
        elif nome not in do_site:
            problemas.append(f"{nome} ({tipo}): nem do sistema nem de _static")
    assert not problemas, "\n".join(problemas)


@sem_poppler
def test_nenhum_italico_sintetico(pdf_bytes):
    assert inclinados(pdf_bytes) == 0


@sem_poppler
def test_serifa_nos_quatro_pesos(pdf_bytes):
    nomes = {n for _, n in fontes(pdf_bytes)}
    assert {"DejaVuSerif", "DejaVuSerif-Bold", "DejaVuSerif-Italic", "DejaVuSans", "DejaVuSansMono"} <= nomes, nomes
