"""A lista de referências e as citações em português (livro_ext/tema/referencias_ptbr.py)."""
import re
from pathlib import Path

import pytest

from livro_ext.tema import referencias_ptbr as rp

RAIZ = Path(__file__).resolve().parents[1]

pybtex = pytest.importorskip("pybtex")
from pybtex.database import parse_file  # noqa: E402

BIB = RAIZ / "book" / "referencias.bib"


@pytest.fixture(scope="module")
def bib():
    """(as entradas, já com as letras de desempate; as entradas formatadas pelo estilo ptbr)."""
    entradas = parse_file(str(BIB), bib_format="bibtex").entries
    assert rp.desempata(entradas) == {"he2016": "a", "he2016identity": "b", "touvron2023": "a", "touvron2023b": "b"}
    estilo = rp._estilos()()
    return entradas, {fe.key: fe for fe in estilo.format_entries(entradas.values())}


@pytest.fixture(scope="module")
def lista(bib):
    return {chave: fe.text.render_as("text") for chave, fe in bib[1].items()}


def test_letras_de_desempate(lista):
    assert "2016a." in lista["he2016"] and "2016b." in lista["he2016identity"]
    assert "2017." in lista["vaswani2017"] and "2017a" not in lista["vaswani2017"]


def test_palavras_em_portugues(lista):
    tudo = "\n".join(lista.values())
    for ingles in ("and others", "In Proceedings", "Technical Report", "URL:"):
        assert ingles not in tudo, ingles
    for chave, texto in lista.items():               # os autores (antes do primeiro ". ") sem "and"
        assert " and " not in texto.split(". ")[0], chave
    assert "Tom B. Brown, Benjamin Mann e outros." in lista["brown2020"]
    assert "Relatório técnico, OpenAI, 2019." in lista["radford2019"]
    assert lista["geva2021"].count("Em Proceedings of the 2021 Conference") == 1
    assert "Jimmy Lei Ba, Jamie Ryan Kiros e Geoffrey E. Hinton." in lista["ba2016"]


def test_rotulo_conta_autores_como_a_citacao():
    from pybtex.database import Entry, Person

    def entrada(*nomes, ano="2020"):
        e = Entry("misc", fields={"year": ano})
        e.persons["author"] = [Person(n) for n in nomes]
        return e

    dois = entrada("Ana Silva", "Bia Souza")
    tres = entrada("Ana Silva", "Bia Souza", "Caio Lima")
    outro_tres = entrada("Ana Silva", "Davi Rocha", "Eva Reis")
    assert rp.rotulo(dois) == (("Silva", "Souza"), "2020")
    assert rp.rotulo(tres) == rp.rotulo(outro_tres) == (("Silva", "et al."), "2020")
    assert rp.calcula_sufixos([("a", dois), ("b", tres), ("c", outro_tres)]) == {"b": "a", "c": "b"}
    # as letras na ordem do arquivo, não na das chaves
    assert rp.calcula_sufixos([("vaswani", dois), ("atencao", entrada("Ana Silva", "Bia Souza"))]) == \
        {"vaswani": "a", "atencao": "b"}


def test_citacao_no_texto_com_e_e_a_letra_do_desempate(bib):
    """O estilo ptbr_autor_ano que o setup registra: "e" entre dois autores, o ano com a letra."""
    from pybtex_docutils import Backend
    from sphinxcontrib.bibtex.plugin import find_plugin
    from sphinxcontrib.bibtex.style.referencing import format_references
    from sphinxcontrib.bibtex.style.template import SphinxReferenceInfo

    class App:
        def connect(self, *args, **kwargs):
            pass

    rp.setup(App())
    estilo = find_plugin("sphinxcontrib.bibtex.style.referencing", "ptbr_autor_ano")()
    entradas, formatadas = bib
    # o construtor "latex" põe o link em nós raw, fora do texto
    info = SphinxReferenceInfo(type("Construtor", (), {"name": "latex"})(), "a", "b", "c", None, "", "")

    def cita(papel, chave):
        texto = format_references(estilo, papel, [(entradas[chave], formatadas[chave], info)])
        return "".join(n.astext() for n in texto.render(Backend()) if n.tagname != "raw")

    assert cita("p", "hendrycks2016") == "[Hendrycks e Gimpel, 2016]"
    assert cita("t", "hendrycks2016") == "Hendrycks e Gimpel [2016]"
    assert cita("p", "he2016identity") == "[He et al., 2016b]"


def test_site_sem_ingles_na_bibliografia(build):
    pagina = (build / "html" / "book" / "referencias.html").read_text(encoding="utf-8")
    texto = re.sub(r"<[^>]+>", " ", pagina[pagina.index('id="id1"'):])
    for ingles in ("and others", "In Proceedings", "Technical Report", "URL:"):
        assert ingles not in texto, ingles
    assert "e outros" in texto and "Relatório técnico" in texto
    # as citações no texto: He et al., 2016a e 2016b, nunca só 2016
    pqb = (build / "html" / "book" / "por_que_bloco.html").read_text(encoding="utf-8")
    assert "He <em>et al.</em>, 2016a" in pqb or "He et al., 2016a" in pqb
    assert "He <em>et al.</em>, 2016b" in pqb or "He et al., 2016b" in pqb
    todos = "".join(p.read_text(encoding="utf-8") for p in (build / "html" / "book").glob("*.html"))
    assert not re.search(r"He (<em>)?et al\.(</em>)?, 2016\]", todos)
    assert " and Gimpel" not in todos


def test_autores_coletivos_em_ordem(lista):
    """{Gemma Team} e nostalgebraist no lugar do alfabeto, não depois de Zhang (issues 49 e 55)."""
    ordem = list(lista)
    assert ordem.index("gemma2024") < ordem.index("geva2021") < ordem.index("zhang2019")
    assert ordem.index("nostalgebraist2020") < ordem.index("olsson2022")
    assert ordem.index("chowdhery2023") < ordem.index("deepseek2024") < ordem.index("devlin2019")
    assert ordem.index("su2021") < ordem.index("olmo2024") < ordem.index("touvron2023")


def test_ordem_pela_letra_sem_chaves_latex_nem_acento():
    """Como a ABNT: pelo nome (o do autor coletivo também), sem "{", sem comandos do LaTeX, sem acento."""
    from pybtex.database import BibliographyData, Entry, Person

    autores = {"zhang": "Zhang, Biao", "gemma": "{Gemma Team}", "avila": "Ávila, Ana", "azevedo": "Azevedo, Rui",
               "erdi": "{\\'E}rdi, Eva", "lukasiewicz": "{\\L}ukasiewicz, Jan", "nost": "{nostalgebraist}",
               "baevski": "Baevski, Alexei", "olmo": "{Team OLMo}", "deepseek": "{DeepSeek-AI}", "lukas": "Łukas, Ida"}
    dados = BibliographyData({chave: Entry("misc", fields={"year": "2020", "title": chave},
                                           persons={"author": [Person(nome)]}) for chave, nome in autores.items()})
    ordem = [e.key for e in rp._estilos()().sort(dados.entries.values())]
    assert ordem == ["avila", "azevedo", "baevski", "deepseek", "erdi", "gemma", "lukas", "lukasiewicz", "nost",
                     "olmo", "zhang"]
    assert rp.chave_de_ordem("{\\'E}rdi") == rp.chave_de_ordem("Érdi") == "erdi"
