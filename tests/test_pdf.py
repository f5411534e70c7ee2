"""A edição em PDF (`make pdf`, livro_ext.pdf.pdf): os números da trava, A4 e as margens.

Os testes de `pdf_confere` com texto inventado mostram que a conferência falha quando um
número muda; os outros leem o `_build/html/livro.pdf` que o `make pdf` (e o `make test`) faz.
"""
import json
import re
import shutil
import subprocess

import pytest
import pdf_confere as pc
from conftest import EDITA_CAMINHO, RAIZ

LOCK = json.loads((RAIZ / "book" / "numeros.lock.json").read_text(encoding="utf-8"))
# dois passos e o laboratório (o issue 22 pede estes); as outras páginas vêm em seguida
PRINCIPAIS = ["book/tokens", "book/qkv", "book/laboratorio"]
OUTRAS = ["book/index", "book/embeddings", "book/mascaras", "book/bloco", "book/saida", "book/proximo_token",
          "book/por_que_bloco", "book/desde_2017", "book/escala", "book/glossario", "book/referencias"]
sem_poppler = pytest.mark.skipif(not shutil.which("pdftotext"), reason="falta o pdftotext (poppler-utils)")


@pytest.fixture(scope="session")
def capitulos(pdf, build):
    return pc.texto_dos_capitulos(pdf, build / "pdf")


# --- a conferência falha quando deve (sem build) ------------------------------------------

def test_formas_do_que_o_leitor_ve():
    assert pc.formas("[-0,5; 1,5]") == [("texto", "[-0,5; 1,5]")]
    assert pc.formas("`␣sub` · `o`") == [("texto", "␣sub · o")]
    assert pc.numeros_da_matematica(r"\sqrt{0{,}750 + 10^{-5}} = {-}0{,}866") == ["0,750", "10", "−5", "−0,866"]
    assert pc.formas("| a | b |\n| --- | ---: |\n| `<\\|endoftext\\|>` | 1.024 |") == [
        ("celula", "a"), ("celula", "b"), ("celula", "<|endoftext|>"), ("celula", "1.024")]
    assert pc.formas("(figura)") == []


def test_numero_mudado_no_texto_falha():
    valores = {"x5": "[-0,5; -0,5; -0,5; 1,5]", "den": "0,866", "eq": r"\sqrt{0{,}750} = 0{,}866"}
    texto = "A linha é [-0,5; -0,5; -0,5; 1,5] e o desvio,\n0,866, vem de\n√\n0,750\n= 0,866."
    assert pc.confere_numeros(texto, valores) == []
    # o PDF (ou o site) com um dígito a mais: falha, dizendo a chave e o trecho
    errado = texto.replace("0,866", "0,867")
    problemas = pc.confere_numeros(errado, valores)
    assert [p.split(":")[0] for p in problemas] == ["den", "eq"]
    assert "'0,866'" in problemas[0]


def test_trava_mudada_falha():
    texto = "Os 12 tokens e os 124.439.808 parâmetros; d = 768."
    assert pc.confere_numeros(texto, {"V": "12", "p": "124.439.808"}) == []
    # '12' não vale dentro de '124.439.808', nem '124.439.80' (um pedaço do número)
    assert pc.confere_numeros("Os 124.439.808 parâmetros", {"V": "12"}) != []
    assert pc.confere_numeros(texto, {"p": "124.439.80"}) != []
    assert pc.confere_numeros(texto, {"d": "769"}) != []


def test_hifens_e_aspas_nao_atrapalham():
    texto = "O brin\u00adquedo não conhece “␣cachorro”: nenhum dos seus to\u00ad\u2010\nkens serve."
    assert pc.confere_numeros(texto, {"e": 'O brinquedo não conhece "␣cachorro": nenhum dos seus tokens serve.'}) == []


def test_margens_falham_com_palavra_cortada():
    xml = ('<page width="595.92" height="842.88"><word xMin="46.0" yMin="1" xMax="540.0" yMax="2">ok</word>'
           '</page><page width="595.92" height="842.88"><word xMin="500.0" yMin="1" xMax="600.0" yMax="2">'
           'cortada</word></page><page width="612.00" height="792.00"></page>')
    n, problemas = pc.margens_do_xml(xml)
    assert n == 3
    assert len(problemas) == 2 and "'cortada'" in problemas[0] and "não A4" in problemas[1]


# --- o PDF construído ----------------------------------------------------------------------

@sem_poppler
@pytest.mark.parametrize("pagina", PRINCIPAIS + OUTRAS)
def test_numeros_do_pdf_sao_os_da_trava(capitulos, pagina):
    valores = pc.valores_mostrados(RAIZ / f"{pagina}.md", LOCK)
    if pagina in PRINCIPAIS:
        assert len(valores) > 30, f"{pagina}: poucos valores colados ({len(valores)})"
    problemas = pc.confere_numeros(capitulos[pagina], valores)
    assert not problemas, f"{pagina}: {len(problemas)} valores da trava não estão no PDF:\n" + "\n".join(problemas)


@sem_poppler
def test_numero_mudado_na_trava_falha_no_pdf(capitulos):
    """A mesma conferência, no PDF de verdade, com um número da trava mudado (como faria um
    build cujo número derivou): falha nessa chave."""
    valores = pc.valores_mostrados(RAIZ / "book/qkv.md", LOCK)
    assert valores["den5"] == "0,866"
    assert pc.confere_numeros(capitulos["book/qkv"], {**valores, "den5": "0,867"}) == [
        "den5: não está no PDF: '0,867'"]


@sem_poppler
def test_a4_e_nada_fora_da_margem(pdf):
    n, problemas = pc.confere_margens(pdf)
    assert n > 50
    assert not problemas, "\n".join(problemas[:20])


@sem_poppler
def test_capitulos_em_ordem_com_sumario(pdf, build):
    info = json.loads((build / "pdf" / "paginas.json").read_text(encoding="utf-8"))
    caps = json.loads((build / "pdf" / "capitulos.json").read_text(encoding="utf-8"))
    folhas = pc.paginas(pdf)
    assert info["paginas"] == len(folhas)
    inicios = [info["inicio"][str(c["i"])] for c in caps]
    assert inicios == sorted(inicios) and len(set(inicios)) == len(inicios)
    sumario = pc.normaliza(folhas[1])
    assert sumario.startswith("Sumário")
    for c, pag in zip(caps, inicios):
        # cada capítulo começa numa página nova, com o seu título, e o sumário diz qual
        titulo = pc.normaliza(c["titulo"])
        assert titulo in pc.normaliza(folhas[pag - 1]), (c["doc"], pag)
        assert re.search(re.escape(titulo) + r"\s*" + str(pag) + r"\b", sumario), (c["doc"], pag)
    assert "book/numeros" not in [c["doc"] for c in caps]


@sem_poppler
def test_orcamento_e_metadados(pdf):
    assert pdf.stat().st_size <= 10 * 1000 * 1000
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    assert "Transformers: do texto ao próximo token" in info
    assert re.search(r"Page size:\s+595\.\d+ x 84[12]\.\d+ pts \(A4\)", info)


@sem_poppler
def test_fontes_com_o_simbolo_de_espaco(pdf, capitulos):
    """O ␣ sai como ␣ (a fonte tem o glifo), e as fontes estão embutidas."""
    assert "␣telhado" in capitulos["book/index"]
    fontes = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True).stdout
    linhas = [x for x in fontes.splitlines()[2:] if x.strip()]
    assert linhas and all(" yes " in x for x in linhas), fontes


@sem_poppler
def test_codigo_visivel_sim_encanamento_nao(capitulos):
    """As células que o site mostra estão no PDF; as escondidas (remove-cell) não."""
    tokens = pc.normaliza(capitulos["book/tokens"])
    assert "def maior_pedaco(texto, vocab):" in tokens
    for cap, texto in capitulos.items():
        assert not EDITA_CAMINHO.search(texto), cap  # nenhuma célula mexe no caminho de busca
        assert "from paginas import cola" not in texto, cap


@sem_poppler
def test_widgets_parados_com_o_endereco_do_vivo(capitulos):
    """Cada página com widget diz, logo depois dele, onde está a versão que responde."""
    for pagina in ["book/tokens", "book/qkv", "book/bloco", "book/escala"]:
        texto = pc.normaliza(capitulos[pagina])
        assert "A versão viva, que responde, está no site" in texto, pagina
        assert re.search(r"github\.io/[^ ]+/" + re.escape(pagina) + r"\.html", re.sub(r"\s", "", texto)), pagina


@sem_poppler
def test_matematica_desenhada_e_hifenizacao(pdf, capitulos):
    """Nenhum LaTeX cru no papel (o MathJax terminou antes da impressão), e o português
    hifeniza: há quebras com hífen, nunca no meio de um número."""
    for cap, texto in capitulos.items():
        for cru in ["\\frac", "\\(", "\\begin", "$$"]:
            assert cru not in texto, (cap, cru)
    tudo = "\n".join(capitulos.values())
    quebras = re.findall(r"(\S*)\u00ad?\u2010\n(\S*)", tudo)
    assert len(quebras) > 100
    assert not [q for q in quebras if q[0][-1:].isdigit() and q[1][:1].isdigit()]


def test_formulas_com_as_fontes_do_mathjax(build, pdf):
    """As fórmulas desenhadas no build vão ao papel com a folha de estilo do MathJax (as fontes
    TeX, que o PDF embute como Type 3): sem ela, o Chromium as escrevia em DejaVu, com o que o
    MathJax posicionou fora do lugar ("çã" antes do P em $P[\\text{posição}]$)."""
    pagina = (build / "singlehtml" / "livro_pdf.html").read_text(encoding="utf-8")
    assert 'id="MJX-CHTML-styles"' in pagina
    fontes = re.findall(r'url\("(_static/matematica/woff-v2/[^"]+)"\)', pagina)
    assert any("MathJax_Main-Regular" in f for f in fontes), fontes[:5]
    assert all((build / "singlehtml" / f).exists() for f in fontes)
    tabela = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True).stdout
    assert "Type 3" in tabela, tabela
